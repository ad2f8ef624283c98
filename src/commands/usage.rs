//! `sessions usage`: tokens and cost by day, week, month, session, project or 5-hour block.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::cli::{FilterArgs, GlobalArgs, ListFormat, Order, UsageArgs};
use crate::commands::list::{no_stores_message, project_label, short_id};
use crate::commands::{CmdResult, Failure, scan_options, stdout, write_json};
use crate::filter::parse_when;
use crate::model::{Agent, Usage};
use crate::pricing::{self, Cost, PriceSource};
use crate::render::json::SCHEMA_VERSION;
use crate::render::table::{Align, Column, render, target_width};
use crate::render::thousands;
use crate::render::{human_count, human_duration, rfc3339};
use crate::scan::{SessionSummary, scan, unique_requests};
use crate::usage::blocks::{self, Block};
use crate::usage::{self, Group, GroupKey, Options, ReportKind, Tally, Zone};

pub fn run(g: &GlobalArgs, a: &UsageArgs) -> CmdResult {
    // The global --utc rule applies unless a zone is named.
    let tz = if g.utc && a.timezone == "local" {
        "UTC"
    } else {
        a.timezone.as_str()
    };
    let zone = Zone::parse(tz).map_err(Failure::usage)?;
    let report = a.report();
    if a.active && report != ReportKind::Blocks {
        return Err(Failure::usage(
            "--active applies to `sessions usage blocks`",
        ));
    }
    let select = a.selection();
    let mut opts = scan_options(g, &select)?;
    let (since, until) = window(&select.filter, &zone, Utc::now())?;
    opts.filter.since = since;
    opts.filter.until = until;
    let result = scan(&opts);
    if !result.stores_found {
        return Err(Failure::failed(no_stores_message(&opts.stores)));
    }
    let pricing = pricing::active();
    let uopts = Options {
        kind: report,
        zone,
        week_start: a.start_of_week,
        since,
        until,
    };
    let unique = unique_requests(&result.sessions);
    let selected = usage::select(&unique, &uopts);
    let now = Utc::now();
    let mut rows: Vec<Row> = match report {
        ReportKind::Blocks => {
            let (list, undated) = blocks::blocks(&selected, pricing);
            if undated > 0 && !g.quiet {
                eprintln!(
                    "note: {undated} request(s) without any time are in no block (they are in \
                     `usage daily`'s undated row)"
                );
            }
            let mut rows: Vec<Row> = list.iter().map(|b| Row::block(b, now)).collect();
            if a.active {
                rows.retain(|r| matches!(&r.key, RowKey::Block { active: true, .. }));
            }
            rows
        }
        _ => usage::group(&selected, &uopts, pricing)
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
        week_start: (report == ReportKind::Weekly).then_some(a.start_of_week),
        since,
        until,
        prices: pricing.source(),
    };
    match a.format {
        ListFormat::Json => {
            let doc = Document {
                schema_version: SCHEMA_VERSION,
                report: report.as_str(),
                timezone: header.zone.name(),
                start_of_week: header.week_start.map(week_name),
                since: since.map(rfc3339),
                until: until.map(rfc3339),
                prices: header.prices.clone(),
                rows: rows.iter().map(|r| r.record(report)).collect(),
                totals: TotalRecord::new(&header, &total, rows.len()),
            };
            let mut out = stdout();
            serde_json::to_writer_pretty(&mut out, &doc)
                .map_err(|e| Failure::failed(e.to_string()))?;
            writeln!(out)?;
            out.flush()?;
        }
        ListFormat::Ndjson => {
            let mut lines: Vec<serde_json::Value> = Vec::new();
            for r in &rows {
                lines.push(to_value(&r.record(report))?);
            }
            lines.push(to_value(&TotalRecord::new(&header, &total, rows.len()))?);
            write_json(&lines, true)?;
        }
        ListFormat::Csv => write_csv(&header, &rows, &total, a.breakdown)?,
        ListFormat::Table => {
            let mut out = stdout();
            if a.active {
                write_active(&mut out, &rows, &uopts.zone, now)?;
            } else if rows.is_empty() {
                writeln!(out, "No usage found.")?;
            } else {
                let text = table(report, &rows, &total, a.breakdown, &uopts.zone);
                out.write_all(text.as_bytes())?;
            }
            out.flush()?;
            if !g.quiet && !rows.is_empty() {
                eprintln!(
                    "{} request(s) in {} row(s); times in {}; prices: {}",
                    thousands(total.tally.requests),
                    rows.len(),
                    uopts.zone.name(),
                    price_label(&header.prices),
                );
            }
        }
    }
    warn_unpriced(&total.tally.cost, g.quiet);
    Ok(result.report)
}

fn to_value<T: Serialize>(v: &T) -> Result<serde_json::Value, Failure> {
    serde_json::to_value(v).map_err(|e| Failure::failed(e.to_string()))
}

fn price_label(p: &PriceSource) -> String {
    let base = format!("LiteLLM {} ({})", p.litellm_version, p.snapshot_date);
    match &p.file {
        Some(f) => format!("{f}, then {base}"),
        None => base,
    }
}

/// One stderr line naming the models whose usage has no price.
pub fn warn_unpriced(cost: &Cost, quiet: bool) {
    if quiet || cost.unpriced_models.is_empty() {
        return;
    }
    let names: Vec<&str> = cost.unpriced_models.iter().map(String::as_str).collect();
    let (what, its) = if names.len() == 1 {
        ("model", "its")
    } else {
        ("models", "their")
    };
    eprintln!(
        "warning: no price for {what} {}: {its} tokens are counted, {its} cost is unknown \
         (null); --prices FILE can add prices",
        names.join(", ")
    );
}

/// A time window: `[since, until]`, either end open.
type Window = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// `--since`/`--until`: plain dates, `today` and `yesterday` are days of `--timezone`; other
/// forms (durations, RFC 3339) are instants as everywhere else.
fn window(f: &FilterArgs, zone: &Zone, now: DateTime<Utc>) -> Result<Window, Failure> {
    let one = |v: &Option<String>, end: bool| -> Result<Option<DateTime<Utc>>, Failure> {
        let Some(s) = v.as_deref() else {
            return Ok(None);
        };
        let t = s.trim();
        let today = zone.date_of(now);
        let day = match t {
            "today" => Some(today),
            "yesterday" => today.pred_opt(),
            _ => NaiveDate::parse_from_str(t, "%Y-%m-%d").ok(),
        };
        match day {
            Some(d) if end => {
                let next = d
                    .succ_opt()
                    .ok_or_else(|| Failure::usage("date out of range"))?;
                Ok(Some(zone.start_of_day(next) - Duration::milliseconds(1)))
            }
            Some(d) => Ok(Some(zone.start_of_day(d))),
            None => parse_when(s, end, now).map(Some).map_err(Failure::usage),
        }
    };
    Ok((one(&f.since, false)?, one(&f.until, true)?))
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
    until: Option<DateTime<Utc>>,
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

    fn record(&self, report: ReportKind) -> RowRecord<'_> {
        RowRecord {
            schema_version: SCHEMA_VERSION,
            report: report.as_str(),
            kind: "row",
            key: self.key_record(),
            figures: Figures::new(&self.tally, self.agents(), self.models(), &self.by_model),
        }
    }

    fn key_record(&self) -> KeyRecord<'_> {
        match &self.key {
            RowKey::Period { label, start, end } => KeyRecord::Period {
                period: label.clone(),
                start: start.map(rfc3339),
                end: end.map(rfc3339),
            },
            RowKey::Session(s) => KeyRecord::Session {
                session_id: &s.id,
                agent: s.agent.as_str(),
                session_kind: s.kind.as_str(),
                path: s.path().display().to_string(),
                project: s.project.as_deref(),
                project_hash: s.project_hash.as_deref(),
                title: s.title.as_deref(),
            },
            RowKey::Project {
                path,
                hash,
                sessions,
            } => KeyRecord::Project {
                project: *path,
                project_hash: *hash,
                sessions: *sessions,
            },
            RowKey::Block {
                agent,
                start,
                end,
                active,
                gap_before,
                burn,
                projection,
            } => KeyRecord::Block {
                agent: agent.as_str(),
                start: rfc3339(*start),
                end: rfc3339(*end),
                active: *active,
                gap_before_minutes: gap_before.map(|d| d.num_minutes()),
                burn_rate: burn.map(|b| BurnRecord {
                    tokens_per_minute: (b.tokens_per_minute * 10.0).round() / 10.0,
                    cost_per_hour_usd: b.cost_per_hour.map(pricing::round_usd),
                }),
                projection: projection.map(|p| ProjectionRecord {
                    tokens: p.tokens,
                    cost_usd: p.cost_usd.map(pricing::round_usd),
                    remaining_minutes: p.remaining_minutes,
                }),
            },
            RowKey::Total => KeyRecord::Total {},
        }
    }
}

fn period(label: String, bounds: Option<(DateTime<Utc>, DateTime<Utc>)>) -> RowKey<'static> {
    RowKey::Period {
        label: Some(label),
        start: bounds.map(|b| b.0),
        end: bounds.map(|b| b.1),
    }
}

// ---- JSON / NDJSON records (docs/json.md, "sessions usage") ----

#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    report: &'static str,
    timezone: String,
    start_of_week: Option<&'static str>,
    since: Option<String>,
    until: Option<String>,
    prices: PriceSource,
    rows: Vec<RowRecord<'a>>,
    totals: TotalRecord<'a>,
}

#[derive(Serialize)]
struct RowRecord<'a> {
    schema_version: u32,
    report: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    key: KeyRecord<'a>,
    #[serde(flatten)]
    figures: Figures<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum KeyRecord<'a> {
    Period {
        period: Option<String>,
        start: Option<String>,
        end: Option<String>,
    },
    Session {
        session_id: &'a str,
        agent: &'static str,
        session_kind: &'static str,
        path: String,
        project: Option<&'a str>,
        project_hash: Option<&'a str>,
        title: Option<&'a str>,
    },
    Project {
        project: Option<&'a str>,
        project_hash: Option<&'a str>,
        sessions: usize,
    },
    Block {
        agent: &'static str,
        start: String,
        end: String,
        active: bool,
        gap_before_minutes: Option<i64>,
        burn_rate: Option<BurnRecord>,
        projection: Option<ProjectionRecord>,
    },
    Total {},
}

#[derive(Serialize)]
struct BurnRecord {
    tokens_per_minute: f64,
    cost_per_hour_usd: Option<f64>,
}

#[derive(Serialize)]
struct ProjectionRecord {
    tokens: u64,
    cost_usd: Option<f64>,
    remaining_minutes: i64,
}

/// The `tokens` object of usage records: the list contract's six fields plus the 1-hour part
/// of cache writes.
#[derive(Serialize)]
struct Tokens {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    cache_write_1h: u64,
    reasoning: u64,
    total: u64,
}

impl From<&Usage> for Tokens {
    fn from(u: &Usage) -> Self {
        Tokens {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            cache_write_1h: u.cache_write_1h,
            reasoning: u.reasoning,
            total: u.total(),
        }
    }
}

#[derive(Serialize)]
struct Figures<'a> {
    agents: Vec<&'static str>,
    models: Vec<&'a str>,
    requests: u64,
    first_at: Option<String>,
    last_at: Option<String>,
    tokens: Tokens,
    cost_usd: Option<f64>,
    unpriced_models: Vec<&'a str>,
    breakdown: Vec<ModelRecord<'a>>,
}

#[derive(Serialize)]
struct ModelRecord<'a> {
    agent: &'static str,
    model: &'a str,
    requests: u64,
    tokens: Tokens,
    cost_usd: Option<f64>,
}

impl<'a> Figures<'a> {
    fn new(
        t: &'a Tally,
        agents: Vec<Agent>,
        models: Vec<&'a str>,
        by_model: &'a [(Agent, &'a str, Tally)],
    ) -> Self {
        Figures {
            agents: agents.iter().map(|a| a.as_str()).collect(),
            models,
            requests: t.requests,
            first_at: t.first_at.map(rfc3339),
            last_at: t.last_at.map(rfc3339),
            tokens: (&t.usage).into(),
            cost_usd: t.cost.usd(),
            unpriced_models: t.cost.unpriced_models.iter().map(String::as_str).collect(),
            breakdown: by_model
                .iter()
                .map(|(a, m, mt)| ModelRecord {
                    agent: a.as_str(),
                    model: m,
                    requests: mt.requests,
                    tokens: (&mt.usage).into(),
                    cost_usd: mt.cost.usd(),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct TotalRecord<'a> {
    schema_version: u32,
    report: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    timezone: String,
    start_of_week: Option<&'static str>,
    since: Option<String>,
    until: Option<String>,
    prices: PriceSource,
    rows: usize,
    #[serde(flatten)]
    figures: Figures<'a>,
}

impl<'a> TotalRecord<'a> {
    fn new(h: &Header, total: &'a Row<'a>, rows: usize) -> Self {
        TotalRecord {
            schema_version: SCHEMA_VERSION,
            report: h.report.as_str(),
            kind: "totals",
            timezone: h.zone.name(),
            start_of_week: h.week_start.map(week_name),
            since: h.since.map(rfc3339),
            until: h.until.map(rfc3339),
            prices: h.prices.clone(),
            rows,
            figures: Figures::new(
                &total.tally,
                total.agents(),
                total.models(),
                &total.by_model,
            ),
        }
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

// ---- table ----

/// A line of the table.
enum Line<'r, 'a> {
    Row(&'r Row<'a>),
    Model(Agent, &'a str, &'r Tally),
    Gap(Duration),
    Blank,
    Total(&'r Row<'a>),
}

/// Renders a line's cell; the flag asks for short numbers.
type CellFn<'z> = Box<dyn Fn(&Line, bool) -> String + 'z>;

/// A table column: its header, alignment, when it is dropped to fit the width (lower first;
/// `None`: never) and, for text that can be cut, its minimum width.
struct Col<'z> {
    header: &'static str,
    align: Align,
    drop: Option<u8>,
    flex_min: Option<usize>,
    cell: CellFn<'z>,
}

fn col<'z>(
    header: &'static str,
    align: Align,
    drop: Option<u8>,
    flex_min: Option<usize>,
    cell: impl Fn(&Line, bool) -> String + 'z,
) -> Col<'z> {
    Col {
        header,
        align,
        drop,
        flex_min,
        cell: Box::new(cell),
    }
}

/// Model names as tables show them: without the `claude-` prefix and the release date.
fn short_model(m: &str) -> String {
    let m = m.strip_prefix("claude-").unwrap_or(m);
    pricing::name::undated(m).unwrap_or(m).to_string()
}

fn tally_of<'r>(line: &Line<'r, '_>) -> Option<&'r Tally> {
    match line {
        Line::Row(r) | Line::Total(r) => Some(&r.tally),
        Line::Model(_, _, t) => Some(t),
        Line::Gap(_) | Line::Blank => None,
    }
}

fn count_cell(n: u64, compact: bool) -> String {
    if compact {
        human_count(n)
    } else {
        thousands(n)
    }
}

fn number_col<'z>(header: &'static str, drop: Option<u8>, field: fn(&Usage) -> u64) -> Col<'z> {
    col(header, Align::Right, drop, None, move |l, compact| {
        tally_of(l).map_or(String::new(), |t| count_cell(field(&t.usage), compact))
    })
}

/// `$0.0123`, `$12.34`, `$1,234.56`; a trailing `+` marks a sum that leaves out usage with no
/// price, `-` usage with no price at all.
pub fn cost_label(c: &Cost) -> String {
    let Some(v) = c.usd() else {
        return "-".into();
    };
    let text = if v != 0.0 && v < 1.0 {
        format!("${v:.4}")
    } else {
        let cents = (v * 100.0).round() as u64;
        format!("${}.{:02}", thousands(cents / 100), cents % 100)
    };
    if c.is_complete() {
        text
    } else {
        format!("{text}+")
    }
}

fn local_minute(zone: &Zone, t: DateTime<Utc>) -> String {
    zone.local(t).format("%Y-%m-%d %H:%M").to_string()
}

fn agents_cell(agents: &[Agent]) -> String {
    agents
        .iter()
        .map(|a| a.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

fn table(report: ReportKind, rows: &[Row], total: &Row, breakdown: bool, zone: &Zone) -> String {
    let mut lines: Vec<Line> = Vec::new();
    // Idle gaps between blocks read naturally only when one agent's blocks are listed.
    let one_agent = {
        let mut agents = rows.iter().flat_map(|r| r.agents());
        let first = agents.next();
        agents.all(|a| Some(a) == first)
    };
    for r in rows {
        if let RowKey::Block {
            gap_before: Some(gap),
            ..
        } = &r.key
        {
            if one_agent && *gap >= blocks::BLOCK {
                lines.push(Line::Gap(*gap));
            }
        }
        lines.push(Line::Row(r));
        if breakdown {
            for (a, m, t) in &r.by_model {
                lines.push(Line::Model(*a, m, t));
            }
        }
    }
    if rows.len() > 1 {
        lines.push(Line::Blank);
        lines.push(Line::Total(total));
    }
    let key_header = match report {
        ReportKind::Daily => "DATE",
        ReportKind::Weekly => "WEEK OF",
        ReportKind::Monthly => "MONTH",
        ReportKind::Session => "SESSION",
        ReportKind::Project => "PROJECT",
        ReportKind::Blocks => "BLOCK START",
    };
    let key_col = col(
        key_header,
        Align::Left,
        None,
        (report == ReportKind::Project).then_some(16),
        move |l, _| match l {
            Line::Row(r) => match &r.key {
                RowKey::Period { label, .. } => label.clone().unwrap_or_else(|| "(undated)".into()),
                RowKey::Session(s) => short_id(&s.id),
                RowKey::Project { path, hash, .. } => match (path, hash) {
                    (Some(p), _) => crate::project::short_label(p),
                    (None, Some(h)) => format!("?{}", crate::render::hash_prefix(h, 8)),
                    (None, None) => "unknown".into(),
                },
                RowKey::Block { start, .. } => local_minute(zone, *start),
                RowKey::Total => String::new(),
            },
            Line::Total(_) => "TOTAL".into(),
            _ => String::new(),
        },
    );
    let mut cols: Vec<Col> = vec![key_col];
    let agents_col = |header: &'static str| {
        col(header, Align::Left, Some(3), None, |l, _| match l {
            Line::Row(r) | Line::Total(r) => agents_cell(&r.agents()),
            Line::Model(a, _, _) => a.as_str().into(),
            _ => String::new(),
        })
    };
    match report {
        ReportKind::Session => {
            cols.push(agents_col("AGENT"));
            cols.push(col(
                "PROJECT",
                Align::Left,
                Some(6),
                Some(8),
                |l, _| match l {
                    Line::Row(Row {
                        key: RowKey::Session(s),
                        ..
                    }) => project_label(s),
                    _ => String::new(),
                },
            ));
            cols.push(col(
                "LAST ACTIVE",
                Align::Left,
                Some(5),
                None,
                move |l, _| match l {
                    Line::Row(r) => r
                        .tally
                        .last_at
                        .map(|t| local_minute(zone, t))
                        .unwrap_or_default(),
                    _ => String::new(),
                },
            ));
        }
        ReportKind::Project => {
            cols.push(agents_col("AGENTS"));
            cols.push(col(
                "SESSIONS",
                Align::Right,
                Some(5),
                None,
                |l, _| match l {
                    Line::Row(Row {
                        key: RowKey::Project { sessions, .. },
                        ..
                    }) => sessions.to_string(),
                    _ => String::new(),
                },
            ));
        }
        ReportKind::Blocks => {
            let mut agent = agents_col("AGENT");
            agent.drop = None;
            cols.push(agent);
            cols.push(col("STATUS", Align::Left, Some(7), None, |l, _| match l {
                Line::Row(Row {
                    key: RowKey::Block { active, end, .. },
                    tally,
                    ..
                }) => {
                    if *active {
                        format!("active, {} left", human_duration(*end - Utc::now()))
                    } else {
                        match (tally.first_at, tally.last_at) {
                            (Some(a), Some(b)) => format!("done, {} used", human_duration(b - a)),
                            _ => "done".into(),
                        }
                    }
                }
                Line::Gap(d) => format!("({} gap)", human_duration(*d)),
                _ => String::new(),
            }));
        }
        _ => cols.push(agents_col("AGENTS")),
    }
    cols.push(col(
        "MODELS",
        Align::Left,
        Some(6),
        Some(20),
        |l, _| match l {
            Line::Row(r) => r
                .models()
                .iter()
                .map(|m| short_model(m))
                .collect::<Vec<_>>()
                .join(", "),
            Line::Model(_, m, _) => format!("└ {}", short_model(m)),
            _ => String::new(),
        },
    ));
    cols.push(number_col("INPUT", Some(4), |u| u.input));
    cols.push(number_col("CACHE WRITE", Some(1), |u| u.cache_write));
    cols.push(number_col("CACHE READ", Some(2), |u| u.cache_read));
    cols.push(number_col("OUTPUT", Some(8), |u| u.output));
    cols.push(number_col("TOTAL", None, |u| u.total()));
    cols.push(col("COST", Align::Right, None, None, |l, _| {
        tally_of(l).map_or(String::new(), |t| cost_label(&t.cost))
    }));
    fit(&cols, &lines, target_width())
}

const GAP: usize = 2;

/// Render the lines under the columns that fit `width`: exact numbers when everything fits at
/// its natural width, else short numbers (`1.2M`), cut text, and columns dropped by priority.
fn fit(cols: &[Col], lines: &[Line], width: Option<usize>) -> String {
    let cells = |compact: bool| -> Vec<Vec<String>> {
        lines
            .iter()
            .map(|l| cols.iter().map(|c| (c.cell)(l, compact)).collect())
            .collect()
    };
    let natural = |rows: &[Vec<String>], i: usize| -> usize {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([cols[i].header.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let exact = cells(false);
    let all: Vec<usize> = (0..cols.len()).collect();
    let Some(limit) = width else {
        return draw(cols, &all, exact, None);
    };
    let total = |rows: &[Vec<String>], keep: &[usize], shrink: bool| -> usize {
        keep.iter()
            .map(|&i| {
                let w = natural(rows, i);
                match cols[i].flex_min {
                    Some(m) if shrink => w.min(m.max(cols[i].header.chars().count())),
                    _ => w,
                }
            })
            .sum::<usize>()
            + GAP * keep.len().saturating_sub(1)
    };
    if total(&exact, &all, false) <= limit {
        return draw(cols, &all, exact, Some(limit));
    }
    let compact = cells(true);
    let mut keep = all;
    let mut droppable: Vec<(u8, usize)> = cols
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.drop.map(|d| (d, i)))
        .collect();
    droppable.sort();
    let mut next = droppable.into_iter();
    while total(&compact, &keep, true) > limit {
        match next.next() {
            Some((_, i)) => keep.retain(|&k| k != i),
            None => break,
        }
    }
    draw(cols, &keep, compact, Some(limit))
}

fn draw(cols: &[Col], keep: &[usize], rows: Vec<Vec<String>>, width: Option<usize>) -> String {
    let columns: Vec<Column> = keep
        .iter()
        .map(|&i| {
            let c = &cols[i];
            // The model list gives up width before a project name does.
            let shrink_first = u8::from(c.header != "MODELS");
            match c.flex_min {
                Some(min) => {
                    Column::flexible(c.header, shrink_first, min.max(c.header.chars().count()))
                }
                None => Column::fixed(c.header, c.align),
            }
        })
        .collect();
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
        .collect();
    render(&columns, rows, width)
}

// ---- blocks --active ----

fn write_active(
    out: &mut impl Write,
    rows: &[Row],
    zone: &Zone,
    now: DateTime<Utc>,
) -> std::io::Result<()> {
    if rows.is_empty() {
        writeln!(
            out,
            "No active 5-hour block: no request in the last 5 hours of any block."
        )?;
        return Ok(());
    }
    for (i, r) in rows.iter().enumerate() {
        let RowKey::Block {
            agent,
            start,
            end,
            burn,
            projection,
            ..
        } = &r.key
        else {
            continue;
        };
        if i > 0 {
            writeln!(out)?;
        }
        let u = &r.tally.usage;
        let field = |out: &mut dyn Write, k: &str, v: String| writeln!(out, "{k:<12} {v}");
        field(
            out,
            "block",
            format!(
                "{agent}, {} → {} ({}), {} elapsed, {} left",
                local_minute(zone, *start),
                zone.local(*end).format("%H:%M"),
                zone.name(),
                human_duration(now - *start),
                human_duration(*end - now),
            ),
        )?;
        field(
            out,
            "models",
            r.models()
                .iter()
                .map(|m| short_model(m))
                .collect::<Vec<_>>()
                .join(", "),
        )?;
        field(
            out,
            "tokens",
            format!(
                "{} total: {} input, {} cache write, {} cache read, {} output",
                thousands(u.total()),
                thousands(u.input),
                thousands(u.cache_write),
                thousands(u.cache_read),
                thousands(u.output)
            ),
        )?;
        field(out, "cost", cost_label(&r.tally.cost))?;
        match burn {
            Some(b) => field(
                out,
                "burn rate",
                format!(
                    "{} tokens/min{}",
                    thousands(b.tokens_per_minute.round() as u64),
                    b.cost_per_hour
                        .map(|c| format!(", {}/hour", usd_plain(c)))
                        .unwrap_or_default()
                ),
            )?,
            None => field(out, "burn rate", "- (one request so far)".into())?,
        }
        if let Some(p) = projection {
            field(
                out,
                "projection",
                format!(
                    "{} tokens{} by {} if the rate holds",
                    thousands(p.tokens),
                    p.cost_usd
                        .map(|c| format!(", {}", usd_plain(c)))
                        .unwrap_or_default(),
                    zone.local(*end).format("%H:%M"),
                ),
            )?;
        }
    }
    Ok(())
}

fn usd_plain(v: f64) -> String {
    cost_label(&Cost {
        usd: v,
        priced_requests: 1,
        ..Cost::default()
    })
}

// ---- CSV ----

/// A JSON record as CSV cells: nested objects become `outer_inner` columns, lists of strings
/// are joined with `;`, nulls are empty.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    use serde_json::Value;
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}_{k}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                flatten(&key(k), v, out);
            }
        }
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect();
            out.insert(prefix.to_string(), parts.join(";"));
        }
        Value::Null => {
            out.insert(prefix.to_string(), String::new());
        }
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

fn cells<T: Serialize>(record: &T) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = BTreeMap::new();
    flatten("", &to_value(record)?, &mut out);
    Ok(out)
}

/// The CSV form of the JSON rows (docs/json.md): the same fields, flattened.
fn write_csv(h: &Header, rows: &[Row], total: &Row, breakdown: bool) -> Result<(), Failure> {
    let keys: &[&str] = match h.report {
        ReportKind::Daily | ReportKind::Weekly | ReportKind::Monthly => &["period", "start", "end"],
        ReportKind::Session => &[
            "session_id",
            "agent",
            "session_kind",
            "path",
            "project",
            "project_hash",
            "title",
        ],
        ReportKind::Project => &["project", "project_hash", "sessions"],
        ReportKind::Blocks => &[
            "agent",
            "start",
            "end",
            "active",
            "gap_before_minutes",
            "burn_rate_tokens_per_minute",
            "burn_rate_cost_per_hour_usd",
            "projection_tokens",
            "projection_cost_usd",
            "projection_remaining_minutes",
        ],
    };
    const FIGURES: [&str; 15] = [
        "model",
        "agents",
        "models",
        "requests",
        "first_at",
        "last_at",
        "tokens_input",
        "tokens_output",
        "tokens_cache_read",
        "tokens_cache_write",
        "tokens_cache_write_1h",
        "tokens_reasoning",
        "tokens_total",
        "cost_usd",
        "unpriced_models",
    ];
    let mut header: Vec<&str> = vec!["schema_version", "report", "type"];
    header.extend_from_slice(keys);
    header.extend_from_slice(&FIGURES);
    let mut w = csv::Writer::from_writer(stdout());
    let err = |e: csv::Error| Failure::failed(e.to_string());
    w.write_record(&header).map_err(err)?;
    let pick = |c: &BTreeMap<String, String>, k: &str| c.get(k).cloned().unwrap_or_default();
    for r in rows {
        let row = cells(&r.record(h.report))?;
        w.write_record(header.iter().map(|k| pick(&row, k)))
            .map_err(err)?;
        if breakdown {
            for m in &r.record(h.report).figures.breakdown {
                let mut model = cells(m)?;
                model.insert("agents".into(), pick(&model, "agent"));
                model.insert("models".into(), pick(&model, "model"));
                let rec = header.iter().map(|k| match *k {
                    "type" => "model".to_string(),
                    k if keys.contains(&k) || ["schema_version", "report"].contains(&k) => {
                        pick(&row, k)
                    }
                    k => pick(&model, k),
                });
                w.write_record(rec).map_err(err)?;
            }
        }
    }
    let totals = cells(&TotalRecord::new(h, total, rows.len()))?;
    w.write_record(header.iter().map(|k| {
        if keys.contains(k) {
            String::new()
        } else {
            pick(&totals, k)
        }
    }))
    .map_err(err)?;
    w.flush()?;
    Ok(())
}
