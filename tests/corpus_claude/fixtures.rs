//! The hand-made fixtures of `testdata/home` (see `testdata/home/.claude/README.md`).

use super::*;

const A: &str = "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01";
const B: &str = "1b2c3d4e-0a9f-4e8d-8c7b-6a5f4e3d2c10";
const C: &str = "9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a520";
const D: &str = "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6";
const E: &str = "c4d5e6f7-1a2b-4c3d-8e9f-0a1b2c3d4e50";
const F: &str = "f0e1d2c3-b4a5-4968-8776-5a4b3c2d1e0f";
const SONNET: &str = "claude-sonnet-4-5-20250929";
const OPUS: &str = "claude-opus-4-5-20251101";
const HAIKU: &str = "claude-haiku-4-5-20251001";

#[test]
fn fixture_webapp_main_2_1() {
    let s = main_file(&fixture(&format!(
        ".claude/projects/-home-dev-webapp/{A}.jsonl"
    )));
    // python3 verify.py 6f0d3c52-….jsonl
    // {"id": "6f0d3c52-…", "cwd": "/home/dev/webapp", "messages": 16, "user_turns": 3,
    //  "assistant_messages": 7, "tool_calls": 4, "tool_errors": 1, "requests": 6,
    //  "compactions": 1, "warnings": 0, "models": [sonnet-4-5, opus-4-5], "input": 38,
    //  "output": 391, "cache_read": 51800, "cache_write": 5020, "reasoning": 40, "total": 57249}
    // jq ... | jq -cs -f usage.jq
    // {"requests":6,"input":38,"output":391,"cache_read":51800,"cache_write":5020,"reasoning":40}
    check(
        &s,
        &Expect {
            id: A,
            cwd: "/home/dev/webapp",
            messages: 16,
            user_turns: 3,
            assistant_messages: 7,
            tool_calls: 4,
            tool_errors: 1,
            requests: 6,
            compactions: 1,
            warnings: 0,
            models: &[SONNET, OPUS],
            usage: usage(38, 391, 51_800, 5020, 40),
        },
    );
    assert_eq!(s.usage().total(), 57_249);
    assert_eq!(s.agent_version.as_deref(), Some("2.1.90"));
    // msg_A1: three pieces (thinking, text, tool_use) with a progress record between pieces 1
    // and 2; output_tokens 8, 8, 96 → 96; thinking_tokens 40 (a subset of output).
    let m = message(&s, "msg_A1");
    assert!(matches!(
        &m.parts[..],
        [
            Part::Thinking { .. },
            Part::Text { .. },
            Part::ToolCall { .. }
        ]
    ));
    let r = request_for(&s, "msg_A1");
    // cache_creation: 5m 1,500 + 1h 500 = 2,000 written, 500 of it for an hour.
    assert_eq!(
        r.usage,
        Usage {
            cache_write_1h: 500,
            ..usage(12, 96, 8000, 2000, 40)
        }
    );
    assert_eq!(r.prompt_tokens, Some(12 + 8000 + 2000));
    assert_eq!(r.model.as_deref(), Some(SONNET));
    // agent_progress embeds msg_A_sub1 with usage: no request of A's own, a copied request
    // (sub-agent agent-a9d8c7b6's, whose file is absent: the scan counts it, in A).
    assert!(
        s.requests
            .iter()
            .all(|r| r.dedup_key.as_ref().unwrap().message_id.as_ref() != "msg_A_sub1")
    );
    let [copy] = &s.copied_requests[..] else {
        panic!("{:?}", s.copied_requests)
    };
    let key = copy.dedup_key.as_ref().unwrap();
    assert_eq!(
        (&*key.message_id, key.request_id.as_deref()),
        ("msg_A_sub1", Some("req_A_sub1"))
    );
    assert!(key.sidechain && key.copy);
    assert_eq!(copy.usage, usage(900, 150, 0, 4000, 0));
    assert_eq!(copy.model.as_deref(), Some(HAIKU));
    assert!(
        s.other_records
            .contains(&("claude:progress/agent_progress".to_string(), 1))
    );
    // The <synthetic> API-error message stays, without request or model.
    let syn: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.subtype.as_deref() == Some("synthetic"))
        .collect();
    assert_eq!(syn.len(), 1);
    // Error result and image result.
    let results: Vec<_> = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult {
                call_id,
                is_error,
                attachments,
                ..
            } => Some((call_id.as_str(), *is_error, attachments.len())),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("toolu_A1", false, 0),
            ("toolu_A2", true, 0),
            ("toolu_A3", false, 1),
            ("toolu_A4", false, 0)
        ]
    );
    // Compaction: manual, preTokens 11250, postTokens 2100, durationMs 18500, after 5 requests.
    let c = &s.compactions[0];
    assert_eq!(
        (c.trigger, c.tokens_before, c.tokens_after),
        (Trigger::Manual, Some(11_250), Some(2100))
    );
    assert_eq!(
        (c.duration_ms, c.request_index, c.message_index),
        (Some(18_500), 5, 13)
    );
    assert_eq!(
        c.timestamp.unwrap().to_rfc3339(),
        "2026-03-14T10:00:00+00:00"
    );
    assert!(
        c.summary
            .as_deref()
            .unwrap()
            .contains("Primary Request and Intent")
    );
    assert_eq!(c.extra["logicalParentUuid"], "a-a16");
    assert!(matches!(
        &s.messages[12].parts[..],
        [Part::Compaction { index: 0 }]
    ));
    assert_eq!(s.messages[13].subtype.as_deref(), Some("compact_summary"));
    // custom-title beats both ai-titles.
    assert_eq!(s.title.as_deref(), Some("Health check work"));
    assert!(s.title_is_explicit);
    assert_eq!(
        s.subagents,
        vec![SubagentLink {
            id: "agent-a9d8c7b6".into(),
            tool_call_id: Some("toolu_A4".into()),
            // Its transcript is not in the sample home; its type is the Task call's.
            path: None,
            agent_type: Some("general-purpose".into()),
        }]
    );
    assert!(
        s.other_records
            .contains(&("claude:x-future-record".to_string(), 1))
    );
    assert!(s.record_uuids.contains(&hash64("a-a20")));
    assert!(superseded_ids(&s).is_empty());
    assert_eq!(
        s.started_at.unwrap().to_rfc3339(),
        "2026-03-14T09:00:00+00:00"
    );
    assert_eq!(
        s.updated_at.unwrap().to_rfc3339(),
        "2026-03-14T10:02:00+00:00"
    );
}

#[test]
fn fixture_webapp_old_era_inline_sidechain() {
    let s = main_file(&fixture(&format!(
        ".claude/projects/-home-dev-webapp/{B}.jsonl"
    )));
    // python3 verify.py 1b2c3d4e-….jsonl
    // {"id": "1b2c3d4e-…", "cwd": "/home/dev/webapp", "messages": 10, "user_turns": 1,
    //  "assistant_messages": 5, "tool_calls": 3, "tool_errors": 0, "requests": 5,
    //  "compactions": 0, "warnings": 0, "models": [sonnet-4-5, haiku-4-5], "input": 41,
    //  "output": 332, "cache_read": 20800, "cache_write": 4650, "reasoning": 0, "total": 25823}
    check(
        &s,
        &Expect {
            id: B,
            cwd: "/home/dev/webapp",
            messages: 10,
            user_turns: 1,
            assistant_messages: 5,
            tool_calls: 3,
            tool_errors: 0,
            requests: 5,
            compactions: 0,
            warnings: 0,
            models: &[SONNET, HAIKU],
            usage: usage(41, 332, 20_800, 4650, 0),
        },
    );
    // jq -c 'select(.isSidechain) | .uuid' → b-s1…b-s4: kept inline, flagged, counted.
    let side: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.sidechain)
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    assert_eq!(side, ["b-s1", "msg_B2", "b-s3", "msg_B3"]);
    assert!(
        request_for(&s, "msg_B2")
            .dedup_key
            .as_ref()
            .unwrap()
            .sidechain
    );
    assert!(!message(&s, "b-s1").is_human);
    // msg_B5 has no requestId: keyed by message.id alone.
    assert_eq!(
        request_for(&s, "msg_B5")
            .dedup_key
            .as_ref()
            .unwrap()
            .request_id,
        None
    );
    // Two summary records, titling other sessions (A and C).
    assert_eq!(
        s.leaf_titles,
        vec![
            (
                "a-a20".to_string(),
                "Health endpoint (leaf summary)".to_string()
            ),
            (
                "c-a3".to_string(),
                "Auth middleware security review".to_string()
            ),
        ]
    );
    assert_eq!(s.title, None);
    // Sidechains are their own component: nothing is superseded.
    assert!(superseded_ids(&s).is_empty());
}

#[test]
fn fixture_webapp_root_agent_file_replays_parent() {
    let dir = fixture(".claude/projects/-home-dev-webapp");
    let c = main_file(&dir.join(format!("{C}.jsonl")));
    // python3 verify.py 9e8d7c6b-….jsonl
    // {"id": "9e8d7c6b-…", "cwd": "/home/dev/webapp", "messages": 6, "user_turns": 2,
    //  "assistant_messages": 3, "tool_calls": 1, "tool_errors": 0, "requests": 3, ...,
    //  "input": 14, "output": 141, "cache_read": 23450, "cache_write": 1380, "total": 24985}
    check(
        &c,
        &Expect {
            id: C,
            cwd: "/home/dev/webapp",
            messages: 6,
            user_turns: 2,
            assistant_messages: 3,
            tool_calls: 1,
            tool_errors: 0,
            requests: 3,
            compactions: 0,
            warnings: 0,
            models: &[SONNET],
            usage: usage(14, 141, 23_450, 1380, 0),
        },
    );
    assert_eq!(c.git_branch.as_deref(), Some("auth-review"));
    assert_eq!(c.subagents.len(), 1);
    assert_eq!(c.subagents[0].id, "agent-7c1e9a2b");
    assert_eq!(c.subagents[0].tool_call_id.as_deref(), Some("toolu_C1"));
    // B's summary points at c-a3, a record of this file.
    assert!(c.record_uuids.contains(&hash64("c-a3")));

    // 2.0.28-style root agent file: the parent's sessionId, isSidechain, agentId.
    let g = sub_file(&dir.join("agent-7c1e9a2b.jsonl"), None);
    // python3 verify.py agent-7c1e9a2b.jsonl
    // {"id": "agent-7c1e9a2b", "cwd": "/home/dev/webapp", "messages": 5, "user_turns": 0,
    //  "assistant_messages": 3, "tool_calls": 1, "tool_errors": 0, "requests": 3, ...,
    //  "models": [sonnet-4-5, haiku-4-5], "input": 45, "output": 185, "cache_read": 11000,
    //  "cache_write": 5300, "total": 16530}
    check(
        &g,
        &Expect {
            id: "agent-7c1e9a2b",
            cwd: "/home/dev/webapp",
            messages: 5,
            user_turns: 0,
            assistant_messages: 3,
            tool_calls: 1,
            tool_errors: 0,
            requests: 3,
            compactions: 0,
            warnings: 0,
            models: &[SONNET, HAIKU],
            usage: usage(45, 185, 11_000, 5300, 0),
        },
    );
    assert_eq!(g.kind, SessionKind::Subagent);
    assert_eq!(g.parent_id.as_deref(), Some(C));
    // The replayed parent message: same message.id, a new requestId, sidechain. Cross-file
    // aggregation drops it (jq over every file's `assistant` records: 173,195 for the whole
    // fixture store; 178,245 with A's `agent_progress` copy of msg_A_sub1, which counts).
    let replay = request_for(&g, "msg_C1").dedup_key.clone().unwrap();
    let original = request_for(&c, "msg_C1").dedup_key.clone().unwrap();
    assert_eq!(replay.message_id, original.message_id);
    assert_ne!(replay.request_id, original.request_id);
    assert!(replay.sidechain && !original.sidechain);
}

#[test]
fn fixture_api_server_rewind_and_bad_lines() {
    let rel = format!(".claude/projects/-home-dev-api-server/{D}.jsonl");
    let s = main_file(&common::damaged(&rel));
    common::assert_same_but_clean(&s, &main_file(&fixture(&rel)));
    // python3 verify.py d1e2f3a4-….jsonl
    // {"id": "d1e2f3a4-…", "cwd": "/home/dev/api-server", "messages": 8, "user_turns": 3,
    //  "assistant_messages": 4, "tool_calls": 1, "tool_errors": 0, "requests": 4,
    //  "compactions": 0, "warnings": 2, "models": [sonnet-4-5], "input": 20, "output": 390,
    //  "cache_read": 18000, "cache_write": 1110, "total": 19520}
    check(
        &s,
        &Expect {
            id: D,
            cwd: "/home/dev/api-server",
            messages: 8,
            user_turns: 3,
            assistant_messages: 4,
            tool_calls: 1,
            tool_errors: 0,
            requests: 4,
            compactions: 0,
            warnings: 2,
            models: &[SONNET],
            usage: usage(20, 390, 18_000, 1110, 0),
        },
    );
    // tail -c 40 FILE | od -c: no final newline; line 5 is cut mid-string.
    let w: Vec<_> = s.warnings.iter().map(|w| (w.kind, w.line)).collect();
    assert_eq!(
        w,
        [
            (sessions::diag::WarningKind::MalformedLine, Some(5)),
            (sessions::diag::WarningKind::TruncatedLastLine, Some(10)),
        ]
    );
    // d-u2 and d-u3 are both children of d-a1; the file ends on the d-u3 branch.
    assert_eq!(superseded_ids(&s), ["d-u2", "msg_D2"]);
    assert_eq!(s.git_branch.as_deref(), Some("pagination"));
}

#[test]
fn fixture_api_server_subagents_dir() {
    let dir = fixture(".claude/projects/-home-dev-api-server");
    let s = main_file(&dir.join(format!("{E}.jsonl")));
    // python3 verify.py c4d5e6f7-….jsonl
    // {"id": "c4d5e6f7-…", "cwd": "/home/dev/api-server", "messages": 5, "user_turns": 1,
    //  "assistant_messages": 2, "tool_calls": 1, "tool_errors": 0, "requests": 2, ...,
    //  "models": [opus-4-5], "input": 15, "output": 204, "cache_read": 20500,
    //  "cache_write": 2680, "total": 23399}
    check(
        &s,
        &Expect {
            id: E,
            cwd: "/home/dev/api-server",
            messages: 5,
            user_turns: 1,
            assistant_messages: 2,
            tool_calls: 1,
            tool_errors: 0,
            requests: 2,
            compactions: 0,
            warnings: 0,
            models: &[OPUS],
            usage: usage(15, 204, 20_500, 2680, 0),
        },
    );
    // msg_E1: cache_creation {5m: 0, 1h: 2500} → cache_write 2500.
    assert_eq!(request_for(&s, "msg_E1").usage.cache_write, 2500);
    assert_eq!(s.subagents[0].id, "agent-a5f3c2e1d0b9a8c7e");
    assert_eq!(s.subagents[0].tool_call_id.as_deref(), Some("toolu_E1"));
    assert_eq!(s.messages[4].role, Role::System);
    assert_eq!(s.messages[4].subtype.as_deref(), Some("informational"));

    let path = dir.join(E).join("subagents/agent-a5f3c2e1d0b9a8c7e.jsonl");
    let meta = path.with_file_name("agent-a5f3c2e1d0b9a8c7e.meta.json");
    assert!(meta.is_file());
    let x = parse(
        &path,
        FileRole::ClaudeSubagent {
            parent_session: Some(E.into()),
            meta: Some(meta),
        },
    );
    // python3 verify.py …/subagents/agent-a5f3c2e1d0b9a8c7e.jsonl
    // {"id": "agent-a5f3c2e1d0b9a8c7e", "cwd": "/home/dev/api-server", "messages": 4,
    //  "user_turns": 0, "assistant_messages": 2, "tool_calls": 1, "tool_errors": 0,
    //  "requests": 2, ..., "models": [haiku-4-5], "input": 48, "output": 75,
    //  "cache_read": 5200, "cache_write": 5290, "total": 10613}
    check(
        &x,
        &Expect {
            id: "agent-a5f3c2e1d0b9a8c7e",
            cwd: "/home/dev/api-server",
            messages: 4,
            user_turns: 0,
            assistant_messages: 2,
            tool_calls: 1,
            tool_errors: 0,
            requests: 2,
            compactions: 0,
            warnings: 0,
            models: &[HAIKU],
            usage: usage(48, 75, 5200, 5290, 0),
        },
    );
    assert_eq!(
        (x.kind, x.parent_id.as_deref()),
        (SessionKind::Subagent, Some(E))
    );
    assert!(
        x.requests
            .iter()
            .all(|r| r.dedup_key.as_ref().unwrap().sidechain)
    );
}

#[test]
fn fixture_xdg_config_location() {
    let s = main_file(&fixture(&format!(
        ".config/claude/projects/-home-dev-webapp/{F}.jsonl"
    )));
    // python3 verify.py f0e1d2c3-….jsonl
    // {"id": "f0e1d2c3-…", "cwd": "/home/dev/webapp", "messages": 5, "user_turns": 2,
    //  "assistant_messages": 1, "tool_calls": 0, "tool_errors": 0, "requests": 1, ...,
    //  "input": 15, "output": 25, "cache_read": 0, "cache_write": 3200, "total": 3240}
    check(
        &s,
        &Expect {
            id: F,
            cwd: "/home/dev/webapp",
            messages: 5,
            user_turns: 2,
            assistant_messages: 1,
            tool_calls: 0,
            tool_errors: 0,
            requests: 1,
            compactions: 0,
            warnings: 0,
            models: &[SONNET],
            usage: usage(15, 25, 0, 3200, 0),
        },
    );
    let subtypes: Vec<_> = s.messages.iter().map(|m| m.subtype.as_deref()).collect();
    assert_eq!(
        subtypes,
        [
            None,
            None,
            Some("meta"),
            Some("command"),
            Some("local_command_output")
        ]
    );
    assert_eq!(s.agent_version.as_deref(), Some("1.0.30"));
}
