//! A tool call's arguments, held in a compact tree, and the walk that JSON sizes share between
//! it and `serde_json::Value`.
//!
//! A session keeps every tool call's arguments for as long as it lives. As a `Value`, each
//! object is a `BTreeMap` whose first node takes 632 bytes whatever its size, and each key a
//! `String` of its own: a one-key argument object cost about 700 bytes, where its JSON is often
//! 30. Here an object is one boxed slice of its entries, in the order serde_json's map keeps
//! them (by key), so the tree writes, walks and compares exactly as the `Value` it was made
//! from.

use std::fmt;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Number, Value};

/// Arguments as recorded: an object most often, a raw string when the agent stored something
/// that is not JSON, `null` when there were none.
#[derive(Clone, PartialEq, Default)]
pub struct ToolInput(Node);

#[derive(Clone, PartialEq, Default)]
enum Node {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Box<str>),
    Array(Box<[Node]>),
    /// Unique keys, in the order of the `Value`'s map they came from.
    Object(Box<[(Box<str>, Node)]>),
}

impl From<Value> for Node {
    fn from(v: Value) -> Node {
        match v {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(b),
            Value::Number(n) => Node::Number(n),
            Value::String(s) => Node::String(s.into_boxed_str()),
            Value::Array(a) => Node::Array(a.into_iter().map(Node::from).collect()),
            Value::Object(o) => Node::Object(
                o.into_iter()
                    .map(|(k, v)| (k.into_boxed_str(), Node::from(v)))
                    .collect(),
            ),
        }
    }
}

impl Node {
    /// A copy of `v`, for a tree that is read, not taken.
    fn copied<T: JsonTree + ?Sized>(v: &T) -> Node {
        match v.shape() {
            JsonShape::Null => Node::Null,
            JsonShape::Bool(b) => Node::Bool(b),
            JsonShape::Number(n) => Node::Number(n.clone()),
            JsonShape::Str(s) => Node::String(s.into()),
            JsonShape::Array(n) => {
                let mut a = Vec::with_capacity(n);
                v.each_child(&mut |_, x| a.push(Node::copied(x)));
                Node::Array(a.into_boxed_slice())
            }
            JsonShape::Object(n) => {
                let mut o = Vec::with_capacity(n);
                v.each_child(&mut |k, x| o.push((k.unwrap_or_default().into(), Node::copied(x))));
                Node::Object(o.into_boxed_slice())
            }
        }
    }

    fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.to_string()),
            Node::Array(a) => Value::Array(a.iter().map(Node::to_value).collect()),
            Node::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }

    /// Bytes the tree holds beyond the node itself.
    fn held_bytes(&self) -> usize {
        match self {
            Node::String(s) => s.len(),
            Node::Array(a) => a
                .iter()
                .map(|x| std::mem::size_of::<Node>() + x.held_bytes())
                .sum(),
            Node::Object(o) => o
                .iter()
                .map(|(k, x)| std::mem::size_of::<(Box<str>, Node)>() + k.len() + x.held_bytes())
                .sum(),
            _ => 0,
        }
    }
}

impl ToolInput {
    /// The arguments as a `serde_json::Value` (built anew: for code that reads a `Value`).
    pub fn to_value(&self) -> Value {
        self.0.to_value()
    }

    pub fn is_null(&self) -> bool {
        matches!(self.0, Node::Null)
    }

    /// The raw string an agent stored in place of JSON arguments.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    /// The string at `key` of an object.
    pub fn str_at(&self, key: &str) -> Option<&str> {
        match &self.0 {
            Node::Object(o) => o
                .iter()
                .find(|(k, _)| &**k == key)
                .and_then(|(_, v)| match v {
                    Node::String(s) => Some(&**s),
                    _ => None,
                }),
            _ => None,
        }
    }

    /// About how many bytes the arguments hold in memory (allocator rounding not counted).
    pub fn held_bytes(&self) -> usize {
        self.0.held_bytes()
    }

    /// The tree the sizing walks read ([`JsonTree`]).
    pub fn tree(&self) -> &impl JsonTree {
        &self.0
    }
}

impl From<Value> for ToolInput {
    fn from(v: Value) -> ToolInput {
        ToolInput(Node::from(v))
    }
}

/// A copy of a value that stays where it is.
impl From<&Value> for ToolInput {
    fn from(v: &Value) -> ToolInput {
        ToolInput(Node::copied(v))
    }
}

/// Written as the `Value` it was made from would be.
impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Null => s.serialize_unit(),
            Node::Bool(b) => s.serialize_bool(*b),
            Node::Number(n) => n.serialize(s),
            Node::String(x) => s.serialize_str(x),
            Node::Array(a) => s.collect_seq(a.iter()),
            Node::Object(o) => {
                let mut m = s.serialize_map(Some(o.len()))?;
                for (k, v) in o.iter() {
                    m.serialize_entry(&**k, v)?;
                }
                m.end()
            }
        }
    }
}

impl Serialize for ToolInput {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(ToolInput::from)
    }
}

impl fmt::Debug for ToolInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_value(), f)
    }
}

/// What a walk over a JSON tree sees of one node.
pub enum JsonShape<'a> {
    Null,
    Bool(bool),
    Number(&'a Number),
    Str(&'a str),
    /// Its elements (how many) are visited by [`JsonTree::each_child`].
    Array(usize),
    /// Its entries (how many) are visited by [`JsonTree::each_child`], with their keys.
    Object(usize),
}

/// A JSON tree the sizing walks read: `serde_json::Value` and [`ToolInput`] alike.
pub trait JsonTree {
    fn shape(&self) -> JsonShape<'_>;
    /// An array's elements (no key) or an object's entries, in order; nothing for a scalar.
    fn each_child(&self, f: &mut dyn FnMut(Option<&str>, &Self));
}

impl JsonTree for Value {
    fn shape(&self) -> JsonShape<'_> {
        match self {
            Value::Null => JsonShape::Null,
            Value::Bool(b) => JsonShape::Bool(*b),
            Value::Number(n) => JsonShape::Number(n),
            Value::String(s) => JsonShape::Str(s),
            Value::Array(a) => JsonShape::Array(a.len()),
            Value::Object(o) => JsonShape::Object(o.len()),
        }
    }

    fn each_child(&self, f: &mut dyn FnMut(Option<&str>, &Self)) {
        match self {
            Value::Array(a) => a.iter().for_each(|x| f(None, x)),
            Value::Object(o) => o.iter().for_each(|(k, x)| f(Some(k), x)),
            _ => {}
        }
    }
}

impl JsonTree for Node {
    fn shape(&self) -> JsonShape<'_> {
        match self {
            Node::Null => JsonShape::Null,
            Node::Bool(b) => JsonShape::Bool(*b),
            Node::Number(n) => JsonShape::Number(n),
            Node::String(s) => JsonShape::Str(s),
            Node::Array(a) => JsonShape::Array(a.len()),
            Node::Object(o) => JsonShape::Object(o.len()),
        }
    }

    fn each_child(&self, f: &mut dyn FnMut(Option<&str>, &Self)) {
        match self {
            Node::Array(a) => a.iter().for_each(|x| f(None, x)),
            Node::Object(o) => o.iter().for_each(|(k, x)| f(Some(k), x)),
            _ => {}
        }
    }
}
