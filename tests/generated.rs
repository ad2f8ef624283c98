//! man/ and completions/ are generated from the clap definition and committed. This test
//! regenerates them into a temporary folder and fails when the committed copies differ.
//! To refresh them: `SESSIONS_UPDATE_GENERATED=1 cargo test --test suite generated`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

fn generate(man_dir: &Path, comp_dir: &Path) {
    let cmd = sessions::cli::Cli::command();
    for (name, page) in sessions::manpage::pages(cmd.clone()) {
        fs::write(man_dir.join(name), page).expect("man page");
    }
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::PowerShell,
        Shell::Elvish,
    ] {
        let mut c = cmd.clone();
        clap_complete::generate_to(shell, &mut c, "sessions", comp_dir).expect("completions");
    }
}

fn read_dir(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.path().is_file() {
                let name = e.file_name().to_string_lossy().into_owned();
                out.insert(name, fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    out
}

#[test]
fn man_pages_and_completions_are_fresh() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (man, comp) = (root.join("man"), root.join("completions"));
    if std::env::var_os("SESSIONS_UPDATE_GENERATED").is_some() {
        for d in [&man, &comp] {
            let _ = fs::remove_dir_all(d);
            fs::create_dir_all(d).unwrap();
        }
        generate(&man, &comp);
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (tman, tcomp) = (tmp.path().join("man"), tmp.path().join("completions"));
    fs::create_dir_all(&tman).unwrap();
    fs::create_dir_all(&tcomp).unwrap();
    generate(&tman, &tcomp);
    for (fresh, committed) in [(&tman, &man), (&tcomp, &comp)] {
        let want = read_dir(fresh);
        let have = read_dir(committed);
        let names: Vec<_> = want.keys().collect();
        assert_eq!(
            names,
            have.keys().collect::<Vec<_>>(),
            "{} is stale: run `SESSIONS_UPDATE_GENERATED=1 cargo test --test suite generated`",
            committed.display()
        );
        for (name, text) in &want {
            assert!(
                have.get(name) == Some(text),
                "{}/{name} is stale: run `SESSIONS_UPDATE_GENERATED=1 cargo test --test suite generated`",
                committed.display()
            );
        }
    }
}
