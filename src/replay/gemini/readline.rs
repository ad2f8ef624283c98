//! Whether a file's lines, as the summary view splits them, are the lines Node's `readline`
//! gives Gemini CLI's loader: what lets one pass over a log feed both (`load::one_pass`).
//!
//! The check runs on the bytes as they stream past the view ([`Readline`]), so the single pass
//! holds no copy of the whole file; `splits_like_readline` is the same check on a whole file,
//! the reference the streaming one is tested against.

use std::io::{self, Read};

use crate::parse::MAX_LINE_BYTES;

/// Whether the view's lines (split at `\n`, each shorter than the line limit, trimmed of
/// ASCII whitespace) parse as the lines `readline` gives (split at `\n`, `\r\n` and a lone
/// `\r`, parsed untrimmed): no lone `\r`, and no form feed, which the view trims and JSON does
/// not allow around a value.
#[cfg(test)]
pub(super) fn splits_like_readline(bytes: &[u8], max_line: usize) -> bool {
    let lone_cr = memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'));
    if lone_cr || memchr::memchr(0x0c, bytes).is_some() {
        return false;
    }
    let mut start = 0;
    let long_line = memchr::memchr_iter(b'\n', bytes)
        .chain(std::iter::once(bytes.len()))
        .any(|end| {
            let long = end - start >= max_line;
            start = end + 1;
            long
        });
    !long_line
}

/// What [`Readline`] found once its reader was read to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// UTF-8, split as `readline` splits it (`splits_like_readline`), within the limit.
    Applies,
    /// Not UTF-8, or split differently: read the file the separate ways.
    Differs,
    /// Longer than the limit: Gemini CLI does not load it.
    TooLarge,
    /// A read failed: the separate reads report it.
    Unreadable,
}

/// A reader that checks the bytes passing through it, as `splits_like_readline` and a UTF-8
/// check would on the whole file, and reads at most `limit` bytes. Once the outcome is known
/// not to be [`Verdict::Applies`] it reads nothing more: what was read is discarded anyway.
pub(super) struct Readline<R> {
    inner: R,
    limit: u64,
    /// Lines of this length or more fail the check.
    max_line: usize,
    total: u64,
    /// Length of the line read so far (after the last `\n`).
    line: usize,
    /// The last byte read was a `\r`: the next must be a `\n`.
    cr: bool,
    /// An incomplete UTF-8 sequence at the end of the last read (at most 3 bytes).
    carry: Vec<u8>,
    /// Whether reads check UTF-8 (see [`Readline::utf8_checked_by_reader`]).
    check_utf8: bool,
    verdict: Option<Verdict>,
    eof: bool,
}

impl<R: Read> Readline<R> {
    pub fn new(inner: R, limit: u64) -> Self {
        Self::with_max_line(inner, limit, MAX_LINE_BYTES)
    }

    /// A check that lets lines of any length pass (its reader skips the long ones itself).
    pub fn any_line_length(inner: R, limit: u64) -> Self {
        Self::with_max_line(inner, limit, usize::MAX)
    }

    fn with_max_line(inner: R, limit: u64, max_line: usize) -> Self {
        Readline {
            inner,
            limit,
            max_line,
            total: 0,
            line: 0,
            cr: false,
            carry: Vec::new(),
            check_utf8: true,
            verdict: None,
            eof: false,
        }
    }

    /// A check that leaves UTF-8 to its reader, which validates every line it is given and
    /// must fail the file on one that is not UTF-8: a second validation of every byte cost
    /// 1.6% of a Gemini replay. The bytes `finish` reads past the reader are still checked.
    pub fn utf8_checked_by_reader(mut self) -> Self {
        self.check_utf8 = false;
        self
    }

    /// Read what is left, then say what the whole file was.
    pub fn finish(mut self) -> Verdict {
        // The reader read none of these: they may start inside a character, which at worst
        // fails the check (the separate reads are then taken, never a wrong record).
        self.check_utf8 = true;
        // Most often the reader has read to the end already: no buffer to fill, none made.
        let mut buf = Vec::new();
        while self.verdict.is_none() && !self.eof {
            buf.resize(64 * 1024, 0);
            match self.read(&mut buf) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.verdict.unwrap_or(Verdict::Applies)
    }

    fn settle(&mut self, v: Verdict) {
        self.verdict.get_or_insert(v);
    }

    fn inspect(&mut self, bytes: &[u8]) {
        if std::mem::take(&mut self.cr) && bytes[0] != b'\n' {
            return self.settle(Verdict::Differs);
        }
        // A carriage return must start a `\r\n`; a form feed is never allowed. Both are rare:
        // one scan for the two finds them at full speed.
        for i in memchr::memchr2_iter(b'\r', 0x0c, bytes) {
            match (bytes[i], bytes.get(i + 1)) {
                (b'\r', Some(b'\n')) => {}
                (b'\r', None) => self.cr = true,
                _ => return self.settle(Verdict::Differs),
            }
        }
        // Line lengths: the line that goes on from the last read ends at the first `\n`, the
        // next one starts after the last. The lines between are shorter than `bytes`, and are
        // measured one by one only when that is not short enough.
        match memchr::memchr(b'\n', bytes) {
            Some(first) => {
                if self.line + first >= self.max_line {
                    return self.settle(Verdict::Differs);
                }
                let last = memchr::memrchr(b'\n', bytes).unwrap_or(first);
                if bytes.len() >= self.max_line {
                    let mut start = first + 1;
                    for i in memchr::memchr_iter(b'\n', &bytes[first + 1..=last]) {
                        let end = first + 1 + i;
                        if end - start >= self.max_line {
                            return self.settle(Verdict::Differs);
                        }
                        start = end + 1;
                    }
                }
                self.line = bytes.len() - (last + 1);
            }
            None => self.line += bytes.len(),
        }
        // Already too long, wherever it ends: stop before a reader buffers the rest of it.
        if self.line >= self.max_line {
            return self.settle(Verdict::Differs);
        }
        if self.check_utf8 && !self.utf8(bytes) {
            self.settle(Verdict::Differs);
        }
    }

    /// Whether `bytes` continue valid UTF-8; an incomplete sequence at their end is carried to
    /// the next read.
    fn utf8(&mut self, mut bytes: &[u8]) -> bool {
        if !self.carry.is_empty() {
            let width = match self.carry[0] {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let take = (width - self.carry.len()).min(bytes.len());
            self.carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.carry.len() < width {
                return true;
            }
            if std::str::from_utf8(&self.carry).is_err() {
                return false;
            }
            self.carry.clear();
        }
        match simdutf8::compat::from_utf8(bytes) {
            Ok(_) => true,
            // Only the start of a character is cut off at the end: the next read completes it.
            Err(e) if e.error_len().is_none() => {
                self.carry.extend_from_slice(&bytes[e.valid_up_to()..]);
                true
            }
            Err(_) => false,
        }
    }

    fn at_end(&mut self) {
        self.eof = true;
        if self.cr || self.line >= self.max_line || !self.carry.is_empty() {
            self.settle(Verdict::Differs);
        }
    }
}

impl<R: Read> Read for Readline<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.verdict.is_some() || self.eof {
            return Ok(0);
        }
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                self.settle(Verdict::Unreadable);
                return Err(e);
            }
        };
        if n == 0 {
            self.at_end();
            return Ok(0);
        }
        self.total += n as u64;
        if self.total > self.limit {
            self.settle(Verdict::TooLarge);
            return Ok(0);
        }
        self.inspect(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its bytes in pieces of the given lengths, in turn.
    struct Pieces<'a> {
        bytes: &'a [u8],
        sizes: Vec<usize>,
        next: usize,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let want = self.sizes[self.next % self.sizes.len()].max(1);
            self.next += 1;
            let n = want.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn streamed(bytes: &[u8], sizes: Vec<usize>, limit: u64, max_line: usize) -> Verdict {
        let pieces = Pieces {
            bytes,
            sizes,
            next: 0,
        };
        let mut r = Readline::with_max_line(pieces, limit, max_line);
        // Read part of it the way a consumer would, then let `finish` read the rest.
        let mut buf = [0u8; 7];
        let _ = r.read(&mut buf);
        r.finish()
    }

    fn whole(bytes: &[u8], limit: u64, max_line: usize) -> Verdict {
        if bytes.len() as u64 > limit {
            Verdict::TooLarge
        } else if std::str::from_utf8(bytes).is_ok() && splits_like_readline(bytes, max_line) {
            Verdict::Applies
        } else {
            Verdict::Differs
        }
    }

    /// Left to its reader, UTF-8 is not checked in what the reader reads, but still is in what
    /// `finish` reads past it; the split is checked either way.
    #[test]
    fn a_reader_that_checks_utf8_leaves_the_rest_to_the_check() {
        let run = |bytes: &[u8], read: usize| {
            let mut r = Readline::new(bytes, u64::MAX).utf8_checked_by_reader();
            let mut buf = vec![0u8; read];
            let _ = r.read(&mut buf);
            r.finish()
        };
        let bad = b"{\"a\":\"\xff\"}\n{\"b\":1}\n";
        assert_eq!(run(bad, bad.len()), Verdict::Applies);
        assert_eq!(run(bad, 3), Verdict::Differs);
        assert_eq!(run(b"{\"a\":1}\r{}\n", 64), Verdict::Differs);
        assert_eq!(run(b"{\"a\":1}\r\n{}\n", 64), Verdict::Applies);
    }

    /// Every way of cutting the stream gives what the check of the whole file gives, on byte
    /// strings mixing what each check looks at: `\r`, `\n`, form feeds, and every kind of
    /// UTF-8 sequence, whole, cut short and broken.
    #[test]
    fn the_streamed_check_is_the_whole_file_check() {
        let atoms: &[&[u8]] = &[
            b"{\"a\":1}",
            b"\n",
            b"\r\n",
            b"\r",
            b"\x0c",
            b" ",
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\xf0\x9f",
            b"\xe2",
            b"\x80",
            b"\xff",
            b"\xed\xa0\x80",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut applies, mut differs) = (0, 0);
        for _ in 0..4000 {
            let n = (next() % 12) as usize;
            let mut bytes = Vec::new();
            for _ in 0..n {
                // Mostly harmless atoms, so that many strings pass.
                let pick = next() as usize;
                let atom = if pick.is_multiple_of(3) {
                    atoms[pick / 3 % atoms.len()]
                } else {
                    atoms[[0, 1, 2, 5, 6, 7, 8][pick / 3 % 7]]
                };
                bytes.extend_from_slice(atom);
            }
            // Mostly short pieces; sometimes pieces that hold several lines whole.
            let sizes: Vec<usize> = (0..3)
                .map(|_| 1 + (next() % if next() % 3 == 0 { 40 } else { 5 }) as usize)
                .collect();
            let limit = if next() % 10 == 0 { n as u64 } else { u64::MAX };
            // Mostly the real line limit; sometimes one short enough for these strings, or
            // for a piece to hold a line that passes it.
            let max_line = match next() % 8 {
                0 | 1 => 12,
                2 => 8,
                // As long as `{"a":1}`: a line that reaches the limit exactly.
                3 => 7,
                _ => MAX_LINE_BYTES,
            };
            let want = whole(&bytes, limit, max_line);
            let got = streamed(&bytes, sizes.clone(), limit, max_line);
            // Past the limit, content the reads had already ruled out may settle it first:
            // the two lead the single pass to the same separate reads.
            let same = got == want || (want == Verdict::TooLarge && got == Verdict::Differs);
            assert!(
                same,
                "{bytes:?} in pieces of {sizes:?}: {got:?}, not {want:?}"
            );
            match want {
                Verdict::Applies => applies += 1,
                _ => differs += 1,
            }
        }
        // Both outcomes were exercised.
        assert!(applies > 500 && differs > 500, "{applies} / {differs}");
    }

    /// A read that holds several lines whole holds each of them to the limit, one of exactly
    /// the limit's length too.
    #[test]
    fn lines_inside_one_read_are_held_to_the_limit() {
        let lines: &[u8] = b"{}\n{\"a\":1}\n{}\n{\"bbbbbb\":2}\n{}\n";
        let cases: [(&[u8], usize, Verdict); 5] = [
            (b"{\"a\":1}\n{\"bb\":2}\n{}\n", 8, Verdict::Differs),
            (b"{\"a\":1}\n{\"bb\":2}\n{}\n", 9, Verdict::Applies),
            (b"{\"a\":1}\n{\"b\":2}\n{}\n", 8, Verdict::Applies),
            // The fourth line, 12 bytes, after three others inside the read.
            (lines, 12, Verdict::Differs),
            (lines, 13, Verdict::Applies),
        ];
        for (text, max_line, want) in cases {
            // Read in one piece: every line but the first and the last lies inside the read.
            let got = Readline::with_max_line(text, u64::MAX, max_line).finish();
            assert_eq!(
                got,
                want,
                "{:?} to {max_line}",
                String::from_utf8_lossy(text)
            );
            assert_eq!(whole(text, u64::MAX, max_line), want);
        }
    }

    #[test]
    fn a_failed_read_is_unreadable() {
        struct Fails;
        impl Read for Fails {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("gone"))
            }
        }
        assert_eq!(Readline::new(Fails, u64::MAX).finish(), Verdict::Unreadable);
    }
}
