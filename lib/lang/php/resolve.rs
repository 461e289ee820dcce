//! PHP's module rules: a class or function is found by its fully qualified name, first through
//! the PSR-4 and PSR-0 maps of every `composer.json` in the repository (`autoload` and
//! `autoload-dev`; a monorepo's packages each have one), then among the files that declare it
//! (which covers `classmap`, `files` and code without Composer). The files of one namespace see
//! each other's classes for receivers of unknown type; `require`/`include` of a literal path
//! names a file relative to the including one (or the repository root).

use std::cell::RefCell;
use std::collections::HashMap;

use crate::extract::{DefIdx, Import, ImportForm};
use crate::graph::parent_dir;
use crate::graph::scope::{self, Repo};
use crate::lang::Lang;

/// Most files of a namespace that one file sees for receivers of unknown type (a large global
/// namespace is narrowed to the file's own directory).
const MAX_NAMESPACE_FILES: usize = 256;

/// PHP's rules for the linker (see [`crate::graph::scope`] and the module docs of
/// [`crate::lang::php`] for how names reach it).
pub struct Resolver {
    /// Lowercased fully qualified name of a top-level class-like or function -> the files that
    /// declare it (PHP's names are case-insensitive).
    decls: HashMap<String, Vec<u32>>,
    /// Lowercased namespace (empty: the global one) -> its PHP files.
    namespaces: HashMap<String, Vec<u32>>,
    /// PSR-4 maps: (namespace prefix with its trailing `\`, or empty for a fallback directory,
    /// directory), longest prefix first.
    psr4: Vec<(String, Vec<u8>)>,
    /// PSR-0 maps, likewise (the prefix stays part of the path).
    psr0: Vec<(String, Vec<u8>)>,
    /// Names already looked up by [`scope::Resolver::path_root`].
    memo: RefCell<HashMap<String, Vec<u32>>>,
}

impl Resolver {
    /// Reads what the rules need from the repository.
    pub fn new(repo: &Repo) -> Resolver {
        let mut decls: HashMap<String, Vec<u32>> = HashMap::new();
        let mut namespaces: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, f) in repo.files.iter().enumerate() {
            if f.lang != Lang::Php {
                continue;
            }
            let ns = f.facts.package.as_deref().unwrap_or("").to_ascii_lowercase();
            namespaces.entry(ns.clone()).or_default().push(i as u32);
            for d in f.facts.defs.iter().filter(|d| d.parent.is_none()) {
                let key = if ns.is_empty() {
                    d.name.to_ascii_lowercase()
                } else {
                    format!("{ns}\\{}", d.name.to_ascii_lowercase())
                };
                let v = decls.entry(key).or_default();
                if v.last() != Some(&(i as u32)) {
                    v.push(i as u32);
                }
            }
        }
        let mut psr4 = Vec::new();
        let mut psr0 = Vec::new();
        for p in repo.projects_named("composer.json") {
            let dir = parent_dir(&p.rel);
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&p.text) else { continue };
            for section in ["autoload", "autoload-dev"] {
                let Some(a) = json.get(section) else { continue };
                for (key, out) in [("psr-4", &mut psr4), ("psr-0", &mut psr0)] {
                    let Some(map) = a.get(key).and_then(|m| m.as_object()) else { continue };
                    for (prefix, dirs) in map {
                        let dirs: Vec<&str> = match dirs {
                            serde_json::Value::String(s) => vec![s.as_str()],
                            serde_json::Value::Array(a) => {
                                a.iter().filter_map(|v| v.as_str()).collect()
                            }
                            _ => Vec::new(),
                        };
                        for d in dirs {
                            if let Some(joined) = join_dir(dir, d) {
                                out.push((prefix.clone(), joined));
                            }
                        }
                    }
                }
            }
        }
        for m in [&mut psr4, &mut psr0] {
            m.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
            m.dedup();
        }
        Resolver { decls, namespaces, psr4, psr0, memo: RefCell::new(HashMap::new()) }
    }

    /// The files of class (or function) `fqn` (no leading backslash): where the autoload maps
    /// put it, else those that declare it.
    fn class_files(&self, repo: &Repo, fqn: &str) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        for (prefix, dir) in &self.psr4 {
            let Some(rest) = fqn.strip_prefix(prefix.as_str()) else { continue };
            if let Some(f) = php_file(repo, dir, &rest.replace('\\', "/"))
                && !out.contains(&f)
            {
                out.push(f);
            }
        }
        for (prefix, dir) in &self.psr0 {
            if !fqn.starts_with(prefix.as_str()) {
                continue;
            }
            // `A\B\C_D` -> `A/B/C/D.php`: a class name's underscores are directories too.
            let (ns, class) = fqn.rsplit_once('\\').unwrap_or(("", fqn));
            let mut path = ns.replace('\\', "/");
            if !path.is_empty() {
                path.push('/');
            }
            path.push_str(&class.replace('_', "/"));
            if let Some(f) = php_file(repo, dir, &path)
                && !out.contains(&f)
            {
                out.push(f);
            }
        }
        if out.is_empty() {
            out = self.decls.get(&fqn.to_ascii_lowercase()).cloned().unwrap_or_default();
        }
        out
    }

    /// The files a head the frontend wrote (`\A\B\C`, or `A\f` for an unqualified function of
    /// namespace `A`, which falls back to the global `f`) names.
    fn lookup(&self, repo: &Repo, name: &str) -> Vec<u32> {
        let fallback = !name.starts_with('\\');
        let fqn = name.trim_start_matches('\\');
        let mut files = self.class_files(repo, fqn);
        if files.is_empty() && fallback {
            let last = fqn.rsplit('\\').next().unwrap_or(fqn);
            files = self.decls.get(&last.to_ascii_lowercase()).cloned().unwrap_or_default();
        }
        files
    }

    /// The file a `require`/`include` names: `./x` relative to the including file only,
    /// anything else relative to it and then to the repository root.
    fn include_files(&self, repo: &Repo, file: u32, path: &str) -> Vec<u32> {
        if path.starts_with('/') || path.contains("://") {
            return Vec::new();
        }
        let dir = parent_dir(repo.rel(file));
        let mut tries = vec![join_dir(dir, path)];
        if !path.starts_with("./") {
            tries.push(join_dir(b"", path));
        }
        tries.into_iter().flatten().filter_map(|rel| repo.file(&rel)).take(1).collect()
    }
}

/// The PHP file `dir/path.php` of the repository.
fn php_file(repo: &Repo, dir: &[u8], path: &str) -> Option<u32> {
    let mut rel = join_dir(dir, path)?;
    rel.extend_from_slice(b".php");
    repo.file(&rel).filter(|&f| repo.files[f as usize].lang == Lang::Php)
}

/// `dir` joined with a relative path ([`crate::lang::join_path`]).
fn join_dir(dir: &[u8], rel: &str) -> Option<Vec<u8>> {
    crate::lang::join_path(dir, rel.as_bytes())
}

/// Magic methods and the names every PHP collection or container has: a receiver of unknown
/// type calling one says nothing about its class, so these are never guessed.
const COMMON_METHODS: &[&str] = &[
    "__construct",
    "__destruct",
    "__call",
    "__callStatic",
    "__get",
    "__set",
    "__isset",
    "__unset",
    "__toString",
    "__invoke",
    "__clone",
    "__serialize",
    "__unserialize",
    "__sleep",
    "__wakeup",
    "offsetGet",
    "offsetSet",
    "offsetExists",
    "offsetUnset",
    "getIterator",
    "jsonSerialize",
    "toArray",
    "all",
    "has",
    "set",
    "getName",
];

impl scope::Resolver for Resolver {
    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32> {
        let Some(name) = imp.name.as_deref() else {
            return self.include_files(repo, file, &imp.module);
        };
        let fqn = if imp.module.is_empty() {
            name.to_string()
        } else {
            format!("{}\\{name}", imp.module)
        };
        if imp.form == ImportForm::Static {
            // `use function A\f;`
            return self.decls.get(&fqn.to_ascii_lowercase()).cloned().unwrap_or_default();
        }
        let files = self.class_files(repo, &fqn);
        if !files.is_empty() {
            return files;
        }
        // `use A\B;` of a namespace (for `B\C` later): its files.
        let mut ns = self.namespaces.get(&fqn.to_ascii_lowercase()).cloned().unwrap_or_default();
        ns.truncate(MAX_NAMESPACE_FILES);
        ns
    }

    fn package_files(&self, repo: &Repo, file: u32) -> Vec<u32> {
        let f = &repo.files[file as usize];
        if f.lang != Lang::Php {
            return Vec::new();
        }
        let ns = f.facts.package.as_deref().unwrap_or("").to_ascii_lowercase();
        let Some(files) = self.namespaces.get(&ns) else { return Vec::new() };
        if files.len() <= MAX_NAMESPACE_FILES {
            return files.clone();
        }
        let dir = parent_dir(f.rel);
        files.iter().copied().filter(|&g| parent_dir(repo.rel(g)) == dir).collect()
    }

    /// Names are bound by the frontend, which writes every class and function reference as
    /// the chain of its fully qualified name: imports bind nothing in the driver.
    fn bound_name<'s>(&'s self, _imp: &'s Import) -> Option<&'s str> {
        None
    }

    fn module_is_class(&self, _imp: &Import) -> bool {
        false
    }

    fn path_root(&self, repo: &Repo, _file: u32, _scope: Option<DefIdx>, name: &str) -> Vec<u32> {
        if !name.contains('\\') {
            return Vec::new();
        }
        if let Some(v) = self.memo.borrow().get(name) {
            return v.clone();
        }
        let v = self.lookup(repo, name);
        self.memo.borrow_mut().insert(name.to_string(), v.clone());
        v
    }

    /// A qualified name that no file declares is a class or function of PHP or a dependency.
    fn outside(&self, name: &str) -> bool {
        name.contains('\\')
    }

    fn common_methods(&self) -> &'static [&'static str] {
        COMMON_METHODS
    }
}
