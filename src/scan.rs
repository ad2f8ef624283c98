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

use crate::diag::{Report, Warning, WarningKind};
use crate::discover::{Discovery, Stores, start_from_name};
use crate::filter::Filter;
use crate::model::{
    Agent, Compaction, Counts, DedupKey, ProjectSource, RequestUsage, Session, SessionKind,
    SubagentLink, Usage,
};
use crate::parse::{self, Detail, SourceFile, preview};
use crate::project::ProjectIndex;

mod leaf_titles;

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
        let mut models = Vec::new();
        let gemini = session.agent == Agent::Gemini;
        let requests = session
            .requests
            .iter()
            .chain(&session.copied_requests)
            .map(|r| RequestUsage::of(r, &mut models))
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
/// command needing more than the summary (a replay) reads each file once. `visit` runs before
/// the cross-file rules and the filters: it sees the file's own project and title, and may see
/// sessions the filters later drop. Its results are keyed by file path.
pub fn scan_each<X, T: Send>(
    opts: &ScanOptions,
    discovery: Discovery,
    read: impl Fn(&SourceFile) -> Result<(Session, X), Warning> + Sync,
    visit: impl Fn(&SessionSummary, Session, X) -> Option<T> + Sync,
) -> (ScanResult, HashMap<PathBuf, T>) {
    run(opts, discovery, |files, bar| {
        parse_all(files, bar, &read, &visit)
    })
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
        stores_found: discovery.roots_found > 0 || !opts.paths.is_empty(),
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
    sessions.retain(|s| opts.filter.matches(s));
    result.sessions = sessions;
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
    // One file per rayon task: left to split the list into a few long runs, rayon handed one
    // thread a run of costly replays at the end while the other sat idle (a tenth of the
    // wall time of a Gemini replay of the bench store).
    files
        .into_par_iter()
        .with_max_len(1)
        .map(|f| {
            let size = f.size;
            let r = match read(&f) {
                Ok((mut s, x)) => {
                    let summary = SessionSummary::from_session(&mut s, f);
                    let t = visit(&summary, s, x);
                    (Ok(summary), t)
                }
                Err(w) => (Err(w), None),
            };
            if let Some(b) = bar {
                b.inc(size);
            }
            r
        })
        .collect()
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

/// Codex resumes a session by appending to its rollout, so two rollouts with one session id
/// are copies: a rollout under `archived_sessions/` and its original, a backup, a checkpoint
/// taken while the session ran. One is kept (the most requests, then the most messages, then
/// the latest update, then the first path) and each other is reported as a copy, never counted
/// twice. A fork or a sub-agent has an id of its own.
fn drop_codex_copies(sessions: &mut Vec<SessionSummary>) -> Vec<Warning> {
    let mut drop = vec![false; sessions.len()];
    let mut warnings = Vec::new();
    for members in same_session_files(sessions, Agent::Codex) {
        let best = members[0];
        for &i in &members[1..] {
            drop[i] = true;
            warnings.push(Warning::new(
                WarningKind::Duplicate,
                &sessions[i].source.path,
                None,
                format!(
                    "copy of Codex session {} (kept {})",
                    sessions[i].id,
                    sessions[best].source.path.display()
                ),
            ));
        }
    }
    remove_marked(sessions, &drop, warnings)
}

/// Claude Code writes one session id into several files when a session is resumed, backed up
/// or checkpointed: each such file holds the session's history up to some point. A file with
/// responses, all of which (`message.id` + `requestId`; a copy whose `requestId` a proxy
/// dropped is the response its message id names, as [`count_once`] reads it) another file of
/// the same session id holds, is a copy of that history: it is dropped and reported as a
/// duplicate, and the file holding the most responses (then the most messages, the most
/// tokens, the latest update, the first path) is kept. Files whose responses diverge (each
/// holds some the other lacks: branches taken from one point, or consecutive pieces of one
/// session) are distinct histories and are all kept; so is a file with no response (it holds
/// nothing the other is known to hold: prompts the agent never answered) and a file with a
/// response that names no message id, which cannot be compared. Run by the scan before
/// [`count_once`], as the Codex and Gemini copy rules are, so that every command sees one
/// session where the agent wrote one (a row of `list`, a replay, an export), not a row per
/// file. The kept file's requests count at the largest snapshot of their copies; its own
/// figures stay its file's ([`RequestUsage::own_usage`]).
pub fn drop_claude_copies(sessions: &mut Vec<SessionSummary>) -> Vec<Warning> {
    let mut drop = vec![false; sessions.len()];
    let mut warnings = Vec::new();
    let mut held_by = Vec::new();
    for members in same_session_files(sessions, Agent::Claude) {
        let keys: Vec<_> = members
            .iter()
            .map(|&i| Responses::of(&sessions[i]))
            .collect();
        for (a, &i) in members.iter().enumerate() {
            let Some(mine) = keys[a].as_ref().filter(|k| !k.keys.is_empty()) else {
                continue;
            };
            // A copy is dropped in favour of the best-ranked member (an earlier one) that holds
            // it, but the file named after its session is never dropped for one that is not:
            // a renamed file takes its id from its first records, which in a resumed session's
            // file are its parent's, and holds all the parent's responses and more.
            let named = |k: usize| named_after_its_session(&sessions[members[k]]);
            let holder = (0..a).find(|&b| {
                !drop[members[b]]
                    && (named(b) || !named(a))
                    && keys[b].as_ref().is_some_and(|theirs| theirs.hold(mine))
            });
            if let Some(b) = holder {
                drop[i] = true;
                held_by.push((i, members[b]));
                warnings.push(Warning::new(
                    WarningKind::Duplicate,
                    &sessions[i].source.path,
                    None,
                    format!(
                        "copy of Claude session {}: its {} among the {} of {}, which is kept",
                        sessions[i].id,
                        match mine.keys.len() {
                            1 => "1 response is".to_string(),
                            n => format!("{} responses are", crate::render::thousands(n as u64)),
                        },
                        crate::render::thousands(
                            keys[b].as_ref().map_or(0, |k| k.keys.len()) as u64
                        ),
                        sessions[members[b]].source.path.display()
                    ),
                ));
            }
        }
    }
    // A response counts at the per-field maximum of its copies ([`count_once`]): a copy taken
    // while the response streamed holds a smaller snapshot, and may be the one kept.
    // And the `agent_progress` copies a dropped file holds that the kept one lacks (a copy
    // taken before a tool stripped the progress records) go over to the kept one.
    for (copy, holder) in held_by {
        let copied: Vec<(DedupKey, Usage)> = sessions[copy]
            .requests
            .iter()
            .filter_map(|r| Some((r.dedup_key.clone()?, *r.own_usage())))
            .collect();
        raise_to_copies(&mut sessions[holder].requests, &copied);
        let held: rustc_hash::FxHashSet<&DedupKey> = sessions[holder]
            .requests
            .iter()
            .filter_map(|r| r.dedup_key.as_ref())
            .collect();
        let missing: Vec<RequestUsage> = sessions[copy]
            .requests
            .iter()
            .filter(|r| r.is_copy() && r.dedup_key.as_ref().is_some_and(|k| !held.contains(k)))
            .cloned()
            .collect();
        sessions[holder].requests.extend(missing);
    }
    remove_marked(sessions, &drop, warnings)
}

/// Whether a file's name (without its extensions) is the session id it holds: the name Claude
/// Code gives the file it writes a session into.
fn named_after_its_session(s: &SessionSummary) -> bool {
    s.source
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('.').next())
        .is_some_and(|stem| stem == s.id)
}

/// The responses of a Claude file, as the copy rule compares them: `None` when one names no
/// message id (the file cannot be compared).
struct Responses<'a> {
    keys: rustc_hash::FxHashSet<(&'a str, Option<&'a str>)>,
    /// The message ids of the responses, and of those recorded without a `requestId`.
    ids: rustc_hash::FxHashSet<&'a str>,
    bare: rustc_hash::FxHashSet<&'a str>,
}

impl<'a> Responses<'a> {
    fn of(s: &'a SessionSummary) -> Option<Self> {
        let mut r = Responses {
            keys: Default::default(),
            ids: Default::default(),
            bare: Default::default(),
        };
        // The copies of sub-agent responses are no response of this session's: a copy of a
        // transcript holds the transcript's responses whatever progress records either kept.
        for k in s.own_requests() {
            let k = k.dedup_key.as_ref()?;
            let (mid, rid) = (k.message_id.as_str(), k.request_id.as_deref());
            r.keys.insert((mid, rid));
            r.ids.insert(mid);
            if rid.is_none() {
                r.bare.insert(mid);
            }
        }
        Some(r)
    }

    /// Whether every response of `other` is one of these: the same message and request ids,
    /// or the same message id where either copy lost its `requestId`.
    fn hold(&self, other: &Responses) -> bool {
        other.keys.iter().all(|&(mid, rid)| match rid {
            Some(_) => self.keys.contains(&(mid, rid)) || self.bare.contains(mid),
            None => self.ids.contains(mid),
        })
    }
}

/// Raise each request of `requests` to the per-field maximum of its copies in `copied` (the
/// same message and request ids, or the same message id where a copy has no `requestId`).
fn raise_to_copies(requests: &mut [RequestUsage], copied: &[(DedupKey, Usage)]) {
    use rustc_hash::FxHashMap;
    let mut of: FxHashMap<(&str, Option<&str>), Usage> = FxHashMap::default();
    for (k, u) in copied {
        for key in [
            (k.message_id.as_str(), k.request_id.as_deref()),
            (k.message_id.as_str(), None),
        ] {
            of.entry(key).and_modify(|x| x.max_with(u)).or_insert(*u);
        }
    }
    for r in requests {
        let Some(k) = &r.dedup_key else { continue };
        let mid = k.message_id.as_str();
        // By its own ids, else (a copy without a `requestId` on either side) by message id.
        let u = of
            .get(&(mid, k.request_id.as_deref()))
            .or_else(|| of.get(&(mid, None)))
            .copied();
        if let Some(u) = u {
            r.raise_to(&u);
        }
    }
}

/// The files of `agent` that share a session id (and kind) with another, group by group, each
/// group best first: the most requests, then the most messages, then the most tokens (of two
/// copies of one history, the one whose last response streamed further), then the latest
/// update, then the first path. The copy rules keep the first.
fn same_session_files(sessions: &[SessionSummary], agent: Agent) -> Vec<Vec<usize>> {
    let mut groups: HashMap<(&str, SessionKind), Vec<usize>> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        if s.agent == agent && !s.id.is_empty() {
            groups.entry((s.id.as_str(), s.kind)).or_default().push(i);
        }
    }
    groups
        .into_values()
        .filter(|v| v.len() > 1)
        .map(|mut v| {
            v.sort_by_key(|&i| {
                let s = &sessions[i];
                std::cmp::Reverse((
                    (
                        s.own_requests().len(),
                        s.message_count,
                        s.usage.total(),
                        s.updated_at,
                    ),
                    std::cmp::Reverse(i),
                ))
            });
            v
        })
        .collect()
}

/// Remove the sessions marked in `drop`; their warnings in path order, whatever order the
/// groups came in.
fn remove_marked(
    sessions: &mut Vec<SessionSummary>,
    drop: &[bool],
    mut warnings: Vec<Warning>,
) -> Vec<Warning> {
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    let mut i = 0;
    sessions.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
    warnings
}

/// The project a session's own record gives it: the one it recorded, else its `cwd`.
fn own_project(s: &SessionSummary) -> Option<(String, ProjectSource)> {
    match (&s.project, &s.cwd) {
        (Some(p), _) => Some((p.clone(), s.project_source)),
        (None, Some(cwd)) => Some((cwd.clone(), ProjectSource::Cwd)),
        (None, None) => None,
    }
}

/// The project rules of the scan that need no other session: the `cwd`, and a Gemini
/// project folder's `.project_root` marker or `projects.json` entry. For a command that works
/// on each file while the scan holds it; where these leave a session without a project, the
/// scan's cross-file rules (a hash matched against the other sessions' projects) may still
/// give it one.
pub struct LocalProjects(std::sync::Mutex<ProjectIndex>);

impl LocalProjects {
    /// What this index cannot read is not reported: the scan's own index reads the same
    /// registries and markers (and more) and reports them, once.
    pub fn new(stores: &Stores) -> Self {
        LocalProjects(std::sync::Mutex::new(ProjectIndex::new(&stores.gemini)))
    }

    /// `s`'s project and its source, as far as these rules settle them.
    pub fn settle(&self, s: &SessionSummary) -> (Option<String>, ProjectSource) {
        if let Some((p, source)) = own_project(s) {
            return (Some(p), source);
        }
        match self.0.lock() {
            Ok(mut index) if s.agent == Agent::Gemini => {
                index.resolve_gemini(s.source.project_dir.as_deref(), s.project_hash.as_deref())
            }
            // Claude and Codex projects come from their own records only.
            _ => (None, s.project_source),
        }
    }
}

/// Settle every session's project; what could not be read on the way is returned.
fn resolve_projects(
    sessions: &mut [SessionSummary],
    gemini_dirs: &[PathBuf],
    roots: &[PathBuf],
) -> Vec<Warning> {
    let mut index = ProjectIndex::new(gemini_dirs);
    for s in sessions.iter_mut() {
        if s.project.is_none()
            && let Some((p, source)) = own_project(s)
        {
            s.project = Some(p);
            s.project_source = source;
        }
        if s.agent != Agent::Gemini
            && let Some(p) = &s.project
        {
            index.add_candidate(p);
        }
    }
    for r in roots {
        index.add_candidate_tree(r);
    }
    for s in sessions
        .iter_mut()
        .filter(|s| s.agent == Agent::Gemini && s.project.is_none())
    {
        let (p, src) =
            index.resolve_gemini(s.source.project_dir.as_deref(), s.project_hash.as_deref());
        s.project = p;
        s.project_source = src;
    }
    // Gemini's resolved paths are candidates for the folder rule only: added after the Gemini
    // pass, they cannot make its result depend on the order of the sessions.
    let gemini: Vec<String> = sessions
        .iter()
        .filter(|s| s.agent == Agent::Gemini)
        .filter_map(|s| s.project.clone())
        .collect();
    for p in &gemini {
        index.add_candidate(p);
    }
    for s in sessions
        .iter_mut()
        .filter(|s| s.agent == Agent::Claude && s.project.is_none())
    {
        (s.project, s.project_source) =
            index.resolve_claude_folder(s.source.project_dir.as_deref());
    }
    index.take_warnings()
}

/// The requests of `sessions` that aggregates count, by the cross-file rules
/// ([`count_once`], which the scan has run over the whole store before filtering), in a
/// deterministic order: sessions in the order given, each session's requests in file order.
pub fn unique_requests(sessions: &[SessionSummary]) -> Vec<(&SessionSummary, &RequestUsage)> {
    unique_requests_of(sessions.iter())
}

/// [`unique_requests`] over any collection of sessions (a project's members, a filtered view).
pub fn unique_requests_of<'a>(
    sessions: impl IntoIterator<Item = &'a SessionSummary>,
) -> Vec<(&'a SessionSummary, &'a RequestUsage)> {
    sessions
        .into_iter()
        .flat_map(|s| s.requests.iter().filter(|r| r.counted).map(move |r| (s, r)))
        .collect()
}

/// Mark which copy of each request aggregates count, over every session read (the time window
/// reads every file that may hold a copy of a response a file read holds): run by the scan
/// before any filter, so a filter that leaves out the copy that counts (a parent session under
/// `--kind subagent`, another project) cannot make a copy count instead.
///
/// A Claude response (`message.id` + `requestId`) written into several files (resumed
/// sessions, sub-agent logs, `agent_progress` copies, backups) counts once, at the per-field
/// maximum of its copies' usage (a copy can be taken mid-stream); a copy without a `requestId`
/// is the response its `message.id` names. It belongs to the session that made it: a main
/// session's copy over a sidechain's, a record over an `agent_progress` copy, and among those
/// the session that started first, then the one that ended first (a resumed session repeats
/// its parent's records, and goes on after them), then the first path. So a sub-agent response
/// known only from the `agent_progress` copies in its parent's file (the sub-agent's own file
/// not kept) counts once, in that parent session, still a sidechain request. A sidechain copy
/// of a message whose id a main session holds is a replay of the parent's context (same
/// message, new request id) and never counts. Requests without an identity are unique to
/// their file. A Gemini response is keyed by its message id (a UUID, no request id): two
/// copies of one session kept for diverging ([`crate::gemini_groups`]) count it once.
pub fn count_once(sessions: &mut [SessionSummary]) {
    use rustc_hash::{FxHashMap, FxHashSet};
    type Key<'k> = (&'k str, Option<&'k str>);
    let mut order: Vec<usize> = (0..sessions.len()).collect();
    // A resumed session starts with its parent's records, timestamps and all, and goes on
    // after the parent ended: the parent is the session that started first, then ended first.
    // Stable: the path order among the rest.
    order.sort_by_key(|&i| {
        let s = &sessions[i];
        (
            s.started_at.is_none(),
            s.started_at,
            s.updated_at.is_none(),
            s.updated_at,
        )
    });
    let (merged, dropped) = {
        let sessions = &*sessions;
        let keyed = sessions
            .iter()
            .flat_map(|s| &s.requests)
            .filter(|r| r.dedup_key.as_ref().is_some_and(|k| !k.sidechain))
            .count();
        // A copy without a `requestId` (a proxy, an older build) is the response its message id
        // names: it takes the request id another copy of that message records, if any. Only
        // built when such a copy exists.
        let mut request_of: FxHashMap<&str, &str> = FxHashMap::default();
        let keys = || {
            sessions
                .iter()
                .flat_map(|s| &s.requests)
                .filter_map(|r| r.dedup_key.as_ref())
        };
        if keys().any(|k| k.request_id.is_none()) {
            for &si in &order {
                for k in sessions[si]
                    .requests
                    .iter()
                    .filter_map(|r| r.dedup_key.as_ref())
                {
                    if let Some(rid) = k.request_id.as_deref() {
                        request_of.entry(k.message_id.as_str()).or_insert(rid);
                    }
                }
            }
        }
        fn key_in<'k>(k: &'k DedupKey, request_of: &FxHashMap<&'k str, &'k str>) -> Key<'k> {
            let mid = k.message_id.as_str();
            let rid = k.request_id.as_deref();
            (mid, rid.or_else(|| request_of.get(mid).copied()))
        }
        let key_of = |k| key_in(k, &request_of);
        // Sized once: growing these by doubling on a store's worth of requests held the old
        // and the new table at once, a transient of several MB at the end of every scan.
        let mut main: FxHashMap<Key, (usize, usize, Usage)> =
            FxHashMap::with_capacity_and_hasher(keyed, Default::default());
        let mut main_ids: FxHashSet<&str> =
            FxHashSet::with_capacity_and_hasher(keyed, Default::default());
        for &si in &order {
            for (ri, r) in sessions[si].requests.iter().enumerate() {
                if let Some(k) = r.dedup_key.as_ref().filter(|k| !k.sidechain) {
                    main.entry(key_of(k))
                        .and_modify(|(_, _, u)| u.max_with(&r.usage))
                        .or_insert((si, ri, r.usage));
                    main_ids.insert(k.message_id.as_str());
                }
            }
        }
        let mut side: FxHashMap<Key, (usize, usize, Usage)> = FxHashMap::default();
        let mut dropped = Vec::new();
        // The copies last: any other record of a response (the sub-agent's own file, whatever
        // the order of the sessions) stands for it before an `agent_progress` copy does.
        for (copies, &si) in [false, true]
            .into_iter()
            .flat_map(|c| order.iter().map(move |si| (c, si)))
        {
            for (ri, r) in sessions[si].requests.iter().enumerate() {
                let Some(k) = r.dedup_key.as_ref().filter(|k| k.copy == copies) else {
                    continue;
                };
                let key = key_of(k);
                if !k.sidechain {
                    if main.get(&key).is_some_and(|&(s, r, _)| (s, r) != (si, ri)) {
                        dropped.push((si, ri));
                    }
                    continue;
                }
                if let Some((_, _, u)) = main.get_mut(&key) {
                    // The same response, also written into a sidechain.
                    u.max_with(&r.usage);
                    dropped.push((si, ri));
                } else if main_ids.contains(k.message_id.as_str()) {
                    dropped.push((si, ri));
                } else {
                    match side.entry(key) {
                        std::collections::hash_map::Entry::Occupied(mut e) => {
                            e.get_mut().2.max_with(&r.usage);
                            dropped.push((si, ri));
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert((si, ri, r.usage));
                        }
                    }
                }
            }
        }
        let merged: Vec<(usize, usize, Usage)> = main
            .into_values()
            .chain(side.into_values())
            .filter(|&(si, ri, u)| sessions[si].requests[ri].usage != u)
            .collect();
        (merged, dropped)
    };
    for (si, ri, u) in merged {
        sessions[si].requests[ri].raise_to(&u);
    }
    for (si, ri) in dropped {
        sessions[si].requests[ri].counted = false;
    }
}

/// Token totals over several sessions: a sum over [`unique_requests_of`], so `list`,
/// `projects` and `usage` totals cannot disagree.
pub fn aggregate_usage<'a>(sessions: impl IntoIterator<Item = &'a SessionSummary>) -> Usage {
    let mut total = Usage::default();
    for (_, r) in unique_requests_of(sessions) {
        total.add(&r.usage);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

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
