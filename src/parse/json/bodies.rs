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
/// was blank (`"…"` or `" "`, see [`skel_str`]). Logic that looks at structure, ids, statuses
/// or emptiness reads a skeleton exactly as it reads the whole value, without the bodies being
/// copied or kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skel<const DROP: usize = 0>(pub Value);

/// Key lists for [`Skel`]'s `DROP` parameter (const generics take no slices).
pub const SKEL_KEEP_ALL: usize = 0;
/// Gemini tool calls: arguments, outputs and UI renderings are dropped.
pub const SKEL_TOOL_BODIES: usize = 1;

/// The keys dropped by a key list.
fn dropped(list: usize) -> &'static [&'static str] {
    match list {
        SKEL_TOOL_BODIES => &[
            "args",
            "output",
            "resultDisplay",
            "description",
            "displayName",
        ],
        _ => &[],
    }
}

impl<'de, const DROP: usize> Deserialize<'de> for Skel<DROP> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if full() {
            return Value::deserialize(d).map(Skel);
        }
        de::DeserializeSeed::deserialize(SkelSeed(dropped(DROP)), d).map(Skel)
    }
}

#[derive(Clone, Copy)]
struct SkelSeed(&'static [&'static str]);

/// A string as a skeleton keeps it ([`Skel`]): whole in [`Detail::Full`] and when short; in
/// [`Detail::Summary`] a long one as its one-character stand-in.
pub fn skel_str(s: &str) -> Cow<'_, str> {
    if full() || s.len() <= SKELETON_STRING_MAX {
        Cow::Borrowed(s)
    } else {
        stand_in(false, s.trim().is_empty())
    }
}

/// The stand-in of a string body, keeping whether it was empty or blank.
fn stand_in(empty: bool, blank: bool) -> Cow<'static, str> {
    Cow::Borrowed(if empty {
        ""
    } else if blank {
        " "
    } else {
        "…"
    })
}

// ------------------------------------------------------------------------------- StandIn

/// A body known to be a string when it is one (Gemini's thought subjects and descriptions):
/// whole in [`Detail::Full`]; in [`Detail::Summary`] only its stand-in (`""`, `" "` or `"…"`,
/// as empty, blank or not), read from its raw text without being decoded. `None` for any
/// other value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StandIn(pub Option<Cow<'static, str>>);

impl<'de> Deserialize<'de> for StandIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if full() {
            let s = d.deserialize_any(MaybeStr)?;
            return Ok(StandIn(s.map(|s| Cow::Owned(s.into_owned()))));
        }
        // A tree's strings are decoded already: nothing to spare by reading them raw.
        if FROM_TREE.with(Cell::get) {
            let s = d.deserialize_any(MaybeStr)?;
            return Ok(StandIn(
                s.map(|s| stand_in(s.is_empty(), s.trim().is_empty())),
            ));
        }
        let raw = <&'de serde_json::value::RawValue>::deserialize(d)?;
        let b = Body::of_raw(raw.get());
        Ok(StandIn(b.is_str.then(|| stand_in(b.empty, b.blank))))
    }
}

/// A string, borrowed where the input allows; `None` for any other value (read and dropped).
struct MaybeStr;

impl<'de> Visitor<'de> for MaybeStr {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
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
        Ok(Value::String(skel_str(v).into_owned()))
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
