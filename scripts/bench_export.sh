#!/usr/bin/env bash
# Memory and time of exporting one large session: bash scripts/bench_export.sh [SIZE_MB]
#
# 1. cargo build --release
# 2. generate a Claude Code session of about SIZE_MB (default 100) in a temporary home
#    (python3, stdlib only): prompts, replies, thinking, Bash/Read/Edit calls with outputs of
#    1–40 KB (some with secrets, so --redact has work to do), every 50th result an error
# 3. for each format (md, md with --max-output-lines 0, html, json, jsonl, md --redact) run
#    `sessions --home TMP export ID -o FILE` under /usr/bin/time -v and report peak RSS, wall
#    time, output size, and peak RSS as a multiple of the session file's size
#
# The issue's bar: memory bounded by a small multiple of the session's size.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB=${1:-100}
BIN=target/release/sessions
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sessions-bench-export.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log() { printf '%s\n' "$*" >&2; }

command -v python3 >/dev/null || { log "bench_export: python3 is required"; exit 1; }
[ -x /usr/bin/time ] || { log "bench_export: /usr/bin/time (GNU time) is required for peak RSS"; exit 1; }
case $SIZE_MB in '' | *[!0-9]*) log "bench_export: SIZE_MB must be an integer, got '$SIZE_MB'"; exit 2 ;; esac

log "== cargo build --release"
cargo build --release >&2

ID=b16b16b1-0000-4000-8000-000000000100
DIR=$WORK/home/.claude/projects/-home-dev-big
mkdir -p "$DIR"
FILE=$DIR/$ID.jsonl
log "== generating a ${SIZE_MB} MB Claude session"
python3 - "$FILE" "$SIZE_MB" "$ID" <<'EOF'
import json, random, sys
path, size_mb, sid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
target = size_mb * 1_000_000
rnd = random.Random(42)
words = ("the of a to in is it for on that with as at by from this be are or an not router "
         "handler request response cache token session build test error config module").split()
def text(n):
    return " ".join(rnd.choice(words) for _ in range(n))
def output(kb):
    lines, size = [], 0
    while size < kb * 1000:
        l = f"{rnd.randrange(10**6):06d} {text(rnd.randrange(4, 16))}"
        if rnd.random() < 0.002:
            l += " AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        lines.append(l); size += len(l) + 1
    return "\n".join(lines)
n, written, parent = 0, 0, None
base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/big", "sessionId": sid,
        "version": "2.1.90", "gitBranch": "main"}
def ts(i):
    return f"2026-05-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.000Z"
with open(path, "w") as f:
    def emit(rec):
        global n, written, parent
        n += 1
        uuid = f"u-{n}"
        rec = dict(base, **rec, uuid=uuid, parentUuid=parent, timestamp=ts(n))
        parent = uuid
        line = json.dumps(rec) + "\n"
        f.write(line); written += len(line)
    turn = 0
    while written < target:
        turn += 1
        emit({"type": "user", "message": {"role": "user", "content": f"Step {turn}: " + text(30)}})
        for k in range(rnd.randrange(2, 6)):
            call = f"toolu_{turn}_{k}"
            tool = rnd.choice(["Bash", "Read", "Edit"])
            inp = ({"command": f"grep -rn {rnd.choice(words)} src/ | head -500"} if tool == "Bash"
                   else {"file_path": f"/home/dev/big/src/{rnd.choice(words)}.ts"} if tool == "Read"
                   else {"file_path": "/home/dev/big/src/a.ts", "old_string": output(1), "new_string": output(1)})
            content = [{"type": "thinking", "thinking": text(60), "signature": "sig"}] if k == 0 else []
            content += [{"type": "text", "text": text(40)},
                        {"type": "tool_use", "id": call, "name": tool, "input": inp}]
            emit({"type": "assistant", "requestId": f"req_{n}",
                  "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
                              "model": "claude-sonnet-4-5-20250929", "content": content,
                              "usage": {"input_tokens": 10, "output_tokens": 200,
                                        "cache_read_input_tokens": 50000,
                                        "cache_creation_input_tokens": 800}}})
            emit({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call, "content": output(rnd.randrange(1, 40)),
                 "is_error": n % 50 == 0}]}})
        emit({"type": "assistant", "requestId": f"req_{n}",
              "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
                          "model": "claude-sonnet-4-5-20250929",
                          "content": [{"type": "text", "text": text(150)}],
                          "usage": {"input_tokens": 10, "output_tokens": 300}}})
print(f"{written / 1e6:.1f} MB, {n} records, {turn} turns", file=sys.stderr)
EOF
FILE_BYTES=$(stat -c %s "$FILE")

printf '# sessions export: one %.1f MB Claude session\n\n' "$(echo "$FILE_BYTES / 1000000" | bc -l)"
printf 'Host: %s, %s CPUs. Command: `%s --home TMP export %s -o FILE [options]`.\n\n' \
  "$(uname -sr)" "$(nproc)" "$BIN" "$ID"
printf '| export | peak RSS | RSS / session size | wall | output |\n|---|---:|---:|---:|---:|\n'
run() {
  local label=$1; shift
  local out=$WORK/out/$label
  mkdir -p "$WORK/out"
  /usr/bin/time -v "$BIN" --home "$WORK/home" -q export "$ID" --force -o "$out" "$@" \
    2>"$WORK/time.txt" >/dev/null || { cat "$WORK/time.txt" >&2; exit 1; }
  local rss_kb wall out_bytes
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt")
  out_bytes=$(stat -c %s "$out")
  printf '| %s | %.0f MB | %.2f× | %s | %.1f MB |\n' "$label $*" "$(echo "$rss_kb / 1000" | bc -l)" \
    "$(echo "$rss_kb * 1000 / $FILE_BYTES" | bc -l)" "$wall" "$(echo "$out_bytes / 1000000" | bc -l)"
  rm -f "$out"
}
run s.md -f md
run s-full.md -f md --max-output-lines 0
run s.html -f html
run s.json -f json
run s.jsonl -f jsonl
run s-redacted.md -f md --redact
