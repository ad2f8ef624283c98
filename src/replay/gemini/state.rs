//! The incremental replay of Gemini's per-request pipeline (see the module doc of
//! [`super`] for the rules and the complexity argument).

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use crate::replay::{
    Event, EventKind, HistoryItem, ReplayInput, RequestInfo, Strategy, StrategyContext,
};

use super::compress::{ACK, ANCHOR_MERGE, ANCHOR_NEW, PROBE, SCRATCHPAD};
use super::content::{Converted, GRole, content_overhead, convert_shared};
use super::estimate::{
    Est, PartSizes, estimate_token_count_sync, part_est, part_sizes, text_est, text_est_of,
};
use super::fenwick::Fenwick;
use super::json::{J, JsStr, StrStats};
use super::masking::{MaskFiles, MaskingConfig, candidate, masked_part};
use super::resume::Resumed;
use super::truncate::{saved_output_path, truncate_part};
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
            // 0 is "as the era": the engine resolves it from the file; anyone driving the
            // strategy directly gets the newest default.
            threshold: match s.num("threshold") {
                t if t > 0.0 => t,
                _ => super::compress::DEFAULT_COMPRESSION_TOKEN_THRESHOLD,
            },
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
            // The summary is materialised as text: `--summary-tokens 10^12` must not become a
            // 4-TB string.
            summary_tokens: ctx.summary_tokens.min(MAX_SUMMARY_TOKENS),
        }
    }
}

/// The largest synthetic summary the replay writes: 1,048,576 tokens, the largest token limit
/// of any Gemini model (a longer summary could never be sent).
const MAX_SUMMARY_TOKENS: u64 = 1 << 20;

#[derive(Debug, Clone)]
struct VPart {
    /// Shared: the replays of a session take a sized part without copying it; a part the
    /// replay rewrites is a new one.
    j: Arc<J>,
    json: u64,
    est: Est,
    /// The stats of the text a function response's budget measures (see [`PartSizes`]).
    measured: Option<StrStats>,
    fr: Option<usize>,
    /// For a part as the session recorded it: what the session's replays found out about it
    /// (shared by them). A part the replay rewrote has none.
    memo: Option<Arc<PartMemo>>,
}

impl VPart {
    fn of(j: J, w: f64) -> VPart {
        VPart::shared(Arc::new(j), w)
    }

    /// A part sized without copying it: its tree stays shared with whatever else holds it.
    fn shared(j: Arc<J>, w: f64) -> VPart {
        let PartSizes {
            json,
            est,
            measured,
        } = part_sizes(&j, w);
        VPart {
            json,
            est,
            measured,
            j,
            fr: None,
            memo: None,
        }
    }
}

/// What a replay computes about a recorded function response that only depends on the part
/// and on settings a sweep rarely varies, kept for the other replays of the session: its
/// figures under a `maxChars` and weight, and its masked form.
#[derive(Debug, Default)]
struct PartMemo {
    /// `refresh_fr`'s figures by `(maxChars, non_ascii_weight bits)`.
    fr: Memo<(i64, u64), FrFigures>,
    /// The masked part and its estimate by weight; `None` when it cannot be masked.
    masked: Memo<u64, Option<(J, u64)>>,
}

/// Values by key, few of them (one per setting that matters).
type Memo<K, V> = std::sync::Mutex<Vec<(K, V)>>;

#[derive(Debug, Clone, Copy)]
struct FrFigures {
    len: u64,
    tok: u64,
    out: Outcome,
    mask_tok: u64,
}

fn memo_get<K: PartialEq, V: Clone>(m: &Memo<K, V>, k: &K) -> Option<V> {
    let v = m.lock().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone())
}

fn memo_put<K, V>(m: &Memo<K, V>, k: K, v: V) {
    m.lock().unwrap_or_else(|e| e.into_inner()).push((k, v));
}

/// A resumed turn as the history receives it: parts stripped ([`native_parts`]) and sized.
#[derive(Debug)]
pub struct SizedTurn {
    role: GRole,
    parts: Vec<VPart>,
    invalid: bool,
}

impl SizedTurn {
    /// A turn's parts sized; each function response with a memo for the replays that share
    /// it.
    fn of(role: GRole, parts: Vec<Arc<J>>, invalid: bool, w: f64) -> SizedTurn {
        let parts = parts
            .into_iter()
            .map(|j| {
                let mut vp = VPart::shared(j, w);
                if vp.j.get("functionResponse").is_some_and(J::truthy) {
                    vp.memo = Some(Arc::default());
                }
                vp
            })
            .collect();
        SizedTurn {
            role,
            parts,
            invalid,
        }
    }
}

type SizedList = Arc<Vec<Option<SizedTurn>>>;

/// A turn (or item) as the history receives it, before sizing: its role, its parts and whether
/// it is invalid; `None` when it sends nothing.
type Unsized = Option<(GRole, Vec<Arc<J>>, bool)>;

/// A session's history as the Gemini replay receives it, sized once per `(coalesce,
/// non_ascii_weight)` and shared by every replay of it: the calibration and the settings of a
/// sweep start from the same turns, and converting and sizing each part (its JSON length and
/// estimate) again per replay cost as much as the rest of the replay. Held by a resumed Gemini
/// session for its turns, and by any other replay input for its items.
#[derive(Default)]
pub struct SizedTurns {
    sized: std::sync::Mutex<Vec<((bool, u64), SizedList)>>,
    /// The items of an input made for the Gemini algorithm alone, converted into Gemini parts
    /// once with their strings taken ([`SizedTurns::take_items`]): what every `(coalesce, w)`
    /// is sized from, without copying the text.
    converted: Option<Vec<Option<Converted>>>,
}

impl SizedTurns {
    /// Convert `items` for the Gemini algorithm now, taking their parts: the items keep their
    /// metadata, and only this algorithm may replay the input afterwards.
    pub fn take_items(&mut self, items: &mut [HistoryItem]) {
        self.converted = Some(
            items
                .iter_mut()
                .map(|it| Converted::of(it.role, std::mem::take(&mut it.parts), &it.tool_names))
                .collect(),
        );
    }

    /// The parts of `items` at `coalesce`, from the conversion taken earlier if there was one.
    fn items(&self, items: &[HistoryItem], coalesce: bool) -> Vec<Unsized> {
        let parts = |(role, parts)| (role, parts, false);
        match &self.converted {
            Some(converted) => converted
                .iter()
                .map(|c| c.as_ref().and_then(|c| c.parts(coalesce)).map(parts))
                .collect(),
            None => items
                .iter()
                .map(|it| convert_shared(it, coalesce).map(parts))
                .collect(),
        }
    }

    /// The history at `(coalesce, w)`; `turns` gives it, one entry per turn or item (`None`
    /// when it sends nothing), the first time.
    fn get(&self, coalesce: bool, w: f64, turns: impl FnOnce() -> Vec<Unsized>) -> SizedList {
        let key = (coalesce, w.to_bits());
        let mut cache = self.sized.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = cache.iter().find(|(k, _)| *k == key) {
            return Arc::clone(s);
        }
        let sized: SizedList = Arc::new(
            turns()
                .into_iter()
                .map(|t| t.map(|(role, parts, invalid)| SizedTurn::of(role, parts, invalid, w)))
                .collect(),
        );
        cache.push((key, Arc::clone(&sized)));
        sized
    }
}

/// A cache: not part of what a resumed session is.
impl std::fmt::Debug for SizedTurns {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("SizedTurns")
    }
}

impl Clone for SizedTurns {
    fn clone(&self) -> Self {
        SizedTurns::default()
    }
}

impl PartialEq for SizedTurns {
    fn eq(&self, _: &Self) -> bool {
        true
    }
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
    /// A model turn merged into it is one `extractCuratedHistory` drops (an empty text part
    /// or an empty part): the compression sees the history without it.
    invalid: bool,
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
            invalid: false,
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
    /// Live contents by slot. Slots are spaced ([`STRIDE`]) and never reused, so most are
    /// empty: a slot holds a box (8 bytes), not the content (96), which kept a long session's
    /// empty slots at several times the size of its live contents.
    contents: Vec<Option<Box<VContent>>>,
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
    /// Live contents per slot (1 or 0), to turn a split slot into a content index.
    live: Fenwick,
    /// Live contents that are invalid (see [`VContent::invalid`]).
    n_invalid: usize,
    /// The session as Gemini CLI resumes it, when the input carries it: items are its turns.
    native: Option<Arc<Resumed>>,
    /// Its turns, sized at this replay's settings (shared with the session's other replays);
    /// set with `native`.
    sized: Option<SizedList>,
    /// Items pushed by the engine.
    seen: usize,
    /// Converted turns (with their item index) not yet in the history: a request's new
    /// content joins only after the compression check and the masking.
    queue: VecDeque<(usize, GRole, Vec<VPart>, bool)>,
    /// The replay changed the history (compressed, truncated or masked): the agent's recorded
    /// prompt sizes no longer describe it.
    diverged: bool,
    /// Every request so far was before the agent's own first compaction.
    rec_valid: bool,
    /// The latest recorded prompt size (`lastPromptTokenCount` while in sync).
    last_rec: Option<u64>,
    decision: Decision,
}

/// What happened at the last request, in the package's terms (for the differential tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Decision {
    /// The trigger input (`lastPromptTokenCount`).
    pub prompt: u64,
    /// 0 = below the threshold, else `CompressionStatus` (1 COMPRESSED, 2 INFLATED, 4 EMPTY
    /// SUMMARY, 5 NOOP, 6 CONTENT_TRUNCATED).
    pub status: u8,
    /// Index of the split in the curated history, and contents kept after it.
    pub split: Option<usize>,
    pub kept: Option<usize>,
    /// The estimate of the new history (compressed, inflated or truncated).
    pub new_tokens: Option<u64>,
    pub masked: usize,
    pub tokens_saved: u64,
}

/// `maxChars = min(cap, 4 × (limit − P))` (`Config.getTruncateToolOutputThreshold`).
///
/// Below 1 the previous prompt was at or past the window, where Gemini aborts the turn
/// (ContextWindowWillOverflow) right after this check. JavaScript's slicing with such a
/// `maxChars` lengthens or empties outputs; a compression attempt there takes the pure port's
/// path with the exact value, but in truncation-only mode, which would rewrite every old output
/// with new numbers on every request, the incremental replay uses 1 (module doc,
/// approximations): [`max_chars`] is that value, [`exact_max_chars`] the formula.
pub fn max_chars(limit: u64, prompt: u64, cap: u64) -> i64 {
    exact_max_chars(limit, prompt, cap).max(1)
}

pub fn exact_max_chars(limit: u64, prompt: u64, cap: u64) -> i64 {
    (4 * (limit as i64 - prompt as i64)).min(cap as i64)
}

fn json_i(x: u64) -> i64 {
    x as i64
}

/// A function response's figures under `maxChars` `m` and weight `w` (`refresh_fr`).
fn fr_figures(part: &VPart, m: i64, w: f64) -> FrFigures {
    let null = J::Null;
    let fr_j = part.j.get("functionResponse").unwrap_or(&null);
    let stats = part.measured;
    let len = stats.map_or(0, |s| s.units);
    let tok = stats.map_or(0, |s| text_est_of(s).tokens(w));
    // Truncating again changes nothing once an output is short enough and already a plain
    // `{output}` (the common case, decided without building the result), when it cannot be
    // saved, or when its nested truncation has reached its fixed point.
    let plain = matches!(&*part.j, J::Obj(e) if e.len() == 1)
        && matches!(fr_j.get("response"), Some(J::Obj(r)) if r.len() == 1 && r[0].0 == "output" && matches!(r[0].1, J::Str(_)));
    let out = if plain && len as i64 <= m {
        Outcome {
            fixed: true,
            tok,
            dest: 0,
        }
    } else {
        match truncate_part(fr_j, m, w, &mut Gemini::save_path) {
            None => Outcome {
                fixed: true,
                tok,
                dest: 0,
            },
            Some((newp, t)) if newp == *part.j => Outcome {
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
    FrFigures {
        len,
        tok,
        out,
        mask_tok,
    }
}

impl Gemini {
    pub fn new(ctx: &StrategyContext) -> Self {
        Gemini::with_params(Params::from_ctx(ctx))
    }

    /// For a replay input: on the exact contents Gemini resumes the session with, when the
    /// input carries them, else on its items; either sized once for all its replays.
    pub fn for_input(ctx: &StrategyContext, input: &ReplayInput) -> Self {
        let mut g = Gemini::new(ctx);
        g.native = input.gemini.clone();
        let coalesce = g.p.coalesce;
        g.sized = Some(match &g.native {
            Some(n) => n.sized.get(coalesce, g.p.w, || {
                // The parts were moved out of the turns by `input_from`, or are still in them (a
                // session resumed without it).
                let moved = n.parts.len() == n.turns.len();
                let turns = n.turns.iter().enumerate();
                turns
                    .map(|(i, t)| {
                        if moved {
                            return native_parts(t.role, &n.parts[i], coalesce);
                        }
                        let parts: Vec<Arc<J>> = t.parts.iter().cloned().map(Arc::new).collect();
                        native_parts(t.role, &parts, coalesce)
                    })
                    .collect()
            }),
            None => input.gemini_sized.get(coalesce, g.p.w, || {
                input.gemini_sized.items(&input.items, coalesce)
            }),
        });
        g
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
            live: Fenwick::default(),
            n_invalid: 0,
            native: None,
            sized: None,
            seen: 0,
            queue: VecDeque::new(),
            diverged: false,
            rec_valid: true,
            last_rec: None,
            decision: Decision::default(),
        }
    }

    /// The last request's decision.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// `JSON.stringify(history).length`, from the running sums: O(log n).
    pub fn history_json_len(&self) -> u64 {
        let sum = self.json.prefix(self.json.len()) as u64;
        let n = self.live.prefix(self.live.len()) as u64;
        sum + n.max(1) + 1
    }

    /// The managed history as Gemini contents (for tests and debugging; O(n)).
    pub fn history(&self) -> Vec<J> {
        self.contents
            .iter()
            .flatten()
            .map(|c| {
                super::compress::content(
                    c.role.as_str(),
                    c.parts.iter().map(|p| (*p.j).clone()).collect(),
                )
            })
            .collect()
    }

    /// `JSON.stringify(history)` (for tests; O(size) without copying the contents).
    pub fn history_json(&self) -> String {
        let mut out = String::from("[");
        for (i, c) in self.contents.iter().flatten().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"role\":\"");
            out.push_str(c.role.as_str());
            out.push_str("\",\"parts\":[");
            for (k, p) in c.parts.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                super::json::write_compact(&mut out, &p.j);
            }
            out.push_str("]}");
        }
        out.push(']');
        out
    }

    /// Whether an inflated summary switched the replay to truncation only.
    pub fn failed(&self) -> bool {
        self.failed
    }

    fn vpart(&self, j: J) -> VPart {
        VPart::of(j, self.p.w)
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
        let key = (m, w.to_bits());
        let figures = match part.memo.as_ref().and_then(|memo| memo_get(&memo.fr, &key)) {
            Some(f) => f,
            None => {
                let f = fr_figures(part, m, w);
                if let Some(memo) = &part.memo {
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

    fn kill_content(&mut self, cid: usize) {
        let Some(c) = self.contents[cid].take() else {
            return;
        };
        self.json.set(cid, 0);
        self.live.set(cid, 0);
        self.n_invalid -= usize::from(c.invalid);
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

    /// A function response masked, with its new estimate; `None` when it cannot be.
    fn masked(&self, seq: usize) -> Option<(J, u64)> {
        let part = self.part_j(seq);
        if !candidate(part) {
            return None;
        }
        let masked = masked_part(part, &self.files);
        let new_tok = estimate_token_count_sync(std::slice::from_ref(&masked), self.p.w);
        Some((masked, new_tok))
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
        let key = self.p.w.to_bits();
        for seq in seqs {
            let memo = {
                let f = &self.frs[seq];
                self.content(f.cid).parts[f.pidx].memo.clone()
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

    /// Append converted parts as a new content, or into the last one when it has the same role
    /// and turns are merged.
    fn append(&mut self, role: GRole, parts: Vec<VPart>, items: usize, invalid: bool) {
        let merge = self
            .last
            .filter(|_| self.p.coalesce)
            .filter(|&l| self.content(l).role == role);
        let cid = match merge {
            Some(l) => {
                self.content_mut(l).items += items;
                self.items += items;
                l
            }
            None => {
                let cid = self.next_id;
                self.next_id += STRIDE;
                if self.last.is_none() {
                    self.start = cid;
                }
                self.open_content(cid, role, items);
                self.last = Some(cid);
                cid
            }
        };
        if invalid && !self.content(cid).invalid {
            self.content_mut(cid).invalid = true;
            self.n_invalid += 1;
        }
        for p in parts {
            self.add_vpart(cid, p);
        }
    }

    /// Add queued turns up to item `upto` (exclusive).
    fn flush(&mut self, upto: usize) {
        while self.queue.front().is_some_and(|q| q.0 < upto) {
            let (_, role, parts, invalid) = self.queue.pop_front().expect("front exists");
            self.append(role, parts, 1, invalid);
        }
    }

    /// The curated history `ChatCompressionService` sees (`getHistory(true)`): the contents
    /// without runs of model turns that hold an invalid one, turns merged again; with the
    /// history items each stands for. O(n): only used while an invalid turn is live.
    fn curated(&self) -> Vec<(GRole, Vec<J>, usize)> {
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
                let parts: Vec<J> = c.parts.iter().map(|p| (*p.j).clone()).collect();
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
    fn rebuild(&mut self, contents: Vec<(GRole, Vec<J>, usize)>) {
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
    fn compress_curated(&mut self, prompt: u64, max_chars: i64) -> Option<Event> {
        use super::compress::{CompressOptions, CompressionStatus, compress};
        let curated = self.curated();
        let js: Vec<J> = curated
            .iter()
            .map(|(r, parts, _)| super::compress::content(r.as_str(), parts.clone()))
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
            force: false,
            threshold: self.p.threshold,
            token_limit: self.p.limit,
            has_failed: self.failed,
            budget: self.p.budget,
            max_chars,
            preserve: self.p.preserve,
            non_ascii_weight: self.p.w,
        };
        let before = self.tokens();
        let out = compress(
            &js,
            prompt,
            &o,
            &env_text,
            Some(&summary),
            Some(&summary),
            &mut Self::save_path,
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
            2 * self.p.summary_tokens
        } else {
            0
        };
        if e.kind == EventKind::Compress {
            let w = self.p.w;
            e.summariser_input = out
                .calls
                .iter()
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
                + 2 * COMPRESSION_PROMPT_TOKENS;
        }
        e.tokens_after = self.tokens();
        Some(e)
    }

    /// After a rebuilt compression: the user contents before the acknowledgement hold a
    /// snapshot (for the merge instruction of the next summary).
    fn snapshot_head(&mut self) {
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

    /// The trigger input: the agent's own recorded figure while the replay has not changed
    /// the history (and the agent has not compacted), else the engine's estimate of the
    /// previous request; before any, the estimate of the history.
    fn trigger_input(&self, req: &RequestInfo) -> u64 {
        match self.last_rec.filter(|_| !self.diverged && self.rec_valid) {
            Some(rec) => rec,
            None => req.prev_prompt.unwrap_or_else(|| self.tokens()),
        }
    }
}

/// A resumed turn of role `role` and parts `parts` as `GeminiChat.getHistory` shows it, with
/// whether `extractCuratedHistory` would drop it: thoughts stripped (the first `functionCall` of
/// a model turn that had one gets the synthetic signature) and turns left empty removed, when
/// `strip`. The parts stay shared ([`Resumed::parts`]): only one that gets the signature is
/// copied.
pub fn native_parts(role: GRole, parts: &[Arc<J>], strip: bool) -> Unsized {
    let invalid = role == GRole::Model
        && (parts.is_empty()
            || parts.iter().any(|p| match &**p {
                J::Obj(e) => {
                    e.is_empty()
                        || (!p.get("thought").is_some_and(J::truthy)
                            && matches!(p.get("text"), Some(J::Str(t)) if t.is_empty())
                            && e.iter().all(|(k, _)| {
                                matches!(k.as_str(), "text" | "thought" | "callIndex")
                            }))
                }
                _ => false,
            }));
    if !strip {
        return Some((role, parts.to_vec(), invalid));
    }
    let thought = |p: &J| p.get("thought").is_some_and(J::truthy);
    let mut parts = parts.to_vec();
    if parts.iter().any(|p| p.truthy() && thought(p)) {
        parts.retain(|p| p.truthy() && !thought(p));
        if role == GRole::Model {
            super::content::sign_first_call(&mut parts);
        }
    }
    (!parts.is_empty()).then_some((role, parts, invalid))
}

/// The resumed turn at `index` of the history, sized; `None` when it sends nothing.
fn sized_turn(sized: &SizedList, index: usize) -> Option<&SizedTurn> {
    sized.get(index).and_then(Option::as_ref)
}

/// What `parts` add to the estimate of the unmanaged history.
fn est_of(parts: &[VPart]) -> Est {
    parts.iter().map(|p| p.est).sum()
}

impl Strategy for Gemini {
    fn push(&mut self, item: &HistoryItem) {
        let first = !self.pushed;
        self.pushed = true;
        let index = self.seen;
        self.seen += 1;
        // A strategy built without an input (`Gemini::new`) sizes each item as it comes.
        let converted = match &self.sized {
            Some(sized) => sized_turn(sized, index).map(|t| (t.role, t.parts.clone(), t.invalid)),
            None => convert_shared(item, self.p.coalesce).map(|(r, p)| {
                let t = SizedTurn::of(r, p, false, self.p.w);
                (t.role, t.parts, t.invalid)
            }),
        };
        let Some((role, parts, invalid)) = converted else {
            return;
        };
        self.full += est_of(&parts);
        if first && item.is_context {
            self.env = Some(parts.iter().map(|p| (*p.j).clone()).collect());
        }
        if self.native.is_some() {
            self.queue.push_back((index, role, parts, invalid));
        } else {
            self.append(role, parts, 1, invalid);
        }
    }

    /// The calibration's push: only the estimate of the unmanaged history (what `push` adds to
    /// `full`), without the curated history, truncation figures and masking state.
    fn push_unmanaged(&mut self, item: &HistoryItem) {
        let index = self.seen;
        self.seen += 1;
        let est = match &self.sized {
            Some(sized) => sized_turn(sized, index).map(|t| est_of(&t.parts)),
            None => convert_shared(item, self.p.coalesce)
                .map(|(_, parts)| parts.iter().map(|j| part_est(j, self.p.w)).sum::<Est>()),
        };
        if let Some(est) = est {
            self.full += est;
        }
    }

    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event> {
        // The request's own new content joins after the check (module doc).
        let check_at = self
            .native
            .as_ref()
            .and_then(|n| n.requests.get(req.index))
            .filter(|r| r.upto == self.seen)
            .map_or(self.seen, |r| r.check_at);
        self.flush(check_at);
        let mut events = Vec::new();
        let prompt = self.trigger_input(req);
        self.decision = Decision {
            prompt,
            ..Decision::default()
        };
        let limit = self.p.limit;
        if self.last.is_some() && prompt as f64 >= self.p.threshold * limit as f64 {
            self.want_max_chars = max_chars(limit, prompt, self.p.truncate_threshold);
            let exact = exact_max_chars(limit, prompt, self.p.truncate_threshold);
            let e = if self.n_invalid > 0 || (exact < 1 && !self.failed) {
                let m = if self.failed {
                    self.want_max_chars
                } else {
                    exact
                };
                self.compress_curated(prompt, m)
            } else if self.failed {
                self.truncate_only(prompt)
            } else if self.p.summary_tokens > 0 {
                self.compress(prompt)
            } else {
                self.decision.status = 4;
                None
            };
            events.extend(e);
        }
        if let Some(cfg) = self.p.masking {
            events.extend(self.mask(cfg));
        }
        self.diverged |= events.iter().any(|e| e.kind != EventKind::Failed);
        self.flush(self.seen);
        if req.unmanaged {
            self.last_rec = req.recorded_prompt.or(self.last_rec);
        } else {
            self.rec_valid = false;
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
