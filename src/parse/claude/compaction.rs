//! Compaction traces: `compact_boundary` (+ the `isCompactSummary` record) and
//! `microcompact_boundary`, each a [`Compaction`] with a marker message where it happened.

use serde_json::Value;

use super::Parser;
use super::records::Rec;
use crate::model::{Compaction, CompactionKind, Message, Part, Provenance, Role, Trigger};
use crate::parse;

impl Parser<'_> {
    /// A `microcompact_boundary` (2.1.x): old tool results cleared, no summary follows. Its
    /// `microcompactMetadata` (real: `{trigger, preTokens, tokensSaved, compactedToolIds,
    /// clearedAttachmentUUIDs}`) is kept whole in `extra`; there is no recorded size after it,
    /// only the saving.
    pub(super) fn microcompaction(&mut self, rec: &Rec) {
        let mut c = Compaction::new(CompactionKind::ClaudeMicrocompact);
        c.timestamp = rec.timestamp.0;
        let meta = rec
            .microcompact_metadata
            .as_ref()
            .and_then(Value::as_object);
        c.trigger = match meta.and_then(|m| m.get("trigger")).and_then(Value::as_str) {
            Some("auto") => Trigger::Auto,
            Some("manual") => Trigger::Manual,
            _ => Trigger::Unknown,
        };
        c.tokens_before = meta
            .and_then(|m| m.get("preTokens"))
            .and_then(recorded_number);
        if c.tokens_before.is_some() {
            c.tokens_provenance = Provenance::Recorded;
        }
        if let Some(m) = meta.filter(|m| !m.is_empty()) {
            c.extra = Value::Object(m.clone());
        }
        self.push_compaction(c, rec, true);
    }

    /// Append compaction `c` at this point of the message list, after its marker message.
    fn push_compaction(&mut self, mut c: Compaction, rec: &Rec, own_record: bool) -> usize {
        c.request_index = self.s.requests.len();
        let ci = self.s.compactions.len();
        let mut marker = Message::new(Role::System);
        marker.subtype = Some("compaction".into());
        marker.parts.push(Part::Compaction { index: ci });
        marker.timestamp = c.timestamp;
        marker.sidechain = rec.is_sidechain.0;
        if own_record {
            marker.id = rec.uuid.get().map(Box::from);
            c.record_id = rec.uuid.owned();
        }
        self.s.messages.push(marker);
        c.message_index = self.s.messages.len();
        self.s.compactions.push(c);
        ci
    }

    /// Open a compaction event at this point of the message list and insert its marker
    /// message. `boundary`: the record is a `compact_boundary` (else an orphan summary).
    pub(super) fn start_compaction(&mut self, rec: &Rec, boundary: bool) -> usize {
        let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
        c.timestamp = rec.timestamp.0;
        if boundary {
            let meta = rec.compact_metadata.as_ref().and_then(Value::as_object);
            let trigger = meta
                .and_then(|m| m.get("trigger"))
                .and_then(Value::as_str)
                .or_else(|| rec.trigger.get());
            c.trigger = match trigger {
                Some("auto") => Trigger::Auto,
                Some("manual") => Trigger::Manual,
                _ => Trigger::Unknown,
            };
            let number = |k: &str| meta.and_then(|m| m.get(k)).and_then(recorded_number);
            c.tokens_before = number("preTokens");
            c.tokens_after = number("postTokens");
            c.duration_ms = number("durationMs");
            if c.tokens_before.is_some() || c.tokens_after.is_some() {
                c.tokens_provenance = Provenance::Recorded;
            }
            let mut extra = meta.cloned().unwrap_or_default();
            if let Some(l) = rec.logical_parent_uuid.nonempty() {
                extra
                    .entry("logicalParentUuid")
                    .or_insert_with(|| Value::from(l));
            }
            if !extra.is_empty() {
                c.extra = Value::Object(extra);
            }
        }
        self.push_compaction(c, rec, boundary)
    }
}

/// A recorded number (or numeric string); `None` when absent or not a number.
fn recorded_number(v: &Value) -> Option<u64> {
    match v {
        Value::Number(_) => Some(parse::u64_of(Some(v))),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
}
