//! What the reading tests share: a record type to read lines into, and session files that
//! change while they are read.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use super::{Records, for_each_record, open};
use crate::diag::{Warning, WarningKind};
use crate::parse::json::Str;

pub(super) struct Probe;
#[derive(serde::Deserialize)]
pub(super) struct P<'a> {
    #[serde(default, borrow)]
    pub(super) a: Str<'a>,
    /// Read as a value, as token counts are, so that a number out of range fails the line.
    #[serde(default)]
    #[allow(dead_code)]
    pub(super) n: Option<serde_json::Value>,
}
impl Records for Probe {
    type Rec<'a> = P<'a>;
}

pub(super) type Seen = Vec<(u64, String)>;

pub(super) fn run(data: &[u8]) -> (Seen, Vec<(WarningKind, u64)>) {
    let mut seen = Vec::new();
    let mut w = Vec::new();
    for_each_record::<Probe>(Path::new("x.jsonl"), data, &mut w, |n, r, _| {
        seen.push((n, r.a.owned().unwrap_or_default()))
    });
    let kinds = w.iter().map(|w| (w.kind, w.line.unwrap())).collect();
    (seen, kinds)
}

/// A session file of `n` JSONL records that do not compress to nothing, and the byte
/// offset where each line ends.
pub(super) fn jsonl_file(dir: &Path, name: &str, n: usize) -> (std::path::PathBuf, Vec<usize>) {
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
pub(super) struct ThenChange<R> {
    pub(super) inner: R,
    pub(super) then: Option<Box<dyn FnOnce()>>,
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

pub(super) fn cut(path: &Path, to: u64) -> Box<dyn FnOnce()> {
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

pub(super) fn read_changing(path: &Path, then: Box<dyn FnOnce()>) -> (usize, Vec<Warning>) {
    let reader = ThenChange {
        inner: open(path).unwrap(),
        then: Some(then),
    };
    let (mut seen, mut w) = (0, Vec::new());
    for_each_record::<Probe>(path, reader, &mut w, |_, _, _| seen += 1);
    (seen, w)
}
