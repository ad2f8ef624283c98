#!/usr/bin/env python3
"""Write one long Claude Code session for the replay benchmark.

  python3 scripts/gen_long_session.py OUT.jsonl [--messages 100000] [--seed 1]

Each turn is a user prompt, an assistant tool call, its tool result and an assistant reply (4
messages), with recorded usage growing like a real long session and tool outputs of a few KB,
so every algorithm's triggers fire many times. Deterministic for a seed; stdlib only.
"""
import argparse
import json
import random


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    words = "the of build test cargo parse session token window summary context 配置 ファイル".split()
    sid = "bench-long-0000-4000-8000-000000000001"
    prompt = 20_000
    parent = None
    n = 0
    turn = 0
    with open(a.out, "w", encoding="utf-8") as f:
        def rec(obj):
            nonlocal n
            f.write(json.dumps(obj, ensure_ascii=False))
            f.write("\n")
            n += 1

        while n < a.messages:
            ts = f"2026-06-{1 + turn // 5000:02d}T{(turn // 200) % 24:02d}:{(turn // 4) % 60:02d}:{turn % 60:02d}.000Z"
            base = {"sessionId": sid, "cwd": "/home/dev/long", "timestamp": ts, "version": "2.1.90"}
            u = f"u{turn}"
            rec({**base, "type": "user", "uuid": u, "parentUuid": parent,
                 "message": {"role": "user", "content": " ".join(rnd.choice(words) for _ in range(40))}})
            out_len = rnd.choice([200, 800, 3000, 12000])
            for step, kind in enumerate(("call", "reply")):
                prompt += rnd.randint(50, 400) if kind == "call" else out_len // 4
                mid = f"msg_{turn}_{step}"
                if kind == "call":
                    content = [{"type": "tool_use", "id": f"toolu_{turn}", "name": rnd.choice(["Bash", "Read", "Grep"]),
                                "input": {"command": "cargo test -p x " + str(turn)}}]
                else:
                    content = [{"type": "text", "text": " ".join(rnd.choice(words) for _ in range(60))}]
                a_uuid = f"a{turn}_{step}"
                rec({**base, "type": "assistant", "uuid": a_uuid, "parentUuid": u if step == 0 else f"t{turn}",
                     "requestId": f"req_{turn}_{step}",
                     "message": {"id": mid, "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
                                 "usage": {"input_tokens": 10, "cache_read_input_tokens": prompt, "cache_creation_input_tokens": 300,
                                           "output_tokens": 80}}})
                if kind == "call":
                    rec({**base, "type": "user", "uuid": f"t{turn}", "parentUuid": a_uuid,
                         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{turn}",
                                                                  "content": ("line of output " * (out_len // 15))[:out_len]}]}})
                parent = a_uuid
            # Real sessions compact: fall back like after an auto-compact, so the prompt stays bounded.
            if prompt > 160_000:
                prompt = 25_000
            turn += 1
    print(f"wrote {a.out}: {n} records, {turn} turns")


if __name__ == "__main__":
    main()
