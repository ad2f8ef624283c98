#!/usr/bin/env python3
"""Check Claude Code's auto-compact thresholds against real transcripts.

For every `compact_boundary` with `trigger: "auto"` in the given transcripts, rebuild the
message list Claude Code held when it decided to compact (the parentUuid chain ending at the
boundary's `logicalParentUuid`, back to the previous boundary), and compute the number the
check compares, the way the recorded version computed it (see docs/versions.md):

    measure(messages) = usage(last assistant record with usage)          # input + cache
                        + estimate(records after it)                      # creation + cache read
                                                                          # + output
Then report:
  * `pre`      – the recorded compactMetadata.preTokens (Claude Code's own measure at the check
                 that fired);
  * `rebuilt`  – our measure of the same message list (should equal `pre` or be close: the
                 estimate of the trailing records is a heuristic and transcripts store split
                 records' usage as streamed);
  * `prev`     – our measure at the check before the previous request (the last check that did
                 not fire);
  * `thr`      – the threshold for the recorded version and model from the upstream findings
                 (scripts/versions/claude_code.py, cached JSON) or from --threshold.

A row passes when prev < thr <= pre. Exit status 1 if any row contradicts the table.

Usage:
    scripts/versions/check_claude_corpus.py ../shared/corpus/real/claude_compaction/*.jsonl
    scripts/versions/check_claude_corpus.py --json out.json FILES…
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import claude_code  # noqa: E402  (the same directory)


def vkey(v: str | None) -> tuple:
    return claude_code.vkey(v) if v else (0,)


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def js_round_div4(n: int) -> int:
    q, r = divmod(n, 4)
    return q + (1 if r >= 2 else 0)


def tok(s: str) -> int:
    return js_round_div4(utf16_len(s))


def js_json(v) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


# Estimator eras come from the upstream findings (eras_from): when the measure started adding an
# estimate of the records after the last usage, when tool_use/thinking blocks started counting
# (images then cost 2000 instead of 1334), and when split records of one response were grouped.


def est_block(b, full: bool) -> int:
    if isinstance(b, str):
        return tok(b)
    t = b.get("type")
    if t == "text":
        return tok(b.get("text") or "")
    if t == "image" or (full and t == "document"):
        return 2000 if full else 1334
    if t == "tool_result":
        return est_content(b.get("content"), full)
    if not full:
        return 0
    if t == "tool_use":
        return tok((b.get("name") or "") + js_json(b.get("input") or {}))
    if t == "thinking":
        return tok(b.get("thinking") or "")
    if t == "redacted_thinking":
        return tok(b.get("data") or "")
    return tok(js_json(b))


def est_content(c, full: bool) -> int:
    if not c:
        return 0
    if isinstance(c, str):
        return tok(c)
    return sum(est_block(b, full) for b in c)


def est_record(r, full: bool, attachments: bool) -> int:
    if r.get("type") in ("user", "assistant"):
        return est_content((r.get("message") or {}).get("content"), full)
    return 0


def usage_of(r):
    if r.get("type") != "assistant":
        return None
    m = r.get("message") or {}
    if "usage" not in m or m.get("model") == "<synthetic>":
        return None
    return m["usage"]


def usage_sum(u) -> int:
    return (
        (u.get("input_tokens") or 0)
        + (u.get("cache_creation_input_tokens") or 0)
        + (u.get("cache_read_input_tokens") or 0)
        + (u.get("output_tokens") or 0)
    )


def measure(msgs, version: str | None, eras: dict) -> int | None:
    v = vkey(version)
    full = eras["full_blocks_from"] is not None and v >= eras["full_blocks_from"]
    with_est = eras["estimate_from"] is not None and v >= eras["estimate_from"]
    group = eras["group_split_from"] is not None and v >= eras["group_split_from"]
    k = len(msgs) - 1
    while k >= 0:
        u = usage_of(msgs[k])
        if u is not None:
            if group:
                mid = (msgs[k].get("message") or {}).get("id")
                j = k - 1
                while j >= 0 and mid:
                    oid = (msgs[j].get("message") or {}).get("id") if msgs[j].get("type") == "assistant" else None
                    if oid == mid:
                        k = j
                    elif oid is not None:
                        break
                    j -= 1
            est = sum(est_record(r, full, False) for r in msgs[k + 1 :]) if with_est else 0
            return usage_sum(u) + est
        k -= 1
    return sum(est_record(r, full, False) for r in msgs) if with_est else None


def chain(by_uuid: dict, start: str | None) -> list:
    out = []
    seen = set()
    cur = by_uuid.get(start) if start else None
    while cur is not None and cur.get("uuid") not in seen:
        seen.add(cur.get("uuid"))
        out.append(cur)
        if cur.get("subtype") == "compact_boundary":
            break
        p = cur.get("parentUuid")
        cur = by_uuid.get(p) if p else None
    out.reverse()
    return out


def threshold_for(findings: dict, version: str | None, model: str | None):
    if not version or not model:
        return None, "no version/model"
    d = findings.get(version)
    if d is None:
        return None, f"no findings for {version}"
    probe = {"model_table": d.get("model_table")}
    for k in ("reserve_uses_env", "env_max_output_default", "cap", "window_default", "window_constant", "ratio", "buffer", "reserve_fn"):
        probe[k] = d.get(k)
    saved = claude_code.PROBE_MODELS
    claude_code.PROBE_MODELS = [model]
    try:
        t = claude_code.thresholds(probe)[model]
    finally:
        claude_code.PROBE_MODELS = saved
    return t, "upstream"


def load_findings(cache: Path) -> dict:
    out = {}
    for p in cache.glob("*.json"):
        try:
            d = json.loads(p.read_text())
        except ValueError:
            continue
        if "version" in d:
            out[d["version"]] = d
    return out


def eras_from(findings: dict) -> dict:
    def first(pred):
        vs = sorted((v for v, d in findings.items() if pred(d)), key=claude_code.vkey)
        return claude_code.vkey(vs[0]) if vs else None

    return {
        "estimate_from": first(lambda d: d.get("measure_adds_estimate")),
        "full_blocks_from": first(lambda d: any(r.startswith("tool_use") for r in d.get("estimate_rules") or [])),
        "group_split_from": first(lambda d: d.get("measure_groups_split_records")),
    }


def check_file(path: Path, findings: dict, eras: dict, fixed_thr: int | None) -> list[dict]:
    recs = []
    bad = 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                r = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(r, dict):
                recs.append(r)
    by_uuid = {r["uuid"]: r for r in recs if isinstance(r.get("uuid"), str)}
    rows = []
    for r in recs:
        if r.get("subtype") != "compact_boundary":
            continue
        meta = r.get("compactMetadata") or {}
        if meta.get("trigger") != "auto":
            continue
        msgs = chain(by_uuid, r.get("logicalParentUuid"))
        row_note = ""
        if not msgs:
            # 2.1.3x: logicalParentUuid can name a record that was never written (the newest
            # in-memory message). Start from the last main-chain message written before the
            # boundary instead; only the trailing estimate of `rebuilt` is then incomplete.
            idx = recs.index(r)
            for q in reversed(recs[:idx]):
                if q.get("type") in ("user", "assistant") and not q.get("isSidechain"):
                    msgs = chain(by_uuid, q.get("uuid"))
                    row_note = "logicalParentUuid not in file"
                    break
        version = r.get("version")
        model = None
        for m in reversed(msgs):
            if usage_of(m) is not None:
                model = (m.get("message") or {}).get("model")
                break
        row = {
            "file": path.name,
            "version": version,
            "model": model,
            "pre": meta.get("preTokens"),
            "messages": len(msgs),
            "note": row_note,
        }
        row["rebuilt"] = measure(msgs, version, eras)
        # The check before the previous request: the list up to the first record of the last
        # response (its records share message.id).
        last = max((i for i, m in enumerate(msgs) if usage_of(m) is not None), default=None)
        if last is not None:
            mid = (msgs[last].get("message") or {}).get("id")
            # Parallel tool calls are recorded interleaved with their results (tool_use, result,
            # tool_use, result, …), all under the response's message.id: the request was sent
            # before the first of them.
            i = min(
                (j for j, m in enumerate(msgs) if m.get("type") == "assistant" and mid and (m.get("message") or {}).get("id") == mid),
                default=last,
            )
            # Records between the previous response and this one (tool results, attachments) were
            # in the list when that check ran.
            row["prev"] = measure(msgs[:i], version, eras)
        else:
            row["prev"] = None
        if fixed_thr is not None:
            row["thr"], row["thr_source"] = fixed_thr, "--threshold"
        else:
            row["thr"], row["thr_source"] = threshold_for(findings, version, model)
        pre, prev, thr = row["pre"], row["prev"], row["thr"]
        if thr is None or pre is None or prev is None:
            row["verdict"] = "n/a"
        elif prev < thr <= pre:
            row["verdict"] = "ok"
        else:
            row["verdict"] = "CONTRADICTS"
        rows.append(row)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--threshold", type=int, help="use one threshold instead of the findings")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument(
        "--cache",
        default=os.environ.get("SESSIONS_VERSIONS_CACHE", str(Path.home() / ".cache/sessions-versions")),
    )
    a = ap.parse_args()
    findings = load_findings(Path(a.cache) / "claude-code")
    eras = eras_from(findings)
    rows = []
    for f in a.files:
        rows += check_file(Path(f), findings, eras, a.threshold)
    print(f"{'file':<40} {'version':<8} {'model':<26} {'prev':>7} {'thr':>7} {'pre':>7} {'rebuilt':>7}  verdict")
    for r in rows:
        print(
            f"{r['file'][:40]:<40} {str(r['version']):<8} {str(r['model'])[:26]:<26} {str(r['prev']):>7} "
            f"{str(r['thr']):>7} {str(r['pre']):>7} {str(r['rebuilt']):>7}  {r['verdict']}"
            + (f"  ({r['note']})" if r.get("note") else "")
        )
    bad = [r for r in rows if r["verdict"] == "CONTRADICTS"]
    print(f"\n{len(rows)} automatic compactions, {sum(r['verdict'] == 'ok' for r in rows)} ok, {len(bad)} contradict, "
          f"{sum(r['verdict'] == 'n/a' for r in rows)} not checkable")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
