//! A response counted once: a sub-agent's replay of its parent's, copies of a session in
//! several files, and which file a row's figures come from.

use super::*;

#[test]
fn sessions_count_a_replayed_response_once() {
    let doc = usage(&["session", "--agent", "claude"]);
    let by_id = totals_by(&doc, "session_id");
    // agent-7c1e9a2b replays C's msg_C1 (9 + 7,000 + 1,100 + 55 = 8,164): it is C's.
    assert_eq!(by_id["agent-7c1e9a2b"], 16_530 - 8_164);
    assert_eq!(by_id["9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a520"], 24_985);
    assert_eq!(total(&doc), 178_245);
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
    // Each warning whole: a long one is wrapped to COLUMNS, its continuations indented.
    let err = String::from_utf8(out.stderr).unwrap().replace("\n  ", " ");
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
