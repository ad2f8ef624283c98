//! `sessions usage` against the sample home (`testdata/home`) and hand-made sessions: figures
//! per day, model and block computed by hand, time zones and DST, unknown models, `--prices`,
//! output formats, and the property that every report adds up to the `list`/`projects` totals.
//!
//! Per-file totals come from the hand-computed tables in testdata/home/*/README.md; which day
//! (and block) a file's requests fall on comes from the files' timestamps, e.g.
//! `jq -r 'select(.type=="assistant") | .timestamp' FILE` (Claude),
//! `jq -r 'select(.type=="event_msg" and .payload.type=="token_count") | .timestamp' FILE`
//! (Codex), `jq -r 'select(.type=="gemini") | .timestamp' FILE` (Gemini JSONL).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home")
}

fn sessions() -> assert_cmd::Command {
    let mut c = common::sessions();
    c.arg("--home").arg(home());
    c
}

fn json_of(mut cmd: assert_cmd::Command, args: &[&str]) -> Value {
    let out = cmd.args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn usage(args: &[&str]) -> Value {
    let mut all = vec!["usage"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    json_of(sessions(), &all)
}

/// period → total tokens.
fn totals_by(doc: &Value, key: &str) -> BTreeMap<String, u64> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[key].as_str().unwrap().to_string(),
                r["tokens"]["total"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn total(doc: &Value) -> u64 {
    doc["totals"]["tokens"]["total"].as_u64().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Every day of the sample home in UTC, from the README per-file totals.
const DAYS_UTC: [(&str, u64); 17] = [
    ("2026-03-04", 28_487),  // Gemini F1
    ("2026-03-14", 100_844), // Claude A 57,249 + Codex 43,595
    ("2026-03-20", 1_780),   // Gemini F4
    ("2026-04-02", 81_835),  // Claude B 25,823 + Codex 56,012
    ("2026-04-14", 40_270),  // Gemini F2 (slug copy; the hash-dir copy is dropped)
    ("2026-05-05", 33_351),  // Claude C 24,985 + its agent file 16,530 − the replay 8,164
    ("2026-05-06", 5_160),   // Gemini F3′ f3-g1 at 10:01 (5,000 + 60 + 100 thoughts)
    ("2026-05-07", 6_030),   // Gemini F3′ f3-g2 at 09:05 the next day (1,000 + 5,000 + 30)
    ("2026-05-20", 28_530),  // Codex parent 19,700 + sub-agent 8,830
    ("2026-06-10", 121_105), // Claude D 19,520 + Gemini F5 94,845 + F6 6,740
    ("2026-06-11", 29_125),  // Codex fork
    ("2026-07-08", 14_430),  // Codex .zst rollout
    ("2026-07-20", 34_012),  // Claude E 23,399 + its sub-agent 10,613
    ("2026-07-22", 52_970),  // Gemini F7
    ("2026-08-03", 3_240),   // Claude F
    ("2026-08-19", 22_790),  // Codex plain + .zst twin, counted once
    ("2026-08-30", 1_545),   // Gemini F8
];

/// Claude 173,195 + Codex 194,482 + Gemini 237,827 (the READMEs' de-duplicated totals).
const HOME_TOTAL: u64 = 605_504;

#[test]
fn daily_rows_are_the_hand_computed_days() {
    let doc = usage(&["daily"]);
    let want: BTreeMap<String, u64> = DAYS_UTC.iter().map(|(d, t)| (d.to_string(), *t)).collect();
    assert_eq!(totals_by(&doc, "period"), want);
    assert_eq!(total(&doc), HOME_TOTAL);
    assert_eq!(DAYS_UTC.iter().map(|d| d.1).sum::<u64>(), HOME_TOTAL);
    let first = &doc["rows"][0];
    assert_eq!(first["start"], "2026-03-04T00:00:00.000Z");
    assert_eq!(first["end"], "2026-03-05T00:00:00.000Z");
    assert_eq!(doc["timezone"], "UTC");
    assert_eq!(doc["prices"]["table"], "litellm");
    assert!(doc["prices"]["litellm_version"].is_string());
    assert!(doc["prices"]["snapshot_date"].is_string());
}

#[test]
fn breakdown_per_model_on_2026_03_14() {
    // Claude A, per model (streamed pieces merged by message.id + requestId, per-field max):
    // jq -cR 'fromjson? | select(type=="object")' A.jsonl | jq -s -c '[.[] | select(.type==
    //   "assistant" and .message.usage and .message.model != "<synthetic>")] | group_by([
    //   .message.id, .requestId]) | map({m: .[0].message.model, t: (([.[].message.usage
    //   .input_tokens]|max) + ([.[].message.usage.cache_read_input_tokens]|max) + ([.[].message
    //   .usage.cache_creation_input_tokens]|max) + ([.[].message.usage.output_tokens]|max)),
    //   h: ([.[].message.usage.cache_creation.ephemeral_1h_input_tokens // 0]|max)}) |
    //   group_by(.m) | map({(.[0].m): {t: (map(.t)|add), h1: (map(.h)|add)}}) | add'
    // → {"claude-opus-4-5-20251101":{"t":3628,"h1":500},
    //    "claude-sonnet-4-5-20250929":{"t":53621,"h1":500}}
    let doc = usage(&["daily", "--since", "2026-03-14", "--until", "2026-03-14"]);
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let models: BTreeMap<String, (u64, u64)> = rows[0]["breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                format!(
                    "{}/{}",
                    m["agent"].as_str().unwrap(),
                    m["model"].as_str().unwrap()
                ),
                (
                    m["tokens"]["total"].as_u64().unwrap(),
                    m["tokens"]["cache_write_1h"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(
        models,
        BTreeMap::from([
            ("claude/claude-opus-4-5-20251101".into(), (3_628, 500)),
            ("claude/claude-sonnet-4-5-20250929".into(), (53_621, 500)),
            ("codex/gpt-5-codex".into(), (43_595, 0)),
        ])
    );
    assert_eq!(rows[0]["agents"], json!(["claude", "codex"]));
}

#[test]
fn costs_computed_by_hand() {
    // Prices (USD per million tokens, LiteLLM snapshot): claude-sonnet-4-5 3 / 15 / read 0.30 /
    // write 3.75 (1 h: 6); claude-opus-4-5 5 / 25 / 0.50 / 6.25 (1 h: 10); gpt-5-codex
    // 1.25 / 10 / cached 0.125; gemini-3.1-pro-preview 2 / 12 below 200k prompt tokens.
    let doc = usage(&["session"]);
    let cost: BTreeMap<String, f64> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap()[..8].to_string(),
                r["cost_usd"].as_f64().unwrap(),
            )
        })
        .collect();
    // Claude F, one request: 15 in, 3,200 written (5 min), 25 out:
    // 15×3 + 3,200×3.75 + 25×15 = 45 + 12,000 + 375 = 12,420 µ$.
    assert!(close(cost["f0e1d2c3"], 0.012_42), "{}", cost["f0e1d2c3"]);
    // Claude E (opus): msg_E1 11 in, 9,000 read, 2,500 written for 1 h, 64 out; msg_E2 4 in,
    // 11,500 read, 180 written for 5 min, 140 out: 15×5 + 20,500×0.5 + 2,500×10 + 180×6.25 +
    // 204×25 = 75 + 10,250 + 25,000 + 1,125 + 5,100 = 41,550 µ$.
    assert!(close(cost["c4d5e6f7"], 0.041_55), "{}", cost["c4d5e6f7"]);
    // Codex 2026-03-14: 9,514 uncached + 33,536 cached in, 545 out:
    // 11,892.5 + 4,192 + 5,450 = 21,534.5 µ$ (JSON rounds to the µ$).
    assert!((cost["019ceba0"] - 0.021_534_5).abs() < 1e-6);
    // Gemini F7: 52,020 in, 950 out (thoughts included): 104,040 + 11,400 = 115,440 µ$.
    assert!(close(cost["f6a7b8c9"], 0.115_44));
    // Claude A: sonnet 30 in, 49,800 read, 3,020 written for 5 min + 500 for 1 h, 271 out =
    // 90 + 14,940 + 11,325 + 3,000 + 4,065 = 33,420; opus 8 in, 2,000 read, 1,000 + 500 (1 h)
    // written, 120 out = 40 + 1,000 + 6,250 + 5,000 + 3,000 = 15,290. Total 48,710 µ$.
    assert!(close(cost["6f0d3c52"], 0.048_71));
    // The whole sample home.
    assert!(close(
        doc["totals"]["cost_usd"].as_f64().unwrap(),
        0.466_053
    ));
    assert_eq!(doc["totals"]["unpriced_models"], json!([]));
}

#[test]
fn weeks_and_months() {
    // Days of the week: 03-14 Sat, 07-20 Mon, 07-22 Wed, 08-30 Sun.
    let monday = totals_by(&usage(&["weekly"]), "period");
    assert_eq!(monday["2026-03-09"], 100_844);
    assert_eq!(monday["2026-07-20"], 34_012 + 52_970);
    assert_eq!(monday["2026-08-24"], 1_545);
    let sunday = totals_by(&usage(&["weekly", "--start-of-week", "sunday"]), "period");
    assert_eq!(sunday["2026-03-08"], 100_844);
    assert_eq!(sunday["2026-07-19"], 34_012 + 52_970);
    assert_eq!(sunday["2026-08-30"], 1_545);
    assert_eq!(sunday.values().sum::<u64>(), HOME_TOTAL);
    let months = totals_by(&usage(&["monthly"]), "period");
    assert_eq!(
        months,
        BTreeMap::from([
            ("2026-03".into(), 28_487 + 100_844 + 1_780),
            ("2026-04".into(), 81_835 + 40_270),
            ("2026-05".into(), 33_351 + 5_160 + 6_030 + 28_530),
            ("2026-06".into(), 121_105 + 29_125),
            ("2026-07".into(), 14_430 + 34_012 + 52_970),
            ("2026-08".into(), 3_240 + 22_790 + 1_545),
        ])
    );
}

#[test]
fn a_tz_that_names_no_zone_is_said_to_be_utc() {
    let out = sessions()
        .env("TZ", "garbage")
        .args(["usage", "daily", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("TZ=garbage names no time zone"), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["timezone"], "UTC", "{doc:#}");
    // The days are UTC days.
    let days = totals_by(&doc, "period");
    for (d, t) in DAYS_UTC {
        assert_eq!(days.get(d), Some(&t), "{d}");
    }
}

#[test]
fn days_in_another_time_zone() {
    // Asia/Tokyo is UTC+9 all year: requests after 15:00 UTC fall on the next day there:
    // Gemini F2 16:41 → 04-15 01:41; Codex 2026-05-20 16:00 → 05-21; Claude E 16:00 → 07-21;
    // Claude F 19:00 → 08-04; Codex 17:45 → 08-20; Gemini F8 19:45 → 08-31. Claude B (14:00)
    // and Codex (14:30–14:38) on 04-02 stay on 04-02 (23:00–23:38 JST).
    let tokyo = totals_by(&usage(&["daily", "--timezone", "Asia/Tokyo"]), "period");
    let mut want: BTreeMap<String, u64> =
        DAYS_UTC.iter().map(|(d, t)| (d.to_string(), *t)).collect();
    for (from, to) in [
        ("2026-04-14", "2026-04-15"),
        ("2026-05-20", "2026-05-21"),
        ("2026-07-20", "2026-07-21"),
        ("2026-08-03", "2026-08-04"),
        ("2026-08-19", "2026-08-20"),
        ("2026-08-30", "2026-08-31"),
    ] {
        let t = want.remove(from).unwrap();
        want.insert(to.into(), t);
    }
    assert_eq!(tokyo, want);
    let doc = usage(&[
        "daily",
        "-z",
        "Asia/Tokyo",
        "--since",
        "2026-04-15",
        "--until",
        "2026-04-15",
    ]);
    assert_eq!(doc["rows"][0]["start"], "2026-04-14T15:00:00.000Z");
    assert_eq!(total(&doc), 40_270);
}

/// A Claude session in a temporary folder: requests at the given times with the given input
/// tokens, on `model`.
fn claude_file(dir: &Path, model: &str, requests: &[(&str, u64)]) -> PathBuf {
    let sid = "11111111-2222-4333-8444-555555555555";
    let mut lines = vec![json!({"type": "user", "sessionId": sid, "uuid": "u0",
        "parentUuid": null, "timestamp": requests[0].0, "cwd": "/home/dev/dst",
        "version": "2.1.90", "message": {"role": "user", "content": "hi"}})];
    let mut prev = "u0".to_string();
    for (i, (at, input)) in requests.iter().enumerate() {
        lines.push(
            json!({"type": "assistant", "sessionId": sid, "uuid": format!("a{i}"),
            "parentUuid": prev, "timestamp": at, "cwd": "/home/dev/dst", "version": "2.1.90",
            "requestId": format!("req_{i}"), "message": {"id": format!("msg_{i}"),
            "role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "output_tokens": 0}}}),
        );
        prev = format!("a{i}");
    }
    let path = dir.join(format!("{sid}.jsonl"));
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    path
}

fn usage_of(path: &Path, args: &[&str]) -> Value {
    let mut all = vec!["usage"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    all.push(path.to_str().unwrap());
    json_of(common::sessions(), &all)
}

#[test]
fn days_across_a_dst_change() {
    // Europe/Paris leaves summer time on 2026-10-25 (03:00 CEST → 02:00 CET): that day lasts
    // 25 hours, from 2026-10-24T22:00Z to 2026-10-25T23:00Z.
    //   2026-10-24T22:30Z = 00:30 CEST on the 25th   (100 tokens)
    //   2026-10-25T22:30Z = 23:30 CET on the 25th    (200)
    //   2026-10-25T23:30Z = 00:30 CET on the 26th    (400)
    let dir = tempfile::tempdir().unwrap();
    let f = claude_file(
        dir.path(),
        "claude-sonnet-4-5-20250929",
        &[
            ("2026-10-24T22:30:00Z", 100),
            ("2026-10-25T22:30:00Z", 200),
            ("2026-10-25T23:30:00Z", 400),
        ],
    );
    let paris = usage_of(&f, &["daily", "--timezone", "Europe/Paris"]);
    assert_eq!(
        totals_by(&paris, "period"),
        BTreeMap::from([("2026-10-25".into(), 300), ("2026-10-26".into(), 400)])
    );
    assert_eq!(paris["rows"][0]["start"], "2026-10-24T22:00:00.000Z");
    assert_eq!(paris["rows"][0]["end"], "2026-10-25T23:00:00.000Z");
    let utc = usage_of(&f, &["daily", "--timezone", "UTC"]);
    assert_eq!(
        totals_by(&utc, "period"),
        BTreeMap::from([("2026-10-24".into(), 100), ("2026-10-25".into(), 600)])
    );
    // A plain date in --since/--until is a day of --timezone: the Paris 25th only.
    let window = usage_of(
        &f,
        &[
            "daily",
            "-z",
            "Europe/Paris",
            "--since",
            "2026-10-25",
            "--until",
            "2026-10-25",
        ],
    );
    assert_eq!(total(&window), 300);
    assert_eq!(window["since"], "2026-10-24T22:00:00.000Z");
    assert_eq!(window["until"], "2026-10-25T22:59:59.999Z");
    // New York leaves summer time a week later: all three on different days there
    // (18:30 EDT on the 24th, 18:30 EDT on the 25th, 19:30 EDT on the 25th).
    let ny = usage_of(&f, &["daily", "-z", "America/New_York"]);
    assert_eq!(
        totals_by(&ny, "period"),
        BTreeMap::from([("2026-10-24".into(), 100), ("2026-10-25".into(), 600)])
    );
    // Costs: claude-sonnet-4-5 input $3/M → 700 tokens = $0.0021.
    assert!(close(paris["totals"]["cost_usd"].as_f64().unwrap(), 0.0021));
}

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
        ("claude", "2026-03-14T09:00", 57_249),  // A 09:00:05–10:01:20
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

#[test]
fn model_names_reach_no_terminal_raw() {
    let now = chrono::Utc::now();
    let at = (now - chrono::Duration::minutes(5)).to_rfc3339();
    let dir = tempfile::tempdir().unwrap();
    let f = claude_file(
        dir.path(),
        "evil\u{1b}]0;TITLE\u{7}\u{1b}[2J",
        &[(&at, 1_000)],
    );
    for args in [
        &["usage"][..],
        &["usage", "blocks", "--active"],
        &["usage", "--breakdown"],
    ] {
        let out = common::sessions().args(args).arg(&f).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(text.contains("evil"), "{args:?} {stream}: {text}");
            assert!(
                !bytes.iter().any(|&b| b == 0x1b || b == 0x07),
                "{args:?} {stream}: {text:?}"
            );
        }
    }
}

#[test]
fn sessions_count_a_replayed_response_once() {
    let doc = usage(&["session", "--agent", "claude"]);
    let by_id = totals_by(&doc, "session_id");
    // agent-7c1e9a2b replays C's msg_C1 (9 + 7,000 + 1,100 + 55 = 8,164): it is C's.
    assert_eq!(by_id["agent-7c1e9a2b"], 16_530 - 8_164);
    assert_eq!(by_id["9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a520"], 24_985);
    assert_eq!(total(&doc), 173_195);
}

#[test]
fn no_filter_makes_a_replayed_response_count_for_a_sub_agent() {
    // agent-7c1e9a2b replays C's msg_C1: without the main sessions in the selection it is
    // still C's, not the sub-agent's.
    let all = total(&usage(&["--agent", "claude", "--kind", "all"]));
    let main = total(&usage(&["--agent", "claude", "--kind", "main"]));
    let sub = usage(&["session", "--agent", "claude", "--kind", "subagent"]);
    assert_eq!(main + total(&sub), all);
    assert_eq!(
        totals_by(&sub, "session_id")["agent-7c1e9a2b"],
        16_530 - 8_164
    );
}

/// A Claude record of an assistant response, `output` tokens so far.
/// `list --format json` over the home `home`.
fn list_json(home: &Path) -> Value {
    json_of(
        common::sessions(),
        &["--home", home.to_str().unwrap(), "list", "--format", "json"],
    )
}

fn response(sid: &str, at: &str, id: &str, output: u64) -> String {
    json!({"type": "assistant", "sessionId": sid, "uuid": format!("{sid}-{id}-{output}"),
        "parentUuid": null, "timestamp": at, "cwd": "/home/dev/copies", "version": "2.1.90",
        "requestId": format!("req_{id}"), "message": {"id": format!("msg_{id}"),
        "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text",
        "text": "ok"}], "usage": {"input_tokens": 10, "output_tokens": output}}})
    .to_string()
}

#[test]
fn a_model_under_two_names_shows_once_and_its_sub_rows_apart() {
    let dir = tempfile::tempdir().unwrap();
    for (sid, model) in [
        ("s1", "claude-sonnet-4-5"),
        ("s2", "claude-sonnet-4-5-20250929"),
    ] {
        let line =
            response(sid, "2026-03-10T10:00:05Z", sid, 5).replace("claude-sonnet-4-5", model);
        std::fs::write(dir.path().join(format!("{sid}.jsonl")), line + "\n").unwrap();
    }
    let out = common::sessions()
        .env("COLUMNS", "200")
        .args(["usage", "--breakdown"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text.lines().find(|l| l.starts_with("2026-03-10")).unwrap();
    assert_eq!(row.matches("sonnet-4-5").count(), 1, "{text}");
    assert!(text.contains("└ claude-sonnet-4-5 "), "{text}");
    assert!(text.contains("└ claude-sonnet-4-5-20250929"), "{text}");
}

#[test]
fn a_response_in_several_files_counts_once_at_its_largest_for_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(".claude/projects/-home-dev-copies");
    std::fs::create_dir_all(&store).unwrap();
    let write = |name: &str, lines: &[String]| {
        std::fs::write(store.join(name), lines.join("\n") + "\n").unwrap();
    };
    let (a, b) = (
        "bbbbbbbb-0000-4000-8000-000000000001",
        "aaaaaaaa-0000-4000-8000-000000000002",
    );
    // Session A's response streamed to 500 output tokens; the backup copy (sorting first)
    // was taken at 5.
    write(
        &format!("{a}.jsonl"),
        &[response(a, "2026-03-10T10:00:05Z", "A1", 500)],
    );
    write(
        &format!("0-backup-{a}.jsonl"),
        &[response(a, "2026-03-10T10:00:05Z", "A1", 5)],
    );
    // A copy through a proxy that dropped the `requestId`: the response its message id names.
    let mut bare: Value =
        serde_json::from_str(&response(a, "2026-03-10T10:00:05Z", "A1", 200)).unwrap();
    bare.as_object_mut().unwrap().remove("requestId");
    write(&format!("1-proxy-{a}.jsonl"), &[bare.to_string()]);
    // Session B resumed A two days later (its path sorts before A's): it repeats A's record.
    write(
        &format!("{b}.jsonl"),
        &[
            response(b, "2026-03-10T10:00:05Z", "A1", 500),
            response(b, "2026-03-12T10:00:05Z", "B1", 7),
        ],
    );
    let doc = json_of(
        common::sessions(),
        &[
            "--home",
            dir.path().to_str().unwrap(),
            "usage",
            "session",
            "--format",
            "json",
        ],
    );
    assert_eq!(doc["totals"]["tokens"]["output"], 507, "{doc:#}");
    let by_id = totals_by(&doc, "session_id");
    assert_eq!(by_id[b], 17, "B made only B1: {by_id:?}");
    assert_eq!(by_id[a], 510, "A1 counts at its largest: {by_id:?}");
}

/// A Claude session written into several files (a backup, a resume's copy) is one session in
/// every report: one `list` row and one project member, the copies reported with `-v`. Its
/// responses count at the largest snapshot any copy holds, whichever file is kept, while its
/// row gives its own file's figures, as `show` does.
#[test]
fn copies_of_a_claude_session_are_one_session_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(".claude/projects/-home-dev-copies");
    std::fs::create_dir_all(&store).unwrap();
    let sid = "cccccccc-0000-4000-8000-000000000003";
    let write = |name: &str, lines: &[String]| {
        std::fs::write(store.join(name), lines.join("\n") + "\n").unwrap();
    };
    // The file kept holds more (C2), but took C1 while it streamed (5 output tokens); a
    // checkpoint holds C1 finished (500).
    write(
        &format!("{sid}.jsonl"),
        &[
            response(sid, "2026-03-10T10:00:05Z", "C1", 5),
            response(sid, "2026-03-10T10:01:05Z", "C2", 7),
        ],
    );
    write(
        &format!("checkpoint-{sid}.jsonl"),
        &[response(sid, "2026-03-10T10:00:05Z", "C1", 500)],
    );
    let home = dir.path().to_str().unwrap();
    let out = common::sessions()
        .args(["-v", "--home", home, "list", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0]["path"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/{sid}.jsonl"))
    );
    let shown = json_of(
        common::sessions(),
        &["--home", home, "show", sid, "--format", "json"],
    );
    assert_eq!(rows[0]["tokens"]["output"], 12, "{rows:?}");
    assert_eq!(rows[0]["tokens"], shown["tokens"]);
    assert_eq!(rows[0]["cost_usd"], shown["cost_usd"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.lines().any(|l| l.contains(&format!(
            "checkpoint-{sid}.jsonl: copy of Claude session {sid}: its 1 response is among the 2"
        ))),
        "{err}"
    );
    let projects = json_of(
        common::sessions(),
        &["--home", home, "projects", "--format", "json"],
    );
    assert_eq!(projects[0]["sessions"], 1, "{projects:#}");
    assert_eq!(projects[0]["tokens"]["output"], 507, "{projects:#}");
    let doc = json_of(
        common::sessions(),
        &["--home", home, "usage", "session", "--format", "json"],
    );
    assert_eq!(doc["totals"]["tokens"]["output"], 507, "{doc:#}");
}

/// What the copy rule does not take for a copy: a file with no response of its own (prompts
/// the agent never answered, a reply that was a synthetic error) holds nothing another file is
/// known to hold; a file whose responses a proxy stripped of their `requestId` is a copy.
#[test]
fn the_copy_rule_needs_responses_and_reads_them_without_request_ids() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join(".claude/projects");
    let sid = "dddddddd-0000-4000-8000-000000000004";
    let write = |folder: &str, name: &str, lines: &[String]| {
        let d = projects.join(folder);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(name), lines.join("\n") + "\n").unwrap();
    };
    let original = [
        response(sid, "2026-03-10T10:00:05Z", "D1", 5),
        response(sid, "2026-03-10T10:01:05Z", "D2", 7),
    ];
    write("-home-dev-copies", &format!("{sid}.jsonl"), &original);
    let bare: Vec<String> = original
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("requestId");
            v.to_string()
        })
        .collect();
    write("-home-dev-copies", &format!("proxy-{sid}.jsonl"), &bare);
    let prompt = json!({"type": "user", "sessionId": sid, "uuid": "p-1", "parentUuid": null,
        "timestamp": "2026-03-11T09:00:00Z", "cwd": "/home/dev/other",
        "message": {"role": "user", "content": "carry on elsewhere"}})
    .to_string();
    write("-home-dev-other", &format!("{sid}.jsonl"), &[prompt]);
    let rows = list_json(dir.path());
    let paths: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert!(
        paths
            .iter()
            .any(|p| p.ends_with(&format!("-home-dev-copies/{sid}.jsonl")))
    );
    assert!(
        paths
            .iter()
            .any(|p| p.ends_with(&format!("-home-dev-other/{sid}.jsonl")))
    );
}

/// The de-duplicated total of a selection, as `projects` reports it.
fn projects_total(args: &[&str]) -> u64 {
    let mut all = vec!["projects", "--format", "json"];
    all.extend_from_slice(args);
    json_of(sessions(), &all)
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"]["total"].as_u64().unwrap())
        .sum()
}

#[test]
fn every_report_adds_up_to_the_list_totals() {
    let selections: [&[&str]; 4] = [
        &[],
        &["--agent", "claude"],
        &["--project", "webapp"],
        &["--agent", "codex,gemini", "--project", "/home/*/api-*"],
    ];
    let list_total: u64 = json_of(sessions(), &["list", "--kind", "all", "--format", "json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tokens"]["total"].as_u64().unwrap())
        .sum();
    // Per file, the replayed response is in two files.
    assert_eq!(list_total - 8_164, HOME_TOTAL);
    for sel in selections {
        let want = projects_total(sel);
        for report in ["daily", "weekly", "monthly", "session", "project", "blocks"] {
            let mut args = vec![report];
            args.extend_from_slice(sel);
            let doc = usage(&args);
            assert_eq!(total(&doc), want, "{args:?}");
            let rows: u64 = doc["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["tokens"]["total"].as_u64().unwrap())
                .sum();
            assert_eq!(rows, want, "{args:?} rows");
        }
    }
    assert_eq!(projects_total(&[]), HOME_TOTAL);
}

#[test]
fn unknown_models_keep_their_tokens_and_have_no_cost() {
    let dir = tempfile::tempdir().unwrap();
    let f = claude_file(
        dir.path(),
        "claude-imaginary-9",
        &[
            ("2026-05-01T10:00:00Z", 1_000),
            ("2026-05-01T10:05:00Z", 500),
        ],
    );
    let out = common::sessions()
        .args(["usage", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(total(&doc), 1_500);
    assert_eq!(doc["totals"]["cost_usd"], Value::Null);
    assert_eq!(
        doc["totals"]["unpriced_models"],
        json!(["claude-imaginary-9"])
    );
    assert_eq!(doc["rows"][0]["breakdown"][0]["cost_usd"], Value::Null);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.matches("claude-imaginary-9").count(),
        1,
        "one warning naming the model: {err}"
    );
    assert!(err.contains("no price for model"), "{err}");
    // list and show say the same.
    let list = json_of(
        common::sessions(),
        &["list", "--format", "json", f.to_str().unwrap()],
    );
    assert_eq!(list[0]["cost_usd"], Value::Null);
    assert_eq!(list[0]["tokens"]["total"], 1_500);

    // --prices adds it; the embedded table still prices the rest.
    let prices = dir.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"claude-imaginary-9": {"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05}}"#,
    )
    .unwrap();
    let priced = json_of(
        common::sessions(),
        &[
            "--prices",
            prices.to_str().unwrap(),
            "usage",
            "--format",
            "json",
            f.to_str().unwrap(),
        ],
    );
    // 1,500 input tokens × $2/M.
    assert!(close(priced["totals"]["cost_usd"].as_f64().unwrap(), 0.003));
    assert_eq!(priced["prices"]["file"], prices.to_str().unwrap());
    let mixed = json_of(
        sessions(),
        &[
            "--prices",
            prices.to_str().unwrap(),
            "usage",
            "--format",
            "json",
        ],
    );
    assert!(close(
        mixed["totals"]["cost_usd"].as_f64().unwrap(),
        0.466_053
    ));
    // A broken price file is a usage error.
    std::fs::write(&prices, "{not json").unwrap();
    let out = sessions()
        .args(["--prices", prices.to_str().unwrap(), "usage"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--prices"));
}

#[test]
fn ndjson_and_csv_carry_the_same_rows() {
    let doc = usage(&["monthly"]);
    let out = sessions()
        .args(["usage", "monthly", "--format", "ndjson"])
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(&lines[..rows.len()], &rows[..]);
    assert_eq!(lines.last().unwrap(), &doc["totals"]);
    assert_eq!(lines.last().unwrap()["type"], "totals");
    let out = sessions()
        .args(["usage", "monthly", "--format", "csv", "--breakdown"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "schema_version");
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let kinds: Vec<&str> = records.iter().map(|r| r.get(2).unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "row").count(), rows.len());
    assert_eq!(kinds.last(), Some(&"totals"));
    assert!(kinds.contains(&"model"));
    let total_col = headers.iter().position(|h| h == "tokens_total").unwrap();
    assert_eq!(
        records.last().unwrap().get(total_col),
        Some(HOME_TOTAL.to_string().as_str())
    );
}

#[test]
fn tables_fit_80_columns_and_use_the_width_they_have() {
    for report in ["daily", "weekly", "monthly", "session", "project", "blocks"] {
        for extra in [&[][..], &["--breakdown"][..]] {
            let out = sessions()
                .env("COLUMNS", "80")
                .arg("usage")
                .arg(report)
                .args(extra)
                .output()
                .unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(text.contains("TOTAL"), "{report}: {text}");
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 80,
                    "{report} {extra:?}: {} columns: {line}",
                    line.chars().count()
                );
            }
            assert!(
                text.contains("COST") && text.contains('$'),
                "{report}: {text}"
            );
        }
    }
    // Piped with no width: every column, exact numbers.
    let out = sessions()
        .env_remove("COLUMNS")
        .arg("usage")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for h in [
        "AGENTS",
        "MODELS",
        "INPUT",
        "CACHE WRITE",
        "CACHE READ",
        "OUTPUT",
        "TOTAL",
    ] {
        assert!(text.contains(h), "{h}: {text}");
    }
    assert!(text.contains("605,504"), "{text}");
}

/// Projects are named one way everywhere: the project report's rows are the labels `projects`
/// prints (a full path, `unresolved <hash>`), cut from the start when the table must cut, and
/// the footer counts in words.
#[test]
fn project_rows_are_named_as_projects_names_them() {
    let run = |cmd: &[&str], columns: &str| {
        let out = sessions()
            .env("COLUMNS", columns)
            .env("HOME", "/nonexistent-home")
            .args(cmd)
            .output()
            .unwrap();
        assert!(out.status.success());
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let first_cells = |text: &str| -> Vec<String> {
        text.lines()
            .skip(1)
            .filter(|l| !l.is_empty() && !l.starts_with("TOTAL"))
            .map(|l| l.split("  ").next().unwrap().trim().to_string())
            .collect()
    };
    let (usage_wide, footer) = run(&["usage", "project"], "200");
    let (projects, _) = run(&["projects"], "200");
    let mut got = first_cells(&usage_wide);
    let mut want = first_cells(&projects);
    got.sort();
    want.sort();
    // The one project without a request (a Codex session with no token count) has no usage.
    want.retain(|p| p != "unknown");
    assert_eq!(got, want, "{usage_wide}{projects}");
    assert!(got.contains(&"/home/dev/webapp".to_string()), "{got:?}");
    assert!(got.iter().any(|p| p.starts_with("unresolved ")), "{got:?}");
    assert!(footer.starts_with("73 requests in 4 rows;"), "{footer}");
    // Cut to fit: the end of a path stays.
    let (narrow, _) = run(&["usage", "project"], "40");
    assert!(narrow.contains("…/ml-notebooks"), "{narrow}");
}

#[test]
fn order_and_version() {
    let asc = usage(&["daily"]);
    let desc = usage(&["daily", "--order", "desc"]);
    let first = |d: &Value| d["rows"][0]["period"].clone();
    assert_eq!(first(&asc), "2026-03-04");
    assert_eq!(first(&desc), "2026-08-30");
    let out = common::sessions().arg("--version").output().unwrap();
    let v = String::from_utf8(out.stdout).unwrap();
    assert!(v.contains("prices: LiteLLM "), "{v}");
    let out = common::sessions()
        .args(["usage", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("LiteLLM "));
    let out = common::sessions()
        .args(["usage", "/no/such/thing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = sessions()
        .args(["usage", "daily", "--active"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = sessions()
        .args(["usage", "--timezone", "Mars/Olympus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The public corpus (`$SESSIONS_CORPUS`, `../shared/corpus` in CI): every report over every
/// session adds up to the de-duplicated total `list` and `projects` use. Without the corpus the
/// test is reported as ignored (and `corpus_is_present_in_ci` fails when `CI=true`).
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_reports_add_up_to_the_list_totals() {
    use sessions::filter::{Filter, KindFilter};
    use sessions::pricing::Pricing;
    use sessions::scan::{ScanOptions, aggregate_usage, scan, unique_requests};
    use sessions::usage::{self, Options, ReportKind, WeekStart, Zone, blocks};

    let dir = Path::new(env!("SESSIONS_CORPUS_DIR")).to_path_buf();
    let result = scan(&ScanOptions {
        paths: vec![dir],
        filter: Filter {
            kind: KindFilter::All,
            ..Filter::default()
        },
        ..ScanOptions::default()
    });
    let sessions = &result.sessions;
    assert!(sessions.len() > 50, "{} sessions", sessions.len());
    let want = aggregate_usage(sessions);
    assert!(want.total() > 1_000_000, "{}", want.total());
    let unique = unique_requests(sessions);
    let pricing = Pricing::embedded();
    // `list`'s cost: the same requests, in the scan's order.
    let list_cost =
        sessions::pricing::cost_of(unique.iter().map(|(_, r)| (r.model.as_deref(), &r.usage)));
    for kind in [
        ReportKind::Daily,
        ReportKind::Weekly,
        ReportKind::Monthly,
        ReportKind::Session,
        ReportKind::Project,
        ReportKind::Blocks,
    ] {
        for zone in ["UTC", "Pacific/Kiritimati", "America/Los_Angeles"] {
            let opts = Options {
                kind,
                zone: Zone::parse(zone).unwrap(),
                week_start: WeekStart::Sunday,
                since: None,
                until: None,
            };
            let selected = usage::select(&unique, &opts);
            let got = if kind == ReportKind::Blocks {
                // Blocks need a time; requests with none are counted apart.
                let (list, undated) = blocks::blocks(&selected, &pricing);
                let mut t = usage::total(list.iter().map(|b| &b.tally));
                let mut timeless = 0;
                for (_, r, at) in &selected {
                    if at.is_none() {
                        t.usage.add(&r.usage);
                        t.cost.add(&pricing, r.model.as_deref(), &r.usage);
                        t.requests += 1;
                        timeless += 1;
                    }
                }
                assert_eq!(timeless, undated);
                t
            } else {
                let rows = usage::group(&selected, &opts, &pricing);
                usage::total(rows.iter().map(|g| &g.tally))
            };
            assert_eq!(got.usage, want, "{kind:?} in {zone}");
            assert_eq!(got.requests as usize, unique.len(), "{kind:?} in {zone}");
            // To the last bit: summed in another order (by row, then rows), a float total
            // would differ in its last digits, and a rounded one may then print another
            // millionth.
            assert_eq!(got.cost, list_cost, "{kind:?} in {zone}");
        }
    }
}

/// JSON text without the whitespace between tokens (strings kept as written).
fn compact(pretty: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
    for c in pretty.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !c.is_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// Each NDJSON line is the JSON document's record, byte for byte: the same keys in the same
/// (declared) order, `schema_version` first, nested objects included.
#[test]
fn ndjson_lines_are_the_json_records_in_their_order() {
    use serde_json::value::RawValue;
    for report in ["daily", "weekly", "monthly", "session", "project", "blocks"] {
        let text = |format: &str| {
            let out = sessions()
                .args(["usage", report, "--breakdown", "--format", format])
                .output()
                .unwrap();
            assert!(out.status.success());
            String::from_utf8(out.stdout).unwrap()
        };
        let doc = text("json");
        let doc: BTreeMap<&str, &RawValue> = serde_json::from_str(&doc).unwrap();
        let mut records: Vec<&RawValue> = serde_json::from_str(doc["rows"].get()).unwrap();
        records.push(doc["totals"]);
        let ndjson = text("ndjson");
        let lines: Vec<&str> = ndjson.lines().collect();
        assert_eq!(lines.len(), records.len(), "{report}");
        for (line, record) in lines.iter().zip(&records) {
            assert!(
                line.starts_with(r#"{"schema_version":1,"#),
                "{report}: {line}"
            );
            assert_eq!(*line, compact(record.get()), "{report}");
        }
    }
}

/// A `--prices` entry whose price is no price per token (here 1e308 $/token, whose cost is
/// not finite) is refused at load with a warning naming the model, which then counts as
/// unpriced in every output: JSON and table agree.
#[test]
fn an_absurd_price_is_refused_and_the_model_unpriced() {
    let dir = tempfile::tempdir().unwrap();
    let model = "my,model;x";
    let f = claude_file(dir.path(), model, &[("2026-03-14T09:00:00Z", 1_000)]);
    let prices = dir.path().join("prices.json");
    std::fs::write(
        &prices,
        format!(
            r#"{{"{model}": {{"input_cost_per_token": 1e308, "output_cost_per_token": 1e308}}}}"#
        ),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = common::sessions()
            .arg("--prices")
            .arg(&prices)
            .args(args)
            .arg(&f)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (list, err) = run(&["list", "--format", "json"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list[0]["cost_usd"], Value::Null);
    assert!(
        err.contains(&format!("\"{model}\": input_cost_per_token 1e308")),
        "{err}"
    );
    let (usage, _) = run(&["usage", "--format", "json"]);
    let usage: Value = serde_json::from_str(&usage).unwrap();
    assert_eq!(usage["totals"]["cost_usd"], Value::Null);
    assert_eq!(usage["totals"]["unpriced_models"], json!([model]));
    let (table, _) = run(&["list"]);
    assert!(!table.contains("$184"), "{table}");
    // --quiet silences the warning, not the refusal.
    let out = common::sessions()
        .args(["--quiet", "--prices"])
        .arg(&prices)
        .args(["list", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A row's cost is its file's, as its tokens are: a resumed session's copy of its parent's
/// last response, taken further than the parent's own file has it, raises what the totals
/// count for the parent, not the parent's row.
#[test]
fn a_rows_cost_and_tokens_are_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(".claude/projects/-home-dev-copies");
    std::fs::create_dir_all(&store).unwrap();
    let (parent, child) = (
        "abababab-0000-4000-8000-000000000007",
        "cdcdcdcd-0000-4000-8000-000000000008",
    );
    let write = |sid: &str, lines: &[String]| {
        std::fs::write(store.join(format!("{sid}.jsonl")), lines.join("\n") + "\n").unwrap();
    };
    write(parent, &[response(parent, "2026-03-10T10:00:05Z", "P1", 4)]);
    write(
        child,
        &[
            response(parent, "2026-03-10T10:00:05Z", "P1", 40_000),
            response(child, "2026-03-12T10:00:05Z", "R1", 7),
        ],
    );
    let home = dir.path().to_str().unwrap();
    let rows = json_of(
        common::sessions(),
        &["--home", home, "list", "--format", "json"],
    );
    for r in rows.as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        let shown = json_of(
            common::sessions(),
            &["--home", home, "show", id, "--format", "json"],
        );
        assert_eq!(r["tokens"], shown["tokens"], "{id}");
        assert_eq!(r["cost_usd"], shown["cost_usd"], "{id}");
    }
    let doc = json_of(
        common::sessions(),
        &["--home", home, "usage", "session", "--format", "json"],
    );
    assert_eq!(totals_by(&doc, "session_id")[parent], 10 + 40_000);
}

/// A renamed copy of a resumed session takes its id from its first records, its parent's: it
/// holds every response of the parent's own file and more, but the file named after the
/// session is never dropped for a file that is not, so the parent's transcript stays listed.
#[test]
fn a_file_named_after_its_session_is_never_dropped_for_a_renamed_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(".claude/projects/-home-dev-copies");
    std::fs::create_dir_all(&store).unwrap();
    let (parent, child) = (
        "efefefef-0000-4000-8000-000000000009",
        "fefefefe-0000-4000-8000-000000000010",
    );
    let own = [
        response(parent, "2026-03-10T10:00:05Z", "P1", 5),
        response(parent, "2026-03-10T10:01:05Z", "P2", 7),
    ];
    std::fs::write(store.join(format!("{parent}.jsonl")), own.join("\n") + "\n").unwrap();
    let mut resumed = own.to_vec();
    resumed.push(response(child, "2026-03-12T10:00:05Z", "R1", 11));
    std::fs::write(
        store.join(format!("{child}.backup.jsonl")),
        resumed.join("\n") + "\n",
    )
    .unwrap();
    let rows = list_json(dir.path());
    let own_row = rows.as_array().unwrap().iter().find(|r| {
        r["path"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/{parent}.jsonl"))
    });
    assert!(own_row.is_some(), "{rows:#}");
    assert_eq!(own_row.unwrap()["tokens"]["output"], 12);
}
