//! `ToolOutputMaskingService.mask` (`packages/core/src/context/toolOutputMaskingService.ts`,
//! spec §1.12): runs on every turn after the compression check.
//!
//! Scanning backwards from the second-newest content (the newest too when
//! `protectLatestTurn` is off), last part first, each `functionResponse` that is not of an
//! exempt tool, has a truthy `response` and is not already masked (its pretty JSON contains
//! `<tool_output_masked`) adds `estimateTokenCountSync([part])` to a running total. The part
//! that takes it over the protection threshold (50,000) and every older one are prunable; when
//! they add up to at least the minimum (30,000), each is replaced by
//! `{output: "<tool_output_masked>\n{preview}\n\nOutput too large. Full output available at: {file}\n</tool_output_masked>"}`
//! if that is smaller. Preview: for `run_shell_command` the `Output:` section cut to its first
//! and last 10 lines (other sections kept); for other tools the first and last 250 characters of
//! the pretty JSON when it is longer than 500.

use super::estimate::{Estimator, estimate_token_count_sync};
use super::json::{J, JsStr, js_trim, pretty_json_ends, to_json};
use super::part::GPart;
use super::truncate::{TOOL_OUTPUTS_DIR, sanitize_filename_part};

pub const DEFAULT_TOOL_PROTECTION_THRESHOLD: u64 = 50_000;
pub const DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD: u64 = 30_000;
pub const DEFAULT_PROTECT_LATEST_TURN: bool = true;
pub const MASKING_INDICATOR_TAG: &str = "tool_output_masked";
pub const SHELL_TOOL_NAME: &str = "run_shell_command";
/// Tools whose outputs are never masked.
pub const EXEMPT_TOOLS: [&str; 4] = [
    "activate_skill",
    "ask_user",
    "enter_plan_mode",
    "exit_plan_mode",
];
/// Characters of pretty JSON kept at each end of a non-shell preview.
pub const PREVIEW_CHARS: i64 = 250;
/// Lines kept at each end of a shell `Output:` section.
pub const PREVIEW_LINES: usize = 10;
const SECTIONS: [&str; 6] = [
    "Output",
    "Error",
    "Exit Code",
    "Signal",
    "Background PIDs",
    "Process Group PGID",
];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskingConfig {
    pub protection: u64,
    pub min_prunable: u64,
    pub protect_latest_turn: bool,
}

impl Default for MaskingConfig {
    fn default() -> Self {
        MaskingConfig {
            protection: DEFAULT_TOOL_PROTECTION_THRESHOLD,
            min_prunable: DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD,
            protect_latest_turn: DEFAULT_PROTECT_LATEST_TURN,
        }
    }
}

/// What the saved-file path is made of (it ends up in the masked text).
#[derive(Debug, Clone, PartialEq)]
pub struct MaskFiles {
    pub project_temp_dir: String,
    pub session_id: Option<String>,
    /// `Math.random().toString(36).substring(7)`.
    pub random_suffix: String,
    /// `Date.now().toString()`, used for responses without an id.
    pub now_ms: String,
}

#[derive(Debug, Clone)]
pub struct MaskResult {
    pub new_history: Vec<J>,
    pub masked_count: usize,
    pub tokens_saved: i64,
}

/// `toolName && EXEMPT_TOOLS.has(toolName)`.
pub fn is_exempt(fr: &J) -> bool {
    matches!(fr.get("name"), Some(J::Str(s)) if EXEMPT_TOOLS.contains(&s.to_string_lossy().as_str()))
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// `formatSimplePreview`: the first and last lines, the others counted (only the ends are
/// looked at, the rest of a long output is only counted).
fn simple_preview(content: &[u16]) -> Vec<u16> {
    const NL: u16 = b'\n' as u16;
    let newlines: Vec<usize> = content
        .iter()
        .enumerate()
        .filter(|&(_, &u)| u == NL)
        .map(|(i, _)| i)
        .collect();
    let lines = newlines.len() + 1;
    if lines <= 2 * PREVIEW_LINES {
        return content.to_vec();
    }
    // The first lines end at a newline, the last start after one.
    let head_end = newlines[PREVIEW_LINES - 1];
    let tail_start = newlines[newlines.len() - PREVIEW_LINES] + 1;
    let mut out = content[..head_end].to_vec();
    out.extend(units(&format!(
        "\n\n... [{} lines omitted] ...\n\n",
        lines - 2 * PREVIEW_LINES
    )));
    out.extend_from_slice(&content[tail_start..]);
    out
}

/// `content.split(/^(Output|Error|Exit Code|Signal|Background PIDs|Process Group PGID): /m)`.
fn split_sections(s: &[u16]) -> Vec<Vec<u16>> {
    let patterns: Vec<(&str, Vec<u16>)> = SECTIONS
        .iter()
        .map(|name| (*name, units(&format!("{name}: "))))
        .collect();
    let line_end = |u: u16| matches!(u, 0x0a | 0x0d | 0x2028 | 0x2029);
    let mut out = Vec::new();
    let (mut p, mut q) = (0, 0);
    // `q` is always a line start: a section name is looked for there only.
    while q < s.len() {
        match patterns.iter().find(|(_, pat)| s[q..].starts_with(pat)) {
            Some((name, pat)) => {
                out.push(s[p..q].to_vec());
                out.push(units(name));
                p = q + pat.len();
                q = p;
                // A section's text starts mid-line: its line's end comes first.
                if q > 0 && !line_end(s[q - 1]) {
                    q = s[q..]
                        .iter()
                        .position(|&u| line_end(u))
                        .map_or(s.len(), |i| q + i + 1);
                }
            }
            None => {
                q = s[q..]
                    .iter()
                    .position(|&u| line_end(u))
                    .map_or(s.len(), |i| q + i + 1);
            }
        }
    }
    out.push(s[p..].to_vec());
    out
}

/// `formatShellPreview(response)`.
pub fn shell_preview(response: &J) -> JsStr {
    let field = |k: &str| response.get(k).filter(|v| v.truthy());
    // `response.output || response.stdout || ''`; a non-string is returned stringified.
    let content = match field("output").or_else(|| field("stdout")) {
        None => JsStr::default(),
        Some(J::Str(s)) => s.clone(),
        Some(v @ (J::Obj(_) | J::Arr(_))) => return JsStr::Text(to_json(v)),
        Some(v) => return v.to_js_string(),
    };
    let text = content.to_units();
    let parts = split_sections(&text);
    if parts.len() < 3 {
        return JsStr::from_units(simple_preview(&text));
    }
    let mut pieces: Vec<Vec<u16>> = Vec::new();
    let first = js_trim(&parts[0]);
    if !first.is_empty() {
        pieces.push(simple_preview(first));
    }
    let mut i = 1;
    while i < parts.len() {
        let name = &parts[i];
        let section = parts.get(i + 1).map_or(&[][..], |p| js_trim(p));
        let mut piece = name.clone();
        piece.extend(units(": "));
        if *name == units("Output") {
            piece.extend(simple_preview(section));
        } else {
            piece.extend_from_slice(section);
        }
        pieces.push(piece);
        i += 2;
    }
    let mut preview = pieces.join(&(b'\n' as u16));
    let exit = match response.get("exitCode") {
        None | Some(J::Null) => response.get("exit_code"),
        v => v,
    };
    if let Some(code) = exit {
        let zero = matches!(code, J::Num(x) if *x == 0.0);
        let needle = format!("Exit Code: {}", code.to_js_string().to_string_lossy());
        if !zero && !matches!(code, J::Null) && !content.contains(&needle) {
            preview.extend(units(&format!(
                "\n[Exit Code: {}]",
                code.to_js_string().to_string_lossy()
            )));
        }
    }
    if let Some(err) = response.get("error").filter(|e| e.truthy()) {
        let e = err.to_js_string().to_string_lossy();
        if !content.contains(&format!("Error: {e}")) {
            preview.extend(units(&format!("\n[Error: {e}]")));
        }
    }
    JsStr::from_units(preview)
}

/// The file a masked output is saved to.
pub fn masked_output_path(fr: &J, files: &MaskFiles) -> String {
    let tool = fr.get("name").filter(|n| n.truthy()).map_or_else(
        || "unknown_tool".to_string(),
        |n| n.to_js_string().to_string_lossy(),
    );
    let call = fr.get("id").filter(|n| n.truthy()).map_or_else(
        || files.now_ms.clone(),
        |n| n.to_js_string().to_string_lossy(),
    );
    let mut dir = format!(
        "{}/{TOOL_OUTPUTS_DIR}",
        files.project_temp_dir.trim_end_matches('/')
    );
    if let Some(s) = files.session_id.as_deref().filter(|s| !s.is_empty()) {
        dir = format!("{dir}/session-{}", sanitize_filename_part(s));
    }
    format!(
        "{dir}/{}_{}_{}.txt",
        sanitize_filename_part(&tool).to_lowercase(),
        sanitize_filename_part(&call).to_lowercase(),
        files.random_suffix
    )
}

/// The masked version of a function-response part (a [`candidate`]).
pub fn masked_part(part: &J, files: &MaskFiles) -> J {
    let null = J::Null;
    let fr = part.get("functionResponse").unwrap_or(&null);
    let is_shell =
        matches!(fr.get("name"), Some(J::Str(s)) if s.to_string_lossy() == SHELL_TOOL_NAME);
    let preview = if is_shell {
        let empty = J::Obj(Vec::new());
        let response = fr.get("response").filter(|r| r.truthy()).unwrap_or(&empty);
        shell_preview(response)
    } else {
        // The ends of the response's pretty JSON: all a preview shows of it.
        let (c, len) = match fr.get("response").filter(|r| r.truthy()) {
            Some(r) => pretty_json_ends(r, PREVIEW_CHARS as usize),
            None => (JsStr::default(), 0),
        };
        if len > 2 * PREVIEW_CHARS as u64 {
            super::truncate::concat(&[
                &c.slice(0, Some(PREVIEW_CHARS)),
                &JsStr::from("\n... [TRUNCATED] ...\n"),
                &c.slice(-PREVIEW_CHARS, None),
            ])
        } else {
            c
        }
    };
    let snippet = super::truncate::concat(&[
        &JsStr::Text(format!("<{MASKING_INDICATOR_TAG}>\n")),
        &preview,
        &JsStr::Text(format!(
            "\n\nOutput too large. Full output available at: {}\n</{MASKING_INDICATOR_TAG}>",
            masked_output_path(fr, files)
        )),
    ]);
    let fr = fr.with("response", J::obj(vec![("output", J::Str(snippet))]));
    part.with("functionResponse", fr)
}

/// `content.includes('<tool_output_masked')` of the pretty JSON, without building it: the tag
/// has no character JSON escapes, so it is in the JSON exactly when it is in a key or string.
fn mentions_tag(v: &J) -> bool {
    let tag = format!("<{MASKING_INDICATOR_TAG}");
    match v {
        J::Str(s) => s.contains(&tag),
        J::Arr(a) => a.iter().any(mentions_tag),
        J::Obj(e) => e.iter().any(|(k, x)| k.contains(&tag) || mentions_tag(x)),
        _ => false,
    }
}

/// Whether the backward scan counts a part: a truthy `functionResponse` of a tool that is not
/// exempt, with a truthy response that is not already masked.
pub fn candidate(part: &J) -> bool {
    let Some(fr) = part.get("functionResponse").filter(|f| f.truthy()) else {
        return false;
    };
    !is_exempt(fr)
        && fr
            .get("response")
            .is_some_and(|r| r.truthy() && !mentions_tag(r))
}

/// [`candidate`] of a part as the replay holds it, without the tree of a typed part.
pub fn part_candidate(part: &GPart) -> bool {
    let typed = match part {
        GPart::Tree(j) => return candidate(j),
        GPart::Response { name, output, .. } => {
            !EXEMPT_TOOLS.contains(&&**name)
                && !output.contains(&format!("<{MASKING_INDICATOR_TAG}"))
        }
        GPart::Text { .. } | GPart::Call { .. } => false,
    };
    debug_assert_eq!(typed, candidate(&part.to_j()), "{part:?}");
    typed
}

/// `mask(history)`.
pub fn mask(history: &[J], cfg: &MaskingConfig, files: &MaskFiles, w: Estimator) -> MaskResult {
    let unchanged = |h: &[J]| MaskResult {
        new_history: h.to_vec(),
        masked_count: 0,
        tokens_saved: 0,
    };
    if history.is_empty() {
        return unchanged(history);
    }
    let start = history.len() as i64 - if cfg.protect_latest_turn { 2 } else { 1 };
    let mut cumulative = 0u64;
    let mut boundary = false;
    let mut prunable_total = 0u64;
    let mut prunable: Vec<(usize, usize, u64)> = Vec::new();
    let mut i = start;
    while i >= 0 {
        let c = &history[i as usize];
        if let Some(parts) = c.get("parts").and_then(J::as_array) {
            for (j, part) in parts.iter().enumerate().rev() {
                if !candidate(part) {
                    continue;
                }
                let tokens = estimate_token_count_sync(std::slice::from_ref(part), w);
                if !boundary {
                    cumulative += tokens;
                    if cumulative > cfg.protection {
                        boundary = true;
                        prunable_total += tokens;
                        prunable.push((i as usize, j, tokens));
                    }
                } else {
                    prunable_total += tokens;
                    prunable.push((i as usize, j, tokens));
                }
            }
        }
        i -= 1;
    }
    if prunable_total < cfg.min_prunable {
        return unchanged(history);
    }
    let mut out = history.to_vec();
    let mut saved = 0i64;
    let mut count = 0;
    for (ci, pj, tokens) in prunable {
        let Some(J::Arr(parts)) = out[ci].get_mut("parts") else {
            continue;
        };
        let masked = masked_part(&parts[pj], files);
        let new_tokens = estimate_token_count_sync(std::slice::from_ref(&masked), w);
        let savings = tokens as i64 - new_tokens as i64;
        if savings > 0 {
            parts[pj] = masked;
            saved += savings;
            count += 1;
        }
    }
    MaskResult {
        new_history: out,
        masked_count: count,
        tokens_saved: saved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `formatSimplePreview`, literally: every line split out and joined again.
    fn literal_simple_preview(content: &[u16]) -> Vec<u16> {
        let lines: Vec<&[u16]> = content.split(|&u| u == b'\n' as u16).collect();
        if lines.len() <= 2 * PREVIEW_LINES {
            return content.to_vec();
        }
        let mut out = lines[..PREVIEW_LINES].join(&(b'\n' as u16));
        out.extend(units(&format!(
            "\n\n... [{} lines omitted] ...\n\n",
            lines.len() - 2 * PREVIEW_LINES
        )));
        out.extend(lines[lines.len() - PREVIEW_LINES..].join(&(b'\n' as u16)));
        out
    }

    /// The section split, literally: every position tried, names at line starts.
    fn literal_split_sections(s: &[u16]) -> Vec<Vec<u16>> {
        let line_start = |q: usize| q == 0 || matches!(s[q - 1], 0x0a | 0x0d | 0x2028 | 0x2029);
        let mut out = Vec::new();
        let (mut p, mut q) = (0, 0);
        while q < s.len() {
            let hit = SECTIONS
                .iter()
                .find(|name| line_start(q) && s[q..].starts_with(&units(&format!("{name}: "))));
            match hit {
                Some(name) => {
                    out.push(s[p..q].to_vec());
                    out.push(units(name));
                    p = q + name.len() + 2;
                    q = p;
                }
                None => q += 1,
            }
        }
        out.push(s[p..].to_vec());
        out
    }

    #[test]
    fn previews_and_sections_are_the_literal_ones() {
        let many: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let texts = [
            String::new(),
            "Output: ".to_string(),
            "one line".to_string(),
            many.clone(),
            format!("{many}tail without newline"),
            format!("\n\n{many}\n\n"),
            format!("Output: {many}Error: (none)\nExit Code: 1\nSignal: 0\r\nBackground PIDs: 7"),
            "head\r\nOutput: x Error: mid-line\u{2028}Exit Code: 0\u{2029}Signal: 9".to_string(),
            format!("Output: Output: nested\nProcess Group PGID: 3\n{many}Error: 😀 last"),
            "Exit Code:no space\nExit Code: 2\n".repeat(30),
        ];
        for t in &texts {
            let u = units(t);
            assert_eq!(split_sections(&u), literal_split_sections(&u), "{t:?}");
            assert_eq!(simple_preview(&u), literal_simple_preview(&u), "{t:?}");
        }
    }
}
