//! End-to-end behaviour of the binary on small stores built in temporary folders: exit codes,
//! warnings, `--strict`, symlink loops, discovery precedence and Gemini hash matching.

use crate::common;

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use common::sessions;
use predicates::prelude::*;
use serde_json::Value;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

const CLAUDE_OK: &str = r#"{"type":"user","sessionId":"11111111-aaaa-4000-8000-000000000001","uuid":"u1","parentUuid":null,"cwd":"/home/dev/webapp","timestamp":"2026-05-01T10:00:00.000Z","message":{"role":"user","content":"hello there"}}
{"type":"assistant","sessionId":"11111111-aaaa-4000-8000-000000000001","uuid":"u2","parentUuid":"u1","cwd":"/home/dev/webapp","timestamp":"2026-05-01T10:00:05.000Z","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":20}}}
"#;

fn claude_home(dir: &Path) {
    write(
        &dir.join(".claude/projects/-home-dev-webapp/11111111-aaaa-4000-8000-000000000001.jsonl"),
        CLAUDE_OK,
    );
    let second = CLAUDE_OK
        .replace("000000000001", "000000000002")
        .replace("10:00", "11:00");
    write(
        &dir.join(".claude/projects/-home-dev-webapp/11111111-aaaa-4000-8000-000000000002.jsonl"),
        &second,
    );
}

fn json_list(cmd: &mut Command) -> Vec<Value> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn no_store_exits_1_and_points_at_the_sample() {
    let home = tempfile::tempdir().unwrap();
    sessions()
        .env("HOME", home.path())
        .arg("list")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--home testdata/home"));
}

/// Every command that reads the stores fails alike when none exists: exit 1, nothing on stdout
/// (no `[]` or zero statistics passed off as a read), where it looked on stderr.
#[test]
fn every_store_reading_command_fails_when_no_store_exists() {
    let home = tempfile::tempdir().unwrap();
    let commands: &[&[&str]] = &[
        &["list"],
        &["projects"],
        &["projects", "--format", "json"],
        &["compactions"],
        &["compactions", "--format", "json"],
        &["compactions", "--stats"],
        &["compactions", "--stats", "--format", "json"],
        &["usage"],
        &["export", "--all"],
        &["replay-compress", "-A", "pi", "--all", "--format", "json"],
        &["show", "abc"],
        &["export", "abc"],
        &["replay-compress", "-A", "pi", "abc"],
    ];
    for args in commands {
        for with_home in [false, true] {
            let mut c = sessions();
            c.env("HOME", home.path());
            if with_home {
                c.arg("--home").arg(home.path());
            }
            c.args(*args)
                .assert()
                .code(1)
                .stdout("")
                .stderr(predicate::str::contains(
                    "no Claude Code, Codex CLI or Gemini CLI session store found; looked in:",
                ));
        }
    }
}

/// `--agent` naming an agent whose store is absent, on a machine where another agent's store
/// exists: the stores are there and the filter selects nothing, as `--since` in the future
/// does (`No sessions found.`, exit 0, where it looked for that agent), not "no store found".
/// A filter given, `--fallback-home` does not apply.
#[test]
fn an_agent_filter_without_that_agents_store_selects_nothing() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home");
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["list", "--agent", "codex"],
            "No sessions found.\n",
            ".codex/sessions",
        ),
        (
            &["list", "--agent", "gemini"],
            "No sessions found.\n",
            ".gemini",
        ),
        (
            &["list", "--agent", "codex", "--format", "json"],
            "[]\n",
            "",
        ),
        (
            &["projects", "--agent", "codex"],
            "No projects found.\n",
            ".codex/sessions",
        ),
        (
            &["compactions", "--agent", "gemini"],
            "No compactions found.\n",
            ".gemini",
        ),
    ];
    for (args, stdout, looked) in cases {
        for fallback in [false, true] {
            let mut c = sessions();
            c.env("HOME", home.path()).args(*args);
            if fallback && args[0] == "list" {
                c.arg("--fallback-home").arg(&sample);
            }
            let out = c.output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), *stdout, "{args:?}");
            assert!(!stderr.contains("store found"), "{args:?}: {stderr}");
            assert!(!stderr.contains("instead"), "{args:?}: {stderr}");
            if !looked.is_empty() {
                let line = stderr.lines().find(|l| l.starts_with("looked in")).unwrap();
                assert!(line.contains(looked), "{args:?}: {stderr}");
                assert!(!line.contains(".claude"), "{args:?}: {stderr}");
            }
        }
    }
}

/// `--project-root` is checked like `--home`: one that is not a folder would resolve nothing,
/// in silence.
#[test]
fn a_project_root_that_is_no_folder_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    let file = home.path().join("a-file");
    fs::write(&file, "x").unwrap();
    for bad in [Path::new("/nonexistent-project-root"), file.as_path()] {
        for cmd in ["list", "projects", "usage"] {
            sessions()
                .arg("--home")
                .arg(home.path())
                .arg("--project-root")
                .arg(bad)
                .arg(cmd)
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains("--project-root"));
        }
    }
    sessions()
        .arg("--home")
        .arg(home.path())
        .arg("--project-root")
        .arg(home.path())
        .arg("list")
        .assert()
        .success();
}

/// `list --fallback-home` is checked like `--home`, before any scan: a missing folder is a usage
/// error whether or not the stores hold sessions.
#[test]
fn a_fallback_home_that_is_no_folder_is_a_usage_error() {
    let empty = tempfile::tempdir().unwrap();
    let full = tempfile::tempdir().unwrap();
    claude_home(full.path());
    let file = full.path().join("a-file");
    fs::write(&file, "x").unwrap();
    for home in [empty.path(), full.path()] {
        for bad in [Path::new("/nonexistent-fallback"), file.as_path()] {
            sessions()
                .arg("--home")
                .arg(home)
                .args(["list", "--fallback-home"])
                .arg(bad)
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains("--fallback-home"));
        }
    }
    // A folder with no store: where it looked, as before (exit 1).
    sessions()
        .arg("--home")
        .arg(empty.path())
        .args(["list", "--fallback-home"])
        .arg(empty.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("session store found"));
}

#[test]
fn home_flag_reads_a_copy_and_ignores_agent_environment() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    let rows = json_list(
        sessions()
            .env("HOME", "/nonexistent")
            .env("CLAUDE_CONFIG_DIR", "/also/nonexistent")
            .args(["--home"])
            .arg(home.path())
            .args(["list", "--format", "json"]),
    );
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["agent"], "claude");
    assert_eq!(rows[0]["project"], "/home/dev/webapp");
    assert_eq!(rows[0]["project_source"], "cwd");
    assert_eq!(rows[0]["schema_version"], 1);
    // Newest first.
    assert_eq!(rows[0]["id"], "11111111-aaaa-4000-8000-000000000002");
}

#[test]
fn claude_config_dir_env_and_flag_precedence() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    let cfg = home.path().join(".claude");
    let rows = json_list(
        sessions()
            .env("HOME", "/nonexistent")
            .env("CLAUDE_CONFIG_DIR", &cfg)
            .args(["list", "--format", "json"]),
    );
    assert_eq!(rows.len(), 2);
    // The flag beats the environment.
    let empty = tempfile::tempdir().unwrap();
    let out = sessions()
        .env("HOME", "/nonexistent")
        .env("CLAUDE_CONFIG_DIR", &cfg)
        .arg("--claude-dir")
        .arg(empty.path())
        .args(["list", "--format", "json", "--agent", "claude"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 0);
}

#[test]
fn malformed_lines_are_reported_with_line_numbers_and_strict_fails() {
    let home = tempfile::tempdir().unwrap();
    let text = format!(
        "{}this is not json\n{}",
        &CLAUDE_OK[..CLAUDE_OK.find('\n').unwrap() + 1],
        &CLAUDE_OK[CLAUDE_OK.find('\n').unwrap() + 1..]
    );
    let file = home
        .path()
        .join(".claude/projects/p/11111111-aaaa-4000-8000-000000000003.jsonl");
    write(&file, &text);
    let expected = format!("{}:2:", file.display());
    sessions()
        .arg("--home")
        .arg(home.path())
        .arg("list")
        .assert()
        .success()
        .stderr(predicate::str::contains(expected.clone()));
    sessions()
        .arg("--home")
        .arg(home.path())
        .args(["--strict", "list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(expected))
        .stderr(predicate::str::contains(
            "error: --strict: 1 problem reading the stores",
        ));
    // `--quiet` silences the warning, not the reason for the exit status.
    let out = sessions()
        .arg("--home")
        .arg(home.path())
        .args(["--quiet", "--strict", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --strict: 1 problem reading the stores\n"
    );
}

#[test]
fn truncated_last_line_is_not_a_strict_failure() {
    let home = tempfile::tempdir().unwrap();
    let text = format!("{CLAUDE_OK}{{\"type\":\"assistant\",\"mess");
    write(
        &home
            .path()
            .join(".claude/projects/p/11111111-aaaa-4000-8000-000000000004.jsonl"),
        &text,
    );
    let rows = json_list(
        sessions()
            .arg("--home")
            .arg(home.path())
            .args(["--strict", "list", "--format", "json"]),
    );
    assert_eq!(rows[0]["warnings"][0]["kind"], "truncated_last_line");
    assert_eq!(rows[0]["warnings"][0]["line"], 3);
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_dangling_links_are_reported_not_followed() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    let proj = home.path().join(".claude/projects/-home-dev-webapp");
    std::os::unix::fs::symlink(&proj, proj.join("loop")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/x.jsonl", proj.join("dangling.jsonl")).unwrap();
    let out = sessions()
        .arg("--home")
        .arg(home.path())
        .args(["list", "--format", "json"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("symlink loop"), "{err}");
    assert!(err.contains("dangling.jsonl"), "{err}");
    sessions()
        .arg("--home")
        .arg(home.path())
        .args(["--strict", "list"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(3);
}

#[test]
fn show_resolves_prefixes_and_lists_ambiguous_candidates() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    sessions()
        .arg("--home")
        .arg(home.path())
        .args(["show", "11111111-aaaa"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("matches 2 sessions"))
        .stderr(predicate::str::contains("000000000001"))
        .stderr(predicate::str::contains("000000000002"));
    sessions()
        .arg("--home")
        .arg(home.path())
        .args(["show", "11111111-aaaa-4000-8000-000000000002"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "project      /home/dev/webapp (from cwd)",
        ))
        .stdout(predicate::str::contains("hello there"));
    sessions()
        .arg("--home")
        .arg(home.path())
        .args(["show", "nope"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no session matches"));
}

#[test]
fn gemini_hash_is_matched_against_project_root_candidates() {
    let home = tempfile::tempdir().unwrap();
    let projects = tempfile::tempdir().unwrap();
    let proj = projects.path().join("clients/acme");
    fs::create_dir_all(&proj).unwrap();
    let proj = fs::canonicalize(&proj).unwrap();
    let hash = sessions::project::gemini_project_hash(proj.to_str().unwrap());
    let text = format!(
        "{{\"sessionId\":\"g-1\",\"projectHash\":\"{hash}\",\"startTime\":\"2026-05-01T10:00:00.000Z\",\"lastUpdated\":\"2026-05-01T10:00:00.000Z\",\"kind\":\"main\"}}\n\
         {{\"id\":\"m1\",\"timestamp\":\"2026-05-01T10:00:01.000Z\",\"type\":\"user\",\"content\":[{{\"text\":\"hi\"}}]}}\n"
    );
    write(
        &home.path().join(format!(
            ".gemini/tmp/{hash}/chats/session-2026-05-01T10-00-g-1.jsonl"
        )),
        &text,
    );
    let rows = json_list(
        sessions()
            .arg("--home")
            .arg(home.path())
            .args(["list", "--format", "json"]),
    );
    assert_eq!(rows[0]["project_source"], "unresolved");
    assert_eq!(rows[0]["project"], Value::Null);
    assert_eq!(rows[0]["project_hash"], hash);
    let rows = json_list(
        sessions()
            .arg("--home")
            .arg(home.path())
            .arg("--project-root")
            .arg(projects.path())
            .args(["list", "--format", "json"]),
    );
    assert_eq!(rows[0]["project_source"], "hash_match");
    assert_eq!(rows[0]["project"], proj.to_str().unwrap());
}

#[test]
fn a_claude_session_without_cwd_takes_its_folders_project() {
    let home = tempfile::tempdir().unwrap();
    let record = |id: &str, cwd: Option<&str>| {
        let cwd = cwd.map_or(String::new(), |c| format!("\"cwd\":\"{c}\","));
        format!(
            "{{\"type\":\"user\",\"uuid\":\"u-{id}\",\"parentUuid\":null,\"sessionId\":\"{id}\",{cwd}\"timestamp\":\"2026-05-01T10:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
        )
    };
    let projects = home.path().join(".claude/projects");
    write(
        &projects.join("-home-dev-webapp/a1.jsonl"),
        &record("a1", Some("/home/dev/webapp")),
    );
    write(
        &projects.join("-home-dev-webapp/b2.jsonl"),
        &record("b2", None),
    );
    write(
        &projects.join("-home-dev-lost/c3.jsonl"),
        &record("c3", None),
    );
    let rows = json_list(
        sessions()
            .arg("--home")
            .arg(home.path())
            .args(["list", "--format", "json"]),
    );
    let of = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(of("a1")["project_source"], "cwd");
    assert_eq!(of("b2")["project"], "/home/dev/webapp");
    assert_eq!(of("b2")["project_source"], "folder_match");
    assert_eq!(of("b2")["cwd"], Value::Null);
    assert_eq!(of("c3")["project"], Value::Null);
    assert_eq!(of("c3")["project_source"], "unresolved");
    let projects = json_list(
        sessions()
            .arg("--home")
            .arg(home.path())
            .args(["projects", "--format", "json"]),
    );
    let webapp = projects
        .iter()
        .find(|p| p["project"] == "/home/dev/webapp")
        .unwrap();
    assert_eq!(webapp["sessions"], 2);
}

#[test]
fn bad_arguments_are_usage_errors() {
    sessions()
        .args(["list", "--since", "someday"])
        .assert()
        .code(2);
    sessions()
        .args(["list", "--format", "xml"])
        .assert()
        .code(2);
}

#[test]
fn since_skips_old_files_without_reading_them() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    // A file that would fail --strict if it were read, but is old by mtime.
    let old = home
        .path()
        .join(".claude/projects/p/22222222-aaaa-4000-8000-000000000009.jsonl");
    write(&old, "garbage\n");
    let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    common::set_modified(&old, t);
    sessions()
        .arg("--home")
        .arg(home.path())
        .args(["--strict", "list", "--since", "2021-01-01"])
        .assert()
        .success()
        .stderr(predicate::str::contains("outside the time window not read"));
}

/// One file reached several ways (a folder named twice, a folder inside another, a symlinked
/// folder, a hard link) is one session: discovery knows a file by its identity on disk.
#[test]
fn a_file_reached_several_ways_is_listed_once() {
    let tmp = tempfile::tempdir().unwrap();
    claude_home(tmp.path());
    let proj = tmp.path().join(".claude/projects/-home-dev-webapp");
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&proj, elsewhere.join("linked")).unwrap();
    fs::hard_link(
        proj.join("11111111-aaaa-4000-8000-000000000001.jsonl"),
        elsewhere.join("11111111-aaaa-4000-8000-000000000001.jsonl"),
    )
    .unwrap();
    let listed = json_list(
        sessions()
            .args(["list", "--format", "json"])
            .arg(&proj)
            .arg(&proj)
            .arg(tmp.path().join(".claude"))
            .arg(elsewhere.join("linked"))
            .arg(&elsewhere),
    );
    let mut ids: Vec<&str> = listed.iter().map(|s| s["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "11111111-aaaa-4000-8000-000000000001",
            "11111111-aaaa-4000-8000-000000000002"
        ],
        "{listed:?}"
    );
}

/// A diagnostic that cannot be written (stderr a pipe whose reader is gone, as in
/// `sessions list 2>&1 | head -1`) is dropped: the exit code stays the documented one, never
/// a panic's 101.
#[test]
fn a_closed_stderr_keeps_the_documented_exit_codes() {
    let home = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");
    let damaged = common::damaged("");
    let cases: [(&[&str], i32); 5] = [
        (&["--home", home, "list"], 0),
        (&["--home", home, "usage"], 0),
        (&["--home", home, "show", "ffffffff"], 1),
        (&["--home", home, "list", "--since", "-7d"], 2),
        (&["list", "--strict", damaged.to_str().unwrap()], 3),
    ];
    for (args, code) in cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_sessions"))
            .args(args)
            .env("TZ", "UTC")
            .stdout(std::process::Stdio::null())
            .stderr(writer)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(code), "{args:?}");
    }
}

/// Legacy Gemini CLI rewrites a session's whole document on every update: one read mid-rewrite
/// finds it empty or ending inside its JSON. Still so when read again, it is a write in progress
/// (benign, listed with `-v`) when the file was just written, and damage once it is older.
#[test]
fn a_legacy_gemini_document_cut_short_is_mid_rewrite_only_when_just_written() {
    let home = tempfile::tempdir().unwrap();
    let path = home
        .path()
        .join(".gemini/tmp/live/chats/session-2026-11-27T10-00-gggg0001.json");
    for cut in [
        "",
        "{\n  \"sessionId\": \"gggg0001-0000-4000-8000-000000000001\",\n  \"messages\": [\n    {\"type\": \"us",
    ] {
        write(&path, cut);
        sessions()
            .arg("--home")
            .arg(home.path())
            .args(["--strict", "list"])
            .assert()
            .success()
            .stderr(predicate::str::contains("warning").not());
        sessions()
            .arg("--home")
            .arg(home.path())
            .args(["-v", "--strict", "list"])
            .assert()
            .success()
            .stderr(predicate::str::contains("1 truncated_document"));
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        common::set_modified(&path, hour_ago);
        sessions()
            .arg("--home")
            .arg(home.path())
            .args(["--strict", "list"])
            .assert()
            .code(3)
            .stderr(predicate::str::contains("1 malformed_document"));
    }
}

/// `show <id>` that finds no session names what kept a file named like the id from being
/// read, whatever the warning's kind and whether or not `-v` lists it, and not other files'.
#[test]
fn show_of_an_id_names_the_warnings_of_files_named_like_it() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".gemini/tmp/live/chats");
    let cut = chats.join("session-2026-11-27T10-00-gggg0001.json");
    write(
        &cut,
        "{\n  \"sessionId\": \"gggg0001-0000-4000-8000-000000000001\",\n  \"messages\": [\n    {\"type\": \"us",
    );
    write(&chats.join("session-2026-11-27T11-00-hhhh0001.json"), "{]");
    let show = |id: &str, kind: &str| {
        for command in [
            &["show"][..],
            &["export"],
            &["replay-compress", "--algorithm", "gemini"],
        ] {
            looked_up(home.path(), command, id, kind);
        }
    };
    // Just written: a rewrite in progress, a warning `-v` alone lists.
    show("gggg0001", "truncated_document");
    // The full id, of which Gemini's file name holds the first 8 characters.
    show("gggg0001-0000-4000-8000-000000000001", "truncated_document");
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    common::set_modified(&cut, hour_ago);
    show("gggg0001", "malformed_document");
}

fn looked_up(home: &Path, command: &[&str], id: &str, kind: &str) {
    let out = sessions()
        .arg("--home")
        .arg(home)
        .arg("--strict")
        .args(command)
        .arg(id)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{command:?}: {err}");
    assert!(
        err.contains(&format!("no session matches {id:?}")),
        "{command:?}: {err}"
    );
    assert!(
        err.contains("1 warning about files named like it"),
        "{command:?}: {err}"
    );
    assert!(
        err.contains("session-2026-11-27T10-00-gggg0001.json"),
        "{command:?}: {err}"
    );
    assert!(err.contains(&format!("({kind})")), "{command:?}: {err}");
    assert!(!err.contains("hhhh0001"), "{command:?}: {err}");
}

/// The warnings of files named like an id explain an id that matched nothing. An ambiguous id
/// matched sessions: its candidates are the answer, one to a line, with no warnings of other
/// files after the last. And a text shorter than Gemini's 8-character file-name id is in the
/// names of files of any session: it says nothing of a file.
#[test]
fn a_short_or_ambiguous_id_names_no_unrelated_files() {
    let home = tempfile::tempdir().unwrap();
    claude_home(home.path());
    let chats = home.path().join(".gemini/tmp/live/chats");
    write(&chats.join("session-2026-11-27T10-00-11111111.json"), "{]");
    write(&chats.join("session-2026-11-27T11-00-gggg0001.json"), "{]");
    for (id, answer) in [
        ("11111111-aaaa", "matches 2 sessions"),
        ("g", "no session matches \"g\""),
    ] {
        let out = sessions()
            .arg("--home")
            .arg(home.path())
            .args(["show", id])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(answer), "{err}");
        assert!(!err.contains("named like it"), "{err}");
        assert!(
            !err.contains("-11111111.json") && !err.contains("gggg0001"),
            "{err}"
        );
    }
}

/// A store's files named as no session of their agent is (a renamed rollout, a copied chat, a
/// transcript moved up into projects/) are not read; `--verbose` says how many, where and why.
#[test]
fn misnamed_files_in_a_store_are_counted_under_verbose() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home");
    let copy = |from: &str, to: &str| {
        fs::create_dir_all(h.join(to).parent().unwrap()).unwrap();
        fs::copy(sample.join(from), h.join(to)).unwrap();
    };
    copy(
        ".codex/sessions/2026/04/02/rollout-2026-04-02T14-30-00-019d4e99-de40-7b52-9d63-6e2f3a4b5c02.jsonl",
        ".codex/sessions/2026/04/02/renamed.jsonl",
    );
    copy(
        ".claude/projects/-home-dev-webapp/1b2c3d4e-0a9f-4e8d-8c7b-6a5f4e3d2c10.jsonl",
        ".claude/projects/stray.jsonl",
    );
    copy(
        ".claude/projects/-home-dev-webapp/1b2c3d4e-0a9f-4e8d-8c7b-6a5f4e3d2c10.jsonl",
        ".claude/projects/-p/1b2c3d4e-0a9f-4e8d-8c7b-6a5f4e3d2c10.jsonl",
    );
    copy(
        ".gemini/tmp/api-server/chats/session-2026-06-10T08-30-e5f6a7b8.jsonl",
        ".gemini/tmp/x/chats/mychat.jsonl",
    );
    let run = |verbose: bool| {
        let mut c = sessions();
        c.env("HOME", h).arg("list");
        if verbose {
            c.arg("-v");
        }
        let out = c.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let err = run(true);
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes.len(), 3, "{err}");
    assert!(
        notes[0].starts_with("note: 1 file in ") && notes[0].contains(".claude/projects not read"),
        "{err}"
    );
    assert!(err.contains("(stray.jsonl)"), "{err}");
    assert!(
        err.contains(".codex/sessions not read (2026/04/02/renamed.jsonl)"),
        "{err}"
    );
    assert!(
        err.contains(".gemini/tmp not read (x/chats/mychat.jsonl)"),
        "{err}"
    );
    assert!(!run(false).contains("note"));
}

/// Ids are hex: one written in capitals names the same session, and a match as written wins.
#[test]
fn ids_and_prefixes_match_regardless_of_case() {
    let home = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");
    for target in [
        "6f0d3c52",
        "6F0D3C52",
        "6F0D3C52-8A1E-4B7F-9C2D-1E5A7B3C9D01",
    ] {
        let out = sessions()
            .args(["--home", home, "show", target, "--format", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(s["id"], "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01", "{target}");
    }
}

/// `export` and `replay-compress` without a session suggest `--all`, whatever the binary is
/// called (the tip looked for "sessions export" in clap's usage line, which names argv[0]).
#[test]
fn the_all_tip_does_not_depend_on_the_binary_name() {
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("agent-logs");
    fs::copy(assert_cmd::cargo::cargo_bin("sessions"), &renamed).unwrap();
    for (args, tip) in [
        (&["export"][..], "sessions export --all -o out/"),
        (
            &["replay-compress", "-A", "pi"][..],
            "sessions replay-compress --all -A gemini",
        ),
    ] {
        let out = std::process::Command::new(&renamed)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(tip), "{args:?}: {err}");
        // And it fits an 80-column terminal, as the usage lines around it do.
        assert!(
            err.lines().all(|l| l.chars().count() <= 80),
            "{args:?}: {err}"
        );
    }
}

/// A session file named on the command line is read by its content, whatever its name: a copy
/// saved as `x.txt`, `x.JSONL` or with no extension reads as the original does (JSON lines or
/// one document, of each agent), in `show` and in `list`.
#[test]
fn a_named_session_file_is_read_by_its_content_whatever_its_name() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home");
    let gemini_doc = sample.join(
        ".gemini/tmp/fd20db9cf4309815aebd3729173edf8a78abb152c57b1de8cb602a3c8b959627/chats/\
         session-2026-03-04T09-15-a1b2c3d4.json",
    );
    let originals = [
        sample.join(".claude/projects/-home-dev-webapp/6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01.jsonl"),
        sample.join(
            ".codex/sessions/2026/03/14/\
             rollout-2026-03-14T09-15-02-019ceba0-adf0-7a31-8c42-5d1e2f3a4b01.jsonl",
        ),
        sample.join(".codex/sessions/rollout-2025-04-18-a3b4c5d6-e7f8-4a9b-8c0d-1e2f3a4b5c6d.json"),
        sample.join(".gemini/tmp/webapp/chats/session-2026-04-14T16-40-b2c3d4e5.jsonl"),
        gemini_doc.clone(),
    ];
    let dir = tempfile::tempdir().unwrap();
    // The legacy Gemini document written on one line, as a minifier leaves it.
    let doc: Value = serde_json::from_slice(&fs::read(&gemini_doc).unwrap()).unwrap();
    let one_line = dir.path().join("one-line.json");
    write(&one_line, &doc.to_string());
    let shown = |path: &Path| {
        let mut v = common::json_of(
            sessions()
                .env("HOME", dir.path())
                .args(["show", "--format", "json"])
                .arg(path),
        );
        v.as_object_mut().unwrap().remove("path");
        v
    };
    for (i, original) in originals.iter().chain([&one_line]).enumerate() {
        // Beside the copies, under its own name: where a file lies can resolve its project.
        let same_name = dir
            .path()
            .join(i.to_string())
            .join(original.file_name().unwrap());
        write(&same_name, &fs::read_to_string(original).unwrap());
        let expected = shown(&same_name);
        assert!(
            expected["counts"]["user_turns"].as_u64() > Some(0),
            "{original:?}"
        );
        for name in ["saved.txt", "saved.JSONL", "saved"] {
            let copy = dir.path().join(i.to_string()).join(name);
            write(&copy, &fs::read_to_string(original).unwrap());
            assert_eq!(shown(&copy), expected, "{copy:?} as {original:?}");
            let listed = common::json_array(
                sessions()
                    .env("HOME", dir.path())
                    .args(["list", "--format", "json"])
                    .arg(&copy),
            );
            assert_eq!(listed.len(), 1, "{copy:?}");
            assert_eq!(listed[0]["agent"], expected["agent"], "{copy:?}");
        }
    }
}

/// A damaged file the user names, whose name is one a store gives its sessions, is read as that
/// agent's: its damage is reported at its line and fails `--strict` (exit 3), where it was
/// called "not a session file" and passed. A file of another name that shows no agent is still
/// not a session.
#[test]
fn a_named_damaged_session_file_reports_its_damage() {
    let dir = tempfile::tempdir().unwrap();
    let rollout = fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "testdata/home/.codex/sessions/2026/04/02/rollout-2026-04-02T14-30-00-019d4e99-de40-7b52-9d63-6e2f3a4b5c02.jsonl",
        ),
    )
    .unwrap();
    let zst = zstd::encode_all(&rollout[..], 3).unwrap();
    let cases = [
        (
            "rollout-2026-05-20T15-58-40-019e461c-4b80-7c73-ae84-7f3a4b5c6d03.jsonl.zst",
            zst[..zst.len() / 2].to_vec(),
            "read error",
        ),
        (
            "session-2026-05-06T10-00-aaaa0012.json",
            br#"{"sessionId":"aaaa0012","messages":["#.to_vec(),
            "not a valid JSON document",
        ),
        (
            "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d0f.jsonl",
            b"{\"type\":\"user\",\"message\":{\"content\":tru\n".to_vec(),
            "skipped malformed line",
        ),
    ];
    for (name, bytes, said) in cases {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        // Old enough not to be a document caught mid-rewrite.
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        common::set_modified(&path, old);
        let out = sessions()
            .args(["--strict", "list"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{name}: {err}");
        assert!(err.contains(&format!("{name}:1: {said}")), "{name}: {err}");
        assert!(!err.contains("not a session file"), "{name}: {err}");
    }
    let other = dir.path().join("notes.jsonl");
    fs::write(&other, "{\"a\":1}\n").unwrap();
    sessions()
        .args(["--strict", "list"])
        .arg(&other)
        .assert()
        .success()
        .stderr(predicate::str::contains("not a session file"));
}
