//! JavaScript value semantics that the ports of JavaScript algorithms (Gemini CLI, Pi) share.

use std::fmt::Write;

/// `s.length`: UTF-16 code units. Every byte that starts a character counts one, and a
/// four-byte character (a surrogate pair) one more; counted without decoding, so the compiler
/// vectorises it (the estimators measure every message, and tool outputs are long).
pub fn utf16_len(s: &str) -> usize {
    let units = |b: u8| u8::from((b & 0xc0) != 0x80) + u8::from(b >= 0xf0);
    // 64 bytes count at most 128 units: one byte-wide counter per block.
    let mut blocks = s.as_bytes().chunks_exact(64);
    let mut n = 0;
    for block in &mut blocks {
        n += usize::from(block.iter().fold(0u8, |k, &b| k + units(b)));
    }
    n + blocks
        .remainder()
        .iter()
        .map(|&b| usize::from(units(b)))
        .sum::<usize>()
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
