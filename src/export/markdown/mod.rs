//! The reference format: a Markdown transcript that is correct CommonMark whatever the
//! session contains, and renders the way the agents show their sessions.
//!
//! How the content stays inert:
//! - Message text (prompts, replies, thinking, summaries) is Markdown and is rendered as such
//!   ([`prose`]): headings (demoted below the turn headings), emphasis, lists, tables, links
//!   and code survive; raw HTML becomes text, links keep only http(s)/mailto targets and show
//!   them, images are never fetched. With `--literal` the text renders exactly as typed
//!   ([`cmark::text_block`]: every syntax character escaped, line breaks kept).
//! - Code (commands, arguments, outputs) goes verbatim in fenced blocks whose fence is longer
//!   than any backtick run inside; edits are unified diffs ([`tools`]).
//! - The only raw HTML is ours: `<details>`/`<summary>` around thinking and tool results, with
//!   the summary text HTML-escaped.
//! - Control characters never pass: every piece of session text is made terminal-safe first
//!   (`ESC` shows as `^[`), so the transcript can be printed to a terminal.
//!
//! The document is produced section by section ([`Section`]): the header, then one section per
//! turn (a message with visible content; tool results are placed under the call that asked for
//! them), per compaction (a divider with the full summary, [`compaction`]) and per sub-agent
//! conversation that could not be nested under its spawning call. The HTML page renders the
//! same sections.

pub mod cmark;
pub mod compaction;
mod index;
pub mod prose;
mod tables;
pub mod tools;

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::model::{Message, Part, Role, Session, SessionKind, SubagentLink};
use crate::render::text::safe_preview;
use crate::render::{human_count, human_duration, plural, project_detail, thousands, time};

use super::{ExportOptions, ImageMode};

pub use crate::render::human_bytes;
pub use cmark::{blockquote, details, details_into, fence, html_escape, inline, text_block};
pub use compaction::compaction_line;
use compaction::trigger_str;
use index::{CallIndex, Pending};
use tools::pretty;
pub use tools::{cut_lines, edit_diff, shell_command};

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

/// The extension each media type is written with; anything else is `bin` (the last entry).
const IMAGE_TYPES: [(&str, &str); 8] = [
    ("image/png", "png"),
    ("image/jpeg", "jpg"),
    ("image/jpg", "jpg"),
    ("image/gif", "gif"),
    ("image/webp", "webp"),
    ("image/svg+xml", "svg"),
    ("application/pdf", "pdf"),
    ("", "bin"),
];

pub fn image_ext(media_type: Option<&str>) -> &'static str {
    let t = media_type.unwrap_or("");
    IMAGE_TYPES
        .iter()
        .find(|&&(m, _)| m == t)
        .map_or("bin", |&(_, e)| e)
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
    /// Whether a file name is one [`Assets`] gives (`image-001.png`): what a failed export may
    /// remove again.
    pub fn is_own_name(name: &str) -> bool {
        name.strip_prefix("image-")
            .and_then(|r| r.split_once('.'))
            .is_some_and(|(n, ext)| {
                n.len() >= 3
                    && n.bytes().all(|b| b.is_ascii_digit())
                    && IMAGE_TYPES.iter().any(|&(_, e)| e == ext)
            })
    }

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
        let name = format!("image-{:03}.{}", self.next, image_ext(media_type));
        let path = self.dir.join(&name);
        self.guard
            .write_bytes(&path, &bytes)
            .map_err(|e| e.to_string())?;
        Ok(format!(
            "./{}/{name}",
            crate::export::url_segment(&self.rel)
        ))
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
    /// Plain text (not Markdown), e.g. `3 · Assistant · 09:00:05` (see `TocTimes`).
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
    /// Where each call's results and sub-agents are. Shared with the documents of the inline
    /// sidechain runs: a copy for each run costs the size of the session, per run.
    index: Rc<CallIndex<'s>>,
    /// (call id, message of the call) → inline sidechain runs it spawned. By message too: a
    /// call id can repeat (checkpoint copies), and each run belongs to the copy that was
    /// waiting when it started, not to every copy.
    runs: HashMap<(&'s str, usize), Vec<Range<usize>>>,
    /// The trimmed texts of the compaction summaries a `compact_summary` message repeats:
    /// such a message is shown once, in the divider.
    duplicate_summaries: HashSet<&'s str>,
    /// Sub-agent sessions of this session not attached to a rendered call.
    loose_children: Vec<(String, Option<&'s SubagentLink>)>,
    /// How the table of contents shows the turns' times, settled on first use.
    toc_times: OnceCell<TocTimes>,
}

/// A turn's time in the table of contents: its heading's timestamp without what every turn
/// shares. The date when the turns span several days; the offset on a day whose turns do not
/// share one (a daylight-saving change), by the rule of `show`'s timeline ([`time::Days`]). The
/// header's time range names the date and offset they all share.
struct TocTimes {
    days: time::Days,
    dated: bool,
}

impl TocTimes {
    fn new(times: impl IntoIterator<Item = chrono::DateTime<chrono::Utc>>) -> Self {
        let times: Vec<_> = times.into_iter().collect();
        let dated = times
            .split_first()
            .is_some_and(|(first, rest)| rest.iter().any(|t| time::day(*t) != time::day(*first)));
        TocTimes {
            days: time::Days::new(times),
            dated,
        }
    }

    fn show(&self, t: chrono::DateTime<chrono::Utc>) -> String {
        if self.dated {
            format!("{} {}", time::day(t).format("%Y-%m-%d"), self.days.clock(t))
        } else {
            self.days.clock(t)
        }
    }
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
            index: Rc::new(CallIndex::new(s)),
            runs: HashMap::new(),
            duplicate_summaries: HashSet::new(),
            loose_children: Vec::new(),
            toc_times: OnceCell::new(),
        };
        d.plan();
        d
    }

    fn plan(&mut self) {
        let s = self.s;
        // Compaction summaries that the next message repeats verbatim are shown once, in
        // the divider.
        // A message's text is joined once, however many compactions look at it.
        let mut texts: HashMap<usize, String> = HashMap::new();
        for c in &s.compactions {
            let Some(summary) = c.summary.as_deref().map(str::trim) else {
                continue;
            };
            if self.duplicate_summaries.contains(summary) {
                continue;
            }
            let end = c.message_index.saturating_add(3).min(s.messages.len());
            let dup = (c.message_index..end).any(|mi| {
                let m = &s.messages[mi];
                m.subtype.as_deref() == Some("compact_summary")
                    && texts.entry(mi).or_insert_with(|| m.text()).trim() == summary
            });
            if dup {
                self.duplicate_summaries.insert(summary);
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
        let mut pending = Pending::default();
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
                match pending.spawner() {
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
                    Part::ToolCall { id, name, .. } => pending.push(id, name, i),
                    Part::ToolResult { call_id, .. } => pending.answer(call_id),
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
            // Ids adopted by a call or already listed: each sub-agent appears once.
            let mut seen: HashSet<String> = self
                .index
                .links
                .values()
                .flatten()
                .map(|l| l.id.clone())
                .collect();
            for l in &s.subagents {
                if seen.insert(l.id.clone()) {
                    self.loose_children.push((l.id.clone(), Some(l)));
                }
            }
            for id in self.env.children.of(&s.id) {
                if seen.insert(id.clone()) {
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
            && !self.duplicate_summaries.is_empty()
            && self.duplicate_summaries.contains(m.text().trim())
    }

    /// Whether a message renders anything of its own (results go under their calls).
    fn visible(&self, m: &Message) -> bool {
        blank_prompt(m)
            || m.parts.iter().any(|p| match p {
                Part::Text { text } | Part::Thinking { text } => !text.trim().is_empty(),
                Part::ToolCall { .. } | Part::Image { .. } | Part::Unknown { .. } => true,
                Part::ToolResult { call_id, .. } => !self.index.calls.contains(call_id.as_str()),
                Part::Compaction { .. } => false,
            })
    }

    fn toc_times(&self) -> &TocTimes {
        self.toc_times.get_or_init(|| {
            TocTimes::new(self.items.iter().filter_map(|it| match it {
                Item::Turn { msg, .. } => self.s.messages[*msg].timestamp,
                _ => None,
            }))
        })
    }

    /// The table of contents (header excluded), in document order: an entry at a time, as a
    /// page writes them (a long session's would otherwise be held whole).
    pub fn outline(&self) -> impl Iterator<Item = Entry> + '_ {
        self.items.iter().map(|it| self.entry(it))
    }

    fn entry(&self, it: &Item) -> Entry {
        match it {
            Item::Turn { msg, number } => {
                let m = &self.s.messages[*msg];
                let (role, class) = role_label(m, self.s.kind == SessionKind::Subagent);
                let mut label = format!("{number} · {role}");
                if let Some(t) = m.timestamp {
                    let _ = write!(label, " · {}", self.toc_times().show(t));
                }
                let text = m.preview_text();
                if !text.trim().is_empty() {
                    let shown = if self.env.opts.literal {
                        safe_preview(&text, 60)
                    } else {
                        prose::plain_preview(&text, 60)
                    };
                    let _ = write!(label, " — {shown}");
                } else if let Some(name) = m.parts.iter().find_map(|p| match p {
                    Part::ToolCall { name, .. } => Some(name),
                    _ => None,
                }) {
                    let _ = write!(label, " — {}", safe_preview(name, 40));
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

    /// The level of this document's turn headings: 2, then 2 deeper per nested sub-agent.
    fn level(&self) -> usize {
        (2 + 2 * self.depth).min(6)
    }

    fn heading(&self) -> String {
        "#".repeat(self.level())
    }

    /// Message text as Markdown (its headings below this document's turn headings), or
    /// literally with `--literal`.
    fn text(&self, text: &str) -> String {
        if self.env.opts.literal {
            text_block(text)
        } else {
            prose::render(text, self.level())
        }
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
            .map(|t| safe_preview(t, 120))
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
        let project = project_detail(
            s.project.as_deref(),
            s.project_hash.as_deref(),
            s.project_source.as_str(),
        );
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
                    time::timestamp(a),
                    time::timestamp(b),
                    human_duration(b - a)
                )),
            );
        }
        let c = s.counts();
        // The counts are the session's as read (`counts_as_read`), so with `--no-tools` they
        // count calls the reader will not find below: say so next to the number.
        let mut calls = format!(
            "{} ({} failed)",
            plural(c.tool_calls as usize, "tool call"),
            thousands(c.tool_errors)
        );
        if !self.env.opts.tools && c.tool_calls > 0 {
            calls.push_str(", not in this transcript");
        }
        field(
            "Counts",
            inline(&format!(
                "{} · {} · {} · {} · {}",
                plural(c.user_turns as usize, "user turn"),
                plural(c.assistant_messages as usize, "assistant message"),
                calls,
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
                "{} total: {} input, {} cache read, {} cache write, {} output ({} reasoning) over {}",
                thousands(u.total()),
                thousands(u.input),
                thousands(u.cache_read),
                thousands(u.cache_write),
                thousands(u.output),
                thousands(u.reasoning),
                plural(s.requests.len(), "request")
            )),
        );
        let mut how = vec![format!("sessions {}", env!("CARGO_PKG_VERSION"))];
        if o.redact {
            how.push("secrets redacted".into());
        }
        if let Some(what) = super::left_out(o) {
            how.push(format!("{what} left out"));
        }
        // Without tools there is no output to cut.
        if o.max_output_lines > 0 && o.tools {
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
        let blank = blank_prompt(m);
        let (role, _) = role_label(m, self.s.kind == SessionKind::Subagent);
        let mut h = String::new();
        if let Some(n) = number {
            let _ = write!(h, "{n} · ");
        }
        h.push_str(role);
        if let Some(st) = m.subtype.as_deref().filter(|st| {
            !(blank || *st == "compact_summary" || (m.role == Role::System && *st == "info"))
        }) {
            let _ = write!(h, " ({})", st.replace('_', " "));
        }
        if let Some(t) = m.timestamp {
            let _ = write!(h, " · {}", time::timestamp(t));
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
        if blank {
            out.push_str("*(blank prompt)*\n\n");
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
                    out.push_str(&self.text(text));
                }
            }
            Part::Thinking { text } => {
                if !text.trim().is_empty() {
                    details_into(out, "Thinking", false, |o| o.push_str(&self.text(text)));
                }
            }
            Part::ToolCall { id, name, input } => {
                self.tool_call(out, mi, id, name, &input.to_value())
            }
            Part::ToolResult {
                call_id,
                output,
                is_error,
                attachments,
                ..
            } => {
                if !self.index.calls.contains(call_id.as_str()) {
                    let _ = write!(
                        out,
                        "**Tool result** for call {} (the call itself was not recorded)\n\n",
                        inline(call_id)
                    );
                    self.result(out, output, *is_error, attachments);
                }
            }
            Part::Image {
                media_type,
                bytes,
                data,
                url,
            } => out.push_str(&self.image(
                media_type.as_deref(),
                *bytes,
                data.as_deref(),
                url.as_deref(),
            )),
            Part::Compaction { .. } => {}
            Part::Unknown { kind, raw } if kind == "document" => {
                out.push_str(&self.document(raw));
            }
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

    /// Inline sidechain messages, one level deeper.
    pub(super) fn run(&self, range: Range<usize>) -> String {
        let inner = Document {
            s: self.s,
            env: self.env,
            depth: self.depth + 1,
            items: Vec::new(),
            index: Rc::clone(&self.index),
            runs: HashMap::new(),
            duplicate_summaries: HashSet::new(),
            loose_children: Vec::new(),
            toc_times: OnceCell::new(),
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
    pub(super) fn child(&self, id: &str, link: Option<&SubagentLink>) -> String {
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
            "**Sub-agent session {}{}** · {} · {} tokens · {}\n\n",
            inline(&child.id),
            kind,
            plural(child.messages.len(), "message"),
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
}

/// A prompt of only whitespace (sent, and kept in the JSON) still is a turn: without a mark it
/// would vanish from md/html, and the answer to it would seem to answer nothing.
/// (Claude Code marks one `empty`, a subtype the heading does not repeat.)
fn blank_prompt(m: &Message) -> bool {
    m.role == Role::User
        && match m.subtype.as_deref() {
            None => !m.parts.is_empty(),
            Some("empty") => true,
            Some(_) => false,
        }
        && m.parts
            .iter()
            .all(|p| matches!(p, Part::Text { text } if text.trim().is_empty()))
}

/// The heading word for a message and its CSS class. In a sub-agent conversation the first
/// "user" message is the task its parent gave it.
fn role_label(m: &Message, subagent: bool) -> (&'static str, &'static str) {
    if blank_prompt(m) {
        return ("User", "user");
    }
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
