//! Which sessions are replayed: every session of the sample home by every algorithm, named
//! folders with the filters, and one replay for two copies of a session.

use super::*;

#[test]
fn sample_home_replays_every_session_and_says_what_is_estimated() {
    let rows = json_out(sessions().arg("--home").arg(home()).args([
        "replay-compress",
        "--all",
        "--kind",
        "all",
        "-A",
        "codex",
        "--format",
        "json",
    ]));
    assert_eq!(rows.len(), 26);
    for r in &rows {
        let t = &r["totals"];
        for k in [
            "full",
            "recorded",
            "what_if",
            "saved",
            "saved_pct",
            "summariser_tokens",
            "net_saved",
        ] {
            assert!(!t[k].is_null(), "totals.{k} in {r}");
        }
        assert!(r["compressions"].is_u64());
        assert!(r["events"].is_array());
        assert!(r.get("timeline").is_none(), "timeline only with --timeline");
    }
    // The bare-era Codex rollout has no usage: replayed on estimates, and it says so.
    let bare = rows
        .iter()
        .find(|r| r["id"] == "5f0c2d1e-8b3a-4c6d-9e7f-1a2b3c4d5e6f")
        .unwrap();
    assert_eq!(bare["basis"], "estimated");
    assert!(
        bare["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("estimate"))
    );
    // Its model is unknown (no turn_context in that era): the default window, said so.
    assert_eq!(bare["limits"]["source"], "default");
    assert_eq!(bare["limits"]["context_window"], 272_000);
    // Codex records its own window (`model_context_window`), which wins over the model table.
    let rec = rows
        .iter()
        .find(|r| r["id"] == "019d4e99-de40-7b52-9d63-6e2f3a4b5c02")
        .unwrap();
    assert_eq!(rec["limits"]["source"], "recorded");
    assert_eq!(rec["limits"]["context_window"], 272_000);
    // Calibrated from the two real Codex summaries in the sample home.
    assert_ne!(rows[0]["summary_tokens"], 1_500);
}

#[test]
fn every_algorithm_replays_the_sample_home_consistently() {
    for alg in ["gemini", "openclaw-prune", "pi", "claude", "codex"] {
        let rows = json_out(sessions().arg("--home").arg(home()).args([
            "replay-compress",
            "--all",
            "--kind",
            "all",
            "-A",
            alg,
            "--format",
            "json",
        ]));
        assert_eq!(rows.len(), 26, "{alg}");
        for r in &rows {
            let t = &r["totals"];
            let (full, what_if) = (t["full"].as_i64().unwrap(), t["what_if"].as_i64().unwrap());
            assert_eq!(
                t["saved"].as_i64().unwrap(),
                full - what_if,
                "{alg} {}",
                r["id"]
            );
            assert_eq!(
                t["net_saved"].as_i64().unwrap(),
                t["saved"].as_i64().unwrap() - t["summariser_tokens"].as_i64().unwrap(),
                "{alg} {}",
                r["id"]
            );
            assert_eq!(r["algorithm"], alg);
            // Nothing in the sample home comes near a real window: nothing to manage.
            assert_eq!(r["compressions"], 0, "{alg} {}", r["id"]);
        }
    }
}

/// `--all` with files or folders reads them instead of the stores, filters included, as `list`
/// and `export --all` do; without `--all` the filters cannot narrow named paths.
#[test]
fn all_reads_named_folders_with_the_filters() {
    let codex = home().join(".codex");
    let ids = |v: Vec<Value>| -> Vec<String> {
        let mut ids: Vec<String> = v
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    let window = ["--since", "2026-03-01", "--until", "2026-04-30"];
    let listed = ids(json_out(
        sessions()
            .args(["list", "--format", "json"])
            .args(window)
            .arg(&codex),
    ));
    assert!(!listed.is_empty());
    let replayed = ids(json_out(
        sessions()
            .args([
                "replay-compress",
                "--all",
                "-A",
                "codex",
                "--format",
                "json",
            ])
            .args(window)
            .arg(&codex),
    ));
    assert_eq!(replayed, listed);
    // The whole folder holds more.
    let all = ids(json_out(
        sessions().args(["list", "--format", "json"]).arg(&codex),
    ));
    assert!(all.len() > listed.len());
    sessions()
        .args(["replay-compress", "-A", "codex"])
        .args(window)
        .arg(&codex)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "with --all, named files and folders are read",
        ));
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn two_named_copies_of_a_session_replay_it_once() {
    // The same Gemini session saved in two folders (the corpus keeps both copies).
    let dir = Path::new(env!("SESSIONS_CORPUS_DIR")).join("real/gemini_legacy");
    let a = dir.join("mgemini-Archives-session-2025-12-24T06-27-36e8d28f.json");
    let b = dir.join("mgemini-chat_logs-session-2025-12-24T06-27-36e8d28f.json");
    let records = json_out(
        sessions()
            .args(["replay-compress", "-A", "gemini", "--format", "json"])
            .arg(&a)
            .arg(&b),
    );
    assert_eq!(records.len(), 1, "{records:#?}");
    assert!(records[0]["id"].as_str().unwrap().starts_with("36e8d28f"));
}

/// Session 21a2e002 of the corpus is three consecutive pieces of one long session, each file
/// a history of its own (README: "are each replayed"). Its full id names all three: the replay
/// takes each, as `--all` does; `show` can show one only, and says which files to name.
#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn a_session_id_held_by_diverging_files_replays_each() {
    let corpus = Path::new(env!("SESSIONS_CORPUS_DIR")).join("real/claude_compaction");
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-p");
    fs::create_dir_all(&project).unwrap();
    let pieces = [
        "entire-3e_7e38433d1c_0_full.jsonl",
        "entire-c0_8972f3adb1_0_full.jsonl",
        "entire-e5_8e27b1ba0d_0_full.jsonl",
    ];
    for name in pieces {
        fs::copy(corpus.join(name), project.join(name)).unwrap();
    }
    let id = "21a2e002-8b63-45db-8e0d-1978fe0600aa";
    for named in [id, "21a2e002"] {
        let records = json_out(sessions().arg("--home").arg(home.path()).args([
            "replay-compress",
            named,
            "-A",
            "claude",
            "--format",
            "json",
        ]));
        let mut files: Vec<&str> = records
            .iter()
            .inspect(|r| assert_eq!(r["id"], id))
            .map(|r| r["path"].as_str().unwrap().rsplit('/').next().unwrap())
            .collect();
        files.sort_unstable();
        assert_eq!(files, pieces, "{named}");
    }
    // In the tables, the three rows of one id are told apart by their file, in the validation
    // table too (each piece recorded one compaction).
    let out = sessions()
        .arg("--home")
        .arg(home.path())
        .args([
            "--quiet",
            "replay-compress",
            id,
            "-A",
            "claude",
            "--validate",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for (n, piece) in pieces.iter().enumerate() {
        let mark = format!("#{}", n + 1);
        assert!(
            text.lines()
                .any(|l| l.starts_with(&mark) && l.ends_with(piece)),
            "{text}"
        );
        let rows = text
            .lines()
            .filter(|l| l.starts_with("21a2e002-8b63  ") && l.contains(&format!(" {mark} ")));
        assert_eq!(rows.count(), 1, "{mark}: {text}");
    }
    sessions()
        .arg("--home")
        .arg(home.path())
        .args(["show", id])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "names one session held by 3 files whose histories diverge; name one by its path",
        ))
        .stderr(predicate::str::contains("longer prefix").not())
        .stderr(predicate::str::contains(pieces[0]));
}

/// A file named with `--all` that is no agent's session is said to be so on stderr, as `list`
/// and `compactions` say it (README), whether or not other named files hold sessions.
#[test]
fn all_notes_a_named_file_that_is_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let afile = dir.path().join("afile");
    fs::write(&afile, "hi\n").unwrap();
    let note = "afile: not a session file of any supported agent";
    sessions()
        .args(["replay-compress", "--all", "-A", "claude"])
        .arg(&afile)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(note))
        .stderr(predicate::str::contains("no session selected"));
    sessions()
        .args([
            "replay-compress",
            "--all",
            "-A",
            "claude",
            "--format",
            "json",
        ])
        .arg(&afile)
        .arg(home().join(".claude"))
        .assert()
        .success()
        .stderr(predicate::str::contains(note));
}

/// Two Gemini files of one session (one `sessionId` and start) that diverged after a shared
/// first exchange: both are kept and each is replayed. Their rows carry the same id; the
/// human table tells them apart by their file and says that they share history, and so
/// does each one's timeline. In JSON, `path` tells them apart.
#[test]
fn diverged_files_of_one_session_are_told_apart_by_their_file() {
    let home = tempfile::tempdir().unwrap();
    let meta = json!({"sessionId": "d0d0d0d0-0000-4000-8000-000000000001",
        "projectHash": "b2".repeat(32), "startTime": "2025-12-05T10:00:00.000Z",
        "lastUpdated": "2025-12-05T10:05:00.000Z", "kind": "main"});
    let msg = |id: &str, min: u32, input: Option<u64>| {
        let mut m = json!({"id": id, "type": "user", "content": id,
            "timestamp": format!("2025-12-05T10:{min:02}:00.000Z")});
        if let Some(input) = input {
            m["type"] = "gemini".into();
            m["tokens"] = json!({"input": input, "output": 10, "cached": 0, "thoughts": 0,
                "tool": 0, "total": input + 10});
            m["model"] = "gemini-2.5-pro".into();
        }
        m
    };
    let shared = [msg("m1", 0, None), msg("m2", 1, Some(1000))];
    let mut paths = Vec::new();
    for (dir, own) in [
        ("slug", [msg("m3", 2, None), msg("m4", 3, Some(2000))]),
        ("other", [msg("x3", 4, None), msg("x4", 5, Some(500))]),
    ] {
        let chats = home.path().join(".gemini/tmp").join(dir).join("chats");
        fs::create_dir_all(&chats).unwrap();
        let text: String = std::iter::once(&meta)
            .chain(&shared)
            .chain(&own)
            .map(|v| v.to_string() + "\n")
            .collect();
        let path = chats.join("session-2025-12-05T10-00-d0d0d0d0.jsonl");
        fs::write(&path, text).unwrap();
        paths.push(path.to_str().unwrap().to_string());
    }
    paths.sort();
    let replay = |extra: &[&str]| {
        let out = sessions()
            .arg("--home")
            .arg(home.path())
            .args(["--quiet", "replay-compress", "--all", "-A", "gemini"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };

    let text = replay(&["--timeline"]);
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("gemini ")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    let mut marks: Vec<&str> = rows
        .iter()
        .map(|r| r.split_whitespace().nth(2).unwrap())
        .collect();
    marks.sort_unstable();
    assert_eq!(marks, ["#1", "#2"], "{text}");
    assert!(
        text.contains("FILE: files of one session whose histories diverge"),
        "{text}"
    );
    assert!(text.contains("the history they share is in each"), "{text}");
    // The verdict counts sessions, and says how many files they came in.
    assert!(text.contains(" on 1 session (2 files)"), "{text}");
    // #1 is the first path, `other/`: its own exchange is the smaller one.
    assert!(
        rows.iter()
            .any(|r| r.contains(" #1 ") && r.contains(" 1.5k ")),
        "{text}"
    );
    for (n, p) in paths.iter().enumerate() {
        assert!(text.contains(&format!("\n#{} {p}\n", n + 1)), "{text}");
        assert!(
            text.contains(&format!("\nfile #{} of the session: {p}\n", n + 1)),
            "{text}"
        );
    }

    let records = json_out(sessions().arg("--home").arg(home.path()).args([
        "replay-compress",
        "--all",
        "-A",
        "gemini",
        "--format",
        "json",
    ]));
    let mut got: Vec<&str> = records
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    got.sort_unstable();
    assert_eq!(got, paths);

    // A sweep lists no session, but its totals count the shared history once per file.
    let sweep = replay(&["--sweep", "threshold=0.2,0.5"]);
    assert!(
        sweep.contains("these sessions include files of one session"),
        "{sweep}"
    );

    // One session in one file: no FILE column, no such line.
    let one = replay(&[&paths[0]]);
    assert!(!one.contains("FILE") && !one.contains("diverge"), "{one}");
}
