//! The human timeline of `replay-compress --timeline`: each event says what the replay did, and
//! a compaction it only followed from the recording is told from one the algorithm decided
//! (as JSON's `forced` tells them apart).

use crate::common;

use common::sessions;

const HOME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");

/// The human output of `replay-compress <args>` over the sample home at `columns`, which must
/// succeed.
fn replay(columns: &str, args: &[&str]) -> String {
    let out = sessions()
        .env("COLUMNS", columns)
        .args(["--home", HOME, "--quiet", "replay-compress"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The same as JSON records.
fn replay_json(args: &[&str]) -> Vec<serde_json::Value> {
    common::json_array(
        sessions()
            .args(["--home", HOME, "--quiet", "replay-compress"])
            .args(args)
            .args(["--format", "json"]),
    )
}

fn timeline(columns: &str, extra: &[&str]) -> String {
    let mut args = vec!["6f0d3c52", "-A", "claude", "--timeline"];
    args.extend_from_slice(extra);
    replay(columns, &args)
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
    let t = replay(
        "200",
        &[
            "f0e1d2c3",
            "-A",
            "claude",
            "--timeline",
            "--context-window",
            "8000",
        ],
    );
    assert!(t.contains("compress "), "{t}");
    assert!(
        !t.contains("compress*") && !t.contains("followed the agent's own"),
        "{t}"
    );
}

/// e5f6a7b8 (Gemini) holds a manual `/compress` before request 3 and an automatic compression
/// before request 7 that Gemini's own algorithm, at its 50% threshold, does not predict.
/// Replaying Gemini's algorithm applies the `/compress` where the user typed it, as Gemini
/// CLI's forced compression, and follows the automatic one a request late, as the Claude and
/// Codex replays do: both are marked, and the what-if series is the recorded one again after
/// each.
#[test]
fn gemini_applies_a_manual_compress_and_follows_an_automatic_one() {
    let v = replay_json(&["e5f6a7b8", "-A", "gemini", "--validate", "--timeline"]);
    let r = &v[0];
    assert_eq!(
        (r["followed"].as_u64(), r["compressions"].as_u64()),
        (Some(2), Some(0))
    );
    let at: Vec<(u64, &str, bool)> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let forced = e["forced"].as_bool().unwrap_or(false);
            (
                e["request"].as_u64().unwrap(),
                e["kind"].as_str().unwrap(),
                forced,
            )
        })
        .collect();
    assert_eq!(at, [(3, "compress", true), (8, "compress", true)]);
    let timeline = r["timeline"].as_array().unwrap();
    for k in [3, 4, 5, 6, 8] {
        assert_eq!(
            timeline[k]["what_if"], timeline[k]["recorded"],
            "request {k}"
        );
    }
    let rows = r["validation"].as_array().unwrap();
    assert!(rows.iter().all(|v| v["followed"] == true), "{rows:?}");
    // Its saving against the recording is no longer every token the user's /compress saved.
    assert!(
        r["totals"]["saved_vs_recorded"].as_i64().unwrap() > -10_000,
        "{r}"
    );
}

/// A `/compress` whose summary would not shrink the history (a 65,536-token summary of a
/// 22,000-token history) is rejected by Gemini CLI as inflated: the attempt is a forced
/// `failed` event, and nothing was followed.
#[test]
fn an_inflated_compress_by_hand_is_not_followed() {
    let v = replay_json(&["e5f6a7b8", "-A", "gemini", "--summary-tokens", "65536"]);
    let r = &v[0];
    assert_eq!(r["events"][0]["kind"], "failed");
    assert_eq!(r["events"][0]["forced"], true);
    assert_eq!(r["followed"], 0, "{r}");
}

/// The same rejected `/compress` in the human timeline: its row is marked as the agent's, and
/// the words under the table say it was rejected, not that the replay followed it.
#[test]
fn a_rejected_compress_by_hand_is_not_called_followed() {
    let t = replay(
        "100",
        &[
            "e5f6a7b8",
            "-A",
            "gemini",
            "--summary-tokens",
            "65536",
            "--timeline",
        ],
    );
    assert!(t.contains("failed* 22.0k→22.0k"), "{t}");
    assert!(!t.contains("followed the agent's own compaction"), "{t}");
    let legend = t
        .split("\n\nfailed* ")
        .nth(1)
        .unwrap_or_else(|| panic!("{t}"));
    assert!(
        legend.starts_with("the agent's own compaction") && legend.contains("rejected"),
        "{t}"
    );
    assert!(legend.contains("nothing was followed"), "{t}");
}
