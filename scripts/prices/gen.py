#!/usr/bin/env python3
"""Generate the embedded price table (src/pricing/prices.json + src/pricing/snapshot.rs).

The source is LiteLLM's `model_prices_and_context_window_backup.json`, shipped inside the
`litellm` wheel on PyPI. The wheel is downloaded with pip (`--no-deps`) and only that one JSON
file is read from it: nothing is installed or run.

The output keeps LiteLLM's own shape (a map of model key -> entry with `litellm_provider` and
`*_cost_*` fields), filtered to what `sessions` can use:

- providers whose prices apply to what Claude Code, Codex CLI and Gemini CLI record
  (Anthropic's API and its Vertex/Bedrock listings, OpenAI and Azure OpenAI, Gemini's API and
  Vertex AI), keys of the shapes `src/pricing/table.rs` accepts (no regional copies);
- model families claude-*, gpt-*, o1/o3/o4*, codex-*, gemini-*; chat/responses modes;
- the per-token fields for input, output, reasoning output, cache read, cache write
  (5-minute and 1-hour) and their long-context tiers (`*_above_<N>k_tokens`); batch, flex,
  priority, audio, image and per-query prices are dropped.

Because the shape is LiteLLM's, `sessions --prices FILE` accepts either this file (edited) or a
whole newer LiteLLM file. Choosing between providers, normalising names and filling tiers is
done once, at load time, by src/pricing/table.rs.

Usage:  python3 scripts/prices/gen.py [--wheel PATH]
To move to a newer LiteLLM: change LITELLM_VERSION and SNAPSHOT_DATE (the day the pin was
taken), run the script, review `git diff src/pricing/`, and run `cargo test pricing`.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

LITELLM_VERSION = "1.109.1"
SNAPSHOT_DATE = "2026-11-23"
MEMBER = "litellm/model_prices_and_context_window_backup.json"

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT_JSON = ROOT / "src/pricing/prices.json"
OUT_RS = ROOT / "src/pricing/snapshot.rs"

# provider -> key prefix it must have (the rest holds no further '/').
PROVIDERS = {
    "anthropic": "",
    "vertex_ai-anthropic_models": "vertex_ai/",
    "bedrock_converse": "anthropic.",
    "bedrock": "anthropic.",
    "openai": "",
    "azure": "azure/",
    "gemini": "gemini/",
    "vertex_ai-language-models": "",
    "vertex_ai": "vertex_ai/",
}
FAMILY = re.compile(r"^(claude-|gpt-|o[134](-|$)|codex-|gemini-)")
BASE_FIELDS = [
    "input_cost_per_token",
    "output_cost_per_token",
    "output_cost_per_reasoning_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "cache_creation_input_token_cost_above_1hr",
]
TIER = re.compile(r"^(?P<base>.+)_above_(?P<k>\d+)k_tokens$")


def keep_field(name):
    if name in BASE_FIELDS:
        return True
    m = TIER.match(name)
    return bool(m) and m.group("base") in BASE_FIELDS


def model_part(key, prefix):
    if not key.startswith(prefix):
        return None
    rest = key[len(prefix):]
    if "/" in rest or rest.startswith("ft:"):
        return None
    if prefix == "anthropic.":
        rest = re.sub(r"-v\d+(:\d+)?$", "", rest)
    return rest.replace("@", "-")


def select(prices):
    out = {}
    for key, entry in prices.items():
        if not isinstance(entry, dict):
            continue
        provider = entry.get("litellm_provider")
        if provider not in PROVIDERS:
            continue
        name = model_part(key, PROVIDERS[provider])
        if name is None or not FAMILY.match(name):
            continue
        if entry.get("mode", "chat") not in ("chat", "responses"):
            continue
        fields = {
            k: v
            for k, v in entry.items()
            if keep_field(k) and isinstance(v, (int, float)) and not isinstance(v, bool)
        }
        if "input_cost_per_token" not in fields or "output_cost_per_token" not in fields:
            continue
        out[key] = {"litellm_provider": provider, **dict(sorted(fields.items()))}
    return dict(sorted(out.items()))


def fetch_wheel(dest):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"litellm=={LITELLM_VERSION}",
         "--no-deps", "--only-binary", ":all:", "-d", str(dest), "-q"],
        check=True,
    )
    wheels = sorted(pathlib.Path(dest).glob(f"litellm-{LITELLM_VERSION}-*.whl"))
    if not wheels:
        sys.exit(f"pip did not download a litellm {LITELLM_VERSION} wheel")
    return wheels[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", help="use this litellm wheel instead of downloading it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = pathlib.Path(args.wheel) if args.wheel else fetch_wheel(tmp)
        if LITELLM_VERSION not in wheel.name:
            sys.exit(f"{wheel.name} is not litellm {LITELLM_VERSION}")
        with zipfile.ZipFile(wheel) as z:
            prices = json.loads(z.read(MEMBER))
    table = select(prices)
    # One entry per line: small, reviewable diffs when the pin moves.
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in table.items()]
    OUT_JSON.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    OUT_RS.write_text(
        "// @generated by scripts/prices/gen.py: do not edit.\n"
        "//! Where the embedded price table (`prices.json`) comes from.\n\n"
        f"/// The `litellm` release on PyPI whose `{MEMBER.split('/')[-1]}` was read.\n"
        f'pub const LITELLM_VERSION: &str = "{LITELLM_VERSION}";\n'
        "/// The day that release was pinned.\n"
        f'pub const SNAPSHOT_DATE: &str = "{SNAPSHOT_DATE}";\n\n'
        "/// `LiteLLM <version>, <date>` as a literal, for `concat!` in `--version` and `--help`.\n"
        "macro_rules! snapshot_label {\n"
        "    () => {\n"
        f'        "LiteLLM {LITELLM_VERSION}, {SNAPSHOT_DATE}"\n'
        "    };\n"
        "}\n"
        "pub(crate) use snapshot_label;\n"
    )
    print(f"{len(table)} models from litellm {LITELLM_VERSION} -> {OUT_JSON.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
