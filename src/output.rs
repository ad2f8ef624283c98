//! The one door out: every file `sessions` writes (exports, extracted images, plots) goes
//! through a [`Guard`].
//!
//! The tool is forensic and read-only towards what it reads, so a guard knows the agents'
//! stores, the folders and the session files being read, and before any write it:
//! - resolves the target (relative parts, `..`, every symbolic link of the part that exists),
//!   and writes to the resolved path;
//! - refuses a target inside a store, an agent's folder or a folder being read, known by path
//!   or by the device and inode of the folders on the way (a bind mount, a case-insensitive
//!   volume); or that is a file being read (also through another hard link);
//! - refuses to replace a file that holds an agent's session ([`crate::parse::holds_session`],
//!   the test the scan uses) or an agent's own file (`~/.claude.json`), even with `--force`;
//! - refuses to replace anything but a regular file, and a regular file without `--force`;
//! - writes to a temporary name in the target's folder and renames it into place, so a failed
//!   write never leaves half a file and never truncates the previous one;
//! - lets a run write a file before its name is settled ([`Guard::stage`], for `export --all`):
//!   it is renamed into place later, checked like any write ([`Guard::place`]), or removed;
//!   the folders a run made for its output go again if it ends without writing into them.
//!
//! Commands ask the guard for a write; they never open files for writing themselves (a test in
//! `tests/read_only.rs` checks the source for it).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::discover::Stores;
use crate::model::Agent;

/// Why a write was refused or failed.
#[derive(Debug)]
pub enum Refusal {
    /// Inside a store or a folder being read.
    Inside { root: PathBuf, what: String },
    /// The target is a file being read.
    ReadFile,
    /// A regular file is there and `--force` was not given.
    Exists,
    /// The file there is an agent's session (even outside any store): never replaced.
    Session(Agent),
    /// The file there is an agent's own (`~/.claude.json`): never replaced.
    AgentFile(String),
    /// Something other than a regular file is there (a folder, a device, a FIFO, …).
    NotRegular(&'static str),
    /// The target, or a folder on its way, is a symbolic link to nothing (or a loop).
    BadLink(io::Error),
    /// The write itself failed (permissions, a full disk, …).
    Io(io::Error),
}

/// A refused or failed write of one path.
#[derive(Debug)]
pub struct OutputError {
    pub path: PathBuf,
    pub refusal: Refusal,
}

impl OutputError {
    pub fn new(path: &Path, refusal: Refusal) -> Self {
        OutputError {
            path: path.to_path_buf(),
            refusal,
        }
    }

    /// Only "already exists": `--force` would make the write go through.
    pub fn is_exists(&self) -> bool {
        matches!(self.refusal, Refusal::Exists)
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Paths come from the command line and from folder names: shown, never sent.
        let p = safe_path(&self.path);
        match &self.refusal {
            Refusal::Inside { root, what } => write!(
                f,
                "refusing to write {p}: it is inside {what} {}; sessions never writes where it \
                 reads (choose another output path)",
                safe_path(root)
            ),
            Refusal::ReadFile => write!(
                f,
                "refusing to write {p}: it is a file being read (choose another output \
                 path)"
            ),
            Refusal::Exists => write!(f, "{p} already exists; use --force to overwrite"),
            Refusal::Session(agent) => write!(
                f,
                "refusing to write {p}: it is a {agent} session file; sessions never replaces a \
                 session, even with --force (choose another output path)"
            ),
            Refusal::AgentFile(what) => write!(
                f,
                "refusing to write {p}: it is {what}; sessions never replaces an agent's own \
                 files, even with --force (choose another output path)"
            ),
            Refusal::NotRegular(kind) => write!(
                f,
                "refusing to write {p}: it is {kind}; only regular files are ever replaced"
            ),
            Refusal::BadLink(e) => write!(
                f,
                "refusing to write {p}: a symbolic link on the way cannot be followed ({e})"
            ),
            Refusal::Io(e) => write!(f, "cannot write {p}: {e}"),
        }
    }
}

impl std::error::Error for OutputError {}

/// A path for a human message: every control character (a newline too) and bidirectional
/// override shown as a visible escape, as session text is ([`crate::render::text`]).
pub fn safe_path(p: &Path) -> String {
    crate::render::text::safe_one_line(&p.display().to_string()).into_owned()
}

/// What nothing may be written into or over, and whether regular files may be replaced.
#[derive(Debug, Default)]
pub struct Guard {
    /// Resolved folders (stores, folders being read), with what they are, for messages.
    dirs: Vec<Protected>,
    /// Resolved files being read.
    files: HashSet<PathBuf>,
    /// Device and inode of the files being read: another hard link is the same file.
    inodes: HashSet<(u64, u64)>,
    /// An agent's own files outside its folders (`~/.claude.json`), resolved.
    agent_files: Vec<Protected>,
    force: bool,
}

/// A protected folder or file: its resolved path, what it is (for messages), and its device
/// and inode when it exists. A path names it one way; the same folder is also reached through
/// a bind mount, or another spelling on a case-insensitive volume (`~/.CLAUDE`), which only
/// its identity tells.
#[derive(Debug)]
struct Protected {
    path: PathBuf,
    what: String,
    id: Option<(u64, u64)>,
}

impl Protected {
    fn new(path: PathBuf, what: &str) -> Self {
        let id = fs::metadata(&path)
            .ok()
            .and_then(|m| crate::parse::identity(&m));
        Protected {
            path,
            what: what.to_string(),
            id,
        }
    }
}

/// Folder names that are an agent's own folder (`~/.claude`, `~/.config/claude`, …).
const AGENT_DIRS: &[&str] = &[".claude", ".codex", ".gemini"];

impl Guard {
    /// A guard that protects nothing yet; `force` allows replacing regular files.
    pub fn new(force: bool) -> Guard {
        Guard {
            force,
            ..Default::default()
        }
    }

    pub fn force(&self) -> bool {
        self.force
    }

    /// Protect every store root, the agent's own folder around it (`.claude` around
    /// `.claude/projects`, `.codex` around `.codex/sessions`), the agents' folders the stores
    /// came from whatever their names (`--claude-dir`, `CODEX_HOME`, …) and the agents' own
    /// files beside them (`~/.claude.json`).
    pub fn protect_stores(&mut self, stores: &Stores) {
        for agent in Agent::ALL {
            for root in stores.roots(agent) {
                let what = format!("the {agent} store");
                self.protect_dir(root, &what);
                if let Some(parent) = agent_home(agent, root) {
                    self.protect_dir(parent, &what);
                }
            }
        }
        for (agent, home) in &stores.homes {
            self.protect_dir(home, &format!("the {agent} folder"));
        }
        for (agent, file) in &stores.agent_files {
            self.protect_agent_file(file, &format!("a {agent} file"));
        }
    }

    /// Protect a file of an agent's own: never replaced, even with `--force`.
    pub fn protect_agent_file(&mut self, file: &Path, what: &str) {
        let r = resolve(file).unwrap_or_else(|_| lexical(file));
        if !self.agent_files.iter().any(|f| f.path == r) {
            self.agent_files.push(Protected::new(r, what));
        }
    }

    /// Protect a folder: nothing is written anywhere below it.
    pub fn protect_dir(&mut self, dir: &Path, what: &str) {
        let r = resolve(dir).unwrap_or_else(|_| lexical(dir));
        self.protect_resolved_dir(r, what);
    }

    fn protect_resolved_dir(&mut self, r: PathBuf, what: &str) {
        if !self.dirs.iter().any(|d| d.path == r) {
            self.dirs.push(Protected::new(r, what));
        }
    }

    /// Protect something being read: a folder (nothing below it is written), or a file (never
    /// replaced, through any name). An agent folder (`.claude`, `.codex`, `.gemini`) around it
    /// is a store given on the command line, and is protected whole.
    pub fn protect_read(&mut self, path: &Path) {
        let r = resolve(path).unwrap_or_else(|_| lexical(path));
        if let Some(home) = r.ancestors().find(|a| {
            a.file_name()
                .and_then(OsStr::to_str)
                .is_some_and(|n| AGENT_DIRS.contains(&n))
        }) {
            // Already resolved, as an ancestor of a resolved path.
            let home = home.to_path_buf();
            self.protect_resolved_dir(home, "the agent folder");
        }
        match fs::metadata(&r) {
            Ok(m) if m.is_dir() => self.protect_resolved_dir(r, "the folder being read"),
            Ok(m) => {
                if let Some(id) = crate::parse::identity(&m) {
                    self.inodes.insert(id);
                }
                self.files.insert(r);
            }
            Err(_) => {
                self.files.insert(r);
            }
        }
    }

    /// Decide whether `target` may be written, without writing. Returns the resolved path the
    /// write would replace.
    pub fn check(&self, target: &Path) -> Result<PathBuf, OutputError> {
        let err = |r| OutputError::new(target, r);
        let r = resolve(target).map_err(|e| err(link_or_io(e)))?;
        self.check_location(target, &r)?;
        if self.files.contains(&r) {
            return Err(err(Refusal::ReadFile));
        }
        if let Some(f) = self.agent_files.iter().find(|f| f.path == r) {
            return Err(err(Refusal::AgentFile(f.what.clone())));
        }
        match fs::metadata(&r) {
            Ok(m) if m.is_file() => {
                let id = crate::parse::identity(&m);
                if id.is_some_and(|id| self.inodes.contains(&id)) {
                    return Err(err(Refusal::ReadFile));
                }
                if let Some(f) = self
                    .agent_files
                    .iter()
                    .find(|f| f.id.is_some() && f.id == id)
                {
                    return Err(err(Refusal::AgentFile(f.what.clone())));
                }
                if let Some(agent) = crate::parse::holds_session(&r) {
                    return Err(err(Refusal::Session(agent)));
                }
                if !self.force {
                    return Err(err(Refusal::Exists));
                }
            }
            Ok(m) => return Err(err(Refusal::NotRegular(kind_of(&m.file_type())))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(Refusal::Io(e))),
        }
        Ok(r)
    }

    /// Decide whether a folder may be created (or written into, if it exists).
    pub fn check_dir(&self, dir: &Path) -> Result<PathBuf, OutputError> {
        let err = |r| OutputError::new(dir, r);
        let r = resolve(dir).map_err(|e| err(link_or_io(e)))?;
        self.check_location(dir, &r)?;
        match fs::metadata(&r) {
            Ok(m) if m.is_dir() => Ok(r),
            Ok(m) => Err(err(Refusal::NotRegular(kind_of(&m.file_type())))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(r),
            Err(e) => Err(err(Refusal::Io(e))),
        }
    }

    fn check_location(&self, target: &Path, resolved: &Path) -> Result<(), OutputError> {
        // The deepest protected folder is the most telling one to name.
        let inside = self
            .dirs
            .iter()
            .filter(|d| resolved.starts_with(&d.path))
            .max_by_key(|d| d.path.components().count())
            .or_else(|| self.inside_by_identity(resolved));
        match inside {
            Some(d) => Err(OutputError::new(
                target,
                Refusal::Inside {
                    root: d.path.clone(),
                    what: d.what.clone(),
                },
            )),
            None => Ok(()),
        }
    }

    /// The protected folder that is one of the existing folders on the way to `resolved`
    /// under another name: a bind mount of it, or another spelling of its name on a
    /// case-insensitive volume. The deepest such folder is the first met.
    fn inside_by_identity(&self, resolved: &Path) -> Option<&Protected> {
        if self.dirs.iter().all(|d| d.id.is_none()) {
            return None;
        }
        resolved
            .ancestors()
            .filter_map(|a| fs::metadata(a).ok())
            .filter(fs::Metadata::is_dir)
            .filter_map(|m| crate::parse::identity(&m))
            .find_map(|id| self.dirs.iter().find(|d| d.id == Some(id)))
    }

    /// Create a folder (and its parents) for a run's output, after checking it. The folders
    /// this created are removed again when the returned [`OutputDir`] is dropped while empty:
    /// a run that fails before writing anything leaves no trace.
    pub fn output_dir(&self, dir: &Path) -> Result<OutputDir, OutputError> {
        let r = self.check_dir(dir)?;
        let made: Vec<PathBuf> = r
            .ancestors()
            .take_while(|a| fs::symlink_metadata(a).is_err())
            .map(Path::to_path_buf)
            .collect();
        fs::create_dir_all(&r).map_err(|e| OutputError::new(dir, Refusal::Io(e)))?;
        Ok(OutputDir { path: r, made })
    }

    /// Create a folder (and its parents) after checking it.
    pub fn create_dir_all(&self, dir: &Path) -> Result<PathBuf, OutputError> {
        let r = self.check_dir(dir)?;
        fs::create_dir_all(&r).map_err(|e| OutputError::new(dir, Refusal::Io(e)))?;
        Ok(r)
    }

    /// Write `target` through a temporary file in its folder, renamed into place when `f`
    /// succeeds. The folder is created if needed.
    pub fn write<T>(
        &self,
        target: &Path,
        f: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> Result<T, OutputError> {
        let r = self.check(target)?;
        let parent = r.parent().unwrap_or(Path::new("/"));
        fs::create_dir_all(parent).map_err(|e| OutputError::new(target, Refusal::Io(e)))?;
        let (staged, value) =
            Self::stage_at(&r, f).map_err(|e| OutputError::new(target, Refusal::Io(e)))?;
        self.put(staged, target, &r)?;
        Ok(value)
    }

    /// Write a file whose name is not known yet: into a new temporary file in `dir` (resolved,
    /// as [`Guard::output_dir`] returned it), which [`Guard::place`] later renames to its name.
    /// A [`Staged`] file never placed is removed when dropped.
    pub fn stage<T>(
        &self,
        dir: &Path,
        f: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> Result<(Staged, T), OutputError> {
        self.check_location(dir, dir)?;
        Self::stage_at(&dir.join("staged"), f).map_err(|e| OutputError::new(dir, Refusal::Io(e)))
    }

    /// Put a staged file at `target`, checked like any write (see [`Guard::write`]).
    pub fn place(&self, staged: Staged, target: &Path) -> Result<(), OutputError> {
        let r = self.check(target)?;
        self.put(staged, target, &r)
    }

    fn stage_at<T>(
        resolved: &Path,
        f: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> Result<(Staged, T), io::Error> {
        let (tmp, file) = temp_file(resolved)?;
        let staged = Staged { tmp: Some(tmp) };
        let mut w = BufWriter::with_capacity(256 * 1024, file);
        let value = f(&mut w).and_then(|v| w.flush().map(|_| v))?;
        Ok((staged, value))
    }

    /// Rename `staged` to the checked target `r`, checking again at the last moment:
    /// something may have appeared there meanwhile.
    fn put(&self, mut staged: Staged, target: &Path, r: &Path) -> Result<(), OutputError> {
        let tmp = staged.tmp.take().unwrap_or_default();
        let remove = |e: OutputError| {
            let _ = fs::remove_file(&tmp);
            e
        };
        let kept = match fs::symlink_metadata(r) {
            Ok(m) if !m.file_type().is_file() => {
                return Err(remove(OutputError::new(
                    target,
                    Refusal::NotRegular(kind_of(&m.file_type())),
                )));
            }
            Ok(_) if !self.force => return Err(remove(OutputError::new(target, Refusal::Exists))),
            // Keep the permissions of a file being replaced.
            Ok(m) => {
                let _ = fs::set_permissions(&tmp, m.permissions());
                Some(m.permissions())
            }
            Err(_) => None,
        };
        match fs::rename(&tmp, r) {
            // Staged in an output folder, bound for a file another file system holds (a link
            // there, replaced with --force): copied beside it first, so that the file is still
            // replaced by one rename.
            Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
                let moved = move_beside(&tmp, r, kept);
                let _ = fs::remove_file(&tmp);
                moved.map_err(|e| OutputError::new(target, Refusal::Io(e)))
            }
            done => done.map_err(|e| remove(OutputError::new(target, Refusal::Io(e)))),
        }
    }

    /// Write bytes to `target` (see [`Guard::write`]).
    pub fn write_bytes(&self, target: &Path, bytes: &[u8]) -> Result<(), OutputError> {
        self.write(target, |w| w.write_all(bytes))
    }

    /// Undo what a run that failed half way wrote into a folder it made: the regular files of
    /// `dir` whose names `own` recognises (the names the run gives), then `dir` if nothing else
    /// is left in it. Best effort: what cannot be removed stays.
    pub fn take_back(&self, dir: &Path, own: impl Fn(&str) -> bool) {
        for e in fs::read_dir(dir).into_iter().flatten().flatten() {
            let is_own = e.file_name().to_str().is_some_and(&own);
            if is_own && e.file_type().is_ok_and(|t| t.is_file()) {
                let _ = fs::remove_file(e.path());
            }
        }
        let _ = fs::remove_dir(dir);
    }
}

/// `.claude` around `.claude/projects`, `.codex` around `.codex/sessions`: the agent's own
/// folder, when the root has the standard shape.
fn agent_home(agent: Agent, root: &Path) -> Option<&Path> {
    let name = root.file_name()?.to_str()?;
    let parent = root.parent()?;
    let pn = parent.file_name()?.to_str()?;
    let shaped = match agent {
        Agent::Claude => name == "projects" && matches!(pn, ".claude" | "claude"),
        Agent::Codex => {
            matches!(name, "sessions" | "archived_sessions") && matches!(pn, ".codex" | "codex")
        }
        Agent::Gemini => false,
    };
    shaped.then_some(parent)
}

fn link_or_io(e: io::Error) -> Refusal {
    // Resolution only fails on a link that leads nowhere, a loop, or an unreadable folder.
    match e.kind() {
        io::ErrorKind::NotFound => Refusal::BadLink(e),
        _ if e.raw_os_error() == Some(40) => Refusal::BadLink(e), // ELOOP
        _ => Refusal::Io(e),
    }
}

/// A folder made ready by [`Guard::output_dir`].
#[derive(Debug)]
pub struct OutputDir {
    /// The folder, resolved.
    pub path: PathBuf,
    /// The folders that did not exist before, deepest first.
    made: Vec<PathBuf>,
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        for d in &self.made {
            // Fails, as it should, on a folder that holds anything.
            if fs::remove_dir(d).is_err() {
                break;
            }
        }
    }
}

/// A file written under a temporary name, not yet in place ([`Guard::stage`]).
#[derive(Debug)]
pub struct Staged {
    tmp: Option<PathBuf>,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// A unique temporary file next to `target`, created exclusively (never through a link).
/// Copy the staged file `tmp` into a temporary file beside `r` (with `permissions`, those of
/// the file it replaces), then rename that onto `r`; the copy goes again if a step fails.
fn move_beside(tmp: &Path, r: &Path, permissions: Option<fs::Permissions>) -> io::Result<()> {
    let (near, mut file) = temp_file(r)?;
    let done = (|| {
        io::copy(&mut fs::File::open(tmp)?, &mut file)?;
        file.sync_data()?;
        if let Some(p) = permissions {
            fs::set_permissions(&near, p)?;
        }
        fs::rename(&near, r)
    })();
    if done.is_err() {
        let _ = fs::remove_file(&near);
    }
    done
}

fn temp_file(target: &Path) -> io::Result<(PathBuf, fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = target.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// An absolute path with `.` and `..` resolved and every symbolic link of its existing part
/// followed; the part that does not exist yet is appended as written. Fails on a link that
/// leads nowhere, a loop, or a folder that cannot be searched.
///
/// A `..` after a missing component (`nope/../link/x`) steps back out of the missing part, and
/// what follows is resolved again: the kernel would fail on `nope/..`, but the write goes to the
/// path returned here, never to the one typed, so this must be where the bytes would land.
pub fn resolve(p: &Path) -> io::Result<PathBuf> {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()?.join(p)
    };
    let mut out = PathBuf::new();
    // How many trailing components of `out` do not exist.
    let mut missing = 0usize;
    for c in abs.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            // A missing component is no link, and the existing part of `out` has no links
            // left: popping is what the OS would do.
            Component::ParentDir => {
                out.pop();
                missing = missing.saturating_sub(1);
            }
            Component::Normal(n) => {
                out.push(n);
                if missing > 0 {
                    missing += 1;
                    continue;
                }
                match fs::symlink_metadata(&out) {
                    Ok(m) if m.file_type().is_symlink() => out = fs::canonicalize(&out)?,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => missing = 1,
                    Err(e) => return Err(e),
                }
            }
        }
    }
    Ok(out)
}

/// Absolute with `.`/`..` removed, links not followed: for paths that cannot be resolved.
fn lexical(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// "a folder", "a FIFO (named pipe)", …: what a non-regular file is, for messages.
pub fn kind_of(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests;
