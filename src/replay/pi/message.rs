//! Pi's in-memory `AgentMessage`s (the shape both Pi and OpenClaw estimate), the conversion from
//! the engine's [`HistoryItem`]s, and Pi 0.73.1's per-message functions: `estimateTokens`, the
//! length of `serializeConversation`, file operations and `estimateContextTokens`.

use std::borrow::Cow;

use serde_json::Value;

use super::js::{json_len, json_str_len, len16};
use crate::model::{JsonShape, JsonTree, Part, Role, TextSize, ToolInput};
use crate::replay::HistoryItem;

/// Pi's chars-per-token heuristic (`Math.ceil(chars / 4)` per message).
pub const CHARS_PER_TOKEN: u64 = 4;
/// `estimateTokens`: an image block in a `toolResult` or `custom` message (user images count 0
/// in 0.73.1).
pub const IMAGE_CHARS: u64 = 4_800;
/// `TOOL_RESULT_MAX_CHARS` of `serializeConversation` (compaction/utils.ts).
pub const TOOL_RESULT_MAX_CHARS: usize = 2_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Block<'a> {
    Text(Cow<'a, str>),
    /// A text block measured rather than kept (a tool output of the replays' measured parse,
    /// [`Detail::Measured`](crate::parse::Detail::Measured)): its UTF-16 length. It counts as
    /// the text it stands for.
    Measured(usize),
    Thinking(Cow<'a, str>),
    Image,
    ToolCall {
        name: Cow<'a, str>,
        arguments: Cow<'a, ToolInput>,
    },
}

/// `content: string | Block[]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Content<'a> {
    Str(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

impl Content<'_> {
    fn blocks(&self) -> &[Block<'_>] {
        match self {
            Content::Str(_) => &[],
            Content::Blocks(b) => b,
        }
    }
}

/// An assistant message's `usage`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total_tokens: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage<'a> {
    User {
        content: Content<'a>,
    },
    Assistant {
        content: Vec<Block<'a>>,
        usage: Option<Usage>,
        stop_reason: Option<String>,
    },
    ToolResult {
        tool_name: Option<Cow<'a, str>>,
        content: Content<'a>,
        is_error: bool,
    },
    Custom {
        content: Content<'a>,
    },
    BashExecution {
        command: Cow<'a, str>,
        output: Cow<'a, str>,
    },
    BranchSummary {
        summary: Cow<'a, str>,
    },
    CompactionSummary {
        summary: Cow<'a, str>,
    },
    /// A role 0.73.1 does not know (`developer`, …): estimated as 0.
    Other,
}

impl AgentMessage<'_> {
    pub fn role(&self) -> &'static str {
        match self {
            AgentMessage::User { .. } => "user",
            AgentMessage::Assistant { .. } => "assistant",
            AgentMessage::ToolResult { .. } => "toolResult",
            AgentMessage::Custom { .. } => "custom",
            AgentMessage::BashExecution { .. } => "bashExecution",
            AgentMessage::BranchSummary { .. } => "branchSummary",
            AgentMessage::CompactionSummary { .. } => "compactionSummary",
            AgentMessage::Other => "other",
        }
    }
}

fn attachment_blocks<'a>(attachments: &'a [Part], out: &mut Vec<Block<'a>>) {
    for a in attachments {
        match a {
            Part::Image { .. } => out.push(Block::Image),
            Part::Text { text } => out.push(Block::Text(Cow::Borrowed(text))),
            _ => {}
        }
    }
}

fn tool_result<'a>(
    name: Option<&'a String>,
    output: &'a str,
    output_size: Option<TextSize>,
    attachments: &'a [Part],
    is_error: bool,
    keep_text: bool,
) -> AgentMessage<'a> {
    // Measured once here: the estimate, the serialised length and the pruning each size the
    // output again, and the replays read none of its characters (a measured parse never kept
    // them). Only the literal pruner, which rewrites text, is given the text.
    let text = match output_size {
        Some(size) => Block::Measured(size.utf16 as usize),
        None if keep_text => Block::Text(Cow::Borrowed(output)),
        None => Block::Measured(len16(output)),
    };
    let mut blocks = vec![text];
    attachment_blocks(attachments, &mut blocks);
    AgentMessage::ToolResult {
        tool_name: name.map(|n| Cow::Borrowed(n.as_str())),
        content: Content::Blocks(blocks),
        is_error,
    }
}

/// The messages Pi (and OpenClaw) would hold for one history item:
///
/// - a user item is one `user` message (text and image blocks, in order); any tool results it
///   carries become `toolResult` messages at their position;
/// - an assistant item is one `assistant` message (text, thinking, `toolCall{name, arguments}`;
///   images dropped: Pi assistants have none);
/// - a tool item is one `toolResult` per result part (text = the output, then its image/text
///   attachments; `toolName` from the call); stray text or images of a tool item form one
///   more `toolResult` without a name.
///
/// Every item yields at least one message, so items and messages stay aligned. A tool
/// output is measured ([`Block::Measured`]), not borrowed.
pub fn from_item(item: &HistoryItem) -> Vec<AgentMessage<'_>> {
    messages_of(item, false)
}

/// [`from_item`] with the text of tool outputs the parse kept, for the literal pruner (which
/// rewrites it) that the incremental replay is tested against.
#[cfg(test)]
pub fn from_item_kept(item: &HistoryItem) -> Vec<AgentMessage<'_>> {
    messages_of(item, true)
}

fn messages_of(item: &HistoryItem, keep_text: bool) -> Vec<AgentMessage<'_>> {
    let mut out = Vec::new();
    let name = |k: usize| item.tool_names.get(k).and_then(|n| n.as_ref());
    match item.role {
        Role::Assistant => {
            let mut content = Vec::new();
            let mut results = Vec::new();
            for (k, p) in item.parts.iter().enumerate() {
                match p {
                    Part::Text { text } => content.push(Block::Text(Cow::Borrowed(text))),
                    Part::Thinking { text } => content.push(Block::Thinking(Cow::Borrowed(text))),
                    Part::ToolCall { name, input, .. } => content.push(Block::ToolCall {
                        name: Cow::Borrowed(name),
                        arguments: Cow::Borrowed(input),
                    }),
                    Part::ToolResult {
                        output,
                        attachments,
                        is_error,
                        output_size,
                        ..
                    } => results.push(tool_result(
                        name(k),
                        output,
                        *output_size,
                        attachments,
                        *is_error,
                        keep_text,
                    )),
                    _ => {}
                }
            }
            out.push(AgentMessage::Assistant {
                content,
                usage: None,
                stop_reason: None,
            });
            out.extend(results);
        }
        Role::User | Role::Tool | Role::System => {
            let user = item.role != Role::Tool;
            let mut blocks: Vec<Block> = Vec::new();
            for (k, p) in item.parts.iter().enumerate() {
                match p {
                    Part::Text { text } => blocks.push(Block::Text(Cow::Borrowed(text))),
                    Part::Image { .. } => blocks.push(Block::Image),
                    Part::ToolResult {
                        output,
                        attachments,
                        is_error,
                        output_size,
                        ..
                    } => {
                        if !blocks.is_empty() {
                            out.push(loose(user, std::mem::take(&mut blocks)));
                        }
                        out.push(tool_result(
                            name(k),
                            output,
                            *output_size,
                            attachments,
                            *is_error,
                            keep_text,
                        ));
                    }
                    _ => {}
                }
            }
            if !blocks.is_empty() || out.is_empty() {
                out.push(loose(user, blocks));
            }
        }
    }
    out
}

fn loose(user: bool, blocks: Vec<Block<'_>>) -> AgentMessage<'_> {
    if user {
        AgentMessage::User {
            content: Content::Blocks(blocks),
        }
    } else {
        AgentMessage::ToolResult {
            tool_name: None,
            content: Content::Blocks(blocks),
            is_error: false,
        }
    }
}

/// The character count behind `estimateTokens` (before `ceil(chars / 4)`).
pub fn estimate_chars(m: &AgentMessage<'_>) -> u64 {
    sizes(m, usize::MAX).0
}

/// Pi 0.73.1 `estimateTokens(message)`: `ceil(chars / 4)` with the per-role rules above.
pub fn estimate_tokens(m: &AgentMessage<'_>) -> u64 {
    estimate_chars(m).div_ceil(CHARS_PER_TOKEN)
}

/// What one message adds to `serializeConversation(convertToLlm(messages))`: the characters of
/// its parts (`[User]: …`, `[Assistant thinking]: …`, `[Assistant]: …`,
/// `[Assistant tool calls]: …`, `[Tool result]: …` truncated to `tool_result_max` chars) and
/// how many parts; parts are joined with `"\n\n"` (see [`serialized_len`]). Only the roles the
/// replay produces (user, assistant, toolResult, custom) are serialised; others give nothing.
pub fn serialized(m: &AgentMessage<'_>, tool_result_max: usize) -> (u64, u64) {
    sizes(m, tool_result_max).1
}

/// [`estimate_chars`] and [`serialized`] of one message, in one pass over its text: the replay
/// needs both for every message, and both size the same strings (a tool call's arguments as
/// JSON above all, which `estimateTokens` takes whole and the serialisation entry by entry).
pub fn sizes(m: &AgentMessage<'_>, tool_result_max: usize) -> (u64, (u64, u64)) {
    // The text blocks joined (what both count) and the images (which only the estimate
    // counts, at `image_chars` each).
    let text = |content: &Content<'_>, image_chars: u64| -> (u64, u64) {
        match content {
            Content::Str(s) => (len16(s) as u64, 0),
            Content::Blocks(blocks) => blocks.iter().fold((0, 0), |(n, images), b| match b {
                Block::Image => (n, images + image_chars),
                b => (n + b.text_len().unwrap_or(0) as u64, images),
            }),
        }
    };
    match m {
        AgentMessage::User { content } | AgentMessage::Custom { content } => {
            let image_chars = match m {
                AgentMessage::User { .. } => 0,
                _ => IMAGE_CHARS,
            };
            let (n, images) = text(content, image_chars);
            let ser = if n == 0 {
                (0, 0)
            } else {
                ("[User]: ".len() as u64 + n, 1)
            };
            (n + images, ser)
        }
        AgentMessage::Assistant { content, .. } => {
            let (mut text, mut texts, mut think, mut thinks, mut calls, mut ncalls) =
                (0, 0, 0, 0, 0, 0);
            let mut estimate = 0;
            for b in content {
                match b {
                    Block::Text(_) | Block::Measured(_) => {
                        let n = b.text_len().unwrap_or(0);
                        estimate += n;
                        text += n;
                        texts += 1;
                    }
                    Block::Thinking(t) => {
                        let n = len16(t);
                        estimate += n;
                        think += n;
                        thinks += 1;
                    }
                    Block::ToolCall { name, arguments } => {
                        let name = len16(name);
                        let (json, entries) = arguments_lens(arguments.tree());
                        estimate += name + json;
                        calls += name + 2 + entries;
                        ncalls += 1;
                    }
                    Block::Image => {}
                }
            }
            let (mut chars, mut parts) = (0usize, 0u64);
            if thinks > 0 {
                chars += "[Assistant thinking]: ".len() + think + (thinks - 1);
                parts += 1;
            }
            if texts > 0 {
                chars += "[Assistant]: ".len() + text + (texts - 1);
                parts += 1;
            }
            if ncalls > 0 {
                chars += "[Assistant tool calls]: ".len() + calls + 2 * (ncalls - 1);
                parts += 1;
            }
            (estimate as u64, (chars as u64, parts))
        }
        AgentMessage::ToolResult { content, .. } => {
            let (n, images) = text(content, IMAGE_CHARS);
            if n == 0 {
                return (images, (0, 0));
            }
            let kept = if n as usize <= tool_result_max {
                n
            } else {
                (tool_result_max
                    + format!(
                        "\n\n[... {} more characters truncated]",
                        n as usize - tool_result_max
                    )
                    .len()) as u64
            };
            (n + images, ("[Tool result]: ".len() as u64 + kept, 1))
        }
        AgentMessage::BashExecution { command, output } => {
            ((len16(command) + len16(output)) as u64, (0, 0))
        }
        AgentMessage::BranchSummary { summary } | AgentMessage::CompactionSummary { summary } => {
            (len16(summary) as u64, (0, 0))
        }
        AgentMessage::Other => (0, (0, 0)),
    }
}

/// A tool call's arguments: `JSON.stringify(args).length`, and
/// `Object.entries(args).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")`.length, from
/// one sizing of each entry's value.
fn arguments_lens<T: JsonTree + ?Sized>(v: &T) -> (usize, usize) {
    let joined = |entries: usize, sum: usize| sum + 2 * entries.saturating_sub(1);
    match v.shape() {
        JsonShape::Object(n) => {
            let (mut json, mut args) = (2 + n.saturating_sub(1), 0);
            v.each_child(&mut |k, v| {
                let k = k.unwrap_or_default();
                let value = json_len(v);
                json += json_str_len(k) + 1 + value;
                args += len16(k) + 1 + value;
            });
            (json, joined(n, args))
        }
        JsonShape::Array(n) => {
            let (mut json, mut args, mut i) = (2 + n.saturating_sub(1), 0, 0usize);
            v.each_child(&mut |_, v| {
                let value = json_len(v);
                json += value;
                args += i.to_string().len() + 1 + value;
                i += 1;
            });
            (json, joined(n, args))
        }
        // Object.entries of a string: one entry per UTF-16 code unit.
        JsonShape::Str(s) => {
            let (mut i, mut args) = (0usize, 0usize);
            for c in s.chars() {
                if c.len_utf16() == 2 {
                    // each half is a lone surrogate, written as \udXXX
                    for _ in 0..2 {
                        args += i.to_string().len() + 1 + 8;
                        i += 1;
                    }
                } else {
                    let mut buf = [0u8; 4];
                    args += i.to_string().len() + 1 + json_str_len(c.encode_utf8(&mut buf));
                    i += 1;
                }
            }
            (json_str_len(s), joined(i, args))
        }
        _ => (json_len(v), 0),
    }
}

/// `serializeConversation(messages).length` from the per-message `(chars, parts)` sums.
pub fn serialized_len(chars: u64, parts: u64) -> u64 {
    if parts == 0 {
        0
    } else {
        chars + 2 * (parts - 1)
    }
}

/// Which file operation a tool call is (`extractFileOpsFromMessage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    Read,
    Write,
    Edit,
}

/// File operations of an assistant message: tool calls named exactly `read`, `write` or `edit`
/// with a non-empty string `arguments.path`.
pub fn file_ops<'m>(m: &'m AgentMessage<'_>) -> Vec<(FileOp, &'m str)> {
    let AgentMessage::Assistant { content, .. } = m else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for b in content {
        if let Block::ToolCall { name, arguments } = b {
            let op = match name.as_ref() {
                "read" => FileOp::Read,
                "write" => FileOp::Write,
                "edit" => FileOp::Edit,
                _ => continue,
            };
            if let Some(p) = arguments.str_at("path")
                && !p.is_empty()
            {
                out.push((op, p));
            }
        }
    }
    out
}

/// `formatFileOperations(readFiles, modifiedFiles).length` from the list sizes: the number of
/// paths and their total UTF-16 length, for the read-only and the modified list.
pub fn file_lists_len(read: (u64, u64), modified: (u64, u64)) -> u64 {
    let section = |(n, chars): (u64, u64), open: &str, close: &str| {
        (n > 0).then(|| (open.len() + close.len()) as u64 + chars + (n - 1))
    };
    let sections: Vec<u64> = [
        section(read, "<read-files>\n", "\n</read-files>"),
        section(modified, "<modified-files>\n", "\n</modified-files>"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if sections.is_empty() {
        0
    } else {
        2 + sections.iter().sum::<u64>() + 2 * (sections.len() as u64 - 1)
    }
}

/// `calculateContextTokens(usage)`: `totalTokens`, or the sum of the parts when it is 0.
pub fn context_tokens_of(u: &Usage) -> u64 {
    if u.total_tokens != 0 {
        u.total_tokens
    } else {
        u.input + u.output + u.cache_read + u.cache_write
    }
}

/// `estimateContextTokens(messages).tokens`: the usage of the last assistant with valid usage
/// (not `aborted` or `error`) plus the estimates of the messages after it; without one, the sum
/// of all estimates.
pub fn estimate_context_tokens(messages: &[AgentMessage<'_>]) -> u64 {
    let last = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| match m {
            AgentMessage::Assistant {
                usage: Some(u),
                stop_reason,
                ..
            } if !matches!(stop_reason.as_deref(), Some("aborted" | "error")) => Some((i, u)),
            _ => None,
        });
    match last {
        Some((i, u)) => {
            context_tokens_of(u) + messages[i + 1..].iter().map(estimate_tokens).sum::<u64>()
        }
        None => messages.iter().map(estimate_tokens).sum(),
    }
}

/// Parse a Pi `AgentMessage` as JSON (golden vectors, Pi transcripts).
pub fn from_json(v: &Value) -> AgentMessage<'static> {
    let s = |v: Option<&Value>| Cow::Owned(v.and_then(Value::as_str).unwrap_or("").to_string());
    let blocks = |v: &Value| -> Vec<Block<'static>> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => Some(Block::Text(s(b.get("text")))),
                        Some("thinking") => Some(Block::Thinking(s(b.get("thinking")))),
                        Some("image") => Some(Block::Image),
                        Some("toolCall") => Some(Block::ToolCall {
                            name: s(b.get("name")),
                            arguments: Cow::Owned(
                                b.get("arguments").cloned().unwrap_or(Value::Null).into(),
                            ),
                        }),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let content = |v: Option<&Value>| match v {
        Some(Value::String(t)) => Content::Str(Cow::Owned(t.clone())),
        Some(v) => Content::Blocks(blocks(v)),
        None => Content::Blocks(Vec::new()),
    };
    let num = |u: &Value, k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    match v.get("role").and_then(Value::as_str) {
        Some("user") => AgentMessage::User {
            content: content(v.get("content")),
        },
        Some("assistant") => AgentMessage::Assistant {
            content: v.get("content").map(blocks).unwrap_or_default(),
            usage: v.get("usage").map(|u| Usage {
                input: num(u, "input"),
                output: num(u, "output"),
                cache_read: num(u, "cacheRead"),
                cache_write: num(u, "cacheWrite"),
                total_tokens: num(u, "totalTokens"),
            }),
            stop_reason: v
                .get("stopReason")
                .and_then(Value::as_str)
                .map(str::to_string),
        },
        Some("toolResult") => AgentMessage::ToolResult {
            tool_name: v
                .get("toolName")
                .and_then(Value::as_str)
                .map(|n| Cow::Owned(n.to_string())),
            content: content(v.get("content")),
            is_error: v.get("isError").and_then(Value::as_bool).unwrap_or(false),
        },
        Some("custom") => AgentMessage::Custom {
            content: content(v.get("content")),
        },
        Some("bashExecution") => AgentMessage::BashExecution {
            command: s(v.get("command")),
            output: s(v.get("output")),
        },
        Some("branchSummary") => AgentMessage::BranchSummary {
            summary: s(v.get("summary")),
        },
        Some("compactionSummary") => AgentMessage::CompactionSummary {
            summary: s(v.get("summary")),
        },
        _ => AgentMessage::Other,
    }
}

impl<'a> Content<'a> {
    /// The text blocks (a string content is one block).
    pub fn texts(&self) -> Vec<&str> {
        match self {
            Content::Str(s) => vec![s.as_ref()],
            Content::Blocks(b) => b
                .iter()
                .filter_map(|b| match b {
                    Block::Text(t) => Some(t.as_ref()),
                    _ => None,
                })
                .collect(),
        }
    }

    pub fn has_image(&self) -> bool {
        self.blocks().iter().any(|b| matches!(b, Block::Image))
    }
}

impl Block<'_> {
    /// The UTF-16 length of a text block, kept or measured.
    pub fn text_len(&self) -> Option<usize> {
        match self {
            Block::Text(t) => Some(len16(t)),
            Block::Measured(n) => Some(*n),
            _ => None,
        }
    }

    pub fn into_owned(self) -> Block<'static> {
        match self {
            Block::Text(t) => Block::Text(Cow::Owned(t.into_owned())),
            Block::Measured(n) => Block::Measured(n),
            Block::Thinking(t) => Block::Thinking(Cow::Owned(t.into_owned())),
            Block::Image => Block::Image,
            Block::ToolCall { name, arguments } => Block::ToolCall {
                name: Cow::Owned(name.into_owned()),
                arguments: Cow::Owned(arguments.into_owned()),
            },
        }
    }
}

impl Content<'_> {
    pub fn into_owned(self) -> Content<'static> {
        match self {
            Content::Str(s) => Content::Str(Cow::Owned(s.into_owned())),
            Content::Blocks(b) => Content::Blocks(b.into_iter().map(Block::into_owned).collect()),
        }
    }
}

impl AgentMessage<'_> {
    /// The same message, owning its text.
    pub fn into_owned(self) -> AgentMessage<'static> {
        let own = |s: Cow<'_, str>| -> Cow<'static, str> { Cow::Owned(s.into_owned()) };
        match self {
            AgentMessage::User { content } => AgentMessage::User {
                content: content.into_owned(),
            },
            AgentMessage::Assistant {
                content,
                usage,
                stop_reason,
            } => AgentMessage::Assistant {
                content: content.into_iter().map(Block::into_owned).collect(),
                usage,
                stop_reason,
            },
            AgentMessage::ToolResult {
                tool_name,
                content,
                is_error,
            } => AgentMessage::ToolResult {
                tool_name: tool_name.map(own),
                content: content.into_owned(),
                is_error,
            },
            AgentMessage::Custom { content } => AgentMessage::Custom {
                content: content.into_owned(),
            },
            AgentMessage::BashExecution { command, output } => AgentMessage::BashExecution {
                command: own(command),
                output: own(output),
            },
            AgentMessage::BranchSummary { summary } => AgentMessage::BranchSummary {
                summary: own(summary),
            },
            AgentMessage::CompactionSummary { summary } => AgentMessage::CompactionSummary {
                summary: own(summary),
            },
            AgentMessage::Other => AgentMessage::Other,
        }
    }
}
