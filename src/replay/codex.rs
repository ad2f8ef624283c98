//! Codex CLI auto-compaction (pruning-compaction.md §C.2).
//!
//! After each sampling request, when the recorded version's measure reaches the limit — the
//! configured `model_auto_compact_token_limit` capped at 90% of the window, else 90% — Codex
//! compacts: the new history is the newest real user messages up to 20,000 tokens (the one that
//! overflows is truncated), then the summary; assistant messages, reasoning, tool calls and
//! outputs are dropped, and the initial context (environment, instructions) is re-injected. A
//! pre-turn check compacts before sampling when the context is already over the limit.
//! Sizes are Codex's own `ceil(UTF-8 bytes / 4)`.
//!
//! The measure by version (`docs/versions.md`, [`CodexMeasure`]): 0.35–0.63 the response's
//! total minus its reasoning tokens; 0.64–0.98 the total (plus an estimate of past reasoning
//! items, which the replay cannot make: rollouts keep reasoning encrypted, so it is taken as
//! counted by the server, as from 0.88); 0.99+ also a bytes/4 estimate of the items recorded
//! after the response's last model-generated item (tool outputs, new user input).

use std::collections::VecDeque;

use crate::replay::settings::Spec;
use crate::replay::versions::{self, CodexConstants, CodexMeasure};
use crate::replay::{
    Bytes4, Event, EventKind, HistoryItem, ReplayInput, RequestInfo, Role, Strategy,
    StrategyContext, bytes4_tokens,
};

/// `COMPACT_USER_MESSAGE_MAX_TOKENS`.
pub const USER_MESSAGE_BUDGET: u64 = 20_000;

pub const SPECS: &[Spec] = &[
    Spec::integer(
        "auto_compact_token_limit",
        0.0,
        0.0,
        10_000_000.0,
        "model_auto_compact_token_limit (0 = unset); capped at 90% of the window",
    ),
    Spec::integer(
        "user_message_budget",
        20_000.0,
        0.0,
        1_000_000.0,
        "COMPACT_USER_MESSAGE_MAX_TOKENS",
    ),
];

/// The recorded version's constants: its row of the version table for the session's model
/// and (full) window, `--context-window` when given, and the configured limit when set.
pub fn constants(ctx: &StrategyContext) -> CodexConstants {
    let configured = match ctx.settings.int("auto_compact_token_limit") {
        0 => None,
        n => Some(n),
    };
    // The window `limits` reports: a recorded one the engine has turned back into the model's
    // full window, else Codex's own table for a Codex session, else the generic table.
    versions::codex_for_window(
        ctx.agent_version.as_deref(),
        ctx.model.as_deref(),
        ctx.limits.context_window,
        configured,
    )
}

/// The auto-compact limit in context tokens (`u64::MAX`: this version never compacts on its
/// own).
pub fn limit(ctx: &StrategyContext) -> u64 {
    constants(ctx).auto_compact_limit
}

/// How the limit was found, for the report.
pub fn describe(ctx: &StrategyContext) -> String {
    let c = constants(ctx);
    let version = match ctx.agent_version.as_deref() {
        Some(v) if c.version_known => v.to_string(),
        Some(v) => format!("{v} (unparsable: newest)"),
        None => "(newest)".to_string(),
    };
    if c.auto_compact_limit == u64::MAX {
        format!(
            "Codex {version}: no automatic compaction in this version ({}-token window)",
            crate::render::thousands(c.context_window)
        )
    } else {
        format!(
            "Codex {version}: limit {} of a {}-token window",
            crate::render::thousands(c.auto_compact_limit),
            crate::render::thousands(c.context_window)
        )
    }
}

pub struct Codex {
    /// Each item's size, measured once for the calibration's pass and the replay.
    bytes4: Bytes4,
    limit: u64,
    budget: u64,
    summary: u64,
    full: u64,
    context: u64,
    items: usize,
    /// Sizes of the real user messages in context, oldest first (what a compaction carries).
    user_messages: VecDeque<u64>,
    /// Size of the harness context items (re-injected after a compaction).
    initial_context: u64,
    /// A human prompt arrived since the last request (a new turn: the pre-turn check applies).
    new_turn: bool,
    /// The version checks before a turn too (0.74+), not only after sampling.
    pre_turn_check: bool,
    /// What the check after sampling compares.
    measure: CodexMeasure,
    /// Per request: the reasoning tokens its response recorded.
    reasoning: Vec<u64>,
    /// Per request: bytes/4 of the items recorded after its response's last model-generated
    /// item, up to the next request.
    after_response: Vec<u64>,
}

impl Codex {
    pub fn new(ctx: &StrategyContext) -> Self {
        let c = constants(ctx);
        Codex {
            bytes4: Bytes4::default(),
            limit: c.auto_compact_limit,
            pre_turn_check: c.pre_turn_check,
            budget: ctx.settings.int("user_message_budget"),
            summary: ctx.summary_tokens,
            full: 0,
            context: 0,
            items: 0,
            user_messages: VecDeque::new(),
            initial_context: 0,
            new_turn: false,
            measure: c.measure,
            reasoning: Vec::new(),
            after_response: Vec::new(),
        }
    }

    /// For a replay input: with what its requests recorded that the measure needs.
    pub fn for_input(ctx: &StrategyContext, input: &ReplayInput) -> Self {
        let mut c = Codex::new(ctx);
        let rs = &input.requests;
        c.reasoning = rs
            .iter()
            .map(|r| r.usage.as_ref().map_or(0, |u| u.reasoning))
            .collect();
        c.after_response = (0..rs.len())
            .map(|k| {
                let end = rs.get(k + 1).map_or(input.items.len(), |r| r.upto);
                let items = &input.items
                    [rs[k].upto.min(end).min(input.items.len())..end.min(input.items.len())];
                let from = items
                    .iter()
                    .rposition(|it| it.role == Role::Assistant)
                    .map_or(0, |i| i + 1);
                items[from..].iter().map(bytes4_tokens).sum()
            })
            .collect();
        c
    }

    /// The figure the check after sampling compares with the limit, for the response to `req`
    /// whose prompt was `prompt`.
    fn measure(&self, req: &RequestInfo, prompt: u64) -> u64 {
        let total = prompt.saturating_add(req.output);
        match self.measure {
            CodexMeasure::TotalMinusReasoning => {
                total.saturating_sub(self.reasoning.get(req.index).copied().unwrap_or(0))
            }
            CodexMeasure::TotalPlusReasoningEstimate => total,
            CodexMeasure::TotalPlusEstimates => {
                total.saturating_add(self.after_response.get(req.index).copied().unwrap_or(0))
            }
        }
    }

    fn compact(&mut self, measure: u64) -> Event {
        let mut e = Event::new(EventKind::Compress);
        e.tokens_before = self.context;
        e.measure = Some(measure);
        e.summariser_input = self.context;
        e.summariser_output = self.summary;
        // Newest user messages first, up to the budget; the overflowing one is truncated.
        let mut kept: VecDeque<u64> = VecDeque::new();
        let mut used = 0u64;
        for &t in self.user_messages.iter().rev() {
            if used >= self.budget {
                break;
            }
            let take = t.min(self.budget - used);
            kept.push_front(take);
            used += take;
        }
        e.summarised = self.items.saturating_sub(kept.len());
        e.kept = kept.len();
        self.user_messages = kept;
        // The summary itself becomes a user message, but Codex never carries summaries into the
        // next compaction's user-message selection, so it is not in `user_messages`.
        self.context = self.initial_context + used + self.summary;
        self.items = e.kept + 1;
        e.tokens_after = self.context;
        e
    }
}

impl Strategy for Codex {
    fn push(&mut self, item: &HistoryItem) {
        let t = self.bytes4.next(item);
        self.full += t;
        self.context += t;
        self.items += 1;
        if item.is_context {
            self.initial_context += t;
        } else if item.is_human {
            self.user_messages.push_back(t);
            self.new_turn = true;
        }
    }

    fn take_measured(&mut self) -> Option<crate::replay::Measured> {
        self.bytes4.take()
    }

    fn reuse_measured(&mut self, measured: crate::replay::Measured) {
        self.bytes4 = Bytes4::reuse(measured);
    }

    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event> {
        let turn_start = std::mem::take(&mut self.new_turn);
        if self.pre_turn_check && turn_start && req.context_now >= self.limit && self.items > 0 {
            return vec![self.compact(req.context_now)];
        }
        Vec::new()
    }

    fn after_request(&mut self, req: &RequestInfo, what_if_prompt: u64) -> Vec<Event> {
        // Codex starts from the response's total (`last_token_usage.total_tokens`): the
        // recorded prompt while the replayed history is the recorded one, else the calibrated
        // size; the version's measure adjusts it.
        let measure = self.measure(req, what_if_prompt);
        if measure >= self.limit && self.items > 0 {
            return vec![self.compact(measure)];
        }
        Vec::new()
    }

    fn compact_now(&mut self, req: &RequestInfo) -> Option<Event> {
        (self.items > 0).then(|| self.compact(req.context_now))
    }

    fn full_tokens(&self) -> u64 {
        self.full
    }

    fn context_tokens(&self) -> u64 {
        self.context
    }
}
