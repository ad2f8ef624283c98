//! JSON and JSONL: the schema version, and several sessions streamed to stdout.

use super::*;

#[test]
fn json_and_jsonl_carry_schema_version() {
    let json: Value =
        serde_json::from_str(&ok(sample().args(["export", "-f", "json", "019d4e99"])).0).unwrap();
    let show: Value =
        serde_json::from_str(&ok(sample().args(["show", "-f", "json", "019d4e99"])).0).unwrap();
    assert_eq!(json, show, "export json is the show document");
    assert_eq!(json["schema_version"], 1);
    let jsonl = ok(sample().args(["export", "-f", "jsonl", "019d4e99"])).0;
    let recs: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), json["messages"].as_array().unwrap().len());
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r["schema_version"], 1);
        assert_eq!(r["session_id"], "019d4e99-de40-7b52-9d63-6e2f3a4b5c02");
        assert_eq!(r["agent"], "codex");
        assert_eq!(r["index"], i);
        assert_eq!(r["role"], json["messages"][i]["role"]);
    }
    let marks: Vec<&Value> = recs.iter().filter_map(|r| r.get("compaction")).collect();
    assert_eq!(marks.len(), 2);
    assert_eq!(marks[0]["tokens_before"], 12500);
    // Several sessions stream as JSONL without -o.
    let all = ok(sample().args(["export", "--all", "--agent", "codex", "-f", "jsonl"])).0;
    let ids: std::collections::HashSet<String> = all
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["session_id"].to_string())
        .collect();
    assert_eq!(ids.len(), 8, "main codex sessions");
}

/// Several sessions on stdout are rendered side by side (`export::stream`), but they come out
/// newest first, as `list` orders them, each exactly as its own export writes it.
#[test]
fn sessions_stream_to_stdout_in_order_each_as_exported_alone() {
    let list: Value =
        serde_json::from_str(&ok(sample().args(["list", "--format", "json"])).0).unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(ids.len() > 20, "{ids:?}");
    let mut alone = String::new();
    for id in &ids {
        alone.push_str(&ok(sample().args(["export", "-f", "jsonl", id])).0);
    }
    let all = ok(sample().args(["export", "--all", "-f", "jsonl"])).0;
    assert_eq!(all.lines().count(), alone.lines().count());
    assert!(
        all == alone,
        "the stream differs from the sessions exported one by one"
    );
}

/// `--no-tools` and `--no-thinking` drop parts from what is exported, not from the session:
/// the counts (distinct tool call ids, failed calls) stay those of the session read, in the
/// document and in every index.
#[test]
fn trimming_keeps_the_counts() {
    let counts = |extra: &[&str]| -> Value {
        let doc: Value = serde_json::from_str(
            &ok(sample()
                .args(["export", "-f", "json", "6f0d3c52"])
                .args(extra))
            .0,
        )
        .unwrap();
        doc["counts"].clone()
    };
    let full = counts(&[]);
    assert_eq!(full["tool_calls"], 4, "{full}");
    assert_eq!(full["tool_errors"], 1, "{full}");
    assert_eq!(counts(&["--no-tools"]), full);
    assert_eq!(counts(&["--no-tools", "--no-thinking"]), full);

    let index = |format: &str, extra: &[&str]| -> String {
        let dir = tempfile::tempdir().unwrap();
        ok(sample()
            .args(["export", "--all", "--agent", "claude", "-f", format, "-o"])
            .arg(dir.path())
            .args(extra));
        let name = match format {
            "md" => "index.md",
            "html" => "index.html",
            _ => "index.json",
        };
        fs::read_to_string(dir.path().join(name)).unwrap()
    };
    let entries: Value = serde_json::from_str(&index("json", &[])).unwrap();
    let trimmed: Value = serde_json::from_str(&index("json", &["--no-tools"])).unwrap();
    let calls = |v: &Value| -> Vec<(String, Value)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| (e["id"].to_string(), e["counts"].clone()))
            .collect()
    };
    assert!(
        calls(&entries)
            .iter()
            .any(|(_, c)| c["tool_calls"].as_u64() > Some(0))
    );
    assert_eq!(calls(&trimmed), calls(&entries));
    // The same counts, and a line saying the transcripts behind them lack the tool parts.
    let note = "Tool calls and results are left out of the transcripts; the counts are the sessions&#39; own.";
    for format in ["md", "html"] {
        let (full, trimmed) = (index(format, &[]), index(format, &["--no-tools"]));
        let note = match format {
            "md" => note.replace("&#39;", "'"),
            _ => note.to_string(),
        };
        assert!(!full.contains("left out"), "{format}: {full}");
        assert!(trimmed.contains(&note), "{format}: {trimmed}");
        assert_eq!(
            trimmed.replacen(&format!(" {note}"), "", 1),
            full,
            "{format}"
        );
    }
    let md = ok(sample().args(["export", "--no-tools", "6f0d3c52"])).0;
    assert!(
        md.contains("· 4 tool calls (1 failed), not in this transcript ·"),
        "{md}"
    );
}
