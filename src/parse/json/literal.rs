//! The size of a JSON string literal's text, measured on the literal itself.
//!
//! The measured view keeps a tool output's size, not its text ([`TextSize`]). Decoding a
//! long output only to measure it costs more than reading it: serde_json copies it into a
//! scratch buffer that every reader starts empty, then into a `String`, and handles each
//! escape (a shell output has one per line) on the way. Read as raw JSON text instead (as fast
//! as a skipped value), a literal's size is its length less what its escapes shrink to.

use crate::model::TextSize;

/// The size of the text the JSON string literal `raw` (quotes included) decodes to, as
/// [`TextSize::of`] measures that text. `None` for anything but a string literal, and for a
/// literal serde_json would not decode as a `str` (a lone UTF-16 surrogate escape): the
/// caller then decodes it the usual way.
pub fn literal_size(raw: &str) -> Option<TextSize> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let (bytes, units) = textstats::json_unescape_shrink(inner.as_bytes())?;
    Some(TextSize {
        bytes: inner.len() as u64 - bytes,
        utf16: crate::tokens::utf16_len(inner) as u64 - units,
    })
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
