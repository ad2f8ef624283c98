//! Tool calls and their results: a shell command as an `sh` block, an edit (Claude
//! `Edit`/`MultiEdit`/`Write`, Codex `apply_patch`, Gemini `replace`/`write_file`) as a unified
//! diff, other arguments as pretty JSON with multi-line fields in their own blocks; each result
//! verbatim in a fenced block under its call, cut to `--max-output-lines`.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

use super::cmark::{blockquote, details_into, fence_into, inline};
use super::prose::{destination, safe_url};
use super::{Document, ImageMode};
use crate::model::{Part, media_kind};
use crate::render::{human_bytes, plural, thousands};

impl Document<'_, '_> {
    pub(super) fn tool_call(
        &self,
        out: &mut String,
        mi: usize,
        id: &str,
        name: &str,
        input: &Value,
    ) {
        let results = self.index.results_of(id, mi);
        let failed = results.iter().any(|&(mi, pi)| {
            matches!(
                self.s.messages[mi].parts.get(pi),
                Some(Part::ToolResult { is_error: true, .. })
            )
        });
        let status = if results.is_empty() {
            " · no result recorded"
        } else if failed {
            " · ✗ failed"
        } else {
            ""
        };
        let _ = write!(
            out,
            "**Tool call: {}**{} · {}\n\n",
            inline(name),
            status,
            inline(id)
        );
        self.arguments(out, name, input);
        for range in self.runs.get(&(id, mi)).map(Vec::as_slice).unwrap_or(&[]) {
            let _ = write!(
                out,
                "**Sub-agent conversation** ({}, recorded inline)\n\n",
                plural(range.len(), "message")
            );
            out.push_str(&blockquote(&self.run(range.clone())));
        }
        for l in self.index.links.get(id).map(Vec::as_slice).unwrap_or(&[]) {
            out.push_str(&self.child(&l.id, Some(l)));
        }
        for &(mi, pi) in results {
            if let Some(Part::ToolResult {
                output,
                is_error,
                attachments,
                ..
            }) = self.s.messages[mi].parts.get(pi)
            {
                self.result(out, output, *is_error, attachments);
            }
        }
    }

    /// A shell command as an `sh` block; other arguments as pretty JSON, with multi-line string
    /// fields (file contents, edits) pulled out into their own blocks.
    pub(super) fn arguments(&self, out: &mut String, name: &str, input: &Value) {
        if let Some(edit) = edit_diff(name, input) {
            self.code(out, "diff", &edit.diff);
            if !edit.rest.is_empty() {
                self.code(out, "json", &pretty(&edit.rest));
            }
            return;
        }
        if let Some((cmd, rest)) = shell_command(name, input) {
            self.code(out, "sh", &cmd);
            if !rest.is_empty() {
                self.code(out, "json", &pretty(&rest));
            }
            return;
        }
        match input {
            Value::Null => {}
            Value::String(s) => self.code(out, "text", s),
            Value::Object(o) => {
                let short = Rest {
                    map: Some(o),
                    hide: Hide::MultiLine,
                };
                if !short.is_empty() {
                    self.code(out, "json", &pretty(&short));
                }
                for (k, v) in o {
                    if let Some(text) = multi_line(v) {
                        let _ = write!(out, "*{}:*\n\n", inline(k));
                        self.code(out, "text", text);
                    }
                }
            }
            v => self.code(out, "json", &pretty(v)),
        }
    }

    /// A fenced block cut to `--max-output-lines`, with a note of what was cut, appended to
    /// `out`.
    pub(super) fn code(&self, out: &mut String, info: &str, text: &str) {
        let (kept, cut) = cut_lines(text, self.env.opts.max_output_lines);
        fence_into(out, info, kept);
        if let Some((lines, bytes)) = cut {
            let _ = write!(
                out,
                "*{}*\n\n",
                inline(&format!(
                    "… {} more {} ({}) cut by --max-output-lines {}",
                    thousands(lines as u64),
                    lines_word(lines),
                    human_bytes(bytes as u64),
                    self.env.opts.max_output_lines
                ))
            );
        }
    }

    pub(super) fn cut_note(&self, text: &str) -> String {
        let (kept, cut) = cut_lines(text, self.env.opts.max_output_lines);
        match cut {
            None => kept.to_string(),
            Some((lines, _)) => format!(
                "{kept}\n… {} more {} cut",
                thousands(lines as u64),
                lines_word(lines)
            ),
        }
    }

    /// A tool's result, appended to `out`: its output and attachments in a `<details>` block.
    pub(super) fn result(
        &self,
        out: &mut String,
        output: &str,
        is_error: bool,
        attachments: &[Part],
    ) {
        let what = if is_error { "✗ Error" } else { "Result" };
        let has_output = !output.trim().is_empty();
        if !has_output && attachments.is_empty() {
            let _ = write!(out, "*{}*\n\n", inline(&format!("{what}: no output")));
            return;
        }
        let total = line_count(output);
        let mut facts = vec![what.to_string()];
        if total > 0 {
            facts.push(plural(total, "line"));
        }
        if !attachments.is_empty() {
            facts.push(plural(attachments.len(), "attachment"));
        }
        details_into(out, &facts.join(" · "), is_error, |body| {
            if has_output {
                self.code(body, "text", output);
            }
            for a in attachments {
                match a {
                    Part::Image {
                        media_type,
                        bytes,
                        data,
                        url,
                    } => body.push_str(&self.image(
                        media_type.as_deref(),
                        *bytes,
                        data.as_deref(),
                        url.as_deref(),
                    )),
                    Part::Unknown { kind, raw } if kind == "document" => {
                        body.push_str(&self.document(raw));
                    }
                    Part::Text { text } => self.code(body, "text", text),
                    other => self.code(body, "json", &pretty(&serde_json::json!(other))),
                }
            }
        });
    }

    pub(super) fn image(
        &self,
        media_type: Option<&str>,
        bytes: Option<u64>,
        data: Option<&str>,
        url: Option<&str>,
    ) -> String {
        let placeholder = self.media(media_kind(media_type), None, media_type, bytes, data);
        let Some(url) = url.filter(|_| data.is_none()) else {
            return placeholder;
        };
        let label = placeholder.trim_end();
        // A web address is a link, never an inline image: the page fetches nothing (its CSP
        // allows only images written next to it), and the reader decides whether to follow it.
        let u = url.trim_start().to_ascii_lowercase();
        if safe_url(url) && (u.starts_with("http://") || u.starts_with("https://")) {
            let text = label
                .strip_prefix("\\[")
                .and_then(|l| l.strip_suffix("\\]"))
                .unwrap_or(label);
            // The target after the link, as message links show theirs: the reader sees
            // where it points without following it.
            format!(
                "[{text}]({}) {}\n\n",
                destination(url),
                inline(&format!("({url})"))
            )
        } else {
            format!("{label} {}\n\n", inline(&format!("({url})")))
        }
    }

    /// A Claude `document` block (a PDF, or plain text, as the model read it; kept as
    /// [`Part::Unknown`]) as a placeholder like an image's: its base64 body, on one line, would
    /// otherwise fill the export and escape `--max-output-lines`.
    pub(super) fn document(&self, raw: &Value) -> String {
        let source = raw.get("source");
        let field = |k: &str| source.and_then(|s| s.get(k)).and_then(Value::as_str);
        let media_type = field("media_type");
        let (bytes, data) = match (field("type"), field("data")) {
            (Some("base64"), Some(d)) => (Some(crate::parse::base64_decoded_len(d)), Some(d)),
            (Some("text"), Some(d)) => (Some(d.len() as u64), None),
            _ => (None, None),
        };
        // A title is one line of the placeholder, whatever the file put in it.
        let title = raw
            .get("title")
            .and_then(Value::as_str)
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty());
        self.media("document", title.as_deref(), media_type, bytes, data)
    }

    fn media(
        &self,
        kind: &str,
        title: Option<&str>,
        media_type: Option<&str>,
        bytes: Option<u64>,
        data: Option<&str>,
    ) -> String {
        let title = title.map(|t| format!("{t} · ")).unwrap_or_default();
        let desc = format!(
            "{kind}: {title}{} · {}",
            media_type.unwrap_or("unknown type"),
            bytes
                .map(human_bytes)
                .unwrap_or_else(|| "size unknown".into())
        );
        if self.env.opts.images == ImageMode::Extract
            && let (Some(data), Some(assets)) = (data, self.env.assets.borrow_mut().as_mut())
        {
            match assets.write(media_type, data) {
                // Only an image is shown inline; a PDF or a recording is a link to its file.
                Ok(rel) => {
                    let bang = if kind == "image" { "!" } else { "" };
                    return format!("{bang}[{}](<{}>)\n\n", inline(&desc), rel);
                }
                Err(e) => self.env.notes.borrow_mut().push(e),
            }
        }
        format!("{}\n\n", inline(&format!("[{desc}]")))
    }
}

/// The command of a shell tool (Claude `Bash`, Codex `shell`/`exec_command`/`shell_command`,
/// Gemini `run_shell_command`), and the other arguments.
pub fn shell_command<'a>(name: &str, input: &'a Value) -> Option<(Cow<'a, str>, Rest<'a>)> {
    let n = name.to_ascii_lowercase();
    let shell = n.contains("bash")
        || n.contains("shell")
        || n == "exec_command"
        || n == "exec"
        || n.ends_with(".exec");
    if !shell {
        return None;
    }
    let o = input.as_object()?;
    // The key as the list of keys its `Rest` leaves out.
    let key: &'static [&'static str] = [&["command"], &["cmd"]]
        .into_iter()
        .find(|k| o.contains_key(k[0]))?;
    let cmd = match &o[key[0]] {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        Value::Array(a) => {
            let words: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
            if words.len() != a.len() {
                return None;
            }
            match words.as_slice() {
                [sh, flag, script]
                    if sh.ends_with("sh") && matches!(*flag, "-c" | "-lc" | "-ic") =>
                {
                    Cow::Borrowed(*script)
                }
                _ => Cow::Owned(
                    words
                        .iter()
                        .map(|w| shell_quote(w))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            }
        }
        _ => return None,
    };
    Some((
        cmd,
        Rest {
            map: Some(o),
            hide: Hide::Keys(key),
        },
    ))
}

/// The arguments of a call that its rendering did not show otherwise, in the object's order,
/// serialised as an object. Borrowed, not copied: an edit's arguments hold whole files.
pub struct Rest<'a> {
    map: Option<&'a serde_json::Map<String, Value>>,
    hide: Hide,
}

/// A string argument of several lines (a file's content, an edit): shown in a block of its
/// own rather than inside the JSON of the other arguments.
fn multi_line(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| s.contains('\n'))
}

/// Which entries a [`Rest`] leaves out.
#[derive(Clone, Copy)]
enum Hide {
    /// These keys: the ones a diff or a command shows.
    Keys(&'static [&'static str]),
    /// Strings of several lines: each gets a block of its own.
    MultiLine,
}

impl<'a> Rest<'a> {
    fn entries(&self) -> impl Iterator<Item = (&'a String, &'a Value)> {
        let hide = self.hide;
        self.map
            .into_iter()
            .flatten()
            .filter(move |(k, v)| match hide {
                Hide::Keys(keys) => !keys.contains(&k.as_str()),
                Hide::MultiLine => multi_line(v).is_none(),
            })
    }

    pub fn is_empty(&self) -> bool {
        self.entries().next().is_none()
    }

    /// The keys it holds (what the tests check).
    #[cfg(test)]
    pub fn keys(&self) -> impl Iterator<Item = &'a String> {
        self.entries().map(|(k, _)| k)
    }
}

impl serde::Serialize for Rest<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.entries())
    }
}

fn shell_quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// `v` as indented JSON. Serialising a value, or a map of values under string keys, cannot
/// fail, so the fallback (an empty string) is never taken.
pub(super) fn pretty<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn lines_word(n: usize) -> &'static str {
    if n == 1 { "line" } else { "lines" }
}

/// The line breaks of `text` as the export renders it ([`super::cmark::normalize`], as
/// CommonMark reads it): `\n`, `\r\n` and a lone `\r` each end a line. Each as the range it
/// takes.
fn line_breaks(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let b = text.as_bytes();
    // Tool outputs run to megabytes: a vectorised search.
    memchr::memchr2_iter(b'\r', b'\n', b).filter_map(move |i| match b[i] {
        b'\n' if i > 0 && b[i - 1] == b'\r' => None,
        b'\r' if b.get(i + 1) == Some(&b'\n') => Some((i, i + 2)),
        _ => Some((i, i + 1)),
    })
}

/// The lines of `text` as the export shows them (see `line_breaks`).
pub fn line_count(text: &str) -> usize {
    let b = text.as_bytes();
    if memchr::memchr(b'\r', b).is_none() {
        // Nearly every output: only `\n` ends its lines.
        return crate::render::text::line_count(text);
    }
    line_count_at_breaks(text)
}

/// [`line_count`] from [`line_breaks`], whatever ends the lines.
fn line_count_at_breaks(text: &str) -> usize {
    let mut lines = 0;
    let mut last = 0;
    for (_, end) in line_breaks(text) {
        lines += 1;
        last = end;
    }
    lines + usize::from(last < text.len())
}

/// The first `max` lines of `text` (all of it when `max` is 0), and what was cut: lines and
/// bytes. Lines as the export shows them (see `line_breaks`).
pub fn cut_lines(text: &str, max: usize) -> (&str, Option<(usize, usize)>) {
    if max == 0 {
        return (text, None);
    }
    let b = text.as_bytes();
    // Nearly every output has no `\r`: its `max`-th line break is its `max`-th `\n`, found
    // without looking at each break's neighbours.
    let at = match memchr::memchr(b'\r', b) {
        None => memchr::memchr_iter(b'\n', b)
            .nth(max - 1)
            .map(|i| (i, i + 1)),
        Some(_) => line_breaks(text).nth(max - 1),
    };
    let Some((start, end)) = at else {
        return (text, None);
    };
    let rest = &text[end..];
    if rest.trim().is_empty() {
        return (text, None);
    }
    (&text[..start], Some((line_count(rest), rest.len())))
}

/// An edit tool call shown as a diff, and the arguments the diff does not show.
pub struct EditDiff<'a> {
    pub diff: String,
    pub rest: Rest<'a>,
}

/// A unified diff for the edit tools of the three agents: Claude `Edit` and `MultiEdit`
/// (`old_string` → `new_string`), `Write` and Gemini `write_file` (the whole new content),
/// Gemini `replace`, and Codex `apply_patch` (its patch format, with unified-diff file
/// headers). `None` for any other call, or when the arguments do not have the expected shape.
pub fn edit_diff<'a>(name: &str, input: &'a Value) -> Option<EditDiff<'a>> {
    let str_of = |o: &'a serde_json::Map<String, Value>, k: &str| o.get(k).and_then(Value::as_str);
    let (diff, shown): (String, &'static [&'static str]) = match name {
        "Edit" | "replace" | "MultiEdit" | "Write" | "write_file" => {
            let o = input.as_object()?;
            let path = str_of(o, "file_path").or_else(|| str_of(o, "path"))?;
            match name {
                "Edit" | "replace" => {
                    let old = str_of(o, "old_string")?;
                    let new = str_of(o, "new_string")?;
                    (
                        file_diff(path, Some(old), new),
                        &["file_path", "path", "old_string", "new_string"],
                    )
                }
                "MultiEdit" => {
                    let edits = o.get("edits")?.as_array()?;
                    let mut d = String::new();
                    for e in edits {
                        let e = e.as_object()?;
                        d.push_str(&file_diff(
                            path,
                            Some(str_of(e, "old_string")?),
                            str_of(e, "new_string")?,
                        ));
                    }
                    (d, &["file_path", "path", "edits"])
                }
                _ => {
                    let content = str_of(o, "content")?;
                    (
                        file_diff(path, None, content),
                        &["file_path", "path", "content"],
                    )
                }
            }
        }
        "apply_patch" => match input {
            Value::String(p) => (codex_patch(p)?, &[]),
            Value::Object(o) => {
                let p = str_of(o, "input").or_else(|| str_of(o, "patch"))?;
                (codex_patch(p)?, &["input", "patch"])
            }
            _ => return None,
        },
        _ => {
            // `shell` running `apply_patch` with the patch as its argument.
            let (cmd, _) = shell_command(name, input)?;
            let patch = cmd
                .strip_prefix("apply_patch")?
                .trim()
                .trim_matches(['\'', '"']);
            (codex_patch(patch)?, &["command", "cmd"])
        }
    };
    Some(EditDiff {
        diff,
        rest: Rest {
            map: input.as_object(),
            hide: Hide::Keys(shown),
        },
    })
}

/// `--- a/path` / `+++ b/path` and the changed lines with three lines of context. The hunk
/// headers carry no line numbers: the tool saw a fragment, not the file.
fn file_diff(path: &str, old: Option<&str>, new: &str) -> String {
    // git's a/ and b/ prefixes for relative paths; an absolute path stands as it is.
    let (a, b) = if path.starts_with('/') {
        (path.to_string(), path.to_string())
    } else {
        (format!("a/{path}"), format!("b/{path}"))
    };
    // A whole-file write does not record what the file held before.
    let mut out = match old {
        Some(_) => format!("--- {a}\n+++ {b}\n"),
        None => format!("--- /dev/null (earlier content not recorded)\n+++ {b}\n"),
    };
    match old.unwrap_or("") {
        "" => inserted(&mut out, new),
        old => line_diff(&mut out, old, new),
    }
    out
}

/// The changed lines from `old` to `new`, each hunk after an `@@` line.
fn line_diff(out: &mut String, old: &str, new: &str) {
    let diff = similar::TextDiff::from_lines(old, new);
    for group in diff.grouped_ops(3) {
        out.push_str("@@\n");
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                out.push(sign);
                out.push_str(change.value().trim_end_matches(['\n', '\r']));
                out.push('\n');
            }
        }
    }
}

/// [`line_diff`] from nothing to `new` (a whole-file write): every line inserted, in one
/// hunk, without the diff's table of lines. The diff ends lines where [`line_breaks`] does.
fn inserted(out: &mut String, new: &str) {
    if new.is_empty() {
        return;
    }
    out.push_str("@@\n");
    let mut line = |text: &str| {
        out.push('+');
        out.push_str(text);
        out.push('\n');
    };
    let mut last = 0;
    for (start, end) in line_breaks(new) {
        line(&new[last..start]);
        last = end;
    }
    if last < new.len() {
        line(&new[last..]);
    }
}

/// Codex's patch format (`*** Begin Patch`, `*** Update File: p`, `@@`, `+`/`-`/` ` lines) with
/// unified-diff file headers.
fn codex_patch(patch: &str) -> Option<String> {
    let body = patch.trim();
    if !body.starts_with("*** Begin Patch") {
        return None;
    }
    let mut out = String::new();
    let mut pending_update: Option<String> = None;
    for line in body.lines() {
        if let Some(p) = pending_update.take() {
            match line.strip_prefix("*** Move to: ") {
                Some(to) => {
                    let _ = writeln!(out, "--- a/{p}\n+++ b/{}", to.trim());
                    continue;
                }
                None => {
                    let _ = writeln!(out, "--- a/{p}\n+++ b/{p}");
                }
            }
        }
        if line.starts_with("*** Begin Patch")
            || line.starts_with("*** End Patch")
            || line.starts_with("*** End of File")
        {
            continue;
        }
        if let Some(p) = line.strip_prefix("*** Update File: ") {
            pending_update = Some(p.trim().to_string());
        } else if let Some(p) = line.strip_prefix("*** Add File: ") {
            let _ = writeln!(out, "--- /dev/null\n+++ b/{}\n@@", p.trim());
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            let _ = writeln!(out, "--- a/{}\n+++ /dev/null", p.trim());
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if let Some(p) = pending_update {
        let _ = writeln!(out, "--- a/{p}\n+++ b/{p}");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_counted_without_carriage_returns_are_counted_at_the_breaks() {
        let pieces = ["", "a", "\n", "\n\n", "é", "line\n", "\r", "\r\n"];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let t = format!("{a}{b}{c}");
                    assert_eq!(line_count(&t), line_count_at_breaks(&t), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn cutting() {
        let t = "1\n2\n3\n4\n5\n";
        assert_eq!(cut_lines(t, 0), (t, None));
        assert_eq!(cut_lines(t, 5), (t, None));
        assert_eq!(cut_lines(t, 2), ("1\n2", Some((3, 6))));
        assert_eq!(cut_lines("a\nb", 1), ("a", Some((1, 1))));
        // A lone CR ends a line in the rendering, so it does in the counts and the cut.
        let cr = "1\r2\r\n3\r4\n5";
        assert_eq!(line_count(cr), 5);
        assert_eq!(line_count("a\r\n"), 1);
        assert_eq!(line_count("a\r"), 1);
        assert_eq!(line_count("\r\r"), 2);
        assert_eq!(line_count(""), 0);
        assert_eq!(cut_lines(cr, 2), ("1\r2", Some((3, 5))));
        assert_eq!(cut_lines(cr, 4), ("1\r2\r\n3\r4", Some((1, 1))));
        assert_eq!(cut_lines("a\r\n\r\n", 1), ("a\r\n\r\n", None));
    }

    #[test]
    fn shell_commands() {
        let v = serde_json::json!({"command": ["bash", "-lc", "ls -la"], "workdir": "/x"});
        let (cmd, rest) = shell_command("shell", &v).unwrap();
        assert_eq!(cmd, "ls -la");
        assert_eq!(rest.keys().collect::<Vec<_>>(), ["workdir"]);
        let v = serde_json::json!({"command": ["git", "commit", "-m", "a b"]});
        assert_eq!(shell_command("shell", &v).unwrap().0, "git commit -m 'a b'");
        let v = serde_json::json!({"command": "view", "path": "/x"});
        assert!(shell_command("str_replace_based_edit_tool", &v).is_none());
        assert!(shell_command("Bash", &serde_json::json!({"command": "ls"})).is_some());
    }

    #[test]
    fn a_write_is_the_line_diff_from_nothing() {
        let pieces = ["", "a", "\n", "\r", "\r\n", "é x", "\n\n"];
        let mut n = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in pieces {
                        let t = format!("{a}{b}{c}{d}");
                        let (mut fast, mut diff) = (String::new(), String::new());
                        inserted(&mut fast, &t);
                        line_diff(&mut diff, "", &t);
                        assert_eq!(fast, diff, "{t:?}");
                        n += usize::from(t.contains('\r'));
                    }
                }
            }
        }
        assert!(n > 1000, "{n}");
    }

    #[test]
    fn edits_are_diffs() {
        let v = serde_json::json!({"file_path": "src/a.rs", "old_string": "fn a() {\n    1\n}", "new_string": "fn a() {\n    2\n}", "replace_all": false});
        let e = edit_diff("Edit", &v).unwrap();
        assert_eq!(
            e.diff,
            "--- a/src/a.rs\n+++ b/src/a.rs\n@@\n fn a() {\n-    1\n+    2\n }\n"
        );
        assert_eq!(e.rest.keys().collect::<Vec<_>>(), ["replace_all"]);
        let v = serde_json::json!({"file_path": "x", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]});
        assert_eq!(
            edit_diff("MultiEdit", &v).unwrap().diff,
            "--- a/x\n+++ b/x\n@@\n-a\n+b\n--- a/x\n+++ b/x\n@@\n-c\n+d\n"
        );
        let v = serde_json::json!({"file_path": "n.txt", "content": "one\ntwo\n"});
        assert_eq!(
            edit_diff("write_file", &v).unwrap().diff,
            "--- /dev/null (earlier content not recorded)\n+++ b/n.txt\n@@\n+one\n+two\n"
        );
        let v = serde_json::json!({"file_path": "/n", "old_string": "x", "new_string": "y", "instruction": "swap"});
        let e = edit_diff("replace", &v).unwrap();
        assert_eq!(e.diff, "--- /n\n+++ /n\n@@\n-x\n+y\n");
        assert_eq!(e.rest.keys().collect::<Vec<_>>(), ["instruction"]);
        // What is left serialises as the object without the keys the diff shows, in order.
        assert_eq!(pretty(&e.rest), "{\n  \"instruction\": \"swap\"\n}");
        let patch = "*** Begin Patch\n*** Update File: src/app.ts\n@@ app.get\n-old\n+new\n*** Add File: b.md\n+hello\n*** Delete File: c.txt\n*** End Patch\n";
        let want = "--- a/src/app.ts\n+++ b/src/app.ts\n@@ app.get\n-old\n+new\n--- /dev/null\n+++ b/b.md\n@@\n+hello\n--- a/c.txt\n+++ /dev/null\n";
        assert_eq!(
            edit_diff("apply_patch", &Value::String(patch.into()))
                .unwrap()
                .diff,
            want
        );
        let v = serde_json::json!({"command": ["apply_patch", patch]});
        assert_eq!(edit_diff("shell", &v).unwrap().diff, want);
        assert!(edit_diff("Read", &serde_json::json!({"file_path": "x"})).is_none());
        assert!(edit_diff("Edit", &serde_json::json!({"file_path": "x"})).is_none());
    }
}
