//! A sub-agent's responses that Claude Code copies into its parent's transcript
//! (`progress/agent_progress` records, with `message.usage`) count once across the store
//! (formats.md §1.6): in the parent session when the sub-agent's own file is absent (a backup
//! that kept only the main transcript), not at all beside the sub-agent file's records.

use std::fs;
use std::path::Path;

use serde_json::Value;

const PARENT: &str = "5e5e5e5e-0000-4000-8000-000000000001";
const AGENT: &str = "agent-a1b2c3d4";

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn env(sidechain: bool, at: &str) -> String {
    format!(
        r#""isSidechain":{sidechain},"userType":"external","cwd":"/home/dev/copies","sessionId":"{PARENT}","version":"2.1.90","timestamp":"{at}""#
    )
}

fn usage(input: u64, cache_write: u64, output: u64) -> String {
    format!(
        r#"{{"input_tokens":{input},"cache_creation_input_tokens":{cache_write},"cache_read_input_tokens":0,"output_tokens":{output}}}"#
    )
}

/// The parent: one response of its own (100 in + 10 out = 110), and a Task whose sub-agent's
/// response `msg_sub1` is copied by three `agent_progress` records: its prompt, then two
/// streamed pieces (output 5, then 40): 7 + 1,000 + 40 = 1,047 at the per-field maximum.
fn parent() -> String {
    let main = env(false, "2026-09-01T10:00:00.000Z");
    let progress = |uuid: &str, parent: &str, copied: String| {
        format!(
            r#"{{"type":"progress","parentUuid":"{parent}","uuid":"{uuid}",{main},"toolUseID":"agent_msg_sub1","parentToolUseID":"toolu_T1","data":{{"type":"agent_progress","agentId":"a1b2c3d4","prompt":"look","normalizedMessages":[],"message":{copied}}}}}"#
        )
    };
    let piece = |text: &str, output: u64| {
        format!(
            r#"{{"type":"assistant","timestamp":"2026-09-01T10:00:03.000Z","requestId":"req_sub1","uuid":"s-a1","message":{{"id":"msg_sub1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{{"type":"text","text":"{text}"}}],"usage":{}}}}}"#,
            usage(7, 1000, output)
        )
    };
    [
        format!(
            r#"{{"type":"user","parentUuid":null,"uuid":"p-u1",{main},"message":{{"role":"user","content":"review it"}}}}"#
        ),
        format!(
            r#"{{"type":"assistant","parentUuid":"p-u1","uuid":"p-a1",{main},"requestId":"req_p1","message":{{"id":"msg_p1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{{"type":"tool_use","id":"toolu_T1","name":"Task","input":{{"prompt":"look","subagent_type":"Explore"}}}}],"usage":{}}}}}"#,
            usage(100, 0, 10)
        ),
        progress(
            "p-p1",
            "p-a1",
            r#"{"type":"user","timestamp":"2026-09-01T10:00:01.000Z","uuid":"s-u1","message":{"role":"user","content":[{"type":"text","text":"look"}]}}"#.into(),
        ),
        progress("p-p2", "p-p1", piece("Looking", 5)),
        progress("p-p3", "p-p2", piece("Found it", 40)),
    ]
    .join("\n")
        + "\n"
}

/// The sub-agent's own file: the same response, as it finished (output 40).
fn sub_agent() -> String {
    let side = env(true, "2026-09-01T10:00:01.000Z");
    format!(
        r#"{{"type":"user","parentUuid":null,"uuid":"s-u1",{side},"agentId":"a1b2c3d4","message":{{"role":"user","content":"look"}}}}
{{"type":"assistant","parentUuid":"s-u1","uuid":"s-a1",{side},"agentId":"a1b2c3d4","requestId":"req_sub1","message":{{"id":"msg_sub1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{{"type":"text","text":"Found it"}}],"usage":{}}}}}
"#,
        usage(7, 1000, 40)
    )
}

fn home(with_sub_agent: bool) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-home-dev-copies");
    write(&dir.join(format!("{PARENT}.jsonl")), &parent());
    if with_sub_agent {
        write(
            &dir.join(PARENT)
                .join("subagents")
                .join(format!("{AGENT}.jsonl")),
            &sub_agent(),
        );
    }
    home
}

fn run(home: &Path, args: &[&str]) -> Value {
    let out = super::common::sessions()
        .env("TZ", "UTC")
        .arg("--home")
        .arg(home)
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn total(doc: &Value) -> u64 {
    doc["totals"]["tokens"]["total"].as_u64().unwrap()
}

/// session id → total tokens of `usage session`.
fn by_session(home: &Path) -> Vec<(String, u64)> {
    let doc = run(home, &["usage", "session"]);
    let mut rows: Vec<(String, u64)> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap().to_string(),
                r["tokens"]["total"].as_u64().unwrap(),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_copied_sub_agent_response_counts_once_in_its_parent_without_the_sub_agent_file() {
    let home = home(false);
    let doc = run(home.path(), &["usage"]);
    assert_eq!(total(&doc), 110 + 1_047);
    assert_eq!(doc["totals"]["requests"], 2);
    assert_eq!(by_session(home.path()), [(PARENT.to_string(), 1_157)]);
    // The parent's own figures are what it asked for itself: the copy is the sub-agent's.
    let listed = run(home.path(), &["list"]);
    assert_eq!(listed[0]["tokens"]["total"], 110);
    let projects = run(home.path(), &["projects"]);
    assert_eq!(projects[0]["tokens"]["total"], 1_157);
}

#[test]
fn a_copied_sub_agent_response_does_not_count_beside_the_sub_agent_file() {
    let home = home(true);
    let doc = run(home.path(), &["usage"]);
    assert_eq!(total(&doc), 110 + 1_047);
    assert_eq!(doc["totals"]["requests"], 2);
    // The sub-agent's own record stands for it, whichever file the scan reads first.
    assert_eq!(
        by_session(home.path()),
        [(PARENT.to_string(), 110), (AGENT.to_string(), 1_047)]
    );
}

/// A backup of the parent taken while it held the `agent_progress` copies, beside the
/// transcript as a tool left it, progress records stripped and one response on: the backup is
/// a copy of the session (its own responses are all in the transcript), and the sub-agent's
/// response it alone holds still counts once.
#[test]
fn a_copy_of_a_transcript_is_a_copy_whatever_progress_records_either_kept() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-home-dev-copies");
    let full = parent();
    let own: Vec<&str> = full
        .lines()
        .filter(|l| !l.contains(r#""type":"progress""#))
        .collect();
    let later = format!(
        r#"{{"type":"assistant","parentUuid":"p-a1","uuid":"p-a2",{},"requestId":"req_p2","message":{{"id":"msg_p2","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{{"type":"text","text":"done"}}],"usage":{}}}}}"#,
        env(false, "2026-09-01T10:05:00.000Z"),
        usage(50, 0, 5)
    );
    write(
        &dir.join(format!("{PARENT}.jsonl")),
        &(own.join("\n") + "\n" + &later + "\n"),
    );
    write(&dir.join(format!("backup-{PARENT}.jsonl")), &full);
    let listed = run(home.path(), &["list"]);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["tokens"]["total"], 110 + 55);
    let doc = run(home.path(), &["usage"]);
    assert_eq!(total(&doc), 110 + 55 + 1_047);
    assert_eq!(doc["totals"]["requests"], 3);
    assert_eq!(
        by_session(home.path()),
        [(PARENT.to_string(), 110 + 55 + 1_047)]
    );
}
