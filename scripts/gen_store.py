#!/usr/bin/env python3
"""Generate a synthetic HOME with Claude Code, Codex CLI and Gemini CLI session stores.

    scripts/gen_store.py OUT_DIR [--size-gb 1.0] [--seed 1] [--end-date 2026-11-20] [--jobs N]

Writes, under OUT_DIR (each agent gets roughly a third of the bytes):

* OUT/.claude/projects/-home-dev-projN/<uuid>.jsonl                 main sessions
  OUT/.claude/projects/-home-dev-projN/<uuid>/subagents/agent-<id>.jsonl (+ .meta.json)
* OUT/.codex/sessions/2026/MM/DD/rollout-2026-MM-DDThh-mm-ss-<uuidv7>.jsonl  (envelope era)
* OUT/.gemini/tmp/projN/.project_root, OUT/.gemini/tmp/projN/chats/session-<ts>-<id8>.jsonl
  (v0.39+ JSONL) and OUT/.gemini/projects.json

Record shapes follow /work/shared/spec/formats.md §1-§3 and the real files in the corpus.
Every file's mtime is set to its last record's timestamp, so sessions are spread over
2026-01-01 .. --end-date and `--since 7d` style filters can skip most files by mtime.

The output depends only on (--size-gb, --seed, --end-date): every file is generated from its
own seeded RNG, so the worker count does not change a byte. Python 3.11, stdlib only.
Timestamps are UTC; Codex folder/file-name stamps (local time for the real CLI) are written
in UTC too, so run the tools with TZ=UTC if a byte-exact day split matters.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import sys
import time
from datetime import datetime, timezone

KB = 1024
MB = 1024 * 1024
GB = 1024 * MB

MARKER = ".gen-store.json"
OVERSHOOT = 1.065  # files end after the turn that crosses their target size
YEAR_START = datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp()


def js(s: str) -> str:
    """A JSON string literal (UTF-8 kept as is, like the agents write it)."""
    return json.dumps(s, ensure_ascii=False)


def esc(s: str) -> str:
    """JSON-escape s without the surrounding quotes."""
    return json.dumps(s, ensure_ascii=False)[1:-1]


NL = "\\n"  # an escaped newline inside a JSON string body


def cut(e: str, n: int) -> str:
    """Cut an escaped JSON string body to n chars without splitting an escape sequence."""
    e = e[:n]
    k = len(e) - len(e.rstrip("\\"))
    return e[:-1] if k % 2 else e


def ts(t: float) -> str:
    """ISO-8601 UTC with milliseconds: 2026-04-23T12:53:02.597Z."""
    ms = int((t - int(t)) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % ms


def uuid4(rng: random.Random) -> str:
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"


def uuid7(rng: random.Random, t: float) -> str:
    ms = "%012x" % int(t * 1000)
    h = "%020x" % rng.getrandbits(80)
    return f"{ms[:8]}-{ms[8:12]}-7{h[:3]}-{'89ab'[int(h[3], 16) & 3]}{h[4:7]}-{h[7:19]}"


def alnum(rng: random.Random, n: int) -> str:
    chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(rng.choice(chars) for _ in range(n))


def hexid(rng: random.Random, n: int) -> str:
    return ("%0*x" % (n, rng.getrandbits(4 * n)))[:n]


# --------------------------------------------------------------------------------------------
# Text pools: built once per process from the seed; every file picks from them.

WORDS = (
    "the a to of and in for is on with that this it as be by we at from or not are if can "
    "function return value error config file path test build module parser session token "
    "record line field struct impl trait enum match option result string vector buffer "
    "reader writer cache index stream thread worker queue handler request response client "
    "server route schema migration column table query filter project agent model usage "
    "summary output input context message timestamp offset length bytes decode encode json "
    "async await future spawn lock mutex channel retry timeout backoff status code check "
    "update refactor rename extract inline split merge parse validate normalize compute"
).split()
IDENTS = (
    "parse_line read_file SessionSummary TokenUsage scan_dir load_config handle_request "
    "build_index ProjectIndex from_str to_string iter_records merge_usage write_json "
    "resolve_path open_store DiagSink collect_files compute_totals render_table apply_filter "
    "start_time end_time session_id project_hash message_id request_id call_id tool_name"
).split()
EXTS = ["rs", "py", "ts", "go", "tsx", "md", "toml", "json", "yaml", "sh"]
DIRS = ["src", "src/parse", "src/commands", "tests", "lib", "pkg/api", "internal/store",
        "app/components", "scripts", "docs"]
CJK = ("請幫我檢查一下這個函式為何會失敗並修正測試", "帮我重构这个模块并补充单元测试",
       "このエラーの原因を調べて修正してください", "로그 파서를 더 빠르게 만들어 주세요")
PROMPTS = [
    "Fix the failing test in {f} and explain what was wrong.",
    "Refactor {f} so that {i} no longer allocates on every call.",
    "Add a --json flag to the {w} command and document it in the README.",
    "Why does {i} return an empty result when the {w} is missing? Investigate and fix.",
    "Write unit tests for {i} covering the edge cases around {w} and {w2}.",
    "Run the test suite and fix whatever is broken.",
    "Can you review {f} for performance problems? The {w} path is slow on large inputs.",
    "Rename {i} to something clearer across the codebase.",
    "The CI build fails with a type error in {f}. Please fix it.",
    "Implement pagination for the {w} endpoint, default page size 50.",
    "Update the dependencies and make sure everything still compiles.",
    "Explain how {i} works and draw the data flow between {w} and {w2}.",
    "Migrate {f} from callbacks to async/await.",
    "Add structured logging around {i}; include the {w} and the elapsed time.",
    "There's a race condition when two workers update the same {w}. Find and fix it.",
    "Please continue.",
    "ok, commit this with a good message",
    "Now do the same for {f}.",
]
TOOLS_CLAUDE = ["Bash", "Bash", "Bash", "Read", "Read", "Read", "Edit", "Grep", "Glob", "Write",
                "TodoWrite"]
CLAUDE_MODELS = ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929",
                 "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001"]
CLAUDE_VERSIONS = ["2.0.76", "2.1.9", "2.1.31", "2.1.59", "2.1.104", "2.1.126"]
CODEX_MODELS = ["gpt-5.1-codex-max", "gpt-5.2-codex", "gpt-5.2", "gpt-5.3-codex"]
CODEX_VERSIONS = ["0.77.0", "0.86.0", "0.98.0", "0.104.0", "0.118.0"]
GEMINI_MODELS = ["gemini-2.5-pro", "gemini-3-pro-preview", "gemini-3-flash-preview",
                 "gemini-2.5-flash"]


def sentence(rng: random.Random, n: int) -> str:
    w = [rng.choice(WORDS) for _ in range(n)]
    if rng.random() < 0.3:
        w[rng.randrange(n)] = "`" + rng.choice(IDENTS) + "`"
    return " ".join(w).capitalize() + "."


def paragraph(rng: random.Random, chars: int) -> str:
    out, n = [], 0
    while n < chars:
        s = sentence(rng, rng.randint(6, 18))
        out.append(s)
        n += len(s) + 1
    if rng.random() < 0.05:
        out.append(rng.choice(CJK))
    return " ".join(out)


def src_path(rng: random.Random) -> str:
    return f"{rng.choice(DIRS)}/{rng.choice(IDENTS).lower()}.{rng.choice(EXTS)}"


def code_line(rng: random.Random) -> str:
    k = rng.random()
    ind = "    " * rng.randint(0, 3)
    a, b = rng.choice(IDENTS), rng.choice(IDENTS)
    if k < 0.25:
        return f"{ind}let {a.lower()} = {b}(&{rng.choice(WORDS)}, {rng.randint(0, 4096)})?;"
    if k < 0.45:
        return f"{ind}if {a.lower()}.is_empty() {{ return Err(Error::{b}); }}"
    if k < 0.6:
        return f"{ind}// {sentence(rng, rng.randint(4, 12))}"
    if k < 0.75:
        return f"{ind}fn {a.lower()}(&self, {b.lower()}: &str) -> Result<{b}> {{"
    if k < 0.85:
        return f'{ind}"{rng.choice(WORDS)}": "{rng.choice(WORDS)}-{rng.randint(1, 999)}",'
    return ind + "}"


def tool_text(rng: random.Random, chars: int) -> str:
    """A realistic-looking tool output of about `chars` characters."""
    kind = rng.random()
    lines, n = [], 0
    if kind < 0.35:  # numbered source listing (Read / cat -n)
        i = rng.randint(1, 400)
        while n < chars:
            ln = f"{i:6d}\u2192{code_line(rng)}"
            lines.append(ln)
            n += len(ln) + 1
            i += 1
    elif kind < 0.55:  # grep results
        while n < chars:
            ln = f"{src_path(rng)}:{rng.randint(1, 2000)}:{code_line(rng).strip()}"
            lines.append(ln)
            n += len(ln) + 1
    elif kind < 0.75:  # test / build log
        lines.append(f"running {rng.randint(5, 400)} tests")
        while n < chars:
            r = rng.random()
            name = f"{rng.choice(IDENTS).lower()}::{rng.choice(IDENTS).lower()}"
            if r < 0.85:
                ln = f"test {name} ... ok"
            elif r < 0.93:
                ln = f"   Compiling {rng.choice(IDENTS).lower()} v0.{rng.randint(1, 40)}.{rng.randint(0, 9)}"
            else:
                ln = f"test {name} ... FAILED\n    assertion failed: left == right\n      left: {rng.randint(0, 99)}\n     right: {rng.randint(0, 99)}"
            lines.append(ln)
            n += len(ln) + 1
        lines.append(f"test result: ok. {rng.randint(5, 400)} passed; 0 failed; finished in {rng.random() * 9:.2f}s")
    elif kind < 0.88:  # ls -la
        lines.append(f"total {rng.randint(8, 900)}")
        while n < chars:
            ln = (f"-rw-r--r--  1 dev dev {rng.randint(10, 99999):6d} Mar {rng.randint(1, 28):2d} "
                  f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {rng.choice(IDENTS).lower()}.{rng.choice(EXTS)}")
            lines.append(ln)
            n += len(ln) + 1
    else:  # git diff
        f = src_path(rng)
        lines.append(f"diff --git a/{f} b/{f}\n--- a/{f}\n+++ b/{f}")
        while n < chars:
            ln = f"@@ -{rng.randint(1, 900)},7 +{rng.randint(1, 900)},8 @@" if rng.random() < 0.1 else \
                rng.choice(" +-") + code_line(rng)
            lines.append(ln)
            n += len(ln) + 1
    return "\n".join(lines)


class Pools:
    """Pre-rendered, pre-escaped texts shared by all files of a process."""

    def __init__(self, seed: int):
        rng = random.Random(seed * 7919 + 17)
        self.outputs = []  # (esc1, esc2): escaped once (JSON string body) and twice
        for _ in range(600):
            size = int(min(120 * KB, max(60, rng.lognormvariate(math.log(1400), 1.3))))
            e1 = esc(tool_text(rng, size))
            self.outputs.append((e1, esc(e1)))
        self.outputs.sort(key=lambda o: len(o[0]))
        self.big = [o for o in self.outputs if len(o[0]) > 8 * KB]
        self.thinking = [esc(paragraph(rng, int(rng.lognormvariate(math.log(600), 0.9)) + 40))
                         for _ in range(300)]
        self.texts = [esc(paragraph(rng, int(rng.lognormvariate(math.log(350), 1.0)) + 20))
                      for _ in range(300)]
        self.prompts = []
        for _ in range(300):
            p = rng.choice(PROMPTS).format(f=src_path(rng), i=rng.choice(IDENTS),
                                           w=rng.choice(WORDS), w2=rng.choice(WORDS))
            if rng.random() < 0.3:
                p += "\n\n" + paragraph(rng, rng.randint(80, 1200))
            if rng.random() < 0.04:
                p = rng.choice(CJK) + "\n" + p
            self.prompts.append(esc(p))
        self.titles = [esc(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 7))).capitalize())
                       for _ in range(200)]
        self.sigs = [base64.b64encode(rng.randbytes(rng.randint(250, 1100))).decode() for _ in range(64)]
        self.encrypted = ["gAAAAA" + base64.urlsafe_b64encode(rng.randbytes(rng.randint(600, 4000))).decode()
                          for _ in range(64)]
        self.instructions = esc(
            "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a "
            "user's computer.\n\n## General\n\n" + "\n\n".join(paragraph(rng, 700) for _ in range(9)))
        self.agents_md = esc("\n".join(paragraph(rng, 300) for _ in range(5)))
        self.compact_summary = esc(
            "This session is being continued from a previous conversation that ran out of context. "
            "The conversation is summarized below:\nAnalysis:\n" + paragraph(rng, 1500) +
            "\n\nSummary:\n1. Primary Request and Intent:\n   " + paragraph(rng, 900) +
            "\n2. Key Technical Concepts:\n   " + paragraph(rng, 700) +
            "\n3. Files and Code Sections:\n   " + paragraph(rng, 1800) +
            "\n4. Pending Tasks:\n   " + paragraph(rng, 400))

    def output(self, rng: random.Random, big: bool = False):
        if big and self.big and rng.random() < 0.5:
            return rng.choice(self.big)
        return rng.choice(self.outputs)


POOLS: Pools | None = None


def init_worker(seed: int) -> None:
    global POOLS
    POOLS = Pools(seed)


# --------------------------------------------------------------------------------------------
# Claude Code

def claude_file(rng: random.Random, P: Pools, target: int, start: float, cwd: str, sid: str,
                agent_id: str | None = None, n_tasks: int = 0, compact: bool = False):
    """Return (text, end_time, [(Task tool_use id, time)]) for one Claude transcript."""
    side = agent_id is not None
    version = rng.choice(CLAUDE_VERSIONS)
    model = rng.choice(CLAUDE_MODELS)
    branch = rng.choice(["main", "main", "main", "dev", f"feat/{rng.choice(IDENTS).lower()}"])
    env = (f'"isSidechain":{"true" if side else "false"},"userType":"external","cwd":"{cwd}",'
           f'"sessionId":"{sid}","version":"{version}","gitBranch":"{branch}"')
    if side:
        env += f',"agentId":"{agent_id}"'
    else:
        env += f',"slug":"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{rng.choice(WORDS)}"'
    pmode = "" if side else ',"permissionMode":"default"'
    out: list[str] = []
    size = 0
    t = start
    parent = "null"
    ctx = rng.randint(9000, 22000)  # prompt size (tokens) of the next request
    tasks: list[tuple[str, float]] = []
    big = target > 8 * MB
    turn = 0

    def emit(line: str):
        nonlocal size
        out.append(line)
        size += len(line) + 1

    if not side and rng.random() < 0.08:
        for _ in range(rng.randint(1, 4)):
            emit(f'{{"type":"summary","summary":"{rng.choice(P.titles)}","leafUuid":"{uuid4(rng)}"}}')

    while size < target:
        # ---- human prompt
        if not side:
            mid = uuid4(rng)
            emit(f'{{"type":"file-history-snapshot","messageId":"{mid}","snapshot":{{"messageId":"{mid}",'
                 f'"trackedFileBackups":{{}},"timestamp":"{ts(t)}"}},"isSnapshotUpdate":false}}')
        u = uuid4(rng)
        prompt = rng.choice(P.prompts)
        emit(f'{{"parentUuid":{parent},{env},"type":"user","message":{{"role":"user","content":"{prompt}"}},'
             f'"uuid":"{u}","timestamp":"{ts(t)}"{pmode}}}')
        parent = f'"{u}"'
        ctx += len(prompt) // 4
        if turn == 1 and not side and rng.random() < 0.5:
            emit(f'{{"type":"ai-title","sessionId":"{sid}","aiTitle":"{rng.choice(P.titles)}"}}')
        turn += 1
        steps = rng.randint(1, 9)
        for step in range(steps + 1):
            final = step == steps
            t += rng.uniform(1.5, 25.0)
            msg_id = "msg_01" + alnum(rng, 22)
            req_id = "req_011C" + alnum(rng, 16)
            cc = rng.randint(200, 6000)
            cr = ctx
            blocks = []
            if rng.random() < 0.6:
                blocks.append(f'{{"type":"thinking","thinking":"{rng.choice(P.thinking)}","signature":"{rng.choice(P.sigs)}"}}')
            if final or rng.random() < 0.5:
                blocks.append(f'{{"type":"text","text":"{rng.choice(P.texts)}"}}')
            calls = []
            if not final:
                for _ in range(1 if rng.random() < 0.75 else rng.randint(2, 4)):
                    tu = "toolu_01" + alnum(rng, 24)
                    if len(tasks) < n_tasks and not side:
                        name = "Task"
                        desc = rng.choice(P.titles)
                        inp = (f'{{"description":"{desc}","prompt":"{rng.choice(P.prompts)}",'
                               f'"subagent_type":"general-purpose"}}')
                        tasks.append((tu, t))
                    else:
                        name = rng.choice(TOOLS_CLAUDE)
                        f = f"{cwd}/{src_path(rng)}"
                        if name == "Bash":
                            inp = f'{{"command":"{rng.choice(["cargo test", "npm run build", "git status", "ls -la", "rg -n TODO src", "pytest -x -q"])}","description":"{rng.choice(P.titles)}"}}'
                        elif name == "Read":
                            inp = f'{{"file_path":"{f}"}}'
                        elif name == "Edit":
                            inp = f'{{"file_path":"{f}","old_string":"{esc(code_line(rng))}","new_string":"{esc(code_line(rng))}"}}'
                        elif name == "Write":
                            inp = f'{{"file_path":"{f}","content":"{rng.choice(P.outputs)[0]}"}}'
                        elif name == "TodoWrite":
                            inp = ('{"todos":[' + ",".join(
                                f'{{"content":"{rng.choice(P.titles)}","status":"{rng.choice(["pending", "in_progress", "completed"])}","activeForm":"{rng.choice(P.titles)}"}}'
                                for _ in range(rng.randint(2, 6))) + "]}")
                        else:
                            inp = f'{{"pattern":"{rng.choice(IDENTS)}","path":"{cwd}"}}'
                    blocks.append(f'{{"type":"tool_use","id":"{tu}","name":"{name}","input":{inp}}}')
                    calls.append((tu, name))
            # one record per content block, same message.id/requestId, copied usage
            out_tokens_final = rng.randint(20, 1800)
            for k, block in enumerate(blocks):
                u = uuid4(rng)
                last = k == len(blocks) - 1
                ot = out_tokens_final if last else rng.randint(1, 12)
                stop = ('"end_turn"' if final else '"tool_use"') if last and rng.random() < 0.3 else "null"
                emit(f'{{"parentUuid":{parent},{env},"message":{{"model":"{model}","id":"{msg_id}",'
                     f'"type":"message","role":"assistant","content":[{block}],"stop_reason":{stop},'
                     f'"stop_sequence":null,"usage":{{"input_tokens":{rng.randint(1, 12)},'
                     f'"cache_creation_input_tokens":{cc},"cache_read_input_tokens":{cr},'
                     f'"cache_creation":{{"ephemeral_5m_input_tokens":{cc},"ephemeral_1h_input_tokens":0}},'
                     f'"output_tokens":{ot},"service_tier":"standard"}}}},"requestId":"{req_id}",'
                     f'"type":"assistant","uuid":"{u}","timestamp":"{ts(t)}"}}')
                parent = f'"{u}"'
                t += rng.uniform(0.05, 1.5)
            ctx += cc + out_tokens_final
            assistant_uuid = parent
            for tu, name in calls:
                t += rng.uniform(0.2, 30.0)
                if name == "Bash" and rng.random() < 0.3:
                    for j in range(rng.randint(1, 3)):
                        u = uuid4(rng)
                        emit(f'{{"parentUuid":{parent},{env},"type":"progress","data":{{"type":"bash_progress",'
                             f'"output":"{cut(rng.choice(P.outputs)[0], 400)}","fullOutput":"{cut(rng.choice(P.outputs)[0], 800)}",'
                             f'"elapsedTimeSeconds":{j + 2},"totalLines":{rng.randint(5, 300)}}},'
                             f'"toolUseID":"bash-progress-{j}","parentToolUseID":"{tu}","uuid":"{u}","timestamp":"{ts(t)}"}}')
                        parent = f'"{u}"'
                elif rng.random() < 0.05:
                    u = uuid4(rng)
                    emit(f'{{"parentUuid":{parent},{env},"type":"progress","data":{{"type":"hook_progress",'
                         f'"hookEvent":"PostToolUse","hookName":"PostToolUse:{name}","command":"./hooks/lint.sh"}},'
                         f'"parentToolUseID":"{tu}","toolUseID":"{tu}","uuid":"{u}","timestamp":"{ts(t)}"}}')
                    parent = f'"{u}"'
                u = uuid4(rng)
                e1, _ = P.output(rng, big)
                ctx += len(e1) // 4
                if name == "Task":
                    res = (f'{{"status":"completed","prompt":"{rng.choice(P.prompts)}","agentId":"@AGENT:{tu}@",'
                           f'"content":[{{"type":"text","text":"{e1}"}}],"totalDurationMs":{rng.randint(20000, 600000)},'
                           f'"totalTokens":{rng.randint(20000, 200000)},"totalToolUseCount":{rng.randint(3, 60)}}}')
                    content = f'[{{"type":"text","text":"{e1}"}}]'
                    err = "false"
                elif rng.random() < 0.05:
                    content = f'"<tool_use_error>Error: {cut(rng.choice(P.texts), 200)}</tool_use_error>"'
                    res = f'"Error: {cut(rng.choice(P.texts), 200)}"'
                    err = "true"
                elif name == "Read":
                    content = f'"{e1}"'
                    nl = e1.count(NL) + 1
                    res = (f'{{"type":"text","file":{{"filePath":"{cwd}/{src_path(rng)}","content":"{e1}",'
                           f'"numLines":{nl},"startLine":1,"totalLines":{nl}}}}}')
                    err = "false"
                else:
                    content = f'"{e1}"'
                    res = f'{{"stdout":"{e1}","stderr":"","interrupted":false,"isImage":false}}'
                    err = "false"
                emit(f'{{"parentUuid":{parent},{env},"type":"user","message":{{"role":"user","content":'
                     f'[{{"tool_use_id":"{tu}","type":"tool_result","content":{content},"is_error":{err}}}]}},'
                     f'"uuid":"{u}","timestamp":"{ts(t)}","toolUseResult":{res},"sourceToolAssistantUUID":{assistant_uuid}}}')
                parent = f'"{u}"'
            if size >= target and step < steps:
                break
        if not side and rng.random() < 0.3:
            u = uuid4(rng)
            emit(f'{{"parentUuid":{parent},{env},"type":"system","subtype":"turn_duration",'
                 f'"durationMs":{rng.randint(3000, 900000)},"messageCount":{steps * 3},"isMeta":false,'
                 f'"uuid":"{u}","timestamp":"{ts(t)}"}}')
            parent = f'"{u}"'
        if compact and ctx > 155000:  # auto-compaction near the context limit
            t += rng.uniform(20, 90)
            b = uuid4(rng)
            emit(f'{{"parentUuid":null,"logicalParentUuid":{parent},{env},"type":"system",'
                 f'"subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,'
                 f'"timestamp":"{ts(t)}","uuid":"{b}","level":"info","compactMetadata":{{"trigger":"auto",'
                 f'"preTokens":{ctx}}}}}')
            u = uuid4(rng)
            emit(f'{{"parentUuid":"{b}",{env},"type":"user","message":{{"role":"user","content":'
                 f'"{P.compact_summary}"}},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,'
                 f'"uuid":"{u}","timestamp":"{ts(t)}"}}')
            parent = f'"{u}"'
            ctx = rng.randint(15000, 30000)
        t += rng.uniform(10, 600)
        if ctx > 150000:  # a new conversation stretch (e.g. after /clear)
            ctx = rng.randint(15000, 40000)
    return "\n".join(out) + "\n", t, tasks


def gen_claude(job) -> list:
    idx, seed, target, start, proj, subs, compact = job
    rng = random.Random(f"claude/{seed}/{idx}")
    P = POOLS
    cwd = f"/home/dev/{proj}"
    sid = uuid4(rng)
    pdir = os.path.join(job_out(), ".claude", "projects", "-home-dev-" + proj)
    text, end, tasks = claude_file(rng, P, target, start, cwd, sid, n_tasks=len(subs), compact=compact)
    made = []
    for (tu, spawned), sub_target in zip(tasks, subs):
        aid = "a" + hexid(rng, 16)
        text = text.replace(f"@AGENT:{tu}@", aid)
        stext, send, _ = claude_file(rng, P, sub_target, spawned + 1.0, cwd, sid, agent_id=aid)
        sdir = os.path.join(pdir, sid, "subagents")
        path = os.path.join(sdir, f"agent-{aid}.jsonl")
        made.append(write(path, stext, min(send, end)))
        meta = json.dumps({"agentType": "general-purpose", "spawnDepth": 1, "toolUseId": tu})
        made.append(write(os.path.join(sdir, f"agent-{aid}.meta.json"), meta, min(send, end), kind="meta"))
    made.append(write(os.path.join(pdir, sid + ".jsonl"), text, end))
    return made


# --------------------------------------------------------------------------------------------
# Codex CLI (envelope era)

def gen_codex(job) -> list:
    idx, seed, target, start, proj, _subs, compact = job
    rng = random.Random(f"codex/{seed}/{idx}")
    P = POOLS
    cwd = f"/home/dev/{proj}"
    sid = uuid7(rng, start)
    model = rng.choice(CODEX_MODELS)
    version = rng.choice(CODEX_VERSIONS)
    big = target > 8 * MB
    out: list[str] = []
    size = 0
    t = start

    def emit(kind: str, payload: str):
        nonlocal size
        line = f'{{"timestamp":"{ts(t)}","type":"{kind}","payload":{payload}}}'
        out.append(line)
        size += len(line) + 1

    emit("session_meta",
         f'{{"id":"{sid}","timestamp":"{ts(t)}","cwd":"{cwd}","originator":"{rng.choice(["codex_cli_rs", "codex-tui", "codex_exec"])}",'
         f'"cli_version":"{version}","source":"cli","model_provider":"openai",'
         f'"base_instructions":{{"text":"{P.instructions}"}},"git":{{"commit_hash":"{hexid(rng, 40)}",'
         f'"branch":"main","repository_url":"https://github.com/dev/{proj}.git"}}}}')
    emit("response_item",
         '{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>'
         'Filesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.'
         '</permissions instructions>"}]}')
    emit("response_item",
         f'{{"type":"message","role":"user","content":[{{"type":"input_text","text":"# AGENTS.md instructions for {cwd}\\n\\n'
         f'<INSTRUCTIONS>\\n{P.agents_md}\\n</INSTRUCTIONS>"}},{{"type":"input_text","text":"<environment_context>\\n'
         f'  <cwd>{cwd}</cwd>\\n  <approval_policy>on-request</approval_policy>\\n  <sandbox_mode>workspace-write</sandbox_mode>\\n'
         f'  <network_access>restricted</network_access>\\n  <shell>bash</shell>\\n</environment_context>"}}]}}')
    tot_in = tot_cached = tot_out = tot_reason = 0
    ctx = rng.randint(7000, 14000)
    prompts = []

    def token_count():
        nonlocal tot_in, tot_cached, tot_out, tot_reason
        li = ctx
        lc = int(li * rng.uniform(0.6, 0.97)) // 128 * 128
        lo = rng.randint(30, 1500)
        lr = int(lo * rng.uniform(0.0, 0.8))
        tot_in += li
        tot_cached += lc
        tot_out += lo
        tot_reason += lr
        line = (f'{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{tot_in},'
                f'"cached_input_tokens":{tot_cached},"output_tokens":{tot_out},"reasoning_output_tokens":{tot_reason},'
                f'"total_tokens":{tot_in + tot_out}}},"last_token_usage":{{"input_tokens":{li},"cached_input_tokens":{lc},'
                f'"output_tokens":{lo},"reasoning_output_tokens":{lr},"total_tokens":{li + lo}}},'
                f'"model_context_window":258400}},"rate_limits":{{"primary":{{"used_percent":{rng.randint(0, 90)}.0,'
                f'"window_minutes":300,"resets_at":{int(t) + 9000}}},"secondary":{{"used_percent":{rng.randint(0, 60)}.0,'
                f'"window_minutes":10080,"resets_at":{int(t) + 400000}}}}}}}')
        emit("event_msg", line)
        if rng.random() < 0.12:  # some builds write every token_count twice
            emit("event_msg", line)
        return lo

    while size < target:
        turn_id = uuid7(rng, t)
        emit("event_msg", f'{{"type":"task_started","turn_id":"{turn_id}","model_context_window":258400}}')
        emit("turn_context",
             f'{{"turn_id":"{turn_id}","cwd":"{cwd}","approval_policy":"on-request","sandbox_policy":{{"type":"workspace-write",'
             f'"writable_roots":["{cwd}"],"network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false}},'
             f'"model":"{model}","effort":"{rng.choice(["medium", "high", "xhigh"])}","summary":"auto",'
             f'"current_date":"{ts(t)[:10]}","timezone":"UTC","truncation_policy":{{"mode":"tokens","limit":10000}}}}')
        prompt = rng.choice(P.prompts)
        prompts.append(prompt)
        emit("response_item", f'{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{prompt}"}}]}}')
        emit("event_msg", f'{{"type":"user_message","message":"{prompt}","images":[],"local_images":[],"text_elements":[]}}')
        ctx += len(prompt) // 4
        steps = rng.randint(1, 12)
        for step in range(steps):
            t += rng.uniform(1.0, 20.0)
            summ = f"**{rng.choice(P.titles)}**\\n\\n{cut(rng.choice(P.texts), 300)}"
            emit("event_msg", f'{{"type":"agent_reasoning","text":"{summ}"}}')
            emit("response_item",
                 f'{{"type":"reasoning","summary":[{{"type":"summary_text","text":"{summ}"}}],'
                 f'"content":null,"encrypted_content":"{rng.choice(P.encrypted)}"}}')
            call_id = "call_" + alnum(rng, 24)
            e1, e2 = P.output(rng, big)
            if rng.random() < 0.7:
                cmd = rng.choice(["rg -n TODO src", "cargo test", "sed -n 1,200p " + src_path(rng), "ls -la",
                                  "git diff", "npm test"])
                emit("response_item",
                     f'{{"type":"function_call","name":"shell","arguments":"{{\\"command\\":[\\"bash\\",\\"-lc\\",\\"{cmd}\\"],'
                     f'\\"workdir\\":\\"{cwd}\\",\\"timeout_ms\\":120000}}","call_id":"{call_id}"}}')
                t += rng.uniform(0.1, 40.0)
                emit("response_item",
                     f'{{"type":"function_call_output","call_id":"{call_id}","output":"{{\\"output\\":\\"{e2}\\",'
                     f'\\"metadata\\":{{\\"exit_code\\":{0 if rng.random() < 0.9 else 1},\\"duration_seconds\\":{rng.random() * 5:.1f}}}}}"}}')
            else:
                cmd = rng.choice(["rg --files", "cargo build --release", "cat " + src_path(rng), "git status --short"])
                emit("response_item",
                     f'{{"type":"function_call","name":"shell_command","arguments":"{{\\"command\\":\\"{cmd}\\",'
                     f'\\"workdir\\":\\"{cwd}\\",\\"timeout_ms\\":120000}}","call_id":"{call_id}"}}')
                t += rng.uniform(0.1, 40.0)
                emit("response_item",
                     f'{{"type":"function_call_output","call_id":"{call_id}","output":"Exit code: 0\\nWall time: '
                     f'{rng.random() * 5:.1f} seconds\\nOutput:\\n{e1}"}}')
            ctx += len(e1) // 4 + token_count()
            if size >= target and step < steps - 1:
                break
        t += rng.uniform(1.0, 20.0)
        text = rng.choice(P.texts)
        emit("event_msg", f'{{"type":"agent_message","message":"{text}"}}')
        emit("response_item", f'{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}')
        ctx += token_count()
        emit("event_msg", f'{{"type":"task_complete","turn_id":"{turn_id}","last_agent_message":"{text}"}}')
        if ctx > 220000 and not compact:
            ctx = rng.randint(9000, 20000)
        if ctx > 220000:  # auto-compaction near the context limit
            t += rng.uniform(10, 60)
            hist = ",".join(f'{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{p}"}}]}}'
                            for p in prompts[-20:])
            emit("compacted", f'{{"message":"{P.compact_summary}","replacement_history":[{hist},'
                              f'{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{P.compact_summary}"}}]}}]}}')
            emit("event_msg", '{"type":"context_compacted"}')
            ctx = rng.randint(9000, 20000)
        t += rng.uniform(10, 600)
    lt = time.gmtime(start)
    d = os.path.join(job_out(), ".codex", "sessions", "%04d" % lt.tm_year, "%02d" % lt.tm_mon, "%02d" % lt.tm_mday)
    name = time.strftime("rollout-%Y-%m-%dT%H-%M-%S-", lt) + sid + ".jsonl"
    return [write(os.path.join(d, name), "\n".join(out) + "\n", t)]


# --------------------------------------------------------------------------------------------
# Gemini CLI (v0.39+ JSONL)

def gen_gemini(job) -> list:
    idx, seed, target, start, proj, _subs, _compact = job
    rng = random.Random(f"gemini/{seed}/{idx}")
    P = POOLS
    cwd = f"/home/dev/{proj}"
    sid = uuid4(rng)
    phash = hashlib.sha256(cwd.encode()).hexdigest()
    model = rng.choice(GEMINI_MODELS)
    big = target > 8 * MB
    out: list[str] = []
    size = 0
    t = start

    def emit(line: str):
        nonlocal size
        out.append(line)
        size += len(line) + 1

    def setlu():
        emit(f'{{"$set":{{"lastUpdated":"{ts(t)}"}}}}')

    emit(f'{{"sessionId":"{sid}","projectHash":"{phash}","startTime":"{ts(t)}","lastUpdated":"{ts(t)}","kind":"main"}}')
    ctx = rng.randint(9000, 16000)
    while size < target:
        t += rng.uniform(5, 120)
        prompt = rng.choice(P.prompts)
        emit(f'{{"id":"{uuid4(rng)}","timestamp":"{ts(t)}","type":"user","content":[{{"text":"{prompt}"}}]}}')
        setlu()
        ctx += len(prompt) // 4
        steps = rng.randint(1, 8)
        for step in range(steps + 1):
            final = step == steps
            t += rng.uniform(1.0, 15.0)
            gid = uuid4(rng)
            thoughts = ",".join(f'{{"subject":"{rng.choice(P.titles)}","description":"{rng.choice(P.thinking)}",'
                                f'"timestamp":"{ts(t - 1)}"}}' for _ in range(rng.randint(0, 3)))
            o = rng.randint(20, 1200)
            th = rng.randint(0, 900)
            cached = int(ctx * rng.uniform(0.0, 0.9)) if rng.random() < 0.7 else 0
            tokens = (f'{{"input":{ctx},"output":{o},"cached":{cached},"thoughts":{th},"tool":0,'
                      f'"total":{ctx + o + th}}}')
            content = f'"{rng.choice(P.texts)}"' if final or rng.random() < 0.3 else '""'
            head = (f'{{"id":"{gid}","timestamp":"{ts(t)}","type":"gemini","content":{content},'
                    f'"thoughts":[{thoughts}],"tokens":{tokens},"model":"{model}"')
            emit(head + "}")
            setlu()
            ctx += o
            if final:
                break
            calls = []
            for _ in range(1 if rng.random() < 0.7 else rng.randint(2, 3)):
                e1, _ = P.output(rng, big)
                name = rng.choice(["run_shell_command", "read_file", "read_file", "search_file_content", "glob",
                                   "replace", "write_file"])
                cid = alnum(rng, 8).lower()
                if name == "run_shell_command":
                    args = f'{{"command":"{rng.choice(["npm test", "ls -la", "git diff", "cargo check"])}","description":"{rng.choice(P.titles)}"}}'
                    disp, ddesc = "Shell", "shell command"
                else:
                    args = f'{{"file_path":"{cwd}/{src_path(rng)}"}}'
                    disp, ddesc = "ReadFile", src_path(rng)
                ctx += len(e1) // 4
                t += rng.uniform(0.1, 10.0)
                calls.append(
                    f'{{"id":"{cid}","name":"{name}","args":{args},"result":[{{"functionResponse":{{"id":"{cid}",'
                    f'"name":"{name}","response":{{"output":"{e1}"}}}}}}],"status":"success","timestamp":"{ts(t)}",'
                    f'"resultDisplay":"{cut(e1, 2000)}","description":"{ddesc}","displayName":"{disp}",'
                    f'"renderOutputAsMarkdown":false}}')
            # the same message id is re-appended once the tool calls are filled in
            emit(head + ',"toolCalls":[' + ",".join(calls) + "]}")
            if size >= target:
                break
        if rng.random() < 0.05:
            emit(f'{{"id":"{uuid4(rng)}","timestamp":"{ts(t)}","type":"info","content":"Request cancelled."}}')
            setlu()
        if ctx > 600000:
            emit(f'{{"id":"{uuid4(rng)}","timestamp":"{ts(t)}","type":"info","content":"Context compressed from '
                 f'{rng.randint(55, 75)}% to {rng.randint(8, 20)}%."}}')
            setlu()
            ctx = rng.randint(20000, 60000)
    d = os.path.join(job_out(), ".gemini", "tmp", proj.lower(), "chats")
    name = time.strftime("session-%Y-%m-%dT%H-%M-", time.gmtime(start)) + sid[:8] + ".jsonl"
    return [write(os.path.join(d, name), "\n".join(out) + "\n", t)]


# --------------------------------------------------------------------------------------------
# Planning and I/O

OUT_DIR = ""
END_TS = 0.0


def job_out() -> str:
    return OUT_DIR


def write(path: str, text: str, mtime: float, kind: str = "jsonl"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = text.encode("utf-8")
    with open(path, "wb", buffering=0) as f:
        f.write(data)
    mtime = min(mtime, END_TS)
    os.utime(path, (mtime, mtime))
    return (path, len(data), kind)


def run_job(job):
    agent = job[0]
    return {"claude": gen_claude, "codex": gen_codex, "gemini": gen_gemini}[agent](job[1:])


def init(seed: int, out: str, end_ts: float):
    global OUT_DIR, END_TS
    OUT_DIR, END_TS = out, end_ts
    init_worker(seed)


def plan(size_gb: float, seed: int, end_ts: float):
    rng = random.Random(f"plan/{seed}/{size_gb}")
    total = int(size_gb * GB)
    n_proj = max(4, round(24 * size_gb ** 0.5))
    projects = [f"proj{i}" for i in range(n_proj)]
    weights = [1.0 / (i + 1) ** 0.8 for i in range(n_proj)]
    span_end = end_ts - 3 * 86400
    n_big = max(3, round(4 * size_gb))
    jobs = []
    for a_i, agent in enumerate(["claude", "codex", "gemini"]):
        budget = total // 3
        sizes = []
        nb = n_big // 3 + (1 if a_i < n_big % 3 else 0)
        for _ in range(nb):
            s = int(min(rng.uniform(20, 60) * MB, budget * 0.25))
            sizes.append((s, []))
            budget -= int(s * OVERSHOOT)
        while budget > 0:
            s = int(min(2.5 * MB, max(6 * KB, rng.lognormvariate(math.log(110 * KB), 1.0))))
            subs = []
            if agent == "claude" and rng.random() < 0.12:
                subs = [int(min(600 * KB, max(8 * KB, rng.lognormvariate(math.log(60 * KB), 0.9))))
                        for _ in range(rng.randint(1, 3))]
            sizes.append((s, subs))
            budget -= int((s + sum(subs)) * OVERSHOOT)
        for i, (s, subs) in enumerate(sizes):
            start = rng.uniform(YEAR_START, span_end)
            proj = rng.choices(projects, weights)[0]
            compact = s > 1 * MB and rng.random() < 0.35
            jobs.append((agent, i, seed, s, start, proj, subs, compact))
    return projects, jobs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--size-gb", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--end-date", default="2026-11-20",
                    help="newest session date, YYYY-MM-DD (sessions span 2026-01-01..this)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--force", action="store_true",
                    help="replace .claude/.codex/.gemini in OUT_DIR if OUT_DIR is not empty")
    a = ap.parse_args()

    end_ts = datetime.strptime(a.end_date, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp() + 86399
    if end_ts - 10 * 86400 < YEAR_START:
        ap.error("--end-date must be 2026-01-11 or later")
    out = os.path.abspath(a.out_dir)
    if os.path.isdir(out) and os.listdir(out):
        if not a.force:
            ap.error(f"{out} is not empty (use --force to replace its .claude/.codex/.gemini)")
        for sub in (".claude", ".codex", ".gemini", MARKER):
            p = os.path.join(out, sub)
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
    os.makedirs(out, exist_ok=True)

    t0 = time.monotonic()
    projects, jobs = plan(a.size_gb, a.seed, end_ts)
    # Gemini project registry and ownership markers
    used = sorted({j[5] for j in jobs if j[0] == "gemini"}, key=lambda p: int(p[4:]))
    reg = {"projects": {f"/home/dev/{p}": p.lower() for p in used}}
    os.makedirs(os.path.join(out, ".gemini", "tmp"), exist_ok=True)
    with open(os.path.join(out, ".gemini", "projects.json"), "w") as f:
        f.write(json.dumps(reg, indent=2) + "\n")
    for p in used:
        d = os.path.join(out, ".gemini", "tmp", p.lower())
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, ".project_root"), "w") as f:
            f.write(f"/home/dev/{p}")
        os.utime(os.path.join(d, ".project_root"), (end_ts, end_ts))
    os.utime(os.path.join(out, ".gemini", "projects.json"), (end_ts, end_ts))

    order = sorted(jobs, key=lambda j: -(j[3] + sum(j[6])))  # biggest first: better balance
    results = []
    done_bytes = 0
    total_planned = sum(j[3] + sum(j[6]) for j in jobs)
    tty = sys.stderr.isatty()
    if a.jobs > 1:
        ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
        with ctx.Pool(a.jobs, initializer=init, initargs=(a.seed, out, end_ts)) as pool:
            for r in pool.imap_unordered(run_job, order, chunksize=4):
                results.extend(r)
                done_bytes += sum(x[1] for x in r)
                if tty:
                    print(f"\r{done_bytes / MB:8.0f} / ~{total_planned / MB:.0f} MB", end="", file=sys.stderr)
    else:
        init(a.seed, out, end_ts)
        for j in order:
            results.extend(run_job(j))
    if tty:
        print(file=sys.stderr)
    elapsed = time.monotonic() - t0

    # summary
    summary = {}
    largest = ("", 0)
    for path, n, kind in results:
        rel = os.path.relpath(path, out)
        agent = {".claude": "claude", ".codex": "codex", ".gemini": "gemini"}[rel.split(os.sep)[0]]
        s = summary.setdefault(agent, {"files": 0, "subagent_files": 0, "bytes": 0})
        s["files"] += 1
        s["bytes"] += n
        if "subagents" in rel and kind == "jsonl":
            s["subagent_files"] += 1
        if n > largest[1]:
            largest = (rel, n)
    total_bytes = sum(s["bytes"] for s in summary.values())
    total_files = sum(s["files"] for s in summary.values())
    marker = {"size_gb": a.size_gb, "seed": a.seed, "end_date": a.end_date, "files": total_files,
              "bytes": total_bytes, "largest_file": largest[0], "largest_bytes": largest[1],
              "agents": summary, "projects": len(projects), "generator_seconds": round(elapsed, 1)}
    with open(os.path.join(out, MARKER), "w") as f:
        f.write(json.dumps(marker, indent=2) + "\n")

    print(f"generated {out} in {elapsed:.1f}s ({total_bytes / MB / max(elapsed, 1e-9):.0f} MB/s, "
          f"{a.jobs} jobs, seed {a.seed}, sessions 2026-01-01..{a.end_date})")
    print(f"{'agent':8} {'files':>7} {'(subagent)':>10} {'MB':>9}")
    for agent in ("claude", "codex", "gemini"):
        s = summary.get(agent, {"files": 0, "subagent_files": 0, "bytes": 0})
        print(f"{agent:8} {s['files']:7d} {s['subagent_files']:10d} {s['bytes'] / MB:9.1f}")
    print(f"{'total':8} {total_files:7d} {'':10} {total_bytes / MB:9.1f}   ({len(projects)} projects)")
    print(f"largest file: {largest[0]} ({largest[1] / MB:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
