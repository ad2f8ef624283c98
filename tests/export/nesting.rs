//! Sub-agents nested under their call; compactions as dividers.

use super::*;

pub(crate) fn export_md(id: &str) -> String {
    ok(sample().args(["export", id])).0
}

#[test]
fn subagents_are_nested_under_their_call() {
    // Claude inline sidechain (≤ 2.0.27): nested between the Task call and its result.
    let md = export_md("1b2c3d4e");
    let task = md.find("**Tool call: Task**").unwrap();
    let nested = md.find("**Sub-agent conversation** (4 messages").unwrap();
    let psql = md.find("> ```sh\n> psql -c '\\d users'").unwrap();
    let result = md[task..].find("\n<details>\n<summary>Result").unwrap() + task;
    assert!(task < nested && nested < psql && psql < result, "{md}");
    assert_eq!(
        shape(&md).turns.len(),
        4,
        "sidechain messages are not top-level turns"
    );
    // Claude sub-agent file: embedded under the Task call.
    let md = export_md("c4d5e6f7");
    let task = md.find("**Tool call: Task** · toolu_E1").unwrap();
    let child = md
        .find("**Sub-agent session agent-a5f3c2e1d0b9a8c7e (Explore)**")
        .unwrap();
    assert!(task < child);
    assert!(md.contains("> #### 1 · Task"), "{md}");
    assert!(md.contains("> src/users.ts:40: TODO paging"));
    // Codex spawn_agent → the child rollout.
    let md = export_md("019e461c");
    let spawn = md.find("**Tool call: spawn_agent**").unwrap();
    let child = md
        .find("**Sub-agent session 019e461d-9788-7d94-bf95-8a4b5c6d7e04 (explorer)**")
        .unwrap();
    assert!(spawn < child, "{md}");
    assert!(md.contains("> Unused: `left-pad`, `moment`."), "{md}");
    // Gemini: no spawning call recorded, so the child is appended in its own section.
    let md = export_md("e5f6a7b8");
    let s = shape(&md);
    assert_eq!(s.other_h2, ["Sub-agent sessions"]);
    assert!(md.contains("**Sub-agent session 7c9e6679-7425-40de-944b-e07fc1f90ae7**"));
    assert!(md.contains("> Credentials are checked in src/auth/verify.js"));
}

#[test]
fn compactions_are_dividers_with_the_full_summary() {
    let md = export_md("e5f6a7b8");
    for (n, what) in [
        (1, "manual · 227 → 207 tokens (estimated)"),
        (2, "auto · 348 → 255 tokens (estimated) · context 62% → 18%"),
        (3, "auto · 352 → 339 tokens (estimated)"),
    ] {
        let head = format!("**— Compaction {n} of 3 —** {what}");
        assert!(md.contains(&head), "{head} in\n{md}");
    }
    let doc: Value =
        serde_json::from_str(&ok(sample().args(["export", "-f", "json", "e5f6a7b8"])).0).unwrap();
    let text = shape(&md).text;
    for c in doc["compactions"].as_array().unwrap() {
        if let Some(summary) = c["summary"].as_str() {
            for line in summary.lines().filter(|l| !l.trim().is_empty()) {
                assert!(text.contains(line.trim()), "summary line {line:?} missing");
            }
        }
    }
    // Claude: recorded tokens, duration; the summary shown once (the isCompactSummary message
    // repeats it).
    let md = export_md("6f0d3c52");
    assert!(md.contains(
        "**— Compaction 1 of 1 —** manual · 11,250 → 2,100 tokens (recorded) · took 18.5 s"
    ));
    assert_eq!(md.matches("Current state: endpoint added").count(), 1);
    assert_eq!(shape(&md).turns.len(), 10);
    // Codex: both compactions.
    let md = export_md("019d4e99");
    assert!(md.contains("**— Compaction 1 of 2 —** auto · 12,500 → 9,200 tokens"));
    assert!(md.contains("**— Compaction 2 of 2 —** manual · 9,300 → 6,100 tokens"));
}
