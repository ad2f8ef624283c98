//! `sessions replay-compress` through the binary: the JSON contract, a trigger point computed by
//! hand, sweeps, settings errors, plots, and the estimated/unknown-model notes.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};

fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home")
}

fn sessions() -> Command {
    let mut c = Command::cargo_bin("sessions").unwrap();
    c.env("TZ", "UTC").env("COLUMNS", "200");
    c
}

fn json_out(c: &mut Command) -> Vec<Value> {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A Claude session of `turns` turns: each prompt is 40,000 ASCII characters (10,000 tokens at
/// bytes/4), each reply "ok" (1 token); the recorded prompt of request k is
/// 5,000 + 10,000 × (k + 1) + k, i.e. a 5,000-token overhead plus exactly the estimate. Past
/// 19 turns its prompts exceed 200k, which only a 1M-window session records: tests that mean a
/// 200k window say `--context-window 200000`.
fn big_claude_session(dir: &Path, turns: usize) -> PathBuf {
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    for k in 0..turns {
        let u = format!("u{k}");
        lines.push(json!({
            "type": "user", "sessionId": "big-1", "uuid": u, "parentUuid": parent,
            "cwd": "/home/dev/big", "timestamp": format!("2026-05-01T10:{:02}:00.000Z", k % 60),
            "message": {"role": "user", "content": "x".repeat(40_000)}
        }));
        let a = format!("a{k}");
        let prompt = 5_000 + 10_000 * (k as u64 + 1) + k as u64;
        lines.push(json!({
            "type": "assistant", "sessionId": "big-1", "uuid": a, "parentUuid": u,
            "cwd": "/home/dev/big", "timestamp": format!("2026-05-01T10:{:02}:30.000Z", k % 60),
            "requestId": format!("req_{k}"),
            "message": {"id": format!("msg_{k}"), "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": prompt, "output_tokens": 1,
                          "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}
        }));
        parent = Value::String(a);
    }
    let path = dir.join("big-1.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&path, text).unwrap();
    path
}

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
fn sweep_gives_one_record_per_setting_and_a_table_row_each() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_claude_session(dir.path(), 20);
    let rows = json_out(
        sessions()
            .args([
                "replay-compress",
                "-A",
                "claude",
                "--sweep",
                "autocompact_pct=50,100",
                "--context-window",
                "200000",
                "--format",
                "json",
            ])
            .arg(&path),
    );
    let pcts: Vec<f64> = rows
        .iter()
        .map(|r| r["settings"]["autocompact_pct"].as_f64().unwrap())
        .collect();
    assert_eq!(pcts, [50.0, 100.0]);
    // 50% of the 180,000 effective window = 90,000: reached before request 8 (5,000 + 90,007).
    assert_eq!(rows[0]["events"][0]["request"], 8);
    assert_eq!(rows[1]["events"][0]["request"], 16);
    sessions()
        .args([
            "replay-compress",
            "-A",
            "claude",
            "--sweep",
            "autocompact_pct=50,100",
        ])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("autocompact_pct=50"))
        .stdout(predicate::str::contains("autocompact_pct=100"));
}

#[test]
fn settings_errors_name_the_key_and_range() {
    sessions()
        .arg("--home")
        .arg(home())
        .args([
            "replay-compress",
            "--all",
            "-A",
            "claude",
            "--set",
            "autocompact_pct=500",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("autocompact_pct"))
        .stderr(predicate::str::contains("from 1 to 100"));
    sessions()
        .arg("--home")
        .arg(home())
        .args(["replay-compress", "--all", "-A", "codex", "--set", "nope=1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("auto_compact_token_limit"));
    sessions()
        .args(["replay-compress", "-A", "codex"])
        .assert()
        .code(2);
    sessions()
        .arg("--home")
        .arg(home())
        .args(["replay-compress", "--all", "-A", "claude"])
        .args([
            "--sweep",
            "autocompact_pct=50,60",
            "--sweep",
            "autocompact_pct=70",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--sweep autocompact_pct is given twice",
        ));
    // One replay's views: a sweep's mixed or dropped them.
    for view in [&["--validate"][..], &["--timeline"], &["--plot", "x.svg"]] {
        sessions()
            .arg("--home")
            .arg(home())
            .args(["replay-compress", "--all", "-A", "claude"])
            .args(["--sweep", "autocompact_pct=50,100"])
            .args(view)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("cannot be used with"));
    }
}

#[test]
fn sample_home_replays_every_session_and_says_what_is_estimated() {
    let rows = json_out(sessions().arg("--home").arg(home()).args([
        "replay-compress",
        "--all",
        "--kind",
        "all",
        "-A",
        "codex",
        "--format",
        "json",
    ]));
    assert_eq!(rows.len(), 26);
    for r in &rows {
        let t = &r["totals"];
        for k in [
            "full",
            "recorded",
            "what_if",
            "saved",
            "saved_pct",
            "summariser_tokens",
            "net_saved",
        ] {
            assert!(!t[k].is_null(), "totals.{k} in {r}");
        }
        assert!(r["compressions"].is_u64());
        assert!(r["events"].is_array());
        assert!(r.get("timeline").is_none(), "timeline only with --timeline");
    }
    // The bare-era Codex rollout has no usage: replayed on estimates, and it says so.
    let bare = rows
        .iter()
        .find(|r| r["id"] == "5f0c2d1e-8b3a-4c6d-9e7f-1a2b3c4d5e6f")
        .unwrap();
    assert_eq!(bare["basis"], "estimated");
    assert!(
        bare["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("estimate"))
    );
    // Its model is unknown (no turn_context in that era): the default window, said so.
    assert_eq!(bare["limits"]["source"], "default");
    assert_eq!(bare["limits"]["context_window"], 272_000);
    // Codex records its own window (`model_context_window`), which wins over the model table.
    let rec = rows
        .iter()
        .find(|r| r["id"] == "019d4e99-de40-7b52-9d63-6e2f3a4b5c02")
        .unwrap();
    assert_eq!(rec["limits"]["source"], "recorded");
    assert_eq!(rec["limits"]["context_window"], 272_000);
    // Calibrated from the two real Codex summaries in the sample home.
    assert_ne!(rows[0]["summary_tokens"], 1_500);
}

#[test]
fn plot_writes_an_svg_with_the_three_series() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_claude_session(dir.path(), 20);
    let svg = dir.path().join("chart.svg");
    sessions()
        .args([
            "replay-compress",
            "-A",
            "claude",
            "--context-window",
            "200000",
            "--plot",
        ])
        .arg(&svg)
        .arg(&path)
        .assert()
        .success();
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..100.min(text.len())]);
    for label in [
        "full (no management)",
        "recorded",
        "what-if (claude)",
        "threshold 167k",
        "window 200k",
        // Events are ticks on the axis, counted in the legend.
        "1 event",
    ] {
        assert!(text.contains(label), "missing {label}");
    }
}

#[test]
fn plots_of_sessions_whose_ids_share_a_prefix_get_names_of_their_own() {
    // Two Codex ids from one millisecond (UUIDv7) share their first 15 characters: each name
    // keeps as many as tell them apart.
    let dir = tempfile::tempdir().unwrap();
    let src = home().join(
        ".codex/sessions/2026/06/11/rollout-2026-06-11T11-05-00-019eb65b-5760-7eb5-80a6-9b5c6d7e8f05.jsonl",
    );
    let text = fs::read_to_string(&src).unwrap();
    let input = dir.path().join("in");
    fs::create_dir(&input).unwrap();
    fs::write(input.join("a.jsonl"), &text).unwrap();
    fs::write(
        input.join("b.jsonl"),
        text.replace(
            "019eb65b-5760-7eb5-80a6-9b5c6d7e8f05",
            "019eb65b-5760-7000-8000-000000000001",
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    fs::create_dir(&out).unwrap();
    let run = sessions()
        .args(["replay-compress", "--all", "-A", "codex", "--plot"])
        .arg(out.join("p.svg"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut written: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "p-codex-019eb65b-5760-70.svg",
            "p-codex-019eb65b-5760-7e.svg"
        ]
    );
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
fn every_algorithm_replays_the_sample_home_consistently() {
    for alg in ["gemini", "openclaw-prune", "pi", "claude", "codex"] {
        let rows = json_out(sessions().arg("--home").arg(home()).args([
            "replay-compress",
            "--all",
            "--kind",
            "all",
            "-A",
            alg,
            "--format",
            "json",
        ]));
        assert_eq!(rows.len(), 26, "{alg}");
        for r in &rows {
            let t = &r["totals"];
            let (full, what_if) = (t["full"].as_i64().unwrap(), t["what_if"].as_i64().unwrap());
            assert_eq!(
                t["saved"].as_i64().unwrap(),
                full - what_if,
                "{alg} {}",
                r["id"]
            );
            assert_eq!(
                t["net_saved"].as_i64().unwrap(),
                t["saved"].as_i64().unwrap() - t["summariser_tokens"].as_i64().unwrap(),
                "{alg} {}",
                r["id"]
            );
            assert_eq!(r["algorithm"], alg);
            // Nothing in the sample home comes near a real window: nothing to manage.
            assert_eq!(r["compressions"], 0, "{alg} {}", r["id"]);
        }
    }
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

#[test]
fn the_table_says_what_it_used_sorts_by_saving_and_ends_with_a_verdict() {
    let args = [
        "replay-compress",
        "--all",
        "-A",
        "pi",
        "--context-window",
        "20000",
    ];
    let rows = json_out(
        sessions()
            .arg("--home")
            .arg(home())
            .args(args)
            .args(["--format", "json"]),
    );
    let out = sessions()
        .env("COLUMNS", "80")
        .arg("--home")
        .arg(home())
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("algorithm: pi · window 20,000 · threshold 3,616"),
        "{text}"
    );
    assert!(text.contains("FULL: context with no management"), "{text}");
    assert!(text.contains("verdict: pi would have saved"), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
    }
    // Rows come biggest saving first (ties: newest first).
    let mut expected: Vec<(i64, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["totals"]["saved"].as_i64().unwrap(),
                r["started_at"].as_str().unwrap_or("").to_string(),
                r["id"].as_str().unwrap().chars().take(8).collect(),
            )
        })
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    let shown: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("AGENT"))
        .skip(1)
        .take(expected.len())
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .chars()
                .take(8)
                .collect()
        })
        .collect();
    let expected: Vec<String> = expected.into_iter().map(|e| e.2).collect();
    assert_eq!(shown, expected);
}

/// On a narrow terminal the table drops its least important columns; the legend under it
/// explains exactly the columns that are left.
#[test]
fn the_legend_explains_the_columns_shown() {
    let terms = [
        "FULL",
        "RECORDED",
        "WHAT-IF",
        "SAVED",
        "VS REC%",
        "SUMMARISER",
        "NET",
        "$SAVED",
        "COMP",
        "PEAK",
    ];
    for (columns, sweep) in [("80", false), ("80", true), ("200", false)] {
        let mut c = sessions();
        c.env("COLUMNS", columns).arg("--home").arg(home()).args([
            "replay-compress",
            "--all",
            "-A",
            "gemini",
        ]);
        if sweep {
            c.args(["--sweep", "threshold=0.2,0.5"]);
        }
        let out = c.output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let header = lines
            .iter()
            .find(|l| l.starts_with("AGENT") || l.starts_with("SETTING"))
            .expect("a table header");
        let shown: Vec<&str> = header.split("  ").map(str::trim).collect();
        // "· " before every term (the first gets one here), so `SAVED` is not `$SAVED`.
        let legend = format!(
            "· {}",
            lines
                .iter()
                .skip_while(|l| !l.starts_with("FULL:"))
                .take_while(|l| !l.starts_with("verdict"))
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join(" ")
        );
        for t in terms {
            assert_eq!(
                legend.contains(&format!("· {t}: ")),
                shown.contains(&t),
                "{columns} columns, sweep {sweep}: {t}\n{text}"
            );
        }
        if columns == "80" {
            assert!(
                !shown.contains(&"VS REC%"),
                "80 columns drop some: {header}"
            );
        }
    }
}

/// `--all` with files or folders reads them instead of the stores, filters included, as `list`
/// and `export --all` do; without `--all` the filters cannot narrow named paths.
#[test]
fn all_reads_named_folders_with_the_filters() {
    let codex = home().join(".codex");
    let ids = |v: Vec<Value>| -> Vec<String> {
        let mut ids: Vec<String> = v
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    let window = ["--since", "2026-03-01", "--until", "2026-04-30"];
    let listed = ids(json_out(
        sessions()
            .args(["list", "--format", "json"])
            .args(window)
            .arg(&codex),
    ));
    assert!(!listed.is_empty());
    let replayed = ids(json_out(
        sessions()
            .args([
                "replay-compress",
                "--all",
                "-A",
                "codex",
                "--format",
                "json",
            ])
            .args(window)
            .arg(&codex),
    ));
    assert_eq!(replayed, listed);
    // The whole folder holds more.
    let all = ids(json_out(
        sessions().args(["list", "--format", "json"]).arg(&codex),
    ));
    assert!(all.len() > listed.len());
    sessions()
        .args(["replay-compress", "-A", "codex"])
        .args(window)
        .arg(&codex)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "with --all, named files and folders are read",
        ));
}

/// Notes on stderr name the session they concern (and how many others share them); a note
/// every session shares is printed once, bare.
#[test]
fn notes_name_their_sessions() {
    let out = sessions()
        .arg("--home")
        .arg(home())
        .args(["replay-compress", "--all", "-A", "codex"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("note: ")).collect();
    assert!(
        notes.iter().any(|n| n.starts_with("note: summary size ")),
        "{stderr}"
    );
    assert!(
        notes.contains(
            &"note: 5f0c2d1e-8b3a and 2 other sessions: model (none recorded) unknown: assumed a \
              272,000-token window"
        ),
        "{stderr}"
    );
    // Each text once.
    let mut unique = notes.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), notes.len(), "{stderr}");
}

#[test]
fn session_ids_reach_no_terminal_and_no_svg_raw() {
    let dir = tempfile::tempdir().unwrap();
    let sid = "abcd\u{1b}[2Jef\u{202e}-0000";
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    for k in 0..3 {
        let (u, a) = (format!("u{k}"), format!("a{k}"));
        lines.push(
            json!({"type": "user", "sessionId": sid, "uuid": u, "parentUuid": parent,
            "cwd": "/home/dev/x", "timestamp": format!("2026-05-01T10:0{k}:00Z"),
            "message": {"role": "user", "content": "do it"}}),
        );
        lines.push(
            json!({"type": "assistant", "sessionId": sid, "uuid": a, "parentUuid": u,
            "cwd": "/home/dev/x", "timestamp": format!("2026-05-01T10:0{k}:30Z"),
            "requestId": format!("r{k}"), "message": {"id": format!("m{k}"),
            "role": "assistant", "model": "claude-\u{1b}]0;T\u{7}x",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 100 * (k + 1), "output_tokens": 1}}}),
        );
        parent = Value::String(a);
    }
    let path = dir.path().join("s.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&path, text).unwrap();
    let svg = dir.path().join("p.svg");
    let out = sessions()
        .args(["replay-compress", "-A", "claude", "--timeline", "--plot"])
        .arg(&svg)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("timeline: claude abcd^["));
    for bytes in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!bytes.iter().any(|&b| b == 0x1b || b == 0x07), "{text:?}");
        assert!(!text.contains('\u{202e}'), "{text:?}");
    }
    let svg = fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("abcd^["), "{svg}");
    assert!(
        !svg.chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "control characters in the SVG"
    );
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn two_named_copies_of_a_session_replay_it_once() {
    // The same Gemini session saved in two folders (the corpus keeps both copies).
    let dir = Path::new(env!("SESSIONS_CORPUS_DIR")).join("real/gemini_legacy");
    let a = dir.join("mgemini-Archives-session-2025-12-24T06-27-36e8d28f.json");
    let b = dir.join("mgemini-chat_logs-session-2025-12-24T06-27-36e8d28f.json");
    let records = json_out(
        sessions()
            .args(["replay-compress", "-A", "gemini", "--format", "json"])
            .arg(&a)
            .arg(&b),
    );
    assert_eq!(records.len(), 1, "{records:#?}");
    assert!(records[0]["id"].as_str().unwrap().starts_with("36e8d28f"));
}

#[test]
fn settings_lists_fit_the_terminal_and_cut_no_meaning() {
    for alg in ["gemini", "claude", "codex", "pi", "openclaw-prune"] {
        for width in [200usize, 80, 60] {
            let out = sessions()
                .env("COLUMNS", width.to_string())
                .args(["replay-compress", "-A", alg, "--list-settings"])
                .output()
                .unwrap();
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            for line in text.lines() {
                assert!(line.chars().count() <= width, "{alg} at {width}: {line}");
            }
            assert!(
                !text.contains('…'),
                "{alg} at {width}: a meaning was cut\n{text}"
            );
            if alg == "gemini" {
                let words: Vec<&str> = text.split_whitespace().collect();
                assert!(
                    words
                        .join(" ")
                        .contains("the default of the Gemini CLI era the file shows"),
                    "{width}: {text}"
                );
            }
        }
    }
}

#[test]
fn settings_lists_are_json_records_and_refuse_what_they_ignore() {
    for (alg, key, default) in [
        ("pi", "reserve_tokens", 16384),
        ("codex", "user_message_budget", 20000),
    ] {
        let records = json_out(sessions().args([
            "replay-compress",
            "-A",
            alg,
            "--list-settings",
            "--format",
            "json",
        ]));
        assert!(!records.is_empty());
        for r in &records {
            assert_eq!(r["schema_version"], 1);
            assert_eq!(r["kind"], "replay_setting");
            assert_eq!(r["algorithm"], alg);
            assert!(
                r["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{r}"
            );
            assert!(r["allowed"].is_string(), "{r}");
        }
        let r = records.iter().find(|r| r["key"] == key).unwrap();
        assert_eq!(
            (&r["type"], &r["default"]),
            (&"integer".into(), &default.into())
        );
        // NDJSON: the same records, one a line.
        let out = sessions()
            .args([
                "replay-compress",
                "-A",
                alg,
                "--list-settings",
                "--format",
                "ndjson",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap().lines().count(),
            records.len()
        );
    }
    let session = home().join(
        ".codex/sessions/2026/04/02/rollout-2026-04-02T14-30-00-019d4e99-de40-7b52-9d63-6e2f3a4b5c02.jsonl",
    );
    for extra in [
        vec!["--all"],
        vec![session.to_str().unwrap()],
        vec!["--sweep", "nope=1"],
        vec!["--set", "reserve_tokens=1"],
        vec!["--validate"],
    ] {
        sessions()
            .args([
                "replay-compress",
                "-A",
                "pi",
                "--list-settings",
                "--format",
                "json",
            ])
            .args(&extra)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains("--list-settings"));
    }
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
    let cents = format!("{}${:.2}", if usd < 0.0 { "−" } else { "" }, usd.abs());
    assert!(
        verdict.contains(&format!(
            "{cents} in dollars counting the agent's own 2 compaction calls (estimated at $0.03)"
        )),
        "{verdict}"
    );
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
