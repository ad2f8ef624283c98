//! 5-hour billing blocks, as Claude's subscription plans meter usage: a block starts at its
//! first request, floored to the hour (UTC, as ccusage does, so the two tools show the same
//! blocks), and lasts 5 hours; the first request at or after its end starts the next block, so
//! an idle stretch leaves a gap. Each agent's blocks are cut separately: an agent's plan meters
//! only its own requests.
//!
//! A time window selects blocks rather than cutting them: blocks are cut from every request,
//! and a block is shown, whole, when one of its requests is inside the window (ccusage too
//! shows real blocks, but picks them by the day they start). Cutting them from the window's
//! requests alone would start a block at the window's first request, merging the ends of two
//! real blocks. Where a block starts depends on the blocks before it, back to the last idle
//! stretch of 5 hours: [`history_suffices`] tells whether the requests read go back that far.
//!
//! The burn rate of a block is its tokens (all kinds) and cost over the minutes between its
//! first and last request; the projection of the active block continues that rate to the
//! block's end.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Duration, Utc};

use super::{Priced, Tally};
use crate::model::{Agent, RequestUsage};
use crate::pricing::PriceCache;
use crate::pricing::{Pricing, UNRECORDED_MODEL};
use crate::scan::SessionSummary;

/// Length of a block.
pub const BLOCK: Duration = Duration::hours(5);

#[derive(Debug, Clone)]
pub struct Block<'a> {
    pub agent: Agent,
    /// First request, floored to the hour.
    pub start: DateTime<Utc>,
    /// `start` + 5 hours.
    pub end: DateTime<Utc>,
    pub tally: Tally,
    pub by_model: BTreeMap<(Agent, &'a str), Tally>,
    pub sessions: usize,
    /// Idle time between the previous block's last request and this block's first, when a
    /// previous block of the same agent exists.
    pub gap_before: Option<Duration>,
}

/// Tokens per minute and USD per hour between a block's first and last request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BurnRate {
    pub tokens_per_minute: f64,
    /// `None` when none of the block's usage has a price.
    pub cost_per_hour: Option<f64>,
}

/// Where the active block ends up if the burn rate holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    pub tokens: u64,
    pub cost_usd: Option<f64>,
    pub remaining_minutes: i64,
}

impl Block<'_> {
    /// Whether `now` is inside the block.
    pub fn is_active(&self, now: DateTime<Utc>) -> bool {
        self.start <= now && now < self.end
    }

    pub fn burn_rate(&self) -> Option<BurnRate> {
        let (first, last) = (self.tally.first_at?, self.tally.last_at?);
        let minutes = (last - first).num_milliseconds() as f64 / 60_000.0;
        if minutes <= 0.0 {
            return None;
        }
        Some(BurnRate {
            tokens_per_minute: self.tally.usage.total() as f64 / minutes,
            cost_per_hour: self.tally.cost.usd().map(|c| c / minutes * 60.0),
        })
    }

    /// The active block's totals at its end if the burn rate holds.
    pub fn projection(&self, now: DateTime<Utc>) -> Option<Projection> {
        if !self.is_active(now) {
            return None;
        }
        let rate = self.burn_rate()?;
        let remaining = (self.end - now).num_milliseconds().max(0) as f64 / 60_000.0;
        let tokens = self.tally.usage.total() as f64 + rate.tokens_per_minute * remaining;
        Some(Projection {
            tokens: tokens.round() as u64,
            cost_usd: match (self.tally.cost.usd(), rate.cost_per_hour) {
                (Some(c), Some(h)) => Some(c + h / 60.0 * remaining),
                _ => None,
            },
            remaining_minutes: remaining.round() as i64,
        })
    }
}

/// Cut requests into blocks, per agent; ordered by start, then agent. Requests with no time at
/// all cannot be placed: their count is returned.
pub fn blocks<'a>(
    requests: &[(&'a SessionSummary, &'a RequestUsage, Option<DateTime<Utc>>)],
    pricing: &Pricing,
) -> (Vec<Block<'a>>, usize) {
    blocks_holding(requests, pricing, |_| true, |_| true)
}

/// [`blocks`] as a selection sees them: cut from every request, as the plan meters them, but
/// holding only the requests of the sessions `selected` accepts (`--project`, `--kind`); kept
/// when they hold such a request at a time `shown` accepts (the blocks a time window
/// selects). The undated requests counted are the selected ones. A block's `gap_before` is
/// the idle time before its first request of any session: what started it.
pub fn blocks_holding<'a>(
    requests: &[(&'a SessionSummary, &'a RequestUsage, Option<DateTime<Utc>>)],
    pricing: &Pricing,
    shown: impl Fn(DateTime<Utc>) -> bool,
    selected: impl Fn(&SessionSummary) -> bool,
) -> (Vec<Block<'a>>, usize) {
    let mut prices = PriceCache::new(pricing);
    let mut dated: Vec<(&'a SessionSummary, &'a RequestUsage, DateTime<Utc>)> = Vec::new();
    let mut undated = 0;
    for &(s, r, at) in requests {
        match at {
            Some(t) => dated.push((s, r, t)),
            None => undated += usize::from(selected(s)),
        }
    }
    dated.sort_by_key(|(s, _, t)| (s.agent, *t));
    let mut out: Vec<Block<'a>> = Vec::new();
    // Whether each block of `out` holds a selected request `shown` accepts.
    let mut keep: Vec<bool> = Vec::new();
    // The last request of the newest block, of any session.
    let mut last_any: Option<DateTime<Utc>> = None;
    let mut members: HashSet<&std::path::Path> = HashSet::new();
    for (s, r, t) in dated {
        let starts_new = match out.last() {
            Some(b) => b.agent != s.agent || t >= b.end,
            None => true,
        };
        if starts_new {
            if let Some(b) = out.last_mut() {
                b.sessions = members.len();
            }
            members.clear();
            let gap_before = out
                .last()
                .filter(|b| b.agent == s.agent)
                .and(last_any)
                .map(|last| t - last);
            let start = hour_floor(t);
            out.push(Block {
                agent: s.agent,
                start,
                // Parsed times stay in years 1 to 9999; held at chrono's end all the same, as
                // a panic on input never is the answer.
                end: start
                    .checked_add_signed(BLOCK)
                    .unwrap_or(DateTime::<Utc>::MAX_UTC),
                tally: Tally::default(),
                by_model: BTreeMap::new(),
                sessions: 0,
                gap_before,
            });
            keep.push(false);
        }
        last_any = Some(t);
        if !selected(s) {
            continue;
        }
        if let Some(k) = keep.last_mut() {
            *k |= shown(t);
        }
        let b = out.last_mut().expect("a block was just started");
        let priced = Priced {
            agent: s.agent,
            model: r.model.as_deref().unwrap_or(UNRECORDED_MODEL),
            usage: r.usage,
            cost: prices.cost(r.model.as_deref(), &r.usage),
        };
        b.tally.add(&priced, Some(t));
        b.by_model
            .entry((s.agent, priced.model))
            .or_default()
            .add(&priced, Some(t));
        members.insert(s.path());
    }
    if let Some(b) = out.last_mut() {
        b.sessions = members.len();
    }
    let mut keep = keep.into_iter();
    out.retain(|_| keep.next().unwrap_or(false));
    out.sort_by(|a, b| a.start.cmp(&b.start).then_with(|| a.agent.cmp(&b.agent)));
    (out, undated)
}

/// Whether requests read from `read_from` on (every request at or after it, and maybe some
/// before) place the blocks holding the requests at or after `since` where all of an agent's
/// requests would: true when each agent with such a request has an idle stretch of a whole
/// block's length, seen entirely from `read_from` on, at or before its first one. The request
/// after such a stretch starts a block whatever came before it (the previous block ended at
/// most 5 hours after its last request), and the blocks from there on follow.
pub fn history_suffices(
    requests: impl IntoIterator<Item = (Agent, DateTime<Utc>)>,
    read_from: DateTime<Utc>,
    since: DateTime<Utc>,
) -> bool {
    let mut by_agent: BTreeMap<Agent, Vec<DateTime<Utc>>> = BTreeMap::new();
    for (agent, t) in requests {
        if t >= read_from {
            by_agent.entry(agent).or_default().push(t);
        }
    }
    by_agent.into_values().all(|mut times| {
        times.sort();
        let Some(&first) = times.iter().find(|&&t| t >= since) else {
            return true;
        };
        let mut previous = read_from;
        for &t in times.iter().take_while(|&&t| t <= first) {
            if t - previous >= BLOCK {
                return true;
            }
            previous = t;
        }
        false
    })
}

/// The hour an instant falls in, floored in whole seconds: chrono's `duration_trunc` counts in
/// nanoseconds and gives up outside 1677–2262, and would leave a leap second (`23:59:60.5`,
/// which `timestamp()` reads as `23:59:59`) where it is. A leap second belongs to its minute's
/// hour.
fn hour_floor(t: DateTime<Utc>) -> DateTime<Utc> {
    let secs = t.timestamp();
    DateTime::from_timestamp(secs - secs.rem_euclid(3600), 0).unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DedupKey, Request, Session, Usage};
    use crate::parse::{FileRole, SourceFile};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// A Claude session whose requests are (time, input, output) on claude-sonnet-4-5.
    fn session(id: &str, requests: &[(&str, u64, u64)]) -> SessionSummary {
        let at: Vec<_> = requests.iter().map(|&(a, i, o)| (t(a), i, o)).collect();
        session_at(id, &at)
    }

    fn session_at(id: &str, requests: &[(DateTime<Utc>, u64, u64)]) -> SessionSummary {
        let mut s = Session::new(Agent::Claude, id, format!("/x/{id}.jsonl"));
        for (i, &(at, input, output)) in requests.iter().enumerate() {
            s.note_time(at);
            s.requests.push(Request {
                timestamp: Some(at),
                model: Some("claude-sonnet-4-5".into()),
                usage: Usage {
                    input,
                    output,
                    ..Usage::default()
                },
                prompt_tokens: None,
                message_index: None,
                dedup_key: Some(DedupKey {
                    message_id: format!("{id}-{i}").into(),
                    request_id: None,
                    sidechain: false,
                    copy: false,
                }),
            });
        }
        let path = s.path.clone();
        SessionSummary::from_session(
            &mut s,
            SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain),
        )
    }

    fn cut(sessions: &[SessionSummary]) -> Vec<Block<'_>> {
        let reqs: Vec<_> = crate::scan::unique_requests(sessions)
            .into_iter()
            .map(|(s, r)| (s, r, r.timestamp))
            .collect();
        blocks(&reqs, &Pricing::embedded()).0
    }

    #[test]
    fn blocks_start_on_the_hour_and_last_five_hours() {
        let s = [session(
            "a",
            &[
                ("2026-05-01T09:47:00Z", 100, 10), // block 1: 09:00–14:00
                ("2026-05-01T13:59:59Z", 200, 20), // still block 1
                ("2026-05-01T14:00:00Z", 300, 30), // block 2 starts 14:00 (no gap: 1 s idle)
                ("2026-05-01T23:30:00Z", 400, 40), // 9h30 idle: block 3 at 23:00
            ],
        )];
        let b = cut(&s);
        let spans: Vec<(String, String, u64)> = b
            .iter()
            .map(|b| {
                (
                    b.start.to_rfc3339(),
                    b.end.to_rfc3339(),
                    b.tally.usage.total(),
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                (
                    "2026-05-01T09:00:00+00:00".into(),
                    "2026-05-01T14:00:00+00:00".into(),
                    330
                ),
                (
                    "2026-05-01T14:00:00+00:00".into(),
                    "2026-05-01T19:00:00+00:00".into(),
                    330
                ),
                (
                    "2026-05-01T23:00:00+00:00".into(),
                    "2026-05-02T04:00:00+00:00".into(),
                    440
                ),
            ]
        );
        assert_eq!(b[0].gap_before, None);
        assert_eq!(b[1].gap_before, Some(Duration::seconds(1)));
        assert_eq!(b[2].gap_before, Some(Duration::minutes(9 * 60 + 30)));
    }

    /// Floored to the hour in any year a time may have (chrono's nanosecond truncation gave up
    /// outside 1677–2262), and a leap second with the rest of its minute's hour.
    #[test]
    fn blocks_start_on_the_hour_in_any_year_and_on_a_leap_second() {
        for (at, start) in [
            ("2300-01-01T10:30:00Z", "2300-01-01T10:00:00+00:00"),
            ("1600-06-01T10:30:00Z", "1600-06-01T10:00:00+00:00"),
            ("0001-01-01T00:59:59.999Z", "0001-01-01T00:00:00+00:00"),
            ("9999-12-31T23:59:59.999Z", "9999-12-31T23:00:00+00:00"),
            ("2026-06-30T23:59:60.5Z", "2026-06-30T23:00:00+00:00"),
        ] {
            let s = [session("a", &[(at, 1, 1)])];
            let b = &cut(&s)[0];
            assert_eq!(b.start.to_rfc3339(), start, "{at}");
            assert_eq!(b.end - b.start, BLOCK, "{at}");
        }
    }

    /// A block that would end past the last instant chrono holds ends there (parsing keeps
    /// times in years 1 to 9999; this is the guard behind it).
    #[test]
    fn a_block_at_the_end_of_time_never_panics() {
        let max = DateTime::<Utc>::MAX_UTC;
        let min = DateTime::<Utc>::MIN_UTC;
        let s = [session_at("a", &[(min, 1, 1), (max, 2, 2)])];
        let b = cut(&s);
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].start, b[0].end), (min, min + BLOCK));
        assert_eq!(b[1].end, max);
        assert!(b[1].start <= max && max - b[1].start < Duration::hours(1));
    }

    /// A window shows the real blocks its requests are in, whole: the block of 22:00 runs
    /// past midnight, and a window from midnight does not start a block there.
    #[test]
    fn a_window_selects_whole_blocks() {
        let s = [session(
            "a",
            &[
                ("2026-06-01T22:10:00Z", 1, 0),
                ("2026-06-02T00:30:00Z", 2, 0),
                ("2026-06-02T02:50:00Z", 4, 0),
                ("2026-06-02T03:10:00Z", 8, 0),
                ("2026-06-02T20:00:00Z", 16, 0),
            ],
        )];
        let reqs: Vec<_> = crate::scan::unique_requests(&s)
            .into_iter()
            .map(|(s, r)| (s, r, r.timestamp))
            .collect();
        let window =
            |at: DateTime<Utc>| at >= t("2026-06-02T00:00:00Z") && at < t("2026-06-02T12:00:00Z");
        let (b, _) = blocks_holding(&reqs, &Pricing::embedded(), window, |_| true);
        let got: Vec<(String, u64, Option<Duration>)> = b
            .iter()
            .map(|b| (b.start.to_rfc3339(), b.tally.usage.total(), b.gap_before))
            .collect();
        assert_eq!(
            got,
            [
                ("2026-06-01T22:00:00+00:00".into(), 7, None),
                (
                    "2026-06-02T03:00:00+00:00".into(),
                    8,
                    Some(Duration::minutes(20))
                ),
            ]
        );
    }

    /// The blocks of a window are settled by an idle stretch of 5 hours read entirely, at or
    /// before each agent's first request in the window.
    #[test]
    fn history_suffices_after_five_idle_hours() {
        let claude = |at: &str| (Agent::Claude, t(at));
        let reqs = [
            claude("2026-06-01T10:00:00Z"),
            claude("2026-06-01T12:00:00Z"),
            claude("2026-06-01T16:00:00Z"),
        ];
        let since = t("2026-06-01T16:00:00Z");
        let from = |at: &str| history_suffices(reqs, t(at), since);
        // 12:00 and 16:00 may belong to blocks started before what was read.
        assert!(!from("2026-06-01T11:00:00Z"));
        assert!(!from("2026-06-01T07:00:00Z"));
        // Nothing between 05:00 and 10:00: 10:00 starts a block.
        assert!(from("2026-06-01T05:00:00Z"));
        // An hour read before the window's first request places nothing.
        assert!(!history_suffices(
            reqs,
            t("2026-06-01T09:00:00Z"),
            t("2026-06-01T10:00:00Z")
        ));
        // Nothing read since 11:00 up to the window's first request: it starts a block.
        assert!(history_suffices(
            [claude("2026-06-01T17:00:00Z")],
            t("2026-06-01T11:00:00Z"),
            since
        ));
        // No request in the window: nothing to place.
        assert!(history_suffices(
            reqs,
            t("2026-06-01T15:00:00Z"),
            t("2026-06-02T00:00:00Z")
        ));
    }

    #[test]
    fn burn_rate_and_projection_of_the_active_block() {
        // 3,000 tokens between 10:10 and 10:40: 100 tokens/min. At 11:00 the block (10:00–15:00)
        // has 240 minutes left: 3,000 + 240 × 100 = 27,000 tokens projected.
        let s = [session(
            "a",
            &[
                ("2026-05-01T10:10:00Z", 1000, 0),
                ("2026-05-01T10:40:00Z", 1500, 500),
            ],
        )];
        let b = &cut(&s)[0];
        let now = t("2026-05-01T11:00:00Z");
        assert!(b.is_active(now));
        assert!(!b.is_active(t("2026-05-01T15:00:00Z")));
        let rate = b.burn_rate().unwrap();
        assert_eq!(rate.tokens_per_minute, 100.0);
        // claude-sonnet-4-5: 2,500 input × $3/M + 500 output × $15/M = $0.015 in 30 min.
        assert!((rate.cost_per_hour.unwrap() - 0.03).abs() < 1e-12);
        let p = b.projection(now).unwrap();
        assert_eq!((p.tokens, p.remaining_minutes), (27_000, 240));
        assert!((p.cost_usd.unwrap() - (0.015 + 0.03 * 4.0)).abs() < 1e-12);
        assert!(b.projection(t("2026-05-01T16:00:00Z")).is_none());
    }

    #[test]
    fn one_request_has_no_burn_rate_and_agents_are_cut_apart() {
        let claude = session("c", &[("2026-05-01T10:10:00Z", 10, 1)]);
        let mut codex_session = Session::new(Agent::Codex, "x", "/x/x.jsonl");
        codex_session.requests.push(Request {
            timestamp: Some(t("2026-05-01T10:20:00Z")),
            model: Some("gpt-5-codex".into()),
            usage: Usage {
                input: 5,
                ..Usage::default()
            },
            prompt_tokens: None,
            message_index: None,
            dedup_key: None,
        });
        let codex = SessionSummary::from_session(
            &mut codex_session,
            SourceFile::new(Agent::Codex, "/x/x.jsonl".into(), FileRole::CodexRollout),
        );
        let all = [claude, codex];
        let b = cut(&all);
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].agent, b[1].agent), (Agent::Claude, Agent::Codex));
        assert!(b[0].burn_rate().is_none());
        assert_eq!(b[0].start, b[1].start);
    }
}
