//! Usage reports: tokens and cost by day, week, month, session, project and 5-hour block.
//!
//! Every report is a fold over the same stream: each model request once, by the cross-file
//! rules of [`crate::scan::unique_requests`], attributed to its own timestamp. So the rows of
//! any report add up to the `list`/`projects` totals for the same sessions, and two reports
//! never disagree. A request the agent did not date is attributed to its session's start;
//! one whose session has no time at all lands in an "undated" row rather than being dropped.

pub mod blocks;
pub mod zone;

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Datelike, Days, NaiveDate, Utc, Weekday};

use crate::filter::Until;
use crate::model::{Agent, RequestUsage, Usage};
use crate::pricing::{Cost, PriceCache, Pricing, UNRECORDED_MODEL};
use crate::scan::SessionSummary;
pub use zone::Zone;

/// What a usage report groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReportKind {
    #[default]
    Daily,
    Weekly,
    Monthly,
    Session,
    Project,
    Blocks,
}

impl ReportKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ReportKind::Daily => "daily",
            ReportKind::Weekly => "weekly",
            ReportKind::Monthly => "monthly",
            ReportKind::Session => "session",
            ReportKind::Project => "project",
            ReportKind::Blocks => "blocks",
        }
    }
}

/// First day of a week for `weekly`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WeekStart {
    #[default]
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl WeekStart {
    pub fn weekday(self) -> Weekday {
        match self {
            WeekStart::Monday => Weekday::Mon,
            WeekStart::Tuesday => Weekday::Tue,
            WeekStart::Wednesday => Weekday::Wed,
            WeekStart::Thursday => Weekday::Thu,
            WeekStart::Friday => Weekday::Fri,
            WeekStart::Saturday => Weekday::Sat,
            WeekStart::Sunday => Weekday::Sun,
        }
    }
}

/// Tokens, cost and requests of a set of requests, with their time span.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub usage: Usage,
    pub cost: Cost,
    pub requests: u64,
    pub first_at: Option<DateTime<Utc>>,
    pub last_at: Option<DateTime<Utc>>,
}

impl Tally {
    fn add(&mut self, r: &Priced, at: Option<DateTime<Utc>>) {
        self.usage.add(&r.usage);
        self.cost.record(r.cost, r.model, &r.usage);
        self.requests += 1;
        self.widen(at);
    }

    pub fn merge(&mut self, o: &Tally) {
        self.usage.add(&o.usage);
        self.cost.merge(&o.cost);
        self.requests += o.requests;
        self.widen(o.first_at);
        self.widen(o.last_at);
    }

    /// Stretch the time span to cover `at`.
    fn widen(&mut self, at: Option<DateTime<Utc>>) {
        if let Some(t) = at {
            self.first_at = Some(self.first_at.map_or(t, |f| f.min(t)));
            self.last_at = Some(self.last_at.map_or(t, |l| l.max(t)));
        }
    }
}

/// One request with its model name and cost resolved.
struct Priced<'a> {
    agent: Agent,
    model: &'a str,
    usage: Usage,
    cost: Option<f64>,
}

/// A row of a report: what it groups, its total and its per-(agent, model) breakdown.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    pub key: GroupKey<'a>,
    pub tally: Tally,
    /// (agent, model) → tally; the model is [`UNRECORDED_MODEL`] when the agent did not
    /// record one.
    pub by_model: BTreeMap<(Agent, &'a str), Tally>,
    /// Distinct sessions that contributed (project rows count them).
    pub sessions: usize,
}

/// What a row groups.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupKey<'a> {
    /// Calendar day, week (by its first day) or month (by its first day) in the zone.
    Day(NaiveDate),
    Week(NaiveDate),
    Month(NaiveDate),
    /// The session that made the requests.
    Session(SessionRef<'a>),
    /// Project path, or (for unresolved Gemini projects) its hash.
    Project {
        path: Option<&'a str>,
        hash: Option<&'a str>,
    },
    /// Requests with no time at all (neither their own nor their session's).
    Undated,
}

/// A session as a row key: ordered and compared by agent, id and file.
#[derive(Debug, Clone, Copy)]
pub struct SessionRef<'a>(pub &'a SessionSummary);

impl SessionRef<'_> {
    fn identity(&self) -> (Agent, &str, &std::path::Path) {
        (self.0.agent, &self.0.id, &self.0.source.path)
    }
}

impl PartialEq for SessionRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.identity() == other.identity()
    }
}

impl Eq for SessionRef<'_> {}

impl PartialOrd for SessionRef<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SessionRef<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.identity().cmp(&other.identity())
    }
}

/// How a report attributes and groups requests.
#[derive(Debug, Clone)]
pub struct Options {
    pub kind: ReportKind,
    pub zone: Zone,
    pub week_start: WeekStart,
    /// Only requests made in this window (a request without a time of its own is placed at
    /// its session's start).
    pub since: Option<DateTime<Utc>>,
    pub until: Option<Until>,
}

/// When a request happened, as far as the data says.
pub fn time_of(s: &SessionSummary, r: &RequestUsage) -> Option<DateTime<Utc>> {
    r.timestamp.or(s.started_at).or(s.updated_at)
}

impl Options {
    /// Whether a request is inside the time window.
    pub fn in_window(&self, at: Option<DateTime<Utc>>) -> bool {
        match at {
            Some(t) => self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| u.admits(t)),
            None => self.since.is_none() && self.until.is_none(),
        }
    }

    fn key<'a>(&self, s: &'a SessionSummary, at: Option<DateTime<Utc>>) -> GroupKey<'a> {
        let day = || at.map(|t| self.zone.date_of(t));
        match self.kind {
            ReportKind::Daily => day().map_or(GroupKey::Undated, GroupKey::Day),
            ReportKind::Weekly => day().map_or(GroupKey::Undated, |d| {
                GroupKey::Week(week_start(d, self.week_start.weekday()))
            }),
            ReportKind::Monthly => day().map_or(GroupKey::Undated, |d| {
                GroupKey::Month(d.with_day(1).unwrap_or(d))
            }),
            ReportKind::Session => GroupKey::Session(SessionRef(s)),
            // Blocks are cut by blocks::blocks; grouping by project is the fallback shape.
            ReportKind::Project | ReportKind::Blocks => match &s.project {
                Some(p) => GroupKey::Project {
                    path: Some(p),
                    hash: None,
                },
                None => GroupKey::Project {
                    path: None,
                    hash: s.project_hash.as_deref(),
                },
            },
        }
    }

    /// The instants a calendar row covers, `[start, end)`, in UTC.
    pub fn bounds(&self, key: &GroupKey) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let (a, b) = match key {
            GroupKey::Day(d) => (*d, d.succ_opt()?),
            GroupKey::Week(d) => (*d, d.checked_add_days(Days::new(7))?),
            GroupKey::Month(d) => (*d, next_month(*d)?),
            _ => return None,
        };
        Some((self.zone.start_of_day(a), self.zone.start_of_day(b)))
    }
}

/// The first day of the week `d` is in.
pub fn week_start(d: NaiveDate, first: Weekday) -> NaiveDate {
    let back = (7 + d.weekday().num_days_from_monday() - first.num_days_from_monday()) % 7;
    // The first week chrono can hold starts where it does.
    d.checked_sub_days(Days::new(u64::from(back))).unwrap_or(d)
}

fn next_month(d: NaiveDate) -> Option<NaiveDate> {
    let (y, m) = if d.month() == 12 {
        (d.year() + 1, 1)
    } else {
        (d.year(), d.month() + 1)
    };
    NaiveDate::from_ymd_opt(y, m, 1)
}

/// The requests a report covers: every request once, inside the time window, with its time.
pub fn select<'a>(
    requests: &[(&'a SessionSummary, &'a RequestUsage)],
    opts: &Options,
) -> Vec<(&'a SessionSummary, &'a RequestUsage, Option<DateTime<Utc>>)> {
    requests
        .iter()
        .map(|&(s, r)| (s, r, time_of(s, r)))
        .filter(|(_, _, at)| opts.in_window(*at))
        .collect()
}

/// Group requests into the rows of a daily, weekly, monthly, session or project report,
/// ordered by their key (days, weeks, months) or by their last activity (sessions, projects),
/// the undated row last.
pub fn group<'a>(
    requests: &[(&'a SessionSummary, &'a RequestUsage, Option<DateTime<Utc>>)],
    opts: &Options,
    pricing: &Pricing,
) -> Vec<Group<'a>> {
    let mut prices = PriceCache::new(pricing);
    let mut groups: BTreeMap<GroupKey<'a>, (Group<'a>, HashSet<&'a std::path::Path>)> =
        BTreeMap::new();
    for &(s, r, at) in requests {
        let key = opts.key(s, at);
        let priced = Priced {
            agent: s.agent,
            model: r.model.as_deref().unwrap_or(UNRECORDED_MODEL),
            usage: r.usage,
            cost: prices.cost(r.model.as_deref(), &r.usage),
        };
        let (g, members) = groups.entry(key.clone()).or_insert_with(|| {
            (
                Group {
                    key,
                    tally: Tally::default(),
                    by_model: BTreeMap::new(),
                    sessions: 0,
                },
                HashSet::new(),
            )
        });
        g.tally.add(&priced, at);
        g.by_model
            .entry((priced.agent, priced.model))
            .or_default()
            .add(&priced, at);
        members.insert(s.path());
    }
    let mut rows: Vec<Group<'a>> = groups
        .into_values()
        .map(|(mut g, members)| {
            g.sessions = members.len();
            g
        })
        .collect();
    if matches!(opts.kind, ReportKind::Session | ReportKind::Project) {
        rows.sort_by(|a, b| {
            (a.key == GroupKey::Undated)
                .cmp(&(b.key == GroupKey::Undated))
                .then_with(|| a.tally.last_at.cmp(&b.tally.last_at))
                .then_with(|| a.key.cmp(&b.key))
        });
    }
    rows
}

/// The sum of rows.
pub fn total<'a>(rows: impl IntoIterator<Item = &'a Tally>) -> Tally {
    let mut t = Tally::default();
    for r in rows {
        t.merge(r);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_start_on_the_chosen_day() {
        let d = NaiveDate::from_ymd_opt(2026, 3, 14).unwrap(); // a Saturday
        assert_eq!(week_start(d, Weekday::Mon).to_string(), "2026-03-09");
        assert_eq!(week_start(d, Weekday::Sun).to_string(), "2026-03-08");
        assert_eq!(week_start(d, Weekday::Sat).to_string(), "2026-03-14");
        assert_eq!(
            next_month(NaiveDate::from_ymd_opt(2026, 12, 1).unwrap())
                .unwrap()
                .to_string(),
            "2027-01-01"
        );
    }

    /// The first and last weeks chrono can hold: no panic, and the last has no end to give.
    #[test]
    fn weeks_at_the_ends_of_time_never_panic() {
        assert_eq!(week_start(NaiveDate::MIN, Weekday::Sun), NaiveDate::MIN);
        let opts = Options {
            kind: ReportKind::Weekly,
            zone: Zone::parse("UTC").unwrap(),
            week_start: WeekStart::Monday,
            since: None,
            until: None,
        };
        let last = week_start(NaiveDate::MAX, Weekday::Mon);
        assert_eq!(opts.bounds(&GroupKey::Week(last)), None);
        assert!(opts.bounds(&GroupKey::Week(NaiveDate::MIN)).is_some());
    }
}
