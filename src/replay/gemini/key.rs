//! An object key of a [`J`](super::json::J) tree.
//!
//! A session's trees hold the same few dozen keys hundreds of thousands of times (`text`,
//! `functionResponse`, `output`…): the keys Gemini CLI's records and parts use are a static
//! string each, so building a line's tree or a part allocates for no key of that set. Any other
//! key is owned. Both compare, hash and read as the `str` they hold.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

#[derive(Clone)]
pub enum Key {
    Static(&'static str),
    Owned(Box<str>),
}

/// Declares the keys held as static strings, and the lookup from text to them.
macro_rules! known_keys {
    ($($k:literal),* $(,)?) => {
        /// The static string of `s`, when it is one of the keys trees hold that way.
        fn known(s: &str) -> Option<&'static str> {
            match s {
                $($k => Some($k),)*
                _ => None,
            }
        }

        #[cfg(test)]
        pub(super) const KNOWN: &[&str] = &[$($k),*];
    };
}

known_keys![
    // A session file's lines: records, their metadata and `$set` updates.
    "id",
    "timestamp",
    "type",
    "content",
    "displayContent",
    "thoughts",
    "subject",
    "description",
    "tokens",
    "input",
    "output",
    "cached",
    "tool",
    "total",
    "model",
    "toolCalls",
    "sessionId",
    "projectHash",
    "startTime",
    "lastUpdated",
    "kind",
    "summary",
    "directories",
    "$set",
    "$rewindTo",
    "messages",
    // Tool calls.
    "name",
    "args",
    "result",
    "status",
    "resultDisplay",
    "displayName",
    "renderOutputAsMarkdown",
    "callId",
    "error",
    "errorType",
    // Parts of a `Content`.
    "role",
    "parts",
    "text",
    "thought",
    "thoughtSignature",
    "functionCall",
    "functionResponse",
    "response",
    "inlineData",
    "fileData",
    "mimeType",
    "data",
    "fileUri",
    "videoMetadata",
    "executableCode",
    "codeExecutionResult",
    "language",
    "code",
    "outcome",
    // Arguments of the tools sessions call most.
    "command",
    "file_path",
    "absolute_path",
    "path",
    "dir_path",
    "pattern",
    "old_string",
    "new_string",
    "expected_replacements",
    "query",
    "url",
    "prompt",
    "offset",
    "limit",
    "include",
    "paths",
    "todos",
    "is_background",
];

impl Key {
    /// `s` as a key: static when it is a known key, else a copy.
    pub fn new(s: &str) -> Key {
        match known(s) {
            Some(k) => Key::Static(k),
            None => Key::Owned(s.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Key::Static(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl From<String> for Key {
    fn from(s: String) -> Key {
        match known(&s) {
            Some(k) => Key::Static(k),
            None => Key::Owned(s.into_boxed_str()),
        }
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::new(s)
    }
}

impl Deref for Key {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Key {}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_str().hash(h);
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn known_keys_are_static_and_others_owned() {
        for k in KNOWN {
            assert!(matches!(Key::new(k), Key::Static(s) if s == *k), "{k}");
            assert!(matches!(Key::from(k.to_string()), Key::Static(_)), "{k}");
        }
        for k in ["", "Text", "text ", "my_arg", "0", "функция"] {
            assert!(matches!(Key::new(k), Key::Owned(_)), "{k:?}");
            assert!(matches!(Key::from(k.to_string()), Key::Owned(_)), "{k:?}");
        }
    }

    #[test]
    fn a_key_is_the_text_it_holds_however_it_is_held() {
        let (s, o) = (Key::Static("text"), Key::Owned("text".into()));
        assert_eq!(s, o);
        assert_ne!(s, Key::Owned("texts".into()));
        assert!(s == "text" && o == *"text");
        let mut m = HashMap::new();
        m.insert(o, 1);
        assert_eq!(m.get(&s), Some(&1));
        assert_eq!(m.get("text"), Some(&1));
        assert_eq!(format!("{s:?}"), "\"text\"");
    }
}
