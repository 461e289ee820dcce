//! cds's own name resolution: import, invoke and inherit edges from the facts of all files.
//!
//! Names are resolved the way Python binds them, as far as static facts allow:
//!
//! * modules by their import name, computed from package roots (a file's module name starts
//!   below its topmost package, so `src/flask/app.py` is `flask.app`; the repo-relative dotted
//!   path is registered too), and relative imports from the importing file's package;
//! * a module's namespace: its definitions, its imports (so `__init__.py` re-exports and
//!   aliases are followed), `from M import *`, and simple assignments;
//! * scopes: locals of the enclosing functions (nested definitions, local imports, bindings),
//!   then the module; class bodies see their own names, methods do not (Python's rule);
//! * `self` / `cls` (whatever the first parameter is called) and `super()` through the class and
//!   its resolved bases; `self.x.m()` through `self.x = Foo()` bindings and annotations;
//! * instantiation (`Foo()` invokes the class), decorators (the decorated entity invokes the
//!   decorator), annotated return types (`make().run()`).
//!
//! On top of these rules, a value-flow analysis (`Flow`: inter-procedural, flow-insensitive,
//! solved to a fixpoint over names, attributes, parameters, return values and collection
//! elements) follows functions, classes and instances through assignments, arguments, returns,
//! containers, decorators and implicit calls (`__init__`, properties, `with`, `for`, operators).
//! Edges only it finds carry [`META_FLOW`] (or `META_FLOW + n` for one of n); where it knows the
//! receiver of a call the rules below could only guess, its answer replaces the guess.
//! The flow runs on one thread while the rules alone link every file on another (each with a
//! [`Linker`] of its own over the shared scope [`Tables`]); the two are merged at the end. The
//! rules' thread builds the tables, and then, file by file ahead of the flow, also what the flow
//! needs of the rules (`Prepared`: each file's names resolved, its units); meanwhile the flow
//! makes what it needs of the facts alone (`Prelude`).
//!
//! The flow's answer depends on the order it evaluates files in, which is why it is always
//! solved whole, in path order: a set of values keeps the first [`MAX_PTS`] to reach it, and a
//! class member answers with the first base class that has the name, so values that reached a
//! cell before an earlier base gained the name stay. On Django, evaluating the files in
//! reverse order loses 290 of the 151,000 edges, gains 248 others and takes a third longer
//! (an import-ordered walk, dependencies first, differs likewise and is no faster). Solving
//! only what an edit reaches (a definition edit in 100 ms) needs an order-independent flow
//! first: a monotone one, where every answer only grows with what it reads. Today's is not,
//! chiefly in four places, which such a redesign has to replace: the cap (on Django 3,195 of
//! the 226,000 cells end full, read by 20,400 units: an order-free cap is a "too many" value
//! that spreads to whatever reads it); a member chain, whose answer is replaced when an
//! earlier base gains the name; a call answered by the builtin rules while its callee holds
//! no known function or class (and still so once it does); and a decorated definition, bound
//! to itself while its decorator's result is unknown (and still so once it is known). Smaller
//! tests of emptiness do the same: a method called on a receiver with no class among its
//! values yet is bound as an instance's (its first parameter skipped), an instance without
//! `__iter__` yet iterates through `__next__`, a decorator that returns nothing known yet
//! leaves the definition as it was. Dropping the cap is no way out: without it, Django's
//! flow had not settled after 16 rounds and 364 s (586,000 cells, against 0.5 s and 226,000).
//! A monotone cap needs a "too many" value whose effects (an attribute assigned through it, a
//! call through it binding arguments) reach every cell they could, which spreads it far: the
//! open problem an incremental flow has to solve first.
//!
//! What cannot be proven is not linked, with one exception: a method called on a receiver of
//! unknown type is linked to the candidates visible from the caller (classes in the same file
//! or in files it imports) or, failing that, to the only method of that name in the repository.
//! Such edges carry [`META_GUESS`] (one candidate) or the number of candidates, so a user can
//! tell them from resolved ones. Names never resolve repository-wide by themselves.

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::{SmallVec, smallvec};
use std::cell::RefCell;
use std::sync::Arc;

use crate::extract::{
    BindValue, Callee, DefKind, Expr, FlowStmt, Import, NO_EXPR, PyExpr, STAR_ARG,
};
use crate::graph::scope::{self, Repo, Resolver};
use crate::graph::{
    DefNodes, EdgeKind, FLAG_TEST, Graph, META_EXACT, META_GUESS, NONE, NodeKind, Source,
    base_name, package_dirs, parent_dir,
};
use crate::lang::{Family, Lang, ProjectFile};

/// Confidence byte of an edge found only by the value-flow analysis: `META_FLOW` when it has
/// one target, `META_FLOW + n` for one of n (n < 16). Other linkers never reach these values
/// (they cap alternatives far below), so `meta >= META_FLOW` marks value-flow edges.
pub const META_FLOW: u8 = 0xF0;

/// The value-flow confidence byte for `n` targets.
fn flow_meta(n: usize) -> u8 {
    if n <= 1 { META_FLOW } else { META_FLOW + n.min(15) as u8 }
}

/// The functions (and classes) a call may reach: almost always one or two, kept inline (the
/// value flow asks for them at every call, method lookup and implicit call it evaluates).
type Targets = SmallVec<[u32; 4]>;

/// How deep a chain of bindings may go before we give up (cycles, pathological code).
const MAX_DEPTH: u32 = 24;
/// Most alternatives carried for one name.
const MAX_ALTS: usize = 8;

/// Method names too common to guess a receiver from (mostly builtin container/str/file methods).
pub(crate) const COMMON_METHODS: &[&str] = &[
    "add",
    "append",
    "clear",
    "close",
    "copy",
    "count",
    "decode",
    "discard",
    "encode",
    "endswith",
    "extend",
    "find",
    "flush",
    "format",
    "get",
    "index",
    "insert",
    "items",
    "join",
    "keys",
    "lower",
    "lstrip",
    "open",
    "pop",
    "popitem",
    "read",
    "readline",
    "readlines",
    "remove",
    "replace",
    "reverse",
    "rfind",
    "rsplit",
    "rstrip",
    "seek",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "tell",
    "title",
    "update",
    "upper",
    "values",
    "write",
    "writelines",
    "group",
    "groups",
    "match",
    "search",
    "sub",
    "run",
    "send",
    "call",
    "apply",
    "exists",
    "mkdir",
    "next",
    "put",
    "set",
    "start",
    "stop",
    "wait",
    "fetch",
    "load",
    "dump",
    "dumps",
    "loads",
    "debug",
    "info",
    "warning",
    "error",
    "exception",
    "critical",
    "log",
];

/// What a name or expression refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Val {
    /// A node: a module (file or namespace directory), a class or a function.
    Node(u32),
    /// An instance of a class node.
    Inst(u32),
    /// Something outside the repository (an external module or what it defines).
    External,
    /// A list, tuple, set or dict made at expression `.1` of file `.0` (value flow only).
    Coll(u32, u32),
    /// What `super()` returns in a method of class `.0` (value flow only).
    Super(u32),
}

/// A few values, inline up to four (most names and expressions have one or two).
type Vals = SmallVec<[Val; 4]>;

/// Where a name is bound.
#[derive(Debug, Clone, Copy)]
enum Binding {
    /// A definition or module node.
    Node(u32),
    /// The `i`th import fact of file `f`; `head` for `import a.b` binding `a`.
    Import { f: u32, i: u32, head: bool },
    /// The `i`th bind fact of file `f`.
    Bind { f: u32, i: u32 },
}

/// Adds the import, invoke and inherit edges of cds's own resolution to `g`.
pub fn link(g: &mut Graph, files: &[Source], defs: &DefNodes, projects: &[ProjectFile]) {
    let linked = edges(g, files, defs, projects);
    g.edges.extend(linked);
}

/// The import, invoke and inherit edges of cds's own resolution, for the nodes of `g`
/// (which is only read, so other work can use the nodes meanwhile): Python's rules below, and
/// each other language family's through its resolver and the shared driver in
/// [`crate::graph::scope`]. Families never link to each other.
pub fn edges(
    g: &Graph,
    files: &[Source],
    defs: &DefNodes,
    projects: &[ProjectFile],
) -> Vec<crate::graph::Edge> {
    let mut out = Vec::new();
    for (_, edges) in family_edges(g, files, defs, projects, None) {
        if out.is_empty() {
            out = edges;
        } else {
            out.extend(edges);
        }
    }
    out
}

/// The edges of each language family present, or of those `only` names, in [`Family`] order
/// ([`edges`] lists them so, one after another). Each family's edges join its own files' nodes
/// (and directories), and depend only on its own files (their paths and facts) and the project
/// files: a rebuild may link some families again and keep the others' edges.
pub fn family_edges(
    g: &Graph,
    files: &[Source],
    defs: &DefNodes,
    projects: &[ProjectFile],
    only: Option<&[Family]>,
) -> Vec<(Family, Vec<crate::graph::Edge>)> {
    let wanted = |f: Family| only.is_none_or(|o| o.contains(&f));
    let python = wanted(Family::Python) && files.iter().any(|f| f.lang == Lang::Python);
    let debug = std::env::var_os("CDS_FLOW_DEBUG").is_some();
    let started = std::time::Instant::now();
    // The scope tables are built once, by the thread of the scope rules while the value flow
    // makes its prelude; the flow, the long part of a link, then runs beside what the scope
    // rules alone find (which it does not read), each thread with a linker of its own (their
    // caches are their own; both are pure functions of the facts).
    std::thread::scope(|s| {
        let prepared = Arc::new(Prepared::new(files.len()));
        let pre = Arc::clone(&prepared);
        let by_names = s.spawn(move || {
            // Whatever happens here, the flow never waits for a table that will not come.
            let _fill = pre.filled_on_drop();
            let tables = python.then(|| Arc::new(Tables::new(g, files, defs)));
            if debug {
                eprintln!("link: scopes {:?}", started.elapsed());
            }
            pre.set_tables(tables.clone());
            let names = tables.map(|t| {
                let lx = Linker::new(t);
                let names: Vec<Option<NameLinks>> = (0..files.len())
                    .map(|fi| {
                        (files[fi].lang == Lang::Python).then(|| {
                            let links = lx.name_links(fi);
                            pre.set(fi, lx.prepare_flow(fi));
                            links
                        })
                    })
                    .collect();
                names
            });
            (names, other_families(g, files, defs, projects, &wanted))
        });
        let flow = python.then(|| Prelude::new(g, files, defs)).and_then(|ix| {
            let lx = Linker::new(prepared.tables()?);
            let flow = Flow::solve(&lx, &prepared, ix).into_links();
            if debug {
                eprintln!("link: flow {:?}", started.elapsed());
            }
            // The linker and then the tables (its last holder) are freed while the links are
            // merged.
            s.spawn(move || drop(lx));
            Some(flow)
        });
        let (names, others) = by_names.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        // What was prepared for the flow (its last holder now) is freed while the links are
        // merged.
        s.spawn(move || drop(prepared));
        let mut out = Vec::new();
        if let (Some(flow), Some(names)) = (flow, names) {
            let tc = std::time::Instant::now();
            let cm = combine(names, &flow);
            if debug {
                eprintln!("link: combine {:?} ({} edges)", tc.elapsed(), cm.len());
            }
            let edges = cm.into_iter().map(|(src, dst, kind, meta)| crate::graph::Edge {
                src,
                dst,
                kind,
                meta,
            });
            out.push((Family::Python, edges.collect()));
        }
        out.extend(others);
        out
    })
}

/// The edges of the language families other than Python, each through its resolver (a big
/// family's two parts on two threads, even beside a value flow: see [`scope::edges`]).
fn other_families(
    g: &Graph,
    files: &[Source],
    defs: &DefNodes,
    projects: &[ProjectFile],
    wanted: &dyn Fn(Family) -> bool,
) -> Vec<(Family, Vec<crate::graph::Edge>)> {
    let mut out = Vec::new();
    let repo = Repo::new(files, projects);
    let mut families: Vec<Family> = files.iter().map(|f| f.lang.family()).collect();
    families.sort_unstable();
    families.dedup();
    for family in families {
        if family == Family::Python || !wanted(family) {
            continue;
        }
        let resolver = |repo: &Repo| resolver_of(family, repo);
        out.push((family, scope::edges(g, &repo, defs, family, &resolver)));
    }
    out
}

/// The resolver of a family other than Python's.
fn resolver_of(family: Family, repo: &Repo) -> Box<dyn Resolver> {
    match family {
        Family::Python => unreachable!("the value flow links Python"),
        Family::Js => Box::new(crate::lang::js::Resolver::new(repo)),
        Family::Java => Box::new(crate::lang::java::Resolver::new(repo)),
        Family::Go => Box::new(crate::lang::go::Resolver::new(repo)),
        Family::Rust => Box::new(crate::lang::rust::Resolver::new(repo)),
        Family::C => Box::new(crate::lang::c::Resolver::new(repo)),
        Family::Ruby => Box::new(crate::lang::ruby::Resolver::new(repo)),
        Family::Php => Box::new(crate::lang::php::Resolver::new(repo)),
    }
}

/// The edges of some files (`only`, in path order) of a family other than Python's, as
/// [`family_edges`] links them (see [`scope::file_edges`]).
pub fn file_edges(
    g: &Graph,
    files: &[Source],
    defs: &DefNodes,
    projects: &[ProjectFile],
    family: Family,
    only: &[u32],
) -> Vec<crate::graph::Edge> {
    let repo = Repo::new(files, projects);
    let resolver = resolver_of(family, &repo);
    scope::file_edges(g, &repo, defs, family, resolver.as_ref(), only)
}

/// What the value flow needs of each Python file that is a pure function of the facts and the
/// scope rules, made by the scope-rule thread beside the flow, file by file ahead of it: the
/// flow waits for a file's only when it reaches the file first. It is the same whichever thread
/// is ahead: that thread's linker answers in one fixed order (a linker's caches can shape an
/// answer where imports form a cycle).
struct Prepared<'a> {
    /// The scope tables (None: no Python file, or their thread failed).
    tables: std::sync::OnceLock<Option<Arc<Tables<'a>>>>,
    files: Vec<std::sync::OnceLock<FilePrep>>,
}

#[derive(Default)]
struct FilePrep {
    /// What each (owner definition, name) that the file's expressions use resolves to by the
    /// scope rules, sorted by key (names that resolve to nothing left out).
    names: Vec<((u32, u32), Vals)>,
    units: Units,
}

impl<'a> Prepared<'a> {
    fn new(n: usize) -> Prepared<'a> {
        Prepared {
            tables: std::sync::OnceLock::new(),
            files: (0..n).map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    fn set_tables(&self, t: Option<Arc<Tables<'a>>>) {
        let _ = self.tables.set(t);
    }

    /// The scope tables, once made.
    fn tables(&self) -> Option<Arc<Tables<'a>>> {
        self.tables.wait().clone()
    }

    /// Publishes file `fi`'s preparation (the first one set stays).
    fn set(&self, fi: usize, p: FilePrep) {
        let _ = self.files[fi].set(p);
    }

    /// File `fi`'s preparation, once made (waits for it).
    fn get(&self, fi: usize) -> &FilePrep {
        self.files[fi].wait()
    }

    /// A guard that, when dropped (the thread done or unwinding), gives every file still
    /// without a preparation an empty one (and None for the scope tables if they never came).
    fn filled_on_drop(&self) -> impl Drop + '_ {
        struct Fill<'p, 'a>(&'p Prepared<'a>);
        impl Drop for Fill<'_, '_> {
            fn drop(&mut self) {
                let _ = self.0.tables.set(None);
                for f in &self.0.files {
                    let _ = f.set(FilePrep::default());
                }
            }
        }
        Fill(self)
    }
}

impl<'a> Linker<'a> {
    /// File `fi`'s [`FilePrep`].
    fn prepare_flow(&self, fi: usize) -> FilePrep {
        let flow = &self.files[fi].facts.flow;
        let mut keys: Vec<(u32, u32)> = flow
            .exprs
            .iter()
            .zip(&flow.owners)
            .filter_map(|(x, &o)| match *x {
                PyExpr::Name(n) => Some((o, n)),
                _ => None,
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let names = keys
            .into_iter()
            .filter_map(|(o, n)| {
                let scope = (o != NO_EXPR).then(|| self.defs[fi][o as usize]);
                let v = self.resolve_name(fi, scope, flow.str(n), 0);
                (!v.is_empty()).then_some(((o, n), v))
            })
            .collect();
        FilePrep { names, units: Units::of(flow) }
    }
}

/// What the scope rules alone link in one Python file: its import, inheritance and decorator
/// edges, and each call's source, targets and confidence (which the value flow may replace or
/// extend).
struct NameLinks {
    edges: Vec<(u32, u32, EdgeKind, u8)>,
    /// Per call: its source, the end of its targets in `targets`, and their confidence.
    calls: Vec<(u32, u32, u8)>,
    targets: Vec<u32>,
}

/// What the value flow found: per file and call, the callee targets and how many alternatives
/// they are (none: empty); the decorated definitions bound to what their decorators return;
/// implicit calls.
struct FlowLinks {
    calls: Vec<Vec<(Vec<u32>, usize)>>,
    wrapped: HashSet<u32>,
    implicit: Vec<(u32, u32)>,
}

/// Python's edges: per file, the scope rules' edges with each call's targets merged with the
/// value flow's, then the implicit calls; one edge per (source, target, kind), the first
/// occurrence winning.
fn combine(names: Vec<Option<NameLinks>>, flow: &FlowLinks) -> Vec<(u32, u32, EdgeKind, u8)> {
    let mut out = Vec::new();
    for (fi, links) in names.into_iter().enumerate() {
        let Some(links) = links else { continue };
        out.extend_from_slice(&links.edges);
        let mut start = 0;
        for (ci, &(src, end, meta)) in links.calls.iter().enumerate() {
            let targets = &links.targets[start..end as usize];
            start = end as usize;
            let (found, alts) = flow
                .calls
                .get(fi)
                .and_then(|c| c.get(ci))
                .map_or((&[][..], 0), |v| (&v.0[..], v.1));
            if meta != META_EXACT && !found.is_empty() {
                // The value flow knows what the name-based guess did not: its answer replaces it.
                let fm = flow_meta(alts);
                for &t in found {
                    out.push((src, t, EdgeKind::Invoke, fm));
                }
                continue;
            }
            for &t in targets {
                out.push((src, t, EdgeKind::Invoke, meta));
            }
            let extra: Vec<u32> = found.iter().copied().filter(|t| !targets.contains(t)).collect();
            let fm = flow_meta(extra.iter().filter(|t| !flow.wrapped.contains(t)).count());
            for t in extra {
                out.push((src, t, EdgeKind::Invoke, fm));
            }
        }
    }
    // Implicit calls found by the value flow (`__init__`, properties, operators, ...).
    for &(s, d) in &flow.implicit {
        out.push((s, d, EdgeKind::Invoke, META_FLOW));
    }
    let mut seen = HashSet::with_capacity_and_hasher(out.len(), Default::default());
    out.retain(|&(s, d, k, _)| seen.insert((s, d, k)));
    out
}

/// The node of each of the `n` files.
fn file_nodes(g: &Graph, n: usize) -> Vec<u32> {
    let mut out = vec![NONE; n];
    for (i, node) in g.nodes.iter().enumerate() {
        if node.kind == NodeKind::File {
            out[node.file as usize] = i as u32;
        }
    }
    out
}

/// Python's scope tables: what every module, class and function binds, built once from the
/// facts and shared by the threads that link (each [`Linker`] adds caches of its own).
struct Tables<'a> {
    g: &'a Graph,
    files: &'a [Source<'a>],
    defs: &'a DefNodes,
    file_node: Vec<u32>,
    /// Relative path -> file node; directory path -> directory node.
    path_node: HashMap<Vec<u8>, u32>,
    /// Dotted module name -> module nodes.
    modules: HashMap<String, Vec<u32>>,
    /// The import root of each file (the directory its module name starts below).
    root_of: Vec<&'a [u8]>,
    /// (container node, name) -> child definition node.
    children: HashMap<(u32, &'a str), u32>,
    /// Per file: module-level name -> bindings.
    module_scope: Vec<HashMap<&'a str, Vec<Binding>>>,
    /// Per file: module-level star imports (import fact indices).
    stars: Vec<Vec<u32>>,
    /// Definition node -> local name -> bindings (function locals, class bodies).
    local_scope: HashMap<u32, HashMap<&'a str, Vec<Binding>>>,
    /// (class node, attribute) -> bindings made through `self.attr = ...` or in the class body.
    attrs: HashMap<(u32, &'a str), Vec<Binding>>,
    /// Method name -> method nodes (functions directly inside classes), for receiver guesses.
    methods: HashMap<&'a str, Vec<u32>>,
}

/// Python's scope rules over [`Tables`], with their caches.
struct Linker<'a> {
    t: Arc<Tables<'a>>,
    memo_attr: RefCell<HashMap<(u32, &'a str), Vals>>,
    memo_bases: RefCell<HashMap<u32, Vec<u32>>>,
    memo_visible: RefCell<HashMap<usize, Arc<HashSet<usize>>>>,
    /// Per module file: the names its `__all__` lists, expanded (None: no readable list).
    memo_all: RefCell<HashMap<usize, Option<Arc<HashSet<&'a str>>>>>,
    memo_member: RefCell<HashMap<(u32, &'a str), Vals>>,
    memo_local: RefCell<HashMap<(u32, &'a str), Vals>>,
}

impl<'a> std::ops::Deref for Linker<'a> {
    type Target = Tables<'a>;

    fn deref(&self) -> &Tables<'a> {
        &self.t
    }
}

impl<'a> Tables<'a> {
    fn new(g: &'a Graph, files: &'a [Source<'a>], defs: &'a DefNodes) -> Tables<'a> {
        let file_node = file_nodes(g, files.len());
        let mut path_node: HashMap<Vec<u8>, u32> = HashMap::default();
        for (n, node) in g.nodes.iter().enumerate() {
            match node.kind {
                NodeKind::File => {
                    path_node.insert(node.id.clone(), n as u32);
                }
                NodeKind::Directory if node.id != b"/" => {
                    path_node.insert(node.id.clone(), n as u32);
                }
                _ => {}
            }
        }
        let packages = package_dirs(files);
        let mut modules: HashMap<String, Vec<u32>> = HashMap::default();
        let mut root_of = Vec::with_capacity(files.len());
        for (fi, f) in files.iter().enumerate() {
            if f.lang != Lang::Python {
                root_of.push(&f.rel[..0]);
                continue;
            }
            let (root, name) = module_name(f.rel, &packages);
            root_of.push(root);
            let node = file_node[fi];
            if let Some(name) = name {
                modules.entry(name).or_default().push(node);
            }
            // Also the repo-relative name, and names below `src/` or `lib/` source roots
            // (namespace packages in a src layout have no __init__.py to find the root by).
            for alt in alternative_names(f.rel) {
                let e = modules.entry(alt).or_default();
                if !e.contains(&node) {
                    e.push(node);
                }
            }
        }

        let mut t = Tables {
            g,
            files,
            defs,
            file_node,
            path_node,
            modules,
            root_of,
            children: HashMap::default(),
            module_scope: vec![HashMap::default(); files.len()],
            stars: vec![Vec::new(); files.len()],
            local_scope: HashMap::default(),
            attrs: HashMap::default(),
            methods: HashMap::default(),
        };
        for (fi, f) in files.iter().enumerate() {
            if f.lang == Lang::Python {
                t.index_file(fi);
            }
        }
        t
    }

    /// Fills the scope tables of one file.
    fn index_file(&mut self, fi: usize) {
        let f = self.files[fi].facts;
        let file_node = self.file_node[fi];
        let nodes = &self.defs[fi];
        for (di, d) in f.defs.iter().enumerate() {
            let node = nodes[di];
            if self.g.nodes[node as usize].def != di as u32 {
                continue; // a later definition merged into an earlier node
            }
            let container = d.parent.map_or(file_node, |p| nodes[p as usize]);
            self.children.entry((container, d.name.as_str())).or_insert(node);
            match d.parent {
                None => push(&mut self.module_scope[fi], &d.name, Binding::Node(node)),
                Some(p) => {
                    let pn = nodes[p as usize];
                    push(self.local_scope.entry(pn).or_default(), &d.name, Binding::Node(node));
                    if d.kind == DefKind::Function && f.defs[p as usize].kind == DefKind::Class {
                        self.methods.entry(d.name.as_str()).or_default().push(node);
                    }
                }
            }
        }
        for (ii, imp) in f.imports.iter().enumerate() {
            let (name, head) = match (&imp.name, &imp.alias) {
                (Some(n), _) if n == "*" => {
                    if imp.owner.is_none() {
                        self.stars[fi].push(ii as u32);
                    }
                    continue;
                }
                (_, Some(alias)) => (alias.as_str(), false),
                (Some(n), None) => (n.as_str(), false),
                (None, None) => (imp.module.split('.').next().unwrap_or(""), true),
            };
            let b = Binding::Import { f: fi as u32, i: ii as u32, head };
            match imp.owner {
                None => push(&mut self.module_scope[fi], name, b),
                Some(o) => push(self.local_scope.entry(nodes[o as usize]).or_default(), name, b),
            }
        }
        for (bi, bind) in f.binds.iter().enumerate() {
            let b = Binding::Bind { f: fi as u32, i: bi as u32 };
            match bind.target.split_once('.') {
                None => match bind.owner {
                    None => push(&mut self.module_scope[fi], &bind.target, b),
                    Some(o) => {
                        let on = nodes[o as usize];
                        push(self.local_scope.entry(on).or_default(), &bind.target, b);
                        // Class-body assignments are also attributes of the class.
                        if f.defs[o as usize].kind == DefKind::Class {
                            self.attrs.entry((on, bind.target.as_str())).or_default().push(b);
                        }
                    }
                },
                Some((obj, attr)) => {
                    // `self.attr = ...` inside a method: an attribute of the class.
                    let Some(o) = bind.owner else { continue };
                    if let Some(class) = self.self_class(fi, o, obj) {
                        self.attrs.entry((class, attr)).or_default().push(b);
                    }
                }
            }
        }
    }

    /// The class node when `name` is the receiver parameter (`self`, `cls`) of the method
    /// enclosing definition `o` (directly or through nested functions).
    fn self_class(&self, fi: usize, mut o: u32, name: &str) -> Option<u32> {
        let f = self.files[fi].facts;
        loop {
            let d = &f.defs[o as usize];
            if d.kind != DefKind::Function {
                return None;
            }
            if let Some(p) = d.parent
                && f.defs[p as usize].kind == DefKind::Class
                && d.first_param.as_deref() == Some(name)
                && !is_static(d)
            {
                return Some(self.defs[fi][p as usize]);
            }
            o = d.parent?;
        }
    }
}

impl<'a> Linker<'a> {
    fn new(t: Arc<Tables<'a>>) -> Linker<'a> {
        Linker {
            t,
            memo_attr: RefCell::new(HashMap::default()),
            memo_bases: RefCell::new(HashMap::default()),
            memo_visible: RefCell::new(HashMap::default()),
            memo_all: RefCell::new(HashMap::default()),
            memo_member: RefCell::new(HashMap::default()),
            memo_local: RefCell::new(HashMap::default()),
        }
    }

    fn owner_node(&self, fi: usize, owner: Option<u32>) -> u32 {
        owner.map_or(self.file_node[fi], |o| self.defs[fi][o as usize])
    }

    /// The scope rules' links of file `fi` ([`NameLinks`]).
    fn name_links(&self, fi: usize) -> NameLinks {
        let mut edges = Vec::new();
        let out = &mut edges;
        let f = self.files[fi].facts;
        // Imports: importer -> module or imported entity.
        for (ii, imp) in f.imports.iter().enumerate() {
            let src = self.owner_node(fi, imp.owner);
            let targets = self.import_targets(fi, ii as u32, imp);
            emit(out, src, &targets, EdgeKind::Import);
        }
        // Inheritance.
        for (di, d) in f.defs.iter().enumerate() {
            if d.kind != DefKind::Class {
                continue;
            }
            let node = self.defs[fi][di];
            let scope = d.parent.map(|p| self.defs[fi][p as usize]);
            for base in &d.bases {
                let chain = match base {
                    Expr::Dotted(c) | Expr::Subscript(c) => c,
                    _ => continue,
                };
                let vals = self.resolve_chain(fi, scope, chain, 0);
                let targets: Vec<u32> = vals
                    .iter()
                    .filter_map(|v| match v {
                        Val::Node(n) if self.kind(*n) == NodeKind::Class && *n != node => Some(*n),
                        _ => None,
                    })
                    .collect();
                emit(out, node, &targets, EdgeKind::Inherit);
            }
            // Plain decorators (`@deco`); call-form ones are call sites below.
        }
        for (di, d) in f.defs.iter().enumerate() {
            let node = self.defs[fi][di];
            let scope = d.parent.map(|p| self.defs[fi][p as usize]);
            for deco in &d.decorators {
                if let Expr::Dotted(c) = deco {
                    let vals = self.resolve_chain(fi, scope, c, 0);
                    emit(out, node, &self.callables(&vals), EdgeKind::Invoke);
                }
            }
        }
        // Calls.
        let (mut calls, mut targets) = (Vec::with_capacity(f.calls.len()), Vec::new());
        for call in &f.calls {
            let (src, scope) = match call.deco_of {
                // A decorator's call is made on behalf of the entity it decorates, but its names
                // are looked up where the decorator is written.
                Some(d) => {
                    (self.defs[fi][d as usize], call.owner.map(|o| self.defs[fi][o as usize]))
                }
                None => {
                    let s = self.owner_node(fi, call.owner);
                    (s, call.owner.map(|o| self.defs[fi][o as usize]))
                }
            };
            let (found, meta) = self.call_targets(fi, scope, &call.callee);
            targets.extend_from_slice(&found);
            calls.push((src, targets.len() as u32, meta));
        }
        NameLinks { edges, calls, targets }
    }

    fn kind(&self, n: u32) -> NodeKind {
        self.g.nodes[n as usize].kind
    }

    fn file_of(&self, n: u32) -> usize {
        self.g.nodes[n as usize].file as usize
    }

    /// Callable targets: functions and classes (instantiation); instances through `__call__`.
    /// Each once, in the order of `vals`.
    fn callables(&self, vals: &[Val]) -> Targets {
        let mut out = Targets::new();
        for v in vals {
            match *v {
                Val::Node(n) if matches!(self.kind(n), NodeKind::Function | NodeKind::Class) => {
                    out.push(n)
                }
                Val::Inst(c) => {
                    for m in self.member(c, "__call__", 0) {
                        if let Val::Node(n) = m
                            && self.kind(n) == NodeKind::Function
                        {
                            out.push(n);
                        }
                    }
                }
                _ => {}
            }
        }
        let n = unique_prefix(&mut out, usize::MAX);
        out.truncate(n);
        out
    }

    /// Targets of one call site, with the edge confidence.
    fn call_targets(&self, fi: usize, scope: Option<u32>, callee: &'a Callee) -> (Vec<u32>, u8) {
        let (receiver, attr): (Vals, &str) = match callee {
            Callee::Name(n) => {
                let vals = self.resolve_name(fi, scope, n, 0);
                let t = self.callables(&vals);
                let a = ambiguity(t.len());
                return (t.into_vec(), a);
            }
            Callee::Chain(c) => {
                let (head, attr) = c.rsplit_once('.').unwrap_or(("", c));
                (self.resolve_chain(fi, scope, head, 0), attr)
            }
            Callee::OnCall(f, attr) if f == "super" => {
                let class = scope.and_then(|s| self.enclosing_class(s));
                let vals = class
                    .map(|c| {
                        let mut v = Vals::new();
                        for b in self.bases(c, 0) {
                            v = self.member(b, attr, 0);
                            if !v.is_empty() {
                                break;
                            }
                        }
                        v
                    })
                    .unwrap_or_default();
                let t = self.callables(&vals);
                let a = ambiguity(t.len());
                return (t.into_vec(), a);
            }
            Callee::OnCall(f, attr) => {
                let vals = self.resolve_chain(fi, scope, f, 0);
                (self.call_results(&vals, 0), attr.as_str())
            }
            Callee::Attr(a) => (Vals::new(), a.as_str()),
            Callee::Other => return (Vec::new(), META_EXACT),
        };
        if receiver.contains(&Val::External) {
            return (Vec::new(), META_EXACT);
        }
        let mut found = Vals::new();
        let mut typed = false;
        for r in &receiver {
            match *r {
                Val::Inst(_) => typed = true,
                Val::Node(n) if self.kind(n) != NodeKind::Function => typed = true,
                _ => {}
            }
            append(&mut found, &self.attr(*r, attr, 0));
        }
        let t = self.callables(&found);
        if !t.is_empty() {
            let a = ambiguity(t.len());
            return (t.into_vec(), a);
        }
        if typed || found.contains(&Val::External) {
            // The receiver's type is known and has no such method in the repository: it comes
            // from an external base class, or it is dynamic. Do not guess.
            return (Vec::new(), META_EXACT);
        }
        self.guess_method(fi, attr)
    }

    /// Methods named `attr` that a receiver of unknown type may be calling.
    fn guess_method(&self, fi: usize, attr: &str) -> (Vec<u32>, u8) {
        if attr.starts_with("__") || COMMON_METHODS.contains(&attr) {
            return (Vec::new(), META_EXACT);
        }
        let Some(cands) = self.methods.get(attr) else { return (Vec::new(), META_EXACT) };
        let caller_test = self.g.nodes[self.file_node[fi] as usize].flags & FLAG_TEST != 0;
        let cands: Vec<u32> = cands
            .iter()
            .copied()
            .filter(|&m| caller_test || self.g.nodes[m as usize].flags & FLAG_TEST == 0)
            .collect();
        let visible = self.visible_files(fi);
        let near: Vec<u32> =
            cands.iter().copied().filter(|&m| visible.contains(&self.file_of(m))).collect();
        if !near.is_empty() && near.len() <= MAX_ALTS {
            let meta = if near.len() == 1 { META_GUESS } else { ambiguity(near.len()) };
            return (near, meta);
        }
        if cands.len() == 1 {
            return (cands, META_GUESS);
        }
        (Vec::new(), META_EXACT)
    }

    /// The file itself and the files its imports resolve into (memoized per file).
    fn visible_files(&self, fi: usize) -> Arc<HashSet<usize>> {
        if let Some(v) = self.memo_visible.borrow().get(&fi) {
            return v.clone();
        }
        let mut set = HashSet::default();
        set.insert(fi);
        for (ii, imp) in self.files[fi].facts.imports.iter().enumerate() {
            for t in self.import_targets(fi, ii as u32, imp) {
                set.insert(self.file_of(t));
            }
        }
        let set = Arc::new(set);
        self.memo_visible.borrow_mut().insert(fi, set.clone());
        set
    }

    /// What calling each value yields: instances of classes, annotated return types.
    fn call_results(&self, vals: &[Val], depth: u32) -> Vals {
        let mut out = Vals::new();
        for v in vals {
            match *v {
                Val::Node(n) => match self.kind(n) {
                    NodeKind::Class => out.push(Val::Inst(n)),
                    NodeKind::Function => {
                        let fi = self.file_of(n);
                        let def = self.g.nodes[n as usize].def as usize;
                        let d = &self.files[fi].facts.defs[def];
                        if let Some(r) = &d.returns {
                            let scope = d.parent.map(|p| self.defs[fi][p as usize]);
                            let t = self.resolve_chain(fi, scope, r, depth + 1);
                            out.extend(t.into_iter().filter_map(|x| match x {
                                Val::Node(c) if self.kind(c) == NodeKind::Class => {
                                    Some(Val::Inst(c))
                                }
                                Val::External => Some(Val::External),
                                _ => None,
                            }));
                        }
                    }
                    _ => {}
                },
                Val::External => out.push(Val::External),
                _ => {}
            }
        }
        cap(out)
    }

    /// The class whose method (or method's nested function) `scope` is, for `super()`.
    fn enclosing_class(&self, mut n: u32) -> Option<u32> {
        loop {
            let node = &self.g.nodes[n as usize];
            match node.kind {
                NodeKind::Class => return Some(n),
                NodeKind::Function => n = node.parent,
                _ => return None,
            }
        }
    }

    /// Targets of one import: the module, or the imported entity when it is a definition.
    fn import_targets(&self, fi: usize, ii: u32, imp: &'a Import) -> Vec<u32> {
        let vals = match &imp.name {
            None => self.module_vals(fi, imp),
            Some(n) if n == "*" => self.module_vals(fi, imp),
            Some(_) => self.resolve_import(fi as u32, ii, false, 0),
        };
        let mods = self.module_vals(fi, imp);
        let mut out: Vec<u32> = Vec::new();
        for v in &vals {
            match *v {
                Val::Node(n) => out.push(n),
                // A variable or instance: the edge goes to the module that defines it.
                Val::Inst(_) => out.extend(mods.iter().filter_map(|m| match m {
                    Val::Node(x) => Some(*x),
                    _ => None,
                })),
                _ => {}
            }
        }
        if out.is_empty() && vals.is_empty() {
            // `from M import name` where name is a plain variable of M.
            out.extend(mods.iter().filter_map(|m| match m {
                Val::Node(x) if self.kind(*x) == NodeKind::File => Some(*x),
                _ => None,
            }));
        }
        dedup(&mut out);
        out
    }

    /// The module an import statement names (relative imports from the file's package).
    fn module_vals(&self, fi: usize, imp: &Import) -> Vals {
        if imp.level > 0 {
            return self
                .relative_module(fi, imp.level, &imp.module)
                .map_or_else(Vals::new, |n| smallvec![Val::Node(n)]);
        }
        self.absolute_module(fi, &imp.module)
    }

    fn relative_module(&self, fi: usize, level: u32, module: &str) -> Option<u32> {
        let mut dir = parent_dir(self.files[fi].rel);
        for _ in 1..level {
            if dir.is_empty() {
                return None;
            }
            dir = parent_dir(dir);
        }
        let mut path = dir.to_vec();
        for part in module.split('.').filter(|p| !p.is_empty()) {
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(part.as_bytes());
        }
        self.module_at(&path)
    }

    /// The module node for a directory-style path: `p.py`, `p/__init__.py`, or directory `p`.
    fn module_at(&self, path: &[u8]) -> Option<u32> {
        let mut file = path.to_vec();
        file.extend_from_slice(b".py");
        if let Some(&n) = self.path_node.get(file.as_slice()) {
            return Some(n);
        }
        let mut init = path.to_vec();
        if !init.is_empty() {
            init.push(b'/');
        }
        init.extend_from_slice(b"__init__.py");
        if let Some(&n) = self.path_node.get(init.as_slice()) {
            return Some(n);
        }
        self.path_node.get(path).copied()
    }

    fn absolute_module(&self, fi: usize, module: &str) -> Vals {
        let Some(cands) = self.modules.get(module) else { return smallvec![Val::External] };
        if cands.len() == 1 {
            return smallvec![Val::Node(cands[0])];
        }
        // Several modules share the name: prefer the importer's own import root, then the one
        // sharing the longest path prefix with the importer.
        let me = self.files[fi].rel;
        let root = self.root_of[fi];
        let same_root: Vec<u32> =
            cands.iter().copied().filter(|&c| self.root_of[self.file_of(c)] == root).collect();
        let pool = if same_root.is_empty() { cands.clone() } else { same_root };
        let best = pool
            .iter()
            .map(|&c| common_prefix(me, &self.g.nodes[c as usize].id))
            .max()
            .unwrap_or(0);
        let mut top: Vals = pool
            .iter()
            .filter(|&&c| common_prefix(me, &self.g.nodes[c as usize].id) == best)
            .map(|&c| Val::Node(c))
            .collect();
        top.truncate(MAX_ALTS);
        top
    }

    /// Resolves an import binding: what name `imp` binds in its scope.
    fn resolve_import(&self, f: u32, i: u32, head: bool, depth: u32) -> Vals {
        let fi = f as usize;
        let imp = &self.files[fi].facts.imports[i as usize];
        match &imp.name {
            None if head => {
                // `import a.b` binds `a`.
                let top = imp.module.split('.').next().unwrap_or("");
                self.absolute_module(fi, top)
            }
            None => self.module_vals(fi, imp),
            Some(name) => {
                let mods = self.module_vals(fi, imp);
                let mut out = Vals::new();
                for m in mods {
                    match m {
                        Val::Node(mn) => {
                            if let Some(sub) = self.submodule(mn, name) {
                                out.push(Val::Node(sub));
                            } else if self.kind(mn) == NodeKind::File {
                                append(
                                    &mut out,
                                    &self.module_attr(self.file_of(mn), name, depth + 1),
                                );
                            }
                        }
                        other => out.push(other),
                    }
                }
                cap(out)
            }
        }
    }

    /// Submodule `name` of a package (`pkg/__init__.py` or a namespace directory).
    fn submodule(&self, module: u32, name: &str) -> Option<u32> {
        let node = &self.g.nodes[module as usize];
        let dir: &[u8] = match node.kind {
            NodeKind::Directory => &node.id,
            NodeKind::File if base_name(&node.id) == b"__init__.py" => parent_dir(&node.id),
            _ => return None,
        };
        let mut path = dir.to_vec();
        if !path.is_empty() {
            path.push(b'/');
        }
        path.extend_from_slice(name.as_bytes());
        self.module_at(&path).filter(|&n| n != module)
    }

    /// `name` in the namespace of module file `fi` (memoized; cycles resolve to nothing).
    fn module_attr(&self, fi: usize, name: &'a str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vals::new();
        }
        let key = (fi as u32, name);
        if let Some(v) = self.memo_attr.borrow().get(&key) {
            return vals_of(v);
        }
        self.memo_attr.borrow_mut().insert(key, Vals::new());
        let mut out = Vals::new();
        if let Some(bs) = self.module_scope[fi].get(name) {
            for b in bs {
                append(&mut out, &self.resolve_binding(*b, depth + 1));
            }
        }
        if out.is_empty() {
            for &ii in &self.stars[fi] {
                let imp = &self.files[fi].facts.imports[ii as usize];
                for m in self.module_vals(fi, imp) {
                    if let Val::Node(mn) = m
                        && self.kind(mn) == NodeKind::File
                        && self.star_exports(self.file_of(mn), name, depth + 1)
                    {
                        append(&mut out, &self.module_attr(self.file_of(mn), name, depth + 1));
                    }
                }
            }
        }
        if out.is_empty()
            && let Some(sub) = self.submodule(self.file_node[fi], name)
        {
            out.push(Val::Node(sub));
        }
        let out = cap(out);
        self.memo_attr.borrow_mut().insert(key, vals_of(&out));
        out
    }

    /// Whether `from m import *` binds `name` of module file `fi`: the names m's `__all__`
    /// lists when it has a readable one, else every name not starting with `_`.
    fn star_exports(&self, fi: usize, name: &str, depth: u32) -> bool {
        match self.all_of(fi, depth) {
            Some(all) => all.contains(name),
            None => !name.starts_with('_'),
        }
    }

    /// The names module file `fi`'s `__all__` lists, with the entries that stand for another
    /// module's list (`a.__all__`, a name imported as `__all__`) expanded; None when it has no
    /// list, or one of them cannot be read (memoized; a cycle reads as None).
    fn all_of(&self, fi: usize, depth: u32) -> Option<Arc<HashSet<&'a str>>> {
        if let Some(v) = self.memo_all.borrow().get(&fi) {
            return v.clone();
        }
        let list = self.files[fi].facts.all.as_ref()?;
        if depth > MAX_DEPTH {
            return None;
        }
        self.memo_all.borrow_mut().insert(fi, None);
        let mut out: HashSet<&'a str> = HashSet::default();
        let mut ok = true;
        for entry in list {
            let Some(r) = entry.strip_prefix('*') else {
                out.insert(entry.as_str());
                continue;
            };
            // The modules whose list this entry stands for.
            let mods: Vals = match r.strip_suffix(".__all__") {
                Some(chain) => self.resolve_chain(fi, None, chain, depth + 1),
                None => {
                    let mut mods = Vals::new();
                    for b in self.module_scope[fi].get(r).map(|v| &v[..]).unwrap_or(&[]) {
                        match *b {
                            Binding::Import { f, i, .. } => {
                                let imp = &self.files[f as usize].facts.imports[i as usize];
                                if imp.name.as_deref() == Some("__all__") {
                                    mods.extend(self.module_vals(f as usize, imp));
                                } else {
                                    ok = false;
                                }
                            }
                            _ => ok = false,
                        }
                    }
                    mods
                }
            };
            let mut found = false;
            for m in mods {
                match m {
                    Val::Node(mn) if self.kind(mn) == NodeKind::File => {
                        match self.all_of(self.file_of(mn), depth + 1) {
                            Some(names) => {
                                out.extend(names.iter().copied());
                                found = true;
                            }
                            None => ok = false,
                        }
                    }
                    _ => ok = false,
                }
            }
            ok &= found;
            if !ok {
                break;
            }
        }
        let v = ok.then(|| Arc::new(out));
        self.memo_all.borrow_mut().insert(fi, v.clone());
        v
    }

    fn resolve_binding(&self, b: Binding, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vals::new();
        }
        match b {
            Binding::Node(n) => smallvec![Val::Node(n)],
            Binding::Import { f, i, head } => self.resolve_import(f, i, head, depth + 1),
            Binding::Bind { f, i } => {
                let fi = f as usize;
                let bind = &self.files[fi].facts.binds[i as usize];
                let scope = bind.owner.map(|o| self.defs[fi][o as usize]);
                match &bind.value {
                    BindValue::Alias(c) => {
                        // `x = x` and friends would loop; the depth bound stops them.
                        if *c == bind.target {
                            return Vals::new();
                        }
                        self.resolve_chain(fi, scope, c, depth + 1)
                    }
                    BindValue::CallOf(c) => {
                        let vals = self.resolve_chain(fi, scope, c, depth + 1);
                        self.call_results(&vals, depth + 1)
                    }
                    BindValue::Annotated(t) => self
                        .resolve_chain(fi, scope, t, depth + 1)
                        .into_iter()
                        .filter_map(|v| match v {
                            Val::Node(c) if self.kind(c) == NodeKind::Class => Some(Val::Inst(c)),
                            Val::External => Some(Val::External),
                            _ => None,
                        })
                        .collect(),
                }
            }
        }
    }

    /// Resolves a bare name used inside definition node `scope` (None: module level).
    fn resolve_name(&self, fi: usize, scope: Option<u32>, name: &'a str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vals::new();
        }
        let mut cur = scope;
        let mut first = true;
        while let Some(n) = cur {
            let node = &self.g.nodes[n as usize];
            if node.kind == NodeKind::Function {
                // The receiver parameter of a method (also seen from nested functions).
                let def = &self.files[fi].facts.defs[node.def as usize];
                let parent = node.parent;
                if self.kind(parent) == NodeKind::Class && def.first_param.as_deref() == Some(name)
                {
                    if is_static(def) {
                        // A static method's first parameter is an ordinary one.
                    } else if is_classmethod(def) {
                        return smallvec![Val::Node(parent)];
                    } else {
                        return smallvec![Val::Inst(parent)];
                    }
                }
            }
            // Class bodies are a scope only for code written directly in them.
            if node.kind != NodeKind::Class || first {
                let out = self.local(n, name, depth);
                if !out.is_empty() {
                    return out;
                }
            }
            first = false;
            cur = match self.kind(node.parent) {
                NodeKind::Class | NodeKind::Function => Some(node.parent),
                _ => None,
            };
        }
        self.module_attr(fi, name, depth + 1)
    }

    /// What local `name` of definition node `n` is bound to (memoized).
    fn local(&self, n: u32, name: &'a str, depth: u32) -> Vals {
        let Some(bs) = self.local_scope.get(&n).and_then(|s| s.get(name)) else {
            return Vals::new();
        };
        let key = (n, name);
        if let Some(v) = self.memo_local.borrow().get(&key) {
            return vals_of(v);
        }
        self.memo_local.borrow_mut().insert(key, Vals::new());
        let mut out = Vals::new();
        for b in bs {
            append(&mut out, &self.resolve_binding(*b, depth + 1));
        }
        let out = cap(out);
        self.memo_local.borrow_mut().insert(key, vals_of(&out));
        out
    }

    /// Resolves a dotted chain `a.b.c` used inside `scope`.
    fn resolve_chain(&self, fi: usize, scope: Option<u32>, chain: &'a str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vals::new();
        }
        let mut parts = chain.split('.');
        let Some(head) = parts.next() else { return Vals::new() };
        let mut vals = self.resolve_name(fi, scope, head, depth + 1);
        for p in parts {
            if vals.is_empty() || vals.contains(&Val::External) {
                return vals;
            }
            let mut next = Vals::new();
            for v in vals {
                append(&mut next, &self.attr(v, p, depth + 1));
            }
            vals = cap(next);
        }
        vals
    }

    /// Attribute `name` of a value.
    fn attr(&self, v: Val, name: &'a str, depth: u32) -> Vals {
        match v {
            Val::External => smallvec![Val::External],
            Val::Inst(c) => self.member(c, name, depth + 1),
            Val::Node(n) => match self.kind(n) {
                NodeKind::File => {
                    let mut out = self.module_attr(self.file_of(n), name, depth + 1);
                    if out.is_empty() {
                        out.extend(self.submodule(n, name).map(Val::Node));
                    }
                    out
                }
                NodeKind::Directory => self.submodule(n, name).map(Val::Node).into_iter().collect(),
                NodeKind::Class => self.member(n, name, depth + 1),
                NodeKind::Function => Vals::new(),
            },
            Val::Coll(..) | Val::Super(_) => Vals::new(),
        }
    }

    /// Member `name` of class `c`: its own definitions and attributes, then its bases'.
    fn member(&self, c: u32, name: &'a str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vals::new();
        }
        if let Some(&m) = self.children.get(&(c, name)) {
            return smallvec![Val::Node(m)];
        }
        let key = (c, name);
        if let Some(v) = self.memo_member.borrow().get(&key) {
            return vals_of(v);
        }
        self.memo_member.borrow_mut().insert(key, Vals::new());
        let out = self.member_uncached(c, name, depth);
        self.memo_member.borrow_mut().insert(key, vals_of(&out));
        out
    }

    fn member_uncached(&self, c: u32, name: &'a str, depth: u32) -> Vals {
        if let Some(bs) = self.attrs.get(&(c, name)) {
            let mut out = Vals::new();
            for b in bs {
                append(&mut out, &self.resolve_binding(*b, depth + 1));
            }
            if !out.is_empty() {
                return cap(out);
            }
        }
        for b in self.bases(c, depth + 1) {
            let v = self.member(b, name, depth + 1);
            if !v.is_empty() {
                return v;
            }
        }
        Vals::new()
    }

    /// Resolved base classes of class node `c`, in declaration order (memoized).
    fn bases(&self, c: u32, depth: u32) -> Vec<u32> {
        if let Some(b) = self.memo_bases.borrow().get(&c) {
            return b.clone();
        }
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        self.memo_bases.borrow_mut().insert(c, Vec::new());
        let node = &self.g.nodes[c as usize];
        let fi = node.file as usize;
        let d = &self.files[fi].facts.defs[node.def as usize];
        let scope = d.parent.map(|p| self.defs[fi][p as usize]);
        let mut out = Vec::new();
        for base in &d.bases {
            if let Expr::Dotted(ch) | Expr::Subscript(ch) = base {
                for v in self.resolve_chain(fi, scope, ch, depth + 1) {
                    if let Val::Node(b) = v
                        && self.kind(b) == NodeKind::Class
                        && b != c
                        && !out.contains(&b)
                    {
                        out.push(b);
                    }
                }
            }
        }
        self.memo_bases.borrow_mut().insert(c, out.clone());
        out
    }
}

fn push<'a>(map: &mut HashMap<&'a str, Vec<Binding>>, name: &'a str, b: Binding) {
    map.entry(name).or_default().push(b);
}

fn emit(out: &mut Vec<(u32, u32, EdgeKind, u8)>, src: u32, targets: &[u32], kind: EdgeKind) {
    let meta = ambiguity(targets.len());
    for &t in targets {
        out.push((src, t, kind, meta));
    }
}

/// The confidence byte of an edge that is one of `n` candidates (shared with `graph::scope`).
pub(crate) fn ambiguity(n: usize) -> u8 {
    if n <= 1 { META_EXACT } else { n.min(255) as u8 }
}

/// Removes repeated nodes, keeping the first of each (shared with `graph::scope`).
pub(crate) fn dedup(v: &mut Vec<u32>) {
    let n = unique_prefix(v, usize::MAX);
    v.truncate(n);
}

/// Moves the first occurrence of each value to the front, in order, until `cap` are there, and
/// returns how many are. Each value is compared with the ones kept so far, without a set
/// allocated, when those are few: when the list is short (most are a few values) or the cap
/// small (the value flow's, which asks this of every expression it evaluates).
fn unique_prefix<T: Copy + Eq + std::hash::Hash>(v: &mut [T], cap: usize) -> usize {
    if v.len() < 2 {
        return v.len().min(cap);
    }
    let mut w = 0;
    let mut seen: Option<HashSet<T>> = (v.len() > 32 && cap > 32).then(HashSet::default);
    for r in 0..v.len() {
        if w == cap {
            break;
        }
        let x = v[r];
        let new = match &mut seen {
            Some(set) => set.insert(x),
            None => !v[..w].contains(&x),
        };
        if new {
            v[w] = x;
            w += 1;
        }
    }
    w
}

/// Removes duplicates and bounds the number of alternatives.
fn cap(mut v: Vals) -> Vals {
    let n = unique_prefix(&mut v, MAX_ALTS);
    v.truncate(n);
    v
}

fn is_static(d: &crate::extract::Def) -> bool {
    d.decorators.iter().any(|e| matches!(e, Expr::Dotted(c) if c == "staticmethod"))
}

fn is_classmethod(d: &crate::extract::Def) -> bool {
    d.decorators.iter().any(|e| matches!(e, Expr::Dotted(c) if c == "classmethod"))
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// A file's import root and dotted module name: the name starts below the topmost directory
/// that is a package, so `src/flask/app.py` is `flask.app` and `pkg/__init__.py` is `pkg`.
pub fn module_name<'p>(
    rel: &'p [u8],
    packages: &std::collections::HashSet<&[u8]>,
) -> (&'p [u8], Option<String>) {
    let mut dir = parent_dir(rel);
    while !dir.is_empty() && packages.contains(dir) {
        dir = parent_dir(dir);
    }
    let below = if dir.is_empty() { rel } else { &rel[dir.len() + 1..] };
    (dir, dotted_path(below))
}

/// Other import names of a file: its repo-relative dotted path, and its path below every
/// `src` or `lib` directory on the way.
fn alternative_names(rel: &[u8]) -> Vec<String> {
    let mut out: Vec<String> = dotted_path(rel).into_iter().collect();
    let mut start = 0;
    for (i, comp) in rel.split(|&c| c == b'/').enumerate() {
        let next = start + comp.len() + 1;
        if (i > 0 || next <= rel.len()) && (comp == b"src" || comp == b"lib") && next < rel.len() {
            out.extend(dotted_path(&rel[next..]));
        }
        start = next;
    }
    out
}

/// `a/b/c.py` -> `a.b.c`; `a/b/__init__.py` -> `a.b`; None when a part is not an identifier.
pub fn dotted_path(rel: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(rel).ok()?;
    let s = s.strip_suffix(".py")?;
    let s = s.strip_suffix("/__init__").unwrap_or(s);
    if s == "__init__" {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    for (i, part) in s.split('/').enumerate() {
        let ok = part.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !ok {
            return None;
        }
        if i > 0 {
            out.push('.');
        }
        out.push_str(part);
    }
    Some(out)
}

/// Most values one name, attribute, parameter or return value may point to in the value flow.
const MAX_PTS: usize = 12;
/// Most rounds of the value-flow fixpoint (each round evaluates every statement once).
const MAX_ROUNDS: u32 = 16;
/// Deepest expression nesting evaluated.
const MAX_EVAL_DEPTH: u32 = 96;

/// [`Flow::memo`] of an expression not evaluated yet this round.
const MEMO_NONE: (u32, u32) = (u32::MAX, 0);

/// A name interned by the value flow ([`Flow::sym`]): names are compared and hashed as numbers.
type Sym = u32;

/// What a value-flow variable is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// A name bound in a scope (function, class body or file node).
    Var(u32, Sym),
    /// An attribute of a class (through its instances) or of a function object.
    Attr(u32, Sym),
    /// What a function returns (a generator: a one-element collection of what it yields).
    Ret(u32),
    /// The elements of a collection made at an expression of a file.
    Elem(u32, u32),
}

/// A value-flow variable's values, and the (file, unit) pairs that read them.
#[derive(Default)]
struct Cell {
    pts: Vals,
    /// Two inline: Django's 226,000 cells have 3.3 readers on average, and a heap vector for
    /// each cell's first ones took 150,000 of a definition edit's 2.2 million mallocs.
    readers: SmallVec<[(u32, u32); 2]>,
}

/// The inter-procedural, flow-insensitive points-to analysis of Python's value flow: every
/// assignment, argument, return, decorator, `for` and `with` moves sets of values between
/// [`Key`]s until nothing changes (or [`MAX_ROUNDS`]); names the flow does not bind fall back
/// to the scope-based resolution of [`Linker`].
struct Flow<'l, 'a> {
    lx: &'l Linker<'a>,
    /// Per file: its units and what its names resolve to by the scope rules.
    pre: &'l Prepared<'a>,
    /// Every key's values and readers, by cell number ([`Flow::cell`] numbers keys).
    cells: Vec<Cell>,
    /// `Var` and `Attr` keys -> cell.
    key_cell: HashMap<Key, u32>,
    /// Function node -> the cell of `Ret` (`NO_EXPR` until used).
    ret_cell: Vec<u32>,
    /// Per file, per expression: the cell of `Elem` (allocated on first use).
    elem_cell: Vec<Vec<u32>>,
    /// Values of expressions in the current round: a range of `memo_buf` per expression
    /// (`MEMO_NONE`: not evaluated yet; `MEMO_BUSY`: being evaluated).
    memo: Vec<(u32, u32)>,
    memo_buf: Vec<Val>,
    /// Per file, per expression: its entry in `name_tab` (`NO_EXPR` until resolved).
    name_slot: Vec<Vec<u32>>,
    /// What the scope rules resolve a name to, and the cell of its flow key.
    name_tab: Vec<(Vals, u32)>,
    /// Per file, per expression: the cell a `Name` target assigns to (`NO_EXPR` until known).
    target_cell: Vec<Vec<u32>>,
    /// (class node, name) -> index in `own_tab`.
    own: HashMap<(u32, Sym), u32>,
    /// The class's own member as the scope rules resolve it, and the cell of its `Attr` key.
    own_tab: Vec<(Vals, u32)>,
    /// (class node, name) -> index in `chain_tab`.
    chains: HashMap<(u32, Sym), u32>,
    chain_tab: Vec<Chain>,
    /// (module or directory node, name) -> what the scope rules make of the attribute, and
    /// the cell of the module's variable (`NO_EXPR` for a directory).
    mod_attr: HashMap<(u32, Sym), (Vals, u32)>,
    /// (scope node, name) -> what the scope rules resolve it to, and its flow key.
    names: HashMap<(u32, Sym), u32>,
    /// The symbols, and what the statements bind, from the facts alone.
    ix: Prelude<'a>,
    mro: RefCell<HashMap<u32, Arc<Vec<u32>>>>,
    /// The file being evaluated.
    cur_file: u32,
    /// The unit ([`Units`]) being evaluated: what reads are charged to.
    cur_unit: u32,
    /// (file, unit) pairs to evaluate again in the next round (repeats allowed).
    dirty: Vec<(u32, u32)>,
    /// In a pass over some units of a file: the units it evaluates (empty: all of them), and
    /// the statement it is at (`u32::MAX` past the statements).
    live: Vec<bool>,
    cur_stmt: u32,
    implicit_seen: HashSet<(u32, u32)>,
    /// Per file, per call index: the callee targets (none: empty), and how many alternatives
    /// they are (a decorated function and the wrapper its decorator returns are both called:
    /// one alternative). Dense: the links look every call up.
    calls: Vec<Vec<(Vec<u32>, usize)>>,
    /// Per file, per call: what its callee evaluated to the last time it was evaluated (which
    /// no later change of what it read contradicts: its readers would have been evaluated
    /// again).
    callee: Vec<Vec<Vals>>,
    /// Decorated definitions whose name is bound to what their decorators return.
    wrapped: HashSet<u32>,
    /// Implicit calls: (caller, callee).
    implicit: Vec<(u32, u32)>,
}

/// What the value flow knows before it evaluates anything, from the facts alone (no scope
/// rules: it is made while the scope tables are): the interned names, and which names each
/// scope binds.
struct Prelude<'a> {
    files: &'a [Source<'a>],
    defs: &'a DefNodes,
    /// Per file: its node.
    file_node: Vec<u32>,
    /// Interned names: name -> symbol, symbol -> name.
    sym_of: HashMap<&'a str, Sym>,
    sym_str: Vec<&'a str>,
    /// Per file, per string of its flow's string table: the symbol.
    file_syms: Vec<Vec<Sym>>,
    /// The dunder methods the analysis calls implicitly.
    du: Dunders,
    /// (scope node, name) bound by the value flow (assignments, parameters, decorated defs).
    bound: HashSet<(u32, Sym)>,
    /// (function node, name) assigned in the function's body (not only a parameter).
    reassigned: HashSet<(u32, Sym)>,
    /// Function node -> parameter positions it returns as they are.
    ret_params: HashMap<u32, Vec<usize>>,
    /// (scope node, name) declared `global` / `nonlocal` there.
    globals: HashSet<(u32, Sym)>,
    /// Per file, per expression: its call index when it is a call (`NO_EXPR` otherwise).
    call_at: Vec<Vec<u32>>,
}

/// A file's units of evaluation: the statements and expressions evaluated together, which
/// is what a read is charged to and what a later round evaluates again when the read changes.
/// A unit is a statement with the expression trees it evaluates, joined with every other
/// statement that shares one of them (`a = b = f()`) and, for a definition's decorators,
/// with the rest of its chain (each applies to what the one before returned); an expression
/// no statement evaluates (a bare call) is a unit with its tree.
#[derive(Default)]
struct Units {
    /// Per statement, per expression: its unit.
    stmt: Vec<u32>,
    expr: Vec<u32>,
    count: u32,
    /// Per unit: its first statement (`u32::MAX`: it has none).
    first: Vec<u32>,
}

impl Units {
    fn of(flow: &crate::extract::PyFlow) -> Units {
        let n = flow.exprs.len();
        // Union-find over the expressions, then the statements (numbered from `n`).
        let mut up: Vec<u32> = (0..(n + flow.stmts.len()) as u32).collect();
        fn root(up: &mut [u32], mut x: u32) -> u32 {
            while up[x as usize] != x {
                let p = up[x as usize];
                up[x as usize] = up[p as usize];
                x = p;
            }
            x
        }
        // (`NO_EXPR` and `STAR_ARG`, which name no expression, are out of range: skipped.)
        let join = |up: &mut Vec<u32>, a: u32, b: u32| {
            if (a as usize) < up.len() && (b as usize) < up.len() {
                let (ra, rb) = (root(up, a), root(up, b));
                if ra != rb {
                    up[ra.max(rb) as usize] = ra.min(rb);
                }
            }
        };
        for (e, x) in flow.exprs.iter().enumerate() {
            let e = e as u32;
            match *x {
                PyExpr::Attr(o, _) | PyExpr::Item(o) | PyExpr::Op(o, _) => join(&mut up, e, o),
                PyExpr::Call(f, ops) => {
                    join(&mut up, e, f);
                    let (args, _, kwargs) = flow.call_args(ops);
                    for &a in args.iter().chain(kwargs) {
                        join(&mut up, e, a);
                    }
                }
                PyExpr::Coll(xs) | PyExpr::Union(xs) => {
                    for &a in flow.list(xs) {
                        join(&mut up, e, a);
                    }
                }
                PyExpr::Name(_) | PyExpr::Str(_) => {}
            }
        }
        let mut last_deco: Option<(u32, u32)> = None;
        for (si, st) in flow.stmts.iter().enumerate() {
            let s = (n + si) as u32;
            match *st {
                FlowStmt::Assign(a, b) | FlowStmt::For(a, b) | FlowStmt::With(a, b) => {
                    join(&mut up, s, a);
                    join(&mut up, s, b);
                }
                FlowStmt::Return(_, e) => join(&mut up, s, e),
                FlowStmt::Deco(d, e) => {
                    join(&mut up, s, e);
                    if let Some((d0, s0)) = last_deco
                        && d0 == d
                    {
                        join(&mut up, s, s0);
                    }
                    last_deco = Some((d, s));
                }
                FlowStmt::Global(..) => {}
            }
        }
        let mut id = vec![u32::MAX; up.len()];
        let mut count = 0;
        let mut unit = |up: &mut Vec<u32>, x: u32| {
            let r = root(up, x) as usize;
            if id[r] == u32::MAX {
                id[r] = count;
                count += 1;
            }
            id[r]
        };
        let stmt: Vec<u32> =
            (0..flow.stmts.len()).map(|si| unit(&mut up, (n + si) as u32)).collect();
        let expr: Vec<u32> = (0..n).map(|e| unit(&mut up, e as u32)).collect();
        let mut first = vec![u32::MAX; count as usize];
        for (si, &u) in stmt.iter().enumerate().rev() {
            first[u as usize] = si as u32;
        }
        Units { stmt, expr, count, first }
    }
}

/// A member looked up along a class's MRO ([`Flow::class_member`]): the first position whose
/// class has it, statically or by assignment. The answer is a cell of its own, kept up to date
/// as the positions' cells grow, so that a lookup reads one cell (and is one reader) however
/// long the MRO.
struct Chain {
    name: Sym,
    mro: Arc<Vec<u32>>,
    /// Per MRO position: the `own_tab` entry of that class for the name (`NO_EXPR` until
    /// looked up).
    own: Vec<u32>,
    /// The cell holding the answer (`NO_EXPR` until first asked).
    cell: u32,
    /// How many positions' cells have this chain among their readers.
    watched: u32,
}

/// The file of a cell reader that is a [`Chain`] (its unit is the chain's index).
const CHAIN_READER: u32 = u32::MAX;

/// Symbols of the methods Python calls implicitly.
#[derive(Default)]
struct Dunders {
    enter: Sym,
    exit: Sym,
    getitem: Sym,
    iter: Sym,
    next: Sym,
    init: Sym,
    new: Sym,
    call: Sym,
}

impl<'a> Prelude<'a> {
    fn new(g: &Graph, files: &'a [Source<'a>], defs: &'a DefNodes) -> Prelude<'a> {
        let mut ix = Prelude {
            files,
            defs,
            file_node: file_nodes(g, files.len()),
            sym_of: HashMap::default(),
            sym_str: Vec::new(),
            file_syms: vec![Vec::new(); files.len()],
            du: Dunders::default(),
            bound: HashSet::default(),
            globals: HashSet::default(),
            reassigned: HashSet::default(),
            ret_params: HashMap::default(),
            call_at: vec![Vec::new(); files.len()],
        };
        ix.du = Dunders {
            enter: ix.sym("__enter__"),
            exit: ix.sym("__exit__"),
            getitem: ix.sym("__getitem__"),
            iter: ix.sym("__iter__"),
            next: ix.sym("__next__"),
            init: ix.sym("__init__"),
            new: ix.sym("__new__"),
            call: ix.sym("__call__"),
        };
        if crate::extract::bench_no_flow() {
            return ix;
        }
        for (fi, f) in files.iter().enumerate() {
            if f.lang == Lang::Python {
                let flow = &f.facts.flow;
                let syms = (0..flow.ends.len() as u32).map(|i| ix.sym(flow.str(i))).collect();
                ix.file_syms[fi] = syms;
            }
        }
        ix.index();
        ix
    }

    /// The symbol of a name.
    fn sym(&mut self, s: &'a str) -> Sym {
        if let Some(&y) = self.sym_of.get(s) {
            return y;
        }
        let y = self.sym_str.len() as Sym;
        self.sym_str.push(s);
        self.sym_of.insert(s, y);
        y
    }

    /// The symbol of string `id` of file `fi`'s flow.
    fn fsym(&self, fi: usize, id: u32) -> Sym {
        self.file_syms[fi][id as usize]
    }

    /// Which names each scope binds.
    fn index(&mut self) {
        let (files, defs) = (self.files, self.defs);
        for fi in 0..files.len() {
            if files[fi].lang != Lang::Python {
                continue;
            }
            let facts = files[fi].facts;
            let flow = &facts.flow;
            let mut at = vec![NO_EXPR; flow.exprs.len()];
            for (ci, &e) in flow.call_exprs.iter().enumerate() {
                if let Some(slot) = at.get_mut(e as usize) {
                    *slot = ci as u32;
                }
            }
            self.call_at[fi] = at;
            for (di, &ps) in flow.params.iter().enumerate() {
                let n = defs[fi][di];
                for &p in flow.list(ps) {
                    let y = self.fsym(fi, p);
                    self.bound.insert((n, y));
                }
            }
            for st in &flow.stmts {
                match st {
                    FlowStmt::Assign(t, v) => {
                        // A parameter's default is evaluated outside the function.
                        let default = flow.owners.get(*v as usize) != flow.owners.get(*t as usize);
                        self.bind_targets(fi, *t, 0, !default)
                    }
                    FlowStmt::For(t, _) | FlowStmt::With(_, t) => {
                        self.bind_targets(fi, *t, 0, true)
                    }
                    FlowStmt::Global(d, names) => {
                        let n = defs[fi][*d as usize];
                        for &x in flow.list(*names) {
                            let y = self.fsym(fi, x);
                            self.globals.insert((n, y));
                        }
                    }
                    FlowStmt::Deco(d, _) => {
                        let def = &facts.defs[*d as usize];
                        let parent =
                            def.parent.map_or(self.file_node[fi], |p| defs[fi][p as usize]);
                        let y = self.sym(def.name.as_str());
                        self.bound.insert((parent, y));
                    }
                    FlowStmt::Return(..) => {}
                }
            }
        }
        for fi in 0..files.len() {
            if files[fi].lang != Lang::Python {
                continue;
            }
            for st in &files[fi].facts.flow.stmts {
                if let FlowStmt::Return(d, e) = st
                    && let Some(i) = self.returns_param(fi, *d, *e)
                {
                    let v = self.ret_params.entry(defs[fi][*d as usize]).or_default();
                    if !v.contains(&i) {
                        v.push(i);
                    }
                }
            }
        }
    }

    fn bind_targets(&mut self, fi: usize, t: u32, depth: u32, body: bool) {
        let flow = &self.files[fi].facts.flow;
        let Some(e) = flow.exprs.get(t as usize) else { return };
        match e {
            PyExpr::Name(n) => {
                let s = match flow.owners[t as usize] {
                    NO_EXPR => self.file_node[fi],
                    o => self.defs[fi][o as usize],
                };
                let n = self.fsym(fi, *n);
                self.bound.insert((s, n));
                if body {
                    self.reassigned.insert((s, n));
                }
            }
            PyExpr::Coll(ts) if depth < 8 => {
                for &x in flow.list(*ts) {
                    self.bind_targets(fi, x, depth + 1, body);
                }
            }
            _ => {}
        }
    }

    /// The parameter position `return e` in definition `d` returns as it is (`return func` in a
    /// decorator that registers `func`): each call then returns its own argument, which keeps
    /// one caller's values from flowing to every other caller.
    fn returns_param(&self, fi: usize, d: u32, e: u32) -> Option<usize> {
        let flow = &self.files[fi].facts.flow;
        let Some(&PyExpr::Name(n)) = flow.exprs.get(e as usize) else { return None };
        if flow.owners[e as usize] != d {
            return None;
        }
        let n = self.fsym(fi, n);
        let ps = flow.params(d)?;
        let i = ps.iter().position(|&p| self.fsym(fi, p) == n)?;
        let def = &self.files[fi].facts.defs[d as usize];
        let method = def.parent.is_some_and(|p| {
            self.files[fi].facts.defs[p as usize].kind == DefKind::Class && !is_static(def)
        });
        if i == 0 && method {
            return None; // `return self`: the receiver
        }
        // Only while nothing else is assigned to it.
        let node = self.defs[fi][d as usize];
        (!self.reassigned.contains(&(node, n))).then_some(i)
    }
}

impl<'l, 'a> Flow<'l, 'a> {
    fn solve(lx: &'l Linker<'a>, pre: &'l Prepared<'a>, ix: Prelude<'a>) -> Flow<'l, 'a> {
        // The biggest tables sized up front from the number of expressions (Django: 897,000;
        // 226,000 cells, 162,000 keyed, 142,000 names), not grown by doubling and rehashing.
        let exprs: usize = lx.files.iter().map(|f| f.facts.flow.exprs.len()).sum();
        fn map<K, V>(n: usize) -> HashMap<K, V> {
            HashMap::with_capacity_and_hasher(n, Default::default())
        }
        let mut fl = Flow {
            lx,
            pre,
            cells: Vec::with_capacity(exprs / 4),
            key_cell: map(exprs / 5),
            ret_cell: vec![NO_EXPR; lx.g.nodes.len()],
            elem_cell: vec![Vec::new(); lx.files.len()],
            memo: Vec::new(),
            memo_buf: Vec::new(),
            name_slot: vec![Vec::new(); lx.files.len()],
            name_tab: Vec::new(),
            target_cell: vec![Vec::new(); lx.files.len()],
            names: map(exprs / 6),
            own: HashMap::default(),
            own_tab: Vec::new(),
            chains: HashMap::default(),
            chain_tab: Vec::new(),
            mod_attr: HashMap::default(),
            ix,
            mro: RefCell::new(HashMap::default()),
            cur_file: 0,
            cur_unit: 0,
            dirty: Vec::new(),
            live: Vec::new(),
            cur_stmt: u32::MAX,
            implicit_seen: HashSet::default(),
            calls: Vec::new(),
            callee: lx
                .files
                .iter()
                .map(|f| match f.lang {
                    Lang::Python => vec![Vals::new(); f.facts.flow.call_exprs.len()],
                    _ => Vec::new(),
                })
                .collect(),
            wrapped: HashSet::default(),
            implicit: Vec::new(),
        };
        if crate::extract::bench_no_flow() {
            return fl;
        }
        let debug = std::env::var_os("CDS_FLOW_DEBUG").is_some();
        if debug {
            let (mut ex, mut li, mut tx, mut st, mut en, mut ce, mut pa) = (0, 0, 0, 0, 0, 0, 0);
            for f in lx.files {
                let fl = &f.facts.flow;
                ex += fl.exprs.len();
                li += fl.lists.len();
                tx += fl.text.len();
                en += fl.ends.len();
                st += fl.stmts.len();
                ce += fl.call_exprs.len();
                pa += fl.params.len();
            }
            eprintln!(
                "flow sizes: exprs {ex} lists {li} text {tx} strs {en} stmts {st} calls {ce} params {pa}"
            );
        }
        let t0 = std::time::Instant::now();
        for r in 0..MAX_ROUNDS {
            let mut n = 0;
            if r == 0 {
                for fi in 0..lx.files.len() {
                    if lx.files[fi].lang == Lang::Python {
                        fl.round(fi, None);
                        n += 1;
                    }
                }
            } else {
                let mut todo = std::mem::take(&mut fl.dirty);
                todo.sort_unstable();
                todo.dedup();
                for units in todo.chunk_by(|a, b| a.0 == b.0) {
                    fl.round(units[0].0 as usize, Some(units));
                    n += 1;
                }
            }
            if debug {
                eprintln!("flow round {r}: {n} files, {:?}, keys={}", t0.elapsed(), fl.cells.len());
            }
            if n == 0 {
                break;
            }
        }
        let t_calls = std::time::Instant::now();
        fl.calls = (0..lx.files.len())
            .map(|fi| {
                std::mem::take(&mut fl.callee[fi])
                    .into_iter()
                    .map(|fv| {
                        let t = lx.callables(&fv);
                        if t.is_empty() || t.len() > MAX_ALTS {
                            return (Vec::new(), 0);
                        }
                        let n = t.iter().filter(|x| !fl.wrapped.contains(x)).count();
                        (t.into_vec(), n)
                    })
                    .collect()
            })
            .collect();
        if debug {
            eprintln!("flow calls: {:?}", t_calls.elapsed());
        }
        fl
    }

    /// What the links need of the solution. The rest, hundreds of thousands of small
    /// allocations, is freed on a thread of its own, off the build's critical path.
    fn into_links(self) -> FlowLinks {
        let Flow {
            calls,
            wrapped,
            implicit,
            cells,
            key_cell,
            ret_cell,
            elem_cell,
            memo_buf,
            name_slot,
            name_tab,
            target_cell,
            own,
            own_tab,
            chains,
            chain_tab,
            mod_attr,
            names,
            ix,
            mro,
            implicit_seen,
            ..
        } = self;
        let rest = (cells, key_cell, ret_cell, elem_cell, memo_buf, name_slot, name_tab);
        let more = (target_cell, own, own_tab, chains, chain_tab, mod_attr, names);
        let Prelude { bound, globals, reassigned, ret_params, call_at, file_syms, .. } = ix;
        let yet = (mro, implicit_seen, bound, globals, reassigned, ret_params, call_at, file_syms);
        std::thread::spawn(move || drop((rest, more, yet)));
        FlowLinks { calls, wrapped, implicit }
    }

    fn facts(&self, fi: usize) -> &'a crate::extract::PyFlow {
        &self.lx.files[fi].facts.flow
    }

    /// The symbol of a name.
    fn sym(&mut self, s: &'a str) -> Sym {
        self.ix.sym(s)
    }

    /// The symbol of string `id` of file `fi`'s flow.
    fn fsym(&self, fi: usize, id: u32) -> Sym {
        self.ix.fsym(fi, id)
    }

    /// The name of a symbol.
    fn name(&self, y: Sym) -> &'a str {
        self.ix.sym_str[y as usize]
    }

    /// The definition node of an owner, None at module level.
    fn scope(&self, fi: usize, owner: u32) -> Option<u32> {
        (owner != NO_EXPR).then(|| self.lx.defs[fi][owner as usize])
    }

    fn owner_node(&self, fi: usize, owner: u32) -> u32 {
        self.scope(fi, owner).unwrap_or(self.lx.file_node[fi])
    }

    /// Starts evaluating file `fi` (expressions are memoized per file and round).
    fn start_file(&mut self, fi: usize) {
        self.cur_file = fi as u32;
        self.memo.clear();
        self.memo.resize(self.facts(fi).exprs.len(), MEMO_NONE);
        self.memo_buf.clear();
        if self.name_slot[fi].is_empty() {
            self.name_slot[fi] = vec![NO_EXPR; self.facts(fi).exprs.len()];
        }
    }

    fn get(&mut self, k: &Key) -> Vals {
        let mut out = Vals::new();
        self.get_into(k, &mut out);
        out
    }

    /// The cell of key `k` (made on first use): `Ret` and `Elem` keys by dense tables, the
    /// others through a map.
    fn cell(&mut self, k: &Key) -> u32 {
        let slot = match *k {
            Key::Ret(n) => self.ret_cell.get_mut(n as usize),
            Key::Elem(f, x) => match self.elem_cell.get_mut(f as usize) {
                Some(v) => {
                    if v.is_empty() {
                        let n = self.lx.files[f as usize].facts.flow.exprs.len();
                        *v = vec![NO_EXPR; n];
                    }
                    v.get_mut(x as usize)
                }
                None => None,
            },
            Key::Var(..) | Key::Attr(..) => None,
        };
        let next = self.cells.len() as u32;
        let c = match slot {
            Some(s) => {
                if *s == NO_EXPR {
                    *s = next;
                }
                *s
            }
            None => *self.key_cell.entry(*k).or_insert(next),
        };
        if c == next {
            self.cells.push(Cell::default());
        }
        c
    }

    /// Appends what key `k` points to to `out` (and records the current unit as a
    /// reader of `k`).
    fn get_into(&mut self, k: &Key, out: &mut Vals) {
        let c = self.cell(k);
        self.read(c, out);
    }

    /// Appends the values of cell `c` to `out` (and records the current unit as a
    /// reader).
    fn read(&mut self, c: u32, out: &mut Vals) {
        let me = (self.cur_file, self.cur_unit);
        let c = &mut self.cells[c as usize];
        let r = &mut c.readers;
        if r.last() != Some(&me) && (r.len() > 16 || !r.contains(&me)) {
            r.push(me);
        }
        append(out, &c.pts);
    }

    fn add(&mut self, k: Key, vals: &[Val]) {
        if vals.is_empty() {
            return;
        }
        let c = self.cell(&k);
        self.add_cell(c, vals);
    }

    /// Adds `vals` to cell `c`; its readers are evaluated again when it changes.
    fn add_cell(&mut self, c: u32, vals: &[Val]) {
        let e = &mut self.cells[c as usize].pts;
        let mut changed = false;
        for v in vals {
            if e.len() >= MAX_PTS {
                break;
            }
            if !e.contains(v) {
                e.push(*v);
                changed = true;
            }
        }
        if changed {
            self.notify(c);
        }
    }

    /// Cell `c` changed: its readers are evaluated again, later in this pass when they are
    /// units of this pass's file still ahead of it, else in the next round; the chains
    /// reading it are brought up to date.
    fn notify(&mut self, c: u32) {
        let (cur, at) = (self.cur_file, self.cur_stmt);
        let mut chains: SmallVec<[u32; 4]> = SmallVec::new();
        for &(f, u) in &self.cells[c as usize].readers {
            if f == CHAIN_READER {
                chains.push(u);
                continue;
            }
            if f == cur && at != u32::MAX && !self.live.is_empty() {
                let first = self.pre.get(f as usize).units.first[u as usize];
                if first == u32::MAX || first > at {
                    self.live[u as usize] = true;
                    continue;
                }
            }
            self.dirty.push((f, u));
        }
        for ci in chains {
            let v = self.chain_value(ci as usize);
            let cell = self.chain_tab[ci as usize].cell;
            if self.cells[cell as usize].pts != v {
                self.cells[cell as usize].pts = v;
                self.notify(cell);
            }
        }
    }

    fn edge(&mut self, src: u32, dst: u32) {
        if src != dst && self.implicit_seen.insert((src, dst)) {
            self.implicit.push((src, dst));
        }
    }

    /// One pass over every statement and call of file `fi` (or of its units in `only`).
    fn round(&mut self, fi: usize, only: Option<&[(u32, u32)]>) {
        let lx = self.lx;
        let units = &self.pre.get(fi).units;
        self.start_file(fi);
        self.live.clear();
        if let Some(o) = only {
            self.live.resize(units.count as usize, false);
            for &(_, u) in o {
                self.live[u as usize] = true;
            }
        }
        {
            let flow = self.facts(fi);
            let mut deco_cur: Option<(u32, Vals)> = None;
            for (si, st) in flow.stmts.iter().enumerate() {
                if let Some((d, cur)) = deco_cur.take() {
                    if matches!(st, FlowStmt::Deco(d2, _) if *d2 == d) {
                        deco_cur = Some((d, cur));
                    } else {
                        self.decorated(fi, d, &cur);
                    }
                }
                if matches!(st, FlowStmt::Global(..)) {
                    continue;
                }
                // Reads are charged to the statement's unit. (A file has no units only when the
                // thread that makes them failed: its panic, not an index here, is then reported.)
                let Some(&unit) = units.stmt.get(si) else { continue };
                if !self.evaluates(unit) {
                    continue;
                }
                self.cur_unit = unit;
                self.cur_stmt = si as u32;
                match st {
                    FlowStmt::Assign(t, v) => {
                        let vals = self.eval(fi, *v, 0);
                        self.assign(fi, *t, &vals, Some(*v), 0);
                    }
                    FlowStmt::Return(d, e) => {
                        let n = lx.defs[fi][*d as usize];
                        if self.ix.returns_param(fi, *d, *e).is_some() {
                            continue; // taken from each call's own argument instead
                        }
                        let vals = self.eval(fi, *e, 0);
                        self.add(Key::Ret(n), &vals);
                    }
                    FlowStmt::For(t, it) => {
                        let src = self.owner_node(fi, flow.owners[*it as usize]);
                        let vals = self.eval(fi, *it, 0);
                        let el = self.iter_vals(src, &vals);
                        self.assign(fi, *t, &el, None, 0);
                    }
                    FlowStmt::With(e, t) => {
                        let src = self.owner_node(fi, flow.owners[*e as usize]);
                        let vals = self.eval(fi, *e, 0);
                        let mut got = Vals::new();
                        for v in &vals {
                            match *v {
                                Val::Inst(c) => {
                                    for m in self.method(c, self.ix.du.enter) {
                                        self.edge(src, m);
                                        self.get_into(&Key::Ret(m), &mut got);
                                    }
                                    for m in self.method(c, self.ix.du.exit) {
                                        self.edge(src, m);
                                    }
                                }
                                // A generator-based context manager: what it yields.
                                Val::Coll(f, x) => self.get_into(&Key::Elem(f, x), &mut got),
                                _ => {}
                            }
                        }
                        if *t != NO_EXPR {
                            self.assign(fi, *t, &cap_pts(got), None, 0);
                        }
                    }
                    FlowStmt::Deco(d, e) => {
                        let n = lx.defs[fi][*d as usize];
                        let cur = deco_cur.take().map_or_else(|| smallvec![Val::Node(n)], |x| x.1);
                        let mut dv = self.eval(fi, *e, 0);
                        let src = n;
                        if let Some(&PyExpr::Call(f, ..)) = flow.exprs.get(*e as usize) {
                            // `@factory(...)`: the decorated definition calls what it returns,
                            // which is made inside the factory (a closure, an instance).
                            let fv = self.eval(fi, f, 0);
                            let made_in = self.functions(&fv);
                            dv.retain(|v| self.made_inside(*v, &made_in));
                            for t in lx.callables(&dv) {
                                self.edge(src, t);
                            }
                        }
                        let made_in = self.functions(&dv);
                        let mut res = self.apply(
                            fi,
                            src,
                            &dv,
                            None,
                            &[Some(Vals::from_slice(&cur))],
                            &[],
                            &[],
                        );
                        // What a decorator returns is the function itself or something it makes;
                        // other functions reach it only through other calls of the decorator.
                        res.retain(|v| cur.contains(v) || self.made_inside(*v, &made_in));
                        let next = if res.is_empty() { cur } else { res };
                        deco_cur = Some((*d, next));
                    }
                    FlowStmt::Global(..) => {}
                }
            }
            if let Some((d, cur)) = deco_cur.take() {
                self.decorated(fi, d, &cur);
            }
            self.cur_stmt = u32::MAX;
            for (e, x) in flow.exprs.iter().enumerate() {
                let Some(&unit) = units.expr.get(e) else { continue };
                if !self.evaluates(unit) {
                    continue;
                }
                self.cur_unit = unit;
                match x {
                    PyExpr::Call(..) | PyExpr::Op(..) | PyExpr::Attr(..) | PyExpr::Item(..) => {
                        self.visit(fi, e as u32)
                    }
                    PyExpr::Coll(items) => {
                        let mut vals = Vals::new();
                        for &i in flow.list(*items) {
                            append(&mut vals, &self.eval(fi, i, 0));
                        }
                        self.add(Key::Elem(fi as u32, e as u32), &cap_pts(vals));
                    }
                    _ => {}
                }
            }
        }
        self.live.clear();
    }

    /// Whether this pass evaluates `unit` of its file.
    fn evaluates(&self, unit: u32) -> bool {
        self.live.is_empty() || self.live[unit as usize]
    }

    /// Definition `d` of file `fi` is bound to `vals` once its decorators are applied.
    fn decorated(&mut self, fi: usize, d: u32, vals: &[Val]) {
        let lx = self.lx;
        let n = lx.defs[fi][d as usize];
        if vals == [Val::Node(n)] {
            return;
        }
        self.wrapped.insert(n);
        let def = &lx.files[fi].facts.defs[d as usize];
        let parent = def.parent.map_or(lx.file_node[fi], |p| lx.defs[fi][p as usize]);
        let y = self.sym(def.name.as_str());
        self.add(Key::Var(parent, y), vals);
        if lx.kind(parent) == NodeKind::Class {
            self.add(Key::Attr(parent, y), vals);
        }
    }

    /// The function nodes among `vals`.
    fn functions(&self, vals: &[Val]) -> Vec<u32> {
        vals.iter()
            .filter_map(|v| match *v {
                Val::Node(n) if self.lx.kind(n) == NodeKind::Function => Some(n),
                _ => None,
            })
            .collect()
    }

    /// Whether `v` is a function defined inside one of `fns` (at any depth), or an instance or
    /// class (what class-based decorators and factories make).
    fn made_inside(&self, v: Val, fns: &[u32]) -> bool {
        let g = self.lx.g;
        match v {
            Val::Inst(_) => true,
            Val::Node(n) if self.lx.kind(n) == NodeKind::Class => true,
            Val::Node(mut n) if self.lx.kind(n) == NodeKind::Function => {
                for _ in 0..64 {
                    let p = g.nodes[n as usize].parent;
                    if p == NONE || !matches!(self.lx.kind(p), NodeKind::Function | NodeKind::Class)
                    {
                        return false;
                    }
                    if fns.contains(&p) {
                        return true;
                    }
                    n = p;
                }
                false
            }
            _ => false,
        }
    }

    /// The key a name used in `owner` is bound at.
    fn name_key(&self, fi: usize, owner: u32, name: Sym) -> Key {
        let lx = self.lx;
        let mut cur = self.scope(fi, owner);
        let mut first = true;
        while let Some(n) = cur {
            let node = &lx.g.nodes[n as usize];
            if (node.kind != NodeKind::Class || first)
                && !self.ix.globals.contains(&(n, name))
                && self.ix.bound.contains(&(n, name))
            {
                return Key::Var(n, name);
            }
            first = false;
            cur = match lx.kind(node.parent) {
                NodeKind::Class | NodeKind::Function => Some(node.parent),
                _ => None,
            };
        }
        Key::Var(lx.file_node[fi], name)
    }

    /// The values expression `e` of file `fi` may have (memoized per round).
    fn eval(&mut self, fi: usize, e: u32, depth: u32) -> Vals {
        if e == NO_EXPR || e == STAR_ARG || depth > MAX_EVAL_DEPTH {
            return Vals::new();
        }
        let memo = fi as u32 == self.cur_file;
        if !memo {
            return cap_pts(self.eval_uncached(fi, e, depth));
        }
        match self.memo.get(e as usize) {
            Some(&(s, n)) if s != MEMO_NONE.0 => {
                return vals_of(&self.memo_buf[s as usize..(s + n) as usize]);
            }
            Some(_) => self.memo[e as usize] = (0, 0), // a cycle reads nothing
            None => return cap_pts(self.eval_uncached(fi, e, depth)),
        }
        let mut v = self.eval_uncached(fi, e, depth);
        dedup_pts(&mut v);
        self.memo[e as usize] = (self.memo_buf.len() as u32, v.len() as u32);
        // Pushed, not `extend_from_slice`d, for the reason given at [`append`].
        for &x in &v {
            self.memo_buf.push(x);
        }
        v
    }

    /// The values of expression `e` when they are memoized this round.
    fn memoized(&self, fi: usize, e: u32) -> Option<&[Val]> {
        if fi as u32 != self.cur_file {
            return None;
        }
        match self.memo.get(e as usize) {
            Some(&(s, n)) if s != MEMO_NONE.0 => Some(&self.memo_buf[s as usize..(s + n) as usize]),
            _ => None,
        }
    }

    /// Evaluates expression `e` of the current file for its effects, unless it was already.
    fn visit(&mut self, fi: usize, e: u32) {
        if self.memoized(fi, e).is_none() {
            self.eval(fi, e, 0);
        }
    }

    fn eval_uncached(&mut self, fi: usize, e: u32, depth: u32) -> Vals {
        let flow = self.facts(fi);
        let Some(x) = flow.exprs.get(e as usize) else { return Vals::new() };
        let owner = flow.owners[e as usize];
        let src = self.owner_node(fi, owner);
        match x {
            PyExpr::Name(local) => {
                let n = self.fsym(fi, *local);
                let slot = self.name_slot[fi].get(e as usize).copied().unwrap_or(NO_EXPR);
                let slot = if slot != NO_EXPR {
                    slot
                } else {
                    let key = (src, n);
                    let slot = match self.names.get(&key) {
                        Some(&i) => i,
                        None => {
                            let names = &self.pre.get(fi).names;
                            let v = names
                                .binary_search_by_key(&(owner, *local), |x| x.0)
                                .map_or_else(|_| Vals::new(), |i| names[i].1.clone());
                            let k = self.name_key(fi, owner, n);
                            let c = self.cell(&k);
                            self.name_tab.push((v, c));
                            let i = (self.name_tab.len() - 1) as u32;
                            self.names.insert(key, i);
                            i
                        }
                    };
                    if let Some(x) = self.name_slot[fi].get_mut(e as usize) {
                        *x = slot;
                    }
                    slot
                };
                let (v, c) = &self.name_tab[slot as usize];
                let (mut out, c) = (vals_of(v), *c);
                self.read(c, &mut out);
                out
            }
            PyExpr::Attr(o, a) => {
                let ov = self.eval(fi, *o, depth + 1);
                self.attr_of(fi, src, &ov, self.fsym(fi, *a))
            }
            PyExpr::Call(f, ops) => {
                let (args, kn, kv) = flow.call_args(*ops);
                let kn: Vec<Sym> = kn.iter().map(|&k| self.fsym(fi, k)).collect();
                let kn = &kn[..];
                let fv = self.eval(fi, *f, depth + 1);
                if let Some(&ci) = self.ix.call_at[fi].get(e as usize)
                    && let Some(slot) = self.callee[fi].get_mut(ci as usize)
                {
                    slot.clear();
                    append(slot, &fv);
                }
                let argv: Vec<Option<Vals>> = args
                    .iter()
                    .map(|&a| (a != STAR_ARG).then(|| self.eval(fi, a, depth + 1)))
                    .collect();
                let kwv: Vec<Vals> = kv.iter().map(|&a| self.eval(fi, a, depth + 1)).collect();
                let mut out = self.apply(fi, src, &fv, Some(*f), &argv, kn, &kwv);
                if out.is_empty() && !fv.iter().any(|v| matches!(v, Val::Node(_) | Val::Inst(_))) {
                    out = self.builtin(fi, e, src, owner, *f, &argv, kn, &kwv, depth);
                }
                out
            }
            PyExpr::Item(o) => {
                let ov = self.eval(fi, *o, depth + 1);
                let mut out = Vals::new();
                for v in &ov {
                    match *v {
                        Val::Coll(f, x) => self.get_into(&Key::Elem(f, x), &mut out),
                        Val::Inst(c) => {
                            for m in self.method(c, self.ix.du.getitem) {
                                self.edge(src, m);
                                self.get_into(&Key::Ret(m), &mut out);
                            }
                        }
                        _ => {}
                    }
                }
                out
            }
            PyExpr::Coll(_) => smallvec![Val::Coll(fi as u32, e)],
            PyExpr::Union(xs) => {
                let mut out = Vals::new();
                for &i in flow.list(*xs) {
                    append(&mut out, &self.eval(fi, i, depth + 1));
                }
                out
            }
            PyExpr::Op(o, m) => {
                let m = self.fsym(fi, *m);
                let ov = self.eval(fi, *o, depth + 1);
                let mut out = Vals::new();
                for v in &ov {
                    if let Val::Inst(c) = *v {
                        for t in self.method(c, m) {
                            self.edge(src, t);
                            self.get_into(&Key::Ret(t), &mut out);
                        }
                    }
                }
                out
            }
            PyExpr::Str(_) => Vals::new(),
        }
    }

    /// Functions named `name` found on class `c` through its MRO.
    fn method(&mut self, c: u32, name: Sym) -> Targets {
        let vals = self.class_member(c, name, 0);
        let mut t = self.lx.callables(&vals);
        t.retain(|n| self.lx.kind(*n) == NodeKind::Function);
        t
    }

    /// Member `name` of class `c` looked up along its C3 MRO, starting at position `skip`.
    fn class_member(&mut self, c: u32, name: Sym, skip: usize) -> Vals {
        let ci = match self.chains.get(&(c, name)) {
            Some(&i) => i as usize,
            None => {
                let mro = self.mro(c);
                let own = vec![NO_EXPR; mro.len()];
                self.chain_tab.push(Chain { name, mro, own, cell: NO_EXPR, watched: 0 });
                self.chains.insert((c, name), (self.chain_tab.len() - 1) as u32);
                self.chain_tab.len() - 1
            }
        };
        let mut out = Vals::new();
        if skip == 0 {
            let mut cell = self.chain_tab[ci].cell;
            if cell == NO_EXPR {
                cell = self.cells.len() as u32;
                self.cells.push(Cell::default());
                self.chain_tab[ci].cell = cell;
                self.cells[cell as usize].pts = self.chain_value(ci);
            }
            self.read(cell, &mut out);
            return out;
        }
        // `super()`: from a later position, read directly (rare).
        for pos in skip..self.chain_tab[ci].own.len() {
            let o = self.chain_own(ci, pos);
            let (v, cell) = &self.own_tab[o as usize];
            let cell = *cell;
            append(&mut out, v);
            self.read(cell, &mut out);
            if !out.is_empty() {
                return out;
            }
        }
        out
    }

    /// The `own_tab` entry of MRO position `pos` of chain `ci` for its name (looked up once).
    fn chain_own(&mut self, ci: usize, pos: usize) -> u32 {
        let mut o = self.chain_tab[ci].own[pos];
        if o == NO_EXPR {
            let ch = &self.chain_tab[ci];
            o = self.own_member(ch.mro[pos], ch.name);
            self.chain_tab[ci].own[pos] = o;
        }
        o
    }

    /// What chain `ci` answers now: the values of the first MRO position that has any. The
    /// chain becomes a reader of each position's cell as far as it looks (an earlier
    /// position only ever gains values, so what lies past the answer never matters again).
    fn chain_value(&mut self, ci: usize) -> Vals {
        for pos in 0..self.chain_tab[ci].own.len() {
            let o = self.chain_own(ci, pos);
            let cell = self.own_tab[o as usize].1;
            if pos as u32 >= self.chain_tab[ci].watched {
                self.cells[cell as usize].readers.push((CHAIN_READER, ci as u32));
                self.chain_tab[ci].watched = pos as u32 + 1;
            }
            let mut out = vals_of(&self.own_tab[o as usize].0);
            append(&mut out, &self.cells[cell as usize].pts);
            if !out.is_empty() {
                return out;
            }
        }
        Vals::new()
    }

    /// The entry of `own_tab` for member `name` of class `k` itself (made on first use).
    fn own_member(&mut self, k: u32, name: Sym) -> u32 {
        if let Some(&o) = self.own.get(&(k, name)) {
            return o;
        }
        let lx = self.lx;
        let mut v = Vals::new();
        let s = self.name(name);
        if let Some(&m) = lx.children.get(&(k, s)) {
            v.push(Val::Node(m));
        } else if let Some(bs) = lx.attrs.get(&(k, s)) {
            for b in bs {
                append(&mut v, &lx.resolve_binding(*b, 0));
            }
        }
        let cell = self.cell(&Key::Attr(k, name));
        self.own_tab.push((cap_pts(v), cell));
        let o = (self.own_tab.len() - 1) as u32;
        self.own.insert((k, name), o);
        o
    }

    /// The C3 linearization of class `c` (depth-first order when C3 fails).
    fn mro(&self, c: u32) -> Arc<Vec<u32>> {
        if let Some(m) = self.mro.borrow().get(&c) {
            return m.clone();
        }
        self.mro.borrow_mut().insert(c, Arc::new(vec![c]));
        let bases = self.lx.bases(c, 0);
        let mut seqs: Vec<Vec<u32>> = bases.iter().map(|&b| self.mro(b).to_vec()).collect();
        seqs.push(bases.clone());
        let mut out = vec![c];
        let mut ok = true;
        loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                break;
            }
            let head = seqs.iter().map(|s| s[0]).find(|h| !seqs.iter().any(|s| s[1..].contains(h)));
            let Some(h) = head else {
                ok = false;
                break;
            };
            out.push(h);
            for s in &mut seqs {
                if s[0] == h {
                    s.remove(0);
                }
            }
            if out.len() > 256 {
                ok = false;
                break;
            }
        }
        if !ok {
            out = vec![c];
            let mut todo: Vec<u32> = bases.iter().rev().copied().collect();
            while let Some(b) = todo.pop() {
                if out.len() > 256 || out.contains(&b) {
                    continue;
                }
                out.push(b);
                todo.extend(self.lx.bases(b, 0).into_iter().rev());
            }
        }
        let m = Arc::new(out);
        self.mro.borrow_mut().insert(c, m.clone());
        m
    }

    /// Attribute `a` of each value; reading a property calls its getter.
    fn attr_of(&mut self, fi: usize, src: u32, vals: &[Val], a: Sym) -> Vals {
        let lx = self.lx;
        let _ = fi;
        let mut out = Vals::new();
        for v in vals {
            match *v {
                Val::Inst(c) => {
                    for m in self.class_member(c, a, 0) {
                        match m {
                            // A property defined under this name (a getter stored under
                            // another name is a plain function value).
                            Val::Node(f)
                                if lx.kind(f) == NodeKind::Function
                                    && is_property(lx, f)
                                    && def_name(lx, f) == self.name(a) =>
                            {
                                self.edge(src, f);
                                self.get_into(&Key::Ret(f), &mut out);
                            }
                            other => out.push(other),
                        }
                    }
                }
                Val::Node(n) => match lx.kind(n) {
                    NodeKind::Class => append(&mut out, &self.class_member(n, a, 0)),
                    NodeKind::File | NodeKind::Directory => {
                        let cell = match self.mod_attr.get(&(n, a)) {
                            Some((m, cell)) => {
                                append(&mut out, m);
                                *cell
                            }
                            None => {
                                // The scope rules' answer never changes once asked.
                                let m = lx.attr(*v, self.name(a), 0);
                                append(&mut out, &m);
                                let cell = if lx.kind(n) == NodeKind::File {
                                    self.cell(&Key::Var(n, a))
                                } else {
                                    NO_EXPR
                                };
                                self.mod_attr.insert((n, a), (m, cell));
                                cell
                            }
                        };
                        if cell != NO_EXPR {
                            self.read(cell, &mut out);
                        }
                    }
                    NodeKind::Function => self.get_into(&Key::Attr(n, a), &mut out),
                },
                Val::Super(c) => append(&mut out, &self.class_member(c, a, 1)),
                Val::External => out.push(Val::External),
                Val::Coll(..) => {}
            }
        }
        out
    }

    /// What iterating over each value yields (`for`, unpacking, `next`).
    fn iter_vals(&mut self, src: u32, vals: &[Val]) -> Vals {
        let mut out = Vals::new();
        for v in vals {
            match *v {
                Val::Coll(f, x) => self.get_into(&Key::Elem(f, x), &mut out),
                Val::Inst(c) => {
                    for m in self.method(c, self.ix.du.iter) {
                        self.edge(src, m);
                        for r in self.get(&Key::Ret(m)) {
                            match r {
                                Val::Coll(f, x) => self.get_into(&Key::Elem(f, x), &mut out),
                                Val::Inst(it) => {
                                    for n in self.method(it, self.ix.du.next) {
                                        self.edge(src, n);
                                        self.get_into(&Key::Ret(n), &mut out);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    if self.method(c, self.ix.du.iter).is_empty() {
                        for n in self.method(c, self.ix.du.next) {
                            self.edge(src, n);
                            self.get_into(&Key::Ret(n), &mut out);
                        }
                    }
                }
                _ => {}
            }
        }
        cap_pts(out)
    }

    /// Binds a call's arguments to the parameters of function `f` (`skip` receiver slots).
    fn bind(&mut self, f: u32, argv: &[Option<Vals>], kn: &[Sym], kwv: &[Vals], skip: usize) {
        let lx = self.lx;
        let node = &lx.g.nodes[f as usize];
        let fi = node.file as usize;
        let flow = &lx.files[fi].facts.flow;
        let Some(ps) = flow.params(node.def) else { return };
        for (i, a) in argv.iter().enumerate() {
            let Some(a) = a else { break };
            let Some(&p) = ps.get(i + skip) else { break };
            if flow.str(p).starts_with('*') {
                break;
            }
            self.add(Key::Var(f, self.fsym(fi, p)), a);
        }
        for (k, v) in kn.iter().zip(kwv) {
            if let Some(&p) = ps.iter().find(|&&p| self.fsym(fi, p) == *k) {
                self.add(Key::Var(f, self.fsym(fi, p)), v);
            }
        }
    }

    /// Calls each callee value; returns what the calls return.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        fi: usize,
        src: u32,
        fv: &[Val],
        fexpr: Option<u32>,
        argv: &[Option<Vals>],
        kn: &[Sym],
        kwv: &[Vals],
    ) -> Vals {
        let lx = self.lx;
        // A method reached through an instance (`obj.m(...)`) gets the receiver implicitly.
        let through_instance = match fexpr.and_then(|f| self.facts(fi).exprs.get(f as usize)) {
            Some(PyExpr::Attr(o, _)) => {
                let class = |v: &Val| matches!(v, Val::Node(n) if lx.kind(*n) == NodeKind::Class);
                match self.memoized(fi, *o) {
                    Some(ov) => !ov.iter().any(class),
                    None => !self.eval(fi, *o, 0).iter().any(class),
                }
            }
            _ => false,
        };
        let mut out = Vals::new();
        for v in fv {
            match *v {
                Val::Node(n) if lx.kind(n) == NodeKind::Function => {
                    let node = &lx.g.nodes[n as usize];
                    let def = &lx.files[node.file as usize].facts.defs[node.def as usize];
                    let method = lx.kind(node.parent) == NodeKind::Class && !is_static(def);
                    let skip = usize::from(method && (is_classmethod(def) || through_instance));
                    self.bind(n, argv, kn, kwv, skip);
                    self.get_into(&Key::Ret(n), &mut out);
                    if let Some(ps) = self.ix.ret_params.get(&n) {
                        let nfi = node.file as usize;
                        let names = lx.files[nfi].facts.flow.params(node.def).unwrap_or(&[]);
                        for &i in ps {
                            if let Some(Some(a)) = i.checked_sub(skip).and_then(|j| argv.get(j)) {
                                append(&mut out, a);
                            }
                            if let Some(k) = kn.iter().position(|k| *k == self.fsym(nfi, names[i]))
                            {
                                append(&mut out, &kwv[k]);
                            }
                        }
                    }
                    append(&mut out, &lx.call_results(&[*v], 0));
                }
                Val::Node(c) if lx.kind(c) == NodeKind::Class => {
                    out.push(Val::Inst(c));
                    for init in [self.ix.du.init, self.ix.du.new] {
                        for m in self.method(c, init) {
                            self.edge(src, m);
                            self.bind(m, argv, kn, kwv, 1);
                        }
                    }
                }
                Val::Inst(c) => {
                    for m in self.method(c, self.ix.du.call) {
                        self.bind(m, argv, kn, kwv, 1);
                        self.get_into(&Key::Ret(m), &mut out);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Builtins that pass values through: `map`, `filter`, `sorted(key=)`, `functools.partial`,
    /// `getattr(x, "lit")`, `importlib.import_module("lit")`, `super()`, and the methods of
    /// collections (`d.get(k)`, `l.append(f)`).
    #[allow(clippy::too_many_arguments)]
    fn builtin(
        &mut self,
        fi: usize,
        e: u32,
        src: u32,
        owner: u32,
        f: u32,
        argv: &[Option<Vals>],
        kn: &[Sym],
        kwv: &[Vals],
        depth: u32,
    ) -> Vals {
        let lx = self.lx;
        let flow = self.facts(fi);
        let (name, recv) = match flow.exprs.get(f as usize) {
            Some(PyExpr::Name(n)) => (flow.str(*n), None),
            Some(PyExpr::Attr(o, a)) => (flow.str(*a), Some(*o)),
            _ => return Vals::new(),
        };
        let arg = |i: usize| {
            argv.get(i).and_then(|a| a.as_deref().map(Vals::from_slice)).unwrap_or_default()
        };
        // The `key=` keyword argument.
        let key_sym = self.ix.sym_of.get("key").copied();
        let key_kw = || -> Vals {
            let i = key_sym.and_then(|y| kn.iter().position(|&x| x == y));
            i.map(|i| Vals::from_slice(&kwv[i])).unwrap_or_default()
        };
        let me = (fi as u32, e);
        if let Some(o) = recv {
            let ov = self.eval(fi, o, depth + 1);
            let colls: Vec<(u32, u32)> = ov
                .iter()
                .filter_map(|v| match *v {
                    Val::Coll(a, b) => Some((a, b)),
                    _ => None,
                })
                .collect();
            if !colls.is_empty() {
                let mut out = Vals::new();
                for (a, b) in colls {
                    let k = Key::Elem(a, b);
                    match name {
                        "get" | "pop" | "setdefault" | "popitem" | "__getitem__" => {
                            self.get_into(&k, &mut out);
                            if name == "setdefault" {
                                self.add(k, &arg(1));
                            }
                        }
                        "append" | "add" => self.add(k, &arg(0)),
                        "insert" => self.add(k, &arg(1)),
                        "extend" | "update" => {
                            let el = self.iter_vals(src, &arg(0));
                            self.add(k, &el);
                        }
                        "values" | "copy" => out.push(Val::Coll(a, b)),
                        // Pairs, modelled as holding the dict's values and the dict itself
                        // (which iterates to them): `for k, v in d.items()` binds its values.
                        "items" => {
                            let mut el = smallvec![Val::Coll(a, b)];
                            self.get_into(&k, &mut el);
                            self.add(Key::Elem(me.0, me.1), &el);
                            out.push(Val::Coll(me.0, me.1));
                        }
                        _ => {}
                    }
                }
                return out;
            }
            let module_ok = |ov: &[Val]| ov.is_empty() || ov.contains(&Val::External);
            match name {
                "partial" if module_ok(&ov) => {
                    return lx.callables(&arg(0)).into_iter().map(Val::Node).collect();
                }
                "import_module" if module_ok(&ov) => return self.import_literal(fi, e),
                "sort" => {
                    let el = self.iter_vals(src, &ov);
                    self.callback(src, &key_kw(), &el);
                }
                _ => {}
            }
            return Vals::new();
        }
        match name {
            "map" => {
                let el = self.iter_vals(src, &arg(1));
                let rets = self.callback(src, &arg(0), &el);
                self.add(Key::Elem(me.0, me.1), &rets);
                smallvec![Val::Coll(me.0, me.1)]
            }
            "filter" => {
                let el = self.iter_vals(src, &arg(1));
                self.callback(src, &arg(0), &el);
                self.add(Key::Elem(me.0, me.1), &el);
                smallvec![Val::Coll(me.0, me.1)]
            }
            "sorted" | "min" | "max" => {
                let el = self.iter_vals(src, &arg(0));
                self.callback(src, &key_kw(), &el);
                if name == "sorted" { arg(0) } else { el }
            }
            "list" | "tuple" | "set" | "frozenset" | "reversed" | "iter" => arg(0),
            "next" => self.iter_vals(src, &arg(0)),
            "partial" => lx.callables(&arg(0)).into_iter().map(Val::Node).collect(),
            "import_module" => self.import_literal(fi, e),
            "getattr" => match argv.get(1) {
                Some(Some(_)) => {
                    let lit = match &flow.exprs.get(self.arg_expr(fi, e, 1) as usize) {
                        Some(PyExpr::Str(s)) => Some(self.fsym(fi, *s)),
                        _ => None,
                    };
                    match lit {
                        Some(s) => self.attr_of(fi, src, &arg(0), s),
                        None => Vals::new(),
                    }
                }
                _ => Vals::new(),
            },
            "super" => {
                let class = self.scope(fi, owner).and_then(|s| lx.enclosing_class(s));
                class.map(|c| smallvec![Val::Super(c)]).unwrap_or_default()
            }
            _ => Vals::new(),
        }
    }

    /// The expression of positional argument `i` of call expression `e`.
    fn arg_expr(&self, fi: usize, e: u32, i: usize) -> u32 {
        match self.facts(fi).exprs.get(e as usize) {
            Some(PyExpr::Call(_, ops)) => {
                self.facts(fi).call_args(*ops).0.get(i).copied().unwrap_or(NO_EXPR)
            }
            _ => NO_EXPR,
        }
    }

    /// `importlib.import_module("a.b")`: the module, when the name is a literal.
    fn import_literal(&mut self, fi: usize, e: u32) -> Vals {
        let a = self.arg_expr(fi, e, 0);
        let flow = self.facts(fi);
        match flow.exprs.get(a as usize).map(|x| match x {
            PyExpr::Str(s) => flow.str(*s),
            _ => ".",
        }) {
            Some(s) if !s.starts_with('.') => self
                .lx
                .absolute_module(fi, s)
                .into_iter()
                .filter(|v| matches!(v, Val::Node(_)))
                .collect(),
            _ => Vals::new(),
        }
    }

    /// A function value called by a builtin on `args`: edges to it; what it returns.
    fn callback(&mut self, src: u32, f: &[Val], args: &[Val]) -> Vals {
        let mut out = Vals::new();
        for t in self.lx.callables(f) {
            self.edge(src, t);
            if self.lx.kind(t) == NodeKind::Function {
                self.bind(t, &[Some(Vals::from_slice(args))], &[], &[], 0);
                self.get_into(&Key::Ret(t), &mut out);
            }
        }
        out
    }

    /// Assigns `vals` to target expression `t` (`value`: the expression assigned, when known).
    fn assign(&mut self, fi: usize, t: u32, vals: &[Val], value: Option<u32>, depth: u32) {
        if depth > 8 || t == NO_EXPR {
            return;
        }
        let flow = self.facts(fi);
        let Some(x) = flow.exprs.get(t as usize) else { return };
        let owner = flow.owners[t as usize];
        match x {
            PyExpr::Name(n) => {
                if vals.is_empty() {
                    return;
                }
                let slots = &mut self.target_cell[fi];
                if slots.is_empty() {
                    *slots = vec![NO_EXPR; flow.exprs.len()];
                }
                let mut c = slots[t as usize];
                if c == NO_EXPR {
                    let k = self.name_key(fi, owner, self.fsym(fi, *n));
                    c = self.cell(&k);
                    self.target_cell[fi][t as usize] = c;
                }
                self.add_cell(c, vals);
            }
            PyExpr::Attr(o, a) => {
                let a = self.fsym(fi, *a);
                let ov = self.eval(fi, *o, 0);
                for v in ov {
                    match v {
                        Val::Inst(c) => self.add(Key::Attr(c, a), vals),
                        Val::Node(n) => match self.lx.kind(n) {
                            NodeKind::File => self.add(Key::Var(n, a), vals),
                            NodeKind::Class | NodeKind::Function => self.add(Key::Attr(n, a), vals),
                            NodeKind::Directory => {}
                        },
                        _ => {}
                    }
                }
            }
            PyExpr::Item(o) => {
                let ov = self.eval(fi, *o, 0);
                for v in ov {
                    if let Val::Coll(f, x) = v {
                        self.add(Key::Elem(f, x), vals);
                    }
                }
            }
            PyExpr::Coll(ts) => {
                let ts = flow.list(*ts);
                let pair = match value.and_then(|v| flow.exprs.get(v as usize)) {
                    Some(PyExpr::Coll(vs)) if vs.len == ts.len() as u32 => Some(flow.list(*vs)),
                    _ => None,
                };
                match pair {
                    Some(vs) => {
                        for (&t, &v) in ts.iter().zip(vs) {
                            let vv = self.eval(fi, v, 0);
                            self.assign(fi, t, &vv, Some(v), depth + 1);
                        }
                    }
                    None => {
                        let src = self.owner_node(fi, owner);
                        let el = self.iter_vals(src, vals);
                        for &t in ts {
                            self.assign(fi, t, &el, None, depth + 1);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Appends `vals` to `out`. (`extend_from_slice` calls `memcpy` for every few values: a
/// twelfth of the value flow's instructions went to copying cells into the values read.)
fn append(out: &mut Vals, vals: &[Val]) {
    for &v in vals {
        out.push(v);
    }
}

/// `vals` as [`Vals`] (see [`append`]).
fn vals_of(vals: &[Val]) -> Vals {
    let mut out = Vals::new();
    append(&mut out, vals);
    out
}

/// Removes repeated values (keeping the first of each) and keeps the first [`MAX_PTS`].
fn cap_pts(mut v: Vals) -> Vals {
    dedup_pts(&mut v);
    v
}

/// [`cap_pts`] in place.
fn dedup_pts(v: &mut Vals) {
    let n = unique_prefix(v, MAX_PTS);
    v.truncate(n);
}

/// The name a definition node is defined under.
fn def_name<'a>(lx: &Linker<'a>, f: u32) -> &'a str {
    let node = &lx.g.nodes[f as usize];
    lx.files[node.file as usize].facts.defs[node.def as usize].name.as_str()
}

/// A `@property` (or `@cached_property`) getter.
fn is_property(lx: &Linker, f: u32) -> bool {
    let node = &lx.g.nodes[f as usize];
    let d = &lx.files[node.file as usize].facts.defs[node.def as usize];
    d.decorators
        .iter()
        .any(|e| matches!(e, Expr::Dotted(c) if c == "property" || c.ends_with("cached_property")))
}
