//! The human output of `replay-compress`: the per-session, sweep, validation, timeline and
//! settings tables, the verdict, and the plots.

use std::path::{Path, PathBuf};

use crate::commands::{Failure, Names};
use crate::output::Guard;
use crate::output::safe_path;
use crate::render::table::{Align, Column, Cut, render, render_fitted, target_width};
use crate::render::text::wrap;
use crate::render::{SHORT_ID, ShortIds, human_count, plot, plural, thousands};
use crate::replay::{Algorithm, EventKind, SessionReplay, Totals, validate};

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
    /// Σ of the sessions' `cost.saved_vs_recorded_usd`, likewise.
    saved_vs_recorded_usd: Option<f64>,
    /// The agent's own compactions priced on the recorded side, and Σ of their cost.
    agent_compactions: u64,
    agent_usd: Option<f64>,
    comp: usize,
    followed: usize,
    peak: u64,
    /// Sessions (distinct agent and id), and the rows: files of one session whose histories
    /// diverge are replayed one row each.
    n: usize,
    files: usize,
    /// Of the `n` sessions, those the algorithm intervened on at least once.
    acted: usize,
}

fn aggregate<'a>(rs: impl Iterator<Item = &'a SessionReplay>) -> Aggregate {
    let mut t = Totals::default();
    let (mut comp, mut followed, mut peak, mut files) = (0, 0, 0, 0);
    let mut ids = std::collections::HashSet::new();
    let mut acted = std::collections::HashSet::new();
    let mut saved_usd: Option<f64> = None;
    let mut saved_vs_recorded_usd: Option<f64> = None;
    let mut agent_compactions = 0u64;
    let mut agent_usd: Option<f64> = None;
    let sum = |total: &mut Option<f64>, usd: Option<f64>| {
        if let Some(usd) = usd {
            *total = Some(total.unwrap_or(0.0) + usd);
        }
    };
    for r in rs {
        sum(&mut saved_usd, r.cost.saved_usd);
        sum(&mut saved_vs_recorded_usd, r.cost.saved_vs_recorded_usd);
        let agent = &r.cost.recorded_summariser;
        agent_compactions = agent_compactions.saturating_add(agent.compactions);
        sum(&mut agent_usd, agent.usd);
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
        ids.insert((r.agent, r.id.as_str()));
        if r.compressions > 0 {
            acted.insert((r.agent, r.id.as_str()));
        }
        files += 1;
    }
    t.saved_pct = crate::replay::pct(t.saved, t.full);
    t.saved_vs_recorded_pct = crate::replay::pct(t.saved_vs_recorded, t.recorded);
    Aggregate {
        t,
        saved_usd,
        saved_vs_recorded_usd,
        agent_compactions,
        agent_usd,
        comp,
        followed,
        peak,
        n: ids.len(),
        files,
        acted: acted.len(),
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
        thousands(comp as u64),
        human_count(peak),
    ]
}

/// The replays that are one of several files of a session (one agent and id: Gemini copies
/// that diverged, Claude files that each hold responses the others lack), each with its
/// number, `#1`, `#2`…, in order of id, then path. Their histories diverged from a shared
/// start, which each one's figures hold.
pub(super) struct SharedFiles<'a>(Vec<(&'a Path, usize)>);

impl<'a> SharedFiles<'a> {
    pub(super) fn new(rs: &[&'a SessionReplay]) -> Self {
        let mut files: Vec<(&str, &str, &Path)> = rs
            .iter()
            .map(|r| (r.agent.as_str(), r.id.as_str(), r.path.as_path()))
            .collect();
        files.sort_unstable();
        files.dedup();
        // Sorted, the files of one id are neighbours: linear on a store's thousands.
        let shared = files
            .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
            .filter(|group| group.len() > 1)
            .flatten()
            .enumerate()
            .map(|(n, f)| (f.2, n + 1))
            .collect();
        SharedFiles(shared)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `#2`, for a replay of a shared file.
    fn mark(&self, r: &SessionReplay) -> Option<String> {
        self.0
            .iter()
            .find(|(p, _)| *p == r.path.as_path())
            .map(|(_, n)| format!("#{n}"))
    }

    /// The lines under a table whose rows (or totals) include shared files: what they are,
    /// and (`listed`, when the rows carry their marks) each file by its mark.
    fn legend(&self, listed: bool) -> String {
        let what = "files of one session whose histories diverge (branches from one point, a \
                    copy resumed elsewhere, pieces of one long session), each replayed on its \
                    own: the history they share is in each one's figures, and counted once per \
                    file in the totals";
        let text = if listed {
            format!("FILE: {what}")
        } else {
            format!("these sessions include {what}")
        };
        let mut out = wrap(&text, target_width(), 2);
        if listed {
            for (path, n) in &self.0 {
                out.push('\n');
                out.push_str(&path_lines(&format!("#{n} "), path));
            }
        }
        out.push('\n');
        out
    }
}

/// `label` and the whole of `path`, broken after a `/` where it would pass the width
/// (continuations indented by two): copies of one session often differ in one folder only,
/// which a path cut to fit could lose.
fn path_lines(label: &str, path: &Path) -> String {
    use crate::render::text::width;
    let path = crate::render::text::safe_line(&path.to_string_lossy());
    let max = target_width().unwrap_or(usize::MAX).max(20);
    let mut out = label.to_string();
    let mut col = width(label);
    for part in path.split_inclusive('/') {
        let w = width(part);
        if col > 2 && col + w > max {
            out.push_str("\n  ");
            col = 2;
        }
        // A folder name longer than a line is broken where the line ends.
        for c in part.chars() {
            let cw = width(c.encode_utf8(&mut [0; 4]));
            if col > 2 && col + cw > max {
                out.push_str("\n  ");
                col = 2;
            }
            out.push(c);
            col += cw;
        }
    }
    out
}

pub(super) fn session_table(rs: &[&SessionReplay]) -> String {
    let mut columns = vec![
        Column::fixed("AGENT", Align::Left).optional(5),
        // An id keeps a prefix `show` accepts; the total row's label stays whole.
        Column::fixed("SESSION", Align::Left)
            .shrink(0, 8.max(rs.len().to_string().len() + 6))
            .cut(Cut::Prefix),
        Column::fixed("REQS", Align::Right).optional(3),
    ];
    let shared = SharedFiles::new(rs);
    if !shared.is_empty() {
        // Rows of one id are told apart by their file, listed under the table.
        columns.insert(2, Column::fixed("FILE", Align::Left));
    }
    columns.extend(TOTAL_COLUMNS);
    columns.push(Column::fixed("BASIS", Align::Left).optional(0));
    let row = |agent: String, id: String, file: Option<String>, reqs, a: &Aggregate, basis| {
        let mut cells = vec![agent, id];
        if !shared.is_empty() {
            cells.push(file.unwrap_or_default());
        }
        cells.push(thousands(reqs as u64));
        cells.extend(totals_cells(&a.t, a.saved_usd, a.comp, a.peak));
        cells.push(String::from(basis));
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
                shared.mark(r),
                r.requests,
                &aggregate(std::iter::once(*r)),
                r.basis,
            )
        })
        .collect();
    if rs.len() > 1 {
        let all = aggregate(rs.iter().copied());
        let reqs = rs.iter().map(|r| r.requests).sum();
        // Short, so that a narrow table keeps it whole: the verdict says "sessions".
        rows.push(row(
            String::new(),
            format!("all ({})", all.n),
            None,
            reqs,
            &all,
            "",
        ));
    }
    let all = aggregate(rs.iter().copied());
    let (table, kept) = render_fitted(&columns, rows, target_width());
    format!(
        "{}\n{}{}\n{}{}\n",
        wrap(&header(rs, true), target_width(), 2),
        table,
        wrap(&legend(&kept), target_width(), 2),
        if shared.is_empty() {
            String::new()
        } else {
            shared.legend(true)
        },
        wrap(&verdict(rs.first().copied(), &all, None), target_width(), 2)
    )
}

/// What the columns mean, for a newcomer.
const LEGEND: &[(&str, &str)] = &[
    (
        "FULL",
        "context with no management, summed over requests (so are RECORDED and WHAT-IF)",
    ),
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
    ("PEAK", "largest what-if context of one request"),
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

/// What the algorithm would have done and saved, one baseline per sentence: first against no
/// management, then against what was recorded. Every figure carries its own verb, so a
/// negative one reads as a cost ("cost 557k tokens more") and never as a bare minus sign.
fn verdict(r: Option<&SessionReplay>, a: &Aggregate, setting: Option<&str>) -> String {
    let (t, comp) = (&a.t, a.comp);
    let alg = r.map_or("the algorithm", |r| r.algorithm.as_str());
    let how = match setting {
        Some(s) if !s.is_empty() => format!("{alg} at {s}"),
        _ => alg.to_string(),
    };
    let over = match a.files {
        f if f > a.n => format!("{} ({f} files)", plural(a.n, "session")),
        _ => plural(a.n, "session"),
    };
    // Compactions the agent recorded and the replay only followed are not the algorithm's.
    let followed = match a.followed {
        0 => String::new(),
        f => format!(
            " (besides following {} the agent recorded)",
            plural(f, "compaction")
        ),
    };
    if comp == 0 {
        // A compression it followed, or an attempt it rejected (one that would inflate),
        // still called the summariser: say what that cost, or the NET column's loss reads as
        // a contradiction.
        let attempts = match t.summariser_tokens {
            0 => String::new(),
            n => format!("; its summariser calls cost {} tokens", human_count(n)),
        };
        return format!("verdict: {how} would not have intervened on {over}{followed}{attempts}.");
    }
    let events = plural(comp, "intervention");
    // The interventions fall on some sessions only: say on how many, not on how many were
    // replayed.
    let on = match a.acted {
        k if k < a.n => format!("{k} of {over}"),
        _ => over,
    };
    let mut unmanaged = vec![format!(
        "{} ({:.1}% of the unmanaged context) over {events} on {on}{followed}",
        token_change(t.saved, "tokens"),
        t.saved_pct.abs()
    )];
    if t.summariser_tokens > 0 {
        unmanaged.push(format!(
            "{} net of the summariser's tokens",
            token_change(t.net_saved, "")
        ));
    }
    // Money can disagree with tokens: a compression rewrites the cached prefix.
    if let Some(usd) = a.saved_usd {
        unmanaged.push(format!(
            "{} in dollars with prompt caching and the summariser",
            dollar_change(usd)
        ));
    }
    let mut s = format!("verdict: {how} would have {}.", series(&unmanaged));
    if t.recorded > 0 {
        let mut recorded = vec![format!(
            "{} ({:.1}% of the recorded context)",
            token_change(t.saved_vs_recorded, "tokens"),
            t.saved_vs_recorded_pct.abs()
        )];
        // No transcript records the agent's own compaction calls: the dollar figure prices
        // them, and says at how much.
        if let Some(usd) = a.saved_vs_recorded_usd {
            let mut money = format!("{} in dollars", dollar_change(usd));
            if let (n @ 1.., Some(agent)) = (a.agent_compactions, a.agent_usd) {
                money.push_str(&format!(
                    ", counting the agent's own {} (estimated at {})",
                    plural(n as usize, "compaction call"),
                    dollars(agent)
                ));
            }
            recorded.push(money);
        }
        s.push_str(&format!(
            " Against what was recorded it would have {}.",
            series(&recorded)
        ));
    }
    s
}

/// `a`, `a and b`, `a, b, and c`.
fn series(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}

/// `saved 138M tokens`, or `cost 557k tokens more` for a negative saving.
fn token_change(n: i64, unit: &str) -> String {
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    if n < 0 {
        format!("cost {}{unit} more", human_count(n.unsigned_abs()))
    } else {
        format!("saved {}{unit}", human_count(n as u64))
    }
}

/// `saved $6.96`, or `cost $1.20 more` for a negative saving.
fn dollar_change(usd: f64) -> String {
    if usd < 0.0 && (usd.abs() * 100.0).round() > 0.0 {
        format!("cost {} more", dollars(-usd))
    } else {
        format!("saved {}", dollars(usd.abs()))
    }
}

/// Dollars with a sign when negative and thousands separated: `$12.34`, `−$1,207.36`.
fn dollars(usd: f64) -> String {
    let cents = (usd.abs() * 100.0).round() as u64;
    let sign = if usd < 0.0 && cents > 0 { "−" } else { "" };
    format!("{sign}${}.{:02}", thousands(cents / 100), cents % 100)
}

pub(super) fn sweep_table(
    per_session: &[Vec<SessionReplay>],
    sweep: &[(String, String)],
) -> String {
    let keys: Vec<&str> = sweep.iter().map(|(k, _)| k.as_str()).collect();
    let points = per_session.first().map_or(0, Vec::len);
    let mut verdicts = Vec::new();
    let mut short = Vec::new();
    let mut rows: Vec<Vec<String>> = (0..points)
        .map(|i| {
            let agg = aggregate(per_session.iter().filter_map(|v| v.get(i)));

            // In the order the keys were given, as the header line names them.
            let settings = &per_session[0][i].settings;
            let swept: Vec<(&str, String)> = keys
                .iter()
                .filter_map(|key| {
                    settings
                        .iter()
                        .find(|(k, _)| {
                            let (k, key): (&str, &str) = (k, key);
                            k == key || k.replace('_', "-") == key
                        })
                        .map(|(k, v)| (*k, v.to_string()))
                })
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
            // One key swept: its name is in the header line, the cell holds the value. Several:
            // `key=value` each, or (see below) the values alone, `/`-separated.
            let values = swept
                .iter()
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
                .join("/");
            short.push(values.clone());
            let cell = match swept.as_slice() {
                [(_, v)] => v.clone(),
                _ => setting,
            };
            let mut cells = vec![cell, thresholds];
            cells.extend(totals_cells(&agg.t, agg.saved_usd, agg.comp, agg.peak));
            cells
        })
        .collect();
    // The setting tells the rows apart: the other columns give way before it is cut (and it
    // is cut only past 40 columns).
    let columns_for = |rows: &[Vec<String>], whole: bool| {
        let setting_width = rows
            .iter()
            .map(|r| crate::render::text::width(&r[0]))
            .max()
            .unwrap_or(0)
            .clamp(12, 40);
        // The values alone are never cut: past the width, the rows become records.
        let setting = if whole {
            Column::fixed("SETTING", Align::Left)
        } else {
            Column::flexible("SETTING", 0, setting_width)
        };
        let mut columns = vec![
            setting,
            Column::fixed("THRESHOLD", Align::Right).optional(1),
        ];
        columns.extend(TOTAL_COLUMNS);
        columns
    };
    let whole = |table: &str, rows: &[Vec<String>]| {
        target_width().is_none_or(|w| {
            table.lines().all(|l| crate::render::text::width(l) <= w)
                && rows.iter().all(|r| {
                    let cell = crate::render::text::safe_line(&r[0]);
                    table
                        .lines()
                        .any(|l| l.starts_with(&format!("{cell} ")) || l == cell)
                })
        })
    };
    let columns = columns_for(&rows, false);
    let (mut table, mut kept) = render_fitted(&columns, rows.clone(), target_width());
    // Settings of several keys as `key=value` would be cut: the values alone, in the order
    // of the keys the header line names, keep every row whole.
    let mut key_names = keys.join(", ");
    let short_columns;
    if keys.len() > 1 && !whole(&table, &rows) {
        for (r, v) in rows.iter_mut().zip(short) {
            r[0] = v;
        }
        key_names = format!("{} (SETTING: their values)", keys.join("/"));
        short_columns = columns_for(&rows, true);
        (table, kept) = render_fitted(&short_columns, rows, target_width());
    }
    let firsts: Vec<&SessionReplay> = per_session.iter().filter_map(|v| v.first()).collect();
    let head = format!(
        "{} · sweep of {} · {} · {}",
        header(&firsts, false),
        key_names,
        plural(per_session.len(), "session"),
        plural(points, "setting"),
    );
    let shared = SharedFiles::new(&firsts);
    format!(
        "{}\n{}{}\n{}{}\n",
        wrap(&head, target_width(), 2),
        table,
        wrap(&legend(&kept), target_width(), 2),
        if shared.is_empty() {
            String::new()
        } else {
            shared.legend(false)
        },
        verdicts
            .iter()
            .map(|v| wrap(v, target_width(), 2))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

pub(super) fn validation_table(rs: &[&SessionReplay]) -> String {
    // 80 columns with whole ids; narrower, the ids give way first (a prefix is still an id).
    let mut columns = vec![
        Column::fixed("SESSION", Align::Left)
            .shrink(0, 8)
            .cut(Cut::Prefix),
        Column::fixed("TRIGGER", Align::Left).optional(1),
        Column::fixed("REC AT", Align::Right),
        Column::fixed("REPLAY AT", Align::Right),
        Column::fixed("ΔREQ", Align::Right),
        Column::fixed("REC BEFORE", Align::Right).optional(0),
        Column::fixed("REPLAY BEFORE", Align::Right).optional(0),
        Column::fixed("Δ%", Align::Right),
    ];
    // The marks of the session table above, which lists the files.
    let shared = SharedFiles::new(rs);
    if !shared.is_empty() {
        columns.insert(1, Column::fixed("FILE", Align::Left));
    }
    let mut rows = Vec::new();
    for r in rs {
        for v in r.validation.iter().flatten() {
            let opt = |x: Option<u64>| x.map(human_count).unwrap_or_else(|| "-".into());
            let mut row = vec![r.id.chars().take(13).collect()];
            if !shared.is_empty() {
                row.push(shared.mark(r).unwrap_or_default());
            }
            row.extend([
                format!("{:?}", v.trigger).to_lowercase(),
                thousands(v.recorded_request as u64),
                match (v.replay_request, v.followed) {
                    (Some(x), _) => thousands(x as u64),
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
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return wrap(
            "validation: no recorded compactions of this algorithm's agent in the selection",
            target_width(),
            2,
        ) + "\n";
    }
    let mut out = format!(
        "{}\n{}",
        wrap(
            "validation against recorded compactions (REC: recorded; ✗: not within ±1 request)",
            target_width(),
            2
        ),
        render(&columns, rows, target_width())
    );
    let columns = [
        Column::fixed("AGENT", Align::Left),
        Column::fixed("SESSIONS", Align::Right),
        Column::fixed("AUTO", Align::Right),
        Column::fixed("WITHIN ±1", Align::Right),
        Column::fixed("TOKEN ERR%", Align::Right),
        Column::fixed("SERIES ERR%", Align::Right).optional(1),
        Column::fixed("CALIBRATION ERR%", Align::Right).optional(0),
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
    let legend = "fidelity: distinct automatic compactions predicted within ±1 request; medians \
                  of |replay − recorded| before them, of the what-if series against the recorded \
                  one, and of the calibration";
    out.push_str(&format!(
        "\n{}\n{}",
        wrap(legend, target_width(), 2),
        render(&columns, rows, target_width())
    ));
    out
}

/// The timeline of `r`; with `shared`, the files of its session it is one of, the file it
/// replays under its title.
pub(super) fn timeline_table(r: &SessionReplay, shared: &SharedFiles) -> String {
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
                        "{}{} {}→{} ({} summarised, {} kept)",
                        serde_json::to_value(e.kind)
                            .ok()
                            .and_then(|v| v.as_str().map(String::from))
                            .unwrap_or_default(),
                        // JSON's `forced`: the agent compacted here, not the algorithm. One
                        // character, explained under the table: the counts after it still fit
                        // an 80-column terminal.
                        if e.forced { FOLLOWED } else { "" },
                        human_count(e.tokens_before),
                        human_count(e.tokens_after),
                        e.summarised,
                        e.kept
                    )
                })
                .collect();
            vec![
                thousands(p.request as u64),
                thousands(p.full),
                p.recorded.map(thousands).unwrap_or_else(|| "-".into()),
                thousands(p.what_if),
                ev.join("; "),
            ]
        })
        .collect();
    // A forced event is the agent's compaction made by the replay, not the algorithm's
    // decision; one Gemini rejected as inflated changed nothing and was not followed.
    let forced = |failed: bool| {
        r.events
            .iter()
            .any(|e| e.forced && (e.kind == EventKind::Failed) == failed)
    };
    let mut legend = Vec::new();
    if forced(false) {
        legend.push(format!(
            "{FOLLOWED} followed the agent's own compaction (a manual /compact, or one the \
             algorithm did not make): `forced` in JSON"
        ));
    }
    if forced(true) {
        legend.push(format!(
            "failed{FOLLOWED} the agent's own compaction (a manual /compress, or one the \
             algorithm did not make), tried and rejected: its summary would not have shrunk \
             the context, so the context stayed as it was and nothing was followed: `forced` \
             in JSON"
        ));
    }
    let mut out = wrap(
        &format!(
            "timeline: {} {}",
            r.agent,
            crate::render::text::safe_line(&r.id)
        ),
        target_width(),
        2,
    );
    out.push('\n');
    if let Some(mark) = shared.mark(r) {
        out.push_str(&path_lines(
            &format!("file {mark} of the session: "),
            &r.path,
        ));
        out.push('\n');
    }
    out.push_str(&render(&columns, rows, target_width()));
    if !legend.is_empty() {
        out.push('\n');
    }
    for l in legend {
        out.push_str(&wrap(&l, target_width(), 2));
        out.push('\n');
    }
    out
}

/// The mark of an event the replay followed from the recording.
const FOLLOWED: &str = "*";

/// One SVG per session (suffixed with its agent and id when there are several: as many
/// characters of the id as tell it from the others', and a number for files of one session),
/// every target checked before any is written.
pub(super) fn plot_all(
    rs: &[&SessionReplay],
    path: &Path,
    guard: &Guard,
) -> Result<Vec<PathBuf>, Failure> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "replay".into());
    let targets: Vec<PathBuf> = if rs.len() == 1 {
        vec![path.to_path_buf()]
    } else {
        let ids = ShortIds::new(rs.iter().map(|r| r.id.as_str()));
        let mut names = Names::default();
        rs.iter()
            .map(|r| {
                let short: String =
                    r.id.chars()
                        .take(ids.unique_len(&r.id).max(SHORT_ID))
                        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
                        .collect();
                path.with_file_name(names.next(&format!("{stem}-{}-{short}", r.agent), "svg"))
            })
            .collect()
    };
    for t in &targets {
        guard.check(t)?;
    }
    for (r, t) in rs.iter().zip(&targets) {
        let svg = plot::svg(r).map_err(|e| Failure::failed(format!("{}: {e}", safe_path(t))))?;
        guard.write_bytes(t, svg.as_bytes())?;
    }
    Ok(targets)
}

pub(super) fn settings_table(alg: Algorithm) -> String {
    let title = format!(
        "settings of --algorithm {} (override with --set KEY=VALUE, sweep with --sweep KEY=V1,V2)",
        alg.as_str()
    );
    let columns = [
        Column::fixed("KEY", Align::Left),
        Column::fixed("DEFAULT", Align::Right),
        Column::fixed("ALLOWED", Align::Left),
        Column::flexible("MEANING", 0, 20),
    ];
    let specs = alg.specs();
    let rows = specs
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
    let whole = render(&columns, rows, None);
    let width = target_width();
    let fits =
        |text: &str| width.is_none_or(|w| text.lines().all(|l| crate::render::text::width(l) <= w));
    if fits(&whole) && fits(&title) {
        return format!("{title}\n{whole}");
    }
    // Too narrow for the table, whose meanings are sentences: one entry per key, its meaning
    // wrapped under it, so nothing is cut.
    let mut out = wrap(&title, width, 2);
    out.push('\n');
    for s in specs {
        let head = format!("{} = {}  ({})", s.key, s.default, s.range());
        out.push('\n');
        out.push_str(&wrap(&head, width, 4));
        out.push_str("\n    ");
        out.push_str(&wrap(s.help, width.map(|w| w.saturating_sub(4)), 4));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corpus's Claude replay: it saves against no management, costs tokens but saves
    /// dollars against what was recorded.
    fn mixed() -> Aggregate {
        Aggregate {
            t: Totals {
                full: 426_000_000,
                recorded: 290_000_000,
                what_if: 288_000_000,
                saved: 138_000_000,
                saved_pct: 32.4,
                saved_vs_recorded: -557_000,
                saved_vs_recorded_pct: -0.2,
                summariser_tokens: 4_000_000,
                net_saved: 134_000_000,
            },
            saved_usd: Some(65.11),
            saved_vs_recorded_usd: Some(6.96),
            agent_compactions: 25,
            agent_usd: Some(21.56),
            comp: 23,
            followed: 2,
            peak: 0,
            n: 20,
            files: 20,
            acted: 20,
        }
    }

    #[test]
    fn the_verdict_gives_each_baseline_its_own_sentence_and_each_figure_its_verb() {
        let v = verdict(None, &mixed(), None);
        let (unmanaged, recorded) = v
            .split_once(". Against what was recorded")
            .expect("a sentence against what was recorded");
        assert!(
            unmanaged.starts_with("verdict: the algorithm would have saved 138M tokens"),
            "{v}"
        );
        assert!(
            unmanaged.contains("saved 134M net of the summariser"),
            "{v}"
        );
        assert!(
            unmanaged.contains("saved $65.11 in dollars with prompt caching"),
            "{v}"
        );
        assert!(recorded.contains("cost 557k tokens more (0.2%"), "{v}");
        assert!(recorded.contains("saved $6.96 in dollars"), "{v}");
        assert!(!recorded.contains("prompt caching"), "{v}");
        assert!(!v.contains('-') && !v.contains('−'), "a bare sign: {v}");
    }

    #[test]
    fn the_verdict_counts_the_sessions_intervened_on() {
        let mut a = mixed();
        assert!(a.acted == a.n);
        assert!(
            verdict(None, &a, None).contains("over 23 interventions on 20 sessions (besides"),
            "all sessions"
        );
        a.acted = 13;
        a.files = 25;
        let v = verdict(None, &a, None);
        assert!(
            v.contains("over 23 interventions on 13 of 20 sessions (25 files) (besides"),
            "{v}"
        );
    }

    #[test]
    fn a_negative_dollar_figure_is_a_cost() {
        let mut a = mixed();
        a.saved_usd = Some(-197.4);
        a.saved_vs_recorded_usd = Some(-0.001);
        let v = verdict(None, &a, None);
        assert!(v.contains("cost $197.40 more in dollars"), "{v}");
        // Less than a cent either way is no cost.
        assert!(v.contains("saved $0.00 in dollars"), "{v}");
    }

    /// No compression of its own, but summariser calls (followed compactions, attempts the
    /// algorithm rejected): the verdict says what they cost, as the NET column does.
    #[test]
    fn rejected_attempts_are_priced_in_a_verdict_of_no_intervention() {
        let mut a = mixed();
        a.comp = 0;
        let v = verdict(None, &a, None);
        assert!(
            v.ends_with("agent recorded); its summariser calls cost 4.0M tokens."),
            "{v}"
        );
        a.t.summariser_tokens = 0;
        let v = verdict(None, &a, None);
        assert!(v.ends_with("the agent recorded)."), "{v}");
    }
}
