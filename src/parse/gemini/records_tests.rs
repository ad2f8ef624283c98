//! The typed readings of a Gemini record's bodies (`thoughts`, `toolCalls`) against what
//! the values they replaced held.

use super::*;
use crate::parse::json::{Detail, from_tree, with_detail};
use crate::testing::Rng;

/// What the thinking parts of `thoughts` are, as the parser read them when it kept
/// `thoughts` as a JSON value: in the summary, a subject's or description's string as its
/// stand-in, a thought string longer than the skeleton's limit as its stand-in.
fn expected(thoughts: &Value, summary: bool) -> Vec<String> {
    let Value::Array(list) = thoughts else {
        return Vec::new();
    };
    let stand_in = |s: &str| match (s.is_empty(), s.trim().is_empty()) {
        (true, _) => "",
        (false, true) => " ",
        (false, false) => "…",
    };
    list.iter()
        .map(|t| match t {
            Value::Object(o) => {
                let field = |k: &str| match o.get(k) {
                    Some(Value::String(s)) if summary => stand_in(s).to_string(),
                    Some(Value::String(s)) => s.clone(),
                    _ => String::new(),
                };
                let (subject, desc) = (field("subject"), field("description"));
                let (subject, desc) = (subject.trim(), desc.trim());
                match (subject.is_empty(), desc.is_empty()) {
                    (false, false) => format!("{subject}\n{desc}"),
                    (false, true) => subject.to_string(),
                    _ => desc.to_string(),
                }
            }
            Value::String(s) if summary && s.len() > 128 => stand_in(s).trim().to_string(),
            Value::String(s) => s.trim().to_string(),
            _ => String::new(),
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// A JSON string of one of the shapes that decide a thought's text: empty, blank (written
/// plainly or as `\u` escapes), padded, escaped, short or past the skeleton's limit.
fn string(rng: &mut Rng) -> String {
    let long = "x".repeat(140);
    let blank = " ".repeat(140);
    let pieces = [
        "",
        " ",
        "\t\n",
        "\u{2003}",
        "  Plan  ",
        "Read \"a\" then\nedit.",
        "🙂",
        &long,
        &blank,
    ];
    let s: String = (0..rng.below(3) + 1).map(|_| *rng.pick(&pieces)).collect();
    if rng.chance(20) && s.trim().is_empty() {
        // Blank through escapes: the summary decides blankness from the raw text.
        let escaped: String = s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
        return format!("\"{escaped}\"");
    }
    serde_json::to_string(&s).unwrap()
}

fn value(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => "null".into(),
        1 => "7".into(),
        2 => r#"{"a":"b"}"#.into(),
        3 => "[1,\"x\"]".into(),
        _ => string(rng),
    }
}

fn thought(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => value(rng),
        1 => string(rng),
        _ => {
            let keys = ["subject", "description", "timestamp"];
            let entries: Vec<String> = (0..rng.below(4))
                .map(|_| format!("\"{}\":{}", rng.pick(&keys), value(rng)))
                .collect();
            format!("{{{}}}", entries.join(","))
        }
    }
}

/// `toolCalls` as the parser read it when it kept the value whole (a skeleton in the
/// summary): the keys the engine reads of each call object, the rest as it was.
fn calls_of(v: &Value) -> ListOr<CallIn> {
    let s = |o: &serde_json::Map<String, Value>, k: &str| {
        o.get(k).and_then(Value::as_str).map(String::from)
    };
    match v {
        Value::Array(list) => ListOr::List(
            list.iter()
                .map(|c| match c {
                    Value::Object(o) => CallIn::Call(Box::new(Call {
                        id: s(o, "id"),
                        name: s(o, "name"),
                        status: s(o, "status"),
                        timestamp: o.get("timestamp").cloned(),
                        args: o.get("args").cloned(),
                        result: o.get("result").cloned(),
                        result_display: s(o, "resultDisplay"),
                    })),
                    other => CallIn::Other(other.clone()),
                })
                .collect(),
        ),
        Value::Null => ListOr::List(Vec::new()),
        other => ListOr::Not(crate::parse::json_kind(other)),
    }
}

/// The keys the engine reads of a call.
const ENGINE_KEYS: &[&str] = &[
    "id",
    "name",
    "status",
    "timestamp",
    "args",
    "result",
    "resultDisplay",
];

/// Keys nested in a call's values besides the engine's: bodies the summary drops at any depth.
const NESTED_KEYS: &[&str] = &[
    "description",
    "output",
    "functionResponse",
    "response",
    "text",
];

/// Keys of a call object besides the engine's: ones nobody reads.
const CALL_KEYS: &[&str] = &["displayName", "renderOutputAsMarkdown"];

/// An object of up to `n - 1` entries, repeats included, with keys the engine reads two times
/// in three and from `others` the third.
fn object(rng: &mut Rng, others: &[&str], n: u64, depth: u32) -> String {
    let entries: Vec<String> = (0..rng.below(n))
        .map(|_| {
            let k = if rng.chance(67) {
                rng.pick(ENGINE_KEYS)
            } else {
                rng.pick(others)
            };
            format!("\"{k}\":{}", call_value(rng, depth + 1))
        })
        .collect();
    format!("{{{}}}", entries.join(","))
}

fn call_value(rng: &mut Rng, depth: u32) -> String {
    match rng.below(if depth > 2 { 5 } else { 8 }) {
        0 => "null".into(),
        1 => "3".into(),
        2 => "true".into(),
        3 | 4 => string(rng),
        5 => {
            let items: Vec<String> = (0..rng.below(3))
                .map(|_| call_value(rng, depth + 1))
                .collect();
            format!("[{}]", items.join(","))
        }
        _ => object(rng, NESTED_KEYS, 4, depth),
    }
}

/// An array of up to three `item`s, or one in ten times what `not` makes instead.
fn array_or_not(
    rng: &mut Rng,
    not: impl FnOnce(&mut Rng) -> String,
    mut item: impl FnMut(&mut Rng) -> String,
) -> String {
    if rng.below(10) == 0 {
        return not(rng);
    }
    let items: Vec<String> = (0..rng.below(4)).map(|_| item(rng)).collect();
    format!("[{}]", items.join(","))
}

/// Each call object read into the keys the engine reads is what the whole value (the
/// skeleton, in the summary) held under those keys, from the line's text and from a tree,
/// over generated calls: repeated keys, values of every kind, bodies nested at any depth
/// (which the summary drops), elements that are no object, `toolCalls` that is no array.
#[test]
fn tool_calls_read_typed_are_what_their_values_held() {
    let mut rng = Rng(0xca11_5eed);
    let (mut calls, mut others) = (0, 0);
    for _ in 0..3000 {
        let text = array_or_not(
            &mut rng,
            |rng| call_value(rng, 0),
            |rng| match rng.below(8) {
                0 => call_value(rng, 1),
                _ => object(rng, CALL_KEYS, 6, 0),
            },
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        for detail in [Detail::Full, Detail::Summary] {
            let want = with_detail(detail, || {
                calls_of(
                    &serde_json::from_str::<Skel<SKEL_TOOL_BODIES>>(&text)
                        .unwrap()
                        .0,
                )
            });
            let read = with_detail(detail, || serde_json::from_str::<ListOr<CallIn>>(&text));
            assert_eq!(read.unwrap(), want, "{text} ({detail:?}, from the text)");
            let read = with_detail(detail, || from_tree(|| ListOr::<CallIn>::deserialize(&v)));
            assert_eq!(read.unwrap(), want, "{text} ({detail:?}, from a tree)");
            let ListOr::List(list) = &want else { continue };
            for c in list {
                match c {
                    CallIn::Call(_) => calls += 1,
                    CallIn::Other(_) => others += 1,
                }
            }
        }
    }
    assert!(
        calls > 3000 && others > 300,
        "{calls} calls, {others} others"
    );
}

/// The thinking texts read from `thoughts` are the ones its JSON value gave, in the full
/// view and the summary, from the line's text and from a tree, over generated thoughts:
/// repeated keys, values of every kind, blank strings written as escapes, strings on both
/// sides of the skeleton's limit.
#[test]
fn thoughts_read_as_texts_are_the_texts_of_their_values() {
    let mut rng = Rng(0x7e57_7007);
    let (mut texts, mut stood_in) = (0, 0);
    for _ in 0..3000 {
        let text = array_or_not(&mut rng, value, thought);
        let v: Value = serde_json::from_str(&text).unwrap();
        for (detail, summary) in [(Detail::Full, false), (Detail::Summary, true)] {
            let want = expected(&v, summary);
            let read = with_detail(detail, || serde_json::from_str::<Thoughts>(&text));
            assert_eq!(read.unwrap().0, want, "{text} ({detail:?}, from the text)");
            let read = with_detail(detail, || from_tree(|| Thoughts::deserialize(&v)));
            assert_eq!(read.unwrap().0, want, "{text} ({detail:?}, from a tree)");
            texts += want.len();
            stood_in += want.iter().filter(|t| summary && t.contains('…')).count();
        }
    }
    assert!(
        texts > 1000 && stood_in > 100,
        "{texts} texts, {stood_in} stood in"
    );
}
