//! Days, weeks and months: the sample home's hand-computed days, time zones and a DST change.

use super::*;

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
fn weeks_and_months() {
    // Days of the week: 03-14 Sat, 07-20 Mon, 07-22 Wed, 08-30 Sun.
    let monday = totals_by(&usage(&["weekly"]), "period");
    assert_eq!(monday["2026-03-09"], 105_894);
    assert_eq!(monday["2026-07-20"], 34_012 + 52_970);
    assert_eq!(monday["2026-08-24"], 1_545);
    let sunday = totals_by(&usage(&["weekly", "--start-of-week", "sunday"]), "period");
    assert_eq!(sunday["2026-03-08"], 105_894);
    assert_eq!(sunday["2026-07-19"], 34_012 + 52_970);
    assert_eq!(sunday["2026-08-30"], 1_545);
    assert_eq!(sunday.values().sum::<u64>(), HOME_TOTAL);
    let months = totals_by(&usage(&["monthly"]), "period");
    assert_eq!(
        months,
        BTreeMap::from([
            ("2026-03".into(), 28_487 + 105_894 + 1_780),
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
