//! Token estimation for text that has no recorded usage.
//!
//! The replay algorithms each port their agent's own estimator (see `replay`); this module is
//! the neutral default used by the compaction ledger and the timeline when nothing was recorded:
//! UTF-8 bytes / 4, rounded up — the rule Codex uses, and within a few percent of the others on
//! English text and code.

/// The largest token count the replay computes with: 10^12, a thousand times the largest
/// context window of any model. Recorded counts above it (hostile or corrupt files) and
/// `--context-window`/`--summary-tokens` are held to it, so the replay's arithmetic (windows
/// times ratios, sums over requests) cannot overflow.
pub const MAX_TOKENS: u64 = 1_000_000_000_000;

/// A token count held to [`MAX_TOKENS`].
pub fn cap(n: u64) -> u64 {
    n.min(MAX_TOKENS)
}

/// Estimated tokens of a piece of text.
pub fn estimate_text(s: &str) -> u64 {
    (s.len() as u64).div_ceil(4)
}

/// `s.length`: UTF-16 code units. Every byte that starts a character counts one, and a
/// four-byte character (a surrogate pair) one more; counted without decoding, so the compiler
/// vectorises it (the estimators measure every message, and tool outputs are long).
pub fn utf16_len(s: &str) -> usize {
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

#[cfg(test)]
mod tests {
    #[test]
    fn rounds_up() {
        assert_eq!(super::estimate_text(""), 0);
        assert_eq!(super::estimate_text("abc"), 1);
        assert_eq!(super::estimate_text("abcde"), 2);
        assert_eq!(super::estimate_text("é"), 1);
    }
}
