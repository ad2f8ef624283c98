//! Turning a parsed [`Session`] into what a replay consumes: the model-visible history and
//! the requests made against it, with the agent's own compactions mapped onto those requests.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::diag::Warning;
use crate::model::{Agent, Compaction, CompactionKind, Message, Part, Role, Session};
use crate::parse::{Detail, SourceFile};
use crate::tokens::estimate_text;

use super::{HistoryItem, PostCompaction, ReplayInput, RequestPoint, bytes4_tokens};

/// Messages that are artifacts of the agent's own context management, not conversation.
fn is_management_artifact(m: &Message) -> bool {
    matches!(
        m.subtype.as_deref(),
        Some("compaction" | "compact_summary" | "compact_ack" | "checkpoint_copy" | "synthetic")
    )
}

/// What [`ReplayInput::read`] read of a file besides its session.
pub enum Record {
    /// Nothing: the session is the full model (Claude, Codex).
    None,
    /// A Gemini session's record as Gemini CLI resumes it: its messages, or `None` when Gemini
    /// could not load the file.
    Gemini(Option<Vec<super::gemini::json::J>>),
}

impl ReplayInput {
    /// The input with its items and requests in buffers of their own size (the items are
    /// collected in the parsed messages' larger buffer), for an input held after its replay.
    pub fn compact(&mut self) -> &Self {
        fn exact<T>(v: &mut Vec<T>) {
            if v.capacity() > v.len() {
                let mut own = Vec::with_capacity(v.len());
                own.append(v);
                *v = own;
            }
        }
        exact(&mut self.items);
        exact(&mut self.requests);
        self
    }

    /// About how many bytes the input holds in memory: its items, their parts and the text
    /// and values these own, and its requests. Allocator rounding is not counted, nor a Gemini
    /// session's record (`gemini`, `gemini_sized`), which the Gemini algorithm's replays hold.
    pub fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        fn value(v: &serde_json::Value) -> usize {
            use serde_json::Value;
            match v {
                Value::String(s) => s.len(),
                Value::Array(a) => a.iter().map(|x| size_of::<Value>() + value(x)).sum(),
                // A map's node and links: about two words an entry beyond the key and value.
                Value::Object(o) => o
                    .iter()
                    .map(|(k, x)| {
                        k.len() + 16 + size_of::<String>() + size_of::<Value>() + value(x)
                    })
                    .sum(),
                _ => 0,
            }
        }
        fn part(p: &Part) -> usize {
            size_of::<Part>()
                + match p {
                    Part::Text { text } | Part::Thinking { text } => text.len(),
                    Part::ToolCall { id, name, input } => {
                        id.len() + name.len() + input.held_bytes()
                    }
                    Part::ToolResult {
                        call_id,
                        output,
                        attachments,
                        ..
                    } => call_id.len() + output.len() + attachments.iter().map(part).sum::<usize>(),
                    Part::Image {
                        media_type, data, ..
                    } => {
                        media_type.as_ref().map_or(0, String::len)
                            + data.as_ref().map_or(0, String::len)
                    }
                    Part::Compaction { .. } => 0,
                    Part::Unknown { kind, raw } => kind.len() + value(raw),
                }
        }
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let name = |s: &Option<Arc<str>>| s.as_ref().map_or(0, |s| s.len());
        // By capacity: the items are collected in the parsed messages' buffer, larger than
        // they need.
        let items: usize = self.items.capacity() * size_of::<HistoryItem>()
            + self
                .items
                .iter()
                .map(|it| {
                    name(&it.model)
                        + it.parts.iter().map(part).sum::<usize>()
                        + it.tool_names
                            .iter()
                            .map(|n| size_of::<Option<String>>() + text(n))
                            .sum::<usize>()
                })
                .sum::<usize>();
        let requests: usize = self.requests.capacity() * size_of::<RequestPoint>()
            + self.requests.iter().map(|r| name(&r.model)).sum::<usize>();
        (items + requests) as u64
    }

    /// How much of a file a replay of `algorithm` needs parsed. A Gemini session is replayed
    /// from its record as Gemini CLI resumes it; of the model it needs only what the summary
    /// view keeps (metadata, compactions, message ids). Every other agent's replay reads the
    /// full model, but for the tool outputs, which only Gemini's algorithm reads whole (it
    /// sends their text, truncated); the others estimate an output by its length.
    pub fn detail(agent: Agent, algorithm: super::Algorithm) -> Detail {
        match agent {
            Agent::Gemini => Detail::Summary,
            _ if algorithm != super::Algorithm::Gemini => Detail::Measured,
            Agent::Claude | Agent::Codex => Detail::Full,
        }
    }

    /// Read `file` for a replay of `algorithm`: its session at [`ReplayInput::detail`], and
    /// for a Gemini session the record Gemini CLI resumes, both from one read of the file
    /// ([`read_view_and_record`](super::gemini::load::read_view_and_record)).
    pub fn read(
        file: &SourceFile,
        algorithm: super::Algorithm,
    ) -> Result<(Session, Record), Warning> {
        match file.agent {
            // The other algorithms read a tool output's size alone.
            Agent::Gemini => super::gemini::load::read_view_and_record(
                file,
                algorithm != super::Algorithm::Gemini,
            )
            .map(|(s, record)| (s, Record::Gemini(record))),
            Agent::Claude | Agent::Codex => {
                crate::parse::parse_file_with(file, Self::detail(file.agent, algorithm))
                    .map(|s| (s, Record::None))
            }
        }
    }

    /// The input from what [`ReplayInput::read`] read of `source`, for replays of `algorithm`
    /// alone (only the Gemini algorithm replays on a Gemini session's record itself; the
    /// others need its history items alone; for the Gemini algorithm, any other session's
    /// items are converted into Gemini contents here, their text taken).
    pub fn from_read(
        s: Session,
        record: Record,
        source: &SourceFile,
        algorithm: super::Algorithm,
    ) -> Result<ReplayInput, Warning> {
        let gemini = algorithm == super::Algorithm::Gemini;
        let mut input = match record {
            Record::Gemini(Some(messages)) => {
                use super::gemini::resume::{Keep, input_from, resume};
                let keep = if gemini { Keep::Turns } else { Keep::Items };
                input_from(&s, resume(messages), keep)
            }
            // A record Gemini CLI could not load (too large, not a record): the full model, with
            // what the caller settled of the session.
            Record::Gemini(None) => {
                let mut full = crate::parse::parse_file(source)?;
                full.project = s.project;
                full.project_source = s.project_source;
                full.title = s.title;
                Self::from_model(full)
            }
            Record::None => Self::from_session(s),
        };
        // Gemini's algorithm converts the items of any other session into Gemini contents:
        // taking their text now spares it a copy (the input serves no other algorithm).
        if gemini && input.gemini.is_none() {
            input.gemini_sized.take_items(&mut input.items);
        }
        Ok(input)
    }

    /// The input from `s`, parsed from `source` at [`ReplayInput::detail`].
    pub fn from_parsed(s: Session, source: &SourceFile) -> Result<ReplayInput, Warning> {
        if s.agent != Agent::Gemini {
            return Ok(Self::from_session(s));
        }
        if let Some(input) = super::gemini::resume::replay_input(&s) {
            return Ok(input);
        }
        // A record Gemini CLI could not resume (too large to load): the full model.
        Ok(Self::from_model(crate::parse::parse_file(source)?))
    }

    /// The input from a fully parsed session.
    pub fn from_session(s: Session) -> ReplayInput {
        // Gemini: the history Gemini CLI itself rebuilds from the file.
        if let Some(input) = super::gemini::resume::replay_input(&s) {
            return input;
        }
        Self::from_model(s)
    }

    /// The input from the session model: its model-visible messages and requests.
    fn from_model(s: Session) -> ReplayInput {
        // Tool names by call id, for results (allow/deny lists and Gemini functionResponse names).
        let mut names: HashMap<String, String> = HashMap::default();
        for m in &s.messages {
            for p in &m.parts {
                if let Part::ToolCall { id, name, .. } = p {
                    names.insert(id.clone(), name.clone());
                }
            }
        }
        // In a main session, sidechain records are a sub-agent's separate context; in a
        // sub-agent's own file they are the context.
        let own_sidechain = s.kind == crate::model::SessionKind::Subagent;
        // history position of each original message index
        let mut position: Vec<usize> = Vec::with_capacity(s.messages.len() + 1);
        let mut kept = 0;
        // Collected in place: the items take the messages' buffer (an item is smaller than a
        // message) instead of a second one beside it, at the peak of a long session's replay.
        let items: Vec<HistoryItem> = s
            .messages
            .into_iter()
            .filter_map(|m| {
                position.push(kept);
                let keep = matches!(m.role, Role::User | Role::Assistant | Role::Tool)
                    && (own_sidechain || !m.sidechain)
                    && !is_management_artifact(&m);
                if !keep {
                    return None;
                }
                kept += 1;
                // Only an item with results names tools: most items are spared a vector.
                let results = m.parts.iter().any(|p| matches!(p, Part::ToolResult { .. }));
                let tool_names = if results {
                    m.parts
                        .iter()
                        .map(|p| match p {
                            Part::ToolResult { call_id, .. } => names.get(call_id).cloned(),
                            _ => None,
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let is_context = m.role == Role::User && !m.is_human && !results;
                Some(HistoryItem {
                    role: m.role,
                    is_human: m.is_human,
                    timestamp: m.timestamp,
                    model: m.model,
                    parts: m.parts,
                    tool_names,
                    is_context,
                })
            })
            .collect();
        position.push(items.len());

        // Each kept request with its index among the session's requests, so the agent's own
        // compactions (counted against all of them) land on the right replayed request.
        let mut requests: Vec<(usize, RequestPoint)> = Vec::with_capacity(s.requests.len());
        for (n, r) in s.requests.iter().enumerate() {
            if !own_sidechain && r.dedup_key.as_ref().is_some_and(|k| k.sidechain) {
                continue; // a sub-agent's request: another context
            }
            let upto = match r.message_index {
                Some(i) => position[i.min(position.len() - 1)],
                None => requests.last().map_or(0, |(_, p)| p.upto),
            };
            requests.push((
                n,
                RequestPoint {
                    upto,
                    // Recorded counts are held to MAX_TOKENS: the replay's arithmetic cannot
                    // overflow.
                    recorded_prompt: r.prompt_tokens.map(crate::tokens::cap),
                    output: crate::tokens::cap(r.usage.output),
                    timestamp: r.timestamp,
                    model: r.model.clone(),
                    usage: Some(r.usage),
                },
            ));
        }
        requests.sort_by_key(|(_, r)| r.upto);
        let original: Vec<usize> = requests.iter().map(|(n, _)| *n).collect();
        let mut requests: Vec<RequestPoint> = requests.into_iter().map(|(_, r)| r).collect();
        let recorded_usage = requests.iter().any(|r| r.recorded_prompt.is_some());
        if requests.is_empty() {
            // No recorded usage at all: one estimated request per assistant response.
            for (i, it) in items.iter().enumerate() {
                if it.role == Role::Assistant {
                    requests.push(RequestPoint {
                        upto: i,
                        recorded_prompt: None,
                        output: estimate_text(&it.text()),
                        timestamp: it.timestamp,
                        model: it.model.clone(),
                        usage: None,
                    });
                }
            }
        }
        let mut counts: HashMap<&str, usize> = HashMap::default();
        for r in &requests {
            if let Some(m) = r.model.as_deref() {
                *counts.entry(m).or_default() += 1;
            }
        }
        let model = counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(m, _)| m.to_string())
            .or_else(|| s.models.last().cloned());
        // `request_index` counts every request of the session; the replay's requests are the
        // kept ones: the first kept request at or after the compaction sees its effect.
        // A Claude microcompaction (old tool results cleared) is left out, as it was before
        // the parser kept it: no algorithm replays it, and whether the calibration should stop
        // at it is a question of its own.
        let recorded_compactions: Vec<Compaction> = s
            .compactions
            .into_iter()
            .filter(|c| c.kind != CompactionKind::ClaudeMicrocompact)
            .map(|mut c| {
                c.request_index = original.iter().filter(|&&n| n < c.request_index).count();
                c
            })
            .collect();
        // What the agent's context held right after each of its compactions: the first
        // recorded prompt after it, less what was added after the boundary.
        let post_compaction = recorded_compactions
            .iter()
            .filter(|c| c.kind != CompactionKind::GeminiMasking)
            .filter_map(|c| {
                let r = requests.get(c.request_index)?;
                let recorded = r.recorded_prompt?;
                let from = position[c.message_index.min(position.len() - 1)].min(r.upto);
                let added = items[from..r.upto.min(items.len())]
                    .iter()
                    .map(bytes4_tokens)
                    .sum();
                let summary = c.summary.as_deref().map_or(0, estimate_text);
                Some(PostCompaction {
                    recorded,
                    added,
                    summary,
                })
            })
            .collect();
        let gemini_layout = s.gemini_layout;
        ReplayInput {
            recorded_window: s.context_window.map(crate::tokens::cap),
            agent_version: s.agent_version,
            started_at: s.started_at,
            agent: s.agent,
            id: s.id,
            path: s.path,
            project: s.project,
            items,
            requests,
            model,
            recorded_usage,
            recorded_compactions,
            post_compaction,
            gemini: None,
            gemini_sized: Default::default(),
            gemini_layout,
        }
    }
}
