//! The parse floor: what reading a home's session stores costs with no model at all.
//!
//! `parse_floor HOME` finds the files `sessions --home HOME` would read (the library's own
//! discovery), reads each one whole (zstd decompressed), and deserializes every JSONL line (or
//! the whole `.json` document) into `serde_json::de::IgnoredAny`, in parallel with rayon,
//! largest file first. No parser can do less work and still validate the JSON, so
//! `scripts/bench.sh` reports `sessions list` as a multiple of this time.
//!
//! Prints `files lines bytes` on stdout. Built with `cargo build --release --features bench-tools`.

use std::io::{Read, Write as _};
use std::path::PathBuf;

use rayon::prelude::*;

use serde::de::IgnoredAny;

use sessions::discover::{Discovery, StoreOptions, Stores};
use sessions::model::Agent;

fn main() {
    let Some(home) = std::env::args_os().nth(1).map(PathBuf::from) else {
        // Not `eprintln!` (clippy.toml): it panics when stderr is closed.
        let _ = writeln!(std::io::stderr(), "usage: parse_floor HOME");
        std::process::exit(2);
    };
    let opts = StoreOptions {
        home: Some(home),
        ..Default::default()
    };
    let stores = Stores::resolve(&opts, &|_| None);
    let mut files = Discovery::walk(&stores, &Agent::ALL).files;
    files.sort_by_key(|f| std::cmp::Reverse(f.size));
    let (lines, bytes) = files
        .par_iter()
        .map(|f| {
            let Ok(data) = read(&f.path) else {
                return (0, 0);
            };
            let document = f.path.extension().is_some_and(|e| e == "json");
            if document {
                let ok = serde_json::from_slice::<IgnoredAny>(&data).is_ok();
                return (u64::from(ok), data.len() as u64);
            }
            let mut n = 0u64;
            for line in data.split(|&b| b == b'\n') {
                if serde_json::from_slice::<IgnoredAny>(line).is_ok() {
                    n += 1;
                }
            }
            (n, data.len() as u64)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!("{} {lines} {bytes}", files.len());
}

fn read(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    let mut data = Vec::new();
    if path.extension().is_some_and(|e| e == "zst") {
        zstd::stream::read::Decoder::new(f)?.read_to_end(&mut data)?;
    } else {
        f.read_to_end(&mut data)?;
    }
    Ok(data)
}
