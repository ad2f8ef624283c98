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

use crate::common;

mod corpus;
mod fixtures;

use std::path::{Path, PathBuf};

use sessions::model::*;
use sessions::parse::{FileRole, SourceFile, hash64, parse_file};

/// The corpus's Claude folder (the tests using it are ignored when it is absent; build.rs).
fn corpus_dir() -> PathBuf {
    Path::new(env!("SESSIONS_CORPUS_DIR")).join("claude")
}

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
            s.messages[m].usage.as_deref(),
            Some(&r.usage),
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
                .is_some_and(|k| *k.message_id == *message_id)
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
