//! Go: the tree-sitter grammar and `queries/go/facts.scm` -> [`FileFacts`], and the
//! language's resolution rules.
//!
//! Entities (DESIGN.md §8): `func` and methods are function-like, types declared with `struct`
//! or `interface` are class-like. A method sits under its receiver's base type, written as the
//! definition's `owner` (`func (l *List[T]) Push()` is `List.Push`), whether or not the type is
//! declared in the same file. Interface method specs are not entities.
//!
//! Resolution: an import path under a `go.mod` module path (longest match, plus local
//! `replace` directives) names a package directory, all of whose Go files it imports; the
//! files of a directory that share a `package` clause see each other's top-level names.

mod resolve;

use std::collections::HashMap;
use std::sync::OnceLock;

use tree_sitter::Node;

use crate::extract::tree::Field as _;
use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, Import, ImportForm, tree,
};

pub use resolve::Resolver;

/// The facts query, compiled into the binary.
pub const FACTS_QUERY: &str = include_str!("../../../queries/go/facts.scm");

/// The tree-sitter language.
pub fn language() -> tree_sitter::Language {
    tree_sitter_go::LANGUAGE.into()
}

/// The compiled facts patterns (compiled once per process, matched by [`crate::lang::matcher`]).
fn patterns() -> &'static crate::lang::matcher::Patterns {
    static PATTERNS: OnceLock<crate::lang::matcher::Patterns> = OnceLock::new();
    tree::patterns(&PATTERNS, language(), FACTS_QUERY, "queries/go/facts.scm")
}

/// Main capture names of the facts query; the others qualify them.
const MAIN: &[&str] = &[
    "def.function",
    "def.method",
    "def.class",
    "package",
    "import",
    "call",
    "bind",
    "bind.var",
    "bind.param",
    "bind.field",
];

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
        let caps = patterns().captures(t.root_node(), |n| MAIN.contains(&n));
        let mut b = Builder { src, facts: &mut facts, nest: tree::Nest::default() };
        let mut def_of: HashMap<usize, DefIdx> = HashMap::new();
        let mut stmt = 0u32;
        for c in &caps {
            let owner = b.nest.owner_at(c.node.start_byte());
            match c.kind {
                "def.function" | "def.method" | "def.class" => {
                    let Some(name) = c.get("def.name") else { continue };
                    let idx = b.def(c, name, owner);
                    def_of.insert(c.node.id(), idx);
                    b.nest.push(idx, c.node.end_byte());
                }
                "package" if b.facts.package.is_none() => {
                    b.facts.package = c.get("package.name").map(|n| tree::text(n, src));
                }
                "import" => {
                    if let Some(p) = c.get("import.path") {
                        b.import(c.node, p, owner, stmt);
                        stmt += 1;
                    }
                }
                "call" => {
                    let callee = match (c.get("call.callee"), c.get("call.generic")) {
                        (Some(f), _) => Some(b.callee(f)),
                        (None, Some(g)) => Some(generic_callee(g, src)),
                        _ => None,
                    };
                    if let Some(callee) = callee.filter(|x| *x != Callee::Other) {
                        b.facts.calls.push(Call {
                            owner,
                            deco_of: None,
                            callee,
                            line: c.node.start_position().row as u32 + 1,
                        });
                    }
                }
                "bind" => {
                    if let (Some(l), Some(r)) = (c.get("bind.left"), c.get("bind.right")) {
                        b.assign(owner, l, r);
                    }
                }
                "bind.var" => b.var_spec(owner, c.node),
                "bind.param" => b.param(owner, c.node, &def_of),
                "bind.field" => b.field(owner, c.node, &def_of),
                _ => {}
            }
        }
        facts
    }
}

struct Builder<'s, 'f> {
    src: &'s [u8],
    facts: &'f mut FileFacts,
    nest: tree::Nest,
}

impl Builder<'_, '_> {
    fn text(&self, n: Node) -> String {
        tree::text(n, self.src)
    }

    /// One definition, numbered in pre-order.
    fn def(&mut self, c: &tree::Captured, name: Node, parent: Option<DefIdx>) -> DefIdx {
        let node = c.node;
        // A lone `type X struct {}` spans its `type` keyword; one spec of a group `type ( ... )`
        // spans itself.
        let outer = match (node.kind() == "type_spec").then(|| c.parent()).flatten() {
            Some(p) if p.kind() == "type_declaration" => {
                let specs =
                    p.named_children(&mut p.walk()).filter(|x| x.kind() != "comment").count();
                let grouped = p.children(&mut p.walk()).any(|x| x.kind() == "(");
                if specs == 1 && !grouped { p } else { node }
            }
            _ => node,
        };
        // The comments right above: directives (`//go:noinline`) are the definition's
        // annotations, the other lines its doc comment.
        let is_doc = |t: &[u8]| t.starts_with(b"//") || t.starts_with(b"/*");
        let above = if outer == node {
            c.doc(self.src, is_doc)
        } else {
            tree::doc_before(outer, self.src, is_doc)
        }
        .and_then(|r| own_lines(self.src, r));
        let doc = above.and_then(|r| without_directives(self.src, r));
        let (kind, sig_end, bases, first_param, owner, returns) = match c.kind {
            "def.class" => {
                let body = c.get("def.body");
                let brace = body.and_then(|b| {
                    if b.kind() == "struct_type" {
                        b.named_child(0).filter(|x| x.kind() == "field_declaration_list")
                    } else {
                        b.children(&mut b.walk()).find(|x| x.kind() == "{")
                    }
                });
                let bases = body.map(|b| self.bases(b)).unwrap_or_default();
                (DefKind::Class, tree::sig_end(outer, brace, self.src), bases, None, None, None)
            }
            kind => {
                let body = c.get("def.body");
                let (first, owner) = match (kind, c.get("def.receiver")) {
                    ("def.method", Some(r)) => self.receiver(r),
                    _ => (None, None),
                };
                let returns = c.get("def.result").and_then(|r| self.result_type(r));
                (
                    DefKind::Function,
                    tree::sig_end(outer, body, self.src),
                    Vec::new(),
                    first,
                    owner,
                    returns,
                )
            }
        };
        let (byte_start, line_start) = match above {
            Some((s, _)) => {
                let head_row = outer.start_position().row as u32;
                let between = &self.src[s as usize..outer.start_byte()];
                (s, head_row + 1 - between.iter().filter(|&&c| c == b'\n').count() as u32)
            }
            None => (outer.start_byte() as u32, outer.start_position().row as u32 + 1),
        };
        let end = outer.end_byte();
        let line_end = outer.end_position().row as u32 + 1
            - u32::from(outer.end_position().column == 0 && outer.end_position().row > 0);
        let idx = self.facts.defs.len() as DefIdx;
        self.facts.defs.push(Def {
            kind,
            name: self.text(name),
            parent,
            is_async: false,
            // At the top level, or a statement of its function's body (not in an `if` or a
            // closure).
            direct: parent.is_none()
                || outer.parent().and_then(|b| b.parent()).and_then(|f| f.parent()).is_some_and(
                    |f| matches!(f.kind(), "function_declaration" | "method_declaration"),
                ),
            line_start,
            line_head: outer.start_position().row as u32 + 1,
            line_end,
            byte_start,
            byte_head: outer.start_byte() as u32,
            byte_sig_end: sig_end,
            byte_end: end as u32,
            doc,
            bases,
            decorators: Vec::new(),
            deco_names: Vec::new(),
            first_param,
            returns,
            owner,
            namespace: false,
        });
        idx
    }

    /// A method's receiver: its name (None when unnamed) and base type name.
    fn receiver(&self, list: Node) -> (Option<String>, Option<String>) {
        let Some(p) =
            list.named_children(&mut list.walk()).find(|x| x.kind() == "parameter_declaration")
        else {
            return (None, None);
        };
        let name = p.field("name").map(|n| self.text(n)).filter(|n| n != "_");
        let ty = p.field("type").and_then(|t| receiver_type(t, self.src));
        (name, ty)
    }

    /// Embedded types of a struct or interface, generics and pointers dropped.
    fn bases(&self, body: Node) -> Vec<Expr> {
        let mut out = Vec::new();
        match body.kind() {
            "struct_type" => {
                let Some(list) = body.named_child(0) else { return out };
                for f in list.named_children(&mut list.walk()) {
                    if f.kind() == "field_declaration"
                        && f.field("name").is_none()
                        && let Some(t) = f.field("type").and_then(|t| self.type_name(t))
                    {
                        out.push(Expr::Dotted(t));
                    }
                }
            }
            _ => {
                for e in body.named_children(&mut body.walk()) {
                    if e.kind() != "type_elem" {
                        continue;
                    }
                    let types: Vec<Node> =
                        e.named_children(&mut e.walk()).filter(|x| x.kind() != "comment").collect();
                    if let [t] = types.as_slice()
                        && matches!(t.kind(), "type_identifier" | "qualified_type" | "generic_type")
                        && let Some(n) = self.type_name(*t)
                    {
                        out.push(Expr::Dotted(n));
                    }
                }
            }
        }
        out
    }

    /// The type a result names: `T`, `*T`, `pkg.T`, or the first of `(T, error)`.
    fn result_type(&self, r: Node) -> Option<String> {
        if r.kind() == "parameter_list" {
            let first =
                r.named_children(&mut r.walk()).find(|x| x.kind() == "parameter_declaration")?;
            return self.type_name(first.field("type")?);
        }
        self.type_name(r)
    }

    /// A type as a dotted name: `T`, `pkg.T`; pointers, parentheses and type arguments dropped.
    fn type_name(&self, t: Node) -> Option<String> {
        type_name(t, self.src)
    }

    fn import(&mut self, spec: Node, path: Node, owner: Option<DefIdx>, stmt: u32) {
        let raw = self.text(path);
        let module = raw.trim_matches(|c| c == '"' || c == '`').to_string();
        let (mut name, mut alias) = (None, None);
        if let Some(n) = spec.field("name") {
            match n.kind() {
                "dot" => name = Some("*".to_string()),
                _ => alias = Some(self.text(n)),
            }
        }
        self.facts.imports.push(Import {
            owner,
            direct: owner.is_none(),
            level: 0,
            module,
            name,
            alias,
            line: spec.start_position().row as u32 + 1,
            stmt,
            form: ImportForm::Plain,
            depth: 1,
        });
    }

    /// What a call's function expression names.
    fn callee(&self, f: Node) -> Callee {
        match f.kind() {
            "identifier" => Callee::Name(self.text(f)),
            "parenthesized_expression" => match f.named_child(0) {
                Some(inner) if f.named_child_count() == 1 => self.callee(inner),
                _ => Callee::Other,
            },
            "selector_expression" => {
                let (Some(op), Some(field)) = (f.field("operand"), f.field("field")) else {
                    return Callee::Other;
                };
                let field = self.text(field);
                if let Some(chain) = chain(op, self.src) {
                    return Callee::Chain(format!("{chain}.{field}"));
                }
                let op = unparen(op);
                if op.kind() == "call_expression"
                    && let Some(c) = op.field("function").and_then(|x| chain(x, self.src))
                {
                    return Callee::OnCall(c, field);
                }
                Callee::Attr(field)
            }
            _ => Callee::Other,
        }
    }

    /// `a, b := x, y` and `a = x`: one binding per target whose value is known.
    fn assign(&mut self, owner: Option<DefIdx>, left: Node, right: Node) {
        let ls: Vec<Node> =
            left.named_children(&mut left.walk()).filter(|x| x.kind() != "comment").collect();
        let rs: Vec<Node> =
            right.named_children(&mut right.walk()).filter(|x| x.kind() != "comment").collect();
        let pairs: Vec<(Node, Node)> = if ls.len() == rs.len() {
            ls.into_iter().zip(rs).collect()
        } else if rs.len() == 1 && !ls.is_empty() && first_of_many(rs[0]) {
            // `x, err := NewX()`, `v, ok := x.(T)`: the first result.
            vec![(ls[0], rs[0])]
        } else {
            Vec::new()
        };
        for (l, r) in pairs {
            let Some(target) = chain(l, self.src).filter(|t| t != "_") else { continue };
            if let Some(value) = self.value(r).filter(|v| !refers_to(v, &target)) {
                self.facts.binds.push(Bind { owner, target, value });
            }
        }
    }

    /// `var x T`, `var x = NewT()`, `var a, b T`.
    fn var_spec(&mut self, owner: Option<DefIdx>, spec: Node) {
        let names: Vec<Node> = spec
            .children_by_field_name("name", &mut spec.walk())
            .filter(|n| n.kind() == "identifier")
            .collect();
        if let Some(ty) = spec.field("type") {
            if let Some(t) = self.type_name(ty) {
                for n in names {
                    let target = self.text(n);
                    if target != "_" {
                        self.facts.binds.push(Bind {
                            owner,
                            target,
                            value: BindValue::Annotated(t.clone()),
                        });
                    }
                }
            }
            return;
        }
        let Some(values) = spec.field("value") else { return };
        let vs: Vec<Node> =
            values.named_children(&mut values.walk()).filter(|x| x.kind() != "comment").collect();
        let pairs: Vec<(Node, Node)> = if names.len() == vs.len() {
            names.into_iter().zip(vs).collect()
        } else if vs.len() == 1 && !names.is_empty() && first_of_many(vs[0]) {
            vec![(names[0], vs[0])]
        } else {
            Vec::new()
        };
        for (n, v) in pairs {
            let target = self.text(n);
            if target == "_" {
                continue;
            }
            if let Some(value) = self.value(v).filter(|v| !refers_to(v, &target)) {
                self.facts.binds.push(Bind { owner, target, value });
            }
        }
    }

    /// A typed parameter of a function, method or function literal (not the receiver, not a
    /// parameter of a function type or an interface method spec).
    fn param(&mut self, owner: Option<DefIdx>, decl: Node, def_of: &HashMap<usize, DefIdx>) {
        let Some(list) = decl.parent() else { return };
        let Some(holder) = list.parent() else { return };
        let is_params = holder.field("parameters").is_some_and(|p| p.id() == list.id());
        if !is_params
            || !matches!(
                holder.kind(),
                "function_declaration" | "method_declaration" | "func_literal"
            )
        {
            return;
        }
        // A function literal's parameters belong to the named function around it.
        if holder.kind() != "func_literal" && def_of.get(&holder.id()).copied() != owner {
            return;
        }
        let Some(t) = decl.field("type").and_then(|t| self.type_name(t)) else {
            return;
        };
        for n in decl.children_by_field_name("name", &mut decl.walk()) {
            let target = self.text(n);
            if target != "_" {
                self.facts.binds.push(Bind {
                    owner,
                    target,
                    value: BindValue::Annotated(t.clone()),
                });
            }
        }
    }

    /// A field of a struct type that is an entity: owned by the struct. An embedded type is a
    /// field named after the type (`s.Base.m()`).
    fn field(&mut self, owner: Option<DefIdx>, decl: Node, def_of: &HashMap<usize, DefIdx>) {
        let Some(o) = owner else { return };
        let spec = decl.parent().and_then(|l| l.parent()).and_then(|s| s.parent());
        if spec.and_then(|s| def_of.get(&s.id()).copied()) != Some(o) {
            return; // a field of an anonymous struct, or of a function type
        }
        let Some(ty) = decl.field("type") else { return };
        let Some(t) = self.type_name(ty) else { return };
        let names: Vec<String> =
            decl.children_by_field_name("name", &mut decl.walk()).map(|n| self.text(n)).collect();
        if names.is_empty() {
            let last = t.rsplit('.').next().unwrap_or(&t).to_string();
            self.facts.binds.push(Bind { owner, target: last, value: BindValue::Annotated(t) });
            return;
        }
        for target in names {
            if target != "_" {
                self.facts.binds.push(Bind {
                    owner,
                    target,
                    value: BindValue::Annotated(t.clone()),
                });
            }
        }
    }

    /// What a right-hand side tells of its value's type.
    fn value(&self, v: Node) -> Option<BindValue> {
        let v = unparen(v);
        match v.kind() {
            "call_expression" => {
                let f = chain(v.field("function")?, self.src)?;
                if f == "new" {
                    // `new(T)`: a pointer to a T.
                    let args = v.field("arguments")?;
                    let t = args.named_child(0)?;
                    return type_name(t, self.src)
                        .or_else(|| chain(t, self.src))
                        .map(BindValue::Annotated);
                }
                Some(BindValue::CallOf(f))
            }
            "composite_literal" => self.type_name(v.field("type")?).map(BindValue::Annotated),
            "unary_expression" => {
                let op = v.field("operand")?;
                let op = unparen(op);
                if v.child(0).is_some_and(|c| c.kind() == "&") && op.kind() == "composite_literal" {
                    return self.value(op);
                }
                None
            }
            // `x := Map[int](xs)`: an explicit instantiation reads as a conversion.
            "type_conversion_expression" => {
                let t = v.field("type").filter(|t| t.kind() == "generic_type")?;
                type_name(t, self.src).map(BindValue::CallOf)
            }
            "type_assertion_expression" => {
                self.type_name(v.field("type")?).map(BindValue::Annotated)
            }
            "identifier" | "selector_expression" => chain(v, self.src).map(BindValue::Alias),
            _ => None,
        }
    }
}

/// An expression whose first value, of several, is what `value` reads: a call's first result,
/// a type assertion's value (`v, ok := x.(T)`).
fn first_of_many(v: Node) -> bool {
    matches!(unparen(v).kind(), "call_expression" | "type_assertion_expression")
}

/// `t = t.Elem()`, `n = n.next`: a value read from the target itself tells nothing new of its
/// type, and would make the binding its own input.
fn refers_to(v: &BindValue, target: &str) -> bool {
    let (BindValue::CallOf(c) | BindValue::Alias(c)) = v else { return false };
    c == target || c.strip_prefix(target).is_some_and(|rest| rest.starts_with('.'))
}

/// `Map[int](xs)`, `pkg.Map[K, V](m)`: the grammar reads an explicit instantiation as a
/// conversion to a generic type; a call when the name is a function.
fn generic_callee(g: Node, src: &[u8]) -> Callee {
    match g.field("type") {
        Some(t) if t.kind() == "type_identifier" => Callee::Name(tree::text(t, src)),
        Some(t) if t.kind() == "qualified_type" => {
            type_name(t, src).map_or(Callee::Other, Callee::Chain)
        }
        _ => Callee::Other,
    }
}

/// A comment line that is a directive (`//go:noinline`, `//export f`, `// +build x`), which
/// Go leaves out of doc comments.
fn is_directive(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"//") else { return false };
    if rest.starts_with(b" +build") || rest.starts_with(b"line ") || rest.starts_with(b"export ") {
        return true;
    }
    // `//word:...` with no space after the slashes: `//go:embed`, `//nolint:errcheck`.
    let word = rest.iter().take_while(|c| c.is_ascii_alphanumeric()).count();
    word > 0 && rest.get(word) == Some(&b':')
}

/// A comment run without its first comment when that one trails code on its line
/// (`A struct{} // the A` above `B struct{}` is not B's doc).
fn own_lines(src: &[u8], (start, end): (u32, u32)) -> Option<(u32, u32)> {
    let s = start as usize;
    let line_start = src[..s].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
    if src[line_start..s].iter().all(|c| c.is_ascii_whitespace()) {
        return Some((start, end));
    }
    let mut next = src[s..end as usize].iter().position(|&c| c == b'\n')? + s + 1;
    while next < end as usize && src[next].is_ascii_whitespace() {
        next += 1;
    }
    (next < end as usize).then_some((next as u32, end))
}

/// A comment run with its leading and trailing directive lines cut off; None when nothing else
/// is left.
fn without_directives(src: &[u8], (start, end): (u32, u32)) -> Option<(u32, u32)> {
    let (mut s, mut e) = (start as usize, end as usize);
    // Leading lines.
    while s < e {
        let line_end = src[s..e].iter().position(|&c| c == b'\n').map_or(e, |i| s + i);
        let line = src[s..line_end].trim_ascii();
        if !is_directive(line) {
            break;
        }
        s = (line_end + 1).min(e);
        while s < e && src[s].is_ascii_whitespace() {
            s += 1;
        }
    }
    // Trailing lines.
    while s < e {
        let line_start = src[s..e].iter().rposition(|&c| c == b'\n').map_or(s, |i| s + i + 1);
        let line = src[line_start..e].trim_ascii();
        if !is_directive(line) {
            break;
        }
        e = line_start;
        while e > s && src[e - 1].is_ascii_whitespace() {
            e -= 1;
        }
    }
    (s < e).then_some((s as u32, e as u32))
}

/// Strips parentheses around an expression.
fn unparen(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" && n.named_child_count() == 1 {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// `a`, `a.b.c` as a dotted chain (parentheses allowed around the parts).
fn chain(n: Node, src: &[u8]) -> Option<String> {
    let n = unparen(n);
    match n.kind() {
        "identifier" | "field_identifier" | "package_identifier" | "type_identifier" => {
            Some(tree::text(n, src))
        }
        "selector_expression" => {
            let op = chain(n.field("operand")?, src)?;
            let field = tree::text(n.field("field")?, src);
            Some(format!("{op}.{field}"))
        }
        _ => None,
    }
}

/// A type as a dotted name: `T`, `pkg.T`; pointers, parentheses and type arguments dropped.
fn type_name(t: Node, src: &[u8]) -> Option<String> {
    match t.kind() {
        "type_identifier" | "identifier" => Some(tree::text(t, src)),
        "qualified_type" => {
            let p = tree::text(t.field("package")?, src);
            let n = tree::text(t.field("name")?, src);
            Some(format!("{p}.{n}"))
        }
        "pointer_type" | "parenthesized_type" => type_name(t.named_child(0)?, src),
        "generic_type" => type_name(t.field("type")?, src),
        // `x := new(pkg.T)` parses its argument as an expression.
        "selector_expression" => chain(t, src),
        _ => None,
    }
}

/// A receiver's base type: `T`, `*T`, `T[K]`, `*T[K, V]` -> `T`. The grammar may read the
/// type arguments of a receiver as an array or index expression.
fn receiver_type(t: Node, src: &[u8]) -> Option<String> {
    match t.kind() {
        "type_identifier" => Some(tree::text(t, src)),
        "pointer_type" | "parenthesized_type" => receiver_type(t.named_child(0)?, src),
        "generic_type" => receiver_type(t.field("type")?, src),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(src: &str) -> FileFacts {
        Extractor::new().extract(src.as_bytes())
    }

    #[test]
    fn query_compiles_with_known_captures() {
        patterns();
        let q = tree_sitter::Query::new(&language(), FACTS_QUERY).unwrap();
        for name in q.capture_names() {
            assert!(
                MAIN.contains(name)
                    || [
                        "def.name",
                        "def.params",
                        "def.result",
                        "def.body",
                        "def.receiver",
                        "package.name",
                        "import.path",
                        "call.callee",
                        "call.generic",
                        "bind.left",
                        "bind.right",
                    ]
                    .contains(name),
                "unknown capture {name}"
            );
        }
    }

    #[test]
    fn defs_owners_and_spans() {
        let f = facts(
            "package srv\n\n// Server serves.\n// Twice.\ntype Server struct {\n\tBase\n\tlog *Logger\n}\n\nfunc (s *Server) Serve(n int) (*Conn, error) {\n\treturn nil, nil\n}\n\nfunc (l *List[T]) Push(v T) {}\n\nfunc NewServer() *Server { return &Server{} }\n",
        );
        let names: Vec<String> = (0..f.defs.len() as u32).map(|i| f.qual_name(i)).collect();
        assert_eq!(names, ["Server", "Server.Serve", "List.Push", "NewServer"]);
        let s = &f.defs[0];
        assert_eq!((s.line_start, s.line_head, s.line_end), (3, 5, 8));
        assert_eq!(s.bases, vec![Expr::Dotted("Base".into())]);
        let serve = &f.defs[1];
        assert_eq!(serve.first_param.as_deref(), Some("s"));
        assert_eq!(serve.owner.as_deref(), Some("Server"));
        assert_eq!(serve.returns.as_deref(), Some("Conn"));
        let src = "package srv\n\n// Server serves.\n// Twice.\ntype Server struct {\n\tBase\n\tlog *Logger\n}\n\nfunc (s *Server) Serve(n int) (*Conn, error) {\n\treturn nil, nil\n}\n\nfunc (l *List[T]) Push(v T) {}\n\nfunc NewServer() *Server { return &Server{} }\n";
        assert_eq!(
            &src[serve.byte_head as usize..serve.byte_sig_end as usize],
            "func (s *Server) Serve(n int) (*Conn, error)"
        );
        assert_eq!(&src[s.byte_head as usize..s.byte_sig_end as usize], "type Server struct");
        assert_eq!(f.defs[2].owner.as_deref(), Some("List"));
        assert_eq!(f.package.as_deref(), Some("srv"));
    }
}
