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

pub use textstats::utf16_len;

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
