//! The walk below one store root: symlinks followed, each folder read once and each file
//! yielded once, whatever number of paths lead to them.
//!
//! `walkdir` alone only catches a link back to an ancestor: a folder reachable by many paths
//! without a loop (two links from each folder to the next: 2^n paths) was read once per path.
//! Here a folder is known by its identity on disk (device, inode) and read the first time only;
//! a file likewise, its identity taken from the folder entry where that needs no `stat`. A
//! folder on a kernel pseudo file system (`/proc`, `/sys`, `/dev`, cgroups, …) is not read at
//! all: it holds no sessions, `/sys` alone is tens of thousands of folders, and `/proc` leads to
//! every file of the machine (`/proc/<pid>/root`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use walkdir::{DirEntry, WalkDir};

use crate::diag::{Warning, WarningKind};
use crate::parse::identity;

/// How a folder or file is known: its identity on disk, else (a platform without inodes) its
/// canonical path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Id(u64, u64),
    Path(PathBuf),
}

/// The entries below `root` (the root folder itself first), each folder and file at most once;
/// walking errors (a loop, a folder that cannot be read) are yielded as `walkdir` gives them.
pub struct Walk {
    it: walkdir::IntoIter,
    dirs: HashSet<Key>,
    files: HashSet<Key>,
    /// The device of the folder at each depth of the current path: a file's device is its
    /// folder's, so a file reached by a plain entry needs no `stat` of its own.
    devices: Vec<u64>,
    /// Devices known to hold a pseudo file system (`Some(name)`) or not (`None`).
    pseudo: HashMap<u64, Option<String>>,
    /// The folders above the root: a link to one of them leads back into the walk, a loop
    /// `walkdir` cannot see (it knows the ancestors from the root down only), which would
    /// otherwise walk everything else below it (the whole machine, for a link to `/`).
    above: HashSet<Key>,
    /// Folders read, each once: what the walk cost.
    pub dirs_read: usize,
    /// Folders not read because of where they are (a pseudo file system, a link back above
    /// the root) or because they cannot be reached (a parent that cannot be entered).
    pub warnings: Vec<Warning>,
}

impl Walk {
    pub fn new(root: &Path) -> Walk {
        Walk {
            // Sorted: when several paths lead to one file, the one kept is the same every run.
            it: WalkDir::new(root)
                .follow_links(true)
                .sort_by_file_name()
                .into_iter(),
            dirs: HashSet::new(),
            files: HashSet::new(),
            devices: Vec::new(),
            pseudo: HashMap::new(),
            above: std::fs::canonicalize(root)
                .map(|r| {
                    r.ancestors()
                        .skip(1)
                        .filter_map(|a| Some(key(a, &std::fs::metadata(a).ok()?)))
                        .collect()
                })
                .unwrap_or_default(),
            dirs_read: 0,
            warnings: Vec::new(),
        }
    }

    /// Whether a folder entry is read: the first time its identity is seen, and only off a
    /// pseudo file system.
    fn admit_dir(&mut self, e: &DirEntry) -> bool {
        let meta = match e.metadata() {
            Ok(meta) => meta,
            Err(err) => {
                // Gone since it was listed: nothing to read. Anything else hides what is under
                // the folder (a parent that can be listed but not entered, mode 644, lists its
                // sub-folders but fails every `stat` of them), so it is said.
                let gone = err
                    .io_error()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound);
                if !gone {
                    let msg = match err.io_error() {
                        Some(io) => format!("cannot read: {io}"),
                        None => format!("cannot read: {err}"),
                    };
                    self.warnings
                        .push(Warning::new(WarningKind::Unreadable, e.path(), None, msg));
                }
                return false;
            }
        };
        let key = key(e.path(), &meta);
        if self.above.contains(&key) {
            self.warnings.push(Warning::new(
                WarningKind::SymlinkLoop,
                e.path(),
                None,
                "symlink loop (to a folder above the one walked), not followed",
            ));
            return false;
        }
        if !self.dirs.insert(key.clone()) {
            return false;
        }
        if let Key::Id(dev, _) = key {
            let parent = e.depth().checked_sub(1).and_then(|d| self.devices.get(d));
            if parent != Some(&dev)
                && let Some(fs) = self.pseudo_fs(dev)
            {
                self.warnings.push(Warning::new(
                    WarningKind::Unreadable,
                    e.path(),
                    None,
                    format!("on a {fs} file system (kernel state, not files): not walked"),
                ));
                return false;
            }
            self.devices.truncate(e.depth());
            self.devices.push(dev);
        }
        self.dirs_read += 1;
        true
    }

    /// Whether a file entry is new to this walk.
    fn admit_file(&mut self, e: &DirEntry) -> bool {
        #[cfg(unix)]
        let key = if e.path_is_symlink() {
            e.metadata().ok().as_ref().and_then(identity)
        } else {
            use walkdir::DirEntryExt;
            let dev = e.depth().checked_sub(1).and_then(|d| self.devices.get(d));
            dev.map(|&dev| (dev, e.ino()))
        };
        #[cfg(not(unix))]
        let key: Option<(u64, u64)> = None;
        // Without an identity the file is kept: discovery's own check by canonical path follows.
        key.is_none_or(|(dev, ino)| self.files.insert(Key::Id(dev, ino)))
    }

    /// The pseudo file system on device `dev`, if it is one (Linux: from the mount table).
    fn pseudo_fs(&mut self, dev: u64) -> Option<String> {
        if let Some(known) = self.pseudo.get(&dev) {
            return known.clone();
        }
        static MOUNTS: OnceLock<HashMap<(u64, u64), String>> = OnceLock::new();
        let fs = MOUNTS
            .get_or_init(mount_table)
            .get(&dev_numbers(dev))
            .filter(|fs| is_pseudo(fs))
            .cloned();
        self.pseudo.insert(dev, fs.clone());
        fs
    }
}

impl Iterator for Walk {
    type Item = walkdir::Result<DirEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let e = match self.it.next()? {
                Ok(e) => e,
                err => return Some(err),
            };
            if e.file_type().is_dir() {
                if !self.admit_dir(&e) {
                    self.it.skip_current_dir();
                    continue;
                }
            } else if e.file_type().is_file() && !self.admit_file(&e) {
                continue;
            }
            return Some(Ok(e));
        }
    }
}

/// How a folder is known, from its metadata.
fn key(path: &Path, meta: &std::fs::Metadata) -> Key {
    match identity(meta) {
        Some((dev, ino)) => Key::Id(dev, ino),
        None => Key::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.into())),
    }
}

/// File systems that show kernel state as files: never a place for sessions.
fn is_pseudo(fs: &str) -> bool {
    matches!(
        fs,
        "proc"
            | "sysfs"
            | "devtmpfs"
            | "devpts"
            | "cgroup"
            | "cgroup2"
            | "debugfs"
            | "tracefs"
            | "securityfs"
            | "pstore"
            | "bpf"
            | "configfs"
            | "fusectl"
            | "mqueue"
            | "binfmt_misc"
            | "efivarfs"
            | "hugetlbfs"
            | "nsfs"
            | "rpc_pipefs"
            | "selinuxfs"
            | "autofs"
    )
}

/// Linux's (major, minor) of a device number, as `/proc/self/mountinfo` writes them.
fn dev_numbers(dev: u64) -> (u64, u64) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & 0xffff_f000);
    let minor = (dev & 0xff) | ((dev >> 12) & 0xffff_ff00);
    (major, minor)
}

/// The file system type of each mounted device, from `/proc/self/mountinfo`; empty where there
/// is none (not Linux, no `/proc`), and then nothing is taken for a pseudo file system.
fn mount_table() -> HashMap<(u64, u64), String> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default()
}

/// `36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw`: the third field is
/// the device, the one after ` - ` the file system type.
fn parse_mountinfo(text: &str) -> HashMap<(u64, u64), String> {
    let mut table = HashMap::new();
    for line in text.lines() {
        let Some((head, tail)) = line.split_once(" - ") else {
            continue;
        };
        let Some((major, minor)) = head.split(' ').nth(2).and_then(|d| d.split_once(':')) else {
            continue;
        };
        let (Ok(major), Ok(minor), Some(fs)) =
            (major.parse(), minor.parse(), tail.split(' ').next())
        else {
            continue;
        };
        table.insert((major, minor), fs.to_string());
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n + 1` folders in a row, each with two links to the next: 2^n paths to the last one.
    #[cfg(unix)]
    fn symlink_dag(root: &Path, n: usize) {
        for i in 0..=n {
            std::fs::create_dir_all(root.join(format!("d{i}"))).unwrap();
        }
        for i in 0..n {
            for link in ["a", "b"] {
                std::os::unix::fs::symlink(
                    format!("../d{}", i + 1),
                    root.join(format!("d{i}/{link}")),
                )
                .unwrap();
            }
        }
        std::fs::write(root.join(format!("d{n}/s.jsonl")), "{}\n").unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_reached_by_many_paths_is_read_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("r");
        symlink_dag(&root.join("d"), 20);
        let mut walk = Walk::new(&root.join("d/d0"));
        let files: Vec<PathBuf> = walk
            .by_ref()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        // d0 … d20, each once; the first path to the file is the one kept (sorted: `a/a/…`).
        assert_eq!(walk.dirs_read, 21);
        assert!(files[0].ends_with(format!("{}s.jsonl", "a/".repeat(20))));
        assert!(walk.warnings.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_file_reached_by_two_links_is_yielded_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join("p")).unwrap();
        std::fs::write(root.join("p/s.jsonl"), "{}\n").unwrap();
        std::os::unix::fs::symlink("s.jsonl", root.join("p/t.jsonl")).unwrap();
        std::os::unix::fs::symlink("p", root.join("q")).unwrap();
        let files: Vec<_> = Walk::new(root)
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .collect();
        assert_eq!(files.len(), 1);
    }

    /// A link to `/` (or to the home folder) leads back into the store: a loop, not a walk of
    /// the whole machine.
    #[cfg(unix)]
    #[test]
    fn a_link_to_a_folder_above_the_root_is_a_loop() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("home/.claude/projects");
        std::fs::create_dir_all(root.join("-p")).unwrap();
        std::os::unix::fs::symlink("/", root.join("-p/slash")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("home"), root.join("-p/home")).unwrap();
        let mut walk = Walk::new(&root);
        assert_eq!(walk.by_ref().count(), 2, "projects and -p only");
        assert_eq!(walk.dirs_read, 2);
        let kinds: Vec<_> = walk.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [WarningKind::SymlinkLoop; 2]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_link_into_sys_is_not_walked() {
        if !Path::new("/sys/kernel").is_dir() || !Path::new("/proc/self/mountinfo").is_file() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/sys", tmp.path().join("sys")).unwrap();
        std::os::unix::fs::symlink("/proc", tmp.path().join("proc")).unwrap();
        let mut walk = Walk::new(tmp.path());
        let n = walk.by_ref().count();
        assert_eq!(n, 1, "only the root folder");
        assert_eq!(walk.dirs_read, 1);
        let said: Vec<String> = walk.warnings.iter().map(|w| w.message.clone()).collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said.iter().any(|m| m.contains("sysfs")), "{said:?}");
        assert!(said.iter().any(|m| m.contains("proc ")), "{said:?}");
    }

    #[test]
    fn mountinfo_gives_each_device_its_file_system() {
        let t = "22 1 0:21 / /proc rw,nosuid - proc proc rw\n\
                 23 1 0:22 / /sys rw - sysfs sysfs rw\n\
                 24 1 259:3 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p3 rw\n\
                 garbage\n";
        let m = parse_mountinfo(t);
        assert_eq!(m.get(&(0, 21)).map(String::as_str), Some("proc"));
        assert_eq!(m.get(&(259, 3)).map(String::as_str), Some("ext4"));
        assert_eq!(m.len(), 3);
        // glibc's makedev.
        let makedev = |major: u64, minor: u64| {
            ((major & 0xffff_f000) << 32)
                | ((major & 0xfff) << 8)
                | ((minor & 0xffff_ff00) << 12)
                | (minor & 0xff)
        };
        assert_eq!(dev_numbers(makedev(259, 3)), (259, 3));
        assert_eq!(dev_numbers(makedev(0x1001, 0x12345)), (0x1001, 0x12345));
    }
}
