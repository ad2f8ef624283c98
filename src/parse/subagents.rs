//! Completing a Claude session's sub-agent links once the file is read: the transcript names a
//! sub-agent only by `toolUseResult.agentId`; its file and its type are found next to it.

use std::path::Path;

use serde_json::Value;

use crate::model::{Part, Session, SubagentLink};

/// Largest `.meta.json` sidecar read (real ones are a few dozen bytes).
const MAX_META_BYTES: u64 = 1 << 20;

/// A sidecar's JSON, when it is a small regular file that parses.
fn read_meta(path: &Path) -> Option<Value> {
    let md = std::fs::metadata(path).ok()?;
    if !md.is_file() || md.len() > MAX_META_BYTES {
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Fill `path` (the sub-agent's own transcript, in either layout) and `agent_type` (the
/// spawning call's `subagent_type`, else the `.meta.json` sidecar's `agentType`) where unknown,
/// and link the sub-agents of the session's `subagents/` folder (2.1.x) that no result named.
pub fn complete_claude_links(s: &mut Session) {
    let dir = s.path.parent().map(Path::to_path_buf);
    let stem = s.path.file_stem().map(|x| x.to_string_lossy().into_owned());
    link_subagents_folder(s, dir.as_deref(), stem.as_deref());
    if s.subagents.is_empty() {
        return;
    }
    for i in 0..s.subagents.len() {
        let link = &s.subagents[i];
        let file = format!("{}.jsonl", link.id);
        if link.path.is_none()
            && let Some(dir) = &dir
        {
            // 2.1.x: <session>/subagents/agent-<id>.jsonl; 2.0.28+: agent-<id>.jsonl beside it.
            let nested = stem
                .as_ref()
                .map(|st| dir.join(st).join("subagents").join(&file));
            let found = nested
                .into_iter()
                .chain(std::iter::once(dir.join(&file)))
                .find(|p| p.is_file());
            s.subagents[i].path = found;
        }
        if s.subagents[i].agent_type.is_none() {
            let from_call = s.subagents[i]
                .tool_call_id
                .as_deref()
                .and_then(|id| spawn_type(s, id));
            let from_meta = || {
                let meta = s.subagents[i].path.as_ref()?.with_extension("meta.json");
                read_meta(&meta)?
                    .get("agentType")?
                    .as_str()
                    .map(String::from)
            };
            s.subagents[i].agent_type = from_call.or_else(from_meta);
        }
    }
}

/// The sub-agents in `<dir>/<stem>/subagents/` (the 2.1.x layout) that no tool result linked:
/// a Task interrupted or still running has no `toolUseResult.agentId`. The sidecar's
/// `toolUseId`, when it has one, names the spawning call. A session that is itself a sub-agent
/// has no such folder.
fn link_subagents_folder(s: &mut Session, dir: Option<&Path>, stem: Option<&str>) {
    let (Some(dir), Some(stem)) = (dir, stem) else {
        return;
    };
    let folder = dir.join(stem).join("subagents");
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return;
    };
    let mut found: Vec<(String, std::path::PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_suffix(".jsonl")?;
            id.starts_with("agent-").then(|| (id.to_string(), e.path()))
        })
        .collect();
    // Directory order is the file system's: links come in name order.
    found.sort();
    for (id, path) in found {
        if s.subagents.iter().any(|l| l.id == id) {
            continue;
        }
        let meta = read_meta(&path.with_extension("meta.json"));
        let tool_call_id = meta
            .as_ref()
            .and_then(|m| m.get("toolUseId"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(String::from);
        s.subagents.push(SubagentLink {
            id,
            tool_call_id,
            path: Some(path),
            agent_type: None,
        });
    }
}

/// The `subagent_type` the call `id` (a `Task`/`Agent` tool call) asked for.
fn spawn_type(s: &Session, id: &str) -> Option<String> {
    s.messages
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match p {
            Part::ToolCall {
                id: call, input, ..
            } if call == id => input
                .str_at("subagent_type")
                .filter(|t| !t.is_empty())
                .map(String::from),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::model::Agent;
    use crate::parse::{FileRole, SourceFile, parse_file};

    /// The session's transcript (its `"S"` session ids filled in) and its empty `subagents/`
    /// folder, 2.1.x's layout.
    fn session_files(dir: &Path, session: &str, lines: &[&str]) -> (PathBuf, PathBuf) {
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.replace("\"S\"", &format!("\"{session}\"")))
            .collect();
        let main = dir.join(format!("{session}.jsonl"));
        std::fs::write(&main, text.join("\n") + "\n").unwrap();
        let sub_dir = dir.join(session).join("subagents");
        std::fs::create_dir_all(&sub_dir).unwrap();
        (main, sub_dir)
    }

    #[test]
    fn links_find_the_sub_agents_file_and_type() {
        let dir = tempfile::tempdir().unwrap();
        let session = "5e55e55e-0000-4000-8000-000000000001";
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"S","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"look around"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"S","timestamp":"2026-01-01T00:00:01.000Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"x","prompt":"explore","subagent_type":"Explore"}}],"usage":{"input_tokens":10,"output_tokens":5}}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"S","timestamp":"2026-01-01T00:00:09.000Z","toolUseResult":{"agentId":"abc123","status":"completed"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]}}"#,
        ];
        let (main, sub_dir) = session_files(dir.path(), session, &lines);
        let sub = sub_dir.join("agent-abc123.jsonl");
        std::fs::write(&sub, "").unwrap();
        let s = parse_file(&SourceFile::new(Agent::Claude, main, FileRole::ClaudeMain)).unwrap();
        assert_eq!(s.subagents.len(), 1, "{:?}", s.subagents);
        let l = &s.subagents[0];
        assert_eq!(l.id, "agent-abc123");
        assert_eq!(l.path.as_deref(), Some(sub.as_path()));
        assert_eq!(l.agent_type.as_deref(), Some("Explore"));
    }

    #[test]
    fn a_sub_agent_no_result_names_is_linked_through_its_folder_and_sidecar() {
        // The Task was interrupted: no tool result reports the agent's id.
        let dir = tempfile::tempdir().unwrap();
        let session = "5e55e55e-0000-4000-8000-000000000002";
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"S","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"look around"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"S","timestamp":"2026-01-01T00:00:01.000Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_9","name":"Task","input":{"description":"x","prompt":"explore","subagent_type":"Explore"}}],"usage":{"input_tokens":10,"output_tokens":5}}}"#,
        ];
        let (main, sub_dir) = session_files(dir.path(), session, &lines);
        let sub = sub_dir.join("agent-def456.jsonl");
        std::fs::write(&sub, "").unwrap();
        std::fs::write(
            sub_dir.join("agent-def456.meta.json"),
            r#"{"agentType":"general-purpose","toolUseId":"toolu_9"}"#,
        )
        .unwrap();
        // A sidecar without its transcript links nothing.
        std::fs::write(sub_dir.join("agent-zzz.meta.json"), "{}").unwrap();
        let s = parse_file(&SourceFile::new(Agent::Claude, main, FileRole::ClaudeMain)).unwrap();
        assert_eq!(s.subagents.len(), 1, "{:?}", s.subagents);
        let l = &s.subagents[0];
        assert_eq!(l.id, "agent-def456");
        assert_eq!(l.tool_call_id.as_deref(), Some("toolu_9"));
        assert_eq!(l.path.as_deref(), Some(sub.as_path()));
        // The spawning call's type wins over the sidecar's, as for linked results.
        assert_eq!(l.agent_type.as_deref(), Some("Explore"));
    }
}
