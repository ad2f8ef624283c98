//! Messages and their parts, and what the human typed in them (for titles and previews).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Role, ToolInput, Usage, serialize_time};

/// What the replays' estimators need of a text they do not keep: its length in UTF-8 bytes
/// and in UTF-16 code units (JavaScript's `.length`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextSize {
    pub bytes: u64,
    pub utf16: u64,
}

impl TextSize {
    pub fn of(s: &str) -> TextSize {
        TextSize {
            bytes: s.len() as u64,
            utf16: crate::tokens::utf16_len(s) as u64,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text {
        text: String,
    },
    Thinking {
        text: String,
    },
    ToolCall {
        id: String,
        name: String,
        /// Arguments as recorded. A raw string when the agent stored something that is not JSON.
        input: ToolInput,
    },
    ToolResult {
        call_id: String,
        /// Flattened textual output. Empty when the parse measured it instead
        /// (`output_size`); only its beginning when `show`'s parse ([`Detail::Preview`])
        /// measured it.
        ///
        /// [`Detail::Preview`]: crate::parse::Detail::Preview
        output: String,
        is_error: bool,
        /// Images or other non-text blocks that came with the result.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Part>,
        /// The output's size when a replay's parse ([`Detail::Measured`]) measured it rather
        /// than keeping it (or `show`'s, keeping its beginning). Never written out: only the
        /// replays and `show`'s timeline, which need nothing more of it, parse that way.
        ///
        /// [`Detail::Measured`]: crate::parse::Detail::Measured
        #[serde(skip)]
        output_size: Option<TextSize>,
    },
    Image {
        media_type: Option<String>,
        /// Decoded size in bytes when known (base64 length × 3/4 otherwise).
        bytes: Option<u64>,
        /// Base64 data, kept so exports can extract it. Skipped in JSON unless asked for.
        #[serde(skip)]
        data: Option<String>,
        /// Where the image is, when the session referred to it by URL instead of carrying it
        /// (a Claude `source: {type: "url"}`). Never fetched.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// Marks where in the message stream a compaction happened: an index into
    /// [`Session::compactions`](super::Session::compactions).
    Compaction {
        index: usize,
    },
    /// A block kind this version of `sessions` does not model; kept raw.
    Unknown {
        kind: String,
        raw: Value,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// The agent's id for the message (Claude `message.id` or first record `uuid`, Gemini `id`,
    /// Codex item `id`), when it has one.
    pub id: Option<Box<str>>,
    pub role: Role,
    #[serde(serialize_with = "serialize_time")]
    pub timestamp: Option<DateTime<Utc>>,
    /// Shared by the messages of a model within a session.
    pub model: Option<Arc<str>>,
    pub parts: Vec<Part>,
    /// Per-message usage as recorded (after in-file de-duplication), for the timeline. Boxed:
    /// most messages have none, and a message's size is paid by every message of a long
    /// session.
    pub usage: Option<Box<Usage>>,
    /// True only for text the human typed (not meta injections, tool-result carriers, compaction
    /// summaries or environment context). `counts.user_turns` counts these.
    pub is_human: bool,
    /// Claude inline sidechain (sub-agent) record kept in its main session.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sidechain: bool,
    /// Removed from the live context by a later checkpoint, rewind or rollback, but kept because
    /// it happened (and was paid for).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub superseded: bool,
    /// Agent-specific kind when it is not obvious from the role (e.g. `compact_summary`,
    /// `info`, `environment_context`, `meta`, `api_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<Box<str>>,
    /// What the user typed when the agent sent something else in its place (Gemini
    /// `displayContent`: `/init` for the prompt it expands to, the prompt before `@file`
    /// injection). Titles use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<Box<str>>,
}

impl Message {
    pub fn new(role: Role) -> Self {
        Message {
            id: None,
            role,
            timestamp: None,
            model: None,
            parts: Vec::new(),
            usage: None,
            is_human: false,
            sidechain: false,
            superseded: false,
            subtype: None,
            display: None,
        }
    }

    /// Concatenated text parts, for previews and titles.
    pub fn text(&self) -> String {
        text_of(&self.parts)
    }

    /// What the human typed, without the harness's wrapping (IDE context, reminders, a slash
    /// command's markup: [`typed_text`]); `None` when the message is not a human prompt or
    /// the wrapping is all it holds.
    pub fn typed(&self) -> Option<String> {
        if !self.is_human {
            return None;
        }
        let text;
        let shown = match self.display.as_deref() {
            Some(d) => d,
            None => {
                text = self.text();
                &text
            }
        };
        Some(typed_text(shown)).filter(|t| !t.is_empty())
    }

    /// The text a one-line preview of the message starts from: what the human typed, else
    /// the text as recorded (a prompt that is nothing but IDE context shows that context).
    pub fn preview_text(&self) -> String {
        self.typed().unwrap_or_else(|| self.text())
    }
}

/// What a media part holds, named from its MIME type for labels: `image`, `audio`, `video`,
/// `document` (PDF, text, office and e-book formats), else `file`. Without a MIME type it is
/// an `image`: the parsers make a media part without one only from an image block.
pub fn media_kind(media_type: Option<&str>) -> &'static str {
    let Some(t) = media_type else {
        return "image";
    };
    let t = t.trim().to_ascii_lowercase();
    let (top, sub) = t.split_once('/').unwrap_or((t.as_str(), ""));
    match top {
        "image" => "image",
        "audio" => "audio",
        "video" => "video",
        "text" => "document",
        "application"
            if matches!(sub, "pdf" | "msword" | "rtf" | "epub+zip")
                || sub.starts_with("vnd.openxmlformats-officedocument.")
                || sub.starts_with("vnd.oasis.opendocument.")
                || sub.starts_with("vnd.ms-") =>
        {
            "document"
        }
        _ => "file",
    }
}

/// The text parts of a message joined with newlines.
pub fn text_of(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        if let Part::Text { text } = p {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text);
        }
    }
    out
}
/// Harness markup around what the user typed (Claude Code): blocks dropped whole.
const HARNESS_BLOCKS: &[&str] = &[
    "system-reminder",
    "ide_opened_file",
    "ide_selection",
    "local-command-stdout",
    "local-command-stderr",
    "command-message",
    "command-args",
    "command-name",
    "bash-stdout",
    "bash-stderr",
    "user-prompt-submit-hook",
];

/// What the user typed, for a title: a slash command as `/name args` (Claude Code records it as
/// `<command-name>/name</command-name><command-args>args</command-args>`), a `!` shell command
/// as `!cmd`, and every other block of harness markup (`<system-reminder>`, `<ide_opened_file>`,
/// command output) removed.
pub fn typed_text(text: &str) -> String {
    // Nearly every prompt holds no markup, and looking for each tag in turn read it once a
    // tag: a long first prompt cost `list` 2% of its time.
    if !opens_markup(text) {
        return text.trim().to_string();
    }
    without_markup(text)
}

/// Whether `text` opens any tag [`without_markup`] looks for (`<name>`): without one it
/// returns the text trimmed.
fn opens_markup(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'<', bytes).any(|i| {
        let rest = &bytes[i + 1..];
        std::iter::once("bash-input")
            .chain(HARNESS_BLOCKS.iter().copied())
            .any(|tag| rest.starts_with(tag.as_bytes()) && rest.get(tag.len()) == Some(&b'>'))
    })
}

/// [`typed_text`], tag by tag.
fn without_markup(text: &str) -> String {
    let inner = |tag: &str| -> Option<&str> {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        let a = text.find(&open)? + open.len();
        let b = a + text[a..].find(&close)?;
        Some(text[a..b].trim())
    };
    if let Some(name) = inner("command-name").filter(|n| !n.is_empty()) {
        let args = inner("command-args").unwrap_or("");
        let name = if name.starts_with('/') {
            name.to_string()
        } else {
            format!("/{name}")
        };
        return if args.is_empty() {
            name
        } else {
            format!("{name} {args}")
        };
    }
    if let Some(cmd) = inner("bash-input").filter(|c| !c.is_empty()) {
        return format!("!{cmd}");
    }
    let mut out = text.to_string();
    for tag in HARNESS_BLOCKS {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        while let Some(a) = out.find(&open) {
            match out[a..].find(&close) {
                Some(b) => out.replace_range(a..a + b + close.len(), " "),
                // An unclosed block: what follows is the harness's, not the user's.
                None => out.truncate(a),
            }
        }
    }
    out.trim().to_string()
}
#[cfg(test)]
mod title_tests {
    use super::{Message, Part, Role, typed_text, without_markup};
    use crate::testing::Rng;

    #[test]
    fn text_without_tags_is_its_own_title() {
        // Pieces of every tag, whole and broken, so that the generated texts hold tags,
        // near-tags and none; the shortcut must give what the search tag by tag gives.
        let pieces = [
            "<",
            ">",
            "</",
            "/",
            " ",
            "\n",
            "x",
            "é",
            "<b>",
            "system-reminder",
            "command-name",
            "command-args",
            "bash-input",
            "ide_selection",
            "<system-reminder>",
            "</system-reminder>",
            "<command-name>",
            "</command-name>",
            "<command-args>",
            "</command-args>",
            "<bash-input>",
            "</bash-input>",
            "<bash-input",
            "<ide_opened_file>",
            "</ide_opened_file>",
            "<user-prompt-submit-hook>",
            "<local-command-stdout",
        ];
        let mut rng = Rng(0x7e47_7e47_5eed_0001);
        let (mut with, mut without) = (0, 0);
        for _ in 0..20_000 {
            let n = rng.below(12) as usize;
            let text: String = (0..n).map(|_| *rng.pick(&pieces)).collect();
            assert_eq!(typed_text(&text), without_markup(&text), "{text:?}");
            if super::opens_markup(&text) {
                with += 1;
            } else {
                without += 1;
            }
        }
        assert!(
            with > 1_000 && without > 1_000,
            "{with} with tags, {without} without"
        );
    }

    #[test]
    fn previews_start_with_what_the_human_typed() {
        // As Claude Code 2.0.42 wrote it (corpus real/claude_real_projects, JSSoundRecorder).
        let ide = "<ide_selection>The user selected the lines 98 to 98 from /p/CLAUDE.md:\nAudioWor\n\nThis may or may not be related to the current task.</ide_selection>";
        let mut m = Message::new(Role::User);
        m.is_human = true;
        for text in [ide, "Let's also Migrate to AudioWorklet"] {
            m.parts.push(Part::Text { text: text.into() });
        }
        assert_eq!(m.preview_text(), "Let's also Migrate to AudioWorklet");
        assert!(
            m.text().starts_with("<ide_selection>"),
            "the text itself is kept"
        );
        // Nothing but IDE context: the context, rather than nothing.
        m.parts.truncate(1);
        assert_eq!(m.preview_text(), ide);
        // Only a human prompt is unwrapped.
        m.parts.push(Part::Text { text: "x".into() });
        m.is_human = false;
        assert_eq!(m.preview_text(), m.text());
    }

    #[test]
    fn titles_are_what_the_user_typed() {
        assert_eq!(
            typed_text(
                "<command-message>clear</command-message>\n<command-name>/clear</command-name>\n<command-args></command-args>"
            ),
            "/clear"
        );
        assert_eq!(
            typed_text("<command-name>review</command-name><command-args>PR 12</command-args>"),
            "/review PR 12"
        );
        assert_eq!(
            typed_text(
                "<ide_opened_file>The user opened the file /a.rs in the IDE.</ide_opened_file>fix the build"
            ),
            "fix the build"
        );
        assert_eq!(
            typed_text("<system-reminder>x</system-reminder>\n\nhello <b>world</b>"),
            "hello <b>world</b>"
        );
        assert_eq!(
            typed_text("<local-command-stdout></local-command-stdout>"),
            ""
        );
        assert_eq!(typed_text("<bash-input>ls -la</bash-input>"), "!ls -la");
        assert_eq!(typed_text("plain"), "plain");
    }
}

#[cfg(test)]
mod media_tests {
    use super::media_kind;

    #[test]
    fn media_is_named_by_its_mime_type() {
        for (mime, kind) in [
            (None, "image"),
            (Some("image/png"), "image"),
            (Some("Application/PDF"), "document"),
            (Some("text/plain"), "document"),
            (
                Some("application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
                "document",
            ),
            (Some("audio/wav"), "audio"),
            (Some("video/mp4"), "video"),
            (Some("application/zip"), "file"),
            (Some("nonsense"), "file"),
        ] {
            assert_eq!(media_kind(mime), kind, "{mime:?}");
        }
    }
}
