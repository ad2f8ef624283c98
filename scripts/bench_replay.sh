#!/usr/bin/env bash
# Replay benchmark: bash scripts/bench_replay.sh
#
# 1. one generated 100,000-message Claude session (scripts/gen_long_session.py), replayed with
#    every algorithm (wall time and peak RSS, /usr/bin/time -v);
# 2. a sweep of 10 settings (gemini threshold 0.1 … 1.0) over the whole 1 GB synthetic store of
#    scripts/bench.sh (generated there if missing: run `bash scripts/bench.sh` first to reuse it).
# Prints a Markdown table on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=target/release/sessions
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sessions-replay-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cargo build --release >&2
python3 scripts/gen_long_session.py "$WORK/long.jsonl" --messages 100000 >&2
[ -d bench-store ] || python3 scripts/gen_store.py bench-store --size-gb 1.0 --seed 1 >&2

measure() { # label, command...
    local label=$1; shift
    local out="$WORK/time.txt"
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$@" > "$WORK/stdout" 2> "$out" || { cat "$out" >&2; return 1; }
        local wall rss
        wall=$(grep 'Elapsed (wall clock)' "$out" | awk '{print $NF}')
        rss=$(grep 'Maximum resident set size' "$out" | awk '{print $NF}')
        printf '| %s | %s | %d |\n' "$label" "$wall" "$((rss / 1024))"
    else
        local s e
        s=$(date +%s.%N); "$@" > "$WORK/stdout"; e=$(date +%s.%N)
        printf '| %s | %.2f s | n/a |\n' "$label" "$(echo "$e - $s" | bc)"
    fi
}

SIZE=$(du -m "$WORK/long.jsonl" | cut -f1)
echo "### 100,000-message session (${SIZE} MB)"
echo
echo "| algorithm | wall (m:ss) | peak RSS MB |"
echo "|---|---:|---:|"
for alg in gemini openclaw-prune pi claude codex; do
    measure "$alg" "$BIN" replay-compress -A "$alg" --format json "$WORK/long.jsonl"
done
echo
echo "### sweep of 10 settings over bench-store ($(du -sm bench-store | cut -f1) MB)"
echo
echo "| command | wall (m:ss) | peak RSS MB |"
echo "|---|---:|---:|"
measure "gemini --sweep threshold=0.1..1.0 --all --kind all" "$BIN" --home bench-store replay-compress --all --kind all \
    -A gemini --sweep threshold=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0 --format json
measure "claude --sweep autocompact_pct=10..100 --all --kind all" "$BIN" --home bench-store replay-compress --all --kind all \
    -A claude --sweep autocompact_pct=10,20,30,40,50,60,70,80,90,100 --format json
