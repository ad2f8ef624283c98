//! Claude Code's auto-compaction constants by version and model.

use super::*;

/// What Claude Code compares with the threshold before each API request.
///
/// `usage(last main-chain assistant record with usage) = input + cache_creation + cache_read
/// (+ output)`, plus, when `estimates_trailing`, `round(chars/4)` of the records after it
/// (tool results, new user input). See `docs/versions.md` for the exact rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ClaudeMeasure {
    /// The usage sum includes `output_tokens` (true in every version read, 1.0.0 on).
    pub includes_output: bool,
    /// Records after the last usage are added as an estimate (`Math.round(length / 4)` per
    /// text). Before this, the measure is the last usage alone.
    pub estimates_trailing: bool,
    /// The estimate also counts `tool_use` (name + JSON input), `thinking`, `redacted_thinking`
    /// and unknown blocks (JSON); images and documents cost 2,000. Before: only text, tool
    /// results (recursively) and images (1,334); every other block 0.
    pub estimates_all_blocks: bool,
    /// The walk back to the last usage steps over the earlier records of the same API response
    /// (same `message.id`), so their content is estimated too.
    pub groups_split_records: bool,
}

impl ClaudeMeasure {
    /// Tokens one image block adds to the estimate.
    pub fn image_tokens(&self) -> u64 {
        if self.estimates_all_blocks {
            2_000
        } else {
            1_334
        }
    }

    /// Tokens a media part adds: an image's ([`image_tokens`](Self::image_tokens)), a
    /// document's (a PDF, read as a media part) 2,000 where every block is estimated and
    /// nothing before.
    pub fn media_tokens(&self, media_type: Option<&str>) -> u64 {
        match crate::model::media_kind(media_type) {
            "image" => self.image_tokens(),
            _ => self.document_tokens(),
        }
    }

    /// Tokens a document block (a PDF) adds: 2,000 where every block is estimated, else none.
    pub fn document_tokens(&self) -> u64 {
        if self.estimates_all_blocks { 2_000 } else { 0 }
    }
}

/// Claude Code's auto-compact trigger for one version and model.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ClaudeConstants {
    /// Context window of the model as this version assumed it (200k; 1M for `[1m]` models and,
    /// in some versions, models that get 1M by default).
    pub context_window: u64,
    /// Output reservation the version assumed for this model with no environment override (its
    /// default max output tokens; in 1.0.x–2.0.x the `CLAUDE_CODE_MAX_OUTPUT_TOKENS` default
    /// for models not singled out).
    pub max_output: u64,
    /// Cap on that reservation: 32,000 (`CLAUDE_CODE_MAX_OUTPUT_TOKENS`'s default) before
    /// 2.1.21, 20,000 from 2.1.21.
    pub max_output_cap: u64,
    /// Tokens kept free below the effective window: 13,000 (0 in the 1.0.x ratio era).
    pub buffer: u64,
    /// 1.0.0–1.0.7x: the threshold was a fraction (92%) of the effective window, not a buffer.
    pub ratio_percent: Option<u64>,
    /// What the check compares (see [`ClaudeMeasure`]).
    pub measure: ClaudeMeasure,
    pub version_known: bool,
    pub evidence: &'static str,
}

impl ClaudeConstants {
    /// The reservation for output: `min(max_output, max_output_cap)`.
    pub fn reserve(&self) -> u64 {
        self.max_output.min(self.max_output_cap)
    }

    /// The effective window: `context_window − reserve`.
    pub fn effective_window(&self) -> u64 {
        self.context_window.saturating_sub(self.reserve())
    }

    /// The auto-compact threshold: compaction runs when the measure is **≥** this.
    /// `window − min(max_output, cap) − buffer`, or in the ratio era
    /// `ceil((window − reserve) × ratio)` (JavaScript compares the float product).
    pub fn threshold(&self) -> u64 {
        match self.ratio_percent {
            Some(p) => {
                let x = self.effective_window() as f64 * (p as f64 / 100.0);
                x.ceil() as u64
            }
            None => self.effective_window().saturating_sub(self.buffer),
        }
    }

    /// The threshold under the two settings a transcript does not record:
    ///
    /// - `window_override` (`CLAUDE_CODE_AUTO_COMPACT_WINDOW` or the `autoCompactWindow`
    ///   setting, 2.1.75+): the window becomes `min(model window, max(100_000, value))`;
    /// - `pct_override` (`CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, 2.0.x+): a percentage of the
    ///   effective window (after the window override), clamped by `min` with the default
    ///   threshold, so it can only lower it. Values outside (0, 100] are ignored, as upstream.
    pub fn threshold_with(&self, pct_override: Option<f64>, window_override: Option<u64>) -> u64 {
        let mut c = *self;
        if let Some(w) = window_override {
            c.context_window = self.context_window.min(w.max(100_000));
        }
        let default = c.threshold();
        match pct_override {
            Some(p) if p > 0.0 && p <= 100.0 && c.ratio_percent.is_none() => {
                let over = (c.effective_window() as f64 * (p / 100.0)).floor() as u64;
                over.min(default)
            }
            _ => default,
        }
    }
}

/// How a row picks the model's max output (the reservation before the cap). Substring tests on
/// the lower-cased model name, first match wins, as the bundles do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClaudeReserve {
    /// 1.0.0–1.0.15: no reservation; the window is a flat 180,000.
    None180k,
    /// 1.0.16–2.0.23: `3-5` or `haiku` 8,192; any other model the
    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS` default, 32,000.
    ThreeFiveOrHaiku,
    /// 2.0.24–2.0.29: only `3-5` is singled out (8,192).
    ThreeFiveOnly,
    /// 2.0.30–2.0.41: `3-5` 8,192; `opus` 32,000; `sonnet-4` / `haiku-4` 64,000; else 32,000.
    Table2030,
    /// 2.0.42–2.1.41: `3-5` 8,192; claude-3-opus 4,096; claude-3-sonnet 8,192;
    /// claude-3-haiku 4,096; `opus-4-5` 64,000 (from 2.0.56); `opus-4` 32,000;
    /// `sonnet-4` / `haiku-4` 64,000; else 32,000.
    Table2042,
    /// 2.1.42–2.1.76: `{default, upperLimit}`, the reservation uses the default:
    /// opus-4-5 / opus-4-6 / sonnet-4 / haiku-4 32,000; opus-4-1 / opus-4 32,000;
    /// claude-3-opus 4,096; claude-3-sonnet 8,192; claude-3-haiku 4,096;
    /// 3-5-sonnet / 3-5-haiku 8,192; 3-7-sonnet 32,000; else 32,000.
    Table2142,
    /// 2.1.77+: opus-4-6 64,000 and sonnet-4-6 32,000 get their own rows (upper limit 128,000);
    /// opus-4-7 {64,000, 128,000} from 2.1.111; from 2.1.122 the tests compare canonical names.
    Table2177,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct ClaudeRow {
    pub(super) from: Version,
    reserve: ClaudeReserve,
    cap: u64,
    buffer: u64,
    ratio_percent: Option<u64>,
    /// Canonical model names that get a 1M window without `[1m]`.
    one_m_default: &'static [&'static str],
    measure: ClaudeMeasure,
    pub(super) evidence: &'static str,
}

const M_USAGE: ClaudeMeasure = ClaudeMeasure {
    includes_output: true,
    estimates_trailing: false,
    estimates_all_blocks: false,
    groups_split_records: false,
};
const M_EST: ClaudeMeasure = ClaudeMeasure {
    estimates_trailing: true,
    ..M_USAGE
};
const M_EST_GROUP: ClaudeMeasure = ClaudeMeasure {
    groups_split_records: true,
    ..M_EST
};
const M_EST_ALL: ClaudeMeasure = ClaudeMeasure {
    estimates_all_blocks: true,
    ..M_EST_GROUP
};

/// Claude Code, from the published bundles (`scripts/versions/claude_code.py`: every 1.0.x,
/// 2.0.x and 2.1.x version up to 2.1.121 was read) and the real transcripts in
/// `../shared/corpus/real/claude_compaction` (whose `preTokens` sit just above the threshold).
pub(super) static CLAUDE: &[ClaudeRow] = &[
    ClaudeRow {
        from: Version::new(0, 0, 0),
        reserve: ClaudeReserve::None180k,
        cap: u64::MAX,
        buffer: 0,
        ratio_percent: Some(92),
        one_m_default: &[],
        measure: M_USAGE,
        evidence: "npm @anthropic-ai/claude-code@1.0.0..1.0.15 cli.js: threshold = 180000 × 0.92, no output reservation; measure = last usage input+cache+output",
    },
    ClaudeRow {
        from: Version::new(1, 0, 16),
        reserve: ClaudeReserve::ThreeFiveOrHaiku,
        cap: u64::MAX,
        buffer: 0,
        ratio_percent: Some(92),
        one_m_default: &[],
        measure: M_USAGE,
        evidence: "npm @anthropic-ai/claude-code@1.0.16..1.0.70 cli.js: threshold = (200000 − reserve) × 0.92; reserve 8192 for `3-5`/`haiku`, else CLAUDE_CODE_MAX_OUTPUT_TOKENS or 32000",
    },
    ClaudeRow {
        from: Version::new(1, 0, 71),
        reserve: ClaudeReserve::ThreeFiveOrHaiku,
        cap: 32_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_USAGE,
        evidence: "npm @anthropic-ai/claude-code@1.0.71 cli.js: threshold = 200000 − reserve − 13000 (buffer replaces the 0.92 ratio)",
    },
    ClaudeRow {
        from: Version::new(2, 0, 24),
        reserve: ClaudeReserve::ThreeFiveOnly,
        cap: 32_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_USAGE,
        evidence: "npm @anthropic-ai/claude-code@2.0.24 cli.js: `haiku` no longer singled out (haiku-4.5: 178808 → 155000)",
    },
    ClaudeRow {
        from: Version::new(2, 0, 30),
        reserve: ClaudeReserve::Table2030,
        cap: 32_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_USAGE,
        evidence: "npm @anthropic-ai/claude-code@2.0.30 cli.js: per-model max output (opus 32000, sonnet-4/haiku-4 64000) under the 32000 env default",
    },
    ClaudeRow {
        from: Version::new(2, 0, 42),
        reserve: ClaudeReserve::Table2042,
        cap: 32_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_USAGE,
        evidence: "npm @anthropic-ai/claude-code@2.0.42 cli.js: claude-3-opus/haiku 4096, claude-3-sonnet 8192 (opus-4-5 64000 from 2.0.56)",
    },
    ClaudeRow {
        from: Version::new(2, 1, 2),
        reserve: ClaudeReserve::Table2042,
        cap: 32_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST,
        evidence: "npm @anthropic-ai/claude-code@2.1.2 cli.js: the measure adds round(len/4) of the records after the last usage; corpus real/claude_compaction 2.1.5–2.1.19: 17 auto compactions, preTokens 155002–157000 over threshold 155000",
    },
    ClaudeRow {
        from: Version::new(2, 1, 21),
        reserve: ClaudeReserve::Table2042,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST,
        evidence: "npm @anthropic-ai/claude-code@2.1.21 cli.js: reserve = min(model max output, 20000) → 167000 (2.1.20 is the last 155000 build); corpus real/claude_compaction 2.1.29–2.1.39: preTokens 167021–182729",
    },
    ClaudeRow {
        from: Version::new(2, 1, 42),
        reserve: ClaudeReserve::Table2142,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST,
        evidence: "npm @anthropic-ai/claude-code@2.1.42 cli.js: max-output table becomes {default, upperLimit}, reserve = min(default, 20000); corpus real/claude_compaction 2.1.42: preTokens 167788, 167415",
    },
    ClaudeRow {
        from: Version::new(2, 1, 64),
        reserve: ClaudeReserve::Table2142,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST_GROUP,
        evidence: "npm @anthropic-ai/claude-code@2.1.64 cli.js: the measure walks back over the split records of the last response (same message.id)",
    },
    ClaudeRow {
        from: Version::new(2, 1, 67),
        reserve: ClaudeReserve::Table2142,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST,
        evidence: "npm @anthropic-ai/claude-code@2.1.67..2.1.68 cli.js: split-record grouping absent again",
    },
    ClaudeRow {
        from: Version::new(2, 1, 69),
        reserve: ClaudeReserve::Table2142,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST_GROUP,
        evidence: "npm @anthropic-ai/claude-code@2.1.69 cli.js: split-record grouping back",
    },
    ClaudeRow {
        from: Version::new(2, 1, 74),
        reserve: ClaudeReserve::Table2142,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST_ALL,
        evidence: "npm @anthropic-ai/claude-code@2.1.74 cli.js: the estimate counts tool_use/thinking/redacted_thinking blocks; images and documents 2000",
    },
    ClaudeRow {
        from: Version::new(2, 1, 77),
        reserve: ClaudeReserve::Table2177,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &[],
        measure: M_EST_ALL,
        evidence: "npm @anthropic-ai/claude-code@2.1.77 cli.js: opus-4-6 {64000, 128000} and sonnet-4-6 {32000, 128000} rows",
    },
    ClaudeRow {
        from: Version::new(2, 1, 117),
        reserve: ClaudeReserve::Table2177,
        cap: 20_000,
        buffer: 13_000,
        ratio_percent: None,
        one_m_default: &["claude-opus-4-7"],
        measure: M_EST_ALL,
        evidence: "npm @anthropic-ai/claude-code-linux-x64@2.1.117 (embedded bundle): claude-opus-4-7 gets a 1M window by default (2.1.122's debug log: effectiveWindow=980000)",
    },
];

/// Claude's canonical model name: lower case, no `[1m]`, no `-YYYYMMDD`, `claude-opus-4` →
/// `claude-opus-4-0` (the form the 2.1.122+ tables compare).
fn claude_canonical(model: &str) -> String {
    let mut m = model.to_ascii_lowercase().replace("[1m]", "");
    if let Some(i) = m.rfind('-') {
        let tail = &m[i + 1..];
        if tail.len() == 8 && tail.bytes().all(|b| b.is_ascii_digit()) {
            m.truncate(i);
        }
    }
    if m == "claude-opus-4" || m == "claude-sonnet-4" {
        m.push_str("-0");
    }
    m
}

fn claude_max_output(reserve: ClaudeReserve, v: Option<Version>, model: &str) -> u64 {
    let m = model.to_ascii_lowercase();
    let has = |s: &str| m.contains(s);
    let claude3_small = || {
        if has("claude-3-opus") || has("claude-3-haiku") {
            Some(4_096)
        } else if has("claude-3-sonnet") {
            Some(8_192)
        } else {
            None
        }
    };
    match reserve {
        ClaudeReserve::None180k => 0,
        ClaudeReserve::ThreeFiveOrHaiku if has("3-5") || has("haiku") => 8_192,
        ClaudeReserve::ThreeFiveOrHaiku | ClaudeReserve::ThreeFiveOnly if !has("3-5") => 32_000,
        ClaudeReserve::ThreeFiveOrHaiku | ClaudeReserve::ThreeFiveOnly => 8_192,
        ClaudeReserve::Table2030 => {
            if has("3-5") {
                8_192
            } else if has("opus") {
                32_000
            } else if has("sonnet-4") || has("haiku-4") {
                64_000
            } else {
                32_000
            }
        }
        ClaudeReserve::Table2042 => {
            if has("3-5") {
                8_192
            } else if let Some(x) = claude3_small() {
                x
            } else if has("opus-4-5") && v.is_none_or(|v| v >= Version::new(2, 0, 56)) {
                64_000
            } else if has("opus-4") {
                32_000
            } else if has("sonnet-4") || has("haiku-4") {
                64_000
            } else {
                32_000
            }
        }
        ClaudeReserve::Table2142 | ClaudeReserve::Table2177 => {
            let own_rows = reserve == ClaudeReserve::Table2177;
            let opus47 = v.is_none_or(|v| v >= Version::new(2, 1, 111));
            if own_rows && (has("opus-4-6") || (opus47 && has("opus-4-7"))) {
                64_000
            } else if let Some(x) = claude3_small() {
                x
            } else if has("3-5-sonnet") || has("3-5-haiku") {
                8_192
            } else {
                // sonnet-4-6, opus-4-5, sonnet-4, haiku-4, opus-4-1, opus-4, 3-7-sonnet, unknown
                32_000
            }
        }
    }
}

/// The model's window as Claude Code `version` knew it: 1M for `[1m]` / `-1m` and for the
/// models the version gives 1M by default (claude-opus-4-7 from 2.1.117), else 200k. Unlike
/// [`claude`]'s window, not the flat 180,000 the first versions compacted in: that was their
/// rule, not the model's window.
pub fn claude_window(version: Option<&str>, model: &str) -> u64 {
    let row = row_for(CLAUDE, |r| r.from, version.and_then(Version::parse));
    model_window(row, model)
}

fn model_window(row: &ClaudeRow, model: &str) -> u64 {
    let lower = model.to_ascii_lowercase();
    if lower.contains("[1m]")
        || lower.ends_with("-1m")
        || row
            .one_m_default
            .contains(&claude_canonical(model).as_str())
    {
        1_000_000
    } else {
        200_000
    }
}

/// The largest compaction summary any Claude Code version asks for: the most its reservation
/// for the summarising call's output is capped at (32,000 before 2.1.21, 20,000 since).
pub fn claude_max_summary_tokens() -> u64 {
    CLAUDE
        .iter()
        .map(|r| r.cap)
        .filter(|&c| c != u64::MAX)
        .max()
        .unwrap_or(u64::MAX)
}

/// The largest compaction summary Claude Code `version` asks for: the cap on its reservation
/// for the summarising call's output (32,000 before 2.1.21, 20,000 since). `None` when the
/// version is missing or unparsable (the replay takes the newest row for it, but what that
/// session's agent could write is not known), and for the versions before 1.0.71, whose
/// reservation had no cap.
pub fn claude_summary_cap(version: Option<&str>) -> Option<u64> {
    let v = Version::parse(version?)?;
    Some(row_for(CLAUDE, |r| r.from, Some(v)).cap).filter(|&c| c != u64::MAX)
}

/// The auto-compact constants Claude Code `version` applied to `model`. A missing or
/// unparsable version gets the newest row (`version_known: false`); a missing model is taken
/// as a 200k-window model with a 32k default output (the threshold every 4.x model shares).
///
/// A model name with `[1m]` (or `-1m`) gets the 1M window. Transcripts record the API model id
/// without that suffix, so a caller that sees usage above 200k should pass it with `[1m]`.
pub fn claude(version: Option<&str>, model: Option<&str>) -> ClaudeConstants {
    let v = version.and_then(Version::parse);
    let row = row_for(CLAUDE, |r| r.from, v);
    let model = model.unwrap_or("");
    let context_window = if row.reserve == ClaudeReserve::None180k {
        180_000
    } else {
        model_window(row, model)
    };
    ClaudeConstants {
        context_window,
        max_output: claude_max_output(row.reserve, v, model),
        max_output_cap: row.cap,
        buffer: row.buffer,
        ratio_percent: row.ratio_percent,
        measure: row.measure,
        version_known: v.is_some(),
        evidence: row.evidence,
    }
}
