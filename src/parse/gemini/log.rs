//! The JSONL event log engine: upserts, checkpoints, rewinds, compaction traces, and the
//! final assembly of the session.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::content::{
    Ctx, build_parts, collect_response_ids, content_text, has_function_response, masked_keys,
};
use super::records::{CallIn, Counts, LineIn, ListOr, MessagesIn, MetaIn, MsgIn, Rec};
use super::{ENV_CONTEXT_ID, Ident, SNAPSHOT_TAG};
use crate::diag::{Warning, WarningKind};
use crate::model::{
    Agent, Compaction, CompactionKind, Message, ModelNames, Part, Provenance, Request, Role,
    Session, SessionKind, Trigger, Usage,
};
use crate::parse::{self, parse_time, str_field};

mod compaction;

#[cfg(test)]
pub(super) use compaction::parse_info;
use compaction::{json_snapshot_sections, snapshot_event};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    None,
    Summary,
    Ack,
}

pub(super) struct Entry {
    pub(super) id: String,
    /// The id was made up by the parser (saved chats, records without `id`).
    pub(super) synthetic_id: bool,
    /// The record, with later upserts overlaid field by field.
    pub(super) rec: Rec,
    /// The counts of the last `tokens` object recorded for this id.
    pub(super) tokens: Option<Counts>,
    /// First recorded timestamp (when it happened).
    pub(super) timestamp: Option<DateTime<Utc>>,
    pub(super) live: bool,
    pub(super) superseded: bool,
    /// First seen inside a `$set.messages` checkpoint: a re-recording of history.
    pub(super) from_checkpoint: bool,
    pub(super) mark: Mark,
}

impl Entry {
    pub(super) fn typ(&self) -> &str {
        self.rec.str("type").unwrap_or("")
    }

    pub(super) fn is_history(&self) -> bool {
        matches!(self.typ(), "user" | "gemini")
    }

    pub(super) fn text(&self) -> String {
        content_text(self.rec.get("content"))
    }
}

enum Slot {
    Msg(usize),
    Marker(usize),
}

pub(super) struct Log {
    pub(super) session: Session,
    stem: String,
    pub(super) ident: Ident,
    pub(super) entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    /// Live message ids in insertion order (JS `Map` semantics).
    live: Vec<usize>,
    /// Output order: messages as first seen, with compaction markers between them.
    slots: Vec<Slot>,
    session_id: Option<String>,
    project_hash: Option<String>,
    kind: Option<String>,
    events: Vec<Compaction>,
    /// Snapshot event of the latest checkpoint, until the next user/model message.
    recent_snapshot: Option<usize>,
    /// A `/compress` command was the last user/model message.
    compress_pending: bool,
    /// Function responses already seen masked (by call id or content hash).
    masked: HashSet<String>,
    /// Hashes of summaries already turned into events (re-listed snapshots are not new).
    summaries: HashSet<u64>,
    /// Call ids answered by functionResponse parts in user messages (v0.44+).
    fr_ids: HashSet<String>,
    lines: u64,
    /// Lines that are Gemini records: metadata, patches, rewinds, message records.
    own: u64,
    /// Tool bodies were read as skeletons (summary view).
    pub(super) skeletons: bool,
    /// A `$set.messages` checkpoint was read: its estimates need the bodies.
    checkpoints: bool,
    /// The file was read as one legacy document, not as a log.
    pub(super) document: bool,
}

impl Log {
    pub(super) fn new(path: &Path, stem: &str, ident: Ident) -> Self {
        Log {
            session: Session::new(Agent::Gemini, stem, path),
            stem: stem.to_string(),
            ident,
            entries: Vec::new(),
            by_id: HashMap::default(),
            live: Vec::new(),
            slots: Vec::new(),
            session_id: None,
            project_hash: None,
            kind: None,
            events: Vec::new(),
            recent_snapshot: None,
            compress_pending: false,
            masked: HashSet::default(),
            summaries: HashSet::default(),
            fr_ids: HashSet::default(),
            lines: 0,
            own: 0,
            skeletons: false,
            checkpoints: false,
            document: false,
        }
    }

    pub(super) fn has_metadata(&self) -> bool {
        self.session_id.is_some() && self.project_hash.is_some()
    }

    pub(super) fn warn(&mut self, kind: WarningKind, line: Option<u64>, msg: String) {
        let w = Warning::new(kind, &self.session.path, line.filter(|l| *l > 0), msg);
        self.session.warnings.push(w);
    }

    /// A time field of the record on `line`; one that holds something else is said, not
    /// skipped in silence.
    /// `what` names the field in a warning: built only when there is one to give.
    fn time<W: AsRef<str>>(
        &mut self,
        v: Option<&Value>,
        line: u64,
        what: impl FnOnce() -> W,
    ) -> Option<DateTime<Utc>> {
        v.map_or(Ok(None), parse::read_time).unwrap_or_else(|bad| {
            let what = what();
            let w = bad.warning(
                &self.session.path,
                Some(line).filter(|l| *l > 0),
                what.as_ref(),
            );
            self.session.warnings.push(w);
            None
        })
    }

    /// Lines that were JSON objects.
    pub(super) fn lines_seen(&self) -> u64 {
        self.lines
    }

    /// Lines that were Gemini records (positive evidence the file is a Gemini session).
    pub(super) fn own_records(&self) -> u64 {
        self.own
    }

    pub(super) fn line(&mut self, line: u64, rec: LineIn) {
        self.lines += 1;
        match rec {
            LineIn::Rewind(target) => {
                self.own += 1;
                self.rewind(line, &target);
            }
            LineIn::Set(Ok(o)) => {
                self.own += 1;
                self.set(line, *o);
            }
            LineIn::Set(Err(kind)) => {
                self.own += 1;
                self.warn(
                    WarningKind::UnexpectedRecord,
                    Some(line),
                    format!("`$set` holds a JSON {kind}, not an object"),
                );
            }
            LineIn::Metadata(m) => {
                self.own += 1;
                self.metadata(line, *m);
            }
            LineIn::Message(m) => {
                if is_message_type(m.rec.str("type")) {
                    self.own += 1;
                }
                let id = m.id.clone().unwrap_or_default();
                self.message(line, id, m, false);
            }
            LineIn::Other(kind) => self.session.note_other_parts(&["gemini:", &kind]),
        }
    }

    /// A metadata line or a whole `ConversationRecord`: merge it, load its `messages[]`.
    pub(super) fn metadata(&mut self, line: u64, mut meta: MetaIn) {
        let messages = meta.messages.take();
        self.patch_metadata(line, &meta);
        match messages {
            Some(Some(MessagesIn::List(items))) => {
                for (k, item) in items.into_iter().enumerate() {
                    match item {
                        Ok(m) => {
                            let (id, synth) = match &m.id {
                                Some(id) => (id.clone(), false),
                                None => (format!("{}#{k}", self.stem), true),
                            };
                            let idx = self.message(line, id, m, false);
                            if synth {
                                self.entries[idx].synthetic_id = true;
                            }
                        }
                        Err(kind) => self.warn(
                            WarningKind::UnexpectedRecord,
                            Some(line),
                            format!("messages[{k}] is a JSON {kind}"),
                        ),
                    }
                }
            }
            None | Some(None) => {}
            Some(Some(MessagesIn::Not(kind))) => self.warn(
                WarningKind::UnexpectedRecord,
                Some(line),
                format!("`messages` is a JSON {kind}"),
            ),
        }
    }

    fn patch_metadata(&mut self, line: u64, m: &MetaIn) {
        let s = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).map(str::to_string);
        if let Some(x) = s(&m.session_id) {
            // Gemini CLI's loader merges a later id over the first, as this does; but a file
            // whose records name two sessions (two documents written one after the other)
            // is worth a warning, or the first session is silently read as the second.
            if let Some(first) = self.session_id.as_ref().filter(|first| **first != x) {
                let msg = format!(
                    "`sessionId` changes from {first:?} to {x:?}: records of two sessions in \
                     one file, read as one session under the later id"
                );
                self.warn(WarningKind::UnexpectedRecord, Some(line), msg);
            }
            self.session_id = Some(x);
        }
        if let Some(x) = s(&m.project_hash) {
            self.project_hash = Some(x);
        }
        if let Some(x) = s(&m.kind) {
            self.kind = Some(x);
        }
        if let Some(x) = s(&m.summary).filter(|x| !x.trim().is_empty()) {
            self.session.title = Some(x.trim().to_string());
            self.session.title_is_explicit = true;
        }
        for (v, field) in [
            (&m.start_time, "`startTime`"),
            (&m.last_updated, "`lastUpdated`"),
        ] {
            if let Some(t) = self.time(v.as_ref(), line, || field) {
                self.session.note_time(t);
            }
        }
    }

    fn set(&mut self, line: u64, mut o: MetaIn) {
        let messages = o.messages.take();
        self.patch_metadata(line, &o);
        // Warned about, if need be, with the other metadata.
        let ts = o.last_updated.as_ref().and_then(parse_time);
        match messages {
            Some(Some(MessagesIn::List(items))) => {
                self.checkpoints = true;
                self.checkpoint(line, items, ts)
            }
            None | Some(None) => {}
            Some(Some(MessagesIn::Not(kind))) => self.warn(
                WarningKind::UnexpectedRecord,
                Some(line),
                format!("`$set.messages` is a JSON {kind}, not an array"),
            ),
        }
    }

    /// Upsert one message record. Returns its entry index.
    pub(super) fn message(
        &mut self,
        line: u64,
        id: String,
        m: MsgIn,
        in_checkpoint: bool,
    ) -> usize {
        let MsgIn {
            timestamp,
            tokens,
            rec,
            ..
        } = m;
        let odd = tokens.as_ref().filter(|t| t.odd.is_some());
        for (field, odd, read) in odd.into_iter().flat_map(Counts::odd_counts) {
            let what = format!("`tokens.{field}` of message {id}");
            self.warn(
                WarningKind::UnexpectedRecord,
                Some(line),
                crate::parse::json::odd_count(&what, odd, read),
            );
        }
        // `toolCalls` of another shape than an array is nothing this parser can read: said, not
        // skipped in silence.
        if let Some(ListOr::Not(kind)) = rec.tool_calls {
            self.warn(
                WarningKind::UnexpectedRecord,
                Some(line),
                format!("`toolCalls` of message {id} is a JSON {kind}, not an array: not read"),
            );
        }
        // A call's time dates its results (content.rs), read when the session is built: the
        // line is known only here.
        for (k, c) in rec.tool_call_list().iter().enumerate() {
            let CallIn::Call(c) = c else { continue };
            if let Some(Err(bad)) = c.timestamp.as_ref().map(parse::read_time) {
                let what = format!("`toolCalls[{k}].timestamp` of message {id}");
                let w = bad.warning(&self.session.path, Some(line).filter(|l| *l > 0), &what);
                self.session.warnings.push(w);
            }
        }
        let ts = self.time(timestamp.as_ref(), line, || {
            format!("`timestamp` of message {id}")
        });
        if let Some(t) = ts {
            self.session.note_time(t);
        }
        if let Some(m) = rec.str("model") {
            self.session.note_model(m);
        }
        if rec.str("type") == Some("user") {
            collect_response_ids(rec.get("content"), &mut self.fr_ids);
        }
        let (idx, is_new) = match self.by_id.get(&id) {
            Some(&i) => {
                let e = &mut self.entries[i];
                e.rec.overlay(rec);
                if tokens.is_some() {
                    e.tokens = tokens;
                }
                if e.timestamp.is_none() {
                    e.timestamp = ts;
                }
                if !e.live {
                    e.live = true;
                    e.superseded = false;
                    self.live.push(i);
                }
                (i, false)
            }
            None => {
                let i = self.entries.len();
                self.entries.push(Entry {
                    id: id.clone(),
                    synthetic_id: false,
                    rec,
                    tokens,
                    timestamp: ts,
                    live: true,
                    superseded: false,
                    from_checkpoint: in_checkpoint,
                    mark: Mark::None,
                });
                self.by_id.insert(id, i);
                self.slots.push(Slot::Msg(i));
                self.live.push(i);
                (i, true)
            }
        };
        if is_new {
            let typ = self.entries[idx].typ().to_string();
            if !matches!(
                typ.as_str(),
                "user" | "gemini" | "info" | "error" | "warning"
            ) {
                let kind = if typ.is_empty() {
                    "untyped"
                } else {
                    typ.as_str()
                };
                self.session.note_other(&format!("gemini:{kind}"));
            }
            if !in_checkpoint {
                self.trace_line(line, idx, &typ);
            }
        }
        idx
    }

    fn rewind(&mut self, line: u64, target: &Value) {
        let Some(t) = target.as_str() else {
            self.warn(
                WarningKind::UnexpectedRecord,
                Some(line),
                format!(
                    "`$rewindTo` holds a JSON {}, not an id",
                    parse::json_kind(target)
                ),
            );
            return;
        };
        let from = match self.live.iter().position(|&i| self.entries[i].id == t) {
            Some(p) => p,
            None => {
                self.warn(
                    WarningKind::Inconsistent,
                    Some(line),
                    format!("`$rewindTo` names unknown message {t}: every message removed"),
                );
                0
            }
        };
        for i in self.live.split_off(from) {
            self.entries[i].live = false;
            self.entries[i].superseded = true;
        }
        self.recent_snapshot = None;
        self.compress_pending = false;
    }

    /// `$set.messages`: the live history is replaced by `items`.
    fn checkpoint(
        &mut self,
        line: u64,
        items: Vec<Result<MsgIn, &'static str>>,
        ts: Option<DateTime<Utc>>,
    ) {
        let old_live = self.live.clone();
        let old_hist: Vec<usize> = old_live
            .iter()
            .copied()
            .filter(|&i| self.entries[i].is_history())
            .collect();
        let tokens_before = self.estimate(&old_hist);
        let marker_pos = self.slots.len();

        let mut new_live: Vec<usize> = Vec::new();
        let mut keep: HashSet<usize> = HashSet::default();
        for (k, item) in items.into_iter().enumerate() {
            let m = match item {
                Ok(m) => m,
                Err(kind) => {
                    self.warn(
                        WarningKind::UnexpectedRecord,
                        Some(line),
                        format!("`$set.messages[{k}]` is a JSON {kind}"),
                    );
                    continue;
                }
            };
            let (id, synth) = match &m.id {
                Some(id) => (id.clone(), false),
                None => (format!("{}:{line}:{k}", self.stem), true),
            };
            let idx = self.message(line, id, m, true);
            if synth {
                self.entries[idx].synthetic_id = true;
            }
            if keep.insert(idx) {
                new_live.push(idx);
            }
        }
        for &i in &old_live {
            if !keep.contains(&i) {
                self.entries[i].live = false;
                self.entries[i].superseded = true;
            }
        }
        for &i in &new_live {
            self.entries[i].live = true;
            self.entries[i].superseded = false;
        }
        self.live = new_live.clone();

        let new_hist: Vec<usize> = new_live
            .iter()
            .copied()
            .filter(|&i| self.entries[i].is_history())
            .collect();
        let tokens_after = self.estimate(&new_hist);
        let mut markers = Vec::new();

        for w in 0..new_live.len() {
            let Some((i, kind, text)) = self.claim_snapshot(&new_live, w) else {
                continue;
            };
            let mut c = snapshot_event(kind, &text);
            c.timestamp = ts.or(self.entries[i].timestamp);
            if self.compress_pending {
                c.trigger = Trigger::Manual;
            }
            c.messages_before = Some(old_hist.len());
            c.messages_after = Some(new_hist.len());
            c.tokens_before = Some(tokens_before);
            c.tokens_after = Some(tokens_after);
            c.tokens_provenance = Provenance::Estimated;
            c.extra = serde_json::json!({ "checkpoint_line": line });
            self.events.push(c);
            let ci = self.events.len() - 1;
            markers.push(ci);
            self.recent_snapshot = Some(ci);
        }

        // Tool-output masking: function responses newly replaced by a masked preview.
        let mut fresh: Vec<String> = Vec::new();
        for &i in &new_live {
            for key in masked_keys(&self.entries[i].rec) {
                if !self.masked.contains(&key) && !fresh.contains(&key) {
                    fresh.push(key);
                }
            }
        }
        if !fresh.is_empty() {
            let mut c = Compaction::new(CompactionKind::GeminiMasking);
            c.timestamp = ts;
            c.trigger = Trigger::Auto;
            c.messages_before = Some(old_hist.len());
            c.messages_after = Some(new_hist.len());
            c.tokens_before = Some(tokens_before);
            c.tokens_after = Some(tokens_after);
            c.tokens_provenance = Provenance::Estimated;
            c.extra = serde_json::json!({
                "checkpoint_line": line,
                "masked_outputs": fresh.len(),
                "masked_call_ids": fresh.clone(),
            });
            self.masked.extend(fresh);
            self.events.push(c);
            markers.push(self.events.len() - 1);
        }
        for (k, ci) in markers.into_iter().enumerate() {
            self.slots.insert(marker_pos + k, Slot::Marker(ci));
        }
    }

    /// The session, unless it was read with skeleton bodies and a compaction event needs the
    /// bodies for its token estimates (a checkpoint, or a snapshot outside one).
    pub(super) fn finish_view(self) -> super::View {
        let needs_bodies = self.skeletons
            && (self.checkpoints
                || self.entries.iter().any(|e| {
                    e.typ() == "user" && {
                        let text = e.text();
                        text.contains(SNAPSHOT_TAG) || json_snapshot_sections(&text).is_some()
                    }
                }));
        if needs_bodies {
            super::View::NeedsBodies
        } else {
            super::View::Done(self.finish())
        }
    }

    pub(super) fn finish(mut self) -> Session {
        self.detect_loose_snapshots();
        let mut s = std::mem::replace(&mut self.session, Session::new(Agent::Gemini, "", ""));
        s.project_hash = self.project_hash.clone();
        if self.kind.as_deref() == Some("subagent") {
            s.kind = SessionKind::Subagent;
        }
        match &self.ident {
            Ident::Main => {
                s.id = self.session_id.clone().unwrap_or_else(|| self.stem.clone());
            }
            Ident::Subagent { parent } => {
                s.id = self.stem.clone();
                s.kind = SessionKind::Subagent;
                s.parent_id = Some(parent.clone());
            }
            Ident::SavedChat { tag } => {
                s.id = self.stem.clone();
                s.title = Some(format!("saved chat {tag}"));
                s.title_is_explicit = true;
            }
        }

        let mut status: HashMap<String, String> = HashMap::default();
        let mut tool_results = false;
        for e in &self.entries {
            for c in e.rec.calls() {
                if let (Some(id), Some(st)) = (&c.id, &c.status) {
                    status.insert(id.clone(), st.clone());
                }
                tool_results |= c.result.as_ref().is_some_and(|r| !r.is_null());
            }
        }
        if !matches!(self.ident, Ident::SavedChat { .. }) {
            s.gemini_layout = Some(crate::model::GeminiLayout {
                document: self.document,
                checkpoints: self.checkpoints || !self.fr_ids.is_empty(),
                tool_results,
            });
        }
        let mut ctx = Ctx {
            fr_ids: &self.fr_ids,
            status: &status,
            pending: Vec::new(),
        };
        let mut events: Vec<Option<Compaction>> = self.events.drain(..).map(Some).collect();
        let mut models = ModelNames::default();
        for slot in &self.slots {
            match *slot {
                Slot::Marker(ci) => {
                    let Some(mut c) = events.get_mut(ci).and_then(Option::take) else {
                        continue;
                    };
                    let index = s.compactions.len();
                    let mut m = Message::new(Role::System);
                    m.subtype = Some("compaction".into());
                    m.timestamp = c.timestamp;
                    m.parts.push(Part::Compaction { index });
                    s.messages.push(m);
                    c.message_index = s.messages.len();
                    c.request_index = s.requests.len();
                    s.compactions.push(c);
                }
                Slot::Msg(i) => {
                    let e = &self.entries[i];
                    let built = build_parts(e, &mut ctx);
                    let mut m = base_message(e, &mut models);
                    m.parts = built.parts;
                    let index = s.messages.len();
                    if m.role == Role::Assistant
                        && let Some(t) = &e.tokens
                    {
                        let (usage, prompt) = usage_of(t);
                        if !usage.is_zero() {
                            m.usage = Some(Box::new(usage));
                            s.requests.push(Request {
                                timestamp: e.timestamp,
                                model: m.model.clone(),
                                usage,
                                prompt_tokens: Some(prompt),
                                message_index: Some(index),
                                dedup_key: None,
                            });
                        }
                    }
                    let superseded = m.superseded;
                    let ts = m.timestamp;
                    s.messages.push(m);
                    if !built.results.is_empty() {
                        let mut t = Message::new(Role::Tool);
                        t.timestamp = built.results_ts.or(ts);
                        t.superseded = superseded;
                        t.parts = built.results;
                        s.messages.push(t);
                    }
                }
            }
        }
        s
    }
}

/// The message for an entry, without parts: role, human flag, subtype.
fn base_message(e: &Entry, models: &mut ModelNames) -> Message {
    let typ = e.typ();
    let content = e.rec.get("content");
    let text = e.text();
    let (role, subtype, human) = match typ {
        "user" => {
            if has_function_response(content) {
                (Role::Tool, None, false)
            } else if e.mark == Mark::Summary {
                (Role::User, Some("compact_summary"), false)
            } else if e.id == ENV_CONTEXT_ID || text.trim_start().starts_with("<session_context>") {
                (Role::User, Some("environment_context"), false)
            } else if text.trim_start().starts_with("<hook_context>") {
                (Role::User, Some("hook_context"), false)
            } else if has_function_response(e.rec.get("displayContent")) {
                // A harness continuation ("System: Please continue.") shown as a tool result.
                (Role::User, Some("meta"), false)
            } else if e.from_checkpoint {
                (Role::User, Some("checkpoint_copy"), false)
            } else {
                (Role::User, None, !text.trim().is_empty())
            }
        }
        "gemini" => {
            let sub = match e.mark {
                Mark::Ack => Some("compact_ack"),
                _ if e.from_checkpoint => Some("checkpoint_copy"),
                _ => None,
            };
            (Role::Assistant, sub, false)
        }
        "info" | "error" | "warning" => (Role::System, Some(typ), false),
        "" => (Role::System, Some("unknown"), false),
        other => (Role::System, Some(other), false),
    };
    let mut m = Message::new(role);
    m.id = (!e.synthetic_id).then(|| e.id.as_str().into());
    m.timestamp = e.timestamp;
    m.model = e.rec.str("model").map(|n| models.get(n));
    m.is_human = human;
    m.superseded = e.superseded;
    m.subtype = subtype.map(Box::from);
    if human {
        // `/init` and `@file` prompts are sent expanded; the file keeps what was typed.
        let shown = content_text(e.rec.get("displayContent"));
        if !shown.trim().is_empty() && shown.trim() != text.trim() {
            m.display = Some(shown.into());
        }
    }
    m
}

/// One of the message types Gemini CLI writes.
pub(super) fn is_message_type(t: Option<&str>) -> bool {
    matches!(t, Some("user" | "gemini" | "info" | "error" | "warning"))
}

/// A message record as Gemini CLI writes it: a string `id` and one of its message types.
pub(super) fn is_message_record(o: &Map<String, Value>) -> bool {
    str_field(o, "id").is_some()
        && is_message_type(str_field(o, "type"))
        && !o.contains_key("message")
        && !o.contains_key("uuid")
}

/// Unified usage of a Gemini `tokens` object, and the prompt size (`tokens.input`).
pub(super) fn usage_of(t: &Counts) -> (Usage, u64) {
    let Counts {
        input,
        output,
        cached,
        thoughts,
        tool,
        ..
    } = *t;
    let usage = Usage {
        input: input.saturating_sub(cached).saturating_add(tool),
        output: output.saturating_add(thoughts),
        cache_read: cached,
        cache_write: 0,
        reasoning: thoughts,
        cache_write_1h: 0,
    };
    (usage, input)
}
