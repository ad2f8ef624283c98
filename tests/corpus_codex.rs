//! The Codex parser against the public corpus (`../shared/corpus/codex`, read-only) and against
//! the hand-made sample home (`testdata/home/.codex`).
//!
//! Every expected number below was computed outside this crate, from the raw files:
//! `jq` for single fields (the command is above each block), and for the derived counts
//! (messages, user turns, assistant messages, distinct tool calls, tool errors, compactions) the
//! stand-alone Python reading of the rules below, run as `python3 ref.py <file>`:
//!
//! ```python
//! import json, sys
//! ASST = {'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call',
//!         'tool_search_call', 'image_generation_call'}
//! OUT = {'function_call_output', 'custom_tool_call_output', 'tool_search_output'}
//! HARNESS = ('<environment_context', '<user_instructions', '# AGENTS.md', '<INSTRUCTIONS>', '<permissions')
//! def text_of(c): return '\n'.join(x.get('text', '') for x in (c or []) if isinstance(x, dict)
//!                                  and x.get('type') in ('input_text', 'output_text', 'text'))
//! def key(t):
//!     t = t.strip(); m = '## My request for Codex:'
//!     return t.split(m, 1)[1].strip() if t.startswith('# Context from my IDE setup') and m in t else t
//! def err(o):
//!     if isinstance(o, str):
//!         try: j = json.loads(o)
//!         except Exception: j = None
//!         if isinstance(j, dict) and 'output' in j: return j.get('metadata', {}).get('exit_code', 0) != 0
//!         if isinstance(j, list): o = '\n'.join(x.get('text', '') for x in j)
//!         t = o.lstrip()
//!         if t.startswith('Exit code: '): return not t.startswith('Exit code: 0')
//!         return t[:40].lower().startswith(('error:', 'err:', 'tool call error', 'failed in sandbox',
//!                                           'aborted', 'patch rejected'))
//!     if isinstance(o, dict): return o.get('success') is False
//!     return False
//! def load(l):
//!     try: return json.loads(l)
//!     except ValueError: return None
//! recs = [r for r in (load(l) for l in open(sys.argv[1], encoding='utf-8') if l.strip()) if isinstance(r, dict)]
//! msgs = []; cur = None; prev = None; copies = []; events = []; saw_event = False
//! calls = set(); errs = set(); comps = 0
//! for o in recs:
//!     if 'record_type' in o: continue
//!     env = 'payload' in o
//!     if env and o['type'] == 'session_meta' and o is recs[0]: continue
//!     p = o['payload'] if env else o
//!     kind = o['type'] if env else 'response_item'
//!     k = p.get('type')
//!     if kind == 'event_msg' and k == 'token_count' and isinstance(p.get('info'), dict):
//!         t = p['info']['total_token_usage']
//!         tv = [t.get(x, 0) for x in ('input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens')]
//!         if tv != prev and any(tv if prev is None or any(a < b for a, b in zip(tv, prev)) else [a - b for a, b in zip(tv, prev)]):
//!             cur = None   # a counted request ends the assistant message
//!         prev = tv
//!     elif kind == 'event_msg' and (k == 'user_message' or (k == 'item_completed' and p['item'].get('type') == 'UserMessage')):
//!         saw_event = True
//!         t = key(p['message'] if k == 'user_message' else text_of(p['item']['content']))
//!         hit = [c for c in copies if c[1] == t]
//!         if hit: copies.remove(hit[0]); msgs[hit[0][0]][1] = True
//!         else: msgs.append(['U', True]); events.append(t); cur = None
//!     elif kind == 'event_msg' and k == 'context_compacted':
//!         if cur == 'K' and not kflags['ev']: kflags['ev'] = True
//!         else: comps += 1; msgs.append(['S', False]); cur = 'K'; kflags = {'line': False, 'ev': True}
//!     elif kind == 'event_msg' and (k == 'turn_aborted' or (k == 'error' and (p.get('message') or '').strip())
//!                                   or (k == 'task_complete' and isinstance(p.get('error'), dict)
//!                                       and (p['error'].get('message') or '').strip())):
//!         msgs.append(['S', False]); cur = 'S'   # a notice: why a turn has no answer
//!     elif kind == 'compacted':
//!         if cur == 'K' and not kflags['line']: kflags['line'] = True
//!         else: comps += 1; msgs.append(['S', False]); kflags = {'line': True, 'ev': False}
//!         if p.get('message'): msgs.append(['U', False])
//!         cur = 'K'
//!     elif kind == 'response_item':
//!         if k in ASST or (k == 'message' and p.get('role') == 'assistant'):
//!             if k in ASST and k != 'reasoning': calls.add(p.get('call_id') or p.get('id'))
//!             readable = k != 'reasoning' or any(x.get('text') for x in (p.get('summary') or []) + (p.get('content') or []))
//!             if readable and cur != 'A': msgs.append(['A', False]); cur = 'A'
//!         elif k in OUT:
//!             if k != 'tool_search_output' and err(p.get('output')): errs.add(p.get('call_id'))
//!             if cur != 'T': msgs.append(['T', False]); cur = 'T'
//!         elif k == 'message' and p.get('role') == 'user':
//!             t = text_of(p['content'])
//!             if t.strip().startswith(HARNESS): msgs.append(['U', False]); cur = 'U'
//!             elif key(t) in events: events.remove(key(t))
//!             else: msgs.append(['U', False]); copies.append((len(msgs) - 1, key(t))); cur = 'U'
//!         elif k == 'message' or k == 'agent_message': msgs.append(['S', False]); cur = 'S'
//! if not saw_event:
//!     for i, _ in copies: msgs[i][1] = True
//! print(len(msgs), sum(1 for m in msgs if m[1]), sum(1 for m in msgs if m[0] == 'A'), len(calls), len(errs), comps)
//! ```
//!
//! It knows nothing of replayed parent prefixes: for the sub-agent and fork fixtures the numbers
//! were worked out by hand from the lines after the replay (see `testdata/home/.codex/README.md`).

use crate::common;

use std::path::{Path, PathBuf};

use sessions::model::*;
use sessions::parse::{FileRole, SourceFile, parse_file};

/// The corpus's Codex folder (the tests using it are ignored when it is absent; build.rs).
fn corpus_dir() -> PathBuf {
    Path::new(env!("SESSIONS_CORPUS_DIR")).join("codex")
}

fn home() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home/.codex"))
}

fn load(path: &Path) -> Session {
    let role = if path.to_string_lossy().ends_with(".json") {
        FileRole::CodexLegacyJson
    } else {
        FileRole::CodexRollout
    };
    parse_file(&SourceFile::new(Agent::Codex, path.to_path_buf(), role))
        .unwrap_or_else(|w| panic!("{}: {w}", path.display()))
}

/// What one file must parse to.
struct Expect {
    id: &'static str,
    cwd: Option<&'static str>,
    kind: SessionKind,
    parent: Option<&'static str>,
    version: Option<&'static str>,
    branch: Option<&'static str>,
    models: &'static [&'static str],
    /// messages, user turns, assistant messages, distinct tool calls, tool errors
    counts: (usize, u64, u64, u64, u64),
    /// uncached input, cache read, cache write, output, reasoning
    tokens: (u64, u64, u64, u64, u64),
    requests: usize,
    compactions: usize,
    warnings: usize,
}

fn check(s: &Session, e: &Expect) {
    let what = s.path.display().to_string();
    assert_eq!(s.agent, Agent::Codex, "{what}");
    assert_eq!(s.id, e.id, "{what}: id");
    assert_eq!(s.cwd.as_deref(), e.cwd, "{what}: cwd");
    assert_eq!(s.kind, e.kind, "{what}: kind");
    assert_eq!(s.parent_id.as_deref(), e.parent, "{what}: parent");
    assert_eq!(s.agent_version.as_deref(), e.version, "{what}: version");
    assert_eq!(s.git_branch.as_deref(), e.branch, "{what}: branch");
    assert_eq!(s.models, e.models, "{what}: models");
    let c = s.counts();
    let got = (
        s.messages.len(),
        c.user_turns,
        c.assistant_messages,
        c.tool_calls,
        c.tool_errors,
    );
    assert_eq!(
        got, e.counts,
        "{what}: (messages, user turns, assistant, tool calls, tool errors)"
    );
    let u = s.usage();
    let got = (u.input, u.cache_read, u.cache_write, u.output, u.reasoning);
    assert_eq!(
        got, e.tokens,
        "{what}: (input, cache_read, cache_write, output, reasoning)"
    );
    assert_eq!(
        u.total(),
        e.tokens.0 + e.tokens.1 + e.tokens.2 + e.tokens.3,
        "{what}: total"
    );
    assert_eq!(s.requests.len(), e.requests, "{what}: requests");
    assert_eq!(s.compactions.len(), e.compactions, "{what}: compactions");
    assert_eq!(
        s.messages
            .iter()
            .filter(|m| m.subtype.as_deref() == Some("compaction"))
            .count(),
        e.compactions,
        "{what}: compaction markers"
    );
    assert_eq!(
        s.warnings.len(),
        e.warnings,
        "{what}: warnings {:?}",
        s.warnings
    );
    // Message usage and request usage describe the same calls.
    let mut per_message = Usage::default();
    for m in &s.messages {
        if let Some(mu) = &m.usage {
            assert_eq!(
                m.role,
                Role::Assistant,
                "{what}: usage on a non-assistant message"
            );
            per_message.add(mu);
        }
    }
    if s.requests.iter().all(|r| r.message_index.is_some()) {
        assert_eq!(per_message, u, "{what}: message usage");
    }
}

// ------------------------------------------------------------------------------- corpus

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_real_0_39_shell_calls() {
    let dir = corpus_dir();
    let s = load(&dir.join("real-0.39.0-shell-calls.jsonl"));
    // jq -c 'select(.type=="session_meta").payload|[.id,.cwd,.cli_version,.git.branch]' F
    //   → ["01996135-afde-7911-97f0-d863511eca56","/proj/ds906659/gai/claude-code","0.39.0","main"]
    // jq -r 'select(.type=="turn_context").payload.model' F | sort -u → aide-gpt-5
    // python3 ref.py F → 39 messages, 1 user turn, 19 assistant, 18 calls, 1 error (patch rejected)
    // jq -c 'select(.payload.type=="token_count" and .payload.info!=null)
    //        .payload.info.total_token_usage' F | uniq | wc -l → 19 (no duplicates; totals strictly
    //   increase, so the last total is the sum of the deltas):
    //   {"input_tokens":270530,"cached_input_tokens":136832,"output_tokens":12551,
    //    "reasoning_output_tokens":9536,"total_tokens":283081} → uncached 270530-136832 = 133698
    check(
        &s,
        &Expect {
            id: "01996135-afde-7911-97f0-d863511eca56",
            cwd: Some("/proj/ds906659/gai/claude-code"),
            kind: SessionKind::Main,
            parent: None,
            version: Some("0.39.0"),
            branch: Some("main"),
            models: &["aide-gpt-5"],
            counts: (39, 1, 19, 18, 1),
            tokens: (133_698, 136_832, 0, 12_551, 9_536),
            requests: 19,
            compactions: 0,
            warnings: 0,
        },
    );
    assert_eq!(s.usage().total(), 283_081);
    // The IDE preamble is not part of the human prompt.
    let prompt = s.first_prompt().unwrap();
    assert!(prompt.starts_with("幫我檢查一下 go.mod"), "{prompt}");
    // 0.39 writes token_count before the items of its response: the first request produced the
    // first assistant message, the last one the final answer.
    let first_asst = s.messages.iter().position(|m| m.role == Role::Assistant);
    assert_eq!(s.requests[0].message_index, first_asst);
    let last_asst = s.messages.iter().rposition(|m| m.role == Role::Assistant);
    assert_eq!(s.requests.last().unwrap().message_index, last_asst);
    // jq: line 81 output is "patch rejected: empty patch" for call_K62tgMeXmdZijajRwxYxUb2i
    let errors: Vec<&str> = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult {
                call_id,
                is_error: true,
                ..
            } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(errors, vec!["call_K62tgMeXmdZijajRwxYxUb2i"]);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_real_bare_era() {
    let dir = corpus_dir();
    let s = load(&dir.join("real-bare-era-2025-09-10-no-envelope.jsonl"));
    // head -1 F | jq -c '[.id,.timestamp,.git.branch]'
    //   → ["cf4def41-21e0-4b91-adb4-5397c1492084","2025-09-10T18:58:38.331Z","main"]
    // grep -o '<cwd>[^<]*</cwd>' F | head -1 → /home/user/projects/codex-session-viewer
    // no turn_context, no cli_version, no token_count: no model, version or usage
    // python3 ref.py F → 584 messages, 45 user turns, 291 assistant, 246 calls, 22 errors
    //   (1 exit_code 2, 8 "error: Failed to find expected lines", 7 "tool call error",
    //    5 "failed in sandbox", 1 MCP text "Error: Tag \"logging\" not found.")
    // grep -c record_type F → 628
    check(
        &s,
        &Expect {
            id: "cf4def41-21e0-4b91-adb4-5397c1492084",
            cwd: Some("/home/user/projects/codex-session-viewer"),
            kind: SessionKind::Main,
            parent: None,
            version: None,
            branch: Some("main"),
            models: &[],
            counts: (584, 45, 291, 246, 22),
            tokens: (0, 0, 0, 0, 0),
            requests: 0,
            compactions: 0,
            warnings: 0,
        },
    );
    assert_eq!(
        s.started_at.map(|t| t.to_rfc3339()),
        Some("2025-09-10T18:58:38.331+00:00".to_string())
    );
    assert!(
        s.other_records
            .contains(&("codex:record_type:state".to_string(), 628))
    );
    assert_eq!(s.messages[0].subtype.as_deref(), Some("instructions"));
    assert_eq!(
        s.messages[1].subtype.as_deref(),
        Some("environment_context")
    );
    assert_eq!(
        s.first_prompt().as_deref(),
        Some("What's the next task I should work on? Please consider dependencies and priorities.")
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_schema_all_record_types() {
    let dir = corpus_dir();
    let s = load(&dir.join("schema-0.14x-all-record-types.jsonl"));
    // head -1 F | jq -c '.payload|[.id,.cwd,.cli_version,.git.branch]'
    //   → ["019fc8be-3658-7ca3-9e29-000000000000","/tmp/repo","0.146.0","main"]
    //   (the only session_meta with real values; the six later ones are buckets: tallied)
    // jq -r 'select(.type=="turn_context").payload.model' F | awk '!s[$0]++'
    //   → gpt-5.6-luna gpt-5.5 codex-auto-review gpt-5.4 gpt-5.2 gpt-5.2-codex gpt-5.1 gpt-5.6-sol
    // jq -c 'select(.payload.type=="token_count" and .payload.info!=null).payload.info.total_token_usage' F
    //   → 16341/3584/81/63 then all zeros (a reset to zero usage: no request) → uncached 12757
    // python3 ref.py F → 36 messages, 4 user turns (3 user_message + 1 item_completed
    //   UserMessage), 8 assistant, 5 distinct calls, 0 errors, 7 compactions (6 compacted lines
    //   + the lone context_compacted of line 19, which has tool output after it)
    // jq -r 'select(.payload.type=="thread_name_updated").payload.thread_name' F → [trimmed for fixture]
    check(
        &s,
        &Expect {
            id: "019fc8be-3658-7ca3-9e29-000000000000",
            cwd: Some("/tmp/repo"),
            kind: SessionKind::Main,
            parent: None,
            version: Some("0.146.0"),
            branch: Some("main"),
            models: &[
                "gpt-5.6-luna",
                "gpt-5.5",
                "codex-auto-review",
                "gpt-5.4",
                "gpt-5.2",
                "gpt-5.2-codex",
                "gpt-5.1",
                "gpt-5.6-sol",
            ],
            counts: (36, 4, 8, 5, 0),
            tokens: (12_757, 3_584, 0, 81, 63),
            requests: 1,
            compactions: 7,
            // jq -n '[inputs|.timestamp]|map(select(.=="[trimmed for fixture]"))|length' F → 92
            // placeholders where a time was: each line is read, and its time said unknown.
            warnings: 92,
        },
    );
    assert!(
        s.warnings.iter().all(
            |w| w.line.is_some() && w.message.contains("\"[trimmed for fixture]\", not a time")
        ),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.title.as_deref(), Some("[trimmed for fixture]"));
    assert!(s.title_is_explicit);
    // grep -c '"type":"session_meta"' F → 7; world_state → 5
    assert!(
        s.other_records
            .contains(&("codex:session_meta".to_string(), 6))
    );
    assert!(
        s.other_records
            .contains(&("codex:world_state".to_string(), 5))
    );
    // Line 26: compacted {message:"", window_id:"w-2", window_number:2, replacement_history:[1 item]}
    let c = &s.compactions[1];
    assert_eq!(c.messages_after, Some(1));
    assert_eq!(c.summary, None);
    assert_eq!(c.extra["window_id"], "w-2");
    assert_eq!(c.tokens_before, Some(16_341));
    assert_eq!(c.trigger, Trigger::Auto);
    // The first compaction (line 19) precedes every recorded request.
    assert_eq!(s.compactions[0].trigger, Trigger::Unknown);
    assert_eq!(s.compactions[0].tokens_after, Some(16_341));
}

// ------------------------------------------------------------------------------- fixtures

const S1: &str =
    "sessions/2026/03/14/rollout-2026-03-14T09-15-02-019ceba0-adf0-7a31-8c42-5d1e2f3a4b01.jsonl";
const S2: &str =
    "sessions/2026/04/02/rollout-2026-04-02T14-30-00-019d4e99-de40-7b52-9d63-6e2f3a4b5c02.jsonl";
const PARENT: &str =
    "sessions/2026/05/20/rollout-2026-05-20T15-58-40-019e461c-4b80-7c73-ae84-7f3a4b5c6d03.jsonl";
const CHILD: &str =
    "sessions/2026/05/20/rollout-2026-05-20T16-00-05-019e461d-9788-7d94-bf95-8a4b5c6d7e04.jsonl";
const FORK: &str =
    "sessions/2026/06/11/rollout-2026-06-11T11-05-00-019eb65b-5760-7eb5-80a6-9b5c6d7e8f05.jsonl";
const BARE: &str =
    "sessions/2025/09/08/rollout-2025-09-08T10-20-30-5f0c2d1e-8b3a-4c6d-9e7f-1a2b3c4d5e6f.jsonl";
const TS: &str = "sessions/rollout-2025-04-18-a3b4c5d6-e7f8-4a9b-8c0d-1e2f3a4b5c6d.json";
const ZST: &str =
    "archived_sessions/rollout-2026-07-08T08-00-00-019f40bd-ac00-7fd6-91b7-ac6d7e8f9006.jsonl.zst";
const DUAL: &str =
    "archived_sessions/rollout-2026-08-19T17-45-10-01a01b20-8070-7017-a2c8-bd7e8f90a107.jsonl";

#[test]
fn fixture_webapp_duplicates_and_bad_line() {
    let s = load(&common::damaged(&format!(".codex/{S1}")));
    common::assert_same_but_clean(&s, &load(&home().join(S1)));
    // python3 ref.py S1 → 12 messages, 1 user turn, 5 assistant, 4 calls, 1 error (npm test exit 1)
    // jq -c 'select(.payload.type=="token_count" and .payload.info!=null)
    //        .payload.info.total_token_usage' S1 | uniq → 5 distinct, increasing; last =
    //   43050/33536/545/160 → uncached 43050-33536 = 9514 (7 token_count lines: 2 duplicates)
    // line 16 is a cut JSON object followed by a newline → 1 malformed-line warning
    check(
        &s,
        &Expect {
            id: "019ceba0-adf0-7a31-8c42-5d1e2f3a4b01",
            cwd: Some("/home/dev/webapp"),
            kind: SessionKind::Main,
            parent: None,
            version: Some("0.58.0"),
            branch: Some("feature/health"),
            models: &["gpt-5-codex"],
            counts: (12, 1, 5, 4, 1),
            tokens: (9_514, 33_536, 0, 545, 160),
            requests: 5,
            compactions: 0,
            warnings: 1,
        },
    );
    assert_eq!(s.warnings[0].line, Some(16));
    assert_eq!(s.title.as_deref(), Some("Health check endpoint"));
    assert!(s.title_is_explicit);
    assert!(
        s.other_records
            .contains(&("codex:token_count_duplicate".to_string(), 2))
    );
    assert!(
        s.other_records
            .contains(&("codex:future_kind".to_string(), 1))
    );
    assert_eq!(s.messages[0].role, Role::System);
    // The apply_patch freeform input is kept raw.
    let patch = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match p {
            Part::ToolCall { name, input, .. } if name == "apply_patch" => input.as_str(),
            _ => None,
        });
    assert!(patch.unwrap().starts_with("*** Begin Patch"));
}

#[test]
fn fixture_api_server_compactions_reset_and_truncation() {
    let s = load(&common::damaged(&format!(".codex/{S2}")));
    common::assert_same_but_clean(&s, &load(&home().join(S2)));
    // python3 ref.py S2 → 19 messages, 3 user turns ("/compact" included), 6 assistant, 4 calls,
    //   1 error ("Exit code: 1"), 2 compactions (compacted+context_compacted, then
    //   context_compacted+compacted)
    // tokens: deltas 12000/2048/180/128, 12500/11776/80/0, 9200/4096/80/32, 9300/8960/70/0, then the
    //   total drops to 7000 (reset → last_token_usage 6100/1024/150/64), then 6300/6144/52/0:
    //   raw input 55400, cached 34048 → uncached 21352; output 612; reasoning 224
    // the last line has no newline and is cut → 1 truncated-last-line warning
    check(
        &s,
        &Expect {
            id: "019d4e99-de40-7b52-9d63-6e2f3a4b5c02",
            cwd: Some("/home/dev/api-server"),
            kind: SessionKind::Main,
            parent: None,
            version: Some("0.63.0"),
            branch: Some("main"),
            models: &["gpt-5-codex", "gpt-5.1-codex-max"],
            counts: (19, 3, 6, 4, 1),
            tokens: (21_352, 34_048, 0, 612, 224),
            requests: 6,
            compactions: 2,
            warnings: 1,
        },
    );
    assert_eq!(s.warnings[0].line, Some(34));
    let models: Vec<Option<&str>> = s.requests.iter().map(|r| r.model.as_deref()).collect();
    assert_eq!(
        models[..3],
        [
            Some("gpt-5-codex"),
            Some("gpt-5-codex"),
            Some("gpt-5.1-codex-max")
        ]
    );
    let auto = &s.compactions[0];
    assert_eq!(auto.trigger, Trigger::Auto);
    assert_eq!(
        (auto.tokens_before, auto.tokens_after),
        (Some(12_500), Some(9_200))
    );
    assert_eq!(auto.tokens_provenance, Provenance::Recorded);
    assert_eq!(auto.messages_after, Some(2));
    assert_eq!(auto.request_index, 2);
    // The first message after its marker (index 7), as for every agent.
    assert_eq!(auto.message_index, 8);
    assert_eq!(s.messages[7].subtype.as_deref(), Some("compaction"));
    let manual = &s.compactions[1];
    assert_eq!(manual.trigger, Trigger::Manual);
    assert_eq!(
        (manual.tokens_before, manual.tokens_after),
        (Some(9_300), Some(6_100))
    );
    assert_eq!(manual.request_index, 4);
    assert!(
        manual
            .summary
            .as_deref()
            .unwrap()
            .ends_with("rolled back and re-deployed.")
    );
    // The screenshot came with the prompt: 1x1 PNG, 70 bytes decoded.
    let img = s.messages[2].parts.iter().find_map(|p| match p {
        Part::Image {
            media_type, bytes, ..
        } => Some((media_type.clone(), *bytes)),
        _ => None,
    });
    assert_eq!(img, Some((Some("image/png".to_string()), Some(70))));
}

#[test]
fn fixture_subagent_and_its_parent() {
    let parent = load(&home().join(PARENT));
    // python3 ref.py PARENT → 4 messages, 1 user turn, 2 assistant, 1 call, 0 errors
    // totals 9000/0/120/64 then 19500/8960/200/64 → uncached 10540
    check(
        &parent,
        &Expect {
            id: "019e461c-4b80-7c73-ae84-7f3a4b5c6d03",
            cwd: Some("/home/dev/webapp"),
            kind: SessionKind::Main,
            parent: None,
            version: Some("0.149.0"),
            branch: Some("main"),
            models: &["gpt-5.1-codex"],
            counts: (4, 1, 2, 1, 0),
            tokens: (10_540, 8_960, 0, 200, 64),
            requests: 2,
            compactions: 0,
            warnings: 0,
        },
    );
    assert_eq!(parent.subagents.len(), 1);
    assert_eq!(
        parent.subagents[0].id,
        "019e461d-9788-7d94-bf95-8a4b5c6d7e04"
    );
    assert_eq!(
        parent.subagents[0].tool_call_id.as_deref(),
        Some("call_p_01")
    );
    assert_eq!(parent.subagents[0].agent_type.as_deref(), Some("explorer"));

    let child = load(&home().join(CHILD));
    // jq -c '[.ordinal,.type,.payload.type]' CHILD: session_meta says
    //   subagent_history_start_ordinal 6; ordinals 1..5 are the parent's meta, turn_context,
    //   user_message, spawn call and token_count (total 9000/0/120/64): replayed.
    // Own lines: 2 counted token_counts, totals 13200/3968/210/128 and 17700/8320/250/128;
    //   minus the replayed baseline → raw input 8700, cached 8320, output 130, reasoning 64.
    // Own messages: developer (System), the task (human), reasoning+exec_command, its output,
    //   the final answer → 5 messages, 1 user turn, 2 assistant, 1 call.
    check(
        &child,
        &Expect {
            id: "019e461d-9788-7d94-bf95-8a4b5c6d7e04",
            cwd: Some("/home/dev/webapp"),
            kind: SessionKind::Subagent,
            parent: Some("019e461c-4b80-7c73-ae84-7f3a4b5c6d03"),
            version: Some("0.149.0"),
            branch: Some("main"),
            models: &["gpt-5.1-codex-mini"],
            counts: (5, 1, 2, 1, 0),
            tokens: (380, 8_320, 0, 130, 64),
            requests: 2,
            compactions: 0,
            warnings: 0,
        },
    );
    assert!(
        child
            .other_records
            .contains(&("codex:replayed".to_string(), 5))
    );
    assert!(
        !child
            .messages
            .iter()
            .any(|m| m.text().contains("Audit the webapp"))
    );
}

#[test]
fn fixture_fork_replay_and_rollback() {
    let s = load(&home().join(FORK));
    // jq -r '[.timestamp,.type,.payload.type] | @tsv' FORK: line 2 is the api-server session's
    //   session_meta; lines 2-8 are stamped 11:05:00 (replay burst), own lines start at 11:05:02.
    // Replayed baseline total 43000/26880/410/160 (+1 duplicate); own totals 52500/35840/470,
    //   62200/45312/515, 72000/55040/535 → raw input 29000, cached 28160, output 125, reasoning 0.
    // Own messages: 2 prompts, 3 assistant messages, 1 call + output → 6; the last turn (prompt +
    //   answer) is rolled back by thread_rolled_back{num_turns:1}.
    check(
        &s,
        &Expect {
            id: "019eb65b-5760-7eb5-80a6-9b5c6d7e8f05",
            cwd: Some("/home/dev/api-server"),
            kind: SessionKind::Main,
            parent: Some("019d4e99-de40-7b52-9d63-6e2f3a4b5c02"),
            version: Some("0.64.0"),
            branch: Some("main"),
            models: &["gpt-5.1-codex-max"],
            counts: (6, 2, 3, 1, 0),
            tokens: (840, 28_160, 0, 125, 0),
            requests: 3,
            compactions: 0,
            warnings: 0,
        },
    );
    let superseded: Vec<bool> = s.messages.iter().map(|m| m.superseded).collect();
    assert_eq!(superseded, vec![false, false, false, false, true, true]);
    assert_eq!(
        s.first_prompt().as_deref(),
        Some("Now switch the users cache to Redis")
    );
}

#[test]
fn fixture_bare_era() {
    let s = load(&home().join(BARE));
    // python3 ref.py BARE → 10 messages, 2 user turns, 4 assistant, 2 calls, 1 error (rg exit 1)
    // head -1 BARE | jq -c '[.id,.timestamp,.git.branch]'; cwd only in <environment_context>
    check(
        &s,
        &Expect {
            id: "5f0c2d1e-8b3a-4c6d-9e7f-1a2b3c4d5e6f",
            cwd: Some("/home/dev/webapp"),
            kind: SessionKind::Main,
            parent: None,
            version: None,
            branch: Some("main"),
            models: &[],
            counts: (10, 2, 4, 2, 1),
            tokens: (0, 0, 0, 0, 0),
            requests: 0,
            compactions: 0,
            warnings: 0,
        },
    );
    assert_eq!(
        s.first_prompt().as_deref(),
        Some("Why is the dark-mode toggle not persisted?")
    );
    assert_eq!(
        s.started_at.map(|t| t.to_rfc3339()),
        Some("2025-09-08T10:20:30.512+00:00".to_string())
    );
}

#[test]
fn fixture_ts_era_document() {
    let s = load(&home().join(TS));
    // jq '.session' TS → id a3b4c5d6-…, timestamp 2025-04-18T12:00:00.000Z, no cwd
    // jq -c '.items[] | [.type,.role,.call_id]' TS → user, reasoning (empty), 2 calls + outputs,
    //   assistant: 6 messages, 1 user turn, 3 assistant, 2 calls, 1 error (exit_code 2)
    check(
        &s,
        &Expect {
            id: "a3b4c5d6-e7f8-4a9b-8c0d-1e2f3a4b5c6d",
            cwd: None,
            kind: SessionKind::Main,
            parent: None,
            version: None,
            branch: None,
            models: &[],
            counts: (6, 1, 3, 2, 1),
            tokens: (0, 0, 0, 0, 0),
            requests: 0,
            compactions: 0,
            warnings: 0,
        },
    );
}

#[test]
fn fixture_archived_zstd_and_dual_copies() {
    let z = load(&home().join(ZST));
    // zstd -dc ZST | python3 ref.py /dev/stdin → 4 messages, 1 user turn, 2 assistant, 1 call
    // zstd -dc ZST | jq -c 'select(.payload.type=="token_count").payload.info.total_token_usage' | tail -1
    //   → 14300/6912/130/32 → uncached 7388
    check(
        &z,
        &Expect {
            id: "019f40bd-ac00-7fd6-91b7-ac6d7e8f9006",
            cwd: Some("/home/dev/webapp"),
            kind: SessionKind::Main,
            parent: None,
            version: Some("0.98.0"),
            branch: Some("main"),
            models: &["gpt-5.1-codex"],
            counts: (4, 1, 2, 1, 0),
            tokens: (7_388, 6_912, 0, 130, 32),
            requests: 2,
            compactions: 0,
            warnings: 0,
        },
    );
    assert!(
        !home().join(ZST.trim_end_matches(".zst")).exists(),
        "zst-only fixture"
    );

    let plain_path = home().join(DUAL);
    let zst_path = home().join(format!("{DUAL}.zst"));
    let raw = std::fs::read(&plain_path).unwrap();
    let unzipped = zstd::stream::decode_all(std::fs::File::open(&zst_path).unwrap()).unwrap();
    assert_eq!(raw, unzipped, "the two copies must hold the same rollout");
    let plain = load(&plain_path);
    // python3 ref.py DUAL → 4 messages, 1 user turn, 2 assistant, 1 call; last total
    //   22600/14080/190/64 → uncached 8520
    let expect = Expect {
        id: "01a01b20-8070-7017-a2c8-bd7e8f90a107",
        cwd: Some("/home/dev/api-server"),
        kind: SessionKind::Main,
        parent: None,
        version: Some("0.140.0"),
        branch: Some("docs"),
        models: &["gpt-5.2-codex"],
        counts: (4, 1, 2, 1, 0),
        tokens: (8_520, 14_080, 0, 190, 64),
        requests: 2,
        compactions: 0,
        warnings: 0,
    };
    check(&plain, &expect);
    let zipped = load(&zst_path);
    check(&zipped, &expect);
    assert_eq!(plain.messages, zipped.messages);
    assert_eq!(plain.requests, zipped.requests);
}

#[test]
fn fixture_home_totals() {
    // Sum over every distinct rollout in the sample home (the dual copy counted once), from the
    // per-file values above: 43595 + 56012 + 19700 + 8830 + 29125 + 14430 + 22790 = 194482.
    let files = [S1, S2, PARENT, CHILD, FORK, BARE, TS, ZST, DUAL];
    let mut total = 0;
    let mut ids = std::collections::HashSet::new();
    for f in files {
        let s = load(&home().join(f));
        assert!(ids.insert(s.id.clone()), "duplicate id {}", s.id);
        total += s.usage().total();
        if let Some(cwd) = &s.cwd {
            assert!(
                cwd == "/home/dev/webapp" || cwd == "/home/dev/api-server",
                "{cwd}"
            );
        }
    }
    assert_eq!(total, 194_482);
}

/// `sessions ARGS --format json` (a usage error or a failure fails the test).
fn json_of(args: &[&str]) -> serde_json::Value {
    common::json_of(common::sessions().args(args))
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn copies_of_a_rollout_count_once() {
    // The two real rollouts are one session (019dc116-…): the `f5` file is a checkpoint taken
    // while it ran, the `b5` file the whole of it. Its last event:
    //   grep '"token_count"' b5 | tail -1 | jq -c .payload.info.total_token_usage
    //   → input 3373852 (cached 3109120), output 19776
    let real = Path::new(env!("SESSIONS_CORPUS_DIR")).join("real/codex");
    let real = real.to_str().unwrap();
    let listed = json_of(&["list", real, "--format", "json"]);
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:#?}");
    assert!(listed[0]["path"].as_str().unwrap().contains("b5_"));
    let doc = json_of(&["usage", real, "--format", "json"]);
    let t = &doc["totals"]["tokens"];
    assert_eq!(
        (
            t["input"].as_u64(),
            t["cache_read"].as_u64(),
            t["output"].as_u64()
        ),
        (Some(3_373_852 - 3_109_120), Some(3_109_120), Some(19_776))
    );

    // A rollout moved to `archived_sessions/` with its original left behind: the same bytes,
    // counted once, the copy reported with `-v`.
    let tmp = tempfile::tempdir().unwrap();
    let live = tmp.path().join(".codex/sessions/2026/05/01");
    let archived = tmp.path().join(".codex/archived_sessions");
    std::fs::create_dir_all(&live).unwrap();
    std::fs::create_dir_all(&archived).unwrap();
    let name = format!(
        "rollout-2026-05-01T10-00-00-{}.jsonl",
        "01a01b20-8070-7017-a2c8-bd7e8f90a107"
    );
    std::fs::copy(home().join(DUAL), live.join(&name)).unwrap();
    std::fs::copy(home().join(DUAL), archived.join(&name)).unwrap();
    let h = tmp.path().to_str().unwrap();
    let doc = json_of(&["--home", h, "usage", "--format", "json"]);
    // The sample copy's last total: 22600 input (14080 cached), 190 output.
    assert_eq!(
        doc["totals"]["tokens"]["total"].as_u64(),
        Some(22_600 + 190)
    );
    let out = common::sessions()
        .args(["--home", h, "-v", "list"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("copy of Codex session 01a01b20-8070-7017-a2c8-bd7e8f90a107"),
        "{err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("01a01b20")
            .count(),
        1
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn namespaced_tools_keep_their_qualified_name() {
    // grep -o '"name":"_fetch_pr[a-z_]*","namespace":"[^"]*"' b5 → the namespace is the head of
    // the name, and its mcp_tool_call_end names the tool `github_fetch_pr` on `codex_apps`.
    let path = Path::new(env!("SESSIONS_CORPUS_DIR"))
        .join("real/codex/entire-ext-b5_a37dc3d0fe_0_full.jsonl");
    let s = load(&path);
    let names: std::collections::BTreeSet<&str> = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolCall { name, .. } if name.starts_with("mcp__") => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        [
            "mcp__codex_apps__github_fetch_pr",
            "mcp__codex_apps__github_fetch_pr_patch"
        ]
    );
}
