//! Models and prices: per-model breakdowns, costs computed by hand, unknown models, one
//! model under two names, and a `--prices` entry that is no price.

use super::*;

#[test]
fn breakdown_per_model_on_2026_03_14() {
    // Claude A, per model (streamed pieces merged by message.id + requestId, per-field max):
    // jq -cR 'fromjson? | select(type=="object")' A.jsonl | jq -s -c '[.[] | select(.type==
    //   "assistant" and .message.usage and .message.model != "<synthetic>")] | group_by([
    //   .message.id, .requestId]) | map({m: .[0].message.model, t: (([.[].message.usage
    //   .input_tokens]|max) + ([.[].message.usage.cache_read_input_tokens]|max) + ([.[].message
    //   .usage.cache_creation_input_tokens]|max) + ([.[].message.usage.output_tokens]|max)),
    //   h: ([.[].message.usage.cache_creation.ephemeral_1h_input_tokens // 0]|max)}) |
    //   group_by(.m) | map({(.[0].m): {t: (map(.t)|add), h1: (map(.h)|add)}}) | add'
    // → {"claude-opus-4-5-20251101":{"t":3628,"h1":500},
    //    "claude-sonnet-4-5-20250929":{"t":53621,"h1":500}}
    let doc = usage(&["daily", "--since", "2026-03-14", "--until", "2026-03-14"]);
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let models: BTreeMap<String, (u64, u64)> = rows[0]["breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                format!(
                    "{}/{}",
                    m["agent"].as_str().unwrap(),
                    m["model"].as_str().unwrap()
                ),
                (
                    m["tokens"]["total"].as_u64().unwrap(),
                    m["tokens"]["cache_write_1h"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(
        models,
        BTreeMap::from([
            ("claude/claude-haiku-4-5-20251001".into(), (5_050, 0)),
            ("claude/claude-opus-4-5-20251101".into(), (3_628, 500)),
            ("claude/claude-sonnet-4-5-20250929".into(), (53_621, 500)),
            ("codex/gpt-5-codex".into(), (43_595, 0)),
        ])
    );
    assert_eq!(rows[0]["agents"], json!(["claude", "codex"]));
}

#[test]
fn costs_computed_by_hand() {
    // Prices (USD per million tokens, LiteLLM snapshot): claude-sonnet-4-5 3 / 15 / read 0.30 /
    // write 3.75 (1 h: 6); claude-opus-4-5 5 / 25 / 0.50 / 6.25 (1 h: 10); gpt-5-codex
    // 1.25 / 10 / cached 0.125; gemini-3.1-pro-preview 2 / 12 below 200k prompt tokens.
    let doc = usage(&["session"]);
    let cost: BTreeMap<String, f64> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap()[..8].to_string(),
                r["cost_usd"].as_f64().unwrap(),
            )
        })
        .collect();
    // Claude F, one request: 15 in, 3,200 written (5 min), 25 out:
    // 15×3 + 3,200×3.75 + 25×15 = 45 + 12,000 + 375 = 12,420 µ$.
    assert!(close(cost["f0e1d2c3"], 0.012_42), "{}", cost["f0e1d2c3"]);
    // Claude E (opus): msg_E1 11 in, 9,000 read, 2,500 written for 1 h, 64 out; msg_E2 4 in,
    // 11,500 read, 180 written for 5 min, 140 out: 15×5 + 20,500×0.5 + 2,500×10 + 180×6.25 +
    // 204×25 = 75 + 10,250 + 25,000 + 1,125 + 5,100 = 41,550 µ$.
    assert!(close(cost["c4d5e6f7"], 0.041_55), "{}", cost["c4d5e6f7"]);
    // Codex 2026-03-14: 9,514 uncached + 33,536 cached in, 545 out:
    // 11,892.5 + 4,192 + 5,450 = 21,534.5 µ$ (JSON rounds to the µ$).
    assert!((cost["019ceba0"] - 0.021_534_5).abs() < 1e-6);
    // Gemini F7: 52,020 in, 950 out (thoughts included): 104,040 + 11,400 = 115,440 µ$.
    assert!(close(cost["f6a7b8c9"], 0.115_44));
    // Claude A: sonnet 30 in, 49,800 read, 3,020 written for 5 min + 500 for 1 h, 271 out =
    // 90 + 14,940 + 11,325 + 3,000 + 4,065 = 33,420; opus 8 in, 2,000 read, 1,000 + 500 (1 h)
    // written, 120 out = 40 + 1,000 + 6,250 + 5,000 + 3,000 = 15,290; the haiku-4-5 copy of
    // msg_A_sub1 (1 / 5 / write 1.25): 900 + 750 + 5,000 = 6,650. Total 55,360 µ$.
    assert!(close(cost["6f0d3c52"], 0.055_36));
    // The whole sample home.
    assert!(close(
        doc["totals"]["cost_usd"].as_f64().unwrap(),
        0.472_703
    ));
    assert_eq!(doc["totals"]["unpriced_models"], json!([]));
}

#[test]
fn unknown_models_keep_their_tokens_and_have_no_cost() {
    let dir = tempfile::tempdir().unwrap();
    let f = claude_file(
        dir.path(),
        "claude-imaginary-9",
        &[
            ("2026-05-01T10:00:00Z", 1_000),
            ("2026-05-01T10:05:00Z", 500),
        ],
    );
    let out = common::sessions()
        .args(["usage", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(total(&doc), 1_500);
    assert_eq!(doc["totals"]["cost_usd"], Value::Null);
    assert_eq!(
        doc["totals"]["unpriced_models"],
        json!(["claude-imaginary-9"])
    );
    assert_eq!(doc["rows"][0]["breakdown"][0]["cost_usd"], Value::Null);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.matches("claude-imaginary-9").count(),
        1,
        "one warning naming the model: {err}"
    );
    assert!(err.contains("no price for model"), "{err}");
    // At 80 columns the warning wraps as every diagnostic does, its label on its first line.
    for args in [&["usage"][..], &["list"], &["show"]] {
        let out = common::sessions()
            .env("COLUMNS", "80")
            .args(args)
            .arg(&f)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.lines()
                .any(|l| l.starts_with("warning: no price for model")),
            "{args:?}: {err}"
        );
        for line in err.lines() {
            assert!(line.chars().count() <= 80, "{args:?}: {line:?} in {err}");
        }
    }
    // list and show say the same.
    let list = json_of(
        common::sessions(),
        &["list", "--format", "json", f.to_str().unwrap()],
    );
    assert_eq!(list[0]["cost_usd"], Value::Null);
    assert_eq!(list[0]["tokens"]["total"], 1_500);

    // --prices adds it; the embedded table still prices the rest.
    let prices = dir.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"claude-imaginary-9": {"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05}}"#,
    )
    .unwrap();
    let priced = json_of(
        common::sessions(),
        &[
            "--prices",
            prices.to_str().unwrap(),
            "usage",
            "--format",
            "json",
            f.to_str().unwrap(),
        ],
    );
    // 1,500 input tokens × $2/M.
    assert!(close(priced["totals"]["cost_usd"].as_f64().unwrap(), 0.003));
    assert_eq!(priced["prices"]["file"], prices.to_str().unwrap());
    let mixed = json_of(
        sessions(),
        &[
            "--prices",
            prices.to_str().unwrap(),
            "usage",
            "--format",
            "json",
        ],
    );
    assert!(close(
        mixed["totals"]["cost_usd"].as_f64().unwrap(),
        0.472_703
    ));
    // A broken price file is a usage error.
    std::fs::write(&prices, "{not json").unwrap();
    let out = sessions()
        .args(["--prices", prices.to_str().unwrap(), "usage"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--prices"));
}

/// A Codex rollout with no `turn_context` recorded no model: no `--prices` entry can price
/// `(unrecorded)`, so the warning says what is missing instead of pointing at `--prices`; a
/// named model beside it keeps its own warning with the hint.
#[test]
fn usage_without_a_recorded_model_is_not_sent_to_prices() {
    let dir = tempfile::tempdir().unwrap();
    let sid = "019dd000-0000-7000-8000-000000000002";
    let tokens = json!({"input_tokens": 1000, "cached_input_tokens": 0, "output_tokens": 100,
        "reasoning_output_tokens": 0, "total_tokens": 1100});
    let lines = [
        json!({"timestamp": "2026-06-01T10:00:00.000Z", "type": "session_meta",
            "payload": {"id": sid, "timestamp": "2026-06-01T10:00:00.000Z", "cwd": "/w/c2",
            "originator": "codex-tui", "cli_version": "0.125.0", "source": "cli"}}),
        json!({"timestamp": "2026-06-01T10:01:00.000Z", "type": "event_msg",
            "payload": {"type": "token_count", "info": {"total_token_usage": tokens,
            "last_token_usage": tokens, "model_context_window": 400000}, "rate_limits": null}}),
    ];
    let rollout = dir
        .path()
        .join(format!("rollout-2026-06-01T10-00-00-{sid}.jsonl"));
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&rollout, text.join("\n") + "\n").unwrap();

    let out = common::sessions()
        .args(["usage", "--format", "json"])
        .arg(&rollout)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["totals"]["unpriced_models"], json!(["(unrecorded)"]));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("recorded no model"), "{err}");
    assert!(!err.contains("--prices"), "no --prices hint: {err}");

    let named = claude_file(
        dir.path(),
        "claude-imaginary-9",
        &[("2026-06-01T11:00:00Z", 1_000)],
    );
    let out = common::sessions()
        .args(["usage", "--format", "json"])
        .arg(&rollout)
        .arg(&named)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(
        warnings[0].contains("model claude-imaginary-9") && warnings[0].contains("--prices"),
        "{err}"
    );
    assert!(
        warnings[1].contains("recorded no model") && !warnings[1].contains("--prices"),
        "{err}"
    );
}

#[test]
fn a_model_under_two_names_shows_once_and_its_sub_rows_apart() {
    let dir = tempfile::tempdir().unwrap();
    for (sid, model) in [
        ("s1", "claude-sonnet-4-5"),
        ("s2", "claude-sonnet-4-5-20250929"),
    ] {
        let line =
            response(sid, "2026-03-10T10:00:05Z", sid, 5).replace("claude-sonnet-4-5", model);
        std::fs::write(dir.path().join(format!("{sid}.jsonl")), line + "\n").unwrap();
    }
    let out = common::sessions()
        .env("COLUMNS", "200")
        .args(["usage", "--breakdown"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text.lines().find(|l| l.starts_with("2026-03-10")).unwrap();
    assert_eq!(row.matches("sonnet-4-5").count(), 1, "{text}");
    assert!(text.contains("└ claude-sonnet-4-5 "), "{text}");
    assert!(text.contains("└ claude-sonnet-4-5-20250929"), "{text}");
}

/// A `--prices` entry whose price is no price per token (here 1e308 $/token, whose cost is
/// not finite) is refused at load with a warning naming the model, which then counts as
/// unpriced in every output: JSON and table agree.
#[test]
fn an_absurd_price_is_refused_and_the_model_unpriced() {
    let dir = tempfile::tempdir().unwrap();
    let model = "my,model;x";
    let f = claude_file(dir.path(), model, &[("2026-03-14T09:00:00Z", 1_000)]);
    let prices = dir.path().join("prices.json");
    std::fs::write(
        &prices,
        format!(
            r#"{{"{model}": {{"input_cost_per_token": 1e308, "output_cost_per_token": 1e308}}}}"#
        ),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = common::sessions()
            .arg("--prices")
            .arg(&prices)
            .args(args)
            .arg(&f)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (list, err) = run(&["list", "--format", "json"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list[0]["cost_usd"], Value::Null);
    assert!(
        err.contains(&format!("\"{model}\": input_cost_per_token 1e308")),
        "{err}"
    );
    let (usage, _) = run(&["usage", "--format", "json"]);
    let usage: Value = serde_json::from_str(&usage).unwrap();
    assert_eq!(usage["totals"]["cost_usd"], Value::Null);
    assert_eq!(usage["totals"]["unpriced_models"], json!([model]));
    let (table, _) = run(&["list"]);
    assert!(!table.contains("$184"), "{table}");
    // --quiet silences the warning, not the refusal.
    let out = common::sessions()
        .args(["--quiet", "--prices"])
        .arg(&prices)
        .args(["list", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
