//! Lone UTF-16 surrogate escapes (`"\ud83d"`, a JavaScript string cut inside an emoji), which
//! strict JSON readers refuse: mended in place to U+FFFD so the record is kept.

use textstats::hex4;

/// Decode a JSON string literal (with its quotes), reading a lone surrogate escape as U+FFFD
/// like the line reader does.
pub fn decode_string(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    match serde_json::from_str::<std::borrow::Cow<str>>(raw) {
        Ok(s) => Some(s),
        Err(_) => {
            let mut b = raw.as_bytes().to_vec();
            repair_lone_surrogates(&mut b);
            serde_json::from_slice::<String>(&b)
                .ok()
                .map(std::borrow::Cow::Owned)
        }
    }
}

/// JavaScript writes a string cut inside an emoji as a lone UTF-16 surrogate escape
/// (`"\ud83d"`), which strict JSON readers refuse. Rewrite each lone surrogate escape as
/// `\ufffd` (the same six bytes, in place), so the record is kept with a replacement character.
pub fn repair_lone_surrogates(line: &mut [u8]) {
    // Two SIMD passes rule out almost every line: only `\ud8`..`\udf` (either case) can be a
    // surrogate, while `\u` escapes of other characters are common (ASCII-only writers).
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
    let mut from = 0;
    // Fast exit: most lines hold no `\u` escape at all, and very few a surrogate one.
    while let Some(i) = FINDER.find(&line[from..]).map(|i| i + from) {
        from = i + 2;
        // `\\u` is an escaped backslash followed by a `u`: not an escape.
        let backslashes = line[..i].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 1 {
            continue;
        }
        let Some(unit) = hex4(&line[i + 2..]) else {
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                let paired = line.get(i + 6..i + 8) == Some(b"\\u")
                    && hex4(&line[i + 8..]).is_some_and(|u| (0xDC00..=0xDFFF).contains(&u));
                if paired {
                    from = i + 12;
                } else {
                    line[i + 2..i + 6].copy_from_slice(b"fffd");
                    from = i + 6;
                }
            }
            0xDC00..=0xDFFF => {
                line[i + 2..i + 6].copy_from_slice(b"fffd");
                from = i + 6;
            }
            _ => from = i + 6,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let (seen, w) = run(
            b"{\"a\":\"cut \\ud83d\"}\n{\"a\":\"\\udc00x\"}\n{\"a\":\"pair \\ud83d\\ude00\"}\n{\"a\":\"not \\\\ud83d\"}\n",
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            seen,
            vec![
                (1, "cut \u{fffd}".into()),
                (2, "\u{fffd}x".into()),
                (3, "pair 😀".into()),
                (4, "not \\ud83d".into()),
            ]
        );
    }
}
