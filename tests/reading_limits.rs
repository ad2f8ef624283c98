//! What the reader does with lines and files real writers (or hostile ones) get wrong, end to
//! end through the binary: an over-long line is skipped with its number and the rest is read; a
//! `.zst` bomb stops at the decompression cap; a lone UTF-16 surrogate keeps its record; two
//! records on one line are both read; JSONL written by another agent is reported, never listed
//! as an empty session.

use std::fs;
use std::io::Write;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

const SID: &str = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d";

fn claude_user(uuid: &str, parent: Option<&str>, text: &str) -> String {
    serde_json::json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external",
        "cwd": "/home/dev/limits", "sessionId": SID, "version": "2.1.120", "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": uuid, "timestamp": "2026-07-20T16:00:00.000Z"
    })
    .to_string()
}

fn claude_assistant(uuid: &str, parent: &str, id: &str, output: u64) -> String {
    serde_json::json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external",
        "cwd": "/home/dev/limits", "sessionId": SID, "version": "2.1.120", "type": "assistant",
        "message": {"model": "claude-sonnet-4-5-20250929", "id": id, "type": "message",
            "role": "assistant", "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0, "output_tokens": output}},
        "uuid": uuid, "timestamp": "2026-07-20T16:00:05.000Z", "requestId": format!("req_{id}")
    })
    .to_string()
}

fn sessions(args: &[&str]) -> (Value, String) {
    let out = Command::cargo_bin("sessions")
        .unwrap()
        .env("HOME", "/nonexistent-home")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}); stderr: {stderr}"));
    (json, stderr)
}

fn list(path: &Path) -> (Vec<Value>, String) {
    let (v, err) = sessions(&[
        "list",
        "--kind",
        "all",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    (v.as_array().unwrap().clone(), err)
}

fn messages(path: &Path) -> Vec<Value> {
    let (v, _) = sessions(&["show", "--format", "json", path.to_str().unwrap()]);
    v["messages"].as_array().unwrap().clone()
}

#[test]
fn a_line_over_the_cap_is_skipped_with_its_number_and_the_rest_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let mut f = fs::File::create(&path).unwrap();
    writeln!(f, "{}", claude_user("u1", None, "first")).unwrap();
    // One record just over the cap (256 MiB), written in pieces: the test never holds it.
    let cap = sessions::parse::MAX_LINE_BYTES;
    let head = r#"{"type":"user","message":{"role":"user","content":""#;
    f.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut written = head.len();
    while written <= cap {
        f.write_all(&chunk).unwrap();
        written += chunk.len();
    }
    f.write_all(b"\"}}\n").unwrap();
    writeln!(f, "{}", claude_assistant("a1", "u1", "msg_1", 7)).unwrap();
    drop(f);

    let (rows, err) = list(&path);
    assert_eq!(rows.len(), 1, "{err}");
    assert_eq!(
        rows[0]["tokens"]["output"], 7,
        "the line after the long one is read"
    );
    let want = format!("{}:2: line longer than 256 MiB, skipped", path.display());
    assert!(err.contains(&want), "{err}");
}

#[test]
fn a_zst_bomb_stops_at_the_decompression_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("rollout-2026-03-14T09-15-02-019ceba0-adf0-7a31-8c42-5d1e2f3a4b99.jsonl.zst");
    let meta = serde_json::json!({
        "timestamp": "2026-03-14T09:15:02.000Z", "type": "session_meta",
        "payload": {"id": "019ceba0-adf0-7a31-8c42-5d1e2f3a4b99",
            "timestamp": "2026-03-14T09:15:02.000Z", "cwd": "/home/dev/limits",
            "originator": "codex_cli_rs", "cli_version": "0.50.0"}
    });
    // 1.1 GiB of junk lines (each refused at its first byte, so the test stays fast in a debug
    // build), a few kB compressed.
    let junk = format!("{}\n", "x".repeat((16 << 20) - 1));
    let mut enc = zstd::stream::write::Encoder::new(fs::File::create(&path).unwrap(), 1)
        .unwrap()
        .auto_finish();
    writeln!(enc, "{meta}").unwrap();
    for _ in 0..70 {
        enc.write_all(junk.as_bytes()).unwrap();
    }
    drop(enc);
    assert!(fs::metadata(&path).unwrap().len() < 1 << 20);

    let (_, err) = sessions(&[
        "--verbose",
        "list",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    assert!(
        err.contains("decompressed size exceeds 1024 MiB (a decompression bomb?)"),
        "{err}"
    );
    assert!(err.contains(&path.display().to_string()), "{err}");
}

#[test]
fn a_lone_surrogate_keeps_its_record_with_a_replacement_character() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    // What JavaScript writes for a string cut inside an emoji.
    let user = claude_user("u1", None, "cut here: SURROGATE").replace("SURROGATE", r"\ud83d");
    let text = format!("{user}\n{}\n", claude_assistant("a1", "u1", "msg_1", 3));
    fs::write(&path, text).unwrap();

    let (rows, err) = list(&path);
    assert!(!err.contains("skipped"), "{err}");
    assert_eq!(rows[0]["counts"]["user_turns"], 1, "{}", rows[0]);
    let msgs = messages(&path);
    let first = msgs[0].to_string();
    assert!(first.contains("cut here: \u{fffd}"), "{first}");
}

#[test]
fn two_records_written_on_one_line_are_both_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let text = format!(
        "{}{}\n{}\n{}\n",
        claude_user("u1", None, "one"),
        claude_assistant("a1", "u1", "msg_1", 5),
        claude_user("u2", Some("a1"), "two"),
        claude_assistant("a2", "u2", "msg_2", 6),
    );
    fs::write(&path, text).unwrap();

    let (rows, err) = list(&path);
    assert!(!err.contains("malformed"), "{err}");
    assert_eq!(rows[0]["tokens"]["output"], 11, "both responses counted");
    assert_eq!(rows[0]["counts"]["user_turns"], 2);
    assert_eq!(messages(&path).len(), 4);
}

/// Lines as other agents write them (field names they share with the three read here).
const FOREIGN: &[(&str, &str)] = &[
    (
        "pi.jsonl",
        r#"{"type":"session","version":3,"id":"a1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}
{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
    ),
    (
        "kimi.jsonl",
        r#"{"role":"user","content":"hello"}
{"role":"assistant","content":"hi","tool_calls":[]}"#,
    ),
    (
        "copilot.jsonl",
        r#"{"type":"session.start","data":{"sessionId":"s1","version":1},"id":"e1","timestamp":"2026-01-01T00:00:00.000Z","parentId":null}
{"type":"user.message","data":{"content":"hi"},"id":"e2","timestamp":"2026-01-01T00:00:01.000Z","parentId":"e1"}"#,
    ),
];

#[test]
fn jsonl_of_other_agents_is_reported_not_listed() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in FOREIGN {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        let out = Command::cargo_bin("sessions")
            .unwrap()
            .env("HOME", "/nonexistent-home")
            .args(["list", "--format", "json", path.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not a session file of any supported agent"),
            "{name}: {err}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains(name), "{name} listed: {stdout}");
    }
    // Inside a store, found by discovery rather than named: reported, not an empty session.
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-dev-x");
    fs::create_dir_all(&project).unwrap();
    let path = project.join(format!("{SID}.jsonl"));
    fs::write(&path, FOREIGN[0].1).unwrap();
    let (v, err) = sessions(&[
        "--home",
        home.path().to_str().unwrap(),
        "list",
        "--format",
        "json",
    ]);
    assert_eq!(v.as_array().map(Vec::len), Some(0), "{v}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("not a Claude/Codex/Gemini session"), "{err}");
}

#[test]
fn a_gemini_line_over_the_cap_is_skipped_by_the_replay_too() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/proj/chats");
    fs::create_dir_all(&chats).unwrap();
    let path = chats.join("session-2026-01-01T00-00-big1.jsonl");
    let mut f = fs::File::create(&path).unwrap();
    let meta = r#"{"sessionId":"big1","projectHash":"ph","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:09Z","kind":"main"}"#;
    writeln!(f, "{meta}").unwrap();
    let user =
        r#"{"id":"u1","timestamp":"2026-01-01T00:00:01Z","type":"user","content":[{"text":"hi"}]}"#;
    writeln!(f, "{user}").unwrap();
    // A response just over the cap (256 MiB), written in pieces: the test never holds it.
    let head = r#"{"id":"m1","timestamp":"2026-01-01T00:00:02Z","type":"gemini","tokens":{"input":5,"output":1},"content":""#;
    f.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut written = head.len();
    while written <= sessions::parse::MAX_LINE_BYTES {
        f.write_all(&chunk).unwrap();
        written += chunk.len();
    }
    f.write_all(b"\"}\n").unwrap();
    let last = r#"{"id":"m2","timestamp":"2026-01-01T00:00:03Z","type":"gemini","content":"ok","tokens":{"input":9,"output":2}}"#;
    writeln!(f, "{last}").unwrap();
    drop(f);

    // The summary view skips the long line with a warning; the record Gemini CLI resumes
    // skips it as well, so the replay has one request, the last one.
    let (v, err) = sessions(&[
        "replay-compress",
        "-A",
        "claude",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    let replays = v.as_array().unwrap();
    assert_eq!(replays.len(), 1, "{err}");
    assert_eq!(replays[0]["requests"], 1, "{err}");
    let want = format!("{}:3: line longer than 256 MiB, skipped", path.display());
    assert!(err.contains(&want), "{err}");
}

/// `sessions ARGS` with no store: its exit status, stdout and stderr.
fn status(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("sessions")
        .unwrap()
        .env("HOME", "/nonexistent-home")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A first prompt with a pasted screenshot: its line is longer than the head read to detect
/// the file's agent, and the agent's key (`type`) comes after the image.
#[test]
fn a_first_record_longer_than_the_sniffed_head_is_read_from_a_named_folder() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let big = claude_user("u1", None, &format!("see {}", "A".repeat(400_000)));
    let text = format!("{big}\n{}\n", claude_assistant("a1", "u1", "msg_1", 7));
    fs::write(&path, text).unwrap();

    let (rows, err) = list(dir.path());
    assert_eq!(rows.len(), 1, "{err}");
    assert_eq!(rows[0]["tokens"]["output"], 7);
    assert_eq!(messages(&path).len(), 2);
}

/// In a named folder, JSON lines of no supported agent are a warning (`--strict` fails), not
/// a file dropped in silence.
#[test]
fn json_lines_no_agent_claims_in_a_named_folder_are_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kimi.jsonl");
    fs::write(&path, FOREIGN[1].1).unwrap();
    fs::write(dir.path().join("notes.json"), "not json at all").unwrap();
    let (code, out, err) = status(&[
        "--strict",
        "list",
        "--format",
        "json",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.trim(), "[]");
    assert_eq!(code, 3, "{err}");
    let want = format!(
        "{}: JSON of no supported agent's format: not read",
        path.display()
    );
    assert!(err.contains(&want), "{err}");
    // Not JSON: a note, as before.
    assert!(!err.contains("notes.json: JSON of"), "{err}");
}

/// A line nested 200,000 deep (in a part `list` skips and `show` keeps) in a store is malformed
/// for both, with its number, and fails `--strict` in both.
#[test]
fn a_line_nested_too_deep_is_malformed_for_list_and_show_alike() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-dev-limits");
    fs::create_dir_all(&project).unwrap();
    let path = project.join(format!("{SID}.jsonl"));
    let deep = format!("{}\"x\"{}", "[".repeat(200_000), "]".repeat(200_000));
    let first = claude_user("u1", None, "DEEP").replace("\"DEEP\"", &deep);
    let text = format!(
        "{first}\n{}\n{}\n",
        claude_user("u2", None, "two"),
        claude_assistant("a1", "u2", "msg_1", 3)
    );
    fs::write(&path, text).unwrap();
    let h = home.path().to_str().unwrap();
    let want = format!("{}:1: ", path.display());

    let (code, out, err) = status(&["--home", h, "--strict", "list", "--format", "json"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&want), "{err}");
    let rows: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows[0]["counts"]["user_turns"], 1, "{out}");

    let (code, out, err) = status(&["--home", h, "--strict", "show", "--format", "json", SID]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&want), "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["counts"]["user_turns"], 1, "{out}");
    let (code, _, err) = status(&["--home", h, "--strict", "show", SID]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&want), "{err}");
}
