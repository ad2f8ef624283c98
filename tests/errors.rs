//! Errors that say what happened, through the binary: each case of the hardening issue with
//! its message and exit status (README "Exit status"). Cases about permissions run as an
//! unprivileged user (see `common::sessions_unprivileged`), since root reads a mode-000 file.

use crate::common;

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use common::{open_to_all, sessions_unprivileged};

const ID: &str = "11111111-aaaa-4000-8000-000000000001";

fn claude_session() -> String {
    format!(
        r#"{{"type":"user","sessionId":"{ID}","uuid":"u1","parentUuid":null,"cwd":"/home/dev/webapp","timestamp":"2026-05-01T10:00:00.000Z","message":{{"role":"user","content":"hello there"}}}}
{{"type":"assistant","sessionId":"{ID}","uuid":"u2","parentUuid":"u1","cwd":"/home/dev/webapp","timestamp":"2026-05-01T10:00:05.000Z","requestId":"req_1","message":{{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"hi"}}],"usage":{{"input_tokens":10,"output_tokens":5}}}}}}
"#
    )
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Every hazard the cases need, in one folder the unprivileged user can search.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        open_to_all(&root);
        let session = claude_session();
        write(&root.join("s.jsonl"), &session);
        write(&root.join("locked.jsonl"), &session);
        chmod(&root.join("locked.jsonl"), 0o000);
        let fifo = root.join("fifo.jsonl");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        fs::create_dir(root.join("dir.jsonl")).unwrap();
        // A readable home with a Claude store.
        write(
            &root.join(format!("home/.claude/projects/-home-dev-webapp/{ID}.jsonl")),
            &session,
        );
        // A home whose Claude folder is mode 000.
        write(
            &root.join(format!("home000/.claude/projects/-p/{ID}.jsonl")),
            &session,
        );
        chmod(&root.join("home000/.claude"), 0o000);
        // A home whose agent folders are symlink loops.
        fs::create_dir(root.join("loophome")).unwrap();
        symlink(root.join("loophome/.codex"), root.join("loophome/.codex")).unwrap();
        symlink(root.join("loophome/.b"), root.join("loophome/.claude")).unwrap();
        symlink(root.join("loophome/.claude"), root.join("loophome/.b")).unwrap();
        write(
            &root.join("loophome/.gemini/tmp/p/chats/x.txt"),
            "not a session",
        );
        // Homes that cannot be used.
        fs::create_dir(root.join("locked-home")).unwrap();
        chmod(&root.join("locked-home"), 0o000);
        write(&root.join("file-home"), "x");
        Fixture { _dir: dir, root }
    }

    fn p(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        // So the temporary folder can be removed by a non-root test run.
        for p in [
            "home000/.claude",
            "locked-home",
            "locked.jsonl",
            "home644/.claude/projects",
            "home644/.codex/sessions/2026/05",
            "home644/.gemini",
            "gemhome/.gemini/projects.json",
            "gemhome/.gemini/tmp/api-server/.project_root",
            "code/locked",
            "code/half",
            "out",
        ] {
            let _ = fs::set_permissions(self.root.join(p), fs::Permissions::from_mode(0o755));
        }
    }
}

/// Run `args` unprivileged with HOME at `home`; assert the exit status and that stderr
/// contains every `needle`.
fn expect(f: &Fixture, home: &str, args: &[String], code: i32, needles: &[&str]) {
    let out = sessions_unprivileged()
        .env("HOME", f.p(home))
        .current_dir(&f.root)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: exit status; stderr:\n{stderr}"
    );
    // A long warning wraps onto indented lines; a needle is found in it as one line.
    let unwrapped = stderr.replace("\n  ", " ");
    for n in needles {
        assert!(
            unwrapped.contains(n),
            "{args:?}: {n:?} not in stderr:\n{stderr}"
        );
    }
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn session_arguments_say_what_they_are() {
    let f = Fixture::new();
    let cmds: [&[&str]; 3] = [&["show"], &["export"], &["replay-compress", "-A", "claude"]];
    for cmd in cmds {
        let with = |target: &str| {
            let mut a = argv(cmd);
            a.push(target.to_string());
            a
        };
        // Unreadable: permission denied, not "not a session file".
        expect(
            &f,
            "home",
            &with("locked.jsonl"),
            1,
            &["locked.jsonl: cannot read: Permission denied"],
        );
        // Never opened (a FIFO would block), named for what it is.
        expect(
            &f,
            "home",
            &with("fifo.jsonl"),
            2,
            &["fifo.jsonl is a FIFO (named pipe), not a session file"],
        );
        expect(
            &f,
            "home",
            &with("/dev/null"),
            2,
            &["/dev/null is a character device, not a session file"],
        );
        if cmd[0] == "replay-compress" {
            // A folder is read like `list`'s; this one holds no session.
            expect(&f, "home", &with("dir.jsonl"), 1, &["no session selected"]);
        } else {
            expect(
                &f,
                "home",
                &with("dir.jsonl"),
                2,
                &["dir.jsonl is a folder"],
            );
        }
        expect(
            &f,
            "home",
            &with("/missing/x.jsonl"),
            2,
            &["/missing/x.jsonl: no such file"],
        );
        expect(
            &f,
            "home",
            &with("nope"),
            1,
            &["no session matches \"nope\""],
        );
        // And the readable one works.
        expect(&f, "home", &with("s.jsonl"), 0, &[]);
    }
    // Each folder message points at the command that reads a folder.
    expect(
        &f,
        "home",
        &argv(&["show", "dir.jsonl"]),
        2,
        &["`sessions list dir.jsonl`"],
    );
    expect(
        &f,
        "home",
        &argv(&["export", "dir.jsonl"]),
        2,
        &["`sessions export --all dir.jsonl`"],
    );
}

#[test]
fn unreadable_store_roots_are_reported_and_fail_strict() {
    let f = Fixture::new();
    // Mode 000 ~/.claude: the sessions in it are reported, not silently absent.
    let msg = format!(
        "{}: cannot read the claude sessions under it: Permission denied",
        f.p("home000/.claude")
    );
    expect(&f, "home000", &argv(&["list"]), 0, &[&msg]);
    expect(
        &f,
        "home000",
        &argv(&["--strict", "list"]),
        3,
        &[&msg, "--strict"],
    );
    expect(&f, "home000", &argv(&["--strict", "projects"]), 3, &[&msg]);
    // The same through a relative --home: the folder at fault is named, relative as given.
    expect(
        &f,
        "home",
        &argv(&["--home", "home000", "list"]),
        0,
        &["warning: home000/.claude: cannot read the claude sessions under it"],
    );
    // Symlink loops at ~/.codex and ~/.claude.
    let codex = format!("{}: symlink loop", f.p("loophome/.codex"));
    let claude = format!("{}: symlink loop", f.p("loophome/.claude"));
    expect(&f, "loophome", &argv(&["list"]), 0, &[&codex, &claude]);
    expect(
        &f,
        "loophome",
        &argv(&["--strict", "list"]),
        3,
        &[&codex, &claude],
    );
    // An id looked up in stores that could not be read says so.
    expect(
        &f,
        "home000",
        &argv(&["show", "11111111"]),
        1,
        &["no session matches", "could not be read", &msg],
    );
}

/// A store folder that can be listed but not entered (mode 644: read without search) names
/// its sub-folders, but none of them can be reached: each is reported, not silently absent.
#[test]
fn folders_under_a_folder_that_cannot_be_entered_are_reported() {
    let f = Fixture::new();
    let session = claude_session();
    write(
        &f.root.join(format!(
            "home644/.claude/projects/-home-dev-webapp/{ID}.jsonl"
        )),
        &session,
    );
    write(
        &f.root.join(
            "home644/.codex/sessions/2026/05/14/rollout-2026-05-14T10-00-00-019ceba0-adf0-7a31-8c42-5d1e2f3a4bee.jsonl",
        ),
        "{}\n",
    );
    write(
        &f.root
            .join("home644/.gemini/tmp/p/chats/session-2026-05-14T10-00-x.json"),
        "{}",
    );
    for dir in [
        "home644/.claude/projects",
        "home644/.codex/sessions/2026/05",
        "home644/.gemini",
    ] {
        chmod(&f.root.join(dir), 0o644);
    }
    let claude = format!(
        "{}: cannot read: Permission denied",
        f.p("home644/.claude/projects/-home-dev-webapp")
    );
    let codex = format!(
        "{}: cannot read: Permission denied",
        f.p("home644/.codex/sessions/2026/05/14")
    );
    let gemini = format!(
        "{}: cannot read: Permission denied",
        f.p("home644/.gemini/tmp")
    );
    let all = [claude.as_str(), codex.as_str(), gemini.as_str()];
    expect(&f, "home644", &argv(&["list"]), 0, &all);
    expect(&f, "home644", &argv(&["--strict", "list"]), 3, &all);
}

/// A `--project-root` folder is searched for project paths a few levels down: a folder in it
/// that cannot be read or entered hides the paths below it, so it is said, as in a store, and
/// fails `--strict`.
#[test]
fn project_root_folders_that_cannot_be_read_are_reported() {
    let f = Fixture::new();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home/.gemini");
    // A session whose project only a hash match can find.
    let rel = "tmp/7b8ebbc448bee587f47492d1cf9f2a1da01c5ea74956d0bc530aecd3e2abc03d/chats/session-2026-08-30T19-45-a7b8c9d0.jsonl";
    let gem = f.root.join("codehome/.gemini");
    fs::create_dir_all(gem.join(rel).parent().unwrap()).unwrap();
    fs::copy(sample.join(rel), gem.join(rel)).unwrap();
    fs::create_dir_all(f.root.join("code/open/app")).unwrap();
    fs::create_dir_all(f.root.join("code/locked/app")).unwrap();
    fs::create_dir_all(f.root.join("code/half/app/src")).unwrap();
    chmod(&f.root.join("code/locked"), 0o000);
    chmod(&f.root.join("code/half"), 0o644);
    let said = [
        format!("{}: cannot read: Permission denied", f.p("code/locked")),
        format!("{}: cannot read: Permission denied", f.p("code/half/app")),
    ];
    let said: Vec<&str> = said.iter().map(String::as_str).collect();
    let code = f.p("code");
    expect(
        &f,
        "codehome",
        &argv(&["--project-root", &code, "list"]),
        0,
        &said,
    );
    // Named twice, said once.
    let twice = argv(&[
        "--strict",
        "--project-root",
        &code,
        "--project-root",
        &code,
        "list",
    ]);
    let out = sessions_unprivileged()
        .env("HOME", f.p("codehome"))
        .args(&twice)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(stderr.matches(said[0]).count(), 1, "{stderr}");
    // `show` of the session it leaves unresolved says it too.
    expect(
        &f,
        "codehome",
        &argv(&["--strict", "--project-root", &code, "show", "a7b8c9d0"]),
        3,
        &said,
    );
    // Hidden and build folders are not searched, so what they hold is not said.
    chmod(&f.root.join("code/locked"), 0o755);
    chmod(&f.root.join("code/half"), 0o755);
    fs::create_dir_all(f.root.join("code/.cache/x")).unwrap();
    chmod(&f.root.join("code/.cache"), 0o000);
    expect(
        &f,
        "codehome",
        &argv(&["--strict", "--project-root", &code, "list"]),
        0,
        &[],
    );
    chmod(&f.root.join("code/.cache"), 0o755);
}

/// Gemini's project registry and a project's `.project_root` marker that are there but cannot
/// be read: the projects they name become `unresolved`, and the files are said (once, though
/// `export --all -o DIR` consults them twice), so `--strict` fails.
#[test]
fn unreadable_gemini_project_files_are_reported() {
    let f = Fixture::new();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home/.gemini");
    let gem = f.root.join("gemhome/.gemini");
    for rel in [
        "projects.json",
        "tmp/ml-notebooks/chats/session-2026-07-22T14-00-f6a7b8c9.jsonl",
        "tmp/api-server/chats/session-2026-06-10T08-30-e5f6a7b8.jsonl",
        "tmp/api-server/.project_root",
    ] {
        fs::create_dir_all(gem.join(rel).parent().unwrap()).unwrap();
        fs::copy(sample.join(rel), gem.join(rel)).unwrap();
    }
    let registry = f.p("gemhome/.gemini/projects.json");
    let marker = f.p("gemhome/.gemini/tmp/api-server/.project_root");
    let list = argv(&["list", "--format", "json"]);
    let projects = |args: &[String]| -> Vec<String> {
        let out = sessions_unprivileged()
            .env("HOME", f.p("gemhome"))
            .args(args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut p: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["project_source"].as_str().unwrap().to_string())
            .collect();
        p.sort();
        p
    };
    assert_eq!(projects(&list), ["project_root", "projects_json"]);
    chmod(Path::new(&registry), 0o000);
    chmod(Path::new(&marker), 0o000);
    assert_eq!(projects(&list), ["unresolved", "unresolved"]);
    let said = [
        format!("{registry}: cannot read: permission denied"),
        format!("{marker}: cannot read: permission denied"),
    ];
    let said: Vec<&str> = said.iter().map(String::as_str).collect();
    expect(&f, "gemhome", &argv(&["list"]), 0, &said);
    expect(&f, "gemhome", &argv(&["--strict", "projects"]), 3, &said);
    // `show` and `export` of one session say what left its project unresolved: the registry,
    // its own folder's marker, not another folder's.
    let run = |args: &[&str]| {
        let out = sessions_unprivileged()
            .env("HOME", f.p("gemhome"))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&["--strict", "show", "f6a7b8c9"]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains(said[0]), "{stderr}");
    assert!(!stderr.contains(".project_root"), "{stderr}");
    expect(
        &f,
        "gemhome",
        &argv(&["--strict", "show", "e5f6a7b8"]),
        3,
        &said,
    );
    // A Codex session's project is its own recorded folder or nothing: no registry is why it
    // has none, and none is named.
    let codex = "rollout-2025-04-18-a3b4c5d6-e7f8-4a9b-8c0d-1e2f3a4b5c6d.json";
    fs::create_dir_all(f.root.join("gemhome/.codex/sessions")).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/home/.codex/sessions")
            .join(codex),
        f.root.join("gemhome/.codex/sessions").join(codex),
    )
    .unwrap();
    let (code, stderr) = run(&["--strict", "show", "a3b4c5d6"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("projects.json"), "{stderr}");
    let (code, stderr) = run(&[
        "--strict",
        "replay-compress",
        "-A",
        "gemini",
        "f6a7b8c9",
        "e5f6a7b8",
    ]);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(stderr.matches("projects.json").count(), 1, "{stderr}");
    assert_eq!(stderr.matches(".project_root").count(), 1, "{stderr}");
    fs::create_dir(f.root.join("out")).unwrap();
    chmod(&f.root.join("out"), 0o777);
    let (code, stderr) = run(&["export", "f6a7b8c9", "e5f6a7b8", "-o", &f.p("out/two")]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr.matches("projects.json").count(), 1, "{stderr}");
    assert_eq!(stderr.matches(".project_root").count(), 1, "{stderr}");
    // A registry cut short: read by root too, and malformed rather than unreadable.
    chmod(Path::new(&registry), 0o644);
    fs::write(
        &registry,
        r#"{"projects": {"/home/dev/ml-notebooks": "ml-not"#,
    )
    .unwrap();
    expect(
        &f,
        "gemhome",
        &argv(&["--strict", "list"]),
        3,
        &[&format!("{registry}: not valid JSON")],
    );
    // `export --all -o DIR` settles projects while the scan reads (an index of its own) and
    // again in the scan: the file is said once.
    let out = sessions_unprivileged()
        .env("HOME", f.p("gemhome"))
        .args(["export", "--all", "-o", &f.p("out/all")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("projects.json").count(), 1, "{stderr}");
    assert_eq!(stderr.matches(".project_root").count(), 1, "{stderr}");
}

#[test]
fn home_and_store_flags_that_cannot_be_used() {
    let f = Fixture::new();
    for (home, msg) in [
        ("locked-home", "cannot read: Permission denied"),
        ("file-home", "is a regular file, not a folder"),
        ("no-such-home", "no such folder"),
    ] {
        let args = vec!["--home".to_string(), f.p(home), "list".to_string()];
        expect(
            &f,
            "home",
            &args,
            2,
            &[&format!("--home {}: {msg}", f.p(home))],
        );
    }
    // A named store that does not exist warns (and fails --strict); the others are read.
    let args = argv(&["--claude-dir", "/nonexistent/claude", "list"]);
    let msg = "/nonexistent/claude: --claude-dir: no such folder";
    expect(
        &f,
        "home",
        &args,
        1,
        &[
            "no Claude Code, Codex CLI or Gemini CLI session store",
            "/nonexistent/claude (--claude-dir: no such folder)",
        ],
    );
    let mut strict = args.clone();
    strict.insert(0, "--strict".into());
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home");
    let mut with_sample = vec!["--home".to_string(), sample.display().to_string()];
    with_sample.extend(args.clone());
    expect(&f, "home", &with_sample, 0, &[msg]);
    with_sample.insert(0, "--strict".into());
    expect(&f, "home", &with_sample, 3, &[msg]);
}

/// A FIFO or a device named where a selection of sessions is expected is a usage error for
/// every command, as for `show`; one named like a session inside a store or a named folder is
/// never opened, and is reported as not read (and fails `--strict`).
#[test]
fn special_files_are_named_and_never_opened() {
    let f = Fixture::new();
    for cmd in [
        vec!["list"],
        vec!["projects"],
        vec!["compactions"],
        vec!["usage"],
        vec!["export", "--all"],
    ] {
        for (target, what) in [
            (
                "fifo.jsonl",
                "fifo.jsonl is a FIFO (named pipe), not a session file or folder",
            ),
            (
                "/dev/null",
                "/dev/null is a character device, not a session file or folder",
            ),
        ] {
            let mut a = argv(&cmd);
            a.push(target.into());
            expect(&f, "home", &a, 2, &[what]);
        }
    }
    // A regular file that is no session: a note from every command that reads a selection.
    write(&f.root.join("notes.txt"), "not a session");
    for cmd in ["list", "projects", "compactions", "usage"] {
        expect(
            &f,
            "home",
            &argv(&[cmd, "notes.txt"]),
            0,
            &["note: notes.txt: not a session file of any supported agent"],
        );
    }
    // In a folder read as a selection, and in a store: a warning, the other files read.
    let fifo = format!(
        "{}: a FIFO (named pipe), not a regular file: not read",
        f.p("fifo.jsonl")
    );
    expect(&f, "home", &argv(&["list", &f.p("")]), 0, &[&fifo]);
    expect(
        &f,
        "home",
        &argv(&["--strict", "usage", &f.p("")]),
        3,
        &[&fifo],
    );
    let store = f.p(&format!(
        "home/.claude/projects/-home-dev-webapp/fifo-{ID}.jsonl"
    ));
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&store)
            .status()
            .unwrap()
            .success()
    );
    let warning = format!("{store}: a FIFO (named pipe), not a regular file: not read");
    expect(&f, "home", &argv(&["list"]), 0, &[&warning]);
    expect(&f, "home", &argv(&["--strict", "list"]), 3, &[&warning]);
    // A folder named like a session, in each agent's store: the same.
    std::fs::remove_file(&store).unwrap();
    for folder in [
        "home/.claude/projects/-home-dev-webapp/22222222-aaaa-4000-8000-000000000002.jsonl".to_string(),
        "home/.codex/sessions/2026/03/14/rollout-2026-03-14T11-00-00-019ceba0-adf0-7a31-8c42-5d1e2f3a4bee.jsonl".to_string(),
        "home/.gemini/tmp/p/chats/session-2026-03-14T11-00-x.json".to_string(),
    ] {
        let dir = f.p(&folder);
        std::fs::create_dir_all(&dir).unwrap();
        let warning = format!(
            "{dir}: a folder, not a regular file: not read as a session (the files in it are)"
        );
        expect(&f, "home", &argv(&["list"]), 0, &[&warning]);
        expect(&f, "home", &argv(&["--strict", "list"]), 3, &[&warning]);
        std::fs::remove_dir(&dir).unwrap();
    }
}

#[test]
fn usage_errors_say_what_to_write() {
    let f = Fixture::new();
    // Values that could only select or show nothing.
    for (args, msg) in [
        (&["list", "--limit", "0"][..], "must be at least 1"),
        (
            &["show", "s.jsonl", "--width", "10"][..],
            "must be at least 40",
        ),
        (&["show", ""][..], "an empty session name"),
        (&["export", " "][..], "an empty session name"),
        (
            &["usage", "daily", "--start-of-week", "sunday"][..],
            "--start-of-week applies to `sessions usage weekly`",
        ),
        (
            &[
                "replay-compress",
                "-A",
                "gemini",
                "s.jsonl",
                "--sweep",
                "threshold=2",
            ][..],
            "error: threshold=2: expected a number from 0 to 1",
        ),
    ] {
        expect(&f, "home", &argv(args), 2, &[msg]);
    }
    // A named path that does not exist: the same status for every command.
    for cmd in [
        vec!["list"],
        vec!["projects"],
        vec!["compactions"],
        vec!["export", "--all"],
    ] {
        let mut a = argv(&cmd);
        a.push("/missing".into());
        expect(&f, "home", &a, 2, &["/missing: no such file or folder"]);
    }
    expect(
        &f,
        "home",
        &argv(&["list", "/missing"]),
        2,
        &["/missing: no such file or folder"],
    );
    expect(
        &f,
        "home",
        &argv(&["export", "--all", "/missing"]),
        2,
        &["/missing: no such file or folder"],
    );
    // --context-window 0 (and beyond the largest window computed with).
    for w in ["0", "18446744073709551615"] {
        expect(
            &f,
            "home",
            &argv(&[
                "replay-compress",
                "-A",
                "claude",
                "s.jsonl",
                "--context-window",
                w,
            ]),
            2,
            &[&format!(
                "--context-window {w}: expected a window of 1 to 1000000000000 tokens"
            )],
        );
    }
    expect(
        &f,
        "home",
        &argv(&[
            "replay-compress",
            "-A",
            "claude",
            "s.jsonl",
            "--summary-tokens",
            "18446744073709551615",
        ]),
        2,
        &["--summary-tokens 18446744073709551615: expected a whole number of tokens from 0 to"],
    );
    // A summary larger than the agent's summary call can write: rejected like any setting out
    // of its range, not replayed as a compaction that grows the context. At the bound, accepted.
    for (alg, max) in [("claude", 32_000), ("codex", 128_000), ("gemini", 65_536)] {
        let over = (max + 1).to_string();
        let needle =
            format!("--summary-tokens {over}: expected a whole number of tokens from 0 to {max}");
        expect(
            &f,
            "home",
            &argv(&[
                "replay-compress",
                "-A",
                alg,
                "s.jsonl",
                "--summary-tokens",
                &over,
            ]),
            2,
            &[&needle],
        );
        expect(
            &f,
            "home",
            &argv(&[
                "replay-compress",
                "-A",
                alg,
                "s.jsonl",
                "--summary-tokens",
                &max.to_string(),
            ]),
            0,
            &[],
        );
    }
    // Several sessions to a file name: an error, and no folder named x.md.
    let mut a = argv(&["export", "s.jsonl", ID, "-o"]);
    a.push(f.p("x.md"));
    expect(
        &f,
        "home",
        &a,
        2,
        &["names a file, but 2 sessions need a folder", "-o "],
    );
    assert!(!f.root.join("x.md").exists());
    let mut a = argv(&["export", "--all", "-o"]);
    a.push(f.p("all.html"));
    expect(
        &f,
        "home",
        &a,
        2,
        &["names a file, but --all exports need a folder"],
    );
    assert!(!f.root.join("all.html").exists());
    // --since -7d: a hint that makes sense (not clap's "use -- -7d").
    for flag in ["--since", "--until"] {
        expect(
            &f,
            "home",
            &argv(&["list", flag, "-7d"]),
            2,
            &["invalid time \"-7d\": durations already count back from now; write 7d"],
        );
    }
    expect(
        &f,
        "home",
        &argv(&["list", "--since", "99999999d"]),
        2,
        &["invalid time \"99999999d\""],
    );
}

#[test]
fn a_failed_index_is_reported_with_the_sessions_that_failed() {
    let f = Fixture::new();
    // A folder the unprivileged user cannot write into: every file of the export fails as it is
    // written, after every target was checked.
    let out = f.root.join("ro");
    fs::create_dir(&out).unwrap();
    chmod(&out, 0o555);
    let target = format!("{}/", f.p("ro"));
    expect(
        &f,
        "home",
        &argv(&["export", "--all", "-o", &target]),
        1,
        &[
            "1 session could not be exported",
            &format!("{ID}: "),
            "index.md",
        ],
    );
}
