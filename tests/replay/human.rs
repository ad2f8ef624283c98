//! The human output: the table, its legend and verdict, notes naming their sessions, and no
//! raw control character from session data.

use super::*;

#[test]
fn the_table_says_what_it_used_sorts_by_saving_and_ends_with_a_verdict() {
    let args = [
        "replay-compress",
        "--all",
        "-A",
        "pi",
        "--context-window",
        "20000",
    ];
    let rows = json_on_home(&args);
    let out = sessions()
        .env("COLUMNS", "80")
        .arg("--home")
        .arg(home())
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("algorithm: pi · window 20,000 · threshold 3,616"),
        "{text}"
    );
    assert!(text.contains("FULL: context with no management"), "{text}");
    assert!(text.contains("verdict: pi would have saved"), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
    }
    // Rows come biggest saving first (ties: newest first).
    let mut expected: Vec<(i64, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["totals"]["saved"].as_i64().unwrap(),
                r["started_at"].as_str().unwrap_or("").to_string(),
                r["id"].as_str().unwrap().chars().take(8).collect(),
            )
        })
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    let shown: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("AGENT"))
        .skip(1)
        .take(expected.len())
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .chars()
                .take(8)
                .collect()
        })
        .collect();
    let expected: Vec<String> = expected.into_iter().map(|e| e.2).collect();
    assert_eq!(shown, expected);
}

/// On a narrow terminal the table drops its least important columns; the legend under it
/// explains exactly the columns that are left.
#[test]
fn the_legend_explains_the_columns_shown() {
    let terms = [
        "FULL",
        "RECORDED",
        "WHAT-IF",
        "SAVED",
        "VS REC%",
        "SUMMARISER",
        "NET",
        "$SAVED",
        "COMP",
        "PEAK",
    ];
    for (columns, sweep) in [("80", false), ("80", true), ("200", false)] {
        let mut c = sessions();
        c.env("COLUMNS", columns).arg("--home").arg(home()).args([
            "replay-compress",
            "--all",
            "-A",
            "gemini",
        ]);
        if sweep {
            c.args(["--sweep", "threshold=0.2,0.5"]);
        }
        let out = c.output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let header = lines
            .iter()
            .find(|l| l.starts_with("AGENT") || l.starts_with("SETTING"))
            .expect("a table header");
        let shown: Vec<&str> = header.split("  ").map(str::trim).collect();
        // "· " before every term (the first gets one here), so `SAVED` is not `$SAVED`.
        let legend = format!(
            "· {}",
            lines
                .iter()
                .skip_while(|l| !l.starts_with("FULL:"))
                .take_while(|l| !l.starts_with("verdict"))
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join(" ")
        );
        for t in terms {
            assert_eq!(
                legend.contains(&format!("· {t}: ")),
                shown.contains(&t),
                "{columns} columns, sweep {sweep}: {t}\n{text}"
            );
        }
        if columns == "80" {
            assert!(
                !shown.contains(&"VS REC%"),
                "80 columns drop some: {header}"
            );
        }
    }
}

/// Notes on stderr name the session they concern (and how many others share them); a note
/// every session shares is printed once, bare.
#[test]
fn notes_name_their_sessions() {
    let out = sessions()
        .arg("--home")
        .arg(home())
        .args(["replay-compress", "--all", "-A", "codex"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("note: ")).collect();
    assert!(
        notes.iter().any(|n| n.starts_with("note: summary size ")),
        "{stderr}"
    );
    assert!(
        notes.contains(
            &"note: 5f0c2d1e-8b3a and 2 other sessions: model (none recorded) unknown: assumed a \
              272,000-token window"
        ),
        "{stderr}"
    );
    // Each text once.
    let mut unique = notes.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), notes.len(), "{stderr}");
}

#[test]
fn session_ids_reach_no_terminal_and_no_svg_raw() {
    let dir = tempfile::tempdir().unwrap();
    let sid = "abcd\u{1b}[2Jef\u{202e}-0000";
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    for k in 0..3 {
        let (u, a) = (format!("u{k}"), format!("a{k}"));
        lines.push(
            json!({"type": "user", "sessionId": sid, "uuid": u, "parentUuid": parent,
            "cwd": "/home/dev/x", "timestamp": format!("2026-05-01T10:0{k}:00Z"),
            "message": {"role": "user", "content": "do it"}}),
        );
        lines.push(
            json!({"type": "assistant", "sessionId": sid, "uuid": a, "parentUuid": u,
            "cwd": "/home/dev/x", "timestamp": format!("2026-05-01T10:0{k}:30Z"),
            "requestId": format!("r{k}"), "message": {"id": format!("m{k}"),
            "role": "assistant", "model": "claude-\u{1b}]0;T\u{7}x",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 100 * (k + 1), "output_tokens": 1}}}),
        );
        parent = Value::String(a);
    }
    let path = dir.path().join("s.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&path, text).unwrap();
    let svg = dir.path().join("p.svg");
    let out = sessions()
        .args(["replay-compress", "-A", "claude", "--timeline", "--plot"])
        .arg(&svg)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("timeline: claude abcd^["));
    for bytes in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!bytes.iter().any(|&b| b == 0x1b || b == 0x07), "{text:?}");
        assert!(!text.contains('\u{202e}'), "{text:?}");
    }
    let svg = fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("abcd^["), "{svg}");
    assert!(
        !svg.chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "control characters in the SVG"
    );
}

/// Notes are prose on stderr: they fit `COLUMNS` as the verdict does (the Gemini version note
/// runs to some 600 characters).
#[test]
fn notes_wrap_to_the_terminal_width() {
    let out = sessions()
        .env("COLUMNS", "80")
        .arg("--home")
        .arg(home())
        .args(["replay-compress", "--all", "-A", "gemini"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("note: e5f6a7b8-5555: Gemini CLI"), "{err}");
    for line in err.lines() {
        assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
        assert!(
            line.starts_with("note: ") || line.starts_with("  "),
            "{line:?}"
        );
    }
}

/// The verdict's session count is of the sessions the algorithm intervened on, out of those
/// replayed, as the JSON's `compressions` say.
#[test]
fn the_verdict_says_how_many_sessions_had_an_intervention() {
    let args = [
        "replay-compress",
        "--all",
        "-A",
        "gemini",
        "--set",
        "threshold=0.0001",
    ];
    let rows = json_on_home(&args);
    let comp: Vec<u64> = rows
        .iter()
        .map(|r| r["compressions"].as_u64().unwrap())
        .collect();
    let acted = comp.iter().filter(|&&c| c > 0).count();
    assert!(0 < acted && acted < rows.len(), "{comp:?}");
    let text = String::from_utf8(common::stdout_of(
        sessions().arg("--home").arg(home()).args(args),
    ))
    .unwrap();
    let verdict = text
        .lines()
        .find(|l| l.starts_with("verdict:"))
        .expect("a verdict");
    let expected = format!(
        "over {} interventions on {acted} of {} sessions",
        comp.iter().sum::<u64>(),
        rows.len()
    );
    assert!(verdict.contains(&expected), "{expected}: {verdict}");
}
