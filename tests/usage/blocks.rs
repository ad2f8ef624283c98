//! 5-hour blocks: per agent from the timestamps, and the active block's burn rate and
//! projection.

use super::*;

#[test]
fn blocks_per_agent_from_the_timestamps() {
    let doc = usage(&["blocks"]);
    let blocks: Vec<(String, String, u64)> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["agent"].as_str().unwrap().into(),
                r["start"].as_str().unwrap()[..16].into(),
                r["tokens"]["total"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(&str, &str, u64)> = vec![
        ("gemini", "2026-03-04T09:00", 28_487),  // F1 09:15–09:20
        ("claude", "2026-03-14T09:00", 62_299),  // A + its copy 09:00:05–10:01:20
        ("codex", "2026-03-14T09:00", 43_595),   // 09:15:26–09:16:09
        ("gemini", "2026-03-20T13:00", 1_780),   // F4 13:06–13:30
        ("claude", "2026-04-02T14:00", 25_823),  // B 14:00:06–14:00:24
        ("codex", "2026-04-02T14:00", 56_012),   // 14:30:18–14:38:41
        ("gemini", "2026-04-14T16:00", 40_270),  // F2 16:41–16:46
        ("claude", "2026-05-05T08:00", 33_351),  // C + agent file, 08:30:04–08:32:02
        ("gemini", "2026-05-06T10:00", 5_160),   // F3′ f3-g1 10:01
        ("gemini", "2026-05-07T09:00", 6_030),   // f3-g2 09:05, 23 h later: a new block
        ("codex", "2026-05-20T16:00", 28_530),   // parent + sub-agent, 16:00:04–16:01:30
        ("gemini", "2026-06-10T08:00", 101_585), // F5 08:30:20–09:20:30 + F6 08:36–08:37
        ("claude", "2026-06-10T11:00", 19_520),  // D 11:00:04–11:05:15
        ("codex", "2026-06-11T11:00", 29_125),   // fork 11:05:09–11:06:14
        ("codex", "2026-07-08T08:00", 14_430),
        ("claude", "2026-07-20T16:00", 34_012), // E + its sub-agent 16:00:03–16:00:45
        ("gemini", "2026-07-22T14:00", 52_970), // F7 14:02–14:22
        ("claude", "2026-08-03T19:00", 3_240),
        ("codex", "2026-08-19T17:00", 22_790),
        ("gemini", "2026-08-30T19:00", 1_545),
    ];
    let want: Vec<(String, String, u64)> = want
        .into_iter()
        .map(|(a, s, t)| (a.into(), s.into(), t))
        .collect();
    assert_eq!(blocks, want);
    assert_eq!(total(&doc), HOME_TOTAL);
    let claude = &doc["rows"][1];
    assert_eq!(claude["end"], "2026-03-14T14:00:00.000Z");
    assert_eq!(claude["active"], false);
    assert_eq!(claude["burn_rate"], Value::Null);
    // The next Claude block (04-02) follows 19 days 3 h 58 min 46 s after A's last request.
    assert_eq!(
        doc["rows"][4]["gap_before_minutes"],
        19 * 24 * 60 + 3 * 60 + 58
    );
    // Nothing in the sample home is recent.
    let out = sessions()
        .args(["usage", "blocks", "--active"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("No active 5-hour block"));
}

#[test]
fn the_active_block_has_a_burn_rate_and_a_projection() {
    let now = chrono::Utc::now();
    let at = |minutes: i64| (now - chrono::Duration::minutes(minutes)).to_rfc3339();
    let (a, b) = (at(40), at(10));
    let dir = tempfile::tempdir().unwrap();
    let f = claude_file(
        dir.path(),
        "claude-sonnet-4-5-20250929",
        &[(&a, 1_000), (&b, 2_000)],
    );
    let doc = usage_of(&f, &["blocks", "--active"]);
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{doc}");
    let r = &rows[0];
    assert_eq!(r["active"], true);
    // 3,000 tokens over the 30 minutes between the two requests.
    assert!(close(
        r["burn_rate"]["tokens_per_minute"].as_f64().unwrap(),
        100.0
    ));
    // $0.009 in 30 minutes.
    assert!(close(
        r["burn_rate"]["cost_per_hour_usd"].as_f64().unwrap(),
        0.018
    ));
    let left = r["projection"]["remaining_minutes"].as_i64().unwrap();
    assert!((0..=300).contains(&left));
    let projected = r["projection"]["tokens"].as_u64().unwrap();
    assert!(
        projected.abs_diff(3_000 + 100 * left as u64) <= 100,
        "{projected} {left}"
    );
    let out = common::sessions()
        .args(["usage", "blocks", "--active"])
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("burn rate    100 tokens/min, $0.0180/hour"),
        "{text}"
    );
    assert!(text.contains("projection"), "{text}");
    // On a narrow terminal each value wraps under itself.
    for width in [80usize, 60] {
        let out = common::sessions()
            .env("COLUMNS", width.to_string())
            .args(["usage", "blocks", "--active"])
            .arg(&f)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= width, "{width}: {line}");
        }
        if width == 60 {
            assert!(text.contains("\n             "), "{text}");
        }
    }
}

/// A Claude session of project `cwd` in `home`'s store: one response a request, (time, input).
fn project_session(home: &Path, sid: &str, cwd: &str, requests: &[(&str, u64)]) {
    let dir = home.join(".claude/projects").join(cwd.replace('/', "-"));
    std::fs::create_dir_all(&dir).unwrap();
    let lines: Vec<String> = requests
        .iter()
        .enumerate()
        .map(|(i, (at, input))| {
            json!({"type": "assistant", "sessionId": sid, "uuid": format!("{sid}-{i}"),
                "parentUuid": null, "timestamp": at, "cwd": cwd, "version": "2.1.90",
                "requestId": format!("req_{sid}_{i}"), "message": {"id": format!("msg_{sid}_{i}"),
                "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text",
                "text": "ok"}], "usage": {"input_tokens": input, "output_tokens": 0}}})
            .to_string()
        })
        .collect();
    std::fs::write(dir.join(format!("{sid}.jsonl")), lines.join("\n") + "\n").unwrap();
}

/// `--project` picks the requests a block holds, not where blocks start: the plan meters every
/// request. Project b's request at 09:20 opens the 09:00 block, which holds a's 13:30 request;
/// a's 14:30 request opens the next. Cut from a's requests alone, one block started at 13:00.
#[test]
fn a_project_selects_requests_from_the_blocks_every_request_cuts() {
    let home = tempfile::tempdir().unwrap();
    let a = "11111111-0000-4000-8000-00000000000a";
    let b = "11111111-0000-4000-8000-00000000000b";
    project_session(
        home.path(),
        b,
        "/home/dev/b",
        &[("2026-05-04T09:20:00Z", 7)],
    );
    project_session(
        home.path(),
        a,
        "/home/dev/a",
        &[("2026-05-04T13:30:00Z", 100), ("2026-05-04T14:30:00Z", 200)],
    );
    let blocks = |extra: &[&str]| -> Vec<(String, u64, u64, Value)> {
        let mut args = vec!["--home", home.path().to_str().unwrap(), "usage", "blocks"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        let doc = json_of(common::sessions(), &args);
        doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["start"].as_str().unwrap().to_string(),
                    r["tokens"]["input"].as_u64().unwrap(),
                    r["requests"].as_u64().unwrap(),
                    r["gap_before_minutes"].clone(),
                )
            })
            .collect()
    };
    let start = |s: &str| s.to_string();
    assert_eq!(
        blocks(&["--project", "/home/dev/a"]),
        [
            (start("2026-05-04T09:00:00.000Z"), 100, 1, Value::Null),
            (start("2026-05-04T14:00:00.000Z"), 200, 1, json!(60)),
        ]
    );
    // The project that opened the first block holds nothing in the second.
    assert_eq!(
        blocks(&["--project", "/home/dev/b"]),
        [(start("2026-05-04T09:00:00.000Z"), 7, 1, Value::Null)]
    );
    // Unselected, the same blocks hold everything.
    assert_eq!(
        blocks(&[]),
        [
            (start("2026-05-04T09:00:00.000Z"), 107, 2, Value::Null),
            (start("2026-05-04T14:00:00.000Z"), 200, 1, json!(60)),
        ]
    );
}
