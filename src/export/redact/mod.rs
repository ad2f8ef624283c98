//! `--redact`: replace secrets with `[REDACTED:<kind>]` in every string of a session (texts,
//! thinking, tool arguments and outputs, compaction summaries, titles) before any format is
//! rendered, and count what was replaced per kind.
//!
//! Only shapes that are secrets with near certainty are matched (vendor key prefixes, key
//! blocks, JWTs, bearer tokens, passwords in URLs and command lines, assignments to
//! secret-looking names), so hashes, UUIDs, digests and base64 data (images) are left alone.
//! Image data is never scanned.
//!
//! Matching produces spans over the text, so a message whose text arrived in several pieces
//! (Claude streams one response over several records, merged into one message with several
//! text parts) is matched as the whole text and each piece loses its share of a secret.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::model::{Part, Session};

mod pem;

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
    "cli_password",
    "anthropic_api_key",
    "openai_api_key",
    "github_token",
    "gitlab_token",
    "aws_access_key",
    "google_api_key",
    "google_oauth",
    "slack_token",
    "stripe_key",
    "npm_token",
    "sendgrid_key",
    "digitalocean_token",
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
        // A PuTTY key file, from its header to its MAC line (or the end of the text when the
        // file was cut). The header alone, with no `Encryption:` line under it, is a mention.
        rule(
            "private_key",
            r"PuTTY-User-Key-File-[0-9]+:[^\r\n]*\r?\nEncryption:(?s:.*?)(?:Private-MAC:[^\r\n]*|\z)",
            0,
            any,
        ),
        rule(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
            0,
            any,
        ),
        // scheme://user:PASSWORD@host, the user possibly empty (redis://:pw@host).
        rule(
            "url_password",
            r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#]*:([^\s:/@?#]+)@",
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
        // curl -u user:PASSWORD / --user user:PASSWORD.
        rule(
            "cli_password",
            r#"\bcurl\b[^\r\n]*?[ \t](?:-u|--user)(?:[ \t]+|=)['"]?[^\s:'"]*:([^\s'"]+)"#,
            1,
            not_placeholder,
        ),
        // sshpass -p PASSWORD.
        rule(
            "cli_password",
            r#"\bsshpass\b[^\r\n]*?[ \t]-p[ \t]*['"]?([^\s'"]+)"#,
            1,
            not_placeholder,
        ),
        // mysql -pPASSWORD (attached: a bare -p asks for it), and its siblings.
        rule(
            "cli_password",
            r#"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\r\n]*?[ \t]-p['"]?([^\s'"-][^\s'"]*)"#,
            1,
            not_placeholder,
        ),
        // docker login -p PASSWORD / --password PASSWORD (podman, nerdctl alike).
        rule(
            "cli_password",
            r#"\b(?:docker|podman|nerdctl|helm\s+registry)\s+login\b[^\r\n]*?[ \t](?:-p|--password)(?:[ \t]+|=)['"]?([^\s'"]+)"#,
            1,
            not_placeholder,
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
            "gitlab_token",
            r"\bgl(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_-]{20,}",
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
        // OAuth access tokens (ya29.) and client secrets (GOCSPX-).
        rule(
            "google_oauth",
            r"\b(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})",
            0,
            any,
        ),
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
        rule(
            "sendgrid_key",
            r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
            0,
            any,
        ),
        rule("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", 0, any),
    ]
});

/// `@sha256:<hex>` (an image digest) right after a `name:tag`.
static DIGEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^@sha(?:1|224|256|384|512):[0-9a-fA-F]{16}").expect("digest pattern")
});

/// A Kubernetes (or ECS) environment entry in YAML: `- name: DB_PASSWORD` and, on the next
/// line, `value: "…"`. The value is a secret when the name is.
static ENV_PAIR_YAML: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?m)^[ \t]*-[ \t]+name:[ \t]*["']?([A-Za-z_][A-Za-z0-9_.\-]*)["']?[ \t]*\r?\n[ \t]+value:[ \t]*(?:"([^"\r\n]*)"|'([^'\r\n]*)'|([^\s"'#][^\r\n]*?))[ \t\r]*$"#,
    )
    .expect("yaml env pair pattern")
});

/// The same entry in JSON text: `{"name": "STRIPE_WEBHOOK_SECRET", "value": "whsec_…"}`.
static ENV_PAIR_JSON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#""name"[ \t]*:[ \t]*"([A-Za-z_][A-Za-z0-9_.\-]*)"[ \t]*,[ \t\r\n]*"value"[ \t]*:[ \t]*"((?:[^"\\\r\n]|\\.)*)""#,
    )
    .expect("json env pair pattern")
});

/// `NAME = value`, `NAME: "value"`, `"name": "value"`, `--name=value`: a candidate assignment.
/// Whether NAME is secret-looking is decided by [`secret_name`].
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b((?:[A-Za-z_][A-Za-z0-9_.\-]*)?(?:pass|pwd|secret|token|key|credential|auth)[A-Za-z0-9_\-]*)(["']?)[ \t]*([=:])[ \t]*(?:"([^"\r\n]*)"|'([^'\r\n]*)'|([^\s"'`,;&()\[\]{}<>]+))"#,
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

/// Whether a variable/field name names a secret. What the name is *about* is its last word
/// (after encoding words like `_BASE`, `_VALUE`): `DB_PASSWORD`, `GITHUB_TOKEN`, `PGPASSWORD`,
/// `API_KEY`, `accountKey`, `SECRET_KEY_BASE` name secrets; `MIN_PASSWORD_LENGTH`,
/// `PASSWORD_FILE`, `password_hash`, `token_count`, `max_tokens`, `PWD` do not.
pub fn secret_name(name: &str) -> bool {
    const SECRET: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "pass",
        "pwd",
        "secret",
        "secrets",
        "token",
        "credential",
        "credentials",
        "creds",
        "apikey",
        "accesskey",
        "privatekey",
        "accountkey",
        "secretkey",
        "auth",
        "pat",
    ];
    // Compound words: `pgpassword`, `clientsecret`, `csrftoken`, `xapikey`.
    const SUFFIX: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "apikey",
    ];
    // Words that say how the secret is written, not what the name is about.
    const ENCODING: &[&str] = &[
        "base",
        "value",
        "raw",
        "plain",
        "plaintext",
        "b64",
        "base64",
        "hex",
        "str",
        "string",
    ];
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
    let mut w = words(name);
    while w.len() > 1 && w.last().is_some_and(|l| ENCODING.contains(&l.as_str())) {
        w.pop();
    }
    let Some(last) = w.last() else {
        return false;
    };
    // `PWD`/`OLDPWD` are directories, not passwords.
    if w.len() == 1 && last == "pwd" {
        return false;
    }
    if SECRET.contains(&last.as_str()) || SUFFIX.iter().any(|s| last.ends_with(s)) {
        return true;
    }
    last == "key" && w.len() >= 2 && KEY_QUALIFIERS.contains(&w[w.len() - 2].as_str())
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
            | "on"
            | "off"
            | "enabled"
            | "disabled"
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
    // `your-api-key-here`, `YOUR_TOKEN_HERE`.
    if lower.starts_with("your") && lower.ends_with("here") && lower.len() > 8 {
        return true;
    }
    masked_vendor_key(t)
}

/// A vendor prefix with the key masked out (`github_pat_xxxx`, `ghp_xxxx…`, `sk-...`,
/// `sk-ant-xxxxx`, `AKIAXXXXXXXXXXXXXXXX`): what documentation writes for a key.
fn masked_vendor_key(t: &str) -> bool {
    // Longest first: `sk-ant-` before `sk-`.
    const PREFIXES: &[&str] = &[
        "github_pat_",
        "sk-ant-api03-",
        "sk-ant-",
        "sk-proj-",
        "sk-",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "sk_live_",
        "sk_test_",
        "rk_live_",
        "npm_",
        "AKIA",
        "ASIA",
        "AIza",
        "SG.",
        "dop_v1_",
    ];
    PREFIXES.iter().any(|p| {
        t.strip_prefix(p).is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| matches!(c, 'x' | 'X' | '.' | '*' | '…'))
        })
    })
}

/// A dotted identifier that reads as code (`self.password`, `config.api_key`,
/// `process.env.API_KEY`) is a reference, not a value. Segments that look random
/// (`SG.x7Yq…`, `wJalrXUtnFEMI.K7MDENG…`) make it a secret; so does an environment-style
/// name (`SENDGRID_API_KEY=SG.x.y`) unless the value starts with a known receiver.
fn is_reference(name: &str, v: &str) -> bool {
    const RECEIVERS: &[&str] = &[
        "self",
        "this",
        "config",
        "cfg",
        "conf",
        "settings",
        "options",
        "opts",
        "args",
        "params",
        "props",
        "ctx",
        "context",
        "process",
        "env",
        "os",
        "import",
        "window",
        "app",
        "request",
        "req",
        "secrets",
        "vars",
        "inputs",
        "credentials",
        "creds",
        "values",
        "state",
        "data",
        "user",
        "form",
        "github",
        "steps",
        "matrix",
        "std",
        "super",
        "module",
    ];
    if !v.contains('.') {
        return false;
    }
    let segments: Vec<&str> = v.split('.').collect();
    let ident = |p: &str| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !segments.iter().all(|p| ident(p)) || segments.iter().any(|p| looks_random(p)) {
        return false;
    }
    let env_style = name.bytes().any(|b| b.is_ascii_uppercase())
        && !name.bytes().any(|b| b.is_ascii_lowercase());
    !env_style || RECEIVERS.contains(&segments[0].to_ascii_lowercase().as_str())
}

/// An unquoted value that is a word of code naming what the key holds: letters and `_` only,
/// containing the key's last word (`token = token`, `auth = authMiddleware`).
fn names_itself(name: &str, v: &str) -> bool {
    let Some(last) = words(name).pop() else {
        return false;
    };
    v.chars().all(|c| c.is_ascii_alphabetic() || c == '_') && v.to_ascii_lowercase().contains(&last)
}

/// `POSTGRES_PASSWORD=mysecretpassword`, `DB_PASSWORD: mypassword`: an environment-style
/// name (upper case) set with `=` or `:` right after it is configuration, so a value that
/// happens to contain the name's last word is a literal. Code spaces its `=`
/// (`DB_PASSWORD = db_password`).
fn env_literal(name: &regex::Match, sep: Option<regex::Match>) -> bool {
    let n = name.as_str();
    let env_style =
        n.bytes().any(|b| b.is_ascii_uppercase()) && !n.bytes().any(|b| b.is_ascii_lowercase());
    env_style && sep.is_some_and(|s| s.start() == name.end())
}

/// An unquoted value that is a keyword opening an expression, with the expression after it
/// (`token = await getToken()`, `secret = new Uint8Array(32)`, `let token = match cfg.auth {`):
/// code, not a secret.
fn starts_expression(v: &str, after: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "await", "new", "yield", "match", "if", "async", "typeof", "lambda", "not", "function",
        "fn", "move", "loop", "unsafe", "switch", "try", "delete", "void", "select", "from",
    ];
    let rest = after.trim_start_matches([' ', '\t']);
    KEYWORDS.contains(&v)
        && rest.len() < after.len()
        && rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || "_$|({[!*&\"'".contains(c))
}

/// A segment of generated text rather than a word of code: long with digits and letters, or
/// with the case flipping again and again.
fn looks_random(p: &str) -> bool {
    let switches = p
        .as_bytes()
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    p.len() >= 32 || (p.len() >= 12 && has_digit_and_letter(p)) || switches >= 3
}

/// A secret found in a text: where it is and what kind.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    range: Range<usize>,
    kind: &'static str,
}

/// The spans taken so far, by start. They never overlap, so their ends rise with their starts
/// and the one span that can overlap a range is the last that starts before its end: a
/// text with many secrets is checked in n·log n, not n².
#[derive(Default)]
struct Taken(BTreeMap<usize, (usize, &'static str)>);

impl Taken {
    fn take(&mut self, r: Range<usize>, kind: &'static str) {
        let overlaps = self
            .0
            .range(..r.end)
            .next_back()
            .is_some_and(|(_, &(end, _))| end > r.start);
        if !overlaps {
            self.0.insert(r.start, (r.end, kind));
        }
    }
}

/// Every secret in `text`, in order, non-overlapping (earlier rules win).
fn find(text: &str) -> Vec<Span> {
    let mut taken = Taken::default();
    // Key blocks first: a key body is base64 that other rules could take a piece of.
    for r in pem::blocks(text) {
        taken.take(r, "private_key");
    }
    for rule in RULES.iter() {
        for c in rule.re.captures_iter(text) {
            let Some(secret) = c.get(rule.group) else {
                continue;
            };
            if secret.is_empty()
                || !(rule.accept)(secret.as_str())
                || is_placeholder(secret.as_str())
            {
                continue;
            }
            // `docker://alpine:3.19@sha256:…`: a tag and a digest, not a password and a host.
            if rule.kind == "url_password" && DIGEST.is_match(&text[secret.end()..]) {
                continue;
            }
            taken.take(secret.range(), rule.kind);
        }
    }
    let mut lines = Lines::default();
    for c in ASSIGNMENT.captures_iter(text) {
        if let Some(r) = assignment_value(text, &c, &mut lines) {
            taken.take(r, "secret_assignment");
        }
    }
    for re in [&*ENV_PAIR_YAML, &*ENV_PAIR_JSON] {
        for c in re.captures_iter(text) {
            let value = (2..=4).find_map(|i| c.get(i));
            if let (Some(name), Some(value)) = (c.get(1), value)
                && secret_name(name.as_str())
                && !is_placeholder(value.as_str())
            {
                taken.take(value.range(), "secret_assignment");
            }
        }
    }
    taken
        .0
        .into_iter()
        .map(|(start, (end, kind))| Span {
            range: start..end,
            kind,
        })
        .collect()
}

/// The line around a position, for positions that only move forward (the matches of one
/// pass over a text): each byte is searched for a newline about once, however many matches
/// one long line holds.
#[derive(Default)]
struct Lines {
    /// Where the last search for a line's start stopped, and the line start it found.
    back: (usize, usize),
    /// The last search for a line's end: from where, and the end it found.
    ahead: Option<(usize, usize)>,
}

impl Lines {
    /// The start of the line holding `at` (the byte after the newline before it).
    fn start(&mut self, text: &str, at: usize) -> usize {
        let (from, start) = self.back;
        let start = if at < from {
            text[..at].rfind('\n').map_or(0, |i| i + 1)
        } else {
            text[from..at].rfind('\n').map_or(start, |i| from + i + 1)
        };
        self.back = (at, start);
        start
    }

    /// The end of the line holding `at` (its newline, or the end of the text).
    fn end(&mut self, text: &str, at: usize) -> usize {
        match self.ahead {
            Some((from, end)) if from <= at && at <= end => end,
            _ => {
                let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
                self.ahead = Some((at, end));
                end
            }
        }
    }
}

/// The secret value of an [`ASSIGNMENT`] match, if it is one.
fn assignment_value(text: &str, c: &regex::Captures, lines: &mut Lines) -> Option<Range<usize>> {
    let name = c.get(1)?;
    if !secret_name(name.as_str()) {
        return None;
    }
    let key_quoted = c.get(2).is_some_and(|m| !m.as_str().is_empty());
    let colon = c.get(3).is_some_and(|m| m.as_str() == ":");
    let (value, quoted) = match (c.get(4), c.get(5), c.get(6)) {
        (Some(v), _, _) | (_, Some(v), _) => (v, true),
        (_, _, Some(v)) => (v, false),
        _ => return None,
    };
    let v = value.as_str();
    if is_placeholder(v) || (!quoted && is_reference(name.as_str(), v)) {
        return None;
    }
    // A call (`password=get_password()`) is code, not a secret; so is a comparison
    // (`password == confirm`: the value would start at the second `=`), and a bare word that
    // names what the key holds (`self.token = token`, `config.auth = authMiddleware`).
    if !quoted
        && (text[value.end()..].starts_with('(')
            || v.starts_with('=')
            || (names_itself(name.as_str(), v) && !env_literal(&name, c.get(3)))
            || starts_expression(v, &text[value.end()..]))
    {
        return None;
    }
    // A small number under a token-ish name is a count or a setting (`max_token = 4096`).
    let last = words(name.as_str()).pop().unwrap_or_default();
    if !quoted
        && matches!(last.as_str(), "token" | "auth" | "pat" | "key")
        && v.len() < 8
        && v.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // `name: value` is prose as often as it is configuration: only quoted, token-like, or a
    // YAML line (`  password: hunter2` alone on its line). A bare `pass:` is a test verdict
    // (`--- PASS: TestLogin2 (0.00s)`) unless it is a YAML line.
    let verdict = name.as_str().eq_ignore_ascii_case("pass");
    if colon && !(quoted || key_quoted || (!verdict && v.len() >= 8 && has_digit_and_letter(v))) {
        let line_start = lines.start(text, name.start());
        let before = text[line_start..name.start()].trim_start();
        let line_end = lines.end(text, value.end());
        let after = text[value.end()..line_end].trim();
        let yaml_key = before.is_empty() || before == "-";
        if !(yaml_key && (after.is_empty() || after.starts_with('#'))) {
            return None;
        }
    }
    Some(value.range())
}

/// `text` with each span replaced by its marker.
fn apply(text: &str, spans: &[Span]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for s in spans {
        out.push_str(&text[at..s.range.start]);
        out.push_str(&marker(s.kind));
        at = s.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Redact one string. Returns `None` when nothing was found (the common case, no allocation).
pub fn redact_str(text: &str, counts: &mut Redactions) -> Option<String> {
    let spans = find(text);
    if spans.is_empty() {
        return None;
    }
    for s in &spans {
        counts.add(s.kind, 1);
    }
    Some(apply(text, &spans))
}

/// Redact pieces of one text as the text they make together (streamed pieces of one message):
/// a secret split across pieces is found whole; the piece where it starts gets the marker and
/// every piece loses its share of it.
pub fn redact_pieces(pieces: &mut [&mut String], counts: &mut Redactions) {
    if pieces.len() < 2 {
        for p in pieces.iter_mut() {
            redact_string(p, counts);
        }
        return;
    }
    let joined: String = pieces.iter().map(|p| p.as_str()).collect();
    let spans = find(&joined);
    if spans.is_empty() {
        return;
    }
    for s in &spans {
        counts.add(s.kind, 1);
    }
    // Spans and pieces are both in text order: each piece starts from the first span that
    // does not end before it, so the pass is linear in pieces + spans.
    let (mut offset, mut first) = (0, 0);
    for p in pieces.iter_mut() {
        let range = offset..offset + p.len();
        offset = range.end;
        while spans.get(first).is_some_and(|s| s.range.end <= range.start) {
            first += 1;
        }
        let mut out = String::with_capacity(p.len());
        let mut at = range.start;
        for s in spans[first..]
            .iter()
            .take_while(|s| s.range.start < range.end)
        {
            let start = s.range.start.max(range.start);
            out.push_str(&joined[at..start]);
            if s.range.start >= range.start {
                out.push_str(&marker(s.kind));
            }
            at = s.range.end.min(range.end);
        }
        if at == range.start {
            continue; // no secret touches this piece
        }
        out.push_str(&joined[at..range.end]);
        **p = out;
    }
}

fn redact_string(s: &mut String, counts: &mut Redactions) {
    if let Some(r) = redact_str(s, counts) {
        *s = r;
    }
}

/// Redact `s` as the text `label: s` would be, keeping `s` alone.
fn redact_labelled(label: &str, s: &mut String, counts: &mut Redactions) {
    let prefix = format!("{label}: ");
    let joined = format!("{prefix}{s}");
    let spans: Vec<Span> = find(&joined)
        .into_iter()
        .filter(|sp| sp.range.start >= prefix.len())
        .map(|sp| Span {
            range: sp.range.start - prefix.len()..sp.range.end - prefix.len(),
            kind: sp.kind,
        })
        .collect();
    if spans.is_empty() {
        return;
    }
    for sp in &spans {
        counts.add(sp.kind, 1);
    }
    *s = apply(s, &spans);
}

/// Redact every string in a JSON value; a field whose key names a secret
/// (`{"password": "hunter2"}`, `{"password": 84736251}`, `{"api_key": ["…"]}`) is replaced
/// whole, and a key that is itself a secret (`{"ghp_…": "repo"}`) is redacted like a text.
pub fn redact_value(v: &mut Value, counts: &mut Redactions) {
    match v {
        Value::String(s) => redact_string(s, counts),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_value(x, counts)),
        Value::Object(o) => {
            redact_keys(o, counts);
            // `{"name": "DB_PASSWORD", "value": "…"}`: an environment entry (Kubernetes, ECS).
            let pair = o
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| secret_name(n))
                .map(str::to_string);
            for (k, x) in o.iter_mut() {
                // A key redacted above names a kind, not what its value is.
                if secret_name(k) && !k.starts_with("[REDACTED") {
                    redact_secret(k, x, counts);
                } else if let Some(name) = pair.as_deref()
                    && k == "value"
                {
                    redact_secret(name, x, counts);
                } else if let Value::String(s) = x
                    && (k.eq_ignore_ascii_case("authorization")
                        || k.eq_ignore_ascii_case("proxy-authorization"))
                {
                    // `Basic …` is only recognised after its header name.
                    redact_labelled(k, s, counts)
                } else {
                    redact_value(x, counts)
                }
            }
        }
        _ => {}
    }
}

/// The value of a field whose key names a secret.
fn redact_secret(key: &str, x: &mut Value, counts: &mut Redactions) {
    match x {
        Value::String(s) if !is_placeholder(s) => {
            // A recognisable secret keeps its kind; anything else under a secret name goes
            // whole.
            match redact_str(s, counts) {
                Some(r) => *s = r,
                None => {
                    *s = marker("secret_assignment");
                    counts.add("secret_assignment", 1);
                }
            }
        }
        // A PIN or a numeric password; a small number under a token-ish name is a count or a
        // setting, as in text (`"max_token": 4096`, `"auth": 1`).
        Value::Number(n) => {
            let last = words(key).pop().unwrap_or_default();
            let small = n.as_u64().is_some_and(|u| u < 10_000_000);
            if !(small && matches!(last.as_str(), "token" | "auth" | "pat" | "key" | "pass")) {
                *x = Value::String(marker("secret_assignment"));
                counts.add("secret_assignment", 1);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|y| redact_secret(key, y, counts)),
        _ => redact_value(x, counts),
    }
}

/// Redact the keys of an object that are secrets themselves. A redacted key that would
/// collide with another gets a number (`[REDACTED:github_token] 2`): no field is lost.
fn redact_keys(o: &mut serde_json::Map<String, Value>, counts: &mut Redactions) {
    if !o.keys().any(|k| !find(k).is_empty()) {
        return;
    }
    let old = std::mem::take(o);
    for (k, x) in old {
        let mut k = redact_str(&k, counts).unwrap_or(k);
        if o.contains_key(&k) {
            let base = k.clone();
            let mut n = 2;
            while o.contains_key(&k) {
                k = format!("{base} {n}");
                n += 1;
            }
        }
        o.insert(k, x);
    }
}

/// Redact the parts of one message. Adjacent text parts are one text (and adjacent thinking
/// parts another): a response streamed over several records arrives as several parts.
fn redact_parts(parts: &mut [Part], counts: &mut Redactions) {
    let mut i = 0;
    while i < parts.len() {
        let thinking = matches!(parts[i], Part::Thinking { .. });
        if matches!(parts[i], Part::Text { .. } | Part::Thinking { .. }) {
            let mut j = i + 1;
            while j < parts.len()
                && match parts[j] {
                    Part::Text { .. } => !thinking,
                    Part::Thinking { .. } => thinking,
                    _ => false,
                }
            {
                j += 1;
            }
            let mut run: Vec<&mut String> = parts[i..j]
                .iter_mut()
                .filter_map(|p| match p {
                    Part::Text { text } | Part::Thinking { text } => Some(text),
                    _ => None,
                })
                .collect();
            redact_pieces(&mut run, counts);
            i = j;
            continue;
        }
        match &mut parts[i] {
            Part::ToolCall { input, .. } => {
                let mut v = input.to_value();
                redact_value(&mut v, counts);
                *input = v.into();
            }
            Part::ToolResult {
                output,
                attachments,
                ..
            } => {
                redact_string(output, counts);
                redact_parts(attachments, counts);
            }
            Part::Unknown { raw, .. } => redact_value(raw, counts),
            // A URL can carry a token in its query.
            Part::Image { url: Some(url), .. } => redact_string(url, counts),
            // Image data is base64 (never a secret worth scanning, and must stay intact).
            _ => {}
        }
        i += 1;
    }
}

/// Redact a whole session in place and return what was replaced.
pub fn redact_session(s: &mut Session) -> Redactions {
    let mut counts = Redactions::default();
    // A title cut from the first prompt can end inside a secret that only the whole prompt
    // shows (`ghp_R4nd0m…` no longer looks like a token): such a title is cut again from the
    // redacted prompt. Any other title is redacted as it is.
    let from_prompt = s.title.is_some() && s.title == crate::scan::prompt_title(s);
    for m in &mut s.messages {
        redact_parts(&mut m.parts, &mut counts);
        // What the user typed when the agent sent something else (Gemini `displayContent`).
        if let Some(d) = &mut m.display
            && let Some(r) = redact_str(d, &mut counts)
        {
            *d = r.into();
        }
    }
    if from_prompt {
        s.title = crate::scan::prompt_title(s);
    } else if let Some(t) = &mut s.title {
        redact_string(t, &mut counts);
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
mod tests;
