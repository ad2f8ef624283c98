//! Unit tests: one per rule of `formats.md` §3 and the brief (eras, upserts, checkpoints,
//! rewinds, accounting, compaction traces, saved chats, roles).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::log::parse_info;
use super::{parse, percent_decode};
use crate::diag::WarningKind;
use crate::model::{
    Agent, CompactionKind, Part, Provenance, Role, Session, SessionKind, Trigger, Usage,
};
use crate::parse::{FileRole, SourceFile};

const HASH: &str = "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9";
const ENV: &str = "d04923d38bb0f6017037e74183378ef4";
const ACK: &str = "Got it. Thanks for the additional context!";

struct Tmp {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn write(rel: &str, body: &str) -> Tmp {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, body).unwrap();
    Tmp { _dir: dir, path }
}

fn parse_as(rel: &str, body: &str, role: FileRole) -> Session {
    let t = write(rel, body);
    parse(&SourceFile::new(Agent::Gemini, t.path.clone(), role)).unwrap()
}

/// JSONL from values; a string value is written verbatim (for bad lines).
fn jsonl(lines: &[Value]) -> String {
    lines
        .iter()
        .map(|v| match v {
            Value::String(raw) => format!("{raw}\n"),
            other => format!("{other}\n"),
        })
        .collect()
}

fn session(lines: &[Value]) -> Session {
    parse_as(
        "chats/session-2026-05-01T10-00-abcd1234.jsonl",
        &jsonl(lines),
        FileRole::GeminiSession,
    )
}

fn meta() -> Value {
    json!({"sessionId": "s-1", "projectHash": HASH, "startTime": "2026-05-01T10:00:00Z",
           "lastUpdated": "2026-05-01T10:00:00Z", "kind": "main"})
}

fn user(id: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": "2026-05-01T10:01:00Z", "type": "user", "content": [{"text": text}]})
}

fn gemini(id: &str, text: &str, input: u64, output: u64) -> Value {
    json!({"id": id, "timestamp": "2026-05-01T10:02:00Z", "type": "gemini", "content": text,
           "model": "gemini-3-flash-preview",
           "tokens": {"input": input, "output": output, "cached": 0, "thoughts": 0, "tool": 0,
                      "total": input + output}})
}

fn ids(s: &Session) -> Vec<String> {
    s.messages
        .iter()
        .map(|m| match (&m.id, m.parts.first()) {
            (Some(id), _) => {
                if m.superseded {
                    format!("~{id}")
                } else {
                    id.to_string()
                }
            }
            (None, Some(Part::Compaction { index })) => format!("X{index}"),
            (None, _) => format!("<{:?}>", m.role),
        })
        .collect()
}

#[test]
fn upserts_keep_first_position_and_last_tokens() {
    let s = session(&[
        meta(),
        user("u1", "hi"),
        gemini("g1", "", 100, 10),
        user("u2", "more"),
        // Re-append of g1 with content and new tokens: same slot, later values win.
        gemini("g1", "hello", 100, 25),
    ]);
    assert_eq!(ids(&s), ["u1", "g1", "u2"]);
    assert_eq!(s.messages[1].text(), "hello");
    assert_eq!(s.requests.len(), 1);
    assert_eq!(s.usage().output, 25);
    assert_eq!(s.usage().total(), 125);
    assert_eq!(s.requests[0].message_index, Some(1));
    assert_eq!(s.messages[1].usage.as_ref().map(|u| u.output), Some(25));
}

#[test]
fn a_later_record_without_tokens_keeps_the_usage() {
    let mut bare = gemini("g1", "x", 0, 0);
    bare.as_object_mut().unwrap().remove("tokens");
    let s = session(&[meta(), gemini("g1", "x", 40, 2), bare]);
    assert_eq!(s.usage().total(), 42);
}

#[test]
fn tokens_map_to_unified_usage() {
    let g = json!({"id": "g1", "type": "gemini", "content": "x", "model": "gemini-2.5-pro",
                   "tokens": {"input": 1000, "output": 50, "cached": 600, "thoughts": 30,
                              "tool": 7, "total": 1087}});
    let s = session(&[meta(), g]);
    assert_eq!(
        s.usage(),
        Usage {
            input: 407,
            output: 80,
            cache_read: 600,
            cache_write: 0,
            reasoning: 30,
            cache_write_1h: 0,
        }
    );
    assert_eq!(s.usage().total(), 1087);
    assert_eq!(s.requests[0].prompt_tokens, Some(1000));
    assert_eq!(s.requests[0].model.as_deref(), Some("gemini-2.5-pro"));
}

#[test]
fn null_missing_and_zero_tokens_make_no_request() {
    let s = session(&[
        meta(),
        json!({"id": "a", "type": "gemini", "content": "x", "tokens": null}),
        json!({"id": "b", "type": "gemini", "content": "y"}),
        gemini("c", "z", 0, 0),
        json!({"id": "d", "type": "gemini", "content": "w", "tokens": {"input": 5, "output": null}}),
    ]);
    assert_eq!(s.requests.len(), 1);
    assert_eq!(s.usage().input, 5);
    assert_eq!(s.counts().assistant_messages, 4);
}

#[test]
fn set_patches_metadata() {
    let s = session(&[
        meta(),
        user("u1", "hi"),
        json!({"$set": {"summary": "Fix the bug", "lastUpdated": "2026-05-02T00:00:00Z"}}),
        json!({"$set": {"sessionId": "s-2"}}),
    ]);
    assert_eq!(s.title.as_deref(), Some("Fix the bug"));
    assert!(s.title_is_explicit);
    assert_eq!(s.id, "s-2");
    assert_eq!(s.project_hash.as_deref(), Some(HASH));
    assert_eq!(
        s.updated_at.unwrap().to_rfc3339(),
        "2026-05-02T00:00:00+00:00"
    );
    assert!(s.project.is_none() && s.cwd.is_none());
}

#[test]
fn checkpoint_supersedes_and_keeps_history_in_order() {
    let env = json!({"id": ENV, "type": "user", "content": [{"text": "<session_context>\nx\n</session_context>"}]});
    let s = session(&[
        meta(),
        env.clone(),
        user("u1", "first"),
        gemini("g1", "one", 10, 1),
        user("u2", "second"),
        gemini("g2", "two", 20, 2),
        // Kept: env (same id), g2's turn re-recorded with new ids, plus u2 itself.
        json!({"$set": {"messages": [env, user("u2", "second"),
            {"id": "c1", "type": "gemini", "content": [{"text": "two"}]}]}}),
        user("u3", "third"),
    ]);
    assert_eq!(ids(&s), [ENV, "~u1", "~g1", "u2", "~g2", "c1", "u3"]);
    // No compaction: a checkpoint without a snapshot is a rewrite, not a compression.
    assert!(s.compactions.is_empty());
    // The copy is not a new human turn nor a second human prompt.
    let c1 = &s.messages[5];
    assert_eq!(c1.subtype.as_deref(), Some("checkpoint_copy"));
    assert_eq!(s.counts().user_turns, 3);
    // Superseded responses were paid for: both requests count.
    assert_eq!(s.requests.len(), 2);
    assert_eq!(s.usage().total(), 33);
}

#[test]
fn rewind_removes_from_target_on() {
    let s = session(&[
        meta(),
        user("u1", "a"),
        gemini("g1", "b", 10, 1),
        user("u2", "c"),
        gemini("g2", "d", 20, 2),
        json!({"$rewindTo": "u2"}),
        user("u3", "e"),
    ]);
    assert_eq!(ids(&s), ["u1", "g1", "~u2", "~g2", "u3"]);
    assert_eq!(s.usage().total(), 33);
    assert!(s.warnings.is_empty());
}

#[test]
fn rewind_to_unknown_id_removes_everything_with_a_warning() {
    let s = session(&[
        meta(),
        user("u1", "a"),
        gemini("g1", "b", 10, 1),
        json!({"$rewindTo": "nope"}),
        user("u2", "c"),
    ]);
    assert_eq!(ids(&s), ["~u1", "~g1", "u2"]);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::Inconsistent);
    assert_eq!(s.warnings[0].line, Some(4));
}

#[test]
fn a_reappended_removed_message_is_the_same_message() {
    let s = session(&[
        meta(),
        user("u1", "a"),
        json!({"$rewindTo": "u1"}),
        user("u1", "a again"),
    ]);
    assert_eq!(ids(&s), ["u1"]);
    assert_eq!(s.messages[0].text(), "a again");
}

#[test]
fn bad_lines_and_unknown_shapes_are_counted() {
    let s = session(&[
        meta(),
        user("u1", "a"),
        Value::String("{not json".into()),
        json!({"type": "telemetry"}),
        json!({"$set": 5}),
        json!({"id": "x", "type": "tool_group", "content": "?"}),
        Value::String("[1, 2]".into()),
    ]);
    let w: Vec<_> = s.warnings.iter().map(|w| (w.kind, w.line)).collect();
    assert_eq!(
        w,
        [
            (WarningKind::MalformedLine, Some(3)),
            (WarningKind::UnexpectedRecord, Some(5)),
            (WarningKind::UnexpectedRecord, Some(7)),
        ]
    );
    assert_eq!(
        s.other_records,
        [
            ("gemini:telemetry".to_string(), 1),
            ("gemini:tool_group".to_string(), 1)
        ]
    );
    let odd = s
        .messages
        .iter()
        .find(|m| m.id.as_deref() == Some("x"))
        .unwrap();
    assert_eq!(
        (odd.role, odd.subtype.as_deref()),
        (Role::System, Some("tool_group"))
    );
}

#[test]
fn truncated_last_line_is_reported() {
    let body = format!(
        "{}\n{}\n{{\"id\":\"g9\",\"type\":\"gem",
        meta(),
        user("u1", "a")
    );
    let s = parse_as("chats/session-x.jsonl", &body, FileRole::GeminiSession);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::TruncatedLastLine);
    assert_eq!(s.messages.len(), 1);
}

#[test]
fn jsonl_without_metadata_falls_back_to_the_document_reader() {
    let doc = json!({"sessionId": "legacy-1", "projectHash": HASH,
        "messages": [{"id": "u1", "type": "user", "content": "hello"}]});
    let pretty = serde_json::to_string_pretty(&doc).unwrap();
    let s = parse_as("chats/session-y.jsonl", &pretty, FileRole::GeminiSession);
    assert_eq!(s.id, "legacy-1");
    assert_eq!(s.messages.len(), 1);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    // Message lines without any metadata: kept, with a warning.
    let s = parse_as(
        "chats/session-z.jsonl",
        &jsonl(&[user("u1", "a")]),
        FileRole::GeminiSession,
    );
    assert_eq!(s.id, "session-z");
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::Inconsistent);
}

#[test]
fn a_json_document_that_is_not_json_is_an_error() {
    let t = write("chats/session-bad.json", "{\n  \"sessionId\": \"x\",\n]\n");
    let e = parse(&SourceFile::new(
        Agent::Gemini,
        t.path.clone(),
        FileRole::GeminiSession,
    ))
    .unwrap_err();
    assert_eq!(e.kind, WarningKind::MalformedDocument);
    // Cut short at its end and just written: a rewrite in progress, not read either.
    let t = write("chats/session-cut.json", "{\n  \"sessionId\": \"x\",\n");
    let e = parse(&SourceFile::new(
        Agent::Gemini,
        t.path.clone(),
        FileRole::GeminiSession,
    ))
    .unwrap_err();
    assert_eq!(e.kind, WarningKind::TruncatedDocument);
    let missing = SourceFile::new(
        Agent::Gemini,
        PathBuf::from("/nonexistent/session-q.jsonl"),
        FileRole::GeminiSession,
    );
    assert_eq!(parse(&missing).unwrap_err().kind, WarningKind::Unreadable);
}

#[test]
fn legacy_document_with_thoughts_and_tool_calls() {
    let doc = json!({
    "sessionId": "leg", "projectHash": HASH, "startTime": "2025-10-05T07:11:03.979Z",
    "lastUpdated": "2025-10-05T07:16:07.473Z",
    "messages": [
        {"id": "u1", "timestamp": "2025-10-05T07:11:04Z", "type": "user", "content": "fix it"},
        {"id": "g1", "timestamp": "2025-10-05T07:11:30Z", "type": "gemini", "content": "On it.",
         "thoughts": [{"subject": "Plan", "description": "Read then edit."}],
         "tokens": {"input": 10, "output": 2, "cached": 0, "thoughts": 3, "tool": 0, "total": 15},
         "toolCalls": [
            {"id": "c1", "name": "read_file", "args": {"path": "a"}, "status": "success",
             "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "A"}}},
                        {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]},
            {"id": "c2", "name": "replace", "args": {}, "status": "error",
             "result": [{"functionResponse": {"id": "c2", "name": "replace", "response": {"error": "no match"}}}],
             "resultDisplay": {"fileDiff": "huge"}},
            {"id": "c3", "name": "shell", "args": {}, "status": "cancelled", "result": null,
             "resultDisplay": "Cancelled by user"}]}
    ]});
    let s = parse_as(
        "chats/session-leg.json",
        &serde_json::to_string_pretty(&doc).unwrap(),
        FileRole::GeminiSession,
    );
    assert_eq!(s.id, "leg");
    assert_eq!(
        s.messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::User, Role::Assistant, Role::Tool]
    );
    let g = &s.messages[1];
    assert!(matches!(&g.parts[0], Part::Thinking { text } if text == "Plan\nRead then edit."));
    assert!(matches!(&g.parts[1], Part::Text { text } if text == "On it."));
    let results = &s.messages[2].parts;
    assert_eq!(results.len(), 3);
    match &results[0] {
        Part::ToolResult {
            call_id,
            output,
            is_error,
            attachments,
            ..
        } => {
            assert_eq!(
                (call_id.as_str(), output.as_str(), *is_error),
                ("c1", "A", false)
            );
            assert!(matches!(
                attachments[..],
                [Part::Image { bytes: Some(3), .. }]
            ));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&results[1], Part::ToolResult { call_id, is_error: true, output, .. } if call_id == "c2" && output == "no match")
    );
    assert!(
        matches!(&results[2], Part::ToolResult { call_id, is_error: true, output, .. } if call_id == "c3" && output == "Cancelled by user")
    );
    let c = s.counts();
    assert_eq!(
        (
            c.user_turns,
            c.assistant_messages,
            c.tool_calls,
            c.tool_errors
        ),
        // The failed call and the cancelled one (no `response.error` recorded here, as real
        // cancelled calls have): neither ran to success.
        (1, 1, 3, 2)
    );
    assert_eq!(s.usage().output, 5);
    assert_eq!(
        s.started_at.unwrap().to_rfc3339(),
        "2025-10-05T07:11:03.979+00:00"
    );
}

#[test]
fn function_response_messages_are_tool_carriers_without_duplicates() {
    let s = session(&[
        meta(),
        user("u1", "go"),
        json!({"id": "g1", "type": "gemini", "content": "",
               "toolCalls": [{"id": "k1", "name": "ls", "args": {}, "status": "error",
                 "result": [{"functionResponse": {"id": "k1", "name": "ls", "response": {"output": "denied"}}}]}]}),
        json!({"id": "r1", "type": "user", "content": [
            {"functionResponse": {"id": "k1", "name": "ls", "response": {"output": "denied"}}},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]}),
    ]);
    assert_eq!(ids(&s), ["u1", "g1", "r1"]);
    let r = &s.messages[2];
    assert_eq!(r.role, Role::Tool);
    assert!(!r.is_human);
    match &r.parts[..] {
        [
            Part::ToolResult {
                call_id,
                is_error,
                attachments,
                ..
            },
        ] => {
            assert_eq!(call_id, "k1");
            assert!(*is_error, "status error marks the carried result");
            assert_eq!(attachments.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.counts().tool_errors, 1);
    assert_eq!(s.counts().user_turns, 1);
}

#[test]
fn content_shapes_and_parts() {
    let s = session(&[
        meta(),
        json!({"id": "a", "type": "user", "content": "plain string"}),
        json!({"id": "b", "type": "user", "content": {"text": "one part"}}),
        json!({"id": "c", "type": "user", "content": [
            "bare string part",
            {"inlineData": {"mimeType": "image/jpeg", "data": "/9j/4AAQ"}},
            {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://x"}},
            {"executableCode": {"code": "1"}}]}),
        json!({"id": "d", "type": "gemini", "content": [
            {"text": "thinking…", "thought": true},
            {"thought": true, "thoughtSignature": "sig"},
            {"text": "answer"},
            {"functionCall": {"name": "ls", "args": {"p": 1}}}]}),
    ]);
    assert_eq!(s.messages[0].text(), "plain string");
    assert_eq!(s.messages[1].text(), "one part");
    let c = &s.messages[2].parts;
    assert!(matches!(&c[0], Part::Text { text } if text == "bare string part"));
    assert!(
        matches!(&c[1], Part::Image { media_type: Some(m), bytes: Some(6), data: Some(_), url: None } if m == "image/jpeg")
    );
    assert!(matches!(&c[2], Part::Unknown { kind, .. } if kind == "fileData"));
    assert!(matches!(&c[3], Part::Unknown { kind, .. } if kind == "executableCode"));
    let d = &s.messages[3].parts;
    assert_eq!(d.len(), 3);
    assert!(matches!(&d[0], Part::Thinking { text } if text == "thinking…"));
    assert!(matches!(&d[2], Part::ToolCall { id, name, .. } if id == "d:0" && name == "ls"));
}

#[test]
fn harness_user_messages_are_not_human() {
    let s = session(&[
        meta(),
        json!({"id": ENV, "type": "user", "content": [{"text": "anything"}]}),
        user("e2", "  <session_context>\nToday is…</session_context>"),
        user("h1", "<hook_context>x</hook_context>"),
        json!({"id": "m1", "type": "user", "content": [{"text": "System: Please continue."}],
               "displayContent": [{"functionResponse": {"id": "z", "name": "update_topic", "response": {}}}]}),
        json!({"id": "i1", "type": "user", "content": [{"text": "You are an AI agent… (expanded)"}],
               "displayContent": [{"text": "/init"}]}),
        user("u1", "real prompt"),
        json!({"id": "n1", "type": "info", "content": "Request cancelled."}),
        json!({"id": "n2", "type": "error", "content": "[API Error]"}),
        json!({"id": "n3", "type": "warning", "content": "careful"}),
    ]);
    let got: Vec<_> = s
        .messages
        .iter()
        .map(|m| (m.role, m.is_human, m.subtype.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (Role::User, false, Some("environment_context")),
            (Role::User, false, Some("environment_context")),
            (Role::User, false, Some("hook_context")),
            (Role::User, false, Some("meta")),
            (Role::User, true, None),
            (Role::User, true, None),
            (Role::System, false, Some("info")),
            (Role::System, false, Some("error")),
            (Role::System, false, Some("warning")),
        ]
    );
    assert_eq!(s.counts().assistant_messages, 0);
    // The title is what the user typed, not the prompt `/init` expanded to.
    assert_eq!(s.first_prompt().as_deref(), Some("/init"));
    assert_eq!(s.messages[4].display.as_deref(), Some("/init"));
}

fn snapshot_text(tags: &[&str]) -> String {
    let body: String = tags.iter().map(|t| format!("<{t}>x</{t}>\n")).collect();
    format!("<state_snapshot>\n{body}</state_snapshot>")
}

#[test]
fn snapshot_checkpoint_is_one_event_enriched_by_the_info() {
    let env = json!({"id": ENV, "type": "user", "content": [{"text": "<session_context>e</session_context>"}]});
    let snap = snapshot_text(&[
        "overall_goal",
        "active_constraints",
        "key_knowledge",
        "task_state",
    ]);
    let s = session(&[
        meta(),
        env.clone(),
        user("u1", "aaaa aaaa"),
        gemini("g1", "bbbb", 10, 1),
        json!({"$set": {"sessionId": "s-1"}}),
        json!({"$set": {"lastUpdated": "2026-05-01T11:00:00Z", "messages": [
            env.clone(),
            {"id": "s1", "type": "user", "content": [{"text": snap}]},
            {"id": "a1", "type": "gemini", "content": [{"text": ACK}]}]}}),
        json!({"id": "i1", "type": "info", "content": "Context compressed from 62% to 18%."}),
        user("u2", "next"),
        gemini("g2", "ok", 5, 1),
    ]);
    assert_eq!(
        ids(&s),
        [ENV, "~u1", "~g1", "X0", "s1", "a1", "i1", "u2", "g2"]
    );
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(c.kind, CompactionKind::GeminiSnapshot);
    assert_eq!(c.trigger, Trigger::Auto);
    assert_eq!((c.percent_before, c.percent_after), (Some(62), Some(18)));
    assert_eq!(c.message_index, 4);
    assert_eq!(c.request_index, 1);
    assert_eq!((c.messages_before, c.messages_after), (Some(3), Some(3)));
    assert_eq!(c.tokens_provenance, Provenance::Estimated);
    assert_eq!(c.summary.as_deref(), Some(snap.as_str()));
    assert_eq!(
        c.sections,
        [
            "overall_goal",
            "active_constraints",
            "key_knowledge",
            "task_state"
        ]
    );
    assert_eq!(
        c.timestamp.unwrap().to_rfc3339(),
        "2026-05-01T11:00:00+00:00"
    );
    assert_eq!(s.messages[3].subtype.as_deref(), Some("compaction"));
    assert_eq!(s.messages[4].subtype.as_deref(), Some("compact_summary"));
    assert!(!s.messages[4].is_human);
    assert_eq!(s.messages[5].subtype.as_deref(), Some("compact_ack"));
    assert_eq!(s.counts().user_turns, 2);
}

#[test]
fn snapshot_estimates_cover_replaced_and_new_history() {
    let snap = snapshot_text(&["overall_goal"]);
    let s = session(&[
        meta(),
        user("u1", &"a".repeat(400)),
        gemini("g1", &"b".repeat(40), 10, 1),
        json!({"id": "n", "type": "info", "content": "not history"}),
        json!({"$set": {"messages": [
            {"id": "s1", "type": "user", "content": [{"text": snap}]},
            {"id": "a1", "type": "gemini", "content": [{"text": ACK}]}]}}),
    ]);
    let c = &s.compactions[0];
    assert_eq!(c.tokens_before, Some(100 + 10));
    assert_eq!(
        c.tokens_after,
        Some((snap.len() as u64).div_ceil(4) + (ACK.len() as u64).div_ceil(4))
    );
    assert_eq!((c.messages_before, c.messages_after), (Some(2), Some(2)));
}

#[test]
fn snapshot_without_ack_or_relisted_is_not_a_new_event() {
    let snap = snapshot_text(&["overall_goal", "current_plan"]);
    let listed = json!([
        {"id": "s1", "type": "user", "content": [{"text": snap}]},
        {"id": "a1", "type": "gemini", "content": [{"text": ACK}]}]);
    let s = session(&[
        meta(),
        user("u1", "a"),
        // A snapshot that is not followed by the ack is not a compression.
        json!({"$set": {"messages": [{"id": "q", "type": "user", "content": [{"text": "<state_snapshot>quoted</state_snapshot>"}]}]}}),
        json!({"$set": {"messages": listed.clone()}}),
        user("u2", "b"),
        // A later masking/truncation checkpoint re-lists the same snapshot.
        json!({"$set": {"messages": listed}}),
    ]);
    assert_eq!(s.compactions.len(), 1);
    assert_eq!(s.compactions[0].sections, ["overall_goal", "current_plan"]);
    assert_eq!(ids(&s), ["~u1", "~q", "X0", "s1", "a1", "~u2"]);
}

#[test]
fn manual_compress_with_checkpoint_and_empty_info() {
    let snap = snapshot_text(&["overall_goal"]);
    let s = session(&[
        meta(),
        user("u1", "a"),
        user("c", "/compress"),
        json!({"$set": {"sessionId": "s-1"}}),
        json!({"$set": {"messages": [
            {"id": "s1", "type": "user", "content": [{"text": snap}]},
            {"id": "a1", "type": "gemini", "content": [{"text": ACK}]}]}}),
        json!({"id": "i1", "type": "info", "content": ""}),
    ]);
    assert_eq!(s.compactions.len(), 1);
    assert_eq!(s.compactions[0].trigger, Trigger::Manual);
    assert_eq!(s.compactions[0].extra["info"], "");
    assert_eq!(s.counts().user_turns, 2, "/compress is typed by the human");
}

#[test]
fn info_only_traces() {
    let s = session(&[
        meta(),
        user("u1", "a"),
        gemini("g1", "b", 10, 1),
        json!({"id": "i1", "type": "info", "content": "IMPORTANT: This conversation exceeded the compress threshold. A compressed context will be sent for future messages (compressed from: 1000 to 200 tokens)."}),
        user("c", "/compress"),
        json!({"id": "i2", "type": "info", "content": ""}),
        // An empty info that does not follow /compress is nothing.
        json!({"id": "i3", "type": "info", "content": ""}),
        json!({"id": "i4", "type": "info", "content": "Context compressed from 51% to 9%."}),
    ]);
    let got: Vec<_> = s
        .compactions
        .iter()
        .map(|c| {
            (
                c.kind,
                c.trigger,
                c.tokens_before,
                c.tokens_after,
                c.tokens_provenance,
                c.percent_before,
                c.message_index,
                c.request_index,
            )
        })
        .collect();
    use CompactionKind::GeminiInfo;
    assert_eq!(
        got,
        [
            (
                GeminiInfo,
                Trigger::Auto,
                Some(1000),
                Some(200),
                Provenance::Recorded,
                None,
                3,
                1
            ),
            (
                GeminiInfo,
                Trigger::Manual,
                None,
                None,
                Provenance::Unknown,
                None,
                6,
                1
            ),
            (
                GeminiInfo,
                Trigger::Auto,
                None,
                None,
                Provenance::Unknown,
                Some(51),
                9,
                1
            ),
        ]
    );
    assert_eq!(
        ids(&s),
        ["u1", "g1", "X0", "i1", "c", "X1", "i2", "i3", "X2", "i4"]
    );
}

#[test]
fn info_texts_are_parsed_strictly() {
    let t = parse_info("Context compressed from 62% to 18%.", false).unwrap();
    assert_eq!(t.percent, Some((62, 18)));
    let t = parse_info(
        "IMPORTANT: This conversation approached the input token limit for gemini-2.5-pro. A compressed context will be sent for future messages (compressed from: unknown to 150 tokens).",
        false,
    )
    .unwrap();
    assert_eq!(t.tokens, Some((None, Some(150))));
    assert!(parse_info("Context compressed from lots to less.", false).is_none());
    assert!(parse_info("IMPORTANT: This conversation is fine.", false).is_none());
    assert!(parse_info("", false).is_none());
    assert_eq!(parse_info("", true).unwrap().trigger, Trigger::Manual);
    assert!(parse_info("Request cancelled.", true).is_none());
}

#[test]
fn masking_checkpoint_is_a_masking_event() {
    let masked = "<tool_output_masked>\nhead\n\nOutput too large. Full output available at: /t/x.txt\n</tool_output_masked>";
    let fr = |text: &str| json!([{"functionResponse": {"id": "k1", "name": "run_shell_command", "response": {"output": text}}}]);
    let s = session(&[
        meta(),
        user("u1", "run it"),
        json!({"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "k1", "name": "run_shell_command", "args": {}}}]}),
        json!({"id": "r1", "type": "user", "content": fr(&"long output ".repeat(50))}),
        json!({"id": "r1m", "type": "user", "content": fr(masked)}),
        json!({"$set": {"messages": [user("u1", "run it"),
            {"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "k1", "name": "run_shell_command", "args": {}}}]},
            {"id": "r1m", "type": "user", "content": fr(masked)}]}}),
        // Re-listing an already masked output is not a second event.
        json!({"$set": {"messages": [user("u1", "run it"), {"id": "r1m", "type": "user", "content": fr(masked)}]}}),
    ]);
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(c.kind, CompactionKind::GeminiMasking);
    assert_eq!(c.extra["masked_call_ids"], json!(["k1"]));
    assert_eq!((c.messages_before, c.messages_after), (Some(4), Some(3)));
    assert!(c.tokens_before > c.tokens_after);
    assert_eq!(ids(&s), ["u1", "~g1", "~r1", "r1m", "X0"]);
    assert_eq!(s.counts().tool_calls, 1);
}

#[test]
fn json_object_snapshot_is_detected() {
    let js = json!({"active_tasks": ["t"], "discovered_facts": [], "recent_arc": "r"}).to_string();
    let s = session(&[
        meta(),
        user("u1", "a"),
        json!({"$set": {"messages": [{"id": "j1", "type": "user", "content": [{"text": js}]}]}}),
    ]);
    assert_eq!(s.compactions.len(), 1);
    assert_eq!(s.compactions[0].kind, CompactionKind::GeminiJsonSnapshot);
    assert_eq!(
        s.compactions[0].sections,
        ["active_tasks", "discovered_facts", "recent_arc"]
    );
    assert_eq!(s.messages[2].subtype.as_deref(), Some("compact_summary"));
    // Ordinary JSON typed by a user is not a snapshot.
    let s = session(&[meta(), user("u1", "{\"active_tasks\": 1}")]);
    assert!(s.compactions.is_empty());
}

#[test]
fn saved_chat_with_snapshot() {
    let doc = json!({"history": [
        {"role": "user", "parts": [{"text": "<session_context>x</session_context>"}]},
        {"role": "user", "parts": [{"text": snapshot_text(&["overall_goal", "current_plan"])}]},
        {"role": "model", "parts": [{"text": ACK}]},
        {"role": "user", "parts": [{"text": "where?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "grep", "args": {"p": "x"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "grep", "response": {"output": "a.rs:1"}}}]},
        {"role": "model", "parts": [{"text": "in a.rs"}]}],
        "authType": "oauth-personal"});
    let s = parse_as(
        "checkpoint-my%20tag.json",
        &doc.to_string(),
        FileRole::GeminiCheckpoint,
    );
    assert_eq!(s.id, "checkpoint-my%20tag");
    assert_eq!(s.title.as_deref(), Some("saved chat my tag"));
    assert_eq!(s.kind, SessionKind::Main);
    assert_eq!(s.compactions.len(), 1);
    assert_eq!(s.compactions[0].kind, CompactionKind::GeminiSnapshot);
    assert_eq!(s.compactions[0].message_index, 2);
    assert_eq!(s.compactions[0].messages_after, Some(7));
    assert_eq!(s.messages.len(), 8);
    assert!(s.messages.iter().all(|m| m.id.is_none()));
    let c = s.counts();
    assert_eq!(
        (c.user_turns, c.assistant_messages, c.tool_calls),
        (1, 3, 1)
    );
    // The id-less response is paired with the id-less call by name.
    let call = s.messages[5].parts[0].clone();
    let result = s.messages[6].parts[0].clone();
    match (call, result) {
        (Part::ToolCall { id, .. }, Part::ToolResult { call_id, .. }) => assert_eq!(id, call_id),
        other => panic!("{other:?}"),
    }

    // Legacy form: a bare Content[] array.
    let bare = json!([{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"text": "yo"}]}]);
    let s = parse_as("checkpoint-old.json", &bare.to_string(), FileRole::Unknown);
    assert_eq!(
        (s.id.as_str(), s.title.as_deref()),
        ("checkpoint-old", Some("saved chat old"))
    );
    assert_eq!(s.counts().user_turns, 1);
}

#[test]
fn subagent_files() {
    let body = jsonl(&[
        json!({"sessionId": "own", "projectHash": HASH, "kind": "subagent", "directories": ["/w"]}),
        user("u1", "investigate"),
    ]);
    let s = parse_as(
        "chats/parent-1/abc123.jsonl",
        &body,
        FileRole::GeminiSubagent {
            parent_session: "parent-1".into(),
        },
    );
    assert_eq!(
        (s.id.as_str(), s.kind, s.parent_id.as_deref()),
        ("abc123", SessionKind::Subagent, Some("parent-1"))
    );
    assert!(s.cwd.is_none());
    // Named on the command line: the path shape tells.
    let s = parse_as(
        "tmp/p/chats/parent-2/agent9.jsonl",
        &body,
        FileRole::Unknown,
    );
    assert_eq!(
        (s.id.as_str(), s.parent_id.as_deref()),
        ("agent9", Some("parent-2"))
    );
    // A main-session file that says kind:subagent.
    let s = parse_as("chats/session-k.jsonl", &body, FileRole::GeminiSession);
    assert_eq!((s.id.as_str(), s.kind), ("own", SessionKind::Subagent));
}

#[test]
fn tags_are_percent_decoded() {
    assert_eq!(percent_decode("a%20b%2Fc"), "a b/c");
    assert_eq!(percent_decode("100%"), "100%");
    assert_eq!(percent_decode("%zz%e2%9c%93"), "%zz✓");
    assert_eq!(percent_decode("%ff"), "%ff");
}

/// A `tokens` object's counts, read typed, are what reading it as a JSON value and each count
/// with `u64_of` gives: from the text and from a tree (the replay's one-pass view), for every
/// kind of count, a repeated key, and values that are not objects.
#[test]
fn tokens_are_read_as_the_values_were() {
    use super::records::Counts;
    use crate::parse::json::Obj;
    use crate::parse::u64_of;
    use serde::Deserialize;
    let as_values = |text: &str| -> Option<Counts> {
        match serde_json::from_str::<Value>(text).unwrap() {
            Value::Object(t) => Some(Counts {
                input: u64_of(t.get("input")),
                output: u64_of(t.get("output")),
                cached: u64_of(t.get("cached")),
                thoughts: u64_of(t.get("thoughts")),
                tool: u64_of(t.get("tool")),
                odd: Default::default(),
            }),
            _ => None,
        }
    };
    let cases = [
        r#"{"input":1200,"output":30,"cached":800,"thoughts":12,"tool":5,"total":2047}"#,
        r#"{"input":"  42 ","output":"x","cached":1.9,"thoughts":-3,"tool":true}"#,
        r#"{"input":1e30,"output":-0.5,"cached":null,"thoughts":[1,2],"tool":{"a":1}}"#,
        r#"{"input":1,"input":2,"output":3,"output":"4"}"#,
        r#"{"input":18446744073709551615,"output":-9223372036854775808,"cached":0}"#,
        r#"{}"#,
        r#"[]"#,
        r#""tokens""#,
        r#"7"#,
        r#"true"#,
    ];
    for text in cases {
        let want = as_values(text);
        let typed = serde_json::from_str::<Obj<Counts>>(text)
            .unwrap()
            .into_inner()
            .map(|c| Counts {
                odd: Default::default(),
                ..c
            });
        assert_eq!(typed, want, "{text}");
        let tree: crate::replay::gemini::json::J = serde_json::from_str(text).unwrap();
        let from_tree = crate::parse::json::from_tree(|| Obj::<Counts>::deserialize(&tree))
            .unwrap()
            .into_inner()
            .map(|c| Counts {
                odd: Default::default(),
                ..c
            });
        assert_eq!(from_tree, want, "tree of {text}");
    }
    assert!(as_values(r#"{"input":1,"input":2}"#).is_some_and(|c| c.input == 2));
}

#[test]
fn tool_calls_of_another_shape_are_reported_not_skipped() {
    let s = session(&[
        meta(),
        json!({"id": "m1", "timestamp": "2026-05-01T10:00:01Z", "type": "user",
               "content": [{"text": "hi"}]}),
        json!({"id": "m2", "timestamp": "2026-05-01T10:00:02Z", "type": "gemini",
               "content": "ok", "toolCalls": "oops"}),
        json!({"id": "m3", "timestamp": "2026-05-01T10:00:03Z", "type": "gemini",
               "content": "ok", "toolCalls": null}),
    ]);
    let w: Vec<_> = s
        .warnings
        .iter()
        .map(|w| (w.kind, w.line, w.message.as_str()))
        .collect();
    assert_eq!(
        w,
        [(
            WarningKind::UnexpectedRecord,
            Some(3),
            "`toolCalls` of message m2 is a JSON string, not an array: not read"
        )]
    );
}

/// A file whose records name two sessions (two documents written one after the other) is read
/// as Gemini CLI reads it, one session under the later id, with a warning at the line where
/// the id changes; `$set` with the same id, as Gemini CLI writes after a compression, is quiet.
#[test]
fn a_second_session_id_in_one_file_is_warned_about() {
    let mut other = meta();
    other["sessionId"] = json!("s-2");
    let s = session(&[
        meta(),
        user("u1", "first"),
        json!({"$set": {"sessionId": "s-1"}}),
        other,
        user("u2", "second"),
    ]);
    assert_eq!(s.id, "s-2");
    assert_eq!(s.messages.len(), 2);
    let changed: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.message.contains("`sessionId` changes"))
        .collect();
    assert_eq!(changed.len(), 1, "{:?}", s.warnings);
    assert_eq!(changed[0].line, Some(4));
    assert_eq!(changed[0].kind, WarningKind::UnexpectedRecord);
    assert_eq!(
        changed[0].message,
        "`sessionId` changes from \"s-1\" to \"s-2\": records of two sessions in one file, \
         read as one session under the later id"
    );
}
