//! `sessions show`: one session's header and turn-by-turn timeline, or the whole unified
//! session as JSON.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::cli::{GlobalArgs, SelectArgs, ShowArgs, ShowFormat};
use crate::commands::{CmdResult, Failure, Target, scan_options, stdout};
use crate::diag::{Report, Warning, WarningKind};
use crate::model::{Agent, CompactionKind, Part, ProjectSource, Role, Session};
use crate::output::safe_path;
use crate::parse::{self, Detail};
use crate::render::json::{SessionDocument, session_cost};
use crate::render::table::{Cut, target_width};
use crate::render::text::{cut_end, cut_prefix, cut_start, safe_line, width as text_width, wrap};
use crate::render::{
    human_count, human_duration, local_time, plural, project_detail, thousands, time,
};
use crate::scan::{SessionSummary, scan};

pub fn run(g: &GlobalArgs, args: &ShowArgs) -> CmdResult {
    let (mut summary, mut siblings, report) = find_one(g, &args.target)?;
    // Before the full parse, what the rest no longer needs goes: the scan's own copy of this
    // session and every session that cannot be one of its sub-agents (a large session's
    // requests would otherwise be held twice beside its full model).
    siblings.retain(|s| s.parent_id.is_some() && s.path() != summary.path());
    summary.requests = Vec::new();
    let session = match args.format {
        ShowFormat::Json => load(&summary)?,
        // Of a tool output the timeline prints one line at most: the rest is only measured.
        ShowFormat::Text => load_with(&summary, timeline_detail(args))?,
    };
    drop(summary);
    // What the full parse found counts too: the report must not say less than the document.
    let mut report = report;
    report.extend_once(session.warnings.iter().cloned());
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
            let mut children: Vec<&SessionSummary> = siblings
                .iter()
                .filter(|s| {
                    s.parent_id.as_deref() == Some(session.id.as_str()) && s.id != session.id
                })
                .collect();
            // A session named by its path was scanned alone: the sub-agent files its links
            // name are read now, as `export` reads them.
            let linked = linked_subagents(g, &session, &children)?;
            children.extend(linked.iter().filter(|c| c.id != session.id));
            let width = line_width(args);
            write_header(&mut out, &session, &children, &cost, width)?;
            writeln!(out)?;
            write_timeline(&mut out, &session, width)?;
        }
    }
    out.flush()?;
    crate::commands::usage::warn_unpriced(&cost, g.quiet);
    Ok(report)
}

/// The sub-agents `s` links to by a file path that `children` (found by the scan) lack.
fn linked_subagents(
    g: &GlobalArgs,
    s: &Session,
    children: &[&SessionSummary],
) -> Result<Vec<SessionSummary>, Failure> {
    let paths: Vec<std::path::PathBuf> = s
        .subagents
        .iter()
        .filter(|l| !children.iter().any(|c| c.id == l.id))
        .filter_map(|l| l.path.clone())
        .filter(|p| p.is_file())
        .collect();
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut opts = scan_options(
        g,
        &SelectArgs {
            paths,
            ..SelectArgs::every_kind()
        },
    )?;
    opts.progress = false;
    let linked: Vec<&str> = s.subagents.iter().map(|l| l.id.as_str()).collect();
    Ok(scan(&opts)
        .sessions
        .into_iter()
        .filter(|c| linked.contains(&c.id.as_str()))
        .collect())
}

/// Resolve `ID|PREFIX|PATH` to exactly one session. Also returns the other sessions of the
/// scan (to list sub-agents) and the scan's warnings.
pub fn find_one(
    g: &GlobalArgs,
    target: &OsStr,
) -> Result<(SessionSummary, Vec<SessionSummary>, Report), Failure> {
    let hint = format!(
        "`sessions list {}` lists the sessions in it",
        safe_path(Path::new(target))
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
    crate::commands::require_stores(&result, &opts.stores)?;
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
                return Err(Failure::failed(format!("{}: {why}", safe_path(&path))));
            };
            let report = own_report(&first, &result.project_warnings);
            Ok((first, sessions, report))
        }
        Target::Id(id) => {
            let i = resolve(&sessions, &id, &result.report.warnings)?;
            let s = sessions[i].clone();
            let report = own_report(&s, &result.project_warnings);
            Ok((s, sessions, report))
        }
    }
}

/// Most warnings about files named like the id that a failed lookup lists.
const MAX_NAMED: usize = 10;

/// The shortest id whose text in a file's name says the file is likely that session's.
const NAMED_LIKE: usize = 8;

/// Say why no session matched `id`: a store that could not be read may be where the session
/// is, and a file whose name holds the id text is most likely the session itself, whatever
/// kept it from being read (a document cut short mid-rewrite, a malformed one, …).
fn explain_no_match(mut f: Failure, id: &str, warnings: &[Warning]) -> Failure {
    // Gemini names its files after the id's first 8 characters only; a shorter text is in
    // the names of files of any session.
    let short = id.get(..NAMED_LIKE).filter(|s| s.len() < id.len());
    let named_like = |w: &Warning| {
        let Some(name) = w.path.file_name().map(|n| n.to_string_lossy()) else {
            return false;
        };
        id.len() >= NAMED_LIKE && (name.contains(id) || short.is_some_and(|s| name.contains(s)))
    };
    let unread_store = |w: &Warning| {
        w.line.is_none() && matches!(w.kind, WarningKind::Unreadable | WarningKind::SymlinkLoop)
    };
    let (named, unread): (Vec<&Warning>, Vec<&Warning>) = warnings
        .iter()
        .filter(|w| named_like(w) || unread_store(w))
        .partition(|w| named_like(w));
    // File names and messages are session data: no raw control characters on the terminal.
    let show = |w: &&Warning| format!("{} ({})", safe_line(&w.to_string()), w.kind.as_str());
    if !named.is_empty() {
        let mut lines: Vec<String> = named.iter().take(MAX_NAMED).map(show).collect();
        if named.len() > MAX_NAMED {
            lines.push(format!("… and {} more", named.len() - MAX_NAMED));
        }
        f.message.push_str(&format!(
            "; {} about files named like it:\n  {}",
            plural(named.len(), "warning"),
            lines.join("\n  ")
        ));
    }
    if !unread.is_empty() {
        let lines: Vec<String> = unread.iter().map(|w| safe_line(&w.to_string())).collect();
        f.message.push_str(&format!(
            "{} {} could not be read:\n  {}",
            if named.is_empty() { ";" } else { "\n" },
            plural(unread.len(), "path"),
            lines.join("\n  ")
        ));
    }
    f
}

/// Find the one session whose id is `target`, or starts with it. Ambiguity is an error that
/// lists the candidates; so is one id held by several files that diverge (each is a history
/// of its own: a path names one).
pub fn resolve(
    sessions: &[SessionSummary],
    target: &str,
    warnings: &[Warning],
) -> Result<usize, Failure> {
    match resolve_all(sessions, target, warnings)?.as_slice() {
        [i] => Ok(*i),
        many => Err(candidates(
            sessions,
            many,
            format!(
                "{target:?} names one session held by {} files whose histories diverge; name one by its path:",
                many.len()
            ),
        )),
    }
}

/// Every session whose id is `target`, or else starts with it, when they are all one agent's
/// session id: files of one id whose histories diverge (branches, consecutive pieces of a long
/// session) are listed, and replayed, each on its own. Several ids are an error that lists the
/// candidates; none, one that says what the scan's `warnings` may tell of it.
pub fn resolve_all(
    sessions: &[SessionSummary],
    target: &str,
    warnings: &[Warning],
) -> Result<Vec<usize>, Failure> {
    // The id as written, then as a prefix; each also regardless of ASCII case (ids are hex,
    // and some tools print them in capitals). A match as written wins.
    let t = target.as_bytes();
    let matches = (0..4)
        .map(|rule| {
            (0..sessions.len())
                .filter(|&i| {
                    let id = sessions[i].id.as_bytes();
                    match rule {
                        0 => id == t,
                        1 => id.eq_ignore_ascii_case(t),
                        2 => id.starts_with(t),
                        _ => id.get(..t.len()).is_some_and(|p| p.eq_ignore_ascii_case(t)),
                    }
                })
                .collect::<Vec<usize>>()
        })
        .find(|m| !m.is_empty())
        .unwrap_or_default();
    let Some(&first) = matches.first() else {
        let f = Failure::failed(format!("no session matches {target:?}"));
        return Err(explain_no_match(f, target, warnings));
    };
    let one = |i: &usize| (sessions[*i].agent, &sessions[*i].id);
    if matches.iter().all(|i| one(i) == one(&first)) {
        return Ok(matches);
    }
    Err(candidates(
        sessions,
        &matches,
        format!(
            "{target:?} matches {} sessions; use a longer prefix or a path:",
            matches.len()
        ),
    ))
}

/// `msg`, then the first 20 of `many`: agent, id, start and file.
fn candidates(sessions: &[SessionSummary], many: &[usize], mut msg: String) -> Failure {
    for &i in many.iter().take(20) {
        let s = &sessions[i];
        msg.push_str(&format!(
            "\n  {} {} {} {}",
            s.agent,
            safe_line(&s.id),
            s.started_at.map(local_time).unwrap_or_default(),
            crate::output::safe_path(s.path())
        ));
    }
    if many.len() > 20 {
        msg.push_str(&format!("\n  … and {} more", many.len() - 20));
    }
    Failure::failed(msg)
}

/// Parse a session in full and carry over what the scan resolved across files.
pub fn load(summary: &SessionSummary) -> Result<Session, Failure> {
    load_with(summary, Detail::Full)
}

fn load_with(summary: &SessionSummary, detail: Detail) -> Result<Session, Failure> {
    let mut s = parse::parse_file_with(&summary.source, detail)
        .map_err(|w| Failure::failed(w.to_string()))?;
    summary.settle(&mut s);
    Ok(s)
}

/// The parse the text timeline needs: of each tool output, what its widest line shows.
fn timeline_detail(args: &ShowArgs) -> Detail {
    Detail::Preview(line_width(args).unwrap_or(PIPED_PREVIEW))
}

/// The fitting width of `show`'s lines: `--width`, else the table width rule (terminal,
/// `$COLUMNS`, or none when piped).
fn line_width(args: &ShowArgs) -> Option<usize> {
    args.width.or_else(target_width)
}

/// Characters of each message shown when lines are not fitted (piped output).
const PIPED_PREVIEW: usize = 160;

/// Where a timeline line's text starts, past the clock: continuation lines start there.
const TEXT_COLUMN: usize = 10;

/// A timeline line wrapped to `width`: its clock column (the first [`TEXT_COLUMN`]
/// columns, ASCII) stays, and the text wraps under the text column.
fn hang(line: &str, width: usize) -> String {
    let Some(head) = line.get(..TEXT_COLUMN).filter(|h| h.is_ascii()) else {
        return wrap(line, Some(width), TEXT_COLUMN);
    };
    let text = wrap(
        line[TEXT_COLUMN..].trim(),
        Some(width.saturating_sub(TEXT_COLUMN)),
        0,
    );
    let indent = format!("\n{}", " ".repeat(TEXT_COLUMN));
    format!("{head}{}", text.replace('\n', &indent))
}

/// One line: `prefix`, then `body` cut (its way) so that the line, `suffix` included, fits
/// `width`; the suffix goes first when even a short body would not fit.
fn fit_line(prefix: &str, body: &str, suffix: &str, width: Option<usize>, cut: Cut) -> String {
    let body = safe_line(body);
    let Some(w) = width else {
        return format!("{prefix}{}{suffix}", cut_end(&body, PIPED_PREVIEW));
    };
    // A prefix (a long tool name, several flags) that leaves the body no room: the prefix
    // wraps, the body goes on a line of its own under the text column.
    if text_width(prefix) + 12 > w && w > TEXT_COLUMN + 12 {
        let head = hang(prefix, w);
        if body.trim().is_empty() {
            return head;
        }
        let indent = " ".repeat(TEXT_COLUMN);
        return format!("{head}\n{}", fit_line(&indent, &body, suffix, Some(w), cut));
    }
    let room = w.saturating_sub(text_width(prefix));
    let (body_room, suffix) = if room >= text_width(suffix) + 12 {
        (room - text_width(suffix), suffix)
    } else {
        (room, "")
    };
    let body = match cut {
        Cut::Start => cut_start(&body, body_room),
        Cut::Prefix => cut_prefix(&body, body_room),
        Cut::End => cut_end(&body, body_room),
    };
    format!("{prefix}{body}{suffix}").trim_end().to_string()
}

fn write_header(
    out: &mut impl Write,
    s: &Session,
    children: &[&SessionSummary],
    cost: &crate::pricing::Cost,
    width: Option<usize>,
) -> std::io::Result<()> {
    let counts = s.counts();
    let u = s.usage();
    let field = |out: &mut dyn Write, k: &str, v: &str| {
        writeln!(
            out,
            "{}",
            fit_line(&format!("{k:<12} "), v, "", width, Cut::End)
        )
    };
    // Lists of figures wrap after a comma instead of losing their end.
    let wrapped = |out: &mut dyn Write, k: &str, v: &str| -> std::io::Result<()> {
        let room = width.map(|w| w.saturating_sub(13)).unwrap_or(usize::MAX);
        let mut line = String::new();
        let mut first = true;
        for piece in v.split_inclusive(", ") {
            if !line.is_empty() && text_width(&line) + text_width(piece.trim_end()) > room {
                field(out, if first { k } else { "" }, line.trim_end())?;
                first = false;
                line.clear();
            }
            line.push_str(piece);
        }
        field(out, if first { k } else { "" }, line.trim_end())
    };
    field(out, "agent", &format!("{} ({})", s.agent, s.kind.as_str()))?;
    field(out, "id", &s.id)?;
    if let Some(p) = &s.parent_id {
        field(out, "parent", p)?;
    }
    if let Some(t) = &s.title {
        field(out, "title", t)?;
    }
    match &s.project {
        // A path loses its start, not the folder that names the project.
        Some(p) => writeln!(
            out,
            "{}",
            fit_line(
                "project      ",
                p,
                &format!(" (from {})", s.project_source.as_str()),
                width,
                Cut::Start
            )
        )?,
        None => field(
            out,
            "project",
            &project_detail(None, s.project_hash.as_deref(), s.project_source.as_str()),
        )?,
    }
    writeln!(
        out,
        "{}",
        fit_line(
            "path         ",
            &s.path.display().to_string(),
            "",
            width,
            Cut::Start
        )
    )?;
    if !s.models.is_empty() {
        wrapped(out, "models", &s.models.join(", "))?;
    }
    if let Some(v) = &s.agent_version {
        field(out, "version", v)?;
    }
    if let (Some(a), Some(b)) = (s.started_at, s.updated_at) {
        field(
            out,
            "time",
            &format!(
                "{} → {} ({})",
                time::timestamp(a),
                time::timestamp(b),
                human_duration(b - a)
            ),
        )?;
    }
    field(
        out,
        "counts",
        &format!(
            "{} · {} · {} ({} failed)",
            plural(counts.user_turns as usize, "user turn"),
            plural(counts.assistant_messages as usize, "assistant message"),
            plural(counts.tool_calls as usize, "tool call"),
            thousands(counts.tool_errors)
        ),
    )?;
    wrapped(
        out,
        "tokens",
        &format!(
            "{} total over {}, {} input, {} cache read, {} cache write, {} output ({} reasoning)",
            thousands(u.total()),
            plural(s.requests.len(), "request"),
            thousands(u.input),
            thousands(u.cache_read),
            thousands(u.cache_write),
            thousands(u.output),
            thousands(u.reasoning),
        ),
    )?;
    field(out, "cost", &crate::commands::usage::cost_label(cost))?;
    field(out, "compactions", &thousands(s.compactions.len() as u64))?;
    if !children.is_empty() || !s.subagents.is_empty() {
        let mut names: Vec<String> = children
            .iter()
            .map(|c| {
                let kind = subagent_type(c)
                    .map(|t| format!("{t}, "))
                    .unwrap_or_default();
                format!(
                    "{} ({kind}{}, {} tokens)",
                    c.id,
                    plural(c.counts.assistant_messages as usize, "assistant message"),
                    human_count(c.usage.total())
                )
            })
            .collect();
        for l in &s.subagents {
            if !children.iter().any(|c| c.id == l.id) {
                names.push(format!("{} (inline or not found)", l.id));
            }
        }
        for (i, n) in names.iter().enumerate() {
            field(out, if i == 0 { "sub-agents" } else { "" }, n)?;
        }
    }
    if !s.warnings.is_empty() {
        field(out, "warnings", &thousands(s.warnings.len() as u64))?;
    }
    Ok(())
}

fn write_timeline(out: &mut impl Write, s: &Session, width: Option<usize>) -> std::io::Result<()> {
    // Tool call id → failed?, from every result in the session.
    let mut status: HashMap<&str, bool> = HashMap::new();
    // A failed result is shown under its tool's name, as its call is.
    let mut names: HashMap<&str, &str> = HashMap::new();
    for m in &s.messages {
        for p in &m.parts {
            if let Part::ToolCall { id, name, .. } = p {
                names.insert(id.as_str(), name.as_str());
            }
            if let Part::ToolResult {
                call_id, is_error, ..
            } = p
            {
                *status.entry(call_id.as_str()).or_default() |= *is_error;
            }
        }
    }
    let days = time::Days::new(s.messages.iter().filter_map(|m| m.timestamp));
    let mut last_day = None;
    // A message without a time is indented as the times above it are wide.
    let mut clock_width = 8;
    for m in &s.messages {
        let time = match m.timestamp {
            Some(t) => {
                let day = time::day(t);
                if last_day != Some(day) {
                    writeln!(out, "── {} ──", days.heading(t))?;
                    last_day = Some(day);
                }
                let clock = days.clock(t);
                clock_width = text_width(&clock);
                clock
            }
            None => " ".repeat(clock_width),
        };
        if m.subtype.as_deref() == Some("compaction") {
            for p in &m.parts {
                if let Part::Compaction { index } = p
                    && let Some(c) = s.compactions.get(*index)
                {
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
                    let (what, saved) = match c.kind {
                        CompactionKind::ClaudeMicrocompact => (
                            "microcompaction",
                            c.extra
                                .get("tokensSaved")
                                .and_then(Value::as_u64)
                                .map(|n| format!(", {} saved", human_count(n)))
                                .unwrap_or_default(),
                        ),
                        _ => ("compaction", String::new()),
                    };
                    let what = format!("{what} ({trigger}{tokens}{saved})");
                    let banner = format!("{time}  ════ {what} ════");
                    // Narrow: the rules go, then the words wrap under the text column.
                    if width.is_none_or(|w| text_width(&banner) <= w) {
                        writeln!(out, "{banner}")?;
                    } else {
                        let line = format!("{time}  {what}");
                        writeln!(out, "{}", hang(&line, width.unwrap_or(usize::MAX)))?;
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
            .as_deref()
            .map(|u| {
                format!(
                    "  [in {} · out {}]",
                    human_count(u.prompt()),
                    human_count(u.output)
                )
            })
            .unwrap_or_default();
        let text = m.preview_text();
        let thinking = m.parts.iter().any(|p| matches!(p, Part::Thinking { .. }));
        let body = if !text.trim().is_empty() {
            text
        } else if thinking {
            "(thinking)".into()
        } else {
            String::new()
        };
        // Calls and results sit under the text column, past the time.
        let indent = " ".repeat(clock_width + 2);
        let only_results = m.role == Role::Tool;
        if !only_results || !body.is_empty() {
            let prefix = format!("{time}  {role:<9}{flags} ");
            writeln!(
                out,
                "{}",
                fit_line(&prefix, &body, &tokens, width, Cut::End)
            )?;
        }
        for p in &m.parts {
            match p {
                Part::ToolCall { id, name, input } => {
                    let mark = match status.get(id.as_str()) {
                        Some(true) => "✗",
                        Some(false) => "✓",
                        None => "…",
                    };
                    let prefix = format!("{indent}→ {mark} {}: ", safe_line(name));
                    let (summary, cut) = call_summary(&input.to_value());
                    let line = fit_line(&prefix, &summary, "", width, cut);
                    writeln!(out, "{line}")?;
                }
                Part::Image {
                    media_type,
                    bytes,
                    url,
                    ..
                } => {
                    let mut line = format!(
                        "{indent}[{} {}",
                        crate::model::media_kind(media_type.as_deref()),
                        safe_line(media_type.as_deref().unwrap_or("?")),
                    );
                    if let Some(b) = bytes {
                        line.push_str(&format!(" {} bytes", thousands(*b)));
                    }
                    line.push(']');
                    // Where an image given by URL was is all the session holds of it; the
                    // address is session data, escaped and cut like any other.
                    if let Some(url) = url {
                        line.push(' ');
                        writeln!(out, "{}", fit_line(&line, url, "", width, Cut::End))?;
                        continue;
                    }
                    let fits = width.is_none_or(|w| text_width(&line) <= w);
                    if fits {
                        writeln!(out, "{line}")?;
                    } else {
                        writeln!(out, "{}", hang(&line, width.unwrap_or(usize::MAX)))?;
                    }
                }
                Part::ToolResult {
                    is_error: true,
                    output,
                    call_id,
                    ..
                } if only_results => {
                    let name = names.get(call_id.as_str()).copied().unwrap_or(call_id);
                    let prefix = format!("{indent}✗ {}: ", safe_line(name));
                    writeln!(out, "{}", fit_line(&prefix, output, "", width, Cut::End))?;
                }
                // A successful result shows on its call's line; one whose call the file does
                // not hold has no such line, and would not show at all.
                Part::ToolResult {
                    is_error: false,
                    output,
                    call_id,
                    ..
                } if only_results && !names.contains_key(call_id.as_str()) => {
                    let prefix = format!("{indent}✓ {} (call not recorded): ", safe_line(call_id));
                    writeln!(out, "{}", fit_line(&prefix, output, "", width, Cut::End))?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// A one-line description of a tool call's arguments: the command for shells, the path for
/// file tools, else compact JSON.
fn call_summary(input: &Value) -> (String, Cut) {
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
            // A path keeps its end: the file it names.
            let cut = if key.ends_with("path") {
                Cut::Start
            } else {
                Cut::End
            };
            match o.get(key) {
                Some(Value::String(s)) => return (s.clone(), cut),
                Some(Value::Array(a)) => {
                    let words = a.iter().filter_map(Value::as_str).collect::<Vec<_>>();
                    return (words.join(" "), cut);
                }
                _ => {}
            }
        }
    }
    let text = match input {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    (text, Cut::End)
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

/// `show`, `export` and `replay-compress` look a session up in a scan of every store, but
/// only the chosen session's own warnings concern the user; of what project resolution could
/// not read, those that may be why its project is unresolved (any registry, its own folder's
/// marker; another folder's marker resolves other sessions only). Only a Gemini session, or a
/// Claude session left to the folder rule, is resolved from those files: a Codex session's
/// project is its own recorded `cwd` or nothing.
pub(crate) fn own_report(s: &SessionSummary, project_warnings: &[Warning]) -> Report {
    let mut r = Report::default();
    r.extend(s.warnings.iter().cloned());
    let from_those_files = matches!(s.agent, Agent::Gemini | Agent::Claude);
    if s.project_source == ProjectSource::Unresolved && from_those_files {
        let own_dir = s.source.project_dir.as_deref();
        r.extend(
            project_warnings
                .iter()
                .filter(|w| {
                    w.path.file_name() != Some(OsStr::new(".project_root"))
                        || w.path.parent() == own_dir
                })
                .cloned(),
        );
    }
    r
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::discover::Discovery;
    use crate::model::Agent;
    use crate::parse::{FileRole, SourceFile, parse_file_with};

    /// What `show` prints of a session, header and timeline, at `width`.
    fn shown(s: &Session, width: Option<usize>) -> String {
        let mut out = Vec::new();
        write_header(&mut out, s, &[], &session_cost(s), width).unwrap();
        write_timeline(&mut out, s, width).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Whether `show` prints of `file` from the preview parse what it prints from the full
    /// one, at each width; returns how many outputs the preview cut (errors among them).
    fn same_as_full(file: &SourceFile) -> (usize, usize) {
        let path = file.path.display();
        let Ok(full) = parse_file_with(file, Detail::Full) else {
            return (0, 0);
        };
        let (mut cut, mut errors) = (0, 0);
        for width in [None, Some(24), Some(100)] {
            let preview = parse_file_with(file, Detail::Preview(width.unwrap_or(PIPED_PREVIEW)))
                .unwrap_or_else(|w| panic!("{path}: the preview parse fails: {w}"));
            assert_eq!(
                shown(&full, width),
                shown(&preview, width),
                "{path} at {width:?}"
            );
            for p in preview.messages.iter().flat_map(|m| &m.parts) {
                if let Part::ToolResult {
                    output_size: Some(_),
                    is_error,
                    ..
                } = p
                {
                    cut += 1;
                    errors += usize::from(*is_error);
                }
            }
        }
        (cut, errors)
    }

    /// The text timeline reads each tool output cut to what its line shows: what it prints is
    /// what the full parse prints, on every file of the corpus and the sample home.
    #[test]
    fn the_timeline_prints_from_cut_outputs_what_it_prints_from_whole_ones() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let files = [root.join("../shared/corpus"), root.join("testdata/home")];
        let discovery = Discovery::walk_paths(&files, &Agent::ALL);
        let (mut compared, mut cut, mut errors) = (0, 0, 0);
        for f in &discovery.files {
            let (c, e) = same_as_full(f);
            compared += 1;
            cut += c;
            errors += e;
        }
        assert!(compared >= 125, "only {compared} files compared");
        assert!(cut >= 3_000, "only {cut} outputs cut");
        assert!(errors >= 20, "only {errors} failed outputs cut");
    }

    /// Failed outputs whose lines are hard to cut: whitespace before the text, wide and
    /// zero-width characters, control characters shown as escapes, one line exactly as wide
    /// as the room.
    #[test]
    fn outputs_hard_to_cut_print_as_whole_ones_do() {
        let outputs = [
            format!("{}tail", " \n\t".repeat(400)),
            "日本語のエラー".repeat(80),
            format!("a{}b", "\u{200d}".repeat(3000)),
            "\u{1b}[31mred\u{7}".repeat(200),
            "x".repeat(24),
            format!("{}é", "y".repeat(640)),
            format!("{} ", "word ".repeat(300)),
        ];
        let mut lines = vec![
            r#"{"type":"user","uuid":"u0","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}"#.to_string(),
        ];
        // Written as Claude Code writes a result (its `type` first), so the view measures it.
        for (i, o) in outputs.iter().enumerate() {
            lines.push(format!(
                r#"{{"type":"assistant","uuid":"a{i}","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","requestId":"q{i}","message":{{"id":"m{i}","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":"x"}}}}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
            ));
            lines.push(format!(
                r#"{{"type":"user","uuid":"r{i}","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":{},"is_error":true}}]}}}}"#,
                serde_json::to_string(o).unwrap()
            ));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, lines.join("\n")).unwrap();
        let file = SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain);
        let (cut, errors) = same_as_full(&file);
        assert_eq!(errors, cut, "every output is a failed one");
        // The wide, escaped and spaced outputs at each width, the long ASCII one at the two
        // narrow ones; the others are whole, their lines no wider than the room.
        assert_eq!(cut, 11);
    }
}
