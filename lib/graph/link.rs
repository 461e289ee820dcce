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
//! What cannot be proven is not linked, with one exception: a method called on a receiver of
//! unknown type is linked to the candidates visible from the caller (classes in the same file
//! or in files it imports) or, failing that, to the only method of that name in the repository.
//! Such edges carry [`META_GUESS`] (one candidate) or the number of candidates, so a user can
//! tell them from resolved ones. Names never resolve repository-wide by themselves.

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;

use crate::extract::{BindValue, Callee, DefKind, Expr, Import};
use crate::graph::scope::{self, Repo, Resolver};
use crate::graph::{
    DefNodes, EdgeKind, FLAG_TEST, Graph, META_EXACT, META_GUESS, NONE, NodeKind, Source,
    base_name, package_dirs, parent_dir,
};
use crate::lang::{Family, Lang, ProjectFile};

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
}

type Vals = Vec<Val>;

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
    let mut out: Vec<crate::graph::Edge> = Vec::new();
    if files.iter().any(|f| f.lang == Lang::Python) {
        out.extend(
            Linker::new(g, files, defs)
                .run()
                .into_iter()
                .map(|(src, dst, kind, meta)| crate::graph::Edge { src, dst, kind, meta }),
        );
    }
    let repo = Repo::new(files, projects);
    let mut families: Vec<Family> = files.iter().map(|f| f.lang.family()).collect();
    families.sort_unstable();
    families.dedup();
    for family in families {
        let resolver: Box<dyn Resolver> = match family {
            Family::Python => continue,
            Family::Js => Box::new(crate::lang::js::Resolver::new(&repo)),
            Family::Java => Box::new(crate::lang::java::Resolver::new(&repo)),
            Family::Go => Box::new(crate::lang::go::Resolver::new(&repo)),
            Family::Rust => Box::new(crate::lang::rust::Resolver::new(&repo)),
        };
        out.extend(scope::edges(g, &repo, defs, family, resolver.as_ref()));
    }
    out
}

struct Linker<'a> {
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
    memo_attr: RefCell<HashMap<(u32, &'a str), Vals>>,
    memo_bases: RefCell<HashMap<u32, Vec<u32>>>,
    memo_visible: RefCell<HashMap<usize, std::rc::Rc<HashSet<usize>>>>,
    memo_member: RefCell<HashMap<(u32, &'a str), Vals>>,
    memo_local: RefCell<HashMap<(u32, &'a str), Vals>>,
}

impl<'a> Linker<'a> {
    fn new(g: &'a Graph, files: &'a [Source<'a>], defs: &'a DefNodes) -> Linker<'a> {
        let mut file_node = vec![NONE; files.len()];
        let mut path_node: HashMap<Vec<u8>, u32> = HashMap::default();
        for (n, node) in g.nodes.iter().enumerate() {
            match node.kind {
                NodeKind::File => {
                    file_node[node.file as usize] = n as u32;
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

        let mut lx = Linker {
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
            memo_attr: RefCell::new(HashMap::default()),
            memo_bases: RefCell::new(HashMap::default()),
            memo_visible: RefCell::new(HashMap::default()),
            memo_member: RefCell::new(HashMap::default()),
            memo_local: RefCell::new(HashMap::default()),
        };
        for (fi, f) in files.iter().enumerate() {
            if f.lang == Lang::Python {
                lx.index_file(fi);
            }
        }
        lx
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

    fn run(&self) -> Vec<(u32, u32, EdgeKind, u8)> {
        let mut out = Vec::new();
        for fi in 0..self.files.len() {
            if self.files[fi].lang == Lang::Python {
                self.link_file(fi, &mut out);
            }
        }
        // One edge per (source, target, kind): the first occurrence wins.
        let mut seen = HashSet::with_capacity_and_hasher(out.len(), Default::default());
        out.retain(|&(s, d, k, _)| seen.insert((s, d, k)));
        out
    }

    fn owner_node(&self, fi: usize, owner: Option<u32>) -> u32 {
        owner.map_or(self.file_node[fi], |o| self.defs[fi][o as usize])
    }

    fn link_file(&self, fi: usize, out: &mut Vec<(u32, u32, EdgeKind, u8)>) {
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
            let (targets, meta) = self.call_targets(fi, scope, &call.callee);
            for t in targets {
                out.push((src, t, EdgeKind::Invoke, meta));
            }
        }
    }

    fn kind(&self, n: u32) -> NodeKind {
        self.g.nodes[n as usize].kind
    }

    fn file_of(&self, n: u32) -> usize {
        self.g.nodes[n as usize].file as usize
    }

    /// Callable targets: functions and classes (instantiation); instances through `__call__`.
    fn callables(&self, vals: &[Val]) -> Vec<u32> {
        let mut out = Vec::new();
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
        dedup(&mut out);
        out
    }

    /// Targets of one call site, with the edge confidence.
    fn call_targets(&self, fi: usize, scope: Option<u32>, callee: &'a Callee) -> (Vec<u32>, u8) {
        let (receiver, attr): (Vals, &str) = match callee {
            Callee::Name(n) => {
                let vals = self.resolve_name(fi, scope, n, 0);
                let t = self.callables(&vals);
                return (t.clone(), ambiguity(t.len()));
            }
            Callee::Chain(c) => {
                let (head, attr) = c.rsplit_once('.').unwrap_or(("", c));
                (self.resolve_chain(fi, scope, head, 0), attr)
            }
            Callee::OnCall(f, attr) if f == "super" => {
                let class = scope.and_then(|s| self.enclosing_class(s));
                let vals = class
                    .map(|c| {
                        let mut v = Vec::new();
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
                return (t.clone(), ambiguity(t.len()));
            }
            Callee::OnCall(f, attr) => {
                let vals = self.resolve_chain(fi, scope, f, 0);
                (self.call_results(&vals, 0), attr.as_str())
            }
            Callee::Attr(a) => (Vec::new(), a.as_str()),
            Callee::Other => return (Vec::new(), META_EXACT),
        };
        if receiver.contains(&Val::External) {
            return (Vec::new(), META_EXACT);
        }
        let mut found = Vec::new();
        let mut typed = false;
        for r in &receiver {
            match *r {
                Val::Inst(_) => typed = true,
                Val::Node(n) if self.kind(n) != NodeKind::Function => typed = true,
                _ => {}
            }
            found.extend(self.attr(*r, attr, 0));
        }
        let t = self.callables(&found);
        if !t.is_empty() {
            return (t.clone(), ambiguity(t.len()));
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
    fn visible_files(&self, fi: usize) -> std::rc::Rc<HashSet<usize>> {
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
        let set = std::rc::Rc::new(set);
        self.memo_visible.borrow_mut().insert(fi, set.clone());
        set
    }

    /// What calling each value yields: instances of classes, annotated return types.
    fn call_results(&self, vals: &[Val], depth: u32) -> Vals {
        let mut out = Vec::new();
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
                Val::Inst(_) => {}
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
                Val::External => {}
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
                .map_or_else(Vec::new, |n| vec![Val::Node(n)]);
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
        let Some(cands) = self.modules.get(module) else { return vec![Val::External] };
        if cands.len() == 1 {
            return vec![Val::Node(cands[0])];
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
        let mut top: Vec<Val> = pool
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
                let mut out = Vec::new();
                for m in mods {
                    match m {
                        Val::Node(mn) => {
                            if let Some(sub) = self.submodule(mn, name) {
                                out.push(Val::Node(sub));
                            } else if self.kind(mn) == NodeKind::File {
                                out.extend(self.module_attr(self.file_of(mn), name, depth + 1));
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
            return Vec::new();
        }
        let key = (fi as u32, name);
        if let Some(v) = self.memo_attr.borrow().get(&key) {
            return v.clone();
        }
        self.memo_attr.borrow_mut().insert(key, Vec::new());
        let mut out = Vec::new();
        if let Some(bs) = self.module_scope[fi].get(name) {
            for b in bs {
                out.extend(self.resolve_binding(*b, depth + 1));
            }
        }
        if out.is_empty() && !name.starts_with('_') {
            for &ii in &self.stars[fi] {
                let imp = &self.files[fi].facts.imports[ii as usize];
                for m in self.module_vals(fi, imp) {
                    if let Val::Node(mn) = m
                        && self.kind(mn) == NodeKind::File
                    {
                        out.extend(self.module_attr(self.file_of(mn), name, depth + 1));
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
        self.memo_attr.borrow_mut().insert(key, out.clone());
        out
    }

    fn resolve_binding(&self, b: Binding, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        match b {
            Binding::Node(n) => vec![Val::Node(n)],
            Binding::Import { f, i, head } => self.resolve_import(f, i, head, depth + 1),
            Binding::Bind { f, i } => {
                let fi = f as usize;
                let bind = &self.files[fi].facts.binds[i as usize];
                let scope = bind.owner.map(|o| self.defs[fi][o as usize]);
                match &bind.value {
                    BindValue::Alias(c) => {
                        // `x = x` and friends would loop; the depth bound stops them.
                        if *c == bind.target {
                            return Vec::new();
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
            return Vec::new();
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
                        return vec![Val::Node(parent)];
                    } else {
                        return vec![Val::Inst(parent)];
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
            return Vec::new();
        };
        let key = (n, name);
        if let Some(v) = self.memo_local.borrow().get(&key) {
            return v.clone();
        }
        self.memo_local.borrow_mut().insert(key, Vec::new());
        let mut out = Vec::new();
        for b in bs {
            out.extend(self.resolve_binding(*b, depth + 1));
        }
        let out = cap(out);
        self.memo_local.borrow_mut().insert(key, out.clone());
        out
    }

    /// Resolves a dotted chain `a.b.c` used inside `scope`.
    fn resolve_chain(&self, fi: usize, scope: Option<u32>, chain: &'a str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let mut parts = chain.split('.');
        let Some(head) = parts.next() else { return Vec::new() };
        let mut vals = self.resolve_name(fi, scope, head, depth + 1);
        for p in parts {
            if vals.is_empty() || vals.contains(&Val::External) {
                return vals;
            }
            let mut next = Vec::new();
            for v in vals {
                next.extend(self.attr(v, p, depth + 1));
            }
            vals = cap(next);
        }
        vals
    }

    /// Attribute `name` of a value.
    fn attr(&self, v: Val, name: &'a str, depth: u32) -> Vals {
        match v {
            Val::External => vec![Val::External],
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
                NodeKind::Function => Vec::new(),
            },
        }
    }

    /// Member `name` of class `c`: its own definitions and attributes, then its bases'.
    fn member(&self, c: u32, name: &'a str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        if let Some(&m) = self.children.get(&(c, name)) {
            return vec![Val::Node(m)];
        }
        let key = (c, name);
        if let Some(v) = self.memo_member.borrow().get(&key) {
            return v.clone();
        }
        self.memo_member.borrow_mut().insert(key, Vec::new());
        let out = self.member_uncached(c, name, depth);
        self.memo_member.borrow_mut().insert(key, out.clone());
        out
    }

    fn member_uncached(&self, c: u32, name: &'a str, depth: u32) -> Vals {
        if let Some(bs) = self.attrs.get(&(c, name)) {
            let mut out = Vec::new();
            for b in bs {
                out.extend(self.resolve_binding(*b, depth + 1));
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
        Vec::new()
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

/// Confidence byte for `n` alternatives.
/// The confidence byte of an edge that is one of `n` candidates (shared with `graph::scope`).
pub(crate) fn ambiguity(n: usize) -> u8 {
    if n <= 1 { META_EXACT } else { n.min(255) as u8 }
}

/// Removes repeated nodes, keeping the first of each (shared with `graph::scope`).
pub(crate) fn dedup(v: &mut Vec<u32>) {
    let mut seen = HashSet::default();
    v.retain(|x| seen.insert(*x));
}

/// Removes duplicates and bounds the number of alternatives.
fn cap(mut v: Vals) -> Vals {
    let mut seen = HashSet::default();
    v.retain(|x| seen.insert(*x));
    v.truncate(MAX_ALTS);
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
