//! What a replayed series would have cost, with prompt caching: "did compression save money?"
//! can have a different answer from "did it save tokens?", because a compression rewrites the
//! cached prefix and the next request pays for its whole context again.
//!
//! The model, per request `k` of a series (context sizes `x`):
//!
//! - the part of the context that is the unchanged prefix of request `k − 1`'s context is a
//!   cache read: all of `x[k−1]` (the context only grows between rewrites), at most `x[k]`;
//! - when the algorithm (or, for `recorded`, the agent) rewrote the history at `k` —
//!   a compression, a prune, a masking, a truncation — only the fixed overhead (system prompt and
//!   tool declarations: the calibration's offset) is still a prefix;
//! - when more than the cache lifetime passed since request `k − 1` (the session's own
//!   timestamps), nothing is cached: Anthropic's default cache lives 5 minutes, and OpenAI's and
//!   Gemini's implicit caches are documented at 5 minutes or more, so 5 minutes for all;
//! - the rest is written: billed as a cache write for Claude models (Claude Code marks its
//!   prompts cacheable), as plain input for the others (no write premium);
//! - the output is every series' own: the responses the agent received; a replay's summariser
//!   calls are added to `what_if` (their input uncached, their output as output).
//!
//! A transcript records the requests the agent made for the conversation, not the summariser
//! call behind each of its own compactions. Set against a what-if that pays for its summariser,
//! a `recorded` without the agent's would understate every saving by about what those calls
//! cost, so `saved_vs_recorded_usd` adds them, estimated as the replay estimates its own
//! ([`agent_summariser`]) and shown apart as `recorded_summariser`.
//!
//! Where the agent recorded the split (Claude's cache reads and writes, Codex's cached input),
//! `recorded` uses it, and the model is checked against it: `cache_read_error_pct` is
//! Σ|modelled − recorded| / Σ recorded over those requests.

use serde::Serialize;

use crate::model::{Agent, Trigger, Usage};
use crate::pricing::{ModelPrice, Picos};

use super::{Algorithm, Event, EventKind, Point, ReplayInput};

/// Cache lifetime assumed for every provider, in seconds.
pub const CACHE_TTL_SECONDS: i64 = 300;

/// One series' tokens by price class, and their price.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SeriesCost {
    pub input: u64,
    pub cache_write: u64,
    pub cache_read: u64,
    pub output: u64,
    /// `null` when the model has no price.
    pub usd: Option<f64>,
    /// The exact sum behind `usd` (as `list` and `usage` sum a session's requests: the
    /// recorded series of a session prints the cost they print).
    #[serde(skip)]
    exact: Picos,
}

/// The summariser calls of the compactions the agent ran itself, estimated.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SummariserCost {
    /// The agent's automatic and manual compactions after the session's first request.
    pub compactions: u64,
    /// Uncached input tokens: the context each call summarised.
    pub input: u64,
    pub output: u64,
    /// `null` when the model has no price.
    pub usd: Option<f64>,
}

/// The cost of a replay's three series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayCost {
    pub model: Option<String>,
    pub cache_ttl_seconds: i64,
    pub full: SeriesCost,
    pub recorded: SeriesCost,
    /// The agent's own compaction calls, which `recorded` (the transcript's requests) lacks.
    pub recorded_summariser: SummariserCost,
    pub what_if: SeriesCost,
    /// `full.usd − what_if.usd`: what the algorithm saved in dollars (negative: it cost more).
    pub saved_usd: Option<f64>,
    /// `recorded.usd + recorded_summariser.usd − what_if.usd`, over the requests with a
    /// recorded size: each side with its summariser calls.
    pub saved_vs_recorded_usd: Option<f64>,
    /// How far the cache model is from the cache reads the agent recorded (see the module
    /// docs); `null` where nothing was recorded.
    pub cache_read_error_pct: Option<f64>,
}

/// The tokens of one request, by price class.
#[derive(Debug, Clone, Copy, Default)]
struct Split {
    fresh: u64,
    read: u64,
}

/// The cache model over one series: `sizes[k]`, with `rewrites[k]` when the history was
/// rewritten before request `k`.
fn model_splits(sizes: &[u64], rewrites: &[bool], gaps_ok: &[bool], overhead: u64) -> Vec<Split> {
    let mut out = Vec::with_capacity(sizes.len());
    for (k, &x) in sizes.iter().enumerate() {
        let read = if k == 0 || !gaps_ok[k] {
            0
        } else if rewrites[k] {
            overhead.min(x)
        } else {
            sizes[k - 1].min(x)
        };
        out.push(Split {
            fresh: x - read,
            read,
        });
    }
    out
}

fn usage_of(s: Split, output: u64, claude: bool) -> Usage {
    Usage {
        input: if claude { 0 } else { s.fresh },
        cache_write: if claude { s.fresh } else { 0 },
        cache_read: s.read,
        output,
        ..Usage::default()
    }
}

fn add(total: &mut SeriesCost, u: &Usage, price: Option<&ModelPrice>) {
    total.input = total.input.saturating_add(u.input);
    total.cache_write = total.cache_write.saturating_add(u.cache_write);
    total.cache_read = total.cache_read.saturating_add(u.cache_read);
    total.output = total.output.saturating_add(u.output);
    if let (Some(p), Some(_)) = (price, total.usd) {
        total.exact.add(crate::pricing::request_cost(p, u));
    }
}

/// A series' exact cost, `None` when its model has no price.
fn exact(s: &SeriesCost) -> Option<Picos> {
    s.usd.map(|_| s.exact)
}

fn rewrites_at(n: usize, at: impl Iterator<Item = usize>) -> Vec<bool> {
    let mut v = vec![false; n];
    for k in at {
        if let Some(x) = v.get_mut(k) {
            *x = true;
        }
    }
    v
}

/// The summariser calls behind the compactions the agent ran itself, estimated as a replay's
/// own (its [`Event::summariser_input`] and [`Event::summariser_output`]): one call whose input
/// is the whole context being summarised, uncached, and whose output is the summary; Gemini
/// CLI's two (the summary, then the verification pass over the same context and the summary,
/// which writes it again). The context is the size the agent recorded at the compaction (Claude
/// `preTokens`, Codex's last prompt, Gemini's notice; never an estimate such as a Gemini
/// snapshot's), else the request before it (its prompt and response); the
/// summary is the agent's, estimated as `--summary-tokens auto` sizes the replay's, else the
/// median of the session's other summaries, else the default size of the agent's algorithm
/// (never the replay's size: the agent's summaries are the session's, whatever is replayed). A
/// compaction the log starts from (a resumed or continued session) was paid for in an earlier
/// session, and a masking or an unknown trigger is no summariser call the agent is known to have
/// made: none of them counts.
pub fn agent_summariser(input: &ReplayInput) -> Vec<Usage> {
    let summary_of = |c: &crate::model::Compaction| {
        c.summary
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(crate::tokens::estimate_text)
    };
    let sizes = input
        .recorded_compactions
        .iter()
        .filter(|c| super::validate::is_compaction(c))
        .filter_map(summary_of)
        .map(|t| t as f64)
        .collect();
    let unknown = super::validate::median(sizes).map_or_else(
        || {
            [Algorithm::Claude, Algorithm::Codex, Algorithm::Gemini]
                .into_iter()
                .find(|a| a.native_agent() == Some(input.agent))
                .map_or(0, Algorithm::default_summary_tokens)
        },
        |m| m.round() as u64,
    );
    input
        .recorded_compactions
        .iter()
        .filter(|c| {
            super::validate::is_compaction(c)
                && matches!(c.trigger, Trigger::Auto | Trigger::Manual)
                && !super::engine::starts_the_log(c)
        })
        .map(|c| {
            let context = c
                .recorded_before()
                .or_else(|| {
                    let r = input.requests.get(c.request_index.checked_sub(1)?)?;
                    Some(r.recorded_prompt?.saturating_add(r.output))
                })
                .unwrap_or(0);
            let summary = summary_of(c).unwrap_or(unknown);
            if input.agent == Agent::Gemini {
                Usage {
                    input: context.saturating_mul(2).saturating_add(summary),
                    output: summary.saturating_mul(2),
                    ..Usage::default()
                }
            } else {
                Usage {
                    input: context,
                    output: summary,
                    ..Usage::default()
                }
            }
        })
        .collect()
}

/// Cost the three series of a replay.
pub fn of(
    input: &ReplayInput,
    timeline: &[Point],
    events: &[Event],
    overhead: u64,
    price: Option<&ModelPrice>,
) -> ReplayCost {
    let n = timeline.len().min(input.requests.len());
    let claude = input
        .model
        .as_deref()
        .is_some_and(|m| m.to_ascii_lowercase().contains("claude"));
    let gaps_ok: Vec<bool> = (0..n)
        .map(|k| {
            k > 0
                && match (input.requests[k - 1].timestamp, input.requests[k].timestamp) {
                    (Some(a), Some(b)) => (b - a).num_seconds() <= CACHE_TTL_SECONDS,
                    // Untimed requests are taken as one sitting.
                    _ => true,
                }
        })
        .collect();
    let empty = SeriesCost {
        usd: price.map(|_| 0.0),
        ..SeriesCost::default()
    };
    let outputs: Vec<u64> = input.requests[..n].iter().map(|r| r.output).collect();

    // full: never rewritten.
    let full_sizes: Vec<u64> = timeline[..n].iter().map(|p| p.full).collect();
    let mut full = empty;
    for (k, s) in model_splits(&full_sizes, &vec![false; n], &gaps_ok, overhead)
        .into_iter()
        .enumerate()
    {
        add(&mut full, &usage_of(s, outputs[k], claude), price);
    }

    // what_if: rewritten where the replay acted; its summariser calls on top.
    let acted = events.iter().filter(|e| {
        matches!(
            e.kind,
            EventKind::Compress | EventKind::Prune | EventKind::Mask | EventKind::Truncate
        )
    });
    let wi_sizes: Vec<u64> = timeline[..n].iter().map(|p| p.what_if).collect();
    let mut what_if = empty;
    let wi_rewrites = rewrites_at(n, acted.map(|e| e.request));
    let wi_splits = model_splits(&wi_sizes, &wi_rewrites, &gaps_ok, overhead);
    for (k, &s) in wi_splits.iter().enumerate() {
        add(&mut what_if, &usage_of(s, outputs[k], claude), price);
    }
    let summariser: Vec<Usage> = events
        .iter()
        .map(|e| Usage {
            input: e.summariser_input,
            output: e.summariser_output,
            ..Usage::default()
        })
        .collect();
    for u in &summariser {
        add(&mut what_if, u, price);
    }

    // recorded: the agent's own split where it recorded one, else the model over its sizes
    // with its own compactions as rewrites.
    let rec_sizes: Vec<u64> = timeline[..n]
        .iter()
        .map(|p| p.recorded.unwrap_or(0))
        .collect();
    let rec_rewrites = rewrites_at(
        n,
        input.recorded_compactions.iter().map(|c| c.request_index),
    );
    let modelled = model_splits(&rec_sizes, &rec_rewrites, &gaps_ok, overhead);
    let mut recorded = empty;
    let mut wi_on_recorded = empty;
    let (mut diff, mut seen) = (0u64, 0u64);
    for k in 0..n {
        if timeline[k].recorded.is_none() {
            continue;
        }
        let u = match input.requests[k].usage {
            Some(u) if u.cache_read > 0 || u.cache_write > 0 => {
                diff = diff.saturating_add(modelled[k].read.abs_diff(u.cache_read));
                seen = seen.saturating_add(u.cache_read);
                u
            }
            _ => usage_of(modelled[k], outputs[k], claude),
        };
        add(&mut recorded, &u, price);
        add(
            &mut wi_on_recorded,
            &usage_of(wi_splits[k], outputs[k], claude),
            price,
        );
    }
    // Each side of the comparison pays for its summariser calls: the what-if side for the
    // replay's, as `what_if` does, the recorded side for the agent's.
    for u in &summariser {
        add(&mut wi_on_recorded, u, price);
    }
    let mut agent = empty;
    let agent_calls = agent_summariser(input);
    for u in &agent_calls {
        add(&mut agent, u, price);
    }
    let recorded_summariser = SummariserCost {
        compactions: agent_calls.len() as u64,
        input: agent.input,
        output: agent.output,
        usd: exact(&agent).map(Picos::usd),
    };
    let minus = |a: Option<Picos>, b: Option<Picos>| Some(a?.usd_minus(b?));
    let plus = |a: Option<Picos>, b: Option<Picos>| {
        let mut sum = a?;
        sum.merge(b?);
        Some(sum)
    };
    // With no recorded size the comparison covers no request: what would be left is one
    // summariser estimate against the other.
    let compared = timeline[..n].iter().any(|p| p.recorded.is_some());
    ReplayCost {
        model: input.model.clone(),
        cache_ttl_seconds: CACHE_TTL_SECONDS,
        saved_usd: minus(exact(&full), exact(&what_if)),
        saved_vs_recorded_usd: minus(
            plus(exact(&recorded), exact(&agent)),
            exact(&wi_on_recorded),
        )
        .filter(|_| compared),
        full: rounded(full),
        recorded: rounded(recorded),
        recorded_summariser,
        what_if: rounded(what_if),
        cache_read_error_pct: (seen > 0)
            .then(|| (diff as f64 / seen as f64 * 1000.0).round() / 10.0),
    }
}

fn rounded(mut s: SeriesCost) -> SeriesCost {
    s.usd = exact(&s).map(Picos::usd);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_previous_context_and_pays_again_after_a_rewrite() {
        // Sizes 10k, 20k, 30k; a compaction before request 3 (5k); overhead 2k.
        let sizes = [10_000, 20_000, 30_000, 5_000, 8_000];
        let rewrites = [false, false, false, true, false];
        let ok = [false, true, true, true, true];
        let s = model_splits(&sizes, &rewrites, &ok, 2_000);
        let got: Vec<(u64, u64)> = s.iter().map(|s| (s.read, s.fresh)).collect();
        // 0: nothing cached yet; 1–2: the previous context is read; 3: only the overhead
        // survives the rewrite; 4: the rewritten 5k is read.
        assert_eq!(
            got,
            [
                (0, 10_000),
                (10_000, 10_000),
                (20_000, 10_000),
                (2_000, 3_000),
                (5_000, 3_000)
            ]
        );
    }

    #[test]
    fn an_idle_gap_empties_the_cache() {
        let s = model_splits(&[10_000, 12_000], &[false, false], &[false, false], 2_000);
        assert_eq!((s[1].read, s[1].fresh), (0, 12_000));
    }
}
