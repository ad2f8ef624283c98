use super::claude_code::CLAUDE;
use super::codex_cli::CODEX;
use super::gemini_cli::{GEMINI_NEWEST, GEMINI_RELEASES};
use super::*;

use std::path::{Path, PathBuf};

fn v(s: &str) -> Version {
    Version::parse(s).unwrap_or_else(|| panic!("unparsable {s}"))
}

// ---------------------------------------------------------------------------------------------
// Versions

#[test]
fn version_parsing() {
    assert_eq!(v("2.1.19"), Version::new(2, 1, 19));
    assert_eq!(v("v0.11.3"), Version::new(0, 11, 3));
    assert_eq!(v("rust-v0.40.0"), Version::new(0, 40, 0));
    assert_eq!(v("0.125.0-alpha.3"), Version::new(0, 125, 0));
    assert_eq!(v("1.0.95+build.7"), Version::new(1, 0, 95));
    assert_eq!(v("2.1"), Version::new(2, 1, 0));
    assert_eq!(v(" 2.0.14 (Claude Code)"), Version::new(2, 0, 14));
    assert_eq!(Version::parse(""), None);
    assert_eq!(Version::parse("unknown"), None);
    assert_eq!(Version::parse("99999999999.1.1"), None);
    assert_eq!(Version::parse("a very long prefix 2.1.0"), None);
    assert_eq!(v("2.1.19").to_string(), "2.1.19");
}

#[test]
fn version_ordering_is_numeric() {
    assert!(v("2.1.9") < v("2.1.10"));
    assert!(v("2.0.77") < v("2.1.0"));
    assert!(v("1.0.128") < v("2.0.0"));
    assert!(v("0.99.0") < v("0.100.0"));
    assert_eq!(compare_versions("2.1.9", "2.1.10"), Ordering::Less);
    assert_eq!(
        compare_versions("0.40.0-alpha.1", "0.40.0"),
        Ordering::Equal
    );
    assert_eq!(compare_versions("garbage", "0.0.1"), Ordering::Less);
}

#[test]
fn tables_are_sorted() {
    assert!(CLAUDE.windows(2).all(|w| w[0].from < w[1].from));
    assert!(CODEX.windows(2).all(|w| w[0].from < w[1].from));
    assert!(
        GEMINI_RELEASES
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1)
    );
    for r in CLAUDE {
        assert!(!r.evidence.is_empty());
    }
    for r in CODEX {
        assert!(!r.evidence.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Claude Code

const SONNET45: &str = "claude-sonnet-4-5-20250929";
const OPUS45: &str = "claude-opus-4-5-20251101";
const HAIKU45: &str = "claude-haiku-4-5-20251001";
const HAIKU35: &str = "claude-3-5-haiku-20241022";

fn thr(version: &str, model: &str) -> u64 {
    claude(Some(version), Some(model)).threshold()
}

#[test]
fn claude_threshold_moves_from_155k_to_167k_at_2_1_21() {
    // Both sides of the cap change (32,000 → 20,000).
    assert_eq!(thr("2.1.20", SONNET45), 155_000);
    assert_eq!(thr("2.1.21", SONNET45), 167_000);
    assert_eq!(thr("2.1.19", OPUS45), 155_000);
    assert_eq!(thr("2.1.29", OPUS45), 167_000);
    let c = claude(Some("2.1.20"), Some(SONNET45));
    assert_eq!(
        (c.context_window, c.max_output, c.max_output_cap, c.buffer),
        (200_000, 64_000, 32_000, 13_000)
    );
    let c = claude(Some("2.1.21"), Some(SONNET45));
    assert_eq!(
        (c.context_window, c.max_output, c.max_output_cap, c.buffer),
        (200_000, 64_000, 20_000, 13_000)
    );
    assert!(c.version_known);
}

#[test]
fn claude_ratio_era_and_buffer_era() {
    // 1.0.0: 92% of a flat 180,000.
    assert_eq!(thr("1.0.0", SONNET45), 165_600);
    assert_eq!(thr("1.0.15", SONNET45), 165_600);
    // 1.0.16: 92% of (200,000 − reserve); 3-5/haiku reserve 8,192.
    assert_eq!(thr("1.0.16", SONNET45), 154_560);
    assert_eq!(thr("1.0.16", HAIKU35), 176_464); // ceil(191,808 × 0.92 = 176,463.36)
    assert_eq!(thr("1.0.70", SONNET45), 154_560);
    // 1.0.71: buffer 13,000 replaces the ratio.
    assert_eq!(thr("1.0.71", SONNET45), 155_000);
    assert_eq!(thr("1.0.71", HAIKU35), 178_808);
    // Any `haiku` got the 8,192 reservation until the per-model table (2.0.24).
    assert_eq!(thr("2.0.23", HAIKU45), 178_808);
    assert_eq!(thr("2.0.24", HAIKU45), 155_000);
    assert_eq!(thr("2.0.24", HAIKU35), 178_808);
}

#[test]
fn claude_per_model_reservations() {
    // 3.x models keep their small outputs under every cap.
    assert_eq!(thr("2.1.30", HAIKU35), 200_000 - 8_192 - 13_000);
    assert_eq!(
        thr("2.1.30", "claude-3-opus-20240229"),
        200_000 - 4_096 - 13_000
    );
    assert_eq!(
        thr("2.1.50", "claude-3-5-sonnet-20241022"),
        200_000 - 8_192 - 13_000
    );
    assert_eq!(thr("2.1.50", "claude-3-7-sonnet-20250219"), 167_000);
    assert_eq!(thr("2.1.50", "claude-opus-4-1-20250805"), 167_000);
    assert_eq!(thr("2.1.50", "claude-opus-4-6"), 167_000);
    let max = |ver: &str, model: &str| claude(Some(ver), Some(model)).max_output;
    // claude-3-opus: any `opus` was 32,000 until 2.0.42 gave the 3.x models their own rows.
    assert_eq!(thr("2.0.41", "claude-3-opus-20240229"), 155_000);
    assert_eq!(thr("2.0.42", "claude-3-opus-20240229"), 182_904);
    assert_eq!(max("2.0.29", "claude-sonnet-4-20250514"), 32_000);
    assert_eq!(max("2.0.30", "claude-sonnet-4-20250514"), 64_000);
    assert_eq!(max("2.0.55", OPUS45), 32_000);
    assert_eq!(max("2.0.56", OPUS45), 64_000);
    assert_eq!(max("2.1.41", OPUS45), 64_000);
    assert_eq!(max("2.1.42", OPUS45), 32_000);
    assert_eq!(max("2.1.76", "claude-opus-4-6"), 32_000);
    assert_eq!(max("2.1.77", "claude-opus-4-6"), 64_000);
    assert_eq!(max("2.1.77", "claude-sonnet-4-6"), 32_000);
    assert_eq!(max("2.1.110", "claude-opus-4-7"), 32_000);
    assert_eq!(max("2.1.111", "claude-opus-4-7"), 64_000);
}

#[test]
fn claude_one_million_windows() {
    let c = claude(Some("2.1.30"), Some("claude-sonnet-4-5-20250929[1m]"));
    assert_eq!(c.context_window, 1_000_000);
    assert_eq!(c.threshold(), 967_000);
    // Opus 4.7 has 1M without opting in from 2.1.117.
    assert_eq!(thr("2.1.116", "claude-opus-4-7"), 167_000);
    assert_eq!(thr("2.1.117", "claude-opus-4-7"), 967_000);
    assert_eq!(thr("2.1.117", SONNET45), 167_000);
}

#[test]
fn claude_measure_eras() {
    let m = |ver: &str| claude(Some(ver), Some(SONNET45)).measure;
    assert!(m("1.0.0").includes_output && m("2.1.100").includes_output);
    assert!(!m("2.1.1").estimates_trailing);
    assert!(m("2.1.2").estimates_trailing);
    assert!(!m("2.1.63").groups_split_records);
    assert!(m("2.1.64").groups_split_records);
    assert!(!m("2.1.67").groups_split_records);
    assert!(!m("2.1.68").groups_split_records);
    assert!(m("2.1.69").groups_split_records);
    assert!(!m("2.1.73").estimates_all_blocks);
    assert!(m("2.1.74").estimates_all_blocks);
    assert_eq!(m("2.1.73").image_tokens(), 1_334);
    assert_eq!(m("2.1.74").image_tokens(), 2_000);
    // A document (a PDF) costs nothing before every block is estimated, then 2,000.
    let pdf = Some("application/pdf");
    assert_eq!(m("2.1.73").media_tokens(pdf), 0);
    assert_eq!(m("2.1.74").media_tokens(pdf), 2_000);
    assert_eq!(m("2.1.73").media_tokens(Some("image/png")), 1_334);
    assert_eq!(m("2.1.73").media_tokens(None), 1_334);
}

#[test]
fn claude_overrides() {
    let c = claude(Some("2.1.30"), Some(SONNET45));
    // 50% of the effective window (180,000) = 90,000 < 167,000.
    assert_eq!(c.threshold_with(Some(50.0), None), 90_000);
    // The override cannot raise the threshold; out-of-range values are ignored.
    assert_eq!(c.threshold_with(Some(99.0), None), 167_000);
    assert_eq!(c.threshold_with(Some(0.0), None), 167_000);
    assert_eq!(c.threshold_with(Some(150.0), None), 167_000);
    assert_eq!(c.threshold_with(None, None), c.threshold());
    // The window override: min(model window, max(100k, value)).
    assert_eq!(
        c.threshold_with(None, Some(150_000)),
        150_000 - 20_000 - 13_000
    );
    assert_eq!(
        c.threshold_with(None, Some(50_000)),
        100_000 - 20_000 - 13_000
    );
    assert_eq!(c.threshold_with(None, Some(500_000)), 167_000);
    // Both: the percentage applies to the overridden effective window.
    assert_eq!(c.threshold_with(Some(80.0), Some(150_000)), 104_000);
    // The ratio era has no override.
    let old = claude(Some("1.0.50"), Some(SONNET45));
    assert_eq!(old.threshold_with(Some(50.0), None), 154_560);
}

#[test]
fn claude_summary_cap_by_version() {
    assert_eq!(claude_summary_cap(Some("2.1.20")), Some(32_000));
    assert_eq!(claude_summary_cap(Some("2.1.21")), Some(20_000));
    assert_eq!(claude_summary_cap(Some("2.1.120")), Some(20_000));
    assert_eq!(claude_summary_cap(Some("1.0.71")), Some(32_000));
    // Before 1.0.71 the reservation had no cap; an unknown version's agent is not known.
    assert_eq!(claude_summary_cap(Some("1.0.70")), None);
    assert_eq!(claude_summary_cap(None), None);
    assert_eq!(claude_summary_cap(Some("next")), None);
    assert_eq!(
        claude_summary_cap(Some("2.0.0")),
        Some(claude_max_summary_tokens())
    );
}

#[test]
fn claude_unknown_version_gets_newest() {
    let c = claude(None, Some(SONNET45));
    assert!(!c.version_known);
    assert_eq!(c.threshold(), 167_000);
    assert_eq!(c.evidence, CLAUDE.last().unwrap().evidence);
    let c = claude(Some("not a version"), None);
    assert!(!c.version_known);
    assert_eq!(c.threshold(), 167_000);
    // Older than every row: the first row.
    assert_eq!(thr("0.2.9", SONNET45), 165_600);
}

// ---------------------------------------------------------------------------------------------
// Codex

#[test]
fn codex_limit_eras() {
    let lim = |ver: &str, model: &str| codex(Some(ver), Some(model), None, None).auto_compact_limit;
    // No auto-compaction before 0.35, and none by default until 0.48.
    assert_eq!(lim("0.34.0", "gpt-5"), u64::MAX);
    assert_eq!(lim("0.35.0", "gpt-5"), u64::MAX);
    assert_eq!(lim("0.39.0", "gpt-5-codex"), u64::MAX);
    assert_eq!(lim("0.40.0", "gpt-5-codex"), 220_000);
    assert_eq!(lim("0.40.0", "gpt-5"), u64::MAX);
    assert_eq!(lim("0.41.0", "gpt-5-codex"), 350_000);
    assert_eq!(lim("0.47.0", "gpt-5-codex"), 350_000);
    // 90% of the window from 0.48.
    assert_eq!(lim("0.48.0", "gpt-5-codex"), 244_800);
    assert_eq!(lim("0.48.0", "gpt-5"), 244_800);
    assert_eq!(lim("0.60.1", "o3"), 180_000);
    assert_eq!(lim("0.60.1", "gpt-4.1"), 942_818);
    // A configured limit: used as is until 0.99, clamped by min from 0.100.
    assert_eq!(
        codex(Some("0.35.0"), Some("gpt-5"), None, Some(100_000)).auto_compact_limit,
        100_000
    );
    assert_eq!(
        codex(Some("0.99.0"), Some("gpt-5"), None, Some(300_000)).auto_compact_limit,
        300_000
    );
    assert_eq!(
        codex(Some("0.100.0"), Some("gpt-5"), None, Some(300_000)).auto_compact_limit,
        244_800
    );
    assert_eq!(
        codex(Some("0.100.0"), Some("gpt-5"), None, Some(200_000)).auto_compact_limit,
        200_000
    );
}

#[test]
fn codex_recorded_window_is_95_percent_from_0_48() {
    // 0.125 records 258,400 = 272,000 × 95%; the limit is 90% of 272,000.
    let c = codex(Some("0.125.0"), Some("gpt-5.5"), Some(258_400), None);
    assert_eq!(c.context_window, 272_000);
    assert_eq!(c.auto_compact_limit, 244_800);
    assert!(c.recorded_window_is_effective);
    // An unknown model's recorded window inverts the same way.
    let c = codex(Some("0.125.0"), Some("custom-model"), Some(190_000), None);
    assert_eq!(c.context_window, 200_000);
    assert_eq!(c.auto_compact_limit, 180_000);
    // Before 0.48 the recorded window is the full one.
    let c = codex(Some("0.47.0"), Some("gpt-5"), Some(272_000), Some(200_000));
    assert_eq!(c.context_window, 272_000);
    assert!(!c.recorded_window_is_effective);
    // 0 means "not recorded".
    assert_eq!(
        codex(Some("0.60.0"), Some("o3"), Some(0), None).context_window,
        200_000
    );
}

#[test]
fn codex_measure_and_check_sites() {
    let c = |ver: &str| codex(Some(ver), Some("gpt-5"), None, None);
    assert_eq!(c("0.63.0").measure, CodexMeasure::TotalMinusReasoning);
    assert_eq!(
        c("0.64.0").measure,
        CodexMeasure::TotalPlusReasoningEstimate
    );
    assert_eq!(
        c("0.98.0").measure,
        CodexMeasure::TotalPlusReasoningEstimate
    );
    assert_eq!(c("0.99.0").measure, CodexMeasure::TotalPlusEstimates);
    assert!(!c("0.73.0").pre_turn_check);
    assert!(c("0.74.0").pre_turn_check);
    let unknown = codex(None, Some("gpt-5"), None, None);
    assert!(!unknown.version_known);
    assert_eq!(unknown.auto_compact_limit, 244_800);
}

// ---------------------------------------------------------------------------------------------
// Gemini

fn era(format: Option<GeminiFormat>, started: Option<(i32, u32, u32)>) -> GeminiEra {
    GeminiEra {
        format,
        started,
        ..GeminiEra::default()
    }
}

#[test]
fn gemini_threshold_by_date() {
    let t = |d| {
        gemini(
            era(Some(GeminiFormat::LegacyJson), Some(d)),
            Some("gemini-2.5-pro"),
        )
        .threshold
    };
    assert_eq!(t((2025, 10, 30)), 0.7); // v0.11.0..v0.11.2
    assert_eq!(t((2025, 10, 31)), 0.2); // v0.11.3
    assert_eq!(t((2025, 11, 19)), 0.2); // v0.16.0
    assert_eq!(t((2025, 11, 20)), 0.5); // v0.17.0
    assert_eq!(t((2026, 1, 5)), 0.5);
}

#[test]
fn gemini_format_bounds_the_version() {
    // A legacy file dated after v0.39 was still written by ≤ v0.38.
    let g = gemini(
        era(Some(GeminiFormat::LegacyJson), Some((2026, 8, 1))),
        None,
    );
    assert_eq!(g.version, Version::new(0, 38, 2));
    assert!(g.masking && g.truncation_only_after_failure && !g.coalesce_turns);
    assert_eq!(g.non_ascii_weight, 1.3);
    // A checkpointed JSONL file dated before v0.44 was written by ≥ v0.44.
    let g = gemini(
        era(Some(GeminiFormat::JsonlCheckpoints), Some((2026, 1, 1))),
        None,
    );
    assert_eq!(g.version, Version::new(0, 44, 0));
    assert_eq!(g.non_ascii_weight, 1.5);
    // No date: the newest version the format allows.
    assert_eq!(
        gemini(era(Some(GeminiFormat::Jsonl), None), None).version,
        Version::new(0, 43, 0)
    );
    let newest = gemini(GeminiEra::default(), None);
    assert_eq!(newest.version, GEMINI_NEWEST);
    assert!(newest.coalesce_turns && newest.masking);
    // The percent notice means v0.33+.
    let mut e = era(Some(GeminiFormat::LegacyJson), Some((2026, 1, 1)));
    e.saw_percent_compression_notice = true;
    assert_eq!(gemini(e, None).version, Version::new(0, 33, 0));
}

#[test]
fn gemini_switches_on_both_sides() {
    let at = |d| gemini(era(None, Some(d)), Some("gemini-2.5-pro"));
    assert!(!at((2025, 10, 6)).trigger_uses_last_prompt_tokens);
    assert!(at((2025, 10, 7)).trigger_uses_last_prompt_tokens);
    assert!(!at((2026, 2, 24)).masking);
    assert!(at((2026, 2, 25)).masking);
    assert!(!at((2026, 2, 26)).truncation_only_after_failure);
    assert!(at((2026, 2, 27)).truncation_only_after_failure);
    assert_eq!(at((2026, 5, 11)).non_ascii_weight, 1.3);
    assert_eq!(at((2026, 5, 12)).non_ascii_weight, 1.5);
    assert!(!at((2026, 7, 27)).coalesce_turns);
    assert!(at((2026, 7, 28)).coalesce_turns);
    // truncateHistoryToBudget from v0.26 (2026-01-28), by lines until v0.29 (2026-02-17).
    assert!(!at((2026, 1, 27)).reverse_budget_truncation);
    assert!(at((2026, 1, 28)).reverse_budget_truncation);
    assert!(at((2026, 1, 28)).truncate_last_lines);
    assert!(at((2026, 2, 16)).truncate_last_lines);
    assert!(!at((2026, 2, 17)).truncate_last_lines);
    assert!(at((2026, 2, 17)).reverse_budget_truncation);
    assert!(!at((2025, 12, 1)).truncate_last_lines);
    assert!(!at((2026, 1, 27)).verification_probe);
    assert!(at((2026, 1, 28)).verification_probe);
    // The estimator: images from v0.23 (2026-01-07), PDFs and the 100k fast path from v0.26,
    // UTF-16 units and the function-response branch from v0.28 (2026-02-10).
    assert!(!at((2026, 1, 6)).image_estimate);
    assert!(at((2026, 1, 7)).image_estimate);
    assert!(!at((2026, 1, 27)).pdf_estimate && !at((2026, 1, 27)).long_text_fast_path);
    assert!(at((2026, 1, 28)).pdf_estimate && at((2026, 1, 28)).long_text_fast_path);
    assert!(at((2026, 2, 9)).astral_counts_once && !at((2026, 2, 9)).function_response_estimate);
    assert!(!at((2026, 2, 10)).astral_counts_once && at((2026, 2, 10)).function_response_estimate);
}

#[test]
fn gemini_models_raise_the_version() {
    let mut e = era(Some(GeminiFormat::LegacyJson), Some((2025, 11, 10)));
    assert_eq!(e.version(), Version::new(0, 13, 0));
    e.saw_model("gemini-2.5-pro");
    assert_eq!(e.version(), Version::new(0, 13, 0));
    e.saw_model("gemini-3-pro-preview");
    assert_eq!(e.version(), Version::new(0, 16, 0));
    e.saw_model("gemini-3.1-pro-preview");
    e.saw_model("gemini-3-flash-preview");
    assert_eq!(e.models_since, Some(Version::new(0, 29, 4)));
    assert_eq!(gemini(e, None).threshold, 0.5);
}

#[test]
fn gemini_token_limits() {
    let lim = |d, m| gemini(era(None, Some(d)), Some(m)).token_limit;
    assert_eq!(lim((2026, 1, 20), "gemini-1.5-pro"), 2_097_152);
    assert_eq!(lim((2026, 1, 21), "gemini-1.5-pro"), 1_048_576);
    assert_eq!(
        lim((2026, 1, 20), "gemini-2.0-flash-preview-image-generation"),
        32_000
    );
    assert_eq!(lim((2026, 5, 4), "gemma-4-31b-it"), 1_048_576);
    assert_eq!(lim((2026, 5, 5), "gemma-4-31b-it"), 256_000);
    assert_eq!(lim((2026, 5, 5), "gemini-3-pro-preview"), 1_048_576);
    assert_eq!(gemini(GeminiEra::default(), None).token_limit, 1_048_576);
}

// ---------------------------------------------------------------------------------------------
// The real corpus: every recorded automatic compaction must sit above the table's threshold,
// and the check before the previous request must have been below it.
//
// The corpus lives outside the repository (`../shared/corpus`). When it is missing the test
// panics under CI (`CI=true` or `CI=1`, where it must be present) and otherwise prints a note
// and returns, as the other corpus tests of this crate do.

fn corpus(rel: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(rel);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("{} is required in CI", dir.display());
    }
    to_stderr!(
        "note: {} is missing; the corpus check is skipped locally",
        dir.display()
    );
    None
}

type Record = serde_json::Value;

fn usage_of(r: &Record) -> Option<&Record> {
    if r["type"] != "assistant" {
        return None;
    }
    let m = &r["message"];
    if m.get("usage").is_none() || m["model"] == "<synthetic>" {
        return None;
    }
    Some(&m["usage"])
}

fn usage_sum(u: &Record, with_output: bool) -> u64 {
    let g = |k: &str| u[k].as_u64().unwrap_or(0);
    g("input_tokens")
        + g("cache_creation_input_tokens")
        + g("cache_read_input_tokens")
        + if with_output { g("output_tokens") } else { 0 }
}

/// JavaScript `Math.round(s.length / 4)`: UTF-16 units, halves round up.
fn js_tokens(s: &str) -> u64 {
    let n = s.encode_utf16().count() as u64;
    (n + 2) / 4
}

fn est_content(c: &Record, m: &ClaudeMeasure) -> u64 {
    match c {
        Record::String(s) => js_tokens(s),
        Record::Array(blocks) => blocks.iter().map(|b| est_block(b, m)).sum(),
        _ => 0,
    }
}

fn est_block(b: &Record, m: &ClaudeMeasure) -> u64 {
    if let Some(s) = b.as_str() {
        return js_tokens(s);
    }
    let s = |k: &str| b[k].as_str().unwrap_or("");
    match b["type"].as_str().unwrap_or("") {
        "text" => js_tokens(s("text")),
        "image" => m.image_tokens(),
        "document" if m.estimates_all_blocks => m.image_tokens(),
        "tool_result" => est_content(&b["content"], m),
        _ if !m.estimates_all_blocks => 0,
        "tool_use" => js_tokens(&format!(
            "{}{}",
            s("name"),
            b.get("input").map_or("{}".into(), |i| i.to_string())
        )),
        "thinking" => js_tokens(s("thinking")),
        "redacted_thinking" => js_tokens(s("data")),
        _ => js_tokens(&b.to_string()),
    }
}

/// Claude Code's measure over a message list, as `m` describes it.
fn measure(msgs: &[&Record], m: &ClaudeMeasure) -> u64 {
    let est = |rs: &[&Record]| -> u64 {
        if !m.estimates_trailing {
            return 0;
        }
        rs.iter()
            .filter(|r| r["type"] == "user" || r["type"] == "assistant")
            .map(|r| est_content(&r["message"]["content"], m))
            .sum()
    };
    for k in (0..msgs.len()).rev() {
        if let Some(u) = usage_of(msgs[k]) {
            let mut first = k;
            if m.groups_split_records {
                let id = &msgs[k]["message"]["id"];
                while first > 0
                    && msgs[first - 1]["type"] == "assistant"
                    && &msgs[first - 1]["message"]["id"] == id
                {
                    first -= 1;
                }
            }
            return usage_sum(u, m.includes_output) + est(&msgs[first + 1..]);
        }
    }
    est(msgs)
}

struct AutoCompaction {
    file: String,
    version: String,
    model: String,
    pre: u64,
    prev: u64,
    /// Our measure of the list that fired, when the file holds all of it.
    rebuilt: Option<u64>,
}

fn auto_compactions(path: &Path) -> Vec<AutoCompaction> {
    let text = std::fs::read_to_string(path).unwrap();
    let recs: Vec<Record> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let by_uuid: std::collections::HashMap<&str, &Record> = recs
        .iter()
        .filter_map(|r| Some((r["uuid"].as_str()?, r)))
        .collect();
    let mut out = Vec::new();
    for (at, b) in recs.iter().enumerate() {
        if b["subtype"] != "compact_boundary" || b["compactMetadata"]["trigger"] != "auto" {
            continue;
        }
        // The message list Claude Code held: the chain ending at logicalParentUuid. From 2.1.3x
        // that uuid can name a message never written (the newest in memory); then start from
        // the last main-chain message written before the boundary.
        let mut chain: Vec<&Record> = Vec::new();
        let logical = b["logicalParentUuid"]
            .as_str()
            .and_then(|u| by_uuid.get(u).copied());
        let mut cur = logical.or_else(|| {
            recs[..at].iter().rev().find(|r| {
                (r["type"] == "user" || r["type"] == "assistant") && r["isSidechain"] != true
            })
        });
        while let Some(r) = cur {
            chain.push(r);
            if r["subtype"] == "compact_boundary" || chain.len() > recs.len() {
                break;
            }
            cur = r["parentUuid"]
                .as_str()
                .and_then(|u| by_uuid.get(u).copied());
        }
        chain.reverse();
        let version = b["version"].as_str().unwrap_or("").to_string();
        let last = chain
            .iter()
            .rposition(|r| usage_of(r).is_some())
            .unwrap_or_else(|| panic!("{}: no usage before a boundary", path.display()));
        let model = chain[last]["message"]["model"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let c = claude(Some(&version), Some(&model));
        // The check before the last request: the list up to that response's first record.
        // Parallel tool calls are recorded interleaved with their results, all under the
        // response's message.id, so take the earliest record with that id.
        let id = &chain[last]["message"]["id"];
        let first = chain
            .iter()
            .position(|r| r["type"] == "assistant" && !id.is_null() && &r["message"]["id"] == id)
            .unwrap_or(last);
        out.push(AutoCompaction {
            file: path.file_name().unwrap().to_string_lossy().into_owned(),
            version,
            model,
            pre: b["compactMetadata"]["preTokens"].as_u64().unwrap_or(0),
            prev: measure(&chain[..first], &c.measure),
            rebuilt: logical.map(|_| measure(&chain, &c.measure)),
        });
    }
    out
}

#[test]
fn claude_table_brackets_every_real_auto_compaction() {
    let Some(dir) = corpus("real/claude_compaction") else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for f in &files {
        rows.extend(auto_compactions(f));
    }
    // 30 transcripts, 35 automatic compactions (PROVENANCE.tsv).
    assert_eq!(files.len(), 30);
    assert_eq!(rows.len(), 35);
    let mut bad = Vec::new();
    for r in &rows {
        let t = claude(Some(&r.version), Some(&r.model)).threshold();
        if !(r.prev < t && t <= r.pre) {
            bad.push(format!(
                "{}: version {} model {}: previous check {} / threshold {} / preTokens {}",
                r.file, r.version, r.model, r.prev, t, r.pre
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "the table contradicts the corpus:\n{}",
        bad.join("\n")
    );
    // The measure as documented reproduces Claude Code's own preTokens: exactly on most
    // boundaries, never above, and within 1% on the rest (records the transcript lacks).
    let rebuilt: Vec<(u64, u64)> = rows
        .iter()
        .filter_map(|r| Some((r.rebuilt?, r.pre)))
        .collect();
    assert_eq!(rebuilt.len(), 20);
    assert!(
        rebuilt.iter().filter(|(m, p)| m == p).count() >= 17,
        "{rebuilt:?}"
    );
    assert!(
        rebuilt.iter().all(|(m, p)| m <= p && (p - m) * 100 < *p),
        "{rebuilt:?}"
    );
    // Both thresholds are exercised.
    assert!(
        rows.iter()
            .any(|r| claude(Some(&r.version), Some(&r.model)).threshold() == 155_000)
    );
    assert!(
        rows.iter()
            .any(|r| claude(Some(&r.version), Some(&r.model)).threshold() == 167_000)
    );
}

/// The real legacy Gemini files (Nov 2025 – Feb 2026): their start dates resolve to releases
/// that already knew every model they used; before masking; threshold 0.2 for the one file
/// started before v0.17.0 (2025-11-20), 0.5 for the others.
#[test]
fn gemini_era_of_real_legacy_files() {
    let Some(dir) = corpus("real/gemini_legacy") else {
        return;
    };
    let mut checked = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let doc: Record = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let start = doc["startTime"].as_str().unwrap();
        let d = |a: usize, b: usize| start[a..b].parse::<u32>().unwrap();
        let mut by_date = era(
            Some(GeminiFormat::LegacyJson),
            Some((d(0, 4) as i32, d(5, 7), d(8, 10))),
        );
        let mut with_models = by_date;
        for m in doc["messages"].as_array().unwrap() {
            if let Some(model) = m["model"].as_str() {
                with_models.saw_model(model);
            }
        }
        // The date alone already allows every model the file used.
        assert_eq!(
            by_date.version(),
            with_models.version(),
            "{}",
            path.display()
        );
        by_date.saw_percent_compression_notice = false;
        let g = gemini(by_date, None);
        assert!(
            g.version >= Version::new(0, 16, 0) && g.version <= Version::new(0, 28, 0),
            "{}: {}",
            path.display(),
            g.version
        );
        let expect = if start < "2025-11-20" { 0.2 } else { 0.5 };
        assert_eq!(g.threshold, expect, "{}", path.display());
        assert!(!g.masking && !g.truncation_only_after_failure && !g.coalesce_turns);
        // Before v0.26 no reverse-budget truncation of old tool output; v0.26–v0.28 by lines.
        let v26 = g.version >= Version::new(0, 26, 0);
        assert_eq!(g.reverse_budget_truncation, v26, "{}", path.display());
        assert_eq!(g.truncate_last_lines, v26, "{}", path.display());
        checked += 1;
    }
    assert_eq!(checked, 39);
}

#[test]
fn codex_table_agrees_with_real_rollouts() {
    let Some(dir) = corpus("real/codex") else {
        return;
    };
    let mut checked = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut version = None;
        let mut model = None;
        let mut window = None;
        let mut peak = 0u64;
        let mut compactions = 0;
        for l in text.lines() {
            let Ok(r) = serde_json::from_str::<Record>(l) else {
                continue;
            };
            let p = &r["payload"];
            match r["type"].as_str() {
                Some("session_meta") => version = p["cli_version"].as_str().map(String::from),
                Some("turn_context") => model = p["model"].as_str().map(String::from),
                Some("compacted") => compactions += 1,
                Some("event_msg") if p["type"] == "token_count" => {
                    if let Some(w) = p["info"]["model_context_window"].as_u64() {
                        window = Some(w);
                    }
                    peak = peak.max(
                        p["info"]["last_token_usage"]["total_tokens"]
                            .as_u64()
                            .unwrap_or(0),
                    );
                }
                _ => {}
            }
        }
        let c = codex(version.as_deref(), model.as_deref(), window, None);
        assert!(c.version_known, "{}", path.display());
        // Both rollouts: 0.125.0, gpt-5.5, recorded 258,400 → 272,000 → limit 244,800; neither
        // reached it and neither compacted.
        assert_eq!(
            (window, c.context_window, c.auto_compact_limit),
            (Some(258_400), 272_000, 244_800)
        );
        assert!(
            peak > 0 && peak < c.auto_compact_limit,
            "{}: peak {peak}",
            path.display()
        );
        assert_eq!(compactions, 0);
        checked += 1;
    }
    assert_eq!(checked, 2);
}
