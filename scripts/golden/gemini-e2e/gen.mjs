// End-to-end differential goldens for `--algorithm gemini`: the real Gemini CLI pipeline, run
// over recorded sessions, request by request.
//
//   cd scripts/golden/gemini-e2e && npm ci && node gen.mjs
//
// (`npm ci` installs @google/gemini-cli-core at the version package-lock.json pins, 0.61.0;
// node_modules is git-ignored. Takes a few minutes; writes testdata/golden/gemini-e2e/.)
//
// Sessions: the Gemini files of ../shared/corpus (gemini/ and real/gemini_legacy/), the Gemini
// sessions of testdata/home, and long sessions from generate.mjs (seeded; the Rust tests
// regenerate the same bytes).
//
// For each session and each setting (SETTINGS below) this runs what Gemini CLI 0.61.0 does:
//
// 1. The history: `loadConversationRecord` (with one deviation: `$set.messages` checkpoint lists
//    are ignored, so a replay sees the conversation rather than the agent's own compressed or
//    masked copies; checkpoint-free files load exactly as the package loads them), then
//    `convertSessionToClientHistory`, `getInitialChatHistory` (a fresh environment turn, as a
//    resume puts in front) and `ensureStableToolIds` — what `resumeChat` receives and the
//    `GeminiChat` constructor makes of it.
// 2. The session is then played forward the way `GeminiClient.processTurn` sees it: every
//    `gemini` record is one request; before it, with the history as it was *before the
//    request's new content* (the prompt, or the function responses of the previous call):
//    `ChatCompressionService.compress(chat, …, hasFailedCompressionAttempt)` on a real
//    `GeminiChat` (curation, thought stripping, turn merging are its own `getHistory`), with
//    the client's follow-up (COMPRESSED → a new chat from `getInitialChatHistory(newHistory)`,
//    INFLATED → the failure flag, CONTENT_TRUNCATED → `setHistory`); then
//    `ToolOutputMaskingService.mask(getHistory())` and `setHistory` when it masked; then the new
//    content is added, and after the request the model's response.
// 3. The summariser is a stub: both calls answer `A` × 4·N (N tokens; N is the setting's
//    summary_tokens, what `--summary-tokens` gives the Rust side). Saved outputs go nowhere (file writes are
//    stubbed) under the same placeholder paths the Rust replay prints.
// 4. The trigger input `lastPromptTokenCount` (P): while the replay has not changed the history
//    (no compression, truncation or masking yet) and the agent has not compacted before, the
//    `tokens.input` of the latest earlier response that recorded one — Gemini's own figure.
//    Otherwise an estimate: the overhead (first recorded prompt − estimate of the unmanaged
//    history at that request; 0 until then) plus the estimate of the previous request's history
//    as sent, which is the engine's `RequestInfo::prev_prompt` without calibration; at the
//    first request, the estimate of the history (what a new `GeminiChat` starts with).
//
// Per request the golden holds [P, status, split, kept, new tokens, masked, tokens saved,
// estimate of the history as sent, its JSON length, sha256 prefix of its JSON (where the
// replay changed the history, and at the last request; else null)]:
//   status 0 = below the threshold (no attempt), else the package's CompressionStatus
//   (1 COMPRESSED, 2 INFLATED, 5 NOOP, 6 CONTENT_TRUNCATED); split = index of the split in
//   the curated history (from the summariser's input), kept = contents kept after it;
//   the history is `JSON.stringify(chat.getHistory())` (curation off, thoughts stripped,
//   turns merged) once the request's content is in.

import { register, createRequire, syncBuiltinESMExports } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { generateSession, isJsonl } from './generate.mjs';

register(pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'limit-hook.mjs')));

// Saved tool outputs (truncation, masking) are not needed: stub the writes.
const require = createRequire(import.meta.url);
const fsp = require('node:fs/promises');
fsp.writeFile = async () => {};
fsp.mkdir = async () => {};
syncBuiltinESMExports();

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const coreDir = path.join(here, 'node_modules/@google/gemini-cli-core');
const pkg = JSON.parse(fs.readFileSync(path.join(coreDir, 'package.json'), 'utf8'));
const src = (p) => import(path.join(coreDir, 'dist/src', p));

const { loadConversationRecord } = await src('services/chatRecordingService.js');
const { convertSessionToClientHistory, ensureStableToolIds, partListUnionToString } = await src(
  'utils/sessionUtils.js',
);
const { getInitialChatHistory } = await src('utils/environmentContext.js');
const { GeminiChat, stripThoughts } = await src('core/geminiChat.js');
const { ChatCompressionService } = await src('context/chatCompressionService.js');
const { ToolOutputMaskingService } = await src('context/toolOutputMaskingService.js');
const { estimateTokenCountSync } = await src('utils/tokenCalculation.js');
const { tokenLimit } = await src('core/tokenLimits.js');
const { debugLogger } = await src('utils/debugLogger.js');
for (const k of ['debug', 'log', 'info', 'warn', 'error']) debugLogger[k] = () => {};

// E2E_OUT / E2E_SEEDS: write elsewhere / generate another number of sessions (the committed
// goldens use the defaults; a larger run measures agreement on more sessions, read by the Rust
// test through SESSIONS_GEMINI_E2E_GOLDEN=<dir>/decisions.json.zst).
const OUT = process.env.E2E_OUT ?? path.join(repo, 'testdata/golden/gemini-e2e');
const CORPUS = path.resolve(repo, '../shared/corpus');
const HOME = path.join(repo, 'testdata/home/.gemini/tmp');
const GENERATED_SEEDS = Array.from({ length: Number(process.env.E2E_SEEDS ?? 30) }, (_, i) => i + 1);

// The placeholders of src/replay/gemini.rs, so saved-output paths print the same.
const PROJECT_TEMP_DIR =
  '/home/user/.gemini/tmp/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const SESSION_ID = '4f6c2a1e-8d3b-4c9a-b7e2-5a0d9c3f1e6b';
const TRUNCATION_ID = 42;
const RANDOM = 0.123456789; // Math.random() → the masking file suffix, `xjylrx`
const NOW = 1767225600000;
const TODAY = 'Thursday, January 1, 2026';
const SUMMARY_TOKENS = 1500;
// Curation, thought stripping and merging apply to Gemini 2 and 3 models (v0.54+): the Rust
// default `coalesce_turns=true`.
const CONFIG_MODEL = 'gemini-2.5-pro';

const MASKING = { protectionThresholdTokens: 50000, minPrunableThresholdTokens: 30000, protectLatestTurn: true };
const SMALL_MASKING = { protectionThresholdTokens: 8000, minPrunableThresholdTokens: 4000, protectLatestTurn: true };
const SETTINGS = [
  { name: 'w100k-t0.2', threshold: 0.2, limit: 100000, masking: MASKING, summary_tokens: SUMMARY_TOKENS },
  { name: 'w100k-t0.2-nomask', threshold: 0.2, limit: 100000, masking: null, summary_tokens: SUMMARY_TOKENS },
  { name: 'w100k-t0.2-mask8k', threshold: 0.2, limit: 100000, masking: SMALL_MASKING, summary_tokens: SUMMARY_TOKENS },
  // A summary bigger than what it replaces: INFLATED, then truncation-only mode.
  { name: 'w100k-t0.2-inflated', threshold: 0.2, limit: 100000, masking: MASKING, summary_tokens: 30000 },
  { name: 'default', threshold: 0.5, limit: 1048576, masking: MASKING, summary_tokens: SUMMARY_TOKENS },
  { name: 'default-nomask', threshold: 0.5, limit: 1048576, masking: null, summary_tokens: SUMMARY_TOKENS },
];

Date.prototype.toLocaleDateString = () => TODAY;
Math.random = () => RANDOM;
Date.now = () => NOW;

// ---------------------------------------------------------------------------------------------
// Fakes: the config and loop context the services read

function fakeConfig(setting, calls) {
  const known = {
    getHookSystem: () => undefined,
    getCompressionThreshold: async () => setting.threshold,
    getNextCompressionTruncationId: () => TRUNCATION_ID,
    storage: { getProjectTempDir: () => PROJECT_TEMP_DIR },
    getTruncateToolOutputThreshold: () =>
      Math.min(4 * (tokenLimit(CONFIG_MODEL) - known.lastPrompt), 40000),
    getBaseLlmClient: () => ({
      generateContent: async (req) => {
        calls.push(req);
        return { candidates: [{ content: { role: 'model', parts: [{ text: 'A'.repeat(4 * setting.summary_tokens) }] } }] };
      },
    }),
    getContentGenerator: () => ({
      countTokens: async () => {
        throw new Error('offline');
      },
    }),
    getIncludeDirectoryTree: () => false,
    getSessionMemory: () => '',
    getSessionId: () => SESSION_ID,
    getToolOutputMaskingConfig: async () => setting.masking,
    getActiveModel: () => CONFIG_MODEL,
    getModel: () => CONFIG_MODEL,
    getApprovedPlanPath: () => undefined,
    getProjectRoot: () => '/home/user/project',
    isContextManagementEnabled: () => false,
    lastPrompt: 0,
  };
  const px = new Proxy(known, {
    get(t, k) {
      if (k in t) return t[k];
      if (k === 'then') return undefined;
      return () => undefined;
    },
  });
  known.config = px;
  return { config: px, known };
}

function newChat(config, history) {
  const context = {
    config,
    promptId: 'e2e',
    toolRegistry: { getTool: () => undefined, getFunctionDeclarations: () => [] },
  };
  return new GeminiChat(context, '', [], history);
}

// ---------------------------------------------------------------------------------------------
// Loading

// The experimental context manager's snapshots: a JSON object with at least two of its keys.
function isJsonSnapshot(t) {
  t = t.trim();
  const fenced = t.startsWith('```json') ? t.slice(7) : t.startsWith('```') ? t.slice(3) : null;
  if (fenced !== null) t = fenced.trimEnd().replace(/`+$/, '').trim();
  if (!t.startsWith('{')) return false;
  try {
    const o = JSON.parse(t);
    const keys = ['active_tasks', 'discovered_facts', 'constraints_and_preferences', 'recent_arc'];
    return o !== null && typeof o === 'object' && !Array.isArray(o) && keys.filter((k) => k in o).length >= 2;
  } catch {
    return false;
  }
}

/**
 * `loadConversationRecord`, with `$set.messages` checkpoint lists ignored (header). Also
 * returns, for each checkpoint that holds a compression (a `<state_snapshot>` user turn followed
 * by the acknowledgement, formats.md §3.7 (a), or an experimental JSON-object snapshot), the
 * gemini records seen before it.
 */
async function loadRecord(file) {
  const text = fs.readFileSync(file, 'utf8');
  let loadFrom = file;
  let changed = false;
  const geminiSeen = new Set();
  const snapshots = [];
  const lines = text.split('\n').map((line) => {
    if (!line.includes('"$set"') || !line.includes('"messages"')) {
      try {
        const rec = JSON.parse(line);
        if (rec && typeof rec.id === 'string' && rec.type === 'gemini') geminiSeen.add(rec.id);
      } catch {}
      return line;
    }
    try {
      const rec = JSON.parse(line);
      if (rec && typeof rec.$set === 'object' && rec.$set !== null && Array.isArray(rec.$set.messages)) {
        const ms = rec.$set.messages;
        const text = (m) => (Array.isArray(m?.content) ? m.content.map((p) => p?.text ?? '').join('') : String(m?.content ?? ''));
        const xml = (m, i) =>
          m?.type === 'user' && text(m).includes('<state_snapshot>') && ms[i + 1] && text(ms[i + 1]).trim() === 'Got it. Thanks for the additional context!';
        if (ms.some((m, i) => xml(m, i) || (m?.type === 'user' && isJsonSnapshot(text(m))))) {
          snapshots.push(new Set(geminiSeen));
        }
        delete rec.$set.messages;
        changed = true;
        return JSON.stringify(rec);
      }
    } catch {}
    return line;
  });
  if (changed) {
    loadFrom = path.join(os.tmpdir(), `sessions-gemini-e2e-${process.pid}${path.extname(file)}`);
    fs.writeFileSync(loadFrom, lines.join('\n'));
  }
  const rec = await loadConversationRecord(loadFrom);
  if (changed) fs.unlinkSync(loadFrom);
  if (rec) {
    rec.snapshotRequests = snapshots.map(
      (seen) => (rec.messages ?? []).filter((m) => m.type === 'gemini' && seen.has(m.id)).length,
    );
  }
  return rec;
}

// The agent's own compactions (formats.md §3.7 (b), (c)): the request after the first notice.
const NOTICE = [
  /^Context compressed from (\d+)% to (\d+)%\.$/,
  /^IMPORTANT: This conversation (exceeded the compress threshold|approached the input token limit for \S+)\. A compressed context will be sent for future messages \(compressed from: (\d+|unknown) to (\d+|unknown) tokens\)\.$/,
];

// (b) a notice, (c) an empty notice right after `/compress` (its result item has no text).
function firstAgentCompaction(messages) {
  let requests = 0;
  let lastUser = null;
  for (const m of messages) {
    if (m.type === 'gemini') requests++;
    if (m.type === 'user') lastUser = partListUnionToString(m.content).trim();
    if (m.type !== 'info' || typeof m.content !== 'string') continue;
    if (NOTICE.some((r) => r.test(m.content))) return requests;
    if (m.content === '' && lastUser === '/compress') return requests;
  }
  return null;
}

const recordedInput = (m) => {
  const t = m.tokens;
  return t && typeof t === 'object' && typeof t.input === 'number' && t.input > 0 ? t.input : null;
};

// ---------------------------------------------------------------------------------------------
// The pipeline

const sha16 = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex').slice(0, 16);
const allParts = (h) => h.flatMap((c) => c.parts || []);
const clone = (t) => structuredClone(t);

async function run(record, setting) {
  process.env.SESSIONS_E2E_TOKEN_LIMIT = String(setting.limit);
  const limit = tokenLimit(CONFIG_MODEL);
  const calls = [];
  const { config, known } = fakeConfig(setting, calls);
  const messages = record.messages ?? [];
  // Per message, the turns `convertSessionToClientHistory` makes of it (it has no state
  // across messages, so the concatenation is its result on the whole list).
  const perMessage = messages.map((m) => convertSessionToClientHistory([m]));
  const converted = perMessage.flat();
  const resumed = await getInitialChatHistory(config, converted);
  ensureStableToolIds(resumed);
  const env = resumed[0];
  const candidates = [firstAgentCompaction(messages), ...(record.snapshotRequests ?? [])].filter((x) => x !== null);
  const firstAgent = candidates.length ? Math.min(...candidates) : null;
  const svc = new ChatCompressionService();
  const masker = new ToolOutputMaskingService();

  let chat = newChat(config, [clone(env)]);
  let failed = false;
  let diverged = false;
  let recValid = true;
  let lastRec = null;
  let overhead = null;
  let prev = null; // [overhead known then, estimate sent]
  let pending = [];
  const full = [env];
  const out = [];
  let k = 0;
  for (let mi = 0; mi < messages.length; mi++) {
    const m = messages[mi];
    const turns = perMessage[mi];
    if (m.type !== 'gemini') {
      pending.push(...turns);
      continue;
    }
    full.push(...pending);
    const estNow = estimateTokenCountSync(allParts(chat.getHistory()));
    const p = !diverged && recValid && lastRec !== null ? lastRec : prev === null ? estNow : prev[0] + prev[1];
    chat.lastPromptTokenCount = p;
    known.lastPrompt = p;
    calls.length = 0;
    const { newHistory, info } = await svc.compress(chat, 'e2e', false, CONFIG_MODEL, config, failed);
    let st = info.compressionStatus;
    if (st === 5 && p < setting.threshold * limit) st = 0;
    let split = null;
    let kept = null;
    let newTokens = null;
    if (st === 1 || st === 2) {
      split = calls[0].contents.length - 1;
      kept = chat.getHistory(true).length - split;
      newTokens = info.newTokenCount;
    }
    if (st === 2) failed = true;
    if (st === 1) {
      chat = newChat(config, await getInitialChatHistory(config, newHistory));
      failed = false;
      diverged = true;
    }
    if (st === 6) {
      newTokens = info.newTokenCount;
      chat.setHistory(newHistory);
      diverged = true;
    }
    let masked = 0;
    let saved = 0;
    if (setting.masking) {
      const r = await masker.mask(chat.getHistory(), config);
      if (r.maskedCount > 0) {
        chat.setHistory(r.newHistory);
        diverged = true;
        masked = r.maskedCount;
        saved = r.tokensSaved;
      }
    }
    for (const t of pending) chat.addHistory(clone(t));
    pending = [];
    const sent = chat.getHistory();
    const json = JSON.stringify(sent);
    const w = estimateTokenCountSync(allParts(sent));
    // The content hash where the history changed, and at the end (the JSON length and the
    // estimate at every request).
    const last = !messages.slice(mi + 1).some((x) => x.type === 'gemini');
    const changed = st === 1 || st === 2 || st === 6 || masked > 0;
    out.push([p, st, split, kept, newTokens, masked, saved, w, json.length, changed || last ? sha16(json) : null]);

    const rec = recordedInput(m);
    if (overhead === null && rec !== null) {
      const f = estimateTokenCountSync(allParts(stripThoughts(full).map((t) => t.content)));
      overhead = Math.max(0, rec - f);
    }
    prev = [overhead ?? 0, w];
    if (k < (firstAgent ?? Infinity)) {
      if (rec !== null) lastRec = rec;
    } else recValid = false;
    k++;

    // The response joins the history; its function responses are the next request's content.
    const model = turns.filter((t) => t.content.role === 'model');
    for (const t of model) {
      chat.addHistory(clone(t));
      full.push(t);
    }
    pending = turns.filter((t) => t.content.role !== 'model');
  }
  return { runs: out, turns: resumed.length, requests: k, firstAgent };
}

// ---------------------------------------------------------------------------------------------
// Sessions

function listFiles(dir, pred) {
  if (!fs.existsSync(dir)) return [];
  const outFiles = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (pred(p)) outFiles.push(p);
    }
  };
  walk(dir);
  return outFiles;
}

const isSession = (p) => /\.jsonl?$/.test(p) && !path.basename(p).startsWith('checkpoint-');

function sources() {
  if (!fs.existsSync(CORPUS)) throw new Error(`${CORPUS} is missing: the corpus goldens need it`);
  const list = [];
  for (const f of listFiles(path.join(CORPUS, 'gemini'), isSession)) list.push({ source: 'corpus', path: path.relative(CORPUS, f), file: f });
  for (const f of listFiles(path.join(CORPUS, 'real/gemini_legacy'), isSession)) list.push({ source: 'corpus', path: path.relative(CORPUS, f), file: f });
  for (const f of listFiles(HOME, (p) => isSession(p) && p.includes(`${path.sep}chats${path.sep}`))) {
    list.push({ source: 'home', path: path.relative(path.join(repo, 'testdata/home'), f), file: f });
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sessions-gemini-e2e-'));
  for (const seed of GENERATED_SEEDS) {
    const file = path.join(tmp, `gen-${seed}.${isJsonl(seed) ? 'jsonl' : 'json'}`);
    fs.writeFileSync(file, generateSession(seed));
    list.push({ source: 'generated', seed, file });
  }
  return list;
}

const t0 = process.hrtime.bigint();
const sessions = [];
for (const s of sources()) {
  const bytes = fs.readFileSync(s.file);
  const entry = { source: s.source };
  if (s.path !== undefined) entry.path = s.path.split(path.sep).join('/');
  if (s.seed !== undefined) entry.seed = s.seed;
  entry.sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  const record = await loadRecord(s.file);
  if (!record) {
    entry.loadable = false;
    sessions.push(entry);
    continue;
  }
  entry.loadable = true;
  entry.runs = [];
  for (const setting of SETTINGS) {
    const r = await run(record, setting);
    entry.turns = r.turns;
    entry.requests = r.requests;
    entry.agent_compaction = r.firstAgent;
    entry.runs.push(r.runs);
  }
  sessions.push(entry);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stderr.write(`${secs.toFixed(1)}s ${s.source} ${s.path ?? s.seed}: ${entry.requests} requests\n`);
}

fs.mkdirSync(OUT, { recursive: true });
const head = {
  package: '@google/gemini-cli-core',
  version: pkg.version,
  generator: 'scripts/golden/gemini-e2e/gen.mjs',
  node: process.version,
  env_text: (await getInitialChatHistory(fakeConfig(SETTINGS[0], []).config, []))[0].content.parts[0].text,
  fields: ['p', 'status', 'split', 'kept', 'new_tokens', 'masked', 'tokens_saved', 'estimate', 'json_len', 'sha256_16'],
  settings: SETTINGS,
};
const text =
  `${JSON.stringify(head).slice(0, -1)},\n"sessions": [\n` +
  sessions.map((s) => JSON.stringify(s)).join(',\n') +
  '\n]}\n';
const file = path.join(OUT, 'decisions.json');
fs.writeFileSync(file, text);
execFileSync('zstd', ['-19', '-q', '-f', '--rm', file, '-o', `${file}.zst`]);
console.log(`${sessions.length} sessions, ${(text.length / 1024).toFixed(0)} KiB → ${file}.zst`);
