//! The cross-file rules that drop a session file as a copy of another of the same session id
//! (Codex rollouts, Claude resumed or backed-up files): apart from the scan pipeline, which
//! only runs them, because what makes a file a copy is a rule of its own.

use std::collections::HashMap;

use super::SessionSummary;
#[cfg(doc)]
use super::count_once;
use crate::diag::{Warning, WarningKind};
use crate::model::{Agent, DedupKey, RequestUsage, SessionKind, Usage};

/// Codex resumes a session by appending to its rollout, so two rollouts with one session id
/// are copies: a rollout under `archived_sessions/` and its original, a backup, a checkpoint
/// taken while the session ran. One is kept (the most requests, then the most messages, then
/// the latest update, then the first path) and each other is reported as a copy, never counted
/// twice. A fork or a sub-agent has an id of its own.
pub(super) fn drop_codex_copies(sessions: &mut Vec<SessionSummary>) -> Vec<Warning> {
    let mut drop = vec![false; sessions.len()];
    let mut warnings = Vec::new();
    for members in same_session_files(sessions, Agent::Codex) {
        let best = members[0];
        for &i in &members[1..] {
            drop[i] = true;
            warnings.push(Warning::new(
                WarningKind::Duplicate,
                &sessions[i].source.path,
                None,
                format!(
                    "copy of Codex session {} (kept {})",
                    sessions[i].id,
                    sessions[best].source.path.display()
                ),
            ));
        }
    }
    remove_marked(sessions, &drop, warnings)
}

/// Claude Code writes one session id into several files when a session is resumed, backed up
/// or checkpointed: each such file holds the session's history up to some point. A file with
/// responses, all of which (`message.id` + `requestId`; a copy whose `requestId` a proxy
/// dropped is the response its message id names, as [`count_once`] reads it) another file of
/// the same session id holds, is a copy of that history: it is dropped and reported as a
/// duplicate, and the file holding the most responses (then the most messages, the most
/// tokens, the latest update, the first path) is kept. Files whose responses diverge (each
/// holds some the other lacks: branches taken from one point, or consecutive pieces of one
/// session) are distinct histories and are all kept; so is a file with no response (it holds
/// nothing the other is known to hold: prompts the agent never answered) and a file with a
/// response that names no message id, which cannot be compared. Run by the scan before
/// [`count_once`], as the Codex and Gemini copy rules are, so that every command sees one
/// session where the agent wrote one (a row of `list`, a replay, an export), not a row per
/// file. The kept file's requests count at the largest snapshot of their copies; its own
/// figures stay its file's ([`RequestUsage::own_usage`]).
pub fn drop_claude_copies(sessions: &mut Vec<SessionSummary>) -> Vec<Warning> {
    let mut drop = vec![false; sessions.len()];
    let mut warnings = Vec::new();
    let mut held_by = Vec::new();
    for members in same_session_files(sessions, Agent::Claude) {
        let keys: Vec<_> = members
            .iter()
            .map(|&i| Responses::of(&sessions[i]))
            .collect();
        for (a, &i) in members.iter().enumerate() {
            let Some(mine) = keys[a].as_ref().filter(|k| !k.keys.is_empty()) else {
                continue;
            };
            // A copy is dropped in favour of the best-ranked member (an earlier one) that holds
            // it, but the file named after its session is never dropped for one that is not:
            // a renamed file takes its id from its first records, which in a resumed session's
            // file are its parent's, and holds all the parent's responses and more.
            let named = |k: usize| named_after_its_session(&sessions[members[k]]);
            let holder = (0..a).find(|&b| {
                !drop[members[b]]
                    && (named(b) || !named(a))
                    && keys[b].as_ref().is_some_and(|theirs| theirs.hold(mine))
            });
            if let Some(b) = holder {
                drop[i] = true;
                held_by.push((i, members[b]));
                warnings.push(Warning::new(
                    WarningKind::Duplicate,
                    &sessions[i].source.path,
                    None,
                    format!(
                        "copy of Claude session {}: its {} among the {} of {}, which is kept",
                        sessions[i].id,
                        match mine.keys.len() {
                            1 => "1 response is".to_string(),
                            n => format!("{} responses are", crate::render::thousands(n as u64)),
                        },
                        crate::render::thousands(
                            keys[b].as_ref().map_or(0, |k| k.keys.len()) as u64
                        ),
                        sessions[members[b]].source.path.display()
                    ),
                ));
            }
        }
    }
    // A response counts at the per-field maximum of its copies ([`count_once`]): a copy taken
    // while the response streamed holds a smaller snapshot, and may be the one kept.
    // And the `agent_progress` copies a dropped file holds that the kept one lacks (a copy
    // taken before a tool stripped the progress records) go over to the kept one.
    for (copy, holder) in held_by {
        let copied: Vec<(DedupKey, Usage)> = sessions[copy]
            .requests
            .iter()
            .filter_map(|r| Some((r.dedup_key.clone()?, *r.own_usage())))
            .collect();
        raise_to_copies(&mut sessions[holder].requests, &copied);
        let held: rustc_hash::FxHashSet<&DedupKey> = sessions[holder]
            .requests
            .iter()
            .filter_map(|r| r.dedup_key.as_ref())
            .collect();
        let missing: Vec<RequestUsage> = sessions[copy]
            .requests
            .iter()
            .filter(|r| r.is_copy() && r.dedup_key.as_ref().is_some_and(|k| !held.contains(k)))
            .cloned()
            .collect();
        sessions[holder].requests.extend(missing);
    }
    remove_marked(sessions, &drop, warnings)
}

/// Whether a file's name (without its extensions) is the session id it holds: the name Claude
/// Code gives the file it writes a session into.
fn named_after_its_session(s: &SessionSummary) -> bool {
    s.source
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('.').next())
        .is_some_and(|stem| stem == s.id)
}

/// The responses of a Claude file, as the copy rule compares them: `None` when one names no
/// message id (the file cannot be compared).
struct Responses<'a> {
    keys: rustc_hash::FxHashSet<(&'a str, Option<&'a str>)>,
    /// The message ids of the responses, and of those recorded without a `requestId`.
    ids: rustc_hash::FxHashSet<&'a str>,
    bare: rustc_hash::FxHashSet<&'a str>,
}

impl<'a> Responses<'a> {
    fn of(s: &'a SessionSummary) -> Option<Self> {
        let mut r = Responses {
            keys: Default::default(),
            ids: Default::default(),
            bare: Default::default(),
        };
        // The copies of sub-agent responses are no response of this session's: a copy of a
        // transcript holds the transcript's responses whatever progress records either kept.
        for k in s.own_requests() {
            let k = k.dedup_key.as_ref()?;
            let (mid, rid) = (&*k.message_id, k.request_id.as_deref());
            r.keys.insert((mid, rid));
            r.ids.insert(mid);
            if rid.is_none() {
                r.bare.insert(mid);
            }
        }
        Some(r)
    }

    /// Whether every response of `other` is one of these: the same message and request ids,
    /// or the same message id where either copy lost its `requestId`.
    fn hold(&self, other: &Responses) -> bool {
        other.keys.iter().all(|&(mid, rid)| match rid {
            Some(_) => self.keys.contains(&(mid, rid)) || self.bare.contains(mid),
            None => self.ids.contains(mid),
        })
    }
}

/// Raise each request of `requests` to the per-field maximum of its copies in `copied` (the
/// same message and request ids, or the same message id where a copy has no `requestId`).
fn raise_to_copies(requests: &mut [RequestUsage], copied: &[(DedupKey, Usage)]) {
    use rustc_hash::FxHashMap;
    let mut of: FxHashMap<(&str, Option<&str>), Usage> = FxHashMap::default();
    for (k, u) in copied {
        for key in [
            (&*k.message_id, k.request_id.as_deref()),
            (&*k.message_id, None),
        ] {
            of.entry(key).and_modify(|x| x.max_with(u)).or_insert(*u);
        }
    }
    for r in requests {
        let Some(k) = &r.dedup_key else { continue };
        let mid = &*k.message_id;
        // By its own ids, else (a copy without a `requestId` on either side) by message id.
        let u = of
            .get(&(mid, k.request_id.as_deref()))
            .or_else(|| of.get(&(mid, None)))
            .copied();
        if let Some(u) = u {
            r.raise_to(&u);
        }
    }
}

/// The files of `agent` that share a session id (and kind) with another, group by group, each
/// group best first: the most requests, then the most messages, then the most tokens (of two
/// copies of one history, the one whose last response streamed further), then the latest
/// update, then the first path. The copy rules keep the first.
fn same_session_files(sessions: &[SessionSummary], agent: Agent) -> Vec<Vec<usize>> {
    let mut groups: HashMap<(&str, SessionKind), Vec<usize>> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        if s.agent == agent && !s.id.is_empty() {
            groups.entry((s.id.as_str(), s.kind)).or_default().push(i);
        }
    }
    groups
        .into_values()
        .filter(|v| v.len() > 1)
        .map(|mut v| {
            v.sort_by_key(|&i| {
                let s = &sessions[i];
                std::cmp::Reverse((
                    (
                        s.own_requests().len(),
                        s.message_count,
                        s.usage.total(),
                        s.updated_at,
                    ),
                    std::cmp::Reverse(i),
                ))
            });
            v
        })
        .collect()
}

/// Remove the sessions marked in `drop`; their warnings in path order, whatever order the
/// groups came in.
fn remove_marked(
    sessions: &mut Vec<SessionSummary>,
    drop: &[bool],
    mut warnings: Vec<Warning>,
) -> Vec<Warning> {
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    let mut i = 0;
    sessions.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
    warnings
}
