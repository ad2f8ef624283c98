//! History items as Gemini `Content` parts, and the v0.54 read-time curation.
//!
//! - user text → `{text}`; images → `{inlineData: {mimeType, data}}` (the base64 data as
//!   [`JsStr::Filler`] of its length: only its size matters);
//! - assistant → role `model`: thinking → `{text, thought: true}`, text → `{text}`, tool calls →
//!   `{functionCall: {name, args}}`;
//! - tool results → a `user` content of `{functionResponse: {id, name, response: {output}}}`
//!   (`{error}` for failed calls), images returned with a result following it as `inlineData`;
//! - unknown blocks that are objects are kept raw (e.g. `fileData`).
//!
//! Since v0.54 (`stripThoughts` then `coalesceConsecutiveRoles` in `getHistoryTurns`), thought
//! parts are dropped, the first `functionCall` of a model turn that had thoughts gets the
//! synthetic `thoughtSignature` when it has none, turns left empty disappear, and consecutive
//! turns of one role merge. Before v0.54 thoughts stay and turns are not merged.

use std::sync::Arc;

use crate::model::{Part, Role};
use crate::replay::HistoryItem;

use super::json::{J, JsStr};
use super::part::GPart;

/// `SYNTHETIC_THOUGHT_SIGNATURE` (`geminiChat.ts`).
pub const SYNTHETIC_THOUGHT_SIGNATURE: &str = "skip_thought_signature_validator";

/// Gemini's two roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GRole {
    User,
    Model,
}

impl GRole {
    pub fn as_str(self) -> &'static str {
        match self {
            GRole::User => "user",
            GRole::Model => "model",
        }
    }
}

fn image(media_type: &Option<String>, bytes: Option<u64>, data: &Option<String>) -> J {
    let len = match (data, bytes) {
        (Some(d), _) => d.len(),
        (None, Some(b)) => (b.div_ceil(3) * 4) as usize,
        (None, None) => 0,
    };
    let mime = media_type.clone().unwrap_or_else(|| "image/png".into());
    J::obj(vec![(
        "inlineData",
        J::obj(vec![
            ("mimeType", J::str(mime)),
            ("data", J::Str(JsStr::Filler(len))),
        ]),
    )])
}

fn raw(v: &serde_json::Value) -> Option<J> {
    v.is_object().then(|| J::from_value(v))
}

/// The parts of one history item, in order; `None` for items Gemini never sends.
pub fn convert(item: &HistoryItem, strip_thoughts: bool) -> Option<(GRole, Vec<J>)> {
    let (role, parts) = convert_shared(item, strip_thoughts)?;
    Some((
        role,
        parts
            .into_iter()
            .map(|p| Arc::unwrap_or_clone(p).into_j())
            .collect(),
    ))
}

/// [`convert`], each part typed and in an `Arc` as the replay's sized history holds it.
pub fn convert_shared(
    item: &HistoryItem,
    strip_thoughts: bool,
) -> Option<(GRole, Vec<Arc<GPart>>)> {
    Converted::of(item.role, item.parts.clone(), &item.tool_names)?.parts(strip_thoughts)
}

/// An image or an unknown object, standing alone or attached to a tool result.
fn media(p: &Part) -> Option<J> {
    match p {
        Part::Image {
            media_type,
            bytes,
            data,
            ..
        } => Some(image(media_type, *bytes, data)),
        Part::Unknown { raw: v, .. } => raw(v),
        _ => None,
    }
}

/// `stripThoughts` on a model turn that had thoughts: the first `functionCall` part gets the
/// synthetic `thoughtSignature` when it has none. A part shared with another form is copied.
pub fn sign_first_call(parts: &mut [Arc<GPart>]) {
    let Some(call) = parts.iter_mut().find(|p| p.is_call()) else {
        return;
    };
    if matches!(&**call, GPart::Tree(j) if j.get("thoughtSignature").is_some_and(J::truthy)) {
        return;
    }
    let part = Arc::make_mut(call);
    let mut j = std::mem::replace(part, GPart::Tree(J::Null)).into_j();
    j.set("thoughtSignature", J::str(SYNTHETIC_THOUGHT_SIGNATURE));
    *part = GPart::from_j(j);
}

/// A history item converted into Gemini parts, thoughts kept (typed, they say they are
/// thoughts): what [`Converted::parts`] strips or not, so that both forms come from one
/// conversion.
#[derive(Debug)]
pub struct Converted {
    role: GRole,
    /// A boxed slice, not a vector: one conversion is held per item of a session.
    parts: Box<[Arc<GPart>]>,
}

impl Converted {
    /// The conversion of an item's `parts` (taken, not copied); `None` for a role Gemini never
    /// sends.
    pub fn of(role: Role, parts: Vec<Part>, tool_names: &[Option<String>]) -> Option<Converted> {
        let role = match role {
            Role::Assistant => GRole::Model,
            Role::User | Role::Tool => GRole::User,
            Role::System => return None,
        };
        let mut out = Vec::with_capacity(parts.len());
        let mut push = |p: GPart| out.push(Arc::new(p));
        // Images and unknown objects are trees, made canonical (an unknown object could have
        // a typed shape).
        let tree = |j: J| GPart::from_j(j);
        for (i, p) in parts.into_iter().enumerate() {
            match p {
                Part::Text { text } => push(GPart::text(text)),
                Part::Thinking { text } => push(GPart::Text {
                    text: text.into(),
                    thought: true,
                }),
                Part::ToolCall { name, input, .. } => {
                    let args = if input.is_null() {
                        J::Obj(Vec::new())
                    } else {
                        J::from_value(input.tree())
                    };
                    push(GPart::Call {
                        name: name.into_boxed_str(),
                        args,
                    });
                }
                Part::ToolResult {
                    call_id,
                    output,
                    is_error,
                    attachments,
                    output_size,
                } => {
                    // Gemini's replay sends the output's text: its session is read whole.
                    debug_assert!(
                        output_size.is_none(),
                        "a measured output in Gemini's replay"
                    );
                    let name = tool_names
                        .get(i)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| "unknown".to_string());
                    if is_error {
                        push(tree(J::obj(vec![(
                            "functionResponse",
                            J::obj(vec![
                                ("id", J::str(call_id)),
                                ("name", J::str(name)),
                                ("response", J::obj(vec![("error", J::str(output))])),
                            ]),
                        )])));
                    } else {
                        push(GPart::Response {
                            id: call_id.into_boxed_str(),
                            name: name.into_boxed_str(),
                            output: output.into(),
                        });
                    }
                    for j in attachments.iter().filter_map(media) {
                        push(tree(j));
                    }
                }
                Part::Compaction { .. } => {}
                other => {
                    if let Some(j) = media(&other) {
                        push(tree(j));
                    }
                }
            }
        }
        Some(Converted {
            role,
            parts: out.into_boxed_slice(),
        })
    }

    /// The parts Gemini sends, thoughts stripped or not; `None` when none are left.
    pub fn parts(&self, strip_thoughts: bool) -> Option<(GRole, Vec<Arc<GPart>>)> {
        Converted {
            role: self.role,
            parts: self.parts.clone(),
        }
        .into_parts(strip_thoughts)
    }

    /// [`Converted::parts`], moved out of the conversion.
    pub fn into_parts(self, strip_thoughts: bool) -> Option<(GRole, Vec<Arc<GPart>>)> {
        let all = self.parts.len();
        let mut parts = self.parts.into_vec();
        if strip_thoughts {
            parts.retain(|p| !p.is_thought());
        }
        if parts.len() < all && self.role == GRole::Model {
            sign_first_call(&mut parts);
        }
        // An empty model response never enters Gemini's history (the stream is retried), and
        // `stripThoughts` drops turns left without parts.
        (!parts.is_empty()).then_some((self.role, parts))
    }
}

/// UTF-16 length of `{"role":"…","parts":[…]}` without the parts and their commas.
pub fn content_overhead(role: GRole) -> u64 {
    match role {
        GRole::User => 26,
        GRole::Model => 27,
    }
}
