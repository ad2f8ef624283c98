//! `replay-compress --all` parses each file once and replays it while the scan holds it; a
//! named session is selected by a scan and then parsed in full. Both ways give the same
//! replay, and the summary size `--all` settles before its scan is the one the scan confirms.

use crate::common;

use std::path::Path;

use common::{json_array, sessions};
use serde_json::Value;

const HOME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");

fn replay_all(home: &Path, alg: &str, extra: &[&str]) -> Vec<Value> {
    json_array(
        sessions()
            .arg("--home")
            .arg(home)
            .args(["replay-compress", "--all", "-A", alg, "--format", "json"])
            .args(extra),
    )
}

#[test]
fn every_session_of_all_replays_as_it_does_alone() {
    for alg in ["claude", "codex", "gemini", "pi", "openclaw-prune"] {
        // A fixed summary size: alone, a session's `auto` size is the median of its own
        // summaries; with --all, of the selection's.
        let fixed = ["--summary-tokens", "2000"];
        let all = replay_all(Path::new(HOME), alg, &fixed);
        assert!(all.len() >= 20, "{alg}: {} sessions", all.len());
        for r in &all {
            let path = r["path"].as_str().unwrap();
            let alone = json_array(
                sessions()
                    .args(["--home", HOME, "replay-compress", "-A", alg])
                    .args(fixed)
                    .args(["--format", "json"])
                    .arg(r["id"].as_str().unwrap()),
            );
            let alone: Vec<&Value> = alone.iter().filter(|a| a["path"] == path).collect();
            assert_eq!(alone.len(), 1, "{alg} {path}");
            assert_eq!(alone[0], r, "{alg} {path}");
        }
    }
}

/// `--summary-tokens auto` is the median of the real summaries in the sessions the run replays:
/// a session named by its id (which scans the whole store) and by its file (which reads that
/// file alone) is replayed at one size. 1b2c3d4e holds no summary (the default, 3,000, though
/// the store's 6f0d3c52 holds one); 6f0d3c52 holds its own.
#[test]
fn a_session_by_id_and_by_path_is_replayed_at_one_summary_size() {
    let projects = Path::new(HOME).join(".claude/projects/-home-dev-webapp");
    for (id, own) in [
        ("1b2c3d4e-0a9f-4e8d-8c7b-6a5f4e3d2c10", false),
        ("6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01", true),
    ] {
        let path = projects.join(format!("{id}.jsonl"));
        let by = |target: &str| {
            let r = json_array(
                sessions()
                    .args(["--home", HOME, "replay-compress", "-A", "claude"])
                    .args(["--context-window", "8000", "--format", "json", target]),
            );
            assert_eq!(r.len(), 1, "{target}");
            (
                r[0]["summary_tokens"].as_u64().unwrap(),
                r[0]["totals"].clone(),
            )
        };
        let (by_id, by_path) = (by(id), by(path.to_str().unwrap()));
        assert_eq!(by_id, by_path, "{id}");
        assert_eq!(by_id.0 == 3_000, !own, "{id}: {}", by_id.0);
    }
}

/// Copies the sample home to `to`, with `edit` applied to each file's text.
fn copy_home(to: &Path, edit: &dyn Fn(&Path, String) -> String) {
    for entry in walkdir::WalkDir::new(HOME) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(HOME).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if let Ok(text) = std::fs::read_to_string(entry.path()) {
            std::fs::write(&dest, edit(rel, text)).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// A summary is found by reading the records, not their bytes: a key written with an escape
/// is the same key to a JSON parser, and sizes the replay as the plain key does.
#[test]
fn a_summary_written_with_escapes_still_sizes_the_replay() {
    let plain = tempfile::tempdir().unwrap();
    let escaped = tempfile::tempdir().unwrap();
    copy_home(plain.path(), &|_, t| t);
    let mut hits = 0;
    copy_home(escaped.path(), &|_, t| {
        t.replace("\"isCompactSummary\"", "\"isCompact\\u0053ummary\"")
    });
    for entry in walkdir::WalkDir::new(escaped.path()) {
        let p = entry.unwrap().into_path();
        if p.extension().is_some_and(|e| e == "jsonl") {
            let t = std::fs::read_to_string(&p).unwrap();
            assert!(!t.contains("isCompactSummary"), "{}", p.display());
            hits += t.matches("isCompact\\u0053ummary").count();
        }
    }
    assert!(
        hits >= 1,
        "the sample home has no Claude compaction summary to hide"
    );

    let strip = |rs: Vec<Value>, home: &Path| -> Vec<Value> {
        let prefix = home.to_str().unwrap();
        rs.into_iter()
            .map(|mut r| {
                let p = r["path"].as_str().unwrap().replacen(prefix, "HOME", 1);
                r["path"] = Value::String(p);
                r
            })
            .collect()
    };
    let a = strip(replay_all(plain.path(), "claude", &[]), plain.path());
    let b = strip(replay_all(escaped.path(), "claude", &[]), escaped.path());
    // The real summary sizes the replay in both (not the algorithm's default of 3,000).
    let sizes: Vec<u64> = a
        .iter()
        .map(|r| r["summary_tokens"].as_u64().unwrap())
        .collect();
    assert!(
        sizes.iter().all(|&s| s == sizes[0] && s < 3_000),
        "{sizes:?}"
    );
    assert_eq!(a, b);
}

/// With `--summary-tokens auto`, `--all` replays the files of the algorithm's own agent (every
/// file, for Pi) before it knows the size, at the algorithm's default, and then runs again the
/// replays that used the size: every replay is the one a run at the settled size gives. A small
/// window makes most sessions of the sample home compact (and, being an override, keeps the
/// agents' own algorithms from following their recordings in both runs).
#[test]
fn replays_made_before_the_summary_size_was_known_are_those_made_at_it() {
    let window = ["--context-window", "8000"];
    let mut compared = (0, 0);
    for alg in ["pi", "claude", "codex", "gemini"] {
        let auto = replay_all(Path::new(HOME), alg, &window);
        let size = auto[0]["summary_tokens"].as_u64().unwrap();
        assert!(auto.iter().all(|r| r["summary_tokens"] == size), "{alg}");
        let fixed = replay_all(
            Path::new(HOME),
            alg,
            &[&window[..], &["--summary-tokens", &size.to_string()]].concat(),
        );
        assert_eq!(auto.len(), fixed.len(), "{alg}");
        let named = format!("summary size {size} tokens (--summary-tokens)");
        for (a, mut f) in auto.into_iter().zip(fixed) {
            // The same size, named by where it came from.
            let settled = a["notes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n.as_str().unwrap().starts_with("summary size "))
                .unwrap()
                .clone();
            for n in f["notes"].as_array_mut().unwrap() {
                if *n == named.as_str() {
                    *n = settled.clone();
                }
            }
            assert_eq!(a, f, "{alg} {}", a["path"]);
            if a["events"].as_array().unwrap().is_empty() {
                compared.0 += 1;
            } else {
                compared.1 += 1;
            }
        }
    }
    assert!(compared.0 >= 20 && compared.1 >= 40, "{compared:?}");
}

/// `replay-compress -A gemini` over a folder of real sessions of the corpus, as JSON.
fn replay_real(folder: &str, extra: &[&str]) -> Vec<Value> {
    let dir = Path::new(env!("SESSIONS_CORPUS_DIR")).join(folder);
    json_array(
        sessions()
            .args(["replay-compress", "-A", "gemini", "--format", "json"])
            .arg(&dir)
            .args(extra),
    )
}

/// The settings of a sweep share what each replay of a session computes about its parts (their
/// sizes, truncations and masked forms): a sweep gives, setting by setting, what separate runs
/// give. Small masking and truncation thresholds make the mechanisms act on the real sessions
/// of `folder`.
fn a_sweep_gives_what_separate_runs_give(folder: &str, min_sessions: usize) {
    // Masking on: these sessions predate v0.30, so the Gemini CLI version their dates show
    // had none.
    let base = [
        "--set",
        "masking=true",
        "--set",
        "masking_protection_threshold=2000",
        "--set",
        "masking_min_prunable=1000",
        "--set",
        "truncate_tool_output_threshold=2000",
    ];
    let values = ["0.02", "0.05", "0.3"];
    let sweep = replay_real(
        folder,
        &[&base[..], &["--sweep", "threshold=0.02,0.05,0.3"]].concat(),
    );
    let mut kinds = std::collections::BTreeMap::new();
    for v in values {
        let threshold = format!("threshold={v}");
        let alone = replay_real(folder, &[&base[..], &["--set", &threshold]].concat());
        assert!(alone.len() >= min_sessions, "{v}: {} sessions", alone.len());
        let from_sweep: Vec<&Value> = sweep
            .iter()
            .filter(|r| r["settings"]["threshold"].as_f64() == v.parse::<f64>().ok())
            .collect();
        assert_eq!(from_sweep.len(), alone.len(), "{v}");
        for (a, b) in alone.iter().zip(from_sweep) {
            assert_eq!(a, b, "threshold {v}: {}", a["path"]);
            for e in a["events"].as_array().unwrap() {
                *kinds
                    .entry(e["kind"].as_str().unwrap().to_string())
                    .or_insert(0) += 1;
            }
        }
    }
    // Masking and compression both acted, so their shared figures were used.
    assert!(kinds.get("mask").is_some_and(|&n| n > 50), "{kinds:?}");
    assert!(kinds.get("compress").is_some_and(|&n| n >= 1), "{kinds:?}");
}

/// Gemini sessions: the resumed record's turns are sized once per session.
#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn a_sweep_replays_each_setting_as_a_run_of_its_own() {
    a_sweep_gives_what_separate_runs_give("real/gemini_legacy", 20);
}

/// Claude sessions replayed by Gemini's algorithm: their items are converted and sized once per
/// session.
#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn a_sweep_over_other_agents_sessions_replays_each_setting_as_a_run_of_its_own() {
    // 30 files; 10 are copies of a session another file holds whole, replayed once.
    a_sweep_gives_what_separate_runs_give("real/claude_compaction", 20);
}

/// A sweep over a setting that changes Gemini's estimator (the non-ASCII weight, turn
/// coalescing) calibrates each value on its own: every replay equals the single run with
/// `--set` the same value, byte for byte.
fn a_sweep_over_the_estimator_gives_what_separate_runs_give(
    folder: &str,
    key: &str,
    values: &[&str],
) {
    let sweep = replay_real(folder, &["--sweep", &format!("{key}={}", values.join(","))]);
    let mut compared = 0;
    for v in values {
        let alone = replay_real(folder, &["--set", &format!("{key}={v}")]);
        let value: Value = serde_json::from_str(v).unwrap();
        let from_sweep: Vec<&Value> = sweep
            .iter()
            .filter(|r| r["settings"][key] == value)
            .collect();
        assert_eq!(from_sweep.len(), alone.len(), "{key}={v}");
        for (a, b) in alone.iter().zip(from_sweep) {
            assert_eq!(
                serde_json::to_string(a).unwrap(),
                serde_json::to_string(b).unwrap(),
                "{key}={v}: {}",
                a["path"]
            );
            compared += usize::from(a["basis"] == "recorded");
        }
    }
    assert!(compared >= 20, "{compared}");
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn a_sweep_over_the_non_ascii_weight_calibrates_each_weight() {
    a_sweep_over_the_estimator_gives_what_separate_runs_give(
        "real/gemini_legacy",
        "non_ascii_weight",
        &["1.3", "1.5"],
    );
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn a_sweep_over_turn_coalescing_calibrates_each_value() {
    a_sweep_over_the_estimator_gives_what_separate_runs_give(
        "real/gemini_legacy",
        "coalesce_turns",
        &["true", "false"],
    );
}

/// A Claude session of `turns` turns, request k answered by message `msg_{tag_k}`, where the
/// tag is `branch` from turn `fork` on (a history that diverges there) and `main` before.
fn claude_history(turns: usize, fork: usize, branch: &str) -> String {
    let mut out = String::new();
    let mut parent = Value::Null;
    for k in 0..turns {
        let tag = if k >= fork { branch } else { "main" };
        let u = format!("u-{tag}-{k}");
        let a = format!("a-{tag}-{k}");
        for line in [
            serde_json::json!({
                "type": "user", "sessionId": "c0c0c0c0-1111-4222-8333-444455556666",
                "uuid": u, "parentUuid": parent, "cwd": "/home/dev/copies",
                "timestamp": format!("2026-05-01T10:{k:02}:00.000Z"),
                "message": {"role": "user", "content": format!("{tag} turn {k} {}", "x".repeat(4000))}
            }),
            serde_json::json!({
                "type": "assistant", "sessionId": "c0c0c0c0-1111-4222-8333-444455556666",
                "uuid": a, "parentUuid": u, "cwd": "/home/dev/copies",
                "timestamp": format!("2026-05-01T10:{k:02}:30.000Z"),
                "requestId": format!("req_{tag}_{k}"),
                "message": {"id": format!("msg_{tag}_{k}"), "role": "assistant",
                    "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "ok"}],
                    "usage": {"input_tokens": 2_000 + 1_000 * k as u64, "output_tokens": 1,
                              "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}
            }),
        ] {
            out.push_str(&format!("{line}\n"));
        }
        parent = Value::String(a);
    }
    out
}

fn requests_of(rows: &[Value]) -> u64 {
    rows.iter().map(|r| r["requests"].as_u64().unwrap()).sum()
}

fn usage_requests(dir: &Path) -> u64 {
    let out = sessions()
        .args(["usage", "monthly", "--format", "json"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["requests"].as_u64().unwrap())
        .sum()
}

/// A Claude session copied into several files (a resumed session, a backup, a checkpoint) is
/// one history: the replay measures it once, from the copy that holds the most of it, and
/// says which files it left out; its totals count the requests `usage` counts. A copy that
/// goes on differently from some point is a history of its own and is replayed.
#[test]
fn copies_of_a_claude_session_are_replayed_once() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("a/whole.jsonl", claude_history(12, 12, "main"));
    write("b/checkpoint.jsonl", claude_history(7, 7, "main"));
    write("c/backup.jsonl", claude_history(12, 12, "main"));
    let run = |extra: &[&str]| {
        let out = sessions()
            .args(["-v", "replay-compress", "-A", "claude", "--format", "json"])
            .args(extra)
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        (rows, String::from_utf8(out.stderr).unwrap())
    };
    for extra in [&["--all"][..], &[]] {
        let (rows, err) = run(extra);
        assert_eq!(rows.len(), 1, "{extra:?}: {rows:?}");
        assert_eq!(rows[0]["requests"], 12);
        assert!(rows[0]["path"].as_str().unwrap().ends_with("whole.jsonl"));
        assert_eq!(requests_of(&rows), usage_requests(dir.path()));
        for copy in ["checkpoint.jsonl", "backup.jsonl"] {
            assert!(
                err.lines()
                    .any(|l| l.contains(copy) && l.contains("copy of Claude session c0c0c0c0")),
                "{extra:?}: {err}"
            );
        }
    }
    // A branch from turn 5: both histories are replayed, the shared turns in each.
    write("d/branch.jsonl", claude_history(9, 5, "other"));
    let (rows, _) = run(&["--all"]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(requests_of(&rows), 12 + 9);
    assert_eq!(usage_requests(dir.path()), 12 + 4);
}

/// In the corpus, session 545b45d4 is in five files, each a point of one history: it is
/// replayed once, from the file that holds all of it, and the totals count each request once,
/// as `usage` does (but for the sub-agents' requests, which are no part of a replay).
#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn a_real_session_in_five_files_is_replayed_once() {
    let dir = Path::new(env!("SESSIONS_CORPUS_DIR")).join("real/claude_compaction");
    let out = sessions()
        .args([
            "-v",
            "replay-compress",
            "--all",
            "-A",
            "claude",
            "--format",
            "json",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let of = |id: &str| {
        rows.iter()
            .filter(|r| r["id"].as_str().is_some_and(|i| i.starts_with(id)))
            .count()
    };
    assert_eq!(of("545b45d4"), 1, "{err}");
    let copies = err
        .lines()
        .filter(|l| l.contains("copy of Claude session 545b45d4"))
        .count();
    assert_eq!(copies, 4, "{err}");
    // 21a2e002 is in pieces that follow one another (each holds requests the others lack):
    // each piece is replayed.
    assert_eq!(of("21a2e002"), 3, "{err}");
    // `usage` also counts the 88 sub-agent responses known only from the `agent_progress`
    // copies in their parents' files (65 haiku-4-5, 23 opus-4-6): another context than the
    // parent's, which the replay leaves out.
    assert_eq!(requests_of(&rows) + 88, usage_requests(&dir));
}
