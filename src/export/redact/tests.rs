//! What `--redact` replaces and what it must leave alone.

use super::*;

fn red(s: &str) -> (String, Redactions) {
    let mut c = Redactions::default();
    let out = redact_str(s, &mut c).unwrap_or_else(|| s.to_string());
    (out, c)
}

/// Each kind with a realistic sample (all fake).
const SAMPLES: &[(&str, &str, &str)] = &[
    (
        "aws_access_key",
        "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE --profile x",
        "AKIAIOSFODNN7EXAMPLE",
    ),
    (
        "github_token",
        "git remote set-url origin https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x/y",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    (
        "github_token",
        "token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF in use",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
    ),
    (
        "openai_api_key",
        "client = OpenAI(api_key=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Q7)",
        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Q7",
    ),
    (
        "anthropic_api_key",
        "using sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA for the call",
        "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA",
    ),
    (
        "google_api_key",
        "https://maps.googleapis.com/maps/api/js?v=3&k=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    ),
    (
        "slack_token",
        "SLACK says xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx ok",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "private_key",
        "cat id_rsa\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQ==\n-----END OPENSSH PRIVATE KEY-----\ndone",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ),
    (
        "jwt",
        "cookie: session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U;",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ),
    (
        "bearer_token",
        "curl -H 'Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543abc' https://api",
        "8f14e45fceea167a5a36dedd4bea2543abc",
    ),
    (
        "url_password",
        "DATABASE at postgres://admin:Sup3r-S3cret!@db.internal:5432/app",
        "Sup3r-S3cret!",
    ),
    (
        "secret_assignment",
        "export DB_PASSWORD=hunter2 && ./run",
        "hunter2",
    ),
    (
        "secret_assignment",
        "AZURE_STORAGE_KEY=\"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq\"",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq",
    ),
    (
        "secret_assignment",
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core",
        "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==",
    ),
    (
        "secret_assignment",
        "{\"twilio_auth_token\": \"9f8e7d6c5b4a39281706f5e4d3c2b1a0\"}",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    (
        "stripe_key",
        "STRIPE=sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
        "sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
    ),
];

#[test]
fn every_kind_is_caught() {
    for (kind, text, secret) in SAMPLES {
        let (out, counts) = red(text);
        assert!(!out.contains(secret), "{kind}: secret survived in {out:?}");
        assert!(
            out.contains(&format!("[REDACTED:{kind}]")),
            "{kind}: no marker in {out:?}"
        );
        assert!(
            counts.0.get(kind).copied().unwrap_or(0) >= 1,
            "{kind}: {counts:?}"
        );
    }
    // The list is covered.
    for k in [
        "aws_access_key",
        "github_token",
        "openai_api_key",
        "anthropic_api_key",
        "google_api_key",
        "slack_token",
        "private_key",
        "jwt",
        "bearer_token",
        "url_password",
        "secret_assignment",
    ] {
        assert!(SAMPLES.iter().any(|(kind, _, _)| *kind == k), "{k}");
        assert!(KINDS.contains(&k));
    }
}

#[test]
fn context_is_kept_around_the_secret() {
    let (out, _) = red("postgres://admin:pw123456@db:5432/x");
    assert_eq!(out, "postgres://admin:[REDACTED:url_password]@db:5432/x");
    let (out, _) = red("Authorization: Bearer abcdef0123456789xyz");
    assert_eq!(out, "Authorization: Bearer [REDACTED:bearer_token]");
    let (out, _) = red("export API_KEY='abc123def'\n");
    assert_eq!(out, "export API_KEY='[REDACTED:secret_assignment]'\n");
    // A cut key goes up to where its material stops; the note after it stays.
    let (out, c) = red("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA (output cut)");
    assert_eq!(out, "[REDACTED:private_key] (output cut)");
    assert_eq!(c.total(), 1);
}

#[test]
fn counts_per_kind_and_description() {
    let (_, c) = red(
        "AKIAIOSFODNN7EXAMPLE and AKIAI44QH8DHBEXAMPLE, token=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    );
    assert_eq!(c.0.get("aws_access_key"), Some(&2));
    assert_eq!(c.0.get("github_token"), Some(&1));
    // The assignment's value was already replaced: not counted twice.
    assert_eq!(c.0.get("secret_assignment"), None);
    assert_eq!(
        c.describe(),
        "redacted 3 secrets: 2 aws_access_key, 1 github_token"
    );
}

#[test]
fn ordinary_text_is_left_alone() {
    let texts = [
        // sha256, sha1/git, md5
        "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "commit 2c83758e4b1f0a3d9c8e7f6a5b4c3d2e1f0a9b8c fixes it",
        "md5 d41d8cd98f00b204e9800998ecf8427e",
        // UUIDs and ids
        "session 6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01 resumed",
        "toolu_01A2B3C4D5E6F7G8H9J0K1L2M3 msg_01XyZ",
        // base64 image data and a data URL
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
        // prose and code that mention secrets without containing one
        "Set the password in the settings page; bearer tokens expire after an hour.",
        "max_tokens=4096 token_count: 12 PWD=/home/dev/webapp",
        "password=$DB_PASSWORD api_key=${API_KEY} token=<your token> secret=***",
        "self.password = config.password\npassword = get_password()",
        "Authentication: required. Token: see below.",
        "the scikit-learn sk-learn package; task-1234",
    ];
    for t in texts {
        let (out, c) = red(t);
        assert_eq!(out, t, "changed: {c:?}");
        assert_eq!(c.total(), 0);
    }
}

#[test]
fn json_fields_with_secret_names() {
    let mut v = serde_json::json!({
        "command": "echo hi",
        "env": {"GITHUB_TOKEN": "abc", "PATH": "/usr/bin", "password": "$PW"},
        "headers": ["Authorization: Bearer zz9zz9zz9zz9zz9"]
    });
    let mut c = Redactions::default();
    redact_value(&mut v, &mut c);
    assert_eq!(v["env"]["GITHUB_TOKEN"], "[REDACTED:secret_assignment]");
    assert_eq!(v["env"]["PATH"], "/usr/bin");
    assert_eq!(v["env"]["password"], "$PW");
    assert_eq!(
        v["headers"][0],
        "Authorization: Bearer [REDACTED:bearer_token]"
    );
    assert_eq!(c.total(), 2);
}

#[test]
fn names() {
    for n in [
        "DB_PASSWORD",
        "password",
        "GITHUB_TOKEN",
        "access_token",
        "API_KEY",
        "apiKey",
        "AccountKey",
        "AWS_SECRET_ACCESS_KEY",
        "SECRET_KEY_BASE",
        "client-secret",
        "SMTP_PASS",
    ] {
        assert!(secret_name(n), "{n}");
    }
    for n in [
        "PWD",
        "max_tokens",
        "token_count",
        "TOKENIZERS_PARALLELISM",
        "author",
        "monkey",
        "primary_key",
        "key",
        "passes",
    ] {
        assert!(!secret_name(n), "{n}");
    }
}

#[test]
fn image_data_is_not_touched() {
    let mut s = Session::new(crate::model::Agent::Claude, "x", "/x");
    let mut m = crate::model::Message::new(crate::model::Role::User);
    let data = "AKIAIOSFODNN7EXAMPLE".to_string();
    m.parts.push(Part::Image {
        media_type: Some("image/png".into()),
        bytes: Some(15),
        data: Some(data.clone()),
        url: None,
    });
    m.parts.push(Part::Text {
        text: "key AKIAIOSFODNN7EXAMPLE".into(),
    });
    s.messages.push(m);
    let c = redact_session(&mut s);
    assert_eq!(c.total(), 1);
    assert!(matches!(&s.messages[0].parts[0], Part::Image { data: Some(d), .. } if *d == data));
}

#[test]
fn taken_spans_keep_the_first_of_overlapping_ones() {
    // Against the plain rule (a range is taken unless it overlaps one taken before), over
    // every small range order.
    let ranges: Vec<Range<usize>> = (0..7).flat_map(|a| (a + 1..9).map(move |b| a..b)).collect();
    for seed in 0..200usize {
        let order: Vec<Range<usize>> = (0..12)
            .map(|i| ranges[(seed * 31 + i * 17 + i * i * seed) % ranges.len()].clone())
            .collect();
        let mut plain: Vec<Range<usize>> = Vec::new();
        let mut taken = Taken::default();
        for r in &order {
            if !plain.iter().any(|p| p.start < r.end && r.start < p.end) {
                plain.push(r.clone());
            }
            taken.take(r.clone(), "k");
        }
        plain.sort_by_key(|r| r.start);
        let got: Vec<Range<usize>> = taken.0.iter().map(|(&s, &(e, _))| s..e).collect();
        assert_eq!(got, plain, "{order:?}");
    }
}

#[test]
fn line_bounds_follow_positions_forward_and_back() {
    let text = "ab\ncd: x\n\n  pass: y\nlast";
    let mut lines = Lines::default();
    let naive_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let naive_end = |at: usize| text[at..].find('\n').map_or(text.len(), |i| at + i);
    let positions = [0, 1, 3, 5, 8, 9, 10, 12, 17, 20, 23, 4, 0, 22, 23];
    for &at in &positions {
        assert_eq!(lines.start(text, at), naive_start(at), "start of {at}");
        assert_eq!(lines.end(text, at), naive_end(at), "end of {at}");
    }
}

#[test]
fn many_secrets_in_one_text_and_many_pieces_are_all_redacted() {
    let key = "AKIAIOSFODNN7EXAMPLF";
    let text = format!("{key} ").repeat(2_000);
    let (out, counts) = red(&text);
    assert_eq!(counts.total(), 2_000);
    assert!(!out.contains(key));
    // The same secrets as 2,000 pieces of one message: each piece loses its own.
    let mut owned: Vec<String> = (0..2_000).map(|_| format!("{key} ")).collect();
    let mut pieces: Vec<&mut String> = owned.iter_mut().collect();
    let mut counts = Redactions::default();
    redact_pieces(&mut pieces, &mut counts);
    assert_eq!(counts.total(), 2_000);
    assert!(
        owned
            .iter()
            .all(|p| !p.contains(key) && p.starts_with("[REDACTED:"))
    );
    // Unquoted `name: value` pairs on one long line are prose, none a YAML line.
    let line = "pass: x ".repeat(2_000);
    assert_eq!(red(&line).1.total(), 0);
    let yaml = "  password: hunter2\n".repeat(2_000);
    assert_eq!(red(&yaml).1.total(), 2_000);
}
