//! Rust source -> [`FileFacts`]: `queries/rust/facts.scm` finds the items, this module nests
//! them by byte range and reads what a query cannot express (use trees, paths and types,
//! the attributes and doc comments before an item, `impl` owners).
//!
//! What the facts say, beyond [`crate::extract`]'s documentation:
//!
//! * Definitions: `struct`, `enum`, `union`, `trait` and inline `mod m { }` (a namespace) are
//!   class-like, `fn` is function-like. A `fn` in `impl T { }` or `impl Trait for T { }` has
//!   owner `T` (the last path segment, generics, references and pointers dropped; a blanket
//!   `impl<T: Bound> Trait for T` has the trait as owner, its `T` naming no type). A trait's
//!   default method has the trait as its lexical parent. A definition's start includes its
//!   outer doc comment and attributes; its doc is the `///` / `/** */` comments above it, or
//!   for an inline module without those, the `//!` / `/*! */` comments opening its body.
//! * Imports: `use a::b::C;` is module `a.b`, name `C`; `use a::b;` is module `a`, name `b`;
//!   `use a;` and `extern crate a;` are module `a` without a name; `{self}` in a list is the
//!   list's path itself (`use a::b::{self}` is module `a`, name `b`); `*` is name `*`; `as`
//!   gives the alias; `pub use` is a [`ImportForm::ReExport`]. `mod x;` is module `x`, form
//!   [`ImportForm::ModDecl`]; with `#[path = "p.rs"]` the module is `path:p.rs` and the alias
//!   is `x` (the name the declaration binds).
//! * `impl Trait for T` is an [`Impl`]; a trait's bases are its supertraits (`trait A: B + C`).
//! * Calls: path steps (`::`) and member steps (`.`) are both joined with `.`; a leading
//!   `self::` path step is dropped (`self::f()` is `f()`); `crate` and `super` are kept as the
//!   chain's head. Macros and struct literals are not calls.

use std::sync::OnceLock;

use tree_sitter::{Node, Parser};

use crate::extract::tree::Field as _;
use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, Impl, Import, ImportForm,
    tree,
};

/// The facts query, compiled into the binary.
pub const FACTS_QUERY: &str = include_str!("../../../queries/rust/facts.scm");

/// Main capture names of the facts query (the others qualify them).
const MAIN: &[&str] = &[
    "def.function",
    "def.class",
    "def.module",
    "import.mod",
    "impl",
    "import",
    "call",
    "macro",
    "bind",
];

/// How deep macro arguments inside macro arguments are read.
const MACRO_DEPTH: u32 = 3;
/// Macro arguments longer than this are not read for calls.
const MACRO_MAX: usize = 1 << 16;

/// Generic wrappers whose type argument is not what a value's methods are looked up on.
const OPAQUE_GENERICS: &[&str] = &[
    "Option",
    "Result",
    "Vec",
    "VecDeque",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "Cell",
    "RefCell",
    "Mutex",
    "RwLock",
    "PhantomData",
    "Pin",
    "Cow",
    "Weak",
];

/// Smart pointers that dereference to their type argument.
const DEREF_GENERICS: &[&str] = &["Box", "Rc", "Arc"];

/// The compiled facts patterns (compiled once per process, matched by [`crate::lang::matcher`]).
pub(super) fn patterns() -> &'static crate::lang::matcher::Patterns {
    static PATTERNS: OnceLock<crate::lang::matcher::Patterns> = OnceLock::new();
    tree::patterns(&PATTERNS, super::language(), FACTS_QUERY, "queries/rust/facts.scm")
}

/// Extracts the facts of one file. Never fails: syntax errors are recovered from and counted.
pub(super) fn extract(parser: &mut Parser, src: &[u8]) -> FileFacts {
    let parsed = tree::parse(parser, src);
    let mut facts = tree::base_facts(src, parsed.as_ref().map(|t| t.root_node()));
    let Some(parsed) = parsed.as_ref() else { return facts };
    let root = parsed.root_node();
    let items = patterns().captures(root, |n| MAIN.contains(&n));
    let mut nest = tree::Nest::default();
    let mut stmt = 0u32;
    for it in &items {
        let node = it.node;
        let owner = nest.owner_at(node.start_byte());
        match it.kind {
            "def.function" | "def.class" | "def.module" => {
                let Some(name) = it.get("def.name") else { continue };
                let idx = facts.defs.len() as DefIdx;
                facts.defs.push(def(it, name, owner, src));
                nest.push(idx, node.end_byte());
            }
            "import.mod" => {
                let Some(name) = it.get("import.name") else { continue };
                let name = tree::text(name, src);
                let (module, alias) = match path_attribute(node, src) {
                    Some(p) => (format!("path:{p}"), Some(name)),
                    None => (name, None),
                };
                facts.imports.push(Import {
                    owner,
                    direct: is_direct(node),
                    module,
                    alias,
                    line: line_of(node),
                    stmt,
                    form: ImportForm::ModDecl,
                    depth: 1,
                    ..Import::default()
                });
                stmt += 1;
            }
            "impl" => {
                let (Some(ty), Some(tr)) = (it.get("impl.type"), node.field("trait")) else {
                    continue;
                };
                if let (Some(ty), Some(tr)) = (type_path(ty, src), type_path(tr, src)) {
                    facts.impls.push(Impl {
                        owner,
                        ty: ty.join("."),
                        trait_: tr.join("."),
                        line: line_of(node),
                    });
                }
            }
            "import" => {
                imports(node, owner, stmt, src, &mut facts.imports);
                stmt += 1;
            }
            "call" => {
                let Some(f) = it.get("call.callee") else { continue };
                facts.calls.push(Call {
                    owner,
                    deco_of: None,
                    callee: callee(f, src),
                    line: line_of(node),
                });
            }
            "macro" => {
                let Some(args) = it.get("macro.args") else { continue };
                let text = &src[args.start_byte()..args.end_byte()];
                macro_calls(parser, text, args.start_position().row, owner, 0, &mut facts.calls);
            }
            "bind" => {
                if let Some(b) = bind(it, owner, &facts, src) {
                    facts.binds.push(b);
                }
            }
            _ => {}
        }
    }
    facts
}

/// The calls in a macro's arguments (`tri!(self.next())`, `assert_eq!(f(x), 1)`), read by
/// parsing the token tree as an expression: a tuple, an array or a block. `row` is the
/// 0-based line the arguments start on.
fn macro_calls(
    parser: &mut Parser,
    text: &[u8],
    row: usize,
    owner: Option<DefIdx>,
    depth: u32,
    out: &mut Vec<Call>,
) {
    const PREFIX: &[u8] = b"fn __cds_macro() { let _ = ";
    if depth >= MACRO_DEPTH || text.len() > MACRO_MAX {
        return;
    }
    let mut wrapped = Vec::with_capacity(text.len() + PREFIX.len() + 4);
    wrapped.extend_from_slice(PREFIX);
    wrapped.extend_from_slice(text);
    wrapped.extend_from_slice(b"; }");
    let Some(parsed) = tree::parse(parser, &wrapped) else { return };
    let mut nested: Vec<(usize, usize, usize)> = Vec::new();
    let mut stack = vec![parsed.root_node()];
    let mut found: Vec<(usize, Call)> = Vec::new();
    while let Some(n) = stack.pop() {
        match n.kind() {
            "call_expression" => {
                if let Some(f) = n.field("function") {
                    let call = Call {
                        owner,
                        deco_of: None,
                        callee: callee(f, &wrapped),
                        line: (row + n.start_position().row) as u32 + 1,
                    };
                    found.push((n.start_byte(), call));
                }
            }
            "macro_invocation" => {
                let mut c = n.walk();
                if let Some(tt) = n.children(&mut c).find(|ch| ch.kind() == "token_tree") {
                    nested.push((tt.start_byte(), tt.end_byte(), row + tt.start_position().row));
                }
                continue;
            }
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    found.sort_by_key(|(b, _)| *b);
    out.extend(found.into_iter().map(|(_, c)| c));
    for (s, e, r) in nested {
        let inner = wrapped[s..e].to_vec();
        macro_calls(parser, &inner, r, owner, depth + 1, out);
    }
}

/// One definition.
fn def(it: &tree::Captured, name: Node, parent: Option<DefIdx>, src: &[u8]) -> Def {
    let (node, kind) = (it.node, it.kind);
    // The walk that found the item knows its parent and previous sibling.
    let (up, prev) = it.around.unwrap_or_else(|| (node.parent(), node.prev_sibling()));
    let (start, mut doc) = leading(node, prev, src);
    let body = node.field("body").filter(|b| {
        matches!(
            b.kind(),
            "block" | "declaration_list" | "field_declaration_list" | "enum_variant_list"
        )
    });
    if doc.is_none() && kind == "def.module" {
        doc = body.and_then(|b| inner_doc(b, src));
    }
    let mut d = Def {
        kind: if kind == "def.function" { DefKind::Function } else { DefKind::Class },
        name: tree::text(name, src),
        parent,
        direct: is_direct_in(up),
        line_start: start.start_position().row as u32 + 1,
        line_head: node.start_position().row as u32 + 1,
        line_end: node.end_position().row as u32 + 1,
        byte_start: start.start_byte() as u32,
        byte_head: node.start_byte() as u32,
        byte_sig_end: tree::sig_end(node, body, src),
        byte_end: node.end_byte() as u32,
        doc,
        namespace: kind == "def.module",
        ..Def::default()
    };
    match node.kind() {
        "function_item" => {
            let mut c = node.walk();
            d.is_async = node
                .children(&mut c)
                .any(|m| m.kind() == "function_modifiers" && tree::text(m, src).contains("async"));
            d.first_param = node.field("parameters").and_then(|ps| {
                let mut c = ps.walk();
                let first = ps
                    .named_children(&mut c)
                    .find(|p| !p.kind().ends_with("comment") && p.kind() != "attribute_item")?;
                (first.kind() == "self_parameter").then(|| "self".to_string())
            });
            d.returns = node.field("return_type").and_then(|t| value_type(t, src));
            d.owner = impl_owner(up, src);
        }
        "trait_item" => {
            if let Some(bounds) = node.field("bounds") {
                let mut c = bounds.walk();
                for b in bounds.named_children(&mut c) {
                    if let Some(p) = type_path(b, src) {
                        d.bases.push(Expr::Dotted(p.join(".")));
                    }
                }
            }
        }
        _ => {}
    }
    d
}

/// The first node of an item (its outer doc comment and attributes) and its doc range.
fn leading<'t>(
    node: Node<'t>,
    prev: Option<Node<'t>>,
    src: &[u8],
) -> (Node<'t>, Option<(u32, u32)>) {
    let mut start = node;
    let mut doc: Option<(u32, u32)> = None;
    let mut cur = prev;
    while let Some(p) = cur {
        let adjacent = p.end_position().row + 1 >= start.start_position().row;
        if !adjacent {
            break;
        }
        if p.kind() == "attribute_item" {
            start = p;
        } else if p.kind().ends_with("comment") && is_outer_doc(&src[p.start_byte()..p.end_byte()])
        {
            start = p;
            let end = doc.map_or(trim_end(p, src), |d| d.1);
            doc = Some((p.start_byte() as u32, end));
        } else {
            break;
        }
        cur = p.prev_sibling();
    }
    (start, doc)
}

/// `///` and `/** */` (not `////` or `/***/`).
fn is_outer_doc(t: &[u8]) -> bool {
    (t.starts_with(b"///") && !t.starts_with(b"////"))
        || (t.starts_with(b"/**") && !t.starts_with(b"/***") && !t.starts_with(b"/**/"))
}

/// `//!` and `/*! */`.
fn is_inner_doc(t: &[u8]) -> bool {
    t.starts_with(b"//!") || t.starts_with(b"/*!")
}

/// The inner doc comments opening a module body.
fn inner_doc(body: Node, src: &[u8]) -> Option<(u32, u32)> {
    let mut c = body.walk();
    let mut range: Option<(u32, u32)> = None;
    for ch in body.named_children(&mut c) {
        if !(ch.kind().ends_with("comment") && is_inner_doc(&src[ch.start_byte()..ch.end_byte()])) {
            break;
        }
        let s = range.map_or(ch.start_byte() as u32, |r| r.0);
        range = Some((s, trim_end(ch, src)));
    }
    range
}

/// A node's end, trailing line break left out (line comments hold theirs).
fn trim_end(n: Node, src: &[u8]) -> u32 {
    let mut end = n.end_byte();
    while end > n.start_byte() && matches!(src[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    end as u32
}

/// A direct statement of the file or of a module, trait or impl body.
fn is_direct(node: Node) -> bool {
    is_direct_in(node.parent())
}

/// [`is_direct`] of a node whose parent is `up`.
fn is_direct_in(up: Option<Node>) -> bool {
    up.is_none_or(|p| matches!(p.kind(), "source_file" | "declaration_list"))
}

fn line_of(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

/// The type a `fn` in an `impl` block is a method of: the last segment of the type as written.
/// A blanket impl's type is one of its own type parameters (`impl<T: Display> Greet for T`),
/// which names nothing: its methods are the trait's. (`up` is the function's parent.)
fn impl_owner(up: Option<Node>, src: &[u8]) -> Option<String> {
    let list = up.filter(|p| p.kind() == "declaration_list")?;
    let imp = list.parent().filter(|p| p.kind() == "impl_item")?;
    let ty = imp.field("type")?;
    match type_path(ty, src) {
        Some(p) if p.len() == 1 && is_type_parameter(imp, &p[0], src) => {
            let tr = imp.field("trait").and_then(|t| type_path(t, src));
            tr.and_then(|mut t| t.pop()).or_else(|| p.last().cloned())
        }
        Some(mut p) => p.pop(),
        // `impl Trait for [T]`, `for (A, B)`: the type as written, spaces dropped.
        None => Some(tree::text(ty, src).split_whitespace().collect()),
    }
}

/// Whether `name` is a type parameter `impl_item` declares (`impl<T, U: Tr>`).
fn is_type_parameter(impl_item: Node, name: &str, src: &[u8]) -> bool {
    let Some(params) = impl_item.field("type_parameters") else { return false };
    let mut c = params.walk();
    params
        .named_children(&mut c)
        .filter(|p| p.kind() == "type_parameter")
        .filter_map(|p| p.field("name"))
        .any(|n| tree::text(n, src) == name)
}

/// `#[path = "p.rs"]` before an item.
fn path_attribute(node: Node, src: &[u8]) -> Option<String> {
    let mut cur = node.prev_sibling();
    while let Some(p) = cur {
        if p.kind() == "attribute_item" {
            let mut c = p.walk();
            for attr in p.named_children(&mut c).filter(|a| a.kind() == "attribute") {
                let is_path = attr
                    .named_child(0)
                    .is_some_and(|n| n.kind() == "identifier" && tree::text(n, src) == "path");
                if let Some(v) = attr.field("value").filter(|_| is_path) {
                    let t = tree::text(v, src);
                    return Some(t.trim_matches('"').to_string());
                }
            }
        } else if !p.kind().ends_with("comment") {
            break;
        }
        cur = p.prev_sibling();
    }
    None
}

/// The segments of a path (`a::b::c`, `crate::x`, `Vec::<T>::new` -> `Vec.new`); None for a
/// qualified path (`<T as Tr>::f`) or a macro variable.
fn path_segs(n: Node, src: &[u8]) -> Option<Vec<String>> {
    // Iterative: a pathological file may nest paths thousands deep.
    let mut rev = Vec::new();
    let mut cur = Some(n);
    while let Some(x) = cur {
        match x.kind() {
            "identifier" | "type_identifier" | "crate" | "self" | "super" => {
                rev.push(tree::text(x, src));
                cur = None;
            }
            "scoped_identifier" | "scoped_type_identifier" => {
                rev.push(tree::text(x.field("name")?, src));
                cur = x.field("path");
            }
            "generic_type" => cur = Some(x.field("type")?),
            _ => return None,
        }
    }
    rev.reverse();
    Some(rev)
}

/// A type as a path, generics, references and pointers dropped (`&a::Foo<T>` -> `a`, `Foo`).
fn type_path(mut n: Node, src: &[u8]) -> Option<Vec<String>> {
    loop {
        n = match n.kind() {
            "reference_type" | "pointer_type" => n.field("type")?,
            "dynamic_type" | "abstract_type" => n.field("trait")?,
            "generic_type"
            | "type_identifier"
            | "scoped_type_identifier"
            | "identifier"
            | "scoped_identifier" => return path_segs(n, src),
            _ => return None,
        };
    }
}

/// The type whose methods a value of declared type `n` has, dotted: `&Foo` and `Box<Foo>` are
/// `Foo`; `Option<Foo>`, `Vec<Foo>`, tuples and `impl Trait` are None.
fn value_type(mut n: Node, src: &[u8]) -> Option<String> {
    loop {
        n = match n.kind() {
            "reference_type" | "pointer_type" => n.field("type")?,
            "generic_type" => {
                let base = path_segs(n.field("type")?, src)?;
                let last = base.last()?.as_str();
                if OPAQUE_GENERICS.contains(&last) {
                    return None;
                }
                if !DEREF_GENERICS.contains(&last) {
                    return Some(base.join("."));
                }
                let args = n.field("type_arguments")?;
                let mut c = args.walk();
                args.named_children(&mut c).next()?
            }
            "type_identifier" | "scoped_type_identifier" => {
                return Some(path_segs(n, src)?.join("."));
            }
            _ => return None,
        };
    }
}

/// A chain of identifiers and fields: `x`, `self`, `self.a.b`.
fn value_chain(n: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut rev = Vec::new();
    let mut cur = n;
    loop {
        match cur.kind() {
            "identifier" | "self" => {
                rev.push(tree::text(cur, src));
                break;
            }
            "field_expression" => {
                let field = cur.field("field")?;
                if field.kind() != "field_identifier" {
                    return None;
                }
                rev.push(tree::text(field, src));
                cur = cur.field("value")?;
            }
            _ => return None,
        }
    }
    rev.reverse();
    Some(rev)
}

/// A callee path as dotted segments, a leading `self::` dropped.
fn callee_path(n: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut segs = match n.kind() {
        "identifier" | "scoped_identifier" => path_segs(n, src)?,
        "generic_function" => return callee_path(n.field("function")?, src),
        _ => return None,
    };
    if segs.len() > 1 && segs[0] == "self" {
        segs.remove(0);
    }
    Some(segs)
}

/// What a call expression calls.
fn callee(n: Node, src: &[u8]) -> Callee {
    match n.kind() {
        "identifier" | "scoped_identifier" => match callee_path(n, src) {
            Some(segs) if segs.len() == 1 => {
                Callee::Name(segs.into_iter().next().unwrap_or_default())
            }
            Some(segs) => Callee::Chain(segs.join(".")),
            // `<T as Trait>::f()`: a method of an unknown type.
            None => n.field("name").map_or(Callee::Other, |m| Callee::Attr(tree::text(m, src))),
        },
        "generic_function" => n.field("function").map_or(Callee::Other, |f| callee(f, src)),
        "field_expression" => {
            let (Some(value), Some(field)) = (n.field("value"), n.field("field")) else {
                return Callee::Other;
            };
            if field.kind() != "field_identifier" {
                return Callee::Other;
            }
            let attr = tree::text(field, src);
            if let Some(mut chain) = value_chain(value, src) {
                chain.push(attr);
                return Callee::Chain(chain.join("."));
            }
            // `make().run()`, `Foo::new().run()`, `self.inner().run()`.
            if value.kind() == "call_expression"
                && let Some(inner) = value.field("function")
                && let Some(segs) = callee_path(inner, src).or_else(|| value_chain(inner, src))
            {
                return Callee::OnCall(segs.join("."), attr);
            }
            Callee::Attr(attr)
        }
        _ => Callee::Other,
    }
}

/// A binding: a `let`, a typed parameter, a struct or union field.
fn bind(it: &tree::Captured, owner: Option<DefIdx>, facts: &FileFacts, src: &[u8]) -> Option<Bind> {
    let left = it.get("bind.left")?;
    let target = tree::text(left, src);
    let ty = it.get("bind.type").and_then(|t| value_type(t, src));
    match it.node.kind() {
        "field_declaration" => {
            let list = it.node.parent().filter(|p| p.kind() == "field_declaration_list")?;
            let item = list.parent()?;
            if !matches!(item.kind(), "struct_item" | "union_item") {
                return None;
            }
            let o = owner?;
            if facts.defs[o as usize].kind != DefKind::Class {
                return None;
            }
            Some(Bind { owner, target, value: BindValue::Annotated(ty?) })
        }
        "parameter" => Some(Bind { owner, target, value: BindValue::Annotated(ty?) }),
        _ => {
            if let Some(t) = ty {
                return Some(Bind { owner, target, value: BindValue::Annotated(t) });
            }
            let value = rhs(it.get("bind.right")?, src)?;
            Some(Bind { owner, target, value })
        }
    }
}

/// What a `let` binds: a call's result, a struct literal's type, another name.
fn rhs(n: Node, src: &[u8]) -> Option<BindValue> {
    match n.kind() {
        "call_expression" => {
            let segs = callee_path(n.field("function")?, src)?;
            Some(BindValue::CallOf(segs.join(".")))
        }
        "struct_expression" => {
            let segs = type_path(n.field("name")?, src)?;
            Some(BindValue::Annotated(segs.join(".")))
        }
        "reference_expression" => {
            let mut v = n.field("value")?;
            while v.kind() == "reference_expression" {
                v = v.field("value")?;
            }
            rhs(v, src)
        }
        "identifier" | "scoped_identifier" => {
            let segs = callee_path(n, src)?;
            Some(BindValue::Alias(segs.join(".")))
        }
        _ => None,
    }
}

/// The imports of a `use` or `extern crate` item.
fn imports(node: Node, owner: Option<DefIdx>, stmt: u32, src: &[u8], out: &mut Vec<Import>) {
    let base = Import {
        owner,
        direct: is_direct(node),
        line: line_of(node),
        stmt,
        depth: 1,
        ..Import::default()
    };
    if node.kind() == "extern_crate_declaration" {
        let Some(name) = node.field("name") else { return };
        out.push(Import {
            module: tree::text(name, src),
            alias: node.field("alias").map(|a| tree::text(a, src)),
            ..base
        });
        return;
    }
    let mut c = node.walk();
    let public = node.children(&mut c).any(|n| n.kind() == "visibility_modifier");
    let form = if public { ImportForm::ReExport } else { ImportForm::Plain };
    let Some(arg) = node.field("argument") else { return };
    let mut flat = Vec::new();
    use_tree(arg, &[], 0, src, &mut flat);
    for (mut segs, name, alias) in flat {
        if segs.len() > 1 && segs.last().is_some_and(|s| s == "self") {
            segs.pop();
        }
        let (module, name) = match name {
            Some(n) => (segs.join("."), Some(n)),
            None if segs.len() > 1 => {
                let last = segs.pop();
                (segs.join("."), last)
            }
            None => (segs.join("."), None),
        };
        if module.is_empty() && name.is_none() {
            continue;
        }
        out.push(Import { module, name, alias, form, ..base.clone() });
    }
}

/// Flattens a use tree into (path, `*` or None, alias).
type Flat = (Vec<String>, Option<String>, Option<String>);

/// How deeply nested use lists are read.
const USE_DEPTH: usize = 32;

fn use_tree(n: Node, prefix: &[String], depth: usize, src: &[u8], out: &mut Vec<Flat>) {
    if depth > USE_DEPTH {
        return;
    }
    let with = |extra: Option<Vec<String>>| -> Option<Vec<String>> {
        let mut p = prefix.to_vec();
        p.extend(extra?);
        Some(p)
    };
    match n.kind() {
        "use_as_clause" => {
            let Some(path) = n.field("path") else { return };
            if let Some(segs) = with(path_segs(path, src)) {
                let alias = n.field("alias").map(|a| tree::text(a, src));
                out.push((segs, None, alias));
            }
        }
        "scoped_use_list" => {
            let p = match n.field("path") {
                Some(path) => with(path_segs(path, src)),
                None => Some(prefix.to_vec()),
            };
            let (Some(p), Some(list)) = (p, n.field("list")) else { return };
            use_tree(list, &p, depth + 1, src, out);
        }
        "use_list" => {
            let mut c = n.walk();
            for ch in n.named_children(&mut c) {
                if !ch.kind().ends_with("comment") {
                    use_tree(ch, prefix, depth + 1, src, out);
                }
            }
        }
        "use_wildcard" => {
            let mut c = n.walk();
            let path = n.named_children(&mut c).find(|ch| !ch.kind().ends_with("comment"));
            let p = match path {
                Some(path) => with(path_segs(path, src)),
                None => Some(prefix.to_vec()),
            };
            if let Some(p) = p {
                out.push((p, Some("*".to_string()), None));
            }
        }
        _ => {
            if let Some(segs) = with(path_segs(n, src)) {
                out.push((segs, None, None));
            }
        }
    }
}
