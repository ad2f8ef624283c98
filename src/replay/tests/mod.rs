//! Engine tests on hand-built histories: anchoring, the three series, totals, and the Claude
//! and Codex triggers whose thresholds are simple enough to compute by hand.

use super::settings::Settings;
use super::*;
use crate::model::{CompactionKind, Message, Provenance, Session, Trigger, Usage};

fn item(role: Role, human: bool, text: &str) -> HistoryItem {
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

/// `turns` user/assistant pairs, each message `chars` ASCII characters (chars/4 tokens), one
/// request per assistant message with the given recorded prompt function.
fn input(turns: usize, chars: usize, recorded: impl Fn(usize, u64) -> Option<u64>) -> ReplayInput {
    let mut items = Vec::new();
    let mut requests = Vec::new();
    let mut history = 0u64;
    for k in 0..turns {
        items.push(item(Role::User, true, &"u".repeat(chars)));
        history += (chars as u64).div_ceil(4);
        requests.push(RequestPoint {
            upto: items.len(),
            recorded_prompt: recorded(k, history),
            output: (chars as u64).div_ceil(4),
            timestamp: None,
            model: Some("claude-sonnet-4-5".into()),
            usage: None,
        });
        items.push(item(Role::Assistant, false, &"a".repeat(chars)));
        history += (chars as u64).div_ceil(4);
    }
    ReplayInput {
        agent: Agent::Claude,
        id: "t".into(),
        path: "t.jsonl".into(),
        project: None,
        items,
        requests,
        model: Some("claude-sonnet-4-5".into()),
        recorded_usage: true,
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

fn opts(alg: Algorithm, summary: u64, pairs: &[(&str, &str)]) -> ReplayOptions {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ReplayOptions {
        algorithm: alg,
        settings: Settings::resolve(alg.specs(), &pairs).unwrap(),
        // These sessions record prompts above 200k on a 200k model, which a real one cannot:
        // the window is pinned so that the 1M inference (tested on its own) stays out.
        context_window: Some(200_000),
        summary_tokens: summary,
        summary_tokens_source: "test",
        timeline: true,
        validate: true,
        follow_recording: false,
    }
}

#[test]
fn overhead_is_anchored_on_the_first_recorded_request() {
    // Recorded = 5,000 overhead + the history; each message 4,000 chars = 1,000 tokens.
    let inp = input(3, 4_000, |_, h| Some(5_000 + h));
    let r = replay(&inp, &opts(Algorithm::Claude, 3_000, &[]));
    let t = r.timeline.as_ref().unwrap();
    assert_eq!(
        t.iter().map(|p| p.full).collect::<Vec<_>>(),
        [6_000, 8_000, 10_000]
    );
    assert_eq!(
        t.iter().map(|p| p.recorded.unwrap()).collect::<Vec<_>>(),
        [6_000, 8_000, 10_000]
    );
    // Nothing crosses 167k: what-if equals full, nothing saved.
    assert_eq!(r.totals.full, 24_000);
    assert_eq!(r.totals.what_if, 24_000);
    assert_eq!(r.totals.saved, 0);
    assert_eq!(r.compressions, 0);
    assert_eq!(r.basis, "recorded");
}

#[test]
fn claude_compacts_at_window_minus_output_cap_minus_buffer() {
    let inp = input(1, 4, |_, _| None);
    let ctx_threshold = threshold(
        Algorithm::Claude,
        &StrategyContext {
            settings: Settings::resolve(claude::SPECS, &[]).unwrap(),
            limits: window::resolve(Some("claude-sonnet-4-5"), None, None, (0, 0)),
            summary_tokens: 0,
            agent_version: None,
            native: true,
            model: None,
            sweep: false,
        },
    );
    assert_eq!(ctx_threshold, Some(200_000 - 20_000 - 13_000));
    drop(inp);
    // 40,000-token messages, no overhead: requests see 40k, 120k, 200k (≥ 167k → compact).
    let inp = input(4, 160_000, |_, h| Some(h));
    let r = replay(&inp, &opts(Algorithm::Claude, 3_000, &[]));
    let t = r.timeline.as_ref().unwrap();
    assert_eq!(
        t.iter().map(|p| p.full).collect::<Vec<_>>(),
        [40_000, 120_000, 200_000, 280_000]
    );
    // At request 2 the 5 messages (200k) are summarised into 3k; request 3 adds 40k + 40k.
    assert_eq!(
        t.iter().map(|p| p.what_if).collect::<Vec<_>>(),
        [40_000, 120_000, 3_000, 83_000]
    );
    assert_eq!(r.events.len(), 1);
    let e = &r.events[0];
    assert_eq!(
        (
            e.request,
            e.summarised,
            e.kept,
            e.tokens_before,
            e.tokens_after
        ),
        (2, 5, 0, 200_000, 3_000)
    );
    assert_eq!(e.summariser_tokens(), 200_000 + 3_000);
    assert_eq!(r.totals.saved, (640_000 - 246_000) as i64);
    assert_eq!(r.totals.net_saved, r.totals.saved - 203_000);
    assert_eq!(r.peak.full, 280_000);
    assert_eq!(r.over_window.full, 1);
    assert_eq!(r.over_window.what_if, 0);
    // A lower override can only lower the threshold.
    let r = replay(
        &inp,
        &opts(Algorithm::Claude, 3_000, &[("autocompact_pct", "50")]),
    );
    assert_eq!(r.events[0].request, 1);
}

#[test]
fn codex_keeps_recent_user_messages_within_budget() {
    // 32,000-char messages = 8,000 tokens; 272k window → limit 244,800 on prompt + output.
    let mut inp = input(20, 32_000, |_, h| Some(h));
    inp.model = Some("gpt-5-codex".into());
    inp.agent = Agent::Codex;
    let mut o = opts(Algorithm::Codex, 1_500, &[]);
    o.context_window = None;
    let r = replay(&inp, &o);
    let e = &r.events[0];
    // After request k the total is 8,000 × (2k + 1) + 8,000 of output = 16,000 × (k + 1):
    // 240,000 after request 14, below the limit; the newest version's measure (0.99+) adds
    // the 8,000 of the prompt recorded after the response: 248,000. The check after sampling
    // compacts there, acting from request 15, on the 232,000 of request 14's context.
    assert_eq!(e.request, 15);
    assert_eq!(e.measure, Some(248_000));
    assert_eq!(e.tokens_before, 232_000);
    // Kept: the newest user messages up to 20,000 tokens = two whole ones and half of a third.
    assert_eq!(e.kept, 3);
    assert_eq!(e.tokens_after, 20_000 + 1_500);
    let t = r.timeline.as_ref().unwrap();
    // Then the assistant answer and the new prompt (8k each) join, request by request.
    assert_eq!(t[15].what_if, 21_500 + 16_000);
    assert_eq!(t[16].what_if, 21_500 + 32_000);
    let r = replay(
        &inp,
        &opts(
            Algorithm::Codex,
            1_500,
            &[("auto_compact_token_limit", "100000")],
        ),
    );
    assert_eq!(r.events[0].request, 6);
}

#[test]
fn codex_measure_follows_the_recorded_version() {
    // Prompts 8,000 × (2k + 1); each response 20,000 tokens of output, 12,000 of them
    // reasoning; 272k window → limit 244,800.
    let mut inp = input(20, 32_000, |_, h| Some(h));
    inp.model = Some("gpt-5-codex".into());
    inp.agent = Agent::Codex;
    for r in &mut inp.requests {
        r.output = 20_000;
        r.usage = Some(Usage {
            input: r.recorded_prompt.unwrap(),
            output: 20_000,
            reasoning: 12_000,
            ..Usage::default()
        });
    }
    let mut o = opts(Algorithm::Codex, 1_500, &[]);
    o.context_window = None;
    let mut first = |version: &str| {
        inp.agent_version = Some(version.into());
        let r = replay(&inp, &o);
        let e = &r.events[0];
        (e.request, e.measure)
    };
    // 0.35–0.63: total − reasoning = 16,000 k + 16,000: 256,000 after request 15.
    assert_eq!(first("0.50.0"), (16, Some(256_000)));
    // 0.64–0.98: the total, 16,000 k + 28,000: 252,000 after request 14.
    assert_eq!(first("0.70.0"), (15, Some(252_000)));
    // 0.99+: + bytes/4 of what was recorded after the response (the next prompt, 8,000).
    assert_eq!(first("0.125.0"), (15, Some(260_000)));
}

#[test]
fn codex_measure_adds_the_tool_outputs_recorded_after_the_response() {
    // A turn of tool calls: each response calls a tool whose 40,000-byte output (10,000
    // tokens) is recorded before the next request.
    let mut items = vec![item(Role::User, true, &"u".repeat(4_000))];
    let mut requests = Vec::new();
    let mut prompt = 1_000u64;
    for _ in 0..30 {
        requests.push(RequestPoint {
            upto: items.len(),
            recorded_prompt: Some(prompt),
            output: 100,
            timestamp: None,
            model: Some("gpt-5-codex".into()),
            usage: None,
        });
        items.push(item(Role::Assistant, false, &"a".repeat(400)));
        items.push(HistoryItem {
            role: Role::Tool,
            ..item(Role::Tool, false, &"o".repeat(40_000))
        });
        prompt += 100 + 10_000;
    }
    let mut inp = input(1, 4, |_, h| Some(h));
    inp.items = items;
    inp.requests = requests;
    inp.model = Some("gpt-5-codex".into());
    inp.agent = Agent::Codex;
    let mut o = opts(Algorithm::Codex, 1_500, &[]);
    o.context_window = None;
    let mut first = |version: &str| {
        inp.agent_version = Some(version.into());
        let r = replay(&inp, &o);
        let e = &r.events[0];
        (e.request, e.measure)
    };
    // Prompt k = 1,000 + 10,100 k; total = prompt + 100. 0.98: 243,500 after request 24,
    // 253,600 after request 25.
    assert_eq!(first("0.98.0"), (26, Some(253_600)));
    // 0.99: + the 10,000-token output recorded after each response: one request earlier.
    assert_eq!(first("0.99.0"), (25, Some(243_500 + 10_000)));
}

#[test]
fn estimates_only_when_nothing_was_recorded() {
    let mut inp = input(2, 400, |_, _| None);
    inp.recorded_usage = false;
    let r = replay(&inp, &opts(Algorithm::Claude, 3_000, &[]));
    assert_eq!(r.basis, "estimated");
    assert!(r.notes.iter().any(|n| n.contains("estimate")));
    assert_eq!(r.timeline.as_ref().unwrap()[0].full, 100);
    assert_eq!(r.totals.recorded, 0);
}

#[test]
fn unknown_model_says_which_window_it_assumed() {
    let mut inp = input(1, 40, |_, h| Some(h));
    inp.model = Some("mystery-model".into());
    let mut o = opts(Algorithm::Claude, 3_000, &[]);
    o.context_window = None;
    let r = replay(&inp, &o);
    assert_eq!(r.limits.source, window::WindowSource::Default);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("mystery-model") && n.contains("200,000-token window"))
    );
}

/// A session whose first request already follows the agent's compaction (resumed or
/// continued): the log is the compacted history, so it is the recorded one until either side
/// acts. Calibrated on its requests, no saving against `recorded` without an intervention.
#[test]
fn a_session_resumed_after_a_compaction_reports_no_saving_it_did_not_make() {
    // 4,000 tokens of system prompt and tools the log does not show; 1.2 tokens per estimated.
    let mut inp = input(10, 400, |_, h| Some(4_000 + h * 6 / 5));
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.request_index = 0;
    c.trigger = Trigger::Auto;
    inp.recorded_compactions = vec![c];
    for alg in [Algorithm::Pi, Algorithm::Claude, Algorithm::Codex] {
        let r = replay(&inp, &opts(alg, 3_000, &[]));
        assert!(r.events.is_empty(), "{alg:?}: {:?}", r.events);
        assert_eq!(r.calibration.requests_used, 10, "{alg:?}");
        assert_eq!(r.totals.what_if, r.totals.recorded, "{alg:?}");
        assert_eq!(r.totals.full, r.totals.recorded, "{alg:?}");
        assert_eq!(
            (r.totals.saved_vs_recorded, r.totals.saved_vs_recorded_pct),
            (0, 0.0),
            "{alg:?}"
        );
        assert!(
            r.notes.iter().any(|n| n.contains("resumed or continued")),
            "{:?}",
            r.notes
        );
        // Nothing the replay could have reproduced: not a row to validate.
        if alg == Algorithm::Claude {
            assert!(r.validation.as_ref().unwrap().is_empty());
            assert_eq!(r.fidelity.unwrap().recorded_auto, 0);
        }
    }
}

/// Recorded usage only after the agent's first compaction: nothing to calibrate on, so no
/// saving against `recorded` is made up from the estimator's error.
#[test]
fn nothing_recorded_before_the_first_compaction_reports_no_saving_against_recorded() {
    let mut inp = input(8, 400, |k, h| (k >= 3).then_some(4_000 + h));
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.request_index = 3;
    inp.recorded_compactions = vec![c];
    let r = replay(&inp, &opts(Algorithm::Pi, 3_000, &[]));
    assert!(r.events.is_empty());
    assert_eq!(r.calibration.requests_used, 0);
    assert_eq!(r.basis, "estimated");
    assert_eq!(
        (r.totals.saved_vs_recorded, r.totals.saved_vs_recorded_pct),
        (0, 0.0)
    );
    assert_eq!(r.cost.saved_vs_recorded_usd, None);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("no recorded prompt size before")),
        "{:?}",
        r.notes
    );
}

#[test]
fn validation_pairs_recorded_and_replayed_compactions() {
    let mut inp = input(4, 160_000, |_, h| Some(h));
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.request_index = 2;
    c.tokens_before = Some(190_000);
    c.tokens_provenance = Provenance::Recorded;
    inp.recorded_compactions = vec![c];
    let r = replay(&inp, &opts(Algorithm::Claude, 3_000, &[]));
    let v = &r.validation.as_ref().unwrap()[0];
    assert_eq!(
        (v.recorded_request, v.replay_request, v.request_delta),
        (2, Some(2), Some(0))
    );
    assert_eq!(v.tokens_delta_pct, Some(5.3));
}

#[test]
fn from_session_drops_management_artifacts_and_sidechains() {
    let mut s = Session::new(Agent::Claude, "x", "x.jsonl");
    let mut u = Message::new(Role::User);
    u.is_human = true;
    u.parts.push(Part::Text { text: "hi".into() });
    let mut side = Message::new(Role::Assistant);
    side.sidechain = true;
    let mut summary = Message::new(Role::User);
    summary.subtype = Some("compact_summary".into());
    let mut a = Message::new(Role::Assistant);
    a.parts.push(Part::ToolCall {
        id: "c1".into(),
        name: "Bash".into(),
        input: serde_json::json!({"command": "ls"}).into(),
    });
    let mut t = Message::new(Role::Tool);
    t.parts.push(Part::ToolResult {
        call_id: "c1".into(),
        output: "a b".into(),
        is_error: false,
        attachments: vec![],
        output_size: None,
    });
    let note = Message::new(Role::System);
    s.messages = vec![u, side, summary, a, t, note];
    s.requests.push(crate::model::Request {
        timestamp: None,
        model: Some("claude-x".into()),
        usage: Usage::default(),
        prompt_tokens: Some(10),
        message_index: Some(3),
        dedup_key: None,
    });
    let inp = ReplayInput::from_session(s);
    assert_eq!(inp.items.len(), 3);
    assert_eq!(
        inp.requests[0].upto, 1,
        "only the prompt precedes the response"
    );
    assert_eq!(inp.items[2].tool_names, vec![Some("Bash".to_string())]);
}

fn timeline(r: &SessionReplay) -> Vec<(u64, Option<u64>, u64, bool)> {
    r.timeline
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| (p.full, p.recorded, p.what_if, p.in_sync))
        .collect()
}

#[test]
fn with_no_intervention_what_if_is_the_recording() {
    // The real tokenizer counts 1.3 × the estimate, plus 7,000 of system prompt: an estimator
    // 30% off must not show up as a saving.
    let inp = input(6, 4_000, |_, h| Some(7_000 + h * 13 / 10));
    let r = replay(&inp, &opts(Algorithm::Pi, 2_500, &[]));
    assert_eq!(r.compressions, 0);
    for (full, rec, what_if, in_sync) in timeline(&r) {
        assert_eq!(Some(what_if), rec);
        assert_eq!(Some(full), rec);
        assert!(in_sync);
    }
    assert_eq!((r.totals.saved, r.totals.saved_vs_recorded), (0, 0));
    let c = r.calibration;
    assert_eq!(c.method, calibrate::Method::LeastSquares);
    assert!((c.scale - 1.3).abs() < 1e-9, "{c:?}");
    assert!((c.offset - 7_000.0).abs() < 1e-6, "{c:?}");
    assert_eq!((c.requests_used, c.median_error_pct), (6, Some(0.0)));
}

#[test]
fn after_the_replay_intervenes_figures_extrapolate_from_the_last_recorded_one() {
    // Recorded = 2 × estimate + 1,000. 40,000-token messages: requests see 40k, 120k, 200k,
    // 280k estimated (81k, 241k, 401k, 561k recorded). At 60% of the effective window
    // (0.6 × 180,000 = 108,000) Claude compacts before request 1, where its measure (recorded
    // 81k + output 40k + the new prompt 40k = 161k) crosses the threshold.
    let inp = input(4, 160_000, |_, h| Some(1_000 + 2 * h));
    let r = replay(
        &inp,
        &opts(Algorithm::Claude, 3_000, &[("autocompact_pct", "60")]),
    );
    let e = &r.events[0];
    assert_eq!((e.request, e.measure), (1, Some(161_000)));
    // The last recorded point: request 0, estimate 40,000, recorded 81,000. After the
    // compaction the estimate is the 3,000-token summary: 81,000 + 2 × (3,000 − 40,000).
    assert_eq!(e.tokens_after, 7_000);
    let t = timeline(&r);
    assert_eq!(t[0], (81_000, Some(81_000), 81_000, true));
    assert_eq!(t[1], (241_000, Some(241_000), 7_000, false));
    // Request 2 adds the answer and a prompt: 80,000 estimated = 160,000 real.
    assert_eq!(t[2].2, 167_000);
    // Saved against the recording is real: the recording never compacted.
    assert!(r.totals.saved_vs_recorded > 0);
    assert_eq!(r.totals.saved, r.totals.saved_vs_recorded);
}

#[test]
fn a_compaction_made_where_the_agent_made_it_resyncs_with_the_recording() {
    // Estimates 40k, 120k, 200k, 280k; the agent compacted before request 2 (its measure
    // 200k ≥ 167k) and its next prompt was 30,000; the replay compacts there too.
    let mut inp = input(4, 160_000, |k, h| {
        Some(if k >= 2 { 30_000 + (h - 200_000) } else { h })
    });
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.request_index = 2;
    c.trigger = Trigger::Auto;
    c.tokens_before = Some(200_000);
    c.tokens_provenance = Provenance::Recorded;
    inp.recorded_compactions = vec![c];
    let r = replay(&inp, &opts(Algorithm::Claude, 3_000, &[]));
    assert_eq!(r.compressions, 1);
    let t = timeline(&r);
    assert_eq!(
        t.iter().map(|p| (p.2, p.3)).collect::<Vec<_>>(),
        [
            (40_000, true),
            (120_000, true),
            (30_000, true),
            (110_000, true)
        ]
    );
    // `full` goes on from the last unmanaged request: 120k + the 160k added since.
    assert_eq!(t[3].0, 280_000);
    let e = &r.events[0];
    assert_eq!((e.measure, e.tokens_after), (Some(200_000), 30_000));
    let f = r.fidelity.unwrap();
    assert_eq!((f.recorded_auto, f.predicted, f.unexpected), (1, 1, 0));
    assert_eq!(f.median_token_error_pct, Some(0.0));
    assert_eq!(f.median_series_error_pct, Some(0.0));
    let v = &r.validation.as_ref().unwrap()[0];
    assert!(v.matched && !v.followed);
}

#[test]
fn the_agents_own_algorithm_follows_a_compaction_it_did_not_predict() {
    // 20,000-token messages: estimates 20k, 60k, 100k, 140k, 180k. The agent compacted before
    // request 1 at 60k (far below its threshold as we see it; the recording went on 55k
    // lower): the replay does not predict it, follows it one request late, and is back in sync
    // after.
    let mut inp = input(5, 80_000, |k, h| Some(if k >= 1 { h - 55_000 } else { h }));
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.request_index = 1;
    c.trigger = Trigger::Auto;
    c.tokens_before = Some(60_000);
    c.tokens_provenance = Provenance::Recorded;
    inp.recorded_compactions = vec![c];
    let mut o = opts(Algorithm::Claude, 3_000, &[]);
    o.follow_recording = true;
    let r = replay(&inp, &o);
    assert_eq!((r.compressions, r.followed), (0, 1));
    let t = timeline(&r);
    assert_eq!(
        t.iter().map(|p| p.3).collect::<Vec<_>>(),
        [true, false, true, true, true]
    );
    assert_eq!(t[2].2, t[2].1.unwrap());
    let v = &r.validation.as_ref().unwrap()[0];
    assert!(v.followed && !v.matched);
    assert_eq!(r.fidelity.unwrap().predicted, 0);
    // Without following, the replay goes its own way: out of sync to the end.
    o.follow_recording = false;
    let r = replay(&inp, &o);
    assert_eq!(r.followed, 0);
    assert!(timeline(&r)[1..].iter().all(|p| !p.3));
}

#[test]
fn a_replay_compaction_lands_on_the_size_the_agents_compactions_left() {
    // A native replay at 40% compacts where the agent did not; the agent's own compactions
    // left 52,000-token contexts, so that is what the replay's leaves too.
    let mut inp = input(4, 160_000, |_, h| Some(1_000 + 2 * h));
    inp.post_compaction = vec![PostCompaction {
        recorded: 52_000,
        added: 0,
        summary: 3_000,
    }];
    let r = replay(
        &inp,
        &opts(Algorithm::Claude, 3_000, &[("autocompact_pct", "60")]),
    );
    assert_eq!((r.events[0].request, r.events[0].tokens_after), (1, 52_000));
    assert_eq!(timeline(&r)[1].2, 52_000);
}

#[test]
fn a_sweep_equals_its_replays_one_by_one() {
    // The calibration is fitted once per sweep: no setting may change it.
    let inp = input(30, 40_000, |k, h| Some(4_000 + h + h / 7 + k as u64));
    let sweeps: &[(Algorithm, &str, &[&str])] = &[
        (Algorithm::Claude, "autocompact_pct", &["40", "70", "100"]),
        (
            Algorithm::Codex,
            "auto_compact_token_limit",
            &["0", "90000"],
        ),
        (Algorithm::Gemini, "threshold", &["0.2", "0.5"]),
        (Algorithm::Pi, "reserve_tokens", &["16384", "120000"]),
        (Algorithm::OpenclawPrune, "soft_trim_ratio", &["0.1", "0.3"]),
    ];
    for (alg, key, values) in sweeps {
        let options: Vec<ReplayOptions> = values
            .iter()
            .map(|v| opts(*alg, 2_000, &[(key, v)]))
            .collect();
        let swept = replay_each(&inp, &options);
        for (o, r) in options.iter().zip(&swept) {
            let alone = replay(&inp, o);
            assert_eq!(r.calibration, alone.calibration, "{alg:?} {key}");
            assert_eq!(r.totals, alone.totals, "{alg:?} {key}");
            assert_eq!(r.events.len(), alone.events.len(), "{alg:?} {key}");
        }
    }
}

#[test]
fn a_compression_can_save_tokens_and_cost_money() {
    // Six requests of a Claude session (claude-sonnet-4-5: input $3, output $15, cache read
    // $0.30, cache write $3.75 per million), each adding 20k tokens of context and answering
    // 10k; the replay compacts before the last one to a 3k summary, its summariser reading 90k
    // and writing 3k. No timestamps: one sitting, the cache never expires.
    let inp = input(6, 40_000, |_, h| Some(h));
    let sizes = [10_000u64, 30_000, 50_000, 70_000, 90_000, 110_000];
    let timeline: Vec<Point> = (0..6)
        .map(|k| Point {
            request: k,
            full: sizes[k],
            recorded: Some(sizes[k]),
            what_if: if k < 5 { sizes[k] } else { 3_000 },
            in_sync: k < 5,
        })
        .collect();
    let mut e = Event::new(EventKind::Compress);
    e.request = 5;
    e.summariser_input = 90_000;
    e.summariser_output = 3_000;
    let price = crate::pricing::embedded()
        .find("claude-sonnet-4-5")
        .unwrap();
    let c = cost::of(&inp, &timeline, &[e], 0, Some(price));
    // full: reads 10+30+50+70+90 = 250k, writes 10 + 5×20 = 110k, outputs 60k
    //   = 250k×0.30 + 110k×3.75 + 60k×15 = $1.3875.
    assert_eq!(
        (c.full.cache_read, c.full.cache_write, c.full.output),
        (250_000, 110_000, 60_000)
    );
    assert!((c.full.usd.unwrap() - 1.3875).abs() < 1e-6, "{c:?}");
    // what-if: reads 10+30+50+70 = 160k (the rewrite leaves nothing cached), writes
    // 10 + 4×20 + 3 = 93k, the summariser's 90k as input, outputs 60k + 3k
    //   = 160k×0.30 + 93k×3.75 + 90k×3 + 63k×15 = $1.61175.
    assert_eq!(
        (
            c.what_if.cache_read,
            c.what_if.cache_write,
            c.what_if.input,
            c.what_if.output
        ),
        (160_000, 93_000, 90_000, 63_000)
    );
    assert!((c.what_if.usd.unwrap() - 1.61175).abs() < 1e-6, "{c:?}");
    // 107k context tokens saved (14k net of the summariser), and 22 cents lost.
    assert!((c.saved_usd.unwrap() + 0.22425).abs() < 1e-6, "{c:?}");
    // Every request recorded its size, here the full one: against recorded the replay lost
    // the same 22 cents, summariser included (`recorded.usd − what_if.usd`).
    assert!((c.recorded.usd.unwrap() - 1.3875).abs() < 1e-6, "{c:?}");
    assert!(
        (c.saved_vs_recorded_usd.unwrap() + 0.22425).abs() < 1e-6,
        "{c:?}"
    );
    assert_eq!(
        c.saved_vs_recorded_usd,
        Some(crate::pricing::round_usd(
            c.recorded.usd.unwrap() - c.what_if.usd.unwrap()
        ))
    );
}

#[test]
fn the_agents_own_compaction_call_is_priced_on_the_recorded_side() {
    // The session of `a_compression_can_save_tokens_and_cost_money`, but the agent compacted
    // before the last request too (preTokens 100k, a 12,000-character summary: 3k tokens), and
    // the replay compacted where it did, to the same 3k: both sides sent the same requests.
    let mut inp = input(6, 40_000, |k, h| Some(if k < 5 { h } else { 3_000 }));
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.trigger = Trigger::Auto;
    c.request_index = 5;
    c.tokens_before = Some(100_000);
    c.tokens_provenance = Provenance::Recorded;
    c.summary = Some("s".repeat(12_000));
    inp.recorded_compactions = vec![c];
    let sizes = [10_000u64, 30_000, 50_000, 70_000, 90_000, 3_000];
    let timeline: Vec<Point> = (0..6)
        .map(|k| Point {
            request: k,
            full: 10_000 + 20_000 * k as u64,
            recorded: Some(sizes[k]),
            what_if: sizes[k],
            in_sync: true,
        })
        .collect();
    let mut e = Event::new(EventKind::Compress);
    e.request = 5;
    e.summariser_input = 100_000;
    e.summariser_output = 3_000;
    let price = crate::pricing::embedded()
        .find("claude-sonnet-4-5")
        .unwrap();
    let c = cost::of(&inp, &timeline, &[e], 0, Some(price));
    // The requests (sonnet-4-5: input $3, output $15, cache read $0.30, cache write $3.75 per
    // million): reads 10+30+50+70 = 160k, writes 10 + 4×20 + 3 = 93k, outputs 60k
    //   = 160k×0.30 + 93k×3.75 + 60k×15 = $1.29675 on either side.
    assert!((c.recorded.usd.unwrap() - 1.29675).abs() < 1e-6, "{c:?}");
    // The agent's summariser, priced as the replay's: 100k uncached input + 3k output
    //   = 100k×3 + 3k×15 = $0.345.
    assert_eq!(
        c.recorded_summariser,
        cost::SummariserCost {
            compactions: 1,
            input: 100_000,
            output: 3_000,
            usd: Some(0.345),
        }
    );
    // what-if: the same requests and the replay's own $0.345 call: nothing saved, not −$0.345.
    assert!((c.what_if.usd.unwrap() - 1.64175).abs() < 1e-6, "{c:?}");
    assert_eq!(c.saved_vs_recorded_usd, Some(0.0));
}

#[test]
fn only_the_compactions_the_agent_ran_are_priced() {
    // Requests of 10k, 30k, … context, each answered with 10k.
    let mut inp = input(6, 40_000, |_, h| Some(h));
    let at = |k: usize, trigger: Trigger, kind: CompactionKind| {
        let mut c = Compaction::new(kind);
        c.trigger = trigger;
        c.request_index = k;
        c.tokens_before = Some(150_000);
        c.tokens_provenance = Provenance::Recorded;
        c.summary = Some("s".repeat(4_000));
        c
    };
    // A compaction the log starts from (resumed), one of unknown trigger and a masking: none
    // is a summariser call this session paid for.
    inp.recorded_compactions = vec![
        at(0, Trigger::Auto, CompactionKind::ClaudeBoundary),
        at(2, Trigger::Unknown, CompactionKind::ClaudeBoundary),
        at(3, Trigger::Auto, CompactionKind::GeminiMasking),
    ];
    assert!(cost::agent_summariser(&inp).is_empty());
    // A manual one that recorded neither its size nor its summary: the request before it, 70k
    // prompt + 10k response, and the median of the session's other summaries (4,000 bytes).
    let mut manual = at(4, Trigger::Manual, CompactionKind::ClaudeBoundary);
    manual.tokens_before = None;
    manual.summary = None;
    inp.recorded_compactions.push(manual);
    let calls = |inp: &ReplayInput| -> Vec<(u64, u64)> {
        cost::agent_summariser(inp)
            .iter()
            .map(|u| (u.input, u.output))
            .collect()
    };
    assert_eq!(calls(&inp), [(80_000, 1_000)]);
    // With no summary in the session, the default of the agent's own algorithm (Claude 3,000).
    let mut bare = inp.clone();
    for c in &mut bare.recorded_compactions {
        c.summary = None;
    }
    assert_eq!(calls(&bare), [(80_000, 3_000)]);
    // Gemini CLI's two calls: the summary, then the verification pass over the context and the
    // summary, each writing it.
    inp.agent = Agent::Gemini;
    assert_eq!(calls(&inp), [(2 * 80_000 + 1_000, 2 * 1_000)]);
}

#[test]
fn without_a_recorded_size_there_is_no_saving_against_recorded_in_dollars() {
    let mut inp = input(3, 40_000, |_, _| None);
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.trigger = Trigger::Auto;
    c.request_index = 2;
    c.tokens_before = Some(40_000);
    c.tokens_provenance = Provenance::Recorded;
    inp.recorded_compactions = vec![c];
    let timeline: Vec<Point> = (0..3)
        .map(|k| Point {
            request: k,
            full: 10_000 + 20_000 * k as u64,
            recorded: None,
            what_if: 10_000 + 20_000 * k as u64,
            in_sync: false,
        })
        .collect();
    let price = crate::pricing::embedded()
        .find("claude-sonnet-4-5")
        .unwrap();
    let c = cost::of(&inp, &timeline, &[], 0, Some(price));
    // The agent's call is still reported, but no request is compared.
    assert_eq!(c.recorded_summariser.compactions, 1);
    assert_eq!(c.saved_vs_recorded_usd, None);
}

mod sizes;
mod windows;
