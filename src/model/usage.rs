//! Token usage and the requests that carry it: what every total, cost and usage report sums.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::serialize_time;

/// Unified token usage. `total = input + cache_read + cache_write + output`;
/// `reasoning` is a subset of `output` and `cache_write_1h` a subset of `cache_write`: neither
/// is ever added to the total.
///
/// Sums saturate: recorded counts come from untrusted files, and a file that claims
/// `u64::MAX` tokens must not wrap a total around to a small number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
    /// The part of `cache_write` Claude recorded as 1-hour cache
    /// (`usage.cache_creation.ephemeral_1h_input_tokens`), priced differently from 5-minute
    /// writes. 0 for the other agents.
    #[serde(default)]
    pub cache_write_1h: u64,
}

impl Usage {
    // Token arithmetic saturates: a hostile or corrupt file can record counts near u64::MAX,
    // and a saturated figure is visibly absurd where a wrapped one would look plausible.
    pub fn total(&self) -> u64 {
        self.prompt().saturating_add(self.output)
    }

    /// The prompt size this usage represents (uncached + cache read + cache write).
    pub fn prompt(&self) -> u64 {
        self.input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    pub fn is_zero(&self) -> bool {
        *self == Usage::default()
    }

    pub fn add(&mut self, other: &Usage) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.reasoning = self.reasoning.saturating_add(other.reasoning);
        self.cache_write_1h = self.cache_write_1h.saturating_add(other.cache_write_1h);
    }

    /// Per-field maximum: how streamed snapshots of one response are merged.
    pub fn max_with(&mut self, other: &Usage) {
        self.input = self.input.max(other.input);
        self.output = self.output.max(other.output);
        self.cache_read = self.cache_read.max(other.cache_read);
        self.cache_write = self.cache_write.max(other.cache_write);
        self.reasoning = self.reasoning.max(other.reasoning);
        self.cache_write_1h = self.cache_write_1h.max(other.cache_write_1h);
    }
}

/// The serialised token block of the JSON contract (`tokens` object).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
    pub total: u64,
}

impl From<Usage> for TokenTotals {
    fn from(u: Usage) -> Self {
        TokenTotals {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            reasoning: u.reasoning,
            total: u.total(),
        }
    }
}

/// One model API call with the usage the agent recorded for it, already de-duplicated within
/// the file by the parser (Claude: merged streamed pieces; Codex: `total_token_usage` deltas;
/// Gemini: last record per message id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    #[serde(serialize_with = "serialize_time")]
    pub timestamp: Option<DateTime<Utc>>,
    /// Shared with the session's messages and other requests of that model ([`ModelNames`]).
    pub model: Option<Arc<str>>,
    /// Billable usage attributed to this call (what totals sum).
    pub usage: Usage,
    /// The prompt size the agent reported for this call (Claude input + cache read + cache
    /// write; Codex `last_token_usage.input_tokens`; Gemini `tokens.input`). Used by replays.
    pub prompt_tokens: Option<u64>,
    /// Index into [`Session::messages`](super::Session::messages) of the assistant message
    /// this call produced, if known.
    pub message_index: Option<usize>,
    /// Cross-file de-duplication key (Claude `message.id` + `requestId`). Aggregates over several
    /// files count each key once. `None` means the request is unique to this file.
    pub dedup_key: Option<DedupKey>,
}

/// Model names shared between the messages and requests of a session: a long session names
/// a handful of models in 100,000 messages, and a name of its own in each would cost each an
/// allocation.
#[derive(Debug, Default)]
pub struct ModelNames(Vec<Arc<str>>);

impl ModelNames {
    /// The shared copy of `name`.
    pub fn get(&mut self, name: &str) -> Arc<str> {
        // A session names few models, most often the one named last.
        if let Some(x) = self.0.iter().rev().find(|x| x.as_ref() == name) {
            return Arc::clone(x);
        }
        let x: Arc<str> = name.into();
        self.0.push(Arc::clone(&x));
        x
    }
}

/// One model request's billable usage: the atom every usage report sums.
///
/// A [`SessionSummary`](crate::scan::SessionSummary) carries one per request of its file, in
/// file order, already de-duplicated within the file; [`crate::scan::unique_requests`] applies
/// the cross-file rules. Building them never touches message text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestUsage {
    #[serde(serialize_with = "serialize_time")]
    pub timestamp: Option<DateTime<Utc>>,
    /// Shared between the requests of a session: one allocation per distinct model.
    pub model: Option<Arc<str>>,
    /// As this file recorded it; once the scan's cross-file rules have run
    /// ([`crate::scan::count_once`]), the per-field maximum over every copy of the response
    /// for the copy that counts (a copy can be written mid-stream): what aggregates add.
    pub usage: Usage,
    /// What this file recorded, when the cross-file rules raised `usage` above it: a session's
    /// own figures (a `list` row, as `show` gives them) come from its file alone
    /// ([`RequestUsage::own_usage`]).
    #[serde(skip)]
    pub own: Option<Box<Usage>>,
    pub dedup_key: Option<DedupKey>,
    /// Whether aggregates count this request: `false` for a copy of a response that another
    /// file's copy stands for ([`crate::scan::count_once`]).
    #[serde(skip, default = "counted_by_default")]
    pub counted: bool,
}

fn counted_by_default() -> bool {
    true
}

impl RequestUsage {
    /// The atom of one request.
    pub fn of(r: &Request) -> Self {
        RequestUsage {
            timestamp: r.timestamp,
            model: r.model.clone(),
            usage: r.usage,
            own: None,
            dedup_key: r.dedup_key.clone(),
            counted: true,
        }
    }

    /// Whether this is a copy of a sub-agent's response embedded in its parent's file
    /// ([`DedupKey::copy`]): never part of that session's own figures.
    pub fn is_copy(&self) -> bool {
        self.dedup_key.as_ref().is_some_and(|k| k.copy)
    }

    /// The usage this file recorded for the request, whatever the cross-file rules counted.
    pub fn own_usage(&self) -> &Usage {
        self.own.as_deref().unwrap_or(&self.usage)
    }

    /// Raise the usage aggregates count to the per-field maximum with `other` (another copy
    /// of the response), keeping what this file recorded. Whether anything was raised.
    pub fn raise_to(&mut self, other: &Usage) -> bool {
        let mut raised = self.usage;
        raised.max_with(other);
        if raised == self.usage {
            return false;
        }
        if self.own.is_none() {
            self.own = Some(Box::new(self.usage));
        }
        self.usage = raised;
        true
    }
}

/// Usage identity: one streamed API response (Claude; a Gemini message id, set by the scan
/// for the copy rule, has no request id). Sidechain copies that replay a parent's
/// message carry the same `message_id` with a fresh `request_id`, so aggregation also treats a
/// sidechain request whose `message_id` was already seen as a duplicate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DedupKey {
    /// Shared with the parser's own tables and with the summary's copy of the request: a
    /// long session holds one key per response.
    pub message_id: Arc<str>,
    pub request_id: Option<Arc<str>>,
    pub sidechain: bool,
    /// A copy of a sub-agent's response embedded in its parent's transcript (`agent_progress`):
    /// it counts only when no other record has its key ([`crate::scan::count_once`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub copy: bool,
}
