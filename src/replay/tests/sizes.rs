//! What the replay measures of a history: tool arguments, the unmanaged history, what an
//! input holds.

use super::*;
use crate::replay::js::JsonUnits;

/// The calibration's `push_unmanaged` is a shortcut: after every item, each strategy's
/// `full_tokens` must equal what a full `push` gives, on every session of the sample home and
/// on generated Gemini sessions (function responses, thoughts, coalesced turns).
#[test]
fn push_unmanaged_measures_the_full_history_as_push_does() {
    use crate::parse::{FileRole, SourceFile, sniff_agent};
    let home = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home");
    let tmp = tempfile::tempdir().unwrap();
    let mut files: Vec<std::path::PathBuf> = walkdir::WalkDir::new(&home)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    for seed in 0..12 {
        let ext = if gemini::e2e_gen::is_jsonl(seed) {
            "jsonl"
        } else {
            "json"
        };
        let file = tmp.path().join(format!("gen-{seed}.{ext}"));
        std::fs::write(&file, gemini::e2e_gen::generate_session(seed)).unwrap();
        files.push(file);
    }
    let mut compared = [0usize; 5];
    for file in files {
        let Some(agent) = sniff_agent(&file) else {
            continue;
        };
        let Ok(session) =
            crate::parse::parse_file(&SourceFile::new(agent, file, FileRole::Unknown))
        else {
            continue;
        };
        let input = ReplayInput::from_session(session);
        for (a, alg) in <Algorithm as clap::ValueEnum>::value_variants()
            .iter()
            .enumerate()
        {
            let ctx = StrategyContext {
                settings: Settings::resolve(alg.specs(), &[]).unwrap(),
                limits: window::resolve(input.model.as_deref(), None, None, alg.default_limits()),
                summary_tokens: 1_000,
                agent_version: input.agent_version.clone(),
                native: alg.native_agent() == Some(input.agent),
                model: input.model.clone(),
                sweep: false,
            };
            let mut full = alg.build(&ctx, &input);
            let mut unmanaged = alg.build(&ctx, &input);
            for (i, item) in input.items.iter().enumerate() {
                full.push(item);
                unmanaged.push_unmanaged(item);
                assert_eq!(
                    full.full_tokens(),
                    unmanaged.full_tokens(),
                    "{alg:?} {} item {i}",
                    input.path.display()
                );
            }
            compared[a] += input.items.len();
        }
    }
    // Every algorithm saw real histories, not a handful of items.
    assert!(compared.iter().all(|&n| n > 200), "{compared:?}");
}

/// The replay pushes the items the calibration's pass measured from those sizes
/// ([`Strategy::take_measured`]), and must come out as a replay that measures every item
/// itself. A sweep's second setting of one calibration is such a replay (it is handed the
/// fitted calibration and runs no pass of its own), so every algorithm replays each session
/// twice at a small window (compactions and prunings, file lists, cut points), and the two
/// replays must be equal.
#[test]
fn a_replay_that_reuses_the_calibrations_sizes_is_the_replay_that_measures_them() {
    use crate::parse::{FileRole, SourceFile, sniff_agent};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // The sample home's sessions with recorded usage, and a generated one of tool calls.
    let mut files: Vec<std::path::PathBuf> = walkdir::WalkDir::new(root.join("testdata/home"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.sort();
    let mut inputs: Vec<ReplayInput> = files
        .iter()
        .filter_map(|file| {
            let agent = sniff_agent(file)?;
            let file = SourceFile::new(agent, file.clone(), FileRole::Unknown);
            crate::parse::parse_file(&file).ok()
        })
        .map(ReplayInput::from_session)
        .filter(|input| input.recorded_usage)
        .collect();
    inputs.push(tool_session());
    let mut acted = [0usize; 5];
    for input in &inputs {
        let file = &input.path;
        for (a, alg) in <Algorithm as clap::ValueEnum>::value_variants()
            .iter()
            .enumerate()
        {
            // OpenClaw prunes only after its cache TTL: without it, at every request, and
            // sticky (pruning what it pruned before) as well.
            let settings: &[&[(&str, &str)]] = match alg {
                Algorithm::OpenclawPrune => &[&[("ttl", "0")], &[("ttl", "0"), ("sticky", "true")]],
                _ => &[&[]],
            };
            for (window, pairs) in [12_000, 20_000, 60_000]
                .into_iter()
                .flat_map(|w| settings.iter().map(move |p| (w, *p)))
            {
                let o = ReplayOptions {
                    context_window: Some(window),
                    ..opts(*alg, 1_000, pairs)
                };
                let r = replay_each(input, &[o.clone(), o]);
                let json = |r: &SessionReplay| serde_json::to_value(r).unwrap();
                assert_eq!(
                    json(&r[0]),
                    json(&r[1]),
                    "{alg:?} {} at {window}",
                    file.display()
                );
                acted[a] += r[0].events.len();
            }
        }
    }
    // Every algorithm managed its context many times over these sessions.
    assert!(acted.iter().all(|&n| n > 50), "{acted:?}");
}

/// Sixty turns of a user prompt, an assistant's `read`, `write` or `edit` call (Pi's file
/// lists) and its result, from a few characters to 30,000 (OpenClaw trims the long ones),
/// every request recorded.
fn tool_session() -> ReplayInput {
    let mut s = input(0, 0, |_, _| None);
    let mut history = 0;
    for k in 0..60 {
        let user = item(Role::User, true, &format!("turn {k} ").repeat(40));
        let call = HistoryItem {
            parts: vec![Part::ToolCall {
                id: format!("c{k}"),
                name: ["read", "write", "edit"][k % 3].into(),
                input: serde_json::json!({"path": format!("src/f{}.rs", k % 7)}).into(),
            }],
            ..item(Role::Assistant, false, "")
        };
        let result = HistoryItem {
            parts: vec![Part::ToolResult {
                call_id: format!("c{k}"),
                output: "r".repeat(k * 7_919 % 30_000),
                is_error: false,
                attachments: Vec::new(),
                output_size: None,
            }],
            tool_names: vec![Some(["read", "write", "edit"][k % 3].into())],
            ..item(Role::Tool, false, "")
        };
        for it in [user, call, result] {
            history += bytes4_tokens(&it);
            s.items.push(it);
            s.requests.push(RequestPoint {
                upto: s.items.len(),
                recorded_prompt: Some(history + 3_000),
                output: 200,
                timestamp: None,
                model: Some("claude-sonnet-4-5".into()),
                usage: None,
            });
        }
    }
    s
}

#[test]
fn tool_arguments_are_sized_as_their_compact_json() {
    let args = [
        serde_json::json!({"command": "ls -la", "n": 3, "deep": {"a": [1, 2.5, null, true]}}),
        serde_json::json!({"text": "quote \" backslash \\ tab \t newline \n bell \u{7} é 日本 🙂"}),
        serde_json::json!([]),
        serde_json::json!(12345678901234567890u64),
        serde_json::json!(null),
    ];
    for a in args {
        assert_eq!(compact_json_len(&a), a.to_string().len(), "{a}");
        let call = HistoryItem {
            parts: vec![Part::ToolCall {
                id: "c".into(),
                name: "Bash".into(),
                input: a.clone().into(),
            }],
            ..item(Role::Assistant, false, "")
        };
        let expected = (4 + a.to_string().len() as u64).div_ceil(4);
        assert_eq!(bytes4_tokens(&call), expected, "{a}");
    }
}

/// The sizes counted from a value are the sizes of its printed compact JSON, in bytes and in
/// UTF-16 units, over values built from every kind of character an escape or a width depends
/// on, nested, and numbers serde_json prints its own way.
/// `n` generated JSON values: strings of up to 200 pieces (past the 64-byte blocks the
/// measures count in) with every kind of escape, numbers JavaScript and serde_json print
/// differently, nested arrays and objects (keys of any text, digits included).
fn generated_values(n: usize) -> Vec<serde_json::Value> {
    use serde_json::{Value, json};
    let pieces = [
        "", "a", " ", "\"", "\\", "/", "\u{0}", "\u{7}", "\u{8}", "\t", "\n", "\u{b}", "\u{c}",
        "\r", "\u{1f}", "\u{7f}", "é", "日本", "🙂", "\u{2028}", "\u{ffff}", "7", "10",
    ];
    let numbers = [
        json!(0),
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1.0),
        json!(-2.5e-7),
        json!(1e21),
        json!(0.1),
        json!(123456.789),
    ];
    let mut rng = crate::testing::Rng(0x2545_f491_4f6c_dd1d);
    fn build(
        depth: usize,
        rng: &mut crate::testing::Rng,
        pieces: &[&str],
        numbers: &[Value],
    ) -> Value {
        let text = |rng: &mut crate::testing::Rng| -> String {
            let n = rng.below(200);
            (0..n).map(|_| *rng.pick(pieces)).collect()
        };
        match rng.below(if depth == 0 { 4 } else { 6 }) {
            0 => Value::String(text(rng)),
            1 => rng.pick(numbers).clone(),
            2 => rng
                .pick(&[Value::Null, Value::Bool(true), Value::Bool(false)])
                .clone(),
            3 => Value::String(rng.pick(pieces).to_string()),
            4 => Value::Array(
                (0..rng.below(4))
                    .map(|_| build(depth - 1, rng, pieces, numbers))
                    .collect(),
            ),
            _ => Value::Object(
                (0..rng.below(4))
                    .map(|_| {
                        let key = if rng.chance(30) {
                            rng.pick(pieces).to_string()
                        } else {
                            text(rng)
                        };
                        (key, build(depth - 1, rng, pieces, numbers))
                    })
                    .collect(),
            ),
        }
    }
    (0..n)
        .map(|_| build(3, &mut rng, &pieces, &numbers))
        .collect()
}

#[test]
fn compact_json_sizes_are_the_printed_sizes() {
    let mut escapes = 0;
    for v in generated_values(3000) {
        let printed = v.to_string();
        escapes += usize::from(printed.contains("\\u00"));
        assert_eq!(
            compact_json_size(&v, JsonUnits::Bytes),
            printed.len(),
            "{printed}"
        );
        assert_eq!(
            compact_json_size(&v, JsonUnits::Utf16),
            js::utf16_len(&printed),
            "{printed}"
        );
    }
    // The values did hold the escapes whose sizes differ from their characters'.
    assert!(escapes > 100, "{escapes}");
}

/// A tool call's arguments, held as a [`ToolInput`], read back, print, size and convert for
/// Gemini exactly as the `Value` they were made from.
#[test]
fn tool_inputs_are_the_values_they_were_made_from() {
    use crate::model::ToolInput;
    use crate::replay::gemini::json::J;
    let (mut objects, mut floats) = (0, 0);
    for v in generated_values(3000) {
        let input = ToolInput::from(v.clone());
        let printed = v.to_string();
        objects += usize::from(v.is_object() && printed.len() > 2);
        floats += usize::from(printed.contains('.'));
        assert_eq!(input.to_value(), v, "{printed}");
        assert_eq!(serde_json::to_string(&input).unwrap(), printed);
        assert_eq!(
            serde_json::to_string_pretty(&input).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
        for units in [JsonUnits::Bytes, JsonUnits::Utf16] {
            assert_eq!(
                compact_json_size(input.tree(), units),
                compact_json_size(&v, units),
                "{printed}"
            );
        }
        assert_eq!(
            crate::replay::pi::js::json_len(input.tree()),
            crate::replay::pi::js::json_len(&v),
            "{printed}"
        );
        assert_eq!(J::from_value(input.tree()), J::from_value(&v), "{printed}");
        assert_eq!(input.is_null(), v.is_null());
        assert_eq!(input.as_str(), v.as_str());
        if let Some(o) = v.as_object() {
            for k in o.keys() {
                assert_eq!(input.str_at(k), o.get(k).and_then(|x| x.as_str()), "{k}");
            }
        }
        let back: ToolInput = serde_json::from_str(&printed).unwrap();
        assert_eq!(back, input);
        assert_eq!(ToolInput::from(&v), input, "{printed}");
    }
    assert!(objects > 300 && floats > 300, "{objects} {floats}");
}

/// What an input holds grows with the text and values it owns, byte for byte at least.
#[test]
fn an_inputs_held_bytes_count_its_text_and_values() {
    let small = input(4, 10, |_, _| None);
    let base = small.held_bytes();
    assert!(
        base >= 4 * 2 * std::mem::size_of::<HistoryItem>() as u64,
        "{base}"
    );
    let mut big = input(4, 10, |_, _| None);
    big.items[0].parts.push(Part::ToolResult {
        call_id: "c".into(),
        output: "x".repeat(100_000),
        is_error: false,
        attachments: Vec::new(),
        output_size: None,
    });
    big.items[1].parts.push(Part::ToolCall {
        id: "c".into(),
        name: "edit".into(),
        input: serde_json::json!({"path": "a", "text": "y".repeat(50_000), "n": [1, 2]}).into(),
    });
    let grown = big.held_bytes() - base;
    assert!((150_000..151_000).contains(&grown), "{grown}");
    // A vector's room counts too: a replay's items are collected in the messages' buffer.
    let mut roomy = input(4, 10, |_, _| None);
    roomy.items.reserve_exact(1_000);
    let room = roomy.held_bytes() - base;
    let item = std::mem::size_of::<HistoryItem>() as u64;
    assert!(room >= 1_000 * item, "{room}");
    // Compacted, as an input kept after its replay is, it holds what it needs.
    assert_eq!(roomy.compact().held_bytes(), base);
}
