//! Compactions: what trace each left, its figures and their provenance, and its JSON record.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Agent, serialize_time};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    Auto,
    Manual,
    #[default]
    Unknown,
}

/// What trace a compaction left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionKind {
    /// Claude `system/compact_boundary` (+ `isCompactSummary`).
    ClaudeBoundary,
    /// Claude `system/microcompact_boundary`: old tool results cleared from the context, no
    /// summary (`microcompactMetadata`: trigger, `preTokens`, `tokensSaved`, the cleared tool
    /// ids). Like Gemini masking, not a compaction a replay validates.
    ClaudeMicrocompact,
    /// Codex `compacted` line (+ `context_compacted` event).
    CodexCompacted,
    /// Gemini `$set.messages` checkpoint (or saved chat) holding a `<state_snapshot>`.
    GeminiSnapshot,
    /// Gemini experimental context manager JSON-object snapshot (reported, not replayed).
    GeminiJsonSnapshot,
    /// Gemini `info` message only ("Context compressed from X% to Y%." and older forms).
    GeminiInfo,
    /// Gemini tool-output masking (`<tool_output_masked>`).
    GeminiMasking,
    /// Legacy Gemini: compression continued the session in a new file.
    GeminiNewFile,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    Recorded,
    Estimated,
    #[default]
    Unknown,
}

/// Serialised by hand, through `CompactionRecord` (`show`/`export` JSON): each figure with the
/// provenance [`Compaction::before_provenance`]/[`Compaction::after_provenance`] give it, the
/// rule the `compactions` ledger follows too.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Compaction {
    pub kind: CompactionKind,
    pub timestamp: Option<DateTime<Utc>>,
    pub trigger: Trigger,
    /// Index into [`Session::messages`](super::Session::messages) of the first message after
    /// the compaction.
    pub message_index: usize,
    /// Number of [`Session::requests`](super::Session::requests) made before the compaction.
    pub request_index: usize,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    /// Provenance of `tokens_before` (and of `tokens_after`, unless `after_provenance` says
    /// otherwise).
    pub tokens_provenance: Provenance,
    /// Set when `tokens_after` was obtained differently from `tokens_before` (e.g. Codex: the
    /// prompt before was recorded, the size after estimated from the replacement history).
    #[serde(default)]
    pub after_provenance: Option<Provenance>,
    /// Percentages from Gemini's "Context compressed from X% to Y%." notice.
    #[serde(default)]
    pub percent_before: Option<u32>,
    #[serde(default)]
    pub percent_after: Option<u32>,
    pub duration_ms: Option<u64>,
    pub summary: Option<String>,
    /// History messages the compaction replaced / kept, when the trace records them.
    pub messages_before: Option<usize>,
    pub messages_after: Option<usize>,
    /// `<state_snapshot>` section tags present in the summary (Gemini).
    #[serde(default)]
    pub sections: Vec<String>,
    /// Everything else the trace carried (Claude `compactMetadata`, Codex window ids, …).
    #[serde(default)]
    pub extra: Value,
    /// The id of the record the compaction is, where its trace is a record of its own with
    /// one (a Claude `compact_boundary`'s uuid): it names the compaction in every file that
    /// holds it, a resumed session's copy under its new session id included.
    #[serde(default)]
    pub record_id: Option<String>,
}

impl Compaction {
    /// Where `tokens_before` came from; `Unknown` when there is no figure (a provenance never
    /// vouches for a number that is not there).
    pub fn before_provenance(&self) -> Provenance {
        match self.tokens_before {
            Some(_) => self.tokens_provenance,
            None => Provenance::Unknown,
        }
    }

    /// `tokens_before` when the agent wrote it. An estimate (a Gemini snapshot's: the log's
    /// text, no system prompt) can be a small fraction of the prompt the agent sent, so it is
    /// neither priced nor compared as the agent's own figure.
    pub fn recorded_before(&self) -> Option<u64> {
        self.tokens_before
            .filter(|_| self.before_provenance() == Provenance::Recorded)
    }

    /// Where `tokens_after` came from: a Claude boundary with `preTokens` but no `postTokens`
    /// recorded only the figure before, so the one after is `Unknown`, not `Recorded`.
    pub fn after_provenance(&self) -> Provenance {
        match self.tokens_after {
            Some(_) => self.after_provenance.unwrap_or(self.tokens_provenance),
            None => Provenance::Unknown,
        }
    }

    pub fn new(kind: CompactionKind) -> Self {
        Compaction {
            kind,
            timestamp: None,
            trigger: Trigger::Unknown,
            message_index: 0,
            request_index: 0,
            tokens_before: None,
            tokens_after: None,
            tokens_provenance: Provenance::Unknown,
            after_provenance: None,
            percent_before: None,
            percent_after: None,
            duration_ms: None,
            summary: None,
            messages_before: None,
            messages_after: None,
            sections: Vec::new(),
            extra: Value::Null,
            record_id: None,
        }
    }

    /// What tells this compaction of session `session` from the others among all the files
    /// read, so that one held by several (checkpoint copies, a resumed session's copy) counts
    /// once: its record's id where it has one, else the session, time, kind and size; `None`
    /// without either an id or a time (nothing tells such events apart).
    pub fn identity<'a>(&'a self, agent: Agent, session: &'a str) -> Option<CompactionId<'a>> {
        match (&self.record_id, self.timestamp) {
            (Some(id), _) => Some(CompactionId::Record(agent, id)),
            (None, Some(t)) => Some(CompactionId::Event(
                agent,
                session,
                t,
                self.kind,
                self.tokens_before,
            )),
            (None, None) => None,
        }
    }
}

/// [`Compaction::identity`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CompactionId<'a> {
    Record(Agent, &'a str),
    Event(Agent, &'a str, DateTime<Utc>, CompactionKind, Option<u64>),
}

/// `compactions[]` in `show`/`export --format json|jsonl` (docs/json.md). The model's
/// `tokens_provenance` covers both figures and can outlive a missing one; here a provenance
/// never vouches for a `null`.
#[derive(Serialize)]
struct CompactionRecord<'a> {
    kind: CompactionKind,
    #[serde(serialize_with = "serialize_time")]
    timestamp: Option<DateTime<Utc>>,
    trigger: Trigger,
    message_index: usize,
    request_index: usize,
    tokens_before: Option<u64>,
    tokens_after: Option<u64>,
    /// Kept for scripts written against it: the provenance of `tokens_before`.
    tokens_provenance: Provenance,
    tokens_before_provenance: Provenance,
    tokens_after_provenance: Provenance,
    #[serde(skip_serializing_if = "Option::is_none")]
    percent_before: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    percent_after: Option<u32>,
    duration_ms: Option<u64>,
    summary: &'a Option<String>,
    messages_before: Option<usize>,
    messages_after: Option<usize>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    sections: &'a [String],
    #[serde(skip_serializing_if = "Value::is_null")]
    extra: &'a Value,
}

impl Serialize for Compaction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let before = self.before_provenance();
        CompactionRecord {
            kind: self.kind,
            timestamp: self.timestamp,
            trigger: self.trigger,
            message_index: self.message_index,
            request_index: self.request_index,
            tokens_before: self.tokens_before,
            tokens_after: self.tokens_after,
            tokens_provenance: before,
            tokens_before_provenance: before,
            tokens_after_provenance: self.after_provenance(),
            percent_before: self.percent_before,
            percent_after: self.percent_after,
            duration_ms: self.duration_ms,
            summary: &self.summary,
            messages_before: self.messages_before,
            messages_after: self.messages_after,
            sections: &self.sections,
            extra: &self.extra,
        }
        .serialize(s)
    }
}
