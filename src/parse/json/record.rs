//! [`boxed_record!`]: a record type read straight into its box.
//!
//! serde derive reads a struct into one `Option` per field on the stack, builds the struct
//! from them, and `Box<T>`'s `Deserialize` then moves it to the heap. For a record of
//! many fields (Codex's line, 1 KB) that is two copies of the whole struct per object read,
//! which cost more time than their instructions say (a sampling profile of `list` over Codex's
//! files: the derived visitor 8.6% of the time for 4.0% of the instructions, `memmove` 5.8%).
//! The macro declares the struct and a `Deserialize` for `Box<Struct>` that allocates the box
//! first, defaulted, and writes each key's value into its field as it is read.
//!
//! It reads what derive with `#[serde(default)]` on every field reads: keys it does not
//! declare are skipped unread, a key given twice fails the object ("duplicate field"), and
//! only a JSON object is a record (the readers hand it nothing else: see [`Obj`]).
//!
//! [`Obj`]: super::Obj

/// Declares `struct Name<'a> { field: Type = "key", … }` (or `struct Name { … }`) with
/// `Default`, and `Deserialize<'de>` for `Box<Name<'a>>` (`'de: 'a`). At most 64 fields.
macro_rules! boxed_record {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$lt:lifetime>)? {
            $(
                $(#[$fmeta:meta])*
                $fvis:vis $field:ident : $ty:ty = $key:literal
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Default)]
        $vis struct $name $(<$lt>)? {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        const _: () = {
            boxed_record!(@keys $( $field = $key ),*);

            impl<'de $(: $lt, $lt)?> ::serde::Deserialize<'de> for Box<$name $(<$lt>)?> {
                fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    struct V $(<$lt>)? ($(::std::marker::PhantomData<&$lt ()>)?);
                    impl<'de $(: $lt, $lt)?> ::serde::de::Visitor<'de> for V $(<$lt>)? {
                        type Value = Box<$name $(<$lt>)?>;
                        boxed_record!(@visit $name; $( $field ),*);
                    }
                    d.deserialize_map(V($(::std::marker::PhantomData::<&$lt ()>)?))
                }
            }
        };
    };
    // Which field a key names: one bit per field, in declaration order.
    (@keys $( $field:ident = $key:literal ),*) => {
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy)]
        enum Key {
            $( $field, )*
        }
        const KEYS: &[&str] = &[$( $key ),*];
        assert!(KEYS.len() <= 64, "boxed_record!: more than 64 fields");

        impl Key {
            fn of(s: &str) -> Option<Key> {
                match s {
                    $( $key => Some(Key::$field), )*
                    _ => None,
                }
            }
        }

        // The key's field, without allocating the key (even one with escapes).
        struct KeySeed;
        impl<'de> ::serde::de::DeserializeSeed<'de> for KeySeed {
            type Value = Option<Key>;
            fn deserialize<D: ::serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Option<Key>, D::Error> {
                d.deserialize_identifier(self)
            }
        }
        impl<'de> ::serde::de::Visitor<'de> for KeySeed {
            type Value = Option<Key>;
            fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: ::serde::de::Error>(self, s: &str) -> Result<Option<Key>, E> {
                Ok(Key::of(s))
            }
            fn visit_bytes<E: ::serde::de::Error>(self, b: &[u8]) -> Result<Option<Key>, E> {
                Ok(::std::str::from_utf8(b).ok().and_then(Key::of))
            }
        }
    };
    // The visitor's methods: the box first, then each value into its field.
    (@visit $name:ident; $( $field:ident ),*) => {
        fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
            f.write_str(concat!("struct ", stringify!($name)))
        }
        fn visit_map<A: ::serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut rec: Self::Value = Box::default();
            let mut seen = 0u64;
            while let Some(key) = map.next_key_seed(KeySeed)? {
                let Some(key) = key else {
                    map.next_value::<::serde::de::IgnoredAny>()?;
                    continue;
                };
                let bit = 1u64 << key as u32;
                if seen & bit != 0 {
                    return Err(::serde::de::Error::duplicate_field(KEYS[key as usize]));
                }
                seen |= bit;
                match key {
                    $( Key::$field => rec.$field = map.next_value()?, )*
                }
            }
            Ok(rec)
        }
    };
}

pub(crate) use boxed_record;

#[cfg(test)]
mod tests {
    use crate::parse::json::{Obj, Str, Uint};

    boxed_record! {
        struct R<'a> {
            kind: Str<'a> = "type",
            n: Uint = "n",
            inner: Obj<Box<R<'a>>> = "inner",
        }
    }

    fn read(s: &str) -> serde_json::Result<Box<R<'_>>> {
        serde_json::from_str(s)
    }

    #[test]
    fn reads_declared_keys_and_skips_the_rest() {
        let r = read(r#"{"x":[1,{"y":2}],"type":"a","n":3,"inner":{"type":"b\u0041"}}"#).unwrap();
        assert_eq!(r.kind.get(), Some("a"));
        assert_eq!(r.n.0, Some(3));
        let inner = r.inner.get().unwrap();
        assert_eq!(inner.kind.get(), Some("bA"));
        assert_eq!(inner.n.0, None);
        assert!(inner.inner.get().is_none());
    }

    #[test]
    fn keys_with_escapes_are_matched() {
        assert_eq!(read(r#"{"typ\u0065":"a"}"#).unwrap().kind.get(), Some("a"));
    }

    #[test]
    fn a_repeated_key_fails_the_object_as_derive_does() {
        let e = read(r#"{"type":"a","n":1,"type":"b"}"#).err().unwrap();
        assert!(e.to_string().starts_with("duplicate field `type`"), "{e}");
    }

    #[test]
    fn only_an_object_is_a_record() {
        assert!(read("[1,2]").is_err());
        assert!(read("\"s\"").is_err());
    }
}
