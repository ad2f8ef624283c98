//! The size of a JSON string literal's text, measured on the literal itself.
//!
//! The measured view keeps a tool output's size, not its text ([`TextSize`]). Decoding a
//! long output only to measure it costs more than reading it: serde_json copies it into a
//! scratch buffer that every reader starts empty, then into a `String`, and handles each
//! escape (a shell output has one per line) on the way. Read as raw JSON text instead (as fast
//! as a skipped value), a literal's size is its length less what its escapes shrink to.

use crate::model::TextSize;
use crate::parse::read::hex4;

/// The size of the text the JSON string literal `raw` (quotes included) decodes to, as
/// [`TextSize::of`] measures that text. `None` for anything but a string literal, and for a
/// literal serde_json would not decode as a `str` (a lone UTF-16 surrogate escape): the
/// caller then decodes it the usual way.
pub fn literal_size(raw: &str) -> Option<TextSize> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let b = inner.as_bytes();
    // Every byte of an escape counts as one ASCII byte and one UTF-16 unit here, and is
    // taken back below for what the escape decodes to.
    let (mut bytes, mut utf16) = (b.len() as u64, crate::tokens::utf16_len(inner) as u64);
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'\\', &b[i..]).map(|n| i + n) {
        let (len, shrink_bytes, shrink_units) = escape_at(b, at)?;
        i = at + len;
        bytes -= shrink_bytes;
        utf16 -= shrink_units;
    }
    Some(TextSize { bytes, utf16 })
}

/// The escape at `b[i]` (a backslash): its length, and how many bytes and UTF-16 units fewer
/// its character takes than the escape. `None` for a lone surrogate.
fn escape_at(b: &[u8], i: usize) -> Option<(usize, u64, u64)> {
    match *b.get(i + 1)? {
        // Two bytes for one ASCII character.
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some((2, 1, 1)),
        b'u' => match hex4(b.get(i + 2..)?)? {
            0xD800..=0xDBFF => {
                let paired = b.get(i + 6..i + 8) == Some(b"\\u")
                    && b.get(i + 8..)
                        .and_then(hex4)
                        .is_some_and(|u| (0xDC00..=0xDFFF).contains(&u));
                // Twelve bytes for a character of four bytes, two units.
                paired.then_some((12, 8, 10))
            }
            0xDC00..=0xDFFF => None,
            // Six bytes for a character of one unit.
            u => Some((6, 6 - char::from_u32(u)?.len_utf8() as u64, 5)),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every escape, two by two and beside text of every width, measured as the text
    /// serde_json decodes is measured; refused exactly where serde_json refuses the literal.
    #[test]
    fn sizes_are_those_of_the_decoded_text() {
        let pieces = [
            "",
            "a",
            "é",
            "€",
            "😀",
            "\\n",
            "\\t",
            "\\r",
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\u0041",
            "\\u00e9",
            "\\u0000",
            "\\u001f",
            "\\u07ff",
            "\\u0800",
            "\\u2028",
            "\\uFFFF",
            "\\ud83d\\ude00",
            "\\uD83D\\uDE00",
            "\\udbff\\udfff",
            "\\ud83d",
            "\\ude00",
            "\\ud83d\\u0041",
            "\\ud83dx",
            "\\\\u0041",
            "\\\\\\n",
        ];
        let (mut sized, mut refused) = (0, 0);
        for a in pieces {
            for b in pieces {
                for c in ["", "x", "\\n", "😀"] {
                    let raw = format!("\"{a}{b}{c}\"");
                    let got = literal_size(&raw);
                    match serde_json::from_str::<String>(&raw) {
                        Ok(text) => {
                            assert_eq!(got, Some(TextSize::of(&text)), "{raw}");
                            sized += 1;
                        }
                        Err(_) => {
                            assert_eq!(got, None, "{raw}");
                            refused += 1;
                        }
                    }
                }
            }
        }
        assert!(
            sized > 2000 && refused > 500,
            "{sized} sized, {refused} refused"
        );
        assert_eq!(literal_size("12"), None);
        assert_eq!(literal_size("\"open"), None);
    }

    /// A long text with escapes spread through it, where `memchr` skips long runs.
    #[test]
    fn long_texts_measure_whole() {
        let mut text = String::new();
        for i in 0..5000 {
            text.push_str(&"word ".repeat(i % 37));
            text.push(['\n', '"', '\\', '\t', 'é', '\u{1}', '😀', '\u{2028}'][i % 8]);
        }
        let raw = serde_json::to_string(&text).unwrap();
        assert!(raw.contains("\\u0001"));
        assert_eq!(literal_size(&raw), Some(TextSize::of(&text)));
    }
}
