//! Languages cds understands.
//!
//! Split by who may link it:
//!
//! * **The table** (this file's [`Lang`] and [`Spec`]): names, stable codes, file globs and code
//!   fences. No tree-sitter type, so every tool may use it (the walker, `cds-fmt`'s fences,
//!   language counts in summaries).
//! * **Frontends** (`lang/<lang>.rs`, reached through [`Extractors`] from `lib/build` only): the
//!   grammar, `queries/<lang>/*.scm`, and the Rust that reads the shapes a query cannot express,
//!   producing the language-neutral [`FileFacts`]. JS, TS and TSX share `js.rs`; C and C++
//!   share `c/`.
//! * **Resolvers** (the same files, behind [`crate::graph::scope::Resolver`]): the language's
//!   module and scoping rules (where an import leads, which files share a namespace, what the
//!   receiver of a method is called). The linker's driver does the rest, the same for every
//!   language; Python keeps its own, older resolution (`graph::link`), which LocAgent parity and
//!   its tests pin down.

pub mod c;
pub mod go;
pub mod java;
pub mod js;
pub mod matcher;
pub mod php;
pub mod python;
pub mod ruby;
pub mod rust;

use std::path::Path;

use crate::extract::FileFacts;

/// A source language. The discriminant is stored in the index (`file_lang`): never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Lang {
    /// Python 3 (and the Python 2 it can recover from).
    Python = 1,
    /// JavaScript, with JSX (`.js .jsx .mjs .cjs`).
    JavaScript = 2,
    /// TypeScript (`.ts .mts .cts`, declaration files included).
    TypeScript = 3,
    /// TypeScript with JSX (`.tsx`).
    Tsx = 4,
    /// Java.
    Java = 5,
    /// Go.
    Go = 6,
    /// Rust.
    Rust = 7,
    /// C (`.c`, and `.h` in a repository without C++ sources).
    C = 8,
    /// C++ (`.cc .cpp .cxx .c++ .hpp .hh .hxx .h++`, and `.h` beside C++ sources).
    Cpp = 9,
    /// Ruby (`.rb .rake .gemspec`, `Rakefile`, `Gemfile`).
    Ruby = 10,
    /// PHP (`.php`; HTML around `?>` is text).
    Php = 11,
}

/// How resolution groups languages: files of one family see each other's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Python.
    Python,
    /// JavaScript and TypeScript (one module system).
    Js,
    /// Java.
    Java,
    /// Go.
    Go,
    /// Rust.
    Rust,
    /// C and C++ (one family: they include each other's headers).
    C,
    /// Ruby.
    Ruby,
    /// PHP.
    Php,
}

/// What the tools know of a language without its grammar.
#[derive(Debug)]
pub struct Spec {
    /// Name in flags, JSON, summaries and messages (`tsx` files count as `typescript`).
    pub name: &'static str,
    /// File extensions (without the dot).
    pub extensions: &'static [&'static str],
    /// The info string of a Markdown code fence.
    pub fence: &'static str,
    /// The resolution family.
    pub family: Family,
}

const PYTHON: Spec =
    Spec { name: "python", extensions: &["py"], fence: "python", family: Family::Python };
const JAVASCRIPT: Spec = Spec {
    name: "javascript",
    extensions: &["js", "jsx", "mjs", "cjs"],
    fence: "javascript",
    family: Family::Js,
};
const TYPESCRIPT: Spec = Spec {
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    fence: "typescript",
    family: Family::Js,
};
const TSX: Spec =
    Spec { name: "typescript", extensions: &["tsx"], fence: "tsx", family: Family::Js };
const JAVA: Spec =
    Spec { name: "java", extensions: &["java"], fence: "java", family: Family::Java };
const GO: Spec = Spec { name: "go", extensions: &["go"], fence: "go", family: Family::Go };
const RUST: Spec = Spec { name: "rust", extensions: &["rs"], fence: "rust", family: Family::Rust };
const C: Spec = Spec { name: "c", extensions: &["c", "h"], fence: "c", family: Family::C };
const CPP: Spec = Spec {
    name: "cpp",
    extensions: &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++"],
    fence: "cpp",
    family: Family::C,
};

const RUBY: Spec = Spec {
    name: "ruby",
    extensions: &["rb", "rake", "gemspec"],
    fence: "ruby",
    family: Family::Ruby,
};

/// Source files known by their whole name, not an extension.
const BY_NAME: &[(&str, Lang)] = &[("Rakefile", Lang::Ruby), ("Gemfile", Lang::Ruby)];
const PHP: Spec = Spec { name: "php", extensions: &["php"], fence: "php", family: Family::Php };

impl Lang {
    /// Every language, in code order.
    pub const ALL: [Lang; 11] = [
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Java,
        Lang::Go,
        Lang::Rust,
        Lang::C,
        Lang::Cpp,
        Lang::Ruby,
        Lang::Php,
    ];

    /// What the tools know of it.
    pub fn spec(self) -> &'static Spec {
        match self {
            Lang::Python => &PYTHON,
            Lang::JavaScript => &JAVASCRIPT,
            Lang::TypeScript => &TYPESCRIPT,
            Lang::Tsx => &TSX,
            Lang::Java => &JAVA,
            Lang::Go => &GO,
            Lang::Rust => &RUST,
            Lang::C => &C,
            Lang::Cpp => &CPP,
            Lang::Ruby => &RUBY,
            Lang::Php => &PHP,
        }
    }

    /// The language of a path, by extension.
    pub fn of_path(path: &Path) -> Option<Lang> {
        Lang::of_name(path.file_name()?.as_encoded_bytes())
    }

    /// The language of a file name (or `/`-separated relative path), by extension, or by the
    /// whole name for the few files that have none (`Rakefile`).
    pub fn of_name(name: &[u8]) -> Option<Lang> {
        let base = name.rsplit(|&c| c == b'/').next().unwrap_or(name);
        if let Some(&(_, l)) = BY_NAME.iter().find(|(n, _)| n.as_bytes() == base) {
            return Some(l);
        }
        let dot = base.iter().rposition(|&c| c == b'.')?;
        let ext = &base[dot + 1..];
        Lang::ALL.into_iter().find(|l| l.spec().extensions.iter().any(|e| e.as_bytes() == ext))
    }

    /// Whether a line (trimmed) closes a body in this language, so a skeleton that hides the
    /// body keeps it: `}` (`};`, `})`) in brace languages, `end` in Ruby.
    pub fn closes_block(self, line: &[u8]) -> bool {
        match self {
            Lang::Ruby => line == b"end" || line.starts_with(b"end ") || line.starts_with(b"end."),
            _ => !line.is_empty() && line.len() <= 3 && line[0] == b'}',
        }
    }

    /// Stable code stored in the index's file table.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The language of a stored code.
    pub fn from_code(code: u8) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.code() == code)
    }

    /// Name for messages, JSON and summaries.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The resolution family.
    pub fn family(self) -> Family {
        self.spec().family
    }
}

/// Which language a `.h` header is, decided once the walk has seen every path (the extension
/// says C or C++ everywhere else; [`Lang::of_name`] goes by the extension alone).
///
/// A header is C++ in a repository with C++ sources (DESIGN §8), unless those are a small
/// minority of its C and C++ sources (under a tenth: a C project's C++ tool or example, such as
/// the kernel's `scripts/kconfig/qconf.cc` or micropython's C++ user module), where headers stay
/// C except beside a C++ source (in its directory).
#[derive(Debug, Default)]
pub struct Headers {
    /// C++ sources are not a small minority: every header is C++.
    all_cpp: bool,
    /// Directories holding a C++ source.
    cpp_dirs: std::collections::HashSet<Vec<u8>>,
}

impl Headers {
    /// The rule for a repository, from its files' relative paths and languages by extension.
    pub fn new<'a>(files: impl IntoIterator<Item = (&'a [u8], Lang)>) -> Headers {
        let (mut c, mut cpp) = (0usize, 0usize);
        let mut cpp_dirs = std::collections::HashSet::new();
        for (rel, lang) in files {
            let header = rel.ends_with(b".h") || rel.ends_with(b".hpp") || rel.ends_with(b".hh");
            match lang {
                Lang::C if !header => c += 1,
                Lang::Cpp if !header && !rel.ends_with(b".hxx") && !rel.ends_with(b".h++") => {
                    cpp += 1;
                    let dir = rel.iter().rposition(|&b| b == b'/').map_or(&rel[..0], |i| &rel[..i]);
                    cpp_dirs.insert(dir.to_vec());
                }
                _ => {}
            }
        }
        Headers { all_cpp: cpp > 0 && cpp * 10 >= c + cpp, cpp_dirs }
    }

    /// The language of file `rel`, whose extension gave `lang`.
    pub fn lang(&self, rel: &[u8], lang: Lang) -> Lang {
        if lang != Lang::C || !rel.ends_with(b".h") {
            return lang;
        }
        let dir = rel.iter().rposition(|&b| b == b'/').map_or(&rel[..0], |i| &rel[..i]);
        if self.all_cpp || self.cpp_dirs.contains(dir) { Lang::Cpp } else { Lang::C }
    }
}

/// Repository directory `dir` joined with the relative path `rel`, its `.` and `..` steps
/// taken; None when it climbs above the root. (Include, `replace` and autoload targets, and
/// paths users type.)
pub fn join_path(dir: &[u8], rel: &[u8]) -> Option<Vec<u8>> {
    let mut parts: Vec<&[u8]> = dir.split(|&c| c == b'/').filter(|c| !c.is_empty()).collect();
    for step in rel.split(|&c| c == b'/') {
        match step {
            b"" | b"." => {}
            b".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join(&b'/'))
}

/// Strips a source file's language extension: `a/b.py` -> `a/b`, `x.test.ts` -> `x.test`.
pub fn strip_source_ext(name: &[u8]) -> Option<&[u8]> {
    Lang::of_name(name)?;
    let dot = name.iter().rposition(|&c| c == b'.')?;
    // `a.b/Rakefile` has no extension to strip.
    if name[dot..].contains(&b'/') {
        return None;
    }
    Some(&name[..dot])
}

/// Project files that resolvers read (module paths, path aliases, crate names), found by the walk
/// beside the sources and handed to the linker as text.
pub const PROJECT_FILES: &[&str] = &[
    "go.mod",
    "Cargo.toml",
    "package.json",
    "tsconfig.json",
    "jsconfig.json",
    "compile_commands.json",
    "composer.json",
];

/// A project file's path and text, for the resolvers.
#[derive(Debug, Clone, Default)]
pub struct ProjectFile {
    /// Path relative to the repository root, `/`-separated.
    pub rel: Vec<u8>,
    /// Its text (lossy UTF-8; project files are small, larger ones are skipped by the walk).
    pub text: String,
}

/// Files and entities of one language.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LangCount {
    /// The language's name (`typescript` counts `.ts` and `.tsx`).
    pub name: &'static str,
    /// Files.
    pub files: usize,
    /// Classes and functions.
    pub entities: usize,
}

/// Counts files and entities per language: `file_lang[f]` is file `f`'s stored code, and
/// `entity_files` yields the file of every class and function.
pub fn count_languages(
    file_lang: &[u8],
    entity_files: impl Iterator<Item = u32>,
) -> Vec<LangCount> {
    let mut counts: Vec<LangCount> = Vec::new();
    let name = |code: u8| Lang::from_code(code).map_or("unknown", |l| l.name());
    let slot = |code: u8, counts: &mut Vec<LangCount>| -> usize {
        let n = name(code);
        match counts.iter().position(|c| c.name == n) {
            Some(i) => i,
            None => {
                counts.push(LangCount { name: n, ..Default::default() });
                counts.len() - 1
            }
        }
    };
    for &code in file_lang {
        let i = slot(code, &mut counts);
        counts[i].files += 1;
    }
    for f in entity_files {
        if let Some(&code) = file_lang.get(f as usize) {
            let i = slot(code, &mut counts);
            counts[i].entities += 1;
        }
    }
    counts.sort_by(|a, b| b.files.cmp(&a.files).then(a.name.cmp(b.name)));
    counts
}

/// Per-thread extractors for every language (tree-sitter parsers are not `Sync`).
#[derive(Default)]
pub struct Extractors {
    python: Option<python::Extractor>,
    js: Option<js::Extractor>,
    java: Option<java::Extractor>,
    go: Option<go::Extractor>,
    rust: Option<rust::Extractor>,
    c: Option<c::Extractor>,
    ruby: Option<ruby::Extractor>,
    php: Option<php::Extractor>,
}

impl Extractors {
    /// Extracts the facts of one file in the given language. A lone `\r` ends a line, in
    /// every language ([`crate::extract::tree::unify_newlines`]).
    pub fn extract(&mut self, lang: Lang, src: &[u8]) -> FileFacts {
        let unified = crate::extract::tree::unify_newlines(src);
        let src = unified.as_deref().unwrap_or(src);
        match lang {
            Lang::Python => self.python.get_or_insert_with(python::Extractor::new).extract(src),
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
                self.js.get_or_insert_with(js::Extractor::new).extract(lang, src)
            }
            Lang::Java => self.java.get_or_insert_with(java::Extractor::new).extract(src),
            Lang::Go => self.go.get_or_insert_with(go::Extractor::new).extract(src),
            Lang::Rust => self.rust.get_or_insert_with(rust::Extractor::new).extract(src),
            Lang::C | Lang::Cpp => self.c.get_or_insert_with(c::Extractor::new).extract(lang, src),
            Lang::Ruby => self.ruby.get_or_insert_with(ruby::Extractor::new).extract(src),
            Lang::Php => self.php.get_or_insert_with(php::Extractor::new).extract(src),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_choose_languages() {
        assert_eq!(Lang::of_name(b"a/b.py"), Some(Lang::Python));
        assert_eq!(Lang::of_name(b"x.min.js"), Some(Lang::JavaScript));
        assert_eq!(Lang::of_name(b"a.d.ts"), Some(Lang::TypeScript));
        assert_eq!(Lang::of_name(b"App.tsx"), Some(Lang::Tsx));
        assert_eq!(Lang::of_name(b"Foo.java"), Some(Lang::Java));
        assert_eq!(Lang::of_name(b"x_test.go"), Some(Lang::Go));
        assert_eq!(Lang::of_name(b"lib.rs"), Some(Lang::Rust));
        assert_eq!(Lang::of_name(b"server.c"), Some(Lang::C));
        assert_eq!(Lang::of_name(b"server.h"), Some(Lang::C));
        assert_eq!(Lang::of_name(b"os.cc"), Some(Lang::Cpp));
        assert_eq!(Lang::of_name(b"format.hpp"), Some(Lang::Cpp));
        assert_eq!(Lang::of_name(b"src/Carbon/Carbon.php"), Some(Lang::Php));
        assert_eq!(Lang::of_name(b"README.md"), None);
        assert_eq!(Lang::of_name(b"Makefile"), None);
        assert_eq!(Lang::of_name(b"lib/a.rb"), Some(Lang::Ruby));
        assert_eq!(Lang::of_name(b"x/Rakefile"), Some(Lang::Ruby));
        assert_eq!(Lang::of_name(b"Gemfile"), Some(Lang::Ruby));
        assert_eq!(Lang::of_name(b"a.b/Gemfile.lock"), None);
        assert_eq!(Lang::of_name(b"cds.gemspec"), Some(Lang::Ruby));
        assert_eq!(Lang::of_name(b"lib/tasks/x.rake"), Some(Lang::Ruby));
        assert_eq!(strip_source_ext(b"pkg/x.test.ts"), Some(&b"pkg/x.test"[..]));
    }

    #[test]
    fn headers_follow_the_repository() {
        let cpp = Headers::new([(&b"src/a.cc"[..], Lang::Cpp), (b"src/b.c", Lang::C)]);
        assert_eq!(cpp.lang(b"include/x.h", Lang::C), Lang::Cpp);
        assert_eq!(cpp.lang(b"src/b.c", Lang::C), Lang::C);
        let c = Headers::new([(&b"src/b.c"[..], Lang::C), (b"x.h", Lang::C)]);
        assert_eq!(c.lang(b"x.h", Lang::C), Lang::C);
        // A C project with one C++ tool: its headers stay C, but the tool's own are C++.
        let mut files: Vec<(Vec<u8>, Lang)> =
            (0..40).map(|i| (format!("kernel/f{i}.c").into_bytes(), Lang::C)).collect();
        files.push((b"scripts/kconfig/qconf.cc".to_vec(), Lang::Cpp));
        let mostly_c = Headers::new(files.iter().map(|(r, l)| (r.as_slice(), *l)));
        assert_eq!(mostly_c.lang(b"include/linux/list.h", Lang::C), Lang::C);
        assert_eq!(mostly_c.lang(b"scripts/kconfig/qconf.h", Lang::C), Lang::Cpp);
    }

    #[test]
    fn codes_round_trip() {
        for l in Lang::ALL {
            assert_eq!(Lang::from_code(l.code()), Some(l));
        }
        assert_eq!(Lang::Python.code(), 1, "stored in existing indexes");
    }
}
