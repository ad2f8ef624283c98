//! Unit tests of the Codex parser: one test per rule of the module doc.

use super::content::{flatten_output, harness_kind, prompt_key, shell_result_measured};
use super::*;
use crate::model::TextSize;
use crate::model::{Message, Role, Trigger};
use serde_json::json;
use std::io::Write;

mod prompts;
mod replay_prefix;

/// Parse `lines` (joined with newlines, plus a final newline) as a rollout called `name`.
fn parse_lines(name: &str, lines: &[Value]) -> Session {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    parse_text(name, &text, FileRole::CodexRollout)
}

fn parse_text(name: &str, text: &str, role: FileRole) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    parse(&SourceFile::new(Agent::Codex, path, role)).unwrap()
}

const NAME: &str = "rollout-2026-03-01T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl";

fn env(ts: &str, kind: &str, payload: Value) -> Value {
    json!({"timestamp": format!("2026-03-01T10:{ts}Z"), "type": kind, "payload": payload})
}
fn meta(id: &str, extra: Value) -> Value {
    let mut p = json!({"id": id, "timestamp": "2026-03-01T10:00:00Z", "cwd": "/home/dev/webapp",
                       "cli_version": "0.60.1", "git": {"branch": "main"}});
    if let (Value::Object(p), Value::Object(e)) = (&mut p, extra) {
        p.extend(e);
    }
    env("00:00.000", "session_meta", p)
}
fn usage(i: u64, c: u64, o: u64, r: u64) -> Value {
    json!({"input_tokens": i, "cached_input_tokens": c, "output_tokens": o,
           "reasoning_output_tokens": r, "total_tokens": i + o})
}
fn tc(ts: &str, total: (u64, u64, u64, u64), last: (u64, u64, u64, u64)) -> Value {
    env(
        ts,
        "event_msg",
        json!({"type": "token_count", "info": {
        "total_token_usage": usage(total.0, total.1, total.2, total.3),
        "last_token_usage": usage(last.0, last.1, last.2, last.3)}}),
    )
}
fn user_event(ts: &str, text: &str) -> Value {
    env(
        ts,
        "event_msg",
        json!({"type": "user_message", "message": text, "images": []}),
    )
}
fn user_item(ts: &str, text: &str) -> Value {
    env(
        ts,
        "response_item",
        json!({"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": text}]}),
    )
}
fn asst(ts: &str, text: &str) -> Value {
    env(
        ts,
        "response_item",
        json!({"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": text}]}),
    )
}
fn call(ts: &str, id: &str) -> Value {
    env(
        ts,
        "response_item",
        json!({"type": "function_call", "name": "shell",
        "arguments": "{\"command\":[\"ls\"]}", "call_id": id}),
    )
}
fn output(ts: &str, id: &str, out: Value) -> Value {
    env(
        ts,
        "response_item",
        json!({"type": "function_call_output", "call_id": id, "output": out}),
    )
}
fn turn_context(ts: &str, model: &str) -> Value {
    env(
        ts,
        "turn_context",
        json!({"cwd": "/home/dev/webapp", "model": model}),
    )
}

#[test]
fn token_deltas_skip_duplicates_reset_on_decrease_and_ignore_null_info() {
    let s = parse_lines(
        NAME,
        &[
            meta("t1", json!({})),
            turn_context("00:01.000", "gpt-5-codex"),
            tc("00:02.000", (1000, 200, 50, 20), (1000, 200, 50, 20)),
            tc("00:02.001", (1000, 200, 50, 20), (1000, 200, 50, 20)),
            env(
                "00:02.002",
                "event_msg",
                json!({"type": "token_count", "info": null, "rate_limits": {}}),
            ),
            tc("00:03.000", (2500, 1200, 80, 20), (1500, 1000, 30, 0)),
            // Decrease: a reset; the event counts with its last_token_usage.
            tc("00:04.000", (900, 100, 40, 10), (700, 100, 30, 10)),
            tc("00:05.000", (1900, 900, 60, 10), (1000, 800, 20, 0)),
        ],
    );
    assert_eq!(s.requests.len(), 4);
    let u = s.usage();
    // raw input 1000+1500+700+1000, cached 200+1000+100+800
    assert_eq!(u.cache_read, 2100);
    assert_eq!(u.input, 4200 - 2100);
    assert_eq!(u.output, 50 + 30 + 30 + 20);
    assert_eq!(u.reasoning, 30);
    assert_eq!(u.cache_write, 0);
    assert_eq!(s.requests[2].prompt_tokens, Some(700));
    assert_eq!(s.requests[0].model.as_deref(), Some("gpt-5-codex"));
    assert!(
        s.other_records
            .contains(&("codex:token_count_duplicate".to_string(), 1))
    );
    assert!(
        s.other_records
            .contains(&("codex:rate_limits".to_string(), 1))
    );
}

#[test]
fn cache_write_and_cached_are_subsets_of_input() {
    let mut line = tc("00:02.000", (1000, 600, 10, 0), (1000, 600, 10, 0));
    line["payload"]["info"]["total_token_usage"]["cache_write_input_tokens"] = json!(300);
    let s = parse_lines(NAME, &[meta("t2", json!({})), line]);
    let u = s.usage();
    assert_eq!(
        (u.input, u.cache_read, u.cache_write, u.output),
        (100, 600, 300, 10)
    );
    assert_eq!(u.total(), 1010);
}

#[test]
fn human_prompt_is_not_emitted_twice_in_either_order() {
    let s = parse_lines(
        NAME,
        &[
            meta("t3", json!({})),
            user_item(
                "00:01.000",
                "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>",
            ),
            // copy first, then event
            user_item("00:02.000", "first prompt"),
            user_event("00:02.001", "first prompt"),
            // event first, then copy
            user_event("00:03.000", "second prompt"),
            user_item("00:03.001", "second prompt"),
            // a role:user text the human did not type (no event)
            user_item("00:04.000", "Warning: apply_patch was requested via shell"),
        ],
    );
    let humans: Vec<String> = s
        .messages
        .iter()
        .filter(|m| m.is_human)
        .map(|m| m.text())
        .collect();
    assert_eq!(humans, vec!["first prompt", "second prompt"]);
    assert_eq!(s.messages.len(), 4);
    assert_eq!(
        s.messages[0].subtype.as_deref(),
        Some("environment_context")
    );
    assert_eq!(s.messages[3].subtype.as_deref(), Some("model_input"));
    assert!(!s.messages[3].is_human);
    // cwd came from session_meta, not from the environment context
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/webapp"));
}

#[test]
fn bare_era_falls_back_to_user_messages_and_environment_cwd() {
    let lines = [
        json!({"id": "5f0c2d1e-8b3a-4c6d-9e7f-000000000001", "timestamp": "2025-09-01T08:00:00Z",
               "instructions": null, "git": {"branch": "dev"}}),
        json!({"record_type": "state"}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text",
               "text": "<user_instructions>\nbe brief\n</user_instructions>"}]}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text",
               "text": "<environment_context>\n  <cwd>/home/dev/api-server</cwd>\n</environment_context>"}]}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text",
               "text": "# Context from my IDE setup:\n\n## Open tabs:\n- a.rs\n\n## My request for Codex:\nfix the bug\n"}]}),
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        json!({"no_type": true}),
    ];
    let s = parse_lines(
        "rollout-2025-09-01T08-00-00-5f0c2d1e-8b3a-4c6d-9e7f-000000000001.jsonl",
        &lines,
    );
    assert_eq!(s.id, "5f0c2d1e-8b3a-4c6d-9e7f-000000000001");
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/api-server"));
    assert_eq!(s.git_branch.as_deref(), Some("dev"));
    assert_eq!(s.started_at, parse_time_str_ok("2025-09-01T08:00:00Z"));
    let humans: Vec<String> = s
        .messages
        .iter()
        .filter(|m| m.is_human)
        .map(|m| m.text())
        .collect();
    assert_eq!(humans, vec!["fix the bug"]);
    assert_eq!(s.messages[0].subtype.as_deref(), Some("instructions"));
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::UnexpectedRecord);
    assert_eq!(s.warnings[0].line, Some(7));
    assert!(
        s.other_records
            .contains(&("codex:record_type:state".to_string(), 1))
    );
}

fn parse_time_str_ok(s: &str) -> Option<DateTime<Utc>> {
    parse::parse_time_str(s)
}

#[test]
fn assistant_items_group_until_a_break_and_requests_find_their_message() {
    // Later builds: token_count after the items it accounts for.
    let s = parse_lines(
        NAME,
        &[
            meta("t5", json!({})),
            user_event("00:01.000", "go"),
            env(
                "00:02.000",
                "response_item",
                json!({"type": "reasoning",
            "summary": [{"type": "summary_text", "text": "thinking"}], "encrypted_content": "gAAA"}),
            ),
            call("00:02.001", "c1"),
            call("00:02.002", "c2"),
            tc("00:02.010", (100, 0, 10, 5), (100, 0, 10, 5)),
            output("00:03.000", "c1", json!("ok")),
            output("00:03.001", "c2", json!("ok")),
            asst("00:04.000", "all done"),
            tc("00:04.010", (250, 0, 20, 5), (150, 0, 10, 0)),
        ],
    );
    assert_eq!(s.messages.len(), 4);
    assert_eq!(s.messages[1].parts.len(), 3);
    assert_eq!(s.messages[2].role, Role::Tool);
    assert_eq!(s.messages[2].parts.len(), 2);
    assert_eq!(s.requests[0].message_index, Some(1));
    assert_eq!(s.requests[1].message_index, Some(3));
    assert_eq!(s.messages[3].usage.as_ref().map(|u| u.total()), Some(160));

    // 0.39: token_count before the items of its response.
    let s = parse_lines(
        NAME,
        &[
            meta("t6", json!({})),
            user_event("00:01.000", "go"),
            tc("00:02.000", (100, 0, 10, 5), (100, 0, 10, 5)),
            asst("00:02.001", "looking"),
            call("00:02.002", "c1"),
            output("00:02.003", "c1", json!("ok")),
            tc("00:03.000", (250, 0, 20, 5), (150, 0, 10, 0)),
            asst("00:03.001", "done"),
        ],
    );
    assert_eq!(s.counts().assistant_messages, 2);
    assert_eq!(s.requests[0].message_index, Some(1));
    assert_eq!(s.requests[1].message_index, Some(3));
    assert_eq!(s.messages[1].usage.as_ref().map(|u| u.output), Some(10));
}

#[test]
fn every_output_shape_and_error_signal() {
    let cases: Vec<(Value, &str, bool, usize)> = vec![
        (
            json!("{\"output\":\"boom\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}"),
            "boom",
            true,
            0,
        ),
        (
            json!("{\"output\":\"fine\",\"metadata\":{\"exit_code\":0}}"),
            "fine",
            false,
            0,
        ),
        (
            json!("Exit code: 1\nWall time: 0 seconds\nOutput:\nnope"),
            "Exit code: 1\nWall time: 0 seconds\nOutput:\nnope",
            true,
            0,
        ),
        (
            json!("Exit code: 0\nOutput:\nyes"),
            "Exit code: 0\nOutput:\nyes",
            false,
            0,
        ),
        (
            json!("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 3\nOutput:\nx"),
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 3\nOutput:\nx",
            true,
            0,
        ),
        (json!("aborted by user"), "aborted by user", true, 0),
        (json!("Plan updated"), "Plan updated", false, 0),
        (
            json!([{"type": "input_text", "text": "a"}, {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]),
            "a",
            false,
            1,
        ),
        (json!("[{\"text\":\"mcp text\"}]"), "mcp text", false, 0),
        (json!({"content": "bad", "success": false}), "bad", true, 0),
        (
            json!({"content": [{"type": "input_text", "text": "good"}], "success": true}),
            "good",
            false,
            0,
        ),
        (
            json!({"type": "input_text", "text": "single"}),
            "single",
            false,
            0,
        ),
        (json!(null), "", false, 0),
    ];
    for (i, (out, text, err, att)) in cases.into_iter().enumerate() {
        let s = parse_lines(
            NAME,
            &[
                meta("t7", json!({})),
                call("00:01.000", "c"),
                output("00:02.000", "c", out),
            ],
        );
        match &s.messages[1].parts[0] {
            Part::ToolResult {
                call_id,
                output,
                is_error,
                attachments,
                ..
            } => {
                assert_eq!(call_id, "c", "case {i}");
                assert_eq!(output, text, "case {i}");
                assert_eq!(*is_error, err, "case {i}");
                assert_eq!(attachments.len(), att, "case {i}");
            }
            other => panic!("case {i}: {other:?}"),
        }
    }
}

#[test]
fn tool_calls_of_every_kind_keep_ids_and_raw_arguments() {
    let s = parse_lines(
        NAME,
        &[
            meta("t8", json!({})),
            env(
                "00:01.000",
                "response_item",
                json!({"type": "function_call", "name": "shell",
            "arguments": "{not json", "call_id": "a"}),
            ),
            env(
                "00:01.001",
                "response_item",
                json!({"type": "custom_tool_call", "name": "apply_patch",
            "input": "*** Begin Patch", "call_id": "b"}),
            ),
            env(
                "00:01.002",
                "response_item",
                json!({"type": "local_shell_call", "call_id": "c",
            "status": "completed", "action": {"type": "exec", "command": ["ls"]}}),
            ),
            env(
                "00:01.003",
                "response_item",
                json!({"type": "web_search_call", "id": "ws_1",
            "status": "completed", "action": {"type": "search", "query": "rust"}}),
            ),
            env(
                "00:01.004",
                "response_item",
                json!({"type": "function_call", "name": "search",
            "namespace": "mcp__docs__", "arguments": "{}"}),
            ),
        ],
    );
    let calls: Vec<(String, String, Value)> = s.messages[0]
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall { id, name, input } => {
                Some((id.clone(), name.clone(), input.to_value()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 5);
    assert_eq!(calls[0], ("a".into(), "shell".into(), json!("{not json")));
    assert_eq!(calls[1].2, json!("*** Begin Patch"));
    assert_eq!(calls[2].1, "local_shell");
    assert_eq!(calls[2].2["command"], json!(["ls"]));
    assert_eq!(
        (calls[3].0.as_str(), calls[3].1.as_str()),
        ("ws_1", "web_search")
    );
    assert_eq!(calls[4].1, "mcp__docs__search");
    assert!(calls[4].0.ends_with(":1"), "synthesised id {}", calls[4].0);
    assert_eq!(s.counts().tool_calls, 5);
}

#[test]
fn compacted_and_context_compacted_are_one_event() {
    let s = parse_lines(
        NAME,
        &[
            meta("t9", json!({})),
            turn_context("00:00.500", "m"),
            user_event("00:01.000", "go"),
            asst("00:01.500", "working"),
            tc("00:02.000", (5000, 0, 10, 0), (5000, 0, 10, 0)),
            env(
                "00:03.000",
                "compacted",
                json!({"message": "SUMMARY", "window_number": 2,
            "window_id": "w2", "replacement_history": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "SUMMARY"}]}]}),
            ),
            env(
                "00:03.001",
                "event_msg",
                json!({"type": "context_compacted"}),
            ),
            turn_context("00:03.002", "m"),
            asst("00:04.000", "continuing"),
            tc("00:04.010", (6200, 0, 30, 0), (1200, 0, 20, 0)),
            // A lone context_compacted later is its own event, with no request after it.
            user_event("00:05.000", "/compact"),
            env(
                "00:05.100",
                "event_msg",
                json!({"type": "context_compacted"}),
            ),
        ],
    );
    assert_eq!(s.compactions.len(), 2);
    let c = &s.compactions[0];
    assert_eq!(c.trigger, Trigger::Auto);
    assert_eq!((c.tokens_before, c.tokens_after), (Some(5000), Some(1200)));
    assert_eq!(c.tokens_provenance, Provenance::Recorded);
    assert_eq!(c.messages_after, Some(2));
    assert_eq!(c.summary.as_deref(), Some("SUMMARY"));
    assert_eq!(c.request_index, 1);
    assert_eq!(c.extra["window_id"], json!("w2"));
    assert_eq!(c.extra["context_compacted"], json!(true));
    // The marker, then the summary: the first message after the compaction.
    assert_eq!(
        s.messages[c.message_index - 1].parts,
        vec![Part::Compaction { index: 0 }]
    );
    assert_eq!(
        s.messages[c.message_index].subtype.as_deref(),
        Some("compact_summary")
    );
    assert!(!s.messages[c.message_index].is_human);
    let c2 = &s.compactions[1];
    assert_eq!(c2.trigger, Trigger::Manual);
    assert_eq!(c2.tokens_before, Some(1200));
    assert_eq!(c2.tokens_after, None);
    assert_eq!(c2.request_index, 2);
    assert_eq!(
        s.messages.last().unwrap().subtype.as_deref(),
        Some("compaction")
    );
}

#[test]
fn compaction_without_a_following_request_is_estimated() {
    let s = parse_lines(
        NAME,
        &[
            meta("t10", json!({})),
            env(
                "00:01.000",
                "event_msg",
                json!({"type": "context_compacted"}),
            ),
            env(
                "00:01.001",
                "compacted",
                json!({"message": "abcdefgh", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "0123456789abcdef"}]}]}),
            ),
        ],
    );
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(c.trigger, Trigger::Unknown);
    assert_eq!(c.tokens_before, None);
    // "0123456789abcdef\n" = 17 bytes → 5 tokens
    assert_eq!(c.tokens_after, Some(5));
    assert_eq!(c.tokens_provenance, Provenance::Estimated);
    assert_eq!(c.summary.as_deref(), Some("abcdefgh"));
    assert_eq!(s.messages.len(), 2);
}

#[test]
fn rollback_supersedes_the_dropped_turns_and_title_is_explicit() {
    let s = parse_lines(
        NAME,
        &[
            meta("t11", json!({})),
            user_event("00:01.000", "one"),
            asst("00:01.500", "a1"),
            user_event("00:02.000", "two"),
            asst("00:02.500", "a2"),
            user_event("00:03.000", "three"),
            asst("00:03.500", "a3"),
            env(
                "00:04.000",
                "event_msg",
                json!({"type": "thread_rolled_back", "num_turns": 2}),
            ),
            env(
                "00:05.000",
                "event_msg",
                json!({"type": "thread_name_updated", "thread_name": "Named"}),
            ),
        ],
    );
    let sup: Vec<bool> = s.messages.iter().map(|m| m.superseded).collect();
    assert_eq!(sup, vec![false, false, true, true, true, true]);
    assert_eq!(s.title.as_deref(), Some("Named"));
    assert!(s.title_is_explicit);
}

#[test]
fn bad_lines_unknown_kinds_and_developer_messages() {
    let text = format!(
        "{}\nnot json\n{}\n{}\n{}\n{{\"timestamp\":\"x\",\"type\":\"event_msg\",\"payload\":{{\"ty",
        meta("t12", json!({})),
        env("00:01.000", "world_state", json!({"full": true})),
        env(
            "00:01.001",
            "response_item",
            json!({"type": "message", "role": "developer",
            "content": [{"type": "input_text", "text": "<permissions instructions>"}]})
        ),
        env(
            "00:01.002",
            "event_msg",
            json!({"type": "agent_reasoning", "text": "dup"})
        ),
    );
    let s = parse_text(NAME, &text, FileRole::CodexRollout);
    let kinds: Vec<(WarningKind, Option<u64>)> =
        s.warnings.iter().map(|w| (w.kind, w.line)).collect();
    assert_eq!(
        kinds,
        vec![
            (WarningKind::MalformedLine, Some(2)),
            (WarningKind::TruncatedLastLine, Some(6))
        ]
    );
    assert!(
        s.other_records
            .contains(&("codex:world_state".to_string(), 1))
    );
    assert!(
        s.other_records
            .contains(&("codex:agent_reasoning".to_string(), 1))
    );
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].role, Role::System);
    assert_eq!(s.counts().assistant_messages, 0);
}

#[test]
fn legacy_document_and_its_failures() {
    let doc = json!({"session": {"id": "legacy-1", "timestamp": "2025-04-01T09:00:00Z"}, "items": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]},
        7
    ]});
    let s = parse_text(
        "rollout-2025-04-01-x.json",
        &doc.to_string(),
        FileRole::CodexLegacyJson,
    );
    assert_eq!(s.id, "legacy-1");
    assert_eq!(s.counts().user_turns, 1);
    assert_eq!(s.counts().assistant_messages, 1);
    assert_eq!(s.warnings.len(), 1);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-2025-04-01-y.json");
    std::fs::write(&path, "{ not json").unwrap();
    let err = parse(&SourceFile::new(
        Agent::Codex,
        path,
        FileRole::CodexLegacyJson,
    ))
    .unwrap_err();
    assert_eq!(err.kind, WarningKind::MalformedDocument);

    let missing = SourceFile::new(
        Agent::Codex,
        dir.path().join("nope.jsonl"),
        FileRole::CodexRollout,
    );
    assert_eq!(parse(&missing).unwrap_err().kind, WarningKind::Unreadable);
}

#[test]
fn zstd_rollouts_and_filename_ids() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(NAME.to_string() + ".zst");
    let body = format!(
        "{}\n{}\n",
        user_event("00:01.000", "zipped"),
        asst("00:02.000", "ok")
    );
    let mut enc =
        zstd::stream::write::Encoder::new(std::fs::File::create(&path).unwrap(), 3).unwrap();
    enc.write_all(body.as_bytes()).unwrap();
    enc.finish().unwrap();
    let s = parse(&SourceFile::new(Agent::Codex, path, FileRole::CodexRollout)).unwrap();
    // No session_meta: the id is the uuid at the end of the file name.
    assert_eq!(s.id, "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000");
    assert_eq!(s.first_prompt().as_deref(), Some("zipped"));
    // A non-ASCII name must not split a character when looking for the uuid.
    let odd = "rollout-éééééééééééééééééééééa.jsonl"; // 51-byte stem: byte 15 is mid-character
    assert_eq!(
        id_from_path(Path::new(odd)),
        "rollout-éééééééééééééééééééééa"
    );
    assert_eq!(id_from_path(Path::new("x/odd-name.jsonl")), "odd-name");
}

#[test]
fn harness_detection() {
    assert_eq!(
        harness_kind("<environment_context>\n</environment_context>"),
        Some("environment_context")
    );
    assert_eq!(
        harness_kind("# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>"),
        Some("instructions")
    );
    assert_eq!(
        harness_kind("<turn_aborted>\nbye\n</turn_aborted>"),
        Some("context")
    );
    assert_eq!(harness_kind("<div>html question</span>"), None);
    assert_eq!(harness_kind("please fix <b>this</b>"), None);
    assert_eq!(
        prompt_key("# Context from my IDE setup:\n## My request for Codex:\n do it \n"),
        "do it"
    );
}

#[test]
fn the_summary_view_reads_tool_failures_like_the_full_view() {
    use super::content::{OutputError, flatten_output};
    let inner = |v: Value| Value::String(v.to_string());
    let cases = [
        json!("Exit code: 1\nWall time: 0 s\nOutput:\nboom"),
        json!("Exit code: 0\nOutput:\nok"),
        json!("Chunk ID: 1\nWall time: 0.1\nProcess exited with code 2\nOutput:\n"),
        json!("Chunk ID: 1\nProcess exited with code 0\nOutput:\n"),
        json!("ERROR: no such file"),
        json!("  aborted by user"),
        json!("patch rejected: hunk 2"),
        json!("all good"),
        json!(""),
        json!(null),
        json!(7),
        inner(json!({"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 0.1}})),
        inner(json!({"output": "error: x", "metadata": {"exit_code": 0}})),
        inner(json!({"output": "error: x"})),
        inner(json!({"output": "ok", "success": false})),
        inner(json!({"no_output": "error: x"})),
        inner(json!([{"type": "input_text", "text": "Exit code: 3"}])),
        inner(json!([1, 2])),
        json!("{not json, error: x"),
        json!([{"type": "input_text", "text": "fine"}, {"type": "input_image", "image_url": "data:image/png;base64,AA"}]),
        json!([{"type": "mystery", "text": "Exit code: 4"}]),
        json!([{"text": "err: untyped"}, "more"]),
        json!([]),
        json!({"content": "Exit code: 9", "success": true}),
        json!({"content": [{"type": "output_text", "text": "fine"}], "success": false}),
        json!({"content": "error: x"}),
        json!({"type": "refusal", "refusal": "aborted"}),
        json!({"type": "input_text", "text": "Exit code: 5"}),
        json!({"success": false}),
        json!({"other": 1}),
        json!({"output": {"output": "x", "metadata": {"exit_code": 7}}}),
        json!({"output": null, "metadata": {"exit_code": "1"}}),
    ];
    let long_lines = "x".repeat(300);
    let texts = [
        format!("\n\t  Exit code: 12\n{long_lines}"),
        format!("{long_lines}\n{long_lines}\nProcess exited with code 1\n"),
        "a\nb\nc\nd\ne\nf\nProcess exited with code 1".to_string(),
        "a\nb\nc\nd\ne\nProcess exited with code 1".to_string(),
        "short\nlines\nERROR".to_string(),
        "\u{2192} caf\u{e9} \u{1F600} \"quoted\" back\\slash\r\nExit code: 1".to_string(),
        "   {\"output\": \"error: x\"}".to_string(),
        "\n[{\"type\": \"input_text\", \"text\": \"Exit code: 2\"}]".to_string(),
        "ERROR: first line is an error".to_string(),
        "ok\u{0}\u{1f}".to_string(),
    ];
    let mut all: Vec<Value> = cases.to_vec();
    all.extend(texts.iter().map(|t| Value::String(t.clone())));
    all.extend(texts.iter().map(|t| inner(json!({"output": t}))));
    for v in all {
        let full = flatten_output(&v).1;
        // Through a line, as the summary view reads it (serde_json escapes non-ASCII as is;
        // an ASCII-escaped copy exercises the \u decoder).
        let line = json!({ "output": v }).to_string();
        let ascii: String = line
            .chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_string()
                } else {
                    let mut b = [0u16; 2];
                    c.encode_utf16(&mut b)
                        .iter()
                        .map(|u| format!("\\u{u:04x}"))
                        .collect()
                }
            })
            .collect();
        for text in [&line, &ascii] {
            #[derive(serde::Deserialize)]
            struct L {
                output: OutputError,
            }
            let l: L = crate::parse::json::with_detail(crate::parse::Detail::Summary, || {
                serde_json::from_str(text).unwrap()
            });
            assert_eq!(l.output.is_error, full, "{text}");
        }
    }
}

#[test]
fn a_shell_result_string_flattens_as_its_tree_does() {
    let cases = [
        r#"{"output":"total 4\ndrwx a\n","metadata":{"exit_code":0,"duration_seconds":0.1}}"#,
        r#"{"output":"boom\n","metadata":{"exit_code":2}}"#,
        r#"{"output":"Exit code: 1\nfailed","metadata":{}}"#,
        r#"{"output":"error: no such file","metadata":null}"#,
        r#"{"output":"fine","metadata":{"exit_code":0},"success":false}"#,
        r#"{"output":"fine","success":null,"extra":[1,{"x":2}]}"#,
        r#"{"output":"caf\u00e9 \ud83d\ude00 \"q\"","metadata":{"exit_code":1.0}}"#,
        r#"{"output":"big","metadata":{"exit_code":18446744073709551615}}"#,
        r#"  {"metadata":{"exit_code":0},"output":"order"}"#,
        r#"{"output":"error: odd","metadata":"exit 0"}"#,
        r#"{"output":"error: odd","metadata":[{"exit_code":0}]}"#,
        r#"{"output":"ok","metadata":{"exit_code":null,"duration_seconds":{"s":1}}}"#,
        r#"{"output":"ok","metadata":{"exit_code":"0"}}"#,
        r#"{"output":"ok","metadata":{"exit_code":0,"exit_code":3}}"#,
        r#"{"output":"error: twice","metadata":{"exit_code":3},"metadata":{"x":1}}"#,
        // Shapes the fast path leaves to the tree: nested JSON, non-string output, a repeated key.
        r#"{"output":"{\"output\":\"inner\",\"metadata\":{\"exit_code\":3}}"}"#,
        r#"{"output":" [{\"type\":\"text\",\"text\":\"t\"}]"}"#,
        r#"{"output":["a","b"]}"#,
        r#"{"output":"first","output":"second"}"#,
        // Outputs the measured view reads without decoding them, or leaves to the decoding:
        // JSON after whitespace written as escapes, a failure said only by the text, escapes
        // of every kind, a lone surrogate.
        r#"{"output":"\n\t {\"a\":1}"}"#,
        r#"{"output":"\u0020[1]","metadata":{"exit_code":0}}"#,
        r#"{"output":"Chunk ID: 1\nProcess exited with code 2\nOutput:\n"}"#,
        r#"{"output":"  ERROR: \u00e9chec \\ \/","metadata":{}}"#,
        r#"{"output":"cut \ud83d","metadata":{"exit_code":0}}"#,
    ];
    let mut measured = 0;
    for s in cases {
        let string = Value::String(s.to_string());
        let flat = flatten_output(&string);
        // A lone surrogate is no JSON for serde_json: there is no tree to compare with.
        match serde_json::from_str::<Value>(s) {
            Ok(tree) => assert_eq!(flat, flatten_output(&tree), "{s}"),
            Err(_) => assert!(s.contains(r"\ud83d"), "{s}"),
        }
        let (text, is_error, _) = flat;
        // The measured view's reading, where it applies, is the size of the same text and
        // the same failure.
        if let Some((size, err)) = shell_result_measured(&string) {
            assert_eq!((size, err), (TextSize::of(&text), is_error), "{s}");
            measured += 1;
        }
    }
    // Every case but nine: the six the tree decides (JSON in the output, an output that is no
    // string, a repeated key), the two JSON texts after whitespace written as escapes, and
    // the lone surrogate.
    assert_eq!(measured, cases.len() - 9);
}
