//! The JSON / NDJSON / CSV contract. Every record carries `schema_version`; fields are only ever
//! added within a version (see docs/json.md).

use serde::Serialize;

use crate::diag::Warning;
use crate::model::{Counts, Session, TokenTotals};
use crate::render::rfc3339;
use crate::scan::SessionSummary;

/// Version of the list/projects/show records. Bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// `show --format json` and `export --format json`: the unified session plus its derived
/// figures.
#[derive(Debug, Serialize)]
pub struct SessionDocument<'a> {
    pub schema_version: u32,
    pub counts: Counts,
    pub tokens: TokenTotals,
    /// USD at the active prices; `null` when none of its usage has a price.
    pub cost_usd: Option<f64>,
    #[serde(flatten)]
    pub session: &'a Session,
}

impl<'a> SessionDocument<'a> {
    pub fn new(session: &'a Session) -> Self {
        SessionDocument {
            schema_version: SCHEMA_VERSION,
            counts: session.counts(),
            tokens: session.usage().into(),
            cost_usd: session_cost(session).usd(),
            session,
        }
    }
}

/// A session's cost at the active prices, from its own requests.
pub fn session_cost(session: &Session) -> crate::pricing::Cost {
    crate::pricing::cost_of(
        session
            .requests
            .iter()
            .map(|r| (r.model.as_deref(), &r.usage)),
    )
}

/// One row of `sessions list --format json|ndjson|csv`.
#[derive(Debug, Serialize)]
pub struct SessionRecord<'a> {
    pub schema_version: u32,
    pub agent: &'static str,
    pub id: &'a str,
    pub path: String,
    pub kind: &'static str,
    pub parent_id: Option<&'a str>,
    pub project: Option<&'a str>,
    pub project_source: &'static str,
    pub project_hash: Option<&'a str>,
    pub title: Option<&'a str>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub duration_seconds: Option<i64>,
    pub models: &'a [String],
    pub agent_version: Option<&'a str>,
    pub git_branch: Option<&'a str>,
    pub counts: Counts,
    pub tokens: TokenTotals,
    /// USD at the active prices; `null` when none of its usage has a price.
    pub cost_usd: Option<f64>,
    pub compactions: usize,
    pub subagents: usize,
    pub warnings: Vec<WarningRecord<'a>>,
}

#[derive(Debug, Serialize)]
pub struct WarningRecord<'a> {
    pub kind: &'static str,
    pub line: Option<u64>,
    pub message: &'a str,
}

impl<'a> From<&'a Warning> for WarningRecord<'a> {
    fn from(w: &'a Warning) -> Self {
        WarningRecord {
            kind: w.kind.as_str(),
            line: w.line,
            message: &w.message,
        }
    }
}

impl<'a> SessionRecord<'a> {
    pub fn new(s: &'a SessionSummary) -> Self {
        SessionRecord {
            schema_version: SCHEMA_VERSION,
            agent: s.agent.as_str(),
            id: &s.id,
            path: s.path().display().to_string(),
            kind: s.kind.as_str(),
            parent_id: s.parent_id.as_deref(),
            project: s.project.as_deref(),
            project_source: s.project_source.as_str(),
            project_hash: s.project_hash.as_deref(),
            title: s.title.as_deref(),
            started_at: s.started_at.map(rfc3339),
            updated_at: s.updated_at.map(rfc3339),
            duration_seconds: s.duration().map(|d| d.num_seconds()),
            models: &s.models,
            agent_version: s.agent_version.as_deref(),
            git_branch: s.git_branch.as_deref(),
            counts: s.counts,
            tokens: s.usage.into(),
            // The row's own figures, as its tokens are: what its file recorded.
            cost_usd: s.own_cost().usd(),
            compactions: s.compactions,
            subagents: s.subagents.len(),
            warnings: s.warnings.iter().map(WarningRecord::from).collect(),
        }
    }
}

/// Flat CSV row: nested objects become prefixed columns, lists are joined with `;`.
#[derive(Default, Debug, Serialize)]
pub struct SessionCsvRow<'a> {
    pub schema_version: u32,
    pub agent: &'static str,
    pub id: &'a str,
    pub path: String,
    pub kind: &'static str,
    pub parent_id: Option<&'a str>,
    pub project: Option<&'a str>,
    pub project_source: &'static str,
    pub title: Option<&'a str>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub duration_seconds: Option<i64>,
    pub models: String,
    pub user_turns: u64,
    pub assistant_messages: u64,
    pub tool_calls: u64,
    pub tool_errors: u64,
    pub tokens_input: u64,
    pub tokens_output: u64,
    pub tokens_cache_read: u64,
    pub tokens_cache_write: u64,
    pub tokens_reasoning: u64,
    pub tokens_total: u64,
    pub cost_usd: Option<f64>,
    pub compactions: usize,
    pub warnings: usize,
}

impl<'a> From<&SessionRecord<'a>> for SessionCsvRow<'a> {
    fn from(r: &SessionRecord<'a>) -> Self {
        SessionCsvRow {
            schema_version: r.schema_version,
            agent: r.agent,
            id: r.id,
            path: r.path.clone(),
            kind: r.kind,
            parent_id: r.parent_id,
            project: r.project,
            project_source: r.project_source,
            title: r.title,
            started_at: r.started_at.clone(),
            updated_at: r.updated_at.clone(),
            duration_seconds: r.duration_seconds,
            models: r.models.join(";"),
            user_turns: r.counts.user_turns,
            assistant_messages: r.counts.assistant_messages,
            tool_calls: r.counts.tool_calls,
            tool_errors: r.counts.tool_errors,
            tokens_input: r.tokens.input,
            tokens_output: r.tokens.output,
            tokens_cache_read: r.tokens.cache_read,
            tokens_cache_write: r.tokens.cache_write,
            tokens_reasoning: r.tokens.reasoning,
            tokens_total: r.tokens.total,
            cost_usd: r.cost_usd,
            compactions: r.compactions,
            warnings: r.warnings.len(),
        }
    }
}
