//! JavaScript string semantics the Pi and OpenClaw estimators depend on: `String.length` (UTF-16
//! code units) and the length of `JSON.stringify(value)`, including JavaScript's number
//! formatting (`1e+21`, `1.5e-7`, shortest round-trip digits).

use serde_json::Number;

/// `s.length` in JavaScript: UTF-16 code units.
pub use crate::replay::js::utf16_len as len16;

/// `JSON.stringify(s).length` for a string: quotes plus escapes (`\"`, `\\`, `\b`, `\f`, `\n`,
/// `\r`, `\t` take 2, other control characters `\u00XX` take 6; everything else, U+2028/U+2029
/// included, is written as is).
pub fn json_str_len(s: &str) -> usize {
    2 + crate::replay::js::text_stats(s).escaped as usize
}

/// `JSON.stringify(value).length` in UTF-16 code units (no indentation).
pub fn json_len<T: crate::model::JsonTree + ?Sized>(v: &T) -> usize {
    crate::replay::js::json_text_size(v, crate::replay::js::JsonUnits::Utf16, &|n| {
        js_number(n).len()
    })
}

const MAX_SAFE: u64 = 1 << 53;

/// How JavaScript prints a JSON number (integers beyond 2^53 become doubles, as when JS parses
/// them).
pub fn js_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        if i.unsigned_abs() <= MAX_SAFE {
            return i.to_string();
        }
        return js_f64(i as f64);
    }
    if let Some(u) = n.as_u64() {
        if u <= MAX_SAFE {
            return u.to_string();
        }
        return js_f64(u as f64);
    }
    js_f64(n.as_f64().unwrap_or(f64::NAN))
}

/// `Number.prototype.toString()` as `JSON.stringify` writes it: non-finite numbers are `null`.
pub fn js_f64(x: f64) -> String {
    if x.is_finite() {
        crate::replay::js::number_to_string(x)
    } else {
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_like_javascript() {
        for (x, s) in [
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (0.1, "0.1"),
            (-0.5, "-0.5"),
            (123.456, "123.456"),
            (2.5e-300, "2.5e-300"),
            (1e300, "1e+300"),
            (-0.0, "0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ] {
            assert_eq!(js_f64(x), s, "{x}");
        }
        assert_eq!(
            js_number(&Number::from(9_007_199_254_740_993u64)),
            "9007199254740992"
        );
        assert_eq!(js_number(&Number::from(-42i64)), "-42");
    }

    #[test]
    fn stringify_lengths() {
        assert_eq!(json_len(&json!({})), 2);
        assert_eq!(
            json_len(&json!({"a": [1, "x", null, true]})),
            r#"{"a":[1,"x",null,true]}"#.len()
        );
        // "日本😀" is 3 + 2 UTF-16 units; \n and \u0001 are escaped.
        assert_eq!(json_len(&json!("日本😀")), 2 + 4);
        assert_eq!(json_len(&json!("a\n\u{1}")), 2 + 1 + 2 + 6);
        assert_eq!(len16("a😀"), 3);
    }

    /// The length counted from byte classes is the length `JSON.stringify` writes, character
    /// by character, on strings long enough to take the counting in blocks.
    #[test]
    fn string_lengths_equal_the_characters_written() {
        let written = |s: &str| {
            2 + s
                .chars()
                .map(|c| match c {
                    '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
                    c if (c as u32) < 0x20 => 6,
                    c => c.len_utf16(),
                })
                .sum::<usize>()
        };
        let pieces = [
            "ascii ",
            "\"q\" \\ ",
            "\n\r\t\u{8}\u{c}",
            "\u{1}\u{1f}\u{7f}",
            "é日",
            "🎉",
            "\u{2028}",
        ];
        let mut s = String::new();
        for i in 0..300 {
            s.push_str(pieces[(i * 5 + i / 4) % pieces.len()]);
            assert_eq!(json_str_len(&s), written(&s), "{s:?}");
        }
    }
}
