//! Python: the tree-sitter grammar, `queries/python/facts.scm`, and the Rust that turns the
//! query's captures into [`FileFacts`].
//!
//! The query says which nodes are interesting; one walk of the tree finds them (`captures`,
//! checked against tree-sitter's query cursor in the tests) and copies the tree into an array
//! the value-flow walk reads (`Flat`). This module nests the captures by byte range (a
//! capture belongs to the innermost definition whose node contains it) and reads the few shapes
//! the query cannot express (import lists, dotted callees, parameter annotations).

use fxhash::FxHashMap as HashMap;
use std::sync::OnceLock;

use smallvec::SmallVec;
use tree_sitter::{Node, Parser};

use crate::extract::{
    Bind, BindValue, Call, Callee, Def, DefIdx, DefKind, Expr, FileFacts, FlowStmt, Import,
    ImportForm, NO_EXPR, PyExpr, STAR_ARG, Span, tree,
};

/// The facts query, compiled into the binary.
pub const FACTS_QUERY: &str = include_str!("../../queries/python/facts.scm");

/// The grammar's field ids, looked up once: `child_by_field_name` searches the field names
/// on every call, and the value-flow walk asks for fields of most nodes.
struct Fields {
    alias: u16,
    arguments: u16,
    attribute: u16,
    body: u16,
    definition: u16,
    function: u16,
    key: u16,
    left: u16,
    module_name: u16,
    name: u16,
    object: u16,
    operator: u16,
    parameters: u16,
    return_type: u16,
    right: u16,
    subscript: u16,
    superclasses: u16,
    r#type: u16,
    value: u16,
}

fn fields() -> &'static Fields {
    static F: OnceLock<Fields> = OnceLock::new();
    F.get_or_init(|| {
        let l = language();
        // 0 (no such field: every lookup finds nothing) cannot happen with the linked grammar.
        let id = |n: &str| l.field_id_for_name(n).map_or(0, |f| f.get());
        Fields {
            alias: id("alias"),
            arguments: id("arguments"),
            attribute: id("attribute"),
            body: id("body"),
            definition: id("definition"),
            function: id("function"),
            key: id("key"),
            left: id("left"),
            module_name: id("module_name"),
            name: id("name"),
            object: id("object"),
            operator: id("operator"),
            parameters: id("parameters"),
            return_type: id("return_type"),
            right: id("right"),
            subscript: id("subscript"),
            superclasses: id("superclasses"),
            r#type: id("type"),
            value: id("value"),
        }
    })
}

/// A node's kind, as `Node::kind` gives it, from a table made once (`Node::kind` measures and
/// checks the grammar's C string on every call, and the value-flow walk asks every node).
fn kind_of<'t>(n: impl std::borrow::Borrow<Node<'t>>) -> &'static str {
    kind_name(n.borrow().kind_id())
}

/// The name of node kind `id` ([`kind_of`]).
fn kind_name(id: u16) -> &'static str {
    static KINDS: OnceLock<Vec<String>> = OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        let l = language();
        (0..l.node_kind_count())
            .map(|i| l.node_kind_for_id(i as u16).unwrap_or("").to_string())
            .collect()
    });
    kinds.get(id as usize).map_or("", |k| k.as_str())
}

/// The tree-sitter language.
pub fn language() -> tree_sitter::Language {
    tree_sitter_python::LANGUAGE.into()
}

/// The compiled facts query (compiled once per process; `Query` is `Sync`): the tests check
/// [`captures`] against it.
#[cfg(test)]
fn query() -> &'static tree_sitter::Query {
    static QUERY: OnceLock<tree_sitter::Query> = OnceLock::new();
    QUERY.get_or_init(|| {
        // The query is part of the binary and covered by a unit test, so failing here is a
        // build defect, not a user error.
        tree_sitter::Query::new(&language(), FACTS_QUERY)
            .expect("queries/python/facts.scm compiles")
    })
}

/// A capture: its node's byte range, what it is, and its node's index in the [`Flat`] tree.
type Capture<'t> = (usize, usize, Item<'t>, u32);

/// A node of a file's syntax tree, copied out by [`captures`]'s walk: the value-flow walk reads
/// kinds, fields and children from this array instead of navigating tree-sitter's tree again
/// (a second navigation cost as much as the flow's own work).
#[derive(Debug, Clone, Copy)]
struct Flat {
    kind: u16,
    /// The field the node is in (0: none).
    field: u16,
    named: bool,
    start: u32,
    end: u32,
    /// The first child and the next sibling ([`NO_NODE`]: none).
    first: u32,
    next: u32,
}

/// No [`Flat`] node.
const NO_NODE: u32 = u32::MAX;

/// What a node kind is to [`captures`]: the roots and children of the patterns of
/// `queries/python/facts.scm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Other,
    Class,
    Function,
    Decorator,
    Import,
    Call,
    Assignment,
    /// `print_statement`, `exec_statement`, `try_statement`: `@py2` as they are.
    Py2Stmt,
    Integer,
    StringStart,
    Comparison,
    Except,
    Raise,
    /// `parameters`, `lambda_parameters`.
    Params,
    Identifier,
    Attribute,
    Block,
    Type,
    ArgumentList,
    Parameters,
    ExprList,
    TuplePattern,
    /// The anonymous `<>`.
    NotEqual,
    /// The anonymous `,`.
    Comma,
}

/// [`Tag`] of a node.
fn tag_of(n: Node) -> Tag {
    kind_info(n.kind_id()).map_or(Tag::Other, |k| k.tag)
}

/// What [`captures`] needs to know of a node kind.
#[derive(Debug, Clone, Copy)]
struct KindInfo {
    tag: Tag,
    /// Nodes of the kind are named (what [`Node::is_named`] says of them).
    named: bool,
    /// Children of nodes of the kind may be in a field (false: the grammar's node types give
    /// the kind no fields, so asking for each child's field is wasted).
    fields: bool,
}

/// [`KindInfo`] of node kind `id` (a node's [`Node::kind_id`]), from a table made once; `None`
/// for a kind past the grammar's symbols (`ERROR`).
fn kind_info(id: u16) -> Option<KindInfo> {
    static KINDS: OnceLock<Vec<KindInfo>> = OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        let l = language();
        // Named node types the grammar lists without fields.
        let no_fields: std::collections::HashSet<String> = serde_json::from_str::<
            Vec<serde_json::Value>,
        >(tree_sitter_python::NODE_TYPES)
        .unwrap_or_default()
        .iter()
        .filter(|t| t["named"] == true)
        .filter(|t| t.get("fields").and_then(|f| f.as_object()).is_none_or(|f| f.is_empty()))
        .filter_map(|t| t["type"].as_str().map(str::to_string))
        .collect();
        (0..l.node_kind_count() as u16)
            .map(|i| {
                let named = l.node_kind_is_named(i);
                let name = l.node_kind_for_id(i).unwrap_or("");
                KindInfo {
                    tag: tag_for(&l, i),
                    named,
                    fields: !(named && no_fields.contains(name)),
                }
            })
            .collect()
    });
    kinds.get(id as usize).copied()
}

/// [`Tag`] of node kind `i` (for [`kind_info`]'s table).
fn tag_for(l: &tree_sitter::Language, i: u16) -> Tag {
    let name = l.node_kind_for_id(i).unwrap_or("");
    if !l.node_kind_is_named(i) {
        return match name {
            "<>" => Tag::NotEqual,
            "," => Tag::Comma,
            _ => Tag::Other,
        };
    }
    match name {
        "class_definition" => Tag::Class,
        "function_definition" => Tag::Function,
        "decorator" => Tag::Decorator,
        "import_statement" | "import_from_statement" | "future_import_statement" => Tag::Import,
        "call" => Tag::Call,
        "assignment" => Tag::Assignment,
        "print_statement" | "exec_statement" | "try_statement" => Tag::Py2Stmt,
        "integer" => Tag::Integer,
        "string_start" => Tag::StringStart,
        "comparison_operator" => Tag::Comparison,
        "except_clause" => Tag::Except,
        "raise_statement" => Tag::Raise,
        "lambda_parameters" => Tag::Params,
        "parameters" => Tag::Parameters,
        "identifier" => Tag::Identifier,
        "attribute" => Tag::Attribute,
        "block" => Tag::Block,
        "type" => Tag::Type,
        "argument_list" => Tag::ArgumentList,
        "expression_list" => Tag::ExprList,
        "tuple_pattern" => Tag::TuplePattern,
        _ => Tag::Other,
    }
}

/// The child of `n` in field `field` when it is of kind `tag` (and the field is there).
fn field_of<'t>(n: Node<'t>, field: u16, tag: Option<Tag>) -> Option<Option<Node<'t>>> {
    let c = n.child_by_field_id(field);
    match (c, tag) {
        (None, _) => None,
        (Some(c), Some(t)) if tag_of(c) != t => Some(None),
        (Some(c), Some(_)) => Some(Some(c)),
        (Some(c), None) => Some(c.is_named().then_some(c)),
    }
}

/// The captures of `queries/python/facts.scm` in document order (an enclosing node before the
/// nodes it contains), found by one walk of the tree: tree-sitter's query cursor costs about
/// three walks in bookkeeping (a fifth of a Python build). The query stays the specification;
/// the tests check this walk against the query cursor, match for match.
fn captures<'t>(
    root: Node<'t>,
    src: &[u8],
    flat: &mut Vec<Flat>,
    parents: &mut Vec<u32>,
) -> Vec<Capture<'t>> {
    let f = fields();
    let text = |n: Node| &src[n.start_byte().min(src.len())..n.end_byte().min(src.len())];
    let mut items: Vec<Capture> = Vec::new();
    flat.clear();
    parents.clear();
    // Nodes still to visit, the next one last: (node, its field, its parent's index in `flat`).
    // Node handles rather than one tree cursor: a cursor's steps cost more than `Node::child`
    // (walking Django's 3.8 million nodes alone: 0.36 s against 0.15 s; its whole extraction
    // phase 1.21 s against 1.18 s, medians of 8).
    let mut todo: Vec<(Node<'t>, u16, u32)> = vec![(root, 0, NO_NODE)];
    // The last child visited so far of each node in `flat`.
    let mut last: Vec<u32> = Vec::new();
    while let Some((n, field, p)) = todo.pop() {
        let kind = n.kind_id();
        let info = kind_info(kind).unwrap_or_else(|| KindInfo {
            tag: Tag::Other,
            named: n.is_named(),
            fields: true,
        });
        let tag = info.tag;
        let at = flat.len() as u32;
        flat.push(Flat {
            kind,
            field,
            named: info.named,
            start: n.start_byte() as u32,
            end: n.end_byte() as u32,
            first: NO_NODE,
            next: NO_NODE,
        });
        parents.push(p);
        last.push(NO_NODE);
        let parent = match p {
            NO_NODE => Tag::Other,
            p => {
                match last[p as usize] {
                    NO_NODE => flat[p as usize].first = at,
                    l => flat[l as usize].next = at,
                }
                last[p as usize] = at;
                kind_info(flat[p as usize].kind).map_or(Tag::Other, |k| k.tag)
            }
        };
        push_children(n, info.fields, at, &mut todo);
        let item = match tag {
            Tag::Class | Tag::Function => 'def: {
                // name: (identifier), then (class) superclasses: (argument_list)? or
                // (function) parameters: (parameters) return_type: (type)?, body: (block).
                let Some(Some(name)) = field_of(n, f.name, Some(Tag::Identifier)) else {
                    break 'def None;
                };
                let Some(Some(body)) = field_of(n, f.body, Some(Tag::Block)) else {
                    break 'def None;
                };
                let mut extra = DefNodes { body: Some(body), ..DefNodes::default() };
                let kind = if tag == Tag::Class {
                    extra.bases = field_of(n, f.superclasses, Some(Tag::ArgumentList)).flatten();
                    DefKind::Class
                } else {
                    let Some(Some(params)) = field_of(n, f.parameters, Some(Tag::Parameters))
                    else {
                        break 'def None;
                    };
                    extra.params = Some(params);
                    extra.returns = field_of(n, f.return_type, Some(Tag::Type)).flatten();
                    DefKind::Function
                };
                Some(Item::Def { node: n, kind, name, extra })
            }
            Tag::Decorator => Some(Item::Decorator(n)),
            Tag::Import => Some(Item::Import(n)),
            Tag::Call => match field_of(n, f.function, None) {
                Some(Some(callee)) => Some(Item::Call { callee, call: n }),
                _ => None,
            },
            Tag::Assignment => match n.child_by_field_id(f.left) {
                Some(left) if matches!(tag_of(left), Tag::Identifier | Tag::Attribute) => {
                    Some(Item::Bind {
                        left,
                        ty: field_of(n, f.r#type, Some(Tag::Type)).flatten(),
                        right: field_of(n, f.right, None).flatten(),
                    })
                }
                _ => None,
            },
            Tag::Py2Stmt => Some(Item::Py2(n)),
            Tag::Integer => {
                // #match? "^0[0-9_]*[1-9][0-9_]*$|[lL]$"
                let t = text(n);
                let octal = t.first() == Some(&b'0')
                    && t[1..].iter().all(|&c| c.is_ascii_digit() || c == b'_')
                    && t[1..].iter().any(|&c| (b'1'..=b'9').contains(&c));
                let long = matches!(t.last(), Some(b'l' | b'L'));
                (octal || long).then_some(Item::Py2(n))
            }
            Tag::StringStart => {
                // #match? "^([uU][rR]|`)"
                let t = text(n);
                let ur = t.len() >= 2 && matches!(t[0], b'u' | b'U') && matches!(t[1], b'r' | b'R');
                (ur || t.first() == Some(&b'`')).then_some(Item::Py2(n))
            }
            Tag::Identifier => {
                let t = text(n);
                (t == b"async" || t == b"await").then_some(Item::Py2(n))
            }
            Tag::Block if text(n).is_empty() => Some(Item::Py2(n)),
            Tag::NotEqual if parent == Tag::Comparison => Some(Item::Py2(n)),
            Tag::Comma if parent == Tag::Except => Some(Item::Py2(n)),
            Tag::ExprList if parent == Tag::Raise => Some(Item::Py2(n)),
            Tag::TuplePattern if matches!(parent, Tag::Params | Tag::Parameters) => {
                Some(Item::Py2(n))
            }
            _ => None,
        };
        if let Some(item) = item {
            items.push((n.start_byte(), n.end_byte(), item, at));
        }
    }
    // Document order already, but several captures on one node come in pattern order from the
    // walk: the same stable order as the query's.
    items.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    items
}

/// Pushes the children of `n` (node `at` of the walk) on `todo`, the first one last, each with
/// its field when `fields` (the kind may have fields).
fn push_children<'t>(n: Node<'t>, fields: bool, at: u32, todo: &mut Vec<(Node<'t>, u16, u32)>) {
    let count = n.child_count();
    if count == 0 {
        return;
    }
    // `Node::child(i)` and `Node::field_name_for_child(i)` count from the first child: a cursor
    // is cheaper for a long run of children (a module's or a class body's statements).
    if count <= 16 {
        for i in (0..count).rev() {
            let Some(c) = n.child(i) else { continue };
            let field = if fields { n.field_name_for_child(i).map_or(0, field_id) } else { 0 };
            todo.push((c, field, at));
        }
        return;
    }
    let from = todo.len();
    let mut cur = n.walk();
    if cur.goto_first_child() {
        loop {
            let field = if fields { cur.field_id().map_or(0, |f| f.get()) } else { 0 };
            todo.push((cur.node(), field, at));
            if !cur.goto_next_sibling() {
                break;
            }
        }
    }
    todo[from..].reverse();
}

/// The id of field `name`, a name the grammar gave ([`Node::field_name_for_child`]).
fn field_id(name: &str) -> u16 {
    static IDS: OnceLock<Vec<(usize, u16)>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let l = language();
        (1..=l.field_count() as u16)
            .filter_map(|id| Some((l.field_name_for_id(id)?.as_ptr() as usize, id)))
            .collect()
    });
    // The grammar's own string: found by address, else (never seen) by name.
    let at = name.as_ptr() as usize;
    ids.iter()
        .find(|&&(p, _)| p == at)
        .map(|&(_, id)| id)
        .unwrap_or_else(|| language().field_id_for_name(name).map_or(0, |f| f.get()))
}

/// A reusable extractor: one per thread (tree-sitter parsers are not `Sync`).
pub struct Extractor {
    parser: Parser,
    /// The last file's [`Flat`] tree (its allocation reused).
    flat: Vec<Flat>,
    /// The parent of each [`Flat`] node ([`NO_NODE`]: the root), likewise.
    parents: Vec<u32>,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

/// A capture of interest, before nesting.
#[derive(Debug, PartialEq)]
enum Item<'t> {
    Def { node: Node<'t>, kind: DefKind, name: Node<'t>, extra: DefNodes<'t> },
    Decorator(Node<'t>),
    Import(Node<'t>),
    Call { callee: Node<'t>, call: Node<'t> },
    Bind { left: Node<'t>, ty: Option<Node<'t>>, right: Option<Node<'t>> },
    Py2(Node<'t>),
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct DefNodes<'t> {
    bases: Option<Node<'t>>,
    params: Option<Node<'t>>,
    returns: Option<Node<'t>>,
    body: Option<Node<'t>>,
}

impl Extractor {
    /// A new extractor with the Python grammar loaded.
    pub fn new() -> Extractor {
        let mut parser = Parser::new();
        // The grammar is linked in and its ABI is checked by a unit test.
        parser.set_language(&language()).expect("tree-sitter-python ABI is supported");
        Extractor { parser, flat: Vec::new(), parents: Vec::new() }
    }

    /// Extracts the facts of one file. Never fails: syntax errors are recovered from and
    /// counted in [`FileFacts::syntax_errors`].
    pub fn extract(&mut self, src: &[u8]) -> FileFacts {
        // Python reads source with universal newlines, so a lone `\r` (old Mac line ending)
        // ends a line; tree-sitter only knows `\n`. Same length, so byte offsets still hold.
        // (Every language's file gets this in `Extractors::extract`; this is for callers of
        // this extractor alone.)
        let unified = tree::unify_newlines(src);
        let src = unified.as_deref().unwrap_or(src);
        let mut facts = FileFacts { lines: tree::count_lines(src), ..FileFacts::default() };
        let Some(tree) = tree::parse(&mut self.parser, src) else {
            facts.syntax_errors = 1;
            facts.py3_invalid = true;
            facts.first_error_line = 1;
            return facts;
        };
        let root = tree.root_node();
        // Python 3.12's `ast.parse` rejects NUL bytes, which tree-sitter parses around, and a
        // byte-order mark: LocAgent reads files as plain UTF-8, which keeps U+FEFF in the text.
        if src.contains(&0) || src.starts_with(b"\xef\xbb\xbf") {
            facts.py3_invalid = true;
        }
        if root.has_error() {
            let (count, first) = tree::count_errors(root);
            facts.syntax_errors = count.max(1);
            facts.first_error_line = first;
            facts.py3_invalid = true;
        }

        let mut flat = std::mem::take(&mut self.flat);
        let mut parents = std::mem::take(&mut self.parents);
        let items = captures(root, src, &mut flat, &mut parents);

        let mut b = Builder {
            src,
            facts,
            stack: tree::Nest::default(),
            call_nodes: Vec::new(),
            call_expr_of: HashMap::default(),
            def_at: HashMap::default(),
            flat,
            parents,
            strs: HashMap::default(),
            scratch: Vec::new(),
            kw_scratch: Vec::new(),
        };
        // Module-level statements at column 0; each definition's body at one indentation
        // (tree-sitter accepts stray indentation that Python reports as IndentationError).
        if !b.consistent_indent(0, Some(0)) {
            b.facts.py3_invalid = true;
        }
        b.collect_defs(&items);
        b.collect_rest(&items);
        b.facts.flow.params = vec![Span::default(); b.facts.defs.len()];
        if !crate::extract::bench_no_flow() {
            b.walk(0, NO_EXPR, 0);
        }
        b.facts.flow.call_exprs = b
            .call_nodes
            .iter()
            .map(|id| b.call_expr_of.get(id).copied().unwrap_or(NO_EXPR))
            .collect();
        self.flat = std::mem::take(&mut b.flat);
        self.parents = std::mem::take(&mut b.parents);
        b.facts.all = dunder_all(root, src);
        b.facts
    }
}

/// Nesting state while walking the sorted captures.
struct Builder<'s> {
    src: &'s [u8],
    facts: FileFacts,
    /// Enclosing definitions.
    stack: tree::Nest,
    /// The [`Flat`] node of each call in `facts.calls`.
    call_nodes: Vec<u32>,
    /// [`Flat`] node of a call -> its flow expression.
    call_expr_of: HashMap<u32, u32>,
    /// [`Flat`] node of a definition -> its index.
    def_at: HashMap<u32, DefIdx>,
    /// The file's tree, for the value-flow walk.
    flat: Vec<Flat>,
    /// The parent of each node of `flat` ([`NO_NODE`]: none).
    parents: Vec<u32>,
    /// The flow's string table: string -> id.
    strs: HashMap<&'s str, u32>,
    /// Operands being collected (a stack: each expression uses the part above where it began).
    scratch: Vec<u32>,
    /// Keyword arguments being collected, as (name, value) pairs (a stack like `scratch`).
    kw_scratch: Vec<u32>,
}

impl<'s> Builder<'s> {
    fn text(&self, n: Node) -> String {
        tree::text(n, self.src)
    }

    /// Pops the definitions that end before `start`; the top is then the owner.
    fn owner_at(&mut self, start: usize) -> Option<DefIdx> {
        self.stack.owner_at(start)
    }

    /// First pass: number the definitions in pre-order and link parents.
    fn collect_defs(&mut self, items: &[Capture]) {
        for (start, end, item, at) in items {
            let Item::Def { node, kind, name, extra } = item else { continue };
            let parent = self.owner_at(*start);
            let idx = self.facts.defs.len() as DefIdx;
            let (outer, outer_at) = match self.up(*at) {
                Some(p) if self.kind(p) == "decorated_definition" => {
                    (node.parent().unwrap_or(*node), p)
                }
                _ => (*node, *at),
            };
            let end_node = last_token_end(*node);
            // Direct: the (decorated) definition sits in the module, or in the body block of
            // its parent definition, not in an `if` / `try` / `with` inside it.
            let direct = self.is_direct(outer_at, parent);
            let sig_end = self
                .kids(*at)
                .filter(|&c| self.kind(c) == ":")
                .last()
                .map_or(end_node.0, |c| self.flat[c as usize].end as usize);
            let body = self.field(*at, fields().body);
            let def = Def {
                kind: *kind,
                name: self.text(*name),
                parent,
                is_async: self.kids(*at).next().is_some_and(|c| self.kind(c) == "async"),
                direct,
                line_start: outer.start_position().row as u32 + 1,
                line_head: node.start_position().row as u32 + 1,
                line_end: end_node.1,
                byte_start: outer.start_byte() as u32,
                byte_head: node.start_byte() as u32,
                byte_sig_end: sig_end as u32,
                byte_end: end_node.0 as u32,
                doc: body.and_then(|b| self.docstring(b)),
                bases: extra.bases.map(|b| self.bases(b)).unwrap_or_default(),
                decorators: Vec::new(),
                deco_names: Vec::new(),
                first_param: None,
                returns: extra.returns.and_then(|t| self.type_name(t)),
                owner: None,
                namespace: false,
            };
            if body.is_some_and(|b| !self.consistent_indent(b, None)) {
                self.facts.py3_invalid = true;
            }
            self.facts.defs.push(def);
            self.def_at.insert(*at, idx);
            if let Some(params) = extra.params {
                self.params(idx, params);
            }
            self.stack.push(idx, *end);
        }
        self.stack = tree::Nest::default();
    }

    /// Second pass: decorators, imports, calls and bindings, each with its owner.
    fn collect_rest(&mut self, items: &[Capture]) {
        let mut def_counter = 0u32;
        // The innermost decorator being walked: (end byte, decorated definition).
        let mut deco: Vec<(usize, DefIdx)> = Vec::new();
        let mut stmt = 0u32;
        for (start, end, item, at) in items {
            while deco.last().is_some_and(|&(e, _)| e <= *start) {
                deco.pop();
            }
            let owner = self.owner_at(*start);
            match item {
                Item::Def { .. } => {
                    self.stack.push(def_counter, *end);
                    def_counter += 1;
                }
                Item::Decorator(node) => {
                    let target = self
                        .up(*at)
                        .and_then(|p| self.field(p, fields().definition))
                        .and_then(|d| self.def_at.get(&d).copied());
                    if let Some(t) = target {
                        if let Some(e) = node.named_child(0) {
                            let expr = self.expr(e);
                            self.facts.defs[t as usize].decorators.push(expr);
                            let mut names =
                                std::mem::take(&mut self.facts.defs[t as usize].deco_names);
                            self.deco_names(e, &mut names);
                            self.facts.defs[t as usize].deco_names = names;
                        }
                        deco.push((*end, t));
                    }
                }
                Item::Import(node) => {
                    let direct = self.is_direct(*at, owner);
                    self.import(*node, *at, owner, direct, stmt);
                    stmt += 1;
                }
                Item::Call { callee: node, call: _ } => {
                    let callee = self.callee(*node);
                    self.call_nodes.push(*at);
                    self.facts.calls.push(Call {
                        owner,
                        deco_of: deco.last().map(|&(_, d)| d),
                        callee,
                        line: node.start_position().row as u32 + 1,
                    });
                }
                Item::Bind { left, ty, right } => self.bind(owner, *left, *ty, *right),
                Item::Py2(node) => {
                    if py3_rejects(*node) {
                        self.facts.py3_invalid = true;
                    }
                }
            }
        }
    }

    /// Is the statement (the [`Flat`] node `stmt`) directly in the owner's body (or the
    /// module), not nested in a block?
    fn is_direct(&self, stmt: u32, owner: Option<DefIdx>) -> bool {
        let Some(parent) = self.up(stmt) else { return false };
        match owner {
            None => self.kind(parent) == "module",
            Some(o) => {
                self.kind(parent) == "block"
                    && self.up(parent).is_some_and(|d| self.def_at.get(&d).copied() == Some(o))
            }
        }
    }

    /// Whether a statement list (the children of [`Flat`] node `parent`) is indented the way
    /// Python 3 requires: every statement that starts its line starts at the same column
    /// (`expect`, or the first one's), ignoring form feeds.
    fn consistent_indent(&self, parent: u32, expect: Option<usize>) -> bool {
        let src = self.src;
        let mut col = expect;
        for stmt in self.kids(parent) {
            if !self.flat[stmt as usize].named || self.kind(stmt) == "comment" {
                continue;
            }
            let start = (self.flat[stmt as usize].start as usize).min(src.len());
            let line = src[..start].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            let indent = &src[line..start];
            if !indent.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\x0c')) {
                continue; // after a `;` or on the line of the block's header
            }
            let width = indent.iter().filter(|&&c| c != b'\x0c').count();
            match col {
                None => col = Some(width),
                Some(w) if w != width => return false,
                Some(_) => {}
            }
        }
        true
    }

    /// The docstring of a body block ([`Flat`] node `body`): its first statement, when that
    /// is a string expression.
    fn docstring(&self, body: u32) -> Option<(u32, u32)> {
        let first =
            self.kids(body).find(|&c| self.flat[c as usize].named && self.kind(c) != "comment")?;
        if self.kind(first) != "expression_statement" {
            return None;
        }
        let s = self.named_child(first, 0)?;
        let f = &self.flat[s as usize];
        matches!(self.kind(s), "string" | "concatenated_string").then_some((f.start, f.end))
    }

    /// The parent of [`Flat`] node `n`.
    fn up(&self, n: u32) -> Option<u32> {
        self.parents.get(n as usize).copied().filter(|&p| p != NO_NODE)
    }

    /// Depth of a statement (the [`Flat`] node `stmt`) in Python's `ast` tree (module-level
    /// statements are at depth 1).
    ///
    /// tree-sitter nests clauses differently from `ast`: an `elif` is a flat sibling clause
    /// here but an `If` inside the previous branch's `orelse` there, and `except` / `case`
    /// bodies sit below an `ExceptHandler` / `match_case` node. Blocks and decorators add
    /// nothing in `ast`.
    fn ast_depth(&self, stmt: u32) -> u32 {
        let mut depth = 1u32;
        let mut child = stmt;
        while let Some(p) = self.up(child) {
            match self.kind(p) {
                "module" => break,
                "except_clause" | "case_clause" => depth += 2,
                "finally_clause" => depth += 1,
                "elif_clause" | "else_clause" => match self.up(p) {
                    Some(owner) if self.kind(owner) == "if_statement" => {
                        // `elif` chains nest in `ast`: the n-th elif (n from 0) is an `If` n + 1
                        // levels below the `if`, its body one more; an `else` after n elifs is
                        // the `orelse` of the last one, n + 1 levels below the `if`.
                        let n = self
                            .kids(owner)
                            .take_while(|&s| s != p)
                            .filter(|&s| self.kind(s) == "elif_clause")
                            .count() as u32;
                        depth += if self.kind(p) == "elif_clause" { n + 2 } else { n + 1 };
                    }
                    _ => depth += 1,
                },
                "function_definition"
                | "class_definition"
                | "if_statement"
                | "for_statement"
                | "while_statement"
                | "with_statement"
                | "try_statement"
                    if self.kind(child) == "block" =>
                {
                    depth += 1
                }
                _ => {}
            }
            child = p;
        }
        depth
    }

    fn import(&mut self, node: Node, at: u32, owner: Option<DefIdx>, direct: bool, stmt: u32) {
        let line = node.start_position().row as u32 + 1;
        let depth = self.ast_depth(at);
        // (module, level, name, alias) per imported name.
        let mut names: Vec<(String, u32, Option<String>, Option<String>)> = Vec::new();
        let mut cur = node.walk();
        match kind_of(node) {
            "import_statement" => {
                for n in node.children_by_field_name("name", &mut cur) {
                    let (name, alias) = self.aliased(n);
                    names.push((name, 0, None, alias));
                }
            }
            _ => {
                // import_from_statement / future_import_statement
                let (module, level) = match node.child_by_field_id(fields().module_name) {
                    Some(m) if kind_of(m) == "relative_import" => {
                        let mut level = 0;
                        let mut module = String::new();
                        for c in m.children(&mut m.walk()) {
                            match kind_of(c) {
                                "import_prefix" => level = (c.end_byte() - c.start_byte()) as u32,
                                "dotted_name" => module = dotted_text(c, self.src),
                                _ => {}
                            }
                        }
                        (module, level)
                    }
                    Some(m) => (dotted_text(m, self.src), 0),
                    None => ("__future__".to_string(), 0),
                };
                for n in node.children_by_field_name("name", &mut cur) {
                    let (name, alias) = self.aliased(n);
                    names.push((module.clone(), level, Some(name), alias));
                }
                if names.is_empty()
                    && node.children(&mut node.walk()).any(|c| kind_of(c) == "wildcard_import")
                {
                    names.push((module, level, Some("*".to_string()), None));
                }
            }
        }
        for (module, level, name, alias) in names {
            self.facts.imports.push(Import {
                owner,
                direct,
                level,
                module,
                name,
                alias,
                line,
                stmt,
                form: ImportForm::Plain,
                depth,
            });
        }
    }

    /// `a.b` or `a.b as c`.
    fn aliased(&self, n: Node) -> (String, Option<String>) {
        if kind_of(n) == "aliased_import" {
            let name = n.child_by_field_id(fields().name).map(|x| dotted_text(x, self.src));
            let alias = n.child_by_field_id(fields().alias).map(|x| self.text(x));
            (name.unwrap_or_default(), alias)
        } else {
            (dotted_text(n, self.src), None)
        }
    }

    fn callee(&self, f: Node) -> Callee {
        match kind_of(f) {
            "identifier" => Callee::Name(self.text(f)),
            "attribute" => {
                let attr = f.child_by_field_id(fields().attribute).map(|a| self.text(a));
                let Some(attr) = attr else { return Callee::Other };
                if let Some(chain) = chain(f, self.src) {
                    return Callee::Chain(chain);
                }
                let obj = f.child_by_field_id(fields().object);
                match obj {
                    Some(o) if kind_of(o) == "call" => {
                        match o
                            .child_by_field_id(fields().function)
                            .and_then(|g| chain(g, self.src))
                        {
                            Some(inner) => Callee::OnCall(inner, attr),
                            None => Callee::Attr(attr),
                        }
                    }
                    _ => Callee::Attr(attr),
                }
            }
            _ => Callee::Other,
        }
    }

    /// An expression in a decorator or base-class list.
    fn expr(&self, e: Node) -> Expr {
        if let Some(c) = chain(e, self.src) {
            return Expr::Dotted(c);
        }
        match kind_of(e) {
            "call" => match e.child_by_field_id(fields().function).and_then(|f| chain(f, self.src))
            {
                Some(c) => Expr::Call(c),
                None => Expr::Other(None),
            },
            "subscript" => {
                match e.child_by_field_id(fields().value).and_then(|v| chain(v, self.src)) {
                    Some(c) => Expr::Subscript(c),
                    None => Expr::Other(None),
                }
            }
            "attribute" => {
                Expr::Other(e.child_by_field_id(fields().attribute).map(|a| self.text(a)))
            }
            _ => Expr::Other(None),
        }
    }

    /// LocAgent's decorator names: a bare name, else (`ast.walk` over the expression) every
    /// attribute name and the name of every call whose callee is a plain name.
    fn deco_names(&self, e: Node, out: &mut Vec<String>) {
        if kind_of(e) == "identifier" {
            out.push(self.text(e));
            return;
        }
        let mut todo = vec![e];
        while let Some(n) = todo.pop() {
            let name = match kind_of(n) {
                "call" => {
                    n.child_by_field_id(fields().function).filter(|f| kind_of(f) == "identifier")
                }
                "attribute" => n.child_by_field_id(fields().attribute),
                _ => None,
            };
            out.extend(name.map(|x| self.text(x)));
            let mut cur = n.walk();
            todo.extend(n.named_children(&mut cur));
        }
    }

    fn bases(&self, list: Node) -> Vec<Expr> {
        let mut cur = list.walk();
        list.named_children(&mut cur)
            .filter(|c| !matches!(kind_of(c), "keyword_argument" | "comment"))
            .map(|c| self.expr(c))
            .collect()
    }

    /// Parameters: the first one's name, and annotated ones as typed bindings.
    fn params(&mut self, def: DefIdx, params: Node) {
        let mut cur = params.walk();
        let mut first = true;
        for p in params.named_children(&mut cur) {
            let (name, ty) = match kind_of(p) {
                "identifier" => (Some(self.text(p)), None),
                "typed_parameter" => {
                    let name = p.named_child(0).filter(|c| kind_of(c) == "identifier");
                    (name.map(|n| self.text(n)), p.child_by_field_id(fields().r#type))
                }
                "default_parameter" | "typed_default_parameter" => {
                    let name =
                        p.child_by_field_id(fields().name).filter(|c| kind_of(c) == "identifier");
                    (name.map(|n| self.text(n)), p.child_by_field_id(fields().r#type))
                }
                _ => (None, None),
            };
            if first && kind_of(p) != "comment" {
                self.facts.defs[def as usize].first_param = name.clone();
                first = false;
            }
            if let (Some(name), Some(ty)) = (name, ty)
                && let Some(t) = self.type_name(ty)
            {
                self.facts.binds.push(Bind {
                    owner: Some(def),
                    target: name,
                    value: BindValue::Annotated(t),
                });
            }
        }
    }

    /// A type annotation as a dotted name: `Foo`, `a.Foo`, `"Foo"`, `Optional[Foo]`.
    fn type_name(&self, ty: Node) -> Option<String> {
        let e = if kind_of(ty) == "type" { ty.named_child(0)? } else { ty };
        if let Some(c) = chain(e, self.src) {
            return Some(c);
        }
        match kind_of(e) {
            "string" => {
                let t = self.text(e);
                let t = t.trim_matches(|c| c == '"' || c == '\'');
                is_dotted(t).then(|| t.to_string())
            }
            "generic_type" | "subscript" => {
                // Optional[Foo] -> Foo; other generics are containers, not the value's type.
                let head = e.named_child(0).and_then(|h| chain(h, self.src))?;
                if head == "Optional" || head.ends_with(".Optional") {
                    let arg = e.named_child(1)?;
                    let arg =
                        if kind_of(arg) == "type_parameter" { arg.named_child(0)? } else { arg };
                    self.type_name(arg)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn bind(&mut self, owner: Option<DefIdx>, left: Node, ty: Option<Node>, right: Option<Node>) {
        let target = match kind_of(left) {
            "identifier" => self.text(left),
            "attribute" => match chain(left, self.src) {
                Some(c) if c.matches('.').count() == 1 => c,
                _ => return,
            },
            _ => return,
        };
        let value = if let Some(t) = ty.and_then(|t| self.type_name(t)) {
            BindValue::Annotated(t)
        } else {
            let Some(r) = right else { return };
            match kind_of(r) {
                "call" => {
                    match r.child_by_field_id(fields().function).and_then(|f| chain(f, self.src)) {
                        Some(c) => BindValue::CallOf(c),
                        None => return,
                    }
                }
                _ => match chain(r, self.src) {
                    Some(c) => BindValue::Alias(c),
                    None => return,
                },
            }
        };
        self.facts.binds.push(Bind { owner, target, value });
    }
}

/// Deepest expression nesting the value-flow walk follows.
const MAX_NEST: u32 = 200;

impl<'s> Builder<'s> {
    /// The id of string `s` in the flow's string table.
    fn intern(&mut self, s: &'s str) -> u32 {
        if let Some(&i) = self.strs.get(s) {
            return i;
        }
        let i = self.push_str(s);
        self.strs.insert(s, i);
        i
    }

    /// Appends a string to the flow's string table (not shared).
    fn push_str(&mut self, s: &str) -> u32 {
        let f = &mut self.facts.flow;
        f.text.push_str(s);
        f.ends.push(f.text.len() as u32);
        (f.ends.len() - 1) as u32
    }

    /// The string id of a node's text.
    fn text_id(&mut self, n: u32) -> u32 {
        let src: &'s [u8] = self.src;
        match crate::extract::source_text(self.bytes(n, src)) {
            std::borrow::Cow::Borrowed(s) => self.intern(s),
            std::borrow::Cow::Owned(s) => self.push_str(&s),
        }
    }

    /// Moves `scratch[base..]` into the flow's lists.
    fn span_from(&mut self, base: usize) -> Span {
        let f = &mut self.facts.flow;
        let start = f.lists.len() as u32;
        f.lists.extend_from_slice(&self.scratch[base..]);
        self.scratch.truncate(base);
        Span { start, len: f.lists.len() as u32 - start }
    }

    fn push_expr(&mut self, owner: u32, e: PyExpr) -> u32 {
        let f = &mut self.facts.flow;
        f.exprs.push(e);
        f.owners.push(owner);
        (f.exprs.len() - 1) as u32
    }

    fn stmt(&mut self, s: FlowStmt) {
        self.facts.flow.stmts.push(s);
    }

    /// The named children of `n`, in order.
    fn named_kids(&self, n: u32) -> SmallVec<[u32; 8]> {
        self.kids(n).filter(|&c| self.flat[c as usize].named).collect()
    }

    /// The children of `n`, in order.
    fn kids(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let first = self.flat.get(n as usize).map_or(NO_NODE, |f| f.first);
        std::iter::successors((first != NO_NODE).then_some(first), |&c| {
            let next = self.flat[c as usize].next;
            (next != NO_NODE).then_some(next)
        })
    }

    /// The first child of `n` in field `field`.
    fn field(&self, n: u32, field: u16) -> Option<u32> {
        self.kids(n).find(|&c| self.flat[c as usize].field == field)
    }

    /// The `i`th named child of `n`.
    fn named_child(&self, n: u32, i: usize) -> Option<u32> {
        self.kids(n).filter(|&c| self.flat[c as usize].named).nth(i)
    }

    /// The kind of `n`.
    fn kind(&self, n: u32) -> &'static str {
        kind_name(self.flat[n as usize].kind)
    }

    /// The source bytes of `n`.
    fn bytes<'x>(&self, n: u32, src: &'x [u8]) -> &'x [u8] {
        let f = &self.flat[n as usize];
        src.get(f.start as usize..f.end as usize).unwrap_or(&[])
    }

    /// A node's text borrowed from the source ("" when it is not UTF-8).
    fn raw(&self, n: u32) -> &'s str {
        let src: &'s [u8] = self.src;
        std::str::from_utf8(self.bytes(n, src)).unwrap_or("")
    }

    /// Walks statements, recording the value flow (owner: the enclosing definition).
    fn walk(&mut self, n: u32, owner: u32, depth: u32) {
        if depth > MAX_NEST {
            return;
        }
        match self.kind(n) {
            "function_definition" | "class_definition" => {
                let Some(&d) = self.def_at.get(&n) else { return };
                if self.kind(n) == "function_definition"
                    && let Some(ps) = self.field(n, fields().parameters)
                {
                    self.flow_params(d, ps, owner, depth);
                }
                if let Some(bases) = self.field(n, fields().superclasses) {
                    self.walk(bases, owner, depth + 1);
                }
                if let Some(body) = self.field(n, fields().body) {
                    self.walk(body, d, depth + 1);
                }
            }
            "decorated_definition" => {
                let def = self.field(n, fields().definition);
                let target = def.and_then(|d| self.def_at.get(&d).copied());
                let mut decos = Vec::new();
                for c in self.named_kids(n) {
                    if self.kind(c) == "decorator"
                        && let Some(e) = self.named_child(c, 0)
                    {
                        decos.push(self.ex(e, owner, depth + 1));
                    }
                }
                if let Some(t) = target {
                    for e in decos.into_iter().rev() {
                        self.stmt(FlowStmt::Deco(t, e));
                    }
                }
                if let Some(d) = def {
                    self.walk(d, owner, depth + 1);
                }
            }
            "assignment" | "augmented_assignment" => {
                let mut targets = Vec::new();
                let mut cur = n;
                let value = loop {
                    if let Some(l) = self.field(cur, fields().left) {
                        targets.push(l);
                    }
                    match self.field(cur, fields().right) {
                        Some(r) if self.kind(r) == "assignment" => cur = r,
                        Some(r) => break Some(r),
                        None => break None,
                    }
                };
                let Some(value) = value else { return };
                let v = self.ex(value, owner, depth + 1);
                if self.kind(n) == "augmented_assignment"
                    && let Some(l) = targets.first()
                {
                    let op = self.field(n, fields().operator).map(|o| self.raw(o).to_string());
                    if let Some(m) = op.and_then(|o| dunder(o.trim_end_matches('='))) {
                        let lhs = self.ex(*l, owner, depth + 1);
                        let m = self.intern(m);
                        self.push_expr(owner, PyExpr::Op(lhs, m));
                    }
                }
                for t in targets {
                    let te = self.target(t, owner, depth + 1);
                    if te != NO_EXPR && v != NO_EXPR {
                        self.stmt(FlowStmt::Assign(te, v));
                    }
                }
            }
            "return_statement" => {
                if let Some(v) = self.named_child(n, 0) {
                    let e = self.ex(v, owner, depth + 1);
                    if owner != NO_EXPR && e != NO_EXPR {
                        self.stmt(FlowStmt::Return(owner, e));
                    }
                }
            }
            "for_statement" => {
                let it = self.field(n, fields().right).map(|r| self.ex(r, owner, depth + 1));
                let t = self.field(n, fields().left).map(|l| self.target(l, owner, depth + 1));
                if let (Some(t), Some(it)) = (t, it)
                    && it != NO_EXPR
                {
                    self.stmt(FlowStmt::For(t, it));
                }
                for c in self.named_kids(n) {
                    if matches!(self.kind(c), "block" | "else_clause") {
                        self.walk(c, owner, depth + 1);
                    }
                }
            }
            "with_item" => {
                let Some(v) = self.field(n, fields().value) else { return };
                let (val, tgt) = if self.kind(v) == "as_pattern" {
                    let t = self.field(v, fields().alias).and_then(|a| {
                        if self.kind(a) == "as_pattern_target" {
                            self.named_child(a, 0)
                        } else {
                            Some(a)
                        }
                    });
                    (self.named_child(v, 0), t)
                } else {
                    (Some(v), None)
                };
                let Some(val) = val else { return };
                let e = self.ex(val, owner, depth + 1);
                let t = tgt.map_or(NO_EXPR, |t| self.target(t, owner, depth + 1));
                if e != NO_EXPR {
                    self.stmt(FlowStmt::With(e, t));
                }
            }
            "global_statement" | "nonlocal_statement" => {
                if owner == NO_EXPR {
                    return;
                }
                let mut kids = self.named_kids(n);
                kids.retain(|c| self.kind(*c) == "identifier");
                let base = self.scratch.len();
                for c in kids {
                    let id = self.text_id(c);
                    self.scratch.push(id);
                }
                let names = self.span_from(base);
                self.stmt(FlowStmt::Global(owner, names));
            }
            "import_statement"
            | "import_from_statement"
            | "future_import_statement"
            | "comment"
            | "pass_statement"
            | "break_statement"
            | "continue_statement" => {}
            k if is_expr_kind(k) => {
                self.ex(n, owner, depth + 1);
            }
            _ => {
                for c in self.named_kids(n) {
                    self.walk(c, owner, depth + 1);
                }
            }
        }
    }

    /// Parameter names of definition `d`, and their defaults as assignments.
    fn flow_params(&mut self, d: DefIdx, ps: u32, outer: u32, depth: u32) {
        let mut names: Vec<u32> = Vec::new();
        for p in self.named_kids(ps) {
            let (name, default) = match self.kind(p) {
                "identifier" => (Some(self.text_id(p)), None),
                "typed_parameter" => {
                    let inner = self.named_child(p, 0);
                    match inner {
                        Some(i) if self.kind(i) == "identifier" => (Some(self.text_id(i)), None),
                        Some(i) if self.kind(i) == "list_splat_pattern" => {
                            (Some(self.intern("*")), None)
                        }
                        Some(i) if self.kind(i) == "dictionary_splat_pattern" => {
                            (Some(self.intern("**")), None)
                        }
                        _ => (None, None),
                    }
                }
                "default_parameter" | "typed_default_parameter" => (
                    self.field(p, fields().name)
                        .filter(|&c| self.kind(c) == "identifier")
                        .map(|n| self.text_id(n)),
                    self.field(p, fields().value),
                ),
                "list_splat_pattern" | "keyword_separator" => (Some(self.intern("*")), None),
                "dictionary_splat_pattern" => (Some(self.intern("**")), None),
                _ => (None, None),
            };
            let Some(name) = name else { continue };
            if let Some(v) = default {
                let e = self.ex(v, outer, depth + 1);
                if e != NO_EXPR {
                    let t = self.push_expr(d, PyExpr::Name(name));
                    self.stmt(FlowStmt::Assign(t, e));
                }
            }
            names.push(name);
        }
        let f = &mut self.facts.flow;
        let start = f.lists.len() as u32;
        f.lists.extend_from_slice(&names);
        f.params[d as usize] = Span { start, len: names.len() as u32 };
    }

    /// An assignment target.
    fn target(&mut self, n: u32, owner: u32, depth: u32) -> u32 {
        if depth > MAX_NEST {
            return NO_EXPR;
        }
        match self.kind(n) {
            "identifier" => {
                let id = self.text_id(n);
                self.push_expr(owner, PyExpr::Name(id))
            }
            "attribute" => {
                let (Some(o), Some(a)) =
                    (self.field(n, fields().object), self.field(n, fields().attribute))
                else {
                    return NO_EXPR;
                };
                let oe = self.ex(o, owner, depth + 1);
                if oe == NO_EXPR {
                    return NO_EXPR;
                }
                let a = self.text_id(a);
                self.push_expr(owner, PyExpr::Attr(oe, a))
            }
            "subscript" => {
                let Some(v) = self.field(n, fields().value) else { return NO_EXPR };
                let oe = self.ex(v, owner, depth + 1);
                let subs: SmallVec<[u32; 4]> = self
                    .kids(n)
                    .filter(|&c| self.flat[c as usize].field == fields().subscript)
                    .collect();
                for s in subs {
                    self.ex(s, owner, depth + 1);
                }
                if oe == NO_EXPR {
                    return NO_EXPR;
                }
                self.push_expr(owner, PyExpr::Item(oe))
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list"
            | "expression_list" => {
                let kids = self.named_kids(n);
                let base = self.scratch.len();
                for k in kids {
                    let t = self.target(k, owner, depth + 1);
                    self.scratch.push(t);
                }
                let items = self.span_from(base);
                self.push_expr(owner, PyExpr::Coll(items))
            }
            "parenthesized_expression" => match self.named_child(n, 0) {
                Some(i) => self.target(i, owner, depth + 1),
                None => NO_EXPR,
            },
            _ => NO_EXPR,
        }
    }

    /// An expression's value (and the flow of everything inside it).
    fn ex(&mut self, n: u32, owner: u32, depth: u32) -> u32 {
        if depth > MAX_NEST {
            return NO_EXPR;
        }
        let d = depth + 1;
        match self.kind(n) {
            "identifier" => {
                let id = self.text_id(n);
                self.push_expr(owner, PyExpr::Name(id))
            }
            "attribute" => {
                let (Some(o), Some(a)) =
                    (self.field(n, fields().object), self.field(n, fields().attribute))
                else {
                    return NO_EXPR;
                };
                let oe = self.ex(o, owner, d);
                if oe == NO_EXPR {
                    return NO_EXPR;
                }
                let a = self.text_id(a);
                self.push_expr(owner, PyExpr::Attr(oe, a))
            }
            "call" => {
                let f = self.field(n, fields().function).map_or(NO_EXPR, |f| self.ex(f, owner, d));
                // Positional arguments on `scratch`, keyword (name, value) pairs on `kw_scratch`.
                let base = self.scratch.len();
                let kw_base = self.kw_scratch.len();
                if let Some(al) = self.field(n, fields().arguments) {
                    let kids = self.named_kids(al);
                    if self.kind(al) == "generator_expression" {
                        let g = self.ex(al, owner, d);
                        self.scratch.push(g);
                    }
                    for a in kids {
                        if self.kind(al) == "generator_expression" {
                            break;
                        }
                        match self.kind(a) {
                            "keyword_argument" => {
                                let name = self.field(a, fields().name).map(|x| self.text_id(x));
                                let v = self
                                    .field(a, fields().value)
                                    .map_or(NO_EXPR, |v| self.ex(v, owner, d));
                                if let Some(name) = name {
                                    self.kw_scratch.extend([name, v]);
                                }
                            }
                            "list_splat" | "dictionary_splat" => {
                                if let Some(i) = self.named_child(a, 0) {
                                    self.ex(i, owner, d);
                                }
                                if self.kind(a) == "list_splat" {
                                    self.scratch.push(STAR_ARG);
                                }
                            }
                            "comment" => {}
                            _ => {
                                let x = self.ex(a, owner, d);
                                self.scratch.push(x);
                            }
                        }
                    }
                }
                if f == NO_EXPR {
                    self.scratch.truncate(base);
                    self.kw_scratch.truncate(kw_base);
                    return NO_EXPR;
                }
                // The operands: [positional count, positional..., names..., values...].
                let fl = &mut self.facts.flow;
                let start = fl.lists.len() as u32;
                fl.lists.push((self.scratch.len() - base) as u32);
                fl.lists.extend_from_slice(&self.scratch[base..]);
                let kw = &self.kw_scratch[kw_base..];
                fl.lists.extend(kw.iter().step_by(2));
                fl.lists.extend(kw.iter().skip(1).step_by(2));
                let ops = Span { start, len: fl.lists.len() as u32 - start };
                self.scratch.truncate(base);
                self.kw_scratch.truncate(kw_base);
                let e = self.push_expr(owner, PyExpr::Call(f, ops));
                self.call_expr_of.insert(n, e);
                e
            }
            "subscript" => {
                let v = self.field(n, fields().value).map_or(NO_EXPR, |v| self.ex(v, owner, d));
                let subs: SmallVec<[u32; 4]> = self
                    .kids(n)
                    .filter(|&c| self.flat[c as usize].field == fields().subscript)
                    .collect();
                for s in subs {
                    self.ex(s, owner, d);
                }
                if v == NO_EXPR {
                    return NO_EXPR;
                }
                self.push_expr(owner, PyExpr::Item(v))
            }
            "list" | "tuple" | "set" | "expression_list" => {
                let kids = self.named_kids(n);
                let base = self.scratch.len();
                for k in kids {
                    if self.kind(k) == "list_splat" {
                        if let Some(i) = self.named_child(k, 0) {
                            let ie = self.ex(i, owner, d);
                            if ie != NO_EXPR {
                                let x = self.push_expr(owner, PyExpr::Item(ie));
                                self.scratch.push(x);
                            }
                        }
                        continue;
                    }
                    let e = self.ex(k, owner, d);
                    if e != NO_EXPR {
                        self.scratch.push(e);
                    }
                }
                let items = self.span_from(base);
                self.push_expr(owner, PyExpr::Coll(items))
            }
            "dictionary" => {
                let kids = self.named_kids(n);
                let base = self.scratch.len();
                for k in kids {
                    if self.kind(k) == "pair" {
                        if let Some(key) = self.field(k, fields().key) {
                            self.ex(key, owner, d);
                        }
                        if let Some(v) = self.field(k, fields().value) {
                            let e = self.ex(v, owner, d);
                            if e != NO_EXPR {
                                self.scratch.push(e);
                            }
                        }
                    } else {
                        self.ex(k, owner, d);
                    }
                }
                let items = self.span_from(base);
                self.push_expr(owner, PyExpr::Coll(items))
            }
            "list_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "dictionary_comprehension" => {
                let kids = self.named_kids(n);
                for &k in &kids {
                    if self.kind(k) == "for_in_clause" {
                        let it =
                            self.field(k, fields().right).map_or(NO_EXPR, |r| self.ex(r, owner, d));
                        let t = self
                            .field(k, fields().left)
                            .map_or(NO_EXPR, |l| self.target(l, owner, d));
                        if it != NO_EXPR && t != NO_EXPR {
                            self.stmt(FlowStmt::For(t, it));
                        }
                    } else if self.kind(k) == "if_clause"
                        && let Some(c) = self.named_child(k, 0)
                    {
                        self.ex(c, owner, d);
                    }
                }
                let body = self.field(n, fields().body);
                let body = match body {
                    Some(b) if self.kind(b) == "pair" => self.field(b, fields().value),
                    b => b,
                };
                let e = body.map_or(NO_EXPR, |b| self.ex(b, owner, d));
                let base = self.scratch.len();
                if e != NO_EXPR {
                    self.scratch.push(e);
                }
                let items = self.span_from(base);
                self.push_expr(owner, PyExpr::Coll(items))
            }
            "parenthesized_expression" | "await" => match self.named_child(n, 0) {
                Some(i) => self.ex(i, owner, d),
                None => NO_EXPR,
            },
            "conditional_expression" | "boolean_operator" => {
                let kids = self.named_kids(n);
                let cond = self.kind(n) == "conditional_expression";
                let base = self.scratch.len();
                for (i, k) in kids.into_iter().enumerate() {
                    let e = self.ex(k, owner, d);
                    if e != NO_EXPR && !(cond && i == 1) {
                        self.scratch.push(e);
                    }
                }
                let items = self.span_from(base);
                self.push_expr(owner, PyExpr::Union(items))
            }
            "binary_operator" | "comparison_operator" => {
                let op = self.field(n, fields().operator).map(|o| self.raw(o)).or_else(|| {
                    let first = self.kids(n).find(|&c| !self.flat[c as usize].named);
                    first.map(|c| self.raw(c))
                });
                let kids = self.named_kids(n);
                let mut first = NO_EXPR;
                for (i, k) in kids.into_iter().enumerate() {
                    let e = self.ex(k, owner, d);
                    if i == 0 {
                        first = e;
                    }
                }
                match op.and_then(dunder) {
                    Some(m) if first != NO_EXPR => {
                        let m = self.intern(m);
                        self.push_expr(owner, PyExpr::Op(first, m))
                    }
                    _ => NO_EXPR,
                }
            }
            "named_expression" => {
                let v = self.field(n, fields().value).map_or(NO_EXPR, |v| self.ex(v, owner, d));
                if let Some(name) = self.field(n, fields().name)
                    && v != NO_EXPR
                {
                    let id = self.text_id(name);
                    let t = self.push_expr(owner, PyExpr::Name(id));
                    self.stmt(FlowStmt::Assign(t, v));
                }
                v
            }
            "yield" => {
                let inner = self.named_child(n, 0);
                let from = self.kids(n).nth(1).is_some_and(|c| self.kind(c) == "from");
                if let Some(i) = inner {
                    let e = self.ex(i, owner, d);
                    if e != NO_EXPR && owner != NO_EXPR {
                        let v = if from {
                            e
                        } else {
                            let base = self.scratch.len();
                            self.scratch.push(e);
                            let items = self.span_from(base);
                            self.push_expr(owner, PyExpr::Coll(items))
                        };
                        self.stmt(FlowStmt::Return(owner, v));
                    }
                }
                NO_EXPR
            }
            "string" => {
                // Only a name or dotted path can matter (`getattr(x, "name")`,
                // `import_module("a.b")`): other strings (messages, keys with spaces,
                // f-strings) are left out, so editing them changes no fact the link reads.
                // Names are short: a long literal is not read at all.
                if self.flat[n as usize].end - self.flat[n as usize].start >= 120 {
                    return NO_EXPR;
                }
                let src: &'s [u8] = self.src;
                let Ok(t) = std::str::from_utf8(self.bytes(n, src)) else { return NO_EXPR };
                let name = t
                    .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                    .trim_matches(|c| c == '"' || c == '\'');
                if !is_dotted(name) {
                    return NO_EXPR;
                }
                let id = self.intern(name);
                self.push_expr(owner, PyExpr::Str(id))
            }
            "lambda" => {
                // Calls made in a lambda belong to its enclosing definition.
                if let Some(b) = self.field(n, fields().body) {
                    self.ex(b, owner, d);
                }
                NO_EXPR
            }
            _ => {
                for k in self.named_kids(n) {
                    self.ex(k, owner, d);
                }
                NO_EXPR
            }
        }
    }
}

fn is_expr_kind(k: &str) -> bool {
    matches!(
        k,
        "call"
            | "attribute"
            | "identifier"
            | "subscript"
            | "binary_operator"
            | "comparison_operator"
            | "boolean_operator"
            | "not_operator"
            | "unary_operator"
            | "conditional_expression"
            | "list"
            | "tuple"
            | "set"
            | "dictionary"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
            | "lambda"
            | "await"
            | "yield"
            | "parenthesized_expression"
            | "named_expression"
            | "expression_list"
    )
}

/// The dunder method an operator calls on its left operand.
fn dunder(op: &str) -> Option<&'static str> {
    Some(match op {
        "+" => "__add__",
        "-" => "__sub__",
        "*" => "__mul__",
        "/" => "__truediv__",
        "//" => "__floordiv__",
        "%" => "__mod__",
        "**" => "__pow__",
        "@" => "__matmul__",
        "&" => "__and__",
        "|" => "__or__",
        "^" => "__xor__",
        "<<" => "__lshift__",
        ">>" => "__rshift__",
        "==" => "__eq__",
        "!=" => "__ne__",
        "<" => "__lt__",
        "<=" => "__le__",
        ">" => "__gt__",
        ">=" => "__ge__",
        _ => return None,
    })
}

/// A chain of identifiers joined by attribute access: `a`, `a.b.c`. None for anything else.
fn chain(n: Node, src: &[u8]) -> Option<String> {
    fn go(n: Node, src: &[u8], out: &mut String, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match kind_of(n) {
            "identifier" => {
                out.push_str(&crate::extract::source_text(&src[n.start_byte()..n.end_byte()]));
                true
            }
            "attribute" => {
                let (Some(o), Some(a)) =
                    (n.child_by_field_id(fields().object), n.child_by_field_id(fields().attribute))
                else {
                    return false;
                };
                if !go(o, src, out, depth + 1) {
                    return false;
                }
                out.push('.');
                out.push_str(&crate::extract::source_text(&src[a.start_byte()..a.end_byte()]));
                true
            }
            _ => false,
        }
    }
    let mut s = String::new();
    go(n, src, &mut s, 0).then_some(s)
}

/// The module's `__all__` ([`FileFacts::all`]): its module-level statements, including those
/// under `if` / `try` (never inside definitions), in source order. Any other assignment to or
/// method call on `__all__` makes it unknown (None).
fn dunder_all(root: Node, src: &[u8]) -> Option<Vec<String>> {
    fn text<'s>(n: Node, src: &'s [u8]) -> &'s [u8] {
        &src[n.start_byte()..n.end_byte()]
    }
    /// A plain string literal's text (no escapes, prefixes other than `u` / `r`).
    fn lit(n: Node, src: &[u8]) -> Option<String> {
        if n.kind() != "string" {
            return None;
        }
        let t = text(n, src);
        let t = match t.first() {
            Some(b'u' | b'U' | b'r' | b'R') => &t[1..],
            _ => t,
        };
        let inner = [&b"\"\"\""[..], b"'''", b"\"", b"'"]
            .iter()
            .find_map(|q| t.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)))?;
        let s = crate::extract::source_text(inner);
        (!s.is_empty() && !s.contains(['\\', '"', '\'', '\n'])).then(|| s.to_string())
    }
    /// The strings a list expression holds; `cur` is `__all__` so far.
    fn value(n: Node, src: &[u8], cur: &Option<Vec<String>>, out: &mut Vec<String>) -> bool {
        match n.kind() {
            "list" | "tuple" | "expression_list" => {
                let mut c = n.walk();
                let items: Vec<Node> = n.named_children(&mut c).collect();
                items
                    .into_iter()
                    .all(|i| i.kind() == "comment" || lit(i, src).map(|s| out.push(s)).is_some())
            }
            "parenthesized_expression" => {
                n.named_child(0).is_some_and(|i| i.kind() != "string" && value(i, src, cur, out))
            }
            "binary_operator" => {
                let op = n.child_by_field_name("operator").map(|o| text(o, src));
                let (Some(l), Some(r)) =
                    (n.child_by_field_name("left"), n.child_by_field_name("right"))
                else {
                    return false;
                };
                op == Some(b"+") && value(l, src, cur, out) && value(r, src, cur, out)
            }
            "identifier" if text(n, src) == b"__all__" => match cur {
                Some(v) => {
                    out.extend(v.iter().cloned());
                    true
                }
                None => false,
            },
            "identifier" | "attribute" => {
                let t = crate::extract::source_text(text(n, src));
                let ok = is_dotted(&t) && (n.kind() == "identifier" || t.ends_with(".__all__"));
                if ok {
                    out.push(format!("*{t}"));
                }
                ok
            }
            _ => false,
        }
    }
    /// `cond`: under `if` / `try`, where an assignment adds an alternative to the list.
    fn block(n: Node, src: &[u8], cond: bool, all: &mut Option<Vec<String>>, unknown: &mut bool) {
        let mut c = n.walk();
        for st in n.named_children(&mut c) {
            match st.kind() {
                "if_statement" | "elif_clause" | "else_clause" | "try_statement"
                | "except_clause" | "finally_clause" | "block" => {
                    block(st, src, cond || st.kind() != "block", all, unknown)
                }
                "expression_statement" if text(st, src).starts_with(b"__all__") => {
                    let Some(e) = st.named_child(0) else { continue };
                    let mut v = Vec::new();
                    let left = e.child_by_field_name("left").map(|l| text(l, src));
                    let right = e.child_by_field_name("right");
                    let ok = match e.kind() {
                        "assignment" if left == Some(b"__all__") => match right {
                            Some(r) if cond => value(r, src, all, &mut v),
                            Some(r) => {
                                value(r, src, all, &mut v) && {
                                    *all = Some(std::mem::take(&mut v));
                                    true
                                }
                            }
                            None => true, // an annotation alone
                        },
                        "augmented_assignment" if left == Some(b"__all__") => {
                            let op = e.child_by_field_name("operator").map(|o| text(o, src));
                            op == Some(b"+=") && right.is_some_and(|r| value(r, src, all, &mut v))
                        }
                        "call" if text(e, src).starts_with(b"__all__.") => {
                            let f = e.child_by_field_name("function").map(|f| text(f, src));
                            let args = e.child_by_field_name("arguments");
                            let mut c = e.walk();
                            let args: Vec<Node> = args
                                .map(|a| a.named_children(&mut c).collect())
                                .unwrap_or_default();
                            match (f, &args[..]) {
                                (Some(b"__all__.extend"), [a]) => value(*a, src, all, &mut v),
                                (Some(b"__all__.append"), [a]) => {
                                    lit(*a, src).map(|s| v.push(s)).is_some()
                                }
                                _ => false,
                            }
                        }
                        _ => true, // `__all__x = ...`, `__all__[0]`, ...: not the list
                    };
                    if !ok {
                        *unknown = true;
                    } else if !v.is_empty() {
                        all.get_or_insert_default().append(&mut v);
                    }
                }
                _ => {}
            }
        }
    }
    let mut all = None;
    let mut unknown = false;
    block(root, src, false, &mut all, &mut unknown);
    if unknown { None } else { all }
}

/// `a.b.c` from a dotted_name node, without whitespace or comments inside it.
fn dotted_text(n: Node, src: &[u8]) -> String {
    let mut out = String::new();
    let mut cur = n.walk();
    for c in n.named_children(&mut cur) {
        if kind_of(c) == "identifier" {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&crate::extract::source_text(&src[c.start_byte()..c.end_byte()]));
        }
    }
    if out.is_empty() {
        out = crate::extract::source_text(&src[n.start_byte()..n.end_byte()]).into_owned();
    }
    out
}

fn is_dotted(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            let mut ch = p.chars();
            ch.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && ch.all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// End byte and 1-based end line of the last token of `n` that is not a comment.
fn last_token_end(mut n: Node) -> (usize, u32) {
    loop {
        let count = n.child_count();
        let mut next = None;
        for i in (0..count).rev() {
            if let Some(c) = n.child(i)
                && kind_of(c) != "comment"
                && c.end_byte() > c.start_byte()
            {
                next = Some(c);
                break;
            }
        }
        match next {
            Some(c) => n = c,
            None => break,
        }
    }
    let end = n.end_position();
    let line =
        if end.column == 0 && end.row > n.start_position().row { end.row } else { end.row + 1 };
    (n.end_byte(), line as u32)
}

/// Whether a `@py2` capture really is something Python 3 rejects.
fn py3_rejects(node: Node) -> bool {
    let mut cur = node.walk();
    let mut kinds = node.children(&mut cur).map(|c| kind_of(c));
    match kind_of(node) {
        // `print >>f, x` is a (useless) Python 3 expression.
        "print_statement" => !kinds.any(|k| k == "chevron"),
        "try_statement" => !kinds.any(|k| k == "except_clause" || k == "finally_clause"),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::{QueryCursor, StreamingIterator};

    /// The captures as tree-sitter's query cursor finds them (what [`captures`] replaces).
    fn query_captures<'t>(root: Node<'t>, src: &[u8]) -> Vec<(usize, usize, Item<'t>)> {
        let q = query();
        let names = q.capture_names();
        let mut cursor = QueryCursor::new();
        let mut items: Vec<(usize, usize, Item)> = Vec::new();
        let mut matches = cursor.matches(q, root, src);
        while let Some(m) = matches.next() {
            let mut main: Option<(&str, Node)> = None;
            let mut sub: HashMap<&str, Node> = HashMap::default();
            for c in m.captures() {
                let name = names[c.index as usize];
                match name {
                    "def.class" | "def.function" | "decorator" | "import" | "call" | "bind"
                    | "py2" => main = Some((name, c.node)),
                    _ => {
                        sub.insert(name, c.node);
                    }
                }
            }
            let Some((kind, node)) = main else { continue };
            let item = match kind {
                "def.class" | "def.function" => {
                    let Some(&name) = sub.get("def.name") else { continue };
                    Item::Def {
                        node,
                        kind: if kind == "def.class" { DefKind::Class } else { DefKind::Function },
                        name,
                        extra: DefNodes {
                            bases: sub.get("def.bases").copied(),
                            params: sub.get("def.params").copied(),
                            returns: sub.get("def.returns").copied(),
                            body: sub.get("def.body").copied(),
                        },
                    }
                }
                "decorator" => Item::Decorator(node),
                "import" => Item::Import(node),
                "call" => match sub.get("call.callee") {
                    Some(&callee) => Item::Call { callee, call: node },
                    None => continue,
                },
                "bind" => match sub.get("bind.left") {
                    Some(&left) => Item::Bind {
                        left,
                        ty: sub.get("bind.type").copied(),
                        right: sub.get("bind.right").copied(),
                    },
                    None => continue,
                },
                _ => Item::Py2(node),
            };
            items.push((node.start_byte(), node.end_byte(), item));
        }
        items.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        items
    }

    /// [`captures`] and the query cursor agree on `src`, and its [`Flat`] tree is the tree.
    fn check(parser: &mut Parser, what: &str, src: &[u8]) {
        let tree = parser.parse(src, None).expect("parses");
        let (mut flat, mut parents) = (Vec::new(), Vec::new());
        let walked = captures(tree.root_node(), src, &mut flat, &mut parents);
        for (start, end, item, at) in &walked {
            let f = flat[*at as usize];
            assert_eq!((f.start as usize, f.end as usize), (*start, *end), "{what}");
            let node = match item {
                Item::Def { node, .. } => *node,
                Item::Call { call, .. } => *call,
                _ => continue,
            };
            assert_eq!(f.kind, node.kind_id(), "{what}");
        }
        let walked: Vec<_> = walked.into_iter().map(|(a, b, i, _)| (a, b, i)).collect();
        let queried = query_captures(tree.root_node(), src);
        assert_eq!(walked, queried, "{what}");
        same_tree(tree.root_node(), 0, &flat, what);
        // Each node's parent is the node whose children it is among.
        assert_eq!(parents.len(), flat.len(), "{what}");
        assert_eq!(parents[0], NO_NODE, "{what}");
        for (p, f) in flat.iter().enumerate() {
            let mut c = f.first;
            while c != NO_NODE {
                assert_eq!(parents[c as usize], p as u32, "{what}");
                c = flat[c as usize].next;
            }
        }
    }

    /// The [`Flat`] subtree at `at` has `n`'s kinds, ranges, children and fields.
    fn same_tree(n: Node, at: u32, flat: &[Flat], what: &str) {
        let f = flat[at as usize];
        assert_eq!(
            (f.kind, f.named, f.start as usize, f.end as usize),
            (n.kind_id(), n.is_named(), n.start_byte(), n.end_byte()),
            "{what}"
        );
        let mut kids = Vec::new();
        let mut c = f.first;
        while c != NO_NODE {
            kids.push(c);
            c = flat[c as usize].next;
        }
        let children: Vec<Node> = n.children(&mut n.walk()).collect();
        assert_eq!(kids.len(), children.len(), "{what}");
        // Every field the extractor reads: the children in it, in order.
        let fs = fields();
        for field in [
            fs.alias,
            fs.arguments,
            fs.attribute,
            fs.body,
            fs.definition,
            fs.function,
            fs.key,
            fs.left,
            fs.name,
            fs.object,
            fs.operator,
            fs.parameters,
            fs.right,
            fs.subscript,
            fs.superclasses,
            fs.value,
            fs.r#type,
            fs.return_type,
            fs.module_name,
        ] {
            let by_flat: Vec<usize> =
                (0..kids.len()).filter(|&i| flat[kids[i] as usize].field == field).collect();
            let by_ts: Vec<Option<usize>> = (field != 0)
                .then(|| std::num::NonZeroU16::new(field))
                .flatten()
                .map(|f| {
                    n.children_by_field_id(f, &mut n.walk())
                        .map(|x| children.iter().position(|c| *c == x))
                        .collect()
                })
                .unwrap_or_default();
            let by_ts: Vec<usize> = by_ts.into_iter().map(|p| p.expect("a child")).collect();
            assert_eq!(by_flat, by_ts, "{what}");
            let first =
                n.child_by_field_id(field).and_then(|x| children.iter().position(|c| *c == x));
            assert_eq!(by_flat.first().copied(), first, "{what}");
        }
        for (k, child) in kids.iter().zip(children) {
            same_tree(child, *k, flat, what);
        }
    }

    fn py_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                py_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "py") {
                out.push(p);
            }
        }
    }

    #[test]
    fn walk_captures_what_the_query_does() {
        let mut parser = Parser::new();
        parser.set_language(&language()).unwrap();
        let snippets: &[&str] = &[
            "class A(B, metaclass=M):\n    x: int = 1\n    def f(self, a, (b, c)) -> 'A':\n        return a <> b\n",
            "@d\n@e.f(1)\nasync def g(*a, **k):\n    await h(lambda (x, y): x)\n",
            "print >>f, x\nprint x\nexec 'a'\ntry:\n    pass\nexcept E, e:\n    raise E, 'x'\n",
            "x = 0777 + 12L + 0_0 + 00 + 0x1f\ny = ur'a' + `b` + Ur'c' + u'd'\n",
            "def f():\n",
            "class C:\n",
            "async = 1\nawait = async\nfrom . import (a, b as c)\nfrom __future__ import x\nimport a.b as c, d\nfrom m import *\n",
            "a = b = c()\nself.x: T = y\n(a, b) = c\na[0] = f()\nf()()\nsuper().g().h()\n",
            "def f(:\n  x = = 1\nclass (A):\n  pass\nif x\n  g(\n",
            "def f(a, b=g(), *, c: int = h()) -> None: pass\nlambda: k()\n[m() for x in n()]\n",
            "\u{feff}x = 1\r\ny = 2\rz = f()\n",
            "try:\n    x\nfinally:\n    y\nwhile 1 <> 2: print(x)\n",
        ];
        for (i, s) in snippets.iter().enumerate() {
            check(&mut parser, &format!("snippet {i}"), s.as_bytes());
        }
        // Every Python file of the fixtures, and of CDS_PY_CAPTURES_DIR when set (a whole
        // project: `CDS_PY_CAPTURES_DIR=~/.cache/cds/bench/Django-4.2 cargo test ...`).
        let mut files = Vec::new();
        py_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"), &mut files);
        if let Some(d) = std::env::var_os("CDS_PY_CAPTURES_DIR") {
            py_files(std::path::Path::new(&d), &mut files);
        }
        assert!(!files.is_empty());
        for p in &files {
            let src = std::fs::read(p).unwrap();
            check(&mut parser, &p.display().to_string(), &src);
        }
    }
}
