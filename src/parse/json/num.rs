//! The token count ([`Num`]) and the values it notes as no count ([`Odd`]), with the warnings
//! every agent's usage record reports them by: apart because a count is more than a lenient
//! read (it remembers what it read instead), and [`Uint`], the strict integer beside it.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

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
pub(super) enum NumState {
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

    pub(super) fn of(state: NumState, bits: u64) -> Num {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
