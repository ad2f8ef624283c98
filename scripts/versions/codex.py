#!/usr/bin/env python3
"""Codex CLI's auto-compact limit, release by release, read from the openai/codex git history.

Codex is open source. Given a git directory holding the `rust-vX.Y.Z` release tags (a clone of
https://github.com/openai/codex, or of a fork that carries the tags, e.g. weiyangzen/codex up to
0.115 and jiangshengdev/codex for 0.122–0.125), this
script reads, for each stable release tag, the files that decide the auto-compact limit and
prints short findings:

  * rule      – how the limit is derived: `none` (no default: only a configured
                `model_auto_compact_token_limit` compacts), `config|table` (configured value,
                else a per-model figure), `config|90%` (configured, else 90% of the model's
                context window), `min(config,90%)` (the configured value can only lower it);
  * recorded  – what token_count events record as `model_context_window`: the full window or
                the window times `effective_context_window_percent` (95);
  * per model – the context window and default limit for a few slugs.

Nothing is copied into the repository; the script reads `git show TAG:path` and prints numbers.

Usage:
    scripts/versions/codex.py codex.git [--tags 0.40.0 0.41.0] [--show]
    scripts/versions/codex.py REPO --json codex.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

PROBES = [
    "gpt-5",
    "gpt-5-codex",
    "gpt-5.1-codex-max",
    "gpt-5.2",
    "gpt-5.5",
    "o3",
    "codex-mini-latest",
    "gpt-4.1",
]


def git(repo: str, *args: str) -> str | None:
    out = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def tags(repo: str) -> list[str]:
    ts = []
    for t in (git(repo, "tag") or "").split():
        m = re.fullmatch(r"rust-v(\d+)\.(\d+)\.(\d+)", t)
        if m:
            ts.append(t)
    return sorted(ts, key=lambda t: tuple(int(x) for x in t[6:].split(".")))


def show(repo: str, tag: str, path: str) -> str | None:
    return git(repo, "show", f"{tag}:{path}")


def grep_files(repo: str, tag: str, pattern: str) -> list[str]:
    out = git(repo, "grep", "-l", "-E", pattern, tag, "--", "codex-rs")
    if not out:
        return []
    return [
        line.split(":", 1)[1]
        for line in out.splitlines()
        if not re.search(r"(^|/)tests?/|_tests?\.rs$|/tests\.rs$|\.json$|\.ts$", line)
    ]


def consts(src: str) -> dict[str, int]:
    return {
        m.group(1): int(m.group(2).replace("_", ""))
        for m in re.finditer(r"const (\w+): \w+ = ([\d_]+);", src)
    }


def value(tok: str, cs: dict[str, int]) -> int | None:
    tok = tok.strip()
    if re.fullmatch(r"[\d_]+", tok):
        return int(tok.replace("_", ""))
    return cs.get(tok)


def cond_to_py(cond: str) -> str | None:
    c = cond
    c = re.sub(r"slug\.starts_with\(\"([^\"]+)\"\)", r"s.startswith('\1')", c)
    c = re.sub(r"slug\.contains\(\"([^\"]+)\"\)", r"('\1' in s)", c)
    c = re.sub(r"slug == \"([^\"]+)\"", r"(s == '\1')", c)
    c = c.replace("||", " or ").replace("&&", " and ")
    c = re.sub(r"!(?!=)", " not ", c)
    if re.search(r"[^\w\s().'\-/:]", c.replace("==", "")):
        return None
    return c


def chain_rows(src: str, cs: dict[str, int]) -> list[tuple[str, int | None, int | None]]:
    """`if slug.starts_with(..) { … context_window: Some(W) … }` chains (model families)."""
    rows = []
    pat = re.compile(r"(?:else )?if ((?:[^{](?!\bif\b))*?slug\.(?:starts_with|contains)[^{]*)\{", re.S)
    ms = list(pat.finditer(src))
    for i, m in enumerate(ms):
        body = src[m.end() : ms[i + 1].start() if i + 1 < len(ms) else len(src)]
        cond = cond_to_py(" ".join(m.group(1).split()))
        w = re.search(r"context_window: Some\(([\w_]+)\)", body)
        lim = re.search(r"auto_compact_token_limit: Some\(([\w_]+)\)", body)
        if cond is None or not w:
            continue
        rows.append((cond, value(w.group(1), cs), value(lim.group(1), cs) if lim else None))
    return rows


def match_rows(src: str, cs: dict[str, int]) -> list[tuple[str, int | None, int | None]]:
    """`match slug { "a" | "b" => Some(ModelInfo::new(W, …)), _ if slug.starts_with(..) => … }`."""
    rows = []
    body = src[src.find("match slug") :]
    arms = re.split(r",\s*\n(?=\s*(?:\"|_ if|_ =>|//))|\}\s*\n(?=\s*(?:\"|_ if|_ =>))", body)
    for arm in arms:
        if "=>" not in arm:
            continue
        pat, rhs = arm.split("=>", 1)
        pat = " ".join(l for l in pat.splitlines() if not l.strip().startswith("//")).strip()
        if pat.startswith("match slug {"):
            pat = pat[len("match slug {") :].strip()
        if pat.startswith("_ if "):
            cond = cond_to_py(pat[5:])
        elif pat.startswith('"'):
            cond = " or ".join(f"(s == '{x}')" for x in re.findall(r"\"([^\"]+)\"", pat))
        else:
            continue
        w = re.search(r"ModelInfo::new\(\s*([\w_]+)", rhs) or re.search(
            r"context_window:\s*([\w_]+)", rhs
        )
        lim = re.search(r"auto_compact_token_limit: Some\(([\w_]+)\)", rhs)
        if cond and w:
            rows.append((cond, value(w.group(1), cs), value(lim.group(1), cs) if lim else None))
    return rows


def lookup(rows, slug: str):
    for cond, w, lim in rows:
        try:
            if eval(cond, {"__builtins__": {}}, {"s": slug}):  # noqa: S307 - grammar checked
                return w, lim
        except Exception:  # noqa: BLE001
            continue
    return None, None


def analyse(repo: str, tag: str) -> dict:
    f: dict = {"tag": tag, "version": tag[6:]}
    files = grep_files(repo, tag, r"fn (get_)?auto_compact_token_limit|fn get_model_info|fn find_family_for_model|fn find_model_info_for_slug|fn model_info_from_slug")
    f["files"] = files
    limit_src = None
    for p in files:
        s = show(repo, tag, p) or ""
        m = re.search(r"pub fn (get_)?auto_compact_token_limit\(&self\)[^{]*\{", s)
        if m:
            end = s.find("\n    }\n", m.end())
            body = s[m.end() : end]
            # A getter that only forwards (client.rs in later versions) is not the rule.
            if "9) / 10" in body or "get_model_info" in body or "min(" in body or "or(" in body:
                limit_src = (p, " ".join(body.split()))
                if "9) / 10" in body or "min(" in body:
                    break
    if limit_src:
        f["limit_fn"] = limit_src
        body = limit_src[1]
        if "min(" in body or ".min(" in body:
            f["rule"] = "min(config,90%)"
        elif "9) / 10" in body or "default_auto_compact_limit" in body:
            f["rule"] = "config|90%"
        elif "get_model_info" in body:
            f["rule"] = "config|table"
        else:
            f["rule"] = "?"
    else:
        f["rule"] = "none"
    # When the 90% lives in ModelInfo::new (0.50–0.6x) the getter reads `config | table`.
    for p in files:
        s = show(repo, tag, p) or ""
        if "fn default_auto_compact_limit" in s and f.get("rule") == "config|table":
            f["rule"] = "config|90%"
    # The per-model tables.
    rows = []
    for p in files:
        s = show(repo, tag, p) or ""
        cs = consts(s)
        for q in ("codex-rs/core/src/openai_model_info.rs", "codex-rs/core/src/model_family.rs"):
            if q != p:
                cs.update(consts(show(repo, tag, q) or ""))
        if "match slug" in s and "ModelInfo::new" in s:
            rows += match_rows(s, cs)
        if "starts_with" in s and "context_window: Some(" in s:
            rows += chain_rows(s, cs)
    f["default_90"] = any(
        "fn default_auto_compact_limit" in (show(repo, tag, p) or "") for p in files
    )
    models_json = None
    for p in ("codex-rs/core/models.json", "codex-rs/models-manager/models.json"):
        s = show(repo, tag, p)
        if s:
            try:
                d = json.loads(s)
                models_json = {
                    m["slug"]: (m.get("context_window"), m.get("auto_compact_token_limit"), m.get("effective_context_window_percent"))
                    for m in (d["models"] if isinstance(d, dict) else d)
                }
                f["models_json"] = p
            except (ValueError, KeyError, TypeError):
                pass
    # What token_count records as model_context_window.
    rec = "full"
    for p in grep_files(repo, tag, r"fn get_model_context_window|fn model_context_window"):
        s = show(repo, tag, p) or ""
        m = re.search(r"fn (get_)?model_context_window\(&self\)[^{]*\{(.{0,600}?)\n    \}", s, re.S)
        if m and "effective_context_window_percent" in m.group(2):
            rec = "effective%"
    f["recorded_window"] = rec
    probes = {}
    for slug in PROBES:
        src = None
        if models_json and slug in models_json:
            w, lim, pct = models_json[slug]
            src = "models.json"
        else:
            w, lim = lookup(rows, slug)
            pct = None
            src = "table" if w else None
        if w is None:
            probes[slug] = None
            continue
        if f["rule"] == "none":
            d = None
        elif f["rule"] == "config|table":
            d = lim
        else:
            d = lim if lim is not None and f["rule"] != "min(config,90%)" else w * 9 // 10
            if lim is not None and f["rule"] == "min(config,90%)":
                d = min(lim, w * 9 // 10)
        probes[slug] = {"window": w, "limit": d, "from": src, "pct": pct}
    f["probes"] = probes
    # The trigger.
    trig = []
    for p in grep_files(repo, tag, r"auto_compact_(token_)?limit"):
        if not p.endswith(".rs"):
            continue
        s = show(repo, tag, p) or ""
        for m in re.finditer(r"^.*(>=|>) *(auto_compact_(token_)?limit|limit)\b.*$", s, re.M):
            if "token" not in m.group(0):
                continue
            trig.append(f"{p.split('/')[-1]}: {m.group(0).strip()}")
    f["trigger"] = trig[:4]
    return f


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", nargs="+", help="git directories with rust-v* tags (later ones win)")
    ap.add_argument("--tags", nargs="*", help="only these versions (e.g. 0.40.0)")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args()
    by_tag: dict[str, str] = {}
    for r in a.repo:
        for t in tags(r):
            by_tag[t] = r
    order = sorted(by_tag, key=lambda t: tuple(int(x) for x in t[6:].split(".")))
    if a.tags:
        order = [t for t in order if t[6:] in a.tags]
    out = []
    print(f"{'version':<9} {'rule':<16} {'recorded':<10} " + " ".join(f"{p[:14]:>14}" for p in PROBES))
    for t in order:
        f = analyse(by_tag[t], t)
        out.append(f)
        cells = []
        for p in PROBES:
            d = f["probes"].get(p)
            cells.append("-" if not d else f"{d['window'] // 1000}k/{d['limit'] // 1000 if d['limit'] else '-'}{'k' if d['limit'] else ''}")
        print(f"{f['version']:<9} {f['rule']:<16} {f['recorded_window']:<10} " + " ".join(f"{c:>14}" for c in cells))
        if a.show:
            print(f"    files: {f['files']}")
            if f.get("limit_fn"):
                print(f"    limit_fn: {f['limit_fn'][0]}: {f['limit_fn'][1][:300]}")
            for tline in f["trigger"]:
                print(f"    trigger: {tline[:200]}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
