//! JavaScript value semantics that the ports of JavaScript algorithms (Gemini CLI, Pi) share.

use std::fmt::Write;

use crate::model::{JsonShape, JsonTree};

pub use textstats::{StrStats, json_escape_extra, text_stats, utf16_len};

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
pub fn json_text_size<T: JsonTree + ?Sized>(
    v: &T,
    units: JsonUnits,
    number_len: &dyn Fn(&serde_json::Number) -> usize,
) -> usize {
    let string = |s: &str| {
        2 + match units {
            // The literal's UTF-16 length, escapes included, in one pass.
            JsonUnits::Utf16 => text_stats(s).escaped as usize,
            JsonUnits::Bytes => s.len() + json_escape_extra(s),
        }
    };
    match v.shape() {
        JsonShape::Null => 4,
        JsonShape::Bool(true) => 4,
        JsonShape::Bool(false) => 5,
        JsonShape::Number(n) => number_len(n),
        JsonShape::Str(s) => string(s),
        JsonShape::Array(n) | JsonShape::Object(n) => {
            // Brackets and commas, then each element (an entry: its key and colon first).
            let mut size = 2 + n.saturating_sub(1);
            v.each_child(&mut |k, x| {
                size += k.map_or(0, |k| string(k) + 1) + json_text_size(x, units, number_len);
            });
            size
        }
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
