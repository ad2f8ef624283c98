//! `replay-compress --all` with `--summary-tokens auto` replays the files of the algorithm's
//! own agent before it knows the summary size, and replays again only those whose replay used
//! the size: a replay without events is the same at any summary size, but for the size it
//! reports. This holds it to that on every corpus and sample-home session, for every algorithm
//! that writes summaries.

use crate::common;

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

/// `replay-compress --summary-tokens` against what the agents can write: a size asked above
/// what the recording Claude Code versions could write is replayed as asked, with one note; an
/// `auto` median above what the algorithm's agent can write is held to it, with a note.
mod bounds {
    use std::path::{Path, PathBuf};

    use super::common::sessions;
    use serde_json::Value;

    const HOME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/home");

    /// The run's stdout as JSON records (when `--format json`) and its stderr.
    fn run(args: &[&str]) -> (Vec<Value>, String) {
        let out = sessions().args(args).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{stderr}");
        let records = if args.contains(&"json") {
            serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
        } else {
            Vec::new()
        };
        (records, stderr)
    }

    /// `replay-compress -A claude FILE --format json` with the sample home's stores.
    fn replay_file(file: &Path) -> (Vec<Value>, String) {
        run(&[
            "--home",
            HOME,
            "replay-compress",
            "-A",
            "claude",
            file.to_str().unwrap(),
            "--format",
            "json",
        ])
    }

    /// The notes, their wrapped lines (indented) joined again, about a version's cap.
    fn notes_about_caps(stderr: &str) -> Vec<String> {
        let mut notes: Vec<String> = Vec::new();
        for line in stderr.lines() {
            match (line.strip_prefix("  "), notes.last_mut()) {
                (Some(more), Some(last)) => {
                    last.push(' ');
                    last.push_str(more);
                }
                _ => notes.push(line.to_string()),
            }
        }
        notes.retain(|n| n.contains("is above the largest summary"));
        notes
    }

    /// The sample home's main Claude sessions were recorded by Claude Code 2.0.20 and 2.0.30
    /// (a summary of at most 32,000 tokens) and by 2.1.50, 2.1.90 and 2.1.120 (20,000 from 2.1.21).
    #[test]
    fn a_size_above_the_recording_versions_cap_is_replayed_as_asked_with_one_note() {
        let all = ["--home", HOME, "replay-compress", "--all", "-A", "claude"];
        let asked = [&all[..], &["--summary-tokens", "25000"]].concat();
        let (_, stderr) = run(&asked);
        assert_eq!(
            notes_about_caps(&stderr),
            [
                "note: --summary-tokens 25,000 is above the largest summary the claude versions that \
              recorded 3 sessions could write (20,000 tokens): they were replayed at 25,000 as asked"
            ],
            "{stderr}"
        );
        // Not clamped: every replay, of every version, is at the size asked; the note is on
        // stderr whatever the format.
        let (records, stderr) = run(&[&asked[..], &["--format", "json"]].concat());
        assert!(records.len() >= 5, "{records:?}");
        assert!(
            records.iter().all(|r| r["summary_tokens"] == 25_000),
            "{records:?}"
        );
        assert_eq!(notes_about_caps(&stderr).len(), 1, "{stderr}");
        // At or below every cap, under `auto`, with --quiet, and for an algorithm whose agent's
        // versions say nothing of it: no note.
        for extra in [
            &["--summary-tokens", "20000"][..],
            &["--summary-tokens", "auto"],
            &["--summary-tokens", "25000", "--quiet"],
        ] {
            let (_, stderr) = run(&[&all[..], extra].concat());
            assert!(notes_about_caps(&stderr).is_empty(), "{extra:?}: {stderr}");
        }
        let codex = ["--home", HOME, "replay-compress", "--all", "-A", "codex"];
        let (_, stderr) = run(&[&codex[..], &["--summary-tokens", "25000"]].concat());
        assert!(notes_about_caps(&stderr).is_empty(), "{stderr}");
    }

    /// A session named alone is counted alone; one recorded by a version that capped the summary
    /// at 32,000 is above no cap Claude's algorithm takes.
    #[test]
    fn a_session_named_alone_is_counted_alone() {
        let claude = Path::new(HOME).join(".claude/projects");
        let newer = claude.join("-home-dev-webapp/6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01.jsonl");
        let older = claude.join("-home-dev-webapp/1b2c3d4e-0a9f-4e8d-8c7b-6a5f4e3d2c10.jsonl");
        let replay = ["--home", HOME, "replay-compress", "-A", "claude"];
        let (_, stderr) = run(&[
            &replay[..],
            &["--summary-tokens", "25000", newer.to_str().unwrap()],
        ]
        .concat());
        assert_eq!(
            notes_about_caps(&stderr),
            [
                "note: --summary-tokens 25,000 is above the largest summary the claude versions that \
              recorded 1 session could write (20,000 tokens): it was replayed at 25,000 as asked"
            ],
            "{stderr}"
        );
        // At the most Claude's algorithm takes, only the newer version's cap is below it.
        let (_, stderr) = run(&[
            &replay[..],
            &["--summary-tokens", "32000", newer.to_str().unwrap()],
        ]
        .concat());
        assert_eq!(notes_about_caps(&stderr).len(), 1, "{stderr}");
        let (_, stderr) = run(&[
            &replay[..],
            &["--summary-tokens", "32000", older.to_str().unwrap()],
        ]
        .concat());
        assert!(notes_about_caps(&stderr).is_empty(), "{stderr}");
    }

    /// The sample home's Claude session that holds a compaction summary, in a folder of its own,
    /// its summary grown to `tokens` (as `auto` estimates them: UTF-8 bytes / 4).
    fn session_with_summary_of(dir: &Path, tokens: usize) -> PathBuf {
        let name = "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01.jsonl";
        let from = Path::new(HOME)
            .join(".claude/projects/-home-dev-webapp")
            .join(name);
        let text = std::fs::read_to_string(from).unwrap();
        let tail = "tests not written yet.";
        assert_eq!(text.matches(tail).count(), 1);
        let grown = text.replace(tail, &format!("{tail}{}", " word".repeat(tokens * 4 / 5)));
        let to = dir.join(name);
        std::fs::write(&to, grown).unwrap();
        to
    }

    #[test]
    fn an_auto_median_above_the_algorithms_bound_is_held_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = session_with_summary_of(dir.path(), 50_000);
        let held = "summary size 32,000 tokens (the median of the real summaries in the replayed \
                    sessions is above what the agent's summary call can write: held to that)";
        let folder = dir.path().to_str().unwrap();
        for target in [&["--all", folder][..], &[file.to_str().unwrap()], &[folder]] {
            let (records, _) = run(&[
                &["--home", HOME, "replay-compress", "-A", "claude"][..],
                target,
                &["--format", "json"],
            ]
            .concat());
            assert_eq!(records.len(), 1, "{target:?}");
            assert_eq!(records[0]["summary_tokens"], 32_000, "{target:?}");
            let notes = records[0]["notes"].as_array().unwrap();
            assert!(notes.iter().any(|n| n == held), "{target:?}: {notes:?}");
        }
        // On a terminal's stderr too.
        let (_, stderr) = run(&["--home", HOME, "replay-compress", "-A", "claude", folder]);
        assert!(
            stderr.lines().any(|l| l == format!("note: {held}")),
            "{stderr}"
        );
        // A median under the bound is the median.
        let dir = tempfile::tempdir().unwrap();
        let file = session_with_summary_of(dir.path(), 10_000);
        let (records, _) = replay_file(&file);
        let size = records[0]["summary_tokens"].as_u64().unwrap();
        assert!((10_000..11_000).contains(&size), "{size}");
    }

    /// An `auto` median within the algorithm's bound but above what the recording version
    /// (Claude Code 2.1.90: 20,000) could write gets the version note as an asked size does.
    #[test]
    fn an_auto_median_above_the_recording_versions_cap_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        let file = session_with_summary_of(dir.path(), 24_000);
        let (records, stderr) = replay_file(&file);
        let size = records[0]["summary_tokens"].as_u64().unwrap();
        assert!((24_000..25_000).contains(&size), "{size}");
        let t = sessions::render::thousands(size);
        assert_eq!(
            notes_about_caps(&stderr),
            [format!(
                "note: the summary size {t} (median of the real summaries in the replayed \
                 sessions) is above the largest summary the claude versions that recorded 1 \
                 session could write (20,000 tokens): it was replayed at {t}"
            )],
            "{stderr}"
        );
    }
}
