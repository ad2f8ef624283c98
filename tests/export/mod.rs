//! `sessions export`: Markdown structure (parsed back with pulldown-cmark) over the sample home
//! and the public corpus, hostile content, HTML in headless Chromium, JSON/JSONL, redaction,
//! output safety (`--force`, stores), sub-agents and compactions.

use crate::common;

mod destinations;
mod hostile;
mod html;
mod json;
mod markdown;
mod nesting;
mod redaction;

use hostile::{NASTY_ID, nasty_session, rec};
use markdown::{check_export, shape, walk};
use nesting::export_md;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use common::sessions;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag, TagEnd};
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");

fn sample() -> Command {
    let mut c = sessions();
    c.arg("--home").arg(SAMPLE);
    c
}

fn ok(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "failed: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}
