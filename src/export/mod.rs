//! Session exports: Markdown (the reference format), self-contained HTML rendered from the same
//! Markdown, JSON (the unified session) and JSONL (one record per message), with optional
//! secret redaction. `commands::export` chooses the sessions and where they go; this module
//! turns one prepared session into bytes.

pub mod html;
pub mod json;
pub mod markdown;
pub mod redact;

use std::io::{self, Write};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::model::{Counts, Part, Session, TokenTotals};
use crate::render::json::SCHEMA_VERSION;
use crate::render::{plural, rfc3339, time};

use markdown::{Document, Env, inline};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ExportFormat {
    /// Markdown transcript (CommonMark).
    #[default]
    Md,
    /// One self-contained HTML page per session.
    Html,
    /// The unified session (as `show --format json`).
    Json,
    /// One JSON record per message.
    Jsonl,
}

impl ExportFormat {
    pub fn ext(self) -> &'static str {
        match self {
            ExportFormat::Md => "md",
            ExportFormat::Html => "html",
            ExportFormat::Json => "json",
            ExportFormat::Jsonl => "jsonl",
        }
    }

    /// The index written beside several exports.
    pub fn index_name(self) -> &'static str {
        match self {
            ExportFormat::Md => "index.md",
            ExportFormat::Html => "index.html",
            ExportFormat::Json | ExportFormat::Jsonl => "index.json",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ImageMode {
    /// A placeholder with the media type and size.
    #[default]
    Placeholder,
    /// Write each image into `<export>.files/` and link it.
    Extract,
}

#[derive(Debug, Clone)]
pub struct ExportOptions {
    pub format: ExportFormat,
    /// Lines of each tool output (and long argument) kept; 0 keeps everything.
    pub max_output_lines: usize,
    pub images: ImageMode,
    pub thinking: bool,
    pub tools: bool,
    pub redact: bool,
    /// Message text exactly as typed instead of rendered as Markdown.
    pub literal: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            format: ExportFormat::Md,
            max_output_lines: 200,
            images: ImageMode::Placeholder,
            thinking: true,
            tools: true,
            redact: false,
            literal: false,
        }
    }
}

/// Apply `--no-thinking` / `--no-tools` to a session: the parts go, the messages stay (empty),
/// so every index into `messages` remains valid, and the counts stay those of the session read.
pub fn trim(s: &mut Session, opts: &ExportOptions) {
    if opts.thinking && opts.tools {
        return;
    }
    s.counts_as_read = Some(s.counts());
    for m in &mut s.messages {
        m.parts.retain(|p| match p {
            Part::Thinking { .. } => opts.thinking,
            Part::ToolCall { .. } | Part::ToolResult { .. } => opts.tools,
            _ => true,
        });
    }
}

/// Render one prepared (trimmed, redacted) session in the chosen format.
pub fn write_session(out: &mut dyn Write, s: &Session, env: &Env) -> io::Result<()> {
    match env.opts.format {
        ExportFormat::Md => {
            let doc = Document::new(s, env);
            doc.render(&mut |sec| out.write_all(sec.markdown.as_bytes()))
        }
        ExportFormat::Html => html::write_page(out, &Document::new(s, env)),
        ExportFormat::Json => json::write_json(out, s),
        ExportFormat::Jsonl => json::write_jsonl(out, s),
    }
}

/// `<agent>-<YYYY-MM-DD>-<short id>`: the local start date and the id prefix `list` shows,
/// reduced to characters safe in any file system.
pub fn file_stem(agent: &str, started: Option<DateTime<Utc>>, id: &str) -> String {
    let date = started
        .map(|t| time::day(t).format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "undated".into());
    let short: String = id
        .chars()
        .take(13)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let short = if short.is_empty() {
        "session".to_string()
    } else {
        short
    };
    format!("{agent}-{date}-{short}")
}

/// One exported session, as the index lists it.
#[derive(Debug, Clone, Serialize)]
pub struct IndexEntry {
    pub schema_version: u32,
    /// The exported file, relative to the index.
    pub file: String,
    pub agent: &'static str,
    pub id: String,
    pub kind: &'static str,
    pub parent_id: Option<String>,
    pub project: Option<String>,
    #[serde(skip)]
    project_hash: Option<String>,
    pub title: Option<String>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub counts: Counts,
    pub tokens: TokenTotals,
    pub compactions: usize,
    /// The session file it was read from.
    pub source: String,
    #[serde(skip)]
    started: Option<DateTime<Utc>>,
}

impl IndexEntry {
    pub fn new(file: String, s: &Session) -> Self {
        IndexEntry {
            schema_version: SCHEMA_VERSION,
            file,
            agent: s.agent.as_str(),
            id: s.id.clone(),
            kind: s.kind.as_str(),
            parent_id: s.parent_id.clone(),
            project: s.project.clone(),
            project_hash: s.project_hash.clone(),
            title: s
                .title
                .as_deref()
                .map(|t| crate::parse::preview(t, crate::scan::TITLE_MAX)),
            started_at: s.started_at.map(rfc3339),
            updated_at: s.updated_at.map(rfc3339),
            counts: s.counts(),
            tokens: s.usage().into(),
            compactions: s.compactions.len(),
            source: s.path.display().to_string(),
            started: s.started_at,
        }
    }

    /// The start in the display zone, with its offset (`2026-03-14 09:00 +01:00`).
    pub fn started(&self) -> String {
        self.started
            .map(|t| format!("{} {}", time::minutes(t), time::zone(t)))
            .unwrap_or_else(|| "-".into())
    }

    /// The project as every human output names it.
    pub fn project_label(&self) -> String {
        crate::render::project_label(self.project.as_deref(), self.project_hash.as_deref())
    }

    pub fn agent_label(&self) -> String {
        if self.kind == "main" {
            self.agent.to_string()
        } else {
            format!("{} ({})", self.agent, self.kind)
        }
    }

    pub fn title_or_id(&self) -> String {
        self.title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| self.id.clone())
    }

    pub fn sort_key(&self) -> (std::cmp::Reverse<Option<DateTime<Utc>>>, String) {
        (std::cmp::Reverse(self.started), self.file.clone())
    }
}

/// A file or folder name as a relative URL names it: everything but the unreserved characters
/// percent-encoded, so that an export named `run 14:00.html` links its images (a `:` would
/// read as a scheme, `#`/`?`/`%` as a fragment, query or escape) and a `>` cannot end a
/// Markdown `<…>` destination. The index's links and the extracted images' both.
pub(crate) fn url_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What `--no-thinking`/`--no-tools` leave out of a transcript, in words, if anything.
pub(crate) fn left_out(opts: &ExportOptions) -> Option<&'static str> {
    match (opts.thinking, opts.tools) {
        (true, true) => None,
        (false, true) => Some("thinking"),
        (true, false) => Some("tool calls and results"),
        (false, false) => Some("thinking, tool calls and results"),
    }
}

/// The index's line under its title: how many sessions, by what, and what the transcripts
/// leave out (the index's counts are the sessions', so a trimmed export must say it is one).
fn index_intro(entries: &[IndexEntry], opts: &ExportOptions) -> String {
    let mut line = format!(
        "{}, exported by sessions {}.",
        crate::render::plural(entries.len(), "session"),
        env!("CARGO_PKG_VERSION")
    );
    if let Some(what) = left_out(opts) {
        let what = what[..1].to_uppercase() + &what[1..];
        line.push_str(&format!(
            " {what} are left out of the transcripts; the counts are the sessions' own."
        ));
    }
    line
}

/// `index.md`: a list of the exported sessions, newest first, each linked.
pub fn write_index_md(
    out: &mut dyn Write,
    entries: &[IndexEntry],
    opts: &ExportOptions,
) -> io::Result<()> {
    writeln!(out, "# Exported sessions\n")?;
    writeln!(out, "{}\n", index_intro(entries, opts))?;
    for e in entries {
        writeln!(
            out,
            "- [{}](<{}>) — {} · {} · {} · {} · {} · {} tokens · {}",
            inline(&e.title_or_id()),
            e.file,
            inline(&e.started()),
            inline(&e.agent_label()),
            inline(&e.project_label()),
            plural(e.counts.user_turns as usize, "turn"),
            plural(e.counts.tool_calls as usize, "tool call"),
            crate::render::thousands(e.tokens.total),
            plural(e.compactions, "compaction")
        )?;
    }
    Ok(())
}

/// Write the index for a format.
pub fn write_index(
    out: &mut dyn Write,
    opts: &ExportOptions,
    entries: &[IndexEntry],
) -> io::Result<()> {
    match opts.format {
        ExportFormat::Md => write_index_md(out, entries, opts),
        ExportFormat::Html => html::write_index(out, entries, &index_intro(entries, opts)),
        ExportFormat::Json | ExportFormat::Jsonl => json::write_index(out, entries),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        let t = chrono::DateTime::parse_from_rfc3339("2026-03-14T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let s = file_stem("claude", Some(t), "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01");
        assert!(s.starts_with("claude-2026-03-1"), "{s}");
        assert!(s.ends_with("-6f0d3c52-8a1e"), "{s}");
        assert_eq!(file_stem("gemini", None, "a/b:c"), "gemini-undated-a_b_c");
    }
}
