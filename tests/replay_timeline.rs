//! The human timeline of `replay-compress --timeline`: each event says what the replay did, and
//! a compaction it only followed from the recording is told from one the algorithm decided
//! (as JSON's `forced` tells them apart).

mod common;

use common::sessions;

const HOME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");

fn timeline(columns: &str, extra: &[&str]) -> String {
    let out = sessions()
        .env("COLUMNS", columns)
        .args(["--home", HOME, "--quiet", "replay-compress", "6f0d3c52"])
        .args(["-A", "claude", "--timeline"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// 6f0d3c52 holds a manual `/compact` before request 5: replaying Claude's own algorithm
/// follows it (the user's hand, not the algorithm's decision), at any window, and marks it
/// `compress*`. At a window of 8,000 tokens the algorithm also compacts on its own before every
/// earlier request, and those rows say plain `compress`.
#[test]
fn a_followed_compaction_is_labelled_as_followed() {
    let row = |t: &str, k: usize| -> String {
        let prefix = format!("{k} ");
        t.lines()
            .find(|l| l.trim_start().starts_with(&prefix))
            .unwrap_or_else(|| panic!("no row {k}:\n{t}"))
            .to_string()
    };
    // At 80 columns the mark leaves the event's counts whole, and a line under the table
    // says what it means.
    for columns in ["200", "80"] {
        let t = timeline(columns, &[]);
        assert!(
            row(&t, 5).contains("compress* 11.2k→3.5k (12 summarised, 0 kept)"),
            "{t}"
        );
        assert!(t.contains("* followed the agent's own compaction"), "{t}");
    }
    let t = timeline("200", &["--context-window", "8000"]);
    for k in 0..5 {
        let r = row(&t, k);
        assert!(r.contains("compress ") && !r.contains("compress*"), "{t}");
    }
    assert!(row(&t, 5).contains("compress* "), "{t}");
}

/// Without a followed compaction there is no mark to explain: f0e1d2c3 has no compaction.
#[test]
fn no_mark_no_legend() {
    let out = sessions()
        .env("COLUMNS", "200")
        .args(["--home", HOME, "--quiet", "replay-compress", "f0e1d2c3"])
        .args(["-A", "claude", "--timeline", "--context-window", "8000"])
        .output()
        .unwrap();
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(t.contains("compress "), "{t}");
    assert!(
        !t.contains("compress*") && !t.contains("followed the agent's own"),
        "{t}"
    );
}
