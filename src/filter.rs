//! Session filters shared by `list`, `projects`, `show` look-ups and exports: agent, project,
//! time window and kind.

use chrono::{DateTime, Duration, Local, NaiveDate, NaiveTime, TimeZone, Utc};
use globset::GlobMatcher;

use crate::model::{Agent, SessionKind};
use crate::scan::SessionSummary;

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
    pub until: Option<DateTime<Utc>>,
    pub kind: KindFilter,
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
        if let Some(since) = self.since {
            if s.updated_at.or(s.started_at).is_none_or(|t| t < since) {
                return false;
            }
        }
        if let Some(until) = self.until {
            if s.started_at.or(s.updated_at).is_none_or(|t| t > until) {
                return false;
            }
        }
        true
    }
}

/// Parse a `--since`/`--until` value: `7d`, `12h`, `30m`, `2w` (relative to now), `today`,
/// `yesterday`, a date `2026-03-01` (local midnight; for `until`, the end of that day), or an
/// RFC 3339 timestamp.
pub fn parse_when(s: &str, end_of_day: bool, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let t = s.trim();
    let err = || {
        format!(
            "invalid time {s:?}: expected a duration like 7d, 12h, 30m, 2w, a date like 2026-03-01, \
             an RFC 3339 timestamp, `today` or `yesterday`"
        )
    };
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt.with_timezone(&Utc));
    }
    let local_day = |d: NaiveDate| -> Result<DateTime<Utc>, String> {
        let time = if end_of_day {
            NaiveTime::from_hms_milli_opt(23, 59, 59, 999).ok_or_else(err)?
        } else {
            NaiveTime::MIN
        };
        Local
            .from_local_datetime(&d.and_time(time))
            .earliest()
            .map(|d| d.with_timezone(&Utc))
            .ok_or_else(err)
    };
    match t {
        "today" => return local_day(now.with_timezone(&Local).date_naive()),
        "yesterday" => {
            return local_day(now.with_timezone(&Local).date_naive() - Duration::days(1));
        }
        _ => {}
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return local_day(d);
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
    d.and_then(|d| now.checked_sub_signed(d)).ok_or_else(|| {
        format!("invalid time {s:?}: that is further back than the dates this tool can represent")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_times() {
        let now = DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            parse_when("7d", false, now).unwrap(),
            now - Duration::days(7)
        );
        assert_eq!(
            parse_when("12h", false, now).unwrap(),
            now - Duration::hours(12)
        );
        assert_eq!(
            parse_when("2w", false, now).unwrap(),
            now - Duration::weeks(2)
        );
        assert_eq!(
            parse_when("2026-01-02T03:04:05Z", false, now)
                .unwrap()
                .to_rfc3339(),
            "2026-01-02T03:04:05+00:00"
        );
        let start = parse_when("2026-03-01", false, now).unwrap();
        let end = parse_when("2026-03-01", true, now).unwrap();
        assert!(end - start > Duration::hours(23));
        assert!(parse_when("soon", false, now).is_err());
        assert!(parse_when("7y", false, now).is_err());
    }

    #[test]
    fn hostile_times_are_errors_not_panics() {
        let now = Utc::now();
        for v in [
            "99999999d",
            "99999999999999999w",
            "9223372036854775807m",
            "9223372036854775807h",
            "99999999999999999999d",
        ] {
            let e = parse_when(v, false, now).unwrap_err();
            assert!(e.contains(v), "{v}: {e}");
        }
        // Far but representable is fine.
        assert!(parse_when("36500d", false, now).is_ok());
        let e = parse_when("-7d", false, now).unwrap_err();
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
