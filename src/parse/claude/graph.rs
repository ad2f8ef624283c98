//! The uuid/parentUuid graph of a transcript, and which messages a rewind abandoned.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{Message, Role};

/// A record in the uuid/parentUuid graph. Uuids are kept as 64-bit hashes: a transcript holds
/// up to ~10^5 records, far from any collision.
pub(super) struct Node {
    /// `parentUuid`, or `logicalParentUuid` when the parent is null (compact boundaries).
    pub parent: Option<u64>,
    pub message: Option<usize>,
    /// The user message a tool-result carrier also holds (text typed beside the results): it
    /// stands or falls with `message`.
    pub companion: Option<usize>,
    /// A `user`/`assistant` record: a candidate for the tip of the current branch.
    pub conversational: bool,
    pub sidechain: bool,
}

#[derive(Default)]
pub(super) struct Graph {
    pub nodes: Vec<Node>,
    /// uuid hash → first node with that uuid.
    pub index: FxHashMap<u64, usize>,
}

impl Node {
    fn messages(&self) -> impl Iterator<Item = usize> {
        self.message.into_iter().chain(self.companion)
    }
}

impl Graph {
    pub fn add(&mut self, uuid: u64, node: Node) {
        self.index.entry(uuid).or_insert(self.nodes.len());
        self.nodes.push(node);
    }

    /// Flag messages that sit on abandoned branches of the graph.
    ///
    /// The current branch ends at the last conversational main-chain record in file order (the
    /// file is append-only), or, when a `last-prompt` record names a leaf (`hint`: the leaf,
    /// and how many nodes the graph held when the record was written), at the latest such
    /// record in that leaf's subtree. The hint speaks for the file as it was when written: a
    /// prompt or reply written after it outside that subtree is a later rewind (the user went
    /// back and went on from there), and the latest record in the file wins again. A message off that branch is superseded when
    /// it hangs below a fork on the branch and its side of the fork holds a real turn (a prompt
    /// or an assistant reply): a rewind or an abandoned retry. Side branches made only of tool
    /// results are parallel tool calls, which stay live. Records in components that never touch
    /// the branch (inline sidechains, files without parent links) are left alone.
    pub fn mark_superseded(&self, hint: Option<(u64, usize)>, messages: &mut [Message]) {
        let nodes = &self.nodes;
        let n = nodes.len();
        if n == 0 {
            return;
        }
        let parent: Vec<Option<usize>> = nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                node.parent
                    .and_then(|p| self.index.get(&p))
                    .copied()
                    .filter(|&p| p != i)
            })
            .collect();
        let children = Children::of(&parent);
        let candidate =
            |i: usize| nodes[i].conversational && !nodes[i].sidechain && nodes[i].message.is_some();
        let latest = (0..n).rev().find(|&i| candidate(i));
        let hinted = hint.and_then(|(l, at)| Some((*self.index.get(&l)?, at)));
        let tip = match hinted {
            Some((leaf, written_at)) => {
                let mut seen = vec![false; n];
                let mut stack = vec![leaf];
                let mut best = None;
                while let Some(i) = stack.pop() {
                    if std::mem::replace(&mut seen[i], true) {
                        continue;
                    }
                    if candidate(i) && best.is_none_or(|b| i > b) {
                        best = Some(i);
                    }
                    stack.extend(children.of_node(i).iter().copied());
                }
                // Tool results alone do not make a branch: a parallel call's result can hang
                // above the leaf.
                let turn = |i: usize| {
                    nodes[i]
                        .messages()
                        .any(|m| matches!(messages[m].role, Role::User | Role::Assistant))
                };
                let rewound_since =
                    (written_at.min(n)..n).any(|i| candidate(i) && !seen[i] && turn(i));
                if rewound_since {
                    latest
                } else {
                    Some(best.unwrap_or(leaf))
                }
            }
            None => latest,
        };
        let Some(tip) = tip else {
            return;
        };
        let mut on_branch = vec![false; n];
        let mut cur = Some(tip);
        while let Some(c) = cur {
            if std::mem::replace(&mut on_branch[c], true) {
                break;
            }
            cur = parent[c];
        }

        // For each off-branch node: the root of its side branch (the child of the fork on the
        // current branch), or None when its chain never reaches the branch.
        let mut side_root: Vec<Option<Option<usize>>> = vec![None; n];
        let mut in_path = vec![false; n];
        for i in 0..n {
            if on_branch[i] || side_root[i].is_some() {
                continue;
            }
            let mut path = Vec::new();
            let mut cur = i;
            let result = loop {
                if on_branch[cur] {
                    break path.last().copied();
                }
                if let Some(r) = side_root[cur] {
                    break r;
                }
                if in_path[cur] {
                    break None; // a cycle
                }
                in_path[cur] = true;
                path.push(cur);
                match parent[cur] {
                    Some(p) => cur = p,
                    None => break None,
                }
            };
            for &p in &path {
                side_root[p] = Some(result);
                in_path[p] = false;
            }
        }

        // Messages the branch holds. A streamed response is one message over several records:
        // a piece off the branch (the second of parallel tool calls, whose result the
        // conversation did not continue from) is still that live message, not a turn of an
        // abandoned side.
        let mut live = vec![false; messages.len()];
        for (i, node) in nodes.iter().enumerate() {
            if on_branch[i] && !node.sidechain {
                for m in node.messages() {
                    live[m] = true;
                }
            }
        }
        let mut abandoned: FxHashMap<usize, bool> = FxHashMap::default();
        let mut dropped = vec![false; messages.len()];
        for i in 0..n {
            let node = &nodes[i];
            let Some(m) = node.message else { continue };
            if node.sidechain || on_branch[i] {
                continue;
            }
            let Some(Some(root)) = side_root[i] else {
                continue;
            };
            let is_abandoned = *abandoned.entry(root).or_insert_with(|| {
                let mut stack = vec![root];
                let mut seen = FxHashSet::default();
                while let Some(j) = stack.pop() {
                    if !seen.insert(j) {
                        continue;
                    }
                    for mj in nodes[j].messages() {
                        if !live[mj] && matches!(messages[mj].role, Role::User | Role::Assistant) {
                            return true;
                        }
                    }
                    stack.extend(children.of_node(j).iter().copied());
                }
                false
            });
            if is_abandoned {
                dropped[m] = true;
                if let Some(c) = node.companion {
                    dropped[c] = true;
                }
            }
        }
        for (m, msg) in messages.iter_mut().enumerate() {
            if dropped[m] && !live[m] && msg.subtype.as_deref() != Some("compaction") {
                msg.superseded = true;
            }
        }
    }
}

/// Each node's children, in file order, in two flat arrays: a transcript of 10^5 records would
/// otherwise hold a vector per record at the end of its parse, the peak of `show`'s memory.
struct Children {
    /// `start[i]..start[i + 1]` are node `i`'s children in `list`.
    start: Vec<usize>,
    list: Vec<usize>,
}

impl Children {
    fn of(parent: &[Option<usize>]) -> Children {
        let mut start = vec![0; parent.len() + 1];
        for p in parent.iter().flatten() {
            start[p + 1] += 1;
        }
        for i in 0..parent.len() {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut list = vec![0; start[parent.len()]];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                list[next[p]] = i;
                next[p] += 1;
            }
        }
        Children { start, list }
    }

    fn of_node(&self, i: usize) -> &[usize] {
        &self.list[self.start[i]..self.start[i + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::Children;

    #[test]
    fn children_are_listed_per_parent_in_file_order() {
        let parent = [None, Some(0), Some(0), Some(1), None, Some(0), Some(4)];
        let c = Children::of(&parent);
        let got: Vec<&[usize]> = (0..parent.len()).map(|i| c.of_node(i)).collect();
        let want: Vec<&[usize]> = vec![&[1, 2, 5], &[3], &[], &[], &[6], &[], &[]];
        assert_eq!(got, want);
        assert!(Children::of(&[]).list.is_empty());
    }
}
