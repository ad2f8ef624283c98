#!/usr/bin/env python3
"""Claude Code's auto-compact trigger, version by version, read from the published npm package.

Claude Code is closed source but published on npm as `@anthropic-ai/claude-code`: a minified
`cli.js` up to 2.1.112, a Bun-compiled native binary (`@anthropic-ai/claude-code-linux-x64`,
whose JavaScript is embedded as text) from 2.1.113. For each version this script runs
`npm pack` into a temporary directory outside the repository, reads the bundle, locates the
auto-compact threshold by its stable anchors (the `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` variable,
`isAboveAutoCompactThreshold`, `query_autocompact_start`) and follows the minified names from
there to the constants. Nothing upstream is written into the repository: the tarballs and
bundles live in a temporary directory, and only short findings (numbers, a few de-minified
lines) are printed or cached as JSON.

Usage:
    scripts/versions/claude_code.py 2.1.19 2.1.29            # chosen versions
    scripts/versions/claude_code.py --range 2.1.0 2.1.40      # every published version between
    scripts/versions/claude_code.py --all                     # the default sample (see --help)
    scripts/versions/claude_code.py --all --json findings.json
    scripts/versions/claude_code.py 2.1.19 --show             # also print the resolved code

Findings are cached per version in $SESSIONS_VERSIONS_CACHE (default
~/.cache/sessions-versions/claude-code/<version>.json); --refresh ignores the cache.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PKG = "@anthropic-ai/claude-code"
NATIVE_PKG = "@anthropic-ai/claude-code-linux-x64"
# Bump when the extractor changes, so cached findings are recomputed.
EXTRACTOR = 7

# Models whose default threshold the summary prints (what transcripts record in message.model).
PROBE_MODELS = [
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-7",
    "claude-opus-4-5-20251101",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-haiku-4-5-20251001",
    "claude-sonnet-4-20250514",
    "claude-opus-4-1-20250805",
    "claude-3-7-sonnet-20250219",
    "claude-3-5-haiku-20241022",
]

NAME = r"[\w$]+"


# --- fetching -----------------------------------------------------------------------------


def npm(*args: str, cwd: str | None = None) -> str:
    out = subprocess.run(
        ["npm", *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"npm {' '.join(args)}: {out.stderr.strip()[-300:]}")
    return out.stdout


def published_versions() -> list[str]:
    return json.loads(npm("view", PKG, "versions", "--json"))


def vkey(v: str) -> tuple:
    core = re.split(r"[-+]", v, maxsplit=1)[0]
    return tuple(int(p) if p.isdigit() else 0 for p in core.split("."))


def fetch_bundle(version: str) -> tuple[str, str]:
    """The JavaScript text of one version and where it came from."""
    with tempfile.TemporaryDirectory(prefix="cc-versions-") as tmp:
        npm("pack", "-q", f"{PKG}@{version}", cwd=tmp)
        tgz = next(Path(tmp).glob("*.tgz"))
        with tarfile.open(tgz) as tf:
            names = tf.getnames()
            if "package/cli.js" in names:
                data = tf.extractfile("package/cli.js").read()
                return data.decode("latin-1"), "cli.js"
        tgz.unlink()
        npm("pack", "-q", f"{NATIVE_PKG}@{version}", cwd=tmp)
        tgz = next(Path(tmp).glob("*.tgz"))
        with tarfile.open(tgz) as tf:
            member = tf.getmember("package/claude")
            data = tf.extractfile(member).read()
        # The Bun binary embeds the bundle as text; latin-1 keeps byte offsets and never fails.
        text = data.decode("latin-1")
        # Keep only the neighbourhood of the JavaScript so regexes stay fast.
        # The binary also holds a string table of environment variable names; anchor on code.
        first = text.find("process.env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
        if first < 0:
            return text, "linux-x64 binary"
        # The bundle is ~15 MB of contiguous text; a window twice that size around the anchor
        # holds all of it.
        lo = max(0, first - 16_000_000)
        return text[lo : first + 16_000_000], "linux-x64 binary"


# --- minified-code helpers ------------------------------------------------------------------


def func_body(src: str, name: str, limit: int = 4000) -> str | None:
    """`function NAME(...){...}` with braces matched (strings and templates skipped roughly)."""
    m = re.search(r"function " + re.escape(name) + r"\(([^)]*)\)\{", src)
    if not m:
        return None
    i = m.end()
    depth = 1
    quote = None
    start = m.start()
    while i < len(src) and i - start < limit:
        c = src[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return src[start : i + 1]
        i += 1
    return src[start : start + limit]


def var_value(src: str, name: str) -> str | None:
    m = re.search(r"(?:var |let |const |[,;{(])" + re.escape(name) + r"=([^,;)}]+)", src)
    return m.group(1) if m else None


def num(src: str, token: str | None) -> float | None:
    """A literal or a variable holding one."""
    if token is None:
        return None
    token = token.strip()
    for _ in range(3):
        try:
            return float(token)
        except ValueError:
            pass
        v = var_value(src, token)
        if v is None:
            return None
        token = v.strip()
    return None


def enclosing_function(src: str, pos: int) -> str | None:
    """The name of the nearest `function NAME(` before pos."""
    lo = max(0, pos - 3000)
    names = re.findall(r"function (" + NAME + r")\(", src[lo:pos])
    return names[-1] if names else None


def compact(s: str | None, n: int = 400) -> str | None:
    if s is None:
        return None
    s = re.sub(r"\s+", " ", s)
    return s if len(s) <= n else s[:n] + "…"


# --- model tables ---------------------------------------------------------------------------

COND = r"((?:!?" + NAME + r"(?:\.includes\(\"[^\"]+\"\)|===\"[^\"]+\")(?:\|\||&&)?)+)"


def parse_chain(src: str, body: str) -> list[dict]:
    """An if/else-if chain of `x.includes("…")` tests into rows {match:[…], values:[…]}.

    Values are the literal numbers assigned (one for a plain max-output table, two for the
    later {default, upperLimit} table), in assignment order.
    """
    rows = []
    pat = re.compile(
        r"(?:else )?if\(" + COND + r"\)(return [\w$.]+|(?:" + NAME + r"=[\w$.]+,?)+)"
    )
    for m in pat.finditer(body):
        conds = re.findall(r"includes\(\"([^\"]+)\"\)", m.group(1))
        conds += ["=" + x for x in re.findall(r"===\"([^\"]+)\"", m.group(1))]
        if m.group(2).startswith("return "):
            vals = [num(src, m.group(2)[7:])]
        else:
            vals = [num(src, a.split("=")[1]) for a in m.group(2).rstrip(",").split(",")]
        rows.append({"match": conds, "values": vals})
    tail = re.search(r"\}?else (" + NAME + r"=[\w$.]+(?:," + NAME + r"=[\w$.]+)*)", body)
    if tail:
        vals = [num(src, a.split("=")[1]) for a in tail.group(1).split(",")]
        rows.append({"match": ["*"], "values": vals})
    else:
        # 1.0.x/2.0.0 style: early returns, then a default return at the end.
        last = re.findall(r"return (\d+)\}$", body)
        if last:
            rows.append({"match": ["*"], "values": [float(last[0])]})
    return rows


def canonical(model: str) -> str:
    """Claude Code's canonical model name (2.1.122+ tables compare it with ===)."""
    m = model.lower().replace("[1m]", "")
    m = re.sub(r"-\d{8}$", "", m)
    if re.fullmatch(r"claude-(opus|sonnet)-4", m):
        m += "-0"
    return m


def table_lookup(rows: list[dict], model: str) -> list[float] | None:
    m = model.lower()
    c = canonical(model)
    for r in rows:
        if r["match"] == ["*"] or any(
            (x[1:] == c) if x.startswith("=") else (x in m) for x in r["match"]
        ):
            return r["values"]
    return None


# --- the analysis ---------------------------------------------------------------------------


def analyse(src: str) -> dict:
    f: dict = {}
    pct = src.find("process.env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
    if pct < 0:
        pct = src.find("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
    thr_name = None
    if pct >= 0:
        thr_name = enclosing_function(src, pct)
    else:
        # Before the override existed: the function returning isAboveAutoCompactThreshold.
        m = re.search(r"isAboveAutoCompactThreshold:", src)
        if m:
            thr_name = enclosing_function(src, m.start())
    if not thr_name:
        f["error"] = "threshold function not found"
        return f
    thr = func_body(src, thr_name, 1500)
    f["threshold_fn"] = compact(thr, 600)

    eff_name = buffer = ratio = None
    m = re.search(
        r"let (" + NAME + r")=(" + NAME + r")\([^)]*\),(" + NAME + r")=\1-(" + NAME + r")", thr
    )
    if m:
        eff_name, buffer = m.group(2), num(src, m.group(4))
    elif "testPctOverride" in thr:
        # 2.1.122+: the env is read into an options object; a separate function applies it:
        # `T(effWindow, opts){let x=effWindow-BUFFER, p=opts.testPctOverride; …}` called as
        # `T(EFF(model, window), OPTS())`.
        f["shape"] = "options-object"
        for m in re.finditer(re.escape(thr_name) + r"\(\)", src):
            call = re.search(r"(" + NAME + r")\((" + NAME + r")\([^()]*\),$", src[max(0, m.start() - 120) : m.start()])
            if call:
                tb = func_body(src, call.group(1), 1500) or ""
                bm = re.search(r"let " + NAME + r"=" + NAME + r"-(" + NAME + r"|\d+),", tb)
                if bm and "testPctOverride" in tb:
                    f["threshold_fn"] = compact(tb, 600)
                    eff_name, buffer = call.group(2), num(src, bm.group(1))
                    break
    else:
        m = re.search(r"let " + NAME + r"=(" + NAME + r")\(\)-(" + NAME + r")", thr)
        if m:
            eff_name, buffer = m.group(1), num(src, m.group(2))
        else:
            m = re.search(r"let " + NAME + r"=(" + NAME + r")(\(\))?\*(" + NAME + r")", thr)
            if m:
                if m.group(2):
                    eff_name = m.group(1)
                else:
                    # 1.0.0: a constant window times the ratio, no output reservation.
                    f["window_constant"] = num(src, m.group(1))
                params = re.match(r"function " + NAME + r"\(([^)]*)\)", thr).group(1).split(",")
                ratio = None if m.group(3) in params else num(src, m.group(3))
                if ratio is not None and not 0 < ratio < 1:
                    ratio = None
                # The ratio is passed by the caller: find `X(…,RATIO)` with a numeric RATIO.
                for call in ([] if ratio else re.finditer(
                    re.escape(thr_name) + r"\(" + NAME + r",(" + NAME + r")\)", src
                )):
                    r = num(src, call.group(1))
                    if r is not None and 0 < r < 1:
                        ratio = r
                        break
    f["buffer"] = buffer
    f["ratio"] = ratio
    if pct >= 0:
        pm = re.search(
            r"Math\.floor\((" + NAME + r")\*\((" + NAME + r")/100\)\)\);?return Math\.min\(", thr
        ) or re.search(r"Math\.floor\(" + NAME + r"\*\(" + NAME + r"/100\)\)", thr)
        f["pct_override"] = (
            "min(floor(effective_window*pct/100), default threshold); 0<pct<=100"
            if pm and "Math.min(" in thr
            else compact(thr[thr.find("CLAUDE_AUTOCOMPACT") - 60 :], 300)
        )
    else:
        f["pct_override"] = None

    eff = func_body(src, eff_name, 1500) if eff_name else None
    f["effective_window_fn"] = compact(eff, 500)
    cap = res_name = win_name = None
    if eff:
        m = re.search(r"Math\.min\((" + NAME + r")\(" + NAME + r"\),(" + NAME + r"|\d+)\)", eff)
        if m:
            res_name, cap = m.group(1), num(src, m.group(2))
        else:
            m = re.search(r"let " + NAME + r"=" + NAME + r"\(\),(" + NAME + r")=(" + NAME + r")\(", eff)
            m = m or re.search(r"(" + NAME + r")=(" + NAME + r")\(" + NAME + r"\);return", eff)
            if m:
                res_name = m.group(2)
        m = re.search(r"\{window:" + NAME + r"\}=(" + NAME + r")\(", eff) or re.search(
            r"return (" + NAME + r")\(", eff
        )
        if m:
            win_name = m.group(1)
        else:
            m = re.search(r"return (" + NAME + r")-", eff)
            if m:
                f["window_constant"] = num(src, m.group(1))
    f["cap"] = cap

    # The reservation for output: a per-model table, an env override, or both.
    res = func_body(src, res_name, 2500) if res_name else None
    f["reserve_fn"] = compact(res, 700)
    table_src = res
    if res and "includes(" not in res and not re.search(r"===\"claude-", res):
        for callee in re.findall(r"(" + NAME + r")\(" + NAME + r"\)", res):
            b = func_body(src, callee, 2500)
            if b and ("includes(" in b or re.search(r"===\"claude-", b)):
                table_src = b
                f["model_table_fn"] = compact(b, 900)
                break
    f["model_table"] = parse_chain(src, table_src) if table_src else []
    env = re.search(
        r"name:\"CLAUDE_CODE_MAX_OUTPUT_TOKENS\",default:(\d+).{0,400}?if\(" + NAME + r">(\d+)\)",
        src,
    )
    f["env_max_output_default"] = float(env.group(1)) if env else None
    f["env_max_output_cap"] = float(env.group(2)) if env else None
    f["reserve_uses_env"] = bool(res and "CLAUDE_CODE_MAX_OUTPUT_TOKENS" in res) or bool(
        res and re.search(r"Math\.min\(" + NAME + r"\.effective", res)
    )

    # The context window.
    if win_name:
        win = func_body(src, win_name, 2500)
        f["window_fn"] = compact(win, 900)
        inner = re.search(r"(?:let |,)" + NAME + r"=(" + NAME + r")\(" + NAME + r",", win or "")
        if inner and win and "CLAUDE_CODE_AUTO_COMPACT_WINDOW" in win:
            f["model_window_fn"] = compact(func_body(src, inner.group(1), 1500), 700)
            m = re.search(r"return (" + NAME + r")\}$", func_body(src, inner.group(1), 1500) or "")
            f["window_default"] = num(src, m.group(1)) if m else None
        else:
            m = re.search(r"return (" + NAME + r")\}$", win or "")
            f["window_default"] = num(src, m.group(1)) if m else None
    # Models that get a 1M window without opting in: `if(X(model))return 1e6` where X compares
    # the canonical name with a literal (the `[1m]` suffix test and the beta test are not).
    one_m = []
    wsrc = " ".join(x for x in (f.get("model_window_fn"), f.get("window_fn")) if x)
    for m in re.finditer(r"if\((" + NAME + r")\(" + NAME + r"\)\)return 1e6", wsrc):
        b = func_body(src, m.group(1), 600) or ""
        if "[1m]" in b or "\\[1m" in b:
            continue
        one_m += re.findall(r"===\"(claude-[^\"]+)\"", b)
        one_m += ["~" + x for x in re.findall(r"includes\(\"([^\"]+)\"\)", b)]
    f["one_m_default_models"] = one_m
    f["auto_compact_window_env"] = "CLAUDE_CODE_AUTO_COMPACT_WINDOW" in src
    m = re.search(
        r"CLAUDE_CODE_AUTO_COMPACT_WINDOW\",process\.env\.CLAUDE_CODE_AUTO_COMPACT_WINDOW,("
        + NAME
        + r"),("
        + NAME
        + r")\)",
        src,
    )
    if m:
        f["auto_compact_window_bounds"] = [num(src, m.group(1)), num(src, m.group(2))]

    # What the check measures: the caller of the threshold test, `{isAboveAutoCompactThreshold:x}=T(v…)`.
    meas_name = None
    for m in re.finditer(r"\{isAboveAutoCompactThreshold:" + NAME + r"\}=" + NAME + r"\((" + NAME + r")", src):
        var = m.group(1)
        before = src[max(0, m.start() - 400) : m.start()]
        d = re.findall(r"[ ,(]" + re.escape(var) + r"=(" + NAME + r")\(", before)
        if d:
            meas_name = d[-1]
            f["measure_call"] = compact(before[before.rfind(var + "=" + d[-1]) :], 200)
            break
    if meas_name is None:
        # 2.1.x later: `let A=MEASURE(msgs)-freed, … log("autocompact: tokens=${A} …")`.
        for m in re.finditer(r"autocompact: tokens=\$\{(" + NAME + r")\}", src):
            before = src[max(0, m.start() - 400) : m.start()]
            d = re.findall(r"[ ,(]" + re.escape(m.group(1)) + r"=(" + NAME + r")\(", before)
            if d:
                meas_name = d[-1]
                f["measure_call"] = compact(before[before.rfind(m.group(1) + "=" + d[-1]) :], 200)
                break
    meas = func_body(src, meas_name, 1500) if meas_name else None
    f["measure_fn"] = compact(meas, 600)
    if meas:
        for c in re.findall(r"(" + NAME + r")\(", meas):
            b = func_body(src, c, 800)
            if b and "input_tokens" in b and "cache_read_input_tokens" in b:
                f["usage_sum_fn"] = compact(b, 300)
                first = b[: b.find("}") + 1]
                f["measure_includes_output"] = "output_tokens" in first
                break
        est = re.search(r"(" + NAME + r")\(" + NAME + r"\.slice\(", meas)
        f["measure_adds_estimate"] = bool(est)
        f["measure_groups_split_records"] = meas.count("while(") > 1
        if est:
            # Breadth-first through the estimator's callees to the per-block function.
            frontier, seen, bodies = [est.group(1)], set(), {}
            for _depth in range(5):
                nxt = []
                for n in frontier:
                    if n in seen:
                        continue
                    seen.add(n)
                    bb = func_body(src, n, 1500)
                    if not bb:
                        continue
                    bodies[n] = bb
                    for c in re.findall(r"(" + NAME + r")\(", bb[len("function " + n) :]):
                        if c not in seen and len(c) > 1 and c not in ("if", "for", "while", "return"):
                            nxt.append(c)
                frontier = nxt[:40]
            f["estimate_fn"] = compact(bodies.get(est.group(1)), 200)
            blk = [
                (n, bb)
                for n, bb in bodies.items()
                if '"tool_result"' in bb and '.type==="text")return' in bb
            ]
            if blk:
                n, bb = min(blk, key=lambda x: len(x[1]))
                f["estimate_block_fn"] = compact(bb, 700)
                rules = []
                for m in re.finditer(
                    r"if\(((?:" + NAME + r"\.type===\"[a-z_]+\"(?:\|\|)?)+)\)return ((?:\{\}|[^;}])+)", bb
                ):
                    kinds = re.findall(r"\"([a-z_]+)\"", m.group(1))
                    rules.append("/".join(kinds) + "→" + m.group(2))
                tail = re.search(r"return ([^;}]+)\}$", bb)
                if tail:
                    rules.append("other→" + tail.group(1))
                f["estimate_rules"] = rules
                t = re.search(r"\.type===\"text\"\)return (" + NAME + r")\(", bb)
                if t:
                    f["estimate_text_fn"] = compact(func_body(src, t.group(1), 400), 200)
    tok = re.search(r"function (" + NAME + r")\(" + NAME + r"\)\{return Math\.round\(" + NAME + r"\.length/4\)\}", src)
    f["estimator_round_len_div4"] = bool(tok)
    img = re.search(r"type===\"image\"\)return (\d+)", src)
    f["estimate_image_tokens"] = float(img.group(1)) if img else None

    # Where the check runs.
    q = src.find("query_autocompact_start")
    f["check_in_query_loop"] = q >= 0
    f["check_site"] = compact(src[q - 200 : q + 200], 400) if q >= 0 else None
    return f


def thresholds(f: dict) -> dict:
    """Default threshold per probe model, with no environment override."""
    out = {}
    for model in PROBE_MODELS:
        vals = table_lookup(f.get("model_table") or [], model)
        if vals is None and not f.get("reserve_fn") and f.get("window_constant"):
            vals = [0.0]
        if vals is None and f.get("reserve_uses_env") and f.get("env_max_output_default"):
            # 2.0.0 style: listed models get a fixed figure, every other the env default.
            vals = [f["env_max_output_default"]]
        if vals is None:
            out[model] = None
            continue
        model_max = vals[0]  # the default (the first value) is what the reservation uses
        reserve = model_max
        if f.get("reserve_uses_env") and f.get("env_max_output_default") and len(vals) == 1:
            reserve = min(model_max, f["env_max_output_default"])
        if f.get("cap"):
            reserve = min(reserve, f["cap"])
        window = f.get("window_default") or f.get("window_constant") or 200000
        if canonical(model) in (f.get("one_m_default_models") or []):
            window = 1_000_000
        if f.get("ratio"):
            out[model] = int((window - reserve) * f["ratio"])
        elif f.get("buffer") is not None:
            out[model] = int(window - reserve - f["buffer"])
        else:
            out[model] = None
    return out


def cached(version: str, cache: Path, refresh: bool, keep: bool) -> dict:
    path = cache / f"{version}.json"
    if path.exists() and not refresh:
        d = json.loads(path.read_text())
        if d.get("extractor") == EXTRACTOR:
            return d
    kept = cache / "bundles" / f"{version}.js.gz"
    if kept.exists():
        origin, _, src = gzip.decompress(kept.read_bytes()).decode("latin-1").partition("\n")
    else:
        src, origin = fetch_bundle(version)
        if keep:
            kept.parent.mkdir(parents=True, exist_ok=True)
            blob = (origin + "\n" + src).encode("latin-1", "replace")
            kept.write_bytes(gzip.compress(blob, compresslevel=1))
    d = {"version": version, "origin": origin, "extractor": EXTRACTOR, **analyse(src)}
    d["thresholds"] = thresholds(d)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(d, indent=1))
    return d


def default_sample(all_versions: list[str]) -> list[str]:
    """1.0.x every tenth, all 2.0.x, all 2.1.x."""
    out = []
    ones = [v for v in all_versions if v.startswith("1.0.")]
    out += ones[::10] + ones[-1:]
    out += [v for v in all_versions if v.startswith("2.")]
    return sorted(set(out), key=vkey)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--range", nargs=2, metavar=("FROM", "TO"))
    ap.add_argument("--all", action="store_true", help="1.0.x every tenth, every 2.0.x and 2.1.x")
    ap.add_argument("--refresh", action="store_true")
    ap.add_argument(
        "--keep-bundles",
        action="store_true",
        help="keep each bundle gzipped in the cache, so a changed extractor needs no download",
    )
    ap.add_argument("--show", action="store_true", help="print the resolved code for each version")
    ap.add_argument("--json", metavar="FILE", help="write all findings to FILE")
    ap.add_argument(
        "--cache",
        default=os.environ.get(
            "SESSIONS_VERSIONS_CACHE", str(Path.home() / ".cache/sessions-versions")
        ),
    )
    ap.add_argument("--reverse", action="store_true", help="newest first (for a second worker)")
    ap.add_argument("--bundle", metavar="FILE", help="analyse a local cli.js or binary instead")
    a = ap.parse_args()
    if a.bundle:
        data = Path(a.bundle).read_bytes().decode("latin-1")
        first = data.find("process.env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
        if len(data) > 40_000_000 and first >= 0:
            data = data[max(0, first - 16_000_000) : first + 16_000_000]
        d = analyse(data)
        d["thresholds"] = thresholds(d)
        print(json.dumps(d, indent=1))
        return 0
    versions = list(a.versions)
    if a.range or a.all:
        pub = published_versions()
        if a.range:
            lo, hi = vkey(a.range[0]), vkey(a.range[1])
            versions += [v for v in pub if lo <= vkey(v) <= hi]
        if a.all:
            versions += default_sample(pub)
    versions = sorted(set(versions), key=vkey, reverse=a.reverse)
    cache = Path(a.cache) / "claude-code"
    results = []
    cols = [
        ("sonnet-4.5", "claude-sonnet-4-5-20250929"),
        ("opus-4.7", "claude-opus-4-7"),
        ("haiku-4.5", "claude-haiku-4-5-20251001"),
        ("3.5-haiku", "claude-3-5-haiku-20241022"),
    ]
    hdr = f"{'version':<9} {'origin':<7} {'rule':<34} " + " ".join(f"{c:>10}" for c, _ in cols) + " measure"
    print(hdr)
    for v in versions:
        try:
            d = cached(v, cache, a.refresh, a.keep_bundles)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"{v:<9} error: {e}")
            continue
        results.append(d)
        t = d.get("thresholds", {})
        if d.get("ratio"):
            rule = f"(W-res)*{d['ratio']}"
        else:
            rule = f"W-min(res,{int(d['cap']) if d.get('cap') else '-'})-{int(d['buffer']) if d.get('buffer') else '?'}"
        if d.get("reserve_uses_env"):
            rule += f" env{int(d['env_max_output_default'] or 0)}"
        if d.get("auto_compact_window_env"):
            rule += " +ACW"
        meas = ("usage+out" if d.get("measure_includes_output") else "usage") + (
            "+est" if d.get("measure_adds_estimate") else ""
        )
        g = lambda m: str(t.get(m) or "-")  # noqa: E731
        print(
            f"{v:<9} {d['origin'][:7]:<7} {rule:<34} "
            + " ".join(f"{g(m):>10}" for _, m in cols)
            + f" {meas}",
            flush=True,
        )
        if a.show:
            for k in (
                "threshold_fn",
                "effective_window_fn",
                "reserve_fn",
                "model_table_fn",
                "window_fn",
                "model_window_fn",
                "measure_fn",
                "usage_sum_fn",
                "measure_call",
                "estimate_fn",
                "estimate_block_fn",
                "estimate_text_fn",
                "check_site",
            ):
                if d.get(k):
                    print(f"    {k}: {d[k]}")
            print(f"    model_table: {d.get('model_table')}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
