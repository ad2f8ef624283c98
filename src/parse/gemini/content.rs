//! Gemini content (`PartListUnion`) → unified parts, plus the text helpers the log needs.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::MASK_TAG;
use super::log::Entry;
use super::records::{Call, CallIn, Rec};
use crate::model::{Part, ToolInput};
use crate::parse::{self, base64_decoded_len, hash64, parse_time, str_field};
use crate::tokens::estimate_text;

pub(super) struct Ctx<'a> {
    pub(super) fr_ids: &'a HashSet<String>,
    pub(super) status: &'a HashMap<String, String>,
    /// Calls still waiting for a result: `(name, id)`, to pair id-less function responses.
    pub(super) pending: Vec<(String, String)>,
}

impl Ctx<'_> {
    fn call(&mut self, name: &str, id: &str) {
        self.pending.push((name.to_string(), id.to_string()));
    }

    fn answered(&mut self, id: &str) {
        self.pending.retain(|(_, p)| p != id);
    }

    fn pending_for(&self, name: &str) -> Option<String> {
        self.pending
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, id)| id.clone())
    }
}

pub(super) struct Built {
    pub(super) parts: Vec<Part>,
    /// Tool results of the message's `toolCalls` (a following Tool message).
    pub(super) results: Vec<Part>,
    pub(super) results_ts: Option<DateTime<Utc>>,
}

struct PartBuilder<'a, 'b> {
    ctx: &'a mut Ctx<'b>,
    msg_id: &'a str,
    synth: usize,
    /// `toolCalls` of the message, `(id, name)`, for id-less `functionCall` parts.
    known_calls: Vec<(String, String)>,
    emitted_calls: HashSet<String>,
}

impl PartBuilder<'_, '_> {
    fn synth_id(&mut self) -> String {
        let id = format!("{}:{}", self.msg_id, self.synth);
        self.synth += 1;
        id
    }

    fn content(&mut self, v: Option<&Value>, skip_thoughts: bool, out: &mut Vec<Part>) {
        match v {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                if !s.is_empty() {
                    out.push(Part::Text { text: s.clone() });
                }
            }
            Some(Value::Array(a)) => {
                for p in a {
                    self.part(p, skip_thoughts, out);
                }
            }
            Some(p @ Value::Object(_)) => self.part(p, skip_thoughts, out),
            Some(other) => out.push(Part::Unknown {
                kind: parse::json_kind(other).to_string(),
                raw: other.clone(),
            }),
        }
    }

    fn part(&mut self, v: &Value, skip_thoughts: bool, out: &mut Vec<Part>) {
        let o = match v {
            Value::String(s) => {
                if !s.is_empty() {
                    out.push(Part::Text { text: s.clone() });
                }
                return;
            }
            Value::Object(o) => o,
            other => {
                out.push(Part::Unknown {
                    kind: parse::json_kind(other).to_string(),
                    raw: other.clone(),
                });
                return;
            }
        };
        if let Some(Value::Object(fc)) = o.get("functionCall") {
            let name = str_field(fc, "name").unwrap_or("unknown").to_string();
            let id = match str_field(fc, "id") {
                Some(id) => id.to_string(),
                None => match self
                    .known_calls
                    .iter()
                    .find(|(id, n)| *n == name && !self.emitted_calls.contains(id))
                {
                    Some((id, _)) => id.clone(),
                    None => self.synth_id(),
                },
            };
            if self.emitted_calls.insert(id.clone()) {
                self.ctx.call(&name, &id);
                out.push(Part::ToolCall {
                    id,
                    name,
                    input: fc
                        .get("args")
                        .map_or_else(ToolInput::default, ToolInput::from),
                });
            }
            return;
        }
        if let Some(Value::Object(fr)) = o.get("functionResponse") {
            let name = str_field(fr, "name").unwrap_or("unknown");
            let call_id = match str_field(fr, "id") {
                Some(id) => id.to_string(),
                None => match self.ctx.pending_for(name) {
                    Some(id) => id,
                    None => self.synth_id(),
                },
            };
            out.push(self.response(fr, &call_id));
            return;
        }
        if let Some(text) = o.get("text").and_then(Value::as_str) {
            if o.get("thought").and_then(Value::as_bool) == Some(true) {
                if !skip_thoughts && !text.trim().is_empty() {
                    out.push(Part::Thinking {
                        text: text.to_string(),
                    });
                }
            } else if !text.is_empty() {
                out.push(Part::Text {
                    text: text.to_string(),
                });
            }
            return;
        }
        let media = media_part(o);
        if let Some(p) = media {
            // Media right after a function response came back with it.
            if let Some(Part::ToolResult { attachments, .. }) = out.last_mut() {
                attachments.push(p);
            } else {
                out.push(p);
            }
            return;
        }
        if o.get("thought").and_then(Value::as_bool) == Some(true) {
            return; // a bare thought signature
        }
        out.push(Part::Unknown {
            kind: o
                .keys()
                .next()
                .cloned()
                .unwrap_or_else(|| "part".to_string()),
            raw: v.clone(),
        });
    }

    fn response(&mut self, fr: &Map<String, Value>, call_id: &str) -> Part {
        self.ctx.answered(call_id);
        let (output, has_error) = flatten_response(fr.get("response"));
        let failed = self
            .ctx
            .status
            .get(call_id)
            .is_some_and(|s| failed_status(s));
        Part::ToolResult {
            call_id: call_id.to_string(),
            output,
            is_error: has_error || failed,
            attachments: Vec::new(),
            output_size: None,
        }
    }

    /// `toolCalls[].result` (Part[], a Part or a string) → tool results for call `id`.
    fn result(&mut self, call: &Call, id: &str, out: &mut Vec<Part>) {
        let status = call.status.as_deref().unwrap_or("");
        let is_error = failed_status(status);
        let parts: Vec<&Value> = match &call.result {
            Some(Value::Array(a)) => a.iter().collect(),
            Some(Value::Null) | None => Vec::new(),
            Some(v) => vec![v],
        };
        let start = out.len();
        for p in parts {
            match p {
                Value::Object(o) if o.get("functionResponse").is_some_and(Value::is_object) => {
                    let fr = o.get("functionResponse").and_then(Value::as_object);
                    let Some(fr) = fr else { continue };
                    let cid = str_field(fr, "id").unwrap_or(id).to_string();
                    let mut r = self.response(fr, &cid);
                    if let Part::ToolResult { is_error: e, .. } = &mut r {
                        *e |= is_error;
                    }
                    out.push(r);
                }
                other => {
                    let text = match other {
                        Value::String(s) => Some(s.as_str()),
                        Value::Object(o) => o.get("text").and_then(Value::as_str),
                        _ => None,
                    };
                    if out.len() == start {
                        self.ctx.answered(id);
                        out.push(Part::ToolResult {
                            call_id: id.to_string(),
                            output: String::new(),
                            is_error,
                            attachments: Vec::new(),
                            output_size: None,
                        });
                    }
                    let Some(Part::ToolResult {
                        output,
                        attachments,
                        ..
                    }) = out.last_mut()
                    else {
                        continue;
                    };
                    match (text, other) {
                        (Some(t), _) => {
                            if !output.is_empty() {
                                output.push('\n');
                            }
                            output.push_str(t);
                        }
                        (None, Value::Object(o)) => {
                            attachments.push(media_part(o).unwrap_or_else(|| Part::Unknown {
                                kind: o.keys().next().cloned().unwrap_or_else(|| "part".into()),
                                raw: other.clone(),
                            }))
                        }
                        (None, v) => attachments.push(Part::Unknown {
                            kind: parse::json_kind(v).to_string(),
                            raw: v.clone(),
                        }),
                    }
                }
            }
        }
        if out.len() == start && matches!(status, "error" | "cancelled") {
            self.ctx.answered(id);
            let output = match &call.result_display {
                Some(s) if !s.is_empty() => s.clone(),
                _ => format!("[{status}]"),
            };
            out.push(Part::ToolResult {
                call_id: id.to_string(),
                output,
                is_error,
                attachments: Vec::new(),
                output_size: None,
            });
        }
    }
}

/// A call that did not run to success: it failed, or was cancelled (by the user, or by a
/// denied confirmation). Gemini CLI records a cancelled call's `response.error` when it has a
/// response at all, so a cancelled call without one reads the same way.
fn failed_status(status: &str) -> bool {
    matches!(status, "error" | "cancelled")
}

pub(super) fn media_part(o: &Map<String, Value>) -> Option<Part> {
    if let Some(Value::Object(d)) = o.get("inlineData") {
        let data = str_field(d, "data").map(str::to_owned);
        return Some(Part::Image {
            media_type: str_field(d, "mimeType").map(str::to_owned),
            bytes: data.as_deref().map(base64_decoded_len),
            data,
            url: None,
        });
    }
    if let Some(Value::Object(d)) = o.get("fileData") {
        let mime = str_field(d, "mimeType");
        if mime.is_some_and(|m| m.starts_with("image/")) {
            return Some(Part::Image {
                media_type: mime.map(str::to_owned),
                bytes: None,
                data: None,
                url: None,
            });
        }
        return Some(Part::Unknown {
            kind: "fileData".to_string(),
            raw: Value::Object(o.clone()),
        });
    }
    None
}

/// A functionResponse `response` as text, and whether it reports an error.
pub(super) fn flatten_response(r: Option<&Value>) -> (String, bool) {
    let as_text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => canonical_json(other),
    };
    match r {
        None | Some(Value::Null) => (String::new(), false),
        Some(Value::Object(o)) => {
            let mut pieces = Vec::new();
            if let Some(v) = o.get("output") {
                pieces.push(as_text(v));
            }
            if let Some(v) = o.get("error") {
                pieces.push(as_text(v));
            }
            if pieces.is_empty() {
                pieces.push(canonical_json(&Value::Object(o.clone())));
            }
            (pieces.join("\n"), o.contains_key("error"))
        }
        Some(v) => (as_text(v), false),
    }
}

pub(super) fn build_parts(e: &Entry, ctx: &mut Ctx) -> Built {
    let known_calls: Vec<(String, String)> = e
        .rec
        .calls()
        .filter_map(|c| Some((c.id.clone()?, c.name.clone()?)))
        .collect();
    let mut b = PartBuilder {
        ctx,
        msg_id: &e.id,
        synth: 0,
        known_calls,
        emitted_calls: HashSet::default(),
    };
    let mut parts = Vec::new();
    let mut results = Vec::new();
    let mut results_ts = None;
    if e.typ() == "gemini" {
        // Read as their texts ([`Thoughts`](super::records::Thoughts)).
        let thoughts = e.rec.thoughts.as_deref().unwrap_or_default();
        let has_thoughts = !thoughts.is_empty();
        parts.extend(
            thoughts
                .iter()
                .map(|text| Part::Thinking { text: text.clone() }),
        );
        b.content(e.rec.get("content"), has_thoughts, &mut parts);
        for c in e.rec.tool_call_list() {
            let call = match c {
                CallIn::Call(call) => call,
                CallIn::Other(raw) => {
                    parts.push(Part::Unknown {
                        kind: "toolCall".to_string(),
                        raw: raw.clone(),
                    });
                    continue;
                }
            };
            let id = match &call.id {
                Some(id) => id.clone(),
                None => b.synth_id(),
            };
            let name = call.name.as_deref().unwrap_or("unknown").to_string();
            if b.emitted_calls.insert(id.clone()) {
                b.ctx.call(&name, &id);
                parts.push(Part::ToolCall {
                    id: id.clone(),
                    name,
                    input: call
                        .args
                        .as_ref()
                        .map_or_else(ToolInput::default, ToolInput::from),
                });
            }
            if b.ctx.fr_ids.contains(&id) {
                continue; // v0.44+: the functionResponse user message carries it
            }
            let before = results.len();
            b.result(call, &id, &mut results);
            if results.len() > before && results_ts.is_none() {
                results_ts = call.timestamp.as_ref().and_then(parse_time);
            }
        }
    } else {
        b.content(e.rec.get("content"), false, &mut parts);
    }
    Built {
        parts,
        results,
        results_ts,
    }
}

/// Estimated tokens of parts as history: text, tool calls and tool outputs (not thinking,
/// not media).
pub(super) fn estimate_parts(parts: &[Part]) -> u64 {
    parts
        .iter()
        .map(|p| match p {
            Part::Text { text } => estimate_text(text),
            Part::ToolCall { name, input, .. } => {
                estimate_text(name) + estimate_text(&canonical_json(&input.to_value()))
            }
            Part::ToolResult { output, .. } => estimate_text(output),
            Part::Unknown { raw, .. } => estimate_text(&canonical_json(raw)),
            Part::Thinking { .. } | Part::Image { .. } | Part::Compaction { .. } => 0,
        })
        .sum()
}

/// Text of a content value: strings and non-thought `text` parts, one per line.
pub(super) fn content_text(v: Option<&Value>) -> String {
    fn text_of(p: &Value) -> Option<&str> {
        match p {
            Value::String(s) => Some(s),
            Value::Object(o) if o.get("thought").and_then(Value::as_bool) != Some(true) => {
                o.get("text").and_then(Value::as_str)
            }
            _ => None,
        }
    }
    let out: Vec<&str> = match v {
        Some(Value::Array(a)) => a.iter().filter_map(text_of).collect(),
        Some(p) => text_of(p).into_iter().collect(),
        None => Vec::new(),
    };
    out.join("\n")
}

pub(super) fn has_function_response(v: Option<&Value>) -> bool {
    let is_fr = |p: &Value| p.get("functionResponse").is_some_and(Value::is_object);
    match v {
        Some(Value::Array(a)) => a.iter().any(is_fr),
        Some(p @ Value::Object(_)) => is_fr(p),
        _ => false,
    }
}

pub(super) fn collect_response_ids(v: Option<&Value>, into: &mut HashSet<String>) {
    let mut take = |p: &Value| {
        if let Some(id) = p
            .get("functionResponse")
            .and_then(|f| f.get("id"))
            .and_then(Value::as_str)
        {
            into.insert(id.to_string());
        }
    };
    match v {
        Some(Value::Array(a)) => a.iter().for_each(&mut take),
        Some(p @ Value::Object(_)) => take(p),
        _ => {}
    }
}

/// Keys (call id, else content hash) of function responses that hold a masked preview.
pub(super) fn masked_keys(rec: &Rec) -> Vec<String> {
    let mut keys = Vec::new();
    let mut visit = |p: &Value| {
        if let Some(fr) = p.get("functionResponse").and_then(Value::as_object) {
            let body = fr.get("response").map(canonical_json).unwrap_or_default();
            if body.contains(MASK_TAG) {
                keys.push(match str_field(fr, "id") {
                    Some(id) => id.to_string(),
                    None => format!("#{:x}", hash64(&body)),
                });
            }
        }
    };
    let mut lists: Vec<&Value> = Vec::new();
    if rec.str("type") == Some("user")
        && let Some(c) = rec.get("content")
    {
        lists.push(c);
    }
    lists.extend(rec.calls().filter_map(|c| c.result.as_ref()));
    for l in lists {
        match l {
            Value::Array(a) => a.iter().for_each(&mut visit),
            other => visit(other),
        }
    }
    keys
}

/// Compact JSON with object keys sorted: stable whatever serde_json's map order is.
pub(super) fn canonical_json(v: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(o) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                out.push('{');
                for (n, k) in keys.into_iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    if let Some(x) = o.get(k) {
                        write(x, out);
                    }
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (n, x) in a.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}
