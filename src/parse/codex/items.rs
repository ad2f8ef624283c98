//! The response items of a Codex rollout, into the builder: messages, reasoning, tool calls
//! and their results, and the user's own copies of what they typed.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::model::{Message, Part, Role};
use crate::parse::json::Obj as JsonObj;
use crate::parse::{self, base64_decoded_len};

use super::content::{
    content_parts, copy_text, flatten_output, harness_kind, json_or_raw, looks_base64,
    merged_attachments, prompt_key, shell_result_measured, tag_value,
};
use super::records::{Output, P};
use super::{Builder, HumanPrompt, PromptSource, whole_payload};

impl Builder {
    pub(super) fn push_msg(&mut self, m: Message) -> usize {
        if m.role != Role::Assistant {
            self.pending_req = None;
        }
        self.open_asst = None;
        self.open_tool = None;
        self.own_content = true;
        self.s.messages.push(m);
        self.s.messages.len() - 1
    }

    pub(super) fn asst_part(&mut self, part: Part, ts: Option<DateTime<Utc>>, id: Option<&str>) {
        let idx = match self.open_asst {
            Some(i) => i,
            None => {
                let mut m = Message::new(Role::Assistant);
                m.timestamp = ts;
                m.model = self.model.clone();
                let i = self.push_msg(m);
                self.open_asst = Some(i);
                if let Some(r) = self.pending_req.take() {
                    if let Some(req) = self.s.requests.get_mut(r) {
                        req.message_index = Some(i);
                    }
                } else {
                    self.fresh_asst = Some(i);
                }
                self.last_asst = Some(i);
                i
            }
        };
        let m = &mut self.s.messages[idx];
        if m.id.is_none() {
            m.id = id.map(Box::from);
        }
        m.parts.push(part);
    }

    pub(super) fn tool_result(&mut self, part: Part, ts: Option<DateTime<Utc>>, id: Option<&str>) {
        let idx = match self.open_tool {
            Some(i) => i,
            None => {
                let mut m = Message::new(Role::Tool);
                m.timestamp = ts;
                m.id = id.map(Box::from);
                let i = self.push_msg(m);
                self.open_tool = Some(i);
                i
            }
        };
        self.s.messages[idx].parts.push(part);
    }

    pub(super) fn synth_id(&mut self, prefix: &str) -> String {
        self.synth += 1;
        format!("{prefix}:{}", self.synth)
    }

    /// One ResponseItem (envelope payload, bare line or TS-era item). `raw` is the line's text.
    pub(super) fn item(&mut self, p: &P, ts: Option<DateTime<Utc>>, raw: &[u8]) {
        let ty = p.kind.get().unwrap_or("");
        let id = p.id.get();
        match ty {
            "message" => self.message_item(p, ts),
            "reasoning" => {
                let summary = p.summary.get().map_or(&[][..], |l| &l.0[..]);
                for x in summary.iter().filter_map(JsonObj::get) {
                    if x.text.filled() {
                        let part = Part::Thinking {
                            text: x.text.owned(),
                        };
                        self.asst_part(part, ts, id);
                    }
                }
                if let Some(Value::Array(parts)) = &p.content {
                    for x in parts {
                        if let Some(text) = x.get("text").and_then(Value::as_str)
                            && !text.is_empty()
                        {
                            let part = Part::Thinking {
                                text: text.to_string(),
                            };
                            self.asst_part(part, ts, id);
                        }
                    }
                }
            }
            "function_call"
            | "custom_tool_call"
            | "local_shell_call"
            | "web_search_call"
            | "tool_search_call"
            | "image_generation_call" => self.tool_call(ty, p, ts, raw),
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                let call_id = match p.call_id.get().or(id) {
                    Some(c) => c.to_string(),
                    None => self.synth_id("result"),
                };
                // The measured view keeps a shell result's size, read without decoding it.
                let measured = (ty != "tool_search_output"
                    && parse::json::detail() == parse::Detail::Measured)
                    .then(|| p.output.value().and_then(shell_result_measured))
                    .flatten();
                let (output, mut is_error, attachments, output_size) = match measured {
                    Some((size, is_error)) => (String::new(), is_error, Vec::new(), Some(size)),
                    None => {
                        let (output, is_error, attachments) = tool_output(ty, p);
                        let (output, size) = parse::json::kept_output(output);
                        (output, is_error, attachments, size)
                    }
                };
                if p.status.is("failed") {
                    is_error = true;
                }
                let part = Part::ToolResult {
                    call_id,
                    output,
                    is_error,
                    attachments,
                    output_size,
                };
                self.tool_result(part, ts, id);
            }
            "ghost_snapshot" | "compaction" | "compaction_summary" => self.other(ty),
            "agent_message" => {
                // 2026 inter-agent message delivered into this thread's history.
                let mut m = Message::new(Role::User);
                m.timestamp = ts;
                m.id = id.map(Box::from);
                m.subtype = Some("inter_agent".into());
                m.parts = content_parts(p.content.as_ref());
                self.push_msg(m);
            }
            "" => self.warn(self.line_no, "response item without a type"),
            other => self.other(&format!("response_item:{other}")),
        }
    }

    pub(super) fn tool_call(&mut self, ty: &str, p: &P, ts: Option<DateTime<Utc>>, raw: &[u8]) {
        let id_field = p.id.get();
        let call_id = match p.call_id.get().or(id_field) {
            Some(c) => c.to_string(),
            None => {
                let key = self
                    .open_asst
                    .and_then(|i| self.s.messages[i].id.as_deref().map(String::from))
                    .unwrap_or_else(|| format!("msg{}", self.s.messages.len()));
                self.synth_id(&key)
            }
        };
        let base_name = match ty {
            "local_shell_call" => "local_shell".to_string(),
            "web_search_call" => "web_search".to_string(),
            "tool_search_call" => "tool_search".to_string(),
            "image_generation_call" => "image_generation".to_string(),
            _ => p.name.get().unwrap_or("unknown").to_string(),
        };
        // The namespace is the head of the tool's qualified name, cut anywhere: a real 0.125
        // rollout records `mcp__codex_apps__github` + `_fetch_pr` for the MCP tool its
        // `mcp_tool_call_end` names `github_fetch_pr` (`mcp__<server>__<tool>`).
        let name = match p.namespace.filled() {
            Some(ns) if matches!(ty, "function_call" | "custom_tool_call") => {
                format!("{ns}{base_name}")
            }
            _ => base_name,
        };
        let input = match ty {
            "function_call" | "tool_search_call" => json_or_raw(Some(&p.arguments.0)),
            "custom_tool_call" => json_or_raw(Some(&p.input.0)),
            "local_shell_call" | "web_search_call" => p.action.0.clone(),
            _ if parse::json::detail() == parse::Detail::Summary => Value::Null,
            _ => {
                // image_generation_call: keep everything but the (large) result image.
                let mut o = whole_payload(raw);
                o.remove("result");
                o.remove("type");
                Value::Object(o)
            }
        };
        self.asst_part(
            Part::ToolCall {
                id: call_id,
                name,
                input: input.into(),
            },
            ts,
            id_field,
        );
        if ty == "image_generation_call" && p.result.filled() {
            let data = p.result.text();
            // In the summary view the data was not read; the image is still there.
            if p.result.text.is_none() || looks_base64(data) {
                let part = Part::Image {
                    media_type: Some("image/png".to_string()),
                    bytes: p.result.text.as_ref().map(|d| base64_decoded_len(d)),
                    data: p.result.text.as_ref().map(|d| d.to_string()),
                    url: None,
                };
                self.asst_part(part, ts, id_field);
            }
        }
    }

    pub(super) fn message_item(&mut self, p: &P, ts: Option<DateTime<Utc>>) {
        let role = p.role.get().unwrap_or("");
        let id = p.id.get();
        match role {
            "assistant" => {
                for part in content_parts(p.content.as_ref()) {
                    self.asst_part(part, ts, id);
                }
            }
            "user" => self.user_copy(p, ts),
            _ => {
                let mut m = Message::new(Role::System);
                m.timestamp = ts;
                m.id = id.map(Box::from);
                m.subtype = Some(if role.is_empty() { "system" } else { role }.into());
                m.parts = content_parts(p.content.as_ref());
                self.push_msg(m);
            }
        }
    }

    /// A model-visible `role:user` message.
    pub(super) fn user_copy(&mut self, p: &P, ts: Option<DateTime<Utc>>) {
        let parts = content_parts(p.content.as_ref());
        let text = copy_text(&parts);
        if let Some(kind) = harness_kind(&text) {
            self.harness_user(kind, &text, parts, ts, p.id.get(), false);
            return;
        }
        let mut m = Message::new(Role::User);
        m.timestamp = ts;
        m.id = p.id.get().map(Box::from);
        let key = prompt_key(&text);
        if let Some(pos) = self.unmatched_events.iter().position(|(_, k)| *k == key) {
            // The event already recorded this prompt; the copy may hold its decoded images.
            let (idx, _) = self.unmatched_events.remove(pos);
            let copy: Vec<Part> = parts
                .into_iter()
                .filter(|p| !matches!(p, Part::Text { .. }))
                .collect();
            let m = &mut self.s.messages[idx];
            let event: Vec<Part> = m
                .parts
                .iter()
                .filter(|p| !matches!(p, Part::Text { .. }))
                .cloned()
                .collect();
            m.parts.retain(|p| matches!(p, Part::Text { .. }));
            m.parts.extend(merged_attachments(copy, event));
            return;
        }
        m.subtype = Some("model_input".into());
        m.parts = parts;
        let idx = self.push_msg(m);
        self.pending_copies.push((idx, key));
    }

    /// Harness text in a `role:user` copy or (2025) a `user_message` event: one non-human
    /// message with `subtype` = `kind`, whichever of the two records comes first.
    pub(super) fn harness_user(
        &mut self,
        kind: &str,
        text: &str,
        parts: Vec<Part>,
        ts: Option<DateTime<Utc>>,
        id: Option<&str>,
        from_event: bool,
    ) {
        if kind == "environment_context"
            && self.s.cwd.is_none()
            && let Some(cwd) = tag_value(text, "cwd")
        {
            self.s.cwd = Some(cwd.to_string());
        }
        let key = text.trim();
        if let Some(pos) = self
            .unpaired_harness
            .iter()
            .position(|(ev, k)| *ev != from_event && k == key)
        {
            self.unpaired_harness.remove(pos);
            return;
        }
        self.unpaired_harness.push((from_event, key.to_string()));
        let mut m = Message::new(Role::User);
        m.timestamp = ts;
        m.id = id.map(Box::from);
        m.subtype = Some(kind.into());
        m.parts = parts;
        self.push_msg(m);
    }

    /// What the human typed: `user_message` event or paginated UserMessage item.
    pub(super) fn user_event(
        &mut self,
        text: &str,
        images: Vec<Part>,
        ts: Option<DateTime<Utc>>,
        src: PromptSource<'_>,
    ) {
        let turn = src
            .turn_id
            .map(str::to_string)
            .or_else(|| self.turn_id.clone());
        self.saw_user_event = true;
        let key = prompt_key(text);
        if key.starts_with("/compact") {
            self.compact_cmd = true;
        }
        if let Some(pos) = self.pending_copies.iter().position(|(_, k)| *k == key) {
            let (idx, _) = self.pending_copies.remove(pos);
            let m = &mut self.s.messages[idx];
            let copy: Vec<Part> = m
                .parts
                .drain(..)
                .filter(|p| !matches!(p, Part::Text { .. }))
                .collect();
            let kept = merged_attachments(copy, images);
            m.parts = vec![Part::Text { text: key }];
            m.parts.extend(kept);
            m.is_human = true;
            m.subtype = None;
            self.last_human = Some(HumanPrompt {
                index: idx,
                from_item: src.from_item,
                turn,
                ts,
            });
            return;
        }
        // A user_message event and the paginated UserMessage item of the same turn: one prompt.
        // (The same text typed again, after an interrupt, is another prompt.)
        if let Some(prev) = &self.last_human
            && prev.index + 1 == self.s.messages.len()
            && prev.from_item != src.from_item
            && match (&prev.turn, &turn) {
                (Some(a), Some(b)) => a == b,
                _ => prev.ts.is_some() && prev.ts == ts,
            }
            && self.s.messages[prev.index].text() == key
        {
            return;
        }
        let mut m = Message::new(Role::User);
        m.timestamp = ts;
        m.id = src.item_id.map(Box::from);
        m.is_human = true;
        m.parts.push(Part::Text { text: key.clone() });
        m.parts.extend(images);
        let idx = self.push_msg(m);
        self.unmatched_events.push((idx, key));
        self.last_human = Some(HumanPrompt {
            index: idx,
            from_item: src.from_item,
            turn,
            ts,
        });
    }
}

/// A tool output item's text, whether it failed, and what came with it: a tool search's tools
/// as their JSON, any other output flattened (in the summary view, only whether it failed).
fn tool_output(ty: &str, p: &P) -> (String, bool, Vec<Part>) {
    if ty == "tool_search_output" {
        let text = match p.tools.as_ref().or(p.output.value()) {
            Some(Value::String(s)) => s.clone(),
            Some(v) if !v.is_null() => v.to_string(),
            _ => String::new(),
        };
        return (text, false, Vec::new());
    }
    match &p.output {
        Output::Summary(e) => (String::new(), e.is_error, Vec::new()),
        other => flatten_output(other.value().unwrap_or(&Value::Null)),
    }
}
