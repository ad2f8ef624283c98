//! Opening a session file: regular files only, `.zst` decompressed under
//! [`MAX_DECOMPRESSED_BYTES`], a file that shrinks while it is read caught at its end, and a
//! whole document read under [`MAX_LINE_BYTES`].

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use super::{MAX_DECOMPRESSED_BYTES, MAX_LINE_BYTES};
use crate::diag::{Warning, WarningKind};

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

#[cfg(test)]
mod tests {
    use super::super::lines::CHUNK;
    use super::super::tests::{ThenChange, cut, jsonl_file, read_changing};
    use super::*;

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
}
