//! PHP: the tree-sitter grammar (`LANGUAGE_PHP`, which reads the HTML around `?>` as text) and
//! `queries/php/facts.scm` -> [`FileFacts`], and the language's resolution rules. A file that
//! is PHP throughout (it opens with `<?php` and has no `?>`: most of any library) is parsed with
//! the grammar's PHP-only dialect, which gives the same tree 17% faster (Doctrine ORM).
//!
//! Entities (DESIGN.md §8): classes, interfaces, traits and enums are class-like; methods (with
//! or without a body) and functions are function-like. Namespaces are not part of a qualified
//! name, whether written `namespace A;` or `namespace A { }`: the path places the entity.
//! Closures, arrow functions and what an anonymous class (`new class { }`) declares are not
//! entities; their code belongs to the enclosing named definition.
//!
//! Names: PHP resolves every class and function name at compile time from the current namespace
//! and its `use` clauses, so the frontend does it here and writes the result into the facts as
//! a chain the shared driver can follow: a class `A\B\C` is `\A\B\C.C` (member `C` of the files
//! that declare `\A\B\C`, which [`Resolver`] finds by PSR-4/PSR-0 maps and by declaration); an
//! unqualified function `f` of namespace `A` is `A\f.f` (no leading backslash: PHP falls back to
//! the global `f`). `self::`/`static::` are `Self`, `parent::` is `super`, `$this` is the
//! receiver of a method, and other variables keep their `$`: `$x.m` for `$x->m()`.

mod resolve;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use tree_sitter::Node;

use crate::extract::tree::Field as _;
use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, Import, ImportForm, tree,
};

pub use resolve::Resolver;

/// The facts query, compiled into the binary.
pub const FACTS_QUERY: &str = include_str!("../../../queries/php/facts.scm");

/// Main capture names of the facts query (the others qualify them).
const MAIN: &[&str] = &[
    "def.class",
    "def.function",
    "namespace",
    "use",
    "include",
    "call",
    "call.member",
    "call.scoped",
    "call.new",
    "bind.param",
    "bind.promoted",
    "bind.property",
    "bind.catch",
    "bind.instanceof",
    "bind.assign",
    "anon",
];

/// The receiver of a method, as the facts write it.
const THIS: &str = "$this";

/// The tree-sitter language: PHP with the HTML around it.
pub fn language() -> tree_sitter::Language {
    tree_sitter_php::LANGUAGE_PHP.into()
}

/// The grammar's PHP-only dialect: the same nodes for a file without HTML, parsed faster.
fn language_php_only() -> tree_sitter::Language {
    tree_sitter_php::LANGUAGE_PHP_ONLY.into()
}

/// The compiled facts patterns (compiled once per process and dialect, matched by
/// [`crate::lang::matcher`]; node kinds are numbered per dialect).
fn patterns(php_only: bool) -> &'static crate::lang::matcher::Patterns {
    static PATTERNS: OnceLock<crate::lang::matcher::Patterns> = OnceLock::new();
    static PATTERNS_PHP_ONLY: OnceLock<crate::lang::matcher::Patterns> = OnceLock::new();
    if php_only {
        tree::patterns(
            &PATTERNS_PHP_ONLY,
            language_php_only(),
            FACTS_QUERY,
            "queries/php/facts.scm",
        )
    } else {
        tree::patterns(&PATTERNS, language(), FACTS_QUERY, "queries/php/facts.scm")
    }
}

/// Whether a file is PHP throughout: it opens with `<?php` (after a byte-order mark or a `#!`
/// line) and never leaves PHP mode (no `?>` anywhere, not even in a string or comment, where
/// it would be harmless: the full grammar reads those files).
fn php_throughout(src: &[u8]) -> bool {
    let mut s = src.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(src);
    if s.starts_with(b"#!") {
        s = s.iter().position(|&b| b == b'\n').map_or(&[][..], |i| &s[i + 1..]);
    }
    s.len() >= 5
        && s[..5].eq_ignore_ascii_case(b"<?php")
        && !bstr::ByteSlice::contains_str(src, "?>")
}

/// A reusable extractor: one per thread, with a parser for each dialect.
pub struct Extractor {
    full: tree::Parsing,
    php_only: tree::Parsing,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    /// A new extractor with the grammar loaded.
    pub fn new() -> Extractor {
        Extractor {
            full: tree::Parsing::new(&language()),
            php_only: tree::Parsing::new(&language_php_only()),
        }
    }

    /// Extracts the facts of one file. Never fails: syntax errors are recovered from and
    /// counted in [`FileFacts::syntax_errors`].
    pub fn extract(&mut self, src: &[u8]) -> FileFacts {
        self.extract_as(php_throughout(src), src)
    }

    /// Extracts with the PHP-only dialect or the full grammar.
    fn extract_as(&mut self, php_only: bool, src: &[u8]) -> FileFacts {
        let parsing = if php_only { &mut self.php_only } else { &mut self.full };
        let parsed = tree::parse(&mut parsing.parser, src);
        let mut facts = tree::base_facts(src, parsed.as_ref().map(|t| t.root_node()));
        let Some(t) = parsed.as_ref() else { return facts };
        let items = patterns(php_only).captures(t.root_node(), |n| MAIN.contains(&n));
        let mut b = Builder {
            src,
            facts: &mut facts,
            names: Names::default(),
            traits: Vec::new(),
            anon: Vec::new(),
        };
        b.run(&items);
        b.settle_receivers();
        facts
    }
}

/// What names mean at a point of the file: the namespace and its `use` clauses.
#[derive(Default)]
struct Names {
    /// The current namespace (`A\B`, empty for the global one).
    ns: String,
    /// Where a braced `namespace A { }` ends (its names end with it).
    ns_end: Option<usize>,
    /// `use A\B\C as D;`: lowercased alias -> `A\B\C` (classes and namespaces).
    classes: HashMap<String, String>,
    /// `use function A\f as g;`: lowercased alias -> `A\f`.
    functions: HashMap<String, String>,
}

/// How a name is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NameKind {
    Class,
    Function,
}

impl Names {
    /// Enters namespace `ns` (its `use` clauses start afresh).
    fn enter(&mut self, ns: String, end: Option<usize>) {
        *self = Names { ns, ns_end: end, ..Names::default() };
    }

    /// `ns\name`, or `name` in the global namespace.
    fn in_ns(&self, name: &str) -> String {
        if self.ns.is_empty() { name.to_string() } else { format!("{}\\{name}", self.ns) }
    }

    /// The fully qualified name (no leading backslash) a name as written stands for. For an
    /// unqualified function without a `use function`, the namespace's (PHP then falls back to
    /// the global function; see [`Builder::function_chain`]).
    fn resolve(&self, raw: &str, kind: NameKind) -> String {
        if let Some(abs) = raw.strip_prefix('\\') {
            return abs.to_string();
        }
        if raw.len() > 10 && raw[..10].eq_ignore_ascii_case("namespace\\") {
            return self.in_ns(&raw[10..]);
        }
        match raw.split_once('\\') {
            Some((first, rest)) => match self.classes.get(&first.to_ascii_lowercase()) {
                Some(t) => format!("{t}\\{rest}"),
                None => self.in_ns(raw),
            },
            None => {
                let map = if kind == NameKind::Class { &self.classes } else { &self.functions };
                match map.get(&raw.to_ascii_lowercase()) {
                    Some(t) => t.clone(),
                    None => self.in_ns(raw),
                }
            }
        }
    }
}

/// The chain the driver follows to class (or function) `fqn`: member `C` of the files that
/// declare `\A\B\C`.
fn fqn_chain(fqn: &str) -> String {
    let last = fqn.rsplit('\\').next().unwrap_or(fqn);
    format!("\\{fqn}.{last}")
}

/// Walks the sorted captures, nesting them by byte range.
struct Builder<'s, 'f> {
    src: &'s [u8],
    facts: &'f mut FileFacts,
    names: Names,
    /// Per definition: whether it is a trait (whose `$this` is whatever class uses it).
    traits: Vec<bool>,
    /// Anonymous class bodies (byte ranges).
    anon: Vec<(usize, usize)>,
}

impl Builder<'_, '_> {
    fn text(&self, n: Node) -> String {
        tree::text(n, self.src)
    }

    /// A name as written, whitespace and comments left out (`\A\B`, `namespace\C`, `D`).
    fn raw_name(&self, n: Node) -> String {
        let mut out = String::new();
        collect_name(n, self.src, &mut out);
        out
    }

    fn in_anon(&self, n: Node) -> bool {
        self.anon.iter().any(|&(s, e)| s <= n.start_byte() && n.end_byte() <= e)
    }

    fn run(&mut self, items: &[tree::Captured]) {
        self.anon = items
            .iter()
            .filter(|c| c.kind == "anon")
            .map(|c| (c.node.start_byte(), c.node.end_byte()))
            .collect();
        let mut nest = tree::Nest::default();
        let mut stmt = 0u32;
        for c in items {
            let start = c.node.start_byte();
            if self.names.ns_end.is_some_and(|e| start >= e) {
                self.names.enter(String::new(), None);
            }
            match c.kind {
                "def.class" | "def.function" => {
                    if self.in_anon(c.node) {
                        continue;
                    }
                    let Some(name) = c.get("def.name") else { continue };
                    let parent = nest.owner_at(start);
                    let i = self.def(c, name, parent);
                    nest.push(i, c.node.end_byte());
                }
                "namespace" => self.namespace(c.node),
                "use" => {
                    let owner = nest.owner_at(start);
                    self.use_clauses(c.node, owner, &mut stmt);
                }
                "include" => {
                    let owner = nest.owner_at(start);
                    if let Some(module) = c.node.named_child(0).and_then(|e| self.include_path(e)) {
                        self.facts.imports.push(Import {
                            owner,
                            direct: owner.is_none(),
                            module,
                            line: c.node.start_position().row as u32 + 1,
                            stmt,
                            depth: 1,
                            ..Import::default()
                        });
                        stmt += 1;
                    }
                }
                "call" | "call.member" | "call.scoped" | "call.new" => {
                    let owner = nest.owner_at(start);
                    let line = c.node.start_position().row as u32 + 1;
                    let in_anon = self.in_anon(c.node);
                    for mut callee in self.callees(c) {
                        // In an anonymous class, `$this` and `self` are that class.
                        if in_anon && let Callee::Chain(ch) | Callee::OnCall(ch, _) = &callee {
                            let head = ch.split('.').next().unwrap_or("");
                            if matches!(head, THIS | "Self" | "super") {
                                let last = match &callee {
                                    Callee::OnCall(_, a) => a.clone(),
                                    _ => ch.rsplit('.').next().unwrap_or("").to_string(),
                                };
                                callee = Callee::Attr(last);
                            }
                        }
                        self.facts.calls.push(Call { owner, deco_of: None, callee, line });
                    }
                }
                k if k.starts_with("bind.") => {
                    let owner = nest.owner_at(start);
                    self.binds(c, owner);
                }
                _ => {}
            }
        }
    }

    /// `namespace A\B;` or `namespace A\B { ... }`.
    fn namespace(&mut self, node: Node) {
        let name = node.field("name").map(|n| self.raw_name(n)).unwrap_or_default();
        let end = node.field("body").map(|_| node.end_byte());
        if self.facts.package.is_none() {
            self.facts.package = Some(name.clone());
        }
        self.names.enter(name, end);
    }

    /// A `use` declaration: its clauses become imports and aliases.
    fn use_clauses(&mut self, node: Node, owner: Option<DefIdx>, stmt: &mut u32) {
        let line = node.start_position().row as u32 + 1;
        let decl_kind = use_kind(node);
        let (prefix, clauses) = match node.field("body") {
            // `use A\{B, C as D, function f};`
            Some(group) => {
                let prefix = named_children(node)
                    .into_iter()
                    .find(|n| n.kind() == "namespace_name")
                    .map(|n| self.raw_name(n))
                    .unwrap_or_default();
                let clauses: Vec<Node> = named_children(group)
                    .into_iter()
                    .filter(|n| n.kind() == "namespace_use_clause")
                    .collect();
                (Some(prefix), clauses)
            }
            None => (
                None,
                named_children(node)
                    .into_iter()
                    .filter(|n| n.kind() == "namespace_use_clause")
                    .collect(),
            ),
        };
        for clause in clauses {
            let kind = use_kind(clause).or(decl_kind);
            let Some(name) = named_children(clause)
                .into_iter()
                .find(|n| matches!(n.kind(), "name" | "qualified_name"))
                .filter(|n| clause.field("alias").is_none_or(|a| a.id() != n.id()))
            else {
                continue;
            };
            let written = self.raw_name(name);
            let written = written.trim_start_matches('\\');
            let fqn = match &prefix {
                Some(p) if !p.is_empty() => format!("{}\\{written}", p.trim_start_matches('\\')),
                _ => written.to_string(),
            };
            if fqn.is_empty() {
                continue;
            }
            let alias = clause.field("alias").map(|a| self.text(a));
            let (module, last) = match fqn.rsplit_once('\\') {
                Some((m, l)) => (m.to_string(), l.to_string()),
                None => (String::new(), fqn.clone()),
            };
            let local = alias.clone().unwrap_or_else(|| last.clone()).to_ascii_lowercase();
            let form = match kind {
                // Constants are no entities: a `use const` only names one.
                Some("const") => continue,
                Some(_) => {
                    self.names.functions.insert(local, fqn.clone());
                    ImportForm::Static
                }
                None => {
                    self.names.classes.insert(local, fqn.clone());
                    ImportForm::Plain
                }
            };
            self.facts.imports.push(Import {
                owner,
                direct: owner.is_none(),
                level: 0,
                module,
                name: Some(last),
                alias,
                line,
                stmt: *stmt,
                form,
                depth: 1,
            });
        }
        *stmt += 1;
    }

    /// Records a definition; returns its index.
    fn def(&mut self, c: &tree::Captured, name: Node, parent: Option<DefIdx>) -> DefIdx {
        let node = c.node;
        let kind = if c.kind == "def.class" { DefKind::Class } else { DefKind::Function };
        let body = node.field("body");
        let head = head_of(node);
        // PHPDoc sits above the attributes (`/** */ #[A] class X`), or between them and the
        // declaration.
        let doc = c.doc(self.src, is_phpdoc).or_else(|| {
            let prev = head.prev_sibling()?;
            let t = &self.src[prev.start_byte()..prev.end_byte()];
            (prev.kind() == "comment" && is_phpdoc(t))
                .then_some((prev.start_byte() as u32, prev.end_byte() as u32))
        });
        let byte_start =
            doc.map_or(node.start_byte() as u32, |d| d.0.min(node.start_byte() as u32));
        let line_start = node.start_position().row as u32 + 1
            - newlines(&self.src[byte_start as usize..node.start_byte().max(byte_start as usize)]);
        let mut bases = Vec::new();
        if kind == DefKind::Class {
            for clause in named_children(node) {
                if matches!(clause.kind(), "base_clause" | "class_interface_clause") {
                    for n in named_children(clause) {
                        if let Some(ch) = self.class_ref(n) {
                            bases.push(Expr::Dotted(ch));
                        }
                    }
                }
            }
            // Traits a class uses are written in its body: `use A, B { ... }`.
            if let Some(b) = body {
                for u in named_children(b).into_iter().filter(|n| n.kind() == "use_declaration") {
                    for n in named_children(u) {
                        if let Some(ch) = self.class_ref(n) {
                            bases.push(Expr::Dotted(ch));
                        }
                    }
                }
            }
        }
        let in_class = parent.is_some_and(|p| self.facts.defs[p as usize].kind == DefKind::Class);
        let (first_param, returns) = if kind == DefKind::Function {
            let is_static = named_children(node).iter().any(|m| m.kind() == "static_modifier");
            let fp = (in_class && !is_static).then(|| THIS.to_string());
            let ret =
                node.field("return_type").and_then(|t| self.type_chains(t).into_iter().next());
            (fp, ret)
        } else {
            (None, None)
        };
        let direct = match c.parent() {
            Some(p) => match p.kind() {
                "program" | "declaration_list" | "enum_declaration_list" => true,
                // A namespace's braced body, or a function's body.
                "compound_statement" => p.parent().is_some_and(|g| {
                    matches!(
                        g.kind(),
                        "namespace_definition" | "function_definition" | "method_declaration"
                    )
                }),
                _ => false,
            },
            None => false,
        };
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
            decorators: Vec::new(),
            deco_names: Vec::new(),
            first_param,
            returns,
            owner: None,
            namespace: false,
        };
        self.facts.defs.push(d);
        self.traits.push(node.kind() == "trait_declaration");
        (self.facts.defs.len() - 1) as DefIdx
    }

    /// A class named in code (`Foo`, `\A\Foo`, `namespace\Foo`, `self`, `static`), as a chain;
    /// None for anything else (`parent`, a variable, an expression).
    fn class_ref(&self, n: Node) -> Option<String> {
        match n.kind() {
            "name" | "qualified_name" | "relative_name" | "named_type" => {
                let raw = self.raw_name(n);
                if raw.is_empty() {
                    return None;
                }
                match raw.to_ascii_lowercase().as_str() {
                    "self" | "static" => Some("Self".to_string()),
                    "parent" => None,
                    _ => Some(fqn_chain(&self.names.resolve(&raw, NameKind::Class))),
                }
            }
            "relative_scope" => match self.text(n).to_ascii_lowercase().as_str() {
                "self" | "static" => Some("Self".to_string()),
                "parent" => Some("super".to_string()),
                _ => None,
            },
            _ => None,
        }
    }

    /// A function named in a call (`f`, `\A\f`, `A\f`, `namespace\f`), as a chain.
    fn function_chain(&self, n: Node) -> Option<String> {
        let raw = self.raw_name(n);
        if raw.is_empty() {
            return None;
        }
        let unqualified = n.kind() == "name";
        if unqualified && !self.names.functions.contains_key(&raw.to_ascii_lowercase()) {
            // `f()` in namespace `A`: `A\f`, else the global `f` (see the module's docs).
            if self.names.ns.is_empty() {
                return Some(format!("\\{raw}.{raw}"));
            }
            return Some(format!("{}\\{raw}.{raw}", self.names.ns));
        }
        Some(fqn_chain(&self.names.resolve(&raw, NameKind::Function)))
    }

    /// The classes a type names, as chains (`?A`, `A|B|null`, `A&B`); none for built-in types.
    fn type_chains(&self, t: Node) -> Vec<String> {
        match t.kind() {
            "named_type" => {
                named_children(t).into_iter().filter_map(|n| self.class_ref(n)).collect()
            }
            "name" | "qualified_name" | "relative_name" => self.class_ref(t).into_iter().collect(),
            "type"
            | "optional_type"
            | "union_type"
            | "intersection_type"
            | "type_list"
            | "disjunctive_normal_form_type" => {
                named_children(t).into_iter().flat_map(|n| self.type_chains(n)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The dotted chain of an object expression: `$x`, `$this`, `$this->a->b`.
    fn object_chain(&self, n: Node) -> Option<String> {
        match n.kind() {
            "variable_name" => {
                let name = n.named_child(0).filter(|c| c.kind() == "name")?;
                Some(format!("${}", self.text(name)))
            }
            "member_access_expression" | "nullsafe_member_access_expression" => {
                let obj = self.object_chain(n.field("object")?)?;
                let name = n.field("name").filter(|c| c.kind() == "name")?;
                Some(format!("{obj}.{}", self.text(name)))
            }
            "parenthesized_expression" => self.object_chain(n.named_child(0)?),
            _ => None,
        }
    }

    /// The chain of what a call expression calls (`$this.make`, `\A\Foo.Foo.create`, `A\f.f`),
    /// for the receiver of a call on its result.
    fn call_path(&self, n: Node) -> Option<String> {
        match n.kind() {
            "function_call_expression" => self.function_chain(n.field("function")?),
            "member_call_expression" | "nullsafe_member_call_expression" => {
                let obj = self.object_chain(n.field("object")?)?;
                let name = n.field("name").filter(|c| c.kind() == "name")?;
                Some(format!("{obj}.{}", self.text(name)))
            }
            "scoped_call_expression" => {
                let scope = self.scope_chain(n.field("scope")?)?;
                let name = n.field("name").filter(|c| c.kind() == "name")?;
                Some(format!("{scope}.{}", self.text(name)))
            }
            "object_creation_expression" => self.new_class(n),
            "parenthesized_expression" => self.call_path(n.named_child(0)?),
            _ => None,
        }
    }

    /// The scope of `X::m()`: a class, `Self`, `super`, or a variable (`$x::m()`).
    fn scope_chain(&self, n: Node) -> Option<String> {
        match n.kind() {
            "variable_name" => self.object_chain(n),
            _ => self.class_ref(n),
        }
    }

    /// The class a `new` expression instantiates, as a chain (None for `new class {}`,
    /// `new $cls`).
    fn new_class(&self, n: Node) -> Option<String> {
        let mut cursor = n.walk();
        let target = n.named_children(&mut cursor).find(|c| {
            matches!(c.kind(), "name" | "qualified_name" | "relative_name" | "anonymous_class")
        })?;
        if target.kind() == "anonymous_class" {
            return None;
        }
        self.class_ref(target)
    }

    /// What a call site calls (`new Foo` calls the class and its `__construct`).
    fn callees(&self, c: &tree::Captured) -> Vec<Callee> {
        let chain_or_attr = |recv: Option<String>, name: String| match recv {
            Some(r) => Callee::Chain(format!("{r}.{name}")),
            None => Callee::Attr(name),
        };
        match c.kind {
            "call" => {
                let Some(f) = c.get("call.function") else { return Vec::new() };
                if !matches!(f.kind(), "name" | "qualified_name" | "relative_name") {
                    return Vec::new(); // `$f()`, `(fn() => 1)()`: nothing to resolve
                }
                self.function_chain(f).map(Callee::Chain).into_iter().collect()
            }
            "call.member" => {
                let (Some(obj), Some(name)) = (c.get("call.object"), c.get("call.name")) else {
                    return Vec::new();
                };
                let name = self.text(name);
                if let Some(recv) = self.object_chain(obj) {
                    return vec![Callee::Chain(format!("{recv}.{name}"))];
                }
                let inner = match obj.kind() {
                    "parenthesized_expression" => obj.named_child(0).unwrap_or(obj),
                    _ => obj,
                };
                match self.call_path(inner) {
                    Some(p) => vec![Callee::OnCall(p, name)],
                    None => vec![Callee::Attr(name)],
                }
            }
            "call.scoped" => {
                let (Some(scope), Some(name)) = (c.get("call.scope"), c.get("call.name")) else {
                    return Vec::new();
                };
                vec![chain_or_attr(self.scope_chain(scope), self.text(name))]
            }
            _ => {
                let Some(class) = self.new_class(c.node) else { return Vec::new() };
                let ctor = Callee::Chain(format!("{class}.__construct"));
                let class =
                    if class.contains('.') { Callee::Chain(class) } else { Callee::Name(class) };
                vec![class, ctor]
            }
        }
    }

    /// Bindings of a parameter, property, `catch`, `instanceof` or assignment.
    fn binds(&mut self, c: &tree::Captured, owner: Option<DefIdx>) {
        let mut out: Vec<(Option<DefIdx>, String, BindValue)> = Vec::new();
        match c.kind {
            "bind.param" | "bind.promoted" => {
                let Some(name) = c.get("bind.name").and_then(|n| self.object_chain(n)) else {
                    return;
                };
                let types = match c.node.field("type") {
                    Some(t) => self.type_chains(t),
                    // `@param Foo $x` in the function's PHPDoc, for an untyped parameter.
                    None => self.param_doc_types(c.node, &name),
                };
                for ty in types {
                    if c.kind == "bind.promoted" {
                        // Also a property of the constructor's class.
                        let class = owner.and_then(|o| self.facts.defs[o as usize].parent);
                        if class.is_some() {
                            let prop = name.trim_start_matches('$').to_string();
                            out.push((class, prop, BindValue::Annotated(ty.clone())));
                        }
                    }
                    out.push((owner, name.clone(), BindValue::Annotated(ty)));
                }
            }
            "bind.property" => {
                let types = match c.node.field("type") {
                    Some(t) => self.type_chains(t),
                    // `/** @var Foo */` above an untyped property.
                    None => tree::doc_before(c.node, self.src, is_phpdoc)
                        .map(|(a, b)| {
                            self.doc_types(&self.src[a as usize..b as usize], "@var", None)
                        })
                        .unwrap_or_default(),
                };
                for el in
                    named_children(c.node).into_iter().filter(|n| n.kind() == "property_element")
                {
                    let Some(var) = el.field("name").and_then(|n| self.object_chain(n)) else {
                        continue;
                    };
                    let prop = var.trim_start_matches('$').to_string();
                    for ty in &types {
                        out.push((owner, prop.clone(), BindValue::Annotated(ty.clone())));
                    }
                    if types.is_empty()
                        && let Some(v) = el.field("default_value")
                        && let Some(value) = self.value(v)
                    {
                        out.push((owner, prop.clone(), value));
                    }
                }
            }
            "bind.catch" => {
                let (Some(t), Some(n)) = (c.get("bind.type"), c.get("bind.name")) else { return };
                let Some(name) = self.object_chain(n) else { return };
                for ty in self.type_chains(t) {
                    out.push((owner, name.clone(), BindValue::Annotated(ty)));
                }
            }
            "bind.instanceof" => {
                let (Some(l), Some(r)) = (c.get("bind.left"), c.get("bind.right")) else { return };
                let (Some(name), Some(ty)) = (self.object_chain(l), self.class_ref(r)) else {
                    return;
                };
                out.push((owner, name, BindValue::Annotated(ty)));
            }
            "bind.assign" => {
                let (Some(l), Some(r)) = (c.get("bind.left"), c.get("bind.right")) else { return };
                let Some(target) = self.object_chain(l) else { return };
                // `$x` or `$this.x`; deeper targets (`$a.b.c`) type nothing the driver reads.
                let dots = target.matches('.').count();
                if dots > 1 || (dots == 1 && !target.starts_with("$this.")) {
                    return;
                }
                let Some(value) = self.value(r) else { return };
                if matches!(&value, BindValue::Alias(a) if *a == target) {
                    return;
                }
                out.push((owner, target, value));
            }
            _ => {}
        }
        for (owner, target, value) in out {
            self.facts.binds.push(Bind { owner, target, value });
        }
    }

    /// The classes `@param T $name` gives an untyped parameter in its function's PHPDoc.
    fn param_doc_types(&self, param: Node, name: &str) -> Vec<String> {
        let Some(func) = param.parent().and_then(|p| p.parent()) else { return Vec::new() };
        if !matches!(func.kind(), "method_declaration" | "function_definition") {
            return Vec::new();
        }
        match tree::doc_before(func, self.src, is_phpdoc) {
            Some((a, b)) => self.doc_types(&self.src[a as usize..b as usize], "@param", Some(name)),
            None => Vec::new(),
        }
    }

    /// The classes a PHPDoc tag names (`@var \A\Foo|null`, `@param Foo $x`), as chains: arrays
    /// (`Foo[]`), built-in and pseudo types are left out, generics are dropped.
    fn doc_types(&self, doc: &[u8], tag: &str, var: Option<&str>) -> Vec<String> {
        let doc = crate::extract::source_text(doc);
        let mut out = Vec::new();
        for line in doc.lines() {
            let Some(at) = line.find(tag) else { continue };
            let rest = &line[at + tag.len()..];
            if !rest.starts_with(char::is_whitespace) {
                continue; // `@variable`, `@parameters`
            }
            // The type runs to the first space outside `<...>` (`Collection<int, Foo>`).
            let rest = rest.trim_start();
            let mut depth = 0i32;
            let end = rest
                .char_indices()
                .find(|&(_, ch)| {
                    match ch {
                        '<' | '{' | '(' => depth += 1,
                        '>' | '}' | ')' => depth -= 1,
                        _ => {}
                    }
                    depth <= 0 && ch.is_whitespace()
                })
                .map_or(rest.len(), |(i, _)| i);
            let ty = &rest[..end];
            if let Some(v) = var
                && rest[end..].split_whitespace().next() != Some(v)
            {
                continue;
            }
            for t in ty.split('|') {
                let t = t.trim_start_matches('?');
                let t = t.split('<').next().unwrap_or(t);
                if t.is_empty() || t.ends_with(']') || t.contains(['(', '{', '$', '&']) {
                    continue;
                }
                let lower = t.trim_start_matches('\\').to_ascii_lowercase();
                if DOC_PSEUDO_TYPES.contains(&lower.as_str()) {
                    continue;
                }
                out.push(match lower.as_str() {
                    "self" | "static" => "Self".to_string(),
                    _ => fqn_chain(&self.names.resolve(t, NameKind::Class)),
                });
            }
            break;
        }
        out
    }

    /// An assigned value that tells its class: `new Foo`, `Foo::make()`, `$this->make()`,
    /// `f()`, another variable, `clone $x`.
    fn value(&self, v: Node) -> Option<BindValue> {
        match v.kind() {
            "object_creation_expression" => self.new_class(v).map(BindValue::CallOf),
            "function_call_expression"
            | "member_call_expression"
            | "nullsafe_member_call_expression"
            | "scoped_call_expression" => self.call_path(v).map(BindValue::CallOf),
            "variable_name" | "member_access_expression" | "nullsafe_member_access_expression" => {
                self.object_chain(v).map(BindValue::Alias)
            }
            "clone_expression" | "parenthesized_expression" => self.value(v.named_child(0)?),
            _ => None,
        }
    }

    /// The path a `require`/`include` names, when it is a literal: `'x.php'` as written,
    /// `__DIR__ . '/x.php'` as `./x.php`, `dirname(__DIR__, 2) . '/x.php'` as `./../../x.php`.
    fn include_path(&self, e: Node) -> Option<String> {
        match e.kind() {
            "string" | "encapsed_string" => self.literal(e),
            "parenthesized_expression" => self.include_path(e.named_child(0)?),
            "binary_expression" => {
                let op = e.field("operator")?;
                if op.kind() != "." {
                    return None;
                }
                let base = self.dir_expr(e.field("left")?)?;
                let rest = self.literal(e.field("right")?)?;
                Some(format!("{base}/{}", rest.trim_start_matches('/')))
            }
            _ => None,
        }
    }

    /// `__DIR__` -> `.`, `dirname(__FILE__)` -> `.`, `dirname(__DIR__, 2)` -> `./../..`.
    fn dir_expr(&self, n: Node) -> Option<String> {
        match n.kind() {
            "name" => match self.text(n).as_str() {
                "__DIR__" => Some(".".to_string()),
                _ => None,
            },
            "function_call_expression" => {
                let f = n.field("function")?;
                if !self.text(f).eq_ignore_ascii_case("dirname") {
                    return None;
                }
                let args: Vec<Node> = named_children(n.field("arguments")?)
                    .into_iter()
                    .filter_map(|a| a.named_child(0))
                    .collect();
                let inner = match self.text(*args.first()?).as_str() {
                    "__FILE__" => ".".to_string(),
                    _ => self.dir_expr(args[0])?,
                };
                let levels: usize = match args.get(1) {
                    Some(l) => self.text(*l).parse().ok().filter(|&k| (1..=16).contains(&k))?,
                    None => 1,
                };
                let mut out = inner;
                if out == "." && self.text(args[0]) == "__FILE__" {
                    // `dirname(__FILE__)` is the file's directory.
                    for _ in 1..levels {
                        out.push_str("/..");
                    }
                    return Some(out);
                }
                for _ in 0..levels {
                    out.push_str("/..");
                }
                Some(out)
            }
            "parenthesized_expression" => self.dir_expr(n.named_child(0)?),
            _ => None,
        }
    }

    /// A string literal without interpolation.
    fn literal(&self, n: Node) -> Option<String> {
        if !matches!(n.kind(), "string" | "encapsed_string") {
            return None;
        }
        let mut out = String::new();
        for ch in named_children(n) {
            match ch.kind() {
                "string_content" => out.push_str(&self.text(ch)),
                _ => return None,
            }
        }
        (!out.is_empty() && out.len() < 512).then_some(out)
    }

    /// Rewrites receivers the driver could not type into attribute calls (guessed among the
    /// caller's visible classes): a variable with no binding in its function, `$this`, `self`
    /// and `parent` outside a class, and `$this`/`self` in a trait for a method the trait does
    /// not declare (the class using the trait has it).
    fn settle_receivers(&mut self) {
        let bound: HashSet<(Option<DefIdx>, &str)> =
            self.facts.binds.iter().map(|b| (b.owner, b.target.as_str())).collect();
        let mut members: HashSet<(DefIdx, &str)> = HashSet::new();
        for d in &self.facts.defs {
            if let Some(p) = d.parent {
                members.insert((p, d.name.as_str()));
            }
        }
        let defs = &self.facts.defs;
        let traits = &self.traits;
        // The innermost class-like definition around `o`, and whether a method's `$this` is
        // reached on the way.
        let class_of = |mut o: Option<DefIdx>| -> (Option<DefIdx>, bool) {
            let mut this = false;
            while let Some(i) = o {
                let d = &defs[i as usize];
                if d.kind == DefKind::Class {
                    return (Some(i), this);
                }
                this |= d.first_param.as_deref() == Some(THIS);
                o = d.parent;
            }
            (None, this)
        };
        let mut out: Vec<Option<Callee>> = Vec::with_capacity(self.facts.calls.len());
        for call in &self.facts.calls {
            let (head, rest, last) = match &call.callee {
                Callee::Chain(c) => {
                    let head = c.split('.').next().unwrap_or(c);
                    let last = c.rsplit('.').next().unwrap_or(c);
                    (head, c.len() - head.len(), last)
                }
                Callee::OnCall(c, a) => (c.split('.').next().unwrap_or(c), 1, a.as_str()),
                _ => {
                    out.push(None);
                    continue;
                }
            };
            let (class, this) = class_of(call.owner);
            let known = match head {
                THIS => this,
                "Self" | "super" => class.is_some(),
                h if h.starts_with('$') => bound.contains(&(call.owner, h)),
                _ => true,
            };
            let trait_miss = matches!(head, THIS | "Self" | "super")
                && rest == last.len() + 1
                && matches!(&call.callee, Callee::Chain(_))
                && class.is_some_and(|c| {
                    traits[c as usize] && (head == "super" || !members.contains(&(c, last)))
                });
            out.push((!known || trait_miss).then(|| Callee::Attr(last.to_string())));
        }
        for (call, new) in self.facts.calls.iter_mut().zip(out) {
            if let Some(n) = new {
                call.callee = n;
            }
        }
    }
}

/// Types PHPDoc writes that are no class.
const DOC_PSEUDO_TYPES: &[&str] = &[
    "string",
    "int",
    "integer",
    "float",
    "double",
    "bool",
    "boolean",
    "array",
    "mixed",
    "object",
    "callable",
    "iterable",
    "null",
    "void",
    "never",
    "false",
    "true",
    "resource",
    "scalar",
    "numeric",
    "number",
    "class-string",
    "list",
    "non-empty-array",
    "non-empty-list",
    "non-empty-string",
    "positive-int",
    "negative-int",
    "array-key",
    "callable-string",
    "closure",
    "parent",
];

/// `use function ...` / `use const ...`: the clause's or declaration's type keyword.
fn use_kind(n: Node) -> Option<&'static str> {
    let t = n.field("type")?;
    match t.kind().to_ascii_lowercase().as_str() {
        "function" => Some("function"),
        "const" => Some("const"),
        _ => None,
    }
}

/// Appends the name tokens of a (qualified) name: `name`, `\`, `namespace`.
fn collect_name(n: Node, src: &[u8], out: &mut String) {
    if n.child_count() == 0 {
        if n.kind() != "comment" {
            out.push_str(&crate::extract::source_text(&src[n.start_byte()..n.end_byte()]));
        }
        return;
    }
    let mut cursor = n.walk();
    for c in n.children(&mut cursor) {
        collect_name(c, src, out);
    }
}

/// Named children of a node.
fn named_children(n: Node) -> Vec<Node> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor).collect()
}

/// `/** ... */` (not the empty `/**/`).
fn is_phpdoc(t: &[u8]) -> bool {
    t.starts_with(b"/**") && t != b"/**/"
}

/// A definition's own first token: its first modifier or keyword, after its attributes.
fn head_of(decl: Node) -> Node {
    let mut cursor = decl.walk();
    let first = decl
        .children(&mut cursor)
        .find(|c| c.kind() != "attribute_list" && c.kind() != "comment" && !c.is_extra());
    first.unwrap_or(decl)
}

/// The number of line breaks in some bytes.
fn newlines(b: &[u8]) -> u32 {
    b.iter().filter(|&&c| c == b'\n').count() as u32
}
