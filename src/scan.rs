//! The scan pipeline shared by every command: discover files, skip those the time window rules
//! out by mtime, parse the rest in parallel (then the skipped files the cross-file rules need),
//! reduce each session to a [`SessionSummary`] (so memory is bounded by the files in flight,
//! not the store), then apply the cross-file rules: Claude leaf titles, project resolution,
//! Gemini duplicate copies, and filters.

use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::diag::{Report, Warning};
use crate::discover::{Discovery, Stores, start_from_name};
use crate::filter::Filter;
use crate::model::{
    Agent, Compaction, Counts, ProjectSource, RequestUsage, Session, SessionKind, SubagentLink,
    Usage,
};
use crate::parse::{self, Detail, SourceFile, preview};

mod copies;
mod count;
mod leaf_titles;
mod projects;

pub use copies::drop_claude_copies;
use copies::drop_codex_copies;
pub use count::{aggregate_usage, count_once, unique_requests, unique_requests_of};
pub use projects::LocalProjects;
use projects::resolve_projects;

/// Longest title kept, in characters (first prompts can be pages long).
pub const TITLE_MAX: usize = 120;

/// The title a session without an explicit one gets: its first prompt, cut to [`TITLE_MAX`].
pub fn prompt_title(s: &Session) -> Option<String> {
    s.first_prompt().map(|t| preview(&t, TITLE_MAX))
}

#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    pub stores: Stores,
    /// Files or folders named on the command line. When non-empty, only these are scanned.
    pub paths: Vec<PathBuf>,
    /// `--project-root` folders: extra candidates for Gemini hash matching.
    pub project_roots: Vec<PathBuf>,
    pub filter: Filter,
    /// The sessions the command reports on, when it reads more than those: `filter` then says
    /// which sessions are read and kept (`usage blocks` cuts blocks from every session of an
    /// agent) and this which are reported (here: whose undated requests a window leaves out).
    /// `None`: the ones `filter` keeps.
    pub selection: Option<Filter>,
    /// Show a progress bar (only honoured when stderr is a terminal).
    pub progress: bool,
}

/// Everything `list`, `projects` and the lookups of `show`/`export` need about a session,
/// without its messages.
#[derive(Debug, Clone)]
pub struct SessionSummary {
    pub source: SourceFile,
    pub agent: Agent,
    pub id: String,
    pub kind: SessionKind,
    pub parent_id: Option<String>,
    pub project: Option<String>,
    pub project_source: ProjectSource,
    pub project_hash: Option<String>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    pub models: Vec<String>,
    pub agent_version: Option<String>,
    pub git_branch: Option<String>,
    pub counts: Counts,
    pub usage: Usage,
    pub compactions: usize,
    /// The compaction events themselves (few per session), for the ledger.
    pub compaction_events: Vec<Compaction>,
    pub subagents: Vec<SubagentLink>,
    pub warnings: Vec<Warning>,
    /// Every request of the file, in file order, de-duplicated within the file, then the
    /// copies of sub-agent responses it holds ([`RequestUsage::is_copy`]), which are no part
    /// of its own figures. Aggregates over several sessions go through [`unique_requests`].
    pub requests: Vec<RequestUsage>,
    /// Number of messages (all roles), to tell startup stubs from real sessions.
    pub message_count: usize,
    record_uuids: Vec<u64>,
    /// Gemini only: the file's message ids, hashed, for the copy rule
    /// ([`crate::gemini_groups`]), which empties them.
    pub(crate) message_ids: Vec<u64>,
    /// Gemini only: each request's message id, hashed, in the order of `requests`: the key
    /// of a response that diverged copies both hold.
    pub(crate) request_messages: Vec<Option<u64>>,
    leaf_titles: Vec<(String, String)>,
    title_is_explicit: bool,
}

impl SessionSummary {
    /// The file's own requests: [`SessionSummary::requests`] without the `agent_progress`
    /// copies of sub-agent responses that follow them.
    pub fn own_requests(&self) -> &[RequestUsage] {
        &self.requests[..self.requests.partition_point(|r| !r.is_copy())]
    }

    /// The cost of what the file recorded itself: its own requests at their own usage (a
    /// `list` row's figure, as its tokens are).
    pub fn own_cost(&self) -> crate::pricing::Cost {
        crate::pricing::cost_of(
            self.own_requests()
                .iter()
                .map(|r| (r.model.as_deref(), r.own_usage())),
        )
    }

    /// The summary of a parsed session. The session stays usable for a command that also
    /// needs the full model ([`scan_each`]), without a second parse; only the scan's own
    /// bookkeeping (record ids and leaf titles, for the cross-file titles) moves out of it.
    pub fn from_session(session: &mut Session, source: SourceFile) -> Self {
        let counts = session.counts();
        let usage = session.usage();
        let gemini = session.agent == Agent::Gemini;
        let requests = session
            .requests
            .iter()
            .chain(&session.copied_requests)
            .map(RequestUsage::of)
            .collect();
        // Gemini only, for the copy rule ([`crate::gemini_groups`]): the file's message ids
        // and each request's, hashed.
        let (message_ids, request_messages) = if gemini {
            let id_of = |i: Option<usize>| {
                let m = session.messages.get(i?)?;
                m.id.as_deref().map(parse::hash64)
            };
            (
                session
                    .messages
                    .iter()
                    .filter_map(|m| m.id.as_deref().map(parse::hash64))
                    .collect(),
                session
                    .requests
                    .iter()
                    .chain(&session.copied_requests)
                    .map(|r| id_of(r.message_index))
                    .collect(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let title = session
            .title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .map(|t| preview(&t, TITLE_MAX))
            .or_else(|| prompt_title(session));
        SessionSummary {
            agent: session.agent,
            id: session.id.clone(),
            kind: session.kind,
            parent_id: session.parent_id.clone(),
            project: session.project.clone(),
            project_source: session.project_source,
            project_hash: session.project_hash.clone(),
            cwd: session.cwd.clone(),
            title,
            started_at: session.started_at,
            updated_at: session.updated_at,
            models: session.models.clone(),
            agent_version: session.agent_version.clone(),
            git_branch: session.git_branch.clone(),
            counts,
            usage,
            compactions: session.compactions.len(),
            compaction_events: session.compactions.clone(),
            subagents: session.subagents.clone(),
            warnings: session.warnings.clone(),
            requests,
            message_count: session.messages.len(),
            record_uuids: std::mem::take(&mut session.record_uuids),
            message_ids,
            request_messages,
            leaf_titles: std::mem::take(&mut session.leaf_titles),
            title_is_explicit: session.title_is_explicit,
            source,
        }
    }

    pub fn path(&self) -> &Path {
        &self.source.path
    }

    /// Give `s`, parsed again from this session's file, what the scan settled across files:
    /// its project and, when one was found, its title.
    pub fn settle(&self, s: &mut Session) {
        s.project = self.project.clone();
        s.project_source = self.project_source;
        if self.title.is_some() {
            s.title = self.title.clone();
        }
    }

    pub fn duration(&self) -> Option<Duration> {
        Some(self.updated_at? - self.started_at?)
    }
}

#[derive(Debug, Default)]
pub struct ScanResult {
    pub sessions: Vec<SessionSummary>,
    pub report: Report,
    /// Files that were not parsed because their mtime or name ruled them out.
    pub skipped_by_time: usize,
    /// Files named on the command line that are not sessions of any agent.
    pub unrecognised: Vec<PathBuf>,
    /// Counted requests of the sessions that every filter but the time window selects and that
    /// have no time at all: a window leaves them out, and a report says so.
    pub undated_outside_window: usize,
    /// Whether any store (or named path) existed at all.
    pub stores_found: bool,
    /// What project resolution could not read (a Gemini registry, a `.project_root` marker),
    /// also in `report`: a command that reports one session's warnings only still owes these
    /// to a session they left unresolved.
    pub project_warnings: Vec<Warning>,
    /// Ids of the sessions the filters left out, those of files skipped unread as their names
    /// give them (a Gemini name holds the id's first 8 characters): `show` searches every
    /// session, so a short id in a table must tell the shown ones from these too.
    pub hidden_ids: Vec<String>,
}

impl ScanResult {
    /// Short ids for the sessions found, each one `show` takes back whatever the filters hid.
    pub fn short_ids(&self) -> crate::render::ShortIds {
        crate::render::ShortIds::new(
            self.sessions
                .iter()
                .map(|s| s.id.as_str())
                .chain(self.hidden_ids.iter().map(String::as_str)),
        )
    }
}

/// Run the whole pipeline.
pub fn scan(opts: &ScanOptions) -> ScanResult {
    run(opts, discover(opts), |files, bar| {
        parse_all(files, bar, &summary_view, &|_, _, _| None::<()>)
    })
    .0
}

/// One note per store folder holding files named as no session of its agent is: how many, why,
/// and the first few.
fn misnamed_notes(files: &[crate::discover::Misnamed]) -> Vec<String> {
    const SHOWN: usize = 3;
    let mut groups: Vec<(Agent, &Path, Vec<&Path>)> = Vec::new();
    for f in files {
        match groups
            .iter_mut()
            .find(|(a, r, _)| *a == f.agent && *r == f.root.as_path())
        {
            Some(g) => g.2.push(&f.path),
            None => groups.push((f.agent, &f.root, vec![&f.path])),
        }
    }
    groups
        .into_iter()
        .map(|(agent, root, paths)| {
            let why = match agent {
                Agent::Claude => {
                    "Claude Code writes its transcripts in a project's folder, never directly \
                     in projects/"
                }
                Agent::Codex => "Codex CLI names its sessions rollout-*, and only those are read",
                Agent::Gemini => {
                    "Gemini CLI names the sessions in a chats folder session-*, and only those \
                     are read"
                }
            };
            let mut shown: Vec<String> = paths
                .iter()
                .take(SHOWN)
                .map(|p| crate::output::safe_path(p.strip_prefix(root).unwrap_or(p)))
                .collect();
            if paths.len() > SHOWN {
                shown.push(format!("{} more", paths.len() - SHOWN));
            }
            format!(
                "{} in {} not read ({}): {why}; name a file on the command line to read it",
                crate::render::plural(paths.len(), "file"),
                crate::output::safe_path(root),
                shown.join(", ")
            )
        })
        .collect()
}

/// The files a scan with `opts` reads: the walk of its stores (or of its named paths).
pub fn discover(opts: &ScanOptions) -> Discovery {
    let agents: Vec<Agent> = opts.filter.agents();
    if opts.paths.is_empty() {
        Discovery::walk(&opts.stores, &agents)
    } else {
        Discovery::walk_paths(&opts.paths, &agents)
    }
}

/// How [`scan`] reads a file: its summary view, nothing more.
fn summary_view(f: &SourceFile) -> Result<(Session, ()), Warning> {
    parse::parse_file_with(f, Detail::Summary).map(|s| (s, ()))
}

/// The scan of the files `discovery` found ([`discover`]), reading each file with `read` (its
/// session, at a detail that holds at least the summary, and whatever else `read` takes from
/// the same read) and handing that to `visit` while the worker still holds it, so that a
/// command needing more than the summary (an export) reads each file once. `visit` runs before
/// the cross-file rules and the filters: it sees the file's own project and title, and may see
/// sessions the filters later drop. Its results are keyed by file path.
///
/// A session's file and the files its layout puts under it (a Claude sub-agent's, see
/// [`SourceFile::layout_parent`]) are read in one task, the sub-agents' first, and their
/// `visit`s share one `G`: a command that embeds sub-agents into their parent can keep them
/// there until the parent comes. What is in flight is then a group of files, not one file:
/// the sub-agents past `group_bytes` of files are read in tasks of their own, so that a group
/// neither holds nor reads one after the other more than that.
pub fn scan_each<X, G: Default, T: Send>(
    opts: &ScanOptions,
    discovery: Discovery,
    group_bytes: u64,
    read: impl Fn(&SourceFile) -> Result<(Session, X), Warning> + Sync,
    visit: impl Fn(&mut G, &SessionSummary, Session, X) -> Option<T> + Sync,
) -> (ScanResult, HashMap<PathBuf, T>) {
    run(opts, discovery, |files, bar| {
        parse_groups(layout_groups(files, group_bytes), bar, &read, &visit)
    })
}

/// `files` in groups: each session's file after the files whose
/// [`SourceFile::layout_parent`] it is, as many of those as fit in `max_bytes` (in path order,
/// the order the cross-file rules see them in); each of the others in a group of its own.
fn layout_groups(files: Vec<SourceFile>, max_bytes: u64) -> Vec<Vec<SourceFile>> {
    let mut at: HashMap<PathBuf, usize> = HashMap::new();
    // Each file with whether it is a sub-agent read with its parent.
    let mut groups: Vec<Vec<(bool, SourceFile)>> = Vec::new();
    for f in files {
        let parent = f.layout_parent();
        let child = parent.is_some();
        let key = parent.unwrap_or_else(|| f.path.clone());
        match at.get(&key) {
            Some(&i) => groups[i].push((child, f)),
            None => {
                at.insert(key, groups.len());
                groups.push(vec![(child, f)]);
            }
        }
    }
    let mut apart = Vec::new();
    let mut grouped = Vec::with_capacity(groups.len());
    for mut g in groups {
        g.sort_by(|(a, fa), (b, fb)| b.cmp(a).then_with(|| fa.path.cmp(&fb.path)));
        let mut bytes = 0u64;
        let mut kept = Vec::with_capacity(g.len());
        for (child, f) in g {
            if child {
                bytes = bytes.saturating_add(f.size);
                if bytes > max_bytes {
                    apart.push(vec![f]);
                    continue;
                }
            }
            kept.push(f);
        }
        if !kept.is_empty() {
            grouped.push(kept);
        }
    }
    grouped.extend(apart);
    grouped
}

/// [`scan_each`] in two stages: first the files `first` selects, each visited with `context`,
/// then the others, each visited with what `between` makes of the first stage's sessions (as
/// their own files describe them: before the cross-file rules and the filters). A replay
/// learns the summary size from its algorithm's own agent's files this way, before it replays
/// the others. The cross-file rules and the filters then run over both stages at once, as
/// they do in [`scan_each`].
pub fn scan_each_staged<X, C: Sync, T: Send>(
    opts: &ScanOptions,
    discovery: Discovery,
    first: impl Fn(&SourceFile) -> bool,
    read: impl Fn(&SourceFile) -> Result<(Session, X), Warning> + Sync,
    context: C,
    between: impl FnOnce(&[&SessionSummary]) -> C,
    visit: impl Fn(&C, &SessionSummary, Session, X) -> Option<T> + Sync,
) -> (ScanResult, HashMap<PathBuf, T>) {
    run(opts, discovery, |files, bar| {
        let (one, two): (Vec<SourceFile>, Vec<SourceFile>) = files.into_iter().partition(first);
        let visit_one = |s: &SessionSummary, session, x| visit(&context, s, session, x);
        let mut parsed = parse_all(one, bar, &read, &visit_one);
        let seen: Vec<&SessionSummary> =
            parsed.iter().filter_map(|(r, _)| r.as_ref().ok()).collect();
        let context = between(&seen);
        let visit_two = |s: &SessionSummary, session, x| visit(&context, s, session, x);
        parsed.extend(parse_all(two, bar, &read, &visit_two));
        parsed
    })
}

fn run<T: Send>(
    opts: &ScanOptions,
    discovery: Discovery,
    parse: impl FnOnce(Vec<SourceFile>, Option<&ProgressBar>) -> Vec<Parsed<T>>,
) -> (ScanResult, HashMap<PathBuf, T>) {
    let mut result = ScanResult {
        stores_found: discovery.any_store || !opts.paths.is_empty(),
        unrecognised: discovery.unrecognised,
        ..Default::default()
    };
    let gemini_dirs: Vec<PathBuf> = opts
        .stores
        .gemini
        .iter()
        .chain(&discovery.gemini_dirs)
        .cloned()
        .collect();
    result.report.extend(discovery.warnings);
    result.report.verbose_notes = misnamed_notes(&discovery.misnamed);

    let (files, skipped): (Vec<SourceFile>, Vec<SourceFile>) = discovery
        .files
        .into_iter()
        .partition(|f| time_may_match(f, &opts.filter));

    let bytes = files.iter().map(|f| f.size).sum();
    let bar = bytes_progress(opts.progress, "reading sessions", bytes, files.len());
    let mut parsed = parse(files, bar.as_ref());
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    // The cross-file rules must see every copy of what the files read hold, or a skipped
    // file's share goes to the copies read: the skipped files that may hold one are read too,
    // for those rules (and the filters) only.
    let (needed, skipped) = needed_by_cross_file_rules(&parsed, skipped, &opts.filter);
    result.skipped_by_time = skipped.len();
    result.hidden_ids = skipped
        .iter()
        .filter_map(|f| match f.agent {
            Agent::Claude => Some(f.path.file_stem()?.to_str()?.to_string()),
            Agent::Codex => codex_name_id(&f.path),
            Agent::Gemini => gemini_name_id(&f.path),
        })
        .collect();
    if !needed.is_empty() {
        parsed.extend(parse_all(needed, None, &summary_view, &|_, _, _| None));
    }
    let mut sessions = Vec::with_capacity(parsed.len());
    let mut visited = HashMap::new();
    let mut unread = Vec::new();
    for (r, t) in parsed {
        match r {
            Ok(s) => {
                if let Some(t) = t {
                    visited.insert(s.source.path.clone(), t);
                }
                sessions.push(s);
            }
            Err(w) => unread.push(w),
        }
    }
    // Files were parsed largest first (and in stages); everything downstream (duplicate
    // choices, which copy of a request is counted, the order of the warnings) must not depend
    // on sizes or directory order.
    unread.sort_by(|a, b| a.path.cmp(&b.path));
    result.report.warnings.extend(unread);
    sessions.sort_by(|a, b| a.source.path.cmp(&b.source.path));

    let siblings = if opts.paths.is_empty() {
        Vec::new()
    } else {
        leaf_titles::of_project_folders(&sessions, &opts.paths, &opts.stores.claude)
    };
    leaf_titles::apply(&mut sessions, &siblings);
    let unresolvable = resolve_projects(&mut sessions, &gemini_dirs, &opts.project_roots);
    result.report.extend(unresolvable.iter().cloned());
    result.project_warnings = unresolvable;
    let dropped = crate::gemini_groups::group(&mut sessions);
    result.report.extend(dropped);
    result.report.extend(drop_codex_copies(&mut sessions));
    result.report.extend(drop_claude_copies(&mut sessions));

    for s in &mut sessions {
        result.report.extend(s.warnings.iter().cloned());
    }
    count_once(&mut sessions);
    result.undated_outside_window =
        undated_outside_window(&sessions, opts.selection.as_ref().unwrap_or(&opts.filter));
    let (shown, hidden): (Vec<SessionSummary>, Vec<SessionSummary>) =
        sessions.into_iter().partition(|s| opts.filter.matches(s));
    result.hidden_ids.extend(hidden.into_iter().map(|s| s.id));
    result.sessions = shown;
    (result, visited)
}

/// The counted requests of the sessions that `filter`'s time window alone leaves out for
/// having no time (0 without a window).
fn undated_outside_window(sessions: &[SessionSummary], filter: &Filter) -> usize {
    if filter.since.is_none() && filter.until.is_none() {
        return 0;
    }
    let timeless = Filter {
        since: None,
        until: None,
        ..filter.clone()
    };
    sessions
        .iter()
        .filter(|s| s.started_at.is_none() && s.updated_at.is_none() && timeless.matches(s))
        .map(|s| s.requests.iter().filter(|r| r.counted).count())
        .sum()
}

type Parsed<T> = (Result<SessionSummary, Warning>, Option<T>);

/// A progress bar of `what` over `bytes` spread over `items` files, when `enabled`, on a
/// terminal only and only when there is more than one file.
pub fn bytes_progress(enabled: bool, what: &str, bytes: u64, items: usize) -> Option<ProgressBar> {
    if !enabled || !std::io::stderr().is_terminal() || items < 2 {
        return None;
    }
    let bar = ProgressBar::new(bytes);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} {what} {{bar:30}} {{bytes}}/{{total_bytes}} ({{eta}})"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// Parse files in parallel, largest first so one huge file does not start last and hold up
/// the whole run.
fn parse_all<X, T: Send>(
    mut files: Vec<SourceFile>,
    bar: Option<&ProgressBar>,
    read: &(impl Fn(&SourceFile) -> Result<(Session, X), Warning> + Sync),
    visit: &(impl Fn(&SessionSummary, Session, X) -> Option<T> + Sync),
) -> Vec<Parsed<T>> {
    files.sort_by_key(|f| std::cmp::Reverse(f.size));
    let visit = |_: &mut (), s: &SessionSummary, session, x| visit(s, session, x);
    // One file per rayon task: left to split the list into a few long runs, rayon handed one
    // thread a run of costly replays at the end while the other sat idle (a tenth of the
    // wall time of a Gemini replay of the bench store).
    files
        .into_par_iter()
        .with_max_len(1)
        .map(|f| parse_one(f, &mut (), bar, read, &visit))
        .collect()
}

/// [`parse_all`] over groups of files: each group in one task, its files in order, their
/// `visit`s sharing one `G`; the largest groups first.
fn parse_groups<X, G: Default, T: Send>(
    mut groups: Vec<Vec<SourceFile>>,
    bar: Option<&ProgressBar>,
    read: &(impl Fn(&SourceFile) -> Result<(Session, X), Warning> + Sync),
    visit: &(impl Fn(&mut G, &SessionSummary, Session, X) -> Option<T> + Sync),
) -> Vec<Parsed<T>> {
    groups.sort_by_key(|g| std::cmp::Reverse(g.iter().map(|f| f.size).sum::<u64>()));
    let parsed: Vec<Vec<Parsed<T>>> = groups
        .into_par_iter()
        .with_max_len(1)
        .map(|group| {
            let mut shared = G::default();
            group
                .into_iter()
                .map(|f| parse_one(f, &mut shared, bar, read, visit))
                .collect()
        })
        .collect();
    // Collected by position, each group's results at their size: a parallel flattening
    // collected them in vectors grown by doubling, and `list` peaked 16 MB higher for it.
    let mut all = Vec::with_capacity(parsed.iter().map(Vec::len).sum());
    for p in parsed {
        all.extend(p);
    }
    all
}

/// Read one file and visit what it read, with its group's `shared` state.
fn parse_one<X, G, T>(
    f: SourceFile,
    shared: &mut G,
    bar: Option<&ProgressBar>,
    read: &(impl Fn(&SourceFile) -> Result<(Session, X), Warning> + Sync),
    visit: &(impl Fn(&mut G, &SessionSummary, Session, X) -> Option<T> + Sync),
) -> Parsed<T> {
    let size = f.size;
    let r = match read(&f) {
        Ok((mut s, x)) => {
            let summary = SessionSummary::from_session(&mut s, f);
            let t = visit(shared, &summary, s, x);
            (Ok(summary), t)
        }
        Err(w) => (Err(w), None),
    };
    if let Some(b) = bar {
        b.inc(size);
    }
    r
}

/// Whether a file can hold activity inside the time window, judged without opening it:
/// nothing after `since` can be in a file last modified before it; a file whose name says it
/// started after `until` (with a day of slack: Codex names use local time) is out.
fn time_may_match(f: &SourceFile, filter: &Filter) -> bool {
    !modified_before(f, filter) && !named_after(f, filter)
}

fn modified_before(f: &SourceFile, filter: &Filter) -> bool {
    matches!((filter.since, f.mtime), (Some(since), Some(mtime)) if mtime < since)
}

fn named_after(f: &SourceFile, filter: &Filter) -> bool {
    matches!((filter.until, start_from_name(&f.path)),
        (Some(until), Some(start)) if until
            .instant()
            .checked_add_signed(Duration::days(1))
            .is_some_and(|late| start > late))
}

/// Of the files the time window skipped (`skipped`), those that the cross-file rules need to
/// settle the files read (`parsed`), and the others. The rules that join files must see every
/// file that holds what a file read holds, or the same data gives other numbers when only the
/// mtimes differ:
///
/// - a Claude response counts once, in the session that made it ([`count_once`]): a resumed
///   session repeats its parent's responses with their timestamps, and a backup holds some of
///   the original's. A file holding a copy of a response was written after the response was
///   made, so only a file modified at or after the earliest response that a Claude file read
///   holds from before `since` can hold one of its copies: those are read (every skipped Claude
///   file when such a response has no time). A file read that holds nothing from before the
///   window (the common case: a session of last week, under `--since 7d`) brings in nothing;
///   a resumed month-old session brings in the Claude files modified since its first response.
/// - the Gemini files of one `sessionId` are copies, sub-agent recordings or parts of one
///   conversation ([`crate::gemini_groups`]): an earlier part tells whether a later one starts
///   with a compression. Their names end with the id's first 8 characters, so the skipped
///   Gemini files whose names end like a file read's id are read.
/// - two Codex rollouts of one session id are copies, one of which is kept
///   ([`drop_codex_copies`]): a rollout's name ends with its id, so the skipped rollouts named
///   like a session read are read. A fork or a sub-agent rollout has an id of its own and tells
///   the parent lines it replays from its own inside the file: it needs no other file.
///
/// - a Claude file that recorded no working directory takes its project from another file of
///   its project folder ([`crate::project::claude_folder_name`]): that folder's skipped files
///   are read for their paths.
///
/// A file skipped by its name (started after `until`) is never needed: every rule above looks
/// back in time.
fn needed_by_cross_file_rules<T>(
    parsed: &[Parsed<T>],
    skipped: Vec<SourceFile>,
    filter: &Filter,
) -> (Vec<SourceFile>, Vec<SourceFile>) {
    let Some(since) = filter.since else {
        return (Vec::new(), skipped);
    };
    let read = || parsed.iter().filter_map(|(r, _)| r.as_ref().ok());
    // A skipped Claude file is needed when it was modified at or after this: the earliest
    // response from before the window that a Claude file read holds (`None`: there is none).
    let claude_bound = read()
        .filter(|s| s.agent == Agent::Claude)
        .flat_map(|s| &s.requests)
        .filter(|r| r.dedup_key.is_some())
        .filter_map(|r| match r.timestamp {
            Some(t) if t < since => Some(t),
            Some(_) => None,
            None => Some(DateTime::<Utc>::MIN_UTC),
        })
        .min();
    let gemini_ids: HashSet<String> = read()
        .filter(|s| s.agent == Agent::Gemini)
        .filter_map(|s| s.id.get(..8).map(str::to_ascii_lowercase))
        .collect();
    let codex_ids: HashSet<String> = read()
        .filter(|s| s.agent == Agent::Codex)
        .map(|s| s.id.to_ascii_lowercase())
        .collect();
    // The project folders of Claude files read that recorded no working directory: their
    // project is the path another file of the folder recorded (the folder rule), so the
    // folder's skipped files are read for their paths.
    let claude_folders_without_cwd: HashSet<&Path> = read()
        .filter(|s| s.agent == Agent::Claude && s.project.is_none() && s.cwd.is_none())
        .filter_map(|s| s.source.project_dir.as_deref())
        .collect();
    skipped.into_iter().partition(|f| {
        if named_after(f, filter) {
            return false;
        }
        match f.agent {
            Agent::Claude => {
                claude_bound.is_some_and(|bound| f.mtime.is_none_or(|m| m >= bound))
                    || f.project_dir
                        .as_deref()
                        .is_some_and(|d| claude_folders_without_cwd.contains(d))
            }
            Agent::Gemini => gemini_name_id(&f.path).is_some_and(|id| gemini_ids.contains(&id)),
            Agent::Codex => codex_name_id(&f.path).is_some_and(|id| codex_ids.contains(&id)),
        }
    })
}

/// The session id a Codex rollout's name ends with (`rollout-<time>-<uuid>.jsonl`),
/// lower-cased, by the Codex parser's own rule.
fn codex_name_id(path: &Path) -> Option<String> {
    crate::parse::codex::rollout_uuid(path).map(|id| id.to_ascii_lowercase())
}

/// The id part of a Gemini session file's name (`session-<time>-<first 8 of sessionId>.json`,
/// also behind a prefix: `backup-session-…`), lower-cased.
fn gemini_name_id(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .trim_end_matches(".zst")
        .trim_end_matches(".jsonl")
        .trim_end_matches(".json");
    let (_, rest) = stem.split_once("session-")?;
    Some(rest.rsplit('-').next()?.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::FileRole;

    /// A session's file is read after the sub-agent files in its folder, those in path order,
    /// as many as fit in the group's bytes; every other file alone.
    #[test]
    fn sub_agents_are_grouped_before_the_session_whose_folder_holds_them() {
        let file = |path: &str, sub: Option<&str>, size: u64| {
            let role = match sub {
                Some(s) => FileRole::ClaudeSubagent {
                    parent_session: (!s.is_empty()).then(|| s.to_string()),
                    meta: None,
                },
                None => FileRole::ClaudeMain,
            };
            let mut f = SourceFile::new(Agent::Claude, PathBuf::from(path), role);
            f.size = size;
            f
        };
        let files = vec![
            file("p/a/subagents/x/agent-3.jsonl", Some("a"), 10),
            file("p/b.jsonl", None, 5),
            file("p/a/subagents/agent-2.jsonl", Some("a"), 10),
            file("p/a.jsonl", None, 50),
            file("p/agent-9.jsonl", Some(""), 10),
            file("p/c/subagents/agent-4.jsonl", Some("c"), 10),
            file("p/a/subagents/agent-1.jsonl", Some("a"), 10),
            // Named after another session's folder than the one it is in: not grouped.
            file("p/d/subagents/agent-5.jsonl", Some("e"), 10),
        ];
        let names = |groups: Vec<Vec<SourceFile>>| -> Vec<Vec<String>> {
            let mut g: Vec<Vec<String>> = groups
                .into_iter()
                .map(|g| {
                    g.into_iter()
                        .map(|f| f.path.display().to_string())
                        .collect()
                })
                .collect();
            g.sort();
            g
        };
        let grouped = |max| names(layout_groups(files.clone(), max));
        let a = [
            "p/a/subagents/agent-1.jsonl",
            "p/a/subagents/agent-2.jsonl",
            "p/a/subagents/x/agent-3.jsonl",
            "p/a.jsonl",
        ];
        let alone = [
            "p/agent-9.jsonl",
            "p/b.jsonl",
            "p/c/subagents/agent-4.jsonl",
            "p/d/subagents/agent-5.jsonl",
        ];
        let want = |together: &[&str], apart: &[&str]| {
            let mut g: Vec<Vec<String>> = vec![together.iter().map(|s| s.to_string()).collect()];
            g.extend(apart.iter().chain(&alone).map(|s| vec![s.to_string()]));
            g.sort();
            g
        };
        assert_eq!(grouped(30), want(&a, &[]));
        assert_eq!(grouped(25), want(&[a[0], a[1], a[3]], &[a[2]]));
        assert_eq!(grouped(0), want(&[a[3]], &a[..3]));
        assert_eq!(files[6].layout_parent(), Some(PathBuf::from("p/a.jsonl")));
    }

    #[test]
    fn file_names_give_the_session_id_they_end_with() {
        let codex = |n: &str| codex_name_id(Path::new(n));
        assert_eq!(
            codex("rollout-2025-09-08T10-20-30-5F0C2D1E-8b3a-4c6d-9e7f-1a2b3c4d5e6f.jsonl.zst")
                .as_deref(),
            Some("5f0c2d1e-8b3a-4c6d-9e7f-1a2b3c4d5e6f")
        );
        assert_eq!(codex("rollout-2025.jsonl"), None);
        let gemini = |n: &str| gemini_name_id(Path::new(n));
        assert_eq!(
            gemini("session-2025-12-03T08-00-C2c2c2c2.jsonl").as_deref(),
            Some("c2c2c2c2")
        );
        assert_eq!(
            gemini("backup-session-2025-12-01T10-00-c0c0c0c0.json").as_deref(),
            Some("c0c0c0c0")
        );
        assert_eq!(gemini("checkpoint-x.json"), None);
    }
}
