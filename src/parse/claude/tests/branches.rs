//! Which records a rewind abandoned, which branch is current, and the messages one record
//! can hold.
use super::*;

#[test]
fn rewinds_are_superseded_but_parallel_tool_results_are_not() {
    let tu = |id: &str| json!([{"type": "tool_use", "id": id, "name": "Write", "input": {}}]);
    let tr = |id: &str| json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]);
    let s = main(&[
        user("u1", None, json!("write two files")),
        // A hook attachment between the prompt and the reply: its uuid keeps the chain.
        json!({"type": "attachment", "uuid": "h1", "parentUuid": "u1", "attachment": {"type": "hook_success"}}),
        asst("a1", Some("h1"), "m1", Some("r1"), tu("t1"), out(1)),
        asst("a2", Some("a1"), "m1", Some("r1"), tu("t2"), out(9)),
        user("r1", Some("a1"), tr("t1")), // sibling of a2: a parallel result
        user("r2", Some("a2"), tr("t2")),
        asst(
            "a3",
            Some("r2"),
            "m2",
            Some("r2"),
            text("both written"),
            out(2),
        ),
        user("p1", Some("a3"), json!("now delete them")),
        asst("a4", Some("p1"), "m3", Some("r3"), text("deleted"), out(2)),
        user("p2", Some("a3"), json!("no, rename them")), // rewind to a3
        asst("a5", Some("p2"), "m4", Some("r4"), text("renamed"), out(2)),
    ]);
    let sup: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.superseded)
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    assert_eq!(sup, ["p1", "m3"]);
    assert_eq!(s.usage().output, 9 + 2 + 2 + 2); // superseded turns were still paid for
}

#[test]
fn parallel_tool_results_stay_live_whichever_result_the_reply_follows() {
    // The reply hangs below the first piece's result; the second piece and its result form a
    // side branch that holds no turn of its own: the piece is the live response m1.
    let tu = |id: &str| json!([{"type": "tool_use", "id": id, "name": "Read", "input": {}}]);
    let tr = |id: &str| json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]);
    let s = main(&[
        user("u1", None, json!("read two files")),
        asst("a1", Some("u1"), "m1", Some("r1"), tu("t1"), out(1)),
        asst("a1b", Some("a1"), "m1", Some("r1"), tu("t2"), out(5)),
        user("r2", Some("a1b"), tr("t2")),
        user("r1", Some("a1"), tr("t1")),
        asst(
            "a2",
            Some("r1"),
            "m2",
            Some("r2"),
            text("both read"),
            out(2),
        ),
    ]);
    let sup: Vec<_> = s.messages.iter().filter(|m| m.superseded).collect();
    assert!(sup.is_empty(), "{sup:#?}");
    // A real rewind below such a piece is still abandoned.
    let s = main(&[
        user("u1", None, json!("read two files")),
        asst("a1", Some("u1"), "m1", Some("r1"), tu("t1"), out(1)),
        asst("a1b", Some("a1"), "m1", Some("r1"), tu("t2"), out(5)),
        user("r2", Some("a1b"), tr("t2")),
        asst(
            "x1",
            Some("r2"),
            "mx",
            Some("rx"),
            text("abandoned reply"),
            out(3),
        ),
        user("r1", Some("a1"), tr("t1")),
        asst(
            "a2",
            Some("r1"),
            "m2",
            Some("r2"),
            text("both read"),
            out(2),
        ),
    ]);
    let sup: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.superseded)
        .map(|m| m.id.as_deref().unwrap_or_default().to_string())
        .collect();
    assert!(sup.contains(&"mx".to_string()), "{sup:?}");
    assert!(!sup.contains(&"m1".to_string()), "{sup:?}");
}

#[test]
fn last_prompt_leaf_picks_the_branch() {
    let s = main(&[
        user("u1", None, json!("q")),
        asst("a1", Some("u1"), "m1", Some("r1"), text("x"), out(1)),
        user("b1", Some("a1"), json!("branch one")),
        user("b2", Some("a1"), json!("branch two")),
        json!({"type": "last-prompt", "lastPrompt": "branch one", "leafUuid": "b1"}),
    ]);
    let sup: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.superseded)
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    assert_eq!(sup, ["b2"]);
    // Without the hint, the latest record wins.
    let s = main(&[
        user("u1", None, json!("q")),
        asst("a1", Some("u1"), "m1", Some("r1"), text("x"), out(1)),
        user("b1", Some("a1"), json!("branch one")),
        user("b2", Some("a1"), json!("branch two")),
    ]);
    assert_eq!(s.messages.iter().filter(|m| m.superseded).count(), 1);
    assert!(s.messages[2].superseded);
}

#[test]
fn a_last_prompt_written_before_a_rewind_does_not_hold_the_branch() {
    // The hint named a2; then the user went back to a1 and went on from there.
    let s = main(&[
        user("u1", None, json!("q")),
        asst("a1", Some("u1"), "m1", Some("r1"), text("x"), out(1)),
        user("u2", Some("a1"), json!("first try")),
        asst("a2", Some("u2"), "m2", Some("r2"), text("y"), out(1)),
        json!({"type": "last-prompt", "lastPrompt": "first try", "leafUuid": "a2"}),
        user("v2", Some("a1"), json!("second try")),
        asst("b2", Some("v2"), "m3", Some("r3"), text("z"), out(1)),
    ]);
    let sup: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.superseded)
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    assert_eq!(sup, ["u2", "m2"]);
    // Records written after the hint below its leaf, or a parallel call's result above it,
    // leave it standing.
    let s = main(&[
        user("u1", None, json!("q")),
        asst(
            "a1",
            Some("u1"),
            "m1",
            Some("r1"),
            json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
                   {"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]),
            out(1),
        ),
        user(
            "r1",
            Some("a1"),
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        ),
        user("b1", Some("r1"), json!("branch one")),
        user("b2", Some("r1"), json!("branch two")),
        json!({"type": "last-prompt", "lastPrompt": "branch one", "leafUuid": "b1"}),
        user(
            "r2",
            Some("a1"),
            json!([{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]),
        ),
        asst(
            "c1",
            Some("b1"),
            "m2",
            Some("r2"),
            text("on branch one"),
            out(1),
        ),
    ]);
    let sup: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.superseded)
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    assert_eq!(sup, ["b2"]);
}

#[test]
fn text_beside_tool_results_is_a_user_message() {
    // Claude Code 2.1.x attaches what the user typed while a tool ran to the tool result
    // (real: corpus real/claude_compaction/entire-8c_cdd0fbae20_0_full.jsonl line 247).
    let mut side = user(
        "s1",
        None,
        json!([{"type": "tool_result", "tool_use_id": "t3", "content": "ok"},
               {"type": "text", "text": "sub-agent text"}]),
    );
    side["isSidechain"] = json!(true);
    let s = main(&[
        user("u1", None, json!("start")),
        asst(
            "a1",
            Some("u1"),
            "m1",
            Some("r1"),
            json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
            out(1),
        ),
        user(
            "c1",
            Some("a1"),
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "done"},
                   {"type": "text", "text": "also check the tests"}]),
        ),
        user(
            "c2",
            Some("c1"),
            json!([{"type": "tool_result", "tool_use_id": "t2", "content": "x"},
                   {"type": "text", "text": "[Request interrupted by user for tool use]"}]),
        ),
        user(
            "c3",
            Some("c2"),
            json!([{"type": "tool_result", "tool_use_id": "t4", "content": "y"},
                   {"type": "text", "text": "  "}]),
        ),
        side,
    ]);
    let shape: Vec<_> = s
        .messages
        .iter()
        .map(|m| (m.id.as_deref().unwrap(), m.role, m.is_human, m.text()))
        .collect();
    assert_eq!(
        shape,
        [
            ("u1", Role::User, true, "start".to_string()),
            ("m1", Role::Assistant, false, String::new()),
            ("c1", Role::Tool, false, String::new()),
            ("c1", Role::User, true, "also check the tests".to_string()),
            ("c2", Role::Tool, false, String::new()),
            (
                "c2",
                Role::User,
                false,
                "[Request interrupted by user for tool use]".to_string()
            ),
            // A blank block stays with the results.
            ("c3", Role::Tool, false, "  ".to_string()),
            ("s1", Role::Tool, false, String::new()),
            ("s1", Role::User, false, "sub-agent text".to_string()),
        ]
    );
    assert_eq!(s.messages[5].subtype.as_deref(), Some("interrupted"));
    assert!(
        matches!(&s.messages[2].parts[..], [Part::ToolResult { call_id, .. }] if call_id == "t1")
    );
    assert_eq!(s.counts().user_turns, 2);

    // The user message stands or falls with its record on a rewound branch.
    let s = main(&[
        user("u1", None, json!("start")),
        asst(
            "a1",
            Some("u1"),
            "m1",
            Some("r1"),
            json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
            out(1),
        ),
        user(
            "c1",
            Some("a1"),
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "done"},
                   {"type": "text", "text": "typed, then rewound"}]),
        ),
        user("u2", Some("u1"), json!("again")),
    ]);
    let sup: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.superseded)
        .map(|m| (m.id.as_deref().unwrap().to_string(), m.role))
        .collect();
    assert_eq!(
        sup,
        [
            ("m1".to_string(), Role::Assistant),
            ("c1".to_string(), Role::Tool),
            ("c1".to_string(), Role::User)
        ]
    );
}

#[test]
fn odd_graphs_terminate() {
    // Self-parents, two-node cycles, dangling parents, duplicate placeholder uuids.
    let s = main(&[
        user("x", Some("x"), json!("a")),
        user("p", Some("q"), json!("b")),
        user("q", Some("p"), json!("c")),
        user("d", Some("missing"), json!("d")),
        user("x", Some("p"), json!("e")),
    ]);
    assert_eq!(s.messages.len(), 5);
    assert!(s.messages.iter().all(|m| !m.superseded));
}
