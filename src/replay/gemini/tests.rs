//! State-machine tests of the incremental replay: compression, truncation, masking, the
//! truncation's fixed point, and the 100,000-message benchmark (ignored). The golden vectors are
//! in golden_tests.rs, the differential test in differential_tests.rs.

use super::compress::ACK;
use super::content::convert;
use super::differential_tests::{Rng, random_session, random_text};
use super::estimate::{Estimator, estimate_token_count_sync, part_est};
use super::golden_tests::s;
use super::json::{J, JsStr, json_len, to_json};
use super::split::find_compress_split_point;
use super::truncate::saved_output_path;
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
            input: serde_json::json!({"file_path": "src/lib.rs"}),
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
        model: None,
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
fn chat(turns: usize, chars: usize) -> Vec<HistoryItem> {
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
fn cjk_reads() -> Vec<HistoryItem> {
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

fn bench_session(shape: &str, messages: usize) -> crate::replay::ReplayInput {
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
        eprintln!(
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

#[test]
fn max_chars_follows_the_formula() {
    let limit = 1_048_576;
    assert_eq!(max_chars(limit, 524_288, 40_000), 40_000);
    assert_eq!(max_chars(limit, limit - 10_000, 40_000), 40_000);
    assert_eq!(max_chars(limit, limit - 9_999, 40_000), 39_996);
    assert_eq!(max_chars(limit, limit - 300, 40_000), 1_200);
    // At or past the window: 1 (the documented approximation).
    assert_eq!(max_chars(limit, limit, 40_000), 1);
    assert_eq!(max_chars(limit, limit + 5_000, 40_000), 1);
    assert_eq!(max_chars(limit, 0, 5_000), 5_000);
}

/// `formatTruncatedToolOutput` over raw UTF-16, literally (the check for the structured form).
fn reference_format(s: &[u16], file: &str, m: i64) -> Vec<u16> {
    let len = s.len() as i64;
    if len <= m {
        return s.to_vec();
    }
    let head = (m as f64 * 0.2).floor() as i64;
    let tail = m - head;
    let clamp = |x: i64| if x < 0 { (len + x).max(0) } else { x.min(len) } as usize;
    let (hs, he) = (0, clamp(head));
    let ts = clamp(-tail);
    let mut out: Vec<u16> = format!(
        "Output too large. Showing first {} and last {} characters. For full output see: {file}\n",
        super::json::js_locale_int(head),
        super::json::js_locale_int(tail)
    )
    .encode_utf16()
    .collect();
    if he > hs {
        out.extend_from_slice(&s[hs..he]);
    }
    out.extend(
        format!(
            "\n\n... [{} characters omitted] ...\n\n",
            super::json::js_locale_int(len - head - tail)
        )
        .encode_utf16(),
    );
    out.extend_from_slice(&s[ts..]);
    out
}

#[test]
fn structured_truncation_equals_the_literal_port_round_after_round() {
    use super::json::units_stats;
    use super::truncate::format_truncated_tool_output;
    let file = saved_output_path(PLACEHOLDER_PROJECT_TEMP_DIR, "grep_search", "42", None);
    let tag = "<tool_output_masked";
    let inputs = [
        ("😀".repeat(900), 501i64),
        (format!("a{}", "😀".repeat(900)), 500),
        (format!("{tag}>{}", "x\"\\\n\t\u{1}漢".repeat(400)), 1_000),
        (format!("{}{tag} at the end", "é".repeat(3_000)), 700),
        ("plain ascii line\n".repeat(500), 2_000),
        ("漢字".repeat(5_000), 40_000),
        ("0123456789".repeat(30), 7),
        // Heads of pairs longer than the header: nested rounds cut them at several places,
        // some inside a pair (headers of both parities).
        ("😀".repeat(6_000), 10_000),
        ("😀".repeat(3_000), 4_000),
        ("a😀".repeat(3_000), 4_001),
    ];
    for (text, m) in inputs {
        let mut ours = JsStr::Text(text.clone());
        let mut lit: Vec<u16> = text.encode_utf16().collect();
        for round in 0..120 {
            let next = format_truncated_tool_output(&ours, &file, m);
            let lit_next = reference_format(&lit, &file, m);
            let units = next.to_units();
            assert_eq!(units, lit_next, "m {m}, round {round}");
            assert_eq!(next.len16(), lit_next.len(), "m {m}, round {round}");
            assert_eq!(
                next.stats(),
                units_stats(&lit_next),
                "m {m}, round {round}: stats"
            );
            let lit_has = lit_next
                .windows(tag.len())
                .any(|w| w == tag.encode_utf16().collect::<Vec<_>>().as_slice());
            assert_eq!(next.contains(tag), lit_has, "m {m}, round {round}: tag");
            let fixed = lit_next == lit;
            assert_eq!(
                next == ours,
                fixed,
                "m {m}, round {round}: fixed point recognised"
            );
            ours = next;
            lit = lit_next;
        }
        assert_eq!(
            reference_format(&lit, &file, m),
            lit,
            "m {m}: no fixed point in 120 rounds"
        );
    }
}

/// One scan of each long string gives what the three measures of a part give.
#[test]
fn part_sizes_are_the_separate_measures() {
    use super::estimate::{PartSizes, part_sizes};
    use super::truncate::measured;
    let fr = |response: Option<J>| {
        let mut fr = vec![("name", J::Str("run_shell_command".into()))];
        fr.extend(response.map(|r| ("response", r)));
        J::obj(vec![("functionResponse", J::obj(fr))])
    };
    let long = "line \"quoted\" \\ tab\t é 漢 😀\n".repeat(300);
    let output = |s: &str| J::obj(vec![("output", J::Str(s.into()))]);
    let mut parts = vec![
        J::obj(vec![("text", J::Str(long.as_str().into()))]),
        J::obj(vec![
            ("text", J::Str("both".into())),
            ("thought", J::Bool(true)),
        ]),
        fr(Some(output(&long))),
        fr(Some(J::Str(long.as_str().into()))),
        fr(Some(J::obj(vec![
            ("content", J::Str(long.as_str().into())),
            ("exitCode", J::Num(1.0)),
        ]))),
        fr(Some(J::obj(vec![
            ("output", J::Num(3.0)),
            ("error", J::Str("failed".into())),
        ]))),
        fr(Some(J::obj(vec![(
            "files",
            J::Arr(vec![J::Str(long.as_str().into())]),
        )]))),
        fr(Some(J::Null)),
        fr(None),
        fr(Some(J::Str(JsStr::Wide(vec![0xd83d, b'a' as u16])))),
        fr(Some(
            output("").with("output", J::Str(JsStr::Filler(5_000))),
        )),
        J::obj(vec![(
            "functionResponse",
            J::obj(vec![
                ("name", J::Str("read_many_files".into())),
                ("response", output(&long)),
                (
                    "parts",
                    J::Arr(vec![J::obj(vec![("text", J::Str("nested".into()))])]),
                ),
            ]),
        )]),
        J::obj(vec![("functionResponse", J::obj(vec![]))]),
        J::obj(vec![
            ("text", J::Str(long.as_str().into())),
            ("functionResponse", output(&long)),
        ]),
        J::obj(vec![(
            "inlineData",
            J::obj(vec![
                ("mimeType", J::Str("image/png".into())),
                ("data", J::Str(JsStr::Filler(9_000))),
            ]),
        )]),
        J::obj(vec![(
            "functionCall",
            J::obj(vec![(
                "args",
                J::obj(vec![("command", J::Str(long.as_str().into()))]),
            )]),
        )]),
        J::Str("not an object".into()),
    ];
    for seed in 1..=12 {
        for item in random_session(seed, 40) {
            parts.extend(convert(&item, false).into_iter().flat_map(|(_, p)| p));
        }
    }
    let mut responses = 0;
    for p in &parts {
        let old = super::estimate::OLDEST_ESTIMATOR;
        let v026 = Estimator {
            non_ascii_weight: 1.3,
            image_estimate: true,
            ..old
        };
        for w in [Estimator::newest(1.5), Estimator::newest(1.3), old, v026] {
            let fr = p.get("functionResponse").filter(|f| f.truthy());
            responses += usize::from(fr.is_some());
            let expected = PartSizes {
                json: json_len(p),
                est: part_est(p, w),
                measured: fr.map(|f| {
                    measured(f.get("response")).map_or_else(Default::default, |s| s.stats())
                }),
            };
            assert_eq!(part_sizes(p, w), expected, "{}", to_json(p));
        }
    }
    assert!(responses > 100, "{responses} function responses compared");
}

#[test]
fn before_v0_31_an_inflated_summary_leaves_auto_compression_off() {
    // As `an_inflated_summary_fails_once_and_switches_to_truncation_only`, in the era before
    // truncation-only mode: the failed attempt turns automatic compression off for the chat.
    let items = cjk_reads();
    let mut g = Gemini::with_params(params(
        100_000,
        1_000_000,
        &[
            ("masking", "false"),
            ("truncate_tool_output_threshold", "5000"),
            ("truncation_only_after_failure", "false"),
        ],
    ));
    let events = drive(&mut g, &items, 0);
    let kinds: Vec<EventKind> = events.iter().map(|(_, e)| e.kind).collect();
    assert_eq!(kinds, vec![EventKind::Failed], "{kinds:?}");
    assert!(g.failed());
    // Later requests were above the threshold: each was a NOOP.
    assert_eq!(g.decision().status, 5);
}

#[test]
fn old_outputs_are_cut_as_the_era_did_or_not_at_all() {
    // Multi-line CJK reads of 600 lines × 50 = 30,000 units: 7,500 tokens each in the history
    // (JSON length / 4), 45,000 each to the reverse budget (text heuristic at 1.5), so every
    // output but the newest is past the 50,000-token budget at a compression.
    let mut items = vec![HistoryItem {
        is_context: true,
        ..text_item(Role::User, false, "<session_context>env</session_context>")
    }];
    for i in 0..12 {
        items.push(text_item(Role::User, true, &format!("prompt {i}")));
        items.push(call_item(&format!("c{i}"), "read_file"));
        let body = vec!["漢".repeat(49); 600].join("\n");
        items.push(result_item(&format!("c{i}"), "read_file", &body, false));
        items.push(text_item(Role::Assistant, false, "ok"));
    }
    let outputs = |pairs: &[(&str, &str)]| {
        // Keeping 90% of the history keeps the cut outputs in it.
        let mut all = vec![("masking", "false"), ("preserve_fraction", "0.9")];
        all.extend_from_slice(pairs);
        let mut g = Gemini::with_params(params(100_000, 500, &all));
        // The history right after the first compression: its kept tail as truncated.
        let (mut prev, mut k, mut after) = (None, 0, None);
        for it in &items {
            if it.role == Role::Assistant {
                let es = g.before_request(&request(k, prev));
                if after.is_none() && es.iter().any(|e| e.kind == EventKind::Compress) {
                    after = Some(g.history());
                }
                prev = Some(g.context_tokens());
                k += 1;
            }
            g.push(it);
        }
        let texts: Vec<String> = after
            .unwrap_or_else(|| panic!("{pairs:?}: no compression"))
            .iter()
            .flat_map(|c| c.get("parts").unwrap().as_array().unwrap().clone())
            .filter_map(|p| {
                let r = p.get("functionResponse")?.get("response")?;
                Some(to_json(r))
            })
            .collect();
        texts
    };
    // v0.29+: head and tail characters (5,000 of them at the 5,000 cap set here).
    let chars = outputs(&[("truncate_tool_output_threshold", "5000")]);
    assert!(
        chars
            .iter()
            .any(|t| t.contains("Showing first 1,000 and last 4,000")),
        "{:?}",
        chars
            .iter()
            .map(|t| t.chars().take(150).collect::<String>())
            .collect::<Vec<_>>()
    );
    // v0.26–v0.28: the last 30 lines; maxChars plays no part.
    let lines = outputs(&[
        ("truncate_tool_output_threshold", "5000"),
        ("truncate_last_lines", "true"),
    ]);
    let cut: Vec<&String> = lines
        .iter()
        .filter(|t| t.contains("Output too large. Showing the last 30 of 600 lines."))
        .collect();
    assert!(!cut.is_empty(), "{lines:?}");
    assert!(
        cut.iter()
            .all(|t| t.contains("/tool_output/read_file_42.txt"))
    );
    assert!(!lines.iter().any(|t| t.contains("Showing first")));
    // Before v0.26: every kept output is whole.
    let none = outputs(&[("reverse_budget_truncation", "false")]);
    assert!(!none.is_empty());
    assert!(
        none.iter().all(|t| !t.contains("Output too large")),
        "{none:?}"
    );
}

#[test]
fn before_v0_8_the_trigger_counts_the_history() {
    // The previous response's prompt size says nothing to a countTokens trigger: the history
    // at the check does (the engine's calibrated `context_now` plus what joined since).
    let items = chat(40, 4_000);
    let run = |pairs: &[(&str, &str)], prev: u64, now: u64| {
        let mut g = Gemini::with_params(params(100_000, 500, pairs));
        for it in &items {
            g.push(it);
        }
        let req = RequestInfo {
            context_now: now,
            ..request(0, Some(prev))
        };
        let events = g.before_request(&req);
        // A compression check's event carries the figure the trigger compared.
        for e in &events {
            assert_eq!(e.measure, Some(g.decision().prompt));
        }
        let kinds: Vec<EventKind> = events.iter().map(|e| e.kind).collect();
        (kinds, g.decision().prompt)
    };
    let count = [
        ("masking", "false"),
        ("trigger_last_prompt_tokens", "false"),
    ];
    assert_eq!(run(&count, 0, 90_000), (vec![EventKind::Compress], 90_000));
    assert_eq!(run(&count, 90_000, 1_000), (vec![], 1_000));
    let last = [("masking", "false")];
    assert_eq!(
        run(&last, 90_000, 1_000),
        (vec![EventKind::Compress], 90_000)
    );
    assert_eq!(run(&last, 0, 90_000), (vec![], 0));
}

/// The engine replays the Gemini CLI version a file's format and date show: a legacy `.json`
/// session from the v0.16 days has no masking (v0.30+), the 1.3 non-ASCII weight (1.5 from
/// v0.42), no turn coalescing (v0.53+) and no truncation-only mode (v0.31+); a value given with
/// `--set` wins.
#[test]
fn the_engine_replays_the_era_the_file_shows() {
    use crate::replay::{Algorithm, ReplayOptions, replay};
    let run = |path: &str, started: Option<&str>, pairs: &[(&str, &str)]| {
        let mut input = bench_session("normal", 300);
        input.path = path.into();
        input.started_at = started.map(|s| s.parse().unwrap());
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let opts = ReplayOptions {
            algorithm: Algorithm::Gemini,
            settings: Settings::resolve(SPECS, &pairs).unwrap(),
            context_window: None,
            summary_tokens: 1_500,
            summary_tokens_source: "test",
            timeline: false,
            validate: false,
            follow_recording: false,
        };
        replay(&input, &opts)
    };
    let masks = |r: &crate::replay::SessionReplay| {
        r.events
            .iter()
            .filter(|e| e.kind == EventKind::Mask)
            .count()
    };
    let newest = run("bench.jsonl", None, &[]);
    assert!(masks(&newest) > 0);
    assert!(newest.settings.flag("masking") && newest.settings.flag("coalesce_turns"));
    assert_eq!(newest.settings.num("non_ascii_weight"), 1.5);

    let old = run("session.json", Some("2025-11-18T12:00:00Z"), &[]);
    assert_eq!(masks(&old), 0, "{:?}", old.events);
    let s = &old.settings;
    assert_eq!((s.num("threshold"), s.num("non_ascii_weight")), (0.2, 1.3));
    assert!(!s.flag("masking") && !s.flag("coalesce_turns"));
    assert!(!s.flag("truncation_only_after_failure") && s.flag("trigger_last_prompt_tokens"));
    assert!(!s.flag("reverse_budget_truncation") && !s.flag("verification_probe"));
    assert!(newest.settings.flag("reverse_budget_truncation"));
    assert!(!newest.settings.flag("truncate_last_lines"));
    // A file of v0.28 (started 2026-02-12) cut old outputs by lines.
    let v028 = run("session.json", Some("2026-02-12T12:00:00Z"), &[]);
    assert!(v028.settings.flag("reverse_budget_truncation"));
    assert!(v028.settings.flag("truncate_last_lines"));
    assert!(v028.settings.flag("verification_probe"));
    assert!(
        v028.notes
            .iter()
            .any(|n| n.starts_with("Gemini CLI 0.28.0 assumed")
                && n.contains("truncated outputs keep their last 30 lines")),
        "{:?}",
        v028.notes
    );
    assert!(
        old.notes
            .iter()
            .any(|n| n.starts_with("Gemini CLI 0.16.0 assumed")),
        "{:?}",
        old.notes
    );
    // The estimator of the era sizes the history (lighter non-ASCII text, function responses
    // by their JSON length).
    assert_ne!(old.totals.full, newest.totals.full);

    let given = run(
        "session.json",
        Some("2025-11-18T12:00:00Z"),
        &[("masking", "true"), ("threshold", "0.5")],
    );
    assert!(masks(&given) > 0);
    assert_eq!(given.settings.num("threshold"), 0.5);
    let given = run(
        "session.json",
        Some("2026-02-12T12:00:00Z"),
        &[("truncate_last_lines", "false")],
    );
    assert!(!given.settings.flag("truncate_last_lines"));
    assert_eq!(given.settings.num("non_ascii_weight"), 1.3);
}
