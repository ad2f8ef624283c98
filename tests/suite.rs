//! The integration tests, one module per concern, built as one test binary: one link instead of
//! thirty, and one harness that runs the whole suite side by side on every core (cargo runs
//! test binaries one after another). `export_scaling` stays a binary of its own: it counts
//! allocations with its own global allocator. A file added under `tests/` must be declared
//! here; `layering::every_test_file_is_built` fails otherwise.

mod common;

mod cli_behaviour;
mod compactions;
mod corpus_claude;
mod corpus_codex;
mod corpus_gemini;
mod display;
mod errors;
mod export;
mod fuzz_smoke;
mod gemini_legacy;
mod generated;
mod help_width;
mod hostile;
mod json_times;
mod layering;
mod read_only;
mod reading_limits;
mod redaction;
mod replay;
mod replay_fidelity;
mod replay_once;
mod replay_timeline;
mod sample_home;
mod summary_size;
mod time_rules;
mod time_window;
mod usage;
mod views;
mod write_guard;
