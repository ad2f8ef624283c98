//! `sessions show`: one session's header and turn-by-turn timeline, or the whole unified
//! session as JSON.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::cli::{GlobalArgs, SelectArgs, ShowArgs, ShowFormat};
use crate::commands::{CmdResult, Failure, Target, scan_options, stdout};
use crate::diag::{Report, WarningKind, plural};
use crate::model::{Counts, Part, Role, Session, TokenTotals};
use crate::parse::{self, preview};
use crate::render::json::SCHEMA_VERSION;
use crate::render::{human_count, human_duration, local_time};
use crate::scan::{SessionSummary, scan};

/// `show --format json`: the unified session plus its derived figures.
#[derive(Debug, Serialize)]
pub struct SessionDocument<'a> {
    pub schema_version: u32,
    pub counts: Counts,
    pub tokens: TokenTotals,
    /// USD at the active prices; `null` when none of its usage has a price.
    pub cost_usd: Option<f64>,
    #[serde(flatten)]
    pub session: &'a Session,
}

impl<'a> SessionDocument<'a> {
    pub fn new(session: &'a Session) -> Self {
        SessionDocument {
            schema_version: SCHEMA_VERSION,
            counts: session.counts(),
            tokens: session.usage().into(),
            cost_usd: session_cost(session).usd(),
            session,
        }
    }
}

/// A session's cost at the active prices, from its own requests.
pub fn session_cost(session: &Session) -> crate::pricing::Cost {
    crate::pricing::cost_of(
        session
            .requests
            .iter()
            .map(|r| (r.model.as_deref(), &r.usage)),
    )
}

pub fn run(g: &GlobalArgs, args: &ShowArgs) -> CmdResult {
    let (summary, siblings, report) = find_one(g, &args.target)?;
    let session = load(&summary)?;
    let cost = session_cost(&session);
    let mut out = stdout();
    match args.format {
        ShowFormat::Json => {
            let doc = SessionDocument::new(&session);
            serde_json::to_writer_pretty(&mut out, &doc)
                .map_err(|e| Failure::failed(e.to_string()))?;
            writeln!(out)?;
        }
        ShowFormat::Text => {
            let children: Vec<&SessionSummary> = siblings
                .iter()
                .filter(|s| {
                    s.parent_id.as_deref() == Some(session.id.as_str()) && s.id != session.id
                })
                .collect();
            write_header(&mut out, &session, &children, &cost)?;
            writeln!(out)?;
            write_timeline(&mut out, &session, args.width)?;
        }
    }
    out.flush()?;
    crate::commands::usage::warn_unpriced(&cost, g.quiet);
    Ok(report)
}

/// Resolve `ID|PREFIX|PATH` to exactly one session. Also returns the other sessions of the
/// scan (to list sub-agents) and the scan's warnings.
pub fn find_one(
    g: &GlobalArgs,
    target: &OsStr,
) -> Result<(SessionSummary, Vec<SessionSummary>, Report), Failure> {
    let hint = format!(
        "`sessions list {}` lists the sessions in it",
        Path::new(target).display()
    );
    let named = crate::commands::target(target, &hint)?;
    let select = SelectArgs {
        paths: match &named {
            Target::File(p) => vec![p.clone()],
            Target::Id(_) => Vec::new(),
        },
        ..SelectArgs::every_kind()
    };
    let mut opts = scan_options(g, &select)?;
    opts.progress = false;
    let result = scan(&opts);
    let sessions = result.sessions;
    match named {
        Target::File(path) => {
            let Some(first) = sessions.first().cloned() else {
                let why = result
                    .report
                    .warnings
                    .iter()
                    .find(|w| w.path == path)
                    .map(|w| w.message.clone())
                    .unwrap_or_else(|| "not a session file of any supported agent".into());
                return Err(Failure::failed(format!("{}: {why}", path.display())));
            };
            let report = own_report(&first);
            Ok((first, sessions, report))
        }
        Target::Id(id) => {
            let i = resolve(&sessions, &id).map_err(|mut f| {
                // A store that could not be read may be where the session is.
                let unread: Vec<String> = result
                    .report
                    .warnings
                    .iter()
                    .filter(|w| {
                        w.line.is_none()
                            && matches!(w.kind, WarningKind::Unreadable | WarningKind::SymlinkLoop)
                    })
                    .map(|w| w.to_string())
                    .collect();
                if !unread.is_empty() {
                    f.message.push_str(&format!(
                        "; {} could not be read:\n  {}",
                        plural(unread.len(), "path"),
                        unread.join("\n  ")
                    ));
                }
                f
            })?;
            let s = sessions[i].clone();
            let report = own_report(&s);
            Ok((s, sessions, report))
        }
    }
}

/// Find the one session whose id is `target`, or starts with it. Ambiguity is an error that
/// lists the candidates.
pub fn resolve(sessions: &[SessionSummary], target: &str) -> Result<usize, Failure> {
    let exact: Vec<usize> = (0..sessions.len())
        .filter(|&i| sessions[i].id == target)
        .collect();
    let matches = if exact.is_empty() {
        (0..sessions.len())
            .filter(|&i| sessions[i].id.starts_with(target))
            .collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [] => Err(Failure::failed(format!("no session matches {target:?}"))),
        [i] => Ok(*i),
        many => {
            let mut msg = format!(
                "{target:?} matches {} sessions; use a longer prefix or a path:",
                many.len()
            );
            for &i in many.iter().take(20) {
                let s = &sessions[i];
                msg.push_str(&format!(
                    "\n  {} {} {} {}",
                    s.agent,
                    s.id,
                    s.started_at.map(local_time).unwrap_or_default(),
                    s.path().display()
                ));
            }
            Err(Failure::failed(msg))
        }
    }
}

/// Parse a session in full and carry over what the scan resolved across files.
pub fn load(summary: &SessionSummary) -> Result<Session, Failure> {
    let mut s = parse::parse_file(&summary.source).map_err(|w| Failure::failed(w.to_string()))?;
    s.project = summary.project.clone();
    s.project_source = summary.project_source;
    if summary.title.is_some() {
        s.title = summary.title.clone();
    }
    Ok(s)
}

fn write_header(
    out: &mut impl Write,
    s: &Session,
    children: &[&SessionSummary],
    cost: &crate::pricing::Cost,
) -> std::io::Result<()> {
    let counts = s.counts();
    let u = s.usage();
    let field = |out: &mut dyn Write, k: &str, v: String| writeln!(out, "{k:<12} {v}");
    field(out, "agent", format!("{} ({})", s.agent, s.kind.as_str()))?;
    field(out, "id", s.id.clone())?;
    if let Some(p) = &s.parent_id {
        field(out, "parent", p.clone())?;
    }
    if let Some(t) = &s.title {
        field(out, "title", preview(t, 200))?;
    }
    let project = match (&s.project, &s.project_hash) {
        (Some(p), _) => format!("{p} (from {})", s.project_source.as_str()),
        (None, Some(h)) => format!("unresolved (projectHash {}…)", &h[..h.len().min(12)]),
        _ => "unknown".into(),
    };
    field(out, "project", project)?;
    field(out, "path", s.path.display().to_string())?;
    if !s.models.is_empty() {
        field(out, "models", s.models.join(", "))?;
    }
    if let Some(v) = &s.agent_version {
        field(out, "version", v.clone())?;
    }
    if let (Some(a), Some(b)) = (s.started_at, s.updated_at) {
        field(
            out,
            "time",
            format!(
                "{} → {} ({})",
                local_time(a),
                local_time(b),
                human_duration(b - a)
            ),
        )?;
    }
    field(
        out,
        "counts",
        format!(
            "{} user turns · {} assistant messages · {} tool calls ({} failed)",
            counts.user_turns, counts.assistant_messages, counts.tool_calls, counts.tool_errors
        ),
    )?;
    field(
        out,
        "tokens",
        format!(
            "{} total: {} input, {} cache read, {} cache write, {} output ({} reasoning) over {} requests",
            human_count(u.total()),
            human_count(u.input),
            human_count(u.cache_read),
            human_count(u.cache_write),
            human_count(u.output),
            human_count(u.reasoning),
            s.requests.len()
        ),
    )?;
    field(out, "cost", crate::commands::usage::cost_label(cost))?;
    field(out, "compactions", s.compactions.len().to_string())?;
    if !children.is_empty() || !s.subagents.is_empty() {
        let mut names: Vec<String> = children
            .iter()
            .map(|c| {
                let kind = subagent_type(c)
                    .map(|t| format!("{t}, "))
                    .unwrap_or_default();
                format!(
                    "{} ({kind}{} assistant messages, {} tokens)",
                    c.id,
                    c.counts.assistant_messages,
                    human_count(c.usage.total())
                )
            })
            .collect();
        for l in &s.subagents {
            if !children.iter().any(|c| c.id == l.id) {
                names.push(format!("{} (inline or not found)", l.id));
            }
        }
        field(out, "sub-agents", names.join("\n             "))?;
    }
    if !s.warnings.is_empty() {
        field(out, "warnings", s.warnings.len().to_string())?;
    }
    Ok(())
}

fn write_timeline(out: &mut impl Write, s: &Session, width: usize) -> std::io::Result<()> {
    // Tool call id → failed?, from every result in the session.
    let mut status: HashMap<&str, bool> = HashMap::new();
    for m in &s.messages {
        for p in &m.parts {
            if let Part::ToolResult {
                call_id, is_error, ..
            } = p
            {
                *status.entry(call_id.as_str()).or_default() |= *is_error;
            }
        }
    }
    let mut last_day = None;
    for m in &s.messages {
        let time = match m.timestamp {
            Some(t) => {
                let local = t.with_timezone(&chrono::Local);
                let day = local.date_naive();
                if last_day != Some(day) {
                    writeln!(out, "── {} ──", day.format("%Y-%m-%d"))?;
                    last_day = Some(day);
                }
                local.format("%H:%M:%S").to_string()
            }
            None => "        ".to_string(),
        };
        if m.subtype.as_deref() == Some("compaction") {
            for p in &m.parts {
                if let Part::Compaction { index } = p {
                    if let Some(c) = s.compactions.get(*index) {
                        let tokens = match (c.tokens_before, c.tokens_after) {
                            (Some(b), Some(a)) => {
                                format!(", {} → {} tokens", human_count(b), human_count(a))
                            }
                            (Some(b), None) => format!(", {} tokens before", human_count(b)),
                            _ => String::new(),
                        };
                        let trigger = serde_json::to_value(c.trigger)
                            .ok()
                            .and_then(|v| v.as_str().map(String::from))
                            .unwrap_or_default();
                        writeln!(out, "{time}  ════ compaction ({trigger}{tokens}) ════")?;
                    }
                }
            }
            continue;
        }
        let role = match (m.role, m.subtype.as_deref()) {
            (_, Some("compact_summary")) => "summary",
            (Role::User, _) if m.is_human => "user",
            (Role::User, _) => "context",
            (Role::Assistant, _) => "assistant",
            (Role::System, _) => "system",
            (Role::Tool, _) => "tool",
        };
        let mut flags = String::new();
        if m.sidechain {
            flags.push_str(" [sidechain]");
        }
        if m.superseded {
            flags.push_str(" [superseded]");
        }
        let tokens = m
            .usage
            .map(|u| {
                format!(
                    "  [in {} · out {}]",
                    human_count(u.prompt()),
                    human_count(u.output)
                )
            })
            .unwrap_or_default();
        let text = m.text();
        let thinking = m.parts.iter().any(|p| matches!(p, Part::Thinking { .. }));
        let body = if !text.trim().is_empty() {
            preview(&text, width)
        } else if thinking {
            "(thinking)".into()
        } else {
            String::new()
        };
        let only_results = m.role == Role::Tool;
        if !only_results || !body.is_empty() {
            writeln!(out, "{time}  {role:<9}{flags} {body}{tokens}")?;
        }
        for p in &m.parts {
            match p {
                Part::ToolCall { id, name, input } => {
                    let mark = match status.get(id.as_str()) {
                        Some(true) => "✗",
                        Some(false) => "✓",
                        None => "…",
                    };
                    writeln!(
                        out,
                        "          → {mark} {name}: {}",
                        preview(&call_summary(input), width.saturating_sub(10))
                    )?;
                }
                Part::Image {
                    media_type, bytes, ..
                } => {
                    writeln!(
                        out,
                        "          [image {} {}]",
                        media_type.as_deref().unwrap_or("?"),
                        bytes
                            .map(|b| format!("{} bytes", human_count(b)))
                            .unwrap_or_default()
                    )?;
                }
                Part::ToolResult {
                    is_error: true,
                    output,
                    call_id,
                    ..
                } if only_results => {
                    writeln!(
                        out,
                        "          ✗ {call_id}: {}",
                        preview(output, width.saturating_sub(10))
                    )?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// A one-line description of a tool call's arguments: the command for shells, the path for
/// file tools, else compact JSON.
fn call_summary(input: &Value) -> String {
    if let Some(o) = input.as_object() {
        for key in [
            "command",
            "cmd",
            "file_path",
            "path",
            "pattern",
            "query",
            "url",
            "description",
            "prompt",
        ] {
            match o.get(key) {
                Some(Value::String(s)) => return s.clone(),
                Some(Value::Array(a)) => {
                    return a
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ");
                }
                _ => {}
            }
        }
    }
    match input {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// The agent type a sub-agent was spawned as: Claude's `.meta.json` sidecar `agentType`.
fn subagent_type(s: &SessionSummary) -> Option<String> {
    let crate::parse::FileRole::ClaudeSubagent {
        meta: Some(meta), ..
    } = &s.source.role
    else {
        return None;
    };
    let v: Value = serde_json::from_str(&std::fs::read_to_string(meta).ok()?).ok()?;
    v.get("agentType")?.as_str().map(String::from)
}

/// `show` and `export` look a session up in a scan of every store, but only the chosen
/// session's own warnings concern the user.
fn own_report(s: &SessionSummary) -> Report {
    let mut r = Report::default();
    r.extend(s.warnings.iter().cloned());
    r
}
