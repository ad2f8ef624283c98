//! Settings: sweeps, errors that name the key and its range, and the settings lists.

use super::*;

#[test]
fn sweep_gives_one_record_per_setting_and_a_table_row_each() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_claude_session(dir.path(), 20);
    let rows = json_out(
        sessions()
            .args([
                "replay-compress",
                "-A",
                "claude",
                "--sweep",
                "autocompact_pct=50,100",
                "--context-window",
                "200000",
                "--format",
                "json",
            ])
            .arg(&path),
    );
    let pcts: Vec<f64> = rows
        .iter()
        .map(|r| r["settings"]["autocompact_pct"].as_f64().unwrap())
        .collect();
    assert_eq!(pcts, [50.0, 100.0]);
    // 50% of the 180,000 effective window = 90,000: reached before request 8 (5,000 + 90,007).
    assert_eq!(rows[0]["events"][0]["request"], 8);
    assert_eq!(rows[1]["events"][0]["request"], 16);
    sessions()
        .args([
            "replay-compress",
            "-A",
            "claude",
            "--sweep",
            "autocompact_pct=50,100",
        ])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("autocompact_pct=50"))
        .stdout(predicate::str::contains("autocompact_pct=100"));
}

#[test]
fn settings_errors_name_the_key_and_range() {
    sessions()
        .arg("--home")
        .arg(home())
        .args([
            "replay-compress",
            "--all",
            "-A",
            "claude",
            "--set",
            "autocompact_pct=500",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("autocompact_pct"))
        .stderr(predicate::str::contains("from 1 to 100"));
    sessions()
        .arg("--home")
        .arg(home())
        .args(["replay-compress", "--all", "-A", "codex", "--set", "nope=1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("auto_compact_token_limit"));
    sessions()
        .args(["replay-compress", "-A", "codex"])
        .assert()
        .code(2);
    sessions()
        .arg("--home")
        .arg(home())
        .args(["replay-compress", "--all", "-A", "claude"])
        .args([
            "--sweep",
            "autocompact_pct=50,60",
            "--sweep",
            "autocompact_pct=70",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--sweep autocompact_pct is given twice",
        ));
    // Mistakes that used to pass unseen: a dropped empty value, a repeated row, a `--set`
    // overridden by the sweep of the same key.
    for (args, says) in [
        (&["--sweep", "autocompact_pct=50,,60"][..], "an empty value"),
        (
            &["--sweep", "autocompact_pct=50,60,50.0"],
            "50.0 repeats a value given before it",
        ),
        (
            &[
                "--set",
                "autocompact_pct=50",
                "--sweep",
                "autocompact_pct=60,70",
            ],
            "given with both --set and --sweep",
        ),
    ] {
        sessions()
            .arg("--home")
            .arg(home())
            .args(["replay-compress", "--all", "-A", "claude"])
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    // A text setting's values hold commas: they are separated by `;`. Its empty value is a
    // value: every tool allowed, the default, against a restriction.
    let allowed = |sweep: &str| -> Vec<String> {
        let rows = super::common::json_of(
            sessions()
                .arg("--home")
                .arg(home())
                .args(["replay-compress", "--all", "-A", "openclaw-prune"])
                .args(["--sweep", sweep, "--format", "json"]),
        );
        let mut allowed: Vec<String> = rows
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["settings"]["tools_allow"].as_str().map(String::from))
            .collect();
        allowed.sort();
        allowed.dedup();
        allowed
    };
    assert_eq!(
        allowed("tools_allow=Read*,Bash;Grep"),
        ["Grep", "Read*,Bash"]
    );
    assert_eq!(allowed("tools_allow=;Read*"), ["", "Read*"]);
    // One replay's views: a sweep's mixed or dropped them.
    for view in [&["--validate"][..], &["--timeline"], &["--plot", "x.svg"]] {
        sessions()
            .arg("--home")
            .arg(home())
            .args(["replay-compress", "--all", "-A", "claude"])
            .args(["--sweep", "autocompact_pct=50,100"])
            .args(view)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("cannot be used with"));
    }
}

#[test]
fn settings_lists_fit_the_terminal_and_cut_no_meaning() {
    for alg in ["gemini", "claude", "codex", "pi", "openclaw-prune"] {
        for width in [200usize, 80, 60] {
            let out = sessions()
                .env("COLUMNS", width.to_string())
                .args(["replay-compress", "-A", alg, "--list-settings"])
                .output()
                .unwrap();
            assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            for line in text.lines() {
                assert!(line.chars().count() <= width, "{alg} at {width}: {line}");
            }
            assert!(
                !text.contains('…'),
                "{alg} at {width}: a meaning was cut\n{text}"
            );
            if alg == "gemini" {
                let words: Vec<&str> = text.split_whitespace().collect();
                assert!(
                    words
                        .join(" ")
                        .contains("the default of the Gemini CLI era the file shows"),
                    "{width}: {text}"
                );
            }
        }
    }
}

#[test]
fn settings_lists_are_json_records_and_refuse_what_they_ignore() {
    for (alg, key, default) in [
        ("pi", "reserve_tokens", 16384),
        ("codex", "user_message_budget", 20000),
    ] {
        let records = json_out(sessions().args([
            "replay-compress",
            "-A",
            alg,
            "--list-settings",
            "--format",
            "json",
        ]));
        assert!(!records.is_empty());
        for r in &records {
            assert_eq!(r["schema_version"], 1);
            assert_eq!(r["kind"], "replay_setting");
            assert_eq!(r["algorithm"], alg);
            assert!(
                r["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{r}"
            );
            assert!(r["allowed"].is_string(), "{r}");
        }
        let r = records.iter().find(|r| r["key"] == key).unwrap();
        assert_eq!(
            (&r["type"], &r["default"]),
            (&"integer".into(), &default.into())
        );
        // NDJSON: the same records, one a line.
        let out = sessions()
            .args([
                "replay-compress",
                "-A",
                alg,
                "--list-settings",
                "--format",
                "ndjson",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap().lines().count(),
            records.len()
        );
    }
    let session = home().join(
        ".codex/sessions/2026/04/02/rollout-2026-04-02T14-30-00-019d4e99-de40-7b52-9d63-6e2f3a4b5c02.jsonl",
    );
    for extra in [
        vec!["--all"],
        vec![session.to_str().unwrap()],
        vec!["--sweep", "nope=1"],
        vec!["--set", "reserve_tokens=1"],
        vec!["--validate"],
    ] {
        sessions()
            .args([
                "replay-compress",
                "-A",
                "pi",
                "--list-settings",
                "--format",
                "json",
            ])
            .args(&extra)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains("--list-settings"));
    }
}
