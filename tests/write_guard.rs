//! The output guard's promise against the ways around it an audit found: a `..` out of a folder
//! that does not exist, a session file the guard did not recognise, agent folders with other
//! names than the defaults, a bind mount of a store, the `--prices` file, and paths with
//! control characters echoed to the terminal.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::sessions;
use sessions::output::{Guard, Refusal};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let dst = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            fs::create_dir_all(&dst).unwrap();
        } else if e.file_type().is_symlink() {
            symlink(fs::read_link(e.path()).unwrap(), &dst).unwrap();
        } else {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// Every entry under `root`, links not followed, with its bytes or link target.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .map(|e| {
            let e = e.unwrap();
            let content = if e.file_type().is_file() {
                fs::read(e.path()).unwrap()
            } else if e.file_type().is_symlink() {
                fs::read_link(e.path())
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                Vec::new()
            };
            (e.path().to_path_buf(), content)
        })
        .collect()
}

const WEBAPP: &str = ".claude/projects/-home-dev-webapp";
const SESSION: &str = "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01.jsonl";

/// A copy of the sample home in `t/h`, and a session file outside it in `t/loose/one.jsonl`.
fn fixture(t: &Path) -> (PathBuf, PathBuf) {
    let home = t.join("h");
    copy_tree(&repo().join("testdata/home"), &home);
    let loose = t.join("loose/one.jsonl");
    fs::create_dir_all(loose.parent().unwrap()).unwrap();
    fs::copy(home.join(WEBAPP).join(SESSION), &loose).unwrap();
    (home, loose)
}

fn refused(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("refusing"), "{stderr}");
    assert!(stderr.contains(needle), "{needle}: {stderr}");
}

#[test]
fn a_step_back_out_of_a_missing_folder_never_leads_into_a_store() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (home, _) = fixture(t);
    symlink(home.join(WEBAPP), t.join("storelink")).unwrap();
    symlink(home.join(".gemini"), t.join("gemlink")).unwrap();
    let before = snapshot(&home);
    let run = |args: &[&str]| {
        sessions()
            .current_dir(t)
            .env("HOME", t.join("nohome"))
            .arg("--home")
            .arg(&home)
            .args(args)
            .output()
            .unwrap()
    };
    for args in [
        &["export", "6f0d3c52", "-o", "nope/../storelink/x.md"][..],
        &[
            "export",
            "6f0d3c52",
            "-o",
            "nope/deeper/../../storelink/x.md",
        ],
        &["export", "--all", "-o", "nope/../storelink/"],
        &[
            "export",
            "6f0d3c52",
            "-f",
            "json",
            "-o",
            "nope/../gemlink/projects.json",
            "--force",
        ],
        &[
            "replay-compress",
            "6f0d3c52",
            "-A",
            "claude",
            "--plot",
            "nope/../storelink/p.svg",
        ],
    ] {
        refused(&run(args), "inside the");
    }
    assert!(before == snapshot(&home), "the store changed");
    assert!(!t.join("nope").exists());
    // The same path shape outside any store is written where the kernel would put it.
    fs::create_dir(t.join("out")).unwrap();
    let ok = run(&["export", "6f0d3c52", "-o", "nope/../out/x.md"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(t.join("out/x.md").is_file());
    assert!(!t.join("nope").exists());
}

/// The files `sessions list` reads as sessions under `args`.
fn listed(args: &[&Path], home: Option<&Path>) -> Vec<PathBuf> {
    let mut c = sessions();
    c.env("HOME", "/nonexistent");
    if let Some(h) = home {
        c.arg("--home").arg(h);
    }
    let out = c
        .args(["list", "--kind", "all", "-f", "ndjson", "-q"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            PathBuf::from(v["path"].as_str().unwrap())
        })
        .collect()
}

/// Every file under `root` that the parsers read as a session with at least one message,
/// copies and backups included (`list` shows each session once).
fn session_files(root: &Path) -> Vec<PathBuf> {
    use sessions::parse::{FileRole, SourceFile, parse_file, sniff_agent};
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|p| {
            sniff_agent(p).is_some_and(|agent| {
                parse_file(&SourceFile::new(agent, p.clone(), FileRole::Unknown))
                    .is_ok_and(|s| !s.messages.is_empty())
            })
        })
        .collect()
}

/// Every file in `files`, copied outside any store under its own name, is refused as a target
/// even with --force, as a session of the agent it was read as.
fn refuses_every_copy(files: &[PathBuf]) {
    // An empty file (Claude Code leaves some) is listed as a session by its name, but holds
    // nothing to lose.
    let files: Vec<&PathBuf> = files
        .iter()
        .filter(|f| fs::metadata(f).unwrap().len() > 0)
        .collect();
    assert!(!files.is_empty());
    let tmp = tempfile::tempdir().unwrap();
    let guard = Guard::new(true);
    let mut replaceable = Vec::new();
    for (n, f) in files.iter().enumerate() {
        let dir = tmp.path().join(n.to_string());
        fs::create_dir(&dir).unwrap();
        let copy = dir.join(f.file_name().unwrap());
        fs::copy(f, &copy).unwrap();
        match guard.check(&copy) {
            Err(e) if matches!(e.refusal, Refusal::Session(_)) => {}
            other => replaceable.push(format!("{}: {other:?}", f.display())),
        }
    }
    assert!(
        replaceable.is_empty(),
        "{} of {} session files could be replaced:\n{}",
        replaceable.len(),
        files.len(),
        replaceable.join("\n")
    );
}

#[test]
fn no_session_file_of_the_test_data_is_ever_replaced() {
    let testdata = repo().join("testdata");
    let mut files = listed(&[], Some(&testdata.join("home")));
    files.extend(listed(&[&testdata], None));
    files.extend(session_files(&testdata));
    files.sort();
    files.dedup();
    // Among them the Gemini saved chat (`/chat save`), which the guard took for any file.
    assert!(files.iter().any(|f| f.ends_with("checkpoint-mytag.json")));
    refuses_every_copy(&files);
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn no_session_file_of_the_corpus_is_ever_replaced() {
    let corpus = PathBuf::from(env!("SESSIONS_CORPUS_DIR"));
    let mut files = listed(&[&corpus], None);
    files.extend(session_files(&corpus));
    files.sort();
    files.dedup();
    // Among them the Claude sessions that open with a `file-history-snapshot` record.
    assert!(files.len() > 100, "{}", files.len());
    refuses_every_copy(&files);
    // And through the binary: the audit's reproduction.
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("backup-session.jsonl");
    fs::copy(
        corpus.join("real/claude_compaction/entire-7b_e20d70c73b_0_full.jsonl"),
        &victim,
    )
    .unwrap();
    let before = fs::read(&victim).unwrap();
    let out = sessions()
        .env("HOME", tmp.path())
        .arg("--home")
        .arg(repo().join("testdata/home"))
        .args(["export", "6f0d3c52", "--force", "-o"])
        .arg(&victim)
        .output()
        .unwrap();
    refused(&out, "it is a claude session file");
    assert_eq!(fs::read(&victim).unwrap(), before);
}

#[test]
fn an_earlier_export_is_replaced_with_force() {
    // Exports of `sessions` carry the sessions' ids and texts, but are not sessions.
    let tmp = tempfile::tempdir().unwrap();
    let (_, loose) = fixture(tmp.path());
    for format in ["json", "jsonl", "md"] {
        let target = tmp.path().join(format!("e.{format}"));
        for _ in 0..2 {
            let out = sessions()
                .env("HOME", tmp.path())
                .arg("export")
                .arg(&loose)
                .args(["-f", format, "--force", "-o"])
                .arg(&target)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{format}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn agent_folders_are_protected_whatever_their_names() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (home, loose) = fixture(t);
    let codex = t.join("cfg/codexhome");
    copy_tree(&home.join(".codex"), &codex);
    fs::write(codex.join("auth.json"), "{\"token\":\"secret\"}").unwrap();
    let claude = t.join("cfg/claude-work");
    copy_tree(&home.join(".claude"), &claude);
    fs::write(claude.join("settings.json"), "{}").unwrap();
    let fake = t.join("fakehome");
    fs::create_dir(&fake).unwrap();
    fs::write(fake.join(".claude.json"), "{\"projects\":{}}").unwrap();
    let before = (snapshot(&codex), snapshot(&claude), snapshot(&fake));
    let export = |target: &Path, flags: &[&str], env: &[(&str, &Path)]| {
        let mut c = sessions();
        c.env("HOME", &fake);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c
            .args(flags)
            .arg("export")
            .arg(&loose)
            .args(["-f", "json", "--force", "-o"])
            .arg(target)
            .output()
            .unwrap();
        refused(&out, "");
    };
    let (cd, ld) = (codex.display().to_string(), claude.display().to_string());
    export(&codex.join("auth.json"), &["--codex-dir", &cd], &[]);
    export(&codex.join("new.json"), &["--codex-dir", &cd], &[]);
    export(&claude.join("settings.json"), &["--claude-dir", &ld], &[]);
    export(&codex.join("auth.json"), &[], &[("CODEX_HOME", &codex)]);
    export(
        &claude.join("settings.json"),
        &[],
        &[("CLAUDE_CONFIG_DIR", &claude)],
    );
    // With a variable set, the default folders stay protected too.
    copy_tree(&home.join(".codex"), &fake.join(".codex"));
    let before_fake = snapshot(&fake);
    export(
        &fake.join(".codex/auth.json"),
        &[],
        &[("CODEX_HOME", &codex)],
    );
    export(&fake.join(".claude.json"), &[], &[]);
    assert!(before == (snapshot(&codex), snapshot(&claude), before.2.clone()));
    assert!(before_fake == snapshot(&fake));
}

#[test]
#[ignore = "needs root (mount --bind): run with --ignored as root"]
fn a_bind_mount_of_a_store_is_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (home, _) = fixture(t);
    let bind = t.join("bindc");
    fs::create_dir(&bind).unwrap();
    let mount = |args: &[&std::ffi::OsStr]| {
        assert!(
            std::process::Command::new(args[0])
                .args(&args[1..])
                .status()
                .unwrap()
                .success()
        );
    };
    mount(&[
        "mount".as_ref(),
        "--bind".as_ref(),
        home.join(".claude").as_os_str(),
        bind.as_os_str(),
    ]);
    let before = snapshot(&home);
    let out = sessions()
        .env("HOME", t.join("nohome"))
        .arg("--home")
        .arg(&home)
        .args(["export", "6f0d3c52", "-o"])
        .arg(bind.join("projects/-home-dev-webapp/bind.md"))
        .output()
        .unwrap();
    mount(&["umount".as_ref(), bind.as_os_str()]);
    refused(&out, "inside the claude");
    assert!(before == snapshot(&home));
}

#[test]
fn the_prices_file_is_a_file_being_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, loose) = fixture(tmp.path());
    let prices = tmp.path().join("myprices.json");
    fs::copy(repo().join("src/pricing/prices.json"), &prices).unwrap();
    let before = fs::read(&prices).unwrap();
    let out = sessions()
        .env("HOME", tmp.path())
        .arg("--prices")
        .arg(&prices)
        .arg("export")
        .arg(&loose)
        .args(["--force", "-o"])
        .arg(&prices)
        .output()
        .unwrap();
    refused(&out, "it is a file being read");
    assert_eq!(fs::read(&prices).unwrap(), before);
}

#[test]
fn typed_paths_are_echoed_without_control_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (home, loose) = fixture(t);
    let run = |args: &[&std::ffi::OsStr]| {
        sessions()
            .env("HOME", t.join("nohome"))
            .arg("--home")
            .arg(&home)
            .args(args)
            .output()
            .unwrap()
    };
    let title = t.join("o\x1b]0;T\x07.md");
    let in_store = home.join(WEBAPP).join("\x1b[2J.md");
    let plot = t.join("p\x1b]0;T\x07.svg");
    let cases: Vec<(Vec<&std::ffi::OsStr>, i32)> = vec![
        // Written: "exported 1 session to …".
        (
            vec![
                "export".as_ref(),
                loose.as_os_str(),
                "-o".as_ref(),
                title.as_os_str(),
            ],
            0,
        ),
        // Refused: the target and the store it is in.
        (
            vec![
                "export".as_ref(),
                loose.as_os_str(),
                "-o".as_ref(),
                in_store.as_os_str(),
            ],
            1,
        ),
        // Already there.
        (
            vec![
                "export".as_ref(),
                loose.as_os_str(),
                "-o".as_ref(),
                title.as_os_str(),
            ],
            1,
        ),
        // "wrote …".
        (
            vec![
                "replay-compress".as_ref(),
                loose.as_os_str(),
                "-A".as_ref(),
                "claude".as_ref(),
                "--plot".as_ref(),
                plot.as_os_str(),
            ],
            0,
        ),
        // A path that is not there.
        (vec!["show".as_ref(), "zz\x1b[2J/".as_ref()], 2),
    ];
    for (args, code) in cases {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            !stderr.contains('\x1b') && !stderr.contains('\x07'),
            "{args:?}: {stderr:?}"
        );
        assert!(stderr.contains("^["), "{args:?}: {stderr}");
    }
}
