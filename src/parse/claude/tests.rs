//! Unit tests of the Claude parser (records written as JSON, parsed through the file reader).
use super::*;
use serde_json::{Value, json};

use crate::model::{Provenance, TextSize, Trigger};

mod branches;
mod measured;

/// Write `lines` as `<name>` in a fresh directory and parse it with `role`.
fn parse_lines(name: &str, role: FileRole, lines: &[Value]) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    parse(&SourceFile::new(Agent::Claude, path, role)).unwrap()
}

fn main(lines: &[Value]) -> Session {
    parse_lines("s1.jsonl", FileRole::ClaudeMain, lines)
}

fn user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
           "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": content}})
}

fn asst(
    uuid: &str,
    parent: Option<&str>,
    id: &str,
    req: Option<&str>,
    content: Value,
    usage: Value,
) -> Value {
    let mut v = json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "message": {"id": id, "model": "claude-x", "role": "assistant", "content": content, "usage": usage}});
    if let Some(r) = req {
        v["requestId"] = json!(r);
    }
    v
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "text": t}])
}

fn out(n: u64) -> Value {
    json!({"input_tokens": 10, "output_tokens": n, "cache_read_input_tokens": 100})
}

#[test]
fn split_pieces_merge_by_max_even_when_not_adjacent() {
    let s = main(&[
        user("u1", None, json!("go")),
        asst("a1", Some("u1"), "m1", Some("r1"), text("one"), out(3)),
        asst("b1", Some("a1"), "m2", Some("r2"), text("other"), out(7)),
        json!({"type": "progress", "uuid": "p1", "parentUuid": "a1", "data": {"type": "hook_progress"}}),
        asst(
            "a2",
            Some("a1"),
            "m1",
            Some("r1"),
            json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
            out(250),
        ),
        asst("a3", Some("a2"), "m1", Some("r1"), text("three"), out(25)),
    ]);
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.requests.len(), 2);
    let m1 = &s.messages[1];
    assert_eq!(m1.parts.len(), 3);
    assert!(matches!(&m1.parts[1], Part::ToolCall { id, .. } if id == "t1"));
    assert_eq!(s.requests[0].usage.output, 250); // max, not 3 + 250 + 25
    assert_eq!(s.requests[0].usage.input, 10); // never summed across pieces
    assert_eq!(s.requests[0].message_index, Some(1));
    assert_eq!(s.requests[0].prompt_tokens, Some(110));
    assert_eq!(m1.usage.as_deref(), Some(&s.requests[0].usage));
    assert_eq!(s.usage().output, 257);
}

#[test]
fn dedup_key_falls_back_to_message_id_and_keyless_records_still_count() {
    let s = main(&[
        asst("a1", None, "m1", None, text("x"), out(1)),
        asst("a2", Some("a1"), "m1", None, text("y"), out(5)),
        json!({"type": "assistant", "uuid": "a3", "message": {"role": "assistant", "content": "z",
               "usage": {"input_tokens": 2, "output_tokens": 2}}}),
    ]);
    assert_eq!(s.requests.len(), 2);
    let k = s.requests[0].dedup_key.as_ref().unwrap();
    assert_eq!(
        (&*k.message_id, k.request_id.as_deref(), k.sidechain),
        ("m1", None, false)
    );
    assert_eq!(s.requests[0].usage.output, 5);
    assert_eq!(s.requests[1].dedup_key, None);
    assert_eq!(s.messages[1].id.as_deref(), Some("a3")); // no message.id: the record uuid
    assert!(matches!(&s.messages[1].parts[..], [Part::Text { text }] if text == "z"));
}

#[test]
fn usage_fields_follow_the_claude_rules() {
    let u = |v: Value| usage_of(&serde_json::from_value::<records::RawUsage>(v).unwrap());
    // cache_creation 5m + 1h wins over cache_creation_input_tokens.
    let a = u(
        json!({"input_tokens": 3, "cache_creation_input_tokens": 999,
        "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 20},
        "cache_read_input_tokens": 7, "output_tokens": 50,
        "output_tokens_details": {"thinking_tokens": 30}}),
    );
    assert_eq!(
        a,
        Usage {
            input: 3,
            output: 50,
            cache_read: 7,
            cache_write: 120,
            reasoning: 30,
            cache_write_1h: 20,
        }
    );
    assert_eq!(a.total(), 3 + 7 + 120 + 50); // thinking is inside output
    // Without the breakdown, the flat field; nulls, strings and negatives are 0.
    let b = u(
        json!({"input_tokens": null, "cache_creation_input_tokens": 40,
        "cache_creation": {}, "cache_read_input_tokens": "[trimmed]", "output_tokens": -4}),
    );
    assert_eq!(
        b,
        Usage {
            cache_write: 40,
            ..Usage::default()
        }
    );
}

#[test]
fn synthetic_messages_are_kept_without_model_or_usage() {
    let mut syn = asst("a1", None, "syn1", None, text("API Error: 529"), out(0));
    syn["message"]["model"] = json!("<synthetic>");
    syn["isApiErrorMessage"] = json!(true);
    let s = main(&[
        syn,
        asst("a2", Some("a1"), "m2", Some("r2"), text("ok"), out(4)),
    ]);
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[0].subtype.as_deref(), Some("synthetic"));
    assert_eq!(
        (
            s.messages[0].model.as_deref(),
            s.messages[0].usage.as_deref()
        ),
        (None, None)
    );
    assert_eq!(s.requests.len(), 1);
    assert_eq!(s.models, vec!["claude-x".to_string()]);
    assert_eq!(s.counts().assistant_messages, 2);
}

#[test]
fn only_typed_prompts_are_human() {
    let mut meta = user("u2", None, json!("<skill body>"));
    meta["isMeta"] = json!(true);
    let mut side = user("u3", None, json!("sub-agent prompt"));
    side["isSidechain"] = json!(true);
    let image = json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]);
    let s = main(&[
        user("u1", None, json!("fix the bug")),
        meta,
        side,
        user(
            "u4",
            None,
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        ),
        user(
            "u5",
            None,
            json!("<local-command-stdout>done</local-command-stdout>"),
        ),
        user("u6", None, json!("<command-name>/compact</command-name>")),
        user("u7", None, text("[Request interrupted by user]")),
        user(
            "u8",
            None,
            json!([{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                {"type": "text", "text": "and the real question"}]),
        ),
        user(
            "u9",
            None,
            json!([{"type": "text", "text": "<system-reminder>only</system-reminder>"}]),
        ),
        user("u10", None, image),
        user("u11", None, json!("   ")),
    ]);
    let human: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.is_human)
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    assert_eq!(human, ["u1", "u6", "u8", "u10"]);
    assert_eq!(s.messages[3].role, Role::Tool);
    assert_eq!(s.messages[1].subtype.as_deref(), Some("meta"));
    assert!(s.messages[2].sidechain);
    let subs: Vec<_> = s.messages.iter().map(|m| m.subtype.as_deref()).collect();
    assert_eq!(
        subs[4..],
        [
            Some("local_command_output"),
            Some("command"),
            Some("interrupted"),
            None,
            Some("system_reminder"),
            None,
            Some("empty")
        ]
    );
    assert!(matches!(
        &s.messages[9].parts[0],
        Part::Image { bytes: Some(3), .. }
    ));
    assert_eq!(s.counts().user_turns, 4);
}

#[test]
fn tool_results_of_every_shape() {
    let mut r1 = user(
        "u2",
        Some("a1"),
        json!([
        {"type": "tool_result", "content": [{"type": "text", "text": "line1"}, "line2",
            {"type": "image", "source": {"type": "url", "url": "https://x"}}, {"type": "tool_reference", "n": 1}]}]),
    );
    r1["toolUseResult"] = json!([1, 2]);
    let mut r2 = user(
        "u3",
        Some("u2"),
        json!([{"type": "tool_result", "content": "boom", "is_error": true}]),
    );
    r2["toolUseResult"] = json!("Error: boom");
    let mut r3 = user("u4", Some("u3"), json!(["bare string"]));
    r3["toolUseResult"] = json!({"stdout": ""});
    let s = main(&[
        asst(
            "a1",
            None,
            "m1",
            Some("r1"),
            json!([
            {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}},
            {"type": "tool_use", "id": "t2", "name": "Read"}]),
            out(1),
        ),
        r1,
        r2,
        r3,
    ]);
    // The first call had no id: `<message id>:<part index>`.
    assert!(
        matches!(&s.messages[0].parts[0], Part::ToolCall { id, input, .. } if id == "m1:0" && input.str_at("command") == Some("ls"))
    );
    assert!(matches!(
        &s.messages[0].parts[1],
        Part::ToolCall { input, .. } if input.is_null()
    ));
    match &s.messages[1].parts[0] {
        Part::ToolResult {
            call_id,
            output,
            is_error,
            attachments,
            ..
        } => {
            assert_eq!(call_id, "m1:0"); // no tool_use_id: the oldest unanswered call
            assert_eq!(output, "line1\nline2");
            assert!(!is_error);
            assert!(
                matches!(&attachments[..], [Part::Image { bytes: None, url: Some(u), .. }, Part::Unknown { kind, .. }] if kind == "tool_reference" && u == "https://x")
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&s.messages[2].parts[0], Part::ToolResult { call_id, is_error: true, .. } if call_id == "t2")
    );
    // A record with toolUseResult is a tool carrier even without a tool_result block.
    assert_eq!(s.messages[3].role, Role::Tool);
    assert_eq!(s.counts().tool_calls, 2);
    assert_eq!(s.counts().tool_errors, 1);
}

/// A result without a `tool_use_id` answers the oldest call no result has answered yet,
/// whichever order the other results came in.
#[test]
fn id_less_results_take_the_oldest_unanswered_call() {
    let call = |id: &str| json!({"type": "tool_use", "id": id, "name": "Bash", "input": {}});
    let result = |id: Option<&str>| match id {
        Some(id) => json!({"type": "tool_result", "tool_use_id": id, "content": "x"}),
        None => json!({"type": "tool_result", "content": "x"}),
    };
    let s = main(&[
        asst(
            "a1",
            None,
            "m1",
            Some("r1"),
            json!([call("c1"), call("c2"), call("c3"), call("c4"), call("c5")]),
            out(1),
        ),
        user("u1", Some("a1"), json!([result(Some("c2"))])),
        user("u2", Some("u1"), json!([result(None)])),
        user("u3", Some("u2"), json!([result(Some("c3")), result(None)])),
        user(
            "u4",
            Some("u3"),
            json!([result(Some("c5")), result(None), result(None)]),
        ),
    ]);
    let answered: Vec<&str> = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    // The last two find every call answered: each is named after its message and place.
    assert_eq!(answered, ["c2", "c1", "c3", "c4", "c5", "u4:1", "u4:2"]);
}

fn boundary(uuid: &str, logical: &str, meta: Value) -> Value {
    json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
           "logicalParentUuid": logical, "timestamp": "2026-03-01T11:00:00Z",
           "content": "Conversation compacted", "compactMetadata": meta})
}

#[test]
fn boundary_and_summary_are_one_compaction() {
    let mut summary = user(
        "u2",
        Some("b1"),
        json!("This session is being continued… Summary: X"),
    );
    summary["isCompactSummary"] = json!(true);
    let s = main(&[
        user("u1", None, json!("mentions compact_boundary in text")),
        asst("a1", Some("u1"), "m1", Some("r1"), text("a"), out(1)),
        boundary(
            "b1",
            "a1",
            json!({"trigger": "auto", "preTokens": 155000, "durationMs": 900}),
        ),
        summary,
        user("u3", Some("u2"), json!("next")),
    ]);
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(
        (c.trigger, c.tokens_before, c.tokens_after, c.duration_ms),
        (Trigger::Auto, Some(155_000), None, Some(900))
    );
    assert_eq!(c.tokens_provenance, Provenance::Recorded);
    assert_eq!((c.request_index, c.message_index), (1, 3));
    assert_eq!(
        c.summary.as_deref(),
        Some("This session is being continued… Summary: X")
    );
    assert_eq!(c.extra["logicalParentUuid"], "a1");
    assert_eq!(c.extra["preTokens"], 155000);
    assert!(matches!(
        &s.messages[2].parts[..],
        [Part::Compaction { index: 0 }]
    ));
    assert_eq!(s.messages[3].subtype.as_deref(), Some("compact_summary"));
    assert_eq!(s.counts().user_turns, 2); // u1 and u3, not the summary
    // The boundary links through logicalParentUuid: nothing before it is superseded.
    assert!(s.messages.iter().all(|m| !m.superseded));
}

#[test]
fn a_summary_without_boundary_is_its_own_compaction() {
    let mut summary = user(
        "u1",
        None,
        json!("This session is being continued from a previous conversation"),
    );
    summary["isCompactSummary"] = json!(true);
    let s = main(&[summary, user("u2", Some("u1"), json!("hi"))]);
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(
        (c.trigger, c.tokens_before, c.tokens_provenance),
        (Trigger::Unknown, None, Provenance::Unknown)
    );
    assert!(c.summary.is_some());
    assert_eq!(s.messages[0].subtype.as_deref(), Some("compaction"));
    assert_eq!(c.message_index, 1);
}

#[test]
fn text_typed_while_the_agent_works_is_kept_once() {
    let q = |op: &str, text: Option<&str>| {
        let mut v = json!({"type": "queue-operation", "operation": op, "sessionId": "s1",
                           "timestamp": "2026-03-01T10:00:05Z"});
        if let Some(t) = text {
            v["content"] = json!(t);
        }
        v
    };
    let s = main(&[
        user("u1", None, json!("run the tests")),
        asst("a1", Some("u1"), "m1", Some("r1"), text("running"), out(1)),
        // Handed to the running turn: only this record holds the text.
        q("enqueue", Some("also check the lint")),
        q("remove", None),
        // Sent as the next prompt: the user record that follows is the prompt.
        q("enqueue", Some("then commit")),
        q("dequeue", None),
        user("u2", Some("a1"), json!("then commit")),
        // Put back in the input box, never sent.
        q("enqueue", Some("never mind")),
        q("popAll", None),
    ]);
    let humans: Vec<(String, Option<&str>)> = s
        .messages
        .iter()
        .filter(|m| m.is_human)
        .map(|m| (m.text(), m.subtype.as_deref()))
        .collect();
    assert_eq!(
        humans,
        [
            ("run the tests".to_string(), None),
            ("also check the lint".to_string(), Some("queued")),
            ("then commit".to_string(), None),
        ]
    );
    assert_eq!(s.counts().user_turns, 3);
}

#[test]
fn inline_sidechain_replay_is_not_counted_twice() {
    let mut replay = asst("s2", Some("s1"), "m1", Some("r-side"), text("copy"), out(7));
    replay["isSidechain"] = json!(true);
    let mut own = asst("s3", Some("s2"), "m9", Some("r9"), text("own"), out(4));
    own["isSidechain"] = json!(true);
    let mut prompt = user("s1", None, json!("task"));
    prompt["isSidechain"] = json!(true);
    let s = main(&[
        asst("a1", None, "m1", Some("r1"), text("orig"), out(7)),
        prompt,
        replay,
        own,
    ]);
    assert_eq!(s.requests.len(), 2);
    assert_eq!(s.usage().output, 11);
    assert!(s.requests[1].dedup_key.as_ref().unwrap().sidechain);
    assert_eq!(s.messages.len(), 4); // the copy is still part of the sidechain transcript
    assert!(
        s.other_records
            .contains(&("claude:sidechain_replay".to_string(), 1))
    );
}

#[test]
fn verbatim_repeats_are_skipped_but_reused_uuids_are_not() {
    let r = user("u1", None, json!("hello"));
    let mut resumed = r.clone();
    resumed["sessionId"] = json!("s2");
    resumed["timestamp"] = json!("2026-03-02T00:00:00Z");
    let s = main(&[
        r,
        resumed,
        user("u1", None, json!("different text, same placeholder uuid")),
    ]);
    assert_eq!(s.messages.len(), 2);
    assert!(
        s.other_records
            .contains(&("claude:repeated_record".to_string(), 1))
    );
    // Time still widens with the repeat.
    assert_eq!(
        s.updated_at.unwrap().to_rfc3339(),
        "2026-03-02T00:00:00+00:00"
    );
}

#[test]
fn ids_titles_and_metadata() {
    let rec = |sid: &str| {
        json!({"type": "user", "uuid": "u", "sessionId": sid, "cwd": "/home/dev/webapp",
        "version": "2.1.3", "gitBranch": "", "message": {"content": "hi"}})
    };
    // Main: the file stem when it is a recorded session id, else the first id.
    let s = parse_lines("new.jsonl", FileRole::ClaudeMain, &[rec("old"), rec("new")]);
    assert_eq!(s.id, "new");
    let s = parse_lines("x.jsonl", FileRole::ClaudeMain, &[rec("old"), rec("new")]);
    assert_eq!(s.id, "old");
    assert_eq!(
        (
            s.cwd.as_deref(),
            s.agent_version.as_deref(),
            s.git_branch.as_deref()
        ),
        (Some("/home/dev/webapp"), Some("2.1.3"), None)
    );
    // Sub-agent: the stem; the parent from the layout, else a non-agent sessionId.
    let role = |p: Option<&str>| FileRole::ClaudeSubagent {
        parent_session: p.map(String::from),
        meta: None,
    };
    let s = parse_lines(
        "agent-abc.jsonl",
        role(None),
        &[rec("agent-abc"), rec("parent-1")],
    );
    assert_eq!(
        (s.id.as_str(), s.kind, s.parent_id.as_deref()),
        ("agent-abc", SessionKind::Subagent, Some("parent-1"))
    );
    let s = parse_lines("agent-abc.jsonl", role(Some("folder")), &[rec("parent-1")]);
    assert_eq!(s.parent_id.as_deref(), Some("folder"));
    // A file named on the command line.
    let s = parse_lines("agent-q.jsonl", FileRole::Unknown, &[rec("p")]);
    assert_eq!(s.kind, SessionKind::Subagent);
    // Titles: custom beats ai; the last of each wins. Summaries title other files.
    let s = main(&[
        json!({"type": "ai-title", "aiTitle": "ai 1"}),
        json!({"type": "ai-title", "aiTitle": "ai 2"}),
        json!({"type": "summary", "summary": "leaf title", "leafUuid": "L"}),
    ]);
    assert_eq!(
        (s.title.as_deref(), s.title_is_explicit),
        (Some("ai 2"), true)
    );
    assert_eq!(
        s.leaf_titles,
        vec![("L".to_string(), "leaf title".to_string())]
    );
    let s = main(&[
        json!({"type": "custom-title", "customTitle": "mine"}),
        json!({"type": "ai-title", "aiTitle": "ai"}),
        json!({"type": "custom-title", "customTitle": "mine 2"}),
    ]);
    assert_eq!(s.title.as_deref(), Some("mine 2"));
    assert_eq!(main(&[]).title, None);
}

#[test]
fn timestamps_may_be_missing_placeholder_or_out_of_order() {
    let t = |ts: Value| json!({"type": "system", "subtype": "turn_duration", "timestamp": ts});
    let s = main(&[
        t(json!("2026-05-02T00:00:00Z")),
        t(json!("[trimmed for fixture]")),
        t(json!("2026-05-01T00:00:00.5Z")),
        json!({"type": "system", "subtype": "turn_duration"}),
        t(json!(null)),
        t(json!(8_210_266_876_799_999u64)),
    ]);
    // Absent and null are no time; a value that names none is said, where it stands.
    let said: Vec<(u64, bool)> = s
        .warnings
        .iter()
        .map(|w| (w.line.unwrap(), w.message.starts_with("`timestamp` holds ")))
        .collect();
    assert_eq!(said, [(2, true), (6, true)]);
    assert_eq!(
        s.started_at.unwrap().to_rfc3339(),
        "2026-05-01T00:00:00.500+00:00"
    );
    assert_eq!(
        s.updated_at.unwrap().to_rfc3339(),
        "2026-05-02T00:00:00+00:00"
    );
    assert_eq!(
        s.other_records,
        vec![("claude:system/turn_duration".to_string(), 6)]
    );
}

#[test]
fn metadata_and_junk_are_tallied_or_warned_never_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"progress\",\"uuid\":\"p\",\"data\":{\"type\":\"agent_progress\",\"message\":{\"message\":{\"id\":\"x\",\"usage\":{\"output_tokens\":9}}}}}\n\
         {\"type\":\"queue-operation\",\"operation\":\"enqueue\"}\n\
         {\"type\":\"attachment\",\"attachment\":{\"type\":\"todo_reminder\"}}\n\
         {\"type\":\"system\",\"subtype\":\"local_command\",\"content\":\"<local-command-stdout>ok</local-command-stdout>\"}\n\
         not json\n\
         {\"type\":\"user\",\"message\":\"oops\"}\n\
         {\"type\":\"assistant\",\"message\":[1]}\n\
         {\"no\":\"type\"}\n\
         {\"type\":\"user\",\"message\":{\"content\":\"cut",
    )
    .unwrap();
    let s = parse(&SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain)).unwrap();
    assert!(s.requests.is_empty());
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].role, Role::System);
    assert_eq!(s.messages[0].subtype.as_deref(), Some("local_command"));
    let kinds: Vec<_> = s
        .warnings
        .iter()
        .map(|w| (w.kind, w.line.unwrap()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (WarningKind::MalformedLine, 5),
            (WarningKind::UnexpectedRecord, 6),
            (WarningKind::UnexpectedRecord, 7),
            (WarningKind::UnexpectedRecord, 8),
            (WarningKind::TruncatedLastLine, 9),
        ]
    );
    let tallies: Vec<_> = s
        .other_records
        .iter()
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(
        tallies,
        vec![
            ("claude:progress/agent_progress", 1),
            ("claude:queue-operation", 1),
            ("claude:attachment/todo_reminder", 1)
        ]
    );
}

#[test]
fn subagent_links_come_from_tool_use_result_agent_id() {
    let mut r = user(
        "u2",
        Some("a1"),
        json!([{"type": "tool_result", "tool_use_id": "t1", "content": "done"}]),
    );
    r["toolUseResult"] = json!({"status": "completed", "agentId": "abc123"});
    let mut again = r.clone();
    again["uuid"] = json!("u3");
    let lines = [
        asst(
            "a1",
            None,
            "m1",
            Some("r1"),
            json!([{"type": "tool_use", "id": "t1", "name": "Task"}]),
            out(1),
        ),
        r,
        again,
    ];
    let s = main(&lines);
    assert_eq!(
        s.subagents,
        vec![SubagentLink {
            id: "agent-abc123".into(),
            tool_call_id: Some("t1".into()),
            path: None,
            agent_type: None
        }]
    );
    // Sub-agent files do not link (their results are nested agents' business).
    let role = FileRole::ClaudeSubagent {
        parent_session: None,
        meta: None,
    };
    assert!(
        parse_lines("agent-z.jsonl", role, &lines)
            .subagents
            .is_empty()
    );
}

#[test]
fn unreadable_files_are_errors() {
    let file = SourceFile::new(
        Agent::Claude,
        "/nonexistent/x.jsonl".into(),
        FileRole::ClaudeMain,
    );
    let w = parse(&file).unwrap_err();
    assert_eq!(w.kind, WarningKind::Unreadable);
}

#[test]
fn full_view_moves_block_bodies_into_parts_without_spare_room() {
    // The parts are built from the record's blocks by value: the same text, input and output
    // as recorded, and a part vector sized to the blocks (not the blocks' larger allocation).
    let s = main(&[
        user("u1", None, json!("go")),
        asst(
            "a1",
            Some("u1"),
            "m1",
            Some("r1"),
            json!([
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "calling"},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls", "n": [1, 2]}},
                {"type": "mystery", "text": "kept raw", "x": 1},
            ]),
            out(5),
        ),
        user(
            "u2",
            Some("a1"),
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": [
                {"type": "text", "text": "a\nb"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                "plain",
                {"type": "text", "text": 7},
            ]}]),
        ),
    ]);
    let a = &s.messages[1];
    assert_eq!(a.parts.capacity(), a.parts.len());
    assert_eq!(
        a.parts[..3],
        [
            Part::Thinking { text: "hmm".into() },
            Part::Text {
                text: "calling".into()
            },
            Part::ToolCall {
                id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "ls", "n": [1, 2]}).into(),
            },
        ]
    );
    assert_eq!(
        a.parts[3],
        Part::Unknown {
            kind: "mystery".into(),
            raw: json!({"type": "mystery", "text": "kept raw", "x": 1}),
        }
    );
    let Part::ToolResult {
        call_id,
        output,
        attachments,
        ..
    } = &s.messages[2].parts[0]
    else {
        panic!("not a tool result: {:?}", s.messages[2].parts);
    };
    assert_eq!(call_id, "t1");
    // Text items joined with newlines in order; a non-string `text` counts as empty.
    assert_eq!(output, "a\nb\nplain\n");
    assert!(matches!(
        &attachments[..],
        [Part::Image { media_type: Some(m), bytes: Some(3), .. }] if m == "image/png"
    ));
}

/// The measured view ([`Detail::Measured`]) reads a file as the full view does, but for the
/// string outputs of tool results whose `type` comes first, which it measures. Written as raw
/// lines: key order matters, and `json!` sorts keys.
#[test]
fn the_measured_view_is_the_full_view_with_string_outputs_measured() {
    let call = |id: &str| {
        format!(
            r#"{{"type":"assistant","uuid":"a-{id}","sessionId":"s1","message":{{"id":"m-{id}","role":"assistant","model":"claude-x","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{}}}}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
        )
    };
    let result = |id: &str, block: &str| {
        format!(
            r#"{{"type":"user","uuid":"u-{id}","sessionId":"s1","message":{{"role":"user","content":[{block}]}}}}"#
        )
    };
    let lines = [
        call("t1"),
        // Escapes, a surrogate pair and non-ASCII text: measured.
        result(
            "t1",
            r#"{"tool_use_id":"t1","type":"tool_result","content":"a \"q\"\n\u00e9 \ud83d\ude00 é🎉"}"#,
        ),
        call("t2"),
        // `content` before `type`: kept.
        result(
            "t2",
            r#"{"content":"kept","type":"tool_result","tool_use_id":"t2"}"#,
        ),
        call("t3"),
        // An array: kept (its items are joined).
        result(
            "t3",
            r#"{"type":"tool_result","tool_use_id":"t3","content":[{"type":"text","text":"x"},"y"]}"#,
        ),
        call("t4"),
        // A lone surrogate: the line is repaired, then measured.
        result(
            "t4",
            r#"{"type":"tool_result","tool_use_id":"t4","content":"a\ud800b"}"#,
        ),
        // A number out of range as the content: read as its text in both views (and reported).
        result(
            "t6",
            r#"{"type":"tool_result","tool_use_id":"t6","content":1e999}"#,
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let file = SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain);
    let full = crate::parse::parse_file_with(&file, crate::parse::Detail::Full).unwrap();
    let measured = crate::parse::parse_file_with(&file, crate::parse::Detail::Measured).unwrap();

    // Measuring the full view's outputs where the measured view measured them gives it back.
    let mut expected = full.clone();
    assert_eq!(
        crate::fuzzing::measure_outputs_as(&mut expected, &measured),
        3
    );
    assert_eq!(expected, measured);
    // t1, t4 and t6 are measured; t2 and t3 kept (bytes that are not UTF-8:
    // `an_unreadable_measured_output_is_reported_as_the_full_view_reports_it`).
    let sizes: Vec<(&str, TextSize)> = full
        .messages
        .iter()
        .zip(&measured.messages)
        .flat_map(|(m, mm)| m.parts.iter().zip(&mm.parts))
        .filter_map(|(p, pm)| match (p, pm) {
            (
                Part::ToolResult { output, .. },
                Part::ToolResult {
                    output_size: Some(size),
                    ..
                },
            ) => Some((output.as_str(), *size)),
            _ => None,
        })
        .collect();
    let size = |bytes, utf16| TextSize { bytes, utf16 };
    assert_eq!(
        sizes,
        [
            ("a \"q\"\né 😀 é🎉", size(20, 14)),
            ("a\u{fffd}b", size(5, 3)),
            ("1e999", size(5, 5)),
        ]
    );
    assert!(measured.messages.iter().flat_map(|m| &m.parts).any(
        |p| matches!(p, Part::ToolResult { output, output_size: None, .. } if output == "x\ny")
    ));
    assert_eq!(measured.warnings.len(), 1, "{:?}", measured.warnings);
}

/// A tool result's content that serde_json cannot read (a control character, an escape it
/// does not know, bytes that are not UTF-8): the line is reported as the full view reports it,
/// at the same column, or repaired as the full view repairs it: the measured view reads that
/// file again as the full view does.
#[test]
fn an_unreadable_measured_output_is_reported_as_the_full_view_reports_it() {
    let call = r#"{"type":"assistant","uuid":"a1","sessionId":"s1","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":1,"output_tokens":1}}}"#;
    // Each content (`#` stands for the byte 0xFF, not UTF-8), with the warnings the full view
    // gives.
    let cases = [
        ("\"a\u{1}b\"", 1),
        (r#""a\xb""#, 1),
        (r#"[{"type":"text","text":"a\u{1}"}]"#, 1),
        // Read as U+FFFD, the file again as the full view reads it.
        (r#""a#b""#, 0),
        // A line that fails after that repair too: reported with the first error.
        (r#""a#b","#, 1),
        ("\"a#\u{1}b\"", 1),
    ];
    for (content, warnings) in cases {
        let line = format!(
            r#"{{"type":"user","uuid":"u1","sessionId":"s1","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":{content}}}]}}}}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s1.jsonl");
        let mut bytes = format!("{call}\n{line}\n{call}\n").into_bytes();
        bytes
            .iter_mut()
            .filter(|b| **b == b'#')
            .for_each(|b| *b = 0xff);
        std::fs::write(&path, bytes).unwrap();
        let file = SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain);
        let full = crate::parse::parse_file_with(&file, crate::parse::Detail::Full).unwrap();
        let measured =
            crate::parse::parse_file_with(&file, crate::parse::Detail::Measured).unwrap();
        assert_eq!(
            full.warnings.len(),
            warnings,
            "{content}: {:?}",
            full.warnings
        );
        // Read again whole: nothing is measured.
        assert_eq!(measured, full, "{content}");
    }
}

/// A tool result whose `type` is written again, as another kind, after its content was
/// measured: the measured view reads that file whole, as the full view does, whether the
/// line is otherwise valid or a record cut short with the next one spliced in (the cut output's
/// string then runs into the next record's keys, its `type` among them).
#[test]
fn a_block_whose_type_changes_after_its_output_is_read_whole() {
    let call = r#"{"type":"assistant","uuid":"a1","sessionId":"s1","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":1,"output_tokens":1}}}"#;
    let twice = r#"{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","content":"zz","type":"odd","tool_use_id":"t1"}]}}"#;
    let spliced = r#"{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"cut sh","sessionId":"s1","type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"a2"}"#;
    // serde_json reads an object keyed so as the JSON text of its value, and fails on the keys
    // after it: the full view skips this line as malformed.
    let raw = r#"{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":[{"$serde_json::private::RawValue":"{\"type\":\"text\",\"text\":\"x\"}","type":"tool_result","content":"y"}]}}"#;
    for (second, unknown) in [(twice, true), (spliced, false), (raw, false)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s1.jsonl");
        std::fs::write(&path, format!("{call}\n{second}\n")).unwrap();
        let file = SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain);
        let full = crate::parse::parse_file_with(&file, crate::parse::Detail::Full).unwrap();
        let measured =
            crate::parse::parse_file_with(&file, crate::parse::Detail::Measured).unwrap();
        assert_eq!(full, measured, "{second}");
        let parts = || full.messages.iter().flat_map(|m| &m.parts);
        assert_eq!(
            parts().any(|p| matches!(p, Part::Unknown { kind, raw } if kind == "odd" && raw["content"] == "zz")),
            unknown,
            "{second}"
        );
        assert!(!parts().any(|p| matches!(
            p,
            Part::ToolResult {
                output_size: Some(_),
                ..
            }
        )));
    }
}

/// `agent_progress` copies of a sub-agent's response become one copied request (per-field
/// max over its streamed pieces), kept apart from the session's own requests, which the
/// replays and the compactions' request indices read.
#[test]
fn agent_progress_copies_are_copied_requests_apart_from_the_sessions_own() {
    let copy = |uuid: &str, copied: Value| {
        json!({"type": "progress", "uuid": uuid, "parentUuid": "a1", "sessionId": "s1",
               "timestamp": "2026-03-01T10:00:09Z",
               "data": {"type": "agent_progress", "agentId": "ab", "message": copied}})
    };
    let piece = |model: &str, id: Option<&str>, output: u64| {
        json!({"type": "assistant", "timestamp": "2026-03-01T10:00:05Z", "requestId": "rq",
               "message": {"id": id, "model": model, "content": [{"type": "text", "text": "x"}],
                           "usage": {"input_tokens": 4, "output_tokens": output,
                                     "cache_creation_input_tokens": 50}}})
    };
    let s = main(&[
        user("u1", None, json!("go")),
        asst("a1", Some("u1"), "m1", Some("r1"), text("one"), out(3)),
        copy(
            "p1",
            json!({"type": "user", "message": {"role": "user", "content": "look"}}),
        ),
        copy("p2", piece("claude-haiku", Some("sub1"), 2)),
        copy("p3", piece("claude-haiku", Some("sub1"), 30)),
        copy("p4", piece("<synthetic>", Some("sub2"), 1)),
        copy("p5", piece("claude-haiku", None, 1)),
    ]);
    assert_eq!(s.requests.len(), 1);
    assert_eq!(s.models, ["claude-x"]);
    assert_eq!(s.copied_requests.len(), 1);
    let c = &s.copied_requests[0];
    assert_eq!(
        c.dedup_key,
        Some(DedupKey {
            message_id: "sub1".into(),
            request_id: Some("rq".into()),
            sidechain: true,
            copy: true,
        })
    );
    assert_eq!(
        (c.usage.input, c.usage.output, c.usage.cache_write),
        (4, 30, 50)
    );
    assert_eq!(c.model.as_deref(), Some("claude-haiku"));
    assert_eq!(c.timestamp, "2026-03-01T10:00:05Z".parse().ok());
    assert_eq!(c.message_index, None);
    assert_eq!(
        s.other_records,
        [("claude:progress/agent_progress".to_string(), 5)]
    );
}

/// The summaries read alone are those the full parse gathers: escaped text, the last-prompt
/// records that also carry a `leafUuid`, an empty summary and a broken line between them.
#[test]
fn leaf_titles_read_alone_are_those_of_the_parse() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    let lines = [
        json!({"type": "summary", "summary": "first \"quoted\" \u{e9}", "leafUuid": "L1"})
            .to_string(),
        user("u1", None, json!("hi")).to_string(),
        json!({"type": "last-prompt", "lastPrompt": "hi", "leafUuid": "u1"}).to_string(),
        "{\"type\": \"summary\", \"leafUuid\": \"L2\", \"summ".to_string(),
        json!({"type": "summary", "summary": "  ", "leafUuid": "L3"}).to_string(),
        json!({"type": "summary", "summary": "second", "leafUuid": "L1"}).to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let parsed = parse(&SourceFile::new(
        Agent::Claude,
        path.clone(),
        FileRole::ClaudeMain,
    ))
    .unwrap()
    .leaf_titles;
    assert_eq!(
        parsed,
        vec![
            ("L1".to_string(), "first \"quoted\" \u{e9}".to_string()),
            ("L1".to_string(), "second".to_string()),
        ]
    );
    assert_eq!(leaf_titles(&path), parsed);
}
