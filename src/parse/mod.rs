//! Parsers: one module per agent, each turning one file into one [`Session`].
//!
//! Shared here: how a file is opened (plain or zstd), how JSONL is streamed line by line with
//! every bad line counted, and the small value helpers all three formats need.

pub mod claude;
pub mod codex;
pub mod gemini;
pub mod subagents;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;

use crate::diag::{Warning, WarningKind};
use crate::model::{Agent, Session};

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
}

impl SourceFile {
    pub fn new(agent: Agent, path: PathBuf, role: FileRole) -> Self {
        let (size, mtime) = match std::fs::metadata(&path) {
            Ok(m) => (m.len(), m.modified().ok().map(DateTime::<Utc>::from)),
            Err(_) => (0, None),
        };
        SourceFile {
            agent,
            path,
            role,
            size,
            mtime,
            project_dir: None,
        }
    }
}

/// Parse one file into a session. An `Err` is a file that could not be read at all; everything
/// short of that (bad lines, odd records) is a warning inside the session.
pub fn parse_file(file: &SourceFile) -> Result<Session, Warning> {
    let mut session = match file.agent {
        Agent::Claude => claude::parse(file),
        Agent::Codex => codex::parse(file),
        Agent::Gemini => gemini::parse(file),
    }?;
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
    Ok(session)
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

/// Guess the agent of a file named on the command line from its first record.
pub fn sniff_agent(path: &Path) -> Option<Agent> {
    let name = path.file_name()?.to_string_lossy().to_string();
    let mut reader = open(path).ok()?;
    let mut head = Vec::new();
    // A pretty-printed Gemini legacy document starts with `{` alone on its line: read enough.
    reader
        .by_ref()
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    let text = String::from_utf8_lossy(&head);
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(first_line) {
        if o.contains_key("payload") && o.contains_key("type") {
            return Some(Agent::Codex);
        }
        if o.contains_key("sessionId") && o.contains_key("projectHash") {
            return Some(Agent::Gemini);
        }
        if o.contains_key("id") && o.contains_key("instructions") {
            return Some(Agent::Codex);
        }
        if o.contains_key("parentUuid")
            || o.contains_key("uuid")
            || o.contains_key("leafUuid")
            || o.get("type").and_then(Value::as_str).is_some_and(|t| {
                matches!(
                    t,
                    "summary" | "user" | "assistant" | "system" | "file-history-snapshot"
                )
            })
        {
            return Some(Agent::Claude);
        }
        if o.contains_key("id") && o.contains_key("timestamp") {
            return Some(Agent::Codex);
        }
    }
    // Whole-document files.
    if text.contains("\"projectHash\"")
        || text.contains("\"history\"") && name.starts_with("checkpoint-")
    {
        return Some(Agent::Gemini);
    }
    if text.contains("\"session\"") && text.contains("\"items\"") {
        return Some(Agent::Codex);
    }
    if name.starts_with("rollout-") {
        return Some(Agent::Codex);
    }
    if name.starts_with("session-") {
        return Some(Agent::Gemini);
    }
    if name.ends_with(".jsonl") {
        return Some(Agent::Claude);
    }
    None
}

/// Open a file for reading, transparently decompressing `.zst`.
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead>> {
    let file = File::open(path)?;
    if path.extension().is_some_and(|e| e == "zst") {
        let dec = zstd::stream::read::Decoder::new(file)?;
        Ok(Box::new(BufReader::with_capacity(256 * 1024, dec)))
    } else {
        Ok(Box::new(BufReader::with_capacity(256 * 1024, file)))
    }
}

/// Read a whole file (decompressing `.zst`) as one JSON document.
pub fn read_document(path: &Path) -> Result<Value, Warning> {
    let mut reader = open(path).map_err(|e| unreadable(path, &e))?;
    let mut buf = Vec::new();
    reader
        .read_to_end(&mut buf)
        .map_err(|e| unreadable(path, &e))?;
    serde_json::from_slice(&buf).map_err(|e| {
        Warning::new(
            WarningKind::MalformedDocument,
            path,
            Some(e.line() as u64),
            format!("not a valid JSON document: {e}"),
        )
    })
}

pub fn unreadable(path: &Path, e: &io::Error) -> Warning {
    Warning::new(
        WarningKind::Unreadable,
        path,
        None,
        format!("cannot read: {e}"),
    )
}

/// Stream a JSONL file: call `f(line_number, object)` for every line that is a JSON object.
/// Blank lines are ignored; anything else is skipped and recorded in `warnings` with its line
/// number. A final line without a newline that does not parse is a live session mid-write and
/// is recorded as [`WarningKind::TruncatedLastLine`].
///
/// Memory stays at one line at a time. An I/O error mid-file ends the stream with a warning.
pub fn for_each_json_line(
    path: &Path,
    mut reader: impl BufRead,
    warnings: &mut Vec<Warning>,
    mut f: impl FnMut(u64, serde_json::Map<String, Value>),
) {
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut line_no = 0u64;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                warnings.push(Warning::new(
                    WarningKind::Unreadable,
                    path,
                    Some(line_no + 1),
                    format!("read error, rest of file skipped: {e}"),
                ));
                break;
            }
        }
        line_no += 1;
        let complete = buf.last() == Some(&b'\n');
        let line = trim_ascii(&buf);
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(map)) => f(line_no, map),
            Ok(other) => warnings.push(Warning::new(
                WarningKind::UnexpectedRecord,
                path,
                Some(line_no),
                format!("skipped a JSON {} that is not an object", json_kind(&other)),
            )),
            Err(e) => {
                let (kind, msg) = if complete {
                    (
                        WarningKind::MalformedLine,
                        format!("skipped malformed line: {e}"),
                    )
                } else {
                    (
                        WarningKind::TruncatedLastLine,
                        "last line is incomplete (session still being written?)".to_string(),
                    )
                };
                warnings.push(Warning::new(kind, path, Some(line_no), msg));
            }
        }
    }
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end]
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

/// Parse a timestamp: RFC 3339 strings, or epoch numbers (seconds or milliseconds). Placeholder
/// strings (schema fixtures) yield `None`.
pub fn parse_time(v: &Value) -> Option<DateTime<Utc>> {
    match v {
        Value::String(s) => parse_time_str(s),
        Value::Number(n) => {
            let x = n.as_f64()?;
            // Heuristic cut-over: anything past year 2286 in seconds is milliseconds.
            let ms = if x > 1e11 { x } else { x * 1000.0 };
            Utc.timestamp_millis_opt(ms as i64).single()
        }
        _ => None,
    }
}

pub fn parse_time_str(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.with_timezone(&Utc))
        .or_else(|| {
            // Some writers omit the offset; treat those as UTC.
            chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|n| n.and_utc())
        })
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

/// 64-bit hash of a string, for compact membership sets (record uuids).
pub fn hash64(s: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    // DefaultHasher with fixed keys: stable within a run, which is all we need.
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(s)
}

/// Shorten text for single-line display: first line-ish, whitespace collapsed, cut at `max`
/// characters with an ellipsis.
pub fn preview(text: &str, max: usize) -> String {
    let mut out = String::new();
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
            return out.trim_end().to_string();
        }
        out.push(c);
        count += 1;
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_not_fatal() {
        let data = b"{\"a\":1}\n\nnot json\n[1,2]\n{\"b\":2}\n{\"trunc";
        let mut w = Vec::new();
        let mut seen = Vec::new();
        for_each_json_line(Path::new("x.jsonl"), &data[..], &mut w, |n, _| seen.push(n));
        assert_eq!(seen, vec![1, 5]);
        let kinds: Vec<_> = w.iter().map(|w| (w.kind, w.line)).collect();
        assert_eq!(
            kinds,
            vec![
                (WarningKind::MalformedLine, Some(3)),
                (WarningKind::UnexpectedRecord, Some(4)),
                (WarningKind::TruncatedLastLine, Some(6)),
            ]
        );
    }

    #[test]
    fn times_parse_in_every_shape() {
        assert!(parse_time(&Value::from("2025-09-03T00:52:31.217Z")).is_some());
        assert!(parse_time(&Value::from("[trimmed for fixture]")).is_none());
        let ms = parse_time(&Value::from(1_700_000_000_000u64)).unwrap();
        let s = parse_time(&Value::from(1_700_000_000u64)).unwrap();
        assert_eq!(ms, s);
    }

    #[test]
    fn preview_collapses_and_cuts() {
        assert_eq!(preview("  a\n\n b  c ", 10), "a b c");
        assert_eq!(preview("héllo wörld", 5), "héllo…");
    }
}
