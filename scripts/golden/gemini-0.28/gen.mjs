// Golden vectors for the reverse-budget truncation of Gemini CLI v0.26–v0.28, from the real code.
//
//   cd scripts/golden/gemini-0.28 && npm install && node gen.mjs
//
// @google/gemini-cli-core 0.28.2 (pinned in package.json; 0.28.0 was not published to npm; its
// chatCompressionService.ts, fileUtils.ts and tokenCalculation.ts equal v0.28.0's) still cut an
// old function response to its last COMPRESSION_TRUNCATE_LINES (30) lines; v0.29 (28805a4b2d)
// replaced that with the head/tail characters the 0.61 vectors (../gemini) cover. Writes
// testdata/golden/gemini-0.28/truncate.json:
//
//   format    formatTruncatedToolOutput(content, file): the lines / last-4,000-characters cut
//   paths     saveTruncatedToolOutput(content, tool, id, dir).outputFile (the older naming)
//   compress  ChatCompressionService.compress(): truncateHistoryToBudget in the new history and
//             in the summariser calls (estimates at that era's non-ASCII weight, 1.3)
//   env       the environment turn getInitialChatHistory puts in front (for the new count)
//
// Inputs use the macros of ../gemini/gen.mjs ({"$rep": [s, n]}, {"$cat": [...]}); outputs are
// recorded as sha256 of the JSON text and its UTF-16 length, and verbatim when short.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const core = path.join(here, 'node_modules/@google/gemini-cli-core');
const pkg = JSON.parse(fs.readFileSync(path.join(core, 'package.json'), 'utf8'));
const src = (p) => import(path.join(core, 'dist/src', p));

const { estimateTokenCountSync } = await src('utils/tokenCalculation.js');
const { ChatCompressionService } = await src('services/chatCompressionService.js');
const { formatTruncatedToolOutput, saveTruncatedToolOutput } = await src('utils/fileUtils.js');
const { getInitialChatHistory } = await src('utils/environmentContext.js');
const { debugLogger } = await src('utils/debugLogger.js');

const OUT = path.resolve(here, '../../../testdata/golden/gemini-0.28');
// saveTruncatedToolOutput writes here; the paths it returns are part of the truncated text.
const TEMP_DIR = '/tmp/sessions-golden-gemini-0.28/project';
const TODAY = 'Tuesday, February 10, 2026';

for (const k of ['debug', 'log', 'info', 'warn']) debugLogger[k] = () => {};
Date.prototype.toLocaleDateString = () => TODAY;

function expand(v) {
  if (Array.isArray(v)) return v.map(expand);
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === '$rep') return expand(v.$rep[0]).repeat(v.$rep[1]);
    if (keys.length === 1 && keys[0] === '$cat') return v.$cat.map(expand).join('');
    const o = {};
    for (const k of keys) o[k] = expand(v[k]);
    return o;
  }
  return v;
}
const rep = (s, n) => ({ $rep: [s, n] });
const cat = (...xs) => ({ $cat: xs });
const sha = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
function record(value, max = 4000) {
  if (value === undefined) return null;
  const json = JSON.stringify(value);
  const r = { sha256: sha(json), len: json.length };
  if (json.length <= max) r.json = json;
  return r;
}

// Lines of `n` units of text (ASCII words, or CJK), numbered.
const lines = (count, text) => ({ $cat: Array.from({ length: count }, (_, i) => cat(`${i}: `, text, i + 1 < count ? '\n' : '')) });

// ---------------------------------------------------------------------------------------------
// formatTruncatedToolOutput(content, file, 30)

const FILE = `${TEMP_DIR}/tool_output/read_file_7.txt`;
const format = [];
const addFormat = (name, content, rounds = 1) => {
  let s = expand(content);
  const outs = [];
  for (let r = 0; r < rounds; r++) {
    s = formatTruncatedToolOutput(s, FILE, 30);
    outs.push(record(s));
  }
  format.push({ name, content, file: FILE, expected: outs });
};
addFormat('empty', '');
addFormat('one short line', 'ok');
addFormat('single line of 10,000 ascii', rep('0123456789', 1000));
addFormat('single line of exactly 4,000', rep('abcd', 1000));
addFormat('single line of astral pairs, aligned', rep('😀', 3000));
addFormat('single line cut through a pair', cat(rep('😀', 3000), 'a'));
addFormat('two lines', 'first\nsecond');
addFormat('trailing newline', 'a\nb\n');
addFormat('crlf lines', rep('row\r\n', 40));
addFormat('29 lines', lines(29, 'log line'));
addFormat('30 lines', lines(30, 'log line'));
addFormat('31 lines', lines(31, 'log line'));
addFormat('200 lines', lines(200, 'cargo test -- passed 漢字'));
addFormat('long lines cut at 1,000', lines(40, rep('wide ', 300)));
addFormat('line of exactly 1,000 kept', cat('head\n', rep('x', 1000), '\ntail'));
addFormat('long line cut through a pair', cat('a\nx', rep('😀', 600)));
addFormat('empty lines only', rep('\n', 50));
addFormat('nested rounds reach a fixed point', 'a\nb\nc', 16);
addFormat('nested rounds of a single line', rep('y', 9000), 4);

// ---------------------------------------------------------------------------------------------
// saveTruncatedToolOutput(content, tool, id, dir).outputFile

const paths = [];
for (const [tool, id] of [
  ['read_file', 1], ['run_shell_command', 42], ['My Tool/ünï', 3], ['kebab-case-tool', 'call-ID_x.9'],
  ['😀tool', 12], ['', 5], ['unknown_tool', 100], ['UPPER', 'MiXeD'],
]) {
  const { outputFile } = await saveTruncatedToolOutput('content', tool, id, TEMP_DIR);
  paths.push({ tool, id: String(id), dir: TEMP_DIR, expected: outputFile });
}

// ---------------------------------------------------------------------------------------------
// ChatCompressionService.compress

function fakeConfig(opts) {
  let truncationId = 0;
  const known = {
    getHookSystem: () => undefined,
    getCompressionThreshold: async () => opts.threshold,
    getNextCompressionTruncationId: () => ++truncationId,
    storage: { getProjectTempDir: () => TEMP_DIR },
    getBaseLlmClient: () => ({
      generateContent: async (req) => {
        opts.calls.push(req);
        const text = opts.calls.length === 1 ? opts.summary : opts.probe;
        return { candidates: [{ content: { role: 'model', parts: [{ text }] } }] };
      },
    }),
    getContentGenerator: () => ({ countTokens: async () => { throw new Error('offline'); } }),
    // No workspace folders: the directory context is its fixed preamble (no folder walk).
    getWorkspaceContext: () => ({ getDirectories: () => [] }),
    getEnvironmentMemory: () => 'Memory: prefers Rust 🦀 and short answers.',
    getModel: () => 'gemini-2.5-pro',
  };
  return new Proxy(known, {
    get(t, k) {
      if (k in t) return t[k];
      if (k === 'then') return undefined;
      return () => undefined;
    },
  });
}

const user = (...parts) => ({ role: 'user', parts });
const model = (...parts) => ({ role: 'model', parts });
const frOut = (id, name, output) => ({ functionResponse: { id, name, response: { output } } });
const TOOLS = ['read_file', 'run_shell_command', 'grep_search', 'glob', 'replace', 'web_fetch', 'write_file'];
const S = 'Scratchpad: reviewing.\n<state_snapshot>\n<overall_goal>Fix the build 构建</overall_goal>\n</state_snapshot>';

const env = (await getInitialChatHistory(fakeConfig({ calls: [] }), []))[0].parts[0].text;

const compress = [];
const svc = new ChatCompressionService();
const addCompress = async (name, history, o) => {
  const h = expand(history);
  const calls = [];
  const cfg = fakeConfig({ ...o, calls });
  const chat = { getHistory: () => structuredClone(h), getLastPromptTokenCount: () => o.lastPrompt };
  const res = await svc.compress(chat, 'golden', o.force ?? false, 'gemini-2.5-pro', cfg, false);
  const nh = res.newHistory;
  compress.push({
    name,
    history,
    last_prompt: o.lastPrompt,
    force: o.force ?? false,
    summary: o.summary,
    probe: o.probe,
    expected: {
      status: res.info.compressionStatus,
      original_token_count: res.info.originalTokenCount,
      new_token_count: res.info.newTokenCount,
      new_history: nh ? record(nh) : null,
      new_history_len: nh ? nh.length : null,
      summarizer_calls: calls.map((c) => ({
        contents: record(c.contents),
        estimate: estimateTokenCountSync(c.contents.flatMap((x) => x.parts || [])),
      })),
    },
  });
};
// Outputs of 12,000 CJK units (15,600 tokens at 1.3) cross the 50,000-token budget on the
// fourth newest; older ones are cut, newer ones kept. The only prompt after the first comes
// early and the history ends on a call, so the split keeps almost everything: the cut outputs
// are in the new history.
const budget = (mk) => {
  const h = [user({ text: 'analyse the logs 日志' })];
  for (let i = 0; i < 7; i++) {
    const name = TOOLS[i % TOOLS.length];
    h.push(model({ text: `step ${i}` }, { functionCall: { name, args: { i } } }));
    h.push(user(mk(i, name)));
    if (i === 0) h.push(model({ text: 'first look' }), user({ text: 'continue please 继续' }));
  }
  h.push(model({ functionCall: { name: 'glob', args: { pattern: '**/*.log' } } }));
  return h;
};
await addCompress('multi-line outputs keep their last 30 lines',
  budget((i, name) => frOut(`call-${i}`, name, lines(200, rep('漢字かな한국어', 7)))), { lastPrompt: 900000, summary: S, probe: S });
await addCompress('single-line outputs keep their last 4,000 characters',
  budget((i, name) => frOut(`call-${i}`, name, cat(`#${i} `, rep('漢字かな한국어', 1500)))), { lastPrompt: 900000, summary: S, probe: S });
await addCompress('short outputs past the budget are rewritten too',
  budget((i, name) => (i === 0 ? frOut('call-0', 'My Tool/ünï', 'short\noutput') : frOut(`call-${i}`, name, rep('漢字かな한국어', 2500)))),
  { lastPrompt: 900000, summary: S, probe: S });
// An ASCII head long in characters, a CJK tail heavy in tokens: the split lands on the last
// prompt and the budget is crossed inside the kept tail.
const tailed = [user({ text: 'read everything' })];
for (let i = 0; i < 3; i++) tailed.push(model({ functionCall: { name: 'read_file', args: { i } } }), user(frOut(`h-${i}`, 'read_file', rep(`ascii line ${i}\n`, 1700))));
tailed.push(model({ text: rep('long ascii prose, not a tool output. ', 3000) }), user({ text: 'now the CJK logs 日志' }));
for (let i = 0; i < 4; i++) tailed.push(model({ functionCall: { name: 'grep_search', args: { i } } }), user(frOut(`t-${i}`, 'grep_search', lines(150, rep('漢字かな한국어', 10)))));
tailed.push(model({ text: 'summary of logs' }));
await addCompress('kept tail truncated by lines', tailed, { lastPrompt: 900000, summary: S, probe: S });

fs.rmSync('/tmp/sessions-golden-gemini-0.28', { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
const doc = {
  package: '@google/gemini-cli-core',
  version: pkg.version,
  generator: 'scripts/golden/gemini-0.28/gen.mjs',
  node: process.version,
  project_temp_dir: TEMP_DIR,
  env,
  format,
  paths,
  compress,
};
// One case a line, like ../gemini/gen.mjs's files.
const text = JSON.stringify(doc).replace(/,\{"name":/g, ',\n{"name":') + '\n';
fs.writeFileSync(path.join(OUT, 'truncate.json'), text);
console.log(`truncate.json: ${format.length} format, ${paths.length} paths, ${compress.length} compress cases, ${(text.length / 1024).toFixed(0)} KiB`);
