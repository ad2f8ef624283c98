//! Claude Code auto-compact (pruning-compaction.md §C.1).
//!
//! Before a request, when the context reaches `window − min(max_output, 20,000) − 13,000`
//! (167,000 of a 200k window), the whole conversation is summarised: classic compaction keeps
//! no verbatim tail, only the summary. `autocompact_pct` mirrors `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`,
//! a percentage of the effective window that can only lower the threshold.

use crate::replay::settings::Spec;
use crate::replay::{
    Event, EventKind, HistoryItem, RequestInfo, Strategy, StrategyContext, bytes4_tokens,
};

/// `AUTOCOMPACT_BUFFER_TOKENS`.
pub const BUFFER_TOKENS: u64 = 13_000;
/// `COMPACT_MAX_OUTPUT_TOKENS`.
pub const MAX_OUTPUT_CAP: u64 = 20_000;

pub const SPECS: &[Spec] = &[Spec::number(
    "autocompact_pct",
    100.0,
    1.0,
    100.0,
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: percent of the effective window (clamped by the default)",
)];

/// The auto-compact threshold in context tokens.
pub fn threshold(ctx: &StrategyContext) -> u64 {
    let effective = ctx
        .limits
        .context_window
        .saturating_sub(ctx.limits.max_output.min(MAX_OUTPUT_CAP));
    let default = effective.saturating_sub(BUFFER_TOKENS);
    let pct = (effective as f64 * ctx.settings.num("autocompact_pct") / 100.0) as u64;
    default.min(pct)
}

pub struct Claude {
    threshold: u64,
    summary: u64,
    full: u64,
    context: u64,
    items: usize,
    /// `full` at the previous request: what was added since, estimated.
    full_at_prev: u64,
    /// A simulated compaction happened: recorded figures no longer describe this context.
    diverged: bool,
}

impl Claude {
    pub fn new(ctx: &StrategyContext) -> Self {
        Claude {
            threshold: threshold(ctx),
            summary: ctx.summary_tokens,
            full: 0,
            context: 0,
            items: 0,
            full_at_prev: 0,
            diverged: false,
        }
    }
}

impl Strategy for Claude {
    fn push(&mut self, item: &HistoryItem) {
        let t = bytes4_tokens(item);
        self.full += t;
        self.context += t;
        self.items += 1;
    }

    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event> {
        let before = req.overhead + self.context;
        // Claude Code measures the last response's usage plus what was added since. While the
        // replay has not intervened, the recorded usage is that measure, exactly.
        let added = self.full - self.full_at_prev;
        self.full_at_prev = self.full;
        let measure = match (self.diverged, req.prev_recorded) {
            (false, Some(prev)) => prev + added,
            _ => before,
        };
        if measure < self.threshold || self.items == 0 {
            return Vec::new();
        }
        self.diverged = true;
        let mut e = Event::new(EventKind::Compress);
        e.summarised = self.items;
        e.kept = 0;
        e.tokens_before = self.context;
        e.summariser_input = before;
        e.summariser_output = self.summary;
        self.context = self.summary;
        self.items = 0;
        e.tokens_after = self.context;
        vec![e]
    }

    fn full_tokens(&self) -> u64 {
        self.full
    }

    fn context_tokens(&self) -> u64 {
        self.context
    }
}
