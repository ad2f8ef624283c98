//! The history Gemini CLI resumes a recorded session with, ported from
//! `@google/gemini-cli-core` 0.61.0, and the replay input built from it.
//!
//! `loadConversationRecord` ([`super::load`]) → `convertSessionToClientHistory` → `getInitialChatHistory` (a fresh
//! environment turn in front) → `ensureStableToolIds`: what `resumeChat` hands the `GeminiChat`
//! constructor. The file is read again, as JSON with JavaScript semantics ([`J`]: key order,
//! `JSON.parse` duplicate keys), because the unified session model keeps neither the exact
//! response objects (`{output}`, `{error}`, `{output, error}`, objects), nor argument key order,
//! nor the thought records as Gemini rebuilds them.
//!
//! Every `gemini` record is one request. Its new content (the prompt, or the function
//! responses of the previous call) is the run of user turns since the previous response;
//! Gemini checks compression and masks before that content joins the history
//! ([`Request::check_at`]).

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::PLACEHOLDER_ENV_TEXT;
use super::content::GRole;
use super::json::{J, JsStr, Key, js_trim, to_json};
use super::load::{load_record, string_field};
use super::part::GPart;
use crate::model::{Agent, CompactionKind, ModelNames, Part, Role, Session};
use crate::replay::{HistoryItem, ReplayInput, RequestPoint};
use crate::tokens::estimate_text;

/// One turn of the resumed history (`{id, content: {role, parts}}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub id: J,
    pub role: GRole,
    pub parts: Vec<J>,
    /// The record message it came from (`None` for the environment turn).
    pub message: Option<usize>,
}

/// One request: a `gemini` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Turns already in the history when compression is checked.
    pub check_at: usize,
    /// Turns in the history when the request is sent (its new content included).
    pub upto: usize,
    /// The record message.
    pub message: usize,
    /// Output tokens of the response: recorded, else estimated from its content.
    pub output: u64,
}

/// A recorded session as Gemini CLI resumes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resumed {
    /// The environment turn first, then the converted messages.
    pub turns: Vec<Turn>,
    pub requests: Vec<Request>,
    /// The loaded `ConversationRecord.messages`, without what the turns took of them (content,
    /// thoughts, tool calls): ids, types, timestamps, models and token counts.
    pub messages: Vec<J>,
    /// Each turn's parts, moved out of `turns` once the history items are built
    /// ([`input_from`]) and shared by every sizing of them (empty until then).
    pub parts: Vec<Vec<Arc<GPart>>>,
    /// The turns sized for the replay, once per session (a cache).
    pub sized: super::state::SizedTurns,
}

/// What [`input_from`] keeps of a resumed session, and what its history items hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The items take the turns' contents; the resumed session is not kept (every algorithm
    /// but Gemini's).
    Items,
    /// The resumed session is kept for Gemini's algorithm, which reads nothing else; the items
    /// hold only their metadata.
    Turns,
    /// Both: the items hold copies of the contents (what the tests compare with `Items`).
    Both,
}

// ---------------------------------------------------------------------------------------------
// convertSessionToClientHistory

/// `String(x)` of a value read from a record (`undefined` when missing).
fn js_string(v: Option<&J>) -> JsStr {
    match v {
        None => "undefined".into(),
        Some(j) => j.to_js_string(),
    }
}

/// `String(v)` appended to `out` as lossy text (what `js_string(v).to_string_lossy()` gives),
/// without a copy of a string that is already text.
fn push_js_text(out: &mut String, v: Option<&J>) {
    match v {
        Some(J::Str(JsStr::Text(t))) => out.push_str(t),
        _ => out.push_str(&js_string(v).to_string_lossy()),
    }
}

/// Where [`part_to_string`] writes: every unit, or only as many as the ignore rule reads.
#[derive(Default)]
struct Units {
    out: Vec<u16>,
    /// Keep only the text's start: up to [`IGNORED_PREFIX`] units past the first that is not
    /// whitespace.
    start_only: bool,
    /// Where the first unit that is not whitespace is (`start_only` alone tracks it).
    first: Option<usize>,
}

impl Units {
    fn extend(&mut self, units: impl Iterator<Item = u16>) {
        if !self.start_only {
            self.out.extend(units);
            return;
        }
        for u in units {
            if self.full() {
                return;
            }
            if self.first.is_none() && !super::json::js_is_space(u) {
                self.first = Some(self.out.len());
            }
            self.out.push(u);
        }
    }

    fn full(&self) -> bool {
        self.start_only
            && self
                .first
                .is_some_and(|i| self.out.len() >= i + IGNORED_PREFIX)
    }
}

/// `partToString(value, {verbose: true})` (`partListUnionToString`).
fn part_to_string(v: Option<&J>, out: &mut Units) {
    let Some(v) = v.filter(|v| v.truthy() && !out.full()) else {
        return;
    };
    match v {
        J::Str(JsStr::Text(t)) => out.extend(t.encode_utf16()),
        J::Str(s) => out.extend(s.to_units().into_iter()),
        J::Arr(items) => {
            for x in items {
                part_to_string(Some(x), out);
            }
        }
        _ => {
            let has = |k: &str| v.get(k).is_some();
            let label = |s: String, out: &mut Units| out.extend(s.encode_utf16());
            if has("videoMetadata") {
                label("[Video Metadata]".into(), out);
            } else if has("thought") {
                let t = js_string(v.get("thought")).to_string_lossy();
                label(format!("[Thought: {t}]"), out);
            } else if has("codeExecutionResult") {
                label("[Code Execution Result]".into(), out);
            } else if has("executableCode") {
                label("[Executable Code]".into(), out);
            } else if has("fileData") {
                label("[File Data]".into(), out);
            } else if let Some(fc) = v.get("functionCall") {
                let n = js_string(fc.get("name")).to_string_lossy();
                label(format!("[Function Call: {n}]"), out);
            } else if let Some(fr) = v.get("functionResponse") {
                let n = js_string(fr.get("name")).to_string_lossy();
                label(format!("[Function Response: {n}]"), out);
            } else if let Some(d) = v.get("inlineData") {
                // Only where the text starts matters here (the ignore rule); the size is shown
                // as Gemini rounds it.
                let mime = match d.get("mimeType") {
                    None | Some(J::Null) => "unknown".to_string(),
                    Some(m) => m.to_js_string().to_string_lossy(),
                };
                let len = match d.get("data") {
                    Some(J::Str(s)) => s.len16(),
                    _ => 0,
                };
                let kb = (len * 3).div_ceil(4) as f64 / 1024.0;
                let category = if mime.starts_with("audio/") {
                    "Audio"
                } else if mime.starts_with("video/") {
                    "Video"
                } else if mime.starts_with("image/") {
                    "Image"
                } else {
                    "Media"
                };
                label(format!("[{category}: {mime}, {kb:.1} KB]"), out);
            } else {
                match v.get("text") {
                    None | Some(J::Null) => {}
                    Some(J::Str(JsStr::Text(t))) => out.extend(t.encode_utf16()),
                    Some(t) => out.extend(t.to_js_string().to_units().into_iter()),
                }
            }
        }
    }
}

/// The starts of a trimmed user text that `isIgnoredUserContent` ignores (besides an empty
/// text). Each ends in a unit that is not whitespace: whether a text starts with one is told by
/// the text's first [`IGNORED_PREFIX`] units past its leading whitespace.
const IGNORED_STARTS: [&str; 4] = ["/", "?", "<session_context>", "<hook_context>"];

/// The longest of [`IGNORED_STARTS`], in UTF-16 units (all are ASCII).
const IGNORED_PREFIX: usize = {
    let (mut i, mut max) = (0, 0);
    while i < IGNORED_STARTS.len() {
        if IGNORED_STARTS[i].len() > max {
            max = IGNORED_STARTS[i].len();
        }
        i += 1;
    }
    max
};

/// `isIgnoredUserContent(trimmed)`: empty, slash commands, `?`, and harness context.
pub fn is_ignored_user_content(trimmed: &[u16]) -> bool {
    // The starts are ASCII: one unit a byte.
    let starts = |p: &str| {
        trimmed.len() >= p.len() && p.bytes().zip(trimmed).all(|(b, &u)| u16::from(b) == u)
    };
    trimmed.is_empty() || IGNORED_STARTS.iter().any(|p| starts(p))
}

/// `isIgnoredUserContent(partToString(content).trim())`, from the start of the text alone.
fn ignored_user_content(content: Option<&J>) -> bool {
    let mut units = Units {
        start_only: true,
        ..Units::default()
    };
    part_to_string(content, &mut units);
    is_ignored_user_content(js_trim(&units.out))
}

/// `ensurePartArray(content)`.
fn part_array(content: Option<J>) -> Vec<J> {
    let text = |s: JsStr| J::obj(vec![("text", J::Str(s))]);
    match content {
        Some(J::Arr(items)) => items
            .into_iter()
            .map(|p| match p {
                J::Str(s) => text(s),
                other => other,
            })
            .collect(),
        Some(J::Str(s)) => vec![text(s)],
        // `[content]`; `undefined` serialises as `null` in an array.
        Some(other) => vec![other],
        None => vec![J::Null],
    }
}

fn has_truthy(part: &J, key: &str) -> bool {
    part.get(key).is_some_and(J::truthy)
}

/// An object built with `{key: value}` where `value` may be `undefined` (then the key is
/// absent from the JSON; `ensureStableToolIds` fills an absent or falsy id in place, so an
/// absent `id` keeps its slot as `null` until then).
fn field(entries: &mut Vec<(Key, J)>, key: &str, v: Option<J>) {
    if let Some(v) = v {
        entries.push((Key::new(key), v));
    }
}

/// `convertSessionToClientHistory([msg])`: the turns one record message becomes. The turns
/// take the message's content, thoughts and tool calls: what stays of `msg` is its metadata
/// (id, type, timestamp, model, tokens).
pub fn convert_message(msg: &mut J, index: usize) -> Vec<Turn> {
    let typ = string_field(msg, "type").map(JsStr::to_string_lossy);
    let id = msg.get("id").cloned().unwrap_or(J::Null);
    let turn = |id: J, role: GRole, parts: Vec<J>| Turn {
        id,
        role,
        parts,
        message: Some(index),
    };
    match typ.as_deref() {
        Some("info" | "error" | "warning") => Vec::new(),
        Some("user") => {
            if ignored_user_content(msg.get("content")) {
                return Vec::new();
            }
            vec![turn(id, GRole::User, part_array(msg.take("content")))]
        }
        Some("gemini") => {
            let content = msg.take("content").filter(J::truthy);
            let content_parts = content.map(|c| part_array(Some(c))).unwrap_or_default();
            let has_calls = content_parts.iter().any(|p| has_truthy(p, "functionCall"));
            let has_thoughts = content_parts.iter().any(|p| has_truthy(p, "thought"));
            let mut calls = match msg.take("toolCalls") {
                Some(J::Arr(c)) => c,
                _ => Vec::new(),
            };
            let mut model_parts = Vec::new();
            if has_calls || has_thoughts {
                model_parts = content_parts;
            } else {
                if let Some(J::Arr(thoughts)) = msg.take("thoughts") {
                    for mut t in thoughts {
                        let text = if t.get("subject").is_some_and(J::truthy) {
                            // `**${subject}** ${description}`, each written once.
                            let hint = |v: Option<&J>| match v {
                                Some(J::Str(JsStr::Text(t))) => t.len(),
                                _ => 16,
                            };
                            let mut s = String::with_capacity(
                                hint(t.get("subject")) + hint(t.get("description")) + 5,
                            );
                            s.push_str("**");
                            push_js_text(&mut s, t.get("subject"));
                            s.push_str("** ");
                            push_js_text(&mut s, t.get("description"));
                            Some(J::str(s))
                        } else {
                            t.take("description")
                        };
                        let mut e = Vec::new();
                        field(&mut e, "text", text);
                        e.push((Key::new("thought"), J::Bool(true)));
                        model_parts.push(J::Obj(e));
                    }
                }
                model_parts.extend(content_parts);
                for c in &mut calls {
                    let mut fc = vec![(Key::new("id"), c.get("id").cloned().unwrap_or(J::Null))];
                    field(&mut fc, "name", c.get("name").cloned());
                    field(&mut fc, "args", c.take("args"));
                    model_parts.push(J::Obj(vec![(Key::new("functionCall"), J::Obj(fc))]));
                }
            }
            if model_parts.is_empty() {
                return Vec::new();
            }
            let mut out = vec![turn(id.clone(), GRole::Model, model_parts)];
            let mut responses = Vec::new();
            for mut c in calls {
                let Some(result) = c.take("result").filter(J::truthy) else {
                    continue;
                };
                match result {
                    J::Str(_) => {
                        let mut fr = vec![(Key::new("id"), c.take("id").unwrap_or(J::Null))];
                        field(&mut fr, "name", c.take("name"));
                        fr.push((Key::new("response"), J::obj(vec![("output", result)])));
                        responses.push(J::Obj(vec![(Key::new("functionResponse"), J::Obj(fr))]));
                    }
                    J::Arr(_) => responses.extend(part_array(Some(result))),
                    other => responses.push(other),
                }
            }
            if !responses.is_empty() {
                // `${id}_response`: in UTF-8 when the id is text (the usual case), in UTF-16
                // units when it holds a lone surrogate.
                let rid = match js_string(Some(&id)) {
                    JsStr::Text(t) => J::str(t + "_response"),
                    other => {
                        let mut u = other.to_units();
                        u.extend("_response".encode_utf16());
                        J::Str(JsStr::from_units(u))
                    }
                };
                out.push(turn(rid, GRole::User, responses));
            }
            out
        }
        _ => Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// ensureStableToolIds

/// `deriveStableId(ids)`: sha256 of the sorted ids joined with `|`, 32 hex digits. A missing
/// id sorts last and joins as an empty string, as `undefined` does.
pub fn derive_stable_id(ids: &[Option<JsStr>]) -> String {
    let mut keyed: Vec<Option<Vec<u16>>> = ids
        .iter()
        .map(|i| i.as_ref().map(JsStr::to_units))
        .collect();
    keyed.sort_by(|a, b| match (a, b) {
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let mut joined: Vec<u16> = Vec::new();
    for (i, k) in keyed.iter().enumerate() {
        if i > 0 {
            joined.push(b'|' as u16);
        }
        if let Some(k) = k {
            joined.extend(k);
        }
    }
    let text = String::from_utf16_lossy(&joined);
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

fn turn_id_key(id: &J) -> Option<JsStr> {
    match id {
        // `null` joins as an empty string but sorts as "null": ids are strings in practice.
        J::Null => Some(JsStr::default()),
        other => Some(other.to_js_string()),
    }
}

fn synth(prefix: &str, name: Option<&J>, turn_id: &J, i: usize, part: usize) -> J {
    let name = js_string(name).to_string_lossy();
    let id = derive_stable_id(&[
        turn_id_key(turn_id),
        Some(JsStr::Text(i.to_string())),
        Some(JsStr::Text(part.to_string())),
    ]);
    J::str(format!("{prefix}{name}_{id}"))
}

fn inner<'a>(part: &'a J, key: &str) -> Option<&'a J> {
    part.get(key).filter(|v| v.truthy())
}

fn id_missing(obj: &J) -> bool {
    !obj.get("id").is_some_and(J::truthy)
}

/// `ensureStableToolIds(history)`: synthetic ids for calls and responses that have none,
/// pairing a call with an id-less response of the same name in the next turn (and back).
pub fn ensure_stable_tool_ids(turns: &mut [Turn]) {
    for i in 0..turns.len() {
        for p in 0..turns[i].parts.len() {
            if let Some(fc) = inner(&turns[i].parts[p], "functionCall").filter(|f| id_missing(f)) {
                let name = fc.get("name").cloned();
                if let Some(next) = turns.get(i + 1).filter(|t| t.role == GRole::User) {
                    let m = next.parts.iter().position(|q| {
                        inner(q, "functionResponse")
                            .is_some_and(|fr| fr.get("name") == name.as_ref() && id_missing(fr))
                    });
                    if let Some(m) = m {
                        let id = synth("synth_", name.as_ref(), &turns[i].id, i, p);
                        set_id(&mut turns[i].parts[p], "functionCall", id.clone());
                        set_id(&mut turns[i + 1].parts[m], "functionResponse", id);
                    }
                }
                let still = inner(&turns[i].parts[p], "functionCall").is_some_and(id_missing);
                if still {
                    let id = synth("synth_", name.as_ref(), &turns[i].id, i, p);
                    set_id(&mut turns[i].parts[p], "functionCall", id);
                }
            }
            if let Some(fr) =
                inner(&turns[i].parts[p], "functionResponse").filter(|f| id_missing(f))
            {
                let name = fr.get("name").cloned();
                if i > 0 && turns[i - 1].role == GRole::Model {
                    let m = turns[i - 1].parts.iter().position(|q| {
                        inner(q, "functionCall")
                            .is_some_and(|fc| fc.get("name") == name.as_ref() && id_missing(fc))
                    });
                    if let Some(m) = m {
                        let id = synth("synth_", name.as_ref(), &turns[i - 1].id, i - 1, p);
                        set_id(&mut turns[i - 1].parts[m], "functionCall", id.clone());
                        set_id(&mut turns[i].parts[p], "functionResponse", id);
                    }
                }
                let still = inner(&turns[i].parts[p], "functionResponse").is_some_and(id_missing);
                if still {
                    let id = synth("synth_orph_", name.as_ref(), &turns[i].id, i, p);
                    set_id(&mut turns[i].parts[p], "functionResponse", id);
                }
            }
        }
    }
}

fn set_id(part: &mut J, key: &str, id: J) {
    if let Some(obj) = part.get_mut(key) {
        obj.set("id", id);
    }
}

// ---------------------------------------------------------------------------------------------
// The resumed history and its requests

/// The environment turn `getInitialChatHistory` puts in front (placeholder text; see
/// [`PLACEHOLDER_ENV_TEXT`]).
pub fn env_turn() -> Turn {
    Turn {
        id: J::str(derive_stable_id(&[Some("environment-context".into())])),
        role: GRole::User,
        parts: vec![J::obj(vec![("text", J::str(PLACEHOLDER_ENV_TEXT))])],
        message: None,
    }
}

/// Resume the loaded messages; one request per `gemini` record. The turns take the messages'
/// contents ([`convert_message`]).
pub fn resume(mut messages: Vec<J>) -> Resumed {
    let mut turns = vec![env_turn()];
    let mut requests = Vec::new();
    // Turns since the last response: the next request's new content.
    let mut pending = 0;
    for (i, m) in messages.iter_mut().enumerate() {
        let is_response = string_field(m, "type").is_some_and(|t| t.to_string_lossy() == "gemini");
        // Before the conversion takes the content it may be estimated from.
        let output = if is_response { response_output(m) } else { 0 };
        let converted = convert_message(m, i);
        if is_response {
            requests.push(Request {
                check_at: turns.len() - pending,
                upto: turns.len(),
                message: i,
                output,
            });
            // The response joins the history; its function responses wait for the next one.
            pending = converted.iter().filter(|t| t.role == GRole::User).count();
        } else {
            pending += converted.len();
        }
        turns.extend(converted);
    }
    ensure_stable_tool_ids(&mut turns);
    Resumed {
        turns,
        requests,
        messages,
        parts: Vec::new(),
        sized: Default::default(),
    }
}

/// A response's output tokens: its recorded output and thoughts, else an estimate of its
/// content.
fn response_output(msg: &J) -> u64 {
    let tokens = msg.get("tokens").filter(|t| matches!(t, J::Obj(_)));
    match (u64_field(tokens, "output"), u64_field(tokens, "thoughts")) {
        (None, None) => {
            let mut s = Units::default();
            part_to_string(msg.get("content"), &mut s);
            estimate_text(&String::from_utf16_lossy(&s.out))
        }
        (o, t) => o.unwrap_or(0).saturating_add(t.unwrap_or(0)),
    }
}

// ---------------------------------------------------------------------------------------------
// The replay input

fn u64_field(j: Option<&J>, key: &str) -> Option<u64> {
    match j.and_then(|t| t.get(key)) {
        // Recorded counts are held to MAX_TOKENS, as everywhere: the replay's sums cannot
        // overflow on a hostile file.
        Some(J::Num(x)) if x.is_finite() && *x > 0.0 => Some(crate::tokens::cap(*x as u64)),
        _ => None,
    }
}

/// `tokens.input` when the response recorded one (Gemini only updates its count when the API
/// reported a prompt size).
pub fn recorded_input(m: &J) -> Option<u64> {
    u64_field(m.get("tokens").filter(|t| matches!(t, J::Obj(_))), "input")
}

/// `JSON.parse(JSON.stringify(j))` as a `serde_json` value. Well-formed text converts
/// directly; anything else goes through the JSON text, which `serde_json` may refuse (a lone
/// surrogate): the value is then `null`.
pub(super) fn to_value(j: &J) -> serde_json::Value {
    fn direct(j: &J) -> Option<serde_json::Value> {
        use serde_json::Value;
        Some(match j {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            // As JavaScript prints it, read back as serde_json reads that text.
            J::Num(_) => serde_json::from_str(&to_json(j)).ok()?,
            J::Str(JsStr::Text(t)) => Value::String(t.clone()),
            J::Str(_) => return None,
            J::Arr(a) => Value::Array(a.iter().map(direct).collect::<Option<_>>()?),
            J::Obj(o) => {
                let mut map = serde_json::Map::new();
                for (k, v) in o {
                    map.insert(k.to_string(), direct(v)?);
                }
                Value::Object(map)
            }
        })
    }
    direct(j)
        .unwrap_or_else(|| serde_json::from_str(&to_json(j)).unwrap_or(serde_json::Value::Null))
}

fn lossy(j: Option<&J>) -> Option<String> {
    j.and_then(J::as_str).map(JsStr::to_string_lossy)
}

/// A string of a part as text: moved out of the part with `take`, else copied.
fn text(j: Option<&mut J>, take: bool) -> Option<String> {
    match j? {
        J::Str(JsStr::Text(t)) if take => Some(std::mem::take(t)),
        J::Str(s) => Some(s.to_string_lossy()),
        _ => None,
    }
}

/// A function response's output as the unified model holds it: its text, or the size of a
/// result measured and not decoded ([`JsStr::Measured`]).
fn output(j: Option<&mut J>, take: bool) -> (String, Option<crate::model::TextSize>) {
    match j {
        Some(J::Str(JsStr::Measured(size))) => (String::new(), Some(*size)),
        j => (text(j, take).unwrap_or_default(), None),
    }
}

/// A turn's parts in the unified model, for the other algorithms and the `full` series. With
/// `take` the strings are moved out of the turn, which is not used again.
/// What a resumed part becomes in the unified model, decided in [`unified`]'s order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartKind {
    Text,
    Call,
    Response,
    Media,
    Other,
}

fn part_kind(p: &J) -> PartKind {
    if matches!(p.get("text"), Some(J::Str(_))) {
        PartKind::Text
    } else if inner(p, "functionCall").is_some() {
        PartKind::Call
    } else if inner(p, "functionResponse").is_some() {
        PartKind::Response
    } else if inner(p, "inlineData").is_some() {
        PartKind::Media
    } else {
        PartKind::Other
    }
}

fn unified(turn: &mut Turn, take: bool) -> (Vec<Part>, Vec<Option<String>>) {
    let mut parts: Vec<Part> = Vec::with_capacity(turn.parts.len());
    // Names only from the first result on (see `HistoryItem::tool_names`): most turns have
    // none, and are spared the vector.
    let mut names: Vec<Option<String>> = Vec::new();
    for p in &mut turn.parts {
        let (part, name) = match part_kind(p) {
            PartKind::Text => {
                let thought = has_truthy(p, "thought");
                let text = text(p.get_mut("text"), take).unwrap_or_default();
                let part = if thought {
                    Part::Thinking { text }
                } else {
                    Part::Text { text }
                };
                (part, None)
            }
            PartKind::Call => {
                let Some(fc) = p.get_mut("functionCall") else {
                    continue;
                };
                let call = Part::ToolCall {
                    id: text(fc.get_mut("id"), take).unwrap_or_default(),
                    name: text(fc.get_mut("name"), take).unwrap_or_else(|| "unknown".into()),
                    input: fc
                        .get("args")
                        .map(to_value)
                        .unwrap_or(serde_json::Value::Null)
                        .into(),
                };
                (call, None)
            }
            PartKind::Response => {
                let Some(fr) = p.get_mut("functionResponse") else {
                    continue;
                };
                let name = text(fr.get_mut("name"), take);
                let call_id = text(fr.get_mut("id"), take).unwrap_or_default();
                let response = fr.get_mut("response");
                let is_str = |r: &J, k: &str| matches!(r.get(k), Some(J::Str(_)));
                let ((output, output_size), is_error) = match response {
                    Some(r @ J::Str(_)) => (output(Some(r), take), false),
                    Some(r) if is_str(r, "output") => (output(r.get_mut("output"), take), false),
                    Some(r) if is_str(r, "error") => (output(r.get_mut("error"), take), true),
                    Some(r) => ((to_json(r), None), false),
                    None => ((String::new(), None), false),
                };
                let result = Part::ToolResult {
                    call_id,
                    output,
                    is_error,
                    attachments: Vec::new(),
                    output_size,
                };
                (result, name)
            }
            PartKind::Media => {
                let d = p.get("inlineData").unwrap_or(&J::Null);
                let bytes = match d.get("data") {
                    Some(J::Str(JsStr::Text(t))) => crate::parse::base64_decoded_len(t),
                    Some(J::Str(s)) => crate::parse::base64_decoded_len(&s.to_string_lossy()),
                    _ => crate::parse::base64_decoded_len(""),
                };
                let image = Part::Image {
                    media_type: lossy(d.get("mimeType")),
                    bytes: Some(bytes),
                    data: None,
                    url: None,
                };
                // An image right after a tool result is part of it.
                if let Some(Part::ToolResult { attachments, .. }) = parts.last_mut() {
                    attachments.push(image);
                    continue;
                }
                (image, None)
            }
            PartKind::Other => {
                let unknown = Part::Unknown {
                    kind: "gemini_part".into(),
                    raw: to_value(p),
                };
                (unknown, None)
            }
        };
        if name.is_some() && names.is_empty() {
            names.resize(parts.len(), None);
        }
        if !names.is_empty() {
            names.push(name);
        }
        parts.push(part);
    }
    (parts, names)
}

/// The replay input of a Gemini session, built from its file as Gemini resumes it; `None` when
/// the file cannot be read again or Gemini could not load it (the engine then builds the input
/// from the unified model).
pub fn replay_input(s: &Session) -> Option<ReplayInput> {
    if s.agent != Agent::Gemini {
        return None;
    }
    let messages = load_record(&s.path)?;
    Some(input_from(s, resume(messages), Keep::Both))
}

/// The replay input for a session already resumed (tests build `resumed` directly): see
/// [`Keep`] for what it carries.
pub fn input_from(s: &Session, mut resumed: Resumed, keep: Keep) -> ReplayInput {
    let mut turns = std::mem::take(&mut resumed.turns);
    let m = &resumed.messages;
    // One name for each model, shared by the items and requests that name it.
    let mut models = ModelNames::default();
    let mut model_of = |j: Option<&J>| match j.and_then(J::as_str)? {
        // Well-formed text, as a model name is, is looked up without a copy of its own.
        JsStr::Text(t) => Some(models.get(t)),
        other => Some(models.get(&other.to_string_lossy())),
    };
    let items: Vec<HistoryItem> = turns
        .iter_mut()
        .map(|t| {
            // A user turn answering a call is a tool turn. Gemini's algorithm reads the turns:
            // its items need no parts, only the role the parts would give.
            let (parts, tool_names, answers) = match keep {
                Keep::Turns => {
                    let answers = t.parts.iter().any(|p| part_kind(p) == PartKind::Response);
                    (Vec::new(), Vec::new(), answers)
                }
                Keep::Items | Keep::Both => {
                    let (parts, names) = unified(t, keep == Keep::Items);
                    let answers = parts.iter().any(|p| matches!(p, Part::ToolResult { .. }));
                    (parts, names, answers)
                }
            };
            let msg = t.message.map(|i| &m[i]);
            let is_context = t.message.is_none();
            let role = match t.role {
                GRole::Model => Role::Assistant,
                GRole::User if answers => Role::Tool,
                GRole::User => Role::User,
            };
            HistoryItem {
                role,
                is_human: role == Role::User && !is_context,
                timestamp: msg
                    .and_then(|m| m.get("timestamp"))
                    .and_then(J::as_str)
                    .and_then(|t| crate::parse::parse_time_str(&t.to_string_lossy())),
                model: model_of(msg.and_then(|m| m.get("model"))),
                parts,
                tool_names,
                is_context,
            }
        })
        .collect();
    let requests: Vec<RequestPoint> = resumed
        .requests
        .iter()
        .map(|r| {
            let msg = &m[r.message];
            RequestPoint {
                upto: r.upto,
                recorded_prompt: recorded_input(msg),
                output: r.output,
                timestamp: msg
                    .get("timestamp")
                    .and_then(J::as_str)
                    .and_then(|t| crate::parse::parse_time_str(&t.to_string_lossy())),
                model: model_of(msg.get("model")),
                usage: None,
            }
        })
        .collect();
    let recorded_usage = requests.iter().any(|r| r.recorded_prompt.is_some());
    let mut counts: HashMap<&str, usize> = HashMap::default();
    for r in &requests {
        if let Some(model) = r.model.as_deref() {
            *counts.entry(model).or_default() += 1;
        }
    }
    let model = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(m, _)| m.to_string())
        .or_else(|| s.models.last().cloned());
    let recorded_compactions = compactions(s, &resumed);
    ReplayInput {
        agent: s.agent,
        id: s.id.clone(),
        path: s.path.clone(),
        project: s.project.clone(),
        items,
        requests,
        model,
        recorded_window: s.context_window,
        recorded_usage,
        recorded_compactions,
        post_compaction: Vec::new(),
        started_at: s.started_at,
        agent_version: s.agent_version.clone(),
        gemini: (keep != Keep::Items).then(|| {
            // Sized once per setting, the parts are shared rather than copied each time.
            resumed.parts = turns
                .iter_mut()
                .map(|t| {
                    std::mem::take(&mut t.parts)
                        .into_iter()
                        .map(|j| Arc::new(GPart::from_j(j)))
                        .collect()
                })
                .collect();
            resumed.turns = turns;
            Arc::new(resumed)
        }),
        gemini_sized: Default::default(),
        gemini_layout: s.gemini_layout,
    }
}

/// The agent's own compactions, their `request_index` moved onto this input's requests: the
/// number of `gemini` records before the first message after the compaction that the record
/// still holds.
fn compactions(s: &Session, resumed: &Resumed) -> Vec<crate::model::Compaction> {
    let position: HashMap<String, usize> = resumed
        .messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| lossy(m.get("id")).map(|id| (id, i)))
        .collect();
    // Requests before each record message.
    let mut before = Vec::with_capacity(resumed.messages.len() + 1);
    let mut k = 0;
    for m in &resumed.messages {
        before.push(k);
        if string_field(m, "type").is_some_and(|t| t.to_string_lossy() == "gemini") {
            k += 1;
        }
    }
    before.push(k);
    s.compactions
        .iter()
        .filter(|c| !matches!(c.kind, CompactionKind::GeminiMasking))
        .map(|c| {
            let at = s.messages[c.message_index.min(s.messages.len())..]
                .iter()
                .find_map(|m| m.id.as_deref().and_then(|id| position.get(id)))
                .copied()
                .unwrap_or(resumed.messages.len());
            let mut c = c.clone();
            c.request_index = before[at];
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ignore rule read from the start of a text decides as it does from the whole text:
    /// leading JavaScript whitespace of every kind, starts split across parts, labels, lone
    /// surrogates, texts shorter and longer than the longest start.
    #[test]
    fn the_ignore_rule_from_the_start_of_a_text_is_the_rule_from_all_of_it() {
        let wide = |s: &str, lone: u16| {
            let mut u: Vec<u16> = s.encode_utf16().collect();
            u.insert(u.len() / 2, lone);
            J::Str(JsStr::from_units(u))
        };
        let text = |s: &str| J::obj(vec![("text", J::str(s.to_string()))]);
        let spaces = [
            "",
            " ",
            "\n\t",
            "\u{feff}\u{a0}\u{2028}\u{3000}",
            &" ".repeat(40),
        ];
        let bodies = [
            "",
            "/",
            "/compress now",
            "?",
            "<session_context>",
            "<session_context",
            "<session_context>\nlong context follows",
            "<hook_context>x",
            "<hook_context",
            "hello <session_context>",
            "a prompt that is far longer than the longest ignored start, by a wide margin",
        ];
        let mut cases = Vec::new();
        for sp in spaces {
            for b in bodies {
                let whole = format!("{sp}{b}{sp}");
                cases.push(J::str(whole.clone()));
                cases.push(wide(&whole, 0xd800));
                // The same text split over parts at every place.
                let units: Vec<u16> = whole.encode_utf16().collect();
                for at in 0..=units.len() {
                    let (a, b) = units.split_at(at);
                    cases.push(J::Arr(vec![
                        J::Str(JsStr::from_units(a.to_vec())),
                        text(&String::from_utf16_lossy(b)),
                    ]));
                }
                cases.push(J::Arr(vec![
                    J::obj(vec![("thought", J::str(b.to_string()))]),
                    text(&whole),
                ]));
            }
        }
        let mut ignored = 0;
        for c in &cases {
            let mut all = Units::default();
            part_to_string(Some(c), &mut all);
            let expected = is_ignored_user_content(js_trim(&all.out));
            assert_eq!(ignored_user_content(Some(c)), expected, "{c:?}");
            ignored += usize::from(expected);
        }
        // Both answers occur.
        assert!(
            ignored > 0 && ignored < cases.len(),
            "{ignored} of {}",
            cases.len()
        );
    }
}
