//! The Claude Code parser against the public corpus (`../shared/corpus/claude`, read-only) and
//! the hand-made fixtures under `testdata/home/.claude` and `testdata/home/.config/claude`.
//!
//! Every expected number was computed without the parser, by two independent methods over the
//! raw files (both reproduced verbatim at the end of this file):
//! - `python3 verify.py FILE`: messages, user turns, assistant messages, distinct tool calls and
//!   tool errors, requests, compactions, skipped lines, models, id, cwd and every token field;
//! - `jq -cR 'fromjson? | select(type=="object")' FILE | jq -cs -f usage.jq`: the token fields
//!   again (group by message.id|requestId, max per field, sum).
//!
//! The output of those commands is quoted above each assertion block.

mod common;

use std::path::{Path, PathBuf};

use sessions::model::*;
use sessions::parse::{FileRole, SourceFile, hash64, parse_file};

/// The corpus's Claude folder (the tests using it are ignored when it is absent; build.rs).
fn corpus_dir() -> PathBuf {
    Path::new(env!("SESSIONS_CORPUS_DIR")).join("claude")
}

corpus_is_present_in_ci!();

fn fixture(rel: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home")).join(rel)
}

fn parse(path: &Path, role: FileRole) -> Session {
    let file = SourceFile::new(Agent::Claude, path.to_path_buf(), role);
    parse_file(&file).unwrap_or_else(|w| panic!("{}: {w}", path.display()))
}

fn main_file(path: &Path) -> Session {
    parse(path, FileRole::ClaudeMain)
}

fn sub_file(path: &Path, parent: Option<&str>) -> Session {
    parse(
        path,
        FileRole::ClaudeSubagent {
            parent_session: parent.map(String::from),
            meta: None,
        },
    )
}

/// The numbers `verify.py` prints for a file.
struct Expect {
    id: &'static str,
    cwd: &'static str,
    messages: usize,
    user_turns: u64,
    assistant_messages: u64,
    tool_calls: u64,
    tool_errors: u64,
    requests: usize,
    compactions: usize,
    warnings: usize,
    models: &'static [&'static str],
    usage: Usage,
}

fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64, reasoning: u64) -> Usage {
    Usage {
        input,
        output,
        cache_read,
        cache_write,
        reasoning,
        cache_write_1h: 0,
    }
}

fn check(s: &Session, e: &Expect) {
    let what = s.path.display().to_string();
    assert_eq!(s.agent, Agent::Claude, "{what}");
    assert_eq!(s.id, e.id, "{what}: id");
    assert_eq!(s.cwd.as_deref(), Some(e.cwd), "{what}: cwd");
    assert_eq!(s.messages.len(), e.messages, "{what}: messages");
    let c = s.counts();
    assert_eq!(c.user_turns, e.user_turns, "{what}: user turns");
    assert_eq!(
        c.assistant_messages, e.assistant_messages,
        "{what}: assistant messages"
    );
    assert_eq!(c.tool_calls, e.tool_calls, "{what}: tool calls");
    assert_eq!(c.tool_errors, e.tool_errors, "{what}: tool errors");
    assert_eq!(s.requests.len(), e.requests, "{what}: requests");
    assert_eq!(s.compactions.len(), e.compactions, "{what}: compactions");
    assert_eq!(
        s.warnings.len(),
        e.warnings,
        "{what}: warnings {:?}",
        s.warnings
    );
    assert_eq!(s.models, e.models, "{what}: models");
    // The independent checkers recount the billed fields; the 1-hour share of cache writes
    // is checked on its own (sample_home's usage tests).
    let counted = Usage {
        cache_write_1h: 0,
        ..s.usage()
    };
    assert_eq!(counted, e.usage, "{what}: usage");
    // Invariants of the model contract.
    let marked: usize = s
        .messages
        .iter()
        .filter(|m| m.subtype.as_deref() == Some("compaction"))
        .count();
    assert_eq!(
        marked,
        s.compactions.len(),
        "{what}: one marker per compaction"
    );
    for (i, r) in s.requests.iter().enumerate() {
        let m = r
            .message_index
            .expect("every Claude request has its message");
        assert_eq!(s.messages[m].role, Role::Assistant, "{what}: request {i}");
        assert_eq!(
            s.messages[m].usage,
            Some(r.usage),
            "{what}: request {i} usage on its message"
        );
        assert_eq!(
            r.prompt_tokens,
            Some(r.usage.prompt()),
            "{what}: request {i} prompt"
        );
        assert!(r.model.as_deref() != Some("<synthetic>"));
    }
    for m in &s.messages {
        if m.subtype.as_deref() == Some("synthetic") {
            assert!(
                m.usage.is_none() && m.model.is_none(),
                "{what}: synthetic has no usage/model"
            );
        }
    }
}

fn request_for<'a>(s: &'a Session, message_id: &str) -> &'a Request {
    s.requests
        .iter()
        .find(|r| {
            r.dedup_key
                .as_ref()
                .is_some_and(|k| k.message_id == message_id)
        })
        .unwrap_or_else(|| panic!("no request for {message_id}"))
}

fn message<'a>(s: &'a Session, id: &str) -> &'a Message {
    s.messages
        .iter()
        .find(|m| m.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no message {id}"))
}

fn superseded_ids(s: &Session) -> Vec<&str> {
    s.messages
        .iter()
        .filter(|m| m.superseded)
        .filter_map(|m| m.id.as_deref())
        .collect()
}

// ------------------------------------------------------------------------------------------
// Corpus
// ------------------------------------------------------------------------------------------

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
            warnings: 0,
            models: &[
                "claude-opus-5",
                "claude-opus-4-8",
                "claude-sonnet-5",
                "claude-fable-5",
            ],
            usage: usage(10, 5, 0, 0, 0),
        },
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

// ------------------------------------------------------------------------------------------
// testdata/home fixtures (see testdata/home/.claude/README.md)
// ------------------------------------------------------------------------------------------

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
    // agent_progress embeds msg_A_sub1 with usage: never a request.
    assert!(
        s.requests
            .iter()
            .all(|r| r.dedup_key.as_ref().unwrap().message_id != "msg_A_sub1")
    );
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
            path: None,
            agent_type: None,
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
        .map(|m| m.id.clone().unwrap())
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
    // aggregation drops it (jq over both files: 173,195 for the whole fixture store).
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

// ------------------------------------------------------------------------------------------
// The independent checkers, verbatim.
//
// ---- usage.jq ----
// [.[] | select(type=="object" and .type=="assistant" and (.message|type)=="object" and .message.model!="<synthetic>" and (.message.usage|type)=="object")
//  | {k: (if .message.id then "\(.message.id)|\(.requestId)" else "uuid:\(.uuid)" end), u: .message.usage}
//  | .u as $u | {k, i: ($u.input_tokens // 0), o: ($u.output_tokens // 0), r: ($u.cache_read_input_tokens // 0),
//      w: (if ($u.cache_creation|type)=="object" then ($u.cache_creation.ephemeral_5m_input_tokens // 0) + ($u.cache_creation.ephemeral_1h_input_tokens // 0) else ($u.cache_creation_input_tokens // 0) end),
//      t: ($u.output_tokens_details.thinking_tokens // 0)}]
// | group_by(.k) | map({i: (map(.i)|max), o: (map(.o)|max), r: (map(.r)|max), w: (map(.w)|max), t: (map(.t)|max)})
// | {requests: length, input: (map(.i)|add), output: (map(.o)|add), cache_read: (map(.r)|add), cache_write: (map(.w)|add), reasoning: (map(.t)|add)}
//
// ---- verify.py ----
// import json, sys, collections
// def num(v):
//     if isinstance(v, bool): return 0
//     if isinstance(v, int): return max(v, 0)
//     if isinstance(v, float): return int(v) if v > 0 else 0
//     if isinstance(v, str):
//         try: return int(v.strip())
//         except: return 0
//     return 0
// def usage(u):
//     cc = u.get("cache_creation")
//     if isinstance(cc, dict) and ("ephemeral_5m_input_tokens" in cc or "ephemeral_1h_input_tokens" in cc):
//         cw = num(cc.get("ephemeral_5m_input_tokens")) + num(cc.get("ephemeral_1h_input_tokens"))
//     else: cw = num(u.get("cache_creation_input_tokens"))
//     d = u.get("output_tokens_details")
//     r = num(d.get("thinking_tokens")) if isinstance(d, dict) else 0
//     return dict(input=num(u.get("input_tokens")), output=num(u.get("output_tokens")), cache_read=num(u.get("cache_read_input_tokens")), cache_write=cw, reasoning=r)
// MARK = [("<command-name>",True),("<command-message>",True),("<bash-input>",True),("<local-command-stdout>",False),("<local-command-stderr>",False),("<bash-stdout>",False),("<bash-stderr>",False),("<local-command-caveat>",False),("Caveat: The messages below were generated by the user while running local commands",False),("[Request interrupted by user",False),("<task-notification>",False),("<user-prompt-submit-hook>",False)]
// path = sys.argv[1]; subagent = "agent-" in path.rsplit("/",1)[-1]
// raw = open(path, "rb").read()
// lines = raw.split(b"\n")
// warn = 0; msgs = 0; turns = 0; asst = 0; calls = set(); errs = set(); comps = 0; models = []
// resp = {}; nokey = []; seen = set(); sids = []; cwd = None; other = collections.Counter(); pending = []
// main_ids = set(); replay = 0
// for i, l in enumerate(lines):
//     if not l.strip(): continue
//     try: o = json.loads(l)
//     except Exception: warn += 1; continue
//     if not isinstance(o, dict) or not isinstance(o.get("type"), str): warn += 1; continue
//     if cwd is None and isinstance(o.get("cwd"), str) and o["cwd"].strip(): cwd = o["cwd"]
//     sid = o.get("sessionId") or o.get("session_id")
//     if isinstance(sid, str) and sid.strip(): sids.append(sid)
//     t = o["type"]; sc = o.get("isSidechain") is True
//     if t == "user":
//         m = o.get("message"); c = m.get("content") if isinstance(m, dict) else None
//         if not isinstance(c, (str, list)): warn += 1; continue
//         if isinstance(o.get("uuid"), str):
//             k = (o["uuid"], json.dumps(m, sort_keys=True))
//             if k in seen: continue
//             seen.add(k)
//         msgs += 1
//         blocks = [{"type":"text","text":c}] if isinstance(c, str) else c
//         has_tr = False
//         for b in blocks:
//             if isinstance(b, dict) and b.get("type") == "tool_use":
//                 calls.add(b.get("id"));
//             if isinstance(b, dict) and b.get("type") == "tool_result":
//                 has_tr = True
//                 cid = b.get("tool_use_id") or (pending.pop(0) if pending else None) or o.get("sourceToolUseID")
//                 if cid in pending: pending.remove(cid)
//                 if b.get("is_error") is True: errs.add(cid)
//         if o.get("isCompactSummary") is True:
//             if not getattr(sys, "_open", False): comps += 1; msgs += 1
//             sys._open = False
//         elif has_tr or "toolUseResult" in o or o.get("isMeta") is True or sc: pass
//         else:
//             texts = [b if isinstance(b, str) else b.get("text", "") for b in blocks if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")]
//             other_blocks = [b for b in blocks if not (isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))]
//             texts = [x.lstrip() for x in texts if isinstance(x, str)]
//             firsts = [x for x in texts if x and not x.startswith("<system-reminder>")]
//             if not firsts: human = bool(other_blocks)
//             else:
//                 human = True
//                 for p, h in MARK:
//                     if firsts[0].startswith(p): human = h; break
//             turns += human
//     elif t == "assistant":
//         m = o.get("message")
//         if not isinstance(m, dict): warn += 1; continue
//         if isinstance(o.get("uuid"), str):
//             k = (o["uuid"], json.dumps(m, sort_keys=True))
//             if k in seen: continue
//             seen.add(k)
//         model = m.get("model") if isinstance(m.get("model"), str) and m.get("model").strip() else None
//         syn = model == "<synthetic>"
//         c = m.get("content"); blocks = [c] if isinstance(c, str) else (c or [])
//         key = (m.get("id"), o.get("requestId") or None) if isinstance(m.get("id"), str) and m.get("id").strip() else None
//         newmsg = syn or key is None or key not in resp
//         if newmsg: msgs += 1; asst += 1
//         mkey = m.get("id") or o.get("uuid")
//         for n, b in enumerate(blocks):
//             if isinstance(b, dict) and b.get("type") == "tool_use":
//                 cid = b.get("id") or "%s:%d" % (mkey, n)  # (index only right for unmerged messages)
//                 calls.add(cid); pending.append(cid)
//         if syn: continue
//         if model and model not in models: models.append(model)
//         u = m.get("usage") if isinstance(m.get("usage"), dict) else None
//         if key is None:
//             if u: nokey.append(usage(u))
//             continue
//         if key not in resp:
//             rep = sc and key[0] in main_ids
//             replay += rep
//             if not sc: main_ids.add(key[0])
//             resp[key] = {"rep": rep, "u": None}
//         r = resp[key]
//         if u and not r["rep"]:
//             uu = usage(u)
//             r["u"] = uu if r["u"] is None else {f: max(r["u"][f], uu[f]) for f in uu}
//     elif t == "system":
//         st = o.get("subtype") or ""
//         if st == "compact_boundary": comps += 1; msgs += 1; sys._open = True
//         elif isinstance(o.get("content"), str) and o["content"].strip(): msgs += 1
// reqs = [r["u"] for r in resp.values() if r["u"] is not None] + nokey
// tot = {f: sum(r[f] for r in reqs) for f in ["input", "output", "cache_read", "cache_write", "reasoning"]}
// stem = path.rsplit("/", 1)[-1].removesuffix(".jsonl")
// sid = stem if subagent else (stem if stem in sids else (sids[0] if sids else stem))
// print(json.dumps(dict(id=sid, cwd=cwd, messages=msgs, user_turns=turns, assistant_messages=asst, tool_calls=len(calls), tool_errors=len(errs), requests=len(reqs), compactions=comps, warnings=warn, models=models, replays=replay, **tot, total=tot["input"]+tot["output"]+tot["cache_read"]+tot["cache_write"])))
