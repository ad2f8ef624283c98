//! Splitting a reader into JSONL lines: slices of one reused buffer, and a line longer than
//! the limit ([`MAX_LINE_BYTES`] unless told otherwise) skipped with its number.

use std::io::{self, Read};

use super::MAX_LINE_BYTES;

/// The least a line buffer grows by, and the least it keeps after giving back a huge line.
pub(super) const CHUNK: usize = 256 << 10;

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
/// most once (when it straddles two reads), never per line. Blank lines are counted, not handed
/// out (a blank line that straddles two reads may be).
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

/// A buffer of `len` bytes that starts with `keep`, zeros after it. Zeroed memory comes from
/// the allocator without being written, where `Vec::resize` writes every byte: in the
/// unoptimised test build one at a time, 4% of the integration tests' time.
fn lengthened(keep: &[u8], len: usize) -> Vec<u8> {
    let mut buf = vec![0; len];
    buf[..keep.len()].copy_from_slice(keep);
    buf
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
            self.buf = lengthened(&self.buf[..self.end], self.buf.len() + grow);
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

    /// Step over the blank lines (nothing but ASCII whitespace) at the start of the unread
    /// bytes, counting them: every reader skips them, and handing each one out cost 14 ns, so a
    /// small `.zst` of a billion newlines took 14 s per command. A run of newlines goes eight
    /// bytes at a time.
    fn skip_blank_lines(&mut self) {
        const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
        let bytes = &self.buf[self.start..self.end];
        let (mut i, mut lines, mut past) = (0, 0, 0);
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\n' => {
                    lines += 1;
                    i += 1;
                    while let Some(word) = bytes.get(i..i + 8) {
                        if u64::from_ne_bytes(word.try_into().unwrap_or_default()) != NEWLINES {
                            break;
                        }
                        lines += 8;
                        i += 8;
                    }
                    past = i;
                }
                b' ' | b'\t' | b'\r' | 0x0c => i += 1,
                _ => break,
            }
        }
        self.start += past;
        self.line_no += lines;
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Line<'_>> {
        if self.failed {
            return None;
        }
        loop {
            if self.scanned == 0 {
                self.skip_blank_lines();
            }
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
                    let keep = &self.buf[self.start..self.end];
                    self.buf = lengthened(keep, keep.len().max(CHUNK));
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

#[cfg(test)]
mod tests {
    use super::*;

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
            no,
            bytes,
            complete,
        }) = lines.next()
        {
            got.push((no, String::from_utf8(bytes.to_vec()).unwrap(), complete));
        }
        assert_eq!(
            got,
            vec![
                (1, "ab".into(), true),
                (2, "cd".into(), true),
                (4, "ef".into(), false)
            ]
        );
    }

    /// Blank lines are stepped over in bulk and still counted, whatever whitespace they hold and
    /// wherever the reads cut them; a line's own leading whitespace stays with it.
    #[test]
    fn blank_lines_are_counted_not_handed_out() {
        let mut data = Vec::new();
        data.extend_from_slice(b"\n\n \t\r\n");
        data.extend(std::iter::repeat_n(b'\n', 1_000_003));
        data.extend_from_slice(b"  {\"a\":1}\n\x0c\r\n\n\n");
        data.extend(std::iter::repeat_n(b' ', 3 * CHUNK));
        data.extend_from_slice(b"\n{\"b\":2}");
        // Whole, and in reads of 7 bytes (cuts inside runs and inside words of eight newlines).
        for step in [usize::MAX, 7] {
            struct Step<'a>(&'a [u8], usize);
            impl Read for Step<'_> {
                fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                    let n = self.0.len().min(self.1).min(buf.len());
                    buf[..n].copy_from_slice(&self.0[..n]);
                    self.0 = &self.0[n..];
                    Ok(n)
                }
            }
            let mut lines = Lines::new(Step(&data, step));
            let mut got = Vec::new();
            while let Some(line) = lines.next() {
                match line {
                    Line::Text { no, bytes, .. } if !bytes.trim_ascii().is_empty() => {
                        got.push((no, String::from_utf8(bytes.to_vec()).unwrap()));
                    }
                    Line::Text { .. } => {}
                    _ => panic!("step {step}: not a text line"),
                }
            }
            assert_eq!(
                got,
                vec![
                    (1_000_007, "  {\"a\":1}".into()),
                    (1_000_012, "{\"b\":2}".into())
                ],
                "step {step}"
            );
        }
    }
}
