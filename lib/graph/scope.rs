//! The linker's driver for every language but Python: import, invoke and inherit edges from
//! the facts of one language family's files, asking the family's [`Resolver`] for what differs
//! between languages (where an import leads, which files share a namespace, whether calling a
//! class runs code, whether methods see their class's members unqualified).
//!
//! The rest is the same everywhere, as in Python's resolution (`graph::link`): names are looked
//! up in the enclosing definitions, then the file, then the file's package, then its wildcard
//! imports; a chain `a.b.c` resolves its head and then members; a method's receiver (`this`,
//! `self`, a Go receiver's name) is an instance of its class (a JavaScript function assigned
//! to a member has the object as `this`: [`Tables::owned`]); typed declarations, fields and
//! return types give receivers their class; class members include those of resolved bases and
//! methods written outside the class body (Go receivers, Rust `impl` blocks). What cannot be
//! proven is not linked, except a method called on a receiver of unknown type, linked to the
//! methods of that name visible from the caller (its file, package and imports) or to the only
//! one in the family, with [`META_GUESS`] or the number of candidates. Never repository-wide by
//! name alone.
//!
//! A family with many facts is linked in two parts on two threads (see [`edges`]).
//!
//! A rebuild links every file of a changed family again (the other families keep their edges:
//! `build::relink`), unless each changed file of the family changed only its calls, which no
//! table reads: then only those files are linked again ([`file_edges`]), each with memos of its
//! own, and the family's other files keep their edges. That needs a file's links to be a
//! function of the name tables and that file alone. A file can also see what an earlier file
//! of its part left in the memos (where a binding cycle was entered, how deep a chain had
//! gone), though no corpus we measure shows it: with the name, binding, export and base memos
//! emptied after every file, the graphs of the nine language corpora and of the kernel
//! (4,053,018 lines of `cds-fmt --graph`) are identical (the kernel's link then took 9.8 s
//! instead of 6.7: cold builds keep the memos; 2026-11-29). Linking the kernel's C family
//! whole is 3.3 s of a 5.3 s edit, its tables about 0.9 s of that (the resolver's 0.38 s, the
//! driver's 0.49 s).
//!
//! An edit that changed a file's definitions, imports or bindings (but nothing else a table
//! reads) is linked file by file too: the file and every file its change can reach
//! (`build::Previous::reached_by`). Every lookup into another file goes by a name the looking
//! file's facts hold (a call, a base, a type, an imported name), except through imports that
//! bind under another name (a JavaScript default export, an alias bound in a header), which
//! the previous graph's import edges lead back along; so the files reached are the importers,
//! transitively, and those whose facts hold a name the edit declared or undeclared. Any other
//! change (files added or removed, a project file, a Go package clause) links the whole
//! family. In C a header's prototype is an import of the function it declares, so a file whose
//! functions a widely included header declares reaches most of the tree, and the kernel's
//! family is still linked whole after such an edit.

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;

use crate::extract::{BindValue, Callee, DefIdx, DefKind, Expr, FileFacts, Import, ImportForm};
use crate::graph::link::{ambiguity, dedup};
use crate::graph::{
    DefNodes, Edge, EdgeKind, FLAG_TEST, Graph, META_EXACT, META_GUESS, NodeKind, Source,
    parent_dir,
};
use crate::lang::{Family, ProjectFile};

/// How deep a chain of bindings may go before we give up (cycles, pathological code).
const MAX_DEPTH: u32 = 16;
/// Most alternatives carried for one name.
const MAX_ALTS: usize = 8;

/// The repository as a resolver sees it: its files (all languages), their directories, and the
/// project files (`go.mod`, `tsconfig.json`, ...) as text.
pub struct Repo<'a> {
    /// Every indexed file, sorted by path.
    pub files: &'a [Source<'a>],
    /// Project files found by the walk.
    pub projects: &'a [ProjectFile],
    by_path: HashMap<&'a [u8], u32>,
    by_dir: HashMap<&'a [u8], Vec<u32>>,
}

impl<'a> Repo<'a> {
    /// Indexes `files` by path and directory.
    pub fn new(files: &'a [Source<'a>], projects: &'a [ProjectFile]) -> Repo<'a> {
        let mut by_path = HashMap::default();
        let mut by_dir: HashMap<&[u8], Vec<u32>> = HashMap::default();
        for (i, f) in files.iter().enumerate() {
            by_path.insert(f.rel, i as u32);
            by_dir.entry(parent_dir(f.rel)).or_default().push(i as u32);
        }
        Repo { files, projects, by_path, by_dir }
    }

    /// The file at a relative path.
    pub fn file(&self, rel: &[u8]) -> Option<u32> {
        self.by_path.get(rel).copied()
    }

    /// The files directly in a directory (`b""` is the root).
    pub fn dir_files(&self, dir: &[u8]) -> &[u32] {
        self.by_dir.get(dir).map_or(&[], |v| v.as_slice())
    }

    /// The relative path of file `f`.
    pub fn rel(&self, f: u32) -> &'a [u8] {
        self.files[f as usize].rel
    }

    /// The facts of file `f`.
    pub fn facts(&self, f: u32) -> &'a FileFacts {
        self.files[f as usize].facts
    }

    /// Project files with this file name (`go.mod`), shallowest first.
    pub fn projects_named<'s>(
        &'s self,
        name: &'s str,
    ) -> impl Iterator<Item = &'a ProjectFile> + 's {
        self.projects.iter().filter(move |p| crate::graph::base_name(&p.rel) == name.as_bytes())
    }
}

/// What one language family's rules decide; the driver asks it and does the rest.
pub trait Resolver {
    /// The files an import's module refers to: one file, or every file of a package
    /// directory (Go, Java on-demand imports). Empty when it is outside the repository.
    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32>;

    /// Files whose top-level names `file` sees without an import (the rest of its Go or Java
    /// package). `file` itself may be included.
    fn package_files(&self, _repo: &Repo, _file: u32) -> Vec<u32> {
        Vec::new()
    }

    /// The local name an import binds, if any (default: the alias, else the imported name,
    /// else the module's last segment). It may come from the resolver's own tables (a Go
    /// package's declared name).
    fn bound_name<'s>(&'s self, imp: &'s Import) -> Option<&'s str> {
        if let Some(a) = &imp.alias {
            return Some(a);
        }
        if let Some(n) = &imp.name {
            return Some(n);
        }
        imp.module.rsplit(['/', '.']).find(|s| !s.is_empty())
    }

    /// The top-level name a module binds the value it gives itself to (JavaScript's
    /// `module.exports = X`): an import of the whole module (`require`) is that value, with
    /// the module's own names beside it. None: a module is only its namespace.
    fn module_value(&self) -> Option<&'static str> {
        None
    }

    /// Whether a method sees its class's members without a receiver (Java, C++).
    fn implicit_members(&self) -> bool {
        false
    }

    /// Whether calling or `new`-ing a class runs code (a constructor), so it is an invoke edge
    /// to the class (JS, Java; not Go or Rust struct literals).
    fn instantiates(&self) -> bool {
        true
    }

    /// The trailing segments of an import's module that name members of the files
    /// [`Resolver::import_files`] returns, not files (a Rust inline `mod`: `crate.m` is member
    /// `m` of `lib.rs`).
    fn module_members(&self, _repo: &Repo, _file: u32, _imp: &Import) -> Vec<String> {
        Vec::new()
    }

    /// Method names too common in the language's standard library to guess a receiver's type
    /// from (Rust's `new`, `iter`, `fmt`), beyond Python's.
    fn common_methods(&self) -> &'static [&'static str] {
        &[]
    }

    /// The files that a path's first segment names without an import (Rust's `crate` and
    /// `super`, another crate of the workspace), for code at definition `scope` of `file`.
    fn path_root(&self, _repo: &Repo, _file: u32, _scope: Option<DefIdx>, _name: &str) -> Vec<u32> {
        Vec::new()
    }

    /// The files whose top-level definitions or declarations of `name` file `file` sees by
    /// textual inclusion (C and C++ `#include`, transitively), from the resolver's own index:
    /// a lookup, where walking every header a file includes for every name would not scale.
    fn included(&self, _repo: &Repo, _file: u32, _name: &str) -> Vec<u32> {
        Vec::new()
    }

    /// Whether an import's module names a class of the files [`Resolver::import_files`] gives,
    /// so the imported name is that class's member (Java `import static a.b.Foo.bar`, and
    /// `import a.b.Outer.Inner` of a nested class).
    fn module_is_class(&self, imp: &Import) -> bool {
        imp.form == ImportForm::Static
    }

    /// Whether a method of unknown receiver that no visible file defines may still be linked
    /// to the only method of that name in the family (a guess). Not in dynamically typed
    /// languages, where most such receivers are library objects (Ruby).
    fn guess_anywhere(&self) -> bool {
        true
    }

    /// A language whose names are global (Ruby's constants): what the leading segments of a
    /// dotted `chain` name at definition `scope` of `file`, as (how many segments, the
    /// definitions). Some with no definitions: a global name the repository does not define
    /// (outside it). None: not such a name, looked up as usual.
    fn constant(
        &self,
        _repo: &Repo,
        _file: u32,
        _scope: Option<DefIdx>,
        _chain: &str,
    ) -> Option<(usize, Vec<(u32, DefIdx)>)> {
        None
    }

    /// Whether a name that [`Resolver::path_root`] found nowhere in the repository is known to
    /// be outside it, so nothing else is looked up and calls through it are not guessed (a PHP
    /// qualified name such as `\DateTime`, whose meaning the frontend has already fixed).
    fn outside(&self, _name: &str) -> bool {
        false
    }
}

/// What a name or expression refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Val {
    /// A class or function node.
    Node(u32),
    /// An instance of a class node.
    Inst(u32),
    /// A module: one file.
    File(u32),
    /// A package: a directory node, whose same-family files share one namespace.
    Pkg(u32),
    /// An object that a file assigns definitions to by name (`app.use = function`,
    /// `const helpers = { format() {} }`): its number in [`Tables::objects`].
    Obj(u32),
    /// An instance of a constructor function whose prototype a file assigns definitions to
    /// (`X.prototype.m = function`): the number of the object of X in [`Tables::objects`].
    Proto(u32),
    /// Something outside the repository.
    External,
}

type Vals = Vec<Val>;

/// A name looked up at a scope: (file, enclosing definition, name).
/// A file's local scopes: definition -> local name -> bindings.
type Locals<'a> = HashMap<DefIdx, HashMap<&'a str, Vec<Binding>>>;

/// How many files' local scopes [`Driver::local_scopes`] keeps.
const LOCAL_FILES: usize = 8;

/// (file, scope, name's symbol in [`Driver::syms`]).
type NameKey = (u32, Option<DefIdx>, u32);

/// Where a name is bound.
#[derive(Debug, Clone, Copy)]
enum Binding {
    Node(u32),
    Import {
        f: u32,
        i: u32,
    },
    Bind {
        f: u32,
        i: u32,
    },
    /// The object of [`Tables::objects`] that the name groups definitions under.
    Object(u32),
}

/// A trait implemented for a type: (file, scope of the `impl` block, the trait as written).
type ImplTrait<'a> = (u32, Option<DefIdx>, &'a str);

/// A family's work, in facts, below which its files are linked in one part (see [`edges`]).
/// `CDS_LINK_SPLIT` sets another (tests).
const SPLIT_WEIGHT: usize = 20_000;

/// The import, invoke and inherit edges of the files of `family`, each part of them linked by
/// a [`Driver`] (and a resolver from `resolver`) of its own.
///
/// A family with more than [`SPLIT_WEIGHT`] calls, imports and bindings is linked in two parts
/// of about equal weight, on two threads: the first part's driver builds the family's name
/// tables, and then each part's driver, with memos of its own, links its files over them
/// (three.js: 15-24 ms, then 35-40 ms, against 80-120 ms for the whole in one part). They do
/// so even while a Python value flow runs: a repository whose Python is a few scripts beside a
/// big family (the Linux kernel) would otherwise link that family on one core (a kernel edit's
/// link: 6.6-8.5 s one part after the other, 4.4-4.8 s side by side), and where both are big
/// the three threads share the two cores. The parts depend on the facts alone, never on the
/// machine's cores, so a tree gives the same edges everywhere: the drivers' memos (what a
/// binding cycle's first entry sees) are per part.
pub fn edges(
    g: &Graph,
    repo: &Repo,
    defs: &DefNodes,
    family: Family,
    resolver: &(dyn Fn(&Repo) -> Box<dyn Resolver> + Sync),
) -> Vec<Edge> {
    let files = family_files(repo, family);
    if files.is_empty() {
        return Vec::new();
    }
    let weights: Vec<usize> = files
        .iter()
        .map(|&f| {
            let x = repo.facts(f);
            x.calls.len() + x.imports.len() + x.binds.len()
        })
        .collect();
    let threshold = std::env::var("CDS_LINK_SPLIT").ok().and_then(|v| v.parse().ok());
    let parts =
        if weights.iter().sum::<usize>() > threshold.unwrap_or(SPLIT_WEIGHT) { 2 } else { 1 };
    let (first, second) = files.split_at(crate::graph::weighted_ends(&weights, parts)[0]);
    let link = |d: &Driver, part: &[u32]| {
        let mut out = Vec::new();
        for &f in part {
            d.link_file(f, &mut out);
            d.memo_local.borrow_mut().clear();
        }
        out
    };
    // The first part's driver makes the tables, and the second's reads them.
    let r = resolver(repo);
    let first_driver = Driver::new(g, repo, defs, r.as_ref(), &files);
    let tables: &Tables = &first_driver.t;
    let out = if !second.is_empty() {
        std::thread::scope(|s| {
            let rest = s.spawn(|| {
                let r = resolver(repo);
                let d = Driver::with(g, repo, defs, r.as_ref(), std::borrow::Cow::Borrowed(tables));
                link(&d, second)
            });
            let mut out = link(&first_driver, first);
            out.extend(rest.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            out
        })
    } else {
        link(&first_driver, first)
    };
    first_of_each(out)
}

/// The edges of some files of a family (`only`, in order), as [`edges`] links them: the same
/// tables, each file with memos of its own (which no corpus measured tells from the memos an
/// earlier file leaves: see the module docs), its edges in the order it emits them.
pub fn file_edges(
    g: &Graph,
    repo: &Repo,
    defs: &DefNodes,
    family: Family,
    resolver: &dyn Resolver,
    only: &[u32],
) -> Vec<Edge> {
    let d = Driver::new(g, repo, defs, resolver, &family_files(repo, family));
    let mut out = Vec::new();
    for &f in only {
        d.link_file(f, &mut out);
        d.clear_memos();
    }
    first_of_each(out)
}

/// The files of a family, in path order.
fn family_files(repo: &Repo, family: Family) -> Vec<u32> {
    (0..repo.files.len() as u32)
        .filter(|&f| repo.files[f as usize].lang.family() == family)
        .collect()
}

/// `out` with each (source, target, kind) once, its first occurrence.
fn first_of_each(mut out: Vec<Edge>) -> Vec<Edge> {
    let mut seen = HashSet::with_capacity_and_hasher(out.len(), Default::default());
    out.retain(|e: &Edge| seen.insert((e.src, e.dst, e.kind)));
    out
}

/// A family's name tables: made once, by the first part's driver, and read by every part's.
#[derive(Clone, Default)]
struct Tables<'a> {
    file_node: HashMap<u32, u32>,
    dir_node: HashMap<&'a [u8], u32>,
    /// Per file: top-level name -> bindings.
    top: HashMap<u32, HashMap<&'a str, Vec<Binding>>>,
    /// Per file: wildcard imports (import fact indices).
    stars: HashMap<u32, Vec<u32>>,
    /// Class node -> member name -> nodes (its own definitions and methods attached by owner).
    members: HashMap<u32, HashMap<&'a str, Vec<u32>>>,
    /// (class node, field) -> bindings that type it.
    attrs: HashMap<(u32, &'a str), Vec<Binding>>,
    /// Method name -> methods, for receivers of unknown type.
    methods: HashMap<&'a str, Vec<u32>>,
    /// Definition node -> the class it is a method of (lexical or by owner).
    class_of: HashMap<u32, u32>,
    /// (file, owner as written) -> the object (in `objects`) grouping the definitions whose
    /// owner names no class (`const helpers = { format() {} }`, `options.vnode = function`):
    /// `helpers.format`.
    owned: HashMap<(u32, &'a str), u32>,
    /// Per object of `owned`: member name -> definitions.
    objects: Vec<HashMap<&'a str, Vec<u32>>>,
    /// Class node -> the traits of its `impl Trait for Type` blocks.
    impl_traits: HashMap<u32, Vec<ImplTrait<'a>>>,
}

/// Links files of one family: the name tables (its own while it makes them, else another
/// driver's), the resolver, and memos of what was looked up.
struct Driver<'t, 'a> {
    g: &'a Graph,
    repo: &'a Repo<'a>,
    defs: &'a DefNodes,
    r: &'a dyn Resolver,
    t: std::borrow::Cow<'t, Tables<'a>>,
    /// The local scopes (definition -> local name -> bindings) of the files resolved most
    /// recently: built when a file's names are first asked about, not for the whole
    /// repository at once (a function's locals are asked about while its own file is linked).
    local: RefCell<Vec<(u32, std::rc::Rc<Locals<'a>>)>>,
    memo_import: RefCell<HashMap<(u32, u32), Vec<u32>>>,
    /// Values of bindings (file, bind fact); an entry is present, empty, while it is being
    /// computed, which cuts cycles (`x = x.next`) and makes each binding cost one resolution.
    memo_bind: RefCell<HashMap<(u32, u32), Vals>>,
    /// Names resolved at a file's top level, and in its definitions' scopes (which only its
    /// own calls ask about: emptied after each file, so memory does not grow with the repo).
    memo_name: RefCell<HashMap<NameKey, Vals>>,
    memo_local: RefCell<HashMap<NameKey, Vals>>,
    /// Names looked up, numbered (memo keys without a string allocated per lookup).
    syms: RefCell<HashMap<Box<str>, u32>>,
    /// A module's members by name: (file, name number); cuts re-export cycles (`pub use super::*`).
    memo_export: RefCell<HashMap<(u32, u32), Vals>>,
    memo_bases: RefCell<HashMap<u32, Vec<u32>>>,
    memo_pkg: RefCell<HashMap<u32, Vec<u32>>>,
    memo_visible: RefCell<HashMap<u32, std::rc::Rc<HashSet<u32>>>>,
}

impl<'t, 'a> Driver<'t, 'a> {
    fn new(
        g: &'a Graph,
        repo: &'a Repo<'a>,
        defs: &'a DefNodes,
        r: &'a dyn Resolver,
        files: &[u32],
    ) -> Driver<'t, 'a> {
        let mut file_node = HashMap::default();
        let mut dir_node = HashMap::default();
        for (n, node) in g.nodes.iter().enumerate() {
            match node.kind {
                NodeKind::File => {
                    file_node.insert(node.file, n as u32);
                }
                NodeKind::Directory => {
                    let id: &[u8] = if node.id == b"/" { b"" } else { &node.id };
                    dir_node.insert(id, n as u32);
                }
                _ => {}
            }
        }
        let tables = Tables { file_node, dir_node, ..Tables::default() };
        let mut d = Driver::with(g, repo, defs, r, std::borrow::Cow::Owned(tables));
        for &f in files {
            d.index_scopes(f);
        }
        // Methods written outside their type need the scopes to find the type.
        for &f in files {
            d.index_members(f);
        }
        // Other names of the definitions just grouped need the groups.
        for &f in files {
            d.index_aliases(f);
        }
        for &f in files {
            d.index_attrs(f);
        }
        for &f in files {
            let facts = d.facts(f);
            for imp in &facts.impls {
                for c in d.classes(&d.resolve_chain(f, imp.owner, &imp.ty, 0)) {
                    d.t.to_mut().impl_traits.entry(c).or_default().push((
                        f,
                        imp.owner,
                        &imp.trait_,
                    ));
                }
            }
        }
        // What was looked up while indexing did not know every member and impl yet.
        d.clear_memos();
        d
    }

    /// Forgets what the lookups so far found.
    fn clear_memos(&self) {
        self.memo_bases.borrow_mut().clear();
        self.memo_name.borrow_mut().clear();
        self.memo_local.borrow_mut().clear();
        self.memo_export.borrow_mut().clear();
        self.memo_bind.borrow_mut().clear();
    }

    /// A driver over `t`, with memos of its own.
    fn with(
        g: &'a Graph,
        repo: &'a Repo<'a>,
        defs: &'a DefNodes,
        r: &'a dyn Resolver,
        t: std::borrow::Cow<'t, Tables<'a>>,
    ) -> Driver<'t, 'a> {
        Driver {
            g,
            repo,
            defs,
            r,
            t,
            local: RefCell::default(),
            memo_import: RefCell::new(HashMap::default()),
            memo_bind: RefCell::new(HashMap::default()),
            memo_name: RefCell::new(HashMap::default()),
            memo_local: RefCell::new(HashMap::default()),
            syms: RefCell::new(HashMap::default()),
            memo_export: RefCell::new(HashMap::default()),
            memo_bases: RefCell::new(HashMap::default()),
            memo_pkg: RefCell::new(HashMap::default()),
            memo_visible: RefCell::new(HashMap::default()),
        }
    }

    fn facts(&self, f: u32) -> &'a FileFacts {
        self.repo.facts(f)
    }

    fn node_of(&self, f: u32, di: DefIdx) -> u32 {
        self.defs[f as usize][di as usize]
    }

    fn kind(&self, n: u32) -> NodeKind {
        self.g.nodes[n as usize].kind
    }

    /// Fills the name tables of one file: top-level and local definitions, imports, bindings.
    fn index_scopes(&mut self, f: u32) {
        let facts = self.facts(f);
        for (di, d) in facts.defs.iter().enumerate() {
            let node = self.node_of(f, di as u32);
            if self.g.nodes[node as usize].def != di as u32 {
                continue; // merged into an earlier definition of the same name
            }
            if d.owner.is_some() {
                continue; // reached through its type, not by its bare name
            }
            if d.parent.is_none() {
                push(self.t.to_mut().top.entry(f).or_default(), &d.name, Binding::Node(node));
            }
        }
        for (ii, imp) in facts.imports.iter().enumerate() {
            if imp.form == ImportForm::ModDecl && imp.alias.is_none() {
                // `mod x;` binds `x` to the module file.
                let b = Binding::Import { f, i: ii as u32 };
                push(self.t.to_mut().top.entry(f).or_default(), &imp.module, b);
                continue;
            }
            if imp.name.as_deref() == Some("*") {
                self.t.to_mut().stars.entry(f).or_default().push(ii as u32);
                continue;
            }
            let Some(name) = self.r.bound_name(imp) else { continue };
            if imp.owner.is_none() {
                push(
                    self.t.to_mut().top.entry(f).or_default(),
                    name,
                    Binding::Import { f, i: ii as u32 },
                );
            }
        }
        for (bi, bind) in facts.binds.iter().enumerate() {
            // `module.exports = X` is no attribute: importers look the module's value up by it.
            let value = Some(bind.target.as_str()) == self.r.module_value();
            if bind.owner.is_none() && (self.binds_name(f, bind) || value) {
                push(
                    self.t.to_mut().top.entry(f).or_default(),
                    &bind.target,
                    Binding::Bind { f, i: bi as u32 },
                );
            }
        }
    }

    /// Whether a binding binds a bare name (not `this.x`, nor a field in its class).
    fn binds_name(&self, f: u32, bind: &crate::extract::Bind) -> bool {
        let facts = self.facts(f);
        !bind.target.contains('.') // `this.x = ...`: an attribute, see index_attrs
            // A field is no bare name in its class (Go's `Config *Config`).
            && (self.r.implicit_members()
                || !bind.owner.is_some_and(|o| facts.defs[o as usize].kind == DefKind::Class))
    }

    /// The local scopes of file `f`: what [`Driver::index_scopes`] leaves out (definitions,
    /// imports and bindings inside definitions), in the same order.
    fn local_scopes(&self, f: u32) -> std::rc::Rc<Locals<'a>> {
        let mut cache = self.local.borrow_mut();
        if let Some((_, l)) = cache.iter().find(|(g, _)| *g == f) {
            return l.clone();
        }
        let facts = self.facts(f);
        let mut local: Locals<'a> = HashMap::default();
        for (di, d) in facts.defs.iter().enumerate() {
            let node = self.node_of(f, di as u32);
            if self.g.nodes[node as usize].def != di as u32 || d.owner.is_some() {
                continue;
            }
            if let Some(p) = d.parent {
                push(local.entry(p).or_default(), &d.name, Binding::Node(node));
            }
        }
        for (ii, imp) in facts.imports.iter().enumerate() {
            if imp.form == ImportForm::ModDecl && imp.alias.is_none()
                || imp.name.as_deref() == Some("*")
            {
                continue;
            }
            if let (Some(o), Some(name)) = (imp.owner, self.r.bound_name(imp)) {
                push(local.entry(o).or_default(), name, Binding::Import { f, i: ii as u32 });
            }
        }
        for (bi, bind) in facts.binds.iter().enumerate() {
            if let Some(o) = bind.owner
                && self.binds_name(f, bind)
            {
                push(local.entry(o).or_default(), &bind.target, Binding::Bind { f, i: bi as u32 });
            }
        }
        let local = std::rc::Rc::new(local);
        // A few files at a time: the one being linked and those its names lead to.
        if cache.len() == LOCAL_FILES {
            cache.remove(0);
        }
        cache.push((f, local.clone()));
        local
    }

    /// Class members: nested definitions, and methods attached through their owner type.
    fn index_members(&mut self, f: u32) {
        let facts = self.facts(f);
        for (di, d) in facts.defs.iter().enumerate() {
            let node = self.node_of(f, di as u32);
            if self.g.nodes[node as usize].def != di as u32 {
                continue;
            }
            let classes: Vec<u32> = match (&d.owner, d.parent) {
                (Some(owner), parent) => {
                    let vals = self.resolve_chain(f, parent, owner, 0);
                    let mut cs: Vec<u32> = vals
                        .iter()
                        .filter_map(|v| match v {
                            Val::Node(n) if self.kind(*n) == NodeKind::Class => Some(*n),
                            _ => None,
                        })
                        .collect();
                    // The node's container, when the file defines the type itself.
                    let container = self.g.nodes[node as usize].parent;
                    if self.kind(container) == NodeKind::Class && !cs.contains(&container) {
                        cs.push(container);
                    }
                    cs
                }
                (None, Some(p)) if facts.defs[p as usize].kind == DefKind::Class => {
                    vec![self.node_of(f, p)]
                }
                _ => Vec::new(),
            };
            if classes.is_empty() && d.parent.is_none() {
                // `helpers.format` (a JS object literal's method, an `a.b =` assignment), or a
                // method whose type is nowhere to be found: reached through its dotted name.
                let group = match (&d.owner, d.name.rsplit_once('.')) {
                    (Some(owner), _) => Some((owner.as_str(), d.name.as_str())),
                    (None, Some((prefix, last))) => Some((prefix, last)),
                    (None, None) => None,
                };
                if let Some((prefix, last)) = group {
                    self.own(f, prefix, last, node);
                }
            }
            // A function of a namespace (a Rust inline `mod`) is its member, not a method
            // (unless it has a receiver: a Ruby module's methods).
            let in_namespace = d.owner.is_none()
                && d.first_param.is_none()
                && d.parent.is_some_and(|p| facts.defs[p as usize].namespace);
            for c in classes {
                push_node(self.t.to_mut().members.entry(c).or_default(), &d.name, node);
                if d.kind == DefKind::Function && !in_namespace {
                    self.t.to_mut().class_of.insert(node, c);
                    self.t.to_mut().methods.entry(d.name.as_str()).or_default().push(node);
                }
            }
        }
    }

    /// Other names in the groups of [`Tables::owned`]: a top-level binding of a dotted target
    /// to what names definitions (`res.set = res.header`, the outer targets of JavaScript's
    /// `a.x = b.y = function`) puts them in the target's group too.
    fn index_aliases(&mut self, f: u32) {
        let facts = self.facts(f);
        for bind in &facts.binds {
            let BindValue::Alias(v) = &bind.value else { continue };
            let Some((prefix, last)) = bind.target.rsplit_once('.') else { continue };
            if bind.owner.is_some() || Some(bind.target.as_str()) == self.r.module_value() {
                continue;
            }
            let nodes: Vec<u32> = self
                .resolve_chain(f, None, v, 0)
                .into_iter()
                .filter_map(|x| match x {
                    Val::Node(n) => Some(n),
                    _ => None,
                })
                .collect();
            for n in nodes {
                self.own(f, prefix, last, n);
            }
        }
    }

    /// Puts definition `n` in the object that `owner` names in file `f`, as member `name`
    /// (see [`Tables::owned`]).
    fn own(&mut self, f: u32, owner: &'a str, name: &'a str, n: u32) {
        let plain = !self.on_prototype(n);
        let t = self.t.to_mut();
        let o = *t.owned.entry((f, owner)).or_insert_with(|| {
            t.objects.push(HashMap::default());
            t.objects.len() as u32 - 1
        });
        // The name is the object, in the file and to its importers (`app.use` of
        // `var app = module.exports = {}`), once it has a member of its own (not the methods of
        // a type found nowhere, which name no object).
        let top = t.top.entry(f).or_default();
        if plain
            && !owner.contains('.')
            && !top
                .get(owner)
                .is_some_and(|bs| bs.iter().any(|b| matches!(b, Binding::Object(x) if *x == o)))
        {
            push(top, owner, Binding::Object(o));
        }
        push_node(&mut t.objects[o as usize], name, n);
    }

    /// The members of the object that `owner` names in file `f` (see [`Tables::owned`]).
    fn owned(&self, f: u32, owner: &str) -> Option<&HashMap<&'a str, Vec<u32>>> {
        self.t.owned.get(&(f, owner)).map(|&o| &self.t.objects[o as usize])
    }

    /// Fields: bindings owned by a class body (`int x;`, a struct field) and `this.x = ...`
    /// inside its methods.
    fn index_attrs(&mut self, f: u32) {
        let facts = self.facts(f);
        for (bi, bind) in facts.binds.iter().enumerate() {
            let Some(o) = bind.owner else { continue };
            let on = self.node_of(f, o);
            let b = Binding::Bind { f, i: bi as u32 };
            match bind.target.split_once('.') {
                None if facts.defs[o as usize].kind == DefKind::Class => {
                    self.t.to_mut().attrs.entry((on, bind.target.as_str())).or_default().push(b);
                }
                Some((recv, attr)) if !attr.contains('.') => {
                    if let Some(c) = self.receiver_class(f, o, recv) {
                        self.t.to_mut().attrs.entry((c, attr)).or_default().push(b);
                    }
                }
                _ => {}
            }
        }
    }

    /// The class whose instance `name` is inside definition `o`: the receiver of the method
    /// enclosing `o` (directly or through nested functions and closures).
    fn receiver_class(&self, f: u32, mut o: DefIdx, name: &str) -> Option<u32> {
        let facts = self.facts(f);
        loop {
            let d = &facts.defs[o as usize];
            if d.kind != DefKind::Function {
                return None;
            }
            let node = self.node_of(f, o);
            if let Some(&c) = self.t.class_of.get(&node)
                && d.first_param.as_deref() == Some(name)
            {
                return Some(c);
            }
            o = d.parent?;
        }
    }

    /// The object that definition `o` of file `f` is assigned to, and so called on, when it
    /// is no class's method: `obj` for `obj.run = function`, an instance of X for
    /// `X.prototype.m = function` (see [`Tables::owned`]).
    fn receiver_object(&self, f: u32, o: DefIdx) -> Option<Val> {
        let d = &self.facts(f).defs[o as usize];
        let (owner, name, proto) = match &d.owner {
            Some(ty) => (ty.as_str(), d.name.as_str(), true),
            None => {
                let (owner, name) = d.name.rsplit_once('.')?;
                (owner, name, false)
            }
        };
        let obj = *self.t.owned.get(&(f, owner))?;
        let node = self.node_of(f, o);
        if !self.t.objects[obj as usize].get(name)?.contains(&node) {
            return None;
        }
        Some(if proto { Val::Proto(obj) } else { Val::Obj(obj) })
    }

    /// The class of the method enclosing `o`, whatever its receiver is called (for `Self`,
    /// `super` and implicit members).
    fn enclosing_class(&self, f: u32, mut o: DefIdx) -> Option<u32> {
        let facts = self.facts(f);
        loop {
            let node = self.node_of(f, o);
            if let Some(&c) = self.t.class_of.get(&node) {
                return Some(c);
            }
            let d = &facts.defs[o as usize];
            if d.kind == DefKind::Class {
                return Some(node);
            }
            o = d.parent?;
        }
    }

    /// Whether class node `c` is called `name`.
    fn is_named(&self, c: u32, name: &str) -> bool {
        let n = &self.g.nodes[c as usize];
        self.facts(n.file).defs.get(n.def as usize).is_some_and(|d| d.name == name)
    }

    // ---- lookups

    /// What `name` means at definition `scope` of file `f` (memoized; a name met again while
    /// it is being resolved means nothing more).
    fn resolve_name(&self, f: u32, scope: Option<DefIdx>, name: &str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let key = (f, scope, self.sym(name));
        let memo = if scope.is_some() { &self.memo_local } else { &self.memo_name };
        if let Some(v) = memo.borrow().get(&key) {
            return v.clone();
        }
        memo.borrow_mut().insert(key, Vec::new());
        let v = self.resolve_name_uncached(f, scope, name, depth);
        memo.borrow_mut().insert(key, v.clone());
        v
    }

    /// The number of a name (see [`Driver::syms`]).
    fn sym(&self, name: &str) -> u32 {
        if let Some(&y) = self.syms.borrow().get(name) {
            return y;
        }
        let mut syms = self.syms.borrow_mut();
        let y = syms.len() as u32;
        syms.insert(name.into(), y);
        y
    }

    fn resolve_name_uncached(&self, f: u32, scope: Option<DefIdx>, name: &str, depth: u32) -> Vals {
        if let Some((_, defs)) = self.r.constant(self.repo, f, scope, name) {
            return self.constant_vals(&defs);
        }
        let facts = self.facts(f);
        let mut s = scope;
        while let Some(o) = s {
            let d = &facts.defs[o as usize];
            // A class's own name in its body is the class, not a constructor named like it.
            if d.kind == DefKind::Class && !d.namespace && d.name == name {
                return vec![Val::Node(self.node_of(f, o))];
            }
            if let Some(bs) = self.local_scopes(f).get(&o).and_then(|m| m.get(name)) {
                return self.bindings(bs, depth);
            }
            if d.kind == DefKind::Function {
                if d.first_param.as_deref() == Some(name) {
                    if let Some(c) = self.receiver_class(f, o, name) {
                        return vec![Val::Inst(c)];
                    }
                    if let Some(v) = self.receiver_object(f, o) {
                        return vec![v];
                    }
                }
                if self.r.implicit_members()
                    && let Some(&c) = self.t.class_of.get(&self.node_of(f, o))
                    && !self.is_named(c, name)
                {
                    let mut m = self.member_of_class(c, name, depth + 1);
                    if m.is_empty() && d.owner.is_some() {
                        // A method written outside its class (C++ `void A::f()`) sees the
                        // class's fields, which its lexical scopes do not hold.
                        m = self.attr_vals(c, name, depth + 1);
                    }
                    if !m.is_empty() {
                        return m;
                    }
                }
            } else if d.kind == DefKind::Class && self.r.implicit_members() {
                let m = self.member_of_class(self.node_of(f, o), name, depth + 1);
                if !m.is_empty() {
                    return m;
                }
            }
            s = d.parent;
        }
        let roots = self.r.path_root(self.repo, f, scope, name);
        if !roots.is_empty() {
            return self.files_as_vals(&roots);
        }
        if self.r.outside(name) {
            return vec![Val::External];
        }
        match name {
            "Self" => {
                if let Some(c) = scope.and_then(|o| self.enclosing_class(f, o)) {
                    return vec![Val::Node(c)];
                }
            }
            "super" => {
                if let Some(c) = scope.and_then(|o| self.enclosing_class(f, o)) {
                    return self.bases(c, depth + 1).into_iter().map(Val::Inst).collect();
                }
            }
            _ => {}
        }
        if let Some(bs) = self.t.top.get(&f).and_then(|m| m.get(name)) {
            return self.bindings(bs, depth);
        }
        for p in self.package_files(f) {
            if p == f {
                continue;
            }
            if let Some(bs) = self.t.top.get(&p).and_then(|m| m.get(name)) {
                let v = self.bindings_of_kind(bs, depth, true);
                if !v.is_empty() {
                    return v;
                }
            }
        }
        if let Some(stars) = self.t.stars.get(&f) {
            for &i in stars {
                let imp = &facts.imports[i as usize];
                let mut out = Vec::new();
                for m in self.import_vals(f, i, imp, depth + 1) {
                    out.extend(self.member(m, name, depth + 1));
                }
                if !out.is_empty() {
                    return cap(out);
                }
            }
        }
        self.included_vals(f, name, depth)
    }

    /// What `name` is in the files `f` includes (C and C++), by their own top-level bindings.
    fn included_vals(&self, f: u32, name: &str, depth: u32) -> Vals {
        let mut out = Vec::new();
        for x in self.r.included(self.repo, f, name) {
            if x != f
                && let Some(bs) = self.t.top.get(&x).and_then(|m| m.get(name))
            {
                out.extend(self.bindings(bs, depth + 1));
            }
        }
        cap(out)
    }

    /// Files sharing `f`'s package namespace.
    fn package_files(&self, f: u32) -> Vec<u32> {
        if let Some(v) = self.memo_pkg.borrow().get(&f) {
            return v.clone();
        }
        let v = self.r.package_files(self.repo, f);
        self.memo_pkg.borrow_mut().insert(f, v.clone());
        v
    }

    fn bindings(&self, bs: &[Binding], depth: u32) -> Vals {
        self.bindings_of_kind(bs, depth, false)
    }

    /// The values of bindings; `defs_only` keeps definitions and top-level variables (another
    /// file's imports are not in scope: Go and Java imports are per file).
    fn bindings_of_kind(&self, bs: &[Binding], depth: u32, defs_only: bool) -> Vals {
        let mut out = Vec::new();
        for b in bs {
            match *b {
                Binding::Node(n) => out.push(Val::Node(n)),
                Binding::Import { f, i } if !defs_only => {
                    let imp = &self.facts(f).imports[i as usize];
                    let files = self.import_vals(f, i, imp, depth + 1);
                    match imp.name.as_deref() {
                        Some(n) if imp.form != ImportForm::ModDecl => {
                            if files.is_empty() {
                                out.push(Val::External);
                            }
                            for m in files {
                                let found = self.member(m, n, depth + 1);
                                if found.is_empty() && imp.form != ImportForm::Static {
                                    // `import x from './x'` of a file with no such name: the
                                    // module itself (a CommonJS default export).
                                    if n == "default" {
                                        out.push(m);
                                    }
                                }
                                out.extend(found);
                            }
                        }
                        _ => {
                            if files.is_empty() {
                                out.push(Val::External);
                            }
                            if imp.form != ImportForm::ModDecl {
                                out.extend(self.module_values(&files, depth + 1));
                            }
                            out.extend(files);
                        }
                    }
                }
                Binding::Bind { f, i } => out.extend(self.bind_vals(f, i, depth)),
                Binding::Object(o) => out.push(Val::Obj(o)),
                _ => {}
            }
        }
        cap(out)
    }

    /// The values that modules give themselves ([`Resolver::module_value`]).
    fn module_values(&self, modules: &[Val], depth: u32) -> Vals {
        let Some(name) = self.r.module_value() else { return Vec::new() };
        let mut out = Vec::new();
        for &m in modules {
            if let Val::File(x) = m
                && let Some(bs) = self.t.top.get(&x).and_then(|t| t.get(name))
            {
                out.extend(self.bindings(bs, depth));
            }
        }
        out
    }

    /// The module values an import refers to: a file, or a package when it names a directory.
    fn import_vals(&self, f: u32, i: u32, imp: &Import, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let files = self.import_files(f, i, imp);
        if self.r.module_is_class(imp) {
            // `import static a.b.Foo.bar`: the module is the class `Foo` of file `Foo.java`.
            let class = imp.module.rsplit('.').next().unwrap_or("");
            let mut out = Vec::new();
            for file in files {
                out.extend(self.member(Val::File(file), class, depth + 1));
            }
            return out;
        }
        // Rust's `use crate::m::x` where `m` is an inline module of the file.
        let rest = self.r.module_members(self.repo, f, imp);
        if !rest.is_empty() {
            let mut vals: Vals = files.iter().map(|&x| Val::File(x)).collect();
            for seg in &rest {
                vals = cap(vals.into_iter().flat_map(|v| self.member(v, seg, depth + 1)).collect());
            }
            return vals;
        }
        self.files_as_vals(&files)
    }

    fn files_as_vals(&self, files: &[u32]) -> Vals {
        if files.len() > 1 {
            let dir = parent_dir(self.repo.rel(files[0]));
            if files.iter().all(|&x| parent_dir(self.repo.rel(x)) == dir)
                && let Some(&dn) = self.t.dir_node.get(dir)
            {
                return vec![Val::Pkg(dn)];
            }
        }
        files.iter().map(|&x| Val::File(x)).collect()
    }

    fn import_files(&self, f: u32, i: u32, imp: &Import) -> Vec<u32> {
        if let Some(v) = self.memo_import.borrow().get(&(f, i)) {
            return v.clone();
        }
        let v = self.r.import_files(self.repo, f, imp);
        self.memo_import.borrow_mut().insert((f, i), v.clone());
        v
    }

    fn bind_vals(&self, f: u32, i: u32, depth: u32) -> Vals {
        if let Some(v) = self.memo_bind.borrow().get(&(f, i)) {
            return v.clone();
        }
        self.memo_bind.borrow_mut().insert((f, i), Vec::new());
        let v = self.bind_vals_uncached(f, i, depth);
        self.memo_bind.borrow_mut().insert((f, i), v.clone());
        v
    }

    fn bind_vals_uncached(&self, f: u32, i: u32, depth: u32) -> Vals {
        let bind = &self.facts(f).binds[i as usize];
        match &bind.value {
            BindValue::Alias(c) => self.resolve_chain(f, bind.owner, c, depth + 1),
            BindValue::CallOf(c) => {
                let callee = self.resolve_chain(f, bind.owner, c, depth + 1);
                self.call_results(&callee, depth + 1)
            }
            BindValue::Annotated(t) => {
                // A declared type the repository does not define (`String`, a library's, a
                // type parameter) is external: its methods are not guessed by name. An object
                // named like it (TypeScript's `type X = ...; const X = {...}`) is no type.
                let mut types = self.resolve_chain(f, bind.owner, t, depth + 1);
                types.retain(|v| !matches!(v, Val::Obj(_) | Val::Proto(_)));
                if types.is_empty() { vec![Val::External] } else { self.instances(&types) }
            }
        }
    }

    /// Instances of the classes among `vals`.
    fn instances(&self, vals: &[Val]) -> Vals {
        vals.iter()
            .filter_map(|v| match *v {
                Val::Node(n) if self.kind(n) == NodeKind::Class => Some(Val::Inst(n)),
                Val::External => Some(Val::External),
                _ => None,
            })
            .collect()
    }

    /// What calling `vals` gives: instances of classes, a function's declared return type.
    fn call_results(&self, vals: &[Val], depth: u32) -> Vals {
        let mut out = Vec::new();
        for v in vals {
            match *v {
                Val::Node(n) if self.kind(n) == NodeKind::Class => out.push(Val::Inst(n)),
                Val::Node(n) if self.kind(n) == NodeKind::Function => {
                    let node = &self.g.nodes[n as usize];
                    let d = &self.facts(node.file).defs[node.def as usize];
                    if let Some(ret) = &d.returns {
                        let scope = d.parent;
                        let t = if ret == "Self" {
                            self.t.class_of.get(&n).map(|&c| vec![Val::Node(c)]).unwrap_or_default()
                        } else {
                            self.resolve_chain(node.file, scope, ret, depth + 1)
                        };
                        out.extend(self.instances(&t));
                    }
                }
                Val::External => out.push(Val::External),
                _ => {}
            }
        }
        cap(out)
    }

    /// A dotted chain `a.b.c` at definition `scope` of file `f`.
    fn resolve_chain(&self, f: u32, scope: Option<DefIdx>, chain: &str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        // `helpers.format` where `helpers` groups top-level definitions of this file.
        if let Some((owner, last)) = chain.rsplit_once('.')
            && let Some(ns) = self.owned(f, owner).and_then(|m| m.get(last))
        {
            return ns.iter().map(|&n| Val::Node(n)).collect();
        }
        let mut parts = chain.split('.');
        let head = parts.next().unwrap_or("");
        let mut vals = match self.r.constant(self.repo, f, scope, chain) {
            // A global name of several segments (`Foo.Bar`): looked up whole.
            Some((n, defs)) if n > 1 => {
                for _ in 1..n {
                    parts.next();
                }
                self.constant_vals(&defs)
            }
            _ => self.resolve_name(f, scope, head, depth),
        };
        for p in parts {
            if vals.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for v in vals {
                next.extend(self.member(v, p, depth + 1));
            }
            vals = cap(next);
        }
        vals
    }

    /// The values of a global name's definitions (none: outside the repository).
    fn constant_vals(&self, defs: &[(u32, DefIdx)]) -> Vals {
        if defs.is_empty() {
            return vec![Val::External];
        }
        cap(defs.iter().map(|&(f, d)| Val::Node(self.node_of(f, d))).collect())
    }

    /// Member `name` of a value.
    fn member(&self, v: Val, name: &str, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        match v {
            Val::File(f) => self.exports(f, name, depth),
            Val::Pkg(dn) => {
                let dir: &[u8] = if self.g.nodes[dn as usize].id == b"/" {
                    b""
                } else {
                    &self.g.nodes[dn as usize].id
                };
                let mut out = Vec::new();
                for &f in self.repo.dir_files(dir) {
                    if self.t.top.contains_key(&f) {
                        out.extend(self.exports(f, name, depth));
                    }
                }
                cap(out)
            }
            Val::Node(n) if self.kind(n) == NodeKind::Class => self.member_of_class(n, name, depth),
            Val::Inst(c) => {
                let mut out = self.member_of_class(c, name, depth);
                if out.is_empty() {
                    out = self.attr_vals(c, name, depth);
                }
                out
            }
            // Its own members: what `X.prototype.m =` gives X's instances is not X's, nor the
            // other way round.
            Val::Obj(o) | Val::Proto(o) => {
                let proto = matches!(v, Val::Proto(_));
                self.t.objects[o as usize].get(name).map_or_else(Vec::new, |ns| {
                    ns.iter()
                        .filter(|&&n| self.on_prototype(n) == proto)
                        .map(|&n| Val::Node(n))
                        .collect()
                })
            }
            Val::External => vec![Val::External],
            _ => Vec::new(),
        }
    }

    /// Whether definition node `n` is written apart from its type (`X.prototype.m =`).
    fn on_prototype(&self, n: u32) -> bool {
        let node = &self.g.nodes[n as usize];
        self.facts(node.file).defs.get(node.def as usize).is_some_and(|d| d.owner.is_some())
    }

    /// A module's member: its top-level definitions and bindings, and what it re-exports.
    fn exports(&self, f: u32, name: &str, depth: u32) -> Vals {
        let key = (f, self.sym(name));
        if let Some(v) = self.memo_export.borrow().get(&key) {
            return v.clone();
        }
        self.memo_export.borrow_mut().insert(key, Vec::new());
        let v = self.exports_uncached(f, name, depth);
        self.memo_export.borrow_mut().insert(key, v.clone());
        v
    }

    fn exports_uncached(&self, f: u32, name: &str, depth: u32) -> Vals {
        if let Some(bs) = self.t.top.get(&f).and_then(|m| m.get(name)) {
            return self.bindings(bs, depth);
        }
        // `export * from './x'` and Rust `pub use x::*`.
        let facts = self.facts(f);
        if let Some(stars) = self.t.stars.get(&f) {
            for &i in stars {
                let imp = &facts.imports[i as usize];
                if imp.form != ImportForm::ReExport {
                    continue;
                }
                let mut out = Vec::new();
                for m in self.import_vals(f, i, imp, depth + 1) {
                    if m != Val::File(f) {
                        out.extend(self.member(m, name, depth + 1));
                    }
                }
                if !out.is_empty() {
                    return cap(out);
                }
            }
        }
        self.included_vals(f, name, depth)
    }

    /// A class's member, through its bases.
    fn member_of_class(&self, c: u32, name: &str, depth: u32) -> Vals {
        let mut seen = vec![c];
        let mut queue = vec![c];
        while let Some(k) = queue.pop() {
            if let Some(ns) = self.t.members.get(&k).and_then(|m| m.get(name)) {
                return ns.iter().map(|&n| Val::Node(n)).collect();
            }
            for b in self.bases(k, depth + 1) {
                if !seen.contains(&b) && seen.len() < 64 {
                    seen.push(b);
                    queue.insert(0, b);
                }
            }
        }
        Vec::new()
    }

    /// The values a field of class `c` holds, by its declared type or assignments.
    fn attr_vals(&self, c: u32, name: &str, depth: u32) -> Vals {
        // Fields are inherited: the class's own first, then its bases', nearest first.
        let mut queue = vec![c];
        let mut seen = vec![c];
        while let Some(k) = queue.pop() {
            if let Some(bs) = self.t.attrs.get(&(k, name)) {
                return self.bindings(bs, depth);
            }
            for b in self.bases(k, depth + 1) {
                if !seen.contains(&b) && seen.len() < 64 {
                    seen.push(b);
                    queue.insert(0, b);
                }
            }
        }
        Vec::new()
    }

    /// What base `chain` of class `def` of file `f` names: looked up where the class is
    /// written (`class A < B`), and failing that inside its body, where a Ruby mixin is
    /// (`include Helpers` of a module nested in the class).
    fn base_vals(&self, f: u32, def: DefIdx, chain: &str, depth: u32) -> Vals {
        let parent = self.facts(f).defs[def as usize].parent;
        let is_class = |x: &Val| matches!(*x, Val::Node(n) if self.kind(n) == NodeKind::Class);
        let v = self.resolve_chain(f, parent, chain, depth);
        if v.iter().any(is_class) {
            return v;
        }
        let inner = self.resolve_chain(f, Some(def), chain, depth);
        if inner.iter().any(is_class) { inner } else { v }
    }

    /// Resolved base classes (and traits, interfaces, embedded types) of a class.
    fn bases(&self, c: u32, depth: u32) -> Vec<u32> {
        if let Some(v) = self.memo_bases.borrow().get(&c) {
            return v.clone();
        }
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        // Cycle guard while computing.
        self.memo_bases.borrow_mut().insert(c, Vec::new());
        let node = &self.g.nodes[c as usize];
        let facts = self.facts(node.file);
        let d = &facts.defs[node.def as usize];
        let mut out = Vec::new();
        for b in &d.bases {
            if let Expr::Dotted(chain) | Expr::Subscript(chain) = b {
                for v in self.base_vals(node.file, node.def, chain, depth + 1) {
                    if let Val::Node(n) = v
                        && self.kind(n) == NodeKind::Class
                        && n != c
                    {
                        out.push(n);
                    }
                }
            }
        }
        // `impl Trait for Type`, wherever it is written: its default methods are members.
        for &(f, scope, tr) in self.t.impl_traits.get(&c).map_or(&[][..], |v| v.as_slice()) {
            for v in self.resolve_chain(f, scope, tr, depth + 1) {
                if let Val::Node(n) = v
                    && self.kind(n) == NodeKind::Class
                    && n != c
                {
                    out.push(n);
                }
            }
        }
        dedup(&mut out);
        self.memo_bases.borrow_mut().insert(c, out.clone());
        out
    }

    // ---- edges

    fn link_file(&self, f: u32, out: &mut Vec<Edge>) {
        let facts = self.facts(f);
        let fnode = self.t.file_node[&f];
        let owner_node = |o: Option<DefIdx>| o.map_or(fnode, |o| self.node_of(f, o));
        for (ii, imp) in facts.imports.iter().enumerate() {
            let src = owner_node(imp.owner);
            let files = self.import_files(f, ii as u32, imp);
            let mut targets: Vec<u32> = Vec::new();
            if let Some(n) = imp.name.as_deref().filter(|n| *n != "*" && *n != "default") {
                for m in self.import_vals(f, ii as u32, imp, 0) {
                    for v in self.member(m, n, 1) {
                        match v {
                            Val::Node(t) => targets.push(t),
                            // A module by name (Rust `use a::b;` of the module file `b`).
                            Val::File(x) => targets.extend(self.t.file_node.get(&x).copied()),
                            _ => {}
                        }
                    }
                }
            }
            if targets.is_empty() {
                for v in self.files_as_vals(&files) {
                    match v {
                        Val::File(x) => targets.push(self.t.file_node[&x]),
                        Val::Pkg(dn) => targets.push(dn),
                        _ => {}
                    }
                }
            }
            targets.retain(|&t| t != src && t != fnode);
            dedup(&mut targets);
            emit(out, src, &targets, EdgeKind::Import);
        }
        for (di, d) in facts.defs.iter().enumerate() {
            if d.kind != DefKind::Class {
                continue;
            }
            // Ambiguity is per base: several bases are not alternatives of one another.
            let node = self.node_of(f, di as u32);
            // One edge set per base: `extends A implements B` is two exact edges, and only a
            // base that resolves to several classes is ambiguous.
            for b in &d.bases {
                if let Expr::Dotted(chain) | Expr::Subscript(chain) = b {
                    let mut ts = self.classes(&self.base_vals(f, di as DefIdx, chain, 0));
                    ts.retain(|&t| t != node);
                    emit(out, node, &ts, EdgeKind::Inherit);
                }
            }
        }
        for imp in &facts.impls {
            let tys = self.classes(&self.resolve_chain(f, imp.owner, &imp.ty, 0));
            let traits = self.classes(&self.resolve_chain(f, imp.owner, &imp.trait_, 0));
            for &t in &tys {
                let ts: Vec<u32> = traits.iter().copied().filter(|&x| x != t).collect();
                emit(out, t, &ts, EdgeKind::Inherit);
            }
        }
        for call in &facts.calls {
            let src = owner_node(call.owner);
            let (targets, meta) = self.call_targets(f, call.owner, &call.callee);
            for t in targets {
                out.push(Edge { src, dst: t, kind: EdgeKind::Invoke, meta });
            }
        }
    }

    fn classes(&self, vals: &[Val]) -> Vec<u32> {
        let mut out: Vec<u32> = vals
            .iter()
            .filter_map(|v| match *v {
                Val::Node(n) if self.kind(n) == NodeKind::Class => Some(n),
                _ => None,
            })
            .collect();
        dedup(&mut out);
        out
    }

    fn callables(&self, vals: &[Val]) -> Vec<u32> {
        let mut out: Vec<u32> = vals
            .iter()
            .filter_map(|v| match *v {
                Val::Node(n) if self.kind(n) == NodeKind::Function => Some(n),
                Val::Node(n) if self.kind(n) == NodeKind::Class && self.r.instantiates() => Some(n),
                _ => None,
            })
            .collect();
        dedup(&mut out);
        out
    }

    fn call_targets(&self, f: u32, scope: Option<DefIdx>, callee: &Callee) -> (Vec<u32>, u8) {
        let (receiver, attr): (Vals, &str) = match callee {
            Callee::Name(n) => {
                let t = self.callables(&self.resolve_name(f, scope, n, 0));
                let m = ambiguity(t.len());
                return (t, m);
            }
            Callee::Chain(c) => {
                let (head, attr) = c.rsplit_once('.').unwrap_or(("", c));
                if let Some(ns) = self.owned(f, head).and_then(|m| m.get(attr)) {
                    let m = ambiguity(ns.len());
                    return (ns.clone(), m);
                }
                (self.resolve_chain(f, scope, head, 0), attr)
            }
            Callee::OnCall(c, attr) => {
                let vals = self.resolve_chain(f, scope, c, 0);
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
        for &r in &receiver {
            // An object's members are open (assigned anywhere, mixed in): one it lacks here
            // may still be some class's method.
            if !matches!(r, Val::Node(n) if self.kind(n) == NodeKind::Function)
                && !matches!(r, Val::Obj(_) | Val::Proto(_))
            {
                typed = true;
            }
            found.extend(self.member(r, attr, 0));
        }
        let t = self.callables(&found);
        if !t.is_empty() {
            let m = ambiguity(t.len());
            return (t, m);
        }
        if typed || found.contains(&Val::External) {
            // The receiver is known and has no such method here: external or dynamic.
            return (Vec::new(), META_EXACT);
        }
        if matches!(callee, Callee::Chain(c) if c.starts_with("super.")) {
            // `super` is the enclosing class's ancestors: when none of them here has the
            // method, it is inherited from outside (Ruby's `class H < Hash`), never a
            // same-named method elsewhere, the caller itself included.
            return (Vec::new(), META_EXACT);
        }
        self.guess_method(f, attr)
    }

    /// The files whose classes a receiver of unknown type in file `f` may belong to: `f`, its
    /// package and what it imports (once per file: a file makes many such calls).
    fn visible_files(&self, f: u32) -> std::rc::Rc<HashSet<u32>> {
        if let Some(v) = self.memo_visible.borrow().get(&f) {
            return std::rc::Rc::clone(v);
        }
        let mut visible: HashSet<u32> = HashSet::default();
        visible.insert(f);
        visible.extend(self.package_files(f));
        for (i, imp) in self.facts(f).imports.iter().enumerate() {
            visible.extend(self.import_files(f, i as u32, imp));
        }
        let v = std::rc::Rc::new(visible);
        self.memo_visible.borrow_mut().insert(f, std::rc::Rc::clone(&v));
        v
    }

    /// Methods named `attr` that a receiver of unknown type may be calling: those in classes
    /// of the caller's file, package and imported files; else the only one in the family.
    fn guess_method(&self, f: u32, attr: &str) -> (Vec<u32>, u8) {
        if crate::graph::link::COMMON_METHODS.contains(&attr)
            || self.r.common_methods().contains(&attr)
        {
            return (Vec::new(), META_EXACT);
        }
        let Some(cands) = self.t.methods.get(attr) else { return (Vec::new(), META_EXACT) };
        let caller_test = self.g.nodes[self.t.file_node[&f] as usize].flags & FLAG_TEST != 0;
        let cands: Vec<u32> = cands
            .iter()
            .copied()
            .filter(|&m| caller_test || self.g.nodes[m as usize].flags & FLAG_TEST == 0)
            .collect();
        let visible = self.visible_files(f);
        let mut near: Vec<u32> = cands
            .iter()
            .copied()
            .filter(|&m| visible.contains(&self.g.nodes[m as usize].file))
            .collect();
        dedup(&mut near);
        match near.len() {
            0 if cands.len() == 1 && self.r.guess_anywhere() => (cands, META_GUESS),
            0 => (Vec::new(), META_EXACT),
            1 => (near, META_GUESS),
            n if n <= MAX_ALTS => (near, n.min(255) as u8),
            _ => (Vec::new(), META_EXACT),
        }
    }
}

fn push<'a>(map: &mut HashMap<&'a str, Vec<Binding>>, name: &'a str, b: Binding) {
    map.entry(name).or_default().push(b);
}

fn push_node<'a>(map: &mut HashMap<&'a str, Vec<u32>>, name: &'a str, n: u32) {
    let v = map.entry(name).or_default();
    if !v.contains(&n) {
        v.push(n);
    }
}

fn emit(out: &mut Vec<Edge>, src: u32, targets: &[u32], kind: EdgeKind) {
    let meta = ambiguity(targets.len());
    for &t in targets {
        out.push(Edge { src, dst: t, kind, meta });
    }
}

/// Keeps the first [`MAX_ALTS`] distinct values.
fn cap(mut v: Vals) -> Vals {
    let mut seen = HashSet::default();
    v.retain(|x| seen.insert(*x));
    v.truncate(MAX_ALTS);
    v
}
