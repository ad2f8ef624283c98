// Module hook for gen.mjs: lets the harness choose the token limit, as `--context-window` does
// on the Rust side. `tokenLimit(model)` of @google/gemini-cli-core returns 1,048,576 for every
// Gemini model, so without this a "100k window" setting could not be run through the package.
// With SESSIONS_E2E_TOKEN_LIMIT unset, the function is the package's own.

const MARK = 'export function tokenLimit(model) {';

export async function load(url, context, nextLoad) {
  const r = await nextLoad(url, context);
  if (!url.endsWith('/dist/src/core/tokenLimits.js')) return r;
  const src = String(r.source);
  if (!src.includes(MARK)) throw new Error(`tokenLimits.js changed: ${MARK} not found`);
  return {
    ...r,
    source: src.replace(
      MARK,
      `${MARK}\n    if (process.env.SESSIONS_E2E_TOKEN_LIMIT) return Number(process.env.SESSIONS_E2E_TOKEN_LIMIT);`,
    ),
  };
}
