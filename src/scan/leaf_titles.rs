//! Claude `summary` records title the session that contains their `leafUuid`, usually another
//! file of the same project (formats.md §1.5). A scan of the store sees every file; a scan of
//! named files reads the `summary` records of the rest of their project folders too, so that a
//! session named by its path has the title it has when named by its id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{SessionSummary, TITLE_MAX};
use crate::discover::Discovery;
use crate::model::Agent;
use crate::parse::{self, preview};

/// The leaf titles of the other files of the project folders of the Claude files in `named`
/// (files, not folders: a folder named is read whole), by file path. A folder counts as a
/// project folder when it lies in a Claude store: in `claude_roots` or in a `projects` folder
/// (a copy of a store elsewhere).
pub(super) fn of_project_folders(
    sessions: &[SessionSummary],
    named: &[PathBuf],
    claude_roots: &[PathBuf],
) -> Vec<(PathBuf, Vec<(String, String)>)> {
    let claude_named = |p: &PathBuf| {
        sessions
            .iter()
            .any(|s| s.agent == Agent::Claude && s.source.path == *p)
    };
    let mut folders: Vec<PathBuf> = named
        .iter()
        .filter(|p| p.is_file() && claude_named(p))
        .filter_map(|p| project_folder(p, claude_roots))
        .collect();
    folders.sort();
    folders.dedup();
    if folders.is_empty() {
        return Vec::new();
    }
    let read: Vec<_> = sessions.iter().filter_map(|s| s.source.identity).collect();
    let others: Vec<PathBuf> = Discovery::walk_paths(&folders, &[Agent::Claude])
        .files
        .into_iter()
        .filter(|f| !sessions.iter().any(|s| s.source.path == f.path))
        .filter(|f| f.identity.is_none_or(|id| !read.contains(&id)))
        .map(|f| f.path)
        .collect();
    others
        .into_par_iter()
        .map(|p| {
            let titles = parse::claude::leaf_titles(&p);
            (p, titles)
        })
        .filter(|(_, t)| !t.is_empty())
        .collect()
}

/// `projects/<project>/` for `<project>/<session>.jsonl`, `<project>/agent-*.jsonl` and
/// `<project>/<session>/subagents/agent-*.jsonl`, when it lies in a Claude store.
fn project_folder(file: &Path, claude_roots: &[PathBuf]) -> Option<PathBuf> {
    let file = std::fs::canonicalize(file).ok()?;
    let parent = file.parent()?;
    let folder = if parent.file_name()? == "subagents" {
        parent.parent()?.parent()?
    } else {
        parent
    };
    let store = folder.parent()?;
    let in_store = store.file_name().is_some_and(|n| n == "projects")
        || claude_roots
            .iter()
            .any(|r| std::fs::canonicalize(r).is_ok_and(|r| r == store));
    in_store.then(|| folder.to_path_buf())
}

/// Title each session by the `summary` whose leaf it holds, from the sessions' own records and
/// `siblings` (files read for their summaries only). Explicit titles (`custom-title`,
/// `ai-title`) still win. Files are taken in path order, the order of a scan of the store, so
/// that the summary that wins (the last) is the same one however the session was named.
pub(super) fn apply(
    sessions: &mut [SessionSummary],
    siblings: &[(PathBuf, Vec<(String, String)>)],
) {
    let mut files: Vec<(&Path, &[(String, String)])> = sessions
        .iter()
        .map(|s| (s.path(), s.leaf_titles.as_slice()))
        .chain(siblings.iter().map(|(p, t)| (p.as_path(), t.as_slice())))
        .collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    let mut leaf: HashMap<u64, String> = HashMap::new();
    for (_, titles) in files {
        for (uuid, title) in titles {
            leaf.insert(parse::hash64(uuid), title.clone());
        }
    }
    for s in sessions.iter_mut() {
        if !leaf.is_empty() && !s.title_is_explicit {
            // Several summaries may point into one file: the one whose leaf the file wrote
            // last titles it (it summarises the most), the same one on every run.
            if let Some(t) = s.record_uuids.iter().rev().find_map(|u| leaf.get(u)) {
                s.title = Some(preview(t, TITLE_MAX));
            }
        }
        s.record_uuids = Vec::new();
        s.leaf_titles = Vec::new();
    }
}
