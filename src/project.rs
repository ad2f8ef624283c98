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

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};
use walkdir::WalkDir;

use crate::model::ProjectSource;

/// sha256 hex of a path string, exactly as Gemini computes `projectHash` (no normalisation).
pub fn gemini_project_hash(path: &str) -> String {
    let digest = Sha256::digest(path.as_bytes());
    let mut s = String::with_capacity(64);
    for b in digest {
        use std::fmt::Write;
        let _ = write!(s, "{b:02x}");
    }
    s
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
}

/// How deep `--project-root` folders are searched for candidate project paths.
const CANDIDATE_DEPTH: usize = 3;

impl ProjectIndex {
    /// Load the Gemini registries of the given `.gemini` dirs.
    pub fn new(gemini_dirs: &[PathBuf]) -> Self {
        let mut idx = ProjectIndex::default();
        for dir in gemini_dirs {
            let Ok(text) = fs::read_to_string(dir.join("projects.json")) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if let Some(map) = v.get("projects").and_then(Value::as_object) {
                for (path, slug) in map {
                    if let Some(slug) = slug.as_str() {
                        idx.registry.insert(slug.to_string(), path.clone());
                        idx.add_candidate(path);
                    }
                }
            }
        }
        idx
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
    /// build folders) as candidates.
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
        for e in walk.flatten() {
            if e.file_type().is_dir()
                && let Some(s) = e.path().to_str()
            {
                self.add_candidate(s);
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
            let root = self
                .roots
                .entry(dir.to_path_buf())
                .or_insert_with(|| {
                    fs::read_to_string(dir.join(".project_root"))
                        .ok()
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                })
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
