//! Session filters shared by `list`, `projects`, `show` look-ups and exports: agent, project,
//! time window and kind.

use chrono::{DateTime, Days, Duration, NaiveDate, Utc};
use globset::GlobMatcher;

use crate::model::{Agent, SessionKind};
use crate::scan::SessionSummary;
use crate::usage::Zone;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum KindFilter {
    #[default]
    Main,
    Subagent,
    All,
}

impl KindFilter {
    /// Whether a session of `kind` passes `--kind`.
    pub fn accepts(self, kind: SessionKind) -> bool {
        match self {
            KindFilter::All => true,
            KindFilter::Main => kind == SessionKind::Main,
            KindFilter::Subagent => kind == SessionKind::Subagent,
        }
    }
}

/// `--project`: a glob when it has glob metacharacters, else a case-insensitive substring.
#[derive(Debug, Clone)]
pub enum ProjectMatcher {
    Substring(String),
    Glob(GlobMatcher),
}

impl ProjectMatcher {
    pub fn new(pattern: &str) -> Result<Self, String> {
        if pattern.contains(['*', '?', '[', '{']) {
            let glob = globset::GlobBuilder::new(pattern)
                .case_insensitive(true)
                .literal_separator(false)
                .build()
                .map_err(|e| format!("invalid --project glob {pattern:?}: {e}"))?;
            Ok(ProjectMatcher::Glob(glob.compile_matcher()))
        } else {
            Ok(ProjectMatcher::Substring(pattern.to_lowercase()))
        }
    }

    pub fn matches(&self, project: &str) -> bool {
        match self {
            ProjectMatcher::Substring(s) => project.to_lowercase().contains(s),
            ProjectMatcher::Glob(g) => g.is_match(project),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Empty means all agents.
    pub agents: Vec<Agent>,
    pub project: Option<ProjectMatcher>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<Until>,
    pub kind: KindFilter,
}

/// The end of a time window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// An instant given as one (RFC 3339, a duration): a time at it is inside.
    At(DateTime<Utc>),
    /// The end of a day (a plain date, `today`, `yesterday`): the next day's first instant,
    /// itself outside. An inclusive "last millisecond" of the day would leave out a time
    /// recorded at 23:59:59.9995, which no day's window would then hold.
    Before(DateTime<Utc>),
}

impl Until {
    /// Whether a time is at or before this end.
    pub fn admits(self, t: DateTime<Utc>) -> bool {
        match self {
            Until::At(u) => t <= u,
            Until::Before(u) => t < u,
        }
    }

    /// The instant the window ends at (for the end of a day, the next day's first instant).
    pub fn instant(self) -> DateTime<Utc> {
        match self {
            Until::At(u) | Until::Before(u) => u,
        }
    }

    /// The last instant inside, at the millisecond precision of every time the JSON contract
    /// prints.
    pub fn last_millisecond(self) -> DateTime<Utc> {
        match self {
            Until::At(u) => u,
            Until::Before(u) => u - Duration::milliseconds(1),
        }
    }
}

impl Filter {
    pub fn agents(&self) -> Vec<Agent> {
        if self.agents.is_empty() {
            Agent::ALL.to_vec()
        } else {
            self.agents.clone()
        }
    }

    /// A session matches the window when it was active in it: last update at or after `since`
    /// and start at or before `until`.
    pub fn matches(&self, s: &SessionSummary) -> bool {
        self.matches_as(s, s.project.as_deref())
    }

    /// Whether a session, as its own file describes it, can still match once the scan's
    /// cross-file rules have run (a command that works on each file while the scan holds it
    /// skips the sessions that cannot). Those rules settle a Claude or Codex project from its
    /// `cwd`, and may regroup, demote or redate Gemini sessions: a Gemini session is only
    /// judged by its agent here.
    pub fn may_match(&self, s: &SessionSummary) -> bool {
        if s.agent == Agent::Gemini {
            return self.agents.is_empty() || self.agents.contains(&s.agent);
        }
        self.matches_as(s, s.project.as_deref().or(s.cwd.as_deref()))
    }

    fn matches_as(&self, s: &SessionSummary, project: Option<&str>) -> bool {
        if !self.agents.is_empty() && !self.agents.contains(&s.agent) {
            return false;
        }
        if !self.kind.accepts(s.kind) {
            return false;
        }
        if let Some(m) = &self.project {
            // A session without a path is matched by its whole recorded hash or by the label
            // tables show for it (`unresolved <hash prefix>`, `unknown`): what is seen can be
            // selected.
            let matched = match project {
                Some(p) => m.matches(p),
                None => {
                    s.project_hash.as_deref().is_some_and(|h| m.matches(h))
                        || m.matches(&crate::render::project_label(
                            None,
                            s.project_hash.as_deref(),
                        ))
                }
            };
            if !matched {
                return false;
            }
        }
        // A session with no time at all is in no window, as `usage` leaves undated requests
        // out of one.
        if let Some(since) = self.since
            && s.updated_at.or(s.started_at).is_none_or(|t| t < since)
        {
            return false;
        }
        if let Some(until) = self.until
            && s.started_at
                .or(s.updated_at)
                .is_none_or(|t| !until.admits(t))
        {
            return false;
        }
        true
    }
}

/// A `--since`/`--until` value: a day of the zone, or an instant.
enum When {
    Day(NaiveDate),
    Instant(DateTime<Utc>),
}

/// Parse `--since`: `7d`, `12h`, `30m`, `2w` (back from now), `today`, `yesterday`, a date
/// `2026-03-01` (a day of `zone`: its first instant), or an RFC 3339 timestamp.
pub fn parse_since(s: &str, zone: &Zone, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    Ok(match parse_when(s, zone, now)? {
        When::Day(d) => zone.start_of_day(d),
        When::Instant(t) => t,
    })
}

/// Parse `--until`, as [`parse_since`]: a day ends where the next one starts (exclusive), an
/// instant is inclusive.
pub fn parse_until(s: &str, zone: &Zone, now: DateTime<Utc>) -> Result<Until, String> {
    Ok(match parse_when(s, zone, now)? {
        // `parse_when` keeps days away from the calendar's ends.
        When::Day(d) => Until::Before(zone.start_of_day(d + Days::new(1))),
        When::Instant(t) => Until::At(t),
    })
}

fn parse_when(s: &str, zone: &Zone, now: DateTime<Utc>) -> Result<When, String> {
    let t = s.trim();
    let err = || {
        format!(
            "invalid time {s:?}: expected a duration like 7d, 12h, 30m, 2w, a date like 2026-03-01, \
             an RFC 3339 timestamp, `today` or `yesterday`"
        )
    };
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(When::Instant(dt.with_timezone(&Utc)));
    }
    let today = || zone.date_of(now);
    let day = match t {
        "today" => Some(today()),
        "yesterday" => today().pred_opt(),
        _ => NaiveDate::parse_from_str(t, "%Y-%m-%d").ok(),
    };
    if let Some(d) = day {
        // A day's bounds are looked for a few days around it: the calendar's last days have
        // no such neighbours.
        return match (
            d.checked_sub_days(Days::new(3)),
            d.checked_add_days(Days::new(3)),
        ) {
            (Some(_), Some(_)) => Ok(When::Day(d)),
            _ => Err(format!(
                "invalid time {s:?}: that date is beyond the dates this tool can represent"
            )),
        };
    }
    if let Some(rest) = t.strip_prefix('-') {
        return Err(format!(
            "invalid time {s:?}: durations already count back from now; write {rest} for \"{rest} \
             ago\""
        ));
    }
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).ok_or_else(err)?);
    let n: i64 = num.parse().map_err(|_| err())?;
    // Checked all the way: `99999999d` is a valid duration but no representable time.
    let d = match unit {
        "m" | "min" => Duration::try_minutes(n),
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        _ => return Err(err()),
    };
    d.and_then(|d| now.checked_sub_signed(d))
        .map(When::Instant)
        .ok_or_else(|| {
            format!(
                "invalid time {s:?}: that is further back than the dates this tool can represent"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn relative_and_absolute_times() {
        let now = t("2026-11-22T12:00:00Z");
        let utc = Zone::utc();
        let since = |v| parse_since(v, &utc, now).unwrap();
        assert_eq!(since("7d"), now - Duration::days(7));
        assert_eq!(since("12h"), now - Duration::hours(12));
        assert_eq!(since("2w"), now - Duration::weeks(2));
        assert_eq!(
            since("2026-01-02T03:04:05Z").to_rfc3339(),
            "2026-01-02T03:04:05+00:00"
        );
        assert_eq!(
            parse_until("2026-01-02T03:04:05Z", &utc, now),
            Ok(Until::At(t("2026-01-02T03:04:05Z")))
        );
        assert_eq!(since("2026-03-01"), t("2026-03-01T00:00:00Z"));
        assert_eq!(since("today"), t("2026-11-22T00:00:00Z"));
        assert_eq!(since("yesterday"), t("2026-11-21T00:00:00Z"));
        assert!(parse_since("soon", &utc, now).is_err());
        assert!(parse_since("7y", &utc, now).is_err());
    }

    /// A plain date is a day of the zone it is read in: `--utc` (or `usage --timezone`) and
    /// local time give different instants.
    #[test]
    fn plain_dates_are_days_of_the_zone() {
        let now = t("2026-06-10T12:00:00Z");
        let ny = Zone::parse("America/New_York").unwrap();
        let utc = Zone::utc();
        assert_eq!(
            parse_since("2026-06-01", &ny, now).unwrap(),
            t("2026-06-01T04:00:00Z")
        );
        assert_eq!(
            parse_until("2026-06-01", &ny, now).unwrap(),
            Until::Before(t("2026-06-02T04:00:00Z"))
        );
        assert_eq!(
            parse_until("2026-06-01", &utc, now).unwrap(),
            Until::Before(t("2026-06-02T00:00:00Z"))
        );
        // 2026-06-10T02:00Z is still 9 June in New York.
        let late = t("2026-06-10T02:00:00Z");
        assert_eq!(
            parse_since("today", &ny, late).unwrap(),
            t("2026-06-09T04:00:00Z")
        );
    }

    /// The end of a day is the next day's first instant, excluded: every time of the day is
    /// inside, however fine its fraction, and the next midnight is not.
    #[test]
    fn a_day_ends_where_the_next_begins() {
        let now = t("2026-06-10T12:00:00Z");
        let until = parse_until("2026-06-07", &Zone::utc(), now).unwrap();
        assert!(until.admits(t("2026-06-07T23:59:59.999500Z")));
        assert!(until.admits(t("2026-06-07T23:59:59.999999999Z")));
        assert!(!until.admits(t("2026-06-08T00:00:00Z")));
        assert_eq!(until.last_millisecond(), t("2026-06-07T23:59:59.999Z"));
        // An instant stays inclusive.
        let at = parse_until("2026-06-08T00:00:00Z", &Zone::utc(), now).unwrap();
        assert!(at.admits(t("2026-06-08T00:00:00Z")));
        assert_eq!(at.last_millisecond(), t("2026-06-08T00:00:00Z"));
        // A skipped midnight (America/Santiago, 2026-09-06) is no error.
        let santiago = Zone::parse("America/Santiago").unwrap();
        assert!(parse_since("2026-09-06", &santiago, now).is_ok());
        assert!(parse_until("2026-09-05", &santiago, now).is_ok());
    }

    #[test]
    fn hostile_times_are_errors_not_panics() {
        let now = Utc::now();
        let utc = Zone::utc();
        for v in [
            "99999999d",
            "99999999999999999w",
            "9223372036854775807m",
            "9223372036854775807h",
            "99999999999999999999d",
            "262143-12-31",
            "-262143-01-01",
        ] {
            let e = parse_since(v, &utc, now).unwrap_err();
            assert!(e.contains(v), "{v}: {e}");
            assert!(parse_until(v, &Zone::Local, now).is_err(), "{v}");
        }
        // Far but representable is fine.
        assert!(parse_since("36500d", &utc, now).is_ok());
        assert!(parse_until("9999-12-31", &utc, now).is_ok());
        let e = parse_since("-7d", &utc, now).unwrap_err();
        assert!(e.contains("write 7d"), "{e}");
    }

    #[test]
    fn project_patterns() {
        let m = ProjectMatcher::new("WebApp").unwrap();
        assert!(m.matches("/home/dev/webapp"));
        let g = ProjectMatcher::new("/home/*/api-*").unwrap();
        assert!(g.matches("/home/dev/api-server"));
        assert!(!g.matches("/home/dev/webapp"));
    }
}
