//! `--redact`: replace secrets with `[REDACTED:<kind>]` in every string of a session (texts,
//! thinking, tool arguments and outputs, compaction summaries, titles) before any format is
//! rendered, and count what was replaced per kind.
//!
//! Only shapes that are secrets with near certainty are matched (vendor key prefixes, key
//! blocks, JWTs, bearer tokens, URL passwords, assignments to secret-looking names), so
//! hashes, UUIDs and base64 data (images) are left alone. Image data is never scanned.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

use crate::model::{Part, Session};

/// Replacements made, per kind (`aws_access_key`, `jwt`, …), in a stable order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactions(pub BTreeMap<&'static str, u64>);

impl Redactions {
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    pub fn add(&mut self, kind: &'static str, n: u64) {
        if n > 0 {
            *self.0.entry(kind).or_default() += n;
        }
    }

    pub fn merge(&mut self, other: &Redactions) {
        for (k, n) in &other.0 {
            self.add(k, *n);
        }
    }

    /// The stderr line: `redacted 3 secrets: 1 aws_access_key, 2 github_token`.
    pub fn describe(&self) -> String {
        let total = self.total();
        if total == 0 {
            return "redacted 0 secrets".to_string();
        }
        let parts: Vec<String> = self.0.iter().map(|(k, n)| format!("{n} {k}")).collect();
        format!(
            "redacted {total} secret{}: {}",
            if total == 1 { "" } else { "s" },
            parts.join(", ")
        )
    }
}

/// Every kind `--redact` knows, in the order the rules run.
pub const KINDS: &[&str] = &[
    "private_key",
    "jwt",
    "url_password",
    "bearer_token",
    "basic_auth",
    "anthropic_api_key",
    "openai_api_key",
    "github_token",
    "aws_access_key",
    "google_api_key",
    "slack_token",
    "stripe_key",
    "npm_token",
    "secret_assignment",
];

fn marker(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

struct Rule {
    kind: &'static str,
    re: Regex,
    /// Which capture group is the secret (0 = the whole match).
    group: usize,
    /// Extra check on the secret (e.g. "has a digit").
    accept: fn(&str) -> bool,
}

fn any(_: &str) -> bool {
    true
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

fn has_digit_and_letter(s: &str) -> bool {
    has_digit(s) && s.bytes().any(|b| b.is_ascii_alphabetic())
}

fn not_placeholder(s: &str) -> bool {
    !is_placeholder(s)
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let rule = |kind, re: &str, group, accept| Rule {
        kind,
        re: Regex::new(re).expect("redaction pattern"),
        group,
        accept,
    };
    vec![
        // A whole key block, or what is left of it when the output was cut.
        rule(
            "private_key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            0,
            any,
        ),
        rule(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
            0,
            any,
        ),
        // scheme://user:PASSWORD@host
        rule(
            "url_password",
            r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#]+:([^\s:/@?#]+)@",
            1,
            not_placeholder,
        ),
        rule(
            "bearer_token",
            r"(?i)\bbearer[ \t]+([A-Za-z0-9\-._~+/]{12,}=*)",
            1,
            has_digit,
        ),
        rule(
            "basic_auth",
            r"(?i)\bauthorization[\x22']?[ \t]*[:=][ \t]*[\x22']?basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})",
            1,
            any,
        ),
        rule("anthropic_api_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", 0, any),
        rule(
            "openai_api_key",
            r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9][A-Za-z0-9_-]{19,}",
            0,
            has_digit_and_letter,
        ),
        rule(
            "github_token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
            0,
            any,
        ),
        rule(
            "aws_access_key",
            r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
            0,
            any,
        ),
        rule("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}", 0, any),
        rule(
            "slack_token",
            r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}",
            0,
            any,
        ),
        rule(
            "stripe_key",
            r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
            0,
            any,
        ),
        rule("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", 0, any),
    ]
});

/// `NAME = value`, `NAME: "value"`, `"name": "value"`: a candidate assignment. Whether NAME is
/// secret-looking is decided by [`secret_name`].
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b([A-Za-z][A-Za-z0-9_.\-]*(?:pass|pwd|secret|token|key|credential|auth)[A-Za-z0-9_\-]*)(["']?)[ \t]*([=:])[ \t]*(?:"([^"\r\n]*)"|'([^'\r\n]*)'|([^\s"'`,;&()\[\]{}<>]+))"#,
    )
    .expect("assignment pattern")
});

/// Split a name into lowercase words: `AWS_SECRET_ACCESS_KEY` → aws, secret, access, key;
/// `accountKey` → account, key.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether a variable/field name names a secret: it contains `password`/`secret`/…, ends in
/// `token`/`pass`/…, or ends in `<qualifier> key` (`API_KEY`, `accountKey`, `private-key`).
pub fn secret_name(name: &str) -> bool {
    let w = words(name);
    let Some(last) = w.last() else {
        return false;
    };
    const ANYWHERE: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "secret",
        "secrets",
        "credential",
        "credentials",
        "apikey",
        "accesskey",
        "privatekey",
        "accountkey",
    ];
    const LAST: &[&str] = &["token", "pass", "pwd", "pat", "auth"];
    const KEY_QUALIFIERS: &[&str] = &[
        "api",
        "access",
        "account",
        "private",
        "secret",
        "signing",
        "encryption",
        "master",
        "auth",
        "client",
        "shared",
        "subscription",
        "storage",
        "license",
        "service",
    ];
    if w.iter().any(|x| ANYWHERE.contains(&x.as_str())) {
        return true;
    }
    if LAST.contains(&last.as_str()) {
        // `PWD`/`OLDPWD` are directories, not passwords.
        return !(w.len() == 1 && last == "pwd");
    }
    if last == "key" && w.len() >= 2 {
        return KEY_QUALIFIERS.contains(&w[w.len() - 2].as_str());
    }
    false
}

/// Values that stand for a secret rather than being one: `$VAR`, `${VAR}`, `<token>`, `***`,
/// booleans, and what an earlier rule already replaced.
fn is_placeholder(v: &str) -> bool {
    let t = v.trim();
    if t.is_empty() || t.starts_with("[REDACTED") {
        return true;
    }
    if t.starts_with('$') || t.starts_with('<') || t.starts_with("{{") || t.starts_with('%') {
        return true;
    }
    let lower = t.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true"
            | "false"
            | "null"
            | "none"
            | "nil"
            | "undefined"
            | "yes"
            | "no"
            | "required"
            | "optional"
            | "string"
            | "redacted"
    ) {
        return true;
    }
    let first = t.chars().next().unwrap_or(' ');
    if t.chars().count() >= 3 && t.chars().all(|c| c == first) && "*xX.-_•#".contains(first) {
        return true;
    }
    false
}

/// A dotted identifier (`self.password`, `config.api_key`) is a reference in code, not a value.
fn is_reference(v: &str) -> bool {
    let mut parts = v.split('.');
    let ident = |p: &str| {
        !p.is_empty()
            && p.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    v.contains('.') && parts.all(ident)
}

/// Redact one string. Returns `None` when nothing was found (the common case, no allocation).
pub fn redact_str(text: &str, counts: &mut Redactions) -> Option<String> {
    let mut current: Option<String> = None;
    for rule in RULES.iter() {
        let src = current.as_deref().unwrap_or(text);
        if !rule.re.is_match(src) {
            continue;
        }
        let mut n = 0;
        let replaced = rule.re.replace_all(src, |c: &Captures| {
            let whole = c.get(0).expect("match");
            let Some(secret) = c.get(rule.group) else {
                return whole.as_str().to_string();
            };
            if !(rule.accept)(secret.as_str()) {
                return whole.as_str().to_string();
            }
            n += 1;
            let start = secret.start() - whole.start();
            let end = secret.end() - whole.start();
            let w = whole.as_str();
            format!("{}{}{}", &w[..start], marker(rule.kind), &w[end..])
        });
        if n > 0 {
            counts.add(rule.kind, n);
            current = Some(replaced.into_owned());
        }
    }
    let src = current.as_deref().unwrap_or(text);
    if ASSIGNMENT.is_match(src) {
        let mut n = 0;
        let replaced = ASSIGNMENT.replace_all(src, |c: &Captures| {
            let whole = c.get(0).expect("match");
            let keep = || whole.as_str().to_string();
            let name = c.get(1).map_or("", |m| m.as_str());
            if !secret_name(name) {
                return keep();
            }
            let key_quoted = c.get(2).is_some_and(|m| !m.as_str().is_empty());
            let colon = c.get(3).is_some_and(|m| m.as_str() == ":");
            let (value, quoted) = match (c.get(4), c.get(5), c.get(6)) {
                (Some(v), _, _) | (_, Some(v), _) => (v, true),
                (_, _, Some(v)) => (v, false),
                _ => return keep(),
            };
            let v = value.as_str();
            if is_placeholder(v) || (!quoted && is_reference(v)) {
                return keep();
            }
            // `name: value` is prose as often as it is config: only quoted or token-like.
            let token_like = v.len() >= 8 && has_digit_and_letter(v);
            if colon && !(quoted || key_quoted || token_like) {
                return keep();
            }
            // A call (`password=get_password()`) is code, not a secret.
            if !quoted && src[value.end()..].starts_with('(') {
                return keep();
            }
            n += 1;
            let w = whole.as_str();
            let start = value.start() - whole.start();
            let end = value.end() - whole.start();
            format!(
                "{}{}{}",
                &w[..start],
                marker("secret_assignment"),
                &w[end..]
            )
        });
        if n > 0 {
            counts.add("secret_assignment", n);
            current = Some(replaced.into_owned());
        }
    }
    current
}

fn redact_string(s: &mut String, counts: &mut Redactions) {
    if let Some(r) = redact_str(s, counts) {
        *s = r;
    }
}

/// Redact every string in a JSON value; a string field whose key names a secret
/// (`{"password": "hunter2"}`) is replaced whole.
pub fn redact_value(v: &mut Value, counts: &mut Redactions) {
    match v {
        Value::String(s) => redact_string(s, counts),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_value(x, counts)),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match x {
                    Value::String(s) if secret_name(k) && !is_placeholder(s) => {
                        // A recognisable secret keeps its kind; anything else under a secret
                        // name goes whole.
                        match redact_str(s, counts) {
                            Some(r) => *s = r,
                            None => {
                                *s = marker("secret_assignment");
                                counts.add("secret_assignment", 1);
                            }
                        }
                    }
                    _ => redact_value(x, counts),
                }
            }
        }
        _ => {}
    }
}

fn redact_part(p: &mut Part, counts: &mut Redactions) {
    match p {
        Part::Text { text } | Part::Thinking { text } => redact_string(text, counts),
        Part::ToolCall { input, .. } => redact_value(input, counts),
        Part::ToolResult {
            output,
            attachments,
            ..
        } => {
            redact_string(output, counts);
            attachments.iter_mut().for_each(|a| redact_part(a, counts));
        }
        Part::Unknown { raw, .. } => redact_value(raw, counts),
        // Image data is base64 (never a secret worth scanning, and must stay intact).
        Part::Image { .. } | Part::Compaction { .. } => {}
    }
}

/// Redact a whole session in place and return what was replaced.
pub fn redact_session(s: &mut Session) -> Redactions {
    let mut counts = Redactions::default();
    if let Some(t) = &mut s.title {
        redact_string(t, &mut counts);
    }
    for m in &mut s.messages {
        for p in &mut m.parts {
            redact_part(p, &mut counts);
        }
    }
    for c in &mut s.compactions {
        if let Some(t) = &mut c.summary {
            redact_string(t, &mut counts);
        }
        redact_value(&mut c.extra, &mut counts);
    }
    counts
}

#[cfg(test)]
mod tests {
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
        // The issue's list is covered.
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
        let (out, c) = red("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA (output cut)");
        assert_eq!(out, "[REDACTED:private_key]");
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
        });
        m.parts.push(Part::Text {
            text: "key AKIAIOSFODNN7EXAMPLE".into(),
        });
        s.messages.push(m);
        let c = redact_session(&mut s);
        assert_eq!(c.total(), 1);
        assert!(matches!(&s.messages[0].parts[0], Part::Image { data: Some(d), .. } if *d == data));
    }
}
