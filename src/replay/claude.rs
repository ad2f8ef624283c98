//! Claude Code auto-compact (pruning-compaction.md §C.1, constants by version in
//! [`versions`]).
//!
//! Before every API request Claude Code measures the context as the last response's usage
//! (input + cache read + cache write + output) plus an estimate of the messages added since,
//! and compacts when that reaches `window − min(max_output, cap) − buffer`: 155,000 of a 200k
//! window in versions that capped the output reserve at 32,000, 167,000 once the cap became
//! 20,000. Classic compaction keeps no verbatim tail, only the summary. `autocompact_pct`
//! mirrors `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, a percentage of the effective window that can
//! only lower the threshold.

use crate::model::{Part, Role};
use crate::replay::settings::Spec;
use crate::replay::versions::{self, ClaudeConstants, ClaudeMeasure, Version};
use crate::replay::window::WindowSource;
use crate::replay::{
    Bytes4, Event, EventKind, HistoryItem, RequestInfo, Strategy, StrategyContext,
};

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
        "cap on the output reserve (0 = as the recorded version: 32,000 before 2.1.21, then 20,000)",
    ),
    Spec::integer(
        "buffer_tokens",
        0.0,
        0.0,
        10_000_000.0,
        "AUTOCOMPACT_BUFFER_TOKENS (0 = as the recorded version: 13,000)",
    ),
];

/// The constants in force for a session: the recorded version's row of the version table,
/// then `--context-window` and the settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Constants {
    pub table: ClaudeConstants,
    pub window: u64,
    pub max_output: u64,
    pub cap: u64,
    pub buffer: u64,
    /// The version's formula with the settings that replace its terms (`max_output_cap`,
    /// `buffer_tokens`): the threshold unless `autocompact_pct` lowers it.
    pub formula: u64,
    /// `autocompact_pct` when it lowered the threshold below the formula.
    pub lowered_to_pct: Option<f64>,
    /// The window less the output reservation, which `autocompact_pct` takes its share of.
    pub effective_window: u64,
    pub threshold: u64,
}

pub fn constants(ctx: &StrategyContext) -> Constants {
    let mut table = versions::claude(ctx.agent_version.as_deref(), ctx.model.as_deref());
    // A Claude session's window is its version's rule (the flat 180,000 of 1.0.0–1.0.15
    // included); another agent's session compacts within the window it had.
    if ctx.limits.source == WindowSource::Override || !ctx.native {
        table.context_window = ctx.limits.context_window;
    }
    // Likewise its maximum output; a Claude session's limits hold its version's own figure.
    if !ctx.native {
        table.max_output = ctx.limits.max_output;
    }
    let mut c = table;
    if let n @ 1.. = ctx.settings.int("max_output_cap") {
        c.max_output_cap = n;
    }
    if let n @ 1.. = ctx.settings.int("buffer_tokens") {
        c.buffer = n;
    }
    let pct = ctx.settings.num("autocompact_pct");
    let threshold = c.threshold_with((pct < 100.0).then_some(pct), None);
    let formula = c.threshold();
    Constants {
        table,
        window: c.context_window,
        max_output: c.max_output,
        cap: c.max_output_cap,
        buffer: c.buffer,
        formula,
        lowered_to_pct: (threshold < formula).then_some(pct),
        effective_window: c.effective_window(),
        threshold,
    }
}

/// The auto-compact threshold in context tokens.
pub fn threshold(ctx: &StrategyContext) -> u64 {
    constants(ctx).threshold
}

/// How the threshold was computed, for the report.
pub fn describe(ctx: &StrategyContext) -> String {
    let c = constants(ctx);
    let version = match ctx.agent_version.as_deref() {
        Some(v) if c.table.version_known => v.to_string(),
        Some(v) => format!("{v} (unparsable: newest)"),
        None => "(newest)".to_string(),
    };
    // The versions that cap no output reservation reserve it whole.
    let reserved = if c.cap == u64::MAX {
        c.max_output.to_string()
    } else {
        format!("min({}, {})", c.max_output, c.cap)
    };
    let formula = match c.table.ratio_percent {
        Some(p) => format!(
            "Claude Code {version}: {p}% of ({} − {reserved}) = {}",
            c.window, c.formula
        ),
        None => format!(
            "Claude Code {version}: {} − {reserved} − {} = {}",
            c.window, c.buffer, c.formula
        ),
    };
    match c.lowered_to_pct {
        Some(pct) => format!(
            "{formula}, lowered by autocompact_pct to {pct}% of {} = {}",
            c.effective_window, c.threshold
        ),
        // Before 1.0.71 the threshold is a ratio of the window: no buffer, no override.
        None if c.table.ratio_percent.is_some()
            && (ctx.settings.int("buffer_tokens") > 0
                || ctx.settings.num("autocompact_pct") < 100.0) =>
        {
            format!("{formula} (buffer_tokens and autocompact_pct apply from 1.0.71)")
        }
        None => formula,
    }
}

/// `Math.round(n / 4)` for a non-negative integer.
fn round_quarter(n: usize) -> u64 {
    (n as u64 + 2) / 4
}

/// Claude Code's estimate of a text: a quarter of its length in UTF-16 code units, rounded.
fn estimate_str(s: &str) -> u64 {
    round_quarter(crate::replay::js::utf16_len(s))
}

/// Claude Code's estimate of a message added since the last response (docs/versions.md, "What
/// the check compares"): text and tool results by length, images at a flat rate, and — only
/// from 2.1.74 — tool calls, thinking and unknown blocks.
pub fn estimate(item: &HistoryItem, m: &ClaudeMeasure) -> u64 {
    let all = m.estimates_all_blocks;
    item.parts
        .iter()
        .map(|p| {
            if let Some(media) = media_tokens(p, m) {
                return media;
            }
            match p {
                Part::Text { text } => estimate_str(text),
                Part::Thinking { text } if all => estimate_str(text),
                Part::ToolCall { name, input, .. } if all => {
                    let json = match input.as_str() {
                        Some(s) => crate::replay::js::utf16_len(s),
                        None => crate::replay::compact_json_size(
                            input.tree(),
                            crate::replay::js::JsonUnits::Utf16,
                        ),
                    };
                    round_quarter(crate::replay::js::utf16_len(name) + json)
                }
                Part::ToolResult {
                    output,
                    attachments,
                    output_size,
                    ..
                } => {
                    let media: u64 = attachments
                        .iter()
                        .map(|a| media_tokens(a, m).unwrap_or(0))
                        .sum();
                    let units = output_size.map_or_else(
                        || crate::replay::js::utf16_len(output),
                        |s| s.utf16 as usize,
                    );
                    round_quarter(units) + media
                }
                Part::Unknown { raw, .. } if all => estimate_str(&raw.to_string()),
                _ => 0,
            }
        })
        .sum()
}

/// What an image or a `document` block (a PDF, base64 in its JSON) costs, standing alone or
/// attached to a tool result: what Claude Code counts for it, never its JSON's length. `None`
/// for any other part.
fn media_tokens(p: &Part, m: &ClaudeMeasure) -> Option<u64> {
    match p {
        Part::Image { media_type, .. } => Some(m.media_tokens(media_type.as_deref())),
        Part::Unknown { kind, .. } if kind == "document" => Some(m.document_tokens()),
        _ => None,
    }
}

pub struct Claude {
    /// Each item's size, measured once for the calibration's pass and the replay.
    bytes4: Bytes4,
    threshold: u64,
    summary: u64,
    full: u64,
    context: u64,
    items: usize,
    /// What the recorded version's measure adds to the last response's usage.
    measure_rules: ClaudeMeasure,
    /// Claude Code's estimate of the messages after the last assistant message.
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

/// Whether the agent measured more than the transcript shows: from 2.1.2x the check that fires
/// often counts content never written (its `logicalParentUuid` names a record missing from the
/// file) and responses' final output counts, while the transcript keeps the first streamed
/// chunk's. The replay then adds the output this session's responses typically had, inferred
/// from the growth of the recorded prompts. The boundary is evidence, not source: on the real
/// corpus (2.1.5–2.1.19 and 2.1.29–2.1.42) inferring it for the older builds moves one
/// compaction 24 requests early, and not inferring it for the newer ones misses one; 2.1.21 is
/// where the output reserve changed too. Unknown versions are taken as the newest.
fn hides_output(version: Option<&str>) -> bool {
    version
        .and_then(Version::parse)
        .is_none_or(|v| v >= Version::new(2, 1, 21))
}

/// How many recent responses the expected hidden output is the median of.
const INFERRED_WINDOW: usize = 8;

impl Claude {
    pub fn new(ctx: &StrategyContext) -> Self {
        Claude {
            bytes4: Bytes4::default(),
            threshold: threshold(ctx),
            summary: ctx.summary_tokens,
            full: 0,
            context: 0,
            items: 0,
            measure_rules: constants(ctx).table.measure,
            since_response: 0,
            hidden_output: hides_output(ctx.agent_version.as_deref()),
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
        let trailing = if self.measure_rules.estimates_trailing {
            self.since_response
        } else {
            0
        };
        match req.prev_prompt {
            Some(p) => p
                .saturating_add(self.prev_output(req))
                .saturating_add(trailing),
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
        let t = self.bytes4.next(item);
        self.full = self.full.saturating_add(t);
        self.context = self.context.saturating_add(t);
        self.items += 1;
        if item.role == Role::Assistant {
            self.since_response = 0;
        } else {
            self.since_response = self
                .since_response
                .saturating_add(estimate(item, &self.measure_rules));
        }
    }

    fn push_unmanaged(&mut self, item: &HistoryItem) {
        let t = self.bytes4.next(item);
        self.full = self.full.saturating_add(t);
    }

    fn take_measured(&mut self) -> Option<crate::replay::Measured> {
        self.bytes4.take()
    }

    fn reuse_measured(&mut self, measured: crate::replay::Measured) {
        self.bytes4 = Bytes4::reuse(measured);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::versions;

    fn item(role: Role, parts: Vec<Part>) -> HistoryItem {
        HistoryItem {
            role,
            is_human: false,
            timestamp: None,
            model: None,
            tool_names: vec![None; parts.len()],
            parts,
            is_context: false,
        }
    }

    #[test]
    fn the_estimate_rounds_a_quarter_of_utf16_units_per_block() {
        let m = versions::claude(Some("2.1.37"), Some("claude-opus-4-6")).measure;
        let text = |t: &str| Part::Text { text: t.into() };
        // 5 units → 1.25 → 1; 6 → 1.5 → 2 (Math.round); per block, not per message.
        let it = item(Role::User, vec![text("abcde"), text("abcdef")]);
        assert_eq!(estimate(&it, &m), 1 + 2);
        // "é" is one UTF-16 unit (two UTF-8 bytes); "😀" is two units (four bytes).
        let it = item(Role::User, vec![text("éééééé"), text("😀😀😀")]);
        assert_eq!(estimate(&it, &m), 2 + 2);
    }

    #[test]
    fn tool_calls_and_thinking_count_only_from_2_1_74() {
        let parts = vec![
            Part::ToolCall {
                id: "t".into(),
                name: "Bash".into(),
                input: serde_json::json!({"command": "ls -la"}).into(),
            },
            Part::Thinking {
                text: "x".repeat(400),
            },
            Part::Image {
                media_type: None,
                bytes: None,
                data: None,
                url: None,
            },
        ];
        let it = item(Role::Assistant, parts);
        let old = versions::claude(Some("2.1.37"), None).measure;
        assert_eq!(estimate(&it, &old), 1_334, "only the image counts");
        let new = versions::claude(Some("2.1.74"), None).measure;
        // "Bash" + {"command":"ls -la"} = 4 + 20 units → 6; thinking 100; image 2,000.
        assert_eq!(estimate(&it, &new), 6 + 100 + 2_000);
    }

    /// A `document` block (a PDF, its base64 in its JSON) costs 2,000 from 2.1.74 and
    /// nothing before, standing alone or inside a tool result: never its JSON's length.
    #[test]
    fn a_document_costs_what_claude_code_counts_it() {
        let doc = || Part::Unknown {
            kind: "document".into(),
            raw: serde_json::json!({"type": "document", "source": {"type": "base64",
                "media_type": "application/pdf", "data": "JVBERi0x".repeat(50_000)}}),
        };
        let result = Part::ToolResult {
            call_id: "t".into(),
            output: String::new(),
            is_error: false,
            attachments: vec![doc()],
            output_size: None,
        };
        let it = item(Role::Tool, vec![doc(), result]);
        let old = versions::claude(Some("2.1.73"), None).measure;
        assert_eq!(estimate(&it, &old), 0);
        let new = versions::claude(Some("2.1.74"), None).measure;
        assert_eq!(estimate(&it, &new), 2 * 2_000);
    }

    #[test]
    fn tool_results_count_with_their_images() {
        let m = versions::claude(Some("2.1.19"), None).measure;
        let it = item(
            Role::Tool,
            vec![Part::ToolResult {
                call_id: "t".into(),
                output: "y".repeat(41),
                is_error: false,
                attachments: vec![Part::Image {
                    media_type: None,
                    bytes: None,
                    data: None,
                    url: None,
                }],
                output_size: None,
            }],
        );
        assert_eq!(estimate(&it, &m), 10 + 1_334);
    }
}
