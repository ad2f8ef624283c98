//! How the replays read the store: `--all` in one pass (each file parsed once and replayed
//! while the scan holds it), named sessions parsed in full, and the summary size they use.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::cli::{GlobalArgs, ReplayArgs, SelectArgs};
use crate::commands::show::resolve_all;
use crate::commands::{Failure, Target, scan_options, target};
use crate::diag::{Report, WarningKind};
use crate::output::safe_path;
use crate::replay::{Algorithm, ReplayInput, ReplayOptions, SessionReplay, replay_each};
use crate::scan::{SessionSummary, scan, scan_each_staged};
use crate::tokens::{MAX_TOKENS, estimate_text};

use super::{Replayed, SummarySize};

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
pub(super) fn replay_all(
    g: &GlobalArgs,
    args: &ReplayArgs,
    options_for: &dyn Fn(SummarySize) -> Vec<ReplayOptions>,
    budget_for: &(dyn Fn(u64) -> u64 + Sync),
) -> Result<Replayed, Failure> {
    args.filter.require_all(true).map_err(Failure::usage)?;
    let opts = scan_options(g, &args.filter.select(named_paths(args)))?;
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
                    .map(|mut input| {
                        let replays = replay_each(&input, options);
                        // Once the budget is spent, no input is measured for it.
                        let budget = || budget_for(largest_first.load(Ordering::Relaxed));
                        if *keep
                            && replays.iter().any(SessionReplay::uses_summary_size)
                            && kept_bytes.load(Ordering::Relaxed) < budget()
                            && reserve(&kept_bytes, input.compact().held_bytes(), budget())
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
    crate::commands::require_stores(&result, &opts.stores)?;
    // As `list` says it: a named file no agent's session is not silently left out.
    crate::commands::note_unrecognised(&result, g.quiet);
    let mut sessions = result.sessions;
    let report = result.report;
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
    let missing: Vec<&SessionSummary> = {
        let rerun: HashSet<&Path> = inputs.iter().map(|(path, _)| path.as_path()).collect();
        sessions
            .iter()
            .filter(|s| !settled.contains_key(s.path()) && !rerun.contains(s.path()))
            .collect()
    };
    let read_again = missing.len();
    // Side by side: a file read again (a large one, alone, on one core) runs beside the
    // replays run again from their inputs.
    let (rerun, again) = rayon::join(
        || {
            inputs
                .into_par_iter()
                .with_max_len(1)
                .map(|(path, input)| (path, Ok(replay_each(&input, &options))))
                .collect::<Vec<_>>()
        },
        || replay_loaded(g, &missing, &options),
    );
    settled.extend(rerun);
    let mut again = again.into_iter();
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
        summary_size: confirmed,
        sessions,
        results,
        report,
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
pub(super) fn keep_budget(largest_first: u64) -> u64 {
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
pub(super) fn replay_named(
    g: &GlobalArgs,
    args: &ReplayArgs,
    options_for: &dyn Fn(SummarySize) -> Vec<ReplayOptions>,
) -> Result<Replayed, Failure> {
    let (mut sessions, all, report) = select(g, args)?;
    // The scans left one file of each history (copies are dropped there); a file named twice
    // (by its id and by its path) would still count twice in the totals.
    let mut seen = HashSet::new();
    sessions.retain(|s| seen.insert(s.path().to_path_buf()));
    if sessions.is_empty() {
        return Err(Failure::failed("no session selected"));
    }
    // The size comes from the sessions replayed, as with `--all`: a session named by its id
    // (a scan of the whole store) and by its file (that file alone) is replayed alike.
    let size = summary_size(args.algorithm, &args.summary_tokens, &sessions)?;
    let options = options_for(size);
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
        summary_size: size,
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

/// With `--all`, the files and folders named to read instead of the stores.
fn named_paths(args: &ReplayArgs) -> Vec<PathBuf> {
    args.targets.iter().map(PathBuf::from).collect()
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
        let opts = scan_options(g, &args.filter.select(named_paths(args)))?;
        let result = scan(&opts);
        crate::commands::require_stores(&result, &opts.stores)?;
        crate::commands::note_unrecognised(&result, g.quiet);
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
            safe_path(Path::new(t))
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
                        safe_path(p)
                    )));
                }
                continue;
            }
            if !result.sessions.iter().any(|s| s.path() == p.as_path()) {
                let warning = result.report.warnings.iter().find(|w| w.path == *p);
                // A copy of a session another named file holds: that file replays it (the
                // copy is reported with `-v`, as `list` reports it).
                if warning.is_some_and(|w| w.kind == WarningKind::Duplicate) {
                    continue;
                }
                let why = warning
                    .map(|w| w.message.clone())
                    .unwrap_or_else(|| "not a session file of any supported agent".into());
                return Err(Failure::failed(format!("{}: {why}", safe_path(p))));
            }
        }
        report.extend(result.report.warnings);
        selected.extend(result.sessions.iter().cloned());
        all.extend(result.sessions);
    }
    if !ids.is_empty() {
        let opts = scan_options(g, &SelectArgs::every_kind())?;
        let result = scan(&opts);
        crate::commands::require_stores(&result, &opts.stores)?;
        for t in &ids {
            // One id held by several diverging files names each of those histories.
            let found = resolve_all(&result.sessions, t, &result.report.warnings)?;
            for i in found {
                let own = crate::commands::show::own_report(
                    &result.sessions[i],
                    &result.project_warnings,
                );
                // Two sessions may owe the user the same registry's warning: once.
                report.extend_once(own.warnings);
                selected.push(result.sessions[i].clone());
            }
        }
        all.extend(result.sessions);
    }
    Ok((selected, all, report))
}

/// `--summary-tokens N`, or the size an algorithm that writes no summary uses: a size known
/// without looking at any session. `None` for `auto`.
fn fixed_summary_size(alg: Algorithm, arg: &str) -> Result<Option<SummarySize>, Failure> {
    if arg != "auto" {
        // Out of range is an error, as for every setting: a size the agent cannot write
        // would be replayed as a compaction that grows the context.
        let max = alg.max_summary_tokens().unwrap_or(MAX_TOKENS);
        let n: u64 = arg
            .trim()
            .parse()
            .ok()
            .filter(|n| *n <= max)
            .ok_or_else(|| {
                let why = match alg.max_summary_tokens() {
                    Some(_) => format!(" (the output limit of {}'s summary call)", alg.as_str()),
                    None => String::new(),
                };
                Failure::usage(format!(
                    "--summary-tokens {arg}: expected a whole number of tokens from 0 to \
                     {max}{why}, or `auto`"
                ))
            })?;
        return Ok(Some((n, ASKED)));
    }
    if alg.default_summary_tokens() == 0 {
        return Ok(Some((0, "the algorithm writes no summary")));
    }
    Ok(None)
}

/// Where a size given as `--summary-tokens N` comes from.
const ASKED: &str = "--summary-tokens";

/// Where an `auto` summary size comes from when the scanned sessions hold no real summary.
const NO_REAL_SUMMARY: &str = "the algorithm's default: no real summaries found";

/// Where an `auto` summary size comes from when the median of the real summaries is above what
/// the algorithm's agent can write.
const HELD: &str = "the median of the real summaries in the replayed sessions is above what the \
                    agent's summary call can write: held to that";

/// `--summary-tokens N|auto`: with `auto`, the median of the real summaries in `scanned` (the
/// sessions replayed).
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

/// The median of the real summaries in `scanned`, else the algorithm's default. A median
/// above what the algorithm's agent can write (`--summary-tokens N`'s bound) is held to it:
/// summaries estimated from their text may come out larger than the agent's call could
/// answer, and the replay would ask about a summary no agent writes.
fn auto_summary_size<'a>(
    alg: Algorithm,
    scanned: impl IntoIterator<Item = &'a SessionSummary>,
) -> SummarySize {
    // Pi and OpenClaw leave no summaries in these stores: any agent's real summaries calibrate.
    // A compaction several files hold counts once, as the ledger lists it.
    let mut seen = std::collections::HashSet::new();
    let sizes: Vec<u64> = scanned
        .into_iter()
        .filter(|s| alg.native_agent().is_none_or(|a| a == s.agent))
        .flat_map(|s| s.compaction_events.iter().map(move |c| (s, c)))
        .filter(|(s, c)| c.identity(s.agent, &s.id).is_none_or(|k| seen.insert(k)))
        .filter_map(|(_, c)| c.summary.as_deref().filter(|t| !t.trim().is_empty()))
        .map(estimate_text)
        .collect();
    let max = alg.max_summary_tokens().unwrap_or(MAX_TOKENS);
    match crate::commands::compactions::median(sizes) {
        Some(median) if median > max => (max, HELD),
        Some(median) => (
            median,
            "median of the real summaries in the replayed sessions",
        ),
        None => (alg.default_summary_tokens(), NO_REAL_SUMMARY),
    }
}

/// The note on a summary size (asked with `--summary-tokens N`, or the `auto` median) above
/// what the agents' versions that recorded some of `replayed` could write (only where the
/// version tables know it: Claude's algorithm on Claude sessions). The size is not lowered to
/// it: a what-if may ask exactly that, and each session would otherwise be replayed at a size
/// of its own.
pub(super) fn over_version_caps<'a>(
    alg: Algorithm,
    (asked, source): SummarySize,
    replayed: impl IntoIterator<Item = &'a SessionSummary>,
) -> Option<String> {
    // How many sessions' versions cap the summary below the asked size, and the largest of
    // those caps: what none of them could exceed.
    let (mut sessions, mut largest, mut agent) = (0, 0, None);
    for s in replayed {
        if let Some(cap) = alg
            .version_summary_cap(s.agent, s.agent_version.as_deref())
            .filter(|&cap| cap < asked)
        {
            sessions += 1;
            largest = largest.max(cap);
            agent = Some(s.agent);
        }
    }
    let agent = agent?;
    let t = crate::render::thousands;
    let they = if sessions == 1 { "it was" } else { "they were" };
    let (size, how) = if source == ASKED {
        (format!("--summary-tokens {}", t(asked)), " as asked")
    } else {
        (format!("the summary size {} ({source})", t(asked)), "")
    };
    Some(format!(
        "{size} is above the largest summary the {agent} versions that recorded {} could write \
         ({} tokens): {they} replayed at {}{how}",
        crate::render::plural(sessions, "session"),
        t(largest),
        t(asked),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::settings::Settings;
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
