//! JSON and JSONL exports. JSON is the unified session exactly as `show --format json` prints
//! it ([`SessionDocument`]); JSONL is one record per message, each carrying the session's
//! identity so the lines of many sessions can be concatenated.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::{Compaction, Message, Part, Session};
use crate::render::json::{SCHEMA_VERSION, SessionDocument};

use super::IndexEntry;

/// One line of `export --format jsonl`.
#[derive(Debug, Serialize)]
pub struct MessageRecord<'a> {
    pub schema_version: u32,
    pub agent: &'static str,
    pub session_id: &'a str,
    /// Position of the message in the session (0-based).
    pub index: usize,
    #[serde(flatten)]
    pub message: &'a Message,
    /// For a compaction marker message: the compaction it marks, in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<&'a Compaction>,
}

fn to_io(e: serde_json::Error) -> io::Error {
    io::Error::other(e)
}

pub fn write_json(out: &mut dyn Write, s: &Session) -> io::Result<()> {
    let doc = SessionDocument::new(s);
    let mut out = buffered(out);
    serde_json::to_writer_pretty(&mut out, &doc).map_err(to_io)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// `serde_json` writes a value in many small pieces (a key, a quote, each escape): through a
/// buffer of a concrete type they are copies the compiler inlines, not a dynamic call each.
fn buffered(out: &mut dyn Write) -> io::BufWriter<&mut dyn Write> {
    io::BufWriter::with_capacity(64 * 1024, out)
}

pub fn write_jsonl(out: &mut dyn Write, s: &Session) -> io::Result<()> {
    let mut out = buffered(out);
    for (index, m) in s.messages.iter().enumerate() {
        let compaction = m.parts.iter().find_map(|p| match p {
            Part::Compaction { index } => s.compactions.get(*index),
            _ => None,
        });
        let rec = MessageRecord {
            schema_version: SCHEMA_VERSION,
            agent: s.agent.as_str(),
            session_id: &s.id,
            index,
            message: m,
            compaction,
        };
        serde_json::to_writer(&mut out, &rec).map_err(to_io)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// `index.json` of a JSON/JSONL export: one object per exported session.
pub fn write_index(out: &mut dyn Write, entries: &[IndexEntry]) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, entries).map_err(to_io)?;
    out.write_all(b"\n")
}
