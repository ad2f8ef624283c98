//! Codex CLI's auto-compaction constants by version, model and recorded window.

use super::*;

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
pub(super) struct CodexRow {
    pub(super) from: Version,
    rule: CodexRule,
    /// gpt-5-codex's own limit in the `ConfigOrTable` era.
    gpt5_codex_limit: Option<u64>,
    recorded_effective: bool,
    measure: CodexMeasure,
    pre_turn: bool,
    pub(super) evidence: &'static str,
}

pub(super) static CODEX: &[CodexRow] = &[
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
    codex_known_window(v, model).unwrap_or(272_000)
}

/// [`codex_model_window`] for a slug the table names; `None` for one Codex knows only through
/// its fallback.
fn codex_known_window(v: Option<Version>, model: &str) -> Option<u64> {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    Some(
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
        } else if m.starts_with("gpt-5") || m.starts_with("codex-") {
            272_000
        } else {
            return None;
        },
    )
}

/// The window Codex `version` gave `model` when the rollout recorded none, and whether its
/// table names the model (`false`: the fallback for an unknown slug).
pub fn codex_window(version: Option<&str>, model: Option<&str>) -> (u64, bool) {
    let v = version.and_then(Version::parse);
    let model = model.unwrap_or("");
    match codex_known_window(v, model) {
        Some(w) => (w, true),
        None => (codex_model_window(v, model), false),
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
