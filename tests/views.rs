//! The views of one parser agree: a session parsed without its bodies (what `list`,
//! `projects`, `usage` and `compactions` read) has exactly the counts, usage, requests,
//! titles, compactions and warnings of the same session parsed in full (what `show`, `export`
//! and `replay` read), on every corpus file and every sample-home file; the views the replays
//! read replay exactly as the full model does.

use crate::common;

use std::path::Path;

use common::session_files_under as files_under;

use sessions::discover::Discovery;
use sessions::fuzzing::{measure_outputs_as, preview_outputs_as};
use sessions::model::Agent;
use sessions::parse::{Detail, parse_file_with};
use sessions::replay::settings::Settings;
use sessions::replay::{Algorithm, ReplayInput, ReplayOptions, replay_each};
use sessions::scan::SessionSummary;

/// Everything a summary holds, as text (the summary type has no `PartialEq`: it is not meant
/// to be compared, except here).
fn projection(s: &SessionSummary) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}\n{:?}\n{:?}\nrequests {:?}\ncompactions {:?}\nsubagents {:?}\nwarnings {:?}\nmessages {}",
        s.agent,
        s.id,
        s.kind,
        s.parent_id,
        s.cwd,
        s.title,
        s.started_at,
        s.updated_at,
        s.models,
        s.agent_version,
        s.git_branch,
        s.counts,
        s.usage,
        s.requests,
        s.compaction_events,
        s.subagents,
        s.warnings,
        s.message_count,
    )
}

/// Every corpus file and every sample-home file.
fn corpus_and_sample_home() -> Discovery {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = files_under(&root.join("../shared/corpus"));
    files.extend(files_under(&root.join("testdata/home")));
    Discovery::walk_paths(&files, &Agent::ALL)
}

/// A replay of `algorithm` with its default settings and every output it can give.
fn options(algorithm: Algorithm, context_window: Option<u64>) -> ReplayOptions {
    ReplayOptions {
        algorithm,
        settings: Settings::resolve(algorithm.specs(), &[]).unwrap(),
        context_window,
        summary_tokens: 1_500,
        summary_tokens_source: "test",
        timeline: true,
        validate: true,
        follow_recording: true,
    }
}

#[test]
fn summary_and_full_views_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = files_under(&root.join("../shared/corpus"));
    let corpus = files.len();
    files.extend(files_under(&root.join("testdata/home")));
    assert!(files.len() > corpus, "no sample-home files found");
    let discovery = Discovery::walk_paths(&files, &Agent::ALL);
    let mut compared = 0;
    for f in &discovery.files {
        let full = parse_file_with(f, Detail::Full);
        let summary = parse_file_with(f, Detail::Summary);
        match (full, summary) {
            (Ok(mut full), Ok(mut summary)) => {
                let a = projection(&SessionSummary::from_session(&mut full, f.clone()));
                let b = projection(&SessionSummary::from_session(&mut summary, f.clone()));
                assert_eq!(a, b, "{}: the views disagree", f.path.display());
                compared += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{}", f.path.display()),
            (a, b) => panic!("{}: {:?} vs {:?}", f.path.display(), a.err(), b.err()),
        }
    }
    assert!(compared >= 20, "only {compared} files compared");
}

/// A replay of a Gemini session reads the summary view and the record Gemini CLI resumes
/// (`ReplayInput::detail`): it replays exactly as from the full model, on every Gemini file of
/// the corpus and the sample home, for Gemini's algorithm and for another agent's.
#[test]
fn replays_from_the_view_a_replay_reads_equal_replays_from_the_full_model() {
    let discovery = corpus_and_sample_home();
    let options: Vec<ReplayOptions> = [Algorithm::Gemini, Algorithm::Claude]
        .into_iter()
        .map(|alg| options(alg, None))
        .collect();
    let mut compared = 0;
    for f in discovery.files.iter().filter(|f| f.agent == Agent::Gemini) {
        assert_eq!(
            ReplayInput::detail(f.agent, Algorithm::Gemini),
            Detail::Summary
        );
        let (Ok(full), Ok(view)) = (
            parse_file_with(f, Detail::Full),
            parse_file_with(f, ReplayInput::detail(f.agent, Algorithm::Gemini)),
        ) else {
            continue;
        };
        let a = replay_each(&ReplayInput::from_session(full), &options);
        let b = replay_each(&ReplayInput::from_parsed(view, f).unwrap(), &options);
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap(),
            "{}",
            f.path.display()
        );
        compared += 1;
    }
    assert!(compared >= 9, "only {compared} Gemini files compared");
}

/// The measured view (`Detail::Measured`, what every replay but Gemini's reads of a Claude or
/// Codex file) is the full view with tool outputs measured instead of kept (Claude's string
/// outputs, every Codex output), on every such file of the corpus and the sample home.
#[test]
fn the_measured_view_is_the_full_view_with_outputs_measured() {
    let discovery = corpus_and_sample_home();
    let (mut compared, mut measured_outputs) = (0, 0);
    for f in discovery.files.iter().filter(|f| f.agent != Agent::Gemini) {
        let (full, measured) = match (
            parse_file_with(f, Detail::Full),
            parse_file_with(f, Detail::Measured),
        ) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{}", f.path.display());
                continue;
            }
            (a, b) => panic!("{}: {:?} vs {:?}", f.path.display(), a.err(), b.err()),
        };
        let mut expected = full;
        assert_eq!(expected.messages.len(), measured.messages.len());
        measured_outputs += measure_outputs_as(&mut expected, &measured);
        assert_eq!(expected, measured, "{}", f.path.display());
        compared += 1;
    }
    assert!(
        compared >= 75,
        "only {compared} Claude and Codex files compared"
    );
    assert!(
        measured_outputs >= 4_000,
        "only {measured_outputs} outputs measured"
    );
}

/// `show`'s view of a Claude or Codex file (`Detail::Preview`) is the full view with each tool
/// output measured and cut to what a line of the width shows of it, at a narrow width and at
/// the width of piped output.
#[test]
fn the_preview_view_is_the_full_view_with_outputs_cut() {
    let discovery = corpus_and_sample_home();
    let (mut compared, mut cut) = (0, 0);
    for f in discovery.files.iter().filter(|f| f.agent != Agent::Gemini) {
        let Ok(full) = parse_file_with(f, Detail::Full) else {
            continue;
        };
        for columns in [20, 160] {
            let preview = parse_file_with(f, Detail::Preview(columns)).unwrap();
            let mut expected = full.clone();
            cut += preview_outputs_as(&mut expected, &preview, columns);
            assert_eq!(expected, preview, "{} at {columns}", f.path.display());
        }
        compared += 1;
    }
    assert!(
        compared >= 75,
        "only {compared} Claude and Codex files compared"
    );
    assert!(cut >= 4_000, "only {cut} outputs cut");
}

/// Every replay but Gemini's replays a Claude or Codex session from the measured view exactly
/// as from the full model, at the default window and at one small enough that most sessions
/// compact.
#[test]
fn replays_from_the_measured_view_equal_replays_from_the_full_model() {
    let discovery = corpus_and_sample_home();
    let algorithms = [
        Algorithm::Claude,
        Algorithm::Codex,
        Algorithm::Pi,
        Algorithm::OpenclawPrune,
    ];
    let options: Vec<ReplayOptions> = algorithms
        .into_iter()
        .flat_map(|alg| [None, Some(20_000)].map(move |window| options(alg, window)))
        .collect();
    let (mut compared, mut events) = (0, 0);
    for f in discovery.files.iter().filter(|f| f.agent != Agent::Gemini) {
        for alg in algorithms {
            assert_eq!(ReplayInput::detail(f.agent, alg), Detail::Measured);
        }
        assert_eq!(
            ReplayInput::detail(f.agent, Algorithm::Gemini),
            Detail::Full
        );
        let (Ok(full), Ok(measured)) = (
            parse_file_with(f, Detail::Full),
            parse_file_with(f, Detail::Measured),
        ) else {
            continue;
        };
        let a = replay_each(&ReplayInput::from_session(full), &options);
        let b = replay_each(&ReplayInput::from_parsed(measured, f).unwrap(), &options);
        let (a, b) = (
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap(),
        );
        assert_eq!(a, b, "{}", f.path.display());
        events += a
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["events"].as_array().is_some_and(|e| !e.is_empty()))
            .count();
        compared += 1;
    }
    assert!(
        compared >= 75,
        "only {compared} Claude and Codex files compared"
    );
    assert!(events >= 200, "only {events} replays with events");
}
