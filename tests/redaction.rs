//! `--redact` as a security reviewer would check it: one table of every case the hardening
//! issue lists, in both directions — secrets that must go (with the text around them kept) and
//! look-alikes that must stay — including a key streamed across two Claude records, which is
//! redacted in the merged message, not piece by piece. Then the streamed key end to end,
//! through the binary, in every export format.

use crate::common;

use std::fs;
use std::path::Path;

use common::sessions;
use serde_json::{Value, json};
use sessions::export::redact::{KINDS, Redactions, redact_session, redact_str, redact_value};
use sessions::model::{Agent, Part};
use sessions::parse::{FileRole, SourceFile, parse_file};

/// Where the input lives.
#[derive(Clone, Copy)]
enum Shape {
    /// A text (message, tool output, summary).
    Text,
    /// A JSON value (tool arguments): string fields under secret names go whole.
    Json,
    /// A Claude response streamed over two records, the text cut at this byte.
    Stream(usize),
}

/// What must happen to it.
enum Expect {
    /// `secret` disappears, one `kind` marker appears, and `keep` survives around it.
    Gone {
        kind: &'static str,
        secret: &'static str,
        keep: &'static [&'static str],
    },
    /// Nothing changes.
    Kept,
}
use Expect::{Gone, Kept};

const ANTHROPIC: &str = "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA";
const PUTTY: &str = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\n\
Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIBm8\nzzPUBLIC\nPrivate-Lines: 1\nAAAAIFPRIVATEBODYqq\n\
Private-MAC: 5b1f0c3a9e2d4f6a8b7c";

#[rustfmt::skip]
fn cases() -> Vec<(&'static str, Shape, String, Expect)> {
    use Shape::*;
    let t = |s: &str| s.to_string();
    vec![
        // --- bare names, every spelling the issue lists
        ("PASSWORD=", Text, t("export PASSWORD=hunter2 && run"), Gone { kind: "secret_assignment", secret: "hunter2", keep: &["export PASSWORD=", " && run"] }),
        ("password=", Text, t("password=hunter2"), Gone { kind: "secret_assignment", secret: "hunter2", keep: &["password="] }),
        ("SECRET=", Text, t("SECRET=s3cr3tvalue\n"), Gone { kind: "secret_assignment", secret: "s3cr3tvalue", keep: &["SECRET=", "\n"] }),
        ("TOKEN=", Text, t("TOKEN=abcdef123 ./deploy"), Gone { kind: "secret_assignment", secret: "abcdef123", keep: &["./deploy"] }),
        ("PASSWD=", Text, t("PASSWD=letmein"), Gone { kind: "secret_assignment", secret: "letmein", keep: &["PASSWD="] }),
        ("CREDENTIALS=", Text, t("CREDENTIALS=svc:Xy7pQ2"), Gone { kind: "secret_assignment", secret: "svc:Xy7pQ2", keep: &["CREDENTIALS="] }),
        ("PGPASSWORD=", Text, t("PGPASSWORD=pg-pass-99 psql -h db"), Gone { kind: "secret_assignment", secret: "pg-pass-99", keep: &["psql -h db"] }),
        // --- configuration and code
        ("yaml password: x", Text, t("database:\n  user: app\n  password: hunter2\n  host: db\n"), Gone { kind: "secret_assignment", secret: "hunter2", keep: &["user: app", "host: db"] }),
        ("json in text", Text, t(r#"body: {"user":"a","password":"hunter2"}"#), Gone { kind: "secret_assignment", secret: "hunter2", keep: &[r#""user":"a""#] }),
        ("js object", Text, t("login({ user: 'a', password: 'hunter2' })"), Gone { kind: "secret_assignment", secret: "hunter2", keep: &["user: 'a'"] }),
        ("--password=x", Text, t("mysql --user=root --password=hunter2 app"), Gone { kind: "secret_assignment", secret: "hunter2", keep: &["--user=root", " app"] }),
        ("json field", Json, t(r#"{"env": {"DB_PASSWORD": "hunter2", "PATH": "/usr/bin"}}"#), Gone { kind: "secret_assignment", secret: "hunter2", keep: &["/usr/bin"] }),
        ("authorization field", Json, t(r#"{"url": "https://api.example.com", "headers": {"Authorization": "Basic YWRtaW46czNjcjN0UGFzcw=="}}"#), Gone { kind: "basic_auth", secret: "YWRtaW46czNjcjN0UGFzcw==", keep: &["Basic [REDACTED:basic_auth]", "https://api.example.com"] }),
        ("authorization bearer field", Json, t(r#"{"headers": {"authorization": "Bearer abc123def456ghi789"}}"#), Gone { kind: "bearer_token", secret: "abc123def456ghi789", keep: &["Bearer [REDACTED:bearer_token]"] }),
        ("number under a secret name", Json, t(r#"{"user": "app", "password": 84736251, "max_tokens": 4096, "auth": 1}"#), Gone { kind: "secret_assignment", secret: "84736251", keep: &[r#""max_tokens":4096"#, r#""auth":1"#] }),
        ("array under a secret name", Json, t(r#"{"api_key": ["a9Fk2Lq8Zp3Xw7"], "tags": ["a9Fk2Lq8Zp3Xw7b"]}"#), Gone { kind: "secret_assignment", secret: r#"["a9Fk2Lq8Zp3Xw7"]"#, keep: &[r#""tags":["a9Fk2Lq8Zp3Xw7b"]"#] }),
        ("token as a key", Json, t(r#"{"tokens": {"ghp_R4nd0mT0k3nV4lu3Xy2Wq8Zp5Lm7Nk9Bc3Df": "ci"}}"#), Gone { kind: "github_token", secret: "ghp_R4nd0mT0k3nV4lu3Xy2Wq8Zp5Lm7Nk9Bc3Df", keep: &[r#""[REDACTED:github_token]":"ci""#] }),
        ("k8s env yaml", Text, t("        env:\n        - name: LOG_LEVEL\n          value: debug\n        - name: DB_PASSWORD\n          value: \"Xk9mP2vL8qR4\"\n        - name: PORT\n          value: \"8080\"\n"), Gone { kind: "secret_assignment", secret: "Xk9mP2vL8qR4", keep: &["value: debug", "- name: DB_PASSWORD\n          value: \"[REDACTED:secret_assignment]\"", "value: \"8080\""] }),
        ("k8s env yaml ref", Text, t("- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n- name: API_TOKEN\n  value: $(TOKEN)"), Kept),
        ("ecs env json text", Text, t(r#"[{"name": "STRIPE_WEBHOOK_SECRET", "value": "whsec_9fK2mQ7xL4pR8vN3"}, {"name": "REGION", "value": "eu-west-1"}]"#), Gone { kind: "secret_assignment", secret: "whsec_9fK2mQ7xL4pR8vN3", keep: &[r#""value": "eu-west-1""#] }),
        ("ecs env json field", Json, t(r#"{"spec": {"env": [{"name": "STRIPE_WEBHOOK_SECRET", "value": "whsec_9fK2mQ7xL4pR8vN3"}, {"name": "REGION", "value": "eu-west-1"}]}}"#), Gone { kind: "secret_assignment", secret: "whsec_9fK2mQ7xL4pR8vN3", keep: &[r#""value":"eu-west-1""#] }),
        // --- command lines and URLs
        ("curl -u", Text, t("curl -u admin:hunter2 https://api.example.com/x"), Gone { kind: "cli_password", secret: "hunter2", keep: &["curl -u admin:", "https://api.example.com/x"] }),
        ("curl --user", Text, t("curl -s --user admin:hunter2 https://x"), Gone { kind: "cli_password", secret: "hunter2", keep: &["--user admin:"] }),
        ("sshpass -p", Text, t("sshpass -p hunter2 ssh root@host"), Gone { kind: "cli_password", secret: "hunter2", keep: &["ssh root@host"] }),
        ("mysql -pPW", Text, t("mysql -u root -pMyS3cretPw shop"), Gone { kind: "cli_password", secret: "MyS3cretPw", keep: &["mysql -u root -p", " shop"] }),
        ("mysql -p alone", Text, t("mysql -u root -p shop"), Kept),
        ("docker login -p", Text, t("docker login -u me -p D0ckerPw9 registry.io"), Gone { kind: "cli_password", secret: "D0ckerPw9", keep: &["docker login -u me -p ", " registry.io"] }),
        ("podman --password=", Text, t("podman login --password=Podm4nPw quay.io"), Gone { kind: "cli_password", secret: "Podm4nPw", keep: &[" quay.io"] }),
        ("comparison", Text, t("if password == confirm { retry() }"), Kept),
        ("names itself", Text, t("self.token = token\nconfig.auth = authMiddleware"), Kept),
        ("keyword values", Text, t("const token = await getToken();\nconst secret = new Uint8Array(32);\ntoken = await self.client.fetch_token()\nsecret = yield self.vault.read()\nlet token = match cfg.auth {\nlet password = if cfg.prompt {"), Kept),
        ("keyword-like secret", Text, t("export PASSWORD=new\n"), Gone { kind: "secret_assignment", secret: "new", keep: &["export PASSWORD=", "\n"] }),
        ("env literal with the name's word", Text, t("docker run -e POSTGRES_PASSWORD=mysecretpassword postgres"), Gone { kind: "secret_assignment", secret: "mysecretpassword", keep: &["docker run -e POSTGRES_PASSWORD=", " postgres"] }),
        ("compose literal with the name's word", Text, t("    environment:\n      POSTGRES_PASSWORD: mypassword\n"), Gone { kind: "secret_assignment", secret: "mypassword", keep: &["POSTGRES_PASSWORD: ", "\n"] }),
        ("constant names itself", Text, t("DB_PASSWORD = db_password\nconst opts = { TOKEN: token };"), Kept),
        ("setting off", Text, t("gpg: keyserver option Auth=off"), Kept),
        ("go test verdict", Text, t("--- PASS: TestLoginWith2FA (0.00s)"), Kept),
        ("yaml pass:", Text, t("  pass: Hunter2abc"), Gone { kind: "secret_assignment", secret: "Hunter2abc", keep: &["  pass: "] }),
        ("redis empty user", Text, t("REDIS_URL is redis://:hunter2@cache:6379/0"), Gone { kind: "url_password", secret: "hunter2", keep: &["redis://:", "@cache:6379/0"] }),
        ("image reference", Text, t("skopeo inspect docker://alpine:3.19@sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b"), Kept),
        ("url password like a tag", Text, t("mongodb://admin:3.19@db.internal/app"), Gone { kind: "url_password", secret: "3.19", keep: &["mongodb://admin:", "@db.internal/app"] }),
        ("url user:pw", Text, t("postgres://admin:Sup3r-S3cret!@db.internal:5432/app"), Gone { kind: "url_password", secret: "Sup3r-S3cret!", keep: &["postgres://admin:", "@db.internal:5432/app"] }),
        // --- values with dots are not "code" when they are keys
        ("aws secret with dots", Text, t("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI.K7MDENG.bPxRfiCYEXAMPLEKEY"), Gone { kind: "secret_assignment", secret: "K7MDENG", keep: &["AWS_SECRET_ACCESS_KEY="] }),
        ("sendgrid SG.x.y", Text, t("SENDGRID_API_KEY=SG.x.y"), Gone { kind: "secret_assignment", secret: "SG.x.y", keep: &["SENDGRID_API_KEY="] }),
        // --- vendor shapes
        ("sendgrid", Text, t("key 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 in use"), Gone { kind: "sendgrid_key", secret: "TwL2iGABf9DHoTf", keep: &["key ", " in use"] }),
        ("google ya29", Text, t("Authorization header: ya29.a0AfH6SMBx1234567890abcdefghijKLMN ok"), Gone { kind: "google_oauth", secret: "a0AfH6SMBx1234567890", keep: &[" ok"] }),
        ("google GOCSPX", Text, t("client_secret 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 done"), Gone { kind: "google_oauth", secret: "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", keep: &[" done"] }),
        ("gitlab glpat", Text, t("git clone https://oauth2:glpat-Ab3dEf6hIj9kLm2nOp5q@gitlab.com/x.git"), Gone { kind: "url_password", secret: "glpat-Ab3dEf6hIj9kLm2nOp5q", keep: &["@gitlab.com/x.git"] }),
        ("gitlab glpat bare", Text, t("token glpat-Ab3dEf6hIj9kLm2nOp5q"), Gone { kind: "gitlab_token", secret: "glpat-Ab3dEf6hIj9kLm2nOp5q", keep: &["token "] }),
        ("digitalocean", Text, t(&format!("doctl auth init -t dop_v1_{}", "a1b2c3d4".repeat(8))), Gone { kind: "digitalocean_token", secret: "a1b2c3d4a1b2c3d4", keep: &["doctl auth init -t "] }),
        ("putty key", Text, format!("cat deploy.ppk\n{PUTTY}\ndone"), Gone { kind: "private_key", secret: "PRIVATEBODY", keep: &["cat deploy.ppk\n", "\ndone"] }),
        // --- key blocks: whole, cut (the body that is left, not the text after it), mentioned
        ("cut pem key", Text, t("cat key.pem\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F1A9C\n\nMIIEpAIBAAKCAQEAx9YkQ2mVb7Lr0pT8sW3nC5uH1dJ6fG4kE2aZ9yX0wVqR\nb3Bl\n[output truncated]\nNext, rotate it."), Gone { kind: "private_key", secret: "MIIEpAIBAAKCAQEA", keep: &["cat key.pem\n", "\n[output truncated]\nNext, rotate it."] }),
        ("numbered key", Text, t("     1\u{2192}-----BEGIN OPENSSH PRIVATE KEY-----\n     2\u{2192}b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n     3\u{2192}-----END OPENSSH PRIVATE KEY-----\n     4\u{2192}"), Gone { kind: "private_key", secret: "b3BlbnNzaC1rZXktdjE", keep: &["     1\u{2192}", "\n     4\u{2192}"] }),
        ("escaped key", Text, t(r#"{"key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n", "n": 1}"#), Gone { kind: "private_key", secret: "MIIEvQIBADANBgkq", keep: &[r#"{"key": ""#, r#"\n", "n": 1}"#] }),
        ("whole key with an odd line", Text, t("Private Key:    -----BEGIN PGP PRIVATE KEY BLOCK-----\n\n    lQcYBGVbc3kBEADH2vQpL8mN4xR7sT1uW9yZ0aB3cD5eF6gH\n    8tG[REDACTED_PHONE]XgtcMRMQEsYdr95CN5FjDwFGWv5oCXD\n    AA/9ERgq65/xPh2/+/v4XfV8MspdmTj24rytqsQBouIvJzE\n    -----END PGP PRIVATE KEY BLOCK-----\n  Fingerprint: x"), Gone { kind: "private_key", secret: "AA/9ERgq65", keep: &["Private Key:    ", "\n  Fingerprint: x"] }),
        ("putty header in prose", Text, t("Files start with `PuTTY-User-Key-File-3: ssh-ed25519`.\nThen convert it with puttygen."), Kept),
        ("key header in prose", Text, t("The scanner looks for the header `-----BEGIN RSA PRIVATE KEY-----` only.\n\nSteps to fix:\n1. Add a pattern for `OPENSSH`.\n2. Run `make test`."), Kept),
        ("key header in code", Text, t("    HEADER = \"-----BEGIN RSA PRIVATE KEY-----\"\n    def scan(path):\n        return HEADER in open(path).read()"), Kept),
        ("key header and footer patterns", Text, t("PATTERNS = [\n    r\"-----BEGIN RSA PRIVATE KEY-----\",\n    r\"AKIA[0-9A-Z]{16}\",\n    r\"ghp_[A-Za-z0-9]{36}\",\n]\ndef scan(text):\n    return [p for p in PATTERNS if re.search(p, text)]\nFOOTER = r\"-----END RSA PRIVATE KEY-----\"\n"), Kept),
        ("key header pattern", Text, t(r#"(r"(-----BEGIN RSA PRIVATE KEY-----)", "[KEY]"),\n    (r"(AKIA...)", "[AWS]"),"#), Kept),
        ("anthropic", Text, format!("using {ANTHROPIC} now"), Gone { kind: "anthropic_api_key", secret: ANTHROPIC, keep: &["using ", " now"] }),
        // --- a key streamed across two Claude records: the merged message is redacted
        ("streamed key", Stream(22), format!("the key is {ANTHROPIC} ok"), Gone { kind: "anthropic_api_key", secret: "Zx9Yw8Vu7Ts6Rq5Po4Nm3", keep: &["the key is ", " ok"] }),
        ("streamed assignment", Stream(9), t("PASSWORD=hunter2-streamed\nnext"), Gone { kind: "secret_assignment", secret: "streamed", keep: &["PASSWORD=", "\nnext"] }),
        // --- what must stay
        ("git sha", Text, t("commit 2c83758e4b1f0a3d9c8e7f6a5b4c3d2e1f0a9b8c fixes it"), Kept),
        ("uuid", Text, t("session 6f0d3c52-8a1e-4b7f-9c2d-1e5a7b3c9d01 resumed"), Kept),
        ("sha256", Text, t("sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"), Kept),
        ("image digest", Text, t("pull node@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"), Kept),
        ("digest field", Text, t(r#"{"digest": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}"#), Kept),
        ("bcrypt", Text, t(r#"password_hash = "$2b$12$KIXQJ1o2Qn8Zx7hYb4eZ.uJ5yW0P8k2c3m4n5o6p7q8r9s0t1u2v3""#), Kept),
        ("bcrypt json", Json, t(r#"{"password": "$2b$12$KIXQJ1o2Qn8Zx7hYb4eZ.uJ5yW0P8k2c3m4n5o6p7q8r9s0t1u2v3"}"#), Kept),
        ("$VAR", Text, t("PASSWORD=$DB_PASSWORD api_key=${API_KEY} psql"), Kept),
        ("<token>", Text, t("TOKEN=<your token> secret=*** password: <password>"), Kept),
        ("masked vendor keys", Text, t("export GH_TOKEN=\"github_pat_xxxx\"\nGITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nOPENAI_API_KEY=sk-...\nexport ANTHROPIC_API_KEY=sk-ant-xxxxx\napi_key = \"your-api-key-here\"\nAWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX"), Kept),
        ("nearly masked key", Text, t("GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx9"), Gone { kind: "github_token", secret: "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx9", keep: &["GITHUB_TOKEN="] }),
        ("example aws key", Text, t("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"), Gone { kind: "aws_access_key", secret: "AKIAIOSFODNN7EXAMPLE", keep: &["AWS_ACCESS_KEY_ID="] }),
        ("config.password", Text, t("self.password = config.password\npassword = get_password()"), Kept),
        ("process.env", Text, t("API_KEY=process.env.API_KEY\nconst token = process.env.GITHUB_TOKEN;"), Kept),
        ("MIN_PASSWORD_LENGTH", Text, t("MIN_PASSWORD_LENGTH = 8\nPASSWORD_MIN_LENGTH: 12"), Kept),
        ("counts", Text, t("max_tokens=4096 token_count: 12 max_token = 2048 PWD=/home/dev/webapp"), Kept),
        ("prose", Text, t("Token: see below. Set the password in the settings page; the --password flag is required."), Kept),
        ("paths", Text, t("PASSWORD_FILE=/run/secrets/db DB_PASSWORD_FILE=/run/secrets/x"), Kept),
        ("docker -u", Text, t("docker run -u 1000:1000 img && git push -u origin main"), Kept),
        ("bearer prose", Text, t("bearer tokens expire after an hour"), Kept),
    ]
}

/// A Claude session whose one response arrives in two records (same message id and request),
/// `text` cut at `at`.
fn streamed_session(dir: &Path, text: &str, at: usize) -> std::path::PathBuf {
    let id = "22222222-bbbb-4000-8000-000000000001";
    let rec = |uuid: &str, parent: Option<&str>, piece: &str| {
        json!({"type": "assistant", "sessionId": id, "uuid": uuid, "parentUuid": parent,
            "cwd": "/p", "timestamp": "2026-05-01T10:00:05.000Z", "requestId": "req_1",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": piece}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}})
        .to_string()
    };
    let user = json!({"type": "user", "sessionId": id, "uuid": "u1", "parentUuid": null,
        "cwd": "/p", "timestamp": "2026-05-01T10:00:00.000Z",
        "message": {"role": "user", "content": "go"}})
    .to_string();
    let body = [
        user,
        rec("a1", Some("u1"), &text[..at]),
        rec("a2", Some("a1"), &text[at..]),
    ]
    .join("\n")
        + "\n";
    let path = dir.join(format!("{id}.jsonl"));
    fs::write(&path, body).unwrap();
    path
}

/// Run one case; returns what came out (as one text) and the counts.
fn run(shape: Shape, input: &str) -> (String, Redactions) {
    let mut counts = Redactions::default();
    let out = match shape {
        Shape::Text => redact_str(input, &mut counts).unwrap_or_else(|| input.to_string()),
        Shape::Json => {
            let mut v: Value = serde_json::from_str(input).unwrap();
            redact_value(&mut v, &mut counts);
            v.to_string()
        }
        Shape::Stream(at) => {
            let dir = tempfile::tempdir().unwrap();
            let path = streamed_session(dir.path(), input, at);
            let mut s =
                parse_file(&SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain)).unwrap();
            // The parser merges the two records into one message with two text parts: the
            // case is only meaningful if the pieces stay pieces.
            let m = s
                .messages
                .iter()
                .find(|m| m.id.as_deref() == Some("msg_1"))
                .unwrap();
            let texts = m
                .parts
                .iter()
                .filter(|p| matches!(p, Part::Text { .. }))
                .count();
            assert_eq!(
                texts, 2,
                "the two records are one message with two text parts"
            );
            let piece_alone = redact_str(&input[..at], &mut Redactions::default());
            assert!(
                piece_alone.is_none_or(|p| !p.contains("REDACTED")) || at == 0,
                "the first piece alone must not be recognisable for the case to test merging"
            );
            counts = redact_session(&mut s);
            let m = s
                .messages
                .iter()
                .find(|m| m.id.as_deref() == Some("msg_1"))
                .unwrap();
            m.parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        }
    };
    (out, counts)
}

#[test]
fn every_case_both_directions() {
    let mut failures = Vec::new();
    for (name, shape, input, expect) in cases() {
        let (out, counts) = run(shape, &input);
        match expect {
            Gone { kind, secret, keep } => {
                assert!(KINDS.contains(&kind), "{name}: unknown kind {kind}");
                assert!(
                    input.contains(secret),
                    "{name}: the case's secret is not in its input"
                );
                if out.contains(secret) {
                    failures.push(format!("{name}: {secret:?} survived in {out:?}"));
                }
                if !out.contains(&format!("[REDACTED:{kind}]")) {
                    failures.push(format!("{name}: no [REDACTED:{kind}] in {out:?}"));
                }
                if counts.0.get(kind).copied().unwrap_or(0) != 1 || counts.total() != 1 {
                    failures.push(format!("{name}: counted {counts:?}"));
                }
                for k in keep {
                    if !out.contains(k) {
                        failures.push(format!("{name}: lost {k:?} around the secret: {out:?}"));
                    }
                }
            }
            Kept => {
                let same = match shape {
                    Shape::Json => {
                        out == serde_json::from_str::<Value>(&input)
                            .unwrap()
                            .to_string()
                            .as_str()
                    }
                    _ => out == input,
                };
                if !same || counts.total() != 0 {
                    failures.push(format!("{name}: changed to {out:?} ({counts:?})"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn a_streamed_key_is_redacted_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("the key is {ANTHROPIC} ok");
    let file = streamed_session(dir.path(), &text, 22);
    for fmt in ["md", "html", "json", "jsonl"] {
        let out = sessions()
            .env("HOME", dir.path())
            .args(["export", "--redact", "-f", fmt])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{fmt}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let body = String::from_utf8_lossy(&out.stdout);
        for piece in [&ANTHROPIC[..11], &ANTHROPIC[11..30], &ANTHROPIC[30..]] {
            assert!(!body.contains(piece), "{fmt}: {piece:?} survived");
        }
        assert!(body.contains("REDACTED"), "{fmt}: no marker");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("redacted 1 secret: 1 anthropic_api_key"),
            "{fmt}: {stderr}"
        );
    }
}
