//! Facts of all files -> the linked graph.
//!
//! Nodes are directories, files, classes and functions with LocAgent's IDs (`/`, `pkg/sub`,
//! `pkg/mod.py`, `pkg/mod.py:Class.method`). Edges are `contain`, `import`, `invoke` and
//! `inherit`, each with a confidence byte (see [`Edge::meta`]). Two linkers fill the edges:
//! [`link`] (cds's own resolution) and [`compat`] (LocAgent v2.3's rules, for parity).
//!
//! Node order is a walk in `os.walk` order (a directory, its files each followed by their
//! definitions in source order, then its subdirectories), so node numbers and child order are
//! stable and match LocAgent's insertion order.

pub mod compat;
pub mod link;
pub mod scope;

use std::collections::HashMap;

use crate::extract::{DefKind, FileFacts};
use crate::lang::Lang;

/// "No node" in `u32` columns.
pub const NONE: u32 = u32::MAX;

/// Node kinds, with their stable on-disk codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum NodeKind {
    /// A directory (`/` is the root).
    Directory = 0,
    /// A source file.
    File = 1,
    /// A class.
    Class = 2,
    /// A function or method.
    Function = 3,
}

impl NodeKind {
    /// All kinds, in code order.
    pub const ALL: [NodeKind; 4] =
        [NodeKind::Directory, NodeKind::File, NodeKind::Class, NodeKind::Function];

    /// From the on-disk code.
    pub fn from_code(c: u8) -> Option<NodeKind> {
        Self::ALL.get(c as usize).copied()
    }

    /// The name used in output, flags and JSON (LocAgent's).
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Directory => "directory",
            NodeKind::File => "file",
            NodeKind::Class => "class",
            NodeKind::Function => "function",
        }
    }

    /// Parses a kind name (also `dir`, `func`, `method`).
    pub fn parse(s: &str) -> Option<NodeKind> {
        Some(match s {
            "directory" | "dir" | "d" => NodeKind::Directory,
            "file" | "f" => NodeKind::File,
            "class" | "c" => NodeKind::Class,
            "function" | "func" | "fn" | "method" => NodeKind::Function,
            _ => return None,
        })
    }
}

/// Edge kinds, with their stable on-disk codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EdgeKind {
    /// Directory -> directory / file, file -> top-level definition, definition -> nested one.
    Contain = 0,
    /// Importer -> imported module or entity.
    Import = 1,
    /// Caller -> callee (a class when instantiated; a decorator from what it decorates).
    Invoke = 2,
    /// Subclass -> base class.
    Inherit = 3,
}

impl EdgeKind {
    /// All kinds, in code order.
    pub const ALL: [EdgeKind; 4] =
        [EdgeKind::Contain, EdgeKind::Import, EdgeKind::Invoke, EdgeKind::Inherit];

    /// From the on-disk code.
    pub fn from_code(c: u8) -> Option<EdgeKind> {
        Self::ALL.get(c as usize).copied()
    }

    /// cds's name (`contain`, `import`, `invoke`, `inherit`).
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Contain => "contain",
            EdgeKind::Import => "import",
            EdgeKind::Invoke => "invoke",
            EdgeKind::Inherit => "inherit",
        }
    }

    /// LocAgent's name (`contains`, `imports`, `invokes`, `inherits`).
    pub fn locagent_name(self) -> &'static str {
        match self {
            EdgeKind::Contain => "contains",
            EdgeKind::Import => "imports",
            EdgeKind::Invoke => "invokes",
            EdgeKind::Inherit => "inherits",
        }
    }

    /// Parses either spelling.
    pub fn parse(s: &str) -> Option<EdgeKind> {
        Some(match s {
            "contain" | "contains" => EdgeKind::Contain,
            "import" | "imports" => EdgeKind::Import,
            "invoke" | "invokes" | "call" | "calls" => EdgeKind::Invoke,
            "inherit" | "inherits" => EdgeKind::Inherit,
            _ => return None,
        })
    }
}

/// Node flag: the node is (in) a test file.
pub const FLAG_TEST: u8 = 1;
/// Node flag: the file had syntax errors (its facts are what the parser recovered).
pub const FLAG_SYNTAX_ERROR: u8 = 2;
/// Node flag: `async def`.
pub const FLAG_ASYNC: u8 = 4;
/// Node flag: a class-like node that only groups others (a TS namespace, a Rust inline `mod`);
/// the module-level entity of its members is cut after it.
pub const FLAG_NAMESPACE: u8 = 8;
/// Node flag: the node is (in) a minified or generated file (see `FileFacts::generated`).
pub const FLAG_GENERATED: u8 = 16;
/// Node flag: a method written outside its type (a Go receiver, a Rust `impl`) in a file that
/// does not define the type: the first part of its qualified name below its container is the
/// type, which has no node of its own here (`tsdb/head_append.go:memSeries.append`). Its
/// module-level entity is `FILE:Type` (DESIGN §8).
pub const FLAG_OWNED: u8 = 32;
/// Node flag: the node stands for several definitions of one qualified name in its file (Java
/// and C++ overloads, a Python property and its setter, `#[cfg]` variants): its span is the
/// first one's, and readers find the others in the file's facts (`Index::definitions`).
pub const FLAG_MERGED: u8 = 64;

/// Edge confidence: resolved through scopes and imports.
pub const META_EXACT: u8 = 0;
/// Edge confidence: the only candidate found by name, not proven.
pub const META_GUESS: u8 = 1;

/// One node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Its kind.
    pub kind: NodeKind,
    /// The entity ID, as bytes (a path may not be UTF-8).
    pub id: Vec<u8>,
    /// The containing node ([`NONE`] for the root, and for orphan files in LocAgent mode).
    pub parent: u32,
    /// Index of its file in the build's file list ([`NONE`] for directories).
    pub file: u32,
    /// Index of its definition in the file's facts ([`NONE`] for files and directories).
    pub def: u32,
    /// `FLAG_*` bits.
    pub flags: u8,
}

/// One edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    /// Source node.
    pub src: u32,
    /// Target node.
    pub dst: u32,
    /// Kind.
    pub kind: EdgeKind,
    /// Confidence: [`META_EXACT`], [`META_GUESS`], or n >= 2 for "one of n candidates"
    /// (saturating at 255).
    pub meta: u8,
}

/// The linked graph, before it is laid out on disk.
#[derive(Debug, Default, Clone)]
pub struct Graph {
    /// Nodes in walk order.
    pub nodes: Vec<Node>,
    /// Edges in insertion order (the order LocAgent's tools list neighbours in).
    pub edges: Vec<Edge>,
}

/// A file handed to the linkers.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// Path relative to the repository root, `/`-separated.
    pub rel: &'a [u8],
    /// Its facts.
    pub facts: &'a FileFacts,
    /// Its language.
    pub lang: Lang,
}

/// Which resolution rules to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// cds's own resolution.
    #[default]
    Native = 0,
    /// LocAgent v2.3's graph, quirks included.
    LocAgent = 1,
}

impl Mode {
    /// Name used in the index header and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Native => "native",
            Mode::LocAgent => "locagent",
        }
    }

    /// Code stored in the index (`Meta::mode`).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The mode of a stored code (an unknown code reads as native).
    pub fn from_code(c: u8) -> Mode {
        if c == Mode::LocAgent as u8 { Mode::LocAgent } else { Mode::Native }
    }
}

/// Builds the graph of `files` (sorted by path) with the given rules.
/// `dirs` lists every directory the walk entered (used by LocAgent's directory pruning).
pub fn build(
    files: &[Source],
    dirs: &[Vec<u8>],
    projects: &[crate::lang::ProjectFile],
    mode: Mode,
) -> Graph {
    match mode {
        Mode::Native => {
            let (mut g, defs) = native_nodes(files);
            link::link(&mut g, files, &defs, projects);
            g
        }
        Mode::LocAgent => compat::build(files, dirs),
    }
}

impl Graph {
    /// Adds a node and returns its number.
    pub fn add_node(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Adds an edge.
    pub fn add_edge(&mut self, src: u32, dst: u32, kind: EdgeKind, meta: u8) {
        self.edges.push(Edge { src, dst, kind, meta });
    }
}

/// Maps (file index, def index) to node numbers: `defs[file][def]`.
pub type DefNodes = Vec<Vec<u32>>;

/// Nodes and contain edges for cds's own graph: directories that hold indexed files, files,
/// and every definition (`__init__` included). Definitions sharing a qualified name (a property
/// and its setter, `if`/`else` alternatives) become one node: the first definition's span.
pub fn native_nodes(files: &[Source]) -> (Graph, DefNodes) {
    let mut g = Graph::default();
    g.nodes.reserve(files.iter().map(|f| f.facts.defs.len() + 1).sum::<usize>() + files.len() / 4);
    let mut defs: DefNodes = vec![Vec::new(); files.len()];
    let packages = package_dirs(files);
    let tests: Vec<bool> = files.iter().map(|f| is_test_path(f.rel, &packages)).collect();
    let mut dir_node: fxhash::FxHashMap<&[u8], u32> = Default::default();
    let mut quals = String::new();
    let mut qual_at: Vec<std::ops::Range<usize>> = Vec::new();
    let mut test_defs: Vec<bool> = Vec::new();
    let root = g.add_node(Node {
        kind: NodeKind::Directory,
        id: b"/".to_vec(),
        parent: NONE,
        file: NONE,
        def: NONE,
        flags: 0,
    });
    dir_node.insert(b"", root);

    for fi in walk_order(files) {
        let f = &files[fi];
        // Directories on the way, created on first use (so only those holding files exist).
        let dir = parent_dir(f.rel);
        let mut parent = root;
        let mut end = 0;
        for comp in dir.split(|&c| c == b'/').filter(|c| !c.is_empty()) {
            end += comp.len() + usize::from(end > 0);
            let path = &dir[..end];
            parent = match dir_node.get(path) {
                Some(&n) => n,
                None => {
                    let n = g.add_node(Node {
                        kind: NodeKind::Directory,
                        id: path.to_vec(),
                        parent,
                        file: NONE,
                        def: NONE,
                        flags: if is_test_path(path, &packages) { FLAG_TEST } else { 0 },
                    });
                    g.add_edge(parent, n, EdgeKind::Contain, META_EXACT);
                    dir_node.insert(path, n);
                    n
                }
            };
        }
        let test = if tests[fi] { FLAG_TEST } else { 0 }
            | if f.facts.generated { FLAG_GENERATED } else { 0 };
        let file_flags = test | if f.facts.syntax_errors > 0 { FLAG_SYNTAX_ERROR } else { 0 };
        let file_node = g.add_node(Node {
            kind: NodeKind::File,
            id: f.rel.to_vec(),
            parent,
            file: fi as u32,
            def: NONE,
            flags: file_flags,
        });
        g.add_edge(parent, file_node, EdgeKind::Contain, META_EXACT);

        // Each definition's qualified name ([`FileFacts::qual_name`]: its parent's extended, a
        // parent coming before its children), as a range of `quals`, one buffer for the file
        // (a string per definition was most of this function's time).
        quals.clear();
        qual_at.clear();
        test_defs.clear();
        for d in &f.facts.defs {
            let start = quals.len();
            if let Some(p) = d.parent {
                quals.extend_from_within(qual_at[p as usize].clone());
                quals.push('.');
            }
            if let Some(o) = &d.owner {
                quals.push_str(o);
                quals.push('.');
            }
            quals.push_str(&d.name);
            qual_at.push(start..quals.len());
            // A Rust `mod tests` or a test namespace marks what it holds as tests.
            test_defs.push(
                d.parent.is_some_and(|p| test_defs[p as usize])
                    || (d.namespace && matches!(d.name.as_str(), "tests" | "test")),
            );
        }
        let n_defs = f.facts.defs.len();
        let mut by_qual: fxhash::FxHashMap<&str, u32> =
            HashMap::with_capacity_and_hasher(n_defs, Default::default());
        let mut nodes_of_def = Vec::with_capacity(n_defs);
        for (di, d) in f.facts.defs.iter().enumerate() {
            let qual = &quals[qual_at[di].clone()];
            if let Some(&n) = by_qual.get(qual) {
                g.nodes[n as usize].flags |= FLAG_MERGED;
                nodes_of_def.push(n);
                continue;
            }
            // A method written outside its type (`d.owner`) sits under the type's node when the
            // file defines the type, else under its lexical parent. Its container's name is
            // its own without `.name`.
            let lexical = d.parent.map_or(file_node, |p| nodes_of_def[p as usize]);
            let typed = d
                .owner
                .as_ref()
                .and_then(|_| by_qual.get(&qual[..qual.len() - d.name.len() - 1]).copied());
            let parent_node = typed.unwrap_or(lexical);
            let mut id = Vec::with_capacity(f.rel.len() + 1 + qual.len());
            id.extend_from_slice(f.rel);
            id.push(b':');
            id.extend_from_slice(qual.as_bytes());
            let mut flags = test | if d.is_async { FLAG_ASYNC } else { 0 };
            if test_defs[di] {
                flags |= FLAG_TEST;
            }
            if d.namespace {
                flags |= FLAG_NAMESPACE;
            }
            if d.owner.is_some() && typed.is_none() {
                flags |= FLAG_OWNED;
            }
            let n = g.add_node(Node {
                kind: match d.kind {
                    DefKind::Class => NodeKind::Class,
                    DefKind::Function => NodeKind::Function,
                },
                id,
                parent: parent_node,
                file: fi as u32,
                def: di as u32,
                flags,
            });
            g.add_edge(parent_node, n, EdgeKind::Contain, META_EXACT);
            by_qual.insert(qual, n);
            nodes_of_def.push(n);
        }
        defs[fi] = nodes_of_def;
    }
    (g, defs)
}

/// File indices in `os.walk` order: a directory's files before its subdirectories.
pub fn walk_order(files: &[Source]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    // By directory components (an ancestor, a shorter list, first: the files that sit
    // directly in a directory come before its subdirectories' files), then by path.
    order.sort_by_cached_key(|&i| {
        let rel = files[i].rel;
        let dirs: Vec<&[u8]> =
            parent_dir(rel).split(|&c| c == b'/').filter(|c| !c.is_empty()).collect();
        (dirs, rel)
    });
    order
}

/// Where to cut a sequence whose items weigh `weights` into at most `parts` runs of about equal
/// weight, for threads: each run's end index (the last is `weights.len()`; none for no items).
/// A run ends at the first item that brings it to its share, the total over `parts` rounded up.
pub fn weighted_ends(weights: &[usize], parts: usize) -> Vec<usize> {
    let total: usize = weights.iter().sum();
    let share = total.div_ceil(parts.max(1)).max(1);
    let mut ends = Vec::with_capacity(parts);
    let mut acc = 0;
    for (i, &w) in weights.iter().enumerate() {
        acc += w;
        if acc >= share && ends.len() + 1 < parts {
            ends.push(i + 1);
            acc = 0;
        }
    }
    if ends.last() != Some(&weights.len()) && !weights.is_empty() {
        ends.push(weights.len());
    }
    ends
}

/// `f` over `items` cut into at most `parts` runs of about equal `weight` ([`weighted_ends`]),
/// each run on a thread of its own: the runs' results, in order (a thread's panic goes on).
pub fn map_weighted<T: Sync, R: Send>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    parts: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let weights: Vec<usize> = items.iter().map(weight).collect();
    let mut runs: Vec<&[T]> = Vec::with_capacity(parts);
    let mut at = 0;
    for end in weighted_ends(&weights, parts) {
        runs.push(&items[at..end]);
        at = end;
    }
    let f = &f;
    std::thread::scope(|s| {
        let threads: Vec<_> = runs.into_iter().map(|run| s.spawn(move || f(run))).collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The directory part of a relative path (empty at the root).
pub fn parent_dir(rel: &[u8]) -> &[u8] {
    match rel.iter().rposition(|&c| c == b'/') {
        Some(i) => &rel[..i],
        None => b"",
    }
}

/// The last component of a relative path.
pub fn base_name(rel: &[u8]) -> &[u8] {
    match rel.iter().rposition(|&c| c == b'/') {
        Some(i) => &rel[i + 1..],
        None => rel,
    }
}

/// Directories that are Python packages (hold an indexed `__init__.py`).
pub fn package_dirs<'a>(files: &[Source<'a>]) -> std::collections::HashSet<&'a [u8]> {
    files.iter().filter(|f| base_name(f.rel) == b"__init__.py").map(|f| parent_dir(f.rel)).collect()
}

/// cds's test rule, each ecosystem's conventions in one place. A path is a test when a
/// directory on it is named `tests`, `Tests` (Symfony's components) or `__tests__` (or is a `test`, `testing` or `spec`
/// directory that is not a subpackage of a Python package: `django/test/` and `sympy/testing/`
/// are libraries, a top-level `testing/` is pytest's suite, Maven's `src/test/java` is tests), or
/// its file name, without the language extension, is `test_*`, `*_test` (Go, Python, Ruby),
/// `*_spec` (RSpec), `*.test` or `*.spec` (JS/TS), `*Test` or `*Tests` (Java, PHP), `tests` or `conftest`.
pub fn is_test_path(rel: &[u8], packages: &std::collections::HashSet<&[u8]>) -> bool {
    let comps: Vec<&[u8]> = rel.split(|&c| c == b'/').collect();
    let mut end = 0usize;
    for (i, c) in comps.iter().enumerate() {
        let is_last = i + 1 == comps.len();
        let is_file = is_last && c.contains(&b'.');
        if is_file {
            let stem = crate::lang::strip_source_ext(c).unwrap_or(c);
            if stem.starts_with(b"test_")
                || stem.ends_with(b"_test")
                || stem.ends_with(b"_unittest") // C++ (googletest)
                || stem.ends_with(b"-test") // C++ (`format-test.cc`)
                || stem.ends_with(b".test")
                || stem.ends_with(b".spec")
                || stem.ends_with(b"_spec")
                || (stem.len() > 4 && (stem.ends_with(b"Test") || stem.ends_with(b"Tests")))
                || stem == b"tests"
                || stem == b"conftest"
            {
                return true;
            }
        } else {
            match *c {
                b"tests" | b"Tests" | b"__tests__" => return true,
                b"test" | b"testing" | b"spec" => {
                    let parent = if end == 0 { &rel[..0] } else { &rel[..end - 1] };
                    if !packages.contains(parent) || end == 0 {
                        return true;
                    }
                }
                _ => {}
            }
        }
        end += c.len() + 1;
    }
    false
}

/// Where the qualified name of an entity ID of `kind` starts (just after its `:`), if it has
/// one. A file or directory has none, whatever its path holds (`a:b.py` is a file: Unix paths
/// may hold a `:`). A class or function is `PATH:QUAL`, where a qualified name may hold a `:`
/// too (a JavaScript method `'get:x'() {}`), so the `:` taken is the first that ends a source
/// file's name with no `/` after it (`a:b.py:A`, `k.js:o.get:x`), else the first after a
/// source file's name, else the first.
fn qual_start(id: &[u8], kind: NodeKind) -> Option<usize> {
    if !matches!(kind, NodeKind::Class | NodeKind::Function) {
        return None;
    }
    let first = id.iter().position(|&c| c == b':')?;
    // Almost every ID has one `:`: no file name to look up.
    if !id[first + 1..].contains(&b':') {
        return Some(first + 1);
    }
    let mut after_source = None;
    for (i, _) in id.iter().enumerate().filter(|&(_, &c)| c == b':') {
        if crate::lang::Lang::of_name(&id[..i]).is_some() {
            if !id[i + 1..].contains(&b'/') {
                return Some(i + 1);
            }
            after_source.get_or_insert(i + 1);
        }
    }
    Some(after_source.unwrap_or(first + 1))
}

/// The qualified-name part of an entity ID of `kind` (after the `:`), if any.
pub fn id_qual(id: &[u8], kind: NodeKind) -> Option<&[u8]> {
    qual_start(id, kind).map(|i| &id[i..])
}

/// The path part of an entity ID of `kind` (before the `:`; the whole ID for a file or
/// directory).
pub fn id_path(id: &[u8], kind: NodeKind) -> &[u8] {
    match qual_start(id, kind) {
        Some(i) => &id[..i - 1],
        None => id,
    }
}

/// The name of an entity: the last component of its qualified name, or of its path for a
/// file or directory (`/` for the root).
pub fn id_name(id: &[u8], kind: NodeKind) -> &[u8] {
    match id_qual(id, kind) {
        Some(q) => match q.iter().rposition(|&c| c == b'.') {
            Some(i) => &q[i + 1..],
            None => q,
        },
        None if id == b"/" => id,
        None => base_name(id),
    }
}

/// The module-level entity of a method written outside its type in a file that does not
/// define the type ([`FLAG_OWNED`]): its ID cut after the type, the first part of its qualified
/// name below its container (`tsdb/head_append.go:memSeries.append` under the file ->
/// `tsdb/head_append.go:memSeries`; `src/lib.rs:m.Foo.f` under namespace `src/lib.rs:m` ->
/// `src/lib.rs:m.Foo`). `container_kind` is the container's kind.
pub fn owned_module_id(id: &[u8], container_id: &[u8], container_kind: NodeKind) -> Vec<u8> {
    let nested = id_qual(container_id, container_kind).is_some() && id.starts_with(container_id);
    let (prefix, rest) = if nested {
        (&id[..container_id.len()], id.get(container_id.len() + 1..).unwrap_or(b""))
    } else {
        let q = qual_start(id, NodeKind::Function).unwrap_or(id.len() + 1);
        (&id[..q - 1], id.get(q..).unwrap_or(b""))
    };
    let head = rest.split(|&c| c == b'.').next().unwrap_or(rest);
    let sep = if nested { b'.' } else { b':' };
    let mut out = prefix.to_vec();
    out.push(sep);
    out.extend_from_slice(head);
    out
}

/// LocAgent's `is_test_file`: the part of the ID before `:`, lowercased, split on space, `_` and
/// `/`; a test if any piece starts with `test`.
pub fn is_locagent_test(id: &[u8]) -> bool {
    let path = match id.iter().position(|&c| c == b':') {
        Some(i) => &id[..i],
        None => id,
    };
    path.split(|&c| c == b' ' || c == b'_' || c == b'/')
        .any(|piece| piece.len() >= 4 && piece[..4].eq_ignore_ascii_case(b"test"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_runs_cut_at_each_share_and_the_last_takes_the_rest() {
        // Two parts: the first ends at the item that brings it to half (rounded up).
        assert_eq!(weighted_ends(&[3, 1, 1, 1, 2], 2), vec![2, 5]);
        assert_eq!(weighted_ends(&[1, 1, 1, 1], 2), vec![2, 4]);
        // One heavy item: it is a run of its own; trailing weightless items join the last run.
        assert_eq!(weighted_ends(&[10, 1, 1, 0, 0], 2), vec![1, 5]);
        assert_eq!(weighted_ends(&[0, 0, 5, 0], 2), vec![3, 4]);
        // Never more runs than parts, nor empty ones; one part is everything.
        assert_eq!(weighted_ends(&[1, 1, 1, 1, 1, 1], 3), vec![2, 4, 6]);
        assert_eq!(weighted_ends(&[5, 5], 4), vec![1, 2]);
        assert_eq!(weighted_ends(&[2, 3], 1), vec![2]);
        assert_eq!(weighted_ends(&[0, 0], 2), vec![2]);
        assert!(weighted_ends(&[], 2).is_empty());
    }

    #[test]
    fn weighted_runs_are_mapped_on_threads_in_order() {
        let items: Vec<usize> = vec![10, 1, 1, 1, 1, 6];
        let runs = map_weighted(&items, |&w| w, 2, |run| run.to_vec());
        assert_eq!(runs, vec![vec![10], vec![1, 1, 1, 1, 6]]);
        let sums = map_weighted(&items, |_| 1, 3, |run| run.iter().sum::<usize>());
        assert_eq!(sums, vec![11, 2, 7]);
        assert!(map_weighted(&[] as &[usize], |_| 1, 2, |run| run.len()).is_empty());
    }

    #[test]
    fn test_rule() {
        let pk: std::collections::HashSet<&[u8]> =
            [&b"django"[..], b"django/test", b"sympy", b"sympy/testing"].into_iter().collect();
        assert!(is_test_path(b"tests/test_x.py", &pk));
        assert!(is_test_path(b"pkg/tests/helpers.py", &pk));
        assert!(is_test_path(b"pkg/test_util.py", &pk));
        assert!(is_test_path(b"pkg/util_test.py", &pk));
        assert!(is_test_path(b"conftest.py", &pk));
        assert!(is_test_path(b"testing/test_main.py", &pk));
        assert!(is_test_path(b"testing/helpers.py", &pk));
        assert!(!is_test_path(b"django/test/client.py", &pk));
        assert!(!is_test_path(b"sympy/testing/runtests.py", &pk));
        assert!(is_test_path(b"sympy/testing/tests/test_code_quality.py", &pk));
        assert!(!is_test_path(b"django/db/models/query.py", &pk));
        assert!(!is_test_path(b"pkg/contest.py", &pk));
        assert!(is_test_path(b"src/util.test.ts", &pk));
        assert!(is_test_path(b"src/__tests__/util.js", &pk));
        assert!(is_test_path(b"lib/x.spec.js", &pk));
        assert!(is_test_path(b"core/src/test/java/a/FooTest.java", &pk));
        assert!(is_test_path(b"src/main/java/a/FooTest.java", &pk));
        assert!(!is_test_path(b"src/main/java/a/Latest.java", &pk));
        assert!(is_test_path(b"server/server_test.go", &pk));
        assert!(!is_test_path(b"server/server.go", &pk));
        assert!(is_test_path(b"tests/cli.rs", &pk));
        assert!(is_test_path(b"spec/models/user_spec.rb", &pk));
        assert!(is_test_path(b"lib/foo/bar_spec.rb", &pk));
        assert!(is_test_path(b"test/foo_test.rb", &pk));
        assert!(!is_test_path(b"lib/rubocop/cop/style/spec.rb", &pk));
        assert!(is_test_path(b"tests/Unit/CarbonTest.php", &pk));
        assert!(is_test_path(b"src/Symfony/Component/Yaml/Tests/Fixtures/x.php", &pk));
        assert!(is_test_path(b"src/Foo/BarTest.php", &pk));
    }

    #[test]
    fn id_parts() {
        assert_eq!(id_name(b"a/b.py:C.m", NodeKind::Function), b"m");
        assert_eq!(id_name(b"a/b.py:f", NodeKind::Function), b"f");
        assert_eq!(id_name(b"a/b.py", NodeKind::File), b"b.py");
        assert_eq!(id_name(b"a/b", NodeKind::Directory), b"b");
        // A path with a `:` (legal on Unix), a qualified name with one (a JavaScript string
        // key), both.
        assert_eq!(id_path(b"a:b.py", NodeKind::File), b"a:b.py");
        assert_eq!(id_name(b"a:b.py", NodeKind::File), b"a:b.py");
        assert_eq!(id_name(b"x:y/m.py", NodeKind::File), b"m.py");
        assert_eq!(id_path(b"a:b.py:A.x", NodeKind::Function), b"a:b.py");
        assert_eq!(id_name(b"a:b.py:A", NodeKind::Class), b"A");
        assert_eq!(id_qual(b"k.js:o.get:x", NodeKind::Function), Some(&b"o.get:x"[..]));
        assert_eq!(id_name(b"k.js:o.get:x", NodeKind::Function), b"get:x");
        assert_eq!(id_path(b"a:b.js:o.get:x", NodeKind::Function), b"a:b.js");
        assert_eq!(id_path(b"x.py:d/m.py:f", NodeKind::Function), b"x.py:d/m.py");
        assert_eq!(id_path(b"no/source:f", NodeKind::Function), b"no/source");
        assert_eq!(id_name(b"/", NodeKind::Directory), b"/");
        assert_eq!(id_qual(b"a/b.py:C.m", NodeKind::Function), Some(&b"C.m"[..]));
        assert_eq!(id_path(b"a/b.py:C.m", NodeKind::Function), b"a/b.py");
    }

    #[test]
    fn owned_methods_have_their_type_as_module() {
        assert_eq!(
            owned_module_id(
                b"tsdb/head_append.go:memSeries.append",
                b"tsdb/head_append.go",
                NodeKind::File
            ),
            b"tsdb/head_append.go:memSeries"
        );
        assert_eq!(
            owned_module_id(b"src/lib.rs:m.Foo.f", b"src/lib.rs:m", NodeKind::Class),
            b"src/lib.rs:m.Foo"
        );
    }

    #[test]
    fn locagent_test_rule() {
        assert!(is_locagent_test(b"tests/test_x.py:test_make"));
        assert!(is_locagent_test(b"django/test/client.py"));
        assert!(is_locagent_test(b"sympy/testing/runtests.py"));
        assert!(is_locagent_test(b"pkg/x_test.py"));
        assert!(!is_locagent_test(b"pkg/core.py:test_thing"));
        assert!(!is_locagent_test(b"pkg/contest.py"));
    }

    #[test]
    fn walk_order_puts_files_before_subdirectories() {
        let facts = FileFacts::default();
        let paths: [&[u8]; 5] = [b"a/b/x.py", b"a/z.py", b"setup.py", b"a/a.py", b"b.py"];
        let files: Vec<Source> =
            paths.iter().map(|p| Source { rel: p, facts: &facts, lang: Lang::Python }).collect();
        let order: Vec<&[u8]> = walk_order(&files).into_iter().map(|i| files[i].rel).collect();
        let want: [&[u8]; 5] = [b"b.py", b"setup.py", b"a/a.py", b"a/z.py", b"a/b/x.py"];
        assert_eq!(order, want);
    }
}
