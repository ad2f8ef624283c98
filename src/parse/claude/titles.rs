//! The leaf titles of a transcript read alone, without parsing the rest ([`leaf_titles`]): what
//! a scan of named files reads from the other files of their projects. Apart because it is
//! an entry point of its own, with its own record type.

use std::path::Path;

use crate::parse::{self, Records};

/// A `summary` record's two fields, all a title taken from another file needs.
#[derive(serde::Deserialize, Default)]
struct SummaryRec<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: crate::parse::json::Str<'a>,
    #[serde(rename = "leafUuid", default, borrow)]
    leaf_uuid: crate::parse::json::Str<'a>,
    #[serde(default, borrow)]
    summary: crate::parse::json::Str<'a>,
}

struct SummaryLines;

impl Records for SummaryLines {
    type Rec<'a> = SummaryRec<'a>;
}

/// The `(leafUuid, title)` pairs of a transcript's `summary` records, as
/// [`parse`](fn@super::parse) gathers them, without reading the rest: the titles a named file
/// takes from the other files of its project. A line that cannot hold one (no `leafUuid` in its
/// text) is not decoded; what cannot be read gives no title, and its warnings belong to that
/// file's own reading.
pub fn leaf_titles(path: &Path) -> Vec<(String, String)> {
    let Ok(reader) = parse::open(path) else {
        return Vec::new();
    };
    let finder = memchr::memmem::Finder::new(b"leafUuid");
    let mut titles = Vec::new();
    let mut lines = parse::read::Lines::new(reader);
    while let Some(line) = lines.next() {
        let (bytes, complete) = match line {
            parse::read::Line::Text {
                bytes, complete, ..
            } => (bytes, complete),
            parse::read::Line::TooLong { .. } => continue,
            parse::read::Line::Error { .. } => break,
        };
        if finder.find(bytes).is_none() {
            continue;
        }
        // The line is read as the full parse reads it, repairs included; a final line that
        // ends with no newline is a write in progress there too.
        let end: &[u8] = if complete { b"\n" } else { b"" };
        parse::for_each_record::<SummaryLines>(
            path,
            std::io::Read::chain(&bytes[..], end),
            &mut Vec::new(),
            |_, rec, _| {
                if rec.kind.get() == Some("summary")
                    && let (Some(leaf), Some(title)) =
                        (rec.leaf_uuid.nonempty(), rec.summary.nonempty())
                {
                    titles.push((leaf.to_string(), title.to_string()));
                }
            },
        );
    }
    titles
}
