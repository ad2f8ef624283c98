//! What a request can do to the history: truncate old function responses, compress (split,
//! summarise, install the new head, or undo), and mask tool outputs.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::replay::{Event, EventKind};

use crate::replay::gemini::COMPRESSION_PROMPT_TOKENS;
use crate::replay::gemini::compress::{
    ACK, ANCHOR_MERGE, ANCHOR_NEW, LEGACY_INSTRUCTION, PROBE, SCRATCHPAD,
};
use crate::replay::gemini::content::GRole;
use crate::replay::gemini::estimate::{Est, estimate_token_count_sync, part_est, text_est};
use crate::replay::gemini::json::{J, JsStr};
use crate::replay::gemini::masking::{MaskingConfig, masked_part, part_candidate};
use crate::replay::gemini::part::GPart;

use super::{Gemini, HEAD_SLOTS, Undo, VContent, VPart, memo_get, memo_put};

impl Gemini {
    /// CONTENT_TRUNCATED or NOOP, while a failed attempt is remembered.
    pub(super) fn truncate_only(&mut self, prompt: u64) -> Option<Event> {
        self.sync_max_chars();
        let before = self.tokens();
        let (cross, below) = self.region();
        let t = (self.total + self.region_delta(&cross, below)).tokens(self.p.w);
        if t >= prompt {
            self.decision.status = 5;
            return None;
        }
        self.decision.status = 6;
        self.decision.new_tokens = Some(t);
        let changed = cross.iter().filter(|s| self.nonfixed.contains(s)).count()
            + self.nonfixed.range(..below).count();
        let touched = self.apply_region(&cross, below, None);
        debug_assert_eq!(self.tokens(), t);
        let mut e = Event::new(EventKind::Truncate);
        e.summarised = changed;
        e.kept = self.items - self.touched_items(&touched);
        e.tokens_before = before;
        e.tokens_after = self.tokens();
        Some(e)
    }

    /// The first live slot whose content is a valid split point at or after the target, or
    /// the fallback; `None` for "compress everything".
    pub(super) fn split_slot(&self) -> Option<usize> {
        let base = self.json.prefix(self.start);
        let total = self.json.prefix(self.json.len()) - base;
        let target = total as f64 * (1.0 - self.p.preserve);
        let need = target.ceil().max(0.0) as i64;
        let k = self.json.lower_bound(base + need).max(self.start);
        if let Some(&s) = self.valid.range(k..).next() {
            return Some(s);
        }
        if self.plain_model_last() {
            return None;
        }
        Some(
            self.valid
                .range(..k)
                .next_back()
                .copied()
                .unwrap_or(self.start),
        )
    }

    pub(super) fn plain_model_last(&self) -> bool {
        self.last
            .map(|l| self.content(l))
            .is_some_and(|c| c.role == GRole::Model && c.n_fc == 0)
    }

    /// One automatic compression attempt (normal mode).
    pub(super) fn compress(&mut self, prompt: u64) -> Option<Event> {
        let w = self.p.w;
        // Split 0 (NOOP) needs no truncation pass: only the first content is a valid point
        // and everything cannot be compressed.
        self.decision.status = 5;
        if !self.plain_model_last() && self.valid.range(self.start + 1..).next().is_none() {
            return None;
        }
        self.sync_max_chars();
        let before = self.tokens();
        let (cross, below) = self.region();
        let mut log = Vec::new();
        self.apply_region(&cross, below, Some(&mut log));
        let split = self.split_slot();
        let end = split.unwrap_or(self.next_id);
        let live_end = end.min(self.contents.len());
        let first_live = (self.start..live_end).find(|&c| self.contents[c].is_some());
        if split.is_some() && first_live.is_none_or(|f| f >= end) {
            self.undo(log);
            return None;
        }
        let split_index = self.live.prefix(end.min(self.live.len())) as usize;
        let live_total = self.live.prefix(self.live.len()) as usize;
        self.decision.split = Some(split_index);
        self.decision.kept = Some(live_total - split_index);
        // The summarised prefix, as truncated and as it was.
        let mut est_trunc = Est::ZERO;
        let mut items = 0;
        let mut snapshot = false;
        for c in self.contents[self.start..live_end].iter().flatten() {
            est_trunc += c.est;
            items += c.items;
            snapshot |= c.snapshot;
        }
        let undone: Est = log
            .iter()
            .filter(|u| self.frs[u.seq].cid < end)
            .map(|u| u.delta)
            .sum();
        let est_orig = est_trunc - undone;
        let for_summarizer = if est_orig.tokens(w) < self.p.limit {
            est_orig
        } else {
            est_trunc
        };
        let summary = Est::quarters(4 * self.p.summary_tokens);
        let input = if self.p.probe {
            let anchor = if snapshot { ANCHOR_MERGE } else { ANCHOR_NEW };
            let instruction = text_est(&JsStr::Text(format!("{anchor}{SCRATCHPAD}")), w);
            let probe = text_est(&JsStr::from(PROBE), w);
            (for_summarizer + instruction).tokens(w)
                + (for_summarizer + summary + probe).tokens(w)
                + 2 * COMPRESSION_PROMPT_TOKENS
        } else {
            let instruction = text_est(&JsStr::from(LEGACY_INSTRUCTION), w);
            (for_summarizer + instruction).tokens(w) + COMPRESSION_PROMPT_TOKENS
        };
        let env_est: Est = self.env.iter().flatten().map(|j| part_est(j, w)).sum();
        let ack = text_est(&JsStr::from(ACK), w);
        let new_tokens = (env_est + summary + ack + (self.total - est_trunc)).tokens(w);
        let mut e = Event::new(EventKind::Compress);
        e.summarised = items;
        e.kept = self.items - items;
        e.tokens_before = before;
        e.summariser_input = input;
        e.summariser_output = self.summariser_calls() * self.p.summary_tokens;
        self.decision.new_tokens = Some(new_tokens);
        if new_tokens > prompt {
            self.decision.status = 2;
            self.undo(log);
            self.failed = true;
            e.kind = EventKind::Failed;
            e.tokens_after = before;
            return Some(e);
        }
        self.decision.status = 1;
        for cid in self.start..live_end {
            self.kill_content(cid);
        }
        self.install_head(end);
        debug_assert_eq!(self.tokens(), new_tokens);
        e.tokens_after = self.tokens();
        Some(e)
    }

    /// `/compress` (`tryCompressChat(force=true)`, spec §1.4, §1.8): no threshold, and a
    /// remembered inflated attempt neither turns it into a truncation nor is set by its own
    /// inflation; a success re-creates the chat, which forgets the failure.
    pub(super) fn compress_forced(&mut self, prompt: u64) -> Option<Event> {
        self.decision = super::Decision {
            prompt,
            status: 5,
            ..super::Decision::default()
        };
        // An empty history is a NOOP.
        self.last?;
        if self.p.summary_tokens == 0 {
            self.decision.status = 4;
            return None;
        }
        let (limit, cap) = (self.p.limit, self.p.truncate_threshold);
        self.want_max_chars = super::max_chars(limit, prompt, cap);
        let exact = super::exact_max_chars(limit, prompt, cap);
        let failed = std::mem::replace(&mut self.failed, false);
        let e = if self.n_invalid > 0 || exact < 1 {
            self.compress_curated(prompt, exact, true)
        } else {
            self.compress(prompt)
        };
        self.failed = failed && e.as_ref().is_none_or(|e| e.kind != EventKind::Compress);
        e
    }

    /// Summariser calls per compression: the summary, then (v0.26+) the verification probe.
    fn summariser_calls(&self) -> u64 {
        if self.p.probe { 2 } else { 1 }
    }

    pub(super) fn undo(&mut self, log: Vec<Undo>) {
        for u in log.into_iter().rev() {
            self.set_fr_part(u.seq, u.old);
        }
    }

    /// Put [environment, snapshot, acknowledgement] in the free slots before `end`.
    pub(super) fn install_head(&mut self, end: usize) {
        let summary = J::obj(vec![(
            "text",
            J::Str(JsStr::Filler(4 * self.p.summary_tokens as usize)),
        )]);
        let ack = J::obj(vec![("text", J::str(ACK))]);
        let mut head: Vec<(GRole, Vec<J>, usize)> = Vec::new();
        let env = self.env.clone();
        match (env, self.p.coalesce) {
            (Some(mut env), true) => {
                env.push(summary);
                head.push((GRole::User, env, 2));
            }
            (Some(env), false) => {
                head.push((GRole::User, env, 1));
                head.push((GRole::User, vec![summary], 1));
            }
            (None, _) => head.push((GRole::User, vec![summary], 1)),
        }
        head.push((GRole::Model, vec![ack], 1));
        // `end` is a pushed content's slot or the next one, every slot before it free: at
        // least the `HEAD_SLOTS` left at the start.
        debug_assert!(end >= self.head_end && head.len() <= HEAD_SLOTS);
        let first = end - head.len();
        self.head_end = end;
        let everything = end >= self.next_id;
        for (k, (role, parts, items)) in head.into_iter().enumerate() {
            let cid = first + k;
            self.open_content(cid, role, items);
            for j in parts {
                self.add_part(cid, j);
            }
            if role == GRole::User {
                self.content_mut(cid).snapshot = true;
            }
        }
        self.start = first;
        if everything {
            self.last = Some(end - 1);
        }
    }

    /// A function response masked, with its new estimate; `None` when it cannot be.
    pub(super) fn masked(&self, seq: usize) -> Option<(Arc<GPart>, u64)> {
        let part = self.fr_part(seq);
        if !part_candidate(part) {
            return None;
        }
        let masked = masked_part(&part.to_j(), &self.files);
        let new_tok = estimate_token_count_sync(std::slice::from_ref(&masked), self.p.w);
        Some((Arc::new(GPart::from_j(masked)), new_tok))
    }

    /// Tool-output masking after the compression check.
    pub(super) fn mask(&mut self, cfg: MaskingConfig) -> Option<Event> {
        let last = self.last?;
        let end = if cfg.protect_latest_turn {
            self.content(last).first_fr.unwrap_or(self.frs.len())
        } else {
            self.frs.len()
        };
        let sum = self.mtok.prefix(end);
        if sum <= cfg.protection as i64 {
            return None;
        }
        let c = self.mtok.lower_bound(sum - cfg.protection as i64) - 1;
        if self.mtok.prefix(c + 1) < cfg.min_prunable as i64 {
            return None;
        }
        let before = self.tokens();
        let mut count = 0;
        let mut touched = BTreeSet::new();
        let seqs: Vec<usize> = self.mask_cands.range(..=c).rev().copied().collect();
        let key = self.p.w.key();
        for seq in seqs {
            let memo = {
                let f = &self.frs[seq];
                self.content(f.cid).parts[f.pidx].memo().cloned()
            };
            let cached = memo.as_ref().and_then(|m| memo_get(&m.masked, &key));
            let masked = match cached {
                Some(masked) => masked,
                None => {
                    let masked = self.masked(seq);
                    if let Some(m) = &memo {
                        memo_put(&m.masked, key, masked.clone());
                    }
                    masked
                }
            };
            let Some((masked, new_tok)) = masked else {
                self.mask_cands.remove(&seq);
                continue;
            };
            if self.frs[seq].mask_tok > new_tok {
                self.decision.tokens_saved += self.frs[seq].mask_tok - new_tok;
                self.set_fr_part(seq, masked);
                touched.insert(self.frs[seq].cid);
                count += 1;
            } else {
                self.mask_cands.remove(&seq);
            }
        }
        if count == 0 {
            return None;
        }
        self.decision.masked = count;
        let mut e = Event::new(EventKind::Mask);
        e.summarised = count;
        e.kept = self.items - self.touched_items(&touched);
        e.tokens_before = before;
        e.tokens_after = self.tokens();
        Some(e)
    }

    /// The curated history `ChatCompressionService` sees (`getHistory(true)`): the contents
    /// without runs of model turns that hold an invalid one, turns merged again; with the
    /// history items each stands for. O(n): only used while an invalid turn is live.
    pub(super) fn curated(&self) -> Vec<(GRole, Vec<J>, usize)> {
        let live: Vec<&VContent> = self.contents.iter().flatten().map(|c| &**c).collect();
        let mut out: Vec<(GRole, Vec<J>, usize)> = Vec::new();
        let mut i = 0;
        while i < live.len() {
            let run_start = i;
            if live[i].role == GRole::User {
                i += 1;
            } else {
                while i < live.len() && live[i].role == GRole::Model {
                    i += 1;
                }
                if live[run_start..i].iter().any(|c| c.invalid) {
                    continue;
                }
            }
            for c in &live[run_start..i] {
                let parts: Vec<J> = c.parts.iter().map(|p| p.part.to_j()).collect();
                match out.last_mut() {
                    Some(last) if self.p.coalesce && last.0 == c.role => {
                        last.1.extend(parts);
                        last.2 += c.items;
                    }
                    _ => out.push((c.role, parts, c.items)),
                }
            }
        }
        out
    }

    /// Replace the whole history (after a compression or truncation on the curated history).
    pub(super) fn rebuild(&mut self, contents: Vec<(GRole, Vec<J>, usize)>) {
        for cid in self.start..self.contents.len() {
            self.kill_content(cid);
        }
        self.start = self.next_id;
        self.last = None;
        for (role, parts, items) in contents {
            let parts: Vec<VPart> = parts.into_iter().map(|j| self.vpart(j)).collect();
            self.append(role, parts, items, false);
        }
    }

    /// The compression check on the curated history when it differs from the managed one
    /// (an invalid model turn is live): the pure port, then the result installed.
    pub(super) fn compress_curated(
        &mut self,
        prompt: u64,
        max_chars: i64,
        force: bool,
    ) -> Option<Event> {
        use crate::replay::gemini::compress::{CompressOptions, CompressionStatus, compress};
        self.curated_passes += 1;
        let curated = self.curated();
        let js: Vec<J> = curated
            .iter()
            .map(|(r, parts, _)| {
                crate::replay::gemini::compress::content(r.as_str(), parts.clone())
            })
            .collect();
        let env_text = self
            .env
            .as_ref()
            .and_then(|e| e.first())
            .and_then(|p| p.get("text"))
            .and_then(J::as_str)
            .cloned()
            .unwrap_or_default();
        let summary = JsStr::Filler(4 * self.p.summary_tokens as usize);
        let o = CompressOptions {
            force,
            threshold: self.p.threshold,
            token_limit: self.p.limit,
            has_failed: self.failed,
            budget: self.p.budget,
            max_chars,
            style: self.p.style,
            preserve: self.p.preserve,
            estimator: self.p.w,
        };
        let before = self.tokens();
        let out = compress(
            &js,
            prompt,
            &o,
            &env_text,
            Some(&summary),
            Some(&summary),
            &mut |n| Self::save_path(self.p.style, n),
        );
        let total_items = self.items;
        let split = out.calls.first().map(|c| c.len() - 1);
        self.decision.split = split;
        self.decision.kept = split.map(|s| curated.len() - s);
        let kept_items = |s: usize| curated[s..].iter().map(|c| c.2).sum::<usize>();
        let mut e = Event::new(EventKind::Compress);
        e.tokens_before = before;
        match out.status {
            CompressionStatus::Compressed => {
                self.decision.status = 1;
                self.decision.new_tokens = Some(out.new);
                let split = split.expect("a compression made its calls");
                let extra = out.new_history.expect("a compressed history");
                let mut contents: Vec<(GRole, Vec<J>, usize)> = Vec::new();
                if let Some(env) = self.env.clone() {
                    contents.push((GRole::User, env, 1));
                }
                let kept = extra.len() - 2;
                for (k, c) in extra.into_iter().enumerate() {
                    let role = match c.get("role").and_then(J::as_str) {
                        Some(r) if r.to_string_lossy() == "model" => GRole::Model,
                        _ => GRole::User,
                    };
                    let parts = c
                        .get("parts")
                        .and_then(J::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let items = if k < 2 { 1 } else { curated[split + k - 2].2 };
                    contents.push((role, parts, items));
                }
                debug_assert_eq!(kept, curated.len() - split);
                e.summarised = total_items - kept_items(split);
                e.kept = kept_items(split);
                self.rebuild(contents);
                self.snapshot_head();
            }
            CompressionStatus::FailedInflatedTokenCount => {
                self.decision.status = 2;
                self.decision.new_tokens = Some(out.new);
                self.failed = true;
                e.kind = EventKind::Failed;
                let split = split.expect("an attempt made its calls");
                e.summarised = total_items - kept_items(split);
                e.kept = kept_items(split);
                e.tokens_after = before;
                return Some(e);
            }
            CompressionStatus::ContentTruncated => {
                self.decision.status = 6;
                self.decision.new_tokens = Some(out.new);
                let truncated = out.new_history.expect("a truncated history");
                let contents: Vec<(GRole, Vec<J>, usize)> = truncated
                    .into_iter()
                    .zip(&curated)
                    .map(|(c, (r, _, items))| {
                        let parts = c
                            .get("parts")
                            .and_then(J::as_array)
                            .cloned()
                            .unwrap_or_default();
                        (*r, parts, *items)
                    })
                    .collect();
                e.kind = EventKind::Truncate;
                e.kept = total_items;
                self.rebuild(contents);
            }
            CompressionStatus::FailedEmptySummary => {
                self.decision.status = 4;
                return None;
            }
            CompressionStatus::Noop | CompressionStatus::FailedTokenCountError => {
                self.decision.status = 5;
                return None;
            }
        }
        e.summariser_output = if e.kind == EventKind::Compress {
            self.summariser_calls() * self.p.summary_tokens
        } else {
            0
        };
        if e.kind == EventKind::Compress {
            let w = self.p.w;
            // Before v0.26 the one call carried the older instruction; the port sends the
            // newer one, which differs by a few tokens.
            e.summariser_input = out
                .calls
                .iter()
                .take(self.summariser_calls() as usize)
                .map(|c| {
                    let parts: Vec<J> = c
                        .iter()
                        .filter_map(|x| x.get("parts").and_then(J::as_array))
                        .flatten()
                        .cloned()
                        .collect();
                    estimate_token_count_sync(&parts, w)
                })
                .sum::<u64>()
                + self.summariser_calls() * COMPRESSION_PROMPT_TOKENS;
        }
        e.tokens_after = self.tokens();
        Some(e)
    }

    /// After a rebuilt compression: the user contents before the acknowledgement hold a
    /// snapshot (for the merge instruction of the next summary).
    pub(super) fn snapshot_head(&mut self) {
        let mut cid = self.start;
        while cid < self.contents.len() {
            match self.contents[cid].as_mut() {
                Some(c) if c.role == GRole::User => c.snapshot = true,
                Some(_) => break,
                None => {}
            }
            cid += 1;
        }
    }
}
