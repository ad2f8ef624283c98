//! Claude Code transcripts (formats.md §1): `projects/<encoded>/<session>.jsonl`, root
//! `agent-<id>.jsonl` sub-agent files (2.0.28+) and `<session>/subagents/**/agent-<id>.jsonl`
//! (2.1.x).
//!
//! One streaming pass turns records (`records::Rec`, typed and borrowed from the line) into
//! messages, requests and compactions:
//! - `user` records become human prompts, tool-result carriers (role Tool), meta injections or
//!   compaction summaries;
//! - `assistant` records are merged per (`message.id`, `requestId`) into one message, even when
//!   the streamed pieces are not adjacent, with the per-field maximum of their usage snapshots;
//! - `system/compact_boundary` (+ the next `isCompactSummary` record) becomes one compaction;
//! - `progress/agent_progress` records copy a running sub-agent's records into the parent's
//!   file: of those only the responses' ids and usage are read, into copied requests
//!   ([`Session::copied_requests`]) that count where the sub-agent's own file does not;
//! - everything else is metadata: titles, leaf titles, the branch hint, or a tally.
//!
//! A record written again verbatim under its uuid (a resumed session re-writing its last
//! record) is one record: records are identified by uuid plus a fingerprint of what the parser
//! reads from them (message id, request id, block kinds, tool ids, text), never by hashing
//! their serialized bodies.
//!
//! At the end the uuid/parentUuid graph (metadata records included, so nothing becomes a false
//! root) picks the current branch and flags messages on abandoned rewind branches.
//!
//! A file none of whose records is a Claude Code record is not a Claude session (other agents'
//! JSONL shares field names with it): it is refused with a warning rather than listed empty.

mod compaction;
mod content;
mod graph;
mod prompt;
mod records;
mod titles;

use std::collections::VecDeque;
use std::hash::{BuildHasher, Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::diag::{Warning, WarningKind};
use crate::model::{
    Agent, DedupKey, Message, ModelNames, Part, Request, Role, Session, SessionKind, SubagentLink,
    Usage,
};
use crate::parse::{self, FileRole, Records, SourceFile, hash64};

use graph::{Graph, Node};
use prompt::{classify_prompt, split_carrier};
use records::{Block, Content, Msg, RawUsage, Rec};

pub use titles::leaf_titles;

struct Lines;

impl Records for Lines {
    // Read into its box in place (`boxed_record!`), as Codex's records are: a large record is
    // not copied on its way from serde to the parser.
    type Rec<'a> = Box<Rec<'a>>;
}

/// Parse one Claude Code transcript. `Err` when the file cannot be opened, or holds records
/// but none of Claude Code's.
pub fn parse(file: &SourceFile) -> Result<Session, Warning> {
    let reader = parse::open(&file.path).map_err(|e| parse::unreadable(&file.path, &e))?;
    let mut parser = Parser::new(file);
    let mut line_warnings = Vec::new();
    parse::for_each_record::<Lines>(&file.path, reader, &mut line_warnings, |line, rec, _| {
        parser.record(line, *rec)
    });
    if parser.records > 0 && parser.claude_records == 0 {
        return Err(Warning::new(
            WarningKind::UnexpectedRecord,
            &file.path,
            None,
            "not a Claude/Codex/Gemini session: no Claude Code record in this file (another agent's transcript?); skipped",
        ));
    }
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

/// `message.usage` in unified terms (formats.md §1.5): `input_tokens` excludes the cache,
/// the `cache_creation` 5m + 1h sum is preferred over `cache_creation_input_tokens` (and its 1h
/// part is kept apart for pricing), and `thinking_tokens` is a subset of `output_tokens`.
fn usage_of(u: &RawUsage) -> Usage {
    let (cache_write, cache_write_1h) = match u.cache_creation.get() {
        Some(cc)
            if cc.ephemeral_5m_input_tokens.present() || cc.ephemeral_1h_input_tokens.present() =>
        {
            let get = |f: &parse::json::Field<parse::json::Num>| f.get().map_or(0, |n| n.get());
            let h1 = get(&cc.ephemeral_1h_input_tokens);
            (get(&cc.ephemeral_5m_input_tokens).saturating_add(h1), h1)
        }
        _ => (u.cache_creation_input_tokens.get(), 0),
    };
    Usage {
        input: u.input_tokens.get(),
        output: u.output_tokens.get(),
        cache_read: u.cache_read_input_tokens.get(),
        cache_write,
        reasoning: u
            .output_tokens_details
            .get()
            .map_or(0, |d| d.thinking_tokens.get()),
        cache_write_1h,
    }
}

/// What identifies a record's content for repeat detection, from the fields both views read.
fn fingerprint(rec: &Rec, msg: &Msg, content: &Content) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    rec.kind.get().hash(&mut h);
    rec.request_id.get().hash(&mut h);
    msg.id.get().hash(&mut h);
    msg.model.get().hash(&mut h);
    if let Some(u) = msg.usage.get() {
        let u = usage_of(u);
        (u.input, u.output, u.cache_read, u.cache_write, u.reasoning).hash(&mut h);
    }
    match content {
        Content::Absent | Content::Other => 0u8.hash(&mut h),
        Content::Text(t) => {
            1u8.hash(&mut h);
            t.hash(&mut h);
        }
        Content::Blocks(blocks) => {
            2u8.hash(&mut h);
            blocks.len().hash(&mut h);
            for b in blocks {
                match b {
                    Block::Text(t) => t.hash(&mut h),
                    Block::Obj(o) => {
                        o.kind.hash(&mut h);
                        o.text.hash(&mut h);
                        o.id.hash(&mut h);
                        o.tool_use_id.hash(&mut h);
                        o.is_error.hash(&mut h);
                    }
                    Block::Other(kind, _) => kind.hash(&mut h),
                }
            }
        }
    }
    h.finish()
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

/// What a record handler made of a record, for the graph.
enum Slot {
    /// A repeated copy of a record already seen: no new node.
    Repeat,
    /// A node, holding (part of) this message if any.
    Node(Option<usize>),
    /// A tool-result carrier node that also holds a user message (text typed beside the
    /// results): the tool message and the user message.
    Carrier(usize, usize),
}

/// A response's `message.id` and `requestId`, shared with its request's [`DedupKey`].
type ResponseKey = (Arc<str>, Option<Arc<str>>);

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
    responses: FxHashMap<ResponseKey, Response>,
    models: ModelNames,
    /// `agent_progress` copies: the index of each copied response in `copied_requests`.
    copies: FxHashMap<ResponseKey, usize>,
    main_message_ids: FxHashSet<Arc<str>>,
    seen_records: FxHashSet<(u64, u64)>,
    graph: Graph,
    pending_calls: VecDeque<String>,
    /// Hashes of the call ids results answered ([`hash64`], as the graph's uuids).
    answered_calls: FxHashSet<u64>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    /// The leaf the last `last-prompt` record names, and how many graph nodes preceded it.
    last_prompt_leaf: Option<(u64, usize)>,
    /// The text of the last `queue-operation` enqueue, while nothing else took it off the queue.
    queued: Option<(String, Option<chrono::DateTime<chrono::Utc>>)>,
    open_compaction: Option<usize>,
    /// Object lines read, and how many of them were Claude Code records.
    records: u64,
    claude_records: u64,
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
            responses: FxHashMap::default(),
            models: ModelNames::default(),
            copies: FxHashMap::default(),
            main_message_ids: FxHashSet::default(),
            seen_records: FxHashSet::default(),
            graph: Graph::default(),
            pending_calls: VecDeque::new(),
            answered_calls: FxHashSet::default(),
            custom_title: None,
            ai_title: None,
            last_prompt_leaf: None,
            queued: None,
            open_compaction: None,
            records: 0,
            claude_records: 0,
        }
    }

    fn warn(&mut self, kind: WarningKind, line: u64, msg: impl Into<String>) {
        self.warnings
            .push(Warning::new(kind, &self.file.path, Some(line), msg));
    }

    fn record(&mut self, line: u64, mut rec: Rec) {
        self.records += 1;
        let uuid = rec.uuid.get().map(hash64);
        if let Some(u) = uuid {
            self.s.record_uuids.push(u);
        }
        let Some(kind) = rec.kind.get() else {
            self.warn(
                WarningKind::UnexpectedRecord,
                line,
                "skipped a record without a `type`",
            );
            return;
        };
        if is_claude_record(&rec) {
            self.claude_records += 1;
        }
        if let Some(bad) = &rec.timestamp.1 {
            let w = bad.warning(&self.file.path, Some(line), "`timestamp`");
            self.warnings.push(w);
        }
        self.note_common(&rec);
        let sidechain = rec.is_sidechain.0;
        // The message's content moves into the parts: the record is dropped after this line,
        // and a copy would double every text, tool input and output of the full view.
        let content = rec
            .message
            .get_mut()
            .map_or(Content::Absent, |m| std::mem::take(&mut m.content));
        let (slot, conversational) = match kind {
            "user" => (self.user(line, &rec, content, sidechain), true),
            "assistant" => (self.assistant(line, &rec, content, sidechain), true),
            "system" => (self.system(&rec, sidechain), false),
            "summary" => {
                if let (Some(leaf), Some(title)) =
                    (rec.leaf_uuid.nonempty(), rec.summary.nonempty())
                {
                    self.s
                        .leaf_titles
                        .push((leaf.to_string(), title.to_string()));
                }
                (Slot::Node(None), false)
            }
            "custom-title" => {
                if let Some(t) = rec.custom_title.nonempty() {
                    self.custom_title = Some(t.to_string());
                }
                (Slot::Node(None), false)
            }
            "ai-title" => {
                if let Some(t) = rec.ai_title.nonempty() {
                    self.ai_title = Some(t.to_string());
                }
                (Slot::Node(None), false)
            }
            "last-prompt" => {
                if let Some(l) = rec.leaf_uuid.nonempty() {
                    self.last_prompt_leaf = Some((hash64(l), self.graph.len()));
                }
                (Slot::Node(None), false)
            }
            "progress" | "attachment" => {
                let sub = if kind == "progress" {
                    rec.data.get().and_then(|t| t.kind.get())
                } else {
                    rec.attachment.get().and_then(|t| t.kind.get())
                };
                let sub = sub.unwrap_or("unknown");
                if kind == "progress" && sub == "agent_progress" {
                    self.copied_response(&rec);
                }
                self.s.note_other_parts(&["claude:", kind, "/", sub]);
                (Slot::Node(None), false)
            }
            "queue-operation" => {
                self.queue(&rec);
                self.s.note_other_parts(&["claude:", kind]);
                (Slot::Node(None), false)
            }
            other => {
                self.s.note_other_parts(&["claude:", other]);
                (Slot::Node(None), false)
            }
        };
        let (message, companion) = match slot {
            Slot::Repeat => return,
            Slot::Node(m) => (m, None),
            Slot::Carrier(m, c) => (Some(m), Some(c)),
        };
        if let Some(u) = uuid {
            let parent = rec
                .parent_uuid
                .nonempty()
                .or_else(|| rec.logical_parent_uuid.nonempty())
                .map(hash64);
            self.graph.add(
                u,
                Node {
                    parent,
                    message,
                    companion,
                    conversational,
                    sidechain,
                },
            );
        }
    }

    /// Fields every record kind may carry: time, cwd, version, branch, session id.
    fn note_common(&mut self, rec: &Rec) {
        if let Some(t) = rec.timestamp.0 {
            self.s.note_time(t);
        }
        if self.s.cwd.is_none() {
            self.s.cwd = rec.cwd.nonempty().map(String::from);
        }
        if self.s.agent_version.is_none() {
            self.s.agent_version = rec.version.nonempty().map(String::from);
        }
        if self.s.git_branch.is_none() {
            self.s.git_branch = rec.git_branch.nonempty().map(String::from);
        }
        let id = rec.session_id.get().or_else(|| rec.session_id_snake.get());
        if let Some(id) = id.filter(|s| !s.trim().is_empty()) {
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
    fn is_repeat(&mut self, rec: &Rec, msg: &Msg, content: &Content) -> bool {
        let Some(uuid) = rec.uuid.get() else {
            return false;
        };
        !self
            .seen_records
            .insert((hash64(uuid), fingerprint(rec, msg, content)))
    }

    fn user(&mut self, line: u64, rec: &Rec, content: Content, sidechain: bool) -> Slot {
        let msg = match rec.message.get() {
            Some(m) if matches!(content, Content::Text(_) | Content::Blocks(_)) => m,
            _ => {
                self.warn(
                    WarningKind::UnexpectedRecord,
                    line,
                    "skipped a `user` record without message content",
                );
                return Slot::Node(None);
            }
        };
        if self.is_repeat(rec, msg, &content) {
            self.s.note_other("claude:repeated_record");
            return Slot::Repeat;
        }
        let uuid = rec.uuid.get();
        let key = uuid.map_or_else(|| format!("line{line}"), String::from);
        let parts = self.content_parts(content, &key, 0, rec);

        let mut m = Message::new(Role::User);
        m.id = uuid.map(Box::from);
        m.timestamp = rec.timestamp.0;
        m.sidechain = sidechain;
        let tool_carrier = rec.tool_use_result.present()
            || parts.iter().any(|p| matches!(p, Part::ToolResult { .. }));
        if rec.is_compact_summary.0 {
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
            let (results, beside) = split_carrier(parts);
            m.parts = results;
            if !self.subagent {
                self.link_subagent(rec, &m.parts);
            }
            if let Some(beside) = beside {
                // Text next to the results (what the human typed while a tool ran, or an
                // interrupt notice) is the user's, as Claude Code shows it and lists it among
                // "All user messages" in its own compaction summaries: a user message of its
                // own after the results, classified as a prompt is.
                let mut u = Message::new(Role::User);
                u.id = m.id.clone();
                u.timestamp = m.timestamp;
                u.sidechain = sidechain;
                let (subtype, human) = classify_prompt(&beside);
                u.subtype = subtype.map(Box::from);
                u.is_human = human && !sidechain;
                u.parts = beside;
                self.s.messages.push(m);
                let results = self.s.messages.len() - 1;
                self.s.messages.push(u);
                return Slot::Carrier(results, results + 1);
            }
        } else if rec.is_meta.0 {
            m.subtype = Some("meta".into());
            m.parts = parts;
        } else {
            let (subtype, human) = classify_prompt(&parts);
            m.subtype = subtype.map(Box::from);
            m.is_human = human && !sidechain;
            m.parts = parts;
        }
        self.s.messages.push(m);
        Slot::Node(Some(self.s.messages.len() - 1))
    }

    /// What the user typed while the agent was working (formats.md §1.3). An `enqueue` holds the
    /// text. Taken off with `dequeue`, it is sent as the next prompt, a `user` record of its
    /// own; taken off with `remove`, it was handed to the running turn as guidance, and this
    /// record is the only place the text is kept: it becomes a human message (`queued`) there.
    /// `popAll` puts it back in the input box, unsent.
    fn queue(&mut self, rec: &Rec) {
        match rec.operation.get() {
            Some("enqueue") => {
                self.queued = rec
                    .content
                    .get()
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| (t.to_string(), rec.timestamp.0));
            }
            Some("remove") => {
                if let Some((text, ts)) = self.queued.take() {
                    let mut m = Message::new(Role::User);
                    m.timestamp = ts.or(rec.timestamp.0);
                    m.subtype = Some("queued".into());
                    m.is_human = !self.subagent;
                    m.parts.push(Part::Text { text });
                    self.s.messages.push(m);
                }
            }
            _ => self.queued = None,
        }
    }

    /// A main session's tool result that reports `toolUseResult.agentId` spawned that agent.
    fn link_subagent(&mut self, rec: &Rec, parts: &[Part]) {
        let Some(agent) = rec
            .tool_use_result
            .get()
            .and_then(|r| r.get())
            .and_then(|r| r.agent_id.nonempty())
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

    fn assistant(&mut self, line: u64, rec: &Rec, content: Content, sidechain: bool) -> Slot {
        let Some(m) = rec.message.get() else {
            self.warn(
                WarningKind::UnexpectedRecord,
                line,
                "skipped an `assistant` record without a message object",
            );
            return Slot::Node(None);
        };
        if self.is_repeat(rec, m, &content) {
            self.s.note_other("claude:repeated_record");
            return Slot::Repeat;
        }
        let model = m.model.nonempty();
        let synthetic = model == Some("<synthetic>");
        let model = model.filter(|_| !synthetic);
        let msg_id = m.id.nonempty();
        let req_id = rec.request_id.nonempty();
        let timestamp = rec.timestamp.0;
        let usage = m.usage.get().map(|u| {
            for (field, odd, read) in u.odd_counts() {
                self.warn(
                    WarningKind::UnexpectedRecord,
                    line,
                    parse::json::odd_count(&format!("`message.usage.{field}`"), odd, read),
                );
            }
            usage_of(u)
        });
        if let Some(model) = model {
            self.s.note_model(model);
        }
        let model = model.map(|m| self.models.get(m));
        let model = model.as_ref();

        let key: Option<ResponseKey> = msg_id.map(|id| (id.into(), req_id.map(Arc::from)));
        if let (false, Some(key)) = (synthetic, &key)
            && let Some(idx) = self.responses.get(key).map(|r| r.message)
        {
            // Another streamed piece of a response already seen: same message.
            let start = self.s.messages[idx].parts.len();
            let parts = self.content_parts(content, &key.0, start, rec);
            let msg = &mut self.s.messages[idx];
            msg.parts.extend(parts);
            if msg.model.is_none() {
                msg.model = model.cloned();
            }
            if msg.timestamp.is_none() {
                msg.timestamp = timestamp;
            }
            if let Some(u) = usage {
                self.add_usage(key, u, timestamp, model);
            }
            return Slot::Node(Some(idx));
        }

        let mut msg = Message::new(Role::Assistant);
        let msg_key = msg_id
            .or_else(|| rec.uuid.get())
            .map_or_else(|| format!("line{line}"), String::from);
        msg.model = model.cloned();
        msg.timestamp = timestamp;
        msg.sidechain = sidechain;
        if synthetic {
            msg.subtype = Some("synthetic".into());
        }
        msg.parts = self.content_parts(content, &msg_key, 0, rec);
        msg.id = Some(msg_key.into());
        let idx = self.s.messages.len();
        self.s.messages.push(msg);
        if synthetic {
            // Harness-made (API errors, "No response requested"): not a model, not usage.
            return Slot::Node(Some(idx));
        }
        match key {
            Some(key) => {
                let replay = sidechain && self.main_message_ids.contains(&*key.0);
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
                    self.s.messages[idx].usage = Some(Box::new(u));
                    self.s.requests.push(Request {
                        timestamp,
                        model: model.cloned(),
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

    /// The sub-agent response an `agent_progress` record copies, if it has usage: one copied
    /// request per (`message.id`, `requestId`), at the per-field maximum of its copies (one is
    /// written per streamed piece). A copy is a sub-agent's (sidechain) request: the scan counts
    /// it only when no other record, the sub-agent's own file above all, has its key. One
    /// without a message id cannot be told from the sub-agent file's record: it is not counted.
    fn copied_response(&mut self, rec: &Rec) {
        let Some(copied) = rec.data.get().and_then(|d| d.message.get()) else {
            return;
        };
        let Some(m) = copied.message.get() else {
            return;
        };
        let (Some(id), Some(raw)) = (m.id.nonempty(), m.usage.get()) else {
            return;
        };
        let model = m.model.nonempty();
        if copied.kind.get().is_some_and(|k| k != "assistant") || model == Some("<synthetic>") {
            return;
        }
        let model = model.map(|m| self.models.get(m));
        let model = model.as_ref();
        let usage = usage_of(raw);
        let key: ResponseKey = (id.into(), copied.request_id.nonempty().map(Arc::from));
        if let Some(&i) = self.copies.get(&key) {
            let r = &mut self.s.copied_requests[i];
            r.usage.max_with(&usage);
            if r.model.is_none() {
                r.model = model.cloned();
            }
            return;
        }
        self.copies
            .insert(key.clone(), self.s.copied_requests.len());
        self.s.copied_requests.push(Request {
            // When the sub-agent made the request; the progress record is written just after.
            timestamp: copied.timestamp.0.or(rec.timestamp.0),
            model: model.cloned(),
            usage,
            prompt_tokens: None,
            message_index: None,
            dedup_key: Some(DedupKey {
                message_id: key.0,
                request_id: key.1,
                sidechain: true,
                copy: true,
            }),
        });
    }

    /// Fold one usage snapshot into its response's request: per-field maximum, never a sum.
    fn add_usage(
        &mut self,
        key: &ResponseKey,
        u: Usage,
        timestamp: Option<chrono::DateTime<chrono::Utc>>,
        model: Option<&Arc<str>>,
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
                    req.model = model.cloned();
                }
                req.usage
            }
            None => {
                r.request = Some(self.s.requests.len());
                self.s.requests.push(Request {
                    timestamp,
                    model: model.cloned(),
                    usage: u,
                    prompt_tokens: None,
                    message_index: Some(r.message),
                    dedup_key: Some(DedupKey {
                        message_id: key.0.clone(),
                        request_id: key.1.clone(),
                        sidechain: r.sidechain,
                        copy: false,
                    }),
                });
                u
            }
        };
        self.s.messages[r.message].usage = Some(Box::new(merged));
    }

    fn system(&mut self, rec: &Rec, sidechain: bool) -> Slot {
        let subtype = rec.subtype.get().unwrap_or("");
        if subtype == "compact_boundary" {
            let ci = self.start_compaction(rec, true);
            self.open_compaction = Some(ci);
            return Slot::Node(Some(self.s.messages.len() - 1));
        }
        if subtype == "microcompact_boundary" {
            self.microcompaction(rec);
            return Slot::Node(Some(self.s.messages.len() - 1));
        }
        match rec.content.nonempty() {
            Some(text) => {
                let mut m = Message::new(Role::System);
                m.id = rec.uuid.get().map(Box::from);
                m.timestamp = rec.timestamp.0;
                m.sidechain = sidechain;
                m.subtype = Some(
                    if subtype.is_empty() {
                        "system"
                    } else {
                        subtype
                    }
                    .into(),
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

    fn finish(mut self, line_warnings: Vec<Warning>) -> Session {
        // The record tables are done with: freed before the marking builds its own, which
        // would otherwise come on top of them at the peak of a long transcript's parse.
        self.responses = FxHashMap::default();
        self.copies = FxHashMap::default();
        self.main_message_ids = FxHashSet::default();
        self.seen_records = FxHashSet::default();
        self.pending_calls = VecDeque::new();
        self.answered_calls = FxHashSet::default();
        self.graph
            .mark_superseded(self.last_prompt_leaf, &mut self.s.messages);
        for r in self
            .s
            .requests
            .iter_mut()
            .chain(&mut self.s.copied_requests)
        {
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

/// Claude Code record types (formats.md §1.3).
const CLAUDE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "attachment",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "permission-mode",
    "tag",
    "pr-link",
    "frame-link",
    "relocated",
    "worktree-state",
    "bridge-session",
    "atis-latch",
    "attribution-snapshot",
];

/// Whether a record is one of Claude Code's own: positive evidence that a file is a Claude
/// transcript. Other agents reuse some of its names with other shapes (Qwen Code writes
/// `user`/`assistant` records holding Gemini `parts`, and `system` records with a
/// `systemPayload`).
fn is_claude_record(rec: &Rec) -> bool {
    let Some(kind) = rec.kind.get() else {
        return false;
    };
    match kind {
        "user" | "assistant" => rec.message.get().is_some_and(|m| {
            !m.parts.present()
                && m.role.get().is_none_or(|r| r == "user" || r == "assistant")
                && match m.content {
                    Content::Text(_) | Content::Blocks(_) => true,
                    // An assistant record may carry only usage.
                    Content::Absent => kind == "assistant" && m.usage.get().is_some(),
                    Content::Other => false,
                }
        }),
        "system" => !rec.system_payload.present(),
        _ => CLAUDE_TYPES.contains(&kind),
    }
}

/// Whether one JSONL line is a Claude Code record (for telling the agent of a file named on
/// the command line).
pub(crate) fn owns(line: &[u8]) -> bool {
    serde_json::from_slice::<Box<Rec>>(line).is_ok_and(|r| is_claude_record(&r))
}

#[cfg(test)]
mod tests;
