//! Diagnostics: what could not be read, and where. Nothing is skipped silently: every skipped
//! line and every unreadable file becomes a [`Warning`] that ends up on stderr and, for per-file
//! warnings, in the session's `warnings` field.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A line that is not valid JSON.
    MalformedLine,
    /// Valid JSON that is not an object, an object with no usable record type, or a field of a
    /// shape nothing can be read from (a `toolCalls` that is no array, a time that names none).
    UnexpectedRecord,
    /// The last line has no newline and does not parse: a live session mid-write. Normal.
    TruncatedLastLine,
    /// A whole-document file (`.json`) that does not parse.
    MalformedDocument,
    /// The file or directory could not be opened or read (permissions, I/O errors).
    Unreadable,
    /// A directory entry that loops back (symlink cycle) and was not followed.
    SymlinkLoop,
    /// Data that parsed but contradicts itself (e.g. unknown `$rewindTo` target).
    Inconsistent,
    /// Two files hold the same session; one was dropped in favour of the other.
    Duplicate,
    /// The file ended before the size it had when it was opened: it was truncated or rewritten
    /// in place while it was read, and its figures are from neither version.
    ShrankWhileRead,
    /// A whole-document file still cut short (empty, or ending inside its JSON) when read again,
    /// and written moments ago: a writer rewriting it. Normal, like a partial last line.
    TruncatedDocument,
}

impl WarningKind {
    /// Benign warnings are reported in counts but do not fail `--strict`.
    pub fn is_benign(self) -> bool {
        matches!(
            self,
            WarningKind::TruncatedLastLine
                | WarningKind::TruncatedDocument
                | WarningKind::Duplicate
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::MalformedLine => "malformed_line",
            WarningKind::UnexpectedRecord => "unexpected_record",
            WarningKind::TruncatedLastLine => "truncated_last_line",
            WarningKind::MalformedDocument => "malformed_document",
            WarningKind::Unreadable => "unreadable",
            WarningKind::SymlinkLoop => "symlink_loop",
            WarningKind::Inconsistent => "inconsistent",
            WarningKind::Duplicate => "duplicate",
            WarningKind::ShrankWhileRead => "shrank_while_read",
            WarningKind::TruncatedDocument => "truncated_document",
        }
    }
}

/// Serialise a path as text, bytes that are not UTF-8 replaced (U+FFFD): JSON strings are
/// UTF-8, and one such path must not fail a whole document.
pub fn serialize_path<S: serde::Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&p.to_string_lossy())
}

/// [`serialize_path`] for an optional path.
pub fn serialize_opt_path<S: serde::Serializer>(
    p: &Option<PathBuf>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => serialize_path(p, s),
        None => s.serialize_none(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub kind: WarningKind,
    #[serde(serialize_with = "serialize_path")]
    pub path: PathBuf,
    /// 1-based line number, for line-oriented files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    pub message: String,
}

impl Warning {
    pub fn new(
        kind: WarningKind,
        path: &Path,
        line: Option<u64>,
        message: impl Into<String>,
    ) -> Self {
        Warning {
            kind,
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.path.display(), l, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// Summary of a run's warnings, printed once at the end instead of one line per skipped record
/// when there are many.
#[derive(Debug, Default)]
pub struct Report {
    pub warnings: Vec<Warning>,
    /// What is normal but worth knowing when asked (`--verbose`): files of a store that were
    /// not read because of their names.
    pub verbose_notes: Vec<String>,
}

/// Print at most this many individual warnings; the rest are summarised by kind.
const MAX_DETAILED: usize = 20;

impl Report {
    pub fn extend(&mut self, w: impl IntoIterator<Item = Warning>) {
        self.warnings.extend(w);
    }

    /// Add the warnings this report does not hold yet: what two looks at one store (two
    /// sessions it left unresolved, a full parse after the scan's) both found is said once.
    pub fn extend_once(&mut self, w: impl IntoIterator<Item = Warning>) {
        for w in w {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }

    /// The warnings by path, then line (a file's own warnings keep the order they were found
    /// in): the stores are read in parallel and grouped through hash maps, and a list that
    /// reorders itself from run to run cannot be compared with the last one.
    fn in_order(&self) -> Vec<&Warning> {
        let mut sorted: Vec<&Warning> = self.warnings.iter().collect();
        sorted.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        sorted
    }

    /// Warnings that make `--strict` fail.
    pub fn serious(&self) -> usize {
        self.warnings.iter().filter(|w| !w.kind.is_benign()).count()
    }

    /// Write the warnings to stderr: each serious one with `path:line` (up to a cap), then one
    /// count per kind. Benign ones (a live session's partial last line, dropped duplicate
    /// copies) are normal in a real store: alone they print nothing unless `verbose`, and
    /// otherwise they only show up in the counts.
    pub fn print(&self, verbose: bool, quiet: bool) {
        if quiet {
            return;
        }
        if verbose {
            for n in &self.verbose_notes {
                note(n);
            }
        }
        if self.warnings.is_empty() || (!verbose && self.serious() == 0) {
            return;
        }
        let mut shown = 0usize;
        for w in self.in_order() {
            if verbose || (!w.kind.is_benign() && shown < MAX_DETAILED) {
                // File names are session data too: no raw control characters on the terminal.
                to_stderr!(
                    "{}",
                    labelled("warning", &crate::render::text::safe_line(&w.to_string()))
                );
                shown += 1;
            }
        }
        let mut kinds: Vec<(WarningKind, usize)> = Vec::new();
        for w in &self.warnings {
            match kinds.iter_mut().find(|(k, _)| *k == w.kind) {
                Some(slot) => slot.1 += 1,
                None => kinds.push((w.kind, 1)),
            }
        }
        kinds.sort();
        let parts: Vec<String> = kinds
            .iter()
            .map(|(k, n)| format!("{n} {}", k.as_str()))
            .collect();
        let hidden = self.warnings.len().saturating_sub(shown);
        if hidden > 0 || shown > 0 {
            let total = format!(
                "{} in total ({}){}",
                plural(self.warnings.len(), "warning"),
                parts.join(", "),
                if hidden > 0 {
                    "; --verbose lists them all"
                } else {
                    ""
                }
            );
            to_stderr!("{}", labelled("warning", &total));
        }
    }
}

/// The one door for notes on stderr: `note: ` and the text, each of its lines wrapped at
/// spaces to the width the tables fit (continuations indented); a path longer than a line
/// stays whole, on a line of its own. A note is prose,
/// often longer than a terminal line; the caller makes session data in it terminal-safe.
pub fn note(text: &str) {
    to_stderr!("{}", note_text(text, crate::render::table::stderr_width()));
}

/// An error, a warning or any other line of diagnostics on stderr: `label: ` and the text,
/// wrapped as a note is (at spaces, to the width the tables fit; a path stays whole).
pub fn labelled(label: &str, text: &str) -> String {
    labelled_text(label, text, crate::render::table::stderr_width())
}

fn note_text(text: &str, width: Option<usize>) -> String {
    labelled_text("note", text, width)
}

fn labelled_text(label: &str, text: &str, width: Option<usize>) -> String {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                if label.is_empty() {
                    return crate::render::text::wrap_at_spaces(line, width, 2);
                }
                // The label stays with the first word (a warning's `path:line:`), even where
                // that overflows: alone on its line it would say nothing.
                let first = format!("{label}:\u{a0}{line}");
                return crate::render::text::wrap_at_spaces(&first, width, 2)
                    .replacen('\u{a0}', " ", 1);
            }
            // A note's later lines continue it, indented as its wrapped lines are: at column
            // 0 they read as another message.
            crate::render::text::wrap_at_spaces(line, width.map(|w| w.saturating_sub(2)), 0)
                .lines()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub use crate::render::plural;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_listed_by_path_then_line() {
        let w = |p: &str, line: Option<u64>, m: &str| {
            Warning::new(WarningKind::MalformedLine, Path::new(p), line, m)
        };
        let report = Report {
            warnings: vec![
                w("b", Some(2), "b2"),
                w("a", Some(9), "a9"),
                w("b", None, "b"),
                w("a", Some(1), "a1 first"),
                w("a", Some(1), "a1 second"),
            ],
            ..Default::default()
        };
        let order: Vec<&str> = report
            .in_order()
            .iter()
            .map(|w| w.message.as_str())
            .collect();
        assert_eq!(order, ["a1 first", "a1 second", "a9", "b", "b2"]);
    }

    #[test]
    fn a_note_breaks_at_spaces_only_and_keeps_a_long_path_whole() {
        let path = format!(
            "/home/u/.gemini/tmp/{}/chats/session-1.json",
            "a1".repeat(32)
        );
        let out = note_text(
            &format!("8 files in {path} not read (one, {path}, two more): names"),
            Some(40),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "note: 8 files in", "{out}");
        assert_eq!(lines[1], format!("  {path}"), "{out}");
        assert_eq!(lines[2], "  not read (one,", "{out}");
        assert_eq!(lines[3], format!("  {path},"), "{out}");
        assert_eq!(lines[4], "  two more): names", "{out}");
        // Every word comes through whole: the line breaks replaced spaces, nothing else.
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(
            words(&out)[1..],
            words(&format!(
                "8 files in {path} not read (one, {path}, two more): names"
            ))[..]
        );
    }

    #[test]
    fn a_warning_keeps_its_path_with_its_label_and_wraps_the_rest() {
        let path = format!("/store/{}/s.jsonl:5:", "a".repeat(60));
        let out = labelled_text(
            "warning",
            &format!("{path} skipped malformed line: EOF while parsing a string at line 1"),
            Some(40),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("warning: {path}"), "{out}");
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.starts_with("  ") && l.chars().count() <= 40),
            "{out}"
        );
        assert_eq!(labelled_text("", "a b c", Some(40)), "a b c");
        assert_eq!(labelled_text("error", "short", None), "error: short");
    }

    #[test]
    fn a_note_wraps_to_the_width_with_its_continuations_indented() {
        let text = format!("{} end\nlooked in ~/.claude/projects", "word ".repeat(40));
        let out = note_text(&text, Some(40));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("note: word"), "{out}");
        assert!(lines.iter().all(|l| l.chars().count() <= 40), "{out}");
        let (last, continued) = lines[1..].split_last().unwrap();
        assert!(continued.iter().all(|l| l.starts_with("  ")), "{out}");
        assert_eq!(*last, "  looked in ~/.claude/projects");
        assert_eq!(note_text("short", None), "note: short");
    }
}
