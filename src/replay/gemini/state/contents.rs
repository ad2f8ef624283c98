//! The sized history's bookkeeping: its contents and parts with their estimates, the
//! function responses' figures under the current `maxChars`, and the region a truncation
//! changes.

use std::collections::BTreeSet;

use crate::replay::gemini::content::GRole;
use crate::replay::gemini::estimate::Est;
use crate::replay::gemini::json::J;
use crate::replay::gemini::part::GPart;
use crate::replay::gemini::truncate::{
    TruncStyle, legacy_saved_output_path, saved_output_path, truncate_gpart,
};
use crate::replay::gemini::{PLACEHOLDER_PROJECT_TEMP_DIR, PLACEHOLDER_TRUNCATION_ID};
use std::sync::Arc;

use super::{
    Fr, FrFigures, Gemini, Outcome, Undo, VContent, VPart, fr_figures, json_i, memo_get, memo_put,
};

impl Gemini {
    pub(super) fn vpart(&self, j: J) -> VPart {
        VPart::of(GPart::from_j(j), self.p.w)
    }

    pub(super) fn content(&self, cid: usize) -> &VContent {
        self.contents[cid].as_ref().expect("live content")
    }

    pub(super) fn content_mut(&mut self, cid: usize) -> &mut VContent {
        self.contents[cid].as_mut().expect("live content")
    }

    /// Where an output truncated in `style` is saved (`None`: a name upstream cannot sanitise).
    pub(super) fn save_path(style: TruncStyle, name: Option<&str>) -> Option<String> {
        name.map(|t| match style {
            TruncStyle::Chars => saved_output_path(
                PLACEHOLDER_PROJECT_TEMP_DIR,
                t,
                PLACEHOLDER_TRUNCATION_ID,
                None,
            ),
            TruncStyle::Lines => {
                legacy_saved_output_path(PLACEHOLDER_PROJECT_TEMP_DIR, t, PLACEHOLDER_TRUNCATION_ID)
            }
        })
    }

    /// Recompute a function response's cached figures from its part.
    pub(super) fn refresh_fr(&mut self, seq: usize) {
        let (cid, pidx) = (self.frs[seq].cid, self.frs[seq].pidx);
        let w = self.p.w;
        // By lines, the outcome does not depend on `maxChars`: one memo entry, under a key no
        // `maxChars` takes (it is at least 0 here).
        let (m, style) = (self.max_chars, self.p.style);
        let mkey = if style == TruncStyle::Lines {
            i64::MIN
        } else {
            m
        };
        let part = &self.contents[cid].as_ref().expect("live content").parts[pidx];
        let key = (mkey, w.key());
        let figures = match part.memo().and_then(|memo| memo_get(&memo.fr, &key)) {
            Some(f) => f,
            None => {
                let f = fr_figures(part, m, style, w);
                if let Some(memo) = part.memo() {
                    memo_put(&memo.fr, key, f);
                }
                f
            }
        };
        let FrFigures {
            len,
            tok,
            out,
            mask_tok,
        } = figures;
        let f = &mut self.frs[seq];
        if f.alive {
            self.by_len.remove(&(f.len, seq));
            self.by_len.insert((len, seq));
        }
        f.len = len;
        f.tok = tok;
        f.out = out;
        f.mask_tok = mask_tok;
        self.tok.set(seq, tok as i64);
        self.dest.set(seq, out.dest);
        self.mtok.set(seq, mask_tok as i64);
        if out.fixed {
            self.nonfixed.remove(&seq);
        } else {
            self.nonfixed.insert(seq);
        }
        if mask_tok > 0 {
            self.mask_cands.insert(seq);
        } else {
            self.mask_cands.remove(&seq);
        }
    }

    /// Append a part to a live content.
    pub(super) fn add_part(&mut self, cid: usize, j: J) {
        let vp = self.vpart(j);
        self.add_vpart(cid, vp);
    }

    pub(super) fn add_vpart(&mut self, cid: usize, vp: VPart) {
        let is_fr = vp.fr.is_some();
        debug_assert_eq!(is_fr, vp.part.is_response());
        let is_fc = vp.part.is_call();
        let snap = vp
            .part
            .text_str()
            .is_some_and(|t| t.contains(crate::replay::gemini::compress::SNAPSHOT_TAG));
        let seq = self.frs.len();
        let (json, est) = (vp.json, vp.est);
        let c = self.content_mut(cid);
        let pidx = c.parts.len();
        let delta_json = json + u64::from(pidx > 0);
        c.json += delta_json;
        c.est += est;
        c.n_fc += usize::from(is_fc);
        c.snapshot |= snap;
        c.parts.push(vp);
        if is_fr {
            // A content's responses are added while it is the newest (or in a head slot,
            // whose parts all come at once): their places follow each other.
            debug_assert!(c.first_fr.is_none_or(|f| f + c.n_fr == seq));
            c.n_fr += 1;
            c.first_fr.get_or_insert(seq);
        }
        let valid = c.valid_split();
        self.total += est;
        self.json.add(cid, json_i(delta_json));
        if !valid {
            self.valid.remove(&cid);
        }
        if is_fr {
            self.frs.push(Fr {
                cid,
                pidx,
                alive: true,
                len: 0,
                tok: 0,
                out: Outcome::default(),
                mask_tok: 0,
            });
            self.tok.push(0);
            self.dest.push(0);
            self.mtok.push(0);
            self.refresh_fr(seq);
        }
    }

    /// Create a live content at a free slot.
    pub(super) fn open_content(&mut self, cid: usize, role: GRole, items: usize) {
        if self.contents.len() <= cid {
            self.contents.resize_with(cid + 1, || None);
        }
        debug_assert!(self.contents[cid].is_none());
        let mut c = VContent::new(role);
        c.items = items;
        let (json, valid) = (c.json, c.valid_split());
        self.contents[cid] = Some(Box::new(c));
        self.json.ensure(cid);
        self.json.set(cid, json_i(json));
        self.live.ensure(cid);
        self.live.set(cid, 1);
        if valid {
            self.valid.insert(cid);
        }
        self.items += items;
    }

    pub(super) fn kill_content(&mut self, cid: usize) {
        let Some(c) = self.contents[cid].take() else {
            return;
        };
        self.json.set(cid, 0);
        self.live.set(cid, 0);
        self.n_invalid -= usize::from(c.invalid);
        self.valid.remove(&cid);
        self.total -= c.est;
        self.items -= c.items;
        for seq in c.first_fr.map_or(0..0, |f| f..f + c.n_fr) {
            self.frs[seq].alive = false;
            self.by_len.remove(&(self.frs[seq].len, seq));
            self.tok.set(seq, 0);
            self.dest.set(seq, 0);
            self.mtok.set(seq, 0);
            self.nonfixed.remove(&seq);
            self.mask_cands.remove(&seq);
        }
    }

    /// Replace one function-response part; returns the change of its estimate.
    pub(super) fn set_fr_part(&mut self, seq: usize, part: Arc<GPart>) -> Est {
        let (cid, pidx) = (self.frs[seq].cid, self.frs[seq].pidx);
        let vp = VPart::shared(part, self.p.w, false);
        debug_assert!(
            vp.fr.is_some(),
            "a function response replaced by another part"
        );
        let c = self.content_mut(cid);
        let old = std::mem::replace(&mut c.parts[pidx], vp);
        let new = &c.parts[pidx];
        let (dj, de) = (json_i(new.json) - json_i(old.json), new.est - old.est);
        c.json = (c.json as i64 + dj) as u64;
        c.est += de;
        self.total += de;
        self.json.add(cid, dj);
        self.refresh_fr(seq);
        de
    }

    pub(super) fn fr_part(&self, seq: usize) -> &Arc<GPart> {
        let f = &self.frs[seq];
        &self.content(f.cid).parts[f.pidx].part
    }

    /// Bring the cached truncation outcomes to the current request's `maxChars`.
    pub(super) fn sync_max_chars(&mut self) {
        let (old, new) = (self.max_chars, self.want_max_chars);
        if old == new {
            return;
        }
        self.max_chars = new;
        if self.p.style == TruncStyle::Lines {
            return;
        }
        // Strings of at most min(old, new) units keep their text under both: same outcome.
        let floor = old.min(new).max(-1);
        let seqs: Vec<usize> = self
            .by_len
            .range(((floor + 1) as u64, 0)..)
            .map(|&(_, seq)| seq)
            .collect();
        for seq in seqs {
            self.refresh_fr(seq);
        }
    }

    /// The reverse-budget pass: the isolated responses truncated where the budget is first
    /// crossed (newest first), and the bound below which every response is truncated.
    pub(super) fn region(&self) -> (Vec<usize>, usize) {
        let budget = self.p.budget as i64;
        let mut counter = 0i64;
        let mut hi = self.frs.len();
        let mut cross = Vec::new();
        loop {
            if counter > budget {
                return (cross, hi);
            }
            let total_hi = self.tok.prefix(hi);
            let y = total_hi - (budget - counter);
            if y <= 0 {
                return (cross, 0);
            }
            let c = self.tok.lower_bound(y) - 1;
            counter += total_hi - self.tok.prefix(c + 1);
            counter += self.frs[c].out.tok as i64;
            cross.push(c);
            hi = c;
        }
    }

    pub(super) fn region_delta(&self, cross: &[usize], below: usize) -> Est {
        let q: i64 = cross.iter().map(|&c| self.dest.get(c)).sum::<i64>() + self.dest.prefix(below);
        Est {
            quarters: q,
            non_ascii: 0,
        }
    }

    /// Truncate every response of the region that changes; returns the touched contents.
    pub(super) fn apply_region(
        &mut self,
        cross: &[usize],
        below: usize,
        mut log: Option<&mut Vec<Undo>>,
    ) -> BTreeSet<usize> {
        let mut seqs: Vec<usize> = cross
            .iter()
            .copied()
            .filter(|s| self.nonfixed.contains(s))
            .collect();
        seqs.extend(self.nonfixed.range(..below).copied());
        let mut touched = BTreeSet::new();
        for seq in seqs {
            let old = Arc::clone(self.fr_part(seq));
            let Some((newp, _)) =
                truncate_gpart(&old, self.max_chars, self.p.style, self.p.w, &mut |n| {
                    Self::save_path(self.p.style, n)
                })
            else {
                continue;
            };
            let delta = self.set_fr_part(seq, Arc::new(newp));
            touched.insert(self.frs[seq].cid);
            if let Some(log) = log.as_deref_mut() {
                log.push(Undo { seq, old, delta });
            }
        }
        touched
    }

    pub(super) fn touched_items(&self, touched: &BTreeSet<usize>) -> usize {
        touched
            .iter()
            .filter_map(|&c| self.contents[c].as_ref())
            .map(|c| c.items)
            .sum()
    }
}
