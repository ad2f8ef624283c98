//! The incremental replay of Gemini's per-request pipeline (see the module doc of
//! [`super`] for the rules and the complexity argument).

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use crate::replay::{
    Event, EventKind, HistoryItem, ReplayInput, RequestInfo, Strategy, StrategyContext,
};

use super::content::{Converted, GRole, content_overhead, convert_shared};
use super::estimate::{Est, EstKey, Estimator, PartSizes, text_est_of};
use super::fenwick::Fenwick;
use super::json::{J, StrStats};
use super::masking::{MaskFiles, MaskingConfig, part_candidate};
use super::part::GPart;
use super::resume::Resumed;
use super::truncate::{TruncStyle, truncate_gpart};
use super::{
    PLACEHOLDER_NOW_MS, PLACEHOLDER_PROJECT_TEMP_DIR, PLACEHOLDER_RANDOM_SUFFIX,
    PLACEHOLDER_SESSION_ID,
};

mod contents;
mod steps;

/// Contents take consecutive slots, after this many left free at the start. A compression
/// puts up to three new contents (environment, snapshot, acknowledgement) in the slots just
/// before the first kept one, which the contents it removed held (or these, the first time),
/// without renumbering.
const HEAD_SLOTS: usize = 3;

#[derive(Debug, Clone)]
pub struct Params {
    pub threshold: f64,
    pub preserve: f64,
    /// The reverse budget; `NO_BUDGET` when the era has no such pass (before v0.26).
    pub budget: u64,
    pub truncate_threshold: u64,
    pub style: TruncStyle,
    /// The summary is followed by a verification probe call (v0.26+); else one call.
    pub probe: bool,
    pub masking: Option<MaskingConfig>,
    pub coalesce: bool,
    /// After an inflated automatic attempt, later triggers truncate only (v0.31+); else
    /// auto-compression stays off.
    pub truncation_only: bool,
    /// The trigger compares the previous response's prompt size (v0.8+); else the history's
    /// own size at the check (`countTokens`).
    pub last_prompt_trigger: bool,
    pub w: Estimator,
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
            budget: if s.flag("reverse_budget_truncation") {
                s.int("function_response_budget")
            } else {
                NO_BUDGET
            },
            style: if s.flag("truncate_last_lines") {
                TruncStyle::Lines
            } else {
                TruncStyle::Chars
            },
            truncate_threshold: s.int("truncate_tool_output_threshold"),
            probe: s.flag("verification_probe"),
            masking: s.flag("masking").then(|| MaskingConfig {
                protection: s.int("masking_protection_threshold"),
                min_prunable: s.int("masking_min_prunable"),
                protect_latest_turn: s.flag("masking_protect_latest_turn"),
            }),
            coalesce: s.flag("coalesce_turns"),
            truncation_only: s.flag("truncation_only_after_failure"),
            last_prompt_trigger: s.flag("trigger_last_prompt_tokens"),
            w: Estimator {
                non_ascii_weight: s.num("non_ascii_weight"),
                image_estimate: s.flag("image_estimate"),
                pdf_estimate: s.flag("pdf_estimate"),
                long_text_fast_path: s.flag("long_text_fast_path"),
                astral_counts_once: s.flag("astral_counts_once"),
                function_response_estimate: s.flag("function_response_estimate"),
            },
            limit: ctx.limits.context_window,
            // The summary is materialised as text: `--summary-tokens 10^12` must not become a
            // 4-TB string.
            summary_tokens: ctx.summary_tokens.min(MAX_SUMMARY_TOKENS),
        }
    }
}

/// A budget no history reaches: before v0.26 (google-gemini/gemini-cli 1182168bd9) the
/// compression split the history as it was, with no reverse-budget truncation. Small enough
/// that the budget arithmetic (in `i64`) cannot overflow.
pub const NO_BUDGET: u64 = u64::MAX >> 2;

/// The largest synthetic summary the replay writes: 1,048,576 tokens, the largest token limit
/// of any Gemini model (a longer summary could never be sent).
const MAX_SUMMARY_TOKENS: u64 = 1 << 20;

/// A part with its sizes: 40 bytes, for every part of a session and again for each one in the
/// replay's history.
#[derive(Debug, Clone)]
struct VPart {
    /// Shared: the replays of a session take a sized part without copying it; a part the
    /// replay rewrites is a new one.
    part: Arc<GPart>,
    json: u64,
    est: Est,
    /// What a function response has besides (`Some` exactly for them); behind a pointer: most
    /// parts are not one. Shared: the replay's copy of a sized part does not copy it.
    fr: Option<Arc<FrInfo>>,
}

/// A function response's part of a [`VPart`]. Its place among the history's responses is not
/// kept: a content's responses take consecutive places ([`VContent::first_fr`]).
#[derive(Debug, Clone)]
struct FrInfo {
    /// The stats of the text its budget measures (see [`PartSizes`]).
    measured: StrStats,
    /// For a response as the session recorded it, replayed under several settings (a sweep):
    /// what the replays found out about it, shared by them. `None` for one replay, and for a
    /// part the replay rewrote.
    memo: Option<Arc<PartMemo>>,
}

impl VPart {
    fn of(part: GPart, w: Estimator) -> VPart {
        VPart::shared(Arc::new(part), w, false)
    }

    /// A part sized without copying it: it stays shared with whatever else holds it. With
    /// `memo`, a function response gets a memo for the replays that share it.
    fn shared(part: Arc<GPart>, w: Estimator, memo: bool) -> VPart {
        let PartSizes {
            json,
            est,
            measured,
        } = part.sizes(w);
        VPart {
            json,
            est,
            fr: measured.map(|measured| {
                Arc::new(FrInfo {
                    measured,
                    memo: memo.then(Arc::default),
                })
            }),
            part,
        }
    }

    /// The memo of a function response as the session recorded it, in a sweep.
    fn memo(&self) -> Option<&Arc<PartMemo>> {
        self.fr.as_ref().and_then(|f| f.memo.as_ref())
    }
}

/// What a replay computes about a recorded function response that only depends on the part
/// and on settings a sweep rarely varies, kept for the other replays of the session: its
/// figures under a `maxChars` and weight, and its masked form.
#[derive(Debug, Default)]
struct PartMemo {
    /// `refresh_fr`'s figures by `(maxChars, estimator key)`.
    fr: Memo<(i64, EstKey), FrFigures>,
    /// The masked part and its estimate by estimator; `None` when it cannot be masked.
    masked: Memo<EstKey, Option<(Arc<GPart>, u64)>>,
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
    let mut entries = m.lock().unwrap_or_else(|e| e.into_inner());
    // One entry per setting that matters, most often one: a first push would make room for
    // four, for every function response of a session.
    entries.reserve_exact(1);
    entries.push((k, v));
}

/// A resumed turn as the history receives it: parts stripped ([`native_parts`]) and sized.
#[derive(Debug)]
pub struct SizedTurn {
    role: GRole,
    parts: Box<[VPart]>,
    invalid: bool,
}

impl SizedTurn {
    /// A turn's parts sized; with `memo`, each function response with a memo for the replays
    /// that share it.
    fn of(
        role: GRole,
        parts: Vec<Arc<GPart>>,
        invalid: bool,
        w: Estimator,
        memo: bool,
    ) -> SizedTurn {
        let parts = parts
            .into_iter()
            .map(|p| VPart::shared(p, w, memo))
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
type Unsized = Option<(GRole, Vec<Arc<GPart>>, bool)>;

/// A session's history as the Gemini replay receives it, sized once per `(coalesce,
/// non_ascii_weight)` and shared by every replay of it: the calibration and the settings of a
/// sweep start from the same turns, and converting and sizing each part (its JSON length and
/// estimate) again per replay cost as much as the rest of the replay. Held by a resumed Gemini
/// session for its turns, and by any other replay input for its items.
#[derive(Default)]
pub struct SizedTurns {
    state: std::sync::Mutex<SizedState>,
}

#[derive(Default)]
struct SizedState {
    lists: Vec<((bool, EstKey), SizedList)>,
    /// The items of an input made for the Gemini algorithm alone, converted into Gemini parts
    /// once with their strings taken ([`SizedTurns::take_items`]): what every `(coalesce, w)`
    /// is sized from, without copying the text. Outside a sweep, the one sizing there is
    /// consumes it (its parts live on in the sized list).
    converted: Option<Vec<Option<Converted>>>,
    /// The conversion was consumed: no other `(coalesce, w)` can be sized.
    released: bool,
}

impl SizedTurns {
    /// Convert `items` for the Gemini algorithm now, taking their parts and tool names: the
    /// items keep their metadata, and only this algorithm may replay the input afterwards.
    pub fn take_items(&mut self, items: &mut [HistoryItem]) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        state.converted = Some(
            items
                .iter_mut()
                .map(|it| {
                    let names = std::mem::take(&mut it.tool_names);
                    Converted::of(it.role, std::mem::take(&mut it.parts), &names)
                })
                .collect(),
        );
    }

    /// The history at `(coalesce, w)`; `turns` gives it, one entry per turn or item (`None`
    /// when it sends nothing), from the conversion of the input's items when there is one,
    /// the first time. In a `sweep`, the function responses get memos, and the conversion is
    /// kept for the sizings of other settings; otherwise every replay of the input has the
    /// same settings (the engine replays an input under several only in a sweep), and the
    /// conversion is consumed: each item's parts move into the list, which takes the
    /// conversion's buffer (a sized turn is as large as a conversion).
    fn get(
        &self,
        coalesce: bool,
        w: Estimator,
        sweep: bool,
        turns: impl FnOnce(Option<&[Option<Converted>]>) -> Vec<Unsized>,
    ) -> SizedList {
        let key = (coalesce, w.key());
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = state.lists.iter().find(|(k, _)| *k == key) {
            return Arc::clone(s);
        }
        debug_assert!(
            !state.released,
            "an input sized again under other settings after its conversion was consumed"
        );
        let sized = |t: Unsized| {
            t.map(|(role, parts, invalid)| SizedTurn::of(role, parts, invalid, w, sweep))
        };
        let list: Vec<Option<SizedTurn>> = match state.converted.take() {
            Some(converted) if !sweep => {
                state.released = true;
                converted
                    .into_iter()
                    .map(|c| {
                        let parts = c.and_then(|c| c.into_parts(coalesce));
                        sized(parts.map(|(role, parts)| (role, parts, false)))
                    })
                    .collect()
            }
            converted => {
                let list = turns(converted.as_deref()).into_iter().map(sized).collect();
                state.converted = converted;
                list
            }
        };
        let list: SizedList = Arc::new(list);
        state.lists.push((key, Arc::clone(&list)));
        list
    }
}

/// The parts of `items` at `coalesce`, from their conversion if there is one.
fn item_parts(
    converted: Option<&[Option<Converted>]>,
    items: &[HistoryItem],
    coalesce: bool,
) -> Vec<Unsized> {
    let parts = |(role, parts)| (role, parts, false);
    match converted {
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
    old: Arc<GPart>,
    delta: Est,
}

pub struct Gemini {
    p: Params,
    /// Live contents by slot. The slots of removed contents stay empty (but for those a
    /// compression's new contents take): a slot holds a box (8 bytes), not the content (96).
    contents: Vec<Option<Box<VContent>>>,
    /// Slot of the first live content (`next_id` when there is none).
    start: usize,
    next_id: usize,
    /// The slot after the last compression's new contents (`HEAD_SLOTS` before any): a split
    /// falls on a content pushed after them, never among them.
    head_end: usize,
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
    /// Compression checks that took the pure port's pass over the whole history: bounded
    /// (module doc), and counted so the tests can hold it to that.
    curated_passes: usize,
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
    /// The request whose compression check the history was last brought to, and the estimate
    /// before its content was added: a `/compress` and the automatic check of one request
    /// share that history and the `countTokens` figure it started from.
    checked: Option<(usize, u64)>,
    /// A `/compress` re-created the chat before this request: until its response,
    /// `lastPromptTokenCount` is the local estimate of the new history (spec §1.8).
    recreated: Option<usize>,
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
fn fr_figures(part: &VPart, m: i64, style: TruncStyle, w: Estimator) -> FrFigures {
    let stats = part.fr.as_ref().map(|f| f.measured);
    let len = stats.map_or(0, |s| s.units);
    let tok = stats.map_or(0, |s| text_est_of(s, w).tokens(w));
    // Truncating again changes nothing once an output is short enough and already a plain
    // `{output}` (the common case, decided without building the result), when it cannot be
    // saved, or when its nested truncation has reached its fixed point.
    let out = if style == TruncStyle::Chars && part.part.is_plain_output() && len as i64 <= m {
        Outcome {
            fixed: true,
            tok,
            dest: 0,
        }
    } else {
        match truncate_gpart(&part.part, m, style, w, &mut |n| {
            Gemini::save_path(style, n)
        }) {
            None => Outcome {
                fixed: true,
                tok,
                dest: 0,
            },
            Some((newp, t)) if newp == *part.part => Outcome {
                fixed: true,
                tok: t,
                dest: 0,
            },
            Some((newp, t)) => Outcome {
                fixed: false,
                tok: t,
                dest: newp.est(w).quarters - part.est.quarters,
            },
        }
    };
    // estimateTokenCountSync([part]) is this part's own estimate, floored.
    let mask_tok = if part_candidate(&part.part) {
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
        let (coalesce, sweep) = (g.p.coalesce, ctx.sweep);
        g.sized = Some(match &g.native {
            Some(n) => n.sized.get(coalesce, g.p.w, sweep, |_| {
                // The parts were moved out of the turns by `input_from`, or are still in them (a
                // session resumed without it).
                let moved = n.parts.len() == n.turns.len();
                let turns = n.turns.iter().enumerate();
                turns
                    .map(|(i, t)| {
                        if moved {
                            return native_parts(t.role, &n.parts[i], coalesce);
                        }
                        let parts: Vec<Arc<GPart>> = t
                            .parts
                            .iter()
                            .map(|j| Arc::new(GPart::from_j(j.clone())))
                            .collect();
                        native_parts(t.role, &parts, coalesce)
                    })
                    .collect()
            }),
            None => input.gemini_sized.get(coalesce, g.p.w, sweep, |converted| {
                item_parts(converted, &input.items, coalesce)
            }),
        });
        g
    }

    pub fn with_params(p: Params) -> Self {
        let max_chars = (p.truncate_threshold as i64).min(4 * p.limit as i64);
        Gemini {
            p,
            contents: Vec::new(),
            start: HEAD_SLOTS,
            next_id: HEAD_SLOTS,
            head_end: HEAD_SLOTS,
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
            curated_passes: 0,
            native: None,
            sized: None,
            seen: 0,
            queue: VecDeque::new(),
            diverged: false,
            rec_valid: true,
            last_rec: None,
            checked: None,
            recreated: None,
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
                    c.parts.iter().map(|p| p.part.to_j()).collect(),
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
                p.part.write_compact(&mut out);
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

    /// How many compression checks took the pure port's pass over the whole history.
    pub fn curated_passes(&self) -> usize {
        self.curated_passes
    }

    fn tokens(&self) -> u64 {
        self.total.tokens(self.p.w)
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
                self.next_id += 1;
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

    /// The trigger input: the agent's own recorded figure while the replay has not changed
    /// the history (and the agent has not compacted), else the engine's estimate of the
    /// previous request; before any, the estimate of the history.
    fn trigger_input(&self, req: &RequestInfo) -> u64 {
        match self.last_rec.filter(|_| !self.diverged && self.rec_valid) {
            Some(rec) => rec,
            None => req.prev_prompt.unwrap_or_else(|| self.tokens()),
        }
    }

    /// Bring the history to request `req`'s compression check (its own new content joins
    /// after it, module doc) and return the check's `lastPromptTokenCount`.
    fn check_input(&mut self, req: &RequestInfo) -> u64 {
        let check_at = self
            .native
            .as_ref()
            .and_then(|n| n.requests.get(req.index))
            .filter(|r| r.upto == self.seen)
            .map_or(self.seen, |r| r.check_at);
        if self.checked.is_none_or(|(k, _)| k != req.index) {
            self.checked = Some((req.index, self.tokens()));
        }
        self.flush(check_at);
        if self.recreated == Some(req.index) {
            return self.tokens();
        }
        if self.p.last_prompt_trigger {
            self.trigger_input(req)
        } else {
            // ≤ v0.7: `countTokens` over the history at the check. The engine's calibrated
            // figure for the history it was told about, plus what joined it since, calibrated.
            let unflushed = self.checked.map_or(0, |(_, t)| t);
            let joined = self.tokens().saturating_sub(unflushed);
            req.context_now
                .saturating_add((joined as f64 * req.scale.max(0.0)).round() as u64)
        }
    }
}

/// A resumed turn of role `role` and parts `parts` as `GeminiChat.getHistory` shows it, with
/// whether `extractCuratedHistory` would drop it: thoughts stripped (the first `functionCall` of
/// a model turn that had one gets the synthetic signature) and turns left empty removed, when
/// `strip`. The parts stay shared ([`Resumed::parts`]): only one that gets the signature is
/// copied.
pub fn native_parts(role: GRole, parts: &[Arc<GPart>], strip: bool) -> Unsized {
    let invalid =
        role == GRole::Model && (parts.is_empty() || parts.iter().any(|p| p.invalid_in_model()));
    if !strip {
        return Some((role, parts.to_vec(), invalid));
    }
    let mut parts = parts.to_vec();
    if parts.iter().any(|p| p.truthy() && p.is_thought()) {
        parts.retain(|p| p.truthy() && !p.is_thought());
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
            Some(sized) => sized_turn(sized, index).map(|t| (t.role, t.parts.to_vec(), t.invalid)),
            None => convert_shared(item, self.p.coalesce).map(|(r, p)| {
                let t = SizedTurn::of(r, p, false, self.p.w, false);
                (t.role, t.parts.into_vec(), t.invalid)
            }),
        };
        let Some((role, parts, invalid)) = converted else {
            return;
        };
        self.full += est_of(&parts);
        if first && item.is_context {
            self.env = Some(parts.iter().map(|p| p.part.to_j()).collect());
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
                .map(|(_, parts)| parts.iter().map(|p| p.est(self.p.w)).sum::<Est>()),
        };
        if let Some(est) = est {
            self.full += est;
        }
    }

    fn before_request(&mut self, req: &RequestInfo) -> Vec<Event> {
        let prompt = self.check_input(req);
        let mut events = Vec::new();
        self.decision = Decision {
            prompt,
            ..Decision::default()
        };
        let limit = self.p.limit;
        if self.last.is_some()
            && prompt as f64 >= self.p.threshold * limit as f64
            && self.failed
            && !self.p.truncation_only
        {
            // Before v0.31 an inflated attempt turns auto-compression off for the chat.
            self.decision.status = 5;
        } else if self.last.is_some() && prompt as f64 >= self.p.threshold * limit as f64 {
            self.want_max_chars = max_chars(limit, prompt, self.p.truncate_threshold);
            let exact = exact_max_chars(limit, prompt, self.p.truncate_threshold);
            let e = if self.p.summary_tokens == 0 && !self.failed {
                // An empty summary fails the compression and changes nothing (spec §1.4 step
                // 12), and nothing marks the failure: every later request tries again. Decided
                // here, without the pure port's pass over the whole history that a context
                // past the window would take on every request (quadratic; an empty split
                // point, a NOOP instead, changes nothing either).
                self.decision.status = 4;
                None
            } else if self.n_invalid > 0 || (exact < 1 && !self.failed) {
                let m = if self.failed {
                    self.want_max_chars
                } else {
                    exact
                };
                self.compress_curated(prompt, m, false)
            } else if self.failed {
                self.truncate_only(prompt)
            } else {
                self.compress(prompt)
            };
            // The trigger's figure: what the compression check compared with the threshold.
            events.extend(e.map(|mut e| {
                e.measure = Some(prompt);
                e
            }));
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

    /// The user's `/compress` before this request (`tryCompressChat(force=true)`), on the
    /// history the request's own check sees.
    fn compact_now(&mut self, req: &RequestInfo) -> Option<Event> {
        let prompt = self.check_input(req);
        let mut e = self.compress_forced(prompt)?;
        if e.kind == EventKind::Compress {
            self.recreated = Some(req.index);
            self.diverged = true;
        }
        e.measure = Some(prompt);
        Some(e)
    }

    fn full_tokens(&self) -> u64 {
        self.full.tokens(self.p.w)
    }

    fn context_tokens(&self) -> u64 {
        self.tokens()
    }
}
