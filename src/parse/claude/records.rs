//! The shape of a Claude Code JSONL record, as typed borrowed structs (formats.md §1.2–§1.5).
//!
//! Only the keys the parser reads are declared; serde_json skips the others without building
//! them (`toolUseResult` bodies, the text of `agent_progress` message copies, snapshots…).
//! Content blocks are read whole in [`Detail::Full`], whole but for a tool result's string
//! output (measured) in [`Detail::Measured`], and without their bodies (thinking, tool inputs
//! and outputs, image data) in [`Detail::Summary`]; all become the same [`BlockObj`], so the
//! parser has one code path for every view. Whole, a block of a kind the parser models is read
//! into that kind's keys ([`ByKind`]), as a map of all its keys would give them.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::model::TextSize;
use crate::parse::json::{
    Detail, Field, Flag, Key, Num, Obj, OptBool, Str, Time, boxed_record, detail, scalars_as_values,
};

boxed_record! {
    /// One line of a transcript.
    pub(super) struct Rec<'a> {
        pub kind: Str<'a> = "type",
        pub uuid: Str<'a> = "uuid",
        pub parent_uuid: Str<'a> = "parentUuid",
        pub logical_parent_uuid: Str<'a> = "logicalParentUuid",
        pub session_id: Str<'a> = "sessionId",
        pub session_id_snake: Str<'a> = "session_id",
        pub timestamp: Time = "timestamp",
        pub cwd: Str<'a> = "cwd",
        pub version: Str<'a> = "version",
        pub git_branch: Str<'a> = "gitBranch",
        pub is_sidechain: Flag = "isSidechain",
        pub is_meta: Flag = "isMeta",
        pub is_compact_summary: Flag = "isCompactSummary",
        pub request_id: Str<'a> = "requestId",
        pub source_tool_use_id: Str<'a> = "sourceToolUseID",
        /// Present (any value) on tool-result carriers; an object may name the spawned agent.
        pub tool_use_result: Field<Obj<UseResult<'a>>> = "toolUseResult",
        pub message: Obj<Msg<'a>> = "message",
        // `system` records
        pub subtype: Str<'a> = "subtype",
        /// Also a `queue-operation`'s text (what the user typed while the agent worked).
        pub content: Str<'a> = "content",
        /// `queue-operation`: `enqueue`, `dequeue`, `remove`, `popAll`.
        pub operation: Str<'a> = "operation",
        pub compact_metadata: Option<Value> = "compactMetadata",
        pub microcompact_metadata: Option<Value> = "microcompactMetadata",
        /// Qwen Code's `system` records carry this; Claude Code's never do.
        pub system_payload: Field<IgnoredAny> = "systemPayload",
        pub trigger: Str<'a> = "trigger",
        // titles and branch hints
        pub leaf_uuid: Str<'a> = "leafUuid",
        pub summary: Str<'a> = "summary",
        pub custom_title: Str<'a> = "customTitle",
        pub ai_title: Str<'a> = "aiTitle",
        // `progress` / `attachment` sub-kinds: of their bodies only an `agent_progress` copy's
        // ids and usage are read
        pub data: Obj<Progress<'a>> = "data",
        pub attachment: Obj<Typed<'a>> = "attachment",
    }
}

#[derive(Deserialize, Default)]
pub(super) struct UseResult<'a> {
    #[serde(rename = "agentId", default, borrow)]
    pub agent_id: Str<'a>,
}

#[derive(Deserialize, Default)]
pub(super) struct Typed<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: Str<'a>,
}

/// A `progress` record's `data`. An `agent_progress` one holds, in `message`, a copy of one of
/// the running sub-agent's records (formats.md §1.3).
#[derive(Deserialize, Default)]
pub(super) struct Progress<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: Str<'a>,
    #[serde(default, borrow)]
    pub message: Obj<CopiedRecord<'a>>,
}

/// The sub-agent record an `agent_progress` copies: what identifies its response and its usage,
/// never its content (a copy is counted, not shown).
#[derive(Deserialize, Default)]
pub(super) struct CopiedRecord<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: Str<'a>,
    #[serde(default)]
    pub timestamp: Time,
    #[serde(rename = "requestId", default, borrow)]
    pub request_id: Str<'a>,
    #[serde(default, borrow)]
    pub message: Obj<CopiedMsg<'a>>,
}

#[derive(Deserialize, Default)]
pub(super) struct CopiedMsg<'a> {
    #[serde(default, borrow)]
    pub id: Str<'a>,
    #[serde(default, borrow)]
    pub model: Str<'a>,
    #[serde(default)]
    pub usage: Obj<RawUsage>,
}

/// `message`: an Anthropic Messages API message (assistant) or `{role, content}` (user).
#[derive(Deserialize, Default)]
pub(super) struct Msg<'a> {
    #[serde(default, borrow)]
    pub role: Str<'a>,
    /// Gemini-style `parts` (Qwen Code's transcripts): not a Claude message.
    #[serde(default)]
    pub parts: Field<IgnoredAny>,
    #[serde(default, borrow)]
    pub id: Str<'a>,
    #[serde(default, borrow)]
    pub model: Str<'a>,
    #[serde(default, borrow)]
    pub content: Content<'a>,
    #[serde(default)]
    pub usage: Obj<RawUsage>,
}

/// `message.usage` as recorded (formats.md §1.5).
#[derive(Deserialize, Default)]
pub(super) struct RawUsage {
    #[serde(default)]
    pub input_tokens: Num,
    #[serde(default)]
    pub output_tokens: Num,
    #[serde(default)]
    pub cache_creation_input_tokens: Num,
    #[serde(default)]
    pub cache_read_input_tokens: Num,
    #[serde(default)]
    pub cache_creation: Obj<CacheCreation>,
    #[serde(default)]
    pub output_tokens_details: Obj<Details>,
}

impl RawUsage {
    /// The counts that are no token count: field, value, count read.
    pub fn odd_counts(&self) -> Vec<(&'static str, crate::parse::json::Odd, u64)> {
        let cc = self.cache_creation.get();
        let details = self.output_tokens_details.get();
        crate::parse::json::odd_counts([
            ("input_tokens", Some(self.input_tokens)),
            ("output_tokens", Some(self.output_tokens)),
            (
                "cache_creation_input_tokens",
                Some(self.cache_creation_input_tokens),
            ),
            (
                "cache_read_input_tokens",
                Some(self.cache_read_input_tokens),
            ),
            (
                "cache_creation.ephemeral_5m_input_tokens",
                cc.and_then(|c| c.ephemeral_5m_input_tokens.get().copied()),
            ),
            (
                "cache_creation.ephemeral_1h_input_tokens",
                cc.and_then(|c| c.ephemeral_1h_input_tokens.get().copied()),
            ),
            (
                "output_tokens_details.thinking_tokens",
                details.map(|d| d.thinking_tokens),
            ),
        ])
    }
}

#[derive(Deserialize, Default)]
pub(super) struct CacheCreation {
    #[serde(default)]
    pub ephemeral_5m_input_tokens: Field<Num>,
    #[serde(default)]
    pub ephemeral_1h_input_tokens: Field<Num>,
}

#[derive(Deserialize, Default)]
pub(super) struct Details {
    #[serde(default)]
    pub thinking_tokens: Num,
}

/// `message.content`: a string (typed prompts) or a block array.
#[derive(Default)]
pub(super) enum Content<'a> {
    #[default]
    Absent,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    /// Present but neither a string nor an array.
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// One element of a block array.
// Unboxed on purpose: nearly every element is an object, and a box per block costs an
// allocation on the hottest path of the parse.
#[allow(clippy::large_enum_variant)]
pub(super) enum Block<'a> {
    /// A bare string element.
    Text(Cow<'a, str>),
    Obj(BlockObj<'a>),
    /// Neither: its JSON kind, and the value itself in [`Detail::Full`].
    Other(&'static str, Value),
}

/// A content block object, the same in both views: in [`Detail::Summary`] the bodies
/// (`thinking`, `input`, tool-result content, image data, unknown blocks' raw JSON) are empty.
#[derive(Default)]
pub(super) struct BlockObj<'a> {
    pub kind: Option<Cow<'a, str>>,
    pub text: Option<Cow<'a, str>>,
    pub thinking: Option<String>,
    pub id: Option<Cow<'a, str>>,
    pub name: Option<Cow<'a, str>>,
    pub input: Value,
    pub tool_use_id: Option<Cow<'a, str>>,
    pub is_error: Option<bool>,
    /// `tool_result.content` (full view), as recorded.
    pub result: Option<Value>,
    /// `source` of an image block (full view).
    pub source: Option<Value>,
    pub media_type: Option<Cow<'a, str>>,
    /// The whole block (full view), kept for kinds the parser does not model.
    pub raw: Value,
    /// A tool result's string `content` as measured in [`Detail::Measured`] (`result` is then
    /// `None`).
    pub result_size: Option<TextSize>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Block<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match detail() {
            Detail::Summary => {}
            _ if crate::parse::json::maps() => {
                return Value::deserialize(d).map(Block::from_value);
            }
            level => {
                return d.deserialize_any(ByKind {
                    measure: level == Detail::Measured,
                    lifetime: PhantomData,
                });
            }
        }
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Block<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Block<'a>, E> {
                Ok(Block::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Block<'a>, E> {
                Ok(Block::Text(Cow::Owned(v.to_string())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Block<'a>, A::Error> {
                let b = SummaryBlock::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let input = match b.input {
                    Obj::Is(i) => match i.subagent_type.owned() {
                        Some(t) => serde_json::json!({ "subagent_type": t }),
                        None => Value::Null,
                    },
                    Obj::Not(_) => Value::Null,
                };
                Ok(Block::Obj(BlockObj {
                    input,
                    kind: b.kind.0,
                    text: b.text.0,
                    id: b.id.0,
                    name: b.name.0,
                    tool_use_id: b.tool_use_id.0,
                    is_error: b.is_error.0,
                    ..BlockObj::default()
                }))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Block<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Block::Other("array", Value::Null))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Block<'a>, E> {
                Ok(Block::Other("boolean", Value::Null))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Block<'a>, E> {
                Ok(Block::Other("number", Value::Null))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Block<'a>, E> {
                Ok(Block::Other("number", Value::Null))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Block<'a>, E> {
                Ok(Block::Other("number", Value::Null))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Block<'a>, E> {
                Ok(Block::Other("null", Value::Null))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A block in every view but the summary, read as the full view first read it (into a
/// `Value`, the last of duplicate keys winning; [`as_maps`](crate::parse::json::as_maps) still
/// reads it so), but for two things:
///
/// - A block whose `type` names a kind the parser models (nearly every block Claude Code
///   writes), first or after one other key (a tool result's `tool_use_id`), is read straight
///   into the keys of that kind ([`typed_block`]), the rest skipped unread; any other block is
///   read into a map ([`mapped_block`]).
/// - With `measure` ([`Detail::Measured`]), a tool result's string `content` is measured
///   instead of kept. The content is known to be a tool result's when `"type": "tool_result"`
///   came before it, as Claude Code writes it; otherwise it is kept, exactly as in the full
///   view.
///
/// Should a later `type` make a block another kind, or the block be one serde_json reads as
/// raw JSON text, the file is read again with maps
/// ([`needs_maps`](crate::parse::json::needs_maps)).
struct ByKind<'a> {
    measure: bool,
    lifetime: PhantomData<&'a ()>,
}

impl<'de: 'a, 'a> Visitor<'de> for ByKind<'a> {
    type Value = Block<'a>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block<'a>, A::Error> {
        // Claude Code writes `type` first, but for a tool result's `tool_use_id`: one key is
        // held until the `type` comes.
        let mut before: Option<(Key<'de>, Value)> = None;
        loop {
            let Some(key) = map.next_key::<Key<'de>>()? else {
                return mapped_block(map, None, map_of(before), self.measure);
            };
            if &*key == "type" {
                return match map.next_value::<StrOr<Kind>>()? {
                    StrOr::Str(Kind(kind)) => typed_block(kind, before, map, self.measure),
                    StrOr::Other(v) => {
                        let mut m = map_of(before);
                        m.insert("type".to_string(), v);
                        mapped_block(map, None, m, self.measure)
                    }
                };
            }
            if before.is_some() || &*key == RAW_VALUE_TOKEN {
                let first = Some(key.0.into_owned());
                return mapped_block(map, first, map_of(before), self.measure);
            }
            before = Some((key, map.next_value()?));
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Block<'a>, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Block::from_value)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Block<'a>, E> {
        Ok(Block::Text(Cow::Owned(v.to_string())))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Block<'a>, E> {
        Ok(Block::Text(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Block<'a>, E> {
        Ok(Block::Text(Cow::Owned(v)))
    }
    scalars_as_values!(v => Block::from_value(v));
}

/// The block kinds [`typed_block`] reads: those [`Block::from_value`] takes keys from.
const TYPED_KINDS: [&str; 6] = [
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "image",
];

/// A value read as `T` when it is a string (a block's [`Kind`], a tool result's measured
/// content), or else as the full view reads it.
enum StrOr<T> {
    Str(T),
    Other(Value),
}

/// A block's `type` naming one of [`TYPED_KINDS`].
struct Kind(&'static str);

impl<'de> Deserialize<'de> for StrOr<Kind> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrOr<Kind>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StrOr<Kind>, E> {
                Ok(match TYPED_KINDS.iter().find(|k| **k == v) {
                    Some(k) => StrOr::Str(Kind(k)),
                    None => StrOr::Other(Value::String(v.to_string())),
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StrOr<Kind>, A::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(StrOr::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<StrOr<Kind>, A::Error> {
                Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(StrOr::Other)
            }
            scalars_as_values!(v => StrOr::Other(v));
        }
        d.deserialize_any(V)
    }
}

/// A tool result's `content` in [`Detail::Measured`]: a string measured on its JSON literal,
/// not decoded ([`literal_size`](crate::parse::json::literal_size)); anything else read from
/// that text as the full view reads it (rare: Claude Code writes most results as a string).
///
/// A value serde_json cannot read (a control character in a string, say) fails the line here
/// with the error of a skipped value, whose position is not always the one decoding it gives.
/// Unless the line reader repairs the line and reads it again (a lone surrogate, a number out
/// of range), the file is then read again with the full view's maps
/// ([`json::needs_maps`]), so that a replay reports the line as `show` does.
///
/// [`json::needs_maps`]: crate::parse::json::needs_maps
fn measured_content<'de, D: Deserializer<'de>>(d: D) -> Result<StrOr<TextSize>, D::Error> {
    let read_again = |e: D::Error| {
        if !crate::parse::read::error_is_repaired(&e.to_string()) {
            crate::parse::json::needs_maps();
        }
        e
    };
    let raw = <&'de serde_json::value::RawValue>::deserialize(d)
        .map_err(read_again)?
        .get();
    if raw.starts_with('"') {
        // Only a lone surrogate escape stops the measure: the error serde_json gives for it
        // when decoding, so that the line reader repairs the line as it did.
        return crate::parse::json::literal_size(raw)
            .map(StrOr::Str)
            .ok_or_else(|| de::Error::custom("lone leading surrogate in hex escape"));
    }
    serde_json::from_str(raw)
        .map(StrOr::Other)
        .map_err(|e| read_again(de::Error::custom(e)))
}

/// The rest of a block whose `type` named `kind`, `before` holding the key that came before
/// it, read into the keys [`Block::from_value`] takes of that kind, the last of duplicates
/// winning as in a map; the other keys are skipped unread (a thinking block's signature, say).
/// A later `type` naming another kind would need keys already skipped: the file is then read
/// again with maps.
fn typed_block<'de: 'a, 'a, A: MapAccess<'de>>(
    kind: &'static str,
    before: Option<(Key<'de>, Value)>,
    mut map: A,
    measure: bool,
) -> Result<Block<'a>, A::Error> {
    let mut b = BlockObj {
        kind: Some(Cow::Borrowed(kind)),
        ..BlockObj::default()
    };
    let mut text = None;
    if let Some((key, v)) = before {
        // Before the `type`: a tool result's content is kept, as the map reads it.
        de::DeserializeSeed::deserialize(Slot::new(&mut b, &mut text, &key, false), v)
            .map_err(de::Error::custom)?;
    }
    while let Some(key) = map.next_key::<Key<'de>>()? {
        map.next_value_seed(Slot::new(&mut b, &mut text, &key, measure))?;
    }
    match kind {
        "text" => b.text = text,
        "thinking" => b.thinking = text.map(Cow::into_owned),
        _ => {}
    }
    Ok(Block::Obj(b))
}

/// One key's value of a [`typed_block`], read into its field of `b` (a text's or thinking's
/// string into `text`) or skipped.
struct Slot<'s, 'a> {
    b: &'s mut BlockObj<'a>,
    text: &'s mut Option<Cow<'a, str>>,
    key: &'s str,
    /// Whether a tool result's string content is measured (in the measured view, after the
    /// `type`) or kept.
    measure: bool,
}

impl<'s, 'a> Slot<'s, 'a> {
    fn new(
        b: &'s mut BlockObj<'a>,
        text: &'s mut Option<Cow<'a, str>>,
        key: &'s str,
        measure: bool,
    ) -> Self {
        Slot {
            b,
            text,
            key,
            measure,
        }
    }
}

impl<'de: 'a, 'a> de::DeserializeSeed<'de> for Slot<'_, 'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let b = self.b;
        let kind = b.kind.as_deref().unwrap_or_default();
        let str = |d: D| Str::deserialize(d).map(|s| s.0);
        match (kind, self.key) {
            (_, "type") => {
                if !matches!(StrOr::deserialize(d)?, StrOr::Str(Kind(k)) if k == kind) {
                    crate::parse::json::needs_maps();
                }
            }
            (_, "is_error") => b.is_error = OptBool::deserialize(d)?.0,
            ("text", "text") | ("thinking", "thinking") => *self.text = str(d)?,
            ("tool_use", "id") => b.id = str(d)?,
            ("tool_use", "name") => b.name = str(d)?,
            ("tool_use", "input") => b.input = Value::deserialize(d)?,
            ("tool_result", "tool_use_id") => b.tool_use_id = str(d)?,
            ("tool_result", "content") if self.measure => match measured_content(d)? {
                StrOr::Str(s) => (b.result_size, b.result) = (Some(s), None),
                StrOr::Other(v) => (b.result_size, b.result) = (None, Some(v)),
            },
            ("tool_result", "content") => {
                (b.result_size, b.result) = (None, Some(Value::deserialize(d)?));
            }
            ("image", "media_type") => b.media_type = str(d)?,
            ("image", "source") => b.source = Some(Value::deserialize(d)?),
            _ => {
                IgnoredAny::deserialize(d)?;
            }
        }
        Ok(())
    }
}

/// The entry held before a block's `type`, as the map it starts.
fn map_of(before: Option<(Key, Value)>) -> Map<String, Value> {
    before
        .map(|(k, v)| (k.0.into_owned(), v))
        .into_iter()
        .collect()
}

/// The rest of a block read into a map as the full view reads it, `first` (a key whose value
/// is still to be read) and `m` holding what came before; with `measure`, a tool result's
/// string content measured.
fn mapped_block<'de, A: MapAccess<'de>>(
    mut map: A,
    mut first: Option<String>,
    mut m: Map<String, Value>,
    measure: bool,
) -> Result<Block<'static>, A::Error> {
    let mut measured = None;
    while let Some(key) = match first.take() {
        Some(k) => Some(k),
        None => map.next_key::<String>()?,
    } {
        if m.is_empty() && measured.is_none() && key == RAW_VALUE_TOKEN {
            // serde_json reads an object so keyed as the JSON text of its value.
            crate::parse::json::needs_maps();
        }
        if measure
            && key == "content"
            && m.get("type").and_then(Value::as_str) == Some("tool_result")
        {
            match map.next_value_seed(MeasuredContent)? {
                StrOr::Str(size) => {
                    m.remove("content");
                    measured = Some(size);
                }
                StrOr::Other(v) => {
                    measured = None;
                    m.insert(key, v);
                }
            }
            continue;
        }
        let v = map.next_value::<Value>()?;
        if key == "type" && measured.is_some() && v.as_str() != Some("tool_result") {
            // The content measured belongs to another kind of block after all (its `type`
            // written again): the file is read whole instead. Reading on keeps the line's
            // errors those of the full view.
            crate::parse::json::needs_maps();
        }
        m.insert(key, v);
    }
    let mut block = Block::from_value(Value::Object(m));
    if let (Block::Obj(b), Some(size)) = (&mut block, measured) {
        b.result_size = Some(size);
    }
    Ok(block)
}

/// [`measured_content`] as a map's value.
struct MeasuredContent;

impl<'de> de::DeserializeSeed<'de> for MeasuredContent {
    type Value = StrOr<TextSize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        measured_content(d)
    }
}

/// The key by which serde_json (with `raw_value`) reads an object's first entry as raw JSON
/// text, which [`ByKind`] does not imitate.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The keys of a block the summary view reads; serde_json skips the rest unread.
#[derive(Deserialize)]
struct SummaryBlock<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Str<'a>,
    #[serde(default, borrow)]
    text: Str<'a>,
    #[serde(default, borrow)]
    id: Str<'a>,
    #[serde(default, borrow)]
    name: Str<'a>,
    #[serde(default, borrow)]
    tool_use_id: Str<'a>,
    #[serde(default)]
    is_error: OptBool,
    /// A `Task` call's `input.subagent_type`: the one tool-input field the summary view keeps
    /// (a sub-agent's type is listed with the session).
    #[serde(default, borrow)]
    input: Obj<SpawnInput<'a>>,
}

#[derive(Deserialize)]
struct SpawnInput<'a> {
    #[serde(default, borrow)]
    subagent_type: Str<'a>,
}

fn take_str(m: &mut Map<String, Value>, key: &str) -> Option<Cow<'static, str>> {
    match m.get(key) {
        Some(Value::String(_)) => match m.remove(key) {
            Some(Value::String(s)) => Some(Cow::Owned(s)),
            _ => None,
        },
        _ => None,
    }
}

fn str_of(m: &Map<String, Value>, key: &str) -> Option<Cow<'static, str>> {
    m.get(key)
        .and_then(Value::as_str)
        .map(|s| Cow::Owned(s.to_string()))
}

impl Block<'_> {
    /// The full view: a block read whole, its fields moved out (no copies of big strings).
    fn from_value(v: Value) -> Self {
        let mut m = match v {
            Value::String(s) => return Block::Text(Cow::Owned(s)),
            Value::Object(m) => m,
            other => return Block::Other(crate::parse::json_kind(&other), other),
        };
        let kind = m.get("type").and_then(Value::as_str).map(str::to_string);
        let mut b = BlockObj {
            is_error: m.get("is_error").and_then(Value::as_bool),
            ..BlockObj::default()
        };
        match kind.as_deref() {
            Some("text") => b.text = take_str(&mut m, "text"),
            Some("thinking") => b.thinking = take_str(&mut m, "thinking").map(Cow::into_owned),
            Some("redacted_thinking") => {}
            Some("tool_use") => {
                b.id = str_of(&m, "id");
                b.name = str_of(&m, "name");
                b.input = m.remove("input").unwrap_or(Value::Null);
            }
            Some("tool_result") => {
                b.tool_use_id = str_of(&m, "tool_use_id");
                b.result = m.remove("content");
            }
            Some("image") => {
                b.media_type = str_of(&m, "media_type");
                b.source = m.remove("source");
            }
            _ => {
                b.text = str_of(&m, "text");
                b.raw = Value::Object(m);
            }
        }
        b.kind = kind.map(Cow::Owned);
        Block::Obj(b)
    }
}
