//! `cds-fmt`'s logic, and the renderers `cds-trav` shares: Graphviz DOT, trees built from
//! records, Markdown, and the whole graph in the parity dump format.
//!
//! * [`write_dot`]: a `digraph` with one node per entity (shape by kind, start entities bold)
//!   and one edge per relation (labelled; guesses dashed, one-of-N candidates dotted);
//! * [`record_tree`]: records of a `cds-trav --json` walk (with `from`, `via`, `dir`) as the
//!   spanning tree they describe, in LocAgent's line format; [`containment_tree`]: any other
//!   entities under their files and enclosing classes;
//! * [`write_markdown`]: a heading and a fenced code block per entity, for an LLM prompt;
//! * [`write_graph`]: every node and edge of the index as the JSON Lines of
//!   `shared/parity/README.md` (nodes sorted by ID, then edges sorted by source, target, type),
//!   which on a `--compat locagent` index equals LocAgent's own graph dump.

pub mod cli;

use std::io::Write;

use fxhash::FxHashMap;

use crate::cli::Out;
use crate::get::Code;
use crate::graph::{EdgeKind, NodeKind};
use crate::index::Index;
use crate::trav::{self, Edge};

/// A DOT double-quoted string.
fn dot_quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => {}
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Writes a Graphviz digraph of `nodes` (`(node, is_start)`) and `edges`.
pub fn write_dot(
    out: &mut Out,
    ix: &Index,
    nodes: &[(u32, bool)],
    edges: &[Edge],
) -> crate::Result<()> {
    out.write_all(b"digraph cds {\n  rankdir=LR;\n")?;
    out.write_all(b"  node [shape=box, fontname=\"monospace\", fontsize=10];\n")?;
    out.write_all(b"  edge [fontname=\"monospace\", fontsize=9];\n")?;
    for &(n, start) in nodes {
        let id = crate::id::display(ix.id(n));
        let (shape, mut style) = match ix.kind(n) {
            NodeKind::Directory => ("folder", vec![]),
            NodeKind::File => ("note", vec![]),
            NodeKind::Class => ("component", vec![]),
            NodeKind::Function => ("box", vec!["rounded"]),
        };
        if start {
            style.push("bold");
        }
        let style = if style.is_empty() {
            String::new()
        } else {
            format!(", style=\"{}\"", style.join(","))
        };
        writeln!(out, "  {} [shape={shape}{style}];", dot_quote(&id))?;
    }
    for e in edges {
        let (src, dst) = (crate::id::display(ix.id(e.src)), crate::id::display(ix.id(e.dst)));
        let attrs = match e.meta {
            0 => format!("label=\"{}\"", e.rel.name()),
            k if k >= crate::graph::link::META_FLOW => {
                format!("label=\"{} (value flow, {})\"", e.rel.name(), crate::trav::conf_name(k))
            }
            1 => format!("label=\"{} (guess)\", style=dashed", e.rel.name()),
            k => format!("label=\"{} (1 of {k})\", style=dotted", e.rel.name()),
        };
        writeln!(out, "  {} -> {} [{attrs}];", dot_quote(&src), dot_quote(&dst))?;
    }
    out.write_all(b"}\n")?;
    Ok(())
}

/// The edges of the index among `nodes` (each once, in node order), for a DOT of entities
/// that carry no walk of their own.
pub fn induced_edges(ix: &Index, nodes: &[u32]) -> Vec<Edge> {
    let set: fxhash::FxHashSet<u32> = nodes.iter().copied().collect();
    let mut edges = Vec::new();
    for &n in nodes {
        for e in ix.out_edges(n) {
            if set.contains(&e.node) {
                edges.push(Edge { src: n, rel: e.kind, dst: e.node, meta: e.meta });
            }
        }
    }
    edges
}

/// A node of a record tree: its entity and how it hangs under its parent.
pub struct TreeNode {
    /// The entity.
    pub node: u32,
    /// Index of the parent in the same list, and the relation's label; `None` for a root.
    pub parent: Option<(usize, String)>,
}

/// Renders nodes with parents as trees, in LocAgent's line format (`├── label ── ID`; without
/// a label `├── ID`). Roots come in list order, children in list order under their parent.
pub fn render_tree(ix: &Index, nodes: &[TreeNode]) -> String {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, t) in nodes.iter().enumerate() {
        match &t.parent {
            Some((p, _)) if *p != i && *p < nodes.len() => children[*p].push(i),
            _ => roots.push(i),
        }
    }
    // Nodes on a parent cycle (impossible for walks and containment, but the input is data)
    // are reached from no root: they become roots of their own after the others.
    let mut seen = vec![false; nodes.len()];
    let mut text = String::new();
    for root in roots.iter().copied().chain(0..nodes.len()) {
        if seen[root] {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        // (index, prefix, last); the root is printed bare.
        let mut stack: Vec<(usize, String, Option<bool>)> = vec![(root, String::new(), None)];
        while let Some((i, prefix, last)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let id = crate::id::display(ix.id(nodes[i].node));
            let child_prefix = match last {
                None => {
                    text.push_str(&id);
                    String::new()
                }
                Some(last) => {
                    let label = nodes[i].parent.as_ref().map_or("", |(_, l)| l.as_str());
                    let connector = format!(
                        "{}{}{}",
                        if last { "└── " } else { "├── " },
                        label,
                        if label.is_empty() { "" } else { " ── " }
                    );
                    text.push_str(&format!("{prefix}{connector}{id}"));
                    let pad = " ".repeat(connector.chars().count() - 1);
                    format!("{prefix}{}{pad}", if last { ' ' } else { '│' })
                }
            };
            text.push('\n');
            let kids = &children[i];
            for (k, &c) in kids.iter().enumerate().rev() {
                stack.push((c, child_prefix.clone(), Some(k + 1 == kids.len())));
            }
        }
    }
    text
}

/// The spanning tree of walk records: each record's `from` (an ID) is its parent, `via` and
/// `dir` give the label. `None` when no record has a `from`.
pub fn record_tree(
    ix: &Index,
    records: &[(u32, Option<&serde_json::Value>)],
    resolve: impl Fn(&[u8]) -> Option<u32>,
) -> Option<Vec<TreeNode>> {
    if !records.iter().any(|(_, j)| j.is_some_and(|j| j.get("from").is_some_and(|f| f.is_string())))
    {
        return None;
    }
    let locagent = ix.mode() == crate::graph::Mode::LocAgent;
    let mut at: FxHashMap<u32, usize> = FxHashMap::default();
    let mut nodes = Vec::new();
    for &(n, json) in records {
        if at.contains_key(&n) {
            continue;
        }
        let parent = json.and_then(|j| {
            let from = resolve(crate::id::parse(j.get("from")?.as_str()?.as_bytes()).as_slice())?;
            let p = *at.get(&from)?;
            let rel = EdgeKind::parse(j.get("via")?.as_str()?)?;
            let up = j.get("dir").and_then(|d| d.as_str()) == Some("up");
            Some((p, trav::tree_label(rel, up, locagent)))
        });
        at.insert(n, nodes.len());
        nodes.push(TreeNode { node: n, parent });
    }
    Some(nodes)
}

/// Entities under their files and classes: each hangs under its nearest ancestor among the
/// entities, their files and their enclosing classes (a class or function brings its file
/// and the classes around it, so hits group by file and a method sits under its class even
/// when the class is not among them).
pub fn containment_tree(ix: &Index, entities: &[u32]) -> Vec<TreeNode> {
    let mut order: Vec<u32> = Vec::new();
    let mut at: FxHashMap<u32, usize> = FxHashMap::default();
    let mut add = |n: u32, order: &mut Vec<u32>| {
        if let std::collections::hash_map::Entry::Vacant(v) = at.entry(n) {
            v.insert(order.len());
            order.push(n);
        }
    };
    let mut classes: Vec<u32> = Vec::new();
    for &n in entities {
        if matches!(ix.kind(n), NodeKind::Class | NodeKind::Function)
            && let Some(f) = ix.file_node(n)
        {
            add(f, &mut order);
            // The classes between the file and the entity, outermost first (the bound guards
            // against a damaged index's parent cycle).
            classes.clear();
            let (mut p, mut steps) = (ix.parent(n), 0);
            while let Some(q) = p
                && q != f
                && steps < 1024
            {
                if ix.kind(q) == NodeKind::Class {
                    classes.push(q);
                }
                p = ix.parent(q);
                steps += 1;
            }
            for &c in classes.iter().rev() {
                add(c, &mut order);
            }
        }
        add(n, &mut order);
    }
    let set: fxhash::FxHashMap<u32, usize> =
        order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    order
        .iter()
        .map(|&n| {
            let mut p = ix.parent(n);
            let mut guard = 0;
            while let Some(q) = p {
                if set.contains_key(&q) || guard > 1024 {
                    break;
                }
                p = ix.parent(q);
                guard += 1;
            }
            TreeNode { node: n, parent: p.and_then(|q| set.get(&q)).map(|&i| (i, String::new())) }
        })
        .collect()
}

/// One entity in Markdown: a heading with its ID, a line with its kind, file and lines (and
/// how a walk reached it, from `json`), then its code in a fenced block (nothing for
/// `View::Fold` but the signature; a directory lists its entries).
pub fn write_markdown(
    out: &mut Out,
    ix: &Index,
    code: &Code,
    json: Option<&serde_json::Value>,
    fold_only: bool,
) -> crate::Result<()> {
    let n = code.node;
    let id = crate::id::display(ix.id(n));
    writeln!(out, "### `{id}`\n")?;
    let kind = ix.kind(n).name();
    let path = crate::id::display(ix.path(n));
    let mut about = match (ix.kind(n), code.range) {
        (_, Some((a, b))) => format!("Lines {a}-{b} of `{path}`, in {kind} `{id}`"),
        (NodeKind::Directory, _) => "Directory".to_string(),
        (NodeKind::File, _) => {
            let (a, b) = ix.lines(n);
            format!("File, lines {a}-{b}")
        }
        _ => {
            let (a, b) = ix.lines(n);
            format!("A {kind} in `{path}`, lines {a}-{b}")
        }
    };
    if let Some(j) = json {
        let hop = j.get("hop").and_then(|h| h.as_u64());
        let from = j.get("from").and_then(|f| f.as_str());
        let via = j.get("via").and_then(|v| v.as_str()).and_then(EdgeKind::parse);
        if let (Some(h), Some(from), Some(via)) = (hop, from, via) {
            let up = j.get("dir").and_then(|d| d.as_str()) == Some("up");
            let s = if h == 1 { "" } else { "s" };
            about.push_str(&format!(
                "; {h} hop{s} away: {} `{from}`",
                trav::relation_phrase(via, up)
            ));
        }
    }
    if code.elided {
        about.push_str("; function bodies omitted");
    }
    writeln!(out, "{about}.\n")?;
    if fold_only {
        let fold = ix.fold(n);
        if !fold.is_empty() {
            writeln!(out, "`{fold}`\n")?;
        }
        return Ok(());
    }
    if code.file.is_none() {
        for e in ix.out_edges(n).filter(|e| e.kind == EdgeKind::Contain) {
            writeln!(out, "- `{}`", crate::id::display(ix.id(e.node)))?;
        }
        out.write_all(b"\n")?;
        return Ok(());
    }
    let lang =
        code.file.and_then(|f| crate::lang::Lang::of_name(ix.id(f))).map_or("", |l| l.spec().fence);
    // A fence longer than any backtick run in the code, so the code cannot close it.
    let lines = code.lines();
    let longest = lines.iter().map(|(_, l)| max_backticks(l)).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    writeln!(out, "{fence}{lang}")?;
    for (_, l) in &lines {
        out.write_all(l)?;
        out.write_all(b"\n")?;
    }
    writeln!(out, "{fence}\n")?;
    Ok(())
}

fn max_backticks(line: &[u8]) -> usize {
    let (mut best, mut run) = (0, 0);
    for &b in line {
        run = if b == b'`' { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A JSON string as Python's `json.dumps` writes it (ASCII only), so the dump's bytes match
/// LocAgent's.
fn py_json_str(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            '\u{8}' => q.push_str("\\b"),
            '\u{c}' => q.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    q.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Writes the whole graph as the parity JSON Lines (see the module docs). Class and function
/// lines are LocAgent's (the `def`/`class` line to the last line); directories and files have
/// none. Parallel edges are stored once, so `count` is 1.
pub fn write_graph(out: &mut Out, ix: &Index) -> crate::Result<()> {
    let ids: Vec<String> =
        (0..ix.len() as u32).map(|n| crate::id::display(ix.id(n)).into_owned()).collect();
    let mut order: Vec<u32> = (0..ix.len() as u32).collect();
    order.sort_by(|&a, &b| ids[a as usize].cmp(&ids[b as usize]));
    for &n in &order {
        let lines = match ix.kind(n) {
            NodeKind::Class | NodeKind::Function => {
                (ix.head_line(n).to_string(), ix.lines(n).1.to_string())
            }
            _ => ("null".to_string(), "null".to_string()),
        };
        write!(
            out,
            "{{\"kind\": \"node\", \"id\": {}, \"type\": \"{}\", \"start_line\": {}, \"end_line\": {}}}",
            py_json_str(&ids[n as usize]),
            ix.kind(n).name(),
            lines.0,
            lines.1
        )?;
        out.record_end()?;
    }
    let mut edges: Vec<(u32, u32, &str)> = Vec::new();
    for n in 0..ix.len() as u32 {
        edges.extend(ix.out_edges(n).map(|e| (n, e.node, e.kind.locagent_name())));
    }
    edges.sort_by(|a, b| {
        (&ids[a.0 as usize], &ids[a.1 as usize], a.2).cmp(&(
            &ids[b.0 as usize],
            &ids[b.1 as usize],
            b.2,
        ))
    });
    edges.dedup();
    for (s, d, t) in edges {
        write!(
            out,
            "{{\"kind\": \"edge\", \"src\": {}, \"dst\": {}, \"type\": \"{t}\", \"count\": 1}}",
            py_json_str(&ids[s as usize]),
            py_json_str(&ids[d as usize]),
        )?;
        out.record_end()?;
    }
    // cds's own indexes end with the counts per language; a LocAgent-compatible dump stays
    // exactly LocAgent's.
    if ix.mode() == crate::graph::Mode::Native {
        let g = ix.graph();
        let file_lang: Vec<u8> = ix.sound(&g.file_lang).to_vec();
        let entities = (0..ix.len() as u32)
            .filter(|&n| matches!(ix.kind(n), NodeKind::Class | NodeKind::Function))
            .filter_map(|n| ix.file_index(n));
        // The same spacing as the other records (Python's json.dumps).
        let langs: Vec<String> = crate::lang::count_languages(&file_lang, entities)
            .iter()
            .map(|l| {
                format!(
                    "{{\"language\": \"{}\", \"files\": {}, \"entities\": {}}}",
                    l.name, l.files, l.entities
                )
            })
            .collect();
        write!(out, "{{\"kind\": \"languages\", \"languages\": [{}]}}", langs.join(", "))?;
        out.record_end()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_json_strings() {
        assert_eq!(py_json_str("a/b.py:C.f"), "\"a/b.py:C.f\"");
        assert_eq!(py_json_str("caf\u{e9}\"\\\n"), "\"caf\\u00e9\\\"\\\\\\n\"");
        assert_eq!(py_json_str("\u{1F600}"), "\"\\ud83d\\ude00\"");
    }

    #[test]
    fn dot_strings() {
        assert_eq!(dot_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }

    #[test]
    fn backtick_runs() {
        assert_eq!(max_backticks(b"x = '```'"), 3);
        assert_eq!(max_backticks(b"plain"), 0);
    }
}
