//! The view a parse runs at ([`Detail`]) and the thread-locals that carry it into nested
//! `Deserialize` impls: apart from the types, which only ask it whether to read a body.

use std::cell::Cell;

use crate::model::TextSize;

/// How much of a file a parse materialises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Everything: the session as `show`, `export` and `replay` need it.
    #[default]
    Full,
    /// No tool inputs, tool outputs, thinking or media: what `list`, `projects`, `usage` and
    /// `compactions` need. Counts, usage, titles and compactions equal the `Full` ones.
    Summary,
    /// `Full`, but a Claude tool result's string output and every Codex tool output are
    /// measured rather than kept ([`TextSize`]): what every replay but Gemini's needs, which
    /// estimate an output by its length alone. Tool outputs are most of a transcript's bytes.
    Measured,
    /// `Full`, but of each Claude or Codex tool output only what a line `.0` columns wide
    /// shows of it is kept, with the size of the whole ([`kept_output`]): `show`'s timeline
    /// prints nothing more of an output, and outputs are most of a large session's memory.
    Preview(usize),
}

thread_local! {
    static DETAIL: Cell<Detail> = const { Cell::new(Detail::Full) };
}

/// The detail of the parse running on this thread.
pub fn detail() -> Detail {
    DETAIL.with(Cell::get)
}

/// Run `f` (one file's parse) at `level`, restoring the previous level afterwards, also on
/// unwinding.
pub fn with_detail<R>(level: Detail, f: impl FnOnce() -> R) -> R {
    scoped(&DETAIL, level, f)
}

/// Run `f` with the thread-local `cell` set to `value`, restoring the previous value
/// afterwards, also on unwinding.
fn scoped<T: Copy + 'static, R>(
    cell: &'static std::thread::LocalKey<Cell<T>>,
    value: T,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore<T: Copy + 'static>(&'static std::thread::LocalKey<Cell<T>>, T);
    impl<T: Copy + 'static> Drop for Restore<T> {
        fn drop(&mut self) {
            self.0.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(cell, cell.with(|c| c.replace(value)));
    f()
}

/// A tool output as the parse running on this thread keeps it, with the size of the whole
/// when it does not keep it whole: in [`Detail::Measured`] only measured, in
/// [`Detail::Preview`] cut to what a line of its width shows of it, else whole (`None`). Cut
/// once the parse has read it (its failure found, say), so nothing else the parse makes of it
/// changes.
pub fn kept_output(output: String) -> (String, Option<TextSize>) {
    match detail() {
        Detail::Measured => (String::new(), Some(TextSize::of(&output))),
        Detail::Preview(columns) => {
            let beginning = crate::render::text::line_beginning(&output, columns);
            if beginning.len() < output.len() {
                return (beginning.to_string(), Some(TextSize::of(&output)));
            }
            (output, None)
        }
        Detail::Full | Detail::Summary => (output, None),
    }
}

thread_local! {
    static MAPS: Cell<bool> = const { Cell::new(false) };
    static NEEDS_MAPS: Cell<bool> = const { Cell::new(false) };
}

/// Whether the parse running on this thread reads every content block into a map, as the full
/// view first did ([`as_maps`]), rather than by its kind.
pub fn maps() -> bool {
    MAPS.with(Cell::get)
}

/// Note a block that reading by kind cannot give as its map gives it (a `type` written again
/// as another kind; in [`Detail::Measured`], a string it measured turned out to be kept after
/// all): [`by_kind`] reports it.
pub fn needs_maps() {
    NEEDS_MAPS.with(|c| c.set(true));
}

/// Run `f` (one file's parse) at `level`, blocks read by kind; also returns whether it met a
/// block that needs its map, in which case its result is not to be used.
pub fn by_kind<R>(level: Detail, f: impl FnOnce() -> R) -> (R, bool) {
    NEEDS_MAPS.with(|c| c.set(false));
    let r = scoped(&MAPS, false, || with_detail(level, f));
    (r, NEEDS_MAPS.with(|c| c.replace(false)))
}

/// Run `f` (one file's parse) at `level`, every block read into a map.
pub fn as_maps<R>(level: Detail, f: impl FnOnce() -> R) -> R {
    scoped(&MAPS, true, || with_detail(level, f))
}

/// Whether bodies are read: every view but the summary reads them.
pub fn full() -> bool {
    detail() != Detail::Summary
}

thread_local! {
    pub(super) static FROM_TREE: Cell<bool> = const { Cell::new(false) };
}

/// Run `f`, which deserialises records from an in-memory tree instead of JSON text: a
/// [`StandIn`](super::StandIn) then reads its body's decoded string, since a tree has no raw
/// text to hand out (the stand-ins are the same).
pub fn from_tree<R>(f: impl FnOnce() -> R) -> R {
    scoped(&FROM_TREE, true, f)
}
