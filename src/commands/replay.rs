//! `sessions replay-compress`: replay a context-management algorithm over real sessions and
//! report what it would have saved, per session and in aggregate, for one setting or a grid.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::cli::{GlobalArgs, ReplayArgs, ReplayFormat, SelectArgs};
use crate::commands::show::resolve;
use crate::commands::{
    CmdResult, Failure, Target, guard, scan_options, stdout, target, write_json,
};
use crate::diag::Report;
use crate::output::Guard;
use crate::render::table::{Align, Column, render, render_fitted, target_width};
use crate::render::text::wrap;
use crate::render::{human_count, plot, plural, thousands};
use crate::replay::settings::Settings;
use crate::replay::{
    Algorithm, ReplayInput, ReplayOptions, SessionReplay, Totals, replay_each, validate,
};
use crate::scan::{SessionSummary, scan, scan_each_staged};
use crate::tokens::{MAX_TOKENS, estimate_text};

pub fn run(g: &GlobalArgs, args: &ReplayArgs) -> CmdResult {
    let alg = args.algorithm;
    if args.list_settings {
        let mut out = stdout();
        out.write_all(settings_table(alg).as_bytes())?;
        out.flush()?;
        return Ok(Report::default());
    }
    if let Some(w) = args.context_window {
        if !(1..=MAX_TOKENS).contains(&w) {
            return Err(Failure::usage(format!(
                "--context-window {w}: expected a window of 1 to {MAX_TOKENS} tokens"
            )));
        }
    }
    let grid = grid(alg, &args.set, &args.sweep).map_err(Failure::usage)?;
    let want_timeline = args.timeline || args.plot.is_some();
    // The agent's own algorithm at its own constants reproduces history; any override asks a
    // what-if question, and the replay then goes its own way.
    let follow = args.set.is_empty()
        && args.sweep.is_empty()
        && args.context_window.is_none()
        && args.summary_tokens == "auto";
    let options_for = |(summary_tokens, source): SummarySize| -> Vec<ReplayOptions> {
        grid.iter()
            .map(|settings| ReplayOptions {
                algorithm: alg,
                settings: settings.clone(),
                context_window: args.context_window,
                summary_tokens,
                summary_tokens_source: source,
                timeline: want_timeline,
                validate: args.validate,
                follow_recording: follow,
            })
            .collect()
    };
    let replayed = if args.all {
        replay_all(g, args, &options_for, &keep_budget)?
    } else {
        replay_named(g, args, &options_for)?
    };
    // The plot goes through the output guard, which knows every file this run read.
    let guard = args.plot.as_ref().map(|_| {
        let reading = replayed
            .reading
            .iter()
            .map(PathBuf::as_path)
            .chain(args.targets.iter().map(Path::new).filter(|p| p.exists()));
        guard(g, args.force, reading)
    });
    let mut per_session: Vec<Vec<SessionReplay>> = Vec::new();
    let mut report = replayed.report;
    for (r, s) in replayed.results.into_iter().zip(&replayed.sessions) {
        match r {
            Ok(mut v) => {
                // The scan resolved the project across files; the replay saw the file alone.
                for r in &mut v {
                    r.project.clone_from(&s.project);
                }
                per_session.push(v);
            }
            Err(f) => report.warnings.push(crate::diag::Warning::new(
                crate::diag::WarningKind::Unreadable,
                s.path(),
                None,
                f.message,
            )),
        }
    }

    if let (Some(path), Some(guard)) = (&args.plot, &guard) {
        let first: Vec<&SessionReplay> = per_session.iter().filter_map(|v| v.first()).collect();
        let written = plot_all(&first, path, guard)?;
        if !g.quiet {
            for p in &written {
                eprintln!("wrote {}", p.display());
            }
        }
    }

    let flat: Vec<&SessionReplay> = per_session.iter().flatten().collect();
    match args.format {
        ReplayFormat::Json | ReplayFormat::Ndjson => {
            // Records borrow the replays: a sweep's tens of thousands are serialised as they
            // are written, never copied into JSON trees first.
            let mut records: Vec<OutRecord> = Vec::with_capacity(flat.len() + 3);
            for r in &flat {
                records.push(OutRecord::Replay(Box::new(Record::new(r, args.timeline))));
            }
            // One more record per agent: the fidelity over distinct compactions.
            if args.validate {
                for s in validate::summarize(&flat) {
                    records.push(OutRecord::Summary(SummaryRecord {
                        schema_version: crate::render::json::SCHEMA_VERSION,
                        kind: "validation_summary",
                        summary: s,
                    }));
                }
            }
            write_json(&records, args.format == ReplayFormat::Ndjson)?;
        }
        ReplayFormat::Table => {
            let mut out = stdout();
            if grid.len() > 1 {
                out.write_all(sweep_table(&per_session, &args.sweep).as_bytes())?;
            } else {
                out.write_all(session_table(&flat).as_bytes())?;
                if args.validate {
                    writeln!(out)?;
                    out.write_all(validation_table(&flat).as_bytes())?;
                }
                if args.timeline {
                    for r in &flat {
                        writeln!(out)?;
                        out.write_all(timeline_table(r).as_bytes())?;
                    }
                }
            }
            out.flush()?;
            if !g.quiet {
                let notes: Vec<&String> = flat.iter().flat_map(|r| &r.notes).collect();
                let mut uniq: Vec<&String> = Vec::new();
                for n in notes {
                    if !uniq.contains(&n) {
                        uniq.push(n);
                    }
                }
                for n in uniq.iter().take(10) {
                    eprintln!("note: {n}");
                }
            }
        }
    }
    Ok(report)
}

/// The JSON record: the session replay with `schema_version`; the timeline only if asked for
/// (a plot needs it internally).
#[derive(serde::Serialize)]
struct Record<'a> {
    schema_version: u32,
    #[serde(flatten)]
    replay: std::borrow::Cow<'a, SessionReplay>,
}

impl<'a> Record<'a> {
    fn new(r: &'a SessionReplay, timeline: bool) -> Self {
        let replay = if !timeline && r.timeline.is_some() {
            let mut c = r.clone();
            c.timeline = None;
            std::borrow::Cow::Owned(c)
        } else {
            std::borrow::Cow::Borrowed(r)
        };
        Record {
            schema_version: crate::render::json::SCHEMA_VERSION,
            replay,
        }
    }
}

/// A summary size and where it came from.
type SummarySize = (u64, &'static str);

/// What the replays of one run read and produced: the selected sessions, their replays (one
/// per setting) or why they failed, every file the run read, and the scan's warnings.
struct Replayed {
    sessions: Vec<SessionSummary>,
    results: Vec<Result<Vec<SessionReplay>, Failure>>,
    reading: Vec<PathBuf>,
    report: Report,
    /// Replays run again at the confirmed summary size: from a kept input, read again, and
    /// the bytes of input kept.
    #[cfg_attr(not(test), allow(dead_code))]
    again: (usize, usize, u64),
}

/// `--all`: one pass over the store. Each file is parsed once, and replayed while the scan
/// holds it.
///
/// With `--summary-tokens auto` the summary size is the median of the real summaries of the
/// selected sessions of the algorithm's own agent (of every agent for Pi and OpenClaw), so the
/// scan reads that agent's files first and replays them at the algorithm's default; the median
/// of what they hold sizes the replays of every other file. Should the size the whole scan
/// confirms differ from the one a replay used (the first stage's, or a median the cross-file
/// rules or the filters changed), the replay is run again at the confirmed size if it wrote a
/// summary; one that did not never used its size ([`SessionReplay::uses_summary_size`]) and
/// only reports the new one. Either way each replay is the one a run at the confirmed size
/// from the start gives. The first stage keeps the inputs of the replays it may have to run
/// again, up to `budget_for(the size of the first stage's largest file)` bytes of them
/// ([`keep_budget`]); the others are read again.
fn replay_all(
    g: &GlobalArgs,
    args: &ReplayArgs,
    options_for: &dyn Fn(SummarySize) -> Vec<ReplayOptions>,
    budget_for: &(dyn Fn(u64) -> u64 + Sync),
) -> Result<Replayed, Failure> {
    args.filter.require_all(true).map_err(Failure::usage)?;
    let opts = scan_options(g, &args.filter.select(Vec::new()))?;
    let alg = args.algorithm;
    let filter = &opts.filter;
    let fixed = fixed_summary_size(alg, &args.summary_tokens)?;
    let native = alg.native_agent();
    // Each stage: its summary size, the options made at it, and whether its replays' inputs
    // may be kept to run them again: the first stage's, whose size is provisional, but for
    // Gemini's algorithm, whose inputs of Gemini sessions hold the record Gemini CLI resumes
    // as trees several times the size of their files.
    let keep = fixed.is_none() && alg != Algorithm::Gemini;
    let stage = |size: SummarySize, keep: bool| (size, options_for(size), keep);
    let kept_bytes = AtomicU64::new(0);
    // Known before the first stage's replays run: the scan sorts its files into the stages
    // first.
    let largest_first = AtomicU64::new(0);
    let (result, done) = scan_each_staged(
        &opts,
        crate::scan::discover(&opts),
        |f| {
            let first = fixed.is_none() && native.is_none_or(|a| a == f.agent);
            if first {
                largest_first.fetch_max(f.size, Ordering::Relaxed);
            }
            first
        },
        |f| ReplayInput::read(f, alg),
        stage(
            fixed.unwrap_or((alg.default_summary_tokens(), NO_REAL_SUMMARY)),
            keep,
        ),
        |first| {
            let size = fixed.unwrap_or_else(|| {
                auto_summary_size(alg, first.iter().copied().filter(|s| filter.may_match(s)))
            });
            stage(size, false)
        },
        |(size, options, keep), summary, session, record| {
            filter.may_match(summary).then(|| {
                let mut kept = None;
                let replays = ReplayInput::from_read(session, record, &summary.source, alg)
                    .map(|input| {
                        let replays = replay_each(&input, options);
                        // Once the budget is spent, no input is measured for it.
                        let budget = || budget_for(largest_first.load(Ordering::Relaxed));
                        if *keep
                            && replays.iter().any(SessionReplay::uses_summary_size)
                            && kept_bytes.load(Ordering::Relaxed) < budget()
                            && reserve(&kept_bytes, input.held_bytes(), budget())
                        {
                            kept = Some(input);
                        }
                        replays
                    })
                    .map_err(|w| Failure::failed(w.to_string()));
                (*size, replays, kept)
            })
        },
    );
    let mut sessions = result.sessions;
    if sessions.is_empty() {
        return Err(Failure::failed("no session selected"));
    }
    let confirmed = summary_size(alg, &args.summary_tokens, &sessions)?;
    let options = options_for(confirmed);
    // The requests of the scan's summaries serve no replay: they go before the replays run
    // again.
    for s in &mut sessions {
        s.requests = Vec::new();
    }
    // Replays made at another size: run again if they used it, else only the size they report.
    // The stages replayed at two sizes at most: each one's options are made once.
    let mut made: HashMap<SummarySize, Vec<ReplayOptions>> = HashMap::new();
    let mut settled = HashMap::with_capacity(done.len());
    let mut kept: HashMap<PathBuf, ReplayInput> = HashMap::new();
    for (path, (size, r, input)) in done {
        let r = match r {
            Ok(replays) if size != confirmed => {
                if size.0 != confirmed.0 && replays.iter().any(SessionReplay::uses_summary_size) {
                    // Replayed again below, from the input kept or from the file.
                    kept.extend(input.map(|input| (path, input)));
                    continue;
                }
                let from = made.entry(size).or_insert_with(|| options_for(size));
                Ok(replays
                    .into_iter()
                    .zip(from.iter().zip(&options))
                    .map(|(replay, (from, to))| replay.resized(from, to))
                    .collect())
            }
            r => r,
        };
        settled.insert(path, r);
    }
    // The sessions the scan kept run again from their kept inputs (the cross-file rules and
    // the filters drop some sessions: their inputs go unused), the others from their files.
    let inputs: Vec<(PathBuf, ReplayInput)> = sessions
        .iter()
        .filter_map(|s| kept.remove_entry(s.path()))
        .collect();
    drop(kept);
    let from_kept = inputs.len();
    let rerun: Vec<_> = inputs
        .into_par_iter()
        .with_max_len(1)
        .map(|(path, input)| (path, Ok(replay_each(&input, &options))))
        .collect();
    settled.extend(rerun);
    let missing: Vec<&SessionSummary> = sessions
        .iter()
        .filter(|s| !settled.contains_key(s.path()))
        .collect();
    let read_again = missing.len();
    let mut again = replay_loaded(g, &missing, &options).into_iter();
    let results = sessions
        .iter()
        .map(|s| match settled.remove(s.path()) {
            Some(r) => r,
            None => again
                .next()
                .unwrap_or_else(|| Err(Failure::failed("not replayed"))),
        })
        .collect();
    Ok(Replayed {
        reading: sessions.iter().map(|s| s.path().to_path_buf()).collect(),
        sessions,
        results,
        report: result.report,
        again: (from_kept, read_again, kept_bytes.into_inner()),
    })
}

/// How many bytes of replay inputs ([`ReplayInput::held_bytes`]) the first stage of
/// `replay --all` keeps, to run those replays again at the confirmed summary size without
/// reading their files again: [`KEPT_FOR_AGAIN`], or as many as the stage's largest file
/// holds if more. Bounded, so that the memory stays that of the files in flight and about as
/// much again; the replays past it read their files again. As much as the largest file,
/// because that is the one most worth keeping (the stage reads it first, so it is the first
/// kept): read again, it would be parsed alone on one core after the scan, and the read would
/// need at least as much memory as keeping it.
fn keep_budget(largest_first: u64) -> u64 {
    KEPT_FOR_AGAIN.max(largest_first)
}

/// The least of [`keep_budget`].
const KEPT_FOR_AGAIN: u64 = 32 << 20;

/// Take `bytes` of `budget` (`used` so far) if they fit.
fn reserve(used: &AtomicU64, bytes: u64, budget: u64) -> bool {
    used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
        u.checked_add(bytes).filter(|&n| n <= budget)
    })
    .is_ok()
}

/// Named sessions (ids, files, folders): selected by a scan, then each parsed in full.
fn replay_named(
    g: &GlobalArgs,
    args: &ReplayArgs,
    options_for: &dyn Fn(SummarySize) -> Vec<ReplayOptions>,
) -> Result<Replayed, Failure> {
    let (mut sessions, all, report) = select(g, args)?;
    if sessions.is_empty() {
        return Err(Failure::failed("no session selected"));
    }
    let options = options_for(summary_size(args.algorithm, &args.summary_tokens, &all)?);
    let reading = sessions
        .iter()
        .chain(&all)
        .map(|s| s.path().to_path_buf())
        .collect();
    // Before the replays' parses, what they no longer need goes, as in `show`: the scan's
    // other sessions and the chosen ones' requests (a large session's would otherwise be held
    // beside its input).
    drop(all);
    for s in &mut sessions {
        s.requests = Vec::new();
    }
    let refs: Vec<&SessionSummary> = sessions.iter().collect();
    let results = replay_loaded(g, &refs, &options);
    Ok(Replayed {
        sessions,
        results,
        reading,
        report,
        again: (0, 0, 0),
    })
}

/// The replay input of a selected session, from one read of its file (a Gemini file's view
/// and the record Gemini CLI resumes come from one pass), with what the scan settled.
fn input_of(s: &SessionSummary, options: &[ReplayOptions]) -> Result<ReplayInput, Failure> {
    let failed = |w: crate::diag::Warning| Failure::failed(w.to_string());
    let alg = options.first().map_or(Algorithm::Gemini, |o| o.algorithm);
    let (mut session, record) = ReplayInput::read(&s.source, alg).map_err(failed)?;
    s.settle(&mut session);
    ReplayInput::from_read(session, record, &s.source, alg).map_err(failed)
}

/// Sessions in parallel; each worker parses one session and runs every setting on it.
fn replay_loaded(
    g: &GlobalArgs,
    sessions: &[&SessionSummary],
    options: &[ReplayOptions],
) -> Vec<Result<Vec<SessionReplay>, Failure>> {
    let bar = crate::scan::bytes_progress(
        !g.quiet,
        "replaying sessions",
        sessions.iter().map(|s| s.source.size).sum(),
        sessions.len(),
    );
    let results = sessions
        .par_iter()
        .with_max_len(1)
        .map(|s| {
            let input = input_of(s, options)?;
            let out = replay_each(&input, options);
            if let Some(b) = &bar {
                b.inc(s.source.size);
            }
            Ok(out)
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    results
}

/// `--validate`'s aggregate per agent, after the session records.
#[derive(serde::Serialize)]
struct SummaryRecord {
    schema_version: u32,
    kind: &'static str,
    #[serde(flatten)]
    summary: validate::Summary,
}

/// One record of `--format json|ndjson`.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum OutRecord<'a> {
    Replay(Box<Record<'a>>),
    Summary(SummaryRecord),
}

/// Resolve the selection: `--all` with filters, or each target id/prefix/path. Returns the
/// selected sessions, every session scanned (for calibration), and the warnings that concern
/// the selection.
fn select(
    g: &GlobalArgs,
    args: &ReplayArgs,
) -> Result<(Vec<SessionSummary>, Vec<SessionSummary>, Report), Failure> {
    args.filter.require_all(args.all).map_err(Failure::usage)?;
    if args.all {
        let opts = scan_options(g, &args.filter.select(Vec::new()))?;
        let result = scan(&opts);
        let selected = result.sessions.clone();
        return Ok((selected, result.sessions, result.report));
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for t in &args.targets {
        // A folder is read like `list`'s: every session in it.
        if Path::new(t).is_dir() {
            paths.push(PathBuf::from(t));
            continue;
        }
        let hint = format!(
            "`--all` replays every session the filters select; `sessions list {}` lists the \
             sessions in it",
            Path::new(t).display()
        );
        match target(t, &hint)? {
            Target::File(p) => paths.push(p),
            Target::Id(id) => ids.push(id),
        }
    }
    let mut selected = Vec::new();
    let mut all = Vec::new();
    let mut report = Report::default();
    if !paths.is_empty() {
        let select = SelectArgs {
            paths: paths.clone(),
            ..SelectArgs::every_kind()
        };
        let result = scan(&scan_options(g, &select)?);
        // A named file that gave no session is an error, not a silent omission.
        for p in &paths {
            if p.is_dir() {
                if !result.sessions.iter().any(|s| s.path().starts_with(p)) {
                    return Err(Failure::failed(format!(
                        "{}: no session selected in this folder",
                        p.display()
                    )));
                }
                continue;
            }
            if !result.sessions.iter().any(|s| s.path() == p.as_path()) {
                let why = result
                    .report
                    .warnings
                    .iter()
                    .find(|w| w.path == *p)
                    .map(|w| w.message.clone())
                    .unwrap_or_else(|| "not a session file of any supported agent".into());
                return Err(Failure::failed(format!("{}: {why}", p.display())));
            }
        }
        report.extend(result.report.warnings);
        selected.extend(result.sessions.iter().cloned());
        all.extend(result.sessions);
    }
    if !ids.is_empty() {
        let select = SelectArgs::every_kind();
        let result = scan(&scan_options(g, &select)?);
        for t in &ids {
            let i = resolve(&result.sessions, t)?;
            report.extend(result.sessions[i].warnings.iter().cloned());
            selected.push(result.sessions[i].clone());
        }
        all.extend(result.sessions);
    }
    Ok((selected, all, report))
}

/// `--summary-tokens N`, or the size an algorithm that writes no summary uses: a size known
/// without looking at any session. `None` for `auto`.
fn fixed_summary_size(alg: Algorithm, arg: &str) -> Result<Option<SummarySize>, Failure> {
    if arg != "auto" {
        let n: u64 = arg
            .trim()
            .parse()
            .ok()
            .filter(|n| *n <= MAX_TOKENS)
            .ok_or_else(|| {
                Failure::usage(format!(
                    "--summary-tokens {arg}: expected a whole number of tokens from 0 to \
                     {MAX_TOKENS}, or `auto`"
                ))
            })?;
        return Ok(Some((n, "--summary-tokens")));
    }
    if alg.default_summary_tokens() == 0 {
        return Ok(Some((0, "the algorithm writes no summary")));
    }
    Ok(None)
}

/// Where an `auto` summary size comes from when the scanned sessions hold no real summary.
const NO_REAL_SUMMARY: &str = "the algorithm's default: no real summaries found";

/// `--summary-tokens N|auto`: with `auto`, the median of the real summaries in `scanned`.
fn summary_size<'a>(
    alg: Algorithm,
    arg: &str,
    scanned: impl IntoIterator<Item = &'a SessionSummary>,
) -> Result<SummarySize, Failure> {
    Ok(match fixed_summary_size(alg, arg)? {
        Some(size) => size,
        None => auto_summary_size(alg, scanned),
    })
}

/// The median of the real summaries in `scanned`, else the algorithm's default.
fn auto_summary_size<'a>(
    alg: Algorithm,
    scanned: impl IntoIterator<Item = &'a SessionSummary>,
) -> SummarySize {
    // Pi and OpenClaw leave no summaries in these stores: any agent's real summaries calibrate.
    let sizes: Vec<u64> = scanned
        .into_iter()
        .filter(|s| alg.native_agent().is_none_or(|a| a == s.agent))
        .flat_map(|s| &s.compaction_events)
        .filter_map(|c| c.summary.as_deref().filter(|t| !t.trim().is_empty()))
        .map(estimate_text)
        .collect();
    match crate::commands::compactions::median(sizes) {
        Some(median) => (
            median,
            "median of the real summaries found in the scanned sessions",
        ),
        None => (alg.default_summary_tokens(), NO_REAL_SUMMARY),
    }
}

/// Every combination of the sweep values over the base settings, validated.
fn grid(
    alg: Algorithm,
    base: &[(String, String)],
    sweep: &[(String, String)],
) -> Result<Vec<Settings>, String> {
    let mut combos: Vec<Vec<(String, String)>> = vec![base.to_vec()];
    for (key, values) in sweep {
        let vals: Vec<&str> = values
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .collect();
        if vals.is_empty() {
            return Err(format!("--sweep {key}=: no values"));
        }
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c = c.clone();
                    c.retain(|(k, _)| k != key);
                    c.push((key.clone(), v.to_string()));
                    c
                })
            })
            .collect();
    }
    if combos.len() > 10_000 {
        return Err(format!(
            "--sweep makes {} combinations; at most 10000",
            combos.len()
        ));
    }
    combos
        .iter()
        .map(|c| Settings::resolve(alg.specs(), c))
        .collect()
}

fn signed(n: i64) -> String {
    if n < 0 {
        format!("-{}", human_count(n.unsigned_abs()))
    } else {
        human_count(n as u64)
    }
}

/// Totals over several replays: the sums, compressions, followed compactions, the peak and how
/// many sessions.
struct Aggregate {
    t: Totals,
    /// Σ of the sessions' `cost.saved_usd` that have a price; `None` when none has.
    saved_usd: Option<f64>,
    comp: usize,
    followed: usize,
    peak: u64,
    n: usize,
}

fn aggregate<'a>(rs: impl Iterator<Item = &'a SessionReplay>) -> Aggregate {
    let mut t = Totals::default();
    let (mut comp, mut followed, mut peak, mut n) = (0, 0, 0, 0);
    let mut saved_usd: Option<f64> = None;
    for r in rs {
        if let Some(usd) = r.cost.saved_usd {
            saved_usd = Some(saved_usd.unwrap_or(0.0) + usd);
        }
        // Saturating: a session's totals can be as large as a hostile file makes them.
        t.full = t.full.saturating_add(r.totals.full);
        t.recorded = t.recorded.saturating_add(r.totals.recorded);
        t.what_if = t.what_if.saturating_add(r.totals.what_if);
        t.saved = t.saved.saturating_add(r.totals.saved);
        t.saved_vs_recorded = t
            .saved_vs_recorded
            .saturating_add(r.totals.saved_vs_recorded);
        t.summariser_tokens = t
            .summariser_tokens
            .saturating_add(r.totals.summariser_tokens);
        t.net_saved = t.net_saved.saturating_add(r.totals.net_saved);
        comp += r.compressions;
        followed += r.followed;
        peak = peak.max(r.peak.what_if);
        n += 1;
    }
    t.saved_pct = crate::replay::pct(t.saved, t.full);
    t.saved_vs_recorded_pct = crate::replay::pct(t.saved_vs_recorded, t.recorded);
    Aggregate {
        t,
        saved_usd,
        comp,
        followed,
        peak,
        n,
    }
}

/// The totals columns both tables share, and their cells. On a narrow terminal the optional
/// ones go, lowest priority first (`render::table`).
const TOTAL_COLUMNS: [Column; 11] = [
    Column::fixed("FULL", Align::Right),
    Column::fixed("RECORDED", Align::Right).optional(4),
    Column::fixed("WHAT-IF", Align::Right),
    Column::fixed("SAVED", Align::Right),
    Column::fixed("SAVED%", Align::Right),
    Column::fixed("VS REC%", Align::Right).optional(1),
    Column::fixed("SUMMARISER", Align::Right).optional(0),
    Column::fixed("NET", Align::Right).optional(3),
    Column::fixed("$SAVED", Align::Right).optional(2),
    Column::fixed("COMP", Align::Right).optional(2),
    Column::fixed("PEAK", Align::Right).optional(2),
];

fn totals_cells(t: &Totals, usd: Option<f64>, comp: usize, peak: u64) -> Vec<String> {
    let recorded = t.recorded > 0;
    vec![
        human_count(t.full),
        if recorded {
            human_count(t.recorded)
        } else {
            "-".into()
        },
        human_count(t.what_if),
        signed(t.saved),
        format!("{:.1}", t.saved_pct),
        if recorded {
            format!("{:.1}", t.saved_vs_recorded_pct)
        } else {
            "-".into()
        },
        human_count(t.summariser_tokens),
        signed(t.net_saved),
        usd.map_or_else(|| "-".into(), dollars),
        comp.to_string(),
        human_count(peak),
    ]
}

fn session_table(rs: &[&SessionReplay]) -> String {
    let mut columns = vec![
        Column::fixed("AGENT", Align::Left).optional(5),
        Column::fixed("SESSION", Align::Left),
        Column::fixed("REQS", Align::Right).optional(3),
    ];
    columns.extend(TOTAL_COLUMNS);
    columns.push(Column::fixed("BASIS", Align::Left).optional(0));
    let row = |agent: String, id: String, reqs: usize, a: &Aggregate, basis: &str| {
        let mut cells = vec![agent, id, reqs.to_string()];
        cells.extend(totals_cells(&a.t, a.saved_usd, a.comp, a.peak));
        cells.push(basis.to_string());
        cells
    };
    // Biggest saving first, then the newest session.
    let mut sorted: Vec<&SessionReplay> = rs.to_vec();
    sorted.sort_by(|a, b| {
        b.totals
            .saved
            .cmp(&a.totals.saved)
            .then_with(|| b.started_at.cmp(&a.started_at))
    });
    let mut rows: Vec<Vec<String>> = sorted
        .iter()
        .map(|r| {
            row(
                r.agent.to_string(),
                r.id.chars().take(13).collect(),
                r.requests,
                &aggregate(std::iter::once(*r)),
                r.basis,
            )
        })
        .collect();
    if rs.len() > 1 {
        let all = aggregate(rs.iter().copied());
        let reqs = rs.iter().map(|r| r.requests).sum();
        rows.push(row(
            "all".into(),
            format!("{} sessions", all.n),
            reqs,
            &all,
            "",
        ));
    }
    let all = aggregate(rs.iter().copied());
    let (table, kept) = render_fitted(&columns, rows, target_width());
    format!(
        "{}\n{}{}\n{}\n",
        wrap(&header(rs, true), target_width(), 2),
        table,
        wrap(&legend(&kept), target_width(), 2),
        wrap(&verdict(rs.first().copied(), &all, None), target_width(), 2)
    )
}

/// What the columns mean, for a newcomer.
const LEGEND: &[(&str, &str)] = &[
    ("FULL", "context with no management"),
    ("RECORDED", "what the agent really sent"),
    ("WHAT-IF", "under the algorithm"),
    ("SAVED", "FULL − WHAT-IF"),
    ("VS REC%", "saving against RECORDED"),
    ("SUMMARISER", "the summary calls' tokens"),
    ("NET", "SAVED − SUMMARISER"),
    (
        "$SAVED",
        "FULL − WHAT-IF in dollars with prompt caching, summariser included",
    ),
    ("COMP", "compressions or prunes"),
    (
        "PEAK",
        "largest what-if context (sums of context tokens over requests)",
    ),
];

/// The legend of the columns a table kept (a narrow terminal drops some).
fn legend(kept: &[&str]) -> String {
    LEGEND
        .iter()
        .filter(|(column, _)| kept.contains(column))
        .map(|(column, meaning)| format!("{column}: {meaning}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The line above a table: the algorithm, and the window and threshold the replays used.
fn header(rs: &[&SessionReplay], with_threshold: bool) -> String {
    let Some(first) = rs.first() else {
        return String::new();
    };
    let windows = range(rs.iter().map(|r| r.limits.context_window).collect());
    let mut line = format!("algorithm: {} · window {windows}", first.algorithm.as_str());
    if with_threshold {
        let thresholds = range(rs.iter().filter_map(|r| r.threshold).collect());
        line.push_str(&format!(" · threshold {thresholds}"));
    }
    if with_threshold && first.algorithm.has_versioned_constants() {
        line.push_str(" (as each session's recorded version had it)");
    }
    if first.summary_tokens > 0 {
        line.push_str(&format!(
            " · summary {} tokens",
            thousands(first.summary_tokens)
        ));
    }
    line
}

/// `155,000–167,000`, or one figure when they are all equal.
fn range(v: Vec<u64>) -> String {
    match (v.iter().min(), v.iter().max()) {
        (Some(lo), Some(hi)) if lo == hi => thousands(*lo),
        (Some(lo), Some(hi)) => format!("{}–{}", thousands(*lo), thousands(*hi)),
        _ => "-".into(),
    }
}

/// One sentence for an aggregate: what the algorithm would have done and saved.
fn verdict(r: Option<&SessionReplay>, a: &Aggregate, setting: Option<&str>) -> String {
    let (t, comp) = (&a.t, a.comp);
    let alg = r.map_or("the algorithm", |r| r.algorithm.as_str());
    let how = match setting {
        Some(s) if !s.is_empty() => format!("{alg} at {s}"),
        _ => alg.to_string(),
    };
    let over = plural(a.n, "session");
    // Compactions the agent recorded and the replay only followed are not the algorithm's.
    let followed = match a.followed {
        0 => String::new(),
        f => format!(
            " (besides following {} the agent recorded)",
            plural(f, "compaction")
        ),
    };
    if comp == 0 {
        return format!("verdict: {how} would not have intervened on {over}{followed}.");
    }
    let events = plural(comp, "intervention");
    let mut s = format!(
        "verdict: {how} would have saved {} tokens ({:.1}% of the unmanaged context) over {events} on {over}{followed}",
        signed(t.saved),
        t.saved_pct
    );
    if t.summariser_tokens > 0 {
        s.push_str(&format!("; net of summariser cost {}", signed(t.net_saved)));
    }
    if t.recorded > 0 {
        s.push_str(&format!(
            "; against what was recorded {} ({:.1}%)",
            signed(t.saved_vs_recorded),
            t.saved_vs_recorded_pct
        ));
    }
    // Money can disagree with tokens: a compression rewrites the cached prefix.
    if let Some(usd) = a.saved_usd {
        s.push_str(&format!(
            "; in dollars, with prompt caching and the summariser, {}",
            dollars(usd)
        ));
    }
    s.push('.');
    s
}

/// Dollars with a sign when negative: `$12.34`, `−$0.56`.
fn dollars(usd: f64) -> String {
    if usd < 0.0 {
        format!("−${:.2}", -usd)
    } else {
        format!("${usd:.2}")
    }
}

fn sweep_table(per_session: &[Vec<SessionReplay>], sweep: &[(String, String)]) -> String {
    let keys: Vec<&str> = sweep.iter().map(|(k, _)| k.as_str()).collect();
    let points = per_session.first().map_or(0, Vec::len);
    let mut columns = vec![
        Column::flexible("SETTING", 0, 12),
        Column::fixed("THRESHOLD", Align::Right).optional(1),
    ];
    columns.extend(TOTAL_COLUMNS);
    let mut verdicts = Vec::new();
    let rows = (0..points)
        .map(|i| {
            let agg = aggregate(per_session.iter().filter_map(|v| v.get(i)));

            let swept: Vec<(&str, String)> = per_session[0][i]
                .settings
                .iter()
                .filter(|(k, _)| keys.contains(k) || keys.contains(&k.replace('_', "-").as_str()))
                .map(|(k, v)| (*k, v.to_string()))
                .collect();
            let setting = swept
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            verdicts.push(verdict(per_session[0].get(i), &agg, Some(&setting)));
            let thresholds = range(
                per_session
                    .iter()
                    .filter_map(|v| v.get(i).and_then(|r| r.threshold))
                    .collect(),
            );
            // One key swept: its name is in the header line, the cell holds the value.
            let cell = match swept.as_slice() {
                [(_, v)] => v.clone(),
                _ => setting,
            };
            let mut cells = vec![cell, thresholds];
            cells.extend(totals_cells(&agg.t, agg.saved_usd, agg.comp, agg.peak));
            cells
        })
        .collect();
    let firsts: Vec<&SessionReplay> = per_session.iter().filter_map(|v| v.first()).collect();
    let head = format!(
        "{} · sweep of {} · {} · {}",
        header(&firsts, false),
        keys.join(", "),
        plural(per_session.len(), "session"),
        plural(points, "setting"),
    );
    let (table, kept) = render_fitted(&columns, rows, target_width());
    format!(
        "{}\n{}{}\n{}\n",
        wrap(&head, target_width(), 2),
        table,
        wrap(&legend(&kept), target_width(), 2),
        verdicts
            .iter()
            .map(|v| wrap(v, target_width(), 2))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

fn validation_table(rs: &[&SessionReplay]) -> String {
    let columns = [
        Column::fixed("SESSION", Align::Left),
        Column::fixed("TRIGGER", Align::Left),
        Column::fixed("RECORDED AT", Align::Right),
        Column::fixed("REPLAY AT", Align::Right),
        Column::fixed("ΔREQ", Align::Right),
        Column::fixed("RECORDED BEFORE", Align::Right),
        Column::fixed("REPLAY BEFORE", Align::Right),
        Column::fixed("Δ%", Align::Right),
    ];
    let mut rows = Vec::new();
    for r in rs {
        for v in r.validation.iter().flatten() {
            let opt = |x: Option<u64>| x.map(human_count).unwrap_or_else(|| "-".into());
            rows.push(vec![
                r.id.chars().take(13).collect(),
                format!("{:?}", v.trigger).to_lowercase(),
                v.recorded_request.to_string(),
                match (v.replay_request, v.followed) {
                    (Some(x), _) => x.to_string(),
                    (None, true) => "followed".into(),
                    (None, false) => "none".into(),
                },
                v.request_delta
                    .map(|x| format!("{x:+}{}", if v.matched { "" } else { " ✗" }))
                    .unwrap_or_else(|| "-".into()),
                opt(v.recorded_tokens_before),
                opt(v.replay_tokens_before),
                v.tokens_delta_pct
                    .map(|x| format!("{x:+.1}"))
                    .unwrap_or_else(|| "-".into()),
            ]);
        }
    }
    if rows.is_empty() {
        return "validation: no recorded compactions of this algorithm's agent in the selection\n"
            .into();
    }
    let mut out = format!(
        "validation against recorded compactions (✗: not within ±1 request)\n{}",
        render(&columns, rows, target_width())
    );
    let columns = [
        Column::fixed("AGENT", Align::Left),
        Column::fixed("SESSIONS", Align::Right),
        Column::fixed("AUTO", Align::Right),
        Column::fixed("WITHIN ±1", Align::Right),
        Column::fixed("TOKEN ERR%", Align::Right),
        Column::fixed("SERIES ERR%", Align::Right),
        Column::fixed("CALIBRATION ERR%", Align::Right),
    ];
    let pct = |x: Option<f64>| x.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into());
    let rows = validate::summarize(rs)
        .into_iter()
        .map(|s| {
            vec![
                s.agent.to_string(),
                s.sessions.to_string(),
                s.recorded_auto.to_string(),
                format!("{} ({:.1}%)", s.predicted, s.predicted_pct),
                pct(s.median_token_error_pct),
                pct(s.median_series_error_pct),
                pct(s.median_calibration_error_pct),
            ]
        })
        .collect();
    out.push_str(&format!(
        "\nfidelity: distinct automatic compactions predicted within ±1 request; medians of |replay − recorded| before them, of the what-if series against the recorded one, and of the calibration\n{}",
        render(&columns, rows, target_width())
    ));
    out
}

fn timeline_table(r: &SessionReplay) -> String {
    let columns = [
        Column::fixed("REQUEST", Align::Right),
        Column::fixed("FULL", Align::Right),
        Column::fixed("RECORDED", Align::Right),
        Column::fixed("WHAT-IF", Align::Right),
        Column::flexible("EVENT", 0, 10),
    ];
    let rows = r
        .timeline
        .iter()
        .flatten()
        .map(|p| {
            let ev: Vec<String> = r
                .events
                .iter()
                .filter(|e| e.request == p.request)
                .map(|e| {
                    format!(
                        "{} {}→{} ({} summarised, {} kept)",
                        serde_json::to_value(e.kind)
                            .ok()
                            .and_then(|v| v.as_str().map(String::from))
                            .unwrap_or_default(),
                        human_count(e.tokens_before),
                        human_count(e.tokens_after),
                        e.summarised,
                        e.kept
                    )
                })
                .collect();
            vec![
                p.request.to_string(),
                p.full.to_string(),
                p.recorded
                    .map(|x| x.to_string())
                    .unwrap_or_else(|| "-".into()),
                p.what_if.to_string(),
                ev.join("; "),
            ]
        })
        .collect();
    format!(
        "timeline: {} {}\n{}",
        r.agent,
        r.id,
        render(&columns, rows, target_width())
    )
}

/// One SVG per session (suffixed with its id when there are several), every target checked
/// before any is written.
fn plot_all(rs: &[&SessionReplay], path: &Path, guard: &Guard) -> Result<Vec<PathBuf>, Failure> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "replay".into());
    let targets: Vec<PathBuf> = if rs.len() == 1 {
        vec![path.to_path_buf()]
    } else {
        rs.iter()
            .map(|r| {
                let short: String =
                    r.id.chars()
                        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
                        .take(13)
                        .collect();
                path.with_file_name(format!("{stem}-{}-{short}.svg", r.agent))
            })
            .collect()
    };
    for t in &targets {
        guard.check(t)?;
    }
    for (r, t) in rs.iter().zip(&targets) {
        let svg = plot::svg(r).map_err(|e| Failure::failed(format!("{}: {e}", t.display())))?;
        guard.write_bytes(t, svg.as_bytes())?;
    }
    Ok(targets)
}

fn settings_table(alg: Algorithm) -> String {
    let columns = [
        Column::fixed("KEY", Align::Left),
        Column::fixed("DEFAULT", Align::Right),
        Column::fixed("ALLOWED", Align::Left),
        Column::flexible("MEANING", 0, 20),
    ];
    let rows = alg
        .specs()
        .iter()
        .map(|s| {
            vec![
                s.key.to_string(),
                s.default.to_string(),
                s.range(),
                s.help.to_string(),
            ]
        })
        .collect();
    format!(
        "settings of --algorithm {} (override with --set KEY=VALUE, sweep with --sweep KEY=V1,V2)\n{}",
        alg.as_str(),
        render(&columns, rows, target_width())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `replay --all` over the sample home at a small window (many replays compact), with
    /// `budget(the first stage's largest file)` bytes of first-stage inputs kept for the
    /// replays run again.
    fn all(alg: &str, budget: &(dyn Fn(u64) -> u64 + Sync)) -> (Vec<String>, (usize, usize, u64)) {
        let home = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");
        let argv = [
            "sessions",
            "--home",
            home,
            "--quiet",
            "replay-compress",
            "--all",
            "-A",
            alg,
            "--context-window",
            "8000",
        ];
        let cli = crate::cli::Cli::try_parse_from(argv).unwrap();
        let crate::cli::Command::ReplayCompress(args) = &cli.command else {
            unreachable!()
        };
        let settings = Settings::resolve(args.algorithm.specs(), &[]).unwrap();
        let options_for = |(summary_tokens, source): SummarySize| {
            vec![ReplayOptions {
                algorithm: args.algorithm,
                settings: settings.clone(),
                context_window: args.context_window,
                summary_tokens,
                summary_tokens_source: source,
                timeline: true,
                validate: false,
                follow_recording: false,
            }]
        };
        let r = replay_all(&cli.global, args, &options_for, budget).unwrap();
        let out = r
            .results
            .into_iter()
            .zip(&r.sessions)
            .map(|(x, s)| {
                let mut replays = x.ok().unwrap();
                // As `run` does: the project is the scan's, resolved across files.
                for x in &mut replays {
                    x.project.clone_from(&s.project);
                }
                serde_json::to_string(&replays).unwrap()
            })
            .collect();
        (out, r.again)
    }

    /// The replays run again at the confirmed summary size are the same whether their inputs
    /// were kept from the first stage or their files read again, within any budget.
    #[test]
    fn replays_run_again_from_kept_inputs_equal_those_read_again() {
        for alg in ["claude", "codex", "pi"] {
            let (read, (kept_none, read_all, _)) = all(alg, &|_| 0);
            assert_eq!(kept_none, 0, "{alg}");
            assert!(read_all >= 3, "{alg}: {read_all} replays run again");
            let (kept, (from_kept, read_rest, bytes)) = all(alg, &|_| u64::MAX);
            assert_eq!((from_kept, read_rest), (read_all, 0), "{alg}");
            assert_eq!(kept, read, "{alg}");
            // Half of what they hold: some are kept (the smallest fits), the rest read again.
            let (some, (k, r, half)) = all(alg, &|_| bytes / 2);
            assert!(
                k > 0 && r > 0 && k + r == read_all,
                "{alg}: {k} kept, {r} read"
            );
            assert!(half <= bytes / 2, "{alg}");
            assert_eq!(some, read, "{alg}");
        }
    }

    /// The budget grows with the first stage's largest file: that of the algorithm's own
    /// agent, or of every agent for the algorithms sized from all of them (Pi).
    #[test]
    fn the_budget_knows_the_first_stages_largest_file() {
        let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home");
        let largest = |claude_only: bool| {
            walkdir::WalkDir::new(&home)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
                .filter(|e| !claude_only || e.path().to_string_lossy().contains("claude/"))
                .map(|e| e.metadata().unwrap().len())
                .max()
                .unwrap()
        };
        let (claude, every) = (largest(true), largest(false));
        // The sample home's largest file is not Claude's: the stages are told apart.
        assert!(claude < every, "{claude} {every}");
        for (alg, want) in [("claude", claude), ("pi", every)] {
            let seen = AtomicU64::new(0);
            all(alg, &|largest| {
                seen.store(largest, Ordering::Relaxed);
                u64::MAX
            });
            assert_eq!(seen.into_inner(), want, "{alg}");
        }
        assert_eq!(keep_budget(every), KEPT_FOR_AGAIN);
        assert_eq!(keep_budget(KEPT_FOR_AGAIN * 3), KEPT_FOR_AGAIN * 3);
    }

    #[test]
    fn a_budget_is_taken_while_it_lasts() {
        let used = AtomicU64::new(0);
        assert!(reserve(&used, 60, 100));
        assert!(!reserve(&used, 41, 100));
        assert!(reserve(&used, 40, 100));
        assert!(!reserve(&used, 1, 100));
        assert!(!reserve(&used, u64::MAX, u64::MAX));
        assert_eq!(used.load(Ordering::Relaxed), 100);
    }
}
