//! Gemini CLI's compression constants by era and model.

use super::*;

/// What a Gemini session file tells about the CLI version that wrote it. Files record no
/// version (`gemini-compression.md` §5); the record format bounds it, and the session's start
/// date bounds it further (a file cannot be newer than the release that wrote it; the newest
/// release out by then is the best guess).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GeminiEra {
    pub format: Option<GeminiFormat>,
    /// The session's `startTime` date (UTC) as (year, month, day).
    pub started: Option<(i32, u32, u32)>,
    /// An `info` message `Context compressed from X% to Y%.` was seen (v0.33+).
    pub saw_percent_compression_notice: bool,
    /// The oldest release that knows every model the file used (see [`gemini_model_since`]).
    pub models_since: Option<Version>,
}

/// The first release whose model list names `model` (google-gemini/gemini-cli
/// `packages/core/src/config/models.ts` by tag): a file that used it was written by that
/// release or a later one. `None` for models known from the start or unknown.
pub fn gemini_model_since(model: &str) -> Option<Version> {
    match model.to_ascii_lowercase().as_str() {
        "gemini-3-pro-preview" => Some(Version::new(0, 16, 0)),
        "gemini-3-flash-preview" => Some(Version::new(0, 21, 1)),
        "gemini-3.1-pro-preview" => Some(Version::new(0, 29, 4)),
        _ => None,
    }
}

/// The session file layout (`formats.md` §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeminiFormat {
    /// One pretty-printed JSON document (`.json`): v0.4–v0.38.
    LegacyJson,
    /// Append-only JSONL, tool results only inside gemini messages: v0.39–v0.43.
    Jsonl,
    /// JSONL with functionResponse `user` records and `$set.messages` checkpoints: v0.44+.
    JsonlCheckpoints,
    /// JSONL with neither a tool result nor a checkpoint: v0.39+. A v0.44+ log of a session
    /// that ran no tool and never compressed looks the same as a v0.39 one.
    JsonlUnmarked,
}

impl GeminiFormat {
    /// The format a file's layout shows.
    pub fn of(layout: &crate::model::GeminiLayout) -> GeminiFormat {
        if layout.document {
            GeminiFormat::LegacyJson
        } else if layout.checkpoints {
            GeminiFormat::JsonlCheckpoints
        } else if layout.tool_results {
            GeminiFormat::Jsonl
        } else {
            GeminiFormat::JsonlUnmarked
        }
    }
}

/// Gemini CLI's compression constants for one era and model.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GeminiConstants {
    /// Compression runs when the previous prompt's token count is ≥ threshold × token_limit.
    pub threshold: f64,
    pub token_limit: u64,
    /// Tokens per non-ASCII UTF-16 unit in the local estimate (ASCII: 0.25).
    pub non_ascii_weight: f64,
    /// Tool-output masking runs (on by default from v0.30, unconditional from v0.37).
    pub masking: bool,
    /// After an inflated automatic compression, later triggers only truncate old tool output
    /// (v0.31+); before, auto-compression stays off until the chat is re-created.
    pub truncation_only_after_failure: bool,
    /// Thought stripping and same-role turn coalescing before compression (v0.53+).
    pub coalesce_turns: bool,
    /// The trigger compares the previous response's `promptTokenCount` (v0.8+); before, a
    /// `countTokens` call over the curated history.
    pub trigger_uses_last_prompt_tokens: bool,
    /// `truncateHistoryToBudget` runs before the split (v0.26+, 1182168bd9).
    pub reverse_budget_truncation: bool,
    /// That truncation keeps the last 30 lines (v0.26–v0.28); from v0.29 (28805a4b2d) the
    /// first 20% and last 80% of `maxChars` characters.
    pub truncate_last_lines: bool,
    /// A verification probe follows the summary: two summariser calls (v0.26+, 1182168bd9).
    pub verification_probe: bool,
    /// The estimator counts an image part as 3,000 tokens (v0.23+: c31f05356a, cherry-picked
    /// into v0.23.0); before, its JSON length / 4.
    pub image_estimate: bool,
    /// The estimator counts a PDF part as 25,800 tokens (v0.26+, c8d7c09ca4).
    pub pdf_estimate: bool,
    /// The estimator counts a text over 100,000 UTF-16 units as length / 4 (v0.26+,
    /// ee8d425603).
    pub long_text_fast_path: bool,
    /// The estimator iterates text per code point, an astral character counting once (before
    /// v0.28; f605628624 iterates UTF-16 units).
    pub astral_counts_once: bool,
    /// The estimator counts a function response by name, response and nested parts (v0.28+,
    /// f605628624); before, by the whole part's JSON length.
    pub function_response_estimate: bool,
    /// The version this era was resolved to (the newest release compatible with the file).
    pub version: Version,
    pub era: &'static str,
    pub evidence: &'static str,
}

/// Gemini CLI releases and their tag dates (google-gemini/gemini-cli, `git log -1 --format=%cs
/// <tag>`), the first stable tag of each minor line. The newest release on or before a
/// session's start date is the version assumed.
pub(super) static GEMINI_RELEASES: &[((i32, u32, u32), Version)] = &[
    ((2025, 6, 27), Version::new(0, 1, 6)),
    ((2025, 8, 27), Version::new(0, 2, 0)),
    ((2025, 9, 4), Version::new(0, 3, 0)),
    ((2025, 9, 9), Version::new(0, 4, 0)),
    ((2025, 9, 17), Version::new(0, 5, 3)),
    ((2025, 9, 24), Version::new(0, 6, 0)),
    ((2025, 10, 1), Version::new(0, 7, 0)),
    ((2025, 10, 7), Version::new(0, 8, 0)),
    ((2025, 10, 15), Version::new(0, 9, 0)),
    ((2025, 10, 22), Version::new(0, 10, 0)),
    ((2025, 10, 29), Version::new(0, 11, 0)),
    ((2025, 10, 31), Version::new(0, 11, 3)),
    ((2025, 11, 4), Version::new(0, 12, 0)),
    ((2025, 11, 7), Version::new(0, 13, 0)),
    ((2025, 11, 12), Version::new(0, 14, 0)),
    ((2025, 11, 14), Version::new(0, 15, 0)),
    ((2025, 11, 18), Version::new(0, 16, 0)),
    ((2025, 11, 20), Version::new(0, 17, 0)),
    ((2025, 11, 26), Version::new(0, 18, 0)),
    ((2025, 12, 2), Version::new(0, 19, 0)),
    ((2025, 12, 9), Version::new(0, 20, 0)),
    ((2025, 12, 16), Version::new(0, 21, 0)),
    ((2025, 12, 22), Version::new(0, 22, 0)),
    ((2026, 1, 7), Version::new(0, 23, 0)),
    ((2026, 1, 14), Version::new(0, 24, 0)),
    ((2026, 1, 21), Version::new(0, 25, 0)),
    ((2026, 1, 28), Version::new(0, 26, 0)),
    ((2026, 2, 4), Version::new(0, 27, 0)),
    ((2026, 2, 10), Version::new(0, 28, 0)),
    ((2026, 2, 17), Version::new(0, 29, 0)),
    ((2026, 2, 25), Version::new(0, 30, 0)),
    ((2026, 2, 27), Version::new(0, 31, 0)),
    ((2026, 3, 3), Version::new(0, 32, 0)),
    ((2026, 3, 11), Version::new(0, 33, 0)),
    ((2026, 3, 17), Version::new(0, 34, 0)),
    ((2026, 3, 24), Version::new(0, 35, 0)),
    ((2026, 4, 1), Version::new(0, 36, 0)),
    ((2026, 4, 8), Version::new(0, 37, 0)),
    ((2026, 4, 14), Version::new(0, 38, 0)),
    ((2026, 4, 23), Version::new(0, 39, 0)),
    ((2026, 4, 28), Version::new(0, 40, 0)),
    ((2026, 5, 5), Version::new(0, 41, 0)),
    ((2026, 5, 12), Version::new(0, 42, 0)),
    ((2026, 5, 22), Version::new(0, 43, 0)),
    ((2026, 5, 27), Version::new(0, 44, 0)),
    ((2026, 6, 3), Version::new(0, 45, 0)),
    ((2026, 6, 10), Version::new(0, 46, 0)),
    ((2026, 6, 18), Version::new(0, 47, 0)),
    ((2026, 6, 25), Version::new(0, 49, 0)),
    ((2026, 7, 8), Version::new(0, 50, 0)),
    ((2026, 7, 16), Version::new(0, 51, 0)),
    ((2026, 7, 22), Version::new(0, 52, 0)),
    ((2026, 7, 28), Version::new(0, 53, 0)),
    ((2026, 8, 6), Version::new(0, 54, 0)),
    ((2026, 8, 11), Version::new(0, 55, 1)),
    ((2026, 8, 19), Version::new(0, 56, 0)),
];

pub(super) const GEMINI_NEWEST: Version = Version::new(0, 56, 0);

impl GeminiEra {
    /// The version range the file's format allows.
    pub fn format_bounds(&self) -> (Version, Version) {
        match self.format {
            Some(GeminiFormat::LegacyJson) => (Version::new(0, 4, 0), Version::new(0, 38, 2)),
            Some(GeminiFormat::Jsonl) => (Version::new(0, 39, 0), Version::new(0, 43, 0)),
            Some(GeminiFormat::JsonlCheckpoints) => (Version::new(0, 44, 0), GEMINI_NEWEST),
            Some(GeminiFormat::JsonlUnmarked) => (Version::new(0, 39, 0), GEMINI_NEWEST),
            None => (Version::new(0, 0, 0), GEMINI_NEWEST),
        }
    }

    /// Record a model the file used (raises [`GeminiEra::models_since`]).
    pub fn saw_model(&mut self, model: &str) {
        if let Some(v) = gemini_model_since(model) {
            self.models_since = Some(self.models_since.map_or(v, |m| m.max(v)));
        }
    }

    /// The version assumed: the newest release out on the start date, clamped to the format's
    /// range (and raised to v0.33 when the percent notice was seen, and to the release that
    /// introduced the newest model used); without a date, the newest version the format allows.
    pub fn version(&self) -> Version {
        let (mut lo, hi) = self.format_bounds();
        if self.saw_percent_compression_notice {
            lo = lo.max(Version::new(0, 33, 0));
        }
        if let Some(m) = self.models_since {
            lo = lo.max(m);
        }
        let by_date = self.started.and_then(|d| {
            GEMINI_RELEASES
                .iter()
                .rev()
                .find(|(day, _)| *day <= d)
                .map(|(_, v)| *v)
        });
        by_date.unwrap_or(hi).clamp(lo, hi.max(lo))
    }
}

/// Gemini `tokenLimit(model)` for a version: 1,048,576 for every Gemini model; 256,000 for
/// Gemma 4 (v0.41+); before v0.25 also `gemini-1.5-pro` 2,097,152 and
/// `gemini-2.0-flash-preview-image-generation` 32,000.
fn gemini_token_limit(v: Version, model: Option<&str>) -> u64 {
    let m = model.unwrap_or("").to_ascii_lowercase();
    if v < Version::new(0, 25, 0) {
        if m == "gemini-1.5-pro" {
            return 2_097_152;
        }
        if m == "gemini-2.0-flash-preview-image-generation" {
            return 32_000;
        }
    }
    if v >= Version::new(0, 41, 0) && (m == "gemma-4-31b-it" || m == "gemma-4-26b-a4b-it") {
        return 256_000;
    }
    1_048_576
}

/// Gemini CLI's compression constants for the era a file shows and the model it used.
pub fn gemini(era_hint: GeminiEra, model: Option<&str>) -> GeminiConstants {
    let v = era_hint.version();
    let at = |x, y, z| v >= Version::new(x, y, z);
    let threshold = if at(0, 17, 0) {
        0.5
    } else if at(0, 11, 3) {
        0.2
    } else {
        0.7
    };
    let (era, evidence) = if at(0, 53, 0) {
        (
            "v0.53+: thoughts stripped and turns coalesced before compression",
            "google-gemini/gemini-cli v0.53.0 packages/core/src/core/geminiChat.ts coalesceConsecutiveRoles",
        )
    } else if at(0, 42, 0) {
        (
            "v0.42–v0.52: non-ASCII weight 1.5",
            "google-gemini/gemini-cli v0.42.0 packages/core/src/utils/tokenCalculation.ts NON_ASCII_TOKENS_PER_CHAR = 1.5",
        )
    } else if at(0, 37, 0) {
        (
            "v0.37–v0.41: masking unconditional",
            "google-gemini/gemini-cli v0.37.0 ToolOutputMaskingService with no enabled setting",
        )
    } else if at(0, 31, 0) {
        (
            "v0.31–v0.36: truncation-only mode after a failed compression",
            "google-gemini/gemini-cli v0.31.0 services/chatCompressionService.ts hasFailedCompressionAttempt → CONTENT_TRUNCATED",
        )
    } else if at(0, 30, 0) {
        (
            "v0.30: tool-output masking on by default",
            "google-gemini/gemini-cli v0.30.0 packages/cli/src/config/settingsSchema.ts toolOutputMasking default true",
        )
    } else if at(0, 17, 0) {
        (
            "v0.17–v0.29: threshold 0.5",
            "google-gemini/gemini-cli v0.17.0 services/chatCompressionService.ts DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5 (settings default 0.5)",
        )
    } else if at(0, 11, 3) {
        (
            "v0.11.3–v0.16: threshold 0.2",
            "google-gemini/gemini-cli v0.11.3 services/chatCompressionService.ts DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.2 (settings default 0.2)",
        )
    } else if at(0, 8, 0) {
        (
            "v0.8–v0.11.2: threshold 0.7, last prompt token count",
            "google-gemini/gemini-cli v0.8.0 core/client.ts COMPRESSION_TOKEN_THRESHOLD = 0.7, originalTokenCount = getLastPromptTokenCount()",
        )
    } else {
        (
            "≤ v0.7: threshold 0.7, countTokens over the history",
            "google-gemini/gemini-cli v0.1.10..v0.7.0 core/client.ts COMPRESSION_TOKEN_THRESHOLD = 0.7, countTokens(curatedHistory)",
        )
    };
    GeminiConstants {
        threshold,
        token_limit: gemini_token_limit(v, model),
        non_ascii_weight: if at(0, 42, 0) { 1.5 } else { 1.3 },
        masking: at(0, 30, 0),
        truncation_only_after_failure: at(0, 31, 0),
        coalesce_turns: at(0, 53, 0),
        trigger_uses_last_prompt_tokens: at(0, 8, 0),
        reverse_budget_truncation: at(0, 26, 0),
        truncate_last_lines: at(0, 26, 0) && !at(0, 29, 0),
        verification_probe: at(0, 26, 0),
        image_estimate: at(0, 23, 0),
        pdf_estimate: at(0, 26, 0),
        long_text_fast_path: at(0, 26, 0),
        astral_counts_once: !at(0, 28, 0),
        function_response_estimate: at(0, 28, 0),
        version: v,
        era,
        evidence,
    }
}
