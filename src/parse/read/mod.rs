//! Reading session files safely and fast: regular files only, `.zst` decompressed under a size
//! cap, JSONL split into lines without copying them, every line bounded in length, and the few
//! ways real writers break a line (a lone UTF-16 surrogate escape, two records on one line, a
//! record cut short by a crash) repaired where the data allows it instead of losing the line.
//!
//! `file.rs` opens and reads whole files, `lines.rs` splits them, `records.rs` decodes each line
//! into records and repairs what it can, `escapes.rs` mends lone surrogate escapes.

mod escapes;
mod file;
mod lines;
mod records;
#[cfg(test)]
mod tests;

pub use escapes::{decode_string, repair_lone_surrogates};
pub use file::{Shrank, non_regular_kind, open, read_all, shrank, unreadable};
pub use lines::{Line, Lines};
pub use records::{Records, error_is_repaired, for_each_record, for_each_record_pre};

/// Longest JSONL line (or whole-document file) read. Real records reach a few MB (a pasted
/// image, a huge tool output); anything longer is skipped and reported with its line number, so
/// one hostile line cannot take all the memory.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// Most bytes a `.zst` file may decompress to. Real compressed rollouts hold tens of MB; a
/// decompression bomb stops here with a warning.
pub const MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;
