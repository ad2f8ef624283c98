//! Local time around its edges: `show` across a daylight-saving change, the zone of plain dates
//! in `--since`/`--until` (the same in every command), the end of a day, and a `$TZ` that
//! names no zone.

use crate::common;

use std::fs;
use std::path::Path;

use serde_json::Value;

/// Central European time as a POSIX TZ rule (no time-zone database needed).
const BERLIN: &str = "CET-1CEST,M3.5.0,M10.5.0/3";
const NEW_YORK: &str = "EST5EDT,M3.2.0,M11.1.0";

/// A Claude session in `home`: a prompt and a 10-token answer at each time.
fn claude_session(home: &Path, project: &str, id: &str, times: &[&str]) {
    let dir = home
        .join(".claude/projects")
        .join(format!("-home-dev-{project}"));
    fs::create_dir_all(&dir).unwrap();
    let mut lines = String::new();
    for (i, t) in times.iter().enumerate() {
        let common = format!(
            r#""isSidechain":false,"userType":"external","cwd":"/home/dev/{project}","sessionId":"{id}","version":"2.1.50","timestamp":"{t}""#
        );
        lines.push_str(&format!(
            r#"{{"type":"user","uuid":"{id}-u{i}","message":{{"role":"user","content":"prompt {i} at {t}"}},{common}}}"#
        ));
        lines.push('\n');
        lines.push_str(&format!(
            r#"{{"type":"assistant","uuid":"{id}-a{i}","requestId":"req_{id}_{i}","message":{{"model":"claude-sonnet-4-5-20250929","id":"msg_{id}_{i}","type":"message","role":"assistant","content":[{{"type":"text","text":"answer {i}"}}],"stop_reason":"end_turn","usage":{{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}}},{common}}}"#
        ));
        lines.push('\n');
    }
    fs::write(dir.join(format!("{id}.jsonl")), lines).unwrap();
}

fn run(home: &Path, tz: &str, args: &[&str]) -> (String, String) {
    let out = common::sessions()
        .env("TZ", tz)
        .arg("--home")
        .arg(home)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(home: &Path, tz: &str, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(&run(home, tz, &args).0).unwrap()
}

/// The ids `list` selects.
fn listed(home: &Path, tz: &str, args: &[&str]) -> Vec<String> {
    let mut a = vec!["list"];
    a.extend(args);
    let doc = json(home, tz, &a);
    let mut ids: Vec<String> = doc
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn projects_tokens(home: &Path, tz: &str, args: &[&str]) -> u64 {
    let mut a = vec!["projects"];
    a.extend(args);
    json(home, tz, &a)
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"]["total"].as_u64().unwrap())
        .sum()
}

fn usage_tokens(home: &Path, tz: &str, args: &[&str]) -> u64 {
    let mut a = vec!["usage"];
    a.extend(args);
    json(home, tz, &a)["totals"]["tokens"]["total"]
        .as_u64()
        .unwrap()
}

/// On the day clocks go back, 02:30 happens twice: each time carries its own offset, and the
/// day's heading names none. On a day with one offset the heading names it, as before.
#[test]
fn show_gives_each_time_its_offset_across_a_clock_change() {
    let home = tempfile::tempdir().unwrap();
    let id = "11111111-0000-4000-8000-000000000002";
    claude_session(
        home.path(),
        "autumn",
        id,
        &[
            "2026-10-24T12:00:00.000Z",
            "2026-10-25T00:30:00.000Z",
            "2026-10-25T01:30:00.000Z",
            "2026-10-25T22:59:59.999Z",
        ],
    );
    let (out, _) = run(home.path(), BERLIN, &["show", id]);
    assert!(out.contains("── 2026-10-24 (+02:00) ──"), "{out}");
    assert!(out.contains("\n14:00:00  user"), "{out}");
    assert!(out.contains("── 2026-10-25 ──"), "{out}");
    assert!(!out.contains("2026-10-25 (+"), "{out}");
    assert!(out.contains("\n02:30:00 +02:00  user"), "{out}");
    assert!(out.contains("\n02:30:00 +01:00  user"), "{out}");
    assert!(out.contains("\n23:59:59 +01:00  user"), "{out}");
    // Spring: the day is +01:00 until 02:00, then +02:00.
    let id = "11111111-0000-4000-8000-000000000001";
    claude_session(
        home.path(),
        "spring",
        id,
        &["2026-03-29T00:59:59.000Z", "2026-03-29T01:00:00Z"],
    );
    let (out, _) = run(home.path(), BERLIN, &["show", id]);
    assert!(out.contains("── 2026-03-29 ──"), "{out}");
    assert!(out.contains("\n01:59:59 +01:00  user"), "{out}");
    assert!(out.contains("\n03:00:00 +02:00  user"), "{out}");
    // Under --utc nothing changes offset.
    let (out, _) = run(home.path(), BERLIN, &["--utc", "show", id]);
    assert!(out.contains("── 2026-03-29 (UTC) ──"), "{out}");
    assert!(out.contains("\n01:00:00  user"), "{out}");
}

/// `--utc` makes a plain date a UTC day for every command, as it does for `usage`: in New
/// York, 2026-06-02T02:00Z is still 1 June, in UTC it is 2 June.
#[test]
fn utc_makes_plain_dates_utc_days_everywhere() {
    let home = tempfile::tempdir().unwrap();
    let early = "22222222-0000-4000-8000-000000000001";
    let late = "22222222-0000-4000-8000-000000000002";
    claude_session(home.path(), "a", early, &["2026-06-01T12:00:00Z"]);
    claude_session(home.path(), "b", late, &["2026-06-02T02:00:00Z"]);
    let h = home.path();
    let until = ["--until", "2026-06-01"];
    // Local days (New York): both are on 1 June.
    assert_eq!(listed(h, NEW_YORK, &until), [early, late]);
    assert_eq!(projects_tokens(h, NEW_YORK, &until), 20);
    assert_eq!(usage_tokens(h, NEW_YORK, &until), 20);
    // UTC days: the later one is on 2 June, for every command.
    let utc_until = ["--utc", "--until", "2026-06-01"];
    assert_eq!(listed(h, NEW_YORK, &utc_until), [early]);
    assert_eq!(projects_tokens(h, NEW_YORK, &utc_until), 10);
    assert_eq!(usage_tokens(h, NEW_YORK, &utc_until), 10);
    let utc_since = ["--utc", "--since", "2026-06-02"];
    assert_eq!(listed(h, NEW_YORK, &utc_since), [late]);
    assert_eq!(projects_tokens(h, NEW_YORK, &utc_since), 10);
    assert_eq!(usage_tokens(h, NEW_YORK, &utc_since), 10);
    // `usage --timezone` names the zone of its days, and of its plain dates.
    let named = ["--timezone", "UTC", "--until", "2026-06-01"];
    assert_eq!(usage_tokens(h, NEW_YORK, &named), 10);
}

/// A time recorded at 23:59:59.9995 belongs to its day: `--until` that day keeps it, `--since`
/// the next day leaves it out, and it is in the day's row.
#[test]
fn the_last_instant_of_a_day_is_in_that_day() {
    let home = tempfile::tempdir().unwrap();
    let id = "33333333-0000-4000-8000-000000000004";
    claude_session(home.path(), "edge", id, &["2026-06-07T23:59:59.999500Z"]);
    let h = home.path();
    assert_eq!(listed(h, "UTC", &["--until", "2026-06-07"]), [id]);
    assert!(listed(h, "UTC", &["--since", "2026-06-08"]).is_empty());
    assert_eq!(projects_tokens(h, "UTC", &["--until", "2026-06-07"]), 10);
    assert_eq!(usage_tokens(h, "UTC", &["--until", "2026-06-07"]), 10);
    assert_eq!(usage_tokens(h, "UTC", &["--since", "2026-06-08"]), 0);
    let doc = json(h, "UTC", &["usage", "daily", "--until", "2026-06-07"]);
    assert_eq!(doc["rows"][0]["period"], "2026-06-07", "{doc:#}");
    // The JSON window still names its last millisecond.
    assert_eq!(doc["until"], "2026-06-07T23:59:59.999Z", "{doc:#}");
    // An instant stays inclusive: a session at it is kept.
    claude_session(
        h,
        "at",
        "33333333-0000-4000-8000-000000000005",
        &["2026-06-09T00:00:00Z"],
    );
    let at = [
        "--until",
        "2026-06-09T00:00:00Z",
        "--since",
        "2026-06-09T00:00:00Z",
    ];
    assert_eq!(
        listed(h, "UTC", &at),
        ["33333333-0000-4000-8000-000000000005"]
    );
}

/// A `$TZ` that names no zone makes local time UTC: every command that shows local time or
/// reads plain dates says so, once; `--utc` and `--quiet` silence it.
#[test]
fn a_tz_that_names_no_zone_is_said_once_by_every_command() {
    let home = tempfile::tempdir().unwrap();
    let id = "44444444-0000-4000-8000-000000000001";
    claude_session(home.path(), "mars", id, &["2026-06-01T12:00:00Z"]);
    let h = home.path();
    for args in [
        vec!["list"],
        vec!["projects"],
        vec!["compactions"],
        vec!["show", id],
        vec!["export", id],
        vec!["usage"],
    ] {
        let (_, err) = run(h, "Mars/Olympus", &args);
        assert_eq!(
            err.matches("TZ=Mars/Olympus names no time zone").count(),
            1,
            "{args:?}: {err}"
        );
        let mut utc = vec!["--utc"];
        utc.extend(&args);
        let (_, err) = run(h, "Mars/Olympus", &utc);
        assert!(!err.contains("names no time zone"), "{utc:?}: {err}");
        let mut quiet = vec!["-q"];
        quiet.extend(&args);
        let (_, err) = run(h, "Mars/Olympus", &quiet);
        assert!(!err.contains("names no time zone"), "{quiet:?}: {err}");
    }
    let (_, err) = run(h, "Mars/Olympus", &["list"]);
    assert!(err.contains("plain dates in --since/--until"), "{err}");
    // `usage` with a named zone uses no local time.
    let (_, err) = run(h, "Mars/Olympus", &["usage", "--timezone", "UTC"]);
    assert!(!err.contains("names no time zone"), "{err}");
    // A real zone says nothing.
    let (_, err) = run(h, BERLIN, &["list"]);
    assert!(!err.contains("names no time zone"), "{err}");
}

/// A day whose midnight the clock skips (24:00 → 01:00) starts at the jump itself, to the
/// millisecond: a request at that instant is in the day, in every command's window and in the
/// day's row, whose start is the previous row's end.
#[test]
fn a_skipped_midnight_starts_the_day_at_the_jump() {
    // Chile's rule: UTC−4, then UTC−3 from 24:00 on the first Saturday of September.
    const SANTIAGO: &str = "<-04>4<-03>,M9.1.6/24,M4.1.6/24";
    let home = tempfile::tempdir().unwrap();
    claude_session(
        home.path(),
        "chile",
        "cccccccc-0000-4000-8000-00000000000c",
        &["2026-09-06T03:59:59.000Z", "2026-09-06T04:00:00.000Z"],
    );
    let day = ["--since", "2026-09-06", "--until", "2026-09-06"];
    assert_eq!(
        listed(home.path(), SANTIAGO, &day),
        ["cccccccc-0000-4000-8000-00000000000c"]
    );
    let mut args = vec!["usage", "daily"];
    args.extend(day);
    assert_eq!(json(home.path(), SANTIAGO, &args)["totals"]["requests"], 1);
    let rows = json(home.path(), SANTIAGO, &["usage", "daily"])["rows"].clone();
    let bounds: Vec<(&str, &str, &str)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["period"].as_str().unwrap(),
                r["start"].as_str().unwrap(),
                r["end"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        bounds,
        [
            (
                "2026-09-05",
                "2026-09-05T04:00:00.000Z",
                "2026-09-06T04:00:00.000Z"
            ),
            (
                "2026-09-06",
                "2026-09-06T04:00:00.000Z",
                "2026-09-07T03:00:00.000Z"
            ),
        ]
    );
}
