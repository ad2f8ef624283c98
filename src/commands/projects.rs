//! `sessions projects`: one line per project with its agents, session counts, tokens and how
//! its path was resolved.

use std::collections::BTreeMap;
use std::io::Write;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::cli::{GlobalArgs, ListFormat, ProjectsArgs};
use crate::commands::{CmdResult, scan_options, stdout, write_csv, write_json};
use crate::model::{Agent, SessionKind, TokenTotals};
use crate::pricing::Cost;
use crate::render::json::SCHEMA_VERSION;
use crate::render::table::{Align, Column, Cut, render, target_width};
use crate::render::{human_count, project_cell, rfc3339, thousands, time};
use crate::scan::{SessionSummary, aggregate_usage, scan, unique_requests_of};

#[derive(Debug, Serialize)]
pub struct ProjectRecord {
    pub schema_version: u32,
    /// The project path; `null` when unresolved.
    pub project: Option<String>,
    /// Gemini `projectHash` for unresolved projects (the full hash; tables show a prefix).
    pub project_hash: Option<String>,
    /// How the path was resolved, over all its sessions: `cwd`, `project_root`,
    /// `projects_json`, `hash_match`, `unresolved`.
    pub sources: Vec<&'static str>,
    pub agents: Vec<&'static str>,
    pub sessions: u64,
    pub subagent_sessions: u64,
    pub sessions_by_agent: BTreeMap<&'static str, u64>,
    /// De-duplicated across files: a response replayed in a sub-agent log counts once.
    pub tokens: TokenTotals,
    /// USD of those tokens at the active prices; `null` when none of it has a price.
    pub cost_usd: Option<f64>,
    #[serde(skip)]
    pub cost: Cost,
    pub first_at: Option<String>,
    pub last_at: Option<String>,
}

pub fn run(g: &GlobalArgs, args: &ProjectsArgs) -> CmdResult {
    // `--kind` defaults to `all` here (cli.rs): a project's tokens include its sub-agents'.
    let opts = scan_options(g, &args.select)?;
    let result = scan(&opts);
    crate::commands::require_stores(&result, &opts.stores)?;
    crate::commands::note_unrecognised(&result, g.quiet);
    let records = build(&result.sessions);
    match args.format {
        ListFormat::Json | ListFormat::Ndjson => {
            write_json(&records, args.format == ListFormat::Ndjson)?
        }
        ListFormat::Csv => {
            #[derive(Serialize, Default)]
            struct Row<'a> {
                schema_version: u32,
                project: Option<&'a str>,
                project_hash: Option<&'a str>,
                sources: String,
                agents: String,
                sessions: u64,
                subagent_sessions: u64,
                tokens_total: u64,
                tokens_input: u64,
                tokens_output: u64,
                tokens_cache_read: u64,
                tokens_cache_write: u64,
                cost_usd: Option<f64>,
                first_at: Option<&'a str>,
                last_at: Option<&'a str>,
                // Added after the first release of the columns: at the end, so that no column
                // moves.
                tokens_reasoning: u64,
                sessions_claude: u64,
                sessions_codex: u64,
                sessions_gemini: u64,
            }
            let rows: Vec<Row> = records
                .iter()
                .map(|r| Row {
                    schema_version: r.schema_version,
                    project: r.project.as_deref(),
                    project_hash: r.project_hash.as_deref(),
                    sources: r.sources.join(";"),
                    agents: r.agents.join(";"),
                    sessions: r.sessions,
                    subagent_sessions: r.subagent_sessions,
                    tokens_total: r.tokens.total,
                    tokens_input: r.tokens.input,
                    tokens_output: r.tokens.output,
                    tokens_cache_read: r.tokens.cache_read,
                    tokens_cache_write: r.tokens.cache_write,
                    cost_usd: r.cost_usd,
                    first_at: r.first_at.as_deref(),
                    last_at: r.last_at.as_deref(),
                    tokens_reasoning: r.tokens.reasoning,
                    sessions_claude: r.sessions_by_agent.get("claude").copied().unwrap_or(0),
                    sessions_codex: r.sessions_by_agent.get("codex").copied().unwrap_or(0),
                    sessions_gemini: r.sessions_by_agent.get("gemini").copied().unwrap_or(0),
                })
                .collect();
            write_csv(&rows)?;
        }
        ListFormat::Table => {
            let mut out = stdout();
            if records.is_empty() {
                super::write_empty(&mut out, "projects", g, &opts, &args.select.paths)?;
            } else {
                out.write_all(table(&records).as_bytes())?;
            }
            out.flush()?;
        }
    }
    let mut cost = Cost::default();
    for r in &records {
        cost.merge(&r.cost);
    }
    crate::commands::usage::warn_unpriced(&cost, g.quiet);
    Ok(result.report)
}

pub fn build(sessions: &[SessionSummary]) -> Vec<ProjectRecord> {
    // Group key: the path, or the hash for unresolved Gemini projects.
    let mut groups: BTreeMap<(Option<String>, Option<String>), Vec<&SessionSummary>> =
        BTreeMap::new();
    for s in sessions {
        let key = match &s.project {
            Some(p) => (Some(p.clone()), None),
            None => (None, s.project_hash.clone()),
        };
        groups.entry(key).or_default().push(s);
    }
    let mut records: Vec<ProjectRecord> = groups
        .into_iter()
        .map(|((project, hash), members)| {
            let mut sources: Vec<&'static str> = Vec::new();
            let mut agents: Vec<Agent> = Vec::new();
            let mut by_agent: BTreeMap<&'static str, u64> = BTreeMap::new();
            let (mut main, mut sub) = (0, 0);
            let mut first: Option<DateTime<Utc>> = None;
            let mut last: Option<DateTime<Utc>> = None;
            for s in &members {
                let src = s.project_source.as_str();
                if !sources.contains(&src) {
                    sources.push(src);
                }
                if !agents.contains(&s.agent) {
                    agents.push(s.agent);
                }
                match s.kind {
                    SessionKind::Main => {
                        main += 1;
                        *by_agent.entry(s.agent.as_str()).or_default() += 1;
                    }
                    SessionKind::Subagent => sub += 1,
                }
                first = match (first, s.started_at) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                last = match (last, s.updated_at) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
            agents.sort();
            let cost = crate::pricing::cost_of(
                unique_requests_of(members.iter().copied())
                    .into_iter()
                    .map(|(_, r)| (r.model.as_deref(), &r.usage)),
            );
            ProjectRecord {
                schema_version: SCHEMA_VERSION,
                project,
                project_hash: hash,
                sources,
                agents: agents.iter().map(|a| a.as_str()).collect(),
                sessions: main,
                subagent_sessions: sub,
                sessions_by_agent: by_agent,
                tokens: aggregate_usage(members.iter().copied()).into(),
                cost_usd: cost.usd(),
                cost,
                first_at: first.map(rfc3339),
                last_at: last.map(rfc3339),
            }
        })
        .collect();
    records.sort_by(|a, b| {
        b.last_at
            .cmp(&a.last_at)
            .then_with(|| a.project.cmp(&b.project))
    });
    records
}

fn table(records: &[ProjectRecord]) -> String {
    let lasts: Vec<Option<DateTime<Utc>>> = records
        .iter()
        .map(|r| {
            r.last_at
                .as_deref()
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.with_timezone(&Utc))
        })
        .collect();
    let (last, last_cells) = time::column("LAST ACTIVE", &lasts);
    let columns = [
        Column::flexible("PROJECT", 1, 16).cut(Cut::Start),
        Column::fixed("AGENTS", Align::Left).optional(2),
        Column::fixed("SESSIONS", Align::Right),
        Column::fixed("SUB", Align::Right).optional(1),
        Column::fixed("TOKENS", Align::Right),
        Column::fixed("COST", Align::Right).optional(2),
        Column::named(last, Align::Left).optional(3),
        Column::fixed("RESOLVED BY", Align::Left)
            .shrink(0, 11)
            .optional(0),
    ];
    let rows = records
        .iter()
        .zip(last_cells)
        .map(|(r, last)| {
            vec![
                project_cell(r.project.as_deref(), r.project_hash.as_deref()),
                r.agents.join(","),
                thousands(r.sessions),
                thousands(r.subagent_sessions),
                human_count(r.tokens.total),
                crate::commands::usage::cost_label(&r.cost),
                last,
                r.sources.join(","),
            ]
        })
        .collect();
    render(&columns, rows, target_width())
}
