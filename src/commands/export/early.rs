//! Rendering while the scan holds each file, so that `export --all -o DIR` parses a file once.
//!
//! A session is rendered early, under a temporary name in DIR, from what the scan read. What
//! the scan's cross-file rules may still change is kept with the rendering: the session's
//! title and project, and every question its rendering asked about other sessions (which
//! sub-agents a session has, and each sub-agent's session as the scan settled it). After the
//! scan, an early rendering whose answers changed, or that the filters drop, is discarded and
//! the session is exported as before, from its file read again.
//!
//! The scan reads a session's file and its sub-agents' files in one task, the sub-agents'
//! first ([`crate::scan::scan_each`]): their sessions, prepared, wait in the task's [`Group`]
//! for the parent's rendering, which embeds them without reading their files again.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Dest, Pool, destination, prepare};
use crate::cli::{ExportArgs, GlobalArgs};
use crate::commands::guard;
use crate::export::markdown::{Children, Env};
use crate::export::redact::Redactions;
use crate::export::{ExportOptions, ImageMode, IndexEntry, write_session};
use crate::filter::KindFilter;
use crate::model::{Agent, ProjectSource, Session, SessionKind};
use crate::output::{Guard, OutputDir, Staged};
use crate::scan::{LocalProjects, SessionSummary};

/// The sub-agent files' bytes the scan reads with their parent, at most (the rest are read in
/// tasks of their own, and their parent is rendered after the scan): what a [`Group`] keeps
/// stays bounded by what the scan has in flight.
pub(super) const GROUP_BYTES: u64 = 128 << 20;

/// The staging folder and what an early rendering needs from the run.
pub(super) struct Staging<'a> {
    pub(super) dir: OutputDir,
    guard: Guard,
    opts: &'a ExportOptions,
    filter: crate::filter::Filter,
    kind: KindFilter,
    projects: LocalProjects,
}

/// A session rendered early ([`Staging`]), with the inputs its rendering used.
pub(super) struct Early {
    pub(super) staged: Staged,
    title: Option<String>,
    project: Option<String>,
    project_source: ProjectSource,
    pub(super) entry: IndexEntry,
    pub(super) redactions: Option<Redactions>,
    pub(super) notes: Vec<(String, String)>,
    /// What the rendering asked about other sessions, and was told.
    asked: Vec<Asked>,
}

/// What one task of the scan keeps for a parent's rendering: its group's sub-agent sessions,
/// indexed as the run's pool indexes sub-agents.
#[derive(Default)]
pub(super) struct Group {
    children: Vec<Child>,
    /// Each id's first child (in path order, as the pool's by id).
    first: HashMap<String, usize>,
    /// Each parent's children, an id once.
    of: HashMap<String, Vec<usize>>,
}

impl Group {
    fn push(&mut self, c: Child) {
        let i = self.children.len();
        if let Entry::Vacant(e) = self.first.entry(c.id.clone()) {
            e.insert(i);
            if let Some(p) = &c.parent_id {
                self.of.entry(p.clone()).or_default().push(i);
            }
        }
        self.children.push(c);
    }
}

/// A sub-agent's session, settled and prepared as its own export had it.
struct Child {
    id: String,
    parent_id: Option<String>,
    started_at: Option<chrono::DateTime<chrono::Utc>>,
    path: PathBuf,
    settled: Settled,
    redactions: Option<Redactions>,
    /// `None` once a rendering embedded it.
    session: Option<Session>,
}

/// What a session was given from its summary before it was rendered: the summary's title (the
/// session's own is kept when the summary has none) and project.
#[derive(Clone, PartialEq)]
struct Settled {
    title: Option<String>,
    project: Option<String>,
    project_source: ProjectSource,
}

impl Settled {
    fn of(s: &SessionSummary) -> Settled {
        Settled {
            title: s.title.clone(),
            project: s.project.clone(),
            project_source: s.project_source,
        }
    }
}

/// A question an early rendering asked about other sessions, with the answer it got.
enum Asked {
    /// The sub-agents of `parent`, by id.
    Of { parent: String, ids: Vec<String> },
    /// The session of sub-agent `id` (`path`: the file the parent's link names), found in the
    /// group's file `found` as settled then, or not found.
    Load {
        id: String,
        path: Option<PathBuf>,
        found: Option<(PathBuf, Settled)>,
    },
}

impl Asked {
    /// Whether the export after the scan gets the same answer from the run's pool.
    fn holds(&self, pool: &Pool) -> bool {
        match self {
            Asked::Of { parent, ids } => pool.of(parent) == *ids,
            Asked::Load { id, path, found } => match (pool.by_id.get(id.as_str()), found) {
                (Some(s), Some((file, settled))) => s.path() == file && Settled::of(s) == *settled,
                // Not in the pool either: the export after the scan reads the link's file.
                (None, None) => path.is_none(),
                _ => false,
            },
        }
    }
}

impl<'a> Staging<'a> {
    /// Staging for this run, when it exports every session of a scan into a folder. Not
    /// with `--images extract` (the images' folder is named after the export's file), nor
    /// with `--project` (most of the files the scan parses would be rendered for nothing),
    /// nor when the folder already holds an index and `--force` is not given (the run will
    /// stop at that). Anything that fails here falls back to exporting after the scan, which
    /// then reports the problem.
    pub(super) fn new(
        g: &GlobalArgs,
        a: &ExportArgs,
        opts: &'a ExportOptions,
        scan: &crate::scan::ScanOptions,
        kind: KindFilter,
    ) -> Option<Self> {
        if !a.all || opts.images == ImageMode::Extract || scan.filter.project.is_some() {
            return None;
        }
        // With --all the destination does not depend on how many sessions the scan selects
        // (only its messages name the count): any number above one decides it.
        let Ok(Dest::Dir(dir)) = destination(a, 2) else {
            return None;
        };
        if !a.force && dir.join(opts.format.index_name()).exists() {
            return None;
        }
        let guard = guard(g, a.force, a.targets.iter().map(Path::new));
        let dir = guard.output_dir(&dir).ok()?;
        Some(Staging {
            dir,
            guard,
            opts,
            filter: scan.filter.clone(),
            kind,
            projects: LocalProjects::new(&scan.stores),
        })
    }

    /// Render `s` early if it may be exported, and keep it in `group` if it is a sub-agent
    /// its parent may embed.
    pub(super) fn render(
        &self,
        group: &mut Group,
        summary: &SessionSummary,
        mut s: Session,
    ) -> Option<Early> {
        // A Gemini session's kind may still change (the cross-file rules link sub-agents).
        let kind_may_match = summary.agent == Agent::Gemini || self.kind.accepts(summary.kind);
        let exported = kind_may_match && self.filter.may_match(summary);
        // Only a sub-agent read with its parent can be embedded from this read.
        let keep =
            summary.kind == SessionKind::Subagent && summary.source.layout_parent().is_some();
        if !exported && !keep {
            return None;
        }
        // What `load` sets from the summary, as far as this file alone settles it.
        let (project, project_source) = self.projects.settle(summary);
        let settled = Settled {
            title: summary.title.clone(),
            project,
            project_source,
        };
        s.project = settled.project.clone();
        s.project_source = project_source;
        if settled.title.is_some() {
            s.title = settled.title.clone();
        }
        let redactions = prepare(&mut s, self.opts);
        let early = if exported {
            self.stage(group, &s, &settled, redactions.clone())
        } else {
            None
        };
        if keep {
            group.push(Child {
                id: s.id.clone(),
                parent_id: s.parent_id.clone(),
                started_at: s.started_at,
                path: summary.path().to_path_buf(),
                settled,
                redactions,
                session: Some(s),
            });
        }
        early
    }

    /// Write `s`'s rendering into the staging folder, embedding what `group` holds.
    fn stage(
        &self,
        group: &mut Group,
        s: &Session,
        settled: &Settled,
        mut redactions: Option<Redactions>,
    ) -> Option<Early> {
        let children = Kept {
            group: Mutex::new(group),
            asked: Mutex::new(Vec::new()),
            redactions: Mutex::new(Redactions::default()),
        };
        let env = Env::new(self.opts, &children, None);
        let (staged, ()) = self
            .guard
            .stage(&self.dir.path, |w| write_session(w, s, &env))
            .ok()?;
        let notes = env
            .notes
            .borrow()
            .iter()
            .map(|m| (s.id.clone(), m.clone()))
            .collect();
        let asked = children.asked.into_inner().unwrap_or_default();
        // An embedded sub-agent's replacements count again, as the export after the scan
        // counts them each time it loads the sub-agent.
        if let (Some(total), Ok(embedded)) = (&mut redactions, children.redactions.into_inner()) {
            total.merge(&embedded);
        }
        Some(Early {
            staged,
            title: settled.title.clone(),
            project: settled.project.clone(),
            project_source: settled.project_source,
            entry: IndexEntry::new(String::new(), s),
            redactions,
            notes,
            asked,
        })
    }
}

impl Early {
    /// Whether the rendering is the one exporting `s` after the scan would write.
    pub(super) fn holds(&self, s: &SessionSummary, pool: &Pool) -> bool {
        self.title == s.title
            && self.project == s.project
            && self.project_source == s.project_source
            && self.asked.iter().all(|a| a.holds(pool))
    }
}

/// The sub-agents a group kept, served to a rendering as the run's pool serves them after the
/// scan, each question and its answer recorded.
struct Kept<'g> {
    group: Mutex<&'g mut Group>,
    asked: Mutex<Vec<Asked>>,
    /// What the sub-agents it handed out replaced.
    redactions: Mutex<Redactions>,
}

impl Kept<'_> {
    fn ask(&self, a: Asked) {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(a);
        }
    }
}

impl Children for Kept<'_> {
    fn of(&self, parent_id: &str) -> Vec<String> {
        let mut ids: Vec<(Option<chrono::DateTime<chrono::Utc>>, String)> = Vec::new();
        if let Ok(group) = self.group.lock()
            && let Some(of) = group.of.get(parent_id)
        {
            ids.extend(of.iter().map(|&i| {
                let c = &group.children[i];
                (c.started_at, c.id.clone())
            }));
        }
        // As the pool lists them: in the order they started.
        ids.sort_by_key(|(t, _)| *t);
        let ids: Vec<String> = ids.into_iter().map(|(_, id)| id).collect();
        self.ask(Asked::Of {
            parent: parent_id.to_string(),
            ids: ids.clone(),
        });
        ids
    }

    fn load(&self, id: &str, path: Option<&Path>) -> Option<Session> {
        let mut found = None;
        let mut session = None;
        if let Ok(mut group) = self.group.lock()
            && let Some(&i) = group.first.get(id)
            && let Some(s) = group.children[i].session.take()
        {
            let c = &group.children[i];
            found = Some((c.path.clone(), c.settled.clone()));
            session = Some(s);
            if let (Some(r), Ok(mut total)) = (&c.redactions, self.redactions.lock()) {
                total.merge(r);
            }
        }
        self.ask(Asked::Load {
            id: id.to_string(),
            path: path.map(Path::to_path_buf),
            found,
        });
        session
    }
}

#[cfg(test)]
mod tests {
    use super::super::{full_view, guard};
    use super::*;
    use crate::cli::{Cli, Command};
    use crate::commands::scan_options;
    use crate::export::ExportFormat;
    use crate::scan::{discover, scan_each};
    use clap::Parser;
    use std::collections::BTreeSet;

    /// The ids (8 characters) of `home`'s Claude sessions whose rendering during the scan is
    /// the one the export keeps (their files read once), with at most `group_bytes` of
    /// sub-agent files read with their parent.
    fn read_once(home: &Path, format: ExportFormat, group_bytes: u64) -> BTreeSet<String> {
        let out = tempfile::tempdir().unwrap();
        let cli = Cli::parse_from([
            "sessions".as_ref(),
            "--home".as_ref(),
            home.as_os_str(),
            "-q".as_ref(),
            "export".as_ref(),
            "--all".as_ref(),
            "--agent".as_ref(),
            "claude".as_ref(),
            "-o".as_ref(),
            out.path().join("x").as_os_str(),
        ]);
        let Command::Export(a) = &cli.command else {
            unreachable!()
        };
        let opts = ExportOptions {
            format,
            ..ExportOptions::default()
        };
        let mut select = a.filters.select(Vec::new());
        select.filter.kind = KindFilter::All;
        let mut scan = scan_options(&cli.global, &select).unwrap();
        scan.progress = false;
        let st = Staging::new(&cli.global, a, &opts, &scan, KindFilter::All).unwrap();
        let (result, early) = scan_each(
            &scan,
            discover(&scan),
            group_bytes,
            full_view,
            |g, s, session, ()| st.render(g, s, session),
        );
        let redactions = Mutex::new(Redactions::default());
        let pool = Pool::new(
            &result.sessions,
            &opts,
            &redactions,
            guard(&cli.global, false, []),
        );
        assert!(!result.sessions.is_empty());
        result
            .sessions
            .iter()
            .filter(|s| early.get(s.path()).is_some_and(|e| e.holds(s, &pool)))
            .map(|s| s.id[..8].to_string())
            .collect()
    }

    /// A session with sub-agents under its folder is rendered with them while the scan holds
    /// their files. The same sub-agent beside its parent (Claude Code 2.0's layout) is linked
    /// by the scan's cross-file rules only: its parent's Markdown and HTML are rendered again
    /// after the scan. JSON embeds no sub-agent. (`tests/export/destinations.rs` holds every
    /// file the export writes to the session's own export.)
    #[test]
    fn a_session_and_the_sub_agents_under_its_folder_are_read_once() {
        let (parent, child, other) = ("c4d5e6f7", "agent-a5", "d1e2f3a4");
        let sample = Path::new("testdata/home");
        let every = read_once(sample, ExportFormat::Json, GROUP_BYTES);
        assert!(every.len() >= 7 && every.contains(parent), "{every:?}");
        for format in [ExportFormat::Md, ExportFormat::Html] {
            assert_eq!(read_once(sample, format, GROUP_BYTES), every, "{format:?}");
        }
        // Sub-agents past the bytes of a group are read apart, and their parent again.
        let mut kept_none = every.clone();
        kept_none.remove(parent);
        assert_eq!(read_once(sample, ExportFormat::Md, 0), kept_none);

        // The project alone, its sub-agent moved beside its parent.
        let home = tempfile::tempdir().unwrap();
        let from = sample.join(".claude/projects/-home-dev-api-server");
        let to = home.path().join(".claude/projects/-home-dev-api-server");
        std::fs::create_dir_all(&to).unwrap();
        for f in walkdir::WalkDir::new(&from) {
            let f = f.unwrap();
            if f.file_type().is_file() {
                std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
            }
        }
        let flat = |format| read_once(home.path(), format, GROUP_BYTES);
        let all: BTreeSet<String> = [parent, child, other].map(String::from).into();
        assert_eq!(flat(ExportFormat::Json), all);
        let mut again = all.clone();
        again.remove(parent);
        assert_eq!(flat(ExportFormat::Md), again);
        assert_eq!(flat(ExportFormat::Html), again);
    }
}
