//! Differential test: the incremental replay against a naive driver that runs the pure ports
//! (checked against the golden vectors in golden_tests.rs) over the whole history at every
//! request.

use super::compress::{CompressOptions, compress, content};
use super::content::{GRole, convert};
use super::estimate::estimate_token_count_sync;
use super::golden_tests::s;
use super::json::{J, JsStr, to_json};
use super::masking::{MaskFiles, mask};
use super::tests::{params, request, text_item};
use super::truncate::{TruncStyle, legacy_saved_output_path, saved_output_path};
use super::*;
use crate::model::{Part, Role};
use crate::replay::{EventKind, HistoryItem, Strategy};

pub(super) use crate::testing::Rng;

const PIECES: [&str; 14] = [
    "fn main() ",
    "let x = 1;\n",
    "error: ",
    "src/lib.rs ",
    "漢字",
    "こんにちは",
    "😀",
    "👍🏽",
    "\"quoted\" ",
    "tab\t",
    "é",
    "Output: ok\n",
    "line\n",
    "\u{1}",
];

pub(super) fn random_text(r: &mut Rng, min: usize, spread: u64) -> String {
    let len = min
        + if spread > 0 {
            r.below(spread) as usize
        } else {
            0
        };
    let mut s = String::new();
    while s.len() < len {
        s.push_str(PIECES[r.below(PIECES.len() as u64) as usize]);
    }
    s
}

pub(super) fn random_session(seed: u64, turns: usize) -> Vec<HistoryItem> {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let tools = [
        "read_file",
        "run_shell_command",
        "grep_search",
        "ask_user",
        "glob",
    ];
    let mut items = vec![HistoryItem {
        is_context: true,
        ..text_item(
            Role::User,
            false,
            "<session_context>\nToday is Friday.\n</session_context>",
        )
    }];
    let mut call = 0;
    for _ in 0..turns {
        let mut prompt = text_item(Role::User, true, &random_text(&mut r, 40, 400));
        if r.chance(15) {
            prompt.parts.push(Part::Image {
                media_type: Some("image/png".into()),
                bytes: Some(r.below(50_000)),
                data: None,
                url: None,
            });
            prompt.tool_names.push(None);
        }
        items.push(prompt);
        for _ in 0..1 + r.below(4) {
            let mut parts = Vec::new();
            if r.chance(40) {
                parts.push(Part::Thinking {
                    text: random_text(&mut r, 80, 0),
                });
            }
            if r.chance(50) {
                parts.push(Part::Text {
                    text: random_text(&mut r, 30, 300),
                });
            }
            let mut results = Vec::new();
            let mut names = Vec::new();
            for _ in 0..1 + r.below(2) {
                let tool = tools[r.below(tools.len() as u64) as usize];
                let id = format!("{tool}-{call}");
                call += 1;
                parts.push(Part::ToolCall {
                    id: id.clone(),
                    name: tool.into(),
                    input: serde_json::json!({"path": format!("src/{call}.rs"), "n": call}).into(),
                });
                let size = if r.chance(20) {
                    5_000 + r.below(30_000)
                } else {
                    20 + r.below(2_500)
                } as usize;
                let output = if tool == "run_shell_command" {
                    let lines: Vec<String> = (0..size / 40)
                        .map(|i| format!("{i}: {}", random_text(&mut r, 30, 0)))
                        .collect();
                    format!("Command: make\nOutput: {}\nExit Code: 1", lines.join("\n"))
                } else {
                    random_text(&mut r, size, 0)
                };
                let mut attachments = Vec::new();
                if r.chance(5) {
                    attachments.push(Part::Image {
                        media_type: Some("image/jpeg".into()),
                        bytes: Some(1_000),
                        data: None,
                        url: None,
                    });
                }
                results.push(Part::ToolResult {
                    call_id: id,
                    output,
                    is_error: r.chance(8),
                    attachments,
                    output_size: None,
                });
                names.push(Some(tool.to_string()));
            }
            let n = parts.len();
            items.push(HistoryItem {
                role: Role::Assistant,
                is_human: false,
                timestamp: None,
                model: None,
                parts,
                tool_names: vec![None; n],
                is_context: false,
            });
            items.push(HistoryItem {
                role: Role::Tool,
                is_human: false,
                timestamp: None,
                model: None,
                parts: results,
                tool_names: names,
                is_context: false,
            });
        }
        items.push(text_item(
            Role::Assistant,
            false,
            &random_text(&mut r, 20, 500),
        ));
    }
    items
}

/// Gemini's per-request pipeline run naively: the pure `compress` and `mask` over the whole
/// history, the view rebuilt by `convert` + coalescing.
struct Naive {
    p: Params,
    h: Vec<J>,
    env: Option<JsStr>,
    failed: bool,
    pushed: bool,
}

impl Naive {
    fn append(&mut self, role: GRole, parts: Vec<J>) {
        if self.p.coalesce
            && let Some(last) = self.h.last_mut()
            && s(last, "role") == role.as_str()
            && let Some(J::Arr(ps)) = last.get_mut("parts")
        {
            ps.extend(parts);
            return;
        }
        self.h.push(content(role.as_str(), parts));
    }

    fn push(&mut self, item: &HistoryItem) {
        let first = !self.pushed;
        self.pushed = true;
        let Some((role, parts)) = convert(item, self.p.coalesce) else {
            return;
        };
        if first && item.is_context {
            self.env = parts[0].get("text").and_then(J::as_str).cloned();
        }
        self.append(role, parts);
    }

    fn tokens(&self) -> u64 {
        let parts: Vec<J> = self
            .h
            .iter()
            .flat_map(|c| c.get("parts").unwrap().as_array().unwrap().clone())
            .collect();
        estimate_token_count_sync(&parts, self.p.w)
    }

    fn before_request(&mut self, prev: Option<u64>) -> Vec<EventKind> {
        let mut kinds = Vec::new();
        let prompt = prev.unwrap_or_else(|| self.tokens());
        let p = self.p.clone();
        if !self.h.is_empty()
            && prompt as f64 >= p.threshold * p.limit as f64
            && p.summary_tokens > 0
        {
            let opts = CompressOptions {
                force: false,
                threshold: p.threshold,
                token_limit: p.limit,
                has_failed: self.failed,
                budget: p.budget,
                max_chars: max_chars(p.limit, prompt, p.truncate_threshold),
                style: p.style,
                preserve: p.preserve,
                estimator: p.w,
            };
            let summary = JsStr::Filler(4 * p.summary_tokens as usize);
            let env = self
                .env
                .clone()
                .expect("sessions here start with an environment turn");
            let mut save = |t: Option<&str>| {
                t.map(|t| match p.style {
                    TruncStyle::Chars => saved_output_path(
                        PLACEHOLDER_PROJECT_TEMP_DIR,
                        t,
                        PLACEHOLDER_TRUNCATION_ID,
                        None,
                    ),
                    TruncStyle::Lines => legacy_saved_output_path(
                        PLACEHOLDER_PROJECT_TEMP_DIR,
                        t,
                        PLACEHOLDER_TRUNCATION_ID,
                    ),
                })
            };
            let out = compress(
                &self.h,
                prompt,
                &opts,
                &env,
                Some(&summary),
                Some(&summary),
                &mut save,
            );
            use super::compress::CompressionStatus as St;
            match out.status {
                St::Compressed => {
                    let extra = out.new_history.unwrap();
                    self.h = Vec::new();
                    self.append(GRole::User, vec![J::obj(vec![("text", J::Str(env))])]);
                    for c in extra {
                        let role = if s(&c, "role") == "user" {
                            GRole::User
                        } else {
                            GRole::Model
                        };
                        self.append(role, c.get("parts").unwrap().as_array().unwrap().clone());
                    }
                    kinds.push(EventKind::Compress);
                }
                St::ContentTruncated => {
                    self.h = out.new_history.unwrap();
                    kinds.push(EventKind::Truncate);
                }
                St::FailedInflatedTokenCount => {
                    self.failed = true;
                    kinds.push(EventKind::Failed);
                }
                _ => {}
            }
        }
        if let Some(cfg) = p.masking {
            let files = MaskFiles {
                project_temp_dir: PLACEHOLDER_PROJECT_TEMP_DIR.into(),
                session_id: Some(PLACEHOLDER_SESSION_ID.into()),
                random_suffix: PLACEHOLDER_RANDOM_SUFFIX.into(),
                now_ms: PLACEHOLDER_NOW_MS.into(),
            };
            let r = mask(&self.h, &cfg, &files, p.w);
            if r.masked_count > 0 {
                self.h = r.new_history;
                kinds.push(EventKind::Mask);
            }
        }
        kinds
    }
}

/// Replay `items` both ways; returns (requests, events) after asserting they agree at every
/// request: same events, same context estimate, byte-identical history JSON.
fn differential(
    items: &[HistoryItem],
    p: Params,
    overhead: u64,
    what: &str,
) -> (usize, Vec<EventKind>) {
    let mut g = Gemini::with_params(p.clone());
    let mut naive = Naive {
        p,
        h: Vec::new(),
        env: None,
        failed: false,
        pushed: false,
    };
    let mut prev = None;
    let mut k = 0;
    let mut all = Vec::new();
    for it in items {
        if it.role == Role::Assistant {
            let got: Vec<EventKind> = g
                .before_request(&request(k, prev))
                .iter()
                .map(|e| e.kind)
                .collect();
            let want = naive.before_request(prev);
            assert_eq!(got, want, "{what}: events at request {k}");
            let (gh, nh) = (g.history(), naive.h.clone());
            assert_eq!(gh.len(), nh.len(), "{what}: contents at request {k}");
            for (i, (x, y)) in gh.iter().zip(&nh).enumerate() {
                let (a, b) = (to_json(x), to_json(y));
                if a != b {
                    let at = a.chars().zip(b.chars()).take_while(|(p, q)| p == q).count();
                    let ctx = |t: &str| {
                        t.chars()
                            .skip(at.saturating_sub(80))
                            .take(240)
                            .collect::<String>()
                    };
                    panic!(
                        "{what}: content {i} differs at request {k} ({} vs {} chars) near {at}:\n{}\n---\n{}",
                        a.len(),
                        b.len(),
                        ctx(&a),
                        ctx(&b)
                    );
                }
            }
            assert_eq!(
                g.context_tokens(),
                naive.tokens(),
                "{what}: tokens at request {k}"
            );
            all.extend(got);
            prev = Some(overhead + g.context_tokens());
            k += 1;
        }
        g.push(it);
        naive.push(it);
    }
    (k, all)
}

fn scenario(seed: u64) -> (Vec<HistoryItem>, Params) {
    let items = random_session(seed, 12 + (seed as usize % 5) * 3);
    let coalesce = if seed.is_multiple_of(4) {
        "false"
    } else {
        "true"
    };
    let settings: &[(&str, &str)] = &[
        ("masking_protection_threshold", "6000"),
        ("masking_min_prunable", "2500"),
        ("function_response_budget", "9000"),
        ("truncate_tool_output_threshold", "4000"),
        ("coalesce_turns", coalesce),
    ];
    // Small windows so the 50% trigger is crossed several times; a summary that fits, and
    // (every third seed) one that inflates.
    let summary = if seed.is_multiple_of(3) { 200_000 } else { 300 };
    (
        items,
        params(40_000 + 5_000 * (seed % 4), summary, settings),
    )
}

#[test]
fn incremental_replay_matches_the_naive_pipeline() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 1..=12u64 {
        let (items, p) = scenario(seed);
        let (requests, kinds) = differential(&items, p, 1_500, &format!("seed {seed}"));
        assert!(requests > 20);
        seen.extend(kinds.iter().map(|k| format!("{k:?}")));
    }
    // The scenarios exercise every outcome.
    for kind in ["Compress", "Mask", "Failed", "Truncate"] {
        assert!(seen.contains(kind), "{kind} never happened: {seen:?}");
    }
}

#[test]
fn nested_truncation_reaches_a_fixed_point() {
    // What the complexity bound relies on: truncating a truncated output again and again
    // returns the identical text after at most ⌈(hdr + 1 + head) / (hdr + 1)⌉ + 1 rounds.
    use super::truncate::format_truncated_tool_output;
    let file = saved_output_path(PLACEHOLDER_PROJECT_TEMP_DIR, "read_file", "42", None);
    for (m, body) in [
        (4_000i64, "漢字😀 x\n".repeat(3_000)),
        (40_000, "line of log\n".repeat(20_000)),
    ] {
        let mut s = JsStr::Text(body);
        let hdr = format_truncated_tool_output(&s, &file, m)
            .to_string_lossy()
            .find('\n')
            .unwrap() as i64; // the header is ASCII
        let head = (m as f64 * 0.2).floor() as i64;
        let bound = (hdr + 1 + head + hdr) / (hdr + 1) + 1;
        let mut rounds = 0;
        loop {
            let next = format_truncated_tool_output(&s, &file, m);
            if next == s {
                break;
            }
            s = next;
            rounds += 1;
            assert!(
                rounds <= bound,
                "no fixed point after {rounds} rounds (bound {bound})"
            );
        }
        assert!(rounds > 2, "{rounds}");
        assert!(
            s.to_string_lossy()
                .starts_with("Output too large. Showing first")
        );
    }
}

#[test]
fn incremental_replay_matches_the_naive_pipeline_in_older_truncation_eras() {
    // v0.26–v0.28 cut old outputs to their last 30 lines (every output past the budget, however
    // short, and again at every pass until the lines stop changing); before v0.26 nothing was
    // cut. The incremental engine's cached outcomes must follow both.
    for (era, extra) in [
        ("lines", ("truncate_last_lines", "true")),
        ("none", ("reverse_budget_truncation", "false")),
    ] {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 1..=8u64 {
            let (items, mut p) = scenario(seed);
            let mut pairs: Vec<(&str, &str)> = vec![
                ("masking_protection_threshold", "6000"),
                ("masking_min_prunable", "2500"),
                ("function_response_budget", "9000"),
                ("truncate_tool_output_threshold", "4000"),
                (
                    "coalesce_turns",
                    if seed % 4 == 0 { "false" } else { "true" },
                ),
            ];
            pairs.push(extra);
            p = params(p.limit, p.summary_tokens, &pairs);
            let (requests, kinds) = differential(&items, p, 1_500, &format!("{era} seed {seed}"));
            assert!(requests > 20);
            seen.extend(kinds.iter().map(|k| format!("{k:?}")));
        }
        for kind in ["Compress", "Truncate"] {
            assert!(
                seen.contains(kind),
                "{era}: {kind} never happened: {seen:?}"
            );
        }
    }
}

#[test]
fn line_truncation_reaches_a_fixed_point() {
    // Short outputs grow by a header and `...` per pass until 30 lines are kept; from then
    // on another pass returns the identical text (what lets the engine stop revisiting them).
    use super::truncate::format_truncated_lines;
    let file = legacy_saved_output_path(PLACEHOLDER_PROJECT_TEMP_DIR, "read_file", "42");
    for body in [
        "one line".to_string(),
        "a\nb".to_string(),
        "log line\n".repeat(200),
        format!("{}\nend", "x".repeat(5_000)),
        "😀".repeat(3_000),
    ] {
        let mut s = JsStr::Text(body);
        let mut rounds = 0;
        loop {
            let next = format_truncated_lines(&s, &file);
            if next == s {
                break;
            }
            s = next;
            rounds += 1;
            assert!(rounds <= 20, "no fixed point after {rounds} rounds");
        }
        let text = s.to_string_lossy();
        assert!(text.starts_with("Output too large. Showing the last 30 of 32 lines"));
        assert_eq!(text.split('\n').count(), 32);
    }
}
