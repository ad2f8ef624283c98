//! Shared by the integration tests: the binary, isolated from the machine it runs on.

use assert_cmd::Command;

/// `sessions` with the agents' store variables removed (so the machine's real stores never
/// leak into a test), UTC time and a fixed table width.
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
