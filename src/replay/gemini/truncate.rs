//! `truncateHistoryToBudget` (`chatCompressionService.ts`, spec §1.6) and the helpers it uses
//! from `fileUtils.ts`: `formatTruncatedToolOutput`, `saveTruncatedToolOutput`'s file naming,
//! `sanitizeFilenamePart`.
//!
//! Newest content first, last part first, every truthy `functionResponse` gets a string: the
//! `response` if it is one, else its `output` string, else its `content` string, else
//! `JSON.stringify(response, null, 2)`. Its text-heuristic estimate (`estimateTokenCountSync([{text}])`)
//! is added to a counter; a response that would take the counter over the budget (50,000) is
//! saved to a file and replaced by `{output: formatTruncatedToolOutput(s, file, maxChars)}` (all
//! other `functionResponse` fields kept, sibling keys of the part dropped), and the counter grows
//! by the estimate of that replacement instead. Outputs of at most `maxChars` keep their text but
//! are still re-wrapped. `maxChars = min(40,000, 4 × (tokenLimit − lastPromptTokenCount))`.
//! Above it: a header line, the first `floor(0.2 × maxChars)` units, an omitted-count marker
//! (en-US thousands separators) and the last `maxChars − head` units, sliced in UTF-16 units as
//! JavaScript does (a pair cut in two leaves lone surrogates).
//!
//! v0.26–v0.28 cut differently ([`TruncStyle::Lines`]): every response past the budget, however
//! short, became a header and its last 30 lines (`COMPRESSION_TRUNCATE_LINES`), each line cut to
//! 1,000 units, or the last 4,000 units of a single line, saved under `tool_output/` with the
//! older file naming ([`legacy_saved_output_path`]). Before v0.26 there was no such pass.

use std::sync::Arc;

use super::estimate::{Estimator, text_token_count};
use super::json::{J, JsStr, StrStats, js_locale_int, to_json_pretty, units_stats};
use super::masking::MASKING_INDICATOR_TAG;
use super::part::GPart;

/// `COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET`.
pub const FUNCTION_RESPONSE_TOKEN_BUDGET: u64 = 50_000;
/// `DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD` (setting `tools.truncateToolOutputThreshold`).
pub const DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD: u64 = 40_000;
/// Share of `maxChars` kept from the start of a truncated output.
pub const HEAD_FRACTION: f64 = 0.2;
/// `TOOL_OUTPUTS_DIR`.
pub const TOOL_OUTPUTS_DIR: &str = "tool-outputs";
/// Tool name used for a response without one.
pub const UNKNOWN_TOOL: &str = "unknown_tool";
/// `COMPRESSION_TRUNCATE_LINES` (v0.26–v0.28): lines kept of a truncated output.
pub const COMPRESSION_TRUNCATE_LINES: usize = 30;
/// `MAX_TRUNCATED_LINE_WIDTH` (v0.26–v0.28): units kept of each kept line.
pub const MAX_TRUNCATED_LINE_WIDTH: usize = 1000;
/// `MAX_TRUNCATED_CHARS` (v0.26–v0.28): units kept of a single-line output.
pub const MAX_TRUNCATED_CHARS: usize = 4000;
/// `TOOL_OUTPUT_DIR` (v0.26–v0.28; `tool-outputs` from v0.29).
pub const LEGACY_TOOL_OUTPUT_DIR: &str = "tool_output";

/// How a function response past the reverse budget is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruncStyle {
    /// v0.29+ (google-gemini/gemini-cli 28805a4b2d): the first 20% and last 80% of `maxChars`
    /// units; outputs of at most `maxChars` keep their text.
    Chars,
    /// v0.26–v0.28: the last 30 lines (each at most 1,000 units), or the last 4,000 units of a
    /// single line; every output past the budget is rewritten, and `maxChars` plays no part.
    Lines,
}

/// `part.replace(/[^a-zA-Z0-9_-]/g, '_')`: per UTF-16 unit, so an astral character becomes `__`.
pub fn sanitize_filename_part(s: &str) -> String {
    s.encode_utf16()
        .map(|u| match u {
            0x30..=0x39 | 0x41..=0x5a | 0x61..=0x7a | 0x5f | 0x2d => u as u8 as char,
            _ => '_',
        })
        .collect()
}

/// The path `saveTruncatedToolOutput(content, tool, id, projectTempDir, sessionId?)` writes.
pub fn saved_output_path(
    project_temp_dir: &str,
    tool: &str,
    id: &str,
    session: Option<&str>,
) -> String {
    let tool = sanitize_filename_part(tool).to_lowercase();
    let id = sanitize_filename_part(id).to_lowercase();
    let file = if id.starts_with(&tool) {
        format!("{id}.txt")
    } else {
        format!("{tool}_{id}.txt")
    };
    let mut dir = format!(
        "{}/{TOOL_OUTPUTS_DIR}",
        project_temp_dir.trim_end_matches('/')
    );
    if let Some(s) = session {
        dir = format!("{dir}/session-{}", sanitize_filename_part(s));
    }
    format!("{dir}/{file}")
}

/// The path `saveTruncatedToolOutput(content, tool, id, projectTempDir)` wrote in v0.26–v0.28:
/// `<dir>/tool_output/<tool>_<id>.txt`, each name with `/[^a-z0-9]/gi` → `_` (per UTF-16 unit)
/// and lower-cased, with no session folder.
pub fn legacy_saved_output_path(project_temp_dir: &str, tool: &str, id: &str) -> String {
    let clean = |s: &str| -> String {
        s.encode_utf16()
            .map(|u| match u {
                0x30..=0x39 | 0x41..=0x5a | 0x61..=0x7a => (u as u8 as char).to_ascii_lowercase(),
                _ => '_',
            })
            .collect()
    };
    format!(
        "{}/{LEGACY_TOOL_OUTPUT_DIR}/{}_{}.txt",
        project_temp_dir.trim_end_matches('/'),
        clean(tool),
        clean(id)
    )
}

/// `formatTruncatedToolOutput(contentStr, outputFile, 30)` as of v0.26–v0.28: split on `\n`;
/// several lines keep the last 30, each longer than 1,000 units cut to its first 1,000 plus a
/// marker; one line keeps its last 4,000 units. Always rewritten, even when short.
pub fn format_truncated_lines(content: &JsStr, output_file: &str) -> JsStr {
    let units = content.to_units();
    let lines: Vec<&[u16]> = units.split(|&u| u == 0x0a).collect();
    let mut out: Vec<u16> = Vec::new();
    if lines.len() > 1 {
        let last = &lines[lines.len().saturating_sub(COMPRESSION_TRUNCATE_LINES)..];
        let cut = last.iter().any(|l| l.len() > MAX_TRUNCATED_LINE_WIDTH);
        let header = format!(
            "Output too large. Showing the last {} of {} lines{}. For full output see: {output_file}\n...\n",
            last.len(),
            lines.len(),
            if cut {
                " (some long lines truncated)"
            } else {
                ""
            }
        );
        out.extend(header.encode_utf16());
        for (i, l) in last.iter().enumerate() {
            if i > 0 {
                out.push(0x0a);
            }
            if l.len() > MAX_TRUNCATED_LINE_WIDTH {
                out.extend_from_slice(&l[..MAX_TRUNCATED_LINE_WIDTH]);
                out.extend("... [LINE WIDTH TRUNCATED]".encode_utf16());
            } else {
                out.extend_from_slice(l);
            }
        }
    } else {
        let header = format!(
            "Output too large. Showing the last {} characters of the output. For full output see: {output_file}\n...",
            js_locale_int(MAX_TRUNCATED_CHARS as i64)
        );
        out.extend(header.encode_utf16());
        out.extend_from_slice(&units[units.len().saturating_sub(MAX_TRUNCATED_CHARS)..]);
    }
    JsStr::from_units(out)
}

/// Concatenate JavaScript strings.
pub fn concat(pieces: &[&JsStr]) -> JsStr {
    if pieces.iter().all(|p| matches!(p, JsStr::Text(_))) {
        let mut s = String::new();
        for p in pieces {
            if let JsStr::Text(t) = p {
                s.push_str(t);
            }
        }
        return JsStr::Text(s);
    }
    let mut u = Vec::new();
    for p in pieces {
        u.extend(p.to_units());
    }
    JsStr::from_units(u)
}

fn header_line(head: i64, tail: i64, output_file: &str) -> String {
    format!(
        "Output too large. Showing first {} and last {} characters. For full output see: {output_file}\n",
        js_locale_int(head),
        js_locale_int(tail)
    )
}

fn marker(omitted: i64) -> String {
    format!(
        "\n\n... [{} characters omitted] ...\n\n",
        js_locale_int(omitted)
    )
}

/// `formatTruncatedToolOutput(contentStr, outputFile, maxChars)`.
pub fn format_truncated_tool_output(content: &JsStr, output_file: &str, max_chars: i64) -> JsStr {
    let len = content.len16() as i64;
    if len <= max_chars {
        return content.clone();
    }
    let head = (max_chars as f64 * HEAD_FRACTION).floor() as i64;
    let tail = max_chars - head;
    let header = header_line(head, tail, output_file);
    if head >= 0 && tail >= 1 {
        // The usual case, kept structured: `header + s[0:head] + marker + s[len−tail:]`.
        if let JsStr::Trunc(t) = content
            && t.same_cut(&header, head as usize, tail as usize)
        {
            return JsStr::Trunc(Arc::new(t.again()));
        }
        return JsStr::Trunc(Arc::new(Truncated::first(
            content,
            header,
            head as usize,
            tail as usize,
        )));
    }
    // maxChars ≤ 1 or negative: JavaScript's slice semantics, materialised.
    let head_s = content.slice(0, Some(head));
    let tail_s = content.slice(-tail, None);
    let omitted = len - head - tail;
    concat(&[
        &JsStr::Text(header),
        &head_s,
        &JsStr::Text(marker(omitted)),
        &tail_s,
    ])
}

/// What every nesting level of one truncated output shares.
#[derive(Debug)]
struct TruncBase {
    /// The header line with its newline (`U` units).
    hdr: Vec<u16>,
    hdr_stats: StrStats,
    /// `s[0:h]` and `s[len−t:]` of the original.
    head: Vec<u16>,
    tail: Vec<u16>,
    tail_stats: StrStats,
    /// Stats of `head[0 : h − (k−1)·U]` for k = 1, 2, … while that is positive.
    cuts: Vec<StrStats>,
    /// Stats of the first `U + h` units of headers repeated (once the head is all headers).
    saturated: StrStats,
    /// End of the first masking tag in the head, and whether the tail has one.
    tag_end_in_head: Option<usize>,
    tag_in_tail: bool,
    tag_in_hdr: bool,
}

/// `formatTruncatedToolOutput` applied `k` times with the same `maxChars` and file: the
/// header `k` times, then the original head, cut to `U + h` units in all; the omitted-count
/// marker of the last round; the original tail. Each round prepends a header and pushes the
/// head `U` units further out, so from `k_sat = ⌈h / U⌉ + 1` on the head is all headers and,
/// once the marker's count stops changing, another round returns the identical string.
#[derive(Debug)]
pub struct Truncated {
    base: Arc<TruncBase>,
    /// Rounds, capped at `k_sat` (later rounds give the same head).
    k: usize,
    marker: String,
    len: usize,
    stats: StrStats,
}

impl PartialEq for Truncated {
    fn eq(&self, o: &Truncated) -> bool {
        Arc::ptr_eq(&self.base, &o.base) && self.k == o.k && self.marker == o.marker
    }
}

fn find(hay: &[u16], needle: &[u16]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    // The rest is compared only where the first unit matches: a comparison call at every
    // position of a long head cost more than the truncation around it.
    hay.windows(needle.len())
        .position(|w| w[0] == first && w[1..] == *rest)
}

/// The first `h` UTF-16 units of `s` (all of them when it has fewer).
fn head_units(s: &str, h: usize) -> Vec<u16> {
    // Where its first `h` bytes are ASCII, they are its first `h` units.
    let first = &s.as_bytes()[..h.min(s.len())];
    if first.is_ascii() {
        return first.iter().map(|&b| u16::from(b)).collect();
    }
    s.encode_utf16().take(h).collect()
}

/// The last `t` UTF-16 units of `s` (`t` at most its length), without encoding all of it.
fn tail_units(s: &str, t: usize) -> Vec<u16> {
    // Where its last `t` bytes are ASCII, they are its last `t` units: widened a vector at a
    // time (outputs long enough to be truncated are mostly ASCII).
    let last = &s.as_bytes()[s.len().saturating_sub(t)..];
    if last.is_ascii() {
        return last.iter().map(|&b| u16::from(b)).collect();
    }
    let (mut n, mut start) = (0, s.len());
    for (i, c) in s.char_indices().rev() {
        if n >= t {
            break;
        }
        n += c.len_utf16();
        start = i;
    }
    let units: Vec<u16> = s[start..].encode_utf16().collect();
    units[units.len().saturating_sub(t)..].to_vec()
}

impl TruncBase {
    fn u(&self) -> usize {
        self.hdr.len()
    }

    fn h(&self) -> usize {
        self.head.len()
    }

    fn k_sat(&self) -> usize {
        self.cuts.len() + 1
    }

    fn prefix_stats(&self, k: usize) -> StrStats {
        if k < self.k_sat() {
            let c = self.cuts[k - 1];
            StrStats {
                units: k as u64 * self.hdr_stats.units + c.units,
                non_ascii: k as u64 * self.hdr_stats.non_ascii + c.non_ascii,
                escaped: k as u64 * self.hdr_stats.escaped + c.escaped,
                astral: k as u64 * self.hdr_stats.astral + c.astral,
            }
        } else {
            self.saturated
        }
    }
}

impl Truncated {
    fn first(content: &JsStr, header: String, h: usize, t: usize) -> Truncated {
        let (len, head, tail) = match content {
            JsStr::Text(s) => {
                let len = crate::replay::js::utf16_len(s);
                let head = head_units(s, h);
                (len, head, tail_units(s, t))
            }
            _ => {
                let units = content.to_units();
                (
                    units.len(),
                    units[..h].to_vec(),
                    units[units.len() - t..].to_vec(),
                )
            }
        };
        let hdr: Vec<u16> = header.encode_utf16().collect();
        let u = hdr.len();
        // Prefix stats of the head at h, h − U, h − 2U, … (a cut through a pair leaves a lone
        // surrogate, escaped as six characters).
        let mut wanted: Vec<usize> = (0..)
            .map(|j| h as i64 - (j * u) as i64)
            .take_while(|&x| x > 0)
            .map(|x| x as usize)
            .collect();
        wanted.reverse();
        // Each cut's stats from the previous cut's and the units between (one pass over
        // slices): a pair the cut splits counts as two lone surrogates in the parts, six
        // characters each, and as two plain units in the whole.
        let mut cuts_asc = Vec::with_capacity(wanted.len());
        let (mut st, mut at) = (StrStats::default(), 0);
        for &c in &wanted {
            let c = c.min(head.len());
            let piece = units_stats(&head[at..c]);
            let split_pair = at > 0
                && c > at
                && (0xd800..0xdc00).contains(&head[at - 1])
                && (0xdc00..0xe000).contains(&head[at]);
            st = StrStats {
                units: st.units + piece.units,
                non_ascii: st.non_ascii + piece.non_ascii,
                escaped: st.escaped + piece.escaped - if split_pair { 10 } else { 0 },
                astral: st.astral + piece.astral + u64::from(split_pair),
            };
            at = c;
            cuts_asc.push(st);
        }
        cuts_asc.reverse();
        let big_h = u + h;
        let mut sat_units: Vec<u16> = Vec::with_capacity(big_h + u);
        while sat_units.len() < big_h && u > 0 {
            sat_units.extend_from_slice(&hdr);
        }
        sat_units.truncate(big_h);
        let tag: Vec<u16> = format!("<{MASKING_INDICATOR_TAG}").encode_utf16().collect();
        let base = TruncBase {
            hdr_stats: units_stats(&hdr),
            saturated: units_stats(&sat_units),
            tail_stats: units_stats(&tail),
            tag_end_in_head: find(&head, &tag).map(|p| p + tag.len()),
            tag_in_tail: find(&tail, &tag).is_some(),
            tag_in_hdr: find(&hdr, &tag).is_some(),
            hdr,
            head,
            tail,
            cuts: cuts_asc,
        };
        Truncated::layer(Arc::new(base), 1, len as i64 - h as i64 - t as i64)
    }

    fn layer(base: Arc<TruncBase>, k: usize, omitted: i64) -> Truncated {
        let k = k.min(base.k_sat());
        let marker = marker(omitted);
        let ms = JsStr::Text(marker.clone()).stats();
        let p = base.prefix_stats(k);
        let stats = StrStats {
            units: p.units + ms.units + base.tail_stats.units,
            non_ascii: p.non_ascii + ms.non_ascii + base.tail_stats.non_ascii,
            escaped: p.escaped + ms.escaped + base.tail_stats.escaped,
            astral: p.astral + ms.astral + base.tail_stats.astral,
        };
        Truncated {
            len: stats.units as usize,
            base,
            k,
            marker,
            stats,
        }
    }

    /// Whether truncating this again with `header`, `h`, `t` is another round of the same cut.
    fn same_cut(&self, header: &str, h: usize, t: usize) -> bool {
        self.base.h() == h
            && self.base.tail.len() == t
            && header.encode_utf16().eq(self.base.hdr.iter().copied())
    }

    /// One more round (the caller checked the length exceeds `maxChars`).
    fn again(&self) -> Truncated {
        let omitted = self.len as i64 - self.base.h() as i64 - self.base.tail.len() as i64;
        Truncated::layer(self.base.clone(), self.k + 1, omitted)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn stats(&self) -> StrStats {
        self.stats
    }

    pub fn materialize(&self) -> Vec<u16> {
        let b = &self.base;
        let big_h = b.u() + b.h();
        let mut out: Vec<u16> = Vec::with_capacity(self.len);
        let mut copies = 0;
        while out.len() < big_h && copies < self.k {
            out.extend_from_slice(&b.hdr);
            copies += 1;
        }
        if out.len() < big_h {
            let need = big_h - out.len();
            out.extend_from_slice(&b.head[..need.min(b.h())]);
        }
        out.truncate(big_h);
        out.extend(self.marker.encode_utf16());
        out.extend_from_slice(&b.tail);
        out
    }

    /// `includes(needle)`; the masking tag without materialising (it has no newline, so it
    /// cannot span the newline-delimited pieces).
    pub fn contains(&self, needle: &str) -> bool {
        if needle == format!("<{MASKING_INDICATOR_TAG}") {
            let b = &self.base;
            let kept_head = (b.h() + b.u()).saturating_sub(self.k * b.u());
            return b.tag_in_hdr
                || b.tag_in_tail
                || b.tag_end_in_head.is_some_and(|e| e <= kept_head);
        }
        let n: Vec<u16> = needle.encode_utf16().collect();
        find(&self.materialize(), &n).is_some()
    }
}

/// The string the reverse budget measures for a `functionResponse.response` (`None` when the
/// response is absent: `JSON.stringify(undefined)`).
pub fn response_text(response: Option<&J>) -> Option<JsStr> {
    match response {
        None => None,
        Some(J::Str(s)) => Some(s.clone()),
        Some(r @ J::Obj(_)) => match (r.get("output"), r.get("content")) {
            (Some(J::Str(s)), _) => Some(s.clone()),
            (_, Some(J::Str(s))) => Some(s.clone()),
            _ => Some(JsStr::Text(to_json_pretty(r))),
        },
        Some(r) => Some(JsStr::Text(to_json_pretty(r))),
    }
}

/// [`response_text`] borrowing the string when the response holds one.
pub fn measured(response: Option<&J>) -> Option<std::borrow::Cow<'_, JsStr>> {
    use std::borrow::Cow;
    match measured_node(response) {
        Some(J::Str(s)) => Some(Cow::Borrowed(s)),
        _ => response_text(response).map(Cow::Owned),
    }
}

/// The string node [`response_text`] returns a copy of, when the response holds one.
pub fn measured_node(response: Option<&J>) -> Option<&J> {
    match response {
        Some(s @ J::Str(_)) => Some(s),
        Some(r @ J::Obj(_)) => match (r.get("output"), r.get("content")) {
            (Some(s @ J::Str(_)), _) | (_, Some(s @ J::Str(_))) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// The tool name a saved output is named after (`name ?? 'unknown_tool'`); `None` when the
/// name is not a string (upstream throws while sanitising it and keeps the part).
pub fn tool_name(fr: &J) -> Option<String> {
    match fr.get("name") {
        None | Some(J::Null) => Some(UNKNOWN_TOOL.to_string()),
        Some(J::Str(s)) => Some(s.to_string_lossy()),
        Some(_) => None,
    }
}

/// `{functionResponse: {...fr, response: {output}}}`.
pub fn rewrap(fr: &J, output: JsStr) -> J {
    let response = J::obj(vec![("output", J::Str(output))]);
    J::obj(vec![("functionResponse", fr.with("response", response))])
}

/// What happens to one function response once the budget is exceeded: the new part and the
/// estimate the counter grows by, or `None` when saving fails (the part is kept).
pub fn truncate_part(
    fr: &J,
    max_chars: i64,
    style: TruncStyle,
    estimator: Estimator,
    save: &mut dyn FnMut(Option<&str>) -> Option<String>,
) -> Option<(J, u64)> {
    let name = tool_name(fr);
    let file = save(name.as_deref());
    let s = measured(fr.get("response"))?;
    let (m, tokens) = truncated_output(&s, &file?, max_chars, style, estimator);
    Some((rewrap(fr, m), tokens))
}

/// An output truncated in `style`, saved to `file`, with the estimate of the new text.
fn truncated_output(
    s: &JsStr,
    file: &str,
    max_chars: i64,
    style: TruncStyle,
    estimator: Estimator,
) -> (JsStr, u64) {
    let m = match style {
        TruncStyle::Chars => format_truncated_tool_output(s, file, max_chars),
        TruncStyle::Lines => format_truncated_lines(s, file),
    };
    let tokens = text_token_count(&m, estimator);
    (m, tokens)
}

/// [`truncate_part`] of a whole part as the replay holds it: the new part, and the estimate.
/// A typed function response is truncated without its tree (its output is not copied).
pub fn truncate_gpart(
    part: &GPart,
    max_chars: i64,
    style: TruncStyle,
    estimator: Estimator,
    save: &mut dyn FnMut(Option<&str>) -> Option<String>,
) -> Option<(GPart, u64)> {
    let GPart::Response { id, name, output } = part else {
        let whole = part.to_j();
        let fr = whole.get("functionResponse").unwrap_or(&J::Null);
        return truncate_part(fr, max_chars, style, estimator, save)
            .map(|(j, tokens)| (GPart::from_j(j), tokens));
    };
    let file = save(Some(name))?;
    let (m, tokens) = truncated_output(output, &file, max_chars, style, estimator);
    let new = GPart::Response {
        id: id.clone(),
        name: name.clone(),
        output: m,
    };
    // The same text and estimate as the tree's truncation (a truncated output compares by the
    // text it was cut from, which two truncations do not share: compared as JSON).
    #[cfg(debug_assertions)]
    {
        let tree = part.to_j();
        let want = truncate_part(
            tree.get("functionResponse").unwrap_or(&J::Null),
            max_chars,
            style,
            estimator,
            &mut |_| Some(file.clone()),
        );
        let json = |(j, t): (J, u64)| (super::json::to_json(&j), t);
        debug_assert_eq!(Some(json((new.to_j(), tokens))), want.map(json), "{part:?}");
    }
    Some((new, tokens))
}

/// `truncateHistoryToBudget(history)`. `save(tool)` stands for `saveTruncatedToolOutput`: it is
/// called once per response over budget (upstream draws a truncation id each time, even when
/// saving then fails) and returns the file path, or `None` when saving fails.
pub fn truncate_history_to_budget(
    history: &[J],
    budget: u64,
    max_chars: i64,
    style: TruncStyle,
    estimator: Estimator,
    save: &mut dyn FnMut(Option<&str>) -> Option<String>,
) -> Vec<J> {
    let mut counter = 0u64;
    let mut out = vec![J::Null; history.len()];
    for i in (0..history.len()).rev() {
        let content = &history[i];
        let mut new_parts: Vec<J> = Vec::new();
        if let Some(J::Arr(parts)) = content.get("parts") {
            for part in parts.iter().rev() {
                let Some(fr) = part.get("functionResponse").filter(|f| f.truthy()) else {
                    new_parts.push(part.clone());
                    continue;
                };
                let s = response_text(fr.get("response"));
                let tokens = s.as_ref().map_or(0, |s| text_token_count(s, estimator));
                if counter + tokens > budget {
                    match truncate_part(fr, max_chars, style, estimator, save) {
                        Some((p, t)) => {
                            new_parts.push(p);
                            counter += t;
                        }
                        None => {
                            new_parts.push(part.clone());
                            counter += tokens;
                        }
                    }
                } else {
                    counter += tokens;
                    new_parts.push(part.clone());
                }
            }
        }
        new_parts.reverse();
        let mut c = content.clone();
        if !matches!(c, J::Obj(_)) {
            c = J::Obj(Vec::new());
        }
        c.set("parts", J::Arr(new_parts));
        out[i] = c;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_tails_and_finds_are_those_of_the_units() {
        for s in [
            "",
            "abc",
            "a😀b😀",
            "😀😀😀",
            "é漢😀x",
            "ab<tag<tag>",
            "xyé",
            "éxy",
        ] {
            let units: Vec<u16> = s.encode_utf16().collect();
            for t in 0..=units.len() {
                // A tail may start inside a pair: with its lone low surrogate.
                assert_eq!(tail_units(s, t), units[units.len() - t..], "{s:?} {t}");
                // And a head may end inside one.
                assert_eq!(head_units(s, t), units[..t], "{s:?} {t}");
            }
            assert_eq!(head_units(s, units.len() + 3), units, "{s:?}");
            for needle in ["", "<tag>", "<", "b😀", "😀😀", "zz"] {
                let n: Vec<u16> = needle.encode_utf16().collect();
                let naive = if n.is_empty() {
                    Some(0)
                } else {
                    units.windows(n.len()).position(|w| w == n.as_slice())
                };
                assert_eq!(find(&units, &n), naive, "{s:?} {needle:?}");
            }
        }
    }
}
