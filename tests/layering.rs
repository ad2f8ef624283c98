//! The library's layering: the modules below `commands/` (model, parse, scan, replay, export,
//! render, …) never reach up into it. A type both need lives below both, so that a module can
//! be read, tested and reused without the command-line layer.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn library_modules_never_import_from_commands() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut library = 0;
    let mut offenders = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        // The commands themselves, and the binary that runs them.
        if rel.starts_with("commands") || rel == Path::new("main.rs") {
            continue;
        }
        library += 1;
        for (n, line) in fs::read_to_string(file).unwrap().lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains("commands::") {
                offenders.push(format!("src/{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        library > 50,
        "only {library} library files found under {}",
        src.display()
    );
    assert!(
        offenders.is_empty(),
        "library modules importing from commands/ (move the type below both):\n{}",
        offenders.join("\n")
    );
}

/// Cargo builds only the test targets Cargo.toml names (`autotests = false`): a test file that
/// neither `tests/suite.rs` declares nor Cargo.toml names would never be compiled, its tests
/// never run, and the suite would still pass.
#[test]
fn every_test_file_is_built() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tests = root.join("tests");
    let suite = fs::read_to_string(tests.join("suite.rs")).unwrap();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut modules = 0;
    let mut unbuilt = Vec::new();
    for entry in fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = if path.is_dir() {
            // Snapshots are data; a folder of Rust files is a module whose root is `mod.rs`.
            if !path.join("mod.rs").exists() {
                continue;
            }
            name
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem == "suite" {
                continue;
            }
            stem.to_string()
        } else {
            continue;
        };
        modules += 1;
        let declared = suite.lines().any(|l| l.trim() == format!("mod {module};"));
        let own_target = manifest.contains(&format!("path = \"tests/{module}.rs\""));
        if !declared && !own_target {
            unbuilt.push(module);
        }
    }
    assert!(
        modules > 20,
        "only {modules} test modules under {}",
        tests.display()
    );
    assert!(
        unbuilt.is_empty(),
        "test files no target builds (add `mod NAME;` to tests/suite.rs): {unbuilt:?}"
    );
}
