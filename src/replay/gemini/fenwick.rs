//! A growable Fenwick (binary indexed) tree: point updates, prefix sums and lower-bound search
//! in O(log n), appends in O(log n).

#[derive(Debug, Clone, Default)]
pub struct Fenwick {
    /// 1-based tree.
    tree: Vec<i64>,
    /// The values, for point reads.
    values: Vec<i64>,
}

impl Fenwick {
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn get(&self, i: usize) -> i64 {
        self.values.get(i).copied().unwrap_or(0)
    }

    /// Append a value at index `len()`.
    pub fn push(&mut self, v: i64) {
        let n = self.values.len() + 1;
        let low = n & n.wrapping_neg();
        // Node n covers (n − low, n].
        let node = v + self.prefix(n - 1) - self.prefix(n - low);
        if self.tree.is_empty() {
            self.tree.push(0);
        }
        self.tree.push(node);
        self.values.push(v);
    }

    /// Grow with zeros so that index `i` exists.
    pub fn ensure(&mut self, i: usize) {
        while self.values.len() <= i {
            self.push(0);
        }
    }

    pub fn add(&mut self, i: usize, delta: i64) {
        if delta == 0 {
            return;
        }
        self.values[i] += delta;
        let mut k = i + 1;
        while k < self.tree.len() {
            self.tree[k] += delta;
            k += k & k.wrapping_neg();
        }
    }

    pub fn set(&mut self, i: usize, v: i64) {
        let d = v - self.values[i];
        self.add(i, d);
    }

    /// Sum of indices `[0, k)`.
    pub fn prefix(&self, k: usize) -> i64 {
        let mut k = k.min(self.values.len());
        let mut s = 0;
        while k > 0 {
            s += self.tree[k];
            k &= k - 1;
        }
        s
    }

    /// The smallest `k` with `prefix(k) >= target` (values must be non-negative); `len() + 1`
    /// when even the whole sum is below it.
    pub fn lower_bound(&self, target: i64) -> usize {
        if target <= 0 {
            return 0;
        }
        let n = self.values.len();
        let mut pos = 0;
        let mut rem = target;
        let mut step = if n == 0 {
            0
        } else {
            1 << (usize::BITS - 1 - n.leading_zeros())
        };
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] < rem {
                pos = next;
                rem -= self.tree[next];
            }
            step >>= 1;
        }
        // prefix(pos) < target ≤ prefix(pos + 1)
        pos + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_naive_sums() {
        let mut f = Fenwick::default();
        let mut naive: Vec<i64> = Vec::new();
        for i in 0..200i64 {
            let v = (i * 37 % 11) - if i % 7 == 0 { 0 } else { 3 };
            let v = v.max(0);
            f.push(v);
            naive.push(v);
        }
        for i in (0..200).step_by(3) {
            f.set(i, (i as i64) % 5);
            naive[i] = (i as i64) % 5;
        }
        for k in 0..=200 {
            assert_eq!(f.prefix(k), naive[..k].iter().sum::<i64>());
        }
        let total: i64 = naive.iter().sum();
        for target in [1, 2, 5, 17, 100, total - 1, total] {
            let k = f.lower_bound(target);
            assert!(
                f.prefix(k) >= target && f.prefix(k - 1) < target,
                "{target}"
            );
        }
        assert_eq!(f.lower_bound(total + 1), 201);
        assert_eq!(f.lower_bound(0), 0);
    }
}
