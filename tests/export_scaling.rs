//! The Markdown/HTML export does work linear (or n·log n) in the number of messages whatever
//! the session's shape. Timing is not a test on a shared machine; the number of allocations is
//! deterministic, and each quadratic path this guards against allocated on every step of its
//! inner loop (a summary text joined per comparison, the call index copied per sidechain run, a
//! tool name lower-cased per waiting call, a run rendered under every copy of a call id). Each
//! shape is also rendered small and compared with a snapshot: all but the last were recorded
//! from the code before the indexes, which change nothing in their output.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io;
use std::path::Path;

use serde_json::{Value, json};
use sessions::export::markdown::{Env, NoChildren};
use sessions::export::{ExportFormat, ExportOptions, write_session};
use sessions::model::Agent;
use sessions::parse::{FileRole, SourceFile, parse_file};

struct Counting;

thread_local! {
    // Per thread: the test harness runs tests side by side.
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    /// Bytes allocated by this thread and not freed, and the most they reached.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn grow(bytes: i64) {
    let _ = LIVE.try_with(|l| {
        l.set(l.get() + bytes);
        let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
        grow(l.size() as i64);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        grow(-(l.size() as i64));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
        grow(size as i64 - l.size() as i64);
        unsafe { System.realloc(p, l, size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const SID: &str = "5ca1ab1e-0000-4000-8000-000000000001";

fn ts(i: usize) -> String {
    format!(
        "2026-07-01T{:02}:{:02}:{:02}.000Z",
        (i / 3600) % 24,
        (i / 60) % 60,
        i % 60
    )
}

fn record(kind: &str, uuid: &str, parent: Option<&str>, i: usize, side: bool) -> Value {
    json!({"type": kind, "timestamp": ts(i), "parentUuid": parent, "isSidechain": side,
        "userType": "external", "cwd": "/tmp/p", "sessionId": SID, "version": "2.1.0",
        "uuid": uuid})
}

fn user(uuid: &str, parent: Option<&str>, i: usize, side: bool, content: Value) -> Value {
    let mut r = record("user", uuid, parent, i, side);
    r["message"] = json!({"role": "user", "content": content});
    r
}

fn assistant(uuid: &str, parent: &str, i: usize, side: bool, content: Value) -> Value {
    let mut r = record("assistant", uuid, Some(parent), i, side);
    r["requestId"] = json!(format!("req_{uuid}"));
    r["message"] = json!({"id": format!("msg_{uuid}"), "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-20250514", "content": content, "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 5}});
    r
}

fn tool_use(id: &str, name: &str) -> Value {
    json!([{"type": "tool_use", "id": id, "name": name, "input": {"command": "ls"}}])
}

fn tool_result(id: &str) -> Value {
    json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}])
}

/// Unit `i` of the sidechain shapes: a prompt, a call (`call`, `tool`), an inline sidechain
/// run under it whose prompt is `sub`, then the call's result when `answered`. Returns the
/// record the next unit hangs from.
fn run_unit(
    v: &mut Vec<Value>,
    parent: Option<&str>,
    i: usize,
    call: &str,
    tool: &str,
    sub: &str,
    answered: bool,
) -> String {
    let (u, a, s, sa, r) = (
        format!("u{i}"),
        format!("a{i}"),
        format!("s{i}"),
        format!("sa{i}"),
        format!("r{i}"),
    );
    v.push(user(&u, parent, i, false, json!(format!("go {i}"))));
    v.push(assistant(&a, &u, i, false, tool_use(call, tool)));
    v.push(user(&s, Some(&a), i, true, json!(sub)));
    v.push(assistant(&sa, &s, i, true, json!("sub done")));
    if !answered {
        return sa;
    }
    v.push(user(&r, Some(&a), i, false, tool_result(call)));
    r
}

/// The hostile shapes, n units each.
fn shape(name: &str, n: usize) -> Vec<Value> {
    let mut v = Vec::new();
    let mut p: Option<String> = None;
    match name {
        // n compactions, each boundary followed by the summary message that repeats it.
        "compactions" => {
            for i in 0..n {
                let (u, a, b, s) = (
                    format!("u{i}"),
                    format!("a{i}"),
                    format!("cb{i}"),
                    format!("sum{i}"),
                );
                v.push(user(&u, p.as_deref(), 3 * i, false, json!(format!("p{i}"))));
                v.push(assistant(&a, &u, 3 * i + 1, false, json!("r")));
                let mut c = record("system", &b, None, 3 * i + 2, false);
                c["subtype"] = json!("compact_boundary");
                c["logicalParentUuid"] = json!(a);
                c["content"] = json!("Conversation compacted");
                c["compactMetadata"] = json!({"trigger": "auto", "preTokens": 150000});
                v.push(c);
                let text = format!(
                    "This session is being continued from a previous conversation. Summary {i}"
                );
                let mut m = user(&s, Some(&b), 3 * i + 2, false, json!(text));
                m["isCompactSummary"] = json!(true);
                v.push(m);
                p = Some(s);
            }
        }
        // One message with n calls, then one with their n results in reverse order.
        "many-outstanding-calls" => {
            v.push(user("root", None, 0, false, json!("start")));
            let calls: Vec<Value> = (0..n)
                .map(|i| tool_use(&format!("t{i}"), "Bash")[0].clone())
                .collect();
            v.push(assistant("a0", "root", 1, false, json!(calls)));
            let results: Vec<Value> = (0..n)
                .rev()
                .map(|i| tool_result(&format!("t{i}"))[0].clone())
                .collect();
            v.push(user("r0", Some("a0"), 2, false, json!(results)));
            v.push(assistant("a1", "r0", 3, false, json!("done")));
        }
        // n calls with one id (checkpoint copies), each with its result.
        "same-call-id" => {
            for i in 0..n {
                let (u, a, r) = (format!("u{i}"), format!("a{i}"), format!("r{i}"));
                v.push(user(&u, p.as_deref(), 3 * i, false, json!(format!("p{i}"))));
                v.push(assistant(
                    &a,
                    &u,
                    3 * i + 1,
                    false,
                    tool_use("toolu_same", "Read"),
                ));
                v.push(user(
                    &r,
                    Some(&a),
                    3 * i + 2,
                    false,
                    tool_result("toolu_same"),
                ));
                p = Some(r);
            }
        }
        // n × (prompt → Task call → inline sidechain run → result).
        "sidechain-runs" => {
            for i in 0..n {
                let call = format!("t{i}");
                p = Some(run_unit(
                    &mut v,
                    p.as_deref(),
                    i,
                    &call,
                    "Task",
                    "sub task",
                    true,
                ));
            }
        }
        // n × (prompt → a call never answered → inline sidechain run): every run looks for
        // its spawning call among all the calls still waiting.
        "runs-among-waiting-calls" => {
            for i in 0..n {
                let call = format!("t{i}");
                p = Some(run_unit(
                    &mut v,
                    p.as_deref(),
                    i,
                    &call,
                    "Bash",
                    "sub task",
                    false,
                ));
            }
        }
        // n copies of one Task call id (a resumed session repeats its calls), each spawning
        // an inline sidechain run: each run goes under the copy that spawned it, once.
        "runs-under-repeated-call-id" => {
            for i in 0..n {
                let sub = format!("sub task {i}");
                p = Some(run_unit(
                    &mut v,
                    p.as_deref(),
                    i,
                    "toolu_same",
                    "Task",
                    &sub,
                    true,
                ));
            }
        }
        _ => unreachable!("{name}"),
    }
    v
}

const SHAPES: [&str; 6] = [
    "compactions",
    "many-outstanding-calls",
    "same-call-id",
    "sidechain-runs",
    "runs-among-waiting-calls",
    "runs-under-repeated-call-id",
];

fn write_shape(dir: &Path, name: &str, n: usize) -> SourceFile {
    let path = dir.join(format!("{name}-{n}.jsonl"));
    let text: String = shape(name, n).iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).unwrap();
    SourceFile::new(Agent::Claude, path, FileRole::ClaudeMain)
}

fn export(file: &SourceFile, format: ExportFormat, out: &mut dyn io::Write) -> u64 {
    let s = parse_file(file).unwrap();
    let opts = ExportOptions {
        format,
        ..ExportOptions::default()
    };
    let env = Env::new(&opts, &NoChildren, None);
    let before = ALLOCS.with(Cell::get);
    write_session(out, &s, &env).unwrap();
    ALLOCS.with(Cell::get) - before
}

#[test]
fn export_allocations_grow_linearly_with_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = Vec::new();
    let mut quadratic = false;
    for name in SHAPES {
        for format in [ExportFormat::Md, ExportFormat::Html] {
            let (n, m) = (300, 600);
            let small = export(&write_shape(dir.path(), name, n), format, &mut io::sink());
            let large = export(&write_shape(dir.path(), name, m), format, &mut io::sink());
            // Linear work doubles; quadratic work quadruples. The slack covers the growth of
            // the few buffers that double.
            quadratic |= large * 10 > small * 23;
            report.push(format!(
                "{name} ({format:?}): {small} allocations for {n} units, {large} for {m}"
            ));
        }
    }
    assert!(!quadratic, "{}", report.join("\n"));
}

#[test]
fn hostile_shapes_render_as_before() {
    let dir = tempfile::tempdir().unwrap();
    for name in SHAPES {
        let mut md = Vec::new();
        export(&write_shape(dir.path(), name, 3), ExportFormat::Md, &mut md);
        let md = String::from_utf8(md).unwrap();
        // The header names the temporary file and the version; the rest is the rendering.
        let header = md.find("- **Exported by:**").unwrap();
        let body = &md[header + md[header..].find("\n\n").unwrap() + 2..];
        insta::assert_snapshot!(format!("shape_{name}"), body);
    }
}

/// Sub-agent sessions found by a scan, with repeats: each is listed once, in the scan's order.
struct Scanned(Vec<String>);

impl sessions::export::markdown::Children for Scanned {
    fn of(&self, _: &str) -> Vec<String> {
        self.0.clone()
    }
    fn load(&self, _: &str, _: Option<&Path>) -> Option<sessions::model::Session> {
        None
    }
}

#[test]
fn loose_sub_agents_are_listed_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = parse_file(&write_shape(dir.path(), "same-call-id", 1)).unwrap();
    let mut ids: Vec<String> = (0..2000).map(|i| format!("agent-{i:04}")).collect();
    ids.extend((0..2000).rev().map(|i| format!("agent-{i:04}")));
    let opts = ExportOptions::default();
    let scanned = Scanned(ids);
    let env = Env::new(&opts, &scanned, None);
    let mut md = Vec::new();
    write_session(&mut md, &s, &env).unwrap();
    let md = String::from_utf8(md).unwrap();
    let listed: Vec<&str> = md
        .lines()
        .filter_map(|l| l.strip_prefix("**Sub-agent "))
        .map(|l| &l[..l.find("**").unwrap()])
        .collect();
    let want: Vec<String> = (0..2000).map(|i| format!("agent-{i:04}")).collect();
    assert_eq!(listed, want);
}

#[test]
fn html_conversion_streams_its_events() {
    // A Markdown table of 20,000 rows: a few dozen events a row. Collected before writing,
    // they took several times the size of the text.
    let mut md = String::from("| a | b | c |\n|---|---|---|\n");
    for i in 0..20_000 {
        md.push_str(&format!("| {i} | b{i} | c {i} |\n"));
    }
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    let html = sessions::export::html::markdown_to_html(&md);
    let peak = PEAK.with(Cell::get) - live;
    assert!(html.contains("<td>19999</td>"));
    // The parser's tree (some 25 bytes a byte of table) and the page remain: 26 times the
    // Markdown streamed, 64 times collected.
    assert!(
        peak < 40 * md.len() as i64,
        "{peak} bytes at most for {} bytes of Markdown and {} of HTML",
        md.len(),
        html.len()
    );
}
