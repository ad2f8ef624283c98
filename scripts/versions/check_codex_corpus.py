#!/usr/bin/env python3
"""Check Codex rollouts against the auto-compact limit the recorded version applied.

For each rollout: the CLI version (`session_meta.cli_version`), the model (`turn_context`),
the recorded `model_context_window` values, the window it implies (÷ 0.95 from 0.48, see
docs/versions.md), the default limit for that version, the peak `last_token_usage.total_tokens`,
and every compaction (`compacted` lines, `context_compacted` events) with the last
token_count total before it. A rollout contradicts the table when it compacted automatically
below the limit, or went above the limit in a turn that needed a follow-up without compacting
(reported, not decided: rollouts do not say whether a follow-up was needed, nor the configured
limit).

Usage:
    scripts/versions/check_codex_corpus.py ../shared/corpus/real/codex/*.jsonl ../shared/corpus/codex/*.jsonl
"""

from __future__ import annotations

import json
import re
import sys


def vkey(v: str | None) -> tuple | None:
    if not v:
        return None
    m = re.match(r"\D{0,8}(\d+)(?:\.(\d+))?(?:\.(\d+))?", v)
    return tuple(int(x or 0) for x in m.groups()) if m else None


def table_window(model: str) -> int:
    m = (model or "").lower().rsplit("/", 1)[-1]
    if m.startswith(("o3", "o4-mini", "codex-mini-latest")):
        return 200_000
    if m.startswith("gpt-4.1"):
        return 1_047_576
    if m.startswith("gpt-4o"):
        return 128_000
    if m.startswith("gpt-oss"):
        return 96_000
    return 272_000


def limit(version, model, recorded):
    """(window, default limit or None) — the rule of docs/versions.md, no configured value."""
    v = vkey(version)
    effective = v is None or v >= (0, 48, 0)
    w = table_window(model)
    if recorded:
        if effective:
            w = w if w * 95 // 100 == recorded else -(-recorded * 100 // 95)
        else:
            w = recorded
    if v is None or v >= (0, 48, 0):
        return w, w * 9 // 10
    if v >= (0, 40, 0) and (model or "").startswith("gpt-5-codex"):
        return w, 220_000 if v < (0, 41, 0) else 350_000
    return w, None


def main() -> int:
    print(f"{'file':<46} {'version':<8} {'model':<14} {'recorded':>9} {'window':>8} {'limit':>8} {'peak':>8} compactions (total before)")
    for path in sys.argv[1:]:
        version = model = None
        windows = set()
        peak = 0
        last_total = None
        comps = []
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(r, dict):
                    continue
                t, p = r.get("type"), r.get("payload") or {}
                if t == "session_meta":
                    version = p.get("cli_version")
                elif t == "turn_context":
                    model = p.get("model") or model
                elif t == "compacted":
                    comps.append(("compacted", last_total))
                elif t == "event_msg" and p.get("type") == "context_compacted":
                    comps.append(("event", last_total))
                elif t == "event_msg" and p.get("type") == "token_count":
                    info = p.get("info") or {}
                    if info.get("model_context_window"):
                        windows.add(info["model_context_window"])
                    tot = ((info.get("last_token_usage") or {}).get("total_tokens")) or 0
                    if tot:
                        last_total = tot
                        peak = max(peak, tot)
        rec = max(windows) if windows else None
        w, lim = limit(version, model, rec)
        name = path.rsplit("/", 1)[-1][:46]
        cs = ", ".join(f"{k}@{b}" for k, b in comps) or "none"
        print(f"{name:<46} {str(version)[:8]:<8} {str(model)[:14]:<14} {str(rec):>9} {w:>8} {str(lim):>8} {peak:>8} {cs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
