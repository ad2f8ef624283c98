//! `sessions compactions`: the compaction ledger. Every context compression the three agents
//! performed, with trigger, size before and after, and the summary they kept; `--stats` gives
//! the observed summary sizes that the replay calibrates from.

use std::collections::BTreeMap;
use std::io::Write;

use chrono::Utc;
use serde::Serialize;

use crate::cli::{CompactionsArgs, GlobalArgs, LedgerFormat};
use crate::commands::list::{id_floor_of, project_label};
use crate::commands::{CmdResult, Failure, scan_options, stdout, write_json};
use crate::model::{Agent, Compaction, CompactionKind, Provenance, Trigger};
use crate::render::json::SCHEMA_VERSION;
use crate::render::table::{Align, Column, Cut, render, render_fitted, target_width};
use crate::render::{ShortIds, human_count, rfc3339, thousands, time};
use crate::scan::{SessionSummary, scan};
use crate::tokens::estimate_text;

/// One row of the ledger (`--format json|ndjson`).
#[derive(Debug, Serialize)]
pub struct EventRecord<'a> {
    pub schema_version: u32,
    pub agent: &'static str,
    pub session_id: &'a str,
    pub path: String,
    pub project: Option<&'a str>,
    pub kind: CompactionKind,
    pub timestamp: Option<String>,
    pub trigger: Trigger,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    /// `recorded` (the agent wrote the number), `estimated` (computed here from the history)
    /// or `unknown`, for each of the two figures.
    pub tokens_before_provenance: Provenance,
    pub tokens_after_provenance: Provenance,
    pub percent_before: Option<u32>,
    pub percent_after: Option<u32>,
    pub duration_ms: Option<u64>,
    pub messages_before: Option<usize>,
    pub messages_after: Option<usize>,
    /// Requests the session had made before the compaction.
    pub request_index: usize,
    pub summary_chars: Option<usize>,
    pub summary_tokens_estimated: Option<u64>,
    pub sections: &'a [String],
    pub summary: Option<&'a str>,
    /// What a Claude microcompaction recorded it saved (`microcompactMetadata.tokensSaved`);
    /// only on those rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_saved: Option<u64>,
}

impl<'a> EventRecord<'a> {
    fn new(s: &'a SessionSummary, c: &'a Compaction) -> Self {
        let summary = c.summary.as_deref().filter(|t| !t.is_empty());
        EventRecord {
            schema_version: SCHEMA_VERSION,
            agent: s.agent.as_str(),
            session_id: &s.id,
            path: s.path().display().to_string(),
            project: s.project.as_deref(),
            kind: c.kind,
            timestamp: c.timestamp.map(rfc3339),
            trigger: c.trigger,
            tokens_before: c.tokens_before,
            tokens_after: c.tokens_after,
            tokens_before_provenance: c.before_provenance(),
            tokens_after_provenance: c.after_provenance(),
            percent_before: c.percent_before,
            percent_after: c.percent_after,
            duration_ms: c.duration_ms,
            messages_before: c.messages_before,
            messages_after: c.messages_after,
            request_index: c.request_index,
            summary_chars: summary.map(|t| t.chars().count()),
            summary_tokens_estimated: summary.map(estimate_text),
            sections: &c.sections,
            summary,
            tokens_saved: microcompact_saved(c),
        }
    }
}

/// `--stats`: what the ledger observed per agent.
#[derive(Debug, Serialize, Default)]
pub struct AgentStats {
    pub compactions: usize,
    pub auto: usize,
    pub manual: usize,
    pub unknown_trigger: usize,
    pub sessions_with_compactions: usize,
    pub median_tokens_before: Option<u64>,
    pub median_tokens_after: Option<u64>,
    pub median_summary_chars: Option<u64>,
    pub median_summary_tokens: Option<u64>,
    /// Every observed summary size, in estimated tokens, sorted: the calibration sample.
    pub summary_tokens: Vec<u64>,
    /// Whether an estimated size went into the median before (after): the table marks it `~`
    /// as it marks each estimated size.
    #[serde(skip)]
    pub before_estimated: bool,
    #[serde(skip)]
    pub after_estimated: bool,
}

#[derive(Debug, Serialize)]
pub struct Stats {
    pub schema_version: u32,
    pub generated_at: String,
    pub agents: BTreeMap<&'static str, AgentStats>,
    pub all: AgentStats,
}

pub fn run(g: &GlobalArgs, args: &CompactionsArgs) -> CmdResult {
    let opts = scan_options(g, &args.select)?;
    let result = scan(&opts);
    crate::commands::require_stores(&result, &opts.stores)?;
    crate::commands::note_unrecognised(&result, g.quiet);
    let mut sessions: Vec<&SessionSummary> = result
        .sessions
        .iter()
        .filter(|s| !s.compaction_events.is_empty())
        .collect();
    // Oldest first; sessions that recorded no time last.
    sessions.sort_by(|a, b| {
        (a.started_at.is_none(), a.started_at)
            .cmp(&(b.started_at.is_none(), b.started_at))
            .then_with(|| a.id.cmp(&b.id))
    });
    let mut events: Vec<(&SessionSummary, &Compaction)> = sessions
        .iter()
        .flat_map(|s| s.compaction_events.iter().map(move |c| (*s, c)))
        .collect();
    // A compaction that several files hold (checkpoint copies, backups, a resumed session's
    // copy) is one event; the first copy in this order is kept, as `replay-compress
    // --validate` counts it.
    let mut seen = std::collections::HashSet::new();
    events.retain(|(s, c)| c.identity(s.agent, &s.id).is_none_or(|k| seen.insert(k)));

    if args.stats {
        let stats = stats(&events);
        match args.format {
            LedgerFormat::Json | LedgerFormat::Ndjson => {
                let mut out = stdout();
                let text = if args.format == LedgerFormat::Json {
                    serde_json::to_string_pretty(&stats)
                } else {
                    serde_json::to_string(&stats)
                }
                .map_err(|e| Failure::failed(e.to_string()))?;
                writeln!(out, "{text}")?;
                out.flush()?;
            }
            LedgerFormat::Table => {
                let mut out = stdout();
                out.write_all(summary_table(&stats).as_bytes())?;
                out.flush()?;
            }
        }
        return Ok(result.report);
    }

    match args.format {
        LedgerFormat::Json | LedgerFormat::Ndjson => {
            let records: Vec<EventRecord> =
                events.iter().map(|(s, c)| EventRecord::new(s, c)).collect();
            write_json(&records, args.format == LedgerFormat::Ndjson)?;
        }
        LedgerFormat::Table => {
            let mut out = stdout();
            if events.is_empty() {
                super::write_empty(&mut out, "compactions", g, &opts, &args.select.paths)?;
            } else {
                out.write_all(table(&events, &result.short_ids()).as_bytes())?;
                writeln!(out)?;
                out.write_all(summary_table(&stats(&events)).as_bytes())?;
            }
            out.flush()?;
        }
    }
    Ok(result.report)
}

/// Median of a sample (the upper-rounded mean of the middle two for an even count).
pub fn median(mut v: Vec<u64>) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        // In u128: recorded sizes can be anything a file says.
        ((u128::from(v[n / 2 - 1]) + u128::from(v[n / 2])).div_ceil(2)) as u64
    })
}

fn agent_stats<'a>(
    events: impl Iterator<Item = &'a (&'a SessionSummary, &'a Compaction)>,
) -> AgentStats {
    let mut st = AgentStats::default();
    let (mut before, mut after, mut chars, mut toks) = (vec![], vec![], vec![], vec![]);
    let mut sessions: Vec<&str> = Vec::new();
    for (s, c) in events {
        st.compactions += 1;
        match c.trigger {
            Trigger::Auto => st.auto += 1,
            Trigger::Manual => st.manual += 1,
            Trigger::Unknown => st.unknown_trigger += 1,
        }
        if !sessions.contains(&s.id.as_str()) {
            sessions.push(&s.id);
        }
        // A microcompaction clears tool results at its own, lower threshold: its size would
        // pull the median size at which the agent summarises down.
        if c.kind != CompactionKind::ClaudeMicrocompact {
            before.extend(c.tokens_before);
            after.extend(c.tokens_after);
            let estimated = |p: Provenance| p != Provenance::Recorded;
            st.before_estimated |= c.tokens_before.is_some() && estimated(c.before_provenance());
            st.after_estimated |= c.tokens_after.is_some() && estimated(c.after_provenance());
        }
        // Masking and info-only traces carry no summary; they do not calibrate summary size.
        if let Some(t) = c.summary.as_deref().filter(|t| !t.is_empty()) {
            chars.push(t.chars().count() as u64);
            toks.push(estimate_text(t));
        }
    }
    st.sessions_with_compactions = sessions.len();
    st.median_tokens_before = median(before);
    st.median_tokens_after = median(after);
    st.median_summary_chars = median(chars);
    toks.sort_unstable();
    st.median_summary_tokens = median(toks.clone());
    st.summary_tokens = toks;
    st
}

pub fn stats(events: &[(&SessionSummary, &Compaction)]) -> Stats {
    let mut agents = BTreeMap::new();
    for a in Agent::ALL {
        let st = agent_stats(events.iter().filter(|(s, _)| s.agent == a));
        if st.compactions > 0 {
            agents.insert(a.as_str(), st);
        }
    }
    Stats {
        schema_version: SCHEMA_VERSION,
        generated_at: rfc3339(Utc::now()),
        agents,
        all: agent_stats(events.iter()),
    }
}

/// A median, `~` in front when an estimated size went into it.
fn marked(v: Option<u64>, estimated: bool) -> String {
    match v {
        Some(t) if estimated => format!("~{}", human_count(t)),
        Some(t) => human_count(t),
        None => "-".into(),
    }
}

fn provenance_mark(p: Provenance) -> &'static str {
    match p {
        Provenance::Recorded => "",
        Provenance::Estimated => "~",
        Provenance::Unknown => "?",
    }
}

fn enum_str<T: Serialize>(v: T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

fn table(events: &[(&SessionSummary, &Compaction)], ids: &ShortIds) -> String {
    let times: Vec<_> = events.iter().map(|(_, c)| c.timestamp).collect();
    let (time_header, time_cells) = time::column("TIME", &times);
    let mut rows: Vec<Vec<String>> = events
        .iter()
        .zip(time_cells)
        .map(|((s, c), time)| {
            let (bmark, amark) = (
                provenance_mark(c.before_provenance()),
                provenance_mark(c.after_provenance()),
            );
            let pct = |p: Option<u32>| p.map(|p| format!("{p}%"));
            let before = c
                .tokens_before
                .map(|t| format!("{bmark}{}", human_count(t)))
                .or_else(|| pct(c.percent_before))
                .unwrap_or_else(|| "-".into());
            let after = c
                .tokens_after
                .map(|t| format!("{amark}{}", human_count(t)))
                .or_else(|| pct(c.percent_after))
                .unwrap_or_else(|| "-".into());
            let saved = microcompact_saved(c).map_or_else(|| "-".into(), human_count);
            let summary = c
                .summary
                .as_deref()
                .filter(|t| !t.is_empty())
                .map(|t| format!("~{} tok", human_count(estimate_text(t))))
                .unwrap_or_else(|| "-".into());
            vec![
                s.agent.to_string(),
                ids.short(&s.id),
                project_label(s),
                time,
                enum_str(c.trigger),
                enum_str(c.kind),
                before,
                after,
                saved,
                summary,
                c.sections.join(","),
            ]
        })
        .collect();
    // SAVED is there for microcompactions only. An AFTER with nothing in it (Claude 2.1
    // records no postTokens) is the first to give way. Then AGENT, SAVED and the time go
    // before KIND, whose name starts with the agent's, so that a narrow table still tells a
    // microcompaction from a compaction; unless KIND would go too, and then it goes first.
    let empty = |i: usize| rows.iter().all(|r| r[i] == "-");
    let (after_empty, with_saved) = (empty(7), !empty(8));
    let columns = |kind_first: bool| {
        let (agent, kind, saved, time) = if kind_first {
            (5, 2, 3, 4)
        } else {
            (3, 6, 4, 5)
        };
        let after = Column::fixed("AFTER", Align::Right);
        let mut columns = vec![
            Column::fixed("AGENT", Align::Left).optional(agent),
            Column::fixed("SESSION", Align::Left)
                .shrink(
                    0,
                    id_floor_of(events.iter().map(|(s, _)| s.id.as_str()), ids),
                )
                .cut(Cut::Prefix),
            Column::flexible("PROJECT", 1, 12).cut(Cut::Start),
            Column::named(time_header.clone(), Align::Left).optional(time),
            Column::fixed("TRIGGER", Align::Left),
            Column::fixed("KIND", Align::Left).optional(kind),
            Column::fixed("BEFORE", Align::Right),
            if after_empty {
                after.optional(0)
            } else {
                after
            },
            Column::fixed("SAVED", Align::Right).optional(saved),
            Column::fixed("SUMMARY", Align::Right).optional(2),
            Column::flexible("SECTIONS", 0, 8).optional(1),
        ];
        if !with_saved {
            columns.remove(8);
        }
        columns
    };
    if !with_saved {
        for r in &mut rows {
            r.remove(8);
        }
    }
    let agent_first = columns(false);
    let (table, kept) = render_fitted(&agent_first, rows.clone(), target_width());
    if kept.contains(&"KIND") {
        return table;
    }
    render(&columns(true), rows, target_width())
}

/// What a Claude microcompaction recorded it saved (`microcompactMetadata.tokensSaved`).
fn microcompact_saved(c: &Compaction) -> Option<u64> {
    match c.kind {
        CompactionKind::ClaudeMicrocompact => c
            .extra
            .get("tokensSaved")
            .and_then(serde_json::Value::as_u64),
        _ => None,
    }
}

fn summary_table(stats: &Stats) -> String {
    let columns = [
        Column::fixed("AGENT", Align::Left),
        Column::fixed("COMPACTIONS", Align::Right),
        Column::fixed("AUTO", Align::Right).optional(1),
        Column::fixed("MANUAL", Align::Right).optional(1),
        Column::fixed("SESSIONS", Align::Right).optional(0),
        Column::fixed("MEDIAN BEFORE", Align::Right),
        Column::fixed("MEDIAN AFTER", Align::Right),
        Column::fixed("MEDIAN SUMMARY", Align::Right).optional(2),
    ];
    let count = |n: usize| thousands(n as u64);
    let row = |name: &str, st: &AgentStats| {
        vec![
            name.to_string(),
            count(st.compactions),
            count(st.auto),
            count(st.manual),
            count(st.sessions_with_compactions),
            marked(st.median_tokens_before, st.before_estimated),
            marked(st.median_tokens_after, st.after_estimated),
            st.median_summary_tokens
                .map(|t| format!("~{} tok", human_count(t)))
                .unwrap_or_else(|| "-".into()),
        ]
    };
    let mut rows: Vec<Vec<String>> = stats.agents.iter().map(|(a, st)| row(a, st)).collect();
    rows.push(row("all", &stats.all));
    render(&columns, rows, target_width())
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn medians() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![5, 1, 3]), Some(3));
        assert_eq!(median(vec![4, 1, 3, 2]), Some(3));
    }
}
