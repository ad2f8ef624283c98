//! `sessions replay-compress` through the binary: the JSON contract, a trigger point computed by
//! hand, sweeps, settings errors, plots, and the estimated/unknown-model notes.

use crate::common;

mod algorithms;
mod human;
mod plots;
mod selection;
mod settings;

use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::{Value, json};

fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home")
}

use common::{json_array as json_out, sessions};

/// The JSON records of `sessions --home testdata/home <args> --format json`.
fn json_on_home(args: &[&str]) -> Vec<Value> {
    json_out(
        sessions()
            .arg("--home")
            .arg(home())
            .args(args)
            .args(["--format", "json"]),
    )
}

/// A Claude session of `turns` turns: each prompt is 40,000 ASCII characters (10,000 tokens at
/// bytes/4), each reply "ok" (1 token); the recorded prompt of request k is
/// 5,000 + 10,000 × (k + 1) + k, i.e. a 5,000-token overhead plus exactly the estimate. Past
/// 19 turns its prompts exceed 200k, which only a 1M-window session records: tests that mean a
/// 200k window say `--context-window 200000`.
fn big_claude_session(dir: &Path, turns: usize) -> PathBuf {
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    for k in 0..turns {
        let u = format!("u{k}");
        lines.push(json!({
            "type": "user", "sessionId": "big-1", "uuid": u, "parentUuid": parent,
            "cwd": "/home/dev/big", "timestamp": format!("2026-05-01T10:{:02}:00.000Z", k % 60),
            "message": {"role": "user", "content": "x".repeat(40_000)}
        }));
        let a = format!("a{k}");
        let prompt = 5_000 + 10_000 * (k as u64 + 1) + k as u64;
        lines.push(json!({
            "type": "assistant", "sessionId": "big-1", "uuid": a, "parentUuid": u,
            "cwd": "/home/dev/big", "timestamp": format!("2026-05-01T10:{:02}:30.000Z", k % 60),
            "requestId": format!("req_{k}"),
            "message": {"id": format!("msg_{k}"), "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": prompt, "output_tokens": 1,
                          "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}
        }));
        parent = Value::String(a);
    }
    let path = dir.join("big-1.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&path, text).unwrap();
    path
}
