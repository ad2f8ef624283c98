//! Pi 0.73.1 `findCutPoint`, `findTurnStartIndex` and the index arithmetic of
//! `prepareCompaction`, over an append-only index of message entries.
//!
//! `findCutPoint` walks backwards from `end − 1`, summing `estimateTokens` of message entries,
//! and at the first index `i` where the sum reaches `keepRecentTokens` cuts at the first valid cut
//! point at or after `i`. Over a prefix-sum array that walk is a binary search: `i` is the largest
//! index in `[start, end)` with `P[end] − P[i] ≥ keep`, i.e. `P[i] ≤ P[end] − keep`. The valid cut
//! points and turn starts are kept as sorted index lists, so a cut costs O(log n).
//!
//! Entries here are messages only. The replay never creates the other entry types;
//! `compaction` entries are transparent to these functions (not messages, not cut points, and
//! metadata absorption stops at them), so callers can drop them and map indices (the golden
//! tests do).

/// What `findValidCutPoints` / `findTurnStartIndex` need to know about a message entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// `user`: a valid cut point and a turn start; cutting here is not a split turn.
    User,
    /// `bashExecution`: a valid cut point and a turn start.
    Bash,
    /// `assistant`, `custom`, `branchSummary`, `compactionSummary`: valid cut points only.
    CutPoint,
    /// `toolResult` (or an unknown role): never a cut point.
    NoCut,
}

impl Class {
    pub fn of_role(role: &str) -> Class {
        match role {
            "user" => Class::User,
            "bashExecution" => Class::Bash,
            "assistant" | "custom" | "branchSummary" | "compactionSummary" => Class::CutPoint,
            _ => Class::NoCut,
        }
    }
}

/// `CutPointResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    pub first_kept: usize,
    /// The turn start when cutting inside a turn.
    pub turn_start: Option<usize>,
    pub is_split_turn: bool,
}

/// The index ranges `prepareCompaction` derives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preparation {
    pub boundary_start: usize,
    pub cut: CutPoint,
    /// `messagesToSummarize` = `[boundary_start, history_end)`; the turn prefix (split turns) is
    /// `[turn_start, first_kept)`.
    pub history_end: usize,
}

#[derive(Debug, Clone, Default)]
pub struct CutIndex {
    /// `prefix[i]` = Σ `estimateTokens` of entries `< i` (`len() + 1` values).
    prefix: Vec<u64>,
    class: Vec<Class>,
    cut_points: Vec<usize>,
    turn_starts: Vec<usize>,
}

impl CutIndex {
    pub fn new() -> CutIndex {
        CutIndex {
            prefix: vec![0],
            ..CutIndex::default()
        }
    }

    pub fn push(&mut self, class: Class, tokens: u64) {
        let i = self.class.len();
        self.prefix.push(self.prefix[i] + tokens);
        self.class.push(class);
        if class != Class::NoCut {
            self.cut_points.push(i);
        }
        if matches!(class, Class::User | Class::Bash) {
            self.turn_starts.push(i);
        }
    }

    pub fn len(&self) -> usize {
        self.class.len()
    }

    pub fn is_empty(&self) -> bool {
        self.class.is_empty()
    }

    /// Σ `estimateTokens` over `[a, b)`.
    pub fn tokens(&self, a: usize, b: usize) -> u64 {
        self.prefix[b] - self.prefix[a]
    }

    /// `findTurnStartIndex(entries, index, start)`: the nearest user/bashExecution entry at or
    /// before `index` and not before `start`.
    pub fn find_turn_start(&self, index: usize, start: usize) -> Option<usize> {
        let k = self.turn_starts.partition_point(|&t| t <= index);
        k.checked_sub(1)
            .map(|k| self.turn_starts[k])
            .filter(|&t| t >= start)
    }

    /// `findCutPoint(entries, start, end, keepRecentTokens)`.
    pub fn find_cut_point(&self, start: usize, end: usize, keep: u64) -> CutPoint {
        let lo = self.cut_points.partition_point(|&c| c < start);
        let hi = self.cut_points.partition_point(|&c| c < end);
        if lo == hi {
            return CutPoint {
                first_kept: start,
                turn_start: None,
                is_split_turn: false,
            };
        }
        let mut cut = self.cut_points[lo];
        if end > start && self.prefix[end] >= keep {
            // The largest i in [start, end) with prefix[i] <= prefix[end] - keep.
            let limit = self.prefix[end] - keep;
            let k = self.prefix[start..end].partition_point(|&p| p <= limit);
            if k > 0 {
                let i = start + k - 1;
                // The first valid cut point at or after i; none (the budget was crossed inside
                // trailing tool results, pi #7201) keeps the first cut point.
                let j = lo + self.cut_points[lo..hi].partition_point(|&c| c < i);
                if j < hi {
                    cut = self.cut_points[j];
                }
            }
        }
        let is_user = self.class[cut] == Class::User;
        let turn_start = if is_user {
            None
        } else {
            self.find_turn_start(cut, start)
        };
        CutPoint {
            first_kept: cut,
            turn_start,
            is_split_turn: turn_start.is_some(),
        }
    }

    /// `prepareCompaction`'s ranges. `boundary_start` is the index of the previous
    /// compaction's `firstKeptEntryId` (0 without one): in 0.73.1 the previously kept tail is
    /// summarised again (the update prompt merges it into the previous summary).
    pub fn prepare(&self, boundary_start: usize, end: usize, keep: u64) -> Preparation {
        let cut = self.find_cut_point(boundary_start, end, keep);
        let history_end = match (cut.is_split_turn, cut.turn_start) {
            (true, Some(t)) => t,
            _ => cut.first_kept,
        };
        Preparation {
            boundary_start,
            cut,
            history_end,
        }
    }
}
