#!/usr/bin/env bash
# Seed corpora for each target from the session corpus and the sample home (small files only:
# AFL works best on inputs under ~100 kB). Usage: fuzz/seed.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")"
corpus="${1:-${SESSIONS_CORPUS:-../../shared/corpus}}"
rm -rf in && mkdir -p in/{claude,codex,codex_zst,gemini_json,gemini_jsonl,markdown,redact}
pick() { # dir pattern target
  find "$1" -type f -name "$2" -size -96k 2>/dev/null | head -40 | while read -r f; do
    cp "$f" "in/$3/$(echo "$f" | sha1sum | cut -c1-12)"
  done
}
for src in "$corpus/claude" "$corpus/real/claude_real_projects" ../testdata/home/.claude ../testdata/damaged; do pick "$src" '*.jsonl' claude; done
for src in "$corpus/codex" ../testdata/home/.codex ../testdata/damaged; do pick "$src" '*.jsonl' codex; pick "$src" '*.zst' codex_zst; done
for src in "$corpus/gemini" "$corpus/real/gemini_legacy" ../testdata/home/.gemini; do pick "$src" '*.json' gemini_json; pick "$src" '*.jsonl' gemini_jsonl; done
printf '# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[x](javascript:alert(1)) <script>x</script> **b** `c`\n' > in/markdown/a
printf 'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\npassword: hunter2\ncurl -u user:pw https://x\nghp_0123456789abcdefghijABCDEFGHIJ012345\n' > in/redact/a
for t in in/*; do echo "$t: $(ls "$t" | wc -l) seeds"; done
