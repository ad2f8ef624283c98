//! Plain, aligned tables that fit the terminal: one line per row, flexible columns (titles,
//! projects) cut with an ellipsis instead of wrapping.

use std::io::IsTerminal;

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub header: &'static str,
    pub align: Align,
    /// Flexible columns give up width, in order of `shrink_priority` (lower shrinks first),
    /// down to `min` characters.
    pub flex: Option<(u8, usize)>,
}

impl Column {
    pub const fn fixed(header: &'static str, align: Align) -> Self {
        Column {
            header,
            align,
            flex: None,
        }
    }
    pub const fn flexible(header: &'static str, priority: u8, min: usize) -> Self {
        Column {
            header,
            align: Align::Left,
            flex: Some((priority, min)),
        }
    }
}

/// The width to fit: the terminal's when stdout is one, else `$COLUMNS` if set, else no limit
/// (pipes get whole lines).
pub fn target_width() -> Option<usize> {
    if std::io::stdout().is_terminal() {
        let w = Table::new().width().map(usize::from);
        if w.is_some() {
            return w;
        }
    }
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok())
}

const GAP: usize = 2;

/// Render rows under `columns`, fitted to `width`.
pub fn render(columns: &[Column], rows: Vec<Vec<String>>, width: Option<usize>) -> String {
    let n = columns.len();
    let mut widths: Vec<usize> = columns.iter().map(|c| c.header.chars().count()).collect();
    for r in &rows {
        for (i, cell) in r.iter().enumerate().take(n) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    if let Some(limit) = width {
        let total = |w: &[usize]| w.iter().sum::<usize>() + GAP * n.saturating_sub(1);
        let mut flex: Vec<(u8, usize, usize)> = columns
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.flex.map(|(p, min)| (p, i, min)))
            .collect();
        flex.sort();
        for (_, i, min) in flex {
            let over = total(&widths).saturating_sub(limit);
            if over == 0 {
                break;
            }
            let floor = min.min(widths[i]);
            widths[i] -= over.min(widths[i] - floor);
        }
    }
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(columns.iter().map(|c| Cell::new(c.header)));
    for r in rows {
        table.add_row(r.into_iter().enumerate().map(|(i, text)| {
            let text = ellipsize(&text, widths.get(i).copied().unwrap_or(usize::MAX));
            Cell::new(text).set_alignment(match columns.get(i).map(|c| c.align) {
                Some(Align::Right) => CellAlignment::Right,
                _ => CellAlignment::Left,
            })
        }));
    }
    for (i, c) in columns.iter().enumerate() {
        if let Some(col) = table.column_mut(i) {
            col.set_padding((0, if i + 1 == n { 0 } else { GAP as u16 }));
            if c.align == Align::Right {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Cut `s` to `max` characters, ending with `…` when cut.
pub fn ellipsize(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for line in out.lines() {
            assert!(line.chars().count() <= 20, "{line:?}");
        }
        assert!(out.contains('…'));
        let wide = render(&cols, rows, None);
        assert!(wide.contains("a very long title that goes on"));
    }
}
