//! A price table read from LiteLLM's JSON shape: `{ "<model key>": { "litellm_provider": …,
//! "input_cost_per_token": …, … }, … }`. The embedded `prices.json` and any `--prices FILE`
//! (an edited copy of it, a whole LiteLLM file, or a hand-written map) are read the same way.
//!
//! Several listings can price one model (Anthropic's API and its Vertex and Bedrock listings;
//! OpenAI and Azure; Gemini's API and Vertex AI). Each key is reduced to its canonical model
//! name ([`super::name::canonical`]) and the listing of the most direct provider wins:
//! an entry without `litellm_provider` (hand-written) first, then `anthropic`, `openai`,
//! `gemini`, then `vertex_ai-anthropic_models`, `azure`, `vertex_ai-language-models`, then
//! `bedrock_converse`, `vertex_ai`, then `bedrock`. Regional and other providers' copies are
//! ignored. A field the winning listing lacks (the 1-hour cache write price, long-context
//! tiers) is taken from another listing of the same model (dates aside) with the same input and
//! output prices: LiteLLM records Claude's long-context prices only on some listings.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::name::{canonical, undated};

/// Prices per token, in USD.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rates {
    pub input: f64,
    pub output: f64,
    /// Reasoning (thinking) output, when priced apart from other output.
    pub reasoning: Option<f64>,
    pub cache_read: Option<f64>,
    /// Cache write, 5-minute lifetime (Claude's default; the only one other providers have).
    pub cache_write: Option<f64>,
    /// Cache write, 1-hour lifetime (Claude).
    pub cache_write_1h: Option<f64>,
}

/// Prices that replace the base rates when a request's prompt is above `threshold` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tier {
    pub threshold: u64,
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub reasoning: Option<f64>,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
    pub cache_write_1h: Option<f64>,
}

/// One model's prices.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPrice {
    /// The canonical model name the table knows it by.
    pub name: String,
    /// The table key it came from (`anthropic.claude-…-v1:0`, `gemini/gemini-2.5-pro`, …).
    pub key: String,
    pub provider: Option<String>,
    pub base: Rates,
    /// Long-context tiers, lowest threshold first.
    pub tiers: Vec<Tier>,
}

impl ModelPrice {
    /// The prices as the fields of a listing that gives them (tiers as
    /// `<field>_above_<N>k_tokens`): what a `--prices` entry leaves out is taken from these.
    pub fn fields(&self) -> Vec<(String, f64)> {
        let b = &self.base;
        let mut out: Vec<(String, f64)> = [
            ("input_cost_per_token", Some(b.input)),
            ("output_cost_per_token", Some(b.output)),
            ("output_cost_per_reasoning_token", b.reasoning),
            ("cache_read_input_token_cost", b.cache_read),
            ("cache_creation_input_token_cost", b.cache_write),
            (
                "cache_creation_input_token_cost_above_1hr",
                b.cache_write_1h,
            ),
        ]
        .into_iter()
        .filter_map(|(f, x)| Some((f.to_string(), x?)))
        .collect();
        for t in &self.tiers {
            let k = t.threshold / 1000;
            out.extend(
                [
                    ("input_cost_per_token", t.input),
                    ("output_cost_per_token", t.output),
                    ("output_cost_per_reasoning_token", t.reasoning),
                    ("cache_read_input_token_cost", t.cache_read),
                    ("cache_creation_input_token_cost", t.cache_write),
                    (
                        "cache_creation_input_token_cost_above_1hr",
                        t.cache_write_1h,
                    ),
                ]
                .into_iter()
                .filter_map(|(f, x)| Some((format!("{f}_above_{k}k_tokens"), x?))),
            );
        }
        out
    }

    /// The rates in force for a request whose prompt (input + cache read + cache write) is
    /// `prompt` tokens: the highest tier whose threshold it exceeds, over the base rates.
    pub fn rates_for(&self, prompt: u64) -> Rates {
        let mut r = self.base;
        if let Some(t) = self.tiers.iter().rev().find(|t| prompt > t.threshold) {
            r.input = t.input.unwrap_or(r.input);
            r.output = t.output.unwrap_or(r.output);
            r.reasoning = t.reasoning.or(r.reasoning);
            r.cache_read = t.cache_read.or(r.cache_read);
            r.cache_write = t.cache_write.or(r.cache_write);
            r.cache_write_1h = t.cache_write_1h.or(r.cache_write_1h);
        }
        r
    }
}

/// Canonical model name → prices.
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    models: HashMap<String, ModelPrice>,
    /// Undated name → the newest dated name that has prices (`claude-opus-4-7` →
    /// `claude-opus-4-7-20260416`), for records that omit the date the table has.
    newest_dated: HashMap<String, String>,
    /// Models with a listing refused (canonical names): they have no price here, and a
    /// `--prices` file that refuses one hides the embedded table's price too.
    refused: HashSet<String>,
    refusals: Vec<Refusal>,
}

/// Provider preference (lower wins) and the key prefix a listing must have; `None` = ignored.
fn provider_rank(provider: Option<&str>, key: &str) -> Option<u8> {
    let (rank, prefix) = match provider {
        None => (0, ""),
        Some("anthropic" | "openai") => (1, ""),
        Some("gemini") => (1, "gemini/"),
        Some("vertex_ai-anthropic_models") => (2, "vertex_ai/"),
        Some("azure") => (2, "azure/"),
        Some("vertex_ai-language-models") => (2, ""),
        Some("bedrock_converse") => (3, "anthropic."),
        Some("vertex_ai") => (3, "vertex_ai/"),
        Some("bedrock") => (4, "anthropic."),
        Some(_) => return None,
    };
    let rest = key.strip_prefix(prefix)?;
    if provider.is_some() && (rest.contains('/') || rest.starts_with("ft:")) {
        return None;
    }
    Some(rank)
}

/// Field name → (base field, tier threshold in tokens).
fn split_tier(field: &str) -> (&str, Option<u64>) {
    if let Some(head) = field.strip_suffix("k_tokens")
        && let Some(i) = head.rfind("_above_")
        && let Ok(k) = head[i + "_above_".len()..].parse::<u64>()
    {
        return (&head[..i], Some(k * 1000));
    }
    (field, None)
}

/// The highest price per token a table may give, in USD: a thousand times the dearest model
/// LiteLLM lists. Above it a figure is a typo or a hostile file, and summed over a few requests
/// it could leave the finite range: a JSON cost of `null` beside a table's saturated one.
pub const MAX_RATE: f64 = 1.0;

/// The per-token prices a listing may carry, as `<base>` or `<base>_above_<N>k_tokens`.
const PRICE_FIELDS: &[&str] = &[
    "input_cost_per_token",
    "output_cost_per_token",
    "output_cost_per_reasoning_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "cache_creation_input_token_cost_above_1hr",
];

/// Whether a listing's field is a price this table reads (a base price or a tier's).
pub fn is_price_field(field: &str) -> bool {
    PRICE_FIELDS.contains(&split_tier(field).0)
}

/// A listing whose price is no price per token (negative, above [`MAX_RATE`], not finite):
/// the table refuses its model rather than guess.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The table key, as written.
    pub key: String,
    pub field: String,
    pub value: f64,
}

/// What one listing gives.
enum Listing {
    Price(ModelPrice),
    /// No per-token input and output price (another modality, LiteLLM's `sample_spec`).
    NoPrice,
    Refused(Refusal),
}

/// One listing's prices.
fn parse_entry(name: String, key: &str, entry: &Map<String, Value>) -> Listing {
    let mut base = Rates::default();
    let (mut input, mut output) = (None, None);
    let mut tiers: Vec<Tier> = Vec::new();
    for (raw_field, value) in entry {
        let Some(x) = value.as_f64() else { continue };
        let (field, threshold) = split_tier(raw_field);
        if !PRICE_FIELDS.contains(&field) {
            continue;
        }
        if !(x.is_finite() && (0.0..=MAX_RATE).contains(&x)) {
            return Listing::Refused(Refusal {
                key: key.to_string(),
                field: raw_field.clone(),
                value: x,
            });
        }
        match threshold {
            None => match field {
                "input_cost_per_token" => input = Some(x),
                "output_cost_per_token" => output = Some(x),
                "output_cost_per_reasoning_token" => base.reasoning = Some(x),
                "cache_read_input_token_cost" => base.cache_read = Some(x),
                "cache_creation_input_token_cost" => base.cache_write = Some(x),
                "cache_creation_input_token_cost_above_1hr" => base.cache_write_1h = Some(x),
                _ => {}
            },
            Some(threshold) => {
                let slot = match tiers.iter().position(|t| t.threshold == threshold) {
                    Some(i) => &mut tiers[i],
                    None => {
                        tiers.push(Tier {
                            threshold,
                            ..Tier::default()
                        });
                        tiers.last_mut().expect("just pushed")
                    }
                };
                match field {
                    "input_cost_per_token" => slot.input = Some(x),
                    "output_cost_per_token" => slot.output = Some(x),
                    "output_cost_per_reasoning_token" => slot.reasoning = Some(x),
                    "cache_read_input_token_cost" => slot.cache_read = Some(x),
                    "cache_creation_input_token_cost" => slot.cache_write = Some(x),
                    "cache_creation_input_token_cost_above_1hr" => slot.cache_write_1h = Some(x),
                    _ => {}
                }
            }
        }
    }
    let (Some(input), Some(output)) = (input, output) else {
        return Listing::NoPrice;
    };
    base.input = input;
    base.output = output;
    tiers.retain(|t| {
        *t != Tier {
            threshold: t.threshold,
            ..Tier::default()
        }
    });
    tiers.sort_by_key(|t| t.threshold);
    Listing::Price(ModelPrice {
        name,
        key: key.to_string(),
        provider: entry
            .get("litellm_provider")
            .and_then(Value::as_str)
            .map(String::from),
        base,
        tiers,
    })
}

impl PriceTable {
    /// Read a table from LiteLLM-shaped JSON text. Entries that are not price objects (LiteLLM's
    /// `sample_spec`, other modalities) are skipped.
    pub fn from_json(text: &str) -> Result<PriceTable, String> {
        Self::from_value(serde_json::from_str(text).map_err(|e| e.to_string())?)
    }

    /// [`PriceTable::from_json`] of parsed JSON.
    pub fn from_value(root: Value) -> Result<PriceTable, String> {
        let Value::Object(root) = root else {
            return Err("expected a JSON object of model names to prices".into());
        };
        // canonical name → listings (rank, price)
        let mut by_name: HashMap<String, Vec<(u8, ModelPrice)>> = HashMap::new();
        let mut refused: HashSet<String> = HashSet::new();
        let mut refusals: Vec<Refusal> = Vec::new();
        for (key, entry) in &root {
            let Value::Object(entry) = entry else {
                continue;
            };
            let provider = entry.get("litellm_provider").and_then(Value::as_str);
            let Some(rank) = provider_rank(provider, key) else {
                continue;
            };
            let name = canonical(key);
            if name.is_empty() {
                continue;
            }
            match parse_entry(name.clone(), key, entry) {
                Listing::Price(p) => by_name.entry(name).or_default().push((rank, p)),
                Listing::NoPrice => {}
                Listing::Refused(r) => {
                    refusals.push(r);
                    refused.insert(name);
                }
            }
        }
        // A model one of whose listings is refused has no price here, whatever its other
        // listings say: which of them the file meant cannot be told.
        by_name.retain(|name, _| !refused.contains(name));
        for listings in by_name.values_mut() {
            listings.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.key.cmp(&b.1.key)));
        }
        // Listings of one model across dates, for filling fields the winner lacks.
        let mut family: HashMap<String, Vec<ModelPrice>> = HashMap::new();
        for (name, listings) in &by_name {
            let base = undated(name).unwrap_or(name).to_string();
            family
                .entry(base)
                .or_default()
                .extend(listings.iter().map(|(_, p)| p.clone()));
        }
        let mut models = HashMap::new();
        for (name, listings) in by_name {
            let mut best = listings[0].1.clone();
            let base = undated(&name).unwrap_or(&name).to_string();
            let same_price = |p: &ModelPrice| {
                p.base.input == best.base.input && p.base.output == best.base.output
            };
            let donors: Vec<ModelPrice> = listings
                .iter()
                .map(|(_, p)| p)
                .chain(family.get(&base).into_iter().flatten())
                .filter(|p| p.key != best.key && same_price(p))
                .cloned()
                .collect();
            for d in &donors {
                if best.base.cache_write_1h.is_none() {
                    best.base.cache_write_1h = d.base.cache_write_1h;
                }
                if best.tiers.is_empty() && !d.tiers.is_empty() {
                    best.tiers = d.tiers.clone();
                }
            }
            models.insert(name, best);
        }
        let mut newest_dated: HashMap<String, String> = HashMap::new();
        for name in models.keys().chain(&refused) {
            if let Some(base) = undated(name) {
                let slot = newest_dated.entry(base.to_string()).or_default();
                if name.as_str() > slot.as_str() {
                    *slot = name.clone();
                }
            }
        }
        Ok(PriceTable {
            models,
            newest_dated,
            refused,
            refusals,
        })
    }

    /// The listings refused for a price that is no price per token, by key.
    pub fn refusals(&self) -> &[Refusal] {
        &self.refusals
    }

    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Neither a price nor a refused one.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty() && self.refused.is_empty()
    }

    /// The prices of a recorded model name (normalised as the module docs of `name` say).
    pub fn find(&self, model: &str) -> Option<&ModelPrice> {
        self.lookup(model).flatten()
    }

    /// Like [`PriceTable::find`], telling a model the table does not know (`None`) from one
    /// whose prices it refused (`Some(None)`).
    pub fn lookup(&self, model: &str) -> Option<Option<&ModelPrice>> {
        let name = canonical(model);
        if name.is_empty() {
            return None;
        }
        let known = |n: &str| self.models.contains_key(n) || self.refused.contains(n);
        let base = undated(&name).unwrap_or(&name);
        let key = if known(&name) {
            name.as_str()
        } else if known(base) {
            base
        } else {
            self.newest_dated.get(base)?.as_str()
        };
        Some(self.models.get(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"{
      "sample_spec": {"input_cost_per_token": "price per token", "litellm_provider": "x"},
      "claude-sonnet-4-5": {"litellm_provider": "anthropic", "input_cost_per_token": 3e-06,
        "output_cost_per_token": 1.5e-05, "cache_read_input_token_cost": 3e-07,
        "cache_creation_input_token_cost": 3.75e-06},
      "anthropic.claude-sonnet-4-5-20250929-v1:0": {"litellm_provider": "bedrock_converse",
        "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
        "cache_creation_input_token_cost_above_1hr": 6e-06,
        "input_cost_per_token_above_200k_tokens": 6e-06,
        "output_cost_per_token_above_200k_tokens": 2.25e-05},
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0": {"litellm_provider": "bedrock_converse",
        "input_cost_per_token": 3.3e-06, "output_cost_per_token": 1.65e-05},
      "gemini-2.5-pro": {"litellm_provider": "vertex_ai-language-models",
        "input_cost_per_token": 1.3e-06, "output_cost_per_token": 1e-05},
      "gemini/gemini-2.5-pro": {"litellm_provider": "gemini", "input_cost_per_token": 1.25e-06,
        "output_cost_per_token": 1e-05},
      "claude-opus-4-7-20260416": {"litellm_provider": "anthropic", "input_cost_per_token": 5e-06,
        "output_cost_per_token": 2.5e-05},
      "fireworks_ai/gpt-5": {"litellm_provider": "fireworks_ai", "input_cost_per_token": 1,
        "output_cost_per_token": 1},
      "my-model": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}
    }"#;

    #[test]
    fn providers_are_ranked_and_missing_fields_filled_from_the_same_model() {
        let t = PriceTable::from_json(SAMPLE).unwrap();
        // The Anthropic listing wins; Bedrock's tier and 1-hour price (same base prices, dates
        // aside) fill what it lacks; the regional copy is ignored.
        let s = t.find("claude-sonnet-4-5").unwrap();
        assert_eq!(s.key, "claude-sonnet-4-5");
        assert_eq!(s.base.cache_write_1h, Some(6e-06));
        assert_eq!(s.tiers.len(), 1);
        assert_eq!(s.tiers[0].threshold, 200_000);
        assert_eq!(s.rates_for(200_000).input, 3e-06);
        assert_eq!(s.rates_for(200_001).input, 6e-06);
        assert_eq!(s.rates_for(200_001).cache_read, Some(3e-07));
        // The dated name has its own (Bedrock) listing.
        let dated = t.find("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!(dated.key, "anthropic.claude-sonnet-4-5-20250929-v1:0");
        // Gemini's API listing beats Vertex's.
        assert_eq!(t.find("gemini-2.5-pro").unwrap().base.input, 1.25e-06);
        assert_eq!(
            t.find("models/gemini-2.5-pro").unwrap().base.input,
            1.25e-06
        );
        // An undated record finds the newest dated listing.
        assert_eq!(
            t.find("claude-opus-4-7").unwrap().key,
            "claude-opus-4-7-20260416"
        );
        // Other providers and non-price entries are not read; hand-written entries are.
        assert!(t.find("gpt-5").is_none());
        assert!(t.find("sample_spec").is_none());
        assert_eq!(t.find("MY-MODEL").unwrap().base.output, 2e-06);
        assert!(t.find("").is_none());
    }

    #[test]
    fn tier_fields_are_parsed() {
        assert_eq!(
            split_tier("input_cost_per_token_above_272k_tokens"),
            ("input_cost_per_token", Some(272_000))
        );
        assert_eq!(
            split_tier("cache_creation_input_token_cost_above_1hr_above_200k_tokens"),
            ("cache_creation_input_token_cost_above_1hr", Some(200_000))
        );
        assert_eq!(
            split_tier("cache_creation_input_token_cost_above_1hr"),
            ("cache_creation_input_token_cost_above_1hr", None)
        );
    }

    #[test]
    fn prices_that_are_no_price_per_token_refuse_their_model() {
        let t = PriceTable::from_json(
            r#"{
              "huge": {"input_cost_per_token": 1e-06, "output_cost_per_token": 1e308},
              "negative": {"input_cost_per_token": -1e-06, "output_cost_per_token": 1e-06},
              "dear-tier": {"input_cost_per_token": 1e-06, "output_cost_per_token": 1e-06,
                "input_cost_per_token_above_200k_tokens": 2.5},
              "claude-opus-9-20270101": {"input_cost_per_token": 1e-06,
                "output_cost_per_token": 100},
              "at-the-limit": {"input_cost_per_token": 1, "output_cost_per_token": 0},
              "images-too": {"input_cost_per_token": 1e-06, "output_cost_per_token": 1e-06,
                "input_cost_per_image": 1e308}
            }"#,
        )
        .unwrap();
        let refused: Vec<(&str, &str)> = t
            .refusals()
            .iter()
            .map(|r| (r.key.as_str(), r.field.as_str()))
            .collect();
        assert_eq!(
            refused,
            [
                ("claude-opus-9-20270101", "output_cost_per_token"),
                ("dear-tier", "input_cost_per_token_above_200k_tokens"),
                ("huge", "output_cost_per_token"),
                ("negative", "input_cost_per_token"),
            ]
        );
        for model in ["huge", "negative", "dear-tier", "claude-opus-9-20270101"] {
            assert_eq!(t.lookup(model), Some(None), "{model}");
        }
        // The undated name reaches the refused dated one, as it would a priced one.
        assert_eq!(t.lookup("claude-opus-9"), Some(None));
        assert_eq!(t.find("at-the-limit").unwrap().base.input, 1.0);
        assert!(t.find("images-too").is_some());
        assert_eq!(t.lookup("elsewhere"), None);
        assert!(
            !PriceTable::from_json(
                r#"{"huge": {"input_cost_per_token": 1e308,
            "output_cost_per_token": 0}}"#
            )
            .unwrap()
            .is_empty()
        );
    }

    #[test]
    fn malformed_tables_are_errors() {
        assert!(PriceTable::from_json("[1, 2]").is_err());
        assert!(PriceTable::from_json("{").is_err());
        assert!(PriceTable::from_json("{}").unwrap().is_empty());
    }
}
