//! Hostile input that must not crash or mislead: token counts near `u64::MAX` in every agent's
//! format through every subcommand (this test build has overflow checks on, so an overflow is
//! a panic, i.e. a failure here), and session files whose paths are not UTF-8.

use crate::common;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use common::sessions;
use serde_json::Value;

const MAX: u64 = u64::MAX;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn overflow_checks_are_on_in_test_builds() {
    // Cargo.toml's [profile.dev] (which `cargo test` builds the binary with too): an overflow
    // panics instead of wrapping. If this fails, the tests below prove nothing.
    let x = std::hint::black_box(u64::MAX);
    assert!(std::panic::catch_unwind(|| x + 1).is_err());
}

/// A home where every recorded token count is u64::MAX: two Claude sessions (split cache
/// creation, a compaction with pre/post tokens), a Codex rollout (totals, last usage and
/// window), a legacy Gemini document (input, output, thoughts, tool).
fn hostile_home(home: &Path) {
    for n in 1..=2 {
        let id = format!("11111111-0000-4000-8000-00000000000{n}");
        let usage = format!(
            r#"{{"input_tokens":{MAX},"output_tokens":{MAX},"cache_read_input_tokens":{MAX},"cache_creation_input_tokens":{MAX},"cache_creation":{{"ephemeral_5m_input_tokens":{MAX},"ephemeral_1h_input_tokens":{MAX}}},"output_tokens_details":{{"thinking_tokens":{MAX}}}}}"#
        );
        let lines = [
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"u1","parentUuid":null,"cwd":"/p","timestamp":"2026-01-01T00:00:00Z","message":{{"role":"user","content":"hi"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","sessionId":"{id}","uuid":"a1","parentUuid":"u1","cwd":"/p","timestamp":"2026-01-01T00:00:01Z","requestId":"r1","message":{{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"x"}}],"usage":{usage}}}}}"#
            ),
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"u2","parentUuid":"a1","cwd":"/p","timestamp":"2026-01-01T00:00:02Z","message":{{"role":"user","content":"again"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","sessionId":"{id}","uuid":"a2","parentUuid":"u2","cwd":"/p","timestamp":"2026-01-01T00:00:03Z","requestId":"r2","message":{{"id":"m2","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"y"}}],"usage":{usage}}}}}"#
            ),
            format!(
                r#"{{"type":"system","subtype":"compact_boundary","sessionId":"{id}","uuid":"c1","parentUuid":"a2","timestamp":"2026-01-01T00:00:04Z","content":"Conversation compacted","compactMetadata":{{"trigger":"auto","preTokens":{MAX},"postTokens":{MAX}}}}}"#
            ),
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"u3","parentUuid":"c1","isCompactSummary":true,"cwd":"/p","timestamp":"2026-01-01T00:00:05Z","message":{{"role":"user","content":"This session is being continued. Summary: y"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","sessionId":"{id}","uuid":"a3","parentUuid":"u3","cwd":"/p","timestamp":"2026-01-01T00:00:06Z","requestId":"r3","message":{{"id":"m3","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"z"}}],"usage":{usage}}}}}"#
            ),
        ];
        write(
            &home.join(format!(".claude/projects/-p/{id}.jsonl")),
            &(lines.join("\n") + "\n"),
        );
    }
    let raw = |input: u64, cached: u64, total: u64| {
        format!(
            r#"{{"input_tokens":{input},"cached_input_tokens":{cached},"output_tokens":{MAX},"reasoning_output_tokens":{MAX},"total_tokens":{total}}}"#
        )
    };
    let codex = [
        r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"019ceba0-adf0-7a31-8c42-5d1e2f3a4b01","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","originator":"codex_cli_rs","cli_version":"0.50.0"}}"#.to_string(),
        r#"{"timestamp":"2026-01-01T00:00:00Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5-codex"}}"#.to_string(),
        r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#.to_string(),
        r#"{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#.to_string(),
        r#"{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}}"#.to_string(),
        format!(
            r#"{{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{},"model_context_window":{MAX}}}}}}}"#,
            raw(MAX, MAX, MAX),
            raw(MAX, 0, MAX)
        ),
        r#"{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"again"}]}}"#.to_string(),
        r#"{"timestamp":"2026-01-01T00:00:03Z","type":"event_msg","payload":{"type":"user_message","message":"again"}}"#.to_string(),
        r#"{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"y"}]}}"#.to_string(),
        format!(
            r#"{{"timestamp":"2026-01-01T00:00:04Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{},"model_context_window":{MAX}}}}}}}"#,
            raw(1, 0, 2),
            raw(MAX, 0, MAX)
        ),
    ];
    write(
        &home.join(".codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-019ceba0-adf0-7a31-8c42-5d1e2f3a4b01.jsonl"),
        &(codex.join("\n") + "\n"),
    );
    let tokens = format!(
        r#"{{"input":{MAX},"output":{MAX},"cached":0,"thoughts":{MAX},"tool":{MAX},"total":{MAX}}}"#
    );
    write(
        &home.join(".gemini/tmp/p/chats/session-2026-01-01T00-00-aaaa0001.json"),
        &format!(
            r#"{{"sessionId":"aaaa0001-0000-4000-8000-000000000001","projectHash":"h","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:01:00Z","messages":[
{{"id":"1","timestamp":"2026-01-01T00:00:00Z","type":"user","content":"hi"}},
{{"id":"2","timestamp":"2026-01-01T00:00:01Z","type":"gemini","content":"x","model":"gemini-2.5-pro","tokens":{tokens}}},
{{"id":"3","timestamp":"2026-01-01T00:00:02Z","type":"user","content":"again"}},
{{"id":"4","timestamp":"2026-01-01T00:00:03Z","type":"gemini","content":"y","model":"gemini-2.5-pro","tokens":{tokens}}}]}}"#
        ),
    );
}

fn run_ok(home: &Path, args: &[&str]) -> String {
    let out = sessions()
        .arg("--home")
        .arg(home)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("panicked"),
        "{args:?}: status {:?}\n{stderr}",
        out.status.code()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn token_counts_near_u64_max_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    hostile_home(&home);
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let plot = format!("{out}/plot.svg");
    let mut runs: Vec<Vec<String>> = Vec::new();
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for a in [
        &["list"][..],
        &["list", "-f", "json"],
        &["list", "-f", "csv"],
        &["list", "--sort", "tokens"],
        &["projects"],
        &["projects", "-f", "json"],
        &["compactions"],
        &["compactions", "--stats"],
        &["compactions", "-f", "json"],
    ] {
        runs.push(v(a));
    }
    for id in [
        "11111111-0000-4000-8000-000000000001",
        "019ceba0",
        "aaaa0001",
    ] {
        runs.push(v(&["show", id]));
        runs.push(v(&["show", id, "-f", "json"]));
    }
    for fmt in ["md", "html", "json", "jsonl"] {
        runs.push(v(&[
            "export",
            "--all",
            "-f",
            fmt,
            "--force",
            "-o",
            &format!("{out}/{fmt}/"),
        ]));
    }
    // Each algorithm at the largest summary it accepts.
    for (alg, summary) in [
        ("claude", "32000"),
        ("codex", "128000"),
        ("gemini", "65536"),
        ("pi", "1000000000000"),
        ("openclaw-prune", "1000000000000"),
    ] {
        for extra in [
            &[][..],
            &["--context-window", "1000000000000"],
            &["--summary-tokens", summary],
            &["--context-window", "1", "--summary-tokens", summary],
        ] {
            let mut a = v(&[
                "replay-compress",
                "--all",
                "-A",
                alg,
                "--validate",
                "--timeline",
            ]);
            a.extend(v(extra));
            runs.push(a);
        }
        runs.push(v(&[
            "replay-compress",
            "--all",
            "-A",
            alg,
            "-f",
            "json",
            "--plot",
            &plot,
            "--force",
        ]));
    }
    for a in &runs {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run_ok(&home, &a);
    }
    // Sums saturate at u64::MAX instead of wrapping to something plausible.
    let list: Vec<Value> = serde_json::from_str(&run_ok(&home, &["list", "-f", "json"])).unwrap();
    assert_eq!(list.len(), 4);
    for s in &list {
        assert_eq!(s["tokens"]["total"], MAX, "{}", s["id"]);
    }
}

/// `caf\xe9`: Latin-1 bytes, not UTF-8.
fn latin1(name: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(name))
}

#[test]
fn paths_that_are_not_utf8_work_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(latin1(b"sessions-caf\xe9"));
    let file = folder.join(latin1(b"caf\xe9.jsonl"));
    let id = "33333333-cccc-4000-8000-000000000003";
    write(
        &file,
        &format!(
            r#"{{"type":"user","sessionId":"{id}","uuid":"u1","parentUuid":null,"cwd":"/p","timestamp":"2026-05-01T10:00:00.000Z","message":{{"role":"user","content":"bonjour"}}}}
{{"type":"assistant","sessionId":"{id}","uuid":"a1","parentUuid":"u1","cwd":"/p","timestamp":"2026-05-01T10:00:05.000Z","requestId":"r1","message":{{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"salut"}}],"usage":{{"input_tokens":10,"output_tokens":5}}}}}}
"#
        ),
    );
    let run = |args: &[&OsStr]| {
        let out = sessions()
            .env("HOME", dir.path())
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let s = |x: &'static str| OsStr::new(x);
    assert!(run(&[s("list"), s("-f"), s("json"), folder.as_os_str()]).contains(id));
    assert!(run(&[s("show"), file.as_os_str()]).contains(id));
    assert!(run(&[s("show"), s("-f"), s("json"), file.as_os_str()]).contains("bonjour"));
    assert!(run(&[s("export"), file.as_os_str()]).contains("salut"));
    // JSON carries the path with the bytes that are not UTF-8 replaced, never an error.
    let doc: Value =
        serde_json::from_str(&run(&[s("export"), s("-f"), s("json"), file.as_os_str()])).unwrap();
    assert!(
        doc["path"].as_str().unwrap().ends_with("caf\u{fffd}.jsonl"),
        "{}",
        doc["path"]
    );
    let rep: Value = serde_json::from_str(&run(&[
        s("replay-compress"),
        s("-A"),
        s("claude"),
        s("-f"),
        s("json"),
        file.as_os_str(),
    ]))
    .unwrap();
    assert!(
        rep[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("caf\u{fffd}.jsonl")
    );
    let out_md = dir.path().join(latin1(b"out-caf\xe9.md"));
    run(&[s("export"), file.as_os_str(), s("-o"), out_md.as_os_str()]);
    assert!(fs::read_to_string(&out_md).unwrap().contains("bonjour"));
    let out_dir = dir.path().join(latin1(b"all-caf\xe9"));
    run(&[
        s("export"),
        s("--all"),
        folder.as_os_str(),
        s("-o"),
        out_dir.as_os_str(),
    ]);
    assert_eq!(
        fs::read_dir(&out_dir).unwrap().count(),
        2,
        "one file and the index"
    );
    let plot = dir.path().join(latin1(b"plot-caf\xe9.svg"));
    let table = run(&[
        s("replay-compress"),
        s("-A"),
        s("claude"),
        file.as_os_str(),
        s("--plot"),
        plot.as_os_str(),
    ]);
    assert!(table.contains("33333333"), "{table}");
    assert!(fs::read_to_string(&plot).unwrap().starts_with("<svg"));
}

/// A home whose times name no instant a report can shift: epoch milliseconds at chrono's last
/// and first days (`usage` and `show` panicked on the first in zones east of UTC, `blocks` in
/// any), a year past 9999, a word and JSON kinds that are no time; in all three formats. One
/// line of each file keeps a good time.
fn time_home(home: &Path) {
    let claude = |id: &str, ts: &str| {
        [
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"u1","parentUuid":null,"cwd":"/p","timestamp":{ts},"message":{{"role":"user","content":"hi"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","sessionId":"{id}","uuid":"a1","parentUuid":"u1","cwd":"/p","timestamp":{ts},"requestId":"r-{id}","message":{{"id":"m-{id}","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"x"}}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
            ),
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"u2","parentUuid":"a1","cwd":"/p","message":{{"role":"user","content":"no time at all"}}}}"#
            ),
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"u3","parentUuid":"u2","cwd":"/p","timestamp":null,"message":{{"role":"user","content":"a null time"}}}}"#
            ),
        ]
        .join("\n")
            + "\n"
    };
    write(
        &home.join(".claude/projects/-p/11111111-0000-4000-8000-000000000001.jsonl"),
        &claude("11111111-0000-4000-8000-000000000001", "8210266876799999"),
    );
    write(
        &home.join(".claude/projects/-p/11111111-0000-4000-8000-000000000002.jsonl"),
        &claude("11111111-0000-4000-8000-000000000002", "-8210298412800"),
    );
    let codex = [
        r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"019ceba0-adf0-7a31-8c42-5d1e2f3a4b01","timestamp":true,"cwd":"/p","originator":"codex_cli_rs","cli_version":"0.50.0"}}"#,
        r#"{"timestamp":"+275760-09-13T00:00:00Z","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5-codex"}}"#,
        r#"{"timestamp":1e20,"type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#,
        r#"{"timestamp":[],"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6},"last_token_usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6}}}}"#,
    ];
    write(
        &home.join(".codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-019ceba0-adf0-7a31-8c42-5d1e2f3a4b01.jsonl"),
        &(codex.join("\n") + "\n"),
    );
    let gemini = [
        r#"{"sessionId":"aaaa0001-0000-4000-8000-000000000001","projectHash":"h","startTime":"2026-01-01T00:00:00Z","lastUpdated":{},"kind":"main"}"#,
        r#"{"id":"u0","timestamp":"garbage","type":"user","content":[{"text":"hi"}]}"#,
        r#"{"id":"g0","timestamp":253402300800000,"type":"gemini","content":"x","model":"gemini-2.5-pro","tokens":{"input":3,"output":1,"cached":0,"thoughts":0,"tool":0,"total":4},"toolCalls":[{"id":"c1","name":"ls","args":{},"status":"success","timestamp":"soon","result":[{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}}]}]}"#,
    ];
    write(
        &home.join(".gemini/tmp/p/chats/session-2026-01-01T00-00-aaaa0001.jsonl"),
        &(gemini.join("\n") + "\n"),
    );
}

#[test]
fn times_that_name_no_instant_are_warned_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    time_home(&home);
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    for tz in ["UTC", "Europe/Berlin", "Asia/Tokyo", "America/New_York"] {
        let mut runs: Vec<Vec<&str>> = vec![
            vec!["list"],
            vec!["projects"],
            vec!["compactions"],
            vec!["usage", "blocks"],
            vec!["usage", "blocks", "--utc"],
        ];
        for r in ["daily", "weekly", "monthly", "session"] {
            runs.push(vec!["usage", r]);
            runs.push(vec!["usage", r, "--timezone", "Pacific/Kiritimati"]);
            runs.push(vec!["usage", r, "-f", "json"]);
        }
        for id in [
            "11111111-0000-4000-8000-000000000001",
            "11111111-0000-4000-8000-000000000002",
            "019ceba0",
            "aaaa0001",
        ] {
            runs.push(vec!["show", id]);
        }
        for fmt in ["md", "html"] {
            runs.push(vec!["export", "--all", "-f", fmt, "--force", "-o", out]);
        }
        for a in &runs {
            let o = sessions()
                .env("TZ", tz)
                .arg("--home")
                .arg(&home)
                .args(a)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() && !stderr.contains("panicked"),
                "TZ={tz} {a:?}: status {:?}\n{stderr}",
                o.status.code()
            );
        }
    }
    // Each value that is no time is one warning, at its line; absent and null ones none.
    let list: Vec<Value> =
        serde_json::from_str(&run_ok(&home, &["list", "-f", "json", "-q"])).unwrap();
    let mut said: Vec<(String, u64, String)> = list
        .iter()
        .flat_map(|s| {
            let file = s["path"].as_str().unwrap().rsplit('/').next().unwrap();
            s["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |w| (file, w))
        })
        .map(|(file, w)| {
            let m = w["message"].as_str().unwrap();
            assert_eq!(w["kind"], "unexpected_record", "{m}");
            assert!(m.contains(", not a time ("), "{m}");
            let what = m.split(", not a time").next().unwrap().to_string();
            (file[..8].to_string(), w["line"].as_u64().unwrap(), what)
        })
        .collect();
    said.sort();
    let w = |f: &str, l: u64, what: &str| (f.to_string(), l, what.to_string());
    assert_eq!(
        said,
        [
            w("11111111", 1, "`timestamp` holds -8210298412800"),
            w("11111111", 1, "`timestamp` holds 8210266876799999"),
            w("11111111", 2, "`timestamp` holds -8210298412800"),
            w("11111111", 2, "`timestamp` holds 8210266876799999"),
            w("rollout-", 1, "`payload.timestamp` holds a JSON boolean"),
            w(
                "rollout-",
                2,
                "`timestamp` holds \"+275760-09-13T00:00:00Z\""
            ),
            w("rollout-", 3, "`timestamp` holds 1e+20"),
            w("rollout-", 4, "`timestamp` holds a JSON array"),
            w("session-", 1, "`lastUpdated` holds a JSON object"),
            w("session-", 2, "`timestamp` of message u0 holds \"garbage\""),
            w(
                "session-",
                3,
                "`timestamp` of message g0 holds 253402300800000"
            ),
            w(
                "session-",
                3,
                "`toolCalls[0].timestamp` of message g0 holds \"soon\""
            ),
        ]
    );
    // The records are read all the same: every request is counted, undated or at its
    // session's start.
    let tokens: u64 = list
        .iter()
        .map(|s| s["tokens"]["total"].as_u64().unwrap())
        .sum();
    assert_eq!(tokens, 2 + 2 + 6 + 4);
    // On stderr as `path:line`, and `--strict` fails.
    let o = sessions()
        .arg("--home")
        .arg(&home)
        .args(["list", "--strict"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("11111111-0000-4000-8000-000000000001.jsonl:2: `timestamp` holds 8210266876799999, not a time"),
        "{stderr}"
    );
}

/// A token count that is no count (negative, fractional, past 10^12, a string, a boolean) is
/// read as before (negative → 0, floored, the string's number) and reported as `path:line`,
/// like a malformed line: a warning that fails `--strict`. Every agent's format.
#[test]
fn token_counts_that_are_no_counts_are_reported_where_they_stand() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let claude =
        home.join(".claude/projects/-home-dev-odd/c0c0c0c0-0000-4000-8000-00000000000c.jsonl");
    write(
        &claude,
        concat!(
            r#"{"type":"user","sessionId":"c0c0c0c0-0000-4000-8000-00000000000c","uuid":"u1","timestamp":"2026-05-01T10:00:00Z","message":{"role":"user","content":"hi"}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"c0c0c0c0-0000-4000-8000-00000000000c","uuid":"u2","parentUuid":"u1","timestamp":"2026-05-01T10:00:05Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":-5,"output_tokens":12.5,"cache_read_input_tokens":"100","cache_creation_input_tokens":7}}}"#,
            "\n"
        ),
    );
    let codex = home.join(".codex/sessions/2026/05/01/rollout-2026-05-01T10-00-00-0d0d0d0d-0000-4000-8000-00000000000d.jsonl");
    write(
        &codex,
        concat!(
            r#"{"timestamp":"2026-05-01T10:00:00Z","type":"session_meta","payload":{"id":"0d0d0d0d-0000-4000-8000-00000000000d","timestamp":"2026-05-01T10:00:00Z","cwd":"/home/dev/odd"}}"#,
            "\n",
            r#"{"timestamp":"2026-05-01T10:00:05Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2e13,"output_tokens":true,"total_tokens":30}}}}"#,
            "\n"
        ),
    );
    let gemini = home.join(".gemini/tmp/odd/chats/session-2026-05-01T10-00-0e0e0e0e.jsonl");
    write(
        &gemini,
        concat!(
            r#"{"sessionId":"0e0e0e0e-0000-4000-8000-00000000000e","projectHash":"ab","startTime":"2026-05-01T10:00:00Z","lastUpdated":"2026-05-01T10:00:05Z","kind":"main"}"#,
            "\n",
            r#"{"id":"g1","timestamp":"2026-05-01T10:00:05Z","type":"gemini","content":"ok","model":"gemini-2.5-pro","tokens":{"input":"  42 ","output":[1],"cached":0}}"#,
            "\n"
        ),
    );
    let out = sessions()
        .args(["-v", "--home"])
        .arg(home)
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // Each warning whole: a long one is wrapped to COLUMNS, its continuations indented.
    let err = String::from_utf8_lossy(&out.stderr).replace("\n  ", " ");
    let said = |path: &Path, line: u32, what: &str| {
        let needle = format!("{}:{line}: {what}", path.display());
        assert!(err.contains(&needle), "{needle}\n{err}");
    };
    said(
        &claude,
        2,
        "`message.usage.input_tokens` holds -5, not a token count: read as 0",
    );
    said(
        &claude,
        2,
        "`message.usage.output_tokens` holds 12.5, not a token count: read as 12",
    );
    said(
        &claude,
        2,
        "`message.usage.cache_read_input_tokens` holds a string, not a token count: read as 100",
    );
    said(
        &codex,
        2,
        "`info.total_token_usage.input_tokens` holds 20000000000000, not a token count: read as \
         20000000000000",
    );
    said(
        &codex,
        2,
        "`info.total_token_usage.output_tokens` holds a boolean, not a token count: read as 0",
    );
    said(
        &gemini,
        2,
        "`tokens.input` of message g1 holds a string, not a token count: read as 42",
    );
    said(
        &gemini,
        2,
        "`tokens.output` of message g1 holds an array, not a token count: read as 0",
    );
    assert_eq!(err.matches("not a token count").count(), 7, "{err}");
    // The figures are what they were: the warnings change no count.
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let claude_row = rows.iter().find(|r| r["agent"] == "claude").unwrap();
    assert_eq!(claude_row["tokens"]["input"], 0);
    assert_eq!(claude_row["tokens"]["output"], 12);
    assert_eq!(claude_row["tokens"]["cache_read"], 100);
    assert_eq!(claude_row["tokens"]["cache_write"], 7);
    let strict = sessions()
        .args(["--strict", "--home"])
        .arg(home)
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(3));
}
