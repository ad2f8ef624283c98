//! HTML in a real browser (headless Chromium).

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
