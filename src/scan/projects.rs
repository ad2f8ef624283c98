//! Settling each session's project: the rules a session settles alone ([`LocalProjects`]) and
//! the scan's cross-file pass over all of them. Apart because they read the project registries
//! and markers, which nothing else in the scan touches.

use std::path::PathBuf;

use super::SessionSummary;
use crate::diag::Warning;
use crate::discover::Stores;
use crate::model::{Agent, ProjectSource};
use crate::project::ProjectIndex;

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
pub(super) fn resolve_projects(
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
