//! The machine-readable forms of `sessions usage`: its JSON and NDJSON records
//! (docs/json.md, "sessions usage") and the same records flattened into CSV.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use crate::commands::{Failure, csv_writer, finish_csv, stdout, write_json};
use crate::model::{Agent, Usage};
use crate::pricing::{self, PriceSource};
use crate::render::json::SCHEMA_VERSION;
use crate::render::rfc3339;
use crate::usage::{ReportKind, Tally};

use super::{Header, Row, RowKey, week_name};

pub(super) fn write_document(header: &Header, rows: &[Row], total: &Row) -> Result<(), Failure> {
    let doc = Document {
        schema_version: SCHEMA_VERSION,
        report: header.report.as_str(),
        timezone: header.zone.name(),
        start_of_week: header.week_start.map(week_name),
        since: header.since.map(rfc3339),
        until: header.until.map(|u| rfc3339(u.last_millisecond())),
        prices: header.prices.clone(),
        rows: rows.iter().map(|r| r.record(header.report)).collect(),
        totals: TotalRecord::new(header, total, rows.len()),
    };
    let mut out = stdout();
    serde_json::to_writer_pretty(&mut out, &doc).map_err(|e| Failure::failed(e.to_string()))?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

pub(super) fn write_ndjson(header: &Header, rows: &[Row], total: &Row) -> Result<(), Failure> {
    let mut lines: Vec<Line> = rows
        .iter()
        .map(|r| Line::Row(r.record(header.report)))
        .collect();
    lines.push(Line::Totals(TotalRecord::new(header, total, rows.len())));
    write_json(&lines, true)
}

/// One line of `--format ndjson`: serialised as it stands, so that its keys keep the order
/// they have in `--format json` (a `serde_json::Value` would sort them).
#[derive(Serialize)]
#[serde(untagged)]
enum Line<'a> {
    Row(RowRecord<'a>),
    Totals(TotalRecord<'a>),
}

impl<'a> Row<'a> {
    fn record(&self, report: ReportKind) -> RowRecord<'_> {
        RowRecord {
            schema_version: SCHEMA_VERSION,
            report: report.as_str(),
            kind: "row",
            key: self.key_record(),
            figures: Figures::new(&self.tally, self.agents(), self.models(), &self.by_model),
        }
    }

    fn key_record(&self) -> KeyRecord<'_> {
        match &self.key {
            RowKey::Period { label, start, end } => KeyRecord::Period {
                period: label.clone(),
                start: start.map(rfc3339),
                end: end.map(rfc3339),
            },
            RowKey::Session(s) => KeyRecord::Session {
                session_id: &s.id,
                agent: s.agent.as_str(),
                session_kind: s.kind.as_str(),
                path: s.path().display().to_string(),
                project: s.project.as_deref(),
                project_hash: s.project_hash.as_deref(),
                title: s.title.as_deref(),
            },
            RowKey::Project {
                path,
                hash,
                sessions,
            } => KeyRecord::Project {
                project: *path,
                project_hash: *hash,
                sessions: *sessions,
            },
            RowKey::Block {
                agent,
                start,
                end,
                active,
                gap_before,
                burn,
                projection,
            } => KeyRecord::Block {
                agent: agent.as_str(),
                start: rfc3339(*start),
                end: rfc3339(*end),
                active: *active,
                gap_before_minutes: gap_before.map(|d| d.num_minutes()),
                burn_rate: burn.map(|b| BurnRecord {
                    tokens_per_minute: (b.tokens_per_minute * 10.0).round() / 10.0,
                    cost_per_hour_usd: b.cost_per_hour.map(pricing::round_usd),
                }),
                projection: projection.map(|p| ProjectionRecord {
                    tokens: p.tokens,
                    cost_usd: p.cost_usd.map(pricing::round_usd),
                    remaining_minutes: p.remaining_minutes,
                }),
            },
            RowKey::Total => KeyRecord::Total {},
        }
    }
}

// ---- JSON / NDJSON records (docs/json.md, "sessions usage") ----

#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    report: &'static str,
    timezone: String,
    start_of_week: Option<&'static str>,
    since: Option<String>,
    until: Option<String>,
    prices: PriceSource,
    rows: Vec<RowRecord<'a>>,
    totals: TotalRecord<'a>,
}

#[derive(Serialize)]
struct RowRecord<'a> {
    schema_version: u32,
    report: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    key: KeyRecord<'a>,
    #[serde(flatten)]
    figures: Figures<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum KeyRecord<'a> {
    Period {
        period: Option<String>,
        start: Option<String>,
        end: Option<String>,
    },
    Session {
        session_id: &'a str,
        agent: &'static str,
        session_kind: &'static str,
        path: String,
        project: Option<&'a str>,
        project_hash: Option<&'a str>,
        title: Option<&'a str>,
    },
    Project {
        project: Option<&'a str>,
        project_hash: Option<&'a str>,
        sessions: usize,
    },
    Block {
        agent: &'static str,
        start: String,
        end: String,
        active: bool,
        gap_before_minutes: Option<i64>,
        burn_rate: Option<BurnRecord>,
        projection: Option<ProjectionRecord>,
    },
    Total {},
}

#[derive(Serialize)]
struct BurnRecord {
    tokens_per_minute: f64,
    cost_per_hour_usd: Option<f64>,
}

#[derive(Serialize)]
struct ProjectionRecord {
    tokens: u64,
    cost_usd: Option<f64>,
    remaining_minutes: i64,
}

/// The `tokens` object of usage records: the list contract's six fields plus the 1-hour part
/// of cache writes.
#[derive(Serialize)]
struct Tokens {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    cache_write_1h: u64,
    reasoning: u64,
    total: u64,
}

impl From<&Usage> for Tokens {
    fn from(u: &Usage) -> Self {
        Tokens {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            cache_write_1h: u.cache_write_1h,
            reasoning: u.reasoning,
            total: u.total(),
        }
    }
}

#[derive(Serialize)]
struct Figures<'a> {
    agents: Vec<&'static str>,
    models: Vec<&'a str>,
    requests: u64,
    first_at: Option<String>,
    last_at: Option<String>,
    tokens: Tokens,
    cost_usd: Option<f64>,
    unpriced_models: Vec<&'a str>,
    breakdown: Vec<ModelRecord<'a>>,
}

#[derive(Serialize)]
struct ModelRecord<'a> {
    agent: &'static str,
    model: &'a str,
    requests: u64,
    tokens: Tokens,
    cost_usd: Option<f64>,
}

impl<'a> Figures<'a> {
    fn new(
        t: &'a Tally,
        agents: Vec<Agent>,
        models: Vec<&'a str>,
        by_model: &'a [(Agent, &'a str, Tally)],
    ) -> Self {
        Figures {
            agents: agents.iter().map(|a| a.as_str()).collect(),
            models,
            requests: t.requests,
            first_at: t.first_at.map(rfc3339),
            last_at: t.last_at.map(rfc3339),
            tokens: (&t.usage).into(),
            cost_usd: t.cost.usd(),
            unpriced_models: t.cost.unpriced_models.iter().map(String::as_str).collect(),
            breakdown: by_model
                .iter()
                .map(|(a, m, mt)| ModelRecord {
                    agent: a.as_str(),
                    model: m,
                    requests: mt.requests,
                    tokens: (&mt.usage).into(),
                    cost_usd: mt.cost.usd(),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct TotalRecord<'a> {
    schema_version: u32,
    report: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    timezone: String,
    start_of_week: Option<&'static str>,
    since: Option<String>,
    until: Option<String>,
    prices: PriceSource,
    rows: usize,
    #[serde(flatten)]
    figures: Figures<'a>,
}

impl<'a> TotalRecord<'a> {
    fn new(h: &Header, total: &'a Row<'a>, rows: usize) -> Self {
        TotalRecord {
            schema_version: SCHEMA_VERSION,
            report: h.report.as_str(),
            kind: "totals",
            timezone: h.zone.name(),
            start_of_week: h.week_start.map(week_name),
            since: h.since.map(rfc3339),
            until: h.until.map(|u| rfc3339(u.last_millisecond())),
            prices: h.prices.clone(),
            rows,
            figures: Figures::new(
                &total.tally,
                total.agents(),
                total.models(),
                &total.by_model,
            ),
        }
    }
}

// ---- CSV ----

/// A JSON record as CSV cells: nested objects become `outer_inner` columns, lists of strings
/// are joined with `;`, nulls are empty.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    use serde_json::Value;
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}_{k}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                flatten(&key(k), v, out);
            }
        }
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect();
            out.insert(prefix.to_string(), parts.join(";"));
        }
        Value::Null => {
            out.insert(prefix.to_string(), String::new());
        }
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

fn cells<T: Serialize>(record: &T) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = BTreeMap::new();
    let value = serde_json::to_value(record).map_err(|e| Failure::failed(e.to_string()))?;
    flatten("", &value, &mut out);
    Ok(out)
}

/// The CSV form of the JSON rows (docs/json.md): the same fields, flattened.
pub(super) fn write_csv(
    h: &Header,
    rows: &[Row],
    total: &Row,
    breakdown: bool,
) -> Result<(), Failure> {
    let keys: &[&str] = match h.report {
        ReportKind::Daily | ReportKind::Weekly | ReportKind::Monthly => &["period", "start", "end"],
        ReportKind::Session => &[
            "session_id",
            "agent",
            "session_kind",
            "path",
            "project",
            "project_hash",
            "title",
        ],
        ReportKind::Project => &["project", "project_hash", "sessions"],
        ReportKind::Blocks => &[
            "agent",
            "start",
            "end",
            "active",
            "gap_before_minutes",
            "burn_rate_tokens_per_minute",
            "burn_rate_cost_per_hour_usd",
            "projection_tokens",
            "projection_cost_usd",
            "projection_remaining_minutes",
        ],
    };
    const FIGURES: [&str; 15] = [
        "model",
        "agents",
        "models",
        "requests",
        "first_at",
        "last_at",
        "tokens_input",
        "tokens_output",
        "tokens_cache_read",
        "tokens_cache_write",
        "tokens_cache_write_1h",
        "tokens_reasoning",
        "tokens_total",
        "cost_usd",
        "unpriced_models",
    ];
    let mut header: Vec<&str> = vec!["schema_version", "report", "type"];
    header.extend_from_slice(keys);
    header.extend_from_slice(&FIGURES);
    let mut w = csv_writer();
    let err = |e: csv::Error| Failure::failed(e.to_string());
    w.write_record(&header).map_err(err)?;
    let pick = |c: &BTreeMap<String, String>, k: &str| c.get(k).cloned().unwrap_or_default();
    for r in rows {
        let row = cells(&r.record(h.report))?;
        w.write_record(header.iter().map(|k| pick(&row, k)))
            .map_err(err)?;
        if breakdown {
            for m in &r.record(h.report).figures.breakdown {
                let mut model = cells(m)?;
                model.insert("agents".into(), pick(&model, "agent"));
                model.insert("models".into(), pick(&model, "model"));
                let rec = header.iter().map(|k| match *k {
                    "type" => "model".to_string(),
                    k if keys.contains(&k) || ["schema_version", "report"].contains(&k) => {
                        pick(&row, k)
                    }
                    k => pick(&model, k),
                });
                w.write_record(rec).map_err(err)?;
            }
        }
    }
    let totals = cells(&TotalRecord::new(h, total, rows.len()))?;
    w.write_record(header.iter().map(|k| {
        if keys.contains(k) {
            String::new()
        } else {
            pick(&totals, k)
        }
    }))
    .map_err(err)?;
    finish_csv(w)
}
