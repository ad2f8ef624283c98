//! Session text made safe and measured for a terminal.
//!
//! Session files are untrusted: a title or a tool output can hold ESC sequences that retitle the
//! terminal, clear the screen or write the clipboard (OSC 52). Everything printed for humans
//! goes through [`terminal_safe`] (multi-line text) or [`safe_line`] (one line: table cells,
//! previews), which show control characters as visible escapes instead of sending them:
//! `ESC` → `^[`, `DEL` → `^?`, C1 controls as `M-^[` (the `cat -v` notation), and the
//! bidirectional overrides that can reorder what a line appears to say as `<U+202E>`.
//! JSON output keeps the characters (escaped by the serialiser).
//!
//! Widths are display columns (`unicode-width`): CJK and most emoji take two, a soft hyphen
//! one (`SOFT_HYPHEN`).

use std::borrow::Cow;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Bidirectional formatting characters (embeddings, overrides, isolates, marks that are not
/// harmless).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{061C}')
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

// The byte test of the characters that need an escape, and the check of a whole text with
// it, are in `textstats`, built for AVX2 where the CPU has it: tool outputs run to megabytes.
use textstats::has_terminal_escape as has_escape;
#[cfg(test)]
use textstats::terminal_escape_starts as escape_starts;

fn push_escape(out: &mut String, c: char) {
    let n = c as u32;
    match n {
        0x00..=0x1F => {
            out.push('^');
            out.push(char::from(n as u8 + 0x40));
        }
        0x7F => out.push_str("^?"),
        0x80..=0x9F => {
            out.push_str("M-^");
            out.push(char::from((n - 0x80) as u8 + 0x40));
        }
        _ => out.push_str(&format!("<U+{n:04X}>")),
    }
}

/// Multi-line text for a terminal: newlines and tabs are kept, a CR LF pair becomes a newline,
/// every other control character is shown as a visible escape.
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    if !has_escape(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => {}
            c if needs_escape(c) => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// One line exactly as written but for its control characters, newlines and tabs included,
/// shown as visible escapes: a path or a name typed on the command line, where a run of spaces
/// is part of the name and must not be collapsed as [`safe_line`] does.
pub fn safe_one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if needs_escape(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s.lines().count()`, from a vectorised count of newlines: tool outputs run to megabytes.
pub fn line_count(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
        + usize::from(!s.is_empty() && !s.ends_with('\n'))
}

/// One line for a terminal (a table cell, a preview): runs of whitespace, line breaks included,
/// become one space; leading and trailing whitespace goes; control characters are shown as
/// visible escapes.
pub fn safe_line(s: &str) -> String {
    let mut line = SafeLine::with_capacity(s.len());
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Printable ASCII, most of any text, is copied a run at a time, with the single
        // spaces between its words: a space the line keeps as it is.
        let run = printable_run(&bytes[i..]);
        if run > 0 {
            line.push_plain(&s[i..i + run]);
            i += run;
            continue;
        }
        // Anything else one character at a time (`i` is at a character boundary: a run of
        // ASCII ends at one).
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        line.push(c);
    }
    line.out
}

/// The length of the run of printable ASCII that `b` starts with, single spaces between
/// printable characters included (0 when `b` starts with anything else). A run ends before a
/// space that anything but a printable character follows (another space, other whitespace, a
/// character that is not ASCII, the end), which [`safe_line`] takes character by character.
fn printable_run(b: &[u8]) -> usize {
    let printable = |c: u8| (0x21..=0x7e).contains(&c);
    let mut j = 0;
    while j < b.len() {
        if printable(b[j]) {
            j += 1;
        } else if j > 0 && b[j] == b' ' && b.get(j + 1).is_some_and(|&c| printable(c)) {
            j += 2;
        } else {
            break;
        }
    }
    j
}

/// The line [`safe_line`] builds, character by character.
struct SafeLine {
    out: String,
    /// Whitespace was skipped since the last character kept (and something was kept before).
    space: bool,
}

impl SafeLine {
    fn with_capacity(n: usize) -> Self {
        SafeLine {
            out: String::with_capacity(n),
            space: false,
        }
    }

    /// Text that is neither whitespace nor escaped (printable ASCII).
    fn push_plain(&mut self, t: &str) {
        self.separate();
        self.out.push_str(t);
    }

    fn push(&mut self, c: char) {
        if c.is_whitespace() {
            self.space = !self.out.is_empty();
            return;
        }
        self.separate();
        if needs_escape(c) {
            push_escape(&mut self.out, c);
        } else {
            self.out.push(c);
        }
    }

    fn separate(&mut self) {
        if std::mem::take(&mut self.space) {
            self.out.push(' ');
        }
    }
}

/// `preview(&safe_line(s), max)`, reading only as much of `s` as the preview can show: a
/// message can run to megabytes. Exact: [`safe_line`] of a prefix is a prefix of its result
/// on the whole, and a preview reads no further than its `max + 1`-th character.
pub fn safe_preview(s: &str, max: usize) -> String {
    let mut take = max.saturating_add(1).saturating_mul(4);
    while take < s.len() {
        if let Some(p) = preview_of_beginning(s, take, max) {
            return p;
        }
        take = take.saturating_mul(4);
    }
    crate::parse::preview(&safe_line(s), max)
}

/// `preview(&safe_line(s), max)` from the first `take` bytes of `s` (to a character
/// boundary), when their line has more than `max` characters; `None` when it has not, and more
/// of `s` must be read. Exact for the same reason as [`safe_preview`]: whatever `s` goes on
/// to hold, its line begins with those characters.
pub fn preview_of_beginning(s: &str, take: usize, max: usize) -> Option<String> {
    let line = safe_line(beginning(s, take));
    (line.chars().count() > max).then(|| crate::parse::preview(&line, max))
}

/// The first `take` bytes of `s`, or a few more to end at a character boundary (all of `s`
/// when it is no longer).
fn beginning(s: &str, take: usize) -> &str {
    let end = (take..s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[..end]
}

/// The beginning of `s` that a line of at most `columns` columns shows the same as it shows
/// `s`: `cut_end(&safe_line(b), m)` equals `cut_end(&safe_line(s), m)` for every `m <=
/// columns`. All of `s` when its line is no wider, else a beginning whose line is wider (grown
/// fourfold from `4 × (columns + 1)` bytes: whitespace, escapes and zero-width characters make
/// a line's width no simple function of the bytes). Exact: [`safe_line`] of a beginning is a
/// beginning of its result on the whole (but for a trailing space, past the width), so both
/// lines are cut, at the same character.
pub fn line_beginning(s: &str, columns: usize) -> &str {
    let mut take = columns.saturating_add(1).saturating_mul(4);
    loop {
        if take >= s.len() {
            return s;
        }
        let b = beginning(s, take);
        if width(&safe_line(b)) > columns {
            return b;
        }
        take = take.saturating_mul(4);
    }
}

/// Wrap prose at word boundaries to `max` display columns (`None`: one line per paragraph).
/// Continuation lines are indented by `indent` spaces. A word longer than a line is broken
/// where the line ends, so that the output fits.
pub fn wrap(s: &str, max: Option<usize>, indent: usize) -> String {
    wrap_text(s, max, indent, true)
}

/// [`wrap`] for diagnostics: lines break at spaces only, and a word longer than a line (a
/// path, an id) goes on a line of its own, whole, however far it overflows: a path broken
/// in two can no longer be copied from the terminal.
pub fn wrap_at_spaces(s: &str, max: Option<usize>, indent: usize) -> String {
    wrap_text(s, max, indent, false)
}

fn wrap_text(s: &str, max: Option<usize>, indent: usize, break_long: bool) -> String {
    let Some(max) = max.filter(|m| *m > indent + 10) else {
        return s.to_string();
    };
    let mut out = String::with_capacity(s.len() + s.len() / max * (indent + 1));
    let mut col = 0;
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        let w = width(word);
        // A word longer than a line (an identifier, a URL) is broken where the line ends:
        // cut, it would lose text; whole, it would overflow.
        if break_long && w > max - indent {
            if col > 0 && col + 2 > max {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', indent));
                col = indent;
            } else if col > 0 {
                out.push(' ');
                col += 1;
            }
            for c in word.chars() {
                let cw = char_width(c);
                if col + cw > max {
                    out.push('\n');
                    out.extend(std::iter::repeat_n(' ', indent));
                    col = indent;
                }
                out.push(c);
                col += cw;
            }
            continue;
        }
        if col > 0 && col + 1 + w > max {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', indent));
            col = indent;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += w;
    }
    out
}

/// The soft hyphen, U+00AD: `unicode-width` 0.2 gives it no width (it is default-ignorable),
/// but glibc's `wcwidth` gives it 1 and the terminals that follow it (xterm, VTE) draw it as
/// a hyphen; others (like `less`, which treats format characters as composing) draw nothing.
/// Counted as one column, a line holding one is never wider than the width it was cut to, at
/// worst a column short.
const SOFT_HYPHEN: char = '\u{ad}';

/// Display width in terminal columns (a soft hyphen counts one: `SOFT_HYPHEN`).
pub fn width(s: &str) -> usize {
    let w = UnicodeWidthStr::width(s);
    // Most cells are ASCII: no second scan for them.
    if !s.is_ascii() && s.contains(SOFT_HYPHEN) {
        w + s.matches(SOFT_HYPHEN).count()
    } else {
        w
    }
}

fn char_width(c: char) -> usize {
    if c == SOFT_HYPHEN {
        return 1;
    }
    UnicodeWidthChar::width(c).unwrap_or(0)
}

/// Cut `s` to at most `max` columns, keeping the start and ending with `…` when cut (titles).
pub fn cut_end(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw > max - 1 {
            break;
        }
        out.push(c);
        w += cw;
    }
    if let Some((open, _)) = escape_across(s, out.len()) {
        out.truncate(open);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('…');
    out
}

/// Cut `s` to at most `max` columns, keeping the end and starting with `…` when cut (paths:
/// the last folders say the most). The kept end starts at a `/` when it holds one, so no folder
/// name is shown half.
pub fn cut_start(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut start = s.len();
    let mut w = 0;
    for (i, c) in s.char_indices().rev() {
        let cw = char_width(c);
        if w + cw > max - 1 {
            break;
        }
        start = i;
        w += cw;
    }
    if let Some((_, end)) = escape_across(s, start) {
        start = end;
    }
    let mut tail = &s[start..];
    if let Some(slash) = tail.find(['/', '\\'])
        && slash > 0
        && slash + 1 < tail.len()
    {
        tail = &tail[slash..];
    }
    format!("…{tail}")
}

/// The first `max` columns of `s`, with no ellipsis (an id prefix stays a valid prefix).
pub fn cut_prefix(s: &str, max: usize) -> String {
    let mut end = 0;
    let mut w = 0;
    for (i, c) in s.char_indices() {
        let cw = char_width(c);
        if w + cw > max {
            break;
        }
        end = i + c.len_utf8();
        w += cw;
    }
    if let Some((open, _)) = escape_across(s, end) {
        end = open;
    }
    s[..end].to_string()
}

/// The byte span of the visible escape (`^[`, `<U+202E>`, as [`safe_line`] writes them) that a cut
/// at byte `at` would split, if any: a cut keeps such an escape whole or drops it, since half of
/// one reads as text.
fn escape_across(s: &str, at: usize) -> Option<(usize, usize)> {
    caret_across(s, at).or_else(|| code_point_across(s, at))
}

/// The span of a caret escape (`^[`, `^?`, `M-^[`) that a cut at byte `at` would split. Text
/// that merely reads like one is kept whole the same way: a column lost at a cut, never an
/// escape shown as a `^` and a letter apart.
fn caret_across(s: &str, at: usize) -> Option<(usize, usize)> {
    let (before, after) = (&s.as_bytes()[..at], &s.as_bytes()[at..]);
    let caret_char = |b: Option<&u8>| b.is_some_and(|&b| (b'@'..=b'_').contains(&b) || b == b'?');
    // Where the escape would open and how much of it comes after the cut.
    let (open, rest) = if before.ends_with(b"M-^") {
        (at - 3, 1)
    } else if before.ends_with(b"M-") && after.first() == Some(&b'^') {
        (at - 2, 2)
    } else if before.ends_with(b"M") && after.starts_with(b"-^") {
        (at - 1, 3)
    } else if before.ends_with(b"^") {
        (at - 1, 1)
    } else {
        return None;
    };
    caret_char(s.as_bytes().get(at + rest - 1)).then_some((open, at + rest))
}

/// The span of a code point escape (`<U+202E>`) that a cut at byte `at` would split.
fn code_point_across(s: &str, at: usize) -> Option<(usize, usize)> {
    // An escape holds no `<`: the last one before the cut opens it, if any does.
    let open = s[..at].rfind('<')?;
    let close = open + s[open..].find('>')?;
    let digits = s[open + 1..close].strip_prefix("U+")?;
    let is_escape =
        (4..=6).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_hexdigit());
    (is_escape && at <= close).then_some((open, close + 1))
}

/// `s` padded with spaces to `cols` columns (on the right, or on the left when `right`).
pub fn pad(s: &str, cols: usize, right: bool) -> String {
    let fill = cols.saturating_sub(width(s));
    if right {
        format!("{}{s}", " ".repeat(fill))
    } else {
        format!("{s}{}", " ".repeat(fill))
    }
}

#[cfg(test)]
mod tests {
    /// A soft hyphen takes the column a `wcwidth` terminal gives it, in a whole line and in
    /// every cut, so that no cut line is wider than asked on such a terminal.
    #[test]
    fn a_soft_hyphen_counts_one_column() {
        let s = "ex\u{ad}am\u{ad}ple\u{ad}".repeat(10);
        assert_eq!(width(&s), 100);
        let wcwidth = |t: &str| t.chars().count();
        for max in [1, 5, 10, 33, 80] {
            for cut in [cut_end(&s, max), cut_start(&s, max), cut_prefix(&s, max)] {
                assert!(wcwidth(&cut) <= max, "{max}: {cut:?}");
            }
            let wrapped = wrap(&format!("a {s}"), Some(max.max(20)), 2);
            assert!(
                wrapped.lines().all(|l| wcwidth(l) <= max.max(20)),
                "{wrapped}"
            );
        }
        assert_eq!(pad("\u{ad}", 3, false), "\u{ad}  ");
    }

    #[test]
    fn a_word_longer_than_the_line_is_broken_not_overflowing() {
        let text = "newest COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET: tokens kept";
        let out = wrap(text, Some(30), 4);
        assert!(out.lines().all(|l| width(l) <= 30), "{out}");
        assert_eq!(out.replace(['\n', ' '], ""), text.replace(' ', ""));
    }

    #[test]
    fn a_safe_preview_is_the_preview_of_the_safe_line() {
        let cases = [
            String::new(),
            "short".into(),
            " \n\t lead and trail \r\n".into(),
            "x".repeat(5000),
            format!(
                "{}{}",
                " ".repeat(3000),
                "after a long run of spaces ".repeat(10)
            ),
            format!("{}tail", "a\u{1}b\u{9b}c\u{200b} ".repeat(700)),
            format!("{}é", "é".repeat(1023)),
            "word ".repeat(2000),
            format!("{}{}", "\n".repeat(5000), "z".repeat(70)),
        ];
        for s in &cases {
            for max in [0, 1, 40, 60, 120, 3000] {
                assert_eq!(
                    super::safe_preview(s, max),
                    crate::parse::preview(&super::safe_line(s), max),
                    "{max}: {:?}",
                    &s[..s.len().min(40)]
                );
            }
        }
    }

    use super::*;

    #[test]
    fn one_line_keeps_spaces_and_shows_every_control() {
        assert_eq!(safe_one_line("a  b/c.md"), "a  b/c.md");
        assert_eq!(
            safe_one_line("o\u{1b}]0;T\u{7}\t\n\u{202e}.md"),
            "o^[]0;T^G^I^J<U+202E>.md"
        );
    }

    #[test]
    fn a_line_cut_from_the_beginning_is_the_line_cut_from_the_whole() {
        let cases = [
            String::new(),
            "short".into(),
            "x".repeat(5000),
            format!("{}{}", " \n\t".repeat(3000), "after spaces ".repeat(40)),
            format!("{}tail", "a\u{1}b\u{9b}c\u{200b} ".repeat(700)),
            format!("{}é", "é".repeat(1023)),
            "日本語".repeat(900),
            format!("a{}b{}", "\u{200d}".repeat(4000), "c".repeat(300)),
            "word ".repeat(2000),
            format!("{} ", "y".repeat(97)),
        ];
        for s in &cases {
            for columns in [0, 1, 12, 80, 160, 1000] {
                let b = line_beginning(s, columns);
                assert!(s.starts_with(b));
                let (line, whole) = (safe_line(b), safe_line(s));
                assert!(
                    b.len() == s.len() || width(&line) > columns,
                    "{columns}: {s:.40?}"
                );
                for m in 0..=columns.min(200) {
                    assert_eq!(
                        cut_end(&line, m),
                        cut_end(&whole, m),
                        "{m}/{columns}: {s:.40?}"
                    );
                }
                assert_eq!(cut_end(&line, columns), cut_end(&whole, columns));
            }
        }
        // Most of a long output is left out.
        assert!(line_beginning(&"x".repeat(100_000), 160).len() < 1_000);
    }

    #[test]
    fn control_characters_become_visible() {
        let hostile = "title\x1b]0;pwned\x07 \x1b[2J\u{9b}31m\x7f\u{202e}evil";
        let line = safe_line(hostile);
        assert_eq!(line, "title^[]0;pwned^G ^[[2JM-^[31m^?<U+202E>evil");
        assert!(!line.chars().any(|c| c.is_control()));
        assert_eq!(terminal_safe("a\r\nb\tc\rd\x1b"), "a\nb\tc^Md^[");
        assert!(matches!(terminal_safe("plain\ntext"), Cow::Borrowed(_)));
        assert_eq!(safe_line("  two\n\n lines\t "), "two lines");
    }

    #[test]
    fn widths_and_cuts() {
        assert_eq!(width("日本語"), 6);
        assert_eq!(width("ok🙂"), 4);
        assert_eq!(cut_end("日本語のタイトル", 7), "日本語…");
        assert!(width(&cut_end("日本語のタイトル", 7)) <= 7);
        assert_eq!(cut_end("short", 10), "short");
        assert_eq!(cut_end("a long title", 7), "a long…");
        // A visible escape is never cut in half.
        let escaped = safe_line("abc\u{202E}def");
        assert_eq!(escaped, "abc<U+202E>def");
        assert_eq!(cut_end(&escaped, 8), "abc…");
        assert_eq!(cut_end(&escaped, 12), "abc<U+202E>…");
        assert_eq!(cut_start("/home/dev/api-server", 12), "…/api-server");
        assert_eq!(cut_start("/home/dev/api-server", 17), "…/dev/api-server");
        assert_eq!(cut_start("/home/dev/ml-notebooks", 12), "…l-notebooks");
        assert_eq!(cut_start("/home/日本/プロジェクト", 9), "…ジェクト");
        assert_eq!(cut_prefix("019d4e99-de40-7b52", 8), "019d4e99");
        // Nor at either end of a cut that keeps the end, or of a prefix.
        assert_eq!(cut_start(&escaped, 7), "…def");
        assert_eq!(cut_start(&escaped, 12), "…<U+202E>def");
        assert_eq!(cut_prefix(&escaped, 5), "abc");
        assert_eq!(cut_prefix(&escaped, 11), "abc<U+202E>");
        assert_eq!(cut_prefix("a<U+x>b", 4), "a<U+");
        assert_eq!(cut_prefix("a<b>c<U+202E>", 3), "a<b");
        // Caret escapes too: `^[` cut after its `^` would read as a `[` in the text.
        let carets = safe_line("ab\u{1b}]0;x\u{7f}\u{9b}z");
        assert_eq!(carets, "ab^[]0;x^?M-^[z");
        assert_eq!(cut_end(&carets, 4), "ab…");
        assert_eq!(cut_end(&carets, 5), "ab^[…");
        assert_eq!(cut_prefix(&carets, 3), "ab");
        assert_eq!(cut_prefix(&carets, 9), "ab^[]0;x");
        assert_eq!(cut_prefix(&carets, 10), "ab^[]0;x^?");
        for (max, kept) in [
            (11, "ab^[]0;x^?"),
            (12, "ab^[]0;x^?"),
            (13, "ab^[]0;x^?"),
            (14, "ab^[]0;x^?M-^["),
        ] {
            assert_eq!(cut_prefix(&carets, max), kept, "{max}");
        }
        assert_eq!(cut_start(&carets, 3), "…z");
        assert_eq!(cut_start(&carets, 4), "…z");
        assert_eq!(cut_start(&carets, 5), "…z");
        assert_eq!(cut_start(&carets, 6), "…M-^[z");
        assert_eq!(cut_start(&carets, 8), "…^?M-^[z");
        assert_eq!(cut_start("ab^[]x", 5), "…^[]x");
        assert_eq!(cut_start("ab^[]x", 4), "…]x");
        assert_eq!(pad("日本", 6, false), "日本  ");
        assert_eq!(pad("7", 3, true), "  7");
    }

    #[test]
    fn the_bytes_of_a_character_say_whether_it_needs_an_escape() {
        let mut buf = [0u8; 4];
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
            let want = needs_escape(c) && c != '\n' && c != '\t';
            assert_eq!(
                escape_starts(at(0), at(1), at(2)),
                want,
                "U+{:04X}",
                c as u32
            );
            // Whatever follows a character of one or two bytes, its own bytes decide.
            for next in [0u8, b'a', 0x80, 0x9c, 0xaa, 0xe2] {
                let (b1, b2) = match bytes.len() {
                    1 => (next, next),
                    2 => (at(1), next),
                    _ => (at(1), at(2)),
                };
                assert_eq!(escape_starts(at(0), b1, b2), want, "U+{:04X}", c as u32);
            }
        }
        // A continuation byte never starts an escape, whatever follows it.
        for b0 in 0x80..=0xbfu8 {
            for b1 in 0..=255u8 {
                for b2 in 0..=255u8 {
                    assert!(!escape_starts(b0, b1, b2));
                }
            }
        }
        assert!(!has_escape(
            "plain text,\ttabs\nand lines, é ü 日本 → — … \u{2028}"
        ));
        assert!(has_escape("→\u{202e}"));
        assert!(has_escape("ab\u{1b}"));
        assert!(has_escape("\u{85}"));
    }

    /// [`safe_line`] one character at a time: what the runs of ASCII must equal.
    fn safe_line_by_chars(s: &str) -> String {
        let mut line = SafeLine::with_capacity(0);
        s.chars().for_each(|c| line.push(c));
        line.out
    }

    #[test]
    fn runs_of_ascii_and_sparse_suspects_give_what_characters_give() {
        let pieces = [
            "plain words",
            " ",
            "\t",
            "\n",
            "\r\n",
            "\u{b}\u{c}",
            "\u{1c}\u{1f}",
            "\x1b[2J",
            "\x7f",
            "\u{85}",
            "\u{9b}",
            "\u{a0}",
            "é",
            "日本",
            "—",
            "…",
            "\u{2028}",
            "→",
            "\u{202e}",
            "\u{2066}",
            "\u{61c}",
            "\u{600}",
            "🎉",
            "\u{3000}",
            "~!",
        ];
        let mut s = String::new();
        let mut x: u64 = 7;
        for _ in 0..3000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push_str(pieces[(x >> 33) as usize % pieces.len()]);
            let from = (s.len().saturating_sub(90)..=s.len())
                .find(|&k| s.is_char_boundary(k))
                .unwrap_or(s.len());
            let t = &s[from..];
            for x in [t, s.as_str()] {
                assert_eq!(safe_line(x), safe_line_by_chars(x), "{x:?}");
                let by_chars = x.chars().any(|c| needs_escape(c) && c != '\n' && c != '\t');
                assert_eq!(has_escape(x), by_chars, "{x:?}");
            }
        }
    }

    #[test]
    fn line_count_is_lines_count() {
        for s in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\n",
            "a\n\nb\n",
            "\r\n",
            "x\ry",
        ] {
            assert_eq!(line_count(s), s.lines().count(), "{s:?}");
        }
    }
}
