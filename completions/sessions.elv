
use builtin;
use str;

set edit:completion:arg-completer[sessions] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'sessions'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'sessions'= {
            cand --home 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored'
            cand --claude-dir 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]'
            cand --codex-dir 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]'
            cand --gemini-dir 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]'
            cand --project-root 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable'
            cand --strict 'Exit with status 3 if any file or line could not be read'
            cand -v 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand --verbose 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand -q 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --quiet 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --no-progress 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
            cand --wide 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
            cand --utc 'Show times in UTC instead of local time (human output; JSON is always UTC)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List sessions, newest first, one line each'
            cand show 'Show one session: a header and a turn-by-turn timeline'
            cand projects 'List projects with their agents, sessions and tokens'
            cand compactions 'The compaction ledger: every context compression the agents performed'
            cand replay-compress 'Replay a context-management algorithm over real history: what would it have saved?'
            cand export 'Export sessions as Markdown, self-contained HTML, JSON or JSONL transcripts'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sessions;list'= {
            cand -a 'Only these agents (repeatable or comma-separated)'
            cand --agent 'Only these agents (repeatable or comma-separated)'
            cand -p 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --project 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --since 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01, RFC 3339'
            cand --until 'Only sessions started at or before this time (a date means the end of that day)'
            cand --kind 'Main sessions, sub-agent sessions, or both'
            cand -n 'Show at most N sessions (after sorting)'
            cand --limit 'Show at most N sessions (after sorting)'
            cand -s 'Sort key: times and numbers sort largest/newest first, names A to Z'
            cand --sort 'Sort key: times and numbers sort largest/newest first, names A to Z'
            cand -f 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)'
            cand --format 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)'
            cand --fallback-home 'When the stores hold no session at all (a fresh machine), list the sessions of DIR, read as --home, instead, and say so on stderr'
            cand --home 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored'
            cand --claude-dir 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]'
            cand --codex-dir 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]'
            cand --gemini-dir 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]'
            cand --project-root 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable'
            cand -r 'Reverse the sort order'
            cand --reverse 'Reverse the sort order'
            cand --strict 'Exit with status 3 if any file or line could not be read'
            cand -v 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand --verbose 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand -q 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --quiet 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --no-progress 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
            cand --wide 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
            cand --utc 'Show times in UTC instead of local time (human output; JSON is always UTC)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sessions;show'= {
            cand -f '`text` (header and timeline) or `json` (the whole unified session)'
            cand --format '`text` (header and timeline) or `json` (the whole unified session)'
            cand --width 'Columns of each timeline line [default: the terminal''s width; 160 characters of each message when piped]'
            cand --home 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored'
            cand --claude-dir 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]'
            cand --codex-dir 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]'
            cand --gemini-dir 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]'
            cand --project-root 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable'
            cand --strict 'Exit with status 3 if any file or line could not be read'
            cand -v 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand --verbose 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand -q 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --quiet 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --no-progress 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
            cand --wide 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
            cand --utc 'Show times in UTC instead of local time (human output; JSON is always UTC)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sessions;projects'= {
            cand -a 'Only these agents (repeatable or comma-separated)'
            cand --agent 'Only these agents (repeatable or comma-separated)'
            cand -p 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --project 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --since 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01, RFC 3339'
            cand --until 'Only sessions started at or before this time (a date means the end of that day)'
            cand --kind 'Main sessions, sub-agent sessions, or both'
            cand -f 'Output format'
            cand --format 'Output format'
            cand --home 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored'
            cand --claude-dir 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]'
            cand --codex-dir 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]'
            cand --gemini-dir 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]'
            cand --project-root 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable'
            cand --strict 'Exit with status 3 if any file or line could not be read'
            cand -v 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand --verbose 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand -q 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --quiet 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --no-progress 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
            cand --wide 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
            cand --utc 'Show times in UTC instead of local time (human output; JSON is always UTC)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sessions;compactions'= {
            cand -a 'Only these agents (repeatable or comma-separated)'
            cand --agent 'Only these agents (repeatable or comma-separated)'
            cand -p 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --project 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --since 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01, RFC 3339'
            cand --until 'Only sessions started at or before this time (a date means the end of that day)'
            cand --kind 'Main sessions, sub-agent sessions, or both'
            cand -f 'Output format (json/ndjson: the documented contract, docs/json.md)'
            cand --format 'Output format (json/ndjson: the documented contract, docs/json.md)'
            cand --home 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored'
            cand --claude-dir 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]'
            cand --codex-dir 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]'
            cand --gemini-dir 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]'
            cand --project-root 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable'
            cand --stats 'Print the observed sizes per agent (counts, medians, every summary size) instead of the events: what `replay-compress --summary-tokens auto` calibrates from'
            cand --strict 'Exit with status 3 if any file or line could not be read'
            cand -v 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand --verbose 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand -q 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --quiet 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --no-progress 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
            cand --wide 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
            cand --utc 'Show times in UTC instead of local time (human output; JSON is always UTC)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sessions;replay-compress'= {
            cand -a 'Only these agents (repeatable or comma-separated)'
            cand --agent 'Only these agents (repeatable or comma-separated)'
            cand -p 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --project 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --since 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01, RFC 3339'
            cand --until 'Only sessions started at or before this time (a date means the end of that day)'
            cand --kind 'Main sessions, sub-agent sessions, or both'
            cand -A 'The algorithm to replay'
            cand --algorithm 'The algorithm to replay'
            cand --set 'Override a setting of the algorithm: KEY=VALUE (repeatable). Unknown keys and values out of range are errors that list what is allowed'
            cand --sweep 'Replay a grid of settings: KEY=V1,V2,… (repeatable; every combination is one row)'
            cand --context-window 'Context window in tokens, instead of the one of the model recorded in the session'
            cand --summary-tokens 'Size of each summary in tokens, or `auto`: the median of the real summaries of the algorithm''s agent found in the scanned data, else the algorithm''s documented default'
            cand --plot 'Draw full / recorded / what-if context over requests into an SVG file (one file per session, suffixed with its id, when several are replayed)'
            cand -f 'Output format (json/ndjson: the documented contract, docs/json.md)'
            cand --format 'Output format (json/ndjson: the documented contract, docs/json.md)'
            cand --home 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored'
            cand --claude-dir 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]'
            cand --codex-dir 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]'
            cand --gemini-dir 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]'
            cand --project-root 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable'
            cand --list-settings 'Print the algorithm''s settings (keys, defaults, allowed ranges) and exit'
            cand --all 'Replay every session the filters select'
            cand --timeline 'Include the per-request series (full, recorded, what-if)'
            cand --validate 'Compare the replay with the compactions the agent really performed (when replaying the session''s own agent''s algorithm)'
            cand --force 'Overwrite existing plot files'
            cand --strict 'Exit with status 3 if any file or line could not be read'
            cand -v 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand --verbose 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand -q 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --quiet 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --no-progress 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
            cand --wide 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
            cand --utc 'Show times in UTC instead of local time (human output; JSON is always UTC)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sessions;export'= {
            cand -a 'Only these agents (repeatable or comma-separated)'
            cand --agent 'Only these agents (repeatable or comma-separated)'
            cand -p 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --project 'Only projects whose path contains this text (case-insensitive) or matches this glob'
            cand --since 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01, RFC 3339'
            cand --until 'Only sessions started at or before this time (a date means the end of that day)'
            cand --kind 'Main sessions, sub-agent sessions, or both'
            cand -f 'Output format'
            cand --format 'Output format'
            cand -o 'Write to FILE (one session) or into DIR (one file per session, named <agent>-<YYYY-MM-DD>-<short id>.<ext>, plus an index). Default: stdout for one session'
            cand --output 'Write to FILE (one session) or into DIR (one file per session, named <agent>-<YYYY-MM-DD>-<short id>.<ext>, plus an index). Default: stdout for one session'
            cand --max-output-lines 'Lines of each tool output (and long tool argument) kept in md/html; 0 keeps all'
            cand --images 'Images as a placeholder (media type, size), or extracted into <export>.files/ and linked (md/html with -o)'
            cand --home 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored'
            cand --claude-dir 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]'
            cand --codex-dir 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]'
            cand --gemini-dir 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]'
            cand --project-root 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable'
            cand --all 'Export every session the filters select (like `list`)'
            cand --force 'Overwrite existing files'
            cand --literal 'Show message text exactly as typed (every Markdown character escaped) instead of rendering it as Markdown'
            cand --no-thinking 'Leave out thinking'
            cand --no-tools 'Leave out tool calls and their results'
            cand --redact 'Replace secrets (API keys, tokens, private keys, passwords, …) with [REDACTED:<kind>] and report the counts on stderr'
            cand --strict 'Exit with status 3 if any file or line could not be read'
            cand -v 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand --verbose 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
            cand -q 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --quiet 'Print no warnings on stderr (the exit status still reflects --strict)'
            cand --no-progress 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
            cand --wide 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
            cand --utc 'Show times in UTC instead of local time (human output; JSON is always UTC)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sessions;help'= {
            cand list 'List sessions, newest first, one line each'
            cand show 'Show one session: a header and a turn-by-turn timeline'
            cand projects 'List projects with their agents, sessions and tokens'
            cand compactions 'The compaction ledger: every context compression the agents performed'
            cand replay-compress 'Replay a context-management algorithm over real history: what would it have saved?'
            cand export 'Export sessions as Markdown, self-contained HTML, JSON or JSONL transcripts'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sessions;help;list'= {
        }
        &'sessions;help;show'= {
        }
        &'sessions;help;projects'= {
        }
        &'sessions;help;compactions'= {
        }
        &'sessions;help;replay-compress'= {
        }
        &'sessions;help;export'= {
        }
        &'sessions;help;help'= {
        }
    ]
    $completions[$command]
}
