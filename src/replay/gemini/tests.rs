//! State-machine tests of the incremental replay: compression, truncation, masking, the
//! truncation's fixed point, and the 100,000-message benchmark (ignored). The tool-output
//! truncation's formula and each era's rules are in era_tests.rs, the golden vectors in
//! golden_tests.rs, the differential test in differential_tests.rs.

use super::compress::ACK;
use super::differential_tests::{Rng, random_text};
use super::estimate::{Estimator, estimate_token_count_sync};
use super::golden_tests::s;
use super::json::{J, to_json};
use super::split::find_compress_split_point;
use super::*;
use crate::model::{Part, Role};
use crate::replay::settings::Settings;
use crate::replay::window::{Limits, WindowSource};
use crate::replay::{EventKind, HistoryItem, RequestInfo, Strategy, StrategyContext};

// ---------------------------------------------------------------------------------------------
// State machine

pub(super) fn text_item(role: Role, human: bool, text: &str) -> HistoryItem {
    HistoryItem {
        role,
        is_human: human,
        timestamp: None,
        model: None,
        parts: vec![Part::Text {
            text: text.to_string(),
        }],
        tool_names: vec![None],
        is_context: false,
    }
}

pub(super) fn call_item(id: &str, tool: &str) -> HistoryItem {
    HistoryItem {
        role: Role::Assistant,
        is_human: false,
        timestamp: None,
        model: None,
        parts: vec![Part::ToolCall {
            id: id.into(),
            name: tool.into(),
            input: serde_json::json!({"file_path": "src/lib.rs"}).into(),
        }],
        tool_names: vec![None],
        is_context: false,
    }
}

pub(super) fn result_item(id: &str, tool: &str, output: &str, is_error: bool) -> HistoryItem {
    HistoryItem {
        role: Role::Tool,
        is_human: false,
        timestamp: None,
        model: None,
        parts: vec![Part::ToolResult {
            call_id: id.into(),
            output: output.into(),
            is_error,
            attachments: Vec::new(),
            output_size: None,
        }],
        tool_names: vec![Some(tool.into())],
        is_context: false,
    }
}

pub(super) fn params(limit: u64, summary: u64, pairs: &[(&str, &str)]) -> Params {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let ctx = StrategyContext {
        settings: Settings::resolve(SPECS, &pairs).unwrap(),
        limits: Limits {
            context_window: limit,
            max_output: 65_536,
            source: WindowSource::Override,
        },
        summary_tokens: summary,
        agent_version: None,
        native: false,
        model: None,
        sweep: false,
    };
    Params::from_ctx(&ctx)
}

pub(super) fn request(index: usize, prev: Option<u64>) -> RequestInfo {
    RequestInfo {
        index,
        timestamp: None,
        recorded_prompt: None,
        output: 0,
        prev_prompt: prev,
        prev_recorded: false,
        prev_output: 0,
        context_now: 0,
        scale: 1.0,
        in_sync: false,
        unmanaged: false,
    }
}

/// Feed items; a request before each assistant item, its previous prompt being the previous
/// request's context plus `overhead`. Returns the events with their request index.
pub(super) fn drive(
    g: &mut Gemini,
    items: &[HistoryItem],
    overhead: u64,
) -> Vec<(usize, crate::replay::Event)> {
    let mut prev = None;
    let mut k = 0;
    let mut out = Vec::new();
    for it in items {
        if it.role == Role::Assistant {
            for e in g.before_request(&request(k, prev)) {
                out.push((k, e));
            }
            prev = Some(overhead + g.context_tokens());
            k += 1;
        }
        g.push(it);
    }
    out
}

/// `turns` user/model exchanges of `chars` ASCII characters each.
pub(super) fn chat(turns: usize, chars: usize) -> Vec<HistoryItem> {
    let mut items = vec![HistoryItem {
        is_context: true,
        ..text_item(
            Role::User,
            false,
            "<session_context>\nenv\n</session_context>",
        )
    }];
    for t in 0..turns {
        items.push(text_item(
            Role::User,
            true,
            &format!("{t:03}{}", "q".repeat(chars - 3)),
        ));
        items.push(text_item(
            Role::Assistant,
            false,
            &format!("{t:03}{}", "a".repeat(chars - 3)),
        ));
    }
    items
}

#[test]
fn compresses_at_the_threshold_with_the_split_of_the_pure_function() {
    // A 40,000-token window: the trigger is a previous prompt of 20,000. Each message is 4,000
    // ASCII characters = 1,000 tokens; the environment merges with the first prompt.
    let items = chat(14, 4_000);
    let mut g = Gemini::with_params(params(40_000, 500, &[]));
    let mut prev = None;
    let mut k = 0;
    let mut events = Vec::new();
    let mut before_history = Vec::new();
    for it in &items {
        if it.role == Role::Assistant {
            let snapshot = g.history();
            let es = g.before_request(&request(k, prev));
            if !es.is_empty() && before_history.is_empty() {
                before_history = snapshot;
            }
            events.extend(es.into_iter().map(|e| (k, e)));
            prev = Some(g.context_tokens());
            k += 1;
        }
        g.push(it);
    }
    // Request k sees 2k+1 messages before it (the env is tiny): the previous prompt at k is
    // the context of request k−1 = 2k−1 messages ≈ (2k−1) × 1,000 tokens ≥ 20,000 first at
    // k = 11.
    let (k0, e) = &events[0];
    assert_eq!(*k0, 11);
    assert_eq!(e.kind, EventKind::Compress);
    // The history before it: [env+q0, a0, q1, a1, …, a10, q11] = 23 contents holding 24 items
    // (the environment merged with the first prompt). The pure function's split on it (no
    // tool outputs, so truncation changes nothing) decides what is summarised.
    assert_eq!(before_history.len(), 23);
    let split = find_compress_split_point(&before_history, 0.7).unwrap();
    // Hand check: contents are 4,090 (env+q0), 4,038 (a_j) and 4,037 (q_j, at index 2j)
    // characters; total 92,915, target 65,040.5; before q_j lie 53 + 8,075·j → j = 9, index 18.
    assert_eq!(split, 18);
    assert_eq!(e.summarised + e.kept, 24);
    assert_eq!(
        e.summarised,
        split + 1,
        "env and the first prompt are one content"
    );
    // After: [env + snapshot, ack, kept…], estimated by the pure estimator.
    let after = g.history();
    assert_eq!(
        s(
            &after[1].get("parts").unwrap().as_array().unwrap()[0],
            "text"
        ),
        ACK
    );
    // (the tail and the new items since) — the totals agree with estimating the history.
    let parts: Vec<J> = after
        .iter()
        .flat_map(|c| c.get("parts").unwrap().as_array().unwrap().clone())
        .collect();
    assert_eq!(
        g.context_tokens(),
        estimate_token_count_sync(&parts, Estimator::newest(1.5))
    );
    // Summariser: two calls, each writing the summary; inputs include the compression prompt.
    assert_eq!(e.summariser_output, 1_000);
    assert!(e.summariser_input > 2 * COMPRESSION_PROMPT_TOKENS + 2 * 14_000);
    assert!(e.tokens_after < e.tokens_before / 2);
}

#[test]
fn before_v0_26_one_summariser_call_is_made() {
    // The same compression as above; without the verification probe the summariser writes
    // the summary once and reads the summarised slice once.
    let items = chat(14, 4_000);
    let first = |pairs: &[(&str, &str)]| {
        let mut g = Gemini::with_params(params(40_000, 500, pairs));
        let events = drive(&mut g, &items, 0);
        events
            .into_iter()
            .map(|(_, e)| e)
            .find(|e| e.kind == EventKind::Compress)
            .expect("a compression")
    };
    let two = first(&[]);
    let one = first(&[("verification_probe", "false")]);
    assert_eq!((two.summariser_output, one.summariser_output), (1_000, 500));
    // What is kept does not change.
    assert_eq!(
        (one.summarised, one.tokens_after),
        (two.summarised, two.tokens_after)
    );
    // The probe call read the slice (≥ 14,000 tokens), the summary and the probe text, and
    // its own copy of the compression prompt.
    assert!(one.summariser_input > COMPRESSION_PROMPT_TOKENS + 14_000);
    assert!(
        two.summariser_input - one.summariser_input > COMPRESSION_PROMPT_TOKENS + 14_000 + 500,
        "{} vs {}",
        two.summariser_input,
        one.summariser_input
    );
}

#[test]
fn threshold_and_preserve_settings_move_the_trigger_and_the_split() {
    let items = chat(14, 4_000);
    let first = |pairs: &[(&str, &str)]| {
        let mut g = Gemini::with_params(params(40_000, 500, pairs));
        drive(&mut g, &items, 0).into_iter().next().unwrap()
    };
    let (k_default, e_default) = first(&[]);
    let (k_low, _) = first(&[("threshold", "0.25")]);
    assert_eq!(k_default, 11);
    // 0.25 × 40,000 = 10,000 ≥ (2k−1) × 1,000 first at k = 6.
    assert_eq!(k_low, 6);
    let (_, e_keep_more) = first(&[("preserve_fraction", "0.6")]);
    assert!(e_keep_more.kept > e_default.kept);
    assert!(e_keep_more.summarised < e_default.summarised);
    // An overhead counts in the trigger (it is in the API's prompt count).
    let mut g = Gemini::with_params(params(40_000, 500, &[]));
    let (k_over, _) = drive(&mut g, &items, 6_000).into_iter().next().unwrap();
    assert_eq!(k_over, 8);
}

#[test]
fn no_split_point_is_a_noop_even_above_the_threshold() {
    // One prompt, then tool calls only: index 0 is the only valid split point.
    let mut items = vec![text_item(Role::User, true, "do it")];
    for i in 0..30 {
        items.push(call_item(&format!("c{i}"), "read_file"));
        items.push(result_item(
            &format!("c{i}"),
            "read_file",
            &"x".repeat(4_000),
            false,
        ));
    }
    items.push(call_item("last", "glob"));
    let mut g = Gemini::with_params(params(20_000, 500, &[("masking", "false")]));
    let events = drive(&mut g, &items, 0);
    assert!(events.is_empty(), "{events:?}");
    assert!(g.context_tokens() > 20_000);
}

#[test]
fn an_empty_summary_fails_every_check_without_a_pass_over_the_history() {
    // `--summary-tokens 0`: every compression fails with an empty summary and nothing marks
    // the failure, so the context grows past the window and every later request checks again.
    // Each check must not take the pure port's pass over the whole history (it did, which
    // made a 6,000-turn session take minutes).
    let items = chat(400, 4_000);
    let mut g = Gemini::with_params(params(100_000, 0, &[("masking", "false")]));
    let events = drive(&mut g, &items, 0);
    assert!(events.is_empty(), "{events:?}");
    assert!(!g.failed());
    assert!(g.context_tokens() > 2 * 100_000, "past the window");
    assert_eq!(g.curated_passes(), 0);
    assert_eq!(g.decision().status, 4, "COMPRESSION_FAILED_EMPTY_SUMMARY");
}

/// Twelve turns, each reading a tool output of 30,000 CJK characters: 45,000 text tokens each,
/// so the 50,000-token budget is crossed by the second newest; the prompts between them give
/// split points.
pub(super) fn cjk_reads() -> Vec<HistoryItem> {
    let mut items = vec![HistoryItem {
        is_context: true,
        ..text_item(Role::User, false, "<session_context>env</session_context>")
    }];
    for i in 0..12 {
        items.push(text_item(Role::User, true, &format!("prompt {i}")));
        items.push(call_item(&format!("c{i}"), "read_file"));
        items.push(result_item(
            &format!("c{i}"),
            "read_file",
            &"漢".repeat(30_000),
            false,
        ));
        items.push(text_item(Role::Assistant, false, "ok"));
    }
    items
}

#[test]
fn an_inflated_summary_fails_once_and_switches_to_truncation_only() {
    let items = cjk_reads();
    // JSON counts CJK as one character each: 30,000 chars ≈ 7,500 tokens per output. With
    // maxChars 5,000 a truncated output keeps 1,000 + 4,000 characters.
    let limit = 100_000;
    let huge_summary = 1_000_000;
    let mut g = Gemini::with_params(params(
        limit,
        huge_summary,
        &[
            ("masking", "false"),
            ("truncate_tool_output_threshold", "5000"),
        ],
    ));
    let events = drive(&mut g, &items, 0);
    let kinds: Vec<EventKind> = events.iter().map(|(_, e)| e.kind).collect();
    assert_eq!(kinds[0], EventKind::Failed);
    assert!(g.failed());
    assert!(!kinds.contains(&EventKind::Compress), "{kinds:?}");
    let (k_fail, fail) = &events[0];
    assert_eq!(fail.tokens_after, fail.tokens_before, "nothing changed");
    assert!(fail.measure.is_some_and(|m| m as f64 >= 0.5 * limit as f64));
    assert_eq!(fail.summariser_output, 2 * huge_summary);
    // Later requests above the threshold only truncate, and only when that makes it smaller.
    let truncations: Vec<_> = events
        .iter()
        .filter(|(_, e)| e.kind == EventKind::Truncate)
        .collect();
    assert!(!truncations.is_empty());
    for (k, e) in &truncations {
        assert!(k > k_fail);
        assert!(e.measure.is_some_and(|m| m as f64 >= 0.5 * limit as f64));
        assert!(e.tokens_after < e.tokens_before);
        assert_eq!(e.summariser_tokens(), 0);
    }
    // The outputs older than the budget now carry the truncation header.
    let h = g.history();
    let text = to_json(&J::Arr(h));
    assert!(text.contains("Output too large. Showing first 1,000 and last 4,000 characters."));
}

/// Feed `items` up to the request `at` (the assistant item `at`) and make the user's
/// `/compress` there; the events of that request (the forced one first) and the requests before.
fn compress_by_hand(
    g: &mut Gemini,
    items: &[HistoryItem],
    at: usize,
) -> (Vec<crate::replay::Event>, Vec<crate::replay::Event>) {
    let mut prev = None;
    let mut k = 0;
    let mut before = Vec::new();
    for it in items {
        if it.role == Role::Assistant {
            let req = request(k, prev);
            if k == at {
                let mut here: Vec<_> = g.compact_now(&req).into_iter().collect();
                here.extend(g.before_request(&req));
                return (before, here);
            }
            before.extend(g.before_request(&req));
            prev = Some(g.context_tokens());
            k += 1;
        }
        g.push(it);
    }
    panic!("no request {at}");
}

#[test]
fn a_compress_by_hand_ignores_the_threshold_and_the_next_check_sees_the_new_history() {
    // `/compress` before request 4 of the chat above: far below the 20,000-token trigger
    // (the previous prompt is about 7,000), the history is compressed all the same: the split
    // falls at the newest prompt, the only one past 70% of the characters.
    let items = chat(14, 4_000);
    let mut g = Gemini::with_params(params(40_000, 500, &[("masking", "false")]));
    let (before, here) = compress_by_hand(&mut g, &items, 4);
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(
        here.len(),
        1,
        "the automatic check does not fire after it: {here:?}"
    );
    let e = &here[0];
    assert_eq!(e.kind, EventKind::Compress);
    assert!(e.measure.is_some_and(|m| m < 8_000), "{e:?}");
    assert_eq!((e.summarised, e.kept), (9, 1));
    assert!(e.tokens_after < e.tokens_before / 4, "{e:?}");
    // The chat was re-created: its check read the local estimate of the new history.
    assert_eq!(g.decision().prompt, e.tokens_after);
    assert!(!g.failed());
}

#[test]
fn a_compress_by_hand_ignores_a_remembered_failure_and_its_own_does_not_count() {
    let items = cjk_reads();
    let opts = [
        ("masking", "false"),
        ("truncate_tool_output_threshold", "5000"),
    ];
    // An inflated `/compress` leaves truncation-only mode off (`||= !force`)…
    let mut g = Gemini::with_params(params(100_000, 1_000_000, &opts));
    let (_, here) = compress_by_hand(&mut g, &items, 4);
    assert_eq!(here[0].kind, EventKind::Failed);
    assert_eq!(here[0].summariser_output, 2_000_000);
    assert!(!g.failed());
    // …and once an automatic attempt set it, a `/compress` still summarises (two calls)
    // rather than only truncating, and leaves it set.
    let mut g = Gemini::with_params(params(100_000, 1_000_000, &opts));
    let (before, here) = compress_by_hand(&mut g, &items, 22);
    assert!(before.iter().any(|e| e.kind == EventKind::Failed));
    assert!(g.failed());
    assert_eq!(here[0].kind, EventKind::Failed);
    assert_eq!(here[0].summariser_output, 2_000_000);
    assert!(g.failed());
}

#[test]
fn masking_fires_only_past_protection_plus_prunable() {
    // Outputs of 40,000 ASCII characters: estimateTokenCountSync([part]) counts the name and the
    // JSON of the response, not the id: floor((9 + len('{"output":"…"}')) / 4).
    let out = "y".repeat(40_000);
    let t = (9 + 11 + 40_000 + 2) / 4;
    let part = J::obj(vec![(
        "functionResponse",
        J::obj(vec![
            ("id", J::str("c0")),
            ("name", J::str("read_file")),
            ("response", J::obj(vec![("output", J::str(out.as_str()))])),
        ]),
    )]);
    assert_eq!(
        estimate_token_count_sync(&[part], Estimator::newest(1.5)),
        t as u64
    );
    let mut items = vec![text_item(Role::User, true, "go")];
    for i in 0..10 {
        items.push(call_item(&format!("c{i}"), "read_file"));
        items.push(result_item(&format!("c{i}"), "read_file", &out, false));
    }
    items.push(text_item(Role::Assistant, false, "done"));
    let mut g = Gemini::with_params(params(10_000_000, 500, &[]));
    let events = drive(&mut g, &items, 0);
    // Request k (before call k, or "done" for k = 10) sees outputs 0..k−1; the newest content
    // (output k−1) is protected. Of the k−1 scanned, the fifth newest crosses 50,000 and is
    // prunable with all older: (k − 5) × t ≥ 30,000 first at k = 8, masking outputs 0..2.
    // Afterwards masked outputs no longer count: at k = 9 and 10 only 1 and 2 are prunable.
    assert_eq!(events.len(), 1, "{events:?}");
    let (k, e) = &events[0];
    assert_eq!((*k, e.kind, e.summarised), (8, EventKind::Mask, 3));
    assert_eq!(
        e.measure, None,
        "masking runs every turn: no trigger figure"
    );
    let masked = to_json(&J::Arr(g.history()));
    assert_eq!(masked.matches("<tool_output_masked>").count(), 3);
    assert!(e.tokens_before - e.tokens_after > 3 * (t as u64 - 300));
    // Thresholds 20,000 + 10,000: 2 × t = 20,010 already crosses, so (k − 2) × t ≥ 10,000 at
    // k = 3.
    let mut g = Gemini::with_params(params(
        10_000_000,
        500,
        &[
            ("masking_protection_threshold", "20000"),
            ("masking_min_prunable", "10000"),
        ],
    ));
    let events = drive(&mut g, &items, 0);
    assert_eq!(events[0].0, 3);
    // Off, or with the latest turn unprotected (one more output scanned → k = 7).
    let mut g = Gemini::with_params(params(10_000_000, 500, &[("masking", "false")]));
    assert!(drive(&mut g, &items, 0).is_empty());
    let mut g = Gemini::with_params(params(
        10_000_000,
        500,
        &[("masking_protect_latest_turn", "false")],
    ));
    assert_eq!(drive(&mut g, &items, 0)[0].0, 7);
}

// ---------------------------------------------------------------------------------------------
// Benchmark (release): cargo test --release --lib replay::gemini::tests::bench -- --ignored --nocapture

pub(super) fn bench_session(shape: &str, messages: usize) -> crate::replay::ReplayInput {
    use crate::replay::{ReplayInput, RequestPoint};
    let mut r = Rng(0x5eed_1234_abcd_0001);
    let mut items = vec![HistoryItem {
        is_context: true,
        ..text_item(
            Role::User,
            false,
            "<session_context>\nbench\n</session_context>",
        )
    }];
    let mut requests = Vec::new();
    let mut call = 0usize;
    let push_request = |items: &Vec<HistoryItem>, requests: &mut Vec<RequestPoint>| {
        requests.push(RequestPoint {
            upto: items.len(),
            recorded_prompt: None,
            output: 200,
            timestamp: None,
            model: Some("gemini-2.5-pro".into()),
            usage: None,
        })
    };
    let prompts_every = match shape {
        "normal" | "failed" => 12,
        _ => usize::MAX,
    };
    let initial_prompts = if shape == "few-prompts" { 3 } else { 1 };
    let mut since_prompt = usize::MAX;
    let mut prompts = 0;
    while items.len() < messages {
        if since_prompt >= prompts_every || prompts < initial_prompts {
            if prompts > 0 && since_prompt != 0 {
                // The model answers before the next prompt.
                push_request(&items, &mut requests);
                items.push(text_item(
                    Role::Assistant,
                    false,
                    &random_text(&mut r, 50, 300),
                ));
            }
            items.push(text_item(Role::User, true, &random_text(&mut r, 100, 400)));
            prompts += 1;
            since_prompt = 0;
            if shape == "few-prompts" && prompts <= initial_prompts {
                push_request(&items, &mut requests);
                items.push(text_item(Role::Assistant, false, "ok"));
            }
        }
        push_request(&items, &mut requests);
        let id = format!("c{call}");
        call += 1;
        items.push(call_item(
            &id,
            ["read_file", "run_shell_command", "grep_search"][call % 3],
        ));
        let size = if r.chance(3) {
            60_000
        } else {
            100 + r.below(3_000) as usize
        };
        let out = "x".repeat(size / 2) + &random_text(&mut r, size / 2, 0);
        items.push(result_item(
            &id,
            ["read_file", "run_shell_command", "grep_search"][call % 3],
            &out,
            false,
        ));
        since_prompt += 2;
    }
    ReplayInput {
        agent: crate::model::Agent::Gemini,
        id: shape.into(),
        path: "bench.jsonl".into(),
        project: None,
        items,
        requests,
        model: Some("gemini-2.5-pro".into()),
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

#[test]
#[ignore]
fn bench_100k_messages() {
    use crate::replay::{Algorithm, ReplayOptions, replay};
    for (shape, summary, pairs) in [
        ("normal", 1_500u64, vec![]),
        ("one-turn", 1_500, vec![]),
        ("few-prompts", 1_500, vec![]),
        ("failed", 3_000_000, vec![("masking", "false")]),
    ] {
        if std::env::var("BENCH_SHAPE").is_ok_and(|s| s != shape) {
            continue;
        }
        let n: usize = std::env::var("BENCH_N")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(100_000);
        let input = bench_session(shape, n);
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v): &(&str, &str)| (k.to_string(), v.to_string()))
            .collect();
        let opts = ReplayOptions {
            algorithm: Algorithm::Gemini,
            settings: Settings::resolve(SPECS, &pairs).unwrap(),
            context_window: None,
            summary_tokens: summary,
            summary_tokens_source: "bench",
            timeline: false,
            validate: false,
            follow_recording: false,
        };
        let t = std::time::Instant::now();
        let out = replay(&input, &opts);
        let el = t.elapsed();
        let count = |k: EventKind| out.events.iter().filter(|e| e.kind == k).count();
        to_stderr!(
            "{shape:12} {} messages, {} requests: {:?}; compress {}, failed {}, truncate {}, mask {}; peak what-if {} / full {}",
            input.items.len(),
            out.requests,
            el,
            count(EventKind::Compress),
            count(EventKind::Failed),
            count(EventKind::Truncate),
            count(EventKind::Mask),
            out.peak.what_if,
            out.peak.full
        );
    }
}
