use super::*;

fn guard_over(dir: &Path, force: bool) -> (Guard, PathBuf, PathBuf) {
    let store = dir.join("home/.claude/projects/-p");
    fs::create_dir_all(&store).unwrap();
    let session = store.join("s.jsonl");
    fs::write(&session, "{}\n").unwrap();
    let outside = dir.join("elsewhere/t.jsonl");
    fs::create_dir_all(outside.parent().unwrap()).unwrap();
    fs::write(&outside, "{\"x\":1}\n").unwrap();
    let mut g = Guard::new(force);
    g.protect_stores(&Stores {
        claude: vec![dir.join("home/.claude/projects")],
        ..Default::default()
    });
    g.protect_read(&outside);
    (g, session, outside)
}

#[test]
fn refuses_stores_files_being_read_and_their_aliases() {
    let d = tempfile::tempdir().unwrap();
    let (g, session, outside) = guard_over(d.path(), true);
    let home = d.path().join("home");
    // In the store, in the agent folder around it, through `..`, through a link.
    std::os::unix::fs::symlink(home.join(".claude/projects"), d.path().join("link")).unwrap();
    std::os::unix::fs::symlink(&outside, d.path().join("alias.jsonl")).unwrap();
    fs::hard_link(&outside, d.path().join("hard.jsonl")).unwrap();
    for (t, want) in [
        (session.clone(), "inside the claude store"),
        (home.join(".claude/settings.md"), "inside the claude store"),
        (
            d.path().join("elsewhere/../home/.claude/projects/x.md"),
            "inside",
        ),
        (d.path().join("link/new.md"), "inside"),
        (outside.clone(), "being read"),
        (d.path().join("alias.jsonl"), "being read"),
        (d.path().join("hard.jsonl"), "being read"),
    ] {
        let e = g.check(&t).unwrap_err().to_string();
        assert!(e.contains(want), "{}: {e}", t.display());
        assert!(g.write_bytes(&t, b"x").is_err());
    }
    assert_eq!(fs::read_to_string(&session).unwrap(), "{}\n");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "{\"x\":1}\n");
    assert!(!home.join(".claude/settings.md").exists());
}

#[test]
fn replaces_only_regular_files_and_only_with_force() {
    let d = tempfile::tempdir().unwrap();
    let (strict, _, _) = guard_over(d.path(), false);
    let (forced, _, _) = guard_over(d.path(), true);
    let t = d.path().join("out/a.md");
    strict.write_bytes(&t, b"one").unwrap();
    let e = strict.write_bytes(&t, b"two").unwrap_err();
    assert!(e.is_exists(), "{e}");
    assert_eq!(fs::read_to_string(&t).unwrap(), "one");
    forced.write_bytes(&t, b"two").unwrap();
    assert_eq!(fs::read_to_string(&t).unwrap(), "two");
    // A folder, a FIFO and a device node of our own are never replaced, even with force.
    let fifo = d.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for (p, kind) in [(d.path().join("out"), "a folder"), (fifo, "a FIFO")] {
        let e = forced.write_bytes(&p, b"x").unwrap_err().to_string();
        assert!(e.contains(kind), "{e}");
    }
    let e = forced
        .write_bytes(Path::new("/dev/null"), b"x")
        .unwrap_err();
    assert!(e.to_string().contains("character device"), "{e}");
    // A link to a regular file replaces that file and keeps the link.
    let link = d.path().join("out/link.md");
    std::os::unix::fs::symlink(&t, &link).unwrap();
    forced.write_bytes(&link, b"three").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&t).unwrap(), "three");
    // A dangling link is not followed.
    let dangling = d.path().join("out/dangling.md");
    std::os::unix::fs::symlink(d.path().join("nowhere/x"), &dangling).unwrap();
    assert!(forced.write_bytes(&dangling, b"x").is_err());
    assert!(!d.path().join("nowhere").exists());
    // No temporary file is left behind.
    let left: Vec<_> = fs::read_dir(d.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn never_replaces_a_session_even_outside_a_store() {
    let d = tempfile::tempdir().unwrap();
    let g = Guard::new(true);
    for (name, text) in [
        (
            "c.jsonl",
            "{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        ),
        (
            "x.jsonl",
            "{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{}}\n",
        ),
        (
            "g.json",
            "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": []\n}",
        ),
    ] {
        let p = d.path().join(name);
        fs::write(&p, text).unwrap();
        let e = g.write_bytes(&p, b"x").unwrap_err().to_string();
        assert!(e.contains("session file"), "{name}: {e}");
        assert_eq!(fs::read_to_string(&p).unwrap(), text);
    }
    // An earlier export (JSONL or JSON), or any other file, is replaced with --force.
    for (name, text) in [
        (
            "e.jsonl",
            "{\"schema_version\":1,\"agent\":\"claude\",\"session_id\":\"s\"}\n",
        ),
        (
            "e.json",
            "{\n  \"schema_version\": 1,\n  \"sessionId\": \"s\"\n}",
        ),
        ("e.md", "# title\n"),
    ] {
        let p = d.path().join(name);
        fs::write(&p, text).unwrap();
        g.write_bytes(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
    }
    // A character across byte 256, where the check for an export of ours looks.
    let p = d.path().join("cjk.md");
    fs::write(&p, "日".repeat(100)).unwrap();
    g.write_bytes(&p, b"new").unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "new");
}

#[test]
fn a_failed_write_keeps_the_previous_file() {
    let d = tempfile::tempdir().unwrap();
    let g = Guard::new(true);
    let t = d.path().join("a.md");
    fs::write(&t, "previous").unwrap();
    let r: Result<(), _> = g.write(&t, |w| {
        w.write_all(b"half")?;
        Err(io::Error::other("boom"))
    });
    assert!(r.unwrap_err().to_string().contains("boom"));
    assert_eq!(fs::read_to_string(&t).unwrap(), "previous");
    assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
}

#[test]
fn resolution() {
    let d = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(d.path()).unwrap();
    fs::create_dir_all(base.join("a/b")).unwrap();
    std::os::unix::fs::symlink(base.join("a/b"), base.join("l")).unwrap();
    assert_eq!(resolve(&base.join("l/../x")).unwrap(), base.join("a/x"));
    assert_eq!(
        resolve(&base.join("a/./b/new/../y")).unwrap(),
        base.join("a/b/y")
    );
    std::os::unix::fs::symlink(base.join("loop"), base.join("loop")).unwrap();
    assert!(resolve(&base.join("loop/x")).is_err());
}

#[test]
fn a_parent_step_out_of_a_missing_folder_resolves_what_follows() {
    // `nope/../link/x.md` wrote into the store: after the missing `nope`, `link` was appended
    // as written and never followed.
    let d = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(d.path()).unwrap();
    fs::create_dir_all(base.join("a/b")).unwrap();
    std::os::unix::fs::symlink(base.join("a/b"), base.join("l")).unwrap();
    assert_eq!(
        resolve(&base.join("nope/../l/x.md")).unwrap(),
        base.join("a/b/x.md")
    );
    assert_eq!(
        resolve(&base.join("nope/deeper/../../l/new/../y")).unwrap(),
        base.join("a/b/y")
    );
    // Still missing after one step back: appended as written.
    assert_eq!(
        resolve(&base.join("nope/deeper/../l")).unwrap(),
        base.join("nope/l")
    );
    let (g, _, _) = guard_over(&base, true);
    std::os::unix::fs::symlink(base.join("home/.claude/projects"), base.join("storelink")).unwrap();
    for t in ["nope/../storelink/x.md", "nope/a/../../storelink/-p/y.md"] {
        let t = base.join(t);
        let e = g.write_bytes(&t, b"x").unwrap_err().to_string();
        assert!(e.contains("inside the claude store"), "{e}");
        assert!(g.check_dir(&t).is_err());
    }
    assert!(!base.join("home/.claude/projects/x.md").exists());
    assert!(!base.join("home/.claude/projects/-p/y.md").exists());
    assert!(!base.join("nope").exists());
}

#[test]
fn a_protected_folder_under_another_name_is_known_by_its_identity() {
    // What a bind mount of a store, or `~/.CLAUDE` on a case-insensitive volume, looks like to
    // the guard: the folder it protects, reached by a path that does not start with the one it
    // knows. Renaming the folder after the guard saw it gives the same without root.
    let d = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(d.path()).unwrap();
    let (g, _, _) = guard_over(&base, true);
    fs::rename(base.join("home/.claude"), base.join("home/.CLAUDE")).unwrap();
    for t in [
        "home/.CLAUDE/projects/-p/x.md",
        "home/.CLAUDE/projects/new/y.md",
        "home/.CLAUDE/settings.json",
    ] {
        let e = g.write_bytes(&base.join(t), b"x").unwrap_err().to_string();
        assert!(e.contains("inside the claude store"), "{t}: {e}");
    }
    assert!(
        g.check_dir(&base.join("home/.CLAUDE/projects/new"))
            .is_err()
    );
    assert!(!base.join("home/.CLAUDE/projects/new").exists());
    // Beside it, nothing changes.
    g.write_bytes(&base.join("home/notes.md"), b"x").unwrap();
}

#[test]
fn an_agents_own_file_is_never_replaced() {
    let d = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(d.path()).unwrap();
    let config = home.join(".claude.json");
    fs::write(&config, "{\"projects\":{}}").unwrap();
    fs::hard_link(&config, home.join("alias.json")).unwrap();
    let mut g = Guard::new(true);
    g.protect_stores(&Stores {
        agent_files: vec![(Agent::Claude, config.clone())],
        ..Default::default()
    });
    for t in [config.clone(), home.join("alias.json")] {
        let e = g.write_bytes(&t, b"x").unwrap_err().to_string();
        assert!(e.contains("a claude file"), "{e}");
    }
    assert_eq!(fs::read_to_string(&config).unwrap(), "{\"projects\":{}}");
    // Not there yet: not created either.
    fs::remove_file(&config).unwrap();
    fs::remove_file(home.join("alias.json")).unwrap();
    let mut g = Guard::new(true);
    g.protect_agent_file(&config, "a claude file");
    assert!(g.write_bytes(&config, b"x").is_err());
    assert!(!config.exists());
}

#[test]
fn paths_in_messages_show_control_characters() {
    let e = OutputError::new(Path::new("o\u{1b}]0;T\u{7}  x\n.md"), Refusal::Exists).to_string();
    assert_eq!(
        e,
        "o^[]0;T^G  x^J.md already exists; use --force to overwrite"
    );
}

#[test]
fn a_session_is_what_the_parsers_recognise() {
    // The guard's own test looked at the keys of the first line only: these were replaced.
    let d = tempfile::tempdir().unwrap();
    let g = Guard::new(true);
    let user = "{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    let snapshot = format!(
        "{{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{{}}}}\n{user}"
    );
    let long_first = format!(
        "{{\"type\":\"summary\",\"summary\":\"{}\",\"leafUuid\":\"u1\"}}\n{user}",
        "x".repeat(80 * 1024)
    );
    let saved_chat =
        "[\n  {\n    \"role\": \"user\",\n    \"parts\": [{\"text\": \"hi\"}]\n  }\n]\n";
    for (name, text) in [
        ("snap.jsonl", snapshot.as_str()),
        ("long.jsonl", long_first.as_str()),
        ("checkpoint-mytag.json", saved_chat),
    ] {
        let p = d.path().join(name);
        fs::write(&p, text).unwrap();
        let e = g.write_bytes(&p, b"x").unwrap_err().to_string();
        assert!(e.contains("session file"), "{name}: {e}");
        assert_eq!(fs::read_to_string(&p).unwrap(), text);
    }
    // A file with no record holds no session, whatever its name.
    for name in ["empty.jsonl", "rollout-x.jsonl", "session-x.json"] {
        let p = d.path().join(name);
        fs::write(&p, "").unwrap();
        g.write_bytes(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
    }
}

/// What a staged file bound for another file system goes through (`rename` fails there with
/// `EXDEV`): copied beside its target, then renamed onto it, with the permissions of the file
/// it replaces, and no temporary file left.
#[test]
fn a_staged_file_moves_beside_its_target_then_onto_it() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let (staging, other) = (d.path().join("staging"), d.path().join("other"));
    fs::create_dir_all(&staging).unwrap();
    fs::create_dir_all(&other).unwrap();
    let tmp = staging.join(".x.md.tmp");
    fs::write(&tmp, "rendered").unwrap();
    let target = other.join("x.md");
    fs::write(&target, "old").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    let keep = fs::metadata(&target).unwrap().permissions();
    move_beside(&tmp, &target, Some(keep)).unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), "rendered");
    let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let names: Vec<String> = fs::read_dir(&other)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["x.md"]);
    // A staged file that cannot be read: the target is left as it was, and nothing beside it.
    assert!(move_beside(&staging.join("gone"), &target, None).is_err());
    assert_eq!(fs::read_to_string(&target).unwrap(), "rendered");
    assert_eq!(fs::read_dir(&other).unwrap().count(), 1);
}
