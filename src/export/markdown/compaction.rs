//! A compaction as a divider: trigger, tokens before → after (recorded or estimated),
//! duration, what kind of trace it left, and the full summary the agent kept.

use std::fmt::Write as _;

use serde_json::Value;

use super::Document;
use super::cmark::{blockquote, inline};
use crate::model::{Compaction, CompactionKind, Provenance, Trigger};
use crate::render::{plural, thousands, time};

impl Document<'_, '_> {
    pub(super) fn compaction(&self, index: usize) -> String {
        let c = &self.s.compactions[index];
        let mut out = String::from("---\n\n");
        let _ = write!(
            out,
            "**— Compaction {} of {} —** {}\n\n",
            index + 1,
            self.s.compactions.len(),
            inline(&compaction_line(c))
        );
        let mut facts = vec![kind_label(c.kind).to_string()];
        if let (Some(b), Some(a)) = (c.messages_before, c.messages_after) {
            facts.push(format!(
                "{} before, {} after",
                plural(b, "message"),
                thousands(a as u64)
            ));
        }
        if let Some(n) = c.extra.get("masked_outputs").and_then(Value::as_u64) {
            facts.push(format!("{} masked", plural(n as usize, "tool output")));
        }
        if let Some(n) = c.extra.get("tokensSaved").and_then(Value::as_u64) {
            facts.push(format!("{} tokens saved (recorded)", thousands(n)));
        }
        if let Some(ids) = c.extra.get("compactedToolIds").and_then(Value::as_array) {
            facts.push(format!("{} cleared", plural(ids.len(), "tool result")));
        }
        if !c.sections.is_empty() {
            facts.push(format!("sections: {}", c.sections.join(", ")));
        }
        let _ = write!(out, "*{}*\n\n", inline(&facts.join(" · ")));
        match c.summary.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(summary) => {
                out.push_str("Summary (full text):\n\n");
                out.push_str(&blockquote(&self.text(summary)));
            }
            None if c.kind == CompactionKind::ClaudeMicrocompact => out.push_str(
                "*Old tool results were cleared from the context; a microcompaction writes no summary.*\n\n",
            ),
            None if c.kind == CompactionKind::GeminiNewFile => out.push_str(
                "*The conversation was compressed and continued in this file; the earlier part is in another file of the same session.*\n\n",
            ),
            None => out.push_str("*No summary text was recorded for this compaction.*\n\n"),
        }
        out.push_str("---\n\n");
        out
    }
}

/// `manual · 11,250 → 2,100 tokens (recorded) · took 18.5 s · 2026-03-14 10:00:00 +00:00`
pub fn compaction_line(c: &Compaction) -> String {
    let mut parts = vec![trigger_str(c.trigger).to_string()];
    let prov = |p: Provenance| match p {
        Provenance::Recorded => "recorded",
        Provenance::Estimated => "estimated",
        Provenance::Unknown => "provenance unknown",
    };
    let (pb, pa) = (c.before_provenance(), c.after_provenance());
    match (c.tokens_before, c.tokens_after) {
        (Some(b), Some(a)) if pb == pa => parts.push(format!(
            "{} → {} tokens ({})",
            thousands(b),
            thousands(a),
            prov(pb)
        )),
        (Some(b), Some(a)) => parts.push(format!(
            "{} tokens ({}) → {} tokens ({})",
            thousands(b),
            prov(pb),
            thousands(a),
            prov(pa)
        )),
        (Some(b), None) => parts.push(format!("{} tokens before ({})", thousands(b), prov(pb))),
        (None, Some(a)) => parts.push(format!("{} tokens after ({})", thousands(a), prov(pa))),
        (None, None) => parts.push("token counts not recorded".into()),
    }
    if let (Some(b), Some(a)) = (c.percent_before, c.percent_after) {
        parts.push(format!("context {b}% → {a}%"));
    }
    if let Some(ms) = c.duration_ms {
        parts.push(format!("took {:.1} s", ms as f64 / 1000.0));
    }
    if let Some(t) = c.timestamp {
        parts.push(time::timestamp(t));
    }
    parts.join(" · ")
}

pub(super) fn trigger_str(t: Trigger) -> &'static str {
    match t {
        Trigger::Auto => "auto",
        Trigger::Manual => "manual",
        Trigger::Unknown => "trigger unknown",
    }
}

fn kind_label(k: CompactionKind) -> &'static str {
    match k {
        CompactionKind::ClaudeBoundary => "Claude compact boundary",
        CompactionKind::ClaudeMicrocompact => "Claude microcompaction (tool results cleared)",
        CompactionKind::CodexCompacted => "Codex compacted history",
        CompactionKind::GeminiSnapshot => "Gemini state snapshot",
        CompactionKind::GeminiJsonSnapshot => "Gemini context snapshot (JSON)",
        CompactionKind::GeminiInfo => "Gemini compression notice",
        CompactionKind::GeminiMasking => "Gemini tool-output masking",
        CompactionKind::GeminiNewFile => "Gemini compression into a new file",
    }
}
