//! Markdown structure: every export parsed back with pulldown-cmark, over the sample home and the corpus.

use super::*;

/// What a parsed export looks like.
#[derive(Debug, Default)]
pub(crate) struct Shape {
    pub(crate) h1: Vec<String>,
    /// Top-level turn headings (`N · Role …`), in order.
    pub(crate) turns: Vec<String>,
    /// Other H2 headings.
    pub(crate) other_h2: Vec<String>,
    /// H3–H6 headings (nested sub-agent turns).
    pub(crate) nested: Vec<String>,
    /// Raw HTML, trimmed.
    pub(crate) html: Vec<String>,
    pub(crate) links: usize,
    /// Every link target.
    pub(crate) targets: Vec<String>,
    pub(crate) images: usize,
    pub(crate) lists: usize,
    pub(crate) code_blocks: Vec<String>,
    /// All text, breaks as newlines, no-break spaces as spaces.
    pub(crate) text: String,
    /// All text, with a space at every event boundary (for word checks).
    pub(crate) spaced: String,
    pub(crate) first_block_is_h1: bool,
}

pub(crate) fn shape(md: &str) -> Shape {
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
pub(crate) fn check_export(name: &str, md: &str, doc: &Value, literal: bool) {
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

/// A line without its character references (text shows them as written, a link target decoded).
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

pub(crate) fn walk(dir: &Path) -> Vec<PathBuf> {
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

/// A Gemini CLI session whose prompt carries `parts` beside its text.
pub(crate) fn gemini_with_parts(dir: &Path, parts: Value) -> PathBuf {
    let mut content = vec![serde_json::json!({"text": "read this"})];
    content.extend(parts.as_array().cloned().unwrap_or_default());
    let lines = [
        serde_json::json!({"sessionId": "s-1", "projectHash": "ab".repeat(32),
            "startTime": "2026-05-01T10:00:00Z", "lastUpdated": "2026-05-01T10:02:00Z",
            "kind": "main"}),
        serde_json::json!({"id": "u1", "timestamp": "2026-05-01T10:01:00Z", "type": "user",
            "content": content}),
        serde_json::json!({"id": "g1", "timestamp": "2026-05-01T10:02:00Z", "type": "gemini",
            "content": "ok"}),
    ];
    let path = dir.join("chats/session-2026-05-01T10-00-abcd1234.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    write(&path, &(text.join("\n") + "\n"));
    path
}

/// Inline data is labelled by what its MIME type says it is, not always as an image.
#[test]
fn inline_media_is_labelled_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let file = gemini_with_parts(
        dir.path(),
        serde_json::json!([
            {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0xLjQK"}},
            {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        ]),
    );
    for fmt in ["md", "html"] {
        let (out, _) = ok(sessions()
            .env("HOME", dir.path())
            .args(["export", "-f", fmt])
            .arg(&file));
        for label in [
            "document: application/pdf · 9 B",
            "audio: audio/wav · 4 B",
            "image: image/png · 8 B",
        ] {
            assert!(out.contains(label), "{fmt}: no {label:?} in {out}");
        }
        assert!(!out.contains("image: application/pdf"), "{fmt}: {out}");
    }
    let (out, _) = ok(sessions().env("HOME", dir.path()).arg("show").arg(&file));
    for label in [
        "[document application/pdf 9 bytes]",
        "[audio audio/wav 4 bytes]",
        "[image image/png 8 bytes]",
    ] {
        assert!(out.contains(label), "show: no {label:?} in {out}");
    }
}

/// A Claude `document` block (a PDF) is a placeholder with its media type and decoded size, in
/// a prompt and in a tool result, never its base64 body.
#[test]
fn documents_are_placeholders_not_their_base64() {
    const PDF: &str = "JVBERi0xLjQgZmFrZSVQREYtMS40IGZha2UlUERGLTEuNCBmYWtlJVBERi0xLjQgZmFrZQ==";
    let doc = serde_json::json!({"type": "document", "title": "Spec PDF",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("doc.jsonl");
    let lines = [
        rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": [
                {"type": "text", "text": "read this"}, doc]}),
        ),
        rec(
            "assistant",
            "a1",
            "00:01",
            serde_json::json!({"role": "assistant", "id": "m1", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read",
                    "input": {"file_path": "/x.pdf"}}]}),
        ),
        rec(
            "user",
            "u2",
            "00:02",
            serde_json::json!({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "t1", "content": [{"type": "text", "text": "read"}, doc]}]}),
        ),
    ];
    write(&file, &(lines.join("\n") + "\n"));
    for fmt in ["md", "html"] {
        let (out, _) = ok(sessions()
            .env("HOME", dir.path())
            .args(["export", "-f", fmt])
            .arg(&file));
        assert!(
            !out.contains("JVBERi0"),
            "{fmt}: the base64 body is shown: {out}"
        );
        assert!(!out.contains("Unrecognised block"), "{fmt}: {out}");
        assert_eq!(
            out.matches("document: Spec PDF · application/pdf · 52 B")
                .count(),
            2,
            "{fmt}: {out}"
        );
    }
}

/// With `--images extract` an extracted PDF is a link to its file in HTML as in Markdown, not
/// only its name.
#[test]
fn extracted_documents_are_linked_in_html() {
    const PDF: &str = "JVBERi0xLjQgZmFrZQ==";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("doc.jsonl");
    write(
        &file,
        &(rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": [{"type": "text", "text": "read"},
                {"type": "document", "source": {"type": "base64",
                    "media_type": "application/pdf", "data": PDF}}]}),
        ) + "\n"),
    );
    let out = dir.path().join("out");
    for (fmt, want) in [
        (
            "md",
            "[document: application/pdf · 13 B](<./run%201.files/image-001.pdf>)",
        ),
        (
            "html",
            "<a href=\"./run%201.files/image-001.pdf\">document: application/pdf · 13 B</a>",
        ),
    ] {
        let page = out.join(format!("{fmt}/run 1.{fmt}"));
        ok(sessions()
            .env("HOME", dir.path())
            .args(["export", "--images", "extract", "-f", fmt, "-o"])
            .arg(&page)
            .arg(&file));
        let text = fs::read_to_string(&page).unwrap();
        assert!(text.contains(want), "{fmt}: {text}");
        assert!(
            out.join(format!("{fmt}/run 1.files/image-001.pdf"))
                .exists()
        );
    }
}

/// A Claude image referred to by URL keeps its URL: in JSON (`url`), and in md/html as a link,
/// never an inline image (the page fetches nothing). A URL that is not a web address is text;
/// `--redact` scrubs a token in one.
#[test]
fn image_urls_are_kept_as_links() {
    const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("url.jsonl");
    let image =
        |url: &str| serde_json::json!({"type": "image", "source": {"type": "url", "url": url}});
    write(
        &file,
        &(rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": [
                {"type": "text", "text": "see"},
                image("https://example.com/cat.png"),
                image("javascript:alert(1)"),
                image(&format!("https://example.com/dog.png?t={TOKEN}")),
            ]}),
        ) + "\n"),
    );
    let (json, _) = ok(sessions().args(["export", "-f", "json"]).arg(&file));
    let doc: Value = serde_json::from_str(&json).unwrap();
    let urls: Vec<&Value> = doc["messages"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "image")
        .map(|p| &p["url"])
        .collect();
    assert_eq!(urls[0], "https://example.com/cat.png", "{json}");
    assert_eq!(urls[1], "javascript:alert(1)", "{json}");

    let (md, _) = ok(sessions().args(["export", "-f", "md"]).arg(&file));
    let links = shape(&md).targets;
    assert!(
        links.iter().any(|t| t == "https://example.com/cat.png"),
        "{links:?}\n{md}"
    );
    assert!(links.iter().all(|t| !t.starts_with("javascript")), "{md}");
    assert!(
        md.contains("javascript:alert(1)"),
        "a URL is never dropped: {md}"
    );

    let (html, _) = ok(sessions().args(["export", "-f", "html"]).arg(&file));
    // The address shows after the link, not only in its href.
    assert!(
        html.contains(
            "<a href=\"https://example.com/cat.png\">image: unknown type · size unknown</a> (https://example.com/cat.png)"
        ),
        "{html}"
    );
    assert!(!html.contains("<img src=\"https:"), "{html}");

    let (red, _) = ok(sessions()
        .args(["export", "-f", "md", "--redact"])
        .arg(&file));
    assert!(!red.contains(TOKEN), "{red}");
}

/// A prompt of only whitespace is a turn with a visible mark in md/html, as it is a message
/// in the JSON: the answer after it does not seem to answer nothing.
#[test]
fn blank_prompts_are_turns() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("blank.jsonl");
    let lines = [
        rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": "   \n  "}),
        ),
        rec(
            "assistant",
            "a1",
            "00:01",
            serde_json::json!({"role": "assistant", "id": "m1", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Hello?"}]}),
        ),
    ];
    write(&file, &(lines.join("\n") + "\n"));
    let (md, _) = ok(sessions().args(["export", "-f", "md"]).arg(&file));
    let turns = shape(&md).turns;
    assert_eq!(turns.len(), 2, "{turns:?}\n{md}");
    assert!(turns[0].starts_with("1 · User"), "{turns:?}");
    assert!(md.contains("*(blank prompt)*"), "{md}");
    let (html, _) = ok(sessions().args(["export", "-f", "html"]).arg(&file));
    assert!(html.contains("<em>(blank prompt)</em>"), "{html}");
    assert!(html.contains(">1 · User"), "{html}");
}

/// A table row with more cells than its header keeps them all in md and html (GFM ignores the
/// extra cells; the export writes messages back from the parser, so they were lost).
#[test]
fn a_row_wider_than_its_header_loses_no_cell() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("table.jsonl");
    let table = "| Flag | Meaning |\n|---|---|\n| `-a` | all | also hidden files |\n| `a|b` | regex alternation |\n";
    write(
        &file,
        &(rec(
            "assistant",
            "a1",
            "00:00",
            serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": table}]}),
        ) + "\n"),
    );
    for fmt in ["md", "html"] {
        let (out, _) = ok(sessions()
            .env("HOME", dir.path())
            .args(["export", "-f", fmt])
            .arg(&file));
        for cell in ["also hidden files", "regex alternation"] {
            assert!(out.contains(cell), "{fmt}: {cell} lost: {out}");
        }
    }
}
