//! Unit tests of the JavaScript-semantics JSON values: numbers, strings, key order, lengths and
//! the record reader.

use super::*;

#[test]
fn numbers_print_like_javascript() {
    let cases = [
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (-2.5, "-2.5"),
        (123456789.0, "123456789"),
        (9007199254740992.0, "9007199254740992"),
        (1e300, "1e+300"),
        (5e-324, "5e-324"),
        (-0.0, "0"),
        (100.0, "100"),
        (1.25e22, "1.25e+22"),
        (0.5, "0.5"),
    ];
    for (x, s) in cases {
        assert_eq!(js_number(x), s, "{x:e}");
    }
}

#[test]
fn strings_escape_and_measure_like_javascript() {
    let s = JsStr::from("a\"b\\c\n\u{1}é😀\u{2028}");
    let j = to_json(&J::Str(s.clone()));
    assert_eq!(j, "\"a\\\"b\\\\c\\n\\u0001é😀\u{2028}\"");
    assert_eq!(
        json_len(&J::Str(s.clone())),
        j.encode_utf16().count() as u64
    );
    let st = s.stats();
    assert_eq!((st.units, st.non_ascii), (11, 4));
    // Slicing through the pair leaves a lone surrogate, escaped as six characters.
    let cut = s.slice(0, Some(9));
    assert!(matches!(cut, JsStr::Wide(_)));
    assert_eq!(
        to_json(&J::Str(cut.clone())),
        "\"a\\\"b\\\\c\\n\\u0001é\\ud83d\""
    );
    assert_eq!(json_len(&J::Str(cut)), 24);
    assert_eq!(s.slice(-2, None), JsStr::from("😀\u{2028}").slice(1, None));
}

#[test]
fn pretty_and_compact_objects() {
    let v = J::obj(vec![
        ("b", J::Arr(vec![J::Num(1.0), J::Null, J::obj(vec![])])),
        ("a", J::Arr(vec![])),
    ]);
    assert_eq!(to_json(&v), r#"{"b":[1,null,{}],"a":[]}"#);
    assert_eq!(
        to_json_pretty(&v),
        "{\n  \"b\": [\n    1,\n    null,\n    {}\n  ],\n  \"a\": []\n}"
    );
    assert_eq!(json_len(&v), to_json(&v).len() as u64);
    let parsed: J = serde_json::from_str(r#"{"z":1,"a":{"y":2,"b":3}}"#).unwrap();
    assert_eq!(to_json(&parsed), r#"{"z":1,"a":{"y":2,"b":3}}"#);
    let sorted = J::from_value(&serde_json::json!({"b": 1, "10": 2, "2": 3, "01": 4}));
    assert_eq!(to_json(&sorted), r#"{"2":3,"10":2,"01":4,"b":1}"#);
}

#[test]
fn with_sets_a_key_of_a_copy_as_set_does() {
    let v = J::obj(vec![
        ("a", J::Num(1.0)),
        ("response", J::Str("big".into())),
        ("z", J::Null),
    ]);
    for (key, value) in [("response", J::Bool(true)), ("new", J::Num(2.0))] {
        let mut set = v.clone();
        set.set(key, value.clone());
        assert_eq!(v.with(key, value), set, "{key}");
    }
    // Anything but an object is left as it is, as `set` leaves it.
    assert_eq!(J::Num(3.0).with("k", J::Null), J::Num(3.0));
}

#[test]
fn known_lengths_stand_for_the_nodes_they_name() {
    let inner = J::Str("x\"y\n漢".into());
    let v = J::obj(vec![("a", J::Arr(vec![inner.clone(), J::Null]))]);
    let J::Arr(items) = v.get("a").unwrap() else {
        unreachable!()
    };
    let node = &items[0];
    assert_eq!(json_len_known(&v, &[(node, json_len(node))]), json_len(&v));
    // By identity: an equal node elsewhere is measured, not looked up.
    assert_eq!(json_len_known(&v, &[(&inner, 1_000)]), json_len(&v));
    assert_eq!(
        json_len_known(&v, &[(node, json_len(node) + 5)]),
        json_len(&v) + 5
    );
}

#[test]
fn ascii_slices_are_the_unit_slices() {
    let s = JsStr::from("0123456789");
    for (a, b) in [
        (0, Some(3)),
        (-4, None),
        (2, Some(-2)),
        (5, Some(2)),
        (-20, Some(20)),
    ] {
        let expected = JsStr::from_units({
            let u = s.to_units();
            let len = u.len() as i64;
            let clamp = |x: i64| if x < 0 { (len + x).max(0) } else { x.min(len) };
            let (from, to) = (clamp(a), b.map_or(len, clamp));
            if from >= to {
                Vec::new()
            } else {
                u[from as usize..to as usize].to_vec()
            }
        });
        assert_eq!(s.slice(a, b), expected, "{a} {b:?}");
    }
}

#[test]
fn pretty_json_ends_are_those_of_the_whole() {
    let texts = [
        String::new(),
        "short".to_string(),
        "x\"y\\z\n\t\u{1}é漢😀\u{2028}".repeat(40),
        "😀".repeat(300),
        format!("{}\n{}", "a".repeat(600), "\u{7}".repeat(200)),
    ];
    let mut values = Vec::new();
    for t in &texts {
        values.push(J::Str(t.as_str().into()));
        values.push(J::obj(vec![("output", J::Str(t.as_str().into()))]));
        values.push(J::obj(vec![
            (
                "files",
                J::Arr(vec![J::Str(t.as_str().into()), J::Num(1.5), J::Null]),
            ),
            ("k\n😀", J::Str(t.as_str().into())),
            ("empty", J::obj(vec![])),
        ]));
    }
    values.push(J::obj(vec![(
        "wide",
        J::Str(JsStr::Wide(vec![0xd800; 900])),
    )]));
    for v in &values {
        let whole = JsStr::Text(to_json_pretty(v));
        let len = whole.len16() as i64;
        for n in [1usize, 2, 5, 64, 250] {
            let (ends, total) = pretty_json_ends(v, n);
            assert_eq!(total as i64, len, "{n}");
            let m = n as i64;
            if len <= 2 * m {
                assert_eq!(ends, whole, "{n}");
            } else {
                assert_eq!(ends.slice(0, Some(m)), whole.slice(0, Some(m)), "{n}");
                assert_eq!(ends.slice(-m, None), whole.slice(-m, None), "{n}");
            }
        }
    }
}

#[test]
fn locale_and_trim() {
    assert_eq!(js_locale_int(0), "0");
    assert_eq!(js_locale_int(8000), "8,000");
    assert_eq!(js_locale_int(1234567), "1,234,567");
    assert_eq!(js_locale_int(-1234), "-1,234");
    let u: Vec<u16> = "\u{feff} \u{85}x \u{3000}".encode_utf16().collect();
    // U+0085 is not JavaScript whitespace; U+FEFF is.
    assert_eq!(String::from_utf16(js_trim(&u)).unwrap(), "\u{85}x");
}

/// A log line's record is its whole tree but for the interface's renderings of each tool
/// call: the same keys elsewhere (the arguments, the message, another array) are kept, and
/// `JSON.parse`'s order and repeated keys hold as in any tree.
#[test]
fn a_records_tree_leaves_out_only_the_calls_renderings() {
    let whole = |t: &str| serde_json::from_str::<J>(t).unwrap();
    let line = r#"{"id":"m","type":"gemini","description":"top","toolCalls":[
        {"id":"c","name":"ls","displayName":"ReadFolder","description":"Lists",
         "args":{"description":"kept","resultDisplay":"kept"},
         "result":[{"functionResponse":{"id":"c","name":"ls","response":{"output":"x"}}}],
         "resultDisplay":{"fileDiff":"@@ -1 +1 @@"},"status":"success","2":"two"},
        "not a call"],
        "thoughts":[{"subject":"s","description":"d"}],"id":"m2"}"#;
    let mut want = whole(line);
    if let Some(J::Arr(calls)) = want.get_mut("toolCalls")
        && let J::Obj(call) = &mut calls[0]
    {
        call.retain(|(k, _)| !UI_ONLY.contains(&k.as_str()));
    }
    assert_eq!(record_line(line, false).unwrap(), want);
    let call = &record_line(line, false)
        .unwrap()
        .get("toolCalls")
        .unwrap()
        .clone();
    let J::Arr(calls) = call else { panic!() };
    let keys: Vec<&str> = match &calls[0] {
        J::Obj(e) => e.iter().map(|(k, _)| k.as_str()).collect(),
        _ => panic!(),
    };
    assert_eq!(keys, ["2", "id", "name", "args", "result", "status"]);
    // Lines without calls, a metadata line's nested messages, and what is not JSON read
    // as any tree does.
    for text in [
        r#"{"sessionId":"s","projectHash":"p","messages":[{"id":"a","toolCalls":[{"id":"c","description":"kept"}]}]}"#,
        r#"{"$set":{"lastUpdated":"2026-01-01T00:00:00Z"}}"#,
        r#"{"id":"u","type":"user","content":[{"text":"hi"}],"toolCalls":{"description":"an object"}}"#,
        r#"[1,2]"#,
    ] {
        assert_eq!(record_line(text, false).unwrap(), whole(text), "{text}");
    }
    // A rendering is still read as JSON, but not decoded: a lone surrogate there (which
    // `JSON.parse` accepts, and a tree cannot hold) no longer costs the record its line.
    let lone = r#"{"id":"m","toolCalls":[{"id":"c","resultDisplay":"\ud800"}]}"#;
    assert!(serde_json::from_str::<J>(lone).is_err());
    assert_eq!(
        record_line(lone, false).unwrap(),
        whole(r#"{"id":"m","toolCalls":[{"id":"c"}]}"#)
    );
    for bad in [
        r#"{"id":"m","toolCalls":[{"resultDisplay":}]}"#,
        r#"{"id":"m"} x"#,
        "",
    ] {
        assert!(record_line(bad, false).is_err(), "{bad}");
    }
}

/// Measuring, a string `output` of a function response in a call's `result` (an array of parts
/// or one part) holds its size, not its text; an output of another kind and every other string
/// are read as a tree is; a line whose output holds a lone surrogate fails either way; and
/// nothing is measured while the full view reads the tree, nor without measuring.
#[test]
fn a_records_function_outputs_are_measured_in_place() {
    use crate::model::TextSize;
    use crate::parse::{Detail, json::with_detail};
    let line = r#"{"id":"m","content":"a\nb","toolCalls":[
        {"id":"c","result":[{"functionResponse":{"id":"c","response":{"output":"é\n🎉","n":"x"}}},
                            {"text":"t","output":"not a response"}]},
        {"id":"d","result":{"functionResponse":{"response":{"output":"one part","error":"e"}}}},
        {"id":"e","result":[{"functionResponse":{"response":{"output":{"k":"v"}}}}]},
        {"id":"f","output":"not a result","result":"a string result"}]}"#;
    let measure = |line: &str| with_detail(Detail::Summary, || record_line(line, true));
    let mut want = record_line(line, false).unwrap();
    fn output(call: &mut J) -> &mut J {
        let part = match call.get_mut("result").unwrap() {
            J::Arr(parts) => &mut parts[0],
            one => one,
        };
        let body = part.get_mut("functionResponse").unwrap();
        body.get_mut("response").unwrap().get_mut("output").unwrap()
    }
    let Some(J::Arr(calls)) = want.get_mut("toolCalls") else {
        panic!()
    };
    *output(&mut calls[0]) = J::Str(JsStr::Measured(TextSize::of("é\n🎉")));
    *output(&mut calls[1]) = J::Str(JsStr::Measured(TextSize::of("one part")));
    assert_eq!(measure(line).unwrap(), want);
    let full = with_detail(Detail::Full, || record_line(line, true).unwrap());
    assert_eq!(full, record_line(line, false).unwrap());
    let lone =
        r#"{"toolCalls":[{"result":{"functionResponse":{"response":{"output":"\ud800"}}}}]}"#;
    assert!(measure(lone).is_err() && record_line(lone, false).is_err());
}
