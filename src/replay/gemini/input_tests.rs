//! A Gemini session's replay input for the algorithms that do not replay on its record moves
//! the record's strings into the history items instead of copying them
//! ([`input_from`](super::resume::input_from) without `keep`). Both ways must give the same input, on every session we
//! have; and the direct conversion of tool arguments must give what reading their JSON text
//! gives. The other way round, an input made for the Gemini algorithm from any other agent's
//! session takes its items' text into Gemini contents: its replays must be those of the input
//! that keeps its items whole.

use std::path::{Path, PathBuf};

use super::e2e_tests::corpus_or_skip;
use super::json::{J, JsStr, to_json};
use super::one_pass_tests::{gemini_files, sample_files};
use super::resume::to_value;
use crate::model::{Agent, Part, Role};
use crate::parse::{FileRole, SourceFile};
use crate::replay::settings::Settings;
use crate::replay::{Algorithm, HistoryItem, ReplayInput, ReplayOptions, replay_each};

/// Part kinds seen, to keep the comparison from being vacuous: text, thinking, call, result,
/// image, other; and results read measured.
type Seen = [usize; 7];

/// Compares the input built both ways from `path` (the fuzz targets' own comparison,
/// [`crate::fuzzing::taken_is_copied`]); `false` when Gemini could not load it.
fn same_both_ways(path: &Path, seen: &mut Seen) -> bool {
    let file = SourceFile::new(Agent::Gemini, path.to_path_buf(), FileRole::Unknown);
    let Some((input, measured)) = crate::fuzzing::taken_is_copied(&file) else {
        return false;
    };
    seen[6] += measured;
    for p in input.items.iter().flat_map(|i| &i.parts) {
        let kind = match p {
            Part::Text { .. } => 0,
            Part::Thinking { .. } => 1,
            Part::ToolCall { .. } => 2,
            Part::ToolResult { .. } => 3,
            Part::Image { .. } => 4,
            _ => 5,
        };
        seen[kind] += 1;
    }
    true
}

/// How many of `files` Gemini could load, each compared both ways, and the part kinds seen.
fn compare_all(files: &[PathBuf]) -> (usize, Seen) {
    let mut seen = Seen::default();
    let loaded = files
        .iter()
        .filter(|f| same_both_ways(f, &mut seen))
        .count();
    (loaded, seen)
}

#[test]
fn items_taken_from_the_record_equal_items_copied_from_it() {
    let tmp = tempfile::tempdir().unwrap();
    let files = sample_files(tmp.path(), 0..60);
    let (loaded, seen) = compare_all(&files);
    assert!(loaded >= 60, "{loaded} of {} files loaded", files.len());
    // Text, thoughts, calls and results all went through both ways, and results were read
    // measured.
    assert!(
        seen[..4].iter().all(|&n| n > 0) && seen[6] > 50,
        "part kinds seen: {seen:?}"
    );
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn items_taken_from_the_record_equal_items_copied_from_it_on_the_corpus() {
    let Some(corpus) = corpus_or_skip("Gemini sessions") else {
        return;
    };
    let mut files = Vec::new();
    gemini_files(&corpus, &mut files);
    let (loaded, _) = compare_all(&files);
    assert!(loaded >= 40, "{loaded} of {} files loaded", files.len());
}

#[test]
fn arguments_convert_as_their_json_text_reads() {
    let text = |s: &str| J::Str(JsStr::Text(s.into()));
    let values = [
        J::Null,
        J::Bool(false),
        J::Num(0.0),
        J::Num(-0.0),
        J::Num(0.1),
        J::Num(-2.5e-7),
        J::Num(1e21),
        J::Num(9007199254740993.0),
        J::Num(1.8446744073709552e19),
        J::Num(-9.3e18),
        J::Num(f64::NAN),
        J::Num(f64::INFINITY),
        text("plain"),
        text("quote \" backslash \\ tab \t nul \u{0} é 😀"),
        J::Str(JsStr::Filler(3)),
        J::Arr(vec![J::Num(1.0), text("a"), J::Null]),
        J::obj(vec![
            ("b", J::Num(2.0)),
            ("a", J::Arr(vec![J::obj(vec![("x", text("y"))])])),
            ("b", J::Bool(true)),
        ]),
    ];
    for v in &values {
        let via_text = serde_json::from_str(&to_json(v)).unwrap_or(serde_json::Value::Null);
        assert_eq!(to_value(v), via_text, "{}", to_json(v));
    }
    // A lone surrogate: serde_json refuses its JSON text, the value is null as it was.
    let lone = J::Arr(vec![text("a"), J::Str(JsStr::Wide(vec![0xd800]))]);
    assert!(serde_json::from_str::<serde_json::Value>(&to_json(&lone)).is_err());
    assert_eq!(to_value(&lone), serde_json::Value::Null);
}

/// Gemini's algorithm at settings that make it compress, mask and strip thoughts or not.
fn gemini_settings() -> Vec<ReplayOptions> {
    let sets: [&[(&str, &str)]; 4] = [
        &[],
        &[("threshold", "0.1")],
        &[("threshold", "0.2"), ("coalesce_turns", "false")],
        &[("threshold", "0.3"), ("non_ascii_weight", "0.5")],
    ];
    sets.iter()
        .map(|pairs| {
            let pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            ReplayOptions {
                algorithm: Algorithm::Gemini,
                settings: Settings::resolve(Algorithm::Gemini.specs(), &pairs).unwrap(),
                context_window: Some(200_000),
                summary_tokens: 1_500,
                summary_tokens_source: "test",
                timeline: true,
                validate: false,
                follow_recording: false,
            }
        })
        .collect()
}

/// Replays `file` with Gemini's algorithm from an input that took its items' text and from
/// one that kept it, under all of `options` at once (a sweep, which keeps the conversion of
/// the taken items for every setting) and under the second and third alone (which consumes
/// it); returns the compressions the replays made.
fn taken_for_gemini_replays_as_kept(file: &SourceFile, options: &[ReplayOptions]) -> usize {
    let at = file.path.display();
    let taken = || {
        let (s, record) = ReplayInput::read(file, Algorithm::Gemini).unwrap();
        ReplayInput::from_read(s, record, file, Algorithm::Gemini).unwrap()
    };
    let kept = ReplayInput::from_session(crate::parse::parse_file(file).unwrap());
    let swept = taken();
    assert!(
        swept.items.iter().all(|i| i.parts.is_empty()),
        "{at}: the text was taken"
    );
    let json = |r: &[crate::replay::SessionReplay]| serde_json::to_string(r).unwrap();
    let (a, b) = (replay_each(&kept, options), replay_each(&swept, options));
    assert_eq!(json(&a), json(&b), "{at}");
    // Alone under two of them, one stripping thoughts and one not (each replay alone reads
    // the file again).
    for (o, want) in options.iter().zip(&a).skip(1).take(2) {
        let alone = replay_each(&taken(), std::slice::from_ref(o));
        assert_eq!(
            json(&alone),
            json(std::slice::from_ref(want)),
            "{at}: alone"
        );
    }
    a.iter().map(|r| r.compressions).sum()
}

fn other_agents_files(dir: &Path, out: &mut Vec<SourceFile>) {
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let p = e.path();
        let name = p.to_string_lossy();
        if !e.file_type().is_file() || !name.ends_with(".jsonl") || name.contains("gemini") {
            continue;
        }
        if let Some(agent) = crate::parse::sniff_agent(p) {
            out.push(SourceFile::new(agent, p.to_path_buf(), FileRole::Unknown));
        }
    }
}

#[test]
fn items_taken_into_gemini_contents_replay_as_items_kept() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    other_agents_files(&root.join("testdata/home"), &mut files);
    let agents = |a| files.iter().filter(|f| f.agent == a).count();
    assert!(agents(Agent::Claude) >= 3 && agents(Agent::Codex) >= 3);
    let options = gemini_settings();
    for f in &files {
        taken_for_gemini_replays_as_kept(f, &options);
    }
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn items_taken_into_gemini_contents_replay_as_items_kept_on_the_corpus() {
    let Some(corpus) = corpus_or_skip("Claude and Codex sessions") else {
        return;
    };
    let mut files = Vec::new();
    other_agents_files(&corpus.join("real/claude_compaction"), &mut files);
    other_agents_files(&corpus.join("codex"), &mut files);
    assert!(files.len() >= 30, "{} files", files.len());
    let options = gemini_settings();
    let compressions: usize = files
        .iter()
        .map(|f| taken_for_gemini_replays_as_kept(f, &options))
        .sum();
    // The replays compressed, so the shared parts went through truncation and summaries.
    assert!(compressions > 0);
}

/// Gemini's algorithm replays a Gemini session from its resumed turns alone: the same whether
/// the history items carry copies of the contents or only their metadata, and whether the
/// turns' parts were moved out to be shared or are still in the turns.
#[test]
fn gemini_replays_the_turns_whatever_the_items_hold() {
    use super::load::read_view_and_record;
    use super::resume::{Keep, input_from, resume};
    let tmp = tempfile::tempdir().unwrap();
    let options = gemini_settings();
    let (mut replayed, mut compressions, mut tool_turns) = (0, 0, 0);
    for path in sample_files(tmp.path(), 0..12) {
        let file = SourceFile::new(Agent::Gemini, path.clone(), FileRole::Unknown);
        let Ok((s, Some(messages))) = read_view_and_record(&file, false) else {
            continue;
        };
        let both = input_from(&s, resume(messages.clone()), Keep::Both);
        let turns = input_from(&s, resume(messages.clone()), Keep::Turns);
        assert!(turns.items.iter().all(|i| i.parts.is_empty()));
        // Items without parts still say what the parts would: a tool turn is a tool turn.
        let meta = |input: &ReplayInput| -> Vec<_> {
            let meta = |i: &HistoryItem| (i.role, i.is_human, i.timestamp, i.model.clone());
            input.items.iter().map(meta).collect()
        };
        assert_eq!(meta(&turns), meta(&both), "{}", path.display());
        tool_turns += both.items.iter().filter(|i| i.role == Role::Tool).count();
        let mut unmoved = input_from(&s, resume(messages.clone()), Keep::Both);
        unmoved.gemini = Some(std::sync::Arc::new(resume(messages)));
        let json =
            |input: &ReplayInput| serde_json::to_string(&replay_each(input, &options)).unwrap();
        let want = json(&both);
        assert_eq!(json(&turns), want, "{}", path.display());
        assert_eq!(json(&unmoved), want, "{}", path.display());
        replayed += 1;
        compressions += replay_each(&both, &options)
            .iter()
            .map(|r| r.compressions)
            .sum::<usize>();
    }
    assert!(
        replayed >= 20 && compressions > 0 && tool_turns > 0,
        "{replayed} replayed, {compressions} compressions, {tool_turns} tool turns"
    );
}
