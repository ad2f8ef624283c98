//! `pruneContextMessages` (OpenClaw `pi-extensions/context-pruning/pruner.ts`, Jan–Feb 2026),
//! ported literally over whole message lists: the reference the incremental replay is tested
//! against, and what the hand-computed vectors exercise.

use std::borrow::Cow;
use std::collections::HashSet;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::replay::pi::js::{json_len, len16};
use crate::replay::pi::message::{AgentMessage, Block, Content};
use crate::replay::settings::Settings;

/// `CHARS_PER_TOKEN_ESTIMATE`: `charWindow = contextWindowTokens × 4`.
pub const CHARS_PER_TOKEN: u64 = 4;
/// `IMAGE_CHAR_ESTIMATE`: an image block in a user or toolResult message.
pub const IMAGE_CHARS: u64 = 8_000;
/// Any role other than user, assistant and toolResult.
pub const OTHER_ROLE_CHARS: u64 = 256;
/// A tool call whose arguments cannot be serialised (never happens with JSON input).
pub const UNSERIALISABLE_ARGS_CHARS: u64 = 128;
/// `hardClear.placeholder` default.
pub const DEFAULT_PLACEHOLDER: &str = "[Old tool result content cleared]";
/// `MAX_PROTECTED_IMAGE_RESULTS` of the later revision (#41789).
pub const PROTECTED_IMAGE_RESULTS: usize = 3;

/// `EffectiveContextPruningSettings` (minus mode, ttl and tools).
#[derive(Debug, Clone, PartialEq)]
pub struct PruneSettings {
    pub keep_last_assistants: usize,
    pub soft_trim_ratio: f64,
    pub hard_clear_ratio: f64,
    pub min_prunable_tool_chars: u64,
    pub soft_trim_max_chars: u64,
    pub soft_trim_head_chars: u64,
    pub soft_trim_tail_chars: u64,
    pub hard_clear: bool,
    pub placeholder: String,
    /// The later revision: only this many newest image-bearing results in range are protected
    /// and older ones can be hard-cleared. `None`: the Feb behaviour, images never touched.
    pub protected_image_results: Option<usize>,
}

impl Default for PruneSettings {
    /// `DEFAULT_CONTEXT_PRUNING_SETTINGS`.
    fn default() -> Self {
        PruneSettings {
            keep_last_assistants: 3,
            soft_trim_ratio: 0.3,
            hard_clear_ratio: 0.5,
            min_prunable_tool_chars: 50_000,
            soft_trim_max_chars: 4_000,
            soft_trim_head_chars: 1_500,
            soft_trim_tail_chars: 1_500,
            hard_clear: true,
            placeholder: DEFAULT_PLACEHOLDER.into(),
            protected_image_results: None,
        }
    }
}

impl PruneSettings {
    /// From the `--set` settings (`computeEffectiveSettings` normalisation: the spec ranges already
    /// clamp ratios to [0, 1] and integers to ≥ 0; a blank placeholder keeps the default).
    pub fn from_settings(s: &Settings) -> PruneSettings {
        let placeholder = s.text("hard_clear_placeholder").trim();
        PruneSettings {
            keep_last_assistants: s.int("keep_last_assistants") as usize,
            soft_trim_ratio: s.num("soft_trim_ratio"),
            hard_clear_ratio: s.num("hard_clear_ratio"),
            min_prunable_tool_chars: s.int("min_prunable_tool_chars"),
            soft_trim_max_chars: s.int("soft_trim_max_chars"),
            soft_trim_head_chars: s.int("soft_trim_head_chars"),
            soft_trim_tail_chars: s.int("soft_trim_tail_chars"),
            hard_clear: s.flag("hard_clear"),
            placeholder: if placeholder.is_empty() {
                DEFAULT_PLACEHOLDER.into()
            } else {
                placeholder.into()
            },
            protected_image_results: s
                .flag("prune_old_images")
                .then(|| s.int("protected_image_results") as usize),
        }
    }

    /// Length of the soft-trimmed text of a result whose joined text is `raw_len` chars, when it
    /// is trimmed (`raw_len > maxChars` and `head + tail < raw_len`): head + `"\n...\n"` + tail +
    /// the note.
    pub fn trimmed_len(&self, raw_len: u64) -> Option<u64> {
        let (h, t) = (self.soft_trim_head_chars, self.soft_trim_tail_chars);
        (raw_len > self.soft_trim_max_chars && h + t < raw_len)
            .then(|| h + 5 + t + note(h, t, raw_len).len() as u64)
    }
}

fn note(h: u64, t: u64, raw_len: u64) -> String {
    format!(
        "\n\n[Tool result trimmed: kept first {h} chars and last {t} chars of {raw_len} chars.]"
    )
}

/// `estimateMessageChars`.
pub fn estimate_message_chars(m: &AgentMessage<'_>) -> u64 {
    let blocks = |c: &Content<'_>| -> u64 {
        match c {
            // `for (const b of content)` over a string visits characters, none of which is a block.
            Content::Str(_) => 0,
            Content::Blocks(b) => b
                .iter()
                .map(|b| match b {
                    Block::Image => IMAGE_CHARS,
                    b => b.text_len().unwrap_or(0) as u64,
                })
                .sum(),
        }
    };
    match m {
        AgentMessage::User { content } => match content {
            Content::Str(s) => len16(s) as u64,
            c => blocks(c),
        },
        AgentMessage::Assistant { content, .. } => content
            .iter()
            .map(|b| match b {
                Block::Text(t) | Block::Thinking(t) => len16(t) as u64,
                Block::Measured(n) => *n as u64,
                // JSON.stringify(arguments ?? {}): null arguments count as {}.
                Block::ToolCall { arguments, .. } => {
                    if arguments.is_null() {
                        2
                    } else {
                        json_len(arguments.tree()) as u64
                    }
                }
                Block::Image => 0,
            })
            .sum(),
        AgentMessage::ToolResult { content, .. } => blocks(content),
        _ => OTHER_ROLE_CHARS,
    }
}

/// The text blocks of a tool result and `estimateJoinedTextLength` (joined with `"\n"`).
pub fn joined_len(content: &Content<'_>) -> u64 {
    let (chars, parts) = match content {
        Content::Str(_) => (0, 0),
        Content::Blocks(b) => b
            .iter()
            .filter_map(Block::text_len)
            .fold((0u64, 0u64), |(c, n), len| (c + len as u64, n + 1)),
    };
    chars + parts.saturating_sub(1)
}

/// The text blocks of a tool result, for the literal port, which rewrites text: it runs on
/// messages built from text, never on measured ones.
fn text_parts<'c>(content: &'c Content<'_>) -> Vec<&'c str> {
    match content {
        Content::Str(_) => Vec::new(),
        Content::Blocks(b) => b
            .iter()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t.as_ref()),
                Block::Measured(_) => {
                    debug_assert!(false, "the literal pruner given a measured text");
                    None
                }
                _ => None,
            })
            .collect(),
    }
}

/// `takeHeadFromJoinedText`, in UTF-16 units (a surrogate pair cut in half becomes U+FFFD, one
/// unit, where JavaScript keeps a lone surrogate: the length is the same).
fn take_head(parts: &[&str], max: u64) -> String {
    let mut remaining = max as usize;
    let mut out: Vec<u16> = Vec::new();
    if remaining == 0 || parts.is_empty() {
        return String::new();
    }
    for (i, p) in parts.iter().enumerate() {
        if remaining == 0 {
            break;
        }
        if i > 0 {
            out.push(u16::from(b'\n'));
            remaining -= 1;
            if remaining == 0 {
                break;
            }
        }
        let u: Vec<u16> = p.encode_utf16().collect();
        if u.len() <= remaining {
            remaining -= u.len();
            out.extend(u);
        } else {
            out.extend(&u[..remaining]);
            remaining = 0;
        }
    }
    String::from_utf16_lossy(&out)
}

/// `takeTailFromJoinedText`.
fn take_tail(parts: &[&str], max: u64) -> String {
    let mut remaining = max as usize;
    if remaining == 0 || parts.is_empty() {
        return String::new();
    }
    let mut out: Vec<Vec<u16>> = Vec::new();
    for i in (0..parts.len()).rev() {
        if remaining == 0 {
            break;
        }
        let u: Vec<u16> = parts[i].encode_utf16().collect();
        if u.len() <= remaining {
            remaining -= u.len();
            out.push(u);
        } else {
            out.push(u[u.len() - remaining..].to_vec());
            break;
        }
        if remaining > 0 && i > 0 {
            out.push(vec![u16::from(b'\n')]);
            remaining -= 1;
        }
    }
    out.reverse();
    String::from_utf16_lossy(&out.concat())
}

/// `softTrimToolResultMessage`: the new single text of a trimmed result, if it is trimmed.
pub fn soft_trim_text(content: &Content<'_>, s: &PruneSettings) -> Option<String> {
    if content.has_image() {
        return None;
    }
    let parts = text_parts(content);
    let raw = joined_len(content);
    s.trimmed_len(raw)?;
    let (h, t) = (s.soft_trim_head_chars, s.soft_trim_tail_chars);
    Some(format!(
        "{}\n...\n{}{}",
        take_head(&parts, h),
        take_tail(&parts, t),
        note(h, t, raw)
    ))
}

/// What a prune changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Pruned<'a> {
    pub messages: Vec<AgentMessage<'a>>,
    /// Indices replaced by a soft-trimmed copy (in order).
    pub trimmed: Vec<usize>,
    /// Indices replaced by the placeholder (in order; a trimmed result can be cleared too).
    pub cleared: Vec<usize>,
    pub chars_before: u64,
    pub chars_after: u64,
}

fn with_text<'a>(m: &AgentMessage<'a>, text: String) -> AgentMessage<'a> {
    match m {
        AgentMessage::ToolResult {
            tool_name,
            is_error,
            ..
        } => AgentMessage::ToolResult {
            tool_name: tool_name.clone(),
            content: Content::Blocks(vec![Block::Text(Cow::Owned(text))]),
            is_error: *is_error,
        },
        other => other.clone(),
    }
}

/// A tool result's name (`""` when unknown) and content.
fn tool<'m>(m: &'m AgentMessage<'_>) -> Option<(&'m str, &'m Content<'m>)> {
    match m {
        AgentMessage::ToolResult {
            tool_name, content, ..
        } => Some((tool_name.as_deref().unwrap_or(""), content)),
        _ => None,
    }
}

/// `pruneContextMessages`: `None` when it returns the input array unchanged (nothing trimmed
/// or cleared), else the pruned copy. `is_prunable` gets the tool name (`""` when unknown).
pub fn prune_context_messages<'a>(
    messages: &[AgentMessage<'a>],
    s: &PruneSettings,
    context_window_tokens: u64,
    is_prunable: &dyn Fn(&str) -> bool,
) -> Option<Pruned<'a>> {
    let char_window = context_window_tokens * CHARS_PER_TOKEN;
    if char_window == 0 {
        return None;
    }
    let cutoff = if s.keep_last_assistants == 0 {
        messages.len()
    } else {
        let mut remaining = s.keep_last_assistants;
        let mut found = None;
        for i in (0..messages.len()).rev() {
            if matches!(messages[i], AgentMessage::Assistant { .. }) {
                remaining -= 1;
                if remaining == 0 {
                    found = Some(i);
                    break;
                }
            }
        }
        found?
    };
    let start = messages
        .iter()
        .position(|m| matches!(m, AgentMessage::User { .. }))
        .unwrap_or(messages.len());
    let chars_before: u64 = messages.iter().map(estimate_message_chars).sum();
    let mut total = chars_before as i64;
    let ratio = |total: i64| total as f64 / char_window as f64;
    if ratio(total) < s.soft_trim_ratio {
        return None;
    }
    let protected: HashSet<usize> = match s.protected_image_results {
        None => HashSet::new(),
        Some(k) => {
            let images: Vec<usize> = (start..cutoff)
                .filter(|&i| {
                    tool(&messages[i]).is_some_and(|(n, c)| is_prunable(n) && c.has_image())
                })
                .collect();
            images[images.len().saturating_sub(k)..]
                .iter()
                .copied()
                .collect()
        }
    };
    let mut prunable = Vec::new();
    let mut next: Option<Vec<AgentMessage<'a>>> = None;
    let mut trimmed = Vec::new();
    for i in start..cutoff {
        let Some((name, content)) = tool(&messages[i]) else {
            continue;
        };
        if !is_prunable(name) {
            continue;
        }
        if content.has_image() && (s.protected_image_results.is_none() || protected.contains(&i)) {
            continue;
        }
        prunable.push(i);
        let Some(text) = soft_trim_text(content, s) else {
            continue;
        };
        let updated = with_text(&messages[i], text);
        total +=
            estimate_message_chars(&updated) as i64 - estimate_message_chars(&messages[i]) as i64;
        next.get_or_insert_with(|| messages.to_vec())[i] = updated;
        trimmed.push(i);
    }
    let done = |next: Option<Vec<AgentMessage<'a>>>, trimmed, cleared, total: i64| {
        next.map(|messages| Pruned {
            messages,
            trimmed,
            cleared,
            chars_before,
            chars_after: total as u64,
        })
    };
    if ratio(total) < s.hard_clear_ratio || !s.hard_clear {
        return done(next, trimmed, Vec::new(), total);
    }
    let current = |next: &Option<Vec<AgentMessage<'a>>>, i: usize| -> u64 {
        estimate_message_chars(next.as_ref().map_or(&messages[i], |n| &n[i]))
    };
    let prunable_chars: u64 = prunable.iter().map(|&i| current(&next, i)).sum();
    if prunable_chars < s.min_prunable_tool_chars {
        return done(next, trimmed, Vec::new(), total);
    }
    let mut cleared = Vec::new();
    for &i in &prunable {
        if ratio(total) < s.hard_clear_ratio {
            break;
        }
        let before = current(&next, i);
        let n = next.get_or_insert_with(|| messages.to_vec());
        n[i] = with_text(&n[i], s.placeholder.clone());
        total += estimate_message_chars(&n[i]) as i64 - before as i64;
        cleared.push(i);
    }
    done(next, trimmed, cleared, total)
}

/// The tool allow/deny predicate (`makeToolPrunablePredicate`): patterns and names are trimmed
/// and lower-cased; `*` matches everything, a pattern without `*` must be equal, otherwise `*` is
/// a wildcard and every other character literal (globset, case-insensitive). Deny wins; an empty
/// allow list allows every tool.
#[derive(Debug, Clone)]
pub struct ToolMatcher {
    deny: Patterns,
    allow: Patterns,
}

#[derive(Debug, Clone, Default)]
struct Patterns {
    any: bool,
    exact: HashSet<String>,
    globs: Option<GlobSet>,
}

impl Patterns {
    /// Comma-separated patterns.
    fn parse(list: &str) -> Patterns {
        let mut p = Patterns::default();
        let mut globs = GlobSetBuilder::new();
        let mut n = 0;
        for raw in list.split(',') {
            let pat = raw.trim().to_lowercase();
            if pat.is_empty() {
                continue;
            }
            if pat == "*" {
                p.any = true;
            } else if !pat.contains('*') {
                p.exact.insert(pat);
            } else {
                // Literal pieces between wildcards; runs of `*` are one `.*`.
                let pieces: Vec<String> = pat.split('*').map(globset::escape).collect();
                let mut glob = String::new();
                for (k, piece) in pieces.iter().enumerate() {
                    if k > 0 && !glob.ends_with('*') {
                        glob.push('*');
                    }
                    glob.push_str(piece);
                }
                match GlobBuilder::new(&glob)
                    .case_insensitive(true)
                    .literal_separator(false)
                    .backslash_escape(false)
                    .build()
                {
                    Ok(g) => {
                        globs.add(g);
                        n += 1;
                    }
                    Err(_) => {
                        p.exact.insert(pat);
                    }
                }
            }
        }
        if n > 0 {
            p.globs = globs.build().ok();
        }
        p
    }

    fn is_empty(&self) -> bool {
        !self.any && self.exact.is_empty() && self.globs.is_none()
    }

    fn matches(&self, name: &str) -> bool {
        self.any
            || self.exact.contains(name)
            || self.globs.as_ref().is_some_and(|g| g.is_match(name))
    }
}

impl ToolMatcher {
    pub fn new(allow: &str, deny: &str) -> ToolMatcher {
        ToolMatcher {
            allow: Patterns::parse(allow),
            deny: Patterns::parse(deny),
        }
    }

    pub fn is_prunable(&self, tool_name: &str) -> bool {
        let name = tool_name.trim().to_lowercase();
        if self.deny.matches(&name) {
            return false;
        }
        self.allow.is_empty() || self.allow.matches(&name)
    }
}
