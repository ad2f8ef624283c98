//! Counts of byte classes in UTF-8 text and JSON lines: a string's UTF-16 length, the length
//! of its JSON literal, the brackets of a line, whether a text holds a character a terminal
//! acts on. Each is counted from the bytes, without decoding, in fixed-size blocks of
//! branch-free comparisons that the compiler turns into vector code: the replays measure every
//! message and tool output, the readers check every line, and the exports check every text.
//!
//! A crate of its own so that it is optimised in every build (`[profile.dev.package.textstats]`
//! in the workspace's manifest). The test build compiles `sessions` itself without
//! optimisation, and there these loops ran byte by byte with every check on: 31% of the
//! unit tests' time and 6% of the integration tests'. The functions are deliberately not
//! `#[inline]`: an inline function is compiled in its caller's crate, at its caller's
//! optimisation level. A release build then calls the larger ones rather than inlining them,
//! at no measurable cost (instruction counts in docs/benchmarks.md, "Build").
//!
//! Each count is compiled twice, for the CPU the build targets (SSE2 on x86-64 by default, 16
//! bytes a vector) and for AVX2 (32), and runs the AVX2 build on a CPU that has it
//! (`vectorised!`).

// The crate's only `unsafe` code: the calls of the counts' AVX2 builds, each made after
// checking that the CPU has AVX2 (`vectorised!`, `json_unescape_shrink`,
// `has_terminal_escape`), and the unaligned loads of whole 32-byte blocks of a slice in
// `unescape_shrink_avx2` and `terminal_escape_avx2`.
#![deny(unsafe_code)]

/// Sizes of a string that JavaScript's `.length` and `JSON.stringify` give.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StrStats {
    /// `.length`: UTF-16 code units.
    pub units: u64,
    /// Code units above 127 (a surrogate pair counts twice).
    pub non_ascii: u64,
    /// Length of the JSON string literal without its quotes.
    pub escaped: u64,
    /// Surrogate pairs (code points above U+FFFF): what per-code-point iteration counts once.
    pub astral: u64,
}

/// `JSON.stringify` length of each ASCII character inside a string literal.
const ESCAPED_ASCII: [u8; 128] = {
    let mut t = [1u8; 128];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 6;
        i += 1;
    }
    t[0x08] = 2;
    t[0x09] = 2;
    t[0x0a] = 2;
    t[0x0c] = 2;
    t[0x0d] = 2;
    t[0x22] = 2;
    t[0x5c] = 2;
    t
};

/// Each count is built twice, for the CPU the build targets and for AVX2, and runs the AVX2
/// build where the CPU has it (detected once, then read from the standard library's cached
/// flags). The Gemini replay sizes every message and tool output with these counts: with
/// AVX2 it took 3% fewer instructions, `list` about 1% fewer (docs/benchmarks.md, "The
/// ninth session").
macro_rules! vectorised {
    ($(
        $(#[$doc:meta])*
        pub fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $body:ident;
    )*) => {$(
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                // SAFETY: the CPU has AVX2, checked just above; nothing else differs.
                #[allow(unsafe_code)]
                return unsafe { avx2($($arg),*) };
            }
            $body($($arg),*)
        }
    )*};
}

vectorised! {
    /// `s.length`: UTF-16 code units. Every byte that starts a character counts one, and a
    /// four-byte character (a surrogate pair) one more.
    pub fn utf16_len(s: &str) -> usize = utf16_len_body;
    /// Stats of well-formed text, from its UTF-8 bytes: an ASCII byte is one unit, a lead byte
    /// one non-ASCII unit (two for a 4-byte sequence, a surrogate pair), continuation bytes none.
    pub fn text_stats(s: &str) -> StrStats = text_stats_body;
    /// What escaping adds to `s` in a JSON string literal (quotes aside): one for `\"`, `\\`,
    /// `\b`, `\t`, `\n`, `\f`, `\r`, five for each other control character (`\u00XX`). The same
    /// in bytes and in UTF-16 units (escapes are ASCII); counted as [`text_stats`] counts, with
    /// only the three counts this needs.
    pub fn json_escape_extra(s: &str) -> usize = json_escape_extra_body;
    /// The opening brackets (`[` and `{`) of `line`, counted until the count passes `limit`: a
    /// line with no more than `limit` of them cannot nest deeper than that, and nearly every line
    /// has few. Returns the exact count when it is at most `limit`, and some count above `limit`
    /// otherwise.
    pub fn openers_up_to(line: &[u8], limit: usize) -> usize = openers_up_to_body;
    /// [`text_stats`] of UTF-16 code units that hold no surrogate (`None` when they hold
    /// one: a pair or a lone surrogate, which the caller counts unit by unit).
    pub fn units_stats_without_surrogates(w: &[u16]) -> Option<StrStats> =
        units_stats_without_surrogates_body;
}

/// Bytes counted a block in [`text_stats`] and [`json_escape_extra`], whose counts are at
/// most one a byte: each count of a block fits a byte-wide counter, which the compiler adds a
/// vector at a time and sums across the vector once a block (a multiple of both vector widths;
/// 64-byte blocks took 5% more instructions).
const BLOCK: usize = 192;

/// Which of the classes JSON escaping tells apart a character (a byte of UTF-8 text, or a
/// UTF-16 unit) is in: a control character, `"` or `\\`, and a control character written in
/// two characters (`\b`, `\t`, `\n`, `\f`, `\r`; the others take six, `\u00XX`). Each a 0 or a
/// 1, for the block counts to add.
#[inline(always)]
fn escape_classes<T: Copy + PartialOrd + From<u8>>(c: T) -> (u8, u8, u8) {
    let is = |b: u8| c == T::from(b);
    (
        u8::from(c < T::from(0x20)),
        u8::from(is(b'"') | is(b'\\')),
        u8::from(is(0x08) | is(0x09) | is(0x0a) | is(0x0c) | is(0x0d)),
    )
}

/// What escaping adds to a text of `ctl` control characters, `quote` quotes and backslashes,
/// `short` of the controls written in two characters: one for each two-character escape, five
/// for each `\u00XX`.
#[inline(always)]
fn escape_extra(ctl: u64, quote: u64, short: u64) -> u64 {
    quote + short + 5 * (ctl - short)
}

/// [`utf16_len`], for the target CPU or, inlined there, for AVX2.
#[inline(always)]
fn utf16_len_body(s: &str) -> usize {
    let units = |b: u8| u8::from((b & 0xc0) != 0x80) + u8::from(b >= 0xf0);
    // 64 bytes count at most 128 units: one byte-wide counter per block.
    let mut blocks = s.as_bytes().chunks_exact(64);
    let mut n = 0;
    for block in &mut blocks {
        n += usize::from(block.iter().fold(0u8, |k, &b| k + units(b)));
    }
    n + blocks
        .remainder()
        .iter()
        .map(|&b| usize::from(units(b)))
        .sum::<usize>()
}

/// [`text_stats`], for the target CPU or, inlined there, for AVX2.
#[inline(always)]
fn text_stats_body(s: &str) -> StrStats {
    // Every figure is a count of bytes in some class: a block at a time, the tail byte by
    // byte. Tool outputs are long, and a replay sizes them again at every setting of a sweep.
    let bytes = s.as_bytes();
    let mut chunks = bytes.chunks_exact(BLOCK);
    let mut st = StrStats::default();
    let mut ascii_escaped = 0u64;
    for c in &mut chunks {
        let (mut ascii, mut lead, mut four, mut ctl, mut quote, mut short) =
            (0u8, 0u8, 0u8, 0u8, 0u8, 0u8);
        for &b in c {
            ascii += u8::from(b < 0x80);
            lead += u8::from(b >= 0xc0);
            four += u8::from(b >= 0xf0);
            let (c, q, sh) = escape_classes(b);
            (ctl, quote, short) = (ctl + c, quote + q, short + sh);
        }
        let wide = u64::from(lead) + u64::from(four);
        st.units += u64::from(ascii) + wide;
        st.non_ascii += wide;
        st.astral += u64::from(four);
        // `\"`, `\\`, `\n` and the like take 2; other controls `\u00XX`, 6.
        ascii_escaped +=
            u64::from(ascii) + escape_extra(u64::from(ctl), u64::from(quote), u64::from(short));
    }
    let tail = text_stats_bytes(chunks.remainder());
    StrStats {
        units: st.units + tail.units,
        non_ascii: st.non_ascii + tail.non_ascii,
        escaped: ascii_escaped + st.non_ascii + tail.escaped,
        astral: st.astral + tail.astral,
    }
}

/// [`json_escape_extra`], for the target CPU or, inlined there, for AVX2.
#[inline(always)]
fn json_escape_extra_body(s: &str) -> usize {
    let mut chunks = s.as_bytes().chunks_exact(BLOCK);
    let mut extra = 0;
    for c in &mut chunks {
        let (mut ctl, mut quote, mut short) = (0u8, 0u8, 0u8);
        for &b in c {
            let (c, q, sh) = escape_classes(b);
            (ctl, quote, short) = (ctl + c, quote + q, short + sh);
        }
        extra += escape_extra(u64::from(ctl), u64::from(quote), u64::from(short)) as usize;
    }
    extra
        + chunks
            .remainder()
            .iter()
            .filter(|&&b| b < 0x80)
            .map(|&b| usize::from(ESCAPED_ASCII[usize::from(b)]) - 1)
            .sum::<usize>()
}

/// [`text_stats`] one byte at a time.
fn text_stats_bytes(bytes: &[u8]) -> StrStats {
    let (mut units, mut non_ascii, mut escaped, mut astral) = (0u64, 0u64, 0u64, 0u64);
    for &b in bytes {
        if b < 0x80 {
            units += 1;
            escaped += ESCAPED_ASCII[b as usize] as u64;
        } else if b >= 0xc0 {
            let n = 1 + u64::from(b >= 0xf0);
            units += n;
            non_ascii += n;
            astral += n - 1;
        }
    }
    StrStats {
        units,
        non_ascii,
        escaped: escaped + non_ascii,
        astral,
    }
}

/// Whether the character that starts with byte `b0`, followed by `b1` and `b2` (0 past the end
/// of the text), is one a terminal acts on, other than a newline or tab: C0 controls and DEL
/// are one byte, C1 controls `C2 80`–`C2 9F`, U+061C `D8 9C`, U+202A–U+202E `E2 80 AA`–`E2 80
/// AE` and U+2066–U+2069 `E2 81 A6`–`E2 81 A9`. No continuation byte (`80`–`BF`) matches, so
/// the test can run at every byte of a text, not only at character boundaries; and it is
/// branch-free, so that it runs many bytes at a time.
#[inline(always)]
pub fn terminal_escape_starts(b0: u8, b1: u8, b2: u8) -> bool {
    ((b0 < 0x20) & (b0 != b'\n') & (b0 != b'\t'))
        | (b0 == 0x7f)
        | ((b0 == 0xc2) & (0x80..=0x9f).contains(&b1))
        | ((b0 == 0xd8) & (b1 == 0x9c))
        | ((b0 == 0xe2)
            & (((b1 == 0x80) & (0xaa..=0xae).contains(&b2))
                | ((b1 == 0x81) & (0xa6..=0xa9).contains(&b2))))
}

/// [`has_terminal_escape`] without AVX2: every position tested, 64 at a time.
fn has_terminal_escape_body(s: &str) -> bool {
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    // Each position with the two bytes after it; the last two positions apart.
    let main = b.len().saturating_sub(2);
    let mut start = 0;
    while start < main {
        let end = (start + 64).min(main);
        let hit = b[start..end]
            .iter()
            .zip(&b[start + 1..end + 1])
            .zip(&b[start + 2..end + 2])
            .fold(false, |acc, ((&b0, &b1), &b2)| {
                acc | terminal_escape_starts(b0, b1, b2)
            });
        if hit {
            return true;
        }
        start = end;
    }
    (main..b.len()).any(|i| terminal_escape_starts(b[i], at(i + 1), at(i + 2)))
}

/// Whether a character of `s` other than a newline or tab is one a terminal acts on (a
/// control character or a bidirectional override), from its bytes
/// ([`terminal_escape_starts`]). Nothing is decoded: tool outputs run to megabytes, and the
/// characters that share those characters' lead bytes are common (`→`, on every line of
/// Claude's file reads; `—`, `…`, box drawing).
///
/// With AVX2, a 32-byte block's possible lead bytes come as one mask, and only those are
/// tested; without it, every position is tested, 64 at a time.
pub fn has_terminal_escape(s: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        #[allow(unsafe_code)]
        return unsafe { terminal_escape_avx2(s.as_bytes()) };
    }
    has_terminal_escape_body(s)
}

/// [`has_terminal_escape`] with AVX2: the bytes that can start a character a terminal acts on
/// (a control byte but `\n` and `\t`, `7F`, and the lead bytes `C2`, `D8` and `E2`) found a
/// 32-byte block at a time, each then tested with the two bytes after it. Nearly every block
/// of text has none: testing every position, three loads a block, took a quarter more
/// instructions (the Claude bench project's Markdown export: 28.2M against 22.5M).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
fn terminal_escape_avx2(b: &[u8]) -> bool {
    use std::arch::x86_64::{
        __m256i, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let byte = |c: u8| _mm256_set1_epi8(c as i8);
    let (below_space, newline, tab) = (byte(0x1f), byte(b'\n'), byte(b'\t'));
    let (del, c2, d8, e2) = (byte(0x7f), byte(0xc2), byte(0xd8), byte(0xe2));
    let mut base = 0;
    for block in b.chunks_exact(32) {
        // SAFETY: `block` is 32 readable bytes; the load needs no alignment.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
        let eq = |c| _mm256_cmpeq_epi8(v, c);
        let control = _mm256_andnot_si256(
            _mm256_or_si256(eq(newline), eq(tab)),
            _mm256_cmpeq_epi8(_mm256_min_epu8(v, below_space), v),
        );
        let leads = _mm256_or_si256(
            _mm256_or_si256(control, eq(del)),
            _mm256_or_si256(_mm256_or_si256(eq(c2), eq(d8)), eq(e2)),
        );
        let mut mask = _mm256_movemask_epi8(leads) as u32;
        while mask != 0 {
            let i = base + mask.trailing_zeros() as usize;
            if terminal_escape_starts(b[i], at(i + 1), at(i + 2)) {
                return true;
            }
            mask &= mask - 1;
        }
        base += 32;
    }
    (base..b.len()).any(|i| terminal_escape_starts(b[i], at(i + 1), at(i + 2)))
}

/// [`units_stats_without_surrogates`], for the target CPU or, inlined there, for AVX2.
#[inline(always)]
fn units_stats_without_surrogates_body(w: &[u16]) -> Option<StrStats> {
    let mut blocks = w.chunks_exact(BLOCK);
    let (mut non_ascii, mut extra) = (0u64, 0u64);
    let mut count = |block: &[u16]| {
        let (mut surrogate, mut wide, mut ctl, mut quote, mut short) = (0u8, 0u8, 0u8, 0u8, 0u8);
        for &u in block {
            surrogate |= u8::from((0xd800..0xe000).contains(&u));
            wide += u8::from(u > 0x7f);
            let (c, q, sh) = escape_classes(u);
            (ctl, quote, short) = (ctl + c, quote + q, short + sh);
        }
        non_ascii += u64::from(wide);
        extra += escape_extra(u64::from(ctl), u64::from(quote), u64::from(short));
        surrogate == 0
    };
    for block in &mut blocks {
        if !count(block) {
            return None;
        }
    }
    if !count(blocks.remainder()) {
        return None;
    }
    let units = w.len() as u64;
    Some(StrStats {
        units,
        non_ascii,
        escaped: units + extra,
        astral: 0,
    })
}

/// How many bytes and UTF-16 units shorter the text a JSON string literal holds is than the
/// literal's contents `inner` (its bytes between the quotes, which a JSON reader has checked):
/// an escape `\n` is two bytes and two units of `inner` for one of each in the text, `\u00e9`
/// six for two bytes and one unit, a surrogate pair of escapes twelve for four bytes and two
/// units. `None` for a lone surrogate escape, or an escape a JSON reader would not have let
/// through, which the caller decodes the usual way.
///
/// A tool output has an escape every line: with AVX2, a 64-byte block's escapes are counted
/// from its backslashes at once, and only a `\u` escape is looked at by itself; without it,
/// one search per escape.
pub fn json_unescape_shrink(inner: &[u8]) -> Option<(u64, u64)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        #[allow(unsafe_code)]
        return unsafe { unescape_shrink_avx2(inner) };
    }
    unescape_shrink_from(inner, 0, (0, 0))
}

/// [`json_unescape_shrink`] of the escapes of `b` from `at` on (an escape that starts before
/// `at` is counted in `shrink`), one search per escape.
fn unescape_shrink_from(b: &[u8], mut at: usize, mut shrink: (u64, u64)) -> Option<(u64, u64)> {
    while let Some(n) = b.get(at..)?.iter().position(|&c| c == b'\\') {
        let (len, bytes, units) = escape_at(b, at + n)?;
        at += n + len;
        shrink.0 += bytes;
        shrink.1 += units;
    }
    Some(shrink)
}

/// [`json_unescape_shrink`] with AVX2, 64 bytes a block: the characters the block's escapes
/// escape found from its backslashes at once ([`escaped_chars`]), the two-byte escapes among
/// them counted, and only `\u` escapes taken one by one (a pair's second half is taken with
/// its first); the tail after the last whole block one search per escape. An escaped character
/// that no escape allows makes it `None`, as the search does.
///
/// A shell output has an escape a line: looking at each escape in turn cost a branch whose
/// outcome the next escape's distance decides.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
fn unescape_shrink_avx2(b: &[u8]) -> Option<(u64, u64)> {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_set1_epi8, _mm256_setr_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
        _mm256_srli_epi16,
    };
    let byte = |c: u8| _mm256_set1_epi8(c as i8);
    let (backslash, u, low_nibble) = (byte(b'\\'), byte(b'u'), byte(0x0f));
    // The characters an escape allows (`"\/bfnrtu`), by their two nibbles: each high nibble
    // that has some (2, 5, 6, 7) is a bit, and a low nibble's entry holds the bits of the high
    // nibbles it makes an allowed character with. A byte is allowed when its nibbles' entries
    // share a bit; bytes from 0x80 up look up high entries that are 0.
    #[rustfmt::skip]
    let by_low = {
        let t = |n: u8| match n {
            0x2 => 0b1101, // `"`, `b`, `r`
            0x4 | 0x5 => 0b1000, // `t`, `u`
            0x6 | 0xe => 0b0100, // `f`, `n`
            0xc => 0b0010, // `\`
            0xf => 0b0001, // `/`
            _ => 0,
        };
        _mm256_setr_epi8(
            t(0), t(1), t(2), t(3), t(4), t(5), t(6), t(7),
            t(8), t(9), t(10), t(11), t(12), t(13), t(14), t(15),
            t(0), t(1), t(2), t(3), t(4), t(5), t(6), t(7),
            t(8), t(9), t(10), t(11), t(12), t(13), t(14), t(15),
        )
    };
    #[rustfmt::skip]
    let by_high = _mm256_setr_epi8(
        0, 0, 0b0001, 0, 0, 0b0010, 0b0100, 0b1000, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0b0001, 0, 0, 0b0010, 0b0100, 0b1000, 0, 0, 0, 0, 0, 0, 0, 0,
    );
    // The masks of 32 bytes: backslashes, `u`s, and the characters an escape allows.
    let masks = |half: &[u8]| {
        // SAFETY: `half` is 32 readable bytes; the load needs no alignment.
        let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast::<__m256i>()) };
        let bits = |m| u64::from(_mm256_movemask_epi8(m) as u32);
        let low = _mm256_shuffle_epi8(by_low, _mm256_and_si256(v, low_nibble));
        let high = _mm256_shuffle_epi8(
            by_high,
            _mm256_and_si256(_mm256_srli_epi16::<4>(v), low_nibble),
        );
        let refused = _mm256_cmpeq_epi8(_mm256_and_si256(low, high), _mm256_setzero_si256());
        let slash = _mm256_cmpeq_epi8(v, backslash);
        (
            bits(slash),
            bits(_mm256_cmpeq_epi8(v, u)),
            !bits(refused) & 0xFFFF_FFFF,
        )
    };
    let (mut bytes, mut units) = (0u64, 0u64);
    // Whether the block's first byte is escaped by the last backslash of the block before.
    let mut carry = false;
    // Where the last `\u` escape taken ended (a pair's second half is before it).
    let mut taken = 0usize;
    let mut base = 0usize;
    for block in b.chunks_exact(64) {
        let (s0, u0, k0) = masks(&block[..32]);
        let (s1, u1, k1) = masks(&block[32..]);
        let slashes = s0 | s1 << 32;
        if slashes != 0 || carry {
            let escaped = escaped_chars(slashes, &mut carry);
            let (us, allowed) = (u0 | u1 << 32, k0 | k1 << 32);
            if escaped & !allowed != 0 {
                return None;
            }
            let n = u64::from((escaped & !us).count_ones());
            bytes += n;
            units += n;
            let mut us = escaped & us;
            while us != 0 {
                let at = base + us.trailing_zeros() as usize;
                us &= us - 1;
                if at < taken {
                    continue;
                }
                let (len, by, un) = escape_at(b, at - 1)?;
                bytes += by;
                units += un;
                taken = at - 1 + len;
            }
        }
        base += 64;
    }
    // The tail, from the escape the last block's backslash starts, or past the last taken.
    let from = if carry { base - 1 } else { base };
    unescape_shrink_from(b, from.max(taken), (bytes, units))
}

/// The characters of a block that an escape escapes, from the block's backslashes (bit `i`:
/// byte `i`) and whether its first byte is escaped by the block before (`carry`, set for the
/// next block): the byte after each backslash that is not itself escaped, so that in a run of
/// backslashes every second one escapes the next. One subtraction finds every run's parity
/// (simdjson's method): the backslashes moved up a bit, with every other bit set, less the
/// backslashes, borrow through each run to the byte after it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn escaped_chars(slashes: u64, carry: &mut bool) -> u64 {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let first = u64::from(*carry);
    let starts = slashes & !first;
    let code = ((starts << 1 | ODD).wrapping_sub(starts)) ^ ODD;
    let escaped = code ^ (slashes | first);
    *carry = (code & slashes) >> 63 == 1;
    escaped
}

/// The characters that follow a backslash in an escape of two bytes, nearly every escape: a
/// table took a tenth fewer instructions than matching the eight bytes.
const SHORT_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let short = b"\"\\/bfnrt";
    while i < short.len() {
        t[short[i] as usize] = true;
        i += 1;
    }
    t
};

/// The escape at `b[i]` (a backslash): its length, and how many bytes and UTF-16 units fewer
/// its character takes than the escape. `None` for a lone surrogate or a malformed escape.
#[inline(always)]
fn escape_at(b: &[u8], i: usize) -> Option<(usize, u64, u64)> {
    match *b.get(i + 1)? {
        // Two bytes for one ASCII character.
        c if SHORT_ESCAPE[usize::from(c)] => Some((2, 1, 1)),
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

/// The four hex digits at the start of `b`, as a number (a `\uXXXX` escape's UTF-16 unit).
#[inline(always)]
pub fn hex4(b: &[u8]) -> Option<u32> {
    b.get(..4)?.iter().try_fold(0, |n, &c| {
        let d = char::from(c).to_digit(16)?;
        Some(n << 4 | d)
    })
}

/// [`openers_up_to`], for the target CPU or, inlined there, for AVX2.
#[inline(always)]
fn openers_up_to_body(line: &[u8], limit: usize) -> usize {
    // Blocks of a fixed size, a multiple of every vector width, each summed in a `u8` (`[` is
    // `{` without bit 0x20): blocks of 255 bytes each ended in a byte-by-byte tail, which cost
    // as much as the rest of the count.
    let count = |block: &[u8]| {
        usize::from(
            block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from((b | 0x20) == b'{'))),
        )
    };
    let mut blocks = line.chunks_exact(192);
    let mut openers = 0;
    for block in &mut blocks {
        openers += count(block);
        if openers > limit {
            return openers;
        }
    }
    openers + count(blocks.remainder())
}

#[cfg(test)]
mod tests;
