//! Content and tool-output helpers of the Codex parser: message content items, images, every
//! recorded tool-output shape with its failure signals, harness-message detection, prompt keys.

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::Obj;
use crate::model::{Part, TextSize};
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
            url: None,
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
            url: None,
        };
    }
    Part::Image {
        media_type: None,
        bytes: None,
        data: None,
        url: url.map(str::to_string),
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

/// Whether a text part is one of the tags codex-rs wraps around an image it shows the model
/// (`<image name=[Image #1]>` before the `input_image`, `</image>` after it). The human never
/// typed them, and the `user_message` event does not carry them.
pub(super) fn is_image_wrapper(text: &str) -> bool {
    let t = text.trim();
    if t == "</image>" {
        return true;
    }
    t.strip_prefix("<image").is_some_and(|rest| {
        (rest == ">" || rest.starts_with(char::is_whitespace))
            && rest.ends_with('>')
            && !rest.contains('\n')
    })
}

/// The text of a `role:user` copy as the human typed it: its text parts without the image
/// wrapper tags, one per line.
pub(super) fn copy_text(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        if let Part::Text { text } = p
            && !is_image_wrapper(text)
        {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text);
        }
    }
    out
}

/// The attachments of a prompt whose event and `role:user` copy were merged: the copy's
/// decoded images when it has any, else the event's (`images` URLs, `local_images` paths),
/// else whatever else the copy held.
pub(super) fn merged_attachments(copy: Vec<Part>, event: Vec<Part>) -> Vec<Part> {
    let copy_has_data = copy.iter().any(|p| {
        matches!(
            p,
            Part::Image { data: Some(_), .. } | Part::Image { bytes: Some(_), .. }
        )
    });
    if copy_has_data || event.is_empty() {
        copy
    } else {
        event
    }
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
            if trimmed.starts_with('{')
                && let Some(flat) = shell_result(s)
            {
                return flat;
            }
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

/// The shell tool's result as most rollouts record it, a JSON string
/// `{"output": "…", "metadata": {"exit_code": N, …}}`, flattened as [`flatten_object`] would
/// flatten its tree, without building the tree (the output is copied once, not three times).
/// `None` for any other shape (an output that is not a string or is itself JSON, a repeated
/// key): the tree then decides.
fn shell_result(s: &str) -> Option<(String, bool, Vec<Part>)> {
    let r: Shell<String> = serde_json::from_str(s).ok()?;
    let out = r.output.trim_start();
    if out.starts_with('{') || out.starts_with('[') {
        return None;
    }
    let err = r.failed(|| text_is_error(&r.output));
    Some((r.output, err, Vec::new()))
}

/// [`shell_result`] in the measured view, which keeps an output's size and not its text: the
/// size and whether the result failed, without decoding the output
/// ([`literal_size`](crate::parse::json::literal_size) and [`text_head`] read it as its JSON
/// literal). `None` wherever `shell_result` gives none, and where the output needs decoding
/// after all (a lone surrogate escape): the output is then flattened the usual way.
pub(super) fn shell_result_measured(v: &Value) -> Option<(TextSize, bool)> {
    let Value::String(s) = v else {
        return None;
    };
    if !s.trim_start().starts_with('{') {
        return None;
    }
    let r: Shell<&serde_json::value::RawValue> = serde_json::from_str(s).ok()?;
    let raw = r.output.get();
    if starts_as_json(raw)? {
        return None;
    }
    let size = crate::parse::json::literal_size(raw)?;
    // Its text is read only when no exit code decides, as far as `text_is_error` reads it.
    let text_error = || matches!(text_head(raw), Some(Head::Text(head)) if text_is_error(&head));
    Some((size, r.failed(text_error)))
}

/// A shell result, its `output` read as `O`: decoded ([`shell_result`]) or as its JSON text
/// ([`shell_result_measured`]).
#[derive(serde::Deserialize)]
struct Shell<O> {
    output: O,
    #[serde(default)]
    metadata: Option<crate::parse::json::Obj<Metadata>>,
    #[serde(default)]
    success: Option<Value>,
}

/// A shell result's `metadata`: only `exit_code` is read of it, the rest is skipped, not built.
#[derive(serde::Deserialize)]
struct Metadata {
    #[serde(default)]
    exit_code: Option<Value>,
}

impl<O> Shell<O> {
    /// Whether the result failed: by its exit code, or without one by what its text says
    /// (`text_error`, asked only then); and whenever it says `success: false`.
    fn failed(&self, text_error: impl FnOnce() -> bool) -> bool {
        let exit = self
            .metadata
            .as_ref()
            .and_then(|m| m.get()?.exit_code.as_ref())
            .and_then(Value::as_i64);
        let by_exit = match exit {
            Some(code) => code != 0,
            None => text_error(),
        };
        by_exit || self.success == Some(Value::Bool(false))
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

/// A tool output as the summary view reads it: only whether it reports a failure, decided by
/// the rules of [`flatten_output`] while the output streams by, without keeping its text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct OutputError {
    /// `flatten_output(v).1`.
    pub(super) is_error: bool,
    shape: Shape,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Shape {
    #[default]
    Scalar,
    /// An object with an `output` key.
    WithOutput,
    /// An array that [`is_content_array`] accepts.
    ContentArray,
    Other,
}

impl OutputError {
    fn of_string(s: &str) -> Self {
        let trimmed = s.trim_start();
        if (trimmed.starts_with('{') || trimmed.starts_with('['))
            && let Ok(Structured(inner)) = serde_json::from_str::<Structured>(s)
            && matches!(inner.shape, Shape::WithOutput | Shape::ContentArray)
        {
            return OutputError {
                is_error: inner.is_error,
                shape: Shape::Scalar,
            };
        }
        OutputError {
            is_error: text_is_error(s),
            shape: Shape::Scalar,
        }
    }
}

/// The text a content item contributes to a flattened output (content_parts, then the
/// `text` of items kept as unknown): `(text, from_unknown)`.
#[derive(Default)]
struct ItemText {
    ty: Option<String>,
    has_type: bool,
    has_text: bool,
    text: Option<String>,
    refusal: Option<String>,
    is_object: bool,
}

impl ItemText {
    /// `(text of a Text part, text of an Unknown part)` per `content_parts` + `flatten_array`.
    fn texts(self) -> (Option<String>, Option<String>) {
        if !self.is_object {
            return (self.text, None);
        }
        match self.ty.as_deref().unwrap_or("") {
            "input_text" | "output_text" | "text" | "Text" | "inputText" => (self.text, None),
            "refusal" => (self.refusal, None),
            "input_image" | "image" | "Image" | "encrypted_content" => (None, None),
            _ => (None, self.text),
        }
    }
}

impl<'de> Deserialize<'de> for ItemText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ItemText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content item")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ItemText, E> {
                Ok(ItemText {
                    text: Some(v.to_string()),
                    ..ItemText::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ItemText, A::Error> {
                let mut it = ItemText {
                    is_object: true,
                    ..ItemText::default()
                };
                while let Some(key) = map.next_key::<crate::parse::json::Key>()? {
                    match &*key {
                        "type" => {
                            it.has_type = true;
                            it.ty = map.next_value::<crate::parse::json::Str>()?.owned();
                        }
                        "text" => {
                            it.has_text = true;
                            it.text = map.next_value::<crate::parse::json::Str>()?.owned();
                        }
                        "refusal" => {
                            it.refusal = map.next_value::<crate::parse::json::Str>()?.owned();
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(it)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ItemText, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ItemText::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<ItemText, E> {
                Ok(ItemText::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<ItemText, E> {
                Ok(ItemText::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<ItemText, E> {
                Ok(ItemText::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<ItemText, E> {
                Ok(ItemText::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<ItemText, E> {
                Ok(ItemText::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// `flatten_array`'s failure signal over items read one by one.
fn array_error(items: Vec<ItemText>) -> (bool, bool) {
    let content_array = !items.is_empty()
        && items
            .iter()
            .all(|i| i.is_object && (i.has_type || i.has_text));
    let mut text = String::new();
    let mut unknown = Vec::new();
    for it in items {
        let (t, u) = it.texts();
        if let Some(t) = t {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&t);
        }
        unknown.extend(u);
    }
    for t in unknown {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&t);
    }
    (text_is_error(&text), content_array)
}

impl<'de> Deserialize<'de> for OutputError {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Structured::deserialize(d).map(|s| s.0)
    }
}

impl OutputError {
    fn of_raw(raw: &str) -> Self {
        match raw.as_bytes().first() {
            Some(b'"') => match text_head(raw) {
                Some(Head::Text(head)) => OutputError {
                    is_error: text_is_error(&head),
                    shape: Shape::Scalar,
                },
                // JSON inside the string, or an odd literal: decode it whole.
                _ => match crate::parse::read::decode_string(raw) {
                    Some(s) => OutputError::of_string(&s),
                    None => OutputError::default(),
                },
            },
            Some(b'{' | b'[') => {
                serde_json::from_str::<Structured>(raw).map_or(OutputError::default(), |s| s.0)
            }
            _ => OutputError::default(),
        }
    }
}

/// What [`text_head`] found at the start of a JSON string literal.
enum Head {
    /// The string starts (after whitespace) with `{` or `[`: it may hold JSON.
    Json,
    /// Enough of the decoded text for [`text_is_error`]: the first six lines and 40
    /// characters after leading whitespace, or the whole string.
    Text(String),
}

/// Decode the start of a JSON string literal (`raw` includes the quotes). `None` when the
/// literal is not one this decoder handles (the caller then decodes it whole).
fn text_head(raw: &str) -> Option<Head> {
    decode_head(raw, false)
}

/// Whether the text of a JSON string literal starts, after whitespace, as JSON does (with
/// `{` or `[`): [`text_head`] decoding no further than that character.
fn starts_as_json(raw: &str) -> Option<bool> {
    Some(matches!(decode_head(raw, true)?, Head::Json))
}

/// [`text_head`], or with `first` only up to the first character after whitespace.
fn decode_head(raw: &str, first: bool) -> Option<Head> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let b = inner.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let (mut started, mut lines, mut chars) = (false, 0usize, 0usize);
    let mut push = |out: &mut String, c: char| -> Option<bool> {
        if !started {
            if c.is_whitespace() {
                out.push(c);
                return Some(false);
            }
            started = true;
            if c == '{' || c == '[' {
                return None;
            }
        }
        out.push(c);
        chars += 1;
        if c == '\n' {
            lines += 1;
        }
        Some(first || (lines >= 6 && chars >= 40))
    };
    while i < b.len() {
        if b[i] != b'\\' {
            // Copy a run of plain characters, one char at a time only until the text starts.
            let c = inner[i..].chars().next()?;
            let done = push(&mut out, c);
            match done {
                None => return Some(Head::Json),
                Some(true) => return Some(Head::Text(out)),
                Some(false) => {}
            }
            i += c.len_utf8();
            continue;
        }
        let c = match *b.get(i + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = u32::from_str_radix(inner.get(i + 2..i + 6)?, 16).ok()?;
                let lo = (inner.get(i + 6..i + 8) == Some("\\u"))
                    .then(|| inner.get(i + 8..i + 12))
                    .flatten()
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .filter(|lo| (0xDC00..0xE000).contains(lo));
                i += 4;
                match (hi, lo) {
                    (0xD800..=0xDBFF, Some(lo)) => {
                        i += 6;
                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                    }
                    // A lone surrogate: U+FFFD, as the line reader repairs it.
                    (0xD800..=0xDFFF, _) => '\u{fffd}',
                    _ => char::from_u32(hi)?,
                }
            }
            _ => return None,
        };
        i += 2;
        match push(&mut out, c) {
            None => return Some(Head::Json),
            Some(true) => return Some(Head::Text(out)),
            Some(false) => {}
        }
    }
    Some(Head::Text(out))
}

/// An output that is a JSON object or array, read by the rules of [`flatten_output`].
struct Structured(OutputError);

impl<'de> Deserialize<'de> for Structured {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OutputError;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tool output")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OutputError, E> {
                Ok(OutputError::of_string(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OutputError, A::Error> {
                let mut items = Vec::new();
                while let Some(it) = seq.next_element::<ItemText>()? {
                    items.push(it);
                }
                let (is_error, content_array) = array_error(items);
                Ok(OutputError {
                    is_error,
                    shape: if content_array {
                        Shape::ContentArray
                    } else {
                        Shape::Other
                    },
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OutputError, A::Error> {
                let mut output: Option<&'de serde_json::value::RawValue> = None;
                let mut content: Option<OutputError> = None;
                let mut exit_code: Option<i64> = None;
                let mut success: Option<bool> = None;
                let mut item = ItemText {
                    is_object: true,
                    ..ItemText::default()
                };
                while let Some(key) = map.next_key::<crate::parse::json::Key>()? {
                    match &*key {
                        // Read only when no exit code decides (most JSON outputs carry one).
                        "output" => output = Some(map.next_value()?),
                        "content" => content = Some(map.next_value()?),
                        "metadata" => {
                            let m: crate::parse::json::Obj<ExitCode> = map.next_value()?;
                            exit_code = m.get().and_then(|m| m.exit_code.0);
                        }
                        "success" => success = map.next_value::<crate::parse::json::OptBool>()?.0,
                        "type" => {
                            item.has_type = true;
                            item.ty = map.next_value::<crate::parse::json::Str>()?.owned();
                        }
                        "text" => item.text = map.next_value::<crate::parse::json::Str>()?.owned(),
                        "refusal" => {
                            item.refusal = map.next_value::<crate::parse::json::Str>()?.owned();
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let failed = success == Some(false);
                let (is_error, shape) = if let Some(out) = output {
                    let failed_code = match exit_code {
                        Some(c) => c != 0,
                        None => OutputError::of_raw(out.get()).is_error,
                    };
                    (failed_code || failed, Shape::WithOutput)
                } else if let Some(c) = content {
                    (success.map_or(c.is_error, |s| !s), Shape::Other)
                } else if item.has_type {
                    (array_error(vec![item]).0, Shape::Other)
                } else {
                    (failed, Shape::Other)
                };
                Ok(OutputError { is_error, shape })
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<OutputError, E> {
                Ok(OutputError::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<OutputError, E> {
                Ok(OutputError::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<OutputError, E> {
                Ok(OutputError::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<OutputError, E> {
                Ok(OutputError::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<OutputError, E> {
                Ok(OutputError::default())
            }
        }
        d.deserialize_any(V).map(Structured)
    }
}

/// `metadata.exit_code` as `Value::as_i64` reads it.
#[derive(serde::Deserialize, Default)]
struct ExitCode {
    #[serde(default)]
    exit_code: I64,
}

#[derive(Default)]
struct I64(Option<i64>);

impl<'de> Deserialize<'de> for I64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(I64(match Value::deserialize(d)? {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }))
    }
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
    let stem = stem(path);
    match uuid_tail(&stem) {
        Some(tail) => tail.to_string(),
        None => stem,
    }
}

/// The uuid a rollout's file name ends with, if it ends with one.
pub fn rollout_uuid(path: &Path) -> Option<String> {
    uuid_tail(&stem(path)).map(str::to_string)
}

fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name.trim_end_matches(".zst")
        .trim_end_matches(".jsonl")
        .trim_end_matches(".json")
        .to_string()
}

fn uuid_tail(stem: &str) -> Option<&str> {
    // `get` rather than indexing: a non-ASCII name must not split a character.
    stem.get(stem.len().saturating_sub(36)..)
        .filter(|tail| is_uuid(tail))
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
