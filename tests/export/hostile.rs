//! Hostile content stays text; the trimming options.

use super::*;

pub(crate) const NASTY_ID: &str = "0badc0de-1111-4222-8333-444455556666";

pub(crate) fn rec(kind: &str, uuid: &str, time: &str, message: Value) -> String {
    serde_json::json!({
        "type": kind,
        "sessionId": NASTY_ID,
        "uuid": uuid,
        "parentUuid": null,
        "isSidechain": false,
        "cwd": "/home/dev/evil",
        "version": "2.1.90",
        "timestamp": format!("2026-05-01T10:{time}.000Z"),
        "message": message,
    })
    .to_string()
}

const USER_NASTY: &str = "# heading\n- list item\n1. ordered\n> quote\n<script>alert('x')</script>\n[link](http://example.com) ![img](http://example.com/x.png) <http://auto.example>\n*emph* _u_ `code` &amp; | a | b |\n    indented\n---\n\n````\nnot closed on purpose\n# inside the fence";
const ASSISTANT_NASTY: &str = "Here is code:\n```rust\nfn main() { println!(\"```\"); }\n```\n<div onclick=x>html</div>\n## not a turn";
const OUTPUT_NASTY: &str = "```\n</details>\n<script>bad()</script>\n# still output\n``````";

/// A Claude session with hostile text everywhere, plus a long output and a thinking block.
pub(crate) fn nasty_session(dir: &Path) -> PathBuf {
    let long: Vec<String> = (1..=500).map(|i| format!("line {i}")).collect();
    let lines = [
        rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": USER_NASTY}),
        ),
        rec(
            "assistant",
            "a1",
            "00:05",
            serde_json::json!({"id": "msg_1", "role": "assistant", "model": "claude-x",
                "content": [
                    {"type": "thinking", "thinking": "</details><b>bold?</b>"},
                    {"type": "text", "text": ASSISTANT_NASTY},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash<b>", "input": {"command": "echo '```' && cat <<EOF\n# x\nEOF"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"file_path": "/x"}}
                ],
                "usage": {"input_tokens": 1, "output_tokens": 2}}),
        ),
        rec(
            "user",
            "u2",
            "00:06",
            serde_json::json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": OUTPUT_NASTY, "is_error": true},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": long.join("\n")}
            ]}),
        ),
        rec(
            "user",
            "u3",
            "00:10",
            serde_json::json!({"role": "user", "content": "last prompt"}),
        ),
    ];
    let path = dir.join(format!("{NASTY_ID}.jsonl"));
    write(&path, &(lines.join("\n") + "\n"));
    path
}

#[test]
fn hostile_content_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = nasty_session(dir.path());
    let rendered = ok(sessions().env("HOME", dir.path()).arg("export").arg(&file)).0;
    let md = ok(sessions()
        .env("HOME", dir.path())
        .args(["export", "--literal"])
        .arg(&file))
    .0;
    let doc: Value = serde_json::from_str(
        &ok(sessions()
            .env("HOME", dir.path())
            .args(["export", "-f", "json"])
            .arg(&file))
        .0,
    )
    .unwrap();
    check_export("nasty", &rendered, &doc, false);
    check_export("nasty --literal", &md, &doc, true);
    // Rendered, the Markdown is Markdown (below the turn headings), the HTML is text.
    let r = shape(&rendered);
    assert_eq!(r.turns.len(), 3, "{:?}", r.turns);
    assert!(r.nested.contains(&"heading".to_string()), "{:?}", r.nested);
    // `<div …>` opens an HTML block that runs to the next blank line: the `## not a turn` under
    // it is part of the block, shown as text like the rest of it.
    assert!(r.text.contains("\n## not a turn"), "{rendered}");
    assert!(r.text.contains("<script>alert('x')</script>"), "{rendered}");
    assert!(r.text.contains("<div onclick=x>html</div>"), "{rendered}");
    assert_eq!(
        r.targets,
        [
            "http://example.com",
            "http://example.com/x.png",
            "http://auto.example"
        ]
    );
    let s = shape(&md);
    // Three turns: the prompt, the reply (with both results under their calls), the last prompt.
    assert_eq!(s.turns.len(), 3, "{:?}", s.turns);
    assert!(s.turns[2].starts_with("3 · User"), "{:?}", s.turns);
    for literal in [
        "# heading",
        "- list item",
        "1. ordered",
        "> quote",
        "<script>alert('x')</script>",
        "[link](http://example.com)",
        "<http://auto.example>",
        "*emph* _u_ `code` &amp; | a | b |",
        "<div onclick=x>html</div>",
        "## not a turn",
        "</details><b>bold?</b>",
    ] {
        assert!(
            s.text.contains(literal),
            "{literal:?} not literal in:\n{md}"
        );
    }
    // Code stays code: the fence in the reply, the shell command, the hostile output.
    assert!(s.code_blocks.contains(&"rust".to_string()));
    assert!(s.code_blocks.contains(&"sh".to_string()));
    assert!(s.text.contains("fn main() { println!(\"```\"); }"));
    assert!(
        s.text
            .contains("</details>\n<script>bad()</script>\n# still output\n``````")
    );
    // The failed call is marked, the long output cut to 200 lines with a note.
    assert!(md.contains("<summary>✗ Error · 5 lines</summary>"), "{md}");
    assert!(md.contains("<details open>"));
    assert!(s.text.contains("line 200\n") && !s.text.contains("line 201"));
    assert!(s.text.contains("… 300 more lines"), "{}", s.text);
    assert!(md.contains("<summary>Result · 500 lines</summary>"));

    // The HTML page escapes all of it.
    let html = ok(sessions()
        .env("HOME", dir.path())
        .args(["export", "-f", "html"])
        .arg(&file))
    .0;
    assert!(!html.contains("<script"), "raw script in HTML");
    assert!(!html.contains("<div onclick"));
    assert!(!html.contains("<b>"));
    assert!(html.contains("&lt;script&gt;alert("));
    assert_eq!(html.matches("<section class=\"turn").count(), 3);
}

#[test]
fn trimming_options() {
    let dir = tempfile::tempdir().unwrap();
    let file = nasty_session(dir.path());
    let md = ok(sessions()
        .env("HOME", dir.path())
        .args([
            "export",
            "--no-thinking",
            "--no-tools",
            "--max-output-lines",
            "0",
        ])
        .arg(&file))
    .0;
    assert!(!md.contains("Thinking"));
    assert!(!md.contains("Tool call"));
    assert!(!md.contains("line 500"));
    assert!(md.contains("3 · User"));
    // The header counts the session's calls and says the transcript does not show them;
    // "omitted" would read as if the count were.
    assert!(
        md.contains("· 2 tool calls (1 failed), not in this transcript ·"),
        "{md}"
    );
    assert!(
        md.contains(" · thinking, tool calls and results left out\n"),
        "{md}"
    );
    assert!(!md.contains("omitted"), "{md}");
    // With the default cut, still no word of cut outputs: there are none in the transcript.
    let md = ok(sessions()
        .env("HOME", dir.path())
        .args(["export", "--no-tools"])
        .arg(&file))
    .0;
    assert!(md.contains(" · tool calls and results left out\n"), "{md}");
    assert!(!md.contains("cut to"), "{md}");
    let all = ok(sessions()
        .env("HOME", dir.path())
        .args(["export", "--max-output-lines", "0"])
        .arg(&file))
    .0;
    assert!(all.contains("line 500") && !all.contains("more lines"));
    // JSON drops the parts too, but keeps every message (indices stay valid).
    let doc: Value = serde_json::from_str(
        &ok(sessions()
            .env("HOME", dir.path())
            .args(["export", "-f", "json", "--no-tools"])
            .arg(&file))
        .0,
    )
    .unwrap();
    assert_eq!(doc["messages"].as_array().unwrap().len(), 4);
    assert!(!doc.to_string().contains("\"type\":\"tool_call\""));
    assert!(!doc.to_string().contains("\"type\":\"tool_result\""));
}

#[test]
fn character_references_show_as_recorded() {
    // `&amp; &lt;b&gt;` and a literal `<b>` are two different records: rendered (Markdown or
    // HTML) they must not read the same.
    let dir = tempfile::tempdir().unwrap();
    let prompt = "&amp; &lt;b&gt; next to <b>bold?</b>";
    let reply = "&#60;i&#62; next to <i>x</i>";
    let lines = [
        rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": prompt}),
        ),
        rec(
            "assistant",
            "a1",
            "00:05",
            serde_json::json!({"id": "msg_1", "role": "assistant", "model": "claude-x",
                "content": [{"type": "text", "text": reply}],
                "usage": {"input_tokens": 1, "output_tokens": 2}}),
        ),
    ];
    let file = dir.path().join(format!("{NASTY_ID}.jsonl"));
    write(&file, &(lines.join("\n") + "\n"));
    let export = |args: &[&str]| {
        ok(sessions()
            .env("HOME", dir.path())
            .arg("export")
            .args(args)
            .arg(&file))
        .0
    };
    for md in [export(&[]), export(&["--literal"])] {
        let text = shape(&md).text;
        assert!(text.contains(prompt), "{text}");
        assert!(text.contains(reply), "{text}");
    }
    let html = export(&["-f", "html"]);
    assert!(
        html.contains("&amp;amp; &amp;lt;b&amp;gt; next to &lt;b&gt;bold?&lt;/b&gt;"),
        "{html}"
    );
    assert!(
        html.contains("&amp;#60;i&amp;#62; next to &lt;i&gt;x&lt;/i&gt;"),
        "{html}"
    );
}

/// A lone CR ends a line in the rendering (CommonMark reads it so): the result's line count
/// and `--max-output-lines` count it too, and one line cut is "1 more line".
#[test]
fn output_lines_are_counted_as_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        rec(
            "assistant",
            "a1",
            "00:00",
            serde_json::json!({"id": "msg_1", "role": "assistant", "model": "claude-x",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "progress"}},
                    {"type": "mystery_block", "x": 1}
                ],
                "usage": {"input_tokens": 1, "output_tokens": 2}}),
        ),
        rec(
            "user",
            "u1",
            "00:01",
            serde_json::json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "10%\r20%\r30%\ndone\rok"}
            ]}),
        ),
    ];
    let file = dir.path().join(format!("{NASTY_ID}.jsonl"));
    write(&file, &(lines.join("\n") + "\n"));
    let export = |max: &str| {
        ok(sessions()
            .env("HOME", dir.path())
            .args(["export", "--max-output-lines", max])
            .arg(&file))
        .0
    };
    let all = export("0");
    assert!(all.contains("Result · 5 lines"), "{all}");
    let cut = export("4");
    assert!(
        cut.contains("… 1 more line (2 B) cut by --max-output-lines 4"),
        "{cut}"
    );
    assert!(!cut.contains("\rok") && !cut.contains("\nok"), "{cut}");
    // The unrecognised block, pretty JSON of its 4 lines, loses its last.
    let raw = export("3");
    assert!(raw.contains("… 1 more line cut"), "{raw}");
}
