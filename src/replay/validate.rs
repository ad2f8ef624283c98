//! `--validate`: the replay of an agent's own algorithm set against what the agent really did.

use crate::model::{Compaction, CompactionKind, Trigger};

use super::sync::Tracker;
use super::{Event, EventKind, Fidelity, Point, Validation};

/// Whether a recorded compaction is context management the replay can reproduce (masking is
/// paired but not a compaction to validate).
pub fn is_compaction(c: &Compaction) -> bool {
    c.kind != CompactionKind::GeminiMasking
}

/// One row per recorded compaction, and the session's fidelity figures.
pub fn validate(
    recorded: &[Compaction],
    events: &[Event],
    tracker: &Tracker,
    timeline: &[Point],
) -> (Vec<Validation>, Fidelity) {
    let paired: Vec<usize> = tracker.pairs.iter().map(|&(_, e)| e).collect();
    let unpaired: Vec<usize> = (0..events.len())
        .filter(|i| {
            events[*i].kind == EventKind::Compress && !events[*i].forced && !paired.contains(i)
        })
        .collect();
    let mut rows = Vec::new();
    let mut fidelity = Fidelity {
        unexpected: unpaired.len(),
        ..Fidelity::default()
    };
    let mut token_errors = Vec::new();
    for (i, c) in recorded.iter().enumerate() {
        // One before the first request (a resumed session) is where the log starts: nothing
        // the replay could have reproduced.
        if !is_compaction(c) || super::engine::starts_the_log(c) {
            continue;
        }
        // What the agent wrote, else the last recorded prompt before it (never an estimate:
        // the column and `recorded_tokens_before` say recorded).
        let rec_before = c.recorded_before().or_else(|| {
            c.request_index
                .checked_sub(1)
                .and_then(|j| timeline.get(j))
                .and_then(|p| p.recorded)
        });
        let partner = tracker.partner_of(i);
        // A compaction the replay only followed was not predicted.
        let followed = partner.is_some_and(|e| events[e].forced);
        let matched = partner.filter(|_| !followed);
        // An unmatched one is shown next to the nearest compression the replay made on its own.
        let e = matched.or_else(|| {
            unpaired
                .iter()
                .copied()
                .min_by_key(|&e| events[e].request.abs_diff(c.request_index))
        });
        let e = e.map(|e| &events[e]);
        let replay_before = e.map(|e| e.measure.unwrap_or(e.tokens_before));
        let delta_pct = match (replay_before, rec_before) {
            (Some(b), Some(r)) if r > 0 => Some(round1((b as f64 - r as f64) / r as f64 * 100.0)),
            _ => None,
        };
        // An unknown trigger may have been a `/compress` or `/compact`: not counted as automatic.
        let auto = c.trigger == Trigger::Auto;
        if auto {
            fidelity.recorded_auto += 1;
            if matched.is_some() {
                fidelity.predicted += 1;
                token_errors.extend(delta_pct.map(f64::abs));
            }
        }
        rows.push(Validation {
            trigger: c.trigger,
            timestamp: c.timestamp,
            matched: matched.is_some(),
            followed,
            recorded_request: c.request_index,
            recorded_tokens_before: rec_before,
            replay_request: e.map(|e| e.request),
            replay_tokens_before: replay_before,
            request_delta: e.map(|e| e.request as i64 - c.request_index as i64),
            tokens_delta_pct: delta_pct,
            record_id: c.record_id.clone(),
        });
    }
    fidelity.median_token_error_pct = median(token_errors).map(round1);
    let series: Vec<f64> = timeline
        .iter()
        .filter_map(|p| {
            let r = p.recorded.filter(|r| *r > 0)? as f64;
            Some((p.what_if as f64 - r).abs() / r * 100.0)
        })
        .collect();
    fidelity.median_series_error_pct = median(series).map(round1);
    (rows, fidelity)
}

pub fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// `--validate` over many sessions, for one agent: each recorded compaction counted once even
/// when several files hold it (checkpoint copies of a growing session).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    pub agent: crate::model::Agent,
    pub sessions: usize,
    /// Distinct automatic compactions recorded.
    pub recorded_auto: usize,
    /// Of those, predicted within ±1 request.
    pub predicted: usize,
    pub predicted_pct: f64,
    /// Median of |replay measure − recorded `preTokens`| / `preTokens` over the predicted ones.
    pub median_token_error_pct: Option<f64>,
    /// Median over sessions of their median |what_if − recorded| / recorded.
    pub median_series_error_pct: Option<f64>,
    /// Median over sessions of the calibration's median error.
    pub median_calibration_error_pct: Option<f64>,
}

pub fn summarize(rs: &[&super::SessionReplay]) -> Vec<Summary> {
    let mut agents: Vec<crate::model::Agent> = rs.iter().map(|r| r.agent).collect();
    agents.sort();
    agents.dedup();
    agents
        .into_iter()
        .filter_map(|agent| {
            let mine: Vec<&&super::SessionReplay> = rs
                .iter()
                .filter(|r| r.agent == agent && r.validation.is_some())
                .collect();
            if mine.is_empty() {
                return None;
            }
            let mut seen = std::collections::HashSet::new();
            let (mut auto, mut predicted, mut errors) = (0, 0, Vec::new());
            for r in &mine {
                for v in r.validation.iter().flatten() {
                    // The record's id names it in a resumed session's copy too, under
                    // another session id.
                    let key = match &v.record_id {
                        Some(id) => (None, Some(id.as_str()), None, None),
                        None => (Some(&r.id), None, v.timestamp, v.recorded_tokens_before),
                    };
                    if v.trigger != Trigger::Auto || !seen.insert(key) {
                        continue;
                    }
                    auto += 1;
                    if v.matched {
                        predicted += 1;
                        errors.extend(v.tokens_delta_pct.map(f64::abs));
                    }
                }
            }
            let per_session = |f: &dyn Fn(&super::SessionReplay) -> Option<f64>| {
                median(mine.iter().filter_map(|r| f(r)).collect()).map(round1)
            };
            Some(Summary {
                agent,
                sessions: mine.len(),
                recorded_auto: auto,
                predicted,
                predicted_pct: if auto == 0 {
                    0.0
                } else {
                    round1(predicted as f64 / auto as f64 * 100.0)
                },
                median_token_error_pct: median(errors).map(round1),
                median_series_error_pct: per_session(&|r| {
                    r.fidelity.and_then(|f| f.median_series_error_pct)
                }),
                median_calibration_error_pct: per_session(&|r| r.calibration.median_error_pct),
            })
        })
        .collect()
}
