//! CommonMark building blocks that keep any content inert: code fences longer than any backtick
//! run inside, `<details>` with an escaped summary, block quotes, and literal text (every
//! character that could start Markdown syntax backslash-escaped: what `--literal` shows, and
//! what headings and labels use).
//!
//! Every primitive that takes session text makes it terminal-safe first
//! ([`crate::render::text::terminal_safe`]): a transcript printed with `cat` cannot drive the
//! terminal, and the escapes (`^[`) are then escaped like any other text.

use crate::render::text::{safe_line, terminal_safe};

/// CR LF and lone CR are line endings in CommonMark: make them LF so line-based escaping sees
/// every line.
pub(super) fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    // The `memchr` crate's search, vectorised at the CPU's width: `str::contains` searched
    // tool outputs 8 bytes at a time.
    if memchr::memchr(b'\r', text.as_bytes()).is_some() {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A fenced code block whose fence is longer than any backtick run in `content`.
pub fn fence(info: &str, content: &str) -> String {
    let mut out = String::new();
    fence_into(&mut out, info, content);
    out
}

/// [`fence`], appended to `out` (tool outputs are the bulk of a transcript: one copy fewer).
pub fn fence_into(out: &mut String, info: &str, content: &str) {
    let content = normalize(content);
    let content = terminal_safe(&content);
    let mut longest = 0;
    let mut run = 0;
    let mut last = usize::MAX;
    for at in memchr::memchr_iter(b'`', content.as_bytes()) {
        run = if last.wrapping_add(1) == at {
            run + 1
        } else {
            1
        };
        longest = longest.max(run);
        last = at;
    }
    let f = "`".repeat((longest + 1).max(3));
    let info: String = info
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_+-.#".contains(*c))
        .take(32)
        .collect();
    out.reserve(content.len() + 2 * f.len() + info.len() + 4);
    out.push_str(&f);
    out.push_str(&info);
    out.push('\n');
    out.push_str(&content);
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&f);
    out.push_str("\n\n");
}

/// `<details>` around Markdown content, the summary HTML-escaped. Errors are `open`.
pub fn details(summary: &str, open: bool, body: &str) -> String {
    let mut out = String::new();
    details_into(&mut out, summary, open, |o| o.push_str(body));
    out
}

/// [`details`] appended to `out`, its body written by `body` straight into `out`.
pub fn details_into(out: &mut String, summary: &str, open: bool, body: impl FnOnce(&mut String)) {
    out.push_str(if open { "<details open>" } else { "<details>" });
    out.push_str("\n<summary>");
    out.push_str(&html_escape(&safe_line(summary)));
    out.push_str("</summary>\n\n");
    let start = out.len();
    body(out);
    let end = start + out[start..].trim_end().len();
    out.truncate(end);
    out.push_str("\n\n</details>\n\n");
}

/// Prefix every line with `> ` (blank lines with `>`), ending with a blank line so nothing
/// after it continues the quote.
pub fn blockquote(md: &str) -> String {
    let mut out = String::with_capacity(md.len() + md.len() / 20 + 4);
    for line in md.trim_end_matches('\n').split('\n') {
        if line.is_empty() {
            out.push_str(">\n");
        } else {
            out.push_str("> ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');
    out
}

/// HTML-escape text (made terminal-safe first, like all session text).
pub fn html_escape(s: &str) -> String {
    let s = terminal_safe(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escape a single line of text for use inside a heading, list item or paragraph: the result
/// renders as exactly the given characters.
pub fn inline(text: &str) -> String {
    let flat = safe_line(text);
    let mut out = String::with_capacity(flat.len() + 8);
    escape_chars(&mut out, &flat, true);
    out
}

/// The bytes [`escape_chars`] may put a backslash before (most text has none of them).
const MAY_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let special = b"\\`*[]<&~|_#>-+=.)";
    let mut i = 0;
    while i < special.len() {
        t[special[i] as usize] = true;
        i += 1;
    }
    t
};

/// Whether `b` may take a backslash anywhere in a line but its first byte and the byte after
/// its leading digits: `\` `` ` `` `*` `[` `]` `<` `&` `~` `|` `_` `#` `>`, and `^`, which
/// never does but shares a test. Comparisons only, so that the compiler tests a vector at once.
#[inline(always)]
fn may_escape_inside(b: u8) -> bool {
    (b.wrapping_sub(b'[') <= b'`' - b'[')
        | ((b | 2) == b'~')
        | ((b | 2) == b'>')
        | (b == b'*')
        | (b == b'&')
        | (b == b'#')
}

/// The index of the first byte from `i` that [`may_escape_inside`], or the length. Prose
/// has one every few dozen bytes: a block of 32 is tested whole before its bytes are.
fn next_inside(bytes: &[u8], mut i: usize) -> usize {
    while let Some(block) = bytes.get(i..i + 32) {
        if block
            .iter()
            .fold(false, |hit, &b| hit | may_escape_inside(b))
        {
            break;
        }
        i += 32;
    }
    while i < bytes.len() && !may_escape_inside(bytes[i]) {
        i += 1;
    }
    i
}

pub(super) fn escape_chars(out: &mut String, s: &str, everywhere: bool) {
    // Every character that may need a backslash is ASCII: find them, copy the runs between.
    let bytes = s.as_bytes();
    // A line-start digit run followed by `.` or `)` would be an ordered list marker.
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut copied = 0;
    // The first byte (a digit when `digits > 0`, which never escapes) and the byte after the
    // digits are looked at whatever they are; the bytes after them only when they may escape.
    let mut i = digits;
    loop {
        if i > digits {
            i = next_inside(bytes, i);
        }
        let Some(&b) = bytes.get(i) else { break };
        let escape = MAY_ESCAPE[usize::from(b)]
            && match b {
                b'\\' | b'`' | b'*' | b'[' | b']' | b'<' | b'&' | b'~' | b'|' => true,
                b'_' => {
                    let before = s[..i].chars().next_back();
                    let after = s[i + 1..].chars().next();
                    !(before.is_some_and(char::is_alphanumeric)
                        && after.is_some_and(char::is_alphanumeric))
                }
                b'#' | b'>' => everywhere || i == 0,
                b'-' | b'+' | b'=' => i == 0,
                b'.' | b')' => digits > 0 && i == digits,
                _ => false,
            };
        if escape {
            out.push_str(&s[copied..i]);
            out.push('\\');
            copied = i;
        }
        i += 1;
    }
    out.push_str(&s[copied..]);
}

/// Escape one line of prose: leading indentation as no-break spaces, trailing whitespace
/// dropped, every syntax character escaped.
fn prose_line(out: &mut String, line: &str) {
    let line = line.trim_end();
    let body = line.trim_start_matches([' ', '\t']);
    for c in line[..line.len() - body.len()].chars() {
        let n = if c == '\t' { 4 } else { 1 };
        for _ in 0..n {
            out.push('\u{a0}');
        }
    }
    escape_chars(out, body, false);
}

/// Paragraphs of literal text: blank lines separate paragraphs, other line breaks are hard
/// breaks.
pub(super) fn prose(out: &mut String, lines: &[&str]) {
    let mut in_para = false;
    for line in lines {
        if line.trim().is_empty() {
            if in_para {
                out.push_str("\n\n");
                in_para = false;
            }
            continue;
        }
        if in_para {
            out.push_str("\\\n");
        }
        prose_line(out, line);
        in_para = true;
    }
    if in_para {
        out.push_str("\n\n");
    }
}

/// `(fence char, fence length, info)` when `line` opens a code fence.
pub(super) fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = rest.chars().take_while(|c| *c == ch).count();
    if n < 3 {
        return None;
    }
    let info = &rest[n..];
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some((ch, n, info.trim()))
}

fn fence_close(line: &str, ch: char, len: usize) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let n = rest.chars().take_while(|c| *c == ch).count();
    n >= len && rest[n..].trim().is_empty()
}

/// Any text (a prompt, a reply, a summary) as Markdown that renders literally, except that
/// code fences in it stay code blocks.
pub fn text_block(text: &str) -> String {
    let text = normalize(text);
    let text = terminal_safe(&text);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 8);
    let mut start = 0;
    let mut i = 0;
    while i < lines.len() {
        if let Some((ch, n, info)) = fence_open(lines[i]) {
            prose(&mut out, &lines[start..i]);
            let mut j = i + 1;
            while j < lines.len() && !fence_close(lines[j], ch, n) {
                j += 1;
            }
            let lang = info.split_whitespace().next().unwrap_or("");
            let body_end = j.min(lines.len());
            let mut code = lines[i + 1..body_end].join("\n");
            if !code.is_empty() {
                code.push('\n');
            }
            out.push_str(&fence(lang, &code));
            i = (j + 1).min(lines.len());
            start = i;
            continue;
        }
        i += 1;
    }
    prose(&mut out, &lines[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};

    /// [`escape_chars`] as it was first written, every byte looked at by every rule: what
    /// the block scan must give on every input.
    fn escape_bytewise(s: &str, everywhere: bool) -> String {
        let bytes = s.as_bytes();
        let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut out = String::new();
        for (i, c) in s.char_indices() {
            let escape = match c {
                '\\' | '`' | '*' | '[' | ']' | '<' | '&' | '~' | '|' => true,
                '_' => {
                    let before = s[..i].chars().next_back();
                    let after = s[i + 1..].chars().next();
                    !(before.is_some_and(char::is_alphanumeric)
                        && after.is_some_and(char::is_alphanumeric))
                }
                '#' | '>' => everywhere || i == 0,
                '-' | '+' | '=' => i == 0,
                '.' | ')' => digits > 0 && i == digits,
                _ => false,
            };
            if escape {
                out.push('\\');
            }
            out.push(c);
        }
        out
    }

    #[test]
    fn the_block_scan_escapes_as_the_bytewise_rules_do() {
        let specials: Vec<char> = "\\`*[]<&~|_#>-+=.)^}{@0123456789".chars().collect();
        let plain: Vec<char> = "abcXYZ 019\té→😀".chars().collect();
        let mut rng = crate::testing::Rng(0x2545_f491_4f6c_dd1d);
        for case in 0..6000 {
            // Dense cases put a candidate in nearly every block, sparse ones leave most blocks
            // without one; lengths run past two blocks of 32 bytes.
            let one_in = [2, 40][case % 2];
            let len = case % 97;
            let s: String = (0..len)
                .map(|_| match rng.below(one_in) {
                    0 => *rng.pick(&specials),
                    _ => *rng.pick(&plain),
                })
                .collect();
            for everywhere in [false, true] {
                let mut got = String::new();
                escape_chars(&mut got, &s, everywhere);
                assert_eq!(
                    got,
                    escape_bytewise(&s, everywhere),
                    "{s:?}, everywhere {everywhere}"
                );
            }
        }
        for s in [
            "12. item", "7) x", "# h", "> q", "- l", "+ l", "= l", "1.5", "a.b", "",
        ] {
            for everywhere in [false, true] {
                let mut got = String::new();
                escape_chars(&mut got, s, everywhere);
                assert_eq!(got, escape_bytewise(s, everywhere), "{s:?}");
            }
        }
    }

    fn events(md: &str) -> Vec<Event<'_>> {
        Parser::new(md).collect()
    }

    /// Concatenated text of a rendering, soft/hard breaks as newlines.
    fn plain(md: &str) -> String {
        let mut out = String::new();
        for e in Parser::new(md) {
            match e {
                Event::Text(t) | Event::Code(t) => out.push_str(&t),
                Event::SoftBreak | Event::HardBreak => out.push('\n'),
                Event::End(TagEnd::Paragraph) => out.push('\n'),
                _ => {}
            }
        }
        out
    }

    fn only_text(md: &str) {
        for e in events(md) {
            match e {
                Event::Start(Tag::Paragraph)
                | Event::End(TagEnd::Paragraph)
                | Event::Text(_)
                | Event::HardBreak
                | Event::SoftBreak => {}
                other => panic!("unexpected {other:?} in {md:?}"),
            }
        }
    }

    #[test]
    fn hostile_text_renders_literally() {
        let nasty = [
            "# heading",
            "## also\n===",
            "- list\n* star\n+ plus\n1. one\n2) two",
            "> quote",
            "<script>alert(1)</script>",
            "<div>\nblock\n</div>",
            "[link](http://x) ![img](y.png) <http://auto>",
            "[ref]: http://example.com",
            "*emph* _under_ **strong** __strong__",
            "`code` and ``two``",
            "&amp; &#65; &copy;",
            "---\n***\n___",
            "    indented code\n\ttabbed",
            "a | b\n--|--\n1 | 2",
            "trailing backslash \\\nnext",
            "two spaces  \nnext",
            "line\rwith CR\r# heading after CR",
            "~~strike~~ ~~~",
            "snake_case_name and _x_",
        ];
        for t in nasty {
            let md = text_block(t);
            only_text(&md);
            let expect: String = normalize(t)
                .split('\n')
                .map(|l| l.trim_end().replace('\t', "    "))
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            let got: String = plain(&md)
                .replace('\u{a0}', " ")
                .split('\n')
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            assert_eq!(got, expect, "{t:?} → {md:?}");
        }
    }

    #[test]
    fn fences_in_text_stay_code_and_close() {
        let t = "Here:\n```rust\nfn main() {}\n```\nand ~~~\n~~~sh\necho ```` hi\n~~~\nend";
        let md = text_block(t);
        let ev = events(&md);
        let blocks: Vec<String> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Start(Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(i))) => {
                    Some(i.to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(blocks, ["rust", "sh"]);
        assert!(plain(&md).contains("echo ```` hi"));
        assert!(plain(&md).ends_with("end\n"));
        // An unclosed fence runs to the end of the text, and is closed by us.
        let md = text_block("```\nnever closed\n# not a heading");
        assert!(
            !events(&md)
                .iter()
                .any(|e| matches!(e, Event::Start(Tag::Heading { .. })))
        );
    }

    #[test]
    fn fence_is_longer_than_any_backtick_run() {
        let content = "a ``````` b\n```\n````";
        let md = fence("text", content);
        assert!(md.starts_with("````````text\n"));
        let ev = events(&md);
        assert_eq!(
            ev.iter()
                .filter(|e| matches!(e, Event::Start(Tag::CodeBlock(_))))
                .count(),
            1
        );
        assert_eq!(plain(&md), format!("{content}\n"));
    }

    #[test]
    fn details_and_blockquote_nest() {
        let inner = details(
            "Result <b> & \"x\"",
            false,
            &fence("text", "```\n</details>\n"),
        );
        let md = blockquote(&format!("#### 1 · User\n\n{}", text_block("hi\n\n> there")));
        let md = format!("{md}{}", blockquote(&inner));
        let html: Vec<String> = events(&md)
            .into_iter()
            .filter_map(|e| match e {
                Event::Html(h) | Event::InlineHtml(h) => Some(h.trim().to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(
            html,
            [
                "<details>",
                "<summary>Result &lt;b&gt; &amp; &quot;x&quot;</summary>",
                "</details>"
            ]
        );
    }
}
