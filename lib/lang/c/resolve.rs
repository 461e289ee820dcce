//! C and C++ resolution rules, for the shared driver ([`crate::graph::scope`]).
//!
//! * `#include "p"` is looked up beside the including file, then in the include directories;
//!   `#include <p>` in the include directories only. Include directories are every directory
//!   named `include` in the tree, the `-I` paths of a `compile_commands.json` that lie in the
//!   repository, and the repository root; among several matches the directory nearest the
//!   including file wins (one file: a header of another platform's `arch/*/include` is not also
//!   included). A quoted include found nowhere else may name the only file of the repository
//!   whose path ends with it.
//! * An include re-exports: a file sees what its headers declare, and what they include.
//! * A prototype the file sees leads to the function's definition: the non-`static` top-level
//!   definition of that name in a C/C++ file of the repository, the one in the declaring
//!   header's namesake source (`x.h` -> `x.c`) first, else the only one, else those nearest the
//!   declaring file (at most a few, marked as alternatives). A call is never linked by its name
//!   alone: the callee must be defined in the same file or declared by something it includes.
//! * C++: methods see their class's members unqualified, `this->m()` is a method of the class,
//!   `ns::f` looks `f` up in what the file sees when `ns` is a namespace the repository opens
//!   (namespaces are not scopes of their own here), `Class::f` is a member, and `new Foo(...)`
//!   calls `Foo`'s constructor.

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;

use crate::extract::{DefKind, Expr, Import};
use crate::graph::parent_dir;
use crate::graph::scope::{self, Repo};
use crate::lang::Family;

/// Most definitions one prototype may lead to (as alternatives).
const MAX_DEFINERS: usize = 4;

/// The files one file includes, directly or not: as bits by file number and sorted.
#[derive(Default)]
struct Closure {
    file: Option<u32>,
    bits: Vec<u64>,
    sorted: Vec<u32>,
}

/// C and C++'s rules for the linker (see the module's documentation).
pub struct Resolver {
    /// Path below an include directory -> (include directory, file): what `<path>` may name.
    under_include: HashMap<Vec<u8>, Vec<(Vec<u8>, u32)>>,
    /// Function name -> the C/C++ files defining it at the top level, not `static`.
    definers: HashMap<String, Vec<u32>>,
    /// Name -> the C/C++ files whose top level defines or declares it.
    declarers: HashMap<String, Vec<u32>>,
    /// File base name -> C/C++ files of that name (for includes found by suffix).
    by_base: HashMap<Vec<u8>, Vec<u32>>,
    /// Namespaces the repository's C++ files open.
    namespaces: HashSet<String>,
    /// Per file: the files its includes name (resolved once, on first use).
    includes: RefCell<HashMap<u32, Vec<u32>>>,
    /// The files the last file asked about includes, transitively (the driver links one file
    /// after another, so one entry serves nearly every lookup and memory stays bounded).
    closure: RefCell<Closure>,
}

impl Resolver {
    /// Reads what the rules need from the repository.
    pub fn new(repo: &Repo) -> Resolver {
        let mut dirs: HashSet<Vec<u8>> = HashSet::default();
        let mut definers: HashMap<String, Vec<u32>> = HashMap::default();
        let mut by_base: HashMap<Vec<u8>, Vec<u32>> = HashMap::default();
        let mut declarers: HashMap<String, Vec<u32>> = HashMap::default();
        let mut namespaces = HashSet::default();
        for (i, f) in repo.files.iter().enumerate() {
            if f.lang.family() != Family::C {
                continue;
            }
            let dir = parent_dir(f.rel);
            // Every ancestor named `include`.
            let mut end = 0;
            for comp in dir.split(|&c| c == b'/') {
                end += comp.len();
                if comp == b"include" {
                    dirs.insert(dir[..end].to_vec());
                }
                end += 1;
            }
            by_base.entry(crate::graph::base_name(f.rel).to_vec()).or_default().push(i as u32);
            let facts = repo.facts(i as u32);
            let mut declare = |name: &str| add_file(&mut declarers, name, i as u32);
            for d in facts.defs.iter().filter(|d| d.parent.is_none() && d.owner.is_none()) {
                declare(&d.name);
            }
            for imp in facts.imports.iter().filter(|m| m.module.is_empty()) {
                if let Some(n) = &imp.name {
                    declare(n);
                }
            }
            for d in &facts.defs {
                if d.parent.is_none()
                    && d.owner.is_none()
                    && d.kind == DefKind::Function
                    && !d.decorators.iter().any(|e| matches!(e, Expr::Dotted(s) if s == "static"))
                {
                    add_file(&mut definers, &d.name, i as u32);
                }
            }
            if let Some(ns) = &facts.package {
                namespaces.extend(ns.split(' ').map(str::to_string));
            }
        }
        for p in repo.projects_named("compile_commands.json") {
            for d in compile_command_dirs(repo, &p.text) {
                dirs.insert(d);
            }
        }
        // Each file under the include directories that are its ancestors (and the root).
        dirs.insert(Vec::new());
        let mut under_include: HashMap<Vec<u8>, Vec<(Vec<u8>, u32)>> = HashMap::default();
        for (i, f) in repo.files.iter().enumerate() {
            if f.lang.family() != Family::C {
                continue;
            }
            let rel = f.rel;
            // `c`: the start of a tail of the path, just after a `/` (or 0).
            let mut c = 0usize;
            loop {
                let dir = if c == 0 { &rel[..0] } else { &rel[..c - 1] };
                if dirs.contains(dir) {
                    let e = under_include.entry(rel[c..].to_vec()).or_default();
                    e.push((dir.to_vec(), i as u32));
                }
                match rel[c..].iter().position(|&b| b == b'/') {
                    Some(p) => c += p + 1,
                    None => break,
                }
            }
        }
        for v in under_include.values_mut() {
            v.sort_by(|a, b| depth(&a.0).cmp(&depth(&b.0)).then(a.0.cmp(&b.0)));
        }
        Resolver {
            under_include,
            definers,
            declarers,
            by_base,
            namespaces,
            includes: RefCell::new(HashMap::default()),
            closure: RefCell::default(),
        }
    }

    /// The files file `f`'s includes name.
    fn includes_of(&self, repo: &Repo, f: u32) -> Vec<u32> {
        if let Some(v) = self.includes.borrow().get(&f) {
            return v.clone();
        }
        let mut v: Vec<u32> = repo
            .facts(f)
            .imports
            .iter()
            .filter(|m| m.name.is_none())
            .filter_map(|m| self.include(repo, f, &m.module, m.level > 0))
            .collect();
        v.sort_unstable();
        v.dedup();
        self.includes.borrow_mut().insert(f, v.clone());
        v
    }

    /// Of the files in `xs` (sorted), those other than `f` that `f` includes, directly or not,
    /// in order. A name declared in thousands of files (the kernel's `init_module`) is matched
    /// against the few hundred a file includes, not the other way round.
    fn included_of(&self, repo: &Repo, f: u32, xs: &[u32]) -> Vec<u32> {
        let mut cache = self.closure.borrow_mut();
        let c = &mut *cache;
        if c.file != Some(f) {
            // Clear the previous file's bits, then set this one's.
            for &x in &c.sorted {
                c.bits[x as usize / 64] &= !(1u64 << (x % 64));
            }
            c.bits.resize(repo.files.len() / 64 + 1, 0);
            c.sorted.clear();
            let mut stack = vec![f];
            while let Some(y) = stack.pop() {
                for z in self.includes_of(repo, y) {
                    let (w, b) = (z as usize / 64, 1u64 << (z % 64));
                    if c.bits[w] & b == 0 {
                        c.bits[w] |= b;
                        c.sorted.push(z);
                        stack.push(z);
                    }
                }
            }
            c.sorted.sort_unstable();
            c.file = Some(f);
        }
        let has = |x: u32| c.bits[x as usize / 64] & (1u64 << (x % 64)) != 0;
        if xs.len() <= c.sorted.len() {
            xs.iter().copied().filter(|&x| x != f && has(x)).collect()
        } else {
            c.sorted.iter().copied().filter(|&x| x != f && xs.binary_search(&x).is_ok()).collect()
        }
    }

    /// The file an include names, for an include in file `from`.
    fn include(&self, repo: &Repo, from: u32, path: &str, quoted: bool) -> Option<u32> {
        let path = path.as_bytes();
        let here = parent_dir(repo.rel(from));
        if quoted && let Some(f) = join(here, path).and_then(|p| repo.file(&p)) {
            return Some(f);
        }
        let mut best: Option<(usize, u32)> = None;
        let norm = join(b"", path);
        for (d, f) in norm.as_ref().and_then(|p| self.under_include.get(p)).into_iter().flatten() {
            let score = common_prefix(here, d);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, *f));
            }
        }
        if let Some((_, f)) = best {
            return Some(f);
        }
        if !quoted {
            return None;
        }
        // `#include "sub/x.h"` built with an `-I` we do not know: the only file ending so.
        let base = crate::graph::base_name(path);
        let cands: Vec<u32> = self
            .by_base
            .get(base)?
            .iter()
            .copied()
            .filter(|&f| {
                let rel = repo.rel(f);
                rel.len() > path.len()
                    && rel.ends_with(path)
                    && rel[rel.len() - path.len() - 1] == b'/'
            })
            .collect();
        match cands.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The definitions a prototype of `name` in file `from` leads to.
    fn definitions(&self, repo: &Repo, from: u32, name: &str) -> Vec<u32> {
        let Some(all) = self.definers.get(name) else { return Vec::new() };
        let cands: Vec<u32> = all.iter().copied().filter(|&f| f != from).collect();
        if cands.len() <= 1 {
            return cands;
        }
        let rel = repo.rel(from);
        let own = stem(crate::graph::base_name(rel));
        let namesake: Vec<u32> = cands
            .iter()
            .copied()
            .filter(|&f| stem(crate::graph::base_name(repo.rel(f))) == own)
            .collect();
        if namesake.len() == 1 {
            return namesake;
        }
        let here = parent_dir(rel);
        let score = |f: u32| common_prefix(here, parent_dir(repo.rel(f)));
        let best = cands.iter().map(|&f| score(f)).max().unwrap_or(0);
        let near: Vec<u32> = cands.into_iter().filter(|&f| score(f) == best).collect();
        if near.len() <= MAX_DEFINERS { near } else { Vec::new() }
    }
}

impl scope::Resolver for Resolver {
    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32> {
        match imp.name.as_deref() {
            None => self.include(repo, file, &imp.module, imp.level > 0).into_iter().collect(),
            Some(n) if imp.module.is_empty() => self.definitions(repo, file, n),
            _ => Vec::new(),
        }
    }

    fn bound_name<'s>(&'s self, imp: &'s Import) -> Option<&'s str> {
        imp.name.as_deref()
    }

    fn included(&self, repo: &Repo, file: u32, name: &str) -> Vec<u32> {
        let Some(ds) = self.declarers.get(name) else { return Vec::new() };
        self.included_of(repo, file, ds)
    }

    fn implicit_members(&self) -> bool {
        true
    }

    fn instantiates(&self) -> bool {
        // A C struct's tag is no function (`struct stat` and `stat()`); C++ constructors are
        // called as `Foo.Foo` by the frontend.
        false
    }

    fn path_root(
        &self,
        _repo: &Repo,
        file: u32,
        _scope: Option<crate::extract::DefIdx>,
        name: &str,
    ) -> Vec<u32> {
        // `ns::f`: namespaces are no scopes of ours, `f` is looked up in what the file sees.
        if self.namespaces.contains(name) { vec![file] } else { Vec::new() }
    }
}

/// Adds file `f` to `name`'s files (once; files come in order), allocating the key only for a
/// name not seen before (a header's prototypes are declared again in many files).
fn add_file(map: &mut HashMap<String, Vec<u32>>, name: &str, f: u32) {
    match map.get_mut(name) {
        Some(v) => {
            if v.last() != Some(&f) {
                v.push(f);
            }
        }
        None => {
            map.insert(name.to_string(), vec![f]);
        }
    }
}

/// `dir/path` normalized (`.` and `..` resolved); None when it climbs out of the repository
/// or is absolute.
fn join(dir: &[u8], path: &[u8]) -> Option<Vec<u8>> {
    if path.starts_with(b"/") {
        return None;
    }
    crate::lang::join_path(dir, path)
}

/// Number of leading path components two directories share.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    a.split(|&c| c == b'/').zip(b.split(|&c| c == b'/')).take_while(|(x, y)| x == y).count()
}

fn depth(d: &[u8]) -> usize {
    d.iter().filter(|&&c| c == b'/').count()
}

/// A file name without its extension.
fn stem(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|&c| c == b'.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}

/// The repository directories that the `-I` flags of a `compile_commands.json` name. Build
/// directories are absolute paths of the machine that wrote the file: a path is mapped to the
/// longest of its tails that is a directory of the repository.
fn compile_command_dirs(repo: &Repo, text: &str) -> Vec<Vec<u8>> {
    let Ok(serde_json::Value::Array(entries)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        return Vec::new();
    };
    let mut seen: HashSet<String> = HashSet::default();
    let mut out = Vec::new();
    for e in &entries {
        let dir = e.get("directory").and_then(|d| d.as_str()).unwrap_or("");
        let args: Vec<String> = match (e.get("arguments"), e.get("command")) {
            (Some(serde_json::Value::Array(a)), _) => {
                a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()
            }
            (_, Some(serde_json::Value::String(c))) => {
                c.split_whitespace().map(str::to_string).collect()
            }
            _ => continue,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let p = match a.strip_prefix("-I") {
                Some("") => match it.next() {
                    Some(p) => p.clone(),
                    None => break,
                },
                Some(p) => p.to_string(),
                None => match a.as_str() {
                    "-isystem" | "-iquote" => match it.next() {
                        Some(p) => p.clone(),
                        None => break,
                    },
                    _ => continue,
                },
            };
            let abs = if p.starts_with('/') { p } else { format!("{dir}/{p}") };
            if !seen.insert(abs.clone()) {
                continue;
            }
            if let Some(d) = repo_dir(repo, &abs) {
                out.push(d);
            }
        }
    }
    out
}

/// The longest tail of an absolute path that is a directory of the repository holding files.
fn repo_dir(repo: &Repo, abs: &str) -> Option<Vec<u8>> {
    let norm = join(b"", abs.trim_start_matches('/').as_bytes())?;
    let comps: Vec<&[u8]> = norm.split(|&c| c == b'/').collect();
    for k in 0..comps.len() {
        let tail = comps[k..].join(&b'/');
        if !repo.dir_files(&tail).is_empty() {
            return Some(tail);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_relative_paths() {
        assert_eq!(join(b"src/a", b"../b/x.h").as_deref(), Some(&b"src/b/x.h"[..]));
        assert_eq!(join(b"", b"./x.h").as_deref(), Some(&b"x.h"[..]));
        assert_eq!(join(b"src", b"../../x.h"), None);
        assert_eq!(join(b"src", b"/usr/include/x.h"), None);
    }

    #[test]
    fn common_prefixes() {
        assert_eq!(common_prefix(b"arch/x86/kernel", b"arch/x86/include"), 2);
        assert_eq!(common_prefix(b"kernel", b"include"), 0);
        assert_eq!(common_prefix(b"", b"include"), 0);
    }
}
