//! Human prompts and their copies: images, retyped prompts, harness events, and the notices
//! that say why a turn has no answer.

use super::*;

#[test]
fn errors_and_aborted_turns_are_notices_in_the_transcript() {
    let s = parse_lines(
        NAME,
        &[
            meta("0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", json!({})),
            user_event("00:01.000", "run the tests"),
            user_item("00:01.001", "run the tests"),
            env(
                "00:02.000",
                "event_msg",
                json!({"type": "error", "message": "stream disconnected before completion",
                       "codex_error_info": "other"}),
            ),
            env(
                "00:03.000",
                "event_msg",
                json!({"type": "turn_aborted", "reason": "interrupted"}),
            ),
            env(
                "00:04.000",
                "event_msg",
                json!({"type": "task_complete", "last_agent_message": null,
                       "error": {"message": "usage limit reached"}}),
            ),
            // Nothing to say: tallied, as before.
            env(
                "00:05.000",
                "event_msg",
                json!({"type": "task_complete", "last_agent_message": "done"}),
            ),
            env(
                "00:06.000",
                "event_msg",
                json!({"type": "error", "message": ""}),
            ),
        ],
    );
    let notices: Vec<(Role, Option<&str>, String, bool)> = s
        .messages
        .iter()
        .skip(1)
        .map(|m| (m.role, m.subtype.as_deref(), m.text(), m.is_human))
        .collect();
    assert_eq!(
        notices,
        [
            (
                Role::System,
                Some("error"),
                "stream disconnected before completion".to_string(),
                false
            ),
            (
                Role::System,
                Some("turn_aborted"),
                "Turn aborted: interrupted".to_string(),
                false
            ),
            (
                Role::System,
                Some("error"),
                "usage limit reached".to_string(),
                false
            ),
        ]
    );
    assert_eq!(s.counts().user_turns, 1);
}

const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn image_copy(ts: &str, content: Value) -> Value {
    env(
        ts,
        "response_item",
        json!({"type": "message", "role": "user", "content": content}),
    )
}
fn image_event(ts: &str, text: &str, path: &str) -> Value {
    env(
        ts,
        "event_msg",
        json!({"type": "user_message", "message": text, "images": [], "local_images": [path]}),
    )
}

/// The one human message of `s`, which must be the prompt with one decoded PNG.
fn assert_one_prompt_with_png(s: &Session, text: &str) {
    let humans: Vec<&Message> = s.messages.iter().filter(|m| m.role == Role::User).collect();
    assert_eq!(humans.len(), 1, "{:?}", s.messages);
    let m = humans[0];
    assert!(m.is_human);
    assert_eq!(m.subtype, None);
    assert_eq!(m.text(), text);
    let images: Vec<&Part> = m
        .parts
        .iter()
        .filter(|p| !matches!(p, Part::Text { .. }))
        .collect();
    assert_eq!(images.len(), 1, "{:?}", m.parts);
    match images[0] {
        Part::Image {
            media_type, data, ..
        } => {
            assert_eq!(media_type.as_deref(), Some("image/png"));
            assert_eq!(data.as_deref(), Some(PIXEL));
        }
        other => panic!("not an image: {other:?}"),
    }
}

#[test]
fn image_wrapper_tags_do_not_stop_a_copy_pairing_with_its_event() {
    let url = format!("data:image/png;base64,{PIXEL}");
    let s = parse_lines(
        NAME,
        &[
            meta("img1", json!({})),
            image_copy(
                "00:01.000",
                json!([{"type": "input_text", "text": "<image name=[Image #1]>"},
                       {"type": "input_image", "image_url": url},
                       {"type": "input_text", "text": "</image>"},
                       {"type": "input_text", "text": "what is in [Image #1]"}]),
            ),
            image_event("00:01.000", "what is in [Image #1]", "/tmp/a.png"),
            asst("00:02.000", "A pixel."),
        ],
    );
    assert_one_prompt_with_png(&s, "what is in [Image #1]");
    assert_eq!(s.messages.len(), 2);

    // An image with no text: the wrapped copy is not a harness tag block.
    let s = parse_lines(
        NAME,
        &[
            meta("img2", json!({})),
            image_copy(
                "00:01.000",
                json!([{"type": "input_text", "text": "<image name=[Image #1]>"},
                       {"type": "input_image", "image_url": url},
                       {"type": "input_text", "text": "</image>"}]),
            ),
            image_event("00:01.000", "", "/tmp/a.png"),
        ],
    );
    assert_one_prompt_with_png(&s, "");
}

#[test]
fn a_paired_prompt_keeps_the_decoded_image_of_its_copy() {
    let url = format!("data:image/png;base64,{PIXEL}");
    let copy = || {
        image_copy(
            "00:02.000",
            json!([{"type": "input_text", "text": "look at this screenshot"},
                   {"type": "input_image", "image_url": url}]),
        )
    };
    let event = || image_event("00:02.000", "look at this screenshot", "/tmp/shot.png");
    // Copy first, then event (0.63), and event first, then copy (0.60).
    for lines in [[copy(), event()], [event(), copy()]] {
        let mut all = vec![meta("img3", json!({}))];
        all.extend(lines);
        let s = parse_lines(NAME, &all);
        assert_one_prompt_with_png(&s, "look at this screenshot");
    }

    // No image data in the copy: the event's local path is kept.
    for order in [false, true] {
        let mut all = vec![meta("img4", json!({}))];
        let (a, b) = (
            user_item("00:02.000", "see file"),
            image_event("00:02.000", "see file", "/tmp/f.png"),
        );
        all.extend(if order { [a, b] } else { [b, a] });
        let s = parse_lines(NAME, &all);
        assert_eq!(s.messages.len(), 1);
        assert!(s.messages[0].parts.iter().any(
            |p| matches!(p, Part::Unknown { kind, raw } if kind == "local_image" && raw == "/tmp/f.png")
        ));
    }
}

#[test]
fn the_same_prompt_retyped_after_an_interrupt_is_a_second_turn() {
    let aborted = || {
        env(
            "00:03.000",
            "event_msg",
            json!({"type": "turn_aborted", "reason": "interrupted"}),
        )
    };
    // Event before its copy (0.58, 0.14x) and copy before its event; with the abort recorded
    // (its notice sits between the prompts) and without (nothing between them).
    for (event_first, abort) in [(true, true), (false, true), (true, false), (false, false)] {
        let turn = |ts: &str| {
            let (e, c) = (
                user_event(ts, "run the tests"),
                user_item(ts, "run the tests"),
            );
            if event_first { [e, c] } else { [c, e] }
        };
        let mut lines = vec![meta("rt", json!({}))];
        lines.extend(turn("00:01.000"));
        if abort {
            lines.push(aborted());
        }
        lines.extend(turn("00:09.000"));
        lines.push(asst("00:12.000", "All green."));
        let s = parse_lines(NAME, &lines);
        let humans: Vec<&Message> = s.messages.iter().filter(|m| m.is_human).collect();
        assert_eq!(humans.len(), 2, "{:?}", s.messages);
        assert!(
            s.messages
                .iter()
                .all(|m| m.subtype.as_deref() != Some("context"))
        );
        assert!(
            s.messages
                .iter()
                .all(|m| m.subtype.as_deref() != Some("model_input"))
        );
    }
}

#[test]
fn a_prompt_and_its_paginated_item_of_one_turn_are_one_prompt() {
    let completed = |ts: &str, text: &str, turn: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "item_completed", "turn_id": turn, "item": {"type": "UserMessage",
                   "id": "u1", "content": [{"type": "text", "text": text}]}}),
        )
    };
    let started = |ts: &str, turn: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "task_started", "turn_id": turn}),
        )
    };
    let s = parse_lines(
        NAME,
        &[
            meta("pg", json!({})),
            started("00:01.000", "t1"),
            user_event("00:01.001", "go"),
            completed("00:01.002", "go", "t1"),
            started("00:05.000", "t2"),
            completed("00:05.001", "go", "t2"),
            user_event("00:05.002", "go"),
        ],
    );
    let humans = s.messages.iter().filter(|m| m.is_human).count();
    assert_eq!(humans, 2, "{:?}", s.messages);

    // The model-visible copy first: the event merges with it, and the item with both.
    let s = parse_lines(
        NAME,
        &[
            meta("pg2", json!({})),
            started("00:01.000", "t1"),
            user_item("00:01.001", "go"),
            user_event("00:01.002", "go"),
            completed("00:01.003", "go", "t1"),
        ],
    );
    assert_eq!(s.messages.len(), 1, "{:?}", s.messages);
    assert!(s.messages[0].is_human);
}

#[test]
fn harness_user_message_events_are_not_human_turns() {
    let ev = |ts: &str, kind: &str, text: &str| {
        env(
            ts,
            "event_msg",
            json!({"type": "user_message", "kind": kind, "message": text}),
        )
    };
    let env_text = "<environment_context><cwd>/Users/x/dev</cwd></environment_context>";
    let instr = "<user_instructions>be terse</user_instructions>";
    // 0.36: the events alone, then with their copies in either order.
    let events = || {
        vec![
            ev("00:01.000", "environment_context", env_text),
            ev("00:01.000", "user_instructions", instr),
        ]
    };
    let copies = || {
        vec![
            user_item("00:01.000", env_text),
            user_item("00:01.000", instr),
        ]
    };
    for variant in 0..3 {
        let mut lines = vec![meta("h4", json!({}))];
        match variant {
            0 => lines.extend(events()),
            1 => {
                lines.extend(events());
                lines.extend(copies());
            }
            _ => {
                lines.extend(copies());
                lines.extend(events());
            }
        }
        lines.push(ev("00:02.000", "plain", "why is the loader slow"));
        let s = parse_lines(NAME, &lines);
        let subtypes: Vec<Option<&str>> = s.messages.iter().map(|m| m.subtype.as_deref()).collect();
        assert_eq!(
            subtypes,
            vec![Some("environment_context"), Some("instructions"), None],
            "variant {variant}"
        );
        let humans: Vec<String> = s
            .messages
            .iter()
            .filter(|m| m.is_human)
            .map(|m| m.text())
            .collect();
        assert_eq!(humans, vec!["why is the loader slow"]);
    }
}
