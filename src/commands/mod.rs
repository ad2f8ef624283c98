//! One module per subcommand. This module turns parsed arguments into a scan, runs the command,
//! prints the warnings report and maps the outcome to an exit status.

pub mod compactions;
pub mod export;
pub mod list;
pub mod projects;
pub mod replay;
pub mod show;
pub mod usage;

use std::ffi::OsStr;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::Utc;

use crate::cli::{Cli, Command, GlobalArgs, SelectArgs};
use crate::diag::Report;
use crate::discover::{StoreOptions, Stores};
use crate::filter::{Filter, ProjectMatcher, parse_since, parse_until};
use crate::output::{Guard, OutputError, safe_path};
use crate::scan::{ScanOptions, ScanResult};
use crate::usage::Zone;

/// Exit statuses (documented in the README and `--help`).
pub mod exit {
    pub const OK: u8 = 0;
    /// Nothing matched, an ambiguous id prefix, or output could not be written.
    pub const FAILURE: u8 = 1;
    /// Bad arguments (clap uses 2 as well).
    pub const USAGE: u8 = 2;
    /// `--strict` and at least one warning.
    pub const STRICT: u8 = 3;
}

/// A command's failure, carrying the exit status it maps to.
#[derive(Debug)]
pub struct Failure {
    pub status: u8,
    pub message: String,
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            status: exit::USAGE,
            message: message.into(),
        }
    }
    pub fn failed(message: impl Into<String>) -> Self {
        Failure {
            status: exit::FAILURE,
            message: message.into(),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::failed(format!("cannot write output: {e}"))
    }
}

pub type CmdResult = Result<Report, Failure>;

pub fn run(cli: Cli) -> ExitCode {
    let g = &cli.global;
    crate::render::configure(crate::render::Settings {
        utc: g.utc,
        wide: g.wide,
    });
    if let Some(path) = &g.prices {
        match crate::pricing::Pricing::with_file(path) {
            Ok(p) => {
                if !g.quiet {
                    for w in p.warnings() {
                        to_stderr!("{}", crate::diag::labelled("warning", &w.to_string()));
                    }
                }
                crate::pricing::install(p)
            }
            Err(e) => {
                to_stderr!("{}", crate::diag::labelled("error", &e.to_string()));
                return ExitCode::from(exit::USAGE);
            }
        }
    }
    // `usage` says it itself, as it may cut days in another zone (--timezone).
    if !matches!(cli.command, Command::Usage(_)) {
        warn_bad_tz(
            g,
            "times are shown, and plain dates in --since/--until read, in UTC",
        );
    }
    let outcome = check_home(g).and_then(|()| match &cli.command {
        Command::List(a) => list::run(g, a),
        Command::Show(a) => show::run(g, a),
        Command::Projects(a) => projects::run(g, a),
        Command::Compactions(a) => compactions::run(g, a),
        Command::ReplayCompress(a) => replay::run(g, a),
        Command::Export(a) => export::run(g, a),
        Command::Usage(a) => usage::run(g, a),
    });
    match outcome {
        Ok(report) => {
            report.print(g.verbose, g.quiet);
            if g.strict && report.serious() > 0 {
                // An error, not a warning: `--quiet` silences the warnings it counts, not the
                // reason for the exit status (a script would get 3 and nothing else).
                to_stderr!(
                    "error: --strict: {} reading the stores",
                    crate::render::plural(report.serious(), "problem")
                );
                ExitCode::from(exit::STRICT)
            } else {
                ExitCode::from(exit::OK)
            }
        }
        // A closed pipe (`sessions list | head`) is not an error.
        Err(f) if f.message.contains("Broken pipe") => ExitCode::from(exit::OK),
        Err(f) => {
            to_stderr!("{}", crate::diag::labelled("error", &f.message));
            ExitCode::from(f.status)
        }
    }
}

/// The one warning when `$TZ` names no zone: chrono then takes local time as UTC without a
/// word. `what` says what the command then does in UTC. Nothing is local under `--utc`.
pub fn warn_bad_tz(g: &GlobalArgs, what: &str) {
    if g.utc || g.quiet {
        return;
    }
    if let Some(bad) = crate::usage::zone::bad_tz() {
        to_stderr!(
            "warning: TZ={} names no time zone: {what}",
            crate::render::text::safe_line(&bad)
        );
    }
}

pub fn stores(g: &GlobalArgs) -> Stores {
    let opts = StoreOptions {
        home: g.home.clone(),
        claude_dir: g.claude_dir.clone(),
        codex_dir: g.codex_dir.clone(),
        gemini_dir: g.gemini_dir.clone(),
    };
    Stores::resolve(&opts, &|k| std::env::var(k).ok())
}

/// What a session argument of `show`, `export` or `replay-compress` names.
pub enum Target {
    /// A readable regular file.
    File(PathBuf),
    /// No such file: a session id or id prefix.
    Id(String),
}

/// Classify a session argument, saying what is wrong with a path that cannot be a session:
/// a folder (with `folder_hint`), a FIFO, a device or a socket (never opened), a file that
/// cannot be read, a path that does not exist.
pub fn target(t: &OsStr, folder_hint: &str) -> Result<Target, Failure> {
    // An empty prefix would match every session.
    if t.to_str().is_some_and(|s| s.trim().is_empty()) {
        return Err(Failure::usage(
            "an empty session name: give an id, a unique id prefix or a path",
        ));
    }
    let path = Path::new(t);
    let shown = safe_path(path);
    match fs::metadata(path) {
        Ok(m) if m.is_file() => match fs::File::open(path) {
            Ok(_) => Ok(Target::File(path.to_path_buf())),
            Err(e) => Err(Failure::failed(format!("{shown}: cannot read: {e}"))),
        },
        Ok(m) if m.is_dir() => Err(Failure::usage(format!(
            "{shown} is a folder, not a session file; {folder_hint}"
        ))),
        Ok(m) => Err(Failure::usage(format!(
            "{shown} is {}, not a session file",
            crate::output::kind_of(&m.file_type())
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Ids never contain a path separator and are UTF-8: anything else was a path.
            match t.to_str() {
                Some(id) if !id.contains(std::path::MAIN_SEPARATOR) && !id.contains('/') => {
                    Ok(Target::Id(id.to_string()))
                }
                _ => Err(Failure::usage(format!("{shown}: no such file"))),
            }
        }
        Err(e) => Err(Failure::failed(format!("{shown}: cannot read: {e}"))),
    }
}

/// Files and folders named on the command line must exist, and be files or folders (a FIFO, a
/// socket or a device is never opened): the same usage error (exit 2) for every command.
pub fn check_named_paths(paths: &[PathBuf]) -> Result<(), Failure> {
    for p in paths {
        match fs::symlink_metadata(p) {
            Ok(_) => match fs::metadata(p) {
                Ok(m) if !m.is_file() && !m.is_dir() => {
                    return Err(Failure::usage(format!(
                        "{} is {}, not a session file or folder",
                        safe_path(p),
                        crate::output::kind_of(&m.file_type())
                    )));
                }
                // A dangling link or an unreadable target is reported by the scan.
                _ => {}
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Failure::usage(format!(
                    "{}: no such file or folder",
                    safe_path(p)
                )));
            }
            // Anything else (permissions, a loop) is reported by the scan as unreadable.
            Err(_) => {}
        }
    }
    Ok(())
}

/// A note for each file named on the command line that no agent's format matched (files in a
/// named folder are not named: a folder of backups holds other files too).
pub fn note_unrecognised(result: &crate::scan::ScanResult, quiet: bool) {
    if quiet {
        return;
    }
    for p in &result.unrecognised {
        crate::diag::note(&format!(
            "{}: not a session file of any supported agent",
            crate::output::safe_path(p)
        ));
    }
}

/// `--home` must be a folder that can be read: otherwise every store in it would silently be
/// "not found".
fn check_home(g: &GlobalArgs) -> Result<(), Failure> {
    if let Some(h) = &g.home {
        check_home_folder("--home", h)?;
    }
    // A project root that is not there would resolve nothing, in silence.
    for r in &g.project_root {
        check_home_folder("--project-root", r)?;
    }
    Ok(())
}

/// A folder read as a home (`--home`, `list --fallback-home`) or searched for project paths
/// (`--project-root`) must be a folder that can be read: a usage error (exit 2) otherwise,
/// whether or not the run would have read it.
pub fn check_home_folder(flag: &str, h: &Path) -> Result<(), Failure> {
    let shown = safe_path(h);
    match fs::metadata(h) {
        Ok(m) if m.is_dir() => fs::read_dir(h)
            .map(|_| ())
            .map_err(|e| Failure::usage(format!("{flag} {shown}: cannot read: {e}"))),
        Ok(m) => Err(Failure::usage(format!(
            "{flag} {shown}: is {}, not a folder",
            crate::output::kind_of(&m.file_type())
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(Failure::usage(format!("{flag} {shown}: no such folder")))
        }
        Err(e) => Err(Failure::usage(format!("{flag} {shown}: cannot read: {e}"))),
    }
}

/// The one check of every command that reads the stores (`list`, `projects`, `compactions`,
/// `usage`, `export` and `replay-compress`, with `--all` or an id): when no store exists and no
/// path was named, it fails (exit 1), saying where it looked, rather than report an empty
/// selection as if the stores had been read.
/// An empty table: `No {what} found.` on stdout, then on stderr where the command looked (the
/// stores of the agents asked for), unless files were named or `--quiet` is given.
pub fn write_empty(
    out: &mut impl Write,
    what: &str,
    g: &GlobalArgs,
    opts: &ScanOptions,
    named: &[PathBuf],
) -> io::Result<()> {
    writeln!(out, "No {what} found.")?;
    out.flush()?;
    if named.is_empty() && !g.quiet {
        to_stderr!(
            "{}",
            list::looked_in_line(&opts.stores, &opts.filter.agents())
        );
    }
    Ok(())
}

pub fn require_stores(result: &ScanResult, stores: &Stores) -> Result<(), Failure> {
    if result.stores_found {
        Ok(())
    } else {
        Err(Failure::failed(no_stores_message(stores)))
    }
}

/// On a machine with no stores, say where we looked and how to see the sample.
fn no_stores_message(stores: &Stores) -> String {
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
        looked.push(format!("  {}{named}", safe_path(p)));
    }
    format!(
        "no Claude Code, Codex CLI or Gemini CLI session store found; looked in:\n{}\n\
         To see what sessions looks like, point it at the sample home shipped in the repository:\n  \
         sessions --home testdata/home list",
        looked.join("\n")
    )
}

/// The output guard of a command that writes files: it protects the stores this run reads, the
/// machine's own stores (whatever `--home` or the flags point at) and the agents' folders they
/// are in, whatever their names, and every file or folder being read (`--prices` included).
pub fn guard<'p>(
    g: &GlobalArgs,
    force: bool,
    reading: impl IntoIterator<Item = &'p Path>,
) -> Guard {
    let mut guard = Guard::new(force);
    guard.protect_stores(&stores(g));
    let env = |k: &str| std::env::var(k).ok();
    guard.protect_stores(&Stores::resolve(&StoreOptions::default(), &env));
    // The default folders too when a variable points the agents elsewhere: they may still
    // hold another setup's sessions and credentials.
    let machine = env("HOME")
        .filter(|h| !h.trim().is_empty())
        .map(PathBuf::from);
    // A `--home` copy: the agents' whole folders in it, not only their session folders.
    for h in g.home.iter().chain(&machine) {
        guard.protect_stores(&Stores::resolve(
            &StoreOptions {
                home: Some(h.clone()),
                ..Default::default()
            },
            &env,
        ));
        for d in [".claude", ".codex", ".gemini", ".config/claude"] {
            guard.protect_dir(&h.join(d), "the agent folder");
        }
    }
    // A file can be named twice (a chosen session is also in the pool of sub-agents): each
    // registration resolves the path component by component.
    let mut seen = std::collections::HashSet::new();
    for p in reading {
        if seen.insert(p) {
            guard.protect_read(p);
        }
    }
    if let Some(prices) = &g.prices {
        guard.protect_read(prices);
    }
    guard
}

impl From<OutputError> for Failure {
    fn from(e: OutputError) -> Self {
        Failure::failed(e.to_string())
    }
}

/// The selection of `sel`, reading plain dates in `--since`/`--until` as days of `zone`.
pub fn filter(sel: &SelectArgs, zone: &Zone) -> Result<Filter, Failure> {
    let now = Utc::now();
    let f = &sel.filter;
    let since = f
        .since
        .as_deref()
        .map(|s| parse_since(s, zone, now))
        .transpose()
        .map_err(Failure::usage)?;
    let until = f
        .until
        .as_deref()
        .map(|s| parse_until(s, zone, now))
        .transpose()
        .map_err(Failure::usage)?;
    if let (Some(s), Some(u)) = (since, until)
        && !u.admits(s)
    {
        return Err(Failure::usage(format!(
            "--since {} is after --until {}: no time is in that window",
            f.since.as_deref().unwrap_or_default(),
            f.until.as_deref().unwrap_or_default()
        )));
    }
    Ok(Filter {
        agents: f.agent.clone(),
        project: f
            .project
            .as_deref()
            .map(ProjectMatcher::new)
            .transpose()
            .map_err(Failure::usage)?,
        since,
        until,
        kind: f.kind,
    })
}

/// The scan of a command's selection; plain dates are days of the zone times are shown in
/// (UTC under `--utc`, else local).
pub fn scan_options(g: &GlobalArgs, sel: &SelectArgs) -> Result<ScanOptions, Failure> {
    scan_options_in(g, sel, &Zone::display(g.utc))
}

/// [`scan_options`] with plain dates read as days of `zone` (`usage --timezone`).
pub fn scan_options_in(
    g: &GlobalArgs,
    sel: &SelectArgs,
    zone: &Zone,
) -> Result<ScanOptions, Failure> {
    check_named_paths(&sel.paths)?;
    Ok(ScanOptions {
        stores: stores(g),
        paths: sel.paths.clone(),
        project_roots: g.project_root.clone(),
        filter: filter(sel, zone)?,
        selection: None,
        progress: !g.no_progress && !g.quiet,
    })
}

/// Buffered stdout.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(64 * 1024, io::stdout().lock())
}

/// Write JSON values as one array (pretty) or one line each (NDJSON).
pub fn write_json<T: serde::Serialize>(items: &[T], ndjson: bool) -> Result<(), Failure> {
    let mut out = stdout();
    if ndjson {
        for it in items {
            serde_json::to_writer(&mut out, it).map_err(|e| Failure::failed(e.to_string()))?;
            out.write_all(b"\n")?;
        }
    } else {
        serde_json::to_writer_pretty(&mut out, items)
            .map_err(|e| Failure::failed(e.to_string()))?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// CSV rows under their header. The header is printed with no row too (as `usage` does): a
/// script that reads the columns by name finds them, and an empty selection is not an empty
/// file. The csv writer names the columns from the first row it serialises, so the header of
/// no rows is that of an empty one.
pub fn write_csv<T: serde::Serialize + Default>(items: &[T]) -> Result<(), Failure> {
    let failed = |e: csv::Error| Failure::failed(e.to_string());
    if items.is_empty() {
        let mut head = csv::Writer::from_writer(Vec::new());
        head.serialize(T::default()).map_err(failed)?;
        let text = head
            .into_inner()
            .map_err(|e| Failure::failed(e.to_string()))?;
        let header = text
            .split_inclusive(|&b| b == b'\n')
            .next()
            .unwrap_or_default();
        let mut sink = csv_writer()
            .into_inner()
            .map_err(|e| Failure::failed(e.to_string()))?;
        sink.write_all(header)?;
        return sink.finish();
    }
    let mut w = csv_writer();
    for it in items {
        w.serialize(it).map_err(failed)?;
    }
    finish_csv(w)
}

/// The writer every CSV goes through; [`finish_csv`] ends it.
pub fn csv_writer() -> csv::Writer<CsvSink> {
    let sink = if io::stdout().is_terminal() {
        CsvSink::Terminal(Vec::new())
    } else {
        CsvSink::Piped(stdout())
    };
    csv::Writer::from_writer(sink)
}

pub fn finish_csv(w: csv::Writer<CsvSink>) -> Result<(), Failure> {
    w.into_inner()
        .map_err(|e| Failure::failed(e.to_string()))?
        .finish()
}

/// Piped, a CSV is data and goes out byte for byte. On a terminal, a cell's escape sequence
/// would retitle it or write the clipboard, so the CSV is held until whole and each cell is
/// shown as the tables show a name: control characters as visible escapes. Holding it lets the
/// cells be read back by a CSV parser, which alone knows a quoted newline from a row's end.
pub enum CsvSink {
    Piped(io::BufWriter<io::StdoutLock<'static>>),
    Terminal(Vec<u8>),
}

impl CsvSink {
    fn finish(self) -> Result<(), Failure> {
        match self {
            CsvSink::Piped(mut out) => out.flush()?,
            CsvSink::Terminal(text) => {
                let shown = csv_for_terminal(&text).map_err(|e| Failure::failed(e.to_string()))?;
                let mut out = stdout();
                out.write_all(&shown)?;
                out.flush()?;
            }
        }
        Ok(())
    }
}

impl Write for CsvSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            CsvSink::Piped(out) => out.write(buf),
            CsvSink::Terminal(text) => text.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            CsvSink::Piped(out) => out.flush(),
            CsvSink::Terminal(_) => Ok(()),
        }
    }
}

fn csv_for_terminal(text: &[u8]) -> Result<Vec<u8>, csv::Error> {
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text);
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    for row in rows.records() {
        let row = row?;
        w.write_record(
            row.iter()
                .map(|c| crate::render::text::safe_one_line(c).into_owned()),
        )?;
    }
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// File names for several outputs written side by side: `stem.ext`, then `stem-2.ext`,
/// `stem-3.ext` for a stem already given (two sessions with one id, say), so that every
/// target is known, and checked, before anything is written.
#[derive(Default)]
pub struct Names(std::collections::HashSet<String>);

impl Names {
    pub fn next(&mut self, stem: &str, ext: &str) -> String {
        let mut name = format!("{stem}.{ext}");
        let mut n = 1;
        while !self.0.insert(name.clone()) {
            n += 1;
            name = format!("{stem}-{n}.{ext}");
        }
        name
    }
}

#[cfg(test)]
mod tests {
    use super::csv_for_terminal;

    #[test]
    fn a_terminal_csv_shows_control_characters_in_cells_and_keeps_its_rows() {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["title", "path"]).unwrap();
        w.write_record(["\u{1b}]0;x\u{7}two\nlines, \"quoted\"", "/a\u{9b}b\u{202e}"])
            .unwrap();
        w.write_record(["", "plain"]).unwrap();
        let data = w.into_inner().unwrap();
        let shown = String::from_utf8(csv_for_terminal(&data).unwrap()).unwrap();
        assert_eq!(
            shown,
            "title,path\n\"^[]0;x^Gtwo^Jlines, \"\"quoted\"\"\",/aM-^[b<U+202E>\n,plain\n"
        );
    }
}
