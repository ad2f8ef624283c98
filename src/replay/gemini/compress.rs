//! A pure port of `ChatCompressionService.compress` (spec §1.4) over whole histories: the
//! reference the golden vectors check and the incremental replay is tested against.
//!
//! 1. Empty history → NOOP.
//! 2. `original` = the previous request's prompt count; below `threshold × tokenLimit` (and
//!    not forced) → NOOP.
//! 3. Reverse-budget truncation of the whole history.
//! 4. After a failed attempt (not forced): the truncated history replaces the old one when its
//!    estimate is below `original` (CONTENT_TRUNCATED), else NOOP; no LLM call.
//! 5. Split at `1 − 0.3`; nothing before it → NOOP.
//! 6. The summariser gets the original slice when its estimate is below the token limit, else
//!    the truncated slice; two calls (summary, verification probe).
//! 7. Empty final summary → COMPRESSION_FAILED_EMPTY_SUMMARY.
//! 8. New history = [user summary, model ack, …kept truncated tail], counted with a fresh
//!    environment turn in front; more tokens than `original` →
//!    COMPRESSION_FAILED_INFLATED_TOKEN_COUNT, else COMPRESSED.

use super::estimate::{Estimator, estimate_token_count_sync};
use super::json::{J, JsStr, js_trim};
use super::split::find_compress_split_point;
use super::truncate::{TruncStyle, truncate_history_to_budget};

/// `DEFAULT_COMPRESSION_TOKEN_THRESHOLD`.
pub const DEFAULT_COMPRESSION_TOKEN_THRESHOLD: f64 = 0.5;
/// `COMPRESSION_PRESERVE_THRESHOLD`: the split fraction is `1 − 0.3`.
pub const COMPRESSION_PRESERVE_THRESHOLD: f64 = 0.3;
/// The model's acknowledgement after the snapshot.
pub const ACK: &str = "Got it. Thanks for the additional context!";
/// Substring that marks an earlier snapshot in the summariser's input.
pub const SNAPSHOT_TAG: &str = "<state_snapshot>";
pub const ANCHOR_MERGE: &str = "A previous <state_snapshot> exists in the history. You MUST integrate all still-relevant information from that snapshot into the new one, updating it with the more recent events. Do not lose established constraints or critical knowledge.";
pub const ANCHOR_NEW: &str = "Generate a new <state_snapshot> based on the provided history.";
pub const SCRATCHPAD: &str =
    "\n\nFirst, reason in your scratchpad. Then, generate the updated <state_snapshot>.";
/// The summariser's instruction before v0.26 (one call, no probe).
pub const LEGACY_INSTRUCTION: &str =
    "First, reason in your scratchpad. Then, generate the <state_snapshot>.";
pub const PROBE: &str = "Critically evaluate the <state_snapshot> you just generated. Did you omit any specific technical details, file paths, tool results, or user constraints mentioned in the history? If anything is missing or could be more precise, generate a FINAL, improved <state_snapshot>. Otherwise, repeat the exact same <state_snapshot> again.";

/// `enum CompressionStatus` (`core/turn.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompressionStatus {
    Compressed = 1,
    FailedInflatedTokenCount = 2,
    FailedTokenCountError = 3,
    FailedEmptySummary = 4,
    Noop = 5,
    ContentTruncated = 6,
}

#[derive(Debug, Clone)]
pub struct CompressOptions {
    pub force: bool,
    /// Already resolved (`getCompressionThreshold() ?? 0.5`).
    pub threshold: f64,
    pub token_limit: u64,
    pub has_failed: bool,
    pub budget: u64,
    pub max_chars: i64,
    /// How an output past the budget is cut (v0.26–v0.28: by lines).
    pub style: TruncStyle,
    pub preserve: f64,
    pub estimator: Estimator,
}

#[derive(Debug, Clone)]
pub struct CompressOutput {
    pub status: CompressionStatus,
    pub original: u64,
    pub new: u64,
    pub new_history: Option<Vec<J>>,
    /// The contents of each summariser call made.
    pub calls: Vec<Vec<J>>,
}

fn text_part(s: JsStr) -> J {
    J::obj(vec![("text", J::Str(s))])
}

pub fn content(role: &str, parts: Vec<J>) -> J {
    J::obj(vec![("role", J::str(role)), ("parts", J::Arr(parts))])
}

fn all_parts(h: &[J]) -> Vec<J> {
    h.iter()
        .filter_map(|c| c.get("parts").and_then(J::as_array))
        .flatten()
        .cloned()
        .collect()
}

/// `historyForSummarizer.some(c => c.parts?.some(p => p.text?.includes('<state_snapshot>')))`.
pub fn has_snapshot(h: &[J]) -> bool {
    all_parts(h)
        .iter()
        .any(|p| matches!(p.get("text"), Some(J::Str(t)) if t.contains(SNAPSHOT_TAG)))
}

/// `(s ?? '').trim()` of a response text.
fn trimmed(s: Option<&JsStr>) -> JsStr {
    match s {
        Some(s) => JsStr::from_units(js_trim(&s.to_units()).to_vec()),
        None => JsStr::default(),
    }
}

/// `compress(chat, …)`. `summary` / `probe` are the two responses' texts (`None` = no text);
/// `env_text` the environment turn `getInitialChatHistory` puts in front for the count.
pub fn compress(
    curated: &[J],
    last_prompt: u64,
    o: &CompressOptions,
    env_text: &JsStr,
    summary: Option<&JsStr>,
    probe: Option<&JsStr>,
    save: &mut dyn FnMut(Option<&str>) -> Option<String>,
) -> CompressOutput {
    let w = o.estimator;
    let noop = |orig: u64, calls: Vec<Vec<J>>| CompressOutput {
        status: CompressionStatus::Noop,
        original: orig,
        new: orig,
        new_history: None,
        calls,
    };
    if curated.is_empty() {
        return noop(0, Vec::new());
    }
    let original = last_prompt;
    if !o.force && (original as f64) < o.threshold * o.token_limit as f64 {
        return noop(original, Vec::new());
    }
    let truncated = truncate_history_to_budget(curated, o.budget, o.max_chars, o.style, w, save);
    if o.has_failed && !o.force {
        let t = estimate_token_count_sync(&all_parts(&truncated), w);
        if t < original {
            return CompressOutput {
                status: CompressionStatus::ContentTruncated,
                original,
                new: t,
                new_history: Some(truncated),
                calls: Vec::new(),
            };
        }
        return noop(original, Vec::new());
    }
    let split = find_compress_split_point(&truncated, 1.0 - o.preserve).unwrap_or(0);
    if split == 0 {
        return noop(original, Vec::new());
    }
    let orig_slice = &curated[..split];
    let for_summarizer: Vec<J> =
        if estimate_token_count_sync(&all_parts(orig_slice), w) < o.token_limit {
            orig_slice.to_vec()
        } else {
            truncated[..split].to_vec()
        };
    let anchor = if has_snapshot(&for_summarizer) {
        ANCHOR_MERGE
    } else {
        ANCHOR_NEW
    };
    let mut call1 = for_summarizer.clone();
    call1.push(content(
        "user",
        vec![text_part(JsStr::Text(format!("{anchor}{SCRATCHPAD}")))],
    ));
    let summary_text = summary.cloned().unwrap_or_default();
    let mut call2 = for_summarizer;
    call2.push(content("model", vec![text_part(summary_text.clone())]));
    call2.push(content("user", vec![text_part(PROBE.into())]));
    let calls = vec![call1, call2];
    let probe_trimmed = trimmed(probe);
    let final_summary = if probe_trimmed.is_empty() {
        trimmed(Some(&summary_text))
    } else {
        probe_trimmed
    };
    if final_summary.is_empty() {
        return CompressOutput {
            status: CompressionStatus::FailedEmptySummary,
            ..noop(original, calls)
        };
    }
    let mut extra = vec![
        content("user", vec![text_part(final_summary)]),
        content("model", vec![text_part(ACK.into())]),
    ];
    extra.extend_from_slice(&truncated[split..]);
    let mut full = vec![content("user", vec![text_part(env_text.clone())])];
    full.extend(extra.iter().cloned());
    let new = estimate_token_count_sync(&all_parts(&full), w);
    if new > original {
        return CompressOutput {
            status: CompressionStatus::FailedInflatedTokenCount,
            original,
            new,
            new_history: None,
            calls,
        };
    }
    CompressOutput {
        status: CompressionStatus::Compressed,
        original,
        new,
        new_history: Some(extra),
        calls,
    }
}
