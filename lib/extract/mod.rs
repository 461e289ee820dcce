//! File bytes -> [`FileFacts`]: what one source file defines, imports and calls.
//!
//! Extraction is a pure function of (path, bytes, language), so it runs in parallel, once per
//! changed file, and its output is cached between builds (see `index::cache`). Everything the
//! linkers need (the native one in `graph::link` and the LocAgent-compatible one in
//! `graph::compat`) must be recorded here: the linkers never look at syntax trees.
//!
//! Positions: lines are 1-based, bytes are offsets into the file.

pub mod tree;

use rkyv::{Archive, Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Source bytes as text, without loss: UTF-8 as it is, and each byte that is not part of UTF-8
/// as the Latin-1 character of its value (`\xe9` -> `é`). It is how names, signatures and
/// shown code become text, so a name in a Latin-1 or cp1252 file (a Python 2 module declaring
/// `coding: latin-1`, old Windows code) keeps every character and its ID is UTF-8 text that a
/// tool reads back as printed. For the Latin-1 family this is the file's own reading;
/// replacing such bytes with U+FFFD (`from_utf8_lossy`, bstr's `to_str_lossy`) made
/// `r\xe9sum\xe9` and `r\xe8sum\xe8` one name, and bstr's escaped form (`r\xE9sum\xE9`) is
/// a backslash the ID escaping would double.
pub fn source_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + bytes.len() / 8);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                out.extend(chunk.invalid().iter().map(|&b| char::from(b)));
            }
            Cow::Owned(out)
        }
    }
}

/// Index of a [`Def`] inside its file's `defs` (pre-order, so parents come first).
pub type DefIdx = u32;

/// Facts extracted from one file.
#[derive(Debug, Clone, Default, PartialEq, Archive, Serialize, Deserialize)]
pub struct FileFacts {
    /// Definitions in pre-order (a parent before its children, siblings in source order).
    pub defs: Vec<Def>,
    /// Import statements in source order.
    pub imports: Vec<Import>,
    /// Call sites in source order.
    pub calls: Vec<Call>,
    /// Simple bindings usable for receiver typing: `x = Foo()`, `self.x = Foo()`, `x: Foo`.
    pub binds: Vec<Bind>,
    /// Number of lines in the file.
    pub lines: u32,
    /// Syntax error nodes (ERROR / MISSING) the parser had to recover from.
    pub syntax_errors: u32,
    /// True when Python 3.12's `ast.parse` would reject the file's text as LocAgent reads it
    /// (plain UTF-8, so a byte-order mark stays in): syntax errors, Python 2 forms such as
    /// `print "x"` or `except E, e`, stray indentation, an empty body, NUL bytes. LocAgent
    /// compatibility keeps such files as bare, orphan file nodes.
    pub py3_invalid: bool,
    /// Line of the first syntax error, for messages (0 when none).
    pub first_error_line: u32,
    /// The file's package or namespace as written (`package a.b;` in Java, `package x` in Go).
    pub package: Option<String>,
    /// Inheritance written outside a type's own definition: Rust's `impl Trait for Type`.
    pub impls: Vec<Impl>,
    /// Minified or generated: lines far longer than people write (a bundle, a `.min.js`).
    /// Indexed all the same, but search and localization rank it below hand-written code.
    pub generated: bool,
    /// Python only: the value flow of the file (assignments, returns, call arguments, ...),
    /// for the points-to analysis in `graph::link`.
    pub flow: PyFlow,
    /// Python only: the names the module's `__all__` lists when module-level statements give
    /// it literal strings (`= [...]`, `+= [...]`, `.extend([...])`, `.append("x")`, `+`); an
    /// entry `*a.__all__` or `*name` stands for another module's list (an attribute of an
    /// imported module, or a name imported as one). None: no `__all__`, or one the analysis
    /// cannot read (then `from m import *` binds m's public names).
    pub all: Option<Vec<String>>,
}

/// No expression (a constant, or something the analysis does not follow).
pub const NO_EXPR: u32 = u32::MAX;
/// In a call's positional arguments: `*args`, after which positions are unknown.
pub const STAR_ARG: u32 = u32::MAX - 1;

/// A run of [`PyFlow::lists`]: `len` entries from `start`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Span {
    /// First entry.
    pub start: u32,
    /// Number of entries.
    pub len: u32,
}

/// Python value flow of one file: an arena of expressions and the statements that move values
/// between them. Expressions refer to each other by index into [`PyFlow::exprs`], to names and
/// strings by index into the file's string table ([`PyFlow::str`]), and to their operands
/// (arguments, items) by [`Span`]s of [`PyFlow::lists`]. Everything is a few flat arrays: a
/// file's flow costs a handful of allocations, in memory and in the facts cache.
#[derive(Debug, Clone, Default, PartialEq, Archive, Serialize, Deserialize)]
pub struct PyFlow {
    /// The names and strings the expressions use, each once, end to end.
    pub text: String,
    /// Where each string ends in `text` (string `i` starts where string `i - 1` ends).
    pub ends: Vec<u32>,
    /// Expressions; each with its owner in [`PyFlow::owners`].
    pub exprs: Vec<PyExpr>,
    /// The innermost definition containing each expression ([`NO_EXPR`] at module level).
    pub owners: Vec<u32>,
    /// Operand lists: call arguments, collection and union items, parameter and global names.
    pub lists: Vec<u32>,
    /// Value-moving statements.
    pub stmts: Vec<FlowStmt>,
    /// For each entry of [`FileFacts::calls`]: its `Call` expression, or [`NO_EXPR`].
    pub call_exprs: Vec<u32>,
    /// Per definition: its parameter names in order (`*` for `*args`, `**` for `**kwargs`),
    /// string ids in `lists`.
    pub params: Vec<Span>,
}

/// For benchmarks only: with `CDS_BENCH_NO_FLOW=1` in the environment, Python files get no
/// value-flow facts and the linker no value-flow solve, so bench/callgraph.sh can time the same
/// build without the value flow. The build's options record it, so facts extracted so are
/// never reused by a normal build (nor the other way round).
pub fn bench_no_flow() -> bool {
    static NO_FLOW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *NO_FLOW.get_or_init(|| std::env::var_os("CDS_BENCH_NO_FLOW").is_some_and(|v| v == "1"))
}

impl PyFlow {
    /// String `s` of the file's string table.
    pub fn str(&self, s: u32) -> &str {
        let s = s as usize;
        let end = self.ends.get(s).map_or(0, |&e| e as usize);
        let start = if s == 0 { 0 } else { self.ends.get(s - 1).map_or(0, |&e| e as usize) };
        self.text.get(start..end).unwrap_or("")
    }

    /// The entries of a span of `lists`.
    pub fn list(&self, s: Span) -> &[u32] {
        let (a, n) = (s.start as usize, s.len as usize);
        self.lists.get(a..a + n).unwrap_or(&[])
    }

    /// A call's operands ([`PyExpr::Call`]): positional arguments ([`STAR_ARG`] for a splat),
    /// keyword names (string ids) and keyword values.
    pub fn call_args(&self, s: Span) -> (&[u32], &[u32], &[u32]) {
        let l = self.list(s);
        let Some((&npos, rest)) = l.split_first() else { return (&[], &[], &[]) };
        let npos = (npos as usize).min(rest.len());
        let (pos, kw) = rest.split_at(npos);
        let (kn, kv) = kw.split_at(kw.len() / 2);
        (pos, kn, kv)
    }

    /// The parameter names (string ids) of definition `d`, if it has a parameter list entry.
    pub fn params(&self, d: u32) -> Option<&[u32]> {
        self.params.get(d as usize).map(|&s| self.list(s))
    }
}

/// One expression of the value flow (strings are ids of [`PyFlow::str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum PyExpr {
    /// A bare name.
    Name(u32),
    /// `obj.attr`.
    Attr(u32, u32),
    /// A call: callee, and its operands ([`PyFlow::call_args`]: the number of positional
    /// arguments, the positional arguments, the keyword names, the keyword values).
    Call(u32, Span),
    /// An element of a container: `x[i]`, iteration, unpacking.
    Item(u32),
    /// A list, tuple, set or dict literal (dict values), or a comprehension: its elements.
    Coll(Span),
    /// Any of these values (`a or b`, `a if c else b`).
    Union(Span),
    /// A binary operator applied to an operand: the operand and the dunder method it calls.
    Op(u32, u32),
    /// A short string literal.
    Str(u32),
}

/// A statement that moves values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum FlowStmt {
    /// `target = value` (targets are `Name`, `Attr`, `Item` or `Coll` expressions).
    Assign(u32, u32),
    /// `return value` in definition `owner` (a `yield x` returns a one-element `Coll`).
    Return(DefIdx, u32),
    /// `for target in iter` (also comprehensions).
    For(u32, u32),
    /// `with value as target` (target [`NO_EXPR`] when there is none).
    With(u32, u32),
    /// A decorator expression applied to definition `def` (innermost first).
    Deco(DefIdx, u32),
    /// `global` / `nonlocal` names (string ids in `lists`) declared in a definition.
    Global(DefIdx, Span),
}

/// Kind of a definition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Archive, Serialize, Deserialize)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum DefKind {
    /// `class Name(...):`, and every language's class-like definitions.
    Class,
    /// `def name(...):` or `async def`, and every language's function-like definitions.
    #[default]
    Function,
}

/// One class or function definition.
#[derive(Debug, Clone, Default, PartialEq, Archive, Serialize, Deserialize)]
pub struct Def {
    /// Class or function.
    pub kind: DefKind,
    /// The bare name.
    pub name: String,
    /// The enclosing definition, if any.
    pub parent: Option<DefIdx>,
    /// `async def`.
    pub is_async: bool,
    /// True when the definition is a direct statement of its parent's body (or of the module),
    /// not nested in `if` / `try` / `with` (LocAgent only looks at a class's direct `__init__`).
    pub direct: bool,
    /// First line, decorators included.
    pub line_start: u32,
    /// Line of the `def` / `class` keyword (LocAgent's `start_line`).
    pub line_head: u32,
    /// Last line of the last statement (trailing comments excluded).
    pub line_end: u32,
    /// First byte, decorators included.
    pub byte_start: u32,
    /// Byte of the `def` / `class` keyword (or `async`).
    pub byte_head: u32,
    /// End of the header, just past its `:` (the "fold" view is `byte_head..byte_sig_end`).
    pub byte_sig_end: u32,
    /// End of the definition (trailing comments excluded).
    pub byte_end: u32,
    /// Docstring byte range (the string literal), if the body starts with one.
    pub doc: Option<(u32, u32)>,
    /// Base classes, as written (classes only).
    pub bases: Vec<Expr>,
    /// Decorators, as written.
    pub decorators: Vec<Expr>,
    /// The names LocAgent takes from the decorators (`process_decorator_node`): `@name` gives
    /// `name`; any other decorator gives every attribute name and plain-name callee inside it.
    pub deco_names: Vec<String>,
    /// Name of the first parameter (`self` / `cls` detection for methods).
    pub first_param: Option<String>,
    /// Return annotation as a dotted name, when it is one.
    pub returns: Option<String>,
    /// For a method written outside its type's body (a Go receiver, a Rust `impl` block,
    /// `Foo.prototype.m =` in JavaScript): the type as written (`Server`, `Foo`). It is a
    /// segment of the qualified name between the parent's and the definition's own.
    pub owner: Option<String>,
    /// A class-like definition that only groups others (a TS namespace, a Rust inline `mod`):
    /// the module-level entity of what it holds is cut after it, not at it.
    pub namespace: bool,
}

/// A name-like expression: `Foo`, `mod.Foo`, `Generic[T]`, `f(x)`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
#[rkyv(derive(Debug))]
pub enum Expr {
    /// A dotted chain of identifiers: `Foo` or `a.b.Foo`.
    Dotted(String),
    /// A call whose callee is a dotted chain: `deco_factory(1)` -> `deco_factory`.
    Call(String),
    /// A subscript of a dotted chain: `Generic[T]` -> `Generic`.
    Subscript(String),
    /// Anything else; the text is the last attribute name if there is one (LocAgent keeps it).
    Other(Option<String>),
}

/// What is being called at a call site.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
#[rkyv(derive(Debug))]
pub enum Callee {
    /// `name(...)`.
    Name(String),
    /// `a.b.c(...)`: a chain of identifiers, dotted.
    Chain(String),
    /// `<call of F>(...).attr(...)`: `F` dotted (`super` for `super().m()`), then the attribute.
    OnCall(String, String),
    /// `<other expression>.attr(...)`: only the attribute is known.
    Attr(String),
    /// Anything else (`x[0]()`, `(lambda: 0)()`); nothing to resolve.
    Other,
}

impl Callee {
    /// The last name component, as LocAgent keys calls (`self.a.b()` -> `b`).
    pub fn last_name(&self) -> Option<&str> {
        match self {
            Callee::Name(n) => Some(n),
            Callee::Chain(c) => c.rsplit('.').next(),
            Callee::OnCall(_, a) | Callee::Attr(a) => Some(a),
            Callee::Other => None,
        }
    }
}

/// One call site.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Call {
    /// The innermost definition whose node contains the call (None: module level).
    pub owner: Option<DefIdx>,
    /// Set when the call is inside a decorator: the definition it decorates.
    pub deco_of: Option<DefIdx>,
    /// The callee.
    pub callee: Callee,
    /// Line of the call.
    pub line: u32,
}

/// One imported name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Import {
    /// The innermost definition containing the statement (None: module level).
    pub owner: Option<DefIdx>,
    /// True when the statement is a direct statement of the owner's body (or of the module),
    /// not nested in `if` / `try` / `with`.
    pub direct: bool,
    /// Leading dots of a relative import (0 = absolute).
    pub level: u32,
    /// `import a.b` -> `a.b`; `from a.b import c` -> `a.b`; `from . import c` -> ``.
    pub module: String,
    /// For `from M import n`: `n` (`*` for a star import); None for `import M`.
    pub name: Option<String>,
    /// `as` alias.
    pub alias: Option<String>,
    /// Line of the statement.
    pub line: u32,
    /// Index of the statement within the file (names from one statement share it).
    pub stmt: u32,
    /// What kind of import it is, beyond Python's forms.
    pub form: ImportForm,
    /// Depth of the statement in Python's own syntax tree (1 = module level; a body adds one
    /// level, an `except` or `case` body two, each `elif` one more). LocAgent lists a file's
    /// imports breadth-first (`ast.walk`), i.e. by (depth, stmt).
    pub depth: u32,
}

/// The forms of an import statement that resolution treats differently.
///
/// Every language writes [`Import::module`] as the statement names it (`./util`, `java.util`,
/// `github.com/a/b`, `crate::a::b` as `crate.a.b`), [`Import::name`] as the imported name
/// (`*` for all of them) and [`Import::alias`] as the local name when it differs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Archive, Serialize, Deserialize)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum ImportForm {
    /// An import that binds names in the importing file only.
    #[default]
    Plain,
    /// An import that the module also exports (`export { x } from`, `export * from`, Rust
    /// `pub use`): importers of this module see the names too.
    ReExport,
    /// A Rust `mod x;` declaration: the module file is part of this crate's tree.
    ModDecl,
    /// A Java `import static`: the name is a member of the imported class.
    Static,
}

/// `impl Trait for Type` (Rust): `ty` inherits from `trait_`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Impl {
    /// The innermost definition containing the block (None: module level).
    pub owner: Option<DefIdx>,
    /// The implementing type as written, generics dropped (`Walker`, `a.b.Walker`).
    pub ty: String,
    /// The trait as written, generics dropped.
    pub trait_: String,
    /// Line of the block.
    pub line: u32,
}

/// A simple binding that tells what a name refers to, for receiver typing.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Bind {
    /// The innermost definition containing the binding (None: module level).
    pub owner: Option<DefIdx>,
    /// `x` or `self.x`.
    pub target: String,
    /// What it is bound to.
    pub value: BindValue,
}

/// Right-hand side of a [`Bind`].
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum BindValue {
    /// `x = Foo(...)`: the result of calling a dotted name.
    CallOf(String),
    /// `x = a.b`: another dotted name (an alias).
    Alias(String),
    /// `x: Foo` or a parameter annotated `Foo`: an instance of a dotted type.
    Annotated(String),
}

impl FileFacts {
    /// Gives back the spare capacity of the lists extraction grew (a quarter of their size on
    /// average): a build holds every file's facts until it has linked them.
    pub fn shrink_to_fit(&mut self) {
        self.defs.shrink_to_fit();
        self.imports.shrink_to_fit();
        self.calls.shrink_to_fit();
        self.binds.shrink_to_fit();
        self.impls.shrink_to_fit();
    }

    /// Whether two versions of a file's facts differ at most in positions (lines, byte
    /// offsets, the line count): name resolution reads none of these, so a rebuild where every
    /// changed file is so links exactly as the previous build did. Every other field is
    /// compared, so a field added later counts unless it is listed here.
    pub fn same_but_positions(&self, other: &FileFacts) -> bool {
        fn unplaced(f: &FileFacts) -> FileFacts {
            let mut f = f.clone();
            (f.lines, f.first_error_line) = (0, 0);
            for d in &mut f.defs {
                (d.line_start, d.line_head, d.line_end) = (0, 0, 0);
                (d.byte_start, d.byte_head, d.byte_sig_end, d.byte_end) = (0, 0, 0, 0);
                d.doc = None;
            }
            f.calls.iter_mut().for_each(|c| c.line = 0);
            f.imports.iter_mut().for_each(|i| i.line = 0);
            f.impls.iter_mut().for_each(|i| i.line = 0);
            f
        }
        // Cheap differences first: most edits that are not position-only change a count.
        self.defs.len() == other.defs.len()
            && self.calls.len() == other.calls.len()
            && self.flow.exprs.len() == other.flow.exprs.len()
            && unplaced(self) == unplaced(other)
    }

    /// Whether two versions of a file's facts differ at most in positions and calls. No table
    /// of a family's linking reads another file's calls (only the file's own linking does), so
    /// in a family without a value flow, the other files link alike.
    pub fn same_but_calls(&self, other: &FileFacts) -> bool {
        let without = |f: &FileFacts| FileFacts { calls: Vec::new(), ..f.clone() };
        self.defs.len() == other.defs.len() && without(self).same_but_positions(&without(other))
    }

    /// When two versions of a file's facts differ at most in positions, calls, definitions,
    /// imports and bindings: the names those changes bind or declare, each once (a definition
    /// added, removed, changed or moved among those of its qualified name: its bare name; an
    /// import: the name it imports and the one it binds, or the module's own; a binding: the
    /// name it binds). Only those names can resolve otherwise in a file that does not see this
    /// file's namespace. None when anything else differs (an `impl`, the package clause, ...).
    /// Imports and bindings are compared with their enclosing definition by qualified name, so
    /// a definition added before them does not count.
    pub fn changed_names(&self, old: &FileFacts) -> Option<Vec<String>> {
        fn owned(f: &FileFacts, o: Option<DefIdx>) -> String {
            o.map(|i| f.qual_name(i)).unwrap_or_default()
        }
        // The last segment of a dotted or `::` name.
        fn last(name: &str) -> &str {
            name.rsplit(['.', ':']).next().unwrap_or(name)
        }
        // The name a module binds: its path's file name without extension (`linux/sched.h`,
        // `./q.js`), else its dotted name's last segment (`a.b.c`).
        fn module_name(m: &str) -> &str {
            match m.rsplit_once(['/', '\\']) {
                Some((_, file)) => file.split('.').next().unwrap_or(file),
                None => last(m),
            }
        }
        // Each item without positions or definition indices (its owner by qualified name),
        // as text, with the names it stands for.
        type Keyed = BTreeMap<String, (usize, Vec<String>)>;
        fn add(m: &mut Keyed, key: String, names: impl FnOnce() -> Vec<String>) {
            m.entry(key).or_insert_with(|| (0, names())).0 += 1;
        }
        fn keyed(f: &FileFacts) -> Keyed {
            let mut m = Keyed::new();
            // How many definitions of each qualified name came before (the first one is the
            // node's, so their order counts).
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            for (i, d) in f.defs.iter().enumerate() {
                let qual = f.qual_name(i as DefIdx);
                let nth = seen.entry(qual.clone()).or_default();
                *nth += 1;
                let bare = Def {
                    parent: None,
                    line_start: 0,
                    line_head: 0,
                    line_end: 0,
                    byte_start: 0,
                    byte_head: 0,
                    byte_sig_end: 0,
                    byte_end: 0,
                    doc: None,
                    ..d.clone()
                };
                // (The qualified name holds the parents.)
                add(&mut m, format!("def {qual} {nth} {bare:?}"), || vec![d.name.clone()]);
            }
            for i in &f.imports {
                let bare = Import { owner: None, line: 0, ..i.clone() };
                add(&mut m, format!("import {} {bare:?}", owned(f, i.owner)), || {
                    let mut n: Vec<String> =
                        i.name.iter().chain(&i.alias).map(|x| last(x).to_string()).collect();
                    if n.is_empty() {
                        n.push(module_name(&i.module).to_string());
                    }
                    n
                });
            }
            for b in &f.binds {
                let bare = Bind { owner: None, ..b.clone() };
                add(&mut m, format!("bind {} {bare:?}", owned(f, b.owner)), || {
                    vec![last(&b.target).to_string()]
                });
            }
            m
        }
        // Everything else, compared whole (a field added later counts).
        fn rest(f: &FileFacts) -> FileFacts {
            let impls = f.impls.iter().map(|i| Impl { line: 0, ..i.clone() }).collect();
            FileFacts {
                defs: Vec::new(),
                imports: Vec::new(),
                calls: Vec::new(),
                binds: Vec::new(),
                impls,
                lines: 0,
                first_error_line: 0,
                flow: f.flow.clone(),
                all: f.all.clone(),
                package: f.package.clone(),
                ..*f
            }
        }
        if rest(self) != rest(old) {
            return None;
        }
        let (new, was) = (keyed(self), keyed(old));
        let mut names: Vec<String> = Vec::new();
        for (key, (_, of)) in new.iter().chain(&was) {
            if new.get(key).map(|x| x.0) != was.get(key).map(|x| x.0) {
                names.extend(of.iter().filter(|n| !n.is_empty()).cloned());
            }
        }
        names.sort_unstable();
        names.dedup();
        Some(names)
    }

    /// The dotted qualified name of a definition (`Class.method`), owners included
    /// (`Server.Serve` for a Go method written outside its type).
    pub fn qual_name(&self, mut i: DefIdx) -> String {
        let mut parts: Vec<&str> = Vec::new();
        loop {
            let d = &self.defs[i as usize];
            parts.push(d.name.as_str());
            if let Some(o) = &d.owner {
                parts.push(o.as_str());
            }
            match d.parent {
                Some(p) => i = p,
                None => break,
            }
        }
        parts.reverse();
        parts.join(".")
    }

    /// The qualified name of definition `i`'s container: its parent's, plus its owner.
    /// Empty at the top level.
    pub fn container_qual(&self, i: DefIdx) -> String {
        let d = &self.defs[i as usize];
        let mut q = d.parent.map(|p| self.qual_name(p)).unwrap_or_default();
        if let Some(o) = &d.owner {
            if !q.is_empty() {
                q.push('.');
            }
            q.push_str(o);
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::{Extractors, Lang};

    #[test]
    fn source_text_reads_bytes_that_are_not_utf8_as_latin1() {
        use std::borrow::Cow;
        assert!(matches!(super::source_text("café".as_bytes()), Cow::Borrowed("café")));
        assert_eq!(super::source_text(b"r\xe9sum\xe9"), "r\u{e9}sum\u{e9}");
        assert_ne!(super::source_text(b"r\xe9sum\xe9"), super::source_text(b"r\xe8sum\xe8"));
        // A cut multi-byte sequence is two bytes, two characters; valid text around it stays.
        assert_eq!(super::source_text(b"\xe2\x82 \xe2\x82\xac"), "\u{e2}\u{82} \u{20ac}");
    }

    fn changed(lang: Lang, before: &str, after: &str) -> Option<Vec<String>> {
        let mut x = Extractors::default();
        let (old, new) = (x.extract(lang, before.as_bytes()), x.extract(lang, after.as_bytes()));
        new.changed_names(&old)
    }

    #[test]
    fn changed_names_are_those_an_edit_declared_or_undeclared() {
        let c = "#include \"a.h\"\nint f(void);\nint g(void) { return f(); }\n";
        // Moved and called otherwise: nothing declared changed.
        let moved = "#include \"a.h\"\nint f(void);\n\n\nint g(void) { return h(); }\n";
        assert_eq!(changed(Lang::C, c, moved), Some(vec![]));
        let added = format!("{c}int k(int x) {{ return x; }}\n");
        assert_eq!(changed(Lang::C, c, &added), Some(vec!["k".to_string()]));
        let renamed = c.replace("int g(void)", "int g2(void)");
        assert_eq!(changed(Lang::C, c, &renamed), Some(vec!["g".to_string(), "g2".to_string()]));
        // A prototype is an import of the function it declares.
        let declared = c.replace("int f(void);", "int f(void);\nint e(void);");
        assert_eq!(changed(Lang::C, c, &declared), Some(vec!["e".to_string()]));
        // A method added to a class, before another method's import: only its name.
        let js = "class A {\n  m() { return 1; }\n}\nexport default A;\n";
        let js2 = "class A {\n  n() { return 2; }\n  m() { return 1; }\n}\nexport default A;\n";
        assert_eq!(changed(Lang::JavaScript, js, js2), Some(vec!["n".to_string()]));
        let imported = format!("import {{ q as r }} from './lib/q.js';\n{js}");
        assert_eq!(
            changed(Lang::JavaScript, js, &imported),
            Some(vec!["q".to_string(), "r".to_string()])
        );
        // Another package clause: not a declaration edit.
        assert_eq!(
            changed(Lang::Go, "package a\n\nfunc F() {}\n", "package b\n\nfunc F() {}\n"),
            None
        );
    }
}
