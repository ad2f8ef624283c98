//! `sessions replay-compress -A ALG --list-settings`: the algorithm's settings as a table or as
//! `replay_setting` records (docs/json.md). It replays nothing, so every option that only a
//! replay reads is refused rather than ignored.

use std::io::Write;

use serde::Serialize;

use crate::cli::{ReplayArgs, ReplayFormat};
use crate::commands::{CmdResult, Failure, stdout, write_json};
use crate::diag::Report;
use crate::replay::Algorithm;
use crate::replay::settings::{Kind, Spec, Value};

use super::tables::settings_table;

pub(super) fn run(args: &ReplayArgs) -> CmdResult {
    check(args)?;
    let alg = args.algorithm;
    match args.format {
        ReplayFormat::Table => {
            let mut out = stdout();
            out.write_all(settings_table(alg).as_bytes())?;
            out.flush()?;
        }
        ReplayFormat::Json | ReplayFormat::Ndjson => {
            let records: Vec<SettingRecord> = alg
                .specs()
                .iter()
                .map(|s| SettingRecord::new(alg, s))
                .collect();
            write_json(&records, args.format == ReplayFormat::Ndjson)?;
        }
    }
    Ok(Report::default())
}

/// The options given that only a replay would read.
fn check(args: &ReplayArgs) -> Result<(), Failure> {
    let mut ignored: Vec<&str> = Vec::new();
    if !args.targets.is_empty() {
        ignored.push("session arguments");
    }
    let flags = [
        (args.all, "--all"),
        (
            args.filter.is_set(),
            "--agent/--project/--since/--until/--kind",
        ),
        (!args.set.is_empty(), "--set"),
        (!args.sweep.is_empty(), "--sweep"),
        (args.context_window.is_some(), "--context-window"),
        (args.summary_tokens != "auto", "--summary-tokens"),
        (args.timeline, "--timeline"),
        (args.validate, "--validate"),
        (args.plot.is_some(), "--plot"),
        (args.force, "--force"),
    ];
    ignored.extend(flags.iter().filter(|(given, _)| *given).map(|(_, f)| *f));
    if ignored.is_empty() {
        return Ok(());
    }
    Err(Failure::usage(format!(
        "--list-settings prints the settings of --algorithm {} and replays nothing; drop {}",
        args.algorithm.as_str(),
        ignored.join(", ")
    )))
}

/// One setting, as the table shows it.
#[derive(Debug, Serialize)]
struct SettingRecord {
    schema_version: u32,
    kind: &'static str,
    algorithm: &'static str,
    key: &'static str,
    /// `number`, `integer`, `bool`, `choice` or `text`.
    #[serde(rename = "type")]
    value_type: &'static str,
    default: &'static Value,
    min: Option<Value>,
    max: Option<Value>,
    choices: Option<&'static [&'static str]>,
    /// The ALLOWED column.
    allowed: String,
    /// The MEANING column: where a default of 0 or a boolean follows the recorded agent
    /// version, it says which.
    description: &'static str,
}

impl SettingRecord {
    fn new(alg: Algorithm, s: &'static Spec) -> Self {
        let (value_type, min, max, choices) = match &s.kind {
            Kind::Number { min, max, integer } => (
                if *integer { "integer" } else { "number" },
                Some(Value::Number(*min)),
                Some(Value::Number(*max)),
                None,
            ),
            Kind::Bool => ("bool", None, None, None),
            Kind::Choice(c) => ("choice", None, None, Some(*c)),
            Kind::Text => ("text", None, None, None),
        };
        SettingRecord {
            schema_version: crate::render::json::SCHEMA_VERSION,
            kind: "replay_setting",
            algorithm: alg.as_str(),
            key: s.key,
            value_type,
            default: &s.default,
            min,
            max,
            choices,
            allowed: s.range(),
            description: s.help,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(extra: &[&str]) -> ReplayArgs {
        let mut argv = vec!["sessions", "replay-compress", "-A", "pi", "--list-settings"];
        argv.extend(extra);
        match crate::cli::Cli::parse_from(argv).command {
            crate::cli::Command::ReplayCompress(a) => a,
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_a_listing_ignores_are_refused() {
        assert!(check(&args(&[])).is_ok());
        assert!(check(&args(&["--format", "json"])).is_ok());
        for extra in [
            &["abc"][..],
            &["--all"],
            &["--sweep", "nope=1"],
            &["--set", "reserve_tokens=1"],
            &["--validate"],
            &["--timeline"],
            &["--context-window", "1000"],
            &["--summary-tokens", "10"],
            &["--since", "7d"],
            &["--plot", "x.svg"],
        ] {
            let f = check(&args(extra)).unwrap_err();
            assert_eq!(f.status, crate::commands::exit::USAGE, "{extra:?}");
            assert!(f.message.contains("--list-settings"), "{}", f.message);
        }
    }

    #[test]
    fn every_setting_becomes_a_record() {
        for alg in [
            Algorithm::Gemini,
            Algorithm::OpenclawPrune,
            Algorithm::Pi,
            Algorithm::Claude,
            Algorithm::Codex,
        ] {
            for s in alg.specs() {
                let v = serde_json::to_value(SettingRecord::new(alg, s)).unwrap();
                assert_eq!(v["key"], s.key);
                assert_eq!(v["allowed"], s.range());
                assert_eq!(v["description"], s.help);
                let numeric = matches!(s.kind, Kind::Number { .. });
                assert_eq!(v["min"].is_number(), numeric, "{}", s.key);
            }
        }
        let pi = Algorithm::Pi.specs();
        let reserve = pi.iter().find(|s| s.key == "reserve_tokens").unwrap();
        let v = serde_json::to_value(SettingRecord::new(Algorithm::Pi, reserve)).unwrap();
        assert_eq!(v["type"], "integer");
        assert_eq!(v["default"], 16384);
        assert_eq!(v["min"], 0);
        assert_eq!(v["max"], 10_000_000);
        assert_eq!(v["kind"], "replay_setting");
        assert_eq!(v["algorithm"], "pi");
    }
}
