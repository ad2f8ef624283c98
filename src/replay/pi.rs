//! Pi coding-agent compaction (pruning-compaction.md §B), as `@mariozechner/pi-coding-agent`
//! 0.73.1 does it (golden vectors in `testdata/golden/pi/`, from `scripts/golden/pi/`).
//!
//! **Messages.** Each history item becomes Pi `AgentMessage`s ([`message::from_item`]): user
//! (text + images), assistant (text, thinking, `toolCall{name, arguments}`), one `toolResult`
//! per tool result. Every message is a session entry; sizes are Pi's own `estimateTokens`
//! (UTF-16 chars / 4, `ceil` per message; user images 0, tool-result images 4,800 chars; tool
//! calls `name + JSON.stringify(arguments)`).
//!
//! **Trigger** (`_checkCompaction`, §B.2). After an agent run ends — in a transcript, when the next
//! human prompt arrives — Pi compares the last assistant's `usage.totalTokens` with
//! `contextWindow − reserveTokens` (strict `>`). Here that usage is the last request's what-if
//! prompt plus its output (what the engine hands to `after_request`, already the simulated figure
//! after a compaction). The figure is consumed by the check, so usage from before a compaction
//! never triggers again (Pi's `assistantIsFromBeforeCompaction`). 0.73.1 has no mid-run check
//! and threshold compaction does not retry; overflow recovery is not modelled (a replay never
//! overflows).
//!
//! **Compaction** (`prepareCompaction` + `compact`, §B.4–B.5, 0.73.1 semantics):
//! - the boundary is the previous compaction's `firstKeptEntryId` (0 at first): the kept tail is
//!   summarised again, with the previous summary, by the update prompt;
//! - `findCutPoint(entries, boundary, end, keepRecentTokens)`: valid cuts at user/assistant
//!   messages, never tool results; backward budget walk; first valid cut at or after the crossing;
//!   fallback to the first cut point when the budget is never reached or is crossed inside
//!   trailing tool results (pi #7201: nothing is summarised, yet the summary is regenerated);
//!   metadata absorption never applies (no metadata entries);
//! - split turn: if the cut is not at a user message, the turn prefix `[turnStart, firstKept)`
//!   gets a second summary and `messagesToSummarize` ends at the turn start;
//! - the context becomes `compactionSummary + entries[firstKept..]`.
//!
//! **Summary size.** The history summary is `--summary-tokens` (Pi tokens), capped at its
//! `maxTokens = floor(summary_budget_fraction × reserveTokens)` (13,107). The split-turn prefix
//! summary is `--summary-tokens × turn_prefix_budget_fraction / summary_budget_fraction` (0.625 ×,
//! the ratio of Pi's two `maxTokens` budgets), capped at `floor(0.5 × reserveTokens)`; they are
//! merged with Pi's 39-char separator, or with `No prior history.` when nothing precedes the turn. The
//! `<read-files>`/`<modified-files>` lists are appended exactly (tools `read`, `write`, `edit`
//! with a string `path`, cumulative across compactions). The summary message counts
//! `ceil(summary.length / 4)`, as `estimateTokens` counts a `compactionSummary`.
//!
//! **Summariser cost.** Input: per call, `ceil(chars / 4)` of the prompt Pi builds: the
//! serialised conversation (`serializeConversation`, tool results truncated to 2,000 chars)
//! inside `<conversation>` tags, the previous summary inside `<previous-summary>` tags, the
//! (update) summarisation prompt and the system prompt; the prefix call uses the turn-prefix
//! prompt. Output: the summaries.
//!
//! **Complexity.** Per message O(1) amortised: prefix sums of `estimateTokens` and of the
//! serialised lengths, sorted lists of cut points and turn starts. A compaction costs O(log n)
//! (binary searches) plus O(file operations newly summarised) plus O(distinct files): each
//! message's file operations are absorbed once, because successive boundaries only move
//! forward. Nothing re-scans the history per request.

pub mod cut;
pub mod js;
pub mod message;

use std::collections::HashSet;

use cut::{Class, CutIndex};
use message::{FileOp, file_lists_len, file_ops, from_item, serialized_len, sizes};

use crate::replay::settings::Spec;
use crate::replay::{
    Event, EventKind, HistoryItem, Measured, PerItem, RequestInfo, Strategy, StrategyContext,
};

pub use message::{AgentMessage, CHARS_PER_TOKEN, IMAGE_CHARS, TOOL_RESULT_MAX_CHARS};

pub const SPECS: &[Spec] = &[
    Spec::boolean("enabled", true, "compaction.enabled"),
    Spec::integer(
        "reserve_tokens",
        16_384.0,
        0.0,
        10_000_000.0,
        "compaction.reserveTokens: compact when usage > window − this",
    ),
    Spec::integer(
        "keep_recent_tokens",
        20_000.0,
        0.0,
        10_000_000.0,
        "compaction.keepRecentTokens: recent tokens kept verbatim (findCutPoint budget)",
    ),
    Spec::number(
        "summary_budget_fraction",
        0.8,
        0.0,
        1.0,
        "history summary maxTokens = floor(this × reserveTokens); caps --summary-tokens",
    ),
    Spec::number(
        "turn_prefix_budget_fraction",
        0.5,
        0.0,
        1.0,
        "split-turn prefix summary maxTokens = floor(this × reserveTokens); its size is \
         --summary-tokens × this / summary_budget_fraction",
    ),
    Spec::integer(
        "summary_tool_result_chars",
        2_000.0,
        0.0,
        100_000_000.0,
        "TOOL_RESULT_MAX_CHARS: tool results are truncated to this in the summariser prompt",
    ),
];

/// Lengths (UTF-16) of the fixed text around a summarisation call in 0.73.1; checked against
/// the package by `testdata/golden/pi/constants.json`.
pub mod prompt {
    /// `SUMMARIZATION_PROMPT`.
    pub const SUMMARIZATION: u64 = 879;
    /// `UPDATE_SUMMARIZATION_PROMPT` (with a previous summary).
    pub const UPDATE_SUMMARIZATION: u64 = 1_257;
    /// `TURN_PREFIX_SUMMARIZATION_PROMPT`.
    pub const TURN_PREFIX: u64 = 440;
    /// `SUMMARIZATION_SYSTEM_PROMPT`.
    pub const SYSTEM: u64 = 317;
    /// `"<conversation>\n"` + `"\n</conversation>\n\n"`.
    pub const CONVERSATION_TAGS: u64 = 15 + 18;
    /// `"<previous-summary>\n"` + `"\n</previous-summary>\n\n"`.
    pub const PREVIOUS_SUMMARY_TAGS: u64 = 19 + 22;
    /// `"\n\n---\n\n**Turn Context (split turn):**\n\n"`.
    pub const SPLIT_TURN_SEPARATOR: u64 = 39;
    /// `"No prior history."`.
    pub const NO_PRIOR_HISTORY: u64 = 17;
}

/// The compaction trigger level in context tokens: `window − reserveTokens`.
pub fn threshold(window: u64, reserve: u64) -> i64 {
    window as i64 - reserve as i64
}

/// `shouldCompact(contextTokens, contextWindow, settings)`.
pub fn should_compact(context_tokens: u64, window: u64, reserve: u64, enabled: bool) -> bool {
    enabled && (context_tokens as i64) > threshold(window, reserve)
}

pub struct Pi {
    enabled: bool,
    window: u64,
    reserve: u64,
    keep_recent: u64,
    history_summary: u64,
    prefix_summary: u64,
    tool_result_max: usize,
    index: CutIndex,
    /// Prefix sums of the serialised characters and parts of each entry.
    ser_chars: Vec<u64>,
    ser_parts: Vec<u64>,
    /// History item of each entry.
    entry_item: Vec<usize>,
    items: usize,
    /// File operations of assistant entries, in entry order, and how many are absorbed.
    file_ops: Vec<(usize, FileOp, String)>,
    file_pos: usize,
    read: HashSet<String>,
    modified: HashSet<String>,
    /// First kept entry of the latest compaction (0 before any).
    boundary: usize,
    compactions: usize,
    /// Length of the latest summary text (file lists included).
    summary_chars: u64,
    context: u64,
    /// Usage total of the last request (anchored: prompt + output), until a check consumes it.
    last_total: Option<u64>,
    pending: Vec<Event>,
    /// What [`Strategy::push_unmanaged`] measured, or what another instance's calls measured
    /// and [`Strategy::push`] reuses ([`Strategy::reuse_measured`]).
    measured: Sizes,
}

/// The sizes of the messages of a session's first items, as [`Pi::push`] takes them.
#[derive(Default)]
struct Sizes {
    items: PerItem<MessageSize>,
    /// The assistants' file operations: message (of `items`), operation, path.
    file_ops: Vec<(usize, FileOp, String)>,
    /// Of `file_ops`, how many the pushes took.
    taken: usize,
}

/// One message's entry: its class, its `estimateTokens`, and its serialised characters and
/// parts.
#[derive(Clone, Copy)]
struct MessageSize {
    class: Class,
    tokens: u64,
    chars: u64,
    parts: u64,
}

impl Sizes {
    /// Measure `item`'s messages and add them.
    fn measure(&mut self, item: &HistoryItem, tool_result_max: usize) {
        for m in from_item(item) {
            let at = self.items.messages.len();
            let (size, ops) = MessageSize::of(&m, tool_result_max);
            self.file_ops
                .extend(ops.into_iter().map(|(op, path)| (at, op, path.to_string())));
            self.items.messages.push(size);
        }
        self.items.end_item();
    }
}

impl MessageSize {
    /// A message's entry and its file operations.
    fn of<'m>(m: &'m AgentMessage<'_>, tool_result_max: usize) -> (Self, Vec<(FileOp, &'m str)>) {
        let (estimate, (chars, parts)) = sizes(m, tool_result_max);
        let size = MessageSize {
            class: Class::of_role(m.role()),
            tokens: estimate.div_ceil(CHARS_PER_TOKEN),
            chars,
            parts,
        };
        (size, file_ops(m))
    }
}

impl Pi {
    pub fn new(ctx: &StrategyContext) -> Self {
        let s = &ctx.settings;
        let reserve = s.int("reserve_tokens");
        let summary_fraction = s.num("summary_budget_fraction");
        let prefix_fraction = s.num("turn_prefix_budget_fraction");
        let history_max = (summary_fraction * reserve as f64).floor() as u64;
        let prefix_max = (prefix_fraction * reserve as f64).floor() as u64;
        let prefix = if summary_fraction > 0.0 {
            (ctx.summary_tokens as f64 * prefix_fraction / summary_fraction).round() as u64
        } else {
            prefix_max
        };
        Pi {
            enabled: s.flag("enabled"),
            window: ctx.limits.context_window,
            reserve,
            keep_recent: s.int("keep_recent_tokens"),
            history_summary: ctx.summary_tokens.min(history_max),
            prefix_summary: prefix.min(prefix_max),
            tool_result_max: s.int("summary_tool_result_chars") as usize,
            index: CutIndex::new(),
            ser_chars: vec![0],
            ser_parts: vec![0],
            entry_item: Vec::new(),
            items: 0,
            file_ops: Vec::new(),
            file_pos: 0,
            read: HashSet::new(),
            modified: HashSet::new(),
            boundary: 0,
            compactions: 0,
            summary_chars: 0,
            context: 0,
            last_total: None,
            pending: Vec::new(),
            measured: Sizes::default(),
        }
    }

    /// Add one message's entry (of the item being pushed) with its file operations.
    fn add(&mut self, m: MessageSize, ops: impl IntoIterator<Item = (FileOp, String)>) {
        let i = self.index.len();
        self.index.push(m.class, m.tokens);
        self.ser_chars.push(self.ser_chars[i] + m.chars);
        self.ser_parts.push(self.ser_parts[i] + m.parts);
        self.entry_item.push(self.items);
        self.file_ops
            .extend(ops.into_iter().map(|(op, path)| (i, op, path)));
        self.context += m.tokens;
    }

    /// Characters of `serializeConversation` over entries `[a, b)`.
    fn conversation_chars(&self, a: usize, b: usize) -> u64 {
        serialized_len(
            self.ser_chars[b] - self.ser_chars[a],
            self.ser_parts[b] - self.ser_parts[a],
        )
    }

    /// History items in context from entry `first` on.
    fn items_from(&self, first: usize) -> usize {
        self.entry_item.get(first).map_or(0, |&i| self.items - i)
    }

    fn compact(&mut self) -> Event {
        let end = self.index.len();
        let start = self.boundary;
        let prep = self.index.prepare(start, end, self.keep_recent);
        let first_kept = prep.cut.first_kept;
        let previous = (self.compactions > 0).then_some(self.summary_chars);

        let mut input = 0;
        let mut output = 0;
        let split = prep.cut.is_split_turn;
        let mut summary = if !split || prep.history_end > start {
            let chars = prompt::CONVERSATION_TAGS
                + self.conversation_chars(start, prep.history_end)
                + previous.map_or(prompt::SUMMARIZATION, |p| {
                    prompt::PREVIOUS_SUMMARY_TAGS + p + prompt::UPDATE_SUMMARIZATION
                })
                + prompt::SYSTEM;
            input += chars.div_ceil(CHARS_PER_TOKEN);
            output += self.history_summary;
            self.history_summary * CHARS_PER_TOKEN
        } else {
            prompt::NO_PRIOR_HISTORY
        };
        if let (true, Some(turn_start)) = (split, prep.cut.turn_start) {
            let chars = prompt::CONVERSATION_TAGS
                + self.conversation_chars(turn_start, first_kept)
                + prompt::TURN_PREFIX
                + prompt::SYSTEM;
            input += chars.div_ceil(CHARS_PER_TOKEN);
            output += self.prefix_summary;
            summary += prompt::SPLIT_TURN_SEPARATOR + self.prefix_summary * CHARS_PER_TOKEN;
        }
        // File lists: every read/write/edit before the new first kept entry (the previous
        // compaction's lists are merged in, so the sets are cumulative).
        while self.file_pos < self.file_ops.len() && self.file_ops[self.file_pos].0 < first_kept {
            let (_, op, path) = &self.file_ops[self.file_pos];
            match op {
                FileOp::Read => self.read.insert(path.clone()),
                FileOp::Write | FileOp::Edit => self.modified.insert(path.clone()),
            };
            self.file_pos += 1;
        }
        let mut read_only = (0, 0);
        for p in self.read.iter().filter(|p| !self.modified.contains(*p)) {
            read_only.0 += 1;
            read_only.1 += js::len16(p) as u64;
        }
        let modified = (
            self.modified.len() as u64,
            self.modified.iter().map(|p| js::len16(p) as u64).sum(),
        );
        summary += file_lists_len(read_only, modified);

        let mut e = Event::new(EventKind::Compress);
        e.tokens_before = self.context;
        let before_items = self.items_from(start);
        e.kept = self.items_from(first_kept);
        e.summarised = before_items - e.kept;
        e.summariser_input = input;
        e.summariser_output = output;

        self.summary_chars = summary;
        self.boundary = first_kept;
        self.compactions += 1;
        self.context = summary.div_ceil(CHARS_PER_TOKEN) + self.index.tokens(first_kept, end);
        e.tokens_after = self.context;
        e
    }
}

impl Strategy for Pi {
    fn push(&mut self, item: &HistoryItem) {
        if item.is_human {
            // The previous run ended: `_checkCompaction` on its last assistant message.
            if let Some(total) = self.last_total.take()
                && should_compact(total, self.window, self.reserve, self.enabled)
                && !self.index.is_empty()
            {
                let mut e = self.compact();
                e.measure = Some(total);
                self.pending.push(e);
            }
        }
        // Measured by the calibration's pass, or now.
        match self.measured.items.item(self.items) {
            Some(messages) => {
                for k in messages {
                    let size = self.measured.items.messages[k];
                    let ops = &mut self.measured.file_ops;
                    let mut taken = Vec::new();
                    while let Some((at, op, path)) = ops.get_mut(self.measured.taken)
                        && *at == k
                    {
                        taken.push((*op, std::mem::take(path)));
                        self.measured.taken += 1;
                    }
                    self.add(size, taken);
                }
            }
            None => {
                for m in from_item(item) {
                    let (size, ops) = MessageSize::of(&m, self.tool_result_max);
                    let ops = ops.into_iter().map(|(op, path)| (op, path.to_string()));
                    self.add(size, ops);
                }
            }
        }
        self.items += 1;
    }

    fn push_unmanaged(&mut self, item: &HistoryItem) {
        let from = self.measured.items.messages.len();
        self.measured.measure(item, self.tool_result_max);
        for m in &self.measured.items.messages[from..] {
            self.index.push(m.class, m.tokens);
        }
    }

    fn take_measured(&mut self) -> Option<Measured> {
        Measured::take(&mut self.measured)
    }

    fn reuse_measured(&mut self, measured: Measured) {
        measured.reuse_into(&mut self.measured);
    }

    fn before_request(&mut self, _req: &RequestInfo) -> Vec<Event> {
        std::mem::take(&mut self.pending)
    }

    fn after_request(&mut self, req: &RequestInfo, what_if_prompt: u64) -> Vec<Event> {
        self.last_total = Some(what_if_prompt + req.output);
        Vec::new()
    }

    fn full_tokens(&self) -> u64 {
        self.index.tokens(0, self.index.len())
    }

    fn context_tokens(&self) -> u64 {
        self.context
    }
}

#[cfg(test)]
mod tests;
