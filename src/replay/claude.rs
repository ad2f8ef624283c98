//! Claude Code auto-compact (pruning-compaction.md §C.1, constants by version in
//! [`versions`](crate::replay::versions)).
//!
//! Before every API request Claude Code measures the context as the last response's usage
//! (input + cache read + cache write + output) plus an estimate of the messages added since,
//! and compacts when that reaches `window − min(max_output, cap) − buffer`: 155,000 of a 200k
//! window in versions that capped the output reserve at 32,000, 167,000 once the cap became
//! 20,000. Classic compaction keeps no verbatim tail, only the summary. `autocompact_pct`
//! mirrors `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, a percentage of the effective window that can
//! only lower the threshold.

use crate::model::Role;
use crate::replay::settings::Spec;
use crate::replay::{
    Event, EventKind, HistoryItem, RequestInfo, Strategy, StrategyContext, bytes4_tokens,
};

/// `AUTOCOMPACT_BUFFER_TOKENS`.
pub const BUFFER_TOKENS: u64 = 13_000;
/// `COMPACT_MAX_OUTPUT_TOKENS` since 2.1.2x.
pub const MAX_OUTPUT_CAP: u64 = 20_000;
/// The output reserve cap of earlier versions.
pub const OLD_MAX_OUTPUT_CAP: u64 = 32_000;

pub const SPECS: &[Spec] = &[
    Spec::number(
        "autocompact_pct",
        100.0,
        1.0,
        100.0,
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: percent of the effective window (clamped by the default)",
    ),
    Spec::integer(
        "max_output_cap",
        0.0,
        0.0,
        10_000_000.0,
        "cap on the output reserve (0 = as the recorded version: 32,000 up to 2.1.19, then 20,000)",
    ),
    Spec::integer(
        "buffer_tokens",
        0.0,
        0.0,
        10_000_000.0,
        "AUTOCOMPACT_BUFFER_TOKENS (0 = as the recorded version: 13,000)",
    ),
];

/// The constants in force for a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    pub window: u64,
    pub max_output: u64,
    pub cap: u64,
    pub buffer: u64,
    pub threshold: u64,
}

/// Whether a recorded version is one of the 2.1.20+ builds (provisional until the version table
/// lands): they cap the output reserve at 20,000 instead of 32,000, and measure the context with
/// the response's final output count while the transcript keeps the count of its first
/// streamed chunk.
fn is_modern(version: Option<&str>) -> bool {
    let Some(v) = version else {
        return true;
    };
    let n: Vec<u64> = v
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(3)
        .map(|s| s.parse().unwrap_or(0))
        .collect();
    let key = (
        n.first().copied().unwrap_or(0),
        n.get(1).copied().unwrap_or(0),
        n.get(2).copied().unwrap_or(0),
    );
    key > (2, 1, 19)
}

pub fn constants(ctx: &StrategyContext) -> Constants {
    let cap = match ctx.settings.int("max_output_cap") {
        0 if is_modern(ctx.agent_version.as_deref()) => MAX_OUTPUT_CAP,
        0 => OLD_MAX_OUTPUT_CAP,
        n => n,
    };
    let buffer = match ctx.settings.int("buffer_tokens") {
        0 => BUFFER_TOKENS,
        n => n,
    };
    let window = ctx.limits.context_window;
    let max_output = ctx.limits.max_output;
    let effective = window.saturating_sub(max_output.min(cap));
    let default = effective.saturating_sub(buffer);
    let pct = (effective as f64 * ctx.settings.num("autocompact_pct") / 100.0) as u64;
    Constants {
        window,
        max_output,
        cap,
        buffer,
        threshold: default.min(pct),
    }
}

/// The auto-compact threshold in context tokens.
pub fn threshold(ctx: &StrategyContext) -> u64 {
    constants(ctx).threshold
}

/// How the threshold was computed, for the report.
pub fn describe(ctx: &StrategyContext) -> String {
    let c = constants(ctx);
    format!(
        "Claude Code {}: {} − min({}, {}) − {} = {}",
        ctx.agent_version.as_deref().unwrap_or("(newest)"),
        c.window,
        c.max_output,
        c.cap,
        c.buffer,
        c.threshold
    )
}

pub struct Claude {
    threshold: u64,
    summary: u64,
    full: u64,
    context: u64,
    items: usize,
    /// Estimated size of the messages after the last assistant message: what Claude Code adds
    /// to the last response's usage.
    since_response: u64,
    /// The transcript's output counts are first-chunk stubs while the agent measured with the
    /// final count: the measure adds the output this session's responses typically have.
    hidden_output: bool,
    /// `since_response` when the last request was sent.
    sent_since: u64,
    /// The previous request's recorded prompt, while the history is the recorded one.
    last_recorded: Option<u64>,
    /// Output of recent responses inferred from the growth of the recorded prompts: what the
    /// next prompt holds beyond the previous prompt and the messages added since.
    inferred_outputs: std::collections::VecDeque<u64>,
}

/// How many recent responses the expected hidden output is the median of.
const INFERRED_WINDOW: usize = 8;

impl Claude {
    pub fn new(ctx: &StrategyContext) -> Self {
        Claude {
            threshold: threshold(ctx),
            summary: ctx.summary_tokens,
            full: 0,
            context: 0,
            items: 0,
            since_response: 0,
            hidden_output: is_modern(ctx.agent_version.as_deref()),
            sent_since: 0,
            last_recorded: None,
            inferred_outputs: std::collections::VecDeque::new(),
        }
    }

    /// The output count the agent measured for the previous response.
    fn prev_output(&self, req: &RequestInfo) -> u64 {
        if !self.hidden_output || self.inferred_outputs.is_empty() {
            return req.prev_output;
        }
        let mut v: Vec<u64> = self.inferred_outputs.iter().copied().collect();
        v.sort_unstable();
        req.prev_output.max(v[v.len() / 2])
    }

    /// Claude Code's measure: the last response's usage plus what came after it.
    fn measure(&self, req: &RequestInfo) -> u64 {
        match req.prev_prompt {
            Some(p) => p
                .saturating_add(self.prev_output(req))
                .saturating_add(self.since_response),
            None => req.context_now,
        }
    }

    fn compact(&mut self, measure: u64) -> Event {
        let mut e = Event::new(EventKind::Compress);
        e.summarised = self.items;
        e.kept = 0;
        e.tokens_before = self.context;
        e.measure = Some(measure);
        e.summariser_input = self.context;
        e.summariser_output = self.summary;
        self.context = self.summary;
        self.items = 0;
        self.since_response = 0;
        self.last_recorded = None;
        e.tokens_after = self.context;
        e
    }
}

impl Strategy for Claude {
    fn push(&mut self, item: &HistoryItem) {
        let t = bytes4_tokens(item);
        self.full = self.full.saturating_add(t);
        self.context = self.context.saturating_add(t);
        self.items += 1;
        if item.role == Role::Assistant {
            self.since_response = 0;
        } else {
            self.since_response = self.since_response.saturating_add(t);
        }
    }

    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event> {
        self.sent_since = self.since_response;
        let measure = self.measure(req);
        if measure < self.threshold || self.items == 0 {
            return Vec::new();
        }
        vec![self.compact(measure)]
    }

    fn after_request(&mut self, req: &RequestInfo, what_if_prompt: u64) -> Vec<Event> {
        if !req.in_sync {
            self.last_recorded = None;
            return Vec::new();
        }
        if let Some(prev) = self.last_recorded {
            let added = (self.sent_since as f64 * req.scale) as u64;
            let output = what_if_prompt.saturating_sub(prev).saturating_sub(added);
            if self.inferred_outputs.len() == INFERRED_WINDOW {
                self.inferred_outputs.pop_front();
            }
            self.inferred_outputs.push_back(output);
        }
        self.last_recorded = Some(what_if_prompt);
        Vec::new()
    }

    fn compact_now(&mut self, req: &RequestInfo) -> Option<Event> {
        (self.items > 0).then(|| self.compact(self.measure(req)))
    }

    fn full_tokens(&self) -> u64 {
        self.full
    }

    fn context_tokens(&self) -> u64 {
        self.context
    }
}
