//! `replay-compress --all` with `--summary-tokens auto` replays the files of the algorithm's
//! own agent before it knows the summary size, and replays again only those whose replay used
//! the size: a replay without events is the same at any summary size, but for the size it
//! reports. This holds it to that on every corpus and sample-home session, for every algorithm
//! that writes summaries.

mod common;

use std::path::Path;

use common::session_files_under as files_under;

use sessions::discover::Discovery;
use sessions::model::Agent;
use sessions::parse::{Detail, parse_file_with};
use sessions::replay::settings::Settings;
use sessions::replay::{Algorithm, ReplayInput, ReplayOptions, replay};

fn options(alg: Algorithm, summary_tokens: u64, source: &'static str) -> ReplayOptions {
    ReplayOptions {
        algorithm: alg,
        settings: Settings::resolve(alg.specs(), &[]).unwrap(),
        context_window: None,
        summary_tokens,
        summary_tokens_source: source,
        timeline: true,
        validate: true,
        follow_recording: true,
    }
}

corpus_is_present_in_ci!();

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn a_replay_without_events_is_the_same_at_any_summary_size() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = files_under(Path::new(env!("SESSIONS_CORPUS_DIR")));
    let corpus = files.len();
    assert!(corpus > 0, "no corpus files found");
    files.extend(files_under(&root.join("testdata/home")));
    assert!(files.len() > corpus, "no sample-home files found");
    let discovery = Discovery::walk_paths(&files, &Agent::ALL);
    let (mut without, mut with) = (0, 0);
    for f in &discovery.files {
        let Ok(s) = parse_file_with(f, Detail::Full) else {
            continue;
        };
        let input = ReplayInput::from_session(s);
        for alg in [
            Algorithm::Claude,
            Algorithm::Codex,
            Algorithm::Gemini,
            Algorithm::Pi,
        ] {
            // Sizes far apart, and one of them so small that a summary changes every figure
            // after a compaction.
            let (a, b) = (options(alg, 3_000, "one"), options(alg, 40, "another"));
            let at_a = replay(&input, &a);
            if at_a.uses_summary_size() {
                with += 1;
                continue;
            }
            without += 1;
            let at_b = replay(&input, &b);
            assert!(!at_b.uses_summary_size(), "{alg:?} {}", f.path.display());
            assert_eq!(
                serde_json::to_value(at_a.resized(&a, &b)).unwrap(),
                serde_json::to_value(&at_b).unwrap(),
                "{alg:?} {}",
                f.path.display()
            );
        }
    }
    // Both kinds are common: the corpus holds long sessions that compact and short ones.
    assert!(
        without >= 100 && with >= 50,
        "{without} without events, {with} with"
    );
}
