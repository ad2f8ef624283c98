// Golden vectors for the older estimateTokenCountSync, from the real code of three releases:
//
//   cd scripts/golden/gemini-estimate && npm install && node gen.mjs
//
// @google/gemini-cli-core 0.22.4 (no image or PDF estimate, no 100k fast path, per code point,
// functionResponse as JSON), 0.25.2 (the image estimate, c31f05356a) and 0.27.4 (the PDF
// estimate and the fast path, c8d7c09ca4 and ee8d425603; still per code point). 0.28
// (f605628624) iterates UTF-16 units and estimates function responses on their own: the 0.28.2
// and 0.61 vectors cover that. Every release here weighs non-ASCII at 1.3. Writes
// testdata/golden/gemini-estimate/estimate.json: the cases of ../gemini's estimate.json plus
// the ones that tell the versions apart, with each version's estimate.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const VERSIONS = ['0.22', '0.25', '0.27'];
const OUT = path.resolve(here, '../../../testdata/golden/gemini-estimate');
const BASE = path.resolve(here, '../../../testdata/golden/gemini/estimate.json');

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

const base = JSON.parse(fs.readFileSync(BASE, 'utf8')).cases.map((c) => ({ name: c.name, parts: c.parts }));
// Lone surrogates are left out: serde_json, which reads the vectors, rejects them.
const extra = [
  ['astral alone', [{ text: '🎉' }]],
  ['astral in ASCII', [{ text: cat(rep('ab🎉', 7), 'x') }]],
  ['astral and CJK', [{ text: cat(rep('日本𝄞', 11), 'é') }]],
  ['text just over 100k ASCII', [{ text: rep('a', 100_001) }]],
  ['text just over 100k CJK', [{ text: cat(rep('日', 100_000), 'a') }]],
  ['text 100k exactly CJK', [{ text: rep('日', 100_000) }]],
  ['text over 100k astral', [{ text: rep('🎉', 50_001) }]],
  ['image inline', [{ inlineData: { mimeType: 'image/png', data: rep('QUJD', 300) } }]],
  ['image file', [{ fileData: { mimeType: 'image/jpeg', fileUri: 'gs://b/x.jpg' } }]],
  ['pdf inline', [{ inlineData: { mimeType: 'application/pdf', data: rep('QUJD', 500) } }]],
  ['pdf file', [{ fileData: { mimeType: 'application/pdf; x=1', fileUri: 'gs://b/x.pdf' } }]],
  ['audio inline', [{ inlineData: { mimeType: 'audio/wav', data: 'AAAA' } }]],
  ['function response object', [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: cat(rep('line 日本\n', 40), '🎉') } } }]],
  ['function response string', [{ functionResponse: { name: 'shell', response: 'plain' } }]],
  ['function response nested image', [{ functionResponse: { name: 'read', response: { output: 'ok' }, parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }, { text: '𝄞x' }] } }]],
  ['function response with image mime', [{ functionResponse: { name: 'r', response: {} }, inlineData: { mimeType: 'image/png', data: 'AA' } }]],
  ['mixed parts', [{ text: 'héllo 🎉' }, { functionCall: { name: 'f', args: { a: 1 } } }, { inlineData: { mimeType: 'image/gif', data: 'R0lG' } }, { functionResponse: { name: 'f', response: { output: '✓' } } }]],
].map(([name, parts]) => ({ name, parts }));
const cases = [...base, ...extra];

const out = { package: '@google/gemini-cli-core', versions: {}, cases: [] };
const estimators = {};
for (const v of VERSIONS) {
  const dir = path.join(here, 'node_modules', `core-${v}`);
  out.versions[v] = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  estimators[v] = (await import(path.join(dir, 'dist/src/utils/tokenCalculation.js'))).estimateTokenCountSync;
}
for (const c of cases) {
  const parts = expand(c.parts);
  const expected = {};
  for (const v of VERSIONS) expected[v] = estimators[v](parts);
  out.cases.push({ name: c.name, parts: c.parts, expected });
}
fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(path.join(OUT, 'estimate.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`${out.cases.length} cases → ${path.join(OUT, 'estimate.json')}`);
