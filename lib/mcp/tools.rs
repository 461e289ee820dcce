//! The tools `cds-mcp` serves: their definitions (`tools/list`) and calls (`tools/call`).
//!
//! * `cds_search`, `cds_traverse`, `cds_retrieve`, `cds_locate`: cds-search, cds-trav, cds-get
//!   and cds-loc, with input schemas that mirror the tools' flags, text as the tools print it,
//!   and the records of their `--json` output as structured content;
//! * `search_code_snippets`, `get_entity_contents`, `explore_tree_structure`: LocAgent's tools
//!   ([`crate::locagent`]) with LocAgent's parameter schemas and descriptions (from its
//!   `util/runtime/{content,structure}_tools.py`) and its output text.
//!
//! Every call is checked before it runs: an argument of the wrong type, an unknown argument, a
//! value out of range or an ID that names nothing is a tool error (`isError: true`) whose text
//! says what to change. Every result is bounded by a [`Budget`]: the text is cut at a line
//! boundary with a note saying how to narrow the call, and the structured content's list is
//! shortened to fit too (`"truncated": true`).

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use crate::cli::Out;
use crate::get::{Code, Resolver, Target, View};
use crate::graph::{Mode, NodeKind};
use crate::index::Index;
use crate::locagent;
use crate::search::cli as search_cli;
use crate::search::{query, rank};
use crate::trav::{self, Direction, Walk};

/// The default character budget of one result (about 10k tokens).
pub const DEFAULT_MAX_CHARS: usize = 40_000;

/// How much one tool result may hold.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Most characters of text; the structured content is held to the same size.
    pub max_chars: usize,
}

impl Budget {
    /// A budget of `max_chars` characters (at least 1,000, so the notes fit).
    pub fn new(max_chars: usize) -> Budget {
        Budget { max_chars: max_chars.max(1000) }
    }
}

/// A tool's answer before the budget: text and structured content, or a tool error.
type Answer = Result<(String, Value), String>;

/// One tool: name, description, schemas, what to say when its output is cut, and its code.
struct Def {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: fn() -> Value,
    output: fn() -> Value,
    narrow: &'static str,
    run: fn(&Index, &Map<String, Value>, &Budget) -> Answer,
}

const TOOLS: &[Def] = &[
    Def {
        name: "cds_search",
        title: "Search code entities",
        description: "Find the classes, functions, files and directories a name, a phrase or a \
whole issue is about, best first: exact ID or path, qualified name (QuerySet.filter), exact name, \
words joined into an identifier, prefix, fuzzy name, then BM25 over code. Each hit is one line: \
ID, kind, lines, signature, score and the strongest reason. IDs are path/to/file.py:Class.method \
and feed cds_retrieve and cds_traverse. Tests are left out unless tests is true.",
        input: search_schema,
        output: search_output,
        narrow: "lower limit, add type or glob filters, or use view \"line\"",
        run: search,
    },
    Def {
        name: "cds_traverse",
        title: "Walk the code graph",
        description: "Walk the code graph breadth-first from entity IDs: down follows what an \
entity contains, imports, invokes and inherits; up follows who contains, imports, invokes or \
inherits it (callers, importers, subclasses). One line per entity reached: ID, kind, lines, \
signature, hop=N and how it was reached (invoked-by=X: X calls it; invokes=X: it calls X). tree \
gives LocAgent's expanded tree instead.",
        input: traverse_schema,
        output: traverse_output,
        narrow: "lower hops or limit, or filter with type and rel",
        run: traverse,
    },
    Def {
        name: "cds_retrieve",
        title: "Show code by entity ID",
        description: "Show the code of entities from the index, with line numbers: entity IDs \
(path/file.py, path/file.py:Class.method, a directory), or line ranges path/file.py:120 and \
path/file.py:100-140. view preview gives a function's head and a skeleton of a large class or \
file (bodies elided with the line ranges to ask for); fold gives one line per entity.",
        input: retrieve_schema,
        output: retrieve_output,
        narrow: "ask for fewer IDs, use view \"preview\", or ask for a line range (path:10-40)",
        run: retrieve,
    },
    Def {
        name: "cds_locate",
        title: "Locate an issue in the code",
        description: "Rank the files, top-level classes and functions, and methods an issue (its \
title, description, traceback) most likely needs changed, each with the evidence. One call, no \
model: the first step of a localization, before cds_search, cds_traverse and cds_retrieve.",
        input: locate_schema,
        output: locate_output,
        narrow: "lower limit",
        run: locate,
    },
    Def {
        name: "search_code_snippets",
        title: "LocAgent: search code snippets",
        description: SEARCH_CODE_SNIPPETS,
        input: search_code_snippets_schema,
        output: locagent_output,
        narrow: "use fewer or more specific search_terms, or a narrower file_path_or_pattern",
        run: search_code_snippets,
    },
    Def {
        name: "get_entity_contents",
        title: "LocAgent: get entity contents",
        description: GET_ENTITY_CONTENTS,
        input: get_entity_contents_schema,
        output: locagent_output,
        narrow: "ask for fewer entities, or for methods instead of their class",
        run: get_entity_contents,
    },
    Def {
        name: "explore_tree_structure",
        title: "LocAgent: explore tree structure",
        description: EXPLORE_TREE_STRUCTURE,
        input: explore_tree_structure_schema,
        output: locagent_output,
        narrow: "lower traversal_depth, or add entity_type_filter or dependency_type_filter",
        run: explore_tree_structure,
    },
];

/// The tool names, in `tools/list` order.
pub fn names() -> Vec<&'static str> {
    TOOLS.iter().map(|t| t.name).collect()
}

/// True when `name` is a tool of this server.
pub fn exists(name: &str) -> bool {
    TOOLS.iter().any(|t| t.name == name)
}

/// The `tools/list` entries.
pub fn list() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "title": t.title,
                "description": t.description,
                "inputSchema": (t.input)(),
                "outputSchema": (t.output)(),
                "annotations": {
                    "title": t.title,
                    "readOnlyHint": true,
                    "destructiveHint": false,
                    "idempotentHint": true,
                    "openWorldHint": false,
                },
            })
        })
        .collect()
}

/// Runs a tool and returns its `CallToolResult`: text content and structured content, or a
/// tool error. An unknown tool is a tool error here too (the server refuses it earlier).
pub fn call(ix: &Index, name: &str, args: &Value, budget: &Budget) -> Value {
    let Some(def) = TOOLS.iter().find(|t| t.name == name) else {
        return tool_error(format!("unknown tool '{name}'"));
    };
    let Value::Object(map) = args else {
        return tool_error(format!("{name}: arguments must be a JSON object"));
    };
    // Index bytes that fail their checksum make this call's error, not the server's end.
    let ran = crate::index::read::catch_damage(|| Ok((def.run)(ix, map, budget)))
        .unwrap_or_else(|e| Err(e.to_string()));
    match ran {
        Ok((text, structured)) => {
            let (text, cut) = fit_text(&text, budget.max_chars, def.narrow);
            let mut structured = fit_structured(structured, budget.max_chars);
            if cut && let Value::Object(m) = &mut structured {
                m.insert("truncated".into(), Value::Bool(true));
            }
            json!({
                "content": [{"type": "text", "text": text}],
                "structuredContent": structured,
                "isError": false,
            })
        }
        Err(message) => tool_error(format!("{name}: {message}")),
    }
}

fn tool_error(message: String) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// `text` cut to `max` characters at a line boundary, with a note; and whether it was cut.
fn fit_text(text: &str, max: usize, narrow: &str) -> (String, bool) {
    let total = text.chars().count();
    if total <= max {
        return (text.to_string(), false);
    }
    let room = max.saturating_sub(200);
    let end = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
    let cut = text[..end].rfind('\n').filter(|&i| i > end / 2).unwrap_or(end);
    let shown = text[..cut].chars().count();
    (
        format!(
            "{}\n\n[cds-mcp: output cut at {shown} of {total} characters; to see the rest, \
             narrow the call: {narrow}]",
            &text[..cut]
        ),
        true,
    )
}

/// The structured content held to `max` characters of JSON: the items of its first list are
/// dropped from the end until it fits (`"truncated": true`); when even the first item is too
/// big, its long strings (code) are cut. Each item is serialized once, so this stays linear.
fn fit_structured(mut v: Value, max: usize) -> Value {
    let total = v.to_string().len();
    if total <= max {
        return v;
    }
    let Value::Object(m) = &mut v else { return v };
    m.insert("truncated".into(), Value::Bool(true));
    let Some(key) = m.iter().find(|(_, x)| x.is_array()).map(|(k, _)| k.clone()) else {
        return v;
    };
    let Some(Value::Array(items)) = m.get_mut(&key) else { return v };
    let sizes: Vec<usize> = items.iter().map(|i| i.to_string().len() + 1).collect();
    // The object without the list's items, plus `,"truncated":true` already counted or not.
    let base = (total + 20).saturating_sub(sizes.iter().sum::<usize>());
    let mut used = base;
    let keep = sizes
        .iter()
        .take_while(|&&s| {
            used += s;
            used <= max
        })
        .count();
    if keep > 0 {
        items.truncate(keep);
        return v;
    }
    items.truncate(1);
    // JSON escapes can double a string: a third of the room is safe.
    let room = max.saturating_sub(base) / 3;
    if let Some(Value::Object(o)) = items.first_mut() {
        for s in o.values_mut() {
            if let Value::String(text) = s
                && text.len() > room
            {
                let end = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
                text.truncate(end);
            }
        }
    }
    v
}

/// A writer whose bytes can be read back, for the CLI's renderers.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    /// A colourless [`Out`] writing here.
    fn out(&self) -> Out {
        Out::with_writer(Box::new(self.clone()), false, false)
    }

    fn text(&self) -> String {
        self.0.lock().map(|v| String::from_utf8_lossy(&v).into_owned()).unwrap_or_default()
    }
}

/// Turns a rendering error into a tool error.
fn rendered(r: crate::Result<()>) -> Result<(), String> {
    r.map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------
// Argument checking

/// Fails on arguments the tool does not take.
fn known(map: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    for k in map.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(format!(
                "unknown argument '{k}': the arguments are {}",
                allowed.join(", ")
            ));
        }
    }
    Ok(())
}

fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null())
}

fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match get(map, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("'{key}' must be a string, not {}", type_name(other))),
    }
}

fn boolean(map: &Map<String, Value>, key: &str) -> Result<Option<bool>, String> {
    match get(map, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(format!("'{key}' must be true or false, not {}", type_name(other))),
    }
}

fn integer(map: &Map<String, Value>, key: &str, min: i64, max: i64) -> Result<Option<i64>, String> {
    match get(map, key) {
        None => Ok(None),
        Some(Value::Number(n)) => {
            let v = n
                .as_i64()
                .or_else(|| {
                    n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64)
                })
                .ok_or_else(|| format!("'{key}' must be a whole number, not {n}"))?;
            if v < min || v > max {
                return Err(format!("'{key}' must be between {min} and {max}, not {v}"));
            }
            Ok(Some(v))
        }
        Some(other) => Err(format!("'{key}' must be an integer, not {}", type_name(other))),
    }
}

/// A list of strings; a single string is taken as a list of one.
fn strings(map: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match get(map, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!("'{key}' must hold strings, not {}", type_name(other))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!("'{key}' must be a list of strings, not {}", type_name(other))),
    }
}

/// A list of strings, each one of `choices`.
fn choices(map: &Map<String, Value>, key: &str, allowed: &[&str]) -> Result<Vec<String>, String> {
    let list = strings(map, key)?.unwrap_or_default();
    for s in &list {
        if !allowed.contains(&s.as_str()) {
            return Err(format!("'{key}' has '{s}': expected one of {}", allowed.join(", ")));
        }
    }
    Ok(list)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The IDs of a call: a non-empty list of non-empty strings, at most 100.
fn ids(map: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    let list =
        strings(map, key)?.ok_or_else(|| format!("'{key}' is required: a list of entity IDs"))?;
    if list.is_empty() || list.iter().all(|s| s.trim().is_empty()) {
        return Err(format!("'{key}' is empty: give entity IDs such as path/file.py:Class.method"));
    }
    if list.len() > 100 {
        return Err(format!("'{key}' has {} IDs: ask for at most 100 at a time", list.len()));
    }
    Ok(list)
}

const KINDS: &[&str] = &["directory", "file", "class", "function"];
const RELS: &[&str] = &["contain", "import", "invoke", "inherit"];

fn kind_list() -> Value {
    json!({"type": "array", "items": {"type": "string", "enum": KINDS}})
}

// ---------------------------------------------------------------------------------------
// cds_search

fn search_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for: a name (QuerySet), a qualified name (QuerySet.filter), an entity ID or path, free text, or a whole issue with prose, code and a traceback"},
            "type": {"description": "Keep only these kinds (cds-search -t)", "oneOf": [kind_list(), {"type": "string", "enum": KINDS}]},
            "glob": {"description": "Keep only paths matching these globs, gitignore syntax: django/db/**, *.py, !tests/ (cds-search -g)", "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]},
            "tests": {"type": "boolean", "default": false, "description": "Include entities in test files (cds-search --tests)"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 10, "description": "Most hits (cds-search -n)"},
            "view": {"type": "string", "enum": ["line", "preview", "full"], "default": "line", "description": "line: one line per hit; preview: also the head of its code (a skeleton for a large class or file); full: also all of its code (cds-search --view)"},
        },
        "required": ["query"],
        "additionalProperties": false,
    })
}

fn search_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "hits": {"type": "array", "items": {"type": "object"}},
            "more": {"type": "integer"},
            "hidden_tests": {"type": "integer"},
            "truncated": {"type": "boolean"},
        },
        "required": ["hits"],
    })
}

fn search(ix: &Index, a: &Map<String, Value>, _: &Budget) -> Answer {
    known(a, &["query", "type", "glob", "tests", "limit", "view"])?;
    let text = string(a, "query")?.ok_or("'query' is required: a name, words or an issue")?;
    if text.trim().is_empty() {
        return Err("'query' is empty: give a name, words or an issue".into());
    }
    let mut opts = rank::SearchOptions {
        tests: boolean(a, "tests")?.unwrap_or(false),
        limit: integer(a, "limit", 1, 200)?.unwrap_or(10) as usize,
        globs: strings(a, "glob")?.unwrap_or_default(),
        ..Default::default()
    };
    for k in choices(a, "type", KINDS)? {
        if let Some(kind) = NodeKind::parse(&k) {
            opts.kinds.push(kind);
        }
    }
    let view = match string(a, "view")?.as_deref() {
        None | Some("line") => None,
        Some("preview") => Some(View::Preview),
        Some("full") => Some(View::Full),
        Some(other) => return Err(format!("'view' is '{other}': expected line, preview or full")),
    };
    let q = query::parse(&text);
    if q.is_empty() {
        return Err(format!(
            "nothing to search for in '{}': it has only common words; use names or other words",
            text.trim()
        ));
    }
    let res = rank::search(ix, &q, &opts).map_err(|e| e.to_string())?;
    let cap = Capture::default();
    let mut out = cap.out();
    let mut hits = Vec::new();
    for h in &res.hits {
        rendered(crate::record::write_line(&mut out, ix, h.node, &search_cli::tag(h)))?;
        if let Some(view) = view {
            let code = Code::of(ix, Target::Entity(h.node), view, 0).map_err(|e| e.to_string())?;
            rendered(crate::get::cli::write_numbered(&mut out, ix, &code))?;
        }
        let mut m = crate::record::fields(ix, h.node);
        m.extend(search_cli::json_extra(h));
        hits.push(Value::Object(m));
    }
    let mut text_out = cap.text();
    if res.hits.is_empty() {
        text_out = format!(
            "no match for '{}': try other words, a shorter name, or tests: true\n",
            search_cli::short(&text)
        );
    }
    if res.more > 0 {
        text_out.push_str(&format!("[{} more hits: raise limit to see them]\n", res.more));
    }
    if res.hidden_tests > 0 {
        text_out.push_str(&format!(
            "[{} hits in test files left out: tests: true shows them]\n",
            res.hidden_tests
        ));
    }
    Ok((text_out, json!({"hits": hits, "more": res.more, "hidden_tests": res.hidden_tests})))
}

// ---------------------------------------------------------------------------------------
// cds_traverse

fn traverse_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ids": {"description": "Start entities: IDs (path/file.py:Class.method, path/file.py, a directory) or path:LINE", "oneOf": [{"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 100}, {"type": "string"}]},
            "hops": {"type": "integer", "minimum": -1, "maximum": 20, "default": 1, "description": "Follow at most N edges; -1: no limit (cds-trav -h)"},
            "direction": {"type": "string", "enum": ["down", "up", "both"], "default": "down", "description": "down: what it contains, imports, invokes, inherits; up: who contains, imports, invokes, inherits it; both (cds-trav -d)"},
            "type": {"description": "Keep only these kinds; others are neither shown nor walked through (cds-trav -t)", "oneOf": [kind_list(), {"type": "string", "enum": KINDS}]},
            "rel": {"description": "Follow only these relations (cds-trav -r)", "oneOf": [{"type": "array", "items": {"type": "string", "enum": RELS}}, {"type": "string", "enum": RELS}]},
            "tests": {"type": "boolean", "default": false, "description": "Walk into test files too (cds-trav --tests)"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "default": 200, "description": "Stop after N entities, or N tree lines (cds-trav -m)"},
            "fanout": {"type": "integer", "minimum": 1, "maximum": 2000, "default": 100, "description": "At most N new neighbours per entity and relation (cds-trav --fanout)"},
            "tree": {"type": "boolean", "default": false, "description": "Print LocAgent's expanded tree instead of one line per entity (cds-trav --tree)"},
        },
        "required": ["ids"],
        "additionalProperties": false,
    })
}

fn traverse_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "entities": {"type": "array", "items": {"type": "object"}},
            "missing": {"type": "array", "items": {"type": "string"}},
            "limited": {"type": "boolean"},
            "truncated": {"type": "boolean"},
        },
        "required": ["entities"],
    })
}

fn traverse(ix: &Index, a: &Map<String, Value>, _: &Budget) -> Answer {
    known(a, &["ids", "hops", "direction", "type", "rel", "tests", "limit", "fanout", "tree"])?;
    let raw = ids(a, "ids")?;
    let hops = integer(a, "hops", -1, 20)?.unwrap_or(1);
    let direction = match string(a, "direction")?.as_deref() {
        None => Direction::Down,
        Some(d) => Direction::parse(d)
            .ok_or_else(|| format!("'direction' is '{d}': expected down, up or both"))?,
    };
    let mut walk = Walk {
        hops: if hops < 0 { None } else { Some(hops as u32) },
        direction,
        tests: boolean(a, "tests")?.unwrap_or(false),
        limit: integer(a, "limit", 1, 2000)?.unwrap_or(200) as usize,
        fanout: integer(a, "fanout", 1, 2000)?.unwrap_or(100) as usize,
        ..Walk::default()
    };
    for k in choices(a, "type", KINDS)? {
        walk.kinds |= trav::parse_kinds(&k)?;
    }
    for r in choices(a, "rel", RELS)? {
        walk.rels |= trav::parse_rels(&r)?;
    }
    let tree = boolean(a, "tree")?.unwrap_or(false);
    let resolver = Resolver::new(ix);
    let mut roots = Vec::new();
    let mut notes = Vec::new();
    let mut missed = Vec::new();
    for id in &raw {
        match resolver.entity(id.as_bytes()) {
            Some(n) => roots.push(n),
            None => {
                notes.push(resolver.missing(id.as_bytes()));
                missed.push(id.clone());
            }
        }
    }
    if roots.is_empty() {
        return Err(notes.join("\n"));
    }
    let mut text = String::new();
    for n in &notes {
        text.push_str(&format!("[{n}]\n"));
    }
    let locagent = ix.mode() == Mode::LocAgent;
    if tree {
        if locagent && hops < 0 {
            walk.hops = Some(20);
        }
        let mut trees = Vec::new();
        let mut limited = false;
        for &r in &roots {
            let t = trav::tree(ix, r, &walk, locagent);
            limited |= t.limited;
            trees.push(t.text);
        }
        text.push_str(&trees.join("\n\n"));
        text.push('\n');
        let entities: Vec<Value> =
            roots.iter().map(|&n| Value::Object(crate::record::fields(ix, n))).collect();
        return Ok((text, json!({"entities": entities, "missing": missed, "limited": limited})));
    }
    let reach = trav::bfs(ix, &roots, &walk);
    let cap = Capture::default();
    let mut out = cap.out();
    let mut entities = Vec::new();
    for s in &reach.steps {
        rendered(crate::record::write_line(&mut out, ix, s.node, &trav::cli::step_tag(ix, s)))?;
        let mut m = crate::record::fields(ix, s.node);
        m.extend(trav::cli::step_fields(ix, s));
        entities.push(Value::Object(m));
    }
    text.push_str(&cap.text());
    if reach.limited {
        text.push_str(&format!(
            "[stopped at limit {} entities; entities marked cut=N have more neighbours: raise \
             limit or narrow with type, rel, hops]\n",
            walk.limit
        ));
    }
    if reach.hubs > 0 {
        text.push_str(&format!(
            "[{} entities had more than fanout {} new neighbours (cut=N): raise fanout or narrow \
             with type, rel]\n",
            reach.hubs, walk.fanout
        ));
    }
    Ok((text, json!({"entities": entities, "missing": missed, "limited": reach.limited})))
}

// ---------------------------------------------------------------------------------------
// cds_retrieve

fn retrieve_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ids": {"description": "Entity IDs (path/file.py, path/file.py:Class.method, a directory) or line ranges (path/file.py:120, path/file.py:100-140)", "oneOf": [{"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 100}, {"type": "string"}]},
            "view": {"type": "string", "enum": ["fold", "preview", "full"], "default": "full", "description": "full: all of the code; preview: a function's head, a skeleton of a large class or file; fold: one line per entity (cds-get --view)"},
            "context": {"type": "integer", "minimum": 0, "maximum": 200, "default": 0, "description": "Lines of context before and after (cds-get -C)"},
        },
        "required": ["ids"],
        "additionalProperties": false,
    })
}

fn retrieve_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "entities": {"type": "array", "items": {"type": "object"}},
            "missing": {"type": "array", "items": {"type": "string"}},
            "truncated": {"type": "boolean"},
        },
        "required": ["entities"],
    })
}

fn retrieve(ix: &Index, a: &Map<String, Value>, _: &Budget) -> Answer {
    known(a, &["ids", "view", "context"])?;
    let raw = ids(a, "ids")?;
    let view = match string(a, "view")?.as_deref() {
        None | Some("full") => View::Full,
        Some("preview") => View::Preview,
        Some("fold") => View::Fold,
        Some(other) => return Err(format!("'view' is '{other}': expected fold, preview or full")),
    };
    let context = integer(a, "context", 0, 200)?.unwrap_or(0) as u32;
    let resolver = Resolver::new(ix);
    let cap = Capture::default();
    let mut out = cap.out();
    let mut entities = Vec::new();
    let mut notes = Vec::new();
    let mut missed = Vec::new();
    for id in &raw {
        let Some(t) = resolver.resolve(id.as_bytes()) else {
            notes.push(resolver.missing(id.as_bytes()));
            missed.push(id.clone());
            continue;
        };
        if view == View::Fold {
            let n = t.entity(ix);
            rendered(crate::record::write_line(&mut out, ix, n, ""))?;
            entities.push(Value::Object(crate::record::fields(ix, n)));
            continue;
        }
        let code = Code::of(ix, t, view, context).map_err(|e| e.to_string())?;
        if !entities.is_empty() {
            rendered(out.write_all(b"\n").map_err(Into::into))?;
        }
        rendered(crate::get::cli::write_header(&mut out, ix, &code, false))?;
        rendered(crate::get::cli::write_numbered(&mut out, ix, &code))?;
        let mut m = crate::record::fields(ix, code.node);
        m.extend(crate::get::cli::code_fields(ix, &code, view, false));
        entities.push(Value::Object(m));
    }
    if entities.is_empty() {
        return Err(notes.join("\n"));
    }
    let mut text = String::new();
    for n in &notes {
        text.push_str(&format!("[{n}]\n"));
    }
    text.push_str(&cap.text());
    Ok((text, json!({"entities": entities, "missing": missed})))
}

// ---------------------------------------------------------------------------------------
// cds_locate

fn locate_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "issue": {"type": "string", "description": "The issue: title, description, code, traceback"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Locations per level (cds-loc -n)"},
        },
        "required": ["issue"],
        "additionalProperties": false,
    })
}

fn locate_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "found_files": {"type": "array", "items": {"type": "string"}},
            "found_modules": {"type": "array", "items": {"type": "string"}},
            "found_entities": {"type": "array", "items": {"type": "string"}},
            "locations": {"type": "array", "items": {"type": "object"}},
            "truncated": {"type": "boolean"},
        },
        "required": ["found_files", "found_modules", "found_entities"],
    })
}

fn locate(ix: &Index, a: &Map<String, Value>, _: &Budget) -> Answer {
    known(a, &["issue", "limit"])?;
    let issue = string(a, "issue")?.ok_or("'issue' is required: the issue's text")?;
    if issue.trim().is_empty() {
        return Err("'issue' is empty: give its title, description or traceback".into());
    }
    let limit = integer(a, "limit", 1, 50)?.unwrap_or(10) as usize;
    let located = crate::loc::locate(ix, &issue, limit, &crate::loc::Weights::default())
        .map_err(|e| e.to_string())?;
    let cap = Capture::default();
    rendered(crate::loc::cli::write_text(&mut cap.out(), ix, &located, None))?;
    let mut text = cap.text();
    if located.files.is_empty() {
        text = "nothing in the issue matches this repository: give names, paths or a traceback\n"
            .to_string();
    }
    // The JSON's lists are all bounded by `limit`; `locations` (with reasons) goes first when
    // the budget cuts, so it is put last.
    let mut v = crate::loc::cli::to_json(ix, &located);
    if let Value::Object(m) = &mut v
        && let Some(loc) = m.remove("locations")
    {
        m.insert("locations".into(), loc);
    }
    Ok((text, v))
}

// ---------------------------------------------------------------------------------------
// LocAgent's tools (util/runtime/content_tools.py and structure_tools.py, LocAgent v2.3)

const SEARCH_CODE_SNIPPETS: &str = "Searches the codebase to retrieve relevant code snippets based on given queries(terms or line numbers).
** Note:
- Either `search_terms` or `line_nums` must be provided to perform a search.
- If `search_terms` are provided, it searches for code snippets based on each term:
- If `line_nums` is provided, it searches for code snippets around the specified lines within the file defined by `file_path_or_pattern`.

** Example Usage:
# Search for code content contain keyword `order`, `bill`
search_code_snippets(search_terms=[\"order\", \"bill\"])

# Search for a class
search_code_snippets(search_terms=[\"MyClass\"])

# Search for context around specific lines (10 and 15) within a file
search_code_snippets(line_nums=[10, 15], file_path_or_pattern='src/example.py')
";

const GET_ENTITY_CONTENTS: &str = "
Searches the codebase to retrieve the complete implementations of specified entities based on the provided entity names. 
The tool can handle specific entity queries such as function names, class names, or file paths.

**Usage Example:**
# Search for a specific function implementation
get_entity_contents(['src/my_file.py:MyClass.func_name'])

# Search for a file's complete content
get_entity_contents(['src/my_file.py'])

**Entity Name Format:**
- To specify a function or class, use the format: `file_path:QualifiedName`
  (e.g., 'src/helpers/math_helpers.py:MathUtils.calculate_sum').
- To search for a file's content, use only the file path (e.g., 'src/my_file.py').
";

const EXPLORE_TREE_STRUCTURE: &str = "
Unified repository exploring tool that traverses a pre-built code graph to retrieve dependency structure around specified entities.
The search can be controlled to traverse upstream (exploring dependencies that entities rely on) or downstream (exploring how entities impact others), with optional limits on traversal depth and filters for entity and dependency types.

Code Graph Definition:
* Entity Types: 'directory', 'file', 'class', 'function'.
* Dependency Types: 'contains', 'imports', 'invokes', 'inherits'.
* Hierarchy:
    - Directories contain files and subdirectories.
    - Files contain classes and functions.
    - Classes contain inner classes and methods.
    - Functions can contain inner functions.
* Interactions:
    - Files/classes/functions can import classes and functions.
    - Classes can inherit from other classes.
    - Classes and functions can invoke others (invocations in a class's `__init__` are attributed to the class).
Entity ID:
* Unique identifier including file path and module path.
* Here's an example of an Entity ID: `\"interface/C.py:C.method_a.inner_func\"` identifies function `inner_func` within `method_a` of class `C` in `\"interface/C.py\"`.

Notes:
* Traversal Control: The `traversal_depth` parameter specifies how deep the function should explore the graph starting from the input entities.
* Filtering: Use `entity_type_filter` and `dependency_type_filter` to narrow down the scope of the search, focusing on specific entity types and relationships.


Example Usage:
1. Exploring Outward Dependencies:
    ```
    explore_tree_structure(
        start_entities=['src/module_a.py:ClassA'],
        direction='downstream',
        traversal_depth=2,
        dependency_type_filter=['invokes', 'imports']
    )
    ```
    This retrieves the dependencies of `ClassA` up to 2 levels deep, focusing only on classes and functions with 'invokes' and 'imports' relationships.

2. Exploring Inward Dependencies:
    ```
    explore_tree_structure(
        start_entities=['src/module_b.py:FunctionY'],
        direction='upstream',
        traversal_depth=-1
    )
    ```
    This finds all entities that depend on `FunctionY` without restricting the traversal depth.
3. Exploring Repository Structure:
    ```
    explore_tree_structure(
      start_entities=['/'],
      traversal_depth=2,
      dependency_type_filter=['contains']
    )
    ```
    This retrieves the tree repository structure from the root directory (/), traversing up to two levels deep and focusing only on 'contains' relationship.
4. Generate Class Diagrams:
    ```
    explore_tree_structure(
        start_entities=selected_entity_ids,
        direction='both',
        traverse_depth=-1,
        dependency_type_filter=['inherits']
    )
    ```
";

fn search_code_snippets_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "search_terms": {
                "type": "array",
                "items": {"type": "string"},
                "description": "A list of names, keywords, or code snippets to search for within the codebase. This can include potential function names, class names, or general code fragments. Either `search_terms` or `line_nums` must be provided to perform a search.",
            },
            "line_nums": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "Specific line numbers to locate code snippets within a specified file. Must be used alongside a valid `file_path_or_pattern`. Either `line_nums` or `search_terms` must be provided to perform a search.",
            },
            "file_path_or_pattern": {
                "type": "string",
                "description": "A glob pattern or specific file path used to filter search results to particular files or directories. Defaults to \"**/*.py\", meaning all Python files are searched by default. If `line_nums` are provided, this must specify a specific file path.",
                "default": "**/*.py",
            },
        },
        "required": [],
    })
}

fn get_entity_contents_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "entity_names": {
                "type": "array",
                "items": {"type": "string"},
                "description": "A list of entity names to query. Each entity name can represent a function, class, or file. For functions or classes, the format should be 'file_path:QualifiedName' (e.g., 'src/helpers/math_helpers.py:MathUtils.calculate_sum'). For files, use just the file path (e.g., 'src/my_file.py').",
            },
        },
        "required": ["entity_names"],
    })
}

fn explore_tree_structure_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "start_entities": {
                "description": "List of entities (e.g., class, function, file, or directory paths) to begin the search from.\nEntities representing classes or functions must be formatted as \"file_path:QualifiedName\" (e.g., `interface/C.py:C.method_a.inner_func`).\nFor files or directories, provide only the file or directory path (e.g., `src/module_a.py` or `src/`).",
                "type": "array",
                "items": {"type": "string"},
            },
            "direction": {
                "description": "Direction of traversal in the code graph; allowed options are: `upstream`, `downstream`, `both`.\n- 'upstream': Traversal to explore dependencies that the specified entities rely on (how they depend on others).\n- 'downstream': Traversal to explore the effects or interactions of the specified entities on others (how others depend on them).\n- 'both': Traversal on both direction.",
                "type": "string",
                "enum": ["upstream", "downstream", "both"],
                "default": "downstream",
            },
            "traversal_depth": {
                "description": "Maximum depth of traversal. A value of -1 indicates unlimited depth (subject to a maximum limit).Must be either `-1` or a non-negative integer (≥ 0).",
                "type": "integer",
                "default": 2,
            },
            "entity_type_filter": {
                "description": "List of entity types (e.g., 'class', 'function', 'file', 'directory') to include in the traversal. If None, all entity types are included.",
                "type": ["array", "null"],
                "items": {"type": "string"},
                "default": null,
            },
            "dependency_type_filter": {
                "description": "List of dependency types (e.g., 'contains', 'imports', 'invokes', 'inherits') to include in the traversal. If None, all dependency types are included.",
                "type": ["array", "null"],
                "items": {"type": "string"},
                "default": null,
            },
        },
        "required": ["start_entities"],
    })
}

fn locagent_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "entities": {"type": "array", "items": {"type": "string"}, "description": "The IDs of the entities shown"},
            "truncated": {"type": "boolean"},
        },
        "required": ["entities"],
    })
}

/// A list argument that must hold strings (LocAgent's `List[str]`), `null` allowed.
fn str_list(map: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(_)) => strings(map, key),
        Some(other) => Err(format!("'{key}' must be a list of strings, not {}", type_name(other))),
    }
}

fn search_code_snippets(ix: &Index, a: &Map<String, Value>, _: &Budget) -> Answer {
    known(a, &["search_terms", "line_nums", "file_path_or_pattern"])?;
    let search_terms = str_list(a, "search_terms")?.unwrap_or_default();
    let line_nums: Vec<i64> = match a.get("line_nums") {
        None | Some(Value::Null) => Vec::new(),
        // LocAgent accepts a single line number too.
        Some(Value::Number(n)) => vec![n.as_i64().ok_or("'line_nums' must hold integers")?],
        Some(Value::Array(v)) => v
            .iter()
            .map(|x| {
                x.as_i64()
                    .ok_or_else(|| format!("'line_nums' must hold integers, not {}", type_name(x)))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "'line_nums' must be a list of integers, not {}",
                type_name(other)
            ));
        }
    };
    if search_terms.len() > 100 || line_nums.len() > 1000 {
        return Err("too many search_terms or line_nums: ask for fewer at a time".into());
    }
    let file_path_or_pattern = match a.get("file_path_or_pattern") {
        None => Some(locagent::DEFAULT_PATTERN.to_string()),
        Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!(
                "'file_path_or_pattern' must be a string, not {}",
                type_name(other)
            ));
        }
    };
    let args = locagent::SearchArgs { search_terms, line_nums, file_path_or_pattern };
    let out = locagent::search_code_snippets(ix, &args).map_err(|e| e.to_string())?;
    Ok((out.text, json!({"entities": out.entities})))
}

fn get_entity_contents(ix: &Index, a: &Map<String, Value>, _: &Budget) -> Answer {
    known(a, &["entity_names"])?;
    let names =
        str_list(a, "entity_names")?.ok_or("'entity_names' is required: a list of entity names")?;
    if names.len() > 100 {
        return Err("'entity_names' has more than 100 names: ask for fewer at a time".into());
    }
    let out = locagent::get_entity_contents(ix, &names);
    Ok((out.text, json!({"entities": out.entities})))
}

fn explore_tree_structure(ix: &Index, a: &Map<String, Value>, budget: &Budget) -> Answer {
    known(
        a,
        &[
            "start_entities",
            "direction",
            "traversal_depth",
            "entity_type_filter",
            "dependency_type_filter",
        ],
    )?;
    let start_entities = str_list(a, "start_entities")?
        .ok_or("'start_entities' is required: a list of entity IDs")?;
    if start_entities.len() > 100 {
        return Err("'start_entities' has more than 100 entities: ask for fewer at a time".into());
    }
    let direction = match a.get("direction") {
        None => "downstream".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(format!("'direction' must be a string, not {}", type_name(other)));
        }
    };
    let traversal_depth = match a.get("traversal_depth") {
        None => 2,
        Some(Value::Number(n)) => n.as_i64().ok_or("'traversal_depth' must be an integer")?,
        Some(other) => {
            return Err(format!("'traversal_depth' must be an integer, not {}", type_name(other)));
        }
    };
    let args = locagent::TreeArgs {
        start_entities,
        direction,
        traversal_depth,
        entity_type_filter: str_list(a, "entity_type_filter")?,
        dependency_type_filter: str_list(a, "dependency_type_filter")?,
        // Lines are at least a dozen characters: this bounds the walk's work, not its output,
        // which the budget cuts.
        max_lines: budget.max_chars / 8,
    };
    match locagent::explore_tree_structure(ix, &args).map_err(|e| e.to_string())? {
        Ok(out) => Ok((out.text, json!({"entities": out.entities}))),
        Err(e) => Err(e.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_at_a_line_with_a_note() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let (cut, was) = fit_text(&text, 1000, "lower limit");
        assert!(was);
        assert!(cut.chars().count() <= 1000, "{}", cut.len());
        assert!(cut.contains("line 0\n") && cut.ends_with("narrow the call: lower limit]"));
        let (same, was) = fit_text("short", 1000, "x");
        assert!(!was && same == "short");
    }

    #[test]
    fn structured_is_cut_to_fit() {
        let items: Vec<Value> = (0..500).map(|i| json!({"id": format!("a.py:f{i}")})).collect();
        let v = fit_structured(json!({"hits": items, "more": 0}), 1000);
        assert!(v.to_string().len() <= 1000);
        assert_eq!(v["truncated"], json!(true));
        let big = fit_structured(json!({"entities": [{"code": "x".repeat(5000)}]}), 1000);
        assert!(big.to_string().len() <= 1000, "{}", big.to_string().len());
    }

    #[test]
    fn argument_checks() {
        let m = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert!(
            known(&m(json!({"q": 1})), &["query"]).unwrap_err().contains("unknown argument 'q'")
        );
        assert_eq!(integer(&m(json!({"n": 3})), "n", 0, 5), Ok(Some(3)));
        assert!(integer(&m(json!({"n": 9})), "n", 0, 5).is_err());
        assert!(integer(&m(json!({"n": "3"})), "n", 0, 5).is_err());
        assert_eq!(strings(&m(json!({"ids": "a.py"})), "ids"), Ok(Some(vec!["a.py".to_string()])));
        assert!(strings(&m(json!({"ids": [1]})), "ids").is_err());
        assert!(ids(&m(json!({"ids": []})), "ids").is_err());
        assert!(choices(&m(json!({"type": ["method"]})), "type", KINDS).is_err());
    }

    #[test]
    fn tools_are_listed_with_schemas() {
        let l = list();
        assert_eq!(l.len(), 7);
        for t in &l {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            assert_eq!(t["outputSchema"]["type"], "object", "{t}");
        }
        assert!(exists("cds_search") && !exists("rm"));
    }
}
