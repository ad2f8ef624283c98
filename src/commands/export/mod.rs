//! `sessions export`: transcripts of one or more sessions as Markdown, self-contained HTML,
//! JSON or JSONL, optionally redacted.
//!
//! Sessions are chosen like `show` (ids, prefixes, files) or like `list` (`--all` + filters).
//! One session goes to stdout or `-o FILE`; several go into `-o DIR`, one file each plus an
//! index, exported in parallel, one session in memory per worker (with `--all`, a session and
//! the sub-agents it embeds: see `early`). Nothing is written inside
//! an agent's store, and no existing file is replaced without `--force`.

use std::collections::{HashMap, HashSet};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::cli::{ExportArgs, GlobalArgs};
use crate::commands::show::{find_one, load};
use crate::commands::{CmdResult, Failure, Names, guard, scan_options, stdout, stores};
use crate::diag::Report;
use crate::diag::Warning;
use crate::discover::Discovery;
use crate::export::markdown::{Assets, Children, Env};
use crate::export::redact::{Redactions, redact_session};
use crate::export::{
    ExportFormat, ExportOptions, ImageMode, IndexEntry, file_stem, trim, write_index, write_session,
};
use crate::filter::KindFilter;
use crate::model::{Agent, Session, SessionKind};
use crate::output::{Guard, OutputDir, OutputError, Refusal, resolve, safe_path};
use crate::parse::SourceFile;
use crate::scan::{SessionSummary, discover, scan, scan_each};

mod early;
use early::{Early, Group, Staging};

pub fn run(g: &GlobalArgs, a: &ExportArgs) -> CmdResult {
    // `-o -` is stdout, as for most tools (a file named `-` is `-o ./-`).
    if a.output.as_deref() == Some(Path::new("-")) {
        let stdout = ExportArgs {
            output: None,
            ..a.clone()
        };
        return run(g, &stdout);
    }
    let opts = ExportOptions {
        format: a.format,
        max_output_lines: a.max_output_lines,
        images: a.images,
        thinking: !a.no_thinking,
        tools: !a.no_tools,
        redact: a.redact,
        literal: a.literal,
    };
    if a.images == ImageMode::Extract {
        if !matches!(a.format, ExportFormat::Md | ExportFormat::Html) {
            return Err(Failure::usage(
                "--images extract works with --format md or html",
            ));
        }
        if a.output.is_none() {
            return Err(Failure::usage(
                "--images extract writes the images next to the export: give -o FILE or -o DIR",
            ));
        }
    }

    let mut sel = select(g, a, &opts)?;
    if sel.chosen.is_empty() {
        return Err(Failure::failed(
            "no session matches the filters; nothing exported",
        ));
    }
    let dest = destination(a, sel.chosen.len())?;
    let reading: Vec<&Path> = sel
        .pool
        .iter()
        .chain(&sel.chosen)
        .map(SessionSummary::path)
        .chain(a.targets.iter().map(Path::new).filter(|p| p.exists()))
        .collect();
    let guard = guard(g, a.force, reading);
    if !matches!(dest, Dest::Dir(_)) {
        // Before the full parses, what exporting the chosen sessions one by one no longer
        // needs goes: the sessions that cannot be a sub-agent (the scan's own copies of the
        // chosen ones among them) and the chosen ones' requests, which a large session would
        // otherwise hold twice beside its full model. (`export_dir` reads them all.)
        sel.pool.retain(|s| s.kind == SessionKind::Subagent);
        for s in &mut sel.chosen {
            s.requests = Vec::new();
        }
    }
    let redactions = Mutex::new(Redactions::default());
    let pool = Pool::new(&sel.pool, &opts, &redactions, guard);
    let guard = &pool.guard;

    let outcome = match &dest {
        Dest::Stdout => {
            // `stream` flushes what it wrote, failures or not.
            stream(g, &sel.chosen, &pool, &mut stdout())
        }
        Dest::File(path) => {
            let assets = assets_dir(path, &opts);
            check_all(guard, std::slice::from_ref(path), assets.as_slice())?;
            undone_on_failure(guard, assets.as_deref(), || {
                guard.write(path, |w| export_one(&sel.chosen[0], &pool, Some(path), w))
            })?;
            if !g.quiet {
                to_stderr!("exported 1 session to {}", safe_path(path));
            }
            Ok(())
        }
        Dest::Dir(dir) => {
            let early = std::mem::take(&mut sel.early);
            export_dir(g, a, &sel, early, &pool, dir)
        }
    };

    if !g.quiet {
        let mut notes = pool.notes.lock().map(|n| n.clone()).unwrap_or_default();
        // Sessions are exported in parallel: their notes go by session, in the order each
        // session met them, the same on every run.
        notes.sort_by(|a, b| a.0.cmp(&b.0));
        for (id, n) in notes {
            to_stderr!("warning: {id}: {n}");
        }
        if opts.redact {
            let r = redactions.lock().map(|r| r.clone()).unwrap_or_default();
            to_stderr!("{}", r.describe());
        }
    }
    outcome.map(|_| sel.report)
}

/// The sessions to export, and the wider scan their sub-agents are looked up in.
struct Selection {
    chosen: Vec<SessionSummary>,
    pool: Vec<SessionSummary>,
    report: Report,
    /// Sessions rendered while the scan held them, by file.
    early: HashMap<PathBuf, Early>,
    /// The folder the early renderings are in, kept until they are placed.
    _staging: Option<OutputDir>,
}

fn select(g: &GlobalArgs, a: &ExportArgs, eopts: &ExportOptions) -> Result<Selection, Failure> {
    a.filters.require_all(a.all).map_err(Failure::usage)?;
    let mut sel = if a.all {
        let paths: Vec<PathBuf> = a.targets.iter().map(PathBuf::from).collect();
        let mut select = a.filters.select(paths);
        let kind = select.filter.kind;
        // Sub-agents are needed to nest them into their parents, whatever --kind says.
        select.filter.kind = KindFilter::All;
        let opts = scan_options(g, &select)?;
        let staging = Staging::new(g, a, eopts, &opts, kind);
        let (result, early) = match &staging {
            Some(st) => scan_each(
                &opts,
                discover(&opts),
                early::GROUP_BYTES,
                full_view,
                |group: &mut Group, summary, session, ()| st.render(group, summary, session),
            ),
            None => (scan(&opts), HashMap::new()),
        };
        crate::commands::note_unrecognised(&result, g.quiet);
        crate::commands::require_stores(&result, &opts.stores)?;
        let chosen = result
            .sessions
            .iter()
            .filter(|s| kind.accepts(s.kind))
            .cloned()
            .collect();
        Selection {
            chosen,
            pool: result.sessions,
            report: result.report,
            early,
            _staging: staging.map(|st| st.dir),
        }
    } else {
        let mut chosen: Vec<SessionSummary> = Vec::new();
        let mut pool: Vec<SessionSummary> = Vec::new();
        let mut have_store_scan = false;
        let mut report = Report::default();
        for t in &a.targets {
            let path = Path::new(t);
            if path.is_dir() {
                let t = safe_path(path);
                return Err(Failure::usage(format!(
                    "{t} is a folder: `sessions export --all {t}` exports every session in it"
                )));
            }
            let (s, siblings, r) = find_one(g, t)?;
            // Two sessions of one store may owe the user the same registry's warning: once.
            report.extend_once(r.warnings);
            if path.is_file() {
                pool.extend(siblings);
                // A file inside a store: find its sub-agents with a scan of the stores.
                if !have_store_scan && in_store(g, path) {
                    let select = crate::cli::SelectArgs::every_kind();
                    let mut opts = scan_options(g, &select)?;
                    opts.progress = false;
                    pool.extend(scan(&opts).sessions);
                    have_store_scan = true;
                }
            } else if !have_store_scan {
                // Every id lookup scans all stores: keep one copy of that scan.
                pool.extend(siblings);
                have_store_scan = true;
            }
            if !chosen.iter().any(|c| c.path() == s.path() && c.id == s.id) {
                chosen.push(s);
            }
        }
        Selection {
            chosen,
            pool,
            report,
            early: HashMap::new(),
            _staging: None,
        }
    };
    // Newest first, like `list`.
    sel.chosen.sort_by(|x, y| {
        y.started_at
            .cmp(&x.started_at)
            .then_with(|| x.id.cmp(&y.id))
    });
    Ok(sel)
}

/// What every export of a run shares: the sub-agent sessions of the scan, by parent and by id
/// (loaded on demand and prepared like the session they are embedded in), the options, the
/// output guard, and what was redacted and noted on the way.
struct Pool<'a> {
    by_parent: HashMap<&'a str, Vec<&'a SessionSummary>>,
    by_id: HashMap<&'a str, &'a SessionSummary>,
    opts: &'a ExportOptions,
    redactions: &'a Mutex<Redactions>,
    guard: Arc<Guard>,
    /// Each a session id and what its export met.
    notes: Mutex<Vec<(String, String)>>,
}

impl<'a> Pool<'a> {
    fn new(
        pool: &'a [SessionSummary],
        opts: &'a ExportOptions,
        redactions: &'a Mutex<Redactions>,
        guard: Guard,
    ) -> Self {
        let mut by_parent: HashMap<&str, Vec<&SessionSummary>> = HashMap::new();
        let mut by_id: HashMap<&str, &SessionSummary> = HashMap::new();
        // Each parent lists an id once (copies of a sub-agent's file share it).
        let mut listed: HashSet<(&str, &str)> = HashSet::new();
        for s in pool.iter().filter(|s| s.kind == SessionKind::Subagent) {
            if let Some(p) = s.parent_id.as_deref()
                && listed.insert((p, &s.id))
            {
                by_parent.entry(p).or_default().push(s);
            }
            by_id.entry(s.id.as_str()).or_insert(s);
        }
        for v in by_parent.values_mut() {
            v.sort_by_key(|s| s.started_at);
        }
        Pool {
            by_parent,
            by_id,
            opts,
            redactions,
            guard: Arc::new(guard),
            notes: Mutex::new(Vec::new()),
        }
    }
}

impl Children for Pool<'_> {
    fn of(&self, parent_id: &str) -> Vec<String> {
        self.by_parent
            .get(parent_id)
            .map(|v| v.iter().map(|s| s.id.clone()).collect())
            .unwrap_or_default()
    }

    fn load(&self, id: &str, path: Option<&Path>) -> Option<Session> {
        let mut s = match (self.by_id.get(id), path) {
            (Some(summary), _) => load(summary).ok()?,
            (None, Some(p)) => {
                let d = Discovery::walk_paths(&[p.to_path_buf()], &Agent::ALL);
                crate::parse::parse_file(d.files.first()?).ok()?
            }
            (None, None) => return None,
        };
        count(self.redactions, prepare(&mut s, self.opts).as_ref());
        Some(s)
    }
}

/// `--no-thinking`/`--no-tools`, then `--redact`; returns what was replaced.
fn prepare(s: &mut Session, opts: &ExportOptions) -> Option<Redactions> {
    trim(s, opts);
    opts.redact.then(|| redact_session(s))
}

/// Count what a session's redaction replaced into the run's total.
fn count(total: &Mutex<Redactions>, r: Option<&Redactions>) {
    if let (Some(r), Ok(mut total)) = (r, total.lock()) {
        total.merge(r);
    }
}

/// Load, prepare and render one session; returns its index entry.
fn export_one(
    summary: &SessionSummary,
    pool: &Pool,
    file: Option<&Path>,
    out: &mut dyn Write,
) -> io::Result<IndexEntry> {
    let s = prepared(summary, pool).map_err(|f| io::Error::other(f.message))?;
    render(&s, pool, file, out)
}

/// The session of `summary` read in full and prepared for the export, what it redacted
/// counted.
fn prepared(summary: &SessionSummary, pool: &Pool) -> Result<Session, Failure> {
    let mut s = load(summary)?;
    count(pool.redactions, prepare(&mut s, pool.opts).as_ref());
    Ok(s)
}

/// Render a prepared session (into `file`, when it is written to one); returns its index
/// entry.
fn render(
    s: &Session,
    pool: &Pool,
    file: Option<&Path>,
    out: &mut dyn Write,
) -> io::Result<IndexEntry> {
    let opts = pool.opts;
    let assets = file
        .and_then(|f| assets_dir(f, opts))
        .map(|d| Assets::new(d, Arc::clone(&pool.guard)));
    let env = Env::new(opts, pool, assets);
    write_session(out, s, &env)?;
    if let Ok(mut n) = pool.notes.lock() {
        n.extend(env.notes.borrow().iter().map(|m| (s.id.clone(), m.clone())));
    }
    let name = file
        .and_then(|f| f.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(IndexEntry::new(name, s))
}

/// How `export --all -o DIR` reads each file: in full, since it renders it while the scan
/// holds it.
fn full_view(f: &SourceFile) -> Result<(Session, ()), Warning> {
    crate::parse::parse_file(f).map(|s| (s, ()))
}

enum Dest {
    Stdout,
    File(PathBuf),
    Dir(PathBuf),
}

fn destination(a: &ExportArgs, n: usize) -> Result<Dest, Failure> {
    match &a.output {
        None if n == 1 => Ok(Dest::Stdout),
        // JSONL records name their session: several sessions stream fine.
        None if a.format == ExportFormat::Jsonl => Ok(Dest::Stdout),
        None => Err(Failure::usage(format!(
            "{n} sessions selected: give -o DIR to write one file per session (or --format jsonl to stream them)"
        ))),
        Some(p) => {
            let dir_like = p.is_dir()
                || p.as_os_str()
                    .to_string_lossy()
                    .ends_with(std::path::MAIN_SEPARATOR)
                || p.as_os_str().to_string_lossy().ends_with('/');
            if !a.all && n == 1 && !dir_like {
                Ok(Dest::File(p.clone()))
            } else if !p.exists() && !dir_like && names_a_file(p) {
                Err(Failure::usage(format!(
                    "-o {}: names a file, but {} need a folder (one file each, plus an \
                     index); give a folder such as -o {}/",
                    safe_path(p),
                    if a.all {
                        "--all exports".to_string()
                    } else {
                        format!("{n} sessions")
                    },
                    safe_path(&p.with_extension(""))
                )))
            } else if p.exists() && !p.is_dir() {
                Err(Failure::usage(format!(
                    "-o {}: not a folder ({} sessions need one, one file each)",
                    safe_path(p),
                    n
                )))
            } else {
                Ok(Dest::Dir(p.clone()))
            }
        }
    }
}

/// A path whose extension is one of an export's (`x.md`, `x.html`, …): the user meant a file.
fn names_a_file(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["md", "markdown", "html", "htm", "json", "jsonl", "txt"]
            .contains(&e.to_ascii_lowercase().as_str())
    })
}

/// `<file stem>.files`, where `--images extract` puts the images of an export.
/// Run the write of an export whose images go to `assets`; when it fails, the images it wrote
/// go again, and their folder if the run made it, so that a failed export leaves nothing
/// behind that would refuse the next run. Only the names [`Assets`] gives are removed.
fn undone_on_failure<T, E>(
    guard: &Guard,
    assets: Option<&Path>,
    write: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let made = assets.filter(|d| !d.exists());
    let r = write();
    if let (Err(_), Some(dir)) = (&r, made) {
        guard.take_back(dir, Assets::is_own_name);
    }
    r
}

fn assets_dir(file: &Path, opts: &ExportOptions) -> Option<PathBuf> {
    if opts.images != ImageMode::Extract {
        return None;
    }
    let stem = file.file_stem()?.to_string_lossy().into_owned();
    Some(file.with_file_name(format!("{stem}.files")))
}

fn export_dir(
    g: &GlobalArgs,
    a: &ExportArgs,
    sel: &Selection,
    mut early: HashMap<PathBuf, Early>,
    pool: &Pool,
    dir: &Path,
) -> Result<(), Failure> {
    let (opts, guard) = (pool.opts, &pool.guard);
    guard.check_dir(dir)?;
    // Names first (deterministic, collisions numbered), so every target can be checked before
    // anything is written.
    let mut names = Names::default();
    let mut jobs: Vec<(&SessionSummary, PathBuf, Option<Early>)> = Vec::new();
    for s in &sel.chosen {
        let stem = file_stem(s.agent.as_str(), s.started_at, &s.id);
        let name = names.next(&stem, opts.format.ext());
        let done = early.remove(s.path()).filter(|e| e.holds(s, pool));
        jobs.push((s, dir.join(name), done));
    }
    // Renderings of sessions not exported, or whose inputs changed, are removed now.
    drop(early);
    let with_index = a.all || jobs.len() > 1;
    let index = dir.join(opts.format.index_name());
    let mut targets: Vec<PathBuf> = jobs.iter().map(|(_, p, _)| p.clone()).collect();
    if with_index {
        targets.push(index.clone());
    }
    let assets: Vec<PathBuf> = jobs
        .iter()
        .filter_map(|(_, p, _)| assets_dir(p, opts))
        .collect();
    check_all(guard, &targets, &assets)?;
    guard.create_dir_all(dir)?;

    let bar = progress(g, jobs.len());
    let results: Vec<(String, Result<IndexEntry, String>)> = jobs
        .into_par_iter()
        .with_max_len(1)
        .map(|(s, path, done)| {
            let r = match done {
                Some(e) => place(e, guard, pool, &path),
                None => undone_on_failure(guard, assets_dir(&path, opts).as_deref(), || {
                    guard.write(&path, |w| export_one(s, pool, Some(&path), w))
                }),
            }
            .map_err(|e| e.to_string());
            if let Some(b) = &bar {
                b.inc(1);
            }
            (s.id.clone(), r)
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut entries = Vec::new();
    let mut failed = Vec::new();
    for (id, r) in results {
        match r {
            Ok(e) => entries.push(e),
            Err(e) => failed.push(format!("{id}: {e}")),
        }
    }
    entries.sort_by_key(IndexEntry::sort_key);
    // A failed index is reported with the sessions that failed, not instead of them.
    let index_error = with_index
        .then(|| guard.write(&index, |w| write_index(w, opts, &entries)))
        .and_then(Result::err);
    if !g.quiet {
        to_stderr!(
            "exported {} session{} to {}{}",
            entries.len(),
            if entries.len() == 1 { "" } else { "s" },
            safe_path(dir),
            if with_index && index_error.is_none() {
                format!(" (index: {})", safe_path(&index))
            } else {
                String::new()
            }
        );
    }
    match (failed.is_empty(), index_error) {
        (true, None) => Ok(()),
        (true, Some(e)) => Err(e.into()),
        (false, index_error) => {
            let mut f = not_exported(failed);
            if let Some(e) = index_error {
                f.message = format!("{}\n{e}", f.message);
            }
            Err(f)
        }
    }
}

/// A bar counting the sessions exported, when there are several and stderr is a terminal.
fn progress(g: &GlobalArgs, sessions: usize) -> Option<ProgressBar> {
    if g.no_progress || g.quiet || !io::stderr().is_terminal() || sessions < 2 {
        return None;
    }
    let bar = ProgressBar::new(sessions as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} exporting {bar:30} {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// The bytes of session files one window of [`stream`] renders side by side. On the bench
/// store (docs/benchmarks.md, "Several sessions to stdout side by side"), 8 and 16 MiB windows
/// export as fast as 64 MiB ones, at close to the peak memory of one file at a time (148–156
/// MB against 144 MB; 230 MB with 64 MiB windows).
const STREAM_WINDOW: u64 = 16 << 20;

/// Sessions to stdout (several: JSONL), in the order chosen. The files of a window of at most
/// [`STREAM_WINDOW`] bytes are rendered in parallel, each into its own buffer, and the buffers
/// written in order once the window is done: the memory is the window's renderings, not the
/// whole export's. A file larger than a window is a window of its own, written straight out
/// rather than held. A session that cannot be read is left out and the others written, as
/// into a folder; the run then fails, naming it. A failed write stops the run.
fn stream(
    g: &GlobalArgs,
    chosen: &[SessionSummary],
    pool: &Pool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    // Not over the sessions themselves on the same terminal.
    let bar = (!io::stdout().is_terminal())
        .then(|| progress(g, chosen.len()))
        .flatten();
    let mut failed: Vec<(&str, String)> = Vec::new();
    for window in windows(chosen.iter().map(|s| s.source.size), STREAM_WINDOW) {
        let window = &chosen[window];
        if let [one] = window {
            match prepared(one, pool) {
                Ok(s) => {
                    render(&s, pool, None, out)?;
                }
                Err(f) => failed.push((&one.id, f.message)),
            }
        } else {
            let rendered: Vec<Result<Vec<u8>, String>> = window
                .par_iter()
                .with_max_len(1)
                .map(|s| {
                    let s = prepared(s, pool).map_err(|f| f.message)?;
                    let mut buf = Vec::new();
                    render(&s, pool, None, &mut buf).map_err(|e| e.to_string())?;
                    Ok(buf)
                })
                .collect();
            for (s, r) in window.iter().zip(rendered) {
                match r {
                    Ok(buf) => out.write_all(&buf)?,
                    Err(e) => failed.push((&s.id, e)),
                }
            }
        }
        if let Some(b) = &bar {
            b.inc(window.len() as u64);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out.flush()?;
    match failed.as_slice() {
        [] => Ok(()),
        [(_, e)] if chosen.len() == 1 => Err(Failure::failed(e.clone())),
        _ => Err(not_exported(
            failed.iter().map(|(id, e)| format!("{id}: {e}")).collect(),
        )),
    }
}

/// The failure of a run that exported the others: every session it could not export, with
/// why.
fn not_exported(failed: Vec<String>) -> Failure {
    Failure::failed(format!(
        "{} could not be exported:\n  {}",
        crate::render::plural(failed.len(), "session"),
        failed.join("\n  ")
    ))
}

/// Consecutive ranges of `sizes`, each as long as its sizes sum to at most `max`: a size
/// over `max` is a range of its own.
fn windows(sizes: impl IntoIterator<Item = u64>, max: u64) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut end, mut sum) = (0, 0, 0u64);
    for size in sizes {
        if end > start && sum.saturating_add(size) > max {
            out.push(start..end);
            (start, sum) = (end, 0);
        }
        sum = sum.saturating_add(size);
        end += 1;
    }
    if end > start {
        out.push(start..end);
    }
    out
}

/// Put an early rendering at `path`, counting what it redacted and noted.
fn place(e: Early, guard: &Guard, pool: &Pool, path: &Path) -> Result<IndexEntry, OutputError> {
    guard.place(e.staged, path)?;
    count(pool.redactions, e.redactions.as_ref());
    if let Ok(mut n) = pool.notes.lock() {
        n.extend(e.notes);
    }
    let mut entry = e.entry;
    entry.file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(entry)
}

/// Check every target before anything is written: refusals first, then one message that
/// lists what already exists (a run either writes everything or nothing).
fn check_all(guard: &Guard, files: &[PathBuf], asset_dirs: &[PathBuf]) -> Result<(), Failure> {
    let mut exists: Vec<OutputError> = Vec::new();
    let checks = files
        .iter()
        .map(|f| guard.check(f).map(|_| ()))
        .chain(asset_dirs.iter().map(|d| {
            guard.check_dir(d)?;
            // Images of an earlier export would be replaced.
            if !guard.force() && d.exists() {
                return Err(OutputError::new(d, Refusal::Exists));
            }
            Ok(())
        }));
    for r in checks {
        match r {
            Ok(()) => {}
            Err(e) if e.is_exists() => exists.push(e),
            Err(e) => return Err(e.into()),
        }
    }
    if exists.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = exists.iter().map(|e| safe_path(&e.path)).collect();
    let more = if names.len() > 5 {
        format!(" (and {} more)", names.len() - 5)
    } else {
        String::new()
    };
    Err(Failure::failed(format!(
        "{} already exist{}{more}; use --force to overwrite",
        names[..names.len().min(5)].join(", "),
        if names.len() == 1 { "s" } else { "" }
    )))
}

/// Whether a session file lies in one of the configured stores (its sub-agents are then
/// found with a scan of the stores).
fn in_store(g: &GlobalArgs, path: &Path) -> bool {
    let Ok(p) = resolve(path) else {
        return false;
    };
    let st = stores(g);
    Agent::ALL.iter().any(|&a| {
        st.roots(a)
            .iter()
            .any(|r| resolve(r).is_ok_and(|r| p.starts_with(r)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The sample home's Codex sessions, newest first, and the options of a JSONL export.
    fn sample() -> (crate::cli::Cli, Vec<SessionSummary>, ExportOptions) {
        let cli =
            crate::cli::Cli::parse_from(["sessions", "--home", "testdata/home", "-q", "list"]);
        let select = crate::cli::SelectArgs::every_kind();
        let mut opts = scan_options(&cli.global, &select).unwrap();
        opts.progress = false;
        let mut sessions: Vec<SessionSummary> = scan(&opts)
            .sessions
            .into_iter()
            .filter(|s| s.agent == Agent::Codex && s.kind == SessionKind::Main)
            .collect();
        sessions.sort_by(|x, y| y.started_at.cmp(&x.started_at).then(x.id.cmp(&y.id)));
        let format = ExportOptions {
            format: ExportFormat::Jsonl,
            ..ExportOptions::default()
        };
        (cli, sessions, format)
    }

    /// What [`stream`] writes of `chosen`, and how it ended.
    fn streamed(
        cli: &crate::cli::Cli,
        chosen: &[SessionSummary],
        opts: &ExportOptions,
    ) -> (String, Result<(), Failure>) {
        let redactions = Mutex::new(Redactions::default());
        let pool = Pool::new(&[], opts, &redactions, guard(&cli.global, false, []));
        let mut out = Vec::new();
        let r = stream(&cli.global, chosen, &pool, &mut out);
        (String::from_utf8(out).unwrap(), r)
    }

    /// A sub-agent found in several files (copies) is listed once under its parent, the
    /// parent's sub-agents in the order they started, and found by id as its first file.
    #[test]
    fn a_parent_lists_each_sub_agent_once_in_the_order_they_started() {
        let cli =
            crate::cli::Cli::parse_from(["sessions", "--home", "testdata/home", "-q", "list"]);
        let mut opts = scan_options(&cli.global, &crate::cli::SelectArgs::every_kind()).unwrap();
        opts.progress = false;
        let mut all = scan(&opts).sessions;
        let subs: Vec<SessionSummary> = all
            .iter()
            .filter(|s| s.kind == SessionKind::Subagent && s.parent_id.is_some())
            .cloned()
            .collect();
        assert!(subs.len() >= 2, "{}", subs.len());
        for (n, s) in subs.iter().enumerate() {
            let mut copy = s.clone();
            copy.source.path = s.source.path.with_extension(format!("copy{n}"));
            all.push(copy);
        }
        let redactions = Mutex::new(Redactions::default());
        let opts = ExportOptions::default();
        let pool = Pool::new(&all, &opts, &redactions, guard(&cli.global, false, []));
        for s in &subs {
            let parent = s.parent_id.as_deref().unwrap();
            let mut want: Vec<&SessionSummary> = subs
                .iter()
                .filter(|x| x.parent_id.as_deref() == Some(parent))
                .collect();
            want.sort_by_key(|x| x.started_at);
            let want: Vec<String> = want.iter().map(|x| x.id.clone()).collect();
            assert_eq!(pool.of(parent), want, "{parent}");
            assert_eq!(pool.by_id[s.id.as_str()].path(), s.path());
        }
    }

    #[test]
    fn a_session_gone_after_the_scan_is_named_and_the_others_still_stream() {
        let (cli, sessions, opts) = sample();
        assert!(sessions.len() >= 3, "{}", sessions.len());
        let alone: Vec<String> = sessions[..3]
            .iter()
            .map(|s| {
                let (text, r) = streamed(&cli, std::slice::from_ref(s), &opts);
                assert!(r.is_ok() && text.lines().count() > 1, "{}", s.id);
                text
            })
            .collect();
        let mut chosen = sessions[..3].to_vec();
        chosen[1].source.path = chosen[1].source.path.with_extension("gone");
        let (text, r) = streamed(&cli, &chosen, &opts);
        assert_eq!(text, format!("{}{}", alone[0], alone[2]));
        let message = r.unwrap_err().message;
        assert!(
            message.starts_with("1 session could not be exported:")
                && message.contains(&chosen[1].id),
            "{message}"
        );
        // One session alone: its own error, nothing written.
        let (text, r) = streamed(&cli, &chosen[1..2], &opts);
        assert_eq!(text, "");
        let message = r.unwrap_err().message;
        assert!(
            !message.contains("could not be exported") && message.contains(".gone"),
            "{message}"
        );
    }

    #[test]
    fn windows_keep_order_and_stay_within_the_limit() {
        assert!(windows([], 10).is_empty());
        assert_eq!(windows([3, 3, 3, 3], 10), [0..3, 3..4]);
        // A size over the limit is alone; one at the limit may still take empty files.
        assert_eq!(
            windows([2, 15, 2, 10, 0, 1], 10),
            [0..1, 1..2, 2..3, 3..5, 5..6]
        );
        assert_eq!(windows([u64::MAX, u64::MAX, 1], 10), [0..1, 1..2, 2..3]);
        // Every index once, in order, and every range of several within the limit.
        let sizes: Vec<u64> = (0..200u64).map(|i| (i * 7919) % 23).collect();
        let ws = windows(sizes.iter().copied(), 40);
        let flat: Vec<usize> = ws.iter().flat_map(|w| w.clone()).collect();
        assert_eq!(flat, (0..200).collect::<Vec<_>>());
        for w in &ws {
            assert!(
                w.len() == 1 || sizes[w.clone()].iter().sum::<u64>() <= 40,
                "{w:?}"
            );
        }
        // Windows are as full as the next file allows.
        for pair in ws.windows(2) {
            let sum: u64 = sizes[pair[0].clone()].iter().sum();
            assert!(sum + sizes[pair[1].start] > 40, "{pair:?}");
        }
    }

    #[test]
    fn a_failed_export_takes_back_the_images_it_wrote() {
        let guard = Guard::new(false);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("x.files");
        let write_images = |names: &[&str]| {
            std::fs::create_dir_all(&dir).unwrap();
            for n in names {
                std::fs::write(dir.join(n), b"img").unwrap();
            }
        };
        // Failed: the run's images and the folder it made go.
        let r: Result<(), ()> = undone_on_failure(&guard, Some(&dir), || {
            write_images(&["image-001.png", "image-002.bin"]);
            Err(())
        });
        assert!(r.is_err());
        assert!(!dir.exists());
        // Succeeded: kept.
        let r: Result<(), ()> = undone_on_failure(&guard, Some(&dir), || {
            write_images(&["image-001.png"]);
            Ok(())
        });
        assert!(r.is_ok() && dir.join("image-001.png").exists());
        // A folder that was there before the run (--force) keeps what it held.
        let r: Result<(), ()> = undone_on_failure(&guard, Some(&dir), || {
            write_images(&["image-002.png"]);
            Err(())
        });
        assert!(r.is_err() && dir.join("image-001.png").exists());
        // Only the names the export gives are removed.
        std::fs::remove_dir_all(&dir).unwrap();
        let _: Result<(), ()> = undone_on_failure(&guard, Some(&dir), || {
            write_images(&["image-001.png", "notes.txt"]);
            Err(())
        });
        assert!(dir.join("notes.txt").exists() && !dir.join("image-001.png").exists());
    }

    #[test]
    fn every_image_name_the_export_gives_is_its_own() {
        use crate::export::markdown::Assets;
        for t in [
            "image/png",
            "image/jpeg",
            "image/gif",
            "image/webp",
            "image/svg+xml",
            "application/pdf",
            "x/y",
        ] {
            let name = format!("image-001.{}", crate::export::markdown::image_ext(Some(t)));
            assert!(Assets::is_own_name(&name), "{name}");
        }
        for name in [
            "image-1.png",
            "image-001.txt",
            "photo-001.png",
            "image-00a.png",
        ] {
            assert!(!Assets::is_own_name(name), "{name}");
        }
    }

    #[test]
    fn the_count_of_failed_sessions_agrees_in_number() {
        let one = not_exported(vec!["a: gone".into()]).message;
        assert!(one.starts_with("1 session could not be exported:"), "{one}");
        let two = not_exported(vec!["a: gone".into(), "b: gone".into()]).message;
        assert!(
            two.starts_with("2 sessions could not be exported:"),
            "{two}"
        );
    }
}
