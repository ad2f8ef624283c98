//! Compaction traces in a Gemini log: the compression notices of `info` messages, the
//! `<state_snapshot>` and JSON-object summaries a checkpoint or a resumed file holds, and the
//! token estimates around them (formats.md §3.7). A child of the log engine, whose state they
//! read and mark, kept apart because recognising a compaction is a concern of its own.

use rustc_hash::FxHashMap as HashMap;
use serde_json::{Map, Value};

use super::{Entry, Log, Mark, Slot, content_text};
use crate::model::{Compaction, CompactionKind, Provenance, Trigger};
use crate::parse::gemini::content::{Ctx, build_parts, estimate_parts};
use crate::parse::gemini::{JSON_SNAPSHOT_KEYS, SECTION_TAGS, SNAPSHOT_ACK, SNAPSHOT_TAG};
use crate::parse::hash64;

/// A compression trace found in an `info` message.
pub(in crate::parse::gemini) struct InfoTrace {
    pub(in crate::parse::gemini) trigger: Trigger,
    pub(in crate::parse::gemini) percent: Option<(u32, u32)>,
    /// `(compressed from, to)`; `None` for `unknown`.
    pub(in crate::parse::gemini) tokens: Option<(Option<u64>, Option<u64>)>,
}

impl Log {
    /// Compression traces carried by a newly recorded message line.
    pub(super) fn trace_line(&mut self, line: u64, idx: usize, typ: &str) {
        match typ {
            "info" => {
                let text = self.entries[idx].text();
                if let Some(trace) = parse_info(text.trim(), self.compress_pending) {
                    if trace.trigger == Trigger::Manual {
                        self.compress_pending = false;
                    }
                    self.info_trace(line, idx, text.trim(), trace);
                }
            }
            "user" | "gemini" => {
                self.recent_snapshot = None;
                self.compress_pending = typ == "user" && is_compress_command(&self.entries[idx]);
            }
            _ => {}
        }
    }

    fn info_trace(&mut self, line: u64, idx: usize, text: &str, trace: InfoTrace) {
        let ci = match self.recent_snapshot.take() {
            Some(ci) => ci,
            None => {
                let mut c = Compaction::new(CompactionKind::GeminiInfo);
                c.timestamp = self.entries[idx].timestamp;
                c.extra = Value::Object(Map::new());
                self.events.push(c);
                let ci = self.events.len() - 1;
                // The notice follows the compression: the marker goes just before it.
                let pos = self
                    .slots
                    .iter()
                    .rposition(|s| matches!(s, Slot::Msg(i) if *i == idx))
                    .unwrap_or(self.slots.len());
                self.slots.insert(pos, Slot::Marker(ci));
                ci
            }
        };
        let c = &mut self.events[ci];
        match trace.trigger {
            Trigger::Manual => c.trigger = Trigger::Manual,
            Trigger::Auto if c.trigger == Trigger::Unknown => c.trigger = Trigger::Auto,
            _ => {}
        }
        if let Some((b, a)) = trace.percent {
            c.percent_before = Some(b);
            c.percent_after = Some(a);
        }
        if let Some((b, a)) = trace.tokens
            && (b.is_some() || a.is_some())
        {
            c.tokens_before = b;
            c.tokens_after = a;
            c.tokens_provenance = Provenance::Recorded;
        }
        if let Value::Object(extra) = &mut c.extra {
            extra.insert("info".into(), Value::String(text.to_string()));
            if line > 0 {
                extra.insert("info_line".into(), Value::from(line));
            }
        }
    }

    /// Estimated tokens of some history entries, as they are now.
    pub(super) fn estimate(&self, idxs: &[usize]) -> u64 {
        let status = HashMap::default();
        let mut ctx = Ctx {
            fr_ids: &self.fr_ids,
            status: &status,
            pending: Vec::new(),
        };
        idxs.iter()
            .map(|&i| {
                let b = build_parts(&self.entries[i], &mut ctx);
                estimate_parts(&b.parts) + estimate_parts(&b.results)
            })
            .sum()
    }

    /// If `order[w]` is a compression summary not seen before — a `<state_snapshot>` user text
    /// followed by the acknowledgement, or an experimental JSON-object snapshot — mark it (and
    /// its ack) and return `(entry, kind, text)`. A summary a later checkpoint re-lists is the
    /// same compression, so each text is claimed once.
    pub(super) fn claim_snapshot(
        &mut self,
        order: &[usize],
        w: usize,
    ) -> Option<(usize, CompactionKind, String)> {
        let i = order[w];
        if self.entries[i].typ() != "user" || self.entries[i].mark != Mark::None {
            return None;
        }
        let text = self.entries[i].text();
        let ack = order
            .get(w + 1)
            .copied()
            .filter(|&j| is_ack(&self.entries[j]));
        let kind = if text.contains(SNAPSHOT_TAG) {
            ack?;
            CompactionKind::GeminiSnapshot
        } else if json_snapshot_sections(&text).is_some() {
            CompactionKind::GeminiJsonSnapshot
        } else {
            return None;
        };
        if !self.summaries.insert(hash64(&text)) {
            return None;
        }
        self.entries[i].mark = Mark::Summary;
        if let (CompactionKind::GeminiSnapshot, Some(j)) = (kind, ack) {
            self.entries[j].mark = Mark::Ack;
        }
        Some((i, kind, text))
    }

    /// Snapshots outside checkpoints: legacy documents, resumed files, saved chats.
    pub(super) fn detect_loose_snapshots(&mut self) {
        let order: Vec<usize> = self
            .slots
            .iter()
            .filter_map(|s| match s {
                Slot::Msg(i) => Some(*i),
                Slot::Marker(_) => None,
            })
            .collect();
        let live_hist: Vec<usize> = self
            .live
            .iter()
            .copied()
            .filter(|&i| self.entries[i].is_history())
            .collect();
        let mut inserts: Vec<(usize, usize)> = Vec::new();
        for w in 0..order.len() {
            let Some((i, kind, text)) = self.claim_snapshot(&order, w) else {
                continue;
            };
            let mut c = snapshot_event(kind, &text);
            c.timestamp = self.entries[i].timestamp;
            c.messages_after = Some(live_hist.len());
            c.tokens_after = Some(self.estimate(&live_hist));
            c.tokens_provenance = Provenance::Estimated;
            self.events.push(c);
            inserts.push((i, self.events.len() - 1));
        }
        for (i, ci) in inserts {
            let pos = self
                .slots
                .iter()
                .position(|s| matches!(s, Slot::Msg(x) if *x == i))
                .unwrap_or(self.slots.len());
            self.slots.insert(pos, Slot::Marker(ci));
        }
    }
}

fn is_ack(e: &Entry) -> bool {
    e.typ() == "gemini" && e.text().trim().starts_with(SNAPSHOT_ACK)
}

fn is_compress_command(e: &Entry) -> bool {
    let is_cmd = |t: String| {
        let t = t.trim();
        ["/compress", "/summarize"].iter().any(|c| {
            t.strip_prefix(c)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        })
    };
    is_cmd(e.text()) || is_cmd(content_text(e.rec.get("displayContent")))
}

pub(super) fn snapshot_event(kind: CompactionKind, text: &str) -> Compaction {
    let mut c = Compaction::new(kind);
    c.summary = Some(text.to_string());
    c.sections = match kind {
        CompactionKind::GeminiJsonSnapshot => json_snapshot_sections(text).unwrap_or_default(),
        _ => SECTION_TAGS
            .iter()
            .filter(|t| text.contains(&format!("<{t}>")))
            .map(|t| t.to_string())
            .collect(),
    };
    c
}

/// The snapshot keys present when `text` is an experimental JSON-object snapshot.
pub(super) fn json_snapshot_sections(text: &str) -> Option<Vec<String>> {
    let t = text.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map(|r| r.trim_end().trim_end_matches("```").trim())
        .unwrap_or(t);
    if !t.starts_with('{') {
        return None;
    }
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(t) else {
        return None;
    };
    let keys: Vec<String> = JSON_SNAPSHOT_KEYS
        .iter()
        .filter(|k| o.contains_key(**k))
        .map(|k| k.to_string())
        .collect();
    (keys.len() >= 2).then_some(keys)
}

/// Compression notices (`formats.md` §3.7 rules b and c).
pub(in crate::parse::gemini) fn parse_info(text: &str, after_compress: bool) -> Option<InfoTrace> {
    if text.is_empty() {
        return after_compress.then_some(InfoTrace {
            trigger: Trigger::Manual,
            percent: None,
            tokens: None,
        });
    }
    if let Some(rest) = text.strip_prefix("Context compressed from ") {
        let (a, rest) = rest.split_once("% to ")?;
        let b = rest.strip_suffix("%.")?;
        return Some(InfoTrace {
            trigger: Trigger::Auto,
            percent: Some((
                u32::try_from(digits(a)?).ok()?,
                u32::try_from(digits(b)?).ok()?,
            )),
            tokens: None,
        });
    }
    let rest = text.strip_prefix("IMPORTANT: This conversation ")?;
    let ok_head = rest.starts_with("exceeded the compress threshold. ")
        || rest
            .strip_prefix("approached the input token limit for ")
            .and_then(|r| r.split_once(". "))
            .is_some_and(|(model, _)| !model.is_empty() && !model.contains(char::is_whitespace));
    if !ok_head {
        return None;
    }
    let (_, tail) = rest
        .split_once("A compressed context will be sent for future messages (compressed from: ")?;
    let (a, b) = tail.strip_suffix(" tokens).")?.split_once(" to ")?;
    let num = |s: &str| -> Option<Option<u64>> {
        if s == "unknown" {
            Some(None)
        } else {
            digits(s).map(Some)
        }
    };
    Some(InfoTrace {
        trigger: Trigger::Auto,
        percent: None,
        tokens: Some((num(a)?, num(b)?)),
    })
}

fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}
