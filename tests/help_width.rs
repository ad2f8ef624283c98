//! A new user's first hour at 80 columns: every `--help` and `-h`, and every man page as
//! `man` lays it out, fit 80 columns without a line cut mid-sentence by a wider source.

use crate::common;

use std::path::Path;
use std::process::Command as Process;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

use common::SUBCOMMANDS;

fn too_wide(text: &str, width: usize) -> Vec<String> {
    text.lines()
        .filter(|l| sessions::render::text::width(l) > width)
        .map(|l| format!("{} columns: {l:?}", sessions::render::text::width(l)))
        .collect()
}

#[test]
fn every_help_fits_80_columns() {
    let mut calls: Vec<Vec<&str>> = vec![vec!["--help"], vec!["-h"]];
    for sub in SUBCOMMANDS {
        calls.push(vec![sub, "--help"]);
        calls.push(vec![sub, "-h"]);
    }
    let mut wide = Vec::new();
    for args in calls {
        let out = common::sessions()
            .env("COLUMNS", "80")
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        for l in too_wide(&text, 80) {
            wide.push(format!("{args:?}: {l}"));
        }
        // A description under its example, not a fragment wrapped back to the margin.
        for pair in text.lines().collect::<Vec<_>>().windows(2) {
            if pair[0].starts_with("  sessions ") {
                assert!(
                    pair[1].starts_with("  ") || pair[1].is_empty(),
                    "{args:?}: an example wrapped: {pair:?}"
                );
            }
        }
    }
    assert!(wide.is_empty(), "{}", wide.join("\n"));
}

/// grotty's bold and underline (`c\u{8}c`, `_\u{8}c`) as the plain text a terminal shows.
fn without_overstrike(s: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    for c in s.chars() {
        if c == '\u{8}' {
            out.pop();
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

/// Every page as `man` shows it in an 80-column terminal (laid out by groff where installed).
#[test]
fn every_man_page_fits_80_columns() {
    let man = Path::new(ROOT).join("man");
    preformatted_lines_fit(&man);
    if Process::new("groff").arg("-v").output().is_err() {
        return;
    }
    let mut wide = Vec::new();
    let mut pages = 0;
    for e in std::fs::read_dir(&man).unwrap().flatten() {
        let out = Process::new("groff")
            .args(["-k", "-man", "-Tutf8", "-rLL=80n", "-P-c"])
            .arg(e.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", e.path().display());
        let text = without_overstrike(&String::from_utf8_lossy(&out.stdout));
        for l in too_wide(&text, 80) {
            wide.push(format!("{}: {l}", e.file_name().to_string_lossy()));
        }
        pages += 1;
    }
    assert_eq!(pages, 8);
    assert!(wide.is_empty(), "{}", wide.join("\n"));
}

/// The lines kept as written (`.nf` … `.fi`), at man's indent of 7, fit 80.
fn preformatted_lines_fit(man: &Path) {
    for e in std::fs::read_dir(man).unwrap().flatten() {
        let page = std::fs::read_to_string(e.path()).unwrap();
        let mut kept = false;
        for line in page.lines() {
            match line {
                ".nf" => kept = true,
                ".fi" => kept = false,
                _ if kept => {
                    let shown = line.replace("\\-", "-").replace("\\e", "\\");
                    let width = 7 + sessions::render::text::width(&shown);
                    assert!(
                        width <= 80,
                        "{}: {width} columns: {shown:?}",
                        e.path().display()
                    );
                }
                _ => {}
            }
        }
    }
}

/// The top page's ENVIRONMENT names every variable the README's store table does.
#[test]
fn man_environment_names_every_variable() {
    let page = std::fs::read_to_string(Path::new(ROOT).join("man/sessions.1")).unwrap();
    let env = &page[page.find(".SH ENVIRONMENT").unwrap()..];
    let env = &env[..env[1..].find("\n.SH ").unwrap()];
    for var in [
        "CLAUDE_PROJECTS_DIR",
        "CLAUDE_CONFIG_DIR",
        "XDG_CONFIG_HOME",
        "CODEX_SESSIONS_DIR",
        "CODEX_HOME",
        "GEMINI_SESSIONS_DIR",
        "GEMINI_CLI_HOME",
        "COLUMNS",
        "TZ",
    ] {
        assert!(env.contains(var), "{var} missing from ENVIRONMENT:\n{env}");
    }
}
