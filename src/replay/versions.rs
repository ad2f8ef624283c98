//! Version-accurate constants of each agent's own context management: the auto-compaction
//! trigger and its inputs as the recorded version had them.
//!
//! Versions are data. Every table row names the first version it applies to and carries its
//! evidence (the upstream file or bundle it was read from, or the real sessions whose recorded
//! numbers show it). The lookups are pure: a recorded version string and model (and, for Codex,
//! the window the rollout recorded) in, the constants in force out. A session that recorded no
//! version gets the newest row with `version_known: false`.
//!
//! How the tables were established, and how to re-run the scripts that read them from the
//! published packages and tags, is in `docs/versions.md` (`scripts/versions/`).

use std::cmp::Ordering;
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Versions

/// A version as agents print it: `2.1.19`, `0.125.0`, `v0.11.3`, `rust-v0.40.0`,
/// `0.125.0-alpha.3`. Components compare numerically (2.1.9 < 2.1.10); a missing component is 0;
/// anything after the numeric core (a pre-release or build suffix) is ignored, so
/// `0.40.0-alpha.1` orders with `0.40.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// Parse the numeric core of a version string. `None` when it starts with no digit after an
    /// optional alphabetic prefix (`v`, `rust-v`), or a component does not fit in `u32`.
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim();
        let start = s.find(|c: char| c.is_ascii_digit())?;
        // Only a short alphabetic prefix such as `v` or `rust-v` may precede the number.
        let prefix = &s[..start];
        if prefix.len() > 8
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
        {
            return None;
        }
        let core: &str = s[start..]
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()
            .unwrap_or("");
        let mut parts = [0u32; 3];
        for (i, p) in core.split('.').take(3).enumerate() {
            if p.is_empty() {
                break;
            }
            parts[i] = p.parse().ok()?;
        }
        Some(Version::new(parts[0], parts[1], parts[2]))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Compare two version strings numerically; unparsable strings sort first.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    Version::parse(a).cmp(&Version::parse(b))
}

/// The last row whose `from` is at or below `v`; the newest row when the version is unknown.
/// Rows must be sorted by `from`. A version older than the first row gets the first row.
fn row_for<T>(rows: &'static [T], from: impl Fn(&T) -> Version, v: Option<Version>) -> &'static T {
    match v {
        None => rows.last().expect("non-empty table"),
        Some(v) => rows.iter().rev().find(|r| from(r) <= v).unwrap_or(&rows[0]),
    }
}

// ---------------------------------------------------------------------------------------------
// Claude Code

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
struct ClaudeRow {
    from: Version,
    reserve: ClaudeReserve,
    cap: u64,
    buffer: u64,
    ratio_percent: Option<u64>,
    /// Canonical model names that get a 1M window without `[1m]`.
    one_m_default: &'static [&'static str],
    measure: ClaudeMeasure,
    evidence: &'static str,
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
static CLAUDE: &[ClaudeRow] = &[
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
    let lower = model.to_ascii_lowercase();
    let canonical = claude_canonical(model);
    let context_window = if row.reserve == ClaudeReserve::None180k {
        180_000
    } else if lower.contains("[1m]")
        || lower.ends_with("-1m")
        || row.one_m_default.contains(&canonical.as_str())
    {
        1_000_000
    } else {
        200_000
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

// ---------------------------------------------------------------------------------------------
// Codex CLI

/// What Codex compares with the limit after each sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CodexMeasure {
    /// 0.35–0.63: the last response's `total_tokens − reasoning_output_tokens`.
    TotalMinusReasoning,
    /// 0.64–0.98: the last response's `total_tokens` plus a bytes/4 estimate of the reasoning
    /// items other than the last (skipped from 0.88 when the server already counts them).
    TotalPlusReasoningEstimate,
    /// 0.99+: as above, plus a bytes/4 estimate of the items recorded after the last
    /// model-generated item (tool outputs, new user input).
    TotalPlusEstimates,
}

/// Codex's auto-compact limit for one version and model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CodexConstants {
    /// The model's full context window (what the 90% applies to).
    pub context_window: u64,
    /// Compaction runs when the measure is ≥ this. `u64::MAX` when the version compacts only
    /// with a configured `model_auto_compact_token_limit` and none was given.
    pub auto_compact_limit: u64,
    /// Whether `token_count.info.model_context_window` holds the full window (≤ 0.47) or the
    /// window × `effective_context_window_percent` (95) (0.48+).
    pub recorded_window_is_effective: bool,
    pub measure: CodexMeasure,
    /// Where the check runs: after each sampling response (always); from 0.74 mid-turn only
    /// when the turn needs a follow-up, plus a pre-turn check before new user input.
    pub pre_turn_check: bool,
    pub version_known: bool,
    pub evidence: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CodexRule {
    /// No auto-compaction at all.
    None,
    /// The configured limit, else a per-model figure (only gpt-5-codex had one).
    ConfigOrTable,
    /// The configured limit, else 90% of the model window.
    ConfigOr90,
    /// `min(configured, 90% of the window)`.
    MinConfig90,
}

#[derive(Debug, Clone, Copy)]
struct CodexRow {
    from: Version,
    rule: CodexRule,
    /// gpt-5-codex's own limit in the `ConfigOrTable` era.
    gpt5_codex_limit: Option<u64>,
    recorded_effective: bool,
    measure: CodexMeasure,
    pre_turn: bool,
    evidence: &'static str,
}

static CODEX: &[CodexRow] = &[
    CodexRow {
        from: Version::new(0, 0, 0),
        rule: CodexRule::None,
        gpt5_codex_limit: None,
        recorded_effective: false,
        measure: CodexMeasure::TotalMinusReasoning,
        pre_turn: false,
        evidence: "openai/codex rust-v0.2.0..rust-v0.34.0: no auto-compaction (no auto_compact_token_limit anywhere)",
    },
    CodexRow {
        from: Version::new(0, 35, 0),
        rule: CodexRule::ConfigOrTable,
        gpt5_codex_limit: None,
        recorded_effective: false,
        measure: CodexMeasure::TotalMinusReasoning,
        pre_turn: false,
        evidence: "openai/codex rust-v0.35.0 core/src/client.rs get_auto_compact_token_limit: config.model_auto_compact_token_limit or openai_model_info.rs (None for every model)",
    },
    CodexRow {
        from: Version::new(0, 40, 0),
        rule: CodexRule::ConfigOrTable,
        gpt5_codex_limit: Some(220_000),
        recorded_effective: false,
        measure: CodexMeasure::TotalMinusReasoning,
        pre_turn: false,
        evidence: "openai/codex rust-v0.40.0 core/src/openai_model_info.rs: gpt-5-codex auto_compact_token_limit Some(220_000)",
    },
    CodexRow {
        from: Version::new(0, 41, 0),
        rule: CodexRule::ConfigOrTable,
        gpt5_codex_limit: Some(350_000),
        recorded_effective: false,
        measure: CodexMeasure::TotalMinusReasoning,
        pre_turn: false,
        evidence: "openai/codex rust-v0.41.0..0.47.0 core/src/openai_model_info.rs: gpt-5-codex Some(350_000) (above its 272k window: never reached)",
    },
    CodexRow {
        from: Version::new(0, 48, 0),
        rule: CodexRule::ConfigOr90,
        gpt5_codex_limit: None,
        recorded_effective: true,
        measure: CodexMeasure::TotalMinusReasoning,
        pre_turn: false,
        evidence: "openai/codex rust-v0.48.0 core/src/openai_model_info.rs default_auto_compact_limit = window*9/10; client.rs get_model_context_window ×effective_context_window_percent/100",
    },
    CodexRow {
        from: Version::new(0, 64, 0),
        rule: CodexRule::ConfigOr90,
        gpt5_codex_limit: None,
        recorded_effective: true,
        measure: CodexMeasure::TotalPlusReasoningEstimate,
        pre_turn: false,
        evidence: "openai/codex rust-v0.64.0 context_manager/history.rs get_total_token_usage: last_token_usage.total_tokens + non-last reasoning estimate",
    },
    CodexRow {
        from: Version::new(0, 74, 0),
        rule: CodexRule::ConfigOr90,
        gpt5_codex_limit: None,
        recorded_effective: true,
        measure: CodexMeasure::TotalPlusReasoningEstimate,
        pre_turn: true,
        evidence: "openai/codex rust-v0.74.0 core/src/codex.rs: pre-turn check (run_task) and mid-turn only when needs_follow_up",
    },
    CodexRow {
        from: Version::new(0, 99, 0),
        rule: CodexRule::ConfigOr90,
        gpt5_codex_limit: None,
        recorded_effective: true,
        measure: CodexMeasure::TotalPlusEstimates,
        pre_turn: true,
        evidence: "openai/codex rust-v0.99.0 context_manager/history.rs: + estimate of items after the last model-generated item",
    },
    CodexRow {
        from: Version::new(0, 100, 0),
        rule: CodexRule::MinConfig90,
        gpt5_codex_limit: None,
        recorded_effective: true,
        measure: CodexMeasure::TotalPlusEstimates,
        pre_turn: true,
        evidence: "openai/codex rust-v0.100.0 protocol/src/openai_models.rs auto_compact_token_limit: min(configured, window*9/10)",
    },
];

/// Codex's context window for a model slug when the rollout recorded none: 272k for the GPT-5
/// family and `codex-*` (and, from 0.99, any unknown slug), 200k for o3 / o4-mini /
/// codex-mini-latest, 1,047,576 for gpt-4.1, 128k for gpt-4o, 96k for gpt-oss (128k in the
/// bundled models.json from 0.10x), 16,385 for gpt-3.5.
fn codex_model_window(v: Option<Version>, model: &str) -> u64 {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    if m.starts_with("o3") || m.starts_with("o4-mini") || m.starts_with("codex-mini-latest") {
        200_000
    } else if m.starts_with("gpt-4.1") {
        1_047_576
    } else if m.starts_with("gpt-4o") {
        128_000
    } else if m.starts_with("gpt-oss") {
        if v.is_some_and(|v| v >= Version::new(0, 100, 0)) {
            128_000
        } else {
            96_000
        }
    } else if m.starts_with("gpt-3.5") {
        16_385
    } else {
        272_000
    }
}

/// The auto-compact limit Codex `version` applied. `recorded_window` is
/// `token_count.info.model_context_window` as the rollout recorded it (the window × 95% from
/// 0.48; converted back here); `configured_limit` is `model_auto_compact_token_limit` when the
/// user's config is known (rollouts do not record it).
pub fn codex(
    version: Option<&str>,
    model: Option<&str>,
    recorded_window: Option<u64>,
    configured_limit: Option<u64>,
) -> CodexConstants {
    let v = version.and_then(Version::parse);
    let row = row_for(CODEX, |r| r.from, v);
    let table = codex_model_window(v, model.unwrap_or(""));
    let context_window = match recorded_window.filter(|w| *w > 0) {
        None => table,
        Some(w) if row.recorded_effective => {
            // Recorded = floor(window × 95 / 100). Prefer the table figure when it reproduces
            // the recorded value exactly; otherwise invert (rounding up).
            if table * 95 / 100 == w {
                table
            } else {
                (w * 100).div_ceil(95)
            }
        }
        Some(w) => w,
    };
    codex_for_window(version, model, context_window, configured_limit)
}

/// As [`codex`], for a known full context window (an override, or one already converted from
/// the recorded figure).
pub fn codex_for_window(
    version: Option<&str>,
    model: Option<&str>,
    context_window: u64,
    configured_limit: Option<u64>,
) -> CodexConstants {
    let v = version.and_then(Version::parse);
    let row = row_for(CODEX, |r| r.from, v);
    let ninety = context_window * 9 / 10;
    let is_gpt5_codex = model.is_some_and(|m| m.to_ascii_lowercase().starts_with("gpt-5-codex"));
    let auto_compact_limit = match row.rule {
        CodexRule::None => u64::MAX,
        CodexRule::ConfigOrTable => configured_limit
            .or(if is_gpt5_codex {
                row.gpt5_codex_limit
            } else {
                None
            })
            .unwrap_or(u64::MAX),
        CodexRule::ConfigOr90 => configured_limit.unwrap_or(ninety),
        CodexRule::MinConfig90 => configured_limit.map_or(ninety, |c| c.min(ninety)),
    };
    CodexConstants {
        context_window,
        auto_compact_limit,
        recorded_window_is_effective: row.recorded_effective,
        measure: row.measure,
        pre_turn_check: row.pre_turn,
        version_known: v.is_some(),
        evidence: row.evidence,
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI

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
    /// The version this era was resolved to (the newest release compatible with the file).
    pub version: Version,
    pub era: &'static str,
    pub evidence: &'static str,
}

/// Gemini CLI releases and their tag dates (google-gemini/gemini-cli, `git log -1 --format=%cs
/// <tag>`), the first stable tag of each minor line. The newest release on or before a
/// session's start date is the version assumed.
static GEMINI_RELEASES: &[((i32, u32, u32), Version)] = &[
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

const GEMINI_NEWEST: Version = Version::new(0, 56, 0);

impl GeminiEra {
    /// The version range the file's format allows.
    pub fn format_bounds(&self) -> (Version, Version) {
        match self.format {
            Some(GeminiFormat::LegacyJson) => (Version::new(0, 4, 0), Version::new(0, 38, 2)),
            Some(GeminiFormat::Jsonl) => (Version::new(0, 39, 0), Version::new(0, 43, 0)),
            Some(GeminiFormat::JsonlCheckpoints) => (Version::new(0, 44, 0), GEMINI_NEWEST),
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
        version: v,
        era,
        evidence,
    }
}

#[cfg(test)]
#[path = "versions_tests.rs"]
mod tests;
