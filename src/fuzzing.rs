//! What the fuzzers drive: one entry point per input surface, taking raw bytes. The coverage-
//! guided harness in `fuzz/` (cargo-afl) and the bounded stable test `tests/fuzz_smoke.rs` call
//! the same functions, so a crash found by one is a regression test in the other.
//!
//! Each parser target writes the bytes to a scratch file (parsers read files: the line reader,
//! its caps and the decompression limit are part of what is fuzzed) and, when the file parses,
//! pushes the session through everything downstream of the parser: every export format,
//! redaction, and a replay with every algorithm. The only failure a target can show is a panic
//! (or an abort, for the fuzzer); wrong results are the other tests' business.

use std::io;
use std::path::PathBuf;

use crate::export::markdown::{Env, NoChildren};
use crate::export::{ExportFormat, ExportOptions, redact, write_session};
use crate::model::{Agent, Part, Session, TextSize};
use crate::parse::{FileRole, SourceFile, parse_file};
use crate::replay::settings::Settings;
use crate::replay::{Algorithm, ReplayInput, ReplayOptions, replay};

/// An input surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A Claude Code transcript (`.jsonl`).
    Claude,
    /// A Codex rollout (`.jsonl`).
    Codex,
    /// A compressed Codex rollout (`.jsonl.zst`): the bytes are the compressed stream.
    CodexZst,
    /// A Gemini CLI session document (`.json`, every era).
    GeminiJson,
    /// A Gemini CLI session log (`.jsonl`).
    GeminiJsonl,
    /// Message text through the Markdown/HTML renderer and the terminal sanitiser.
    Markdown,
    /// Text through the secret redactor.
    Redact,
}

impl Target {
    pub const ALL: [Target; 7] = [
        Target::Claude,
        Target::Codex,
        Target::CodexZst,
        Target::GeminiJson,
        Target::GeminiJsonl,
        Target::Markdown,
        Target::Redact,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Claude => "claude",
            Target::Codex => "codex",
            Target::CodexZst => "codex_zst",
            Target::GeminiJson => "gemini_json",
            Target::GeminiJsonl => "gemini_jsonl",
            Target::Markdown => "markdown",
            Target::Redact => "redact",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The agent and file name a parser target's bytes are written as.
    fn file(self) -> Option<(Agent, FileRole, &'static str)> {
        Some(match self {
            Target::Claude => (Agent::Claude, FileRole::ClaudeMain, "session.jsonl"),
            Target::Codex => (
                Agent::Codex,
                FileRole::CodexRollout,
                "rollout-2026-01-01T00-00-00-fuzz.jsonl",
            ),
            Target::CodexZst => (
                Agent::Codex,
                FileRole::CodexRollout,
                "rollout-2026-01-01T00-00-00-fuzz.jsonl.zst",
            ),
            Target::GeminiJson => (Agent::Gemini, FileRole::GeminiSession, "session-fuzz.json"),
            Target::GeminiJsonl => (Agent::Gemini, FileRole::GeminiSession, "session-fuzz.jsonl"),
            Target::Markdown | Target::Redact => return None,
        })
    }
}

/// Run one input through one target. Panics are the findings.
pub fn run(target: Target, data: &[u8]) {
    match target.file() {
        Some((agent, role, name)) => {
            let scratch = Scratch::new();
            let Some(path) = scratch.write(name, data) else {
                return;
            };
            let file = SourceFile::new(agent, path, role);
            let session = parse_file(&file).ok();
            if agent == Agent::Gemini {
                one_read_is_two_reads(&file);
                taken_is_copied(&file);
            } else {
                measured_is_full(&file, session.as_ref());
                preview_is_full(&file, session.as_ref());
            }
            if let Some(session) = session {
                downstream(session);
            }
        }
        None => {
            let text = String::from_utf8_lossy(data);
            match target {
                Target::Markdown => {
                    let html = crate::export::html::markdown_to_html(&text);
                    // Hostile HTML never passes through the renderer as markup.
                    assert!(!html.contains("<script"), "raw <script> in {html:?}");
                    let _ = crate::render::text::terminal_safe(&text);
                }
                _ => {
                    let mut counts = redact::Redactions::default();
                    if let Some(once) = redact::redact_str(&text, &mut counts) {
                        // A redacted text has nothing left to redact of what was found.
                        let _ = redact::redact_str(&once, &mut counts);
                    }
                }
            }
        }
    }
}

/// A scratch folder per process and thread, in the temp directory, removed when dropped (a
/// test run must not leave one behind per thread it ran on).
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        Scratch(std::env::temp_dir().join(format!(
            "sessions-fuzz-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        )))
    }

    /// Write `data` as the file `name` in the folder, dated a day back: a document cut short
    /// that was just written is read again after a wait, taken for one its writer is
    /// rewriting (`parse::read_document`), and most mutations cut a document short. The
    /// parsing is the same either way; the waits (unit-tested) would be most of a run.
    fn write(&self, name: &str, data: &[u8]) -> Option<PathBuf> {
        std::fs::create_dir_all(&self.0).ok()?;
        let path = self.0.join(name);
        let file = std::fs::File::create(&path).ok()?;
        std::io::Write::write_all(&mut &file, data).ok()?;
        let day_back = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
        file.set_modified(day_back).ok()?;
        Some(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Parse `data` as the file `name` of `agent`; `None` when the parser refused it (a refusal
/// is a correct answer to garbage).
pub fn parse_bytes(agent: Agent, role: FileRole, name: &str, data: &[u8]) -> Option<Session> {
    let scratch = Scratch::new();
    let path = scratch.write(name, data)?;
    parse_file(&SourceFile::new(agent, path, role)).ok()
}

/// A replay reads a Gemini file once, for its summary view and the record Gemini CLI resumes:
/// what it reads must be what the two separate reads give, whatever the bytes. The record read
/// line by line must be the record read from the whole file too.
pub(crate) fn one_read_is_two_reads(file: &SourceFile) {
    use crate::replay::gemini::load::{load_record, load_record_whole, read_view_and_record};
    let path = file.path.display();
    let two = crate::parse::parse_file_with(file, crate::parse::Detail::Summary);
    let whole = load_record_whole(&file.path);
    assert!(
        load_record(&file.path) == whole,
        "record of {path}, read line by line"
    );
    match (two, read_view_and_record(file, false)) {
        (Ok(view), Ok((one_view, one_record))) => {
            assert_eq!(view, one_view, "view of {path}, read once");
            assert!(whole == one_record, "record of {path}, read once");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{path}: the two ways fail differently"),
        (a, b) => panic!(
            "{path}: read once the file {} but read twice it {}",
            if b.is_ok() { "parses" } else { "fails" },
            if a.is_ok() { "parses" } else { "fails" }
        ),
    }
}

/// Every replay but Gemini's reads a Claude or Codex file with its tool outputs measured rather than
/// kept ([`Detail::Measured`](crate::parse::Detail::Measured)): what it reads must be the full
/// session with those outputs measured, and replay as it does, whatever the bytes.
fn measured_is_full(file: &SourceFile, full: Option<&Session>) {
    let measured = crate::parse::parse_file_with(file, crate::parse::Detail::Measured).ok();
    let path = file.path.display();
    let (full, measured) = match (full, measured) {
        (Some(full), Some(measured)) => (full, measured),
        (None, None) => return,
        (full, _) => panic!(
            "{path}: only the {} view parses",
            if full.is_some() { "full" } else { "measured" }
        ),
    };
    let mut expected = full.clone();
    measure_outputs_as(&mut expected, &measured);
    let mut measured = measured;
    for s in [&mut expected, &mut measured] {
        skipped_lines_only(s);
    }
    assert!(expected == measured, "{path}: the measured view");
    let (a, b) = (
        ReplayInput::from_session(full.clone()),
        ReplayInput::from_session(measured),
    );
    measured_replays_alike(&a, &b, &path.to_string());
}

/// Two views of a file skip the same lines, each reported where it is, but not always for the
/// same reason: serde_json checks that a string is UTF-8 only when it decodes it, so a line
/// whose string holds a byte that is not (in a field one view reads and the other skips) fails
/// in one view at that byte and in the other at the next error after it. The reasons are left
/// out of the comparison.
fn skipped_lines_only(s: &mut Session) {
    for w in &mut s.warnings {
        if w.kind == crate::diag::WarningKind::MalformedLine {
            w.message.clear();
        }
    }
}

/// The replays but Gemini's of `a`, with its tool outputs' text, and of `b`, with them
/// measured, must be the same.
fn measured_replays_alike(a: &ReplayInput, b: &ReplayInput, at: &str) {
    for algorithm in [
        Algorithm::Claude,
        Algorithm::Codex,
        Algorithm::Pi,
        Algorithm::OpenclawPrune,
    ] {
        let opts = fuzz_options(algorithm);
        let json = |r| serde_json::to_string(&r).expect("a replay serialises");
        assert_eq!(
            json(replay(a, &opts)),
            json(replay(b, &opts)),
            "{at}: replayed measured"
        );
    }
}

/// `show`'s timeline reads a Claude or Codex file with each tool output cut to what a line
/// shows of it ([`Detail::Preview`](crate::parse::Detail::Preview)): what it reads must be the
/// full session with those outputs cut, whatever the bytes.
fn preview_is_full(file: &SourceFile, full: Option<&Session>) {
    let path = file.path.display();
    for columns in [6, 160] {
        let preview = crate::parse::parse_file_with(file, crate::parse::Detail::Preview(columns));
        match (full, preview) {
            (Some(full), Ok(preview)) => {
                let (mut expected, mut preview) = (full.clone(), preview);
                preview_outputs_as(&mut expected, &preview, columns);
                for s in [&mut expected, &mut preview] {
                    skipped_lines_only(s);
                }
                assert!(expected == preview, "{path}: the preview view at {columns}");
            }
            (None, Err(_)) => {}
            (full, _) => panic!(
                "{path}: only the {} view parses",
                if full.is_some() { "full" } else { "preview" }
            ),
        }
    }
}

/// Measure the tool outputs of `full` that `measured` (the same file read at
/// [`Detail::Measured`](crate::parse::Detail::Measured)) holds measured, as that parse does;
/// `full` then equals `measured` when the two views agree. Returns how many it measured, after
/// checking each size against the text it replaces.
pub fn measure_outputs_as(full: &mut Session, measured: &Session) -> usize {
    outputs_as(full, measured, |_| String::new())
}

/// [`measure_outputs_as`] for a parse at [`Detail::Preview`](crate::parse::Detail::Preview)
/// of `columns`: each output it measured keeps what a line of that width shows of it.
pub fn preview_outputs_as(full: &mut Session, preview: &Session, columns: usize) -> usize {
    outputs_as(full, preview, |o| {
        crate::render::text::line_beginning(o, columns).to_string()
    })
}

/// Measure the outputs `measured` holds measured, each output becoming `kept(output)`.
fn outputs_as(full: &mut Session, measured: &Session, kept: impl Fn(&str) -> String) -> usize {
    let pairs = full.messages.iter_mut().zip(&measured.messages);
    pairs
        .map(|(m, mm)| parts_as(&mut m.parts, &mm.parts, &kept))
        .sum()
}

/// [`outputs_as`] over the parts of one message or history item: each tool output of `parts`
/// that `measured` holds measured is checked against the size and becomes `kept(output)`.
fn parts_as(parts: &mut [Part], measured: &[Part], kept: impl Fn(&str) -> String) -> usize {
    let mut n = 0;
    for (p, pm) in parts.iter_mut().zip(measured) {
        if let (
            Part::ToolResult {
                output,
                output_size,
                ..
            },
            Part::ToolResult {
                output_size: Some(size),
                ..
            },
        ) = (p, pm)
        {
            assert_eq!(TextSize::of(output), *size, "the size of {output:?}");
            *output = kept(output);
            *output_size = Some(*size);
            n += 1;
        }
    }
    n
}

/// The algorithms that do not replay on a Gemini record take its strings into their history
/// items instead of copying them: the input must be the same either way, whatever the bytes.
/// They also read the record with its tool outputs measured and not decoded: the same
/// view, the same input with those outputs measured, and the same replays. Returns the input
/// and how many outputs were measured (`None` when Gemini could not load the file).
pub(crate) fn taken_is_copied(file: &SourceFile) -> Option<(ReplayInput, usize)> {
    use crate::replay::gemini::load::read_view_and_record;
    use crate::replay::gemini::resume::{Keep, input_from, resume};
    let measured = read_view_and_record(file, true);
    let Ok((s, Some(messages))) = read_view_and_record(file, false) else {
        assert!(
            matches!(measured, Err(_) | Ok((_, None))),
            "{}: only the measured record loads",
            file.path.display()
        );
        return None;
    };
    let Ok((sm, Some(measured))) = measured else {
        panic!("{}: the measured record does not load", file.path.display());
    };
    assert!(
        s == sm,
        "{}: the view read with measured results",
        file.path.display()
    );
    let kept = input_from(&s, resume(messages.clone()), Keep::Both);
    let taken = input_from(&s, resume(messages), Keep::Items);
    let n = measured_is_taken(
        file,
        &taken,
        &input_from(&sm, resume(measured), Keep::Items),
    );
    let at = file.path.display();
    assert!(kept.gemini.is_some() && taken.gemini.is_none(), "{at}");
    assert_eq!(kept.items.len(), taken.items.len(), "{at}: items");
    for (k, t) in kept.items.iter().zip(&taken.items) {
        assert_eq!(k.parts, t.parts, "{at}: parts");
        assert_eq!(k.tool_names, t.tool_names, "{at}: tool names");
        assert_eq!(
            (k.role, k.is_human, k.timestamp, &k.model, k.is_context),
            (t.role, t.is_human, t.timestamp, &t.model, t.is_context),
            "{at}: item"
        );
    }
    assert_eq!(kept.requests, taken.requests, "{at}: requests");
    assert_eq!(
        kept.recorded_compactions, taken.recorded_compactions,
        "{at}"
    );
    assert_eq!(kept.model, taken.model, "{at}: model");
    Some((kept, n))
}

/// The input of a Gemini record read with its tool outputs measured ([`JsStr::Measured`])
/// must be `taken`, the input from the decoded record, with those outputs measured; and replay
/// as it does. Returns how many outputs were measured.
///
/// [`JsStr::Measured`]: crate::replay::gemini::json::JsStr::Measured
fn measured_is_taken(file: &SourceFile, taken: &ReplayInput, measured: &ReplayInput) -> usize {
    let at = file.path.display();
    let mut expected = taken.clone();
    let mut n = 0;
    assert_eq!(expected.items.len(), measured.items.len(), "{at}: items");
    for (e, m) in expected.items.iter_mut().zip(&measured.items) {
        assert_eq!(e.parts.len(), m.parts.len(), "{at}: parts");
        n += parts_as(&mut e.parts, &m.parts, |_| String::new());
    }
    assert_eq!(
        format!("{expected:?}"),
        format!("{measured:?}"),
        "{at}: the measured input"
    );
    measured_replays_alike(taken, measured, &at.to_string());
    n
}

/// Everything that consumes a parsed session.
fn downstream(session: Session) {
    for format in [
        ExportFormat::Md,
        ExportFormat::Html,
        ExportFormat::Json,
        ExportFormat::Jsonl,
    ] {
        export(&session, format);
    }
    let mut redacted = session.clone();
    redact::redact_session(&mut redacted);
    export(&redacted, ExportFormat::Md);
    // Made for Gemini's algorithm alone, the input of another agent's session takes its items'
    // text into Gemini contents: its replays must be those of the input that keeps it.
    let taken = (session.agent != Agent::Gemini).then(|| {
        let mut t = ReplayInput::from_session(session.clone());
        t.gemini_sized.take_items(&mut t.items);
        t
    });
    let input = ReplayInput::from_session(session);
    for &algorithm in <Algorithm as clap::ValueEnum>::value_variants() {
        let opts = fuzz_options(algorithm);
        let kept = replay(&input, &opts);
        if let Some(taken) = taken.as_ref().filter(|_| algorithm == Algorithm::Gemini) {
            let json = |r| serde_json::to_string(&r).expect("a replay serialises");
            assert_eq!(
                json(kept),
                json(replay(taken, &opts)),
                "items taken for Gemini"
            );
        }
    }
}

/// A replay at a window small enough that most inputs compact, with every output it can give.
fn fuzz_options(algorithm: Algorithm) -> ReplayOptions {
    ReplayOptions {
        algorithm,
        settings: Settings::resolve(algorithm.specs(), &[]).expect("defaults are valid"),
        context_window: Some(20_000),
        summary_tokens: algorithm.default_summary_tokens(),
        summary_tokens_source: "fuzz",
        timeline: true,
        validate: true,
        follow_recording: true,
    }
}

fn export(session: &Session, format: ExportFormat) {
    let opts = ExportOptions {
        format,
        ..ExportOptions::default()
    };
    let env = Env::new(&opts, &NoChildren, None);
    write_session(&mut io::sink(), session, &env).expect("a sink never fails");
}
