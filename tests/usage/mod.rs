//! `sessions usage` against the sample home (`testdata/home`) and hand-made sessions: figures
//! per day, model and block computed by hand, time zones and DST, unknown models, `--prices`,
//! output formats, and the property that every report adds up to the `list`/`projects` totals.
//!
//! Per-file totals come from the hand-computed tables in testdata/home/*/README.md; which day
//! (and block) a file's requests fall on comes from the files' timestamps, e.g.
//! `jq -r 'select(.type=="assistant") | .timestamp' FILE` (Claude),
//! `jq -r 'select(.type=="event_msg" and .payload.type=="token_count") | .timestamp' FILE`
//! (Codex), `jq -r 'select(.type=="gemini") | .timestamp' FILE` (Gemini JSONL).

use crate::common;

mod blocks;
mod copies;
mod output;
mod periods;
mod prices;
mod progress;
mod totals;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home")
}

fn sessions() -> assert_cmd::Command {
    let mut c = common::sessions();
    c.arg("--home").arg(home());
    c
}

fn json_of(mut cmd: assert_cmd::Command, args: &[&str]) -> Value {
    common::json_of(cmd.args(args))
}

fn usage(args: &[&str]) -> Value {
    let mut all = vec!["usage"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    json_of(sessions(), &all)
}

/// period → total tokens.
fn totals_by(doc: &Value, key: &str) -> BTreeMap<String, u64> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[key].as_str().unwrap().to_string(),
                r["tokens"]["total"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn total(doc: &Value) -> u64 {
    doc["totals"]["tokens"]["total"].as_u64().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Every day of the sample home in UTC, from the README per-file totals.
const DAYS_UTC: [(&str, u64); 17] = [
    ("2026-03-04", 28_487),  // Gemini F1
    ("2026-03-14", 105_894), // Claude A 57,249 + its copy of msg_A_sub1 5,050 + Codex 43,595
    ("2026-03-20", 1_780),   // Gemini F4
    ("2026-04-02", 81_835),  // Claude B 25,823 + Codex 56,012
    ("2026-04-14", 40_270),  // Gemini F2 (slug copy; the hash-dir copy is dropped)
    ("2026-05-05", 33_351),  // Claude C 24,985 + its agent file 16,530 − the replay 8,164
    ("2026-05-06", 5_160),   // Gemini F3′ f3-g1 at 10:01 (5,000 + 60 + 100 thoughts)
    ("2026-05-07", 6_030),   // Gemini F3′ f3-g2 at 09:05 the next day (1,000 + 5,000 + 30)
    ("2026-05-20", 28_530),  // Codex parent 19,700 + sub-agent 8,830
    ("2026-06-10", 121_105), // Claude D 19,520 + Gemini F5 94,845 + F6 6,740
    ("2026-06-11", 29_125),  // Codex fork
    ("2026-07-08", 14_430),  // Codex .zst rollout
    ("2026-07-20", 34_012),  // Claude E 23,399 + its sub-agent 10,613
    ("2026-07-22", 52_970),  // Gemini F7
    ("2026-08-03", 3_240),   // Claude F
    ("2026-08-19", 22_790),  // Codex plain + .zst twin, counted once
    ("2026-08-30", 1_545),   // Gemini F8
];

/// Claude 178,245 + Codex 194,482 + Gemini 237,827 (the READMEs' de-duplicated totals).
const HOME_TOTAL: u64 = 610_554;

/// A Claude session in a temporary folder: requests at the given times with the given input
/// tokens, on `model`.
fn claude_file(dir: &Path, model: &str, requests: &[(&str, u64)]) -> PathBuf {
    let sid = "11111111-2222-4333-8444-555555555555";
    let mut lines = vec![json!({"type": "user", "sessionId": sid, "uuid": "u0",
        "parentUuid": null, "timestamp": requests[0].0, "cwd": "/home/dev/dst",
        "version": "2.1.90", "message": {"role": "user", "content": "hi"}})];
    let mut prev = "u0".to_string();
    for (i, (at, input)) in requests.iter().enumerate() {
        lines.push(
            json!({"type": "assistant", "sessionId": sid, "uuid": format!("a{i}"),
            "parentUuid": prev, "timestamp": at, "cwd": "/home/dev/dst", "version": "2.1.90",
            "requestId": format!("req_{i}"), "message": {"id": format!("msg_{i}"),
            "role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "output_tokens": 0}}}),
        );
        prev = format!("a{i}");
    }
    let path = dir.join(format!("{sid}.jsonl"));
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    path
}

fn usage_of(path: &Path, args: &[&str]) -> Value {
    let mut all = vec!["usage"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    all.push(path.to_str().unwrap());
    json_of(common::sessions(), &all)
}

/// `list --format json` over the home `home`.
fn list_json(home: &Path) -> Value {
    json_of(
        common::sessions(),
        &["--home", home.to_str().unwrap(), "list", "--format", "json"],
    )
}

/// A Claude record of an assistant response, `output` tokens so far.
fn response(sid: &str, at: &str, id: &str, output: u64) -> String {
    json!({"type": "assistant", "sessionId": sid, "uuid": format!("{sid}-{id}-{output}"),
        "parentUuid": null, "timestamp": at, "cwd": "/home/dev/copies", "version": "2.1.90",
        "requestId": format!("req_{id}"), "message": {"id": format!("msg_{id}"),
        "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text",
        "text": "ok"}], "usage": {"input_tokens": 10, "output_tokens": output}}})
    .to_string()
}
