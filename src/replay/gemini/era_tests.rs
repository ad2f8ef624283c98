//! The tool-output truncation against its formula and a literal port, the separate part
//! sizes, and the rules each Gemini CLI era had (which the engine picks from the file).

use super::content::convert;
use super::differential_tests::random_session;
use super::estimate::{Estimator, part_est};
use super::json::{J, JsStr, json_len, to_json};
use super::tests::*;
use super::truncate::saved_output_path;
use super::*;
use crate::model::Role;
use crate::replay::settings::Settings;
use crate::replay::{EventKind, HistoryItem, RequestInfo, Strategy};

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
