//! One module per subcommand. This module turns parsed arguments into a scan, runs the command,
//! prints the warnings report and maps the outcome to an exit status.

pub mod compactions;
pub mod export;
pub mod list;
pub mod projects;
pub mod replay;
pub mod show;
pub mod usage;

use std::io::{self, Write};
use std::process::ExitCode;

use chrono::Utc;

use crate::cli::{Cli, Command, GlobalArgs, SelectArgs};
use crate::diag::Report;
use crate::discover::{StoreOptions, Stores};
use crate::filter::{Filter, ProjectMatcher, parse_when};
use crate::scan::ScanOptions;

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
    if let Some(path) = &g.prices {
        match crate::pricing::Pricing::with_file(path) {
            Ok(p) => crate::pricing::install(p),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(exit::USAGE);
            }
        }
    }
    let outcome = match &cli.command {
        Command::List(a) => list::run(g, a),
        Command::Show(a) => show::run(g, a),
        Command::Projects(a) => projects::run(g, a),
        Command::Compactions(a) => compactions::run(g, a),
        Command::ReplayCompress(a) => replay::run(g, a),
        Command::Export(a) => export::run(g, a),
        Command::Usage(a) => usage::run(g, a),
    };
    match outcome {
        Ok(report) => {
            report.print(g.verbose, g.quiet);
            if g.strict && report.serious() > 0 {
                if !g.quiet {
                    eprintln!(
                        "error: --strict: {} problem(s) reading the stores",
                        report.serious()
                    );
                }
                ExitCode::from(exit::STRICT)
            } else {
                ExitCode::from(exit::OK)
            }
        }
        // A closed pipe (`sessions list | head`) is not an error.
        Err(f) if f.message.contains("Broken pipe") => ExitCode::from(exit::OK),
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(f.status)
        }
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

pub fn filter(sel: &SelectArgs) -> Result<Filter, Failure> {
    let now = Utc::now();
    let when = |v: &Option<String>, end: bool| -> Result<_, Failure> {
        v.as_deref()
            .map(|s| parse_when(s, end, now))
            .transpose()
            .map_err(Failure::usage)
    };
    Ok(Filter {
        agents: sel.filter.agent.clone(),
        project: sel
            .filter
            .project
            .as_deref()
            .map(ProjectMatcher::new)
            .transpose()
            .map_err(Failure::usage)?,
        since: when(&sel.filter.since, false)?,
        until: when(&sel.filter.until, true)?,
        kind: sel.filter.kind,
    })
}

pub fn scan_options(g: &GlobalArgs, sel: &SelectArgs) -> Result<ScanOptions, Failure> {
    Ok(ScanOptions {
        stores: stores(g),
        paths: sel.paths.clone(),
        project_roots: g.project_root.clone(),
        filter: filter(sel)?,
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

pub fn write_csv<T: serde::Serialize>(items: &[T]) -> Result<(), Failure> {
    let mut w = csv::Writer::from_writer(stdout());
    for it in items {
        w.serialize(it)
            .map_err(|e| Failure::failed(e.to_string()))?;
    }
    w.flush()?;
    Ok(())
}
