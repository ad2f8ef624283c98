//! The human tables of `sessions usage`: the report, fitted to the terminal, and the active
//! 5-hour block (`blocks --active`).

use std::io::Write;

use chrono::{DateTime, Duration, Utc};

use crate::commands::list::project_label;
use crate::model::{Agent, Usage};
use crate::pricing::{self, Cost};
use crate::render::table::{Align, Column, Cut, render, target_width};
use crate::render::thousands;
use crate::render::{human_count, human_duration};
use crate::usage::blocks;
use crate::usage::{ReportKind, Tally, Zone};

use super::{Row, RowKey};

/// A line of the table.
enum Line<'r, 'a> {
    Row(&'r Row<'a>),
    /// A model's sub-row, with the name it shows.
    Model(Agent, String, &'r Tally),
    Gap(Duration),
    Blank,
    Total(&'r Row<'a>),
}

/// Renders a line's cell; the flag asks for short numbers.
type CellFn<'z> = Box<dyn Fn(&Line, bool) -> String + 'z>;

/// A table column: its header, alignment, when it is dropped to fit the width (lower first;
/// `None`: never) and, for text that can be cut, its minimum width and where it is cut.
struct Col<'z> {
    header: &'static str,
    align: Align,
    drop: Option<u8>,
    flex_min: Option<usize>,
    cut: Cut,
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
        cut: Cut::End,
        cell: Box::new(cell),
    }
}

impl Col<'_> {
    /// Paths keep their end when cut, as in every other table.
    fn path(mut self) -> Self {
        self.cut = Cut::Start;
        self
    }
}

/// Model names as tables show them: without the `claude-` prefix and the release date.
fn short_model(m: &str) -> String {
    let m = m.strip_prefix("claude-").unwrap_or(m);
    pricing::name::undated(m).unwrap_or(m).to_string()
}

/// Models by their short names, each name once (a dated and an undated id are one model).
fn short_models<S: AsRef<str>>(models: &[S]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for m in models {
        let s = short_model(m.as_ref());
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen.join(", ")
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

/// The table of `rows`; a session row's id is cut as `ids` tells it from every session the
/// scan found or its filters hid.
pub(super) fn table(
    report: ReportKind,
    rows: &[Row],
    total: &Row,
    breakdown: bool,
    zone: &Zone,
    ids: &crate::render::ShortIds,
) -> String {
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
            && one_agent
            && *gap >= blocks::BLOCK
        {
            lines.push(Line::Gap(*gap));
        }
        lines.push(Line::Row(r));
        if breakdown {
            for (a, m, t) in &r.by_model {
                // Two raw names of one model (`sonnet-4-5` and its dated id) would show as two
                // identical sub-rows: those keep their whole names.
                let short = short_model(m);
                let twin = r
                    .by_model
                    .iter()
                    .any(|(b, n, _)| (b, n) != (a, m) && short_model(n) == short);
                let label = if twin { m.to_string() } else { short };
                lines.push(Line::Model(*a, label, t));
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
                RowKey::Session(s) => ids.short(&s.id),
                RowKey::Project { path, hash, .. } => {
                    crate::render::project_cell(path.as_deref(), hash.as_deref())
                }
                RowKey::Block { start, .. } => local_minute(zone, *start),
                RowKey::Total => String::new(),
            },
            Line::Total(_) => "TOTAL".into(),
            _ => String::new(),
        },
    );
    let key_col = if report == ReportKind::Project {
        key_col.path()
    } else {
        key_col
    };
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
            cols.push(
                col("PROJECT", Align::Left, Some(6), Some(8), |l, _| match l {
                    Line::Row(Row {
                        key: RowKey::Session(s),
                        ..
                    }) => project_label(s),
                    _ => String::new(),
                })
                .path(),
            );
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
            // A block is one agent's, and blocks of two agents can start together: the column
            // stays. The total's cell would list every agent of the rows above, and widen the
            // column past a narrow terminal.
            cols.push(col("AGENT", Align::Left, None, None, |l, _| match l {
                Line::Row(r) => agents_cell(&r.agents()),
                Line::Model(a, _, _) => a.as_str().into(),
                _ => String::new(),
            }));
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
    // A breakdown row is named by its model alone: with --breakdown the column stays (cut).
    cols.push(col(
        "MODELS",
        Align::Left,
        (!breakdown).then_some(6),
        Some(20),
        |l, _| match l {
            Line::Row(r) => short_models(&r.models()),
            Line::Model(_, label, _) => format!("└ {label}"),
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
                        .cut(c.cut)
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

pub(super) fn write_active(
    out: &mut impl Write,
    rows: &[Row],
    zone: &Zone,
    now: DateTime<Utc>,
) -> std::io::Result<()> {
    if rows.is_empty() {
        writeln!(
            out,
            "{}",
            crate::render::text::wrap(
                "No active 5-hour block: no request in the last 5 hours of any block.",
                target_width(),
                2
            )
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
        // Values wrap under themselves on a narrow terminal.
        let width = target_width();
        let field = |out: &mut dyn Write, k: &str, v: String| {
            // Model names come from session files: never raw control characters.
            let v = crate::render::text::safe_line(&v);
            let v = crate::render::text::wrap(&v, width.map(|w| w.saturating_sub(13)), 0);
            writeln!(out, "{k:<12} {}", v.replace('\n', "\n             "))
        };
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
        field(out, "models", short_models(&r.models()))?;
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
    cost_label(&Cost::of_usd(v))
}
