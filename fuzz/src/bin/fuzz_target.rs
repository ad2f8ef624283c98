//! One AFL target per input surface, chosen by `SESSIONS_FUZZ_TARGET` (claude, codex, codex_zst,
//! gemini_json, gemini_jsonl, markdown, redact): one instrumented binary serves every target.

fn main() {
    let name = std::env::var("SESSIONS_FUZZ_TARGET").unwrap_or_default();
    let Some(target) = sessions::fuzzing::Target::from_name(&name) else {
        eprintln!("set SESSIONS_FUZZ_TARGET to one of: claude, codex, codex_zst, gemini_json, gemini_jsonl, markdown, redact");
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| {
        sessions::fuzzing::run(target, data);
    });
}
