//! An append-only segment tree over the prunable tool results, in message order. Each leaf holds
//! what hard-clearing that result would save (`chars − placeholder`, negative for results shorter
//! than the placeholder), its current chars and whether it is in the prunable list. Nodes keep
//! sums and the maximum prefix sum of the savings, so "how many of the oldest results does the
//! hard-clear loop clear before the ratio drops" is one O(log n) descent even though savings
//! can be negative.

#[derive(Debug, Clone, Default)]
pub struct Tree {
    cap: usize,
    len: usize,
    /// Σ savings of the node.
    sum: Vec<i64>,
    /// Maximum over the node's non-empty prefixes of Σ savings.
    pre: Vec<i64>,
    /// Σ current chars of members.
    chars: Vec<u64>,
    /// Members.
    count: Vec<u32>,
}

/// One leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Leaf {
    pub saving: i64,
    pub chars: u64,
    pub member: bool,
}

impl Tree {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn grow(&mut self) {
        let cap = (self.cap * 2).max(16);
        let mut t = Tree {
            cap,
            len: self.len,
            sum: vec![0; 2 * cap],
            pre: vec![0; 2 * cap],
            chars: vec![0; 2 * cap],
            count: vec![0; 2 * cap],
        };
        for i in 0..self.len {
            let (a, b) = (self.cap + i, cap + i);
            t.sum[b] = self.sum[a];
            t.pre[b] = self.pre[a];
            t.chars[b] = self.chars[a];
            t.count[b] = self.count[a];
        }
        for n in (1..cap).rev() {
            t.pull(n);
        }
        *self = t;
    }

    fn pull(&mut self, n: usize) {
        let (l, r) = (2 * n, 2 * n + 1);
        self.sum[n] = self.sum[l] + self.sum[r];
        self.pre[n] = self.pre[l].max(self.sum[l] + self.pre[r]);
        self.chars[n] = self.chars[l] + self.chars[r];
        self.count[n] = self.count[l] + self.count[r];
    }

    pub fn push(&mut self, leaf: Leaf) {
        if self.len == self.cap {
            self.grow();
        }
        self.len += 1;
        self.set(self.len - 1, leaf);
    }

    pub fn set(&mut self, i: usize, leaf: Leaf) {
        let mut n = self.cap + i;
        let saving = if leaf.member { leaf.saving } else { 0 };
        self.sum[n] = saving;
        self.pre[n] = saving;
        self.chars[n] = if leaf.member { leaf.chars } else { 0 };
        self.count[n] = u32::from(leaf.member);
        while n > 1 {
            n /= 2;
            self.pull(n);
        }
    }

    /// Σ savings, Σ chars and member count over leaves `[0, k)`.
    pub fn prefix(&self, k: usize) -> (i64, u64, u32) {
        let (mut sum, mut chars, mut count) = (0, 0, 0);
        let (mut l, mut r) = (self.cap, self.cap + k);
        while l < r {
            if l & 1 == 1 {
                sum += self.sum[l];
                chars += self.chars[l];
                count += self.count[l];
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                sum += self.sum[r];
                chars += self.chars[r];
                count += self.count[r];
            }
            l /= 2;
            r /= 2;
        }
        (sum, chars, count)
    }

    /// The smallest `p < limit` with Σ savings over `[0, p]` ≥ `target`, if any.
    pub fn first_reaching(&self, target: i64, limit: usize) -> Option<usize> {
        if self.cap == 0 {
            return None;
        }
        self.find(1, 0, self.cap, 0, target, limit.min(self.len))
    }

    fn find(
        &self,
        n: usize,
        lo: usize,
        hi: usize,
        acc: i64,
        target: i64,
        limit: usize,
    ) -> Option<usize> {
        if lo >= limit || acc + self.pre[n] < target {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.find(2 * n, lo, mid, acc, target, limit)
            .or_else(|| self.find(2 * n + 1, mid, hi, acc + self.sum[2 * n], target, limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sums_and_first_reaching_match_a_scan() {
        let mut seed = 7u64;
        let mut rnd = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let mut t = Tree::default();
        let mut leaves: Vec<Leaf> = Vec::new();
        for step in 0..3000 {
            if leaves.is_empty() || rnd(3) > 0 {
                let l = Leaf {
                    saving: rnd(200) as i64 - 50,
                    chars: rnd(1000),
                    member: rnd(5) > 0,
                };
                t.push(l);
                leaves.push(l);
            } else {
                let i = rnd(leaves.len() as u64) as usize;
                let l = Leaf {
                    saving: rnd(200) as i64 - 100,
                    chars: rnd(1000),
                    member: rnd(2) == 0,
                };
                t.set(i, l);
                leaves[i] = l;
            }
            let k = rnd(leaves.len() as u64 + 1) as usize;
            let m: Vec<&Leaf> = leaves[..k].iter().collect();
            let want = (
                m.iter().filter(|l| l.member).map(|l| l.saving).sum::<i64>(),
                m.iter().filter(|l| l.member).map(|l| l.chars).sum::<u64>(),
                m.iter().filter(|l| l.member).count() as u32,
            );
            assert_eq!(t.prefix(k), want, "step {step}");
            let target = rnd(2000) as i64 - 100;
            let mut acc = 0;
            let mut scan = None;
            for (p, l) in leaves[..k].iter().enumerate() {
                acc += if l.member { l.saving } else { 0 };
                if acc >= target {
                    scan = Some(p);
                    break;
                }
            }
            assert_eq!(
                t.first_reaching(target, k),
                scan,
                "step {step} target {target}"
            );
        }
    }
}
