//! The binary against the sample home (`--home testdata/home`): the JSON contract values that
//! were computed by hand in testdata/home/*/README.md, cross-file rules (de-duplication, titles,
//! project resolution), filters and output formats (the promise never to write into a store is
//! tests/read_only.rs).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home")
}

fn sessions() -> Command {
    sessions_in(&home())
}

fn sessions_in(home: &Path) -> Command {
    let mut c = common::sessions();
    c.arg("--home").arg(home);
    c
}

fn run_json(args: &[&str]) -> Value {
    common::json_of(sessions().args(args))
}

fn by_id(rows: &Value) -> BTreeMap<String, Value> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

fn total(rows: &[&Value]) -> u64 {
    rows.iter()
        .map(|r| r["tokens"]["total"].as_u64().unwrap())
        .sum()
}

#[test]
fn every_session_is_found_once() {
    let all = run_json(&["list", "--kind", "all", "--format", "json"]);
    let rows = all.as_array().unwrap();
    let count = |agent: &str, kind: &str| {
        rows.iter()
            .filter(|r| r["agent"] == agent && (kind == "any" || r["kind"] == kind))
            .count()
    };
    // Claude: A, B, C, D, E, F + 2 sub-agent files. Codex: 9 rollouts (the .zst twin of a plain
    // file is dropped), 1 of them a sub-agent. Gemini: 11 files → 9 sessions after the hash/slug
    // copy and the .json/.jsonl twin are de-duplicated; 1 sub-agent.
    assert_eq!(count("claude", "any"), 8);
    assert_eq!(count("claude", "subagent"), 2);
    assert_eq!(count("codex", "any"), 9);
    assert_eq!(count("codex", "subagent"), 1);
    assert_eq!(count("gemini", "any"), 9);
    assert_eq!(count("gemini", "subagent"), 1);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "duplicate ids: {ids:?}");

    let main = run_json(&["list", "--format", "json"]);
    assert_eq!(main.as_array().unwrap().len(), 22);
    assert!(main.as_array().unwrap().iter().all(|r| r["kind"] == "main"));
}

#[test]
fn contract_fields_are_all_present() {
    let rows = run_json(&["list", "--kind", "all", "--format", "json"]);
    let required = [
        "agent",
        "id",
        "path",
        "kind",
        "parent_id",
        "project",
        "project_source",
        "title",
        "started_at",
        "updated_at",
        "models",
        "counts",
        "tokens",
        "compactions",
        "warnings",
        "schema_version",
    ];
    for r in rows.as_array().unwrap() {
        for k in required {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
        for k in [
            "user_turns",
            "assistant_messages",
            "tool_calls",
            "tool_errors",
        ] {
            assert!(r["counts"][k].is_u64(), "counts.{k} in {r}");
        }
        let t = &r["tokens"];
        let sum = ["input", "cache_read", "cache_write", "output"]
            .iter()
            .map(|k| t[k].as_u64().unwrap())
            .sum::<u64>();
        assert_eq!(t["total"].as_u64().unwrap(), sum, "total of {}", r["id"]);
        assert!(t["reasoning"].as_u64().unwrap() <= t["output"].as_u64().unwrap());
        if let Some(s) = r["started_at"].as_str() {
            chrono::DateTime::parse_from_rfc3339(s).expect("RFC 3339");
        }
    }
}

#[test]
fn per_session_figures_match_the_hand_computed_tables() {
    let rows = by_id(&run_json(&["list", "--kind", "all", "--format", "json"]));
    // (id, user_turns, assistant_messages, tool_calls, tool_errors, total tokens, compactions)
    // from testdata/home/.claude/README.md, .codex/README.md and .gemini/README.md.
    let expected: &[(&str, u64, u64, u64, u64, u64, u64)] = &[
        (
            "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01",
            3,
            7,
            4,
            1,
            57_249,
            1,
        ),
        (
            "1b2c3d4e-0a9f-4e8d-8c7b-6a5f4e3d2c10",
            1,
            5,
            3,
            0,
            25_823,
            0,
        ),
        (
            "9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a520",
            2,
            3,
            1,
            0,
            24_985,
            0,
        ),
        ("agent-7c1e9a2b", 0, 3, 1, 0, 16_530, 0),
        (
            "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6",
            3,
            4,
            1,
            0,
            19_520,
            0,
        ),
        (
            "c4d5e6f7-1a2b-4c3d-8e9f-0a1b2c3d4e50",
            1,
            2,
            1,
            0,
            23_399,
            0,
        ),
        ("agent-a5f3c2e1d0b9a8c7e", 0, 2, 1, 0, 10_613, 0),
        ("f0e1d2c3-b4a5-4968-8776-5a4b3c2d1e0f", 2, 1, 0, 0, 3_240, 0),
        (
            "019ceba0-adf0-7a31-8c42-5d1e2f3a4b01",
            1,
            5,
            4,
            1,
            43_595,
            0,
        ),
        (
            "a1b2c3d4-1111-4aaa-8aaa-000000000001",
            2,
            4,
            4,
            1,
            28_487,
            0,
        ),
        (
            "e5f6a7b8-5555-4eee-8eee-000000000005",
            7,
            14,
            6,
            1,
            94_845,
            3,
        ),
        (
            "f6a7b8c9-6666-4fff-8fff-000000000006",
            2,
            2,
            0,
            0,
            52_970,
            1,
        ),
    ];
    for &(id, turns, asst, calls, errors, tokens, comp) in expected {
        let r = rows.get(id).unwrap_or_else(|| panic!("{id} not listed"));
        let c = &r["counts"];
        assert_eq!(
            (
                c["user_turns"].as_u64().unwrap(),
                c["assistant_messages"].as_u64().unwrap(),
                c["tool_calls"].as_u64().unwrap(),
                c["tool_errors"].as_u64().unwrap(),
                r["tokens"]["total"].as_u64().unwrap(),
                r["compactions"].as_u64().unwrap(),
            ),
            (turns, asst, calls, errors, tokens, comp),
            "{id}"
        );
    }
    // Codex: which of the 2026-04-02 session's codes came out of which field.
    let x = &rows["019d4e99-de40-7b52-9d63-6e2f3a4b5c02"]["tokens"];
    assert_eq!(
        (
            x["input"].as_u64(),
            x["cache_read"].as_u64(),
            x["output"].as_u64(),
            x["reasoning"].as_u64()
        ),
        (Some(21_352), Some(34_048), Some(612), Some(224))
    );
    // Gemini: input = tokens.input − cached + tool; output = output + thoughts.
    let g = &rows["e5f6a7b8-5555-4eee-8eee-000000000005"]["tokens"];
    assert_eq!(
        (
            g["input"].as_u64(),
            g["cache_read"].as_u64(),
            g["output"].as_u64(),
            g["reasoning"].as_u64()
        ),
        (Some(35_000), Some(58_800), Some(1_045), Some(300))
    );
}

/// Several `summary` records point into one file: the leaf the file wrote last gives its title,
/// on every run (the leaves were looked up in a hash set's order).
#[test]
fn the_last_written_leaf_titles_a_file() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-home-dev-leaves");
    std::fs::create_dir_all(&dir).unwrap();
    let record = |session: &str, n: usize, parent: Option<String>| {
        serde_json::json!({
            "type": "user", "sessionId": session, "uuid": format!("{session}-{n}"),
            "parentUuid": parent, "cwd": "/home/dev/leaves",
            "timestamp": format!("2026-05-05T08:{:02}:{:02}.000Z", n / 60, n % 60),
            "message": {"role": "user", "content": format!("prompt {n}")}
        })
        .to_string()
    };
    let a = "aaaaaaaa-0000-4000-8000-000000000001";
    let lines: Vec<String> = (0..200)
        .map(|n| record(a, n, n.checked_sub(1).map(|p| format!("{a}-{p}"))))
        .collect();
    std::fs::write(dir.join(format!("{a}.jsonl")), lines.join("\n") + "\n").unwrap();
    let b = "bbbbbbbb-0000-4000-8000-000000000002";
    let mut lines: Vec<String> = (0..200)
        .map(|n| {
            serde_json::json!({"type": "summary", "summary": format!("leaf {n}"),
                "leafUuid": format!("{a}-{n}")})
            .to_string()
        })
        .collect();
    lines.push(record(b, 0, None));
    std::fs::write(dir.join(format!("{b}.jsonl")), lines.join("\n") + "\n").unwrap();
    let out = sessions_in(home.path())
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = by_id(&serde_json::from_slice(&out.stdout).unwrap());
    assert_eq!(rows[a]["title"], "leaf 199");
}

/// A session's title may come from a `summary` record in another file of its project: named by
/// its path (absolute, or relative from inside the store), it has the title it has by id.
#[test]
fn a_session_named_by_its_path_has_the_title_it_has_by_id() {
    let folder = home().join(".claude/projects/-home-dev-webapp");
    let name = "9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a520.jsonl";
    let file = folder.join(name);
    let want = "Auth middleware security review";
    let json = |args: &[&str], dir: &Path| -> Value {
        let out = sessions().current_dir(dir).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let show = json(&["show", "9e8d7c6b", "--format", "json"], &folder);
    assert_eq!(show["title"], want);
    for path in [file.to_str().unwrap(), name] {
        let show = json(&["show", path, "--format", "json"], &folder);
        assert_eq!(show["title"], want, "show {path}");
        let export = json(&["export", path, "-f", "json"], &folder);
        assert_eq!(export["title"], want, "export {path}");
        let list = json(&["list", path, "--format", "json"], &folder);
        assert_eq!(list[0]["title"], want, "list {path}");
        let out = sessions()
            .current_dir(&folder)
            .args(["export", path])
            .output()
            .unwrap();
        let md = String::from_utf8(out.stdout).unwrap();
        assert!(md.starts_with(&format!("# {want}\n")), "{md}");
    }
}

#[test]
fn cross_file_rules() {
    let rows = by_id(&run_json(&["list", "--kind", "all", "--format", "json"]));
    // A summary record in B titles C through its leafUuid; A's custom-title beats B's summary.
    assert_eq!(
        rows["9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a520"]["title"],
        "Auth middleware security review"
    );
    assert_eq!(
        rows["6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01"]["title"],
        "Health check work"
    );
    // Sub-agent files are their own sessions, linked to the spawning session.
    let sub = &rows["agent-a5f3c2e1d0b9a8c7e"];
    assert_eq!(sub["kind"], "subagent");
    assert_eq!(sub["parent_id"], "c4d5e6f7-1a2b-4c3d-8e9f-0a1b2c3d4e50");
    assert_eq!(
        rows["7c9e6679-7425-40de-944b-e07fc1f90ae7"]["parent_id"],
        "e5f6a7b8-5555-4eee-8eee-000000000005"
    );
    // Gemini copies: the slug-dir copy (later lastUpdated) and the .jsonl twin win.
    let f2 = rows["b2c3d4e5-2222-4bbb-8bbb-000000000002"]["path"]
        .as_str()
        .unwrap();
    assert!(f2.contains("/tmp/webapp/chats/"), "{f2}");
    let f3 = rows["c3d4e5f6-3333-4ccc-8ccc-000000000003"]["path"]
        .as_str()
        .unwrap();
    assert!(f3.ends_with(".jsonl"), "{f3}");
    assert_eq!(
        rows["c3d4e5f6-3333-4ccc-8ccc-000000000003"]["tokens"]["total"],
        11_190
    );
    // Codex: the plain rollout wins over its .zst twin; a .zst-only rollout is read.
    assert!(
        rows["01a01b20-8070-7017-a2c8-bd7e8f90a107"]["path"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl")
    );
    assert!(
        rows["019f40bd-ac00-7fd6-91b7-ac6d7e8f9006"]["path"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl.zst")
    );
    // The sample home is clean; its damaged twin's warnings carry line numbers.
    assert!(
        rows.values()
            .all(|r| r["warnings"].as_array().unwrap().is_empty()),
        "the sample home prints no warning"
    );
    let out = Command::cargo_bin("sessions")
        .unwrap()
        .env("TZ", "UTC")
        .arg("--home")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/damaged"))
        .args(["list", "--kind", "all", "--format", "json"])
        .output()
        .unwrap();
    let damaged = by_id(&serde_json::from_slice(&out.stdout).unwrap());
    let d = &damaged["d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"]["warnings"];
    assert_eq!(
        damaged["d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"]["tokens"],
        rows["d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"]["tokens"]
    );
    let lines: Vec<(String, u64)> = d
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["kind"].as_str().unwrap().to_string(),
                w["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        vec![
            ("malformed_line".to_string(), 5),
            ("truncated_last_line".to_string(), 10)
        ]
    );
}

#[test]
fn projects_are_resolved_every_way_and_tokens_deduplicated() {
    let rows = by_id(&run_json(&["list", "--kind", "all", "--format", "json"]));
    let src = |id: &str| {
        (
            rows[id]["project"].clone(),
            rows[id]["project_source"].clone(),
        )
    };
    assert_eq!(
        src("6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01"),
        ("/home/dev/webapp".into(), "cwd".into())
    );
    // Gemini legacy hash dir: matched against the other agents' working directories.
    assert_eq!(
        src("a1b2c3d4-1111-4aaa-8aaa-000000000001"),
        ("/home/dev/webapp".into(), "hash_match".into())
    );
    assert_eq!(
        src("e5f6a7b8-5555-4eee-8eee-000000000005"),
        ("/home/dev/api-server".into(), "project_root".into())
    );
    assert_eq!(
        src("f6a7b8c9-6666-4fff-8fff-000000000006"),
        ("/home/dev/ml-notebooks".into(), "projects_json".into())
    );
    assert_eq!(
        src("a7b8c9d0-7777-4aaa-9aaa-000000000007"),
        (Value::Null, "unresolved".into())
    );
    assert_eq!(
        rows["a7b8c9d0-7777-4aaa-9aaa-000000000007"]["project_hash"],
        "7b8ebbc448bee587f47492d1cf9f2a1da01c5ea74956d0bc530aecd3e2abc03d"
    );
    // Bare-era Codex: cwd recovered from <environment_context>.
    assert_eq!(
        src("5f0c2d1e-8b3a-4c6d-9e7f-1a2b3c4d5e6f").0,
        "/home/dev/webapp"
    );

    let projects = run_json(&["projects", "--format", "json"]);
    let projects = projects.as_array().unwrap();
    let all: Vec<&Value> = projects.iter().collect();
    // Claude 178,245 (one sub-agent replay of 8,164 dropped; A's `agent_progress` copy of
    // msg_A_sub1, whose sub-agent file is absent, counted: 900 + 4,000 + 150 = 5,050) + Codex
    // 194,482 + Gemini 237,827.
    assert_eq!(total(&all), 178_245 + 194_482 + 237_827);
    let per_file: u64 = rows
        .values()
        .map(|r| r["tokens"]["total"].as_u64().unwrap())
        .sum();
    // A session's own figures leave out the copies it holds: the copy is the sub-agent's.
    assert_eq!(
        total(&all) + 8_164,
        per_file + 5_050,
        "only the replayed response is dropped, and the copy counted"
    );
    let webapp = projects
        .iter()
        .find(|p| p["project"] == "/home/dev/webapp")
        .unwrap();
    assert_eq!(
        webapp["agents"],
        serde_json::json!(["claude", "codex", "gemini"])
    );
    let mut sources: Vec<&str> = webapp["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    sources.sort();
    assert_eq!(sources, ["cwd", "hash_match", "project_root"]);
    let unresolved = projects
        .iter()
        .find(|p| p["project"].is_null() && !p["project_hash"].is_null())
        .unwrap();
    assert_eq!(unresolved["sources"], serde_json::json!(["unresolved"]));

    // `--kind` narrows the projects as it narrows `list` (the default here is `all`): the main
    // sessions' and the sub-agents' tokens, each de-duplicated within its own selection.
    let of_kind = |kind: &str| {
        let doc = run_json(&["projects", "--kind", kind, "--format", "json"]);
        let rows: Vec<&Value> = doc.as_array().unwrap().iter().collect();
        let listed = run_json(&["list", "--kind", kind, "--format", "json"]);
        (total(&rows), listed.as_array().unwrap().len())
    };
    let (all_tokens, _) = of_kind("all");
    assert_eq!(all_tokens, total(&all));
    let (main_tokens, _) = of_kind("main");
    let (sub_tokens, subs) = of_kind("subagent");
    assert!(
        main_tokens < all_tokens && sub_tokens > 0,
        "{main_tokens} {sub_tokens}"
    );
    assert_eq!(subs, 4);
    let subagents = run_json(&["projects", "--kind", "subagent", "--format", "json"]);
    for p in subagents.as_array().unwrap() {
        assert_eq!(p["sessions"], 0, "{p}");
    }
}

/// A `.gemini` folder named as a path reads like the store it is: the same sessions, projects
/// resolved from its `projects.json` and `.project_root` markers, and no note about them.
#[test]
fn a_gemini_folder_named_as_a_path_reads_like_its_store() {
    let gemini = home().join(".gemini");
    let rows = |cmd: &mut Command| -> Vec<(String, Value, Value)> {
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("not a session file"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut v: Vec<_> = doc
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["id"].as_str().unwrap().to_string(),
                    r["project"].clone(),
                    r["project_source"].clone(),
                )
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let mut named = Command::cargo_bin("sessions").unwrap();
    named
        .env("TZ", "UTC")
        .args(["list", "--kind", "all", "--format", "json"])
        .arg(&gemini);
    let mut store = Command::cargo_bin("sessions").unwrap();
    store
        .env("TZ", "UTC")
        .env("HOME", "/nonexistent-home")
        .arg("--gemini-dir")
        .arg(&gemini)
        .args([
            "list", "--agent", "gemini", "--kind", "all", "--format", "json",
        ]);
    let named = rows(&mut named);
    assert_eq!(named, rows(&mut store));
    let ml = named.iter().find(|r| r.0.starts_with("f6a7b8c9")).unwrap();
    assert_eq!(
        (&ml.1, &ml.2),
        (
            &Value::from("/home/dev/ml-notebooks"),
            &Value::from("projects_json")
        )
    );
}

#[test]
fn a_gemini_saved_chat_named_as_a_path_keeps_its_project() {
    // A saved chat lies in `tmp/<project>/`, beside the `.project_root`, with no `chats`
    // folder above it.
    let tmp = home().join(".gemini/tmp");
    let chat = tmp.join("api-server/checkpoint-mytag.json");
    let project = |v: &Value| (v["project"].clone(), v["project_source"].clone());
    let expected = (
        Value::from("/home/dev/api-server"),
        Value::from("project_root"),
    );
    let mut c = Command::cargo_bin("sessions").unwrap();
    c.env("TZ", "UTC")
        .arg("show")
        .arg(&chat)
        .args(["--format", "json"]);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(project(&shown), expected);
    // The same from the store, and from the temp folder named as a path.
    let id = shown["id"].as_str().unwrap().to_string();
    assert_eq!(
        project(&run_json(&["show", &id, "--format", "json"])),
        expected
    );
    let mut c = Command::cargo_bin("sessions").unwrap();
    c.env("TZ", "UTC")
        .args(["list", "--kind", "all", "--format", "json"])
        .arg(&tmp);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let saved: Vec<&Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["path"]
                .as_str()
                .unwrap()
                .ends_with("checkpoint-mytag.json")
        })
        .collect();
    assert_eq!(saved.len(), 1, "{rows:#}");
    assert_eq!(project(saved[0]), expected);
}

#[test]
fn filters() {
    let ids = |args: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = run_json(args)
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    let claude_summer = ids(&[
        "list",
        "--agent",
        "claude",
        "--since",
        "2026-07-01T00:00:00Z",
        "--format",
        "json",
    ]);
    assert_eq!(
        claude_summer,
        [
            "c4d5e6f7-1a2b-4c3d-8e9f-0a1b2c3d4e50",
            "f0e1d2c3-b4a5-4968-8776-5a4b3c2d1e0f"
        ]
    );
    let spring = ids(&[
        "list",
        "--agent",
        "codex",
        "--since",
        "2026-03-01T00:00:00Z",
        "--until",
        "2026-04-30",
        "--format",
        "json",
    ]);
    assert_eq!(
        spring,
        [
            "019ceba0-adf0-7a31-8c42-5d1e2f3a4b01",
            "019d4e99-de40-7b52-9d63-6e2f3a4b5c02"
        ]
    );
    // The saved chat records no time at all: it is in no window, whichever it is.
    let undated = "checkpoint-mytag".to_string();
    assert!(ids(&["list", "--format", "json"]).contains(&undated));
    for window in [
        &["--until", "2020-01-01"][..],
        &["--since", "2026-03-01"][..],
        &["--since", "2000-01-01", "--until", "2100-01-01"][..],
    ] {
        let mut args = vec!["list", "--format", "json"];
        args.extend_from_slice(window);
        assert!(!ids(&args).contains(&undated), "{window:?}");
    }
    assert!(ids(&["list", "--until", "2020-01-01", "--format", "json"]).is_empty());
    // A window that ends before it starts is a mistake, not an empty result.
    let out = sessions()
        .args(["list", "--since", "2026-08-01", "--until", "2026-03-01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is after --until"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Sessions without a path are selected by the label tables show for them, or their hash.
    for (pattern, id) in [
        ("unknown", "a3b4c5d6-e7f8-4a9b-8c0d-1e2f3a4b5c6d"),
        ("unresolved", "a7b8c9d0-7777-4aaa-9aaa-000000000007"),
        ("48bee587f47", "a7b8c9d0-7777-4aaa-9aaa-000000000007"),
    ] {
        assert_eq!(
            ids(&["list", "--project", pattern, "--format", "json"]),
            [id],
            "{pattern}"
        );
    }
    let api = run_json(&["list", "--project", "/home/*/api-*", "--format", "json"]);
    assert!(!api.as_array().unwrap().is_empty());
    assert!(
        api.as_array()
            .unwrap()
            .iter()
            .all(|r| r["project"] == "/home/dev/api-server")
    );
    let subs = ids(&[
        "list",
        "--kind",
        "subagent",
        "--agent",
        "gemini,codex",
        "--format",
        "json",
    ]);
    assert_eq!(
        subs,
        [
            "019e461d-9788-7d94-bf95-8a4b5c6d7e04",
            "7c9e6679-7425-40de-944b-e07fc1f90ae7"
        ]
    );
    let limited = run_json(&[
        "list", "--sort", "tokens", "--limit", "2", "--format", "json",
    ]);
    let top: Vec<u64> = limited
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tokens"]["total"].as_u64().unwrap())
        .collect();
    assert_eq!(top, [94_845, 57_249]);
}

#[test]
fn ndjson_and_csv_carry_the_same_rows() {
    let json = run_json(&["list", "--kind", "all", "--format", "json"]);
    let out = sessions()
        .args(["list", "--kind", "all", "--format", "ndjson"])
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&lines, json.as_array().unwrap());
    let out = sessions()
        .args(["list", "--kind", "all", "--format", "csv"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "schema_version");
    assert!(headers.iter().any(|h| h == "tokens_total"));
    assert_eq!(reader.records().count(), lines.len());
}

/// Every CSV, with no row too, starts with its header; the projects CSV carries what its JSON
/// does (reasoning tokens, main sessions per agent), in columns after the first release's.
#[test]
fn csv_outputs_keep_their_header_and_the_json_figures() {
    let csv_of = |args: &[&str]| {
        let out = sessions().args(args).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    for cmd in ["list", "projects", "usage"] {
        let full = csv_of(&[cmd, "--format", "csv"]);
        let none = csv_of(&[cmd, "--format", "csv", "--project", "no-such-project"]);
        // `usage` adds its totals row, zero.
        let rows = if cmd == "usage" { 2 } else { 1 };
        assert_eq!(none.lines().count(), rows, "{cmd}: {none:?}");
        assert_eq!(none.lines().next(), full.lines().next(), "{cmd}");
    }
    let json = run_json(&["projects", "--format", "json"]);
    let text = csv_of(&["projects", "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(
        headers.iter().skip(12).collect::<Vec<_>>(),
        [
            "cost_usd",
            "first_at",
            "last_at",
            "tokens_reasoning",
            "sessions_claude",
            "sessions_codex",
            "sessions_gemini"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let projects = json.as_array().unwrap();
    assert_eq!(rows.len(), projects.len());
    for (row, p) in rows.iter().zip(projects) {
        let col = |name: &str| &row[headers.iter().position(|h| h == name).unwrap()];
        assert_eq!(
            col("tokens_reasoning"),
            p["tokens"]["reasoning"].to_string()
        );
        for agent in ["claude", "codex", "gemini"] {
            let n = p["sessions_by_agent"][agent].as_u64().unwrap_or(0);
            assert_eq!(col(&format!("sessions_{agent}")), n.to_string(), "{p}");
        }
    }
    assert!(rows.iter().any(|r| &r[15] != "0"), "some reasoning tokens");
}

#[test]
fn show_json_is_the_whole_unified_session() {
    let doc = run_json(&["show", "e5f6a7b8", "--format", "json"]);
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["agent"], "gemini");
    assert_eq!(doc["project"], "/home/dev/api-server");
    assert_eq!(doc["tokens"]["total"], 94_845);
    assert_eq!(doc["compactions"].as_array().unwrap().len(), 3);
    let superseded = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["superseded"] == true)
        .count();
    assert_eq!(superseded, 22);
    assert_eq!(doc["requests"].as_array().unwrap().len(), 10);
}

#[test]
fn show_text_lists_sub_agents_and_compactions() {
    let out = sessions().args(["show", "c4d5e6f7"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("sub-agents   agent-a5f3c2e1d0b9a8c7e"),
        "{text}"
    );
    let out = sessions().args(["show", "6f0d3c52"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("════ compaction (manual, 11.2k → 2.1k tokens) ════"),
        "{text}"
    );
}
