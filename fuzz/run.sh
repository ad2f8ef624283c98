#!/usr/bin/env bash
# Fuzz every target in turn for SECONDS_PER_TARGET (default 600) with cargo-afl, niced, one core.
# Findings land in fuzz/out/<target>/default/crashes. Usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET…]
set -euo pipefail
cd "$(dirname "$0")"
per="${1:-600}"; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(claude codex codex_zst gemini_json gemini_jsonl markdown redact)
cargo afl build --release
mkdir -p out
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
for t in "${targets[@]}"; do
  [ -d "in/$t" ] || ./seed.sh >/dev/null
  SESSIONS_FUZZ_TARGET="$t" timeout --preserve-status "$per" \
    nice -n 10 cargo afl fuzz -i "in/$t" -o "out/$t" -t 5000 -m none target/release/fuzz_target \
    > "out-$t.log" 2>&1 || true
  echo "$t: $(grep -h 'execs_done\|saved_crashes\|saved_hangs\|run_time' "out/$t/default/fuzzer_stats" 2>/dev/null | tr -s ' ' | tr '\n' ' ')"
done
