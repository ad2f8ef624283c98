//! Gemini parser against the real corpus (`../shared/corpus/gemini`) and the hand-made sample
//! HOME (`testdata/home/.gemini`). Every expected number was computed by hand with python3
//! over the raw file, independently of the Rust code; the commands are above each block.
//!
//! Shorthands used in the comments (`F` = the file):
//!
//! TOK (JSONL; last `tokens` per gemini id; lines that do not end in `}` are the bad ones):
//!   python3 -c 'import json,sys;t={};[t.__setitem__(d["id"],d["tokens"]) for d in
//!     (json.loads(l) for l in open(sys.argv[1]) if l.rstrip().endswith("}"))
//!     if d.get("type")=="gemini" and d.get("tokens")];
//!     i=sum(v["input"]-v["cached"]+v["tool"] for v in t.values());c=sum(v["cached"] for v in t.values());
//!     o=sum(v["output"]+v["thoughts"] for v in t.values());r=sum(v["thoughts"] for v in t.values());
//!     print(len(t),i,c,o,r,i+c+o)' F            → requests input cache_read output reasoning total
//! LTOK (legacy `.json`): the same over `json.load(open(F))["messages"]`.
//! IDS (JSONL): python3 -c 'import json,sys,collections;m={};[m.__setitem__(d["id"],d) for d in
//!     (json.loads(l) for l in open(sys.argv[1]) if l.rstrip().endswith("}"))
//!     if isinstance(d.get("id"),str)];print(collections.Counter(d["type"] for d in m.values()),
//!     len({c["id"] for d in m.values() for c in d.get("toolCalls",[])}),
//!     sum(1 for d in m.values() if any(c.get("result") for c in d.get("toolCalls",[]))))' F
//!   → unique records by type, distinct toolCalls ids, gemini messages with results (each gets
//!     one Tool message after it unless v0.44 functionResponse user messages carry them).

use crate::common;

use std::path::{Path, PathBuf};

use sessions::diag::WarningKind;
use sessions::model::*;
use sessions::parse::{FileRole, SourceFile, parse_file};

const HOME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home/.gemini/tmp");
const HW: &str = "fd20db9cf4309815aebd3729173edf8a78abb152c57b1de8cb602a3c8b959627"; // sha256("/home/dev/webapp")
const HA: &str = "1ad108b1f7afc01e965e864ab71a687f22c3191824da969a4434a9d6eb8c8755"; // sha256("/home/dev/api-server")
const HM: &str = "15f92be7ea393a73b46729b83061f82cbd868633b7b4d2590079e6bfafc44b14"; // sha256("/home/dev/ml-notebooks")
const HU: &str = "7b8ebbc448bee587f47492d1cf9f2a1da01c5ea74956d0bc530aecd3e2abc03d"; // sha256("/home/dev/scratch-unlisted")

#[derive(Debug, PartialEq)]
struct Expect {
    id: &'static str,
    messages: usize,
    user_turns: u64,
    assistant: u64,
    tool_calls: u64,
    tool_errors: u64,
    requests: usize,
    /// input, cache_read, cache_write, output, reasoning, total
    tokens: [u64; 6],
    compactions: usize,
    warnings: usize,
    models: &'static [&'static str],
}

fn parse(path: &Path, role: FileRole) -> Session {
    parse_file(&SourceFile::new(Agent::Gemini, path.to_path_buf(), role))
        .unwrap_or_else(|w| panic!("{}: {w}", path.display()))
}

fn check(s: &Session, e: &Expect) {
    let c = s.counts();
    let u = s.usage();
    let got = Expect {
        id: e.id,
        messages: s.messages.len(),
        user_turns: c.user_turns,
        assistant: c.assistant_messages,
        tool_calls: c.tool_calls,
        tool_errors: c.tool_errors,
        requests: s.requests.len(),
        tokens: [
            u.input,
            u.cache_read,
            u.cache_write,
            u.output,
            u.reasoning,
            u.total(),
        ],
        compactions: s.compactions.len(),
        warnings: s.warnings.len(),
        models: e.models,
    };
    assert_eq!(&got, e, "{}", s.path.display());
    assert_eq!(s.id, e.id, "{}", s.path.display());
    assert_eq!(s.models, e.models, "{}", s.path.display());
    assert_eq!(s.agent, Agent::Gemini);
    // Gemini records no cwd; the project comes from the store layout (scan).
    assert_eq!(s.cwd, None);
    assert_eq!(s.project, None);
    // Every request points at an assistant message that carries the same usage.
    for r in &s.requests {
        let m = &s.messages[r.message_index.expect("message index")];
        assert_eq!(m.role, Role::Assistant);
        assert_eq!(m.usage.as_deref(), Some(&r.usage));
    }
    // Every compaction has exactly one marker, right before `message_index`.
    for (i, c) in s.compactions.iter().enumerate() {
        let marker = &s.messages[c.message_index - 1];
        assert_eq!(marker.parts, vec![Part::Compaction { index: i }]);
    }
}

/// A file of the corpus's Gemini folder (the tests using it are ignored when it is absent;
/// build.rs).
fn corpus(name: &str) -> PathBuf {
    Path::new(env!("SESSIONS_CORPUS_DIR"))
        .join("gemini")
        .join(name)
}

fn home(rel: &str) -> PathBuf {
    Path::new(HOME).join(rel)
}

// ------------------------------------------------------------------------------------------
// Corpus

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_v039_jsonl_reappends() {
    let p = corpus("real-jsonl-2026-04-23-v0.39.jsonl");
    let s = parse(&p, FileRole::GeminiSession);
    // TOK F → 6 153635 48951 4293 2141 206879
    // IDS F → {gemini: 6, user: 3, info: 2}, 12 calls, 5 gemini messages with results
    //   → 11 + 5 Tool messages = 16. Users: "/init" (displayContent; human), "System: Please
    //   continue." (displayContent is a functionResponse: harness, not human), one typed prompt.
    // head -1 F → sessionId 0ab84937-…; models in order: gemini-3-flash-preview, gemini-3.1-pro-preview
    check(
        &s,
        &Expect {
            id: "0ab84937-9fe7-4284-986a-33c832af0b6a",
            messages: 16,
            user_turns: 2,
            assistant: 6,
            tool_calls: 12,
            tool_errors: 0,
            requests: 6,
            tokens: [153635, 48951, 0, 4293, 2141, 206879],
            compactions: 0,
            warnings: 0,
            models: &["gemini-3-flash-preview", "gemini-3.1-pro-preview"],
        },
    );
    assert_eq!(
        s.project_hash.as_deref(),
        Some("9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea")
    );
    assert!(s.messages.iter().all(|m| !m.superseded));
    let infos = s
        .messages
        .iter()
        .filter(|m| m.subtype.as_deref() == Some("info"));
    assert_eq!(infos.count(), 2);
    // The re-appended message keeps its first position: the last line holding `42a121a5` is
    // its second copy, yet the message sits before the final info.
    let last = &s.messages[s.messages.len() - 1];
    assert_eq!(last.text(), "Request cancelled.");
    assert_eq!(s.title, None);
    assert_eq!(
        s.started_at.unwrap().to_rfc3339(),
        "2026-04-23T12:52:52.759+00:00"
    );
    assert_eq!(
        s.updated_at.unwrap().to_rfc3339(),
        "2026-04-23T12:58:35.591+00:00"
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_legacy_json() {
    let p = corpus("real-legacy-json-2025-10-05.json");
    let s = parse(&p, FileRole::GeminiSession);
    // LTOK F → 18 140022 326620 6944 3642 473586
    // python3 -c 'import json,collections;M=json.load(open(F))["messages"];
    //   print(collections.Counter(m["type"] for m in M),sum(len(m.get("thoughts",[])) for m in M))'
    //   → {gemini: 18, user: 1}, 30 thoughts; no toolCalls
    check(
        &s,
        &Expect {
            id: "eefc44a3-0832-4bc0-ac33-fa668f038213",
            messages: 19,
            user_turns: 1,
            assistant: 18,
            tool_calls: 0,
            tool_errors: 0,
            requests: 18,
            tokens: [140022, 326620, 0, 6944, 3642, 473586],
            compactions: 0,
            warnings: 0,
            models: &["gemini-2.5-pro"],
        },
    );
    let thinking = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::Thinking { .. }))
        .count();
    assert_eq!(thinking, 30);
    // The first request: tokens {input 7228, output 94, cached 0, thoughts 2659}.
    assert_eq!(s.requests[0].prompt_tokens, Some(7228));
    assert_eq!(s.requests[0].usage.output, 94 + 2659);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_v040_schema() {
    let p = corpus("schema-jsonl-v0.40-set-records.jsonl");
    let s = parse(&p, FileRole::GeminiSession);
    // TOK F → 2 12422 11502 228 0 24152
    // IDS F → {gemini: 2, user: 1}, 1 call, 1 message with results → 3 + 1 Tool = 4
    check(
        &s,
        &Expect {
            id: "gemini_stage0_jsonl",
            messages: 4,
            user_turns: 1,
            assistant: 2,
            tool_calls: 1,
            tool_errors: 0,
            requests: 2,
            tokens: [12422, 11502, 0, 228, 0, 24152],
            compactions: 0,
            warnings: 0,
            models: &["gemini-3-flash-preview"],
        },
    );
    assert_eq!(s.messages[2].role, Role::Tool);
}

// ------------------------------------------------------------------------------------------
// testdata/home/.gemini (see its README.md)

#[test]
fn fixture_legacy_json_hash_dir() {
    let p = home(&format!(
        "{HW}/chats/session-2026-03-04T09-15-a1b2c3d4.json"
    ));
    let s = parse(&p, FileRole::GeminiSession);
    // LTOK F → 3 10412 17300 775 355 28487 (f1-g4 has tokens: null)
    // python3 -c 'import json;M=json.load(open(F))["messages"];print([m["type"] for m in M],
    //   [(c["id"][:5],c["status"]) for m in M for c in m.get("toolCalls",[])])'
    //   → user gemini gemini error user gemini gemini; 4 calls, 1 error; 3 messages with results
    //   → 7 + 3 Tool messages = 10
    check(
        &s,
        &Expect {
            id: "a1b2c3d4-1111-4aaa-8aaa-000000000001",
            messages: 10,
            user_turns: 2,
            assistant: 4,
            tool_calls: 4,
            tool_errors: 1,
            requests: 3,
            tokens: [10412, 17300, 0, 775, 355, 28487],
            compactions: 0,
            warnings: 0,
            models: &["gemini-2.5-pro"],
        },
    );
    assert_eq!(s.project_hash.as_deref(), Some(HW));
    assert_eq!(s.kind, SessionKind::Main);
    assert_eq!(s.messages[5].subtype.as_deref(), Some("error"));
}

#[test]
fn fixture_old_important_infos() {
    let p = home(&format!(
        "{HW}/chats/session-2026-03-20T13-05-d4e5f6a7.json"
    ));
    let s = parse(&p, FileRole::GeminiSession);
    // LTOK F → 3 1400 200 180 10 1780; 8 records + 2 markers = 10 messages
    check(
        &s,
        &Expect {
            id: "d4e5f6a7-4444-4ddd-8ddd-000000000004",
            messages: 10,
            user_turns: 3,
            assistant: 3,
            tool_calls: 0,
            tool_errors: 0,
            requests: 3,
            tokens: [1400, 200, 0, 180, 10, 1780],
            compactions: 2,
            warnings: 0,
            models: &["gemini-2.5-pro"],
        },
    );
    // grep -o 'compressed from: [^)]*' F → "1000 to 200 tokens", "unknown to 150 tokens"
    let c: Vec<_> = s
        .compactions
        .iter()
        .map(|c| {
            (
                c.kind,
                c.trigger,
                c.tokens_before,
                c.tokens_after,
                c.tokens_provenance,
                c.message_index,
                c.request_index,
            )
        })
        .collect();
    assert_eq!(
        c,
        [
            (
                CompactionKind::GeminiInfo,
                Trigger::Auto,
                Some(1000),
                Some(200),
                Provenance::Recorded,
                3,
                1
            ),
            (
                CompactionKind::GeminiInfo,
                Trigger::Auto,
                None,
                Some(150),
                Provenance::Recorded,
                7,
                2
            ),
        ]
    );
}

fn webapp_jsonl_expect() -> Expect {
    // TOK F → 3 15500 24000 770 220 40270 (f2-g2's second copy has output 320: last wins)
    // IDS F → {gemini: 3, user: 2, info: 1}, 2 calls, 2 messages with results → 6 + 2 = 8
    Expect {
        id: "b2c3d4e5-2222-4bbb-8bbb-000000000002",
        messages: 8,
        user_turns: 2,
        assistant: 3,
        tool_calls: 2,
        tool_errors: 0,
        requests: 3,
        tokens: [15500, 24000, 0, 770, 220, 40270],
        compactions: 0,
        warnings: 0,
        models: &["gemini-3-flash-preview", "gemini-3.1-pro-preview"],
    }
}

#[test]
fn fixture_v039_jsonl_and_its_slug_copy() {
    let hash = parse(
        &home(&format!(
            "{HW}/chats/session-2026-04-14T16-40-b2c3d4e5.jsonl"
        )),
        FileRole::GeminiSession,
    );
    check(&hash, &webapp_jsonl_expect());
    // grep -c telemetry F → 1; grep -o '"summary":"[^"]*"' F → Speed up the login page
    assert_eq!(
        hash.other_records,
        vec![("gemini:telemetry".to_string(), 1)]
    );
    assert_eq!(hash.title.as_deref(), Some("Speed up the login page"));
    assert!(hash.title_is_explicit);
    assert_eq!(
        hash.updated_at.unwrap().to_rfc3339(),
        "2026-04-14T16:52:00+00:00"
    );

    // The slug-dir copy: same lines plus one later `$set lastUpdated` (diff the two files).
    let copy = parse(
        &home("webapp/chats/session-2026-04-14T16-40-b2c3d4e5.jsonl"),
        FileRole::GeminiSession,
    );
    check(&copy, &webapp_jsonl_expect());
    assert_eq!(
        copy.updated_at.unwrap().to_rfc3339(),
        "2026-04-15T08:00:00+00:00"
    );
    assert_eq!(copy.project_hash, hash.project_hash);
}

#[test]
fn fixture_legacy_json_beside_migrated_jsonl() {
    let json = parse(
        &home("webapp/chats/session-2026-05-06T10-00-c3d4e5f6.json"),
        FileRole::GeminiSession,
    );
    // LTOK F.json → 1 5000 0 160 100 5160
    check(
        &json,
        &Expect {
            id: "c3d4e5f6-3333-4ccc-8ccc-000000000003",
            messages: 2,
            user_turns: 1,
            assistant: 1,
            tool_calls: 0,
            tool_errors: 0,
            requests: 1,
            tokens: [5000, 0, 0, 160, 100, 5160],
            compactions: 0,
            warnings: 0,
            models: &["gemini-2.5-flash"],
        },
    );
    let jsonl = parse(
        &home("webapp/chats/session-2026-05-06T10-00-c3d4e5f6.jsonl"),
        FileRole::GeminiSession,
    );
    // TOK F.jsonl → 2 6000 5000 190 100 11190
    check(
        &jsonl,
        &Expect {
            id: "c3d4e5f6-3333-4ccc-8ccc-000000000003",
            messages: 4,
            user_turns: 2,
            assistant: 2,
            tool_calls: 0,
            tool_errors: 0,
            requests: 2,
            tokens: [6000, 5000, 0, 190, 100, 11190],
            compactions: 0,
            warnings: 0,
            models: &["gemini-2.5-flash"],
        },
    );
    assert!(jsonl.updated_at > json.updated_at);
}

#[test]
fn fixture_v044_compress_mask_rewind() {
    let rel = "api-server/chats/session-2026-06-10T08-30-e5f6a7b8.jsonl";
    let s = parse(
        &common::damaged(&format!(".gemini/tmp/{rel}")),
        FileRole::GeminiSession,
    );
    common::assert_same_but_clean(&s, &parse(&home(rel), FileRole::GeminiSession));
    // TOK F → 10 35000 58800 1045 300 94845 (f5-g10 was rewound away but was paid for)
    // IDS F, also counting the ids inside `$set.messages` (README check script) → 34 unique
    //   records {user: 18, gemini: 14, info: 2} + 3 markers = 37 messages; functionResponse
    //   user messages carry every result, so no extra Tool messages.
    // Users: env (d04923d3…), 7 typed prompts incl. "/compress", 2 snapshots, 1 kept-turn
    //   copy, 7 functionResponse carriers. Assistants: 10 + 2 acks + 2 kept-turn copies = 14.
    // Calls rf01 ed02 wr03 ed04 sh05 sh06; `grep -c '"error":' F` lines → only ed02 errors.
    // Bad lines: 12 (malformed), 38 (truncated, no newline).
    check(
        &s,
        &Expect {
            id: "e5f6a7b8-5555-4eee-8eee-000000000005",
            messages: 37,
            user_turns: 7,
            assistant: 14,
            tool_calls: 6,
            tool_errors: 1,
            requests: 10,
            tokens: [35000, 58800, 0, 1045, 300, 94845],
            compactions: 3,
            warnings: 2,
            models: &["gemini-3-flash-preview"],
        },
    );
    let w: Vec<_> = s.warnings.iter().map(|w| (w.kind, w.line)).collect();
    assert_eq!(
        w,
        [
            (WarningKind::MalformedLine, Some(12)),
            (WarningKind::TruncatedLastLine, Some(38))
        ]
    );
    assert_eq!(s.project_hash.as_deref(), Some(HA));
    // Replaying the log (README: check script) leaves 22 records superseded: 7 by the first
    // compression, 11 by the second, 2 by masking (info + unmasked carrier), 2 by the rewind.
    assert_eq!(s.messages.iter().filter(|m| m.superseded).count(), 22);
    assert_eq!(
        s.first_prompt().as_deref(),
        Some("Add rate limiting to the /login route")
    );
    assert_eq!(
        s.messages[0].subtype.as_deref(),
        Some("environment_context")
    );

    // Estimates from the README check script (UTF-8 bytes / 4 rounded up per part).
    let c: Vec<_> = s
        .compactions
        .iter()
        .map(|c| {
            (
                c.kind,
                c.trigger,
                c.message_index,
                c.request_index,
                c.messages_before,
                c.messages_after,
                c.tokens_before,
                c.tokens_after,
                c.percent_before,
                c.percent_after,
            )
        })
        .collect();
    assert_eq!(
        c,
        [
            (
                CompactionKind::GeminiSnapshot,
                Trigger::Manual,
                9,
                3,
                Some(8),
                Some(3),
                Some(227),
                Some(207),
                None,
                None
            ),
            (
                CompactionKind::GeminiSnapshot,
                Trigger::Auto,
                21,
                7,
                Some(11),
                Some(7),
                Some(348),
                Some(255),
                Some(62),
                Some(18)
            ),
            (
                CompactionKind::GeminiMasking,
                Trigger::Auto,
                34,
                9,
                Some(12),
                Some(11),
                Some(352),
                Some(339),
                None,
                None
            ),
        ]
    );
    assert!(
        s.compactions
            .iter()
            .all(|c| c.kind == CompactionKind::GeminiMasking
                || c.tokens_provenance == Provenance::Estimated)
    );
    assert_eq!(
        s.compactions[0].sections,
        [
            "overall_goal",
            "active_constraints",
            "key_knowledge",
            "artifact_trail",
            "file_system_state",
            "recent_actions",
            "task_state"
        ]
    );
    assert_eq!(
        s.compactions[1].sections,
        [
            "overall_goal",
            "key_knowledge",
            "file_system_state",
            "recent_actions",
            "current_plan"
        ]
    );
    assert!(
        s.compactions[1]
            .summary
            .as_deref()
            .unwrap()
            .starts_with("Scratchpad:")
    );
    assert_eq!(s.compactions[2].extra["masked_call_ids"][0], "sh06");
}

#[test]
fn fixture_subagent() {
    let p = home(
        "api-server/chats/e5f6a7b8-5555-4eee-8eee-000000000005/7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl",
    );
    let s = parse(
        &p,
        FileRole::GeminiSubagent {
            parent_session: "e5f6a7b8-5555-4eee-8eee-000000000005".into(),
        },
    );
    // TOK F → 2 3700 2800 240 120 6740 (f6-g1 appears twice, identical)
    // IDS F → {gemini: 2, user: 1}, 1 call, 1 message with results → 3 + 1 Tool = 4
    check(
        &s,
        &Expect {
            id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
            messages: 4,
            user_turns: 1,
            assistant: 2,
            tool_calls: 1,
            tool_errors: 0,
            requests: 2,
            tokens: [3700, 2800, 0, 240, 120, 6740],
            compactions: 0,
            warnings: 0,
            models: &["gemini-3-flash-preview"],
        },
    );
    assert_eq!(s.kind, SessionKind::Subagent);
    assert_eq!(
        s.parent_id.as_deref(),
        Some("e5f6a7b8-5555-4eee-8eee-000000000005")
    );
}

#[test]
fn fixture_json_object_snapshot() {
    let p = home("ml-notebooks/chats/session-2026-07-22T14-00-f6a7b8c9.jsonl");
    let s = parse(&p, FileRole::GeminiSession);
    // TOK F → 2 52020 0 950 550 52970; 6 records + 1 marker
    check(
        &s,
        &Expect {
            id: "f6a7b8c9-6666-4fff-8fff-000000000006",
            messages: 7,
            user_turns: 2,
            assistant: 2,
            tool_calls: 0,
            tool_errors: 0,
            requests: 2,
            tokens: [52020, 0, 0, 950, 550, 52970],
            compactions: 1,
            warnings: 0,
            models: &["gemini-3.1-pro-preview"],
        },
    );
    assert_eq!(s.project_hash.as_deref(), Some(HM));
    let c = &s.compactions[0];
    assert_eq!(c.kind, CompactionKind::GeminiJsonSnapshot);
    assert_eq!(
        (
            c.message_index,
            c.request_index,
            c.messages_before,
            c.messages_after
        ),
        (4, 1, Some(3), Some(2))
    );
    assert_eq!((c.tokens_before, c.tokens_after), (Some(70), Some(116)));
    assert_eq!(
        c.sections,
        [
            "active_tasks",
            "discovered_facts",
            "constraints_and_preferences",
            "recent_arc"
        ]
    );
}

#[test]
fn fixture_unknown_hash_dir() {
    let p = home(&format!(
        "{HU}/chats/session-2026-08-30T19-45-a7b8c9d0.jsonl"
    ));
    let s = parse(&p, FileRole::GeminiSession);
    // TOK F → 1 1500 0 45 0 1545; users: <hook_context> (not human) + one prompt
    check(
        &s,
        &Expect {
            id: "a7b8c9d0-7777-4aaa-9aaa-000000000007",
            messages: 4,
            user_turns: 1,
            assistant: 1,
            tool_calls: 0,
            tool_errors: 0,
            requests: 1,
            tokens: [1500, 0, 0, 45, 0, 1545],
            compactions: 0,
            warnings: 0,
            models: &["gemini-2.5-flash"],
        },
    );
    assert_eq!(s.project_hash.as_deref(), Some(HU));
    assert_eq!(s.messages[3].subtype.as_deref(), Some("warning"));
}

#[test]
fn fixture_saved_chat() {
    let p = home("api-server/checkpoint-mytag.json");
    let s = parse(&p, FileRole::GeminiCheckpoint);
    // python3 -c 'import json;print([c["role"] for c in json.load(open(F))["history"]])'
    //   → user user model user model user model: env, snapshot, ack, prompt, call, response,
    //   answer → 7 + 1 marker; no tokens anywhere.
    check(
        &s,
        &Expect {
            id: "checkpoint-mytag",
            messages: 8,
            user_turns: 1,
            assistant: 3,
            tool_calls: 1,
            tool_errors: 0,
            requests: 0,
            tokens: [0; 6],
            compactions: 1,
            warnings: 0,
            models: &[],
        },
    );
    assert_eq!(s.title.as_deref(), Some("saved chat mytag"));
    assert_eq!(s.project_hash, None);
    let c = &s.compactions[0];
    assert_eq!(c.kind, CompactionKind::GeminiSnapshot);
    // README check script: Σ ceil(bytes/4) over the 7 history entries = 172
    assert_eq!(
        (c.message_index, c.messages_after, c.tokens_after),
        (2, Some(7), Some(172))
    );
    assert_eq!(
        c.sections,
        [
            "overall_goal",
            "key_knowledge",
            "file_system_state",
            "recent_actions",
            "current_plan"
        ]
    );
}
