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
                input: a.clone(),
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
#[test]
fn compact_json_sizes_are_the_printed_sizes() {
    use serde_json::{Value, json};
    let pieces = [
        "", "a", " ", "\"", "\\", "/", "\u{0}", "\u{7}", "\u{8}", "\t", "\n", "\u{b}", "\u{c}",
        "\r", "\u{1f}", "\u{7f}", "é", "日本", "🙂", "\u{2028}", "\u{ffff}",
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
    // A small deterministic generator: strings of up to 200 pieces (past the 64-byte blocks
    // the measure counts in), nested arrays and objects.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    fn build(
        depth: usize,
        next: &mut impl FnMut(usize) -> usize,
        pieces: &[&str],
        numbers: &[Value],
    ) -> Value {
        let text = |next: &mut dyn FnMut(usize) -> usize| -> String {
            let n = next(200);
            (0..n).map(|_| pieces[next(pieces.len())]).collect()
        };
        match next(if depth == 0 { 4 } else { 6 }) {
            0 => Value::String(text(next)),
            1 => numbers[next(numbers.len())].clone(),
            2 => [Value::Null, Value::Bool(true), Value::Bool(false)][next(3)].clone(),
            3 => Value::String(pieces[next(pieces.len())].to_string()),
            4 => Value::Array(
                (0..next(4))
                    .map(|_| build(depth - 1, next, pieces, numbers))
                    .collect(),
            ),
            _ => Value::Object(
                (0..next(4))
                    .map(|_| (text(next), build(depth - 1, next, pieces, numbers)))
                    .collect(),
            ),
        }
    }
    let mut escapes = 0;
    for _ in 0..3000 {
        let v = build(3, &mut next, &pieces, &numbers);
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
        input: serde_json::json!({"path": "a", "text": "y".repeat(50_000), "n": [1, 2]}),
    });
    let grown = big.held_bytes() - base;
    assert!((150_000..151_000).contains(&grown), "{grown}");
}
