//! Ruby's load-path and constant rules for the linker's driver ([`crate::graph::scope`]).
//!
//! * **Files.** `require_relative "x"` (and `File.expand_path("../x", __FILE__)`) is `x.rb`
//!   beside the requiring file. `require "a/b"` is `a/b.rb` under a load path: the `lib/`
//!   directories of the tree (a gem's `require_paths` default; a monorepo has one per gem),
//!   `app/*/` (Rails), `spec/` and `test/` (what RSpec and minitest add), then the root; where
//!   several gems provide the feature, the one sharing most of the requiring file's path. A
//!   required file's top-level definitions are visible (it is a wildcard import).
//! * **Constants.** A constant path (`Foo`, `Foo::Bar`, written `Foo.Bar` in the facts) is
//!   looked up as Ruby does: under each module or class lexically enclosing the reference,
//!   innermost first (`Module.nesting`: `class A::B` encloses as `A::B`, not `A`), then at the
//!   top level. Constants are global, so every file defining the path counts (a class reopened
//!   in several files is a node per file); the file Zeitwerk and Rails would autoload it from
//!   (`Foo::BarBaz` -> `foo/bar_baz.rb` under a load path) comes first. A constant path that no
//!   file defines is outside the repository: its methods are never guessed.
//! * **Guesses.** A method called on a receiver of unknown type is linked (as a guess) only to
//!   the methods of that name in the caller's file and the files it requires, never to the
//!   only one of its name elsewhere: most such receivers are library objects.

use std::collections::HashMap;

use crate::extract::{DefIdx, DefKind, FileFacts, Import};
use crate::graph::scope::{self, Repo};
use crate::lang::Lang;

/// Most definitions returned for one constant (the driver's own cap on alternatives).
const MAX_DEFS: usize = 8;

/// Methods of Ruby's core classes (Object, Kernel, Enumerable, String, Array, Hash, IO): a
/// receiver of unknown type calling one says nothing about its class, so these are never
/// guessed.
const COMMON_METHODS: &[&str] = &[
    "==",
    "===",
    "=~",
    "[]",
    "[]=",
    "<<",
    "<=>",
    "+",
    "-",
    "*",
    "/",
    "!",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "all?",
    "any?",
    "call",
    "class",
    "clear",
    "close",
    "collect",
    "compact",
    "concat",
    "count",
    "delete",
    "detect",
    "downcase",
    "dup",
    "each",
    "each_pair",
    "each_with_index",
    "each_with_object",
    "empty?",
    "end_with?",
    "eql?",
    "equal?",
    "exist?",
    "fetch",
    "filter",
    "filter_map",
    "find",
    "first",
    "flat_map",
    "flatten",
    "freeze",
    "frozen?",
    "gsub",
    "has_key?",
    "hash",
    "include?",
    "inject",
    "inspect",
    "instance_of?",
    "is_a?",
    "join",
    "key?",
    "keys",
    "kind_of?",
    "last",
    "length",
    "map",
    "match",
    "match?",
    "max",
    "merge",
    "merge!",
    "min",
    "new",
    "nil?",
    "none?",
    "pop",
    "present?",
    "blank?",
    "push",
    "read",
    "reduce",
    "reject",
    "respond_to?",
    "reverse",
    "select",
    "send",
    "shift",
    "size",
    "sort",
    "sort_by",
    "split",
    "start_with?",
    "strip",
    "sub",
    "sum",
    "tap",
    "then",
    "to_a",
    "to_h",
    "to_i",
    "to_f",
    "to_s",
    "to_str",
    "to_sym",
    "to_proc",
    "uniq",
    "unshift",
    "upcase",
    "update",
    "values",
    "write",
    "zip",
    "public_send",
    "instance_variable_get",
    "instance_variable_set",
    "freeze",
    "puts",
    "print",
    "format",
    "raise",
];

/// Ruby's rules for the linker (see [`crate::graph::scope`]).
pub struct Resolver {
    /// Feature name (`a/b` for `lib/a/b.rb`) -> the files providing it.
    features: HashMap<String, Vec<u32>>,
    /// Constant path (`A.B`) -> the class and module definitions of it, in every file.
    consts: HashMap<String, Vec<(u32, DefIdx)>>,
    /// Every leading part of a defined constant path (`A` for `A.B`), and the paths themselves.
    prefixes: std::collections::HashSet<String>,
}

/// Whether directory `dir` is a load path: `lib/`, `app/*/`, `spec/`, `test/`, or the root.
fn is_load_path(dir: &[u8]) -> bool {
    let mut comps = dir.rsplit(|&c| c == b'/');
    let last = comps.next().unwrap_or(b"");
    let parent = comps.next();
    dir.is_empty() || matches!(last, b"lib" | b"spec" | b"test") || parent == Some(b"app")
}

/// `Foo::BarBaz` -> `foo/bar_baz` (ActiveSupport's `underscore`: `HTTPClient` -> `http_client`).
pub fn underscore(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    for (k, seg) in path.split('.').enumerate() {
        if k > 0 {
            out.push('/');
        }
        let cs: Vec<char> = seg.chars().collect();
        for (i, &c) in cs.iter().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                let prev = cs[i - 1];
                let next_lower = cs.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    out.push('_');
                }
            }
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// Whether a segment of a chain names a constant (starts with an uppercase letter).
fn is_const(seg: &str) -> bool {
    seg.starts_with(|c: char| c.is_ascii_uppercase())
}

/// `a/b/../c` -> `a/c`; None when it leaves the repository.
fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            c => out.push(c),
        }
    }
    Some(out.join("/"))
}

/// The dotted qualified name of definition `i` when every definition enclosing it is a class or
/// module (a constant path), else None.
fn const_qual(facts: &FileFacts, i: DefIdx) -> Option<String> {
    let mut cur = Some(i);
    while let Some(c) = cur {
        let d = &facts.defs[c as usize];
        if d.kind != DefKind::Class {
            return None;
        }
        cur = d.parent;
    }
    Some(facts.qual_name(i))
}

impl Resolver {
    /// Reads what the rules need from the repository.
    pub fn new(repo: &Repo) -> Resolver {
        let mut features: HashMap<String, Vec<u32>> = HashMap::new();
        let mut consts: HashMap<String, Vec<(u32, DefIdx)>> = HashMap::new();
        let mut prefixes = std::collections::HashSet::new();
        for (i, f) in repo.files.iter().enumerate() {
            if f.lang != Lang::Ruby {
                continue;
            }
            let rel = String::from_utf8_lossy(f.rel);
            if let Some(stem) = rel.strip_suffix(".rb") {
                // Every load path above the file gives it a feature name.
                let mut dir = stem;
                loop {
                    let (d, _) = dir.rsplit_once('/').unwrap_or(("", dir));
                    if is_load_path(d.as_bytes()) {
                        let feature = if d.is_empty() { stem } else { &stem[d.len() + 1..] };
                        features.entry(feature.to_string()).or_default().push(i as u32);
                    }
                    if d.is_empty() {
                        break;
                    }
                    dir = d;
                }
            }
            for (di, d) in f.facts.defs.iter().enumerate() {
                if d.kind != DefKind::Class {
                    continue;
                }
                let Some(q) = const_qual(f.facts, di as DefIdx) else { continue };
                for (k, _) in q.match_indices('.') {
                    prefixes.insert(q[..k].to_string());
                }
                prefixes.insert(q.clone());
                consts.entry(q).or_default().push((i as u32, di as DefIdx));
            }
        }
        Resolver { features, consts, prefixes }
    }

    /// The definitions of constant path `q` (already found in the table), the file referring
    /// to it first, then the file it would be autoloaded from, then the rest.
    fn defs_of(&self, repo: &Repo, from: u32, q: &str) -> Vec<(u32, DefIdx)> {
        let Some(all) = self.consts.get(q) else { return Vec::new() };
        let canonical = format!("{}.rb", underscore(q));
        let last = format!("/{}.rb", underscore(q.rsplit('.').next().unwrap_or(q)));
        let rank = |f: u32| -> u8 {
            let rel = repo.rel(f);
            if f == from {
                0
            } else if rel.ends_with(canonical.as_bytes())
                && (rel.len() == canonical.len() || rel[rel.len() - canonical.len() - 1] == b'/')
            {
                1
            } else if rel.ends_with(last.as_bytes()) {
                2
            } else {
                3
            }
        };
        let mut v = all.clone();
        v.sort_by_key(|&(f, d)| (rank(f), f, d));
        v.truncate(MAX_DEFS);
        v
    }
}

/// How many leading path components two relative paths share.
fn shared_dirs(a: &[u8], b: &[u8]) -> usize {
    a.split(|&c| c == b'/').zip(b.split(|&c| c == b'/')).take_while(|(x, y)| x == y).count()
}

impl scope::Resolver for Resolver {
    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32> {
        let m = imp.module.strip_suffix(".rb").unwrap_or(&imp.module);
        if m.is_empty() {
            return Vec::new();
        }
        if imp.level > 0 {
            let dir = String::from_utf8_lossy(crate::graph::parent_dir(repo.rel(file)));
            let Some(p) = normalize(&format!("{dir}/{m}")) else { return Vec::new() };
            return repo.file(format!("{p}.rb").as_bytes()).into_iter().collect();
        }
        let Some(cands) = self.features.get(m) else { return Vec::new() };
        let from = repo.rel(file);
        cands
            .iter()
            .copied()
            .max_by_key(|&c| (shared_dirs(repo.rel(c), from), std::cmp::Reverse(repo.rel(c).len())))
            .into_iter()
            .collect()
    }

    /// `require` binds no name: everything the file defines is global.
    fn bound_name<'s>(&'s self, _imp: &'s Import) -> Option<&'s str> {
        None
    }

    fn implicit_members(&self) -> bool {
        true
    }

    fn common_methods(&self) -> &'static [&'static str] {
        COMMON_METHODS
    }

    /// `node.keyword` on an object of a library: not the one `keyword` method of the tree.
    fn guess_anywhere(&self) -> bool {
        false
    }

    fn constant(
        &self,
        repo: &Repo,
        file: u32,
        scope: Option<DefIdx>,
        chain: &str,
    ) -> Option<(usize, Vec<(u32, DefIdx)>)> {
        let segs: Vec<&str> = chain.split('.').take_while(|s| is_const(s)).collect();
        if segs.is_empty() {
            return None;
        }
        // Module.nesting: the constant paths of the enclosing classes and modules.
        let facts = repo.facts(file);
        let mut nesting: Vec<String> = Vec::new();
        let mut s = scope;
        while let Some(o) = s {
            let d = &facts.defs[o as usize];
            if d.kind == DefKind::Class
                && let Some(q) = const_qual(facts, o)
            {
                nesting.push(q);
            }
            s = d.parent;
        }
        nesting.push(String::new());
        for p in &nesting {
            let mut cur =
                if p.is_empty() { segs[0].to_string() } else { format!("{p}.{}", segs[0]) };
            if !self.prefixes.contains(&cur) {
                continue;
            }
            let mut best = self.consts.contains_key(&cur).then_some(1);
            let mut best_q = cur.clone();
            for (k, seg) in segs.iter().enumerate().skip(1) {
                cur.push('.');
                cur.push_str(seg);
                if !self.prefixes.contains(&cur) {
                    break;
                }
                if self.consts.contains_key(&cur) {
                    best = Some(k + 1);
                    best_q = cur.clone();
                }
            }
            return Some(match best {
                Some(k) => (k, self.defs_of(repo, file, &best_q)),
                // Only ever written as the scope of `class A::B`: defined outside the repository.
                None => (1, Vec::new()),
            });
        }
        Some((1, Vec::new()))
    }
}
