//! Output formats: JSON, NDJSON and CSV rows alike, tables within the width, project names,
//! order, version and usage errors, and no raw control character from session data.

use super::*;

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
    assert!(text.contains("610,554"), "{text}");
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
    assert!(footer.starts_with("74 requests in 4 rows;"), "{footer}");
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
