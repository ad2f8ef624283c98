//! The shape of a Codex rollout line, as one typed borrowed struct (formats.md §2).
//!
//! Every era writes objects from the same family: an envelope `{timestamp, type, payload}`
//! around a payload, or (bare era) the payload's fields at the top level. [`P`] declares the
//! union of the keys the parser reads — envelope, `session_meta`, `turn_context`, ResponseItems,
//! `event_msg` payloads — so one struct reads any line, and an envelope's payload is the same
//! struct again. Keys nobody reads (`encrypted_content`, `base_instructions`, rate limits,
//! `world_state`, event texts that duplicate items) are skipped unread; tool arguments are
//! skipped in [`Detail::Summary`]. The two rare kinds whose whole payload is kept
//! (`compacted`, `image_generation_call`) are re-read from the raw line.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::content::OutputError;
use crate::parse::json::{
    Body, Detail, Field, Kept, List, Num, Obj, Str, Time, Uint, boxed_record, detail,
};

boxed_record! {
    pub(super) struct P<'a> {
        // envelope
        pub kind: Str<'a> = "type",
        pub timestamp: Option<Time> = "timestamp",
        pub ordinal: Uint = "ordinal",
        pub payload: Field<Obj<Box<P<'a>>>> = "payload",
        pub record_type: Field<Str<'a>> = "record_type",
        // session_meta (and the bare-era meta line)
        pub id: Str<'a> = "id",
        pub session_id: Str<'a> = "session_id",
        pub cwd: Str<'a> = "cwd",
        pub cli_version: Str<'a> = "cli_version",
        pub git: Field<Obj<Git<'a>>> = "git",
        pub instructions: Field<IgnoredAny> = "instructions",
        pub source: Obj<Source<'a>> = "source",
        pub parent_thread_id: Str<'a> = "parent_thread_id",
        pub forked_from_id: Str<'a> = "forked_from_id",
        pub subagent_history_start_ordinal: Uint = "subagent_history_start_ordinal",
        pub history_base: Obj<HistoryBase> = "history_base",
        // turn_context
        pub model: Str<'a> = "model",
        // ResponseItems
        pub role: Str<'a> = "role",
        pub content: Option<Value> = "content",
        pub summary: Field<List<Obj<Thought<'a>>>> = "summary",
        pub call_id: Str<'a> = "call_id",
        pub name: Str<'a> = "name",
        pub namespace: Str<'a> = "namespace",
        pub arguments: Kept = "arguments",
        pub input: Kept = "input",
        pub action: Kept = "action",
        pub output: Output = "output",
        pub tools: Option<Value> = "tools",
        pub status: Str<'a> = "status",
        pub result: Body<'a> = "result",
        // event_msg payloads
        pub message: Field<Str<'a>> = "message",
        /// Pi, OpenClaw and Droid lines carry these; Codex lines never do.
        pub parent_id: Field<IgnoredAny> = "parentId",
        /// `user_message.kind` (2025): `plain`, `user_instructions`, `environment_context`.
        pub message_kind: Str<'a> = "kind",
        pub images: List<Str<'a>> = "images",
        pub local_images: Option<Value> = "local_images",
        pub item: Obj<Box<P<'a>>> = "item",
        /// Boxed: most lines have none, and every line's record is defaulted whole before it is read.
        pub info: Field<Obj<Box<Info>>> = "info",
        pub thread_name: Str<'a> = "thread_name",
        pub num_turns: Num = "num_turns",
        pub new_thread_id: Str<'a> = "new_thread_id",
        pub new_agent_role: Str<'a> = "new_agent_role",
        /// `turn_aborted`'s reason.
        pub reason: Str<'a> = "reason",
        /// `turn_context`, `task_started` and the other turn events (later builds).
        pub turn_id: Str<'a> = "turn_id",
        /// `task_complete`'s failure (`{message, codex_error_info}`).
        pub error: Obj<Box<P<'a>>> = "error",
    }
}

#[derive(Deserialize, Default)]
pub(super) struct Git<'a> {
    #[serde(default, borrow)]
    pub branch: Str<'a>,
}

#[derive(Deserialize, Default)]
pub(super) struct Source<'a> {
    /// Any value marks a sub-agent thread (`"review"`, `{"thread_spawn":…}`, …).
    #[serde(default, borrow)]
    pub subagent: Field<Obj<Subagent<'a>>>,
}

#[derive(Deserialize, Default)]
pub(super) struct Subagent<'a> {
    #[serde(default, borrow)]
    pub thread_spawn: Obj<ThreadSpawn<'a>>,
}

#[derive(Deserialize, Default)]
pub(super) struct ThreadSpawn<'a> {
    #[serde(default, borrow)]
    pub parent_thread_id: Str<'a>,
}

#[derive(Deserialize, Default)]
pub(super) struct HistoryBase {
    #[serde(default)]
    pub end_ordinal_exclusive: Uint,
}

/// A tool output: whole in [`Detail::Full`]; in [`Detail::Summary`] only whether it reports a
/// failure.
#[derive(Debug, Default)]
pub(super) enum Output {
    #[default]
    Absent,
    Full(Value),
    Summary(OutputError),
}

impl<'de> Deserialize<'de> for Output {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if detail() != Detail::Summary {
            Value::deserialize(d).map(Output::Full)
        } else {
            OutputError::deserialize(d).map(Output::Summary)
        }
    }
}

impl Output {
    /// The output as `Value` (full view), `None` when absent or `null`.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Output::Full(v) if !v.is_null() => Some(v),
            _ => None,
        }
    }
}

/// A reasoning summary part.
#[derive(Deserialize, Default)]
pub(super) struct Thought<'a> {
    #[serde(default, borrow)]
    pub text: Body<'a>,
}

/// `token_count.info`.
#[derive(Deserialize, Default)]
pub(super) struct Info {
    #[serde(default)]
    pub model_context_window: Uint,
    #[serde(default)]
    pub total_token_usage: Obj<RawTokens>,
    #[serde(default)]
    pub last_token_usage: Obj<RawTokens>,
}

/// A recorded `TokenUsage`.
#[derive(Deserialize, Default)]
pub(super) struct RawTokens {
    #[serde(default)]
    pub input_tokens: Num,
    #[serde(default)]
    pub cached_input_tokens: Num,
    #[serde(default)]
    pub cache_write_input_tokens: Num,
    #[serde(default)]
    pub output_tokens: Num,
    #[serde(default)]
    pub reasoning_output_tokens: Num,
    #[serde(default)]
    pub total_tokens: Num,
}

impl RawTokens {
    /// The counts that are no token count: field, value, count read.
    pub fn odd_counts(&self) -> Vec<(&'static str, crate::parse::json::Odd, u64)> {
        crate::parse::json::odd_counts([
            ("input_tokens", Some(self.input_tokens)),
            ("cached_input_tokens", Some(self.cached_input_tokens)),
            (
                "cache_write_input_tokens",
                Some(self.cache_write_input_tokens),
            ),
            ("output_tokens", Some(self.output_tokens)),
            (
                "reasoning_output_tokens",
                Some(self.reasoning_output_tokens),
            ),
            ("total_tokens", Some(self.total_tokens)),
        ])
    }
}

/// Rollout line kinds of the envelope era (formats.md §2.3).
const ENVELOPE_KINDS: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
];

/// ResponseItem kinds written bare before the envelope (formats.md §2.2, §2.6).
const BARE_ITEM_KINDS: &[&str] = &[
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
];

impl<'a> P<'a> {
    /// The envelope's payload, if it is an object.
    pub fn payload(&self) -> Option<&P<'a>> {
        self.payload.get().and_then(Obj::get).map(|b| &**b)
    }

    /// The line's timestamp, when it parses.
    pub fn ts(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.timestamp.as_ref().and_then(|t| t.0)
    }

    /// What the `timestamp` field held when it names no time.
    pub fn bad_ts(&self) -> Option<&crate::parse::BadTime> {
        self.timestamp.as_ref().and_then(|t| t.1.as_ref())
    }

    pub fn message(&self) -> Option<&str> {
        self.message.get().and_then(Str::get)
    }

    /// Whether this line is Codex's own: an envelope of a known kind, a bare-era meta line or
    /// state marker, or a bare ResponseItem. Positive evidence that a file is a rollout: Pi,
    /// OpenClaw and Droid also write `type:"message"` lines, around a nested `message`.
    pub fn is_codex(&self) -> bool {
        match self.kind.get() {
            Some(t) if self.payload.present() => ENVELOPE_KINDS.contains(&t),
            Some(t) => {
                BARE_ITEM_KINDS.contains(&t)
                    && !self.message.present()
                    && !self.parent_id.present()
                    && match t {
                        "message" => self.role.get().is_some() && self.content.is_some(),
                        "reasoning" => self.summary.present(),
                        _ => self.call_id.get().is_some(),
                    }
            }
            None => {
                self.record_type.get().is_some_and(|r| r.get().is_some())
                    || (self.id.get().is_some()
                        && self.timestamp.is_some()
                        && (self.instructions.present() || self.git.present()))
            }
        }
    }
}
