//! Tables whose rows hold more cells than their header. GitHub-flavoured Markdown ignores a
//! row's cells past the header's count, and the export writes messages back from the parser's
//! events: those cells would be gone from the file, though the session holds them (a reply's
//! `| -a | all | also hidden files |` under two columns, a `` `a|b` `` whose pipe splits its
//! cell). Such a table gets empty header cells enough for its widest row before it is parsed,
//! so that every cell is kept and shown.

use std::borrow::Cow;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// `text` with each table widened to its widest row, or borrowed when none needs it. Only a
/// table that starts a line is widened (a table in a block quote or a list item, whose lines
/// carry a prefix, is left as the parser reads it).
pub fn widen(text: &str, options: pulldown_cmark::Options) -> Cow<'_, str> {
    // Most messages have no table: a delimiter row (`|---|:--|`) is looked for before any
    // parse, as every message is parsed again for its table.
    if memchr::memchr(b'|', text.as_bytes()).is_none() || !text.lines().any(is_delimiter_row) {
        return Cow::Borrowed(text);
    }
    // (byte offset of the header line, of the delimiter line, columns to add)
    let mut edits: Vec<(usize, usize, usize)> = Vec::new();
    let mut table: Option<(usize, usize, usize)> = None; // (start, header cells, widest row)
    let mut in_head = false;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Table(_)) => table = Some((range.start, 0, 0)),
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableCell) if in_head => {
                if let Some(t) = table.as_mut() {
                    t.1 += 1;
                }
            }
            Event::Start(Tag::TableRow) => {
                if let Some(t) = table.as_mut() {
                    t.2 = t.2.max(cells(line_at(text, range.start)));
                }
            }
            Event::End(TagEnd::Table) => {
                if let Some((start, head, widest)) = table.take()
                    && widest > head
                    && (start == 0 || text.as_bytes()[start - 1] == b'\n')
                    && let Some(delimiter) = text[start..].find('\n').map(|n| start + n + 1)
                {
                    edits.push((start, delimiter, widest - head));
                }
            }
            _ => {}
        }
    }
    if edits.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16 * edits.len());
    let mut at = 0;
    for (header, delimiter, extra) in edits {
        let header_line = line_at(text, header);
        let delimiter_line = line_at(text, delimiter);
        out.push_str(&text[at..header]);
        push_widened(&mut out, header_line, &" |".repeat(extra));
        out.push_str(&text[header + header_line.len()..delimiter]);
        push_widened(&mut out, delimiter_line, &"---|".repeat(extra));
        at = delimiter + delimiter_line.len();
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// Whether `line` could be a table's delimiter row: pipes, dashes, colons and spaces only,
/// with a pipe and a dash.
fn is_delimiter_row(line: &str) -> bool {
    line.contains('|')
        && line.contains('-')
        && line
            .bytes()
            .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t' | b'\r'))
}

/// The line starting at `start`, without its line ending.
fn line_at(text: &str, start: usize) -> &str {
    let rest = &text[start..];
    let line = rest.find('\n').map_or(rest, |n| &rest[..n]);
    line.strip_suffix('\r').unwrap_or(line)
}

/// `line` closed by a pipe, then `cells`: new empty cells after its last one.
fn push_widened(out: &mut String, line: &str, cells: &str) {
    let line = line.trim_end();
    out.push_str(line);
    if !ends_with_pipe(line) {
        out.push_str(" |");
    }
    out.push_str(cells);
}

/// Whether `line` ends with a pipe that is not escaped.
fn ends_with_pipe(line: &str) -> bool {
    line.ends_with('|') && !line.ends_with("\\|")
}

/// The cells of a table row as GFM splits it: at every pipe not escaped with a backslash
/// (code spans included), a leading and a trailing pipe aside.
fn cells(line: &str) -> usize {
    let line = line.trim();
    let bytes = line.as_bytes();
    let mut pipes = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'|' => pipes += 1,
            _ => {}
        }
        i += 1;
    }
    let leading = usize::from(line.starts_with('|'));
    let trailing = usize::from(line.len() > 1 && ends_with_pipe(line));
    (pipes + 1).saturating_sub(leading + trailing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> pulldown_cmark::Options {
        crate::export::markdown::prose::options()
    }

    /// Every cell's text, row by row, as the parser reads `text`.
    fn table(text: &str) -> Vec<Vec<String>> {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut cell: Option<String> = None;
        for e in Parser::new_ext(text, options()) {
            match e {
                Event::Start(Tag::TableHead | Tag::TableRow) => rows.push(Vec::new()),
                Event::Start(Tag::TableCell) => cell = Some(String::new()),
                Event::End(TagEnd::TableCell) => {
                    let c = cell.take().unwrap();
                    rows.last_mut().unwrap().push(c);
                }
                Event::Text(t) | Event::Code(t) => {
                    if let Some(c) = cell.as_mut() {
                        c.push_str(&t);
                    }
                }
                _ => {}
            }
        }
        rows
    }

    #[test]
    fn a_row_wider_than_its_header_keeps_every_cell() {
        let text = "Flags:\n\n| Flag | Meaning |\n|---|---|\n| `-a` | all | also hidden files |\n| `a|b` | regex alternation |\n\nDone.\n";
        // As parsed alone, the third cells are gone.
        assert_eq!(table(text)[1], ["-a", "all"]);
        let wide = widen(text, options());
        assert_eq!(
            table(&wide),
            [
                vec!["Flag", "Meaning", ""],
                vec!["-a", "all", "also hidden files"],
                vec!["`a", "b`", "regex alternation"],
            ]
        );
        assert!(wide.starts_with("Flags:\n\n| Flag | Meaning | |\n|---|---|---|\n"));
        assert!(wide.ends_with("\n\nDone.\n"));
    }

    #[test]
    fn tables_that_fit_and_text_without_tables_are_borrowed() {
        for text in [
            "no table here",
            "a | b\n--|--\n1 | 2\n",
            "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |\n",
            "| a | b |\n|---|---|\n| 1 \\| one | 2 |\n",
        ] {
            assert!(matches!(widen(text, options()), Cow::Borrowed(_)), "{text}");
        }
    }

    #[test]
    fn headers_without_outer_pipes_and_crlf_lines_are_widened() {
        let text = "a | b\r\n--|--\r\n1 | 2 | 3\r\n";
        let wide = widen(text, options());
        assert_eq!(table(&wide)[1], ["1", "2", "3"]);
        // A table in a block quote is left as it is (its lines carry `> `).
        let quoted = "> | a |\n> |---|\n> | 1 | 2 |\n";
        assert!(matches!(widen(quoted, options()), Cow::Borrowed(_)));
    }

    #[test]
    fn cells_are_counted_as_gfm_splits_them() {
        assert_eq!(cells("| a | b |"), 2);
        assert_eq!(cells("a | b"), 2);
        assert_eq!(cells("| `a|b` | c |"), 3);
        assert_eq!(cells("| a \\| b | c |"), 2);
        assert_eq!(cells("| a |"), 1);
    }
}
