# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_sessions_global_optspecs
    string join \n home= claude-dir= codex-dir= gemini-dir= project-root= strict v/verbose q/quiet no-progress wide utc prices= h/help V/version
end

function __fish_sessions_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_sessions_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_sessions_using_subcommand
    set -l cmd (__fish_sessions_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c sessions -n "__fish_sessions_needs_command" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_needs_command" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_needs_command" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_needs_command" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_needs_command" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_needs_command" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_needs_command" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_needs_command" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_needs_command" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_needs_command" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_needs_command" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_needs_command" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_needs_command" -s V -l version -d 'Print version'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "list" -d 'List sessions, newest first, one line each'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "show" -d 'Show one session: a header and a turn-by-turn timeline'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "projects" -d 'List projects with their agents, sessions and tokens'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "compactions" -d 'The compaction ledger: every context compression the agents performed'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "replay-compress" -d 'Replay a context-management algorithm over real history: what would it have saved?'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "export" -d 'Export sessions as Markdown, self-contained HTML, JSON or JSONL transcripts'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "usage" -d 'Tokens and cost by day, week, month, session, project or 5-hour billing block'
complete -c sessions -n "__fish_sessions_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c sessions -n "__fish_sessions_using_subcommand list" -s a -l agent -d 'Only these agents (repeatable or comma-separated)' -r -f -a "claude\t''
codex\t''
gemini\t''"
complete -c sessions -n "__fish_sessions_using_subcommand list" -s p -l project -d 'Only projects whose path contains this text (case-insensitive) or matches this glob' -r
complete -c sessions -n "__fish_sessions_using_subcommand list" -l since -d 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339' -r
complete -c sessions -n "__fish_sessions_using_subcommand list" -l until -d 'Only sessions started at or before this time (a date means up to the end of that day)' -r
complete -c sessions -n "__fish_sessions_using_subcommand list" -l kind -d 'Main sessions, sub-agent sessions, or both' -r -f -a "main\t''
subagent\t''
all\t''"
complete -c sessions -n "__fish_sessions_using_subcommand list" -s n -l limit -d 'Show at most N sessions (after sorting)' -r
complete -c sessions -n "__fish_sessions_using_subcommand list" -s s -l sort -d 'Sort key: times and numbers sort largest/newest first, names A to Z' -r -f -a "started\t''
updated\t''
duration\t''
turns\t''
tools\t''
tokens\t''
compactions\t''
project\t''
agent\t''"
complete -c sessions -n "__fish_sessions_using_subcommand list" -s f -l format -d 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)' -r -f -a "table\t''
json\t''
ndjson\t''
csv\t''"
complete -c sessions -n "__fish_sessions_using_subcommand list" -l fallback-home -d 'When the stores hold no session at all (a fresh machine), list the sessions of DIR, read as --home, instead, and say so on stderr. DIR must be a readable folder (exit 2 if not), whether or not it is needed' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand list" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand list" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand list" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand list" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand list" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand list" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand list" -s r -l reverse -d 'Reverse the sort order'
complete -c sessions -n "__fish_sessions_using_subcommand list" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_using_subcommand list" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_using_subcommand list" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_using_subcommand list" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_using_subcommand list" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_using_subcommand list" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_using_subcommand show" -s f -l format -d '`text` (header and timeline) or `json` (the whole unified session)' -r -f -a "text\t''
json\t''"
complete -c sessions -n "__fish_sessions_using_subcommand show" -l width -d 'Columns of each timeline line [default: the terminal\'s width; 160 characters of each message when piped]' -r
complete -c sessions -n "__fish_sessions_using_subcommand show" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand show" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand show" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand show" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand show" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand show" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand show" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_using_subcommand show" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_using_subcommand show" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_using_subcommand show" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_using_subcommand show" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_using_subcommand show" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_using_subcommand projects" -s a -l agent -d 'Only these agents (repeatable or comma-separated)' -r -f -a "claude\t''
codex\t''
gemini\t''"
complete -c sessions -n "__fish_sessions_using_subcommand projects" -s p -l project -d 'Only projects whose path contains this text (case-insensitive) or matches this glob' -r
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l since -d 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339' -r
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l until -d 'Only sessions started at or before this time (a date means up to the end of that day)' -r
complete -c sessions -n "__fish_sessions_using_subcommand projects" -s f -l format -d 'Output format' -r -f -a "table\t''
json\t''
ndjson\t''
csv\t''"
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l kind -d 'Main sessions, sub-agent sessions, or both' -r -f -a "main\t''
subagent\t''
all\t''"
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_using_subcommand projects" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_using_subcommand projects" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_using_subcommand projects" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_using_subcommand projects" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -s a -l agent -d 'Only these agents (repeatable or comma-separated)' -r -f -a "claude\t''
codex\t''
gemini\t''"
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -s p -l project -d 'Only projects whose path contains this text (case-insensitive) or matches this glob' -r
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l since -d 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339' -r
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l until -d 'Only sessions started at or before this time (a date means up to the end of that day)' -r
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l kind -d 'Main sessions, sub-agent sessions, or both' -r -f -a "main\t''
subagent\t''
all\t''"
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -s f -l format -d 'Output format (json/ndjson: the documented contract, docs/json.md)' -r -f -a "table\t''
json\t''
ndjson\t''"
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l stats -d 'Print the observed sizes per agent (counts and medians; with --format json|ndjson also every summary\'s size) instead of the events: what `replay-compress --summary-tokens auto` calibrates from'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_using_subcommand compactions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -s a -l agent -d 'Only these agents (repeatable or comma-separated)' -r -f -a "claude\t''
codex\t''
gemini\t''"
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -s p -l project -d 'Only projects whose path contains this text (case-insensitive) or matches this glob' -r
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l since -d 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339' -r
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l until -d 'Only sessions started at or before this time (a date means up to the end of that day)' -r
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l kind -d 'Main sessions, sub-agent sessions, or both' -r -f -a "main\t''
subagent\t''
all\t''"
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -s A -l algorithm -d 'The algorithm to replay' -r -f -a "gemini\t'Gemini CLI chat compression + tool-output masking'
openclaw-prune\t'OpenClaw session pruning (soft-trim / hard-clear of old tool results)'
pi\t'Pi coding agent compaction'
claude\t'Claude Code auto-compact'
codex\t'Codex CLI auto-compaction'"
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l set -d 'Override a setting of the algorithm: KEY=VALUE (repeatable). Unknown keys and values out of range are errors that list what is allowed' -r
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l sweep -d 'Replay a grid of settings: KEY=V1,V2,… (repeatable; every combination is one row). A text setting\'s values, which hold commas themselves, are separated by `;` (tools_allow=\'Read*,Bash;Grep\'). A key may not be given with --set too' -r
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l context-window -d 'Context window in tokens, instead of the one of the model recorded in the session' -r
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l summary-tokens -d 'Size of each summary in tokens, or `auto`: the median of the real summaries of the algorithm\'s agent (any agent\'s for pi and openclaw-prune) in the sessions replayed, else the algorithm\'s documented default. N is at most what the agent\'s summary call can write: claude 32000, codex 128000, gemini 65536; a median above that is held to it, with a note. A size (N or the median) above what the Claude Code versions that recorded the sessions could write (20000 from 2.1.21) is replayed as it is, with a note' -r
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l plot -d 'Draw full / recorded / what-if context over requests into an SVG file (one file per session, suffixed with its id, when several are replayed). Not with --sweep' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -s f -l format -d 'Output format (json/ndjson: the documented contract, docs/json.md)' -r -f -a "table\t''
json\t''
ndjson\t''"
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l list-settings -d 'Print the algorithm\'s settings (keys, defaults, allowed ranges) and exit; with --format json|ndjson, as `replay_setting` records. Takes no sessions, --all, filters or replay options'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l all -d 'Replay every session the filters select (like `list`)'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l timeline -d 'Include the per-request series (full, recorded, what-if). Not with --sweep: one replay\'s series at a time (pick its setting with --set)'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l validate -d 'Compare the replay with the compactions the agent really performed (when replaying the session\'s own agent\'s algorithm). Not with --sweep: it judges one setting (--set)'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l force -d 'Overwrite existing plot files'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_using_subcommand replay-compress" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_using_subcommand export" -s a -l agent -d 'Only these agents (repeatable or comma-separated)' -r -f -a "claude\t''
codex\t''
gemini\t''"
complete -c sessions -n "__fish_sessions_using_subcommand export" -s p -l project -d 'Only projects whose path contains this text (case-insensitive) or matches this glob' -r
complete -c sessions -n "__fish_sessions_using_subcommand export" -l since -d 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339' -r
complete -c sessions -n "__fish_sessions_using_subcommand export" -l until -d 'Only sessions started at or before this time (a date means up to the end of that day)' -r
complete -c sessions -n "__fish_sessions_using_subcommand export" -l kind -d 'Main sessions, sub-agent sessions, or both' -r -f -a "main\t''
subagent\t''
all\t''"
complete -c sessions -n "__fish_sessions_using_subcommand export" -s f -l format -d 'Output format' -r -f -a "md\t'Markdown transcript (CommonMark)'
html\t'One self-contained HTML page per session'
json\t'The unified session (as `show --format json`)'
jsonl\t'One JSON record per message'"
complete -c sessions -n "__fish_sessions_using_subcommand export" -s o -l output -d 'Write to FILE (one session) or into DIR (one file per session, named <agent>-<YYYY-MM-DD>-<short id>.<ext>, `undated` for a session with no time, `-2`… on a collision, plus an index). Default, and `-o -`: stdout for one session, or for any number as JSONL' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand export" -l max-output-lines -d 'Lines of each tool output (and long tool argument) kept in md/html; 0 keeps all' -r
complete -c sessions -n "__fish_sessions_using_subcommand export" -l images -d 'Images as a placeholder (media type, size), or extracted and linked (md/html with -o): `-o s.md` writes them into `s.files/`' -r -f -a "placeholder\t'A placeholder with the media type and size'
extract\t'Write each image into `<export>.files/` and link it'"
complete -c sessions -n "__fish_sessions_using_subcommand export" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand export" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand export" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand export" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand export" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand export" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand export" -l all -d 'Export every session the filters select (like `list`)'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l force -d 'Overwrite existing files'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l literal -d 'Show message text exactly as typed (every Markdown character escaped) instead of rendering it as Markdown'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l no-thinking -d 'Leave out thinking'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l no-tools -d 'Leave out tool calls and their results'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l redact -d 'Replace secrets (API keys, tokens, private keys, passwords, …) with [REDACTED:<kind>] and report the counts on stderr'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_using_subcommand export" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_using_subcommand export" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_using_subcommand export" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s a -l agent -d 'Only these agents (repeatable or comma-separated)' -r -f -a "claude\t''
codex\t''
gemini\t''"
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s p -l project -d 'Only projects whose path contains this text (case-insensitive) or matches this glob' -r
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s z -l timezone -d 'Time zone of day, week and month boundaries: an IANA name (Europe/Paris), UTC, a POSIX TZ rule, or `local` (UTC with --utc). Also the zone of plain dates in --since/--until' -r
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l start-of-week -d 'First day of a week for `weekly` [default: monday]' -r -f -a "monday\t''
tuesday\t''
wednesday\t''
thursday\t''
friday\t''
saturday\t''
sunday\t''"
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l order -d 'Row order: oldest first or newest first (sessions and projects: by last activity)' -r -f -a "asc\t'Oldest first'
desc\t'Newest first'"
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s f -l format -d 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)' -r -f -a "table\t''
json\t''
ndjson\t''
csv\t''"
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l kind -d 'Main sessions, sub-agent sessions, or both' -r -f -a "main\t''
subagent\t''
all\t''"
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l since -d 'Only requests made at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a day of --timezone), RFC 3339. `blocks`: the whole blocks holding such a request' -r
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l until -d 'Only requests made at or before this time (a date means up to the end of that day in --timezone). `blocks`: the whole blocks holding such a request' -r
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l home -d 'Treat DIR as the home directory of all three agents (a backup, another machine\'s copy, or the sample home in testdata/home). The agents\' environment variables are ignored' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l claude-dir -d 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l codex-dir -d 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l gemini-dir -d 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l project-root -d 'A folder whose path (and subfolders\' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l prices -d 'Model prices in LiteLLM\'s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model\'s other prices stay the embedded ones.' -r -F
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s b -l breakdown -d 'Add a sub-row per model under each row'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l active -d '`blocks`: only the block in progress, with its burn rate and projection'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l strict -d 'Exit with status 3 if any file or line could not be read'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s v -l verbose -d 'List every warning (skipped lines, duplicates, partial last lines), not just a summary'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s q -l quiet -d 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l no-progress -d 'Never show a progress bar (it is only shown when stderr is a terminal anyway)'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l wide -d 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -l utc -d 'Show times in UTC instead of local time (human output; JSON is always UTC)'
complete -c sessions -n "__fish_sessions_using_subcommand usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "list" -d 'List sessions, newest first, one line each'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "show" -d 'Show one session: a header and a turn-by-turn timeline'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "projects" -d 'List projects with their agents, sessions and tokens'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "compactions" -d 'The compaction ledger: every context compression the agents performed'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "replay-compress" -d 'Replay a context-management algorithm over real history: what would it have saved?'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "export" -d 'Export sessions as Markdown, self-contained HTML, JSON or JSONL transcripts'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "usage" -d 'Tokens and cost by day, week, month, session, project or 5-hour billing block'
complete -c sessions -n "__fish_sessions_using_subcommand help; and not __fish_seen_subcommand_from list show projects compactions replay-compress export usage help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
