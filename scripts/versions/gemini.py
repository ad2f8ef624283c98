#!/usr/bin/env python3
"""Gemini CLI's compression constants, release by release, read from google-gemini/gemini-cli tags.

Given a git clone of https://github.com/google-gemini/gemini-cli, this script
reads each stable `vX.Y.Z` tag and prints short findings: the tag's commit date, the default
compression threshold (core constant and CLI settings default), the model token limits, the
non-ASCII weight of the token estimate, whether tool-output masking exists and is on by
default, what happens after a failed (inflated) compression, and whether history turns are
coalesced before compression, whether old function responses are truncated before the split (and
by lines or characters), and whether a verification probe follows the summary. Nothing upstream
is copied; the script prints numbers.

Usage:
    scripts/versions/gemini.py gemini-cli.git [--tags v0.17.0 …]
    scripts/versions/gemini.py REPO --json gemini.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys


def git(repo: str, *args: str) -> str | None:
    out = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def vkey(t: str) -> tuple:
    return tuple(int(x) for x in t[1:].split("."))


def tags(repo: str) -> list[str]:
    ts = [t for t in (git(repo, "tag") or "").split() if re.fullmatch(r"v0\.\d+\.\d+", t)]
    return sorted((t for t in ts if not t.startswith("v0.0.")), key=vkey)


def show(repo: str, tag: str, path: str) -> str:
    return git(repo, "show", f"{tag}:{path}") or ""


def find(repo: str, tag: str, pattern: str, under: str = "packages") -> list[str]:
    out = git(repo, "grep", "-l", "-E", pattern, tag, "--", under) or ""
    return [
        l.split(":", 1)[1]
        for l in out.splitlines()
        if not re.search(r"\.test\.|__snapshots__|/test-utils/|\.md$", l)
    ]


def analyse(repo: str, tag: str) -> dict:
    f: dict = {"tag": tag, "date": (git(repo, "log", "-1", "--format=%cs", tag) or "").strip()}
    # Threshold: the core constant and the CLI schema default that the CLI merges in.
    th = None
    for p in find(repo, tag, r"COMPRESSION_TOKEN_THRESHOLD = [0-9.]+", "packages/core/src"):
        m = re.search(r"COMPRESSION_TOKEN_THRESHOLD = ([0-9.]+)", show(repo, tag, p))
        if m:
            th = float(m.group(1))
            f["threshold_file"] = p
    f["threshold_core"] = th
    schema = show(repo, tag, "packages/cli/src/config/settingsSchema.ts")
    m = re.search(r"compressionThreshold: \{.{0,600}?default: ([0-9.]+|undefined)", schema, re.S) or re.search(
        r"contextPercentageThreshold.{0,400}?default: ([0-9.]+|undefined)", schema, re.S
    )
    f["threshold_settings_default"] = None if not m or m.group(1) == "undefined" else float(m.group(1))
    # Token limits.
    tl = show(repo, tag, "packages/core/src/core/tokenLimits.ts")
    consts = {
        m.group(1): m.group(2)
        for m in re.finditer(r"export const (\w+) = '([^']+)'", show(repo, tag, "packages/core/src/config/models.ts"))
    }
    limits = []
    pending = []
    for line in tl.splitlines():
        m = re.search(r"case ([\w'.\-]+):", line)
        if m:
            name = m.group(1).strip("'")
            pending.append(consts.get(name, name))
        m = re.search(r"return ([\d_]+|\w+);", line)
        if m and not m.group(1).replace("_", "").isdigit():
            cm = re.search(m.group(1) + r" = ([\d_]+)", tl)
            if cm:
                m = re.search(r"return (.*)", "return " + cm.group(1) + ";")
                m = re.match(r"return ([\d_]+)", m.group(0))
        if m and pending:
            v = m.group(1)
            v = int(v.replace("_", "")) if v.replace("_", "").isdigit() else v
            limits.append((pending, v))
            pending = []
    m = re.search(r"DEFAULT_TOKEN_LIMIT = ([\d_]+)", tl)
    f["default_token_limit"] = int(m.group(1).replace("_", "")) if m else None
    f["token_limits"] = [[", ".join(k), v] for k, v in limits]
    # The estimator and its non-ASCII weight.
    calc = show(repo, tag, "packages/core/src/utils/tokenCalculation.ts")
    m = re.search(r"NON_ASCII_TOKENS_PER_CHAR = ([0-9.]+)", calc) or re.search(
        r"(?:charCode|codePoint)[^;]*\n?[^;]*?\+= ?([0-9.]+)", calc
    )
    f["estimator"] = bool(calc)
    f["non_ascii_weight"] = float(m.group(1)) if m else None
    if calc and f["non_ascii_weight"] is None:
        m = re.search(r"tokens \+= ([0-9.]+);\s*\}", calc)
        f["non_ascii_weight"] = float(m.group(1)) if m else None
    # Masking.
    mask_files = find(repo, tag, r"class ToolOutputMaskingService", "packages/core/src")
    f["masking_service"] = bool(mask_files)
    m = re.search(r"toolOutputMasking.{0,900}?enabled: \{.{0,300}?default: (true|false)", schema, re.S) or re.search(
        r"outputMasking.{0,900}?enabled.{0,300}?default: (true|false)", schema, re.S
    )
    f["masking_default"] = m.group(1) if m else None
    client = show(repo, tag, "packages/core/src/core/client.ts")
    f["masking_gated_in_client"] = bool(
        re.search(r"if \([^)]*(isToolOutputMaskingEnabled|getToolOutputMaskingEnabled)\(\)", client)
    )
    # After a failed (inflated) compression.
    svc = ""
    for p in find(repo, tag, r"class ChatCompressionService", "packages/core/src"):
        svc = show(repo, tag, p)
    uses = [m.start() for m in re.finditer(r"hasFailedCompressionAttempt && !force", svc)]
    if not svc:
        f["after_failure"] = "in client.ts"
    elif any("CONTENT_TRUNCATED" in svc[i : i + 900] for i in uses):
        f["after_failure"] = "truncate-only"
    elif uses:
        f["after_failure"] = "noop"
    else:
        f["after_failure"] = "?"
    # The reverse-budget truncation of old function responses, and how it cuts.
    if "truncateHistoryToBudget" not in svc:
        f["truncation"] = "-"
    elif "COMPRESSION_TRUNCATE_LINES" in svc:
        f["truncation"] = "lines"
    else:
        f["truncation"] = "chars"
    # The verification probe (a second summariser call).
    f["probe"] = "-verify" in svc
    # What the trigger compares: the previous response's promptTokenCount, or a countTokens call.
    both = svc + client
    if re.search(r"originalTokenCount\s*=\s*\n?\s*uiTelemetryService\.getLastPromptTokenCount\(\)", both) or re.search(
        r"originalTokenCount = [\w.]*getLastPromptTokenCount\(\)", both
    ):
        f["trigger_input"] = "lastPromptTokenCount"
    elif re.search(r"totalTokens: originalTokenCount", both):
        f["trigger_input"] = "countTokens(history)"
    elif "getLastPromptTokenCount" in both or "lastPromptTokenCount" in both:
        f["trigger_input"] = "lastPromptTokenCount"
    else:
        f["trigger_input"] = "?"
    # Turn coalescing before compression.
    chat = show(repo, tag, "packages/core/src/core/geminiChat.ts")
    f["coalesce_turns"] = "coalesceConsecutiveRoles" in chat or bool(
        find(repo, tag, r"function coalesceConsecutiveRoles", "packages/core/src")
    )
    f["strip_thoughts"] = "stripThoughts" in chat
    # Per-UTF-16-unit iteration and the 100k fast path.
    f["estimator_fast_path_100k"] = "100_000" in calc or "100000" in calc
    f["estimator_per_utf16_unit"] = "charCodeAt" in calc
    return f


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo")
    ap.add_argument("--tags", nargs="*")
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args()
    ts = tags(a.repo)
    if a.tags:
        ts = [t for t in ts if t in a.tags]
    out = []
    print(f"{'tag':<9} {'date':<10} {'thr':>4} {'set':>4} {'est':>4} {'nonascii':>8} {'mask':<11} {'after-fail':<13} {'coalesce':<8} {'trigger':<11} {'trunc':<5} {'probe':<5} limits")
    for t in ts:
        f = analyse(a.repo, t)
        out.append(f)
        lim = "; ".join(f"{k}={v}" for k, v in f["token_limits"] if v != 1048576)
        mask = ("svc" if f["masking_service"] else "-") + (f"/{f['masking_default']}" if f["masking_default"] else "")
        print(
            f"{t:<9} {f['date']:<10} {f['threshold_core'] or '-':>4} {f['threshold_settings_default'] or '-':>4} "
            f"{'y' if f['estimator'] else '-':>4} {f['non_ascii_weight'] or '-':>8} {mask:<11} {f['after_failure']:<13} "
            f"{'y' if f['coalesce_turns'] else '-':<8} {f['trigger_input'][:11]:<11} {f['truncation']:<5} {'y' if f['probe'] else '-':<5} default={f['default_token_limit']} {lim}"
        )
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
