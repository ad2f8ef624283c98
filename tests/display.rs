//! Human output: every table and `show` fitted to 80, 100 and 200 columns (insta snapshots of
//! the sample home), titles cut by display width (CJK, emoji), hostile control characters never
//! reaching the terminal, one time-zone rule, empty stores and the README's fallback, and the
//! help that teaches.

use crate::common;

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const WIDTHS: [usize; 3] = [80, 100, 200];
/// Central European time as a POSIX TZ rule (no time-zone database needed).
const BERLIN: &str = "CET-1CEST,M3.5.0,M10.5.0/3";

/// The binary on the sample home, with a relative `--home` so that paths in the output do not
/// depend on where the repository is checked out.
fn sample(width: usize) -> Command {
    let mut c = common::sessions();
    c.current_dir(ROOT)
        .env("COLUMNS", width.to_string())
        .args(["--home", "testdata/home"]);
    c
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn display_width(s: &str) -> usize {
    sessions::render::text::width(s)
}

fn assert_fits(name: &str, text: &str, width: usize) {
    for line in text.lines() {
        assert!(
            display_width(line) <= width,
            "{name} at {width}: {} columns: {line:?}",
            display_width(line)
        );
    }
}

#[test]
fn tables_fit_80_100_and_200_columns() {
    let commands: [(&str, &[&str]); 5] = [
        ("list", &["list"]),
        ("list_all_kinds", &["list", "--kind", "all"]),
        ("projects", &["projects"]),
        ("compactions", &["compactions"]),
        ("show", &["show", "6f0d3c52"]),
    ];
    for (name, args) in commands {
        for w in WIDTHS {
            let text = stdout(sample(w).args(args));
            assert_fits(name, &text, w);
            insta::assert_snapshot!(format!("{name}_{w}"), text);
        }
    }
}

#[test]
fn narrow_tables_keep_what_matters_and_wide_keeps_everything() {
    let narrow = stdout(sample(80).arg("list"));
    let header = narrow.lines().next().unwrap();
    for col in ["ID", "PROJECT", "STARTED", "TITLE"] {
        assert!(header.contains(col), "{header}");
    }
    // In a zone with daylight saving, each start cell carries its offset and the column is
    // wider: the start still stays, and the tokens give way before it.
    let dst = stdout(sample(80).env("TZ", BERLIN).arg("list"));
    let header = dst.lines().next().unwrap();
    assert!(
        header.contains("STARTED") && !header.contains("TOKENS"),
        "{dst}"
    );
    assert!(dst.contains("2026-08-30 21:45 +02:00"), "{dst}");
    assert_fits("list in Berlin", &dst, 80);
    assert!(
        !header.contains("CMP"),
        "the least useful column goes first: {header}"
    );
    // Ids are cut to a prefix that `show` accepts.
    let id = narrow
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap();
    assert!(id.len() >= 8);
    stdout(sample(80).args(["show", id]));
    // --wide and a pipe with no COLUMNS keep every column whole.
    let wide = stdout(sample(80).args(["--wide", "list"]));
    let mut piped = common::sessions();
    piped
        .current_dir(ROOT)
        .env_remove("COLUMNS")
        .args(["--home", "testdata/home", "list"]);
    let piped = stdout(&mut piped);
    assert_eq!(wide, piped);
    for col in ["DUR", "TURNS", "TOOLS", "TOKENS", "CMP"] {
        assert!(wide.lines().next().unwrap().contains(col));
    }
    assert!(wide.contains("019d4e99-de40"));
    assert!(wide.lines().any(|l| display_width(l) > 100));
}

/// A table's short id is one `show` takes back even when a filter hid the session it had to
/// be told from: one read and left out (`--until`), or one skipped unread (`--since`, by
/// its file's time). Here the two ids share their first 25 characters.
#[test]
fn short_ids_stay_unique_among_the_sessions_a_filter_hides() {
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join(".claude/projects/-home-dev-webapp");
    fs::create_dir_all(&folder).unwrap();
    let id = "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01";
    let twin = "6f0d3c52-8a1e-4b7f-9c2d-1fffffffffff";
    let text = fs::read_to_string(
        Path::new(ROOT)
            .join("testdata/home/.claude/projects/-home-dev-webapp")
            .join(format!("{id}.jsonl")),
    )
    .unwrap();
    fs::copy(
        Path::new(ROOT)
            .join("testdata/home/.claude/projects/-home-dev-webapp")
            .join(format!("{id}.jsonl")),
        folder.join(format!("{id}.jsonl")),
    )
    .unwrap();
    let old = folder.join(format!("{twin}.jsonl"));
    fs::write(
        &old,
        text.replace(id, twin)
            .replace("\"2026-03-14T", "\"2025-01-14T"),
    )
    .unwrap();
    let january = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_736_900_000);
    common::set_modified(&old, january);
    let run = |args: &[&str]| {
        let mut c = common::sessions();
        c.env("HOME", home.path()).env("COLUMNS", "80").args(args);
        c
    };
    // `--since` skips the twin's file unread; `--until` reads the other and leaves it out.
    for (filter, expected) in [("--since=2026-03-01", id), ("--until=2025-12-31", twin)] {
        let listed = stdout(&mut run(&["list", filter]));
        let shown: Vec<&str> = listed
            .lines()
            .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("6f0d3c52")))
            .collect();
        assert_eq!(shown.len(), 1, "{listed}");
        assert!(shown[0].len() > 25, "{filter}: {listed}");
        let detail = stdout(&mut run(&["show", shown[0]]));
        assert!(detail.contains(expected), "{filter}: {detail}");
    }
}

#[test]
fn replay_tables_fit_80_columns() {
    let text = stdout(sample(80).args(["replay-compress", "--all", "-A", "gemini"]));
    assert_fits("replay-compress", &text, 80);
    assert!(text.contains("SAVED%"), "{text}");
    // A sweep of two keys: every row's setting whole, in the order the keys were given (the
    // other columns give way first).
    let sweep = stdout(sample(80).args([
        "replay-compress",
        "--all",
        "-A",
        "gemini",
        "--sweep",
        "threshold=0.2,0.5",
        "--sweep",
        "masking=true,false",
    ]));
    assert_fits("sweep", &sweep, 80);
    // The validation tables and their legends too.
    for alg in ["codex", "claude"] {
        let v = stdout(sample(80).args(["replay-compress", "--all", "-A", alg, "--validate"]));
        assert!(v.contains("REC AT") && v.contains("fidelity:"), "{v}");
        assert_fits("validate", &v, 80);
    }
    for setting in [
        "threshold=0.2 masking=true ",
        "threshold=0.2 masking=false ",
        "threshold=0.5 masking=true ",
        "threshold=0.5 masking=false ",
    ] {
        assert!(sweep.contains(setting), "{setting}: {sweep}");
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile and wide text.

const HOSTILE_ID: &str = "0e5c0e5c-1111-4222-8333-444455556666";

/// A Claude session whose prompt (hence title), reply, tool output and cwd carry terminal
/// escapes (retitle, clear screen, clipboard write, C1 CSI, bidi override) and CJK and emoji.
fn hostile_home(dir: &Path) {
    let cwd = "/home/dev/\u{1b}]0;pwned\u{7}プロジェクト";
    let title = "日本語のタイトルはとても長い 🙂🙂 \u{1b}[2J\u{1b}]52;c;cm0gLXJmIC8=\u{7} \u{9b}31m\u{202e}txt.exe";
    let rec =
        |kind: &str, uuid: &str, parent: Option<&str>, t: &str, message: serde_json::Value| {
            serde_json::json!({
            "type": kind, "sessionId": HOSTILE_ID, "uuid": uuid, "parentUuid": parent,
            "isSidechain": false, "cwd": cwd, "version": "2.1.90",
            "timestamp": format!("2026-05-01T10:00:{t}.000Z"), "requestId": format!("req_{uuid}"),
            "message": message,
        })
        .to_string()
        };
    let lines = [
        rec(
            "user",
            "u1",
            None,
            "00",
            serde_json::json!({"role": "user", "content": title}),
        ),
        rec(
            "assistant",
            "a1",
            Some("u1"),
            "05",
            serde_json::json!({"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Done \u{1b}[31mred\u{1b}[0m\r\u{1b}[Kspoofed"},
                            {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                             "input": {"command": "printf '\u{1b}]0;x\u{7}'"}}],
                "usage": {"input_tokens": 1200, "output_tokens": 34}}),
        ),
        rec(
            "user",
            "u2",
            Some("a1"),
            "06",
            serde_json::json!({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_1", "is_error": true,
                "content": "\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2Jfailed"}]}),
        ),
    ];
    let file = dir.join(format!(".claude/projects/-home-dev-x/{HOSTILE_ID}.jsonl"));
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, lines.join("\n") + "\n").unwrap();
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    hostile_home(dir.path());
    let run = |args: &[&str], width: usize| {
        let mut c = common::sessions();
        c.env("COLUMNS", width.to_string())
            .arg("--home")
            .arg(dir.path())
            .args(args);
        let out = c.output().unwrap();
        assert!(out.status.success(), "{args:?}");
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    for args in [
        &["list"][..],
        &["list", "--kind", "all"],
        &["projects"],
        &["show", "0e5c0e5c"],
        &["export", "0e5c0e5c"],
        &["export", "0e5c0e5c", "--literal"],
        &["export", "0e5c0e5c", "-f", "html"],
    ] {
        for w in [80, 200] {
            let (out, err) = run(args, w);
            for text in [&out, &err] {
                let bad: Vec<char> = text
                    .chars()
                    .filter(|c| {
                        (c.is_control() && *c != '\n' && *c != '\t')
                            || ('\u{202a}'..='\u{202e}').contains(c)
                    })
                    .collect();
                assert!(bad.is_empty(), "{args:?} at {w}: {bad:?} in\n{text}");
            }
            if args[0] != "export" {
                assert_fits(&format!("{args:?}"), &out, w);
            }
            // The escapes are visible (where the cut leaves them room).
            assert!(
                out.contains("^") || args[0] == "projects",
                "{args:?}: {out}"
            );
        }
    }
    let (show, _) = run(&["show", "0e5c0e5c"], 200);
    assert!(show.contains("^[]52;c;cm0gLXJmIC8=^G"), "{show}");
    assert!(show.contains("M-^[31m<U+202E>txt.exe"), "{show}");
    assert!(show.contains("プロジェクト"), "{show}");
    // JSON keeps the characters (escaped by the serialiser).
    let (json, _) = run(&["list", "--format", "json"], 80);
    assert!(json.contains("\\u001b[2J"), "{json}");
    let (json, _) = run(&["show", "0e5c0e5c", "--format", "json"], 80);
    assert!(json.contains("\\u001b]52;c;ZXZpbA==\\u0007"));
}

/// Every report that writes CSV, with the arguments it takes here.
const CSV_REPORTS: [&[&str]; 4] = [
    &["list"],
    &["projects"],
    &["usage", "session", "--breakdown"],
    &["usage", "project"],
];

/// CSV is data: piped, a cell holds the session's text byte for byte.
#[test]
fn csv_is_exact_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    hostile_home(dir.path());
    for args in CSV_REPORTS {
        let mut c = common::sessions();
        c.arg("--home")
            .arg(dir.path())
            .args(args)
            .args(["--format", "csv"]);
        let piped = stdout(&mut c);
        assert!(piped.contains("\u{1b}]0;pwned\u{7}"), "{args:?}: {piped}");
    }
    let mut c = common::sessions();
    c.arg("--home")
        .arg(dir.path())
        .args(["list", "--format", "csv"]);
    let piped = stdout(&mut c);
    let mut rows = csv::Reader::from_reader(piped.as_bytes());
    let title = rows
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "title")
        .unwrap();
    let row = rows.records().next().unwrap().unwrap();
    assert!(row[title].contains("\u{1b}[2J\u{1b}]52;c;cm0gLXJmIC8=\u{7} \u{9b}31m\u{202e}"));
}

/// The other half: on a terminal (a pseudo-terminal from util-linux `script`), CSV cells show
/// control characters as the tables do, for a terminal would act on them.
#[test]
#[cfg_attr(
    not(has_script),
    ignore = "needs util-linux `script` for a pseudo-terminal"
)]
fn csv_on_a_terminal_shows_control_characters_as_escapes() {
    let dir = tempfile::tempdir().unwrap();
    hostile_home(dir.path());
    let bin = assert_cmd::cargo::cargo_bin("sessions");
    for args in CSV_REPORTS {
        let line = format!(
            "'{}' --home '{}' {} --format csv",
            bin.display(),
            dir.path().display(),
            args.join(" ")
        );
        let out = std::process::Command::new(env!("SESSIONS_SCRIPT"))
            .args(["-qec", &line, "/dev/null"])
            .env("TZ", "UTC")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let shown = String::from_utf8(out.stdout).unwrap();
        let bad: Vec<char> = shown
            .chars()
            .filter(|c| {
                (c.is_control() && !['\n', '\r'].contains(c))
                    || ('\u{202a}'..='\u{202e}').contains(c)
            })
            .collect();
        assert!(bad.is_empty(), "{args:?}: {bad:?} in\n{shown}");
        assert!(shown.contains("^[]0;pwned^G"), "{args:?}: {shown}");
    }
}

#[test]
fn wide_characters_are_cut_by_display_width() {
    let dir = tempfile::tempdir().unwrap();
    hostile_home(dir.path());
    for w in [60, 80, 100, 120] {
        let mut c = common::sessions();
        c.env("COLUMNS", w.to_string())
            .arg("--home")
            .arg(dir.path())
            .arg("list");
        let text = stdout(&mut c);
        assert_fits("list", &text, w);
        let row = text.lines().nth(1).unwrap();
        assert!(row.contains("日本語"), "{row}");
    }
}

/// A soft hyphen (U+00AD) is drawn in a column by the terminals that follow glibc's `wcwidth`
/// (xterm, VTE): a text full of them, cut to 80 columns, still fits 80 there.
#[test]
fn soft_hyphens_never_overflow_the_width() {
    let dir = tempfile::tempdir().unwrap();
    let id = "50f70000-0000-4000-8000-0000000000ad";
    let text = "Silben\u{ad}tren\u{ad}nung ".repeat(30);
    let rec = |kind: &str, uuid: &str, t: &str, message: serde_json::Value| {
        serde_json::json!({
            "type": kind, "sessionId": id, "uuid": uuid, "parentUuid": null,
            "isSidechain": false, "cwd": "/home/dev/x", "version": "2.1.90",
            "timestamp": format!("2026-05-01T10:00:{t}.000Z"), "message": message,
        })
        .to_string()
    };
    let lines = [
        rec(
            "user",
            "u1",
            "00",
            serde_json::json!({"role": "user", "content": text}),
        ),
        rec(
            "assistant",
            "a1",
            "05",
            serde_json::json!({"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text},
                    {"type": "tool_use", "id": "t1", "name": "Bash",
                     "input": {"command": text}}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}),
        ),
    ];
    let file = dir
        .path()
        .join(format!(".claude/projects/-home-dev-x/{id}.jsonl"));
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, lines.join("\n") + "\n").unwrap();
    let wcwidth = |l: &str| unicode_width::UnicodeWidthStr::width(l) + l.matches('\u{ad}').count();
    for args in [&["show", "50f70000"][..], &["list"]] {
        let out = stdout(
            common::sessions()
                .env("COLUMNS", "80")
                .arg("--home")
                .arg(dir.path())
                .args(args),
        );
        assert!(out.contains('\u{ad}'), "{args:?}: {out}");
        for line in out.lines() {
            assert!(
                wcwidth(line) <= 80,
                "{args:?}: {} columns: {line:?}",
                wcwidth(line)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Times, numbers, words.

#[test]
fn one_time_zone_rule() {
    let local = |tz: &str, utc: bool| {
        let mut c = sample(200);
        c.env("TZ", tz);
        if utc {
            c.arg("--utc");
        }
        stdout(c.args(["show", "6f0d3c52"]))
    };
    let berlin = local(BERLIN, false);
    assert!(
        berlin.contains("2026-03-14 10:00:00 +01:00 → 2026-03-14 11:02:00 +01:00"),
        "{berlin}"
    );
    assert!(berlin.contains("── 2026-03-14 (+01:00) ──"));
    let utc = local(BERLIN, true);
    assert!(
        utc.contains("2026-03-14 09:00:00 UTC → 2026-03-14 10:02:00 UTC"),
        "{utc}"
    );
    let mut list = sample(200);
    list.env("TZ", BERLIN).arg("list");
    let list = stdout(&mut list);
    // March is +01:00 and summer +02:00: each cell carries its offset.
    assert!(list.contains("2026-03-14 10:00 +01:00"), "{list}");
    assert!(list.contains("2026-07-20 18:00 +02:00"), "{list}");
    let mut list = sample(200);
    list.env("TZ", BERLIN).args(["--utc", "list"]);
    let list = stdout(&mut list);
    assert!(
        list.lines().next().unwrap().contains("STARTED (UTC)"),
        "{list}"
    );
    // The Markdown export follows the same rule.
    let mut md = sample(200);
    md.env("TZ", BERLIN).args(["export", "6f0d3c52"]);
    let md = stdout(&mut md);
    assert!(md.contains("2026-03-14 10:00:00 +01:00"), "{md}");
}

/// A session named by its path lists its sub-agents as it does when found by id: the files
/// its links name are read.
#[test]
fn show_by_path_lists_the_linked_subagents() {
    let path = "testdata/home/.claude/projects/-home-dev-api-server/\
                c4d5e6f7-1a2b-4c3d-8e9f-0a1b2c3d4e50.jsonl";
    let mut by_path = common::sessions();
    by_path
        .current_dir(ROOT)
        .env("COLUMNS", "200")
        .env("HOME", "/nonexistent-home")
        .args(["show", path]);
    let by_path = stdout(&mut by_path);
    let by_id = stdout(sample(200).args(["show", "c4d5e6f7"]));
    let line = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("sub-agents"))
            .map(str::to_string)
            .unwrap_or_default()
    };
    assert!(
        line(&by_path).contains("agent-a5f3c2e1d0b9a8c7e (Explore, 2 assistant messages"),
        "{by_path}"
    );
    assert_eq!(line(&by_path), line(&by_id));
}

#[test]
fn undated_sessions_are_not_dated_today() {
    let text = stdout(sample(200).args(["list", "--format", "json"]));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let saved = rows.iter().find(|r| r["id"] == "checkpoint-mytag").unwrap();
    assert!(saved["started_at"].is_null() && saved["updated_at"].is_null());
    let table = stdout(sample(200).arg("list"));
    let last = table.lines().last().unwrap();
    let newest = table.lines().nth(1).unwrap();
    assert!(!newest.contains("checkpoint"), "{newest}");
    assert!(
        last.contains("checkpoint"),
        "undated sessions sort last: {last}"
    );
}

#[test]
fn words_and_numbers() {
    let out = sample(200).arg("list").output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("22 sessions, "), "{err}");
    assert!(!err.contains("session(s)"));
    let out = sample(200)
        .args(["list", "--agent", "claude", "--since", "2026-08-01"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("1 session, "), "{err}");
    let show = stdout(sample(200).args(["show", "f0e1d2c3"]));
    assert!(
        show.contains("2 user turns · 1 assistant message · 0 tool calls"),
        "{show}"
    );
    assert!(show.contains("3,240 total over 1 request, "), "{show}");
}

#[test]
fn one_spelling_for_unknown_projects() {
    let list = stdout(sample(200).arg("list"));
    let projects = stdout(sample(200).arg("projects"));
    for text in [&list, &projects] {
        assert!(text.contains("unresolved 7b8ebbc4"), "{text}");
    }
    assert!(projects.contains("\nunknown "), "{projects}");
    assert!(list.contains("  unknown  "), "{list}");
    let show = stdout(sample(200).args(["show", "a7b8c9d0"]));
    assert!(show.contains("project      unresolved 7b8ebbc4 (Gemini projectHash"));
    let md = stdout(sample(200).args(["export", "a7b8c9d0"]));
    assert!(md.contains("unresolved 7b8ebbc4"), "{md}");
    let md = stdout(sample(200).args(["export", "a3b4c5d6"]));
    assert!(
        md.contains("unknown (no working directory recorded)"),
        "{md}"
    );
}

// ---------------------------------------------------------------------------------------------
// A fresh machine.

#[test]
fn empty_stores_say_where_they_looked_and_exit_0() {
    let home = tempfile::tempdir().unwrap();
    for d in [".claude/projects", ".codex/sessions", ".gemini/tmp"] {
        fs::create_dir_all(home.path().join(d)).unwrap();
    }
    let mut c = common::sessions();
    c.env("HOME", home.path()).arg("list");
    c.assert()
        .success()
        .stdout("No sessions found.\n")
        .stderr(predicate::str::contains("looked in"))
        .stderr(predicate::str::contains(".claude/projects"))
        .stderr(predicate::str::contains("0 sessions"));
    // So do the other reports of the stores, under their empty tables (not with --quiet).
    for (cmd, empty) in [
        ("projects", "No projects found.\n"),
        ("compactions", "No compactions found.\n"),
        ("usage", "No usage found.\n"),
    ] {
        for quiet in [false, true] {
            let mut c = common::sessions();
            c.env("HOME", home.path()).arg(cmd);
            if quiet {
                c.arg("--quiet");
            }
            let out = c.output().unwrap();
            assert!(out.status.success(), "{cmd}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), empty, "{cmd}");
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(
                err.starts_with("looked in ~/.claude/projects"),
                !quiet,
                "{cmd} --quiet {quiet}: {err}"
            );
        }
    }
    // `--agent claude` looked in Claude's stores only.
    let mut c = common::sessions();
    c.env("HOME", home.path())
        .args(["list", "--agent", "claude"]);
    let out = c.output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("looked in ~/.claude/projects"), "{err}");
    assert!(!err.contains(".codex") && !err.contains(".gemini"), "{err}");
    // The README's first command: the sample home when the stores hold nothing.
    let mut c = common::sessions();
    c.env("HOME", home.path())
        .current_dir(ROOT)
        .args(["list", "--fallback-home", "testdata/home"]);
    let out = c.output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 23, "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("your stores hold no session") && err.contains("listing testdata/home"),
        "{err}"
    );
    assert!(
        !err.contains("warning"),
        "a newcomer sees no warning: {err}"
    );
    // At 80 columns, the note fits them too: where it looked is wrapped.
    let mut c = common::sessions();
    c.env("HOME", home.path())
        .env("COLUMNS", "80")
        .current_dir(ROOT)
        .args(["list", "--fallback-home", "testdata/home"]);
    let out = c.output().unwrap();
    let (text, err) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    for line in text.lines().chain(err.lines()) {
        assert!(line.chars().count() <= 80, "{line:?} is wider than 80");
    }
    assert!(err.contains("\n  ~/.codex/archived_sessions"), "{err}");
    // No store at all: the same fallback.
    let bare = tempfile::tempdir().unwrap();
    let mut c = common::sessions();
    c.env("HOME", bare.path())
        .current_dir(ROOT)
        .args(["list", "--fallback-home", "testdata/home"]);
    c.assert().success();
    // A filter that matches nothing is not a fresh machine.
    let mut c = common::sessions();
    c.env("HOME", home.path()).current_dir(ROOT).args([
        "list",
        "--since",
        "1d",
        "--fallback-home",
        "testdata/home",
    ]);
    c.assert().success().stdout("No sessions found.\n");
}

// ---------------------------------------------------------------------------------------------
// Help.

#[test]
fn help_teaches() {
    for sub in common::SUBCOMMANDS {
        let help = stdout(common::sessions().args([sub, "--help"]));
        assert!(help.contains("Examples:\n  sessions "), "{sub}: {help}");
    }
    let out = common::sessions()
        .args(["replay-compress", "-A", "gemini"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("tip:") && err.contains("--all"),
        "replay-compress with no session suggests --all: {err}"
    );
}

#[test]
fn show_lists_a_result_whose_call_is_not_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("rollout-2026-05-05T10-00-00-0196eeee-0000-7000-8000-000000000005.jsonl");
    let lines = [
        r#"{"timestamp":"2026-05-05T10:00:00.000Z","type":"session_meta","payload":{"id":"0196eeee-0000-7000-8000-000000000005","timestamp":"2026-05-05T10:00:00.000Z","cwd":"/x","cli_version":"0.130.0"}}"#,
        r#"{"timestamp":"2026-05-05T10:00:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"zz","output":"hello output"}}"#,
        r#"{"timestamp":"2026-05-05T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A pixel."}]}}"#,
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let text = stdout(
        Command::cargo_bin("sessions")
            .unwrap()
            .env("COLUMNS", "80")
            .arg("show")
            .arg(&path),
    );
    assert!(
        text.contains("✓ zz (call not recorded): hello output"),
        "{text}"
    );
}

/// An image the session gave by URL shows its address (all the session holds of it) after its
/// placeholder: escaped, and cut to the width.
#[test]
fn show_prints_an_image_url() {
    let dir = tempfile::tempdir().unwrap();
    let id = "1a6e0000-0000-4000-8000-0000000000a1";
    let url = format!(
        "https://img.example.com/\u{1b}]0;x\u{7}/{}/shot.png",
        "very-long-path-segment/".repeat(6)
    );
    let line = serde_json::json!({
        "type": "user", "sessionId": id, "uuid": "u1", "parentUuid": null,
        "isSidechain": false, "cwd": "/x", "version": "2.1.90",
        "timestamp": "2026-05-01T10:00:00.000Z",
        "message": {"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "url", "url": url}}]},
    });
    let file = dir.path().join(format!(".claude/projects/-x/{id}.jsonl"));
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, format!("{line}\n")).unwrap();
    let show = |w: usize| {
        stdout(
            common::sessions()
                .env("COLUMNS", w.to_string())
                .arg("--home")
                .arg(dir.path())
                .args(["show", "1a6e0000"]),
        )
    };
    let wide = show(200);
    assert!(
        wide.contains("[image ?] https://img.example.com/^[]0;x^G/very-long-path-segment/"),
        "{wide}"
    );
    assert!(wide.contains("/shot.png"), "{wide}");
    let narrow = show(80);
    assert_fits("show", &narrow, 80);
    assert!(
        narrow.contains("[image ?] https://img.example.com/^[]0;x^G/very-long"),
        "{narrow}"
    );
    assert!(
        narrow.contains('…') && !narrow.contains("shot.png"),
        "{narrow}"
    );
}

/// Two Gemini saved chats whose tags share their first thirteen characters, and two Codex
/// sub-agents started in the same millisecond: each id that `list`, `compactions` and `usage
/// session` print, at any width, names one session when typed back into `show`.
#[test]
fn every_short_id_a_table_prints_names_one_session() {
    let home = tempfile::tempdir().unwrap();
    let gem = home.path().join(".gemini/tmp/p");
    fs::create_dir_all(&gem).unwrap();
    let saved = Path::new(ROOT).join("testdata/home/.gemini/tmp/api-server/checkpoint-mytag.json");
    fs::copy(&saved, gem.join("checkpoint-mytag.json")).unwrap();
    fs::copy(&saved, gem.join("checkpoint-myother.json")).unwrap();
    let day = home.path().join(".codex/sessions/2026/03/14");
    fs::create_dir_all(&day).unwrap();
    let rollout =
        common::session_files_under(&Path::new(ROOT).join("testdata/home/.codex/sessions"))
            .into_iter()
            .find(|p| {
                fs::read_to_string(p)
                    .is_ok_and(|t| t.contains("\"session_meta\"") && t.contains("token_count"))
            })
            .expect("a rollout with usage in the sample home");
    let text = fs::read_to_string(&rollout).unwrap();
    let id = text
        .split("\"id\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    for twin in ["4b01", "4b02"] {
        let other = format!("019ceba0-adf0-7a31-8c42-5d1e2f3a{twin}");
        fs::write(
            day.join(format!("rollout-2026-03-14T11-00-00-{other}.jsonl")),
            text.replace(&id, &other),
        )
        .unwrap();
    }
    let run = |args: &[&str], width: usize| {
        let mut c = common::sessions();
        c.env("COLUMNS", width.to_string())
            .args(["--home", home.path().to_str().unwrap()])
            .args(args);
        stdout(&mut c)
    };
    let ids = ["checkpoint-mytag", "checkpoint-myother"]
        .map(String::from)
        .into_iter()
        .chain(["4b01", "4b02"].map(|t| format!("019ceba0-adf0-7a31-8c42-5d1e2f3a{t}")))
        .collect::<Vec<_>>();
    for width in [40, 80] {
        for args in [&["list"][..], &["usage", "session"], &["compactions"]] {
            let out = run(args, width);
            for id in &ids {
                let shown: Vec<&str> = out
                    .split_whitespace()
                    .filter(|w| w.len() >= 8 && id.starts_with(w))
                    .collect();
                for w in &shown {
                    let named: Vec<_> = ids.iter().filter(|i| i.starts_with(w)).collect();
                    assert_eq!(named, [id], "{args:?} at {width}: {w:?} in\n{out}");
                }
                // `usage` lists sessions with usage: the rollouts, not the saved chats.
                if args[0] == "list" || (args[0] == "usage" && id.starts_with("019")) {
                    assert!(
                        !shown.is_empty(),
                        "{args:?} at {width}: {id} not shown\n{out}"
                    );
                }
            }
        }
    }
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn previews_start_with_what_the_human_typed() {
    // Claude Code 2.0.42 sends the IDE's context as a text block before the prompt.
    let path = Path::new(env!("SESSIONS_CORPUS_DIR")).join(
        "real/claude_real_projects/-Users-dain-workspace-JSSoundRecorder/\
         7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl",
    );
    let mut show = common::sessions();
    show.env("COLUMNS", "120")
        .args(["show", "--utc"])
        .arg(&path);
    let text = stdout(&mut show);
    let users: Vec<&str> = text
        .lines()
        .filter_map(|l| l.get(10..).filter(|r| r.starts_with("user ")))
        .map(|r| r["user".len()..].trim())
        .collect();
    assert_eq!(users[0], "/init", "{text}");
    assert!(
        users[1].starts_with("OK, so this was just so you know what there is now"),
        "{text}"
    );
    assert!(
        users.contains(&"Let's also Migrate to AudioWorklet"),
        "{text}"
    );
    assert!(!text.contains("<ide_"), "{text}");
    // The transcript itself keeps the context.
    let mut export = common::sessions();
    export.arg("export").arg(&path);
    let md = stdout(&mut export);
    assert!(
        md.contains("The user opened the file"),
        "the text stays in the export"
    );
}

/// Every human table and timeline fits 40, 60 and 80 columns: narrow, text columns shrink
/// past their usual minimums, then the rows become records; no column that alone tells rows
/// apart is lost for want of width.
#[test]
fn every_human_output_fits_40_60_and_80_columns() {
    let ids = ["6f0d3c52", "019d4e99", "e5f6a7b8", "f6a7b8c9", "d4e5f6a7"];
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "--kind", "all"],
        vec!["projects"],
        vec!["compactions"],
    ];
    for id in ids {
        commands.push(vec!["show", id]);
    }
    for report in ["daily", "weekly", "monthly", "session", "project", "blocks"] {
        commands.push(vec!["usage", report]);
        commands.push(vec!["usage", report, "--breakdown"]);
    }
    for alg in ["gemini", "openclaw-prune", "pi", "claude", "codex"] {
        commands.push(vec!["replay-compress", "--all", "-A", alg, "--timeline"]);
        commands.push(vec!["replay-compress", "--all", "-A", alg, "--validate"]);
        commands.push(vec!["replay-compress", "-A", alg, "--list-settings"]);
    }
    let sweep = [
        "replay-compress",
        "--all",
        "-A",
        "claude",
        "--sweep",
        "autocompact_pct=50,80",
        "--sweep",
        "buffer_tokens=0,20000",
    ];
    commands.push(sweep.to_vec());
    commands.push(vec!["usage", "blocks", "--active"]);
    // Its last timeline has a followed compaction, and so a line under the table.
    commands.push(vec![
        "replay-compress",
        "6f0d3c52",
        "-A",
        "claude",
        "--timeline",
    ]);
    commands.push(vec![
        "replay-compress",
        "6f0d3c52",
        "-A",
        "gemini",
        "--sweep",
        "threshold=0.1,0.2",
        "--sweep",
        "masking=true,false",
        "--sweep",
        "preserve_fraction=0.2,0.3",
    ]);
    for w in [40, 60, 80] {
        for args in &commands {
            let text = stdout(sample(w).args(args));
            assert_fits(&args.join(" "), &text, w);
            // Or the shell's prompt lands on the last line.
            assert!(text.ends_with('\n'), "{}: {text:?}", args.join(" "));
        }
        // Blocks of two agents start together: the agent stays.
        let blocks = stdout(sample(w).args(["usage", "blocks"]));
        assert!(
            blocks.contains("claude") && blocks.contains("codex"),
            "{blocks}"
        );
        // Each setting of a sweep of two keys, whole: as `key=value`, or as the values alone
        // in the order of the keys the header line names.
        let swept = stdout(sample(w).args(sweep));
        for (a, b) in [("50", "0"), ("50", "20000"), ("80", "0"), ("80", "20000")] {
            let long = format!("autocompact_pct={a} buffer_tokens={b} ");
            let short = format!("{a}/{b} ");
            assert!(
                swept.contains(&long) || swept.lines().any(|l| l.starts_with(&short)),
                "{w}: {a}/{b}: {swept}"
            );
        }
        // Three keys swept: each row's setting whole, as `key=value` or (narrow) its values.
        let three = stdout(sample(w).args(commands.last().unwrap()));
        for (v, long) in [
            (
                "0.1/true/0.2",
                "threshold=0.1 masking=true preserve_fraction=0.2 ",
            ),
            (
                "0.2/false/0.3",
                "threshold=0.2 masking=false preserve_fraction=0.3 ",
            ),
        ] {
            assert!(
                three.contains(long) || three.lines().any(|l| l.split(' ').next() == Some(v)),
                "{w}: {three}"
            );
        }
        // A breakdown row is named by its model.
        let daily = stdout(sample(w).args(["usage", "daily", "--breakdown"]));
        assert!(daily.contains("└ gemini-2"), "{w}: {daily}");
    }
}

/// `show` cuts paths from their start, as every table does: a long project and a file tool's
/// path keep the folder and the file they name.
#[test]
fn show_cuts_paths_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = "/Users/someone/Documents/Projects/Clients/LongClientName/audioLayerController";
    let file = format!("{cwd}/Sources/Audio/Mixing/AudioLayerControllerView.swift");
    let rec = |kind: &str, uuid: &str, message: serde_json::Value| {
        serde_json::json!({
            "type": kind, "sessionId": "5e551011-0000-4000-8000-000000000001", "uuid": uuid,
            "parentUuid": null, "isSidechain": false, "cwd": cwd, "version": "2.1.90",
            "timestamp": "2026-05-01T10:00:00.000Z", "message": message,
        })
        .to_string()
    };
    let lines = [
        rec(
            "user",
            "u1",
            serde_json::json!({"role": "user", "content": "read it"}),
        ),
        rec(
            "assistant",
            "a1",
            serde_json::json!({"id": "m1", "role": "assistant", "model": "claude-x", "content": [
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": file}}
            ]}),
        ),
    ];
    let path = dir
        .path()
        .join("5e551011-0000-4000-8000-000000000001.jsonl");
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let text = stdout(
        common::sessions()
            .env("HOME", dir.path())
            .env("COLUMNS", "60")
            .arg("show")
            .arg(&path),
    );
    assert_fits("show", &text, 60);
    let line = |start: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no {start} line in {text}"))
            .to_string()
    };
    let project = line("project");
    assert!(
        project.contains("…/audioLayerController (from cwd)"),
        "{project}"
    );
    let call = line("→");
    assert!(
        call.contains("…/") && call.ends_with("/AudioLayerControllerView.swift"),
        "{call}"
    );
}
