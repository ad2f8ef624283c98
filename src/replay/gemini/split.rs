//! `findCompressSplitPoint(contents, fraction)` (`chatCompressionService.ts`, spec §1.5).
//!
//! Sizes are `JSON.stringify(content).length` (UTF-16 units of compact JSON); the target is
//! `total × fraction` as a float. Scanning forward with the running sum of the contents before
//! `i`, a `user` content with no truthy `functionResponse` part is a valid split point: the first
//! one whose running sum reaches the target is returned, the others are remembered. With none
//! at or after the target, everything (`n`) is compressed when the last content is a `model`
//! turn without a `functionCall`; otherwise the last valid point (0 = nothing) is returned.

use super::json::{J, json_len};

pub const FRACTION_ERROR: &str = "Fraction must be between 0 and 1";

/// `content.role === 'user' && !content.parts?.some(p => !!p.functionResponse)`.
pub fn is_valid_split(content: &J) -> bool {
    let user = matches!(content.get("role"), Some(J::Str(r)) if r.to_string_lossy() == "user");
    user && !parts_any(content, "functionResponse")
}

/// `last.role === 'model' && !last.parts?.some(p => p.functionCall)`.
pub fn is_plain_model(content: &J) -> bool {
    let model = matches!(content.get("role"), Some(J::Str(r)) if r.to_string_lossy() == "model");
    model && !parts_any(content, "functionCall")
}

fn parts_any(content: &J, key: &str) -> bool {
    content
        .get("parts")
        .and_then(J::as_array)
        .is_some_and(|ps| ps.iter().any(|p| p.get(key).is_some_and(J::truthy)))
}

/// The split point over precomputed sizes and flags: shared by the pure function and the replay.
/// `valid[i]` = content `i` is a valid split point; `plain_model_last` = the rule for `n`.
pub fn split_from_sizes(
    sizes: &[u64],
    valid: &[bool],
    plain_model_last: bool,
    fraction: f64,
) -> usize {
    let total: u64 = sizes.iter().sum();
    let target = total as f64 * fraction;
    let mut last = 0;
    let mut cum = 0u64;
    for (i, (&size, &ok)) in sizes.iter().zip(valid).enumerate() {
        if ok {
            if cum as f64 >= target {
                return i;
            }
            last = i;
        }
        cum += size;
    }
    if plain_model_last {
        return sizes.len();
    }
    last
}

/// `findCompressSplitPoint`.
pub fn find_compress_split_point(contents: &[J], fraction: f64) -> Result<usize, &'static str> {
    if fraction <= 0.0 || fraction >= 1.0 || fraction.is_nan() {
        return Err(FRACTION_ERROR);
    }
    let sizes: Vec<u64> = contents.iter().map(json_len).collect();
    let valid: Vec<bool> = contents.iter().map(is_valid_split).collect();
    let plain = contents.last().is_some_and(is_plain_model);
    Ok(split_from_sizes(&sizes, &valid, plain, fraction))
}
