//! 5-hour billing blocks, as Claude's subscription plans meter usage: a block starts at its
//! first request, floored to the hour (UTC, as ccusage does, so the two tools show the same
//! blocks), and lasts 5 hours; the first request at or after its end starts the next block, so
//! an idle stretch leaves a gap. Each agent's blocks are cut separately: an agent's plan meters
//! only its own requests.
//!
//! The burn rate of a block is its tokens (all kinds) and cost over the minutes between its
//! first and last request; the projection of the active block continues that rate to the
//! block's end.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Duration, DurationRound, Utc};

use super::{PriceCache, Priced, Tally};
use crate::model::{Agent, RequestUsage};
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
    let mut prices = PriceCache::new(pricing);
    let mut dated: Vec<(&'a SessionSummary, &'a RequestUsage, DateTime<Utc>)> = Vec::new();
    let mut undated = 0;
    for &(s, r, at) in requests {
        match at {
            Some(t) => dated.push((s, r, t)),
            None => undated += 1,
        }
    }
    dated.sort_by_key(|(s, _, t)| (s.agent, *t));
    let mut out: Vec<Block<'a>> = Vec::new();
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
                .and_then(|b| b.tally.last_at)
                .map(|last| t - last);
            let start = t.duration_trunc(Duration::hours(1)).unwrap_or(t);
            out.push(Block {
                agent: s.agent,
                start,
                end: start + BLOCK,
                tally: Tally::default(),
                by_model: BTreeMap::new(),
                sessions: 0,
                gap_before,
            });
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
    out.sort_by(|a, b| a.start.cmp(&b.start).then_with(|| a.agent.cmp(&b.agent)));
    (out, undated)
}
