//! Ruby: the tree-sitter grammar and `queries/ruby/facts.scm` -> [`FileFacts`], and the
//! language's load-path and constant rules for the linker (`resolve`).
//!
//! Entities (DESIGN.md §8): `class` and `module` are classes (a module is also a namespace: the
//! module-level entity of what it holds is cut after it), named by their whole path
//! (`class A::B` is `A.B`); `def m` and `def self.m` are both functions `m`, and so is a `def`
//! in a `class << self` body (the class's) and `define_method(:m) do ... end` with a literal
//! name. Singleton definitions on other objects (`def obj.m`, `class << obj`), blocks, lambdas
//! and procs are not entities: their code belongs to the enclosing definition.
//!
//! Facts: `require`, `require_relative`, `load` and `autoload` with a literal path (or
//! `File.expand_path("../x", __FILE__)`) are imports of everything the file defines and
//! requires in turn (re-exports: what is loaded is global);
//! `include`, `extend` and `prepend` of constants are bases of the enclosing class or module,
//! beside `< Superclass`. Calls keep their receiver as a dotted chain (`Foo::Bar.baz` is
//! `Foo.Bar.baz`, `self.m`, `@x.m` is `self.@x.m`); `Foo.new` calls `Foo` and
//! `Foo.initialize`; `super` calls the enclosing method's name on the ancestors. A bare
//! identifier is a call of a method of `self` unless it is a local variable by then (a
//! parameter, an assignment's target, a block parameter, a rescue variable): Ruby's own rule.

mod resolve;

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use tree_sitter::Node;

use crate::extract::tree::Field as _;
use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, Import, ImportForm, tree,
};

pub use resolve::Resolver;

/// The facts query, compiled into the binary.
pub const FACTS_QUERY: &str = include_str!("../../../queries/ruby/facts.scm");

/// Main capture names of the facts query (the others qualify them).
const MAIN: &[&str] = &[
    "def.class",
    "def.module",
    "def.method",
    "def.singleton",
    "eigen",
    "call",
    "super",
    "ident",
    "bind",
    "comment",
];

/// The tree-sitter language.
pub fn language() -> tree_sitter::Language {
    tree_sitter_ruby::LANGUAGE.into()
}

/// The compiled facts patterns (compiled once per process, matched by [`crate::lang::matcher`]).
fn patterns() -> &'static crate::lang::matcher::Patterns {
    static PATTERNS: OnceLock<crate::lang::matcher::Patterns> = OnceLock::new();
    tree::patterns(&PATTERNS, language(), FACTS_QUERY, "queries/ruby/facts.scm")
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
        // A byte-order mark is no Ruby token: blank it (same length, so offsets hold).
        let blanked;
        let src = match src.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => {
                blanked = [b"   ", rest].concat();
                &blanked[..]
            }
            None => src,
        };
        let parsed = tree::parse(&mut self.0.parser, src);
        let mut facts = tree::base_facts(src, parsed.as_ref().map(|t| t.root_node()));
        let Some(t) = parsed.as_ref() else { return facts };
        let items = patterns().captures(t.root_node(), |n| MAIN.contains(&n));
        Builder { src, facts: &mut facts, locals: HashMap::new(), comments: Vec::new(), stmt: 0 }
            .run(&items);
        facts
    }
}

/// Walks the sorted captures, nesting them by byte range.
struct Builder<'s, 'f> {
    src: &'s [u8],
    facts: &'f mut FileFacts,
    /// Local variables seen so far, per scope (the innermost definition; None: top level).
    locals: HashMap<Option<DefIdx>, HashSet<&'s [u8]>>,
    /// The comments seen so far that may be docs: (start byte, end byte, first row, last row).
    comments: Vec<(u32, u32, usize, usize)>,
    stmt: u32,
}

impl<'s> Builder<'s, '_> {
    fn text(&self, n: Node) -> String {
        tree::text(n, self.src)
    }

    fn run(&mut self, items: &[tree::Captured]) {
        let mut nest = tree::Nest::default();
        // `class << x` bodies: (end byte, whether x is `self`), innermost last.
        let mut eigen: Vec<(usize, bool)> = Vec::new();
        for c in items {
            let start = c.node.start_byte();
            while eigen.last().is_some_and(|&(end, _)| end <= start) {
                eigen.pop();
            }
            let owner = nest.owner_at(start);
            match c.kind {
                "def.class" | "def.module" => {
                    let Some(name) = c.get("def.name").and_then(|n| self.const_path(n)) else {
                        continue;
                    };
                    let module = c.kind == "def.module";
                    let i = self.def(c.node, DefKind::Class, name, owner, module);
                    if let Some(sc) = c.node.field("superclass")
                        && let Some(e) = sc.named_child(0)
                        && let Some(base) = self.superclass(e)
                    {
                        self.facts.defs[i as usize].bases.push(Expr::Dotted(base));
                    }
                    nest.push(i, c.node.end_byte());
                }
                "def.method" | "def.singleton" => {
                    if eigen.last().is_some_and(|&(_, is_self)| !is_self) {
                        continue; // `class << obj`: a method of some object, not an entity
                    }
                    if c.kind == "def.singleton"
                        && !c.get("def.object").is_some_and(|o| self.is_self(o, owner))
                    {
                        continue; // `def obj.m`
                    }
                    let Some(name) = c.get("def.name").map(|n| self.text(n)) else { continue };
                    let i = self.def(c.node, DefKind::Function, name, owner, false);
                    nest.push(i, c.node.end_byte());
                }
                "eigen" => {
                    let is_self = c.get("def.object").is_some_and(|o| self.is_self(o, owner));
                    eigen.push((c.node.end_byte(), is_self));
                }
                "call" => {
                    if let Some(i) = self.call(c.node, owner) {
                        nest.push(i, c.node.end_byte());
                    }
                }
                "super" => {
                    if let Some(m) = self.method_of(owner) {
                        let callee = Callee::Chain(format!("super.{m}"));
                        self.push_call(owner, callee, c.node);
                    }
                }
                "ident" => {
                    if let Some(p) = c.get("ident.parent") {
                        self.ident(c.node, p, owner);
                    }
                }
                "bind" => self.bind(c, owner),
                "comment" => {
                    let n = c.node;
                    let t = &self.src[n.start_byte()..n.end_byte()];
                    let line_start = self.src[..n.start_byte()]
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |i| i + 1);
                    let first_on_line = self.src[line_start..n.start_byte()]
                        .iter()
                        .all(|b| b.is_ascii_whitespace());
                    // Not a shebang or a magic comment (`# frozen_string_literal: true`).
                    let magic = [&b"frozen_string_literal:"[..], b"encoding:", b"-*-"]
                        .iter()
                        .any(|m| t.windows(m.len()).any(|w| w == *m));
                    let doc = ((t.starts_with(b"#") && !t.starts_with(b"#!"))
                        || t.starts_with(b"=begin"))
                        && !magic;
                    if first_on_line && doc {
                        let (s, e) = (n.start_position().row, n.end_position().row);
                        self.comments.push((n.start_byte() as u32, n.end_byte() as u32, s, e));
                    }
                }
                _ => {}
            }
        }
    }

    /// Records a definition; returns its index.
    fn def(
        &mut self,
        node: Node,
        kind: DefKind,
        name: String,
        parent: Option<DefIdx>,
        namespace: bool,
    ) -> DefIdx {
        let doc = self.doc_of(node);
        let byte_start =
            doc.map_or(node.start_byte() as u32, |d| d.0.min(node.start_byte() as u32));
        let line_start = if doc.is_some() {
            tree::line_back(node, self.src, byte_start as usize)
        } else {
            node.start_position().row as u32 + 1
        };
        let sig = ["parameters", "superclass", "name", "arguments"]
            .iter()
            .find_map(|f| node.child_by_field_name(f))
            .map_or(node.end_byte(), |n| n.end_byte());
        let direct =
            node.parent().is_some_and(|p| matches!(p.kind(), "program" | "body_statement"));
        let d = Def {
            kind,
            name,
            parent,
            is_async: false,
            direct,
            line_start,
            line_head: node.start_position().row as u32 + 1,
            line_end: node.end_position().row as u32 + 1,
            byte_start,
            byte_head: node.start_byte() as u32,
            byte_sig_end: sig as u32,
            byte_end: node.end_byte() as u32,
            doc,
            bases: Vec::new(),
            decorators: Vec::new(),
            deco_names: Vec::new(),
            first_param: (kind == DefKind::Function).then(|| "self".to_string()),
            returns: None,
            owner: None,
            namespace,
        };
        self.facts.defs.push(d);
        (self.facts.defs.len() - 1) as DefIdx
    }

    /// The `#` comment block (or `=begin`/`=end` block) on the lines directly above a
    /// definition, each comment first on its line.
    fn doc_of(&self, node: Node) -> Option<(u32, u32)> {
        let start = node.start_byte() as u32;
        let mut row = node.start_position().row;
        let mut first: Option<(u32, u32)> = None;
        let before = self.comments.partition_point(|c| c.1 <= start);
        for &(s, e, r0, r1) in self.comments[..before].iter().rev() {
            if r1 + 1 != row {
                break;
            }
            first = Some((s, first.map_or(e, |f| f.1)));
            row = r0;
        }
        first
    }

    /// Whether the object of `def x.m` / `class << x` is the enclosing class: `self`, or the
    /// class's own name.
    fn is_self(&self, o: Node, owner: Option<DefIdx>) -> bool {
        match o.kind() {
            "self" => true,
            "constant" | "scope_resolution" => owner.is_some_and(|p| {
                let d = &self.facts.defs[p as usize];
                d.kind == DefKind::Class
                    && self
                        .const_path(o)
                        .is_some_and(|n| d.name.rsplit('.').next() == n.rsplit('.').next())
            }),
            _ => false,
        }
    }

    /// The name of the method enclosing `owner` (blocks and nested definitions included).
    fn method_of(&self, mut owner: Option<DefIdx>) -> Option<String> {
        while let Some(o) = owner {
            let d = &self.facts.defs[o as usize];
            if d.kind == DefKind::Function {
                return Some(d.name.clone());
            }
            owner = d.parent;
        }
        None
    }

    fn push_call(&mut self, owner: Option<DefIdx>, callee: Callee, at: Node) {
        let line = at.start_position().row as u32 + 1;
        self.facts.calls.push(Call { owner, deco_of: None, callee, line });
    }

    /// One `call` node: an import, a mixin, a `define_method`, or calls. Returns the index of
    /// a definition it makes.
    fn call(&mut self, node: Node, owner: Option<DefIdx>) -> Option<DefIdx> {
        let method = node.field("method")?;
        if !matches!(method.kind(), "identifier" | "constant" | "operator") {
            return None; // `super(...)`: see the `super` capture
        }
        let m = self.text(method);
        let recv = node.field("receiver");
        let args = node.field("arguments");
        let arg = |i: usize| args.and_then(|a| named(a).into_iter().nth(i));
        match (recv, m.as_str()) {
            (None, "require" | "require_relative" | "load" | "autoload") => {
                let path = if m == "autoload" { arg(1) } else { arg(0) };
                if let Some(p) = path
                    && let Some((module, relative)) = self.required(p, m == "require_relative")
                {
                    self.facts.imports.push(Import {
                        owner,
                        direct: owner.is_none(),
                        level: u32::from(relative),
                        module,
                        name: Some("*".to_string()),
                        alias: None,
                        line: node.start_position().row as u32 + 1,
                        stmt: self.stmt,
                        // What a required file requires is loaded too, and global.
                        form: ImportForm::ReExport,
                        depth: 1,
                    });
                    self.stmt += 1;
                    return None;
                }
            }
            (None, "include" | "extend" | "prepend") => {
                if let Some(o) =
                    owner.filter(|&o| self.facts.defs[o as usize].kind == DefKind::Class)
                {
                    for a in args.map(named).unwrap_or_default() {
                        if let Some(base) = self.const_path(a) {
                            self.facts.defs[o as usize].bases.push(Expr::Dotted(base));
                        }
                    }
                    return None;
                }
            }
            (None, "define_method") => {
                let in_class =
                    owner.is_none_or(|o| self.facts.defs[o as usize].kind == DefKind::Class);
                let block = node.field("block");
                if in_class
                    && block.is_some()
                    && let Some(name) = arg(0).and_then(|a| self.symbol(a))
                {
                    return Some(self.def(node, DefKind::Function, name, owner, false));
                }
            }
            (None, "send" | "public_send" | "__send__") => {
                if let Some(name) = arg(0).and_then(|a| self.symbol(a)) {
                    self.push_call(owner, Callee::Name(name), node);
                }
            }
            _ => {}
        }
        let in_method = self.method_of(owner).is_some();
        let Some(r) = recv else {
            // `new(...)` in a class method: `self.new`, which runs `initialize`.
            let callee = match m.as_str() {
                "new" if in_method => Callee::Chain("self.initialize".to_string()),
                "new" => return None,
                _ => Callee::Name(m),
            };
            self.push_call(owner, callee, node);
            return None;
        };
        let callee = match r.kind() {
            // In a class body `self` is the class: its methods are names there.
            "self" if !in_method => Callee::Name(m),
            "self" => Callee::Chain(format!("self.{m}")),
            "constant" | "scope_resolution" => match self.const_path(r) {
                Some(c) if m == "new" => {
                    let class = if c.contains('.') {
                        Callee::Chain(c.clone())
                    } else {
                        Callee::Name(c.clone())
                    };
                    self.push_call(owner, class, node);
                    Callee::Chain(format!("{c}.initialize"))
                }
                Some(c) => Callee::Chain(format!("{c}.{m}")),
                None => Callee::Attr(m),
            },
            "identifier" => Callee::Chain(format!("{}.{m}", self.text(r))),
            "instance_variable" => Callee::Chain(format!("self.{}.{m}", self.text(r))),
            "call" => match self.new_of(r) {
                Some(c) => Callee::OnCall(c, m),
                None => Callee::Attr(m),
            },
            _ => Callee::Attr(m),
        };
        self.push_call(owner, callee, node);
        None
    }

    /// `Foo::Bar.new` -> `Foo.Bar`.
    fn new_of(&self, call: Node) -> Option<String> {
        let m = call.field("method")?;
        if &self.src[m.start_byte()..m.end_byte()] != b"new" {
            return None;
        }
        self.const_path(call.field("receiver")?)
    }

    /// The path a `require` names: a literal string, or `File.expand_path("../x", __FILE__)`
    /// (relative to the file). Returns the path and whether it is relative to the file.
    fn required(&self, arg: Node, relative: bool) -> Option<(String, bool)> {
        if let Some(s) = self.string(arg) {
            return Some((s, relative));
        }
        // `File.expand_path("../x", __FILE__)`: `x` beside the file.
        if arg.kind() == "call"
            && arg.field("method").is_some_and(|m| self.text(m) == "expand_path")
            && let Some(args) = arg.field("arguments")
        {
            let a = named(args);
            if a.len() == 2 && self.text(a[1]) == "__FILE__" {
                let s = self.string(a[0])?;
                let s = s.strip_prefix("../")?;
                return Some((s.to_string(), true));
            }
        }
        None
    }

    /// A string literal without interpolation.
    fn string(&self, n: Node) -> Option<String> {
        if n.kind() != "string" {
            return None;
        }
        let parts = named(n);
        if parts.iter().any(|p| p.kind() != "string_content") {
            return None;
        }
        Some(parts.iter().map(|p| self.text(*p)).collect())
    }

    /// `:name` or `"name"` as a method name.
    fn symbol(&self, n: Node) -> Option<String> {
        match n.kind() {
            "simple_symbol" => Some(self.text(n).trim_start_matches(':').to_string()),
            "string" => self.string(n),
            _ => None,
        }
    }

    /// A constant path as a dotted chain: `Foo`, `A::B` -> `A.B`, `::A` -> `A`.
    fn const_path(&self, n: Node) -> Option<String> {
        match n.kind() {
            "constant" => Some(self.text(n)),
            "scope_resolution" => {
                let name = self.text(n.field("name")?);
                match n.field("scope") {
                    None => Some(name),
                    Some(s) => Some(format!("{}.{name}", self.const_path(s)?)),
                }
            }
            _ => None,
        }
    }

    /// A superclass expression: a constant path, also `Migration[7.0]`.
    fn superclass(&self, e: Node) -> Option<String> {
        match e.kind() {
            "element_reference" => self.const_path(e.field("object")?),
            _ => self.const_path(e),
        }
    }

    /// A bare identifier: a local variable being bound or read, or a call of a method of
    /// `self` (without arguments: with them it is a `call` node).
    fn ident(&mut self, n: Node, p: Node, owner: Option<DefIdx>) {
        let is = |field: &str| p.child_by_field_name(field).is_some_and(|c| c.id() == n.id());
        let binds = match p.kind() {
            "method" | "singleton_method" | "setter" | "alias" | "undef" => return,
            "call" if is("method") => return,
            "method_parameters"
            | "lambda_parameters"
            | "block_parameters"
            | "splat_parameter"
            | "hash_splat_parameter"
            | "block_parameter"
            | "destructured_parameter"
            | "left_assignment_list"
            | "rest_assignment"
            | "destructured_left_assignment"
            | "exception_variable"
            | "array_pattern"
            | "find_pattern"
            | "hash_pattern"
            | "keyword_pattern"
            | "as_pattern" => true,
            "optional_parameter" | "keyword_parameter" => is("name"),
            "assignment" | "operator_assignment" => is("left"),
            "for" => is("pattern"),
            "in_clause" => is("pattern"),
            _ => false,
        };
        let src: &'s [u8] = self.src;
        let name = &src[n.start_byte()..n.end_byte()];
        if name.starts_with(b"__") && name.ends_with(b"__") {
            return; // `__FILE__`, `__LINE__`
        }
        let set = self.locals.entry(owner).or_default();
        if binds {
            set.insert(name);
        } else if !set.contains(name) {
            let name = crate::extract::source_text(name).into_owned();
            self.push_call(owner, Callee::Name(name), n);
        }
    }

    /// `x = Foo.new`, `@x ||= Foo::Bar.new`: the variable holds a `Foo`.
    fn bind(&mut self, c: &tree::Captured, owner: Option<DefIdx>) {
        let (Some(l), Some(r)) = (c.get("bind.left"), c.get("bind.right")) else { return };
        let Some(class) = self.new_of(r) else { return };
        let target = match l.kind() {
            "identifier" => self.text(l),
            "instance_variable" => format!("self.{}", self.text(l)),
            _ => return,
        };
        self.facts.binds.push(Bind { owner, target, value: BindValue::CallOf(class) });
    }
}

/// Named children of a node.
fn named(n: Node) -> Vec<Node> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor).collect()
}

#[cfg(test)]
mod tests;
