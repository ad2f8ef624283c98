//! Shared by the integration tests: the binary, isolated from the machine it runs on.

use assert_cmd::Command;

/// `sessions` with the agents' store variables removed (so the machine's real stores never
/// leak into a test), UTC time and a fixed table width.
#[allow(dead_code)]
pub fn sessions() -> Command {
    let mut c = Command::cargo_bin("sessions").unwrap();
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
#[allow(dead_code)]
pub fn damaged(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/damaged")).join(rel)
}

/// A damaged file and its clean copy hold the same session: a skipped line loses nothing else.
#[allow(dead_code)]
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
