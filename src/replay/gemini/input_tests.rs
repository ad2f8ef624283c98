//! A Gemini session's replay input for the algorithms that do not replay on its record moves
//! the record's strings into the history items instead of copying them
//! ([`input_from`](super::resume::input_from) without `keep`). Both ways must give the same input, on every session we
//! have; and the direct conversion of tool arguments must give what reading their JSON text
//! gives.

use std::path::{Path, PathBuf};

use super::e2e_tests::corpus_or_skip;
use super::json::{J, JsStr, to_json};
use super::one_pass_tests::{gemini_files, sample_files};
use super::resume::to_value;
use crate::model::{Agent, Part};
use crate::parse::{FileRole, SourceFile};

/// Part kinds seen, to keep the comparison from being vacuous: text, thinking, call, result,
/// image, other.
type Seen = [usize; 6];

/// Compares the input built both ways from `path` (the fuzz targets' own comparison,
/// [`crate::fuzzing::taken_is_copied`]); `false` when Gemini could not load it.
fn same_both_ways(path: &Path, seen: &mut Seen) -> bool {
    let file = SourceFile::new(Agent::Gemini, path.to_path_buf(), FileRole::Unknown);
    let Some(input) = crate::fuzzing::taken_is_copied(&file) else {
        return false;
    };
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
    // Text, thoughts, calls and results all went through both ways.
    assert!(
        seen[..4].iter().all(|&n| n > 0),
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
