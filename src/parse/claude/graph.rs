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
    nodes: Vec<Stored>,
    /// uuid hash → first node with that uuid.
    index: FxHashMap<u64, u32>,
}

/// "None" of a node's or a message's 32-bit index. A transcript would need billions of
/// records to reach it, and memory for them long before.
const NONE: u32 = u32::MAX;

/// A [`Node`] as the graph keeps it: 24 bytes where the node takes 56, for each of a long
/// transcript's 10^5 records, whose graph is held at the peak of its parse.
struct Stored {
    /// The parent's uuid hash, when `HAS_PARENT`.
    parent: u64,
    message: u32,
    companion: u32,
    flags: u8,
}

const HAS_PARENT: u8 = 1;
const CONVERSATIONAL: u8 = 2;
const SIDECHAIN: u8 = 4;

fn index32(i: Option<usize>) -> u32 {
    i.and_then(|i| u32::try_from(i).ok()).unwrap_or(NONE)
}

impl Stored {
    fn of(node: Node) -> Stored {
        let flag = |on: bool, f: u8| if on { f } else { 0 };
        Stored {
            parent: node.parent.unwrap_or(0),
            message: index32(node.message),
            companion: index32(node.companion),
            flags: flag(node.parent.is_some(), HAS_PARENT)
                | flag(node.conversational, CONVERSATIONAL)
                | flag(node.sidechain, SIDECHAIN),
        }
    }

    fn parent(&self) -> Option<u64> {
        (self.flags & HAS_PARENT != 0).then_some(self.parent)
    }

    fn message(&self) -> Option<usize> {
        (self.message != NONE).then_some(self.message as usize)
    }

    fn sidechain(&self) -> bool {
        self.flags & SIDECHAIN != 0
    }

    fn conversational(&self) -> bool {
        self.flags & CONVERSATIONAL != 0
    }

    /// The message, then the companion.
    fn messages(&self) -> impl Iterator<Item = usize> {
        [self.message, self.companion]
            .into_iter()
            .filter(|&m| m != NONE)
            .map(|m| m as usize)
    }
}

impl Graph {
    pub fn add(&mut self, uuid: u64, node: Node) {
        let at = index32(Some(self.nodes.len()));
        self.index.entry(uuid).or_insert(at);
        self.nodes.push(Stored::of(node));
    }

    /// How many records the graph holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    fn node_of(&self, uuid: u64) -> Option<u32> {
        self.index.get(&uuid).copied().filter(|&i| i != NONE)
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
    ///
    /// Its tables index nodes in 32 bits (4 bytes a record each), as the graph does: they come
    /// on top of the whole session at the peak of a long transcript's parse.
    pub fn mark_superseded(&self, hint: Option<(u64, usize)>, messages: &mut [Message]) {
        let nodes = &self.nodes;
        let n = nodes.len();
        // Past 32-bit indices (never reached: see `NONE`) nothing is marked.
        if n == 0 || n >= NONE as usize {
            return;
        }
        let parent: Vec<u32> = nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                node.parent()
                    .and_then(|p| self.node_of(p))
                    .filter(|&p| p as usize != i)
                    .unwrap_or(NONE)
            })
            .collect();
        let parent_of = |i: usize| (parent[i] != NONE).then(|| parent[i] as usize);
        let children = Children::of(&parent);
        let candidate = |i: usize| {
            nodes[i].conversational() && !nodes[i].sidechain() && nodes[i].message().is_some()
        };
        let latest = (0..n).rev().find(|&i| candidate(i));
        let hinted = hint.and_then(|(l, at)| Some((self.node_of(l)? as usize, at)));
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
                    stack.extend(children.of_node(i).iter().map(|&c| c as usize));
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
            cur = parent_of(c);
        }

        // For each off-branch node: the root of its side branch (the child of the fork on the
        // current branch), `NO_ROOT` when its chain never reaches the branch, `UNSET` while
        // not worked out.
        const UNSET: u32 = NONE;
        const NO_ROOT: u32 = NONE - 1;
        let mut side_root: Vec<u32> = vec![UNSET; n];
        let mut in_path = vec![false; n];
        for i in 0..n {
            if on_branch[i] || side_root[i] != UNSET {
                continue;
            }
            let mut path = Vec::new();
            let mut cur = i;
            let result = loop {
                if on_branch[cur] {
                    break path.last().map_or(NO_ROOT, |&p| p as u32);
                }
                if side_root[cur] != UNSET {
                    break side_root[cur];
                }
                if in_path[cur] {
                    break NO_ROOT; // a cycle
                }
                in_path[cur] = true;
                path.push(cur);
                match parent_of(cur) {
                    Some(p) => cur = p,
                    None => break NO_ROOT,
                }
            };
            for &p in &path {
                side_root[p] = result;
                in_path[p] = false;
            }
        }

        // Messages the branch holds. A streamed response is one message over several records:
        // a piece off the branch (the second of parallel tool calls, whose result the
        // conversation did not continue from) is still that live message, not a turn of an
        // abandoned side.
        let mut live = vec![false; messages.len()];
        for (i, node) in nodes.iter().enumerate() {
            if on_branch[i] && !node.sidechain() {
                for m in node.messages() {
                    live[m] = true;
                }
            }
        }
        let mut abandoned: FxHashMap<u32, bool> = FxHashMap::default();
        let mut dropped = vec![false; messages.len()];
        for i in 0..n {
            let node = &nodes[i];
            let Some(m) = node.message() else { continue };
            if node.sidechain() || on_branch[i] {
                continue;
            }
            let root = side_root[i];
            if root == NO_ROOT || root == UNSET {
                continue;
            }
            let is_abandoned = *abandoned.entry(root).or_insert_with(|| {
                let mut stack = vec![root as usize];
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
                    stack.extend(children.of_node(j).iter().map(|&c| c as usize));
                }
                false
            });
            if is_abandoned {
                dropped[m] = true;
                if node.companion != NONE {
                    dropped[node.companion as usize] = true;
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
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Children {
    /// From each node's parent (`NONE` for none). Fewer than `NONE` nodes.
    fn of(parent: &[u32]) -> Children {
        let mut start = vec![0u32; parent.len() + 1];
        for &p in parent.iter().filter(|&&p| p != NONE) {
            start[p as usize + 1] += 1;
        }
        for i in 0..parent.len() {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut list = vec![0u32; start[parent.len()] as usize];
        for (i, &p) in parent.iter().enumerate() {
            if p != NONE {
                let at = &mut next[p as usize];
                list[*at as usize] = i as u32;
                *at += 1;
            }
        }
        Children { start, list }
    }

    fn of_node(&self, i: usize) -> &[u32] {
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::Children;

    #[test]
    fn children_are_listed_per_parent_in_file_order() {
        use super::NONE;
        let parent = [NONE, 0, 0, 1, NONE, 0, 4];
        let c = Children::of(&parent);
        let got: Vec<&[u32]> = (0..parent.len()).map(|i| c.of_node(i)).collect();
        let want: Vec<&[u32]> = vec![&[1, 2, 5], &[3], &[], &[], &[6], &[], &[]];
        assert_eq!(got, want);
        assert!(Children::of(&[]).list.is_empty());
    }
}
