//! Store discovery: where each agent keeps its sessions, and which files in there are sessions.
//!
//! Precedence per agent: command-line flag > `--home` > environment > the OS home. Discovery
//! only lists and classifies files (by path shape); it never opens them except to sniff the
//! format of a file named on the command line.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::diag::{Warning, WarningKind};
use crate::model::Agent;
use crate::parse::{FileRole, Sniffed, SourceFile, sniff_format};

mod stores;
mod walk;

pub use stores::{StoreOptions, Stores};

/// A file in a store that looks like a session but is not named as one (what discovery notes
/// for `--verbose`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misnamed {
    pub agent: Agent,
    /// The store root it was found under.
    pub root: PathBuf,
    pub path: PathBuf,
}

/// The result of walking the stores: the files to parse, plus what could not be walked.
#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<SourceFile>,
    pub warnings: Vec<Warning>,
    /// Files seen but not recognised as sessions of any agent (named paths only).
    pub unrecognised: Vec<PathBuf>,
    /// Files in a store that look like sessions (`.json`, `.jsonl`, `.jsonl.zst`) where the
    /// agent keeps them, but are not named as the agent names its sessions (a renamed rollout,
    /// a copied chat): not read, and said under `--verbose`. Known from the names the walk
    /// lists anyway: no file is opened for it.
    pub misnamed: Vec<Misnamed>,
    /// How many configured store roots of the agents walked exist on disk.
    pub roots_found: usize,
    /// Whether any agent's store exists, walked or not: with `--agent codex` on a machine that
    /// has only Claude Code, the stores are there and the filter selected none of their
    /// sessions, which is an empty result, not a machine without stores.
    pub any_store: bool,
    /// Gemini data dirs named as paths (a `.gemini` folder, a backup of one): read like a
    /// store, and their `projects.json` resolves projects as the store's does.
    pub gemini_dirs: Vec<PathBuf>,
    /// Folders read, each once however many paths lead to it: what the walk cost.
    pub dirs_read: usize,
}

impl Discovery {
    /// Walk every root of every agent in `agents`. A root that is not there is normal (the
    /// agent is not installed) unless the user named it; one that is there but cannot be
    /// reached (permissions, a symlink loop) is reported like any unreadable path.
    pub fn walk(stores: &Stores, agents: &[Agent]) -> Discovery {
        let mut d = Discovery::default();
        for (agent, path, source) in &stores.configured {
            if !agents.contains(agent) {
                continue;
            }
            if let Err(e) = std::fs::metadata(path)
                && e.kind() == std::io::ErrorKind::NotFound
            {
                d.warnings.push(Warning::new(
                    WarningKind::Unreadable,
                    path,
                    None,
                    format!("{source}: no such folder; no {agent} sessions read from it"),
                ));
            }
        }
        for &agent in agents {
            for root in stores.roots(agent) {
                match std::fs::metadata(root) {
                    Ok(m) if m.is_dir() => {}
                    Ok(m) => {
                        d.roots_found += 1;
                        d.warnings.push(Warning::new(
                            WarningKind::Unreadable,
                            root,
                            None,
                            format!(
                                "{agent} store is {}, not a folder",
                                crate::output::kind_of(&m.file_type())
                            ),
                        ));
                        continue;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => {
                        // There, but not reachable: it counts as found, and is reported.
                        d.roots_found += 1;
                        let w = unreachable_root(agent, root, &e);
                        if !d.warnings.contains(&w) {
                            d.warnings.push(w);
                        }
                        continue;
                    }
                }
                d.roots_found += 1;
                match agent {
                    Agent::Claude => d.walk_claude(root),
                    Agent::Codex => d.walk_codex(root),
                    Agent::Gemini => d.walk_gemini(root),
                }
            }
        }
        d.any_store = d.roots_found > 0
            || Agent::ALL
                .iter()
                .filter(|a| !agents.contains(a))
                .flat_map(|&a| stores.roots(a))
                .any(|root| std::fs::metadata(root).is_ok());
        d.drop_shadowed_zst();
        d
    }

    /// Scan files or folders named on the command line, detecting each file's format.
    pub fn walk_paths(paths: &[PathBuf], agents: &[Agent]) -> Discovery {
        let mut d = Discovery::default();
        for p in paths {
            if is_gemini_data_dir(p) {
                if agents.contains(&Agent::Gemini) {
                    d.gemini_dirs.push(p.clone());
                    d.walk_gemini(p);
                }
            } else if p.is_dir() {
                for e in d.files_under(p) {
                    d.add_sniffed(e.path(), agents, false);
                }
            } else if p.exists() {
                d.add_sniffed(p, agents, true);
            } else {
                d.warnings.push(Warning::new(
                    WarningKind::Unreadable,
                    p,
                    None,
                    "no such file or directory",
                ));
            }
        }
        d.drop_shadowed_zst();
        d
    }

    fn add_sniffed(&mut self, path: &Path, agents: &[Agent], named: bool) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        // A file in a named folder is judged by its name first, as in a store (the folder holds
        // other files too); a file the user named is judged by its content alone, whatever
        // its name (`x.txt`, `x.JSONL`, no extension).
        if !named && !looks_like_session(&name) {
            return;
        }
        // Files under a folder come from `files_under`, regular files only; a named path was
        // checked before the scan, but may have been swapped for a FIFO since.
        if let Some(w) = named.then(|| special_file(path)).flatten() {
            self.warnings.push(w);
            return;
        }
        let Some(Sniffed { agent, document }) = sniff_format(path) else {
            // A file that cannot be opened is unreadable, not "not a session".
            let opened = std::fs::metadata(path).and_then(|m| {
                if m.is_file() {
                    std::fs::File::open(path).map(drop)
                } else {
                    Ok(())
                }
            });
            match opened {
                Err(e) => self.warnings.push(Warning::new(
                    WarningKind::Unreadable,
                    path,
                    None,
                    format!("cannot read: {e}"),
                )),
                // In a named folder, JSON lines no agent's rule claims may still be a session
                // the rules miss: a warning, which `--strict` sees, rather than a note.
                Ok(()) if !named && starts_with_object(path) => self.warnings.push(Warning::new(
                    WarningKind::UnexpectedRecord,
                    path,
                    None,
                    "JSON of no supported agent's format: not read".to_string(),
                )),
                Ok(()) => self.unrecognised.push(path.to_path_buf()),
            }
            return;
        };
        if !agents.contains(&agent) {
            return;
        }
        // A Codex rollout is JSON lines or (TS era) one document, which its parser knows from
        // the role; a name that says neither leaves it to the content. (Gemini's parser tries
        // both forms itself.)
        let document = (!names_format(&name)).then_some(document);
        let role = classify_by_shape(agent, path, document);
        let project_dir = match role {
            // A saved chat lies in its project's temp folder (`tmp/<project>/checkpoint-*.json`,
            // as the store walk finds it): that folder holds the `.project_root`.
            FileRole::GeminiCheckpoint => path.parent().map(Path::to_path_buf),
            _ if agent == Agent::Gemini => gemini_project_dir(path),
            _ => None,
        };
        let mut f = SourceFile::new(agent, path.to_path_buf(), role);
        f.project_dir = project_dir;
        self.files.push(f);
    }

    fn walk_claude(&mut self, root: &Path) {
        for e in self.files_under(root) {
            let path = e.path();
            let name = e.file_name().to_string_lossy();
            if !name.ends_with(".jsonl") {
                continue;
            }
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let comps: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if comps.len() < 2 {
                // Claude Code writes its transcripts in a project's folder, never beside them.
                self.misnamed(Agent::Claude, root, path);
                continue;
            }
            let role = if comps.len() == 2 {
                if name.starts_with("agent-") {
                    FileRole::ClaudeSubagent {
                        parent_session: None,
                        meta: meta_sidecar(path),
                    }
                } else {
                    FileRole::ClaudeMain
                }
            } else if comps.len() >= 4 && comps[2] == "subagents" {
                FileRole::ClaudeSubagent {
                    parent_session: Some(comps[1].clone()),
                    meta: meta_sidecar(path),
                }
            } else {
                // Unknown deeper layout: still a transcript; let the parser decide.
                FileRole::ClaudeMain
            };
            let mut f = SourceFile::new(Agent::Claude, path.to_path_buf(), role);
            f.project_dir = Some(root.join(&comps[0]));
            self.files.push(f);
        }
    }

    fn walk_codex(&mut self, root: &Path) {
        for e in self.files_under(root) {
            let name = e.file_name().to_string_lossy();
            let role = if name.ends_with(".jsonl") || name.ends_with(".jsonl.zst") {
                FileRole::CodexRollout
            } else if name.ends_with(".json") {
                FileRole::CodexLegacyJson
            } else {
                continue;
            };
            if !name.starts_with("rollout-") {
                self.misnamed(Agent::Codex, root, e.path());
                continue;
            }
            self.files
                .push(SourceFile::new(Agent::Codex, e.path().to_path_buf(), role));
        }
    }

    fn walk_gemini(&mut self, data_dir: &Path) {
        let tmp = data_dir.join("tmp");
        let root = match std::fs::metadata(&tmp) {
            Ok(m) if m.is_dir() => tmp,
            // Where the sessions would be is taken: said as for the other agents' stores.
            Ok(m) => {
                self.warnings.push(Warning::new(
                    WarningKind::Unreadable,
                    &tmp,
                    None,
                    format!(
                        "{} store is {}, not a folder",
                        Agent::Gemini,
                        crate::output::kind_of(&m.file_type())
                    ),
                ));
                return;
            }
            // No `tmp`: the folder named is itself where the projects are.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => data_dir.to_path_buf(),
            // There but not reachable (a data dir that can be listed but not entered): walking
            // the data dir instead would only say the same of each of its folders.
            Err(e) => {
                self.warnings.push(Warning::new(
                    WarningKind::Unreadable,
                    &tmp,
                    None,
                    format!("cannot read: {e}"),
                ));
                return;
            }
        };
        for e in self.files_under(&root) {
            let path = e.path();
            let name = e.file_name().to_string_lossy();
            if is_temp_artifact(&name) || !(name.ends_with(".json") || name.ends_with(".jsonl")) {
                continue;
            }
            let Ok(rel) = path.strip_prefix(&root) else {
                continue;
            };
            let comps: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            // <project>/chats/session-*.json[l], <project>/chats/<parent>/<agent>.json[l],
            // <project>/checkpoint-*.json
            let role = match comps.as_slice() {
                [_, chats, _] if chats == "chats" && name.starts_with("session-") => {
                    FileRole::GeminiSession
                }
                [_, chats, parent, _] if chats == "chats" => FileRole::GeminiSubagent {
                    parent_session: parent.clone(),
                },
                [_, _] if name.starts_with("checkpoint-") && name.ends_with(".json") => {
                    FileRole::GeminiCheckpoint
                }
                // Gemini CLI writes nothing else in `chats/` (a project folder holds its own
                // `logs.json`, which is no session).
                [_, chats, _] if chats == "chats" => {
                    self.misnamed(Agent::Gemini, &root, path);
                    continue;
                }
                _ => continue,
            };
            let mut f = SourceFile::new(Agent::Gemini, path.to_path_buf(), role);
            f.project_dir = Some(root.join(&comps[0]));
            self.files.push(f);
        }
    }

    fn misnamed(&mut self, agent: Agent, root: &Path, path: &Path) {
        self.misnamed.push(Misnamed {
            agent,
            root: root.to_path_buf(),
            path: path.to_path_buf(),
        });
    }

    /// Every file below `root`, recursively. Symlinks are followed (stores are often
    /// symlinked), each folder and file once however many paths lead to it, and never into a
    /// kernel pseudo file system ([`walk`]); a loop or an unreadable entry becomes a warning
    /// instead of hanging or stopping the walk (walkdir detects cycles and yields an error for
    /// them).
    fn files_under(&mut self, root: &Path) -> Vec<walkdir::DirEntry> {
        let mut files = Vec::new();
        let mut walk = walk::Walk::new(root);
        for entry in walk.by_ref() {
            match entry {
                Ok(e) if e.file_type().is_file() => files.push(e),
                // A folder named like a session is walked like any other, but the session its
                // name promises is not there: said, so that `--strict` sees it.
                Ok(e) if e.file_type().is_dir() => {
                    if e.depth() > 0 && looks_like_session(&e.file_name().to_string_lossy()) {
                        self.warnings.push(Warning::new(
                            WarningKind::Unreadable,
                            e.path(),
                            None,
                            "a folder, not a regular file: not read as a session (the files in it are)".to_string(),
                        ));
                    }
                }
                // A FIFO, socket or device is never opened (reading one could block or never
                // end); one named like a session is reported as not read.
                Ok(e) => {
                    if looks_like_session(&e.file_name().to_string_lossy()) {
                        self.warnings.extend(special_file(e.path()));
                    }
                }
                Err(err) => self.warnings.push(walk_warning(root, err)),
            }
        }
        self.dirs_read += walk.dirs_read;
        self.warnings.append(&mut walk.warnings);
        files
    }

    /// `X.jsonl.zst` next to `X.jsonl` is the same rollout; the plain file wins.
    fn drop_shadowed_zst(&mut self) {
        let plain: HashSet<PathBuf> = self
            .files
            .iter()
            .filter(|f| f.path.extension() == Some(OsStr::new("jsonl")))
            .map(|f| f.path.clone())
            .collect();
        self.files.retain(|f| {
            f.path.extension() != Some(OsStr::new("zst"))
                || !plain.contains(&f.path.with_extension(""))
        });
        // The same file reached twice (overlapping roots or named paths): by its identity on
        // disk, known from discovery's own `stat`, else by its canonical path.
        let mut seen_ids = HashSet::new();
        let mut seen_paths = HashSet::new();
        self.files.retain(|f| match f.identity {
            Some(id) => seen_ids.insert(id),
            None => {
                seen_paths.insert(std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone()))
            }
        });
    }
}

/// The warning for a store root that exists but cannot be reached: names the folder at fault
/// (a symlink loop itself, or the folder that cannot be searched).
fn unreachable_root(agent: Agent, root: &Path, e: &std::io::Error) -> Warning {
    let is_loop = e.raw_os_error() == Some(40); // ELOOP
    // The shallowest ancestor that fails is the link loop; with permissions, it is the folder
    // just above it, which exists but cannot be searched.
    let mut culprit = root.to_path_buf();
    let mut last_ok: Option<&Path> = None;
    // (A relative root's last ancestor is the empty path: the current folder, always there.)
    let chain: Vec<&Path> = root
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .collect();
    for a in chain.into_iter().rev() {
        if std::fs::metadata(a).is_ok() {
            last_ok = Some(a);
            continue;
        }
        culprit = match (is_loop, last_ok) {
            (false, Some(ok)) if ok.parent().is_some() => ok.to_path_buf(),
            _ => a.to_path_buf(),
        };
        break;
    }
    if is_loop {
        Warning::new(
            WarningKind::SymlinkLoop,
            &culprit,
            None,
            format!("symlink loop; the {agent} sessions under it cannot be read"),
        )
    } else {
        Warning::new(
            WarningKind::Unreadable,
            &culprit,
            None,
            format!("cannot read the {agent} sessions under it: {e}"),
        )
    }
}

/// What a walk could not read (a folder, a loop), said alike for stores and `--project-root`.
pub(crate) fn walk_warning(root: &Path, err: walkdir::Error) -> Warning {
    let path = err.path().unwrap_or(root).to_path_buf();
    if err.loop_ancestor().is_some() {
        Warning::new(
            WarningKind::SymlinkLoop,
            &path,
            None,
            "symlink loop, not followed",
        )
    } else {
        let msg = match err.io_error() {
            Some(io) => format!("cannot read: {io}"),
            None => format!("cannot read: {err}"),
        };
        Warning::new(WarningKind::Unreadable, &path, None, msg)
    }
}

/// A Gemini CLI data dir (`~/.gemini` or a copy of one): a `tmp/` folder of projects beside its
/// `projects.json` registry, or under a folder named `.gemini`.
fn is_gemini_data_dir(p: &Path) -> bool {
    p.join("tmp").is_dir()
        && (p.file_name() == Some(OsStr::new(".gemini")) || p.join("projects.json").is_file())
}

/// Whether a file's first non-blank byte opens a JSON object (read through the same door as
/// every session file: regular files only, `.zst` decompressed).
fn starts_with_object(path: &Path) -> bool {
    use std::io::Read;
    let Ok(reader) = crate::parse::read::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if reader.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    head.trim_ascii_start().first() == Some(&b'{')
}

/// A name whose ending tells the parsers how the file is written: JSON lines or one document.
fn names_format(name: &str) -> bool {
    let name = name.strip_suffix(".zst").unwrap_or(name);
    name.ends_with(".jsonl") || name.ends_with(".json")
}

/// A name that a session file of some agent could have (what discovery sniffs).
fn looks_like_session(name: &str) -> bool {
    (name.ends_with(".jsonl") || name.ends_with(".json") || name.ends_with(".jsonl.zst"))
        && !is_temp_artifact(name)
        && !name.ends_with(".meta.json")
}

/// The warning for a path that exists but is neither a regular file nor a folder (a FIFO, a
/// socket, a device): it is not read.
fn special_file(path: &Path) -> Option<Warning> {
    let t = std::fs::metadata(path).ok()?.file_type();
    (!t.is_file() && !t.is_dir()).then(|| {
        Warning::new(
            WarningKind::Unreadable,
            path,
            None,
            format!(
                "{}, not a regular file: not read",
                crate::output::kind_of(&t)
            ),
        )
    })
}

/// Gemini writes `<file>.tmp-<pid>` while saving and keeps `<file>.unreadable-<ms>` copies of
/// files it failed to load; neither is a session.
fn is_temp_artifact(name: &str) -> bool {
    name.contains(".tmp-") || name.contains(".unreadable-")
}

fn meta_sidecar(jsonl: &Path) -> Option<PathBuf> {
    let stem = jsonl.file_name()?.to_string_lossy();
    let stem = stem.strip_suffix(".jsonl")?;
    let meta = jsonl.with_file_name(format!("{stem}.meta.json"));
    meta.is_file().then_some(meta)
}

/// Classify a sniffed file by its path shape (for files outside the standard roots), and by
/// whether it is one document (`document`) when its name does not say.
fn classify_by_shape(agent: Agent, path: &Path, document: Option<bool>) -> FileRole {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let parent_name = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    match agent {
        Agent::Claude => {
            let in_subagents = path.components().any(|c| c.as_os_str() == "subagents");
            if name.starts_with("agent-") || in_subagents {
                let parent_session = if in_subagents {
                    // <session>/subagents/[...]/agent-x.jsonl
                    let comps: Vec<_> = path.components().collect();
                    comps
                        .iter()
                        .position(|c| c.as_os_str() == "subagents")
                        .and_then(|i| i.checked_sub(1))
                        .map(|i| comps[i].as_os_str().to_string_lossy().into_owned())
                } else {
                    None
                };
                FileRole::ClaudeSubagent {
                    parent_session,
                    meta: meta_sidecar(path),
                }
            } else {
                FileRole::ClaudeMain
            }
        }
        Agent::Codex => {
            if document.unwrap_or_else(|| name.ends_with(".json")) {
                FileRole::CodexLegacyJson
            } else {
                FileRole::CodexRollout
            }
        }
        Agent::Gemini => {
            if name.starts_with("checkpoint-") {
                FileRole::GeminiCheckpoint
            } else if parent_name != "chats"
                && path
                    .parent()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == "chats")
            {
                FileRole::GeminiSubagent {
                    parent_session: parent_name,
                }
            } else {
                FileRole::GeminiSession
            }
        }
    }
}

/// For a Gemini chat file outside a configured root, the project temp dir if the path has the
/// `<project>/chats/...` shape.
fn gemini_project_dir(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .find(|a| a.file_name() == Some(OsStr::new("chats")))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// The start time encoded in a file name, when the format has one: Codex
/// `rollout-YYYY-MM-DDThh-mm-ss-…` (local time; returned as UTC with no offset applied, so
/// callers must allow a day of slack), Gemini `session-YYYY-MM-DDTHH-MM-…` (UTC).
pub fn start_from_name(path: &Path) -> Option<DateTime<Utc>> {
    let name = path.file_name()?.to_string_lossy();
    if let Some(rest) = name.strip_prefix("rollout-") {
        let stamp = rest.get(..19)?;
        return NaiveDateTime::parse_from_str(stamp, "%Y-%m-%dT%H-%M-%S")
            .ok()
            .map(|n| n.and_utc());
    }
    if let Some(rest) = name.strip_prefix("session-") {
        let stamp = rest.get(..16)?;
        return NaiveDateTime::parse_from_str(&format!("{stamp}-00"), "%Y-%m-%dT%H-%M-%S")
            .ok()
            .map(|n| n.and_utc());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_start_times() {
        let t = start_from_name(Path::new("rollout-2025-09-19T11-02-12-01996135.jsonl")).unwrap();
        assert_eq!(t.to_rfc3339(), "2025-09-19T11:02:12+00:00");
        let t = start_from_name(Path::new("session-2026-04-23T10-05-abcd1234.jsonl")).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-04-23T10:05:00+00:00");
        assert!(start_from_name(Path::new("abc.jsonl")).is_none());
    }

    /// The audit's store: 21 folders in one project, each with two links to the next (2^20
    /// paths to the one session at the end, no loop). Each folder is read once.
    #[cfg(unix)]
    #[test]
    fn a_symlink_dag_in_a_store_is_walked_once_per_folder() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join(".claude/projects/-p");
        let n = 20;
        for i in 0..=n {
            std::fs::create_dir_all(project.join(format!("d{i}"))).unwrap();
        }
        for i in 0..n {
            for link in ["x", "y"] {
                let to = format!("../d{}", i + 1);
                std::os::unix::fs::symlink(to, project.join(format!("d{i}/{link}"))).unwrap();
            }
        }
        std::fs::write(project.join(format!("d{n}/s.jsonl")), "").unwrap();
        let opts = StoreOptions {
            home: Some(home.path().into()),
            ..Default::default()
        };
        let stores = Stores::resolve(&opts, &|_| None);
        let d = Discovery::walk(&stores, &[Agent::Claude]);
        assert_eq!(d.files.len(), 1, "{:?}", d.files);
        // projects/, -p/ and d0 … d20.
        assert_eq!(d.dirs_read, 2 + n + 1);
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    }

    #[test]
    fn temp_artifacts_are_not_sessions() {
        assert!(is_temp_artifact("session-x.jsonl.tmp-123"));
        assert!(is_temp_artifact("session-x.json.unreadable-456"));
        assert!(!is_temp_artifact("session-x.jsonl"));
    }

    /// A `tmp` that is a file is a store that cannot be read, as a Codex `sessions` file is.
    #[test]
    fn a_gemini_tmp_that_is_a_file_is_reported() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
        std::fs::write(home.path().join(".gemini/tmp"), "").unwrap();
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        std::fs::write(home.path().join(".codex/sessions"), "").unwrap();
        let opts = StoreOptions {
            home: Some(home.path().into()),
            ..Default::default()
        };
        let stores = Stores::resolve(&opts, &|_| None);
        let d = Discovery::walk(&stores, &[Agent::Codex, Agent::Gemini]);
        let said: Vec<String> = d.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            said[0].contains("codex store is a regular file"),
            "{said:?}"
        );
        assert!(
            said[1].contains("gemini store is a regular file"),
            "{said:?}"
        );
        assert!(d.warnings.iter().all(|w| w.kind == WarningKind::Unreadable));
    }
}
