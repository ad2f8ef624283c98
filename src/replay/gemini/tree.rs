//! A [`J`] tree read back through serde, so that a Gemini session's summary view can be
//! deserialised from the tree the replay builds of each line (the record Gemini CLI resumes)
//! instead of from the line's text a second time.
//!
//! The view's typed records must come out exactly as they do from the text. A tree forgets two
//! things the text says: how a number was written (`1.0` and `1`, integers beyond 2^53 are all
//! one `f64`) and which of a repeated key's values came first. Deserialising a `J` marks such a
//! line ([`take_lossy`]); its record is then read from the text as before.

use std::cell::Cell;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::json::{J, JsStr, Key};

/// The largest integer an `f64` holds exactly (JavaScript's `Number.MAX_SAFE_INTEGER` + 1).
pub const EXACT_INT: u64 = 1 << 53;

thread_local! {
    static LOSSY: Cell<bool> = const { Cell::new(false) };
}

/// Called by `J`'s deserialiser when the tree cannot say what the text said.
pub(super) fn mark_lossy() {
    LOSSY.with(|l| l.set(true));
}

/// Whether a `J` deserialised on this thread since the last call lost something the text said
/// (a number written as a float or beyond 2^53, a repeated key); clears the mark.
pub fn take_lossy() -> bool {
    LOSSY.with(|l| l.replace(false))
}

/// Why a tree could not be read as the requested type.
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl<'de> Deserializer<'de> for &'de J {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self {
            J::Null => v.visit_unit(),
            J::Bool(b) => v.visit_bool(*b),
            // Only numbers read from integer literals within 2^53 get here unmarked: they are
            // integers, visited as serde_json visits them (non-negative as `u64`).
            J::Num(x) if x.fract() == 0.0 && x.abs() <= EXACT_INT as f64 => {
                if *x >= 0.0 {
                    v.visit_u64(*x as u64)
                } else {
                    v.visit_i64(*x as i64)
                }
            }
            J::Num(x) => v.visit_f64(*x),
            J::Str(JsStr::Text(s)) => v.visit_borrowed_str(s),
            J::Str(other) => v.visit_string(other.to_string_lossy()),
            J::Arr(items) => v.visit_seq(Seq(items.iter())),
            J::Obj(entries) => v.visit_map(Map {
                entries: entries.iter(),
                value: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self {
            J::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    /// A value the record does not read: nothing to walk, the tree already holds it.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct enum identifier
    }
}

struct Seq<'de>(std::slice::Iter<'de, J>);

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|x| seed.deserialize(x)).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Map<'de> {
    entries: std::slice::Iter<'de, (Key, J)>,
    value: Option<&'de J>,
}

impl<'de> MapAccess<'de> for Map<'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((k, x)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(x);
        seed.deserialize(de::value::BorrowedStrDeserializer::new(k))
            .map(Some)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(x) => seed.deserialize(x),
            None => Err(de::Error::custom("a value asked for before its key")),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::Value;

    fn tree(text: &str) -> J {
        take_lossy();
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn values_read_from_the_tree_equal_values_read_from_the_text() {
        for text in [
            r#"{"b":1,"a":[true,false,null,-7,0,9007199254740992],"s":"x\"y\u00e9🙂","o":{}}"#,
            r#"[{"2":"two","1":"one","k":[]}]"#,
            r#""plain""#,
            "-9007199254740992",
        ] {
            let j = tree(text);
            assert!(!take_lossy(), "{text}");
            let from_tree = Value::deserialize(&j).unwrap();
            let from_text: Value = serde_json::from_str(text).unwrap();
            assert_eq!(from_tree, from_text, "{text}");
        }
    }

    #[test]
    fn what_the_tree_cannot_say_marks_the_line() {
        for text in [
            r#"{"n":1.0}"#,
            r#"{"n":1.5}"#,
            r#"{"n":9007199254740993}"#,
            r#"{"n":-9007199254740993}"#,
            r#"{"k":1,"k":2}"#,
        ] {
            tree(text);
            assert!(take_lossy(), "{text}");
            assert!(!take_lossy(), "the mark is cleared: {text}");
        }
    }

    #[test]
    fn options_tell_null_from_a_value() {
        #[derive(Deserialize, PartialEq, Debug)]
        struct S {
            a: Option<u64>,
            b: Option<String>,
            #[serde(default)]
            c: Option<bool>,
        }
        let j = tree(r#"{"a":null,"b":"x"}"#);
        assert_eq!(
            S::deserialize(&j).unwrap(),
            S {
                a: None,
                b: Some("x".into()),
                c: None
            }
        );
    }
}
