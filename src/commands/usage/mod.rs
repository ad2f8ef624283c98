//! `sessions usage`: tokens and cost by day, week, month, session, project or 5-hour block.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use chrono::{DateTime, Duration, Utc};

use crate::cli::{GlobalArgs, ListFormat, Order, UsageArgs};
use crate::commands::{CmdResult, Failure, scan_options_in, stdout};
use crate::filter::Until;
use crate::model::Agent;
use crate::pricing::{self, Cost, PriceSource, UNRECORDED_MODEL};
use crate::scan::{ScanOptions, ScanResult, SessionSummary, scan, unique_requests};
use crate::usage::blocks::{self, Block};
use crate::usage::{self, Group, GroupKey, Options, ReportKind, Tally, WeekStart, Zone};

mod records;
mod table;

use records::{write_csv, write_document, write_ndjson};
pub use table::cost_label;
use table::{table, write_active};

pub fn run(g: &GlobalArgs, a: &UsageArgs) -> CmdResult {
    // The global --utc rule applies unless a zone is named.
    let tz = if g.utc && a.timezone == "local" {
        "UTC"
    } else {
        a.timezone.as_str()
    };
    let zone = Zone::parse(tz).map_err(Failure::usage)?;
    // A named zone decides every day and time the report shows.
    if matches!(zone, Zone::Local) {
        crate::commands::warn_bad_tz(g, "days are cut in UTC (--timezone names one)");
    }
    let report = a.report();
    if a.active && report != ReportKind::Blocks {
        return Err(Failure::usage(
            "--active applies to `sessions usage blocks`",
        ));
    }
    if a.start_of_week.is_some() && report != ReportKind::Weekly {
        return Err(Failure::usage(
            "--start-of-week applies to `sessions usage weekly`",
        ));
    }
    let start_of_week = a.start_of_week.unwrap_or(WeekStart::Monday);
    let select = a.selection();
    // Plain dates in --since/--until are days of --timezone, as the rows are.
    let opts = scan_options_in(g, &select, &zone)?;
    let (since, until) = (opts.filter.since, opts.filter.until);
    let result = if report == ReportKind::Blocks {
        scan_for_blocks(&opts)
    } else {
        scan(&opts)
    };
    crate::commands::note_unrecognised(&result, g.quiet);
    crate::commands::require_stores(&result, &opts.stores)?;
    let pricing = pricing::active();
    let uopts = Options {
        kind: report,
        zone,
        week_start: start_of_week,
        since,
        until,
    };
    let undated_out = result.undated_outside_window;
    if undated_out > 0 && !g.quiet {
        let (is, them) = if undated_out == 1 {
            ("is", "it")
        } else {
            ("are", "them")
        };
        crate::diag::note(&format!(
            "{} without any time {is} left out by the --since/--until window \
             (`usage daily` without a window shows {them} in its undated row)",
            crate::render::plural(undated_out, "request"),
        ));
    }
    let unique = unique_requests(&result.sessions);
    let now = Utc::now();
    let mut rows: Vec<Row> = match report {
        ReportKind::Blocks => {
            // Blocks are cut from every request read; the window picks the blocks shown.
            let all: Vec<_> = unique
                .iter()
                .map(|&(s, r)| (s, r, usage::time_of(s, r)))
                .collect();
            // The selection (`--project`, `--kind`) picks the requests a block holds, not
            // where it starts.
            let selection = crate::filter::Filter {
                since: None,
                until: None,
                ..opts.filter.clone()
            };
            let (list, undated) = blocks::blocks_holding(
                &all,
                pricing,
                |t| uopts.in_window(Some(t)),
                |s| selection.matches(s),
            );
            if undated > 0 && !g.quiet {
                let (is, they) = if undated == 1 {
                    ("is", "it is")
                } else {
                    ("are", "they are")
                };
                crate::diag::note(&format!(
                    "{} without any time {is} in no block ({they} in `usage daily`'s \
                     undated row)",
                    crate::render::plural(undated, "request"),
                ));
            }
            let mut rows: Vec<Row> = list.iter().map(|b| Row::block(b, now)).collect();
            if a.active {
                rows.retain(|r| matches!(&r.key, RowKey::Block { active: true, .. }));
            }
            rows
        }
        _ => usage::group(&usage::select(&unique, &uopts), &uopts, pricing)
            .iter()
            .map(|grp| Row::group(grp, &uopts))
            .collect(),
    };
    if a.order == Order::Desc {
        // The undated row stays last.
        let undated = rows.iter().position(Row::is_undated);
        let tail: Vec<Row> = undated.map(|i| rows.remove(i)).into_iter().collect();
        rows.reverse();
        rows.extend(tail);
    }
    let total = total_row(&rows);
    let header = Header {
        report,
        zone: &uopts.zone,
        week_start: (report == ReportKind::Weekly).then_some(start_of_week),
        since,
        until,
        prices: pricing.source(),
    };
    match a.format {
        ListFormat::Json => write_document(&header, &rows, &total)?,
        ListFormat::Ndjson => write_ndjson(&header, &rows, &total)?,
        ListFormat::Csv => write_csv(&header, &rows, &total, a.breakdown)?,
        ListFormat::Table => {
            let mut out = stdout();
            if a.active {
                write_active(&mut out, &rows, &uopts.zone, now)?;
            } else if rows.is_empty() {
                crate::commands::write_empty(&mut out, "usage", g, &opts, &select.paths)?;
            } else {
                let ids = result.short_ids();
                let text = table(report, &rows, &total, a.breakdown, &uopts.zone, &ids);
                out.write_all(text.as_bytes())?;
            }
            out.flush()?;
            if !g.quiet && !rows.is_empty() {
                let footer = format!(
                    "{} in {}; times in {}; prices: {}",
                    crate::render::plural(total.tally.requests as usize, "request"),
                    crate::render::plural(rows.len(), "row"),
                    uopts.zone.name(),
                    price_label(&header.prices),
                );
                to_stderr!("{}", crate::diag::labelled("", &footer));
            }
        }
    }
    warn_unpriced(&total.tally.cost, g.quiet);
    Ok(result.report)
}

/// The scan of a blocks report: where a block starts depends on the requests before it, back
/// to an idle stretch of 5 hours, so the window's start is moved back (5 hours, then twice as
/// far each time, at last to the beginning of time) until the requests read settle the blocks
/// ([`blocks::history_suffices`]); each try reads only the files modified since its start. The
/// window's end moves 5 hours on, to the end of the last block a request inside it can start.
/// A window stays in place either way: requests without any time stay out, and are counted.
fn scan_for_blocks(opts: &ScanOptions) -> ScanResult {
    // Blocks are cut from every session of an agent, as the plan meters them, whatever the
    // selection: the command picks the selected sessions' requests out of them.
    let mut o = opts.clone();
    o.filter.project = None;
    o.filter.kind = crate::filter::KindFilter::All;
    o.selection = Some(opts.filter.clone());
    let later = |t: DateTime<Utc>| t.checked_add_signed(blocks::BLOCK).unwrap_or(t);
    o.filter.until = opts.filter.until.map(|u| match u {
        Until::At(t) => Until::At(later(t)),
        Until::Before(t) => Until::Before(later(t)),
    });
    let Some(since) = opts.filter.since else {
        return scan(&o);
    };
    let mut back = blocks::BLOCK;
    for _ in 0..8 {
        let read_from = since
            .checked_sub_signed(back)
            .unwrap_or(DateTime::<Utc>::MIN_UTC);
        o.filter.since = Some(read_from);
        let result = scan(&o);
        let times = unique_requests(&result.sessions)
            .into_iter()
            .filter_map(|(s, r)| usage::time_of(s, r).map(|t| (s.agent, t)));
        if blocks::history_suffices(times, read_from, since) {
            return result;
        }
        back = back * 2;
    }
    o.filter.since = Some(DateTime::<Utc>::MIN_UTC);
    scan(&o)
}

fn price_label(p: &PriceSource) -> String {
    let base = format!("LiteLLM {} ({})", p.litellm_version, p.snapshot_date);
    match &p.file {
        Some(f) => format!("{f}, then {base}"),
        None => base,
    }
}

/// Stderr warnings naming the models whose usage has no price.
pub fn warn_unpriced(cost: &Cost, quiet: bool) {
    if quiet {
        return;
    }
    // Wrapped as every other warning is: model names make it long.
    for line in unpriced_warnings(cost) {
        to_stderr!("{}", crate::diag::labelled("warning", &line));
    }
}

/// One line for the named models, which a `--prices` entry can price, and one for usage whose
/// session recorded no model, which no entry can: pointing at `--prices` there sends the user
/// after a fix that does not exist.
fn unpriced_warnings(cost: &Cost) -> Vec<String> {
    let (unrecorded, named): (Vec<&String>, Vec<&String>) = cost
        .unpriced_models
        .iter()
        .partition(|m| m.as_str() == UNRECORDED_MODEL);
    let mut lines = Vec::new();
    if !named.is_empty() {
        // Model names come from session files: never raw control characters on a terminal.
        let names: Vec<String> = named
            .iter()
            .map(|m| crate::render::text::safe_line(m))
            .collect();
        let (what, its) = if names.len() == 1 {
            ("model", "its")
        } else {
            ("models", "their")
        };
        lines.push(format!(
            "no price for {what} {}: {its} tokens are counted, {its} cost is unknown \
             (null); --prices FILE can add prices",
            names.join(", ")
        ));
    }
    if !unrecorded.is_empty() {
        lines.push(format!(
            "no price for usage shown as {UNRECORDED_MODEL}: its session recorded no \
             model, so its tokens are counted and its cost is unknown (null)"
        ));
    }
    lines
}

fn week_name(w: usage::WeekStart) -> &'static str {
    match w {
        usage::WeekStart::Monday => "monday",
        usage::WeekStart::Tuesday => "tuesday",
        usage::WeekStart::Wednesday => "wednesday",
        usage::WeekStart::Thursday => "thursday",
        usage::WeekStart::Friday => "friday",
        usage::WeekStart::Saturday => "saturday",
        usage::WeekStart::Sunday => "sunday",
    }
}

struct Header<'z> {
    report: ReportKind,
    zone: &'z Zone,
    week_start: Option<usage::WeekStart>,
    since: Option<DateTime<Utc>>,
    until: Option<Until>,
    prices: PriceSource,
}

/// What a row is about, per report.
enum RowKey<'a> {
    Period {
        /// `2026-03-14`, `2026-03-09` (a week by its first day), `2026-03`; `None`: undated.
        label: Option<String>,
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
    },
    Session(&'a SessionSummary),
    Project {
        path: Option<&'a str>,
        hash: Option<&'a str>,
        sessions: usize,
    },
    Block {
        agent: Agent,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        active: bool,
        gap_before: Option<Duration>,
        burn: Option<blocks::BurnRate>,
        projection: Option<blocks::Projection>,
    },
    /// The sum of all rows.
    Total,
}

/// A report row, whatever it groups.
struct Row<'a> {
    key: RowKey<'a>,
    tally: Tally,
    /// (agent, model, tally), most tokens first.
    by_model: Vec<(Agent, &'a str, Tally)>,
}

fn sorted_models<'a>(by_model: &BTreeMap<(Agent, &'a str), Tally>) -> Vec<(Agent, &'a str, Tally)> {
    let mut v: Vec<(Agent, &'a str, Tally)> = by_model
        .iter()
        .map(|((a, m), t)| (*a, *m, t.clone()))
        .collect();
    v.sort_by(|a, b| {
        b.2.usage
            .total()
            .cmp(&a.2.usage.total())
            .then_with(|| (a.0, a.1).cmp(&(b.0, b.1)))
    });
    v
}

impl<'a> Row<'a> {
    fn group(g: &Group<'a>, opts: &Options) -> Self {
        let key = match &g.key {
            GroupKey::Day(d) | GroupKey::Week(d) => period(d.to_string(), opts.bounds(&g.key)),
            GroupKey::Month(d) => period(d.format("%Y-%m").to_string(), opts.bounds(&g.key)),
            GroupKey::Session(s) => RowKey::Session(s.0),
            GroupKey::Project { path, hash } => RowKey::Project {
                path: *path,
                hash: *hash,
                sessions: g.sessions,
            },
            GroupKey::Undated => RowKey::Period {
                label: None,
                start: None,
                end: None,
            },
        };
        Row {
            key,
            tally: g.tally.clone(),
            by_model: sorted_models(&g.by_model),
        }
    }

    fn block(b: &Block<'a>, now: DateTime<Utc>) -> Self {
        let active = b.is_active(now);
        Row {
            key: RowKey::Block {
                agent: b.agent,
                start: b.start,
                end: b.end,
                active,
                gap_before: b.gap_before,
                burn: if active { b.burn_rate() } else { None },
                projection: b.projection(now),
            },
            tally: b.tally.clone(),
            by_model: sorted_models(&b.by_model),
        }
    }

    fn is_undated(&self) -> bool {
        matches!(&self.key, RowKey::Period { label: None, .. })
    }

    fn agents(&self) -> Vec<Agent> {
        let set: BTreeSet<Agent> = self.by_model.iter().map(|(a, _, _)| *a).collect();
        set.into_iter().collect()
    }

    fn models(&self) -> Vec<&'a str> {
        let mut seen: Vec<&'a str> = Vec::new();
        for (_, m, _) in &self.by_model {
            if !seen.contains(m) {
                seen.push(m);
            }
        }
        seen
    }
}

fn period(label: String, bounds: Option<(DateTime<Utc>, DateTime<Utc>)>) -> RowKey<'static> {
    RowKey::Period {
        label: Some(label),
        start: bounds.map(|b| b.0),
        end: bounds.map(|b| b.1),
    }
}

/// The sum of the rows, with its own per-model breakdown.
fn total_row<'a>(rows: &[Row<'a>]) -> Row<'a> {
    let mut merged: BTreeMap<(Agent, &'a str), Tally> = Default::default();
    for r in rows {
        for (a, m, t) in &r.by_model {
            merged.entry((*a, *m)).or_default().merge(t);
        }
    }
    Row {
        key: RowKey::Total,
        tally: usage::total(rows.iter().map(|r| &r.tally)),
        by_model: sorted_models(&merged),
    }
}
