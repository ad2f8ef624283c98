//! The session generator of `scripts/golden/gemini-e2e/generate.mjs`, ported so the tests
//! rebuild the generated sessions byte for byte (the goldens record each file's sha256) instead
//! of committing megabytes of them. Every random draw happens in the same order as there.

use super::json::{J, JsStr, to_json, to_json_pretty};

pub struct Mulberry32(u32);

impl Mulberry32 {
    pub fn new(seed: u32) -> Self {
        Mulberry32(seed)
    }

    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x6d2b_79f5);
        let s = self.0;
        let mut t = (s ^ (s >> 15)).wrapping_mul(1 | s);
        t = t.wrapping_add((t ^ (t >> 7)).wrapping_mul(61 | t)) ^ t;
        f64::from(t ^ (t >> 14)) / 4_294_967_296.0
    }
}

const WORDS: &[&str] = &[
    "the",
    "file",
    "function",
    "return",
    "const",
    "value",
    "error",
    "path",
    "src/main.rs",
    "Cargo.toml",
    "fn",
    "let",
    "mut",
    "import",
    "export",
    "class",
    "async",
    "await",
    "test",
    "passed",
    "failed",
    "warning",
    "compile",
    "build",
    "index.ts",
    "README.md",
    "line",
    "column",
    "module",
    "config",
    "settings.json",
    "npm",
    "cargo",
    "git",
    "diff",
    "commit",
];
const UNI: &[&str] = &[
    "你好",
    "世界",
    "こんにちは",
    "안녕하세요",
    "😀",
    "🚀",
    "é",
    "ü",
    "—",
    "…",
    "Ω",
    "𝄞",
];
const SPECIAL: &[&str] = &[
    "\"", "\\", "\n", "\t", "\r", "\u{1}", "/", "<", ">", "&", "'",
];
const TOOLS: &[&str] = &[
    "read_file",
    "run_shell_command",
    "run_shell_command",
    "grep_search",
    "write_file",
    "web_fetch",
    "ask_user",
    "my_server__query",
];
const MODELS: &[&str] = &["gemini-2.5-pro", "gemini-3-pro-preview", "gemini-2.5-flash"];

use crate::replay::js::utf16_len as len16;

fn radix(mut n: u64, base: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % base) as usize]);
        n /= base;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII digits")
}

fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .expect("a generated time")
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

fn s(x: impl Into<String>) -> J {
    J::Str(JsStr::Text(x.into()))
}

fn num(x: i64) -> J {
    J::Num(x as f64)
}

pub fn size_class(seed: u32) -> u32 {
    if seed.is_multiple_of(10) {
        2
    } else if seed.is_multiple_of(3) {
        1
    } else {
        0
    }
}

pub fn is_jsonl(seed: u32) -> bool {
    seed % 4 == 1
}

struct Gen {
    rng: Mulberry32,
    seed: i64,
    base_ms: i64,
    clock: i64,
    idn: i64,
    truth: i64,
    big_scale: i64,
    big_chance: f64,
}

impl Gen {
    fn r(&mut self) -> f64 {
        self.rng.next()
    }

    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.r() * (hi - lo + 1) as f64).floor() as i64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.r() < p
    }

    fn pick(&mut self, a: &[&'static str]) -> &'static str {
        a[(self.r() * a.len() as f64).floor() as usize]
    }

    fn ts(&mut self) -> String {
        self.clock += self.int(500, 20000);
        iso(self.base_ms + self.clock)
    }

    fn uuid(&mut self) -> String {
        self.idn += 1;
        let h = format!(
            "{:0>12}",
            radix((self.seed * 1_000_003 + self.idn) as u64, 16)
        );
        format!("00000000-0000-4000-8000-{}", &h[h.len() - 12..])
    }

    fn text(&mut self, units: i64, uni: f64, special: f64) -> String {
        let mut out = String::new();
        let mut n = 0i64;
        while n < units {
            let r = self.r();
            let piece: String = if r < uni {
                self.pick(UNI).to_string()
            } else if r < uni + special {
                self.pick(SPECIAL).to_string()
            } else {
                let w = self.pick(WORDS);
                let nl = self.r() < 0.15;
                format!("{w}{}", if nl { '\n' } else { ' ' })
            };
            n += len16(&piece) as i64;
            out.push_str(&piece);
        }
        out
    }

    fn tok(s: &str) -> i64 {
        (len16(s) as i64 * 2 + 6) / 7
    }

    fn output(&mut self, name: &str) -> String {
        let body = if self.chance(self.big_chance) {
            let units = self.int(800, 2400);
            let block = self.text(units, 0.04, 0.03);
            let target = self.int(self.big_scale >> 1, self.big_scale * 2);
            let n = (target / len16(&block) as i64).max(1);
            block.repeat(n as usize)
        } else {
            let units = self.int(40, 2500);
            self.text(units, 0.06, 0.03)
        };
        if name == "run_shell_command" {
            let cmd = self.text(20, 0.0, 0.0);
            let pgid = self.int(1000, 99999);
            return format!(
                "Command: {cmd}\nDirectory: (root)\nOutput: {body}\nError: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: {pgid}"
            );
        }
        body
    }

    fn args(&mut self, name: &str) -> J {
        match name {
            "run_shell_command" => {
                let u = self.int(5, 60);
                let command = self.text(u, 0.0, 0.0);
                let u = self.int(10, 80);
                let description = self.text(u, 0.05, 0.0);
                J::obj(vec![
                    ("command", s(command)),
                    ("description", s(description)),
                ])
            }
            "read_file" | "write_file" => {
                let a = self.pick(WORDS);
                let b = self.pick(WORDS);
                J::obj(vec![(
                    "file_path",
                    s(format!("/home/user/project/{a}/{b}.rs")),
                )])
            }
            "grep_search" => {
                let p = self.pick(WORDS);
                J::obj(vec![
                    ("pattern", s(p)),
                    ("path", s(".")),
                    ("include", s("*.rs")),
                ])
            }
            _ => {
                let u = self.int(5, 120);
                let query = self.text(u, 0.1, 0.02);
                let limit = self.int(1, 50);
                J::obj(vec![("query", s(query)), ("limit", num(limit))])
            }
        }
    }

    /// A `toolCalls` record; `None` result = `undefined` (no key), `Some(J::Null)` = `null`.
    fn tool_call(&mut self, name: &'static str) -> J {
        let id = if self.chance(0.5) {
            let h = radix((self.seed * 65521 + self.idn * 31 + self.clock) as u64, 16);
            format!("{name}-{}-{h}", self.base_ms + self.clock)
        } else {
            format!(
                "c{}",
                radix((self.seed * 7 + self.clock + self.idn) as u64, 36)
            )
        };
        self.idn += 1;
        let a = self.args(name);
        let r = self.r();
        let mut status = "success";
        let out = self.output(name);
        let fr = |response: J, with_id: bool| {
            let mut e = Vec::new();
            if with_id {
                e.push(("id", s(id.clone())));
            }
            e.push(("name", s(name)));
            e.push(("response", response));
            J::obj(vec![("functionResponse", J::obj(e))])
        };
        let out_obj = |o: &str| J::obj(vec![("output", s(o))]);
        let result: Option<J> = if r < 0.68 {
            Some(J::Arr(vec![fr(out_obj(&out), true)]))
        } else if r < 0.76 {
            status = "error";
            Some(J::Arr(vec![fr(
                J::obj(vec![("error", s(out.clone()))]),
                true,
            )]))
        } else if r < 0.8 {
            let u = self.int(10, 200);
            let err = self.text(u, 0.0, 0.02);
            Some(J::Arr(vec![fr(
                J::obj(vec![("output", s(out.clone())), ("error", s(err))]),
                true,
            )]))
        } else if r < 0.83 {
            Some(s(out.clone()))
        } else if r < 0.86 {
            Some(fr(out_obj(&out), true))
        } else if r < 0.89 {
            let mut matches = Vec::new();
            let mut i = self.int(1, 6);
            while i > 0 {
                let u = self.int(20, 400);
                matches.push(s(self.text(u, 0.05, 0.02)));
                i -= 1;
            }
            let count = matches.len() as i64;
            let truncated = self.chance(0.5);
            Some(J::Arr(vec![fr(
                J::obj(vec![
                    ("matches", J::Arr(matches)),
                    ("count", num(count)),
                    ("truncated", J::Bool(truncated)),
                ]),
                true,
            )]))
        } else if r < 0.92 {
            let k = self.int(10, 400);
            Some(J::Arr(vec![
                fr(out_obj(&out), true),
                J::obj(vec![(
                    "inlineData",
                    J::obj(vec![
                        ("mimeType", s("image/png")),
                        ("data", s("iVBORw0KGgo".repeat(k as usize))),
                    ]),
                )]),
            ]))
        } else if r < 0.96 {
            status = "cancelled";
            if self.chance(0.5) {
                Some(J::Null)
            } else {
                None
            }
        } else {
            Some(J::Arr(vec![fr(out_obj(&out), false)]))
        };
        let no_result = matches!(result, None | Some(J::Null));
        let mut call = vec![
            ("id", s(id.clone())),
            ("name", s(name)),
            ("args", a.clone()),
        ];
        if let Some(r) = result {
            call.push(("result", r));
        }
        call.push(("status", s(status)));
        let t = self.ts();
        call.push(("timestamp", s(t)));
        call.push(("displayName", s(name)));
        call.push(("description", s("")));
        call.push((
            "renderOutputAsMarkdown",
            J::Bool(name != "run_shell_command"),
        ));
        self.truth += 12 + Self::tok(&to_json(&a)) + if no_result { 0 } else { Self::tok(&out) };
        J::obj(call)
    }
}

/// `generateSession(seed)`: the text of the session file.
pub fn generate_session(seed: u32) -> String {
    let size = size_class(seed) as usize;
    let jsonl = is_jsonl(seed);
    let modern = seed % 5 == 2;
    let mut g = Gen {
        rng: Mulberry32::new(seed),
        seed: i64::from(seed),
        base_ms: 1_767_225_600_000 + i64::from(seed) * 86_400_000,
        clock: 0,
        idn: 0,
        truth: 0,
        big_scale: [5000, 16000, 60000][size],
        big_chance: [0.1, 0.12, 0.2][size],
    };
    let turns = [10, 16, 26][size] + g.int(0, 6);
    let max_steps = [3, 4, 5][size];
    let model = MODELS[seed as usize % MODELS.len()];
    let base = 2500 + g.int(0, 3000);
    let session_id = format!(
        "e2e00000-0000-4000-8000-{:0>12}",
        radix(u64::from(seed) + 0x10_0000, 16)
    );
    let project_hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let start_time = iso(g.base_ms);
    let mut messages: Vec<J> = Vec::new();
    let mut lines: Vec<J> = Vec::new();
    let emit = |m: J, messages: &mut Vec<J>, lines: &mut Vec<J>| {
        if jsonl {
            lines.push(m.clone());
        }
        messages.push(m);
    };
    if jsonl {
        lines.push(J::obj(vec![
            ("sessionId", s(session_id.clone())),
            ("projectHash", s(project_hash)),
            ("startTime", s(start_time.clone())),
            ("lastUpdated", s(start_time.clone())),
            ("kind", s("main")),
        ]));
    }
    if modern {
        let t = g.ts();
        let body = g.text(300, 0.0, 0.0);
        let m = J::obj(vec![
            ("id", s("d04923d38bb0f6017037e74183378ef4")),
            ("timestamp", s(t)),
            ("type", s("user")),
            (
                "content",
                J::Arr(vec![J::obj(vec![(
                    "text",
                    s(format!(
                        "<session_context>\nThis is the Gemini CLI. {body}\n</session_context>"
                    )),
                )])]),
            ),
        ]);
        emit(m, &mut messages, &mut lines);
    }
    let text_content = |t: &str| {
        if modern {
            J::Arr(vec![J::obj(vec![("text", s(t))])])
        } else {
            s(t)
        }
    };
    let mut rewound = false;
    for t in 0..turns {
        if g.chance(0.08) {
            let id = g.uuid();
            let ts = g.ts();
            let m = J::obj(vec![
                ("id", s(id)),
                ("timestamp", s(ts)),
                ("type", s("info")),
                ("content", s("Request cancelled.")),
            ]);
            emit(m, &mut messages, &mut lines);
        }
        let r = g.r();
        let slash = if r < 0.06 {
            Some(s("/stats"))
        } else if r < 0.09 {
            Some(s("?"))
        } else if r < 0.11 {
            Some(text_content("  /compress"))
        } else {
            None
        };
        if let Some(content) = slash {
            let id = g.uuid();
            let ts = g.ts();
            let m = J::obj(vec![
                ("id", s(id)),
                ("timestamp", s(ts)),
                ("type", s("user")),
                ("content", content),
            ]);
            emit(m, &mut messages, &mut lines);
        }
        let u = g.int(20, 600);
        let text = g.text(u, 0.05, 0.02);
        let user_id = g.uuid();
        let ts = g.ts();
        let m = J::obj(vec![
            ("id", s(user_id.clone())),
            ("timestamp", s(ts)),
            ("type", s("user")),
            ("content", text_content(&text)),
        ]);
        emit(m, &mut messages, &mut lines);
        g.truth += Gen::tok(&text);
        let steps = g.int(0, max_steps);
        for st in 0..=steps {
            let last = st == steps;
            let mut thoughts: Vec<(String, String, String)> = Vec::new();
            if g.chance(0.7) {
                let mut i = g.int(1, 3);
                while i > 0 {
                    let subject = if g.chance(0.8) {
                        let u = g.int(5, 40);
                        g.text(u, 0.0, 0.0)
                    } else {
                        String::new()
                    };
                    let description = if g.chance(0.9) {
                        let u = g.int(20, 400);
                        g.text(u, 0.03, 0.0)
                    } else {
                        String::new()
                    };
                    let ts = g.ts();
                    thoughts.push((subject, description, ts));
                    i -= 1;
                }
            }
            let reply = if last {
                let u = g.int(30, 1200);
                g.text(u, 0.05, 0.02)
            } else if g.chance(0.5) {
                String::new()
            } else {
                let u = g.int(10, 200);
                g.text(u, 0.03, 0.0)
            };
            let mut calls: Vec<J> = Vec::new();
            if !last {
                let mut i = g.int(1, 3);
                while i > 0 {
                    let name = g.pick(TOOLS);
                    calls.push(g.tool_call(name));
                    i -= 1;
                }
            }
            let input = base + g.truth;
            let out = Gen::tok(&reply) + 5;
            let tr = if g.chance(0.6) { g.int(0, 900) } else { 0 };
            let u = g.r();
            let tokens: Option<J> = if u < 0.9 {
                let cached = if g.chance(0.5) { g.int(0, input) } else { 0 };
                Some(J::obj(vec![
                    ("input", num(input)),
                    ("output", num(out)),
                    ("cached", num(cached)),
                    ("thoughts", num(tr)),
                    ("tool", num(0)),
                    ("total", num(input + out + tr)),
                ]))
            } else if u < 0.95 {
                Some(J::Null)
            } else {
                None
            };
            let id = g.uuid();
            let ts = g.ts();
            let content = if modern {
                let mut parts = Vec::new();
                for (_, d, _) in &thoughts {
                    let mut p = vec![("text", s(d.as_str())), ("thought", J::Bool(true))];
                    if g.chance(0.5) {
                        p.push((
                            "thoughtSignature",
                            s(format!("sig{}", g.int(100000, 999999))),
                        ));
                    }
                    parts.push(J::obj(p));
                }
                if !reply.is_empty() || g.chance(0.2) {
                    parts.push(J::obj(vec![("text", s(reply.as_str()))]));
                }
                for c in &calls {
                    let mut fc = vec![
                        ("name", c.get("name").cloned().expect("name")),
                        ("args", c.get("args").cloned().expect("args")),
                    ];
                    if g.chance(0.7) {
                        fc.push(("id", c.get("id").cloned().expect("id")));
                    }
                    parts.push(J::obj(vec![("functionCall", J::obj(fc))]));
                }
                J::Arr(parts)
            } else {
                s(reply.as_str())
            };
            let thoughts_j = J::Arr(
                thoughts
                    .iter()
                    .map(|(sub, d, ts)| {
                        J::obj(vec![
                            ("subject", s(sub.as_str())),
                            ("description", s(d.as_str())),
                            ("timestamp", s(ts.as_str())),
                        ])
                    })
                    .collect(),
            );
            let mut msg = vec![
                ("id", s(id.clone())),
                ("timestamp", s(ts.clone())),
                ("type", s("gemini")),
                ("content", content.clone()),
                ("thoughts", thoughts_j),
            ];
            if let Some(t) = tokens {
                msg.push(("tokens", t));
            }
            msg.push(("model", s(model)));
            if !calls.is_empty() {
                msg.push(("toolCalls", J::Arr(calls.clone())));
            }
            g.truth += Gen::tok(&reply);
            if jsonl {
                lines.push(J::obj(vec![
                    ("id", s(id.clone())),
                    ("timestamp", s(ts.clone())),
                    ("type", s("gemini")),
                    ("content", content),
                    ("thoughts", J::Arr(Vec::new())),
                    ("model", s(model)),
                ]));
                lines.push(J::obj(vec![(
                    "$set",
                    J::obj(vec![("lastUpdated", s(ts.clone()))]),
                )]));
            }
            emit(J::obj(msg), &mut messages, &mut lines);
            let results: Vec<J> = calls
                .iter()
                .filter_map(|c| match c.get("result") {
                    Some(J::Arr(a)) => Some(a.clone()),
                    _ => None,
                })
                .flatten()
                .collect();
            if modern
                && calls
                    .iter()
                    .any(|c| matches!(c.get("result"), Some(J::Arr(_))))
            {
                let id = g.uuid();
                let ts = g.ts();
                let m = J::obj(vec![
                    ("id", s(id)),
                    ("timestamp", s(ts)),
                    ("type", s("user")),
                    ("content", J::Arr(results)),
                ]);
                emit(m, &mut messages, &mut lines);
            }
        }
        if jsonl && !rewound && t > 2 && g.chance(0.15) {
            rewound = true;
            lines.push(J::obj(vec![("$rewindTo", s(user_id.clone()))]));
            let idx = messages
                .iter()
                .position(|m| {
                    m.get("id")
                        .and_then(J::as_str)
                        .map(JsStr::to_string_lossy)
                        .as_deref()
                        == Some(user_id.as_str())
                })
                .expect("the prompt is recorded");
            messages.truncate(idx);
            let u = g.int(20, 300);
            let again = g.text(u, 0.05, 0.02);
            let id = g.uuid();
            let ts = g.ts();
            emit(
                J::obj(vec![
                    ("id", s(id)),
                    ("timestamp", s(ts)),
                    ("type", s("user")),
                    ("content", s(again)),
                ]),
                &mut messages,
                &mut lines,
            );
            let id = g.uuid();
            let ts = g.ts();
            let u = g.int(30, 600);
            let body = g.text(u, 0.0, 0.0);
            emit(
                J::obj(vec![
                    ("id", s(id)),
                    ("timestamp", s(ts)),
                    ("type", s("gemini")),
                    ("content", s(body)),
                    ("thoughts", J::Arr(Vec::new())),
                    ("model", s(model)),
                ]),
                &mut messages,
                &mut lines,
            );
        }
        if jsonl && g.chance(0.05) {
            let copy = messages
                .iter()
                .map(|m| {
                    J::obj(vec![
                        ("id", m.get("id").cloned().expect("id")),
                        ("timestamp", m.get("timestamp").cloned().expect("timestamp")),
                        ("type", m.get("type").cloned().expect("type")),
                        ("content", m.get("content").cloned().expect("content")),
                    ])
                })
                .collect();
            lines.push(J::obj(vec![(
                "$set",
                J::obj(vec![("messages", J::Arr(copy))]),
            )]));
        }
    }
    if jsonl {
        let mut out: String = lines.iter().map(to_json).collect::<Vec<_>>().join("\n");
        out.push('\n');
        return out;
    }
    let record = J::obj(vec![
        ("sessionId", s(session_id)),
        ("projectHash", s(project_hash)),
        ("startTime", s(start_time)),
        ("lastUpdated", s(iso(g.base_ms + g.clock))),
        ("messages", J::Arr(messages)),
    ]);
    to_json_pretty(&record)
}
