//! The replay reads a Gemini file once (`read_view_and_record`): its summary view and the
//! record Gemini CLI resumes must be exactly what the two separate reads give
//! (`parse_file_with(…, Summary)` and `load_record`), on every session we have and on lines
//! built to tell the two apart. The comparison is the fuzz targets' own
//! ([`crate::fuzzing::one_read_is_two_reads`]).

use std::path::{Path, PathBuf};

use super::e2e_gen;
use super::e2e_tests::corpus_or_skip;
use super::load::{Pass, one_pass};
use crate::model::Agent;
use crate::parse::{FileRole, SourceFile};

pub(super) fn gemini_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let p = e.path();
        let name = p.to_string_lossy();
        if e.file_type().is_file()
            && name.contains("gemini")
            && (name.ends_with(".json") || name.ends_with(".jsonl"))
        {
            out.push(p.to_path_buf());
        }
    }
}

/// Compares the single pass with the two reads on `path`; returns whether the single pass
/// applied, and its (records from a tree, lines with a tree).
fn same_as_two_reads(path: &Path) -> (bool, (usize, usize)) {
    let file = SourceFile::new(Agent::Gemini, path.to_path_buf(), FileRole::Unknown);
    crate::fuzzing::one_read_is_two_reads(&file);
    let bytes = std::fs::read(path).unwrap();
    match one_pass(&file, &bytes[..], false) {
        Pass::Read(one) if one.view.is_some() => (true, (one.from_tree, one.trees)),
        _ => (false, (0, 0)),
    }
}

/// The Gemini files of the sample home and of the damaged samples, and the sessions generated
/// from `seeds`, written under `tmp` where a Gemini store keeps its chats.
pub(super) fn sample_files(tmp: &Path, seeds: impl IntoIterator<Item = u32>) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    gemini_files(&root.join("testdata/home"), &mut files);
    gemini_files(&root.join("testdata/damaged"), &mut files);
    let chats = tmp.join(".gemini/tmp/proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    for seed in seeds {
        let ext = if e2e_gen::is_jsonl(seed) {
            "jsonl"
        } else {
            "json"
        };
        let file = chats.join(format!("session-gen-{seed}.{ext}"));
        std::fs::write(&file, e2e_gen::generate_session(seed)).unwrap();
        files.push(file);
    }
    files
}

#[test]
fn one_read_gives_the_view_and_the_record_of_the_two_reads() {
    let tmp = tempfile::tempdir().unwrap();
    // Every generated JSONL log, and some documents (which take the two reads).
    let seeds = (0..400)
        .filter(|&s| e2e_gen::is_jsonl(s))
        .take(40)
        .chain(0..10);
    let files = sample_files(tmp.path(), seeds);
    let (mut single, mut from_tree, mut trees) = (0, 0, 0);
    for f in &files {
        let (applied, (t, n)) = same_as_two_reads(f);
        single += usize::from(applied);
        from_tree += t;
        trees += n;
    }
    // Not a vacuous comparison: the JSONL logs take the single pass (but those with a
    // checkpoint, whose view needs bodies: 21 of them), and most of their lines' view records
    // come from the tree.
    assert!(single >= 25, "the single pass applied to {single} files");
    assert!(
        from_tree * 10 >= trees * 9,
        "{from_tree} of {trees} lines read from their tree"
    );
}

#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn one_read_equals_two_reads_on_the_corpus() {
    let Some(corpus) = corpus_or_skip("Gemini sessions") else {
        return;
    };
    let mut files = Vec::new();
    gemini_files(&corpus, &mut files);
    assert!(files.len() >= 40, "{} Gemini files", files.len());
    let mut single = 0;
    for f in &files {
        single += usize::from(same_as_two_reads(f).0);
    }
    // The corpus holds two JSONL logs; the rest are documents, read the two ways.
    assert!(single >= 2, "the single pass applied to {single} files");
}

/// Lines where a tree says less than the text, or where the view and `readline` split or trim
/// differently: each file must still read exactly as the two reads read it.
#[test]
fn lines_that_tell_the_two_reads_apart_read_the_same() {
    let meta =
        r#"{"sessionId":"s1","projectHash":"h","startTime":"2026-01-01T00:00:00Z","kind":"main"}"#;
    let user = |id: &str, text: &str| {
        format!(
            r#"{{"id":"{id}","timestamp":"2026-01-01T00:00:01Z","type":"user","content":[{{"text":"{text}"}}]}}"#
        )
    };
    let model = |id: &str, tokens: &str| {
        format!(
            r#"{{"id":"{id}","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":[{{"text":"ok"}}],"model":"gemini-2.5-pro","tokens":{tokens},"thoughts":[{{"subject":"S","description":"  ","timestamp":"t"}}],"toolCalls":[{{"id":"c1","name":"read_file","args":{{"path":"a"}},"status":"success","result":[{{"functionResponse":{{"id":"c1","name":"read_file","response":{{"output":"x"}}}}}}]}}]}}"#
        )
    };
    let cases: Vec<(&str, String)> = vec![
        (
            "plain",
            [
                meta.to_string(),
                user("u1", "hi"),
                model("m1", r#"{"input":10,"output":2}"#),
            ]
            .join("\n"),
        ),
        (
            "float tokens",
            [
                meta.to_string(),
                user("u1", "hi"),
                model("m1", r#"{"input":10.0,"output":2}"#),
            ]
            .join("\n"),
        ),
        (
            "huge tokens",
            [
                meta.to_string(),
                user("u1", "hi"),
                model("m1", r#"{"input":9007199254740993,"output":2}"#),
            ]
            .join("\n"),
        ),
        (
            "repeated key",
            [
                meta.to_string(),
                r#"{"id":"u1","type":"user","type":"info","content":"a"}"#.to_string(),
                model("m1", r#"{"input":1}"#),
            ]
            .join("\n"),
        ),
        (
            "crlf",
            [
                meta.to_string(),
                user("u1", "hi"),
                model("m1", r#"{"input":3}"#),
            ]
            .join("\r\n"),
        ),
        (
            "lone cr",
            [
                meta.to_string(),
                user("u1", "hi"),
                model("m1", r#"{"input":3}"#),
            ]
            .join("\r"),
        ),
        (
            // One line to the view (not JSON), two records to `readline`.
            "lone cr between records",
            format!(
                "{meta}\n{}\r{}\n",
                user("u1", "hi"),
                model("m1", r#"{"input":3}"#)
            ),
        ),
        (
            "form feed",
            format!(
                "{meta}\n\u{c}{}\n{}",
                user("u1", "hi"),
                model("m1", r#"{"input":3}"#)
            ),
        ),
        (
            "lone surrogate",
            [
                meta.to_string(),
                user("u1", r"\ud83d"),
                model("m1", r#"{"input":3}"#),
            ]
            .join("\n"),
        ),
        (
            "two records on a line",
            format!("{meta}\n{}{}\n", user("u1", "a"), user("u2", "b")),
        ),
        (
            "not objects and broken lines",
            format!(
                "{meta}\n[1,2]\n\"s\"\n{{\"id\":\"u1\",\n{}\n{{\"id\":",
                user("u2", "b")
            ),
        ),
        (
            "rewind and set",
            [
                meta.to_string(),
                user("u1", "a"),
                user("u2", "b"),
                r#"{"$rewindTo":"u2"}"#.to_string(),
                r#"{"$set":{"summary":"s","messages":[]}}"#.to_string(),
                user("u3", "c"),
            ]
            .join("\n"),
        ),
        (
            "no metadata",
            [user("u1", "a"), model("m1", "{}")].join("\n"),
        ),
        (
            "not utf-8",
            format!("{meta}\n{}\n", user("u1", "caf\u{e9}")).replace('\u{e9}', "\u{fffd}"),
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let chats = tmp.path().join(".gemini/tmp/proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let mut single = 0;
    for (i, (name, text)) in cases.iter().enumerate() {
        let path = chats.join(format!("session-case-{i}.jsonl"));
        let mut bytes = text.clone().into_bytes();
        if *name == "not utf-8" {
            // A Latin-1 byte in place of the replacement character.
            let at = bytes
                .windows(3)
                .position(|w| w == "\u{fffd}".as_bytes())
                .unwrap();
            bytes.splice(at..at + 3, [0xe9]);
        }
        std::fs::write(&path, &bytes).unwrap();
        single += usize::from(same_as_two_reads(&path).0);
    }
    assert!(
        single >= 8,
        "the single pass applied to {single} of {} cases",
        cases.len()
    );
}
