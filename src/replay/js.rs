//! JavaScript value semantics that the ports of JavaScript algorithms (Gemini CLI, Pi) share.

use std::fmt::Write;

pub use crate::tokens::utf16_len;

/// Sizes of a string that the estimators and JSON lengths need.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StrStats {
    /// `.length`: UTF-16 code units.
    pub units: u64,
    /// Code units above 127 (a surrogate pair counts twice).
    pub non_ascii: u64,
    /// Length of the JSON string literal without its quotes.
    pub escaped: u64,
    /// Surrogate pairs (code points above U+FFFF): what per-code-point iteration counts once.
    pub astral: u64,
}

/// `JSON.stringify` length of each ASCII character inside a string literal.
const ESCAPED_ASCII: [u8; 128] = {
    let mut t = [1u8; 128];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 6;
        i += 1;
    }
    t[0x08] = 2;
    t[0x09] = 2;
    t[0x0a] = 2;
    t[0x0c] = 2;
    t[0x0d] = 2;
    t[0x22] = 2;
    t[0x5c] = 2;
    t
};

/// Stats of well-formed text, from its UTF-8 bytes: an ASCII byte is one unit, a lead byte
/// one non-ASCII unit (two for a 4-byte sequence, a surrogate pair), continuation bytes none.
pub fn text_stats(s: &str) -> StrStats {
    // Every figure is a count of bytes in some class: counted 64 bytes at a time with branch-free
    // comparisons (the compiler vectorises them), the tail byte by byte. Tool outputs are long,
    // and a replay sizes them again at every setting of a sweep.
    let bytes = s.as_bytes();
    let mut chunks = bytes.chunks_exact(64);
    let mut st = StrStats::default();
    let mut ascii_escaped = 0u64;
    for c in &mut chunks {
        let (mut ascii, mut lead, mut four, mut ctl, mut quote, mut short) =
            (0u8, 0u8, 0u8, 0u8, 0u8, 0u8);
        for &b in c {
            ascii += u8::from(b < 0x80);
            lead += u8::from(b >= 0xc0);
            four += u8::from(b >= 0xf0);
            ctl += u8::from(b < 0x20);
            quote += u8::from((b == b'"') | (b == b'\\'));
            short += u8::from((b == 0x08) | (b == 0x09) | (b == 0x0a) | (b == 0x0c) | (b == 0x0d));
        }
        let wide = u64::from(lead) + u64::from(four);
        st.units += u64::from(ascii) + wide;
        st.non_ascii += wide;
        st.astral += u64::from(four);
        // `\"`, `\\`, `\n` and the like take 2; other controls `\u00XX`, 6.
        ascii_escaped +=
            u64::from(ascii) + u64::from(quote) + u64::from(short) + 5 * u64::from(ctl - short);
    }
    let tail = text_stats_bytes(chunks.remainder());
    StrStats {
        units: st.units + tail.units,
        non_ascii: st.non_ascii + tail.non_ascii,
        escaped: ascii_escaped + st.non_ascii + tail.escaped,
        astral: st.astral + tail.astral,
    }
}

/// What escaping adds to `s` in a JSON string literal (quotes aside): one for `\"`, `\\`,
/// `\b`, `\t`, `\n`, `\f`, `\r`, five for each other control character (`\u00XX`). The same
/// in bytes and in UTF-16 units (escapes are ASCII); counted 64 bytes at a time as
/// [`text_stats`] counts, with only the three counts this needs.
pub fn json_escape_extra(s: &str) -> usize {
    let mut chunks = s.as_bytes().chunks_exact(64);
    let mut extra = 0;
    for c in &mut chunks {
        let (mut ctl, mut quote, mut short) = (0u8, 0u8, 0u8);
        for &b in c {
            ctl += u8::from(b < 0x20);
            quote += u8::from((b == b'"') | (b == b'\\'));
            short += u8::from((b == 0x08) | (b == 0x09) | (b == 0x0a) | (b == 0x0c) | (b == 0x0d));
        }
        extra += usize::from(quote) + usize::from(short) + 5 * usize::from(ctl - short);
    }
    extra
        + chunks
            .remainder()
            .iter()
            .filter(|&&b| b < 0x80)
            .map(|&b| usize::from(ESCAPED_ASCII[usize::from(b)]) - 1)
            .sum::<usize>()
}

/// What [`json_text_size`] counts.
#[derive(Clone, Copy)]
pub enum JsonUnits {
    /// UTF-8 bytes.
    Bytes,
    /// UTF-16 code units (JavaScript's `.length`).
    Utf16,
}

/// The size of `v` written as compact JSON (no whitespace, keys in the map's order), strings
/// escaped as `JSON.stringify` and serde_json both escape them, each number `number_len` long
/// (the writers differ there: `1e21` and `1e+21`). Counted from the value rather than printed:
/// each string is measured in one vectorised pass where printing walks it byte by byte.
pub fn json_text_size(
    v: &serde_json::Value,
    units: JsonUnits,
    number_len: &dyn Fn(&serde_json::Number) -> usize,
) -> usize {
    use serde_json::Value;
    let size = |x: &Value| json_text_size(x, units, number_len);
    let string = |s: &str| {
        2 + match units {
            // The literal's UTF-16 length, escapes included, in one pass.
            JsonUnits::Utf16 => text_stats(s).escaped as usize,
            JsonUnits::Bytes => s.len() + json_escape_extra(s),
        }
    };
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n),
        Value::String(s) => string(s),
        Value::Array(a) => 2 + a.len().saturating_sub(1) + a.iter().map(size).sum::<usize>(),
        Value::Object(o) => {
            2 + o.len().saturating_sub(1)
                + o.iter()
                    .map(|(k, x)| string(k) + 1 + size(x))
                    .sum::<usize>()
        }
    }
}

/// [`text_stats`] one byte at a time.
fn text_stats_bytes(bytes: &[u8]) -> StrStats {
    let (mut units, mut non_ascii, mut escaped, mut astral) = (0u64, 0u64, 0u64, 0u64);
    for &b in bytes {
        if b < 0x80 {
            units += 1;
            escaped += ESCAPED_ASCII[b as usize] as u64;
        } else if b >= 0xc0 {
            let n = 1 + u64::from(b >= 0xf0);
            units += n;
            non_ascii += n;
            astral += n - 1;
        }
    }
    StrStats {
        units,
        non_ascii,
        escaped: escaped + non_ascii,
        astral,
    }
}

#[cfg(test)]
#[test]
fn utf16_len_counts_code_units() {
    for s in [
        "",
        "abc",
        "é",
        "日本語",
        "🎉",
        "a🎉b\u{10FFFF}c",
        "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}",
    ] {
        assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s:?}");
    }
    // Past one 64-byte block, every prefix: the blocks and the tail agree with the decoder.
    let long = "x🎉é日\u{10FFFF}".repeat(40);
    for end in (0..=long.len()).filter(|&e| long.is_char_boundary(e)) {
        let s = &long[..end];
        assert_eq!(utf16_len(s), s.encode_utf16().count(), "{end}");
    }
}

/// `Number.prototype.toString()` (and `JSON.stringify` of a finite number): the shortest
/// round-trip digits, fixed notation from 1e-6 up to 1e21, exponent notation outside.
pub fn number_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let neg = x < 0.0;
    // Shortest round-trip digits from Rust's formatter: "d.ddde±x".
    let sci = format!("{:e}", x.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let k = digits.len() as i64;
    let n = exp.parse::<i64>().unwrap_or(0) + 1; // value = 0.d1d2… × 10^n
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(digits);
    } else {
        let e = n - 1;
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if e >= 0 { '+' } else { '-' });
        let _ = write!(out, "{}", e.abs());
    }
    out
}

#[cfg(test)]
#[test]
fn text_stats_in_blocks_equal_byte_by_byte() {
    let pieces = [
        "plain ascii text ",
        "\"quoted\" \\ ",
        "\n\r\t\u{8}\u{c}",
        "\u{1}\u{1f}\u{7f}",
        "é ü ",
        "日本語 ",
        "emoji 🎉 ",
        "\u{2028}",
    ];
    let mut text = String::new();
    for i in 0..2000usize {
        text.push_str(pieces[(i * 7 + i / 3) % pieces.len()]);
        for cut in [0, 1, 63, 64, 65, 127, 128, 200] {
            let end = (0..=cut.min(text.len()))
                .rev()
                .find(|&e| text.is_char_boundary(e));
            let t = &text[..end.unwrap_or(0)];
            assert_eq!(text_stats(t), text_stats_bytes(t.as_bytes()), "{t:?}");
        }
    }
    assert_eq!(text_stats(&text), text_stats_bytes(text.as_bytes()));
}
