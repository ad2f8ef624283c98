//! The unified session model. Every parser produces a [`Session`]; every command consumes one
//! (or the [`SessionSummary`](crate::scan::SessionSummary) derived from it). Agent-specific quirks stop at the parser.
//!
//! The session and what identifies it live here; `usage.rs` holds token usage and the requests
//! that carry it, `message.rs` messages and their parts, `compaction.rs` compactions.

mod compaction;
mod message;
mod tool_input;
mod usage;

use rustc_hash::FxHashSet as HashSet;
use std::fmt;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::diag::Warning;

pub use compaction::{Compaction, CompactionId, CompactionKind, Provenance, Trigger};
pub use message::{Message, Part, TextSize, media_kind, text_of, typed_text};
pub use tool_input::{JsonShape, JsonTree, ToolInput};
pub use usage::{DedupKey, ModelNames, Request, RequestUsage, TokenTotals, Usage};

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
    /// Claude only: the sub-agent responses copied into this file by `agent_progress` records,
    /// one per response (per-field max of its copies), keyed as copies ([`DedupKey::copy`]).
    /// Apart from `requests`: they are no request of this session's context, and count only
    /// where the sub-agent's own file is absent. Not serialised.
    #[serde(skip)]
    pub copied_requests: Vec<Request>,
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
    /// The counts of the session as read, kept when an export drops parts (`--no-tools`,
    /// `--no-thinking`): the counts describe the session, not what the export shows of it.
    /// Not serialised.
    #[serde(skip)]
    pub counts_as_read: Option<Counts>,
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
            copied_requests: Vec::new(),
            record_uuids: Vec::new(),
            leaf_titles: Vec::new(),
            title_is_explicit: false,
            gemini_layout: None,
            counts_as_read: None,
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
        if let Some(c) = self.counts_as_read {
            return c;
        }
        let mut calls: HashSet<&str> = HashSet::default();
        let mut errors: HashSet<&str> = HashSet::default();
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
