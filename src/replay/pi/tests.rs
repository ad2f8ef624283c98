//! Pi: golden vectors from `@mariozechner/pi-coding-agent` 0.73.1 (`testdata/golden/pi/`), the
//! cut-point index against a literal port of the backward walk, and the replay strategy on
//! hand-computed histories.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use serde_json::Value;

use super::cut::{Class, CutIndex};
use super::message::{
    AgentMessage, FileOp, Usage, estimate_context_tokens, estimate_tokens, file_lists_len,
    file_ops, from_item, from_json, serialized, serialized_len,
};
use super::*;
use crate::model::{Part, Role};
use crate::replay::settings::Settings;
use crate::replay::{Algorithm, ReplayInput, ReplayOptions, RequestPoint, replay};

fn golden(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/golden/pi")
        .join(name);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["package"], "@mariozechner/pi-coding-agent", "{name}");
    assert_eq!(v["version"], "0.73.1", "{name}");
    v
}

#[test]
fn golden_estimate_tokens_and_serialized_lengths() {
    let g = golden("estimate_tokens.json");
    let cases = g["cases"].as_array().unwrap();
    assert!(cases.len() > 80);
    let mut serialized_checked = 0;
    for (k, c) in cases.iter().enumerate() {
        let m = from_json(&c["message"]);
        assert_eq!(
            estimate_tokens(&m),
            c["tokens"].as_u64().unwrap(),
            "case {k}: {}",
            c["message"]
        );
        if let Some(want) = c.get("serialized_chars").and_then(Value::as_u64) {
            let (chars, parts) = serialized(&m, TOOL_RESULT_MAX_CHARS);
            assert_eq!(
                serialized_len(chars, parts),
                want,
                "case {k}: {}",
                c["message"]
            );
            serialized_checked += 1;
        }
    }
    assert!(serialized_checked > 60);
}

/// A golden entry list: message entries (with their ordinal among messages) and compactions.
struct Entries {
    entries: Vec<Value>,
    messages: Vec<AgentMessage<'static>>,
    /// Entry index of each message.
    entry_of: Vec<usize>,
    index: CutIndex,
}

impl Entries {
    fn new(entries: &[Value]) -> Entries {
        let mut messages = Vec::new();
        let mut entry_of = Vec::new();
        let mut index = CutIndex::new();
        for (i, e) in entries.iter().enumerate() {
            match e["type"].as_str() {
                Some("message") => {
                    let m = from_json(&e["message"]);
                    index.push(Class::of_role(m.role()), estimate_tokens(&m));
                    messages.push(m);
                    entry_of.push(i);
                }
                Some("compaction") => {}
                t => panic!("unexpected entry type {t:?}"),
            }
        }
        Entries {
            entries: entries.to_vec(),
            messages,
            entry_of,
            index,
        }
    }

    /// Ordinal of the first message at or after entry `i`.
    fn ord(&self, i: usize) -> usize {
        self.entry_of.partition_point(|&e| e < i)
    }

    fn entry(&self, ord: usize) -> usize {
        self.entry_of[ord]
    }

    fn has_cut_point(&self, a: usize, b: usize) -> bool {
        self.messages[a..b]
            .iter()
            .any(|m| Class::of_role(m.role()) != Class::NoCut)
    }

    /// (firstKeptEntryIndex, turnStartIndex, isSplitTurn) in entry indices.
    fn find_cut_point(&self, start: usize, end: usize, keep: u64) -> (usize, i64, bool) {
        let (a, b) = (self.ord(start), self.ord(end));
        if !self.has_cut_point(a, b) {
            return (start, -1, false);
        }
        let c = self.index.find_cut_point(a, b, keep);
        (
            self.entry(c.first_kept),
            c.turn_start.map_or(-1, |t| self.entry(t) as i64),
            c.is_split_turn,
        )
    }
}

#[test]
fn golden_find_cut_point_and_turn_start() {
    let g = golden("find_cut_point.json");
    let mut queries = 0;
    for (s, session) in g["sessions"].as_array().unwrap().iter().enumerate() {
        let e = Entries::new(session["entries"].as_array().unwrap());
        for q in session["queries"].as_array().unwrap() {
            let start = q["start"].as_u64().unwrap() as usize;
            let end = q["end"].as_u64().unwrap() as usize;
            let keep = q["keepRecentTokens"].as_u64().unwrap();
            let want = (
                q["firstKeptEntryIndex"].as_u64().unwrap() as usize,
                q["turnStartIndex"].as_i64().unwrap(),
                q["isSplitTurn"].as_bool().unwrap(),
            );
            assert_eq!(
                e.find_cut_point(start, end, keep),
                want,
                "session {s} query {q}"
            );
            queries += 1;
        }
        for (i, want) in session["turn_start_from_0"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let k = e.entry_of.partition_point(|&x| x <= i);
            let got = k
                .checked_sub(1)
                .and_then(|k| e.index.find_turn_start(k, 0))
                .map_or(-1, |t| e.entry(t) as i64);
            assert_eq!(got, want.as_i64().unwrap(), "session {s} entry {i}");
        }
    }
    assert!(queries > 500);
}

/// `buildSessionContext` on a linear path: the latest compaction's summary, the kept messages from
/// its `firstKeptEntryId` up to it, then everything after it.
fn session_context(e: &Entries) -> Vec<AgentMessage<'static>> {
    let Some(c) = e.entries.iter().rposition(|x| x["type"] == "compaction") else {
        return e.messages.clone();
    };
    let comp = &e.entries[c];
    let mut out = vec![AgentMessage::CompactionSummary {
        summary: comp["summary"].as_str().unwrap().to_string().into(),
    }];
    let first_kept = e.entries[..c]
        .iter()
        .position(|x| x["id"] == comp["firstKeptEntryId"]);
    for (ord, &i) in e.entry_of.iter().enumerate() {
        if first_kept.is_some_and(|f| i >= f && i < c) || i > c {
            out.push(e.messages[ord].clone());
        }
    }
    out
}

#[test]
fn golden_prepare_compaction() {
    let g = golden("prepare_compaction.json");
    let paths: HashMap<String, Entries> = g["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), Entries::new(v.as_array().unwrap())))
        .collect();
    let (mut checked, mut split, mut previous) = (0, 0, 0);
    for c in g["cases"].as_array().unwrap() {
        let e = &paths[&c["entries"].to_string()];
        let keep = c["keepRecentTokens"].as_u64().unwrap();
        let r = &c["result"];
        let n = e.entries.len();
        if e.entries[n - 1]["type"] == "compaction" {
            assert!(
                r.is_null(),
                "a path ending in a compaction prepares nothing"
            );
            continue;
        }
        // The boundary: the previous compaction's firstKeptEntryId (else the entry after it).
        let prev = e.entries.iter().rposition(|x| x["type"] == "compaction");
        let boundary = prev.map_or(0, |p| {
            e.entries
                .iter()
                .position(|x| x["id"] == e.entries[p]["firstKeptEntryId"])
                .unwrap_or(p + 1)
        });
        let (a, b) = (e.ord(boundary), e.messages.len());
        let prep = e.index.prepare(a, b, keep);
        let first_kept = if e.has_cut_point(a, b) {
            e.entry(prep.cut.first_kept)
        } else {
            boundary
        };
        let ctx = format!("path {} keep {keep}", c["entries"]);
        assert_eq!(
            first_kept as u64,
            r["firstKeptEntryIndex"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(e.entries[first_kept]["id"], r["firstKeptEntryId"], "{ctx}");
        assert_eq!(
            prep.cut.is_split_turn,
            r["isSplitTurn"].as_bool().unwrap(),
            "{ctx}"
        );
        let prev_summary = prev
            .map(|p| e.entries[p]["summary"].clone())
            .unwrap_or(Value::Null);
        assert_eq!(prev_summary, r["previousSummary"], "{ctx}");
        let history_end = if e.has_cut_point(a, b) {
            prep.history_end
        } else {
            a
        };
        let summarize: Vec<usize> = (a..history_end).collect();
        let prefix: Vec<usize> = match prep.cut.turn_start {
            Some(t) if prep.cut.is_split_turn => (t..prep.cut.first_kept).collect(),
            _ => Vec::new(),
        };
        let as_entries = |ords: &[usize]| -> Value { ords.iter().map(|&o| e.entry(o)).collect() };
        assert_eq!(as_entries(&summarize), r["summarize_indices"], "{ctx}");
        assert_eq!(as_entries(&prefix), r["turn_prefix_indices"], "{ctx}");
        let ser = |ords: &[usize]| {
            let (c, p) = ords.iter().fold((0, 0), |(c, p), &o| {
                let (c2, p2) = serialized(&e.messages[o], TOOL_RESULT_MAX_CHARS);
                (c + c2, p + p2)
            });
            serialized_len(c, p)
        };
        assert_eq!(
            ser(&summarize),
            r["summarize_serialized_chars"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            ser(&prefix),
            r["turn_prefix_serialized_chars"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            estimate_context_tokens(&session_context(e)),
            r["tokensBefore"].as_u64().unwrap(),
            "{ctx}"
        );
        // File operations: the previous compaction's details (unless fromHook) + tool calls.
        let (mut read, mut written, mut edited) =
            (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        if let Some(p) = prev {
            let pc = &e.entries[p];
            if pc["fromHook"] != true {
                for f in pc["details"]["readFiles"].as_array().into_iter().flatten() {
                    read.insert(f.as_str().unwrap().to_string());
                }
                for f in pc["details"]["modifiedFiles"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    edited.insert(f.as_str().unwrap().to_string());
                }
            }
        }
        for &o in summarize.iter().chain(&prefix) {
            for (op, path) in file_ops(&e.messages[o]) {
                match op {
                    FileOp::Read => read.insert(path.to_string()),
                    FileOp::Write => written.insert(path.to_string()),
                    FileOp::Edit => edited.insert(path.to_string()),
                };
            }
        }
        let set = |v: &Value| -> BTreeSet<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(read, set(&r["file_ops"]["read"]), "{ctx}");
        assert_eq!(written, set(&r["file_ops"]["written"]), "{ctx}");
        assert_eq!(edited, set(&r["file_ops"]["edited"]), "{ctx}");
        let modified: BTreeSet<&String> = written.iter().chain(&edited).collect();
        let sizes = |it: &mut dyn Iterator<Item = &String>| {
            it.fold((0, 0), |(n, c), p| (n + 1, c + js::len16(p) as u64))
        };
        let read_only = sizes(&mut read.iter().filter(|p| !modified.contains(p)));
        let modified = sizes(&mut modified.into_iter());
        assert_eq!(
            file_lists_len(read_only, modified),
            r["file_lists_chars"].as_u64().unwrap(),
            "{ctx}"
        );
        checked += 1;
        split += usize::from(prep.cut.is_split_turn);
        previous += usize::from(prev.is_some());
    }
    assert!(
        checked > 80 && split > 10 && previous > 40,
        "{checked} {split} {previous}"
    );
}

#[test]
fn golden_constants_and_trigger() {
    let g = golden("constants.json");
    let d = &g["default_compaction_settings"];
    let defaults = Settings::resolve(SPECS, &[]).unwrap();
    assert_eq!(d["enabled"].as_bool().unwrap(), defaults.flag("enabled"));
    assert_eq!(
        d["reserveTokens"].as_u64().unwrap(),
        defaults.int("reserve_tokens")
    );
    assert_eq!(
        d["keepRecentTokens"].as_u64().unwrap(),
        defaults.int("keep_recent_tokens")
    );
    assert_eq!(
        g["tool_result_max_chars"].as_u64().unwrap(),
        defaults.int("summary_tool_result_chars")
    );
    assert_eq!(
        g["tool_result_max_chars"].as_u64().unwrap(),
        TOOL_RESULT_MAX_CHARS as u64
    );
    for (key, want) in [
        ("summarization_prompt_chars", prompt::SUMMARIZATION),
        (
            "update_summarization_prompt_chars",
            prompt::UPDATE_SUMMARIZATION,
        ),
        (
            "turn_prefix_summarization_prompt_chars",
            prompt::TURN_PREFIX,
        ),
        ("summarization_system_prompt_chars", prompt::SYSTEM),
        ("split_turn_separator_chars", prompt::SPLIT_TURN_SEPARATOR),
        ("no_prior_history_chars", prompt::NO_PRIOR_HISTORY),
    ] {
        assert_eq!(g[key].as_u64().unwrap(), want, "{key}");
    }
    for t in g["trigger"].as_array().unwrap() {
        let got = should_compact(
            t["contextTokens"].as_u64().unwrap(),
            t["contextWindow"].as_u64().unwrap(),
            t["reserveTokens"].as_u64().unwrap(),
            t["enabled"].as_bool().unwrap(),
        );
        assert_eq!(got, t["shouldCompact"].as_bool().unwrap(), "{t}");
    }
}

/// `findCutPoint` exactly as written in compaction.js (valid cut points, backward walk, first
/// cut point at or after the crossing), over classes and token counts: the oracle for the
/// prefix-sum index.
fn walk_oracle(
    classes: &[Class],
    tokens: &[u64],
    start: usize,
    end: usize,
    keep: u64,
) -> (usize, Option<usize>) {
    let cut_points: Vec<usize> = (start..end)
        .filter(|&i| classes[i] != Class::NoCut)
        .collect();
    if cut_points.is_empty() {
        return (start, None);
    }
    let mut acc = 0;
    let mut cut = cut_points[0];
    for i in (start..end).rev() {
        acc += tokens[i];
        if acc >= keep {
            if let Some(&c) = cut_points.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    if classes[cut] == Class::User {
        return (cut, None);
    }
    let turn = (start..=cut)
        .rev()
        .find(|&i| matches!(classes[i], Class::User | Class::Bash));
    (cut, turn)
}

#[test]
fn cut_index_matches_the_backward_walk() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for _ in 0..300 {
        let n = 1 + rnd(40) as usize;
        let mut index = CutIndex::new();
        let (mut classes, mut tokens) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let c = match rnd(10) {
                0..=1 => Class::User,
                2..=4 => Class::CutPoint,
                5 => Class::Bash,
                _ => Class::NoCut,
            };
            let t = if rnd(5) == 0 { 0 } else { rnd(3000) };
            index.push(c, t);
            classes.push(c);
            tokens.push(t);
        }
        for _ in 0..20 {
            let start = rnd(n as u64 + 1) as usize;
            let end = start + rnd((n - start) as u64 + 1) as usize;
            let keep = [0, 1, rnd(5000), rnd(50_000), u64::MAX / 4][rnd(5) as usize];
            let c = index.find_cut_point(start, end, keep);
            assert_eq!(
                (c.first_kept, c.turn_start),
                walk_oracle(&classes, &tokens, start, end, keep)
            );
            assert_eq!(c.is_split_turn, c.turn_start.is_some());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Conversion and the strategy
// ---------------------------------------------------------------------------------------------

fn text(role: Role, human: bool, chars: usize) -> HistoryItem {
    HistoryItem {
        role,
        is_human: human,
        timestamp: None,
        model: None,
        parts: vec![Part::Text {
            text: "x".repeat(chars),
        }],
        tool_names: vec![None],
        is_context: false,
    }
}

fn call(name: &str, args: Value) -> HistoryItem {
    HistoryItem {
        role: Role::Assistant,
        is_human: false,
        timestamp: None,
        model: None,
        parts: vec![Part::ToolCall {
            id: "c".into(),
            name: name.into(),
            input: args.into(),
        }],
        tool_names: vec![None],
        is_context: false,
    }
}

fn results(outputs: &[(&str, usize, usize)]) -> HistoryItem {
    HistoryItem {
        role: Role::Tool,
        is_human: false,
        timestamp: None,
        model: None,
        parts: outputs
            .iter()
            .map(|&(_, chars, images)| Part::ToolResult {
                call_id: "c".into(),
                output: "r".repeat(chars),
                is_error: false,
                attachments: (0..images)
                    .map(|_| Part::Image {
                        media_type: None,
                        bytes: None,
                        data: None,
                        url: None,
                    })
                    .collect(),
                output_size: None,
            })
            .collect(),
        tool_names: outputs
            .iter()
            .map(|&(n, _, _)| Some(n.to_string()))
            .collect(),
        is_context: false,
    }
}

#[test]
fn items_become_pi_messages() {
    let mut u = text(Role::User, true, 10);
    u.parts.push(Part::Image {
        media_type: None,
        bytes: None,
        data: None,
        url: None,
    });
    let m = from_item(&u);
    assert_eq!(m.len(), 1);
    assert_eq!(estimate_tokens(&m[0]), 3, "user images count 0: ceil(10/4)");
    let t = results(&[("read", 9, 0), ("bash", 0, 1)]);
    let m = from_item(&t);
    assert_eq!(
        m.iter().map(AgentMessage::role).collect::<Vec<_>>(),
        ["toolResult", "toolResult"]
    );
    assert_eq!(estimate_tokens(&m[0]), 3);
    assert_eq!(
        estimate_tokens(&m[1]),
        1_200,
        "4,800 chars per tool-result image"
    );
    let a = call("read", serde_json::json!({"path": "src/日本.rs"}));
    let m = from_item(&a);
    // "read" (4) + {"path":"src/日本.rs"} (20 UTF-16 units) = 24 chars = 6 tokens.
    assert_eq!(estimate_tokens(&m[0]), 6);
    assert_eq!(file_ops(&m[0]), vec![(FileOp::Read, "src/日本.rs")]);
}

/// A tool output the parse kept (a Gemini session's) is measured once, in UTF-16 units, as
/// the measured parse measures the others; only the literal pruner's messages keep its text.
#[test]
fn a_kept_tool_output_is_measured_once() {
    use super::message::{Block, Content, from_item_kept};
    let mut t = results(&[("read", 0, 0)]);
    if let Part::ToolResult { output, .. } = &mut t.parts[0] {
        *output = "😀 é".to_string();
    }
    fn blocks(m: &AgentMessage<'_>) -> Vec<Block<'static>> {
        match m {
            AgentMessage::ToolResult {
                content: Content::Blocks(b),
                ..
            } => b.iter().cloned().map(Block::into_owned).collect(),
            other => panic!("{other:?}"),
        }
    }
    let measured = from_item(&t);
    assert_eq!(blocks(&measured[0]), [Block::Measured(4)]);
    let kept = from_item_kept(&t);
    assert_eq!(blocks(&kept[0]), [Block::Text("😀 é".into())]);
    assert_eq!(estimate_tokens(&measured[0]), estimate_tokens(&kept[0]));
    assert_eq!(
        serialized(&measured[0], TOOL_RESULT_MAX_CHARS),
        serialized(&kept[0], TOOL_RESULT_MAX_CHARS)
    );
}

fn session(items: Vec<HistoryItem>, requests_after: &[usize], output: u64) -> ReplayInput {
    let requests = requests_after
        .iter()
        .map(|&upto| RequestPoint {
            upto,
            recorded_prompt: None,
            output,
            timestamp: None,
            model: None,
            usage: None,
        })
        .collect();
    ReplayInput {
        agent: crate::model::Agent::Claude,
        id: "pi".into(),
        path: "pi.jsonl".into(),
        project: None,
        items,
        requests,
        model: None,
        recorded_usage: false,
        recorded_compactions: Vec::new(),
        gemini: None,
        gemini_sized: Default::default(),
        gemini_layout: None,
        post_compaction: Vec::new(),
        recorded_window: None,
        started_at: None,
        agent_version: None,
    }
}

fn run(
    inp: &ReplayInput,
    window: u64,
    summary: u64,
    pairs: &[(&str, &str)],
) -> crate::replay::SessionReplay {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    replay(
        inp,
        &ReplayOptions {
            algorithm: Algorithm::Pi,
            settings: Settings::resolve(SPECS, &pairs).unwrap(),
            context_window: Some(window),
            summary_tokens: summary,
            summary_tokens_source: "test",
            timeline: true,
            validate: false,
            follow_recording: false,
        },
    )
}

#[test]
fn compacts_after_the_run_that_crosses_window_minus_reserve() {
    // Nine turns of user (4,000 chars = 1,000 tokens) + assistant (1,000 tokens); one request
    // per user prompt, 1,000 output tokens each. Window 10,000, reserve 2,000: compact when
    // prompt + output > 8,000.
    let mut items = Vec::new();
    let mut reqs = Vec::new();
    for _ in 0..9 {
        items.push(text(Role::User, true, 4_000));
        reqs.push(items.len());
        items.push(text(Role::Assistant, false, 4_000));
    }
    let inp = session(items, &reqs, 1_000);
    let r = run(
        &inp,
        10_000,
        500,
        &[("reserve_tokens", "2000"), ("keep_recent_tokens", "2500")],
    );
    let t = r.timeline.as_ref().unwrap();
    // Request k sees 2k + 1 messages. After request 3 the usage is 7,000 + 1,000 = 8,000 (not >
    // 8,000); after request 4 it is 10,000 → compaction when the next prompt arrives, before
    // request 5.
    assert_eq!(
        t[..5].iter().map(|p| p.what_if).collect::<Vec<_>>(),
        [1_000, 3_000, 5_000, 7_000, 9_000]
    );
    assert_eq!(r.events.len(), 2);
    let e = &r.events[0];
    assert_eq!(e.request, 5);
    assert_eq!(e.measure, Some(10_000), "the usage the trigger compared");
    assert_eq!(e.tokens_before, 10_000, "messages 0–9");
    // Walking back from message 9: 1,000, 2,000, 3,000 ≥ 2,500 at message 7, an assistant:
    // the cut is there, inside the turn of user 6 → split turn. Messages 0–5 are the history,
    // message 6 the turn prefix; 7–9 are kept.
    assert_eq!((e.summarised, e.kept), (7, 3));
    // Summary: 500-token history summary (2,000 chars) + the 39-char separator + the prefix
    // summary round(500 × 0.5 / 0.8) = 313 tokens (1,252 chars) = 3,291 chars = 823 tokens.
    assert_eq!(e.summariser_output, 500 + 313);
    assert_eq!(e.tokens_after, 823 + 3_000);
    assert_eq!(
        t[5].what_if,
        823 + 3_000 + 1_000,
        "the new prompt joins the kept context"
    );
    // Summariser input: "[User]: " + 4,000 and "[Assistant]: " + 4,000 three times each,
    // joined by 5 blank lines, inside the conversation tags (33), plus the prompt (879) and the
    // system prompt (317); the prefix call: "[User]: " + 4,000 + 33 + 440 + 317.
    let history = 3 * (8 + 4_000) + 3 * (13 + 4_000) + 5 * 2;
    let history_in = (33 + history + 879 + 317u64).div_ceil(4);
    let prefix_in = (33 + 8 + 4_000 + 440 + 317u64).div_ceil(4);
    assert_eq!(e.summariser_input, history_in + prefix_in);

    // Requests 5, 6, 7 see 4,823, 6,823, 8,823; after request 7 the usage is 9,823 > 8,000 →
    // second compaction before request 8, over messages 7–15 (the previous kept tail is
    // summarised again: 0.73.1 starts at the previous firstKeptEntryId).
    assert_eq!(
        t[5..8].iter().map(|p| p.what_if).collect::<Vec<_>>(),
        [4_823, 6_823, 8_823]
    );
    let e = &r.events[1];
    assert_eq!(e.request, 8);
    assert_eq!(e.measure, Some(9_823));
    assert_eq!(e.tokens_before, 9_823);
    // Walk back from 15: cut at assistant 13, turn start user 12. History 7–11, prefix 12.
    assert_eq!((e.summarised, e.kept), (6, 3));
    // The update prompt (1,257) carries the previous summary (3,291 chars) in its tags (41).
    let history = 3 * (13 + 4_000) + 2 * (8 + 4_000) + 4 * 2;
    let history_in = (33 + history + 41 + 3_291 + 1_257 + 317u64).div_ceil(4);
    assert_eq!(e.summariser_input, history_in + prefix_in);
    assert_eq!(e.tokens_after, 823 + 3_000);
    assert_eq!(r.compressions, 2);
    assert_eq!(
        r.totals.summariser_tokens,
        r.events.iter().map(|e| e.summariser_tokens()).sum::<u64>()
    );
}

#[test]
fn budget_crossed_inside_trailing_tool_results_keeps_everything() {
    // One agentic run that ends on tool results (no final answer), then a new prompt: user (400
    // chars = 100 tokens), then three bash calls ("bash" + {"command":"ls"} = 20 chars = 5
    // tokens) each followed by a 20,000-char result (5,000 tokens).
    let mut items = vec![text(Role::User, true, 400)];
    let mut reqs = vec![1];
    for _ in 0..3 {
        items.push(call("bash", serde_json::json!({"command": "ls"})));
        items.push(results(&[("bash", 20_000, 0)]));
        reqs.push(items.len());
    }
    items.push(text(Role::User, true, 40));
    reqs.push(items.len());
    let inp = session(items, &reqs, 10);
    let r = run(
        &inp,
        20_000,
        1_000,
        &[("reserve_tokens", "10000"), ("keep_recent_tokens", "4000")],
    );
    // Usage after request 3: 15,115 + 10 > 10,000 → compaction when the prompt arrives.
    assert_eq!(r.events.len(), 1);
    let e = &r.events[0];
    assert_eq!(e.request, 4);
    assert_eq!(e.tokens_before, 15_115);
    // The walk reaches 4,000 at the last tool result (message 6); no cut point at or after it
    // → the first cut point, message 0 (pi #7201): nothing is summarised, all 7 items kept,
    // yet the summary (1,000 tokens) is generated and added.
    assert_eq!((e.summarised, e.kept), (0, 7));
    assert_eq!(e.tokens_after, 1_000 + 15_115);
    assert_eq!(e.summariser_output, 1_000);
    assert_eq!(
        e.summariser_input,
        (33 + 879 + 317u64).div_ceil(4),
        "an empty conversation"
    );
}

#[test]
fn usage_before_a_compaction_does_not_retrigger() {
    // Two prompts in a row after the compacting run: the second must not reuse the stale usage.
    let items = vec![
        text(Role::User, true, 40_000),
        text(Role::Assistant, false, 4),
        text(Role::User, true, 4),
        text(Role::User, true, 4),
        text(Role::Assistant, false, 4),
    ];
    let inp = session(items, &[1, 4], 1);
    let r = run(
        &inp,
        10_000,
        100,
        &[("reserve_tokens", "2000"), ("keep_recent_tokens", "0")],
    );
    assert_eq!(r.events.len(), 1);
    assert_eq!(r.events[0].request, 1);
}

#[test]
fn disabled_never_compacts() {
    let mut items = Vec::new();
    let mut reqs = Vec::new();
    for _ in 0..6 {
        items.push(text(Role::User, true, 40_000));
        reqs.push(items.len());
        items.push(text(Role::Assistant, false, 4));
    }
    let inp = session(items, &reqs, 1);
    let r = run(&inp, 10_000, 500, &[("enabled", "false")]);
    assert!(r.events.is_empty());
    let r = run(&inp, 10_000, 500, &[]);
    assert!(!r.events.is_empty());
}

#[test]
fn summary_sizes_are_capped_by_the_budgets() {
    let ctx = StrategyContext {
        settings: Settings::resolve(SPECS, &[]).unwrap(),
        limits: crate::replay::window::resolve(None, None, Some(200_000), (200_000, 32_000)),
        summary_tokens: 50_000,
        agent_version: None,
        native: false,
        model: None,
        sweep: false,
    };
    let p = Pi::new(&ctx);
    assert_eq!(p.history_summary, 13_107, "floor(0.8 × 16,384)");
    assert_eq!(p.prefix_summary, 8_192, "floor(0.5 × 16,384)");
    let _ = Usage::default();
}
