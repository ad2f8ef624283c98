//! Version-accurate constants of each agent's own context management: the auto-compaction
//! trigger and its inputs as the recorded version had them.
//!
//! Versions are data. Every table row names the first version it applies to and carries its
//! evidence (the upstream file or bundle it was read from, or the real sessions whose recorded
//! numbers show it). The lookups are pure: a recorded version string and model (and, for Codex,
//! the window the rollout recorded) in, the constants in force out. A session that recorded no
//! version gets the newest row with `version_known: false`.
//!
//! How the tables were established, and how to re-run the scripts that read them from the
//! published packages and tags, is in `docs/versions.md` (`scripts/versions/`).

use std::cmp::Ordering;
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Versions

/// A version as agents print it: `2.1.19`, `0.125.0`, `v0.11.3`, `rust-v0.40.0`,
/// `0.125.0-alpha.3`. Components compare numerically (2.1.9 < 2.1.10); a missing component is 0;
/// anything after the numeric core (a pre-release or build suffix) is ignored, so
/// `0.40.0-alpha.1` orders with `0.40.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// Parse the numeric core of a version string. `None` when it starts with no digit after an
    /// optional alphabetic prefix (`v`, `rust-v`), or a component does not fit in `u32`.
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim();
        let start = s.find(|c: char| c.is_ascii_digit())?;
        // Only a short alphabetic prefix such as `v` or `rust-v` may precede the number.
        let prefix = &s[..start];
        if prefix.len() > 8
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
        {
            return None;
        }
        let core: &str = s[start..]
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()
            .unwrap_or("");
        let mut parts = [0u32; 3];
        for (i, p) in core.split('.').take(3).enumerate() {
            if p.is_empty() {
                break;
            }
            parts[i] = p.parse().ok()?;
        }
        Some(Version::new(parts[0], parts[1], parts[2]))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Compare two version strings numerically; unparsable strings sort first.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    Version::parse(a).cmp(&Version::parse(b))
}

/// The last row whose `from` is at or below `v`; the newest row when the version is unknown.
/// Rows must be sorted by `from`. A version older than the first row gets the first row.
fn row_for<T>(rows: &'static [T], from: impl Fn(&T) -> Version, v: Option<Version>) -> &'static T {
    match v {
        None => rows.last().expect("non-empty table"),
        Some(v) => rows.iter().rev().find(|r| from(r) <= v).unwrap_or(&rows[0]),
    }
}

mod claude_code;
mod codex_cli;
mod gemini_cli;

pub use claude_code::*;
pub use codex_cli::*;
pub use gemini_cli::*;

#[cfg(test)]
mod tests;
