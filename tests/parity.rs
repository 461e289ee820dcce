//! LocAgent parity: the `Mode::LocAgent` graph against LocAgent v2.3's own graph dumps.
//!
//! The dumps (`tests/fixtures/locagent/graph*.jsonl`) come from `build_graph(repo,
//! global_import=True)` of LocAgent @ a5e28dd under Python 3.12: one record per node (ID, type,
//! lines) and per distinct typed edge (with its multiplicity). The graph is built in-process
//! through the library and compared as sets. The fixture and the edge cases
//! (`tests/fixtures/locagent/edge/`) always run; requests 2.31.0 and flask 3.0.0 run when `CDS_PARITY_CORPORA` names a directory holding their unpacked sdists
//! (`bench/parity.sh` sets that up).
//!
//! Order: LocAgent's tools list a node's neighbours in networkx insertion order, so the build
//! must also insert in LocAgent's order (its "canonical mode": sorted `os.walk`, sorted name
//! sets). `order*.jsonl` hold the node order and the first insertion of each distinct typed edge
//! from such a run; the tests compare every node's successor and predecessor lists (neighbour
//! by first insertion, then edge types in insertion order), which is what the tree tool prints.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cds::graph::{self, Mode, NodeKind, Source};
use cds::lang::Extractors;
use cds::walk::{WalkOptions, walk};

/// A graph in the dumps' terms.
#[derive(Default)]
struct Dump {
    /// `type id start-end` per node.
    nodes: BTreeSet<String>,
    /// (src, type, dst) -> multiplicity.
    edges: BTreeMap<(String, String, String), u64>,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/locagent")
}

fn node_key(kind: &str, id: &str, start: Option<u64>, end: Option<u64>) -> String {
    let line = |l: Option<u64>| l.map_or("-".to_string(), |l| l.to_string());
    format!("{kind} {id} {}..{}", line(start), line(end))
}

/// Reads a LocAgent dump.
fn read_dump(path: &Path) -> Dump {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut dump = Dump::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("dump line is JSON");
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        if v["kind"] == "node" {
            dump.nodes.insert(node_key(
                &s("type"),
                &s("id"),
                v["start_line"].as_u64(),
                v["end_line"].as_u64(),
            ));
        } else {
            let count = v["count"].as_u64().unwrap_or(1);
            *dump.edges.entry((s("src"), s("type"), s("dst"))).or_default() += count;
        }
    }
    dump
}

/// A built graph: the dump's terms, plus node IDs and typed edges in insertion order.
struct Built {
    dump: Dump,
    order: Order,
}

/// Node IDs in order, and (src, type, dst) in insertion order.
#[derive(Default)]
struct Order {
    nodes: Vec<String>,
    edges: Vec<(String, String, String)>,
}

/// Builds the LocAgent-mode graph of `root` through the library, as `cds-build --compat
/// locagent` does, and converts it to the dump's terms.
fn build(root: &Path) -> Built {
    let walked = walk(root, &WalkOptions { locagent: true, ..WalkOptions::default() })
        .unwrap_or_else(|e| panic!("cannot walk {}: {e}", root.display()));
    let mut ex = Extractors::default();
    let mut rels = Vec::new();
    let mut facts = Vec::new();
    for f in &walked.files {
        let bytes = std::fs::read(&f.abs).unwrap_or_else(|e| panic!("{}: {e}", f.abs.display()));
        // LocAgent reads files as UTF-8 text and drops those that do not decode.
        if std::str::from_utf8(&bytes).is_err() {
            continue;
        }
        facts.push(ex.extract(f.lang, &bytes));
        rels.push(f.rel.clone());
    }
    let sources: Vec<Source> = rels
        .iter()
        .zip(&facts)
        .map(|(rel, facts)| Source { rel, facts, lang: cds::lang::Lang::Python })
        .collect();
    let g = graph::build(&sources, &walked.dirs, &[], Mode::LocAgent);

    let mut dump = Dump::default();
    let mut order = Order::default();
    let id = |n: u32| String::from_utf8_lossy(&g.nodes[n as usize].id).into_owned();
    for (i, n) in g.nodes.iter().enumerate() {
        let lines = match n.kind {
            NodeKind::Class | NodeKind::Function => {
                let d = &sources[n.file as usize].facts.defs[n.def as usize];
                (Some(d.line_head as u64), Some(d.line_end as u64))
            }
            _ => (None, None),
        };
        dump.nodes.insert(node_key(n.kind.name(), &id(i as u32), lines.0, lines.1));
        order.nodes.push(id(i as u32));
    }
    for e in &g.edges {
        let key = (id(e.src), e.kind.locagent_name().to_string(), id(e.dst));
        order.edges.push(key.clone());
        *dump.edges.entry(key).or_default() += 1;
    }
    Built { dump, order }
}

/// Reads an order file.
fn read_order(path: &Path) -> Order {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut order = Order::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("order line is JSON");
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        if v["kind"] == "node" {
            order.nodes.push(s("id"));
        } else {
            order.edges.push((s("src"), s("type"), s("dst")));
        }
    }
    order
}

/// Per node, its neighbours in first-insertion order, each with its edge types in insertion
/// order: successors when `out`, else predecessors.
fn neighbours(edges: &[(String, String, String)], out: bool) -> BTreeMap<&str, Vec<String>> {
    let mut adj: BTreeMap<&str, Vec<(&str, Vec<&str>)>> = BTreeMap::new();
    for (s, t, d) in edges {
        let (from, to) = if out { (s, d) } else { (d, s) };
        let list = adj.entry(from.as_str()).or_default();
        match list.iter_mut().find(|(n, _)| n == to) {
            Some((_, types)) if !types.contains(&t.as_str()) => types.push(t),
            Some(_) => {}
            None => list.push((to, vec![t])),
        }
    }
    adj.into_iter()
        .map(|(k, v)| (k, v.into_iter().map(|(n, t)| format!("{} {n}", t.join("+"))).collect()))
        .collect()
}

/// Differences in node order and neighbour order (first 30), empty when they agree.
fn order_diff(want: &Order, got: &Order) -> String {
    let mut out = String::new();
    if let Some(i) =
        (0..want.nodes.len().max(got.nodes.len())).find(|&i| want.nodes.get(i) != got.nodes.get(i))
    {
        out.push_str(&format!(
            "node order differs at #{i}: LocAgent {:?}, cds {:?}\n",
            want.nodes.get(i),
            got.nodes.get(i)
        ));
    }
    let mut bad = 0;
    for (dir, is_out) in [("successors", true), ("predecessors", false)] {
        let (w, g) = (neighbours(&want.edges, is_out), neighbours(&got.edges, is_out));
        let keys: BTreeSet<&str> = w.keys().chain(g.keys()).copied().collect();
        for k in keys {
            if w.get(k) != g.get(k) {
                bad += 1;
                if bad <= 30 {
                    out.push_str(&format!(
                        "{dir} of {k}:\n    LocAgent {:?}\n    cds      {:?}\n",
                        w.get(k),
                        g.get(k)
                    ));
                }
            }
        }
    }
    if bad > 30 {
        out.push_str(&format!("... {bad} neighbour lists differ in all\n"));
    }
    out
}

/// Lists what differs (first 30 of each kind); empty when the sets agree.
fn diff(want: &Dump, got: &Dump) -> String {
    let mut out = String::new();
    let mut section = |title: &str, items: Vec<String>| {
        if items.is_empty() {
            return;
        }
        out.push_str(&format!("{title} ({}):\n", items.len()));
        for it in items.iter().take(30) {
            out.push_str(&format!("    {it}\n"));
        }
    };
    section("missing nodes", want.nodes.difference(&got.nodes).cloned().collect());
    section("extra nodes", got.nodes.difference(&want.nodes).cloned().collect());
    let fmt = |(s, t, d): &(String, String, String)| format!("{s} -[{t}]-> {d}");
    let missing = want.edges.keys().filter(|k| !got.edges.contains_key(*k)).map(fmt).collect();
    section("missing edges", missing);
    let extra = got.edges.keys().filter(|k| !want.edges.contains_key(*k)).map(fmt).collect();
    section("extra edges", extra);
    out
}

/// Parallel edges whose multiplicity differs (LocAgent's graph is a multigraph; only the set
/// is required to match, so these are reported, not asserted).
fn count_notes(want: &Dump, got: &Dump) -> Vec<String> {
    want.edges
        .iter()
        .filter_map(|(k, &w)| {
            let g = got.edges.get(k).copied()?;
            (g != w).then(|| format!("{} -[{}]-> {}: LocAgent {w}, cds {g}", k.0, k.1, k.2))
        })
        .collect()
}

fn check(name: &str, root: &Path, expected: &Path, expected_order: Option<&Path>) {
    let want = read_dump(expected);
    let built = build(root);
    let got = &built.dump;
    let d = diff(&want, got);
    let notes = count_notes(&want, got);
    for n in notes.iter().take(30) {
        eprintln!("{name}: multiplicity differs: {n}");
    }
    assert!(
        d.is_empty(),
        "{name}: the LocAgent-mode graph differs from LocAgent's ({} nodes / {} edges \
         expected, {} / {} built):\n{d}",
        want.nodes.len(),
        want.edges.len(),
        got.nodes.len(),
        got.edges.len()
    );
    // Only once the sets agree: an order difference is then about order alone.
    if let Some(path) = expected_order {
        let d = order_diff(&read_order(path), &built.order);
        assert!(d.is_empty(), "{name}: insertion order differs from LocAgent's:\n{d}");
    }
}

#[test]
fn parity_fixture() {
    let dir = fixtures();
    check("fixture", &dir.join("repo"), &dir.join("graph.jsonl"), Some(&dir.join("order.jsonl")));
}

/// LocAgent quirks beyond the shared fixture (see `tests/fixtures/locagent/edge/README.md`).
#[test]
fn parity_edge_cases() {
    let dir = fixtures().join("edge");
    check(
        "edge cases",
        &dir.join("repo"),
        &dir.join("graph.jsonl"),
        Some(&dir.join("order.jsonl")),
    );
}

/// A corpus under `CDS_PARITY_CORPORA`, or None (with a note) when the variable is unset.
fn corpus(dir_name: &str) -> Option<PathBuf> {
    let Some(base) = std::env::var_os("CDS_PARITY_CORPORA") else {
        eprintln!(
            "skipping {dir_name} parity: set CDS_PARITY_CORPORA to a directory holding the \
             unpacked sdist (bench/parity.sh downloads it)"
        );
        return None;
    };
    let root = PathBuf::from(base).join(dir_name);
    assert!(root.is_dir(), "CDS_PARITY_CORPORA has no {dir_name}/ ({})", root.display());
    Some(root)
}

#[test]
fn parity_requests() {
    if let Some(root) = corpus("requests-2.31.0") {
        let dir = fixtures();
        let (graph, order) = (dir.join("graph_requests.jsonl"), dir.join("order_requests.jsonl"));
        check("requests 2.31.0", &root, &graph, Some(&order));
    }
}

#[test]
fn parity_flask() {
    if let Some(root) = corpus("flask-3.0.0") {
        check("flask 3.0.0", &root, &fixtures().join("graph_flask.jsonl"), None);
    }
}
