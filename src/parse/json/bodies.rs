//! The bodies the summary view does not read ([`Kept`], [`Skel`], [`Body`]): whole in the
//! full view, skipped, stood in for or only measured for emptiness in [`Detail::Summary`].
//! Apart because they alone depend on the view the parse runs at.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

#[cfg(doc)]
use super::Detail;
use super::detail::{FROM_TREE, full};
use super::kind_of_unexpected;

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
        while let Some(k) = map.next_key::<super::Key>()? {
            if self.0.contains(&&*k) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if self.1.contains(&&*k) {
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
                out.insert(k.0.into_owned(), v);
                continue;
            }
            let v = map.next_value_seed(self)?;
            out.insert(k.0.into_owned(), v);
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
            Some(_) => crate::parse::read::decode_string(raw).is_some_and(|s| s.trim().is_empty()),
        };
        Body {
            text: None,
            is_str: true,
            empty,
            blank,
        }
    }
}
