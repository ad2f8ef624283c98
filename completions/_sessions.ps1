
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'sessions' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'sessions'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'sessions' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first, one line each')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one session: a header and a turn-by-turn timeline')
            [CompletionResult]::new('projects', 'projects', [CompletionResultType]::ParameterValue, 'List projects with their agents, sessions and tokens')
            [CompletionResult]::new('compactions', 'compactions', [CompletionResultType]::ParameterValue, 'The compaction ledger: every context compression the agents performed')
            [CompletionResult]::new('replay-compress', 'replay-compress', [CompletionResultType]::ParameterValue, 'Replay a context-management algorithm over real history: what would it have saved?')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export sessions as Markdown, self-contained HTML, JSON or JSONL transcripts')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Tokens and cost by day, week, month, session, project or 5-hour billing block')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sessions;list' {
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions started at or before this time (a date means up to the end of that day)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Main sessions, sub-agent sessions, or both')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N sessions (after sorting)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions (after sorting)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Sort key: times and numbers sort largest/newest first, names A to Z')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Sort key: times and numbers sort largest/newest first, names A to Z')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)')
            [CompletionResult]::new('--fallback-home', '--fallback-home', [CompletionResultType]::ParameterName, 'When the stores hold no session at all (a fresh machine), list the sessions of DIR, read as --home, instead, and say so on stderr. DIR must be a readable folder (exit 2 if not), whether or not it is needed')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Reverse the sort order')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the sort order')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sessions;show' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, '`text` (header and timeline) or `json` (the whole unified session)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, '`text` (header and timeline) or `json` (the whole unified session)')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Columns of each timeline line [default: the terminal''s width; 160 characters of each message when piped]')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sessions;projects' {
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions started at or before this time (a date means up to the end of that day)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Main sessions, sub-agent sessions, or both')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sessions;compactions' {
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions started at or before this time (a date means up to the end of that day)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Main sessions, sub-agent sessions, or both')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format (json/ndjson: the documented contract, docs/json.md)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format (json/ndjson: the documented contract, docs/json.md)')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print the observed sizes per agent (counts and medians; with --format json|ndjson also every summary''s size) instead of the events: what `replay-compress --summary-tokens auto` calibrates from')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sessions;replay-compress' {
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions started at or before this time (a date means up to the end of that day)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Main sessions, sub-agent sessions, or both')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'The algorithm to replay')
            [CompletionResult]::new('--algorithm', '--algorithm', [CompletionResultType]::ParameterName, 'The algorithm to replay')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Override a setting of the algorithm: KEY=VALUE (repeatable). Unknown keys and values out of range are errors that list what is allowed')
            [CompletionResult]::new('--sweep', '--sweep', [CompletionResultType]::ParameterName, 'Replay a grid of settings: KEY=V1,V2,… (repeatable; every combination is one row). A text setting''s values, which hold commas themselves, are separated by `;` (tools_allow=''Read*,Bash;Grep''). A key may not be given with --set too')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens, instead of the one of the model recorded in the session')
            [CompletionResult]::new('--summary-tokens', '--summary-tokens', [CompletionResultType]::ParameterName, 'Size of each summary in tokens, or `auto`: the median of the real summaries of the algorithm''s agent (any agent''s for pi and openclaw-prune) in the sessions replayed, else the algorithm''s documented default. N is at most what the agent''s summary call can write: claude 32000, codex 128000, gemini 65536; a median above that is held to it, with a note. A size (N or the median) above what the Claude Code versions that recorded the sessions could write (20000 from 2.1.21) is replayed as it is, with a note')
            [CompletionResult]::new('--plot', '--plot', [CompletionResultType]::ParameterName, 'Draw full / recorded / what-if context over requests into an SVG file (one file per session, suffixed with its id, when several are replayed). Not with --sweep')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format (json/ndjson: the documented contract, docs/json.md)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format (json/ndjson: the documented contract, docs/json.md)')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('--list-settings', '--list-settings', [CompletionResultType]::ParameterName, 'Print the algorithm''s settings (keys, defaults, allowed ranges) and exit; with --format json|ndjson, as `replay_setting` records. Takes no sessions, --all, filters or replay options')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Replay every session the filters select (like `list`)')
            [CompletionResult]::new('--timeline', '--timeline', [CompletionResultType]::ParameterName, 'Include the per-request series (full, recorded, what-if). Not with --sweep: one replay''s series at a time (pick its setting with --set)')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Compare the replay with the compactions the agent really performed (when replaying the session''s own agent''s algorithm). Not with --sweep: it judges one setting (--set)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite existing plot files')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sessions;export' {
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions active at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a local day, UTC with --utc), RFC 3339')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions started at or before this time (a date means up to the end of that day)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Main sessions, sub-agent sessions, or both')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE (one session) or into DIR (one file per session, named <agent>-<YYYY-MM-DD>-<short id>.<ext>, `undated` for a session with no time, `-2`… on a collision, plus an index). Default, and `-o -`: stdout for one session, or for any number as JSONL')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE (one session) or into DIR (one file per session, named <agent>-<YYYY-MM-DD>-<short id>.<ext>, `undated` for a session with no time, `-2`… on a collision, plus an index). Default, and `-o -`: stdout for one session, or for any number as JSONL')
            [CompletionResult]::new('--max-output-lines', '--max-output-lines', [CompletionResultType]::ParameterName, 'Lines of each tool output (and long tool argument) kept in md/html; 0 keeps all')
            [CompletionResult]::new('--images', '--images', [CompletionResultType]::ParameterName, 'Images as a placeholder (media type, size), or extracted and linked (md/html with -o): `-o s.md` writes them into `s.files/`')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Export every session the filters select (like `list`)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite existing files')
            [CompletionResult]::new('--literal', '--literal', [CompletionResultType]::ParameterName, 'Show message text exactly as typed (every Markdown character escaped) instead of rendering it as Markdown')
            [CompletionResult]::new('--no-thinking', '--no-thinking', [CompletionResultType]::ParameterName, 'Leave out thinking')
            [CompletionResult]::new('--no-tools', '--no-tools', [CompletionResultType]::ParameterName, 'Leave out tool calls and their results')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Replace secrets (API keys, tokens, private keys, passwords, …) with [REDACTED:<kind>] and report the counts on stderr')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sessions;usage' {
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Only these agents (repeatable or comma-separated)')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only projects whose path contains this text (case-insensitive) or matches this glob')
            [CompletionResult]::new('-z', '-z', [CompletionResultType]::ParameterName, 'Time zone of day, week and month boundaries: an IANA name (Europe/Paris), UTC, a POSIX TZ rule, or `local` (UTC with --utc). Also the zone of plain dates in --since/--until')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'Time zone of day, week and month boundaries: an IANA name (Europe/Paris), UTC, a POSIX TZ rule, or `local` (UTC with --utc). Also the zone of plain dates in --since/--until')
            [CompletionResult]::new('--start-of-week', '--start-of-week', [CompletionResultType]::ParameterName, 'First day of a week for `weekly` [default: monday]')
            [CompletionResult]::new('--order', '--order', [CompletionResultType]::ParameterName, 'Row order: oldest first or newest first (sessions and projects: by last activity)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. json/ndjson/csv follow the documented, versioned contract (docs/json.md)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Main sessions, sub-agent sessions, or both')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only requests made at or after this time: 7d, 12h, 2w, today, 2026-03-01 (a day of --timezone), RFC 3339. `blocks`: the whole blocks holding such a request')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only requests made at or before this time (a date means up to the end of that day in --timezone). `blocks`: the whole blocks holding such a request')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Treat DIR as the home directory of all three agents (a backup, another machine''s copy, or the sample home in testdata/home). The agents'' environment variables are ignored')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Claude Code config dir or its projects/ folder [default: $CLAUDE_PROJECTS_DIR, $CLAUDE_CONFIG_DIR, ~/.claude + ~/.config/claude]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Codex home or its sessions/ folder [default: $CODEX_SESSIONS_DIR, $CODEX_HOME, ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Gemini data dir (.gemini) [default: $GEMINI_SESSIONS_DIR, $GEMINI_CLI_HOME/.gemini, ~/.gemini]')
            [CompletionResult]::new('--project-root', '--project-root', [CompletionResultType]::ParameterName, 'A folder whose path (and subfolders'' paths) may be a Gemini project: used to resolve sessions that record only a projectHash. Repeatable')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Model prices in LiteLLM''s JSON shape, in front of the embedded table (LiteLLM 1.109.1, 2026-11-23): an edited copy of src/pricing/prices.json or a whole LiteLLM file. A listing changes only the prices it gives: a model''s other prices stay the embedded ones.')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Add a sub-row per model under each row')
            [CompletionResult]::new('--breakdown', '--breakdown', [CompletionResultType]::ParameterName, 'Add a sub-row per model under each row')
            [CompletionResult]::new('--active', '--active', [CompletionResultType]::ParameterName, '`blocks`: only the block in progress, with its burn rate and projection')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit with status 3 if any file or line could not be read')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'List every warning (skipped lines, duplicates, partial last lines), not just a summary')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no warnings or notes on stderr (errors still print, and --strict still fails with its one-line error)')
            [CompletionResult]::new('--no-progress', '--no-progress', [CompletionResultType]::ParameterName, 'Never show a progress bar (it is only shown when stderr is a terminal anyway)')
            [CompletionResult]::new('--wide', '--wide', [CompletionResultType]::ParameterName, 'Tables keep every column at full width instead of fitting the terminal (piped output is never cut)')
            [CompletionResult]::new('--utc', '--utc', [CompletionResultType]::ParameterName, 'Show times in UTC instead of local time (human output; JSON is always UTC)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sessions;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first, one line each')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one session: a header and a turn-by-turn timeline')
            [CompletionResult]::new('projects', 'projects', [CompletionResultType]::ParameterValue, 'List projects with their agents, sessions and tokens')
            [CompletionResult]::new('compactions', 'compactions', [CompletionResultType]::ParameterValue, 'The compaction ledger: every context compression the agents performed')
            [CompletionResult]::new('replay-compress', 'replay-compress', [CompletionResultType]::ParameterValue, 'Replay a context-management algorithm over real history: what would it have saved?')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export sessions as Markdown, self-contained HTML, JSON or JSONL transcripts')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Tokens and cost by day, week, month, session, project or 5-hour billing block')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sessions;help;list' {
            break
        }
        'sessions;help;show' {
            break
        }
        'sessions;help;projects' {
            break
        }
        'sessions;help;compactions' {
            break
        }
        'sessions;help;replay-compress' {
            break
        }
        'sessions;help;export' {
            break
        }
        'sessions;help;usage' {
            break
        }
        'sessions;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
