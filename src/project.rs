//! Which project a session belongs to.
//!
//! Claude and Codex record the working directory, so their project is the recorded `cwd`.
//! Gemini records only `projectHash` = sha256(project root path). Its project is recovered, in
//! order, from the `.project_root` marker in the project temp dir (v0.29+ slug layout), from
//! `~/.gemini/projects.json` (slug → path), and finally by hashing every path we know of (other
//! agents' working directories, the Gemini registry, `--project-root` folders and their
//! subfolders) and matching the hash. A Claude session none of whose records holds a `cwd` (a
//! file of summaries or snapshots only) takes the path whose encoding is its project folder's
//! name, when exactly one path we know of encodes so.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};
use walkdir::WalkDir;

use crate::diag::{Warning, WarningKind};
use crate::model::ProjectSource;

/// sha256 hex of a path string, exactly as Gemini computes `projectHash` (no normalisation).
pub fn gemini_project_hash(path: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    Sha256::digest(path.as_bytes())
        .iter()
        .flat_map(|b| [HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]])
        .map(char::from)
        .collect()
}

/// The name Claude Code gives a project's folder under `projects/`: every UTF-16 unit of the
/// path that is not an ASCII letter or digit becomes `-` (JavaScript's `replace` over code
/// units, so a character outside the BMP becomes two). Names past 200 characters are cut to 200
/// and given a hash suffix that differs between Claude Code's runtimes; the match keys on
/// their first 200 characters for that reason.
pub fn claude_folder_name(path: &str) -> String {
    path.chars()
        .flat_map(|c| {
            let keep = c.is_ascii_alphanumeric();
            let n = if keep { 1 } else { c.len_utf16() };
            std::iter::repeat_n(if keep { c } else { '-' }, n)
        })
        .collect()
}

/// Claude Code cuts a folder name to this many characters before it appends a hash.
const FOLDER_NAME_MAX: usize = 200;

/// What two folder names must share to name one project: all of a short name, the first 200
/// characters of a long one (whose hash suffix cannot be recomputed).
fn folder_key(name: &str) -> &str {
    if name.len() > FOLDER_NAME_MAX && name.is_char_boundary(FOLDER_NAME_MAX) {
        &name[..FOLDER_NAME_MAX]
    } else {
        name
    }
}

/// Everything project resolution knows, built once per scan.
#[derive(Debug, Default)]
pub struct ProjectIndex {
    /// `projects.json` registries: slug → path.
    registry: HashMap<String, String>,
    /// sha256(path) → path, for every candidate path.
    by_hash: HashMap<String, String>,
    /// `.project_root` contents, per project temp dir (cached).
    roots: HashMap<PathBuf, Option<String>>,
    /// Claude folder key → the candidate paths that encode to it.
    by_folder: HashMap<String, Vec<String>>,
    /// Registries and markers that are there but could not be read, each once: the projects
    /// they would have resolved are `unresolved`, which alone would not say why.
    warnings: Vec<Warning>,
}

/// How deep `--project-root` folders are searched for candidate project paths.
const CANDIDATE_DEPTH: usize = 3;

impl ProjectIndex {
    /// Load the Gemini registries of the given `.gemini` dirs. One that is not there is
    /// normal (Gemini CLI writes it only from v0.29); one that cannot be read or parsed is a
    /// warning ([`ProjectIndex::take_warnings`]).
    pub fn new(gemini_dirs: &[PathBuf]) -> Self {
        let mut idx = ProjectIndex::default();
        // A store can also be named as a path: its registry is read (and reported) once.
        let mut seen = HashSet::new();
        for dir in gemini_dirs {
            if !seen.insert(fs::canonicalize(dir).unwrap_or_else(|_| dir.clone())) {
                continue;
            }
            let file = dir.join("projects.json");
            let bytes = match read_optional(&file) {
                Ok(Some(bytes)) => bytes,
                Ok(None) => continue,
                Err(w) => {
                    idx.warnings.push(w);
                    continue;
                }
            };
            let v = match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => v,
                Err(e) => {
                    idx.warnings.push(Warning::new(
                        WarningKind::MalformedDocument,
                        &file,
                        None,
                        format!("not valid JSON ({e}): no project path read from it"),
                    ));
                    continue;
                }
            };
            let Some(map) = v.get("projects").and_then(Value::as_object) else {
                idx.warnings.push(Warning::new(
                    WarningKind::UnexpectedRecord,
                    &file,
                    None,
                    "no `projects` object: no project path read from it",
                ));
                continue;
            };
            let mut unread = 0usize;
            for (path, slug) in map {
                match slug.as_str() {
                    Some(slug) => {
                        idx.registry.insert(slug.to_string(), path.clone());
                        idx.add_candidate(path);
                    }
                    None => unread += 1,
                }
            }
            if unread > 0 {
                idx.warnings.push(Warning::new(
                    WarningKind::UnexpectedRecord,
                    &file,
                    None,
                    format!(
                        "{} whose slug is not a string: not read",
                        crate::render::plural(unread, "project")
                    ),
                ));
            }
        }
        idx
    }

    /// What could not be read of the registries and the `.project_root` markers so far, each
    /// file once per index.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    pub fn add_candidate(&mut self, path: &str) {
        if path.is_empty() {
            return;
        }
        self.by_hash
            .entry(gemini_project_hash(path))
            .or_insert_with(|| path.to_string());
        let name = claude_folder_name(path);
        let paths = self
            .by_folder
            .entry(folder_key(&name).to_string())
            .or_default();
        if !paths.iter().any(|p| p == path) {
            paths.push(path.to_string());
        }
    }

    /// Resolve a Claude session that recorded no `cwd` from its project folder's name:
    /// `(path, FolderMatch)` when exactly one candidate path encodes to it.
    pub fn resolve_claude_folder(
        &self,
        project_dir: Option<&Path>,
    ) -> (Option<String>, ProjectSource) {
        let name = project_dir
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy());
        match name
            .and_then(|n| self.by_folder.get(folder_key(&n)))
            .map(Vec::as_slice)
        {
            Some([path]) => (Some(path.clone()), ProjectSource::FolderMatch),
            _ => (None, ProjectSource::Unresolved),
        }
    }

    /// Add a `--project-root` folder and its subfolders (a few levels, skipping hidden and
    /// build folders) as candidates. A folder that cannot be read is a warning, as in the walk
    /// of a store: the projects below it would otherwise stay unresolved without a word.
    pub fn add_candidate_tree(&mut self, root: &Path) {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let walk = WalkDir::new(&root)
            .max_depth(CANDIDATE_DEPTH)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0 || {
                    let n = e.file_name().to_string_lossy();
                    !n.starts_with('.') && n != "node_modules" && n != "target"
                }
            });
        for e in walk {
            match e {
                Ok(e) => {
                    if e.file_type().is_dir()
                        && let Some(s) = e.path().to_str()
                    {
                        self.add_candidate(s);
                    }
                }
                Err(err) => {
                    let w = crate::discover::walk_warning(&root, err);
                    // A root named twice is walked twice, and said once.
                    if !self.warnings.contains(&w) {
                        self.warnings.push(w);
                    }
                }
            }
        }
    }

    /// Resolve a Gemini session's project: `(path, source)`.
    pub fn resolve_gemini(
        &mut self,
        project_dir: Option<&Path>,
        project_hash: Option<&str>,
    ) -> (Option<String>, ProjectSource) {
        if let Some(dir) = project_dir {
            let warnings = &mut self.warnings;
            let root = self
                .roots
                .entry(dir.to_path_buf())
                .or_insert_with(|| read_marker(dir, warnings))
                .clone();
            if let Some(root) = root {
                return (Some(root), ProjectSource::ProjectRoot);
            }
            if let Some(slug) = dir.file_name().map(|n| n.to_string_lossy())
                && let Some(path) = self.registry.get(slug.as_ref())
            {
                return (Some(path.clone()), ProjectSource::ProjectsJson);
            }
        }
        if let Some(hash) = project_hash
            && let Some(path) = self.by_hash.get(&hash.to_ascii_lowercase())
        {
            return (Some(path.clone()), ProjectSource::HashMatch);
        }
        (None, ProjectSource::Unresolved)
    }
}

/// A file that may be absent: `None` when it is not there, a warning when it is there but
/// cannot be read (read like a session file: a FIFO or a device is never opened).
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, Warning> {
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => crate::parse::read::read_all(path).map(Some),
    }
}

/// The project path a Gemini project temp dir's `.project_root` marker holds, if any.
fn read_marker(dir: &Path, warnings: &mut Vec<Warning>) -> Option<String> {
    let file = dir.join(".project_root");
    let bytes = read_optional(&file).map_err(|w| warnings.push(w)).ok()??;
    match String::from_utf8(bytes) {
        Ok(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Err(_) => {
            warnings.push(Warning::new(
                WarningKind::MalformedDocument,
                &file,
                None,
                "not UTF-8 text: no project path read from it",
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_gemini() {
        // printf '%s' /home/dev/webapp | sha256sum
        assert_eq!(
            gemini_project_hash("/home/dev/webapp"),
            "fd20db9cf4309815aebd3729173edf8a78abb152c57b1de8cb602a3c8b959627"
        );
    }

    #[test]
    fn resolution_order() {
        let dir = tempfile::tempdir().unwrap();
        let gem = dir.path().join(".gemini");
        let slug_with_root = gem.join("tmp/api-server");
        let slug_registered = gem.join("tmp/ml");
        let hash_dir = gem.join("tmp/abc");
        for d in [&slug_with_root, &slug_registered, &hash_dir] {
            fs::create_dir_all(d).unwrap();
        }
        fs::write(
            slug_with_root.join(".project_root"),
            "/home/dev/api-server\n",
        )
        .unwrap();
        fs::write(
            gem.join("projects.json"),
            r#"{"projects": {"/home/dev/ml": "ml", "/home/dev/api-server": "api-server"}}"#,
        )
        .unwrap();
        let mut idx = ProjectIndex::new(std::slice::from_ref(&gem));
        assert_eq!(
            idx.resolve_gemini(Some(&slug_with_root), None),
            (
                Some("/home/dev/api-server".into()),
                ProjectSource::ProjectRoot
            )
        );
        assert_eq!(
            idx.resolve_gemini(Some(&slug_registered), None),
            (Some("/home/dev/ml".into()), ProjectSource::ProjectsJson)
        );
        let h = gemini_project_hash("/home/dev/webapp");
        assert_eq!(
            idx.resolve_gemini(Some(&hash_dir), Some(&h)),
            (None, ProjectSource::Unresolved)
        );
        idx.add_candidate("/home/dev/webapp");
        assert_eq!(
            idx.resolve_gemini(Some(&hash_dir), Some(&h)),
            (Some("/home/dev/webapp".into()), ProjectSource::HashMatch)
        );
        // A folder without a marker (the hash layout) is normal: nothing to say.
        assert_eq!(idx.take_warnings(), []);
    }

    /// What is there but cannot be read is said, each file once however often it is asked
    /// for; what is not there is normal (an old Gemini CLI, a hash-named folder).
    #[test]
    fn registries_and_markers_that_cannot_be_read_are_said_once() {
        let dir = tempfile::tempdir().unwrap();
        let gem = dir.path().join(".gemini");
        let (ml, api, bad) = (gem.join("tmp/ml"), gem.join("tmp/api"), gem.join("tmp/bad"));
        for d in [&ml, &api, &bad] {
            fs::create_dir_all(d).unwrap();
        }
        // Cut short as a crash or a copy mid-write leaves it.
        fs::write(
            gem.join("projects.json"),
            r#"{"projects": {"/home/dev/ml": "ml"#,
        )
        .unwrap();
        fs::create_dir(api.join(".project_root")).unwrap();
        fs::write(bad.join(".project_root"), b"/home/\xff\n").unwrap();
        // The same store twice (a store also named as a path): its registry is read once.
        let mut idx = ProjectIndex::new(&[gem.clone(), gem.clone()]);
        for d in [&ml, &api, &bad, &api] {
            assert_eq!(
                idx.resolve_gemini(Some(d), None),
                (None, ProjectSource::Unresolved)
            );
        }
        let said: Vec<_> = idx
            .take_warnings()
            .into_iter()
            .map(|w| (w.kind, w.path))
            .collect();
        assert_eq!(
            said,
            [
                (WarningKind::MalformedDocument, gem.join("projects.json")),
                (WarningKind::Unreadable, api.join(".project_root")),
                (WarningKind::MalformedDocument, bad.join(".project_root")),
            ]
        );
        let mut idx = ProjectIndex::new(&[dir.path().join("no-gemini")]);
        idx.resolve_gemini(Some(&ml), None);
        assert_eq!(idx.take_warnings(), []);
    }

    #[test]
    fn a_registry_of_another_shape_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let gem = dir.path().join(".gemini");
        fs::create_dir_all(gem.join("tmp/a")).unwrap();
        fs::write(gem.join("projects.json"), r#"{"projects": ["/a"]}"#).unwrap();
        let warnings = ProjectIndex::new(std::slice::from_ref(&gem)).take_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].kind, WarningKind::UnexpectedRecord);
        // The entries that can be read are, and the others are counted.
        fs::write(
            gem.join("projects.json"),
            r#"{"projects": {"/a": "a", "/b": 2, "/c": null}}"#,
        )
        .unwrap();
        let mut idx = ProjectIndex::new(std::slice::from_ref(&gem));
        assert_eq!(
            idx.resolve_gemini(Some(&gem.join("tmp/a")), None),
            (Some("/a".into()), ProjectSource::ProjectsJson)
        );
        let said: Vec<String> = idx.take_warnings().into_iter().map(|w| w.message).collect();
        assert_eq!(said, ["2 projects whose slug is not a string: not read"]);
    }

    /// A FIFO in place of the registry or a marker is never opened: opening one blocks until
    /// something writes to it.
    #[cfg(unix)]
    #[test]
    fn a_fifo_registry_or_marker_is_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let gem = dir.path().join(".gemini");
        let project = gem.join("tmp/p");
        fs::create_dir_all(&project).unwrap();
        for fifo in [gem.join("projects.json"), project.join(".project_root")] {
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut idx = ProjectIndex::new(std::slice::from_ref(&gem));
            idx.resolve_gemini(Some(&project), None);
            let _ = tx.send(idx.take_warnings());
        });
        let warnings = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a FIFO was opened");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings.iter().all(|w| w.kind == WarningKind::Unreadable));
    }

    #[test]
    fn candidate_trees_include_subfolders() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("work/proj");
        fs::create_dir_all(&sub).unwrap();
        let mut idx = ProjectIndex::new(&[]);
        idx.add_candidate_tree(dir.path());
        let canon = fs::canonicalize(&sub).unwrap();
        let h = gemini_project_hash(canon.to_str().unwrap());
        assert_eq!(
            idx.resolve_gemini(None, Some(&h)).1,
            ProjectSource::HashMatch
        );
    }

    #[test]
    fn claude_folder_names_encode_like_claude_code() {
        // The spec's examples, and a character outside the BMP (two UTF-16 units).
        assert_eq!(claude_folder_name("/Users/foo/my.app"), "-Users-foo-my-app");
        assert_eq!(claude_folder_name("C:\\work"), "C--work");
        assert_eq!(claude_folder_name("/a/.b"), "-a--b");
        assert_eq!(claude_folder_name("/é/𝄞"), "-----");
    }

    #[test]
    fn a_claude_folder_takes_the_one_path_that_encodes_to_its_name() {
        let mut idx = ProjectIndex::default();
        idx.add_candidate("/home/dev/webapp");
        idx.add_candidate("/home/dev/a-b");
        idx.add_candidate("/home/dev/a/b");
        let long = format!("/home/{}", "x".repeat(250));
        idx.add_candidate(&long);
        let dir = |name: &str| PathBuf::from("/c/projects").join(name);
        assert_eq!(
            idx.resolve_claude_folder(Some(&dir("-home-dev-webapp"))),
            (Some("/home/dev/webapp".into()), ProjectSource::FolderMatch)
        );
        // Two paths encode alike: neither is chosen.
        assert_eq!(
            idx.resolve_claude_folder(Some(&dir("-home-dev-a-b"))),
            (None, ProjectSource::Unresolved)
        );
        assert_eq!(
            idx.resolve_claude_folder(Some(&dir("-home-dev-other"))),
            (None, ProjectSource::Unresolved)
        );
        // A long name is cut at 200 characters and given a hash suffix of its own.
        let cut = format!("{}-1x2y3z", &claude_folder_name(&long)[..200]);
        assert_eq!(
            idx.resolve_claude_folder(Some(&dir(&cut))),
            (Some(long), ProjectSource::FolderMatch)
        );
        assert_eq!(
            idx.resolve_claude_folder(None),
            (None, ProjectSource::Unresolved)
        );
    }
}
