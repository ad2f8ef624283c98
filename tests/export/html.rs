//! HTML in a real browser (headless Chromium), and the page's table of contents.

use super::*;

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
    dump_dom_with(browser, page, &[])
}

fn dump_dom_with(browser: &Path, page: &Path, extra: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Process::new(browser)
        .args(extra)
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

/// A session whose project path is 300 characters without a break, with a 300-character word
/// in a list item and a table with a 400-character cell.
fn wide_session(dir: &Path) -> PathBuf {
    let id = "0badc0de-2222-4222-8333-444455556666";
    let cwd = format!("/home/dev/{}", "x".repeat(300));
    let table = format!(
        "| name | value |\n|---|---|\n| long | {} |\n| short | z |",
        "y".repeat(400)
    );
    let rec = |kind: &str, uuid: &str, message: Value| {
        serde_json::json!({
            "type": kind, "sessionId": id, "uuid": uuid, "parentUuid": null,
            "isSidechain": false, "cwd": cwd, "version": "2.1.90",
            "timestamp": "2026-05-01T10:00:00.000Z", "message": message,
        })
        .to_string()
    };
    let lines = [
        rec(
            "user",
            "u1",
            serde_json::json!({"role": "user",
                "content": format!("a prompt\n\n- a list item {}", "w".repeat(300))}),
        ),
        rec(
            "assistant",
            "a1",
            serde_json::json!({"id": "msg_1", "role": "assistant", "model": "claude-x",
                "content": [{"type": "text", "text": table}],
                "usage": {"input_tokens": 1, "output_tokens": 2}}),
        ),
    ];
    let path = dir.join(format!("{id}.jsonl"));
    write(&path, &(lines.join("\n") + "\n"));
    path
}

/// `(scrollWidth, clientWidth, innerWidth)` of the page's document in a window `width` wide.
/// The page forbids scripts (its CSP), so a copy without the policy reports them.
fn widths(browser: &Path, page: &Path, width: u32) -> (u32, u32, u32) {
    let html = fs::read_to_string(page).unwrap();
    let probe: String = html
        .lines()
        .filter(|l| !l.contains("Content-Security-Policy"))
        .map(|l| {
            l.replace(
                "</body>",
                "<script>const d = document.documentElement; document.body.dataset.fit = \
                 [d.scrollWidth, d.clientWidth, window.innerWidth].join(' ');</script></body>",
            ) + "\n"
        })
        .collect();
    let probe_page = page.with_extension("probe.html");
    fs::write(&probe_page, probe).unwrap();
    let size = format!("--window-size={width},900");
    let dom = dump_dom_with(browser, &probe_page, &[&size]);
    let at = dom.find("data-fit=\"").expect("the probe ran") + "data-fit=\"".len();
    let v: Vec<u32> = dom[at..]
        .split('"')
        .next()
        .unwrap()
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    (v[0], v[1], v[2])
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium (/usr/bin/chromium or $CHROMIUM)"
)]
fn long_unbroken_text_does_not_widen_the_page() {
    let browser = chromium();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    wide_session(&home.join(".claude/projects/-home-dev-x"));
    let page = dir.path().join("wide.html");
    ok(sessions()
        .arg("--home")
        .arg(&home)
        .args(["export", "0badc0de", "-f", "html", "-o"])
        .arg(&page));
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<div class=\"table\">\n<table>"),
        "a table scrolls in its own box"
    );
    // Headless Chromium makes a window at least 500 pixels wide: below the 60rem breakpoint, so
    // the one-column layout is measured too.
    for width in [1280, 400] {
        let (scroll, client, inner) = widths(&browser, &page, width);
        assert!(inner >= width.min(500), "{width}: window {inner}");
        assert!(
            scroll <= client,
            "{width}: the page scrolls sideways ({scroll} > {client})"
        );
    }
    // The index page, with the long project path in a cell.
    let out = dir.path().join("all");
    ok(sessions()
        .arg("--home")
        .arg(&home)
        .args(["export", "--all", "-f", "html", "-o"])
        .arg(&out));
    let (scroll, client, _) = widths(&browser, &out.join("index.html"), 400);
    assert!(scroll <= client, "index: {scroll} > {client}");
}

/// The turns' times in the page's table of contents: a session that crosses midnight names
/// the dates, one across a daylight-saving change the offsets, so that no two instants read
/// alike and none reads as another; a session within one day and offset shows clock times
/// (its header's time range names both).
#[test]
fn contents_times_name_the_date_and_offset_when_they_change() {
    let dir = tempfile::tempdir().unwrap();
    let session = |name: &str, times: &[&str]| {
        let lines: Vec<String> = times
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let (kind, message) = if i % 2 == 0 {
                    (
                        "user",
                        serde_json::json!({"role": "user", "content": format!("prompt {i}")}),
                    )
                } else {
                    (
                        "assistant",
                        serde_json::json!({"id": format!("m{i}"), "role": "assistant",
                            "model": "claude-x", "content": [{"type": "text", "text": "ok"}]}),
                    )
                };
                serde_json::json!({
                    "type": kind, "sessionId": name, "uuid": format!("u{i}"),
                    "parentUuid": if i == 0 { Value::Null } else { format!("u{}", i - 1).into() },
                    "isSidechain": false, "cwd": "/x", "version": "2.1.90",
                    "timestamp": t, "message": message,
                })
                .to_string()
            })
            .collect();
        let path = dir.path().join(format!("{name}.jsonl"));
        write(&path, &(lines.join("\n") + "\n"));
        path
    };
    let toc = |file: &Path, tz: &str| -> Vec<String> {
        let page = ok(sessions()
            .env("HOME", dir.path())
            .env("TZ", tz)
            .args(["export", "-f", "html"])
            .arg(file))
        .0;
        let nav = &page[page.find("<nav").unwrap()..page.find("</nav>").unwrap()];
        nav.split("<li class=\"turn")
            .skip(1)
            .map(|li| {
                let a = &li[li.find("\">").unwrap() + 2..];
                let a = &a[a.find('>').unwrap() + 1..];
                a[..a.find(" — ").unwrap_or(a.find('<').unwrap())].to_string()
            })
            .collect()
    };
    // Berlin, the night summer time starts: 02:00 is skipped.
    let dst = session(
        "5e551011-0000-4000-8000-00000000d571",
        &[
            "2026-03-29T00:30:00.000Z",
            "2026-03-29T00:45:00.000Z",
            "2026-03-29T01:15:00.000Z",
        ],
    );
    assert_eq!(
        toc(&dst, "CET-1CEST,M3.5.0,M10.5.0/3"),
        [
            "1 · User · 01:30:00 +01:00",
            "2 · Assistant · 01:45:00 +01:00",
            "3 · User · 03:15:00 +02:00"
        ]
    );
    let midnight = session(
        "5e551011-0000-4000-8000-0000000da7e5",
        &["2026-03-14T23:50:00.000Z", "2026-03-15T00:10:00.000Z"],
    );
    assert_eq!(
        toc(&midnight, "UTC0"),
        [
            "1 · User · 2026-03-14 23:50:00",
            "2 · Assistant · 2026-03-15 00:10:00"
        ]
    );
    let day = session(
        "5e551011-0000-4000-8000-0000000000d1",
        &["2026-03-14T09:00:00.000Z", "2026-03-14T09:05:00.000Z"],
    );
    assert_eq!(
        toc(&day, "UTC0"),
        ["1 · User · 09:00:00", "2 · Assistant · 09:05:00"]
    );
}
