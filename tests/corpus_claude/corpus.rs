//! The public corpus (`../shared/corpus/claude`).

use super::*;

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_real_v1_0_95_thinking_tool_errors() {
    let dir = corpus_dir();
    let s = main_file(&dir.join("real-v1.0.95-thinking-tool-errors.jsonl"));
    // python3 verify.py real-v1.0.95-thinking-tool-errors.jsonl
    // {"id": "e9f146fa-3b20-48d0-9be4-d99ca901cae4", "cwd": "/home/wei/repo/claude-code",
    //  "messages": 73, "user_turns": 6, "assistant_messages": 31, "tool_calls": 30,
    //  "tool_errors": 2, "requests": 31, "compactions": 0, "warnings": 0,
    //  "models": ["claude-sonnet-4-20250514"], "input": 158, "output": 3860,
    //  "cache_read": 1093509, "cache_write": 99004, "reasoning": 0, "total": 1196531}
    // jq ... | jq -cs -f usage.jq
    // {"requests":31,"input":158,"output":3860,"cache_read":1093509,"cache_write":99004,"reasoning":0}
    check(
        &s,
        &Expect {
            id: "e9f146fa-3b20-48d0-9be4-d99ca901cae4",
            cwd: "/home/wei/repo/claude-code",
            messages: 73,
            user_turns: 6,
            assistant_messages: 31,
            tool_calls: 30,
            tool_errors: 2,
            requests: 31,
            compactions: 0,
            warnings: 0,
            models: &["claude-sonnet-4-20250514"],
            usage: usage(158, 3860, 1_093_509, 99_004, 0),
        },
    );
    assert_eq!(s.usage().total(), 1_196_531);
    // Two sessionIds: the resumed copy re-writes one record (uuid 562d6805…, lines 48–49):
    // jq -c 'select(.uuid=="562d6805-363d-4bf4-aba6-7c6ec68a291d") | .sessionId' → 2 lines
    assert!(
        s.other_records
            .contains(&("claude:repeated_record".to_string(), 1))
    );
    // grep -c 'Request interrupted by user for tool use' → 2 user records (lines 20, 63)
    let interrupted = s
        .messages
        .iter()
        .filter(|m| m.subtype.as_deref() == Some("interrupted"))
        .count();
    assert_eq!(interrupted, 2);
    // Lines 51/82 isMeta caveats, 53/84 <local-command-stdout>, 52/83 slash commands.
    let sub = |t: &str| {
        s.messages
            .iter()
            .filter(|m| m.subtype.as_deref() == Some(t))
            .count()
    };
    assert_eq!(
        (sub("meta"), sub("local_command_output"), sub("command")),
        (2, 2, 2)
    );
    // jq -c 'select(.message.content[]?.type=="thinking")' | wc -l → 5 thinking blocks.
    let thinking: usize = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::Thinking { .. }))
        .count();
    assert_eq!(thinking, 5);
    assert_eq!(s.agent_version.as_deref(), Some("1.0.95"));
    assert_eq!(s.git_branch.as_deref(), Some("main"));
    assert!(superseded_ids(&s).is_empty());
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_real_v2_0_14_split_usage_records() {
    let dir = corpus_dir();
    let s = main_file(&dir.join("real-v2.0.14-split-usage-records.jsonl"));
    // python3 verify.py real-v2.0.14-split-usage-records.jsonl
    // {"id": "cfa1e878-62b5-4e40-b281-bbf9b250d766",
    //  "cwd": "/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2", "messages": 32,
    //  "user_turns": 2, "assistant_messages": 10, "tool_calls": 23, "tool_errors": 0,
    //  "requests": 10, "compactions": 0, "warnings": 0, "models": ["claude-sonnet-4-5-20250929"],
    //  "input": 1223, "output": 833, "cache_read": 185540, "cache_write": 21565, "reasoning": 0}
    // jq ... | jq -cs -f usage.jq
    // {"requests":10,"input":1223,"output":833,"cache_read":185540,"cache_write":21565,"reasoning":0}
    check(
        &s,
        &Expect {
            id: "cfa1e878-62b5-4e40-b281-bbf9b250d766",
            cwd: "/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2",
            messages: 32,
            user_turns: 2,
            assistant_messages: 10,
            tool_calls: 23,
            tool_errors: 0,
            requests: 10,
            compactions: 0,
            warnings: 0,
            models: &["claude-sonnet-4-5-20250929"],
            usage: usage(1223, 833, 185_540, 21_565, 0),
        },
    );
    // jq -c 'select(.message.id=="msg_01QG47DUoPd2EggFShdqKuBt") | .message.usage.output_tokens'
    // → 25, 25, 246: one response in three records; the max wins, pieces are not summed.
    let r = request_for(&s, "msg_01QG47DUoPd2EggFShdqKuBt");
    assert_eq!(r.usage.output, 246);
    assert_eq!(
        r.dedup_key.as_ref().unwrap().request_id.as_deref(),
        Some("req_011CUKdHcjETpeBGUjLrkr1A")
    );
    let m = message(&s, "msg_01QG47DUoPd2EggFShdqKuBt");
    let calls = m
        .parts
        .iter()
        .filter(|p| matches!(p, Part::ToolCall { .. }))
        .count();
    assert_eq!(calls, 3);
    // Summing every piece instead would give output 1,120:
    // jq -s '[.[]|select(.type=="assistant")|.message.usage.output_tokens]|add' → 1120
    assert_ne!(s.usage().output, 1120);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_sanitized_tool_result_image() {
    let dir = corpus_dir();
    let s = main_file(&dir.join("sanitized-v2.0.55-tool-result-image.jsonl"));
    // python3 verify.py sanitized-v2.0.55-tool-result-image.jsonl
    // {"id": "bb32e6fc-9893-4839-b1de-646fdb1437d1", "cwd": "/Users/test/project", "messages": 3,
    //  "user_turns": 0, "assistant_messages": 2, "tool_calls": 1, "tool_errors": 0, "requests": 2,
    //  "compactions": 0, "warnings": 0, "models": ["claude-sonnet-4-5-20250929"], "input": 250,
    //  "output": 70, "cache_read": 0, "cache_write": 0, "reasoning": 0, "total": 320}
    check(
        &s,
        &Expect {
            id: "bb32e6fc-9893-4839-b1de-646fdb1437d1",
            cwd: "/Users/test/project",
            messages: 3,
            user_turns: 0,
            assistant_messages: 2,
            tool_calls: 1,
            tool_errors: 0,
            requests: 2,
            compactions: 0,
            warnings: 0,
            models: &["claude-sonnet-4-5-20250929"],
            usage: usage(250, 70, 0, 0, 0),
        },
    );
    // python3 -c "import base64; print(len(base64.b64decode('iVBORw0…ggg==')))" → 70
    let tool = &s.messages[1];
    assert_eq!(tool.role, Role::Tool);
    match &tool.parts[0] {
        Part::ToolResult {
            call_id,
            attachments,
            is_error,
            ..
        } => {
            assert_eq!(call_id, "toolu_01JPVq3KWLjR86hgLCGRXQv7");
            assert!(!is_error);
            match &attachments[..] {
                [
                    Part::Image {
                        media_type,
                        bytes,
                        data,
                        url: None,
                    },
                ] => {
                    assert_eq!(media_type.as_deref(), Some("image/png"));
                    assert_eq!(*bytes, Some(70));
                    assert!(
                        data.as_deref()
                            .is_some_and(|d| d.starts_with("iVBORw0KGgo"))
                    );
                }
                other => panic!("expected one image attachment, got {other:?}"),
            }
        }
        other => panic!("expected a tool result, got {other:?}"),
    }
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_schema_all_record_types() {
    let dir = corpus_dir();
    let s = main_file(&dir.join("schema-v2.1.x-all-record-types.jsonl"));
    // python3 verify.py schema-v2.1.x-all-record-types.jsonl
    // {"id": "ses_stage0_small", "cwd": "/tmp", "messages": 18, "user_turns": 3,
    //  "assistant_messages": 6, "tool_calls": 3, "tool_errors": 1, "requests": 2,
    //  "compactions": 2, "warnings": 0,
    //  "models": ["claude-opus-5", "claude-opus-4-8", "claude-sonnet-5", "claude-fable-5"],
    //  "input": 10, "output": 5, "cache_read": 0, "cache_write": 0, "reasoning": 0, "total": 15}
    // jq ... | jq -cs -f usage.jq
    // {"requests":2,"input":10,"output":5,"cache_read":0,"cache_write":0,"reasoning":0}
    check(
        &s,
        &Expect {
            id: "ses_stage0_small",
            cwd: "/tmp",
            messages: 18,
            user_turns: 3,
            assistant_messages: 6,
            tool_calls: 3,
            tool_errors: 1,
            requests: 2,
            compactions: 2,
            // jq -n '[inputs|.timestamp]|map(select(.=="[trimmed for fixture]"))|length' → 45
            // placeholders where a time was: each record is read, and its time said unknown.
            warnings: 45,
            models: &[
                "claude-opus-5",
                "claude-opus-4-8",
                "claude-sonnet-5",
                "claude-fable-5",
            ],
            usage: usage(10, 5, 0, 0, 0),
        },
    );
    assert!(
        s.warnings.iter().all(
            |w| w.line.is_some() && w.message.contains("\"[trimmed for fixture]\", not a time")
        ),
        "{:?}",
        s.warnings
    );
    // custom-title (line 15) beats ai-title (line 16).
    assert_eq!(s.title.as_deref(), Some("Stage0 small fixture"));
    assert!(s.title_is_explicit);
    assert_eq!(
        s.leaf_titles,
        vec![(
            "leaf_stage0".to_string(),
            "Claude Code: Context usage summary".to_string()
        )]
    );
    // jq -c 'select(.subtype=="compact_boundary") | .compactMetadata' → two boundaries.
    let c0 = &s.compactions[0];
    assert_eq!(
        (c0.kind, c0.trigger),
        (CompactionKind::ClaudeBoundary, Trigger::Auto)
    );
    assert_eq!((c0.tokens_before, c0.tokens_after), (Some(120_000), None));
    assert_eq!(c0.tokens_provenance, Provenance::Recorded);
    assert_eq!(c0.summary.as_deref(), Some("Summary of prior context."));
    assert_eq!(c0.extra["logicalParentUuid"], "s3");
    let c1 = &s.compactions[1];
    assert_eq!(c1.trigger, Trigger::Unknown); // "[trimmed for fixture]"
    assert_eq!(
        (c1.tokens_before, c1.tokens_after, c1.duration_ms),
        (Some(0), Some(0), Some(0))
    );
    assert!(c1.extra.get("preservedSegment").is_some());
    for c in &s.compactions {
        assert_eq!(
            s.messages[c.message_index - 1].subtype.as_deref(),
            Some("compaction")
        );
    }
    // Line 47: the <synthetic> assistant message: kept, no request, no model.
    assert_eq!(
        s.messages
            .iter()
            .filter(|m| m.subtype.as_deref() == Some("synthetic"))
            .count(),
        1
    );
    // Unknown kinds are tallied, never dropped (jq -r .type | sort | uniq -c).
    for kind in [
        "claude:queue-operation",
        "claude:file-history-snapshot",
        "claude:bridge-session",
        "claude:atis-latch",
        "claude:progress/hook_progress",
        "claude:system/turn_duration",
    ] {
        assert!(
            s.other_records.iter().any(|(k, _)| k == kind),
            "{kind} not tallied"
        );
    }
    assert!(
        s.other_records
            .contains(&("claude:system/api_error".to_string(), 4))
    );
    assert!(
        s.other_records
            .contains(&("claude:attachment/queued_command".to_string(), 4))
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_subagent_layout() {
    let dir = corpus_dir();
    let parent_id = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f";
    let root = dir.join("subagent-layout");
    let parent = main_file(&root.join(format!("{parent_id}.jsonl")));
    // python3 verify.py subagent-layout/0a1b2c3d-….jsonl
    // {"id": "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f", "cwd": "/tmp", "messages": 2,
    //  "user_turns": 1, "assistant_messages": 1, "tool_calls": 1, "tool_errors": 0,
    //  "requests": 0, "compactions": 0, "warnings": 0, "models": [], ... all tokens 0}
    check(
        &parent,
        &Expect {
            id: parent_id,
            cwd: "/tmp",
            messages: 2,
            user_turns: 1,
            assistant_messages: 1,
            tool_calls: 1,
            tool_errors: 0,
            requests: 0,
            compactions: 0,
            warnings: 0,
            models: &[],
            usage: Usage::default(),
        },
    );
    // The Task tool_use has no id: one is synthesised from the record uuid and part index.
    assert!(matches!(&parent.messages[1].parts[1], Part::ToolCall { id, .. } if id == "pa1:1"));

    let path = root
        .join(parent_id)
        .join("subagents/agent-a0ad4f44468bdf20d.jsonl");
    // python3 verify.py …/agent-a0ad4f44468bdf20d.jsonl
    // {"id": "agent-a0ad4f44468bdf20d", "cwd": "/tmp", "messages": 3, "user_turns": 0,
    //  "assistant_messages": 1, "tool_calls": 1, "tool_errors": 0, "requests": 0, ...}
    let expect = Expect {
        id: "agent-a0ad4f44468bdf20d",
        cwd: "/tmp",
        messages: 3,
        user_turns: 0,
        assistant_messages: 1,
        tool_calls: 1,
        tool_errors: 0,
        requests: 0,
        compactions: 0,
        warnings: 0,
        models: &[],
        usage: Usage::default(),
    };
    let sub = sub_file(&path, Some(parent_id));
    check(&sub, &expect);
    assert_eq!(sub.kind, SessionKind::Subagent);
    assert_eq!(sub.parent_id.as_deref(), Some(parent_id));
    assert!(sub.messages.iter().all(|m| m.sidechain));
    // The tool_result has no tool_use_id: it answers the one pending call.
    let call = match &sub.messages[1].parts[1] {
        Part::ToolCall { id, .. } => id.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        matches!(&sub.messages[2].parts[0], Part::ToolResult { call_id, .. } if *call_id == call)
    );
    // Without the folder name, the records' `sessionId` is `agent-<id>`: not a parent.
    let orphan = sub_file(&path, None);
    assert_eq!(orphan.parent_id, None);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_synthetic_dag_compact_after_rewind() {
    let dir = corpus_dir();
    let s = main_file(&dir.join("synthetic-dag-compact-after-rewind.jsonl"));
    // python3 verify.py synthetic-dag-compact-after-rewind.jsonl
    // {"id": "s1", "cwd": "/tmp", "messages": 12, "user_turns": 5, "assistant_messages": 5,
    //  "tool_calls": 0, "tool_errors": 0, "requests": 5, "compactions": 1, "warnings": 0,
    //  "models": ["claude-sonnet-4-20250514"], "input": 50, "output": 25, ...}
    check(
        &s,
        &Expect {
            id: "s1",
            cwd: "/tmp",
            messages: 12,
            user_turns: 5,
            assistant_messages: 5,
            tool_calls: 0,
            tool_errors: 0,
            requests: 5,
            compactions: 1,
            warnings: 0,
            models: &["claude-sonnet-4-20250514"],
            usage: usage(50, 25, 0, 0, 0),
        },
    );
    // jq -c '[.uuid, .parentUuid, .logicalParentUuid]': b1u and b2u are both children of a1;
    // the last record p1a walks back through cs → cb ⇢ (logical) b2a2 → … → a1, so the first
    // attempt (b1u, b1a) is the abandoned branch. Its usage still counts (usage above).
    assert_eq!(superseded_ids(&s), vec!["b1u", "msg_b1a"]);
    let c = &s.compactions[0];
    assert_eq!((c.trigger, c.tokens_before), (Trigger::Auto, Some(150_000)));
    assert_eq!(c.request_index, 4);
    assert_eq!(
        s.messages[c.message_index].subtype.as_deref(),
        Some("compact_summary")
    );
    assert!(!s.messages[c.message_index].is_human);
    assert!(
        c.summary
            .as_deref()
            .unwrap()
            .starts_with("This session is being continued")
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_synthetic_edge_cases_malformed() {
    let dir = corpus_dir();
    let s = main_file(&dir.join("synthetic-edge-cases-malformed.jsonl"));
    // python3 verify.py synthetic-edge-cases-malformed.jsonl
    // {"id": "edge_cases", "cwd": "/tmp", "messages": 12, "user_turns": 4,
    //  "assistant_messages": 4, "tool_calls": 3, "tool_errors": 1, "requests": 4,
    //  "compactions": 0, "warnings": 6, "models": ["claude-3-sonnet-20240229", "claude-sonnet-4"],
    //  "input": 488, "output": 435, "cache_read": 0, "cache_write": 0, "reasoning": 0}
    check(
        &s,
        &Expect {
            id: "edge_cases",
            cwd: "/tmp",
            messages: 12,
            user_turns: 4,
            assistant_messages: 4,
            tool_calls: 3,
            tool_errors: 1,
            requests: 4,
            compactions: 0,
            warnings: 6,
            models: &["claude-3-sonnet-20240229", "claude-sonnet-4"],
            usage: usage(488, 435, 0, 0, 0),
        },
    );
    // Lines 10 (`contenst`), 11 (`message: "error"`), 13–16 (string, typeless object, number,
    // array): awk 'NR>=10 && NR<=16' | cut -c1-80.
    let lines: Vec<_> = s.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [10, 11, 13, 14, 15, 16].map(Some));
    assert_eq!(s.leaf_titles.len(), 1);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn parallel_tool_results_of_a_real_session_are_live() {
    // The session makes parallel tool calls whose response is streamed as one piece per call;
    // the conversation goes on from the first piece's result. It has no rewind:
    //   jq -r 'select(.type=="user" and (.message.content|type)=="string") | .parentUuid' F
    //   lists each prompt's parent once (no fork with a second prompt).
    let f = corpus_dir().join("../real/claude_compaction/entire-f9_df612e4bbe_0_full.jsonl");
    let s = main_file(&f);
    assert_eq!(superseded_ids(&s), Vec::<&str>::new());
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn guidance_typed_while_the_agent_worked_is_in_the_transcript() {
    // jq -c 'select(.type=="queue-operation") | [.operation, .content]' F
    //   → two enqueue/remove pairs; the assistant answers the second ("your question about
    //     codifying the hook bindings"), whose text no other record holds.
    let f = corpus_dir().join("../real/claude_compaction/entire-fc_99c919b212_0_full.jsonl");
    let s = main_file(&f);
    let queued: Vec<String> = s
        .messages
        .iter()
        .filter(|m| m.subtype.as_deref() == Some("queued"))
        .map(|m| m.text())
        .collect();
    assert_eq!(
        queued,
        [
            "did we create any new unit tests?",
            "I wonder if there's a way to codify the hook bindings, as well as save us some \
             boilerplate"
        ]
    );
    assert!(
        s.messages
            .iter()
            .filter(|m| m.subtype.as_deref() == Some("queued"))
            .all(|m| m.is_human)
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn text_typed_beside_a_tool_result_is_the_users() {
    // Claude Code 2.1.19 attached the user's message to a tool result (line 247:
    // `content: [tool_result, text]`); its own compaction summary later lists that text among
    // "All user messages".
    let f = corpus_dir().join("../real/claude_compaction/entire-8c_cdd0fbae20_0_full.jsonl");
    let s = main_file(&f);
    let typed = "can we have a quick look to see if there are direct git things elsewhere as well?";
    let at = s
        .messages
        .iter()
        .position(|m| m.text() == typed)
        .expect("the text is a message of its own");
    let (results, prompt) = (&s.messages[at - 1], &s.messages[at]);
    assert_eq!((prompt.role, prompt.is_human), (Role::User, true));
    assert_eq!(results.role, Role::Tool);
    assert!(
        matches!(&results.parts[..], [Part::ToolResult { call_id, .. }]
        if call_id == "toolu_01Y5uVnxoHswZPphoaTJKCdb")
    );
    assert_eq!(results.id, prompt.id);
    // Three such records in this file (lines 247, 642, 650), each a human turn now.
    let beside = s
        .messages
        .windows(2)
        .filter(|w| w[0].role == Role::Tool && w[1].is_human && w[0].id == w[1].id)
        .count();
    assert_eq!(beside, 3);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn microcompactions_keep_their_recorded_metadata() {
    // grep -c microcompact_boundary F → 2 (lines 107 and 233, Claude Code 2.1.17).
    let f = corpus_dir().join("../real/claude_compaction/entire-41_d906a09a7a_0_full.jsonl");
    let s = main_file(&f);
    let micro: Vec<_> = s
        .compactions
        .iter()
        .filter(|c| c.kind == CompactionKind::ClaudeMicrocompact)
        .collect();
    let got: Vec<_> = micro
        .iter()
        .map(|c| {
            (
                c.trigger,
                c.tokens_before,
                c.tokens_after,
                c.extra["tokensSaved"].as_u64(),
                c.extra["compactedToolIds"].as_array().map(Vec::len),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (Trigger::Auto, Some(73_043), None, Some(39_512), Some(9)),
            (Trigger::Auto, Some(61_717), None, Some(31_740), Some(13)),
        ]
    );
    assert_eq!(
        micro[0].extra["compactedToolIds"][0],
        "toolu_01MUBnoHgtn3fhTnmScqpgrr"
    );
    assert_eq!(micro[0].tokens_provenance, Provenance::Recorded);
    // The two summarising compactions are still there, as before.
    assert_eq!(
        s.compactions
            .iter()
            .filter(|c| c.kind == CompactionKind::ClaudeBoundary)
            .count(),
        2
    );
    // Each is marked where it happened, and nothing is left as a bare system notice.
    let m = &s.messages[micro[0].message_index - 1];
    assert_eq!(
        m.id.as_deref(),
        Some("f85c60e3-be65-4780-8453-d4ffb0e305b6")
    );
    assert!(matches!(m.parts[..], [Part::Compaction { .. }]));
    assert!(
        !s.messages
            .iter()
            .any(|m| m.subtype.as_deref() == Some("microcompact_boundary"))
    );
}
