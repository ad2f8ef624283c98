//! Each agent's window, constants and limits, as the recorded version and the session decide
//! them, for every algorithm.

use super::*;

#[test]
fn claude_constants_follow_the_recorded_version() {
    let mut inp = input(4, 160_000, |_, h| Some(h));
    let o = opts(Algorithm::Claude, 3_000, &[]);
    inp.agent_version = Some("2.1.7".into());
    let r = replay(&inp, &o);
    assert_eq!(r.threshold, Some(155_000));
    assert!(r.constants.contains("2.1.7"), "{}", r.constants);
    inp.agent_version = Some("2.1.37".into());
    assert_eq!(replay(&inp, &o).threshold, Some(167_000));
    inp.agent_version = None;
    let r = replay(&inp, &o);
    assert_eq!(r.threshold, Some(167_000));
    assert!(r.notes.iter().any(|n| n.contains("newest constants")));
    inp.agent_version = Some("1.0.50".into());
    let r = replay(&inp, &o);
    assert_eq!(
        r.threshold,
        Some(154_560),
        "92% of (200,000 − 32,000): {}",
        r.constants
    );
}

#[test]
fn claude_prompts_above_200k_mean_a_1m_window() {
    let mut inp = input(4, 160_000, |_, h| Some(h));
    inp.agent_version = Some("2.1.37".into());
    let mut o = opts(Algorithm::Claude, 3_000, &[]);
    o.context_window = None;
    let r = replay(&inp, &o);
    assert_eq!(r.limits.context_window, 1_000_000);
    assert_eq!(r.threshold, Some(967_000), "{}", r.constants);
    // Below 200k the recorded model is taken as it is.
    let small = input(4, 4_000, |_, h| Some(h));
    let r = replay(&small, &o);
    assert_eq!(r.limits.context_window, 200_000);
}

#[test]
fn a_claude_sessions_window_follows_its_version() {
    // claude-opus-4-7 has a 1M window by default from Claude Code 2.1.117: the threshold, the
    // window reported and the requests over it refer to it, whichever algorithm replays it.
    let mut o = opts(Algorithm::Claude, 3_000, &[]);
    o.context_window = None;
    let mut codex = opts(Algorithm::Codex, 3_000, &[]);
    codex.context_window = None;
    // Prompts below 200k: the 1M is the version's, not inferred from the usage.
    let mut small = input(2, 40_000, |_, h| Some(h));
    small.model = Some("claude-opus-4-7".into());
    for (version, window) in [("2.1.120", 1_000_000), ("2.1.100", 200_000)] {
        small.agent_version = Some(version.into());
        let r = replay(&small, &o);
        assert_eq!(r.limits.context_window, window, "{version}");
        assert_eq!(
            r.threshold,
            Some(window - 33_000),
            "{version}: {}",
            r.constants
        );
        let r = replay(&small, &codex);
        assert_eq!(r.limits.context_window, window, "{version}");
        assert_eq!(
            r.threshold,
            Some(window * 9 / 10),
            "{version}: {}",
            r.constants
        );
    }
}

#[test]
fn claude_compacts_another_agents_session_within_its_window() {
    // Another agent's session at Claude Code's newest constants, on the window the session had:
    // the threshold and limits.context_window are one window.
    let mut inp = input(2, 40_000, |_, h| Some(h));
    let mut o = opts(Algorithm::Claude, 3_000, &[]);
    o.context_window = None;
    let cases = [
        (Agent::Codex, "gpt-4.1", None, 1_047_576),
        (Agent::Codex, "gpt-5.5", Some(258_400), 272_000),
        (Agent::Gemini, "gemini-2.5-pro", None, 1_048_576),
    ];
    for (agent, model, recorded, window) in cases {
        inp.agent = agent;
        inp.model = Some(model.into());
        inp.recorded_window = recorded;
        inp.agent_version = Some("0.98.0".into());
        let r = replay(&inp, &o);
        assert_eq!(r.limits.context_window, window, "{model}");
        assert_eq!(
            r.threshold,
            Some(window - 20_000 - 13_000),
            "{model}: {}",
            r.constants
        );
    }
    // A Claude session keeps its version's rule: 1.0.0–1.0.15 compacted at 92% of a flat 180k.
    inp.agent = Agent::Claude;
    inp.model = Some("claude-sonnet-4-5".into());
    inp.recorded_window = None;
    inp.agent_version = Some("1.0.10".into());
    let r = replay(&inp, &o);
    assert_eq!(r.limits.context_window, 200_000);
    assert_eq!(r.threshold, Some(165_600), "{}", r.constants);
}

#[test]
fn limits_report_the_max_output_the_claude_constants_reserve() {
    // `limits.max_output` and the constants' `min(max_output, cap)` are one figure: a Claude
    // session's is its version's (1.0.16–2.0.23 reserved 8,192 for any `haiku`, 32,000 for
    // the other models, whatever the API allows), whichever algorithm replays it; another
    // agent's session is reserved its own model's.
    let mut inp = input(2, 4_000, |_, h| Some(h));
    let mut claude = opts(Algorithm::Claude, 3_000, &[]);
    claude.context_window = None;
    let mut codex = opts(Algorithm::Codex, 3_000, &[]);
    codex.context_window = None;
    let cases = [
        (
            Agent::Claude,
            "claude-sonnet-4-5",
            "1.0.50",
            32_000,
            154_560,
        ),
        (Agent::Claude, "claude-haiku-4-5", "2.0.20", 8_192, 178_808),
        (
            Agent::Claude,
            "claude-sonnet-4-5",
            "2.1.37",
            64_000,
            167_000,
        ),
        (Agent::Codex, "gpt-4o", "0.98.0", 16_384, 98_616),
        (Agent::Codex, "gpt-5.5", "0.98.0", 128_000, 239_000),
    ];
    for (agent, model, version, max_output, threshold) in cases {
        inp.agent = agent;
        inp.model = Some(model.into());
        inp.agent_version = Some(version.into());
        let r = replay(&inp, &claude);
        assert_eq!(r.limits.max_output, max_output, "{model} {version}");
        assert!(
            r.constants.contains(&format!("{max_output}")),
            "{model} {version}: {}",
            r.constants
        );
        assert_eq!(r.threshold, Some(threshold), "{model}: {}", r.constants);
        let r = replay(&inp, &codex);
        assert_eq!(r.limits.max_output, max_output, "{model} {version} (codex)");
    }
}

#[test]
fn codex_limits_follow_the_recorded_version_and_full_window() {
    let mut inp = input(2, 4_000, |_, h| Some(h));
    inp.agent = Agent::Codex;
    inp.model = Some("gpt-5.5".into());
    // Codex 0.48+ records the window × 95%: 258,400 is gpt-5's 272,000.
    inp.recorded_window = Some(258_400);
    let mut o = opts(Algorithm::Codex, 3_000, &[]);
    o.context_window = None;
    inp.agent_version = Some("0.125.0".into());
    let r = replay(&inp, &o);
    assert_eq!(r.limits.context_window, 272_000);
    assert_eq!(r.threshold, Some(244_800), "{}", r.constants);
    // Before 0.35 Codex never compacted on its own.
    inp.agent_version = Some("0.30.0".into());
    let r = replay(&inp, &o);
    assert_eq!(r.threshold, None, "{}", r.constants);
    assert!(
        r.constants.contains("no automatic compaction"),
        "{}",
        r.constants
    );
    // A configured limit is capped at 90% of the window from 0.100.
    inp.agent_version = Some("0.125.0".into());
    let o = opts(
        Algorithm::Codex,
        3_000,
        &[("auto_compact_token_limit", "500000")],
    );
    let mut o2 = o.clone();
    o2.context_window = None;
    assert_eq!(replay(&inp, &o2).threshold, Some(244_800));
}

#[test]
fn a_codex_session_with_no_recorded_window_has_codexs_own_window() {
    // Codex's own table, not the generic one: the limit, the window reported and the requests
    // over it refer to one window, whichever algorithm replays the session.
    let mut inp = input(2, 40_000, |_, h| Some(h));
    inp.agent = Agent::Codex;
    inp.agent_version = Some("0.100.0".into());
    let mut o = opts(Algorithm::Codex, 3_000, &[]);
    o.context_window = None;
    for (model, window, limit) in [
        ("codex-mini-latest", 200_000, 180_000),
        ("gpt-3.5-turbo", 16_385, 14_746),
        ("gpt-oss-120b", 128_000, 115_200),
    ] {
        inp.model = Some(model.into());
        let r = replay(&inp, &o);
        assert_eq!(r.limits.context_window, window, "{model}");
        assert_eq!(r.limits.source, window::WindowSource::Model, "{model}");
        assert_eq!(r.threshold, Some(limit), "{model}: {}", r.constants);
        assert!(
            !r.notes.iter().any(|n| n.contains("unknown")),
            "{model}: {:?}",
            r.notes
        );
        let mut pi = opts(Algorithm::Pi, 3_000, &[]);
        pi.context_window = None;
        assert_eq!(replay(&inp, &pi).limits.context_window, window, "{model}");
    }
    // 30,000 tokens of history by the last request: above gpt-3.5's window.
    inp.model = Some("gpt-3.5-turbo".into());
    assert_eq!(replay(&inp, &o).over_window.recorded, 1);
    // An unknown slug: Codex's fallback, and the note says it was assumed.
    inp.model = Some("mystery".into());
    let mut claude = opts(Algorithm::Claude, 3_000, &[]);
    claude.context_window = None;
    let r = replay(&inp, &claude);
    assert_eq!(r.limits.context_window, 272_000);
    assert!(r.notes.iter().any(|n| n.contains("assumed a 272,000")));
}

/// Gemini's algorithm on another agent's session: its file's extension and start date say
/// nothing of a Gemini CLI version, so every such session gets the newest constants, unnoted.
#[test]
fn gemini_constants_of_another_agents_session_are_the_newest() {
    let day = |y, m, d| {
        chrono::NaiveDate::from_ymd_opt(y, m, d)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc()
    };
    let o = opts(Algorithm::Gemini, 1_000, &[]);
    for (agent, path, started) in [
        (Agent::Claude, "c.jsonl", day(2025, 10, 15)),
        (Agent::Claude, "c.jsonl", day(2026, 8, 20)),
        (
            Agent::Codex,
            "rollout-2025-04-18-a3b4c5d6.json",
            day(2025, 4, 18),
        ),
    ] {
        let mut i = input(3, 400, |_, h| Some(h));
        i.agent = agent;
        i.path = path.into();
        i.started_at = Some(started);
        let r = replay(&i, &o);
        let what = format!("{agent} {path} {started}");
        assert!(
            !r.notes.iter().any(|n| n.contains("Gemini CLI")),
            "{what}: {:?}",
            r.notes
        );
        // v0.53+ (the newest): threshold 0.5, weight 1.5, turns coalesced, masking on.
        assert_eq!(r.settings.num("threshold"), 0.5, "{what}");
        assert_eq!(r.settings.num("non_ascii_weight"), 1.5, "{what}");
        assert!(r.settings.flag("coalesce_turns"), "{what}");
        assert!(r.settings.flag("masking"), "{what}");
    }
}

/// The Gemini CLI version a Gemini file's replay assumes: from what the file is (a legacy
/// document or a JSONL log, with or without v0.44's records) and whether it holds the v0.33+
/// percent notice, not from its extension.
#[test]
fn gemini_era_follows_the_files_layout_and_notice() {
    use serde_json::json;
    const HASH: &str = "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9";
    // Messages without timestamps: the start date is the `startTime`.
    let meta = |day: &str| {
        json!({"sessionId": "s-1", "projectHash": HASH, "startTime": format!("{day}T10:00:00Z"),
               "lastUpdated": format!("{day}T11:00:00Z"), "kind": "main"})
    };
    let user = |id: &str| json!({"id": id, "type": "user", "content": [{"text": "do it"}]});
    let reply = |id: &str, calls: bool| {
        let mut g = json!({"id": id, "type": "gemini",
            "content": "done", "model": "gemini-2.5-pro",
            "tokens": {"input": 1000, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 1010}});
        if calls {
            g["toolCalls"] = json!([{"id": format!("c-{id}"), "name": "ls", "args": {},
                "status": "success",     "result": [{"functionResponse": {"id": format!("c-{id}"), "name": "ls",
                            "response": {"output": "a b"}}}]}]);
        }
        g
    };
    let fr_user = |id: &str, call: &str| {
        json!({"id": id, "type": "user",
               "content": [{"functionResponse": {"id": call, "name": "ls", "response": {"output": "a b"}}}]})
    };
    let notice = json!({"id": "i1", "type": "info",
                        "content": "Context compressed from 62% to 18%."});
    let log =
        |lines: &[serde_json::Value]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let document = |day: &str, messages: &[serde_json::Value]| {
        let mut d = meta(day);
        d["messages"] = json!(messages);
        serde_json::to_string_pretty(&d).unwrap()
    };
    let cases = [
        // A legacy session resumed and migrated to JSONL keeps its old start date: v0.39+.
        (
            "session-2026-01-10T09-00-s1.jsonl",
            log(&[meta("2026-01-10"), user("u1"), reply("g1", false)]),
            "0.39.0",
        ),
        // Legacy, but the notice exists only from v0.33.
        (
            "session-2026-01-28T09-00-s1.json",
            document(
                "2026-01-28",
                &[user("u1"), reply("g1", false), notice.clone()],
            ),
            "0.33.0",
        ),
        (
            "session-2026-01-28T09-00-s1.json",
            document("2026-01-28", &[user("u1"), reply("g1", false)]),
            "0.26.0",
        ),
        // JSONL before the first JSONL release.
        (
            "session-2026-04-14T09-00-s1.jsonl",
            log(&[meta("2026-04-14"), user("u1"), reply("g1", true)]),
            "0.39.0",
        ),
        // A tool result recorded only in its call: before v0.44.
        (
            "session-2026-08-20T09-00-s1.jsonl",
            log(&[meta("2026-08-20"), user("u1"), reply("g1", true)]),
            "0.43.0",
        ),
        // A functionResponse `user` record: v0.44+.
        (
            "session-2026-05-01T09-00-s1.jsonl",
            log(&[
                meta("2026-05-01"),
                user("u1"),
                reply("g1", true),
                fr_user("u2", "c-g1"),
                reply("g2", false),
            ]),
            "0.44.0",
        ),
        // A `$set.messages` checkpoint: v0.44+.
        (
            "session-2026-05-01T09-00-s1.jsonl",
            log(&[
                meta("2026-05-01"),
                user("u1"),
                reply("g1", false),
                json!({"$set": {"messages": [user("u1")]}}),
                reply("g2", false),
            ]),
            "0.44.0",
        ),
        // JSONL under a `.json` name is a log, and one that shows neither marker is v0.39+.
        (
            "session-2026-05-01T09-00-s1.json",
            log(&[meta("2026-05-01"), user("u1"), reply("g1", false)]),
            "0.40.0",
        ),
    ];
    let o = ReplayOptions {
        context_window: None,
        ..opts(Algorithm::Gemini, 1_000, &[])
    };
    for (name, body, version) in cases {
        let input = gemini_file_input(name, &body);
        let r = replay(&input, &o);
        let want = format!("Gemini CLI {version} assumed");
        assert!(
            r.notes.iter().any(|n| n.starts_with(&want)),
            "{name} ({version}): {:?}",
            r.notes
        );
    }
}

/// Gemini's algorithm on a Gemini session: the window is `tokenLimit(model)` of the version
/// assumed, not of today's table; `--context-window` still overrides it.
#[test]
fn gemini_window_is_the_assumed_versions_token_limit() {
    use serde_json::json;
    const HASH: &str = "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9";
    let record = |day: &str, model: &str| {
        let meta = json!({"sessionId": "s-1", "projectHash": HASH,
            "startTime": format!("{day}T10:00:00Z"), "lastUpdated": format!("{day}T11:00:00Z"),
            "kind": "main"});
        let messages = [
            json!({"id": "u1", "type": "user", "content": [{"text": "do it"}]}),
            json!({"id": "g1", "type": "gemini", "content": "done", "model": model,
                "tokens": {"input": 1000, "output": 10, "cached": 0, "thoughts": 0, "tool": 0,
                           "total": 1010}}),
        ];
        (meta, messages)
    };
    let document = |day: &str, model: &str| {
        let (mut d, messages) = record(day, model);
        d["messages"] = json!(messages);
        serde_json::to_string_pretty(&d).unwrap()
    };
    let log = |day: &str, model: &str| {
        let (meta, messages) = record(day, model);
        std::iter::once(meta)
            .chain(messages)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    let cases = [
        // v0.24.0: gemini-1.5-pro still 2,097,152.
        (
            "session-2026-01-14T10-00-s1.json",
            document("2026-01-14", "gemini-1.5-pro"),
            None,
            2_097_152,
            window::WindowSource::Model,
        ),
        // v0.32.0: every Gemini model 1,048,576.
        (
            "session-2026-03-03T10-00-s1.json",
            document("2026-03-03", "gemini-1.5-pro"),
            None,
            1_048_576,
            window::WindowSource::Model,
        ),
        // v0.40.0: Gemma 4 is not in the table yet.
        (
            "session-2026-04-30T10-00-s1.jsonl",
            log("2026-04-30", "gemma-4-31b-it"),
            None,
            1_048_576,
            window::WindowSource::Model,
        ),
        // v0.41.0: Gemma 4 256,000.
        (
            "session-2026-05-06T10-00-s1.jsonl",
            log("2026-05-06", "gemma-4-31b-it"),
            None,
            256_000,
            window::WindowSource::Model,
        ),
        (
            "session-2026-01-14T10-00-s1.json",
            document("2026-01-14", "gemini-1.5-pro"),
            Some(500_000),
            500_000,
            window::WindowSource::Override,
        ),
    ];
    for (name, body, given, window, source) in cases {
        let input = gemini_file_input(name, &body);
        let o = ReplayOptions {
            context_window: given,
            ..opts(Algorithm::Gemini, 1_000, &[])
        };
        let r = replay(&input, &o);
        assert_eq!(
            (r.limits.context_window, r.limits.source),
            (window, source),
            "{name}: {:?}",
            r.notes
        );
        assert_eq!(r.threshold, Some(window / 2), "{name}");
    }
}

/// The replay input of a Gemini session file `name` holding `body`, parsed from disk (its
/// layout and name are what the era is read from).
fn gemini_file_input(name: &str, body: &str) -> ReplayInput {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    let src =
        crate::parse::SourceFile::new(Agent::Gemini, path, crate::parse::FileRole::GeminiSession);
    ReplayInput::from_session(crate::parse::parse_file(&src).unwrap())
}
