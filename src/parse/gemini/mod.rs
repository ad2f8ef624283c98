//! Gemini CLI parser (`formats.md` §3).
//!
//! Three file shapes, one engine:
//! - legacy `.json` (≤ v0.38): one pretty `ConversationRecord` document;
//! - JSONL (v0.39+): an append-only event log of metadata lines, message upserts,
//!   `$set` patches (`$set.messages` = checkpoint) and `$rewindTo` truncations;
//! - `/chat save` files `checkpoint-<tag>.json`: `{history: Content[]}` or a bare `Content[]`.
//!
//! Every message ever recorded is kept, in the order it was first seen; messages that a
//! checkpoint or rewind removed from the live history are marked `superseded`. Compression
//! traces (`<state_snapshot>` checkpoints, "Context compressed…" notices, `/compress`,
//! tool-output masking) become [`Compaction`](crate::model::Compaction) events with a marker message.

mod content;
mod log;
mod records;

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::diag::{Warning, WarningKind};
use crate::model::Session;
use crate::parse::json::{self, Detail, Obj, detail, with_detail};
use crate::parse::{self, FileRole, Records, SourceFile, str_field};

use log::Log;

struct Lines;

impl Records for Lines {
    // Read into its box in place (`boxed_record!`), as Codex's records are: a large record is
    // not copied on its way from serde to the log.
    type Rec<'a> = Box<records::G>;
}

/// Stable id of the environment-context user turn (first 32 hex of sha256("environment-context")).
const ENV_CONTEXT_ID: &str = "d04923d38bb0f6017037e74183378ef4";
/// The model turn that follows a compression summary.
const SNAPSHOT_ACK: &str = "Got it. Thanks for the additional context!";
const SNAPSHOT_TAG: &str = "<state_snapshot>";
const MASK_TAG: &str = "<tool_output_masked";
/// `<state_snapshot>` sections: the v0.26+ set followed by the pre-v0.26 `current_plan`.
const SECTION_TAGS: [&str; 8] = [
    "overall_goal",
    "active_constraints",
    "key_knowledge",
    "artifact_trail",
    "file_system_state",
    "recent_actions",
    "task_state",
    "current_plan",
];
/// Keys of the experimental context manager's JSON-object snapshots (`isSnapshotState`).
const JSON_SNAPSHOT_KEYS: [&str; 4] = [
    "active_tasks",
    "discovered_facts",
    "constraints_and_preferences",
    "recent_arc",
];

/// What the file is, from its role and name.
enum Ident {
    Main,
    Subagent { parent: String },
    SavedChat { tag: String },
}

/// Whether one JSONL record is a Gemini CLI metadata line (or a whole legacy record on one
/// line): the positive evidence a `.jsonl` file is a Gemini session.
pub(crate) fn owns(o: &Map<String, Value>) -> bool {
    (str_field(o, "sessionId").is_some() && str_field(o, "projectHash").is_some())
        || log::is_message_record(o)
}

pub fn parse(file: &SourceFile) -> Result<Session, Warning> {
    let s = parse_view(file)?;
    match s {
        View::Done(s) => Ok(s),
        // The summary view read tool bodies as skeletons; a checkpoint or a compression
        // snapshot estimates token counts from them, so such a file is read again whole.
        View::NeedsBodies => with_detail(Detail::Full, || match parse_view(file)? {
            View::Done(s) => Ok(s),
            View::NeedsBodies => unreachable!("the full view never needs more"),
        }),
    }
}

// One value per file, moved once: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum View {
    Done(Session),
    NeedsBodies,
}

/// A JSONL line's record, deserialised by a caller from its own tree of the line: see
/// [`view_with`].
pub struct TreeRecord(Box<records::G>);

impl TreeRecord {
    /// The record of a line from a deserialiser over the caller's tree of it; `None` when the
    /// line is not an object or its record does not deserialise (its text is then decoded as
    /// usual, with the usual warnings).
    pub fn from_tree<'de, D: serde::Deserializer<'de>>(d: D) -> Option<TreeRecord> {
        match json::from_tree(|| Obj::<Box<records::G>>::deserialize(d)) {
            Ok(Obj::Is(g)) => Some(TreeRecord(g)),
            _ => None,
        }
    }
}

/// The summary view of a JSONL session that the caller reads (`src`), taking each line's record
/// from `pre` when it gives one (else decoding the line's text), so that a caller that reads
/// every line its own way (the replay, into the record Gemini CLI resumes) does not have each
/// line deserialised twice. `None` for anything [`parse()`] would not read as a JSONL log with
/// its metadata line (documents, saved chats, legacy fallbacks) and for a view that needs the
/// bodies: the caller then uses [`parse()`].
pub fn view_with(
    file: &SourceFile,
    src: impl std::io::Read,
    mut pre: impl FnMut(&[u8]) -> Option<TreeRecord>,
) -> Option<Session> {
    let (stem, is_json_doc, ident) = identify(file);
    if is_json_doc || matches!(ident, Ident::SavedChat { .. }) {
        return None;
    }
    with_detail(Detail::Summary, || {
        let log = read_log(&file.path, src, &stem, ident, |line| pre(line).map(|t| t.0));
        if !log.has_metadata() {
            return None;
        }
        match log.finish_view() {
            View::Done(s) => Some(s),
            View::NeedsBodies => None,
        }
    })
}

/// What a file is from its name and role: its stem, whether it is one JSON document, and
/// whose it is.
fn identify(file: &SourceFile) -> (String, bool, Ident) {
    let path = file.path.as_path();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = name.strip_suffix(".zst").unwrap_or(&name);
    let (stem, is_json_doc) = match base.strip_suffix(".jsonl") {
        Some(s) => (s.to_string(), false),
        None => match base.strip_suffix(".json") {
            Some(s) => (s.to_string(), true),
            None => (base.to_string(), false),
        },
    };
    let ident = match &file.role {
        FileRole::GeminiCheckpoint => saved_chat_ident(&stem),
        FileRole::GeminiSubagent { parent_session } => Ident::Subagent {
            parent: parent_session.clone(),
        },
        FileRole::GeminiSession => Ident::Main,
        _ if stem.starts_with("checkpoint-") => saved_chat_ident(&stem),
        _ => subagent_by_shape(path).unwrap_or(Ident::Main),
    };
    (stem, is_json_doc, ident)
}

fn parse_view(file: &SourceFile) -> Result<View, Warning> {
    let path = file.path.as_path();
    let (stem, is_json_doc, ident) = identify(file);
    if matches!(ident, Ident::SavedChat { .. }) {
        let doc = parse::read_document(path)?;
        return Ok(View::Done(saved_chat(path, &stem, ident, doc)));
    }
    if is_json_doc {
        return match parse::read_document(path) {
            Ok(doc) => Ok(View::Done(document(path, &stem, ident, doc))),
            Err(doc_err) => {
                // Not one document: maybe JSONL under a `.json` name.
                let log = read_log(path, open(path)?, &stem, ident, |_| None);
                if log.has_metadata() {
                    Ok(log.finish_view())
                } else {
                    Err(doc_err)
                }
            }
        };
    }
    let log = read_log(path, open(path)?, &stem, ident, |_| None);
    if log.has_metadata() {
        return Ok(log.finish_view());
    }
    // No sessionId + projectHash: Gemini falls back to reading a legacy document.
    if let Ok(doc) = parse::read_document_once(path) {
        let is_record = match &doc {
            Value::Object(o) => {
                o.get("messages").is_some_and(Value::is_array)
                    || o.get("history").is_some_and(Value::is_array)
                    || str_field(o, "sessionId").is_some()
            }
            Value::Array(_) => true,
            _ => false,
        };
        if is_record {
            return Ok(View::Done(document(path, &stem, log.ident, doc)));
        }
    }
    let mut log = log;
    if log.lines_seen() > 0 {
        if log.own_records() == 0 {
            return Err(Warning::new(
                WarningKind::UnexpectedRecord,
                path,
                None,
                "not a Claude/Codex/Gemini session: no Gemini CLI record in this file (another agent's transcript?); skipped",
            ));
        }
        log.warn(
            WarningKind::Inconsistent,
            None,
            "no metadata line with sessionId and projectHash".to_string(),
        );
    }
    Ok(log.finish_view())
}

fn saved_chat_ident(stem: &str) -> Ident {
    let raw = stem.strip_prefix("checkpoint-").unwrap_or(stem);
    Ident::SavedChat {
        tag: percent_decode(raw),
    }
}

/// `…/chats/<parent>/<agent>.json[l]` named on the command line is a sub-agent file.
fn subagent_by_shape(path: &Path) -> Option<Ident> {
    let parent = path.parent()?;
    let grand = parent.parent()?;
    if grand.file_name()? != "chats" {
        return None;
    }
    Some(Ident::Subagent {
        parent: parent.file_name()?.to_string_lossy().into_owned(),
    })
}

/// Decode `encodeURIComponent` escapes; the raw text if they do not decode to UTF-8.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

fn open(path: &Path) -> Result<impl std::io::Read, Warning> {
    parse::open(path).map_err(|e| parse::unreadable(path, &e))
}

fn read_log(
    path: &Path,
    src: impl std::io::Read,
    stem: &str,
    ident: Ident,
    pre: impl FnMut(&[u8]) -> Option<Box<records::G>>,
) -> Log {
    let mut log = Log::new(path, stem, ident);
    log.skeletons = detail() == Detail::Summary;
    let mut warnings = Vec::new();
    parse::for_each_record_pre::<Lines>(path, src, &mut warnings, pre, |n, g, raw| {
        log.line(n, g.into_line(raw))
    });
    // Line warnings first, then what the log itself found, in line order.
    warnings.append(&mut log.session.warnings);
    warnings.sort_by_key(|w| w.line.unwrap_or(0));
    log.session.warnings = warnings;
    log
}

/// A legacy `ConversationRecord` (or anything else that is one JSON document).
fn document(path: &Path, stem: &str, ident: Ident, doc: Value) -> Session {
    let is_saved_chat = match &doc {
        Value::Array(_) => true,
        Value::Object(o) => {
            o.get("history").is_some_and(Value::is_array) && !o.contains_key("messages")
        }
        _ => false,
    };
    if is_saved_chat {
        // A `/chat save` history under another name.
        let ident = match ident {
            Ident::Main => saved_chat_ident(stem),
            other => other,
        };
        return saved_chat(path, stem, ident, doc);
    }
    let mut log = Log::new(path, stem, ident);
    log.document = true;
    match doc {
        // A document is read whole: it is one value already, nothing to skip through.
        Value::Object(map) => {
            match with_detail(Detail::Full, || {
                <Box<records::G>>::deserialize(Value::Object(map))
            }) {
                Ok(g) => log.metadata(0, g.into_meta()),
                Err(e) => log.warn(
                    WarningKind::UnexpectedRecord,
                    None,
                    format!("unreadable session document: {e}"),
                ),
            }
        }
        other => log.warn(
            WarningKind::UnexpectedRecord,
            None,
            format!(
                "document is a JSON {}, not a session",
                parse::json_kind(&other)
            ),
        ),
    }
    log.finish()
}

/// A `/chat save` file: `{history: Content[], authType}` or a bare `Content[]`.
fn saved_chat(path: &Path, stem: &str, ident: Ident, doc: Value) -> Session {
    let mut log = Log::new(path, stem, ident);
    let history = match doc {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("history") {
            Some(Value::Array(a)) => a,
            _ => {
                log.warn(
                    WarningKind::UnexpectedRecord,
                    None,
                    "saved chat has no `history` array".to_string(),
                );
                Vec::new()
            }
        },
        other => {
            log.warn(
                WarningKind::UnexpectedRecord,
                None,
                format!("saved chat is a JSON {}", parse::json_kind(&other)),
            );
            Vec::new()
        }
    };
    for (k, content) in history.into_iter().enumerate() {
        let Value::Object(c) = content else {
            log.warn(
                WarningKind::UnexpectedRecord,
                None,
                format!("history entry {k} is not an object"),
            );
            continue;
        };
        let typ = match str_field(&c, "role") {
            Some("user") => "user".to_string(),
            Some("model") => "gemini".to_string(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let rec = records::MsgIn {
            id: None,
            timestamp: None,
            tokens: None,
            rec: records::Rec {
                typ: Some(Value::String(typ)),
                content: Some(c.get("parts").cloned().unwrap_or(Value::Null)),
                ..records::Rec::default()
            },
        };
        let idx = log.message(0, format!("{stem}#{k}"), rec, false);
        log.entries[idx].synthetic_id = true;
    }
    log.finish()
}

#[cfg(test)]
mod tests;
