//! A Gemini part as the replay holds it: the three shapes nearly every part has typed, any
//! other part as its [`J`] tree.
//!
//! A long session holds a part per text, call and tool output, each sized once and kept for
//! the whole replay. As a tree, a function response is four objects of key-value entries (the
//! part, `functionResponse`, `response`, and the `Arc` around it); typed, it is one allocation
//! beside its strings. The typed forms are exactly the trees [`GPart::from_j`] recognises, and
//! every part is built through it or as one of those shapes, so a part has one form and parts
//! compare by value. Whatever reads a part as JavaScript would (truncation and masking rewrite
//! function responses, a compression sends the history) gets its tree, [`GPart::to_j`]; what
//! every request asks (the sizes, whether a part is a response, a thought, a masking candidate)
//! is answered from the typed form, and checked against the tree's answer in debug builds.

use super::estimate::{Est, Estimator, PartSizes, part_sizes, text_est_of};
use super::json::{J, JsStr, Key, json_len, write_compact};
use crate::replay::js::text_stats;

#[derive(Debug, Clone, PartialEq)]
pub enum GPart {
    /// `{text}`, or `{text, thought: true}` when `thought`.
    Text { text: JsStr, thought: bool },
    /// `{functionCall: {name, args}}`.
    Call { name: Box<str>, args: J },
    /// `{functionResponse: {id, name, response: {output}}}`.
    Response {
        id: Box<str>,
        name: Box<str>,
        output: JsStr,
    },
    /// Any other part.
    Tree(J),
}

/// `JSON.stringify` length of an object of the given keys (ASCII, none escaped) and value
/// lengths.
fn obj_len(entries: &[(&str, u64)]) -> u64 {
    let inner: u64 = entries.iter().map(|(k, v)| k.len() as u64 + 3 + v).sum();
    2 + inner + (entries.len() as u64).saturating_sub(1)
}

/// `JSON.stringify(s).length` of well-formed text.
fn str_len(s: &str) -> u64 {
    text_stats(s).escaped + 2
}

impl GPart {
    /// `{text}`.
    pub fn text(text: impl Into<JsStr>) -> GPart {
        GPart::Text {
            text: text.into(),
            thought: false,
        }
    }

    /// The part of tree `j`: typed when it has one of the typed shapes exactly (keys in that
    /// order, no other key, strings where the shape has them), its strings moved, not copied.
    pub fn from_j(j: J) -> GPart {
        #[cfg(debug_assertions)]
        let original = j.clone();
        let J::Obj(mut entries) = j else {
            return GPart::Tree(j);
        };
        let part = match typed(&mut entries) {
            Some(p) => p,
            None => GPart::Tree(J::Obj(entries)),
        };
        #[cfg(debug_assertions)]
        debug_assert_eq!(part.to_j(), original, "a typed part is its tree");
        part
    }

    /// The part as a tree (its strings copied).
    pub fn to_j(&self) -> J {
        match self {
            GPart::Tree(j) => j.clone(),
            typed => typed.clone().into_j(),
        }
    }

    /// The part as a tree, its strings moved.
    pub fn into_j(self) -> J {
        let text = |s: Box<str>| J::Str(JsStr::Text(s.into_string()));
        match self {
            GPart::Text { text, thought } => {
                let mut e = vec![("text", J::Str(text))];
                if thought {
                    e.push(("thought", J::Bool(true)));
                }
                J::obj(e)
            }
            GPart::Call { name, args } => J::obj(vec![(
                "functionCall",
                J::obj(vec![("name", text(name)), ("args", args)]),
            )]),
            GPart::Response { id, name, output } => J::obj(vec![(
                "functionResponse",
                J::obj(vec![
                    ("id", text(id)),
                    ("name", text(name)),
                    ("response", J::obj(vec![("output", J::Str(output))])),
                ]),
            )]),
            GPart::Tree(j) => j,
        }
    }

    /// JavaScript truthiness of the part (a typed part is an object).
    pub fn truthy(&self) -> bool {
        match self {
            GPart::Tree(j) => j.truthy(),
            _ => true,
        }
    }

    /// `part.text` when it is a string.
    pub fn text_str(&self) -> Option<&JsStr> {
        match self {
            GPart::Text { text, .. } => Some(text),
            GPart::Tree(j) => j.get("text").and_then(J::as_str),
            _ => None,
        }
    }

    /// A truthy `part.thought`.
    pub fn is_thought(&self) -> bool {
        match self {
            GPart::Text { thought, .. } => *thought,
            GPart::Tree(j) => j.get("thought").is_some_and(J::truthy),
            _ => false,
        }
    }

    /// A truthy `part.functionCall`.
    pub fn is_call(&self) -> bool {
        match self {
            GPart::Call { .. } => true,
            GPart::Tree(j) => j.get("functionCall").is_some_and(J::truthy),
            _ => false,
        }
    }

    /// A truthy `part.functionResponse`.
    pub fn is_response(&self) -> bool {
        match self {
            GPart::Response { .. } => true,
            GPart::Tree(j) => j.get("functionResponse").is_some_and(J::truthy),
            _ => false,
        }
    }

    /// A part of a model turn that `extractCuratedHistory` finds invalid: an empty object, or
    /// an empty text that is not a thought with no key but `text`, `thought` and `callIndex`.
    pub fn invalid_in_model(&self) -> bool {
        match self {
            GPart::Text { text, thought } => !thought && text.is_empty(),
            GPart::Call { .. } | GPart::Response { .. } => false,
            GPart::Tree(j @ J::Obj(e)) => {
                e.is_empty()
                    || (!j.get("thought").is_some_and(J::truthy)
                        && matches!(j.get("text"), Some(J::Str(t)) if t.is_empty())
                        && e.iter()
                            .all(|(k, _)| matches!(k.as_str(), "text" | "thought" | "callIndex")))
            }
            GPart::Tree(_) => false,
        }
    }

    /// A function response whose response is `{output}` with a string and nothing else, alone
    /// in its part: truncating it at a `maxChars` it fits in changes nothing.
    pub fn is_plain_output(&self) -> bool {
        match self {
            GPart::Response { .. } => true,
            GPart::Tree(j) => {
                let fr = j.get("functionResponse");
                matches!(j, J::Obj(e) if e.len() == 1)
                    && matches!(fr.and_then(|f| f.get("response")), Some(J::Obj(r)) if r.len() == 1 && r[0].0 == "output" && matches!(r[0].1, J::Str(_)))
            }
            _ => false,
        }
    }

    /// `JSON.stringify(part)` appended to `out`.
    pub fn write_compact(&self, out: &mut String) {
        match self {
            GPart::Tree(j) => write_compact(out, j),
            other => write_compact(out, &other.to_j()),
        }
    }

    /// [`part_sizes`] of the part's tree.
    pub fn sizes(&self, w: Estimator) -> PartSizes {
        let sizes = match self {
            GPart::Text { text, thought } => {
                let st = text.stats();
                let text = ("text", st.escaped + 2);
                let json = if *thought {
                    obj_len(&[text, ("thought", 4)])
                } else {
                    obj_len(&[text])
                };
                PartSizes {
                    json,
                    est: text_est_of(st, w),
                    measured: None,
                }
            }
            GPart::Call { name, args } => {
                let call = obj_len(&[("name", str_len(name)), ("args", json_len(args))]);
                let json = obj_len(&[("functionCall", call)]);
                PartSizes {
                    json,
                    est: Est::quarters(json),
                    measured: None,
                }
            }
            GPart::Response { id, name, output } => {
                let st = output.stats();
                let response = obj_len(&[("output", st.escaped + 2)]);
                let fr = obj_len(&[
                    ("id", str_len(id)),
                    ("name", str_len(name)),
                    ("response", response),
                ]);
                let json = obj_len(&[("functionResponse", fr)]);
                let est = if w.function_response_estimate {
                    Est::quarters(text_stats(name).units + response)
                } else {
                    Est::quarters(json)
                };
                PartSizes {
                    json,
                    est,
                    measured: Some(st),
                }
            }
            GPart::Tree(j) => return part_sizes(j, w),
        };
        debug_assert_eq!(sizes, part_sizes(&self.to_j(), w), "{self:?}");
        sizes
    }

    /// The part's own contribution to the estimate.
    pub fn est(&self, w: Estimator) -> Est {
        self.sizes(w).est
    }
}

/// The typed part of an object's entries, when they have one of the typed shapes; its strings
/// are taken (the entries are dropped afterwards).
fn typed(e: &mut [(Key, J)]) -> Option<GPart> {
    let take = std::mem::take::<JsStr>;
    match e {
        [(k, J::Str(text))] if *k == "text" => Some(GPart::Text {
            text: take(text),
            thought: false,
        }),
        [(k, J::Str(text)), (t, J::Bool(true))] if *k == "text" && *t == "thought" => {
            Some(GPart::Text {
                text: take(text),
                thought: true,
            })
        }
        [(k, J::Obj(call))] if *k == "functionCall" => match call.as_mut_slice() {
            [(n, J::Str(JsStr::Text(name))), (a, args)] if *n == "name" && *a == "args" => {
                Some(GPart::Call {
                    name: std::mem::take(name).into_boxed_str(),
                    args: std::mem::take(args),
                })
            }
            _ => None,
        },
        [(k, J::Obj(fr))] if *k == "functionResponse" => match fr.as_mut_slice() {
            [
                (i, J::Str(JsStr::Text(id))),
                (n, J::Str(JsStr::Text(name))),
                (r, J::Obj(response)),
            ] if *i == "id" && *n == "name" && *r == "response" => match response.as_mut_slice() {
                [(o, J::Str(output))] if *o == "output" => Some(GPart::Response {
                    id: std::mem::take(id).into_boxed_str(),
                    name: std::mem::take(name).into_boxed_str(),
                    output: take(output),
                }),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::gemini::estimate::Estimator;

    fn j(text: &str) -> J {
        serde_json::from_str(text).unwrap()
    }

    fn estimators() -> Vec<Estimator> {
        let mut out = Vec::new();
        for bits in 0..64u32 {
            let b = |k: u32| bits & (1 << k) != 0;
            out.push(Estimator {
                non_ascii_weight: if b(0) { 1.3 } else { 1.5 },
                image_estimate: b(1),
                pdf_estimate: b(2),
                long_text_fast_path: b(3),
                astral_counts_once: b(4),
                function_response_estimate: b(5),
            });
        }
        out
    }

    #[test]
    fn the_typed_shapes_are_recognised_and_nothing_else() {
        let typed = [
            r#"{"text":"héllo \"x\"\n🙂"}"#,
            r#"{"text":"","thought":true}"#,
            r#"{"functionCall":{"name":"run_shell_command","args":{"command":"ls","n":[1,2.5,null]}}}"#,
            r#"{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"a\u0001b"}}}"#,
        ];
        for t in typed {
            let p = GPart::from_j(j(t));
            assert!(!matches!(p, GPart::Tree(_)), "{t}");
            assert_eq!(p.to_j(), j(t), "{t}");
        }
        let trees = [
            r#"{"text":"x","thought":false}"#,
            r#"{"thought":true,"text":"x"}"#,
            r#"{"text":1}"#,
            r#"{"text":"x","callIndex":0}"#,
            r#"{"functionCall":{"id":"c","name":"n","args":{}}}"#,
            r#"{"functionCall":{"name":"n"}}"#,
            r#"{"functionResponse":{"id":null,"name":"n","response":{"output":"o"}}}"#,
            r#"{"functionResponse":{"id":"c","name":"n","response":{"error":"e"}}}"#,
            r#"{"functionResponse":{"id":"c","name":"n","response":{"output":"o","x":1}}}"#,
            r#"{"functionResponse":{"name":"n","id":"c","response":{"output":"o"}}}"#,
            r#"{"functionCall":{"name":"n","args":{}},"thoughtSignature":"s"}"#,
            r#"{"inlineData":{"mimeType":"image/png","data":"AAAA"}}"#,
            r#"{}"#,
            r#""text""#,
        ];
        for t in trees {
            assert_eq!(GPart::from_j(j(t)), GPart::Tree(j(t)), "{t}");
        }
    }

    #[test]
    fn typed_sizes_and_predicates_are_the_trees() {
        let parts = [
            r#"{"text":"plain ascii"}"#,
            r#"{"text":"héllo \"x\"\n\u0007 🙂 \u2028"}"#,
            r#"{"text":"<state_snapshot>","thought":true}"#,
            r#"{"text":""}"#,
            r#"{"functionCall":{"name":"wr\"ite","args":{"content":"é\n","b":true}}}"#,
            r#"{"functionCall":{"name":"n","args":null}}"#,
            r#"{"functionResponse":{"id":"c\"1","name":"réad","response":{"output":"x\ty 🙂"}}}"#,
            r#"{"functionResponse":{"id":"","name":"","response":{"output":""}}}"#,
        ];
        for t in parts {
            let tree = j(t);
            let p = GPart::from_j(tree.clone());
            assert!(!matches!(p, GPart::Tree(_)), "{t}");
            for w in estimators() {
                assert_eq!(p.sizes(w), part_sizes(&tree, w), "{t} {w:?}");
            }
            assert_eq!(
                p.is_response(),
                tree.get("functionResponse").is_some(),
                "{t}"
            );
            assert_eq!(p.is_call(), tree.get("functionCall").is_some(), "{t}");
            assert_eq!(
                p.is_thought(),
                tree.get("thought").is_some_and(J::truthy),
                "{t}"
            );
            assert_eq!(p.text_str(), tree.get("text").and_then(J::as_str), "{t}");
            assert_eq!(
                p.invalid_in_model(),
                GPart::Tree(tree.clone()).invalid_in_model(),
                "{t}"
            );
            assert_eq!(
                p.is_plain_output(),
                GPart::Tree(tree.clone()).is_plain_output(),
                "{t}"
            );
            let (mut a, mut b) = (String::new(), String::new());
            p.write_compact(&mut a);
            write_compact(&mut b, &tree);
            assert_eq!(a, b, "{t}");
        }
    }
}
