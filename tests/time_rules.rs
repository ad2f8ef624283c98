//! Local time around its edges: `show` across a daylight-saving change.

mod common;

use std::fs;
use std::path::Path;

/// Central European time as a POSIX TZ rule (no time-zone database needed).
const BERLIN: &str = "CET-1CEST,M3.5.0,M10.5.0/3";

/// A Claude session in `home`: a prompt and a 10-token answer at each time.
fn claude_session(home: &Path, project: &str, id: &str, times: &[&str]) {
    let dir = home
        .join(".claude/projects")
        .join(format!("-home-dev-{project}"));
    fs::create_dir_all(&dir).unwrap();
    let mut lines = String::new();
    for (i, t) in times.iter().enumerate() {
        let common = format!(
            r#""isSidechain":false,"userType":"external","cwd":"/home/dev/{project}","sessionId":"{id}","version":"2.1.50","timestamp":"{t}""#
        );
        lines.push_str(&format!(
            r#"{{"type":"user","uuid":"{id}-u{i}","message":{{"role":"user","content":"prompt {i} at {t}"}},{common}}}"#
        ));
        lines.push('\n');
        lines.push_str(&format!(
            r#"{{"type":"assistant","uuid":"{id}-a{i}","requestId":"req_{id}_{i}","message":{{"model":"claude-sonnet-4-5-20250929","id":"msg_{id}_{i}","type":"message","role":"assistant","content":[{{"type":"text","text":"answer {i}"}}],"stop_reason":"end_turn","usage":{{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}}},{common}}}"#
        ));
        lines.push('\n');
    }
    fs::write(dir.join(format!("{id}.jsonl")), lines).unwrap();
}

fn run(home: &Path, tz: &str, args: &[&str]) -> (String, String) {
    let out = common::sessions()
        .env("TZ", tz)
        .arg("--home")
        .arg(home)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// On the day clocks go back, 02:30 happens twice: each time carries its own offset, and the
/// day's heading names none. On a day with one offset the heading names it, as before.
#[test]
fn show_gives_each_time_its_offset_across_a_clock_change() {
    let home = tempfile::tempdir().unwrap();
    let id = "11111111-0000-4000-8000-000000000002";
    claude_session(
        home.path(),
        "autumn",
        id,
        &[
            "2026-10-24T12:00:00.000Z",
            "2026-10-25T00:30:00.000Z",
            "2026-10-25T01:30:00.000Z",
            "2026-10-25T22:59:59.999Z",
        ],
    );
    let (out, _) = run(home.path(), BERLIN, &["show", id]);
    assert!(out.contains("── 2026-10-24 (+02:00) ──"), "{out}");
    assert!(out.contains("\n14:00:00  user"), "{out}");
    assert!(out.contains("── 2026-10-25 ──"), "{out}");
    assert!(!out.contains("2026-10-25 (+"), "{out}");
    assert!(out.contains("\n02:30:00 +02:00  user"), "{out}");
    assert!(out.contains("\n02:30:00 +01:00  user"), "{out}");
    assert!(out.contains("\n23:59:59 +01:00  user"), "{out}");
    // Spring: the day is +01:00 until 02:00, then +02:00.
    let id = "11111111-0000-4000-8000-000000000001";
    claude_session(
        home.path(),
        "spring",
        id,
        &["2026-03-29T00:59:59.000Z", "2026-03-29T01:00:00Z"],
    );
    let (out, _) = run(home.path(), BERLIN, &["show", id]);
    assert!(out.contains("── 2026-03-29 ──"), "{out}");
    assert!(out.contains("\n01:59:59 +01:00  user"), "{out}");
    assert!(out.contains("\n03:00:00 +02:00  user"), "{out}");
    // Under --utc nothing changes offset.
    let (out, _) = run(home.path(), BERLIN, &["--utc", "show", id]);
    assert!(out.contains("── 2026-03-29 (UTC) ──"), "{out}");
    assert!(out.contains("\n01:00:00  user"), "{out}");
}