//! `estimateTokenCountSync` (`packages/core/src/utils/tokenCalculation.ts`, spec §2.1).
//!
//! Per part, in this order: a `text` string → the text heuristic (0.25 per UTF-16 unit ≤ 127,
//! [`NON_ASCII_TOKENS_PER_CHAR`] per other unit, or `length / 4` above 100,000 units); else a
//! truthy `functionResponse` → `name.length / 4` + `JSON.stringify(response).length / 4` (or
//! `response.length / 4` for a string) + the floored estimate of its nested `parts` one level
//! deeper (0 beyond depth 3); else an `inlineData`/`fileData` MIME type `image/*` → 3,000 or
//! `application/pdf*` → 25,800; else `JSON.stringify(part).length / 4`. The float sum is floored
//! once per call. Older versions differ (no media estimates, no fast path, code points, no
//! function-response branch): [`Estimator`] says which rules apply.
//!
//! [`estimate_token_count_sync`] is the literal port (float sum in JavaScript's order).
//! [`Est`] is the same sum kept additive: quarter-tokens plus a count of non-ASCII units, so a
//! replay can keep running totals and floor at the end. With the default weight 1.5 every term
//! is an exact multiple of 0.25, so both give identical results (asserted on the golden vectors).

use super::json::{J, JsStr, StrStats, json_len, json_len_known};
use super::truncate::{measured_node, response_text};

/// Tokens per non-ASCII UTF-16 unit (1.3 before v0.43).
pub const NON_ASCII_TOKENS_PER_CHAR: f64 = 1.5;
/// Exported by the module but unused on this path (experimental context calculators only).
pub const ASCII_TOKENS_PER_CHAR: f64 = 0.33;
/// Exported by the module but unused on this path.
pub const MSG_OVERHEAD_TOKENS: u64 = 5;
pub const IMAGE_TOKEN_ESTIMATE: u64 = 3_000;
pub const PDF_TOKEN_ESTIMATE: u64 = 25_800;
pub const MAX_CHARS_FOR_FULL_HEURISTIC: usize = 100_000;
pub const MAX_RECURSION_DEPTH: usize = 3;
pub const DEFAULT_CHARS_PER_TOKEN: f64 = 4.0;

/// The estimator of one Gemini CLI version: the non-ASCII weight and the rules that changed
/// between versions (`gemini-compression.md` §2.1 "Version differences").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimator {
    /// Tokens per non-ASCII unit (code point when [`Estimator::astral_counts_once`]).
    pub non_ascii_weight: f64,
    /// An `image/*` part is 3,000 tokens (v0.23+, c31f05356a); before, its JSON length / 4.
    pub image_estimate: bool,
    /// An `application/pdf*` part is 25,800 tokens (v0.26+, c8d7c09ca4).
    pub pdf_estimate: bool,
    /// A text over 100,000 UTF-16 units is `length / 4` (v0.26+, ee8d425603).
    pub long_text_fast_path: bool,
    /// Text is iterated per code point (`for…of`), so a surrogate pair counts once (before
    /// v0.28, f605628624); from v0.28 per UTF-16 unit.
    pub astral_counts_once: bool,
    /// A `functionResponse` part is its name, response and nested parts (v0.28+, f605628624);
    /// before, `JSON.stringify(part).length / 4` like any other non-text part.
    pub function_response_estimate: bool,
}

/// [`Estimator::key`]: the weight's bits and the rules.
pub type EstKey = (u64, u8);

impl Estimator {
    /// The newest estimator at weight `w`.
    pub const fn newest(w: f64) -> Estimator {
        Estimator {
            non_ascii_weight: w,
            image_estimate: true,
            pdf_estimate: true,
            long_text_fast_path: true,
            astral_counts_once: false,
            function_response_estimate: true,
        }
    }

    /// A key for caches of sizes measured with this estimator.
    pub fn key(&self) -> EstKey {
        let flags = [
            self.image_estimate,
            self.pdf_estimate,
            self.long_text_fast_path,
            self.astral_counts_once,
            self.function_response_estimate,
        ];
        let bits = flags
            .iter()
            .enumerate()
            .fold(0u8, |b, (i, &f)| b | (u8::from(f) << i));
        (self.non_ascii_weight.to_bits(), bits)
    }
}

/// The estimator before v0.23: no media estimates, no fast path, code points, no
/// function-response branch (the rules of e1d2653a7a, v0.20).
pub const OLDEST_ESTIMATOR: Estimator = Estimator {
    non_ascii_weight: 1.3,
    image_estimate: false,
    pdf_estimate: false,
    long_text_fast_path: false,
    astral_counts_once: true,
    function_response_estimate: false,
};

/// `estimateTextTokens(text, 4)` (the inline loop of `estimateTokenCountSync` before v0.28).
pub fn text_tokens(text: &JsStr, e: Estimator) -> f64 {
    let len = text.len16();
    if e.long_text_fast_path && len > MAX_CHARS_FOR_FULL_HEURISTIC {
        return len as f64 / DEFAULT_CHARS_PER_TOKEN;
    }
    let ascii = 1.0 / DEFAULT_CHARS_PER_TOKEN;
    let w = e.non_ascii_weight;
    let mut tokens = 0.0;
    match text {
        JsStr::Text(s) => {
            for c in s.chars() {
                if (c as u32) <= 127 {
                    tokens += ascii;
                } else {
                    let n = if e.astral_counts_once {
                        1
                    } else {
                        c.len_utf16()
                    };
                    for _ in 0..n {
                        tokens += w;
                    }
                }
            }
        }
        _ => {
            let units = text.to_units();
            let mut i = 0;
            while i < units.len() {
                let u = units[i];
                let pair = (0xd800..0xdc00).contains(&u)
                    && units
                        .get(i + 1)
                        .is_some_and(|v| (0xdc00..0xe000).contains(v));
                tokens += if u <= 127 { ascii } else { w };
                i += if pair && e.astral_counts_once { 2 } else { 1 };
            }
        }
    }
    tokens
}

/// `estimateMediaTokens`: `Some` for images and PDFs (as far as the version knows them).
fn media_tokens(part: &J, e: Estimator) -> Option<u64> {
    if !e.image_estimate && !e.pdf_estimate {
        return None;
    }
    let inline = if part.has("inlineData") {
        part.get("inlineData")
    } else {
        None
    };
    let file = if part.has("fileData") {
        part.get("fileData")
    } else {
        None
    };
    fn mime(x: Option<&J>) -> Option<&J> {
        x.and_then(|d| d.get("mimeType")).filter(|m| m.truthy())
    }
    let mime = mime(inline).or_else(|| mime(file))?;
    let m = mime.as_str()?.to_string_lossy();
    if m.starts_with("image/") {
        e.image_estimate.then_some(IMAGE_TOKEN_ESTIMATE)
    } else if e.pdf_estimate && m.starts_with("application/pdf") {
        Some(PDF_TOKEN_ESTIMATE)
    } else {
        None
    }
}

/// `fr.name?.length ?? 0`.
fn name_len(fr: &J) -> u64 {
    match fr.get("name") {
        Some(J::Str(s)) => s.len16() as u64,
        Some(J::Arr(a)) => a.len() as u64,
        _ => 0,
    }
}

/// `JSON.stringify(response).length`, or the string's length (0 when absent or null).
fn response_len(fr: &J) -> u64 {
    match fr.get("response") {
        Some(J::Str(s)) => s.len16() as u64,
        None | Some(J::Null) => 0,
        Some(r) => json_len(r),
    }
}

fn nested_parts(fr: &J) -> Option<&[J]> {
    match fr.get("parts") {
        Some(J::Arr(p)) if !p.is_empty() => Some(p),
        _ => None,
    }
}

/// The part's truthy `functionResponse`, when the version estimates it on its own.
fn function_response(part: &J, e: Estimator) -> Option<&J> {
    if !e.function_response_estimate {
        return None;
    }
    part.get("functionResponse").filter(|f| f.truthy())
}

/// `estimateTokenCountSync(parts)` with the given estimator.
pub fn estimate_token_count_sync(parts: &[J], e: Estimator) -> u64 {
    estimate_at_depth(parts, 0, e)
}

fn estimate_at_depth(parts: &[J], depth: usize, w: Estimator) -> u64 {
    if depth > MAX_RECURSION_DEPTH {
        return 0;
    }
    let mut total = 0.0f64;
    for part in parts {
        if let Some(J::Str(t)) = part.get("text") {
            total += text_tokens(t, w);
        } else if let Some(fr) = function_response(part, w) {
            let mut t = name_len(fr) as f64 / DEFAULT_CHARS_PER_TOKEN;
            t += response_len(fr) as f64 / DEFAULT_CHARS_PER_TOKEN;
            if let Some(nested) = nested_parts(fr) {
                t += estimate_at_depth(nested, depth + 1, w) as f64;
            }
            total += t;
        } else if let Some(m) = media_tokens(part, w) {
            total += m as f64;
        } else {
            total += json_len(part) as f64 / DEFAULT_CHARS_PER_TOKEN;
        }
    }
    total.floor() as u64
}

/// An estimate kept additive: `quarters / 4 + non_ascii × weight` tokens, floored by
/// [`Est::tokens`]. Signed so differences (before/after a truncation) are values too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Est {
    /// Quarter-tokens: ASCII units of text, JSON characters, media × 4, nested estimates × 4.
    pub quarters: i64,
    /// Non-ASCII UTF-16 units (code points when astral characters count once) of text
    /// heuristically counted (below the 100k fast path).
    pub non_ascii: i64,
}

impl Est {
    pub const ZERO: Est = Est {
        quarters: 0,
        non_ascii: 0,
    };

    pub fn tokens(self, e: Estimator) -> u64 {
        let t = self.quarters as f64 * 0.25 + self.non_ascii as f64 * e.non_ascii_weight;
        t.floor().max(0.0) as u64
    }

    pub fn quarters(q: u64) -> Est {
        Est {
            quarters: q as i64,
            non_ascii: 0,
        }
    }
}

impl std::ops::Add for Est {
    type Output = Est;
    fn add(self, o: Est) -> Est {
        Est {
            quarters: self.quarters + o.quarters,
            non_ascii: self.non_ascii + o.non_ascii,
        }
    }
}

impl std::ops::Sub for Est {
    type Output = Est;
    fn sub(self, o: Est) -> Est {
        Est {
            quarters: self.quarters - o.quarters,
            non_ascii: self.non_ascii - o.non_ascii,
        }
    }
}

impl std::ops::AddAssign for Est {
    fn add_assign(&mut self, o: Est) {
        *self = *self + o;
    }
}

impl std::ops::SubAssign for Est {
    fn sub_assign(&mut self, o: Est) {
        *self = *self - o;
    }
}

impl std::iter::Sum for Est {
    fn sum<I: Iterator<Item = Est>>(it: I) -> Est {
        it.fold(Est::ZERO, |a, b| a + b)
    }
}

/// The text heuristic of one string as an [`Est`].
pub fn text_est(text: &JsStr, e: Estimator) -> Est {
    text_est_of(text.stats(), e)
}

/// [`text_est`] from the string's stats.
pub fn text_est_of(st: super::json::StrStats, e: Estimator) -> Est {
    if e.long_text_fast_path && st.units as usize > MAX_CHARS_FOR_FULL_HEURISTIC {
        Est::quarters(st.units)
    } else {
        let astral = if e.astral_counts_once { st.astral } else { 0 };
        Est {
            quarters: (st.units - st.non_ascii) as i64,
            non_ascii: (st.non_ascii - astral) as i64,
        }
    }
}

/// One part's contribution to `estimateTokenCountSync` (nested responses are floored at their
/// own call, as upstream, so the weight is needed here).
pub fn part_est(part: &J, e: Estimator) -> Est {
    if let Some(J::Str(t)) = part.get("text") {
        text_est(t, e)
    } else if let Some(fr) = function_response(part, e) {
        let nested = nested_parts(fr).map_or(0, |p| estimate_at_depth(p, 1, e) * 4);
        Est::quarters(name_len(fr) + response_len(fr) + nested)
    } else if let Some(m) = media_tokens(part, e) {
        Est::quarters(m * 4)
    } else {
        Est::quarters(json_len(part))
    }
}

/// What a replay measures of a part: [`json_len`], [`part_est`], and for a function response
/// the stats of the text its budget measures (`measured`'s). Each measure scans the part's
/// long string (a tool output, a text); here it is scanned once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartSizes {
    pub json: u64,
    pub est: Est,
    /// `None` unless the part has a truthy `functionResponse`; the stats of an empty string
    /// when it has no response.
    pub measured: Option<StrStats>,
}

/// [`PartSizes`] of `part` with estimator `w`.
pub fn part_sizes(part: &J, w: Estimator) -> PartSizes {
    let fr = part.get("functionResponse").filter(|f| f.truthy());
    let response = fr.and_then(|f| f.get("response"));
    // The strings measured once, by node: the response's text and the part's `text`.
    fn stats_of<'a>(node: &'a J, known: &mut Vec<(&'a J, u64)>) -> Option<StrStats> {
        let J::Str(s) = node else { return None };
        let st = s.stats();
        known.push((node, st.escaped + 2));
        Some(st)
    }
    let mut known: Vec<(&J, u64)> = Vec::with_capacity(2);
    let measured = fr.map(|_| match measured_node(response) {
        Some(node) => stats_of(node, &mut known).unwrap_or_default(),
        None => response_text(response).map_or_else(StrStats::default, |s| s.stats()),
    });
    let text_stats = part.get("text").and_then(|t| stats_of(t, &mut known));
    let est = if let Some(st) = text_stats {
        text_est_of(st, w)
    } else if let Some(fr) = fr.filter(|_| w.function_response_estimate) {
        let response_len = match response {
            None | Some(J::Null) => 0,
            // A string response is the measured node.
            Some(J::Str(_)) => measured.map_or(0, |st| st.units),
            Some(r) => json_len_known(r, &known),
        };
        let nested = nested_parts(fr).map_or(0, |p| estimate_at_depth(p, 1, w) * 4);
        Est::quarters(name_len(fr) + response_len + nested)
    } else if let Some(m) = media_tokens(part, w) {
        Est::quarters(m * 4)
    } else {
        Est::quarters(json_len_known(part, &known))
    };
    PartSizes {
        json: json_len_known(part, &known),
        est,
        measured,
    }
}

/// `estimateTokenCountSync([{text}])`: what the reverse budget counts per function response.
pub fn text_token_count(text: &JsStr, e: Estimator) -> u64 {
    text_est(text, e).tokens(e)
}
