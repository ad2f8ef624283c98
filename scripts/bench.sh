#!/usr/bin/env bash
# Benchmark `sessions` on a synthetic store, every command side by side in one run:
#   bash scripts/bench.sh [SIZE_GB]   (default 1)
#
# 1. cargo build --release (and the parse-floor binary: --features bench-tools)
# 2. generate bench-store/ (a synthetic HOME, see scripts/gen_store.py) unless a store of the
#    same size, seed and end date is already there (marker: bench-store/.gen-store.json)
# 3. time, with /usr/bin/time -v (peak RSS) and a nanosecond clock (wall), BENCH_RUNS runs each
#    (default 1; the median is reported), in rounds that run every command once (the export's
#    runs come last):
#      cat of every file (the I/O floor), the IgnoredAny parse floor (benches/parse_floor.rs),
#      `list --format json`, `list --agent X` per agent, `list --since 7d`, `projects`,
#      `usage daily --format json`, ccusage `daily --json --offline` and its per-agent reports
#      (when ccusage is found: $CCUSAGE, else `ccusage` on PATH), `replay-compress --all` per
#      algorithm, `-A claude` at a fixed summary size per agent and over the whole store (where
#      a replay's time goes), a 10-setting sweep, `export --all --format jsonl` to stdout,
#      `export --all --format md` into a folder
# 4. print a Markdown report on stdout: the table with ratios, then the issue's targets as
#    measured ratios (progress and tool output go to stderr)
#
# Environment: BENCH_RUNS (1), BENCH_SEED (1), BENCH_END_DATE (newest session date in the
# store, YYYY-MM-DD; default today in UTC, so that `--since 7d` selects the last week of it),
# CCUSAGE (path of a ccusage binary; install it outside the repository with
# `npm install --prefix ~/.cache/sessions-tools ccusage@20.0.24`), BENCH_SKIP_SLOW=1 (only the
# read-path rows: no replay, sweep or export).
# Page caches are never dropped: the report says how much of the store was cached before the
# run; one untimed read of the whole store precedes the timings, so all timed runs are warm.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_GB=${1:-1}
RUNS=${BENCH_RUNS:-1}
SEED=${BENCH_SEED:-1}
END_DATE=${BENCH_END_DATE:-$(date -u +%F)}
STORE=bench-store
MARKER=$STORE/.gen-store.json
BIN=target/release/sessions
TIME=${BENCH_TIME_BIN:-/usr/bin/time}  # overridable only to test the fallback
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sessions-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

log() { printf '%s\n' "$*" >&2; }

command -v python3 >/dev/null || { log "bench: python3 is required (scripts/gen_store.py)"; exit 1; }
case $SIZE_GB in '' | *[!0-9.]* | *.*.*) log "bench: SIZE_GB must be a number, got '$SIZE_GB'"; exit 2 ;; esac

# ---- 1. build
log "== cargo build --release (sessions, parse-floor)"
cargo build --release --bin sessions >&2
cargo build --release --features bench-tools --bin parse-floor >&2
FLOOR=target/release/parse-floor
CCUSAGE=${CCUSAGE:-$(command -v ccusage || true)}

# ---- 2. store
if python3 - "$MARKER" "$SIZE_GB" "$SEED" "$END_DATE" <<'EOF'; then
import json, sys
try:
    m = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(1)
same = (float(m["size_gb"]) == float(sys.argv[2]) and int(m["seed"]) == int(sys.argv[3])
        and m["end_date"] == sys.argv[4])
sys.exit(0 if same else 1)
EOF
    log "== reusing $STORE/ (size ${SIZE_GB} GB, seed $SEED, end date $END_DATE)"
    GENERATED=no
else
    log "== generating $STORE/ (size ${SIZE_GB} GB, seed $SEED, end date $END_DATE)"
    python3 scripts/gen_store.py "$STORE" --size-gb "$SIZE_GB" --seed "$SEED" \
        --end-date "$END_DATE" --force >&2
    GENERATED=yes
fi

# store facts from the marker: bytes, files, largest file
read -r STORE_BYTES STORE_FILES LARGEST_BYTES < <(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print(m["bytes"], m["files"], m["largest_bytes"])' "$MARKER")
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
STORE_MB=$(mb "$STORE_BYTES")
LARGEST_MB=$(mb "$LARGEST_BYTES")

# ---- cache state before any timed read (fincore is in util-linux; optional)
CACHED="unknown (fincore not installed)"
if command -v fincore >/dev/null; then
    CACHED=$(find "$STORE" -type f -print0 | xargs -0 fincore -b -n -o RES,SIZE 2>/dev/null |
        awk -v total="$STORE_BYTES" '{ r += $1 } END { p = total ? 100 * r / total : 0; if (p > 100) p = 100; printf "%.0f%%", p }')
fi
log "== page cache before the run: $CACHED of the store resident; warming it with one untimed read"
find "$STORE" -type f -print0 | xargs -0 cat >/dev/null

HAVE_TIME=yes
if [ ! -x "$TIME" ]; then
    HAVE_TIME=no
    log "bench: $TIME not found (Debian/Ubuntu: apt-get install time). Falling back to the"
    log "       shell clock: wall times only, peak RSS (VmHWM) cannot be measured."
fi

now_ns() { date +%s%N; }
# busy CPU seconds of the whole machine so far (user+nice+system+irq+softirq+steal)
busy_s() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat 2>/dev/null || echo 0; }
OWN_CPU=0

# Every command is registered first (`timed`), then run in rounds: each round runs every
# command once, in order. This machine's copy out of the page cache, about half of `list`'s
# time, drifts over minutes; interleaved, every command meets the same drift, so their ratios
# compare like with like. The export runs last, in runs of its own (see below).
ORDER=()
declare -A LABEL CMD BEFORE WALLS_OF CPUS_OF SYS_OF RSS_OF STATUS_OF
timed() { # key label cmd [untimed command before each run]
    ORDER+=("$1")
    LABEL[$1]=$2
    CMD[$1]=$3
    BEFORE[$1]=${4:-}
    WALLS_OF[$1]=""
    CPUS_OF[$1]=""
    SYS_OF[$1]=""
    RSS_OF[$1]=0
    STATUS_OF[$1]=ok
}

# run_once KEY I: one timed run of KEY's command (run I), its wall, CPU and peak RSS recorded.
run_once() {
    local key=$1 i=$2 t0 t1 rc=0 rss cpu sys wall
    [ -z "${BEFORE[$key]}" ] || bash -c "${BEFORE[$key]}"
    t0=$(now_ns)
    if [ "$HAVE_TIME" = yes ]; then
        "$TIME" -v -o "$WORK/time.txt" bash -c "${CMD[$key]}" 2>>"$WORK/stderr.log" || rc=$?
    else
        bash -c "${CMD[$key]}" 2>>"$WORK/stderr.log" || rc=$?
    fi
    t1=$(now_ns)
    if [ "$rc" -ne 0 ]; then
        STATUS_OF[$key]="failed (exit $rc)"
        log "   $key: run $i failed with exit $rc; last stderr lines:"
        tail -n 5 "$WORK/stderr.log" >&2 || true
    fi
    wall=$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1e9 }')
    WALLS_OF[$key]+="$wall "
    rss="" cpu="" sys=""
    if [ "$HAVE_TIME" = yes ]; then
        rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$WORK/time.txt")
        [ "${rss:-0}" -gt "${RSS_OF[$key]}" ] && RSS_OF[$key]=$rss
        cpu=$(awk -F': ' '/User time|System time/ { c += $2 } END { printf "%.2f", c }' "$WORK/time.txt")
        CPUS_OF[$key]+="$cpu "
        sys=$(awk -F': ' '/System time/ { printf "%.2f", $2 }' "$WORK/time.txt")
        SYS_OF[$key]+="$sys "
        OWN_CPU=$(awk -v o="$OWN_CPU" -v c="$cpu" 'BEGIN { print o + c }')
    fi
    log "   $key: run $i: $wall s${cpu:+, CPU $cpu s}${rss:+, peak RSS $((rss / 1024)) MB}"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# finish KEY: KEY's statistics (WALLS, MEDIAN, CPU_S, SYS_S, RSS_MB, STATUS) into M, C, R and
# its row.
finish() {
    local key=$1
    WALLS=${WALLS_OF[$key]% }
    MEDIAN=$(printf '%s' "$WALLS" | median)
    STATUS=${STATUS_OF[$key]}
    if [ "$HAVE_TIME" = yes ]; then
        RSS_MB=$(awk -v k="${RSS_OF[$key]}" 'BEGIN { printf "%.0f", k / 1024 }')
        CPU_S=$(printf '%s' "${CPUS_OF[$key]}" | median)
        SYS_S=$(printf '%s' "${SYS_OF[$key]}" | median)
    else
        RSS_MB="n/a"
        CPU_S="n/a"
        SYS_S="n/a"
    fi
    M[$key]=$MEDIAN
    R[$key]=$RSS_MB
    C[$key]=$CPU_S
    S[$key]=$SYS_S
    row "$key" "${LABEL[$key]}"
}

ROWS=()
ROWKEYS=()
row() { # key label
    local mbps
    mbps=$(awk -v m="$STORE_MB" -v s="$MEDIAN" 'BEGIN { if (s > 0) printf "%.0f", m / s; else print "-" }')
    [ "$STATUS" = ok ] || mbps="$mbps ($STATUS)"
    ROWKEYS+=("$1")
    ROWS+=("| \`${2//|/\\|}\` | $MEDIAN | @X@ | ${WALLS// / · } | $CPU_S | $SYS_S | $mbps | $RSS_MB |")
}
# ratio A B: M[A] / M[B] with two decimals, "-" when either is missing
ratio() {
    awk -v a="${M[$1]:-}" -v b="${M[$2]:-}" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.2f", a / b; else print "-" }'
}
# cpu_ratio A B: the same over CPU time, which other work on a shared machine disturbs less
cpu_ratio() {
    awk -v a="${C[$1]:-}" -v b="${C[$2]:-}" 'BEGIN { if (a != "" && b != "" && a != "n/a" && b > 0) printf "%.2f", a / b; else print "-" }'
}

# count NAME CMD: one extra untimed run whose JSON output is counted (a sanity check that the
# binary really read the store).
count() {
    bash -c "$1" >"$WORK/out.json" 2>>"$WORK/stderr.log" || true
    python3 -c '
import json, sys
try:
    print(len(json.load(open(sys.argv[1]))))
except Exception:
    print("?")' "$WORK/out.json"
}

declare -A M # median wall s by key, for the ratios
declare -A R # peak RSS MB by key
declare -A C # median CPU s by key
declare -A S # median system CPU s by key
H="$BIN --home $STORE"
ABS_STORE=$(cd "$STORE" && pwd)
# ccusage reads $HOME's stores; nothing else of the environment may point it elsewhere.
CC_ENV="env -u CLAUDE_CONFIG_DIR -u CODEX_HOME -u GEMINI_CLI_HOME -u XDG_CONFIG_HOME HOME=$ABS_STORE TZ=UTC"

timed cat "find $STORE -type f -print0 | xargs -0 cat > /dev/null" \
    "find $STORE -type f -print0 | xargs -0 cat > /dev/null"
timed floor "parse-floor $STORE (serde_json IgnoredAny, rayon)" "$FLOOR $STORE > /dev/null"
LIST="$H list --format json"
timed list "sessions --home $STORE list --format json" "$LIST > /dev/null"
for a in claude codex gemini; do
    timed "list_$a" "sessions --home $STORE list --agent $a --format json" \
        "$H list --agent $a --format json > /dev/null"
done
SINCE="$H list --since 7d --format json"
timed since "sessions --home $STORE list --since 7d --format json" "$SINCE > /dev/null"
PROJ="$H projects --format json"
timed projects "sessions --home $STORE projects --format json" "$PROJ > /dev/null"
timed usage "sessions --home $STORE usage daily --format json" \
    "$H usage daily --format json > /dev/null"
if [ -n "$CCUSAGE" ]; then
    CC_VERSION=$($CCUSAGE --version 2>/dev/null || echo unknown)
    timed cc "ccusage daily --json --offline (all agents)" "$CC_ENV $CCUSAGE daily --json --offline > /dev/null"
    for a in claude codex gemini; do
        timed "cc_$a" "ccusage $a daily --json --offline" \
            "$CC_ENV $CCUSAGE $a daily --json --offline > /dev/null"
    done
else
    CC_VERSION="not installed"
    log "bench: ccusage not found (set CCUSAGE or put it on PATH): its rows are left out"
fi
if [ "${BENCH_SKIP_SLOW:-0}" != 1 ]; then
    for alg in gemini openclaw-prune pi claude codex; do
        timed "replay_$alg" "sessions --home $STORE replay-compress --all -A $alg --format json" \
            "$H replay-compress --all -A $alg --format json > /dev/null"
    done
    # Where a replay's time goes: each agent's files alone, and the whole store, replayed at a
    # fixed summary size, against `list --agent X` and `list`. The size is the one the `auto`
    # replay settles (one untimed run), so that the two whole-store replays differ only by
    # what settling it costs (the replays the first stage runs again at it).
    AUTO=$($H replay-compress --all -A claude --format json 2>/dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["summary_tokens"])' ||
        echo 3000)
    FIXED="-A claude --summary-tokens $AUTO --format json"
    for a in claude codex gemini; do
        timed "fixed_$a" "sessions --home $STORE replay-compress --all $FIXED --agent $a" \
            "$H replay-compress --all $FIXED --agent $a > /dev/null"
    done
    timed fixed "sessions --home $STORE replay-compress --all $FIXED" \
        "$H replay-compress --all $FIXED > /dev/null"
    SWEEP="threshold=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
    timed sweep "sessions --home $STORE replay-compress --all -A gemini --sweep $SWEEP --format json" \
        "$H replay-compress --all -A gemini --sweep $SWEEP --format json > /dev/null"
    # Every session to stdout, rendered side by side in order (no files to create).
    timed export_stream "sessions --home $STORE export --all --format jsonl > /dev/null" \
        "$H export --all --format jsonl > /dev/null"
    # Each run writes into a new folder, after the earlier runs' writes reach the disk, and
    # the folders are removed only after the last run: on ext4 without a journal, creating
    # thousands of files within seconds of deleting thousands makes the kernel step over each
    # recently freed inode (`recently_deleted`), which would time the clean-up of the run
    # before, not the export.
    echo 0 > "$WORK/export-n"
    timed export "sessions --home $STORE export --all --format md -o OUT/" \
        "$H export --all --format md -o $WORK/export-\$(cat $WORK/export-n) > /dev/null" \
        "echo \$((\$(cat $WORK/export-n) + 1)) > $WORK/export-n && sync"
fi

# ---- the rounds
BUSY0=$(busy_s)
T0=$(now_ns)
log "== timing ($RUNS runs each)"
for ((i = 1; i <= RUNS; i++)); do
    log "== round $i of $RUNS"
    for key in "${ORDER[@]}"; do
        [ "$key" = export ] || run_once "$key" "$i"
    done
done
# The export writes 433 MB: between the others, its writeback would slow the commands after
# it. Its runs come last, each after the writes of the one before have reached the disk.
if [ -n "${CMD[export]:-}" ]; then
    log "== export"
    for ((i = 1; i <= RUNS; i++)); do
        run_once export "$i"
    done
    rm -rf "$WORK"/export-*
fi
for key in "${ORDER[@]}"; do
    finish "$key"
done

BUSY1=$(busy_s)
T1=$(now_ns)
if [ "$HAVE_TIME" = yes ]; then
    OTHER=$(awk -v b0="$BUSY0" -v b1="$BUSY1" -v own="$OWN_CPU" -v ns=$((T1 - T0)) 'BEGIN {
        o = b1 - b0 - own; if (o < 0) o = 0
        printf "other processes used %.2f cores on average (%.1f CPU s outside the measured commands in %.1f s)", o / (ns / 1e9), o, ns / 1e9 }')
else
    OTHER=$(awk -v b0="$BUSY0" -v b1="$BUSY1" -v ns=$((T1 - T0)) 'BEGIN {
        printf "the machine was busy %.2f cores on average, the measured commands included", (b1 - b0) / (ns / 1e9) }')
fi
N_LIST=$(count "$LIST")
N_SINCE=$(count "$SINCE")
N_PROJ=$(count "$PROJ")
RECENT=$(find "$STORE" -type f -name '*.jsonl' -newermt "$(date -u -d '7 days ago' '+%F %T')" | wc -l)

COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then COMMIT="$COMMIT (+ uncommitted changes)"; fi
CPU=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)
MEM=$(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || echo unknown)

cat <<EOF
## sessions benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')

* machine: $(nproc) cores ($CPU), $MEM RAM, $(uname -sr); $(rustc --version 2>/dev/null || echo rustc unknown)
* sessions: commit $COMMIT, \`cargo build --release\`; ccusage: $CC_VERSION
* store: \`$STORE/\`, ${SIZE_GB} GB requested, $STORE_MB MB in $STORE_FILES files (seed $SEED, sessions 2026-01-01..$END_DATE, generated this run: $GENERATED), largest file $LARGEST_MB MB (no parallel scan ends before its largest file is read)
* noise: during the timings $OTHER
* cache: warm. $CACHED of the store was in the page cache before the run (caches are never dropped); one untimed read of every file preceded the timings
* $RUNS runs per command, in rounds (each round runs every command once; the export's runs come last); wall time from a nanosecond clock around each run, $([ "$HAVE_TIME" = yes ] && echo "peak RSS from \`/usr/bin/time -v\` (max over runs)" || echo "no peak RSS: $TIME is missing (Debian package \`time\`), VmHWM cannot be read with the shell's \`time\`")
* CPU s = user + system CPU time (median over runs; above the wall time when several cores work); sys s = the system (kernel) part of it, median over runs: reading the store for every command, and for the export also creating its files and writing 433 MB, which machines of one kind do at different speeds; MB = 2^20 bytes; × list = median wall / \`list\`'s; MB/s = store size / median wall time (for \`--since 7d\` most files are skipped by mtime, so it is a skip rate, not a parse rate); ccusage rows run with HOME set to the store and TZ=UTC

| command | median wall s | × list | runs (s) | CPU s | sys s | MB/s over store | peak RSS MB |
|---|---:|---:|---|---:|---:|---:|---:|
EOF
for i in "${!ROWS[@]}"; do
    printf '%s\n' "${ROWS[$i]/@X@/$(ratio "${ROWKEYS[$i]}" list)}"
done
target() { # what, key A, key B, goal, pass (awk condition on m); the verdict is on wall time
    local ok m c
    m=$(ratio "$2" "$3")
    c=$(cpu_ratio "$2" "$3")
    ok=$(awk -v m="$m" "BEGIN { if (m == \"-\") print \"not measured\"; else if ($5) print \"met\"; else print \"missed\" }")
    printf '| %s | %s | %s | %s | %s |\n' "$1" "$m" "$c" "$4" "$ok"
}
cat <<EOF

Targets (issue 9; issue 11 item 7), as ratios of the median wall times above (and of the CPU
times, which other work on a shared machine disturbs less):

| target | wall ratio | CPU ratio | goal | |
|---|---:|---:|---:|---|
EOF
target "\`list\` / ccusage \`daily\` (all agents)" list cc "≤ 0.7" "m <= 0.7"
target "\`list\` / parse floor" list floor "≤ 1.5" "m <= 1.5"
for a in claude codex gemini; do
    target "\`list --agent $a\` / ccusage \`$a daily\`" "list_$a" "cc_$a" "≤ 1" "m <= 1"
done
target "\`usage daily\` / ccusage \`daily\`" usage cc "≤ 1" "m <= 1"
for alg in gemini openclaw-prune pi claude codex; do
    if [ "$alg" = gemini ]; then goal=2; else goal=1.3; fi
    target "\`replay-compress --all -A $alg\` / \`list\`" "replay_$alg" list "≤ $goal" "m <= $goal"
done
target "10-setting sweep / one \`-A gemini\` replay" sweep replay_gemini "≤ 3" "m <= 3"
target "\`export --all --format md\` / \`list\`" export list "≤ 3" "m <= 3"
RSS_LIST=${R[list]:--}
ok=$(awk -v m="$RSS_LIST" 'BEGIN { if (m == "-") print "not measured"; else if (m <= 64) print "met"; else print "missed" }')
printf '| peak RSS of `list`, MB | %s | | ≤ 64 | %s |\n' "$RSS_LIST" "$ok"
# The export's kernel part (creating its files, writing 433 MB) depends on the machine more
# than anything else measured here: its user time against `list`'s says what the code costs.
if [ -n "${M[export]:-}" ] && [ "${S[export]:-n/a}" != n/a ]; then
    printf '\nThe export spent %s s of its %s CPU s in the kernel; its user CPU time is %s× `list`'"'"'s.\n' \
        "${S[export]}" "${C[export]}" \
        "$(awk -v c="${C[export]}" -v s="${S[export]}" -v lc="${C[list]}" -v ls="${S[list]}" \
            'BEGIN { if (lc - ls > 0) printf "%.2f", (c - s) / (lc - ls); else print "-" }')"
fi
if [ -n "${M[fixed]:-}" ]; then
    cat <<EOF

Where a replay's time goes (no target): \`replay-compress --all -A claude\` at a fixed summary
size (\`--summary-tokens $AUTO\`, the size \`auto\` settles) over each agent's files, against
\`list --agent X\`; and what settling the size costs (the Claude sessions replayed again at
it), as the \`auto\` replay against the fixed one.

| files | wall ratio | CPU ratio |
|---|---:|---:|
EOF
    for a in claude codex gemini; do
        printf '| %s, replay / `list --agent %s` | %s | %s |\n' "$a" "$a" \
            "$(ratio "fixed_$a" "list_$a")" "$(cpu_ratio "fixed_$a" "list_$a")"
    done
    printf '| all, replay / `list` | %s | %s |\n' "$(ratio fixed list)" "$(cpu_ratio fixed list)"
    printf '| all, `auto` summary size / fixed | %s | %s |\n' \
        "$(ratio replay_claude fixed)" "$(cpu_ratio replay_claude fixed)"
fi
cat <<EOF

Output check: \`list\` returned $N_LIST sessions, \`list --since 7d\` $N_SINCE ($RECENT session files modified in the last 7 days), \`projects\` $N_PROJ projects.
EOF
if [ -s "$WORK/stderr.log" ]; then
    log "== stderr of the timed commands (first 10 lines):"
    head -n 10 "$WORK/stderr.log" >&2
fi
