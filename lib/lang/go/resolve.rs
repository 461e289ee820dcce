//! Go's module rules: import paths under a `go.mod` module path (longest match, plus local
//! `replace` directives) name a package directory, all of whose Go files they import; the files
//! of a directory that share a `package` clause see each other's top-level names.

use std::collections::HashMap;

use crate::extract::Import;
use crate::graph::scope::{self, Repo};
use crate::graph::{base_name, parent_dir};
use crate::lang::Lang;

/// Go's module rules for the linker (see [`crate::graph::scope`]).
pub struct Resolver {
    /// (import path prefix, directory it maps to), longest prefix first: each `go.mod`'s
    /// `module`, and its `replace` directives that point into the repository.
    modules: Vec<(String, Vec<u8>)>,
    /// Directory -> the package its non-test Go files declare.
    packages: HashMap<Vec<u8>, String>,
}

impl Resolver {
    /// Reads what the rules need from the repository.
    pub fn new(repo: &Repo) -> Resolver {
        let mut modules = Vec::new();
        for p in repo.projects_named("go.mod") {
            let dir = parent_dir(&p.rel).to_vec();
            let (module, replaces) = parse_go_mod(&p.text);
            if let Some(m) = module {
                modules.push((m, dir.clone()));
            }
            for (path, target) in replaces {
                if let Some(d) = join_dir(&dir, &target) {
                    modules.push((path, d));
                }
            }
        }
        modules.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        let mut packages: HashMap<Vec<u8>, String> = HashMap::new();
        for (i, f) in repo.files.iter().enumerate() {
            if f.lang != Lang::Go {
                continue;
            }
            let Some(pkg) = repo.facts(i as u32).package.as_deref() else { continue };
            if pkg.ends_with("_test") || pkg.is_empty() {
                continue;
            }
            let dir = parent_dir(f.rel);
            // A directory's `main` or stray `documentation` files lose to its real package.
            let keep = packages.get(dir).is_some_and(|p| p != "main" && p != "documentation");
            if !keep {
                packages.insert(dir.to_vec(), pkg.to_string());
            }
        }
        Resolver { modules, packages }
    }

    /// The repository directory an import path names, if it is under a module of the
    /// repository.
    fn dir_of(&self, path: &str) -> Option<Vec<u8>> {
        for (m, dir) in &self.modules {
            let rest = if path == m {
                ""
            } else if let Some(r) = path.strip_prefix(m.as_str()).and_then(|r| r.strip_prefix('/'))
            {
                r
            } else {
                continue;
            };
            let mut d = dir.clone();
            if !rest.is_empty() {
                if !d.is_empty() {
                    d.push(b'/');
                }
                d.extend_from_slice(rest.as_bytes());
            }
            return Some(d);
        }
        // The standard library's go.mod says `module std`, yet its packages are imported by
        // their path below it with no prefix (`net/http`): such a path names a directory
        // there when one holds a package.
        for (m, dir) in &self.modules {
            if m == "std"
                && !path.split('/').next().unwrap_or("").contains('.')
                && let Some(d) = join_dir(dir, path)
                && self.packages.contains_key(&d)
            {
                return Some(d);
            }
        }
        None
    }
}

/// A `go.mod`'s module path and its `replace` directives with a local target.
fn parse_go_mod(text: &str) -> (Option<String>, Vec<(String, String)>) {
    let mut module = None;
    let mut replaces = Vec::new();
    let mut in_replace = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if in_replace {
            if line.starts_with(')') {
                in_replace = false;
            } else if let Some(r) = replace_of(line) {
                replaces.push(r);
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("module") {
            let m = rest.trim().trim_matches('"');
            if !m.is_empty() && module.is_none() && rest.starts_with([' ', '\t', '"']) {
                module = Some(m.to_string());
            }
        } else if let Some(rest) = line.strip_prefix("replace") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                in_replace = true;
            } else if let Some(r) = replace_of(rest) {
                replaces.push(r);
            }
        }
    }
    (module, replaces)
}

/// `a/b [v1] => ../b`: (import path, local directory) when the target is a local path.
fn replace_of(line: &str) -> Option<(String, String)> {
    let (from, to) = line.split_once("=>")?;
    let path = from.split_whitespace().next()?.trim_matches('"');
    let target = to.split_whitespace().next()?.trim_matches('"');
    if target.starts_with("./") || target.starts_with("../") || target == "." || target == ".." {
        Some((path.to_string(), target.to_string()))
    } else {
        None
    }
}

/// `dir` joined with a relative path ([`crate::lang::join_path`]).
fn join_dir(dir: &[u8], rel: &str) -> Option<Vec<u8>> {
    crate::lang::join_path(dir, rel.as_bytes())
}

/// The last element of an import path, a major-version suffix skipped: `a/b/v2` -> `b`,
/// `gopkg.in/yaml.v3` -> `yaml`.
fn last_element(path: &str) -> Option<&str> {
    let mut it = path.rsplit('/').filter(|s| !s.is_empty());
    let mut last = it.next()?;
    let is_major =
        |s: &str| s.len() > 1 && s.starts_with('v') && s[1..].bytes().all(|c| c.is_ascii_digit());
    if is_major(last) {
        last = it.next()?;
    }
    if path.starts_with("gopkg.in/")
        && let Some((base, v)) = last.rsplit_once('.')
        && is_major(v)
    {
        last = base;
    }
    Some(last)
}

fn is_test_file(rel: &[u8]) -> bool {
    base_name(rel).ends_with(b"_test.go")
}

fn is_go(rel: &[u8]) -> bool {
    Lang::of_name(rel) == Some(Lang::Go)
}

impl scope::Resolver for Resolver {
    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32> {
        let Some(dir) = self.dir_of(&imp.module) else { return Vec::new() };
        // `_test.go` files are compiled only by `go test`: an importer sees them only when it
        // is itself a test file of that directory (an external `x_test` package).
        let importer = repo.rel(file);
        let tests_too = is_test_file(importer) && parent_dir(importer) == dir.as_slice();
        repo.dir_files(&dir)
            .iter()
            .copied()
            .filter(|&f| is_go(base_name(repo.rel(f))))
            .filter(|&f| tests_too || !is_test_file(repo.rel(f)))
            .filter(|&f| !repo.facts(f).package.as_deref().is_some_and(|p| p.ends_with("_test")))
            .collect()
    }

    fn package_files(&self, repo: &Repo, file: u32) -> Vec<u32> {
        let rel = repo.rel(file);
        let pkg = repo.facts(file).package.as_deref();
        // A package's test files see the rest of it; its other files do not see them.
        let tests_too = is_test_file(rel);
        repo.dir_files(parent_dir(rel))
            .iter()
            .copied()
            .filter(|&f| is_go(base_name(repo.rel(f))) && repo.facts(f).package.as_deref() == pkg)
            .filter(|&f| tests_too || !is_test_file(repo.rel(f)))
            .collect()
    }

    fn bound_name<'s>(&'s self, imp: &'s Import) -> Option<&'s str> {
        if let Some(a) = &imp.alias {
            return (a != "_").then_some(a.as_str());
        }
        if imp.name.is_some() {
            return None; // `import . "x"`: its names, not a package name
        }
        let last = last_element(&imp.module);
        let declared = self.dir_of(&imp.module).and_then(|d| self.packages.get(&d));
        match declared {
            // The declared name, which need not be the path's last element.
            Some(p) if Some(p.as_str()) != last => Some(p.as_str()),
            _ => last,
        }
    }

    fn instantiates(&self) -> bool {
        false
    }

    fn implicit_members(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_mod_and_import_paths() {
        let (m, r) = parse_go_mod(
            "// c\nmodule \"example.com/x\" // trailing\n\nrequire a.b/c v1.0.0\nreplace a.b/c => ../c\nreplace (\n\ta.b/d v1 => ./third/d\n\ta.b/e => a.b/f v2\n)\n",
        );
        assert_eq!(m.as_deref(), Some("example.com/x"));
        assert_eq!(
            r,
            [("a.b/c".to_string(), "../c".to_string()), ("a.b/d".into(), "./third/d".into())]
        );
        assert_eq!(join_dir(b"sub/mod", "../c"), Some(b"sub/c".to_vec()));
        assert_eq!(join_dir(b"", "../c"), None);
        assert_eq!(last_element("github.com/a/b/v2"), Some("b"));
        assert_eq!(last_element("gopkg.in/yaml.v3"), Some("yaml"));
        assert_eq!(last_element("fmt"), Some("fmt"));
        assert_eq!(last_element("example.com/v1x"), Some("v1x"));
    }
}
