//! Message text rendered as Markdown, the way the agents show it, but safely.
//!
//! Prompts, replies, thinking and compaction summaries are Markdown. They are parsed with
//! pulldown-cmark (CommonMark plus tables, strikethrough and task lists) and written back as
//! CommonMark from the event stream, so that nothing but these constructs survives:
//! - raw HTML (blocks and inline) becomes text (escaped), so `<script>` shows as `<script>`;
//! - links keep only `http`, `https` and `mailto` targets, and show the target after the text
//!   when it differs (a link cannot pretend to go elsewhere); any other target is shown as
//!   text; images are never fetched: an image is a link to it (`[image: alt]`, its target
//!   shown after it like any link's), or text;
//! - headings are demoted below the transcript's own turn headings (`base` + their level,
//!   at most `######`), so the table of contents stays the turns';
//! - a line break is kept as a line break (as chat interfaces show it), not joined into the
//!   paragraph;
//! - code blocks keep their text verbatim in a fence longer than any backtick run inside;
//! - an entity or character reference (`&amp;`, `&#60;`) shows as written, not as the
//!   character it stands for: the record is what it is, and `&lt;b&gt;` must not read like a
//!   recorded `<b>`.
//!
//! The output is self-contained: every block it opens is closed, and it ends with a blank line.

use pulldown_cmark::{
    Alignment, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd,
};

use super::cmark::{escape_chars, fence, normalize, prose};
use crate::render::text::{preview_of_beginning, safe_preview, terminal_safe};

/// The Markdown extensions of transcripts, for parsing messages and rendering the HTML page.
pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// The events of `text`, with every entity or character reference in text as written: the
/// parser reports one as its own text event, the decoded character, over the reference's bytes.
/// (Code spans and blocks are not decoded by CommonMark anyway; link targets stay decoded, as
/// they are where the link goes.)
fn events(text: &str) -> impl Iterator<Item = Event<'_>> {
    Parser::new_ext(text, options())
        .into_offset_iter()
        .map(|(e, range)| match e {
            Event::Text(t) => {
                let src = &text[range];
                let reference =
                    src.len() > 2 && src.starts_with('&') && src.ends_with(';') && *src != *t;
                Event::Text(if reference { CowStr::Borrowed(src) } else { t })
            }
            e => e,
        })
}

/// `text` as safe CommonMark whose headings start below level `base`.
pub fn render(text: &str, base: usize) -> String {
    let text = normalize(text);
    let text = terminal_safe(&text);
    let text = super::tables::widen(&text, options());
    let mut w = Writer {
        // About the text's size, and some escapes: grown by doubling, a long message's
        // rendering was copied several times over.
        out: String::with_capacity(text.len() + text.len() / 16 + 16),
        base,
        fresh_line: true,
        ..Writer::default()
    };
    for event in events(&text) {
        w.event(event);
    }
    let mut out = w.out;
    let end = out.trim_end_matches(['\n', ' ']).len();
    out.truncate(end);
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out
}

/// The words a reader sees in `text` rendered, on one line (no `##`, no `**`): the whole-text
/// reference [`plain_preview`] is tested against.
#[cfg(test)]
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for e in events(text) {
        plain_event(&mut out, e);
    }
    out
}

/// `safe_preview(&plain(text), max)`, with the inline parsing of only as much of `text` as the
/// preview shows (a contents entry of every message; messages run to megabytes). Exact:
/// `plain` of the first events is a prefix of `plain` of all, and [`safe_preview`] reads no
/// further than it shows.
pub fn plain_preview(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut check = max.saturating_add(1).saturating_mul(4);
    for e in events(text) {
        plain_event(&mut out, e);
        // Only the beginning of `out` that the preview can show is made a line: one event
        // can be a whole paragraph, and the line of all of it cost more than its parsing.
        while out.len() >= check {
            if let Some(p) = preview_of_beginning(&out, check, max) {
                return p;
            }
            check = check.saturating_mul(2);
        }
    }
    safe_preview(&out, max)
}

fn plain_event(out: &mut String, e: Event) {
    match e {
        Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => out.push_str(&t),
        Event::SoftBreak | Event::HardBreak | Event::Rule => out.push(' '),
        Event::End(
            TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::Item
            | TagEnd::TableCell
            | TagEnd::CodeBlock
            | TagEnd::BlockQuote(_)
            | TagEnd::HtmlBlock,
        ) => out.push(' '),
        _ => {}
    }
}

/// Whether a link target may be kept as a link: web and mail addresses only.
pub fn safe_url(url: &str) -> bool {
    let u = url.trim_start().to_ascii_lowercase();
    (u.starts_with("http://") || u.starts_with("https://") || u.starts_with("mailto:"))
        && !url.chars().any(|c| c.is_control() || c == ' ')
}

/// A link destination in angle brackets: what cannot appear there is percent-encoded.
pub(super) fn destination(url: &str) -> String {
    let mut out = String::from("<");
    for c in url.trim().chars() {
        match c {
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '\\' => out.push_str("%5C"),
            c => out.push(c),
        }
    }
    out.push('>');
    out
}

fn escaped(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 8);
    escape_chars(&mut s, text, true);
    s
}

/// An inline code span around `code` (a backtick run longer than any inside; padded when it
/// starts or ends with a backtick or a space).
fn code_span(code: &str, in_table: bool) -> String {
    let mut longest = 0;
    let mut run = 0;
    for &b in code.as_bytes() {
        if b == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let pad = code.starts_with(['`', ' ']) || code.ends_with(['`', ' ']);
    let mut out = String::with_capacity(code.len() + 2 * longest + 4);
    let ticks = |out: &mut String| out.extend(std::iter::repeat_n('`', longest + 1));
    ticks(&mut out);
    if pad {
        out.push(' ');
    }
    if in_table {
        for (i, piece) in code.split('|').enumerate() {
            if i > 0 {
                out.push_str("\\|");
            }
            out.push_str(piece);
        }
    } else {
        out.push_str(code);
    }
    if pad {
        out.push(' ');
    }
    ticks(&mut out);
    out
}

enum Frame {
    Quote,
    /// A list item: continuation lines are indented by `indent`; `marker` is written on its
    /// first line.
    Item {
        indent: usize,
        marker: Option<String>,
    },
}

struct Link {
    url: String,
    /// Kept as a link (safe target, not nested).
    live: bool,
    image: bool,
    /// The plain text shown, to tell whether the target must be shown too.
    text: String,
}

struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<String>>,
    /// The output (and line state) set aside while a cell is written into `out`.
    saved: Option<(String, bool)>,
}

#[derive(Default)]
struct Writer {
    out: String,
    base: usize,
    frames: Vec<Frame>,
    /// The next line's container prefixes are not written yet.
    fresh_line: bool,
    need_blank: bool,
    /// Per open list, innermost last.
    lists: Vec<List>,
    links: Vec<Link>,
    code: Option<(String, String)>,
    html: Option<String>,
    table: Option<Table>,
    in_heading: bool,
}

/// An open list.
struct List {
    /// The next number of an ordered list.
    next: Option<u64>,
    /// Whether its items are paragraphs, separated by blank lines. pulldown-cmark wraps an
    /// item's text in a paragraph only in a loose list, so the first item tells; a tight
    /// list must stay tight, or every list of a reply reads double-spaced.
    loose: bool,
}

/// The container prefixes of a line start (`> `, a list item's marker or indent) appended to
/// `out`; a blank line's without trailing spaces. A marker is written once, at its item's first
/// line.
fn prefix_into(frames: &mut [Frame], out: &mut String, blank: bool) {
    let start = out.len();
    for f in frames {
        match f {
            Frame::Quote => out.push_str("> "),
            Frame::Item { indent, marker } => match marker.take().filter(|_| !blank) {
                Some(m) => out.push_str(&m),
                None => out.extend(std::iter::repeat_n(' ', *indent)),
            },
        }
    }
    if blank {
        let end = start + out[start..].trim_end().len();
        out.truncate(end);
    }
}

impl Writer {
    /// Write text, adding the container prefixes at each line start.
    fn write(&mut self, s: &str) {
        // `split_inclusive('\n')`, with the `memchr` crate's search (the standard library's
        // searches 8 bytes at a time; a tool output's lines run long).
        let mut rest = s;
        while !rest.is_empty() {
            let (body, newline);
            (body, newline, rest) = match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(n) => (&rest[..n], true, &rest[n + 1..]),
                None => (rest, false, ""),
            };
            if self.fresh_line {
                prefix_into(&mut self.frames, &mut self.out, body.is_empty());
                self.fresh_line = false;
            }
            self.out.push_str(body);
            if newline {
                self.out.push('\n');
                self.fresh_line = true;
            }
        }
    }

    /// Start a block: end the current line, and leave a blank line after the previous block.
    fn block(&mut self) {
        if self.out.is_empty() {
            self.fresh_line = true;
            self.need_blank = false;
            return;
        }
        if !self.fresh_line {
            self.write("\n");
        }
        if self.need_blank {
            self.write("\n");
            self.need_blank = false;
        }
    }

    fn end_block(&mut self) {
        self.need_blank = true;
    }

    /// Inline text, escaped (or code, verbatim).
    fn text(&mut self, t: &str) {
        if let Some((_, body)) = self.code.as_mut() {
            body.push_str(t);
            return;
        }
        if let Some(h) = self.html.as_mut() {
            h.push_str(t);
            return;
        }
        for l in &mut self.links {
            l.text.push_str(t);
        }
        let e = escaped(t);
        self.write(&e);
    }

    fn line_break(&mut self) {
        if self.in_heading || self.in_cell() {
            self.write(" ");
        } else {
            self.write("\\\n");
        }
    }

    fn in_cell(&self) -> bool {
        self.table.as_ref().is_some_and(|t| t.saved.is_some())
    }

    fn event(&mut self, e: Event) {
        match e {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(c) => {
                for l in &mut self.links {
                    l.text.push_str(&c);
                }
                let span = code_span(&c, self.in_cell());
                self.write(&span);
            }
            Event::Html(h) => match self.html.as_mut() {
                Some(buf) => buf.push_str(&h),
                None => self.text(&h),
            },
            Event::InlineHtml(h) => self.text(&h),
            Event::SoftBreak | Event::HardBreak => self.line_break(),
            Event::Rule => {
                self.block();
                self.write("***");
                self.end_block();
            }
            Event::TaskListMarker(done) => self.write(if done { "[x] " } else { "[ ] " }),
            Event::FootnoteReference(r) => self.text(&format!("[^{r}]")),
            Event::InlineMath(m) | Event::DisplayMath(m) => self.text(&m),
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => {
                if matches!(self.frames.last(), Some(Frame::Item { .. }))
                    && let Some(list) = self.lists.last_mut()
                {
                    list.loose = true;
                }
                self.block()
            }
            Tag::Heading { level, .. } => {
                self.block();
                let n = (self.base + level as usize).min(6);
                self.write(&"###### "[6 - n..]);
                self.in_heading = true;
            }
            Tag::BlockQuote(_) => {
                self.block();
                self.frames.push(Frame::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.block();
                let info = match kind {
                    CodeBlockKind::Fenced(i) => i.split_whitespace().next().unwrap_or("").into(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((info, String::new()));
            }
            Tag::HtmlBlock => {
                self.block();
                self.html = Some(String::new());
            }
            Tag::List(start) => {
                self.block();
                self.lists.push(List {
                    next: start,
                    loose: false,
                });
            }
            Tag::Item => {
                if self.lists.last().is_some_and(|l| !l.loose) {
                    self.need_blank = false;
                }
                self.block();
                let marker = match self.lists.last_mut().and_then(|l| l.next.as_mut()) {
                    Some(n) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "- ".to_string(),
                };
                self.frames.push(Frame::Item {
                    indent: marker.len(),
                    marker: Some(marker),
                });
            }
            Tag::Table(aligns) => {
                self.block();
                self.table = Some(Table {
                    aligns,
                    rows: Vec::new(),
                    saved: None,
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                let saved = (std::mem::take(&mut self.out), self.fresh_line);
                if let Some(t) = self.table.as_mut() {
                    t.saved = Some(saved);
                }
                self.fresh_line = false;
            }
            Tag::Emphasis => self.write("*"),
            Tag::Strong => self.write("**"),
            Tag::Strikethrough => self.write("~~"),
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => {
                let url = match link_type {
                    LinkType::Email => format!("mailto:{dest_url}"),
                    _ => dest_url.to_string(),
                };
                let live = safe_url(&url) && self.links.iter().all(|l| !l.live);
                if live {
                    self.write("[");
                }
                self.links.push(Link {
                    url,
                    live,
                    image: false,
                    text: String::new(),
                });
            }
            Tag::Image { dest_url, .. } => {
                let url = dest_url.to_string();
                let live = safe_url(&url) && self.links.iter().all(|l| !l.live);
                self.write(if live { "[image: " } else { "\\[image: " });
                self.links.push(Link {
                    url,
                    live,
                    image: true,
                    text: String::new(),
                });
            }
            // Not enabled: footnotes, definition lists, metadata, super/subscript.
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.end_block(),
            TagEnd::Heading(_) => {
                self.in_heading = false;
                self.end_block();
            }
            TagEnd::BlockQuote(_) => {
                self.frames.pop();
                self.end_block();
            }
            TagEnd::CodeBlock => {
                if let Some((info, body)) = self.code.take() {
                    let f = fence(&info, &body);
                    self.write(f.trim_end_matches('\n'));
                }
                self.end_block();
            }
            TagEnd::HtmlBlock => {
                if let Some(html) = self.html.take() {
                    // Raw HTML shows as the text it is, line by line.
                    let mut lit = String::new();
                    prose(&mut lit, &html.split('\n').collect::<Vec<_>>());
                    self.write(lit.trim_end_matches('\n'));
                }
                self.end_block();
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.end_block();
            }
            TagEnd::Item => {
                if let Some(Frame::Item {
                    marker: Some(m), ..
                }) = self.frames.last()
                {
                    // An empty item still shows its marker.
                    let m = m.trim_end().to_string();
                    self.frames.pop();
                    let mut p = String::new();
                    prefix_into(&mut self.frames, &mut p, false);
                    if self.fresh_line {
                        self.out.push_str(&p);
                    }
                    self.out.push_str(&m);
                    self.fresh_line = false;
                } else {
                    self.frames.pop();
                }
                self.end_block();
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    let cols = t
                        .aligns
                        .len()
                        .max(t.rows.iter().map(Vec::len).max().unwrap_or(0));
                    let mut lines = Vec::new();
                    for (i, row) in t.rows.iter().enumerate() {
                        let cells: Vec<&str> = (0..cols)
                            .map(|c| row.get(c).map(String::as_str).unwrap_or(""))
                            .collect();
                        lines.push(format!("| {} |", cells.join(" | ")));
                        if i == 0 {
                            let delims: Vec<&str> = (0..cols)
                                .map(|c| match t.aligns.get(c) {
                                    Some(Alignment::Left) => ":---",
                                    Some(Alignment::Center) => ":---:",
                                    Some(Alignment::Right) => "---:",
                                    _ => "---",
                                })
                                .collect();
                            lines.push(format!("| {} |", delims.join(" | ")));
                        }
                    }
                    self.write(&lines.join("\n"));
                }
                self.end_block();
            }
            TagEnd::TableHead | TagEnd::TableRow => {}
            TagEnd::TableCell => {
                if let Some(t) = self.table.as_mut()
                    && let Some((saved, fresh)) = t.saved.take()
                {
                    let cell = std::mem::replace(&mut self.out, saved);
                    self.fresh_line = fresh;
                    if let Some(row) = t.rows.last_mut() {
                        row.push(cell.trim().to_string());
                    }
                }
            }
            TagEnd::Emphasis => self.write("*"),
            TagEnd::Strong => self.write("**"),
            TagEnd::Strikethrough => self.write("~~"),
            TagEnd::Link | TagEnd::Image => {
                let Some(l) = self.links.pop() else { return };
                let shown = l.text.trim();
                let bare = l
                    .url
                    .strip_prefix("mailto:")
                    .unwrap_or(&l.url)
                    .trim_end_matches('/');
                let same = shown.trim_end_matches('/') == bare;
                match (l.live, l.image) {
                    (true, _) => {
                        self.write(&format!("]({})", destination(&l.url)));
                        // An image's text is its alt text, never its address: the target is
                        // shown after it as after any other link.
                        if !same {
                            let t = escaped(&format!(" ({})", l.url));
                            self.write(&t);
                        }
                    }
                    (false, true) => {
                        let t = escaped(&format!("] ({})", l.url));
                        self.write(&t);
                    }
                    (false, false) if !same && !l.url.is_empty() => {
                        let t = escaped(&format!(" ({})", l.url));
                        self.write(&t);
                    }
                    (false, false) => {}
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A code span as `format!` wrote it before: its backtick fence one longer than the
    /// longest run inside, padded when the code starts or ends with a backtick or a space.
    #[test]
    fn code_spans_are_fenced_and_padded() {
        let reference = |code: &str, in_table: bool| {
            let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
            let ticks = "`".repeat(longest + 1);
            let code = if in_table {
                code.replace('|', "\\|")
            } else {
                code.to_string()
            };
            let sp = if code.starts_with(['`', ' ']) || code.ends_with(['`', ' ']) {
                " "
            } else {
                ""
            };
            format!("{ticks}{sp}{code}{sp}{ticks}")
        };
        let pieces = ["", "`", "``", " ", "|", "a", "é"];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let code = format!("{a}{b}{c}");
                    for in_table in [false, true] {
                        assert_eq!(
                            code_span(&code, in_table),
                            reference(&code, in_table),
                            "{code:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(code_span("a``b|c", true), "```a``b\\|c```");
    }
    use pulldown_cmark::{HeadingLevel, html};

    fn to_html(md: &str) -> String {
        let mut s = String::new();
        html::push_html(&mut s, Parser::new_ext(md, options()));
        s
    }

    fn events(md: &str) -> Vec<Event<'_>> {
        Parser::new_ext(md, options()).collect()
    }

    #[test]
    fn structure_survives() {
        let reply = "## Plan\n\n**Read** the *router*, then:\n\n1. one\n2. two\n   - nested `code`\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n> quoted\n> ```sh\n> ls\n> ```\n\n```rust\nfn main() {}\n```\n\nSee [the docs](https://docs.rs/x) or <https://example.com>.\n\n- [x] done\n- [ ] todo\n\n~~old~~";
        let md = render(reply, 2);
        let h = to_html(&md);
        for want in [
            "<h4>Plan</h4>",
            "<strong>Read</strong>",
            "<em>router</em>",
            "<ol>",
            "<li>",
            "<code>code</code>",
            "<table>",
            "<th>a</th>",
            "<td style=\"text-align: right\">2</td>",
            "<blockquote>",
            "<pre><code class=\"language-sh\">ls\n</code></pre>",
            "<pre><code class=\"language-rust\">fn main() {}\n</code></pre>",
            "<a href=\"https://docs.rs/x\">the docs</a> (https://docs.rs/x)",
            "<a href=\"https://example.com\">https://example.com</a>.",
            "checked=\"\"",
            "<del>old</del>",
        ] {
            assert!(h.contains(want), "{want} missing in\n{md}\n{h}");
        }
    }

    #[test]
    fn lists_keep_their_spacing() {
        // Tight lists stay tight and loose ones loose: the HTML of the rendering is the HTML of
        // the text (`<li>a</li>` against `<li><p>a</p></li>`).
        for text in [
            "- a\n- b\n- c",
            "1. one\n2. two\n   - nested\n   - more\n3. three",
            "- a\n\n- b\n\n- c",
            "- a\n\n  second paragraph\n- b",
            "- a\n  ```sh\n  ls\n  ```\n- b",
            "- [x] done\n- [ ] todo\n\nafter",
            "- tight\n- list\n\n1. then\n\n2. loose",
            "> - quoted\n> - list",
            "- outer\n  1. inner\n\n  2. loose inner\n- outer again",
        ] {
            let md = render(text, 2);
            assert_eq!(to_html(&md), to_html(text), "{text:?} rendered as\n{md}");
        }
    }

    #[test]
    fn a_plain_preview_is_the_preview_of_plain() {
        let long = "A paragraph with **bold**, `code` and [a link][ref]. ".repeat(200);
        let texts = [
            String::new(),
            "## TODOs\n\nThere are **3**: `a`, [b](https://x).".into(),
            format!("{long}\n\n[ref]: https://example.com\n"),
            format!("Setext heading\n===\n\n{long}"),
            format!("```\n{}```\n\nafter", "code line\n".repeat(500)),
            format!("| a | b |\n|---|---|\n{}", "| 1 | 2 |\n".repeat(300)),
            format!("{}<b>html</b>", "\n\n\n   \n".repeat(400)),
            "- item\n  - nested\n\n> quote\n\n---\n\nend".repeat(100),
            format!("{}tail", "word ".repeat(3000)),
        ];
        for t in &texts {
            for max in [0, 1, 40, 60, 120, 5000] {
                assert_eq!(
                    plain_preview(t, max),
                    safe_preview(&plain(t), max),
                    "{max}: {:?}",
                    &t[..t.len().min(40)]
                );
            }
        }
    }

    #[test]
    fn plain_text_for_labels() {
        let p = plain("## TODOs\n\nThere are **3**: `a`, [b](https://x).");
        assert_eq!(
            p.split_whitespace().collect::<Vec<_>>().join(" "),
            "TODOs There are 3: a, b."
        );
    }

    #[test]
    fn headings_are_demoted_and_capped() {
        let md = render("# One\n## Two\n###### Six\nSetext\n===", 2);
        let levels: Vec<HeadingLevel> = events(&md)
            .into_iter()
            .filter_map(|e| match e {
                Event::Start(Tag::Heading { level, .. }) => Some(level),
                _ => None,
            })
            .collect();
        use HeadingLevel::*;
        assert_eq!(levels, [H3, H4, H6, H3]);
    }

    #[test]
    fn hostile_markup_stays_text() {
        let nasty = "<script>alert(1)</script>\n\n<div onclick=\"x()\">\n*still html*\n</div>\n\nInline <img src=x onerror=alert(1)> and <b>bold</b>.\n\n[click](javascript:alert(1)) [rel](../etc/passwd) [data](data:text/html,x)\n\n![tracker](https://evil.example/pixel.gif) ![local](file:///etc/passwd)\n\n[fake](https://evil.example \"https://bank.example\")";
        let md = render(nasty, 2);
        for e in events(&md) {
            match e {
                Event::Html(h) | Event::InlineHtml(h) => panic!("raw HTML {h:?} in\n{md}"),
                Event::Start(Tag::Image { .. }) => panic!("an image in\n{md}"),
                Event::Start(Tag::Link { dest_url, .. }) => {
                    assert!(safe_url(&dest_url), "{dest_url} in\n{md}")
                }
                _ => {}
            }
        }
        let h = to_html(&md);
        assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{h}");
        assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;"), "{h}");
        assert!(h.contains("click (javascript:alert(1))"), "{h}");
        assert!(h.contains("rel (../etc/passwd)"), "{h}");
        assert!(
            h.contains("<a href=\"https://evil.example/pixel.gif\">image: tracker</a>"),
            "{h}"
        );
        assert!(h.contains("[image: local] (file:///etc/passwd)"), "{h}");
        assert!(
            h.contains("<a href=\"https://evil.example\">fake</a> (https://evil.example)"),
            "{h}"
        );
        assert!(!h.contains("<img"));
        assert!(!h.contains("<script"));
    }

    #[test]
    fn character_references_show_as_written() {
        // `&amp; &lt;b&gt;` and a literal `<b>` are different records, and must read so.
        let text = "&amp; &lt;b&gt; &#60;i&#x3E; &copy; &bogus; <b>bold?</b>\n\n`&amp;` [a &amp; b](https://x.example/?a=1&amp;b=2)\n\n```\n&lt;\n```\n\n| &amp; |\n|---|\n| &lt; |";
        let md = render(text, 2);
        let h = to_html(&md);
        for want in [
            "&amp;amp; &amp;lt;b&amp;gt; &amp;#60;i&amp;#x3E; &amp;copy; &amp;bogus; &lt;b&gt;bold?&lt;/b&gt;",
            "<code>&amp;amp;</code>",
            "<a href=\"https://x.example/?a=1&amp;b=2\">a &amp;amp; b</a>",
            "<pre><code>&amp;lt;\n</code></pre>",
            "<th>&amp;amp;</th>",
            "<td>&amp;lt;</td>",
        ] {
            assert!(h.contains(want), "{want} missing in\n{md}\n{h}");
        }
        assert_eq!(plain("a &amp; &lt;b&gt;").trim(), "a &amp; &lt;b&gt;");
        assert_eq!(plain_preview("a &amp; b", 60), "a &amp; b");
    }

    /// A Markdown image in a message is a link that fetches nothing, with where it pointed
    /// shown after it, as any link whose text is not its target (in the HTML page too).
    #[test]
    fn an_image_shows_its_target() {
        let md = render(
            "see ![chart](https://img.example/c.png) and ![https://x.example/a.png](https://x.example/a.png)",
            2,
        );
        let page = crate::export::html::markdown_to_html(&md);
        for h in [to_html(&md), page] {
            assert!(
                h.contains("<a href=\"https://img.example/c.png\">image: chart</a> (https://img.example/c.png)"),
                "{md}\n{h}"
            );
            // Its text already says where: not twice.
            assert!(
                h.contains("image: https://x.example/a.png</a></p>"),
                "{md}\n{h}"
            );
            assert!(!h.contains("<img"), "{h}");
        }
    }

    #[test]
    fn line_breaks_and_terminal_escapes() {
        let md = render("line one\nline two\x1b[2J\n- a\n\n  b", 2);
        let h = to_html(&md);
        assert!(h.contains("line one<br />\nline two^[[2J"), "{h}");
        assert!(!md.contains('\x1b'));
        assert_eq!(render("", 2), "");
        assert_eq!(render("-", 2).trim(), "-");
    }

    #[test]
    fn nested_containers_keep_their_prefixes() {
        let src = "> - item\n>\n>   ```\n>   code\n>\n>   more\n>   ```\n> - second\n>   > inner";
        let md = render(src, 2);
        let h = to_html(&md);
        assert!(
            h.contains("<pre><code>code\n\nmore\n</code></pre>"),
            "{md}\n{h}"
        );
        assert_eq!(h.matches("<blockquote>").count(), 2, "{md}\n{h}");
    }
}
