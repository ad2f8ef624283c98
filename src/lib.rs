//! `sessions`: coding-agent session forensics for Gemini CLI, Claude Code and Codex CLI.
//!
//! The library is organised by responsibility:
//! - [`model`]: the unified session model every feature uses;
//! - [`discover`]: where each agent keeps its sessions;
//! - [`parse`]: one parser per agent, every format era;
//! - [`project`]: which project a session belongs to;
//! - [`scan`]: discovery + parallel parsing + cross-file post-processing;
//! - [`commands`]: one module per subcommand; [`render`]: tables, JSON, text;
//! - [`output`]: the one door out, through which every file the tool writes goes.

/// `to_stderr!` that cannot panic: a diagnostic that cannot be written (stderr closed, or a
/// pipe whose reader is gone) is dropped, so that the exit code stays the documented one.
/// `clippy.toml` disallows `to_stderr!` itself.
macro_rules! to_stderr {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

pub mod cli;
pub mod commands;
pub mod diag;
pub mod discover;
pub mod export;
pub mod filter;
#[doc(hidden)]
pub mod fuzzing;
pub mod gemini_groups;
pub mod manpage;
pub mod model;
pub mod output;
pub mod parse;
pub mod pricing;
pub mod project;
pub mod render;
pub mod replay;
pub mod scan;
#[cfg(test)]
mod testing;
pub mod tokens;
pub mod usage;
