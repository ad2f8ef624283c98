//! JSON values with JavaScript semantics, for Gemini's `Content`/`Part` objects.
//!
//! Gemini's decisions measure `JSON.stringify(x).length`: compact JSON, keys in insertion order,
//! non-ASCII unescaped, length in UTF-16 code units. `serde_json` here sorts keys and formats
//! numbers the Rust way, so this module has its own value type [`J`] (objects keep key order),
//! strings that can hold what JavaScript strings hold ([`JsStr`]: lone surrogates after a slice
//! cuts a pair, and sized filler for payloads whose bytes do not matter), and `JSON.stringify`
//! in compact and pretty (`null, 2`) forms, byte-for-byte.

use std::fmt::Write as _;
use std::sync::Arc;

pub use super::key::Key;
use super::truncate::Truncated;
use crate::model::{JsonShape, JsonTree, TextSize};
pub use crate::replay::js::StrStats;
use crate::replay::js::text_stats;

/// A JavaScript string.
#[derive(Debug, Clone, PartialEq)]
pub enum JsStr {
    /// Well-formed text.
    Text(String),
    /// UTF-16 that is not well-formed (a lone surrogate, left by slicing through a pair).
    Wide(Vec<u16>),
    /// `n` ASCII letters standing for content whose bytes do not matter: base64 image data, a
    /// synthetic summary of a given size. Serialises as `n` times `A`.
    Filler(usize),
    /// The output of `formatTruncatedToolOutput`, possibly truncated again several times, kept
    /// as its pieces so sizes are O(1) and nesting another truncation is O(1); materialised
    /// only when its characters are needed.
    Trunc(Arc<Truncated>),
    /// A function response's `output` that the replays but Gemini's read the size of alone,
    /// measured on its JSON literal and not decoded ([`record_line`]): they turn it into a
    /// measured output ([`Part::ToolResult`](crate::model::Part::ToolResult)'s `output_size`)
    /// and never read its characters, nor does the summary view, which drops outputs from its
    /// skeletons. What would read them reads `size.utf16` filler letters, as
    /// [`JsStr::Filler`] holds; the test build asserts that nothing does.
    Measured(TextSize),
}

impl Default for JsStr {
    fn default() -> Self {
        JsStr::Text(String::new())
    }
}

impl From<&str> for JsStr {
    fn from(s: &str) -> Self {
        JsStr::Text(s.to_string())
    }
}

impl From<String> for JsStr {
    fn from(s: String) -> Self {
        JsStr::Text(s)
    }
}

fn escaped_len_unit(u: u16) -> u64 {
    match u {
        0x22 | 0x5c | 0x08 | 0x0c | 0x0a | 0x0d | 0x09 => 2,
        0..=0x1f => 6,
        _ => 1,
    }
}

impl JsStr {
    pub fn from_units(units: Vec<u16>) -> JsStr {
        match String::from_utf16(&units) {
            Ok(s) => JsStr::Text(s),
            Err(_) => JsStr::Wide(units),
        }
    }

    /// `.length`.
    pub fn len16(&self) -> usize {
        match self {
            JsStr::Text(s) => crate::replay::js::utf16_len(s),
            JsStr::Wide(w) => w.len(),
            JsStr::Filler(n) => *n,
            JsStr::Trunc(t) => t.len(),
            JsStr::Measured(size) => size.utf16 as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        match self {
            JsStr::Text(s) => s.is_empty(),
            JsStr::Wide(w) => w.is_empty(),
            JsStr::Filler(n) => *n == 0,
            JsStr::Trunc(t) => t.len() == 0,
            JsStr::Measured(size) => size.bytes == 0,
        }
    }

    pub fn to_units(&self) -> Vec<u16> {
        match self {
            JsStr::Text(s) => s.encode_utf16().collect(),
            JsStr::Wide(w) => w.clone(),
            JsStr::Filler(n) => vec![b'A' as u16; *n],
            JsStr::Trunc(t) => t.materialize(),
            JsStr::Measured(_) => vec![b'A' as u16; self.unread()],
        }
    }

    /// Lossy text (lone surrogates become U+FFFD).
    pub fn to_string_lossy(&self) -> String {
        match self {
            JsStr::Text(s) => s.clone(),
            JsStr::Wide(w) => String::from_utf16_lossy(w),
            JsStr::Filler(n) => "A".repeat(*n),
            JsStr::Trunc(t) => String::from_utf16_lossy(&t.materialize()),
            JsStr::Measured(_) => "A".repeat(self.unread()),
        }
    }

    pub fn stats(&self) -> StrStats {
        match self {
            JsStr::Text(s) => text_stats(s),
            JsStr::Wide(w) => units_stats(w),
            JsStr::Filler(n) => StrStats {
                units: *n as u64,
                non_ascii: 0,
                escaped: *n as u64,
                astral: 0,
            },
            JsStr::Trunc(t) => t.stats(),
            JsStr::Measured(_) => JsStr::Filler(self.unread()).stats(),
        }
    }

    /// The length of a measured string whose characters something reads after all: filler
    /// letters in a release build, a failure in the test build.
    fn unread(&self) -> usize {
        debug_assert!(
            !matches!(self, JsStr::Measured(_)),
            "the characters of a measured string read"
        );
        self.len16()
    }

    /// `String.prototype.slice(start, end)`.
    pub fn slice(&self, start: i64, end: Option<i64>) -> JsStr {
        let len = self.len16() as i64;
        let clamp = |x: i64| {
            if x < 0 { (len + x).max(0) } else { x.min(len) }
        };
        let from = clamp(start);
        let to = end.map_or(len, clamp);
        if from >= to {
            return JsStr::Text(String::new());
        }
        match self {
            JsStr::Filler(_) => JsStr::Filler((to - from) as usize),
            JsStr::Measured(_) => JsStr::Filler(self.unread()).slice(start, end),
            // All ASCII (as many units as bytes): units are bytes.
            JsStr::Text(s) if s.len() as i64 == len => {
                JsStr::Text(s[from as usize..to as usize].to_string())
            }
            JsStr::Text(s) => match text_byte_range(s, from as usize, to as usize) {
                Some((a, b)) => JsStr::Text(s[a..b].to_string()),
                None => JsStr::from_units(self.to_units()[from as usize..to as usize].to_vec()),
            },
            _ => JsStr::from_units(self.to_units()[from as usize..to as usize].to_vec()),
        }
    }

    /// `String.prototype.includes(needle)` for an ASCII-or-text needle.
    pub fn contains(&self, needle: &str) -> bool {
        match self {
            JsStr::Text(s) => s.contains(needle),
            JsStr::Wide(w) => {
                let n: Vec<u16> = needle.encode_utf16().collect();
                n.is_empty() || w.windows(n.len()).any(|x| x == n.as_slice())
            }
            JsStr::Filler(k) => needle.bytes().all(|b| b == b'A') && needle.len() <= *k,
            JsStr::Trunc(t) => t.contains(needle),
            JsStr::Measured(_) => JsStr::Filler(self.unread()).contains(needle),
        }
    }
}

/// Byte offsets of UTF-16 positions `from..to` in `s`, unless one falls inside a pair.
fn text_byte_range(s: &str, from: usize, to: usize) -> Option<(usize, usize)> {
    let (mut a, mut b) = (None, None);
    let mut unit = 0;
    for (i, c) in s.char_indices() {
        if unit == from {
            a = Some(i);
        }
        if unit == to {
            b = Some(i);
            break;
        }
        let w = c.len_utf16();
        if w == 2 && (from == unit + 1 || to == unit + 1) {
            return None;
        }
        unit += w;
    }
    if unit == from && a.is_none() {
        a = Some(s.len());
    }
    if unit == to && b.is_none() {
        b = Some(s.len());
    }
    Some((a?, b?))
}

/// Stats of raw UTF-16 (lone surrogates are escaped as `\udXXX` by `JSON.stringify`).
pub fn units_stats(w: &[u16]) -> StrStats {
    // Nearly every text holds no surrogate: those are counted a vector at a time.
    if let Some(st) = textstats::units_stats_without_surrogates(w) {
        return st;
    }
    let mut st = StrStats::default();
    let mut i = 0;
    while i < w.len() {
        let u = w[i];
        if (0xd800..0xdc00).contains(&u) && i + 1 < w.len() && (0xdc00..0xe000).contains(&w[i + 1])
        {
            st.units += 2;
            st.non_ascii += 2;
            st.escaped += 2;
            st.astral += 1;
            i += 2;
            continue;
        }
        st.units += 1;
        if (0xd800..0xe000).contains(&u) {
            st.non_ascii += 1;
            st.escaped += 6;
        } else if u > 127 {
            st.non_ascii += 1;
            st.escaped += 1;
        } else {
            st.escaped += escaped_len_unit(u);
        }
        i += 1;
    }
    st
}

/// A JSON value as a JavaScript object graph: objects keep their key order.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum J {
    #[default]
    Null,
    Bool(bool),
    Num(f64),
    Str(JsStr),
    Arr(Vec<J>),
    Obj(Vec<(Key, J)>),
}

impl J {
    pub fn str(s: impl Into<JsStr>) -> J {
        J::Str(s.into())
    }

    pub fn obj(entries: Vec<(&str, J)>) -> J {
        J::Obj(entries.into_iter().map(|(k, v)| (Key::new(k), v)).collect())
    }

    /// `obj[key]` (`None` for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut J> {
        match self {
            J::Obj(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Moves `obj[key]` out, leaving `null` in its place (the key keeps its position).
    pub fn take(&mut self, key: &str) -> Option<J> {
        self.get_mut(key).map(std::mem::take)
    }

    /// `key in obj`.
    pub fn has(&self, key: &str) -> bool {
        matches!(self, J::Obj(entries) if entries.iter().any(|(k, _)| k == key))
    }

    /// `{...obj, key: value}`: replaces in place, or appends a new key.
    /// `{...self, [key]: value}`: a copy with `key` set as [`J::set`] sets it, the value it
    /// replaces not copied (a tool output, typically).
    pub fn with(&self, key: &str, value: J) -> J {
        let J::Obj(entries) = self else {
            return self.clone();
        };
        let at = entries.iter().position(|(k, _)| k == key);
        let mut value = Some(value);
        let mut out: Vec<(Key, J)> = entries
            .iter()
            .enumerate()
            .map(
                |(i, (k, v))| match (Some(i) == at).then(|| value.take()).flatten() {
                    Some(new) => (k.clone(), new),
                    None => (k.clone(), v.clone()),
                },
            )
            .collect();
        if let Some(new) = value {
            out.push((Key::new(key), new));
        }
        J::Obj(out)
    }

    pub fn set(&mut self, key: &str, value: J) {
        if let J::Obj(entries) = self {
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some(e) => e.1 = value,
                None => entries.push((Key::new(key), value)),
            }
        }
    }

    pub fn as_str(&self) -> Option<&JsStr> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<J>> {
        match self {
            J::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            J::Null => false,
            J::Bool(b) => *b,
            J::Num(x) => *x != 0.0 && !x.is_nan(),
            J::Str(s) => !s.is_empty(),
            J::Arr(_) | J::Obj(_) => true,
        }
    }

    /// `String(value)` / template-literal conversion.
    pub fn to_js_string(&self) -> JsStr {
        match self {
            J::Null => "null".into(),
            J::Bool(b) => b.to_string().into(),
            J::Num(x) => js_number(*x).into(),
            J::Str(s) => s.clone(),
            J::Arr(items) => {
                let mut out: Vec<u16> = Vec::new();
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',' as u16);
                    }
                    if !matches!(x, J::Null) {
                        out.extend(x.to_js_string().to_units());
                    }
                }
                JsStr::from_units(out)
            }
            J::Obj(_) => "[object Object]".into(),
        }
    }

    /// From a `serde_json::Value` or a tool call's arguments (whose objects are sorted),
    /// putting integer-like keys first in numeric order as JavaScript objects do.
    pub fn from_value<T: JsonTree>(v: &T) -> J {
        match v.shape() {
            JsonShape::Null => J::Null,
            JsonShape::Bool(b) => J::Bool(b),
            JsonShape::Number(n) => J::Num(n.as_f64().unwrap_or(0.0)),
            JsonShape::Str(s) => J::Str(JsStr::Text(s.to_string())),
            JsonShape::Array(n) => {
                let mut a = Vec::with_capacity(n);
                v.each_child(&mut |_, x| a.push(J::from_value(x)));
                J::Arr(a)
            }
            JsonShape::Object(n) => {
                let mut o = Vec::with_capacity(n);
                v.each_child(&mut |k, x| {
                    o.push((Key::new(k.unwrap_or_default()), J::from_value(x)))
                });
                J::Obj(js_key_order(o))
            }
        }
    }
}

/// JavaScript's own-property order: array-index keys ascending, then the rest in insertion order.
pub fn js_key_order(entries: Vec<(Key, J)>) -> Vec<(Key, J)> {
    let index = |k: &str| -> Option<u32> {
        if k == "0"
            || (!k.is_empty() && !k.starts_with('0') && k.bytes().all(|b| b.is_ascii_digit()))
        {
            k.parse::<u32>().ok().filter(|&n| n != u32::MAX)
        } else {
            None
        }
    };
    // Nearly every object has no such key: it keeps its order without being rebuilt.
    if !entries.iter().any(|(k, _)| index(k).is_some()) {
        return entries;
    }
    let (mut ints, rest): (Vec<_>, Vec<_>) =
        entries.into_iter().partition(|(k, _)| index(k).is_some());
    ints.sort_by_key(|(k, _)| index(k));
    ints.extend(rest);
    ints
}

/// `Number.prototype.toString()` (and `JSON.stringify` of a finite number).
pub fn js_number(x: f64) -> String {
    crate::replay::js::number_to_string(x)
}

fn json_number(x: f64) -> String {
    if x.is_finite() {
        js_number(x)
    } else {
        "null".into()
    }
}

/// UTF-16 length of a JSON string literal (with quotes).
pub fn json_str_len(s: &JsStr) -> u64 {
    s.stats().escaped + 2
}

/// `JSON.stringify(v).length`.
pub fn json_len(v: &J) -> u64 {
    json_len_known(v, &[])
}

/// [`json_len`], with the lengths of some of the nodes in `v` already known (nodes by
/// identity): a caller that has measured a long string once does not measure it again.
pub fn json_len_known(v: &J, known: &[(&J, u64)]) -> u64 {
    if let Some(&(_, n)) = known.iter().find(|(k, _)| std::ptr::eq(*k, v)) {
        return n;
    }
    let len = |x: &J| json_len_known(x, known);
    match v {
        J::Null => 4,
        J::Bool(true) => 4,
        J::Bool(false) => 5,
        J::Num(x) => json_number(*x).len() as u64,
        J::Str(s) => json_str_len(s),
        J::Arr(items) => {
            2 + items.iter().map(len).sum::<u64>() + items.len().saturating_sub(1) as u64
        }
        J::Obj(entries) => {
            2 + entries
                .iter()
                .map(|(k, v)| text_stats(k).escaped + 2 + 1 + len(v))
                .sum::<u64>()
                + entries.len().saturating_sub(1) as u64
        }
    }
}

/// A JSON string literal's escaped text, without its quotes: one unit at a time.
fn write_escaped_unit(out: &mut String, u: u16) {
    match u {
        0x22 => out.push_str("\\\""),
        0x5c => out.push_str("\\\\"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        0x0a => out.push_str("\\n"),
        0x0d => out.push_str("\\r"),
        0x09 => out.push_str("\\t"),
        0..=0x1f => {
            let _ = write!(out, "\\u{u:04x}");
        }
        _ => out.push(char::from_u32(u as u32).unwrap_or('\u{fffd}')),
    }
}

/// Well-formed text escaped, without quotes: runs that need no escape are copied whole.
fn write_escaped_text(out: &mut String, t: &str) {
    let mut run = 0;
    for (i, b) in t.bytes().enumerate() {
        if b < 0x20 || b == b'"' || b == b'\\' {
            out.push_str(&t[run..i]);
            write_escaped_unit(out, u16::from(b));
            run = i + 1;
        }
    }
    out.push_str(&t[run..]);
}

fn write_escaped(out: &mut String, s: &JsStr) {
    let unit = write_escaped_unit;
    out.push('"');
    match s {
        JsStr::Text(t) => write_escaped_text(out, t),
        JsStr::Filler(n) => out.extend(std::iter::repeat_n('A', *n)),
        JsStr::Measured(_) => out.extend(std::iter::repeat_n('A', s.unread())),
        JsStr::Wide(_) | JsStr::Trunc(_) => {
            let w = s.to_units();
            let mut i = 0;
            while i < w.len() {
                let u = w[i];
                if (0xd800..0xdc00).contains(&u)
                    && i + 1 < w.len()
                    && (0xdc00..0xe000).contains(&w[i + 1])
                {
                    let c = 0x10000 + (((u as u32) - 0xd800) << 10) + (w[i + 1] as u32 - 0xdc00);
                    out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                    i += 2;
                    continue;
                }
                if (0xd800..0xe000).contains(&u) {
                    let _ = write!(out, "\\u{u:04x}");
                } else {
                    unit(out, u);
                }
                i += 1;
            }
        }
    }
    out.push('"');
}

/// `JSON.stringify(v)`.
pub fn to_json(v: &J) -> String {
    let mut out = String::new();
    write_json(&mut out, v, None, 0, None);
    out
}

/// `JSON.stringify(v)` appended to `out`.
pub fn write_compact(out: &mut String, v: &J) {
    write_json(out, v, None, 0, None);
}

/// `JSON.stringify(v, null, 2)`.
pub fn to_json_pretty(v: &J) -> String {
    let mut out = String::new();
    write_json(&mut out, v, Some(2), 0, None);
    out
}

/// The first and last `n` UTF-16 units of [`to_json_pretty`]`(v)`, which is all of it when it
/// is at most `2n` units long: `(ends, len)`, where `ends` is the pretty JSON with the middle of
/// each string longer than `2n` escaped units left out and `len` the length of the whole.
/// Every string keeps at least `n` units at each end, so the first and last `n` units of `ends`
/// are those of the whole (a masked preview needs only them, and a tool output's middle is
/// most of its JSON).
pub fn pretty_json_ends(v: &J, n: usize) -> (JsStr, u64) {
    let mut out = String::new();
    let mut ends = Ends {
        keep: n,
        left_out: 0,
    };
    write_json(&mut out, v, Some(2), 0, Some(&mut ends));
    let len = crate::replay::js::utf16_len(&out) as u64 + ends.left_out;
    (JsStr::Text(out), len)
}

/// How [`pretty_json_ends`] writes long strings: their ends only.
struct Ends {
    keep: usize,
    /// Escaped units left out so far.
    left_out: u64,
}

impl Ends {
    /// `t` as a string literal with at least `keep` escaped units at each end, the middle left
    /// out when that leaves anything out.
    fn write(&mut self, out: &mut String, t: &str) {
        let escaped = |c: char| text_stats(c.encode_utf8(&mut [0; 4])).escaped;
        let total = text_stats(t).escaped;
        let keep = self.keep as u64;
        let (mut head, mut end) = (0, 0);
        for (i, c) in t.char_indices() {
            if head >= keep {
                break;
            }
            head += escaped(c);
            end = i + c.len_utf8();
        }
        let (mut tail, mut start) = (0, t.len());
        for (i, c) in t.char_indices().rev() {
            if tail >= keep || i < end {
                break;
            }
            tail += escaped(c);
            start = i;
        }
        out.push('"');
        if head + tail < total && end <= start {
            write_escaped_text(out, &t[..end]);
            write_escaped_text(out, &t[start..]);
            self.left_out += total - head - tail;
        } else {
            write_escaped_text(out, t);
        }
        out.push('"');
    }
}

fn newline(out: &mut String, indent: Option<usize>, level: usize) {
    if let Some(n) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', n * level));
    }
}

fn write_json(
    out: &mut String,
    v: &J,
    indent: Option<usize>,
    level: usize,
    mut ends: Option<&mut Ends>,
) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(x) => out.push_str(&json_number(*x)),
        J::Str(JsStr::Text(t)) if ends.is_some() => {
            if let Some(e) = ends {
                e.write(out, t);
            }
        }
        J::Str(s) => write_escaped(out, s),
        J::Arr(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, level + 1);
                write_json(out, x, indent, level + 1, ends.as_deref_mut());
            }
            newline(out, indent, level);
            out.push(']');
        }
        J::Obj(entries) => {
            if entries.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, level + 1);
                out.push('"');
                write_escaped_text(out, k);
                out.push('"');
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_json(out, x, indent, level + 1, ends.as_deref_mut());
            }
            newline(out, indent, level);
            out.push('}');
        }
    }
}

impl<'de> serde::Deserialize<'de> for J {
    /// Keeps object keys in document order (serde_json's streaming deserializer visits them so).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        d.deserialize_any(Tree(Keys::All, false))
    }
}

/// Which of an object's keys a tree keeps, and how the values under them are read.
#[derive(Clone, Copy)]
enum Keys {
    /// Every key, every value whole.
    All,
    /// A line of a Gemini session log: its `toolCalls` read as [`Keys::Calls`].
    Record,
    /// A record's `toolCalls`: each call read as [`Keys::Call`].
    Calls,
    /// One tool call: without the keys only Gemini CLI's interface reads ([`UI_ONLY`]).
    Call,
    /// A call's `result`, to measure: an array of parts, or one part.
    Result,
    /// A part of a result: its `functionResponse` read as [`Keys::Response`].
    ResultPart,
    /// A `functionResponse`: its `response` read as [`Keys::ResponseBody`].
    Response,
    /// A function response's `response`: a string `output` measured ([`Tree::measured`]).
    ResponseBody,
}

/// A tool call's keys that only Gemini CLI's interface reads: resuming a session never does
/// (`convertSessionToClientHistory` reads a call's `id`, `name`, `args` and `result`), and the
/// summary view drops them from its skeleton of the calls
/// ([`SKEL_TOOL_BODIES`](crate::parse::json::SKEL_TOOL_BODIES)). A rendered diff or file
/// listing is often the largest thing a call holds.
const UI_ONLY: [&str; 3] = ["resultDisplay", "displayName", "description"];

/// One line of a Gemini session log as the record's tree, for the loader: the whole line but
/// the interface's renderings of the tool calls (`UI_ONLY`), which nothing that reads the
/// tree looks at. With `measure`, the string `output` of each function response in a tool
/// call's `result` is measured on its JSON literal and not decoded ([`JsStr::Measured`]): for
/// the replays but Gemini's, which read its size alone.
pub fn record_line(text: &str, measure: bool) -> serde_json::Result<J> {
    use serde::de::DeserializeSeed;
    let mut d = serde_json::Deserializer::from_str(text);
    let j = Tree(Keys::Record, measure).deserialize(&mut d)?;
    d.end()?;
    Ok(j)
}

/// [`J`]'s deserialiser, keeping the keys `.0` says; with `.1`, measuring the outputs of a
/// tool call's function responses ([`Tree::measured`]).
#[derive(Clone, Copy)]
struct Tree(Keys, bool);

impl Tree {
    /// A function response's `output`, measured on its JSON literal when it is a string, else
    /// read as a tree (also a literal the measure refuses: a lone surrogate escape). The summary
    /// view drops a result's outputs from its skeleton
    /// ([`SKEL_TOOL_BODIES`](crate::parse::json::SKEL_TOOL_BODIES)): it never reads them.
    fn measured<'de, A: serde::de::MapAccess<'de>>(a: &mut A) -> Result<J, A::Error> {
        use serde::de::{DeserializeSeed, Error};
        let raw = a.next_value::<&'de serde_json::value::RawValue>()?.get();
        if let Some(size) = crate::parse::json::literal_size(raw) {
            return Ok(J::Str(JsStr::Measured(size)));
        }
        let mut d = serde_json::Deserializer::from_str(raw);
        Tree(Keys::All, false)
            .deserialize(&mut d)
            .map_err(A::Error::custom)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Tree {
    type Value = J;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Tree {
    type Value = J;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_none<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<J, E> {
        Ok(J::Bool(b))
    }
    fn visit_i64<E>(self, x: i64) -> Result<J, E> {
        if x.unsigned_abs() > super::tree::EXACT_INT {
            super::tree::mark_lossy();
        }
        Ok(J::Num(x as f64))
    }
    fn visit_u64<E>(self, x: u64) -> Result<J, E> {
        if x > super::tree::EXACT_INT {
            super::tree::mark_lossy();
        }
        Ok(J::Num(x as f64))
    }
    fn visit_f64<E>(self, x: f64) -> Result<J, E> {
        super::tree::mark_lossy();
        Ok(J::Num(x))
    }
    fn visit_str<E>(self, s: &str) -> Result<J, E> {
        Ok(J::Str(JsStr::Text(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<J, E> {
        Ok(J::Str(JsStr::Text(s)))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let item = match self.0 {
            Keys::Calls => Tree(Keys::Call, self.1),
            Keys::Result => Tree(Keys::ResultPart, self.1),
            _ => Tree(Keys::All, false),
        };
        let mut v = Vec::new();
        while let Some(x) = a.next_element_seed(item)? {
            v.push(x);
        }
        Ok(J::Arr(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        // `JSON.parse`: a repeated key keeps its first position and its last value;
        // integer-like keys come first.
        // Records' objects are small: a linear search for a repeated key beats an
        // index, until an object is large enough for the index to pay.
        const INDEX_FROM: usize = 32;
        // A record and a tool call hold about eight keys: room for them at once.
        let mut v: Vec<(Key, J)> = match self.0 {
            Keys::Record | Keys::Call => Vec::with_capacity(8),
            _ => Vec::new(),
        };
        let mut index: std::collections::HashMap<Key, usize> = Default::default();
        // Whether a key may be an array index, which `js_key_order` moves first: hardly any is.
        let mut digit_first = false;
        while let Some(k) = a.next_key_seed(KeySeed)? {
            digit_first |= k.as_bytes().first().is_some_and(u8::is_ascii_digit);
            let value = match self.0 {
                Keys::Record if k == "toolCalls" => Tree(Keys::Calls, self.1),
                Keys::Call if UI_ONLY.contains(&&*k) => {
                    a.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
                // Only while the summary view reads the tree too: it drops a result's outputs
                // from its skeleton (the full view keeps them).
                Keys::Call if self.1 && k == "result" && !crate::parse::json::full() => {
                    Tree(Keys::Result, true)
                }
                Keys::Result | Keys::ResultPart if k == "functionResponse" => {
                    Tree(Keys::Response, self.1)
                }
                Keys::Response if k == "response" => Tree(Keys::ResponseBody, self.1),
                _ => Tree(Keys::All, false),
            };
            let x = if matches!(self.0, Keys::ResponseBody) && k == "output" {
                Tree::measured(&mut a)?
            } else {
                a.next_value_seed(value)?
            };
            let seen = if v.len() < INDEX_FROM {
                v.iter().position(|(vk, _)| *vk == k)
            } else {
                if index.is_empty() {
                    index.extend(v.iter().enumerate().map(|(i, (vk, _))| (vk.clone(), i)));
                }
                index.get(&k).copied()
            };
            match seen {
                Some(i) => {
                    super::tree::mark_lossy();
                    v[i].1 = x;
                }
                None => {
                    if !index.is_empty() {
                        index.insert(k.clone(), v.len());
                    }
                    v.push((k, x));
                }
            }
        }
        Ok(J::Obj(if digit_first { js_key_order(v) } else { v }))
    }
}

/// An object's key as a [`Key`]: one of the known keys allocates nothing.
struct KeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E>(self, s: &str) -> Result<Key, E> {
        Ok(Key::new(s))
    }
    fn visit_string<E>(self, s: String) -> Result<Key, E> {
        Ok(Key::from(s))
    }
}

/// JavaScript `String.prototype.trim` whitespace (WhiteSpace + LineTerminator).
pub fn js_is_space(u: u16) -> bool {
    matches!(
        u,
        0x09 | 0x0a | 0x0b | 0x0c | 0x0d | 0x20 | 0xa0 | 0x1680 | 0x2000
            ..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000 | 0xfeff
    )
}

/// `String.prototype.trim` on UTF-16.
pub fn js_trim(units: &[u16]) -> &[u16] {
    let start = units
        .iter()
        .position(|&u| !js_is_space(u))
        .unwrap_or(units.len());
    let end = units
        .iter()
        .rposition(|&u| !js_is_space(u))
        .map_or(start, |e| e + 1);
    &units[start..end.max(start)]
}

/// `Number.prototype.toLocaleString()` of an integer in the `en-US` locale.
pub fn js_locale_int(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
