//! `sessions export`: Markdown structure (parsed back with pulldown-cmark) over the sample home
//! and the public corpus, hostile content, HTML in headless Chromium, JSON/JSONL, redaction,
//! output safety (`--force`, stores), sub-agents and compactions.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use common::sessions;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag, TagEnd};
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");

fn sample() -> Command {
    let mut c = sessions();
    c.arg("--home").arg(SAMPLE);
    c
}

fn ok(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "failed: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Markdown structure.

/// What a parsed export looks like.
#[derive(Debug, Default)]
struct Shape {
    h1: Vec<String>,
    /// Top-level turn headings (`N · Role …`), in order.
    turns: Vec<String>,
    /// Other H2 headings.
    other_h2: Vec<String>,
    /// H3–H6 headings (nested sub-agent turns).
    nested: Vec<String>,
    /// Raw HTML, trimmed.
    html: Vec<String>,
    links: usize,
    /// Every link target.
    targets: Vec<String>,
    images: usize,
    lists: usize,
    code_blocks: Vec<String>,
    /// All text, breaks as newlines, no-break spaces as spaces.
    text: String,
    /// All text, with a space at every event boundary (for word checks).
    spaced: String,
    first_block_is_h1: bool,
}

fn shape(md: &str) -> Shape {
    let mut s = Shape::default();
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut first = true;
    for e in Parser::new_ext(md, sessions::export::markdown::prose::options()) {
        match &e {
            Event::Text(t) | Event::Code(t) => s.spaced.push_str(t),
            Event::Start(Tag::Link { dest_url, .. }) => s.spaced.push_str(&format!(" {dest_url} ")),
            _ => s.spaced.push(' '),
        }
        if first {
            s.first_block_is_h1 = matches!(
                e,
                Event::Start(Tag::Heading {
                    level: HeadingLevel::H1,
                    ..
                })
            );
            first = false;
        }
        match e {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => {
                s.text.push('\n');
                let (level, text) = heading.take().unwrap();
                match level {
                    HeadingLevel::H1 => s.h1.push(text),
                    HeadingLevel::H2 => {
                        let numbered = text.split(" · ").next().is_some_and(|n| {
                            !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())
                        });
                        if numbered {
                            s.turns.push(text)
                        } else {
                            s.other_h2.push(text)
                        }
                    }
                    _ => s.nested.push(text),
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
                s.text.push_str(&t.replace('\u{a0}', " "));
            }
            Event::SoftBreak | Event::HardBreak => s.text.push('\n'),
            Event::End(TagEnd::Paragraph) | Event::End(TagEnd::CodeBlock) => s.text.push('\n'),
            Event::Html(h) | Event::InlineHtml(h) => s.html.push(h.trim().to_string()),
            Event::Start(Tag::Link { dest_url, .. }) => {
                s.links += 1;
                s.text.push_str(&format!(" {dest_url} "));
                s.targets.push(dest_url.to_string());
            }
            Event::Start(Tag::Image { .. }) => s.images += 1,
            Event::Start(Tag::List(_)) => s.lists += 1,
            Event::Start(Tag::CodeBlock(kind)) => s.code_blocks.push(match kind {
                CodeBlockKind::Fenced(i) => i.to_string(),
                CodeBlockKind::Indented => "<indented>".into(),
            }),
            _ => {}
        }
    }
    s
}

/// The only raw HTML an export may contain: its own `<details>` blocks.
fn html_is_ours(h: &str) -> bool {
    h == "<details>"
        || h == "<details open>"
        || h == "</details>"
        || (h.starts_with("<summary>")
            && h.ends_with("</summary>")
            && !h["<summary>".len()..h.len() - "</summary>".len()].contains(['<', '>']))
}

/// Structural invariants of every export, plus faithfulness to the session's JSON. `literal`:
/// the export was made with `--literal` (message text escaped, not rendered).
fn check_export(name: &str, md: &str, doc: &Value, literal: bool) {
    let s = shape(md);
    assert!(s.first_block_is_h1, "{name}: does not start with its title");
    assert_eq!(s.h1.len(), 1, "{name}: H1s {:?}", s.h1);
    for (i, t) in s.turns.iter().enumerate() {
        assert!(
            t.starts_with(&format!("{} · ", i + 1)),
            "{name}: turn {} is {t:?}",
            i + 1
        );
    }
    // The table of contents stays the turns': message headings are demoted below them.
    for h in &s.other_h2 {
        assert!(
            h == "Sub-agent sessions" || h == "Sub-agent conversation",
            "{name}: stray H2 {h:?}"
        );
    }
    if literal {
        for h in &s.nested {
            assert!(
                h.split(" · ").next().unwrap().parse::<usize>().is_ok()
                    || h.starts_with("Sub-agent "),
                "{name}: stray heading {h:?}"
            );
        }
        assert_eq!(s.links, 0, "{name}: links");
        assert_eq!(s.lists, 1, "{name}: only the metadata list");
    }
    for h in &s.html {
        assert!(html_is_ours(h), "{name}: stray HTML {h:?}");
    }
    for t in &s.targets {
        let t = t.to_ascii_lowercase();
        assert!(
            t.starts_with("https://") || t.starts_with("http://") || t.starts_with("mailto:"),
            "{name}: link to {t}"
        );
    }
    assert_eq!(s.images, 0, "{name}: images");
    assert!(
        !s.code_blocks.contains(&"<indented>".to_string()),
        "{name}: indented code block"
    );

    let messages = doc["messages"].as_array().unwrap();
    // Every human prompt of the main thread is a `User` turn.
    let humans = messages
        .iter()
        .filter(|m| {
            m["is_human"] == true
                && m.get("sidechain").is_none()
                && m["parts"].as_array().is_some_and(|p| {
                    p.iter().any(|p| {
                        p["type"] != "text" || !p["text"].as_str().unwrap().trim().is_empty()
                    })
                })
        })
        .count();
    let user_turns = s.turns.iter().filter(|t| t.contains(" · User")).count();
    assert_eq!(user_turns, humans, "{name}: user turns {:?}", s.turns);

    // Literal: every line of every text (outside code fences) and of every compaction summary
    // renders as written. Rendered: every word of it is in the page (Markdown syntax goes, the
    // words stay; link targets count as shown).
    let normal = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let rendered = normal(&s.text);
    let words: std::collections::HashSet<&str> = s
        .spaced
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    // Each literal line is a line of the rendering (hard breaks); the substring search is the
    // fallback, so that large files are checked in linear time.
    let lines: std::collections::HashSet<String> = s.text.lines().map(normal).collect();
    let mut texts: Vec<&str> = Vec::new();
    for m in messages {
        for p in m["parts"].as_array().unwrap() {
            if p["type"] == "text" || p["type"] == "thinking" {
                texts.push(p["text"].as_str().unwrap());
            }
        }
    }
    for c in doc["compactions"].as_array().unwrap() {
        if let Some(t) = c["summary"].as_str() {
            texts.push(t);
        }
    }
    for t in texts {
        let t = sessions::render::text::terminal_safe(t);
        for line in t.lines() {
            let l = line.trim();
            if l.is_empty() || l.starts_with("```") || l.starts_with("~~~") {
                continue;
            }
            if literal {
                let l = normal(l);
                assert!(
                    lines.contains(&l) || rendered.contains(&l),
                    "{name}: line not rendered literally: {l:?}"
                );
            } else if !is_reference_definition(l) {
                for word in without_entities(l)
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| w.chars().count() > 1)
                {
                    assert!(words.contains(word), "{name}: {word:?} of {l:?} lost");
                }
            }
        }
    }
}

/// `[label]: url`: a link reference definition, which Markdown shows nowhere.
fn is_reference_definition(line: &str) -> bool {
    line.starts_with('[') && line.find("]:").is_some_and(|i| i > 1)
}

/// A line without its character references (`&amp;` renders as `&`).
fn without_entities(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let name = tail.find(';').filter(|&j| {
            j > 0
                && tail[..j]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '#')
        });
        match name {
            Some(j) => rest = &tail[j + 1..],
            None => {
                out.push('&');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn markdown_structure_over_the_sample_home() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("md");
    ok(sample()
        .args([
            "export",
            "--all",
            "--kind",
            "all",
            "--max-output-lines",
            "0",
            "-o",
        ])
        .arg(&out));
    let list: Vec<Value> =
        serde_json::from_str(&ok(sample().args(["list", "--kind", "all", "--format", "json"])).0)
            .unwrap();
    let mut checked = 0;
    for rec in &list {
        let path = rec["path"].as_str().unwrap();
        let md = ok(sample().args(["export", "--max-output-lines", "0", path])).0;
        let doc: Value =
            serde_json::from_str(&ok(sample().args(["export", "-f", "json", path])).0).unwrap();
        check_export(path, &md, &doc, false);
        let md = ok(sample().args(["export", "--literal", "--max-output-lines", "0", path])).0;
        check_export(path, &md, &doc, true);
        checked += 1;
    }
    assert_eq!(checked, 26, "every sample session");
    // One file per session plus the index.
    let files = fs::read_dir(&out).unwrap().count();
    assert_eq!(files, list.len() + 1);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn markdown_structure_over_the_corpus() {
    let corpus = Path::new(env!("SESSIONS_CORPUS_DIR"));
    let home = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = walk(corpus)
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            (n.ends_with(".jsonl") || n.ends_with(".json")) && !n.ends_with(".meta.json")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 14, "corpus files: {files:?}");
    for f in &files {
        let mut cmd = sessions();
        cmd.env("HOME", home.path())
            .args(["export", "--max-output-lines", "0"])
            .arg(f);
        let md = ok(&mut cmd).0;
        let mut cmd = sessions();
        cmd.env("HOME", home.path())
            .args(["export", "-f", "json"])
            .arg(f);
        let doc: Value = serde_json::from_str(&ok(&mut cmd).0).unwrap();
        check_export(&f.display().to_string(), &md, &doc, false);
        // The default cut keeps the structure intact too, and so does --literal.
        let mut cmd = sessions();
        cmd.env("HOME", home.path())
            .args(["export", "--literal", "--max-output-lines", "3"])
            .arg(f);
        check_export(&f.display().to_string(), &ok(&mut cmd).0, &doc, true);
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Hostile content.

const NASTY_ID: &str = "0badc0de-1111-4222-8333-444455556666";

fn rec(kind: &str, uuid: &str, time: &str, message: Value) -> String {
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
fn nasty_session(dir: &Path) -> PathBuf {
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

// ---------------------------------------------------------------------------------------------
// Sub-agents and compactions.

fn export_md(id: &str) -> String {
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

// ---------------------------------------------------------------------------------------------
// JSON and JSONL.

#[test]
fn json_and_jsonl_carry_schema_version() {
    let json: Value =
        serde_json::from_str(&ok(sample().args(["export", "-f", "json", "019d4e99"])).0).unwrap();
    let show: Value =
        serde_json::from_str(&ok(sample().args(["show", "-f", "json", "019d4e99"])).0).unwrap();
    assert_eq!(json, show, "export json is the show document");
    assert_eq!(json["schema_version"], 1);
    let jsonl = ok(sample().args(["export", "-f", "jsonl", "019d4e99"])).0;
    let recs: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), json["messages"].as_array().unwrap().len());
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r["schema_version"], 1);
        assert_eq!(r["session_id"], "019d4e99-de40-7b52-9d63-6e2f3a4b5c02");
        assert_eq!(r["agent"], "codex");
        assert_eq!(r["index"], i);
        assert_eq!(r["role"], json["messages"][i]["role"]);
    }
    let marks: Vec<&Value> = recs.iter().filter_map(|r| r.get("compaction")).collect();
    assert_eq!(marks.len(), 2);
    assert_eq!(marks[0]["tokens_before"], 12500);
    // Several sessions stream as JSONL without -o.
    let all = ok(sample().args(["export", "--all", "--agent", "codex", "-f", "jsonl"])).0;
    let ids: std::collections::HashSet<String> = all
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["session_id"].to_string())
        .collect();
    assert_eq!(ids.len(), 8, "main codex sessions");
}

/// Several sessions on stdout are rendered side by side (`export::stream`), but they come out
/// newest first, as `list` orders them, each exactly as its own export writes it.
#[test]
fn sessions_stream_to_stdout_in_order_each_as_exported_alone() {
    let list: Value =
        serde_json::from_str(&ok(sample().args(["list", "--format", "json"])).0).unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(ids.len() > 20, "{ids:?}");
    let mut alone = String::new();
    for id in &ids {
        alone.push_str(&ok(sample().args(["export", "-f", "jsonl", id])).0);
    }
    let all = ok(sample().args(["export", "--all", "-f", "jsonl"])).0;
    assert_eq!(all.lines().count(), alone.lines().count());
    assert!(
        all == alone,
        "the stream differs from the sessions exported one by one"
    );
}

// ---------------------------------------------------------------------------------------------
// Redaction.

const SECRETS: &[(&str, &str)] = &[
    ("aws_access_key", "AKIAIOSFODNN7EXAMPLE"),
    ("github_token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("openai_api_key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
    (
        "anthropic_api_key",
        "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1",
    ),
    ("google_api_key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("slack_token", "xoxb-123456789012-1234567890123-AbCdEfGh"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    ),
    ("bearer_token", "8f14e45fceea167a5a36dedd4bea2543abc"),
    ("url_password", "Sup3rS3cretPw"),
    ("secret_assignment", "hunter2hunter2"),
];
const KEY_BLOCK: &str =
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAzzzSECRETBODY\n-----END RSA PRIVATE KEY-----";
const UUID: &str = "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01";
const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn secret_session(dir: &Path) -> PathBuf {
    let prompt = format!(
        "keys: {} {} {} and {UUID} {SHA}",
        SECRETS[0].1, SECRETS[1].1, SECRETS[2].1
    );
    let lines = [
        rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": [
                {"type": "text", "text": prompt},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
            ]}),
        ),
        rec(
            "assistant",
            "a1",
            "00:05",
            serde_json::json!({"id": "msg_1", "role": "assistant", "model": "claude-x",
                "content": [
                    {"type": "thinking", "thinking": format!("the key {} is live", SECRETS[3].1)},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {
                        "command": format!("curl -H 'Authorization: Bearer {}' https://u:{}@db.example/x", SECRETS[7].1, SECRETS[8].1),
                        "env": {"SLACK_TOKEN": SECRETS[5].1}
                    }}
                ],
                "usage": {"input_tokens": 1, "output_tokens": 2}}),
        ),
        rec(
            "user",
            "u2",
            "00:06",
            serde_json::json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": format!(
                    "GOOGLE={}\ntoken={}\nDB_PASSWORD={}\n{KEY_BLOCK}\n",
                    SECRETS[4].1, SECRETS[6].1, SECRETS[9].1
                )}
            ]}),
        ),
    ];
    let path = dir.join(format!("{NASTY_ID}.jsonl"));
    write(&path, &(lines.join("\n") + "\n"));
    path
}

#[test]
fn redaction_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let file = secret_session(dir.path());
    let out = dir.path().join("out");
    for fmt in ["md", "html", "json", "jsonl"] {
        let target = out.join(format!("s.{fmt}"));
        let mut cmd = sessions();
        cmd.env("HOME", dir.path())
            .args(["export", "--redact", "-f", fmt, "-o"])
            .arg(&target)
            .arg(&file);
        if fmt == "md" || fmt == "html" {
            cmd.args(["--images", "extract"]);
        }
        let (_, stderr) = ok(&mut cmd);
        let text = fs::read_to_string(&target).unwrap();
        // What a reader sees (Markdown escapes the brackets of markers in prose).
        let visible = if fmt == "md" {
            shape(&text).text
        } else {
            text.clone()
        };
        for (kind, secret) in SECRETS {
            assert!(!text.contains(secret), "{fmt}: {kind} survived");
            assert!(
                visible.contains(&format!("[REDACTED:{kind}]")),
                "{fmt}: no {kind} marker"
            );
        }
        assert!(!text.contains("SECRETBODY"), "{fmt}: private key survived");
        assert!(visible.contains("[REDACTED:private_key]"));
        // Ordinary identifiers survive.
        assert!(
            text.contains(UUID) && text.contains(SHA),
            "{fmt}: uuid/hash changed"
        );
        // Counts per kind on stderr. The first prompt is also the title, so its three keys
        // are counted twice (the H1 and the turn).
        let line = stderr
            .lines()
            .find(|l| l.starts_with("redacted "))
            .unwrap_or_else(|| panic!("{fmt}: no count in {stderr}"));
        assert!(line.starts_with("redacted 14 secrets: "), "{fmt}: {line}");
        for (kind, _) in SECRETS {
            let n = if ["aws_access_key", "github_token", "openai_api_key"].contains(kind) {
                2
            } else {
                1
            };
            assert!(
                line.contains(&format!(" {n} {kind}")),
                "{fmt}: {kind} count in {line}"
            );
        }
        assert!(line.contains(" 1 private_key"));
        if fmt == "md" || fmt == "html" {
            // The base64 image is extracted byte for byte.
            let img = out.join("s.files/image-001.png");
            let bytes = fs::read(&img).unwrap();
            assert_eq!(&bytes[1..4], b"PNG");
            assert_eq!(bytes.len(), 70);
            fs::remove_dir_all(out.join("s.files")).unwrap();
        }
    }
    // Without --redact nothing is touched and nothing is reported.
    let (md, stderr) = ok(sessions().env("HOME", dir.path()).arg("export").arg(&file));
    assert!(md.contains(SECRETS[0].1));
    assert!(!stderr.contains("redacted"));
}

// ---------------------------------------------------------------------------------------------
// Where exports go.

#[test]
fn existing_files_need_force() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s.md");
    fs::write(&target, "keep me").unwrap();
    sample()
        .args(["export", "6f0d3c52", "-o"])
        .arg(&target)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--force"));
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
    ok(sample()
        .args(["export", "6f0d3c52", "--force", "-o"])
        .arg(&target));
    assert!(
        fs::read_to_string(&target)
            .unwrap()
            .starts_with("# Health check work")
    );
    // A directory export checks every file first: nothing is written when one exists.
    let out = dir.path().join("all");
    ok(sample().args(["export", "--all", "-o"]).arg(&out));
    let index = out.join("index.md");
    fs::write(&index, "old index").unwrap();
    let victim = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "index.md")
        .unwrap();
    fs::write(&victim, "old").unwrap();
    sample()
        .args(["export", "--all", "-o"])
        .arg(&out)
        .assert()
        .code(1);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "old");
    assert_eq!(fs::read_to_string(&index).unwrap(), "old index");
    ok(sample()
        .args(["export", "--all", "--force", "-o"])
        .arg(&out));
    assert_ne!(fs::read_to_string(&victim).unwrap(), "old");
}

#[test]
fn never_writes_into_a_store() {
    let home = tempfile::tempdir().unwrap();
    let store = home.path().join(".claude/projects/-home-dev-webapp");
    let file = store.join("11111111-aaaa-4000-8000-000000000001.jsonl");
    write(
        &file,
        &rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": "hello"}),
        )
        .replace(NASTY_ID, "11111111-aaaa-4000-8000-000000000001"),
    );
    let before = walk(home.path());
    for target in [
        store.join("x.md"),
        home.path().join(".claude/projects/out"),
        home.path().join(".claude/export.md"),
        home.path().join(".codex/sessions/x.md"),
        home.path().join(".gemini/tmp/x.md"),
    ] {
        let mut cmd = sessions();
        cmd.env("HOME", home.path())
            .args(["export", "11111111", "-o"])
            .arg(&target);
        cmd.assert()
            .code(1)
            .stderr(predicates::str::contains("store"));
        assert!(!target.exists(), "{}", target.display());
    }
    // --all into the store is refused as well; nothing was created anywhere in the home.
    let mut cmd = sessions();
    cmd.env("HOME", home.path())
        .args(["export", "--all", "-o"])
        .arg(home.path().join(".claude"));
    cmd.assert().code(1);
    assert_eq!(walk(home.path()), before);
    // Next to the home (not in a store) is fine.
    let mut cmd = sessions();
    cmd.env("HOME", home.path())
        .args(["export", "11111111", "-o"])
        .arg(home.path().join("exports/x.md"));
    ok(&mut cmd);
    assert!(home.path().join("exports/x.md").is_file());
}

#[test]
fn all_into_a_directory_writes_one_file_per_session_and_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<Value> =
        serde_json::from_str(&ok(sample().args(["list", "--format", "json"])).0).unwrap();
    for (fmt, index) in [
        ("md", "index.md"),
        ("html", "index.html"),
        ("json", "index.json"),
    ] {
        let out = dir.path().join(fmt);
        let (_, stderr) = ok(sample()
            .args(["export", "--all", "-f", fmt, "-o"])
            .arg(&out));
        assert!(stderr.contains(&format!("exported {} sessions", list.len())));
        let mut names: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != index)
            .collect();
        names.sort();
        assert_eq!(names.len(), list.len(), "{fmt}: {names:?}");
        let idx = fs::read_to_string(out.join(index)).unwrap();
        for rec in &list {
            let agent = rec["agent"].as_str().unwrap();
            let id: String = rec["id"].as_str().unwrap().chars().take(13).collect();
            let name = names
                .iter()
                .find(|n| n.starts_with(&format!("{agent}-")) && n.contains(&id))
                .unwrap_or_else(|| panic!("{fmt}: no file for {agent} {id}"));
            assert!(name.ends_with(&format!(".{fmt}")));
            // `<agent>-<YYYY-MM-DD>-<short id>`, or `undated` for a session that recorded no time
            // (the saved chat).
            if rec["started_at"].is_null() {
                assert!(name.starts_with(&format!("{agent}-undated-")), "{name}");
            } else {
                let date = &name[agent.len() + 1..agent.len() + 11];
                assert!(
                    chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok(),
                    "{name}"
                );
            }
            assert!(idx.contains(name.as_str()), "{fmt}: index lacks {name}");
        }
        if fmt == "json" {
            let entries: Vec<Value> = serde_json::from_str(&idx).unwrap();
            assert_eq!(entries.len(), list.len());
            assert!(entries.iter().all(|e| e["schema_version"] == 1));
        }
    }
    // Filters apply: only Claude sessions since June.
    let out = dir.path().join("filtered");
    ok(sample()
        .args([
            "export",
            "--all",
            "--agent",
            "claude",
            "--since",
            "2026-06-01",
            "-o",
        ])
        .arg(&out));
    let n = fs::read_dir(&out).unwrap().count();
    assert_eq!(n, 3 + 1, "d1e2f3a4, c4d5e6f7, f0e1d2c3 + index");
}

#[test]
fn usage_errors() {
    sample()
        .args(["export", "--all", "6f0d3c52"])
        .assert()
        .code(2);
    sample()
        .args(["export", "6f0d3c52", "019d4e99"])
        .assert()
        .code(2);
    sample()
        .args(["export", "--since", "7d", "6f0d3c52"])
        .assert()
        .code(2);
    sample()
        .args(["export", "--kind", "all", "6f0d3c52"])
        .assert()
        .code(2);
    sample()
        .args(["export", "6f0d3c52", "--images", "extract"])
        .assert()
        .code(2);
    sample()
        .args(["export", "nope-no-such-id"])
        .assert()
        .code(1);
}

// ---------------------------------------------------------------------------------------------
// HTML in a real browser.

/// The browser build.rs found (`$CHROMIUM`, else Debian's `chromium`).
fn chromium() -> PathBuf {
    PathBuf::from(env!("SESSIONS_CHROMIUM"))
}

/// CI runs the browser test: there, a missing Chromium is a failure, not a quiet skip.
#[cfg(not(has_chromium))]
#[test]
fn chromium_is_present_in_ci() {
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true" || v == "1"),
        "chromium is required in CI (.ci/run installs the Debian package)"
    );
}

fn dump_dom(browser: &Path, page: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Process::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The values of an attribute (`href="`, `src="`) in the page, in-page anchors left out.
fn attr_values(dom: &str, attr: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in dom.match_indices(attr) {
        let v: String = dom[i + attr.len()..]
            .chars()
            .take_while(|c| *c != '"')
            .collect();
        if !v.starts_with('#') {
            out.push(v);
        }
    }
    out
}

/// Every URL the rendered page would fetch by itself: `src`, stylesheet links, CSS `url(` and
/// `@import` (a link the reader may click is not a fetch).
fn fetchable(dom: &str) -> Vec<String> {
    let mut out = attr_values(dom, " src=\"");
    out.extend(attr_values(dom, "<link href=\""));
    for pat in ["url(", "@import"] {
        for (i, _) in dom.match_indices(pat) {
            out.push(dom[i..].chars().take(60).collect());
        }
    }
    out
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium (/usr/bin/chromium or $CHROMIUM)"
)]
fn html_in_headless_chromium() {
    let browser = chromium();
    let dir = tempfile::tempdir().unwrap();
    // A sample session: 10 turns (8 before the compaction, 2 after), verified by hand against
    // the fixture (3 prompts, 6 replies, 1 synthetic API error).
    let page = dir.path().join("health.html");
    ok(sample()
        .args(["export", "6f0d3c52", "-f", "html", "-o"])
        .arg(&page));
    let dom = dump_dom(&browser, &page);
    assert_eq!(dom.matches("<section class=\"turn").count(), 10);
    assert_eq!(
        dom.matches("<section class=\"turn").count(),
        shape(&export_md("6f0d3c52")).turns.len()
    );
    assert_eq!(dom.matches("<section class=\"compaction\"").count(), 1);
    assert_eq!(
        dom.matches("<li class=\"turn").count(),
        10,
        "table of contents"
    );
    assert!(dom.contains("<details"), "collapsible outputs");
    assert!(dom.contains("prefers-color-scheme: dark"));
    assert!(dom.contains("Content-Security-Policy"));
    assert!(!dom.contains("<script"));
    assert!(!dom.contains("<link"));
    assert_eq!(fetchable(&dom), Vec::<String>::new(), "nothing to fetch");

    // The hostile session: text stays text in the browser too.
    let file = nasty_session(dir.path());
    let page = dir.path().join("nasty.html");
    ok(sessions()
        .env("HOME", dir.path())
        .args(["export", "-f", "html", "-o"])
        .arg(&page)
        .arg(&file));
    let dom = dump_dom(&browser, &page);
    assert_eq!(dom.matches("<section class=\"turn").count(), 3);
    assert!(!dom.contains("<script"), "a script element was created");
    assert!(!dom.contains("<div onclick"));
    assert!(!dom.contains("<img"), "an image in a reply is never loaded");
    assert!(dom.contains("&lt;script&gt;alert('x')&lt;/script&gt;"));
    assert!(dom.contains("&lt;div onclick=x&gt;html&lt;/div&gt;"));
    assert!(
        dom.contains("<h3>heading</h3>"),
        "the prompt's Markdown is rendered"
    );
    assert!(
        dom.contains("<h4><a href=\"http://example.com\">link</a>"),
        "a setext heading, below the turn headings"
    );
    assert_eq!(fetchable(&dom), Vec::<String>::new());
    for href in attr_values(&dom, " href=\"") {
        assert!(
            href.starts_with("http://") || href.starts_with("https://"),
            "{href}"
        );
    }

    // A reply in Markdown renders like the agent shows it: heading, table, link; an edit is a
    // coloured diff.
    let page = dir.path().join("todos.html");
    ok(sample()
        .args(["export", "c4d5e6f7", "-f", "html", "-o"])
        .arg(&page));
    let dom = dump_dom(&browser, &page);
    assert!(dom.contains("<h4>TODOs in api-server</h4>"), "{dom}");
    assert!(
        dom.contains("<table>") && dom.contains("<th>File</th>"),
        "{dom}"
    );
    assert!(dom.contains("<td><code>src/db.ts</code></td>"), "{dom}");
    assert!(dom.contains("<strong>high</strong>"));
    assert!(dom.contains(
        "<a href=\"https://expressjs.com/en/advanced/best-practice-security.html\">Express security guide</a>"
    ));
    assert_eq!(fetchable(&dom), Vec::<String>::new());
    let page = dir.path().join("gemini.html");
    ok(sample()
        .args(["export", "e5f6a7b8", "-f", "html", "-o"])
        .arg(&page));
    let dom = dump_dom(&browser, &page);
    assert!(dom.contains("<pre class=\"diff\">"), "edits are diffs");
    assert!(dom.contains("<span class=\"add\">+router.post('/login', limiter, login)</span>"));
    assert!(dom.contains("<span class=\"del\">-router.post('/login', login)</span>"));

    // The index page links every exported page, locally.
    let out = dir.path().join("all");
    ok(sample()
        .args(["export", "--all", "-f", "html", "-o"])
        .arg(&out));
    let dom = dump_dom(&browser, &out.join("index.html"));
    assert_eq!(fetchable(&dom), Vec::<String>::new());
    let links = attr_values(&dom, " href=\"");
    assert_eq!(links.len(), fs::read_dir(&out).unwrap().count() - 1);
    for l in links {
        assert!(!l.contains("//") && l.ends_with(".html"), "{l}");
        assert!(out.join(&l).is_file(), "{l}");
    }
}

/// `export --all -o DIR` renders most sessions while its scan holds their file, before the
/// scan's cross-file rules have run; a session whose rendering those rules change (a project
/// matched by hash against other sessions, sub-agents found in other files) is rendered again
/// after the scan. Either way each file is exactly the export of that session alone.
#[test]
fn all_into_a_directory_writes_what_each_session_exports_alone() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<Value> =
        serde_json::from_str(&ok(sample().args(["list", "--format", "json", "--kind", "all"])).0)
            .unwrap();
    // The sample home holds both kinds: sessions only their own file describes, and sessions
    // whose project or sub-agents come from other files.
    let found = |pred: &dyn Fn(&Value) -> bool| list.iter().any(pred);
    assert!(found(&|r| r["project_source"] == "hash_match"));
    assert!(found(
        &|r| r["kind"] == "main" && r["subagents"].as_u64() > Some(0)
    ));
    assert!(found(
        &|r| r["project_source"] == "cwd" && r["subagents"] == 0
    ));
    for fmt in ["json", "md", "html"] {
        let out = dir.path().join(fmt);
        ok(sample()
            .args(["export", "--all", "--kind", "all", "-f", fmt, "-o"])
            .arg(&out));
        // Every format names its files alike: the JSON index lists them all.
        let index: Vec<Value> =
            serde_json::from_str(&fs::read_to_string(dir.path().join("json/index.json")).unwrap())
                .unwrap();
        assert_eq!(index.len(), list.len(), "{fmt}");
        for e in &index {
            let file = e["file"]
                .as_str()
                .unwrap()
                .replace(".json", &format!(".{fmt}"));
            let alone = ok(sample().args(["export", "-f", fmt, e["id"].as_str().unwrap()])).0;
            let written = fs::read_to_string(out.join(&file)).unwrap();
            assert!(
                written == alone,
                "{fmt}: {file} differs from the session's own export"
            );
        }
        let names: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains(".tmp-")), "{names:?}");
    }
}

/// A directory export that stops before writing (a file in the way, no session selected)
/// leaves nothing of its early renderings, and no folder it created.
#[test]
fn all_into_a_directory_leaves_nothing_when_it_stops() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    ok(sample().args(["export", "--all", "-o"]).arg(&out));
    // No index in the way: the run renders, then finds a file it would replace.
    fs::remove_file(out.join("index.md")).unwrap();
    let victim = fs::read_dir(&out).unwrap().next().unwrap().unwrap().path();
    fs::write(&victim, "old").unwrap();
    let before = walk(&out);
    sample()
        .args(["export", "--all", "-o"])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--force"));
    assert_eq!(walk(&out), before);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "old");
    // Nothing selected: the folders the run made are gone again.
    let fresh = dir.path().join("new/deeper");
    sample()
        .args(["export", "--all", "--since", "2099-01-01", "-o"])
        .arg(&fresh)
        .assert()
        .code(1);
    assert!(!dir.path().join("new").exists());
}

/// With `--project` (and `--images extract`) nothing is rendered during the scan: the files
/// are those of the unfiltered export, and only the project's sessions are written.
#[test]
fn all_with_a_project_writes_the_same_files_as_without() {
    let dir = tempfile::tempdir().unwrap();
    let (every, some) = (dir.path().join("every"), dir.path().join("some"));
    ok(sample().args(["export", "--all", "-o"]).arg(&every));
    ok(sample()
        .args(["export", "--all", "--project", "webapp", "-o"])
        .arg(&some));
    let listed: Vec<Value> = serde_json::from_str(
        &ok(sample().args(["list", "--project", "webapp", "--format", "json"])).0,
    )
    .unwrap();
    let names: Vec<String> = fs::read_dir(&some)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "index.md")
        .collect();
    assert_eq!(names.len(), listed.len(), "{names:?}");
    for n in &names {
        assert_eq!(
            fs::read(some.join(n)).unwrap(),
            fs::read(every.join(n)).unwrap(),
            "{n}"
        );
    }
}
