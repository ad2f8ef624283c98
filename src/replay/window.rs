//! Context windows (and maximum output, which Claude Code's threshold uses) by model name,
//! from the tables in the replay specs. An unknown model falls back to a documented default per
//! algorithm, and the replay says so.

/// What a model's limits are and where the figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Limits {
    pub context_window: u64,
    pub max_output: u64,
    pub source: WindowSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowSource {
    /// `--context-window`.
    Override,
    /// The session recorded it (Codex `model_context_window`).
    Recorded,
    /// Known model, from the spec tables.
    Model,
    /// Unknown or missing model: the algorithm's default.
    Default,
}

/// Claude models: 200k context (1M for `[1m]` / `-1m` variants); maximum output per family.
fn claude(model: &str) -> Option<(u64, u64)> {
    let m = model.to_ascii_lowercase();
    if !m.starts_with("claude") {
        return None;
    }
    let window = if m.contains("[1m]") || m.ends_with("-1m") {
        1_000_000
    } else {
        200_000
    };
    // Claude 3.x models write at most 8k (3.7 Sonnet: 64k); Opus 4.0/4.1 32k; later models 64k.
    let old = [
        "haiku-3",
        "3-haiku",
        "3-5-haiku",
        "3-5-sonnet",
        "sonnet-3",
        "3-opus",
    ];
    let max_out = if old.iter().any(|o| m.contains(o)) {
        8_192
    } else if m.contains("opus-4-1")
        || m.contains("opus-4-0")
        || m.starts_with("claude-opus-4-2025")
    {
        32_000
    } else {
        64_000
    };
    Some((window, max_out))
}

/// Codex / OpenAI models.
fn openai(model: &str) -> Option<(u64, u64)> {
    let m = model.to_ascii_lowercase();
    // codex-mini-latest is an o4-mini: its rule must come before any `codex`.
    if m.starts_with("o3")
        || m.starts_with("o4")
        || m.starts_with("o1")
        || m.starts_with("codex-mini-latest")
    {
        Some((200_000, 100_000))
    } else if m.starts_with("gpt-5") || m.contains("codex") {
        Some((272_000, 128_000))
    } else if m.starts_with("gpt-4.1") {
        Some((1_047_576, 32_768))
    } else if m.starts_with("gpt-4o") {
        Some((128_000, 16_384))
    } else {
        None
    }
}

/// Gemini `tokenLimit(model)` (gemini-compression.md §2.2): 1,048,576 for every current model,
/// 256,000 for Gemma 4, and the pre-v0.25 entries.
fn gemini(model: &str) -> Option<(u64, u64)> {
    let m = model.to_ascii_lowercase();
    if m.starts_with("gemma-4") {
        Some((256_000, 8_192))
    } else if m.starts_with("gemini-1.5-pro") {
        Some((2_097_152, 8_192))
    } else if m.starts_with("gemini") {
        Some((1_048_576, 65_536))
    } else {
        None
    }
}

/// Look a model up in every table.
pub fn lookup(model: Option<&str>) -> Option<(u64, u64)> {
    let m = model?;
    claude(m).or_else(|| openai(m)).or_else(|| gemini(m))
}

/// Resolve limits: the override, else the recorded window, else the model table, else the
/// algorithm's default.
pub fn resolve(
    model: Option<&str>,
    recorded_window: Option<u64>,
    override_window: Option<u64>,
    default: (u64, u64),
) -> Limits {
    let known = lookup(model);
    let max_output = known.map_or(default.1, |k| k.1);
    if let Some(w) = override_window {
        return Limits {
            context_window: w,
            max_output,
            source: WindowSource::Override,
        };
    }
    if let Some(w) = recorded_window.filter(|w| *w > 0) {
        return Limits {
            context_window: w,
            max_output,
            source: WindowSource::Recorded,
        };
    }
    match known {
        Some((w, o)) => Limits {
            context_window: w,
            max_output: o,
            source: WindowSource::Model,
        },
        None => Limits {
            context_window: default.0,
            max_output: default.1,
            source: WindowSource::Default,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        assert_eq!(
            lookup(Some("claude-3-7-sonnet-20250219")),
            Some((200_000, 64_000))
        );
        assert_eq!(
            lookup(Some("claude-3-5-sonnet-20241022")),
            Some((200_000, 8_192))
        );
        assert_eq!(
            lookup(Some("claude-opus-4-1-20250805")),
            Some((200_000, 32_000))
        );
        assert_eq!(
            lookup(Some("claude-sonnet-4-5-20250929")),
            Some((200_000, 64_000))
        );
        assert_eq!(lookup(Some("gpt-5-codex")), Some((272_000, 128_000)));
        assert_eq!(lookup(Some("codex-mini-latest")).unwrap().0, 200_000);
        assert_eq!(lookup(Some("gemini-2.5-pro")).unwrap().0, 1_048_576);
        assert_eq!(lookup(Some("gemma-4-31b-it")).unwrap().0, 256_000);
        assert_eq!(lookup(Some("mystery")), None);
        let l = resolve(Some("mystery"), None, None, (200_000, 32_000));
        assert_eq!(l.source, WindowSource::Default);
        let l = resolve(Some("gpt-5"), Some(258_400), None, (0, 0));
        assert_eq!(
            (l.context_window, l.source),
            (258_400, WindowSource::Recorded)
        );
        let l = resolve(Some("gpt-5"), Some(258_400), Some(100_000), (0, 0));
        assert_eq!(
            (l.context_window, l.source),
            (100_000, WindowSource::Override)
        );
    }
}
