//! The one table renderer of every human output: aligned columns, one line per row, fitted to
//! the terminal.
//!
//! Fitting a table to `width` columns, in order:
//! 1. every cell is made terminal-safe ([`super::text::safe_line`]) and measured in display
//!    columns (CJK and emoji are two);
//! 2. optional columns ([`Column::optional`]) are dropped, lowest priority first, until the
//!    rest can fit at their minimum widths;
//! 3. flexible columns ([`Column::flexible`]) give up width, lowest rank first, the widest of a
//!    rank first, down to their minimum; each is shortened its own way ([`Cut`]): titles keep
//!    their start, paths their end, ids their prefix (no ellipsis, so it can be typed back);
//! 4. on a terminal too narrow for those minimums, text columns (not ids) go on shrinking,
//!    widest first, down to a few columns;
//! 5. when even that does not fit, the rows become a list: one record per row, headed by its
//!    first cell, each other cell on a line of its own under its header, so no column is lost
//!    for want of width.
//!
//! With no width (output piped, or `--wide`) every column keeps its full width.

use std::borrow::Cow;
use std::io::IsTerminal;

use super::settings;
use super::text::{cut_end, cut_prefix, cut_start, pad, safe_line, width};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// How a flexible column shortens a cell that does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Keep the start, end with `…` (titles, free text).
    End,
    /// Keep the end, start with `…` (paths).
    Start,
    /// Keep the start with no mark (ids: a prefix is still an id prefix).
    Prefix,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub header: Cow<'static, str>,
    pub align: Align,
    /// Flexible columns give up width, in order of rank (lower shrinks first), down to `min`
    /// columns.
    pub flex: Option<(u8, usize)>,
    pub cut: Cut,
    /// Optional columns are dropped when the table cannot fit otherwise, lowest first.
    pub drop: Option<u8>,
}

impl Column {
    pub const fn fixed(header: &'static str, align: Align) -> Self {
        Column {
            header: Cow::Borrowed(header),
            align,
            flex: None,
            cut: Cut::End,
            drop: None,
        }
    }

    pub const fn flexible(header: &'static str, rank: u8, min: usize) -> Self {
        Column {
            header: Cow::Borrowed(header),
            align: Align::Left,
            flex: Some((rank, min)),
            cut: Cut::End,
            drop: None,
        }
    }

    /// A column whose header is computed (e.g. a time column naming its zone).
    pub fn named(header: String, align: Align) -> Self {
        Column {
            header: Cow::Owned(header),
            ..Column::fixed("", align)
        }
    }

    /// Make the column flexible: it shrinks (lower rank first) down to `min` columns.
    pub const fn shrink(mut self, rank: u8, min: usize) -> Self {
        self.flex = Some((rank, min));
        self
    }

    pub const fn cut(mut self, cut: Cut) -> Self {
        self.cut = cut;
        self
    }

    /// The column may be dropped when the terminal is too narrow (lower priority goes first).
    pub const fn optional(mut self, priority: u8) -> Self {
        self.drop = Some(priority);
        self
    }
}

/// The width to fit: none with `--wide`; else `$COLUMNS` when set (so a width can be chosen,
/// and tests can inject one); else the terminal's when stdout is one; else none (pipes get
/// whole lines).
pub fn target_width() -> Option<usize> {
    let out = std::io::stdout();
    fit_width(out.is_terminal(), || terminal_size::terminal_size_of(out))
}

/// [`target_width`] for the diagnostics: the terminal's is stderr's, which stays one when
/// stdout is piped to a file.
pub fn stderr_width() -> Option<usize> {
    let err = std::io::stderr();
    fit_width(err.is_terminal(), || terminal_size::terminal_size_of(err))
}

fn fit_width(
    terminal: bool,
    size: impl FnOnce() -> Option<(terminal_size::Width, terminal_size::Height)>,
) -> Option<usize> {
    if settings().wide {
        return None;
    }
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
    {
        return Some(c);
    }
    if terminal {
        return size().map(|(w, _)| usize::from(w.0)).filter(|&w| w > 0);
    }
    None
}

const GAP: usize = 2;

/// The widths of the columns shown (`None` = dropped) for a table of `natural` widths fitted to
/// `limit`.
fn fit(columns: &[Column], natural: &[usize], limit: usize) -> Vec<Option<usize>> {
    let floor = |i: usize| match columns[i].flex {
        Some((_, min)) => min.min(natural[i]),
        None => natural[i],
    };
    let total = |shown: &[bool], w: &dyn Fn(usize) -> usize| -> usize {
        let n = shown.iter().filter(|s| **s).count();
        (0..columns.len())
            .filter(|&i| shown[i])
            .map(w)
            .sum::<usize>()
            + GAP * n.saturating_sub(1)
    };
    let mut droppable: Vec<(u8, usize)> = columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.drop.map(|p| (p, i)))
        .collect();
    droppable.sort();
    let mut shown = vec![true; columns.len()];
    for &(_, i) in &droppable {
        if total(&shown, &floor) <= limit {
            break;
        }
        shown[i] = false;
    }
    let mut widths: Vec<usize> = natural.to_vec();
    let mut over = total(&shown, &|i| widths[i]).saturating_sub(limit);
    let mut ranks: Vec<u8> = columns.iter().filter_map(|c| c.flex.map(|f| f.0)).collect();
    ranks.sort();
    ranks.dedup();
    for rank in ranks {
        let members: Vec<usize> = (0..columns.len())
            .filter(|&i| shown[i] && columns[i].flex.map(|f| f.0) == Some(rank))
            .collect();
        // Take from the widest member first, so a rank's columns end up sharing the room.
        while over > 0 {
            let Some(&i) = members
                .iter()
                .filter(|&&i| widths[i] > floor(i))
                .max_by_key(|&&i| (widths[i], std::cmp::Reverse(i)))
            else {
                break;
            };
            widths[i] -= 1;
            over -= 1;
        }
    }
    // The floors do not fit (a narrow terminal): text columns go below them, widest first, as
    // far as [`HARD_FLOOR`]; ids keep their floor, a shorter prefix may not be unique.
    while over > 0 {
        let Some(i) = (0..columns.len())
            .filter(|&i| {
                shown[i]
                    && columns[i].flex.is_some()
                    && columns[i].cut != Cut::Prefix
                    && widths[i] > HARD_FLOOR.min(natural[i])
            })
            .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
        else {
            break;
        };
        widths[i] -= 1;
        over -= 1;
    }
    (0..columns.len())
        .map(|i| shown[i].then_some(widths[i]))
        .collect()
}

/// The narrowest a text column is cut to before the table becomes a list.
const HARD_FLOOR: usize = 6;

/// The rows as a list, one record per row, for a width no table of these columns fits: the
/// first cell heads the record, each other cell follows on a line of its own under its header.
/// Only the cells wider than the width are cut.
fn records(
    columns: &[Column],
    headers: &[String],
    rows: &[Vec<String>],
    shown: &[Option<usize>],
    limit: usize,
) -> String {
    let kept: Vec<usize> = (0..columns.len()).filter(|&i| shown[i].is_some()).collect();
    let Some((&first, rest)) = kept.split_first() else {
        return String::new();
    };
    let label = rest.iter().map(|&i| width(&headers[i])).max().unwrap_or(0);
    let room = limit.saturating_sub(4 + label + GAP).max(HARD_FLOOR);
    let cut = |i: usize, cell: &str, w: usize| match columns[i].cut {
        Cut::Start if cell.contains('/') => cut_start(cell, w),
        Cut::Prefix => cut_prefix(cell, w),
        _ => cut_end(cell, w),
    };
    let mut out = String::new();
    for r in rows {
        let get = |i: usize| r.get(i).map(String::as_str).unwrap_or("");
        if kept.iter().all(|&i| get(i).is_empty()) {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        // A row with no first cell belongs to the record above (a breakdown): indented more.
        let indent = if get(first).is_empty() {
            "    "
        } else {
            out.push_str(&cut(first, get(first), limit));
            out.push('\n');
            "  "
        };
        for &i in rest {
            let cell = get(i);
            if cell.is_empty() {
                continue;
            }
            out.push_str(indent);
            out.push_str(&pad(&headers[i], label, false));
            for (k, line) in record_value(columns[i].cut, cell, room, || cut(i, cell, room))
                .iter()
                .enumerate()
            {
                if k > 0 {
                    out.push_str(indent);
                    out.push_str(&" ".repeat(label));
                }
                out.push_str(&" ".repeat(GAP));
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Most lines a record's text value wraps to; the last is cut.
const RECORD_LINES: usize = 4;

/// The lines of a value in a record `room` columns wide: free text (cut at its end in a
/// table) wraps at spaces, since a record has the lines to spare and an event or a title cut
/// at 30 columns says little; paths and ids are cut as in the table.
fn record_value(how: Cut, cell: &str, room: usize, cut: impl Fn() -> String) -> Vec<String> {
    if how != Cut::End || width(cell) <= room {
        return vec![cut()];
    }
    let wrapped = super::text::wrap(cell, Some(room), 0);
    let mut lines: Vec<String> = wrapped.lines().map(str::to_string).collect();
    if lines.len() < 2 || lines.iter().any(|l| width(l) > room) {
        return vec![cut()];
    }
    if lines.len() > RECORD_LINES {
        let rest = lines.split_off(RECORD_LINES - 1).join(" ");
        lines.push(cut_end(&rest, room));
    }
    lines
}

/// Render rows under `columns`, fitted to `width` (see the module documentation).
pub fn render(columns: &[Column], rows: Vec<Vec<String>>, width_limit: Option<usize>) -> String {
    render_fitted(columns, rows, width_limit).0
}

/// [`render`], and the headers of the columns it kept (a legend explains only those).
pub fn render_fitted(
    columns: &[Column],
    rows: Vec<Vec<String>>,
    width_limit: Option<usize>,
) -> (String, Vec<&str>) {
    let n = columns.len();
    let headers: Vec<String> = columns.iter().map(|c| safe_line(&c.header)).collect();
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| r.iter().take(n).map(|c| safe_line(c)).collect())
        .collect();
    let mut natural: Vec<usize> = headers.iter().map(|h| width(h)).collect();
    for r in &rows {
        for (i, cell) in r.iter().enumerate() {
            natural[i] = natural[i].max(width(cell));
        }
    }
    let widths: Vec<Option<usize>> = match width_limit {
        Some(limit) => fit(columns, &natural, limit),
        None => natural.iter().map(|w| Some(*w)).collect(),
    };
    let kept = columns
        .iter()
        .zip(&widths)
        .filter(|(_, w)| w.is_some())
        .map(|(c, _)| c.header.as_ref())
        .collect();
    if let Some(limit) = width_limit {
        let shown: Vec<usize> = widths.iter().flatten().copied().collect();
        let total = shown.iter().sum::<usize>() + GAP * shown.len().saturating_sub(1);
        if total > limit {
            return (records(columns, &headers, &rows, &widths, limit), kept);
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String], header: bool| {
        let mut parts: Vec<String> = Vec::with_capacity(n);
        for (i, c) in columns.iter().enumerate() {
            let Some(w) = widths[i] else { continue };
            let cell = cells.get(i).map(String::as_str).unwrap_or("");
            let cut = match (header, c.cut) {
                (true, _) | (false, Cut::End) => cut_end(cell, w),
                // Only paths are cut from the start; a label such as `unresolved 7b8e…` keeps
                // its start.
                (false, Cut::Start) if cell.contains('/') => cut_start(cell, w),
                (false, Cut::Start) => cut_end(cell, w),
                (false, Cut::Prefix) => cut_prefix(cell, w),
            };
            parts.push(pad(&cut, w, c.align == Align::Right));
        }
        out.push_str(parts.join(&" ".repeat(GAP)).trim_end());
        out.push('\n');
    };
    line(&headers, true);
    for r in &rows {
        line(r, false);
    }
    (out, kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widest(s: &str) -> usize {
        s.lines().map(width).max().unwrap_or(0)
    }

    #[test]
    fn fits_width_by_cutting_flexible_columns() {
        let cols = [
            Column::fixed("A", Align::Left),
            Column::fixed("N", Align::Right),
            Column::flexible("TITLE", 0, 5),
        ];
        let rows = vec![vec![
            "x".into(),
            "12".into(),
            "a very long title that goes on".into(),
        ]];
        let out = render(&cols, rows.clone(), Some(20));
        assert!(widest(&out) <= 20, "{out}");
        assert!(out.contains('…'));
        let wide = render(&cols, rows, None);
        assert!(wide.contains("a very long title that goes on"));
    }

    #[test]
    fn drops_optional_columns_by_priority_and_shares_the_rest() {
        let cols = [
            Column::fixed("ID", Align::Left)
                .shrink(0, 8)
                .cut(Cut::Prefix),
            Column::fixed("PATH", Align::Left)
                .shrink(1, 8)
                .cut(Cut::Start),
            Column::fixed("TOOLS", Align::Right).optional(1),
            Column::fixed("CMP", Align::Right).optional(0),
            Column::flexible("TITLE", 1, 8),
        ];
        let rows = vec![vec![
            "019d4e99-de40-7b52".into(),
            "/home/dev/api-server".into(),
            "1,234".into(),
            "3".into(),
            "日本語のタイトルはとても長いです".into(),
        ]];
        // The floors (8 + 8 + 5 + 3 + 8 and the gaps) need 40 columns: at 36 CMP goes.
        let out = render(&cols, rows.clone(), Some(40));
        assert!(out.contains("CMP"), "{out}");
        let out = render(&cols, rows.clone(), Some(36));
        assert!(widest(&out) <= 36, "{out}");
        assert!(!out.contains("CMP"), "lowest priority dropped first: {out}");
        assert!(out.contains("019d4e99 "), "id cut to a prefix: {out}");
        assert!(out.contains("…/api-server") || out.contains("…"), "{out}");
        let out = render(&cols, rows.clone(), Some(200));
        assert!(out.contains("CMP") && out.contains("019d4e99-de40-7b52"));
        // Every width from tiny to roomy: never wider than asked once the floor fits.
        for w in 24..120 {
            let out = render(&cols, rows.clone(), Some(w));
            assert!(widest(&out) <= w.max(28), "{w}: {out}");
        }
    }

    #[test]
    fn too_narrow_for_the_minimums_text_shrinks_and_then_rows_become_records() {
        let cols = [
            Column::fixed("ID", Align::Left)
                .shrink(0, 8)
                .cut(Cut::Prefix),
            Column::flexible("PROJECT", 1, 16).cut(Cut::Start),
            Column::flexible("TITLE", 2, 18),
        ];
        let rows = vec![vec![
            "019d4e99-de40-7b52".into(),
            "/home/dev/api-server".into(),
            "Write a README section about migrations".into(),
        ]];
        // The minimums need 8 + 16 + 18 + 4 = 46: at 40 the text gives way, the id does not.
        let out = render(&cols, rows.clone(), Some(40));
        assert!(widest(&out) <= 40, "{out}");
        assert!(
            out.lines().nth(1).unwrap().starts_with("019d4e99  "),
            "{out}"
        );
        let nums = [
            Column::fixed("AGENT", Align::Left),
            Column::fixed("SESSIONS", Align::Right),
            Column::fixed("WITHIN ±1", Align::Right),
            Column::fixed("TOKEN ERR%", Align::Right),
        ];
        let rows = vec![
            vec!["codex".into(), "8".into(), "0 (0.0%)".into(), "-".into()],
            vec![
                "claude".into(),
                "12".into(),
                "3 (25.0%)".into(),
                "1.5".into(),
            ],
        ];
        assert!(widest(&render(&nums, rows.clone(), Some(60))) > 30);
        let out = render(&nums, rows, Some(30));
        assert!(widest(&out) <= 30, "{out}");
        for cell in [
            "codex",
            "claude",
            "  SESSIONS    12",
            "  WITHIN ±1   3 (25.0%)",
        ] {
            assert!(out.lines().any(|l| l.starts_with(cell)), "{cell}: {out}");
        }
    }

    /// In a record, free text wraps (up to [`RECORD_LINES`], the last cut) where a path keeps
    /// one line cut at its start.
    #[test]
    fn a_record_wraps_its_text_and_cuts_its_paths() {
        let cols = [
            Column::fixed("REQUEST", Align::Right),
            Column::fixed("FULL", Align::Right),
            Column::fixed("PATH", Align::Left).cut(Cut::Start),
            Column::flexible("EVENT", 0, 10),
        ];
        let event = "compress* 5.7k→4.6k (13 summarised, 2 kept)";
        let path = "/home/dev/projects/api-server/src/handlers";
        let row = |e: &str| vec!["7".into(), "22,324".into(), path.into(), e.into()];
        let out = render(&cols, vec![row(event)], Some(30));
        assert!(widest(&out) <= 30, "{out}");
        let text: Vec<&str> = out.lines().collect();
        assert_eq!(text[0], "7");
        assert!(text[2].starts_with("  PATH   …/"), "{out}");
        assert_eq!(text[3], "  EVENT  compress* 5.7k→4.6k");
        assert_eq!(text[4], "         (13 summarised, 2");
        assert_eq!(text[5], "         kept)");
        let long = "word ".repeat(40);
        let out = render(&cols, vec![row(&long)], Some(30));
        let event_lines = out.lines().skip(3).count();
        assert_eq!(event_lines, RECORD_LINES, "{out}");
        assert!(out.trim_end().ends_with('…'), "{out}");
        assert!(widest(&out) <= 30, "{out}");
    }

    #[test]
    fn cells_are_terminal_safe() {
        let cols = [Column::flexible("TITLE", 0, 5)];
        let out = render(&cols, vec![vec!["\x1b]0;owned\x07 title".into()]], None);
        assert!(!out.contains('\x1b'));
        assert!(out.contains("^[]0;owned^G title"));
    }
}
