use std::process::ExitCode;

fn main() -> ExitCode {
    sessions::commands::run(sessions::cli::parse())
}
