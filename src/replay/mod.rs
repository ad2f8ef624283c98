//! Offline replay of context-management algorithms over real history.
//!
//! A session becomes a sequence of model requests. At each request the context holds a fixed
//! overhead (system prompt, tool declarations) plus the history so far. Three series come out:
//!
//! - `full`: overhead + the whole history with no management at all (even what the agent itself
//!   later compacted away);
//! - `recorded`: the prompt tokens the agent reported for that request, where it did;
//! - `what_if`: overhead + the history as the chosen algorithm would have managed it.
//!
//! Each algorithm (one module each) decides with its own estimator, ported exactly. Absolute
//! figures are anchored to recorded usage: the overhead is the first recorded prompt minus the
//! estimated history at that request. Without recorded usage the overhead is 0 and every figure
//! is an estimate (the result says so).
//!
//! The engine feeds history items to a [`Strategy`] incrementally and asks it, before and after
//! each request, for the managed context size. Strategies keep running sums so a replay is
//! linear (or n·log n) in the number of messages: nothing re-sums the whole history per request.

pub mod claude;
pub mod codex;
pub mod gemini;
pub mod js;
pub mod openclaw;
pub mod pi;
pub mod settings;
pub mod versions;
pub mod window;

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::model::{Agent, Compaction, CompactionKind, Message, Part, Role, Session};
use crate::tokens::estimate_text;
use settings::{Settings, Spec};
use window::Limits;

/// The algorithms `replay-compress` can replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Gemini CLI chat compression + tool-output masking.
    Gemini,
    /// OpenClaw session pruning (soft-trim / hard-clear of old tool results).
    OpenclawPrune,
    /// Pi coding agent compaction.
    Pi,
    /// Claude Code auto-compact.
    Claude,
    /// Codex CLI auto-compaction.
    Codex,
}

impl Algorithm {
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Gemini => "gemini",
            Algorithm::OpenclawPrune => "openclaw-prune",
            Algorithm::Pi => "pi",
            Algorithm::Claude => "claude",
            Algorithm::Codex => "codex",
        }
    }

    /// The settings this algorithm accepts with `--set`, with defaults and ranges.
    pub fn specs(self) -> &'static [Spec] {
        match self {
            Algorithm::Gemini => gemini::SPECS,
            Algorithm::OpenclawPrune => openclaw::SPECS,
            Algorithm::Pi => pi::SPECS,
            Algorithm::Claude => claude::SPECS,
            Algorithm::Codex => codex::SPECS,
        }
    }

    /// Context window and max output assumed when the model is unknown.
    pub fn default_limits(self) -> (u64, u64) {
        match self {
            Algorithm::Gemini => (1_048_576, 65_536),
            Algorithm::OpenclawPrune | Algorithm::Pi => (200_000, 32_000),
            Algorithm::Claude => (200_000, 64_000),
            Algorithm::Codex => (272_000, 128_000),
        }
    }

    /// Summary size used when `--summary-tokens auto` finds no real summaries to calibrate
    /// from. 0 for algorithms that do not summarise.
    pub fn default_summary_tokens(self) -> u64 {
        match self {
            Algorithm::Gemini => 1_500,
            Algorithm::OpenclawPrune => 0,
            Algorithm::Pi => 2_500,
            Algorithm::Claude => 3_000,
            Algorithm::Codex => 1_500,
        }
    }

    /// The agent whose own behaviour this algorithm reproduces (for `--validate` and for
    /// calibrating summary sizes from that agent's real summaries).
    pub fn native_agent(self) -> Option<Agent> {
        match self {
            Algorithm::Gemini => Some(Agent::Gemini),
            Algorithm::Claude => Some(Agent::Claude),
            Algorithm::Codex => Some(Agent::Codex),
            Algorithm::OpenclawPrune | Algorithm::Pi => None,
        }
    }

    fn build(self, ctx: &StrategyContext) -> Box<dyn Strategy> {
        match self {
            Algorithm::Gemini => Box::new(gemini::Gemini::new(ctx)),
            Algorithm::OpenclawPrune => Box::new(openclaw::OpenClaw::new(ctx)),
            Algorithm::Pi => Box::new(pi::Pi::new(ctx)),
            Algorithm::Claude => Box::new(claude::Claude::new(ctx)),
            Algorithm::Codex => Box::new(codex::Codex::new(ctx)),
        }
    }
}

/// One message of model-visible history, as the engine feeds it to a strategy.
#[derive(Debug, Clone)]
pub struct HistoryItem {
    /// `User`, `Assistant` or `Tool` (system notices never reach the model and are dropped).
    pub role: Role,
    /// Typed by the human: a new user turn starts here.
    pub is_human: bool,
    pub timestamp: Option<DateTime<Utc>>,
    pub model: Option<String>,
    pub parts: Vec<Part>,
    /// For each part: the tool name of a `ToolResult` (from its call), else `None`.
    pub tool_names: Vec<Option<String>>,
    /// Harness context in the user slot (environment, instructions): Codex keeps these out of
    /// the user messages it carries across a compaction.
    pub is_context: bool,
}

impl HistoryItem {
    pub fn text(&self) -> String {
        crate::model::text_of(&self.parts)
    }
}

/// One model request of the session.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestPoint {
    /// How many history items were in context when it was sent.
    pub upto: usize,
    /// The prompt size the agent recorded for it.
    pub recorded_prompt: Option<u64>,
    /// Output tokens (recorded, else estimated from the response text).
    pub output: u64,
    pub timestamp: Option<DateTime<Utc>>,
    pub model: Option<String>,
}

/// A session prepared for replay.
#[derive(Debug, Clone)]
pub struct ReplayInput {
    pub agent: Agent,
    pub id: String,
    pub path: PathBuf,
    pub project: Option<String>,
    pub items: Vec<HistoryItem>,
    pub requests: Vec<RequestPoint>,
    /// The model used most often.
    pub model: Option<String>,
    /// The context window the agent recorded, if it did (Codex).
    pub recorded_window: Option<u64>,
    /// Whether requests carry recorded prompt sizes (else everything is estimated).
    pub recorded_usage: bool,
    /// The compactions the agent itself performed, with `request_index` into `requests`.
    pub recorded_compactions: Vec<Compaction>,
}

/// Messages that are artifacts of the agent's own context management, not conversation.
fn is_management_artifact(m: &Message) -> bool {
    matches!(
        m.subtype.as_deref(),
        Some("compaction" | "compact_summary" | "compact_ack" | "checkpoint_copy" | "synthetic")
    )
}

impl ReplayInput {
    pub fn from_session(s: Session) -> ReplayInput {
        // Tool names by call id, for results (allow/deny lists and Gemini functionResponse names).
        let mut names: HashMap<String, String> = HashMap::new();
        for m in &s.messages {
            for p in &m.parts {
                if let Part::ToolCall { id, name, .. } = p {
                    names.insert(id.clone(), name.clone());
                }
            }
        }
        // In a main session, sidechain records are a sub-agent's separate context; in a
        // sub-agent's own file they are the context.
        let own_sidechain = s.kind == crate::model::SessionKind::Subagent;
        // history position of each original message index
        let mut position: Vec<usize> = Vec::with_capacity(s.messages.len() + 1);
        let mut items = Vec::new();
        for m in s.messages {
            position.push(items.len());
            let keep = matches!(m.role, Role::User | Role::Assistant | Role::Tool)
                && (own_sidechain || !m.sidechain)
                && !is_management_artifact(&m);
            if !keep {
                continue;
            }
            let tool_names = m
                .parts
                .iter()
                .map(|p| match p {
                    Part::ToolResult { call_id, .. } => names.get(call_id).cloned(),
                    _ => None,
                })
                .collect();
            let is_context = m.role == Role::User
                && !m.is_human
                && !m.parts.iter().any(|p| matches!(p, Part::ToolResult { .. }));
            items.push(HistoryItem {
                role: m.role,
                is_human: m.is_human,
                timestamp: m.timestamp,
                model: m.model,
                parts: m.parts,
                tool_names,
                is_context,
            });
        }
        position.push(items.len());

        let mut requests: Vec<RequestPoint> = Vec::new();
        for r in &s.requests {
            if !own_sidechain && r.dedup_key.as_ref().is_some_and(|k| k.sidechain) {
                continue; // a sub-agent's request: another context
            }
            let upto = match r.message_index {
                Some(i) => position[i.min(position.len() - 1)],
                None => requests.last().map_or(0, |p: &RequestPoint| p.upto),
            };
            requests.push(RequestPoint {
                upto,
                recorded_prompt: r.prompt_tokens,
                output: r.usage.output,
                timestamp: r.timestamp,
                model: r.model.clone(),
            });
        }
        requests.sort_by_key(|r| r.upto);
        let recorded_usage = requests.iter().any(|r| r.recorded_prompt.is_some());
        if requests.is_empty() {
            // No recorded usage at all: one estimated request per assistant response.
            for (i, it) in items.iter().enumerate() {
                if it.role == Role::Assistant {
                    requests.push(RequestPoint {
                        upto: i,
                        recorded_prompt: None,
                        output: estimate_text(&it.text()),
                        timestamp: it.timestamp,
                        model: it.model.clone(),
                    });
                }
            }
        }
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for r in &requests {
            if let Some(m) = r.model.as_deref() {
                *counts.entry(m).or_default() += 1;
            }
        }
        let model = counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(m, _)| m.to_string())
            .or_else(|| s.models.last().cloned());
        let recorded_compactions = s
            .compactions
            .into_iter()
            .filter(|c| !matches!(c.kind, CompactionKind::GeminiMasking))
            .collect();
        ReplayInput {
            recorded_window: s.context_window,
            agent: s.agent,
            id: s.id,
            path: s.path,
            project: s.project,
            items,
            requests,
            model,
            recorded_usage,
            recorded_compactions,
        }
    }
}

/// What a strategy is built with.
#[derive(Debug, Clone)]
pub struct StrategyContext {
    pub settings: Settings,
    pub limits: Limits,
    /// Size of a summary the algorithm would write (`--summary-tokens`).
    pub summary_tokens: u64,
}

/// What the engine tells a strategy about a request.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    pub index: usize,
    pub timestamp: Option<DateTime<Utc>>,
    pub recorded_prompt: Option<u64>,
    /// Output tokens of this request's response.
    pub output: u64,
    /// The what-if prompt size (anchored, i.e. including the overhead) of the previous request:
    /// what the agent's API would have reported, the figure real triggers compare.
    pub prev_prompt: Option<u64>,
    /// Output tokens of the previous request.
    pub prev_output: u64,
    /// Fixed overhead (system prompt + tools) added to the strategy's history estimate.
    pub overhead: u64,
    /// Whether `recorded_prompt` still describes the unmanaged history: the agent has not
    /// compacted anything yet. Until a replay first intervenes, that recorded figure *is* the
    /// what-if context, and it is what the real agent's trigger compared.
    pub recorded_unmanaged: bool,
    /// The previous request's recorded prompt, when it too described the unmanaged history.
    pub prev_recorded: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// History summarised (Gemini COMPRESSED, Pi, Claude, Codex compaction).
    Compress,
    /// Old tool outputs truncated without a summary (Gemini CONTENT_TRUNCATED).
    Truncate,
    /// Tool outputs masked (Gemini masking).
    Mask,
    /// Tool results soft-trimmed / hard-cleared (OpenClaw).
    Prune,
    /// A compression was attempted and rejected (Gemini inflated count).
    Failed,
}

/// Something the algorithm did before or after one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// Index of the first request that sees its effect (the request it happened before; for a
    /// trigger after sampling, the next one).
    pub request: usize,
    pub kind: EventKind,
    /// History messages replaced by the summary (or touched, for prunes/masks).
    pub summarised: usize,
    /// History messages kept verbatim.
    pub kept: usize,
    /// Context size before and after (anchored: overhead included).
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// Summariser input and output tokens (Gemini makes two calls).
    pub summariser_input: u64,
    pub summariser_output: u64,
}

impl Event {
    pub fn new(kind: EventKind) -> Event {
        Event {
            request: 0,
            kind,
            summarised: 0,
            kept: 0,
            tokens_before: 0,
            tokens_after: 0,
            summariser_input: 0,
            summariser_output: 0,
        }
    }

    pub fn summariser_tokens(&self) -> u64 {
        self.summariser_input + self.summariser_output
    }
}

/// One context-management algorithm, fed the history incrementally. All token figures a
/// strategy returns are in its own estimator's units, without the overhead; the engine adds it.
pub trait Strategy {
    /// Append the next history item (in log order).
    fn push(&mut self, item: &HistoryItem);
    /// A request is about to be sent with everything pushed so far. Apply triggers; return what
    /// happened (events' token figures without the overhead; the engine anchors them).
    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event>;
    /// The request was sent and answered with a context of `what_if_prompt` tokens (anchored).
    /// For algorithms that trigger after sampling (Codex mid-turn, Pi after a run).
    fn after_request(&mut self, _req: &RequestInfo, _what_if_prompt: u64) -> Vec<Event> {
        Vec::new()
    }
    /// Estimated size of the whole unmanaged history pushed so far.
    fn full_tokens(&self) -> u64;
    /// Estimated size of the managed context as it would be sent at the current request.
    fn context_tokens(&self) -> u64;
}

/// One request of the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    pub request: usize,
    pub full: u64,
    pub recorded: Option<u64>,
    pub what_if: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Totals {
    /// Σ over requests of each series.
    pub full: u64,
    /// Σ of recorded prompts (requests without a recorded figure contribute nothing).
    pub recorded: u64,
    pub what_if: u64,
    /// `full − what_if`.
    pub saved: i64,
    pub saved_pct: f64,
    /// Σ over requests with a recorded prompt of `recorded − what_if`.
    pub saved_vs_recorded: i64,
    pub saved_vs_recorded_pct: f64,
    /// Tokens the summariser calls would have cost (input + output).
    pub summariser_tokens: u64,
    /// `saved − summariser_tokens`.
    pub net_saved: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Series<T> {
    pub full: T,
    pub recorded: T,
    pub what_if: T,
}

/// A recorded compaction next to the replay's nearest one (`--validate`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    pub recorded_request: usize,
    pub recorded_tokens_before: Option<u64>,
    pub replay_request: Option<usize>,
    pub replay_tokens_before: Option<u64>,
    /// `replay_request − recorded_request`.
    pub request_delta: Option<i64>,
    /// `(replay − recorded) / recorded × 100` of the tokens before.
    pub tokens_delta_pct: Option<f64>,
}

/// The replay of one session under one setting.
#[derive(Debug, Clone, Serialize)]
pub struct SessionReplay {
    pub agent: Agent,
    pub id: String,
    pub path: PathBuf,
    pub project: Option<String>,
    pub algorithm: Algorithm,
    pub settings: Settings,
    pub model: Option<String>,
    pub limits: Limits,
    pub summary_tokens: u64,
    /// Threshold of the algorithm in anchored tokens, when it has one (for plots).
    pub threshold: Option<u64>,
    /// `recorded` when anchored to recorded usage, `estimated` otherwise.
    pub basis: &'static str,
    pub requests: usize,
    pub totals: Totals,
    pub compressions: usize,
    pub events: Vec<Event>,
    pub peak: Series<u64>,
    pub over_window: Series<usize>,
    /// `recorded / full` at the last request before the agent's first own compaction: how far
    /// the algorithm's estimator drifts from the real tokenizer on this session (1.0 = exact).
    pub estimator_drift: Option<f64>,
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Vec<Point>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validation: Option<Vec<Validation>>,
}

/// Options of one replay.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    pub algorithm: Algorithm,
    pub settings: Settings,
    pub context_window: Option<u64>,
    pub summary_tokens: u64,
    pub summary_tokens_source: &'static str,
    pub timeline: bool,
    pub validate: bool,
}

/// Replay one session.
pub fn replay(input: &ReplayInput, opts: &ReplayOptions) -> SessionReplay {
    let alg = opts.algorithm;
    let limits = window::resolve(
        input.model.as_deref(),
        input.recorded_window,
        opts.context_window,
        alg.default_limits(),
    );
    let ctx = StrategyContext {
        settings: opts.settings.clone(),
        limits,
        summary_tokens: opts.summary_tokens,
    };
    let mut strategy = alg.build(&ctx);
    let mut notes = Vec::new();
    if limits.source == window::WindowSource::Default {
        notes.push(format!(
            "model {} unknown: assumed a {}-token window",
            input.model.as_deref().unwrap_or("(none recorded)"),
            limits.context_window
        ));
    }
    if !input.recorded_usage {
        notes.push("no recorded usage: every figure is an estimate".into());
    }
    if alg.default_summary_tokens() > 0 {
        notes.push(format!(
            "summary size {} tokens ({})",
            opts.summary_tokens, opts.summary_tokens_source
        ));
    }

    let mut overhead: Option<u64> = None;
    let first_real = input
        .recorded_compactions
        .iter()
        .map(|c| c.request_index)
        .min();
    let mut prev_recorded = None;
    let mut pushed = 0;
    let mut prev_prompt = None;
    let mut prev_output = 0;
    let mut events: Vec<Event> = Vec::new();
    let mut timeline: Vec<Point> = Vec::with_capacity(input.requests.len());
    for (k, r) in input.requests.iter().enumerate() {
        while pushed < r.upto.min(input.items.len()) {
            strategy.push(&input.items[pushed]);
            pushed += 1;
        }
        if overhead.is_none() {
            if let Some(rec) = r.recorded_prompt {
                overhead = Some(rec.saturating_sub(strategy.full_tokens()));
            }
        }
        let oh = overhead.unwrap_or(0);
        let info = RequestInfo {
            index: k,
            timestamp: r.timestamp,
            recorded_prompt: r.recorded_prompt,
            output: r.output,
            prev_prompt,
            prev_output,
            overhead: oh,
            recorded_unmanaged: first_real.is_none_or(|f| k < f),
            prev_recorded,
        };
        for mut e in strategy.before_request(&info) {
            e.request = k;
            e.tokens_before += oh;
            e.tokens_after += oh;
            events.push(e);
        }
        let point = Point {
            request: k,
            full: oh + strategy.full_tokens(),
            recorded: r.recorded_prompt,
            what_if: oh + strategy.context_tokens(),
        };
        for mut e in strategy.after_request(&info, point.what_if) {
            // It takes effect from the next request on, like a recorded compaction's index.
            e.request = k + 1;
            e.tokens_before += oh;
            e.tokens_after += oh;
            events.push(e);
        }
        timeline.push(point);
        prev_prompt = Some(point.what_if);
        prev_recorded = r.recorded_prompt.filter(|_| info.recorded_unmanaged);
        prev_output = r.output;
    }

    let w = limits.context_window;
    let mut totals = Totals::default();
    let mut peak = Series::<u64>::default();
    let mut over = Series::<usize>::default();
    let mut recorded_only_what_if = 0u64;
    for p in &timeline {
        totals.full += p.full;
        totals.what_if += p.what_if;
        peak.full = peak.full.max(p.full);
        peak.what_if = peak.what_if.max(p.what_if);
        over.full += usize::from(p.full > w);
        over.what_if += usize::from(p.what_if > w);
        if let Some(r) = p.recorded {
            totals.recorded += r;
            recorded_only_what_if += p.what_if;
            peak.recorded = peak.recorded.max(r);
            over.recorded += usize::from(r > w);
        }
    }
    totals.saved = totals.full as i64 - totals.what_if as i64;
    totals.saved_pct = pct(totals.saved, totals.full);
    totals.saved_vs_recorded = totals.recorded as i64 - recorded_only_what_if as i64;
    totals.saved_vs_recorded_pct = pct(totals.saved_vs_recorded, totals.recorded);
    totals.summariser_tokens = events.iter().map(Event::summariser_tokens).sum();
    totals.net_saved = totals.saved - totals.summariser_tokens as i64;
    let compressions = events
        .iter()
        .filter(|e| e.kind != EventKind::Failed)
        .count();

    let estimator_drift = timeline
        .iter()
        .take_while(|p| first_real.is_none_or(|f| p.request < f))
        .filter(|p| p.full > 0)
        .filter_map(|p| p.recorded.map(|r| r as f64 / p.full as f64))
        .last()
        .map(|d| (d * 100.0).round() / 100.0);
    if let Some(d) = estimator_drift.filter(|d| !(0.8..=1.25).contains(d)) {
        notes.push(format!(
            "the {} estimator is {:.0}% {} than the recorded prompt sizes on this session; absolute figures are anchored only by the overhead",
            alg.as_str(),
            (d - 1.0).abs() * 100.0,
            if d > 1.0 { "lower" } else { "higher" }
        ));
    }
    let validation = (opts.validate && alg.native_agent() == Some(input.agent))
        .then(|| validate(&input.recorded_compactions, &events, &timeline));
    SessionReplay {
        agent: input.agent,
        id: input.id.clone(),
        path: input.path.clone(),
        project: input.project.clone(),
        algorithm: alg,
        settings: opts.settings.clone(),
        model: input.model.clone(),
        limits,
        summary_tokens: opts.summary_tokens,
        threshold: threshold(alg, &ctx),
        basis: if input.recorded_usage {
            "recorded"
        } else {
            "estimated"
        },
        requests: timeline.len(),
        totals,
        compressions,
        events,
        peak,
        over_window: over,
        estimator_drift,
        notes,
        timeline: opts.timeline.then_some(timeline),
        validation,
    }
}

/// `part / whole` in percent, one decimal; 0 when `whole` is 0.
pub fn pct(part: i64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 / whole as f64 * 1000.0).round() / 10.0
    }
}

/// The trigger level of an algorithm in context tokens, for plots and validation.
pub fn threshold(alg: Algorithm, ctx: &StrategyContext) -> Option<u64> {
    match alg {
        Algorithm::Gemini => {
            Some((ctx.settings.num("threshold") * ctx.limits.context_window as f64) as u64)
        }
        Algorithm::Claude => Some(claude::threshold(ctx)),
        Algorithm::Codex => Some(codex::limit(ctx)),
        Algorithm::Pi => Some(
            ctx.limits
                .context_window
                .saturating_sub(ctx.settings.int("reserve_tokens")),
        ),
        Algorithm::OpenclawPrune => {
            Some((ctx.settings.num("soft_trim_ratio") * ctx.limits.context_window as f64) as u64)
        }
    }
}

/// Pair each recorded compaction with the replay's compressions in order.
fn validate(recorded: &[Compaction], events: &[Event], timeline: &[Point]) -> Vec<Validation> {
    let compress: Vec<&Event> = events
        .iter()
        .filter(|e| e.kind == EventKind::Compress)
        .collect();
    recorded
        .iter()
        .enumerate()
        .map(|(i, c)| {
            // The recorded size before: what the agent wrote, else the last recorded prompt.
            let rec_before = c.tokens_before.or_else(|| {
                c.request_index
                    .checked_sub(1)
                    .and_then(|j| timeline.get(j))
                    .and_then(|p| p.recorded)
            });
            let e = compress.get(i);
            Validation {
                recorded_request: c.request_index,
                recorded_tokens_before: rec_before,
                replay_request: e.map(|e| e.request),
                replay_tokens_before: e.map(|e| e.tokens_before),
                request_delta: e.map(|e| e.request as i64 - c.request_index as i64),
                tokens_delta_pct: match (e, rec_before) {
                    (Some(e), Some(r)) if r > 0 => Some(
                        ((e.tokens_before as f64 - r as f64) / r as f64 * 1000.0).round() / 10.0,
                    ),
                    _ => None,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;

/// Tokens an image is assumed to cost where the algorithm has no rule of its own (Claude,
/// Codex): Anthropic's ~1,600 tokens for a typical screenshot-sized image.
pub const IMAGE_TOKENS: u64 = 1_600;

/// `ceil(UTF-8 bytes / 4)` of everything model-visible in an item: text, thinking, tool call
/// names and arguments, tool outputs; images at [`IMAGE_TOKENS`]. Codex's own estimator, and
/// the neutral one for Claude Code, which publishes none.
pub fn bytes4_tokens(item: &HistoryItem) -> u64 {
    let mut bytes = 0usize;
    let mut images = 0u64;
    for p in &item.parts {
        match p {
            Part::Text { text } | Part::Thinking { text } => bytes += text.len(),
            Part::ToolCall { name, input, .. } => {
                bytes += name.len();
                bytes += match input {
                    serde_json::Value::String(s) => s.len(),
                    v => v.to_string().len(),
                };
            }
            Part::ToolResult {
                output,
                attachments,
                ..
            } => {
                bytes += output.len();
                images += attachments
                    .iter()
                    .filter(|a| matches!(a, Part::Image { .. }))
                    .count() as u64;
            }
            Part::Image { .. } => images += 1,
            Part::Compaction { .. } | Part::Unknown { .. } => {}
        }
    }
    (bytes as u64).div_ceil(4) + images * IMAGE_TOKENS
}
