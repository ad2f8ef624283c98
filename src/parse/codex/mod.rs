//! Codex CLI parser: one rollout file → one [`Session`], for every format era (formats.md §2).
//!
//! # Eras
//! * **TS era** (`FileRole::CodexLegacyJson`, `sessions/rollout-….json`): one JSON document
//!   `{session:{id,timestamp,instructions,…}, items:[ResponseItem…]}` read with `read_document`.
//! * **Bare JSONL**: line 1 is `{id,timestamp,instructions,git}`, then bare ResponseItems without
//!   timestamps, interleaved with `{"record_type":"state"}` markers (tallied, otherwise skipped).
//!   The cwd comes from the `<cwd>` of the `<environment_context>` user message.
//! * **Envelope**: every line is `{timestamp,[ordinal,]type,payload}`. `.jsonl.zst` rollouts go
//!   through [`parse::open`]. The era is decided per line (envelope / state marker / bare item /
//!   bare meta), so a file that mixes them still parses.
//!
//! # Which `session_meta` is the file's own, and the replayed parent prefix
//! Codex's rollout recorder writes the new thread's own `SessionMeta` as the **first** line. A
//! fork or a spawned sub-agent then persists the copied parent rollout items (they begin with the
//! parent's own `session_meta` line, and carry its history and `token_count`s), and only after
//! that the child's initial context and turns. The schema fixture agrees: its line 1 is the only
//! `session_meta` with concrete values, and the later ones are buckets of other builds. So:
//! 1. the own meta is the first `session_meta` of the file (id, cwd, version, branch, kind);
//! 2. if it records `subagent_history_start_ordinal` (or `history_base.end_ordinal_exclusive`),
//!    every later line whose `ordinal` is below that boundary is replayed;
//! 3. otherwise, a `session_meta` of another thread met before any own conversation content
//!    starts a replay burst: the recorder stamps lines when it writes them, so the copy carries
//!    the fork's second. The copied items are written as one batch, consecutive lines a few
//!    milliseconds apart at most (lines of one write are 0–5 ms apart in real rollouts), while the
//!    child's own lines follow a user action, a spawn or a model call. The burst is every
//!    following line stamped in that same UTC second, and it ends at the first line that
//!    * has another second (or none), or
//!    * is stamped more than `BURST_GAP_MS` (100 ms, twenty times the batch's largest spacing)
//!      after the line before it, or
//!    * cannot be a copy: a `turn_context` or `task_started` whose `turn_id` is a UUIDv7 minted
//!      at or after the creation of this thread (its own `session_meta` timestamp). The parent's
//!      turns all began before the child existed; this catches a child whose first turn starts
//!      within milliseconds of the copy. (A test on "a turn id no replayed line carried" would
//!      not do: every copied turn opens with a `task_started` of a new id.)
//! 4. sub-agent/fork files where neither rule fired fall back to the ccusage rule for tokens:
//!    when the first two counted `token_count`s share one second, the leading `token_count`s of
//!    that second are treated as replayed.
//!
//! Replayed lines never become messages, requests, compactions or titles (they are tallied as
//! `codex:replayed`). Their `token_count` totals still become the baseline of the delta rule
//! below: a child's cumulative counter continues from its parent's, so the first own delta then
//! holds only the child's own usage. A replayed `turn_context` sets the current model. Any other
//! extra `session_meta` is tallied as `codex:session_meta`.
//!
//! # Tokens
//! Per file, the deltas of `info.total_token_usage` between successive `token_count` events:
//! events whose total equals the previous one are duplicates (tallied as
//! `codex:token_count_duplicate`); a decrease is a reset, for which `last_token_usage` is used;
//! `info:null` events carry only rate limits (`codex:rate_limits`). One [`Request`](crate::model::Request) per counted
//! event. Unified: `cache_read` = cached input, `cache_write` = `cache_write_input_tokens` when a
//! build records it (both are subsets of `input_tokens`), `input` = the rest, `output` =
//! `output_tokens` (reasoning included), `reasoning` = `reasoning_output_tokens`.
//! `prompt_tokens` = `last_token_usage.input_tokens`.
//!
//! `message_index`: early envelope builds (0.39) write the `token_count` *before* the items of the
//! response it accounts for; later builds write it after them. A request therefore takes the
//! assistant message created since the previous counted request when there is one that no
//! request has claimed; otherwise it claims the next assistant message, if that message starts
//! before any other message; failing both it points at the latest assistant message before it.
//!
//! # Compactions
//! A `compacted` line and the neighbouring `event_msg/context_compacted` are one event: they
//! merge when no message was recorded between them; a lone `context_compacted` is its own event.
//! `tokens_before` = the prompt (`last_token_usage.input_tokens`) of the latest `token_count`
//! before it; `tokens_after` = the prompt of the next counted request. Both are `Recorded`. When no
//! request follows, `tokens_after` is estimated with [`crate::tokens::estimate_text`] over the text of the
//! `replacement_history` (or of the summary when there is none) and the provenance is
//! `Estimated`. Trigger: `Manual` when a user prompt starting with `/compact` was recorded since
//! the last request; otherwise `Auto` when the session had recorded usage before it (Codex only
//! compacts on its own when the context is full); `Unknown` when nothing preceded it.
//! `message_index` is the index of the first message after the inserted `compaction` marker
//! (as for every agent); a non-empty summary follows the marker as a `compact_summary` message.
//!
//! # Messages
//! Human prompts come from `event_msg/user_message` (and paginated `item_completed` UserMessage
//! items). The `response_item` `role:user` copy of a prompt is merged with its event (whichever
//! comes first keeps its place). They pair on the text, without the tags codex-rs wraps around an
//! image it shows the model (`<image name=[Image #1]>`, `</image>`). The merged prompt keeps the
//! copy's decoded `input_image`s; the event's `images` URLs and `local_images` paths (an
//! `unknown/local_image` part) only when the copy holds no image data. An `item_completed`
//! UserMessage is merged with the `user_message` event of the same turn (same `turn_id`, the
//! event's being the current turn's from `task_started`/`turn_context`; the same timestamp when
//! either has none); the same text typed again in a later turn is another prompt. Harness
//! `role:user` messages (`<environment_context>`, `<user_instructions>`, `# AGENTS.md`,
//! `<permissions…>`, a message that is one XML-ish tag block) are non-human with subtype
//! `environment_context` / `instructions` / `context`, and so are `user_message` events of such
//! text or of the 2025 `kind` `environment_context` / `user_instructions` (merged with their copy,
//! as prompts are; never a human turn). In a file without any user_message event, the other
//! `role:user` messages are the human prompts. Unmatched copies in a file that has events stay
//! non-human (`model_input`). The IDE preamble is cut: the human text is what follows
//! `## My request for Codex:`.
//!
//! Assistant-side items (readable reasoning → Thinking, `role:assistant` text, tool calls) join one
//! Assistant message until a user, tool-output, developer/system message or a counted request
//! breaks it; consecutive outputs form one Tool message. `agent_message`/`agent_reasoning` events
//! duplicate response items and are only tallied. `thread_rolled_back{num_turns}` marks the last
//! N human turns and everything after them `superseded`; `thread_name_updated` is an explicit
//! title; `collab_agent_spawn_end` adds a [`SubagentLink`](crate::model::SubagentLink); other kinds are tallied as
//! `codex:<kind>`.
//!
//! # Tools
//! `function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`, `tool_search_call`
//! and `image_generation_call` are tool calls: id = `call_id`, else the item `id`, else
//! `<message id>:<n>`; arguments are the parsed JSON, or the raw string when not JSON. Outputs
//! (every shape: JSON string with `metadata.exit_code`, plain text, arrays of content items,
//! `{content, success}` objects, single content items) pair by `call_id`; orphans on either side
//! are kept. A result is an error on `exit_code != 0`, a leading `Exit code: N` or a unified-exec
//! header `Process exited with code N` with N ≠ 0, `success:false`, `status:"failed"`, or a text
//! starting with `error:`, `err:`, `tool call error`, `failed in sandbox`, `aborted` or
//! `patch rejected`.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::diag::{Warning, WarningKind};
use crate::model::{Agent, ModelNames, Part, Provenance, Session, SessionKind, Usage};
use crate::parse::json::Obj as JsonObj;
use crate::parse::{self, FileRole, Records, SourceFile};

mod content;
mod events;
mod items;
mod records;

use records::{P, RawTokens};

struct Lines;

impl Records for Lines {
    // A record is 1,056 bytes: `boxed_record!` reads it into its box in place, and the box goes
    // from serde to the builder without a copy of the record.
    type Rec<'a> = Box<P<'a>>;
}

use content::id_from_path;
pub use content::rollout_uuid;

pub(super) type Obj = Map<String, Value>;

/// Parse one Codex rollout (any era). `Err` when the file cannot be opened, or holds records
/// but none of Codex's.
pub fn parse(file: &SourceFile) -> Result<Session, Warning> {
    if is_legacy_document(file) {
        return parse_legacy(file);
    }
    let reader = parse::open(&file.path).map_err(|e| parse::unreadable(&file.path, &e))?;
    let mut b = Builder::new(&file.path);
    let mut line_warnings = Vec::new();
    let (mut lines, mut own) = (0u64, 0u64);
    parse::for_each_record::<Lines>(&file.path, reader, &mut line_warnings, |n, p, raw| {
        lines += 1;
        own += u64::from(p.is_codex());
        b.line(n, &p, raw)
    });
    if lines > 0 && own == 0 {
        return Err(Warning::new(
            WarningKind::UnexpectedRecord,
            &file.path,
            None,
            "not a Claude/Codex/Gemini session: no Codex record in this file (another agent's transcript?); skipped",
        ));
    }
    b.warnings.extend(line_warnings);
    Ok(b.finish())
}

/// Whether one JSONL line is a Codex record ([`P::is_codex`]), for telling the agent of a file
/// named on the command line.
pub(crate) fn owns(line: &[u8]) -> bool {
    serde_json::from_slice::<Box<P>>(line).is_ok_and(|p| p.is_codex())
}

/// The payload of an envelope line (or the line itself, bare era) read whole, for the rare
/// kinds whose every key is kept.
fn whole_payload(raw: &[u8]) -> Obj {
    match serde_json::from_slice::<Value>(raw) {
        Ok(Value::Object(mut o)) => match o.remove("payload") {
            Some(Value::Object(p)) => p,
            Some(_) => Obj::new(),
            None => o,
        },
        _ => Obj::new(),
    }
}

fn is_legacy_document(file: &SourceFile) -> bool {
    match file.role {
        FileRole::CodexLegacyJson => true,
        FileRole::CodexRollout => false,
        _ => {
            let name = file
                .path
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            name.ends_with(".json") || name.ends_with(".json.zst")
        }
    }
}

/// TS-era single document `{session:{…}, items:[…]}`, always read whole: its items come from a
/// `Value`, not from a line the summary view could skip through (and such files are small).
fn parse_legacy(file: &SourceFile) -> Result<Session, Warning> {
    parse::json::with_detail(parse::Detail::Full, || parse_legacy_document(file))
}

fn parse_legacy_document(file: &SourceFile) -> Result<Session, Warning> {
    let doc = parse::read_document(&file.path)?;
    let mut b = Builder::new(&file.path);
    match doc {
        Value::Object(o) => {
            match o.get("session") {
                Some(meta @ Value::Object(_)) => match <Box<P>>::deserialize(meta) {
                    Ok(meta) => {
                        b.check_time(&meta, "`session.timestamp`");
                        b.bare_meta(&meta)
                    }
                    Err(e) => b.warn(None, format!("unreadable `session` object: {e}")),
                },
                _ => b.warn(None, "TS-era rollout without a `session` object"),
            }
            match o.get("items") {
                Some(Value::Array(items)) => {
                    for (k, item) in items.iter().enumerate() {
                        match item {
                            Value::Object(it) => {
                                let ts = it
                                    .get("timestamp")
                                    .map_or(Ok(None), parse::read_time)
                                    .unwrap_or_else(|bad| {
                                        let field = format!("`items[{k}].timestamp`");
                                        b.warnings.push(bad.warning(&file.path, None, &field));
                                        None
                                    });
                                if let Some(t) = ts {
                                    b.s.note_time(t);
                                }
                                match <Box<P>>::deserialize(item) {
                                    Ok(p) => {
                                        let raw = serde_json::to_vec(item).unwrap_or_default();
                                        b.item(&p, ts, &raw);
                                    }
                                    Err(e) => b.warn(None, format!("unreadable item: {e}")),
                                }
                            }
                            other => b.warn(
                                None,
                                format!(
                                    "skipped a {} item that is not an object",
                                    parse::json_kind(other)
                                ),
                            ),
                        }
                    }
                }
                _ => b.warn(None, "TS-era rollout without an `items` array"),
            }
        }
        other => b.warn(
            None,
            format!(
                "a JSON {} is not a Codex TS-era rollout",
                parse::json_kind(&other)
            ),
        ),
    }
    Ok(b.finish())
}

/// Rule 3: a gap larger than this between two consecutive lines ends a replay burst.
const BURST_GAP_MS: i64 = 100;

/// The creation time of a UUIDv7 (`019dc117-227a-7…`), `None` for any other id.
fn uuid_v7_time(id: &str) -> Option<DateTime<Utc>> {
    let b = id.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[14] != b'7' {
        return None;
    }
    let hex = format!("{}{}", id.get(..8)?, id.get(9..13)?);
    let ms = i64::from_str_radix(&hex, 16).ok()?;
    DateTime::from_timestamp_millis(ms)
}

/// Raw Codex `TokenUsage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Raw {
    input: u64,
    cached: u64,
    cache_write: u64,
    output: u64,
    reasoning: u64,
    total: u64,
}

impl Raw {
    fn of(t: &RawTokens) -> Raw {
        Raw {
            input: t.input_tokens.get(),
            cached: t.cached_input_tokens.get(),
            cache_write: t.cache_write_input_tokens.get(),
            output: t.output_tokens.get(),
            reasoning: t.reasoning_output_tokens.get(),
            total: t.total_tokens.get(),
        }
    }

    fn decreased_from(&self, p: &Raw) -> bool {
        self.input < p.input
            || self.cached < p.cached
            || self.cache_write < p.cache_write
            || self.output < p.output
            || self.reasoning < p.reasoning
            || self.total < p.total
    }

    fn minus(&self, p: &Raw) -> Raw {
        Raw {
            input: self.input - p.input,
            cached: self.cached - p.cached,
            cache_write: self.cache_write - p.cache_write,
            output: self.output - p.output,
            reasoning: self.reasoning - p.reasoning,
            total: self.total - p.total,
        }
    }

    fn usage(&self) -> Usage {
        let cache_read = self.cached.min(self.input);
        let cache_write = self.cache_write.min(self.input - cache_read);
        Usage {
            input: self.input - cache_read - cache_write,
            output: self.output,
            cache_read,
            cache_write,
            reasoning: self.reasoning,
            cache_write_1h: 0,
        }
    }
}

/// The compaction whose traces may still merge (no message recorded since).
struct OpenCompaction {
    index: usize,
    len: usize,
    has_line: bool,
    has_event: bool,
}

/// Where a human prompt was read: a `user_message` event or an `item_completed` UserMessage.
#[derive(Default)]
struct PromptSource<'a> {
    item_id: Option<&'a str>,
    turn_id: Option<&'a str>,
    from_item: bool,
}

/// The latest human prompt read from an event or item, for pairing the two records of one.
struct HumanPrompt {
    index: usize,
    from_item: bool,
    /// Its own `turn_id`, else the current turn's.
    turn: Option<String>,
    ts: Option<DateTime<Utc>>,
}

struct Builder {
    s: Session,
    warnings: Vec<Warning>,
    line_no: Option<u64>,
    own_meta_seen: bool,
    own_id: Option<String>,
    /// A message or request of this file's own was produced.
    own_content: bool,
    ordinal_boundary: Option<u64>,
    /// When this thread was created (its own `session_meta`).
    own_created: Option<DateTime<Utc>>,
    /// Timestamp of the latest line of the replay burst in progress.
    burst: Option<DateTime<Utc>>,
    burst_done: bool,
    replay_detected: bool,
    /// Rule 4 state: second of the first counted token_count while the leading phase lasts.
    lead_second: Option<i64>,
    lead_active: bool,
    lead_confirmed: bool,
    model: Option<Arc<str>>,
    models: ModelNames,
    open_asst: Option<usize>,
    open_tool: Option<usize>,
    /// Assistant message created since the last counted request and not claimed by one.
    fresh_asst: Option<usize>,
    last_asst: Option<usize>,
    /// Request waiting for the assistant message it produced.
    pending_req: Option<usize>,
    saw_user_event: bool,
    /// Harness texts recorded by one side only: (read from an event, trimmed text).
    unpaired_harness: Vec<(bool, String)>,
    /// `turn_id` of the latest own `turn_context` / `task_started`.
    turn_id: Option<String>,
    last_human: Option<HumanPrompt>,
    /// `role:user` copies waiting for their user_message event: (message index, key).
    pending_copies: Vec<(usize, String)>,
    /// user_message events whose copy has not been seen yet: (message index, key).
    unmatched_events: Vec<(usize, String)>,
    prev_total: Option<Raw>,
    last_prompt: Option<u64>,
    compact_cmd: bool,
    open_comp: Option<OpenCompaction>,
    awaiting_after: Vec<usize>,
    /// Per compaction: estimated tokens of the history it kept.
    comp_estimate: Vec<Option<u64>>,
    synth: u64,
}

impl Builder {
    fn new(path: &Path) -> Self {
        Builder {
            s: Session::new(Agent::Codex, String::new(), path.to_path_buf()),
            warnings: Vec::new(),
            line_no: None,
            own_meta_seen: false,
            own_id: None,
            own_content: false,
            ordinal_boundary: None,
            own_created: None,
            burst: None,
            burst_done: false,
            replay_detected: false,
            lead_second: None,
            lead_active: true,
            lead_confirmed: false,
            model: None,
            models: ModelNames::default(),
            open_asst: None,
            open_tool: None,
            fresh_asst: None,
            last_asst: None,
            pending_req: None,
            saw_user_event: false,
            unpaired_harness: Vec::new(),
            turn_id: None,
            last_human: None,
            pending_copies: Vec::new(),
            unmatched_events: Vec::new(),
            prev_total: None,
            last_prompt: None,
            compact_cmd: false,
            open_comp: None,
            awaiting_after: Vec::new(),
            comp_estimate: Vec::new(),
            synth: 0,
        }
    }

    /// A `timestamp` that names no time: said, where it stands.
    fn check_time(&mut self, p: &P, field: &str) {
        if let Some(bad) = p.bad_ts() {
            let w = bad.warning(&self.s.path, self.line_no, field);
            self.warnings.push(w);
        }
    }

    fn warn(&mut self, line: Option<u64>, msg: impl Into<String>) {
        self.warnings.push(Warning::new(
            WarningKind::UnexpectedRecord,
            &self.s.path,
            line,
            msg,
        ));
    }

    fn other(&mut self, kind: &str) {
        self.s.note_other_parts(&["codex:", kind]);
    }

    // ---------------------------------------------------------------- line dispatch

    fn line(&mut self, n: u64, p: &P, raw: &[u8]) {
        self.line_no = Some(n);
        self.check_time(p, "`timestamp`");
        let ty = p.kind.get();
        if let (Some(kind), true) = (ty, p.payload.present()) {
            self.envelope(kind, p, raw);
        } else if p.record_type.present() {
            let rt = p
                .record_type
                .get()
                .and_then(|r| r.get())
                .unwrap_or("unknown");
            self.other(&format!("record_type:{rt}"));
        } else if ty.is_some() {
            self.item(p, None, raw);
        } else if !self.own_meta_seen && p.id.get().is_some() && p.timestamp.is_some() {
            self.bare_meta(p);
        } else {
            self.warn(Some(n), "skipped an object with no record type");
        }
    }

    /// Bare-era line 1 / TS-era `session` object.
    fn bare_meta(&mut self, meta: &P) {
        self.own_meta_seen = true;
        if let Some(id) = meta.id.filled() {
            self.own_id = Some(id.to_string());
            self.s.id = id.to_string();
        }
        // No per-line timestamps in these eras: the start is known, the end is the file's mtime.
        if let Some(t) = meta.ts() {
            self.s.started_at = Some(t);
        }
        self.meta_common(meta);
    }

    fn meta_common(&mut self, meta: &P) {
        if let Some(cwd) = meta.cwd.filled() {
            self.s.cwd = Some(cwd.to_string());
        }
        if let Some(v) = meta.cli_version.filled() {
            self.s.agent_version = Some(v.to_string());
        }
        if let Some(branch) = meta
            .git
            .get()
            .and_then(JsonObj::get)
            .and_then(|g| g.branch.filled())
        {
            self.s.git_branch = Some(branch.to_string());
        }
    }

    fn envelope(&mut self, kind: &str, line: &P, raw: &[u8]) {
        let ts = line.ts();
        let payload = line.payload();
        if let Some(t) = ts {
            self.s.note_time(t);
        }
        if self.is_replayed(kind, line, payload, ts) {
            self.replayed(kind, payload);
            return;
        }
        match kind {
            "session_meta" => match payload {
                Some(p) if !self.own_meta_seen => self.own_meta(p, ts),
                _ => self.other("session_meta"),
            },
            "response_item" => match payload {
                Some(p) => self.item(p, ts, raw),
                None => self.warn(self.line_no, "response_item without an object payload"),
            },
            "event_msg" => match payload {
                Some(p) => self.event(p, ts),
                None => self.warn(self.line_no, "event_msg without an object payload"),
            },
            "turn_context" => {
                if let Some(p) = payload {
                    self.turn_context(p, false);
                }
                self.other("turn_context");
            }
            "compacted" => match payload {
                Some(_) => self.compacted(&whole_payload(raw), ts),
                None => self.warn(self.line_no, "compacted without an object payload"),
            },
            other => self.other(other),
        }
    }

    fn own_meta(&mut self, p: &P, ts: Option<DateTime<Utc>>) {
        self.own_meta_seen = true;
        self.check_time(p, "`payload.timestamp`");
        if let Some(id) =
            p.id.get()
                .or_else(|| p.session_id.get())
                .filter(|s| !s.is_empty())
        {
            self.own_id = Some(id.to_string());
            self.s.id = id.to_string();
        }
        if let Some(t) = p.ts().or(ts) {
            self.s.note_time(t);
            self.own_created = Some(t);
        }
        self.meta_common(p);
        let subagent = p
            .source
            .get()
            .map(|src| &src.subagent)
            .filter(|s| s.present());
        let parent_thread = p.parent_thread_id.filled();
        if let Some(sub) = subagent {
            self.s.kind = SessionKind::Subagent;
            let spawn_parent = sub
                .get()
                .and_then(JsonObj::get)
                .and_then(|s| s.thread_spawn.get())
                .and_then(|t| t.parent_thread_id.filled());
            self.s.parent_id = spawn_parent.or(parent_thread).map(str::to_string);
        } else if let Some(fork) = p.forked_from_id.filled() {
            self.s.parent_id = Some(fork.to_string());
        } else if let Some(parent) = parent_thread {
            self.s.parent_id = Some(parent.to_string());
        }
        let boundary = p
            .subagent_history_start_ordinal
            .0
            .or_else(|| p.history_base.get().and_then(|h| h.end_ordinal_exclusive.0));
        self.ordinal_boundary = boundary;
    }

    /// Rules 2 and 3 of the module doc.
    fn is_replayed(
        &mut self,
        kind: &str,
        line: &P,
        payload: Option<&P>,
        ts: Option<DateTime<Utc>>,
    ) -> bool {
        if !self.own_meta_seen {
            return false;
        }
        if let (Some(b), Some(o)) = (self.ordinal_boundary, line.ordinal.0) {
            if o < b {
                self.replay_detected = true;
                return true;
            }
            return false;
        }
        if let Some(last) = self.burst {
            if let Some(t) = ts
                && t.timestamp() == last.timestamp()
                && (t - last).num_milliseconds() <= BURST_GAP_MS
                && !self.own_turn_start(kind, payload)
            {
                self.burst = Some(t.max(last));
                return true;
            }
            self.burst = None;
            self.burst_done = true;
            return false;
        }
        if kind == "session_meta" && !self.own_content && !self.burst_done {
            let id = payload.and_then(|p| p.id.get());
            if id.is_some() && id != self.own_id.as_deref() {
                self.replay_detected = true;
                match ts {
                    Some(t) => self.burst = Some(t),
                    None => self.burst_done = true,
                }
                return true;
            }
        }
        false
    }

    /// Rule 3: a turn that began after this thread was created is the thread's own.
    fn own_turn_start(&self, kind: &str, payload: Option<&P>) -> bool {
        let Some(p) = payload else { return false };
        let turn_line = kind == "turn_context"
            || (kind == "event_msg" && (p.kind.is("task_started") || p.kind.is("turn_started")));
        match (
            turn_line,
            p.turn_id.get().and_then(uuid_v7_time),
            self.own_created,
        ) {
            (true, Some(minted), Some(created)) => minted >= created,
            _ => false,
        }
    }

    fn replayed(&mut self, kind: &str, payload: Option<&P>) {
        self.other("replayed");
        let Some(p) = payload else { return };
        match kind {
            "turn_context" => self.turn_context(p, true),
            "event_msg" if p.kind.is("token_count") => {
                self.token_count(p, None, None, true);
            }
            _ => {}
        }
    }

    fn turn_context(&mut self, p: &P, replayed: bool) {
        if !replayed && let Some(t) = p.turn_id.filled() {
            self.turn_id = Some(t.to_string());
        }
        if let Some(m) = p.model.filled() {
            self.model = Some(self.models.get(m));
            if !replayed {
                self.s.note_model(m);
            }
        }
        if !replayed
            && self.s.cwd.is_none()
            && let Some(cwd) = p.cwd.filled()
        {
            self.s.cwd = Some(cwd.to_string());
        }
    }

    // ---------------------------------------------------------------- finish

    fn finish(mut self) -> Session {
        if !self.saw_user_event {
            // No user_message events (bare / TS era): the non-harness user messages are the
            // human prompts.
            for (idx, key) in std::mem::take(&mut self.pending_copies) {
                let m = &mut self.s.messages[idx];
                let others: Vec<Part> = m
                    .parts
                    .drain(..)
                    .filter(|p| !matches!(p, Part::Text { .. }))
                    .collect();
                m.parts = vec![Part::Text { text: key }];
                m.parts.extend(others);
                m.is_human = true;
                m.subtype = None;
            }
        }
        for (ci, c) in self.s.compactions.iter_mut().enumerate() {
            // Before: the last recorded prompt. After: the next recorded prompt, or an
            // estimate of the replacement history when no request followed.
            let before_recorded = c.tokens_before.is_some();
            if c.tokens_after.is_none()
                && let Some(est) = self.comp_estimate.get(ci).copied().flatten()
            {
                c.tokens_after = Some(est);
                if before_recorded {
                    c.tokens_provenance = Provenance::Recorded;
                    c.after_provenance = Some(Provenance::Estimated);
                } else {
                    c.tokens_provenance = Provenance::Estimated;
                }
            } else if before_recorded || c.tokens_after.is_some() {
                c.tokens_provenance = Provenance::Recorded;
            }
        }
        for r in 0..self.s.requests.len() {
            let (mi, usage) = (self.s.requests[r].message_index, self.s.requests[r].usage);
            if let Some(m) = mi.and_then(|i| self.s.messages.get_mut(i)) {
                m.usage.get_or_insert_with(Box::default).add(&usage);
            }
        }
        if self.s.id.is_empty() {
            self.s.id = id_from_path(&self.s.path);
        }
        self.warnings.sort_by_key(|w| w.line.unwrap_or(0));
        self.s.warnings = self.warnings;
        self.s
    }
}

#[cfg(test)]
mod tests;
