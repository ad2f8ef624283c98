//! Which copy of each request aggregates count ([`count_once`]) and the totals read through
//! that choice: apart from the scan because every command's totals depend on it, whether or
//! not it scanned.

use super::SessionSummary;
use crate::model::{DedupKey, RequestUsage, Usage};

/// The requests of `sessions` that aggregates count, by the cross-file rules
/// ([`count_once`], which the scan has run over the whole store before filtering), in a
/// deterministic order: sessions in the order given, each session's requests in file order.
pub fn unique_requests(sessions: &[SessionSummary]) -> Vec<(&SessionSummary, &RequestUsage)> {
    unique_requests_of(sessions.iter())
}

/// [`unique_requests`] over any collection of sessions (a project's members, a filtered view).
pub fn unique_requests_of<'a>(
    sessions: impl IntoIterator<Item = &'a SessionSummary>,
) -> Vec<(&'a SessionSummary, &'a RequestUsage)> {
    sessions
        .into_iter()
        .flat_map(|s| s.requests.iter().filter(|r| r.counted).map(move |r| (s, r)))
        .collect()
}

/// Mark which copy of each request aggregates count, over every session read (the time window
/// reads every file that may hold a copy of a response a file read holds): run by the scan
/// before any filter, so a filter that leaves out the copy that counts (a parent session under
/// `--kind subagent`, another project) cannot make a copy count instead.
///
/// A Claude response (`message.id` + `requestId`) written into several files (resumed
/// sessions, sub-agent logs, `agent_progress` copies, backups) counts once, at the per-field
/// maximum of its copies' usage (a copy can be taken mid-stream); a copy without a `requestId`
/// is the response its `message.id` names. It belongs to the session that made it: a main
/// session's copy over a sidechain's, a record over an `agent_progress` copy, and among those
/// the session that started first, then the one that ended first (a resumed session repeats
/// its parent's records, and goes on after them), then the first path. So a sub-agent response
/// known only from the `agent_progress` copies in its parent's file (the sub-agent's own file
/// not kept) counts once, in that parent session, still a sidechain request. A sidechain copy
/// of a message whose id a main session holds is a replay of the parent's context (same
/// message, new request id) and never counts. Requests without an identity are unique to
/// their file. A Gemini response is keyed by its message id (a UUID, no request id): two
/// copies of one session kept for diverging ([`crate::gemini_groups`]) count it once.
pub fn count_once(sessions: &mut [SessionSummary]) {
    use rustc_hash::{FxHashMap, FxHashSet};
    type Key<'k> = (&'k str, Option<&'k str>);
    let mut order: Vec<usize> = (0..sessions.len()).collect();
    // A resumed session starts with its parent's records, timestamps and all, and goes on
    // after the parent ended: the parent is the session that started first, then ended first.
    // Stable: the path order among the rest.
    order.sort_by_key(|&i| {
        let s = &sessions[i];
        (
            s.started_at.is_none(),
            s.started_at,
            s.updated_at.is_none(),
            s.updated_at,
        )
    });
    let (merged, dropped) = {
        let sessions = &*sessions;
        let keyed = sessions
            .iter()
            .flat_map(|s| &s.requests)
            .filter(|r| r.dedup_key.as_ref().is_some_and(|k| !k.sidechain))
            .count();
        // A copy without a `requestId` (a proxy, an older build) is the response its message id
        // names: it takes the request id another copy of that message records, if any. Only
        // built when such a copy exists.
        let mut request_of: FxHashMap<&str, &str> = FxHashMap::default();
        let keys = || {
            sessions
                .iter()
                .flat_map(|s| &s.requests)
                .filter_map(|r| r.dedup_key.as_ref())
        };
        if keys().any(|k| k.request_id.is_none()) {
            for &si in &order {
                for k in sessions[si]
                    .requests
                    .iter()
                    .filter_map(|r| r.dedup_key.as_ref())
                {
                    if let Some(rid) = k.request_id.as_deref() {
                        request_of.entry(&*k.message_id).or_insert(rid);
                    }
                }
            }
        }
        fn key_in<'k>(k: &'k DedupKey, request_of: &FxHashMap<&'k str, &'k str>) -> Key<'k> {
            let mid = &*k.message_id;
            let rid = k.request_id.as_deref();
            (mid, rid.or_else(|| request_of.get(mid).copied()))
        }
        let key_of = |k| key_in(k, &request_of);
        // Sized once: growing these by doubling on a store's worth of requests held the old
        // and the new table at once, a transient of several MB at the end of every scan.
        let mut main: FxHashMap<Key, (usize, usize, Usage)> =
            FxHashMap::with_capacity_and_hasher(keyed, Default::default());
        let mut main_ids: FxHashSet<&str> =
            FxHashSet::with_capacity_and_hasher(keyed, Default::default());
        for &si in &order {
            for (ri, r) in sessions[si].requests.iter().enumerate() {
                if let Some(k) = r.dedup_key.as_ref().filter(|k| !k.sidechain) {
                    main.entry(key_of(k))
                        .and_modify(|(_, _, u)| u.max_with(&r.usage))
                        .or_insert((si, ri, r.usage));
                    main_ids.insert(&*k.message_id);
                }
            }
        }
        let mut side: FxHashMap<Key, (usize, usize, Usage)> = FxHashMap::default();
        let mut dropped = Vec::new();
        // The copies last: any other record of a response (the sub-agent's own file, whatever
        // the order of the sessions) stands for it before an `agent_progress` copy does.
        for (copies, &si) in [false, true]
            .into_iter()
            .flat_map(|c| order.iter().map(move |si| (c, si)))
        {
            for (ri, r) in sessions[si].requests.iter().enumerate() {
                let Some(k) = r.dedup_key.as_ref().filter(|k| k.copy == copies) else {
                    continue;
                };
                let key = key_of(k);
                if !k.sidechain {
                    if main.get(&key).is_some_and(|&(s, r, _)| (s, r) != (si, ri)) {
                        dropped.push((si, ri));
                    }
                    continue;
                }
                if let Some((_, _, u)) = main.get_mut(&key) {
                    // The same response, also written into a sidechain.
                    u.max_with(&r.usage);
                    dropped.push((si, ri));
                } else if main_ids.contains(&*k.message_id) {
                    dropped.push((si, ri));
                } else {
                    match side.entry(key) {
                        std::collections::hash_map::Entry::Occupied(mut e) => {
                            e.get_mut().2.max_with(&r.usage);
                            dropped.push((si, ri));
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert((si, ri, r.usage));
                        }
                    }
                }
            }
        }
        let merged: Vec<(usize, usize, Usage)> = main
            .into_values()
            .chain(side.into_values())
            .filter(|&(si, ri, u)| sessions[si].requests[ri].usage != u)
            .collect();
        (merged, dropped)
    };
    for (si, ri, u) in merged {
        sessions[si].requests[ri].raise_to(&u);
    }
    for (si, ri) in dropped {
        sessions[si].requests[ri].counted = false;
    }
}

/// Token totals over several sessions: a sum over [`unique_requests_of`], so `list`,
/// `projects` and `usage` totals cannot disagree.
pub fn aggregate_usage<'a>(sessions: impl IntoIterator<Item = &'a SessionSummary>) -> Usage {
    let mut total = Usage::default();
    for (_, r) in unique_requests_of(sessions) {
        total.add(&r.usage);
    }
    total
}
