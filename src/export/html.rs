//! Self-contained HTML: the Markdown sections rendered with pulldown-cmark (plain CommonMark)
//! into one page with inline CSS, light and dark themes (`prefers-color-scheme`), a table of
//! contents of the turns and collapsible tool outputs and thinking (`<details>`). Nothing is
//! loaded from anywhere: no scripts, no external styles or fonts, and a Content-Security-Policy
//! that forbids every fetch except the images written next to the page.

use std::io::{self, Write};

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Parser, Tag, TagEnd, html};

use super::IndexEntry;
use super::markdown::prose::{options, safe_url};
use super::markdown::{Document, Section, SectionKind, html_escape};
use crate::render::thousands;

/// The page's style: system fonts, light by default, dark when the reader's system is.
const CSS: &str = r#"
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e;
  --border: #d1d9e0; --code: #f6f8fa; --user: #0969da; --assistant: #1a7f37; --system: #8250df;
  --context: #9a6700; --tool: #59636e; --error: #cf222e; --divider: #bc4c00; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --code: #151b23;
    --user: #4493f8; --assistant: #3fb950; --system: #ab7df8; --context: #d29922;
    --tool: #9198a1; --error: #f85149; --divider: #db6d28; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); overflow-wrap: anywhere;
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.layout { display: grid; grid-template-columns: 18rem minmax(0, 1fr); gap: 2rem;
  max-width: 84rem; margin: 0 auto; padding: 1.5rem; }
@media (max-width: 60rem) { .layout { grid-template-columns: minmax(0, 1fr); } }
nav.toc { position: sticky; top: 1rem; align-self: start; max-height: calc(100vh - 2rem);
  overflow: auto; font-size: 0.85rem; border-right: 1px solid var(--border); padding-right: 1rem; }
nav.toc ol { list-style: none; padding: 0; margin: 0; }
nav.toc li { margin: 0.15rem 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
nav.toc a { color: var(--fg); text-decoration: none; }
nav.toc a:hover { text-decoration: underline; }
nav.toc li.compaction a { color: var(--divider); font-weight: 600; }
nav.toc li.role-user a { color: var(--user); }
nav.toc .title { font-weight: 600; margin: 0 0 0.5rem; }
main { min-width: 0; }
/* Session text has words of hundreds of characters (paths, hashes): they wrap rather than widen
   the page; a table keeps its words whole and scrolls in its own box, but the index's
   project and title cells wrap, or one long path would push every other column away. */
div.table { max-width: 100%; overflow-x: auto; margin: 0.5rem 0; }
th, td { overflow-wrap: break-word; }
td.wrap { overflow-wrap: anywhere; min-width: 12rem; }
a { color: var(--user); }
h1 { font-size: 1.6rem; margin: 0 0 0.75rem; }
section.turn { border-left: 3px solid var(--border); padding: 0 0 0 1rem; margin: 1.25rem 0; }
section.turn h2 { font-size: 1rem; margin: 0 0 0.5rem; color: var(--muted); }
section.role-user { border-left-color: var(--user); }
section.role-user h2 { color: var(--user); }
section.role-assistant { border-left-color: var(--assistant); }
section.role-assistant h2 { color: var(--assistant); }
section.role-system, section.role-summary { border-left-color: var(--system); }
section.role-context { border-left-color: var(--context); }
section.role-tool { border-left-color: var(--tool); }
section.compaction { border: 2px dashed var(--divider); border-radius: 6px; padding: 0.25rem 1rem;
  margin: 2rem 0; }
section.compaction hr { display: none; }
section.compaction > p:first-of-type strong { color: var(--divider); }
blockquote { margin: 0.75rem 0; padding: 0 0 0 1rem; border-left: 3px solid var(--border);
  color: var(--fg); }
blockquote h4, blockquote h5, blockquote h6 { font-size: 0.95rem; color: var(--muted); margin: 0.75rem 0 0.25rem; }
pre { background: var(--code); border: 1px solid var(--border); border-radius: 6px; padding: 0.6rem 0.8rem;
  overflow-x: auto; font-size: 0.85rem; line-height: 1.45; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
details { margin: 0.5rem 0; }
details > summary { cursor: pointer; color: var(--muted); font-size: 0.9rem; }
details[open] > summary { margin-bottom: 0.25rem; }
details > summary:first-letter { }
p { margin: 0.5rem 0; }
ul { padding-left: 1.25rem; }
img { max-width: 100%; border: 1px solid var(--border); border-radius: 4px; }
section.turn h3, section.turn h4, section.turn h5, section.turn h6,
section.compaction h3, section.compaction h4, section.compaction h5, section.compaction h6 {
  font-size: 1rem; margin: 1rem 0 0.4rem; color: var(--fg); }
section.turn h3 { font-size: 1.1rem; }
li > p { margin: 0.2rem 0; }
section.turn table { width: auto; margin: 0; }
section.turn th { border-bottom: 2px solid var(--border); }
pre.diff .add { color: var(--assistant); }
pre.diff .del { color: var(--error); }
pre.diff .hunk { color: var(--system); }
pre.diff .file { color: var(--muted); font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { border-bottom: 1px solid var(--border); padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.muted { color: var(--muted); }
"#;

/// Nothing may be fetched: styles are inline, images only from next to the page or data URLs.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data: file:";

fn head(out: &mut dyn Write, title: &str) -> io::Result<()> {
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"generator\" content=\"sessions {}\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n",
        env!("CARGO_PKG_VERSION"),
        html_escape(title)
    )
}

/// The only raw HTML of an export: its own collapsible blocks.
fn own_html(h: &str) -> bool {
    let h = h.trim();
    h == "<details>"
        || h == "<details open>"
        || h == "</details>"
        || h.strip_prefix("<summary>")
            .and_then(|r| r.strip_suffix("</summary>"))
            .is_some_and(|inner| !inner.contains(['<', '>']))
}

/// A file the export itself wrote next to the page (`--images extract`: an image, or a PDF or
/// recording linked rather than shown): `./<page stem>.files/image-NNN.ext`, the stem
/// percent-encoded (`export::url_segment`), and nothing that could
/// resolve elsewhere: no scheme, no absolute path, no `..`, no backslash (a browser reads it as
/// `/`), and no escape that decodes to a separator (a browser decodes `%2e%2e%2f` to `../`).
fn own_file(url: &str) -> bool {
    let rel = url.strip_prefix("./").unwrap_or(url);
    let mut parts = rel.split('/');
    let (Some(dir), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let Some(dir) = percent_decoded(dir) else {
        return false;
    };
    dir.len() > ".files".len()
        && dir.ends_with(b".files")
        && !dir
            .iter()
            .any(|&b| b == b'/' || b == b'\\' || b.is_ascii_control())
        && name.len() > "image-".len()
        && name.starts_with("image-")
        && !name.contains('%')
        && !url.contains([':', '\\', '?', '#'])
        && !url.chars().any(char::is_control)
}

/// The bytes a percent-encoded URL segment stands for; `None` for a `%` not followed by two
/// hex digits.
fn percent_decoded(segment: &str) -> Option<Vec<u8>> {
    let b = segment.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Where a diff line stands: between files (where `--- `/`+++ ` lines are file headers), or in
/// a hunk, with the old and new lines it has left when its header counts them.
#[derive(Clone, Copy)]
enum DiffPlace {
    Headers,
    Counted(u64, u64),
    /// A hunk header without counts (the exports' own `@@`, a Codex patch's): the hunk runs to
    /// the next file header, a `--- `/`+++ ` pair naming files as the exports write them
    /// (`a/p`, `b/p`, `/abs`, `/dev/null`) followed by a hunk, another file or the end.
    Bare,
}

/// The old and new line counts of a `@@ -a,b +c,d @@` hunk header (a count left out is 1).
fn hunk_counts(line: &str) -> Option<(u64, u64)> {
    let mut words = line.strip_prefix("@@ ")?.split(' ');
    let count = |w: Option<&str>, sign: char| -> Option<u64> {
        let range = w?.strip_prefix(sign)?;
        match range.split_once(',') {
            Some((start, n)) => start.parse::<u64>().ok().and(n.parse().ok()),
            None => range.parse::<u64>().ok().map(|_| 1),
        }
    };
    Some((count(words.next(), '-')?, count(words.next(), '+')?))
}

/// A diff block with one span per line, so additions and removals can be coloured. Inside a
/// hunk a line is what its first character says: a removed `-- x` reads `--- x` and is no
/// file header.
fn diff_html(code: &str) -> String {
    let mut out = String::from("<pre class=\"diff\"><code class=\"language-diff\">");
    let lines: Vec<&str> = code.lines().collect();
    let mut place = DiffPlace::Headers;
    for (i, line) in lines.iter().enumerate() {
        if let DiffPlace::Bare = place {
            let ends_pair =
                |l: Option<&&str>| l.is_none_or(|l| l.starts_with("@@") || l.starts_with("--- "));
            let names_file = |l: &str, side: &str, git: &str| {
                l.strip_prefix(side)
                    .is_some_and(|p| p.starts_with('/') || p.starts_with(git))
            };
            if names_file(line, "--- ", "a/")
                && lines
                    .get(i + 1)
                    .is_some_and(|l| names_file(l, "+++ ", "b/"))
                && ends_pair(lines.get(i + 2))
            {
                place = DiffPlace::Headers;
            }
        }
        let first = line.as_bytes().first();
        let class = match (place, first) {
            (_, Some(b'@')) if line.starts_with("@@") => {
                place = match hunk_counts(line) {
                    Some((0, 0)) => DiffPlace::Headers,
                    Some((old, new)) => DiffPlace::Counted(old, new),
                    None => DiffPlace::Bare,
                };
                "hunk"
            }
            (DiffPlace::Headers, Some(b'+')) if line.starts_with("+++ ") => "file",
            (DiffPlace::Headers, Some(b'-')) if line.starts_with("--- ") => "file",
            (DiffPlace::Counted(old, new), _) => {
                let (old, new, class) = match first {
                    Some(b'+') => (old, new.saturating_sub(1), "add"),
                    Some(b'-') => (old.saturating_sub(1), new, "del"),
                    // `\ No newline at end of file` belongs to the line before it.
                    Some(b'\\') => (old, new, "ctx"),
                    _ => (old.saturating_sub(1), new.saturating_sub(1), "ctx"),
                };
                place = if old == 0 && new == 0 {
                    DiffPlace::Headers
                } else {
                    DiffPlace::Counted(old, new)
                };
                class
            }
            (_, Some(b'+')) => "add",
            (_, Some(b'-')) => "del",
            _ => "ctx",
        };
        out.push_str(&format!(
            "<span class=\"{class}\">{}</span>\n",
            html_escape(line)
        ));
    }
    out.push_str("</code></pre>\n");
    out
}

/// Markdown → HTML with the transcript's extensions (tables, strikethrough, task lists). The
/// Markdown is already safe (`markdown::prose`); this is a second fence: any raw HTML but the
/// export's own `<details>` becomes text, a link to anything but http(s)/mailto or a file the
/// export wrote, or an image from anywhere but next to the page, becomes its text.
pub fn markdown_to_html(md: &str) -> String {
    let mut s = String::with_capacity(md.len() + md.len() / 4);
    let mut dropped: Vec<bool> = Vec::new();
    let mut diff: Option<String> = None;
    // Each event is converted as it is parsed, never collected: a long table is millions of
    // events, several times the size of its text.
    let events = Parser::new_ext(md, options()).flat_map(|e| {
        let out: [Option<Event>; 2] = if let Some(body) = diff.as_mut() {
            match e {
                Event::Text(t) => {
                    body.push_str(&t);
                    [None, None]
                }
                Event::End(TagEnd::CodeBlock) => {
                    let html = diff_html(&diff.take().unwrap_or_default());
                    [Some(Event::Html(CowStr::from(html))), None]
                }
                _ => [None, None],
            }
        } else {
            match e {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(ref info)))
                    if info.as_ref() == "diff" =>
                {
                    diff = Some(String::new());
                    [None, None]
                }
                Event::Html(h) | Event::InlineHtml(h) if !own_html(&h) => {
                    [Some(Event::Text(h)), None]
                }
                // A relative link stays only when it is to a file this export wrote.
                Event::Start(Tag::Link { ref dest_url, .. }) => {
                    let keep = safe_url(dest_url) || own_file(dest_url);
                    dropped.push(!keep);
                    [keep.then_some(e), None]
                }
                Event::Start(Tag::Image { ref dest_url, .. }) => {
                    let keep = own_file(dest_url);
                    dropped.push(!keep);
                    [keep.then_some(e), None]
                }
                // A wide table scrolls in its own box, not the whole page.
                Event::Start(Tag::Table(_)) => [
                    Some(Event::Html(CowStr::from("<div class=\"table\">\n"))),
                    Some(e),
                ],
                Event::End(TagEnd::Table) => [Some(e), Some(Event::Html(CowStr::from("</div>\n")))],
                Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
                    [(!dropped.pop().unwrap_or(false)).then_some(e), None]
                }
                e => [Some(e), None],
            }
        };
        out.into_iter().flatten()
    });
    html::push_html(&mut s, events);
    s
}

/// One session page. Sections are converted and written one at a time.
pub fn write_page(out: &mut dyn Write, doc: &Document) -> io::Result<()> {
    let mut title = String::new();
    let mut started = false;
    doc.render(&mut |sec: Section| -> io::Result<()> {
        if sec.entry.kind == SectionKind::Header {
            title = sec.entry.label.clone();
            head(out, &title)?;
            out.write_all(
                b"<body>\n<div class=\"layout\">\n<nav class=\"toc\" aria-label=\"Turns\">\n",
            )?;
            writeln!(
                out,
                "<p class=\"title\"><a href=\"#top\">{}</a></p>\n<ol>",
                html_escape(&title)
            )?;
            for e in doc.outline() {
                let class = match e.kind {
                    SectionKind::Turn => format!("turn role-{}", e.role),
                    k => k.as_str().to_string(),
                };
                writeln!(
                    out,
                    "<li class=\"{class}\"><a href=\"#{}\">{}</a></li>",
                    e.anchor,
                    html_escape(&e.label)
                )?;
            }
            out.write_all(b"</ol>\n</nav>\n<main>\n")?;
            started = true;
            writeln!(out, "<section class=\"header\" id=\"top\">")?;
        } else {
            let class = match sec.entry.kind {
                SectionKind::Turn => format!("turn role-{}", sec.entry.role),
                k => k.as_str().to_string(),
            };
            writeln!(
                out,
                "<section class=\"{class}\" id=\"{}\">",
                sec.entry.anchor
            )?;
        }
        out.write_all(markdown_to_html(&sec.markdown).as_bytes())?;
        out.write_all(b"</section>\n")?;
        Ok(())
    })?;
    if !started {
        head(out, "session")?;
        out.write_all(b"<body>\n<div class=\"layout\">\n<main>\n")?;
    }
    out.write_all(b"</main>\n</div>\n</body>\n</html>\n")?;
    Ok(())
}

/// `index.html`: every exported session with its metadata, linked.
pub fn write_index(out: &mut dyn Write, entries: &[IndexEntry], intro: &str) -> io::Result<()> {
    head(out, "Exported sessions")?;
    out.write_all(
        b"<body>\n<div class=\"layout\" style=\"grid-template-columns: minmax(0, 1fr)\">\n<main>\n",
    )?;
    writeln!(
        out,
        "<h1>Exported sessions</h1>\n<p class=\"muted\">{}</p>",
        html_escape(intro)
    )?;
    out.write_all(
        b"<div class=\"table\">\n<table>\n<thead><tr><th>Started</th><th>Agent</th><th>Project</th><th>Title</th>\
          <th class=\"num\">User turns</th><th class=\"num\">Tool calls</th><th class=\"num\">Tokens</th>\
          <th class=\"num\">Compactions</th></tr></thead>\n<tbody>\n",
    )?;
    for e in entries {
        writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"wrap\">{}</td><td class=\"wrap\"><a href=\"{}\">{}</a><br><span class=\"muted\">{}</span></td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            html_escape(&e.started()),
            html_escape(&e.agent_label()),
            html_escape(&e.project_label()),
            html_escape(&super::url_segment(&e.file)),
            html_escape(&e.title_or_id()),
            html_escape(&e.id),
            thousands(e.counts.user_turns),
            thousands(e.counts.tool_calls),
            crate::render::human_count(e.tokens.total),
            thousands(e.compactions as u64)
        )?;
    }
    out.write_all(b"</tbody>\n</table>\n</div>\n</main>\n</div>\n</body>\n</html>\n")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exports_own_images_are_shown() {
        assert!(own_file("session.files/image-001.png"));
        assert!(own_file("a b.files/image-012.jpg"));
        // What `--images extract` writes for `-o "run2 14:00 #1 50%?.html"`.
        assert!(own_file(
            "./run2%2014%3A00%20%231%2050%25%3F.files/image-001.png"
        ));
        for url in [
            "../../x.png",
            "../session.files/image-001.png",
            "session.files/../../image-001.png",
            "session.files/image-001.png/../../../x.png",
            "session.files/image-1\\..\\..\\x.png",
            "/etc/session.files/image-001.png",
            "\\\\host\\share\\image-001.png",
            "file:///etc/passwd",
            "https://evil.example/session.files/image-001.png",
            "x.png",
            "session.files/x.png",
            "other/image-001.png",
            "session.files/%2e%2e/image-001.png",
            "./..%2F..%2Fx.files/image-001.png",
            "%2e%2e%2f%2e%2e%2fx.files/image-001.png",
            "a%5Cb.files/image-001.png",
            "a%0Ab.files/image-001.png",
            "a%2.files/image-001.png",
            "a%zz.files/image-001.png",
            "./a.files/image-%2e%2e",
            "././a.files/image-001.png",
            "./.files/image-001.png",
            ".files/image-001.png",
            "",
        ] {
            assert!(!own_file(url), "{url}");
        }
        let h = markdown_to_html("![a](<../../x.png>) ![b](<s.files/image-001.png>)");
        assert!(!h.contains("x.png\""), "{h}");
        assert!(h.contains("<img src=\"s.files/image-001.png\""), "{h}");
    }

    /// An extracted PDF is linked from the page like an image is shown: by the same rule, and
    /// no other relative link passes.
    #[test]
    fn links_to_the_exports_own_files_stay_links() {
        let h = markdown_to_html(
            "[document: application/pdf · 9 B](<./run%201.files/image-001.pdf>) \
             [x](<../etc/passwd>) [y](<s.files/notes.pdf>) [z](<./s.files/image-001.pdf?q>)",
        );
        assert!(
            h.contains(
                "<a href=\"./run%201.files/image-001.pdf\">document: application/pdf · 9 B</a>"
            ),
            "{h}"
        );
        assert_eq!(h.matches("<a ").count(), 1, "{h}");
    }

    /// The class of each line of a diff block, in order.
    fn diff_classes(code: &str) -> Vec<String> {
        diff_html(code)
            .split("<span class=\"")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].to_string())
            .collect()
    }

    #[test]
    fn only_the_headers_of_a_diff_are_file_lines() {
        // The exports' own diff (hunks without counts): a removed `-- old comment` and an
        // added `++ y` are changes, the headers of the next file (MultiEdit) are headers.
        let own = "--- a/x.sql\n+++ b/x.sql\n@@\n--- old comment\n+++ y\n keep\n--- a/x.sql\n+++ b/x.sql\n@@\n-a\n+b\n";
        assert_eq!(
            diff_classes(own),
            [
                "file", "file", "hunk", "del", "add", "ctx", "file", "file", "hunk", "del", "add"
            ]
        );
        // git's diff counts its hunks: what follows a hunk's last line is the next file.
        let git = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- old\n+++ new\n same\n\\ No newline at end of file\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n--- z\n+++ z\n";
        assert_eq!(
            diff_classes(git),
            [
                "ctx", "file", "file", "hunk", "del", "add", "ctx", "ctx", "ctx", "file", "file",
                "hunk", "del", "add"
            ]
        );
        // A Codex patch deleting one file and changing another.
        let codex = "--- a/gone\n+++ /dev/null\n--- a/y\n+++ b/y\n@@ fn main\n--- x\n+++ y\n";
        assert_eq!(
            diff_classes(codex),
            ["file", "file", "file", "file", "hunk", "del", "add"]
        );
    }

    #[test]
    fn a_table_scrolls_in_its_own_box_and_long_words_wrap() {
        let h = markdown_to_html("| a | b |\n|---|---|\n| 1 | 2 |\n\nafter");
        assert!(
            h.starts_with("<div class=\"table\">\n<table>")
                && h.contains("</table>\n</div>\n<p>after"),
            "{h}"
        );
        assert!(CSS.contains("/* Session text has words of hundreds of characters (paths, hashes): they wrap rather than widen
   the page; a table keeps its words whole and scrolls in its own box, but the index's
   project and title cells wrap, or one long path would push every other column away. */
div.table { max-width: 100%; overflow-x: auto;"));
        assert!(CSS.contains("overflow-wrap: anywhere;"));
    }
}
