//! Reading session files safely and fast: regular files only, `.zst` decompressed under a size
//! cap, JSONL split into lines without copying them, every line bounded in length, and the few
//! ways real writers break a line (a lone UTF-16 surrogate escape, two records on one line, a
//! record cut short by a crash) repaired where the data allows it instead of losing the line.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::json::Obj;
use crate::diag::{Warning, WarningKind};

/// Longest JSONL line (or whole-document file) read. Real records reach a few MB (a pasted
/// image, a huge tool output); anything longer is skipped and reported with its line number, so
/// one hostile line cannot take all the memory.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// Most bytes a `.zst` file may decompress to. Real compressed rollouts hold tens of MB; a
/// decompression bomb stops here with a warning.
pub const MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;

const CHUNK: usize = 256 << 10;

/// What a path is when it is not a regular file ("a FIFO", "a directory", …).
pub fn non_regular_kind(meta: &fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

fn not_regular(kind: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{kind}, not a regular file: not read"),
    )
}

/// Open a session file for reading, decompressing `.zst`. Devices, FIFOs, sockets and
/// directories are refused before they are opened (opening a FIFO blocks; reading a device
/// never ends), and checked again on the open handle.
pub fn open(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let meta = fs::metadata(path)?;
    if let Some(kind) = non_regular_kind(&meta) {
        return Err(not_regular(kind));
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = non_regular_kind(&meta) {
        return Err(not_regular(kind));
    }
    let file = Whole {
        inner: file,
        size: meta.len(),
        read: 0,
    };
    if path.extension().is_some_and(|e| e == "zst") {
        // The compressed bytes are the ones compared with the file's size.
        let dec = zstd::stream::read::Decoder::new(file)?;
        Ok(Box::new(Capped {
            inner: dec,
            left: MAX_DECOMPRESSED_BYTES,
        }))
    } else {
        Ok(Box::new(file))
    }
}

/// A file that ended before the size it had when it was opened: it shrank while it was read
/// (truncated, or rewritten in place), so what was read is neither the old file nor the new one.
#[derive(Debug)]
pub struct Shrank {
    pub size: u64,
    pub read: u64,
}

impl std::fmt::Display for Shrank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the file shrank while it was read (truncated or rewritten in place): it ended after \
             {} of the {} bytes it held when opened, so what was read of it is from neither \
             version; read it again",
            self.read, self.size
        )
    }
}

impl std::error::Error for Shrank {}

/// The [`Shrank`] an error carries, if that is what it is.
pub fn shrank(e: &io::Error) -> Option<&Shrank> {
    e.get_ref().and_then(|e| e.downcast_ref::<Shrank>())
}

/// A file that fails at its end when it ended before the size it had when opened. A file
/// growing while read (a live session appending) is normal and passes; only shrinking is
/// caught. The size is the open handle's (one fstat per file), and the end is where every
/// reader stops anyway: nothing is added per line.
struct Whole<R> {
    inner: R,
    size: u64,
    read: u64,
}

impl<R: Read> Read for Whole<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() && self.read < self.size {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                Shrank {
                    size: self.size,
                    read: self.read,
                },
            ));
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// A reader that fails once more than `left` bytes came out of it.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(io::Error::other(format!(
                "decompressed size exceeds {} MiB (a decompression bomb?)",
                MAX_DECOMPRESSED_BYTES >> 20
            )));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Read a whole file (decompressing `.zst`), at most [`MAX_LINE_BYTES`].
pub fn read_all(path: &Path) -> Result<Vec<u8>, Warning> {
    read_all_from(path, open(path).map_err(|e| unreadable(path, &e))?)
}

fn read_all_from(path: &Path, reader: impl Read) -> Result<Vec<u8>, Warning> {
    let mut buf = Vec::new();
    let n = reader
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| unreadable(path, &e))?;
    if n > MAX_LINE_BYTES {
        return Err(Warning::new(
            WarningKind::Unreadable,
            path,
            None,
            format!(
                "larger than {} MiB, the most one JSON document may hold: skipped",
                MAX_LINE_BYTES >> 20
            ),
        ));
    }
    Ok(buf)
}

pub fn unreadable(path: &Path, e: &io::Error) -> Warning {
    if let Some(shrank) = shrank(e) {
        return Warning::new(WarningKind::ShrankWhileRead, path, None, shrank.to_string());
    }
    let msg = match e.kind() {
        io::ErrorKind::InvalidInput => e.to_string(),
        io::ErrorKind::PermissionDenied => "cannot read: permission denied".to_string(),
        _ => format!("cannot read: {e}"),
    };
    Warning::new(WarningKind::Unreadable, path, None, msg)
}

/// One line of a JSONL file.
pub enum Line<'a> {
    /// The bytes between two newlines (without the newline). `complete` is false for a final
    /// line with no newline after it.
    Text {
        no: u64,
        bytes: &'a mut [u8],
        complete: bool,
    },
    /// A line longer than [`MAX_LINE_BYTES`]; it was skipped.
    TooLong { no: u64 },
    /// The file could not be read further.
    Error { no: u64, error: io::Error },
}

/// Splits a reader into lines, handing out slices of one growing buffer: a line is copied at
/// most once (when it straddles two reads), never per line.
pub struct Lines<R> {
    src: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes of `buf[start..end]` already searched for a newline.
    scanned: usize,
    eof: bool,
    failed: bool,
    line_no: u64,
    max: usize,
}

impl<R: Read> Lines<R> {
    pub fn new(src: R) -> Self {
        Self::with_max(src, MAX_LINE_BYTES)
    }

    pub fn with_max(src: R, max: usize) -> Self {
        Lines {
            src,
            buf: SPARE.with(|b| b.take()),
            start: 0,
            end: 0,
            scanned: 0,
            eof: false,
            failed: false,
            line_no: 0,
            max,
        }
    }

    /// Fill more of the buffer. Returns false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.start > 0 && (self.start == self.end || self.end == self.buf.len()) {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            let grow = self.buf.len().clamp(CHUNK, 64 << 20);
            self.buf.resize(self.buf.len() + grow, 0);
        }
        loop {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Skip to the next newline after an over-long line. Returns false at the end of input.
    fn skip_rest_of_line(&mut self) -> io::Result<bool> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                self.start += i + 1;
                self.scanned = 0;
                return Ok(true);
            }
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
            if !self.fill()? {
                return Ok(false);
            }
        }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Line<'_>> {
        if self.failed {
            return None;
        }
        loop {
            let from = self.start + self.scanned;
            if let Some(i) = memchr::memchr(b'\n', &self.buf[from..self.end]) {
                let nl = from + i;
                let start = self.start;
                self.start = nl + 1;
                self.scanned = 0;
                self.line_no += 1;
                if nl - start > self.max {
                    return Some(Line::TooLong { no: self.line_no });
                }
                return Some(Line::Text {
                    no: self.line_no,
                    bytes: &mut self.buf[start..nl],
                    complete: true,
                });
            }
            self.scanned = self.end - self.start;
            if self.eof {
                if self.start == self.end {
                    return None;
                }
                let start = self.start;
                self.start = self.end;
                self.scanned = 0;
                self.line_no += 1;
                if self.end - start > self.max {
                    return Some(Line::TooLong { no: self.line_no });
                }
                return Some(Line::Text {
                    no: self.line_no,
                    bytes: &mut self.buf[start..self.end],
                    complete: false,
                });
            }
            if self.end - self.start > self.max {
                self.line_no += 1;
                let no = self.line_no;
                self.start = self.end;
                self.scanned = 0;
                match self.skip_rest_of_line() {
                    Ok(more) => self.eof = !more,
                    Err(error) => {
                        self.failed = true;
                        return Some(Line::Error { no, error });
                    }
                }
                // Give back the big buffer: one hostile line must not pin its memory.
                if self.buf.len() > 4 * CHUNK {
                    let keep = self.buf[self.start..self.end].to_vec();
                    self.buf = keep;
                    self.buf.resize(self.buf.len().max(CHUNK), 0);
                    self.end -= self.start;
                    self.start = 0;
                }
                return Some(Line::TooLong { no });
            }
            match self.fill() {
                Ok(true) => {}
                Ok(false) => self.eof = true,
                Err(error) => {
                    self.failed = true;
                    return Some(Line::Error {
                        no: self.line_no + 1,
                        error,
                    });
                }
            }
        }
    }
}

thread_local! {
    /// The buffer of the last file read on this thread: files are read one after another on
    /// each worker, and a fresh buffer per file would be allocated and zeroed 5,000 times.
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl<R> Drop for Lines<R> {
    fn drop(&mut self) {
        // Keep a buffer of ordinary size; give back what one huge line grew it to.
        if self.buf.len() <= 8 << 20 {
            let buf = std::mem::take(&mut self.buf);
            SPARE.with(|b| b.set(buf));
        }
    }
}

/// A record type family: `Rec<'a>` borrows from the line it is read from.
pub trait Records: 'static {
    type Rec<'a>: Deserialize<'a>;
}

/// What became of one line.
enum Outcome {
    Done,
    /// A lone UTF-16 surrogate escape stopped the reader: repair the line and read it again.
    Surrogate,
    NotObject(&'static str),
    Bad(String),
}

/// Read every line of a JSONL file and call `f(line_number, record, bytes)` for every JSON
/// object on it (`bytes` is the object's text, for the rare record a parser re-reads whole). Blank lines are ignored; everything else that is not an object is skipped and recorded
/// in `warnings` with its line number. A final line without a newline that does not parse is a
/// live session mid-write ([`WarningKind::TruncatedLastLine`]). Memory stays at one line.
pub fn for_each_record<T: Records>(
    path: &Path,
    src: impl Read,
    warnings: &mut Vec<Warning>,
    f: impl for<'a> FnMut(u64, T::Rec<'a>, &'a [u8]),
) {
    for_each_record_pre::<T>(path, src, warnings, |_| None, f);
}

/// [`for_each_record`], asking `pre` first for each non-blank line's record: a caller that has
/// already deserialised the line its own way hands the record over, and the line's text is
/// decoded only when `pre` returns `None`.
pub fn for_each_record_pre<T: Records>(
    path: &Path,
    src: impl Read,
    warnings: &mut Vec<Warning>,
    mut pre: impl for<'a> FnMut(&'a [u8]) -> Option<T::Rec<'a>>,
    mut f: impl for<'a> FnMut(u64, T::Rec<'a>, &'a [u8]),
) {
    let mut lines = Lines::new(src);
    let mut normal = Vec::new();
    while let Some(line) = lines.next() {
        match line {
            Line::TooLong { no } => warnings.push(Warning::new(
                WarningKind::MalformedLine,
                path,
                Some(no),
                format!("line longer than {} MiB, skipped", MAX_LINE_BYTES >> 20),
            )),
            Line::Error { no, error } => {
                // A shrink leaves a last line cut where the file now ends: not a write in
                // progress, and what came before is no version of the file either.
                let (kind, msg) = match shrank(&error) {
                    Some(s) => (WarningKind::ShrankWhileRead, s.to_string()),
                    None => (
                        WarningKind::Unreadable,
                        format!("read error, rest of file skipped: {error}"),
                    ),
                };
                warnings.push(Warning::new(kind, path, Some(no), msg));
                break;
            }
            Line::Text {
                no,
                bytes,
                complete,
            } => {
                let line = trim_ascii_mut(bytes);
                if line.is_empty() {
                    continue;
                }
                if let Some(rec) = pre(line) {
                    if too_deep(line) {
                        warnings.push(Warning::new(
                            WarningKind::MalformedLine,
                            path,
                            Some(no),
                            format!("skipped malformed line: {}", nested_too_deep()),
                        ));
                    } else {
                        f(no, rec, line);
                    }
                    continue;
                }
                let mut outcome = decode::<T>(
                    line,
                    &mut normal,
                    &mut |r, b| f(no, r, b),
                    warnings,
                    path,
                    no,
                );
                if let Outcome::Surrogate = outcome {
                    // Repaired only when a string the parser decodes needs it: lines that
                    // parse pay nothing for the check.
                    repair_lone_surrogates(line);
                    outcome = decode::<T>(
                        line,
                        &mut normal,
                        &mut |r, b| f(no, r, b),
                        warnings,
                        path,
                        no,
                    );
                    if let Outcome::Surrogate = outcome {
                        outcome = Outcome::Bad("invalid \\u escape".into());
                    }
                }
                match outcome {
                    Outcome::Done | Outcome::Surrogate => {}
                    Outcome::NotObject(kind) => warnings.push(Warning::new(
                        WarningKind::UnexpectedRecord,
                        path,
                        Some(no),
                        format!("skipped a JSON {kind} that is not an object"),
                    )),
                    Outcome::Bad(e) => {
                        let (kind, msg) = if complete || !could_be_mid_write(line) {
                            (
                                WarningKind::MalformedLine,
                                format!("skipped malformed line: {e}"),
                            )
                        } else {
                            (
                                WarningKind::TruncatedLastLine,
                                "last line is incomplete (session still being written?)"
                                    .to_string(),
                            )
                        };
                        warnings.push(Warning::new(kind, path, Some(no), msg));
                    }
                }
            }
        }
    }
}

/// Whether an unparsable last line without a newline can be a record its writer has not
/// finished: it starts as JSON does and holds no NUL. A run of NULs (what a crash leaves where
/// the file system had allocated blocks) or text no JSON starts with is damage, not progress.
fn could_be_mid_write(line: &[u8]) -> bool {
    matches!(
        line.first(),
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
    ) && memchr::memchr(0, line).is_none()
}

/// Decode one non-blank line into records.
fn decode<'b, T: Records>(
    line: &'b [u8],
    normal: &mut Vec<u8>,
    f: &mut dyn for<'a> FnMut(T::Rec<'a>, &'a [u8]),
    warnings: &mut Vec<Warning>,
    path: &Path,
    no: u64,
) -> Outcome {
    // One SIMD UTF-8 check of the whole line lets serde_json skip checking every string it
    // reads; a line that fails it goes the slow way.
    let parsed = match simdutf8::basic::from_utf8(line) {
        Ok(text) => serde_json::from_str::<Obj<T::Rec<'b>>>(text),
        Err(_) => serde_json::from_slice::<Obj<T::Rec<'b>>>(line),
    };
    let err = match parsed {
        // Each view skips different parts of a record, and a value skipped is not held to
        // serde_json's nesting limit where a value kept is: the limit is the line's, so that
        // every view reads the same lines.
        Ok(_) if too_deep(line) => return Outcome::Bad(nested_too_deep()),
        Ok(Obj::Is(rec)) => {
            f(rec, line);
            return Outcome::Done;
        }
        Ok(Obj::Not(kind)) => return Outcome::NotObject(kind),
        Err(e) => e,
    };
    let msg = err.to_string();
    if msg.starts_with("recursion limit exceeded") {
        return Outcome::Bad(nested_too_deep());
    }
    if msg.contains("surrogate") || msg.contains("hex escape") {
        return Outcome::Surrogate;
    }
    // Two or more records written on one line: each one is complete.
    if let Some(spans) = split_values(line) {
        let mut not_objects = Vec::new();
        for (a, b) in spans {
            match decode::<T>(&line[a..b], normal, f, warnings, path, no) {
                Outcome::Done => {}
                Outcome::Surrogate => return Outcome::Surrogate,
                Outcome::NotObject(kind) => not_objects.push(kind),
                Outcome::Bad(e) => return Outcome::Bad(e),
            }
        }
        return match not_objects.first() {
            Some(kind) => Outcome::NotObject(kind),
            None => Outcome::Done,
        };
    }
    if err.is_data() {
        // Valid JSON the typed reader refused (a key written twice): normalise through a
        // `Value`, which keeps the last of duplicate keys like every JSON reader does.
        if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(line) {
            normal.clear();
            if serde_json::to_writer(&mut *normal, &v).is_ok() {
                let normal: &[u8] = normal;
                if let Ok(Obj::Is(rec)) = serde_json::from_slice::<Obj<T::Rec<'_>>>(normal) {
                    f(rec, normal);
                    return Outcome::Done;
                }
            }
        }
        return Outcome::Bad(err.to_string());
    }
    // A record cut short (a crash mid-write) with the next record appended on the same line:
    // keep what follows the cut.
    if (err.is_syntax() || err.is_eof())
        && let Some(at) = recoverable_tail(line)
    {
        warnings.push(Warning::new(
                WarningKind::MalformedLine,
                path,
                Some(no),
                format!(
                    "skipped an incomplete record ({at} bytes) cut short by the next one on the same line"
                ),
            ));
        return decode::<T>(&line[at..], normal, f, warnings, path, no);
    }
    if err.to_string().contains("invalid unicode") || std::str::from_utf8(line).is_err() {
        // Bytes that are not UTF-8: decode them as U+FFFD rather than losing the record.
        let lossy = String::from_utf8_lossy(line).into_owned().into_bytes();
        if lossy != line {
            *normal = lossy;
            let normal: &[u8] = normal;
            if let Ok(Obj::Is(rec)) = serde_json::from_slice::<Obj<T::Rec<'_>>>(normal) {
                f(rec, normal);
                return Outcome::Done;
            }
        }
    }
    Outcome::Bad(err.to_string())
}

/// The deepest nesting serde_json reads into a `Value` (its recursion limit is 128 levels
/// counting the one that fails).
const MAX_DEPTH: usize = 127;

fn nested_too_deep() -> String {
    format!("nested deeper than {MAX_DEPTH} levels")
}

/// Whether a line that parsed nests arrays and objects deeper than [`MAX_DEPTH`].
fn too_deep(line: &[u8]) -> bool {
    // A line with few brackets (nearly all of them) cannot nest deeply: a count in blocks of
    // 192 bytes, each summed in a `u8` (`[` is `{` without bit 0x20), stopped once it is past
    // the limit. A block of a fixed size, a multiple of every vector width, is counted by the
    // compiler's vector code alone; blocks of 255 bytes each ended in a byte-by-byte tail,
    // which cost as much as the rest of the count.
    let count = |block: &[u8]| {
        usize::from(
            block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from((b | 0x20) == b'{'))),
        )
    };
    let mut blocks = line.chunks_exact(192);
    let mut openers = 0;
    for block in &mut blocks {
        openers += count(block);
        if openers > MAX_DEPTH {
            break;
        }
    }
    openers += count(blocks.remainder());
    if openers <= MAX_DEPTH {
        return false;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = line.get(i) {
        match b {
            b'"' => {
                // To the closing quote: the next one not preceded by an odd run of backslashes.
                let mut j = i + 1;
                loop {
                    let Some(q) = memchr::memchr(b'"', &line[j..]) else {
                        return false;
                    };
                    let at = j + q;
                    let escapes = line[..at].iter().rev().take_while(|&&c| c == b'\\').count();
                    j = at + 1;
                    if escapes % 2 == 0 {
                        break;
                    }
                }
                i = j;
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

/// Byte ranges of the JSON values on a line that holds more than one, if every byte belongs to
/// one of them.
fn split_values(line: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut spans = Vec::new();
    let mut it = serde_json::Deserializer::from_slice(line).into_iter::<IgnoredAny>();
    let mut start = 0;
    loop {
        match it.next() {
            None => break,
            Some(Ok(_)) => {
                let end = it.byte_offset();
                let a = start
                    + line[start..end]
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                spans.push((a, end));
                start = end;
            }
            Some(Err(_)) => return None,
        }
    }
    (spans.len() > 1).then_some(spans)
}

/// Where the complete records start on a line whose first record was cut short: the last
/// `{"` such that everything from there on is one or more JSON values.
fn recoverable_tail(line: &[u8]) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(b"{\"");
    let starts: Vec<usize> = finder.find_iter(line).filter(|&i| i > 0).collect();
    // Earliest start first: it keeps the most data. Bounded, so a pathological line costs
    // little.
    starts.into_iter().take(64).find(|&i| {
        let rest = &line[i..];
        serde_json::from_slice::<IgnoredAny>(rest).is_ok() || split_values(rest).is_some()
    })
}

fn trim_ascii_mut(b: &mut [u8]) -> &mut [u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &mut b[start..end]
}

/// Decode a JSON string literal (with its quotes), reading a lone surrogate escape as U+FFFD
/// like the line reader does.
pub fn decode_string(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    match serde_json::from_str::<std::borrow::Cow<str>>(raw) {
        Ok(s) => Some(s),
        Err(_) => {
            let mut b = raw.as_bytes().to_vec();
            repair_lone_surrogates(&mut b);
            serde_json::from_slice::<String>(&b)
                .ok()
                .map(std::borrow::Cow::Owned)
        }
    }
}

/// JavaScript writes a string cut inside an emoji as a lone UTF-16 surrogate escape
/// (`"\ud83d"`), which strict JSON readers refuse. Rewrite each lone surrogate escape as
/// `\ufffd` (the same six bytes, in place), so the record is kept with a replacement character.
pub fn repair_lone_surrogates(line: &mut [u8]) {
    // Two SIMD passes rule out almost every line: only `\ud8`..`\udf` (either case) can be a
    // surrogate, while `\u` escapes of other characters are common (ASCII-only writers).
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
    let mut from = 0;
    // Fast exit: most lines hold no `\u` escape at all, and very few a surrogate one.
    while let Some(i) = FINDER.find(&line[from..]).map(|i| i + from) {
        from = i + 2;
        // `\\u` is an escaped backslash followed by a `u`: not an escape.
        let backslashes = line[..i].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 1 {
            continue;
        }
        let Some(unit) = hex4(&line[i + 2..]) else {
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                let paired = line.get(i + 6..i + 8) == Some(b"\\u")
                    && hex4(&line[i + 8..]).is_some_and(|u| (0xDC00..=0xDFFF).contains(&u));
                if paired {
                    from = i + 12;
                } else {
                    line[i + 2..i + 6].copy_from_slice(b"fffd");
                    from = i + 6;
                }
            }
            0xDC00..=0xDFFF => {
                line[i + 2..i + 6].copy_from_slice(b"fffd");
                from = i + 6;
            }
            _ => from = i + 6,
        }
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let h = b.get(..4)?;
    let s = std::str::from_utf8(h).ok()?;
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::json::Str;

    struct Probe;
    #[derive(serde::Deserialize)]
    struct P<'a> {
        #[serde(default, borrow)]
        a: Str<'a>,
    }
    impl Records for Probe {
        type Rec<'a> = P<'a>;
    }

    type Seen = Vec<(u64, String)>;

    fn run(data: &[u8]) -> (Seen, Vec<(WarningKind, u64)>) {
        let mut seen = Vec::new();
        let mut w = Vec::new();
        for_each_record::<Probe>(Path::new("x.jsonl"), data, &mut w, |n, r, _| {
            seen.push((n, r.a.owned().unwrap_or_default()))
        });
        let kinds = w.iter().map(|w| (w.kind, w.line.unwrap())).collect();
        (seen, kinds)
    }

    #[test]
    fn lines_are_counted_not_fatal() {
        let (seen, w) = run(b"{\"a\":\"1\"}\n\nnot json\n[1,2]\n{\"a\":\"2\"}\n{\"trunc");
        assert_eq!(seen, vec![(1, "1".into()), (5, "2".into())]);
        assert_eq!(
            w,
            vec![
                (WarningKind::MalformedLine, 3),
                (WarningKind::UnexpectedRecord, 4),
                (WarningKind::TruncatedLastLine, 6),
            ]
        );
    }

    #[test]
    fn a_last_line_no_record_can_start_is_malformed_not_mid_write() {
        let mut nuls = b"{\"a\":\"1\"}\n".to_vec();
        nuls.extend([0u8; 4096]);
        assert_eq!(run(&nuls).1, vec![(WarningKind::MalformedLine, 2)]);
        // A record cut short and padded with NULs by a crash: damage, not a write in progress.
        assert_eq!(
            run(b"{\"a\":\"x\0\0\0").1,
            vec![(WarningKind::MalformedLine, 1)]
        );
        assert_eq!(run(b"garbage").1, vec![(WarningKind::MalformedLine, 1)]);
        assert_eq!(
            run(b"{\"a\":\"1\"}\n{\"a\":\"mid").1,
            vec![(WarningKind::TruncatedLastLine, 2)]
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let (seen, w) = run(
            b"{\"a\":\"cut \\ud83d\"}\n{\"a\":\"\\udc00x\"}\n{\"a\":\"pair \\ud83d\\ude00\"}\n{\"a\":\"not \\\\ud83d\"}\n",
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            seen,
            vec![
                (1, "cut \u{fffd}".into()),
                (2, "\u{fffd}x".into()),
                (3, "pair 😀".into()),
                (4, "not \\ud83d".into()),
            ]
        );
    }

    #[test]
    fn two_records_on_one_line_are_both_kept() {
        let (seen, w) = run(b"{\"a\":\"1\"}{\"a\":\"2\"} {\"a\":\"3\"}\n");
        assert!(w.is_empty());
        assert_eq!(
            seen.iter().map(|s| s.1.as_str()).collect::<Vec<_>>(),
            ["1", "2", "3"]
        );
        assert!(seen.iter().all(|s| s.0 == 1));
    }

    #[test]
    fn a_cut_record_followed_by_a_whole_one_keeps_the_whole_one() {
        let (seen, w) = run(b"{\"a\":\"half{\"a\":\"whole\"}\n");
        assert_eq!(seen, vec![(1, "whole".into())]);
        assert_eq!(w, vec![(WarningKind::MalformedLine, 1)]);
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let (seen, w) = run(b"{\"a\":\"1\",\"a\":\"2\"}\n");
        assert!(w.is_empty());
        assert_eq!(seen, vec![(1, "2".into())]);
    }

    #[test]
    fn over_long_lines_are_skipped_with_their_number() {
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(100));
        let data = format!("{{\"a\":\"1\"}}\n{long}\n{{\"a\":\"3\"}}\n");
        let mut lines = Lines::with_max(data.as_bytes(), 50);
        let mut got = Vec::new();
        while let Some(l) = lines.next() {
            got.push(match l {
                Line::Text { no, bytes, .. } => (no, bytes.len()),
                Line::TooLong { no } => (no, 0),
                Line::Error { .. } => unreachable!(),
            });
        }
        assert_eq!(got, vec![(1, 9), (2, 0), (3, 9)]);
    }

    #[test]
    fn lines_straddling_reads_are_whole() {
        // A reader that hands out one byte at a time.
        struct Slow<'a>(&'a [u8]);
        impl Read for Slow<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let Some((&b, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                buf[0] = b;
                self.0 = rest;
                Ok(1)
            }
        }
        let mut lines = Lines::new(Slow(b"ab\ncd\n\nef"));
        let mut got = Vec::new();
        while let Some(Line::Text {
            bytes, complete, ..
        }) = lines.next()
        {
            got.push((String::from_utf8(bytes.to_vec()).unwrap(), complete));
        }
        assert_eq!(
            got,
            vec![
                ("ab".into(), true),
                ("cd".into(), true),
                (String::new(), true),
                ("ef".into(), false)
            ]
        );
    }

    /// A session file of `n` JSONL records that do not compress to nothing, and the byte
    /// offset where each line ends.
    fn jsonl_file(dir: &Path, name: &str, n: usize) -> (std::path::PathBuf, Vec<usize>) {
        let (mut text, mut ends, mut x) = (String::new(), Vec::new(), 0x9e37_79b9_u64);
        for _ in 0..n {
            let mut noise = String::new();
            for _ in 0..8 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                noise.push_str(&format!("{:016x}", x));
            }
            text.push_str(&format!("{{\"a\":\"{noise}\"}}\n"));
            ends.push(text.len());
        }
        let path = dir.join(name);
        if name.ends_with(".zst") {
            fs::write(&path, zstd::encode_all(text.as_bytes(), 1).unwrap()).unwrap();
        } else {
            fs::write(&path, text).unwrap();
        }
        (path, ends)
    }

    /// A reader that, after handing out its first bytes, does `then` to the file it reads: a
    /// writer that truncates or appends to the file while it is read, at a point fixed in the
    /// test rather than left to timing.
    struct ThenChange<R> {
        inner: R,
        then: Option<Box<dyn FnOnce()>>,
    }

    impl<R: Read> Read for ThenChange<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            // A small first read, whatever buffer the reader brings.
            let len = if self.then.is_some() { 4096 } else { buf.len() };
            let len = len.min(buf.len());
            let n = self.inner.read(&mut buf[..len])?;
            if let Some(then) = self.then.take() {
                then();
            }
            Ok(n)
        }
    }

    fn cut(path: &Path, to: u64) -> Box<dyn FnOnce()> {
        let path = path.to_path_buf();
        Box::new(move || {
            fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(to)
                .unwrap()
        })
    }

    fn read_changing(path: &Path, then: Box<dyn FnOnce()>) -> (usize, Vec<Warning>) {
        let reader = ThenChange {
            inner: open(path).unwrap(),
            then: Some(then),
        };
        let (mut seen, mut w) = (0, Vec::new());
        for_each_record::<Probe>(path, reader, &mut w, |_, _, _| seen += 1);
        (seen, w)
    }

    #[test]
    fn a_file_cut_while_read_is_a_serious_warning_wherever_the_cut_lands() {
        let dir = tempfile::tempdir().unwrap();
        let (path, ends) = jsonl_file(dir.path(), "s.jsonl", 10_000);
        // On a line boundary (nothing looked wrong before) and inside a line (a partial last
        // line, which alone is benign), past what the first read took.
        for to in [ends[6_000], ends[6_000] + 40] {
            let (seen, w) = read_changing(&path, cut(&path, to as u64));
            assert_eq!(seen, 6_001, "cut at {to}");
            assert_eq!(w.len(), 1, "{w:?}");
            assert_eq!(w[0].kind, WarningKind::ShrankWhileRead, "{w:?}");
            assert!(!w[0].kind.is_benign());
            assert_eq!(w[0].path, path);
            assert!(
                w[0].message
                    .contains(&format!("after {to} of the {} bytes", ends[9_999]))
            );
            jsonl_file(dir.path(), "s.jsonl", 10_000);
        }
    }

    #[test]
    fn a_file_growing_while_read_is_normal() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = jsonl_file(dir.path(), "s.jsonl", 10_000);
        let p = path.clone();
        let append = Box::new(move || {
            use std::io::Write;
            let mut f = fs::OpenOptions::new().append(true).open(&p).unwrap();
            f.write_all(b"{\"a\":\"appended\"}\n{\"a\":\"mid-wri")
                .unwrap();
        });
        let (seen, w) = read_changing(&path, append);
        assert_eq!(seen, 10_001);
        let kinds: Vec<_> = w.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [WarningKind::TruncatedLastLine]);
    }

    #[test]
    fn a_compressed_file_cut_while_read_is_caught_on_its_compressed_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = jsonl_file(dir.path(), "rollout.jsonl.zst", 10_000);
        let size = fs::metadata(&path).unwrap().len();
        assert!(
            size > 2 * CHUNK as u64,
            "{size}: the decoder's first read must not take it all"
        );
        let (seen, w) = read_changing(&path, cut(&path, size / 2));
        assert!(seen < 10_000, "{seen}");
        let kinds: Vec<_> = w.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [WarningKind::ShrankWhileRead], "{w:?}");
    }

    #[test]
    fn a_document_cut_while_read_is_a_serious_warning() {
        let dir = tempfile::tempdir().unwrap();
        let (path, ends) = jsonl_file(dir.path(), "doc.json", 10_000);
        let reader = ThenChange {
            inner: open(&path).unwrap(),
            then: Some(cut(&path, ends[6_000] as u64)),
        };
        let w = read_all_from(&path, reader).unwrap_err();
        assert_eq!(w.kind, WarningKind::ShrankWhileRead, "{w:?}");
        assert_eq!(w.path, path);
    }

    #[test]
    fn special_files_are_refused_unopened() {
        #[cfg(unix)]
        {
            let e = open(Path::new("/dev/zero")).err().unwrap();
            assert!(e.to_string().contains("a character device"), "{e}");
        }
        let dir = tempfile::tempdir().unwrap();
        let e = open(dir.path()).err().unwrap();
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[test]
    fn zst_bombs_stop_at_the_cap() {
        let mut c = Capped {
            inner: io::repeat(b'a'),
            left: 10,
        };
        let mut buf = [0u8; 8];
        assert_eq!(c.read(&mut buf).unwrap(), 8);
        assert!(c.read(&mut buf).is_err());
    }

    /// The nesting rule is serde_json's own, and holds in a view that skips the deep value.
    #[test]
    fn lines_nested_too_deep_are_malformed_whatever_the_view_keeps() {
        for depth in [MAX_DEPTH - 1, MAX_DEPTH] {
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let line = format!("{{\"a\":\"x\",\"b\":{deep},\"c\":\"[{{\\\"\"}}");
            let parses = serde_json::from_str::<Value>(&line).is_ok();
            assert_eq!(parses, depth < MAX_DEPTH, "{depth} arrays in an object");
            assert_eq!(too_deep(line.as_bytes()), !parses, "{depth}");
            // `Probe` skips `b`; the line is still malformed for it.
            let (seen, w) = run(format!("{line}\n").as_bytes());
            if parses {
                assert_eq!((seen.len(), w), (1, vec![]));
            } else {
                assert_eq!((seen.len(), w), (0, vec![(WarningKind::MalformedLine, 1)]));
            }
        }
        // Brackets inside strings do not nest.
        let s = format!("{{\"a\":\"{}\\\\\",\"b\":1}}", "[".repeat(300));
        assert!(!too_deep(s.as_bytes()));
    }

    /// The bracket count that lets a line skip the exact scan sees every bracket, wherever the
    /// line's length puts them against the blocks it is counted in.
    #[test]
    fn deep_nesting_is_found_wherever_the_brackets_fall() {
        for depth in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            for pad in 0..450 {
                let before = format!("{{\"p\":\"{}\",\"d\":{deep}}}", "x".repeat(pad));
                let after = format!("{{\"d\":{deep},\"p\":\"{}\"}}", "x".repeat(pad));
                for line in [before, after] {
                    let parses = serde_json::from_str::<Value>(&line).is_ok();
                    assert_eq!(too_deep(line.as_bytes()), !parses, "{depth}, {pad}");
                }
            }
        }
    }
}
