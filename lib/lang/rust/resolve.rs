//! Rust's module rules for the linker's driver ([`crate::graph::scope`]).
//!
//! * **Crates.** Each `Cargo.toml` with a `[package] name` roots crates at `src/lib.rs` (or its
//!   `[lib] path`), `src/main.rs`, `src/bin/*.rs` and `src/bin/*/main.rs`; `tests/`, `examples/`
//!   and `benches/` files and `build.rs` are crate roots of their own. The package's name (or its
//!   `[lib] name`), `-` read as `_`, names its library crate (else its binary) in other crates'
//!   paths. A `lib.rs` or `main.rs` that no `Cargo.toml` roots is a root too, and so is any file
//!   that no module tree reaches.
//! * **Module tree.** From each root, `mod x;` leads to `x.rs` or `x/mod.rs` beside a root,
//!   `mod.rs`, `lib.rs` or `main.rs`, and under `a/` for any other file `a.rs`; an inline
//!   `mod m { mod x; }` adds `m/`; `#[path = "p.rs"]` is relative to the declaring file's
//!   directory. `src/a/b.rs` is then module `crate::a::b`.
//! * **Paths.** `crate::`, `self::` and `super::` start from the crate root, the current module
//!   (inline modules around the `use` included) and its parent; a first segment that names a
//!   module of the current module is relative to it (Rust 2018), one that names another crate of
//!   the workspace starts at that crate's root, one that names a module of the crate root is
//!   read from there (Rust 2015); anything else (std, dependencies) is outside the repository.
//!   An import resolves to the deepest module file along its path; the driver then looks its
//!   name up in that file.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};

use crate::extract::{DefIdx, Import, ImportForm};
use crate::graph::parent_dir;
use crate::graph::scope::{self, Repo};
use crate::lang::{Family, Lang};

/// Methods of the standard library's traits and types: a receiver of unknown type calling one
/// is most likely a std type, so no repository method of that name is guessed for it.
const COMMON_METHODS: &[&str] = &[
    "abs",
    "all",
    "and_then",
    "any",
    "as_bytes",
    "as_mut",
    "as_mut_ptr",
    "as_ptr",
    "as_ref",
    "as_slice",
    "as_str",
    "borrow",
    "borrow_mut",
    "build",
    "bytes",
    "capacity",
    "chain",
    "chars",
    "checked_add",
    "checked_sub",
    "clone",
    "clone_from",
    "cloned",
    "cmp",
    "collect",
    "contains",
    "contains_key",
    "copied",
    "count",
    "dedup",
    "default",
    "deref",
    "deref_mut",
    "drain",
    "drop",
    "ends_with",
    "entry",
    "enumerate",
    "eq",
    "err",
    "expect",
    "expect_err",
    "filter",
    "filter_map",
    "find",
    "first",
    "flat_map",
    "flatten",
    "flush",
    "fmt",
    "fold",
    "for_each",
    "from",
    "from_str",
    "get",
    "get_mut",
    "hash",
    "insert",
    "into",
    "into_iter",
    "is_empty",
    "is_err",
    "is_none",
    "is_ok",
    "is_some",
    "iter",
    "iter_mut",
    "join",
    "keys",
    "last",
    "len",
    "lines",
    "lock",
    "map",
    "map_err",
    "max",
    "min",
    "ne",
    "new",
    "next",
    "ok",
    "ok_or",
    "ok_or_else",
    "or_default",
    "or_insert",
    "or_insert_with",
    "parse",
    "partial_cmp",
    "peek",
    "pop",
    "position",
    "push",
    "push_str",
    "read",
    "recv",
    "remove",
    "reserve",
    "retain",
    "rev",
    "send",
    "skip",
    "sort",
    "sort_by",
    "sort_by_key",
    "split",
    "starts_with",
    "sum",
    "take",
    "to_owned",
    "to_string",
    "to_vec",
    "trim",
    "truncate",
    "try_from",
    "try_into",
    "unwrap",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "values",
    "values_mut",
    "with_capacity",
    "write",
    "write_all",
    "write_fmt",
    "write_str",
    "zip",
];

/// A crate: its root file.
struct Crate {
    root: u32,
}

/// Rust's module rules for the linker (see the module documentation).
pub struct Resolver {
    crates: Vec<Crate>,
    /// Crate name as written in paths (`-` read as `_`) -> crate.
    names: HashMap<String, usize>,
    /// File -> (crate, module path).
    file_mod: HashMap<u32, (usize, Vec<String>)>,
    /// (crate, module path) -> file.
    mod_file: HashMap<(usize, Vec<String>), u32>,
    /// Crate root files.
    roots: HashSet<u32>,
    /// (file, import's address) -> `module_members`, asked on every lookup through the import.
    members_memo: RefCell<HashMap<(u32, usize), Vec<String>>>,
}

/// What one `Cargo.toml` says.
#[derive(Default)]
pub(super) struct Manifest {
    pub(super) name: Option<String>,
    pub(super) lib_name: Option<String>,
    pub(super) lib_path: Option<String>,
}

pub(super) fn manifest(text: &str) -> Manifest {
    let mut m = Manifest::default();
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let header = line.split('#').next().unwrap_or(line).trim();
            section = header.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            continue;
        }
        let Some((k, v)) = line.split_once('=') else { continue };
        // `name = "x"  # comment`: the first quoted string.
        let Some(v) = v.trim().strip_prefix('"').and_then(|v| v.split('"').next()) else {
            continue;
        };
        let v = v.to_string();
        match (section.as_str(), k.trim()) {
            ("package", "name") => m.name = Some(v),
            ("lib", "name") => m.lib_name = Some(v),
            ("lib", "path") => m.lib_path = Some(v),
            _ => {}
        }
    }
    m
}

/// `a/b` + `c/../d.rs` -> `a/b/d.rs`.
fn join(dir: &[u8], rel: &str) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = dir.split(|&c| c == b'/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p.as_bytes()),
        }
    }
    parts.join(&b'/')
}

fn base_name(rel: &[u8]) -> &[u8] {
    rel.rsplit(|&c| c == b'/').next().unwrap_or(rel)
}

impl Resolver {
    /// Reads the crates and module trees of the repository.
    pub fn new(repo: &Repo) -> Resolver {
        let mut r = Resolver {
            crates: Vec::new(),
            names: HashMap::new(),
            file_mod: HashMap::new(),
            mod_file: HashMap::new(),
            roots: HashSet::new(),
            members_memo: RefCell::new(HashMap::new()),
        };
        let is_rust = |f: u32| repo.files[f as usize].lang.family() == Family::Rust;
        let mut ordered_roots: Vec<u32> = Vec::new();
        let mut manifests: Vec<_> = repo.projects_named("Cargo.toml").collect();
        manifests.sort_by_key(|p| p.rel.len());
        for p in manifests {
            let m = manifest(&p.text);
            let Some(name) = m.name.clone() else { continue };
            let dir = parent_dir(&p.rel);
            let at = |rel: &str| repo.file(&join(dir, rel)).filter(|&f| is_rust(f));
            let lib = at(m.lib_path.as_deref().unwrap_or("src/lib.rs"));
            let main = at("src/main.rs");
            let named = lib.or(main);
            for root in [lib, main].into_iter().flatten() {
                let c = r.add_root(root, &mut ordered_roots);
                if Some(root) == named {
                    let n = m.lib_name.clone().unwrap_or_else(|| name.clone());
                    r.names.entry(n.replace('-', "_")).or_insert(c);
                }
            }
            for sub in ["src/bin", "tests", "examples", "benches"] {
                let d = join(dir, sub);
                for &f in repo.dir_files(&d) {
                    if is_rust(f) {
                        r.add_root(f, &mut ordered_roots);
                    }
                }
            }
            if let Some(f) = at("build.rs") {
                r.add_root(f, &mut ordered_roots);
            }
        }
        r.walk_tree(repo, &ordered_roots);
        // `src/bin/x/main.rs`, and lib.rs / main.rs files no manifest names nor module reaches.
        let mut rest: Vec<u32> = (0..repo.files.len() as u32)
            .filter(|&f| is_rust(f) && matches!(base_name(repo.rel(f)), b"lib.rs" | b"main.rs"))
            .collect();
        rest.sort_by_key(|&f| (repo.rel(f).iter().filter(|&&c| c == b'/').count(), f));
        for f in rest {
            if !r.file_mod.contains_key(&f) {
                let mut roots = Vec::new();
                r.add_root(f, &mut roots);
                r.walk_tree(repo, &roots);
            }
        }
        // Files no module tree reaches: roots of their own, shallowest first.
        let mut orphans: Vec<u32> = (0..repo.files.len() as u32)
            .filter(|&f| is_rust(f) && !r.file_mod.contains_key(&f))
            .collect();
        orphans.sort_by_key(|&f| (repo.rel(f).iter().filter(|&&c| c == b'/').count(), f));
        for f in orphans {
            if !r.file_mod.contains_key(&f) {
                let mut roots = Vec::new();
                r.add_root(f, &mut roots);
                r.walk_tree(repo, &roots);
            }
        }
        r
    }

    fn add_root(&mut self, f: u32, order: &mut Vec<u32>) -> usize {
        if let Some((c, p)) = self.file_mod.get(&f)
            && p.is_empty()
        {
            return *c;
        }
        let c = self.crates.len();
        self.crates.push(Crate { root: f });
        self.roots.insert(f);
        self.file_mod.insert(f, (c, Vec::new()));
        self.mod_file.insert((c, Vec::new()), f);
        order.push(f);
        c
    }

    /// Follows `mod x;` declarations from the roots.
    fn walk_tree(&mut self, repo: &Repo, roots: &[u32]) {
        let mut queue: VecDeque<u32> = roots.iter().copied().collect();
        while let Some(f) = queue.pop_front() {
            let Some((c, path)) = self.file_mod.get(&f).cloned() else { continue };
            let facts = repo.facts(f);
            for imp in &facts.imports {
                if imp.form != ImportForm::ModDecl {
                    continue;
                }
                let Some(t) = self.mod_target(repo, f, imp) else { continue };
                let mut p = path.clone();
                p.extend(inline_chain(repo, f, imp.owner));
                p.push(decl_name(imp).to_string());
                if self.file_mod.contains_key(&t) {
                    // A module file shared by several crates (`tests/common/mod.rs`).
                    self.mod_file.entry((c, p)).or_insert(t);
                    continue;
                }
                self.file_mod.insert(t, (c, p.clone()));
                self.mod_file.entry((c, p)).or_insert(t);
                queue.push_back(t);
            }
        }
    }

    /// The file a `mod x;` declaration loads.
    fn mod_target(&self, repo: &Repo, f: u32, imp: &Import) -> Option<u32> {
        let rel = repo.rel(f);
        let dir = parent_dir(rel);
        let chain = inline_chain(repo, f, imp.owner).join("/");
        if let Some(p) = imp.module.strip_prefix("path:") {
            let base = join(dir, &chain);
            return repo.file(&join(&base, p));
        }
        let name = base_name(rel);
        let own_dir = self.roots.contains(&f) || matches!(name, b"mod.rs" | b"lib.rs" | b"main.rs");
        let mut base = dir.to_vec();
        if !own_dir {
            let stem = name.strip_suffix(b".rs").unwrap_or(name);
            base = join(dir, &String::from_utf8_lossy(stem));
        }
        let base = join(&base, &chain);
        let m = &imp.module;
        repo.file(&join(&base, &format!("{m}.rs")))
            .or_else(|| repo.file(&join(&base, &format!("{m}/mod.rs"))))
            .filter(|&t| Lang::of_name(repo.rel(t)) == Some(Lang::Rust))
    }

    /// The module `(crate, path)` that code at `owner` of file `f` is in.
    fn current(&self, repo: &Repo, f: u32, owner: Option<DefIdx>) -> Option<(usize, Vec<String>)> {
        let (c, mut p) = self.file_mod.get(&f).cloned()?;
        p.extend(inline_chain(repo, f, owner));
        Some((c, p))
    }

    /// Whether `(c, path)` is a module: a file, or an inline module of one.
    fn is_module(&self, repo: &Repo, c: usize, path: &[String]) -> bool {
        if self.mod_file.contains_key(&(c, path.to_vec())) {
            return true;
        }
        // An inline module: the deepest file along the path defines it.
        let (file, depth) = self.deepest(c, path);
        let inline = &path[depth..];
        let facts = repo.facts(file);
        let mut parent: Option<DefIdx> = None;
        for seg in inline {
            let found = facts
                .defs
                .iter()
                .enumerate()
                .find(|(_, d)| d.namespace && d.parent == parent && d.name == *seg);
            match found {
                Some((i, _)) => parent = Some(i as DefIdx),
                None => return false,
            }
        }
        true
    }

    /// The deepest module file along `path` in crate `c`, and how many segments it covers.
    fn deepest(&self, c: usize, path: &[String]) -> (u32, usize) {
        let mut best = (self.crates[c].root, 0);
        for i in 1..=path.len() {
            if let Some(&f) = self.mod_file.get(&(c, path[..i].to_vec())) {
                best = (f, i);
            }
        }
        best
    }

    /// The absolute module path `segs` names from module `(c, cur)` of file `f`.
    fn absolute(
        &self,
        repo: &Repo,
        f: u32,
        (c, cur): (usize, Vec<String>),
        segs: &[&str],
    ) -> Option<(usize, Vec<String>)> {
        let first = *segs.first()?;
        let owned = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        match first {
            "crate" => Some((c, owned(&segs[1..]))),
            "self" => {
                let mut p = cur;
                p.extend(owned(&segs[1..]));
                Some((c, p))
            }
            "super" => {
                let mut p = cur;
                let mut i = 0;
                while segs.get(i) == Some(&"super") {
                    p.pop()?;
                    i += 1;
                }
                p.extend(owned(&segs[i..]));
                Some((c, p))
            }
            _ => {
                let mut rel = cur.clone();
                rel.push(first.to_string());
                if self.is_module(repo, c, &rel) || declares_mod(repo, f, first) {
                    let mut p = cur;
                    p.extend(owned(segs));
                    return Some((c, p));
                }
                if let Some(&other) = self.names.get(first) {
                    return Some((other, owned(&segs[1..])));
                }
                if !cur.is_empty() && self.is_module(repo, c, &owned(&segs[..1])) {
                    return Some((c, owned(segs)));
                }
                None
            }
        }
    }
}

/// The names of the inline modules around definition `owner` of file `f`, outermost first.
fn inline_chain(repo: &Repo, f: u32, mut owner: Option<DefIdx>) -> Vec<String> {
    let facts = repo.facts(f);
    let mut out = Vec::new();
    while let Some(o) = owner {
        let d = &facts.defs[o as usize];
        if d.namespace {
            out.push(d.name.clone());
        }
        owner = d.parent;
    }
    out.reverse();
    out
}

/// The name a `mod x;` declaration binds.
fn decl_name(imp: &Import) -> &str {
    imp.alias.as_deref().unwrap_or(&imp.module)
}

/// Whether file `f` declares `mod name;` at its top level.
fn declares_mod(repo: &Repo, f: u32, name: &str) -> bool {
    repo.facts(f)
        .imports
        .iter()
        .any(|i| i.form == ImportForm::ModDecl && i.owner.is_none() && decl_name(i) == name)
}

impl scope::Resolver for Resolver {
    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32> {
        if imp.form == ImportForm::ModDecl {
            return self.mod_target(repo, file, imp).into_iter().collect();
        }
        let segs: Vec<&str> = imp.module.split('.').filter(|s| !s.is_empty()).collect();
        let Some(cur) = self.current(repo, file, imp.owner) else { return Vec::new() };
        let Some((c, path)) = self.absolute(repo, file, cur, &segs) else { return Vec::new() };
        vec![self.deepest(c, &path).0]
    }

    fn module_members(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<String> {
        if imp.form == ImportForm::ModDecl {
            return Vec::new();
        }
        let key = (file, imp as *const Import as usize);
        if let Some(v) = self.members_memo.borrow().get(&key) {
            return v.clone();
        }
        let segs: Vec<&str> = imp.module.split('.').filter(|s| !s.is_empty()).collect();
        let rest = self
            .current(repo, file, imp.owner)
            .and_then(|cur| self.absolute(repo, file, cur, &segs))
            .map(|(c, path)| path[self.deepest(c, &path).1..].to_vec())
            .unwrap_or_default();
        self.members_memo.borrow_mut().insert(key, rest.clone());
        rest
    }

    fn bound_name<'s>(&'s self, imp: &'s Import) -> Option<&'s str> {
        if let Some(a) = &imp.alias {
            return Some(a);
        }
        if let Some(n) = &imp.name {
            return Some(n);
        }
        imp.module.rsplit('.').find(|s| !s.is_empty())
    }

    fn instantiates(&self) -> bool {
        false
    }

    fn common_methods(&self) -> &'static [&'static str] {
        COMMON_METHODS
    }

    /// `crate::` and `super::` in expressions and types, and the root of another workspace
    /// crate named by a path's first segment (unless the file has a module of that name).
    fn path_root(&self, repo: &Repo, file: u32, scope: Option<DefIdx>, name: &str) -> Vec<u32> {
        match name {
            "crate" => {
                self.file_mod.get(&file).map(|(c, _)| self.crates[*c].root).into_iter().collect()
            }
            "super" => {
                let Some((c, mut p)) = self.current(repo, file, scope) else { return Vec::new() };
                if p.pop().is_none() {
                    return Vec::new();
                }
                vec![self.deepest(c, &p).0]
            }
            _ => match self.names.get(name) {
                Some(&c)
                    if !declares_mod(repo, file, name)
                        && !repo
                            .facts(file)
                            .defs
                            .iter()
                            .any(|d| d.parent.is_none() && d.name == name) =>
                {
                    vec![self.crates[c].root]
                }
                _ => Vec::new(),
            },
        }
    }
}
