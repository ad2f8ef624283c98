//! `sessions compactions`: the ledger over the sample home (one fixture per detection form) and
//! over the real corpus files that carry compactions.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What `args` print over the sample home; the command must succeed.
fn sample_stdout(args: &[&str]) -> Vec<u8> {
    common::stdout_of(
        common::sessions()
            .arg("--home")
            .arg(root().join("testdata/home"))
            .args(args),
    )
}

fn ledger(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["compactions", "--kind", "all", "--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_slice::<Value>(&sample_stdout(&all))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn find<'a>(events: &'a [Value], session: &str, kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["session_id"].as_str().unwrap().starts_with(session) && e["kind"] == kind)
        .collect()
}

#[test]
fn every_detection_form_in_the_sample_home() {
    let ev = ledger(&[]);
    // Claude compact_boundary + isCompactSummary: manual, pre 11,250, post 2,100, 18.5 s.
    let c = find(&ev, "6f0d3c52", "claude_boundary");
    assert_eq!(c.len(), 1);
    assert_eq!(
        (
            &c[0]["trigger"],
            &c[0]["tokens_before"],
            &c[0]["tokens_after"],
            &c[0]["duration_ms"]
        ),
        (
            &"manual".into(),
            &11_250.into(),
            &2_100.into(),
            &18_500.into()
        )
    );
    assert_eq!(c[0]["tokens_before_provenance"], "recorded");
    assert!(
        c[0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("This session is being continued")
    );
    // Codex compacted + context_compacted, one event each: auto 12,500 → 9,200 and manual
    // (/compact) 9,300 → 6,100, all recorded.
    let x = find(&ev, "019d4e99", "codex_compacted");
    let figures: Vec<(String, u64, u64)> = x
        .iter()
        .map(|e| {
            (
                e["trigger"].as_str().unwrap().to_string(),
                e["tokens_before"].as_u64().unwrap(),
                e["tokens_after"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        figures,
        [
            ("auto".to_string(), 12_500, 9_200),
            ("manual".to_string(), 9_300, 6_100)
        ]
    );
    // Gemini: /compress checkpoint (manual), auto checkpoint enriched by its
    // "Context compressed from 62% to 18%." info line, masking, both old info forms, the
    // experimental JSON snapshot and a snapshot inside a saved chat.
    let g = find(&ev, "e5f6a7b8", "gemini_snapshot");
    assert_eq!(g.len(), 2);
    assert_eq!(g[0]["trigger"], "manual");
    assert_eq!(
        (
            g[0]["messages_before"].as_u64(),
            g[0]["messages_after"].as_u64()
        ),
        (Some(8), Some(3))
    );
    assert_eq!(g[1]["trigger"], "auto");
    assert_eq!(
        (
            g[1]["percent_before"].as_u64(),
            g[1]["percent_after"].as_u64()
        ),
        (Some(62), Some(18))
    );
    assert_eq!(g[1]["tokens_before_provenance"], "estimated");
    assert!(
        g[1]["sections"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "current_plan")
    );
    assert!(
        g[0]["summary"]
            .as_str()
            .unwrap()
            .contains("<state_snapshot>")
    );
    assert_eq!(find(&ev, "e5f6a7b8", "gemini_masking").len(), 1);
    let info = find(&ev, "d4e5f6a7", "gemini_info");
    assert_eq!(info.len(), 2);
    assert_eq!(
        (
            info[0]["tokens_before"].as_u64(),
            info[0]["tokens_after"].as_u64()
        ),
        (Some(1000), Some(200))
    );
    assert_eq!(
        (
            info[1]["tokens_before"].as_u64(),
            info[1]["tokens_after"].as_u64()
        ),
        (None, Some(150))
    );
    assert_eq!(find(&ev, "f6a7b8c9", "gemini_json_snapshot").len(), 1);
    assert_eq!(find(&ev, "checkpoint-mytag", "gemini_snapshot").len(), 1);
    assert_eq!(ev.len(), 10);
}

#[test]
fn list_counts_match_the_ledger() {
    let ev = ledger(&[]);
    let rows: Value = serde_json::from_slice(&sample_stdout(&[
        "list", "--kind", "all", "--format", "json",
    ]))
    .unwrap();
    let listed: u64 = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["compactions"].as_u64().unwrap())
        .sum();
    assert_eq!(listed as usize, ev.len());
}

#[test]
fn stats_expose_observed_summary_sizes() {
    let st = json_of(true, &["compactions", "--kind", "all", "--stats"]);
    assert_eq!(st["schema_version"], 1);
    assert_eq!(st["agents"]["claude"]["compactions"], 1);
    assert_eq!(st["agents"]["codex"]["compactions"], 2);
    assert_eq!(st["agents"]["gemini"]["compactions"], 7);
    // Codex: recorded before 12,500 and 9,300 → median 10,900.
    assert_eq!(st["agents"]["codex"]["median_tokens_before"], 10_900);
    // Every observed summary is in the sample: 1 Claude, 2 Codex, and the Gemini snapshots
    // (3 <state_snapshot> + 1 JSON snapshot; masking and info lines carry no summary).
    let sizes = |a: &str| st["agents"][a]["summary_tokens"].as_array().unwrap().len();
    assert_eq!(
        (sizes("claude"), sizes("codex"), sizes("gemini")),
        (1, 2, 4)
    );
    let claude_summary = st["agents"]["claude"]["summary_tokens"][0]
        .as_u64()
        .unwrap();
    assert_eq!(
        st["agents"]["claude"]["median_summary_tokens"]
            .as_u64()
            .unwrap(),
        claude_summary
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_files_with_compactions() {
    let corpus = Path::new(env!("SESSIONS_CORPUS_DIR"));
    let run = |file: &str| -> Vec<Value> {
        common::json_array(
            common::sessions()
                .args(["compactions", "--kind", "all", "--format", "json"])
                .arg(corpus.join(file)),
        )
    };
    // grep -c '"subtype":"compact_boundary"' → 2; the first with preTokens 120000.
    let s = run("claude/schema-v2.1.x-all-record-types.jsonl");
    assert_eq!(s.len(), 2);
    assert_eq!(s[0]["tokens_before"], 120_000);
    // One boundary (auto, preTokens 150000) followed by its isCompactSummary record.
    let d = run("claude/synthetic-dag-compact-after-rewind.jsonl");
    assert_eq!(d.len(), 1);
    assert_eq!(
        (&d[0]["trigger"], &d[0]["tokens_before"]),
        (&"auto".into(), &150_000.into())
    );
    assert!(d[0]["summary_chars"].as_u64().unwrap() > 0);
    // grep -c '"type":"compacted"' → 6 compacted lines, plus one context_compacted event with no
    // compacted line next to it: 7 events.
    let x = run("codex/schema-0.14x-all-record-types.jsonl");
    assert_eq!(x.len(), 7);
    assert!(x.iter().all(|e| e["kind"] == "codex_compacted"));
    // The real Claude compactions: one session is held by five checkpoint files and another by
    // two; each compaction is one event (24 automatic ones, as `--validate` counts them).
    let real = run("real/claude_compaction");
    let mut keys: Vec<(String, String)> = real
        .iter()
        .map(|e| (e["session_id"].to_string(), e["timestamp"].to_string()))
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "an event listed twice");
    let boundaries: Vec<&Value> = real
        .iter()
        .filter(|e| e["kind"] == "claude_boundary")
        .collect();
    assert_eq!(boundaries.len(), 25);
    assert_eq!(
        boundaries.iter().filter(|e| e["trigger"] == "auto").count(),
        24
    );
    // And three microcompactions (grep -c microcompact_boundary: 2 in entire-41…, 1 in
    // entire-76…), each with the saving it recorded.
    let micro: Vec<(u64, u64)> = real
        .iter()
        .filter(|e| e["kind"] == "claude_microcompact")
        .map(|e| {
            (
                e["tokens_before"].as_u64().unwrap(),
                e["tokens_saved"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(n, 28);
    assert_eq!(
        micro,
        [(60_888, 21_091), (73_043, 39_512), (61_717, 31_740)]
    );
    assert!(boundaries.iter().all(|e| e.get("tokens_saved").is_none()));
    // The real files without compactions have none.
    for f in [
        "claude/real-v1.0.95-thinking-tool-errors.jsonl",
        "codex/real-0.39.0-shell-calls.jsonl",
        "gemini/real-jsonl-2026-04-23-v0.39.jsonl",
    ] {
        assert!(run(f).is_empty(), "{f}");
    }
}

/// `sessions [--home testdata/home] ARGS…` with `--format json`, parsed.
fn json_of(home: bool, args: &[&str]) -> Value {
    let mut c = common::sessions();
    if home {
        c.arg("--home").arg(root().join("testdata/home"));
    }
    common::json_of(c.args(args).args(["--format", "json"]))
}

/// Checks that `show --format json` gives each compaction of `path` the provenance the ledger
/// gives it (one rule: `unknown` for a `null` figure); returns how many figures before and
/// after were `null`.
fn show_agrees_with_ledger(home: bool, path: &str) -> (usize, usize) {
    let doc = json_of(home, &["show", path]);
    let ledger = json_of(home, &["compactions", "--kind", "all", path]);
    let shown = doc["compactions"].as_array().unwrap();
    let rows = ledger.as_array().unwrap();
    assert_eq!(shown.len(), rows.len(), "{path}");
    let mut nulls = (0, 0);
    for (c, row) in shown.iter().zip(rows) {
        for side in ["before", "after"] {
            let figure = &c[format!("tokens_{side}")];
            let provenance = &c[format!("tokens_{side}_provenance")];
            assert_eq!(figure, &row[format!("tokens_{side}")], "{path}");
            assert_eq!(
                provenance,
                &row[format!("tokens_{side}_provenance")],
                "{path}: {c}"
            );
            if figure.is_null() {
                assert_eq!(provenance, "unknown", "{path}: {c}");
            }
        }
        // The older field is the figure before's, so it vouches for no `null` either.
        assert_eq!(
            c["tokens_provenance"], c["tokens_before_provenance"],
            "{path}"
        );
        assert!(c.get("after_provenance").is_none(), "{path}: {c}");
        nulls.0 += usize::from(c["tokens_before"].is_null());
        nulls.1 += usize::from(c["tokens_after"].is_null());
    }
    nulls
}

#[test]
fn show_json_provenance_is_the_ledgers() {
    let ev = ledger(&[]);
    let mut paths: Vec<&str> = ev.iter().map(|e| e["path"].as_str().unwrap()).collect();
    paths.dedup();
    let mut before_null = 0;
    for path in paths {
        before_null += show_agrees_with_ledger(true, path).0;
    }
    // Gemini d4e5f6a7's notice gives no size before.
    assert!(before_null > 0);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn show_json_provenance_is_the_ledgers_on_the_corpus() {
    let corpus = Path::new(env!("SESSIONS_CORPUS_DIR"));
    let check = |file: &str| show_agrees_with_ledger(false, corpus.join(file).to_str().unwrap());
    // Its first compaction came before any recorded prompt: no size before.
    assert!(check("codex/schema-0.14x-all-record-types.jsonl").0 > 0);
    // A boundary with `preTokens` and no `postTokens`.
    let (before, after) = check("real/claude_compaction/entire-2a_075ef186b4_0_full.jsonl");
    assert_eq!((before, after), (0, 1));
}

/// A resumed Claude session starts its new file with the records of the old one under its own
/// session id (README, "Claude Code"). A compaction both files hold is one event: its boundary
/// record's uuid names it in both. Built from a real session with one automatic compaction.
#[test]
fn a_compaction_in_a_resumed_sessions_copy_counts_once() {
    let src =
        root().join("../shared/corpus/real/claude_compaction/entire-2a_075ef186b4_0_full.jsonl");
    let old = "375d5d79-9c13-419d-a5fd-72421f2af713";
    let new = "99999999-8888-4777-8666-555555555555";
    let text = std::fs::read_to_string(&src).unwrap();
    let last_uuid = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["uuid"].as_str().map(str::to_string))
        .next_back()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("-p");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join(format!("{old}.jsonl")), &text).unwrap();
    let user = serde_json::json!({"type": "user", "uuid": "new-u1", "parentUuid": last_uuid,
        "sessionId": new, "timestamp": "2026-01-23T10:00:00.000Z", "version": "2.1.7",
        "message": {"role": "user", "content": "continue please"}});
    let answer = serde_json::json!({"type": "assistant", "uuid": "new-a1", "parentUuid": "new-u1",
        "sessionId": new, "timestamp": "2026-01-23T10:00:05.000Z", "version": "2.1.7",
        "requestId": "req_new1", "message": {"id": "msg_new1", "role": "assistant",
        "model": "claude-opus-4-5-20251101", "content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 50000,
        "cache_creation_input_tokens": 100}}});
    let resumed = format!("{}{user}\n{answer}\n", text.replace(old, new));
    std::fs::write(project.join(format!("{new}.jsonl")), resumed).unwrap();

    let run =
        |args: &[&str]| -> Value { common::json_of(common::sessions().args(args).arg(&project)) };
    let events = run(&["compactions", "--format", "json"]);
    let events = events.as_array().unwrap();
    let ids: Vec<&Value> = events.iter().map(|e| &e["session_id"]).collect();
    assert_eq!(ids, [old], "one event, of the first copy");
    let stats = run(&["compactions", "--stats", "--format", "json"]);
    let sizes = stats["agents"]["claude"]["summary_tokens"]
        .as_array()
        .unwrap();
    assert_eq!(sizes.len(), 1, "{stats}");
    let replay = run(&[
        "replay-compress",
        "--all",
        "-A",
        "claude",
        "--validate",
        "--quiet",
        "--format",
        "json",
    ]);
    let summary = replay
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "validation_summary")
        .unwrap();
    assert_eq!(summary["recorded_auto"], 1, "{summary}");
}

/// Claude Code 2.1 records no `postTokens`: at 80 columns the empty AFTER column gives way
/// before KIND, so a microcompaction (the real record of Claude Code 2.1.17, which cleared
/// 39,512 tokens) still reads as one, and what it saved is in the table.
#[test]
fn a_narrow_ledger_keeps_the_kind_and_shows_what_a_microcompaction_saved() {
    let dir = tempfile::tempdir().unwrap();
    let meta = r#""isSidechain":false,"userType":"external","cwd":"/Users/soph/Work/entire/devenv/cli","sessionId":"4cfca9ed-4a40-4ce3-a9c6-ad13bc6065df","version":"2.1.17","type":"system","isMeta":false,"level":"info""#;
    let lines = [
        format!(
            r#"{{"parentUuid":null,{meta},"subtype":"microcompact_boundary","content":"Context microcompacted","timestamp":"2026-02-16T15:02:36.633Z","uuid":"f85c60e3-be65-4780-8453-d4ffb0e305b6","microcompactMetadata":{{"trigger":"auto","preTokens":73043,"tokensSaved":39512,"compactedToolIds":["toolu_01MUBnoHgtn3fhTnmScqpgrr"],"clearedAttachmentUUIDs":[]}}}}"#
        ),
        format!(
            r#"{{"parentUuid":null,"logicalParentUuid":"f85c60e3-be65-4780-8453-d4ffb0e305b6",{meta},"subtype":"compact_boundary","content":"Conversation compacted","timestamp":"2026-02-16T16:13:06.464Z","uuid":"0409024b-b9e5-4ce3-8db8-463221a77b49","compactMetadata":{{"trigger":"auto","preTokens":155002}}}}"#
        ),
    ];
    let file = dir
        .path()
        .join("4cfca9ed-4a40-4ce3-a9c6-ad13bc6065df.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let table = |columns: &str| {
        let out = common::stdout_of(
            common::sessions()
                .env("COLUMNS", columns)
                .args(["compactions", "--kind", "all"])
                .arg(&file),
        );
        String::from_utf8(out).unwrap()
    };
    let narrow = table("80");
    let header = narrow.lines().next().unwrap();
    assert!(header.contains("KIND"), "{narrow}");
    assert!(!header.contains("AFTER"), "{narrow}");
    assert!(narrow.contains("claude_microcompact"), "{narrow}");
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    let wide = table("200");
    let header: Vec<&str> = wide.lines().next().unwrap().split_whitespace().collect();
    let saved = header.iter().position(|h| *h == "SAVED").expect("SAVED");
    let micro: Vec<&str> = wide
        .lines()
        .find(|l| l.contains("claude_microcompact"))
        .unwrap()
        .split_whitespace()
        .collect();
    // TIME (+00:00) is two words in the header and two in the row: positions agree.
    assert_eq!(micro[saved], "39.5k", "{wide}");
}

/// `message_index` means one thing for every agent: the first message after the compaction,
/// its marker the message before (`show`/`export` JSON). Codex once pointed at the marker.
#[test]
fn message_index_is_the_message_after_the_marker_for_every_agent() {
    let out = sample_stdout(&["export", "--all", "--kind", "all", "--format", "jsonl"]);
    let mut agents = std::collections::BTreeSet::new();
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let m: Value = serde_json::from_slice(line).unwrap();
        let Some(c) = m.get("compaction") else {
            continue;
        };
        assert_eq!(
            c["message_index"],
            m["index"].as_u64().unwrap() + 1,
            "{} {}: the marker's compaction points elsewhere",
            m["agent"],
            m["session_id"]
        );
        agents.insert(m["agent"].as_str().unwrap().to_string());
    }
    assert_eq!(
        agents.into_iter().collect::<Vec<_>>(),
        ["claude", "codex", "gemini"]
    );
}
