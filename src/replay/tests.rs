//! Engine tests on hand-built histories: anchoring, the three series, totals, and the Claude
//! and Codex triggers whose thresholds are simple enough to compute by hand.

use super::settings::Settings;
use super::*;
use crate::model::{CompactionKind, Message, Session, Usage};

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
        post_compaction: Vec::new(),
        recorded_window: None,
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
        context_window: None,
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
    let r = replay(&inp, &opts(Algorithm::Codex, 1_500, &[]));
    let e = &r.events[0];
    // After request k the total is 8,000 × (2k + 1) + 8,000 of output = 16,000 × (k + 1):
    // 240,000 after request 14, below the limit. The new prompt then brings the context to
    // 248,000 before request 15, and the pre-turn check compacts there.
    assert_eq!(e.request, 15);
    assert_eq!(e.tokens_before, 248_000);
    // Kept: the newest user messages up to 20,000 tokens = two whole ones and half of a third.
    assert_eq!(e.kept, 3);
    assert_eq!(e.tokens_after, 20_000 + 1_500);
    let t = r.timeline.as_ref().unwrap();
    // Next request: the kept 21,500 + the assistant answer and the new prompt (8k each).
    assert_eq!(t[16].what_if, 21_500 + 16_000);
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
    let r = replay(&inp, &opts(Algorithm::Claude, 3_000, &[]));
    assert_eq!(r.limits.source, window::WindowSource::Default);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("mystery-model") && n.contains("200000"))
    );
}

#[test]
fn validation_pairs_recorded_and_replayed_compactions() {
    let mut inp = input(4, 160_000, |_, h| Some(h));
    let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
    c.request_index = 2;
    c.tokens_before = Some(190_000);
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
        input: serde_json::json!({"command": "ls"}),
    });
    let mut t = Message::new(Role::Tool);
    t.parts.push(Part::ToolResult {
        call_id: "c1".into(),
        output: "a b".into(),
        is_error: false,
        attachments: vec![],
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
