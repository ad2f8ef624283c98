//! Claude Code transcripts (formats.md §1): `projects/<encoded>/<session>.jsonl`, root
//! `agent-<id>.jsonl` sub-agent files (2.0.28+) and `<session>/subagents/**/agent-<id>.jsonl`
//! (2.1.x).
//!
//! One streaming pass turns records into messages, requests and compactions:
//! - `user` records become human prompts, tool-result carriers (role Tool), meta injections or
//!   compaction summaries;
//! - `assistant` records are merged per (`message.id`, `requestId`) into one message, even when
//!   the streamed pieces are not adjacent, with the per-field maximum of their usage snapshots;
//! - `system/compact_boundary` (+ the next `isCompactSummary` record) becomes one compaction;
//! - everything else is metadata: titles, leaf titles, the branch hint, or a tally.
//!
//! At the end the uuid/parentUuid graph (metadata records included, so nothing becomes a false
//! root) picks the current branch and flags messages on abandoned rewind branches.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hasher;
use std::io;
use std::path::Path;

use serde_json::{Map, Value};

use crate::diag::{Warning, WarningKind};
use crate::model::{
    Agent, Compaction, CompactionKind, DedupKey, Message, Part, Provenance, Request, Role, Session,
    SessionKind, SubagentLink, Trigger, Usage,
};
use crate::parse::{self, FileRole, SourceFile, json_kind, parse_time, str_field, u64_of};

type Obj = Map<String, Value>;

/// Parse one Claude Code transcript. `Err` only when the file cannot be opened.
pub fn parse(file: &SourceFile) -> Result<Session, Warning> {
    let reader = parse::open(&file.path).map_err(|e| parse::unreadable(&file.path, &e))?;
    let mut parser = Parser::new(file);
    let mut line_warnings = Vec::new();
    parse::for_each_json_line(&file.path, reader, &mut line_warnings, |line, rec| {
        parser.record(line, &rec)
    });
    Ok(parser.finish(line_warnings))
}

/// The file name without `.zst` / `.jsonl`.
fn file_stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.strip_suffix(".zst").unwrap_or(&name);
    name.strip_suffix(".jsonl").unwrap_or(name).to_string()
}

fn nonempty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.trim().is_empty())
}

fn flag(rec: &Obj, key: &str) -> bool {
    rec.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// A recorded number (or numeric string); `None` when absent or not a number.
fn number(v: Option<&Value>) -> Option<u64> {
    match v {
        Some(Value::Number(_)) => Some(u64_of(v)),
        Some(Value::String(s)) if s.trim().parse::<u64>().is_ok() => Some(u64_of(v)),
        _ => None,
    }
}

/// `message.usage` in unified terms (formats.md §1.5): `input_tokens` excludes the cache,
/// the `cache_creation` 5m + 1h sum is preferred over `cache_creation_input_tokens`, and
/// `thinking_tokens` is a subset of `output_tokens`.
fn usage_of(u: &Obj) -> Usage {
    let (cache_write, cache_write_1h) = match u.get("cache_creation").and_then(Value::as_object) {
        Some(cc)
            if cc.contains_key("ephemeral_5m_input_tokens")
                || cc.contains_key("ephemeral_1h_input_tokens") =>
        {
            let h1 = u64_of(cc.get("ephemeral_1h_input_tokens"));
            (
                u64_of(cc.get("ephemeral_5m_input_tokens")).saturating_add(h1),
                h1,
            )
        }
        _ => (u64_of(u.get("cache_creation_input_tokens")), 0),
    };
    let reasoning = u
        .get("output_tokens_details")
        .and_then(Value::as_object)
        .map_or(0, |d| u64_of(d.get("thinking_tokens")));
    Usage {
        input: u64_of(u.get("input_tokens")),
        output: u64_of(u.get("output_tokens")),
        cache_read: u64_of(u.get("cache_read_input_tokens")),
        cache_write,
        reasoning,
        cache_write_1h,
    }
}

/// `image` block → [`Part::Image`]; tolerant of `url`/`file` sources and missing fields.
fn image_part(b: &Obj) -> Part {
    let src = b.get("source").and_then(Value::as_object);
    let media_type = src
        .and_then(|s| str_field(s, "media_type"))
        .or_else(|| str_field(b, "media_type"))
        .map(String::from);
    let data = src.and_then(|s| str_field(s, "data"));
    Part::Image {
        media_type,
        bytes: data.map(parse::base64_decoded_len),
        data: data.map(String::from),
    }
}

/// A block nested inside `tool_result.content` that is not text.
fn attachment_part(v: &Value) -> Part {
    match v {
        Value::Object(o) => match str_field(o, "type") {
            Some("image") => image_part(o),
            Some(t) => Part::Unknown {
                kind: t.to_string(),
                raw: v.clone(),
            },
            None => Part::Unknown {
                kind: "object".into(),
                raw: v.clone(),
            },
        },
        other => Part::Unknown {
            kind: json_kind(other).into(),
            raw: other.clone(),
        },
    }
}

/// Harness markup that can open a user-slot text block, with the subtype it gets and whether
/// it is something the human typed (a slash command or a `!` shell command is).
const PROMPT_MARKUP: &[(&str, &str, bool)] = &[
    ("<command-name>", "command", true),
    ("<command-message>", "command", true),
    ("<bash-input>", "bash_input", true),
    ("<local-command-stdout>", "local_command_output", false),
    ("<local-command-stderr>", "local_command_output", false),
    ("<bash-stdout>", "bash_output", false),
    ("<bash-stderr>", "bash_output", false),
    ("<local-command-caveat>", "caveat", false),
    (
        "Caveat: The messages below were generated by the user while running local commands",
        "caveat",
        false,
    ),
    ("[Request interrupted by user", "interrupted", false),
    ("<task-notification>", "task_notification", false),
    ("<user-prompt-submit-hook>", "hook_output", false),
];

/// Classify the parts of a plain user prompt (not meta, not a tool-result carrier, not a
/// compaction summary): `(subtype, typed_by_the_human)`.
fn classify_prompt(parts: &[Part]) -> (Option<&'static str>, bool) {
    let mut texts = Vec::new();
    let mut other_content = false;
    for p in parts {
        match p {
            Part::Text { text } => texts.push(text.trim_start()),
            _ => other_content = true,
        }
    }
    let first = texts
        .iter()
        .find(|t| !t.is_empty() && !t.starts_with("<system-reminder>"));
    let Some(first) = first else {
        if other_content {
            return (None, true); // an image (or other block) on its own
        }
        if texts.iter().any(|t| !t.is_empty()) {
            return (Some("system_reminder"), false);
        }
        return (Some("empty"), false);
    };
    for (prefix, subtype, human) in PROMPT_MARKUP {
        if first.starts_with(prefix) {
            return (Some(subtype), *human);
        }
    }
    (None, true)
}

/// Hash of a JSON value without building its text.
fn value_hash(v: Option<&Value>) -> u64 {
    struct HashWriter(std::collections::hash_map::DefaultHasher);
    impl io::Write for HashWriter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut w = HashWriter(std::collections::hash_map::DefaultHasher::new());
    if let Some(v) = v {
        // Writing into a hasher cannot fail.
        let _ = serde_json::to_writer(&mut w, v);
    }
    w.0.finish()
}

/// One streamed API response: where its merged message and its request live.
struct Response {
    message: usize,
    request: Option<usize>,
    /// A sidechain copy of a main-session message (same `message.id`, new `requestId`): its
    /// usage was already counted with the original.
    replay: bool,
    sidechain: bool,
}

/// A record in the uuid/parentUuid graph.
struct Node {
    /// `parentUuid`, or `logicalParentUuid` when the parent is null (compact boundaries).
    parent: Option<String>,
    message: Option<usize>,
    /// A `user`/`assistant` record: a candidate for the tip of the current branch.
    conversational: bool,
    sidechain: bool,
}

/// What a record handler made of a record, for the graph.
enum Slot {
    /// A repeated copy of a record already seen: no new node.
    Repeat,
    /// A node, holding (part of) this message if any.
    Node(Option<usize>),
}

struct Parser<'a> {
    file: &'a SourceFile,
    s: Session,
    stem: String,
    subagent: bool,
    parent_hint: Option<String>,
    warnings: Vec<Warning>,
    first_session_id: Option<String>,
    first_parent_session_id: Option<String>,
    stem_is_session_id: bool,
    responses: HashMap<(String, Option<String>), Response>,
    main_message_ids: HashSet<String>,
    seen_records: HashSet<(u64, u64)>,
    nodes: Vec<Node>,
    node_index: HashMap<String, usize>,
    pending_calls: VecDeque<String>,
    answered_calls: HashSet<String>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    last_prompt_leaf: Option<String>,
    open_compaction: Option<usize>,
}

impl<'a> Parser<'a> {
    fn new(file: &'a SourceFile) -> Self {
        let stem = file_stem(&file.path);
        let (subagent, parent_hint) = match &file.role {
            FileRole::ClaudeSubagent { parent_session, .. } => (true, parent_session.clone()),
            FileRole::Unknown => (stem.starts_with("agent-"), None),
            _ => (false, None),
        };
        Parser {
            file,
            s: Session::new(Agent::Claude, stem.clone(), file.path.clone()),
            stem,
            subagent,
            parent_hint,
            warnings: Vec::new(),
            first_session_id: None,
            first_parent_session_id: None,
            stem_is_session_id: false,
            responses: HashMap::new(),
            main_message_ids: HashSet::new(),
            seen_records: HashSet::new(),
            nodes: Vec::new(),
            node_index: HashMap::new(),
            pending_calls: VecDeque::new(),
            answered_calls: HashSet::new(),
            custom_title: None,
            ai_title: None,
            last_prompt_leaf: None,
            open_compaction: None,
        }
    }

    fn warn(&mut self, kind: WarningKind, line: u64, msg: impl Into<String>) {
        self.warnings
            .push(Warning::new(kind, &self.file.path, Some(line), msg));
    }

    fn record(&mut self, line: u64, rec: &Obj) {
        let uuid = str_field(rec, "uuid");
        if let Some(u) = uuid {
            self.s.record_uuids.insert(parse::hash64(u));
        }
        let Some(kind) = str_field(rec, "type") else {
            self.warn(
                WarningKind::UnexpectedRecord,
                line,
                "skipped a record without a `type`",
            );
            return;
        };
        self.note_common(rec);
        let sidechain = flag(rec, "isSidechain");
        let (slot, conversational) = match kind {
            "user" => (self.user(line, rec, sidechain), true),
            "assistant" => (self.assistant(line, rec, sidechain), true),
            "system" => (self.system(rec, sidechain), false),
            "summary" => {
                if let (Some(leaf), Some(title)) = (
                    nonempty(str_field(rec, "leafUuid")),
                    nonempty(str_field(rec, "summary")),
                ) {
                    self.s
                        .leaf_titles
                        .push((leaf.to_string(), title.to_string()));
                }
                (Slot::Node(None), false)
            }
            "custom-title" => {
                if let Some(t) = nonempty(str_field(rec, "customTitle")) {
                    self.custom_title = Some(t.to_string());
                }
                (Slot::Node(None), false)
            }
            "ai-title" => {
                if let Some(t) = nonempty(str_field(rec, "aiTitle")) {
                    self.ai_title = Some(t.to_string());
                }
                (Slot::Node(None), false)
            }
            "last-prompt" => {
                if let Some(l) = nonempty(str_field(rec, "leafUuid")) {
                    self.last_prompt_leaf = Some(l.to_string());
                }
                (Slot::Node(None), false)
            }
            "progress" | "attachment" => {
                // `agent_progress` embeds copies of sub-agent messages with usage: never
                // counted, only tallied.
                let (field, sub) = if kind == "progress" {
                    ("data", "type")
                } else {
                    ("attachment", "type")
                };
                let sub = rec
                    .get(field)
                    .and_then(Value::as_object)
                    .and_then(|o| str_field(o, sub))
                    .unwrap_or("unknown");
                self.s.note_other(&format!("claude:{kind}/{sub}"));
                (Slot::Node(None), false)
            }
            other => {
                self.s.note_other(&format!("claude:{other}"));
                (Slot::Node(None), false)
            }
        };
        if let (Some(u), Slot::Node(message)) = (uuid, slot) {
            let parent = nonempty(str_field(rec, "parentUuid"))
                .or_else(|| nonempty(str_field(rec, "logicalParentUuid")))
                .map(String::from);
            self.node_index
                .entry(u.to_string())
                .or_insert(self.nodes.len());
            self.nodes.push(Node {
                parent,
                message,
                conversational,
                sidechain,
            });
        }
    }

    /// Fields every record kind may carry: time, cwd, version, branch, session id.
    fn note_common(&mut self, rec: &Obj) {
        if let Some(t) = rec.get("timestamp").and_then(parse_time) {
            self.s.note_time(t);
        }
        if self.s.cwd.is_none() {
            if let Some(c) = nonempty(str_field(rec, "cwd")) {
                self.s.cwd = Some(c.to_string());
            }
        }
        if self.s.agent_version.is_none() {
            if let Some(v) = nonempty(str_field(rec, "version")) {
                self.s.agent_version = Some(v.to_string());
            }
        }
        if self.s.git_branch.is_none() {
            if let Some(b) = nonempty(str_field(rec, "gitBranch")) {
                self.s.git_branch = Some(b.to_string());
            }
        }
        if let Some(id) =
            nonempty(str_field(rec, "sessionId").or_else(|| str_field(rec, "session_id")))
        {
            if id == self.stem {
                self.stem_is_session_id = true;
            }
            if self.first_session_id.is_none() {
                self.first_session_id = Some(id.to_string());
            }
            if self.first_parent_session_id.is_none() && !id.starts_with("agent-") {
                self.first_parent_session_id = Some(id.to_string());
            }
        }
    }

    /// A record repeated verbatim under the same uuid (a resumed session re-writing its last
    /// record) is one record.
    fn is_repeat(&mut self, rec: &Obj) -> bool {
        let Some(uuid) = str_field(rec, "uuid") else {
            return false;
        };
        !self
            .seen_records
            .insert((parse::hash64(uuid), value_hash(rec.get("message"))))
    }

    fn user(&mut self, line: u64, rec: &Obj, sidechain: bool) -> Slot {
        let content = rec
            .get("message")
            .and_then(Value::as_object)
            .and_then(|m| m.get("content"))
            .filter(|c| c.is_string() || c.is_array());
        let Some(content) = content else {
            self.warn(
                WarningKind::UnexpectedRecord,
                line,
                "skipped a `user` record without message content",
            );
            return Slot::Node(None);
        };
        if self.is_repeat(rec) {
            self.s.note_other("claude:repeated_record");
            return Slot::Repeat;
        }
        let uuid = str_field(rec, "uuid");
        let key = uuid.map_or_else(|| format!("line{line}"), String::from);
        let parts = self.content_parts(content, &key, 0, rec);

        let mut m = Message::new(Role::User);
        m.id = uuid.map(String::from);
        m.timestamp = rec.get("timestamp").and_then(parse_time);
        m.sidechain = sidechain;
        let compact_summary = flag(rec, "isCompactSummary");
        let tool_carrier = rec.contains_key("toolUseResult")
            || parts.iter().any(|p| matches!(p, Part::ToolResult { .. }));
        if compact_summary {
            m.subtype = Some("compact_summary".into());
            let ci = match self.open_compaction.take() {
                Some(ci) => ci,
                // A summary with no boundary before it (older builds): a trace of its own.
                None => self.start_compaction(rec, false),
            };
            m.parts = parts;
            let text = m.text();
            if !text.trim().is_empty() {
                self.s.compactions[ci].summary = Some(text);
            }
        } else if tool_carrier {
            m.role = Role::Tool;
            m.parts = parts;
            if !self.subagent {
                self.link_subagent(rec, &m.parts);
            }
        } else if flag(rec, "isMeta") {
            m.subtype = Some("meta".into());
            m.parts = parts;
        } else {
            let (subtype, human) = classify_prompt(&parts);
            m.subtype = subtype.map(String::from);
            m.is_human = human && !sidechain;
            m.parts = parts;
        }
        self.s.messages.push(m);
        Slot::Node(Some(self.s.messages.len() - 1))
    }

    /// A main session's tool result that reports `toolUseResult.agentId` spawned that agent.
    fn link_subagent(&mut self, rec: &Obj, parts: &[Part]) {
        let Some(agent) = rec
            .get("toolUseResult")
            .and_then(Value::as_object)
            .and_then(|r| nonempty(str_field(r, "agentId")))
        else {
            return;
        };
        let id = format!("agent-{agent}");
        if self.s.subagents.iter().any(|l| l.id == id) {
            return;
        }
        let tool_call_id = parts.iter().find_map(|p| match p {
            Part::ToolResult { call_id, .. } => Some(call_id.clone()),
            _ => None,
        });
        self.s.subagents.push(SubagentLink {
            id,
            tool_call_id,
            path: None,
            agent_type: None,
        });
    }

    fn assistant(&mut self, line: u64, rec: &Obj, sidechain: bool) -> Slot {
        let Some(m) = rec.get("message").and_then(Value::as_object) else {
            self.warn(
                WarningKind::UnexpectedRecord,
                line,
                "skipped an `assistant` record without a message object",
            );
            return Slot::Node(None);
        };
        if self.is_repeat(rec) {
            self.s.note_other("claude:repeated_record");
            return Slot::Repeat;
        }
        let model = nonempty(str_field(m, "model"));
        let synthetic = model == Some("<synthetic>");
        let model = model.filter(|_| !synthetic);
        let msg_id = nonempty(str_field(m, "id"));
        let req_id = nonempty(str_field(rec, "requestId"));
        let timestamp = rec.get("timestamp").and_then(parse_time);
        let usage = m.get("usage").and_then(Value::as_object).map(usage_of);
        let empty = Value::Array(Vec::new());
        let content = m.get("content").unwrap_or(&empty);
        if let Some(model) = model {
            self.s.note_model(model);
        }

        let key = msg_id.map(|id| (id.to_string(), req_id.map(String::from)));
        if let (false, Some(key)) = (synthetic, &key) {
            if let Some(idx) = self.responses.get(key).map(|r| r.message) {
                // Another streamed piece of a response already seen: same message.
                let start = self.s.messages[idx].parts.len();
                let parts = self.content_parts(content, &key.0, start, rec);
                let msg = &mut self.s.messages[idx];
                msg.parts.extend(parts);
                if msg.model.is_none() {
                    msg.model = model.map(String::from);
                }
                if msg.timestamp.is_none() {
                    msg.timestamp = timestamp;
                }
                if let Some(u) = usage {
                    self.add_usage(key, u, timestamp, model);
                }
                return Slot::Node(Some(idx));
            }
        }

        let mut msg = Message::new(Role::Assistant);
        let msg_key = msg_id
            .or_else(|| str_field(rec, "uuid"))
            .map_or_else(|| format!("line{line}"), String::from);
        msg.id = Some(msg_key.clone());
        msg.model = model.map(String::from);
        msg.timestamp = timestamp;
        msg.sidechain = sidechain;
        if synthetic {
            msg.subtype = Some("synthetic".into());
        }
        msg.parts = self.content_parts(content, &msg_key, 0, rec);
        let idx = self.s.messages.len();
        self.s.messages.push(msg);
        if synthetic {
            // Harness-made (API errors, "No response requested"): not a model, not usage.
            return Slot::Node(Some(idx));
        }
        match key {
            Some(key) => {
                let replay = sidechain && self.main_message_ids.contains(&key.0);
                if replay {
                    self.s.note_other("claude:sidechain_replay");
                }
                if !sidechain {
                    self.main_message_ids.insert(key.0.clone());
                }
                self.responses.insert(
                    key.clone(),
                    Response {
                        message: idx,
                        request: None,
                        replay,
                        sidechain,
                    },
                );
                if let Some(u) = usage {
                    self.add_usage(&key, u, timestamp, model);
                }
            }
            None => {
                if let Some(u) = usage {
                    self.s.messages[idx].usage = Some(u);
                    self.s.requests.push(Request {
                        timestamp,
                        model: model.map(String::from),
                        usage: u,
                        prompt_tokens: None,
                        message_index: Some(idx),
                        dedup_key: None,
                    });
                }
            }
        }
        Slot::Node(Some(idx))
    }

    /// Fold one usage snapshot into its response's request: per-field maximum, never a sum.
    fn add_usage(
        &mut self,
        key: &(String, Option<String>),
        u: Usage,
        timestamp: Option<chrono::DateTime<chrono::Utc>>,
        model: Option<&str>,
    ) {
        let Some(r) = self.responses.get_mut(key) else {
            return;
        };
        if r.replay {
            return;
        }
        let merged = match r.request {
            Some(q) => {
                let req = &mut self.s.requests[q];
                req.usage.max_with(&u);
                if req.model.is_none() {
                    req.model = model.map(String::from);
                }
                req.usage
            }
            None => {
                r.request = Some(self.s.requests.len());
                self.s.requests.push(Request {
                    timestamp,
                    model: model.map(String::from),
                    usage: u,
                    prompt_tokens: None,
                    message_index: Some(r.message),
                    dedup_key: Some(DedupKey {
                        message_id: key.0.clone(),
                        request_id: key.1.clone(),
                        sidechain: r.sidechain,
                    }),
                });
                u
            }
        };
        self.s.messages[r.message].usage = Some(merged);
    }

    fn system(&mut self, rec: &Obj, sidechain: bool) -> Slot {
        let subtype = str_field(rec, "subtype").unwrap_or("");
        if subtype == "compact_boundary" {
            let ci = self.start_compaction(rec, true);
            self.open_compaction = Some(ci);
            return Slot::Node(Some(self.s.messages.len() - 1));
        }
        match nonempty(str_field(rec, "content")) {
            Some(text) => {
                let mut m = Message::new(Role::System);
                m.id = str_field(rec, "uuid").map(String::from);
                m.timestamp = rec.get("timestamp").and_then(parse_time);
                m.sidechain = sidechain;
                m.subtype = Some(
                    if subtype.is_empty() {
                        "system"
                    } else {
                        subtype
                    }
                    .to_string(),
                );
                m.parts.push(Part::Text {
                    text: text.to_string(),
                });
                self.s.messages.push(m);
                Slot::Node(Some(self.s.messages.len() - 1))
            }
            None => {
                let kind = if subtype.is_empty() {
                    "claude:system".to_string()
                } else {
                    format!("claude:system/{subtype}")
                };
                self.s.note_other(&kind);
                Slot::Node(None)
            }
        }
    }

    /// Open a compaction event at this point of the message list and insert its marker
    /// message. `boundary`: the record is a `compact_boundary` (else an orphan summary).
    fn start_compaction(&mut self, rec: &Obj, boundary: bool) -> usize {
        let mut c = Compaction::new(CompactionKind::ClaudeBoundary);
        c.timestamp = rec.get("timestamp").and_then(parse_time);
        if boundary {
            let meta = rec.get("compactMetadata").and_then(Value::as_object);
            let trigger = meta
                .and_then(|m| str_field(m, "trigger"))
                .or_else(|| str_field(rec, "trigger"));
            c.trigger = match trigger {
                Some("auto") => Trigger::Auto,
                Some("manual") => Trigger::Manual,
                _ => Trigger::Unknown,
            };
            c.tokens_before = meta.and_then(|m| number(m.get("preTokens")));
            c.tokens_after = meta.and_then(|m| number(m.get("postTokens")));
            c.duration_ms = meta.and_then(|m| number(m.get("durationMs")));
            if c.tokens_before.is_some() || c.tokens_after.is_some() {
                c.tokens_provenance = Provenance::Recorded;
            }
            let mut extra = meta.cloned().unwrap_or_default();
            if let Some(l) = nonempty(str_field(rec, "logicalParentUuid")) {
                extra
                    .entry("logicalParentUuid")
                    .or_insert_with(|| Value::from(l));
            }
            if !extra.is_empty() {
                c.extra = Value::Object(extra);
            }
        }
        c.request_index = self.s.requests.len();
        let ci = self.s.compactions.len();
        let mut marker = Message::new(Role::System);
        marker.subtype = Some("compaction".into());
        marker.parts.push(Part::Compaction { index: ci });
        marker.timestamp = c.timestamp;
        marker.sidechain = flag(rec, "isSidechain");
        if boundary {
            marker.id = str_field(rec, "uuid").map(String::from);
        }
        self.s.messages.push(marker);
        c.message_index = self.s.messages.len();
        self.s.compactions.push(c);
        ci
    }

    /// `message.content` (a string or a block array) → parts. `msg_key` and `start` name
    /// synthesised tool-call ids (`<msg_key>:<part index>`) for blocks that lack one.
    fn content_parts(
        &mut self,
        content: &Value,
        msg_key: &str,
        start: usize,
        rec: &Obj,
    ) -> Vec<Part> {
        match content {
            Value::String(s) => vec![Part::Text { text: s.clone() }],
            Value::Array(blocks) => blocks
                .iter()
                .enumerate()
                .map(|(i, b)| self.block(b, msg_key, start + i, rec))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn block(&mut self, b: &Value, msg_key: &str, n: usize, rec: &Obj) -> Part {
        let o = match b {
            Value::Object(o) => o,
            Value::String(s) => return Part::Text { text: s.clone() },
            other => {
                return Part::Unknown {
                    kind: json_kind(other).into(),
                    raw: other.clone(),
                };
            }
        };
        let text = |k: &str| str_field(o, k).unwrap_or("").to_string();
        match str_field(o, "type") {
            Some("text") => Part::Text { text: text("text") },
            Some("thinking") => Part::Thinking {
                text: text("thinking"),
            },
            Some("redacted_thinking") => Part::Thinking {
                text: String::new(),
            },
            Some("tool_use") => {
                let id = nonempty(str_field(o, "id"))
                    .map_or_else(|| format!("{msg_key}:{n}"), String::from);
                self.pending_calls.push_back(id.clone());
                Part::ToolCall {
                    id,
                    name: text("name"),
                    input: o.get("input").cloned().unwrap_or(Value::Null),
                }
            }
            Some("tool_result") => self.tool_result(o, msg_key, n, rec),
            Some("image") => image_part(o),
            Some(t) => Part::Unknown {
                kind: t.to_string(),
                raw: b.clone(),
            },
            None => Part::Unknown {
                kind: "object".into(),
                raw: b.clone(),
            },
        }
    }

    fn tool_result(&mut self, o: &Obj, msg_key: &str, n: usize, rec: &Obj) -> Part {
        let call_id = match nonempty(str_field(o, "tool_use_id")) {
            Some(id) => id.to_string(),
            // No id: the oldest call still waiting for a result, else what the record says.
            None => self
                .next_pending_call()
                .or_else(|| nonempty(str_field(rec, "sourceToolUseID")).map(String::from))
                .unwrap_or_else(|| format!("{msg_key}:{n}")),
        };
        self.answered_calls.insert(call_id.clone());
        let items: &[Value] = match o.get("content") {
            Some(Value::Array(items)) => items,
            Some(v @ (Value::String(_) | Value::Object(_))) => std::slice::from_ref(v),
            _ => &[],
        };
        let mut texts: Vec<&str> = Vec::new();
        let mut attachments = Vec::new();
        for v in items {
            match v {
                Value::String(s) => texts.push(s),
                Value::Object(b) if str_field(b, "type") == Some("text") => {
                    texts.push(str_field(b, "text").unwrap_or(""));
                }
                other => attachments.push(attachment_part(other)),
            }
        }
        Part::ToolResult {
            call_id,
            output: texts.join("\n"),
            is_error: o.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            attachments,
        }
    }

    fn next_pending_call(&mut self) -> Option<String> {
        while let Some(id) = self.pending_calls.pop_front() {
            if !self.answered_calls.contains(&id) {
                return Some(id);
            }
        }
        None
    }

    /// Flag messages that sit on abandoned branches of the uuid/parentUuid graph.
    ///
    /// The current branch ends at the last conversational main-chain record in file order (the
    /// file is append-only), or, when a `last-prompt` record names a leaf, at the latest such
    /// record in that leaf's subtree. A message off that branch is superseded when it hangs
    /// below a fork on the branch and its side of the fork holds a real turn (a prompt or an
    /// assistant reply): a rewind or an abandoned retry. Side branches made only of tool results
    /// are parallel tool calls, which stay live. Records in components that never touch the
    /// branch (inline sidechains, files without parent links) are left alone.
    fn mark_superseded(&mut self) {
        let n = self.nodes.len();
        if n == 0 {
            return;
        }
        let parent: Vec<Option<usize>> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                node.parent
                    .as_ref()
                    .and_then(|p| self.node_index.get(p))
                    .copied()
                    .filter(|&p| p != i)
            })
            .collect();
        let mut children = vec![Vec::new(); n];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(i);
            }
        }
        let candidate = |i: usize| {
            self.nodes[i].conversational
                && !self.nodes[i].sidechain
                && self.nodes[i].message.is_some()
        };
        let hinted = self
            .last_prompt_leaf
            .as_ref()
            .and_then(|l| self.node_index.get(l))
            .copied();
        let tip = match hinted {
            Some(leaf) => {
                let mut seen = vec![false; n];
                let mut stack = vec![leaf];
                let mut best = None;
                while let Some(i) = stack.pop() {
                    if std::mem::replace(&mut seen[i], true) {
                        continue;
                    }
                    if candidate(i) && best.is_none_or(|b| i > b) {
                        best = Some(i);
                    }
                    stack.extend(children[i].iter().copied());
                }
                Some(best.unwrap_or(leaf))
            }
            None => (0..n).rev().find(|&i| candidate(i)),
        };
        let Some(tip) = tip else {
            return;
        };
        let mut on_branch = vec![false; n];
        let mut cur = Some(tip);
        while let Some(c) = cur {
            if std::mem::replace(&mut on_branch[c], true) {
                break;
            }
            cur = parent[c];
        }

        // For each off-branch node: the root of its side branch (the child of the fork on the
        // current branch), or None when its chain never reaches the branch.
        let mut side_root: Vec<Option<Option<usize>>> = vec![None; n];
        let mut in_path = vec![false; n];
        for i in 0..n {
            if on_branch[i] || side_root[i].is_some() {
                continue;
            }
            let mut path = Vec::new();
            let mut cur = i;
            let result = loop {
                if on_branch[cur] {
                    break path.last().copied();
                }
                if let Some(r) = side_root[cur] {
                    break r;
                }
                if in_path[cur] {
                    break None; // a cycle
                }
                in_path[cur] = true;
                path.push(cur);
                match parent[cur] {
                    Some(p) => cur = p,
                    None => break None,
                }
            };
            for &p in &path {
                side_root[p] = Some(result);
                in_path[p] = false;
            }
        }

        let mut abandoned: HashMap<usize, bool> = HashMap::new();
        let mut live = vec![false; self.s.messages.len()];
        let mut dropped = vec![false; self.s.messages.len()];
        for i in 0..n {
            let node = &self.nodes[i];
            let Some(m) = node.message else { continue };
            if node.sidechain {
                continue;
            }
            if on_branch[i] {
                live[m] = true;
                continue;
            }
            let Some(Some(root)) = side_root[i] else {
                continue;
            };
            let is_abandoned = *abandoned.entry(root).or_insert_with(|| {
                let mut stack = vec![root];
                let mut seen = HashSet::new();
                while let Some(j) = stack.pop() {
                    if !seen.insert(j) {
                        continue;
                    }
                    if let Some(mj) = self.nodes[j].message {
                        if matches!(self.s.messages[mj].role, Role::User | Role::Assistant) {
                            return true;
                        }
                    }
                    stack.extend(children[j].iter().copied());
                }
                false
            });
            if is_abandoned {
                dropped[m] = true;
            }
        }
        for (m, msg) in self.s.messages.iter_mut().enumerate() {
            if dropped[m] && !live[m] && msg.subtype.as_deref() != Some("compaction") {
                msg.superseded = true;
            }
        }
    }

    fn finish(mut self, line_warnings: Vec<Warning>) -> Session {
        self.mark_superseded();
        for r in &mut self.s.requests {
            r.prompt_tokens = Some(r.usage.prompt());
        }
        if let Some(t) = self.custom_title.take().or_else(|| self.ai_title.take()) {
            self.s.title = Some(t);
            self.s.title_is_explicit = true;
        }
        if self.subagent {
            self.s.kind = SessionKind::Subagent;
            self.s.id = self.stem.clone();
            self.s.parent_id = self
                .parent_hint
                .take()
                .or(self.first_parent_session_id.take());
        } else if !self.stem_is_session_id {
            // A resumed session's file starts with records copied under the old id; the file
            // name, when it is one of the recorded ids, is the session that owns the file.
            if let Some(id) = self.first_session_id.take() {
                self.s.id = id;
            }
        }
        let mut warnings = line_warnings;
        warnings.append(&mut self.warnings);
        warnings.sort_by_key(|w| w.line.unwrap_or(u64::MAX));
        self.s.warnings = warnings;
        self.s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Write `lines` as `<name>` in a fresh directory and parse it with `role`.
    fn parse_lines(name: &str, role: FileRole, lines: &[Value]) -> Session {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        parse(&SourceFile::new(Agent::Claude, path, role)).unwrap()
    }

    fn main(lines: &[Value]) -> Session {
        parse_lines("s1.jsonl", FileRole::ClaudeMain, lines)
    }

    fn user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
        json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
               "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": content}})
    }

    fn asst(
        uuid: &str,
        parent: Option<&str>,
        id: &str,
        req: Option<&str>,
        content: Value,
        usage: Value,
    ) -> Value {
        let mut v = json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
            "message": {"id": id, "model": "claude-x", "role": "assistant", "content": content, "usage": usage}});
        if let Some(r) = req {
            v["requestId"] = json!(r);
        }
        v
    }

    fn text(t: &str) -> Value {
        json!([{"type": "text", "text": t}])
    }

    fn out(n: u64) -> Value {
        json!({"input_tokens": 10, "output_tokens": n, "cache_read_input_tokens": 100})
    }

    #[test]
    fn split_pieces_merge_by_max_even_when_not_adjacent() {
        let s = main(&[
            user("u1", None, json!("go")),
            asst("a1", Some("u1"), "m1", Some("r1"), text("one"), out(3)),
            asst("b1", Some("a1"), "m2", Some("r2"), text("other"), out(7)),
            json!({"type": "progress", "uuid": "p1", "parentUuid": "a1", "data": {"type": "hook_progress"}}),
            asst(
                "a2",
                Some("a1"),
                "m1",
                Some("r1"),
                json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
                out(250),
            ),
            asst("a3", Some("a2"), "m1", Some("r1"), text("three"), out(25)),
        ]);
        assert_eq!(s.messages.len(), 3);
        assert_eq!(s.requests.len(), 2);
        let m1 = &s.messages[1];
        assert_eq!(m1.parts.len(), 3);
        assert!(matches!(&m1.parts[1], Part::ToolCall { id, .. } if id == "t1"));
        assert_eq!(s.requests[0].usage.output, 250); // max, not 3 + 250 + 25
        assert_eq!(s.requests[0].usage.input, 10); // never summed across pieces
        assert_eq!(s.requests[0].message_index, Some(1));
        assert_eq!(s.requests[0].prompt_tokens, Some(110));
        assert_eq!(m1.usage, Some(s.requests[0].usage));
        assert_eq!(s.usage().output, 257);
    }

    #[test]
    fn dedup_key_falls_back_to_message_id_and_keyless_records_still_count() {
        let s = main(&[
            asst("a1", None, "m1", None, text("x"), out(1)),
            asst("a2", Some("a1"), "m1", None, text("y"), out(5)),
            json!({"type": "assistant", "uuid": "a3", "message": {"role": "assistant", "content": "z",
                   "usage": {"input_tokens": 2, "output_tokens": 2}}}),
        ]);
        assert_eq!(s.requests.len(), 2);
        let k = s.requests[0].dedup_key.as_ref().unwrap();
        assert_eq!(
            (k.message_id.as_str(), k.request_id.as_deref(), k.sidechain),
            ("m1", None, false)
        );
        assert_eq!(s.requests[0].usage.output, 5);
        assert_eq!(s.requests[1].dedup_key, None);
        assert_eq!(s.messages[1].id.as_deref(), Some("a3")); // no message.id: the record uuid
        assert!(matches!(&s.messages[1].parts[..], [Part::Text { text }] if text == "z"));
    }

    #[test]
    fn usage_fields_follow_the_claude_rules() {
        let u = |v: Value| usage_of(v.as_object().unwrap());
        // cache_creation 5m + 1h wins over cache_creation_input_tokens.
        let a = u(
            json!({"input_tokens": 3, "cache_creation_input_tokens": 999,
            "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 20},
            "cache_read_input_tokens": 7, "output_tokens": 50,
            "output_tokens_details": {"thinking_tokens": 30}}),
        );
        assert_eq!(
            a,
            Usage {
                input: 3,
                output: 50,
                cache_read: 7,
                cache_write: 120,
                reasoning: 30,
                cache_write_1h: 20,
            }
        );
        assert_eq!(a.total(), 3 + 7 + 120 + 50); // thinking is inside output
        // Without the breakdown, the flat field; nulls, strings and negatives are 0.
        let b = u(
            json!({"input_tokens": null, "cache_creation_input_tokens": 40,
            "cache_creation": {}, "cache_read_input_tokens": "[trimmed]", "output_tokens": -4}),
        );
        assert_eq!(
            b,
            Usage {
                cache_write: 40,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn synthetic_messages_are_kept_without_model_or_usage() {
        let mut syn = asst("a1", None, "syn1", None, text("API Error: 529"), out(0));
        syn["message"]["model"] = json!("<synthetic>");
        syn["isApiErrorMessage"] = json!(true);
        let s = main(&[
            syn,
            asst("a2", Some("a1"), "m2", Some("r2"), text("ok"), out(4)),
        ]);
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.messages[0].subtype.as_deref(), Some("synthetic"));
        assert_eq!(
            (s.messages[0].model.as_deref(), s.messages[0].usage),
            (None, None)
        );
        assert_eq!(s.requests.len(), 1);
        assert_eq!(s.models, vec!["claude-x".to_string()]);
        assert_eq!(s.counts().assistant_messages, 2);
    }

    #[test]
    fn only_typed_prompts_are_human() {
        let mut meta = user("u2", None, json!("<skill body>"));
        meta["isMeta"] = json!(true);
        let mut side = user("u3", None, json!("sub-agent prompt"));
        side["isSidechain"] = json!(true);
        let image = json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]);
        let s = main(&[
            user("u1", None, json!("fix the bug")),
            meta,
            side,
            user(
                "u4",
                None,
                json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
            ),
            user(
                "u5",
                None,
                json!("<local-command-stdout>done</local-command-stdout>"),
            ),
            user("u6", None, json!("<command-name>/compact</command-name>")),
            user("u7", None, text("[Request interrupted by user]")),
            user(
                "u8",
                None,
                json!([{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                    {"type": "text", "text": "and the real question"}]),
            ),
            user(
                "u9",
                None,
                json!([{"type": "text", "text": "<system-reminder>only</system-reminder>"}]),
            ),
            user("u10", None, image),
            user("u11", None, json!("   ")),
        ]);
        let human: Vec<_> = s
            .messages
            .iter()
            .filter(|m| m.is_human)
            .map(|m| m.id.clone().unwrap())
            .collect();
        assert_eq!(human, ["u1", "u6", "u8", "u10"]);
        assert_eq!(s.messages[3].role, Role::Tool);
        assert_eq!(s.messages[1].subtype.as_deref(), Some("meta"));
        assert!(s.messages[2].sidechain);
        let subs: Vec<_> = s.messages.iter().map(|m| m.subtype.as_deref()).collect();
        assert_eq!(
            subs[4..],
            [
                Some("local_command_output"),
                Some("command"),
                Some("interrupted"),
                None,
                Some("system_reminder"),
                None,
                Some("empty")
            ]
        );
        assert!(matches!(
            &s.messages[9].parts[0],
            Part::Image { bytes: Some(3), .. }
        ));
        assert_eq!(s.counts().user_turns, 4);
    }

    #[test]
    fn tool_results_of_every_shape() {
        let mut r1 = user(
            "u2",
            Some("a1"),
            json!([
            {"type": "tool_result", "content": [{"type": "text", "text": "line1"}, "line2",
                {"type": "image", "source": {"type": "url", "url": "https://x"}}, {"type": "tool_reference", "n": 1}]}]),
        );
        r1["toolUseResult"] = json!([1, 2]);
        let mut r2 = user(
            "u3",
            Some("u2"),
            json!([{"type": "tool_result", "content": "boom", "is_error": true}]),
        );
        r2["toolUseResult"] = json!("Error: boom");
        let mut r3 = user("u4", Some("u3"), json!(["bare string"]));
        r3["toolUseResult"] = json!({"stdout": ""});
        let s = main(&[
            asst(
                "a1",
                None,
                "m1",
                Some("r1"),
                json!([
                {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}},
                {"type": "tool_use", "id": "t2", "name": "Read"}]),
                out(1),
            ),
            r1,
            r2,
            r3,
        ]);
        // The first call had no id: `<message id>:<part index>`.
        assert!(
            matches!(&s.messages[0].parts[0], Part::ToolCall { id, input, .. } if id == "m1:0" && input["command"] == "ls")
        );
        assert!(matches!(
            &s.messages[0].parts[1],
            Part::ToolCall {
                input: Value::Null,
                ..
            }
        ));
        match &s.messages[1].parts[0] {
            Part::ToolResult {
                call_id,
                output,
                is_error,
                attachments,
            } => {
                assert_eq!(call_id, "m1:0"); // no tool_use_id: the oldest unanswered call
                assert_eq!(output, "line1\nline2");
                assert!(!is_error);
                assert!(
                    matches!(&attachments[..], [Part::Image { bytes: None, .. }, Part::Unknown { kind, .. }] if kind == "tool_reference")
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&s.messages[2].parts[0], Part::ToolResult { call_id, is_error: true, .. } if call_id == "t2")
        );
        // A record with toolUseResult is a tool carrier even without a tool_result block.
        assert_eq!(s.messages[3].role, Role::Tool);
        assert_eq!(s.counts().tool_calls, 2);
        assert_eq!(s.counts().tool_errors, 1);
    }

    fn boundary(uuid: &str, logical: &str, meta: Value) -> Value {
        json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
               "logicalParentUuid": logical, "timestamp": "2026-03-01T11:00:00Z",
               "content": "Conversation compacted", "compactMetadata": meta})
    }

    #[test]
    fn boundary_and_summary_are_one_compaction() {
        let mut summary = user(
            "u2",
            Some("b1"),
            json!("This session is being continued… Summary: X"),
        );
        summary["isCompactSummary"] = json!(true);
        let s = main(&[
            user("u1", None, json!("mentions compact_boundary in text")),
            asst("a1", Some("u1"), "m1", Some("r1"), text("a"), out(1)),
            boundary(
                "b1",
                "a1",
                json!({"trigger": "auto", "preTokens": 155000, "durationMs": 900}),
            ),
            summary,
            user("u3", Some("u2"), json!("next")),
        ]);
        assert_eq!(s.compactions.len(), 1);
        let c = &s.compactions[0];
        assert_eq!(
            (c.trigger, c.tokens_before, c.tokens_after, c.duration_ms),
            (Trigger::Auto, Some(155_000), None, Some(900))
        );
        assert_eq!(c.tokens_provenance, Provenance::Recorded);
        assert_eq!((c.request_index, c.message_index), (1, 3));
        assert_eq!(
            c.summary.as_deref(),
            Some("This session is being continued… Summary: X")
        );
        assert_eq!(c.extra["logicalParentUuid"], "a1");
        assert_eq!(c.extra["preTokens"], 155000);
        assert!(matches!(
            &s.messages[2].parts[..],
            [Part::Compaction { index: 0 }]
        ));
        assert_eq!(s.messages[3].subtype.as_deref(), Some("compact_summary"));
        assert_eq!(s.counts().user_turns, 2); // u1 and u3, not the summary
        // The boundary links through logicalParentUuid: nothing before it is superseded.
        assert!(s.messages.iter().all(|m| !m.superseded));
    }

    #[test]
    fn a_summary_without_boundary_is_its_own_compaction() {
        let mut summary = user(
            "u1",
            None,
            json!("This session is being continued from a previous conversation"),
        );
        summary["isCompactSummary"] = json!(true);
        let s = main(&[summary, user("u2", Some("u1"), json!("hi"))]);
        assert_eq!(s.compactions.len(), 1);
        let c = &s.compactions[0];
        assert_eq!(
            (c.trigger, c.tokens_before, c.tokens_provenance),
            (Trigger::Unknown, None, Provenance::Unknown)
        );
        assert!(c.summary.is_some());
        assert_eq!(s.messages[0].subtype.as_deref(), Some("compaction"));
        assert_eq!(c.message_index, 1);
    }

    #[test]
    fn rewinds_are_superseded_but_parallel_tool_results_are_not() {
        let tu = |id: &str| json!([{"type": "tool_use", "id": id, "name": "Write", "input": {}}]);
        let tr = |id: &str| json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]);
        let s = main(&[
            user("u1", None, json!("write two files")),
            // A hook attachment between the prompt and the reply: its uuid keeps the chain.
            json!({"type": "attachment", "uuid": "h1", "parentUuid": "u1", "attachment": {"type": "hook_success"}}),
            asst("a1", Some("h1"), "m1", Some("r1"), tu("t1"), out(1)),
            asst("a2", Some("a1"), "m1", Some("r1"), tu("t2"), out(9)),
            user("r1", Some("a1"), tr("t1")), // sibling of a2: a parallel result
            user("r2", Some("a2"), tr("t2")),
            asst(
                "a3",
                Some("r2"),
                "m2",
                Some("r2"),
                text("both written"),
                out(2),
            ),
            user("p1", Some("a3"), json!("now delete them")),
            asst("a4", Some("p1"), "m3", Some("r3"), text("deleted"), out(2)),
            user("p2", Some("a3"), json!("no, rename them")), // rewind to a3
            asst("a5", Some("p2"), "m4", Some("r4"), text("renamed"), out(2)),
        ]);
        let sup: Vec<_> = s
            .messages
            .iter()
            .filter(|m| m.superseded)
            .map(|m| m.id.clone().unwrap())
            .collect();
        assert_eq!(sup, ["p1", "m3"]);
        assert_eq!(s.usage().output, 9 + 2 + 2 + 2); // superseded turns were still paid for
    }

    #[test]
    fn last_prompt_leaf_picks_the_branch() {
        let s = main(&[
            user("u1", None, json!("q")),
            asst("a1", Some("u1"), "m1", Some("r1"), text("x"), out(1)),
            user("b1", Some("a1"), json!("branch one")),
            user("b2", Some("a1"), json!("branch two")),
            json!({"type": "last-prompt", "lastPrompt": "branch one", "leafUuid": "b1"}),
        ]);
        let sup: Vec<_> = s
            .messages
            .iter()
            .filter(|m| m.superseded)
            .map(|m| m.id.clone().unwrap())
            .collect();
        assert_eq!(sup, ["b2"]);
        // Without the hint, the latest record wins.
        let s = main(&[
            user("u1", None, json!("q")),
            asst("a1", Some("u1"), "m1", Some("r1"), text("x"), out(1)),
            user("b1", Some("a1"), json!("branch one")),
            user("b2", Some("a1"), json!("branch two")),
        ]);
        assert_eq!(s.messages.iter().filter(|m| m.superseded).count(), 1);
        assert!(s.messages[2].superseded);
    }

    #[test]
    fn odd_graphs_terminate() {
        // Self-parents, two-node cycles, dangling parents, duplicate placeholder uuids.
        let s = main(&[
            user("x", Some("x"), json!("a")),
            user("p", Some("q"), json!("b")),
            user("q", Some("p"), json!("c")),
            user("d", Some("missing"), json!("d")),
            user("x", Some("p"), json!("e")),
        ]);
        assert_eq!(s.messages.len(), 5);
        assert!(s.messages.iter().all(|m| !m.superseded));
    }

    #[test]
    fn inline_sidechain_replay_is_not_counted_twice() {
        let mut replay = asst("s2", Some("s1"), "m1", Some("r-side"), text("copy"), out(7));
        replay["isSidechain"] = json!(true);
        let mut own = asst("s3", Some("s2"), "m9", Some("r9"), text("own"), out(4));
        own["isSidechain"] = json!(true);
        let mut prompt = user("s1", None, json!("task"));
        prompt["isSidechain"] = json!(true);
        let s = main(&[
            asst("a1", None, "m1", Some("r1"), text("orig"), out(7)),
            prompt,
            replay,
            own,
        ]);
        assert_eq!(s.requests.len(), 2);
        assert_eq!(s.usage().output, 11);
        assert!(s.requests[1].dedup_key.as_ref().unwrap().sidechain);
        assert_eq!(s.messages.len(), 4); // the copy is still part of the sidechain transcript
        assert!(
            s.other_records
                .contains(&("claude:sidechain_replay".to_string(), 1))
        );
    }

    #[test]
    fn verbatim_repeats_are_skipped_but_reused_uuids_are_not() {
        let r = user("u1", None, json!("hello"));
        let mut resumed = r.clone();
        resumed["sessionId"] = json!("s2");
        resumed["timestamp"] = json!("2026-03-02T00:00:00Z");
        let s = main(&[
            r,
            resumed,
            user("u1", None, json!("different text, same placeholder uuid")),
        ]);
        assert_eq!(s.messages.len(), 2);
        assert!(
            s.other_records
                .contains(&("claude:repeated_record".to_string(), 1))
        );
        // Time still widens with the repeat.
        assert_eq!(
            s.updated_at.unwrap().to_rfc3339(),
            "2026-03-02T00:00:00+00:00"
        );
    }

    #[test]
    fn ids_titles_and_metadata() {
        let rec = |sid: &str| {
            json!({"type": "user", "uuid": "u", "sessionId": sid, "cwd": "/home/dev/webapp",
            "version": "2.1.3", "gitBranch": "", "message": {"content": "hi"}})
        };
        // Main: the file stem when it is a recorded session id, else the first id.
        let s = parse_lines("new.jsonl", FileRole::ClaudeMain, &[rec("old"), rec("new")]);
        assert_eq!(s.id, "new");
        let s = parse_lines("x.jsonl", FileRole::ClaudeMain, &[rec("old"), rec("new")]);
        assert_eq!(s.id, "old");
        assert_eq!(
            (
                s.cwd.as_deref(),
                s.agent_version.as_deref(),
                s.git_branch.as_deref()
            ),
            (Some("/home/dev/webapp"), Some("2.1.3"), None)
        );
        // Sub-agent: the stem; the parent from the layout, else a non-agent sessionId.
        let role = |p: Option<&str>| FileRole::ClaudeSubagent {
            parent_session: p.map(String::from),
            meta: None,
        };
        let s = parse_lines(
            "agent-abc.jsonl",
            role(None),
            &[rec("agent-abc"), rec("parent-1")],
        );
        assert_eq!(
            (s.id.as_str(), s.kind, s.parent_id.as_deref()),
            ("agent-abc", SessionKind::Subagent, Some("parent-1"))
        );
        let s = parse_lines("agent-abc.jsonl", role(Some("folder")), &[rec("parent-1")]);
        assert_eq!(s.parent_id.as_deref(), Some("folder"));
        // A file named on the command line.
        let s = parse_lines("agent-q.jsonl", FileRole::Unknown, &[rec("p")]);
        assert_eq!(s.kind, SessionKind::Subagent);
        // Titles: custom beats ai; the last of each wins. Summaries title other files.
        let s = main(&[
            json!({"type": "ai-title", "aiTitle": "ai 1"}),
            json!({"type": "ai-title", "aiTitle": "ai 2"}),
            json!({"type": "summary", "summary": "leaf title", "leafUuid": "L"}),
        ]);
        assert_eq!(
            (s.title.as_deref(), s.title_is_explicit),
            (Some("ai 2"), true)
        );
        assert_eq!(
            s.leaf_titles,
            vec![("L".to_string(), "leaf title".to_string())]
        );
        let s = main(&[
            json!({"type": "custom-title", "customTitle": "mine"}),
            json!({"type": "ai-title", "aiTitle": "ai"}),
            json!({"type": "custom-title", "customTitle": "mine 2"}),
        ]);
        assert_eq!(s.title.as_deref(), Some("mine 2"));
        assert_eq!(main(&[]).title, None);
    }

    #[test]
    fn timestamps_may_be_missing_placeholder_or_out_of_order() {
        let t = |ts: Value| json!({"type": "system", "subtype": "turn_duration", "timestamp": ts});
        let s = main(&[
            t(json!("2026-05-02T00:00:00Z")),
            t(json!("[trimmed for fixture]")),
            t(json!("2026-05-01T00:00:00.5Z")),
            json!({"type": "system", "subtype": "turn_duration"}),
        ]);
        assert_eq!(
            s.started_at.unwrap().to_rfc3339(),
            "2026-05-01T00:00:00.500+00:00"
        );
        assert_eq!(
            s.updated_at.unwrap().to_rfc3339(),
            "2026-05-02T00:00:00+00:00"
        );
        assert_eq!(
            s.other_records,
            vec![("claude:system/turn_duration".to_string(), 4)]
        );
    }

    #[test]
    fn metadata_and_junk_are_tallied_or_warned_never_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"progress\",\"uuid\":\"p\",\"data\":{\"type\":\"agent_progress\",\"message\":{\"message\":{\"id\":\"x\",\"usage\":{\"output_tokens\":9}}}}}\n\
             {\"type\":\"queue-operation\",\"operation\":\"enqueue\"}\n\
             {\"type\":\"attachment\",\"attachment\":{\"type\":\"todo_reminder\"}}\n\
             {\"type\":\"system\",\"subtype\":\"local_command\",\"content\":\"<local-command-stdout>ok</local-command-stdout>\"}\n\
             not json\n\
             {\"type\":\"user\",\"message\":\"oops\"}\n\
             {\"type\":\"assistant\",\"message\":[1]}\n\
             {\"no\":\"type\"}\n\
             {\"type\":\"user\",\"message\":{\"content\":\"cut",
        )
        .unwrap();
        let s = parse(&SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain)).unwrap();
        assert!(s.requests.is_empty());
        assert_eq!(s.messages.len(), 1);
        assert_eq!(s.messages[0].role, Role::System);
        assert_eq!(s.messages[0].subtype.as_deref(), Some("local_command"));
        let kinds: Vec<_> = s
            .warnings
            .iter()
            .map(|w| (w.kind, w.line.unwrap()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (WarningKind::MalformedLine, 5),
                (WarningKind::UnexpectedRecord, 6),
                (WarningKind::UnexpectedRecord, 7),
                (WarningKind::UnexpectedRecord, 8),
                (WarningKind::TruncatedLastLine, 9),
            ]
        );
        let tallies: Vec<_> = s
            .other_records
            .iter()
            .map(|(k, n)| (k.as_str(), *n))
            .collect();
        assert_eq!(
            tallies,
            vec![
                ("claude:progress/agent_progress", 1),
                ("claude:queue-operation", 1),
                ("claude:attachment/todo_reminder", 1)
            ]
        );
    }

    #[test]
    fn subagent_links_come_from_tool_use_result_agent_id() {
        let mut r = user(
            "u2",
            Some("a1"),
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "done"}]),
        );
        r["toolUseResult"] = json!({"status": "completed", "agentId": "abc123"});
        let mut again = r.clone();
        again["uuid"] = json!("u3");
        let lines = [
            asst(
                "a1",
                None,
                "m1",
                Some("r1"),
                json!([{"type": "tool_use", "id": "t1", "name": "Task"}]),
                out(1),
            ),
            r,
            again,
        ];
        let s = main(&lines);
        assert_eq!(
            s.subagents,
            vec![SubagentLink {
                id: "agent-abc123".into(),
                tool_call_id: Some("t1".into()),
                path: None,
                agent_type: None
            }]
        );
        // Sub-agent files do not link (their results are nested agents' business).
        let role = FileRole::ClaudeSubagent {
            parent_session: None,
            meta: None,
        };
        assert!(
            parse_lines("agent-z.jsonl", role, &lines)
                .subagents
                .is_empty()
        );
    }

    #[test]
    fn unreadable_files_are_errors() {
        let file = SourceFile::new(
            Agent::Claude,
            "/nonexistent/x.jsonl".into(),
            FileRole::ClaudeMain,
        );
        let w = parse(&file).unwrap_err();
        assert_eq!(w.kind, WarningKind::Unreadable);
    }
}
