//! The command-line interface: one clap definition that drives parsing, `--help`, the man pages
//! in `man/` and the shell completions in `completions/` (see `tests/generated.rs`).
//!
//! Its doc comments are `--help` text, printed as written, not rustdoc: placeholders such as
//! `<agent>` and `[REDACTED:<kind>]` stay bare.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::filter::KindFilter;
use crate::model::Agent;
use crate::pricing::snapshot_label;
use crate::replay::Algorithm;
use crate::usage::{ReportKind, WeekStart};

const AFTER_HELP: &str = "\
Examples:
  sessions list
      main sessions, newest first
  sessions --home testdata/home list
      the sample home shipped with the source
  sessions list --project webapp --since 7d
      one project, the last week
  sessions show 6f0d3c52
      one session: header and timeline
  sessions export 6f0d3c52 -f html -o s.html
      a transcript to read in a browser
  sessions compactions --agent claude
      every context compression Claude made
  sessions replay-compress --all -A gemini
      what Gemini's compression would save

Environment:
  CLAUDE_PROJECTS_DIR   Claude Code's projects/ folder
  CLAUDE_CONFIG_DIR     Claude Code config dirs, comma-separated
                        (else ~/.claude and $XDG_CONFIG_HOME/claude)
  XDG_CONFIG_HOME       the folder holding claude/ (else ~/.config)
  CODEX_SESSIONS_DIR    Codex's sessions/ folder
  CODEX_HOME            Codex's home (else ~/.codex)
  GEMINI_SESSIONS_DIR   Gemini's data dir (.gemini)
  GEMINI_CLI_HOME       the folder holding .gemini (else ~)
  COLUMNS               the width tables and stderr notes fit (else the
                        terminal's; piped output is not cut)
  TZ                    the local time zone of human output (--utc shows
                        UTC instead)
  --home, --claude-dir, --codex-dir and --gemini-dir override these.
  Nothing is ever written into the stores, nor into the default
  folders, nor over ~/.claude.json.

Exit status:
  0  success
  1  nothing matched, an ambiguous id, an unreadable session file, no
     store found, or an output error (a write refused or failed)
  2  usage error (a bad flag, value or path)
  3  --strict and something could not be read";

/// Parse the command line, exiting on errors (with a hint where one helps).
pub fn parse() -> Cli {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(mut e) => {
            let usage = e
                .get(ContextKind::Usage)
                .map(|u| u.to_string())
                .unwrap_or_default();
            let missing_targets = e.kind() == ErrorKind::MissingRequiredArgument
                && matches!(e.get(ContextKind::InvalidArg), Some(ContextValue::Strings(v))
                    if v.iter().any(|a| a.contains("ID|PREFIX|PATH")));
            let tip = if !missing_targets {
                None
            // The subcommand in the usage line, whatever the binary is called.
            } else if usage.contains(" replay-compress ") {
                Some(
                    "name sessions (ids, prefixes, files) or replay all the filters select:\n       `sessions replay-compress --all -A gemini`",
                )
            } else if usage.contains(" export ") {
                Some(
                    "name sessions (ids, prefixes, files) or export all the filters select:\n       `sessions export --all -o out/`",
                )
            } else {
                None
            };
            if let Some(tip) = tip {
                e.insert(
                    ContextKind::Suggested,
                    ContextValue::StyledStrs(vec![tip.into()]),
                );
            }
            e.exit()
        }
    }
}

/// Coding-agent session forensics for Gemini CLI, Claude Code and Codex CLI.
///
/// Reads every session store of the three agents (every format era), and lists, shows and
/// measures sessions from one unified model. Read-only: it never writes into an agent's store.
#[derive(Debug, Parser)]
#[command(
    name = "sessions",
    version = concat!(env!("CARGO_PKG_VERSION"), " (prices: ", snapshot_label!(), ")"),
    after_long_help = AFTER_HELP,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Treat DIR as the home directory of all three agents (a backup, another machine's copy,
    /// or the sample home in testdata/home). The agents' environment variables are ignored.
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR,
    /// $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_dir: Option<PathBuf>,
    /// Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]
    #[arg(long, global = true, value_name = "DIR")]
    pub codex_dir: Option<PathBuf>,
    /// Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini,
    /// ~/.gemini]
    #[arg(long, global = true, value_name = "DIR")]
    pub gemini_dir: Option<PathBuf>,
    /// A folder whose path (and subfolders' paths) may be a Gemini project: used to resolve
    /// sessions that record only a projectHash. Repeatable.
    #[arg(long, global = true, value_name = "DIR")]
    pub project_root: Vec<PathBuf>,
    /// Exit with status 3 if any file or line could not be read.
    #[arg(long, global = true)]
    pub strict: bool,
    /// List every warning (skipped lines, duplicates, partial last lines), not just a summary.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Print no warnings or notes on stderr (errors still print, and --strict still fails
    /// with its one-line error).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Never show a progress bar (it is only shown when stderr is a terminal anyway).
    #[arg(long, global = true)]
    pub no_progress: bool,
    /// Tables keep every column at full width instead of fitting the terminal (piped output is
    /// never cut).
    #[arg(long, global = true)]
    pub wide: bool,
    /// Show times in UTC instead of local time (human output; JSON is always UTC).
    #[arg(long, global = true)]
    pub utc: bool,
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        help = concat!(
            "Model prices in LiteLLM's JSON shape, in front of the embedded table (",
            snapshot_label!(),
            "): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing \
             changes only the prices it gives: a model's other prices stay the embedded ones."
        )
    )]
    pub prices: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List sessions, newest first, one line each.
    List(ListArgs),
    /// Show one session: a header and a turn-by-turn timeline.
    Show(ShowArgs),
    /// List projects with their agents, sessions and tokens.
    Projects(ProjectsArgs),
    /// The compaction ledger: every context compression the agents performed.
    Compactions(CompactionsArgs),
    /// Replay a context-management algorithm over real history: what would it have saved?
    ReplayCompress(ReplayArgs),
    /// Export sessions as Markdown, self-contained HTML, JSON or JSONL transcripts.
    Export(ExportArgs),
    /// Tokens and cost by day, week, month, session, project or 5-hour billing block.
    Usage(UsageArgs),
}

/// Which sessions to read: named paths and filters shared by several subcommands.
#[derive(Debug, Args, Clone, Default)]
pub struct SelectArgs {
    /// Session files or folders to read instead of the agents' stores (format detected).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub filter: FilterArgs,
}

impl SelectArgs {
    /// Every session of every kind in the stores: what id look-ups search.
    pub fn every_kind() -> SelectArgs {
        SelectArgs {
            paths: Vec::new(),
            filter: FilterArgs {
                kind: KindFilter::All,
                ..Default::default()
            },
        }
    }
}

/// The session filters of `list` (and of `--all` in `export` and `replay-compress`).
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    /// Only these agents (repeatable or comma-separated).
    #[arg(short, long, value_enum, value_delimiter = ',')]
    pub agent: Vec<Agent>,
    /// Only projects whose path contains this text (case-insensitive) or matches this glob.
    #[arg(short, long, value_name = "PATTERN")]
    pub project: Option<String>,
    /// Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local
    /// day, UTC with --utc), RFC 3339.
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Only sessions started at or before this time (a date means up to the end of that day).
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true)]
    pub until: Option<String>,
    /// Main sessions, sub-agent sessions, or both.
    #[arg(long, value_enum, default_value_t = KindFilter::Main)]
    pub kind: KindFilter,
}

impl FilterArgs {
    /// Whether any filter differs from its default.
    pub fn is_set(&self) -> bool {
        !self.agent.is_empty()
            || self.project.is_some()
            || self.since.is_some()
            || self.until.is_some()
            || self.kind != KindFilter::Main
    }

    /// Commands that take session ids apply the filters only with `--all`.
    pub fn require_all(&self, all: bool) -> Result<(), String> {
        if self.is_set() && !all {
            Err(
                "--agent, --project, --since, --until and --kind select sessions with --all; \
                 they cannot narrow sessions named by id or path (with --all, named files and \
                 folders are read instead of the stores, and filtered)"
                    .into(),
            )
        } else {
            Ok(())
        }
    }

    pub fn select(&self, paths: Vec<PathBuf>) -> SelectArgs {
        SelectArgs {
            paths,
            filter: self.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
    Ndjson,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortKey {
    Started,
    Updated,
    Duration,
    Turns,
    Tools,
    Tokens,
    Compactions,
    Project,
    Agent,
}

#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  sessions list
      every main session, newest first
  sessions list --agent codex --since 7d
      Codex sessions active in the last week
  sessions list --project webapp --sort tokens -n 10
      the ten biggest sessions of one project
  sessions list --kind all ~/backup/.claude
      a backup folder, sub-agents included
  sessions list --wide | less -S
      every column, scroll sideways
  sessions list -f ndjson | jq -r 'select(.tokens.total > 1e6) | .path'
      the files of sessions past a million tokens
  sessions list --fallback-home testdata/home
      the sample home when your stores are empty

Tables fit the terminal: columns are dropped or shortened as it narrows
(--wide keeps them all); piped output is never cut. The footer on stderr
counts the sessions and their tokens.")]
pub struct ListArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Show at most N sessions (after sorting).
    #[arg(short = 'n', long, value_name = "N", value_parser = at_least::<1>)]
    pub limit: Option<usize>,
    /// Sort key: times and numbers sort largest/newest first, names A to Z.
    #[arg(short, long, value_enum, default_value_t = SortKey::Started)]
    pub sort: SortKey,
    /// Reverse the sort order.
    #[arg(short, long)]
    pub reverse: bool,
    /// Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md).
    #[arg(short, long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
    /// When the stores hold no session at all (a fresh machine), list the sessions of DIR, read
    /// as --home, instead, and say so on stderr. DIR must be a readable folder (exit 2 if not),
    /// whether or not it is needed.
    #[arg(long, value_name = "DIR")]
    pub fallback_home: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  sessions show 6f0d3c52
      any unique prefix of an id that `list` shows
  sessions show ~/.codex/sessions/2026/03/14/rollout-<time>-<uuid>.jsonl
      a session file, by its path
  sessions show 6f0d3c52 --utc
      times in UTC
  sessions show 6f0d3c52 --format json | jq '.messages | length'
      how many messages it holds

The timeline has one line per message (user, assistant, context, tool,
system), each tool call with ✓ (succeeded), ✗ (failed) or … (no result
recorded), per-request tokens, and a divider at each compaction.")]
pub struct ShowArgs {
    /// A session id, a unique id prefix, or a session file path.
    #[arg(value_name = "ID|PREFIX|PATH")]
    pub target: OsString,
    /// `text` (header and timeline) or `json` (the whole unified session).
    #[arg(short, long, value_enum, default_value_t = ShowFormat::Text)]
    pub format: ShowFormat,
    /// Columns of each timeline line [default: the terminal's width; 160 characters of each
    /// message when piped].
    #[arg(long, value_name = "N", value_parser = at_least::<40>)]
    pub width: Option<usize>,
}

#[derive(Debug, Args)]
#[command(
    mut_arg("kind", |a| a.default_value("all")),
    after_long_help = "\
Examples:
  sessions projects
      every project, most recently active first
  sessions projects --agent gemini --project-root ~/code
      resolve Gemini project hashes under ~/code
  sessions projects --since 30d --format csv > projects.csv
      the last month's projects as a spreadsheet

A project's tokens include its sub-agent sessions (--kind all is the
default here; SUB counts them). Gemini records only a hash of the project
path: RESOLVED BY says how the path was found (cwd, project_root,
projects_json, hash_match, folder_match), and `unresolved <hash>` marks
the rest."
)]
pub struct ProjectsArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LedgerFormat {
    Table,
    Json,
    Ndjson,
}

#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  sessions compactions
      every compaction, oldest first
  sessions compactions --agent claude --since 30d
      Claude's compactions of the last month
  sessions compactions --stats
      counts and median sizes per agent
  sessions compactions --format ndjson | jq -r .summary
      the summaries the agents wrote

BEFORE and AFTER are the context sizes in tokens: a bare number was
recorded by the agent, ~ marks an estimate, and a percentage is what
Gemini's notice said.")]
pub struct CompactionsArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print the observed sizes per agent (counts and medians; with --format json|ndjson also
    /// every summary's size) instead of the events: what `replay-compress --summary-tokens
    /// auto` calibrates from.
    #[arg(long)]
    pub stats: bool,
    /// Output format (json/ndjson: the documented contract, docs/json.md).
    #[arg(short, long, value_enum, default_value_t = LedgerFormat::Table)]
    pub format: LedgerFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReplayFormat {
    Table,
    Json,
    Ndjson,
}

#[derive(Debug, Args)]
#[command(
    // The generated usage line is 85 columns; one form per way of calling it fits 80.
    override_usage = "\
sessions replay-compress -A <ALGORITHM> [OPTIONS] <ID|PREFIX|PATH>...
       sessions replay-compress -A <ALGORITHM> [OPTIONS] --all [PATH]...
       sessions replay-compress -A <ALGORITHM> --list-settings",
    after_long_help = "\
Examples:
  sessions replay-compress --all -A gemini
      every session, Gemini's defaults
  sessions replay-compress 6f0d3c52 -A claude --timeline --plot r.svg
      one session, request by request, and a plot of it
  sessions replay-compress --all -A gemini --sweep threshold=0.2,0.5,0.7
      three thresholds side by side
  sessions replay-compress --all --agent claude -A openclaw-prune
      OpenClaw's pruning over every Claude session
  sessions replay-compress --all --agent codex -A codex --validate
      against Codex's real compactions
  sessions replay-compress -A pi --list-settings
      every key, default and range"
)]
pub struct ReplayArgs {
    /// Sessions to replay: ids, unique id prefixes, session files or folders (an id held by
    /// several files whose histories diverge replays each). With --all: files or folders to
    /// read instead of the agents' stores.
    #[arg(value_name = "ID|PREFIX|PATH", required_unless_present_any = ["all", "list_settings"])]
    pub targets: Vec<OsString>,
    /// Print the algorithm's settings (keys, defaults, allowed ranges) and exit; with
    /// --format json|ndjson, as `replay_setting` records. Takes no sessions, --all, filters or
    /// replay options.
    #[arg(long)]
    pub list_settings: bool,
    /// Replay every session the filters select (like `list`).
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// The algorithm to replay.
    #[arg(short = 'A', long, value_enum)]
    pub algorithm: Algorithm,
    /// Override a setting of the algorithm: KEY=VALUE (repeatable). Unknown keys and values out
    /// of range are errors that list what is allowed.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::replay::settings::parse_pair)]
    pub set: Vec<(String, String)>,
    /// Replay a grid of settings: KEY=V1,V2,… (repeatable; every combination is one row). A
    /// text setting's values, which hold commas themselves, are separated by `;`
    /// (tools_allow='Read*,Bash;Grep'). A key may not be given with --set too.
    #[arg(long, value_name = "KEY=V1,V2,…", value_parser = crate::replay::settings::parse_pair)]
    pub sweep: Vec<(String, String)>,
    /// Context window in tokens, instead of the one of the model recorded in the session.
    #[arg(long, value_name = "N")]
    pub context_window: Option<u64>,
    /// Size of each summary in tokens, or `auto`: the median of the real summaries of the
    /// algorithm's agent (any agent's for pi and openclaw-prune) in the sessions replayed, else
    /// the algorithm's documented default. N is at most what the agent's summary call can
    /// write: claude 32000, codex 128000, gemini 65536; a median above that is held to it,
    /// with a note. A size (N or the median) above what the Claude Code versions that recorded
    /// the sessions could write (20000 from 2.1.21) is replayed as it is, with a note.
    #[arg(long, value_name = "N|auto", default_value = "auto")]
    pub summary_tokens: String,
    /// Include the per-request series (full, recorded, what-if). Not with --sweep: one
    /// replay's series at a time (pick its setting with --set).
    #[arg(long, conflicts_with = "sweep")]
    pub timeline: bool,
    /// Compare the replay with the compactions the agent really performed (when replaying the
    /// session's own agent's algorithm). Not with --sweep: it judges one setting (--set).
    #[arg(long, conflicts_with = "sweep")]
    pub validate: bool,
    /// Draw full / recorded / what-if context over requests into an SVG file (one file per
    /// session, suffixed with its id, when several are replayed). Not with --sweep.
    #[arg(long, value_name = "FILE.svg", conflicts_with = "sweep")]
    pub plot: Option<PathBuf>,
    /// Overwrite existing plot files.
    #[arg(long, requires = "plot")]
    pub force: bool,
    /// Output format (json/ndjson: the documented contract, docs/json.md).
    #[arg(short, long, value_enum, default_value_t = ReplayFormat::Table)]
    pub format: ReplayFormat,
}

#[derive(Debug, Args, Clone)]
#[command(after_long_help = "\
Examples:
  sessions export 6f0d3c52
      Markdown on stdout
  sessions export 6f0d3c52 --format html -o s.html
      one self-contained HTML file
  sessions export --all --since 7d --format html -o out/
      the last week, one file per session and an index
  sessions export --all --redact -f jsonl | jq -c 'select(.role==\"user\")'
      every prompt, secrets replaced
  sessions export 6f0d3c52 --literal
      message text exactly as typed, not rendered

Replies and prompts are Markdown and are rendered as such (headings,
lists, tables, links, code); raw HTML and character references (&amp;)
are shown as written, links keep only http(s) and mailto targets and show
them, and images are never fetched. Nothing is ever written inside an
agent's store or folder, over a file being read (a session file, the
--prices file) or over any file that holds an agent's session (even with
--force), and nothing but a regular file is ever replaced (with --force).
Symbolic links and `..` are resolved before deciding.")]
pub struct ExportArgs {
    /// Session ids, unique id prefixes or session files. With --all: files or folders to read
    /// instead of the agents' stores.
    #[arg(value_name = "ID|PREFIX|PATH", required_unless_present = "all")]
    pub targets: Vec<OsString>,
    /// Export every session the filters select (like `list`).
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = crate::export::ExportFormat::Md)]
    pub format: crate::export::ExportFormat,
    /// Write to FILE (one session) or into DIR (one file per session, named
    /// <agent>-<YYYY-MM-DD>-<short id>.<ext>, `undated` for a session with no time, `-2`… on a
    /// collision, plus an index). Default, and `-o -`: stdout for one session, or for any
    /// number as JSONL.
    #[arg(short, long, value_name = "FILE|DIR")]
    pub output: Option<PathBuf>,
    /// Overwrite existing files.
    #[arg(long)]
    pub force: bool,
    /// Lines of each tool output (and long tool argument) kept in md/html; 0 keeps all.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_output_lines: usize,
    /// Images as a placeholder (media type, size), or extracted and linked (md/html with -o):
    /// `-o s.md` writes them into `s.files/`.
    #[arg(long, value_enum, default_value_t = crate::export::ImageMode::Placeholder)]
    pub images: crate::export::ImageMode,
    /// Show message text exactly as typed (every Markdown character escaped) instead of
    /// rendering it as Markdown.
    #[arg(long)]
    pub literal: bool,
    /// Leave out thinking.
    #[arg(long)]
    pub no_thinking: bool,
    /// Leave out tool calls and their results.
    #[arg(long)]
    pub no_tools: bool,
    /// Replace secrets (API keys, tokens, private keys, passwords, …) with [REDACTED:<kind>]
    /// and report the counts on stderr.
    #[arg(long)]
    pub redact: bool,
}

/// `usage`'s first positional: a report name, or (as in every other command) a session file
/// or folder, so that `sessions usage ~/backup` reads the backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportArg {
    Report(ReportKind),
    Path(PathBuf),
}

#[derive(Debug, Clone, Copy)]
pub struct ReportArgParser;

impl clap::builder::TypedValueParser for ReportArgParser {
    type Value = ReportArg;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ReportArg, clap::Error> {
        if let Some(k) = value
            .to_str()
            .and_then(|s| ReportKind::from_str(s, true).ok())
        {
            return Ok(ReportArg::Report(k));
        }
        let path = PathBuf::from(value);
        if path.exists() {
            return Ok(ReportArg::Path(path));
        }
        let names: Vec<&str> = ReportKind::value_variants()
            .iter()
            .map(|k| k.as_str())
            .collect();
        Err(clap::Error::raw(
            clap::error::ErrorKind::InvalidValue,
            format!(
                "{:?} is neither a report ({}) nor an existing file or folder\n",
                value.to_string_lossy(),
                names.join(", ")
            ),
        )
        .with_cmd(cmd))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            ReportKind::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

impl UsageArgs {
    /// The report asked for (daily by default).
    pub fn report(&self) -> ReportKind {
        match &self.report {
            Some(ReportArg::Report(k)) => *k,
            _ => ReportKind::Daily,
        }
    }

    /// The selection, with a path given in the REPORT position first.
    pub fn selection(&self) -> SelectArgs {
        let mut sel = self.select.clone();
        if let Some(ReportArg::Path(p)) = &self.report {
            sel.paths.insert(0, p.clone());
        }
        sel
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Order {
    /// Oldest first.
    #[default]
    Asc,
    /// Newest first.
    Desc,
}

#[derive(Debug, Args)]
#[command(
    mut_arg("kind", |a| a.default_value("all")),
    mut_arg("since", |a| a.help(
        "Only requests made at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a day of \
         --timezone), RFC 3339. `blocks`: the whole blocks holding such a request",
    )),
    mut_arg("until", |a| a.help(
        "Only requests made at or before this time (a date means up to the end of that day in \
         --timezone). `blocks`: the whole blocks holding such a request",
    )),
    after_long_help = concat!("\
Examples:
  sessions usage
      tokens and cost per day (local time)
  sessions usage monthly --breakdown
      per month, one sub-row per model
  sessions usage weekly --start-of-week sunday --timezone America/New_York
      weeks from Sunday, in New York time
  sessions usage session --agent codex --since 30d
      each Codex session of the last month
  sessions usage blocks --active
      the current 5-hour block: burn rate, projection
  sessions usage daily ~/backup/.claude
      files or folders instead of the stores
  sessions usage --format json | jq '.totals.cost_usd'
      the total cost, for a script

Each request counts once, on the day it was made; sub-agent sessions are
included (--kind all is the default here). Costs use the embedded price
table (", snapshot_label!(), "). --prices FILE adds models or
overrides their prices, field by field (what a listing leaves out keeps
its embedded price). A model without a price keeps its tokens, and its
cost is unknown (null).")
)]
pub struct UsageArgs {
    /// What a row is: a calendar day, week or month, a session, a project, or a 5-hour
    /// billing block [default: daily]. A file or folder here is the first PATH.
    #[arg(value_name = "REPORT", value_parser = ReportArgParser)]
    pub report: Option<ReportArg>,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Add a sub-row per model under each row.
    #[arg(short, long)]
    pub breakdown: bool,
    /// Time zone of day, week and month boundaries: an IANA name (Europe/Paris), UTC, a POSIX
    /// TZ rule, or `local` (UTC with --utc). Also the zone of plain dates in --since/--until.
    #[arg(short = 'z', long, value_name = "TZ", default_value = "local")]
    pub timezone: String,
    /// First day of a week for `weekly` [default: monday].
    #[arg(long, value_enum, value_name = "DAY")]
    pub start_of_week: Option<WeekStart>,
    /// Row order: oldest first or newest first (sessions and projects: by last activity).
    #[arg(long, value_enum, default_value_t = Order::Asc)]
    pub order: Order,
    /// `blocks`: only the block in progress, with its burn rate and projection.
    #[arg(long)]
    pub active: bool,
    /// Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md).
    #[arg(short, long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

/// A count of at least `MIN` (`--limit 0` would list nothing, `--width 10` fit nothing).
fn at_least<const MIN: usize>(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("expected a whole number, got {s:?}"))?;
    if n < MIN {
        return Err(format!("must be at least {MIN}"));
    }
    Ok(n)
}
