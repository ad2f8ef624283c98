//! What each algorithm does: a trigger point computed by hand, validation against the recorded
//! compaction, every algorithm acting in a small window, the agents' own compaction calls
//! priced, and the constants the settings give.

use super::*;

#[test]
fn claude_trigger_point_matches_hand_arithmetic() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_claude_session(dir.path(), 20);
    let rows = json_out(
        sessions()
            .args([
                "replay-compress",
                "-A",
                "claude",
                "--context-window",
                "200000",
                "--timeline",
                "--format",
                "json",
            ])
            .arg(&path),
    );
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["schema_version"], 1);
    assert_eq!(r["basis"], "recorded");
    assert_eq!(r["threshold"], 167_000);
    // Before request k the context is 5,000 + 10,000 (k + 1) + k: first ≥ 167,000 at k = 16.
    assert_eq!(r["compressions"], 1);
    let e = &r["events"][0];
    assert_eq!(e["request"], 16);
    assert_eq!(e["kind"], "compress");
    assert_eq!(e["tokens_before"], 175_016);
    // No real summaries in the scan: the documented default of 3,000 tokens.
    assert_eq!(r["summary_tokens"], 3_000);
    assert_eq!(e["tokens_after"], 8_000);
    assert_eq!(e["summarised"], 33);
    assert_eq!(e["kept"], 0);
    let t = r["timeline"].as_array().unwrap();
    assert_eq!(t.len(), 20);
    // Estimates equal the recorded sizes exactly by construction, until the compaction.
    for p in &t[..16] {
        assert_eq!(p["full"], p["recorded"]);
        assert_eq!(p["what_if"], p["full"]);
    }
    assert_eq!(t[16]["what_if"], 8_000);
    // Request 17 adds the reply (1) and the next prompt (10,000).
    assert_eq!(t[17]["what_if"], 18_001);
    let tot = &r["totals"];
    let full: u64 = t.iter().map(|p| p["full"].as_u64().unwrap()).sum();
    let what_if: u64 = t.iter().map(|p| p["what_if"].as_u64().unwrap()).sum();
    assert_eq!(tot["full"], full);
    assert_eq!(tot["what_if"], what_if);
    assert_eq!(tot["saved"].as_i64().unwrap(), full as i64 - what_if as i64);
    assert_eq!(tot["summariser_tokens"], 175_016 + 3_000);
    assert_eq!(
        tot["net_saved"].as_i64().unwrap(),
        tot["saved"].as_i64().unwrap() - 178_016
    );
    // Only request 19 (5,000 + 200,019) exceeds the 200k window.
    assert_eq!(r["over_window"]["full"], 1);
    assert_eq!(r["peak"]["full"], 5_000 + 200_000 + 19);
}

#[test]
fn validate_pairs_the_recorded_compaction() {
    // The fixture's auto compaction happened at 12,500 tokens; a window whose 90% is 12,500
    // (13,889) puts Codex's own trigger there. Until the replay intervenes, the recorded
    // counts are the what-if counts, so the replay must trigger at the same request.
    let rows = json_out(sessions().arg("--home").arg(home()).args([
        "replay-compress",
        "019d4e99",
        "-A",
        "codex",
        "--validate",
        "--context-window",
        "13889",
        "--format",
        "json",
    ]));
    let v = rows[0]["validation"].as_array().unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0]["recorded_request"], 2);
    assert_eq!(v[0]["recorded_tokens_before"], 12_500);
    assert_eq!(v[0]["replay_request"], 2);
    assert_eq!(v[0]["request_delta"], 0);
    // The second one was a manual /compact at 9,300 tokens: no automatic trigger matches it.
    assert_eq!(v[1]["recorded_tokens_before"], 9_300);
    assert!(v[1]["replay_request"].is_null());
}

#[test]
fn small_windows_make_every_algorithm_act() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_claude_session(dir.path(), 20);
    // (algorithm, settings, expected event kind). The prompts are 10,000 tokens each.
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "gemini",
            &["--set", "threshold=0.3", "--set", "masking=false"],
            "compress",
        ),
        ("pi", &["--set", "keep_recent_tokens=20000"], "compress"),
        ("claude", &[], "compress"),
        ("codex", &[], "compress"),
    ];
    for (alg, extra, kind) in cases {
        let rows = json_out(
            sessions()
                .args([
                    "replay-compress",
                    "-A",
                    alg,
                    "--context-window",
                    "100000",
                    "--format",
                    "json",
                ])
                .args(*extra)
                .arg(&path),
        );
        let r = &rows[0];
        let kinds: Vec<&str> = r["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert!(kinds.contains(kind), "{alg}: {kinds:?}");
        assert!(
            r["totals"]["saved"].as_i64().unwrap() > 0,
            "{alg} saved nothing"
        );
        assert!(
            r["peak"]["what_if"].as_u64().unwrap() < r["peak"]["full"].as_u64().unwrap(),
            "{alg}"
        );
    }
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn openclaw_prunes_real_tool_output_when_ungated() {
    let file = Path::new(env!("SESSIONS_CORPUS_DIR"))
        .join("claude/real-v1.0.95-thinking-tool-errors.jsonl");
    let rows = json_out(
        sessions()
            .args([
                "replay-compress",
                "-A",
                "openclaw-prune",
                "--sweep",
                "ttl=0,5",
                "--set",
                "soft_trim_ratio=0.05",
                "--format",
                "json",
            ])
            .arg(&file),
    );
    // Ungated (ttl=0) the pruner acts on this real session's tool results; gated by a 5-minute
    // cache TTL it never does, because the session has no idle gap that long.
    assert_eq!(rows[0]["settings"]["ttl"], 0);
    assert!(rows[0]["compressions"].as_u64().unwrap() > 0);
    assert!(
        rows[0]["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["kind"] == "prune")
    );
    assert!(rows[0]["totals"]["saved"].as_i64().unwrap() > 0);
    assert_eq!(rows[1]["settings"]["ttl"], 5);
    assert_eq!(rows[1]["compressions"], 0);
}

/// No transcript records the agent's own compaction calls: the replay estimates them as its own
/// summariser calls (the context summarised as uncached input, the summary as output), reports
/// them apart and counts them in the saving against recorded, in JSON and in the verdict.
#[test]
fn the_agents_own_compaction_calls_are_priced_apart() {
    let rollout = home().join(
        ".codex/sessions/2026/04/02/rollout-2026-04-02T14-30-00-019d4e99-de40-7b52-9d63-6e2f3a4b5c02.jsonl",
    );
    let args = ["replay-compress", "-A", "codex", "--context-window", "8000"];
    let rows = json_out(
        sessions()
            .args(args)
            .arg(&rollout)
            .args(["--format", "json"]),
    );
    // An automatic compaction at 12,500 prompt tokens and a manual one at 9,300, summaries of
    // 245 and 178 bytes (62 + 45 tokens); gpt-5.1-codex-max: $1.25 input, $10 output per
    // million: 21,800 × 1.25 + 107 × 10 = $0.02832.
    assert_eq!(
        rows[0]["cost"]["recorded_summariser"],
        json!({"compactions": 2, "input": 21_800, "output": 107, "usd": 0.02832})
    );
    let out = sessions().args(args).arg(&rollout).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let verdict: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("verdict"))
        .take_while(|l| !l.starts_with("note"))
        .flat_map(str::split_whitespace)
        .collect();
    let verdict = verdict.join(" ");
    let usd = rows[0]["cost"]["saved_vs_recorded_usd"].as_f64().unwrap();
    let cents = if usd < 0.0 {
        format!("cost ${:.2} more", -usd)
    } else {
        format!("saved ${usd:.2}")
    };
    assert!(
        verdict.contains(&format!(
            "{cents} in dollars, counting the agent's own 2 compaction calls (estimated at $0.03)"
        )),
        "{verdict}"
    );
}

/// A Gemini snapshot's size before a compaction is estimated from the log's text (227 and 348
/// tokens here, no system prompt): not what the agent sent. The agent's call is priced, and
/// validated, on the request before it instead: 22,000 + 40 before the `/compress`, 5,600 + 90
/// before the automatic one.
#[test]
fn a_gemini_snapshots_estimated_size_is_not_taken_as_recorded() {
    let args = [
        "replay-compress",
        "-A",
        "gemini",
        "e5f6a7b8",
        "--format",
        "json",
    ];
    let rows = json_out(sessions().arg("--home").arg(home()).args(args));
    // Two calls each (summary, then verification over context and summary): summaries of 134
    // and 121 tokens; 2 × 22,040 + 134 + 2 × 5,690 + 121.
    let agent = &rows[0]["cost"]["recorded_summariser"];
    assert_eq!(agent["compactions"], 2, "{agent}");
    assert_eq!(agent["input"], 55_715, "{agent}");
    assert_eq!(agent["output"], 2 * 134 + 2 * 121, "{agent}");
    let rows = json_out(sessions().arg("--home").arg(home()).args(args).args([
        "--validate",
        "--set",
        "threshold=0.005",
    ]));
    let v = rows[0]["validation"].as_array().unwrap();
    let before: Vec<&Value> = v.iter().map(|r| &r["recorded_tokens_before"]).collect();
    assert_eq!(before, [&json!(22_000), &json!(5_600)], "{v:?}");
}

/// A compaction of unknown trigger (the Gemini JSON snapshot of f6a7b8c9) gets its validation
/// row but is no automatic compaction: of the sample home's Gemini compactions, three are
/// `auto`.
#[test]
fn an_unknown_trigger_is_not_counted_as_automatic() {
    let args = ["replay-compress", "-A", "gemini", "--all", "--validate"];
    let rows = json_on_home(&args);
    let unknown = rows
        .iter()
        .find(|r| {
            r["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("f6a7b8c9"))
        })
        .expect("the session with the unknown-trigger compaction");
    assert_eq!(unknown["validation"][0]["trigger"], "unknown", "{unknown}");
    assert_eq!(unknown["fidelity"]["recorded_auto"], 0, "{unknown}");
    let summary = rows
        .iter()
        .find(|r| r["kind"] == "validation_summary")
        .expect("a validation summary");
    assert_eq!(summary["recorded_auto"], 3, "{summary}");
    let text = String::from_utf8(common::stdout_of(
        sessions().arg("--home").arg(home()).args(args),
    ))
    .unwrap();
    let fidelity = text
        .lines()
        .find(|l| l.starts_with("gemini ") && l.contains('%'))
        .expect("the fidelity row");
    let cells: Vec<&str> = fidelity.split_whitespace().collect();
    // AGENT SESSIONS AUTO ...
    assert_eq!(cells[2], "3", "{text}");
}

/// Pi with compaction turned off has no threshold to report or draw (as a Codex version that
/// never compacts has none), and compacts nothing.
#[test]
fn pi_with_compaction_off_has_no_threshold() {
    let rows = json_out(sessions().arg("--home").arg(home()).args([
        "replay-compress",
        "-A",
        "pi",
        "--all",
        "--context-window",
        "8000",
        "--set",
        "enabled=false",
        "--format",
        "json",
    ]));
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["threshold"], Value::Null, "{}", r["id"]);
        assert_eq!(r["compressions"], 0, "{}", r["id"]);
    }
}

/// The Claude constants say what the settings did: a formula whose result is the formula's,
/// the `autocompact_pct` that lowered it after, and settings a ratio-era version ignores.
#[test]
fn claude_constants_say_what_the_settings_did() {
    let rows = json_out(sessions().arg("--home").arg(home()).args([
        "-q",
        "replay-compress",
        "-A",
        "claude",
        "--set",
        "buffer_tokens=50000",
        "--set",
        "autocompact_pct=50",
        "--format",
        "json",
        "6f0d3c52",
        "f0e1d2c3",
    ]));
    let of = |id: &str| {
        rows.iter()
            .find(|r| r["id"].as_str().unwrap().starts_with(id))
            .unwrap()
    };
    assert_eq!(of("6f0d3c52")["threshold"], 90_000);
    assert_eq!(
        of("6f0d3c52")["constants"],
        "Claude Code 2.1.90: 200000 − min(32000, 20000) − 50000 = 130000, lowered by \
         autocompact_pct to 50% of 180000 = 90000"
    );
    assert_eq!(of("f0e1d2c3")["threshold"], 154_560);
    assert!(
        of("f0e1d2c3")["constants"]
            .as_str()
            .unwrap()
            .ends_with("= 154560 (buffer_tokens and autocompact_pct apply from 1.0.71)")
    );
}
