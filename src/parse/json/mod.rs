//! Typed, borrowed, lenient JSON building blocks for the parsers' record types.
//!
//! Every parser deserializes a line straight into its own `#[derive(Deserialize)]` record type
//! made of these pieces, instead of building a `serde_json::Value` tree first: strings borrow
//! from the line when they have no escapes, keys nobody reads are skipped by serde_json without
//! being materialised, and a value of an unexpected JSON type reads as "absent" rather than
//! failing the record (the files are written by many versions of three agents; a field that
//! changed type must not lose the rest of the line).
//!
//! The pieces live apart by concern: `detail` holds the view a parse runs at, `num` the token
//! count and the odd values it notes, `bodies` the values the summary view skips or stands in
//! for, `literal` the size of a string measured on its JSON literal; the small lenient scalars
//! and containers stay here.
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
use std::fmt;
use std::marker::PhantomData;

use chrono::{DateTime, Utc};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Implements the visitor methods that consume a value of any other JSON type and return
/// `$other` (an expression that may use `kind: &'static str`).
macro_rules! other_kinds {
    ($kind:ident => $other:expr) => {
        fn visit_bool<E: ::serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            let $kind = "boolean";
            Ok($other)
        }
        fn visit_i64<E: ::serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            let $kind = "number";
            Ok($other)
        }
        fn visit_u64<E: ::serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            let $kind = "number";
            Ok($other)
        }
        fn visit_f64<E: ::serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            let $kind = "number";
            Ok($other)
        }
        fn visit_unit<E: ::serde::de::Error>(self) -> Result<Self::Value, E> {
            let $kind = "null";
            Ok($other)
        }
        fn visit_none<E: ::serde::de::Error>(self) -> Result<Self::Value, E> {
            let $kind = "null";
            Ok($other)
        }
    };
}
pub(crate) use other_kinds;

/// Implements the visitor methods for a boolean, a number and `null`, each read as the
/// `serde_json::Value` the full view reads (`$value`) and returned as `$out`.
macro_rules! scalars_as_values {
    ($value:ident => $out:expr) => {
        fn visit_bool<E: ::serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
            let $value = ::serde_json::Value::Bool(v);
            Ok($out)
        }
        fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            let $value = ::serde_json::Value::from(v);
            Ok($out)
        }
        fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            let $value = ::serde_json::Value::from(v);
            Ok($out)
        }
        fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            let $value = ::serde_json::Value::from(v);
            Ok($out)
        }
        fn visit_unit<E: ::serde::de::Error>(self) -> Result<Self::Value, E> {
            let $value = ::serde_json::Value::Null;
            Ok($out)
        }
    };
}
pub(crate) use scalars_as_values;

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

// The submodules use the macros above, so they are declared after them.
mod bodies;
mod detail;
mod literal;
mod num;
mod record;

pub use bodies::{Body, Kept, SKEL_KEEP_ALL, SKEL_TOOL_BODIES, Skel, StandIn, skel_str};
pub use detail::{
    Detail, as_maps, by_kind, detail, from_tree, full, kept_output, maps, needs_maps, with_detail,
};
pub use literal::literal_size;
pub use num::{Num, Odd, Uint, odd_count, odd_counts};
pub(crate) use record::boxed_record;

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

// ---------------------------------------------------------------------------------- Key

/// An object's key, borrowed from the line unless it holds an escape, for a visitor that only
/// compares keys: serde's own `Cow<str>` reads a `String` first, an allocation for every key.
pub struct Key<'a>(pub Cow<'a, str>);

impl std::ops::Deref for Key<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // An object's key is always a string: `Str` reads it, borrowed where it can be.
        Str::deserialize(d).map(|s| Key(s.0.unwrap_or_default()))
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
    use super::num::NumState;
    use super::*;
    use serde::Deserialize;
    use serde_json::Value;

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
    fn keys_borrow_from_the_line_unless_escaped() {
        struct Keys(Vec<(String, bool)>);
        impl<'de> Deserialize<'de> for Keys {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Keys;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                        let mut out = Vec::new();
                        while let Some(k) = map.next_key::<Key>()? {
                            map.next_value::<IgnoredAny>()?;
                            out.push((k.to_string(), matches!(k.0, Cow::Borrowed(_))));
                        }
                        Ok(Keys(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
        let keys: Keys = serde_json::from_str(r#"{"input":1,"in\u0070ut":2,"\"":3}"#).unwrap();
        let want = [("input", true), ("input", false), ("\"", false)];
        assert_eq!(keys.0, want.map(|(k, b)| (k.to_string(), b)));
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
