//! `sessions list`: every session, newest first, one line each.

use std::cmp::Ordering;
use std::io::Write;

use crate::cli::{GlobalArgs, ListArgs, ListFormat, SortKey};
use crate::commands::{CmdResult, scan_options, stdout, write_csv, write_json};
use crate::discover::{StoreOptions, Stores};
use crate::model::Agent;
use crate::render::json::{SessionCsvRow, SessionRecord};
use crate::render::table::{Align, Column, Cut, render, target_width};
use crate::render::text::safe_line;
use crate::render::{ShortIds, human_count, human_duration, plural, project_cell, thousands, time};
use crate::scan::{SessionSummary, aggregate_usage, scan, unique_requests};

pub fn run(g: &GlobalArgs, args: &ListArgs) -> CmdResult {
    // Checked whether or not the stores turn out empty: a typo is found the first time.
    if let Some(dir) = &args.fallback_home {
        crate::commands::check_home_folder("--fallback-home", dir)?;
    }
    let mut opts = scan_options(g, &args.select)?;
    let mut result = scan(&opts);
    let looked = opts.stores.clone();
    // A fresh machine: nothing at all in the stores (no filter hid anything) and a fallback
    // home named (the README's first command names the sample home).
    let nothing = result.sessions.is_empty()
        && result.skipped_by_time == 0
        && !args.select.filter.is_set()
        && args.select.paths.is_empty();
    if let (true, Some(dir)) = (nothing, &args.fallback_home) {
        opts.stores = Stores::resolve(
            &StoreOptions {
                home: Some(dir.clone()),
                ..Default::default()
            },
            &|k| std::env::var(k).ok(),
        );
        if !g.quiet {
            crate::diag::note(&format!(
                "your stores hold no session; listing {} instead\nlooked in {}",
                crate::output::safe_path(dir),
                looked_in(&looked, &opts.filter.agents())
            ));
        }
        let report = std::mem::take(&mut result.report);
        result = scan(&opts);
        result.report.warnings.splice(0..0, report.warnings);
    }
    crate::commands::require_stores(&result, &opts.stores)?;
    sort(&mut result.sessions, args.sort, args.reverse);
    let total_found = result.sessions.len();
    // Told apart from every session found, not only those a limit or a filter keeps.
    let ids = result.short_ids();
    if let Some(n) = args.limit {
        result.sessions.truncate(n);
    }
    let sessions = &result.sessions;
    // Cross-file de-duplicated, like the token total.
    let cost = crate::pricing::cost_of(
        unique_requests(sessions)
            .into_iter()
            .map(|(_, r)| (r.model.as_deref(), &r.usage)),
    );
    match args.format {
        ListFormat::Json | ListFormat::Ndjson => {
            let records: Vec<SessionRecord> = sessions.iter().map(SessionRecord::new).collect();
            write_json(&records, args.format == ListFormat::Ndjson)?;
        }
        ListFormat::Csv => {
            let records: Vec<SessionRecord> = sessions.iter().map(SessionRecord::new).collect();
            let rows: Vec<SessionCsvRow> = records.iter().map(SessionCsvRow::from).collect();
            write_csv(&rows)?;
        }
        ListFormat::Table => {
            let mut out = stdout();
            if sessions.is_empty() {
                crate::commands::write_empty(&mut out, "sessions", g, &opts, &args.select.paths)?;
            } else {
                out.write_all(table(sessions, &ids).as_bytes())?;
            }
            out.flush()?;
            if !g.quiet {
                let usage = aggregate_usage(sessions.iter());
                let shown = if total_found > sessions.len() {
                    format!(
                        "{} of {}",
                        thousands(sessions.len() as u64),
                        plural(total_found, "session")
                    )
                } else {
                    plural(total_found, "session")
                };
                to_stderr!(
                    "{shown}, {} tokens, {}{}",
                    human_count(usage.total()),
                    crate::commands::usage::cost_label(&cost),
                    if result.skipped_by_time > 0 {
                        format!(
                            "; {} outside the time window not read",
                            plural(result.skipped_by_time, "file")
                        )
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
    crate::commands::usage::warn_unpriced(&cost, g.quiet);
    crate::commands::note_unrecognised(&result, g.quiet);
    Ok(result.report)
}

/// A path with the home folder shown as `~`.
fn home_relative(p: &std::path::Path) -> String {
    let shown = p.display().to_string();
    match std::env::var("HOME") {
        Ok(h) if h.len() > 1 => match shown.strip_prefix(h.trim_end_matches('/')) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => shown,
        },
        _ => shown,
    }
}

/// "looked in …", wrapped at spaces to the width tables fit: its paths stay whole. What an
/// empty table says on stderr ([`write_empty`](crate::commands::write_empty)).
pub fn looked_in_line(stores: &Stores, agents: &[Agent]) -> String {
    crate::render::text::wrap_at_spaces(
        &format!("looked in {}", looked_in(stores, agents)),
        crate::render::table::stderr_width(),
        2,
    )
}

/// The store folders of `agents` read, on one line.
pub fn looked_in(stores: &Stores, agents: &[Agent]) -> String {
    let all: Vec<String> = Agent::ALL
        .iter()
        .filter(|a| agents.contains(a))
        .flat_map(|&a| stores.roots(a))
        .map(|p| safe_line(&home_relative(p)))
        .collect();
    if all.is_empty() {
        "no store folder configured".into()
    } else {
        all.join(", ")
    }
}

fn sort(sessions: &mut [SessionSummary], key: SortKey, reverse: bool) {
    // Numbers and times: largest first; names: A→Z. Ties: newest first, then id.
    let cmp = |a: &SessionSummary, b: &SessionSummary| -> Ordering {
        let primary = match key {
            SortKey::Started => b.started_at.cmp(&a.started_at),
            SortKey::Updated => b.updated_at.cmp(&a.updated_at),
            SortKey::Duration => b.duration().cmp(&a.duration()),
            SortKey::Turns => b.counts.user_turns.cmp(&a.counts.user_turns),
            SortKey::Tools => b.counts.tool_calls.cmp(&a.counts.tool_calls),
            SortKey::Tokens => b.usage.total().cmp(&a.usage.total()),
            SortKey::Compactions => b.compactions.cmp(&a.compactions),
            SortKey::Project => a.project.cmp(&b.project),
            SortKey::Agent => a.agent.cmp(&b.agent),
        };
        primary
            .then_with(|| b.started_at.cmp(&a.started_at))
            .then_with(|| a.id.cmp(&b.id))
    };
    sessions.sort_by(|a, b| if reverse { cmp(b, a) } else { cmp(a, b) });
}

/// The project as shown in tables (see [`crate::render::project_label`]).
pub fn project_label(s: &SessionSummary) -> String {
    project_cell(s.project.as_deref(), s.project_hash.as_deref())
}

/// The columns of `list`, in the order they give way on a narrow terminal: the compaction,
/// tool and duration counts go first, then turns, tokens, agent and start; id, project and
/// title stay, shortened.
fn table(sessions: &[SessionSummary], ids: &ShortIds) -> String {
    let starts: Vec<_> = sessions.iter().map(|s| s.started_at).collect();
    let (started, start_cells) = time::column("STARTED", &starts);
    let columns = [
        Column::fixed("AGENT", Align::Left).optional(5),
        Column::fixed("ID", Align::Left)
            .shrink(0, id_floor_of(sessions.iter().map(|s| s.id.as_str()), ids))
            .cut(Cut::Prefix),
        Column::flexible("PROJECT", 1, 16).cut(Cut::Start),
        Column::named(started, Align::Left).optional(6),
        Column::fixed("DUR", Align::Right).optional(2),
        Column::fixed("TURNS", Align::Right).optional(3),
        Column::fixed("TOOLS", Align::Right).optional(1),
        Column::fixed("TOKENS", Align::Right).optional(4),
        Column::fixed("COST", Align::Right).optional(3),
        Column::fixed("CMP", Align::Right).optional(0),
        Column::flexible("TITLE", 2, 18),
    ];
    let rows = sessions
        .iter()
        .zip(start_cells)
        .map(|(s, started)| {
            vec![
                s.agent.to_string(),
                ids.short(&s.id),
                project_label(s),
                started,
                s.duration()
                    .map(human_duration)
                    .unwrap_or_else(|| "-".into()),
                thousands(s.counts.user_turns),
                thousands(s.counts.tool_calls),
                human_count(s.usage.total()),
                crate::commands::usage::cost_label(&s.own_cost()),
                thousands(s.compactions as u64),
                s.title.clone().unwrap_or_default(),
            ]
        })
        .collect();
    render(&columns, rows, target_width())
}

/// How narrow an id column may get: eight characters, or as many as keep the ids of its rows
/// apart.
pub fn id_floor_of<'a>(rows: impl IntoIterator<Item = &'a str>, ids: &ShortIds) -> usize {
    rows.into_iter()
        .map(|id| ids.unique_len(id))
        .fold(8, usize::max)
}
