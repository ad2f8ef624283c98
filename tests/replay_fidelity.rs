//! Does replaying an agent's own algorithm reproduce what the agent really did? Measured with
//! `replay-compress --validate` on the real sessions of `../shared/corpus/real` (read-only):
//! Claude Code transcripts with real automatic and manual compactions (2.1.5–2.1.42), Claude
//! projects with none, and newer Codex rollouts.
//!
//! The figures asserted here are the agreement reached on 2026-11-24 (see the README's replay
//! section); a change that loses fidelity fails them.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn real(dir: &str) -> PathBuf {
    Path::new(env!("SESSIONS_CORPUS_DIR"))
        .join("real")
        .join(dir)
}

/// `replay-compress --validate --format json` over one folder: the per-session records and the
/// per-agent `validation_summary`.
fn validate(alg: &str, dir: &Path) -> (Vec<Value>, Option<Value>) {
    let all = common::json_array(
        common::sessions()
            .args([
                "replay-compress",
                "-A",
                alg,
                "--validate",
                "--format",
                "json",
            ])
            .arg(dir),
    );
    let (summary, sessions): (Vec<Value>, Vec<Value>) = all
        .into_iter()
        .partition(|r| r["kind"] == "validation_summary");
    (sessions, summary.into_iter().next())
}

fn f(v: &Value) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {v}"))
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn claude_real_auto_compactions_are_predicted_within_one_request() {
    let (sessions, summary) = validate("claude", &real("claude_compaction"));
    // 30 files, 10 of them copies of a session another file holds whole: replayed once.
    assert_eq!(sessions.len(), 20);
    let s = summary.expect("a validation_summary record");
    // 24 distinct automatic compactions (copies of one session counted once).
    assert_eq!(s["recorded_auto"], 24, "{s}");
    // 23 within ±1 request; the miss (8f74bfe9…, request 14, Claude Code 2.1.42) counted
    // content the transcript never recorded.
    assert!(s["predicted"].as_u64().unwrap() >= 23, "{s}");
    assert!(f(&s["median_token_error_pct"]) <= 0.5, "{s}");
    assert!(f(&s["median_series_error_pct"]) <= 0.5, "{s}");
    assert!(f(&s["median_calibration_error_pct"]) <= 1.0, "{s}");
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn claude_thresholds_follow_each_sessions_version() {
    let (sessions, _) = validate("claude", &real("claude_compaction"));
    let mut seen = (0, 0);
    for s in &sessions {
        let version = s["agent_version"].as_str().expect("every file records it");
        let v: Vec<u32> = version.split('.').map(|p| p.parse().unwrap()).collect();
        // The output reserve's cap went from 32,000 to 20,000 in 2.1.21 (docs/versions.md).
        let expected = if v < vec![2, 1, 21] {
            seen.0 += 1;
            155_000
        } else {
            seen.1 += 1;
            167_000
        };
        assert_eq!(
            s["threshold"], expected,
            "{}: {}",
            s["path"], s["constants"]
        );
        assert!(
            s["constants"].as_str().unwrap().contains(version),
            "{}",
            s["constants"]
        );
        // Every recorded automatic compaction fired at or above that threshold.
        for v in s["validation"].as_array().unwrap() {
            if v["trigger"] == "auto" {
                assert!(f(&v["recorded_tokens_before"]) >= expected as f64, "{v}");
            }
        }
    }
    assert!(
        seen.0 > 5 && seen.1 > 5,
        "both eras are in the corpus: {seen:?}"
    );
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn with_no_compaction_there_is_no_saving_and_the_estimate_is_calibrated() {
    let (sessions, summary) = validate("claude", &real("claude_real_projects"));
    assert!(sessions.len() >= 18, "{}", sessions.len());
    let mut calibrated = 0;
    for s in &sessions {
        assert_eq!(s["compressions"], 0, "{}", s["path"]);
        let t = &s["totals"];
        // What-if is the recorded series exactly: no saving that is only estimator error.
        assert_eq!(t["what_if"], t["recorded"], "{}", s["path"]);
        assert_eq!(t["saved_vs_recorded"], 0, "{}", s["path"]);
        if s["basis"] == "recorded" {
            assert!(s["calibration"]["median_error_pct"].is_number(), "{s}");
            calibrated += 1;
        } else {
            assert!(
                s["notes"].to_string().contains("uncalibrated"),
                "an estimate says so: {}",
                s["notes"]
            );
        }
    }
    assert!(calibrated >= 16, "{calibrated}");
    let s = summary.expect("a validation_summary record");
    // Before any compaction the calibrated `full` series is within 3% (median) of the recorded
    // prompt sizes.
    assert!(f(&s["median_calibration_error_pct"]) <= 3.0, "{s}");
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn codex_limits_come_from_the_recorded_version_and_window() {
    let (sessions, _) = validate("codex", &real("codex"));
    assert!(!sessions.is_empty());
    for s in &sessions {
        assert_eq!(s["agent_version"], "0.125.0", "{}", s["path"]);
        // Recorded model_context_window 258,400 = 272,000 × 95%; the limit is 90% of 272,000.
        assert_eq!(s["limits"]["context_window"], 272_000, "{}", s["path"]);
        assert_eq!(s["threshold"], 244_800, "{}", s["constants"]);
        assert_eq!(s["compressions"], 0);
        assert_eq!(s["totals"]["what_if"], s["totals"]["recorded"]);
    }
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn the_cache_model_matches_the_cache_reads_claude_recorded() {
    let (sessions, _) = validate("claude", &real("claude_compaction"));
    let mut errors: Vec<f64> = sessions
        .iter()
        .map(|s| f(&s["cost"]["cache_read_error_pct"]))
        .collect();
    errors.sort_by(f64::total_cmp);
    // Σ|modelled − recorded| / Σ recorded cache reads per session: median 1.9%, worst 5.7% on
    // 2026-11-24.
    assert!(errors[errors.len() / 2] <= 3.0, "{errors:?}");
    assert!(errors[errors.len() - 1] <= 8.0, "{errors:?}");
    for s in &sessions {
        let c = &s["cost"];
        assert!(f(&c["full"]["usd"]) > 0.0, "{c}");
        let saved = f(&c["saved_usd"]);
        let by_parts = f(&c["full"]["usd"]) - f(&c["what_if"]["usd"]);
        assert!((saved - by_parts).abs() < 1e-5, "{c}");
    }
    // Money and tokens can disagree: on some session compaction saved tokens and cost money.
    assert!(
        sessions
            .iter()
            .any(|s| f(&s["totals"]["saved"]) > 0.0 && f(&s["cost"]["saved_usd"]) < 0.0),
        "no session where the sign differs"
    );
}

/// A replay's recorded series is the session's requests as the agent recorded them: it costs,
/// to the millionth, what `show` says the session cost (both sum the requests exactly; the
/// replay summed floats, and four corpus sessions were a millionth apart).
#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn the_recorded_series_costs_what_show_says_the_session_cost() {
    let (sessions, _) = validate("claude", &real("claude_compaction"));
    assert!(sessions.len() >= 20, "{}", sessions.len());
    for s in &sessions {
        let path = s["path"].as_str().unwrap();
        let out = common::sessions()
            .args(["show", path, "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{path}");
        let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(s["cost"]["recorded"]["usd"], shown["cost_usd"], "{path}");
    }
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn replaying_claudes_own_compaction_costs_what_claude_paid() {
    let (sessions, _) = validate("claude", &real("claude_compaction"));
    // The sessions the replay reproduces request for request (it compacted where Claude Code
    // did: nothing saved against recorded in tokens) and whose cache reads the cache model
    // matches within 1%: here the two sides paid for the same requests and the same compactions,
    // so the saving against recorded in dollars is about nothing. Leaving out Claude's own
    // compaction calls (about $0.85 each here) made it −$0.73 to −$1.23 on every one of them.
    let same: Vec<&Value> = sessions
        .iter()
        .filter(|s| s["totals"]["saved_vs_recorded"] == 0)
        .filter(|s| f(&s["cost"]["cache_read_error_pct"]) <= 1.0)
        .collect();
    // Five sessions, once each (copies of one session in several files are replayed once).
    assert!(same.len() >= 5, "{}", same.len());
    for s in same {
        let c = &s["cost"];
        let saved = f(&c["saved_vs_recorded_usd"]);
        assert!(saved.abs() < 0.5, "{}: {c}", s["path"]);
        // One estimated call per compaction the agent ran (none of these was resumed).
        let ran = s["validation"].as_array().unwrap().len();
        assert_eq!(c["recorded_summariser"]["compactions"], ran, "{c}");
        assert!(f(&c["recorded_summariser"]["usd"]) > 0.5, "{c}");
    }
}

/// A version number chooses the constants of the agent that recorded it, and only that
/// agent's: another agent's session is replayed at the algorithm's newest constants (a Codex
/// 0.98.0 session is not Claude Code 0.98.0, whose oldest row reserves no output), and the
/// formula of a version that caps no output reservation names no cap.
#[test]
fn another_agents_version_does_not_choose_the_constants() {
    let home = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");
    for (alg, own, newest) in [
        ("claude", "claude", "Claude Code (newest): "),
        ("codex", "codex", "Codex (newest): "),
    ] {
        let rows = common::json_array(common::sessions().args([
            "--home",
            home,
            "replay-compress",
            "--all",
            "-A",
            alg,
            "--format",
            "json",
        ]));
        assert!(rows.iter().any(|r| r["agent"] != own), "{alg}");
        for r in &rows {
            let c = r["constants"].as_str().unwrap();
            assert!(!c.contains(&u64::MAX.to_string()), "{}: {c}", r["id"]);
            if r["agent"] != own {
                assert!(c.starts_with(newest), "{alg} over {}: {c}", r["id"]);
            }
        }
    }
}

/// Replaying Codex's own algorithm over a Codex session it never compacts on its own: the
/// agent's automatic compaction is followed one request late, that request goes uncompacted,
/// and a note says which request and by how many tokens, the whole of the saving against the
/// recording here (the manual one is applied where it was typed).
#[test]
fn a_compaction_followed_one_request_late_is_said_with_its_cost() {
    let all = common::json_array(
        common::sessions()
            .args([
                "--home",
                concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home"),
            ])
            .args(["replay-compress", "019d4e99", "-A", "codex", "--timeline"])
            .args(["--format", "json"]),
    );
    let s = &all[0];
    assert_eq!(s["compressions"], 0, "{s}");
    assert_eq!(s["followed"], 2, "{s}");
    let timeline = s["timeline"].as_array().unwrap();
    let waited: Vec<(u64, u64)> = timeline
        .iter()
        .filter(|p| p["what_if"].as_u64() > p["recorded"].as_u64())
        .map(|p| {
            let (w, r) = (
                p["what_if"].as_u64().unwrap(),
                p["recorded"].as_u64().unwrap(),
            );
            (p["request"].as_u64().unwrap(), w - r)
        })
        .collect();
    assert_eq!(waited, [(2, 3_342)], "{timeline:?}");
    assert_eq!(s["totals"]["saved_vs_recorded"], -3_342);
    let notes: Vec<&str> = s["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|n| n.contains("one request late"))
        .collect();
    assert_eq!(notes.len(), 1, "{:?}", s["notes"]);
    assert!(
        notes[0].starts_with("1 automatic compaction")
            && notes[0].contains("request 2 went uncompacted, 3,342 tokens above"),
        "{}",
        notes[0]
    );
}
