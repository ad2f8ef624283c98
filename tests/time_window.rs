//! `--since` skips files by mtime before opening them; the numbers must not depend on which
//! files that was: the same data gives the same totals whatever the files' mtimes.

use crate::common;

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use chrono::DateTime;
use serde_json::Value;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn set_mtime(path: &Path, rfc3339: &str) {
    let t = DateTime::parse_from_rfc3339(rfc3339).unwrap().timestamp() as u64;
    common::set_modified(path, SystemTime::UNIX_EPOCH + Duration::from_secs(t));
}

fn json(home: &Path, args: &[&str]) -> Vec<Value> {
    common::json_array(
        common::sessions()
            .env("TZ", "UTC")
            .arg("--home")
            .arg(home)
            .args(args)
            .args(["--format", "json"]),
    )
}

/// A prompt and its response, as Claude Code records them.
fn turn(session: &str, msg: &str, parent: Option<&str>, at: &str, input: u64) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"a-{p}\""));
    let env = format!(
        r#""isSidechain":false,"userType":"external","cwd":"/home/dev/res","sessionId":"{session}","version":"2.1.50","timestamp":"{at}""#
    );
    format!(
        r#"{{"type":"user","parentUuid":{parent},"uuid":"u-{msg}",{env},"message":{{"role":"user","content":"q{msg}"}}}}
{{"type":"assistant","parentUuid":"u-{msg}","uuid":"a-{msg}",{env},"requestId":"req_{msg}","message":{{"id":"msg_{msg}","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{{"type":"text","text":"a"}}],"stop_reason":"end_turn","usage":{{"input_tokens":{input},"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}}}}
"#
    )
}

/// `claude --resume` of a January session in June: the new file repeats the old one's
/// responses (same ids, same timestamps) and goes on. The old file, last modified in January
/// or copied since (a new mtime), holds the same data: under `--since` June its responses stay
/// its own either way, and only the June response counts for June's session.
#[test]
fn a_resumed_session_counts_the_same_whatever_the_parents_mtime() {
    const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
    const B: &str = "bbbbbbbb-0000-4000-8000-000000000002";
    let old = turn(A, "A1", None, "2026-01-10T10:00:00.000Z", 100)
        + &turn(A, "A2", Some("A1"), "2026-01-10T10:05:00.000Z", 200);
    let resumed = turn(B, "A1", None, "2026-01-10T10:00:00.000Z", 100)
        + &turn(B, "A2", Some("A1"), "2026-01-10T10:05:00.000Z", 200)
        + &turn(B, "B1", Some("A2"), "2026-06-10T10:00:00.000Z", 5);
    let mut seen = Vec::new();
    for parent_mtime in ["2026-01-10T10:06:00Z", "2026-06-10T10:02:00Z"] {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".claude/projects/-home-dev-res");
        write(&dir.join(format!("{A}.jsonl")), &old);
        write(&dir.join(format!("{B}.jsonl")), &resumed);
        set_mtime(&dir.join(format!("{A}.jsonl")), parent_mtime);
        set_mtime(&dir.join(format!("{B}.jsonl")), "2026-06-10T10:01:00Z");
        let projects = json(home.path(), &["projects", "--since", "2026-06-01"]);
        assert_eq!(projects.len(), 1, "{projects:?}");
        let listed = json(home.path(), &["list", "--since", "2026-06-01"]);
        let ids: Vec<&str> = listed.iter().map(|s| s["id"].as_str().unwrap()).collect();
        assert_eq!(ids, [B], "parent's mtime {parent_mtime}");
        seen.push((
            parent_mtime,
            projects[0]["tokens"]["total"].clone(),
            footer(home.path(), &["list", "--since", "2026-06-01"]),
        ));
    }
    for (parent_mtime, project_total, footer) in &seen {
        assert_eq!(project_total, 5, "parent's mtime {parent_mtime}: {seen:?}");
        assert!(
            footer.starts_with("1 session, 5 tokens"),
            "parent's mtime {parent_mtime}: {seen:?}"
        );
    }
}

/// The last line `list` writes on stderr: its footer.
fn footer(home: &Path, args: &[&str]) -> String {
    let out = common::sessions()
        .env("TZ", "UTC")
        .arg("--home")
        .arg(home)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr.lines().last().unwrap_or_default().to_string()
}

/// Legacy Gemini CLI wrote the rest of a compressed conversation into a new file with the
/// same `sessionId`: the later file starts with a compression only the earlier one shows
/// (its context had grown large enough). The earlier file, skipped by its mtime, still says so.
#[test]
fn a_gemini_continuation_is_one_whatever_the_earlier_parts_mtime() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/gemini-legacy");
    let first = "session-2025-12-03T08-00-c2c2c2c2.json";
    let second = "session-2025-12-03T09-01-c2c2c2c2.json";
    for first_mtime in ["2025-12-03T09:00:30Z", "2025-12-03T09:02:30Z"] {
        let home = tempfile::tempdir().unwrap();
        let chats = home.path().join(".gemini/tmp/c2/chats");
        fs::create_dir_all(&chats).unwrap();
        for name in [first, second] {
            fs::copy(fixtures.join(name), chats.join(name)).unwrap();
        }
        set_mtime(&chats.join(first), first_mtime);
        set_mtime(&chats.join(second), "2025-12-03T09:02:30Z");
        let listed = json(home.path(), &["list", "--since", "2025-12-03T09:01:00Z"]);
        let later: Vec<&Value> = listed
            .iter()
            .filter(|s| s["path"].as_str().unwrap().ends_with(second))
            .collect();
        assert_eq!(later.len(), 1, "{listed:?}");
        assert_eq!(
            later[0]["compactions"], 1,
            "earlier part's mtime {first_mtime}"
        );
    }
}

/// The files read for the cross-file rules are read, not skipped: the footer's count of files
/// left unread says so, and a file the window did not need is still left unread.
#[test]
fn the_footer_counts_the_files_left_unread() {
    const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
    const B: &str = "bbbbbbbb-0000-4000-8000-000000000002";
    const C: &str = "cccccccc-0000-4000-8000-000000000003";
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-home-dev-res");
    write(
        &dir.join(format!("{A}.jsonl")),
        &turn(A, "A1", None, "2026-01-10T10:00:00.000Z", 100),
    );
    write(
        &dir.join(format!("{B}.jsonl")),
        &(turn(B, "A1", None, "2026-01-10T10:00:00.000Z", 100)
            + &turn(B, "B1", Some("A1"), "2026-06-10T10:00:00.000Z", 5)),
    );
    // Older than the oldest response the window's files hold: it cannot hold a copy of one.
    write(
        &dir.join(format!("{C}.jsonl")),
        &turn(C, "C1", None, "2025-12-01T10:00:00.000Z", 7),
    );
    set_mtime(&dir.join(format!("{A}.jsonl")), "2026-01-10T10:01:00Z");
    set_mtime(&dir.join(format!("{B}.jsonl")), "2026-06-10T10:01:00Z");
    set_mtime(&dir.join(format!("{C}.jsonl")), "2025-12-01T10:01:00Z");
    let footer = footer(home.path(), &["list", "--since", "2026-06-01"]);
    assert_eq!(
        footer,
        "1 session, 5 tokens, $0.0000; 1 file outside the time window not read"
    );
}

/// A Claude file with no working directory in any record (a file of summaries and snapshots)
/// takes its project from another file of its folder: under `--since`, that file is read for
/// its path even when its mtime is before the window, so the project does not depend on it.
#[test]
fn a_session_without_cwd_finds_its_folders_project_whatever_the_mtimes() {
    const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
    const C: &str = "cccccccc-0000-4000-8000-000000000003";
    let old = turn(A, "A1", None, "2026-01-10T10:00:00.000Z", 100);
    let no_cwd = format!(
        r#"{{"type":"user","parentUuid":null,"uuid":"u-C1","sessionId":"{C}","timestamp":"2026-06-10T10:00:00.000Z","message":{{"role":"user","content":"hello"}}}}
"#
    );
    for old_mtime in ["2026-01-10T10:06:00Z", "2026-06-10T10:02:00Z"] {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".claude/projects/-home-dev-res");
        write(&dir.join(format!("{A}.jsonl")), &old);
        write(&dir.join(format!("{C}.jsonl")), &no_cwd);
        set_mtime(&dir.join(format!("{A}.jsonl")), old_mtime);
        set_mtime(&dir.join(format!("{C}.jsonl")), "2026-06-10T10:01:00Z");
        let listed = json(home.path(), &["list", "--since", "2026-06-01"]);
        let ids: Vec<&str> = listed.iter().map(|s| s["id"].as_str().unwrap()).collect();
        assert_eq!(ids, [C], "{old_mtime}");
        assert_eq!(listed[0]["project"], "/home/dev/res", "{old_mtime}");
        assert_eq!(listed[0]["project_source"], "folder_match", "{old_mtime}");
    }
}

/// The block starts and request counts of `usage blocks` with `args`.
fn blocks(home: &Path, args: &[&str]) -> Vec<(String, u64)> {
    let out = common::sessions()
        .env("TZ", "UTC")
        .arg("--home")
        .arg(home)
        .args(["usage", "blocks", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["start"].as_str().unwrap().to_string(),
                r["requests"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A window selects the real 5-hour blocks, whole, rather than cutting new ones from the
/// requests inside it: the block of 22:00 runs past midnight, so `--since` midnight shows it,
/// not a block "starting" at 00:00 that merges the ends of two. The blocks are the same
/// whatever the mtime of the file holding the requests before the window.
#[test]
fn a_window_shows_the_real_blocks() {
    const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
    const B: &str = "bbbbbbbb-0000-4000-8000-000000000002";
    for early_mtime in ["2026-06-01T22:11:00Z", "2026-06-02T03:11:00Z"] {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".claude/projects/-home-dev-res");
        // An earlier session makes the first request of the evening's block.
        write(
            &dir.join(format!("{A}.jsonl")),
            &turn(A, "A1", None, "2026-06-01T22:10:00.000Z", 1),
        );
        write(
            &dir.join(format!("{B}.jsonl")),
            &(turn(B, "B1", None, "2026-06-02T00:30:00.000Z", 2)
                + &turn(B, "B2", Some("B1"), "2026-06-02T02:50:00.000Z", 4)
                + &turn(B, "B3", Some("B2"), "2026-06-02T03:10:00.000Z", 8)),
        );
        set_mtime(&dir.join(format!("{A}.jsonl")), early_mtime);
        set_mtime(&dir.join(format!("{B}.jsonl")), "2026-06-02T03:11:00Z");
        let real = vec![
            ("2026-06-01T22:00:00.000Z".to_string(), 3),
            ("2026-06-02T03:00:00.000Z".to_string(), 1),
        ];
        assert_eq!(blocks(home.path(), &[]), real);
        assert_eq!(
            blocks(home.path(), &["--since", "2026-06-02"]),
            real,
            "{early_mtime}"
        );
        assert_eq!(
            blocks(home.path(), &["--since", "2026-06-02T03:05:00Z"]),
            real[1..],
            "{early_mtime}"
        );
        assert_eq!(
            blocks(home.path(), &["--until", "2026-06-02T01:00:00Z"]),
            real[..1],
            "{early_mtime}"
        );
    }
}

/// Where a block starts depends on the blocks before it, back to an idle stretch of 5 hours:
/// under steady use the window's first block started long before the window, and the scan
/// reads back that far, past files whose mtimes are before the window.
#[test]
fn a_window_finds_a_block_that_began_hours_before_it() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-home-dev-res");
    // A session an hour from 06:30 to 16:30, each in its own file closed at its request:
    // blocks 06:00–11:00 (06:30 to 10:30) and 11:00–16:00 (11:30 to 15:30), then 16:00.
    for h in 0..=10u32 {
        let id = format!("aaaaaaaa-0000-4000-8000-0000000000{h:02}");
        let at = format!("2026-06-01T{:02}:30:00.000Z", 6 + h);
        let path = dir.join(format!("{id}.jsonl"));
        write(&path, &turn(&id, &format!("M{h}"), None, &at, 1));
        set_mtime(&path, &format!("2026-06-01T{:02}:31:00Z", 6 + h));
    }
    assert_eq!(
        blocks(home.path(), &["--since", "2026-06-01T15:00:00Z"]),
        [
            ("2026-06-01T11:00:00.000Z".to_string(), 5),
            ("2026-06-01T16:00:00.000Z".to_string(), 1),
        ]
    );
}

/// A window leaves out the requests that have no time at all, and says how many on stderr.
#[test]
fn a_window_says_how_many_undated_requests_it_left_out() {
    const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
    const B: &str = "bbbbbbbb-0000-4000-8000-000000000002";
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-home-dev-res");
    write(
        &dir.join(format!("{A}.jsonl")),
        &turn(A, "A1", None, "2026-06-01T10:00:00.000Z", 1),
    );
    let dated = turn(B, "B1", None, "2026-06-01T11:00:00.000Z", 2)
        + &turn(B, "B2", Some("B1"), "2026-06-01T11:05:00.000Z", 4);
    let undated: String = dated
        .lines()
        .map(|l| {
            l.replace(r#","timestamp":"2026-06-01T11:00:00.000Z""#, "")
                .replace(r#","timestamp":"2026-06-01T11:05:00.000Z""#, "")
                + "\n"
        })
        .collect();
    assert!(!undated.contains("timestamp"));
    write(&dir.join(format!("{B}.jsonl")), &undated);
    let stderr = |args: &[&str]| {
        let out = common::sessions()
            .env("TZ", "UTC")
            .arg("--home")
            .arg(home.path())
            .arg("usage")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let note = "note: 2 requests without any time are left out by the --since/--until window";
    for args in [
        &["daily", "--since", "2026-06-01"][..],
        &["session", "--until", "2026-06-02"],
        &["blocks", "--since", "2026-06-01"],
    ] {
        let err = stderr(args);
        assert!(err.contains(note), "{args:?}: {err}");
        assert_eq!(
            err.matches("without any time").count(),
            1,
            "{args:?}: {err}"
        );
    }
    assert!(!stderr(&["daily"]).contains(note));
    assert!(!stderr(&["daily", "--quiet", "--since", "2026-06-01"]).contains("note"));
}
