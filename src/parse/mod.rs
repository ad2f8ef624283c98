//! Parsers: one module per agent, each turning one file into one [`Session`].
//!
//! Each parser reads its records once into borrowed, typed structs ([`json`]) and serves
//! views of a file ([`Detail`]): the full session (`show`, `export`, Gemini's replay), the
//! same with Claude's tool outputs measured rather than kept (the other replays), or the
//! session without tool bodies, thinking and media (`list`, `projects`, `usage`,
//! `compactions`). Shared here: how a file is opened and split into lines ([`read`]: regular
//! files only, size caps, repairs), which agent wrote a file named on the command line
//! ([`sniff_agent`]), and the small helpers all three formats need.

pub mod claude;
pub mod codex;
pub mod gemini;
pub mod json;
pub mod read;
pub mod subagents;
mod time;

use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;

use crate::diag::{Warning, WarningKind};
use crate::model::{Agent, Session};

pub use json::Detail;
pub use read::{
    MAX_DECOMPRESSED_BYTES, MAX_LINE_BYTES, Records, for_each_record, for_each_record_pre,
};
pub use time::parse_time_str;

/// What discovery knows about a file before parsing it, from its place in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRole {
    /// `projects/<encoded>/<session>.jsonl`.
    ClaudeMain,
    /// `projects/<encoded>/agent-*.jsonl` (2.0.28+) or `<session>/subagents/**/agent-*.jsonl`
    /// (2.1.x). `parent_session` is the `<session>` folder name when the layout gives it;
    /// `meta` the `.meta.json` sidecar when present.
    ClaudeSubagent {
        parent_session: Option<String>,
        meta: Option<PathBuf>,
    },
    /// Codex `rollout-*.jsonl` / `.jsonl.zst` (bare or envelope era, detected from line 1).
    CodexRollout,
    /// Codex TS-era single-document `rollout-*.json`.
    CodexLegacyJson,
    /// Gemini `chats/session-*.json[l]`.
    GeminiSession,
    /// Gemini `chats/<parentSessionId>/<agentId>.json[l]`.
    GeminiSubagent { parent_session: String },
    /// Gemini `/chat save` file `checkpoint-<tag>.json` in the project temp dir.
    GeminiCheckpoint,
    /// Named on the command line; the format is sniffed from the content.
    Unknown,
}

/// A file to parse, as discovery found it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub agent: Agent,
    pub path: PathBuf,
    pub role: FileRole,
    pub size: u64,
    pub mtime: Option<DateTime<Utc>>,
    /// Gemini: the project temp dir (`tmp/<hash-or-slug>`); Claude: the project folder.
    pub project_dir: Option<PathBuf>,
    /// The file's identity on disk (device, inode) where the platform gives one: every path to
    /// one file (overlapping roots, symlinks, hard links) has the same.
    pub identity: Option<(u64, u64)>,
}

impl SourceFile {
    pub fn new(agent: Agent, path: PathBuf, role: FileRole) -> Self {
        let (size, mtime, identity) = match std::fs::metadata(&path) {
            Ok(m) => (
                m.len(),
                m.modified().ok().map(DateTime::<Utc>::from),
                identity(&m),
            ),
            Err(_) => (0, None, None),
        };
        SourceFile {
            agent,
            path,
            role,
            size,
            mtime,
            project_dir: None,
            identity,
        }
    }

    /// The file of the session whose folder holds this sub-agent's file, by layout alone:
    /// Claude Code 2.1 writes `<session>/subagents/**/agent-*.jsonl` beside `<session>.jsonl`.
    /// Whether that file exists, and is the sub-agent's parent, is not checked here.
    pub fn layout_parent(&self) -> Option<PathBuf> {
        let FileRole::ClaudeSubagent {
            parent_session: Some(session),
            ..
        } = &self.role
        else {
            return None;
        };
        let subagents = self.path.ancestors().find(|dir| {
            dir.file_name().is_some_and(|n| n == "subagents")
                && dir
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == session.as_str())
        })?;
        Some(
            subagents
                .parent()?
                .with_file_name(format!("{session}.jsonl")),
        )
    }
}

/// A file's identity on disk from its metadata: (device, inode) where the platform has them.
#[cfg(unix)]
pub fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
pub fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Parse one file into a full session. An `Err` is a file that could not be read at all (or
/// that holds no record of its agent); everything short of that (bad lines, odd records) is a
/// warning inside the session.
pub fn parse_file(file: &SourceFile) -> Result<Session, Warning> {
    parse_file_with(file, Detail::Full)
}

/// Parse one file at the given [`Detail`].
pub fn parse_file_with(file: &SourceFile, detail: Detail) -> Result<Session, Warning> {
    let parse = || match file.agent {
        Agent::Claude => claude::parse(file),
        Agent::Codex => codex::parse(file),
        Agent::Gemini => gemini::parse(file),
    };
    let session = match detail {
        Detail::Summary => json::with_detail(detail, parse),
        // A file with a block that reading by kind cannot give as its map gives it (hostile
        // ones only) is read again with every block a map; a measured one whole, its outputs
        // kept, which serve the replays as well.
        _ => match json::by_kind(detail, parse) {
            (session, false) => session,
            (_, true) if detail == Detail::Measured => json::as_maps(Detail::Full, parse),
            (_, true) => json::as_maps(detail, parse),
        },
    }?;
    Ok(finish(session))
}

/// The summary view of a Gemini JSONL session from what `src` reads, each line's record taken
/// from `pre` when it gives one: see [`gemini::view_with`]. `None` when the file must be read with
/// [`parse_file_with`] instead.
pub fn gemini_view_with(
    file: &SourceFile,
    src: impl std::io::Read,
    pre: impl FnMut(&[u8]) -> Option<gemini::TreeRecord>,
) -> Option<Session> {
    gemini::view_with(file, src, pre).map(finish)
}

/// What every parse does last, whatever the agent and the path the file took.
fn finish(mut session: Session) -> Session {
    match session.agent {
        Agent::Claude => subagents::complete_claude_links(&mut session),
        Agent::Gemini => harness_continuations(&mut session),
        Agent::Codex => {}
    }
    // Recorded times only: a file's mtime is reset by every copy, backup and checkout, so a
    // session that recorded no time at all (a Gemini saved chat) stays undated rather than
    // becoming the newest session, dated today.
    match (session.started_at, session.updated_at) {
        (Some(s), None) => session.updated_at = Some(s),
        (None, Some(u)) => session.started_at = Some(u),
        (None, None) | (Some(_), Some(_)) => {}
    }
    session
}

/// Legacy Gemini CLI injects `System: Please continue.` as a user message when the model stops
/// mid-task: the harness speaking, not a human turn (nor a title).
fn harness_continuations(s: &mut Session) {
    for m in &mut s.messages {
        if m.is_human && m.text().trim() == "System: Please continue." {
            m.is_human = false;
            m.subtype = Some("meta".into());
        }
    }
}

/// How many leading object lines [`sniff_agent`] looks at for evidence.
const SNIFF_LINES: usize = 16;

/// How much of a file [`sniff_agent`] reads for those lines (and for a whole document's keys).
const SNIFF_BYTES: usize = 256 * 1024;

/// The agent that wrote a file named on the command line, from positive evidence in its first
/// records; `None` for anything else, including the JSONL of other agents (Kimi, Copilot,
/// iFlow, Qwen, Droid, Pi, OpenClaw, …), which shares some field names with these three, and
/// the exports of `sessions` itself.
pub fn sniff_agent(path: &Path) -> Option<Agent> {
    sniff(path, true).map(|s| s.agent)
}

/// What [`sniff_format`] finds a file to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    pub agent: Agent,
    /// One JSON document (a legacy Gemini session, a TS-era Codex rollout) rather than JSON
    /// lines.
    pub document: bool,
}

impl Sniffed {
    fn lines(agent: Agent) -> Self {
        Sniffed {
            agent,
            document: false,
        }
    }

    fn document(agent: Agent) -> Self {
        Sniffed {
            agent,
            document: true,
        }
    }
}

/// [`sniff_agent`], with whether the file is one JSON document: what a file named on the
/// command line is read as when its name does not say (`x.txt`, `x.JSONL`, no extension).
pub fn sniff_format(path: &Path) -> Option<Sniffed> {
    sniff(path, true)
}

/// The agent whose session a file holds, judged as [`sniff_agent`] judges it but from the
/// content alone: a file with no record at all (empty, or not JSON) holds no session, whatever
/// its name. The output guard never replaces a file this recognises: one test for "a session"
/// whether a file is read or would be written over.
pub fn holds_session(path: &Path) -> Option<Agent> {
    sniff(path, false).map(|s| s.agent)
}

fn sniff(path: &Path, by_name: bool) -> Option<Sniffed> {
    let name = path.file_name()?.to_string_lossy().to_string();
    let mut reader = io::BufReader::new(read::open(path).ok()?);
    let mut head = Vec::new();
    // A pretty-printed legacy document starts with `{` alone on its line: read enough of it.
    if (&mut reader)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .is_err()
    {
        // A compressed file that fails to decompress (cut, corrupt): when the user named it
        // and its name is a store's, it is read as that agent's so that its parse says what
        // is wrong with it, rather than "not a session".
        return by_name.then(|| by_store_name(&name)).flatten();
    }
    if is_export(&head) {
        return None;
    }
    read::repair_lone_surrogates(&mut head);
    let lines = head
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| l.first() == Some(&b'{'))
        .take(SNIFF_LINES);
    let mut objects = 0;
    for line in lines {
        objects += 1;
        if let Some(agent) = evidence(line) {
            return Some(Sniffed::lines(agent));
        }
    }
    // Whole-document files (pretty-printed, so no single line is a record).
    // When only the head was read this fails: judge by the top-level keys that are visible.
    let doc = serde_json::from_slice::<Value>(&head).ok();
    let text = String::from_utf8_lossy(&head);
    let gemini_doc = match &doc {
        Some(Value::Object(o)) => o.contains_key("sessionId") && o.contains_key("projectHash"),
        _ => text.contains("\"sessionId\"") && text.contains("\"projectHash\""),
    };
    if gemini_doc {
        return Some(Sniffed::document(Agent::Gemini));
    }
    let saved_chat = name.starts_with("checkpoint-")
        && match &doc {
            Some(Value::Object(o)) => o.get("history").is_some_and(Value::is_array),
            Some(Value::Array(a)) => a.iter().all(|c| c.get("role").is_some()),
            None => text.contains("\"history\""),
            _ => false,
        };
    if saved_chat {
        return Some(Sniffed::document(Agent::Gemini));
    }
    let codex_ts = match &doc {
        Some(Value::Object(o)) => {
            o.get("session").is_some_and(Value::is_object)
                && o.get("items").is_some_and(Value::is_array)
        }
        _ => {
            text.contains("\"session\"")
                && text.contains("\"items\"")
                && name.starts_with("rollout-")
        }
    };
    if codex_ts {
        return Some(Sniffed::document(Agent::Codex));
    }
    // The head ends inside a record longer than it (a first prompt with a pasted screenshot).
    let cut_at = head.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let cut = &head[cut_at..];
    if head.len() == SNIFF_BYTES
        && objects <= SNIFF_LINES
        && cut.trim_ascii_start().first() == Some(&b'{')
    {
        return evidence_past_head(reader, cut.to_vec(), objects).map(Sniffed::lines);
    }
    // No record at all (an empty file, as Claude Code leaves behind): nothing contradicts what
    // the name says, and the user named the file.
    if by_name && objects == 0 && doc.is_none() && head.trim_ascii().first() != Some(&b'{') {
        if name.starts_with("rollout-") {
            return Some(Sniffed::lines(Agent::Codex));
        }
        if name.starts_with("session-") {
            return Some(Sniffed::lines(Agent::Gemini));
        }
        if name.ends_with(".jsonl") {
            return Some(Sniffed::lines(Agent::Claude));
        }
    }
    // Content that shows no agent (a document cut short, a first record damaged) in a file
    // named as a store names its sessions: that agent's, so that its parse reports the damage
    // with its line, and `--strict` fails, rather than the file being "not a session".
    if by_name {
        return by_store_name(&name);
    }
    None
}

/// What a file is, from its name alone, when a store names its session files so:
/// `rollout-….jsonl[.zst]` or `.json` (Codex), `session-….json[l]` (Gemini), `<uuid>.jsonl`
/// (Claude); a `.json` name is one document.
fn by_store_name(name: &str) -> Option<Sniffed> {
    let plain = name.strip_suffix(".zst").unwrap_or(name);
    let (stem, lines) = match plain.strip_suffix(".jsonl") {
        Some(stem) => (stem, true),
        None => (plain.strip_suffix(".json")?, false),
    };
    let sniffed = |agent| {
        Some(Sniffed {
            agent,
            document: !lines,
        })
    };
    if stem.starts_with("rollout-") {
        return sniffed(Agent::Codex);
    }
    if stem.starts_with("session-") && !name.ends_with(".zst") {
        return sniffed(Agent::Gemini);
    }
    let uuid = stem.len() == 36
        && stem.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        });
    if uuid && lines && !name.ends_with(".zst") {
        return sniffed(Agent::Claude);
    }
    None
}

/// Whether a file is an export of `sessions` (`export --format json|jsonl`, `show --format
/// json`): its first object opens with the `schema_version` key, which no agent writes.
fn is_export(head: &[u8]) -> bool {
    let rest = head.trim_ascii_start();
    rest.first() == Some(&b'{')
        && rest[1..]
            .trim_ascii_start()
            .starts_with(b"\"schema_version\"")
}

/// [`sniff_agent`]'s look past its head: the record cut at its end (`line`, the part read)
/// read to its end, then the lines after it until [`SNIFF_LINES`] object lines are seen in all
/// (`objects` so far, the cut one among them); one line cap of reading at most.
fn evidence_past_head(
    mut reader: impl BufRead,
    mut line: Vec<u8>,
    mut objects: usize,
) -> Option<Agent> {
    let mut budget = MAX_LINE_BYTES as u64;
    let mut first = true;
    loop {
        let read = (&mut reader)
            .take(budget)
            .read_until(b'\n', &mut line)
            .ok()?;
        budget -= read as u64;
        read::repair_lone_surrogates(&mut line);
        let text = line.trim_ascii();
        if text.first() == Some(&b'{') {
            objects += usize::from(!first);
            if let Some(agent) = evidence(text) {
                return Some(agent);
            }
        }
        if read == 0 || budget == 0 || objects >= SNIFF_LINES {
            return None;
        }
        line.clear();
        first = false;
    }
}

/// The agent one JSONL line positively belongs to, if any: each parser's own rule.
fn evidence(line: &[u8]) -> Option<Agent> {
    if claude::owns(line) {
        return Some(Agent::Claude);
    }
    if codex::owns(line) {
        return Some(Agent::Codex);
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(o)) if gemini::owns(&o) => Some(Agent::Gemini),
        _ => None,
    }
}

/// Open a session file for reading (regular files only; `.zst` decompressed under a cap).
pub fn open(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    read::open(path)
}

/// Read a whole file (decompressing `.zst`) as one JSON document, once: for a file that may
/// not be a document at all (JSONL under a `.json` name, tried as a document last).
pub fn read_document_once(path: &Path) -> Result<Value, Warning> {
    read::read_all(path).and_then(|b| document_of(path, b).map_err(|(w, _)| w))
}

/// How recently a document found cut short must have been written to be taken for one its
/// writer is rewriting ([`WarningKind::TruncatedDocument`], benign) rather than for damage. A
/// rewrite takes milliseconds and every write moves the mtime; a couple of minutes leaves room
/// for a slow disk or a loaded machine and still reports a document a crash left cut short
/// soon after the crash.
pub const REWRITE_WINDOW: std::time::Duration = std::time::Duration::from_secs(120);

/// The waits before each new read of a document found cut short (a writer mid-rewrite is done
/// within milliseconds). Paid only on that failure path.
const REREAD_AFTER: [std::time::Duration; 2] = [
    std::time::Duration::from_millis(25),
    std::time::Duration::from_millis(75),
];

/// Read a whole file (decompressing `.zst`) as one JSON document its writer rewrites whole on
/// every update (legacy Gemini sessions, saved chats, Codex TS-era rollouts). A document caught
/// mid-rewrite is empty, ends inside its JSON, or shrinks while read: it is read again (twice
/// at most, after a short wait). One still cut short is [`WarningKind::TruncatedDocument`]
/// when it was written within [`REWRITE_WINDOW`] (the document form of a live session's
/// partial last line), else malformed as any document that does not parse.
pub fn read_document(path: &Path) -> Result<Value, Warning> {
    reread_document(
        path,
        || read::read_all(path),
        std::thread::sleep,
        || {
            let mtime = std::fs::metadata(path).ok()?.modified().ok()?;
            Some(age_of(mtime, std::time::SystemTime::now()))
        },
    )
}

/// How long ago `mtime` was, either way: a file stamped a little in the future (another
/// machine's clock) is as recent as one stamped a little in the past.
fn age_of(mtime: std::time::SystemTime, now: std::time::SystemTime) -> std::time::Duration {
    now.duration_since(mtime).unwrap_or_else(|e| e.duration())
}

/// [`read_document`] with its reads, waits and the file's age given, so that a document
/// rewritten between two reads can be played in a test.
fn reread_document(
    path: &Path,
    mut read: impl FnMut() -> Result<Vec<u8>, Warning>,
    mut wait: impl FnMut(std::time::Duration),
    age: impl FnOnce() -> Option<std::time::Duration>,
) -> Result<Value, Warning> {
    let mut waits = REREAD_AFTER.iter();
    // Asked once, at the first cut: only a document written within the window can be one its
    // writer is rewriting, so an old one cut short is damage at once, with no wait (a store of
    // many damaged documents costs no sleep).
    let recent = std::cell::LazyCell::new(|| age().is_some_and(|a| a <= REWRITE_WINDOW));
    loop {
        let (warning, cut) = match read().map(|b| document_of(path, b)) {
            Ok(Ok(doc)) => return Ok(doc),
            Ok(Err(failed)) => failed,
            Err(w) => {
                let shrank = w.kind == WarningKind::ShrankWhileRead;
                (w, shrank)
            }
        };
        if !cut {
            return Err(warning);
        }
        if !*recent {
            return Err(warning);
        }
        match waits.next() {
            Some(&d) => wait(d),
            None if warning.kind != WarningKind::MalformedDocument => return Err(warning),
            None => {
                return Err(Warning::new(
                    WarningKind::TruncatedDocument,
                    path,
                    warning.line,
                    format!(
                        "document cut short (empty, or ends inside its JSON) on {} reads, written \
                         less than {} s ago: being rewritten? not read",
                        REREAD_AFTER.len() + 1,
                        REWRITE_WINDOW.as_secs()
                    ),
                ));
            }
        }
    }
}

/// One read's bytes as a document: the warning when they are not one, and whether they are
/// cut short (empty or ending inside the JSON: what a writer mid-rewrite leaves).
fn document_of(path: &Path, mut buf: Vec<u8>) -> Result<Value, (Warning, bool)> {
    read::repair_lone_surrogates(&mut buf);
    serde_json::from_slice(&buf).map_err(|e| {
        let w = Warning::new(
            WarningKind::MalformedDocument,
            path,
            Some(e.line() as u64),
            format!("not a valid JSON document: {e}"),
        );
        (w, e.is_eof())
    })
}

pub fn unreadable(path: &Path, e: &io::Error) -> Warning {
    read::unreadable(path, e)
}

/// Records read as untyped JSON objects (parsers not yet typed, and tests).
pub struct ValueRecords;

impl Records for ValueRecords {
    type Rec<'a> = serde_json::Map<String, Value>;
}

/// Stream a JSONL file: call `f(line_number, object)` for every line that is a JSON object,
/// with the skipping and warnings of [`for_each_record`].
pub fn for_each_json_line(
    path: &Path,
    reader: impl Read,
    warnings: &mut Vec<Warning>,
    mut f: impl FnMut(u64, serde_json::Map<String, Value>),
) {
    for_each_record::<ValueRecords>(path, reader, warnings, |n, m, _| f(n, m));
}

pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The years (UTC) a recorded time may fall in: what RFC 3339 can write. Every later step moves
/// a time by a few days at most (a zone's offset, a 5-hour block, the start of its week, the
/// end of its day or month), and chrono reaches some 262,000 years either way: inside this range
/// none of that can overflow. A time outside it (`+275760-…`, epoch 1e20) is a damaged field,
/// not a date, and reads as a time that is not there, with a warning ([`BadTime`]).
pub const YEARS: std::ops::RangeInclusive<i32> = 1..=9999;

fn in_range(t: DateTime<Utc>) -> Option<DateTime<Utc>> {
    use chrono::Datelike;
    YEARS.contains(&t.year()).then_some(t)
}

/// What a timestamp field held instead of a time, for the warning that says so: the record is
/// still read, only its time is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTime(Box<str>);

impl BadTime {
    /// A string that is not a time, quoted (escapes shown) and cut to a readable length.
    pub fn text(s: &str) -> BadTime {
        const MAX: usize = 40;
        let cut: String = s.chars().take(MAX).collect();
        let more = if s.chars().nth(MAX).is_some() {
            "…"
        } else {
            ""
        };
        BadTime(format!("{cut:?}{more}").into())
    }

    /// A number outside [`YEARS`] as epoch seconds or milliseconds.
    pub fn number(n: impl std::fmt::Display) -> BadTime {
        BadTime(n.to_string().into())
    }

    /// A value of another JSON kind (`boolean`, `array`, `object`).
    pub fn kind(kind: &str) -> BadTime {
        BadTime(format!("a JSON {kind}").into())
    }

    /// The warning for the field `what` names (`` `timestamp` ``, `` `timestamp` of message
    /// m1 ``) in the record at `path:line`.
    pub fn warning(&self, path: &Path, line: Option<u64>, what: &str) -> Warning {
        Warning::new(
            WarningKind::UnexpectedRecord,
            path,
            line,
            format!(
                "{what} holds {}, not a time (RFC 3339, or epoch seconds or milliseconds, in \
                 the years 1 to 9999): the record is read, its time unknown",
                self.0
            ),
        )
    }
}

/// A timestamp field's value: RFC 3339 strings, or epoch numbers (seconds or milliseconds), in
/// [`YEARS`]. `null` is no time recorded (`Ok(None)`); anything else that names no time
/// (placeholders such as the schema fixtures' `"[trimmed for fixture]"` included) is a
/// [`BadTime`].
pub fn read_time(v: &Value) -> Result<Option<DateTime<Utc>>, BadTime> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => parse_time_str(s).map(Some).ok_or_else(|| BadTime::text(s)),
        Value::Number(n) => n
            .as_f64()
            .and_then(time_from_number)
            .map(Some)
            .ok_or_else(|| BadTime::number(n)),
        other => Err(BadTime::kind(json_kind(other))),
    }
}

/// [`read_time`] where a value that is not a time needs no warning (it was given already).
pub fn parse_time(v: &Value) -> Option<DateTime<Utc>> {
    read_time(v).ok().flatten()
}

/// Epoch seconds or milliseconds, in [`YEARS`]. Heuristic cut-over: anything past year 2286 in
/// seconds is milliseconds.
pub fn time_from_number(x: f64) -> Option<DateTime<Utc>> {
    let ms = if x > 1e11 { x } else { x * 1000.0 };
    Utc.timestamp_millis_opt(ms as i64)
        .single()
        .and_then(in_range)
}

/// `v[key]` as a string slice, if it is one.
pub fn str_field<'a>(v: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A JSON number (or numeric string) as u64; negative, missing or null → 0.
pub fn u64_of(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f > 0.0).map(|f| f as u64))
            .unwrap_or(0),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
        _ => 0,
    }
}

/// Decoded size of base64 data without decoding it.
pub fn base64_decoded_len(data: &str) -> u64 {
    let trimmed = data.trim_end_matches('=');
    (trimmed.len() as u64 * 3) / 4
}

/// 64-bit hash of a string, for compact membership sets (record uuids). A fast
/// non-cryptographic hash, fixed within a run, which is all these sets need.
pub fn hash64(s: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(s)
}

/// Shorten text for single-line display: first line-ish, whitespace collapsed, cut at `max`
/// characters with an ellipsis.
pub fn preview(text: &str, max: usize) -> String {
    // Grown from nothing, a preview of 60 characters was reallocated five times.
    let mut out = String::with_capacity(text.len().min(max.saturating_add(1).saturating_mul(4)));
    let mut count = 0;
    let mut last_space = false;
    for c in text.chars() {
        let c = if c.is_whitespace() { ' ' } else { c };
        if c == ' ' {
            if last_space || out.is_empty() {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        if count == max {
            out.push('…');
            break;
        }
        out.push(c);
        count += 1;
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    const FULL: &[u8] = b"{\"sessionId\": \"g\", \"messages\": [{\"type\": \"user\"}]}";

    /// Plays the reads of a document that a writer rewrites: each read returns the next of
    /// `reads` (the last one again when they run out); the waits between them are recorded,
    /// not slept.
    fn reread(reads: &[&[u8]], age: Option<Duration>) -> (Result<Value, Warning>, Vec<Duration>) {
        let mut next = reads.iter();
        let mut last: &[u8] = b"";
        let mut waits = Vec::new();
        let got = reread_document(
            Path::new("session-x.json"),
            || {
                last = next.next().copied().unwrap_or(last);
                Ok(last.to_vec())
            },
            |d| waits.push(d),
            || age,
        );
        (got, waits)
    }

    #[test]
    fn a_document_caught_mid_rewrite_is_read_again() {
        for cut in [&b""[..], b"  \n", &FULL[..20]] {
            let (got, waits) = reread(&[cut, FULL], Some(Duration::ZERO));
            assert_eq!(got.unwrap()["sessionId"], "g", "{cut:?}");
            assert_eq!(waits.len(), 1);
            let (got, waits) = reread(&[cut, cut, FULL], Some(Duration::ZERO));
            assert!(got.is_ok(), "{cut:?}");
            assert_eq!(waits.len(), 2);
        }
        // Damage that is not a cut at the end is not read again.
        let (got, waits) = reread(&[b"{\"sessionId\": }", FULL], Some(Duration::ZERO));
        assert_eq!(got.unwrap_err().kind, WarningKind::MalformedDocument);
        assert!(waits.is_empty());
    }

    #[test]
    fn a_document_still_cut_short_is_benign_only_when_just_written() {
        for cut in [&b""[..], &FULL[..20]] {
            let recent = reread(&[cut], Some(Duration::from_secs(5))).0.unwrap_err();
            assert_eq!(recent.kind, WarningKind::TruncatedDocument, "{cut:?}");
            assert!(recent.kind.is_benign());
            assert_eq!(recent.path, Path::new("session-x.json"));
            let edge = reread(&[cut], Some(REWRITE_WINDOW)).0.unwrap_err();
            assert_eq!(edge.kind, WarningKind::TruncatedDocument);
            // An old one is damage, told at once: no read again, no wait.
            for age in [Some(REWRITE_WINDOW + Duration::from_secs(1)), None] {
                let (old, waits) = reread(&[cut, FULL], age);
                assert_eq!(
                    old.unwrap_err().kind,
                    WarningKind::MalformedDocument,
                    "{cut:?} {age:?}"
                );
                assert!(waits.is_empty(), "{cut:?} {age:?}");
            }
        }
        let now = std::time::SystemTime::now();
        let ahead = now + Duration::from_secs(3);
        assert_eq!(age_of(ahead, now), Duration::from_secs(3));
        assert_eq!(
            age_of(now - Duration::from_secs(3), now),
            Duration::from_secs(3)
        );
    }

    #[test]
    fn a_document_that_shrinks_on_every_read_stays_serious() {
        let mut reads = 0;
        let got = reread_document(
            Path::new("d.json"),
            || {
                reads += 1;
                Err(Warning::new(
                    WarningKind::ShrankWhileRead,
                    Path::new("d.json"),
                    None,
                    "shrank",
                ))
            },
            |_| {},
            || Some(Duration::ZERO),
        );
        assert_eq!(got.unwrap_err().kind, WarningKind::ShrankWhileRead);
        assert_eq!(reads, REREAD_AFTER.len() + 1);
    }

    #[test]
    fn times_parse_in_every_shape() {
        assert!(parse_time(&Value::from("2025-09-03T00:52:31.217Z")).is_some());
        assert!(parse_time(&Value::from("[trimmed for fixture]")).is_none());
        let ms = parse_time(&Value::from(1_700_000_000_000u64)).unwrap();
        let s = parse_time(&Value::from(1_700_000_000u64)).unwrap();
        assert_eq!(ms, s);
    }

    /// Years 1 to 9999 and nothing else, whichever way a time is written: beyond them a zone's
    /// offset or a 5-hour block reached past chrono's last day (epoch ms 8210266876799999 is
    /// +262142-12-31T23:59:59.999Z, and `usage`, `show` panicked on it).
    #[test]
    fn times_outside_years_1_to_9999_are_not_times() {
        let rfc = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        for (v, want) in [
            (json!("0001-01-01T00:00:00Z"), "0001-01-01T00:00:00.000Z"),
            (
                json!("9999-12-31T23:59:59.999Z"),
                "9999-12-31T23:59:59.999Z",
            ),
            (json!(253_402_300_799_999u64), "9999-12-31T23:59:59.999Z"),
            (json!(-62_135_596_800i64), "0001-01-01T00:00:00.000Z"),
            (json!("2262-04-12T00:30:00Z"), "2262-04-12T00:30:00.000Z"),
            (json!(-1), "1969-12-31T23:59:59.000Z"),
        ] {
            assert_eq!(parse_time(&v).map(rfc).as_deref(), Some(want), "{v}");
        }
        for v in [
            json!(8_210_266_876_799_999u64),
            json!(-8_210_298_412_800i64),
            json!(253_402_300_800_000u64),
            json!(1e20),
            json!(i64::MIN),
            json!(u64::MAX),
            json!("+275760-09-13T00:00:00Z"),
            json!("-0001-01-01T00:00:00Z"),
            json!("0001-01-01T00:00:00+01:00"),
            json!("10000-01-01T00:00:00"),
        ] {
            assert_eq!(parse_time(&v), None, "{v}");
        }
    }

    /// What a timestamp field holds: a time, none (`null`), or something else to warn about.
    #[test]
    fn a_field_that_names_no_time_says_what_it_held() {
        assert_eq!(read_time(&Value::Null), Ok(None));
        assert!(read_time(&json!("2026-06-01T10:00:00Z")).unwrap().is_some());
        let held = |v: Value| {
            let w =
                read_time(&v)
                    .unwrap_err()
                    .warning(Path::new("f.jsonl"), Some(3), "`timestamp`");
            assert_eq!(w.kind, WarningKind::UnexpectedRecord);
            w.to_string()
        };
        assert_eq!(
            held(json!("yesterday-ish")),
            "f.jsonl:3: `timestamp` holds \"yesterday-ish\", not a time (RFC 3339, or epoch \
             seconds or milliseconds, in the years 1 to 9999): the record is read, its time unknown"
        );
        assert!(held(json!(true)).contains("holds a JSON boolean,"));
        assert!(held(json!([])).contains("holds a JSON array,"));
        assert!(held(json!({})).contains("holds a JSON object,"));
        assert!(held(json!(1e20)).contains("holds 1e+20,"));
        assert!(held(json!(8_210_266_876_799_999u64)).contains("holds 8210266876799999,"));
        // Cut, and control characters escaped, however long and odd the value.
        let long = held(json!(format!("\u{1b}[31m{}", "x".repeat(100))));
        assert!(
            long.contains(r#"holds "\u{1b}[31mxxxx"#) && long.contains("x\"…,"),
            "{long}"
        );
    }

    /// A first prompt with a pasted screenshot: one line longer than the head read for lines.
    #[test]
    fn a_first_record_longer_than_the_head_is_sniffed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp
            .path()
            .join("bbbbbbbb-0000-4000-8000-000000000001.jsonl");
        let image = "A".repeat(400_000);
        let line = format!(
            "{{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\
             \"sessionId\":\"bbbbbbbb-0000-4000-8000-000000000001\",\
             \"timestamp\":\"2026-01-01T00:00:01Z\",\"cwd\":\"/p\",\
             \"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"image\",\
             \"source\":{{\"type\":\"base64\",\"media_type\":\"image/png\",\
             \"data\":\"{image}\"}}}}]}}}}\n"
        );
        assert!(claude::owns(line.trim_ascii_end().as_bytes()));
        std::fs::write(&path, &line).unwrap();
        assert_eq!(sniff_agent(&path), Some(Agent::Claude));
        // Cut short (a session being written): no record is complete, none is evidence.
        std::fs::write(&path, &line[..300_000]).unwrap();
        assert_eq!(sniff_agent(&path), None);
    }

    #[test]
    fn preview_collapses_and_cuts() {
        assert_eq!(preview("  a\n\n b  c ", 10), "a b c");
        assert_eq!(preview("héllo wörld", 5), "héllo…");
    }
}
