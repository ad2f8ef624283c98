//! The reference format: a Markdown transcript that is correct CommonMark whatever the
//! session contains.
//!
//! How the content stays inert:
//! - Text (prompts, replies, thinking, summaries) is escaped so it renders literally: every
//!   character that could start emphasis, code, links, HTML, entities or (at a line start)
//!   a heading, list, quote or thematic break is backslash-escaped; leading indentation
//!   becomes no-break spaces (so it cannot make a code block); each line break is a hard
//!   break. Code fences inside a text (```` ``` ````/`~~~`) are kept as real code blocks.
//! - Code (commands, arguments, outputs) goes in fenced blocks whose fence is longer than any
//!   backtick run inside.
//! - The only raw HTML is ours: `<details>`/`<summary>` around thinking and tool results, with
//!   the summary text HTML-escaped.
//!
//! The document is produced section by section ([`Section`]): the header, then one section per
//! turn (a message with visible content; tool results are placed under the call that asked for
//! them), per compaction (a divider with the full summary) and per sub-agent conversation that
//! could not be nested under its spawning call. The HTML page renders the same sections.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::diag::plural;
use crate::model::{
    Compaction, CompactionKind, Message, Part, Provenance, Role, Session, SessionKind,
    SubagentLink, Trigger,
};
use crate::parse::preview;
use crate::render::{human_count, human_duration};

use super::{ExportOptions, ImageMode};

/// Deepest level of sub-agent conversations embedded inside one another.
const MAX_DEPTH: usize = 3;

/// Where sub-agent sessions that live in their own files come from (a scan of the stores).
pub trait Children: Sync {
    /// Ids of the sessions whose parent is `parent_id`.
    fn of(&self, parent_id: &str) -> Vec<String>;
    /// Load one sub-agent session, prepared like its parent (trimmed, redacted). `path` is the
    /// file the parent's link names, if any.
    fn load(&self, id: &str, path: Option<&Path>) -> Option<Session>;
}

/// No sub-agent lookup (tests, or sessions read from a lone file).
pub struct NoChildren;

impl Children for NoChildren {
    fn of(&self, _: &str) -> Vec<String> {
        Vec::new()
    }
    fn load(&self, _: &str, _: Option<&Path>) -> Option<Session> {
        None
    }
}

/// Images written next to the export by `--images extract`, through the output guard.
#[derive(Debug)]
pub struct Assets {
    /// The folder (`<export stem>.files`), created on first use.
    pub dir: PathBuf,
    /// How the export refers to it (its file name).
    pub rel: String,
    next: usize,
    guard: std::sync::Arc<crate::output::Guard>,
}

impl Assets {
    pub fn new(dir: PathBuf, guard: std::sync::Arc<crate::output::Guard>) -> Self {
        let rel = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Assets {
            dir,
            rel,
            next: 0,
            guard,
        }
    }

    fn write(&mut self, media_type: Option<&str>, data: &str) -> Result<String, String> {
        use base64::Engine as _;
        use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE};
        let clean: String = data.chars().filter(|c| !c.is_whitespace()).collect();
        let bytes = STANDARD
            .decode(&clean)
            .or_else(|_| STANDARD_NO_PAD.decode(&clean))
            .or_else(|_| URL_SAFE.decode(&clean))
            .map_err(|e| format!("image data is not base64: {e}"))?;
        self.guard
            .create_dir_all(&self.dir)
            .map_err(|e| e.to_string())?;
        self.next += 1;
        let ext = match media_type.unwrap_or("") {
            "image/png" => "png",
            "image/jpeg" | "image/jpg" => "jpg",
            "image/gif" => "gif",
            "image/webp" => "webp",
            "image/svg+xml" => "svg",
            "application/pdf" => "pdf",
            _ => "bin",
        };
        let name = format!("image-{:03}.{ext}", self.next);
        let path = self.dir.join(&name);
        self.guard
            .write_bytes(&path, &bytes)
            .map_err(|e| e.to_string())?;
        Ok(format!("{}/{name}", self.rel))
    }
}

/// Everything a rendering needs besides the session: options, the sub-agent source, the
/// image folder, and the notes (problems) met on the way.
pub struct Env<'a> {
    pub opts: &'a ExportOptions,
    pub children: &'a dyn Children,
    pub assets: RefCell<Option<Assets>>,
    /// Sub-agent ids already embedded somewhere in this document.
    embedded: RefCell<HashSet<String>>,
    /// Problems worth a warning (an image that could not be written, …).
    pub notes: RefCell<Vec<String>>,
}

impl<'a> Env<'a> {
    pub fn new(
        opts: &'a ExportOptions,
        children: &'a dyn Children,
        assets: Option<Assets>,
    ) -> Self {
        Env {
            opts,
            children,
            assets: RefCell::new(assets),
            embedded: RefCell::new(HashSet::new()),
            notes: RefCell::new(Vec::new()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    Header,
    Turn,
    Compaction,
    Subagent,
}

impl SectionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SectionKind::Header => "header",
            SectionKind::Turn => "turn",
            SectionKind::Compaction => "compaction",
            SectionKind::Subagent => "subagent",
        }
    }
}

/// A table-of-contents entry: what a section is, without its content.
#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: SectionKind,
    /// `t-3`, `c-1`, `s-1`: the HTML anchor.
    pub anchor: String,
    /// Plain text (not Markdown), e.g. `3 · Assistant · 09:00:05`.
    pub label: String,
    /// `user`, `assistant`, `system`, `context`, `tool`, `summary` for turns.
    pub role: &'static str,
}

/// One rendered section: its entry and its Markdown (self-contained: every block it opens is
/// closed, and it ends with a blank line).
#[derive(Debug, Clone)]
pub struct Section {
    pub entry: Entry,
    pub markdown: String,
}

#[derive(Debug, Clone)]
enum Item {
    Turn {
        msg: usize,
        number: usize,
    },
    Compaction {
        index: usize,
    },
    /// Inline sidechain messages no tool call could adopt.
    Run {
        range: Range<usize>,
        number: usize,
    },
    /// Sub-agent sessions found by the scan but not nested under a call.
    Children {
        number: usize,
    },
}

/// A session laid out for rendering: the order of sections and where each tool result and
/// sub-agent conversation goes.
pub struct Document<'s, 'e> {
    s: &'s Session,
    env: &'e Env<'e>,
    depth: usize,
    items: Vec<Item>,
    /// call id → (message, part) of each result.
    results: HashMap<&'s str, Vec<(usize, usize)>>,
    calls: HashSet<&'s str>,
    /// call id → messages holding a call with that id (several for checkpoint copies).
    call_sites: HashMap<&'s str, Vec<usize>>,
    /// call id → inline sidechain runs it spawned.
    runs: HashMap<&'s str, Vec<Range<usize>>>,
    /// call id → sub-agent links it spawned.
    links: HashMap<&'s str, Vec<&'s SubagentLink>>,
    /// Compactions whose summary message duplicates the divider's text.
    duplicate_summaries: HashSet<usize>,
    /// Sub-agent sessions of this session not attached to a rendered call.
    loose_children: Vec<(String, Option<&'s SubagentLink>)>,
}

impl<'s, 'e> Document<'s, 'e> {
    pub fn new(s: &'s Session, env: &'e Env<'e>) -> Self {
        Self::at_depth(s, env, 0)
    }

    fn at_depth(s: &'s Session, env: &'e Env<'e>, depth: usize) -> Self {
        let mut d = Document {
            s,
            env,
            depth,
            items: Vec::new(),
            results: HashMap::new(),
            calls: HashSet::new(),
            call_sites: HashMap::new(),
            runs: HashMap::new(),
            links: HashMap::new(),
            duplicate_summaries: HashSet::new(),
            loose_children: Vec::new(),
        };
        d.plan();
        d
    }

    fn plan(&mut self) {
        let s = self.s;
        for (mi, m) in s.messages.iter().enumerate() {
            for (pi, p) in m.parts.iter().enumerate() {
                match p {
                    Part::ToolCall { id, .. } => {
                        self.calls.insert(id.as_str());
                        let sites = self.call_sites.entry(id.as_str()).or_default();
                        if sites.last() != Some(&mi) {
                            sites.push(mi);
                        }
                    }
                    Part::ToolResult { call_id, .. } => {
                        self.results
                            .entry(call_id.as_str())
                            .or_default()
                            .push((mi, pi));
                    }
                    _ => {}
                }
            }
        }
        for l in &s.subagents {
            if let Some(c) = l.tool_call_id.as_deref().filter(|c| self.calls.contains(c)) {
                self.links.entry(c).or_default().push(l);
            }
        }
        // Compaction summaries that the next message repeats verbatim are shown once, in
        // the divider.
        for (ci, c) in s.compactions.iter().enumerate() {
            let Some(summary) = c.summary.as_deref().map(str::trim) else {
                continue;
            };
            let dup = s.messages.iter().skip(c.message_index).take(3).any(|m| {
                m.subtype.as_deref() == Some("compact_summary") && m.text().trim() == summary
            });
            if dup {
                self.duplicate_summaries.insert(ci);
            }
        }

        let marked: HashSet<usize> = s
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter_map(|p| match p {
                Part::Compaction { index } => Some(*index),
                _ => None,
            })
            .collect();
        let mut unmarked: Vec<usize> = (0..s.compactions.len())
            .filter(|i| !marked.contains(i))
            .collect();
        unmarked.sort_by_key(|&i| s.compactions[i].message_index);
        let mut unmarked = unmarked.into_iter().peekable();

        let main = s.kind == SessionKind::Main;
        // Calls of the main thread still waiting for their result, in call order.
        let mut pending: Vec<(&str, &str)> = Vec::new();
        let mut turn = 0;
        let mut run = 0;
        let mut i = 0;
        while i < s.messages.len() {
            while let Some(&ci) = unmarked.peek() {
                if s.compactions[ci].message_index > i {
                    break;
                }
                self.items.push(Item::Compaction { index: ci });
                unmarked.next();
            }
            let m = &s.messages[i];
            if main && m.sidechain {
                let mut j = i;
                while j < s.messages.len() && s.messages[j].sidechain {
                    j += 1;
                }
                let spawn = pending
                    .iter()
                    .rev()
                    .find(|(_, name)| spawns_agents(name))
                    .or(pending.last())
                    .map(|(id, _)| *id);
                match spawn {
                    Some(call) => self.runs.entry(call).or_default().push(i..j),
                    None => {
                        run += 1;
                        self.items.push(Item::Run {
                            range: i..j,
                            number: run,
                        });
                    }
                }
                i = j;
                continue;
            }
            let mut compaction = false;
            for p in &m.parts {
                match p {
                    Part::Compaction { index } => {
                        compaction = true;
                        self.items.push(Item::Compaction { index: *index });
                    }
                    Part::ToolCall { id, name, .. } => pending.push((id, name)),
                    Part::ToolResult { call_id, .. } => pending.retain(|(id, _)| id != call_id),
                    _ => {}
                }
            }
            if !compaction && !self.is_duplicate_summary(m) && self.visible(m) {
                turn += 1;
                self.items.push(Item::Turn {
                    msg: i,
                    number: turn,
                });
            }
            i += 1;
        }
        for ci in unmarked {
            self.items.push(Item::Compaction { index: ci });
        }

        // Sub-agents in their own files that no rendered call adopts.
        if self.depth < MAX_DEPTH {
            let adopted: HashSet<&str> = self
                .links
                .values()
                .flatten()
                .map(|l| l.id.as_str())
                .collect();
            for l in &s.subagents {
                if !adopted.contains(l.id.as_str())
                    && !self.loose_children.iter().any(|(c, _)| *c == l.id)
                {
                    self.loose_children.push((l.id.clone(), Some(l)));
                }
            }
            for id in self.env.children.of(&s.id) {
                if !adopted.contains(id.as_str())
                    && !self.loose_children.iter().any(|(c, _)| *c == id)
                {
                    self.loose_children.push((id, None));
                }
            }
        }
        if !self.loose_children.is_empty() {
            self.items.push(Item::Children { number: run + 1 });
        }
    }

    fn is_duplicate_summary(&self, m: &Message) -> bool {
        m.subtype.as_deref() == Some("compact_summary")
            && self.duplicate_summaries.iter().any(|&ci| {
                self.s.compactions[ci].summary.as_deref().map(str::trim) == Some(m.text().trim())
            })
    }

    /// Whether a message renders anything of its own (results go under their calls).
    fn visible(&self, m: &Message) -> bool {
        m.parts.iter().any(|p| match p {
            Part::Text { text } | Part::Thinking { text } => !text.trim().is_empty(),
            Part::ToolCall { .. } | Part::Image { .. } | Part::Unknown { .. } => true,
            Part::ToolResult { call_id, .. } => !self.calls.contains(call_id.as_str()),
            Part::Compaction { .. } => false,
        })
    }

    /// The table of contents (header excluded), in document order.
    pub fn outline(&self) -> Vec<Entry> {
        self.items.iter().map(|it| self.entry(it)).collect()
    }

    fn entry(&self, it: &Item) -> Entry {
        match it {
            Item::Turn { msg, number } => {
                let m = &self.s.messages[*msg];
                let (role, class) = role_label(m, self.s.kind == SessionKind::Subagent);
                let mut label = format!("{number} · {role}");
                if let Some(t) = m.timestamp {
                    let _ = write!(label, " · {}", t.format("%H:%M:%S"));
                }
                let text = m.text();
                if !text.trim().is_empty() {
                    let _ = write!(label, " — {}", preview(&text, 60));
                } else if let Some(name) = m.parts.iter().find_map(|p| match p {
                    Part::ToolCall { name, .. } => Some(name),
                    _ => None,
                }) {
                    let _ = write!(label, " — {}", preview(name, 40));
                }
                Entry {
                    kind: SectionKind::Turn,
                    anchor: format!("t-{number}"),
                    label,
                    role: class,
                }
            }
            Item::Compaction { index } => {
                let c = &self.s.compactions[*index];
                let mut label = format!("Compaction {} · {}", index + 1, trigger_str(c.trigger));
                if let (Some(b), Some(a)) = (c.tokens_before, c.tokens_after) {
                    let _ = write!(label, " · {} → {}", human_count(b), human_count(a));
                }
                Entry {
                    kind: SectionKind::Compaction,
                    anchor: format!("c-{}", index + 1),
                    label,
                    role: "compaction",
                }
            }
            Item::Run { range, number } => Entry {
                kind: SectionKind::Subagent,
                anchor: format!("s-{number}"),
                label: format!("Sub-agent conversation ({} messages)", range.len()),
                role: "subagent",
            },
            Item::Children { number } => Entry {
                kind: SectionKind::Subagent,
                anchor: format!("s-{number}"),
                label: format!("Sub-agent sessions ({})", self.loose_children.len()),
                role: "subagent",
            },
        }
    }

    /// Render every section in order (the header first), handing each to `sink` as soon as it
    /// is ready, so a long session never exists twice in memory.
    pub fn render<E>(&self, sink: &mut dyn FnMut(Section) -> Result<(), E>) -> Result<(), E> {
        sink(self.header())?;
        for it in &self.items {
            let entry = self.entry(it);
            let markdown = self.item_markdown(it);
            sink(Section { entry, markdown })?;
        }
        Ok(())
    }

    /// The whole document as one string.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = self.render::<()>(&mut |s| {
            out.push_str(&s.markdown);
            Ok(())
        });
        out
    }

    fn heading(&self) -> String {
        "#".repeat((2 + 2 * self.depth).min(6))
    }

    fn item_markdown(&self, it: &Item) -> String {
        match it {
            Item::Turn { msg, number } => self.turn(*msg, Some(*number)),
            Item::Compaction { index } => self.compaction(*index),
            Item::Run { range, .. } => {
                let mut out = format!("{} Sub-agent conversation\n\n", self.heading());
                let _ = write!(
                    out,
                    "*{} recorded inline; the call that spawned it was not found.*\n\n",
                    plural(range.len(), "message")
                );
                out.push_str(&blockquote(&self.run(range.clone())));
                out
            }
            Item::Children { .. } => {
                let mut out = format!("{} Sub-agent sessions\n\n", self.heading());
                for (id, link) in &self.loose_children {
                    out.push_str(&self.child(id, *link));
                }
                out
            }
        }
    }

    fn header(&self) -> Section {
        let s = self.s;
        let o = self.env.opts;
        let mut out = String::new();
        let title = s
            .title
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(|t| preview(t, 120))
            .unwrap_or_else(|| format!("{} session {}", s.agent, s.id));
        let _ = writeln!(out, "# {}\n", inline(&title));
        let mut field = |k: &str, v: String| {
            let _ = writeln!(out, "- **{k}:** {v}");
        };
        let kind = match s.kind {
            SessionKind::Main => "main session",
            SessionKind::Subagent => "sub-agent session",
        };
        field("Agent", inline(&format!("{} ({kind})", s.agent)));
        field("Session", inline(&s.id));
        if let Some(p) = &s.parent_id {
            field("Parent", inline(p));
        }
        let project = match (&s.project, &s.project_hash) {
            (Some(p), _) => format!("{p} (from {})", s.project_source.as_str()),
            (None, Some(h)) => format!("unresolved (projectHash {})", &h[..h.len().min(12)]),
            _ => "unknown".into(),
        };
        field("Project", inline(&project));
        field("File", inline(&s.path.display().to_string()));
        if !s.models.is_empty() {
            field("Models", inline(&s.models.join(", ")));
        }
        let mut agent = Vec::new();
        if let Some(v) = &s.agent_version {
            agent.push(format!("version {v}"));
        }
        if let Some(b) = &s.git_branch {
            agent.push(format!("git branch {b}"));
        }
        if !agent.is_empty() {
            field("Recorded by", inline(&agent.join(" · ")));
        }
        if let (Some(a), Some(b)) = (s.started_at, s.updated_at) {
            field(
                "Time",
                inline(&format!(
                    "{} → {} ({})",
                    utc(a),
                    utc(b),
                    human_duration(b - a)
                )),
            );
        }
        let c = s.counts();
        field(
            "Counts",
            inline(&format!(
                "{} · {} · {} ({} failed) · {} · {}",
                plural(c.user_turns as usize, "user turn"),
                plural(c.assistant_messages as usize, "assistant message"),
                plural(c.tool_calls as usize, "tool call"),
                c.tool_errors,
                plural(s.compactions.len(), "compaction"),
                plural(
                    s.subagents.len().max(self.env.children.of(&s.id).len()),
                    "sub-agent"
                )
            )),
        );
        let u = s.usage();
        field(
            "Tokens",
            inline(&format!(
                "{} total: {} input, {} cache read, {} cache write, {} output ({} reasoning) over {} requests",
                thousands(u.total()),
                thousands(u.input),
                thousands(u.cache_read),
                thousands(u.cache_write),
                thousands(u.output),
                thousands(u.reasoning),
                s.requests.len()
            )),
        );
        let mut how = vec![format!("sessions {}", env!("CARGO_PKG_VERSION"))];
        if o.redact {
            how.push("secrets redacted".into());
        }
        if !o.thinking {
            how.push("thinking omitted".into());
        }
        if !o.tools {
            how.push("tool calls omitted".into());
        }
        if o.max_output_lines > 0 {
            how.push(format!("tool outputs cut to {} lines", o.max_output_lines));
        }
        field("Exported by", inline(&how.join(" · ")));
        out.push('\n');
        Section {
            entry: Entry {
                kind: SectionKind::Header,
                anchor: "top".into(),
                label: title,
                role: "header",
            },
            markdown: out,
        }
    }

    /// One message as a section: a heading and its parts.
    fn turn(&self, mi: usize, number: Option<usize>) -> String {
        let m = &self.s.messages[mi];
        let (role, _) = role_label(m, self.s.kind == SessionKind::Subagent);
        let mut h = String::new();
        if let Some(n) = number {
            let _ = write!(h, "{n} · ");
        }
        h.push_str(role);
        if let Some(st) = m
            .subtype
            .as_deref()
            .filter(|st| !(*st == "compact_summary" || (m.role == Role::System && *st == "info")))
        {
            let _ = write!(h, " ({})", st.replace('_', " "));
        }
        if let Some(t) = m.timestamp {
            let _ = write!(h, " · {}", utc(t));
        }
        if let Some(model) = m.model.as_deref().filter(|_| m.role == Role::Assistant) {
            let _ = write!(h, " · {model}");
        }
        if m.superseded {
            h.push_str(" · superseded");
        }
        let mut out = format!("{} {}\n\n", self.heading(), inline(&h));
        if m.superseded {
            out.push_str(
                "*Removed from the live context later (rewind, checkpoint or rollback); kept because it happened.*\n\n",
            );
        }
        for p in &m.parts {
            self.part(&mut out, mi, p);
        }
        out
    }

    fn part(&self, out: &mut String, mi: usize, p: &Part) {
        match p {
            Part::Text { text } => {
                if !text.trim().is_empty() {
                    out.push_str(&text_block(text));
                }
            }
            Part::Thinking { text } => {
                if !text.trim().is_empty() {
                    out.push_str(&details("Thinking", false, &text_block(text)));
                }
            }
            Part::ToolCall { id, name, input } => self.tool_call(out, mi, id, name, input),
            Part::ToolResult {
                call_id,
                output,
                is_error,
                attachments,
            } => {
                if !self.calls.contains(call_id.as_str()) {
                    let _ = write!(
                        out,
                        "**Tool result** for call {} (the call itself was not recorded)\n\n",
                        inline(call_id)
                    );
                    out.push_str(&self.result(output, *is_error, attachments));
                }
            }
            Part::Image {
                media_type,
                bytes,
                data,
            } => out.push_str(&self.image(media_type.as_deref(), *bytes, data.as_deref())),
            Part::Compaction { .. } => {}
            Part::Unknown { kind, raw } => {
                let body = fence("json", &self.cut_note(&pretty(raw)));
                out.push_str(&details(
                    &format!("Unrecognised block: {kind}"),
                    false,
                    &body,
                ));
            }
        }
    }

    /// The results that belong to the call in message `mi`: a call id can repeat (checkpoint
    /// copies), and each copy gets the results up to the next copy.
    fn results_of(&self, id: &str, mi: usize) -> Vec<(usize, usize)> {
        let all = self.results.get(id).map(Vec::as_slice).unwrap_or(&[]);
        let occ = self.call_sites.get(id).map(Vec::as_slice).unwrap_or(&[]);
        let k = occ.iter().position(|&m| m == mi).unwrap_or(0);
        let lo = if k == 0 { 0 } else { mi };
        let hi = occ.get(k + 1).copied().unwrap_or(usize::MAX);
        all.iter()
            .copied()
            .filter(|&(m, _)| m >= lo && m < hi)
            .collect()
    }

    fn tool_call(&self, out: &mut String, mi: usize, id: &str, name: &str, input: &Value) {
        let results = self.results_of(id, mi);
        let results = results.as_slice();
        let failed = results.iter().any(|&(mi, pi)| {
            matches!(
                self.s.messages[mi].parts.get(pi),
                Some(Part::ToolResult { is_error: true, .. })
            )
        });
        let status = if results.is_empty() {
            " · no result recorded"
        } else if failed {
            " · ✗ failed"
        } else {
            ""
        };
        let _ = write!(
            out,
            "**Tool call: {}**{} · {}\n\n",
            inline(name),
            status,
            inline(id)
        );
        out.push_str(&self.arguments(name, input));
        for range in self.runs.get(id).map(Vec::as_slice).unwrap_or(&[]) {
            let _ = write!(
                out,
                "**Sub-agent conversation** ({} messages, recorded inline)\n\n",
                range.len()
            );
            out.push_str(&blockquote(&self.run(range.clone())));
        }
        for l in self.links.get(id).map(Vec::as_slice).unwrap_or(&[]) {
            out.push_str(&self.child(&l.id, Some(l)));
        }
        for &(mi, pi) in results {
            if let Some(Part::ToolResult {
                output,
                is_error,
                attachments,
                ..
            }) = self.s.messages[mi].parts.get(pi)
            {
                out.push_str(&self.result(output, *is_error, attachments));
            }
        }
    }

    /// A shell command as an `sh` block; other arguments as pretty JSON, with multi-line string
    /// fields (file contents, edits) pulled out into their own blocks.
    fn arguments(&self, name: &str, input: &Value) -> String {
        let mut out = String::new();
        if let Some((cmd, rest)) = shell_command(name, input) {
            out.push_str(&self.code("sh", &cmd));
            if !rest.is_empty() {
                out.push_str(&self.code("json", &pretty(&Value::Object(rest))));
            }
            return out;
        }
        match input {
            Value::Null => {}
            Value::String(s) => out.push_str(&self.code("text", s)),
            Value::Object(o) => {
                let (long, short): (Vec<_>, Vec<_>) = o
                    .iter()
                    .partition(|(_, v)| v.as_str().is_some_and(|s| s.contains('\n')));
                if !short.is_empty() {
                    let rest: serde_json::Map<String, Value> = short
                        .into_iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    out.push_str(&self.code("json", &pretty(&Value::Object(rest))));
                }
                for (k, v) in long {
                    let _ = write!(out, "*{}:*\n\n", inline(k));
                    out.push_str(&self.code("text", v.as_str().unwrap_or_default()));
                }
            }
            v => out.push_str(&self.code("json", &pretty(v))),
        }
        out
    }

    /// A fenced block cut to `--max-output-lines`, with a note of what was cut.
    fn code(&self, info: &str, text: &str) -> String {
        let (kept, cut) = cut_lines(text, self.env.opts.max_output_lines);
        let mut out = fence(info, kept);
        if let Some((lines, bytes)) = cut {
            let _ = write!(
                out,
                "*{}*\n\n",
                inline(&format!(
                    "… {} more lines ({}) cut by --max-output-lines {}",
                    thousands(lines as u64),
                    human_bytes(bytes as u64),
                    self.env.opts.max_output_lines
                ))
            );
        }
        out
    }

    fn cut_note(&self, text: &str) -> String {
        let (kept, cut) = cut_lines(text, self.env.opts.max_output_lines);
        match cut {
            None => kept.to_string(),
            Some((lines, _)) => format!("{kept}\n… {lines} more lines cut"),
        }
    }

    fn result(&self, output: &str, is_error: bool, attachments: &[Part]) -> String {
        let mut body = String::new();
        let total = output.lines().count();
        if !output.trim().is_empty() {
            body.push_str(&self.code("text", output));
        }
        for a in attachments {
            match a {
                Part::Image {
                    media_type,
                    bytes,
                    data,
                } => body.push_str(&self.image(media_type.as_deref(), *bytes, data.as_deref())),
                Part::Text { text } => body.push_str(&self.code("text", text)),
                other => body.push_str(&self.code("json", &pretty(&serde_json::json!(other)))),
            }
        }
        let what = if is_error { "✗ Error" } else { "Result" };
        if body.is_empty() {
            return format!("*{}*\n\n", inline(&format!("{what}: no output")));
        }
        let mut facts = vec![what.to_string()];
        if total > 0 {
            facts.push(plural(total, "line"));
        }
        if !attachments.is_empty() {
            facts.push(plural(attachments.len(), "attachment"));
        }
        let summary = facts.join(" · ");
        details(&summary, is_error, &body)
    }

    fn image(&self, media_type: Option<&str>, bytes: Option<u64>, data: Option<&str>) -> String {
        let desc = format!(
            "{} · {}",
            media_type.unwrap_or("unknown type"),
            bytes
                .map(human_bytes)
                .unwrap_or_else(|| "size unknown".into())
        );
        if self.env.opts.images == ImageMode::Extract {
            if let (Some(data), Some(assets)) = (data, self.env.assets.borrow_mut().as_mut()) {
                match assets.write(media_type, data) {
                    Ok(rel) => {
                        return format!("![{}](<{}>)\n\n", inline(&format!("image: {desc}")), rel);
                    }
                    Err(e) => self.env.notes.borrow_mut().push(e),
                }
            }
        }
        format!("{}\n\n", inline(&format!("[image: {desc}]")))
    }

    /// Inline sidechain messages, one level deeper.
    fn run(&self, range: Range<usize>) -> String {
        let inner = Document {
            s: self.s,
            env: self.env,
            depth: self.depth + 1,
            items: Vec::new(),
            results: self.results.clone(),
            calls: self.calls.clone(),
            call_sites: self.call_sites.clone(),
            runs: HashMap::new(),
            links: self.links.clone(),
            duplicate_summaries: HashSet::new(),
            loose_children: Vec::new(),
        };
        let mut out = String::new();
        let mut n = 0;
        for mi in range {
            if inner.visible(&self.s.messages[mi]) {
                n += 1;
                out.push_str(&inner.turn(mi, Some(n)));
            }
        }
        out
    }

    /// A sub-agent session from its own file, embedded (or noted when it cannot be).
    fn child(&self, id: &str, link: Option<&SubagentLink>) -> String {
        let mut out = String::new();
        let kind = link
            .and_then(|l| l.agent_type.as_deref())
            .map(|t| format!(" ({})", inline(t)))
            .unwrap_or_default();
        if self.depth + 1 > MAX_DEPTH || !self.env.embedded.borrow_mut().insert(id.to_string()) {
            let _ = write!(
                out,
                "**Sub-agent {}{}**: see its own transcript.\n\n",
                inline(id),
                kind
            );
            return out;
        }
        let path = link.and_then(|l| l.path.as_deref());
        let Some(child) = self.env.children.load(id, path) else {
            let _ = write!(
                out,
                "**Sub-agent {}{}**: its transcript was not found in the stores read.\n\n",
                inline(id),
                kind
            );
            return out;
        };
        let u = child.usage();
        let _ = write!(
            out,
            "**Sub-agent session {}{}** · {} messages · {} tokens · {}\n\n",
            inline(&child.id),
            kind,
            child.messages.len(),
            thousands(u.total()),
            inline(&child.path.display().to_string())
        );
        let doc = Document::at_depth(&child, self.env, self.depth + 1);
        let mut inner = String::new();
        for it in &doc.items {
            inner.push_str(&doc.item_markdown(it));
        }
        if inner.is_empty() {
            inner.push_str("*(no messages)*\n\n");
        }
        out.push_str(&blockquote(&inner));
        out
    }

    fn compaction(&self, index: usize) -> String {
        let c = &self.s.compactions[index];
        let mut out = String::from("---\n\n");
        let _ = write!(
            out,
            "**⸻ Compaction {} of {} ⸻** {}\n\n",
            index + 1,
            self.s.compactions.len(),
            inline(&compaction_line(c))
        );
        let mut facts = vec![kind_label(c.kind).to_string()];
        if let (Some(b), Some(a)) = (c.messages_before, c.messages_after) {
            facts.push(format!("{b} messages before, {a} after"));
        }
        if let Some(n) = c.extra.get("masked_outputs").and_then(Value::as_u64) {
            facts.push(format!("{n} tool outputs masked"));
        }
        if !c.sections.is_empty() {
            facts.push(format!("sections: {}", c.sections.join(", ")));
        }
        let _ = write!(out, "*{}*\n\n", inline(&facts.join(" · ")));
        match c.summary.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(summary) => {
                out.push_str("Summary (full text):\n\n");
                out.push_str(&blockquote(&text_block(summary)));
            }
            None if c.kind == CompactionKind::GeminiNewFile => out.push_str(
                "*The conversation was compressed and continued in this file; the earlier part is in another file of the same session.*\n\n",
            ),
            None => out.push_str("*No summary text was recorded for this compaction.*\n\n"),
        }
        out.push_str("---\n\n");
        out
    }
}

/// `manual · 11,250 → 2,100 tokens (recorded) · 18.5 s · 2026-03-14 10:00:00 UTC`
pub fn compaction_line(c: &Compaction) -> String {
    let mut parts = vec![trigger_str(c.trigger).to_string()];
    let prov = |p: Provenance| match p {
        Provenance::Recorded => "recorded",
        Provenance::Estimated => "estimated",
        Provenance::Unknown => "provenance unknown",
    };
    let (pb, pa) = (c.before_provenance(), c.after_provenance());
    match (c.tokens_before, c.tokens_after) {
        (Some(b), Some(a)) if pb == pa => parts.push(format!(
            "{} → {} tokens ({})",
            thousands(b),
            thousands(a),
            prov(pb)
        )),
        (Some(b), Some(a)) => parts.push(format!(
            "{} tokens ({}) → {} tokens ({})",
            thousands(b),
            prov(pb),
            thousands(a),
            prov(pa)
        )),
        (Some(b), None) => parts.push(format!("{} tokens before ({})", thousands(b), prov(pb))),
        (None, Some(a)) => parts.push(format!("{} tokens after ({})", thousands(a), prov(pa))),
        (None, None) => parts.push("token counts not recorded".into()),
    }
    if let (Some(b), Some(a)) = (c.percent_before, c.percent_after) {
        parts.push(format!("context {b}% → {a}%"));
    }
    if let Some(ms) = c.duration_ms {
        parts.push(format!("took {:.1} s", ms as f64 / 1000.0));
    }
    if let Some(t) = c.timestamp {
        parts.push(utc(t));
    }
    parts.join(" · ")
}

fn trigger_str(t: Trigger) -> &'static str {
    match t {
        Trigger::Auto => "auto",
        Trigger::Manual => "manual",
        Trigger::Unknown => "trigger unknown",
    }
}

fn kind_label(k: CompactionKind) -> &'static str {
    match k {
        CompactionKind::ClaudeBoundary => "Claude compact boundary",
        CompactionKind::CodexCompacted => "Codex compacted history",
        CompactionKind::GeminiSnapshot => "Gemini state snapshot",
        CompactionKind::GeminiJsonSnapshot => "Gemini context snapshot (JSON)",
        CompactionKind::GeminiInfo => "Gemini compression notice",
        CompactionKind::GeminiMasking => "Gemini tool-output masking",
        CompactionKind::GeminiNewFile => "Gemini compression into a new file",
    }
}

/// The heading word for a message and its CSS class. In a sub-agent conversation the first
/// "user" message is the task its parent gave it.
fn role_label(m: &Message, subagent: bool) -> (&'static str, &'static str) {
    match (m.role, m.subtype.as_deref()) {
        (_, Some("compact_summary")) => ("Compaction summary", "summary"),
        (Role::User, _) if m.is_human => ("User", "user"),
        (Role::User, None) if subagent || m.sidechain => ("Task", "user"),
        (Role::User, _) => ("Context", "context"),
        (Role::Assistant, _) => ("Assistant", "assistant"),
        (Role::System, _) => ("System", "system"),
        (Role::Tool, _) => ("Tool results", "tool"),
    }
}

/// Tools that start sub-agents: inline sidechain runs are nested under these first.
fn spawns_agents(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "task" || n == "agent" || n.contains("spawn") || n.contains("subagent")
}

/// The command of a shell tool (Claude `Bash`, Codex `shell`/`exec_command`/`shell_command`,
/// Gemini `run_shell_command`), and the other arguments.
pub fn shell_command(
    name: &str,
    input: &Value,
) -> Option<(String, serde_json::Map<String, Value>)> {
    let n = name.to_ascii_lowercase();
    let shell = n.contains("bash")
        || n.contains("shell")
        || n == "exec_command"
        || n == "exec"
        || n.ends_with(".exec");
    if !shell {
        return None;
    }
    let o = input.as_object()?;
    let key = ["command", "cmd"]
        .into_iter()
        .find(|k| o.contains_key(*k))?;
    let cmd = match &o[key] {
        Value::String(s) => s.clone(),
        Value::Array(a) => {
            let words: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
            if words.len() != a.len() {
                return None;
            }
            match words.as_slice() {
                [sh, flag, script]
                    if sh.ends_with("sh") && matches!(*flag, "-c" | "-lc" | "-ic") =>
                {
                    script.to_string()
                }
                _ => words
                    .iter()
                    .map(|w| shell_quote(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            }
        }
        _ => return None,
    };
    let mut rest = o.clone();
    rest.remove(key);
    Some((cmd, rest))
}

fn shell_quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn utc(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// 1234567 → "1,234,567".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 1536 → "1.5 kB".
pub fn human_bytes(n: u64) -> String {
    match n {
        0..1000 => format!("{n} B"),
        1000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// The first `max` lines of `text` (all of it when `max` is 0), and what was cut: lines and
/// bytes.
pub fn cut_lines(text: &str, max: usize) -> (&str, Option<(usize, usize)>) {
    if max == 0 {
        return (text, None);
    }
    let mut end = 0;
    let mut lines = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            lines += 1;
            if lines == max {
                end = i;
                break;
            }
        }
    }
    if lines < max {
        return (text, None);
    }
    let rest = &text[end + 1..];
    if rest.trim().is_empty() {
        return (text, None);
    }
    let cut = rest.lines().count();
    (&text[..end], Some((cut, rest.len())))
}

// ---------------------------------------------------------------------------------------------
// CommonMark building blocks.

/// CR LF and lone CR are line endings in CommonMark: make them LF so line-based escaping sees
/// every line.
fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A fenced code block whose fence is longer than any backtick run in `content`.
pub fn fence(info: &str, content: &str) -> String {
    let content = normalize(content);
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let f = "`".repeat((longest + 1).max(3));
    let info: String = info
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_+-.#".contains(*c))
        .take(32)
        .collect();
    let mut out = String::with_capacity(content.len() + 2 * f.len() + info.len() + 4);
    out.push_str(&f);
    out.push_str(&info);
    out.push('\n');
    out.push_str(&content);
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&f);
    out.push_str("\n\n");
    out
}

/// `<details>` around Markdown content, the summary HTML-escaped. Errors are `open`.
pub fn details(summary: &str, open: bool, body: &str) -> String {
    format!(
        "<details{}>\n<summary>{}</summary>\n\n{}\n\n</details>\n\n",
        if open { " open" } else { "" },
        html_escape(&summary.replace(['\n', '\r'], " ")),
        body.trim_end()
    )
}

/// Prefix every line with `> ` (blank lines with `>`), ending with a blank line so nothing
/// after it continues the quote.
pub fn blockquote(md: &str) -> String {
    let mut out = String::with_capacity(md.len() + md.len() / 20 + 4);
    for line in md.trim_end_matches('\n').split('\n') {
        if line.is_empty() {
            out.push_str(">\n");
        } else {
            out.push_str("> ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');
    out
}

pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escape a single line of text for use inside a heading, list item or paragraph: the result
/// renders as exactly the given characters.
pub fn inline(text: &str) -> String {
    let flat: String = normalize(text)
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect();
    let mut out = String::with_capacity(flat.len() + 8);
    escape_chars(&mut out, flat.trim(), true);
    out
}

fn escape_chars(out: &mut String, s: &str, everywhere: bool) {
    let chars: Vec<char> = s.chars().collect();
    // A line-start digit run followed by `.` or `)` would be an ordered list marker.
    let digits = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    for (i, &c) in chars.iter().enumerate() {
        let escape = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '&' | '~' | '|' => true,
            '_' => {
                let alnum = |j: Option<usize>| {
                    j.and_then(|j| chars.get(j))
                        .is_some_and(|c| c.is_alphanumeric())
                };
                !(alnum(i.checked_sub(1)) && alnum(Some(i + 1)))
            }
            '#' | '>' => everywhere || i == 0,
            '-' | '+' | '=' => i == 0,
            '.' | ')' => digits > 0 && i == digits,
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Escape one line of prose: leading indentation as no-break spaces, trailing whitespace
/// dropped, every syntax character escaped.
fn prose_line(out: &mut String, line: &str) {
    let line = line.trim_end();
    let body = line.trim_start_matches([' ', '\t']);
    for c in line[..line.len() - body.len()].chars() {
        let n = if c == '\t' { 4 } else { 1 };
        for _ in 0..n {
            out.push('\u{a0}');
        }
    }
    escape_chars(out, body, false);
}

/// Paragraphs of literal text: blank lines separate paragraphs, other line breaks are hard
/// breaks.
fn prose(out: &mut String, lines: &[&str]) {
    let mut in_para = false;
    for line in lines {
        if line.trim().is_empty() {
            if in_para {
                out.push_str("\n\n");
                in_para = false;
            }
            continue;
        }
        if in_para {
            out.push_str("\\\n");
        }
        prose_line(out, line);
        in_para = true;
    }
    if in_para {
        out.push_str("\n\n");
    }
}

/// `(fence char, fence length, info)` when `line` opens a code fence.
fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = rest.chars().take_while(|c| *c == ch).count();
    if n < 3 {
        return None;
    }
    let info = &rest[n..];
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some((ch, n, info.trim()))
}

fn fence_close(line: &str, ch: char, len: usize) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let n = rest.chars().take_while(|c| *c == ch).count();
    n >= len && rest[n..].trim().is_empty()
}

/// Any text (a prompt, a reply, a summary) as Markdown that renders literally, except that
/// code fences in it stay code blocks.
pub fn text_block(text: &str) -> String {
    let text = normalize(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 8);
    let mut start = 0;
    let mut i = 0;
    while i < lines.len() {
        if let Some((ch, n, info)) = fence_open(lines[i]) {
            prose(&mut out, &lines[start..i]);
            let mut j = i + 1;
            while j < lines.len() && !fence_close(lines[j], ch, n) {
                j += 1;
            }
            let lang = info.split_whitespace().next().unwrap_or("");
            let body_end = j.min(lines.len());
            let mut code = lines[i + 1..body_end].join("\n");
            if !code.is_empty() {
                code.push('\n');
            }
            out.push_str(&fence(lang, &code));
            i = (j + 1).min(lines.len());
            start = i;
            continue;
        }
        i += 1;
    }
    prose(&mut out, &lines[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};

    fn events(md: &str) -> Vec<Event<'_>> {
        Parser::new(md).collect()
    }

    /// Concatenated text of a rendering, soft/hard breaks as newlines.
    fn plain(md: &str) -> String {
        let mut out = String::new();
        for e in Parser::new(md) {
            match e {
                Event::Text(t) | Event::Code(t) => out.push_str(&t),
                Event::SoftBreak | Event::HardBreak => out.push('\n'),
                Event::End(TagEnd::Paragraph) => out.push('\n'),
                _ => {}
            }
        }
        out
    }

    fn only_text(md: &str) {
        for e in events(md) {
            match e {
                Event::Start(Tag::Paragraph)
                | Event::End(TagEnd::Paragraph)
                | Event::Text(_)
                | Event::HardBreak
                | Event::SoftBreak => {}
                other => panic!("unexpected {other:?} in {md:?}"),
            }
        }
    }

    #[test]
    fn hostile_text_renders_literally() {
        let nasty = [
            "# heading",
            "## also\n===",
            "- list\n* star\n+ plus\n1. one\n2) two",
            "> quote",
            "<script>alert(1)</script>",
            "<div>\nblock\n</div>",
            "[link](http://x) ![img](y.png) <http://auto>",
            "[ref]: http://example.com",
            "*emph* _under_ **strong** __strong__",
            "`code` and ``two``",
            "&amp; &#65; &copy;",
            "---\n***\n___",
            "    indented code\n\ttabbed",
            "a | b\n--|--\n1 | 2",
            "trailing backslash \\\nnext",
            "two spaces  \nnext",
            "line\rwith CR\r# heading after CR",
            "~~strike~~ ~~~",
            "snake_case_name and _x_",
        ];
        for t in nasty {
            let md = text_block(t);
            only_text(&md);
            let expect: String = normalize(t)
                .split('\n')
                .map(|l| l.trim_end().replace('\t', "    "))
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            let got: String = plain(&md)
                .replace('\u{a0}', " ")
                .split('\n')
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            assert_eq!(got, expect, "{t:?} → {md:?}");
        }
    }

    #[test]
    fn fences_in_text_stay_code_and_close() {
        let t = "Here:\n```rust\nfn main() {}\n```\nand ~~~\n~~~sh\necho ```` hi\n~~~\nend";
        let md = text_block(t);
        let ev = events(&md);
        let blocks: Vec<String> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Start(Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(i))) => {
                    Some(i.to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(blocks, ["rust", "sh"]);
        assert!(plain(&md).contains("echo ```` hi"));
        assert!(plain(&md).ends_with("end\n"));
        // An unclosed fence runs to the end of the text, and is closed by us.
        let md = text_block("```\nnever closed\n# not a heading");
        assert!(
            !events(&md)
                .iter()
                .any(|e| matches!(e, Event::Start(Tag::Heading { .. })))
        );
    }

    #[test]
    fn fence_is_longer_than_any_backtick_run() {
        let content = "a ``````` b\n```\n````";
        let md = fence("text", content);
        assert!(md.starts_with("````````text\n"));
        let ev = events(&md);
        assert_eq!(
            ev.iter()
                .filter(|e| matches!(e, Event::Start(Tag::CodeBlock(_))))
                .count(),
            1
        );
        assert_eq!(plain(&md), format!("{content}\n"));
    }

    #[test]
    fn details_and_blockquote_nest() {
        let inner = details(
            "Result <b> & \"x\"",
            false,
            &fence("text", "```\n</details>\n"),
        );
        let md = blockquote(&format!("#### 1 · User\n\n{}", text_block("hi\n\n> there")));
        let md = format!("{md}{}", blockquote(&inner));
        let html: Vec<String> = events(&md)
            .into_iter()
            .filter_map(|e| match e {
                Event::Html(h) | Event::InlineHtml(h) => Some(h.trim().to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(
            html,
            [
                "<details>",
                "<summary>Result &lt;b&gt; &amp; &quot;x&quot;</summary>",
                "</details>"
            ]
        );
    }

    #[test]
    fn cutting() {
        let t = "1\n2\n3\n4\n5\n";
        assert_eq!(cut_lines(t, 0), (t, None));
        assert_eq!(cut_lines(t, 5), (t, None));
        assert_eq!(cut_lines(t, 2), ("1\n2", Some((3, 6))));
        assert_eq!(cut_lines("a\nb", 1), ("a", Some((1, 1))));
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }

    #[test]
    fn shell_commands() {
        let v = serde_json::json!({"command": ["bash", "-lc", "ls -la"], "workdir": "/x"});
        let (cmd, rest) = shell_command("shell", &v).unwrap();
        assert_eq!(cmd, "ls -la");
        assert_eq!(rest.len(), 1);
        let v = serde_json::json!({"command": ["git", "commit", "-m", "a b"]});
        assert_eq!(shell_command("shell", &v).unwrap().0, "git commit -m 'a b'");
        let v = serde_json::json!({"command": "view", "path": "/x"});
        assert!(shell_command("str_replace_based_edit_tool", &v).is_none());
        assert!(shell_command("Bash", &serde_json::json!({"command": "ls"})).is_some());
    }
}
