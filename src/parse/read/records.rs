//! Decoding each line of a JSONL file into records: blank lines skipped, every other line that
//! holds no record reported with its number, and the ways real writers break a line (two
//! records on one line, a record cut short, duplicate keys, bytes that are not UTF-8) read
//! where the data allows it.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::MAX_LINE_BYTES;
use super::escapes::repair_lone_surrogates;
use super::file::shrank;
use super::lines::{Line, Lines};
use crate::diag::{Warning, WarningKind};
use crate::parse::json::Obj;

/// A record type family: `Rec<'a>` borrows from the line it is read from.
pub trait Records: 'static {
    type Rec<'a>: Deserialize<'a>;
}

/// What became of one line.
enum Outcome {
    Done,
    /// A lone UTF-16 surrogate escape stopped the reader: repair the line and read it again.
    Surrogate,
    NotObject(&'static str),
    Bad(String),
}

/// Read every line of a JSONL file and call `f(line_number, record, bytes)` for every JSON
/// object on it (`bytes` is the object's text, for the rare record a parser re-reads whole). Blank lines are ignored; everything else that is not an object is skipped and recorded
/// in `warnings` with its line number. A final line without a newline that does not parse is a
/// live session mid-write ([`WarningKind::TruncatedLastLine`]). Memory stays at one line.
pub fn for_each_record<T: Records>(
    path: &Path,
    src: impl Read,
    warnings: &mut Vec<Warning>,
    f: impl for<'a> FnMut(u64, T::Rec<'a>, &'a [u8]),
) {
    for_each_record_pre::<T>(path, src, warnings, |_| None, f);
}

/// [`for_each_record`], asking `pre` first for each non-blank line's record: a caller that has
/// already deserialised the line its own way hands the record over, and the line's text is
/// decoded only when `pre` returns `None`.
pub fn for_each_record_pre<T: Records>(
    path: &Path,
    src: impl Read,
    warnings: &mut Vec<Warning>,
    mut pre: impl for<'a> FnMut(&'a [u8]) -> Option<T::Rec<'a>>,
    mut f: impl for<'a> FnMut(u64, T::Rec<'a>, &'a [u8]),
) {
    let mut lines = Lines::new(src);
    let mut normal = Vec::new();
    while let Some(line) = lines.next() {
        match line {
            Line::TooLong { no } => warnings.push(Warning::new(
                WarningKind::MalformedLine,
                path,
                Some(no),
                format!("line longer than {} MiB, skipped", MAX_LINE_BYTES >> 20),
            )),
            Line::Error { no, error } => {
                // A shrink leaves a last line cut where the file now ends: not a write in
                // progress, and what came before is no version of the file either.
                let (kind, msg) = match shrank(&error) {
                    Some(s) => (WarningKind::ShrankWhileRead, s.to_string()),
                    None => (
                        WarningKind::Unreadable,
                        format!("read error, rest of file skipped: {error}"),
                    ),
                };
                warnings.push(Warning::new(kind, path, Some(no), msg));
                break;
            }
            Line::Text {
                no,
                bytes,
                complete,
            } => {
                let line = trim_ascii_mut(bytes);
                if line.is_empty() {
                    continue;
                }
                if let Some(rec) = pre(line) {
                    if too_deep(line) {
                        warnings.push(Warning::new(
                            WarningKind::MalformedLine,
                            path,
                            Some(no),
                            format!("skipped malformed line: {}", nested_too_deep()),
                        ));
                    } else {
                        f(no, rec, line);
                    }
                    continue;
                }
                let mut outcome = decode::<T>(
                    line,
                    &mut normal,
                    &mut |r, b| f(no, r, b),
                    warnings,
                    path,
                    no,
                );
                if let Outcome::Surrogate = outcome {
                    // Repaired only when a string the parser decodes needs it: lines that
                    // parse pay nothing for the check.
                    repair_lone_surrogates(line);
                    outcome = decode::<T>(
                        line,
                        &mut normal,
                        &mut |r, b| f(no, r, b),
                        warnings,
                        path,
                        no,
                    );
                    if let Outcome::Surrogate = outcome {
                        outcome = Outcome::Bad("invalid \\u escape".into());
                    }
                }
                match outcome {
                    Outcome::Done | Outcome::Surrogate => {}
                    Outcome::NotObject(kind) => warnings.push(Warning::new(
                        WarningKind::UnexpectedRecord,
                        path,
                        Some(no),
                        format!("skipped a JSON {kind} that is not an object"),
                    )),
                    Outcome::Bad(e) => {
                        let (kind, msg) = if complete || !could_be_mid_write(line) {
                            (
                                WarningKind::MalformedLine,
                                format!("skipped malformed line: {e}"),
                            )
                        } else {
                            (
                                WarningKind::TruncatedLastLine,
                                "last line is incomplete (session still being written?)"
                                    .to_string(),
                            )
                        };
                        warnings.push(Warning::new(kind, path, Some(no), msg));
                    }
                }
            }
        }
    }
}

/// Whether an unparsable last line without a newline can be a record its writer has not
/// finished: it starts as JSON does and holds no NUL. A run of NULs (what a crash leaves where
/// the file system had allocated blocks) or text no JSON starts with is damage, not progress.
fn could_be_mid_write(line: &[u8]) -> bool {
    matches!(
        line.first(),
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
    ) && memchr::memchr(0, line).is_none()
}

/// Decode one non-blank line into records.
fn decode<'b, T: Records>(
    line: &'b [u8],
    normal: &mut Vec<u8>,
    f: &mut dyn for<'a> FnMut(T::Rec<'a>, &'a [u8]),
    warnings: &mut Vec<Warning>,
    path: &Path,
    no: u64,
) -> Outcome {
    // One SIMD UTF-8 check of the whole line lets serde_json skip checking every string it
    // reads; a line that fails it goes the slow way.
    let parsed = match simdutf8::basic::from_utf8(line) {
        Ok(text) => serde_json::from_str::<Obj<T::Rec<'b>>>(text),
        Err(_) => serde_json::from_slice::<Obj<T::Rec<'b>>>(line),
    };
    let err = match parsed {
        // Each view skips different parts of a record, and a value skipped is not held to
        // serde_json's nesting limit where a value kept is: the limit is the line's, so that
        // every view reads the same lines.
        Ok(_) if too_deep(line) => return Outcome::Bad(nested_too_deep()),
        Ok(Obj::Is(rec)) => {
            f(rec, line);
            return Outcome::Done;
        }
        Ok(Obj::Not(kind)) => return Outcome::NotObject(kind),
        Err(e) => e,
    };
    let msg = err.to_string();
    if nested_too_deep_error(&msg) {
        return Outcome::Bad(nested_too_deep());
    }
    if surrogate_error(&msg) {
        return Outcome::Surrogate;
    }
    // A number past f64's range (`1e400`) fails the whole line in serde_json, where a token
    // count that is no count is read as 0 with a warning: the number is kept as the text it
    // is, and the record with it.
    if out_of_range_error(&msg) {
        let mut fixed = Vec::with_capacity(line.len() + 8);
        let quoted = quote_out_of_range_numbers(line, &mut fixed);
        if quoted > 0 {
            warnings.push(Warning::new(
                WarningKind::UnexpectedRecord,
                path,
                Some(no),
                match quoted {
                    1 => "a number too large for a 64-bit float, read as text".to_string(),
                    n => format!("{n} numbers too large for a 64-bit float, read as text"),
                },
            ));
            return decode::<T>(&fixed, normal, f, warnings, path, no);
        }
    }
    // Two or more records written on one line: each one is complete.
    if let Some(spans) = split_values(line) {
        let mut not_objects = Vec::new();
        for (a, b) in spans {
            match decode::<T>(&line[a..b], normal, f, warnings, path, no) {
                Outcome::Done => {}
                Outcome::Surrogate => return Outcome::Surrogate,
                Outcome::NotObject(kind) => not_objects.push(kind),
                Outcome::Bad(e) => return Outcome::Bad(e),
            }
        }
        return match not_objects.first() {
            Some(kind) => Outcome::NotObject(kind),
            None => Outcome::Done,
        };
    }
    if err.is_data() {
        // Valid JSON the typed reader refused (a key written twice): normalise through a
        // `Value`, which keeps the last of duplicate keys like every JSON reader does.
        if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(line) {
            normal.clear();
            if serde_json::to_writer(&mut *normal, &v).is_ok() {
                let normal: &[u8] = normal;
                if let Ok(Obj::Is(rec)) = serde_json::from_slice::<Obj<T::Rec<'_>>>(normal) {
                    f(rec, normal);
                    return Outcome::Done;
                }
            }
        }
        return Outcome::Bad(err.to_string());
    }
    // A record cut short (a crash mid-write) with the next record appended on the same line:
    // keep what follows the cut.
    if (err.is_syntax() || err.is_eof())
        && let Some(at) = recoverable_tail(line)
    {
        warnings.push(Warning::new(
                WarningKind::MalformedLine,
                path,
                Some(no),
                format!(
                    "skipped an incomplete record ({at} bytes) cut short by the next one on the same line"
                ),
            ));
        return decode::<T>(&line[at..], normal, f, warnings, path, no);
    }
    if err.to_string().contains("invalid unicode") || std::str::from_utf8(line).is_err() {
        // Bytes that are not UTF-8: decode them as U+FFFD rather than losing the record.
        let lossy = String::from_utf8_lossy(line).into_owned().into_bytes();
        if lossy != line {
            *normal = lossy;
            let normal: &[u8] = normal;
            if let Ok(Obj::Is(rec)) = serde_json::from_slice::<Obj<T::Rec<'_>>>(normal) {
                f(rec, normal);
                return Outcome::Done;
            }
        }
    }
    Outcome::Bad(err.to_string())
}

/// Whether a line that fails with the error `message` is repaired and read again, or reported
/// in words of its own (a nesting too deep), by the line reader ([`for_each_record`]): its
/// error's position is then never reported. A reader that reads part of a line its own way
/// may fail where serde_json's decoding fails at another position; it needs the decoding's
/// error only when this is false. (Bytes that are not UTF-8 are repaired too, but the error is
/// reported when the repaired line fails as well: not one of these.)
pub fn error_is_repaired(message: &str) -> bool {
    nested_too_deep_error(message) || surrogate_error(message) || out_of_range_error(message)
}

/// serde_json's error for nesting past its limit: reported as [`nested_too_deep`].
fn nested_too_deep_error(message: &str) -> bool {
    message.starts_with("recursion limit exceeded")
}

/// serde_json's errors for a lone surrogate escape: the line is repaired
/// ([`repair_lone_surrogates`]) and read again.
fn surrogate_error(message: &str) -> bool {
    message.contains("surrogate") || message.contains("hex escape")
}

/// serde_json's error for a number past f64's range: the number is read as its text.
fn out_of_range_error(message: &str) -> bool {
    message.starts_with("number out of range")
}

/// The deepest nesting serde_json reads into a `Value` (its recursion limit is 128 levels
/// counting the one that fails).
const MAX_DEPTH: usize = 127;

fn nested_too_deep() -> String {
    format!("nested deeper than {MAX_DEPTH} levels")
}

/// Whether a line that parsed nests arrays and objects deeper than [`MAX_DEPTH`].
fn too_deep(line: &[u8]) -> bool {
    // A line with few brackets (nearly all of them) cannot nest deeply.
    let openers = textstats::openers_up_to(line, MAX_DEPTH);
    if openers <= MAX_DEPTH {
        return false;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = line.get(i) {
        match b {
            b'"' => {
                let Some(j) = string_end(line, i) else {
                    return false;
                };
                i = j;
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

/// Byte ranges of the JSON values on a line that holds more than one, if every byte belongs to
/// one of them.
fn split_values(line: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut spans = Vec::new();
    let mut it = serde_json::Deserializer::from_slice(line).into_iter::<IgnoredAny>();
    let mut start = 0;
    loop {
        match it.next() {
            None => break,
            Some(Ok(_)) => {
                let end = it.byte_offset();
                let a = start
                    + line[start..end]
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                spans.push((a, end));
                start = end;
            }
            Some(Err(_)) => return None,
        }
    }
    (spans.len() > 1).then_some(spans)
}

/// Where the complete records start on a line whose first record was cut short: the last
/// `{"` such that everything from there on is one or more JSON values.
fn recoverable_tail(line: &[u8]) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(b"{\"");
    let starts: Vec<usize> = finder.find_iter(line).filter(|&i| i > 0).collect();
    // Earliest start first: it keeps the most data. Bounded, so a pathological line costs
    // little.
    starts.into_iter().take(64).find(|&i| {
        let rest = &line[i..];
        serde_json::from_slice::<IgnoredAny>(rest).is_ok() || split_values(rest).is_some()
    })
}

/// The end (past its closing quote) of the JSON string literal opening at `open`: the next quote
/// not preceded by an odd run of backslashes. `None` when the line ends first.
fn string_end(line: &[u8], open: usize) -> Option<usize> {
    let mut j = open + 1;
    loop {
        let at = j + memchr::memchr(b'"', &line[j..])?;
        let escapes = line[..at].iter().rev().take_while(|&&c| c == b'\\').count();
        j = at + 1;
        if escapes % 2 == 0 {
            return Some(j);
        }
    }
}

/// Copy `line` into `out` with each number literal too large for an f64 (`1e400`, or an
/// integer of 400 digits) written as a JSON string of its text. Returns how many were.
fn quote_out_of_range_numbers(line: &[u8], out: &mut Vec<u8>) -> usize {
    let is_number_byte = |b: u8| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E');
    let mut quoted = 0;
    let mut i = 0;
    while let Some(&b) = line.get(i) {
        if b == b'"' {
            let j = string_end(line, i).unwrap_or(line.len());
            out.extend_from_slice(&line[i..j]);
            i = j;
        } else if b == b'-' || b.is_ascii_digit() {
            let len = line[i..].iter().take_while(|&&c| is_number_byte(c)).count();
            let text = &line[i..i + len];
            let infinite = std::str::from_utf8(text)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .is_some_and(f64::is_infinite);
            if infinite {
                out.push(b'"');
                out.extend_from_slice(text);
                out.push(b'"');
                quoted += 1;
            } else {
                out.extend_from_slice(text);
            }
            i += len;
        } else {
            out.push(b);
            i += 1;
        }
    }
    quoted
}

fn trim_ascii_mut(b: &mut [u8]) -> &mut [u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &mut b[start..end]
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::*;

    #[test]
    fn lines_are_counted_not_fatal() {
        let (seen, w) = run(b"{\"a\":\"1\"}\n\nnot json\n[1,2]\n{\"a\":\"2\"}\n{\"trunc");
        assert_eq!(seen, vec![(1, "1".into()), (5, "2".into())]);
        assert_eq!(
            w,
            vec![
                (WarningKind::MalformedLine, 3),
                (WarningKind::UnexpectedRecord, 4),
                (WarningKind::TruncatedLastLine, 6),
            ]
        );
    }

    #[test]
    fn a_last_line_no_record_can_start_is_malformed_not_mid_write() {
        let mut nuls = b"{\"a\":\"1\"}\n".to_vec();
        nuls.extend([0u8; 4096]);
        assert_eq!(run(&nuls).1, vec![(WarningKind::MalformedLine, 2)]);
        // A record cut short and padded with NULs by a crash: damage, not a write in progress.
        assert_eq!(
            run(b"{\"a\":\"x\0\0\0").1,
            vec![(WarningKind::MalformedLine, 1)]
        );
        assert_eq!(run(b"garbage").1, vec![(WarningKind::MalformedLine, 1)]);
        assert_eq!(
            run(b"{\"a\":\"1\"}\n{\"a\":\"mid").1,
            vec![(WarningKind::TruncatedLastLine, 2)]
        );
    }

    #[test]
    fn two_records_on_one_line_are_both_kept() {
        let (seen, w) = run(b"{\"a\":\"1\"}{\"a\":\"2\"} {\"a\":\"3\"}\n");
        assert!(w.is_empty());
        assert_eq!(
            seen.iter().map(|s| s.1.as_str()).collect::<Vec<_>>(),
            ["1", "2", "3"]
        );
        assert!(seen.iter().all(|s| s.0 == 1));
    }

    #[test]
    fn a_cut_record_followed_by_a_whole_one_keeps_the_whole_one() {
        let (seen, w) = run(b"{\"a\":\"half{\"a\":\"whole\"}\n");
        assert_eq!(seen, vec![(1, "whole".into())]);
        assert_eq!(w, vec![(WarningKind::MalformedLine, 1)]);
    }

    /// `1e400` fails serde_json's whole line; the record is kept with the number as its text,
    /// and the line named. Numbers in strings, and numbers in range, are left as they are.
    #[test]
    fn numbers_out_of_range_keep_their_record() {
        let big = "9".repeat(400);
        let data = format!(
            "{{\"a\":\"1\",\"n\":1e400}}\n{{\"n\":[-1E+999,1e308,\"2e999\"],\"a\":\"2\"}}\n\
             {{\"a\":\"3\",\"n\":{big}}}\n{{\"a\":\"4\",\"n\":1e4\n"
        );
        let (seen, w) = run(data.as_bytes());
        assert_eq!(
            seen,
            vec![(1, "1".into()), (2, "2".into()), (3, "3".into())]
        );
        assert_eq!(
            w,
            vec![
                (WarningKind::UnexpectedRecord, 1),
                (WarningKind::UnexpectedRecord, 2),
                (WarningKind::UnexpectedRecord, 3),
                (WarningKind::MalformedLine, 4),
            ]
        );
        let mut out = Vec::new();
        let line = br#"{"s":"a \" 1e400","n":[1e400,-2e999,3],"t":"\\","u":5e-999}"#;
        assert_eq!(quote_out_of_range_numbers(line, &mut out), 2);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"s":"a \" 1e400","n":["1e400","-2e999",3],"t":"\\","u":5e-999}"#
        );
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let (seen, w) = run(b"{\"a\":\"1\",\"a\":\"2\"}\n");
        assert!(w.is_empty());
        assert_eq!(seen, vec![(1, "2".into())]);
    }
    /// The nesting rule is serde_json's own, and holds in a view that skips the deep value.
    #[test]
    fn lines_nested_too_deep_are_malformed_whatever_the_view_keeps() {
        for depth in [MAX_DEPTH - 1, MAX_DEPTH] {
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let line = format!("{{\"a\":\"x\",\"b\":{deep},\"c\":\"[{{\\\"\"}}");
            let parses = serde_json::from_str::<Value>(&line).is_ok();
            assert_eq!(parses, depth < MAX_DEPTH, "{depth} arrays in an object");
            assert_eq!(too_deep(line.as_bytes()), !parses, "{depth}");
            // `Probe` skips `b`; the line is still malformed for it.
            let (seen, w) = run(format!("{line}\n").as_bytes());
            if parses {
                assert_eq!((seen.len(), w), (1, vec![]));
            } else {
                assert_eq!((seen.len(), w), (0, vec![(WarningKind::MalformedLine, 1)]));
            }
        }
        // Brackets inside strings do not nest.
        let s = format!("{{\"a\":\"{}\\\\\",\"b\":1}}", "[".repeat(300));
        assert!(!too_deep(s.as_bytes()));
    }

    /// The bracket count that lets a line skip the exact scan sees every bracket, wherever the
    /// line's length puts them against the blocks it is counted in.
    #[test]
    fn deep_nesting_is_found_wherever_the_brackets_fall() {
        for depth in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            for pad in 0..450 {
                let before = format!("{{\"p\":\"{}\",\"d\":{deep}}}", "x".repeat(pad));
                let after = format!("{{\"d\":{deep},\"p\":\"{}\"}}", "x".repeat(pad));
                for line in [before, after] {
                    let parses = serde_json::from_str::<Value>(&line).is_ok();
                    assert_eq!(too_deep(line.as_bytes()), !parses, "{depth}, {pad}");
                }
            }
        }
    }
}
