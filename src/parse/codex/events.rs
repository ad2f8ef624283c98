//! The events of a Codex rollout (`event_msg`), into the builder: token counts and the
//! requests they make, rollbacks, and compactions.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::model::{
    Compaction, CompactionKind, Message, Part, Request, Role, SessionKind, SubagentLink, Trigger,
};
use crate::parse::json::Obj as JsonObj;
use crate::parse::str_field;
use crate::tokens;

use super::content::{collect_text, content_parts, harness_kind, image_from_url};
use super::records::P;
use super::{Builder, Obj, OpenCompaction, PromptSource, Raw};

impl Builder {
    pub(super) fn event(&mut self, p: &P, ts: Option<DateTime<Utc>>) {
        let ty = p.kind.get().unwrap_or("");
        match ty {
            "user_message" => {
                let text = p.message().unwrap_or("");
                let harness = match p.message_kind.get() {
                    Some("environment_context") => Some("environment_context"),
                    Some("user_instructions") => Some("instructions"),
                    _ => harness_kind(text),
                };
                if let Some(kind) = harness {
                    let parts = vec![Part::Text {
                        text: text.to_string(),
                    }];
                    self.harness_user(kind, text, parts, ts, None, true);
                    return;
                }
                let mut images = Vec::new();
                for u in p.images.0.iter().filter_map(|u| u.get()) {
                    images.push(image_from_url(Some(u)));
                }
                if let Some(Value::Array(paths)) = &p.local_images {
                    for path in paths {
                        images.push(Part::Unknown {
                            kind: "local_image".to_string(),
                            raw: path.clone(),
                        });
                    }
                }
                let src = PromptSource {
                    turn_id: p.turn_id.filled(),
                    ..PromptSource::default()
                };
                self.user_event(text, images, ts, src);
            }
            "item_completed" => match p.item.get() {
                Some(it) if it.kind.is("UserMessage") => {
                    let parts = content_parts(it.content.as_ref());
                    let text = crate::model::text_of(&parts);
                    let images: Vec<Part> = parts
                        .into_iter()
                        .filter(|p| !matches!(p, Part::Text { .. }))
                        .collect();
                    let src = PromptSource {
                        item_id: it.id.get(),
                        turn_id: p.turn_id.filled(),
                        from_item: true,
                    };
                    self.user_event(&text, images, ts, src);
                }
                _ => self.other("item_completed"),
            },
            "token_count" => self.token_count(p, ts, ts.map(|t| t.timestamp()), false),
            "task_started" | "turn_started" => {
                if let Some(t) = p.turn_id.filled() {
                    self.turn_id = Some(t.to_string());
                }
                self.other(ty);
            }
            "thread_name_updated" => {
                if let Some(name) = p
                    .thread_name
                    .get()
                    .or_else(|| p.name.get())
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                {
                    self.s.title = Some(name.to_string());
                    self.s.title_is_explicit = true;
                }
            }
            "context_compacted" => self.context_compacted(ts),
            "thread_rolled_back" => self.rolled_back(p.num_turns.get() as usize),
            "collab_agent_spawn_end" => {
                if let Some(child) = p.new_thread_id.filled()
                    && !self.s.subagents.iter().any(|l| l.id == child)
                {
                    self.s.subagents.push(SubagentLink {
                        id: child.to_string(),
                        tool_call_id: p.call_id.owned(),
                        path: None,
                        agent_type: p.new_agent_role.owned(),
                    });
                }
                self.other(ty);
            }
            // Why a turn has no answer: kept in the transcript, as Gemini's errors are.
            "error" => self.notice("error", p.message(), ts),
            "turn_aborted" => {
                let why = p.reason.filled().unwrap_or("no reason recorded");
                self.notice("turn_aborted", Some(&format!("Turn aborted: {why}")), ts);
            }
            "task_complete" => match p.error.get().and_then(|e| e.message()) {
                Some(m) => self.notice("error", Some(m), ts),
                None => self.other(ty),
            },
            "" => self.other("event_msg"),
            other => self.other(other),
        }
    }

    /// A harness notice (`subtype`) as a system message; an empty one is only tallied.
    fn notice(&mut self, subtype: &str, text: Option<&str>, ts: Option<DateTime<Utc>>) {
        let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
            self.other(subtype);
            return;
        };
        let mut m = Message::new(Role::System);
        m.timestamp = ts;
        m.subtype = Some(subtype.into());
        m.parts.push(Part::Text {
            text: text.to_string(),
        });
        self.push_msg(m);
    }

    pub(super) fn rolled_back(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let humans: Vec<usize> = self
            .s
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_human && !m.superseded)
            .map(|(i, _)| i)
            .collect();
        let Some(&start) = humans.get(humans.len().saturating_sub(n)) else {
            return;
        };
        for m in &mut self.s.messages[start..] {
            m.superseded = true;
        }
        self.open_asst = None;
        self.open_tool = None;
    }

    /// `second`: epoch second of the line, for the rule-4 lead check.
    pub(super) fn token_count(
        &mut self,
        p: &P,
        ts: Option<DateTime<Utc>>,
        second: Option<i64>,
        replayed: bool,
    ) {
        let Some(info) = p.info.get().and_then(JsonObj::get) else {
            self.other("rate_limits");
            return;
        };
        if let Some(w) = info.model_context_window.0.filter(|w| *w > 0)
            && !replayed
        {
            self.s.context_window = Some(w);
        }
        for (name, t) in [
            ("total_token_usage", info.total_token_usage.get()),
            ("last_token_usage", info.last_token_usage.get()),
        ] {
            for (field, odd, read) in t.map(|t| t.odd_counts()).unwrap_or_default() {
                let what = format!("`info.{name}.{field}`");
                self.warn(
                    self.line_no,
                    crate::parse::json::odd_count(&what, odd, read),
                );
            }
        }
        let total = info.total_token_usage.get().map(Raw::of);
        let last = info.last_token_usage.get().map(Raw::of);
        let delta = match (total, self.prev_total) {
            (Some(t), Some(prev)) if t == prev => {
                if !replayed {
                    self.other("token_count_duplicate");
                }
                return;
            }
            (Some(t), Some(prev)) if t.decreased_from(&prev) => last.unwrap_or(t),
            (Some(t), Some(prev)) => t.minus(&prev),
            (Some(t), None) => t,
            (None, _) => match last {
                Some(l) => l,
                None => {
                    self.other("token_count");
                    return;
                }
            },
        };
        if let Some(t) = total {
            self.prev_total = Some(t);
        }
        if let Some(l) = last {
            self.last_prompt = Some(l.input);
        }
        if replayed {
            return;
        }
        let usage = delta.usage();
        if usage.is_zero() {
            self.other("token_count_zero");
            return;
        }
        if self.lead_phase(second) {
            self.other("replayed");
            return;
        }
        let prompt = last.map(|l| l.input);
        let ri = self.s.requests.len();
        let mut req = Request {
            timestamp: ts,
            model: self.model.clone(),
            usage,
            prompt_tokens: prompt,
            message_index: None,
            dedup_key: None,
        };
        self.open_asst = None;
        if let Some(i) = self.fresh_asst.take() {
            req.message_index = Some(i);
        } else {
            req.message_index = self.last_asst;
            self.pending_req = Some(ri);
        }
        if let Some(m) = self.model.clone() {
            self.s.note_model(&m);
        }
        self.s.requests.push(req);
        for ci in std::mem::take(&mut self.awaiting_after) {
            let c = &mut self.s.compactions[ci];
            if c.tokens_after.is_none() {
                c.tokens_after = prompt;
            }
        }
        self.compact_cmd = false;
        self.own_content = true;
    }

    /// Rule 4: true when this counted token_count belongs to a replayed leading burst.
    pub(super) fn lead_phase(&mut self, second: Option<i64>) -> bool {
        let eligible = (self.s.kind == SessionKind::Subagent || self.s.parent_id.is_some())
            && !self.replay_detected
            && self.ordinal_boundary.is_none();
        if !eligible || !self.lead_active {
            return false;
        }
        let Some(sec) = second else {
            self.lead_active = false;
            return false;
        };
        match self.lead_second {
            None => {
                self.lead_second = Some(sec);
                false
            }
            Some(first) if first == sec => {
                if !self.lead_confirmed {
                    // The first request of this second was replayed too: it becomes baseline.
                    self.lead_confirmed = true;
                    self.s.requests.clear();
                    self.pending_req = None;
                    self.fresh_asst = None;
                    for c in &mut self.s.compactions {
                        c.request_index = 0;
                        c.tokens_after = None;
                    }
                    self.other("replayed");
                }
                true
            }
            Some(_) => {
                self.lead_active = false;
                false
            }
        }
    }

    // ---------------------------------------------------------------- compactions

    pub(super) fn open_compaction(&self) -> Option<&OpenCompaction> {
        self.open_comp
            .as_ref()
            .filter(|o| o.len == self.s.messages.len())
    }

    pub(super) fn new_compaction(&mut self, ts: Option<DateTime<Utc>>) -> usize {
        let mut c = Compaction::new(CompactionKind::CodexCompacted);
        c.timestamp = ts;
        c.request_index = self.s.requests.len();
        c.tokens_before = self.last_prompt;
        c.trigger = if self.compact_cmd {
            Trigger::Manual
        } else if !self.s.requests.is_empty() || self.last_prompt.is_some() {
            Trigger::Auto
        } else {
            Trigger::Unknown
        };
        self.compact_cmd = false;
        let ci = self.s.compactions.len();
        self.s.compactions.push(c);
        self.comp_estimate.push(None);
        let mut marker = Message::new(Role::System);
        marker.timestamp = ts;
        marker.subtype = Some("compaction".into());
        marker.parts.push(Part::Compaction { index: ci });
        // The first message after the compaction, as every agent's parser sets it: the
        // marker is the one before.
        let mi = self.push_msg(marker);
        self.s.compactions[ci].message_index = mi + 1;
        self.awaiting_after.push(ci);
        ci
    }

    pub(super) fn compacted(&mut self, p: &Obj, ts: Option<DateTime<Utc>>) {
        // The whole payload is kept (window ids and the like go into `extra`): compacted lines
        // are rare, so this one is read as an untyped object.
        let ci = match self.open_compaction() {
            Some(o) if !o.has_line => o.index,
            _ => {
                let ci = self.new_compaction(ts);
                self.open_comp = Some(OpenCompaction {
                    index: ci,
                    len: 0,
                    has_line: false,
                    has_event: false,
                });
                ci
            }
        };
        let summary = str_field(p, "message").unwrap_or("").to_string();
        let mut extra = p.clone();
        extra.remove("message");
        let history = extra.remove("replacement_history");
        let estimate = match &history {
            Some(Value::Array(items)) => {
                let mut text = String::new();
                for it in items {
                    collect_text(it, &mut text);
                }
                tokens::estimate_text(&text)
            }
            _ => tokens::estimate_text(&summary),
        };
        {
            let c = &mut self.s.compactions[ci];
            if let Some(Value::Array(items)) = &history {
                c.messages_after = Some(items.len());
            }
            if let Value::Object(prev) = &c.extra {
                for (k, v) in prev {
                    extra.insert(k.clone(), v.clone());
                }
            }
            c.extra = Value::Object(extra);
            if !summary.is_empty() {
                c.summary = Some(summary.clone());
            }
        }
        self.comp_estimate[ci] = Some(estimate);
        if !summary.is_empty() {
            let mut m = Message::new(Role::User);
            m.timestamp = ts;
            m.subtype = Some("compact_summary".into());
            m.parts.push(Part::Text { text: summary });
            self.push_msg(m);
        }
        if let Some(o) = self.open_comp.as_mut() {
            o.has_line = true;
            o.len = self.s.messages.len();
        }
    }

    pub(super) fn context_compacted(&mut self, ts: Option<DateTime<Utc>>) {
        let ci = match self.open_compaction() {
            Some(o) if !o.has_event => o.index,
            _ => {
                let ci = self.new_compaction(ts);
                self.open_comp = Some(OpenCompaction {
                    index: ci,
                    len: self.s.messages.len(),
                    has_line: false,
                    has_event: false,
                });
                ci
            }
        };
        let c = &mut self.s.compactions[ci];
        match &mut c.extra {
            Value::Object(o) => {
                o.insert("context_compacted".to_string(), Value::Bool(true));
            }
            other => {
                let mut o = Map::new();
                o.insert("context_compacted".to_string(), Value::Bool(true));
                *other = Value::Object(o);
            }
        }
        if let Some(o) = self.open_comp.as_mut() {
            o.has_event = true;
        }
    }
}
