//! `--plot`: the SVG's series, and a file of its own for each session.

use super::*;

#[test]
fn plot_writes_an_svg_with_the_three_series() {
    let dir = tempfile::tempdir().unwrap();
    let path = big_claude_session(dir.path(), 20);
    let svg = dir.path().join("chart.svg");
    sessions()
        .args([
            "replay-compress",
            "-A",
            "claude",
            "--context-window",
            "200000",
            "--plot",
        ])
        .arg(&svg)
        .arg(&path)
        .assert()
        .success();
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..100.min(text.len())]);
    for label in [
        "full (no management)",
        "recorded",
        "what-if (claude)",
        "threshold 167k",
        "window 200k",
        // Events are ticks on the axis, counted in the legend.
        "1 event",
    ] {
        assert!(text.contains(label), "missing {label}");
    }
}

#[test]
fn plots_of_sessions_whose_ids_share_a_prefix_get_names_of_their_own() {
    // Two Codex ids from one millisecond (UUIDv7) share their first 15 characters: each name
    // keeps as many as tell them apart.
    let dir = tempfile::tempdir().unwrap();
    let src = home().join(
        ".codex/sessions/2026/06/11/rollout-2026-06-11T11-05-00-019eb65b-5760-7eb5-80a6-9b5c6d7e8f05.jsonl",
    );
    let text = fs::read_to_string(&src).unwrap();
    let input = dir.path().join("in");
    fs::create_dir(&input).unwrap();
    fs::write(input.join("a.jsonl"), &text).unwrap();
    fs::write(
        input.join("b.jsonl"),
        text.replace(
            "019eb65b-5760-7eb5-80a6-9b5c6d7e8f05",
            "019eb65b-5760-7000-8000-000000000001",
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    fs::create_dir(&out).unwrap();
    let run = sessions()
        .args(["replay-compress", "--all", "-A", "codex", "--plot"])
        .arg(out.join("p.svg"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut written: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "p-codex-019eb65b-5760-70.svg",
            "p-codex-019eb65b-5760-7e.svg"
        ]
    );
}
