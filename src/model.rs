//! The unified session model. Every parser produces a [`Session`]; every command consumes one
//! (or the [`SessionSummary`](crate::scan::SessionSummary) derived from it). Agent-specific quirks stop at the parser.

use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diag::Warning;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

impl Agent {
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SessionKind {
    #[default]
    Main,
    Subagent,
}

impl SessionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionKind::Main => "main",
            SessionKind::Subagent => "subagent",
        }
    }
}

/// How a session's project path was determined (the `project_source` contract field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ProjectSource {
    /// The `cwd` recorded in the session (Claude, Codex; Codex bare era via `<environment_context>`).
    Cwd,
    /// Gemini: the `.project_root` marker of the project temp dir.
    ProjectRoot,
    /// Gemini: `~/.gemini/projects.json`.
    ProjectsJson,
    /// Gemini: sha256(candidate path) == `projectHash`.
    HashMatch,
    /// Claude, when no record holds a `cwd`: the project folder's name is the encoding of a
    /// path another session recorded (one path only; several that encode alike leave it
    /// unresolved).
    FolderMatch,
    /// Nothing matched; `project` is `None` and the hash prefix is reported.
    #[default]
    Unresolved,
}

impl ProjectSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectSource::Cwd => "cwd",
            ProjectSource::ProjectRoot => "project_root",
            ProjectSource::ProjectsJson => "projects_json",
            ProjectSource::HashMatch => "hash_match",
            ProjectSource::FolderMatch => "folder_match",
            ProjectSource::Unresolved => "unresolved",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Something the human typed (or a harness message in the user slot; see [`Message::is_human`]).
    User,
    Assistant,
    /// Harness/system notices: Claude `system` records, Gemini `info`/`error`/`warning`,
    /// Codex `developer`/`system` messages. Never counted as assistant output.
    System,
    /// A message that only carries tool results back to the model (Claude tool_result carrier
    /// records, Codex `function_call_output` items, Gemini v0.44+ functionResponse user messages).
    Tool,
}

/// Unified token usage. `total = input + cache_read + cache_write + output`;
/// `reasoning` is a subset of `output` and `cache_write_1h` a subset of `cache_write`: neither
/// is ever added to the total.
///
/// Sums saturate: recorded counts come from untrusted files, and a file that claims
/// `u64::MAX` tokens must not wrap a total around to a small number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
    /// The part of `cache_write` Claude recorded as 1-hour cache
    /// (`usage.cache_creation.ephemeral_1h_input_tokens`), priced differently from 5-minute
    /// writes. 0 for the other agents.
    #[serde(default)]
    pub cache_write_1h: u64,
}

impl Usage {
    // Token arithmetic saturates: a hostile or corrupt file can record counts near u64::MAX,
    // and a saturated figure is visibly absurd where a wrapped one would look plausible.
    pub fn total(&self) -> u64 {
        self.prompt().saturating_add(self.output)
    }

    /// The prompt size this usage represents (uncached + cache read + cache write).
    pub fn prompt(&self) -> u64 {
        self.input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    pub fn is_zero(&self) -> bool {
        *self == Usage::default()
    }

    pub fn add(&mut self, other: &Usage) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.reasoning = self.reasoning.saturating_add(other.reasoning);
        self.cache_write_1h = self.cache_write_1h.saturating_add(other.cache_write_1h);
    }

    /// Per-field maximum: how streamed snapshots of one response are merged.
    pub fn max_with(&mut self, other: &Usage) {
        self.input = self.input.max(other.input);
        self.output = self.output.max(other.output);
        self.cache_read = self.cache_read.max(other.cache_read);
        self.cache_write = self.cache_write.max(other.cache_write);
        self.reasoning = self.reasoning.max(other.reasoning);
        self.cache_write_1h = self.cache_write_1h.max(other.cache_write_1h);
    }
}

/// The serialised token block of the JSON contract (`tokens` object).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
    pub total: u64,
}

impl From<Usage> for TokenTotals {
    fn from(u: Usage) -> Self {
        TokenTotals {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            reasoning: u.reasoning,
            total: u.total(),
        }
    }
}

/// One model API call with the usage the agent recorded for it, already de-duplicated within
/// the file by the parser (Claude: merged streamed pieces; Codex: `total_token_usage` deltas;
/// Gemini: last record per message id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    #[serde(serialize_with = "serialize_time")]
    pub timestamp: Option<DateTime<Utc>>,
    pub model: Option<String>,
    /// Billable usage attributed to this call (what totals sum).
    pub usage: Usage,
    /// The prompt size the agent reported for this call (Claude input + cache read + cache
    /// write; Codex `last_token_usage.input_tokens`; Gemini `tokens.input`). Used by replays.
    pub prompt_tokens: Option<u64>,
    /// Index into [`Session::messages`] of the assistant message this call produced, if known.
    pub message_index: Option<usize>,
    /// Cross-file de-duplication key (Claude `message.id` + `requestId`). Aggregates over several
    /// files count each key once. `None` means the request is unique to this file.
    pub dedup_key: Option<DedupKey>,
}

/// One model request's billable usage: the atom every usage report sums.
///
/// A [`SessionSummary`](crate::scan::SessionSummary) carries one per request of its file, in
/// file order, already de-duplicated within the file; [`crate::scan::unique_requests`] applies
/// the cross-file rules. Building them never touches message text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestUsage {
    #[serde(serialize_with = "serialize_time")]
    pub timestamp: Option<DateTime<Utc>>,
    /// Shared between the requests of a session: one allocation per distinct model.
    pub model: Option<Arc<str>>,
    /// As this file recorded it; once the scan's cross-file rules have run
    /// ([`crate::scan::count_once`]), the per-field maximum over every copy of the response
    /// for the copy that counts (a copy can be written mid-stream): what aggregates add.
    pub usage: Usage,
    /// What this file recorded, when the cross-file rules raised `usage` above it: a session's
    /// own figures (a `list` row, as `show` gives them) come from its file alone
    /// ([`RequestUsage::own_usage`]).
    #[serde(skip)]
    pub own: Option<Box<Usage>>,
    pub dedup_key: Option<DedupKey>,
    /// Whether aggregates count this request: `false` for a copy of a response that another
    /// file's copy stands for ([`crate::scan::count_once`]).
    #[serde(skip, default = "counted_by_default")]
    pub counted: bool,
}

fn counted_by_default() -> bool {
    true
}

impl RequestUsage {
    /// The atom of one request. `models` interns model names across the requests of a session
    /// (a store holds ~100k requests and a handful of models).
    pub fn of(r: &Request, models: &mut Vec<Arc<str>>) -> Self {
        let model = r.model.as_deref().map(|m| {
            if let Some(x) = models.iter().find(|x| x.as_ref() == m) {
                return x.clone();
            }
            let x: Arc<str> = m.into();
            models.push(x.clone());
            x
        });
        RequestUsage {
            timestamp: r.timestamp,
            model,
            usage: r.usage,
            own: None,
            dedup_key: r.dedup_key.clone(),
            counted: true,
        }
    }

    /// The usage this file recorded for the request, whatever the cross-file rules counted.
    pub fn own_usage(&self) -> &Usage {
        self.own.as_deref().unwrap_or(&self.usage)
    }

    /// Raise the usage aggregates count to the per-field maximum with `other` (another copy
    /// of the response), keeping what this file recorded. Whether anything was raised.
    pub fn raise_to(&mut self, other: &Usage) -> bool {
        let mut raised = self.usage;
        raised.max_with(other);
        if raised == self.usage {
            return false;
        }
        if self.own.is_none() {
            self.own = Some(Box::new(self.usage));
        }
        self.usage = raised;
        true
    }
}

/// Claude usage identity: one streamed API response. Sidechain copies that replay a parent's
/// message carry the same `message_id` with a fresh `request_id`, so aggregation also treats a
/// sidechain request whose `message_id` was already seen as a duplicate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DedupKey {
    pub message_id: String,
    pub request_id: Option<String>,
    pub sidechain: bool,
}

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
        input: Value,
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
    },
    /// Marks where in the message stream a compaction happened: an index into
    /// [`Session::compactions`].
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
    pub id: Option<String>,
    pub role: Role,
    #[serde(serialize_with = "serialize_time")]
    pub timestamp: Option<DateTime<Utc>>,
    pub model: Option<String>,
    pub parts: Vec<Part>,
    /// Per-message usage as recorded (after in-file de-duplication), for the timeline.
    pub usage: Option<Usage>,
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
    pub subtype: Option<String>,
    /// What the user typed when the agent sent something else in its place (Gemini
    /// `displayContent`: `/init` for the prompt it expands to, the prompt before `@file`
    /// injection). Titles use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
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
        let shown = self.display.clone().unwrap_or_else(|| self.text());
        Some(typed_text(&shown)).filter(|t| !t.is_empty())
    }

    /// The text a one-line preview of the message starts from: what the human typed, else
    /// the text as recorded (a prompt that is nothing but IDE context shows that context).
    pub fn preview_text(&self) -> String {
        self.typed().unwrap_or_else(|| self.text())
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    Auto,
    Manual,
    #[default]
    Unknown,
}

/// What trace a compaction left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionKind {
    /// Claude `system/compact_boundary` (+ `isCompactSummary`).
    ClaudeBoundary,
    /// Claude `system/microcompact_boundary`: old tool results cleared from the context, no
    /// summary (`microcompactMetadata`: trigger, `preTokens`, `tokensSaved`, the cleared tool
    /// ids). Like Gemini masking, not a compaction a replay validates.
    ClaudeMicrocompact,
    /// Codex `compacted` line (+ `context_compacted` event).
    CodexCompacted,
    /// Gemini `$set.messages` checkpoint (or saved chat) holding a `<state_snapshot>`.
    GeminiSnapshot,
    /// Gemini experimental context manager JSON-object snapshot (reported, not replayed).
    GeminiJsonSnapshot,
    /// Gemini `info` message only ("Context compressed from X% to Y%." and older forms).
    GeminiInfo,
    /// Gemini tool-output masking (`<tool_output_masked>`).
    GeminiMasking,
    /// Legacy Gemini: compression continued the session in a new file.
    GeminiNewFile,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    Recorded,
    Estimated,
    #[default]
    Unknown,
}

/// Serialised by hand, through `CompactionRecord` (`show`/`export` JSON): each figure with the
/// provenance [`Compaction::before_provenance`]/[`Compaction::after_provenance`] give it, the
/// rule the `compactions` ledger follows too.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Compaction {
    pub kind: CompactionKind,
    pub timestamp: Option<DateTime<Utc>>,
    pub trigger: Trigger,
    /// Index into [`Session::messages`] of the first message after the compaction.
    pub message_index: usize,
    /// Number of [`Session::requests`] made before the compaction.
    pub request_index: usize,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    /// Provenance of `tokens_before` (and of `tokens_after`, unless `after_provenance` says
    /// otherwise).
    pub tokens_provenance: Provenance,
    /// Set when `tokens_after` was obtained differently from `tokens_before` (e.g. Codex: the
    /// prompt before was recorded, the size after estimated from the replacement history).
    #[serde(default)]
    pub after_provenance: Option<Provenance>,
    /// Percentages from Gemini's "Context compressed from X% to Y%." notice.
    #[serde(default)]
    pub percent_before: Option<u32>,
    #[serde(default)]
    pub percent_after: Option<u32>,
    pub duration_ms: Option<u64>,
    pub summary: Option<String>,
    /// History messages the compaction replaced / kept, when the trace records them.
    pub messages_before: Option<usize>,
    pub messages_after: Option<usize>,
    /// `<state_snapshot>` section tags present in the summary (Gemini).
    #[serde(default)]
    pub sections: Vec<String>,
    /// Everything else the trace carried (Claude `compactMetadata`, Codex window ids, …).
    #[serde(default)]
    pub extra: Value,
}

impl Compaction {
    /// Where `tokens_before` came from; `Unknown` when there is no figure (a provenance never
    /// vouches for a number that is not there).
    pub fn before_provenance(&self) -> Provenance {
        match self.tokens_before {
            Some(_) => self.tokens_provenance,
            None => Provenance::Unknown,
        }
    }

    /// Where `tokens_after` came from: a Claude boundary with `preTokens` but no `postTokens`
    /// recorded only the figure before, so the one after is `Unknown`, not `Recorded`.
    pub fn after_provenance(&self) -> Provenance {
        match self.tokens_after {
            Some(_) => self.after_provenance.unwrap_or(self.tokens_provenance),
            None => Provenance::Unknown,
        }
    }

    pub fn new(kind: CompactionKind) -> Self {
        Compaction {
            kind,
            timestamp: None,
            trigger: Trigger::Unknown,
            message_index: 0,
            request_index: 0,
            tokens_before: None,
            tokens_after: None,
            tokens_provenance: Provenance::Unknown,
            after_provenance: None,
            percent_before: None,
            percent_after: None,
            duration_ms: None,
            summary: None,
            messages_before: None,
            messages_after: None,
            sections: Vec::new(),
            extra: Value::Null,
        }
    }
}

/// `compactions[]` in `show`/`export --format json|jsonl` (docs/json.md). The model's
/// `tokens_provenance` covers both figures and can outlive a missing one; here a provenance
/// never vouches for a `null`.
#[derive(Serialize)]
struct CompactionRecord<'a> {
    kind: CompactionKind,
    #[serde(serialize_with = "serialize_time")]
    timestamp: Option<DateTime<Utc>>,
    trigger: Trigger,
    message_index: usize,
    request_index: usize,
    tokens_before: Option<u64>,
    tokens_after: Option<u64>,
    /// Kept for scripts written against it: the provenance of `tokens_before`.
    tokens_provenance: Provenance,
    tokens_before_provenance: Provenance,
    tokens_after_provenance: Provenance,
    #[serde(skip_serializing_if = "Option::is_none")]
    percent_before: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    percent_after: Option<u32>,
    duration_ms: Option<u64>,
    summary: &'a Option<String>,
    messages_before: Option<usize>,
    messages_after: Option<usize>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    sections: &'a [String],
    #[serde(skip_serializing_if = "Value::is_null")]
    extra: &'a Value,
}

impl Serialize for Compaction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let before = self.before_provenance();
        CompactionRecord {
            kind: self.kind,
            timestamp: self.timestamp,
            trigger: self.trigger,
            message_index: self.message_index,
            request_index: self.request_index,
            tokens_before: self.tokens_before,
            tokens_after: self.tokens_after,
            tokens_provenance: before,
            tokens_before_provenance: before,
            tokens_after_provenance: self.after_provenance(),
            percent_before: self.percent_before,
            percent_after: self.percent_after,
            duration_ms: self.duration_ms,
            summary: &self.summary,
            messages_before: self.messages_before,
            messages_after: self.messages_after,
            sections: &self.sections,
            extra: &self.extra,
        }
        .serialize(s)
    }
}

/// A sub-agent conversation spawned by this session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentLink {
    /// The sub-agent session id (Claude `agentId`, Codex thread id, Gemini agent id).
    pub id: String,
    /// The tool call that spawned it, when known.
    pub tool_call_id: Option<String>,
    /// Its own file, when it has one.
    #[serde(serialize_with = "crate::diag::serialize_opt_path")]
    pub path: Option<PathBuf>,
    /// e.g. `general-purpose` (Claude `.meta.json` agentType) or the Codex agent role.
    pub agent_type: Option<String>,
}

/// A session, fully parsed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub agent: Agent,
    pub id: String,
    #[serde(serialize_with = "crate::diag::serialize_path")]
    pub path: PathBuf,
    pub kind: SessionKind,
    pub parent_id: Option<String>,
    /// Absolute project path, when resolved.
    pub project: Option<String>,
    pub project_source: ProjectSource,
    /// Gemini `projectHash` (sha256 of the project root), used for resolution and display.
    pub project_hash: Option<String>,
    /// The working directory the agent recorded (first one seen).
    pub cwd: Option<String>,
    pub title: Option<String>,
    #[serde(serialize_with = "serialize_time")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "serialize_time")]
    pub updated_at: Option<DateTime<Utc>>,
    /// Distinct models in order of first use (`<synthetic>` excluded).
    pub models: Vec<String>,
    /// Agent version(s) that wrote the file, first seen.
    pub agent_version: Option<String>,
    /// The context window the agent itself recorded (Codex `model_context_window`), last seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    pub git_branch: Option<String>,
    pub messages: Vec<Message>,
    pub requests: Vec<Request>,
    pub compactions: Vec<Compaction>,
    pub subagents: Vec<SubagentLink>,
    /// Record kinds the parser met but does not model, with counts (e.g. `claude:queue-operation`).
    /// Kept so nothing is silently dropped.
    pub other_records: Vec<(String, u64)>,
    pub warnings: Vec<Warning>,
    /// Claude only: record uuids in this file, hashed, in file order, for resolving
    /// `summary.leafUuid` titles written into other files of the same project (the last record
    /// with a title gives it). Not serialised.
    #[serde(skip)]
    pub record_uuids: Vec<u64>,
    /// Claude only: `(leafUuid, title)` pairs from `summary` records in this file. They usually
    /// title a *different* session of the same project.
    #[serde(skip)]
    pub leaf_titles: Vec<(String, String)>,
    /// Whether `title` came from an explicit title record (beats leaf titles and first prompts).
    #[serde(skip)]
    pub title_is_explicit: bool,
    /// Gemini only: what the file's layout shows of the CLI version that wrote it (none for a
    /// saved chat, which every version writes alike). Not serialised.
    #[serde(skip)]
    pub gemini_layout: Option<GeminiLayout>,
}

/// What a Gemini session file's layout shows of the CLI version that wrote it (`formats.md`
/// §3.2): sessions record no version, and the replay assumes one from this and the start date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GeminiLayout {
    /// Read as one JSON document (legacy, v0.4–v0.38), not as a JSONL log (v0.39+): what the
    /// file holds, whatever its extension (a legacy session resumed from v0.39 on continues
    /// in a migrated `.jsonl`).
    pub document: bool,
    /// A `$set.messages` checkpoint or a functionResponse `user` record: v0.44+.
    pub checkpoints: bool,
    /// A tool call recorded with its result. Before v0.44 a log records results only there; a
    /// v0.44+ log adds a functionResponse `user` record, so a result without one bounds a log
    /// to v0.39–v0.43.
    pub tool_results: bool,
}

impl Session {
    pub fn new(agent: Agent, id: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        Session {
            agent,
            id: id.into(),
            path: path.into(),
            kind: SessionKind::Main,
            parent_id: None,
            project: None,
            project_source: ProjectSource::Unresolved,
            project_hash: None,
            cwd: None,
            title: None,
            started_at: None,
            updated_at: None,
            models: Vec::new(),
            agent_version: None,
            context_window: None,
            git_branch: None,
            messages: Vec::new(),
            requests: Vec::new(),
            compactions: Vec::new(),
            subagents: Vec::new(),
            other_records: Vec::new(),
            warnings: Vec::new(),
            record_uuids: Vec::new(),
            leaf_titles: Vec::new(),
            title_is_explicit: false,
            gemini_layout: None,
        }
    }

    /// Record a model name once, in order of first use. `<synthetic>` is not a model.
    pub fn note_model(&mut self, model: &str) {
        if model.is_empty() || model == "<synthetic>" {
            return;
        }
        if !self.models.iter().any(|m| m == model) {
            self.models.push(model.to_string());
        }
    }

    /// Widen the session's time span with one observed timestamp.
    pub fn note_time(&mut self, t: DateTime<Utc>) {
        if self.started_at.is_none_or(|s| t < s) {
            self.started_at = Some(t);
        }
        if self.updated_at.is_none_or(|u| t > u) {
            self.updated_at = Some(t);
        }
    }

    /// Count a record kind that is kept only as a tally.
    pub fn note_other(&mut self, kind: &str) {
        self.note_other_parts(&[kind]);
    }

    /// [`Session::note_other`] of the concatenation of `parts`, without building it unless it
    /// is new (tallies run once per metadata record).
    pub fn note_other_parts(&mut self, parts: &[&str]) {
        let matches = |k: &str| {
            let mut rest = k;
            for p in parts {
                match rest.strip_prefix(p) {
                    Some(r) => rest = r,
                    None => return false,
                }
            }
            rest.is_empty()
        };
        if let Some(slot) = self.other_records.iter_mut().find(|(k, _)| matches(k)) {
            slot.1 += 1;
        } else {
            self.other_records.push((parts.concat(), 1));
        }
    }

    pub fn counts(&self) -> Counts {
        let mut calls: HashSet<&str> = HashSet::new();
        let mut errors: HashSet<&str> = HashSet::new();
        let mut counts = Counts::default();
        for m in &self.messages {
            if m.is_human {
                counts.user_turns += 1;
            }
            if m.role == Role::Assistant {
                counts.assistant_messages += 1;
            }
            for p in &m.parts {
                match p {
                    Part::ToolCall { id, .. } => {
                        calls.insert(id);
                    }
                    Part::ToolResult {
                        call_id,
                        is_error: true,
                        ..
                    } => {
                        errors.insert(call_id);
                    }
                    _ => {}
                }
            }
        }
        counts.tool_calls = calls.len() as u64;
        counts.tool_errors = errors.len() as u64;
        counts
    }

    /// Sum of the recorded usage of this file's requests.
    pub fn usage(&self) -> Usage {
        let mut u = Usage::default();
        for r in &self.requests {
            u.add(&r.usage);
        }
        u
    }

    /// The first human prompt, for a fallback title. A sub-agent has no human: its first
    /// prompt is the task its parent gave it.
    pub fn first_prompt(&self) -> Option<String> {
        // What the human typed, without the harness's wrapping: the first prompt that has some
        // (else the first one as recorded, markup and all, rather than no title).
        let nonblank = |m: &&Message| !m.text().trim().is_empty();
        let humans = || self.messages.iter().filter(|m| m.is_human && !m.sidechain);
        let human = humans()
            .find_map(Message::typed)
            .or_else(|| humans().find(nonblank).map(Message::text));
        let task = || {
            self.messages
                .iter()
                .filter(|m| m.role == Role::User && m.subtype.is_none())
                .find(nonblank)
                .map(Message::text)
        };
        match self.kind {
            SessionKind::Main => human,
            SessionKind::Subagent => human.or_else(task),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Counts {
    pub user_turns: u64,
    pub assistant_messages: u64,
    pub tool_calls: u64,
    pub tool_errors: u64,
}

/// Times in every JSON output as `list` writes them: RFC 3339 in UTC with milliseconds
/// (`2026-03-14T09:00:00.000Z`), so that one parser reads them all.
pub fn serialize_time<S: serde::Serializer>(
    t: &Option<DateTime<Utc>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&rfc3339(*t)),
        None => s.serialize_none(),
    }
}

/// RFC 3339 in UTC with milliseconds, the one spelling of a time in machine output.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
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
    use super::{Message, Part, Role, typed_text};

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
