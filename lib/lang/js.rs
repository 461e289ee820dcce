//! JavaScript, TypeScript and TSX: the tree-sitter grammars -> [`FileFacts`], and the module
//! rules (relative specifiers with extension and `index` resolution, `tsconfig.json` /
//! `jsconfig.json` `baseUrl` and `paths`, package.json workspaces, re-exports).
//!
//! Definitions are found by walking the tree rather than with a query: what makes a function
//! an entity here depends on its context (`const f = () => {}`, `exports.f = function`,
//! `Foo.prototype.m = function`, a method of an object literal bound to a name), which a walk
//! that knows its parent reads directly. DESIGN.md §8 gives the naming rules; a chain of
//! assignments (`a.x = b.y = function`) is named by its innermost target. The walk also knows
//! whose `this` it is in: a method's (or a function assigned to a member's), or, inside a plain
//! function or callback, one of its own, through which no chain is written.

use std::collections::HashMap;

use tree_sitter::{Node, Parser};

use crate::extract::tree::Field as _;
use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, Import, ImportForm, tree,
};
use crate::graph::scope::{self, Repo};
use crate::graph::{base_name, parent_dir};
use crate::lang::{Family, Lang};

/// The tree-sitter language of a file of this family.
pub fn language(lang: Lang) -> tree_sitter::Language {
    match lang {
        Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        _ => tree_sitter_javascript::LANGUAGE.into(),
    }
}

/// A reusable extractor: one per thread (tree-sitter parsers are not `Sync`).
pub struct Extractor {
    js: Parser,
    ts: Parser,
    tsx: Parser,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

/// What a CommonJS module assigns its value to; its binding of that name is what `require`
/// of it gives (see [`scope::Resolver::module_value`]).
const MODULE_EXPORTS: &str = "module.exports";

/// Deepest nesting walked; deeper code (generated, minified) is not descended into.
const MAX_NESTING: u32 = 200;

impl Extractor {
    /// A new extractor with the three grammars loaded.
    pub fn new() -> Extractor {
        Extractor {
            js: tree::parser_for(&language(Lang::JavaScript)),
            ts: tree::parser_for(&language(Lang::TypeScript)),
            tsx: tree::parser_for(&language(Lang::Tsx)),
        }
    }

    /// Extracts the facts of one file. Never fails: syntax errors are recovered from and
    /// counted in [`FileFacts::syntax_errors`].
    pub fn extract(&mut self, lang: Lang, src: &[u8]) -> FileFacts {
        let parser = match lang {
            Lang::TypeScript => &mut self.ts,
            Lang::Tsx => &mut self.tsx,
            _ => &mut self.js,
        };
        let parsed = tree::parse(parser, src);
        let root = parsed.as_ref().map(|t| t.root_node());
        let facts = tree::base_facts(src, root);
        let Some(root) = root else { return facts };
        let mut w = Walker { src, facts, this_known: true };
        w.children(root, None, 0, true);
        w.facts
    }
}

struct Walker<'s> {
    src: &'s [u8],
    facts: FileFacts,
    /// Whether `this` here is the receiver of the enclosing definition (a method, a function
    /// assigned to a member): not inside a plain function or callback, which has its own.
    this_known: bool,
}

impl<'s> Walker<'s> {
    fn text(&self, n: Node) -> String {
        tree::text(n, self.src)
    }

    fn children(&mut self, n: Node, owner: Option<DefIdx>, depth: u32, top: bool) {
        // A leaf has no children: no cursor (an allocation) to find that out.
        if depth > MAX_NESTING || n.child_count() == 0 {
            return;
        }
        // The named children, read with one cursor while visiting them (no list of them).
        let mut c = n.walk();
        if !c.goto_first_child() {
            return;
        }
        loop {
            let k = c.node();
            if k.is_named() {
                self.visit(k, owner, depth + 1, top);
            }
            if !c.goto_next_sibling() {
                break;
            }
        }
    }

    /// Adds a definition and returns its index.
    #[allow(clippy::too_many_arguments)]
    fn def(
        &mut self,
        kind: DefKind,
        name: String,
        owner_ty: Option<String>,
        parent: Option<DefIdx>,
        outer: Node,
        head: Node,
        body: Option<Node>,
    ) -> DefIdx {
        let doc = tree::doc_before(outer, self.src, |t| t.starts_with(b"/**"));
        let start = doc.map_or(outer.start_byte() as u32, |d| d.0);
        // The doc comment's line, counted back from the definition's (not from the top of the
        // file: that made large files quadratic).
        let row = outer.start_position().row as u32 + 1;
        let between = &self.src[start as usize..outer.start_byte().max(start as usize)];
        let line_start = row - between.iter().filter(|&&c| c == b'\n').count() as u32;
        let idx = self.facts.defs.len() as DefIdx;
        self.facts.defs.push(Def {
            kind,
            name,
            parent,
            direct: true,
            line_start,
            line_head: head.start_position().row as u32 + 1,
            line_end: outer.end_position().row as u32 + 1,
            byte_start: start,
            byte_head: head.start_byte() as u32,
            byte_sig_end: tree::sig_end(head, body, self.src),
            byte_end: outer.end_byte() as u32,
            doc,
            owner: owner_ty,
            ..Def::default()
        });
        idx
    }

    fn visit(&mut self, n: Node, owner: Option<DefIdx>, depth: u32, top: bool) {
        match n.kind() {
            "export_statement" => self.export(n, owner, depth, top),
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                let Some(name) = n.field("name") else {
                    return self.children(n, owner, depth, false);
                };
                let outer = outer_of(n);
                self.function(n, self.text(name), None, owner, outer, false);
            }
            "class_declaration" | "abstract_class_declaration" | "class" => match n.field("name") {
                Some(name) => {
                    let outer = outer_of(n);
                    self.class(n, self.text(name), owner, outer, depth);
                }
                None => self.children(n, owner, depth, false),
            },
            "interface_declaration" | "enum_declaration" => {
                let Some(name) = n.field("name") else { return };
                let outer = outer_of(n);
                self.class(n, self.text(name), owner, outer, depth);
            }
            "internal_module" | "module" => {
                let Some(name) = n.field("name") else { return };
                let outer = outer_of(n);
                let body = n.field("body");
                let name = self.text(name).trim_matches(['"', '\'']).to_string();
                let i = self.def(DefKind::Class, name, None, owner, outer, n, body);
                self.facts.defs[i as usize].namespace = true;
                if let Some(b) = body {
                    self.children(b, Some(i), depth, false);
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                let mut c = n.walk();
                let decls: Vec<Node> = n.named_children(&mut c).collect();
                let single = decls.len() == 1;
                for d in decls {
                    if d.kind() == "variable_declarator" {
                        let outer = if single { outer_of(n) } else { d };
                        self.declarator(d, owner, outer, depth, top);
                    }
                }
            }
            "expression_statement" => {
                let e = n.named_child(0);
                match e {
                    Some(a) if a.kind() == "assignment_expression" && top => {
                        self.assignment(a, n, owner, depth)
                    }
                    Some(a) if a.kind() == "assignment_expression" => {
                        self.this_assign(a, owner);
                        self.children(n, owner, depth, false)
                    }
                    Some(f) if top && is_function(f) && f.field("name").is_some() => {
                        // A named function expression at the top level that nothing else names.
                        let name = self.text(f.field("name").unwrap_or(f));
                        self.function(f, name, None, owner, n, false);
                    }
                    _ => self.children(n, owner, depth, false),
                }
            }
            "import_statement" => self.import(n, owner),
            "call_expression" => {
                self.call(n, owner);
                self.children(n, owner, depth, false);
            }
            "new_expression" => {
                if let Some(c) = n.field("constructor")
                    && let Some(chain) = self.chain(c)
                {
                    let callee = if chain.contains('.') {
                        Callee::Chain(chain)
                    } else {
                        Callee::Name(chain)
                    };
                    self.push_call(owner, callee, n);
                }
                self.children(n, owner, depth, false);
            }
            // A function that is no definition (a callback, a method of an anonymous object)
            // is called with a `this` of its own, unknown; an arrow keeps the enclosing one.
            "function_expression" | "function" | "generator_function" | "method_definition" => {
                let outer_this = std::mem::replace(&mut self.this_known, false);
                self.children(n, owner, depth, false);
                self.this_known = outer_this;
            }
            "comment" | "string" | "regex" | "number" => {}
            _ => self.children(n, owner, depth, false),
        }
    }

    fn export(&mut self, n: Node, owner: Option<DefIdx>, depth: u32, top: bool) {
        if let Some(source) = n.field("source") {
            // `export ... from './x'`: a re-export.
            let module = unquote(&self.text(source));
            let line = n.start_position().row as u32 + 1;
            let mut c = n.walk();
            let mut any = false;
            for k in n.named_children(&mut c) {
                match k.kind() {
                    "export_clause" => {
                        let mut c2 = k.walk();
                        for s in k.named_children(&mut c2) {
                            if s.kind() != "export_specifier" {
                                continue;
                            }
                            let name = s.field("name").map(|x| self.text(x));
                            let alias = s.field("alias").map(|x| self.text(x));
                            self.push_import(
                                owner,
                                &module,
                                name,
                                alias,
                                ImportForm::ReExport,
                                line,
                            );
                            any = true;
                        }
                    }
                    "namespace_export" => {
                        let alias = k.named_child(0).map(|x| self.text(x));
                        self.push_import(owner, &module, None, alias, ImportForm::ReExport, line);
                        any = true;
                    }
                    _ => {}
                }
            }
            if !any {
                self.push_import(
                    owner,
                    &module,
                    Some("*".into()),
                    None,
                    ImportForm::ReExport,
                    line,
                );
            }
            return;
        }
        let is_default = tree::has_child_kind(n, "default");
        if let Some(decl) = n.field("declaration") {
            let before = self.facts.defs.len();
            self.visit(decl, owner, depth, top);
            if is_default && let Some(d) = self.facts.defs.get(before) {
                let name = d.name.clone();
                self.bind(owner, "default", BindValue::Alias(name));
            }
            return;
        }
        if let Some(v) = n.field("value") {
            // `export default foo` / `export default function () {}`.
            if is_default && let Some(chain) = self.chain(v) {
                self.bind(owner, "default", BindValue::Alias(chain));
            } else if is_function(v)
                && let Some(name) = v.field("name")
            {
                let name = self.text(name);
                self.function(v, name.clone(), None, owner, n, false);
                self.bind(owner, "default", BindValue::Alias(name));
            } else {
                self.visit(v, owner, depth, top);
            }
            return;
        }
        self.children(n, owner, depth, top);
    }

    /// `const NAME = <function | arrow | class | object literal | require(...) | new X()>`.
    fn declarator(&mut self, d: Node, owner: Option<DefIdx>, outer: Node, depth: u32, top: bool) {
        let Some(name_node) = d.field("name") else { return };
        let value = d.field("value");
        if name_node.kind() == "object_pattern" {
            // `const { a, b: c } = require('./x')`.
            if let Some(v) = value
                && let Some(module) = require_arg(v, self.src)
            {
                let line = d.start_position().row as u32 + 1;
                let mut c = name_node.walk();
                for p in name_node.named_children(&mut c) {
                    let (name, alias) = match p.kind() {
                        "shorthand_property_identifier_pattern" => (self.text(p), None),
                        "pair_pattern" => (
                            p.field("key").map(|k| self.text(k)).unwrap_or_default(),
                            p.field("value").map(|v| self.text(v)),
                        ),
                        _ => continue,
                    };
                    self.push_import(owner, &module, Some(name), alias, ImportForm::Plain, line);
                }
                return;
            }
            if let Some(v) = value {
                self.visit(v, owner, depth, false);
            }
            return;
        }
        if name_node.kind() != "identifier" {
            if let Some(v) = value {
                self.visit(v, owner, depth, false);
            }
            return;
        }
        let name = self.text(name_node);
        if let Some(ty) = d.field("type").and_then(|t| self.type_name(t)) {
            self.bind(owner, &name, BindValue::Annotated(ty));
        }
        let Some(v) = value else { return };
        let v = unwrap_expr(v);
        if v.kind() == "assignment_expression" {
            // `var proto = module.exports = function`: the declared name is one more target,
            // the outermost (the only one inside a function).
            let mut targets = vec![Some(name)];
            let right = self.chained(v, &mut targets, top);
            return self.assign(&targets, right, outer, v, owner, depth);
        }
        if is_function(v) {
            self.function(v, name, None, owner, outer, false);
        } else if v.kind() == "class" {
            self.class(v, name, owner, outer, depth);
        } else if v.kind() == "object" {
            self.object(v, &name, owner, depth);
        } else if let Some((module, imported)) = required(v, self.src) {
            // `var x = require('./x')`, or `.y` of it: an import.
            let line = d.start_position().row as u32 + 1;
            self.push_import(owner, &module, imported, Some(name), ImportForm::Plain, line);
        } else {
            match v.kind() {
                "new_expression" => {
                    if let Some(c) = v.field("constructor").and_then(|c| self.chain(c)) {
                        self.bind(owner, &name, BindValue::CallOf(c));
                    }
                }
                "call_expression" => {
                    if let Some(c) = v.field("function").and_then(|c| self.chain(c)) {
                        self.bind(owner, &name, BindValue::CallOf(c));
                    }
                }
                // `var self = this` too.
                "identifier" | "member_expression" | "this" => {
                    if let Some(c) = self.chain(v) {
                        self.bind(owner, &name, BindValue::Alias(c));
                    }
                }
                _ => {}
            }
            self.visit(v, owner, depth, false);
        }
    }

    /// The function-valued properties of an object literal bound to `name`: definitions
    /// named `name.prop` (one element of the qualified name, like `a.b =` assignments).
    fn object(&mut self, obj: Node, name: &str, owner: Option<DefIdx>, depth: u32) {
        let mut c = obj.walk();
        let props: Vec<Node> = obj.named_children(&mut c).collect();
        for p in props {
            match p.kind() {
                // The object's methods have it as `this`.
                "method_definition" => {
                    if let Some(k) = p.field("name") {
                        let key = unquote(&self.text(k));
                        self.function(p, format!("{name}.{key}"), None, owner, p, true);
                    }
                }
                "pair" => {
                    let (Some(k), Some(v)) = (p.field("key"), p.field("value")) else {
                        continue;
                    };
                    let v = unwrap_expr(v);
                    if is_function(v) {
                        let key = unquote(&self.text(k));
                        let method = v.kind() != "arrow_function";
                        self.function(v, format!("{name}.{key}"), None, owner, p, method);
                    } else {
                        self.visit(v, owner, depth, false);
                    }
                }
                _ => self.visit(p, owner, depth, false),
            }
        }
    }

    /// A top-level assignment: `exports.f = function`, `Foo.prototype.m = function`,
    /// `a.b = () => {}`, `module.exports = function f`, or a chain of them.
    fn assignment(&mut self, a: Node, stmt: Node, owner: Option<DefIdx>, depth: u32) {
        let mut targets = Vec::new();
        let right = self.chained(a, &mut targets, true);
        self.assign(&targets, right, stmt, a, owner, depth);
    }

    /// The targets of an assignment and of those it assigns (`a.x = b.y = v`: `a.x`, `b.y`),
    /// outermost first, pushed onto `targets` (None: not a chain, or `top` is false and only
    /// a declared name counts), and the value they are all given.
    fn chained<'t>(
        &self,
        mut a: Node<'t>,
        targets: &mut Vec<Option<String>>,
        top: bool,
    ) -> Node<'t> {
        loop {
            let target = a.field("left").and_then(|l| self.chain(l));
            targets.push(target.filter(|_| top));
            let Some(right) = a.field("right").map(unwrap_expr) else { return a };
            if right.kind() != "assignment_expression" {
                return right;
            }
            a = right;
        }
    }

    /// `right` assigned to `targets` (outermost first) at `outer`, which a definition spans;
    /// the assignment `rest` is walked for calls when nothing is defined. As `a.x = b.y = v`
    /// is `b.y = v; a.x = b.y`, the innermost target that names a function or class defines
    /// it (DESIGN §8), and the other targets are bound to it, as to any other chain.
    fn assign(
        &mut self,
        targets: &[Option<String>],
        right: Node,
        outer: Node,
        rest: Node,
        owner: Option<DefIdx>,
        depth: u32,
    ) {
        // The target that defines the value (skipped below), and whether one did.
        let mut definer = None;
        let mut made = true;
        let value = if is_function(right) || right.kind() == "class" {
            let own = right.field("name").map(|n| self.text(n));
            let named = targets
                .iter()
                .enumerate()
                .rev()
                .find_map(|(i, t)| Some((i, target_def(t.as_deref()?, own.as_deref())?)));
            let (owner_ty, name) = match named {
                Some((i, d)) => {
                    definer = Some(i);
                    d
                }
                // `exports = function f`: named by nothing but itself.
                None => match own {
                    Some(n) => (None, n),
                    None => return self.children(right, owner, depth, false),
                },
            };
            let chain = owner_ty.as_ref().map_or(name.clone(), |o| format!("{o}.{name}"));
            if right.kind() == "class" {
                self.class(right, name, owner, outer, depth);
            } else {
                // Called on the object it is assigned to (`obj.run`, `X.prototype.m`): that is
                // its `this`, unless it is an arrow (whose `this` is the enclosing one).
                let method =
                    right.kind() != "arrow_function" && (owner_ty.is_some() || name.contains('.'));
                self.function(right, name, owner_ty, owner, outer, method);
            }
            Some(chain)
        } else if right.kind() == "object" {
            // `var app = exports = module.exports = {}`: the object is the innermost plain
            // name's, its methods `app.m`.
            let named = targets.iter().enumerate().rev().find_map(|(i, t)| {
                let t = t.as_deref().filter(|t| !t.contains('.'))?;
                Some((i, target_key(t)?))
            });
            let Some((i, name)) = named else { return self.visit(rest, owner, depth, false) };
            definer = Some(i);
            self.object(right, &name, owner, depth);
            Some(name)
        } else {
            made = false;
            self.chain(right)
        };
        for (i, t) in targets.iter().enumerate() {
            let Some(t) = t.as_deref() else { continue };
            if t == MODULE_EXPORTS
                && let Some(v) = &value
            {
                // The module's value: what `require` of it binds, and a default import.
                self.bind(owner, "default", BindValue::Alias(v.clone()));
                self.bind(owner, MODULE_EXPORTS, BindValue::Alias(v.clone()));
                continue;
            }
            if definer == Some(i) {
                continue;
            }
            // `exports.Map = map` exports `map`, but binds no name `Map` in the file (where
            // `Map` is still the global one): only definitions are named so.
            let exported = t.starts_with("exports.") || t.starts_with("module.exports.");
            if let Some(v) = &value {
                if let Some(key) = target_key(t).filter(|k| k != v && !exported) {
                    self.bind(owner, &key, BindValue::Alias(v.clone()));
                }
            } else if let Some((module, name)) = required(right, self.src)
                && let Some(key) = target_key(t)
            {
                // `x = require('./x')`, `module.exports = require('./x').y`: an import.
                let line = right.start_position().row as u32 + 1;
                let (name, key) = if exported { (None, None) } else { (name, Some(key)) };
                self.push_import(owner, &module, name, key, ImportForm::Plain, line);
            } else if !t.contains('.')
                && let Some(c) = match right.kind() {
                    "new_expression" => right.field("constructor"),
                    "call_expression" => right.field("function"),
                    _ => None,
                }
                .and_then(|c| self.chain(c))
            {
                self.bind(owner, t, BindValue::CallOf(c));
            }
        }
        if !made {
            self.visit(rest, owner, depth, false);
        }
    }

    /// `this.x = new Foo()` inside a method: a typed attribute.
    fn this_assign(&mut self, a: Node, owner: Option<DefIdx>) {
        let (Some(left), Some(right)) = (a.field("left"), a.field("right")) else {
            return;
        };
        let Some(t) = self.chain(left) else { return };
        if !t.starts_with("this.") || t.matches('.').count() != 1 {
            return;
        }
        let right = unwrap_expr(right);
        let value = match right.kind() {
            "new_expression" => right.field("constructor").and_then(|c| self.chain(c)),
            "call_expression" => right.field("function").and_then(|c| self.chain(c)),
            _ => None,
        };
        if let Some(v) = value {
            self.bind(owner, &t, BindValue::CallOf(v));
        }
    }

    fn function(
        &mut self,
        f: Node,
        name: String,
        owner_ty: Option<String>,
        parent: Option<DefIdx>,
        outer: Node,
        method: bool,
    ) -> DefIdx {
        let body = f.field("body");
        // A function expression takes its head from what names it (`const f = () =>`,
        // `exports.f = function`, `f: () =>`), so the fold line reads as the definition.
        let head = if outer.id() != f.id() && is_function(f) { outer } else { f };
        let head = match head.kind() {
            "export_statement" => head.field("declaration").unwrap_or(f),
            _ => head,
        };
        let i = self.def(DefKind::Function, name, owner_ty, parent, outer, head, body);
        let is_static = tree::has_child_kind(f, "static");
        if method && !is_static {
            self.facts.defs[i as usize].first_param = Some("this".into());
        }
        self.facts.defs[i as usize].is_async = tree::has_child_kind(f, "async");
        if let Some(rt) = f.field("return_type").and_then(|t| self.type_name(t)) {
            self.facts.defs[i as usize].returns = Some(rt);
        }
        if let Some(params) = f.field("parameters") {
            self.params(i, params);
        }
        // A method's `this` is its receiver, a plain function's its own; an arrow's is the
        // enclosing one.
        let outer_this = self.this_known;
        if f.kind() != "arrow_function" {
            self.this_known = method;
        }
        if let Some(b) = body {
            if b.kind() == "statement_block" {
                self.children(b, Some(i), 0, false);
            } else {
                // An arrow's expression body.
                self.visit(b, Some(i), 0, false);
            }
        }
        self.this_known = outer_this;
        i
    }

    fn params(&mut self, def: DefIdx, params: Node) {
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            if !matches!(p.kind(), "required_parameter" | "optional_parameter") {
                continue;
            }
            let name = p.field("pattern").or_else(|| p.field("name"));
            let (Some(name), Some(ty)) = (name, p.field("type")) else { continue };
            if name.kind() != "identifier" {
                continue;
            }
            if let Some(t) = self.type_name(ty) {
                let n = self.text(name);
                self.bind(Some(def), &n, BindValue::Annotated(t.clone()));
                // `constructor(private db: Db)`: a parameter property is a field too.
                if tree::has_child_kind(p, "accessibility_modifier") {
                    self.bind(Some(def), &format!("this.{n}"), BindValue::Annotated(t));
                }
            }
        }
    }

    fn class(&mut self, n: Node, name: String, parent: Option<DefIdx>, outer: Node, depth: u32) {
        let body = n.field("body");
        let i = self.def(DefKind::Class, name, None, parent, outer, n, body);
        let mut bases = Vec::new();
        let mut c = n.walk();
        for k in n.named_children(&mut c) {
            match k.kind() {
                "class_heritage" => {
                    let mut c2 = k.walk();
                    let hs: Vec<Node> = k.named_children(&mut c2).collect();
                    for h in hs {
                        match h.kind() {
                            "extends_clause" | "implements_clause" => self.heritage(h, &mut bases),
                            // JavaScript writes `extends <expression>` without a clause node.
                            _ => bases.extend(self.chain(h).map(Expr::Dotted)),
                        }
                    }
                }
                "extends_clause" | "implements_clause" | "extends_type_clause" => {
                    self.heritage(k, &mut bases)
                }
                _ => {}
            }
        }
        self.facts.defs[i as usize].bases = bases;
        let Some(body) = body else { return };
        let mut c = body.walk();
        let members: Vec<Node> = body.named_children(&mut c).collect();
        // Field initializers see the instance as `this`.
        let outer_this = std::mem::replace(&mut self.this_known, true);
        for m in members {
            match m.kind() {
                "method_definition" | "method_signature" | "abstract_method_signature" => {
                    if let Some(k) = m.field("name") {
                        let key = unquote(&self.text(k));
                        self.function(m, key, None, Some(i), m, true);
                    }
                }
                "public_field_definition" | "field_definition" => {
                    let key = m
                        .field("name")
                        .or_else(|| m.field("property"))
                        .map(|k| unquote(&self.text(k)));
                    let Some(key) = key else { continue };
                    if let Some(ty) = m.field("type").and_then(|t| self.type_name(t)) {
                        self.bind(Some(i), &key, BindValue::Annotated(ty));
                    }
                    match m.field("value").map(unwrap_expr) {
                        Some(v) if is_function(v) => {
                            self.function(v, key, None, Some(i), m, true);
                        }
                        Some(v) => {
                            if v.kind() == "new_expression"
                                && let Some(c) = v.field("constructor").and_then(|c| self.chain(c))
                            {
                                self.bind(Some(i), &key, BindValue::CallOf(c));
                            }
                            self.visit(v, Some(i), depth, false);
                        }
                        None => {}
                    }
                }
                _ => self.visit(m, Some(i), depth, false),
            }
        }
        self.this_known = outer_this;
    }

    fn heritage(&mut self, h: Node, bases: &mut Vec<Expr>) {
        let mut c = h.walk();
        for t in h.named_children(&mut c) {
            if let Some(chain) = self.type_name(t).or_else(|| self.chain(t)) {
                bases.push(Expr::Dotted(chain));
            }
        }
    }

    fn import(&mut self, n: Node, owner: Option<DefIdx>) {
        let line = n.start_position().row as u32 + 1;
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        let source = n.field("source").map(|s| unquote(&self.text(s)));
        let mut bound = false;
        for k in kids {
            match k.kind() {
                "import_clause" => {
                    let Some(module) = source.clone() else { continue };
                    let mut c2 = k.walk();
                    for part in k.named_children(&mut c2) {
                        match part.kind() {
                            "identifier" => {
                                let alias = self.text(part);
                                self.push_import(
                                    owner,
                                    &module,
                                    Some("default".into()),
                                    Some(alias),
                                    ImportForm::Plain,
                                    line,
                                );
                            }
                            "namespace_import" => {
                                let alias = part.named_child(0).map(|x| self.text(x));
                                self.push_import(
                                    owner,
                                    &module,
                                    None,
                                    alias,
                                    ImportForm::Plain,
                                    line,
                                );
                            }
                            "named_imports" => {
                                let mut c3 = part.walk();
                                for s in part.named_children(&mut c3) {
                                    if s.kind() != "import_specifier" {
                                        continue;
                                    }
                                    let name = s.field("name").map(|x| unquote(&self.text(x)));
                                    let alias = s.field("alias").map(|x| self.text(x));
                                    self.push_import(
                                        owner,
                                        &module,
                                        name,
                                        alias,
                                        ImportForm::Plain,
                                        line,
                                    );
                                }
                            }
                            _ => {}
                        }
                    }
                    bound = true;
                }
                "import_require_clause" => {
                    // TS `import x = require('./x')`.
                    let alias = k.named_child(0).map(|x| self.text(x));
                    if let Some(s) = k.field("source") {
                        let module = unquote(&self.text(s));
                        self.push_import(owner, &module, None, alias, ImportForm::Plain, line);
                    }
                    bound = true;
                }
                _ => {}
            }
        }
        if !bound && let Some(module) = source {
            self.push_import(owner, &module, None, None, ImportForm::Plain, line);
        }
    }

    fn push_import(
        &mut self,
        owner: Option<DefIdx>,
        module: &str,
        name: Option<String>,
        alias: Option<String>,
        form: ImportForm,
        line: u32,
    ) {
        let stmt = self.facts.imports.len() as u32;
        self.facts.imports.push(Import {
            owner,
            direct: true,
            module: module.to_string(),
            name,
            alias,
            line,
            stmt,
            form,
            depth: 1,
            ..Import::default()
        });
    }

    fn call(&mut self, n: Node, owner: Option<DefIdx>) {
        let Some(f) = n.field("function") else { return };
        let f = unwrap_expr(f);
        if f.kind() == "import" || require_arg(n, self.src).is_some() {
            return; // dynamic import / require: module loading, not a call of ours
        }
        let callee = match f.kind() {
            "identifier" => Callee::Name(self.text(f)),
            "member_expression" => match self.chain(f) {
                Some(c) => Callee::Chain(c),
                None => {
                    let prop = f.field("property").map(|p| self.text(p)).unwrap_or_default();
                    let obj = f.field("object").map(unwrap_expr);
                    match obj {
                        Some(o) if o.kind() == "call_expression" => {
                            match o.field("function").and_then(|g| self.chain(unwrap_expr(g))) {
                                Some(g) => Callee::OnCall(g, prop),
                                None => Callee::Attr(prop),
                            }
                        }
                        Some(o) if o.kind() == "new_expression" => {
                            match o.field("constructor").and_then(|g| self.chain(g)) {
                                Some(g) => Callee::OnCall(g, prop),
                                None => Callee::Attr(prop),
                            }
                        }
                        _ => Callee::Attr(prop),
                    }
                }
            },
            _ => Callee::Other,
        };
        self.push_call(owner, callee, n);
    }

    fn push_call(&mut self, owner: Option<DefIdx>, callee: Callee, n: Node) {
        if callee == Callee::Other {
            return;
        }
        self.facts.calls.push(Call {
            owner,
            deco_of: None,
            callee,
            line: n.start_position().row as u32 + 1,
        });
    }

    fn bind(&mut self, owner: Option<DefIdx>, target: &str, value: BindValue) {
        self.facts.binds.push(Bind { owner, target: target.to_string(), value });
    }

    /// A dotted chain of identifiers (`this` and `super` included): `a.b.c`.
    fn chain(&self, n: Node) -> Option<String> {
        let n = unwrap_expr(n);
        match n.kind() {
            "this" if !self.this_known => None,
            "identifier" | "this" | "super" | "property_identifier" | "type_identifier" => {
                Some(self.text(n))
            }
            "member_expression" | "nested_identifier" | "nested_type_identifier" => {
                let obj =
                    n.field("object").or_else(|| n.field("module")).or_else(|| n.named_child(0))?;
                let prop = n
                    .field("property")
                    .or_else(|| n.field("name"))
                    .or_else(|| n.named_child(n.named_child_count().saturating_sub(1) as u32))?;
                let head = self.chain(obj)?;
                Some(format!("{head}.{}", self.text(prop)))
            }
            _ => None,
        }
    }

    /// The class a type annotation names: `Foo`, `ns.Foo`, `Foo<T>`, `Foo[]` -> `Foo`.
    fn type_name(&self, t: Node) -> Option<String> {
        match t.kind() {
            "type_annotation" | "parenthesized_type" => self.type_name(t.named_child(0)?),
            "generic_type" => self.type_name(t.field("name").or_else(|| t.named_child(0))?),
            "array_type" => self.type_name(t.named_child(0)?),
            "type_identifier" | "identifier" => Some(self.text(t)),
            "nested_type_identifier" | "member_expression" | "nested_identifier" => self.chain(t),
            _ => None,
        }
    }
}

/// The node whose span a definition takes: the `export` statement around it, if any.
fn outer_of(n: Node) -> Node {
    match n.parent() {
        Some(p) if p.kind() == "export_statement" => p,
        Some(p) if p.kind() == "ambient_declaration" => p,
        Some(p) if p.kind() == "expression_statement" && n.kind() == "internal_module" => p,
        _ => n,
    }
}

/// What an assignment's target names a function or class assigned to it (DESIGN §8), as
/// (its type, its name): `exports.f` is `f`, `Foo.prototype.m` is `m` of `Foo`, `a.b` is
/// `a.b`, `x` is `x`; `module.exports` names it by its own name `own`, `exports` not at all.
fn target_def(t: &str, own: Option<&str>) -> Option<(Option<String>, String)> {
    let parts: Vec<&str> = t.split('.').collect();
    match parts.as_slice() {
        ["module", "exports"] => own.map(|n| (None, n.to_string())),
        ["exports"] => None,
        ["exports", f] | ["module", "exports", f] => Some((None, f.to_string())),
        // A method of the constructor `Foo`: a member of its type.
        [ty, "prototype", m] => Some((Some(ty.to_string()), m.to_string())),
        // `options.vnode = ...`: one definition whose name is the whole target
        // (DESIGN §8: its module-level entity is itself, not `options`).
        _ => Some((None, t.to_string())),
    }
}

/// The name a value bound to target `t` is looked up by, as [`target_def`] names
/// definitions: `exports.f` is `f`, `Foo.prototype.m` is `Foo.m`; `exports` itself is none.
fn target_key(t: &str) -> Option<String> {
    match target_def(t, None) {
        Some((Some(ty), m)) => Some(format!("{ty}.{m}")),
        Some((None, n)) => Some(n),
        None if t == MODULE_EXPORTS => Some(t.to_string()),
        None => None,
    }
}

fn is_function(n: Node) -> bool {
    matches!(n.kind(), "function_expression" | "function" | "arrow_function" | "generator_function")
}

/// Looks through parentheses, `as` casts and non-null assertions.
fn unwrap_expr(mut n: Node) -> Node {
    loop {
        match n.kind() {
            "parenthesized_expression"
            | "as_expression"
            | "non_null_expression"
            | "satisfies_expression" => match n.named_child(0) {
                Some(c) => n = c,
                None => return n,
            },
            _ => return n,
        }
    }
}

/// What `require('x')` (module `x`) or `require('x').y` (its name `y`) imports.
fn required(n: Node, src: &[u8]) -> Option<(String, Option<String>)> {
    let n = unwrap_expr(n);
    if n.kind() == "member_expression"
        && let (Some(o), Some(p)) = (n.field("object"), n.field("property"))
        && p.kind() == "property_identifier"
    {
        return Some((require_arg(o, src)?, Some(tree::text(p, src))));
    }
    Some((require_arg(n, src)?, None))
}

/// The module of `require('x')`.
fn require_arg(n: Node, src: &[u8]) -> Option<String> {
    let n = unwrap_expr(n);
    if n.kind() != "call_expression" {
        return None;
    }
    let f = n.field("function")?;
    if f.kind() != "identifier" || &src[f.start_byte()..f.end_byte()] != b"require" {
        return None;
    }
    let arg = n.field("arguments")?.named_child(0)?;
    if arg.kind() != "string" {
        return None;
    }
    Some(unquote(&tree::text(arg, src)))
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string()
}

// ---- resolution

/// Extensions tried for a specifier without one, in TypeScript's order, then JavaScript's.
const EXTENSIONS: &[&str] =
    &[".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

/// A `tsconfig.json` / `jsconfig.json`: where non-relative specifiers are looked up.
#[derive(Debug, Default)]
struct PathConfig {
    /// The directory of the config file (relative, `/`-separated).
    dir: Vec<u8>,
    /// `baseUrl`, resolved against `dir`.
    base: Option<Vec<u8>>,
    /// `paths`: (pattern, replacements), patterns with at most one `*`.
    paths: Vec<(String, Vec<String>)>,
}

/// The module rules of JavaScript and TypeScript.
pub struct Resolver {
    configs: Vec<PathConfig>,
    /// package.json `name` -> (its directory, its entry file if given).
    packages: HashMap<String, (Vec<u8>, Option<String>)>,
}

impl Resolver {
    /// Reads `tsconfig.json`, `jsconfig.json` and `package.json` files.
    pub fn new(repo: &Repo) -> Resolver {
        let mut configs = Vec::new();
        for name in ["tsconfig.json", "jsconfig.json"] {
            for p in repo.projects_named(name) {
                let Some(v) = parse_jsonc(&p.text) else { continue };
                let dir = parent_dir(&p.rel).to_vec();
                let opts = v.get("compilerOptions");
                let base = opts
                    .and_then(|o| o.get("baseUrl"))
                    .and_then(|b| b.as_str())
                    .map(|b| join(&dir, b.as_bytes()));
                let paths = opts
                    .and_then(|o| o.get("paths"))
                    .and_then(|p| p.as_object())
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                let to = v
                                    .as_array()
                                    .map(|a| {
                                        a.iter()
                                            .filter_map(|x| x.as_str().map(String::from))
                                            .collect()
                                    })
                                    .unwrap_or_default();
                                (k.clone(), to)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                configs.push(PathConfig { dir, base, paths });
            }
        }
        // Deepest first: the nearest config applies.
        configs.sort_by_key(|c| std::cmp::Reverse(c.dir.len()));
        let mut packages = HashMap::new();
        for p in repo.projects_named("package.json") {
            let Some(v) = parse_jsonc(&p.text) else { continue };
            let Some(name) = v.get("name").and_then(|n| n.as_str()) else { continue };
            let entry = ["source", "module", "main", "types"]
                .iter()
                .find_map(|k| v.get(*k).and_then(|e| e.as_str()).map(String::from));
            packages.entry(name.to_string()).or_insert((parent_dir(&p.rel).to_vec(), entry));
        }
        Resolver { configs, packages }
    }

    /// A path (relative to the repository root) as a module: the file itself, with one of the
    /// extensions, a `.js` written for a `.ts` source, or a directory's `index`.
    fn file_or_index(&self, repo: &Repo, path: &[u8]) -> Option<u32> {
        let is_ours = |f: u32| repo.files[f as usize].lang.family() == Family::Js;
        if let Some(f) = repo.file(path).filter(|&f| is_ours(f)) {
            return Some(f);
        }
        for ext in EXTENSIONS {
            let mut p = path.to_vec();
            p.extend_from_slice(ext.as_bytes());
            if let Some(f) = repo.file(&p).filter(|&f| is_ours(f)) {
                return Some(f);
            }
        }
        // TypeScript's ESM convention: `./x.js` names the source `./x.ts`.
        for (js, tss) in [(".js", &[".ts", ".tsx"][..]), (".mjs", &[".mts"]), (".cjs", &[".cts"])] {
            if let Some(stem) = path.strip_suffix(js.as_bytes()) {
                for ts in tss {
                    let mut p = stem.to_vec();
                    p.extend_from_slice(ts.as_bytes());
                    if let Some(f) = repo.file(&p) {
                        return Some(f);
                    }
                }
            }
        }
        for ext in EXTENSIONS {
            let mut p = path.to_vec();
            if !p.is_empty() {
                p.push(b'/');
            }
            p.extend_from_slice(b"index");
            p.extend_from_slice(ext.as_bytes());
            if let Some(f) = repo.file(&p).filter(|&f| is_ours(f)) {
                return Some(f);
            }
        }
        None
    }

    fn via_config(&self, repo: &Repo, from: &[u8], spec: &str) -> Option<u32> {
        for c in &self.configs {
            if !(c.dir.is_empty()
                || from.starts_with(&c.dir) && from.get(c.dir.len()) == Some(&b'/'))
            {
                continue;
            }
            let base = c.base.clone().unwrap_or_else(|| c.dir.clone());
            for (pat, repls) in &c.paths {
                let star = match pat.split_once('*') {
                    Some((pre, post)) => {
                        if spec.starts_with(pre)
                            && spec.ends_with(post)
                            && spec.len() >= pre.len() + post.len()
                        {
                            Some(&spec[pre.len()..spec.len() - post.len()])
                        } else {
                            continue;
                        }
                    }
                    None if pat == spec => None,
                    None => continue,
                };
                for r in repls {
                    let target = match star {
                        Some(s) => r.replacen('*', s, 1),
                        None => r.clone(),
                    };
                    if let Some(f) = self.file_or_index(repo, &join(&base, target.as_bytes())) {
                        return Some(f);
                    }
                }
            }
            if let Some(b) = &c.base
                && let Some(f) = self.file_or_index(repo, &join(b, spec.as_bytes()))
            {
                return Some(f);
            }
        }
        None
    }

    fn via_workspace(&self, repo: &Repo, spec: &str) -> Option<u32> {
        // `@scope/name/sub` or `name/sub`.
        let mut parts = spec.splitn(3, '/');
        let first = parts.next()?;
        let (name, rest) = if first.starts_with('@') {
            let second = parts.next()?;
            (format!("{first}/{second}"), parts.next())
        } else {
            let rest = spec.split_once('/').map(|(_, r)| r);
            (first.to_string(), rest)
        };
        let (dir, entry) = self.packages.get(&name)?;
        match rest {
            Some(sub) => self
                .file_or_index(repo, &join(dir, sub.as_bytes()))
                .or_else(|| self.file_or_index(repo, &join(dir, format!("src/{sub}").as_bytes()))),
            None => entry
                .as_deref()
                .and_then(|e| self.file_or_index(repo, &join(dir, e.as_bytes())))
                .or_else(|| self.file_or_index(repo, &join(dir, b"src/index")))
                .or_else(|| self.file_or_index(repo, dir)),
        }
    }
}

impl scope::Resolver for Resolver {
    fn import_files(&self, repo: &Repo, file: u32, imp: &Import) -> Vec<u32> {
        let from = repo.rel(file);
        let spec = imp.module.as_str();
        let found =
            if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
                self.file_or_index(repo, &join(parent_dir(from), spec.as_bytes()))
            } else if spec.starts_with('/') {
                None
            } else {
                self.via_config(repo, from, spec).or_else(|| self.via_workspace(repo, spec))
            };
        found.into_iter().filter(|&f| f != file || base_name(from).is_empty()).collect()
    }

    fn module_value(&self) -> Option<&'static str> {
        Some(MODULE_EXPORTS)
    }

    fn bound_name<'s>(&'s self, imp: &'s Import) -> Option<&'s str> {
        // `import './x'` binds nothing; `import x from` binds `x` (its alias).
        imp.alias.as_deref().or(imp.name.as_deref())
    }
}

/// `dir` joined with a relative path, `.` and `..` folded (never above the root).
fn join(dir: &[u8], rel: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = dir.split(|&c| c == b'/').filter(|c| !c.is_empty()).collect();
    for c in rel.split(|&c| c == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join(&b'/')
}

/// JSON with comments and trailing commas, as tsconfig files are written.
fn parse_jsonc(text: &str) -> Option<serde_json::Value> {
    // The crate's defaults are as lenient as TypeScript's own reader (comments, trailing
    // commas, loose names), which is what matters for a file cds only reads.
    let options = jsonc_parser::ParseOptions::default();
    jsonc_parser::parse_to_serde_value(text, &options).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_tsconfig_comments() {
        assert_eq!(join(b"src/a", b"../b/c"), b"src/b/c");
        assert_eq!(join(b"", b"./x"), b"x");
        let v = parse_jsonc("{\n // c\n \"compilerOptions\": { \"baseUrl\": \".\", /* x */ \"paths\": {\"@/*\": [\"src/*\",],}, },\n}").unwrap();
        assert_eq!(v["compilerOptions"]["baseUrl"], ".");
        assert_eq!(v["compilerOptions"]["paths"]["@/*"][0], "src/*");
        let v = parse_jsonc("{\"name\": \"caf\u{e9} // not a comment, \", /* c */ \"x\": [1,],}")
            .unwrap();
        assert_eq!(v["name"], "caf\u{e9} // not a comment, ");
    }
}
