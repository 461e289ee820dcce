//! The C/C++ frontend: a hand walk of the syntax tree (see the module's documentation).

use std::collections::HashSet;

use tree_sitter::{Node, Parser};

use crate::extract::tree::Field as _;
use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, Import, ImportForm, tree,
};
use crate::lang::Lang;

/// A reusable extractor: one per thread (tree-sitter parsers are not `Sync`).
#[derive(Default)]
pub struct Extractor {
    /// Each grammar's parser and its [`INERT`] kinds by kind id.
    c: Option<(Parser, Vec<bool>)>,
    cpp: Option<(Parser, Vec<bool>)>,
}

impl Extractor {
    /// A new extractor; each grammar is loaded when first needed.
    pub fn new() -> Extractor {
        Extractor::default()
    }

    /// Extracts the facts of one C ([`Lang::C`]) or C++ file. Never fails: syntax errors are
    /// recovered from and counted in [`FileFacts::syntax_errors`].
    ///
    /// A C file that C cannot read and that has C++ constructs (a C++ header in a C
    /// repository: a vendored C++ library, a C++ API beside the C one) is read as C++ too, and
    /// that reading is kept when it has fewer syntax errors: its classes and methods are then
    /// entities instead of errors. Macro-heavy C, which C++ reads no better, stays C.
    pub fn extract(&mut self, lang: Lang, src: &[u8]) -> FileFacts {
        // Export and storage macros blanked out (same length, so every offset and line holds).
        let blanked = blank_decl_macros(src);
        let src = blanked.as_deref().unwrap_or(src);
        let facts = self.extract_as(lang == Lang::Cpp, src);
        if lang == Lang::C && facts.syntax_errors > 0 && has_cpp_constructs(src) {
            let as_cpp = self.extract_as(true, src);
            if as_cpp.syntax_errors < facts.syntax_errors {
                return as_cpp;
            }
        }
        facts
    }

    /// Extracts with the C++ grammar (`cpp`) or the C one.
    pub(super) fn extract_as(&mut self, cpp: bool, src: &[u8]) -> FileFacts {
        let (parser, inert) = if cpp {
            self.cpp.get_or_insert_with(|| loaded(super::cpp_language()))
        } else {
            self.c.get_or_insert_with(|| loaded(super::c_language()))
        };
        let parsed = tree::parse(parser, src);
        let mut facts = tree::base_facts(src, parsed.as_ref().map(|t| t.root_node()));
        let Some(t) = parsed.as_ref() else { return facts };
        let mut b = Builder {
            src,
            inert,
            cpp,
            facts: &mut facts,
            namespaces: Vec::new(),
            decls: Vec::new(),
            stmt: 0,
        };
        b.walk(t.root_node());
        b.finish();
        facts
    }
}

/// `src` with the macros that decorate declarations replaced by spaces, or None when it has
/// none. The grammars cannot expand macros and misread such lines: `class GTEST_API_ Test {`
/// (Qt's `Q_CORE_EXPORT`, LLVM's `LLVM_LIBRARY_VISIBILITY`) becomes a function named `Test`
/// whose body is the class's members, and `XXH_PUBLIC_API XXH32_hash_t XXH32(...)` or
/// `MEM_STATIC ZSTD_cpuid_t ZSTD_cpuid(void) {` lose their function. An all-caps name
/// (`MACRO` or `MACRO(args)`) is blanked where nothing else could stand:
///
/// * after `class` or `struct` and before the type's name, when the name is followed by `{`,
///   `:`, `final` or the end of the line;
/// * first on a line (column 0), when two or more names follow it before a `(` (its own type
///   and name: `MACRO type name(`), so a macro that is itself the return type (`BOOL f(`) stays.
pub(super) fn blank_decl_macros(src: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    for line in src.split_inclusive(|&b| b == b'\n') {
        for (from, to) in decl_macros(line) {
            out.get_or_insert_with(|| src.to_vec())[at + from..at + to].fill(b' ');
        }
        at += line.len();
    }
    out
}

/// The byte ranges of one line's declaration macros (see [`blank_decl_macros`]).
fn decl_macros(line: &[u8]) -> Vec<(usize, usize)> {
    fn is_ident(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'_'
    }
    fn skip_ws(l: &[u8], mut i: usize) -> usize {
        while i < l.len() && (l[i] == b' ' || l[i] == b'\t') {
            i += 1;
        }
        i
    }
    // An identifier at `i`: its end.
    fn ident(l: &[u8], i: usize) -> Option<usize> {
        let n = l[i.min(l.len())..].iter().take_while(|&&c| is_ident(c)).count();
        (n > 0 && !l[i].is_ascii_digit()).then_some(i + n)
    }
    // An all-caps macro at `i`, with its parenthesized arguments on this line: its end.
    fn caps_macro(l: &[u8], i: usize) -> Option<usize> {
        let end = ident(l, i)?;
        let name = &l[i..end];
        if name.len() < 3
            || !name.iter().any(|c| c.is_ascii_uppercase())
            || name.iter().any(|c| c.is_ascii_lowercase())
        {
            return None;
        }
        let j = skip_ws(l, end);
        if l.get(j) != Some(&b'(') {
            return Some(end);
        }
        let mut depth = 0;
        for (k, &c) in l.iter().enumerate().skip(j) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
    let mut found = Vec::new();
    let start = skip_ws(line, 0);
    let word = ident(line, start).map(|e| &line[start..e]);
    if matches!(word, Some(b"class" | b"struct")) {
        let mut i = skip_ws(line, start + word.map_or(0, <[u8]>::len));
        let mut macros = Vec::new();
        while let Some(end) = caps_macro(line, i) {
            macros.push((i, end));
            i = skip_ws(line, end);
        }
        let Some(&(last_start, _)) = macros.last() else { return found };
        // The type's name follows the macros; the last "macro" may be the name itself.
        let (name_start, macros) = match ident(line, i) {
            Some(_) => (i, &macros[..]),
            None => (last_start, &macros[..macros.len() - 1]),
        };
        let Some(name_end) = ident(line, name_start) else { return found };
        let rest = &line[skip_ws(line, name_end)..];
        let rest = rest.strip_suffix(b"\n").unwrap_or(rest);
        let rest = rest.strip_suffix(b"\r").unwrap_or(rest);
        if rest.is_empty()
            || rest.starts_with(b"{")
            || rest.starts_with(b"final")
            || (rest.starts_with(b":") && !rest.starts_with(b"::"))
        {
            found.extend_from_slice(macros);
        }
        return found;
    }
    if start == 0
        && let Some(end) = caps_macro(line, 0)
    {
        // Two or more names (pointers and qualifiers between them) and then `(`.
        let mut i = skip_ws(line, end);
        let mut names = 0;
        while let Some(e) = ident(line, i) {
            names += 1;
            i = skip_ws(line, e);
            while line.get(i) == Some(&b'*') {
                i = skip_ws(line, i + 1);
            }
        }
        if names >= 2 && line.get(i) == Some(&b'(') {
            found.push((0, end));
        }
    }
    found
}

/// Whether a line of `src` opens with a construct only C++ has: `class X {` (or `class X :`,
/// `class X final`, `class X` ending the line), `namespace X {`, `template <`, `using
/// namespace`. Only these shapes: C may name a variable `class` or `namespace` (the kernel
/// does), and C++ reads macro-heavy C "with fewer errors" as nonsense, so a C file that merely
/// parses badly must not qualify.
pub(super) fn has_cpp_constructs(src: &[u8]) -> bool {
    use bstr::ByteSlice;
    fn keyword<'l>(line: &'l [u8], word: &[u8]) -> Option<&'l [u8]> {
        let rest = line.strip_prefix(word)?;
        rest.first().is_some_and(|c| c.is_ascii_whitespace()).then(|| rest.trim_start())
    }
    fn ident(s: &[u8]) -> (&[u8], &[u8]) {
        let n = s.iter().take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_').count();
        (&s[..n], s[n..].trim_start())
    }
    src.lines().any(|line| {
        let l = line.trim_start();
        if let Some(r) = keyword(l, b"class") {
            let (name, rest) = ident(r);
            return !name.is_empty()
                && (rest.is_empty()
                    || rest.starts_with(b"{")
                    || rest.starts_with(b"final")
                    || (rest.starts_with(b":") && !rest.starts_with(b"::")));
        }
        if let Some(r) = keyword(l, b"namespace") {
            return ident(r).1.starts_with(b"{");
        }
        l.strip_prefix(b"template").is_some_and(|r| r.trim_start().starts_with(b"<"))
            || l.starts_with(b"using namespace ")
    })
}

/// A parser for `language`, and which of its kind ids are [`INERT`] (a kind id's name is
/// what [`Node::kind`] gives).
fn loaded(language: tree_sitter::Language) -> (Parser, Vec<bool>) {
    let inert = (0..language.node_kind_count())
        .map(|id| language.node_kind_for_id(id as u16).is_some_and(|k| INERT.contains(&k)))
        .collect();
    (tree::parser_for(&language), inert)
}

/// Where a node sits.
#[derive(Clone, Copy)]
struct Ctx {
    /// The innermost definition.
    owner: Option<DefIdx>,
    /// Inside a C++ anonymous namespace: definitions are file-local.
    local: bool,
}

/// A node's parent and previous sibling (named or not), as the walk found them.
type Around<'t> = (Option<Node<'t>>, Option<Node<'t>>);

/// The walk's stack: a node, where it sits, its parent and its previous sibling.
type Stack<'t> = Vec<(Node<'t>, Ctx, Around<'t>)>;

struct Builder<'s, 'f> {
    src: &'s [u8],
    /// By node kind id: whether the kind is [`INERT`].
    inert: &'s [bool],
    cpp: bool,
    facts: &'f mut FileFacts,
    /// Namespace names the file opens (C++).
    namespaces: Vec<String>,
    /// Prototypes at file scope: (name, line).
    decls: Vec<(String, u32)>,
    stmt: u32,
}

/// Kinds whose subtree holds nothing the facts need.
const INERT: &[&str] = &[
    "comment",
    "string_literal",
    "raw_string_literal",
    "concatenated_string",
    "char_literal",
    "number_literal",
    "system_lib_string",
    "preproc_def",
    "preproc_function_def",
    "preproc_call",
    "enumerator_list",
    "primitive_type",
    "type_identifier",
    "field_identifier",
    "identifier",
    "template_argument_list",
    "parameter_list",
    "attribute_specifier",
    "gnu_asm_expression",
];

impl Builder<'_, '_> {
    fn text(&self, n: Node) -> String {
        tree::text(n, self.src)
    }

    /// Visits every node once, in document order (definitions before what they contain).
    fn walk(&mut self, root: Node) {
        let mut stack: Stack = vec![(root, Ctx { owner: None, local: false }, (None, None))];
        while let Some((n, cx, around)) = stack.pop() {
            self.visit(n, cx, around, &mut stack);
        }
    }

    fn push_children<'t>(&self, n: Node<'t>, cx: Ctx, stack: &mut Stack<'t>) {
        let at = stack.len();
        let mut cursor = n.walk();
        let mut prev = None;
        for c in n.children(&mut cursor) {
            if c.is_named() && (c.child_count() > 0 || c.kind() == "ERROR") {
                stack.push((c, cx, (Some(n), prev)));
            }
            prev = Some(c);
        }
        stack[at..].reverse();
    }

    fn visit<'t>(&mut self, n: Node<'t>, cx: Ctx, around: Around<'t>, stack: &mut Stack<'t>) {
        if self.inert.get(n.kind_id() as usize).copied().unwrap_or(false) {
            return;
        }
        let kind = n.kind();
        match kind {
            "function_definition" => self.function(n, cx, around, stack),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
                if let Some(body) = n.field("body") {
                    let name = n.field("name");
                    match name.and_then(|nm| self.class_name(nm)) {
                        Some((owner, name)) => {
                            self.class(n, n, body, name, owner, cx, around, stack)
                        }
                        // An anonymous member struct: its fields belong to the enclosing one.
                        None => self.push_children(body, cx, stack),
                    }
                }
            }
            "type_definition" => {
                let ty = n.field("type");
                let anon = ty.filter(|t| {
                    matches!(
                        t.kind(),
                        "struct_specifier"
                            | "union_specifier"
                            | "enum_specifier"
                            | "class_specifier"
                    ) && t.field("name").is_none()
                });
                match anon.and_then(|t| Some((t, t.field("body")?))) {
                    Some((t, body)) => {
                        let mut cursor = n.walk();
                        let name = n
                            .children_by_field_name("declarator", &mut cursor)
                            .find(|d| d.kind() == "type_identifier")
                            .map(|d| self.text(d));
                        match name {
                            Some(name) => self.class(n, t, body, name, None, cx, around, stack),
                            None => self.push_children(body, cx, stack),
                        }
                    }
                    None => self.push_children(n, cx, stack),
                }
            }
            "namespace_definition" => {
                let mut cx = cx;
                match n.field("name") {
                    Some(name) => {
                        for seg in self.text(name).split("::") {
                            let seg = seg.trim().trim_start_matches("inline").trim();
                            if !seg.is_empty() && !self.namespaces.iter().any(|s| s == seg) {
                                self.namespaces.push(seg.to_string());
                            }
                        }
                    }
                    None => cx.local = true,
                }
                if let Some(body) = n.field("body") {
                    self.push_children(body, cx, stack);
                }
            }
            "preproc_include" => self.include(n, cx),
            "declaration" => {
                if cx.owner.is_none() {
                    self.prototypes(n);
                }
                if self.cpp {
                    self.decl_binds(n, cx.owner);
                }
                self.push_children(n, cx, stack);
            }
            "for_range_loop" if self.cpp => {
                self.decl_binds(n, cx.owner);
                self.push_children(n, cx, stack);
            }
            "field_declaration" => {
                if self.cpp {
                    self.decl_binds(n, cx.owner);
                }
                self.push_children(n, cx, stack);
            }
            "call_expression" => {
                if let Some(callee) = n.field("function").and_then(|f| self.callee(f)) {
                    self.call(cx.owner, callee, n);
                }
                self.push_children(n, cx, stack);
            }
            "new_expression" => {
                if let Some(t) = n.field("type").and_then(|t| self.type_name(t)) {
                    self.call(cx.owner, ctor(&t), n);
                }
                self.push_children(n, cx, stack);
            }
            // C's file-scope initializers are constant: tables, not calls.
            "initializer_list" if !self.cpp && cx.owner.is_none() => {}
            _ => self.push_children(n, cx, stack),
        }
    }

    fn call(&mut self, owner: Option<DefIdx>, callee: Callee, n: Node) {
        let line = n.start_position().row as u32 + 1;
        self.facts.calls.push(Call { owner, deco_of: None, callee, line });
    }

    /// `(owner as written, name)` of a class's name node: `Foo`, `Foo<T>` -> `Foo`,
    /// `A::B` -> (`A`, `B`).
    fn class_name(&self, n: Node) -> Option<(Option<String>, String)> {
        match n.kind() {
            "type_identifier" | "identifier" => Some((None, self.text(n))),
            "template_type" => Some((None, self.text(n.field("name")?))),
            "qualified_identifier" => {
                let segs = self.segments(n)?;
                let (last, scope) = segs.split_last()?;
                let owner = (!scope.is_empty()).then(|| scope.join("."));
                Some((owner, last.clone()))
            }
            _ => None,
        }
    }

    /// The segments of a qualified name, template arguments dropped: `a::B<T>::f` ->
    /// `[a, B, f]`. None for a dependent or `decltype` scope.
    fn segments(&self, n: Node) -> Option<Vec<String>> {
        let mut out = Vec::new();
        let mut cur = n;
        loop {
            match cur.kind() {
                "qualified_identifier" => {
                    if let Some(s) = cur.field("scope") {
                        out.push(self.simple_name(s)?);
                    }
                    cur = cur.field("name")?;
                }
                _ => {
                    out.push(self.simple_name(cur)?);
                    return Some(out);
                }
            }
        }
    }

    /// One segment's name: identifiers, templates without their arguments, `~A`,
    /// `operator()`.
    fn simple_name(&self, n: Node) -> Option<String> {
        match n.kind() {
            "identifier" | "type_identifier" | "field_identifier" | "namespace_identifier" => {
                Some(self.text(n))
            }
            "template_type" | "template_function" | "template_method" => {
                self.simple_name(n.field("name")?)
            }
            "destructor_name" => Some(self.text(n).split_whitespace().collect()),
            "operator_name" => Some(operator_name(&self.text(n))),
            "operator_cast" => {
                let t = self.text(n.field("type")?);
                Some(format!("operator {}", t.split_whitespace().collect::<Vec<_>>().join(" ")))
            }
            _ => None,
        }
    }

    /// A type as a dotted name: `Foo`, `ns::Foo` -> `ns.Foo` (its last two segments),
    /// `std::unique_ptr<Foo>` -> `Foo`; None for primitive and `auto` types.
    fn type_name(&self, n: Node) -> Option<String> {
        match n.kind() {
            "type_identifier" => Some(self.text(n)),
            "template_type" => {
                let name = self.simple_name(n.field("name")?)?;
                if SMART_POINTERS.contains(&name.as_str()) {
                    let args = n.field("arguments")?;
                    let first = args.named_child(0)?;
                    let ty = if first.kind() == "type_descriptor" {
                        first.field("type")?
                    } else {
                        first
                    };
                    return self.type_name(ty);
                }
                Some(name)
            }
            "qualified_identifier" => {
                let segs = self.segments(n)?;
                if segs.len() >= 2 && SMART_POINTERS.contains(&segs[segs.len() - 1].as_str()) {
                    // `std::unique_ptr<Foo>`: the template type is the name.
                    let mut cur = n;
                    while cur.kind() == "qualified_identifier" {
                        cur = cur.field("name")?;
                    }
                    return self.type_name(cur);
                }
                Some(last_two(&segs))
            }
            _ => None,
        }
    }

    /// What a call's `function` calls.
    fn callee(&self, f: Node) -> Option<Callee> {
        match f.kind() {
            "identifier" => Some(Callee::Name(self.text(f))),
            "template_function" => Some(Callee::Name(self.simple_name(f)?)),
            "qualified_identifier" if self.cpp => {
                let segs = self.segments(f)?;
                if segs.len() == 1 {
                    return Some(Callee::Name(segs[0].clone()));
                }
                Some(Callee::Chain(last_two(&segs)))
            }
            // A call through a struct's field is a call through a function pointer in C.
            "field_expression" if self.cpp => {
                let field = f.field("field")?;
                let name = match field.kind() {
                    "qualified_identifier" => self.segments(field)?.pop()?,
                    _ => self.simple_name(field)?,
                };
                let arg = f.field("argument")?;
                if let Some(d) = self.dotted_expr(arg) {
                    return Some(Callee::Chain(format!("{d}.{name}")));
                }
                if arg.kind() == "call_expression"
                    && let Some(inner) = arg.field("function")
                    && let Some(c) = self.callee(inner)
                {
                    return Some(match c {
                        Callee::Name(i) | Callee::Chain(i) => Callee::OnCall(i, name),
                        _ => Callee::Attr(name),
                    });
                }
                Some(Callee::Attr(name))
            }
            _ => None,
        }
    }

    /// `a`, `this`, `a.b`, `this->a`: a receiver written as a chain.
    fn dotted_expr(&self, n: Node) -> Option<String> {
        match n.kind() {
            "identifier" | "field_identifier" => Some(self.text(n)),
            "this" => Some("this".into()),
            "field_expression" => {
                let a = self.dotted_expr(n.field("argument")?)?;
                let field = n.field("field")?;
                if field.kind() != "field_identifier" {
                    return None;
                }
                Some(format!("{a}.{}", self.text(field)))
            }
            "parenthesized_expression" => self.dotted_expr(n.named_child(0)?),
            "pointer_expression" if n.field("operator")?.kind() == "*" => {
                self.dotted_expr(n.field("argument")?)
            }
            _ => None,
        }
    }

    /// A function definition: its entity, then its body.
    fn function<'t>(&mut self, n: Node<'t>, cx: Ctx, around: Around<'t>, stack: &mut Stack<'t>) {
        let decl = n.field("declarator");
        let fdecl = decl.and_then(function_declarator);
        // `operator bool() const`: the conversion holds its own (abstract) declarator.
        let cast = decl.filter(|d| {
            d.kind() == "operator_cast"
                || (d.kind() == "qualified_identifier" && {
                    let mut cur = *d;
                    while let Some(nm) = cur.field("name") {
                        cur = nm;
                    }
                    cur.kind() == "operator_cast"
                })
        });
        let name = fdecl.and_then(|d| d.field("declarator")).or(cast);
        let fdecl = fdecl.or(cast);
        let parsed = name.and_then(|nm| match nm.kind() {
            "qualified_identifier" => {
                let segs = self.segments(nm)?;
                let (last, scope) = segs.split_last()?;
                Some(((!scope.is_empty()).then(|| scope.join(".")), last.clone()))
            }
            _ => Some((None, self.simple_name(nm)?)),
        });
        let (Some(fdecl), Some((owner, name))) = (fdecl, parsed) else {
            // A definition the grammar could not name (a macro in its head): its calls belong
            // to whatever encloses it.
            self.push_children(n, cx, stack);
            return;
        };
        let is_static = has_storage(n, self.src, "static");
        let parent = cx.owner;
        let in_class = parent.is_some_and(|p| self.facts.defs[p as usize].kind == DefKind::Class);
        let member = self.cpp && (in_class || owner.is_some());
        let first_param = (member && !(in_class && is_static)).then(|| "this".to_string());
        let file_local = (is_static && !in_class && owner.is_none()) || cx.local;
        let returns = n.field("type").and_then(|t| self.type_name(t));
        // The signature ends before a constructor's member initializers (`: a_(x), b_(y)`).
        let mut c = n.walk();
        let inits = n.children(&mut c).find(|c| c.kind() == "field_initializer_list");
        let head_end = inits.or_else(|| n.field("body"));
        let decorators = if file_local { vec![Expr::Dotted("static".into())] } else { Vec::new() };
        let i =
            self.push_def(n, around, head_end, DefKind::Function, name, owner, parent, first_param);
        let d = &mut self.facts.defs[i as usize];
        d.decorators = decorators;
        d.returns = returns;
        let inner = Ctx { owner: Some(i), local: cx.local };
        if self.cpp
            && let Some(params) = fdecl.field("parameters")
        {
            let mut cursor = params.walk();
            let ps: Vec<Node> = params.named_children(&mut cursor).collect();
            for p in ps {
                if matches!(p.kind(), "parameter_declaration" | "optional_parameter_declaration") {
                    self.decl_binds(p, Some(i));
                }
            }
        }
        // The body and a constructor's member initializers hold the calls.
        let at = stack.len();
        let mut cursor = n.walk();
        let mut prev = None;
        for c in n.children(&mut cursor) {
            if c.is_named()
                && matches!(
                    c.kind(),
                    "compound_statement" | "field_initializer_list" | "try_statement"
                )
            {
                stack.push((c, inner, (Some(n), prev)));
            }
            prev = Some(c);
        }
        stack[at..].reverse();
    }

    /// A class-like definition named `name` (`owner` for `struct A::B {}`), spanning `n`
    /// (the `typedef` of an anonymous one), with its specifier `spec` and body.
    #[allow(clippy::too_many_arguments)]
    fn class<'t>(
        &mut self,
        n: Node<'t>,
        spec: Node<'t>,
        body: Node<'t>,
        name: String,
        owner: Option<String>,
        cx: Ctx,
        around: Around<'t>,
        stack: &mut Stack<'t>,
    ) {
        let mut bases = Vec::new();
        let mut cursor = spec.walk();
        for c in spec.named_children(&mut cursor) {
            if c.kind() != "base_class_clause" {
                continue;
            }
            let mut cc = c.walk();
            for t in c.named_children(&mut cc) {
                if let Some(t) = self.type_name(t) {
                    bases.push(Expr::Dotted(t));
                }
            }
        }
        let i = self.push_def(n, around, Some(body), DefKind::Class, name, owner, cx.owner, None);
        self.facts.defs[i as usize].bases = bases;
        if spec.kind() != "enum_specifier" {
            self.push_children(body, Ctx { owner: Some(i), local: cx.local }, stack);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_def(
        &mut self,
        n: Node,
        (n_parent, n_prev): Around,
        // What ends the signature (the body, for most).
        head_end: Option<Node>,
        kind: DefKind,
        name: String,
        owner: Option<String>,
        parent: Option<DefIdx>,
        first_param: Option<String>,
    ) -> DefIdx {
        // `template <...>` lines belong to what they declare.
        // (`n_parent` and `n_prev` are `n.parent()` and `n.prev_sibling()`, known to the walk:
        // tree-sitter finds them by a search from the root.)
        let (mut outer, mut up) = (n, n_parent);
        while let Some(p) = up.filter(|p| p.kind() == "template_declaration") {
            outer = p;
            up = p.parent();
        }
        let is_doc = |t: &[u8]| t.starts_with(b"//") || t.starts_with(b"/*");
        let doc = if outer == n {
            tree::doc_after(outer, n_prev, self.src, is_doc)
        } else {
            tree::doc_before(outer, self.src, is_doc)
        }
        .filter(|&(s, _)| starts_line(self.src, s as usize));
        let byte_start =
            doc.map_or(outer.start_byte() as u32, |d| d.0.min(outer.start_byte() as u32));
        let line_start = match doc {
            // The definition's line less the lines of its doc comment.
            Some(_) => {
                outer.start_position().row as u32 + 1
                    - newlines(&self.src[byte_start as usize..outer.start_byte()])
            }
            None => outer.start_position().row as u32 + 1,
        };
        let direct = up.is_some_and(|p| {
            matches!(
                p.kind(),
                "translation_unit"
                    | "declaration_list"
                    | "field_declaration_list"
                    | "compound_statement"
            )
        });
        self.facts.defs.push(Def {
            kind,
            name,
            parent,
            is_async: false,
            direct,
            line_start,
            line_head: outer.start_position().row as u32 + 1,
            line_end: n.end_position().row as u32 + 1,
            byte_start,
            byte_head: outer.start_byte() as u32,
            byte_sig_end: tree::sig_end(n, head_end, self.src),
            byte_end: n.end_byte() as u32,
            doc,
            bases: Vec::new(),
            decorators: Vec::new(),
            deco_names: Vec::new(),
            first_param,
            returns: None,
            owner,
            namespace: false,
        });
        (self.facts.defs.len() - 1) as DefIdx
    }

    /// `#include "x.h"` / `#include <x.h>`.
    fn include(&mut self, n: Node, cx: Ctx) {
        let Some(p) = n.field("path") else { return };
        let raw = self.text(p);
        let (module, level) = match p.kind() {
            "string_literal" => (raw.trim_matches('"').to_string(), 1),
            "system_lib_string" => {
                (raw.trim_start_matches('<').trim_end_matches('>').to_string(), 0)
            }
            _ => return, // `#include MACRO`: not expanded
        };
        let module = module.trim().to_string();
        if module.is_empty() {
            return;
        }
        self.facts.imports.push(Import {
            owner: cx.owner,
            direct: cx.owner.is_none(),
            level,
            module,
            name: None,
            alias: None,
            line: n.start_position().row as u32 + 1,
            stmt: self.stmt,
            form: ImportForm::ReExport,
            depth: 1,
        });
        self.stmt += 1;
    }

    /// Prototypes of a file-scope declaration: `int f(void);`, `extern T *g(int), h(void);`.
    fn prototypes(&mut self, n: Node) {
        if has_storage(n, self.src, "static") {
            return; // a file-local function, defined in this file
        }
        let mut cursor = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut cursor).collect();
        for d in decls {
            let Some(fd) = function_declarator(d) else { continue };
            let Some(name) = fd.field("declarator") else { continue };
            if name.kind() == "identifier" {
                let line = n.start_position().row as u32 + 1;
                self.decls.push((self.text(name), line));
            }
        }
    }

    /// C++ typed declarations: `Foo x;`, `Foo *p = ...;`, `auto x = new Foo(...)`, a parameter
    /// `const Foo &f`, a field `Foo *foo_;`. A local `Foo x(args)` also calls the constructor.
    fn decl_binds(&mut self, n: Node, owner: Option<DefIdx>) {
        let ty = n.field("type");
        let tname = ty.and_then(|t| self.type_name(t));
        let is_auto = ty.is_some_and(|t| t.kind() == "placeholder_type_specifier");
        let mut cursor = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut cursor).collect();
        for d in decls {
            let (target, value) = match d.kind() {
                "init_declarator" => {
                    let Some(t) = d.field("declarator").and_then(var_name) else {
                        continue;
                    };
                    let v = d.field("value");
                    if let (Some(tn), Some(v)) = (&tname, v)
                        && matches!(v.kind(), "argument_list" | "initializer_list")
                        && owner
                            .is_some_and(|o| self.facts.defs[o as usize].kind == DefKind::Function)
                    {
                        self.call(owner, ctor(tn), d);
                    }
                    (t, v)
                }
                _ => match var_name(d) {
                    Some(t) => (t, None),
                    None => continue,
                },
            };
            let value = match (&tname, value) {
                (Some(t), _) => BindValue::Annotated(t.clone()),
                (None, Some(v)) if is_auto => match v.kind() {
                    "new_expression" => match v.field("type").and_then(|t| self.type_name(t)) {
                        Some(t) => BindValue::Annotated(t),
                        None => continue,
                    },
                    "call_expression" => match v.field("function").and_then(|f| self.callee(f)) {
                        Some(Callee::Name(c) | Callee::Chain(c)) => BindValue::CallOf(c),
                        _ => continue,
                    },
                    _ => continue,
                },
                _ => continue,
            };
            let target = self.text(target);
            self.facts.binds.push(Bind { owner, target, value });
        }
    }

    /// Prototypes of functions the file defines are no imports; the namespaces go to `package`.
    fn finish(&mut self) {
        let defined: HashSet<&str> = self
            .facts
            .defs
            .iter()
            .filter(|d| d.parent.is_none() && d.owner.is_none() && d.kind == DefKind::Function)
            .map(|d| d.name.as_str())
            .collect();
        let mut seen: HashSet<String> = HashSet::new();
        let mut imports = Vec::new();
        for (name, line) in std::mem::take(&mut self.decls) {
            if defined.contains(name.as_str()) || !seen.insert(name.clone()) {
                continue;
            }
            imports.push(Import {
                owner: None,
                direct: true,
                level: 0,
                module: String::new(),
                name: Some(name),
                alias: None,
                line,
                stmt: self.stmt,
                form: ImportForm::Plain,
                depth: 1,
            });
            self.stmt += 1;
        }
        self.facts.imports.extend(imports);
        if !self.namespaces.is_empty() {
            self.facts.package = Some(self.namespaces.join(" "));
        }
    }
}

/// Template types whose first argument is the type of what they point to.
const SMART_POINTERS: &[&str] = &["unique_ptr", "shared_ptr", "weak_ptr", "Ptr", "RefPtr"];

/// A constructor call: `Foo` -> `Foo.Foo`, `ns.Foo` -> `Foo.Foo` after its qualifier.
fn ctor(t: &str) -> Callee {
    let last = t.rsplit('.').next().unwrap_or(t);
    Callee::Chain(format!("{t}.{last}"))
}

/// The last two segments, dotted: a qualifier's own namespace or class and the name.
fn last_two(segs: &[String]) -> String {
    let k = segs.len().saturating_sub(2);
    segs[k..].join(".")
}

/// `operator ()` -> `operator()`, `operator  new` -> `operator new`.
fn operator_name(t: &str) -> String {
    let rest = t.trim().strip_prefix("operator").unwrap_or(t).trim();
    let rest: String = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        format!("operator {rest}")
    } else {
        format!("operator{}", rest.replace(' ', ""))
    }
}

/// The function declarator inside a declarator (through pointers, references, parentheses and
/// attributes): `*f(int)`, `(*f)(void)` is a pointer variable, not a function.
fn function_declarator(mut d: Node) -> Option<Node> {
    for _ in 0..64 {
        match d.kind() {
            "function_declarator" => {
                let inner = d.field("declarator")?;
                // `(*fp)(int)`: a function pointer.
                if inner.kind() == "parenthesized_declarator" {
                    return None;
                }
                return Some(d);
            }
            "pointer_declarator" | "reference_declarator" | "attributed_declarator" => {
                d = d
                    .field("declarator")
                    .or_else(|| d.named_child((d.named_child_count() as u32).checked_sub(1)?))?;
            }
            _ => return None,
        }
    }
    None
}

/// The variable a declarator names: `x`, `*x`, `&x`, `x[3]` is an array (none).
fn var_name(mut d: Node) -> Option<Node> {
    for _ in 0..16 {
        match d.kind() {
            "identifier" | "field_identifier" => return Some(d),
            "pointer_declarator" | "reference_declarator" => {
                d = d
                    .field("declarator")
                    .or_else(|| d.named_child((d.named_child_count() as u32).checked_sub(1)?))?;
            }
            _ => return None,
        }
    }
    None
}

/// Whether a declaration has the storage class `word` (`static`, `extern`).
fn has_storage(n: Node, src: &[u8], word: &str) -> bool {
    let mut cursor = n.walk();
    n.children(&mut cursor).any(|c| {
        c.kind() == "storage_class_specifier"
            && &src[c.start_byte()..c.end_byte()] == word.as_bytes()
    })
}

/// Whether byte `at` is the first non-blank of its line (a comment that trails code is not the
/// next definition's documentation).
fn starts_line(src: &[u8], at: usize) -> bool {
    src[..at.min(src.len())]
        .iter()
        .rev()
        .take_while(|&&c| c != b'\n')
        .all(|c| c.is_ascii_whitespace())
}

/// The number of line breaks in some bytes.
fn newlines(b: &[u8]) -> u32 {
    bstr::ByteSlice::find_iter(b, b"\n").count() as u32
}
