//! A Gemini CLI JSONL line read as a typed struct that keeps only the keys the log engine reads
//! (formats.md §3.4–§3.5): metadata keys, `$set`/`$rewindTo`, and a message record's `id`,
//! `timestamp`, `type`, `content`, `displayContent`, `model`, `thoughts`, `tokens` and
//! `toolCalls`. Everything else (`directories`, `memoryScratchpad`, UI renderings…) is skipped
//! unread. In [`Detail::Summary`] the bodies inside `thoughts` and `toolCalls` (arguments,
//! outputs, result displays, thinking) are read as skeletons ([`Skel`]): every id, name and
//! status survives, no output is copied.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::parse::json::{Field, Obj, Skel};

#[derive(Deserialize, Default)]
pub(super) struct G {
    #[serde(rename = "$rewindTo", default)]
    rewind_to: Field<Value>,
    #[serde(rename = "$set", default)]
    set: Field<Obj<Box<G>>>,
    #[serde(rename = "sessionId", default)]
    session_id: Field<Value>,
    #[serde(rename = "projectHash", default)]
    project_hash: Field<Value>,
    #[serde(rename = "startTime", default)]
    start_time: Field<Value>,
    #[serde(rename = "lastUpdated", default)]
    last_updated: Field<Value>,
    #[serde(default)]
    kind: Field<Value>,
    #[serde(default)]
    summary: Field<Value>,
    #[serde(default)]
    messages: Field<Messages>,
    #[serde(default)]
    id: Field<Value>,
    #[serde(default)]
    timestamp: Field<Value>,
    #[serde(rename = "type", default)]
    typ: Field<Value>,
    #[serde(default)]
    content: Field<Value>,
    #[serde(rename = "displayContent", default)]
    display_content: Field<Value>,
    #[serde(default)]
    model: Field<Value>,
    #[serde(default)]
    thoughts: Field<Skel>,
    #[serde(default)]
    tokens: Field<Value>,
    #[serde(rename = "toolCalls", default)]
    tool_calls: Field<Skel>,
}

/// A `messages` array (of records), or the kind of whatever else stood there.
enum Messages {
    List(Vec<Obj<Box<G>>>),
    Not(&'static str),
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Messages;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a messages array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Messages, A::Error> {
                let mut out = Vec::new();
                while let Some(m) = seq.next_element::<Obj<Box<G>>>()? {
                    out.push(m);
                }
                Ok(Messages::List(out))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Messages, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Messages::Not("object"))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Messages, E> {
                Ok(Messages::Not("string"))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Messages, E> {
                Ok(Messages::Not("boolean"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Messages, E> {
                Ok(Messages::Not("number"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Messages, E> {
                Ok(Messages::Not("number"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Messages, E> {
                Ok(Messages::Not("number"))
            }
        }
        d.deserialize_any(V)
    }
}

/// A stand-in of the right JSON kind for a value that was not kept (only its kind is read).
fn of_kind(kind: &str) -> Value {
    match kind {
        "object" => Value::Object(Map::new()),
        "array" => Value::Array(Vec::new()),
        "string" => Value::String(String::new()),
        "number" => Value::from(0),
        "boolean" => Value::Bool(false),
        _ => Value::Null,
    }
}

fn put(m: &mut Map<String, Value>, key: &str, f: Field<Value>) {
    match f {
        Field::Absent => {}
        Field::Null => {
            m.insert(key.into(), Value::Null);
        }
        Field::Val(v) => {
            m.insert(key.into(), v);
        }
    }
}

fn put_skel(m: &mut Map<String, Value>, key: &str, f: Field<Skel>) {
    match f {
        Field::Absent => {}
        Field::Null => {
            m.insert(key.into(), Value::Null);
        }
        Field::Val(Skel(v)) => {
            m.insert(key.into(), v);
        }
    }
}

impl G {
    /// Whether the line holds a key the engine reads; a line without one is tallied by its
    /// first key, which only the whole line tells.
    fn has_known_key(&self) -> bool {
        self.rewind_to.present()
            || self.set.present()
            || self.session_id.present()
            || self.project_hash.present()
            || self.id.present()
            || self.typ.present()
    }

    /// The record as the untyped object the log engine reads, with only the keys it reads.
    pub(super) fn into_map(self) -> Map<String, Value> {
        let mut m = Map::new();
        put(&mut m, "$rewindTo", self.rewind_to);
        match self.set {
            Field::Absent => {}
            Field::Null => {
                m.insert("$set".into(), Value::Null);
            }
            Field::Val(Obj::Is(g)) => {
                m.insert("$set".into(), Value::Object(g.into_map()));
            }
            Field::Val(Obj::Not(kind)) => {
                m.insert("$set".into(), of_kind(kind));
            }
        }
        put(&mut m, "sessionId", self.session_id);
        put(&mut m, "projectHash", self.project_hash);
        put(&mut m, "startTime", self.start_time);
        put(&mut m, "lastUpdated", self.last_updated);
        put(&mut m, "kind", self.kind);
        put(&mut m, "summary", self.summary);
        match self.messages {
            Field::Absent => {}
            Field::Null => {
                m.insert("messages".into(), Value::Null);
            }
            Field::Val(Messages::List(items)) => {
                let items = items
                    .into_iter()
                    .map(|i| match i {
                        Obj::Is(g) => Value::Object(g.into_map()),
                        Obj::Not(kind) => of_kind(kind),
                    })
                    .collect();
                m.insert("messages".into(), Value::Array(items));
            }
            Field::Val(Messages::Not(kind)) => {
                m.insert("messages".into(), of_kind(kind));
            }
        }
        put(&mut m, "id", self.id);
        put(&mut m, "timestamp", self.timestamp);
        put(&mut m, "type", self.typ);
        put(&mut m, "content", self.content);
        put(&mut m, "displayContent", self.display_content);
        put(&mut m, "model", self.model);
        put_skel(&mut m, "thoughts", self.thoughts);
        put(&mut m, "tokens", self.tokens);
        put_skel(&mut m, "toolCalls", self.tool_calls);
        m
    }

    /// The line for the engine: the kept keys, or the whole line when it holds none of them
    /// (it is tallied by its first key).
    pub(super) fn line_map(self, raw: &[u8]) -> Map<String, Value> {
        if self.has_known_key() {
            return self.into_map();
        }
        match serde_json::from_slice::<Value>(raw) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }
}
