//! The end-to-end differential: every request of every session in
//! `testdata/golden/gemini-e2e/decisions.json.zst` (written by
//! `scripts/golden/gemini-e2e/gen.mjs` from `@google/gemini-cli-core` 0.61.0) replayed here, and
//! the decisions compared: the trigger input, the status, the split and the kept contents, the
//! new token count, the masking, and the history as sent (estimate, JSON length, and a sha256 of
//! its JSON).
//!
//! The sessions are the Gemini files of `../shared/corpus` (skipped with a note when it is
//! absent, a failure when `CI=true`), the sample home's, and generated ones rebuilt by
//! [`super::e2e_gen`].

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::json::{J, JsStr};
use super::load::load_record;
use super::{Gemini, SPECS};
use crate::parse::{FileRole, SourceFile};
use crate::replay::settings::Settings;
use crate::replay::window::{Limits, WindowSource};
use crate::replay::{ReplayInput, RequestInfo, Strategy, StrategyContext};

/// The committed goldens, or another run's (`SESSIONS_GEMINI_E2E_GOLDEN`, see gen.mjs).
fn golden() -> J {
    let path = std::env::var_os("SESSIONS_GEMINI_E2E_GOLDEN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("testdata/golden/gemini-e2e/decisions.json.zst")
        });
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = zstd::decode_all(bytes.as_slice()).expect("zstd");
    let j: J = serde_json::from_slice(&text).expect("golden JSON");
    assert_eq!(lossy(j.get("package")), "@google/gemini-cli-core");
    assert_eq!(lossy(j.get("version")), "0.61.0");
    j
}

fn lossy(j: Option<&J>) -> String {
    j.and_then(J::as_str)
        .map(JsStr::to_string_lossy)
        .unwrap_or_default()
}

fn num(j: Option<&J>) -> Option<u64> {
    match j {
        Some(J::Num(x)) => Some(*x as u64),
        _ => None,
    }
}

fn arr(j: Option<&J>) -> &[J] {
    j.and_then(J::as_array).map(Vec::as_slice).unwrap_or(&[])
}

pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("SESSIONS_CORPUS_DIR"))
}

/// `../shared/corpus` when present; a failure when `CI=true` says it must be.
pub fn corpus_or_skip(what: &str) -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what}: {} is missing and CI=true",
        dir.display()
    );
    to_stderr!(
        "note: {what}: {} is absent; corpus sessions skipped",
        dir.display()
    );
    None
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A golden session's file on disk (generated ones written to `tmp`), or `None` to skip.
fn session_file(s: &J, corpus: Option<&Path>, tmp: &Path) -> Option<PathBuf> {
    let file = match lossy(s.get("source")).as_str() {
        "corpus" => corpus?.join(lossy(s.get("path"))),
        "home" => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/home")
            .join(lossy(s.get("path"))),
        "generated" => {
            let seed = num(s.get("seed")).expect("seed") as u32;
            let ext = if super::e2e_gen::is_jsonl(seed) {
                "jsonl"
            } else {
                "json"
            };
            let file = tmp.join(format!("gen-{seed}.{ext}"));
            std::fs::write(&file, super::e2e_gen::generate_session(seed)).unwrap();
            file
        }
        other => panic!("source {other}"),
    };
    let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert_eq!(
        sha(&bytes),
        lossy(s.get("sha256")),
        "{}: not the file the goldens were made from",
        file.display()
    );
    Some(file)
}

fn input_of(file: &Path) -> ReplayInput {
    let src = SourceFile::new(
        crate::model::Agent::Gemini,
        file.to_path_buf(),
        FileRole::GeminiSession,
    );
    let session = crate::parse::parse_file(&src).expect("parses");
    ReplayInput::from_session(session)
}

/// The goldens are the 0.61.0 package's decisions: an engine replay compared with them runs that
/// version's behaviour, not the era a file's format and date show (which the engine assumes
/// for settings left at their defaults).
const PACKAGE_ERA: &[(&str, &str)] = &[
    ("masking", "true"),
    ("non_ascii_weight", "1.5"),
    ("coalesce_turns", "true"),
    ("truncation_only_after_failure", "true"),
    ("trigger_last_prompt_tokens", "true"),
];

/// `pairs` with the package's version settings it does not give.
fn package_era(pairs: &mut Vec<(String, String)>) {
    for (k, v) in PACKAGE_ERA {
        if !pairs.iter().any(|(key, _)| key == k) {
            pairs.push((k.to_string(), v.to_string()));
        }
    }
}

fn context(setting: &J) -> StrategyContext {
    let limit = num(setting.get("limit")).unwrap();
    let masking = setting.get("masking").filter(|m| !matches!(m, J::Null));
    let mut pairs = vec![(
        "threshold".to_string(),
        super::json::js_number(match setting.get("threshold") {
            Some(J::Num(x)) => *x,
            _ => panic!("threshold"),
        }),
    )];
    match masking {
        None => pairs.push(("masking".into(), "false".into())),
        Some(m) => {
            for (k, key) in [
                ("masking_protection_threshold", "protectionThresholdTokens"),
                ("masking_min_prunable", "minPrunableThresholdTokens"),
            ] {
                pairs.push((k.into(), num(m.get(key)).unwrap().to_string()));
            }
        }
    }
    StrategyContext {
        settings: Settings::resolve(SPECS, &pairs).unwrap(),
        limits: Limits {
            context_window: limit,
            max_output: 65_536,
            source: WindowSource::Override,
        },
        summary_tokens: num(setting.get("summary_tokens")).unwrap(),
        agent_version: None,
        native: false,
        model: None,
        sweep: false,
    }
}

/// What the golden says about one request, in the order of its `fields`.
#[derive(Debug, PartialEq)]
struct Row {
    p: u64,
    status: u64,
    split: Option<u64>,
    kept: Option<u64>,
    new_tokens: Option<u64>,
    masked: u64,
    saved: u64,
    estimate: u64,
    json_len: u64,
    sha: String,
}

fn row(j: &J) -> Row {
    let a = arr(Some(j));
    Row {
        p: num(a.first()).unwrap(),
        status: num(a.get(1)).unwrap(),
        split: num(a.get(2)),
        kept: num(a.get(3)),
        new_tokens: num(a.get(4)),
        masked: num(a.get(5)).unwrap(),
        saved: num(a.get(6)).unwrap(),
        estimate: num(a.get(7)).unwrap(),
        json_len: num(a.get(8)).unwrap(),
        sha: lossy(a.get(9)),
    }
}

/// Replay one session under one setting the way the engine does, with the trigger input after
/// a divergence defined as in gen.mjs (overhead + the previous request's estimate); the rows.
/// Each row with whether the replay's one approximation applied at that request (truncation-only
/// mode with the previous prompt at or past the window: `maxChars` < 1, see `max_chars`).
fn replay(input: &ReplayInput, setting: &J, hash: &[bool]) -> Vec<(Row, bool)> {
    let mut g = Gemini::for_input(&context(setting), input);
    let first_real = input
        .recorded_compactions
        .iter()
        .map(|c| c.request_index)
        .min();
    let mut pushed = 0;
    let mut overhead: Option<u64> = None;
    let mut prev: Option<u64> = None;
    let mut out = Vec::new();
    for (k, r) in input.requests.iter().enumerate() {
        while pushed < r.upto.min(input.items.len()) {
            g.push(&input.items[pushed]);
            pushed += 1;
        }
        if overhead.is_none()
            && let Some(rec) = r.recorded_prompt
        {
            overhead = Some(rec.saturating_sub(g.full_tokens()));
        }
        let info = RequestInfo {
            timestamp: r.timestamp,
            recorded_prompt: r.recorded_prompt,
            output: r.output,
            unmanaged: first_real.is_none_or(|f| k < f),
            ..super::tests::request(k, prev)
        };
        let failed = g.failed();
        g.before_request(&info);
        let d = g.decision();
        let limit = num(setting.get("limit")).unwrap();
        let threshold = match setting.get("threshold") {
            Some(J::Num(x)) => *x,
            _ => unreachable!(),
        };
        let approx = failed
            && d.prompt as f64 >= threshold * limit as f64
            && super::exact_max_chars(limit, d.prompt, 40_000) < 1;
        let estimate = g.context_tokens();
        prev = Some(overhead.unwrap_or(0) + estimate);
        let (json_len, sha) = if hash.get(k).copied().unwrap_or(false) {
            let json = g.history_json();
            (
                json.encode_utf16().count() as u64,
                sha(json.as_bytes())[..16].to_string(),
            )
        } else {
            (g.history_json_len(), String::new())
        };
        out.push((
            Row {
                p: d.prompt,
                status: u64::from(d.status),
                split: d.split.map(|x| x as u64),
                kept: d.kept.map(|x| x as u64),
                new_tokens: d.new_tokens,
                masked: d.masked as u64,
                saved: d.tokens_saved,
                estimate,
                json_len,
                sha,
            },
            approx,
        ));
    }
    out
}

#[test]
fn env_text_is_the_packages() {
    let j = golden();
    assert_eq!(lossy(j.get("env_text")), super::PLACEHOLDER_ENV_TEXT);
}

#[test]
fn generated_sessions_are_rebuilt_byte_for_byte() {
    let j = golden();
    for s in arr(j.get("sessions")) {
        if lossy(s.get("source")) != "generated" {
            continue;
        }
        let seed = num(s.get("seed")).unwrap() as u32;
        let text = super::e2e_gen::generate_session(seed);
        assert_eq!(sha(text.as_bytes()), lossy(s.get("sha256")), "seed {seed}");
    }
}

/// History changes per run whose content hash is checked (besides the last request).
const HASHED_CHANGES: usize = 4;

#[test]
fn every_request_matches_the_package() {
    let j = golden();
    let settings = arr(j.get("settings"));
    let corpus = corpus_or_skip("gemini end-to-end goldens");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut approximated = Vec::new();
    let (mut sessions, mut requests) = (0, 0);
    for s in arr(j.get("sessions")) {
        let Some(file) = session_file(s, corpus.as_deref(), tmp.path()) else {
            continue;
        };
        let name = format!(
            "{} {}",
            lossy(s.get("source")),
            lossy(s.get("path")) + &num(s.get("seed")).map_or(String::new(), |x| x.to_string())
        );
        let loadable = matches!(s.get("loadable"), Some(J::Bool(true)));
        assert_eq!(load_record(&file).is_some(), loadable, "{name}: loadable");
        let input = input_of(&file);
        if !loadable {
            assert!(input.gemini.is_none(), "{name}");
            continue;
        }
        let resumed = input.gemini.as_ref().expect("resumed");
        let first_real = input
            .recorded_compactions
            .iter()
            .map(|c| c.request_index)
            .min();
        let shape = (
            resumed.turns.len() as u64,
            input.requests.len() as u64,
            first_real.map(|x| x as u64),
        );
        let want = (
            num(s.get("turns")).unwrap(),
            num(s.get("requests")).unwrap(),
            num(s.get("agent_compaction")),
        );
        if shape != want {
            failures.push(format!(
                "{name}: (turns, requests, first agent compaction) {shape:?}, want {want:?}"
            ));
            continue;
        }
        sessions += 1;
        for (setting, runs) in settings.iter().zip(arr(s.get("runs"))) {
            let want: Vec<Row> = arr(Some(runs)).iter().map(row).collect();
            // The content hash at the first few changes and at the end (each costs a full
            // serialisation; the JSON length and the estimate are compared everywhere).
            let mut changes = 0;
            let last = want.len().saturating_sub(1);
            let hash: Vec<bool> = want
                .iter()
                .enumerate()
                .map(|(k, w)| {
                    let take = !w.sha.is_empty() && (k == last || changes < HASHED_CHANGES);
                    changes += usize::from(!w.sha.is_empty() && k != last);
                    take
                })
                .collect();
            let got = replay(&input, setting, &hash);
            assert_eq!(got.len(), want.len(), "{name}");
            for (k, ((g, approx), mut w)) in got.into_iter().zip(want).enumerate() {
                if approx {
                    // The documented approximation: the same trigger input, then the rest of
                    // the run is not comparable.
                    assert_eq!(g.p, w.p, "{name}: request {k}");
                    approximated.push(format!(
                        "{name} [{}] from request {k}",
                        lossy(setting.get("name"))
                    ));
                    break;
                }
                requests += 1;
                if !hash[k] {
                    w.sha = String::new();
                }
                if g != w {
                    failures.push(format!(
                        "{name} [{}] request {k}:\n  got  {g:?}\n  want {w:?}",
                        lossy(setting.get("name"))
                    ));
                    break;
                }
            }
        }
    }
    to_stderr!(
        "{sessions} sessions, {requests} requests compared; {} runs stop where the previous \
         prompt passed the window in truncation-only mode:\n  {}",
        approximated.len(),
        approximated.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Measurement (not checks): how far the engine's replay (`replay()`, as `sessions
// replay-compress` runs it) agrees with the package, per setting. `export_for_measurement`
// writes what `measure_agreement` needs with public APIs only, so the same measurement can run
// on an older build:
//
//   cargo test --lib gemini::e2e_tests::export -- --ignored      # → $TMPDIR/gemini-e2e-export.json
//   cargo test --lib gemini::e2e_tests::measure -- --ignored --nocapture

fn export_path() -> PathBuf {
    std::env::temp_dir().join("gemini-e2e-export.json")
}

#[test]
#[ignore]
fn export_for_measurement() {
    let j = golden();
    let corpus = corpus_or_skip("measurement export");
    let dir = std::env::temp_dir().join("gemini-e2e-sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let mut sessions = Vec::new();
    for s in arr(j.get("sessions")) {
        if !matches!(s.get("loadable"), Some(J::Bool(true))) {
            continue;
        }
        let Some(file) = session_file(s, corpus.as_deref(), &dir) else {
            continue;
        };
        let messages = load_record(&file).expect("loadable");
        let times: Vec<serde_json::Value> = messages
            .iter()
            .filter(|m| lossy(m.get("type")) == "gemini")
            .map(|m| serde_json::Value::String(lossy(m.get("timestamp"))))
            .collect();
        let runs: Vec<serde_json::Value> = arr(s.get("runs"))
            .iter()
            .map(|run| {
                arr(Some(run))
                    .iter()
                    .map(|r| {
                        let r = row(r);
                        serde_json::json!([r.status, r.masked > 0])
                    })
                    .collect()
            })
            .collect();
        sessions.push(serde_json::json!({
            "name": format!("{} {}{}", lossy(s.get("source")), lossy(s.get("path")),
                num(s.get("seed")).map_or(String::new(), |x| x.to_string())),
            "source": lossy(s.get("source")),
            "file": file,
            "times": times,
            "runs": runs,
        }));
    }
    let settings: Vec<serde_json::Value> = arr(j.get("settings"))
        .iter()
        .map(|st| serde_json::from_str(&super::json::to_json(st)).unwrap())
        .collect();
    let out = serde_json::json!({"settings": settings, "sessions": sessions});
    std::fs::write(export_path(), out.to_string()).unwrap();
}

#[test]
#[ignore]
fn measure_agreement() {
    use crate::replay::{Algorithm, EventKind, ReplayOptions, replay};
    use serde_json::Value;
    let text = std::fs::read_to_string(export_path()).expect("run export_for_measurement first");
    let ex: Value = serde_json::from_str(&text).unwrap();
    let settings = ex["settings"].as_array().unwrap();
    for (si, st) in settings.iter().enumerate() {
        let mut pairs = vec![("threshold".to_string(), st["threshold"].to_string())];
        match st["masking"].as_object() {
            None => pairs.push(("masking".into(), "false".into())),
            Some(m) => {
                pairs.push((
                    "masking_protection_threshold".into(),
                    m["protectionThresholdTokens"].to_string(),
                ));
                pairs.push((
                    "masking_min_prunable".into(),
                    m["minPrunableThresholdTokens"].to_string(),
                ));
            }
        }
        package_era(&mut pairs);
        let opts = ReplayOptions {
            algorithm: Algorithm::Gemini,
            settings: Settings::resolve(Algorithm::Gemini.specs(), &pairs).unwrap(),
            context_window: st["limit"].as_u64(),
            summary_tokens: st["summary_tokens"].as_u64().unwrap(),
            summary_tokens_source: "measurement",
            timeline: false,
            validate: false,
            follow_recording: false,
        };
        // per source: [sessions, sessions agreeing, requests, requests agreeing,
        //              sessions compressing, first compression at the same request]
        let mut acc: std::collections::BTreeMap<String, [usize; 6]> = Default::default();
        for s in ex["sessions"].as_array().unwrap() {
            let file = PathBuf::from(s["file"].as_str().unwrap());
            let src = SourceFile::new(crate::model::Agent::Gemini, file, FileRole::GeminiSession);
            let input = ReplayInput::from_session(crate::parse::parse_file(&src).unwrap());
            let out = replay(&input, &opts);
            let times: Vec<&str> = s["times"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            let want: Vec<(u64, bool)> = s["runs"][si]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r[0].as_u64().unwrap(), r[1].as_bool().unwrap()))
                .collect();
            // The replay's requests onto the package's (every gemini record), by timestamp.
            let mut got = vec![(0u64, false); want.len()];
            let mut next = 0;
            let mut index = vec![None; input.requests.len()];
            for (k, r) in input.requests.iter().enumerate() {
                let ts = r
                    .timestamp
                    .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string());
                if let Some(p) = (next..times.len()).find(|&p| Some(times[p]) == ts.as_deref()) {
                    index[k] = Some(p);
                    next = p + 1;
                }
            }
            for e in &out.events {
                let Some(Some(p)) = index.get(e.request) else {
                    continue;
                };
                match e.kind {
                    EventKind::Compress => got[*p].0 = 1,
                    EventKind::Failed => got[*p].0 = 2,
                    EventKind::Truncate => got[*p].0 = 6,
                    EventKind::Mask => got[*p].1 = true,
                    EventKind::Prune => {}
                }
            }
            let changed = |x: &(u64, bool)| (if matches!(x.0, 1 | 2 | 6) { x.0 } else { 0 }, x.1);
            let agree = want
                .iter()
                .zip(&got)
                .filter(|(w, g)| changed(w) == changed(g))
                .count();
            let first = |v: &[(u64, bool)]| v.iter().position(|x| x.0 == 1);
            let a = acc
                .entry(s["source"].as_str().unwrap().to_string())
                .or_default();
            a[0] += 1;
            a[1] += usize::from(agree == want.len());
            a[2] += want.len();
            a[3] += agree;
            if first(&want).is_some() || first(&got).is_some() {
                a[4] += 1;
                a[5] += usize::from(first(&want) == first(&got));
            }
        }
        for (src, a) in acc {
            println!(
                "{:<22} {:<10} sessions {}/{} agree, requests {}/{} agree; first compression same {}/{}",
                st["name"].as_str().unwrap(),
                src,
                a[1],
                a[0],
                a[3],
                a[2],
                a[5],
                a[4]
            );
        }
    }
}

/// The engine end to end (`replay()`, what `sessions replay-compress -A gemini` runs) on the
/// real Gemini sessions of the corpus (`$SESSIONS_CORPUS/real`): up to its first compression the replay is
/// in sync with the recording and independent of how the engine estimates afterwards, so every
/// request up to then, and the first compression itself, must be the package's.
#[test]
#[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
fn corpus_real_sessions_compress_where_gemini_does() {
    use crate::replay::{Algorithm, EventKind, ReplayOptions, replay};
    let j = golden();
    let Some(corpus) = corpus_or_skip("real Gemini sessions") else {
        return;
    };
    let settings = arr(j.get("settings"));
    let tmp = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for (si, setting) in settings.iter().enumerate() {
        let name = lossy(setting.get("name"));
        let masking = setting.get("masking").filter(|m| !matches!(m, J::Null));
        let mut pairs = vec![(
            "threshold".to_string(),
            super::json::js_number(match setting.get("threshold") {
                Some(J::Num(x)) => *x,
                _ => unreachable!(),
            }),
        )];
        match masking {
            None => pairs.push(("masking".into(), "false".into())),
            Some(m) => {
                pairs.push((
                    "masking_protection_threshold".into(),
                    num(m.get("protectionThresholdTokens")).unwrap().to_string(),
                ));
                pairs.push((
                    "masking_min_prunable".into(),
                    num(m.get("minPrunableThresholdTokens"))
                        .unwrap()
                        .to_string(),
                ));
            }
        }
        package_era(&mut pairs);
        let opts = ReplayOptions {
            algorithm: Algorithm::Gemini,
            settings: Settings::resolve(SPECS, &pairs).unwrap(),
            context_window: num(setting.get("limit")),
            summary_tokens: num(setting.get("summary_tokens")).unwrap(),
            summary_tokens_source: "test",
            timeline: false,
            validate: false,
            follow_recording: false,
        };
        let (mut sessions, mut compressing, mut same) = (0, 0, 0);
        for s in arr(j.get("sessions")) {
            if lossy(s.get("source")) != "corpus" || !lossy(s.get("path")).starts_with("real/") {
                continue;
            }
            let file = session_file(s, Some(&corpus), tmp.path()).expect("corpus file");
            let input = input_of(&file);
            assert!(input.gemini.is_some(), "{}", file.display());
            let out = replay(&input, &opts);
            let want: Vec<Row> = arr(arr(s.get("runs")).get(si)).iter().map(row).collect();
            // Everything the replay did, per request, up to its first compression.
            let kinds = |k: usize| -> (u64, bool) {
                let mut v = (0, false);
                for e in out.events.iter().filter(|e| e.request == k) {
                    match e.kind {
                        EventKind::Compress => v.0 = 1,
                        EventKind::Failed => v.0 = 2,
                        EventKind::Truncate => v.0 = 6,
                        EventKind::Mask => v.1 = true,
                        EventKind::Prune => {}
                    }
                }
                v
            };
            let changed = |r: &Row| {
                (
                    if matches!(r.status, 1 | 2 | 6) {
                        r.status
                    } else {
                        0
                    },
                    r.masked > 0,
                )
            };
            // Up to and including the package's first change to the history (a compression, a
            // failed attempt, a truncation or a masking), both sides see the recorded counts
            // and must act alike. After it, the engine compares the calibrated estimate (the
            // package's P there is the uncalibrated one: `every_request_matches_the_package`
            // drives the strategy with it).
            let first_change = want.iter().position(|r| changed(r) != (0, false));
            let upto = first_change.map_or(want.len(), |f| f + 1);
            let agree = (0..upto.min(want.len())).all(|k| kinds(k) == changed(&want[k]));
            let first_want = first_change.filter(|&f| want[f].status == 1);
            sessions += 1;
            if first_want.is_some() {
                compressing += 1;
            }
            if agree {
                same += usize::from(first_want.is_some());
            } else {
                let k = (0..upto.min(want.len())).find(|&k| kinds(k) != changed(&want[k]));
                bad.push(format!(
                    "{name} {}: request {k:?}: the replay did {:?}, the package {:?}",
                    lossy(s.get("path")),
                    k.map(kinds),
                    k.map(|k| changed(&want[k]))
                ));
            }
        }
        lines.push(format!(
            "{name}: {sessions} real sessions, {compressing} first change a compression, at the same request in {same}"
        ));
    }
    to_stderr!("{}", lines.join("\n"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(!lines.is_empty());
}
