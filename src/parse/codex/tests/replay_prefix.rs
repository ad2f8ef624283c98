//! Rules 2–4 of the module doc: the replayed parent prefix of forks and sub-agents.

use super::*;

#[test]
fn fork_replay_burst_is_skipped_but_sets_the_token_baseline() {
    let s = parse_lines(
        NAME,
        &[
            meta("fork", json!({"forked_from_id": "parent"})),
            json!({"timestamp": "2026-03-01T10:00:00.500Z", "type": "session_meta",
               "payload": {"id": "parent", "cwd": "/elsewhere"}}),
            json!({"timestamp": "2026-03-01T10:00:00.600Z", "type": "event_msg",
               "payload": {"type": "user_message", "message": "parent prompt"}}),
            json!({"timestamp": "2026-03-01T10:00:00.700Z", "type": "event_msg", "payload": {"type": "token_count",
               "info": {"total_token_usage": usage(50000, 40000, 500, 100), "last_token_usage": usage(9000, 8000, 50, 0)}}}),
            user_event("00:03.000", "own prompt"),
            tc("00:04.000", (51000, 40500, 520, 100), (1000, 500, 20, 0)),
        ],
    );
    assert_eq!(s.id, "fork");
    assert_eq!(s.kind, SessionKind::Main);
    assert_eq!(s.parent_id.as_deref(), Some("parent"));
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/webapp"));
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].text(), "own prompt");
    assert_eq!(s.usage().total(), 1020);
    assert!(s.other_records.contains(&("codex:replayed".to_string(), 3)));
}

/// The copy of a parent written at 00:00.120–00:00.150 (one batch), then the child's own lines
/// in the same second.
fn copied_parent() -> Vec<Value> {
    vec![
        env(
            "00:00.120",
            "session_meta",
            json!({"id": "parent", "timestamp": "2026-02-28T09:00:00Z", "cwd": "/x"}),
        ),
        user_event("00:00.130", "old parent prompt"),
        asst("00:00.140", "old answer"),
        tc("00:00.150", (5000, 0, 50, 0), (5000, 0, 50, 0)),
    ]
}

#[test]
fn replay_burst_ends_at_a_gap_inside_its_second() {
    // An edited fork: its own turn starts 250 ms after the copy, still in the copy's second.
    let mut lines = vec![meta("fork", json!({"forked_from_id": "parent"}))];
    lines.extend(copied_parent());
    lines.extend([
        env(
            "00:00.400",
            "turn_context",
            json!({"cwd": "/x", "model": "gpt-5-codex"}),
        ),
        user_event("00:00.410", "edited prompt: use postgres instead"),
        user_item("00:00.420", "edited prompt: use postgres instead"),
        asst("00:04.000", "Switched to postgres."),
        tc("00:04.100", (10200, 0, 90, 0), (5200, 0, 40, 0)),
    ]);
    let s = parse_lines(NAME, &lines);
    let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
    assert_eq!(
        texts,
        vec![
            "edited prompt: use postgres instead",
            "Switched to postgres."
        ]
    );
    assert!(s.messages[0].is_human);
    assert_eq!(s.usage().total(), 5240);
    assert!(s.other_records.contains(&("codex:replayed".to_string(), 4)));

    // A sub-agent whose tool call comes 170 ms after the copy keeps it.
    let mut lines = vec![meta(
        "child",
        json!({"source": {"subagent": {"thread_spawn": {"parent_thread_id": "parent"}}}}),
    )];
    lines.extend(copied_parent());
    lines.extend([
        user_event("00:00.320", "Scan the repo"),
        call("00:00.900", "k1"),
        output("00:01.500", "k1", json!("a\nb")),
    ]);
    let s = parse_lines(NAME, &lines);
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.messages[0].text(), "Scan the repo");
    assert!(
        s.messages[1]
            .parts
            .iter()
            .any(|p| matches!(p, Part::ToolCall { id, .. } if id == "k1"))
    );
}

#[test]
fn replay_burst_ends_at_a_turn_minted_after_the_thread() {
    // Turn ids are UUIDv7: 019ca379-e280 is 2026-02-28T09:00Z (the parent's turn, copied),
    // 019ca8d7-2ef4 is 2026-03-01T10:00:00.500Z (after this thread's creation at 10:00:00).
    let turn =
        |ts: &str, id: &str| env(ts, "turn_context", json!({"model": "gpt-5", "turn_id": id}));
    let started = |ts: &str, id: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "task_started", "turn_id": id}),
        )
    };
    let mut lines = vec![meta("fork", json!({"forked_from_id": "parent"}))];
    lines.extend(copied_parent());
    lines.insert(
        2,
        started("00:00.121", "019ca379-e280-7000-8000-000000000001"),
    );
    lines.insert(3, turn("00:00.122", "019ca379-e280-7000-8000-000000000001"));
    lines.extend([
        started("00:00.151", "019ca8d7-2ef4-7000-8000-000000000001"),
        turn("00:00.152", "019ca8d7-2ef4-7000-8000-000000000001"),
        user_event("00:00.153", "own prompt"),
        asst("00:00.160", "own answer"),
    ]);
    let s = parse_lines(NAME, &lines);
    let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
    assert_eq!(texts, vec!["own prompt", "own answer"]);
    assert!(s.other_records.contains(&("codex:replayed".to_string(), 6)));
}

#[test]
fn subagent_ordinal_boundary_skips_copied_history() {
    let mut own = meta(
        "child",
        json!({"source": {"subagent": {"thread_spawn":
        {"parent_thread_id": "root", "depth": 1}}}, "subagent_history_start_ordinal": 3}),
    );
    own["ordinal"] = json!(0);
    let with_ord = |mut v: Value, o: u64| {
        v["ordinal"] = json!(o);
        v
    };
    let s = parse_lines(
        NAME,
        &[
            own,
            with_ord(user_event("00:00.100", "root prompt"), 1),
            with_ord(tc("00:00.200", (700, 0, 7, 0), (700, 0, 7, 0)), 2),
            with_ord(user_event("00:09.000", "child task"), 3),
            with_ord(tc("00:10.000", (1000, 0, 10, 0), (300, 0, 3, 0)), 4),
        ],
    );
    assert_eq!(s.kind, SessionKind::Subagent);
    assert_eq!(s.parent_id.as_deref(), Some("root"));
    let texts: Vec<String> = s.messages.iter().map(|m| m.text()).collect();
    assert_eq!(texts, vec!["child task"]);
    assert_eq!(s.usage().total(), 303);
}

#[test]
fn leading_same_second_token_counts_of_a_subagent_are_baseline() {
    let s = parse_lines(
        NAME,
        &[
            meta(
                "child2",
                json!({"source": {"subagent": "review"}, "parent_thread_id": "root"}),
            ),
            tc("00:01.100", (400, 0, 4, 0), (400, 0, 4, 0)),
            tc("00:01.200", (900, 0, 9, 0), (500, 0, 5, 0)),
            tc("00:05.000", (1000, 0, 10, 0), (100, 0, 1, 0)),
        ],
    );
    assert_eq!(s.kind, SessionKind::Subagent);
    assert_eq!(s.parent_id.as_deref(), Some("root"));
    assert_eq!(s.requests.len(), 1);
    assert_eq!(s.usage().total(), 101);

    // A main session is never second-guessed.
    let s = parse_lines(
        NAME,
        &[
            meta("main", json!({})),
            tc("00:01.100", (400, 0, 4, 0), (400, 0, 4, 0)),
            tc("00:01.200", (900, 0, 9, 0), (500, 0, 5, 0)),
        ],
    );
    assert_eq!(s.usage().total(), 909);
}
