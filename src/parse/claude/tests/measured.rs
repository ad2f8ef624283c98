//! Blocks read by kind (`typed_block`), in the full and the measured view, against blocks read
//! into maps ([`as_maps`]), over generated blocks: keys in any order, written twice, of every
//! JSON kind, and keys of other kinds. Written as raw lines: key order and repeated keys
//! matter, and `json!` keeps neither.

use crate::parse::Detail;
use crate::parse::json::{as_maps, by_kind};

use super::*;
use crate::testing::Rng;

const KINDS: [&str; 8] = [
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "image",
    "odd",
    "",
];

/// Every key some kind reads, and keys none reads.
const KEYS: [&str; 13] = [
    "text",
    "thinking",
    "id",
    "name",
    "input",
    "tool_use_id",
    "content",
    "is_error",
    "media_type",
    "source",
    "signature",
    "cache_control",
    "data",
];

fn string(rng: &mut Rng) -> String {
    (*rng.pick(&[
        r#""plain""#,
        r#""a \"q\"\n\u00e9 \ud83d\ude00""#,
        // A lone surrogate: the line is repaired and read again, in every view.
        r#""cut \ud83d""#,
        r#""""#,
        r#"" ""#,
        r#""t1""#,
        r#""image/png""#,
    ]))
    .to_string()
}

fn value(rng: &mut Rng, key: &str) -> String {
    match rng.below(10) {
        0 => "null".into(),
        1 => rng.pick(&["true", "false"]).to_string(),
        2 => rng
            .pick(&["0", "-3", "2.5", "18446744073709551615"])
            .to_string(),
        3 => format!(
            r#"[{},{{"type":"text","text":{}}}]"#,
            string(rng),
            string(rng)
        ),
        4 if key == "source" => {
            r#"{"type":"base64","media_type":"image/png","data":"AAAA"}"#.into()
        }
        4 | 5 => format!(r#"{{"command":{},"n":[1,{{}}]}}"#, string(rng)),
        _ => string(rng),
    }
}

/// The keys a block of `kind` is read for, with one the kind does not read now and then.
fn block(rng: &mut Rng) -> String {
    let kind = *rng.pick(&KINDS);
    let mut keys: Vec<String> = (0..rng.below(5))
        .map(|_| rng.pick(&KEYS).to_string())
        .collect();
    let own: &[&str] = match kind {
        "text" => &["text"],
        "thinking" => &["thinking", "signature"],
        "tool_use" => &["id", "name", "input"],
        "tool_result" => &["tool_use_id", "content", "is_error"],
        "image" => &["source", "media_type"],
        _ => &["text", "data"],
    };
    keys.extend(own.iter().map(|k| k.to_string()));
    // A key written twice, now and then.
    if rng.chance(20) {
        let k = rng.pick(&keys).clone();
        keys.push(k);
    }
    let mut entries: Vec<String> = keys
        .iter()
        .map(|k| format!(r#""{k}":{}"#, value(rng, k)))
        .collect();
    // Shuffle, but keep the order Claude Code writes most of the time.
    for i in (1..entries.len()).rev() {
        if rng.chance(30) {
            entries.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    if !kind.is_empty() {
        let at = match rng.below(10) {
            0..=4 => 0,
            5 | 6 => 1.min(entries.len()),
            _ => rng.below(entries.len() as u64 + 1) as usize,
        };
        entries.insert(at, format!(r#""type":"{kind}""#));
        // The `type` written again: the same kind, another, or not a string.
        if rng.chance(10) {
            let again = match rng.below(3) {
                0 => format!(r#""{kind}""#),
                1 => format!(r#""{}""#, rng.pick(&KINDS)),
                _ => value(rng, "type"),
            };
            let at = rng.below(entries.len() as u64 + 1) as usize;
            entries.insert(at, format!(r#""type":{again}"#));
        }
    }
    format!("{{{}}}", entries.join(","))
}

#[test]
fn blocks_read_by_kind_are_the_blocks_read_into_maps() {
    let mut rng = Rng(0x5eed_b10c);
    let (mut files, mut measured_outputs, mut blocks, mut read_again) = (0, 0, 0, 0);
    let dir = tempfile::tempdir().unwrap();
    for n in 0..300 {
        let mut lines = Vec::new();
        for i in 0..8 {
            let content: Vec<String> = (0..1 + rng.below(3)).map(|_| block(&mut rng)).collect();
            blocks += content.len();
            let (kind, role) = if i % 2 == 0 {
                ("assistant", "assistant")
            } else {
                ("user", "user")
            };
            lines.push(format!(
                r#"{{"type":"{kind}","uuid":"u{i}","sessionId":"s1","message":{{"id":"m{i}","role":"{role}","model":"claude-x","content":[{}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#,
                content.join(",")
            ));
        }
        let path = dir.path().join(format!("s{n}.jsonl"));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let file = SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain);
        let maps = crate::parse::finish(as_maps(Detail::Full, || parse(&file)).unwrap());
        let full = crate::parse::parse_file_with(&file, Detail::Full).unwrap();
        assert!(full == maps, "file {n}, full view:\n{}", lines.join("\n"));
        let measured = crate::parse::parse_file_with(&file, Detail::Measured).unwrap();
        let mut expected = maps;
        measured_outputs += crate::fuzzing::measure_outputs_as(&mut expected, &measured);
        assert!(
            expected == measured,
            "file {n}, measured:\n{}",
            lines.join("\n")
        );
        read_again += usize::from(by_kind(Detail::Full, || parse(&file)).1);
        files += 1;
    }
    assert_eq!(files, 300);
    // Enough of the blocks are tool results measured for the comparison to mean something,
    // and most files are read by kind to the end.
    assert!(
        blocks > 3000 && measured_outputs > 100,
        "{blocks} {measured_outputs}"
    );
    assert!(
        read_again > 10 && read_again < 150,
        "{read_again} files read again"
    );
}
