//! Rendering shared by the commands: human numbers and times, terminal-safe text, tables
//! fitted to the terminal, and the versioned JSON records of the output contract.
//!
//! Interfaces every command printing for humans follows:
//! - [`text::safe_line`] / [`text::terminal_safe`]: session text is never printed raw;
//! - [`table::render`] with [`table::target_width`]: one width-fitting table for every command;
//! - [`time`]: one time-zone rule (local with the offset shown, or `--utc`);
//! - [`thousands`] / [`plural`] for exact numbers, [`human_count`] for compact ones.

pub mod json;
pub mod plot;
pub mod table;
pub mod text;
pub mod time;

use std::sync::OnceLock;

use chrono::{DateTime, Duration, Utc};

/// Display choices that apply to every human output of a run (global flags).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settings {
    /// `--utc`: times in UTC instead of local time.
    pub utc: bool,
    /// `--wide`: tables keep every column at full width, whatever the terminal.
    pub wide: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Set the display settings once, at start-up (later calls are ignored).
pub fn configure(s: Settings) {
    let _ = SETTINGS.set(s);
}

pub fn settings() -> Settings {
    SETTINGS.get().copied().unwrap_or_default()
}

/// 1234 → "1.2k", 5_600_000 → "5.6M", 250_000_000 → "250M". Exact below 1000; three
/// significant digits at most, from k up to E (which holds every `u64`).
pub fn human_count(n: u64) -> String {
    scaled_as_printed(n, |v, unit| {
        let tenths = format!("{v:.1}");
        if tenths.parse::<f64>().is_ok_and(|t| t < 100.0) {
            return Some(format!("{tenths}{unit}"));
        }
        let whole = format!("{v:.0}");
        whole
            .parse::<f64>()
            .is_ok_and(|w| w < 1000.0)
            .then(|| format!("{whole}{unit}"))
    })
    .unwrap_or_else(|| n.to_string())
}

/// The decimal prefixes the compact numbers use, with their scales.
const PREFIXES: [(u64, &str); 6] = [
    (1_000, "k"),
    (1_000_000, "M"),
    (1_000_000_000, "G"),
    (1_000_000_000_000, "T"),
    (1_000_000_000_000_000, "P"),
    (1_000_000_000_000_000_000, "E"),
];

/// `n` printed by `print` with the first prefix, from the largest whose scale `n` reaches, that
/// `print` accepts (`None`: the printed number is too large for the prefix). The prefix is
/// chosen after rounding, or 999,500 would show as "1000k" and 99,950 as "100.0k": a number is
/// judged as printed. `None` below a thousand.
fn scaled_as_printed(n: u64, print: impl Fn(f64, &str) -> Option<String>) -> Option<String> {
    let from = PREFIXES.iter().rposition(|&(scale, _)| n >= scale)?;
    // Up to E, `u64::MAX` (18.4E) fits the last one.
    PREFIXES[from..]
        .iter()
        .find_map(|&(scale, prefix)| print(n as f64 / scale as f64, prefix))
}

/// 1234567 → "1,234,567".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "1 turn", "22 sessions", "1,204 files".
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{} {word}s", thousands(n as u64))
    }
}

/// 1536 → "1.5 kB", 999,950 → "1.0 MB": exact below 1000, one decimal from kB up to EB
/// (which holds every `u64`), the unit chosen as [`human_count`] chooses it.
pub fn human_bytes(n: u64) -> String {
    scaled_as_printed(n, |v, prefix| {
        let tenths = format!("{v:.1}");
        tenths
            .parse::<f64>()
            .is_ok_and(|t| t < 1000.0)
            .then(|| format!("{tenths} {prefix}B"))
    })
    .unwrap_or_else(|| format!("{n} B"))
}

/// "45s", "12m", "1h05m", "3d04h".
pub fn human_duration(d: Duration) -> String {
    let s = d.num_seconds().max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d{:02}h", s / 86400, (s % 86400) / 3600),
    }
}

/// "2026-03-02 14:05" in the display zone ([`time`]); tables name the zone in the header.
pub fn local_time(t: DateTime<Utc>) -> String {
    time::minutes(t)
}

/// RFC 3339 in UTC with millisecond precision, the contract's time format.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    crate::model::rfc3339(t)
}

/// How a project is named in every human output (list, projects, compactions, show, exports):
/// its path; `unresolved <hash prefix>` for a Gemini project whose path is not known; `unknown`
/// when the session recorded no working directory.
pub fn project_label(project: Option<&str>, hash: Option<&str>) -> String {
    match (project, hash) {
        (Some(p), _) => p.to_string(),
        (None, Some(h)) => format!("{UNRESOLVED} {}", hash_prefix(h, 8)),
        (None, None) => UNKNOWN_PROJECT.to_string(),
    }
}

/// The first `n` characters of a recorded project hash: hex when Gemini CLI wrote it, but a
/// damaged or hand-edited file may put any character there, where a byte count can cut one.
pub fn hash_prefix(h: &str, n: usize) -> &str {
    h.char_indices().nth(n).map_or(h, |(i, _)| &h[..i])
}

pub const UNRESOLVED: &str = "unresolved";
pub const UNKNOWN_PROJECT: &str = "unknown";

/// A project path for a table cell: the home folder as `~` (the tail is what a table keeps when
/// it must cut).
pub fn project_cell(project: Option<&str>, hash: Option<&str>) -> String {
    let label = project_label(project, hash);
    match (project, std::env::var("HOME").ok()) {
        (Some(p), Some(home)) if home.len() > 1 => {
            let home = home.trim_end_matches('/');
            match p.strip_prefix(home) {
                Some("") => "~".into(),
                Some(rest) if rest.starts_with('/') => format!("~{rest}"),
                _ => label,
            }
        }
        _ => label,
    }
}

/// The project line of `show` and of export headers: the label plus how it was found.
pub fn project_detail(project: Option<&str>, hash: Option<&str>, source: &str) -> String {
    match (project, hash) {
        (Some(p), _) => format!("{p} (from {source})"),
        (None, Some(h)) => format!(
            "{} (Gemini projectHash {}…; --project-root DIR can resolve it)",
            project_label(None, Some(h)),
            hash_prefix(h, 16)
        ),
        (None, None) => format!("{UNKNOWN_PROJECT} (no working directory recorded)"),
    }
}

/// Session ids as tables show them: a prefix that `show` takes back. Thirteen characters tell
/// almost every pair apart (a Codex UUIDv7's millisecond, a Claude UUID's first groups), but
/// not two Codex sub-agents started in the same millisecond, nor two Gemini saved chats whose
/// tags share a beginning: those get as many characters as tell them from their neighbours
/// among the ids listed.
pub struct ShortIds {
    sorted: Vec<String>,
}

/// Characters every short id keeps at least.
pub const SHORT_ID: usize = 13;

impl ShortIds {
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut sorted: Vec<String> = ids.into_iter().map(str::to_string).collect();
        sorted.sort_unstable();
        sorted.dedup();
        ShortIds { sorted }
    }

    /// Characters of `id` that no other id of the set starts with (its whole length when
    /// another id extends it).
    pub fn unique_len(&self, id: &str) -> usize {
        let common = |other: &str| {
            id.chars()
                .zip(other.chars())
                .take_while(|(a, b)| a == b)
                .count()
        };
        let at = self.sorted.partition_point(|s| s.as_str() < id);
        let before = at.checked_sub(1).map_or(0, |i| common(&self.sorted[i]));
        let after = self
            .sorted
            .iter()
            .skip(at)
            .find(|s| s.as_str() != id)
            .map_or(0, |s| common(s));
        (before.max(after) + 1).min(id.chars().count())
    }

    /// The id's first [`SHORT_ID`] characters, or more where that is not unique.
    pub fn short(&self, id: &str) -> String {
        id.chars().take(self.unique_len(id).max(SHORT_ID)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_tell_every_listed_id_apart() {
        let ids = [
            "019ceba0-adf0-7a31-8c42-5d1e2f3a4b01",
            "019ceba0-adf0-7a31-8c42-5d1e2f3a4b02",
            "019ceba0-adf1-7000-8000-000000000000",
            "checkpoint-mytag",
            "checkpoint-myother",
            "abc",
            "abcd",
            "6f0d3c52-1111-4111-8111-111111111111",
        ];
        let short = ShortIds::new(ids);
        assert_eq!(short.short(ids[0]), ids[0]);
        assert_eq!(short.short(ids[1]), ids[1]);
        assert_eq!(short.short(ids[2]), "019ceba0-adf1");
        assert_eq!(short.short(ids[3]), "checkpoint-myt");
        assert_eq!(short.short(ids[4]), "checkpoint-myo");
        assert_eq!(short.short(ids[7]), "6f0d3c52-1111");
        // An id that another extends is shown whole; `show` prefers the exact match.
        assert_eq!(
            (short.short("abc"), short.short("abcd")),
            ("abc".into(), "abcd".into())
        );
        assert_eq!(short.unique_len(ids[7]), 1);
        // Each short id, typed back, names one id of the set (or is one exactly).
        for id in ids {
            let p = short.short(id);
            let hits: Vec<_> = ids.iter().filter(|i| i.starts_with(&p)).collect();
            assert!(
                hits.len() == 1 || ids.contains(&p.as_str()),
                "{p}: {hits:?}"
            );
        }
    }

    #[test]
    fn hash_prefixes_never_cut_a_character() {
        assert_eq!(
            hash_prefix("1ad108b1f7afc0\u{fffd}e965", 16),
            "1ad108b1f7afc0\u{fffd}e"
        );
        assert_eq!(hash_prefix("7b8ebbc4", 16), "7b8ebbc4");
        assert_eq!(hash_prefix("ééééééééé", 8), "éééééééé");
        let detail = project_detail(None, Some("1ad108b1f7afc0\u{fffd}e965e864"), "x");
        assert!(
            detail.contains("projectHash 1ad108b1f7afc0\u{fffd}e…"),
            "{detail}"
        );
    }

    #[test]
    fn counts_and_durations() {
        assert_eq!(human_count(999), "999");
        assert_eq!(human_count(1234), "1.2k");
        assert_eq!(human_count(5_600_000), "5.6M");
        assert_eq!(human_count(250_000_000), "250M");
    }

    /// The unit is the one the rounded number needs: no "1000k", no "100.0k", and a unit for
    /// every `u64`.
    #[test]
    fn compact_counts_round_before_choosing_the_unit() {
        for (n, shown) in [
            (1_000, "1.0k"),
            (11_251, "11.3k"),
            (99_949, "99.9k"),
            (99_950, "100k"),
            (100_000, "100k"),
            (999_499, "999k"),
            (999_500, "1.0M"),
            (99_950_000, "100M"),
            (999_500_000, "1.0G"),
            (999_500_000_000, "1.0T"),
            (1_234_000_000_000, "1.2T"),
            (999_500_000_000_000, "1.0P"),
            (999_500_000_000_000_000, "1.0E"),
            (u64::MAX, "18.4E"),
        ] {
            assert_eq!(human_count(n), shown, "{n}");
        }
    }

    /// 999,950 bytes is "1.0 MB", not "1000.0 kB": the same rule as the counts.
    #[test]
    fn byte_sizes_round_before_choosing_the_unit() {
        for (n, shown) in [
            (0, "0 B"),
            (999, "999 B"),
            (1_000, "1.0 kB"),
            (1_536, "1.5 kB"),
            (999_949, "999.9 kB"),
            (999_950, "1.0 MB"),
            (5_600_000, "5.6 MB"),
            (999_950_000, "1.0 GB"),
            (999_950_000_000, "1.0 TB"),
            (u64::MAX, "18.4 EB"),
        ] {
            assert_eq!(human_bytes(n), shown, "{n}");
        }
    }

    #[test]
    fn durations_and_exact_counts() {
        assert_eq!(human_duration(Duration::seconds(45)), "45s");
        assert_eq!(human_duration(Duration::seconds(3900)), "1h05m");
        assert_eq!(human_duration(Duration::hours(76)), "3d04h");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(plural(1, "turn"), "1 turn");
        assert_eq!(plural(0, "turn"), "0 turns");
        assert_eq!(plural(22_000, "session"), "22,000 sessions");
    }

    #[test]
    fn project_names() {
        assert_eq!(project_label(Some("/a/b"), None), "/a/b");
        assert_eq!(
            project_label(None, Some("7b8ebbc448bee587f474")),
            "unresolved 7b8ebbc4"
        );
        assert_eq!(project_label(None, None), "unknown");
    }
}
