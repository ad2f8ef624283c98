//! Every time in every machine-readable output has the one form docs/json.md promises
//! ("RFC 3339 strings in UTC with milliseconds"): a script parses them all with one pattern.
//! The walk covers each `--format json|ndjson` output of the sample home and the files
//! `export` writes; any string value that starts like a date and a time must be in that form.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home")
}

fn sessions() -> Command {
    let mut c = Command::cargo_bin("sessions").unwrap();
    c.env("TZ", "Europe/Paris")
        .env("COLUMNS", "200")
        .arg("--home")
        .arg(home());
    c
}

fn stdout_of(args: &[&str]) -> String {
    let out = sessions().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The documents of one output: the whole of a JSON one, each line of an NDJSON one.
fn documents(text: &str, ndjson: bool) -> Vec<Value> {
    if ndjson {
        text.lines()
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    } else {
        vec![serde_json::from_str(text).unwrap()]
    }
}

/// `YYYY-MM-DD` then `T` or a space and `hh:mm`: what a reader would take for a time.
fn looks_like_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(b.get(10), Some(b'T' | b' '))
        && digits(11..13)
        && b.get(13) == Some(&b':')
}

/// `2026-03-14T09:00:00.000Z` exactly.
fn contract_form(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && looks_like_time(s)
        && b[10] == b'T'
        && b[16] == b':'
        && b[19] == b'.'
        && b[23] == b'Z'
        && [14, 15, 17, 18, 20, 21, 22]
            .iter()
            .all(|&i| b[i].is_ascii_digit())
        && chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

/// Every time-looking string under `v` with its JSON path (message and tool text aside: what
/// the session recorded is data, not a time of the contract).
fn times(v: &Value, path: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) if looks_like_time(s) => out.push((path.to_string(), s.clone())),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                times(x, &format!("{path}[{i}]"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                if !matches!(
                    k.as_str(),
                    "parts" | "extra" | "summary" | "title" | "display" | "notes"
                ) {
                    times(x, &format!("{path}.{k}"), out);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn every_time_in_every_json_output_has_milliseconds_and_z() {
    let mut outputs: Vec<(String, Vec<Value>)> = Vec::new();
    let mut run = |args: &[&str]| {
        let ndjson = args.contains(&"ndjson");
        let text = stdout_of(args);
        outputs.push((args.join(" "), documents(&text, ndjson)));
    };
    for format in ["json", "ndjson"] {
        run(&["list", "--kind", "all", "--format", format]);
        run(&["projects", "--format", format]);
        run(&["compactions", "--kind", "all", "--format", format]);
        for report in ["daily", "weekly", "monthly", "session", "project", "blocks"] {
            run(&["usage", report, "--format", format]);
        }
        for alg in ["claude", "codex", "gemini"] {
            run(&[
                "replay-compress",
                "--all",
                "-A",
                alg,
                "--validate",
                "--timeline",
                "--format",
                format,
            ]);
        }
    }
    run(&["compactions", "--stats", "--format", "json"]);
    run(&[
        "replay-compress",
        "--all",
        "-A",
        "claude",
        "--sweep",
        "autocompact_pct=50,90",
        "--format",
        "json",
    ]);
    // `show` is `export --format json` (docs/json.md): both, one session of each agent through
    // `show`, every session through `export` with its index.
    let list = documents(
        &stdout_of(&["list", "--kind", "all", "--format", "json"]),
        false,
    );
    let mut agents_shown = std::collections::BTreeSet::new();
    for s in list[0].as_array().unwrap() {
        if agents_shown.insert(s["agent"].as_str().unwrap().to_string()) {
            let path = s["path"].as_str().unwrap();
            run(&["show", path, "--format", "json"]);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for format in ["json", "jsonl"] {
        let out = dir.path().join(format);
        let o = out.to_str().unwrap();
        stdout_of(&[
            "export", "--all", "--kind", "all", "--format", format, "-o", o,
        ]);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(files.len() > 10, "{files:?}");
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let ndjson = f.extension().is_some_and(|e| e == "jsonl");
            outputs.push((f.display().to_string(), documents(&text, ndjson)));
        }
    }

    let mut seen = 0;
    let mut wrong = Vec::new();
    for (what, docs) in &outputs {
        for d in docs {
            let mut found = Vec::new();
            times(d, "", &mut found);
            seen += found.len();
            wrong.extend(
                found
                    .into_iter()
                    .filter(|(_, t)| !contract_form(t))
                    .map(|(p, t)| format!("{what}: {p} = {t}")),
            );
        }
    }
    wrong.sort();
    assert!(
        wrong.is_empty(),
        "{} times not in the form 2026-03-14T09:00:00.000Z, e.g.:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
    // The walk found the times it is about (started_at, timestamps, usage periods, …).
    assert!(seen > 200, "only {seen} times seen");
}
