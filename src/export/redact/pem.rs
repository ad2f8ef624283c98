//! Private-key blocks: the header, the key body that follows it, and the END line when the
//! text still has it. A cut key (an output truncated inside it) is the header and the body
//! lines that remain; a header with no body after it is a mention (in code, prose, a
//! scanner's pattern) and nothing is taken, so text after it is never lost.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

static BEGIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").expect("key header pattern")
});

static END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").expect("key footer pattern")
});

/// What a line of the body can be, once a numbering or quoting prefix is set aside
/// (`    12→` from a file read, `> ` from a quote).
static PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^[ \t>]*(?:[0-9]+(?:→|\t))?[ \t]*["']?"#).expect("key line prefix pattern")
});

/// PEM and armour headers inside a block (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`,
/// `Version: GnuPG v2`).
static ARMOUR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset|MessageID):[ \t]")
        .expect("armour header pattern")
});

/// Base64 words (and a PGP checksum `=S08k`).
fn base64_words(s: &str) -> Option<usize> {
    let mut longest = 0;
    for w in s.split_ascii_whitespace() {
        let body = w.strip_prefix('=').unwrap_or(w);
        let body = body.trim_end_matches('=');
        if body.is_empty()
            || !body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        {
            return None;
        }
        longest = longest.max(w.len());
    }
    (longest > 0).then_some(longest)
}

/// The end of the line starting at `at` and where the next one starts. Lines end at a newline
/// or at a written `\n` (a key inside a JSON string in a tool output).
fn line_at(text: &str, at: usize) -> (usize, Option<usize>) {
    let rest = &text[at..];
    let nl = memchr::memchr(b'\n', rest.as_bytes());
    // A written `\n` only before the newline: each line costs its own length, never the
    // rest of the text (a text of many headers stays linear).
    let esc = rest[..nl.unwrap_or(rest.len())].find("\\n");
    match (nl, esc) {
        (_, Some(e)) => (at + e, Some(at + e + 2)),
        (Some(n), None) => (at + n, Some(at + n + 1)),
        (None, None) => (text.len(), None),
    }
}

/// Where the key whose header ends at `from` ends, if key material follows the header.
fn key_end(text: &str, from: usize) -> Option<usize> {
    let mut at = from;
    let mut end = None;
    // A short base64 line is the last line of a body, not a word of prose, only after a
    // full-length one.
    let mut long_seen = false;
    loop {
        let (line_end, next) = line_at(text, at);
        let line = &text[at..line_end];
        let skip = PREFIX.find(line).map_or(0, |m| m.end());
        let content = line[skip..].trim_end_matches(['\r', ' ', '\t']);
        let content = content.strip_suffix("\\r").unwrap_or(content);
        if let Some(m) = END.find(content) {
            let before = &content[..m.start()];
            if before.trim().is_empty() || base64_words(before).is_some() {
                return Some(at + skip + m.end());
            }
            return end;
        }
        let body = content
            .trim_end_matches(['"', '\'', ',', '+', ';'])
            .trim_end();
        if body.is_empty() {
            // Blank lines separate armour headers from the body; they are not taken alone.
        } else if ARMOUR.is_match(body) {
            end = Some(at + skip + body.len());
        } else if let Some(longest) = base64_words(body) {
            if longest < 16 && !long_seen {
                return end;
            }
            long_seen |= longest >= 16;
            end = Some(at + skip + body.len());
        } else {
            // A line cut inside the key (`MIIEpAIB… (output cut)`): its base64 run is key.
            let run = body
                .bytes()
                .take_while(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
                .count();
            return if run >= 16 {
                Some(at + skip + run)
            } else {
                end
            };
        }
        match next {
            Some(n) if n < text.len() => at = n,
            _ => return end,
        }
    }
}

/// The longest private-key block taken whole up to its END line (an RSA 4096 PEM key is about
/// 3.3 KB, a PGP secret key block a few times that).
const MAX_BLOCK: usize = 32 * 1024;

/// Whether the lines between a header and an END line are mostly key material (base64 or
/// armour headers), one odd line in a key aside: code between a scanner's two patterns is not.
fn mostly_key(body: &str) -> bool {
    let (mut key, mut other) = (0usize, 0usize);
    for line in body.split('\n').flat_map(|l| l.split("\\n")) {
        let skip = PREFIX.find(line).map_or(0, |m| m.end());
        let content = line[skip..]
            .trim_end_matches(['\r', ' ', '\t', '"', '\'', ',', '+', ';'])
            .trim();
        if content.is_empty() {
            continue;
        }
        if ARMOUR.is_match(content) || base64_words(content).is_some() {
            key += 1;
        } else {
            other += 1;
        }
    }
    key > 0 && key >= 2 * other
}

/// Every private-key block in `text`.
pub(super) fn blocks(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for m in BEGIN.find_iter(text) {
        if out.last().is_some_and(|r| r.end > m.start()) {
            continue;
        }
        // A whole block goes up to its END line, whatever its lines look like (a key body
        // scrubbed by another tool, lines prefixed some unknown way), as long as no other
        // block starts before it. Without an END line, the key is what the walk finds.
        // Looked for within a key's reach only: a text of many headers and no END line stays
        // linear, and a scanner's BEGIN and END patterns far apart take nothing between them.
        let rest = &text[m.end()..];
        let mut reach = rest.len().min(MAX_BLOCK);
        while !rest.is_char_boundary(reach) {
            reach -= 1;
        }
        let window = &rest[..reach];
        let whole = END
            .find(window)
            .filter(|e| {
                let body = &window[..e.start()];
                !BEGIN.is_match(body) && mostly_key(body)
            })
            .map(|e| m.end() + e.end());
        let end = whole.or_else(|| key_end(text, m.end()));
        if let Some(end) = end {
            out.push(m.start()..end);
        }
    }
    out
}
