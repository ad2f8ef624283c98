//! Shared by the integration tests: the binary, isolated from the machine it runs on.
#![allow(dead_code)] // each test crate uses its own subset

use assert_cmd::Command;

/// The subcommands a user reads the help of (`completions` and `man` generate files).
pub const SUBCOMMANDS: [&str; 7] = [
    "list",
    "show",
    "projects",
    "compactions",
    "replay-compress",
    "export",
    "usage",
];

/// `sessions` with the agents' store variables removed (so the machine's real stores never
/// leak into a test), UTC time and a fixed table width.
pub fn sessions() -> Command {
    isolated(Command::cargo_bin("sessions").unwrap())
}

fn isolated(mut c: Command) -> Command {
    for k in [
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_PROJECTS_DIR",
        "CODEX_HOME",
        "CODEX_SESSIONS_DIR",
        "GEMINI_CLI_HOME",
        "GEMINI_SESSIONS_DIR",
        "XDG_CONFIG_HOME",
    ] {
        c.env_remove(k);
    }
    c.env("TZ", "UTC").env("COLUMNS", "200");
    c
}

/// The damaged copies of four sample sessions (`testdata/damaged`, see its README): the same
/// files as in `testdata/home` plus malformed and truncated lines.
pub fn damaged(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/damaged")).join(rel)
}

/// A damaged file and its clean copy hold the same session: a skipped line loses nothing else.
pub fn assert_same_but_clean(damaged: &sessions::model::Session, clean: &sessions::model::Session) {
    assert!(clean.warnings.is_empty(), "{:?}", clean.warnings);
    assert!(!damaged.warnings.is_empty());
    assert_eq!(clean.id, damaged.id);
    assert_eq!(clean.messages.len(), damaged.messages.len());
    assert_eq!(clean.counts(), damaged.counts());
    assert_eq!(clean.usage(), damaged.usage());
    assert_eq!(clean.requests.len(), damaged.requests.len());
    assert_eq!(clean.compactions.len(), damaged.compactions.len());
    assert_eq!(clean.started_at, damaged.started_at);
    assert_eq!(clean.updated_at, damaged.updated_at);
}

/// Whether the tests run as root, for whom file modes do not stop reading.
pub fn is_root() -> bool {
    let out = std::process::Command::new("id")
        .arg("-u")
        .output()
        .expect("`id -u` runs");
    out.stdout.trim_ascii() == b"0"
}

/// `sessions` as a user that file modes apply to. As root (CI containers, this machine) it runs
/// through `setpriv` as `nobody`: an unreadable (mode 000) file or folder can only be tested
/// that way. The folders it reads must then be open to others (see [`open_to_all`]). Without
/// `setpriv` the command fails to start, so the test fails rather than skip.
pub fn sessions_unprivileged() -> Command {
    if !is_root() {
        return sessions();
    }
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("sessions"));
    isolated(c)
}

/// Make a temporary folder (mode 0700) searchable by the unprivileged user.
pub fn open_to_all(dir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs `c`, which must succeed, and returns what it printed on stdout.
pub fn stdout_of(c: &mut Command) -> Vec<u8> {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{c:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `c`, which must succeed, and returns the JSON it printed.
pub fn json_of(c: &mut Command) -> serde_json::Value {
    serde_json::from_slice(&stdout_of(c)).unwrap()
}

/// Runs `c`, which must succeed, and returns the JSON array it printed.
pub fn json_array(c: &mut Command) -> Vec<serde_json::Value> {
    json_of(c).as_array().expect("a JSON array").clone()
}

/// CI has the corpus, so there the corpus tests never pass by being ignored: a missing corpus
/// is a failure.
#[cfg(not(has_corpus))]
#[test]
fn corpus_is_present_in_ci() {
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true" || v == "1"),
        "CI=true but the corpus is missing at {} (set SESSIONS_CORPUS)",
        env!("SESSIONS_CORPUS_DIR")
    );
}

/// The session files under `dir` (none when it does not exist), as the library's discovery
/// finds them.
pub fn session_files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    use sessions::discover::Discovery;
    use sessions::model::Agent;
    if !dir.is_dir() {
        return Vec::new();
    }
    Discovery::walk_paths(&[dir.to_path_buf()], &Agent::ALL)
        .files
        .into_iter()
        .map(|f| f.path)
        .collect()
}

/// Set a file's modification time (the scan's `--since`, the rewrite window of a document).
pub fn set_modified(path: &std::path::Path, t: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}
