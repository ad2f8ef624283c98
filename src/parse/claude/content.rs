//! A message's `content` (a string or a block array) turned into parts: text, thinking, tool
//! calls, tool results and their attachments, images. Apart from the record handlers, which
//! only ask for a record's parts, because the block shapes are a format of their own.

use std::borrow::Cow;

use serde_json::Value;

use super::Parser;
use super::records::{Block, BlockObj, Content, Rec};
use crate::model::Part;
use crate::parse::{self, hash64, json_kind};

impl Parser<'_> {
    /// `message.content` (a string or a block array) → parts. `msg_key` and `start` name
    /// synthesised tool-call ids (`<msg_key>:<part index>`) for blocks that lack one.
    pub(super) fn content_parts(
        &mut self,
        content: Content,
        msg_key: &str,
        start: usize,
        rec: &Rec,
    ) -> Vec<Part> {
        match content {
            Content::Text(s) => vec![Part::Text {
                text: s.into_owned(),
            }],
            Content::Blocks(blocks) => {
                // Not `collect()`: it would reuse the blocks' allocation, several times the
                // parts' size, for as long as the message lives.
                let mut parts = Vec::with_capacity(blocks.len());
                for (i, b) in blocks.into_iter().enumerate() {
                    parts.push(self.block(b, msg_key, start + i, rec));
                }
                parts
            }
            Content::Absent | Content::Other => Vec::new(),
        }
    }

    fn block(&mut self, b: Block, msg_key: &str, n: usize, rec: &Rec) -> Part {
        let mut o = match b {
            Block::Obj(o) => o,
            Block::Text(s) => {
                return Part::Text {
                    text: s.into_owned(),
                };
            }
            Block::Other(kind, raw) => {
                return Part::Unknown {
                    kind: kind.into(),
                    raw,
                };
            }
        };
        let text = |t: Option<Cow<str>>| t.map(Cow::into_owned).unwrap_or_default();
        let kind = o.kind.take();
        match kind.as_deref() {
            Some("text") => Part::Text { text: text(o.text) },
            Some("thinking") => Part::Thinking {
                text: o.thinking.unwrap_or_default(),
            },
            Some("redacted_thinking") => Part::Thinking {
                text: String::new(),
            },
            Some("tool_use") => {
                let id = match o.id {
                    Some(id) if !id.trim().is_empty() => id.into_owned(),
                    _ => format!("{msg_key}:{n}"),
                };
                self.pending_calls.push_back(id.clone());
                Part::ToolCall {
                    id,
                    name: text(o.name),
                    input: o.input.into(),
                }
            }
            Some("tool_result") => self.tool_result(o, msg_key, n, rec),
            Some("image") => image_part(o.source.as_ref(), o.media_type.as_deref()),
            Some(t) => Part::Unknown {
                kind: t.to_string(),
                raw: o.raw,
            },
            None => Part::Unknown {
                kind: "object".into(),
                raw: o.raw,
            },
        }
    }

    fn tool_result(&mut self, o: BlockObj, msg_key: &str, n: usize, rec: &Rec) -> Part {
        let call_id = match o.tool_use_id.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(id) => id.to_string(),
            // No id: the oldest call still waiting for a result, else what the record says.
            None => self
                .next_pending_call()
                .or_else(|| rec.source_tool_use_id.nonempty().map(String::from))
                .unwrap_or_else(|| format!("{msg_key}:{n}")),
        };
        self.answered_calls.insert(hash64(&call_id));
        // Calls answered in order leave the queue now, as the next id-less result would take
        // them off: a long transcript does not keep every call's id to the end.
        while self
            .pending_calls
            .front()
            .is_some_and(|f| self.answered_calls.contains(&hash64(f)))
        {
            self.pending_calls.pop_front();
        }
        let items = match o.result {
            Some(Value::Array(items)) => items,
            Some(v @ (Value::String(_) | Value::Object(_))) => vec![v],
            _ => Vec::new(),
        };
        // The text items joined with newlines; the first one's string becomes the output.
        let mut output: Option<String> = None;
        let mut attachments = Vec::new();
        for v in items {
            let text = match v {
                Value::String(s) => s,
                Value::Object(mut b) if b.get("type").and_then(Value::as_str) == Some("text") => {
                    match b.remove("text") {
                        Some(Value::String(s)) => s,
                        _ => String::new(),
                    }
                }
                other => {
                    attachments.push(attachment_part(other));
                    continue;
                }
            };
            match &mut output {
                None => output = Some(text),
                Some(out) => {
                    out.push('\n');
                    out.push_str(&text);
                }
            }
        }
        // A string content, measured: the whole output (as `output` is, kept). The measured
        // view measures only those, in its reader; `show`'s view cuts any output here.
        let output = output.unwrap_or_default();
        let (output, output_size) = match (o.result_size, parse::json::detail()) {
            (Some(size), _) => (output, Some(size)),
            (None, parse::Detail::Preview(_)) => parse::json::kept_output(output),
            (None, _) => (output, None),
        };
        Part::ToolResult {
            call_id,
            output,
            is_error: o.is_error.unwrap_or(false),
            attachments,
            output_size,
        }
    }

    fn next_pending_call(&mut self) -> Option<String> {
        while let Some(id) = self.pending_calls.pop_front() {
            if !self.answered_calls.contains(&hash64(&id)) {
                return Some(id);
            }
        }
        None
    }
}

fn str_in<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// An `image` block → [`Part::Image`]; tolerant of `url`/`file` sources and missing fields.
fn image_part(source: Option<&Value>, media_type: Option<&str>) -> Part {
    let src = source.filter(|s| s.is_object());
    let media_type = src
        .and_then(|s| str_in(s, "media_type"))
        .or(media_type)
        .map(String::from);
    let data = src.and_then(|s| str_in(s, "data"));
    let url = src
        .filter(|s| str_in(s, "type") == Some("url"))
        .and_then(|s| str_in(s, "url"));
    Part::Image {
        media_type,
        bytes: data.map(parse::base64_decoded_len),
        data: data.map(String::from),
        url: url.map(String::from),
    }
}

/// A block nested inside `tool_result.content` that is not text.
fn attachment_part(v: Value) -> Part {
    let kind = match &v {
        Value::Object(o) => match o.get("type").and_then(Value::as_str) {
            Some("image") => return image_part(o.get("source"), str_in(&v, "media_type")),
            Some(t) => t.to_string(),
            None => "object".into(),
        },
        other => json_kind(other).into(),
    };
    Part::Unknown { kind, raw: v }
}
