//! `--set key=value` settings: every algorithm declares its keys with a default and an allowed
//! range; a value outside it is an error naming the key and the range.

use std::collections::BTreeMap;
use std::fmt;

/// The kind and range of one setting.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A number in `[min, max]` (inclusive). Integers are numbers with `integer: true`.
    Number {
        min: f64,
        max: f64,
        integer: bool,
    },
    Bool,
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
    /// Free text (e.g. comma-separated globs).
    Text,
}

/// One declared setting.
#[derive(Debug, Clone)]
pub struct Spec {
    pub key: &'static str,
    pub default: Value,
    pub kind: Kind,
    pub help: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Number(f64),
    Bool(bool),
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => write!(f, "{}", *n as i64),
            Value::Number(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 9e15 => s.serialize_i64(*n as i64),
            Value::Number(n) => s.serialize_f64(*n),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Text(t) => s.serialize_str(t),
        }
    }
}

impl Spec {
    pub const fn number(
        key: &'static str,
        default: f64,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> Spec {
        Spec {
            key,
            default: Value::Number(default),
            kind: Kind::Number {
                min,
                max,
                integer: false,
            },
            help,
        }
    }
    pub const fn integer(
        key: &'static str,
        default: f64,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> Spec {
        Spec {
            key,
            default: Value::Number(default),
            kind: Kind::Number {
                min,
                max,
                integer: true,
            },
            help,
        }
    }
    pub const fn boolean(key: &'static str, default: bool, help: &'static str) -> Spec {
        Spec {
            key,
            default: Value::Bool(default),
            kind: Kind::Bool,
            help,
        }
    }

    pub fn range(&self) -> String {
        match &self.kind {
            Kind::Number { min, max, integer } => {
                let n = |x: f64| {
                    if *integer || x.fract() == 0.0 {
                        format!("{}", x as i64)
                    } else {
                        format!("{x}")
                    }
                };
                format!(
                    "{} number from {} to {}",
                    if *integer { "a whole" } else { "a" },
                    n(*min),
                    n(*max)
                )
            }
            Kind::Bool => "true or false".into(),
            Kind::Choice(c) => format!("one of {}", c.join(", ")),
            Kind::Text => "text".into(),
        }
    }

    pub fn parse(&self, raw: &str) -> Result<Value, String> {
        let bad = || format!("{}={raw}: expected {}", self.key, self.range());
        match &self.kind {
            Kind::Number { min, max, integer } => {
                let v: f64 = raw.trim().replace('_', "").parse().map_err(|_| bad())?;
                if !v.is_finite() || v < *min || v > *max || (*integer && v.fract() != 0.0) {
                    return Err(bad());
                }
                Ok(Value::Number(v))
            }
            Kind::Bool => match raw.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(Value::Bool(true)),
                "false" | "no" | "off" | "0" => Ok(Value::Bool(false)),
                _ => Err(bad()),
            },
            Kind::Choice(c) => {
                let v = raw.trim().to_ascii_lowercase();
                if c.contains(&v.as_str()) {
                    Ok(Value::Text(v))
                } else {
                    Err(bad())
                }
            }
            Kind::Text => Ok(Value::Text(raw.to_string())),
        }
    }
}

/// Resolved settings of one algorithm run: every declared key has a value.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(transparent)]
pub struct Settings {
    values: BTreeMap<&'static str, Value>,
    /// The keys given with `--set`/`--sweep` (not defaults): a setting the engine resolves from
    /// the recorded version keeps a value the user gave.
    #[serde(skip)]
    given: std::collections::BTreeSet<&'static str>,
}

impl Settings {
    /// Apply `key=value` pairs over the defaults of `specs`. Unknown keys are errors that list
    /// the keys the algorithm has.
    pub fn resolve(specs: &[Spec], pairs: &[(String, String)]) -> Result<Settings, String> {
        let mut values: BTreeMap<&'static str, Value> =
            specs.iter().map(|s| (s.key, s.default.clone())).collect();
        let mut given = std::collections::BTreeSet::new();
        for (k, v) in pairs {
            let key = k.trim().replace('-', "_");
            let spec = specs.iter().find(|s| s.key == key).ok_or_else(|| {
                let keys: Vec<&str> = specs.iter().map(|s| s.key).collect();
                format!(
                    "unknown setting {k:?} for this algorithm; its settings are: {}",
                    keys.join(", ")
                )
            })?;
            values.insert(spec.key, spec.parse(v)?);
            given.insert(spec.key);
        }
        Ok(Settings { values, given })
    }

    /// Whether `key` was given explicitly (not left at its default).
    pub fn given(&self, key: &str) -> bool {
        self.given.contains(key)
    }

    /// Resolve a number the user left at its "as the recorded version" default.
    pub fn set_number(&mut self, key: &'static str, value: f64) {
        self.values.insert(key, Value::Number(value));
    }

    /// Resolve a flag the user left at its default to the recorded version's value.
    pub fn set_flag(&mut self, key: &'static str, value: bool) {
        self.values.insert(key, Value::Bool(value));
    }

    pub fn num(&self, key: &str) -> f64 {
        match self.values.get(key) {
            Some(Value::Number(n)) => *n,
            _ => panic!("setting {key} is not a declared number"),
        }
    }

    pub fn int(&self, key: &str) -> u64 {
        self.num(key).max(0.0) as u64
    }

    pub fn flag(&self, key: &str) -> bool {
        match self.values.get(key) {
            Some(Value::Bool(b)) => *b,
            _ => panic!("setting {key} is not a declared boolean"),
        }
    }

    pub fn text(&self, key: &str) -> &str {
        match self.values.get(key) {
            Some(Value::Text(t)) => t,
            _ => panic!("setting {key} is not declared as text"),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.get(key)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&&'static str, &Value)> {
        self.values.iter()
    }
}

/// Parse `key=value`.
pub fn parse_pair(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected key=value, got {s:?}"))?;
    if k.trim().is_empty() {
        return Err(format!("expected key=value, got {s:?}"));
    }
    Ok((k.trim().to_string(), v.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[Spec] = &[
        Spec::number("threshold", 0.5, 0.0, 1.0, "fraction"),
        Spec::integer("keep", 3.0, 0.0, 100.0, "count"),
        Spec::boolean("masking", true, "on/off"),
    ];

    #[test]
    fn defaults_overrides_and_errors() {
        let s = Settings::resolve(SPECS, &[]).unwrap();
        assert_eq!(s.num("threshold"), 0.5);
        assert!(s.flag("masking"));
        let s = Settings::resolve(
            SPECS,
            &[
                ("threshold".into(), "0.2".into()),
                ("masking".into(), "false".into()),
            ],
        )
        .unwrap();
        assert_eq!(s.num("threshold"), 0.2);
        assert!(!s.flag("masking"));
        assert!(s.given("threshold") && s.given("masking") && !s.given("keep"));
        let e = Settings::resolve(SPECS, &[("threshold".into(), "1.5".into())]).unwrap_err();
        assert!(e.contains("threshold") && e.contains("from 0 to 1"), "{e}");
        let e = Settings::resolve(SPECS, &[("keep".into(), "2.5".into())]).unwrap_err();
        assert!(e.contains("whole number"), "{e}");
        let e = Settings::resolve(SPECS, &[("nope".into(), "1".into())]).unwrap_err();
        assert!(e.contains("threshold, keep, masking"), "{e}");
    }
}
