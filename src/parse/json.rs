//! Typed, borrowed, lenient JSON building blocks for the parsers' record types.
//!
//! Every parser deserializes a line straight into its own `#[derive(Deserialize)]` record type
//! made of these pieces, instead of building a `serde_json::Value` tree first: strings borrow
//! from the line when they have no escapes, keys nobody reads are skipped by serde_json without
//! being materialised, and a value of an unexpected JSON type reads as "absent" rather than
//! failing the record (the files are written by many versions of three agents; a field that
//! changed type must not lose the rest of the line).
//!
//! # Detail
//! The same parser serves three views of a file ([`Detail`]): `Full` builds the whole session
//! (`show`, `export`, `replay`); `Measured` builds it with Claude's tool outputs measured
//! rather than kept (every replay but Gemini's); `Summary` builds it without the bodies nobody
//! summarising reads — tool inputs and outputs, thinking, images — which [`Kept`] and
//! [`Body`] then skip with the speed of `IgnoredAny`. serde derive cannot thread a runtime
//! argument into nested `Deserialize` impls, so the level is a thread-local set by
//! [`with_detail`] around one file's parse (a file is always parsed on one thread).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use chrono::{DateTime, Utc};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::model::TextSize;

/// How much of a file a parse materialises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Everything: the session as `show`, `export` and `replay` need it.
    #[default]
    Full,
    /// No tool inputs, tool outputs, thinking or media: what `list`, `projects`, `usage` and
    /// `compactions` need. Counts, usage, titles and compactions equal the `Full` ones.
    Summary,
    /// `Full`, but a Claude tool result's string output and every Codex tool output are
    /// measured rather than kept ([`TextSize`]): what every replay but Gemini's needs, which
    /// estimate an output by its length alone. Tool outputs are most of a transcript's bytes.
    Measured,
    /// `Full`, but of each Claude or Codex tool output only what a line `.0` columns wide
    /// shows of it is kept, with the size of the whole ([`kept_output`]): `show`'s timeline
    /// prints nothing more of an output, and outputs are most of a large session's memory.
    Preview(usize),
}

thread_local! {
    static DETAIL: Cell<Detail> = const { Cell::new(Detail::Full) };
}

/// The detail of the parse running on this thread.
pub fn detail() -> Detail {
    DETAIL.with(Cell::get)
}

/// Run `f` (one file's parse) at `level`, restoring the previous level afterwards, also on
/// unwinding.
pub fn with_detail<R>(level: Detail, f: impl FnOnce() -> R) -> R {
    scoped(&DETAIL, level, f)
}

/// Run `f` with the thread-local `cell` set to `value`, restoring the previous value
/// afterwards, also on unwinding.
fn scoped<T: Copy + 'static, R>(
    cell: &'static std::thread::LocalKey<Cell<T>>,
    value: T,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore<T: Copy + 'static>(&'static std::thread::LocalKey<Cell<T>>, T);
    impl<T: Copy + 'static> Drop for Restore<T> {
        fn drop(&mut self) {
            self.0.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(cell, cell.with(|c| c.replace(value)));
    f()
}

/// A tool output as the parse running on this thread keeps it, with the size of the whole
/// when it does not keep it whole: in [`Detail::Measured`] only measured, in
/// [`Detail::Preview`] cut to what a line of its width shows of it, else whole (`None`). Cut
/// once the parse has read it (its failure found, say), so nothing else the parse makes of it
/// changes.
pub fn kept_output(output: String) -> (String, Option<TextSize>) {
    match detail() {
        Detail::Measured => (String::new(), Some(TextSize::of(&output))),
        Detail::Preview(columns) => {
            let beginning = crate::render::text::line_beginning(&output, columns);
            if beginning.len() < output.len() {
                return (beginning.to_string(), Some(TextSize::of(&output)));
            }
            (output, None)
        }
        Detail::Full | Detail::Summary => (output, None),
    }
}

thread_local! {
    static UNMEASURABLE: Cell<bool> = const { Cell::new(false) };
}

/// Note, in [`Detail::Measured`], a block the view cannot give as the full view would (a
/// string it measured turned out to be kept after all): [`measured`] reports it.
pub fn unmeasurable() {
    UNMEASURABLE.with(|c| c.set(true));
}

/// Run `f` (one file's parse) at [`Detail::Measured`]; also returns whether it met a block it
/// could not measure, in which case its result is not to be used.
pub fn measured<R>(f: impl FnOnce() -> R) -> (R, bool) {
    UNMEASURABLE.with(|c| c.set(false));
    let r = with_detail(Detail::Measured, f);
    (r, UNMEASURABLE.with(|c| c.replace(false)))
}

/// Whether bodies are read: every view but the summary reads them.
fn full() -> bool {
    detail() != Detail::Summary
}

thread_local! {
    static FROM_TREE: Cell<bool> = const { Cell::new(false) };
}

/// Run `f`, which deserialises records from an in-memory tree instead of JSON text: a
/// [`Skel`] then reads its stood-in bodies as values, since a tree has no raw text to hand
/// out (the stand-ins are the same).
pub fn from_tree<R>(f: impl FnOnce() -> R) -> R {
    scoped(&FROM_TREE, true, f)
}

/// The JSON kind a visitor saw, for warnings ("a JSON array is not …").
fn kind_of_unexpected(u: &de::Unexpected) -> &'static str {
    match u {
        de::Unexpected::Bool(_) => "boolean",
        de::Unexpected::Unsigned(_) | de::Unexpected::Signed(_) | de::Unexpected::Float(_) => {
            "number"
        }
        de::Unexpected::Str(_) | de::Unexpected::Char(_) => "string",
        de::Unexpected::Seq => "array",
        de::Unexpected::Map => "object",
        de::Unexpected::Unit | de::Unexpected::Option => "null",
        _ => "value",
    }
}

/// Implements the visitor methods that consume a value of any other JSON type and return
/// `$other` (an expression that may use `kind: &'static str`).
macro_rules! other_kinds {
    ($kind:ident => $other:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            let $kind = kind_of_unexpected(&de::Unexpected::Bool(v));
            Ok($other)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            let $kind = "number";
            Ok($other)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            let $kind = "number";
            Ok($other)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            let $kind = "number";
            Ok($other)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            let $kind = "null";
            Ok($other)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            let $kind = "null";
            Ok($other)
        }
    };
}

macro_rules! other_strings {
    ($kind:ident => $other:expr) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            let $kind = "string";
            Ok($other)
        }
    };
}

macro_rules! other_containers {
    ($kind:ident => $other:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            let $kind = "array";
            Ok($other)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            let $kind = "object";
            Ok($other)
        }
    };
}

// ---------------------------------------------------------------------------------- Str

/// A string field: borrowed from the line when it has no escapes. Any other JSON type reads
/// as absent (what `Value::as_str` did).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);

impl<'a> Str<'a> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The string unless it is empty or only whitespace.
    pub fn nonempty(&self) -> Option<&str> {
        self.get().filter(|s| !s.trim().is_empty())
    }

    /// The string unless it is empty.
    pub fn filled(&self) -> Option<&str> {
        self.get().filter(|s| !s.is_empty())
    }

    pub fn owned(&self) -> Option<String> {
        self.get().map(str::to_string)
    }

    pub fn is(&self, s: &str) -> bool {
        self.get() == Some(s)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Some(Cow::Owned(v))))
            }
            other_kinds!(_k => Str(None));
            other_containers!(_k => Str(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

// ---------------------------------------------------------------------------------- Flag

/// A boolean field: `true` only for JSON `true` (what `Value::as_bool().unwrap_or(false)` did).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(v))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_none<E: de::Error>(self) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            other_strings!(_k => Flag(false));
            other_containers!(_k => Flag(false));
        }
        d.deserialize_any(V)
    }
}

/// A boolean that remembers whether it was a boolean at all (`Value::as_bool`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OptBool(pub Option<bool>);

impl<'de> Deserialize<'de> for OptBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OptBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<OptBool, E> {
                Ok(OptBool(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<OptBool, E> {
                Ok(OptBool(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<OptBool, E> {
                Ok(OptBool(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<OptBool, E> {
                Ok(OptBool(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<OptBool, E> {
                Ok(OptBool(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<OptBool, E> {
                Ok(OptBool(None))
            }
            other_strings!(_k => OptBool(None));
            other_containers!(_k => OptBool(None));
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------- Num

/// A token count or similar: a JSON number (negative → 0, fractions floored) or a numeric
/// string. `None` when absent or not a number. What no count is (a negative or fractional
/// number, one past [`crate::tokens::MAX_TOKENS`], a string, another type) is read as before
/// and noted ([`Num::odd`]), for the parser to report where it stands.
///
/// Two words, as a bare `Option<u64>` is: a usage record holds several, on every response
/// line, and the odd value is kept in the word the count would take.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Num {
    /// The count read, or what [`NumState`] says for a value that is none.
    bits: u64,
    state: NumState,
}

/// What a [`Num`] read, and what its `bits` hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum NumState {
    /// Absent or `null`: no count.
    #[default]
    Absent,
    /// A count: `bits`.
    Count,
    /// An integer past the limit: `bits`, read as itself.
    Huge,
    /// A negative integer: `bits` as an `i64`, read as 0.
    Negative,
    /// A negative, fractional or huge non-integer: `bits` of the `f64`, read floored and
    /// saturated.
    Float,
    /// A string that reads as a count: `bits`.
    Text,
    /// A string that does not: no count.
    TextNotCount,
    /// A boolean, an array or an object: no count.
    Boolean,
    Array,
    Object,
}

/// A count's value that is no token count: what it was.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Odd {
    Number(f64),
    /// A string (numeric or not).
    Text,
    /// Another JSON type: `boolean`, `array`, `object`.
    Kind(&'static str),
}

impl Num {
    /// A count.
    pub fn count(n: u64) -> Num {
        Num {
            bits: n,
            state: NumState::Count,
        }
    }

    /// The count as read: `None` when absent or not a number.
    pub fn value(self) -> Option<u64> {
        match self.state {
            NumState::Count | NumState::Huge | NumState::Text => Some(self.bits),
            NumState::Negative => Some(0),
            NumState::Float => {
                let v = f64::from_bits(self.bits);
                // `as` saturates: a count beyond u64 reads as u64::MAX, NaN as 0.
                Some(if v > 0.0 { v as u64 } else { 0 })
            }
            NumState::Absent
            | NumState::TextNotCount
            | NumState::Boolean
            | NumState::Array
            | NumState::Object => None,
        }
    }

    /// The count, 0 when missing (what `u64_of` did).
    pub fn get(self) -> u64 {
        self.value().unwrap_or(0)
    }

    /// The field's value, when it is no count (`null` and absence are none recorded).
    pub fn odd(self) -> Option<Odd> {
        Some(match self.state {
            NumState::Absent | NumState::Count => return None,
            NumState::Huge => Odd::Number(self.bits as f64),
            NumState::Negative => Odd::Number(self.bits as i64 as f64),
            NumState::Float => Odd::Number(f64::from_bits(self.bits)),
            NumState::Text | NumState::TextNotCount => Odd::Text,
            NumState::Boolean => Odd::Kind("boolean"),
            NumState::Array => Odd::Kind("array"),
            NumState::Object => Odd::Kind("object"),
        })
    }

    fn of(state: NumState, bits: u64) -> Num {
        Num { bits, state }
    }

    /// A count as read, from a number that may be no count.
    fn of_f64(v: f64) -> Num {
        let odd = v < 0.0 || v.fract() != 0.0 || v > crate::tokens::MAX_TOKENS as f64;
        if odd || v.is_nan() {
            Num::of(NumState::Float, v.to_bits())
        } else {
            Num::count(v as u64)
        }
    }
}

impl fmt::Display for Odd {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Odd::Number(v) if v.abs() >= 1e15 => write!(f, "{v:e}"),
            Odd::Number(v) => write!(f, "{v}"),
            Odd::Text => f.write_str("a string"),
            Odd::Kind(k) if k.starts_with(['a', 'o']) => write!(f, "an {k}"),
            Odd::Kind(k) => write!(f, "a {k}"),
        }
    }
}

/// The counts among `fields` (a name, and the count when the field is there) that are no
/// token count: field, value, count read. Every agent's usage record reports them alike.
pub fn odd_counts<const N: usize>(
    fields: [(&'static str, Option<Num>); N],
) -> Vec<(&'static str, Odd, u64)> {
    fields
        .into_iter()
        .filter_map(|(f, n)| {
            let n = n?;
            Some((f, n.odd()?, n.get()))
        })
        .collect()
}

/// The warning for a count field `what` (`` `usage.input_tokens` ``) whose value is no
/// token count, read as `read`.
pub fn odd_count(what: &str, odd: Odd, read: u64) -> String {
    format!("{what} holds {odd}, not a token count: read as {read}")
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(if v > crate::tokens::MAX_TOKENS {
                    Num::of(NumState::Huge, v)
                } else {
                    Num::count(v)
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Ok(Num::of(NumState::Negative, v as u64)),
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num::of_f64(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                Ok(match v.trim().parse() {
                    Ok(n) => Num::of(NumState::Text, n),
                    Err(_) => Num::of(NumState::TextNotCount, 0),
                })
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Num, E> {
                Ok(Num::of(NumState::Boolean, 0))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num::default())
            }
            other_containers!(k => Num::of(
                if k == "array" { NumState::Array } else { NumState::Object },
                0,
            ));
        }
        d.deserialize_any(V)
    }
}

/// A JSON integer exactly as `Value::as_u64` reads it: non-negative integers only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uint(pub Option<u64>);

impl<'de> Deserialize<'de> for Uint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Uint;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Uint, E> {
                Ok(Uint(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Uint, E> {
                Ok(Uint(u64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Uint, E> {
                Ok(Uint(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Uint, E> {
                Ok(Uint(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Uint, E> {
                Ok(Uint(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Uint, E> {
                Ok(Uint(None))
            }
            other_strings!(_k => Uint(None));
            other_containers!(_k => Uint(None));
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------- Time

/// A timestamp, read as [`super::read_time`] reads one: the time (`null` and absent are none),
/// and what the field held instead when it names no time, for the parser to warn about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Time(pub Option<DateTime<Utc>>, pub Option<super::BadTime>);

impl Time {
    fn of(r: Result<Option<DateTime<Utc>>, super::BadTime>) -> Time {
        match r {
            Ok(t) => Time(t, None),
            Err(bad) => Time(None, Some(bad)),
        }
    }

    fn number(t: Option<DateTime<Utc>>, n: impl fmt::Display) -> Time {
        Time::of(t.map(Some).ok_or_else(|| super::BadTime::number(n)))
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Time;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Time, E> {
                Ok(Time::of(
                    super::parse_time_str(v)
                        .map(Some)
                        .ok_or_else(|| super::BadTime::text(v)),
                ))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Time, E> {
                Ok(Time::number(super::time_from_number(v as f64), v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Time, E> {
                Ok(Time::number(super::time_from_number(v as f64), v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Time, E> {
                // As serde_json writes it (`1e+20`), not as a run of 21 digits.
                let shown =
                    serde_json::Number::from_f64(v).map_or(v.to_string(), |n| n.to_string());
                Ok(Time::number(super::time_from_number(v), shown))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Time, E> {
                Ok(Time(None, Some(super::BadTime::kind("boolean"))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Time, E> {
                Ok(Time::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Time, E> {
                Ok(Time::default())
            }
            other_containers!(k => Time(None, Some(super::BadTime::kind(k))));
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------- Obj

/// A field that should hold an object of shape `T`. Anything else is kept as the name of its
/// JSON kind, for warnings. Wrap it in `Option` to tell absent from present.
#[derive(Debug, Clone, PartialEq)]
pub enum Obj<T> {
    Is(T),
    Not(&'static str),
}

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj::Not("missing")
    }
}

impl<T> Obj<T> {
    pub fn get(&self) -> Option<&T> {
        match self {
            Obj::Is(t) => Some(t),
            Obj::Not(_) => None,
        }
    }

    pub fn into_inner(self) -> Option<T> {
        match self {
            Obj::Is(t) => Some(t),
            Obj::Not(_) => None,
        }
    }

    pub fn get_mut(&mut self) -> Option<&mut T> {
        match self {
            Obj::Is(t) => Some(t),
            Obj::Not(_) => None,
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj::Is)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Obj<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Obj::Not("array"))
            }
            other_kinds!(k => Obj::Not(k));
            other_strings!(k => Obj::Not(k));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A field that should hold an array of `T`; anything else reads as empty. Elements that are
/// not `T` are kept as `Err(kind)` so callers can report or skip them.
#[derive(Debug, Clone, PartialEq)]
pub struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(x) = seq.next_element::<T>()? {
                    out.push(x);
                }
                Ok(List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<List<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(List(Vec::new()))
            }
            other_kinds!(_k => List(Vec::new()));
            other_strings!(_k => List(Vec::new()));
        }
        d.deserialize_any(V(PhantomData))
    }
}

// ---------------------------------------------------------------------------------- Kept

/// A value kept whole (`serde_json::Value`) in [`Detail::Full`] and skipped in
/// [`Detail::Summary`] (reads as `Value::Null`): tool inputs, raw unknown blocks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept(pub Value);

impl<'de> Deserialize<'de> for Kept {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if full() {
            Value::deserialize(d).map(Kept)
        } else {
            IgnoredAny::deserialize(d).map(|_| Kept(Value::Null))
        }
    }
}

// ---------------------------------------------------------------------------------- Skel

/// Strings longer than this are bodies (outputs, arguments, thinking); shorter ones are ids,
/// names, statuses and MIME types, which the parsers read.
const SKELETON_STRING_MAX: usize = 128;

/// A value read whole in [`Detail::Full`]; in [`Detail::Summary`] its skeleton: every key but
/// the dropped ones (`DROP`: bodies the summary never reads, skipped unread) and every short
/// string kept, every long string replaced by a one-character stand-in that keeps whether it
/// was blank (`"…"` or `" "`). Logic that looks at structure, ids, statuses or emptiness reads
/// a skeleton exactly as it reads the whole value, without the bodies being copied or kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skel<const DROP: usize = 0>(pub Value);

/// Key lists for [`Skel`]'s `DROP` parameter (const generics take no slices).
pub const SKEL_KEEP_ALL: usize = 0;
/// Gemini tool calls: arguments, outputs and UI renderings are dropped.
pub const SKEL_TOOL_BODIES: usize = 1;
/// Gemini thoughts: `subject` and `description` are bodies known to be strings, kept as
/// stand-ins read from their raw text (never decoded).
pub const SKEL_THOUGHTS: usize = 2;

/// `(keys dropped, keys whose strings are only stood in for)` of a key list.
fn key_lists(list: usize) -> (&'static [&'static str], &'static [&'static str]) {
    match list {
        SKEL_TOOL_BODIES => (
            &[
                "args",
                "output",
                "resultDisplay",
                "description",
                "displayName",
            ],
            &[],
        ),
        SKEL_THOUGHTS => (&[], &["subject", "description"]),
        _ => (&[], &[]),
    }
}

impl<'de, const DROP: usize> Deserialize<'de> for Skel<DROP> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if full() {
            return Value::deserialize(d).map(Skel);
        }
        let (drop, stand_in) = key_lists(DROP);
        de::DeserializeSeed::deserialize(SkelSeed(drop, stand_in), d).map(Skel)
    }
}

#[derive(Clone, Copy)]
struct SkelSeed(&'static [&'static str], &'static [&'static str]);

/// The stand-in of a long string, keeping whether it was empty or blank.
fn stand_in(b: &Body) -> Value {
    Value::String(if !b.is_str || b.empty {
        String::new()
    } else if b.blank {
        " ".to_string()
    } else {
        "…".to_string()
    })
}

impl<'de> de::DeserializeSeed<'de> for SkelSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SkelSeed {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(if v.len() <= SKELETON_STRING_MAX {
            v.to_string()
        } else if v.trim().is_empty() {
            " ".to_string()
        } else {
            "…".to_string()
        }))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(k) = map.next_key::<Cow<'de, str>>()? {
            if self.0.contains(&k.as_ref()) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if self.1.contains(&k.as_ref()) {
                let v = if FROM_TREE.with(Cell::get) {
                    match map.next_value::<Value>()? {
                        Value::String(s) => stand_in(&Body {
                            text: None,
                            is_str: true,
                            empty: s.is_empty(),
                            blank: s.trim().is_empty(),
                        }),
                        other => other,
                    }
                } else {
                    let raw = map.next_value::<&'de serde_json::value::RawValue>()?;
                    let b = Body::of_raw(raw.get());
                    if b.is_str {
                        stand_in(&b)
                    } else {
                        serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null)
                    }
                };
                out.insert(k.into_owned(), v);
                continue;
            }
            let v = map.next_value_seed(self)?;
            out.insert(k.into_owned(), v);
        }
        Ok(Value::Object(out))
    }
}

// ---------------------------------------------------------------------------------- Body

/// A text body (thinking, reasoning): the text in [`Detail::Full`]; in [`Detail::Summary`]
/// only whether it was a string, empty or blank, so that choices depending on that stay the
/// same in both views.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Body<'a> {
    pub text: Option<Cow<'a, str>>,
    pub is_str: bool,
    pub empty: bool,
    pub blank: bool,
}

impl Body<'_> {
    /// The text ("" when skipped or not a string).
    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or("")
    }

    /// A string with at least one character.
    pub fn filled(&self) -> bool {
        self.is_str && !self.empty
    }

    /// A string with something besides whitespace.
    pub fn nonblank(&self) -> bool {
        self.is_str && !self.blank
    }

    pub fn owned(&self) -> String {
        self.text().to_string()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Body<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(bool, PhantomData<&'a ()>);
        impl<'a> V<'a> {
            fn of(&self, s: Cow<'a, str>) -> Body<'a> {
                Body {
                    is_str: true,
                    empty: s.is_empty(),
                    blank: s.trim().is_empty(),
                    text: self.0.then_some(s),
                }
            }
        }
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Body<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Body<'a>, E> {
                Ok(self.of(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Body<'a>, E> {
                if self.0 {
                    Ok(self.of(Cow::Owned(v.to_string())))
                } else {
                    Ok(Body {
                        text: None,
                        is_str: true,
                        empty: v.is_empty(),
                        blank: v.trim().is_empty(),
                    })
                }
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Body<'a>, E> {
                Ok(self.of(Cow::Owned(v)))
            }
            other_kinds!(_k => Body::default());
            other_containers!(_k => Body::default());
        }
        if full() {
            return d.deserialize_any(V(true, PhantomData));
        }
        // The summary view only asks whether the body is an empty or blank string: read it as
        // raw JSON text (as fast as skipping it) and decide from its first characters.
        let raw = <&'de serde_json::value::RawValue>::deserialize(d)?;
        Ok(Body::of_raw(raw.get()))
    }
}

impl Body<'_> {
    /// The flags of a JSON value given as its raw text, without decoding a non-blank string.
    fn of_raw(raw: &str) -> Self {
        let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
            return Body::default();
        };
        let empty = inner.is_empty();
        let blank = match inner.bytes().find(|&b| b != b' ') {
            None => true,
            // A plain visible ASCII character: not blank.
            Some(b) if b.is_ascii_graphic() && b != b'\\' => false,
            // An escape or a non-ASCII character: decode to apply `str::trim` exactly.
            Some(_) => super::read::decode_string(raw).is_some_and(|s| s.trim().is_empty()),
        };
        Body {
            text: None,
            is_str: true,
            empty,
            blank,
        }
    }
}

/// A key that may be absent, `null`, or hold a `T` (`Option` alone cannot tell the first two
/// apart: serde reads `null` as `None`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Field<T> {
    #[default]
    Absent,
    Null,
    Val(T),
}

impl<T> Field<T> {
    /// The key was written, whatever its value (`Map::contains_key`).
    pub fn present(&self) -> bool {
        !matches!(self, Field::Absent)
    }

    pub fn get(&self) -> Option<&T> {
        match self {
            Field::Val(t) => Some(t),
            _ => None,
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Field<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_none<E: de::Error>(self) -> Result<Field<T>, E> {
                Ok(Field::Null)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Field<T>, E> {
                Ok(Field::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Field<T>, D::Error> {
                T::deserialize(d).map(Field::Val)
            }
        }
        d.deserialize_option(V(PhantomData))
    }
}

/// Whether a JSON value is `null` without keeping it (`Some(())` for null).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IsNull(pub bool);

impl<'de> Deserialize<'de> for IsNull {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IsNull;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<IsNull, E> {
                Ok(IsNull(true))
            }
            fn visit_none<E: de::Error>(self) -> Result<IsNull, E> {
                Ok(IsNull(true))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<IsNull, E> {
                Ok(IsNull(false))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<IsNull, E> {
                Ok(IsNull(false))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<IsNull, E> {
                Ok(IsNull(false))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<IsNull, E> {
                Ok(IsNull(false))
            }
            other_strings!(_k => IsNull(false));
            other_containers!(_k => IsNull(false));
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn counts_that_are_no_counts_are_told_and_read_as_before() {
        let num = |text: &str| serde_json::from_str::<Num>(text).unwrap();
        for fine in ["0", "7", "12.0", "1e3", "1000000000000", "null"] {
            assert_eq!(num(fine).odd(), None, "{fine}");
        }
        assert_eq!(num("12.0").get(), 12);
        for (odd, read, said) in [
            ("-5", 0, "-5"),
            ("-0.5", 0, "-0.5"),
            ("12.5", 12, "12.5"),
            ("1000000000001", 1_000_000_000_001, "1000000000001"),
            ("1e30", u64::MAX, "1e30"),
            ("\"100\"", 100, "a string"),
            ("\"x\"", 0, "a string"),
            ("true", 0, "a boolean"),
            ("[1]", 0, "an array"),
            ("{}", 0, "an object"),
        ] {
            let n = num(odd);
            assert_eq!(n.get(), read, "{odd}");
            assert_eq!(
                n.odd().map(|o| o.to_string()).as_deref(),
                Some(said),
                "{odd}"
            );
        }
    }

    #[derive(Deserialize, Default)]
    struct R<'a> {
        #[serde(default, borrow)]
        s: Str<'a>,
        #[serde(default)]
        f: Flag,
        #[serde(default)]
        n: Num,
        #[serde(default)]
        t: Time,
        #[serde(default)]
        o: Option<Obj<Inner>>,
        #[serde(default)]
        k: Kept,
        #[serde(default, borrow)]
        b: Body<'a>,
    }

    #[derive(Deserialize, Default, Debug, PartialEq)]
    struct Inner {
        #[serde(default)]
        x: Num,
    }

    #[test]
    fn wrong_types_read_as_absent_not_as_errors() {
        let r: R = serde_json::from_str(
            r#"{"s":[1,{"a":2}],"f":"yes","n":{"x":1},"t":"[trimmed]","o":[1],"k":1,"b":3}"#,
        )
        .unwrap();
        assert_eq!(r.s.get(), None);
        assert!(!r.f.0);
        assert_eq!(r.n.value(), None);
        assert_eq!(r.t.0, None);
        assert_eq!(r.o, Some(Obj::Not("array")));
        assert!(!r.b.is_str);
    }

    #[test]
    fn values_read_like_value_accessors_did() {
        let r: R = serde_json::from_str(
            r#"{"s":"a\"b","f":true,"n":-5,"t":1700000000,"o":{"x":"12"},"k":{"z":[1]},"b":" "}"#,
        )
        .unwrap();
        assert_eq!(r.s.get(), Some("a\"b"));
        assert!(r.f.0);
        assert_eq!(r.n.value(), Some(0));
        assert_eq!(r.t.0.unwrap().timestamp(), 1_700_000_000);
        assert_eq!(
            r.o,
            Some(Obj::Is(Inner {
                x: Num::of(NumState::Text, 12)
            }))
        );
        assert_eq!(r.k.0["z"][0], 1);
        assert!(r.b.is_str && !r.b.empty && r.b.blank);
        let n: Num = serde_json::from_str("2.9").unwrap();
        assert_eq!(n.value(), Some(2));
        let n: Num = serde_json::from_str("1e30").unwrap();
        assert_eq!(n.value(), Some(u64::MAX));
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let line = r#"{"s":"plain","b":"body"}"#;
        let r: R = serde_json::from_str(line).unwrap();
        assert!(matches!(r.s.0, Some(Cow::Borrowed("plain"))));
        assert!(matches!(r.b.text, Some(Cow::Borrowed("body"))));
    }

    #[test]
    fn summary_detail_skips_bodies_but_keeps_their_shape() {
        let line = r#"{"k":{"big":[1,2,3]},"b":"thinking\nmore","s":"kept"}"#;
        let r: R = with_detail(Detail::Summary, || serde_json::from_str(line).unwrap());
        assert_eq!(r.k.0, Value::Null);
        assert_eq!(r.b.text, None);
        assert!(r.b.filled() && r.b.nonblank());
        assert_eq!(r.s.get(), Some("kept"));
        assert_eq!(detail(), Detail::Full);
    }
}
