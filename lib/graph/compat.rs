//! LocAgent v2.3's graph, reproduced from the same facts (`cds-build --compat locagent`).
//!
//! The target is `build_graph(repo, global_import=True)` of `gersteinlab/LocAgent` @ a5e28dd,
//! quirks included, in the insertion order of its "canonical mode" (sorted `os.walk`, sorted
//! name sets), because LocAgent's tools list neighbours in networkx insertion order.
//!
//! The build replays LocAgent's four passes on a small model of its networkx `MultiDiGraph`
//! (`Sim`: nodes by ID, out-adjacency grouped by neighbour in first-insertion order, as networkx
//! iterates it, which decides which import alias wins), then drops the pruned directories and
//! renumbers. Parallel edges are kept, so multiplicities are LocAgent's too. The result has
//! LocAgent's node order, and its edges are in LocAgent's insertion order.
//!
//!
//! 1. **Walk**: directories in `os.walk` order; each gets a node and a `contains` edge from its
//!    parent; its files follow, each with its definitions in pre-order. A sync `def __init__`
//!    directly in a class is dropped with everything inside it; a repeated qualified name is
//!    one node whose attributes (`def`) are the last definition's, with one `contains` edge per
//!    definition. Files Python 3 cannot parse are orphan file nodes. Directories with no `.py`
//!    file below them are pruned with LocAgent's stack, including its string-prefix test (a
//!    directory `foo` survives when `foobar/` below the same parent has Python).
//! 2. **File imports**, file by file, breadth-first through the file's syntax tree as
//!    `ast.walk` yields them ([`Import::depth`], then source order). Modules resolve from the repository root only:
//!    `a/b.py`, else `a/b/__init__.py`; `from M import n` goes to the submodule `M.n`, else to
//!    the top-level entity `M:n`, else to `M`'s file.
//! 3. **Global names**: every node keyed by the last `.`-component after the last `:` (so files
//!    are keyed `py`, and `src/flask` is its own key).
//! 4. **Per class / function node**, in node order: its direct imports (class body and its
//!    direct `__init__`, or the function body); then `invokes` for each distinct called name and
//!    `inherits` for each distinct base name, sorted. A name goes to every candidate in scope
//!    with that key (sorted by ID, then the alias target), else to every node in the graph with
//!    that key (the global fallback, self-loops included). The scope is `find_all_possible_callee`:
//!    up the `contains` chain, the siblings of each step and the members of classes among them;
//!    at the file, what its imports and the `__init__.py` files reachable through imports bring.
//!
//! Names: a function uses the calls it makes outside nested definitions (defaults and
//! annotations included, decorators never, since LocAgent re-parses code that starts at the
//! `def` keyword); a class uses every call inside its direct sync `__init__` (with that
//! `__init__`'s decorator names, [`crate::extract::Def::deco_names`]) and its bases. All of it
//! comes from the last definition of a repeated name, whose lines the node also reports
//! ([`Node::def`]: `line_head`..`line_end`).
//!
//! Node flags: [`FLAG_TEST`] by LocAgent's `is_test_file`, [`FLAG_SYNTAX_ERROR`] on files that
//! Python 3 rejects or that had recovered errors, [`FLAG_ASYNC`] on `async def`s.
//!
//! Checked against LocAgent itself (canonical mode, CPython 3.12.1) on requests, flask, Django
//! 4.2 and randomly mangled files: same nodes, lines, edges, multiplicities and edge order.
//! Known gaps, none of which those hit: module resolution consults the file list, not the disk
//! (LocAgent's `os.path.isfile` also sees symlinked, undecodable and `.git` files); non-ASCII
//! identifiers are not NFKC-normalised; a directory counts as holding Python when a source file
//! sits in it (LocAgent also counts symlinked and undecodable `.py` names); which files Python 3
//! rejects is tree-sitter's verdict plus targeted checks ([`FileFacts::py3_invalid`]), so a few
//! rejections (`del f()`, `f(x for x in y, z)`, stray indentation inside `if` / `for` blocks)
//! are missed; parenthesised callees and bases (`(a.b)()`, `class C((B))`) give no name.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::extract::{DefKind, Expr, FileFacts, Import};
use crate::graph::{
    EdgeKind, FLAG_ASYNC, FLAG_SYNTAX_ERROR, FLAG_TEST, Graph, META_EXACT, NONE, Node, NodeKind,
    Source, is_locagent_test, parent_dir, walk_order,
};
use crate::walk::path_order;

/// Builds LocAgent v2.3's graph of `files`; `dirs` lists every directory walked (relative,
/// the root empty), in any order. Edges come in LocAgent's insertion order, parallel edges
/// included (LocAgent's graph is a multigraph; its tools print each typed edge once).
pub fn build(files: &[Source], dirs: &[Vec<u8>]) -> Graph {
    let mut sim = Sim::new(files);
    let file_nodes = sim.walk(dirs);
    for &(fi, node) in &file_nodes {
        sim.file_imports(fi, node);
    }
    sim.link();
    sim.finish()
}

/// A node of the simulated graph.
struct SimNode {
    kind: NodeKind,
    id: Vec<u8>,
    /// The `contains` parent ([`NONE`] for the root and orphan files).
    parent: u32,
    file: u32,
    /// The last definition with this ID ([`NONE`] for files and directories).
    def: u32,
    /// False once pruned.
    alive: bool,
}

/// An edge of the simulated graph.
struct SimEdge<'a> {
    src: u32,
    dst: u32,
    kind: EdgeKind,
    /// The `alias` attribute of an `imports` edge.
    alias: Option<&'a str>,
}

/// The state of LocAgent's networkx graph during the build.
struct Sim<'a, 'f> {
    files: &'f [Source<'a>],
    nodes: Vec<SimNode>,
    by_id: HashMap<Vec<u8>, u32>,
    /// Every edge, in insertion order.
    edges: Vec<SimEdge<'a>>,
    /// Out-adjacency as networkx iterates it: neighbours in the order their first edge was
    /// inserted, each with its parallel edges (indices into `edges`) in order.
    adj: Vec<Vec<(u32, Vec<u32>)>>,
    adj_pos: HashMap<(u32, u32), u32>,
    /// Distinct `contains` children, for scope computations (order does not matter there).
    children: Vec<Vec<u32>>,
    /// Paths of all files (`resolve_module`'s "is a file").
    paths: HashSet<&'f [u8]>,
    /// Per file: its class / function nodes (distinct).
    file_defs: Vec<Vec<u32>>,
}

impl<'a, 'f> Sim<'a, 'f> {
    fn new(files: &'f [Source<'a>]) -> Self {
        Sim {
            files,
            nodes: Vec::new(),
            by_id: HashMap::new(),
            edges: Vec::new(),
            adj: Vec::new(),
            adj_pos: HashMap::new(),
            children: Vec::new(),
            paths: files.iter().map(|f| f.rel).collect(),
            file_defs: vec![Vec::new(); files.len()],
        }
    }

    /// `graph.add_node`: a new node, or the existing one with its attributes replaced.
    fn add_node(&mut self, kind: NodeKind, id: Vec<u8>, parent: u32, file: u32, def: u32) -> u32 {
        if let Some(&n) = self.by_id.get(&id) {
            let node = &mut self.nodes[n as usize];
            node.kind = kind;
            node.file = file;
            node.def = def;
            return n;
        }
        let n = self.nodes.len() as u32;
        self.by_id.insert(id.clone(), n);
        self.nodes.push(SimNode { kind, id, parent, file, def, alive: true });
        self.adj.push(Vec::new());
        self.children.push(Vec::new());
        n
    }

    /// `graph.add_edge`.
    fn add_edge(&mut self, src: u32, dst: u32, kind: EdgeKind, alias: Option<&'a str>) {
        let e = self.edges.len() as u32;
        self.edges.push(SimEdge { src, dst, kind, alias });
        match self.adj_pos.get(&(src, dst)) {
            Some(&pos) => self.adj[src as usize][pos as usize].1.push(e),
            None => {
                let list = &mut self.adj[src as usize];
                self.adj_pos.insert((src, dst), list.len() as u32);
                list.push((dst, vec![e]));
                if kind == EdgeKind::Contain {
                    self.children[src as usize].push(dst);
                }
            }
        }
    }

    /// `graph.remove_node` (its edges are dropped when the graph is written out).
    fn remove_node(&mut self, n: u32) {
        let node = &mut self.nodes[n as usize];
        node.alive = false;
        self.by_id.remove(&node.id);
    }

    fn kind(&self, n: u32) -> NodeKind {
        self.nodes[n as usize].kind
    }

    /// Pass 1: directory, file and definition nodes, `contains` edges, directory pruning.
    /// Returns the (file index, file node) pairs in walk order.
    fn walk(&mut self, dirs: &[Vec<u8>]) -> Vec<(usize, u32)> {
        let files = self.files;
        let mut in_dir: HashMap<&[u8], Vec<usize>> = HashMap::new();
        for fi in walk_order(files) {
            in_dir.entry(parent_dir(files[fi].rel)).or_default().push(fi);
        }
        // The walked directories, plus any a file sits in that the caller did not list.
        let mut all: Vec<&[u8]> = dirs.iter().map(|d| d.as_slice()).collect();
        all.push(b"");
        for f in files {
            let mut d = parent_dir(f.rel);
            while !d.is_empty() {
                all.push(d);
                d = parent_dir(d);
            }
        }
        all.sort_by(|a, b| path_order(a, b));
        all.dedup();

        let root = self.add_node(NodeKind::Directory, b"/".to_vec(), NONE, NONE, NONE);
        let mut file_nodes = Vec::new();
        // LocAgent's pruning stack: (directory node, "has Python below").
        let mut stack: Vec<(u32, bool)> = Vec::new();
        for dir in all {
            let node = if dir.is_empty() {
                root
            } else {
                let pd = parent_dir(dir);
                let parent =
                    if pd.is_empty() { root } else { self.by_id.get(pd).copied().unwrap_or(root) };
                let n = self.add_node(NodeKind::Directory, dir.to_vec(), parent, NONE, NONE);
                self.add_edge(parent, n, EdgeKind::Contain, None);
                n
            };
            // Leaving a subtree: pop what the current path does not start with. The test is a
            // string prefix, not a path prefix (LocAgent's quirk).
            let name: &[u8] = if dir.is_empty() { b"/" } else { dir };
            while let Some(&(top, include)) = stack.last() {
                if name.starts_with(&self.nodes[top as usize].id) {
                    break;
                }
                if !include {
                    self.remove_node(top);
                }
                stack.pop();
            }
            if !dir.is_empty() {
                stack.push((node, false));
            }
            let here = in_dir.get(dir).map(Vec::as_slice).unwrap_or_default();
            for &fi in here {
                let f = self.add_file(fi, node);
                file_nodes.push((fi, f));
            }
            if !here.is_empty() {
                for e in &mut stack {
                    e.1 = true;
                }
            }
        }
        while let Some((top, include)) = stack.pop() {
            if !include {
                self.remove_node(top);
            }
        }
        file_nodes
    }

    /// A file node and, when Python 3 can parse it, its definitions and `contains` edges.
    fn add_file(&mut self, fi: usize, dir: u32) -> u32 {
        let src = self.files[fi];
        let facts: &FileFacts = src.facts;
        // The file node exists even when parsing fails, but then without a parent.
        let file = self.add_node(NodeKind::File, src.rel.to_vec(), NONE, fi as u32, NONE);
        if facts.py3_invalid {
            return file;
        }
        self.nodes[file as usize].parent = dir;

        // LocAgent's CodeAnalyzer: a sync `__init__` directly inside a class is skipped with
        // all it contains. `defs` is in pre-order, so a parent is decided before its children.
        let n = facts.defs.len();
        let mut node_of = vec![NONE; n];
        let mut kept = Vec::new();
        for (di, d) in facts.defs.iter().enumerate() {
            let parent = d.parent.map(|p| p as usize).filter(|&p| p < di);
            if d.parent.is_some() && parent.is_none_or(|p| node_of[p] == NONE) {
                continue; // inside a skipped `__init__` (or malformed)
            }
            let in_class = parent.is_some_and(|p| facts.defs[p].kind == DefKind::Class);
            if in_class && d.kind == DefKind::Function && !d.is_async && d.name == "__init__" {
                continue;
            }
            let mut id = src.rel.to_vec();
            id.push(b':');
            id.extend_from_slice(facts.qual_name(di as u32).as_bytes());
            let parent_node = parent.map_or(file, |p| node_of[p]);
            let kind = match d.kind {
                DefKind::Class => NodeKind::Class,
                DefKind::Function => NodeKind::Function,
            };
            let existed = self.by_id.contains_key(&id);
            let node = self.add_node(kind, id, parent_node, fi as u32, di as u32);
            if !existed {
                self.file_defs[fi].push(node);
            }
            node_of[di] = node;
            kept.push((parent_node, node));
        }
        // The file's `contains` edge comes after its definitions' nodes, then one edge per
        // definition (a repeated name gets parallel edges).
        self.add_edge(dir, file, EdgeKind::Contain, None);
        for (p, c) in kept {
            self.add_edge(p, c, EdgeKind::Contain, None);
        }
        file
    }

    /// Pass 2: a file's imports, in `ast.walk` (breadth-first) order.
    fn file_imports(&mut self, fi: usize, node: u32) {
        let facts = self.files[fi].facts;
        if facts.py3_invalid {
            return;
        }
        let mut order: Vec<&'a Import> = facts.imports.iter().collect();
        order.sort_by_key(|i| (i.depth, i.stmt));
        for imp in order {
            self.add_import(fi, node, imp);
        }
    }

    /// LocAgent's `resolve_module`: `M` as `M.py`, else `M/__init__.py`, from the repo root.
    fn resolve(&self, module: &[u8]) -> Option<Vec<u8>> {
        let path: Vec<u8> = module.iter().map(|&c| if c == b'.' { b'/' } else { c }).collect();
        // `os.path.join(repo, "/x")` is `/x`: outside the repository.
        if path.first() == Some(&b'/') {
            return None;
        }
        let norm = |p: &[u8]| -> Vec<u8> {
            let comps: Vec<&[u8]> =
                p.split(|&c| c == b'/').filter(|c| !c.is_empty() && *c != b".").collect();
            comps.join(&b'/')
        };
        let mut as_file = path.clone();
        as_file.extend_from_slice(b".py");
        let as_file = norm(&as_file);
        if self.paths.contains(as_file.as_slice()) {
            return Some(as_file);
        }
        let mut as_pkg = path;
        as_pkg.extend_from_slice(b"/__init__.py");
        let as_pkg = norm(&as_pkg);
        self.paths.contains(as_pkg.as_slice()).then_some(as_pkg)
    }

    /// LocAgent's `add_imports` for one imported name, from node `src` in file `fi`.
    fn add_import(&mut self, fi: usize, src: u32, imp: &'a Import) {
        let rel = self.files[fi].rel;
        let module: Vec<u8> = if imp.level == 0 {
            imp.module.as_bytes().to_vec()
        } else {
            // The importing file's path components, the file name included, minus `level`.
            let parts: Vec<&[u8]> = rel.split(|&c| c == b'/').collect();
            let keep = parts.len().saturating_sub(imp.level as usize);
            let mut parts = parts[..keep].to_vec();
            if !imp.module.is_empty() {
                parts.push(imp.module.as_bytes());
            }
            parts.join(&b'.')
        };
        let alias = imp.alias.as_deref();
        let target = match imp.name.as_deref() {
            None => self.resolve(&module).and_then(|p| self.by_id.get(&p).copied()),
            Some("*") => {
                let t = self.resolve(&module).and_then(|p| self.by_id.get(&p).copied());
                if let Some(t) = t {
                    self.add_edge(src, t, EdgeKind::Import, None);
                }
                return;
            }
            Some(name) => {
                let mut sub = module.clone();
                sub.push(b'.');
                sub.extend_from_slice(name.as_bytes());
                if let Some(p) = self.resolve(&sub) {
                    // A submodule; no fallback when it is not a node.
                    self.by_id.get(&p).copied()
                } else if let Some(p) = self.resolve(&module) {
                    let mut entity = p.clone();
                    entity.push(b':');
                    entity.extend_from_slice(name.as_bytes());
                    self.by_id.get(&entity).or_else(|| self.by_id.get(&p)).copied()
                } else {
                    None
                }
            }
        };
        if let Some(t) = target {
            self.add_edge(src, t, EdgeKind::Import, alias);
        }
    }

    /// Adds `src`'s contains-children to `out`, descending into classes (`get_inner_nodes`),
    /// except `skip` (the branch a scope walk comes from).
    fn inner_nodes(&self, src: u32, skip: u32, out: &mut HashSet<u32>) {
        let mut todo = vec![src];
        while let Some(n) = todo.pop() {
            for &c in &self.children[n as usize] {
                if c == skip || !self.nodes[c as usize].alive {
                    continue;
                }
                if out.insert(c) && self.kind(c) == NodeKind::Class {
                    todo.push(c);
                }
            }
        }
    }

    /// What `src`'s import edges bring into scope, and their aliases (a later edge of the same
    /// alias wins; edges are visited in networkx adjacency order).
    fn import_targets(&self, src: u32, out: &mut HashSet<u32>, alias: &mut HashMap<&'a str, u32>) {
        for (dst, es) in &self.adj[src as usize] {
            for &e in es {
                let e = &self.edges[e as usize];
                if e.kind != EdgeKind::Import {
                    continue;
                }
                if let Some(a) = e.alias {
                    alias.insert(a, *dst);
                }
                match self.kind(*dst) {
                    NodeKind::File => self.inner_nodes(*dst, src, out),
                    NodeKind::Class => {
                        self.inner_nodes(*dst, src, out);
                        out.insert(*dst);
                    }
                    NodeKind::Function => {
                        out.insert(*dst);
                    }
                    NodeKind::Directory => {}
                }
            }
        }
    }

    /// The file-level part of `find_all_possible_callee` for file node `file`: the
    /// `__init__.py` files reachable through imports (their members and import targets), then
    /// the file's own import targets.
    fn file_scope(&self, file: u32) -> (HashSet<u32>, HashMap<&'a str, u32>) {
        let mut inits: Vec<u32> = Vec::new();
        let mut seen: HashSet<u32> = HashSet::new();
        let mut stack = vec![file];
        while let Some(cur) = stack.pop() {
            for (dst, es) in &self.adj[cur as usize] {
                for &e in es {
                    if self.edges[e as usize].kind != EdgeKind::Import
                        || *dst == file
                        || seen.contains(dst)
                    {
                        continue;
                    }
                    let d = &self.nodes[*dst as usize];
                    if d.kind == NodeKind::File && d.id.ends_with(b"__init__.py") {
                        seen.insert(*dst);
                        inits.push(*dst);
                        stack.push(*dst);
                    }
                }
            }
        }
        let mut out = HashSet::new();
        let mut alias = HashMap::new();
        for &init in &inits {
            self.inner_nodes(init, file, &mut out);
            self.import_targets(init, &mut out, &mut alias);
        }
        self.import_targets(file, &mut out, &mut alias);
        (out, alias)
    }

    /// Pass 3 and 4: imports, invokes and inherits of every class and function node.
    fn link(&mut self) {
        // Global fallback: every node by its key, in node order.
        let mut global: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
        for (n, node) in self.nodes.iter().enumerate() {
            if node.alive {
                global.entry(key(&node.id).to_vec()).or_default().push(n as u32);
            }
        }
        let mut cache: Option<FileCache<'a>> = None;
        for n in 0..self.nodes.len() as u32 {
            let node = &self.nodes[n as usize];
            if !node.alive || !matches!(node.kind, NodeKind::Class | NodeKind::Function) {
                continue;
            }
            let fi = node.file as usize;
            if cache.as_ref().is_none_or(|c| c.fi != fi) {
                cache = Some(self.file_cache(fi));
            }
            if let Some(c) = &cache {
                self.link_node(n, c, &global);
            }
        }
    }

    /// Per-file tables for the scope computations.
    fn file_cache(&self, fi: usize) -> FileCache<'a> {
        let facts = self.files[fi].facts;
        let file = self.by_id.get(self.files[fi].rel).copied().unwrap_or(NONE);
        let mut local: HashMap<&[u8], Vec<u32>> = HashMap::new();
        for &d in &self.file_defs[fi] {
            local.entry(key(&self.nodes[d as usize].id)).or_default().push(d);
        }
        let local = local.into_iter().map(|(k, v)| (k.to_vec(), v)).collect();
        let (imported, alias) =
            if file == NONE { Default::default() } else { self.file_scope(file) };
        let mut by_key: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
        for n in imported {
            by_key.entry(key(&self.nodes[n as usize].id).to_vec()).or_default().push(n);
        }
        // Calls by owning definition, and each definition's subtree end (pre-order).
        let mut calls_of: Vec<Vec<u32>> = vec![Vec::new(); facts.defs.len()];
        for (ci, c) in facts.calls.iter().enumerate() {
            if let Some(o) = c.owner.filter(|&o| (o as usize) < facts.defs.len()) {
                calls_of[o as usize].push(ci as u32);
            }
        }
        let mut end = vec![0u32; facts.defs.len()];
        for di in (0..facts.defs.len()).rev() {
            // Subtree of di: di and every following def whose parent chain reaches di; in
            // pre-order that is a contiguous range.
            let mut e = di + 1;
            while e < facts.defs.len() && is_below(facts, e, di) {
                e = end[e].max(e as u32 + 1) as usize;
            }
            end[di] = e as u32;
        }
        FileCache { fi, local, imported: by_key, alias, calls_of, end }
    }

    /// Imports, invokes and inherits of class / function node `n`.
    fn link_node(&mut self, n: u32, c: &FileCache<'a>, global: &HashMap<Vec<u8>, Vec<u32>>) {
        let fi = c.fi;
        let facts: &'a FileFacts = self.files[fi].facts;
        let di = self.nodes[n as usize].def;
        let Some(d) = facts.defs.get(di as usize) else { return };
        let mut invokes: BTreeSet<&'a str> = BTreeSet::new();
        let mut inherits: BTreeSet<&'a str> = BTreeSet::new();
        let mut imports: Vec<&'a Import> = direct_imports(facts, di);
        match d.kind {
            DefKind::Function => {
                for &ci in &c.calls_of[di as usize] {
                    let call = &facts.calls[ci as usize];
                    // Decorators of nested definitions are skipped with them; the node's own
                    // are not in the code LocAgent re-parses.
                    if call.deco_of.is_none() {
                        invokes.extend(call.callee.last_name());
                    }
                }
            }
            DefKind::Class => {
                let init = facts.defs.iter().enumerate().position(|(i, e)| {
                    e.parent == Some(di)
                        && i > di as usize
                        && e.direct
                        && e.kind == DefKind::Function
                        && !e.is_async
                        && e.name == "__init__"
                });
                if let Some(init) = init {
                    imports.extend(direct_imports(facts, init as u32));
                    for o in init..c.end[init] as usize {
                        for &ci in &c.calls_of[o] {
                            invokes.extend(facts.calls[ci as usize].callee.last_name());
                        }
                    }
                    // Calls in `__init__`'s decorators (owned by the class), and the
                    // decorators' names.
                    for &ci in &c.calls_of[di as usize] {
                        let call = &facts.calls[ci as usize];
                        if call.deco_of == Some(init as u32) {
                            invokes.extend(call.callee.last_name());
                        }
                    }
                    invokes.extend(facts.defs[init].deco_names.iter().map(String::as_str));
                }
                for b in &d.bases {
                    match b {
                        Expr::Dotted(chain) => inherits.extend(chain.rsplit('.').next()),
                        Expr::Other(Some(attr)) => {
                            inherits.insert(attr.as_str());
                        }
                        _ => {}
                    }
                }
            }
        }
        for imp in imports {
            self.add_import(fi, n, imp);
        }
        let chain = self.chain(n);
        for (names, kind) in [(invokes, EdgeKind::Invoke), (inherits, EdgeKind::Inherit)] {
            for name in names {
                let targets = self.candidates(name, &chain, c);
                let targets = if targets.is_empty() {
                    global.get(name.as_bytes()).cloned().unwrap_or_default()
                } else {
                    targets
                };
                for t in targets {
                    self.add_edge(n, t, kind, None);
                }
            }
        }
    }

    /// `n` and its `contains` ancestors up to its file.
    fn chain(&self, mut n: u32) -> Vec<u32> {
        let mut out = vec![n];
        while self.nodes[n as usize].kind != NodeKind::File {
            let p = self.nodes[n as usize].parent;
            if p == NONE || out.len() > self.nodes.len() {
                break;
            }
            out.push(p);
            n = p;
        }
        out
    }

    /// The in-scope candidates for `name` seen from the node whose chain is `chain`: sorted by
    /// ID, then the alias target.
    fn candidates(&self, name: &str, chain: &[u32], c: &FileCache) -> Vec<u32> {
        let mut set: Vec<u32> = Vec::new();
        if let Some(local) = c.local.get(name.as_bytes()) {
            set.extend(local.iter().copied().filter(|&x| self.in_local_scope(x, chain)));
        }
        if let Some(imported) = c.imported.get(name.as_bytes()) {
            set.extend(imported);
        }
        // Python compares `str`s by code point, which is UTF-8 byte order.
        set.sort_by(|&a, &b| self.nodes[a as usize].id.cmp(&self.nodes[b as usize].id));
        set.dedup();
        if let Some(&t) = c.alias.get(name) {
            set.push(t);
        }
        set
    }

    /// Whether definition `x` (of the same file) is reached by the upward scope walk from
    /// `chain[0]`: `x` hangs below a node of the chain, through classes only, and is not on it.
    fn in_local_scope(&self, x: u32, chain: &[u32]) -> bool {
        if chain.contains(&x) {
            return false;
        }
        let mut p = self.nodes[x as usize].parent;
        for _ in 0..=self.nodes.len() {
            if p == NONE {
                return false;
            }
            if chain.contains(&p) {
                return true;
            }
            if self.kind(p) != NodeKind::Class {
                return false;
            }
            p = self.nodes[p as usize].parent;
        }
        false
    }

    /// The final graph: pruned directories and their edges dropped, nodes renumbered.
    fn finish(self) -> Graph {
        let mut remap = vec![NONE; self.nodes.len()];
        let mut g = Graph::default();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.alive {
                remap[i] = g.nodes.len() as u32;
                g.nodes.push(Node {
                    kind: n.kind,
                    id: Vec::new(),
                    parent: NONE,
                    file: n.file,
                    def: n.def,
                    flags: 0,
                });
            }
        }
        for (i, n) in self.nodes.into_iter().enumerate() {
            let r = remap[i];
            if r == NONE {
                continue;
            }
            let mut flags = if is_locagent_test(&n.id) { FLAG_TEST } else { 0 };
            if let Some(f) = self.files.get(n.file as usize) {
                match n.kind {
                    NodeKind::File if f.facts.py3_invalid || f.facts.syntax_errors > 0 => {
                        flags |= FLAG_SYNTAX_ERROR
                    }
                    NodeKind::Class | NodeKind::Function
                        if f.facts.defs.get(n.def as usize).is_some_and(|d| d.is_async) =>
                    {
                        flags |= FLAG_ASYNC
                    }
                    _ => {}
                }
            }
            let node = &mut g.nodes[r as usize];
            node.id = n.id;
            node.parent = if n.parent == NONE { NONE } else { remap[n.parent as usize] };
            node.flags = flags;
        }
        g.edges.reserve(self.edges.len());
        for e in self.edges {
            let (s, d) = (remap[e.src as usize], remap[e.dst as usize]);
            if s != NONE && d != NONE {
                g.add_edge(s, d, e.kind, META_EXACT);
            }
        }
        g
    }
}

/// Per-file tables, built when the link pass reaches the file's first definition.
struct FileCache<'a> {
    fi: usize,
    /// The file's class / function nodes by key.
    local: HashMap<Vec<u8>, Vec<u32>>,
    /// What the file's imports bring into scope, by key.
    imported: HashMap<Vec<u8>, Vec<u32>>,
    /// Import aliases -> target.
    alias: HashMap<&'a str, u32>,
    /// Call indices by owning definition.
    calls_of: Vec<Vec<u32>>,
    /// Per definition: one past the last definition of its subtree (pre-order).
    end: Vec<u32>,
}

/// LocAgent's name key of a node ID: the part after the last `:`, then after the last `.`.
fn key(id: &[u8]) -> &[u8] {
    let after_colon = id.rsplit(|&c| c == b':').next().unwrap_or(id);
    after_colon.rsplit(|&c| c == b'.').next().unwrap_or(after_colon)
}

/// Whether definition `e` is nested (at any depth) in definition `anc`.
fn is_below(facts: &FileFacts, e: usize, anc: usize) -> bool {
    let mut p = facts.defs[e].parent;
    let mut steps = 0;
    while let Some(x) = p {
        if x as usize == anc {
            return true;
        }
        steps += 1;
        if x as usize >= facts.defs.len() || steps > facts.defs.len() {
            return false;
        }
        p = facts.defs[x as usize].parent;
    }
    false
}

/// Imports that are direct statements of definition `di`'s body, in source order.
fn direct_imports(facts: &FileFacts, di: u32) -> Vec<&Import> {
    facts.imports.iter().filter(|i| i.direct && i.owner == Some(di)).collect()
}
