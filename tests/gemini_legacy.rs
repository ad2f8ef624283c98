//! Legacy Gemini files that share a `sessionId`: copies, `/clear`, compression continuations and
//! sub-agent recordings (`src/gemini_groups.rs`), on hand-made fixtures
//! (`testdata/gemini-legacy/README.md`) and on the real files of the corpus.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/gemini-legacy")
}

fn list(dir: &Path) -> Vec<Value> {
    common::json_array(
        common::sessions()
            .args(["list", "--kind", "all", "--format", "json"])
            .arg(dir),
    )
}

fn by_file<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["path"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("{name} not listed"))
}

#[test]
fn a_copy_is_one_session_and_is_reported() {
    let out = common::sessions()
        .args(["-v", "list", "--format", "json"])
        .arg(fixtures())
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let copies: Vec<&Value> = rows
        .iter()
        .filter(|r| r["id"].as_str().unwrap().starts_with("c0c0c0c0"))
        .collect();
    assert_eq!(copies.len(), 1);
    // The complete file wins over the copy taken after its first response.
    assert!(
        copies[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("/session-2025-12-01T10-00-c0c0c0c0.json")
    );
    assert_eq!(copies[0]["counts"]["user_turns"], 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("backup-session-2025-12-01T10-00-c0c0c0c0.json: copy of Gemini session"),
        "{stderr}"
    );
}

#[test]
fn clear_starts_a_new_conversation_not_a_compaction() {
    let rows = list(&fixtures());
    for name in [
        "session-2025-12-02T09-00-c1c1c1c1.json",
        "session-2025-12-02T09-05-c1c1c1c1.json",
    ] {
        let r = by_file(&rows, name);
        assert_eq!(r["kind"], "main", "{name}");
        assert_eq!(r["compactions"], 0, "{name}");
    }
    assert_eq!(
        by_file(&rows, "09-05-c1c1c1c1.json")["title"],
        "second topic"
    );
}

#[test]
fn a_compressed_context_continues_in_a_new_file() {
    let rows = list(&fixtures());
    assert_eq!(by_file(&rows, "08-00-c2c2c2c2.json")["compactions"], 0);
    assert_eq!(by_file(&rows, "09-01-c2c2c2c2.json")["compactions"], 1);
    let events = common::json_array(
        common::sessions()
            .args(["compactions", "--kind", "all", "--format", "json"])
            .arg(fixtures()),
    );
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["gemini_new_file"], "only the real continuation");
}

#[test]
fn a_recording_inside_its_parents_span_is_a_sub_agent() {
    let rows = list(&fixtures());
    let parent = by_file(&rows, "07-00-c3c3c3c3.json");
    let child = by_file(&rows, "07-10-c3c3c3c3.json");
    assert_eq!(parent["kind"], "main");
    assert_eq!(child["kind"], "subagent");
    assert_eq!(child["parent_id"], parent["id"]);
    // "System: Please continue." is the harness, not a second human turn.
    assert_eq!(parent["counts"]["user_turns"], 1);
    assert_eq!(parent["title"], "investigate the codebase");
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn real_legacy_files_are_counted_once() {
    let dir = Path::new(env!("SESSIONS_CORPUS_DIR")).join("real/gemini_legacy");
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(files, 39);
    let rows = list(&dir);
    // 11 Archives/chat_logs pairs hold one session each (same start): 28 sessions remain.
    assert_eq!(rows.len(), 28);
    // The only sessionId left twice is a `/clear` (05:10 then 05:18, an 8-message chat before).
    let mut ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    let twice: Vec<&str> = ids
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    assert_eq!(twice, ["ce524c68-ff32-4b46-be2f-342e3a5464a9"]);
    // None of these files continued a compressed context.
    assert!(
        rows.iter().all(|r| r["compactions"] == 0),
        "no gemini_new_file"
    );
    // Projects count each session's tokens once: the same total as the list.
    let listed: u64 = rows
        .iter()
        .map(|r| r["tokens"]["total"].as_u64().unwrap())
        .sum();
    let projects = common::json_array(
        common::sessions()
            .args(["projects", "--format", "json"])
            .arg(&dir),
    );
    let counted: u64 = projects
        .iter()
        .map(|p| p["tokens"]["total"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, listed);
    // Before: 39 sessions, 31,226,324 tokens and 12 made-up compactions.
    assert_eq!(listed, 20_065_632);
}

/// Two copies of one chat object (same `startTime`: a hash-folder copy and its slug-folder
/// one) that went on apart, each holding messages the other lacks, are both kept: dropping one
/// lost what only it held, in silence. The messages they share count once. A copy whose
/// messages another holds is still one.
#[test]
fn diverged_copies_are_both_kept_and_their_shared_messages_count_once() {
    let home = tempfile::tempdir().unwrap();
    let sid = "d0d0d0d0-0000-4000-8000-000000000001";
    let meta = serde_json::json!({"sessionId": sid, "projectHash": "b2".repeat(32),
        "startTime": "2025-12-05T10:00:00.000Z", "lastUpdated": "2025-12-05T10:05:00.000Z",
        "kind": "main"});
    let msg = |id: &str, min: u32, typ: &str, input: u64| {
        let mut m = serde_json::json!({"id": id, "type": typ, "content": id,
            "timestamp": format!("2025-12-05T10:{min:02}:00.000Z")});
        if typ == "gemini" {
            m["tokens"] = serde_json::json!({"input": input, "output": 10, "cached": 0,
                "thoughts": 0, "tool": 0, "total": input + 10});
            m["model"] = "gemini-2.5-pro".into();
        }
        m
    };
    let shared = [msg("m1", 0, "user", 0), msg("m2", 1, "gemini", 1000)];
    let slug = [msg("m3", 2, "user", 0), msg("m4", 3, "gemini", 2000)];
    let elsewhere = [msg("x3", 4, "user", 0), msg("x4", 5, "gemini", 500)];
    let name = "session-2025-12-05T10-00-d0d0d0d0";
    let write = |dir: &str, ext: &str, text: String| {
        let chats = home.path().join(".gemini/tmp").join(dir).join("chats");
        std::fs::create_dir_all(&chats).unwrap();
        std::fs::write(chats.join(format!("{name}.{ext}")), text).unwrap();
    };
    let jsonl = |msgs: Vec<&Value>| {
        std::iter::once(&meta)
            .chain(msgs)
            .map(|v| v.to_string() + "\n")
            .collect::<String>()
    };
    write("slug", "jsonl", jsonl(shared.iter().chain(&slug).collect()));
    write(
        &"b2".repeat(32),
        "jsonl",
        jsonl(shared.iter().chain(&elsewhere).collect()),
    );
    // A legacy copy taken after the first response: a copy of both.
    let mut legacy = meta.clone();
    legacy["messages"] = serde_json::json!(shared);
    write("slug", "json", legacy.to_string());

    let h = home.path().to_str().unwrap();
    let out = common::sessions()
        .args(["-v", "--home", h, "list", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut inputs: Vec<u64> = rows
        .iter()
        .map(|r| r["tokens"]["input"].as_u64().unwrap())
        .collect();
    inputs.sort_unstable();
    // Each row is its own file's figures: the shared m2 in both.
    assert_eq!(inputs, [1500, 3000], "{rows:#?}");
    assert!(rows.iter().all(|r| r["kind"] == "main"), "{rows:#?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{name}.json: copy of Gemini session {sid}")),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("copy of Gemini session").count(),
        1,
        "{stderr}"
    );
    let input_total = || -> Value {
        let doc: Value = serde_json::from_slice(
            &common::sessions()
                .args(["--home", h, "usage", "--format", "json"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        doc["totals"]["tokens"]["input"].clone()
    };
    assert_eq!(input_total(), 3500);

    // Another session whose messages happen to carry the same ids is other responses: all of
    // its usage counts.
    let other = "d0d0d0d0-0000-4000-8000-000000000002";
    let mut meta2 = meta.clone();
    meta2["sessionId"] = other.into();
    meta2["startTime"] = "2025-12-06T10:00:00.000Z".into();
    let chats = home.path().join(".gemini/tmp/slug/chats");
    let text: String = std::iter::once(&meta2)
        .chain(&shared)
        .map(|v| v.to_string() + "\n")
        .collect();
    std::fs::write(chats.join("session-2025-12-06T10-00-d0d0d0d0.jsonl"), text).unwrap();
    assert_eq!(input_total(), 4500);
}

/// Two legacy parts of one session: the first ends at a 560k prompt, the second goes on at
/// 41k. `notice` puts the compression notice at the end of the first part, at the start of the
/// second, or nowhere.
fn continued(dir: &Path, notice: Option<bool>) {
    let id = "ffffffff-0000-4000-8000-000000000006";
    let info = serde_json::json!({"id": "i1", "timestamp": "2025-12-01T10:05:30.000Z",
        "type": "info", "content": "IMPORTANT: This conversation exceeded the compress threshold. A compressed context will be sent for future messages (compressed from: 560100 to 40000 tokens)."});
    let turn = |n: u32, at: &str, input: u64| {
        [
            serde_json::json!({"id": format!("u{n}"), "timestamp": format!("2025-12-01T{at}:00.000Z"),
                "type": "user", "content": format!("prompt {n}")}),
            serde_json::json!({"id": format!("g{n}"), "timestamp": format!("2025-12-01T{at}:30.000Z"),
                "type": "gemini", "content": "ok", "model": "gemini-2.5-pro",
                "tokens": {"input": input, "output": 100, "cached": 0, "thoughts": 0, "tool": 0,
                    "total": input + 100}}),
        ]
    };
    let mut first: Vec<Value> = [turn(1, "10:00", 300_000), turn(2, "10:04", 560_000)].concat();
    let mut second: Vec<Value> = turn(3, "10:06", 41_000).to_vec();
    match notice {
        Some(true) => first.push(info),
        Some(false) => second.insert(0, info),
        None => {}
    }
    let doc = |start: &str, end: &str, messages: Vec<Value>| {
        serde_json::json!({"sessionId": id, "projectHash": "cd".repeat(32),
            "startTime": format!("2025-12-01T{start}:00.000Z"),
            "lastUpdated": format!("2025-12-01T{end}:00.000Z"), "messages": messages})
        .to_string()
    };
    let file = |name: &str| dir.join(format!("session-2025-12-01T{name}-ffffffff.json"));
    std::fs::write(file("10-00"), doc("10:00", "10:05", first)).unwrap();
    std::fs::write(file("10-06"), doc("10:06", "10:08", second)).unwrap();
}

/// One compression that both started the new file and left its notice is one event (README:
/// "One compression that left several traces is one event"): the notice, wherever it was
/// written. Without a notice the new file is the event, from the first part's last prompt.
#[test]
fn a_continuation_with_its_compression_notice_is_one_compaction() {
    for notice in [Some(true), Some(false), None] {
        let dir = tempfile::tempdir().unwrap();
        continued(dir.path(), notice);
        let events = common::json_array(
            common::sessions()
                .args(["compactions", "--kind", "all", "--format", "json"])
                .arg(dir.path()),
        );
        let rows: Vec<(&str, &Value)> = events
            .iter()
            .map(|e| (e["kind"].as_str().unwrap(), &e["tokens_before"]))
            .collect();
        let expected = match notice {
            Some(_) => ("gemini_info", 560_100),
            None => ("gemini_new_file", 560_000),
        };
        assert_eq!(rows, [(expected.0, &expected.1.into())], "{notice:?}");
        let listed: u64 = list(dir.path())
            .iter()
            .map(|r| r["compactions"].as_u64().unwrap())
            .sum();
        assert_eq!(listed, 1, "{notice:?}");
    }
}

#[test]
fn duplicate_warnings_come_in_path_order() {
    // Eight sessions, each with a backup copy: eight groups of copies, which a hash map once
    // handed over in an order of its own on every run.
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(fixtures().join("session-2025-12-01T10-00-c0c0c0c0.json")).unwrap();
    for n in 1..=8 {
        let text = text.replace("c0c0c0c0-0000", &format!("c0c0c0c{n}-0000"));
        for prefix in ["", "backup-"] {
            let name = format!("{prefix}session-2025-12-01T10-00-c0c0c0c{n}.json");
            std::fs::write(dir.path().join(name), &text).unwrap();
        }
    }
    for _ in 0..3 {
        let out = common::sessions()
            .args(["-v", "list"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let copies: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("copy of Gemini session"))
            .collect();
        assert_eq!(copies.len(), 8, "{stderr}");
        let mut sorted = copies.clone();
        sorted.sort_unstable();
        assert_eq!(copies, sorted, "{stderr}");
    }
}
