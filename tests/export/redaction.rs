//! Redaction in every format.

use super::*;

const SECRETS: &[(&str, &str)] = &[
    ("aws_access_key", "AKIAIOSFODNN7EXAMPLE"),
    ("github_token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("openai_api_key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
    (
        "anthropic_api_key",
        "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1",
    ),
    ("google_api_key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("slack_token", "xoxb-123456789012-1234567890123-AbCdEfGh"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    ),
    ("bearer_token", "8f14e45fceea167a5a36dedd4bea2543abc"),
    ("url_password", "Sup3rS3cretPw"),
    ("secret_assignment", "hunter2hunter2"),
];
const KEY_BLOCK: &str =
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAzzzSECRETBODY\n-----END RSA PRIVATE KEY-----";
const UUID: &str = "6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01";
const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
pub(crate) const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn secret_session(dir: &Path) -> PathBuf {
    let prompt = format!(
        "keys: {} {} {} and {UUID} {SHA}",
        SECRETS[0].1, SECRETS[1].1, SECRETS[2].1
    );
    let lines = [
        rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": [
                {"type": "text", "text": prompt},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
            ]}),
        ),
        rec(
            "assistant",
            "a1",
            "00:05",
            serde_json::json!({"id": "msg_1", "role": "assistant", "model": "claude-x",
                "content": [
                    {"type": "thinking", "thinking": format!("the key {} is live", SECRETS[3].1)},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {
                        "command": format!("curl -H 'Authorization: Bearer {}' https://u:{}@db.example/x", SECRETS[7].1, SECRETS[8].1),
                        "env": {"SLACK_TOKEN": SECRETS[5].1}
                    }}
                ],
                "usage": {"input_tokens": 1, "output_tokens": 2}}),
        ),
        rec(
            "user",
            "u2",
            "00:06",
            serde_json::json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": format!(
                    "GOOGLE={}\ntoken={}\nDB_PASSWORD={}\n{KEY_BLOCK}\n",
                    SECRETS[4].1, SECRETS[6].1, SECRETS[9].1
                )}
            ]}),
        ),
    ];
    let path = dir.join(format!("{NASTY_ID}.jsonl"));
    write(&path, &(lines.join("\n") + "\n"));
    path
}

#[test]
fn redaction_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let file = secret_session(dir.path());
    let out = dir.path().join("out");
    for fmt in ["md", "html", "json", "jsonl"] {
        let target = out.join(format!("s.{fmt}"));
        let mut cmd = sessions();
        cmd.env("HOME", dir.path())
            .args(["export", "--redact", "-f", fmt, "-o"])
            .arg(&target)
            .arg(&file);
        if fmt == "md" || fmt == "html" {
            cmd.args(["--images", "extract"]);
        }
        let (_, stderr) = ok(&mut cmd);
        let text = fs::read_to_string(&target).unwrap();
        // What a reader sees (Markdown escapes the brackets of markers in prose).
        let visible = if fmt == "md" {
            shape(&text).text
        } else {
            text.clone()
        };
        for (kind, secret) in SECRETS {
            assert!(!text.contains(secret), "{fmt}: {kind} survived");
            assert!(
                visible.contains(&format!("[REDACTED:{kind}]")),
                "{fmt}: no {kind} marker"
            );
        }
        assert!(!text.contains("SECRETBODY"), "{fmt}: private key survived");
        assert!(visible.contains("[REDACTED:private_key]"));
        // Ordinary identifiers survive.
        assert!(
            text.contains(UUID) && text.contains(SHA),
            "{fmt}: uuid/hash changed"
        );
        // Counts per kind on stderr, each secret once: the first prompt is also the title,
        // which is cut again from the redacted prompt, not counted a second time.
        let line = stderr
            .lines()
            .find(|l| l.starts_with("redacted "))
            .unwrap_or_else(|| panic!("{fmt}: no count in {stderr}"));
        assert!(line.starts_with("redacted 11 secrets: "), "{fmt}: {line}");
        for (kind, _) in SECRETS {
            assert!(
                line.contains(&format!(" 1 {kind}")),
                "{fmt}: {kind} count in {line}"
            );
        }
        assert!(line.contains(" 1 private_key"));
        if fmt == "md" || fmt == "html" {
            // The base64 image is extracted byte for byte.
            let img = out.join("s.files/image-001.png");
            let bytes = fs::read(&img).unwrap();
            assert_eq!(&bytes[1..4], b"PNG");
            assert_eq!(bytes.len(), 70);
            fs::remove_dir_all(out.join("s.files")).unwrap();
        }
    }
    // Without --redact nothing is touched and nothing is reported.
    let (md, stderr) = ok(sessions().env("HOME", dir.path()).arg("export").arg(&file));
    assert!(md.contains(SECRETS[0].1));
    assert!(!stderr.contains("redacted"));
}

/// A title cut from the first prompt can end inside a secret (`ghp_R4nd0mT0…` no longer looks
/// like a token), and Gemini's `displayContent` (what the user typed) is kept beside the text:
/// neither may carry a secret into any format, nor into the index of an export into a folder.
#[test]
fn titles_and_typed_text_are_redacted() {
    const TOKEN: &str = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy";
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("title.jsonl");
    let prompt = format!(
        "Please push this branch to the remote for me, using my personal access token which \
         is stored below, thanks: {TOKEN}"
    );
    assert!(prompt.find(TOKEN).unwrap() < 120 && prompt.len() > 120);
    write(
        &claude,
        &rec(
            "user",
            "u1",
            "00:00",
            serde_json::json!({"role": "user", "content": prompt}),
        ),
    );
    let gemini = dir.path().join("session-2026-04-23T12-52-0ab84937.jsonl");
    let lines = [
        serde_json::json!({"sessionId": "0ab84937-9fe7-4284-986a-33c832af0b6a",
            "projectHash": "9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea",
            "startTime": "2026-04-23T12:52:52.759Z", "lastUpdated": "2026-04-23T12:52:52.759Z",
            "kind": "main"}),
        serde_json::json!({"id": "m1", "timestamp": "2026-04-23T12:53:05.283Z", "type": "user",
            "content": [{"text": "the expanded /init prompt"}],
            "displayContent": [{"text": format!("/init with export GITHUB_TOKEN={TOKEN} please")}]}),
    ];
    write(&gemini, &lines.map(|l| l.to_string()).join("\n"));
    for file in [&claude, &gemini] {
        for format in ["md", "html", "json", "jsonl"] {
            let (out, _) = ok(sessions()
                .arg("export")
                .arg(file)
                .args(["--redact", "-f", format]));
            assert!(!out.contains("ghp_R4nd0m"), "{format} of {file:?}: {out}");
            assert!(out.contains("[REDACTED:"), "{format} of {file:?}: {out}");
        }
    }
    let outdir = dir.path().join("out");
    ok(sessions()
        .args(["export", "--all", "--redact", "-f", "json", "-o"])
        .arg(&outdir)
        .arg(&claude));
    let index = fs::read_to_string(outdir.join("index.json")).unwrap();
    assert!(index.contains("thanks: [REDACTED:"), "{index}");
    assert!(!index.contains("ghp_R4nd0m"), "{index}");
}

/// A sub-agent's secrets are counted each time they are written: in its own export (with
/// `--kind all`) and in its parent's. `export --all -o DIR` renders the parent while the scan
/// holds the sub-agent's file; with `--project` it renders after the scan, reading the file
/// again: the counts, and the files, are the same.
#[test]
fn an_embedded_sub_agents_secrets_are_counted_in_its_parents_export() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-dev-api-server");
    for f in walkdir::WalkDir::new(Path::new(SAMPLE).join(".claude/projects/-home-dev-api-server"))
    {
        let f = f.unwrap();
        let to = project.join(
            f.path()
                .strip_prefix(Path::new(SAMPLE).join(".claude/projects/-home-dev-api-server"))
                .unwrap(),
        );
        if f.file_type().is_dir() {
            fs::create_dir_all(&to).unwrap();
        } else {
            let mut text = fs::read_to_string(f.path()).unwrap();
            // The sub-agent's prompt only (its parent's call repeats it).
            if to.components().any(|c| c.as_os_str() == "subagents") {
                text = text.replace(
                    "Search for TODO comments",
                    &format!("Search for TODO comments {}", SECRETS[0].1),
                );
            }
            fs::write(&to, text).unwrap();
        }
    }
    for (kind, count) in [("main", 1), ("all", 2)] {
        let mut files = Vec::new();
        for project in [None, Some("/home/dev/api-server")] {
            let out = home
                .path()
                .join(format!("out-{kind}-{}", project.is_some()));
            let mut cmd = sessions();
            cmd.arg("--home")
                .arg(home.path())
                .args(["export", "--all", "--redact", "--kind", kind]);
            if let Some(p) = project {
                cmd.args(["--project", p]);
            }
            let (_, stderr) = ok(cmd.arg("-o").arg(&out));
            let line = stderr
                .lines()
                .find(|l| l.starts_with("redacted "))
                .unwrap_or_default();
            let want = format!(
                "redacted {count} secret{}: {count} aws_access_key",
                if count == 1 { "" } else { "s" }
            );
            assert_eq!(line, want, "--kind {kind}, --project {project:?}");
            let mut written: Vec<(String, String)> = fs::read_dir(&out)
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        fs::read_to_string(e.path()).unwrap(),
                    )
                })
                .collect();
            written.sort();
            assert!(written.iter().all(|(_, t)| !t.contains(SECRETS[0].1)));
            files.push(written);
        }
        assert_eq!(files[0], files[1], "--kind {kind}");
    }
}
