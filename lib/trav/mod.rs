//! `cds-trav`'s logic: walk the graph from entities, breadth-first ([`bfs`]) or as LocAgent's
//! expanded tree ([`tree`]).
//!
//! Both walks share the filters of [`Walk`]: the relations to follow, the entity kinds to keep
//! (a neighbour of another kind is neither shown nor walked through, as in LocAgent), and tests
//! (left out unless asked for). Direction `down` follows out-edges (what an entity contains,
//! imports, invokes, inherits), `up` follows in-edges (who contains, imports, invokes, inherits
//! it); with `both` only the start entities expand both ways, and every other entity keeps
//! going the way it was reached, so a walk up through callers never turns back down into their
//! callees (LocAgent's rule, which keeps `-d both` readable).
//!
//! Neighbours come in the index's edge order, which is networkx's adjacency order (the order
//! the first edge to each neighbour was added), so on a `--compat locagent` index the tree is
//! LocAgent's byte for byte.
//!
//! Output is bounded: `limit` caps the entities (BFS) or lines (tree), and `fanout` caps how
//! many new neighbours one entity contributes through one relation in one direction, so a hub
//! with thousands of callers cannot flood the output, nor a class's many methods crowd out its
//! callers. What was cut is counted per entity ([`Step::cut`]) and reported by the CLI.

pub mod cli;

use fxhash::{FxHashMap, FxHashSet};

use crate::graph::{EdgeKind, FLAG_TEST, NodeKind};
use crate::index::Index;

/// Which edges a walk follows from the start entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// Out-edges: what the entity contains, imports, invokes, inherits.
    #[default]
    Down,
    /// In-edges: who contains, imports, invokes, inherits the entity.
    Up,
    /// Both, at the start entities; then each branch keeps its own direction.
    Both,
}

impl Direction {
    /// Parses `down`, `up`, `both`, and LocAgent's `downstream`, `upstream`.
    pub fn parse(s: &str) -> Option<Direction> {
        Some(match s {
            "down" | "downstream" => Direction::Down,
            "up" | "upstream" => Direction::Up,
            "both" => Direction::Both,
            _ => return None,
        })
    }
}

/// A walk's settings.
#[derive(Debug, Clone)]
pub struct Walk {
    /// Maximum hops from a start entity; `None`: unlimited.
    pub hops: Option<u32>,
    /// Direction at the start entities.
    pub direction: Direction,
    /// Entity kinds to keep, one bit per `NodeKind as u8`; 0 keeps every kind.
    pub kinds: u8,
    /// Relations to follow, one bit per `EdgeKind as u8`; 0 follows every relation.
    pub rels: u8,
    /// Walk into test files and directories too.
    pub tests: bool,
    /// At most this many entities besides the start ones (BFS) or tree lines; 0: no limit.
    pub limit: usize,
    /// At most this many new neighbours per entity, relation and direction; 0: no limit.
    pub fanout: usize,
}

impl Default for Walk {
    fn default() -> Walk {
        Walk {
            hops: Some(1),
            direction: Direction::Down,
            kinds: 0,
            rels: 0,
            tests: false,
            limit: 200,
            fanout: 100,
        }
    }
}

impl Walk {
    /// True when neighbour `n` may be shown and walked through.
    fn node_ok(&self, ix: &Index, n: u32) -> bool {
        (self.kinds == 0 || self.kinds & (1 << ix.kind(n) as u8) != 0)
            && (self.tests || ix.flags(n) & FLAG_TEST == 0)
    }

    /// True when edges of kind `k` are followed.
    fn rel_ok(&self, k: EdgeKind) -> bool {
        self.rels == 0 || self.rels & (1 << k as u8) != 0
    }

    /// True when hop `hop` may still be expanded.
    fn expands(&self, hop: u32) -> bool {
        self.hops.is_none_or(|h| hop < h)
    }
}

/// How an entity was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Via {
    /// The entity it was reached from.
    pub from: u32,
    /// The relation followed.
    pub rel: EdgeKind,
    /// True when the edge was followed backwards (`from` is what this entity contains,
    /// imports, invokes or inherits); false when `from` contains, imports, invokes or
    /// inherits this entity.
    pub up: bool,
    /// The edge's confidence (see [`conf_name`]).
    pub meta: u8,
}

/// One entity of a BFS, in the order it was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The entity.
    pub node: u32,
    /// Hops from the nearest start entity (0 for a start entity).
    pub hop: u32,
    /// How it was first reached; `None` for a start entity.
    pub via: Option<Via>,
    /// Neighbours of this entity that passed the filters but were left out by `limit` or
    /// `fanout`.
    pub cut: u32,
}

/// One edge of the walked subgraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Source (the one that contains, imports, invokes, inherits).
    pub src: u32,
    /// Relation.
    pub rel: EdgeKind,
    /// Target.
    pub dst: u32,
    /// Confidence (see [`conf_name`]).
    pub meta: u8,
}

/// What a BFS reached.
#[derive(Debug, Default)]
pub struct Reach {
    /// The entities, start entities first, then by hop, each once.
    pub steps: Vec<Step>,
    /// Every edge followed between two reached entities, each once, in the order followed.
    pub edges: Vec<Edge>,
    /// True when `limit` left entities out.
    pub limited: bool,
    /// Entities whose neighbours `fanout` cut.
    pub hubs: u32,
}

/// Breadth-first walk from `roots` (duplicates are walked once).
pub fn bfs(ix: &Index, roots: &[u32], w: &Walk) -> Reach {
    let mut r = Reach::default();
    let mut index_of: FxHashMap<u32, usize> = FxHashMap::default();
    // The direction each step expands in (parallel to `r.steps`).
    let mut dirs: Vec<Direction> = Vec::new();
    for &n in roots {
        if index_of.insert(n, r.steps.len()).is_none() {
            r.steps.push(Step { node: n, hop: 0, via: None, cut: 0 });
            dirs.push(w.direction);
        }
    }
    let start = r.steps.len();
    let mut edge_seen: FxHashSet<(u32, u8, u32)> = FxHashSet::default();
    let mut cut: FxHashSet<u32> = FxHashSet::default();
    let mut i = 0;
    while i < r.steps.len() {
        let Step { node: n, hop, .. } = r.steps[i];
        let dir = dirs[i];
        i += 1;
        if !w.expands(hop) {
            continue;
        }
        let down = matches!(dir, Direction::Down | Direction::Both);
        let up = matches!(dir, Direction::Up | Direction::Both);
        let outs = ix.out_edges(n).filter(|_| down).map(|e| (e, false));
        let ins = ix.in_edges(n).filter(|_| up).map(|e| (e, true));
        // New neighbours taken so far, per direction and relation: the cap applies to each
        // group, so a class's hundred methods cannot crowd out its callers.
        let mut added = [[0usize; 4]; 2];
        let mut fanned = false;
        cut.clear();
        for (e, is_up) in outs.chain(ins) {
            if !w.rel_ok(e.kind) || !w.node_ok(ix, e.node) {
                continue;
            }
            let (src, dst) = if is_up { (e.node, n) } else { (n, e.node) };
            let edge = Edge { src, rel: e.kind, dst, meta: e.meta };
            if index_of.contains_key(&e.node) {
                if edge_seen.insert((src, e.kind as u8, dst)) {
                    r.edges.push(edge);
                }
                continue;
            }
            let group = &mut added[usize::from(is_up)][e.kind as usize];
            if w.fanout > 0 && *group >= w.fanout {
                fanned = true;
                cut.insert(e.node);
                continue;
            }
            if w.limit > 0 && r.steps.len() - start >= w.limit {
                r.limited = true;
                cut.insert(e.node);
                continue;
            }
            *group += 1;
            index_of.insert(e.node, r.steps.len());
            let via = Via { from: n, rel: e.kind, up: is_up, meta: e.meta };
            r.steps.push(Step { node: e.node, hop: hop + 1, via: Some(via), cut: 0 });
            dirs.push(if is_up { Direction::Up } else { Direction::Down });
            edge_seen.insert((src, e.kind as u8, dst));
            r.edges.push(edge);
        }
        r.steps[i - 1].cut = cut.len() as u32;
        r.hubs += u32::from(fanned);
    }
    r
}

/// How an edge was found: `Some("value-flow")` for edges only the value-flow analysis of
/// Python finds (their confidence byte is at least [`crate::graph::link::META_FLOW`]).
pub fn found_by(meta: u8) -> Option<&'static str> {
    (meta >= crate::graph::link::META_FLOW).then_some("value-flow")
}

/// How edge confidence is written: `exact` (resolved), `guess` (the only candidate by name),
/// `one-of-N` (one of N same-named candidates).
pub fn conf_name(meta: u8) -> std::borrow::Cow<'static, str> {
    match meta {
        0 | crate::graph::link::META_FLOW => "exact".into(),
        n if n > crate::graph::link::META_FLOW => {
            format!("one-of-{}", n - crate::graph::link::META_FLOW).into()
        }
        1 => "guess".into(),
        n => format!("one-of-{n}").into(),
    }
}

/// The relation as seen from the reached entity: `invoked-by` when it was reached downward
/// (`from` invokes it), `invokes` when reached upward (it invokes `from`).
pub fn relation_phrase(rel: EdgeKind, up: bool) -> &'static str {
    match (rel, up) {
        (EdgeKind::Contain, false) => "contained-by",
        (EdgeKind::Import, false) => "imported-by",
        (EdgeKind::Invoke, false) => "invoked-by",
        (EdgeKind::Inherit, false) => "inherited-by",
        (EdgeKind::Contain, true) => "contains",
        (EdgeKind::Import, true) => "imports",
        (EdgeKind::Invoke, true) => "invokes",
        (EdgeKind::Inherit, true) => "inherits",
    }
}

/// The label of a tree edge: the relation's name (LocAgent's `invokes` on a `--compat
/// locagent` index, cds's `invoke` otherwise), with `-by` when followed upstream.
pub fn tree_label(rel: EdgeKind, up: bool, locagent: bool) -> String {
    let name = if locagent { rel.locagent_name() } else { rel.name() };
    if up { format!("{name}-by") } else { name.to_string() }
}

/// One LocAgent tree, as text without a final newline.
#[derive(Debug, Default)]
pub struct Tree {
    /// The lines, joined by `\n`.
    pub text: String,
    /// True when `limit` stopped it (the last line says so).
    pub limited: bool,
    /// Entities whose children `fanout` cut (each has a `... N more` line).
    pub hubs: u32,
}

/// A pending line of the tree walk.
enum Item {
    /// Visit `node` (see [`tree`]).
    Visit {
        node: u32,
        prefix: String,
        last: bool,
        level: u32,
        label: Option<(EdgeKind, bool)>,
        dir: Direction,
    },
    /// The `... N more` line under a hub.
    More { prefix: String, count: usize },
}

/// LocAgent's `traverse_tree_structure` from `root` (research/locagent-spec.md §2.1): a
/// pre-order DFS that prints a node at every appearance but expands it only at the first; each
/// edge `(src, rel, dst)` is printed at most once; a node printed at the last level is still
/// marked expanded, and its edges used. `locagent` picks LocAgent's relation names.
pub fn tree(ix: &Index, root: u32, w: &Walk, locagent: bool) -> Tree {
    let mut t = Tree::default();
    let mut visited: FxHashSet<u32> = FxHashSet::default();
    let mut used: FxHashSet<(u32, u8, u32)> = FxHashSet::default();
    let mut stack = vec![Item::Visit {
        node: root,
        prefix: String::new(),
        last: false,
        level: 0,
        label: None,
        dir: w.direction,
    }];
    let mut lines = 0usize;
    let mut children: Vec<(u32, EdgeKind, bool)> = Vec::new();
    while let Some(item) = stack.pop() {
        let (node, prefix, last, level, label, dir) = match item {
            Item::Visit { node, prefix, last, level, label, dir } => {
                (node, prefix, last, level, label, dir)
            }
            Item::More { prefix, count } => {
                push_line(&mut t.text, &format!("{prefix}└── ... {count} more (--fanout)"));
                continue;
            }
        };
        if w.hops.is_some_and(|h| level > h) {
            continue;
        }
        let id = crate::id::display(ix.id(node));
        let new_prefix = match label {
            None => {
                push_line(&mut t.text, &id);
                String::new()
            }
            Some((rel, up)) => {
                if w.limit > 0 && lines >= w.limit {
                    t.limited = true;
                    push_line(
                        &mut t.text,
                        &format!("... cut at --limit {} lines (--limit 0 shows all)", w.limit),
                    );
                    break;
                }
                lines += 1;
                let connector = format!(
                    "{}{} ── ",
                    if last { "└── " } else { "├── " },
                    tree_label(rel, up, locagent)
                );
                push_line(&mut t.text, &format!("{prefix}{connector}{id}"));
                let pad = " ".repeat(connector.chars().count() - 1);
                format!("{prefix}{}{pad}", if last { ' ' } else { '│' })
            }
        };
        if !visited.insert(node) {
            continue;
        }
        children.clear();
        let is_root = node == root;
        if dir == Direction::Down || (is_root && w.direction == Direction::Both) {
            for e in ix.out_edges(node) {
                if w.node_ok(ix, e.node)
                    && w.rel_ok(e.kind)
                    && used.insert((node, e.kind as u8, e.node))
                {
                    children.push((e.node, e.kind, false));
                }
            }
        }
        if dir == Direction::Up || (is_root && w.direction == Direction::Both) {
            for e in ix.in_edges(node) {
                if w.node_ok(ix, e.node)
                    && w.rel_ok(e.kind)
                    && used.insert((e.node, e.kind as u8, node))
                {
                    children.push((e.node, e.kind, true));
                }
            }
        }
        let more = if w.fanout > 0 && children.len() > w.fanout {
            // At most `fanout` children per direction and relation, in their order.
            let mut taken = [[0usize; 4]; 2];
            let before = children.len();
            children.retain(|&(_, rel, up)| {
                let group = &mut taken[usize::from(up)][rel as usize];
                *group += 1;
                *group <= w.fanout
            });
            before - children.len()
        } else {
            0
        };
        if more > 0 {
            t.hubs += 1;
            stack.push(Item::More { prefix: new_prefix.clone(), count: more });
        }
        let more = more > 0;
        let n = children.len();
        for (i, &(child, rel, up)) in children.iter().enumerate().rev() {
            stack.push(Item::Visit {
                node: child,
                prefix: new_prefix.clone(),
                last: i + 1 == n && !more,
                level: level + 1,
                label: Some((rel, up)),
                dir: if up { Direction::Up } else { Direction::Down },
            });
        }
    }
    t
}

fn push_line(text: &mut String, line: &str) {
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(line);
}

/// Parses a comma-separated list of entity kinds into a [`Walk::kinds`] mask.
pub fn parse_kinds(list: &str) -> Result<u8, String> {
    let mut mask = 0u8;
    for k in list.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        let kind = NodeKind::parse(k).ok_or_else(|| {
            format!("unknown entity kind '{k}': expected directory, file, class or function")
        })?;
        mask |= 1 << kind as u8;
    }
    Ok(mask)
}

/// Parses a comma-separated list of relations (either spelling) into a [`Walk::rels`] mask.
pub fn parse_rels(list: &str) -> Result<u8, String> {
    let mut mask = 0u8;
    for r in list.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let rel = EdgeKind::parse(r).ok_or_else(|| {
            format!("unknown relation '{r}': expected contain, import, invoke or inherit")
        })?;
        mask |= 1 << rel as u8;
    }
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(parse_kinds("class,function"), Ok(0b1100));
        assert_eq!(parse_kinds("file, dir"), Ok(0b0011));
        assert!(parse_kinds("module").is_err());
        assert_eq!(parse_rels("invokes,inherit"), Ok(0b1100));
        assert_eq!(parse_rels("contain"), Ok(0b0001));
        assert!(parse_rels("calls-by").is_err());
    }

    #[test]
    fn phrases() {
        assert_eq!(relation_phrase(EdgeKind::Invoke, false), "invoked-by");
        assert_eq!(relation_phrase(EdgeKind::Invoke, true), "invokes");
        assert_eq!(tree_label(EdgeKind::Contain, true, true), "contains-by");
        assert_eq!(tree_label(EdgeKind::Import, false, false), "import");
        assert_eq!(conf_name(0), "exact");
        assert_eq!(conf_name(1), "guess");
        assert_eq!(conf_name(3), "one-of-3");
        assert_eq!(Direction::parse("upstream"), Some(Direction::Up));
    }
}
