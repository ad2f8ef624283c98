use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    sessions::commands::run(sessions::cli::Cli::parse())
}
