// Golden vectors for `src/replay/gemini` from the real Gemini CLI code.
//
//   cd scripts/golden/gemini && npm install && node gen.mjs
//
// Runs the exported functions of @google/gemini-cli-core (version pinned in package.json) over
// generated histories and writes inputs + outputs as JSON under testdata/golden/gemini/:
//
//   estimate.json  estimateTokenCountSync(parts)
//   split.json     findCompressSplitPoint(history, fraction) and JSON.stringify(content).length
//   compress.json  ChatCompressionService.compress(): reverse-budget truncation, split, summary
//                  and probe, inflated / empty / truncation-only outcomes
//   masking.json   ToolOutputMaskingService.mask()
//   constants.json prompt texts and their estimates, tool-name constants, token limits
//
// Large strings in inputs are written as macros, expanded identically by this script and by the
// Rust loader: {"$rep": [s, n]} is s repeated n times, {"$cat": [a, b, ...]} concatenates.
// Outputs too large to keep readable are recorded as sha256 (of the UTF-8 of the JSON text) and
// length in UTF-16 code units; small ones are recorded verbatim as JSON text (`*_json`), so lone
// surrogates produced by slicing survive as escapes.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const core = path.join(here, 'node_modules/@google/gemini-cli-core');
const pkg = JSON.parse(fs.readFileSync(path.join(core, 'package.json'), 'utf8'));
const src = (p) => import(path.join(core, 'dist/src', p));

const { estimateTokenCountSync } = await src('utils/tokenCalculation.js');
const { findCompressSplitPoint, ChatCompressionService } = await src(
  'context/chatCompressionService.js',
);
const masking = await src('context/toolOutputMaskingService.js');
const { tokenLimit } = await src('core/tokenLimits.js');
const snippets = await src('prompts/snippets.js');
const legacySnippets = await src('prompts/snippets.legacy.js');
const { getEnvironmentContext } = await src('utils/environmentContext.js');
const { debugLogger } = await src('utils/debugLogger.js');

const OUT = path.resolve(here, '../../../testdata/golden/gemini');
const TEMP_DIR = '/tmp/sessions-golden-gemini/project';
const SESSION_ID = 'golden-session-7f3a';
const RANDOM = 0.123456789; // Math.random() during masking → file suffix below
const NOW = 1767225600000; // Date.now() during masking (call ids that are missing)
const TODAY = 'Friday, August 21, 2026';

for (const k of ['debug', 'log', 'info', 'warn']) debugLogger[k] = () => {};
// getEnvironmentContext() prints today's date in the user's locale; pin it.
Date.prototype.toLocaleDateString = () => TODAY;

const META = {
  package: '@google/gemini-cli-core',
  version: pkg.version,
  generator: 'scripts/golden/gemini/gen.mjs',
  node: process.version,
};

// ---------------------------------------------------------------------------------------------
// Deterministic generators

function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the file function return const value error path src/main.rs Cargo.toml fn let mut ' +
  'import export class async await test passed failed warning compile build index.ts ' +
  'README.md line column module config settings.json npm cargo git diff commit'
).split(' ');
const UNI = [
  '你好', '世界', '漢字', 'こんにちは', 'カタカナ', '안녕하세요', '😀', '🚀', '👍🏽', '🧑‍💻',
  'é', 'ü', 'ß', '—', '…', '“quoted”', '\u2028', '\u00a0', '\ufeff', 'Ω', '∑', '𝄞',
];
const SPECIAL = ['"', '\\', '\n', '\t', '\r', '\u0001', '\u001f', '/', '<', '>', '&', "'", '\u007f', '\b', '\f'];

function makeText(rng, units, uni = 0.1, special = 0.05) {
  let s = '';
  while (s.length < units) {
    const r = rng();
    if (r < uni) s += UNI[Math.floor(rng() * UNI.length)];
    else if (r < uni + special) s += SPECIAL[Math.floor(rng() * SPECIAL.length)];
    else s += WORDS[Math.floor(rng() * WORDS.length)] + (rng() < 0.15 ? '\n' : ' ');
  }
  return s;
}

// Macro expansion (mirrored by the Rust loader).
function expand(v) {
  if (Array.isArray(v)) return v.map(expand);
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === '$rep') {
      const [s, n] = v.$rep;
      return expand(s).repeat(n);
    }
    if (keys.length === 1 && keys[0] === '$cat') return v.$cat.map(expand).join('');
    const o = {};
    for (const k of keys) o[k] = expand(v[k]);
    return o;
  }
  return v;
}
const rep = (s, n) => ({ $rep: [s, n] });
const cat = (...xs) => ({ $cat: xs });

// Histories used by several cases are stored once under "histories" and referenced by name.
const SHARED = new Map();
function shared(name, history) {
  SHARED.set(name, history);
  return name;
}
const resolve = (h) => (typeof h === 'string' ? SHARED.get(h) : h);
function takeShared(cases) {
  const names = new Set(cases.map((c) => c.history).filter((h) => typeof h === 'string'));
  const out = Object.fromEntries([...names].map((n) => [n, SHARED.get(n)]));
  return out;
}

const sha = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
const INLINE_MAX = 4000;
function record(value, max = INLINE_MAX) {
  if (value === undefined) return null;
  const json = JSON.stringify(value);
  const r = { sha256: sha(json), len: json.length };
  if (json.length <= max) r.json = json;
  return r;
}

function writeGolden(name, fn, cases, extra = {}) {
  fs.mkdirSync(OUT, { recursive: true });
  const head = JSON.stringify({ ...META, function: fn, ...extra });
  const body = cases.map((c) => JSON.stringify(c)).join(',\n');
  const text = `${head.slice(0, -1)},\n"cases": [\n${body}\n]}\n`;
  fs.writeFileSync(path.join(OUT, name), text);
  console.log(`${name}: ${cases.length} cases, ${(text.length / 1024).toFixed(0)} KiB`);
}

// ---------------------------------------------------------------------------------------------
// Part builders

const IMG = (n = 64, mime = 'image/png') => ({ inlineData: { mimeType: mime, data: rep('iVBORw0KGgo', n) } });
const fc = (name, args, extra = {}) => ({ functionCall: { name, args }, ...extra });
const frOut = (id, name, output) => ({ functionResponse: { id, name, response: { output } } });
const frErr = (id, name, error) => ({ functionResponse: { id, name, response: { error } } });
const user = (...parts) => ({ role: 'user', parts });
const model = (...parts) => ({ role: 'model', parts });

const TOOLS = ['read_file', 'run_shell_command', 'grep_search', 'glob', 'replace', 'web_fetch', 'write_file'];

function shellOutput(rng, lines, withSections = true) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(`line ${i}: ` + makeText(rng, 20 + Math.floor(rng() * 60), 0.05, 0));
  const body = out.join('\n');
  if (!withSections) return body;
  const code = rng() < 0.3 ? 1 : 0;
  let s = `Command: cargo test\nDirectory: (root)\nOutput: ${body}`;
  if (code) s += `\nError: exit status ${code}`;
  s += `\nExit Code: ${code}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242`;
  return s;
}

// A generated agent session as Gemini Content[] (not coalesced, like the raw history).
function genHistory(seed, { turns = 4, steps = 3, big = 0, env = true, end = 'text', images = true } = {}) {
  const rng = mulberry32(seed);
  const h = [];
  let callNo = 0;
  if (env) {
    h.push(user({ text: `<session_context>\nThis is the Gemini CLI. Today's date is ${TODAY}.\nMy operating system is: linux\n</session_context>` }));
  }
  for (let t = 0; t < turns; t++) {
    const prompt = [{ text: makeText(rng, 40 + Math.floor(rng() * 200), 0.2, 0.03) }];
    if (images && rng() < 0.25) prompt.push(IMG(8 + Math.floor(rng() * 40), rng() < 0.5 ? 'image/png' : 'image/jpeg'));
    h.push(user(...prompt));
    const nSteps = 1 + Math.floor(rng() * steps);
    for (let k = 0; k < nSteps; k++) {
      const parts = [];
      if (rng() < 0.4) parts.push({ text: makeText(rng, 60, 0.05, 0), thought: true });
      if (rng() < 0.5) parts.push({ text: makeText(rng, 30 + Math.floor(rng() * 150), 0.1, 0.02) });
      const calls = 1 + Math.floor(rng() * 2);
      const names = [];
      for (let c = 0; c < calls; c++) {
        const name = TOOLS[Math.floor(rng() * TOOLS.length)];
        names.push(name);
        const args = name === 'run_shell_command'
          ? { command: 'cargo test -- --nocapture', description: 'Run tests 🧪', dir_path: '.' }
          : { file_path: `src/mod_${callNo}.rs`, offset: Math.floor(rng() * 1000), limit: 0.5 + callNo, '10': 'ten', '2': ['two', 2] };
        parts.push(fc(name, args, c === 0 && rng() < 0.3 ? { thoughtSignature: 'c2lnbmF0dXJl' } : {}));
        callNo++;
      }
      h.push(model(...parts));
      const resp = [];
      names.forEach((name, c) => {
        const id = `${name}-${1767225600000 + callNo * 7 + c}-${(callNo * 2654435761 >>> 0).toString(16)}`;
        let size = 80 + Math.floor(rng() * 1500);
        if (big && rng() < 0.35) size = big;
        if (rng() < 0.12) resp.push(frErr(id, name, makeText(rng, 60, 0.1, 0.05)));
        else if (name === 'run_shell_command') resp.push(frOut(id, name, shellOutput(rng, Math.max(3, Math.floor(size / 60)))));
        else resp.push(frOut(id, name, makeText(rng, size, 0.15, 0.04)));
      });
      if (images && rng() < 0.15) resp.push(IMG(16));
      h.push(user(...resp));
    }
    if (end === 'text' || t < turns - 1) h.push(model({ text: makeText(rng, 50 + Math.floor(rng() * 300), 0.15, 0.02) }));
  }
  if (end === 'call') h.push(model(fc('glob', { pattern: '**/*.rs' })));
  return h;
}

// ---------------------------------------------------------------------------------------------
// estimateTokenCountSync

function estimateCases() {
  const rng = mulberry32(7);
  const cases = [];
  const add = (name, parts) => cases.push({ name, parts, expected: estimateTokenCountSync(expand(parts)) });
  add('empty list', []);
  add('empty text', [{ text: '' }]);
  add('ascii', [{ text: 'Hello, world! This is a plain ASCII sentence.' }]);
  add('latin accents', [{ text: 'héllo wörld, ça va? señor' }]);
  add('cjk', [{ text: '你好世界こんにちはカタカナ안녕하세요漢字' }]);
  add('emoji surrogate pairs', [{ text: '😀🚀👍🏽🧑‍💻𝄞' }]);
  add('mixed paragraph', [{ text: makeText(rng, 600, 0.2, 0.1) }]);
  add('control chars are ascii', [{ text: '\u0000\u0001\t\n\r\u001f\u007f' }]);
  add('u+0080 and u+2028 are not', [{ text: '\u0080\u2028\u2029\ufeff\u00a0' }]);
  add('floor once: three quarters', [{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
  add('floor once: four quarters', [{ text: 'abc' }, { text: 'd' }]);
  add('floor once: halves', [{ text: 'é' }, { text: 'ab' }, { text: 'cd' }]);
  add('thought text counts', [{ text: 'thinking about it', thought: true }]);
  add('text wins over other payload', [{ text: 'hi', functionCall: { name: 'x', args: { a: 'b'.repeat(400) } } }]);
  add('thoughtSignature ignored on text', [{ text: 'abcd', thoughtSignature: 'c2lnbmF0dXJl'.repeat(20) }]);
  add('fast path boundary ascii 100000', [{ text: rep('a', 100000) }]);
  add('fast path ascii 100001', [{ text: rep('a', 100001) }]);
  add('non-ascii 100000 units (full heuristic)', [{ text: rep('é', 100000) }]);
  add('non-ascii 100001 units (fast path)', [{ text: rep('é', 100001) }]);
  add('surrogates 100000 units', [{ text: rep('😀', 50000) }]);
  add('surrogates 100002 units (fast path)', [{ text: rep('😀', 50001) }]);
  add('mixed fast path not weighted', [{ text: cat(rep('漢', 60000), rep('x', 60001)) }]);
  add('function response output object', [frOut('id-1', 'read_file', 'fn main() {\n    println!("hi");\n}\n')]);
  add('function response unicode is not weighted', [frOut('id-2', 'read_file', '你好世界😀'.repeat(50))]);
  add('function response escapes lengthen', [frOut('id-3', 'grep_search', '"quoted"\n\t\\path\u0001'.repeat(30))]);
  add('function response error', [frErr('id-4', 'replace', 'Failed to edit: 0 occurrences found')]);
  add('function response string response', [{ functionResponse: { name: 'web_fetch', response: 'plain string response ✓' } }]);
  add('function response number response', [{ functionResponse: { name: 'calc', response: 12345.5 } }]);
  add('function response array response', [{ functionResponse: { name: 'list', response: [1, 'two', { three: 3 }] } }]);
  add('function response null response', [{ functionResponse: { name: 'noop', response: null } }]);
  add('function response no name no response', [{ functionResponse: { id: 'x' } }]);
  add('function response nested image (gemini 3)', [{ functionResponse: { name: 'read_file', response: { output: 'see image' }, parts: [IMG(100)] } }]);
  add('function response nested text depth 1', [{ functionResponse: { name: 'a', response: {}, parts: [{ text: '你好' }, { text: 'x' }] } }]);
  const nest = (d) => (d === 0 ? [{ text: 'deep text 漢字' }] : [{ functionResponse: { name: `d${d}`, response: { k: d }, parts: nest(d - 1) } }]);
  add('nested depth 3 counted', nest(3));
  add('nested depth 4 cut', nest(4));
  add('nested depth 6 cut', nest(6));
  add('image png', [IMG(500)]);
  add('image jpeg', [IMG(10, 'image/jpeg')]);
  add('pdf', [{ inlineData: { mimeType: 'application/pdf', data: rep('JVBERi0', 200) } }]);
  add('pdf with params', [{ inlineData: { mimeType: 'application/pdf;charset=binary', data: 'JVBERi0' } }]);
  add('audio falls back to json', [{ inlineData: { mimeType: 'audio/wav', data: rep('UklGR', 300) } }]);
  add('inlineData without mimeType', [{ inlineData: { data: rep('QUJD', 50) } }]);
  add('fileData image', [{ fileData: { mimeType: 'image/webp', fileUri: 'gs://bucket/pic.webp' } }]);
  add('fileData pdf', [{ fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/doc.pdf' } }]);
  add('fileData video json', [{ fileData: { mimeType: 'video/mp4', fileUri: 'https://example.com/clip.mp4' } }]);
  add('functionCall', [fc('run_shell_command', { command: 'ls -la', description: 'List files 📂' })]);
  add('functionCall with thoughtSignature', [fc('read_file', { file_path: 'a.rs' }, { thoughtSignature: 'skip_thought_signature_validator' })]);
  add('functionCall numbers', [fc('calc', { a: 0.1, b: 1e21, c: 1.5e-7, d: -2.5, e: 123456789, f: 2 ** 53, g: 1e300, h: 5e-324, i: 100, j: 0.000001 })]);
  add('functionCall integer-like keys', [fc('obj', { b: 1, a: 2, 10: 'x', 2: 'y', '01': 'z' })]);
  add('functionCall nested args with unicode', [fc('write_file', { file_path: '文件.txt', content: '内容\n"quoted"\t😀', meta: { list: [true, false, null], empty: {}, arr: [] } })]);
  add('executableCode', [{ executableCode: { language: 'PYTHON', code: 'print("hi")' } }]);
  add('codeExecutionResult', [{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: 'hi\n' } }]);
  add('empty part object', [{}]);
  add('thought-only signature part', [{ thought: true, thoughtSignature: 'abc' }]);
  add('mixed list', [
    { text: 'Please look at this screenshot 截图' }, IMG(200), fc('read_file', { file_path: 'src/lib.rs' }),
    frOut('c1', 'read_file', makeText(rng, 3000, 0.1, 0.05)), { text: '' }, { text: 'ok 👍' },
  ]);
  for (let i = 0; i < 12; i++) {
    const parts = [];
    const n = 1 + Math.floor(rng() * 6);
    for (let k = 0; k < n; k++) {
      const r = rng();
      if (r < 0.4) parts.push({ text: makeText(rng, Math.floor(rng() * 2000), rng() * 0.6, rng() * 0.2) });
      else if (r < 0.6) parts.push(frOut(`g${i}-${k}`, TOOLS[k % TOOLS.length], makeText(rng, Math.floor(rng() * 4000), 0.3, 0.1)));
      else if (r < 0.75) parts.push(fc(TOOLS[k % TOOLS.length], { q: makeText(rng, 50, 0.3, 0.1), n: k }));
      else if (r < 0.85) parts.push(IMG(1 + k));
      else parts.push({ text: makeText(rng, 40, 0.5, 0), thought: true });
    }
    add(`random mix ${i}`, parts);
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// findCompressSplitPoint

function splitCases() {
  const cases = [];
  const FRACTIONS = [0.05, 0.3, 0.5, 1 - 0.3, 0.9, 0.99];
  const add = (name, history, fractions = FRACTIONS) => {
    const h = expand(history);
    const char_counts = h.map((c) => JSON.stringify(c).length);
    const contents = h.map((c) => record(c, 600));
    const results = fractions.map((f) => {
      try {
        return { fraction: f, expected: findCompressSplitPoint(h, f) };
      } catch (e) {
        return { fraction: f, error: String(e.message) };
      }
    });
    cases.push({ name, history, char_counts, contents, results });
  };
  const m = (t) => ({ text: `This is the ${t} message.` });
  add('upstream five messages', [user(m('first')), model(m('second')), user(m('third')), model(m('fourth')), user(m('fifth'))]);
  add('upstream four messages', [user(m('first')), model(m('second')), user(m('third')), model(m('fourth'))], [0.8, 0.5]);
  add('upstream trailing functionCall', [user(m('first')), model(m('second')), user(m('third')), model(fc('foo', {}))], [0.99, 0.5]);
  add('upstream one item', [user({ text: 'Message 1' })], [0.5]);
  add('upstream weird parts', [user({ text: 'Message 1' }), model({ fileData: { fileUri: 'derp', mimeType: 'text/plain' } }), user({ text: 'Message 2' })], [0.5]);
  add('empty history and bad fractions', [], [0, 1, -0.5, 1.5, 0.5]);
  add('only function responses after first', [
    user({ text: 'do it 做吧' }), model(fc('glob', { pattern: '*' })), user(frOut('a', 'glob', 'a.rs\nb.rs')),
    model(fc('read_file', { file_path: 'a.rs' })), user(frOut('b', 'read_file', rep('x', 500))),
  ]);
  add('compress everything (ends with model text)', [
    user({ text: 'big question ' + 'q'.repeat(300) }), model(fc('glob', { pattern: '*' })), user(frOut('a', 'glob', 'z'.repeat(900))),
    model({ text: 'answer 😀' }),
  ]);
  add('last is model with text and call', [user({ text: 'hi' }), model({ text: 'x'.repeat(500) }), user({ text: 'next' }), model({ text: 'calling' }, fc('x', {}))]);
  add('content without parts and roles', [{ role: 'user' }, { role: 'model' }, { role: 'user', parts: [] }, { parts: [{ text: 'no role' }] }, model({ text: 'end' })]);
  add('extra content keys', [{ role: 'user', parts: [{ text: 'a' }], id: 'abc' }, { parts: [{ text: 'b' }], role: 'model' }, user({ text: 'c' }), model({ text: 'd' })]);
  add('falsy functionResponse does not block', [user({ functionResponse: null, text: 'x' }), model({ text: 'y' }), user({ functionResponse: '', text: 'z' }), model({ text: 'w' })]);
  add('coalesced env + prompt', [
    user({ text: '<session_context>\nenv\n</session_context>' }, { text: 'first prompt 🚀' }), model({ text: 'ok' }, fc('glob', { p: 1 })),
    user(frOut('g', 'glob', 'a'), { text: 'merged follow-up' }), model({ text: 'done' }), user({ text: 'another' }), model({ text: 'fin' }),
  ]);
  for (let i = 0; i < 10; i++) {
    const opts = { turns: 2 + (i % 5), steps: 1 + (i % 4), env: i % 3 !== 0, end: ['text', 'call', 'fr'][i % 3], images: i % 2 === 0 };
    add(`generated ${i} (${opts.end})`, genHistory(1000 + i, opts));
  }
  add('generated long outputs', genHistory(77, { turns: 5, steps: 3, big: 20000 }));
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Fake config for the services

function fakeConfig(opts = {}) {
  let truncationId = 0;
  const known = {
    getHookSystem: () => undefined,
    getCompressionThreshold: async () => opts.threshold,
    getNextCompressionTruncationId: () => ++truncationId,
    storage: { getProjectTempDir: () => TEMP_DIR },
    getTruncateToolOutputThreshold: () => opts.maxChars ?? 40000,
    getBaseLlmClient: () => ({
      generateContent: async (req) => {
        opts.calls.push(req);
        const text = opts.calls.length === 1 ? opts.summary : opts.probe;
        const parts = text === null ? [] : [{ text }];
        if (opts.thoughts) parts.unshift({ text: 'private reasoning', thought: true });
        return { candidates: [{ content: { role: 'model', parts } }] };
      },
    }),
    getContentGenerator: () => ({ countTokens: async () => { throw new Error('offline'); } }),
    getIncludeDirectoryTree: () => false,
    getSessionMemory: () => opts.memory ?? 'Memory: prefers Rust 🦀 and short answers.',
    getSessionId: () => SESSION_ID,
    getToolOutputMaskingConfig: async () => opts.masking,
    getActiveModel: () => opts.model ?? 'gemini-2.5-pro',
    getModel: () => opts.model ?? 'gemini-2.5-pro',
    getApprovedPlanPath: () => undefined,
  };
  const px = new Proxy(known, {
    get(t, k) {
      if (k in t) return t[k];
      if (k === 'then') return undefined;
      return () => undefined;
    },
  });
  known.config = px;
  return px;
}

// ---------------------------------------------------------------------------------------------
// ChatCompressionService.compress

async function compressCases() {
  const cases = [];
  const svc = new ChatCompressionService();
  const add = async (name, history, o) => {
    const h = expand(resolve(history));
    const calls = [];
    const cfg = fakeConfig({ ...o, summary: expand(o.summary), probe: expand(o.probe), calls });
    const chat = { getHistory: () => structuredClone(h), getLastPromptTokenCount: () => o.lastPrompt };
    const res = await svc.compress(chat, 'golden', o.force ?? false, o.model ?? 'gemini-2.5-pro', cfg, o.failed ?? false);
    const newHistory = res.newHistory;
    // Function responses whose text changed: the truncated (or re-wrapped) outputs.
    const changed = [];
    if (newHistory) {
      const base = newHistory.length === h.length ? 0 : null;
      newHistory.forEach((c, ci) => (c.parts || []).forEach((p, pi) => {
        if (!p.functionResponse) return;
        const orig = base === 0 ? h[ci]?.parts?.[pi] : null;
        if (base === 0 && JSON.stringify(orig) === JSON.stringify(p)) return;
        changed.push({ content: ci, part: pi, output: record(p.functionResponse.response?.output) });
      }));
    }
    cases.push({
      name,
      history,
      last_prompt: o.lastPrompt,
      threshold: o.threshold ?? null,
      model: o.model ?? 'gemini-2.5-pro',
      token_limit: tokenLimit(o.model ?? 'gemini-2.5-pro'),
      force: o.force ?? false,
      failed: o.failed ?? false,
      max_chars: o.maxChars ?? 40000,
      summary: o.summary ?? null,
      probe: o.probe ?? null,
      expected: {
        status: res.info.compressionStatus,
        original_token_count: res.info.originalTokenCount,
        new_token_count: res.info.newTokenCount,
        new_history: newHistory ? record(newHistory) : null,
        new_history_len: newHistory ? newHistory.length : null,
        changed_responses: changed,
        summarizer_calls: calls.map((c) => ({
          contents: record(c.contents),
          estimate: estimateTokenCountSync(c.contents.flatMap((x) => x.parts || [])),
          system_estimate: estimateTokenCountSync([{ text: c.systemInstruction.text }]),
        })),
      },
    });
  };
  const S = 'Scratchpad: reviewing.\n<state_snapshot>\n<overall_goal>Fix the build 构建</overall_goal>\n</state_snapshot>';
  const small = shared('small', genHistory(501, { turns: 5, steps: 2 }));
  await add('below threshold noop', small, { lastPrompt: 100000, summary: S, probe: S });
  await add('threshold setting 0.05 compresses', small, { lastPrompt: 100000, threshold: 0.05, summary: S, probe: ' ' + S + '\n' });
  await add('compressed at default threshold', small, { lastPrompt: 600000, summary: S, probe: S });
  await add('forced below threshold', small, { lastPrompt: 1000, force: true, summary: S, probe: S });
  await add('probe empty uses trimmed summary', small, { lastPrompt: 600000, summary: `  ${S}  `, probe: '   ' });
  await add('probe with thought parts', small, { lastPrompt: 600000, summary: S, probe: 'final ' + S, thoughts: true });
  await add('empty summary and probe', small, { lastPrompt: 600000, summary: '', probe: null });
  await add('inflated token count', small, { lastPrompt: 524288, summary: rep('inflate 膨胀 ', 400000), probe: rep('inflate 膨胀 ', 400000) });
  // The inflation test is strictly greater: new == original compresses, original − 1 fails.
  const tiny = shared('tiny', genHistory(502, { turns: 3, steps: 1 }));
  {
    const probe = await svc.compress(
      { getHistory: () => expand(resolve(tiny)), getLastPromptTokenCount: () => 1e9 },
      'probe', true, 'gemini-2.5-pro', fakeConfig({ summary: 'x', probe: 'x', calls: [] }), false,
    );
    const x = probe.info.newTokenCount;
    await add('new count equal to original compresses', tiny, { lastPrompt: x, force: true, summary: 'x', probe: 'x' });
    await add('new count one above original is inflated', tiny, { lastPrompt: x - 1, force: true, summary: 'x', probe: 'x' });
  }
  await add('split 0 noop', [
    user({ text: 'one long task' }), model(fc('glob', { p: '*' })), user(frOut('a', 'glob', rep('a.rs\n', 2000))),
    model(fc('read_file', { f: 'a.rs' })), user(frOut('b', 'read_file', rep('code ', 3000))),
  ], { lastPrompt: 700000, summary: S, probe: S });
  await add('compress everything', [
    user({ text: 'q1 ' + 'x'.repeat(4000) }), model({ text: 'a1' }), user({ text: 'q2' }), model(fc('glob', { p: 1 })),
    user(frOut('g', 'glob', 'y'.repeat(20000))), model({ text: 'final answer' }),
  ], { lastPrompt: 700000, summary: S, probe: S });
  await add('previous snapshot in history', [
    user({ text: '<session_context>env</session_context>' }, { text: S }), model({ text: 'Got it. Thanks for the additional context!' }),
    ...genHistory(503, { turns: 4, steps: 2, env: false }),
  ], { lastPrompt: 800000, summary: S, probe: S });

  // Reverse-budget truncation. Function-response budget 50,000 estimated tokens: CJK outputs of
  // 12,000 units (18,000 tokens each) cross it on the third newest.
  const cjk = (n, seed) => cat(`#${seed} 开始 `, rep('漢字かな한국어', Math.floor(n / 8)), ` 结束 ${seed}`);
  const budgetHistory = (mk) => {
    const h = [user({ text: '<session_context>\nenv\n</session_context>' }), user({ text: 'analyse the logs 日志' })];
    for (let i = 0; i < 7; i++) {
      const name = TOOLS[i % TOOLS.length];
      h.push(model({ text: `step ${i}` }, fc(name, { i })));
      h.push(user(mk(i, name)));
      if (i === 3) h.push(model({ text: 'midway' }), user({ text: 'continue please 继续' }));
    }
    h.push(model({ text: 'done ✅' }));
    return h;
  };
  const outputs = shared('budget', budgetHistory((i, name) => frOut(`call-${i}`, name, cjk(12000, i))));
  await add('truncation only: CONTENT_TRUNCATED', outputs, { lastPrompt: 900000, failed: true, maxChars: 2000 });
  await add('truncation only: noop when not smaller', outputs, { lastPrompt: 80000, failed: true, maxChars: 2000 });
  await add('truncation only: max chars 40000 keeps text, rewraps', outputs, { lastPrompt: 900000, failed: true, maxChars: 40000 });
  await add('truncation only: max chars 7', outputs, { lastPrompt: 900000, failed: true, maxChars: 7 });
  await add('truncation only: max chars 0', outputs, { lastPrompt: 900000, failed: true, maxChars: 0 });
  await add('truncation only: negative max chars', outputs, { lastPrompt: 900000, failed: true, maxChars: -50 });
  await add('compressed everything after truncation', outputs, { lastPrompt: 900000, maxChars: 2000, summary: S, probe: S });
  // A cheap-in-tokens, long-in-chars head (ASCII) and a token-heavy tail (CJK): the split lands
  // on the last prompt and the budget is crossed inside the kept tail.
  const tailed = [user({ text: '<session_context>\nenv\n</session_context>' }), user({ text: 'read everything' })];
  for (let i = 0; i < 3; i++) tailed.push(model(fc('read_file', { i })), user(frOut(`h-${i}`, 'read_file', rep(`ascii line ${i}\n`, 1700))));
  tailed.push(model({ text: rep('long ascii prose, not a tool output. ', 3000) }), user({ text: 'now the CJK logs 日志' }));
  for (let i = 0; i < 4; i++) tailed.push(model(fc('grep_search', { i })), user(frOut(`t-${i}`, 'grep_search', cjk(12000, 10 + i))));
  tailed.push(model({ text: 'summary of logs' }));
  await add('compressed with truncated tail', tailed, { lastPrompt: 900000, maxChars: 2000, summary: S, probe: S });
  const mixed = budgetHistory((i, name) => {
    switch (i % 7) {
      case 0: return frErr(`call-${i}`, name, cjk(9000, i));
      case 1: return { functionResponse: { id: `call-${i}`, name, response: { content: cjk(14000, i), extra: 1 } } };
      case 2: return { functionResponse: { id: `call-${i}`, name: 'My Tool/ünï', response: cjk(11000, i) } };
      case 3: return { functionResponse: { id: `call-${i}`, response: { output: cjk(10000, i) } } };
      case 4: return { functionResponse: { id: `call-${i}`, name: '', response: { rows: [cjk(3000, i), { n: i, ok: true }] } } };
      case 5: return { functionResponse: { id: `call-${i}`, name, response: { output: 42, note: cjk(20000, i) } } };
      default: return frOut(`call-${i}`, name, cat(rep('😀', 6000), rep('abc', 3000)));
    }
  });
  mixed.splice(3, 0, { role: 'user' }); // a content without parts
  mixed[8].parts.push(frOut('second-part', 'glob', cjk(16000, 99)), { text: 'note after responses' });
  await add('truncation only: response shapes', mixed, { lastPrompt: 900000, failed: true, maxChars: 3001 });
  await add('truncation only: surrogate at slice edges', budgetHistory((i, name) => frOut(`s-${i}`, name, cat('a', rep('😀', 12000)))), { lastPrompt: 900000, failed: true, maxChars: 1001 });
  await add('truncation only: ascii under budget untouched', budgetHistory((i, name) => frOut(`a-${i}`, name, rep('ascii ', 4000))), { lastPrompt: 900000, failed: true, maxChars: 100 });
  // High-fidelity choice: with a 256k limit (Gemma 4) the original slice is too big to send.
  const huge = [user({ text: 'start' })];
  for (let i = 0; i < 6; i++) {
    huge.push(model(fc('read_file', { i })), user(frOut(`h-${i}`, 'read_file', rep(`abc ${i} `, 40000))), model({ text: `read ${i}` }), user({ text: `next ${i}` }));
  }
  huge.push(model({ text: 'end' }));
  shared('huge', huge);
  await add('high fidelity falls back to truncated slice', 'huge', { lastPrompt: 250000, model: 'gemma-4-31b-it', maxChars: 1000, summary: S, probe: S });
  await add('high fidelity keeps original slice', 'huge', { lastPrompt: 900000, maxChars: 1000, summary: S, probe: S });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// ToolOutputMaskingService.mask

async function maskingCases() {
  const cases = [];
  const svc = new masking.ToolOutputMaskingService();
  const realRandom = Math.random;
  const realNow = Date.now;
  Math.random = () => RANDOM;
  Date.now = () => NOW;
  const add = async (name, history, cfg) => {
    const h = expand(resolve(history));
    const res = await svc.mask(structuredClone(h), fakeConfig({ masking: cfg }));
    const masked = [];
    res.newHistory.forEach((c, ci) => (c.parts || []).forEach((p, pi) => {
      const before = h[ci]?.parts?.[pi];
      if (p.functionResponse && JSON.stringify(before) !== JSON.stringify(p)) {
        masked.push({ content: ci, part: pi, output: record(p.functionResponse.response.output) });
      }
    }));
    cases.push({
      name,
      history,
      config: cfg,
      expected: {
        masked_count: res.maskedCount,
        tokens_saved: res.tokensSaved,
        new_history: record(res.newHistory),
        masked,
      },
    });
  };
  const small = { protectionThresholdTokens: 600, minPrunableThresholdTokens: 300, protectLatestTurn: true };
  const rng = mulberry32(99);
  const hist = (n, mk) => {
    const h = [user({ text: 'start 开始' })];
    for (let i = 0; i < n; i++) {
      const [name, resp] = mk(i);
      h.push(model(fc(name, { i })), user({ functionResponse: { id: `m-${i}`, name, response: resp } }));
    }
    h.push(model({ text: 'done' }));
    return h;
  };
  const plainH = hist(8, (i) => ['read_file', { output: makeText(rng, 900 + i * 100, 0.2, 0.05) }]);
  const plain = shared('plain', plainH);
  const plainOpen = shared('plain_open', plainH.slice(0, -1));
  await add('nothing below thresholds', plain, { ...small, protectionThresholdTokens: 100000 });
  await add('small thresholds mask older outputs', plain, small);
  await add('protect latest turn off', plainOpen, { ...small, protectLatestTurn: false });
  await add('protect latest turn on (newest content is a response)', plainOpen, small);
  await add('min prunable not reached', plain, { ...small, minPrunableThresholdTokens: 100000 });
  await add('zero thresholds', plain, { protectionThresholdTokens: 0, minPrunableThresholdTokens: 0, protectLatestTurn: true });
  const shell = hist(7, (i) => {
    switch (i) {
      case 0: return ['run_shell_command', { output: shellOutput(rng, 40) }];
      case 1: return ['run_shell_command', { output: shellOutput(rng, 15) }];
      case 2: return ['run_shell_command', { output: shellOutput(rng, 60, false) }];
      case 3: return ['run_shell_command', { stdout: shellOutput(rng, 30), exitCode: 2, error: 'boom 💥' }];
      case 4: return ['run_shell_command', { output: { nested: shellOutput(rng, 25) } }];
      case 5: return ['run_shell_command', { output: `Output: ${rep('x\n', 30)}Error: bad\nExit Code: 3`, exit_code: 3, error: 'bad' }];
      default: return ['run_shell_command', { output: shellOutput(rng, 80) }];
    }
  });
  await add('shell previews', shell, { ...small, protectionThresholdTokens: 200, minPrunableThresholdTokens: 10 });
  const shapes = hist(10, (i) => {
    switch (i) {
      case 0: return ['activate_skill', { output: makeText(rng, 3000) }];
      case 1: return ['ask_user', { output: makeText(rng, 3000) }];
      case 2: return ['read_file', { output: 'tiny' }];
      case 3: return ['read_file', { output: `<tool_output_masked>\n${makeText(rng, 3000)}\n</tool_output_masked>` }];
      case 4: return ['grep_search', { error: makeText(rng, 2500, 0.3, 0.1) }];
      case 5: return ['web_fetch', { content: [makeText(rng, 1500), { k: '你好'.repeat(400) }] }];
      case 6: return ['write_file', null];
      case 7: return ['glob', cat('a', rep('😀', 1500))];
      case 8: return ['enter_plan_mode', { output: makeText(rng, 3000) }];
      default: return ['read_file', { output: cat(rep('b', 249), rep('😀', 700), rep('c', 249)) }];
    }
  });
  shapes[4].parts[0].functionResponse.name = 'Weird Tool/名前';
  delete shapes[6].parts[0].functionResponse.id;
  shapes[8].parts.push({ functionResponse: { name: 'read_file', response: { output: makeText(rng, 2000, 0.5) } } }, { text: 'trailing text' }, IMG(20));
  await add('response shapes and exemptions', shapes, { ...small, protectionThresholdTokens: 300, minPrunableThresholdTokens: 10 });
  // Defaults (50,000 protected + 30,000 prunable): eight outputs of ~15,000 tokens each.
  const big = hist(8, (i) => ['read_file', { output: cat(`file ${i}\n`, rep('fn main() { println!("hello"); }\n', 1800), '你好') }]);
  await add('defaults', big, { protectionThresholdTokens: masking.DEFAULT_TOOL_PROTECTION_THRESHOLD, minPrunableThresholdTokens: masking.DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD, protectLatestTurn: masking.DEFAULT_PROTECT_LATEST_TURN });
  await add('generated session', genHistory(4242, { turns: 6, steps: 4, big: 6000 }), { ...small, protectionThresholdTokens: 5000, minPrunableThresholdTokens: 2000 });
  Math.random = realRandom;
  Date.now = realNow;
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Constants

async function constants() {
  const cfg = fakeConfig({ calls: [] });
  const env = (await getEnvironmentContext(cfg)).map((p) => p.text).join('\n\n');
  const texts = {
    compression_prompt: snippets.getCompressionPrompt(undefined),
    compression_prompt_legacy: legacySnippets.getCompressionPrompt(),
    instruction_new: 'Generate a new <state_snapshot> based on the provided history.\n\nFirst, reason in your scratchpad. Then, generate the updated <state_snapshot>.',
    instruction_merge: 'A previous <state_snapshot> exists in the history. You MUST integrate all still-relevant information from that snapshot into the new one, updating it with the more recent events. Do not lose established constraints or critical knowledge.\n\nFirst, reason in your scratchpad. Then, generate the updated <state_snapshot>.',
    probe: 'Critically evaluate the <state_snapshot> you just generated. Did you omit any specific technical details, file paths, tool results, or user constraints mentioned in the history? If anything is missing or could be more precise, generate a FINAL, improved <state_snapshot>. Otherwise, repeat the exact same <state_snapshot> again.',
    ack: 'Got it. Thanks for the additional context!',
    env,
  };
  const estimates = Object.fromEntries(Object.entries(texts).map(([k, v]) => [k, estimateTokenCountSync([{ text: v }])]));
  const models = ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-3-pro-preview', 'gemini-3.1-pro-preview', 'gemma-4-31b-it', 'gemma-4-26b-a4b-it', 'auto', 'my-custom-model'];
  return {
    ...META,
    function: 'constants',
    texts,
    estimates,
    token_limits: Object.fromEntries(models.map((m) => [m, tokenLimit(m)])),
    masking: {
      DEFAULT_TOOL_PROTECTION_THRESHOLD: masking.DEFAULT_TOOL_PROTECTION_THRESHOLD,
      DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD: masking.DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD,
      DEFAULT_PROTECT_LATEST_TURN: masking.DEFAULT_PROTECT_LATEST_TURN,
      MASKING_INDICATOR_TAG: masking.MASKING_INDICATOR_TAG,
      TOOL_OUTPUTS_DIR: masking.TOOL_OUTPUTS_DIR,
    },
    fixtures: {
      project_temp_dir: TEMP_DIR,
      session_id: SESSION_ID,
      random: RANDOM,
      random_suffix: RANDOM.toString(36).substring(7),
      now: NOW,
    },
  };
}

writeGolden('estimate.json', 'estimateTokenCountSync', estimateCases());
writeGolden('split.json', 'findCompressSplitPoint', splitCases());
const cc = await compressCases();
writeGolden('compress.json', 'ChatCompressionService.compress', cc, {
  histories: takeShared(cc),
  project_temp_dir: TEMP_DIR,
  env_memory: 'Memory: prefers Rust 🦀 and short answers.',
});
const mc = await maskingCases();
writeGolden('masking.json', 'ToolOutputMaskingService.mask', mc, {
  histories: takeShared(mc),
  project_temp_dir: TEMP_DIR,
  session_id: SESSION_ID,
  random_suffix: RANDOM.toString(36).substring(7),
  now: NOW,
});
const c = await constants();
fs.writeFileSync(path.join(OUT, 'constants.json'), JSON.stringify(c, null, 1) + '\n');
console.log('constants.json written');
