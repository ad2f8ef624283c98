//! Which Gemini files are one conversation. Gemini CLI writes one file per chat object, and
//! several files can carry one `sessionId` for four different reasons, told apart here from
//! what the files hold (formats spec §3.7 and §3.9; real examples in the corpus's
//! `real/gemini_legacy`):
//!
//! - **copies** — a legacy `.json` beside its migrated `.jsonl`, a hash-folder copy beside its
//!   slug-folder one, backups and snapshots taken while the session grew: the same `startTime`.
//!   One is kept (the one with the most messages, then `.jsonl`, then the later update) and
//!   each other whose messages (by id) it holds is reported as a copy, never counted twice.
//!   Copies that diverged (each holds messages the other lacks: a backup resumed elsewhere)
//!   are all kept, as one session's files; the messages they share count once, by message
//!   id ([`crate::scan::count_once`]). Metadata-only stubs go too.
//! - **sub-agent recordings** (codebase-investigator and friends, in the legacy era): a file
//!   whose whole time span lies inside another file's of the same session. It becomes a
//!   sub-agent session linked to that parent.
//! - **compression continuations** (legacy `.json` era, ≤ v0.38): compressing started a new
//!   chat object and a new file. Only a context that reached a compression threshold can have
//!   been compressed: the earlier part's last recorded prompt reached 20% of the 1,048,576-token
//!   limit (the lowest default threshold of any release). The later part then starts with a
//!   compression (`gemini_new_file`, from the earlier part's last prompt), unless one of the
//!   two recorded its notice where they meet: that notice is the event.
//! - **`/clear`**: also a new chat object with the same `sessionId`, from a context of any
//!   size. Everything else is this: a new conversation, listed on its own, not a compaction.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::diag::{Warning, WarningKind};
use crate::model::{Agent, Compaction, CompactionKind, DedupKey, Provenance, SessionKind};
use crate::scan::SessionSummary;

/// The smallest prompt a Gemini CLI release compresses by default: 20% (v0.11.3–v0.16) of the
/// 1,048,576-token limit every Gemini model has.
pub const COMPRESSIBLE_PROMPT: u64 = 1_048_576 / 5;

/// Drop copies, link sub-agent recordings and mark compression continuations. Returns the
/// warnings for the copies dropped.
pub fn group(sessions: &mut Vec<SessionSummary>) -> Vec<Warning> {
    let warnings = drop_copies(sessions);
    for s in sessions.iter_mut() {
        s.message_ids = Vec::new();
        s.request_messages = Vec::new();
    }
    link_and_mark(sessions);
    warnings
}

/// Give each request of a Gemini session that has none a key of its session and message id,
/// for [`crate::scan::count_once`]. The session id goes with the message id: an id another
/// session's file also holds (a hand-made or older file's `"1"`) is another response.
fn key_gemini_requests(s: &mut SessionSummary) {
    for (r, m) in s.requests.iter_mut().zip(&s.request_messages) {
        if let (None, Some(m)) = (&r.dedup_key, m) {
            r.dedup_key = Some(DedupKey {
                message_id: format!("{}\u{0}{m:016x}", s.id).into(),
                request_id: None,
                sidechain: false,
                copy: false,
            });
        }
    }
}

fn drop_copies(sessions: &mut Vec<SessionSummary>) -> Vec<Warning> {
    let mut groups: HashMap<(String, SessionKind), Vec<usize>> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        if s.agent == Agent::Gemini {
            groups.entry((s.id.clone(), s.kind)).or_default().push(i);
        }
    }
    let mut drop: HashSet<usize> = HashSet::new();
    let mut warnings = Vec::new();
    for idxs in groups.values().filter(|v| v.len() > 1) {
        // Copies share a start; files that recorded none are copies of each other only when
        // their names agree (a stub, a migrated `.json`).
        let mut by_start: HashMap<String, Vec<usize>> = HashMap::new();
        for &i in idxs {
            let s = &sessions[i];
            let key = match s.started_at {
                Some(t) => t.to_rfc3339(),
                None => format!("name:{}", file_stem(&s.source.path)),
            };
            by_start.entry(key).or_default().push(i);
        }
        let any_content = idxs.iter().any(|&i| sessions[i].message_count > 0);
        for group in by_start.values() {
            let mut ranked = group.clone();
            // The most messages, then `.jsonl`, then the later update, then the later path.
            let rank = |i: usize| {
                let s = &sessions[i];
                (
                    s.message_count,
                    s.source.path.extension().is_some_and(|e| e == "jsonl"),
                    s.updated_at,
                    &s.source.path,
                )
            };
            ranked.sort_by(|&a, &b| rank(b).cmp(&rank(a)));
            let ids: Vec<HashSet<u64>> = ranked
                .iter()
                .map(|&i| sessions[i].message_ids.iter().copied().collect())
                .collect();
            // A copy holds no message that a file ranked above it, and kept, lacks. Copies
            // that diverged (one resumed from another's backup, each going on on its own)
            // are kept, both: dropping one would lose what only it holds.
            let mut kept: Vec<usize> = Vec::new();
            for (a, &i) in ranked.iter().enumerate() {
                match kept.iter().find(|&&b| ids[a].is_subset(&ids[b])) {
                    Some(&b) => {
                        drop.insert(i);
                        warnings.push(Warning::new(
                            WarningKind::Duplicate,
                            &sessions[i].source.path,
                            None,
                            format!(
                                "copy of Gemini session {} (kept {})",
                                sessions[i].id,
                                sessions[ranked[b]].source.path.display()
                            ),
                        ));
                    }
                    None => kept.push(a),
                }
            }
            // Diverged copies are one session's files: a response both hold counts once,
            // keyed by its message id (a UUID) within the session.
            if kept.len() > 1 {
                for &a in &kept {
                    key_gemini_requests(&mut sessions[ranked[a]]);
                }
            }
            let best = ranked[0];
            if any_content && sessions[best].message_count == 0 {
                drop.insert(best);
                warnings.push(Warning::new(
                    WarningKind::Duplicate,
                    &sessions[best].source.path,
                    None,
                    format!(
                        "empty stub of Gemini session {}, skipped",
                        sessions[best].id
                    ),
                ));
            }
        }
    }
    let mut i = 0;
    sessions.retain(|_| {
        let keep = !drop.contains(&i);
        i += 1;
        keep
    });
    // The groups came out of a hash map: the warnings go in path order, the same on every run.
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    warnings
}

/// The last prompt a part recorded.
fn last_prompt(s: &SessionSummary) -> u64 {
    s.requests
        .iter()
        .rev()
        .map(|r| r.usage.prompt())
        .find(|&p| p > 0)
        .unwrap_or(0)
}

/// Whether the compression that continued part `prev` in part `next` left a trace of its own
/// where they meet: after `prev`'s last request (the notice written before the new file) or
/// before `next`'s first (written into it).
fn noted_between(prev: &SessionSummary, next: &SessionSummary) -> bool {
    let compression = |c: &&Compaction| c.kind != CompactionKind::GeminiMasking;
    prev.compaction_events
        .iter()
        .filter(compression)
        .any(|c| c.request_index >= prev.requests.len())
        || next
            .compaction_events
            .iter()
            .filter(compression)
            .any(|c| c.request_index == 0)
}

fn link_and_mark(sessions: &mut [SessionSummary]) {
    let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        if s.agent == Agent::Gemini && s.kind == SessionKind::Main && s.started_at.is_some() {
            groups.entry(s.id.clone()).or_default().push(i);
        }
    }
    for mut idxs in groups.into_values().filter(|v| v.len() > 1) {
        idxs.sort_by_key(|&i| {
            (
                sessions[i].started_at,
                std::cmp::Reverse(sessions[i].updated_at),
            )
        });
        // Files with one start that are all kept are diverged copies of one chat object (the
        // copy rule dropped the rest): never a recording inside one another. The first (the
        // longest) stands for them all.
        let (mut firsts, mut copies) = (Vec::new(), Vec::new());
        for (k, &i) in idxs.iter().enumerate() {
            if k > 0 && sessions[idxs[k - 1]].started_at == sessions[i].started_at {
                copies.push(i);
            } else {
                firsts.push(i);
            }
        }
        let spans: Vec<(Time, Time)> = firsts.iter().map(|&i| span(&sessions[i])).collect();
        let inside = recordings(&spans);
        let mut parts: Vec<usize> = Vec::new();
        for (&i, inside) in firsts.iter().zip(inside) {
            if inside {
                let s = &mut sessions[i];
                s.kind = SessionKind::Subagent;
                s.parent_id = Some(s.id.clone());
            } else {
                parts.push(i);
            }
        }
        // Continuations: compressed only from a context that could have been. A compression
        // whose notice one of the two parts recorded where they meet is that event already.
        for w in parts.windows(2) {
            let before = last_prompt(&sessions[w[0]]);
            if before >= COMPRESSIBLE_PROMPT && !noted_between(&sessions[w[0]], &sessions[w[1]]) {
                let s = &mut sessions[w[1]];
                let mut c = Compaction::new(CompactionKind::GeminiNewFile);
                c.timestamp = s.started_at;
                c.tokens_before = Some(before);
                c.tokens_provenance = Provenance::Recorded;
                s.compaction_events.insert(0, c);
                s.compactions += 1;
            }
        }
        // A diverged copy is what the file standing for it is.
        for &i in &copies {
            let Some(&first) = firsts
                .iter()
                .rev()
                .find(|&&f| sessions[f].started_at == sessions[i].started_at)
            else {
                continue;
            };
            let (kind, parent) = (sessions[first].kind, sessions[first].parent_id.clone());
            let continued = sessions[first]
                .compaction_events
                .first()
                .filter(|c| c.kind == CompactionKind::GeminiNewFile)
                .cloned();
            let s = &mut sessions[i];
            s.kind = kind;
            s.parent_id = parent;
            if let Some(c) = continued {
                s.compaction_events.insert(0, c);
                s.compactions += 1;
            }
        }
    }
}

type Time = Option<chrono::DateTime<chrono::Utc>>;

fn span(s: &SessionSummary) -> (Time, Time) {
    (s.started_at, s.updated_at.or(s.started_at))
}

/// Which of the files of one session, as `(start, end)` spans in order of start, are sub-agent
/// recordings: inside the span of an earlier file that is not one (a part), and not that span
/// itself. Every earlier part started no later, so a file is inside one exactly when some part
/// ends after it, or ends with it having started before it: the latest end among the parts
/// and the earliest start among those ending then decide it, in constant time per file (a
/// search of the parts made a session `/clear`ed thousands of times quadratic).
fn recordings<T: Ord + Copy>(spans: &[(T, T)]) -> Vec<bool> {
    // (latest end, earliest start of the parts ending then)
    let mut last: Option<(T, T)> = None;
    spans
        .iter()
        .map(|&(start, end)| {
            let inside = last.is_some_and(|(pe, ps)| pe > end || (pe == end && ps < start));
            if !inside {
                last = match last {
                    Some((pe, ps)) if pe > end => Some((pe, ps)),
                    Some((pe, ps)) if pe == end => Some((pe, ps.min(start))),
                    _ => Some((end, start)),
                };
            }
            inside
        })
        .collect()
}

fn file_stem(p: &Path) -> String {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.trim_end_matches(".zst")
        .trim_end_matches(".jsonl")
        .trim_end_matches(".json")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::recordings;

    /// The rule as first written: a search of the parts so far.
    fn searched(spans: &[(u8, u8)]) -> Vec<bool> {
        let mut parts: Vec<(u8, u8)> = Vec::new();
        spans
            .iter()
            .map(|&(start, end)| {
                let inside = parts
                    .iter()
                    .any(|&(ps, pe)| ps <= start && end <= pe && (ps, pe) != (start, end));
                if !inside {
                    parts.push((start, end));
                }
                inside
            })
            .collect()
    }

    #[test]
    fn recordings_are_the_files_inside_an_earlier_part() {
        // A small generator (no crate for it): spans over few values, so that equal starts,
        // equal ends and equal spans are frequent.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n) as u8
        };
        for _ in 0..5_000 {
            let len = 1 + next(12) as usize;
            let mut spans: Vec<(u8, u8)> = (0..len)
                .map(|_| {
                    let a = next(6);
                    (a, a + next(4))
                })
                .collect();
            // In order of start, the longer span first, as the caller sorts them.
            spans.sort_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
            assert_eq!(recordings(&spans), searched(&spans), "{spans:?}");
        }
        assert_eq!(
            recordings(&[(0, 9), (1, 3), (2, 9), (2, 9), (9, 12)]),
            [false, true, true, true, false]
        );
    }
}
