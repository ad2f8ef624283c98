//! `loadConversationRecord`, ported from `@google/gemini-cli-core` 0.61.0: the record's
//! messages as Gemini CLI loads a session file to resume it, and the replay's single read of a
//! file for both that record and the summary view ([`read_view_and_record`]).
//!
//! One deliberate difference from `loadConversationRecord`: `$set.messages` checkpoint lists
//! (v0.44+ history sync after a compression, a masking or a truncation) are ignored, so the
//! replay starts from the conversation, not from the agent's own compressed or masked copies.
//! A file without checkpoints loads exactly as the package loads it (rewinds included).
//!
//! A file is read line by line, and whether its lines are the ones Node's `readline` gives is
//! checked as the bytes stream past (`readline::Readline`): only a file that fails the check, or that is
//! one legacy document, is held whole in memory.

use rustc_hash::FxHashMap as HashMap;
use std::io::{BufRead, Read};
use std::path::Path;

use super::json::{J, JsStr, Key};
use super::readline::{Readline, Verdict};
use crate::diag::Warning;
use crate::model::Session;
use crate::parse::gemini::TreeRecord;
use crate::parse::{Detail, MAX_LINE_BYTES, SourceFile};

/// Files larger than this are replayed from the unified model instead (memory stays bounded).
const MAX_RECORD_BYTES: u64 = 1 << 30;

/// The record's messages as `loadConversationRecord` loads them (checkpoint lists ignored), or
/// `None` when Gemini could not load the file either (no `sessionId` + `projectHash`, and not a
/// legacy document with a `sessionId`).
///
/// Read line by line, with the file's split checked as it streams past (`readline::Readline`): no copy
/// of the whole file is held. A file whose lines `readline` splits differently, or that is one
/// legacy document, is read whole (`load_record_whole`).
pub fn load_record(path: &Path) -> Option<Vec<J>> {
    // Lines past the limit are skipped here as the whole-file read skips them, so they do not
    // fail the check.
    let mut check = Readline::any_line_length(crate::parse::open(path).ok()?, MAX_RECORD_BYTES);
    let mut loader = Loader::default();
    // The line buffer goes before a fallback reads the whole file.
    {
        let mut reader = std::io::BufReader::with_capacity(64 * 1024, &mut check);
        let mut line = Vec::new();
        while let Some(kept) = next_line(&mut reader, &mut line, MAX_LINE_BYTES) {
            // Not UTF-8: the check fails the file, which is then read whole.
            let Some(text) = kept.then(|| std::str::from_utf8(&line).ok()).flatten() else {
                continue;
            };
            // `readline`'s line: without its `\n` or `\r\n` (the check rules out a lone `\r`).
            let text = text.strip_suffix('\n').unwrap_or(text);
            loader.line(text.strip_suffix('\r').unwrap_or(text));
        }
    }
    match check.finish() {
        Verdict::Applies => loader.loaded().or_else(|| load_record_whole(path)),
        Verdict::Differs => load_record_whole(path),
        Verdict::TooLarge | Verdict::Unreadable => None,
    }
}

/// The next line of `reader` into `line`, its `\n` included: `Some(false)` for a line longer
/// than `max + 1` bytes, skipped without being held (its text, without `\r\n`, is `max` bytes
/// or more), `None` at the end of the input or when a read fails (the check reports it).
fn next_line(reader: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> Option<bool> {
    line.clear();
    let (mut any, mut kept) = (false, true);
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if buf.is_empty() {
            return any.then_some(kept);
        }
        any = true;
        let (n, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if kept && line.len() + n > max + 1 {
            kept = false;
            *line = Vec::new();
        } else if kept {
            line.extend_from_slice(&buf[..n]);
        }
        reader.consume(n);
        if done {
            return Some(kept);
        }
    }
}

/// [`load_record`] from the whole file held in memory, as `loadConversationRecord` reads it:
/// what the streamed reads fall back to, and what the tests hold them to.
pub(crate) fn load_record_whole(path: &Path) -> Option<Vec<J>> {
    load_record_bytes(&read_record_file(path)?)
}

/// The bytes of a record file, or `None` when it cannot be read or is larger than Gemini CLI
/// could load (more than [`MAX_RECORD_BYTES`]).
fn read_record_file(path: &Path) -> Option<Vec<u8>> {
    let mut reader = crate::parse::open(path).ok()?;
    // Sized from the file (a compressed one grows past it): growing by doubling copied a large
    // record several times over.
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut bytes = Vec::with_capacity(size.min(MAX_RECORD_BYTES) as usize + 1);
    reader
        .by_ref()
        .take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return None;
    }
    Some(bytes)
}

/// An ordered map with JavaScript `Map` semantics: `set` keeps an existing key's position,
/// `delete` then `set` moves it to the end.
#[derive(Default)]
struct MessageMap {
    slots: Vec<Option<(String, J)>>,
    index: HashMap<String, usize>,
}

impl MessageMap {
    fn set(&mut self, id: String, m: J) {
        match self.index.get(&id) {
            Some(&i) => self.slots[i] = Some((id, m)),
            None => {
                self.index.insert(id.clone(), self.slots.len());
                self.slots.push(Some((id, m)));
            }
        }
    }

    fn clear(&mut self) {
        self.slots.clear();
        self.index.clear();
    }

    /// `$rewindTo`: delete the message and every later one; everything if it is unknown.
    fn rewind(&mut self, id: &str) {
        match self.index.get(id) {
            Some(&i) => {
                for slot in self.slots.drain(i..).flatten() {
                    self.index.remove(&slot.0);
                }
            }
            None => self.clear(),
        }
    }

    fn into_values(self) -> Vec<J> {
        self.slots.into_iter().flatten().map(|(_, m)| m).collect()
    }
}

pub(super) fn string_field<'a>(j: &'a J, key: &str) -> Option<&'a JsStr> {
    j.get(key).and_then(J::as_str)
}

fn is_object(j: Option<&J>) -> bool {
    matches!(j, Some(J::Obj(_) | J::Arr(_)))
}

/// The text of a line as `readline` splits a stream: at `\n`, `\r\n` and a lone `\r`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
}

pub fn load_record_bytes(bytes: &[u8]) -> Option<Vec<J>> {
    // Valid UTF-8 (nearly every file) is borrowed after a fast check; the rest is repaired.
    let text = match simdutf8::basic::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let mut loader = Loader::default();
    for line in lines(&text) {
        loader.line(line);
    }
    loader.finish(&text)
}

/// `loadConversationRecord` over a JSONL file, fed one line's record at a time.
#[derive(Default)]
struct Loader {
    metadata: Vec<(Key, J)>,
    messages: MessageMap,
}

impl Loader {
    /// The loaded messages, `None` when the lines held no metadata (the file is then read as
    /// one legacy document).
    fn loaded(self) -> Option<Vec<J>> {
        let truthy = |k: &str| {
            self.metadata
                .iter()
                .find(|(mk, _)| *mk == k)
                .is_some_and(|(_, v)| v.truthy())
        };
        (truthy("sessionId") && truthy("projectHash")).then(|| self.messages.into_values())
    }

    fn merge(&mut self, entries: &[(Key, J)]) {
        for (k, v) in entries {
            match self.metadata.iter_mut().find(|(mk, _)| mk == k) {
                Some(e) => e.1 = v.clone(),
                None => self.metadata.push((k.clone(), v.clone())),
            }
        }
    }

    /// One line as `readline` gives it: its record, if it holds one. Past the line limit the
    /// summary view skips a line, and so does the record: Gemini CLI would read it, but its
    /// tree would cost several times its size in memory.
    fn line(&mut self, text: &str) {
        if text.len() >= MAX_LINE_BYTES || text.trim().is_empty() {
            return;
        }
        if let Ok(record) = super::json::record_line(text, false) {
            self.record(record);
        }
    }

    fn record(&mut self, record: J) {
        if let Some(to) = string_field(&record, "$rewindTo") {
            self.messages.rewind(&to.to_string_lossy());
        } else if let Some(id) = string_field(&record, "id").map(JsStr::to_string_lossy) {
            self.messages.set(id, record);
        } else if is_object(record.get("$set")) {
            // Checkpoint lists are not conversation (module doc); the rest is metadata.
            if let Some(J::Obj(set)) = record.get("$set") {
                let kept: Vec<(Key, J)> = set
                    .iter()
                    .filter(|(k, v)| !(k == "messages" && matches!(v, J::Arr(_))))
                    .cloned()
                    .collect();
                self.merge(&kept);
            }
        } else if string_field(&record, "sessionId").is_some()
            && string_field(&record, "projectHash").is_some()
        {
            if let J::Obj(entries) = &record {
                self.merge(entries);
            }
            if let Some(J::Arr(list)) = record.get("messages") {
                for m in list {
                    if let Some(id) = string_field(m, "id") {
                        self.messages.set(id.to_string_lossy(), m.clone());
                    }
                }
            }
        }
    }

    /// The loaded messages; without metadata, the whole `text` read as a legacy document.
    fn finish(self, text: &str) -> Option<Vec<J>> {
        if let Some(messages) = self.loaded() {
            return Some(messages);
        }
        // A document past the limit is not read either (the summary view refuses it too).
        if text.len() >= MAX_LINE_BYTES {
            return None;
        }
        // parseLegacyRecordFallback: the whole file as one document with a `sessionId` key.
        let doc: J = serde_json::from_str(text).ok()?;
        if !doc.has("sessionId") {
            return None;
        }
        Some(match doc.get("messages") {
            Some(J::Arr(list)) => list.clone(),
            _ => Vec::new(),
        })
    }
}

/// A Gemini session's summary view and the record Gemini CLI resumes, from one read of the file
/// and, for a JSONL log, one parse of each line: the line's [`J`] tree feeds the record and,
/// unless it lost something the text said ([`super::tree::take_lossy`]), the view's record too.
/// What the single pass does not cover the way the two separate reads do is read the separate
/// way: the whole file when it is not UTF-8, holds a lone `\r` (which `readline` splits at and
/// the view does not) or an over-long line, or is a document; only the view when the log has
/// no metadata line or its view needs bodies. The record is `None` when Gemini could not load
/// the file (see [`load_record`]). With `measure` (the replays but Gemini's), the pass measures
/// the tool outputs of the record's lines instead of decoding them ([`super::json::record_line`]);
/// a record read the separate way holds them decoded.
pub fn read_view_and_record(
    file: &SourceFile,
    measure: bool,
) -> Result<(Session, Option<Vec<J>>), Warning> {
    let one = match crate::parse::open(&file.path).map(|reader| one_pass(file, reader, measure)) {
        Ok(Pass::Read(one)) => *one,
        Ok(Pass::Separately) => OnePass::default(),
        // Streaming its lines would only lead to reading it whole.
        Ok(Pass::Document) => OnePass {
            record: Some(load_record_whole(&file.path)),
            ..OnePass::default()
        },
        Ok(Pass::ViewOnly) | Err(_) => {
            return Ok((crate::parse::parse_file_with(file, Detail::Summary)?, None));
        }
    };
    // What the single pass did not build is read the separate way; a record whose every line
    // it parsed (a log whose view needs bodies, say) is not parsed again.
    let view = match one.view {
        Some(view) => view,
        None => crate::parse::parse_file_with(file, Detail::Summary)?,
    };
    let record = match one.record {
        Some(record) => record,
        None => load_record(&file.path),
    };
    Ok((view, record))
}

/// What [`one_pass`] made of a file.
pub(super) enum Pass {
    /// The pass applied.
    Read(Box<OnePass>),
    /// Not a log the view reads line by line (a document, a saved chat): read the file the
    /// separate ways, the record from the whole file.
    Document,
    /// Not UTF-8, or lines split differently from `readline`'s: read the file the separate
    /// ways.
    Separately,
    /// Gemini CLI cannot load the file (a read failed, or it is larger than
    /// [`MAX_RECORD_BYTES`]): only the view is read, the separate way.
    ViewOnly,
}

/// What [`one_pass`] read.
#[derive(Default)]
pub(super) struct OnePass {
    /// The summary view, `None` when the file is not a log the single pass covers (a document,
    /// no metadata line, a view that needs bodies).
    pub view: Option<Session>,
    /// The record, when the pass fed the loader every line and the record is not read as one
    /// document (`Some(None)`: Gemini could not load it).
    pub record: Option<Option<Vec<J>>>,
    /// Lines whose view record came from their tree, of `trees` lines that had one (the tests
    /// hold the single pass to reading most lines once).
    #[cfg_attr(not(test), allow(dead_code))]
    pub from_tree: usize,
    #[cfg_attr(not(test), allow(dead_code))]
    pub trees: usize,
}

/// [`read_view_and_record`]'s single pass over what `reader` reads. Whether the file is one
/// the pass covers is checked on the bytes as they stream past (`readline::Readline`): the pass holds
/// no copy of the whole file, and what it read is discarded when the check fails.
pub(super) fn one_pass(file: &SourceFile, reader: impl Read, measure: bool) -> Pass {
    // The view hands every line but blank ones (ASCII) and over-long ones (which fail the
    // check) to the closure, which validates it: the check need not validate them again.
    let mut check = Readline::new(reader, MAX_RECORD_BYTES).utf8_checked_by_reader();
    let mut loader = Loader::default();
    let (mut lines, mut from_tree, mut trees, mut not_utf8) = (0, 0, 0, false);
    let view = crate::parse::gemini_view_with(file, &mut check, |line| {
        lines += 1;
        super::tree::take_lossy();
        // A line that is not UTF-8 makes the whole file be read the separate ways.
        let Ok(text) = simdutf8::basic::from_utf8(line) else {
            not_utf8 = true;
            return None;
        };
        let record = super::json::record_line(text, measure).ok()?;
        let rec = if super::tree::take_lossy() {
            None
        } else {
            TreeRecord::from_tree(&record)
        };
        trees += 1;
        from_tree += usize::from(rec.is_some());
        loader.record(record);
        rec
    });
    // A document is not read line by line (its record is not the loader's, and it has no
    // view of the pass's): nothing to check the rest of it for.
    if lines == 0 && view.is_none() {
        return Pass::Document;
    }
    match check.finish() {
        Verdict::Applies if not_utf8 => Pass::Separately,
        Verdict::Applies => Pass::Read(Box::new(OnePass {
            view,
            // Without metadata the record is the whole file read as one document.
            record: (lines > 0).then(|| loader.loaded()).flatten().map(Some),
            from_tree,
            trees,
        })),
        Verdict::Differs => Pass::Separately,
        Verdict::TooLarge | Verdict::Unreadable => Pass::ViewOnly,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line by line, with a small limit and a small buffer, the lines kept are the ones the
    /// whole-file read keeps: texts shorter than the limit, around every way a line can end.
    #[test]
    fn lines_read_one_by_one_are_the_whole_files_lines() {
        let pieces = ["", "a", "abc", "abcd", "abcde", "abcdefgh", " ", "\r"];
        let ends = ["\n", "\r\n"];
        let max = 4;
        let mut files = 0;
        for (i, a) in pieces.iter().enumerate() {
            for b in &pieces[i..] {
                for e in ends {
                    for last in ["", "\n"] {
                        let text = format!("{a}{e}{b}{last}");
                        // Only where no lone `\r` splits the lines differently.
                        if !super::super::readline::splits_like_readline(
                            text.as_bytes(),
                            usize::MAX,
                        ) {
                            continue;
                        }
                        let want: Vec<&str> = lines(&text)
                            .filter(|l| l.len() < max && !l.trim().is_empty())
                            .collect();
                        for cap in [1, 2, 3, 7] {
                            let mut r = std::io::BufReader::with_capacity(cap, text.as_bytes());
                            let (mut line, mut got) = (Vec::new(), Vec::new());
                            while let Some(kept) = next_line(&mut r, &mut line, max) {
                                let t = std::str::from_utf8(&line).unwrap();
                                let t = t.strip_suffix('\n').unwrap_or(t);
                                let t = t.strip_suffix('\r').unwrap_or(t).to_string();
                                if kept && t.len() < max && !t.trim().is_empty() {
                                    got.push(t);
                                }
                                assert!(line.len() <= max + 1, "{text:?}: {line:?} held");
                            }
                            assert_eq!(got, want, "{text:?} through a buffer of {cap}");
                        }
                        files += 1;
                    }
                }
            }
        }
        assert!(files > 100, "{files}");
    }
}
