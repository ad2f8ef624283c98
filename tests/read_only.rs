//! The read-only promise, through the binary: nothing is ever written inside a store, over a
//! file being read, or over anything that is not a regular file; a regular file is replaced only
//! with `--force`; and one door out (`src/output.rs`) is the only code that writes files.
//!
//! The store test hashes every entry of a store (contents, mode, mtime, size, link target, and
//! so the directory listing) before and after every subcommand, `--plot` and `export --all -o`
//! included, and after every refused write.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};

use common::sessions;
use sha2::{Digest, Sha256};

fn sample_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home")
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

/// Every entry under `root`, links not followed: type, mode, size, mtime (ns), SHA-256 of a
/// file's bytes or a link's target. The keys are the directory listing.
fn fingerprint(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(root).follow_links(false) {
        let e = e.unwrap();
        let m = fs::symlink_metadata(e.path()).unwrap();
        let ft = m.file_type();
        let content = if ft.is_file() {
            format!("{:x}", Sha256::digest(fs::read(e.path()).unwrap()))
        } else if ft.is_symlink() {
            fs::read_link(e.path()).unwrap().display().to_string()
        } else {
            String::new()
        };
        let kind = if ft.is_dir() {
            "d"
        } else if ft.is_symlink() {
            "l"
        } else {
            "f"
        };
        out.insert(
            e.path().strip_prefix(root).unwrap().to_path_buf(),
            format!(
                "{kind} {:o} {} {}.{:09} {content}",
                m.mode(),
                m.len(),
                m.mtime(),
                m.mtime_nsec()
            ),
        );
    }
    out
}

fn diff(a: &BTreeMap<PathBuf, String>, b: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let mut d = Vec::new();
    for (k, v) in a {
        match b.get(k) {
            None => d.push(format!("removed {}", k.display())),
            Some(w) if w != v => d.push(format!("changed {}: {v} → {w}", k.display())),
            _ => {}
        }
    }
    for k in b.keys().filter(|k| !a.contains_key(*k)) {
        d.push(format!("added {}", k.display()));
    }
    d
}

/// What a command is expected to do.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Outcome {
    Ok,
    /// A refused write (exit 1 with "refusing").
    Refused,
}

#[test]
fn no_subcommand_changes_a_byte_of_what_it_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let home = t.join("home");
    copy_tree(&sample_home(), &home);
    // Session files and a folder named on the command line, outside any store.
    let loose = t.join("loose");
    let claude_file =
        home.join(".claude/projects/-home-dev-webapp/6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01.jsonl");
    fs::create_dir_all(&loose).unwrap();
    fs::copy(&claude_file, loose.join("one.jsonl")).unwrap();
    fs::copy(
        home.join(".codex/sessions/2026/03/14/rollout-2026-03-14T09-15-02-019ceba0-adf0-7a31-8c42-5d1e2f3a4b01.jsonl"),
        loose.join("two.jsonl"),
    )
    .unwrap();
    symlink(&claude_file, loose.join("link-to-store.md")).unwrap();
    let out = t.join("out");
    fs::create_dir(&out).unwrap();
    let p = |x: &Path| x.display().to_string();
    let (o, l, h) = (p(&out), p(&loose), p(&home));
    let one = format!("{l}/one.jsonl");

    let mut cases: Vec<(Outcome, Vec<String>)> = Vec::new();
    let mut add = |outcome: Outcome, args: &[&str]| {
        cases.push((outcome, args.iter().map(|s| s.to_string()).collect()));
    };
    use Outcome::*;
    // Reading.
    add(Ok, &["list"]);
    add(Ok, &["list", "--kind", "all", "-f", "json"]);
    add(Ok, &["list", "-f", "csv", "--since", "2026-05-01"]);
    add(Ok, &["list", &l]);
    add(Ok, &["list", &format!("{h}/.claude")]);
    add(Ok, &["projects"]);
    add(Ok, &["projects", "-f", "json"]);
    add(Ok, &["compactions"]);
    add(Ok, &["compactions", "--stats"]);
    add(Ok, &["compactions", "-f", "ndjson"]);
    for id in ["6f0d3c52", "e5f6a7b8", "019d4e99", "agent-a5f3c2e"] {
        add(Ok, &["show", id]);
        add(Ok, &["show", id, "-f", "json"]);
    }
    add(Ok, &["show", &one]);
    // Exports: stdout, files, folders, images, redaction, named files and folders.
    add(Ok, &["export", "6f0d3c52"]);
    add(Ok, &["export", "--all", "-f", "jsonl", "--redact"]);
    add(Ok, &["export", "6f0d3c52", "-o", &format!("{o}/a.md")]);
    add(
        Ok,
        &["export", "6f0d3c52", "--force", "-o", &format!("{o}/a.md")],
    );
    add(
        Ok,
        &[
            "export",
            "e5f6a7b8",
            "-f",
            "html",
            "--images",
            "extract",
            "-o",
            &format!("{o}/b.html"),
        ],
    );
    add(Ok, &["export", "--all", "-o", &format!("{o}/all/")]);
    add(
        Ok,
        &[
            "export",
            "--all",
            "--kind",
            "all",
            "-f",
            "json",
            "--redact",
            "-o",
            &format!("{o}/allj"),
        ],
    );
    add(Ok, &["export", "--all", &l, "-o", &format!("{o}/loose")]);
    add(Ok, &["export", &one, "-o", &format!("{o}/one.md")]);
    // Replays, with plots.
    for alg in ["claude", "codex", "gemini", "pi", "openclaw-prune"] {
        add(
            Ok,
            &[
                "replay-compress",
                "--all",
                "-A",
                alg,
                "--validate",
                "--timeline",
            ],
        );
    }
    add(
        Ok,
        &[
            "replay-compress",
            "--all",
            "-A",
            "claude",
            "--plot",
            &format!("{o}/p.svg"),
        ],
    );
    add(
        Ok,
        &[
            "replay-compress",
            "6f0d3c52",
            "-A",
            "claude",
            "--plot",
            &format!("{o}/one.svg"),
        ],
    );
    add(
        Ok,
        &[
            "replay-compress",
            &one,
            "-A",
            "codex",
            "--sweep",
            "auto_compact_token_limit=0,5000",
        ],
    );
    add(Ok, &["replay-compress", "-A", "gemini", "--list-settings"]);
    // Refused writes: into a store, over a session, over what is read, through a link.
    let session = p(&claude_file);
    add(
        Refused,
        &[
            "export",
            "6f0d3c52",
            "-o",
            &format!("{h}/.claude/projects/x.md"),
        ],
    );
    add(
        Refused,
        &["export", "--all", "-o", &format!("{h}/.codex/out")],
    );
    add(Refused, &["export", "6f0d3c52", "--force", "-o", &session]);
    add(
        Refused,
        &[
            "export",
            "6f0d3c52",
            "--force",
            "-o",
            &format!("{o}/../home/.gemini/x.md"),
        ],
    );
    add(Refused, &["export", &one, "--force", "-o", &one]);
    add(
        Refused,
        &["export", &one, "--force", "-o", &format!("{l}/two.jsonl")],
    );
    add(
        Refused,
        &[
            "export",
            &one,
            "--force",
            "-o",
            &format!("{l}/link-to-store.md"),
        ],
    );
    add(Refused, &["export", "--all", &l, "-o", &format!("{l}/out")]);
    add(
        Refused,
        &[
            "export",
            "6f0d3c52",
            "--images",
            "extract",
            "-o",
            &format!("{h}/.gemini/x.md"),
        ],
    );
    add(
        Refused,
        &[
            "replay-compress",
            &session,
            "-A",
            "claude",
            "--plot",
            &session,
        ],
    );
    add(
        Refused,
        &[
            "replay-compress",
            &one,
            "-A",
            "claude",
            "--plot",
            &one,
            "--force",
        ],
    );
    add(
        Refused,
        &[
            "replay-compress",
            "--all",
            "-A",
            "claude",
            "--plot",
            &format!("{h}/.gemini/p.svg"),
        ],
    );

    let watched = [home.clone(), loose.clone()];
    let mut before: Vec<_> = watched.iter().map(|w| fingerprint(w)).collect();
    assert!(
        before[0].len() > 40,
        "the store copy is the whole sample home"
    );
    for (outcome, args) in &cases {
        let run = sessions()
            .env("HOME", t.join("nohome"))
            .arg("--home")
            .arg(&home)
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        match outcome {
            Ok => assert!(run.status.success(), "{args:?}:\n{stderr}"),
            Refused => {
                assert_eq!(run.status.code(), Some(1), "{args:?}:\n{stderr}");
                assert!(stderr.contains("refusing to write"), "{args:?}:\n{stderr}");
            }
        }
        for (w, b) in watched.iter().zip(before.iter_mut()) {
            let now = fingerprint(w);
            let d = diff(b, &now);
            assert!(
                d.is_empty(),
                "{args:?} changed {}:\n{}",
                w.display(),
                d.join("\n")
            );
        }
    }
    // The writes that were allowed did happen.
    for f in [
        "a.md",
        "b.html",
        "all/index.md",
        "allj/index.json",
        "loose/index.md",
        "one.md",
        "one.svg",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let svgs = fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name();
            let n = n.to_string_lossy();
            n.starts_with("p-") && n.ends_with(".svg")
        })
        .count();
    assert!(svgs > 5, "one plot per session: {svgs}");
    // No temporary file is left anywhere.
    for e in walkdir::WalkDir::new(t) {
        let e = e.unwrap();
        assert!(
            !e.file_name().to_string_lossy().contains(".tmp-") || e.path().starts_with(&home),
            "{}",
            e.path().display()
        );
    }
}

#[test]
fn plot_never_replaces_a_session_and_needs_force_for_a_file() {
    // The reproduction of the bug: `replay-compress --plot SESSION SESSION` replaced the
    // session with an SVG.
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("s.jsonl");
    let src = sample_home()
        .join(".claude/projects/-home-dev-webapp/6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01.jsonl");
    fs::copy(&src, &session).unwrap();
    let before = fs::read(&session).unwrap();
    let plot = |target: &Path, force: bool| {
        let mut c = sessions();
        c.env("HOME", tmp.path())
            .args(["replay-compress", "-A", "claude"])
            .arg(&session)
            .arg("--plot")
            .arg(target);
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    let r = plot(&session, true);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("it is a file being read"));
    assert_eq!(fs::read(&session).unwrap(), before);
    // Another session that is not being read is not replaced either, even with --force.
    let other = tmp.path().join("other.jsonl");
    fs::copy(&src, &other).unwrap();
    let r = plot(&other, true);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("it is a claude session file"));
    assert_eq!(fs::read(&other).unwrap(), before);
    // An existing regular file: only with --force.
    let svg = tmp.path().join("p.svg");
    fs::write(&svg, "keep").unwrap();
    let r = plot(&svg, false);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("already exists; use --force"));
    assert_eq!(fs::read_to_string(&svg).unwrap(), "keep");
    assert!(plot(&svg, true).status.success());
    assert!(fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}

#[test]
fn only_regular_files_are_ever_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    copy_tree(&sample_home(), &home.join("h"));
    // A device node of our own (root can make one; the bug replaced /dev/full), a FIFO, a
    // folder, a dangling link: never replaced, even with --force.
    let mut targets: Vec<(PathBuf, &str)> = Vec::new();
    let fifo = home.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    targets.push((fifo, "a FIFO"));
    if common::is_root() {
        let dev = home.join("null-device");
        assert!(
            std::process::Command::new("mknod")
                .args(["-m", "666"])
                .arg(&dev)
                .args(["c", "1", "3"])
                .status()
                .unwrap()
                .success()
        );
        targets.push((dev, "a character device"));
    }
    targets.push((PathBuf::from("/dev/null"), "a character device"));
    // (`export -o FOLDER` writes into the folder; a plot is always one file.)
    fs::create_dir(home.join("folder.svg")).unwrap();
    targets.push((home.join("folder.svg"), "a folder"));
    symlink(home.join("nowhere/x.md"), home.join("dangling.md")).unwrap();
    targets.push((home.join("dangling.md"), "symbolic link"));
    for (target, what) in &targets {
        let before = fs::symlink_metadata(target).map(|m| (m.file_type(), m.ino(), m.rdev()));
        let mut cmd = sessions();
        cmd.env("HOME", home.join("h"));
        if target.extension().is_some_and(|e| e == "svg") {
            cmd.args([
                "replay-compress",
                "6f0d3c52",
                "-A",
                "claude",
                "--force",
                "--plot",
            ]);
        } else {
            cmd.args(["export", "6f0d3c52", "--force", "-o"]);
        }
        let out = cmd.arg(target).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", target.display());
        assert!(stderr.contains(what), "{}: {stderr}", target.display());
        let after = fs::symlink_metadata(target).map(|m| (m.file_type(), m.ino(), m.rdev()));
        assert_eq!(
            format!("{before:?}"),
            format!("{after:?}"),
            "{} was replaced",
            target.display()
        );
    }
    assert!(!home.join("nowhere").exists());
}

/// Every file-writing API in `src/`, outside the one door (and outside test modules).
#[test]
fn only_the_output_guard_writes_files() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let forbidden = [
        "fs::write(",
        "File::create(",
        "OpenOptions",
        "fs::create_dir",
        "fs::rename(",
        "fs::copy(",
        "SVGBackend::new(",
        "BitMapBackend::new(",
        "set_permissions(",
        "remove_file(",
        "remove_dir(",
    ];
    let mut offenders = Vec::new();
    for e in walkdir::WalkDir::new(&src) {
        let e = e.unwrap();
        let path = e.path();
        if path.extension().is_none_or(|x| x != "rs") || path.ends_with("output.rs") {
            continue;
        }
        // Test files (`*tests.rs`, a `tests/` module folder) and inline test modules may write
        // their fixtures; the fuzz entry points (never reached from the command line) write
        // their scratch input to the temp dir.
        let name = path.file_name().unwrap().to_string_lossy();
        let in_tests_folder = path
            .strip_prefix(&src)
            .is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == "tests"));
        if name.ends_with("tests.rs") || name == "fuzzing.rs" || in_tests_folder {
            continue;
        }
        let text = fs::read_to_string(path).unwrap();
        let code = match text.find("#[cfg(test)]\nmod tests {") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for f in forbidden {
                if line.contains(f) {
                    offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files are written only through src/output.rs:\n{}",
        offenders.join("\n")
    );
}
