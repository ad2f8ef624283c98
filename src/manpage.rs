//! Man pages from the clap definition: clap_mangen's pages with two sections of our own.
//!
//! - SYNOPSIS names every option with its value (`[--since <WHEN>]`) and folds the global options
//!   of a subcommand into `[GLOBAL OPTIONS]` (they have their own section).
//! - The long help's closing text (`after_long_help`) becomes real sections: a paragraph whose
//!   first line is a heading such as `Examples:` or `Exit status:` is the section `EXAMPLES` or
//!   `EXIT STATUS`, its indented lines kept as written; paragraphs without a heading are prose in
//!   the section before them (or `NOTES`).
//!
//! So the examples a user sees in `sessions list --help` are the EXAMPLES of
//! `man sessions-list`. Every subcommand's `after_long_help` starts with an `Examples:` block.

use clap::{ArgAction, Command};

/// One page per command and subcommand, as (file name, roff source): `sessions.1`,
/// `sessions-list.1`, … (`tests/generated.rs` writes them into `man/`).
pub fn pages(cmd: Command) -> Vec<(String, String)> {
    fn walk(cmd: &Command, out: &mut Vec<(String, String)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, out);
        }
        let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
        out.push((format!("{name}.1"), page(cmd)));
    }
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, &mut out);
    out
}

/// The roff source of one command's page.
pub fn page(cmd: &Command) -> String {
    let mut raw = Vec::new();
    let mut man = clap_mangen::Man::new(cmd.clone());
    // A subcommand has no version of its own: its footer names the program's.
    if cmd.get_version().is_none() {
        man = man.source(format!("sessions {}", env!("CARGO_PKG_VERSION")));
    }
    man.render(&mut raw).expect("rendering into memory");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let text = replace_section(&text, "SYNOPSIS", Some(&synopsis(cmd)));
    match cmd.get_after_long_help().or_else(|| cmd.get_after_help()) {
        Some(after) => replace_section(&text, "EXTRA", Some(&after_help(&after.to_string()))),
        None => text,
    }
}

/// Replace the body of `.SH <name>` (up to the next `.SH`) with `body`, which starts with its
/// own `.SH` lines.
fn replace_section(text: &str, name: &str, body: Option<&str>) -> String {
    let marker = format!(".SH {name}\n");
    let Some(start) = text.find(&marker) else {
        return text.to_string();
    };
    let rest = &text[start + marker.len()..];
    let end = rest
        .find("\n.SH ")
        .map(|i| start + marker.len() + i + 1)
        .unwrap_or(text.len());
    format!("{}{}{}", &text[..start], body.unwrap_or(""), &text[end..])
}

/// Roff-escape text: backslashes, hyphens (so they are not turned into dashes) and a leading
/// control character.
fn esc(s: &str) -> String {
    let mut out = s.replace('\\', "\\e").replace('-', "\\-");
    if out.starts_with('.') || out.starts_with('\'') {
        out.insert_str(0, "\\&");
    }
    out
}

fn synopsis(cmd: &Command) -> String {
    let name = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    let sub = cmd.get_bin_name().is_some_and(|b| b.contains(' '));
    let mut words = vec![format!("\\fB{}\\fR", esc(name))];
    let mut globals = false;
    for arg in cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
    {
        if sub && arg.is_global_set() {
            globals = true;
            continue;
        }
        let mut w = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("\\fB\\-{s}\\fR|\\fB\\-\\-{}\\fR", esc(l)),
            (Some(s), None) => format!("\\fB\\-{s}\\fR"),
            (None, Some(l)) => format!("\\fB\\-\\-{}\\fR", esc(l)),
            (None, None) => continue,
        };
        if arg.get_action().takes_values() {
            let value = arg
                .get_value_names()
                .map(|v| v.join(" "))
                .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
            // An unbreakable space keeps an option and its value on one line.
            w.push_str(&format!("\\ \\fI<{}>\\fR", esc(&value)));
        }
        let many = matches!(arg.get_action(), ArgAction::Append | ArgAction::Count);
        if arg.is_required_set() {
            words.push(format!("{w}{}", if many { "..." } else { "" }));
        } else {
            words.push(format!("[{w}]{}", if many { "..." } else { "" }));
        }
    }
    if globals {
        words.push("[\\fIGLOBAL OPTIONS\\fR]".into());
    }
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let value = arg
            .get_value_names()
            .map(|v| v.join(" "))
            .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
        let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        let (l, r) = if arg.is_required_set() {
            ("<", ">")
        } else {
            ("[", "]")
        };
        words.push(format!(
            "{l}\\fI{}\\fR{r}{}",
            esc(&value),
            if many { "..." } else { "" }
        ));
    }
    if cmd.has_subcommands() {
        words.push("<\\fICOMMAND\\fR>".into());
    }
    format!(".SH SYNOPSIS\n{}\n", words.join(" "))
}

/// `Examples:` / `Exit status:` blocks as sections, indented lines kept as written.
fn after_help(text: &str) -> String {
    let mut out = String::new();
    let mut in_section = false;
    for block in text.split("\n\n") {
        let mut lines = block.lines();
        let Some(first) = lines.next() else { continue };
        let heading = first.strip_suffix(':').filter(|h| {
            !h.is_empty()
                && !h.starts_with(' ')
                && h.chars().all(|c| c.is_alphabetic() || c == ' ')
                && h.split(' ').count() <= 3
        });
        match heading {
            Some(h) => {
                out.push_str(&format!(".SH {}\n.nf\n", h.to_uppercase()));
                for l in lines {
                    out.push_str(&esc(l.strip_prefix("  ").unwrap_or(l)));
                    out.push('\n');
                }
                out.push_str(".fi\n");
                in_section = true;
            }
            None => {
                if !in_section {
                    out.push_str(".SH NOTES\n");
                    in_section = true;
                }
                out.push_str(".PP\n");
                for l in block.lines() {
                    out.push_str(&esc(l.trim()));
                    out.push('\n');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn pages_have_examples_and_value_names() {
        let mut cmd = crate::cli::Cli::command().disable_help_subcommand(true);
        cmd.build();
        for sub in cmd.get_subcommands() {
            let page = page(sub);
            let name = sub.get_name();
            assert!(page.contains(".SH EXAMPLES\n.nf\n"), "{name}: no EXAMPLES");
            assert!(
                page.contains(&format!("sessions {}", esc(name))),
                "{name}: examples name the command"
            );
            assert!(!page.contains(".SH EXTRA"), "{name}");
            assert!(page.contains("[\\fIGLOBAL OPTIONS\\fR]"), "{name}");
        }
        let list = page(cmd.find_subcommand("list").unwrap());
        assert!(
            list.contains("[\\fB\\-\\-since\\fR\\ \\fI<WHEN>\\fR]"),
            "{list}"
        );
        assert!(list.contains("[\\fIPATH\\fR]..."), "{list}");
        let top = page(&cmd);
        assert!(top.contains(".SH EXIT STATUS\n"), "{top}");
        assert!(top.contains(".SH ENVIRONMENT\n"), "{top}");
    }
}
