//! The lookups a rendering makes for every tool call, built once per session so the work stays
//! linear (or n·log n) in the number of messages whatever their shape: a call's results, the
//! copies of a call id, the sub-agents it spawned, and the calls still waiting for a result
//! when an inline sidechain run starts.

use std::collections::{HashMap, HashSet};

use crate::model::{Part, Session, SubagentLink};

/// Where each call's results and sub-agents are.
pub(super) struct CallIndex<'s> {
    /// call id → (message, part) of each result, in document order.
    results: HashMap<&'s str, Vec<(usize, usize)>>,
    pub(super) calls: HashSet<&'s str>,
    /// call id → messages holding a call with that id (several for checkpoint copies), in
    /// document order.
    call_sites: HashMap<&'s str, Vec<usize>>,
    /// call id → sub-agent links it spawned.
    pub(super) links: HashMap<&'s str, Vec<&'s SubagentLink>>,
}

impl<'s> CallIndex<'s> {
    pub(super) fn new(s: &'s Session) -> Self {
        let mut ix = CallIndex {
            results: HashMap::new(),
            calls: HashSet::new(),
            call_sites: HashMap::new(),
            links: HashMap::new(),
        };
        for (mi, m) in s.messages.iter().enumerate() {
            for (pi, p) in m.parts.iter().enumerate() {
                match p {
                    Part::ToolCall { id, .. } => {
                        ix.calls.insert(id.as_str());
                        let sites = ix.call_sites.entry(id.as_str()).or_default();
                        if sites.last() != Some(&mi) {
                            sites.push(mi);
                        }
                    }
                    Part::ToolResult { call_id, .. } => {
                        ix.results
                            .entry(call_id.as_str())
                            .or_default()
                            .push((mi, pi));
                    }
                    _ => {}
                }
            }
        }
        for l in &s.subagents {
            if let Some(c) = l.tool_call_id.as_deref().filter(|c| ix.calls.contains(c)) {
                ix.links.entry(c).or_default().push(l);
            }
        }
        ix
    }

    /// The results that belong to the call in message `mi`: a call id can repeat (checkpoint
    /// copies), and each copy gets the results up to the next copy (the first copy also those
    /// before it). Both lists are in document order, so this is two binary searches, however
    /// often the id repeats.
    pub(super) fn results_of(&self, id: &str, mi: usize) -> &[(usize, usize)] {
        let all = self.results.get(id).map(Vec::as_slice).unwrap_or(&[]);
        let sites = self.call_sites.get(id).map(Vec::as_slice).unwrap_or(&[]);
        let k = sites.binary_search(&mi).unwrap_or(0);
        let lo = if k == 0 { 0 } else { mi };
        let hi = sites.get(k + 1).copied().unwrap_or(usize::MAX);
        let start = all.partition_point(|&(m, _)| m < lo);
        let end = all.partition_point(|&(m, _)| m < hi);
        &all[start..end.max(start)]
    }
}

/// The main thread's calls still waiting for their result, in call order. An inline sidechain
/// run goes under the latest waiting call that spawns agents, or else the latest waiting call.
/// Calls that never get a result pile up over a long session, so an answer must not scan them.
#[derive(Default)]
pub(super) struct Pending<'s> {
    /// Every call met (its id and message), in order; `None` once answered. Positions are
    /// never reused.
    calls: Vec<Option<(&'s str, usize)>>,
    /// call id → positions still waiting (an id can be called twice before its result).
    by_id: HashMap<&'s str, Vec<usize>>,
    /// Positions of the calls, and of the spawning calls, in order; answered ones are dropped
    /// from the top when met, so each position is dropped once.
    all: Vec<usize>,
    spawning: Vec<usize>,
}

impl<'s> Pending<'s> {
    /// A call in message `mi`.
    pub(super) fn push(&mut self, id: &'s str, name: &str, mi: usize) {
        let k = self.calls.len();
        self.calls.push(Some((id, mi)));
        self.by_id.entry(id).or_default().push(k);
        self.all.push(k);
        if spawns_agents(name) {
            self.spawning.push(k);
        }
    }

    /// A result for `id`: every call with that id stops waiting.
    pub(super) fn answer(&mut self, id: &str) {
        for k in self.by_id.remove(id).unwrap_or_default() {
            self.calls[k] = None;
        }
    }

    /// The call (id and message) an inline sidechain run starting now belongs to.
    pub(super) fn spawner(&mut self) -> Option<(&'s str, usize)> {
        let calls = &self.calls;
        let top = |stack: &mut Vec<usize>| {
            while let Some(&k) = stack.last() {
                if let Some(call) = calls[k] {
                    return Some(call);
                }
                stack.pop();
            }
            None
        };
        top(&mut self.spawning).or_else(|| top(&mut self.all))
    }

    /// How many positions the stacks hold (what the tests bound).
    #[cfg(test)]
    fn held(&self) -> usize {
        self.all.len() + self.spawning.len() + self.by_id.values().map(Vec::len).sum::<usize>()
    }
}

/// Tools that start sub-agents: inline sidechain runs are nested under these first.
fn spawns_agents(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "task" || n == "agent" || n.contains("spawn") || n.contains("subagent")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list the planner kept before: a call pushed in order, every copy of an id removed
    /// by its result, the run given to the latest spawning call or else the latest call.
    #[derive(Default)]
    struct Naive<'s>(Vec<(&'s str, &'s str, usize)>);

    impl<'s> Naive<'s> {
        fn spawner(&self) -> Option<(&'s str, usize)> {
            self.0
                .iter()
                .rev()
                .find(|(_, name, _)| spawns_agents(name))
                .or(self.0.last())
                .map(|(id, _, mi)| (*id, *mi))
        }
    }

    #[test]
    fn pending_calls_match_the_plain_list() {
        let ids = ["a", "b", "c", "d", "e"];
        let names = ["Bash", "Task", "Read", "spawn_agent", "Agent"];
        // A fixed pseudo-random walk over pushes, answers and queries, repeated ids included.
        let mut x: u32 = 12345;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as usize
        };
        let (mut fast, mut slow) = (Pending::default(), Naive::default());
        for mi in 0..5000 {
            let (id, name) = (ids[next() % 5], names[next() % 5]);
            match next() % 3 {
                0 => {
                    fast.push(id, name, mi);
                    slow.0.push((id, name, mi));
                }
                1 => {
                    fast.answer(id);
                    slow.0.retain(|(i, _, _)| *i != id);
                }
                _ => assert_eq!(fast.spawner(), slow.spawner()),
            }
        }
    }

    #[test]
    fn answering_does_not_revisit_waiting_calls() {
        // 10,000 calls that never get a result, each followed by one that does and a run: the
        // state stays proportional to the calls, and every lookup stops at the top.
        let ids: Vec<String> = (0..20_000).map(|i| format!("t{i}")).collect();
        let mut p = Pending::default();
        for (mi, pair) in ids.chunks(2).enumerate() {
            p.push(&pair[0], "Bash", mi);
            p.push(&pair[1], "Task", mi);
            p.answer(&pair[1]);
            assert_eq!(p.spawner(), Some((pair[0].as_str(), mi)));
        }
        assert!(p.held() <= 2 * 10_000, "{}", p.held());
        assert!(p.by_id.values().all(|k| k.len() == 1));
    }

    #[test]
    fn results_of_each_copy_of_a_call() {
        let mut ix = CallIndex {
            results: HashMap::new(),
            calls: HashSet::new(),
            call_sites: HashMap::new(),
            links: HashMap::new(),
        };
        // Copies of `x` in messages 2, 5, 9; results in 1 (before any copy), 3, 4, 6, 10.
        ix.call_sites.insert("x", vec![2, 5, 9]);
        ix.results
            .insert("x", vec![(1, 0), (3, 0), (4, 1), (6, 0), (10, 0)]);
        assert_eq!(ix.results_of("x", 2), [(1, 0), (3, 0), (4, 1)]);
        assert_eq!(ix.results_of("x", 5), [(6, 0)]);
        assert_eq!(ix.results_of("x", 9), [(10, 0)]);
        // A message that holds no copy is treated as the first.
        assert_eq!(ix.results_of("x", 7), [(1, 0), (3, 0), (4, 1)]);
        assert!(ix.results_of("y", 2).is_empty());
    }
}
