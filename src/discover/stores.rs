//! Where each agent keeps its sessions ([`Stores`]), resolved from the flags, `--home`, the
//! agents' environment variables and the OS home. Apart from discovery proper, which walks
//! the roots resolved here and classifies what it finds.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::model::Agent;

/// Where to look, as the user configured it.
#[derive(Debug, Clone, Default)]
pub struct StoreOptions {
    /// `--home`: treat this directory as the home of all three agents; the agents' environment
    /// variables are ignored (they describe this machine, not the copy).
    pub home: Option<PathBuf>,
    pub claude_dir: Option<PathBuf>,
    pub codex_dir: Option<PathBuf>,
    pub gemini_dir: Option<PathBuf>,
}

/// Resolved store roots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stores {
    /// Claude `projects/` directories.
    pub claude: Vec<PathBuf>,
    /// Codex directories to walk (`sessions/`, `archived_sessions/`).
    pub codex: Vec<PathBuf>,
    /// Gemini data dirs (`.gemini`), each with `tmp/` and maybe `projects.json`.
    pub gemini: Vec<PathBuf>,
    /// Folders the user named explicitly (a flag or an agent's variable), with where the name
    /// came from: a missing one is worth a warning, a missing default is not.
    pub configured: Vec<(Agent, PathBuf, &'static str)>,
    /// The agents' own folders the stores are in (configuration, credentials, history), as a
    /// flag, a variable or the default names them, whatever they are called
    /// (`CLAUDE_CONFIG_DIR=~/.claude-work`): nothing is ever written into them.
    pub homes: Vec<(Agent, PathBuf)>,
    /// The agents' own files outside those folders (`~/.claude.json`): never replaced.
    pub agent_files: Vec<(Agent, PathBuf)>,
}

impl Stores {
    /// Resolve the roots from options and an environment lookup (injected for tests).
    pub fn resolve(opts: &StoreOptions, env: &dyn Fn(&str) -> Option<String>) -> Stores {
        let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        let os_home = env("HOME")
            .or_else(|| env("USERPROFILE"))
            .map(PathBuf::from);
        let home = opts.home.clone().or(os_home);
        // With --home the machine's agent variables do not apply to the copy being read.
        let use_env = opts.home.is_none();
        let mut stores = Stores::default();

        let mut stores_configured = Vec::new();
        let mut configured = |agent: Agent, paths: &[PathBuf], source: &'static str| {
            for p in paths {
                stores_configured.push((agent, p.clone(), source));
            }
        };

        // Claude.
        if let Some(dir) = &opts.claude_dir {
            configured(Agent::Claude, std::slice::from_ref(dir), "--claude-dir");
            stores.claude.push(claude_projects_dir(dir));
            stores.homes.push((Agent::Claude, claude_config_dir(dir)));
        } else if let (true, Some(v)) = (use_env, env("CLAUDE_PROJECTS_DIR")) {
            configured(Agent::Claude, &split_list(&v), "CLAUDE_PROJECTS_DIR");
            stores.claude.extend(split_list(&v));
        } else if let (true, Some(v)) = (use_env, env("CLAUDE_CONFIG_DIR")) {
            configured(Agent::Claude, &split_list(&v), "CLAUDE_CONFIG_DIR");
            stores
                .claude
                .extend(split_list(&v).iter().map(|p| claude_projects_dir(p)));
            stores
                .homes
                .extend(split_list(&v).into_iter().map(|p| (Agent::Claude, p)));
        } else if let Some(h) = &home {
            let xdg = if use_env {
                env("XDG_CONFIG_HOME").map(PathBuf::from)
            } else {
                None
            }
            .unwrap_or_else(|| h.join(".config"));
            stores.claude.push(h.join(".claude").join("projects"));
            stores.claude.push(xdg.join("claude").join("projects"));
            stores.homes.push((Agent::Claude, h.join(".claude")));
            stores.homes.push((Agent::Claude, xdg.join("claude")));
        }
        // Claude Code keeps its settings and project list beside its folder, or in
        // CLAUDE_CONFIG_DIR, which is protected whole.
        if let Some(h) = &home {
            stores
                .agent_files
                .push((Agent::Claude, h.join(".claude.json")));
        }

        // Codex.
        let codex_home = if let Some(dir) = &opts.codex_dir {
            configured(Agent::Codex, std::slice::from_ref(dir), "--codex-dir");
            Some(codex_home_dir(dir))
        } else if let (true, Some(v)) = (use_env, env("CODEX_SESSIONS_DIR")) {
            configured(Agent::Codex, &split_list(&v), "CODEX_SESSIONS_DIR");
            stores.codex.extend(split_list(&v));
            None
        } else if let (true, Some(v)) = (use_env, env("CODEX_HOME")) {
            configured(Agent::Codex, &[PathBuf::from(&v)], "CODEX_HOME");
            Some(codex_home_dir(Path::new(&v)))
        } else {
            home.as_ref().map(|h| h.join(".codex"))
        };
        if let Some(ch) = codex_home {
            stores.homes.push((Agent::Codex, ch.clone()));
            if ch.join("sessions").is_dir() || ch.join("archived_sessions").is_dir() {
                stores.codex.push(ch.join("sessions"));
                stores.codex.push(ch.join("archived_sessions"));
            } else if opts.codex_dir.is_some() || is_codex_sessions_dir(&ch) {
                // `--codex-dir` may name the sessions folder itself, and so may a `CODEX_HOME`
                // set one level too deep.
                stores.codex.push(ch);
            } else {
                stores.codex.push(ch.join("sessions"));
                stores.codex.push(ch.join("archived_sessions"));
            }
        }

        // Gemini.
        if let Some(dir) = &opts.gemini_dir {
            configured(Agent::Gemini, std::slice::from_ref(dir), "--gemini-dir");
            stores.gemini.push(gemini_data_dir(dir));
        } else if let (true, Some(v)) = (use_env, env("GEMINI_SESSIONS_DIR")) {
            configured(Agent::Gemini, &split_list(&v), "GEMINI_SESSIONS_DIR");
            stores
                .gemini
                .extend(split_list(&v).iter().map(|p| gemini_data_dir(p)));
        } else if let (true, Some(v)) = (use_env, env("GEMINI_CLI_HOME")) {
            configured(Agent::Gemini, &[PathBuf::from(&v)], "GEMINI_CLI_HOME");
            stores.gemini.push(gemini_cli_home_dir(Path::new(&v)));
        } else if let Some(h) = &home {
            stores.gemini.push(h.join(".gemini"));
        }

        stores.configured = stores_configured;
        stores.claude = dedup_paths(stores.claude);
        stores.codex = dedup_paths(stores.codex);
        stores.gemini = dedup_paths(stores.gemini);
        stores
    }

    pub fn roots(&self, agent: Agent) -> &[PathBuf] {
        match agent {
            Agent::Claude => &self.claude,
            Agent::Codex => &self.codex,
            Agent::Gemini => &self.gemini,
        }
    }
}

fn split_list(v: &str) -> Vec<PathBuf> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// A Claude config dir, its `projects/` subdir, or a home holding `.claude` → the `projects/` dir.
/// The Claude folder a `--claude-dir` names: the folder that holds `projects/`, `.claude` in a
/// home that holds one, or the folder itself (a `projects/` folder, or a configuration folder
/// with no session yet).
fn claude_config_dir(p: &Path) -> PathBuf {
    if p.join("projects").is_dir() {
        p.to_path_buf()
    } else if p.join(".claude").join("projects").is_dir() {
        p.join(".claude")
    } else {
        p.to_path_buf()
    }
}

fn claude_projects_dir(p: &Path) -> PathBuf {
    if p.join("projects").is_dir() {
        p.join("projects")
    } else if p.join(".claude").join("projects").is_dir() {
        p.join(".claude").join("projects")
    } else {
        p.to_path_buf()
    }
}

/// The Codex folder a `--codex-dir` or `CODEX_HOME` names: the folder that holds `sessions/`
/// (or `archived_sessions/`), `.codex` in a home that holds one, or the folder itself.
fn codex_home_dir(p: &Path) -> PathBuf {
    let holds_sessions =
        |d: &Path| d.join("sessions").is_dir() || d.join("archived_sessions").is_dir();
    if !holds_sessions(p) && holds_sessions(&p.join(".codex")) {
        p.join(".codex")
    } else {
        p.to_path_buf()
    }
}

/// A Codex `sessions/` or `archived_sessions/` folder itself.
fn is_codex_sessions_dir(p: &Path) -> bool {
    p.is_dir()
        && matches!(
            p.file_name().and_then(OsStr::to_str),
            Some("sessions" | "archived_sessions")
        )
}

/// The Gemini data folder of a `GEMINI_CLI_HOME`: its `.gemini`, as Gemini CLI reads it; or,
/// when the variable names a `.gemini` folder itself (it holds `tmp/` and no `.gemini`), that
/// folder, as `--gemini-dir` accepts it.
fn gemini_cli_home_dir(p: &Path) -> PathBuf {
    if !p.join(".gemini").is_dir() && p.join("tmp").is_dir() {
        p.to_path_buf()
    } else {
        p.join(".gemini")
    }
}

/// A `.gemini` dir, its `tmp/`, or a home containing `.gemini` → the `.gemini` dir.
fn gemini_data_dir(p: &Path) -> PathBuf {
    if p.file_name() == Some(OsStr::new("tmp")) && !p.join("tmp").is_dir() {
        return p
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| p.to_path_buf());
    }
    if !p.join("tmp").is_dir() && p.join(".gemini").is_dir() {
        return p.join(".gemini");
    }
    p.to_path_buf()
}

/// Remove duplicate roots, comparing canonical paths where they exist (so `~/.claude/projects`
/// reached through a symlink is read once).
fn dedup_paths(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn defaults_come_from_home() {
        let s = Stores::resolve(&StoreOptions::default(), &env_of(&[("HOME", "/h")]));
        assert_eq!(
            s.claude,
            vec![
                PathBuf::from("/h/.claude/projects"),
                PathBuf::from("/h/.config/claude/projects")
            ]
        );
        assert_eq!(
            s.codex,
            vec![
                PathBuf::from("/h/.codex/sessions"),
                PathBuf::from("/h/.codex/archived_sessions")
            ]
        );
        assert_eq!(s.gemini, vec![PathBuf::from("/h/.gemini")]);
    }

    #[test]
    fn environment_overrides_home_and_flags_override_environment() {
        let env = env_of(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c1/projects, /c2"),
            ("CODEX_HOME", "/cx"),
            ("GEMINI_CLI_HOME", "/g"),
        ]);
        let s = Stores::resolve(&StoreOptions::default(), &env);
        assert_eq!(
            s.claude,
            vec![PathBuf::from("/c1/projects"), PathBuf::from("/c2")]
        );
        assert_eq!(s.codex[0], PathBuf::from("/cx/sessions"));
        assert_eq!(s.gemini, vec![PathBuf::from("/g/.gemini")]);

        let opts = StoreOptions {
            gemini_dir: Some("/flag/.gemini".into()),
            ..Default::default()
        };
        let s = Stores::resolve(&opts, &env);
        assert_eq!(s.gemini, vec![PathBuf::from("/flag/.gemini")]);
    }

    #[test]
    fn home_flag_ignores_agent_environment() {
        let env = env_of(&[
            ("HOME", "/h"),
            ("CODEX_HOME", "/cx"),
            ("CLAUDE_PROJECTS_DIR", "/p"),
        ]);
        let opts = StoreOptions {
            home: Some("/backup".into()),
            ..Default::default()
        };
        let s = Stores::resolve(&opts, &env);
        assert_eq!(s.claude[0], PathBuf::from("/backup/.claude/projects"));
        assert_eq!(s.codex[0], PathBuf::from("/backup/.codex/sessions"));
        assert_eq!(s.gemini[0], PathBuf::from("/backup/.gemini"));
    }

    /// A variable set one level off is read as the flags read it: `GEMINI_CLI_HOME` naming the
    /// `.gemini` folder itself, `CODEX_HOME` naming the home that holds `.codex` or the
    /// `sessions/` folder.
    #[test]
    fn agent_variables_one_level_off_find_the_store() {
        let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/home");
        let at = |k: &str, v: &Path| {
            Stores::resolve(
                &StoreOptions::default(),
                &env_of(&[("HOME", "/nowhere"), (k, v.to_str().unwrap())]),
            )
        };
        let gemini = home.join(".gemini");
        assert_eq!(at("GEMINI_CLI_HOME", &gemini).gemini, vec![gemini.clone()]);
        assert_eq!(at("GEMINI_CLI_HOME", &home).gemini, vec![gemini]);
        let codex = home.join(".codex");
        for v in [&home, &codex] {
            let s = at("CODEX_HOME", v);
            assert_eq!(s.codex[0], codex.join("sessions"), "{v:?}");
            assert!(s.homes.contains(&(Agent::Codex, codex.clone())), "{v:?}");
        }
        let sessions = codex.join("sessions");
        assert_eq!(at("CODEX_HOME", &sessions).codex, vec![sessions.clone()]);
        let flag = StoreOptions {
            codex_dir: Some(home.clone()),
            ..Default::default()
        };
        let s = Stores::resolve(&flag, &env_of(&[]));
        assert_eq!(s.codex[0], sessions);
    }
}
