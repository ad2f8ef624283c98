use super::*;

/// Text that crosses block boundaries with every class of byte the counts tell apart.
fn mixed() -> String {
    let pieces = [
        "plain ascii text ",
        "\"quoted\" \\ ",
        "\n\r\t\u{8}\u{c}",
        "\u{1}\u{1f}\u{7f}",
        "é ü ",
        "日本語 ",
        "emoji 🎉 ",
        "\u{2028}",
        "{\"a\": [1, {\"b\": []}]} ",
    ];
    let mut text = String::new();
    for i in 0..400usize {
        text.push_str(pieces[(i * 7 + i / 3) % pieces.len()]);
    }
    text
}

/// Every prefix of `text` that ends on a character boundary.
fn prefixes(text: &str) -> impl Iterator<Item = &str> {
    (0..=text.len())
        .filter(|&e| text.is_char_boundary(e))
        .map(|e| &text[..e])
}

#[test]
fn utf16_len_counts_code_units() {
    for s in [
        "",
        "abc",
        "é",
        "日本語",
        "🎉",
        "a🎉b\u{10FFFF}c",
        "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}",
    ] {
        assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s:?}");
    }
    // Past one 64-byte block, every prefix: the blocks and the tail agree with the decoder.
    let long = "x🎉é日\u{10FFFF}".repeat(40);
    for s in prefixes(&long) {
        assert_eq!(utf16_len(s), s.encode_utf16().count(), "{}", s.len());
    }
}

#[test]
fn text_stats_in_blocks_equal_byte_by_byte_and_the_decoder() {
    let text = mixed();
    for t in prefixes(&text) {
        let st = text_stats(t);
        assert_eq!(st, text_stats_bytes(t.as_bytes()), "{t:?}");
        assert_eq!(st.units as usize, t.encode_utf16().count());
        assert_eq!(
            st.astral as usize,
            t.chars().filter(|c| c.len_utf16() == 2).count()
        );
        assert_eq!(
            st.non_ascii as usize,
            t.chars()
                .filter(|c| !c.is_ascii())
                .map(char::len_utf16)
                .sum::<usize>()
        );
    }
}

#[test]
fn the_escaped_length_is_that_of_serde_jsons_literal() {
    // serde_json writes a string as `JSON.stringify` does: the short escapes, `\u00XX` for
    // the other controls, everything else as it is.
    let text = mixed();
    for t in prefixes(&text).step_by(7) {
        let literal = serde_json::to_string(t).unwrap();
        let inner = &literal[1..literal.len() - 1];
        assert_eq!(
            text_stats(t).escaped as usize,
            inner.encode_utf16().count(),
            "{t:?}"
        );
        assert_eq!(json_escape_extra(t), inner.len() - t.len(), "{t:?}");
    }
}

#[test]
fn openers_are_counted_exactly_up_to_the_limit() {
    let text = mixed();
    for line in prefixes(&text).step_by(5) {
        let want = line.bytes().filter(|&b| b == b'[' || b == b'{').count();
        for limit in [0, 1, 3, 127] {
            let got = openers_up_to(line.as_bytes(), limit);
            if want <= limit {
                assert_eq!(got, want, "{line:?} {limit}");
            } else {
                assert!(
                    got > limit && got <= want,
                    "{line:?} {limit}: {got} of {want}"
                );
            }
        }
    }
}

/// The counts built for AVX2 (which the public functions run where this CPU has it) equal the
/// portable build's, at every length of text several blocks long.
#[test]
fn both_builds_of_the_counts_agree() {
    // Controls and a bidirectional override past the first blocks, for the terminal check.
    let text = mixed().repeat(2) + "\u{1b}[0m" + &mixed() + "\u{202e}";
    for t in prefixes(&text).step_by(3) {
        assert_eq!(text_stats(t), text_stats_body(t), "{}", t.len());
        assert_eq!(utf16_len(t), utf16_len_body(t), "{}", t.len());
        assert_eq!(
            json_escape_extra(t),
            json_escape_extra_body(t),
            "{}",
            t.len()
        );
        assert_eq!(
            has_terminal_escape(t),
            has_terminal_escape_body(t),
            "{}",
            t.len()
        );
        for limit in [0, 3, 127, usize::MAX] {
            assert_eq!(
                openers_up_to(t.as_bytes(), limit),
                openers_up_to_body(t.as_bytes(), limit),
                "{} {limit}",
                t.len()
            );
        }
    }
}

/// The vectorised stats of UTF-16 units are the UTF-8 text's, and refuse units with a
/// surrogate.
#[test]
fn units_without_surrogates_count_as_their_text() {
    // Without its one astral character, then with it: several blocks, every few lengths.
    for text in [mixed().replace("🎉", "ok").repeat(2), mixed().repeat(2)] {
        for t in prefixes(&text).step_by(5) {
            let units: Vec<u16> = t.encode_utf16().collect();
            let has_pair = t.chars().any(|c| c.len_utf16() == 2);
            let got = units_stats_without_surrogates(&units);
            assert_eq!(
                got,
                units_stats_without_surrogates_body(&units),
                "{}",
                t.len()
            );
            assert_eq!(got, (!has_pair).then(|| text_stats(t)), "{}", t.len());
        }
    }
    let plain: Vec<u16> = "a\"b\\c\nd\u{1}é日".encode_utf16().collect();
    assert_eq!(
        units_stats_without_surrogates(&plain),
        Some(text_stats("a\"b\\c\nd\u{1}é日"))
    );
    assert_eq!(units_stats_without_surrogates(&[0x61, 0xdc00, 0x62]), None);
}

/// The shrink of JSON literals holding every kind of escape at every offset of the 32-byte
/// blocks (an escape across two blocks, a run of backslashes, a surrogate pair whose halves
/// fall in two blocks): from the blocks' masks and one search per escape, equal to what the
/// decoded text measures; refused exactly where serde_json refuses the literal.
#[test]
fn unescape_shrink_is_what_decoding_takes_off() {
    let escapes = [
        "\\n",
        "\\\\",
        "\\\"",
        "\\/",
        "\\u00e9",
        "\\u2028",
        "\\ud83d\\ude00",
        "\\\\\\\\\\n",
        "\\ud83d",
        "\\ude00x",
        "\\u12G4",
        "\\x",
        "\\\\\\'",
    ];
    let (mut measured, mut refused) = (0, 0);
    for esc in escapes {
        for second in ["", "\\t", "\\ud83d\\ude00"] {
            for pad in 0..70 {
                let inner = format!("{}{esc}{}é{second}🎉", "a".repeat(pad), "b".repeat(pad % 7));
                let scalar = unescape_shrink_from(inner.as_bytes(), 0, (0, 0));
                assert_eq!(json_unescape_shrink(inner.as_bytes()), scalar, "{inner}");
                match serde_json::from_str::<String>(&format!("\"{inner}\"")) {
                    Ok(text) => {
                        let units = inner.encode_utf16().count() - text.encode_utf16().count();
                        let bytes = inner.len() - text.len();
                        assert_eq!(scalar, Some((bytes as u64, units as u64)), "{inner}");
                        measured += 1;
                    }
                    Err(_) => {
                        assert_eq!(scalar, None, "{inner}");
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(measured > 1500 && refused > 500, "{measured} {refused}");
}

/// Each character a terminal acts on is found at every offset of the blocks, its lead byte in
/// one block and the bytes after it in the next included, among characters that share its lead
/// byte and are harmless; and nothing is found in text of only those.
#[test]
fn terminal_escapes_are_found_at_every_offset() {
    let harmless = [
        "a", " ", "\n", "\t", "→", "—", "…", "\u{a0}", "é", "\u{600}", "\u{206a}",
    ];
    let hostile = [
        "\u{0}", "\u{8}", "\r", "\u{1b}", "\u{1f}", "\u{7f}", "\u{80}", "\u{9b}", "\u{9f}",
        "\u{61c}", "\u{202a}", "\u{202e}", "\u{2066}", "\u{2069}",
    ];
    let mut background = String::new();
    let mut i = 0;
    while background.len() < 100 {
        background.push_str(harmless[i % harmless.len()]);
        i += 1;
    }
    for t in prefixes(&background) {
        assert!(!has_terminal_escape(t), "{t:?}");
        assert!(!has_terminal_escape_body(t), "{t:?}");
    }
    for h in hostile {
        for at in (0..=background.len()).filter(|&k| background.is_char_boundary(k)) {
            let t = format!("{}{h}{}", &background[..at], &background[at..]);
            assert!(has_terminal_escape(&t), "{h:?} at {at}");
            assert!(has_terminal_escape_body(&t), "{h:?} at {at}");
        }
    }
}

/// The escaped characters of a block, found from its backslashes at once, are those a reader
/// going byte by byte finds (each backslash not itself escaped escapes the next byte), the
/// carry into the next block included: every pattern of 16 bits at the block's start, middle
/// and end (every run up to 16 backslashes, and runs into the next block), and random blocks.
#[cfg(target_arch = "x86_64")]
#[test]
fn escaped_characters_are_found_as_byte_by_byte() {
    let by_bytes = |slashes: u64, carry: bool| {
        let (mut escaping, mut escaped) = (carry, 0u64);
        for i in 0..64 {
            if escaping {
                escaped |= 1 << i;
                escaping = false;
            } else if slashes >> i & 1 == 1 {
                escaping = true;
            }
        }
        (escaped, escaping)
    };
    let check = |slashes: u64| {
        for carry in [false, true] {
            let mut c = carry;
            let escaped = escaped_chars(slashes, &mut c);
            let want = by_bytes(slashes, carry);
            assert_eq!((escaped, c), want, "{slashes:064b} {carry}");
        }
    };
    for pattern in 0..1u64 << 16 {
        for shift in [0, 24, 48] {
            check(pattern << shift);
        }
    }
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..100_000u32 {
        let (a, b) = (next(), next());
        check(match case % 3 {
            0 => a & b,
            1 => a | b,
            _ => a,
        });
    }
}

/// Every byte after a backslash, at offsets in both halves of a block and past it: the block
/// build takes what an escape allows, and only that, as the search per escape does.
#[test]
fn every_escaped_byte_is_judged_as_the_search_judges_it() {
    for c in 0..=255u8 {
        for at in [0, 17, 31, 32, 40, 62, 63, 64, 90] {
            let mut b = vec![b'a'; 128];
            b[at] = b'\\';
            b[at + 1] = c;
            if c == b'u' {
                b[at + 2..at + 6].copy_from_slice(b"00e9");
            }
            let search = unescape_shrink_from(&b, 0, (0, 0));
            assert_eq!(json_unescape_shrink(&b), search, "{c:#04x} at {at}");
            let allowed = b"\"\\/bfnrtu".contains(&c);
            assert_eq!(search.is_some(), allowed, "{c:#04x} at {at}");
        }
    }
}
