//! Is the replayed history still the recorded one?
//!
//! While it is, a request's recorded prompt size *is* the what-if size, and the recorded
//! figures are what the real trigger compared. The two histories part when either side manages
//! the context and the other does not: the replay compacts, prunes or masks where the agent did
//! not, or the agent compacted where the replay did not. When the replay runs the agent's own
//! algorithm, a compaction it makes within one request of a recorded one is the same
//! compaction (the agent's ±1 is the replay's estimate of a few hundred tokens of new content),
//! and after both the history is the recorded one again: a compaction replaces what came
//! before, so earlier differences are gone.

use super::EventKind;

/// What kind of context management an event is, for pairing a replayed event with a recorded
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// History summarised (any agent's compaction).
    Compact,
    /// Tool outputs masked (Gemini).
    Mask,
}

impl Class {
    /// How a replayed event changes the history: `None` when it does not (a failed attempt),
    /// `Some(None)` when it changes it in a way no agent records (truncation, pruning).
    pub fn of_event(kind: EventKind) -> Option<Option<Class>> {
        match kind {
            EventKind::Compress => Some(Some(Class::Compact)),
            EventKind::Mask => Some(Some(Class::Mask)),
            EventKind::Truncate | EventKind::Prune => Some(None),
            EventKind::Failed => None,
        }
    }
}

/// One side's event that has not found its partner yet.
#[derive(Debug, Clone, Copy)]
struct Pending {
    request: usize,
    class: Class,
    /// Index into the recorded compactions or the replay's events.
    index: usize,
}

/// Follows both sides' events request by request.
#[derive(Debug)]
pub struct Tracker {
    /// The replay runs the recording agent's own algorithm: its events can pair with the
    /// agent's. Otherwise any event on either side parts the histories for good.
    native: bool,
    broken: bool,
    recorded: Vec<Pending>,
    replayed: Vec<Pending>,
    /// `(recorded compaction index, replay event index)` of every pair.
    pub pairs: Vec<(usize, usize)>,
}

impl Tracker {
    pub fn new(native: bool) -> Tracker {
        Tracker {
            native,
            broken: false,
            recorded: Vec::new(),
            replayed: Vec::new(),
            pairs: Vec::new(),
        }
    }

    /// Request `k`: the agent's compactions that first show at `k` (`(index, class)`) and the
    /// replay's events that take effect at `k` (`(index, kind)`).
    pub fn step(&mut self, k: usize, recorded: &[(usize, Class)], replayed: &[(usize, EventKind)]) {
        // A pending event whose partner had one request to show up and did not: the
        // histories have parted.
        let expired = |p: &Pending| p.request + 1 < k;
        if self.recorded.iter().any(expired) || self.replayed.iter().any(expired) {
            self.broken = true;
            self.recorded.retain(|p| !expired(p));
            self.replayed.retain(|p| !expired(p));
        }
        let mut fresh_recorded: Vec<Pending> = recorded
            .iter()
            .map(|&(index, class)| Pending {
                request: k,
                class,
                index,
            })
            .collect();
        for &(index, kind) in replayed {
            let Some(class) = Class::of_event(kind) else {
                continue;
            };
            let Some(class) = class.filter(|_| self.native) else {
                self.broken = true;
                continue;
            };
            // The agent's event one request earlier, else at this very request.
            let partner = take_first(&mut self.recorded, class)
                .or_else(|| take_first(&mut fresh_recorded, class));
            match partner {
                Some(p) => self.pair(p.index, index, class),
                None => self.replayed.push(Pending {
                    request: k,
                    class,
                    index,
                }),
            }
        }
        for p in fresh_recorded {
            if !self.native {
                self.broken = true;
                continue;
            }
            match take_first(&mut self.replayed, p.class) {
                Some(r) => self.pair(p.index, r.index, p.class),
                None => self.recorded.push(p),
            }
        }
    }

    fn pair(&mut self, recorded: usize, replayed: usize, class: Class) {
        self.pairs.push((recorded, replayed));
        if class == Class::Compact {
            self.broken = false;
        }
    }

    /// Whether, after the last [`step`](Self::step), the replayed history is the recorded one.
    pub fn in_sync(&self) -> bool {
        !self.broken && self.recorded.is_empty() && self.replayed.is_empty()
    }

    /// Whether one of the agent's compactions from request `k − 1` is still waiting for the
    /// replay to compact: it is the last request at which a replay compaction would pair.
    pub fn agent_waiting(&self, k: usize) -> bool {
        self.recorded
            .iter()
            .any(|p| p.class == Class::Compact && p.request + 1 == k)
    }

    /// The replay event paired with recorded compaction `i`, if any.
    pub fn partner_of(&self, recorded: usize) -> Option<usize> {
        self.pairs
            .iter()
            .find(|(r, _)| *r == recorded)
            .map(|&(_, e)| e)
    }
}

fn take_first(list: &mut Vec<Pending>, class: Class) -> Option<Pending> {
    let i = list.iter().position(|p| p.class == class)?;
    Some(list.remove(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Class = Class::Compact;
    const E: EventKind = EventKind::Compress;

    #[test]
    fn same_request_pairs_and_stays_in_sync() {
        let mut t = Tracker::new(true);
        t.step(0, &[], &[]);
        assert!(t.in_sync());
        t.step(5, &[(0, C)], &[(0, E)]);
        assert!(t.in_sync());
        assert_eq!(t.partner_of(0), Some(0));
    }

    #[test]
    fn one_request_apart_pairs_after_the_later_one() {
        let mut t = Tracker::new(true);
        t.step(5, &[], &[(0, E)]);
        assert!(!t.in_sync(), "the replay compacted, the agent not yet");
        t.step(6, &[(0, C)], &[]);
        assert!(t.in_sync());
        let mut t = Tracker::new(true);
        t.step(5, &[(0, C)], &[]);
        assert!(!t.in_sync());
        t.step(6, &[], &[(0, E)]);
        assert!(t.in_sync());
    }

    #[test]
    fn two_requests_apart_part_the_histories_until_the_next_pair() {
        let mut t = Tracker::new(true);
        t.step(5, &[], &[(0, E)]);
        t.step(6, &[], &[]);
        t.step(7, &[(0, C)], &[]);
        assert!(!t.in_sync());
        assert_eq!(t.partner_of(0), None);
        t.step(9, &[], &[]);
        assert!(!t.in_sync());
        t.step(20, &[(1, C)], &[(1, E)]);
        assert!(
            t.in_sync(),
            "both compacted here: the history is the recorded one again"
        );
        assert_eq!(t.partner_of(1), Some(1));
    }

    #[test]
    fn other_algorithms_never_pair() {
        let mut t = Tracker::new(false);
        t.step(3, &[], &[(0, EventKind::Prune)]);
        assert!(!t.in_sync());
        let mut t = Tracker::new(false);
        t.step(3, &[(0, C)], &[]);
        assert!(!t.in_sync());
        t.step(4, &[], &[(0, E)]);
        assert!(!t.in_sync());
        assert!(t.pairs.is_empty());
    }

    #[test]
    fn failed_attempts_change_nothing_and_masks_pair_with_masks() {
        let mut t = Tracker::new(true);
        t.step(2, &[], &[(0, EventKind::Failed)]);
        assert!(t.in_sync());
        t.step(3, &[(0, Class::Mask)], &[(1, EventKind::Mask)]);
        assert!(t.in_sync());
        t.step(4, &[], &[(2, EventKind::Truncate)]);
        assert!(!t.in_sync());
        // A mask pair does not undo a parting; only a compaction does.
        t.step(5, &[(1, Class::Mask)], &[(3, EventKind::Mask)]);
        assert!(!t.in_sync());
    }
}
