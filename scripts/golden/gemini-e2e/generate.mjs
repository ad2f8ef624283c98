// Deterministic Gemini CLI session generator for the end-to-end differential (gen.mjs).
//
// `generateSession(seed)` returns the text of one session file, legacy `.json` (one pretty
// `ConversationRecord`, as v0.4–v0.38 wrote) or `.jsonl` (the v0.39+ append-only log, with
// message upserts, `$set` patches and the occasional `$rewindTo`), in the shapes real files
// have: string and Part-array contents, thoughts, `toolCalls` whose results are Part arrays,
// strings or objects, `{output}` / `{error}` / `{output, error}` / object responses, cancelled
// calls without a result, images returned with a result, function responses without an id,
// slash commands and `?` help typed as prompts, usage missing on some responses, and v0.44-style
// sessions (content as Part arrays with thought and functionCall parts, tool results also
// recorded as user messages, the `<session_context>` turn). Some tool outputs are large, so the
// reverse-budget truncation and the masking trigger.
//
// The Rust tests regenerate the same bytes (`src/replay/gemini/e2e_gen.rs`, checked against the
// sha256 the goldens record), so every operation here is one the port can repeat exactly:
// mulberry32, integer arithmetic, JSON.stringify.
//
//   node generate.mjs <seed> [out-file]     # write one session, for a look

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export function mulberry32(seed) {
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
const UNI = ['你好', '世界', 'こんにちは', '안녕하세요', '😀', '🚀', 'é', 'ü', '—', '…', 'Ω', '𝄞'];
const SPECIAL = ['"', '\\', '\n', '\t', '\r', '\u0001', '/', '<', '>', '&', "'"];
const TOOLS = [
  'read_file',
  'run_shell_command',
  'run_shell_command',
  'grep_search',
  'write_file',
  'web_fetch',
  'ask_user',
  'my_server__query',
];
const MODELS = ['gemini-2.5-pro', 'gemini-3-pro-preview', 'gemini-2.5-flash'];

export function makeText(rng, units, uni, special) {
  let s = '';
  while (s.length < units) {
    const r = rng();
    if (r < uni) s += UNI[Math.floor(rng() * UNI.length)];
    else if (r < uni + special) s += SPECIAL[Math.floor(rng() * SPECIAL.length)];
    else s += WORDS[Math.floor(rng() * WORDS.length)] + (rng() < 0.15 ? '\n' : ' ');
  }
  return s;
}

/** Sizes of a session: 0 medium, 1 large, 2 huge (crosses the default 0.5 × 1M threshold). */
export function sizeClass(seed) {
  return seed % 10 === 0 ? 2 : seed % 3 === 0 ? 1 : 0;
}

export function isJsonl(seed) {
  return seed % 4 === 1;
}

export function generateSession(seed) {
  const rng = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
  const chance = (p) => rng() < p;
  const pick = (a) => a[Math.floor(rng() * a.length)];

  const size = sizeClass(seed);
  const jsonl = isJsonl(seed);
  const modern = seed % 5 === 2;
  const turns = [10, 16, 26][size] + int(0, 6);
  const maxSteps = [3, 4, 5][size];
  const bigScale = [5000, 16000, 60000][size];
  const bigChance = [0.1, 0.12, 0.2][size];
  const model = MODELS[seed % MODELS.length];
  const base = 2500 + int(0, 3000);
  const baseMs = 1767225600000 + seed * 86400000;
  let clock = 0;
  const ts = () => new Date(baseMs + (clock += int(500, 20000))).toISOString();
  let idn = 0;
  const uuid = () => {
    idn += 1;
    const h = (seed * 1000003 + idn).toString(16).padStart(12, '0');
    return `00000000-0000-4000-8000-${h.slice(-12)}`;
  };
  // A stand-in for the real tokenizer: about 3.5 UTF-16 units per token.
  const tok = (s) => Math.floor((s.length * 2 + 6) / 7);
  let truth = 0;

  const sessionId = `e2e00000-0000-4000-8000-${(seed + 0x100000).toString(16).padStart(12, '0')}`;
  const projectHash = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
  const startTime = new Date(baseMs).toISOString();
  const messages = [];
  const lines = [];
  const emit = (m) => {
    messages.push(m);
    if (jsonl) lines.push(m);
  };

  if (jsonl) {
    lines.push({ sessionId, projectHash, startTime, lastUpdated: startTime, kind: 'main' });
  }
  if (modern) {
    emit({
      id: 'd04923d38bb0f6017037e74183378ef4',
      timestamp: ts(),
      type: 'user',
      content: [{ text: `<session_context>\nThis is the Gemini CLI. ${makeText(rng, 300, 0, 0)}\n</session_context>` }],
    });
  }

  const output = (name) => {
    const big = chance(bigChance);
    let body;
    if (big) {
      const block = makeText(rng, int(800, 2400), 0.04, 0.03);
      const n = Math.max(1, Math.floor(int(bigScale >> 1, bigScale * 2) / block.length));
      body = block.repeat(n);
    } else {
      body = makeText(rng, int(40, 2500), 0.06, 0.03);
    }
    if (name === 'run_shell_command') {
      return `Command: ${makeText(rng, 20, 0, 0)}\nDirectory: (root)\nOutput: ${body}\nError: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: ${int(1000, 99999)}`;
    }
    return body;
  };

  const args = (name) => {
    switch (name) {
      case 'run_shell_command':
        return { command: makeText(rng, int(5, 60), 0, 0), description: makeText(rng, int(10, 80), 0.05, 0) };
      case 'read_file':
      case 'write_file':
        return { file_path: `/home/user/project/${pick(WORDS)}/${pick(WORDS)}.rs` };
      case 'grep_search':
        return { pattern: pick(WORDS), path: '.', include: '*.rs' };
      default:
        return { query: makeText(rng, int(5, 120), 0.1, 0.02), limit: int(1, 50) };
    }
  };

  const toolCall = (name) => {
    const id = chance(0.5)
      ? `${name}-${baseMs + clock}-${(seed * 65521 + idn * 31 + clock).toString(16)}`
      : `c${(seed * 7 + clock + idn).toString(36)}`;
    idn += 1;
    const a = args(name);
    const r = rng();
    let result;
    let status = 'success';
    const out = output(name);
    const fr = (response, withId = true) =>
      withId ? { functionResponse: { id, name, response } } : { functionResponse: { name, response } };
    if (r < 0.68) result = [fr({ output: out })];
    else if (r < 0.76) {
      result = [fr({ error: out })];
      status = 'error';
    } else if (r < 0.8) result = [fr({ output: out, error: makeText(rng, int(10, 200), 0, 0.02) })];
    else if (r < 0.83) result = out;
    else if (r < 0.86) result = fr({ output: out });
    else if (r < 0.89) {
      const matches = [];
      for (let i = int(1, 6); i > 0; i--) matches.push(makeText(rng, int(20, 400), 0.05, 0.02));
      result = [fr({ matches, count: matches.length, truncated: chance(0.5) })];
    } else if (r < 0.92) {
      result = [fr({ output: out }), { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo'.repeat(int(10, 400)) } }];
    } else if (r < 0.96) {
      result = chance(0.5) ? null : undefined;
      status = 'cancelled';
    } else result = [fr({ output: out }, false)];
    const call = { id, name, args: a };
    if (result !== undefined) call.result = result;
    call.status = status;
    call.timestamp = ts();
    call.displayName = name;
    call.description = '';
    call.renderOutputAsMarkdown = name !== 'run_shell_command';
    truth += 12 + tok(JSON.stringify(a)) + (result === undefined || result === null ? 0 : tok(out));
    return call;
  };

  let rewound = false;
  for (let t = 0; t < turns; t++) {
    if (chance(0.08)) emit({ id: uuid(), timestamp: ts(), type: 'info', content: 'Request cancelled.' });
    const r = rng();
    if (r < 0.06) emit({ id: uuid(), timestamp: ts(), type: 'user', content: '/stats' });
    else if (r < 0.09) emit({ id: uuid(), timestamp: ts(), type: 'user', content: '?' });
    else if (r < 0.11) emit({ id: uuid(), timestamp: ts(), type: 'user', content: modern ? [{ text: '  /compress' }] : '  /compress' });
    const text = makeText(rng, int(20, 600), 0.05, 0.02);
    const userId = uuid();
    emit({ id: userId, timestamp: ts(), type: 'user', content: modern ? [{ text }] : text });
    truth += tok(text);
    const steps = int(0, maxSteps);
    for (let s = 0; s <= steps; s++) {
      const last = s === steps;
      const thoughts = [];
      if (chance(0.7)) {
        for (let i = int(1, 3); i > 0; i--) {
          thoughts.push({
            subject: chance(0.8) ? makeText(rng, int(5, 40), 0, 0) : '',
            description: chance(0.9) ? makeText(rng, int(20, 400), 0.03, 0) : '',
            timestamp: ts(),
          });
        }
      }
      const reply = last ? makeText(rng, int(30, 1200), 0.05, 0.02) : chance(0.5) ? '' : makeText(rng, int(10, 200), 0.03, 0);
      const calls = [];
      if (!last) for (let i = int(1, 3); i > 0; i--) calls.push(toolCall(pick(TOOLS)));
      const input = base + truth;
      const out = tok(reply) + 5;
      const tr = chance(0.6) ? int(0, 900) : 0;
      const u = rng();
      const tokens =
        u < 0.9
          ? { input, output: out, cached: chance(0.5) ? int(0, input) : 0, thoughts: tr, tool: 0, total: input + out + tr }
          : u < 0.95
            ? null
            : undefined;
      const msg = { id: uuid(), timestamp: ts(), type: 'gemini' };
      if (modern) {
        const parts = [];
        for (const th of thoughts) {
          const p = { text: th.description, thought: true };
          if (chance(0.5)) p.thoughtSignature = `sig${int(100000, 999999)}`;
          parts.push(p);
        }
        if (reply || chance(0.2)) parts.push({ text: reply });
        for (const c of calls) {
          const fc = { name: c.name, args: c.args };
          if (chance(0.7)) fc.id = c.id;
          parts.push({ functionCall: fc });
        }
        msg.content = parts;
      } else msg.content = reply;
      msg.thoughts = thoughts;
      if (tokens !== undefined) msg.tokens = tokens;
      msg.model = model;
      if (calls.length) msg.toolCalls = calls;
      truth += tok(reply);
      if (jsonl) {
        // The recorder appends the response first, then the same id again with tokens and calls.
        const first = { id: msg.id, timestamp: msg.timestamp, type: 'gemini', content: msg.content, thoughts: [], model };
        lines.push(first);
        lines.push({ $set: { lastUpdated: msg.timestamp } });
      }
      emit(msg);
      if (modern && calls.some((c) => Array.isArray(c.result))) {
        const parts = calls.filter((c) => Array.isArray(c.result)).flatMap((c) => c.result);
        emit({ id: uuid(), timestamp: ts(), type: 'user', content: parts });
      }
    }
    if (jsonl && !rewound && t > 2 && chance(0.15)) {
      // The user rewinds to this turn's prompt and asks again.
      rewound = true;
      lines.push({ $rewindTo: userId });
      const idx = messages.findIndex((m) => m.id === userId);
      messages.splice(idx);
      const again = makeText(rng, int(20, 300), 0.05, 0.02);
      emit({ id: uuid(), timestamp: ts(), type: 'user', content: again });
      emit({ id: uuid(), timestamp: ts(), type: 'gemini', content: makeText(rng, int(30, 600), 0, 0), thoughts: [], model });
    }
    if (jsonl && chance(0.05)) {
      // A checkpoint copy of the messages (v0.44+ history sync).
      lines.push({ $set: { messages: messages.map((m) => ({ id: m.id, timestamp: m.timestamp, type: m.type, content: m.content })) } });
    }
  }

  if (jsonl) return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  const record = { sessionId, projectHash, startTime, lastUpdated: new Date(baseMs + clock).toISOString(), messages };
  return JSON.stringify(record, null, 2);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seed = Number(process.argv[2] ?? 1);
  const text = generateSession(seed);
  if (process.argv[3]) fs.writeFileSync(process.argv[3], text);
  else process.stdout.write(text);
}
