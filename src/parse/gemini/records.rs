//! A Gemini CLI JSONL line read as a typed struct that keeps only the keys the log engine reads
//! (formats.md §3.4–§3.5): metadata keys, `$set`/`$rewindTo`, and a message record's `id`,
//! `timestamp`, `type`, `content`, `displayContent`, `model`, `thoughts`, `tokens` and
//! `toolCalls`. Everything else (`directories`, `memoryScratchpad`, UI renderings…) is skipped
//! unread. `thoughts` are read as the texts of their thinking parts ([`Thoughts`]), and each
//! call of `toolCalls` into the keys the engine reads of it ([`Call`]). In
//! [`Detail::Summary`](crate::parse::json::Detail::Summary) their bodies (arguments, outputs,
//! result displays, thinking) are skipped or stood in for ([`Skel`], [`StandIn`]): every id,
//! name and status survives, no output is copied.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::Value;

use crate::parse::json::{
    Field, Num, Obj, Odd, SKEL_TOOL_BODIES, Skel, StandIn, boxed_record, skel_str,
};

boxed_record! {
    pub(super) struct G {
        rewind_to: Field<Value> = "$rewindTo",
        set: Field<Obj<Box<G>>> = "$set",
        session_id: Field<Value> = "sessionId",
        project_hash: Field<Value> = "projectHash",
        start_time: Field<Value> = "startTime",
        last_updated: Field<Value> = "lastUpdated",
        kind: Field<Value> = "kind",
        summary: Field<Value> = "summary",
        messages: Field<Messages> = "messages",
        id: Field<Value> = "id",
        timestamp: Field<Value> = "timestamp",
        typ: Field<Value> = "type",
        content: Field<Value> = "content",
        display_content: Field<Value> = "displayContent",
        model: Field<Value> = "model",
        thoughts: Field<Thoughts> = "thoughts",
        tokens: Field<Obj<Counts>> = "tokens",
        tool_calls: Field<ListOr<CallIn>> = "toolCalls",
    }
}

/// A `tokens` object's counts, each read as [`Num`] (what [`crate::parse::u64_of`] does: 0 when
/// absent or not a count; the last of a repeated key). Read through [`Obj`]: anything but an
/// object is ignored by the log engine as a missing `tokens` is. Typed, not a map of values: it
/// is on every model record, and only these five keys are read.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Counts {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
    pub thoughts: u64,
    pub tool: u64,
    /// The values that were no token count, in the order of the fields above; boxed, as a
    /// model record's counts are read on every line and such values are rare.
    pub odd: Option<Box<[Option<Odd>; 5]>>,
}

impl Counts {
    /// The counts that are no token count: field, value, count read.
    pub fn odd_counts(&self) -> impl Iterator<Item = (&'static str, Odd, u64)> + '_ {
        let read = [
            self.input,
            self.output,
            self.cached,
            self.thoughts,
            self.tool,
        ];
        ["input", "output", "cached", "thoughts", "tool"]
            .into_iter()
            .zip(self.odd.as_deref().copied().unwrap_or_default())
            .zip(read)
            .filter_map(|((f, odd), n)| Some((f, odd?, n)))
    }
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Counts;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tokens object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Counts, A::Error> {
                let mut c = Counts::default();
                while let Some(key) = map.next_key::<crate::parse::json::Key>()? {
                    let (slot, k) = match &*key {
                        "input" => (&mut c.input, 0),
                        "output" => (&mut c.output, 1),
                        "cached" => (&mut c.cached, 2),
                        "thoughts" => (&mut c.thoughts, 3),
                        "tool" => (&mut c.tool, 4),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    let n = map.next_value::<Num>()?;
                    *slot = n.get();
                    if let Some(odd) = n.odd() {
                        c.odd.get_or_insert_default()[k] = Some(odd);
                    }
                }
                Ok(c)
            }
        }
        d.deserialize_map(V)
    }
}

/// A message's `thoughts`, read as the texts of the thinking parts they become: a thought
/// object's trimmed `subject` and `description` on two lines (either alone when the other is
/// blank), a thought string trimmed; thoughts that leave no text are left out, and so is
/// anything but an array. The texts are whole in the full view and stood in for in the summary
/// ([`StandIn`], [`skel_str`]). Read straight into texts, not kept as JSON values: a session
/// has a thought or more on most model records, and their values are several allocations each.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Thoughts(pub Vec<String>);

impl<'de> Deserialize<'de> for Thoughts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Thoughts(match ListOr::<Thought>::deserialize(d)? {
            ListOr::List(list) => list.into_iter().filter_map(|t| t.0).collect(),
            ListOr::Not(_) => Vec::new(),
        }))
    }
}

/// One thought's text (see [`Thoughts`]), `None` when it leaves none.
struct Thought(Option<String>);

impl<'de> Deserialize<'de> for Thought {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        fn text(s: &str) -> Thought {
            let t = skel_str(s);
            let t = t.trim();
            Thought((!t.is_empty()).then(|| t.to_string()))
        }
        impl<'de> Visitor<'de> for V {
            type Value = Thought;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a thought")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Thought, E> {
                Ok(text(s))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Thought, A::Error> {
                // A repeated key: its last value, as a JSON object keeps it.
                let (mut subject, mut desc) = (None, None);
                while let Some(key) = map.next_key::<crate::parse::json::Key>()? {
                    match &*key {
                        "subject" => subject = map.next_value::<StandIn>()?.0,
                        "description" => desc = map.next_value::<StandIn>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let subject = subject.as_deref().unwrap_or("").trim();
                let desc = desc.as_deref().unwrap_or("").trim();
                Ok(Thought(match (subject.is_empty(), desc.is_empty()) {
                    (false, false) => Some([subject, desc].join("\n")),
                    (false, true) => Some(subject.to_string()),
                    (true, false) => Some(desc.to_string()),
                    (true, true) => None,
                }))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Thought, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Thought(None))
            }
            crate::parse::json::other_kinds!(_k => Thought(None));
        }
        d.deserialize_any(V)
    }
}

/// One element of a message's `toolCalls`: a call object read into the keys the engine reads,
/// each key's value as a skeleton reads it ([`Skel`]: whole in the full view; in the summary
/// without arguments, outputs and renderings, long strings stood in for). Typed rather than
/// kept as a skeleton value: a call's object, its keys and the keys nobody reads were a dozen
/// allocations, on most model records.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CallIn {
    Call(Box<Call>),
    /// Anything but an object, as a skeleton.
    Other(Value),
}

/// A tool call object: the keys the engine reads (a repeated key: its last value).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Call {
    /// `id`, `name`, `status`: when they are strings.
    pub id: Option<String>,
    pub name: Option<String>,
    pub status: Option<String>,
    pub timestamp: Option<Value>,
    /// The arguments (the full view only).
    pub args: Option<Value>,
    pub result: Option<Value>,
    /// A string `resultDisplay` (the full view only): a rendering of another kind (a file
    /// diff with whole old and new contents) is never used, and not kept.
    pub result_display: Option<String>,
}

type CallSkel = Skel<SKEL_TOOL_BODIES>;

fn skel_string(v: CallSkel) -> Option<String> {
    match v.0 {
        Value::String(s) => Some(s),
        _ => None,
    }
}

impl<'de> Deserialize<'de> for CallIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::IntoDeserializer;
        use serde::de::value::SeqAccessDeserializer;
        struct V;
        // What is no object is read as its skeleton, as it was before calls were typed.
        fn other<'de, E: de::Error>(d: impl Deserializer<'de, Error = E>) -> Result<CallIn, E> {
            CallSkel::deserialize(d).map(|v| CallIn::Other(v.0))
        }
        impl<'de> Visitor<'de> for V {
            type Value = CallIn;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tool call")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<CallIn, A::Error> {
                let mut c = Call::default();
                while let Some(key) = map.next_key::<crate::parse::json::Key>()? {
                    match &*key {
                        "id" => c.id = skel_string(map.next_value()?),
                        "name" => c.name = skel_string(map.next_value()?),
                        "status" => c.status = skel_string(map.next_value()?),
                        "timestamp" => c.timestamp = Some(map.next_value::<CallSkel>()?.0),
                        "result" => c.result = Some(map.next_value::<CallSkel>()?.0),
                        // Dropped from the summary's skeletons: read in the full view only.
                        "args" | "resultDisplay" if !crate::parse::json::full() => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        "args" => c.args = Some(map.next_value()?),
                        "resultDisplay" => {
                            c.result_display = match map.next_value()? {
                                Value::String(s) => Some(s),
                                _ => None,
                            }
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(CallIn::Call(Box::new(c)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<CallIn, A::Error> {
                other(SeqAccessDeserializer::new(seq))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CallIn, E> {
                other(v.into_deserializer())
            }
            crate::parse::json::scalars_as_values!(v => CallIn::Other(v));
        }
        d.deserialize_any(V)
    }
}

/// An array of `T` (`messages`, `thoughts`, `toolCalls`), or the JSON kind of whatever else
/// stood there; a `null` read on its own is an empty array (a key written `null` is
/// [`Field::Null`]).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ListOr<T> {
    List(Vec<T>),
    Not(&'static str),
}

type Messages = ListOr<Obj<Box<G>>>;

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ListOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ListOr<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ListOr<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(m) = seq.next_element::<T>()? {
                    out.push(m);
                }
                Ok(ListOr::List(out))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<ListOr<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ListOr::Not("object"))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ListOr<T>, E> {
                Ok(ListOr::Not("string"))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<ListOr<T>, E> {
                Ok(ListOr::Not("boolean"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<ListOr<T>, E> {
                Ok(ListOr::Not("number"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<ListOr<T>, E> {
                Ok(ListOr::Not("number"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<ListOr<T>, E> {
                Ok(ListOr::Not("number"))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ListOr<T>, E> {
                Ok(ListOr::List(Vec::new()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A message record as the log keeps it: the keys the engine reads, each as recorded
/// (`Some(Value::Null)` for a key written as `null`; `thoughts` and `toolCalls` as read, see
/// [`Thoughts`] and [`CallIn`]), overlaid field by field by later upserts.
#[derive(Debug, Clone, Default)]
pub(super) struct Rec {
    pub typ: Option<Value>,
    pub content: Option<Value>,
    pub display_content: Option<Value>,
    pub model: Option<Value>,
    /// The thinking texts of `thoughts` ([`Thoughts`]); empty when it held none.
    pub thoughts: Option<Vec<String>>,
    /// `toolCalls`: its elements, or the JSON kind of a value that is no array (warned of,
    /// not read); a `null` is no element.
    pub tool_calls: Option<ListOr<CallIn>>,
}

impl Rec {
    /// The value recorded under a key (only the keys above exist).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match key {
            "type" => self.typ.as_ref(),
            "content" => self.content.as_ref(),
            "displayContent" => self.display_content.as_ref(),
            "model" => self.model.as_ref(),
            _ => None,
        }
    }

    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// The elements of `toolCalls` (none when it is no array).
    pub fn tool_call_list(&self) -> &[CallIn] {
        match &self.tool_calls {
            Some(ListOr::List(calls)) => calls,
            _ => &[],
        }
    }

    /// The call objects of `toolCalls`.
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.tool_call_list().iter().filter_map(|c| match c {
            CallIn::Call(c) => Some(&**c),
            CallIn::Other(_) => None,
        })
    }

    /// A later record of the same id: the keys it holds replace the recorded ones.
    pub fn overlay(&mut self, later: Rec) {
        fn take<T>(slot: &mut Option<T>, v: Option<T>) {
            if v.is_some() {
                *slot = v;
            }
        }
        take(&mut self.typ, later.typ);
        take(&mut self.content, later.content);
        take(&mut self.display_content, later.display_content);
        take(&mut self.model, later.model);
        take(&mut self.thoughts, later.thoughts);
        take(&mut self.tool_calls, later.tool_calls);
    }
}

fn value(f: Field<Value>) -> Option<Value> {
    match f {
        Field::Absent => None,
        Field::Null => Some(Value::Null),
        Field::Val(v) => Some(v),
    }
}

/// One message record taken out of a line (or a `messages` array).
pub(super) struct MsgIn {
    pub id: Option<String>,
    pub timestamp: Option<Value>,
    /// The counts of a `tokens` object; `None` when the key is absent, `null` or not an object.
    pub tokens: Option<Counts>,
    pub rec: Rec,
}

/// What a `messages` key held.
pub(super) enum MessagesIn {
    List(Vec<Result<MsgIn, &'static str>>),
    Not(&'static str),
}

/// A line, as the log engine dispatches it.
// Messages are most lines: a box for each would be an allocation per line for nothing.
#[allow(clippy::large_enum_variant)]
pub(super) enum LineIn {
    Rewind(Value),
    /// `$set` with an object (its metadata and messages), or the kind of what it held.
    Set(Result<Box<MetaIn>, &'static str>),
    Metadata(Box<MetaIn>),
    Message(MsgIn),
    /// Anything else, tallied by its `type` or its first key.
    Other(String),
}

/// Metadata keys (of a metadata line, a `$set` patch or a legacy record).
#[derive(Default)]
pub(super) struct MetaIn {
    pub session_id: Option<Value>,
    pub project_hash: Option<Value>,
    pub start_time: Option<Value>,
    pub last_updated: Option<Value>,
    pub kind: Option<Value>,
    pub summary: Option<Value>,
    pub messages: Option<Option<MessagesIn>>,
}

impl G {
    fn meta(&mut self) -> MetaIn {
        let messages = match std::mem::take(&mut self.messages) {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Val(Messages::List(items)) => Some(Some(MessagesIn::List(
                items
                    .into_iter()
                    .map(|i| match i {
                        Obj::Is(mut g) => Ok(g.message()),
                        Obj::Not(kind) => Err(kind),
                    })
                    .collect(),
            ))),
            Field::Val(Messages::Not(kind)) => Some(Some(MessagesIn::Not(kind))),
        };
        MetaIn {
            session_id: value(std::mem::take(&mut self.session_id)),
            project_hash: value(std::mem::take(&mut self.project_hash)),
            start_time: value(std::mem::take(&mut self.start_time)),
            last_updated: value(std::mem::take(&mut self.last_updated)),
            kind: value(std::mem::take(&mut self.kind)),
            summary: value(std::mem::take(&mut self.summary)),
            messages,
        }
    }

    fn message(&mut self) -> MsgIn {
        MsgIn {
            id: match std::mem::take(&mut self.id) {
                Field::Val(Value::String(s)) => Some(s),
                _ => None,
            },
            timestamp: value(std::mem::take(&mut self.timestamp)),
            tokens: match std::mem::take(&mut self.tokens) {
                Field::Val(Obj::Is(counts)) => Some(counts),
                _ => None,
            },
            rec: Rec {
                typ: value(std::mem::take(&mut self.typ)),
                content: value(std::mem::take(&mut self.content)),
                display_content: value(std::mem::take(&mut self.display_content)),
                model: value(std::mem::take(&mut self.model)),
                thoughts: match std::mem::take(&mut self.thoughts) {
                    Field::Absent => None,
                    Field::Null => Some(Vec::new()),
                    Field::Val(Thoughts(t)) => Some(t),
                },
                tool_calls: match std::mem::take(&mut self.tool_calls) {
                    Field::Absent => None,
                    Field::Null => Some(ListOr::List(Vec::new())),
                    Field::Val(t) => Some(t),
                },
            },
        }
    }

    fn is_str(f: &Field<Value>) -> bool {
        matches!(f, Field::Val(Value::String(_)))
    }

    /// Dispatch a line the way Gemini CLI's loader does (formats.md §3.4). `raw` is the line's
    /// text, read again only for a line that holds none of the keys the engine knows.
    pub(super) fn into_line(mut self, raw: &[u8]) -> LineIn {
        match std::mem::take(&mut self.rewind_to) {
            Field::Absent => {}
            Field::Null => return LineIn::Rewind(Value::Null),
            Field::Val(v) => return LineIn::Rewind(v),
        }
        match std::mem::take(&mut self.set) {
            Field::Absent => {}
            Field::Null => return LineIn::Set(Err("null")),
            Field::Val(Obj::Not(kind)) => return LineIn::Set(Err(kind)),
            Field::Val(Obj::Is(mut g)) => return LineIn::Set(Ok(Box::new(g.meta()))),
        }
        if G::is_str(&self.session_id) && G::is_str(&self.project_hash) {
            return LineIn::Metadata(Box::new(self.meta()));
        }
        if G::is_str(&self.id) {
            return LineIn::Message(self.message());
        }
        if let Field::Val(Value::String(t)) = &self.typ {
            return LineIn::Other(t.clone());
        }
        let first = match serde_json::from_slice::<Value>(raw) {
            Ok(Value::Object(m)) => m.keys().next().cloned(),
            _ => None,
        };
        LineIn::Other(first.unwrap_or_else(|| "empty".to_string()))
    }

    /// A whole legacy record (a `.json` document) as metadata.
    pub(super) fn into_meta(mut self) -> MetaIn {
        self.meta()
    }
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
