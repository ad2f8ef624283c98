//! Completing a Claude session's sub-agent links once the file is read: the transcript names a
//! sub-agent only by `toolUseResult.agentId`; its file and its type are found next to it.

use std::path::Path;

use serde_json::Value;

use crate::model::{Part, Session};

/// Fill `path` (the sub-agent's own transcript, in either layout) and `agent_type` (the
/// spawning call's `subagent_type`, else the `.meta.json` sidecar's `agentType`) where unknown.
pub fn complete_claude_links(s: &mut Session) {
    if s.subagents.is_empty() {
        return;
    }
    let dir = s.path.parent().map(Path::to_path_buf);
    let stem = s.path.file_stem().map(|x| x.to_string_lossy().into_owned());
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
                let v: Value = serde_json::from_slice(&std::fs::read(meta).ok()?).ok()?;
                v.get("agentType")?.as_str().map(String::from)
            };
            s.subagents[i].agent_type = from_call.or_else(from_meta);
        }
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
                .get("subagent_type")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(String::from),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use crate::model::Agent;
    use crate::parse::{FileRole, SourceFile, parse_file};

    #[test]
    fn links_find_the_sub_agents_file_and_type() {
        let dir = tempfile::tempdir().unwrap();
        let session = "5e55e55e-0000-4000-8000-000000000001";
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"S","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"look around"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"S","timestamp":"2026-01-01T00:00:01.000Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"x","prompt":"explore","subagent_type":"Explore"}}],"usage":{"input_tokens":10,"output_tokens":5}}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"S","timestamp":"2026-01-01T00:00:09.000Z","toolUseResult":{"agentId":"abc123","status":"completed"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]}}"#,
        ]
        .map(|l| l.replace("\"S\"", &format!("\"{session}\"")));
        let main = dir.path().join(format!("{session}.jsonl"));
        std::fs::write(&main, lines.join("\n") + "\n").unwrap();
        let sub_dir = dir.path().join(session).join("subagents");
        std::fs::create_dir_all(&sub_dir).unwrap();
        let sub = sub_dir.join("agent-abc123.jsonl");
        std::fs::write(&sub, "").unwrap();
        let s = parse_file(&SourceFile::new(Agent::Claude, main, FileRole::ClaudeMain)).unwrap();
        assert_eq!(s.subagents.len(), 1, "{:?}", s.subagents);
        let l = &s.subagents[0];
        assert_eq!(l.id, "agent-abc123");
        assert_eq!(l.path.as_deref(), Some(sub.as_path()));
        assert_eq!(l.agent_type.as_deref(), Some("Explore"));
    }
}
