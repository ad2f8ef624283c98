//! `sessions list`: every session, newest first, one line each.

use std::cmp::Ordering;
use std::io::Write;

use crate::cli::{GlobalArgs, ListArgs, ListFormat, SortKey};
use crate::commands::{CmdResult, Failure, scan_options, stdout, write_csv, write_json};
use crate::diag::plural;
use crate::discover::Stores;
use crate::model::ProjectSource;
use crate::render::json::{SessionCsvRow, SessionRecord};
use crate::render::table::{Align, Column, render, target_width};
use crate::render::{human_count, human_duration, local_time};
use crate::scan::{SessionSummary, aggregate_usage, scan, unique_requests};

pub fn run(g: &GlobalArgs, args: &ListArgs) -> CmdResult {
    let opts = scan_options(g, &args.select)?;
    let mut result = scan(&opts);
    if !result.stores_found {
        return Err(Failure::failed(no_stores_message(&opts.stores)));
    }
    sort(&mut result.sessions, args.sort, args.reverse);
    let total_found = result.sessions.len();
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
                writeln!(out, "No sessions found.")?;
            } else {
                out.write_all(table(sessions).as_bytes())?;
            }
            out.flush()?;
            if !g.quiet {
                let usage = aggregate_usage(sessions.iter());
                let shown = if total_found > sessions.len() {
                    format!("{} of {total_found}", sessions.len())
                } else {
                    total_found.to_string()
                };
                eprintln!(
                    "{shown} session(s), {} tokens, {}{}",
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
    for p in &result.unrecognised {
        if !g.quiet {
            eprintln!(
                "note: {}: not a session file of any supported agent",
                p.display()
            );
        }
    }
    Ok(result.report)
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

/// The project as shown in tables: the path, or `?<hash>` when unresolved.
pub fn project_label(s: &SessionSummary) -> String {
    match (&s.project, s.project_source, &s.project_hash) {
        (Some(p), _, _) => crate::project::short_label(p),
        (None, ProjectSource::Unresolved, Some(h)) => format!("?{}", &h[..h.len().min(8)]),
        _ => "-".to_string(),
    }
}

fn table(sessions: &[SessionSummary]) -> String {
    let columns = [
        Column::fixed("AGENT", Align::Left),
        Column::fixed("ID", Align::Left),
        Column::flexible("PROJECT", 1, 12),
        Column::fixed("STARTED", Align::Left),
        Column::fixed("DUR", Align::Right),
        Column::fixed("TURNS", Align::Right),
        Column::fixed("TOOLS", Align::Right),
        Column::fixed("TOKENS", Align::Right),
        Column::fixed("COST", Align::Right),
        Column::fixed("CMP", Align::Right),
        Column::flexible("TITLE", 0, 16),
    ];
    let rows = sessions
        .iter()
        .map(|s| {
            vec![
                s.agent.to_string(),
                short_id(&s.id),
                project_label(s),
                s.started_at.map(local_time).unwrap_or_else(|| "-".into()),
                s.duration()
                    .map(human_duration)
                    .unwrap_or_else(|| "-".into()),
                s.counts.user_turns.to_string(),
                s.counts.tool_calls.to_string(),
                human_count(s.usage.total()),
                crate::commands::usage::cost_label(&crate::pricing::cost_of(
                    s.requests.iter().map(|r| (r.model.as_deref(), &r.usage)),
                )),
                s.compactions.to_string(),
                s.title.clone().unwrap_or_default(),
            ]
        })
        .collect();
    render(&columns, rows, target_width())
}

/// Ids are shown by a prefix long enough to be typed back into `show` in practice.
pub fn short_id(id: &str) -> String {
    id.chars().take(13).collect()
}

/// On a machine with no stores, say where we looked and how to see the sample.
pub fn no_stores_message(stores: &Stores) -> String {
    let mut looked: Vec<String> = Vec::new();
    for p in stores
        .claude
        .iter()
        .chain(&stores.codex)
        .chain(&stores.gemini)
    {
        // A folder the user named is worth a reason; a default that is absent is not.
        let named = stores
            .configured
            .iter()
            .find(|(_, c, _)| c == p || p.starts_with(c))
            .map(|(_, _, source)| format!(" ({source}: no such folder)"))
            .filter(|_| !p.exists())
            .unwrap_or_default();
        looked.push(format!("  {}{named}", p.display()));
    }
    format!(
        "no Claude Code, Codex CLI or Gemini CLI session store found; looked in:\n{}\n\
         To see what sessions looks like, point it at the sample home shipped in the repository:\n  \
         sessions --home testdata/home list",
        looked.join("\n")
    )
}
