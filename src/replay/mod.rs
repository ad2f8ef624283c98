//! Offline replay of context-management algorithms over real history.
//!
//! A session becomes a sequence of model requests ([`input`]). At each request the context
//! holds a fixed overhead (system prompt, tool declarations) plus the history so far. Three
//! series come out:
//!
//! - `full`: the whole history with no management at all (even what the agent itself later
//!   compacted away);
//! - `recorded`: the prompt tokens the agent reported for that request, where it did;
//! - `what_if`: the history as the chosen algorithm would have managed it.
//!
//! Each algorithm (one module each) decides with its own estimator, ported exactly, at the
//! constants of the agent version that recorded the session ([`versions`]). The figures are
//! real tokens wherever they can be: while the replayed history is the recorded one (the
//! replay has not intervened, or it compacted where the agent did), a request's what-if size
//! *is* its recorded size, and triggers compare the recorded figures the real agent compared
//! (`engine`). Elsewhere a figure is extrapolated from the last such request with a per-session
//! calibration of the estimator against the recorded sizes ([`calibrate`]). Without recorded
//! usage every figure is a raw estimate (the result says so).
//!
//! The engine feeds history items to a [`Strategy`] incrementally and asks it, before and after
//! each request, for the managed context size. Strategies keep running sums so a replay is
//! linear (or n·log n) in the number of messages: nothing re-sums the whole history per request.

pub mod calibrate;
pub mod claude;
pub mod codex;
pub mod cost;
mod engine;
pub mod gemini;
pub mod input;
pub mod js;
pub mod openclaw;
pub mod pi;
pub mod settings;
mod sync;
pub mod validate;
pub mod versions;
pub mod window;

use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::model::{Agent, Compaction, JsonTree, Part, Role, Trigger};
use calibrate::Calibration;
use settings::{Settings, Spec};
use window::Limits;

pub use engine::{replay, replay_each};

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

    /// The settings that change this algorithm's estimate of a history (what the calibration
    /// fits): a sweep over one of them calibrates each value on its own.
    pub fn estimator_settings(self) -> &'static [&'static str] {
        match self {
            Algorithm::Gemini => &[
                "non_ascii_weight",
                "image_estimate",
                "pdf_estimate",
                "long_text_fast_path",
                "astral_counts_once",
                "function_response_estimate",
                "coalesce_turns",
            ],
            _ => &[],
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

    /// The largest summary the algorithm's agent can write, for `--summary-tokens N`: its
    /// summary is the answer of one model call, bounded by that call's output limit. A larger
    /// size asks about a summary no agent writes, and one larger than what it replaced makes a
    /// compaction grow the context. `None` where the algorithm bounds it itself (Pi caps it at
    /// its summary budget) or writes none (OpenClaw).
    pub fn max_summary_tokens(self) -> Option<u64> {
        match self {
            // The largest of its versions' caps (32,000 before 2.1.21, then 20,000).
            Algorithm::Claude => Some(versions::claude_max_summary_tokens()),
            // The summarising call's model's max output: 128,000 for the GPT-5 and Codex models,
            // the largest of any model Codex runs (`window`).
            Algorithm::Codex => Some(128_000),
            // The Gemini models' max output (`window`).
            Algorithm::Gemini => Some(65_536),
            Algorithm::OpenclawPrune | Algorithm::Pi => None,
        }
    }

    /// The largest summary the agent that recorded a session could write, where the version
    /// tables know it: Claude's algorithm over a Claude session of a known Claude Code version.
    /// Another agent's session is replayed at the newest constants, and its version says
    /// nothing of this algorithm's agent.
    pub fn version_summary_cap(self, agent: Agent, version: Option<&str>) -> Option<u64> {
        match self {
            Algorithm::Claude if agent == Agent::Claude => versions::claude_summary_cap(version),
            _ => None,
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

    /// Whether the algorithm's constants depend on the recording agent's version.
    pub fn has_versioned_constants(self) -> bool {
        matches!(self, Algorithm::Claude | Algorithm::Codex)
    }

    /// The trigger constants in force, in words, for the report.
    pub fn constants(self, ctx: &StrategyContext) -> String {
        match self {
            Algorithm::Claude => claude::describe(ctx),
            Algorithm::Codex => codex::describe(ctx),
            _ => match threshold(self, ctx) {
                Some(t) => format!(
                    "{}: threshold {} of a {}-token window",
                    self.as_str(),
                    crate::render::thousands(t),
                    crate::render::thousands(ctx.limits.context_window)
                ),
                None => format!(
                    "{}: {}-token window",
                    self.as_str(),
                    crate::render::thousands(ctx.limits.context_window)
                ),
            },
        }
    }

    fn build(self, ctx: &StrategyContext, input: &ReplayInput) -> Box<dyn Strategy> {
        match self {
            Algorithm::Gemini => Box::new(gemini::Gemini::for_input(ctx, input)),
            Algorithm::OpenclawPrune => Box::new(openclaw::OpenClaw::new(ctx)),
            Algorithm::Pi => Box::new(pi::Pi::new(ctx)),
            Algorithm::Claude => Box::new(claude::Claude::new(ctx)),
            Algorithm::Codex => Box::new(codex::Codex::for_input(ctx, input)),
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
    pub model: Option<Arc<str>>,
    pub parts: Vec<Part>,
    /// For each part: the tool name of a `ToolResult` (from its call), else `None`. Read with
    /// `get`: it may be empty when no part is a result.
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
    pub model: Option<Arc<str>>,
    /// The usage the agent recorded for it, with its cache split (for the cost model).
    pub usage: Option<crate::model::Usage>,
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
    pub started_at: Option<DateTime<Utc>>,
    /// The agent version that wrote the session, when recorded (Claude `version`, Codex
    /// `cli_version`): it decides the constants of the agent's own algorithm.
    pub agent_version: Option<String>,
    /// Whether requests carry recorded prompt sizes (else everything is estimated).
    pub recorded_usage: bool,
    /// The compactions the agent itself performed (tool-output masking included), with
    /// `request_index` into `requests`: the first request that saw their effect.
    pub recorded_compactions: Vec<Compaction>,
    /// The context the agent had right after each of its compactions, where recorded.
    pub post_compaction: Vec<PostCompaction>,
    /// A Gemini session as Gemini CLI resumes it (`gemini::resume`), when its file could be
    /// read that way: `items` are its turns, `requests` its `gemini` records, and the Gemini
    /// replay works on these exact contents.
    pub gemini: Option<std::sync::Arc<gemini::resume::Resumed>>,
    /// For any other session, its items as the Gemini algorithm's replays receive them,
    /// converted and sized once for all of them (a cache; empty until the first).
    pub gemini_sized: gemini::SizedTurns,
    /// A Gemini session's file layout, for the CLI version its replay assumes.
    pub gemini_layout: Option<crate::model::GeminiLayout>,
}

/// The size of the context right after one of the agent's own compactions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PostCompaction {
    /// The first recorded prompt after the compaction.
    pub recorded: u64,
    /// Estimated tokens (UTF-8 bytes / 4) of the history added between the compaction and that
    /// request.
    pub added: u64,
    /// Estimated tokens of the summary the agent wrote.
    pub summary: u64,
}

/// What a strategy is built with.
#[derive(Debug, Clone)]
pub struct StrategyContext {
    pub settings: Settings,
    pub limits: Limits,
    /// Size of a summary the algorithm would write (`--summary-tokens`).
    pub summary_tokens: u64,
    /// The recording agent's version, for algorithms whose constants changed between versions.
    pub agent_version: Option<String>,
    /// The session was recorded by the algorithm's own agent, whose version decides its rules;
    /// another agent's session is replayed on the window `limits` reports.
    pub native: bool,
    /// The session's main model as the agent knew it (`[1m]` appended when the recorded usage
    /// shows a 1M-window Claude model), for constants that depend on the model.
    pub model: Option<String>,
    /// The session is replayed under several settings (a sweep): what a replay finds out that
    /// the others can reuse is worth keeping for them.
    pub sweep: bool,
}

/// What the engine tells a strategy about a request.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    pub index: usize,
    pub timestamp: Option<DateTime<Utc>>,
    pub recorded_prompt: Option<u64>,
    /// Output tokens of this request's response.
    pub output: u64,
    /// The previous request's prompt size as the agent's API reported it, the figure real
    /// triggers compare: the recorded one while the replayed history is the recorded one
    /// (`prev_recorded`), else the calibrated estimate of the replayed context.
    pub prev_prompt: Option<u64>,
    /// Whether `prev_prompt` is a recorded figure.
    pub prev_recorded: bool,
    /// Output tokens of the previous request.
    pub prev_output: u64,
    /// The calibrated size of the replayed context with everything pushed so far, in the same
    /// units as `prev_prompt` (for checks that look at the current context, not the last
    /// response: Codex's pre-turn check, Claude before the first response).
    pub context_now: u64,
    /// Recorded tokens per estimated token on this session ([`calibrate`]).
    pub scale: f64,
    /// In [`Strategy::after_request`]: whether this request's what-if size is its recorded
    /// one (the replayed history was the recorded one). Always false before the request.
    pub in_sync: bool,
    /// The agent had not managed its context before this request (no compaction, masking or
    /// truncation of its own yet): its recorded prompt still describes the unmanaged history.
    pub unmanaged: bool,
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
    /// Context size before and after. A strategy reports them in its estimator's units; the
    /// engine turns them into calibrated tokens (overhead included), and for a compaction that
    /// matches one the agent recorded, `tokens_after` is the size the agent really had next.
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// Summariser input and output tokens (Gemini makes two calls). Strategies report the input
    /// in estimator units without the overhead; the engine calibrates it.
    pub summariser_input: u64,
    pub summariser_output: u64,
    /// How many summariser calls `summariser_input` covers (each pays the system prompt).
    #[serde(skip)]
    pub summariser_calls: u64,
    /// The figure the trigger compared with its threshold, in the units of
    /// [`RequestInfo::prev_prompt`] (real tokens where recorded): what `--validate` sets
    /// against the agent's recorded `preTokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measure: Option<u64>,
    /// Not the algorithm's decision: the replay followed a compaction the agent recorded (a
    /// manual `/compact`, or an automatic one the replay of the agent's own algorithm at its own
    /// settings did not make within a request), so that it keeps tracking the recording.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub forced: bool,
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
            summariser_calls: 1,
            measure: None,
            forced: false,
        }
    }

    pub fn summariser_tokens(&self) -> u64 {
        self.summariser_input.saturating_add(self.summariser_output)
    }
}

/// The sizes one strategy's pushes measured of a session's first items, in that strategy's own
/// form ([`Strategy::take_measured`]).
pub struct Measured(Box<dyn std::any::Any>);

impl Measured {
    /// What a strategy measured, taken out of it (for [`Strategy::take_measured`]).
    pub fn take<T: Default + 'static>(sizes: &mut T) -> Option<Measured> {
        Some(Measured(Box::new(std::mem::take(sizes))))
    }

    /// The sizes, when they are of the strategy's form.
    pub fn into<T: 'static>(self) -> Option<T> {
        self.0.downcast().ok().map(|b| *b)
    }

    /// Put the sizes in `sizes` when they are of its form (for
    /// [`Strategy::reuse_measured`]).
    pub fn reuse_into<T: 'static>(self, sizes: &mut T) {
        if let Some(m) = self.into() {
            *sizes = m;
        }
    }
}

/// What a strategy measured of each message of the items pushed so far, in push order: the
/// messages of item `k` are [`PerItem::item`]`(k)` of `messages`.
pub struct PerItem<T> {
    pub messages: Vec<T>,
    /// How many messages the items up to each one hold.
    ends: Vec<usize>,
}

impl<T> Default for PerItem<T> {
    fn default() -> Self {
        PerItem {
            messages: Vec::new(),
            ends: Vec::new(),
        }
    }
}

impl<T> PerItem<T> {
    /// The messages pushed since the last item's end are the next item's.
    pub fn end_item(&mut self) {
        self.ends.push(self.messages.len());
    }

    /// The messages of item `k`, when it was measured.
    pub fn item(&self, k: usize) -> Option<std::ops::Range<usize>> {
        let end = *self.ends.get(k)?;
        Some(k.checked_sub(1).map_or(0, |j| self.ends[j])..end)
    }
}

/// One context-management algorithm, fed the history incrementally. All token figures a
/// strategy returns are in its own estimator's units, without the overhead; the engine adds it.
pub trait Strategy {
    /// Append the next history item (in log order).
    fn push(&mut self, item: &HistoryItem);
    /// A request is about to be sent with everything pushed so far. Apply triggers; return what
    /// happened (token figures in the strategy's estimator units; the engine calibrates them).
    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event>;
    /// The request was sent and answered with a context of `what_if_prompt` tokens (recorded
    /// while in sync, else calibrated). For algorithms that trigger after sampling (Codex
    /// mid-turn, Pi after a run).
    fn after_request(&mut self, _req: &RequestInfo, _what_if_prompt: u64) -> Vec<Event> {
        Vec::new()
    }
    /// The user compacted by hand here (a recorded manual `/compact`): do what the agent's
    /// compaction does now, whatever the trigger says. Replaying the agent's own algorithm
    /// reproduces the user's manual compactions so the replay keeps tracking the recording;
    /// `None` when the algorithm has no manual compaction.
    fn compact_now(&mut self, _req: &RequestInfo) -> Option<Event> {
        None
    }
    /// Add the next history item to the unmanaged history only: the calibration reads
    /// [`Strategy::full_tokens`] after each request and never asks for a decision, so a
    /// strategy whose management work is costly (Gemini truncates and masks on push) may skip
    /// it. `full_tokens` must come out as it would after [`Strategy::push`].
    fn push_unmanaged(&mut self, item: &HistoryItem) {
        self.push(item);
    }
    /// What this instance's [`Strategy::push_unmanaged`] calls measured of the items, for
    /// another instance built with the same context over the same input to
    /// [reuse](Strategy::reuse_measured): the calibration pass and the replay push the same
    /// first items, and sizing them (every text's length, every tool call's arguments as JSON)
    /// is most of what a push costs. `None` when the strategy keeps nothing.
    fn take_measured(&mut self) -> Option<Measured> {
        None
    }
    /// Push the first items from what another instance measured of them (see
    /// [`Strategy::take_measured`]) instead of sizing them again; the items past them are
    /// sized as usual.
    fn reuse_measured(&mut self, _measured: Measured) {}
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
    /// `what_if` is the recorded figure: the replayed history was the recorded one here.
    pub in_sync: bool,
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

/// A recorded compaction next to the replay's matching (or nearest) one (`--validate`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    pub trigger: Trigger,
    /// When the agent compacted (it identifies one compaction across checkpoint copies).
    #[serde(serialize_with = "crate::model::serialize_time")]
    pub timestamp: Option<DateTime<Utc>>,
    /// The replay compacted within ±1 request of it (its history is the recorded one again).
    pub matched: bool,
    /// The replay did not make it (within ±1 request) and followed the agent's compaction to
    /// keep tracking the recording (always, for a manual one).
    pub followed: bool,
    pub recorded_request: usize,
    pub recorded_tokens_before: Option<u64>,
    pub replay_request: Option<usize>,
    pub replay_tokens_before: Option<u64>,
    /// `replay_request − recorded_request`.
    pub request_delta: Option<i64>,
    /// `(replay − recorded) / recorded × 100` of the tokens before.
    pub tokens_delta_pct: Option<f64>,
    /// The recorded compaction's [`Compaction::record_id`](crate::model::Compaction): what
    /// names it across files better than its time.
    #[serde(skip)]
    pub record_id: Option<String>,
}

/// How closely replaying the agent's own algorithm reproduced what it did (`--validate`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Fidelity {
    /// Automatic compactions the agent recorded (manual ones are replayed as given).
    pub recorded_auto: usize,
    /// Of those, how many the replay made within ±1 request.
    pub predicted: usize,
    /// Compressions the replay made that match no recorded one.
    pub unexpected: usize,
    /// Median of |replay trigger measure − recorded `preTokens`| / `preTokens` over the
    /// predicted compactions, in percent.
    pub median_token_error_pct: Option<f64>,
    /// Median over the requests with a recorded prompt of |what_if − recorded| / recorded, in
    /// percent: how well the what-if series tracks the recording.
    pub median_series_error_pct: Option<f64>,
}

/// The replay of one session under one setting.
#[derive(Debug, Clone, Serialize)]
pub struct SessionReplay {
    pub agent: Agent,
    pub id: String,
    #[serde(serialize_with = "crate::diag::serialize_path")]
    pub path: PathBuf,
    pub project: Option<String>,
    /// When the session started.
    #[serde(serialize_with = "crate::model::serialize_time")]
    pub started_at: Option<DateTime<Utc>>,
    pub algorithm: Algorithm,
    pub settings: Settings,
    pub model: Option<String>,
    pub limits: Limits,
    pub summary_tokens: u64,
    /// The agent version that recorded the session, when it did.
    pub agent_version: Option<String>,
    /// The constants in force and where they come from, e.g. "Claude Code 2.1.7:
    /// 200,000 − min(64,000, 32,000) − 13,000 = 155,000".
    pub constants: String,
    /// Threshold of the algorithm in real tokens, when it has one (for plots).
    pub threshold: Option<u64>,
    /// `recorded` when anchored to recorded usage, `estimated` otherwise.
    pub basis: &'static str,
    /// The estimator → recorded mapping fitted on this session.
    pub calibration: Calibration,
    pub requests: usize,
    pub totals: Totals,
    /// Events the algorithm decided (failed attempts and followed compactions excluded).
    pub compressions: usize,
    /// Compactions the agent recorded that the replay followed ([`Event::forced`]).
    pub followed: usize,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fidelity: Option<Fidelity>,
    /// The three series in dollars with prompt caching ([`cost`]).
    pub cost: cost::ReplayCost,
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
    /// Replaying the session's own agent at its own settings: follow every compaction the
    /// agent recorded (see [`Event::forced`]). Set by the caller when no setting, window or
    /// summary size was overridden.
    pub follow_recording: bool,
}

/// `a − b` as a signed figure, held to the range of i64.
pub fn difference(a: u64, b: u64) -> i64 {
    (i128::from(a) - i128::from(b)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
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
        // Codex before 0.35 never compacted on its own: no threshold to draw.
        Algorithm::Codex => Some(codex::limit(ctx)).filter(|&l| l != u64::MAX),
        // Compaction turned off (`enabled=false`): no threshold to draw, as for Codex.
        Algorithm::Pi => ctx.settings.flag("enabled").then(|| {
            ctx.limits
                .context_window
                .saturating_sub(ctx.settings.int("reserve_tokens"))
        }),
        Algorithm::OpenclawPrune => {
            Some((ctx.settings.num("soft_trim_ratio") * ctx.limits.context_window as f64) as u64)
        }
    }
}

#[cfg(test)]
mod tests;

/// Tokens an image is assumed to cost where the algorithm has no rule of its own (Claude,
/// Codex): Anthropic's ~1,600 tokens for a typical screenshot-sized image.
pub const IMAGE_TOKENS: u64 = 1_600;

/// `ceil(UTF-8 bytes / 4)` of everything model-visible in an item: text, thinking, tool call
/// names and arguments, tool outputs; images at [`IMAGE_TOKENS`]. Codex's own estimator, and
/// the neutral one for Claude Code, which publishes none.
/// `v.to_string().len()`: every replay sizes every tool call's arguments with it.
fn compact_json_len<T: JsonTree + ?Sized>(v: &T) -> usize {
    compact_json_size(v, js::JsonUnits::Bytes)
}

/// The size of `v.to_string()` (serde_json's compact form: keys as the map holds them, numbers
/// as serde_json prints them), counted from the value rather than printed.
pub(crate) fn compact_json_size<T: JsonTree + ?Sized>(v: &T, units: js::JsonUnits) -> usize {
    js::json_text_size(v, units, &|n| n.to_string().len())
}

/// Each item's [`bytes4_tokens`] in push order, kept for another instance to reuse
/// ([`Strategy::take_measured`]): Claude Code's and Codex's replays push each item once in
/// the calibration's pass and once in the replay, and sizing a tool call's input as JSON is
/// most of a push.
#[derive(Default)]
pub struct Bytes4 {
    tokens: Vec<u64>,
    /// Items pushed so far.
    next: usize,
}

impl Bytes4 {
    /// The next item's [`bytes4_tokens`], measured by the pushes of the instance these sizes
    /// came from or now.
    pub fn next(&mut self, item: &HistoryItem) -> u64 {
        let k = self.next;
        self.next += 1;
        if let Some(&t) = self.tokens.get(k) {
            return t;
        }
        let t = bytes4_tokens(item);
        self.tokens.push(t);
        t
    }

    /// The sizes, for [`Strategy::take_measured`].
    pub fn take(&mut self) -> Option<Measured> {
        Measured::take(&mut self.tokens)
    }

    /// The sizes another instance measured, for [`Strategy::reuse_measured`].
    pub fn reuse(measured: Measured) -> Bytes4 {
        let mut b = Bytes4::default();
        measured.reuse_into(&mut b.tokens);
        b
    }
}

pub fn bytes4_tokens(item: &HistoryItem) -> u64 {
    let mut bytes = 0usize;
    let mut images = 0u64;
    for p in &item.parts {
        match p {
            Part::Text { text } | Part::Thinking { text } => bytes += text.len(),
            Part::ToolCall { name, input, .. } => {
                bytes += name.len();
                bytes += match input.as_str() {
                    Some(s) => s.len(),
                    None => compact_json_len(input.tree()),
                };
            }
            Part::ToolResult {
                output,
                attachments,
                output_size,
                ..
            } => {
                bytes += output_size.map_or(output.len(), |s| s.bytes as usize);
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
