//! OpenClaw pruning: the hand-computed vectors of `testdata/golden/openclaw/` against the
//! literal port, the TTL gating vectors against the strategy, and the incremental strategy
//! against a straightforward full-pass replay (the literal port over the whole history at
//! every request) on random histories.

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{Value, json};

use super::prune::{PruneSettings, ToolMatcher, estimate_message_chars, prune_context_messages};
use super::*;
use crate::model::{Part, Role};
use crate::replay::pi::message::{AgentMessage, from_item_kept, from_json};
use crate::replay::settings::Settings;
use crate::replay::window::{Limits, WindowSource};
use crate::testing::Rng;

fn load(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/golden/openclaw")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn settings(pairs: &Value, base: Option<&Value>) -> Settings {
    let mut v: Vec<(String, String)> = Vec::new();
    for obj in base.into_iter().chain([pairs]) {
        for (k, x) in obj.as_object().unwrap() {
            v.push((k.clone(), x.as_str().unwrap().to_string()));
        }
    }
    Settings::resolve(SPECS, &v).unwrap()
}

fn texts(m: &AgentMessage<'_>) -> String {
    match m {
        AgentMessage::ToolResult { content, .. } => content.texts().join("\n"),
        _ => String::new(),
    }
}

#[test]
fn defaults_are_openclaws() {
    let s = Settings::resolve(SPECS, &[]).unwrap();
    assert_eq!(PruneSettings::from_settings(&s), PruneSettings::default());
    assert_eq!(s.num("ttl"), 5.0, "5 minutes");
    assert!(!s.flag("sticky"));
}

#[test]
fn hand_computed_prune_vectors() {
    let doc = load("prune_vectors.json");
    let vectors = doc["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 15);
    for v in vectors {
        let name = v["name"].as_str().unwrap();
        assert!(
            v["why"].as_str().is_some_and(|w| w.len() > 40),
            "{name}: explain the arithmetic"
        );
        let st = settings(&v["settings"], None);
        let s = PruneSettings::from_settings(&st);
        let tools = ToolMatcher::new(st.text("tools_allow"), st.text("tools_deny"));
        let messages: Vec<AgentMessage<'static>> = v["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(from_json)
            .collect();
        let e = &v["expect"];
        let before: u64 = messages.iter().map(estimate_message_chars).sum();
        assert_eq!(before, e["chars_before"].as_u64().unwrap(), "{name}");
        let window = v["context_window"].as_u64().unwrap();
        let out = prune_context_messages(&messages, &s, window, &|n| tools.is_prunable(n));
        if !e["changed"].as_bool().unwrap() {
            assert!(out.is_none(), "{name}: expected the input unchanged");
            continue;
        }
        let p = out.unwrap_or_else(|| panic!("{name}: expected a change"));
        let idx = |k: &str| -> Vec<usize> {
            e[k].as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as usize)
                .collect()
        };
        assert_eq!(p.trimmed, idx("trimmed"), "{name}");
        assert_eq!(p.cleared, idx("cleared"), "{name}");
        assert_eq!(p.chars_after, e["chars_after"].as_u64().unwrap(), "{name}");
        let after: u64 = p.messages.iter().map(estimate_message_chars).sum();
        assert_eq!(
            after, p.chars_after,
            "{name}: the running total matches the result"
        );
        for (i, (a, b)) in messages.iter().zip(&p.messages).enumerate() {
            if !p.trimmed.contains(&i) && !p.cleared.contains(&i) {
                assert_eq!(a, b, "{name}: message {i} must be untouched");
            }
        }
        if let Some(t) = e.get("texts").and_then(Value::as_object) {
            for (i, want) in t {
                let i: usize = i.parse().unwrap();
                assert_eq!(
                    texts(&p.messages[i]),
                    want.as_str().unwrap(),
                    "{name}: message {i}"
                );
            }
        }
    }
}

#[test]
fn tool_globs() {
    let m = ToolMatcher::new(" Read* , bash,,we?.* ", "*_SECRET");
    for (name, want) in [
        ("READ_FILE", true),
        ("read", true),
        ("read_secret", false),
        (" Bash ", true),
        ("bash2", false),
        ("we?.x", true),
        ("wea.x", false),
        ("grep", false),
    ] {
        assert_eq!(m.is_prunable(name), want, "{name}");
    }
    let all = ToolMatcher::new("", "");
    assert!(all.is_prunable("anything") && all.is_prunable(""));
    let deny_all = ToolMatcher::new("*", "*");
    assert!(!deny_all.is_prunable("read"));
    let brackets = ToolMatcher::new("a[b]*", "");
    assert!(brackets.is_prunable("a[b]c") && !brackets.is_prunable("abc"));
}

#[test]
fn the_largest_total_below_a_ratio() {
    assert_eq!(max_below(0.5, 4_000), Some(1_999));
    assert_eq!(max_below(0.3, 400), Some(119), "120 / 400 is exactly 0.3");
    assert_eq!(max_below(0.0, 400), None);
    assert_eq!(max_below(1.0, 7), Some(6));
}

// ---------------------------------------------------------------------------------------------
// The strategy: TTL vectors and the randomised equivalence with the full pass
// ---------------------------------------------------------------------------------------------

fn ctx(st: Settings, window: u64) -> StrategyContext {
    StrategyContext {
        settings: st,
        limits: Limits {
            context_window: window,
            max_output: 32_000,
            source: WindowSource::Override,
        },
        summary_tokens: 0,
        agent_version: None,
        native: false,
        model: None,
        sweep: false,
    }
}

fn request(index: usize, timestamp: Option<DateTime<Utc>>) -> RequestInfo {
    RequestInfo {
        index,
        timestamp,
        recorded_prompt: None,
        output: 0,
        prev_prompt: None,
        prev_recorded: false,
        prev_output: 0,
        context_now: 0,
        scale: 1.0,
        in_sync: false,
        unmanaged: false,
    }
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 17, 9, 0, 0).unwrap()
}

fn item(
    role: Role,
    human: bool,
    ts: Option<DateTime<Utc>>,
    parts: Vec<Part>,
    names: Vec<Option<String>>,
) -> HistoryItem {
    HistoryItem {
        role,
        is_human: human,
        timestamp: ts,
        model: None,
        parts,
        tool_names: names,
        is_context: false,
    }
}

#[test]
fn ttl_gating_vectors() {
    let doc = load("ttl_vectors.json");
    let items: Vec<HistoryItem> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| {
            let ts = Some(t0() + Duration::minutes(it["minute"].as_i64().unwrap()));
            let role = match it["role"].as_str().unwrap() {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                _ => Role::Tool,
            };
            let (part, name) = if let Some(n) = it.get("text") {
                (
                    Part::Text {
                        text: "t".repeat(n.as_u64().unwrap() as usize),
                    },
                    None,
                )
            } else if it.get("call").is_some() {
                (
                    Part::ToolCall {
                        id: "c".into(),
                        name: "bash".into(),
                        input: json!({"command": "ls"}).into(),
                    },
                    None,
                )
            } else {
                (
                    Part::ToolResult {
                        call_id: "c".into(),
                        output: "r".repeat(it["result"].as_u64().unwrap() as usize),
                        is_error: false,
                        attachments: vec![],
                        output_size: None,
                    },
                    Some("bash".to_string()),
                )
            };
            item(role, it["human"] == true, ts, vec![part], vec![name])
        })
        .collect();
    let window = doc["context_window"].as_u64().unwrap();
    for case in doc["cases"].as_array().unwrap() {
        let st = settings(&case["settings"], Some(&doc["base_settings"]));
        let mut s = OpenClaw::new(&ctx(st, window));
        let mut pushed = 0;
        let (mut chars, mut prunes) = (Vec::new(), Vec::new());
        for (k, r) in doc["requests"].as_array().unwrap().iter().enumerate() {
            while pushed < r["upto"].as_u64().unwrap() as usize {
                s.push(&items[pushed]);
                pushed += 1;
            }
            let ts = Some(t0() + Duration::minutes(r["minute"].as_i64().unwrap()));
            if !s.before_request(&request(k, ts)).is_empty() {
                prunes.push(k);
            }
            chars.push(s.context_chars());
            assert_eq!(s.context_tokens(), s.context_chars().div_ceil(4));
        }
        let want: Vec<u64> = case["context_chars"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(chars, want, "{}", case["settings"]);
        let want: Vec<usize> = case["prunes_at"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(prunes, want, "{}", case["settings"]);
    }
}

/// The straightforward replay: the literal `pruneContextMessages` over the whole history (or
/// the persisted pruned copy, sticky) at every gated request, with the same TTL bookkeeping.
struct FullPass {
    s: PruneSettings,
    tools: ToolMatcher,
    window: u64,
    ttl_ms: f64,
    sticky: bool,
    messages: Vec<AgentMessage<'static>>,
    modified: HashSet<usize>,
    last_touch: Option<DateTime<Utc>>,
    last_time: Option<DateTime<Utc>>,
    ran: bool,
}

impl FullPass {
    fn new(st: &Settings, window: u64) -> FullPass {
        FullPass {
            s: PruneSettings::from_settings(st),
            tools: ToolMatcher::new(st.text("tools_allow"), st.text("tools_deny")),
            window,
            ttl_ms: st.num("ttl") * 60_000.0,
            sticky: st.flag("sticky"),
            messages: Vec::new(),
            modified: HashSet::new(),
            last_touch: None,
            last_time: None,
            ran: false,
        }
    }

    fn push(&mut self, it: &HistoryItem) {
        if it.is_human && std::mem::take(&mut self.ran) {
            self.last_touch = self.last_time;
        }
        self.messages
            .extend(from_item_kept(it).into_iter().map(AgentMessage::into_owned));
        if it.timestamp.is_some() {
            self.last_time = it.timestamp;
        }
    }

    /// Context chars sent, and (summarised, kept, tokens before, tokens after) of a prune.
    fn request(&mut self, ts: Option<DateTime<Utc>>) -> (u64, Option<(usize, usize, u64, u64)>) {
        self.ran = true;
        if ts.is_some() && self.last_time.is_none_or(|t| ts > Some(t)) {
            self.last_time = ts;
        }
        let full: u64 = self.messages.iter().map(estimate_message_chars).sum();
        let gated = self.ttl_ms <= 0.0
            || matches!((self.last_touch, ts), (Some(t), Some(n)) if (n - t).num_milliseconds() as f64 >= self.ttl_ms);
        if !gated {
            return (full, None);
        }
        let tools = &self.tools;
        let Some(p) = prune_context_messages(&self.messages, &self.s, self.window, &|n| {
            tools.is_prunable(n)
        }) else {
            return (full, None);
        };
        if self.ttl_ms > 0.0 {
            self.last_touch = ts;
        }
        let touched_now: HashSet<usize> = p.trimmed.iter().chain(&p.cleared).copied().collect();
        let touched = if self.sticky {
            self.modified.extend(&touched_now);
            self.messages = p.messages;
            self.modified.len()
        } else {
            touched_now.len()
        };
        let n = self.messages.len();
        (
            p.chars_after,
            Some((
                touched,
                n - touched,
                p.chars_before.div_ceil(4),
                p.chars_after.div_ceil(4),
            )),
        )
    }
}

/// Text of up to `max` bytes beyond 600 (most shorter), of ASCII, CJK, emoji and newlines.
fn random_text(rng: &mut Rng, max: u64) -> String {
    let n = match rng.below(10) {
        0..=2 => rng.below(40),
        3..=6 => rng.below(600),
        _ => 600 + rng.below(max),
    };
    let mut s = String::new();
    let pieces = ["abc ", "日本語", "😀", "\n", "x", "tool output line "];
    while (s.len() as u64) < n {
        let p: &str = rng.pick::<&str>(&pieces);
        s.push_str(p);
    }
    s
}

/// Requests: (items in context, timestamp).
type Requests = Vec<(usize, Option<DateTime<Utc>>)>;

fn random_session(rng: &mut Rng) -> (Vec<HistoryItem>, Requests) {
    let names = ["bash", "Read", "read_secret", "grep", "web_fetch", "Edit"];
    let mut items = Vec::new();
    let mut requests = Vec::new();
    let mut now = t0();
    let mut tick = |rng: &mut Rng| {
        now += Duration::seconds(match rng.below(10) {
            0..=6 => rng.below(60) as i64,
            7..=8 => rng.below(900) as i64,
            _ => rng.below(7_200) as i64,
        });
        (rng.below(20) > 0).then_some(now)
    };
    let image = || Part::Image {
        media_type: None,
        bytes: None,
        data: None,
        url: None,
    };
    let steps = 3 + rng.below(45);
    let mut started = rng.below(3) == 0; // sometimes tool activity before the first user message
    for _ in 0..steps {
        if !started || rng.below(4) > 0 {
            // an agentic step: assistant calls, results
            let calls = 1 + rng.below(3) as usize;
            let mut parts = Vec::new();
            if rng.below(3) == 0 {
                parts.push(Part::Thinking {
                    text: random_text(rng, 500),
                });
            }
            if rng.below(2) == 0 {
                parts.push(Part::Text {
                    text: random_text(rng, 500),
                });
            }
            let mut called = Vec::new();
            for _ in 0..calls {
                let n = rng.pick(&names).to_string();
                parts.push(Part::ToolCall {
                    id: "c".into(),
                    name: n.clone(),
                    input: json!({"cmd": random_text(rng, 60), "n": rng.below(1000)}).into(),
                });
                called.push(n);
            }
            let np = parts.len();
            items.push(item(
                Role::Assistant,
                false,
                tick(rng),
                parts,
                vec![None; np],
            ));
            let mut results = Vec::new();
            let mut rnames = Vec::new();
            for n in called {
                let mut attachments = Vec::new();
                if rng.below(8) == 0 {
                    attachments.push(image());
                }
                if rng.below(8) == 0 {
                    attachments.push(Part::Text {
                        text: random_text(rng, 2_000),
                    });
                }
                results.push(Part::ToolResult {
                    call_id: "c".into(),
                    output: random_text(rng, 4_500),
                    is_error: false,
                    attachments,
                    output_size: None,
                });
                rnames.push((rng.below(15) > 0).then_some(n));
            }
            let ts = tick(rng);
            items.push(item(Role::Tool, false, ts, results, rnames));
            requests.push((items.len(), ts));
        } else {
            // the run ends with an answer, then a human prompt
            let ts = tick(rng);
            let nt = random_text(rng, 800);
            items.push(item(
                Role::Assistant,
                false,
                ts,
                vec![Part::Text { text: nt }],
                vec![None],
            ));
            let mut parts = vec![Part::Text {
                text: random_text(rng, 2_000),
            }];
            if rng.below(6) == 0 {
                parts.push(image());
            }
            let np = parts.len();
            let ts = tick(rng);
            items.push(item(Role::User, true, ts, parts, vec![None; np]));
            requests.push((items.len(), if rng.below(10) == 0 { None } else { ts }));
        }
        if !started && rng.below(2) == 0 {
            let ts = tick(rng);
            let t = random_text(rng, 100);
            items.push(item(
                Role::User,
                true,
                ts,
                vec![Part::Text { text: t }],
                vec![None],
            ));
            requests.push((items.len(), ts));
            started = true;
        }
    }
    (items, requests)
}

fn random_settings(rng: &mut Rng) -> (Vec<(String, String)>, u64) {
    let mut pick = |k: &str, xs: &[&str]| (k.to_string(), rng.pick(xs).to_string());
    let pairs = vec![
        pick("ttl", &["0", "0", "1", "5", "60"]),
        pick("keep_last_assistants", &["0", "1", "2", "3", "5"]),
        pick("soft_trim_ratio", &["0", "0.1", "0.3", "0.6"]),
        pick("hard_clear_ratio", &["0", "0.2", "0.5", "0.9", "1"]),
        pick("min_prunable_tool_chars", &["0", "100", "2000", "50000"]),
        pick(
            "soft_trim_max_chars",
            &["0", "10", "30", "100", "1000", "4000"],
        ),
        pick("soft_trim_head_chars", &["0", "3", "20", "300", "1500"]),
        pick("soft_trim_tail_chars", &["0", "5", "1500"]),
        pick("hard_clear", &["true", "true", "false"]),
        pick("hard_clear_placeholder", &["", "", "x", "  [gone]  "]),
        pick("tools_allow", &["", "", "", "read*,bash", "*"]),
        pick("tools_deny", &["", "", "*_secret", "grep,web*"]),
        pick("sticky", &["false", "true"]),
        pick("prune_old_images", &["false", "true"]),
        pick("protected_image_results", &["0", "1", "3"]),
    ];
    let window = *rng.pick(&[25u64, 200, 800, 3_000, 200_000]);
    (pairs, window)
}

#[test]
fn incremental_replay_equals_the_full_pass_at_every_request() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut requests_checked, mut prunes, mut sticky_prunes) = (0, 0, 0);
    for session in 0..250 {
        let (items, requests) = random_session(&mut rng);
        let (pairs, window) = random_settings(&mut rng);
        let st = Settings::resolve(SPECS, &pairs).unwrap();
        let mut fast = OpenClaw::new(&ctx(st.clone(), window));
        let mut slow = FullPass::new(&st, window);
        let mut pushed = 0;
        for (k, &(upto, ts)) in requests.iter().enumerate() {
            while pushed < upto {
                fast.push(&items[pushed]);
                slow.push(&items[pushed]);
                pushed += 1;
            }
            let events = fast.before_request(&request(k, ts));
            let (chars, event) = slow.request(ts);
            let what = format!("session {session} request {k} settings {pairs:?} window {window}");
            assert_eq!(fast.context_chars(), chars, "{what}");
            let got = events
                .first()
                .map(|e| (e.summarised, e.kept, e.tokens_before, e.tokens_after));
            assert_eq!(got, event, "{what}");
            assert!(events.iter().all(|e| e.kind == EventKind::Prune));
            requests_checked += 1;
            prunes += usize::from(event.is_some());
            sticky_prunes += usize::from(event.is_some() && slow.sticky);
        }
        let full: u64 = slow.messages.iter().map(estimate_message_chars).sum();
        if !slow.sticky {
            assert_eq!(fast.full_tokens(), full.div_ceil(4));
        }
    }
    to_stderr!("{requests_checked} requests, {prunes} prunes, {sticky_prunes} sticky");
    assert!(
        requests_checked > 5_000 && prunes > 500 && sticky_prunes > 200,
        "{requests_checked} {prunes} {sticky_prunes}"
    );
}

#[test]
fn engine_replay_reports_prune_events() {
    // 20 turns: a prompt, a bash call and a 40,000-char result, an answer; ungated.
    let mut items = Vec::new();
    let mut requests = Vec::new();
    for _ in 0..20 {
        items.push(item(
            Role::User,
            true,
            None,
            vec![Part::Text { text: "go".into() }],
            vec![None],
        ));
        requests.push(items.len());
        items.push(item(
            Role::Assistant,
            false,
            None,
            vec![Part::ToolCall {
                id: "c".into(),
                name: "bash".into(),
                input: json!({}).into(),
            }],
            vec![None],
        ));
        items.push(item(
            Role::Tool,
            false,
            None,
            vec![Part::ToolResult {
                call_id: "c".into(),
                output: "o".repeat(40_000),
                is_error: false,
                attachments: vec![],
                output_size: None,
            }],
            vec![Some("bash".into())],
        ));
        requests.push(items.len());
        items.push(item(
            Role::Assistant,
            false,
            None,
            vec![Part::Text {
                text: "done".into(),
            }],
            vec![None],
        ));
    }
    let inp = session(
        items,
        requests
            .iter()
            .map(|&upto| crate::replay::RequestPoint {
                upto,
                recorded_prompt: None,
                output: 0,
                timestamp: None,
                model: None,
                usage: None,
            })
            .collect(),
        false,
    );
    let opts = prune_opts(&[("ttl".into(), "0".into())]);
    let r = crate::replay::replay(&inp, &opts);
    assert!(
        r.events
            .iter()
            .all(|e| e.kind == EventKind::Prune && e.summariser_tokens() == 0)
    );
    // 200k window = 800,000 chars. Each turn is "go" (2) + the call's {} (2) + 40,000 + "done"
    // (4) = 40,008 chars. Request 2k+1 (after the k-th result) sees 40,008k + 40,004 chars,
    // request 2k sees 40,008k + 2. The first ≥ 0.3 × 800,000 = 240,000 is request 11 (k = 5):
    // 240,044. Its cutoff is the 3rd-last assistant (turn 4's call, message 17), so the results
    // of turns 0–3 are prunable; each is soft-trimmed to 1,500 + 5 + 1,500 + note (69 fixed
    // + 4 + 4 + 5 digits = 82) = 3,087 chars: 240,044 − 4 × 36,913 = 92,392 (0.115 < 0.5).
    let first = &r.events[0];
    assert_eq!(first.request, 11);
    assert_eq!((first.summarised, first.kept), (4, 23 - 4));
    assert_eq!(first.tokens_before, 240_044 / 4);
    assert_eq!(first.tokens_after, 92_392 / 4);
    let t = r.timeline.as_ref().unwrap();
    assert_eq!(
        t[10].what_if, t[10].full,
        "200,042 chars: below the soft-trim ratio"
    );
    assert_eq!(t[11].what_if, 92_392 / 4);
    assert!(r.totals.saved > 0);
    // With the default 5-minute TTL and no timestamps nothing can be gated: no prune at all.
    let opts = crate::replay::ReplayOptions {
        settings: Settings::resolve(SPECS, &[]).unwrap(),
        ..opts
    };
    let r = crate::replay::replay(&inp, &opts);
    assert!(r.events.is_empty());
    assert_eq!(r.totals.saved, 0);
}

/// A prune that is not sticky changes the one request it is made at: the requests after it send
/// the whole history again, and their what-if size is the unmanaged one, never above it. Here
/// one request is let through by the TTL (the 20-minute pause before turn 5), and the recorded
/// sizes drop by 3,000 tokens from it on (the fit cannot follow that), so a what-if figure
/// extrapolated from the last request before the prune drifts from `full`.
#[test]
fn after_a_prune_that_is_not_sticky_what_if_is_full() {
    let t0 = Utc.with_ymd_and_hms(2026, 5, 1, 10, 0, 0).unwrap();
    let turn_at = |k: i64| t0 + Duration::minutes(k + if k >= 5 { 20 } else { 0 });
    let mut items = Vec::new();
    let mut requests = Vec::new();
    // 15 turns: recorded sizes stay below 200k (above, they would say a 1M-window model).
    for k in 0..15 {
        let at = |s: i64| Some(turn_at(k) + Duration::seconds(s));
        let text = |t: &str| vec![Part::Text { text: t.into() }];
        items.push(item(Role::User, true, at(0), text("go"), vec![None]));
        requests.push((items.len(), at(5)));
        let call = vec![Part::ToolCall {
            id: "c".into(),
            name: "bash".into(),
            input: json!({}).into(),
        }];
        items.push(item(Role::Assistant, false, at(10), call, vec![None]));
        let result = vec![Part::ToolResult {
            call_id: "c".into(),
            output: "o".repeat(40_000),
            is_error: false,
            attachments: vec![],
            output_size: None,
        }];
        items.push(item(
            Role::Tool,
            false,
            at(20),
            result,
            vec![Some("bash".into())],
        ));
        requests.push((items.len(), at(25)));
        items.push(item(
            Role::Assistant,
            false,
            at(30),
            text("done"),
            vec![None],
        ));
    }
    // Chars at request 2k: 40,008k + 2; at 2k + 1: 40,008k + 40,004 (see above).
    let estimate = |r: usize| {
        let k = (r / 2) as u64;
        (40_008 * k + if r.is_multiple_of(2) { 2 } else { 40_004 }).div_ceil(4)
    };
    let inp = session(
        items,
        requests
            .iter()
            .enumerate()
            .map(|(r, &(upto, timestamp))| crate::replay::RequestPoint {
                upto,
                recorded_prompt: Some(estimate(r) + if r <= 10 { 5_000 } else { 2_000 }),
                output: 1,
                timestamp,
                model: None,
                usage: None,
            })
            .collect(),
        true,
    );
    let opts = prune_opts(&[]);
    let r = crate::replay::replay(&inp, &opts);
    let pruned: Vec<usize> = r.events.iter().map(|e| e.request).collect();
    assert_eq!(pruned, [11], "{:?}", r.events);
    let t = r.timeline.as_ref().unwrap();
    assert!(t[11].what_if < t[11].full);
    for p in t.iter().filter(|p| p.request != 11) {
        assert_eq!(p.what_if, p.full, "request {}", p.request);
    }
    assert_eq!(r.totals.saved, (t[11].full - t[11].what_if) as i64);
}

/// A Claude session of `items` and `requests` on claude-sonnet-4-5, for OpenClaw's replays.
fn session(
    items: Vec<crate::replay::HistoryItem>,
    requests: Vec<crate::replay::RequestPoint>,
    recorded_usage: bool,
) -> crate::replay::ReplayInput {
    crate::replay::ReplayInput {
        agent: crate::model::Agent::Claude,
        id: "oc".into(),
        path: "oc.jsonl".into(),
        project: None,
        items,
        requests,
        model: Some("claude-sonnet-4-5".into()),
        recorded_usage,
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

/// OpenClaw's pruning with `settings`, on the model's window, with its timeline.
fn prune_opts(settings: &[(String, String)]) -> crate::replay::ReplayOptions {
    crate::replay::ReplayOptions {
        algorithm: crate::replay::Algorithm::OpenclawPrune,
        settings: Settings::resolve(SPECS, settings).unwrap(),
        context_window: None,
        summary_tokens: 0,
        summary_tokens_source: "test",
        timeline: true,
        validate: false,
        follow_recording: false,
    }
}
