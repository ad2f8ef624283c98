//! The fuzz targets (`sessions::fuzzing`, driven by cargo-afl in `fuzz/`) as a bounded, stable,
//! deterministic test: real session files mutated the ways hostile or damaged files differ from
//! good ones — bit flips, truncation, deleted and repeated lines, splices of two files, huge
//! numbers, lone surrogates, deep nesting, control characters — each through every target.
//! It asserts no panic, and that a line made malformed is reported at its line number, not
//! dropped in silence. Inputs the fuzzers found are replayed from `testdata/fuzz-regressions`.

use std::path::{Path, PathBuf};

use sessions::fuzzing::{Target, parse_bytes, run};
use sessions::model::Agent;
use sessions::parse::FileRole;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Small, deterministic pseudo-random numbers (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One mutation of `data` (`other` is a second file to splice from).
fn mutate(rng: &mut Rng, data: &[u8], other: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    match rng.below(10) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                if !d.is_empty() {
                    let i = rng.below(d.len());
                    d[i] ^= 1 << rng.below(8);
                }
            }
        }
        1 => d.truncate(rng.below(d.len() + 1)),
        2 => {
            // Delete or repeat a line.
            let k = rng.below(lines.len());
            let mut out: Vec<&[u8]> = lines.clone();
            if rng.below(2) == 0 {
                out.remove(k);
            } else {
                out.insert(k, lines[k]);
            }
            d = out.join(&b'\n');
        }
        3 => {
            // Splice: the head of one file, the tail of another.
            let a = rng.below(d.len() + 1);
            let b = rng.below(other.len() + 1);
            d.truncate(a);
            d.extend_from_slice(&other[b..]);
        }
        4 => {
            // Every number of a line becomes huge, negative or fractional.
            let huge: &[&[u8]] = &[
                b"18446744073709551616",
                b"-1",
                b"1e308",
                b"0.5",
                b"-9223372036854775809",
            ];
            let pick = huge[rng.below(huge.len())];
            let mut out = Vec::with_capacity(d.len());
            let mut in_num = false;
            for &c in &d {
                if c.is_ascii_digit() {
                    if !in_num {
                        out.extend_from_slice(pick);
                    }
                    in_num = true;
                } else {
                    in_num = false;
                    out.push(c);
                }
            }
            d = out;
        }
        5 => {
            // A lone surrogate escape inside a string.
            if let Some(i) = d.iter().position(|&c| c == b'"') {
                d.splice(i + 1..i + 1, br"\ud800x\udfff".iter().copied());
            }
        }
        6 => {
            // Deep nesting where a value starts.
            if let Some(i) = d.iter().position(|&c| c == b':') {
                let depth = 2_000 + rng.below(4_000);
                let mut nest = vec![b'['; depth];
                nest.extend(std::iter::repeat_n(b']', depth));
                d.splice(i + 1..i + 1, nest);
            }
        }
        7 => {
            // Control characters and an escape sequence inside the text.
            let i = rng.below(d.len() + 1);
            d.splice(i..i, b"\x1b]0;owned\x07\x1b[2J\x00\x9b".iter().copied());
        }
        8 => {
            // Two records on one line.
            if lines.len() > 2 {
                let k = rng.below(lines.len() - 1);
                let mut out: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
                let next = out.remove(k + 1);
                out[k].extend_from_slice(&next);
                d = out.join(&b'\n');
            }
        }
        _ => {
            // Types swapped: a string where an object was, and the reverse.
            let s = String::from_utf8_lossy(&d)
                .replacen("{\"", "\"{", 1 + rng.below(3))
                .replacen("\":\"", "\":{\"", 1 + rng.below(3));
            d = s.into_bytes();
        }
    }
    d
}

/// Seeds: every small file of the sample home and the damaged twin, by target.
fn seeds() -> Vec<(Target, Vec<u8>)> {
    let mut out = Vec::new();
    for root in ["testdata/home", "testdata/damaged"] {
        for e in walkdir::WalkDir::new(repo(root)).into_iter().flatten() {
            let p = e.path();
            let name = p.to_string_lossy();
            let target = if name.contains("/.claude/") && name.ends_with(".jsonl") {
                Target::Claude
            } else if name.contains("/.codex/") && name.ends_with(".jsonl.zst") {
                Target::CodexZst
            } else if name.contains("/.codex/") && name.ends_with(".jsonl") {
                Target::Codex
            } else if name.contains("/.gemini/") && name.ends_with(".jsonl") {
                Target::GeminiJsonl
            } else if name.contains("/.gemini/") && name.ends_with(".json") {
                Target::GeminiJson
            } else {
                continue;
            };
            if let Ok(data) = std::fs::read(p)
                && data.len() < 64 * 1024
            {
                out.push((target, data));
            }
        }
    }
    out
}

#[test]
fn mutated_sessions_never_panic_any_target() {
    let seeds = seeds();
    assert!(seeds.len() >= 20, "{} seeds", seeds.len());
    let mut rng = Rng(0x5e55_1095);
    let mut runs = 0;
    for (i, (target, data)) in seeds.iter().enumerate() {
        run(*target, data);
        let other = &seeds[(i + 1) % seeds.len()].1;
        for _ in 0..12 {
            let m = mutate(&mut rng, data, other);
            run(*target, &m);
            // The same bytes through the text targets.
            run(Target::Markdown, &m);
            run(Target::Redact, &m);
            runs += 3;
        }
    }
    assert!(runs > 500, "{runs}");
}

#[test]
fn a_line_made_malformed_is_reported_at_its_line() {
    let cases = [
        (
            Agent::Claude,
            FileRole::ClaudeMain,
            "session.jsonl",
            "testdata/home/.claude/projects/-home-dev-webapp/6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01.jsonl",
        ),
        (
            Agent::Codex,
            FileRole::CodexRollout,
            "rollout-2026-04-02T14-30-00-x.jsonl",
            "testdata/home/.codex/sessions/2026/04/02/rollout-2026-04-02T14-30-00-019d4e99-de40-7b52-9d63-6e2f3a4b5c02.jsonl",
        ),
    ];
    for (agent, role, name, rel) in cases {
        let path = repo(rel);
        let Ok(text) = std::fs::read_to_string(&path) else {
            panic!("fixture missing: {}", path.display());
        };
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 3, "{rel}");
        for k in [1, lines.len() / 2, lines.len() - 2] {
            let mut broken: Vec<&str> = lines.clone();
            broken[k] = "{\"type\": \"user\", \"message\": {\"content\": tru";
            let data = broken.join("\n") + "\n";
            let s = parse_bytes(agent, role.clone(), name, data.as_bytes())
                .unwrap_or_else(|| panic!("{rel}: one bad line must not lose the session"));
            let line = k as u64 + 1;
            assert!(
                s.warnings.iter().any(|w| w.line == Some(line)),
                "{rel}: line {line} made malformed, warnings: {:?}",
                s.warnings
            );
        }
    }
}

#[test]
fn inputs_the_fuzzers_found_stay_fixed() {
    let dir = repo("testdata/fuzz-regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("testdata/fuzz-regressions") {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        // <target>-<anything>: the target the input crashed.
        let Some(target) = name.split('-').next().and_then(Target::from_name) else {
            continue;
        };
        run(target, &std::fs::read(&p).unwrap());
        n += 1;
    }
    assert!(n > 0, "no regression inputs in {}", dir.display());
}
