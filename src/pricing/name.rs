//! Model-name normalisation: how a model name recorded in a session, and a key of the price
//! table, become the same canonical name.
//!
//! Both sides go through [`canonical`]:
//!
//! 1. lower case, surrounding blanks trimmed;
//! 2. a bracketed suffix is a client-side option, not a model: `claude-opus-4-6[1m]` →
//!    `claude-opus-4-6`;
//! 3. provider and path prefixes are dropped, keeping what follows the last `/`:
//!    `anthropic/claude-sonnet-4-5`, `models/gemini-2.5-pro`, `gemini/gemini-2.5-pro`,
//!    `vertex_ai/claude-opus-4-5@20251101`, `azure/gpt-5.1`, `openrouter/openai/gpt-5`;
//! 4. Bedrock ids lose their region and vendor prefix and their version suffix:
//!    `us.anthropic.claude-sonnet-4-20250514-v1:0` → `claude-sonnet-4-20250514`;
//! 5. Vertex's `@` before a date becomes `-`: `claude-opus-4-5@20251101` →
//!    `claude-opus-4-5-20251101`.
//!
//! A lookup then tries, in order, the canonical name, the name without a trailing release date
//! (`-20250929`, `-2025-08-07`) or `-latest`, and finally the newest dated entry of an undated
//! name (see `PriceTable::find`). Nothing fuzzier: a near miss such as `gpt-5.3-codex` → `gpt-5`
//! would put a wrong price on real usage, so an unknown model stays unknown (cost `null`).

/// The canonical form of a model name (module docs).
pub fn canonical(name: &str) -> String {
    let mut s = name.trim().to_ascii_lowercase();
    if let Some(i) = s.find('[') {
        s.truncate(i);
    }
    let mut s: &str = s.rsplit('/').next().unwrap_or("");
    // Bedrock: `[region.]anthropic.<model>-v<N>[:<M>]`.
    let bedrock = match s.find("anthropic.") {
        Some(i)
            if s[..i]
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'.' || b == b'-') =>
        {
            s = &s[i + "anthropic.".len()..];
            true
        }
        _ => false,
    };
    let mut out = s.replace('@', "-");
    if bedrock {
        strip_version_suffix(&mut out);
    }
    out.trim().to_string()
}

/// `-v1:0`, `-v2` → removed.
fn strip_version_suffix(s: &mut String) {
    let Some(i) = s.rfind("-v") else { return };
    let tail = &s[i + 2..];
    let mut parts = tail.splitn(2, ':');
    let major = parts.next().unwrap_or("");
    let minor_ok = parts.next().is_none_or(is_digits);
    if is_digits(major) && minor_ok {
        s.truncate(i);
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The canonical name without a trailing release date (`-YYYYMMDD`, `-YYYY-MM-DD`) or
/// `-latest`; `None` when it has neither.
pub fn undated(canonical: &str) -> Option<&str> {
    if let Some(base) = canonical.strip_suffix("-latest") {
        return Some(base);
    }
    // Matched on bytes: a recorded name may hold any character, and a byte offset from the end
    // can fall inside one. The cut itself is before an ASCII `-`, a character boundary.
    let b = canonical.as_bytes();
    let n = b.len();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    // -YYYYMMDD
    if n > 9 && b[n - 9] == b'-' && digits(n - 8..n) && b[n - 8] == b'2' {
        return Some(&canonical[..n - 9]);
    }
    // -YYYY-MM-DD
    if n > 11
        && b[n - 11] == b'-'
        && digits(n - 10..n - 6)
        && b[n - 6] == b'-'
        && digits(n - 5..n - 3)
        && b[n - 3] == b'-'
        && digits(n - 2..n)
    {
        return Some(&canonical[..n - 11]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_where_a_date_would_be_is_no_date() {
        assert_eq!(undated("claude-sonnet-4-5-20\u{fffd}50929"), None);
        assert_eq!(undated("model-2025-\u{e9}9-29"), None);
        assert_eq!(undated("é-20250929"), Some("é"));
        assert_eq!(undated("日本-2025-09-29"), Some("日本"));
    }

    #[test]
    fn canonical_names() {
        let cases = [
            ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"),
            ("Claude-Opus-4-6[1m]", "claude-opus-4-6"),
            ("claude-opus-4-6[1M] ", "claude-opus-4-6"),
            ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
            ("models/gemini-2.5-pro", "gemini-2.5-pro"),
            ("gemini/gemini-3-flash-preview", "gemini-3-flash-preview"),
            (
                "vertex_ai/claude-opus-4-5@20251101",
                "claude-opus-4-5-20251101",
            ),
            (
                "anthropic.claude-sonnet-4-20250514-v1:0",
                "claude-sonnet-4-20250514",
            ),
            (
                "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
                "claude-3-5-sonnet-20241022",
            ),
            (
                "bedrock/us-gov-east-1/claude-sonnet-4-5-20250929-v1:0",
                "claude-sonnet-4-5-20250929-v1:0",
            ),
            ("openrouter/openai/gpt-5", "gpt-5"),
            ("azure/gpt-5.1-codex", "gpt-5.1-codex"),
            ("gpt-5.1-codex-max", "gpt-5.1-codex-max"),
            // Not a Bedrock id: `-v2` stays when there is no `anthropic.` vendor prefix.
            ("my-model-v2", "my-model-v2"),
            ("", ""),
        ];
        for (raw, want) in cases {
            assert_eq!(canonical(raw), want, "{raw}");
        }
    }

    #[test]
    fn dates_and_latest_are_stripped() {
        assert_eq!(
            undated("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(undated("gpt-5-2025-08-07"), Some("gpt-5"));
        assert_eq!(
            undated("claude-3-7-sonnet-latest"),
            Some("claude-3-7-sonnet")
        );
        assert_eq!(undated("claude-opus-4-6"), None);
        assert_eq!(undated("gemini-2.5-flash"), None);
        // Eight digits that are not a date of this millennium are kept.
        assert_eq!(undated("model-12345678"), None);
        assert_eq!(undated("-20250929"), None);
    }
}
