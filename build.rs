//! Three facts about the machine, for the tests: whether the public session corpus is present,
//! whether headless Chromium is (`has_chromium`, for the HTML export test), and whether
//! util-linux `script` is (`has_script`, a pseudo-terminal for the terminal-only output test).
//!
//! The corpus tests read `$SESSIONS_CORPUS` (default `../shared/corpus`, where the project's CI
//! keeps it). When it exists the `has_corpus` cfg is set and `SESSIONS_CORPUS_DIR` names it;
//! without it the corpus tests are reported as ignored, not passed:
//!
//! ```ignore
//! #[test]
//! #[cfg_attr(not(has_corpus), ignore = "needs the corpus: set SESSIONS_CORPUS")]
//! fn corpus_something() {
//!     let dir = std::path::Path::new(env!("SESSIONS_CORPUS_DIR")).join("claude");
//! }
//! ```

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_corpus)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=SESSIONS_CORPUS");
    let dir = match std::env::var_os("SESSIONS_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
            .join("../shared/corpus"),
    };
    if dir.is_dir() {
        println!("cargo::rustc-cfg=has_corpus");
        // A corpus that changes is read again by the tests; cargo watches it.
        println!("cargo::rerun-if-changed={}", dir.display());
    }
    println!("cargo::rustc-env=SESSIONS_CORPUS_DIR={}", dir.display());

    println!("cargo::rustc-check-cfg=cfg(has_chromium)");
    println!("cargo::rerun-if-env-changed=CHROMIUM");
    let browser = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from))
        .find(|p| p.is_file());
    if let Some(b) = browser {
        println!("cargo::rustc-cfg=has_chromium");
        println!("cargo::rerun-if-changed={}", b.display());
        println!("cargo::rustc-env=SESSIONS_CHROMIUM={}", b.display());
    } else {
        println!("cargo::rustc-env=SESSIONS_CHROMIUM=");
    }

    println!("cargo::rustc-check-cfg=cfg(has_script)");
    match ["/usr/bin/script", "/bin/script"]
        .map(PathBuf::from)
        .into_iter()
        .find(|p| p.is_file())
    {
        Some(script) => {
            println!("cargo::rustc-cfg=has_script");
            println!("cargo::rustc-env=SESSIONS_SCRIPT={}", script.display());
        }
        None => println!("cargo::rustc-env=SESSIONS_SCRIPT="),
    }
}
