//! Where exports go: `--force`, stores, `--all` into a folder, usage errors.

use super::*;

#[test]
fn existing_files_need_force() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s.md");
    fs::write(&target, "keep me").unwrap();
    sample()
        .args(["export", "6f0d3c52", "-o"])
        .arg(&target)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--force"));
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
    ok(sample()
        .args(["export", "6f0d3c52", "--force", "-o"])
        .arg(&target));
    assert!(
        fs::read_to_string(&target)
            .unwrap()
            .starts_with("# Health check work")
    );
    // A directory export checks every file first: nothing is written when one exists.
    let out = dir.path().join("all");
    ok(sample().args(["export", "--all", "-o"]).arg(&out));
    let index = out.join("index.md");
    fs::write(&index, "old index").unwrap();
    let victim = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "index.md")
        .unwrap();
    fs::write(&victim, "old").unwrap();
    sample()
        .args(["export", "--all", "-o"])
        .arg(&out)
        .assert()
        .code(1);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "old");
    assert_eq!(fs::read_to_string(&index).unwrap(), "old index");
    ok(sample()
        .args(["export", "--all", "--force", "-o"])
        .arg(&out));
    assert_ne!(fs::read_to_string(&victim).unwrap(), "old");
}

#[test]
fn never_writes_into_a_store() {
    let home = tempfile::tempdir().unwrap();
    let store = home.path().join(".claude/projects/-home-dev-webapp");
    let file = store.join("11111111-aaaa-4000-8000-000000000001.jsonl");
    write(
        &file,
        &rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": "hello"}),
        )
        .replace(NASTY_ID, "11111111-aaaa-4000-8000-000000000001"),
    );
    let before = walk(home.path());
    for target in [
        store.join("x.md"),
        home.path().join(".claude/projects/out"),
        home.path().join(".claude/export.md"),
        home.path().join(".codex/sessions/x.md"),
        home.path().join(".gemini/tmp/x.md"),
    ] {
        let mut cmd = sessions();
        cmd.env("HOME", home.path())
            .args(["export", "11111111", "-o"])
            .arg(&target);
        cmd.assert()
            .code(1)
            .stderr(predicates::str::contains("store"));
        assert!(!target.exists(), "{}", target.display());
    }
    // --all into the store is refused as well; nothing was created anywhere in the home.
    let mut cmd = sessions();
    cmd.env("HOME", home.path())
        .args(["export", "--all", "-o"])
        .arg(home.path().join(".claude"));
    cmd.assert().code(1);
    assert_eq!(walk(home.path()), before);
    // Next to the home (not in a store) is fine.
    let mut cmd = sessions();
    cmd.env("HOME", home.path())
        .args(["export", "11111111", "-o"])
        .arg(home.path().join("exports/x.md"));
    ok(&mut cmd);
    assert!(home.path().join("exports/x.md").is_file());
}

#[test]
fn all_into_a_directory_writes_one_file_per_session_and_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<Value> =
        serde_json::from_str(&ok(sample().args(["list", "--format", "json"])).0).unwrap();
    for (fmt, index) in [
        ("md", "index.md"),
        ("html", "index.html"),
        ("json", "index.json"),
    ] {
        let out = dir.path().join(fmt);
        let (_, stderr) = ok(sample()
            .args(["export", "--all", "-f", fmt, "-o"])
            .arg(&out));
        assert!(stderr.contains(&format!("exported {} sessions", list.len())));
        let mut names: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != index)
            .collect();
        names.sort();
        assert_eq!(names.len(), list.len(), "{fmt}: {names:?}");
        let idx = fs::read_to_string(out.join(index)).unwrap();
        for rec in &list {
            let agent = rec["agent"].as_str().unwrap();
            let id: String = rec["id"].as_str().unwrap().chars().take(13).collect();
            let name = names
                .iter()
                .find(|n| n.starts_with(&format!("{agent}-")) && n.contains(&id))
                .unwrap_or_else(|| panic!("{fmt}: no file for {agent} {id}"));
            assert!(name.ends_with(&format!(".{fmt}")));
            // `<agent>-<YYYY-MM-DD>-<short id>`, or `undated` for a session that recorded no time
            // (the saved chat).
            if rec["started_at"].is_null() {
                assert!(name.starts_with(&format!("{agent}-undated-")), "{name}");
            } else {
                let date = &name[agent.len() + 1..agent.len() + 11];
                assert!(
                    chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok(),
                    "{name}"
                );
            }
            assert!(idx.contains(name.as_str()), "{fmt}: index lacks {name}");
        }
        if fmt == "json" {
            let entries: Vec<Value> = serde_json::from_str(&idx).unwrap();
            assert_eq!(entries.len(), list.len());
            assert!(entries.iter().all(|e| e["schema_version"] == 1));
        }
    }
    // Filters apply: only Claude sessions since June.
    let out = dir.path().join("filtered");
    ok(sample()
        .args([
            "export",
            "--all",
            "--agent",
            "claude",
            "--since",
            "2026-06-01",
            "-o",
        ])
        .arg(&out));
    let n = fs::read_dir(&out).unwrap().count();
    assert_eq!(n, 3 + 1, "d1e2f3a4, c4d5e6f7, f0e1d2c3 + index");
}

#[test]
fn usage_errors() {
    sample()
        .args(["export", "--all", "6f0d3c52"])
        .assert()
        .code(2);
    sample()
        .args(["export", "6f0d3c52", "019d4e99"])
        .assert()
        .code(2);
    sample()
        .args(["export", "--since", "7d", "6f0d3c52"])
        .assert()
        .code(2);
    sample()
        .args(["export", "--kind", "all", "6f0d3c52"])
        .assert()
        .code(2);
    sample()
        .args(["export", "6f0d3c52", "--images", "extract"])
        .assert()
        .code(2);
    sample()
        .args(["export", "nope-no-such-id"])
        .assert()
        .code(1);
}

/// `export --all -o DIR` renders most sessions while its scan holds their file, before the
/// scan's cross-file rules have run; a session whose rendering those rules change (a project
/// matched by hash against other sessions, sub-agents found in other files) is rendered again
/// after the scan. Either way each file is exactly the export of that session alone.
#[test]
fn all_into_a_directory_writes_what_each_session_exports_alone() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<Value> =
        serde_json::from_str(&ok(sample().args(["list", "--format", "json", "--kind", "all"])).0)
            .unwrap();
    // The sample home holds both kinds: sessions only their own file describes, and sessions
    // whose project or sub-agents come from other files.
    let found = |pred: &dyn Fn(&Value) -> bool| list.iter().any(pred);
    assert!(found(&|r| r["project_source"] == "hash_match"));
    assert!(found(
        &|r| r["kind"] == "main" && r["subagents"].as_u64() > Some(0)
    ));
    assert!(found(
        &|r| r["project_source"] == "cwd" && r["subagents"] == 0
    ));
    for fmt in ["json", "md", "html"] {
        let out = dir.path().join(fmt);
        ok(sample()
            .args(["export", "--all", "--kind", "all", "-f", fmt, "-o"])
            .arg(&out));
        // Every format names its files alike: the JSON index lists them all.
        let index: Vec<Value> =
            serde_json::from_str(&fs::read_to_string(dir.path().join("json/index.json")).unwrap())
                .unwrap();
        assert_eq!(index.len(), list.len(), "{fmt}");
        for e in &index {
            let file = e["file"]
                .as_str()
                .unwrap()
                .replace(".json", &format!(".{fmt}"));
            let alone = ok(sample().args(["export", "-f", fmt, e["id"].as_str().unwrap()])).0;
            let written = fs::read_to_string(out.join(&file)).unwrap();
            assert!(
                written == alone,
                "{fmt}: {file} differs from the session's own export"
            );
        }
        let names: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains(".tmp-")), "{names:?}");
    }
}

/// A directory export that stops before writing (a file in the way, no session selected)
/// leaves nothing of its early renderings, and no folder it created.
#[test]
fn all_into_a_directory_leaves_nothing_when_it_stops() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    ok(sample().args(["export", "--all", "-o"]).arg(&out));
    // No index in the way: the run renders, then finds a file it would replace.
    fs::remove_file(out.join("index.md")).unwrap();
    let victim = fs::read_dir(&out).unwrap().next().unwrap().unwrap().path();
    fs::write(&victim, "old").unwrap();
    let before = walk(&out);
    sample()
        .args(["export", "--all", "-o"])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--force"));
    assert_eq!(walk(&out), before);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "old");
    // Nothing selected: the folders the run made are gone again.
    let fresh = dir.path().join("new/deeper");
    sample()
        .args(["export", "--all", "--since", "2099-01-01", "-o"])
        .arg(&fresh)
        .assert()
        .code(1);
    assert!(!dir.path().join("new").exists());
}

/// With `--project` (and `--images extract`) nothing is rendered during the scan: the files
/// are those of the unfiltered export, and only the project's sessions are written.
#[test]
fn all_with_a_project_writes_the_same_files_as_without() {
    let dir = tempfile::tempdir().unwrap();
    let (every, some) = (dir.path().join("every"), dir.path().join("some"));
    ok(sample().args(["export", "--all", "-o"]).arg(&every));
    ok(sample()
        .args(["export", "--all", "--project", "webapp", "-o"])
        .arg(&some));
    let listed: Vec<Value> = serde_json::from_str(
        &ok(sample().args(["list", "--project", "webapp", "--format", "json"])).0,
    )
    .unwrap();
    let names: Vec<String> = fs::read_dir(&some)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "index.md")
        .collect();
    assert_eq!(names.len(), listed.len(), "{names:?}");
    for n in &names {
        assert_eq!(
            fs::read(some.join(n)).unwrap(),
            fs::read(every.join(n)).unwrap(),
            "{n}"
        );
    }
}

/// The file a relative link made by `--images extract` names, next to the export.
fn linked_file(export: &Path, url: &str) -> PathBuf {
    let rel = url.strip_prefix("./").unwrap_or(url);
    let mut bytes = Vec::new();
    let raw = rel.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = std::str::from_utf8(&raw[i + 1..i + 3]).unwrap();
            bytes.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    export
        .parent()
        .unwrap()
        .join(String::from_utf8(bytes).unwrap())
}

/// An export named with characters a URL reads otherwise (`:` a scheme, `#` a fragment, `?` a
/// query, `%` an escape, `>` the end of a Markdown `<…>` destination) still links the images
/// it extracts, in Markdown and in HTML.
#[test]
fn extracted_images_are_linked_whatever_the_export_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("img.jsonl");
    write(
        &file,
        &(rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": [
                {"type": "text", "text": "see"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                    "data": super::redaction::PNG}}
            ]}),
        ) + "\n"),
    );
    let out = dir.path().join("out");
    for name in ["run2 14:00 #1 50%?.md", "a>b (1).md", "plain.md"] {
        for fmt in ["md", "html"] {
            let target = out.join(fmt).join(name.replace(".md", &format!(".{fmt}")));
            ok(sessions()
                .env("HOME", dir.path())
                .args(["export", "--images", "extract", "-f", fmt, "-o"])
                .arg(&target)
                .arg(&file));
            let text = fs::read_to_string(&target).unwrap();
            let urls: Vec<String> = if fmt == "md" {
                Parser::new(&text)
                    .filter_map(|e| match e {
                        Event::Start(Tag::Image { dest_url, .. }) => Some(dest_url.to_string()),
                        _ => None,
                    })
                    .collect()
            } else {
                text.match_indices("<img src=\"")
                    .map(|(i, m)| {
                        let rest = &text[i + m.len()..];
                        rest[..rest.find('"').unwrap()].to_string()
                    })
                    .collect()
            };
            assert_eq!(urls.len(), 1, "{name} {fmt}: {text}");
            assert!(urls[0].starts_with("./"), "{name} {fmt}: {}", urls[0]);
            let img = linked_file(&target, &urls[0]);
            assert_eq!(
                fs::read(&img).map(|b| b.len()).ok(),
                Some(70),
                "{name} {fmt}: {} names no extracted image",
                urls[0]
            );
        }
    }
}

/// `-o -` is stdout, as the default is; a file named `-` is `-o ./-`.
#[test]
fn dash_is_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let (default, _) = ok(sample()
        .args(["export", "6f0d3c52"])
        .current_dir(dir.path()));
    let (dash, _) = ok(sample()
        .args(["export", "6f0d3c52", "-o", "-"])
        .current_dir(dir.path()));
    assert_eq!(dash, default);
    assert!(dash.starts_with("# Health check work"), "{dash}");
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a file was written"
    );
    let (out, _) = ok(sample()
        .args(["export", "6f0d3c52", "-o", "./-"])
        .current_dir(dir.path()));
    assert!(out.is_empty(), "{out}");
    assert_eq!(fs::read_to_string(dir.path().join("-")).unwrap(), default);
}
