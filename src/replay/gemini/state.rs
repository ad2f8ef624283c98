//! The incremental replay of Gemini's per-request pipeline (see the module doc of
//! [`super`] for the rules and the complexity argument).

use std::collections::BTreeSet;

use crate::replay::{Event, EventKind, HistoryItem, RequestInfo, Strategy, StrategyContext};

use super::compress::{ACK, ANCHOR_MERGE, ANCHOR_NEW, PROBE, SCRATCHPAD};
use super::content::{GRole, content_overhead, convert};
use super::estimate::{Est, estimate_token_count_sync, part_est, text_est, text_est_of};
use super::fenwick::Fenwick;
use super::json::{J, JsStr, json_len};
use super::masking::{MaskFiles, MaskingConfig, candidate, masked_part, tool_output_content};
use super::truncate::{measured, saved_output_path, truncate_part};
use super::{
    COMPRESSION_PROMPT_TOKENS, PLACEHOLDER_NOW_MS, PLACEHOLDER_PROJECT_TEMP_DIR,
    PLACEHOLDER_RANDOM_SUFFIX, PLACEHOLDER_SESSION_ID, PLACEHOLDER_TRUNCATION_ID,
};

/// Content slots are spaced so a compression can put up to three new contents (environment,
/// snapshot, acknowledgement) in front of the first kept one without renumbering.
const STRIDE: usize = 4;

#[derive(Debug, Clone)]
pub struct Params {
    pub threshold: f64,
    pub preserve: f64,
    pub budget: u64,
    pub truncate_threshold: u64,
    pub masking: Option<MaskingConfig>,
    pub coalesce: bool,
    pub w: f64,
    pub limit: u64,
    pub summary_tokens: u64,
}

impl Params {
    pub fn from_ctx(ctx: &StrategyContext) -> Params {
        let s = &ctx.settings;
        Params {
            threshold: s.num("threshold"),
            preserve: s.num("preserve_fraction"),
            budget: s.int("function_response_budget"),
            truncate_threshold: s.int("truncate_tool_output_threshold"),
            masking: s.flag("masking").then(|| MaskingConfig {
                protection: s.int("masking_protection_threshold"),
                min_prunable: s.int("masking_min_prunable"),
                protect_latest_turn: s.flag("masking_protect_latest_turn"),
            }),
            coalesce: s.flag("coalesce_turns"),
            w: s.num("non_ascii_weight"),
            limit: ctx.limits.context_window,
            summary_tokens: ctx.summary_tokens,
        }
    }
}

#[derive(Debug, Clone)]
struct VPart {
    j: J,
    json: u64,
    est: Est,
    fr: Option<usize>,
}

#[derive(Debug, Clone)]
struct VContent {
    role: GRole,
    parts: Vec<VPart>,
    json: u64,
    est: Est,
    /// History items merged into it (a synthetic snapshot or acknowledgement counts as one).
    items: usize,
    n_fr: usize,
    n_fc: usize,
    /// A text part contains `<state_snapshot>`.
    snapshot: bool,
    first_fr: Option<usize>,
}

impl VContent {
    fn new(role: GRole) -> VContent {
        VContent {
            role,
            parts: Vec::new(),
            json: content_overhead(role),
            est: Est::ZERO,
            items: 0,
            n_fr: 0,
            n_fc: 0,
            snapshot: false,
            first_fr: None,
        }
    }

    fn valid_split(&self) -> bool {
        self.role == GRole::User && self.n_fr == 0
    }
}

/// What truncating a function response once more would do, under the current `maxChars`.
#[derive(Debug, Clone, Copy, Default)]
struct Outcome {
    /// The result equals the part (or cannot be saved): nothing changes.
    fixed: bool,
    /// The reverse-budget counter grows by this when it is truncated.
    tok: u64,
    /// Change of the part's estimate, in quarter-tokens.
    dest: i64,
}

#[derive(Debug, Clone)]
struct Fr {
    cid: usize,
    pidx: usize,
    alive: bool,
    /// UTF-16 length of the string the reverse budget measures.
    len: u64,
    /// Text-heuristic tokens of that string.
    tok: u64,
    out: Outcome,
    /// `estimateTokenCountSync([part])` when masking may take it, else 0.
    mask_tok: u64,
}

struct Undo {
    seq: usize,
    old: J,
    delta: Est,
}

pub struct Gemini {
    p: Params,
    contents: Vec<Option<VContent>>,
    /// Slot of the first live content (`next_id` when there is none).
    start: usize,
    next_id: usize,
    last: Option<usize>,
    json: Fenwick,
    valid: BTreeSet<usize>,
    total: Est,
    full: Est,
    items: usize,
    env: Option<Vec<J>>,
    pushed: bool,
    frs: Vec<Fr>,
    tok: Fenwick,
    dest: Fenwick,
    mtok: Fenwick,
    nonfixed: BTreeSet<usize>,
    mask_cands: BTreeSet<usize>,
    /// Live function responses by the length of their measured string: a change of `maxChars`
    /// only affects outcomes of strings longer than the smaller of the two values.
    by_len: BTreeSet<(u64, usize)>,
    /// The `maxChars` the cached outcomes were computed with.
    max_chars: i64,
    /// The `maxChars` of the current request (outcomes follow lazily, when a pass needs them).
    want_max_chars: i64,
    failed: bool,
    files: MaskFiles,
}

/// `maxChars = min(cap, 4 × (limit − P))`, rounded down to a power of two (at least 1) when
/// below the cap: that only happens when the previous prompt came within cap / 4 tokens of the
/// window, where Gemini aborts the turn (ContextWindowWillOverflow); every cached truncation
/// outcome depends on it, so the rounding bounds how often they are recomputed (at most
/// log₂ cap + 1 values), and it keeps the replay away from JavaScript's slicing with a zero or
/// negative `maxChars`, which lengthens outputs instead of cutting them.
pub fn max_chars(limit: u64, prompt: u64, cap: u64) -> i64 {
    let m = 4 * (limit as i64 - prompt as i64);
    let cap = cap as i64;
    if m >= cap {
        cap
    } else {
        let m = m.max(1) as u64;
        1i64 << (63 - m.leading_zeros())
    }
}

fn json_i(x: u64) -> i64 {
    x as i64
}

impl Gemini {
    pub fn new(ctx: &StrategyContext) -> Self {
        Gemini::with_params(Params::from_ctx(ctx))
    }

    pub fn with_params(p: Params) -> Self {
        let max_chars = (p.truncate_threshold as i64).min(4 * p.limit as i64);
        Gemini {
            p,
            contents: Vec::new(),
            start: 0,
            next_id: 0,
            last: None,
            json: Fenwick::default(),
            valid: BTreeSet::new(),
            total: Est::ZERO,
            full: Est::ZERO,
            items: 0,
            env: None,
            pushed: false,
            frs: Vec::new(),
            tok: Fenwick::default(),
            dest: Fenwick::default(),
            mtok: Fenwick::default(),
            nonfixed: BTreeSet::new(),
            mask_cands: BTreeSet::new(),
            by_len: BTreeSet::new(),
            max_chars,
            want_max_chars: max_chars,
            failed: false,
            files: MaskFiles {
                project_temp_dir: PLACEHOLDER_PROJECT_TEMP_DIR.to_string(),
                session_id: Some(PLACEHOLDER_SESSION_ID.to_string()),
                random_suffix: PLACEHOLDER_RANDOM_SUFFIX.to_string(),
                now_ms: PLACEHOLDER_NOW_MS.to_string(),
            },
        }
    }

    /// The managed history as Gemini contents (for tests and debugging; O(n)).
    pub fn history(&self) -> Vec<J> {
        self.contents
            .iter()
            .flatten()
            .map(|c| {
                super::compress::content(
                    c.role.as_str(),
                    c.parts.iter().map(|p| p.j.clone()).collect(),
                )
            })
            .collect()
    }

    /// Whether an inflated summary switched the replay to truncation only.
    pub fn failed(&self) -> bool {
        self.failed
    }

    fn vpart(&self, j: J) -> VPart {
        VPart {
            json: json_len(&j),
            est: part_est(&j, self.p.w),
            j,
            fr: None,
        }
    }

    fn content(&self, cid: usize) -> &VContent {
        self.contents[cid].as_ref().expect("live content")
    }

    fn content_mut(&mut self, cid: usize) -> &mut VContent {
        self.contents[cid].as_mut().expect("live content")
    }

    fn save_path(name: Option<&str>) -> Option<String> {
        name.map(|t| {
            saved_output_path(
                PLACEHOLDER_PROJECT_TEMP_DIR,
                t,
                PLACEHOLDER_TRUNCATION_ID,
                None,
            )
        })
    }

    /// Recompute a function response's cached figures from its part.
    fn refresh_fr(&mut self, seq: usize) {
        let (cid, pidx) = (self.frs[seq].cid, self.frs[seq].pidx);
        let w = self.p.w;
        let m = self.max_chars;
        let part = &self.contents[cid].as_ref().expect("live content").parts[pidx];
        let null = J::Null;
        let fr_j = part.j.get("functionResponse").unwrap_or(&null);
        let text = measured(fr_j.get("response"));
        let stats = text.as_ref().map(|s| s.stats());
        let len = stats.map_or(0, |s| s.units);
        let tok = stats.map_or(0, |s| text_est_of(s).tokens(w));
        // Truncating again changes nothing once an output is short enough and already a plain
        // `{output}` (the common case, decided without building the result), when it cannot be
        // saved, or when its nested truncation has reached its fixed point.
        let plain = matches!(&part.j, J::Obj(e) if e.len() == 1)
            && matches!(fr_j.get("response"), Some(J::Obj(r)) if r.len() == 1 && r[0].0 == "output" && matches!(r[0].1, J::Str(_)));
        let out = if plain && len as i64 <= m {
            Outcome {
                fixed: true,
                tok,
                dest: 0,
            }
        } else {
            match truncate_part(fr_j, m, w, &mut Self::save_path) {
                None => Outcome {
                    fixed: true,
                    tok,
                    dest: 0,
                },
                Some((newp, t)) if newp == part.j => Outcome {
                    fixed: true,
                    tok: t,
                    dest: 0,
                },
                Some((newp, t)) => Outcome {
                    fixed: false,
                    tok: t,
                    dest: part_est(&newp, w).quarters - part.est.quarters,
                },
            }
        };
        // estimateTokenCountSync([part]) is this part's own estimate, floored.
        let mask_tok = if candidate(&part.j) {
            part.est.tokens(w)
        } else {
            0
        };
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
    fn add_part(&mut self, cid: usize, j: J) {
        let vp = self.vpart(j);
        self.add_vpart(cid, vp);
    }

    fn add_vpart(&mut self, cid: usize, mut vp: VPart) {
        let is_fr = vp.j.get("functionResponse").is_some_and(J::truthy);
        let is_fc = vp.j.get("functionCall").is_some_and(J::truthy);
        let snap = matches!(vp.j.get("text"), Some(J::Str(t)) if t.contains(super::compress::SNAPSHOT_TAG));
        let seq = self.frs.len();
        if is_fr {
            vp.fr = Some(seq);
        }
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
    fn open_content(&mut self, cid: usize, role: GRole, items: usize) {
        if self.contents.len() <= cid {
            self.contents.resize_with(cid + 1, || None);
        }
        debug_assert!(self.contents[cid].is_none());
        let mut c = VContent::new(role);
        c.items = items;
        let (json, valid) = (c.json, c.valid_split());
        self.contents[cid] = Some(c);
        self.json.ensure(cid);
        self.json.set(cid, json_i(json));
        if valid {
            self.valid.insert(cid);
        }
        self.items += items;
    }

    fn kill_content(&mut self, cid: usize) {
        let Some(c) = self.contents[cid].take() else {
            return;
        };
        self.json.set(cid, 0);
        self.valid.remove(&cid);
        self.total -= c.est;
        self.items -= c.items;
        for p in &c.parts {
            if let Some(seq) = p.fr {
                self.frs[seq].alive = false;
                self.by_len.remove(&(self.frs[seq].len, seq));
                self.tok.set(seq, 0);
                self.dest.set(seq, 0);
                self.mtok.set(seq, 0);
                self.nonfixed.remove(&seq);
                self.mask_cands.remove(&seq);
            }
        }
    }

    /// Replace one function-response part; returns the change of its estimate.
    fn set_fr_part(&mut self, seq: usize, j: J) -> Est {
        let (cid, pidx) = (self.frs[seq].cid, self.frs[seq].pidx);
        let mut vp = self.vpart(j);
        vp.fr = Some(seq);
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

    fn part_j(&self, seq: usize) -> &J {
        let f = &self.frs[seq];
        &self.content(f.cid).parts[f.pidx].j
    }

    /// Bring the cached truncation outcomes to the current request's `maxChars`.
    fn sync_max_chars(&mut self) {
        let (old, new) = (self.max_chars, self.want_max_chars);
        if old == new {
            return;
        }
        self.max_chars = new;
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
    fn region(&self) -> (Vec<usize>, usize) {
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

    fn region_delta(&self, cross: &[usize], below: usize) -> Est {
        let q: i64 = cross.iter().map(|&c| self.dest.get(c)).sum::<i64>() + self.dest.prefix(below);
        Est {
            quarters: q,
            non_ascii: 0,
        }
    }

    /// Truncate every response of the region that changes; returns the touched contents.
    fn apply_region(
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
            let old = self.part_j(seq).clone();
            let fr = old.get("functionResponse").cloned().unwrap_or(J::Null);
            let Some((newp, _)) =
                truncate_part(&fr, self.max_chars, self.p.w, &mut Self::save_path)
            else {
                continue;
            };
            let delta = self.set_fr_part(seq, newp);
            touched.insert(self.frs[seq].cid);
            if let Some(log) = log.as_deref_mut() {
                log.push(Undo { seq, old, delta });
            }
        }
        touched
    }

    fn touched_items(&self, touched: &BTreeSet<usize>) -> usize {
        touched
            .iter()
            .filter_map(|&c| self.contents[c].as_ref())
            .map(|c| c.items)
            .sum()
    }

    fn tokens(&self) -> u64 {
        self.total.tokens(self.p.w)
    }

    /// CONTENT_TRUNCATED or NOOP, while a failed attempt is remembered.
    fn truncate_only(&mut self, prompt: u64) -> Option<Event> {
        self.sync_max_chars();
        let before = self.tokens();
        let (cross, below) = self.region();
        let t = (self.total + self.region_delta(&cross, below)).tokens(self.p.w);
        if t >= prompt {
            return None;
        }
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
    fn split_slot(&self) -> Option<usize> {
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

    fn plain_model_last(&self) -> bool {
        self.last
            .map(|l| self.content(l))
            .is_some_and(|c| c.role == GRole::Model && c.n_fc == 0)
    }

    /// One automatic compression attempt (normal mode).
    fn compress(&mut self, prompt: u64) -> Option<Event> {
        let w = self.p.w;
        // Split 0 (NOOP) needs no truncation pass: only the first content is a valid point
        // and everything cannot be compressed.
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
        let anchor = if snapshot { ANCHOR_MERGE } else { ANCHOR_NEW };
        let instruction = text_est(&JsStr::Text(format!("{anchor}{SCRATCHPAD}")));
        let summary = Est::quarters(4 * self.p.summary_tokens);
        let probe = text_est(&JsStr::from(PROBE));
        let input = (for_summarizer + instruction).tokens(w)
            + (for_summarizer + summary + probe).tokens(w)
            + 2 * COMPRESSION_PROMPT_TOKENS;
        let env_est: Est = self.env.iter().flatten().map(|j| part_est(j, w)).sum();
        let ack = text_est(&JsStr::from(ACK));
        let new_tokens = (env_est + summary + ack + (self.total - est_trunc)).tokens(w);
        let mut e = Event::new(EventKind::Compress);
        e.summarised = items;
        e.kept = self.items - items;
        e.tokens_before = before;
        e.summariser_input = input;
        e.summariser_output = 2 * self.p.summary_tokens;
        if new_tokens > prompt {
            self.undo(log);
            self.failed = true;
            e.kind = EventKind::Failed;
            e.tokens_after = before;
            return Some(e);
        }
        for cid in self.start..live_end {
            self.kill_content(cid);
        }
        self.install_head(end);
        debug_assert_eq!(self.tokens(), new_tokens);
        e.tokens_after = self.tokens();
        Some(e)
    }

    fn undo(&mut self, log: Vec<Undo>) {
        for u in log.into_iter().rev() {
            self.set_fr_part(u.seq, u.old);
        }
    }

    /// Put [environment, snapshot, acknowledgement] in the free slots before `end`.
    fn install_head(&mut self, end: usize) {
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
        // `end` is a pushed content's slot (a multiple of STRIDE) or the next one.
        debug_assert_eq!(end % STRIDE, 0);
        let first = end - head.len();
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

    /// Tool-output masking after the compression check.
    fn mask(&mut self, cfg: MaskingConfig) -> Option<Event> {
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
        for seq in seqs {
            let part = self.part_j(seq).clone();
            let content = part
                .get("functionResponse")
                .and_then(tool_output_content)
                .filter(|_| candidate(&part));
            let Some(content) = content else {
                self.mask_cands.remove(&seq);
                continue;
            };
            let masked = masked_part(&part, &content, &self.files);
            let new_tok = estimate_token_count_sync(std::slice::from_ref(&masked), self.p.w);
            if self.frs[seq].mask_tok > new_tok {
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
        let mut e = Event::new(EventKind::Mask);
        e.summarised = count;
        e.kept = self.items - self.touched_items(&touched);
        e.tokens_before = before;
        e.tokens_after = self.tokens();
        Some(e)
    }
}

impl Strategy for Gemini {
    fn push(&mut self, item: &HistoryItem) {
        let first = !self.pushed;
        self.pushed = true;
        let Some((role, parts)) = convert(item, self.p.coalesce) else {
            return;
        };
        let parts: Vec<VPart> = parts.into_iter().map(|j| self.vpart(j)).collect();
        self.full += parts.iter().map(|p| p.est).sum::<Est>();
        if first && item.is_context {
            self.env = Some(parts.iter().map(|p| p.j.clone()).collect());
        }
        let merge = self
            .last
            .filter(|_| self.p.coalesce)
            .filter(|&l| self.content(l).role == role);
        let cid = match merge {
            Some(l) => {
                self.content_mut(l).items += 1;
                self.items += 1;
                l
            }
            None => {
                let cid = self.next_id;
                self.next_id += STRIDE;
                if self.last.is_none() {
                    self.start = cid;
                }
                self.open_content(cid, role, 1);
                self.last = Some(cid);
                cid
            }
        };
        for p in parts {
            self.add_vpart(cid, p);
        }
    }

    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event> {
        let mut events = Vec::new();
        let prompt = req.prev_prompt.unwrap_or_else(|| self.tokens());
        let limit = self.p.limit;
        if self.last.is_some() && prompt as f64 >= self.p.threshold * limit as f64 {
            self.want_max_chars = max_chars(limit, prompt, self.p.truncate_threshold);
            let e = if self.failed {
                self.truncate_only(prompt)
            } else if self.p.summary_tokens > 0 {
                self.compress(prompt)
            } else {
                None
            };
            events.extend(e);
        }
        if let Some(cfg) = self.p.masking {
            events.extend(self.mask(cfg));
        }
        events
    }

    fn full_tokens(&self) -> u64 {
        self.full.tokens(self.p.w)
    }

    fn context_tokens(&self) -> u64 {
        self.tokens()
    }
}
