//! Java: the tree-sitter grammar and `queries/java/facts.scm` -> [`FileFacts`], and the
//! language's resolution rules.
//!
//! Entities (DESIGN.md §8): classes, interfaces, enums, records and annotation types are
//! classes; methods (with or without a body), constructors (named like their class) and compact
//! constructors are functions. What an anonymous class body (`new T() { ... }`, an enum
//! constant's body) declares is not an entity: its code belongs to the enclosing definition.
//!
//! Resolution: a package lives in every directory whose Java files declare it (several source
//! roots, several modules); a single-type import names `<dir>/<Name>.java` in one of them, an
//! on-demand import all their files, a static import the class's file (the driver takes the
//! member). Methods see their class's members (and their bases') unqualified, and `new Foo()`
//! is an invoke edge to the class.

use std::collections::HashMap;
use std::sync::OnceLock;

use tree_sitter::Node;

use crate::extract::tree::Field as _;
use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, Import, ImportForm, tree,
};
use crate::graph::parent_dir;
use crate::graph::scope::{self, Repo};
use crate::lang::Lang;

/// The facts query, compiled into the binary.
pub const FACTS_QUERY: &str = include_str!("../../queries/java/facts.scm");

/// Main capture names of the facts query (the others qualify them).
const MAIN: &[&str] = &[
    "def.class",
    "def.function",
    "package",
    "import",
    "call",
    "call.new",
    "call.explicit",
    "call.ref",
    "bind.decl",
    "bind.param",
    "bind.spread",
    "bind.tparam",
    "bind.assign",
    "anon",
];

/// The tree-sitter language.
pub fn language() -> tree_sitter::Language {
    tree_sitter_java::LANGUAGE.into()
}

/// The compiled facts patterns (compiled once per process, matched by [`crate::lang::matcher`]).
fn patterns() -> &'static crate::lang::matcher::Patterns {
    static PATTERNS: OnceLock<crate::lang::matcher::Patterns> = OnceLock::new();
    tree::patterns(&PATTERNS, language(), FACTS_QUERY, "queries/java/facts.scm")
}

/// A reusable extractor: one per thread.
pub struct Extractor(tree::Parsing);

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    /// A new extractor with the grammar loaded.
    pub fn new() -> Extractor {
        Extractor(tree::Parsing::new(&language()))
    }

    /// Extracts the facts of one file. Never fails: syntax errors are recovered from and
    /// counted in [`FileFacts::syntax_errors`].
    pub fn extract(&mut self, src: &[u8]) -> FileFacts {
        let parsed = tree::parse(&mut self.0.parser, src);
        let mut facts = tree::base_facts(src, parsed.as_ref().map(|t| t.root_node()));
        let Some(t) = parsed.as_ref() else { return facts };
        let items = patterns().captures(t.root_node(), |n| MAIN.contains(&n));
        Builder { src, facts: &mut facts, superclass: Vec::new() }.run(&items);
        facts
    }
}

/// Walks the sorted captures, nesting them by byte range.
struct Builder<'s, 'f> {
    src: &'s [u8],
    facts: &'f mut FileFacts,
    /// Per definition: its superclass's last name (`super(...)` calls its constructor).
    superclass: Vec<Option<String>>,
}

impl Builder<'_, '_> {
    fn text(&self, n: Node) -> String {
        tree::text(n, self.src)
    }

    fn run(&mut self, items: &[tree::Captured]) {
        // Anonymous class bodies: definitions inside are not entities.
        let anon: Vec<(usize, usize)> = items
            .iter()
            .filter(|c| c.kind == "anon")
            .map(|c| (c.node.start_byte(), c.node.end_byte()))
            .collect();
        let in_anon = |n: Node| anon.iter().any(|&(s, e)| s <= n.start_byte() && n.end_byte() <= e);
        let mut nest = tree::Nest::default();
        let mut stmt = 0u32;
        for c in items {
            let start = c.node.start_byte();
            match c.kind {
                "def.class" | "def.function" => {
                    if in_anon(c.node) {
                        continue;
                    }
                    let Some(name) = c.get("def.name") else { continue };
                    let parent = nest.owner_at(start);
                    let i = self.def(c, name, parent);
                    nest.push(i, c.node.end_byte());
                }
                "package" if self.facts.package.is_none() => {
                    self.facts.package = first_name(c.node).and_then(|n| self.dotted_name(n));
                }
                "import" => {
                    let owner = nest.owner_at(start);
                    if let Some(imp) = self.import(c.node, owner, stmt) {
                        self.facts.imports.push(imp);
                        stmt += 1;
                    }
                }
                "call" | "call.new" | "call.explicit" | "call.ref" => {
                    let owner = nest.owner_at(start);
                    if let Some(callee) = self.callee(c, owner) {
                        self.facts.calls.push(Call {
                            owner,
                            deco_of: None,
                            callee,
                            line: c.node.start_position().row as u32 + 1,
                        });
                    }
                }
                "bind.decl" | "bind.param" | "bind.spread" | "bind.tparam" | "bind.assign" => {
                    let owner = nest.owner_at(start);
                    self.binds(c, owner);
                }
                _ => {}
            }
        }
    }

    /// Records a definition; returns its index.
    fn def(&mut self, c: &tree::Captured, name: Node, parent: Option<DefIdx>) -> DefIdx {
        let node = c.node;
        let kind = if c.kind == "def.class" { DefKind::Class } else { DefKind::Function };
        let body = node.field("body");
        let doc = c.doc(self.src, is_javadoc);
        let head = head_of(node);
        let byte_start =
            doc.map_or(node.start_byte() as u32, |d| d.0.min(node.start_byte() as u32));
        let line_start = if doc.is_some() {
            tree::line_back(node, self.src, byte_start as usize)
        } else {
            node.start_position().row as u32 + 1
        };
        let mut bases = Vec::new();
        let mut superclass = None;
        if kind == DefKind::Class {
            if let Some(sc) = node.field("superclass")
                && let Some(t) = named_children(sc).into_iter().find_map(|t| self.type_name(t))
            {
                superclass = t.rsplit('.').next().map(str::to_string);
                bases.push(Expr::Dotted(t));
            }
            let lists = [
                node.field("interfaces"),
                named_children(node).into_iter().find(|n| n.kind() == "extends_interfaces"),
            ];
            for l in lists.into_iter().flatten() {
                for tl in named_children(l).into_iter().filter(|n| n.kind() == "type_list") {
                    for t in named_children(tl) {
                        if let Some(t) = self.type_name(t) {
                            bases.push(Expr::Dotted(t));
                        }
                    }
                }
            }
        }
        let (first_param, returns) = if kind == DefKind::Function {
            let fp = (!has_modifier(node, "static")).then(|| "this".to_string());
            let ret = if node.kind() == "method_declaration" {
                node.field("type").and_then(|t| self.type_name(t))
            } else {
                None
            };
            (fp, ret)
        } else {
            (None, None)
        };
        let direct = match (parent, c.parent()) {
            (None, Some(p)) => p.kind() == "program",
            (Some(_), Some(p)) => matches!(
                p.kind(),
                "class_body"
                    | "interface_body"
                    | "enum_body_declarations"
                    | "annotation_type_body"
                    | "block"
                    | "constructor_body"
            ),
            _ => false,
        };
        let decorators = named_children(node)
            .into_iter()
            .filter(|m| m.kind() == "modifiers")
            .flat_map(named_children)
            .filter(|a| matches!(a.kind(), "marker_annotation" | "annotation"))
            .filter_map(|a| a.field("name"))
            .filter_map(|n| self.dotted_name(n))
            .map(Expr::Dotted)
            .collect();
        let d = Def {
            kind,
            name: self.text(name),
            parent,
            is_async: false,
            direct,
            line_start,
            line_head: head.start_position().row as u32 + 1,
            line_end: node.end_position().row as u32 + 1,
            byte_start,
            byte_head: head.start_byte() as u32,
            byte_sig_end: tree::sig_end(node, body, self.src),
            byte_end: node.end_byte() as u32,
            doc,
            bases,
            decorators,
            deco_names: Vec::new(),
            first_param,
            returns,
            owner: None,
            namespace: false,
        };
        self.facts.defs.push(d);
        self.superclass.push(superclass);
        (self.facts.defs.len() - 1) as DefIdx
    }

    /// One import declaration.
    fn import(&self, node: Node, owner: Option<DefIdx>, stmt: u32) -> Option<Import> {
        let mut is_static = false;
        let mut star = false;
        let mut name = None;
        let mut cursor = node.walk();
        for ch in node.children(&mut cursor) {
            match ch.kind() {
                "static" => is_static = true,
                "asterisk" => star = true,
                "identifier" | "scoped_identifier" => name = self.dotted_name(ch),
                _ => {}
            }
        }
        let full = name?;
        let (module, name) = if star {
            (full, "*".to_string())
        } else {
            match full.rsplit_once('.') {
                Some((m, n)) => (m.to_string(), n.to_string()),
                None => (String::new(), full),
            }
        };
        Some(Import {
            owner,
            direct: owner.is_none(),
            level: 0,
            module,
            name: Some(name),
            alias: None,
            line: node.start_position().row as u32 + 1,
            stmt,
            form: if is_static { ImportForm::Static } else { ImportForm::Plain },
            depth: 1,
        })
    }

    /// What a call site calls.
    fn callee(&self, c: &tree::Captured, owner: Option<DefIdx>) -> Option<Callee> {
        match c.kind {
            "call" => {
                let name = self.text(c.get("call.name")?);
                Some(self.invocation(c.node, name))
            }
            "call.new" => {
                let t = self.type_name(c.get("call.type")?)?;
                // `outer.new Inner()`: the type is a member of `outer`'s class.
                let qualified = c.node.child(0).is_some_and(|n| n.kind() != "new");
                if qualified {
                    return Some(Callee::Attr(t.rsplit('.').next().unwrap_or(&t).to_string()));
                }
                Some(if t.contains('.') { Callee::Chain(t) } else { Callee::Name(t) })
            }
            "call.ref" => self.method_ref(c.node),
            _ => {
                // `this(...)` / `super(...)`: a constructor of this class / of the superclass.
                let ctor = c.get("call.ctor")?;
                if c.node.field("object").is_some() {
                    return None;
                }
                let ctor_def = owner?;
                let class = self.facts.defs[ctor_def as usize].parent?;
                match ctor.kind() {
                    "this" => Some(Callee::Chain(format!(
                        "this.{}",
                        self.facts.defs[class as usize].name
                    ))),
                    _ => {
                        let sc = self.superclass[class as usize].as_ref()?;
                        Some(Callee::Chain(format!("super.{sc}")))
                    }
                }
            }
        }
    }

    /// A method reference's callee: `this::m` -> `this.m`, `Foo::m` -> `Foo.m`, `Foo::new` ->
    /// `Foo` (the class, as `new Foo()`).
    fn method_ref(&self, node: Node) -> Option<Callee> {
        let target = node.named_child(0)?;
        let last = node.child(node.child_count().checked_sub(1)?)?;
        let recv = self.dotted_expr(target).or_else(|| self.type_name(target));
        if last.kind() == "new" {
            let t = recv?;
            return Some(if t.contains('.') { Callee::Chain(t) } else { Callee::Name(t) });
        }
        if last.kind() != "identifier" {
            return None;
        }
        let name = self.text(last);
        Some(match recv {
            Some(r) => Callee::Chain(format!("{r}.{name}")),
            None => Callee::Attr(name),
        })
    }

    /// A `method_invocation`'s callee.
    fn invocation(&self, node: Node, name: String) -> Callee {
        let Some(obj) = node.field("object") else { return Callee::Name(name) };
        // `Iface.super.m()`: the `super` is a second step.
        let mut cursor = node.walk();
        let supers = node.children(&mut cursor).filter(|n| n.kind() == "super").count();
        if supers > usize::from(obj.kind() == "super") {
            return Callee::Attr(name);
        }
        if let Some(d) = self.dotted_expr(obj) {
            return Callee::Chain(format!("{d}.{name}"));
        }
        match obj.kind() {
            "method_invocation" => {
                let inner = obj.field("name").map(|n| self.text(n));
                match (inner, obj.field("object")) {
                    (Some(i), None) => Callee::OnCall(i, name),
                    (Some(i), Some(o)) => match self.dotted_expr(o) {
                        Some(d) => Callee::OnCall(format!("{d}.{i}"), name),
                        None => Callee::Attr(name),
                    },
                    _ => Callee::Attr(name),
                }
            }
            "object_creation_expression"
                if obj.named_child(0).map(|n| n.kind()) != Some("class_body") =>
            {
                match obj.field("type").and_then(|t| self.type_name(t)) {
                    Some(t) => Callee::OnCall(t, name),
                    None => Callee::Attr(name),
                }
            }
            "parenthesized_expression" => match obj.named_child(0) {
                Some(e) if e.kind() == "object_creation_expression" => {
                    match e.field("type").and_then(|t| self.type_name(t)) {
                        Some(t) => Callee::OnCall(t, name),
                        None => Callee::Attr(name),
                    }
                }
                _ => Callee::Attr(name),
            },
            _ => Callee::Attr(name),
        }
    }

    /// Bindings of a declaration, parameter or assignment.
    fn binds(&mut self, c: &tree::Captured, owner: Option<DefIdx>) {
        match c.kind {
            "bind.decl" => {
                let ty = c.get("bind.type").and_then(|t| self.type_name(t));
                let ty = ty.filter(|t| t != "var");
                let mut cursor = c.node.walk();
                let decls: Vec<Node> =
                    c.node.children_by_field_name("declarator", &mut cursor).collect();
                for d in decls {
                    let Some(name) = d.field("name") else { continue };
                    if d.field("dimensions").is_some() {
                        continue; // `Foo x[]`: an array
                    }
                    let value = match &ty {
                        Some(t) => Some(BindValue::Annotated(t.clone())),
                        None => d.field("value").and_then(|v| self.value(v)),
                    };
                    if let Some(value) = value {
                        let target = self.text(name);
                        self.facts.binds.push(Bind { owner, target, value });
                    }
                }
            }
            "bind.param" => {
                let (Some(t), Some(n)) = (c.get("bind.type"), c.get("bind.name")) else { return };
                if c.node.field("dimensions").is_some() {
                    return;
                }
                if let Some(t) = self.type_name(t).filter(|t| t != "var") {
                    let target = self.text(n);
                    self.facts.binds.push(Bind { owner, target, value: BindValue::Annotated(t) });
                }
            }
            "bind.tparam" => {
                let (Some(t), Some(n)) = (c.get("bind.type"), c.get("bind.name")) else { return };
                if let Some(t) = self.type_name(t) {
                    let target = self.text(n);
                    self.facts.binds.push(Bind { owner, target, value: BindValue::Alias(t) });
                }
            }
            "bind.assign" => {
                // Java declares every variable with its type (or `var` and an initializer), so
                // only `this.x = new T(...)` adds anything (a field declared in a base class).
                // Assignments from calls and names are left out: `x = x.next()` would make the
                // driver resolve `x` through itself.
                let (Some(l), Some(r)) = (c.get("bind.left"), c.get("bind.right")) else { return };
                let Some(target) = self.dotted_expr(l) else { return };
                if !target.starts_with("this.") || target.matches('.').count() != 1 {
                    return;
                }
                if !matches!(r.kind(), "object_creation_expression" | "cast_expression") {
                    return;
                }
                if let Some(value) = self.value(r) {
                    self.facts.binds.push(Bind { owner, target, value });
                }
            }
            _ => {} // varargs are arrays
        }
    }

    /// An initializer that tells its value's class: `new Foo()`, `make()`, `a.b.make()`.
    fn value(&self, v: Node) -> Option<BindValue> {
        match v.kind() {
            "object_creation_expression" => {
                let t = self.type_name(v.field("type")?)?;
                Some(BindValue::CallOf(t))
            }
            "method_invocation" => {
                let name = self.text(v.field("name")?);
                match v.field("object") {
                    None => Some(BindValue::CallOf(name)),
                    Some(o) => Some(BindValue::CallOf(format!("{}.{name}", self.dotted_expr(o)?))),
                }
            }
            "cast_expression" => {
                let t = self.type_name(v.field("type")?)?;
                Some(BindValue::Annotated(t))
            }
            _ => None,
        }
    }

    /// A dotted name (`identifier`, `scoped_identifier`): `a.b.C`.
    fn dotted_name(&self, n: Node) -> Option<String> {
        match n.kind() {
            "identifier" | "type_identifier" => Some(self.text(n)),
            "scoped_identifier" => {
                let scope = self.dotted_name(n.field("scope")?)?;
                let name = self.text(n.field("name")?);
                Some(format!("{scope}.{name}"))
            }
            _ => None,
        }
    }

    /// An expression that is a dotted chain: `a`, `a.b.c`, `this`, `this.x`, `super`.
    fn dotted_expr(&self, n: Node) -> Option<String> {
        match n.kind() {
            "identifier" => Some(self.text(n)),
            "this" => Some("this".into()),
            "super" => Some("super".into()),
            "field_access" => {
                let mut cursor = n.walk();
                if n.children(&mut cursor).filter(|c| c.kind() == "super").count() > 1 {
                    return None;
                }
                let obj = self.dotted_expr(n.field("object")?)?;
                let field = n.field("field")?;
                if field.kind() != "identifier" {
                    return None;
                }
                Some(format!("{obj}.{}", self.text(field)))
            }
            _ => None,
        }
    }

    /// A type as a dotted name, generics and annotations dropped; None for primitive, `void`
    /// and array types.
    fn type_name(&self, n: Node) -> Option<String> {
        match n.kind() {
            "type_identifier" | "identifier" => Some(self.text(n)),
            "generic_type" => self.type_name(n.named_child(0)?),
            "annotated_type" => named_children(n).into_iter().rev().find_map(|c| self.type_name(c)),
            "scoped_type_identifier" | "scoped_identifier" => {
                let parts: Vec<String> =
                    named_children(n).into_iter().filter_map(|c| self.type_name(c)).collect();
                (!parts.is_empty()).then(|| parts.join("."))
            }
            _ => None,
        }
    }
}

/// Named children of a node.
fn named_children(n: Node) -> Vec<Node> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor).collect()
}

/// The first name child (`identifier` or `scoped_identifier`) of a declaration.
fn first_name(n: Node) -> Option<Node> {
    named_children(n).into_iter().find(|c| matches!(c.kind(), "identifier" | "scoped_identifier"))
}

/// `/** ... */` (not the empty `/**/`).
fn is_javadoc(t: &[u8]) -> bool {
    t.starts_with(b"/**") && t != b"/**/"
}

/// Whether a declaration's modifiers include `word` (`static`).
fn has_modifier(decl: Node, word: &str) -> bool {
    named_children(decl).into_iter().filter(|m| m.kind() == "modifiers").any(|m| {
        let mut cursor = m.walk();
        m.children(&mut cursor).any(|c| c.kind() == word)
    })
}

/// A definition's own first token: its first modifier keyword or, without one, the token after
/// its annotations.
fn head_of(decl: Node) -> Node {
    let Some(m) = decl.child(0).filter(|m| m.kind() == "modifiers") else { return decl };
    let mut cursor = m.walk();
    let first = m
        .children(&mut cursor)
        .find(|c| !matches!(c.kind(), "marker_annotation" | "annotation") && !c.is_extra());
    if let Some(f) = first {
        return f;
    }
    let mut next = m.next_sibling();
    while let Some(n) = next {
        if !n.is_extra() {
            return n;
        }
        next = n.next_sibling();
    }
    decl
}

/// Java's module rules for the linker (see [`crate::graph::scope`]).
///
/// Which of a package's directories a file sees: its own, those outside tests, and the test
/// directories of its own source root when it is a test (Maven's `src/test/java` sees
/// `src/main/java`, never the reverse; copies of a package under another module's test
/// resources stay out of sight).
pub struct Resolver {
    /// Package name -> the directories whose Java files declare it (`""`: the default one).
    packages: HashMap<String, Vec<Dir>>,
    /// (package, directory) -> its Java files.
    files: HashMap<(String, Vec<u8>), Vec<u32>>,
}

/// One directory holding (part of) a package.
struct Dir {
    path: Vec<u8>,
    /// The source root: the path with the package's own path (`a/b` for `a.b`) taken off.
    root: Vec<u8>,
    /// Under a test directory (`src/test/java`, `tests/`, ...).
    test: bool,
}

/// The source root of a file's directory: `src/main/java` for `src/main/java/a/b` in `a.b`.
fn source_root(dir: &[u8], pkg: &str) -> Vec<u8> {
    let suffix = pkg.replace('.', "/");
    if pkg.is_empty() {
        return dir.to_vec();
    }
    if dir == suffix.as_bytes() {
        return Vec::new();
    }
    match dir.strip_suffix(suffix.as_bytes()) {
        Some(r) if r.ends_with(b"/") => r[..r.len() - 1].to_vec(),
        _ => dir.to_vec(),
    }
}

fn is_test(rel: &[u8]) -> bool {
    crate::graph::is_test_path(rel, &std::collections::HashSet::new())
}

impl Resolver {
    /// Reads what the rules need from the repository.
    pub fn new(repo: &Repo) -> Resolver {
        let mut packages: HashMap<String, Vec<Dir>> = HashMap::new();
        let mut files: HashMap<(String, Vec<u8>), Vec<u32>> = HashMap::new();
        for (i, f) in repo.files.iter().enumerate() {
            if f.lang != Lang::Java {
                continue;
            }
            let pkg = f.facts.package.clone().unwrap_or_default();
            let dir = parent_dir(f.rel).to_vec();
            let dirs = packages.entry(pkg.clone()).or_default();
            if !dirs.iter().any(|d| d.path == dir) {
                dirs.push(Dir {
                    root: source_root(&dir, &pkg),
                    test: is_test(&dir),
                    path: dir.clone(),
                });
            }
            files.entry((pkg, dir)).or_default().push(i as u32);
        }
        Resolver { packages, files }
    }

    /// The directories of package `pkg` that file `from` sees, its own first.
    fn dirs(&self, repo: &Repo, from: u32, pkg: &str) -> Vec<&Dir> {
        let Some(dirs) = self.packages.get(pkg) else { return Vec::new() };
        let f = &repo.files[from as usize];
        let own = parent_dir(f.rel);
        let own_pkg = f.facts.package.as_deref().unwrap_or("");
        let root = source_root(own, own_pkg);
        let test = is_test(f.rel);
        let mut out: Vec<&Dir> =
            dirs.iter().filter(|d| d.path == own || !d.test || (test && d.root == root)).collect();
        out.sort_by_key(|d| d.path != own);
        out
    }

    /// The Java files of a package that file `from` sees.
    fn package(&self, repo: &Repo, from: u32, pkg: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for d in self.dirs(repo, from, pkg) {
            if let Some(fs) = self.files.get(&(pkg.to_string(), d.path.clone())) {
                out.extend_from_slice(fs);
            }
        }
        out
    }

    /// The files defining top-level type `name` of package `pkg`: `<dir>/<name>.java`, else a
    /// file of the package whose top level defines it.
    fn type_files(&self, repo: &Repo, from: u32, pkg: &str, name: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for d in self.dirs(repo, from, pkg) {
            let mut rel = d.path.clone();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name.as_bytes());
            rel.extend_from_slice(b".java");
            if let Some(f) = repo.file(&rel)
                && repo.facts(f).package.as_deref().unwrap_or("") == pkg
            {
                out.push(f);
            }
        }
        if out.is_empty() {
            out =
                self.package(repo, from, pkg)
                    .into_iter()
                    .filter(|&f| {
                        repo.facts(f).defs.iter().any(|d| {
                            d.parent.is_none() && d.kind == DefKind::Class && d.name == name
                        })
                    })
                    .collect();
        }
        out
    }

    /// The files of the class named by a dotted path `a.b.Outer(.Inner)*`: the longest prefix
    /// that is a package, then its top-level type.
    fn class_files(&self, repo: &Repo, from: u32, path: &str) -> Vec<u32> {
        let mut split = path.len();
        loop {
            let (pkg, rest) = match path[..split].rfind('.') {
                Some(dot) => (&path[..dot], &path[dot + 1..]),
                None => ("", path),
            };
            if self.packages.contains_key(pkg) {
                let top = rest.split('.').next().unwrap_or(rest);
                let fs = self.type_files(repo, from, pkg, top);
                if !fs.is_empty() || pkg.is_empty() {
                    return fs;
                }
            }
            match path[..split].rfind('.') {
                Some(dot) => split = dot,
                None => return Vec::new(),
            }
        }
    }
}

/// `java.lang.Object`'s methods and the collection and string methods every class has or
/// calls: a receiver of unknown type calling one says nothing about its class, so these are
/// never guessed.
const COMMON_METHODS: &[&str] = &[
    "equals",
    "hashCode",
    "toString",
    "getClass",
    "compareTo",
    "clone",
    "length",
    "size",
    "isEmpty",
    "contains",
    "iterator",
    "stream",
    "forEach",
    "getName",
    "valueOf",
];

impl scope::Resolver for Resolver {
    fn common_methods(&self) -> &'static [&'static str] {
        COMMON_METHODS
    }

    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32> {
        let name = imp.name.as_deref().unwrap_or("");
        match (imp.form, name) {
            // `import a.b.*;`: the package; `import a.b.Outer.*;`: Outer's file (the driver
            // takes its nested types, see `module_is_class`).
            (ImportForm::Plain, "*") => match self.packages.contains_key(&imp.module) {
                true => self.package(repo, file, &imp.module),
                false if imp.module.is_empty() => Vec::new(),
                false => self.class_files(repo, file, &imp.module),
            },
            // `import a.b.Foo;`, `import a.b.Outer.Inner;`.
            (ImportForm::Plain, n) => {
                if self.packages.contains_key(&imp.module) {
                    let fs = self.type_files(repo, file, &imp.module, n);
                    if !fs.is_empty() {
                        return fs;
                    }
                }
                if imp.module.is_empty() {
                    return Vec::new();
                }
                self.class_files(repo, file, &imp.module)
            }
            // `import static a.b.Foo.bar;` and `import static a.b.Foo.*;`: Foo's file.
            (ImportForm::Static, _) => self.class_files(repo, file, &imp.module),
            _ => Vec::new(),
        }
    }

    fn package_files(&self, repo: &Repo, file: u32) -> Vec<u32> {
        let f = &repo.files[file as usize];
        if f.lang != Lang::Java {
            return Vec::new();
        }
        // The file's own directory first, then the package's other directories it sees
        // (`src/test/java` sees `src/main/java` of the same package).
        self.package(repo, file, f.facts.package.as_deref().unwrap_or(""))
    }

    fn implicit_members(&self) -> bool {
        true
    }

    /// A static import's module is a class; so is a module that is no package of the
    /// repository but starts with one (`import a.b.Outer.Inner;`, `import a.b.Outer.*;`).
    fn module_is_class(&self, imp: &Import) -> bool {
        if imp.form == ImportForm::Static {
            return true;
        }
        let m = imp.module.as_str();
        !m.is_empty()
            && !self.packages.contains_key(m)
            && m.match_indices('.').any(|(i, _)| self.packages.contains_key(&m[..i]))
    }

    fn instantiates(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(src: &str) -> FileFacts {
        Extractor::new().extract(src.as_bytes())
    }

    fn quals(f: &FileFacts) -> Vec<String> {
        (0..f.defs.len() as u32).map(|i| f.qual_name(i)).collect()
    }

    #[test]
    fn query_compiles_with_known_captures() {
        patterns();
        let q = tree_sitter::Query::new(&language(), FACTS_QUERY).expect("compiles");
        let known = [
            "def.name",
            "def.body",
            "call.name",
            "call.type",
            "call.ctor",
            "bind.type",
            "bind.name",
            "bind.left",
            "bind.right",
        ];
        for n in q.capture_names() {
            assert!(MAIN.contains(n) || known.contains(n), "unknown capture @{n}");
        }
    }

    #[test]
    fn definitions_nest_in_pre_order() {
        let f = facts(
            "package a.b;\n\
             public class Foo extends Base<T> implements I, x.J<K> {\n\
               public Foo() { this(1); }\n\
               Foo(int x) { super(x); }\n\
               void bar() {}\n\
               void bar(int x) {}\n\
               static Foo make() { return new Foo(); }\n\
               static class Inner { void baz() { class Local { void q() {} } } }\n\
               interface Cb { void on(Foo f); }\n\
               enum E { A { void z() {} }, B; void e() {} }\n\
               record R(int x) implements I { R { } }\n\
               @interface Ann { String value(); }\n\
               void anon() { new Runnable() { public void run() { go(); } }; }\n\
             }\n",
        );
        assert_eq!(f.package.as_deref(), Some("a.b"));
        assert_eq!(
            quals(&f),
            [
                "Foo",
                "Foo.Foo",
                "Foo.Foo",
                "Foo.bar",
                "Foo.bar",
                "Foo.make",
                "Foo.Inner",
                "Foo.Inner.baz",
                "Foo.Inner.baz.Local",
                "Foo.Inner.baz.Local.q",
                "Foo.Cb",
                "Foo.Cb.on",
                "Foo.E",
                "Foo.E.e",
                "Foo.R",
                "Foo.R.R",
                "Foo.Ann",
                "Foo.Ann.value",
                "Foo.anon",
            ]
        );
        let foo = &f.defs[0];
        assert_eq!(
            foo.bases,
            [Expr::Dotted("Base".into()), Expr::Dotted("I".into()), Expr::Dotted("x.J".into())]
        );
        assert_eq!(f.defs[5].first_param, None, "static");
        assert_eq!(f.defs[5].returns.as_deref(), Some("Foo"));
        assert_eq!(f.defs[3].first_param.as_deref(), Some("this"));
        assert_eq!(f.defs[1].first_param.as_deref(), Some("this"));
        let go = f.calls.iter().find(|c| c.callee == Callee::Name("go".into())).unwrap();
        assert_eq!(go.owner, Some(18), "anonymous class code belongs to the method");
        assert!(f.calls.iter().any(|c| c.callee == Callee::Chain("this.Foo".into())));
        assert!(f.calls.iter().any(|c| c.callee == Callee::Chain("super.Base".into())));
        assert!(f.calls.iter().any(|c| c.callee == Callee::Name("Foo".into())));
        assert!(f.calls.iter().any(|c| c.callee == Callee::Name("Runnable".into())));
    }

    #[test]
    fn imports_and_their_forms() {
        let f = facts(
            "import a.b.Foo;\nimport a.b.*;\nimport static a.b.Foo.bar;\nimport static a.b.Foo.*;\nimport Top;\n",
        );
        let got: Vec<(&str, &str, ImportForm)> = f
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.name.as_deref().unwrap(), i.form))
            .collect();
        assert_eq!(
            got,
            [
                ("a.b", "Foo", ImportForm::Plain),
                ("a.b", "*", ImportForm::Plain),
                ("a.b.Foo", "bar", ImportForm::Static),
                ("a.b.Foo", "*", ImportForm::Static),
                ("", "Top", ImportForm::Plain),
            ]
        );
        assert_eq!(f.imports[2].line, 3);
    }

    #[test]
    fn callees_of_every_shape() {
        let f = facts(
            "class A { void m() {\n\
               f(); Foo.bar(); this.bar(); super.bar(); a.b.c.d(); make().run();\n\
               x.get().run(); new Foo().go(); list.get(0).size(); new a.b.C(); new G<T>();\n\
               this.x.y(); I.super.m(); arr[0].z(); Runnable r = () -> lam();\n\
               new @Ann Foo(); outer.new Inner();\n\
             } }\n",
        );
        let got: Vec<&Callee> = f.calls.iter().map(|c| &c.callee).collect();
        use Callee::*;
        let want = [
            Name("f".into()),
            Chain("Foo.bar".into()),
            Chain("this.bar".into()),
            Chain("super.bar".into()),
            Chain("a.b.c.d".into()),
            OnCall("make".into(), "run".into()),
            Name("make".into()),
            OnCall("x.get".into(), "run".into()),
            Chain("x.get".into()),
            OnCall("Foo".into(), "go".into()),
            Name("Foo".into()),
            OnCall("list.get".into(), "size".into()),
            Chain("list.get".into()),
            Chain("a.b.C".into()),
            Name("G".into()),
            Chain("this.x.y".into()),
            Attr("m".into()),
            Attr("z".into()),
            Name("lam".into()),
            Name("Foo".into()),
            Attr("Inner".into()),
        ];
        assert_eq!(got, want.iter().collect::<Vec<_>>());
        assert!(f.calls.iter().all(|c| c.owner == Some(1)));
    }

    #[test]
    fn method_references_and_pattern_bindings() {
        let f = facts(
            "class A { void m(Object o) {\n\
               xs.forEach(this::audit); xs.map(Foo::make); xs.map(a.b.Foo::new);\n\
               xs.map(super::x); xs.map(Bar::new);\n\
               if (o instanceof Baz z) { z.q(); }\n\
               switch (o) { case Qux w -> w.r(); default -> {} }\n\
             } }\n",
        );
        use Callee::*;
        let refs: Vec<&Callee> = f
            .calls
            .iter()
            .map(|c| &c.callee)
            .filter(|c| !matches!(c, Chain(s) if s.starts_with("xs.")))
            .collect();
        assert_eq!(
            refs,
            [
                &Chain("this.audit".into()),
                &Chain("Foo.make".into()),
                &Chain("a.b.Foo".into()),
                &Chain("super.x".into()),
                &Name("Bar".into()),
                &Chain("z.q".into()),
                &Chain("w.r".into()),
            ]
        );
        assert!(
            f.binds
                .iter()
                .any(|b| b.target == "z" && b.value == BindValue::Annotated("Baz".into()))
        );
    }

    #[test]
    fn bindings_for_receivers() {
        let f = facts(
            "class A {\n  private Repo repo;\n  int n;\n  java.util.List<Foo> xs = null;\n\
             A(Repo r, int k, Foo... fs) { this.repo = r; this.other = new Other(); }\n\
             void m(final Svc s) { var v = new Vee(); Local l = make(); w = x.build(); for (Item i : items) {} }\n}\n",
        );
        let got: Vec<(Option<DefIdx>, &str, &BindValue)> =
            f.binds.iter().map(|b| (b.owner, b.target.as_str(), &b.value)).collect();
        use BindValue::*;
        assert_eq!(
            got,
            [
                (Some(0), "repo", &Annotated("Repo".into())),
                (Some(0), "xs", &Annotated("java.util.List".into())),
                (Some(1), "r", &Annotated("Repo".into())),
                (Some(1), "this.other", &CallOf("Other".into())),
                (Some(2), "s", &Annotated("Svc".into())),
                (Some(2), "v", &CallOf("Vee".into())),
                (Some(2), "l", &Annotated("Local".into())),
                (Some(2), "i", &Annotated("Item".into())),
            ]
        );
    }

    #[test]
    fn spans_doc_and_fold() {
        let src = "package p;\n\n/** Does things. */\n@Deprecated\npublic class Foo {\n  /**\n   * Bar.\n   */\n  @Override\n  public int bar(int x) throws E {\n    return x;\n  }\n  abstract void q();\n}\n";
        let f = facts(src);
        let foo = &f.defs[0];
        assert_eq!((foo.line_start, foo.line_head, foo.line_end), (3, 5, 14));
        assert_eq!(
            &src[foo.doc.unwrap().0 as usize..foo.doc.unwrap().1 as usize],
            "/** Does things. */"
        );
        assert_eq!(&src[foo.byte_head as usize..foo.byte_sig_end as usize], "public class Foo");
        assert_eq!(foo.decorators, [Expr::Dotted("Deprecated".into())]);
        let bar = &f.defs[1];
        assert_eq!((bar.line_start, bar.line_head, bar.line_end), (6, 10, 12));
        assert_eq!(
            &src[bar.byte_head as usize..bar.byte_sig_end as usize],
            "public int bar(int x) throws E"
        );
        assert_eq!(bar.returns, None, "primitive");
        let q = &f.defs[2];
        assert_eq!((q.line_start, q.line_end, q.doc), (13, 13, None));
        assert_eq!(&src[q.byte_head as usize..q.byte_sig_end as usize], "abstract void q();");
    }

    #[test]
    fn bad_input_never_panics() {
        let broken =
            facts("class A {\n  void ok() { f(); }\n  void bad( {\n}\nclass B { void z() {} }\n");
        assert!(broken.syntax_errors > 0);
        assert!(quals(&broken).contains(&"A.ok".to_string()), "{:?}", quals(&broken));
        let crlf = facts("\u{feff}package p;\r\nclass A {\r\n  void m() {}\r\n}\r\n");
        assert_eq!(quals(&crlf), ["A", "A.m"]);
        assert_eq!(crlf.defs[1].line_head, 3);
        let mut bytes = b"class A { String s = \"".to_vec();
        bytes.extend_from_slice(&[0xff, 0xfe, 0x80]);
        bytes.extend_from_slice(b"\"; void m() {} }\n");
        assert_eq!(quals(&Extractor::new().extract(&bytes)), ["A", "A.m"]);
        let huge = format!("class H {{ {} }}", "void m() { f(); } ".repeat(20_000));
        let h = facts(&huge);
        assert_eq!(h.lines, 1);
        assert_eq!(h.calls.len(), 20_000);
        for s in ["", "}", "class", "class {", "import ;", "package ;", "new", "@", "/**"] {
            facts(s);
        }
    }
}
