//! Unit tests of the Codex parser: one test per rule of the module doc.

use super::content::{flatten_output, harness_kind, prompt_key};
use super::*;
use crate::model::{Message, Role, Trigger};
use serde_json::json;
use std::io::Write;

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
    assert_eq!(s.messages[3].usage.map(|u| u.total()), Some(160));

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
    assert_eq!(s.messages[1].usage.map(|u| u.output), Some(10));
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
            Part::ToolCall { id, name, input } => Some((id.clone(), name.clone(), input.clone())),
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
    assert_eq!(
        s.messages[c.message_index].parts,
        vec![Part::Compaction { index: 0 }]
    );
    assert_eq!(
        s.messages[c.message_index + 1].subtype.as_deref(),
        Some("compact_summary")
    );
    assert!(!s.messages[c.message_index + 1].is_human);
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
fn fork_replay_burst_is_skipped_but_sets_the_token_baseline() {
    let s = parse_lines(
        NAME,
        &[
            meta("fork", json!({"forked_from_id": "parent"})),
            json!({"timestamp": "2026-03-01T10:00:00.500Z", "type": "session_meta",
               "payload": {"id": "parent", "cwd": "/elsewhere"}}),
            json!({"timestamp": "2026-03-01T10:00:00.600Z", "type": "event_msg",
               "payload": {"type": "user_message", "message": "parent prompt"}}),
            json!({"timestamp": "2026-03-01T10:00:00.700Z", "type": "event_msg", "payload": {"type": "token_count",
               "info": {"total_token_usage": usage(50000, 40000, 500, 100), "last_token_usage": usage(9000, 8000, 50, 0)}}}),
            user_event("00:03.000", "own prompt"),
            tc("00:04.000", (51000, 40500, 520, 100), (1000, 500, 20, 0)),
        ],
    );
    assert_eq!(s.id, "fork");
    assert_eq!(s.kind, SessionKind::Main);
    assert_eq!(s.parent_id.as_deref(), Some("parent"));
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/webapp"));
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].text(), "own prompt");
    assert_eq!(s.usage().total(), 1020);
    assert!(s.other_records.contains(&("codex:replayed".to_string(), 3)));
}

/// The copy of a parent written at 00:00.120–00:00.150 (one batch), then the child's own lines
/// in the same second.
fn copied_parent() -> Vec<Value> {
    vec![
        env(
            "00:00.120",
            "session_meta",
            json!({"id": "parent", "timestamp": "2026-02-28T09:00:00Z", "cwd": "/x"}),
        ),
        user_event("00:00.130", "old parent prompt"),
        asst("00:00.140", "old answer"),
        tc("00:00.150", (5000, 0, 50, 0), (5000, 0, 50, 0)),
    ]
}

#[test]
fn replay_burst_ends_at_a_gap_inside_its_second() {
    // An edited fork: its own turn starts 250 ms after the copy, still in the copy's second.
    let mut lines = vec![meta("fork", json!({"forked_from_id": "parent"}))];
    lines.extend(copied_parent());
    lines.extend([
        env(
            "00:00.400",
            "turn_context",
            json!({"cwd": "/x", "model": "gpt-5-codex"}),
        ),
        user_event("00:00.410", "edited prompt: use postgres instead"),
        user_item("00:00.420", "edited prompt: use postgres instead"),
        asst("00:04.000", "Switched to postgres."),
        tc("00:04.100", (10200, 0, 90, 0), (5200, 0, 40, 0)),
    ]);
    let s = parse_lines(NAME, &lines);
    let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
    assert_eq!(
        texts,
        vec![
            "edited prompt: use postgres instead",
            "Switched to postgres."
        ]
    );
    assert!(s.messages[0].is_human);
    assert_eq!(s.usage().total(), 5240);
    assert!(s.other_records.contains(&("codex:replayed".to_string(), 4)));

    // A sub-agent whose tool call comes 170 ms after the copy keeps it.
    let mut lines = vec![meta(
        "child",
        json!({"source": {"subagent": {"thread_spawn": {"parent_thread_id": "parent"}}}}),
    )];
    lines.extend(copied_parent());
    lines.extend([
        user_event("00:00.320", "Scan the repo"),
        call("00:00.900", "k1"),
        output("00:01.500", "k1", json!("a\nb")),
    ]);
    let s = parse_lines(NAME, &lines);
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.messages[0].text(), "Scan the repo");
    assert!(
        s.messages[1]
            .parts
            .iter()
            .any(|p| matches!(p, Part::ToolCall { id, .. } if id == "k1"))
    );
}

#[test]
fn replay_burst_ends_at_a_turn_minted_after_the_thread() {
    // Turn ids are UUIDv7: 019ca379-e280 is 2026-02-28T09:00Z (the parent's turn, copied),
    // 019ca8d7-2ef4 is 2026-03-01T10:00:00.500Z (after this thread's creation at 10:00:00).
    let turn =
        |ts: &str, id: &str| env(ts, "turn_context", json!({"model": "gpt-5", "turn_id": id}));
    let started = |ts: &str, id: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "task_started", "turn_id": id}),
        )
    };
    let mut lines = vec![meta("fork", json!({"forked_from_id": "parent"}))];
    lines.extend(copied_parent());
    lines.insert(
        2,
        started("00:00.121", "019ca379-e280-7000-8000-000000000001"),
    );
    lines.insert(3, turn("00:00.122", "019ca379-e280-7000-8000-000000000001"));
    lines.extend([
        started("00:00.151", "019ca8d7-2ef4-7000-8000-000000000001"),
        turn("00:00.152", "019ca8d7-2ef4-7000-8000-000000000001"),
        user_event("00:00.153", "own prompt"),
        asst("00:00.160", "own answer"),
    ]);
    let s = parse_lines(NAME, &lines);
    let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
    assert_eq!(texts, vec!["own prompt", "own answer"]);
    assert!(s.other_records.contains(&("codex:replayed".to_string(), 6)));
}

#[test]
fn subagent_ordinal_boundary_skips_copied_history() {
    let mut own = meta(
        "child",
        json!({"source": {"subagent": {"thread_spawn":
        {"parent_thread_id": "root", "depth": 1}}}, "subagent_history_start_ordinal": 3}),
    );
    own["ordinal"] = json!(0);
    let with_ord = |mut v: Value, o: u64| {
        v["ordinal"] = json!(o);
        v
    };
    let s = parse_lines(
        NAME,
        &[
            own,
            with_ord(user_event("00:00.100", "root prompt"), 1),
            with_ord(tc("00:00.200", (700, 0, 7, 0), (700, 0, 7, 0)), 2),
            with_ord(user_event("00:09.000", "child task"), 3),
            with_ord(tc("00:10.000", (1000, 0, 10, 0), (300, 0, 3, 0)), 4),
        ],
    );
    assert_eq!(s.kind, SessionKind::Subagent);
    assert_eq!(s.parent_id.as_deref(), Some("root"));
    let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
    assert_eq!(texts, vec!["child task"]);
    assert_eq!(s.usage().total(), 303);
}

#[test]
fn leading_same_second_token_counts_of_a_subagent_are_baseline() {
    let s = parse_lines(
        NAME,
        &[
            meta(
                "child2",
                json!({"source": {"subagent": "review"}, "parent_thread_id": "root"}),
            ),
            tc("00:01.100", (400, 0, 4, 0), (400, 0, 4, 0)),
            tc("00:01.200", (900, 0, 9, 0), (500, 0, 5, 0)),
            tc("00:05.000", (1000, 0, 10, 0), (100, 0, 1, 0)),
        ],
    );
    assert_eq!(s.kind, SessionKind::Subagent);
    assert_eq!(s.parent_id.as_deref(), Some("root"));
    assert_eq!(s.requests.len(), 1);
    assert_eq!(s.usage().total(), 101);

    // A main session is never second-guessed.
    let s = parse_lines(
        NAME,
        &[
            meta("main", json!({})),
            tc("00:01.100", (400, 0, 4, 0), (400, 0, 4, 0)),
            tc("00:01.200", (900, 0, 9, 0), (500, 0, 5, 0)),
        ],
    );
    assert_eq!(s.usage().total(), 909);
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
        // Shapes the fast path leaves to the tree: nested JSON, non-string output, a repeated key.
        r#"{"output":"{\"output\":\"inner\",\"metadata\":{\"exit_code\":3}}"}"#,
        r#"{"output":" [{\"type\":\"text\",\"text\":\"t\"}]"}"#,
        r#"{"output":["a","b"]}"#,
        r#"{"output":"first","output":"second"}"#,
    ];
    for s in cases {
        let tree: Value = serde_json::from_str(s).unwrap();
        assert_eq!(
            flatten_output(&Value::String(s.to_string())),
            flatten_output(&tree),
            "{s}"
        );
    }
}

#[test]
fn errors_and_aborted_turns_are_notices_in_the_transcript() {
    let s = parse_lines(
        NAME,
        &[
            meta("0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", json!({})),
            user_event("00:01.000", "run the tests"),
            user_item("00:01.001", "run the tests"),
            env(
                "00:02.000",
                "event_msg",
                json!({"type": "error", "message": "stream disconnected before completion",
                       "codex_error_info": "other"}),
            ),
            env(
                "00:03.000",
                "event_msg",
                json!({"type": "turn_aborted", "reason": "interrupted"}),
            ),
            env(
                "00:04.000",
                "event_msg",
                json!({"type": "task_complete", "last_agent_message": null,
                       "error": {"message": "usage limit reached"}}),
            ),
            // Nothing to say: tallied, as before.
            env(
                "00:05.000",
                "event_msg",
                json!({"type": "task_complete", "last_agent_message": "done"}),
            ),
            env(
                "00:06.000",
                "event_msg",
                json!({"type": "error", "message": ""}),
            ),
        ],
    );
    let notices: Vec<(Role, Option<&str>, String, bool)> = s
        .messages
        .iter()
        .skip(1)
        .map(|m| (m.role, m.subtype.as_deref(), m.text(), m.is_human))
        .collect();
    assert_eq!(
        notices,
        [
            (
                Role::System,
                Some("error"),
                "stream disconnected before completion".to_string(),
                false
            ),
            (
                Role::System,
                Some("turn_aborted"),
                "Turn aborted: interrupted".to_string(),
                false
            ),
            (
                Role::System,
                Some("error"),
                "usage limit reached".to_string(),
                false
            ),
        ]
    );
    assert_eq!(s.counts().user_turns, 1);
}

const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn image_copy(ts: &str, content: Value) -> Value {
    env(
        ts,
        "response_item",
        json!({"type": "message", "role": "user", "content": content}),
    )
}
fn image_event(ts: &str, text: &str, path: &str) -> Value {
    env(
        ts,
        "event_msg",
        json!({"type": "user_message", "message": text, "images": [], "local_images": [path]}),
    )
}

/// The one human message of `s`, which must be the prompt with one decoded PNG.
fn assert_one_prompt_with_png(s: &Session, text: &str) {
    let humans: Vec<&Message> = s.messages.iter().filter(|m| m.role == Role::User).collect();
    assert_eq!(humans.len(), 1, "{:?}", s.messages);
    let m = humans[0];
    assert!(m.is_human);
    assert_eq!(m.subtype, None);
    assert_eq!(m.text(), text);
    let images: Vec<&Part> = m
        .parts
        .iter()
        .filter(|p| !matches!(p, Part::Text { .. }))
        .collect();
    assert_eq!(images.len(), 1, "{:?}", m.parts);
    match images[0] {
        Part::Image {
            media_type, data, ..
        } => {
            assert_eq!(media_type.as_deref(), Some("image/png"));
            assert_eq!(data.as_deref(), Some(PIXEL));
        }
        other => panic!("not an image: {other:?}"),
    }
}

#[test]
fn image_wrapper_tags_do_not_stop_a_copy_pairing_with_its_event() {
    let url = format!("data:image/png;base64,{PIXEL}");
    let s = parse_lines(
        NAME,
        &[
            meta("img1", json!({})),
            image_copy(
                "00:01.000",
                json!([{"type": "input_text", "text": "<image name=[Image #1]>"},
                       {"type": "input_image", "image_url": url},
                       {"type": "input_text", "text": "</image>"},
                       {"type": "input_text", "text": "what is in [Image #1]"}]),
            ),
            image_event("00:01.000", "what is in [Image #1]", "/tmp/a.png"),
            asst("00:02.000", "A pixel."),
        ],
    );
    assert_one_prompt_with_png(&s, "what is in [Image #1]");
    assert_eq!(s.messages.len(), 2);

    // An image with no text: the wrapped copy is not a harness tag block.
    let s = parse_lines(
        NAME,
        &[
            meta("img2", json!({})),
            image_copy(
                "00:01.000",
                json!([{"type": "input_text", "text": "<image name=[Image #1]>"},
                       {"type": "input_image", "image_url": url},
                       {"type": "input_text", "text": "</image>"}]),
            ),
            image_event("00:01.000", "", "/tmp/a.png"),
        ],
    );
    assert_one_prompt_with_png(&s, "");
}

#[test]
fn a_paired_prompt_keeps_the_decoded_image_of_its_copy() {
    let url = format!("data:image/png;base64,{PIXEL}");
    let copy = || {
        image_copy(
            "00:02.000",
            json!([{"type": "input_text", "text": "look at this screenshot"},
                   {"type": "input_image", "image_url": url}]),
        )
    };
    let event = || image_event("00:02.000", "look at this screenshot", "/tmp/shot.png");
    // Copy first, then event (0.63), and event first, then copy (0.60).
    for lines in [[copy(), event()], [event(), copy()]] {
        let mut all = vec![meta("img3", json!({}))];
        all.extend(lines);
        let s = parse_lines(NAME, &all);
        assert_one_prompt_with_png(&s, "look at this screenshot");
    }

    // No image data in the copy: the event's local path is kept.
    for order in [false, true] {
        let mut all = vec![meta("img4", json!({}))];
        let (a, b) = (
            user_item("00:02.000", "see file"),
            image_event("00:02.000", "see file", "/tmp/f.png"),
        );
        all.extend(if order { [a, b] } else { [b, a] });
        let s = parse_lines(NAME, &all);
        assert_eq!(s.messages.len(), 1);
        assert!(s.messages[0].parts.iter().any(
            |p| matches!(p, Part::Unknown { kind, raw } if kind == "local_image" && raw == "/tmp/f.png")
        ));
    }
}

#[test]
fn the_same_prompt_retyped_after_an_interrupt_is_a_second_turn() {
    let aborted = || {
        env(
            "00:03.000",
            "event_msg",
            json!({"type": "turn_aborted", "reason": "interrupted"}),
        )
    };
    // Event before its copy (0.58, 0.14x) and copy before its event; with the abort recorded
    // (its notice sits between the prompts) and without (nothing between them).
    for (event_first, abort) in [(true, true), (false, true), (true, false), (false, false)] {
        let turn = |ts: &str| {
            let (e, c) = (
                user_event(ts, "run the tests"),
                user_item(ts, "run the tests"),
            );
            if event_first { [e, c] } else { [c, e] }
        };
        let mut lines = vec![meta("rt", json!({}))];
        lines.extend(turn("00:01.000"));
        if abort {
            lines.push(aborted());
        }
        lines.extend(turn("00:09.000"));
        lines.push(asst("00:12.000", "All green."));
        let s = parse_lines(NAME, &lines);
        let humans: Vec<&Message> = s.messages.iter().filter(|m| m.is_human).collect();
        assert_eq!(humans.len(), 2, "{:?}", s.messages);
        assert!(
            s.messages
                .iter()
                .all(|m| m.subtype.as_deref() != Some("context"))
        );
        assert!(
            s.messages
                .iter()
                .all(|m| m.subtype.as_deref() != Some("model_input"))
        );
    }
}

#[test]
fn a_prompt_and_its_paginated_item_of_one_turn_are_one_prompt() {
    let completed = |ts: &str, text: &str, turn: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "item_completed", "turn_id": turn, "item": {"type": "UserMessage",
                   "id": "u1", "content": [{"type": "text", "text": text}]}}),
        )
    };
    let started = |ts: &str, turn: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "task_started", "turn_id": turn}),
        )
    };
    let s = parse_lines(
        NAME,
        &[
            meta("pg", json!({})),
            started("00:01.000", "t1"),
            user_event("00:01.001", "go"),
            completed("00:01.002", "go", "t1"),
            started("00:05.000", "t2"),
            completed("00:05.001", "go", "t2"),
            user_event("00:05.002", "go"),
        ],
    );
    let humans = s.messages.iter().filter(|m| m.is_human).count();
    assert_eq!(humans, 2, "{:?}", s.messages);

    // The model-visible copy first: the event merges with it, and the item with both.
    let s = parse_lines(
        NAME,
        &[
            meta("pg2", json!({})),
            started("00:01.000", "t1"),
            user_item("00:01.001", "go"),
            user_event("00:01.002", "go"),
            completed("00:01.003", "go", "t1"),
        ],
    );
    assert_eq!(s.messages.len(), 1, "{:?}", s.messages);
    assert!(s.messages[0].is_human);
}

#[test]
fn harness_user_message_events_are_not_human_turns() {
    let ev = |ts: &str, kind: &str, text: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "user_message", "kind": kind, "message": text}),
        )
    };
    let env_text = "<environment_context><cwd>/Users/x/dev</cwd></environment_context>";
    let instr = "<user_instructions>be terse</user_instructions>";
    // 0.36: the events alone, then with their copies in either order.
    let events = || {
        vec![
            ev("00:01.000", "environment_context", env_text),
            ev("00:01.000", "user_instructions", instr),
        ]
    };
    let copies = || {
        vec![
            user_item("00:01.000", env_text),
            user_item("00:01.000", instr),
        ]
    };
    for variant in 0..3 {
        let mut lines = vec![meta("h4", json!({}))];
        match variant {
            0 => lines.extend(events()),
            1 => {
                lines.extend(events());
                lines.extend(copies());
            }
            _ => {
                lines.extend(copies());
                lines.extend(events());
            }
        }
        lines.push(ev("00:02.000", "plain", "why is the loader slow"));
        let s = parse_lines(NAME, &lines);
        let subtypes: Vec<Option<&str>> = s.messages.iter().map(|m| m.subtype.as_deref()).collect();
        assert_eq!(
            subtypes,
            vec![Some("environment_context"), Some("instructions"), None],
            "variant {variant}"
        );
        let humans: Vec<String> = s
            .messages
            .iter()
            .filter(|m| m.is_human)
            .map(|m| m.text())
            .collect();
        assert_eq!(humans, vec!["why is the loader slow"]);
    }
}
