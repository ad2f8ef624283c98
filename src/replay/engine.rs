//! The replay loop: feed a session's history to a strategy request by request, keep the three
//! series, and keep them in real tokens.
//!
//! Per request `k`:
//! 1. push the history items sent with it;
//! 2. a recorded manual `/compact` here is applied first (native replays only: the user's
//!    hand is not the algorithm's choice), then the strategy's own trigger runs, told the
//!    previous request's size as the agent's API reported it — recorded while the replayed
//!    history is the recorded one, else calibrated;
//! 3. both sides' events at `k` go to the [`Tracker`]: is the history still the recorded one?
//! 4. `what_if` is the recorded prompt when it is, else extrapolated from the last request
//!    where it was ([`Anchor`]); `full` likewise from the last request before the agent first
//!    managed its context;
//! 5. the strategy hears the response (triggers after sampling act from `k + 1`).

use crate::model::{Agent, Trigger};

use super::calibrate::{Anchor, Calibration};
use super::sync::{Class, Tracker};
use super::validate::{is_compaction, median, validate};
use super::{
    Algorithm, Event, EventKind, Point, ReplayInput, ReplayOptions, RequestInfo, Series,
    SessionReplay, StrategyContext, Totals, difference, pct, threshold, versions, window,
};

/// What a Gemini file shows of the CLI version that wrote it: its layout, its start date, the
/// models it used and whether it holds the percent notice.
fn gemini_era(input: &ReplayInput) -> versions::GeminiEra {
    use chrono::Datelike;
    // The extension only for a file whose layout the parser did not read (a saved chat): a
    // legacy session resumed from v0.39 on continues as JSONL with its old start date.
    let format = match &input.gemini_layout {
        Some(layout) => Some(versions::GeminiFormat::of(layout)),
        None => input
            .path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            .then_some(versions::GeminiFormat::LegacyJson),
    };
    let mut era = versions::GeminiEra {
        format,
        started: input.started_at.map(|t| (t.year(), t.month(), t.day())),
        saw_percent_compression_notice: input
            .recorded_compactions
            .iter()
            .any(|c| c.percent_before.is_some()),
        ..Default::default()
    };
    for r in &input.requests {
        if let Some(m) = r.model.as_deref() {
            era.saw_model(m);
        }
    }
    era
}

/// Gemini CLI's constants for a replay of `input`. Gemini files record no version: the era
/// their format and date show decides every setting that changed between versions. Another
/// agent's file says nothing of Gemini CLI (a Claude `.jsonl` is no Gemini log, a Codex legacy
/// `.json` no Gemini document, and their dates no Gemini release): it is replayed at the newest
/// constants, as a version number chooses only the recording agent's constants.
fn gemini_constants(input: &ReplayInput, model: Option<&str>) -> versions::GeminiConstants {
    let era = if input.agent == Agent::Gemini {
        gemini_era(input)
    } else {
        versions::GeminiEra::default()
    };
    versions::gemini(era, model)
}

/// A recorded compaction the first request already followed: the log starts from its result.
pub(super) fn starts_the_log(c: &crate::model::Compaction) -> bool {
    c.request_index == 0
}

/// The session's model as the agent knew it. Claude transcripts record the API model id without
/// the `[1m]` of a 1M-context session; a recorded prompt above 200k says it was one.
fn agent_model(input: &ReplayInput) -> Option<String> {
    let m = input.model.clone()?;
    let lower = m.to_ascii_lowercase();
    let over_200k = input
        .requests
        .iter()
        .any(|r| r.recorded_prompt.is_some_and(|p| p > 200_000));
    if input.agent == Agent::Claude
        && lower.starts_with("claude")
        && !lower.contains("[1m]")
        && over_200k
    {
        Some(format!("{m}[1m]"))
    } else {
        Some(m)
    }
}

/// The window the session really had, where the recording agent's own table knows more than
/// the generic one, so that every algorithm measures the session against it: a Codex session
/// that recorded its window recorded 95% of it (from 0.48), one that recorded none gets
/// Codex's table (codex-mini-latest 200k, gpt-3.5 16,385); a Claude session's follows its
/// version (claude-opus-4-7 has 1M by default from 2.1.117); a Gemini session replayed with
/// Gemini's algorithm has its assumed CLI version's `tokenLimit` (gemini-1.5-pro 2,097,152
/// before v0.25, Gemma 4 256,000 from v0.41), the other algorithms the model table's.
/// `--context-window` is left as given.
fn agents_own_window(
    input: &ReplayInput,
    alg: Algorithm,
    model: Option<&str>,
    limits: &mut window::Limits,
) {
    use window::WindowSource::{Default, Model, Override, Recorded};
    let version = input.agent_version.as_deref();
    match (input.agent, limits.source) {
        (_, Override) => {}
        (Agent::Codex, Recorded) => {
            limits.context_window =
                versions::codex(version, model, Some(limits.context_window), None).context_window;
        }
        (Agent::Codex, Model | Default) => match versions::codex_window(version, model) {
            (w, true) => {
                limits.context_window = w;
                limits.source = Model;
            }
            // An unknown slug: Codex's fallback, unless the generic table names the model.
            (w, false) if limits.source == Default => limits.context_window = w,
            _ => {}
        },
        // Another model behind Claude Code keeps its own window.
        (Agent::Claude, Model) => {
            if let Some(m) = model.filter(|m| m.to_ascii_lowercase().starts_with("claude")) {
                limits.context_window = versions::claude_window(version, m);
            }
        }
        (Agent::Gemini, _) if alg == Algorithm::Gemini => {
            limits.context_window = gemini_constants(input, model).token_limit;
        }
        _ => {}
    }
    // Claude Code reserves what its version takes for the model's maximum output (the
    // `modelMaxOutput` of the threshold, pruning-compaction.md §C.1), not what the API
    // allows: the figure its constants use, whatever the window's source.
    if input.agent == Agent::Claude {
        limits.max_output = versions::claude(version, model).max_output;
    }
}

/// Resolve the Gemini settings left at their defaults to the era's values; the note that says
/// which version was assumed and what it set (none when every such setting was given).
fn gemini_era_settings(
    settings: &mut super::settings::Settings,
    c: &versions::GeminiConstants,
) -> Option<String> {
    let mut set = Vec::new();
    if settings.num("threshold") <= 0.0 {
        settings.set_number("threshold", c.threshold);
        set.push(format!("threshold {}", c.threshold));
    }
    if !settings.given("non_ascii_weight") {
        settings.set_number("non_ascii_weight", c.non_ascii_weight);
        set.push(format!("non-ASCII weight {}", c.non_ascii_weight));
    }
    let flags = [
        ("masking", c.masking, "masking on", "no masking"),
        (
            "coalesce_turns",
            c.coalesce_turns,
            "turns coalesced",
            "turns not coalesced",
        ),
        (
            "truncation_only_after_failure",
            c.truncation_only_after_failure,
            "truncation only after an inflated compression",
            "no auto-compression after an inflated one",
        ),
        (
            "reverse_budget_truncation",
            c.reverse_budget_truncation,
            "old tool output truncated to a budget",
            "no tool-output truncation",
        ),
        (
            "truncate_last_lines",
            c.truncate_last_lines,
            "truncated outputs keep their last 30 lines",
            "truncated outputs keep head and tail characters",
        ),
        (
            "verification_probe",
            c.verification_probe,
            "summary verified by a probe call",
            "one summariser call",
        ),
        (
            "image_estimate",
            c.image_estimate,
            "images estimated at 3,000 tokens",
            "images estimated by their JSON length",
        ),
        (
            "pdf_estimate",
            c.pdf_estimate,
            "PDFs estimated at 25,800 tokens",
            "PDFs estimated by their JSON length",
        ),
        (
            "long_text_fast_path",
            c.long_text_fast_path,
            "texts over 100,000 characters estimated at length / 4",
            "long texts weighted per character",
        ),
        (
            "astral_counts_once",
            c.astral_counts_once,
            "astral characters estimated once",
            "astral characters estimated per UTF-16 unit",
        ),
        (
            "function_response_estimate",
            c.function_response_estimate,
            "function responses estimated by their payload",
            "function responses estimated by their JSON length",
        ),
        (
            "trigger_last_prompt_tokens",
            c.trigger_uses_last_prompt_tokens,
            "trigger on the last prompt size",
            "trigger on a count of the history",
        ),
    ];
    for (key, on, yes, no) in flags {
        if !settings.given(key) {
            settings.set_flag(key, on);
            // How outputs are cut says nothing when none are.
            if key == "truncate_last_lines" && !settings.flag("reverse_budget_truncation") {
                continue;
            }
            set.push(if on { yes } else { no }.to_string());
        }
    }
    (!set.is_empty()).then(|| {
        format!(
            "Gemini CLI {} assumed from the file's format and date ({}): {}",
            c.version,
            c.era,
            set.join(", ")
        )
    })
}

/// Replay one session.
pub fn replay(input: &ReplayInput, opts: &ReplayOptions) -> SessionReplay {
    replay_calibrated(input, opts, None, false)
}

/// Replay one session under several options (a sweep). The calibration is fitted once per
/// algorithm, window and estimator: it maps the algorithm's estimate of the unmanaged history
/// to the recorded sizes, which only the settings that change the estimate
/// ([`Algorithm::estimator_settings`]) change.
pub fn replay_each(input: &ReplayInput, options: &[ReplayOptions]) -> Vec<SessionReplay> {
    let mut fitted: Vec<(CalibrationKey, Fitted)> = Vec::new();
    let sweep = options.len() > 1;
    options
        .iter()
        .map(|o| {
            let key = calibration_key(o);
            let known = fitted.iter().find(|(k, _)| *k == key).map(|(_, c)| *c);
            let r = replay_calibrated(input, o, known, sweep);
            if known.is_none() {
                fitted.push((key, (r.calibration, r.estimator_drift)));
            }
            r
        })
        .collect()
}

/// What a calibration depends on: the algorithm, the window asked for and the values given to
/// the settings that change the algorithm's estimate. One not given takes the session's era
/// value, the same for every option of a sweep: its absence is its key, and no option's
/// settings need resolving here (the replay resolves them).
type CalibrationKey = (Algorithm, Option<u64>, Vec<Option<String>>);

fn calibration_key(o: &ReplayOptions) -> CalibrationKey {
    let values = o
        .algorithm
        .estimator_settings()
        .iter()
        .map(|k| {
            o.settings.given(k).then(|| {
                o.settings
                    .get(k)
                    .map_or_else(String::new, ToString::to_string)
            })
        })
        .collect();
    (o.algorithm, o.context_window, values)
}

/// The run's settings with those left to the recorded version resolved, and the note saying so.
fn resolve_settings(
    input: &ReplayInput,
    opts: &ReplayOptions,
    model: Option<&str>,
) -> (super::settings::Settings, Option<String>) {
    let mut settings = opts.settings.clone();
    let mut era_note = None;
    if opts.algorithm == Algorithm::Gemini {
        let c = gemini_constants(input, model);
        let note = gemini_era_settings(&mut settings, &c);
        // Only a Gemini file's format and date say which version was assumed.
        if input.agent == Agent::Gemini {
            era_note = note;
        }
    }
    (settings, era_note)
}

/// A session's calibration and estimator drift.
type Fitted = (Calibration, Option<f64>);

fn replay_calibrated(
    input: &ReplayInput,
    opts: &ReplayOptions,
    fitted: Option<Fitted>,
    sweep: bool,
) -> SessionReplay {
    let alg = opts.algorithm;
    let model = agent_model(input);
    let mut limits = window::resolve(
        model.as_deref(),
        input.recorded_window,
        opts.context_window.map(crate::tokens::cap),
        alg.default_limits(),
    );
    agents_own_window(input, alg, model.as_deref(), &mut limits);
    let (settings, era_note) = resolve_settings(input, opts, model.as_deref());
    let native = alg.native_agent() == Some(input.agent);
    let ctx = StrategyContext {
        settings,
        limits,
        summary_tokens: crate::tokens::cap(opts.summary_tokens),
        // The version decides the constants of the agent that recorded it: another agent's
        // version number (Codex 0.98.0 read as Claude Code 0.98.0) would pick one of the
        // algorithm's oldest rows. Another agent's session is replayed at the newest.
        agent_version: native.then(|| input.agent_version.clone()).flatten(),
        native,
        model,
        sweep,
    };
    let follow = native && opts.follow_recording;
    let mut notes: Vec<String> = era_note.into_iter().collect();
    if limits.source == window::WindowSource::Default {
        notes.push(format!(
            "model {} unknown: assumed a {}-token window",
            input.model.as_deref().unwrap_or("(none recorded)"),
            crate::render::thousands(limits.context_window)
        ));
    }
    let constants = alg.constants(&ctx);
    if native && input.agent_version.is_none() && alg.has_versioned_constants() {
        notes.push(format!(
            "no {} version recorded: the newest constants apply",
            input.agent
        ));
    }
    notes.extend(summary_note(opts));

    // The agent's own context management, by the first request that saw it. A compaction
    // before the first request (a resumed or continued session) is where the log starts: the
    // history it shows is the compacted one, the history the agent sent, so it neither parts
    // the two nor ends the requests the calibration fits.
    let resumed = input.recorded_compactions.iter().any(starts_the_log);
    let first_managed = input
        .recorded_compactions
        .iter()
        .filter(|c| !starts_the_log(c))
        .map(|c| c.request_index)
        .min();
    if resumed && !input.requests.is_empty() {
        notes.push(
            "the session starts from the agent's own compaction (resumed or continued): full and what-if start from the compacted history"
                .into(),
        );
    }
    let (calibration, drift, measured) = match fitted {
        Some((c, d)) => (c, d, None),
        None => calibrate(input, &ctx, alg, first_managed),
    };
    if !calibration.is_calibrated() {
        notes.push("no recorded usage: every figure is an estimate (uncalibrated)".into());
    }
    // Recorded usage, but none on a request whose history the log shows unmanaged: the
    // replay's own figures cannot be put in recorded units, and set against the recorded ones
    // their difference would be the estimator's error, not a saving.
    let unanchored = input.recorded_usage && calibration.requests_used == 0;
    if unanchored && input.requests.iter().any(|r| r.recorded_prompt.is_some()) {
        notes.push(
            "no recorded prompt size before the agent's first compaction to calibrate on: the replay's figures are uncalibrated estimates and no saving against recorded is reported"
                .into(),
        );
    }
    let mut recorded_at: Vec<usize> = (0..input.recorded_compactions.len())
        .filter(|&i| !starts_the_log(&input.recorded_compactions[i]))
        .collect();
    recorded_at.sort_by_key(|&i| input.recorded_compactions[i].request_index);
    let mut next_recorded = 0;

    let after = AfterCompaction::of(input, &calibration, native);
    let mut strategy = alg.build(&ctx, input);
    if let Some(m) = measured {
        strategy.reuse_measured(m);
    }
    let mut anchor = Anchor::new(&calibration);
    let mut full_anchor = anchor;
    let mut tracker = Tracker::new(native);
    let mut pushed = 0;
    let mut prev_prompt = None;
    let mut prev_recorded = false;
    let mut prev_output = 0;
    let mut events: Vec<Event> = Vec::new();
    // Events an after-sampling trigger made at the previous request: they act from this one.
    let mut carried: Vec<usize> = Vec::new();
    let mut timeline: Vec<Point> = Vec::with_capacity(input.requests.len());
    for (k, r) in input.requests.iter().enumerate() {
        while pushed < r.upto.min(input.items.len()) {
            strategy.push(&input.items[pushed]);
            pushed += 1;
        }
        let info = RequestInfo {
            index: k,
            timestamp: r.timestamp,
            recorded_prompt: r.recorded_prompt,
            output: r.output,
            prev_prompt,
            prev_recorded,
            prev_output,
            context_now: anchor.tokens(strategy.context_tokens()),
            scale: anchor.scale,
            in_sync: false,
            unmanaged: first_managed.is_none_or(|f| k < f),
        };
        let mut recorded_here = Vec::new();
        while let Some(&i) = recorded_at.get(next_recorded) {
            let c = &input.recorded_compactions[i];
            if c.request_index > k {
                break;
            }
            next_recorded += 1;
            let class = if is_compaction(c) {
                Class::Compact
            } else {
                Class::Mask
            };
            recorded_here.push((i, class));
        }
        let mut here: Vec<Event> = Vec::new();
        if native {
            for &(i, _) in &recorded_here {
                if input.recorded_compactions[i].trigger == Trigger::Manual {
                    here.extend(strategy.compact_now(&info).map(forced));
                }
            }
        }
        here.extend(strategy.before_request(&info));
        let compacted = |evs: &[Event]| evs.iter().any(|e| e.kind == EventKind::Compress);
        if follow
            && tracker.agent_waiting(k)
            && !compacted(&here)
            && !carried
                .iter()
                .any(|&i| events[i].kind == EventKind::Compress)
        {
            here.extend(strategy.compact_now(&info).map(forced));
        }
        let mut acting = std::mem::take(&mut carried);
        for mut e in here {
            e.request = k;
            calibrate_event(&mut e, &mut anchor, &after);
            acting.push(events.len());
            events.push(e);
        }
        let kinds: Vec<(usize, EventKind)> = acting.iter().map(|&i| (i, events[i].kind)).collect();
        let pairs_before = tracker.pairs.len();
        tracker.step(k, &recorded_here, &kinds);
        let in_sync = tracker.in_sync();

        let (x_full, x_ctx) = (strategy.full_tokens(), strategy.context_tokens());
        let unmanaged = first_managed.is_none_or(|f| k < f);
        let full = match r.recorded_prompt.filter(|_| unmanaged) {
            Some(rec) => {
                full_anchor.set(x_full, rec);
                rec
            }
            None => full_anchor.tokens(x_full),
        };
        let what_if = match r.recorded_prompt.filter(|_| in_sync) {
            Some(rec) => {
                anchor.set(x_ctx, rec);
                rec
            }
            // The replay sends the whole history here (a pruning that is not sticky sends its
            // pruned copy at one request only): the same history is the same size. Extrapolated
            // from its own older anchor instead, it would drift from `full` by the fit's error
            // between the two anchors, and could exceed it.
            None if x_ctx == x_full => {
                anchor.set(x_ctx, full);
                full
            }
            None => anchor.tokens(x_ctx),
        };
        if in_sync {
            // A compaction that matched the agent's: what it left is what the agent had next.
            for &(_, e) in &tracker.pairs[pairs_before..] {
                if events[e].kind == EventKind::Compress && r.recorded_prompt.is_some() {
                    events[e].tokens_after = what_if;
                }
            }
        }
        let point = Point {
            request: k,
            full,
            recorded: r.recorded_prompt,
            what_if,
            in_sync: in_sync && r.recorded_prompt.is_some(),
        };
        let info = RequestInfo {
            in_sync: point.in_sync,
            ..info
        };
        for mut e in strategy.after_request(&info, what_if) {
            e.request = k + 1;
            calibrate_event(&mut e, &mut anchor, &after);
            carried.push(events.len());
            events.push(e);
        }
        timeline.push(point);
        prev_prompt = Some(what_if);
        prev_recorded = point.in_sync;
        prev_output = r.output;
    }

    let w = limits.context_window;
    let mut totals = Totals::default();
    let mut peak = Series::<u64>::default();
    let mut over = Series::<usize>::default();
    let mut recorded_only_what_if = 0u64;
    for p in &timeline {
        totals.full = totals.full.saturating_add(p.full);
        totals.what_if = totals.what_if.saturating_add(p.what_if);
        peak.full = peak.full.max(p.full);
        peak.what_if = peak.what_if.max(p.what_if);
        over.full += usize::from(p.full > w);
        over.what_if += usize::from(p.what_if > w);
        if let Some(r) = p.recorded {
            totals.recorded = totals.recorded.saturating_add(r);
            recorded_only_what_if = recorded_only_what_if.saturating_add(p.what_if);
            peak.recorded = peak.recorded.max(r);
            over.recorded += usize::from(r > w);
        }
    }
    totals.saved = difference(totals.full, totals.what_if);
    totals.saved_pct = pct(totals.saved, totals.full);
    if !unanchored {
        totals.saved_vs_recorded = difference(totals.recorded, recorded_only_what_if);
        totals.saved_vs_recorded_pct = pct(totals.saved_vs_recorded, totals.recorded);
    }
    if let Some(note) = late_follows_note(input, &events, &tracker, &timeline) {
        notes.push(note);
    }
    totals.summariser_tokens = events
        .iter()
        .map(Event::summariser_tokens)
        .fold(0u64, u64::saturating_add);
    totals.net_saved = totals
        .saved
        .saturating_sub(i64::try_from(totals.summariser_tokens).unwrap_or(i64::MAX));
    // OpenClaw compares its own character estimate of the log: in real tokens its threshold
    // sits where the replay's figures put that estimate, extrapolated from the last recorded
    // size of the unmanaged history as `full` is. The fit's offset alone (`calibration.apply`)
    // can sit far from the recorded sizes, and put it above the window on a session where the
    // replay prunes below it.
    let threshold = threshold(alg, &ctx).map(|t| match alg {
        Algorithm::OpenclawPrune if calibration.is_calibrated() => full_anchor.tokens(t),
        _ => t,
    });
    if alg == Algorithm::OpenclawPrune
        && let Some(t) = threshold.filter(|&t| t > w)
    {
        notes.push(format!(
            "the soft-trim threshold sits at {} tokens, above the {}-token window: OpenClaw's estimate (the messages' characters / 4, without system prompt or tools) reaches soft_trim_ratio of its window only past the real one on this session",
            crate::render::thousands(t),
            crate::render::thousands(w)
        ));
    }
    let compressions = events
        .iter()
        .filter(|e| e.kind != EventKind::Failed && !e.forced)
        .count();
    // A `/compress` Gemini rejected as inflated changed nothing: an attempt, not a compaction.
    let followed = events
        .iter()
        .filter(|e| e.forced && e.kind != EventKind::Failed)
        .count();

    if let Some(d) = drift.filter(|d| !(0.8..=1.25).contains(d)) {
        // `d` is recorded / estimated. Each way is a share of the recorded size, so "below"
        // stays under 100%.
        let (pct, way) = if d > 1.0 {
            ((1.0 - 1.0 / d) * 100.0, "below")
        } else {
            ((1.0 / d - 1.0) * 100.0, "above")
        };
        notes.push(format!(
            "the {} estimator reads {pct:.0}% {way} the recorded prompt sizes on this session; estimated figures are calibrated ({})",
            alg.as_str(),
            calibration.describe()
        ));
    }
    // Dollars: the same series through the prompt-cache model (cost.rs).
    let price = input
        .model
        .as_deref()
        .and_then(|m| crate::pricing::active().find(m));
    if price.is_none() {
        notes.push(format!(
            "no price for model {}: costs are null",
            input.model.as_deref().unwrap_or("(none recorded)")
        ));
    }
    let overhead = if calibration.offset.is_finite() && calibration.offset > 0.0 {
        calibration.offset as u64
    } else {
        0
    };
    let mut cost = super::cost::of(input, &timeline, &events, overhead, price);
    if unanchored {
        cost.saved_vs_recorded_usd = None;
    }
    let (validation, fidelity) = if opts.validate && native {
        let (v, f) = validate(&input.recorded_compactions, &events, &tracker, &timeline);
        (Some(v), Some(f))
    } else {
        (None, None)
    };
    SessionReplay {
        agent: input.agent,
        id: input.id.clone(),
        path: input.path.clone(),
        project: input.project.clone(),
        started_at: input.started_at,
        algorithm: alg,
        settings: ctx.settings.clone(),
        model: input.model.clone(),
        limits,
        summary_tokens: crate::tokens::cap(opts.summary_tokens),
        agent_version: input.agent_version.clone(),
        constants,
        threshold,
        basis: if input.recorded_usage && !unanchored {
            "recorded"
        } else {
            "estimated"
        },
        calibration,
        requests: timeline.len(),
        totals,
        compressions,
        followed,
        events,
        peak,
        over_window: over,
        estimator_drift: drift,
        notes,
        timeline: opts.timeline.then_some(timeline),
        validation,
        fidelity,
        cost,
    }
}

/// The note on the summary size, for an algorithm that writes summaries.
fn summary_note(opts: &ReplayOptions) -> Option<String> {
    (opts.algorithm.default_summary_tokens() > 0).then(|| {
        format!(
            "summary size {} tokens ({})",
            crate::render::thousands(opts.summary_tokens),
            opts.summary_tokens_source
        )
    })
}

impl SessionReplay {
    /// Whether the replay depends on its summary size. Only a compaction the replay makes,
    /// tries or follows writes a summary, and each is an event: before the first event every
    /// figure is the same at any size. A replay without events, under a positive size, is the
    /// replay at any other positive size but for the size it reports.
    pub fn uses_summary_size(&self) -> bool {
        !self.events.is_empty() || self.summary_tokens == 0
    }

    /// This replay, made under `from`, as `to` gives it, for options that differ in the summary
    /// size alone and a replay that does not [use it](Self::uses_summary_size) (or sizes that
    /// are one number under two names): only the size it reports and the note that names it
    /// change.
    pub fn resized(mut self, from: &ReplayOptions, to: &ReplayOptions) -> SessionReplay {
        debug_assert!(
            !self.uses_summary_size() || from.summary_tokens == to.summary_tokens,
            "{}",
            self.path.display()
        );
        self.summary_tokens = crate::tokens::cap(to.summary_tokens);
        if let (Some(old), Some(new)) = (summary_note(from), summary_note(to))
            && let Some(n) = self.notes.iter_mut().find(|n| **n == old)
        {
            *n = new;
        }
        self
    }
}

/// Fit the strategy's estimator to the recorded prompt sizes on the requests before the agent
/// first managed its context (where recorded history and full history are the same thing).
/// A push-only pass: no trigger runs, so it costs a fraction of the replay. Also returns the
/// estimator drift: the recorded/estimated ratio at the last such request, the estimate
/// anchored on the first recorded request by a constant overhead; and what the pass measured
/// of the items it pushed, for the replay to reuse ([`Strategy::take_measured`](super::Strategy::take_measured)).
fn calibrate(
    input: &ReplayInput,
    ctx: &StrategyContext,
    alg: super::Algorithm,
    first_managed: Option<usize>,
) -> (Calibration, Option<f64>, Option<super::Measured>) {
    if !input.recorded_usage {
        return (Calibration::NONE, None, None);
    }
    let end = first_managed.unwrap_or(input.requests.len());
    let mut strategy = alg.build(ctx, input);
    let mut pushed = 0;
    let mut points: Vec<(u64, u64)> = Vec::new();
    for r in &input.requests[..end.min(input.requests.len())] {
        while pushed < r.upto.min(input.items.len()) {
            strategy.push_unmanaged(&input.items[pushed]);
            pushed += 1;
        }
        if let Some(rec) = r.recorded_prompt {
            points.push((strategy.full_tokens(), rec));
        }
    }
    let drift = match (points.first(), points.last()) {
        (Some(&(x0, y0)), Some(&(x, y))) => {
            let est = y0.saturating_sub(x0).saturating_add(x);
            (est > 0).then(|| (y as f64 / est as f64 * 100.0).round() / 100.0)
        }
        _ => None,
    };
    let measured = strategy.take_measured();
    if points.is_empty() {
        // Managed from the first request on: nothing unmanaged to fit, but the recorded sizes
        // still anchor every figure (scale 1).
        let c = Calibration {
            method: super::calibrate::Method::Offset,
            ..Calibration::NONE
        };
        return (c, drift, measured);
    }
    (Calibration::fit(&points), drift, measured)
}

/// What the context holds right after a compaction the replay makes on its own, from the sizes
/// the agent's context really had right after its own compactions in this session.
#[derive(Debug, Clone, Copy)]
enum AfterCompaction {
    /// Nothing recorded: the calibrated intercept stays the fixed part.
    Unknown,
    /// The agent's own algorithm: the median size right after its compactions (system prompt,
    /// tools, its real summary, the context it re-injects).
    Recorded(u64),
    /// Another algorithm: the part of that size which is not the agent's summary (system
    /// prompt, tools), under the algorithm's own summary and kept history.
    Fixed(u64),
}

impl AfterCompaction {
    fn of(input: &ReplayInput, c: &Calibration, native: bool) -> AfterCompaction {
        let scaled = |x: u64| (x as f64 * c.scale) as u64;
        let sizes: Vec<f64> = input
            .post_compaction
            .iter()
            .map(|p| {
                let base = p.recorded.saturating_sub(scaled(p.added));
                if native {
                    base
                } else {
                    base.saturating_sub(scaled(p.summary))
                }
            })
            .map(|v| v as f64)
            .collect();
        match median(sizes) {
            None => AfterCompaction::Unknown,
            Some(m) if native => AfterCompaction::Recorded(m as u64),
            Some(m) => AfterCompaction::Fixed(m as u64),
        }
    }
}

/// A strategy's event in estimator units → calibrated tokens, with the anchor in force. A
/// compaction of the replay's own re-anchors the figures that follow on what the agent's
/// context really held after a compaction (when the session recorded one): the log alone does
/// not say how much of the first prompt was fixed overhead and how much history it did not
/// keep (a resumed or continued session).
fn calibrate_event(e: &mut Event, anchor: &mut Anchor, after: &AfterCompaction) {
    e.tokens_before = anchor.tokens(e.tokens_before);
    if e.summariser_input > 0 {
        e.summariser_input = anchor
            .delta(e.summariser_input)
            .saturating_add(anchor.tokens(0).saturating_mul(e.summariser_calls));
    }
    if e.kind == EventKind::Compress && !e.forced {
        match *after {
            AfterCompaction::Recorded(b) => anchor.set(e.tokens_after, b),
            AfterCompaction::Fixed(f) => {
                let fixed = anchor.tokens(0).min(f);
                anchor.set(
                    e.tokens_after,
                    fixed.saturating_add(anchor.delta(e.tokens_after)),
                );
            }
            AfterCompaction::Unknown => {}
        }
    }
    e.tokens_after = anchor.tokens(e.tokens_after);
}

/// The agent's automatic compactions that the replay followed one request late: it leaves
/// the algorithm the request after the agent's compaction to compact on its own (a prediction
/// one request late still pairs), so that request was sent uncompacted where the agent's was
/// compacted. Said, with what it adds, since it shows in the saving against the recording even
/// when the algorithm itself never acted.
fn late_follows_note(
    input: &ReplayInput,
    events: &[Event],
    tracker: &Tracker,
    timeline: &[Point],
) -> Option<String> {
    let mut waited: Vec<usize> = tracker
        .pairs
        .iter()
        .filter(|&&(_, e)| events[e].forced && events[e].kind == EventKind::Compress)
        .filter_map(|&(r, e)| {
            let c = &input.recorded_compactions[r];
            (c.trigger != Trigger::Manual && events[e].request == c.request_index + 1)
                .then_some(c.request_index)
        })
        .collect();
    waited.sort_unstable();
    waited.dedup();
    let excess: u64 = waited
        .iter()
        .filter_map(|&k| timeline.get(k))
        .filter_map(|p| Some(p.what_if.saturating_sub(p.recorded?)))
        .sum();
    if excess == 0 {
        return None;
    }
    let requests: Vec<String> = waited.iter().map(ToString::to_string).collect();
    Some(format!(
        "{} automatic {} the agent recorded {} followed one request late (the replay leaves the algorithm that request to compact on its own): request {} went uncompacted, {} tokens above the recording, counted in the saving against it",
        waited.len(),
        if waited.len() == 1 {
            "compaction"
        } else {
            "compactions"
        },
        if waited.len() == 1 { "was" } else { "were" },
        requests.join(", "),
        crate::render::thousands(excess)
    ))
}

fn forced(mut e: Event) -> Event {
    e.forced = true;
    e
}
