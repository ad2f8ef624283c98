//! Content and tool-output helpers of the Codex parser: message content items, images, every
//! recorded tool-output shape with its failure signals, harness-message detection, prompt keys.

use std::path::Path;

use serde_json::Value;

use super::Obj;
use crate::model::Part;
use crate::parse::{base64_decoded_len, str_field};

/// What precedes the human request in IDE-originated prompts.
const IDE_MARKER: &str = "## My request for Codex:";

/// Content items of a message (or of an array-shaped output) as parts.
pub(super) fn content_parts(v: Option<&Value>) -> Vec<Part> {
    let mut out = Vec::new();
    match v {
        Some(Value::String(s)) if !s.is_empty() => out.push(Part::Text { text: s.clone() }),
        Some(Value::Array(items)) => {
            for it in items {
                match it {
                    Value::String(s) => out.push(Part::Text { text: s.clone() }),
                    Value::Object(o) => {
                        let ty = str_field(o, "type").unwrap_or("");
                        match ty {
                            "input_text" | "output_text" | "text" | "Text" | "inputText" => {
                                if let Some(t) = str_field(o, "text") {
                                    out.push(Part::Text {
                                        text: t.to_string(),
                                    });
                                }
                            }
                            "refusal" => {
                                if let Some(t) = str_field(o, "refusal") {
                                    out.push(Part::Text {
                                        text: t.to_string(),
                                    });
                                }
                            }
                            "input_image" | "image" | "Image" => out.push(image_part(o)),
                            "encrypted_content" => {}
                            _ => out.push(Part::Unknown {
                                kind: if ty.is_empty() { "content" } else { ty }.to_string(),
                                raw: it.clone(),
                            }),
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

fn image_part(o: &Obj) -> Part {
    if let Some(data) = str_field(o, "data") {
        // MCP image content: {type:"image", data, mimeType}
        return Part::Image {
            media_type: str_field(o, "mimeType")
                .or_else(|| str_field(o, "mime_type"))
                .map(str::to_string),
            bytes: Some(base64_decoded_len(data)),
            data: Some(data.to_string()),
        };
    }
    image_from_url(
        str_field(o, "image_url")
            .or_else(|| str_field(o, "url"))
            .or_else(|| {
                o.get("image_url")
                    .and_then(|u| u.get("url"))
                    .and_then(Value::as_str)
            }),
    )
}

/// `data:<type>;base64,<data>` URLs are decoded into size + data; anything else is an image
/// whose bytes are not in the file.
pub(super) fn image_from_url(url: Option<&str>) -> Part {
    if let Some(rest) = url.and_then(|u| u.strip_prefix("data:"))
        && let Some((head, data)) = rest.split_once(',')
    {
        let media_type = head.split(';').next().filter(|s| !s.is_empty());
        return Part::Image {
            media_type: media_type.map(str::to_string),
            bytes: Some(base64_decoded_len(data)),
            data: Some(data.to_string()),
        };
    }
    Part::Image {
        media_type: None,
        bytes: None,
        data: None,
    }
}

pub(super) fn looks_base64(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// A tool-call argument: parsed JSON when the string is JSON, else the raw string.
pub(super) fn json_or_raw(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// The human text of a prompt: IDE preamble cut, trimmed. Also the key that pairs a
/// `user_message` event with its `role:user` copy.
pub(super) fn prompt_key(text: &str) -> String {
    let t = text.trim();
    if t.starts_with("# Context from my IDE setup")
        && let Some((_, after)) = t.split_once(IDE_MARKER)
    {
        return after.trim().to_string();
    }
    t.to_string()
}

/// Harness `role:user` messages, by their opening.
pub(super) fn harness_kind(text: &str) -> Option<&'static str> {
    let t = text.trim();
    if t.starts_with("<environment_context") {
        return Some("environment_context");
    }
    const INSTRUCTIONS: [&str; 6] = [
        "<user_instructions",
        "# AGENTS.md",
        "<INSTRUCTIONS>",
        "<permissions",
        "<developer_instructions",
        "<collaboration_mode",
    ];
    if INSTRUCTIONS.iter().any(|p| t.starts_with(p)) {
        return Some("instructions");
    }
    // A message that is exactly one tag block (`<turn_aborted>…</turn_aborted>` and the like).
    let tag = t
        .strip_prefix('<')?
        .split(|c: char| c == '>' || c.is_whitespace())
        .next()?;
    if !tag.is_empty()
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && t.ends_with(&format!("</{tag}>"))
    {
        return Some("context");
    }
    None
}

/// `<tag>value</tag>` inside a text.
pub(super) fn tag_value<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim()).filter(|s| !s.is_empty())
}

/// Flatten a tool output of any recorded shape: (text, is_error, attachments).
pub(super) fn flatten_output(v: &Value) -> (String, bool, Vec<Part>) {
    match v {
        Value::String(s) => {
            let trimmed = s.trim_start();
            if trimmed.starts_with('{') || trimmed.starts_with('[') {
                match serde_json::from_str::<Value>(s) {
                    Ok(Value::Object(o)) if o.contains_key("output") => return flatten_object(&o),
                    Ok(Value::Array(items)) if is_content_array(&items) => {
                        return flatten_array(&items);
                    }
                    _ => {}
                }
            }
            let err = text_is_error(s);
            (s.clone(), err, Vec::new())
        }
        Value::Array(items) => flatten_array(items),
        Value::Object(o) => flatten_object(o),
        Value::Null => (String::new(), false, Vec::new()),
        other => (other.to_string(), false, Vec::new()),
    }
}

fn is_content_array(items: &[Value]) -> bool {
    !items.is_empty()
        && items.iter().all(|i| {
            i.as_object()
                .is_some_and(|o| o.contains_key("type") || o.contains_key("text"))
        })
}

fn flatten_array(items: &[Value]) -> (String, bool, Vec<Part>) {
    let mut text = String::new();
    let mut attachments = Vec::new();
    for part in content_parts(Some(&Value::Array(items.to_vec()))) {
        match part {
            Part::Text { text: t } => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&t);
            }
            other => attachments.push(other),
        }
    }
    // Items without a type but with a text (bare-era MCP results) were kept as Unknown: use
    // their text.
    attachments.retain(|p| match p {
        Part::Unknown { raw, .. } => match raw.get("text").and_then(Value::as_str) {
            Some(t) => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(t);
                false
            }
            None => true,
        },
        _ => true,
    });
    let err = text_is_error(&text);
    (text, err, attachments)
}

fn flatten_object(o: &Obj) -> (String, bool, Vec<Part>) {
    // {output, metadata:{exit_code}} (shell tool, JSON string or object)
    if let Some(out) = o.get("output") {
        let (text, err, att) = flatten_output(out);
        let exit = o
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(Value::as_i64);
        let err = match exit {
            Some(code) => code != 0,
            None => err,
        } || o.get("success") == Some(&Value::Bool(false));
        return (text, err, att);
    }
    // {content, success}
    if let Some(content) = o.get("content") {
        let (text, err, att) = flatten_output(content);
        let success = o.get("success").and_then(Value::as_bool);
        return (text, success.map_or(err, |s| !s), att);
    }
    // A single content item.
    if o.contains_key("type") {
        return flatten_array(&[Value::Object(o.clone())]);
    }
    let err = o.get("success") == Some(&Value::Bool(false));
    (Value::Object(o.clone()).to_string(), err, Vec::new())
}

/// Failure signals in a plain-text tool output.
fn text_is_error(s: &str) -> bool {
    let t = s.trim_start();
    if let Some(rest) = t.strip_prefix("Exit code: ") {
        return leading_int(rest).is_some_and(|c| c != 0);
    }
    // Unified exec: a short header ending in "Process exited with code N".
    let head: String = t.lines().take(6).collect::<Vec<_>>().join("\n");
    if let Some(pos) = head.find("Process exited with code ") {
        let code = &head[pos + "Process exited with code ".len()..];
        return leading_int(code).is_some_and(|c| c != 0);
    }
    let lower: String = t.chars().take(40).collect::<String>().to_lowercase();
    [
        "error:",
        "err:",
        "tool call error",
        "failed in sandbox",
        "aborted",
        "patch rejected",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

fn leading_int(s: &str) -> Option<i64> {
    let digits: String = s
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// All readable text of a ResponseItem (for size estimates).
pub(super) fn collect_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => {
            for x in a {
                collect_text(x, out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                if matches!(
                    k.as_str(),
                    "text" | "content" | "summary" | "output" | "arguments" | "input" | "message"
                ) {
                    collect_text(x, out);
                }
            }
        }
        _ => {}
    }
}

/// The uuid at the end of `rollout-<stamp>-<uuid>.jsonl[.zst]`, else the file stem.
pub(super) fn id_from_path(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let stem = name
        .trim_end_matches(".zst")
        .trim_end_matches(".jsonl")
        .trim_end_matches(".json")
        .to_string();
    // `get` rather than indexing: a non-ASCII name must not split a character.
    match stem.get(stem.len().saturating_sub(36)..) {
        Some(tail) if is_uuid(tail) => tail.to_string(),
        _ => stem,
    }
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}
