//! Gemini CLI chat compression and tool-output masking (`--algorithm gemini`), ported from
//! `@google/gemini-cli-core` 0.61.0 (spec: `gemini-compression.md` §1–§2).
//!
//! # The history
//!
//! A Gemini session is replayed on the history Gemini CLI itself rebuilds when it resumes the
//! file ([`resume`]): `loadConversationRecord` → `convertSessionToClientHistory` → a fresh
//! environment turn in front → `ensureStableToolIds`, then read as `GeminiChat.getHistory` shows
//! it ([`native_parts`]: thought parts stripped, the synthetic `thoughtSignature` on the first
//! call of a model turn that had thoughts, same-role turns merged, as since v0.53;
//! `coalesce_turns=false` for earlier versions). Every `gemini` record is a request, whether or
//! not it recorded usage. Sessions that are not files Gemini could load (tests, `/chat save`
//! checkpoints) use history items converted as described in [`content`].
//!
//! # Versions
//!
//! Session files record no CLI version: the engine assumes the one their format and start date
//! show ([`crate::replay::versions::gemini`], `docs/versions.md`) and replays that era's
//! behaviour. Every era-dependent setting left at its default takes the era's value: the
//! threshold, `masking` (v0.30+), `non_ascii_weight` (1.3, 1.5 from v0.42), `coalesce_turns`
//! (v0.53+), `truncation_only_after_failure` (v0.31+; before, an inflated attempt leaves
//! auto-compression off), `trigger_last_prompt_tokens` (v0.8+; before, the trigger counts the
//! history, replayed as the calibrated estimate of the history at the check),
//! `reverse_budget_truncation` (v0.26+; before, step 2 does not exist) and `truncate_last_lines`
//! (v0.26–v0.28: step 2 keeps an output's last 30 lines, [`truncate::TruncStyle::Lines`]) and
//! `verification_probe` (v0.26+; before, step 5 is one call with the older instruction), and the
//! estimator's rules ([`estimate::Estimator`]: `image_estimate` v0.23+, `pdf_estimate` and
//! `long_text_fast_path` v0.26+, `astral_counts_once` before v0.28, `function_response_estimate`
//! v0.28+). A value given
//! with `--set` or `--sweep` wins. The steps below are the newest era's.
//!
//! # Per request (`GeminiClient.processTurn`, default path)
//!
//! The request's own new content (the prompt, or the function responses of the previous call)
//! joins the history only after steps 1–7, as `tryCompressChat` and the masking run before
//! `sendMessageStream` adds it.
//!
//! 1. **Trigger** (§1.4): `P` = `lastPromptTokenCount`. While the replay has not changed the
//!    history (no compression, truncation or masking yet) and the agent has not compacted, that
//!    is the latest recorded `tokens.input` (a response without usage leaves it unchanged);
//!    otherwise the engine's figure for the previous request
//!    ([`RequestInfo::prev_prompt`](crate::replay::RequestInfo)); before any, the estimate of
//!    the history. Nothing happens while `P < threshold × tokenLimit` (`threshold` 0.5;
//!    `tokenLimit` = the context window, 1,048,576 for Gemini models).
//! 2. **Reverse-budget truncation** of the whole history ([`truncate`]): newest first, function
//!    responses past 50,000 estimated tokens become `{output: head 20% … tail 80%}` of
//!    `maxChars = min(40,000, 4 × (limit − P))`, with the header and omitted-count marker.
//! 3. **After an inflated failure** (truncation-only mode, since v0.31): the truncated history
//!    replaces the old one when its estimate is below `P` (CONTENT_TRUNCATED), else NOOP.
//! 4. **Split** ([`split`]) at `1 − preserve_fraction` (0.7) of the UTF-16 length of the
//!    compact JSON of each content, on the truncated history; 0 → NOOP; `n` = compress all.
//! 5. **Summary**: `--summary-tokens` tokens of synthetic text (`<state_snapshot>`), two
//!    summariser calls: the summary (input: the slice, original if its estimate is below the
//!    limit, else truncated, + the instruction + the compression prompt of
//!    [`COMPRESSION_PROMPT_TOKENS`]) and the verification probe (the same + the summary + the
//!    probe text); each outputs the summary.
//! 6. **New history** = [environment turn, snapshot, `Got it. Thanks for the additional
//!    context!`, …kept truncated tail]. Its estimate above `P` →
//!    COMPRESSION_FAILED_INFLATED_TOKEN_COUNT: nothing changes and the replay stays in
//!    truncation-only mode (the flag is only reset by a re-created chat).
//! 7. **Tool-output masking** ([`masking`], every request, after the compression check): past
//!    the newest 50,000 tokens of function responses (the newest content protected), when at
//!    least 30,000 prunable tokens have accumulated, each output is replaced by a short preview
//!    if that is smaller.
//!
//! Steps 2–6 see the curated history (`getHistory(true)`): runs of model turns holding an
//! empty text part or an empty part are left out; masking sees them.
//!
//! A recorded `/compress` (`tryCompressChat(force=true)`) is applied at the request the user
//! typed it before, ahead of step 1 and on the same history: steps 2 and 4–6 whatever the
//! threshold, and whatever an earlier inflated attempt left (step 3 is skipped). Its own
//! inflation does not switch on truncation-only mode; its success re-creates the chat, so the
//! request's own check then reads the local estimate of the new history. An automatic
//! compression the agent recorded and the replay did not make within a request is followed
//! the same way (the engine's follow mode).
//!
//! Sizes use Gemini's own estimator ([`estimate`]): 0.25 per ASCII UTF-16 unit, 1.5 per other
//! unit, `length / 4` over 100,000 units, JSON length / 4 for function responses and calls,
//! 3,000 per image, 25,800 per PDF, floored once per call.
//!
//! The whole pipeline is checked request by request against the package over the corpus, the
//! sample home and generated sessions (`testdata/golden/gemini-e2e`, `e2e_tests`).
//!
//! # Complexity
//!
//! The replay keeps the managed history as contents in slots with running sums: the estimate
//! total, Fenwick trees of content JSON lengths and of live contents, and, per function
//! response, Fenwick trees of its reverse-budget tokens, of what truncating it would change, and
//! of its masking tokens; ordered sets of valid split points, of responses a truncation would
//! change and of masking candidates. Each push is O(size of the item + log n).
//! - The trigger check is O(1). A NOOP for lack of a split point is decided in O(log n) from
//!   the set of valid split points, without a truncation pass.
//! - A truncation pass finds where the 50,000-token budget is crossed by Fenwick search,
//!   O(log n) per crossing (one or a few); its estimate is a Fenwick prefix sum. Only responses
//!   whose truncation changes them are rewritten. A truncated output is kept structured
//!   ([`truncate::Truncated`]: original head and tail, header, round count), so its sizes are
//!   O(1) and truncating it again (which nests another header in front of its head) is O(1);
//!   after `⌈0.2 × maxChars / (header + 1)⌉ + 2` rounds at most (≈ 57 at 40,000) the head is all
//!   headers and the marker stable, truncation returns the identical text and the output is
//!   never visited again. The first truncation of an output is O(its length).
//! - The split point is a Fenwick lower-bound search plus a set lookup: O(log n). A
//!   compression then walks only the summarised prefix, which leaves the history.
//! - Masking finds its protection boundary by Fenwick search and visits only candidates that
//!   are masked (each once, O(length) for the preview) or found not worth masking (once per
//!   state of the output).
//!
//! A whole session is therefore O(n log n) in messages plus linear in the size of the text,
//! with two bounded exceptions. Cached truncation outcomes depend on `maxChars`, which is below
//! its cap only while the previous prompt is within cap / 4 tokens of the window; there each
//! change re-evaluates the live outputs longer than the smaller value, O(live history) per
//! request, and the live history is then about the window. And two situations take the pure
//! port's O(live history) path for one check: a curated history that differs from the managed
//! one (an invalid model turn is live, until the next compression or truncation removes it),
//! and a compression attempt with the previous prompt at or past the window (it compresses, or
//! fails once into truncation-only mode).
//! Measured (release, `bench_100k_messages`): 100,000 messages replay in 2.7–7.3 s depending on
//! the shape (periodic prompts; one endless turn; an inflated summary then truncation-only
//! mode on every request).
//!
//! # Approximations (documented, deliberate)
//!
//! - Files: outputs are "saved" under a placeholder project temp dir of realistic length; the
//!   truncation id in the file name is a fixed two-digit placeholder (upstream counts
//!   truncations per process, so its digits vary), the masking suffix a fixed six characters
//!   (upstream: `Math.random().toString(36).substring(7)`, usually six). The environment turn
//!   is a placeholder of Gemini's own form ([`PLACEHOLDER_ENV_TEXT`]), as a resume writes a
//!   fresh one; the recorded one (v0.44+) is dropped by the conversion, as upstream.
//! - `$set.messages` checkpoint lists are ignored when the file is read ([`resume`]): the
//!   replay starts from the conversation, not from the agent's own compressed copies.
//! - In truncation-only mode with the previous prompt at or past the window (`maxChars` < 1,
//!   where Gemini aborts the turn), old outputs are cut to one character; JavaScript's slicing
//!   would lengthen or empty them, with new numbers on every request ([`max_chars`]). The
//!   differential tests stop comparing a run there.
//! - Without the file (history items only), function calls carry `{name, args}` without the
//!   ids `ensureStableToolIds` adds, and argument keys come sorted from the session model.
//! - `--summary-tokens 0` is treated as "no summary": no attempt is replayed (upstream would
//!   fail with COMPRESSION_FAILED_EMPTY_SUMMARY and change nothing).

use crate::replay::settings::Spec;

pub mod compress;
pub mod content;
pub mod estimate;
mod fenwick;
pub mod json;
pub mod key;
pub mod load;
pub mod masking;
pub mod part;
mod readline;
pub mod resume;
pub mod split;
mod state;
pub mod tree;
pub mod truncate;

#[cfg(test)]
mod differential_tests;
#[cfg(test)]
pub(crate) mod e2e_gen;
#[cfg(test)]
mod e2e_tests;
#[cfg(test)]
mod era_tests;
#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod input_tests;
#[cfg(test)]
mod one_pass_tests;
#[cfg(test)]
mod tests;

pub use state::{Decision, Gemini, Params, SizedTurns, exact_max_chars, max_chars, native_parts};

/// `estimateTokenCountSync` of the compression system prompt (`getCompressionPrompt`, modern
/// and legacy variants estimate the same), from `testdata/golden/gemini/constants.json`.
pub const COMPRESSION_PROMPT_TOKENS: u64 = 847;
/// `DEFAULT_TOKEN_LIMIT`.
pub const DEFAULT_TOKEN_LIMIT: u64 = 1_048_576;

/// A project temp dir of realistic length (`~/.gemini/tmp/<sha256 of the project root>`).
pub const PLACEHOLDER_PROJECT_TEMP_DIR: &str =
    "/home/user/.gemini/tmp/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
/// The truncation id in saved-output file names (upstream: a per-process counter).
pub const PLACEHOLDER_TRUNCATION_ID: &str = "42";
/// A session id (a UUID) in masked-output paths.
pub const PLACEHOLDER_SESSION_ID: &str = "4f6c2a1e-8d3b-4c9a-b7e2-5a0d9c3f1e6b";
/// `Math.random().toString(36).substring(7)`: usually six characters (this is 0.123456789's).
pub const PLACEHOLDER_RANDOM_SUFFIX: &str = "xjylrx";
/// `Date.now()` for responses without an id.
pub const PLACEHOLDER_NOW_MS: &str = "1767225600000";
/// The environment turn (`getEnvironmentContext`) a resumed chat starts with, as Gemini CLI
/// writes it on Linux with no folder tree and no memory, dated 2026-01-01, for the placeholder
/// project temp dir. Real ones differ in size by the folder tree and memory; the overhead
/// anchored to the recorded prompts absorbs the difference.
pub const PLACEHOLDER_ENV_TEXT: &str = concat!(
    "<session_context>\n",
    "This is the Gemini CLI. We are setting up the context for our chat.\n",
    "Today's date is Thursday, January 1, 2026 (formatted according to the user's locale).\n",
    "My operating system is: linux\n",
    "The project's temporary directory is: /home/user/.gemini/tmp/",
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n",
    "\n\n\n",
    "</session_context>"
);

pub const SPECS: &[Spec] = &[
    Spec::number(
        "threshold",
        0.0,
        0.0,
        1.0,
        "model.compressionThreshold: compress when the previous prompt reaches this share of the token limit (0 = the default of the Gemini CLI era the file shows: 0.7, 0.2 or 0.5)",
    ),
    Spec::number(
        "preserve_fraction",
        compress::COMPRESSION_PRESERVE_THRESHOLD,
        0.01,
        0.99,
        "COMPRESSION_PRESERVE_THRESHOLD: share of the history (JSON characters) kept verbatim",
    ),
    Spec::integer(
        "function_response_budget",
        truncate::FUNCTION_RESPONSE_TOKEN_BUDGET as f64,
        0.0,
        100_000_000.0,
        "COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET: newest function-response tokens kept whole",
    ),
    Spec::integer(
        "truncate_tool_output_threshold",
        truncate::DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD as f64,
        0.0,
        100_000_000.0,
        "tools.truncateToolOutputThreshold: characters kept of a truncated output (capped by 4 × remaining tokens)",
    ),
    Spec::boolean(
        "masking",
        true,
        "tool-output masking on every turn (default: as the Gemini CLI era the file shows, on from v0.30)",
    ),
    Spec::integer(
        "masking_protection_threshold",
        masking::DEFAULT_TOOL_PROTECTION_THRESHOLD as f64,
        0.0,
        100_000_000.0,
        "outputMasking.toolProtectionThreshold: newest function-response tokens never masked",
    ),
    Spec::integer(
        "masking_min_prunable",
        masking::DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD as f64,
        0.0,
        100_000_000.0,
        "outputMasking.minPrunableTokensThreshold: prunable tokens needed before masking",
    ),
    Spec::boolean(
        "masking_protect_latest_turn",
        masking::DEFAULT_PROTECT_LATEST_TURN,
        "outputMasking.protectLatestTurn: never mask the newest content",
    ),
    Spec::number(
        "non_ascii_weight",
        estimate::NON_ASCII_TOKENS_PER_CHAR,
        0.0,
        10.0,
        "NON_ASCII_TOKENS_PER_CHAR of the estimator (default: as the Gemini CLI era the file shows, 1.3 before v0.42, 1.5 from v0.42)",
    ),
    Spec::boolean(
        "image_estimate",
        true,
        "the estimator counts an image part (inlineData/fileData image/*) as 3,000 tokens; false: its JSON length / 4 (default: as the Gemini CLI era the file shows, from v0.23, commit c31f05356a)",
    ),
    Spec::boolean(
        "pdf_estimate",
        true,
        "the estimator counts a PDF part (application/pdf*) as 25,800 tokens; false: its JSON length / 4 (default: as the Gemini CLI era the file shows, from v0.26, commit c8d7c09ca4)",
    ),
    Spec::boolean(
        "long_text_fast_path",
        true,
        "the estimator counts a text over 100,000 UTF-16 units as length / 4; false: weighted per character like shorter ones (default: as the Gemini CLI era the file shows, from v0.26, commit ee8d425603)",
    ),
    Spec::boolean(
        "astral_counts_once",
        false,
        "the estimator iterates text per code point, so a character outside the BMP (a surrogate pair) counts once at the non-ASCII weight; false: per UTF-16 unit, twice (default: as the Gemini CLI era the file shows, before v0.28, commit f605628624)",
    ),
    Spec::boolean(
        "function_response_estimate",
        true,
        "the estimator counts a functionResponse part as name, response and nested parts; false: the whole part's JSON length / 4 (default: as the Gemini CLI era the file shows, from v0.28, commit f605628624)",
    ),
    Spec::boolean(
        "coalesce_turns",
        true,
        "strip thought parts and merge consecutive same-role turns (default: as the Gemini CLI era the file shows, from v0.53)",
    ),
    Spec::boolean(
        "truncation_only_after_failure",
        true,
        "after an inflated automatic compression, later triggers only truncate old tool output; false: auto-compression stays off (default: as the Gemini CLI era the file shows, from v0.31)",
    ),
    Spec::boolean(
        "reverse_budget_truncation",
        true,
        "truncateHistoryToBudget: before the split, function responses past the budget are cut and saved to a file; false: the history is split as it is (default: as the Gemini CLI era the file shows, from v0.26, commit 1182168bd9)",
    ),
    Spec::boolean(
        "truncate_last_lines",
        false,
        "a truncated output keeps its last 30 lines (COMPRESSION_TRUNCATE_LINES, lines cut to 1,000 characters; one line: its last 4,000), however short; false: the first 20% and last 80% of maxChars characters (default: as the Gemini CLI era the file shows, v0.26–v0.28; characters from v0.29, commit 28805a4b2d)",
    ),
    Spec::boolean(
        "verification_probe",
        true,
        "the summary is followed by a second summariser call, the verification probe (summariser tokens: two calls); false: one call (default: as the Gemini CLI era the file shows, from v0.26, commit 1182168bd9)",
    ),
    Spec::boolean(
        "trigger_last_prompt_tokens",
        true,
        "the trigger compares the previous response's promptTokenCount; false: a countTokens of the history (default: as the Gemini CLI era the file shows, from v0.8)",
    ),
];
