//! `sessions replay-compress`: replay a context-management algorithm over real sessions and
//! report what it would have saved, per session and in aggregate, for one setting or a grid.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::{GlobalArgs, ReplayArgs, ReplayFormat};
use crate::commands::{CmdResult, Failure, guard, stdout, write_json};
use crate::diag::Report;
use crate::output::safe_path;
use crate::replay::settings::Settings;
use crate::replay::{Algorithm, ReplayOptions, SessionReplay, validate};
use crate::scan::SessionSummary;
use crate::tokens::MAX_TOKENS;

mod list_settings;
mod reading;
mod tables;

use reading::{keep_budget, over_version_caps, replay_all, replay_named};
use tables::{SharedFiles, plot_all, session_table, sweep_table, timeline_table, validation_table};

pub fn run(g: &GlobalArgs, args: &ReplayArgs) -> CmdResult {
    let alg = args.algorithm;
    if args.list_settings {
        return list_settings::run(args);
    }
    if let Some(w) = args.context_window
        && !(1..=MAX_TOKENS).contains(&w)
    {
        return Err(Failure::usage(format!(
            "--context-window {w}: expected a window of 1 to {MAX_TOKENS} tokens"
        )));
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
    // Of the run, not of one session: printed once, whatever the format.
    let run_note = over_version_caps(
        alg,
        replayed.summary_size,
        replayed
            .results
            .iter()
            .zip(&replayed.sessions)
            .filter(|(r, _)| r.is_ok())
            .map(|(_, s)| s),
    );
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
                to_stderr!("wrote {}", safe_path(p));
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
                    let shared = SharedFiles::new(&flat);
                    for r in &flat {
                        writeln!(out)?;
                        out.write_all(timeline_table(r, &shared).as_bytes())?;
                    }
                }
            }
            out.flush()?;
            if !g.quiet {
                print_notes(&flat);
            }
        }
    }
    if let Some(note) = run_note.filter(|_| !g.quiet) {
        crate::diag::note(&note);
    }
    Ok(report)
}

/// Each replay's notes on stderr, once per text, named by the session they concern (and how
/// many others share it); up to 10, then how many more there were.
fn print_notes(replays: &[&SessionReplay]) {
    const SHOWN: usize = 10;
    use std::collections::{HashMap, HashSet};
    // Each text, in first-seen order, with the first session noting it and every session that
    // did (a sweep replays a session several times); a store's thousands of sessions stay linear.
    let mut uniq: Vec<(&str, &str, HashSet<&str>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for r in replays {
        for n in &r.notes {
            let i = *at.entry(n.as_str()).or_insert_with(|| {
                uniq.push((n.as_str(), r.id.as_str(), HashSet::new()));
                uniq.len() - 1
            });
            uniq[i].2.insert(&r.id);
        }
    }
    let sessions: HashSet<&str> = replays.iter().map(|r| r.id.as_str()).collect();
    for (text, first, ids) in uniq.iter().take(SHOWN) {
        // Ids come from session files: never raw control characters on a terminal.
        let id = crate::render::text::cut_prefix(&crate::render::text::safe_line(first), 13);
        // A note every session shares concerns the run, not a session.
        let who = match ids.len() - 1 {
            _ if ids.len() == sessions.len() => String::new(),
            0 => format!("{id}: "),
            n => format!("{id} and {}: ", crate::render::plural(n, "other session")),
        };
        crate::diag::note(&format!("{who}{}", crate::render::text::safe_line(text)));
    }
    if uniq.len() > SHOWN {
        let more = uniq.len() - SHOWN;
        crate::diag::note(&format!(
            "{more} more {} (--format json has every session's notes)",
            if more == 1 { "note" } else { "notes" }
        ));
    }
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
    /// The summary size every replay used.
    summary_size: SummarySize,
    reading: Vec<PathBuf>,
    report: Report,
    /// Replays run again at the confirmed summary size: from a kept input, read again, and
    /// the bytes of input kept.
    #[cfg_attr(not(test), allow(dead_code))]
    again: (usize, usize, u64),
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

/// Every combination of the sweep values over the base settings, validated.
///
/// A number's or a word's values are separated by commas; a text setting's by `;`, since its
/// own values hold commas (`tools_allow=Read*,Bash;Grep` is two settings). A value given
/// twice, an empty one, or a key given with both `--set` and `--sweep` is an error: each would
/// otherwise pass unseen (a repeated row, a dropped value, an overridden `--set`).
fn grid(
    alg: Algorithm,
    base: &[(String, String)],
    sweep: &[(String, String)],
) -> Result<Vec<Settings>, String> {
    let mut combos: Vec<Vec<(String, String)>> = vec![base.to_vec()];
    let canonical = |k: &str| k.trim().replace('-', "_");
    for (i, (key, values)) in sweep.iter().enumerate() {
        // A key swept twice would give every row twice, under one setting.
        if sweep[..i]
            .iter()
            .any(|(k, _)| canonical(k) == canonical(key))
        {
            return Err(format!(
                "--sweep {key} is given twice: list its values once, {key}=V1,V2,…"
            ));
        }
        if base.iter().any(|(k, _)| canonical(k) == canonical(key)) {
            return Err(format!(
                "{key} is given with both --set and --sweep: give its values in --sweep alone"
            ));
        }
        let spec = alg.specs().iter().find(|s| s.key == canonical(key));
        let text = spec.is_some_and(|s| s.kind == crate::replay::settings::Kind::Text);
        let sep = if text { ';' } else { ',' };
        let vals: Vec<&str> = values.split(sep).map(str::trim).collect();
        if vals.iter().all(|v| v.is_empty()) {
            return Err(format!("--sweep {key}=: no values"));
        }
        // A text setting's empty value is one (`tools_allow=` allows every tool).
        if !text && vals.iter().any(|v| v.is_empty()) {
            return Err(format!(
                "--sweep {key}={values}: an empty value (separate the values with {sep:?})"
            ));
        }
        // Values that read the same (`0.2` and `.20`) would give two identical rows.
        if let Some(spec) = spec {
            let mut seen = Vec::with_capacity(vals.len());
            for v in &vals {
                let parsed = spec.parse(v)?;
                if seen.contains(&parsed) {
                    return Err(format!(
                        "--sweep {key}={values}: {v} repeats a value given before it"
                    ));
                }
                seen.push(parsed);
            }
        }
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c = c.clone();
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
