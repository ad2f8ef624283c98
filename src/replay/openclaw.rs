//! OpenClaw session pruning, `contextPruning.mode: "cache-ttl"` (pruning-compaction.md §A; the
//! Jan–Feb 2026 `pruner.ts`, ported literally in [`prune::prune_context_messages`]).
//!
//! **Messages and sizes.** History items become Pi `AgentMessage`s
//! ([`crate::replay::pi::message::from_item`]: one `toolResult` per tool result). Sizes are
//! OpenClaw's `estimateMessageChars`: UTF-16 chars of user text (+8,000 per image), assistant
//! text + thinking + `JSON.stringify(arguments)` (tool names not counted), tool-result text
//! (+8,000 per image), 256 for any other role. `charWindow = contextWindow × 4`; tokens are
//! reported as `ceil(chars / 4)`.
//!
//! **The pass** (before every request that the TTL lets through), over the messages in context:
//! cutoff at the K-th assistant from the end (fewer → nothing); nothing before the first user
//! message; below `soft_trim_ratio` nothing; soft-trim every prunable result (tool allowed, no
//! image) longer than `soft_trim_max_chars` to head + `\n...\n` + tail + note; if the ratio is
//! still ≥ `hard_clear_ratio`, hard clearing is on and the prunable results hold ≥
//! `min_prunable_tool_chars`, replace results by the placeholder oldest-first until the ratio
//! drops below `hard_clear_ratio`. Images are never touched (Feb), unless `prune_old_images`
//! (the later #41789 revision: all but the newest `protected_image_results` image results in
//! range can be hard-cleared).
//!
//! **TTL gating** (§A.3). A touch is the end of the previous run (the timestamp of the last item
//! before a new human prompt, or of the last request when items carry none) or the time of the
//! last prune that changed something. A request prunes when `request time − touch ≥ ttl`; there
//! is no touch before the first run ended (openclaw#10986), and a request without a timestamp
//! cannot be gated. `ttl = 0` prunes before every request (OpenClaw itself treats `ttlMs ≤ 0` as
//! off; its later `mode: "always"` is this). Non-sticky (before 2026-09): only the gated request
//! sends the pruned copy; later requests send the full history again. `sticky = true`
//! (openclaw#137021): the pruned copy replaces the history for every later request, and later
//! passes run on it.
//!
//! **Incremental (O(log n) amortised per request).** The cutoff only moves forward and messages
//! only append, so the prunable results at a request are a prefix of one append-only list
//! (results after the first user message whose tool passes the predicate). Non-sticky, a result's
//! soft-trimmed size is fixed when it arrives: prefix sums give the soft-trim savings and the
//! number trimmed; a segment tree over the hard-clear savings (`trimmed − placeholder`, possibly
//! negative) finds by one descent how many oldest results the loop clears (the first prefix whose
//! savings bring the total to ≤ the largest char count below the ratio). Sticky, each result is
//! trimmed when it first enters the range and cleared once (a set of uncleared members); results
//! still changing under re-trimming (only when `soft_trim_max_chars` is smaller than a trimmed
//! result) are kept on a short list until they reach a fixed point, and the tree is updated
//! point-wise. Only settings that trim the placeholder itself (`soft_trim_max_chars` < its
//! length and head + tail < it) make every pass revisit the cleared results. The literal pass is
//! kept as the oracle of a randomised equivalence test.
//!
//! Events (`Prune`): `summarised` = tool-result messages the request's context has trimmed or
//! cleared (sticky: all pruned so far), `kept` = the other messages (messages, not items: an item
//! with several tool results counts each).

pub mod prune;
pub mod tree;

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::replay::pi::js::len16;
use crate::replay::pi::message::{AgentMessage, from_item};
use crate::replay::settings::{Kind, Spec, Value};
use crate::replay::{
    Event, EventKind, HistoryItem, Measured, PerItem, RequestInfo, Strategy, StrategyContext,
};
use prune::{CHARS_PER_TOKEN, PruneSettings, ToolMatcher, estimate_message_chars, joined_len};
use tree::{Leaf, Tree};

const fn text(key: &'static str, help: &'static str) -> Spec {
    Spec {
        key,
        default: Value::Text(String::new()),
        kind: Kind::Text,
        help,
    }
}

pub const SPECS: &[Spec] = &[
    Spec::number(
        "ttl",
        5.0,
        0.0,
        525_600.0,
        "cache-ttl in minutes: prune when this long has passed since the last touch (0 = every request)",
    ),
    Spec::integer(
        "keep_last_assistants",
        3.0,
        0.0,
        1_000_000.0,
        "keepLastAssistants: results at or after the K-th assistant from the end are protected",
    ),
    Spec::number(
        "soft_trim_ratio",
        0.3,
        0.0,
        1.0,
        "softTrimRatio: chars / charWindow to start soft-trimming",
    ),
    Spec::number(
        "hard_clear_ratio",
        0.5,
        0.0,
        1.0,
        "hardClearRatio: chars / charWindow to hard-clear",
    ),
    Spec::integer(
        "min_prunable_tool_chars",
        50_000.0,
        0.0,
        1e12,
        "minPrunableToolChars: hard-clear only when the prunable results hold this many chars",
    ),
    Spec::integer(
        "soft_trim_max_chars",
        4_000.0,
        0.0,
        1e12,
        "softTrim.maxChars: trim results longer than this",
    ),
    Spec::integer(
        "soft_trim_head_chars",
        1_500.0,
        0.0,
        1e12,
        "softTrim.headChars",
    ),
    Spec::integer(
        "soft_trim_tail_chars",
        1_500.0,
        0.0,
        1e12,
        "softTrim.tailChars",
    ),
    Spec::boolean("hard_clear", true, "hardClear.enabled"),
    text(
        "hard_clear_placeholder",
        "hardClear.placeholder (trimmed; empty = \"[Old tool result content cleared]\")",
    ),
    text(
        "tools_allow",
        "tools.allow: comma-separated globs (only * is special); empty = every tool",
    ),
    text("tools_deny", "tools.deny: comma-separated globs; deny wins"),
    Spec::boolean(
        "sticky",
        false,
        "replay pruned results on later requests (openclaw#137021, 2026-09)",
    ),
    Spec::boolean(
        "prune_old_images",
        false,
        "later revision (#41789): image results beyond the newest few can be hard-cleared",
    ),
    Spec::integer(
        "protected_image_results",
        3.0,
        0.0,
        1_000_000.0,
        "with prune_old_images: how many newest image results stay protected",
    ),
];

/// The largest char total whose ratio to `char_window` is `< ratio` (`None`: none is).
fn max_below(ratio: f64, char_window: u64) -> Option<u64> {
    let below = |x: u64| (x as f64 / char_window as f64) < ratio;
    if !below(0) {
        return None;
    }
    let mut g = (ratio * char_window as f64).floor().max(0.0) as u64;
    while g > 0 && !below(g) {
        g -= 1;
    }
    while below(g + 1) {
        g += 1;
    }
    Some(g)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Retrim {
    No,
    /// Re-trimming changes its size: revisit on every pass until it settles.
    Pending,
    /// Re-trimming rewrites it with the same size: a change on every pass, at no cost.
    Fixed,
}

/// A prunable tool result (after the first user message, tool allowed).
#[derive(Debug, Clone)]
struct Result_ {
    message: usize,
    /// Current chars and joined-text length (sticky: of the projected copy).
    chars: u64,
    raw: u64,
    image: bool,
    /// In the prunable list (text results always; image results once unprotected).
    member: bool,
    /// Non-sticky: chars after the soft-trim pass.
    trimmed: u64,
    // Sticky bookkeeping.
    retrim: Retrim,
    pass: u32,
    modified: bool,
    cleared: bool,
}

/// What one pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub changed: bool,
    pub chars_before: u64,
    pub chars_after: u64,
    /// Results trimmed or cleared in the resulting context.
    pub touched: usize,
}

pub struct OpenClaw {
    s: PruneSettings,
    tools: ToolMatcher,
    window: u64,
    char_window: u64,
    hard_max: Option<u64>,
    placeholder: u64,
    ttl_ms: f64,
    sticky: bool,
    messages: usize,
    /// History items pushed.
    items: usize,
    full: u64,
    /// Sticky: chars of the projected history (= `full` when non-sticky).
    current: u64,
    assistants: Vec<usize>,
    first_user: Option<usize>,
    results: Vec<Result_>,
    /// Positions (in `results`) of image-bearing results, and how many are unprotected.
    images: Vec<usize>,
    images_member: usize,
    /// Non-sticky prefix sums over `results`: soft-trim savings and number trimmed.
    soft_saving: Vec<i64>,
    soft_count: Vec<usize>,
    tree: Tree,
    // Sticky.
    frontier: usize,
    pending: Vec<usize>,
    fixed: usize,
    uncleared: BTreeSet<usize>,
    modified: usize,
    passes: u32,
    // TTL.
    last_touch: Option<DateTime<Utc>>,
    last_time: Option<DateTime<Utc>>,
    ran: bool,
    /// Non-sticky: the pruned size sent at the current request.
    view: Option<u64>,
    /// What [`Strategy::push_unmanaged`] measured, or what another instance's calls measured
    /// and [`Strategy::push`] reuses ([`Strategy::reuse_measured`]).
    measured: PerItem<MessageSize>,
}

/// What [`OpenClaw::add_message`] reads of a message: its `estimateMessageChars` and its role,
/// with a tool result's prunability and text length.
#[derive(Clone, Copy)]
struct MessageSize {
    chars: u64,
    kind: MessageKind,
}

#[derive(Clone, Copy)]
enum MessageKind {
    User,
    Assistant,
    ToolResult {
        prunable: bool,
        image: bool,
        raw: u64,
    },
    Other,
}

impl OpenClaw {
    pub fn new(ctx: &StrategyContext) -> Self {
        let st = &ctx.settings;
        let s = PruneSettings::from_settings(st);
        let char_window = ctx.limits.context_window * CHARS_PER_TOKEN;
        OpenClaw {
            tools: ToolMatcher::new(st.text("tools_allow"), st.text("tools_deny")),
            window: ctx.limits.context_window,
            char_window,
            hard_max: max_below(s.hard_clear_ratio, char_window.max(1)),
            placeholder: len16(&s.placeholder) as u64,
            ttl_ms: st.num("ttl") * 60_000.0,
            sticky: st.flag("sticky"),
            s,
            messages: 0,
            items: 0,
            full: 0,
            current: 0,
            assistants: Vec::new(),
            first_user: None,
            results: Vec::new(),
            images: Vec::new(),
            images_member: 0,
            soft_saving: vec![0],
            soft_count: vec![0],
            tree: Tree::default(),
            frontier: 0,
            pending: Vec::new(),
            fixed: 0,
            uncleared: BTreeSet::new(),
            modified: 0,
            passes: 0,
            last_touch: None,
            last_time: None,
            ran: false,
            view: None,
            measured: PerItem::default(),
        }
    }

    /// What [`OpenClaw::add_message`] reads of `m`.
    fn measure(&self, m: &AgentMessage<'_>) -> MessageSize {
        let kind = match m {
            AgentMessage::Assistant { .. } => MessageKind::Assistant,
            AgentMessage::User { .. } => MessageKind::User,
            AgentMessage::ToolResult {
                tool_name, content, ..
            } => {
                let prunable = self.tools.is_prunable(tool_name.as_deref().unwrap_or(""));
                MessageKind::ToolResult {
                    prunable,
                    image: prunable && content.has_image(),
                    raw: if prunable { joined_len(content) } else { 0 },
                }
            }
            _ => MessageKind::Other,
        };
        MessageSize {
            chars: estimate_message_chars(m),
            kind,
        }
    }

    /// Chars of the context the current request sends.
    pub fn context_chars(&self) -> u64 {
        if self.sticky {
            self.current
        } else {
            self.view.unwrap_or(self.full)
        }
    }

    fn leaf(&self, p: usize) -> Leaf {
        let r = &self.results[p];
        let chars = if self.sticky { r.chars } else { r.trimmed };
        Leaf {
            saving: chars as i64 - self.placeholder as i64,
            chars,
            member: r.member,
        }
    }

    fn add_message(&mut self, m: MessageSize) {
        let i = self.messages;
        self.messages += 1;
        let chars = m.chars;
        self.full += chars;
        self.current += chars;
        match m.kind {
            MessageKind::Assistant => self.assistants.push(i),
            MessageKind::User if self.first_user.is_none() => self.first_user = Some(i),
            MessageKind::ToolResult {
                prunable,
                image,
                raw,
            } if self.first_user.is_some() => {
                if !prunable {
                    return;
                }
                if image && self.s.protected_image_results.is_none() {
                    return; // Feb: image results are never prunable
                }
                let cut = if image { None } else { self.s.trimmed_len(raw) };
                let p = self.results.len();
                self.results.push(Result_ {
                    message: i,
                    chars,
                    raw,
                    image,
                    member: !image,
                    trimmed: cut.unwrap_or(chars),
                    retrim: Retrim::No,
                    pass: 0,
                    modified: false,
                    cleared: false,
                });
                let saving = cut.map_or(0, |t| chars as i64 - t as i64);
                self.soft_saving.push(self.soft_saving[p] + saving);
                self.soft_count
                    .push(self.soft_count[p] + usize::from(cut.is_some()));
                if image {
                    self.images.push(p);
                } else {
                    self.uncleared.insert(p);
                }
                let leaf = self.leaf(p);
                self.tree.push(leaf);
            }
            _ => {}
        }
    }

    /// `findAssistantCutoffIndex`.
    fn cutoff(&self) -> Option<usize> {
        let k = self.s.keep_last_assistants;
        if k == 0 {
            return Some(self.messages);
        }
        self.assistants
            .len()
            .checked_sub(k)
            .map(|j| self.assistants[j])
    }

    fn ratio(&self, chars: u64) -> f64 {
        chars as f64 / self.char_window as f64
    }

    /// Results in range (before the cutoff), making image results beyond the protected newest
    /// ones members (later revision).
    fn in_range(&mut self, cutoff: usize) -> usize {
        let m = self.results.partition_point(|r| r.message < cutoff);
        if let Some(keep) = self.s.protected_image_results {
            let in_range = self
                .images
                .partition_point(|&p| self.results[p].message < cutoff);
            let target = in_range.saturating_sub(keep);
            while self.images_member < target {
                let p = self.images[self.images_member];
                self.images_member += 1;
                self.results[p].member = true;
                self.uncleared.insert(p);
                let leaf = self.leaf(p);
                self.tree.set(p, leaf);
            }
        }
        m
    }

    /// How many results (positions) the hard-clear loop clears, starting from `total` chars.
    fn clear_limit(&self, total: u64, m: usize) -> usize {
        match self.hard_max {
            // Clear until total − savings ≤ hard_max.
            Some(x) => self
                .tree
                .first_reaching(total as i64 - x as i64, m)
                .map_or(m, |p| p + 1),
            None => m,
        }
    }

    /// One non-sticky pass over the unmodified history.
    fn pass_plain(&mut self) -> Option<Pass> {
        let cutoff = self.cutoff()?;
        let m = self.in_range(cutoff);
        let before = self.full;
        if self.char_window == 0 || self.ratio(before) < self.s.soft_trim_ratio {
            return None;
        }
        let trimmed = self.soft_count[m];
        let t1 = (before as i64 - self.soft_saving[m]) as u64;
        let mut pass = Pass {
            changed: trimmed > 0,
            chars_before: before,
            chars_after: t1,
            touched: trimmed,
        };
        if self.ratio(t1) < self.s.hard_clear_ratio || !self.s.hard_clear {
            return Some(pass);
        }
        let (_, prunable_chars, _) = self.tree.prefix(m);
        if prunable_chars < self.s.min_prunable_tool_chars {
            return Some(pass);
        }
        let limit = self.clear_limit(t1, m);
        let (saved, _, cleared) = self.tree.prefix(limit);
        pass.chars_after = (t1 as i64 - saved) as u64;
        pass.touched = cleared as usize + (trimmed - self.soft_count[limit]);
        pass.changed |= cleared > 0;
        Some(pass)
    }

    fn set_state(&mut self, p: usize, chars: u64, raw: u64) {
        let r = &mut self.results[p];
        self.current = self.current - r.chars + chars;
        r.chars = chars;
        r.raw = raw;
        if !r.modified {
            r.modified = true;
            self.modified += 1;
        }
        let leaf = self.leaf(p);
        self.tree.set(p, leaf);
    }

    /// Whether a later pass re-trims result `p`, and how.
    fn classify(&mut self, p: usize) {
        let r = &self.results[p];
        let next = match (r.member && !r.image)
            .then(|| self.s.trimmed_len(r.raw))
            .flatten()
        {
            None => Retrim::No,
            Some(t) if t == r.chars && r.raw == r.chars => Retrim::Fixed,
            Some(_) => Retrim::Pending,
        };
        let old = std::mem::replace(&mut self.results[p].retrim, next);
        if old == Retrim::Fixed {
            self.fixed -= 1;
        }
        match next {
            Retrim::Fixed => self.fixed += 1,
            Retrim::Pending if old != Retrim::Pending => self.pending.push(p),
            _ => {}
        }
    }

    fn trim(&mut self, p: usize) -> bool {
        let r = &self.results[p];
        match (r.member && !r.image)
            .then(|| self.s.trimmed_len(r.raw))
            .flatten()
        {
            Some(t) => {
                if std::mem::take(&mut self.results[p].cleared) {
                    // The placeholder itself was trimmed: it is no longer cleared.
                    self.uncleared.insert(p);
                }
                self.set_state(p, t, t);
                true
            }
            None => false,
        }
    }

    fn clear(&mut self, p: usize) {
        self.results[p].image = false;
        self.results[p].cleared = true;
        self.set_state(p, self.placeholder, self.placeholder);
        self.classify(p);
    }

    /// One sticky pass over the projected history.
    fn pass_sticky(&mut self) -> Option<Pass> {
        let cutoff = self.cutoff()?;
        let m = self.in_range(cutoff);
        let before = self.current;
        if self.char_window == 0 || self.ratio(before) < self.s.soft_trim_ratio {
            return None;
        }
        self.passes += 1;
        let pass_no = self.passes;
        // Soft trim: results still changing under re-trimming, results re-trimmed to the same
        // size, and the results new in range.
        let mut changed = self.fixed > 0;
        for p in std::mem::take(&mut self.pending) {
            if self.results[p].retrim != Retrim::Pending || self.results[p].pass == pass_no {
                continue;
            }
            self.results[p].pass = pass_no;
            // Taken off the list: classify puts it back if it still changes.
            self.results[p].retrim = Retrim::No;
            changed |= self.trim(p);
            self.classify(p);
        }
        for p in self.frontier..m {
            if self.results[p].pass == pass_no {
                continue;
            }
            self.results[p].pass = pass_no;
            changed |= self.trim(p);
            self.classify(p);
        }
        self.frontier = self.frontier.max(m);
        let t1 = self.current;
        if self.ratio(t1) >= self.s.hard_clear_ratio
            && self.s.hard_clear
            && self.tree.prefix(m).1 >= self.s.min_prunable_tool_chars
        {
            let limit = self.clear_limit(t1, m);
            let clear: Vec<usize> = self.uncleared.range(..limit).copied().collect();
            for p in clear {
                self.uncleared.remove(&p);
                self.clear(p);
            }
            changed |= self.tree.prefix(limit).2 > 0;
        }
        Some(Pass {
            changed,
            chars_before: before,
            chars_after: self.current,
            touched: self.modified,
        })
    }

    fn gate(&self, now: Option<DateTime<Utc>>) -> bool {
        if self.ttl_ms <= 0.0 {
            return true;
        }
        match (self.last_touch, now) {
            (Some(t), Some(n)) => (n - t).num_milliseconds() as f64 >= self.ttl_ms,
            _ => false,
        }
    }
}

impl Strategy for OpenClaw {
    fn push(&mut self, item: &HistoryItem) {
        if item.is_human && std::mem::take(&mut self.ran) {
            // The previous run ended: OpenClaw appends its cache-ttl touch.
            self.last_touch = self.last_time;
        }
        // Measured by the calibration's pass, or now.
        match self.measured.item(self.items) {
            Some(messages) => {
                for k in messages {
                    self.add_message(self.measured.messages[k]);
                }
            }
            None => {
                for m in from_item(item) {
                    self.add_message(self.measure(&m));
                }
            }
        }
        self.items += 1;
        if item.timestamp.is_some() {
            self.last_time = item.timestamp;
        }
    }

    fn push_unmanaged(&mut self, item: &HistoryItem) {
        for m in from_item(item) {
            let size = self.measure(&m);
            self.full += size.chars;
            self.measured.messages.push(size);
        }
        self.measured.end_item();
    }

    fn take_measured(&mut self) -> Option<Measured> {
        Measured::take(&mut self.measured)
    }

    fn reuse_measured(&mut self, measured: Measured) {
        measured.reuse_into(&mut self.measured);
    }

    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event> {
        self.ran = true;
        if req.timestamp.is_some() && self.last_time.is_none_or(|t| req.timestamp > Some(t)) {
            self.last_time = req.timestamp;
        }
        self.view = None;
        if self.window == 0 || !self.gate(req.timestamp) {
            return Vec::new();
        }
        let pass = if self.sticky {
            self.pass_sticky()
        } else {
            self.pass_plain()
        };
        let Some(pass) = pass.filter(|p| p.changed) else {
            return Vec::new();
        };
        if self.ttl_ms > 0.0 {
            self.last_touch = req.timestamp;
        }
        if !self.sticky {
            self.view = Some(pass.chars_after);
        }
        let mut e = Event::new(EventKind::Prune);
        e.summarised = pass.touched;
        e.kept = self.messages - pass.touched;
        e.tokens_before = pass.chars_before.div_ceil(CHARS_PER_TOKEN);
        e.tokens_after = pass.chars_after.div_ceil(CHARS_PER_TOKEN);
        vec![e]
    }

    fn full_tokens(&self) -> u64 {
        self.full.div_ceil(CHARS_PER_TOKEN)
    }

    fn context_tokens(&self) -> u64 {
        self.context_chars().div_ceil(CHARS_PER_TOKEN)
    }
}

#[cfg(test)]
mod tests;
