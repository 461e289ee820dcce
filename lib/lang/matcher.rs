//! The facts queries (`queries/<lang>/facts.scm`), matched by one walk of the syntax tree
//! instead of tree-sitter's query cursor.
//!
//! Why: the cursor's per-node bookkeeping costs about three plain tree walks whatever the
//! patterns (a query of one pattern that never matches costs as much as the whole facts query),
//! and compiling a query analyses the grammar (30-40 ms per process for PHP and Ruby). A facts
//! query only needs the subset of the query language below, which this module compiles from the
//! same `.scm` text in microseconds and matches with a [`tree_sitter::TreeCursor`] walk, giving
//! the matches [`crate::extract::tree::captures`] gives for these patterns.
//!
//! Supported: node patterns `(kind ...)`, `(_)` (any named node), `_` (any node), anonymous
//! nodes `"="`, alternations `[...]`, fields `name: pattern`, negated fields `!body`, the
//! optional quantifier `?` (taken when it can match, as the cursor keeps the match with more
//! captures), anchors `.` (first or last named child, or adjacent named siblings), captures
//! `@name` (several on one node), and comments. Anything else (`*`, `+`, predicates, nested
//! groups) is refused when the patterns are compiled, which the frontends' unit tests do.
//!
//! Matches: every way the child steps map, in order, onto a subsequence of a node's children
//! (flattened through hidden nodes, as the cursor sees them), is a match.

use tree_sitter::{Language, Node, TreeCursor};

use crate::extract::tree::Captured;

/// A node kind a pattern step accepts.
#[derive(Debug, Clone)]
enum Kind {
    /// One symbol (the public symbol of a named or anonymous kind).
    Symbol(u16),
    /// `(_)`: any named node.
    AnyNamed,
    /// `_`: any node.
    Any,
}

/// A node pattern: its kind, the captures on it, its child steps.
#[derive(Debug, Clone)]
struct Pat {
    kind: Kind,
    captures: Vec<&'static str>,
    steps: Vec<Step>,
    /// Fields that must be absent (`!body`).
    negated: Vec<u16>,
    /// `.` after the last step: it matches the last named child.
    anchor_end: bool,
}

/// A child step of a node pattern.
#[derive(Debug, Clone)]
struct Step {
    field: Option<u16>,
    /// The alternatives (one unless written `[...]`).
    alts: Vec<Pat>,
    optional: bool,
    /// `.` before the step: the first named child, or the named sibling right after the
    /// previous step's node.
    anchored: bool,
}

/// Compiled facts patterns of one language.
pub struct Patterns {
    pats: Vec<Pat>,
    /// Pattern indices by the symbol of their root (`by_symbol[kind_id]`).
    by_symbol: Vec<Vec<usize>>,
    /// Patterns whose root is `(_)` or `_`.
    wild: Vec<usize>,
    /// `(_ (kind) @x)`: any named node with a child of a kind, found from the child (matching
    /// at every named node would read every node's children). Pattern indices by the child's
    /// symbol.
    by_child: Vec<Vec<usize>>,
}

/// A syntax error in a facts query (a build defect: the queries are part of the binary).
#[derive(Debug)]
pub struct PatternError(pub String);

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    OpenAlt,
    CloseAlt,
    Word(String),
    Str(String),
    Capture(String),
    Field(String),
    Negated(String),
    Question,
    Dot,
}

fn lex(src: &str) -> Result<Vec<Tok>, PatternError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word_end = |mut j: usize| {
        while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'-' | b'.')) {
            j += 1;
        }
        j
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            c if c.is_ascii_whitespace() => i += 1,
            b'(' => {
                out.push(Tok::Open);
                i += 1;
            }
            b')' => {
                out.push(Tok::Close);
                i += 1;
            }
            b'[' => {
                out.push(Tok::OpenAlt);
                i += 1;
            }
            b']' => {
                out.push(Tok::CloseAlt);
                i += 1;
            }
            b'?' => {
                out.push(Tok::Question);
                i += 1;
            }
            b'.' => {
                out.push(Tok::Dot);
                i += 1;
            }
            b'"' => {
                let mut s = String::new();
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        return Err(PatternError("escapes in strings are not supported".into()));
                    }
                    s.push(b[i] as char);
                    i += 1;
                }
                if i == b.len() {
                    return Err(PatternError("unterminated string".into()));
                }
                i += 1;
                out.push(Tok::Str(s));
            }
            b'@' => {
                let j = word_end(i + 1);
                out.push(Tok::Capture(src[i + 1..j].to_string()));
                i = j;
            }
            b'!' => {
                let j = word_end(i + 1);
                out.push(Tok::Negated(src[i + 1..j].to_string()));
                i = j;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                let mut j = i;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                let w = src[i..j].to_string();
                if j < b.len() && b[j] == b':' {
                    out.push(Tok::Field(w));
                    j += 1;
                } else {
                    out.push(Tok::Word(w));
                }
                i = j;
            }
            _ => {
                return Err(PatternError(format!("unsupported query syntax {:?}", c as char)));
            }
        }
    }
    Ok(out)
}

struct Compiler<'a> {
    toks: Vec<Tok>,
    at: usize,
    lang: &'a Language,
    names: &'a mut Vec<&'static str>,
}

impl Compiler<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn intern(&mut self, name: &str) -> &'static str {
        if let Some(n) = self.names.iter().find(|n| **n == name) {
            return n;
        }
        let n: &'static str = Box::leak(name.to_string().into_boxed_str());
        self.names.push(n);
        n
    }

    fn symbol(&self, name: &str, named: bool) -> Result<u16, PatternError> {
        match self.lang.id_for_node_kind(name, named) {
            0 if name != "end" => Err(PatternError(format!("unknown node kind {name:?}"))),
            id => Ok(id),
        }
    }

    fn field(&self, name: &str) -> Result<u16, PatternError> {
        self.lang
            .field_id_for_name(name)
            .map(|f| f.get())
            .ok_or_else(|| PatternError(format!("unknown field {name:?}")))
    }

    /// One pattern (a node, a string, `_` or an alternation) and the captures after it.
    fn alts(&mut self) -> Result<Vec<Pat>, PatternError> {
        let mut pats = match self.next() {
            Some(Tok::OpenAlt) => {
                let mut v = Vec::new();
                while self.peek() != Some(&Tok::CloseAlt) {
                    if self.peek().is_none() {
                        return Err(PatternError("unclosed [".into()));
                    }
                    v.extend(self.alts()?);
                }
                self.at += 1;
                v
            }
            Some(Tok::Open) => vec![self.node()?],
            Some(Tok::Str(s)) => vec![Pat {
                kind: Kind::Symbol(self.symbol(&s, false)?),
                captures: Vec::new(),
                steps: Vec::new(),
                negated: Vec::new(),
                anchor_end: false,
            }],
            Some(Tok::Word(w)) if w == "_" => vec![Pat {
                kind: Kind::Any,
                captures: Vec::new(),
                steps: Vec::new(),
                negated: Vec::new(),
                anchor_end: false,
            }],
            t => return Err(PatternError(format!("unexpected {t:?}"))),
        };
        self.captures(&mut pats);
        Ok(pats)
    }

    /// The captures written after a pattern (or its quantifier), onto each alternative.
    fn captures(&mut self, pats: &mut [Pat]) {
        while let Some(Tok::Capture(c)) = self.peek().cloned() {
            self.at += 1;
            let c = self.intern(&c);
            for p in pats.iter_mut() {
                p.captures.push(c);
            }
        }
    }

    /// A node pattern after its `(`.
    fn node(&mut self) -> Result<Pat, PatternError> {
        let kind = match self.next() {
            Some(Tok::Word(w)) if w == "_" => Kind::AnyNamed,
            Some(Tok::Word(w)) => Kind::Symbol(self.symbol(&w, true)?),
            t => return Err(PatternError(format!("expected a node kind, found {t:?}"))),
        };
        let mut pat = Pat {
            kind,
            captures: Vec::new(),
            steps: Vec::new(),
            negated: Vec::new(),
            anchor_end: false,
        };
        let mut anchored = false;
        loop {
            match self.peek().cloned() {
                Some(Tok::Close) => {
                    self.at += 1;
                    pat.anchor_end = anchored;
                    return Ok(pat);
                }
                Some(Tok::Dot) => {
                    self.at += 1;
                    anchored = true;
                }
                Some(Tok::Negated(f)) => {
                    self.at += 1;
                    pat.negated.push(self.field(&f)?);
                }
                Some(Tok::Field(f)) => {
                    self.at += 1;
                    let field = Some(self.field(&f)?);
                    let mut alts = self.alts()?;
                    let optional = self.optional();
                    self.captures(&mut alts);
                    pat.steps.push(Step { field, alts, optional, anchored });
                    anchored = false;
                }
                Some(_) => {
                    let mut alts = self.alts()?;
                    let optional = self.optional();
                    self.captures(&mut alts);
                    pat.steps.push(Step { field: None, alts, optional, anchored });
                    anchored = false;
                }
                None => return Err(PatternError("unclosed (".into())),
            }
        }
    }

    fn optional(&mut self) -> bool {
        if self.peek() == Some(&Tok::Question) {
            self.at += 1;
            return true;
        }
        false
    }
}

impl Patterns {
    /// Compiles the patterns of a facts query for `lang`.
    pub fn new(lang: &Language, source: &str) -> Result<Patterns, PatternError> {
        let mut names = Vec::new();
        let mut c = Compiler { toks: lex(source)?, at: 0, lang, names: &mut names };
        let mut pats = Vec::new();
        while c.peek().is_some() {
            pats.extend(c.alts()?);
        }
        let mut by_symbol = vec![Vec::new(); lang.node_kind_count() + 1];
        let mut by_child = vec![Vec::new(); lang.node_kind_count() + 1];
        let mut wild = Vec::new();
        for (i, p) in pats.iter().enumerate() {
            match (&p.kind, child_kinds(p)) {
                (Kind::Symbol(s), _) => by_symbol[*s as usize].push(i),
                (Kind::AnyNamed, Some(kinds)) => {
                    for k in kinds {
                        if !by_child[k as usize].contains(&i) {
                            by_child[k as usize].push(i);
                        }
                    }
                }
                (Kind::AnyNamed | Kind::Any, _) => wild.push(i),
            }
        }
        Ok(Patterns { pats, by_symbol, wild, by_child })
    }

    /// The matches in the tree under `root`, as [`crate::extract::tree::captures`] returns
    /// them: one per match with a main capture (`is_main`), in document order, an enclosing
    /// node before the nodes it contains.
    pub fn captures<'t>(
        &self,
        root: Node<'t>,
        is_main: impl Fn(&str) -> bool,
    ) -> Vec<Captured<'t>> {
        let mut out: Vec<Captured<'t>> = Vec::new();
        self.each_match(root, &mut |caps, at, around| {
            let mut main = None;
            let mut sub = Vec::new();
            for &(name, n) in caps {
                if is_main(name) {
                    main = Some((name, n));
                } else {
                    sub.push((name, n));
                }
            }
            if let Some((kind, node)) = main {
                let around = around.filter(|_| node.id() == at.id());
                out.push(Captured { kind, node, sub, around });
            }
        });
        out.sort_by(|a, b| {
            a.node
                .start_byte()
                .cmp(&b.node.start_byte())
                .then(b.node.end_byte().cmp(&a.node.end_byte()))
        });
        out
    }

    /// Calls `found` with the captures of every match under `root`, node by node in document
    /// order (a node's matches in the order of their patterns in the query).
    fn each_match<'t>(&self, root: Node<'t>, found: &mut Matched<'_, 't>) {
        let mut walk = root.walk();
        let mut m = Matching { scratch: root.walk(), caps: Vec::new(), pool: Vec::new() };
        // The parent and previous sibling of each node on the way down (known below the tree's
        // root: a walk from another node does not know that node's).
        let known = root.parent().is_none();
        let mut around: Vec<Around<'t>> = vec![(None, None)];
        loop {
            let node = walk.node();
            let here = around.last().copied().filter(|_| known);
            // `(_ (kind) @x)` patterns, from the child: their match is at its (named) parent.
            for &i in self.by_child.get(node.kind_id() as usize).map_or(&[][..], |v| &v[..]) {
                let p = &self.pats[i];
                let parent = match here {
                    Some((p, _)) => p,
                    None => node.parent(),
                };
                let Some(parent) = parent.filter(|q| q.is_named()) else { continue };
                m.caps.clear();
                m.caps.extend(p.captures.iter().map(|&c| (c, parent)));
                for alt in p.steps[0].alts.iter().filter(|a| kind_matches(&a.kind, node)) {
                    let base = m.caps.len();
                    m.caps.extend(alt.captures.iter().map(|&c| (c, node)));
                    let up =
                        if known { around.len().checked_sub(2).map(|k| around[k]) } else { None };
                    found(&m.caps, parent, up);
                    m.caps.truncate(base);
                }
            }
            let direct = self.by_symbol.get(node.kind_id() as usize).map_or(&[][..], |v| &v[..]);
            // The node's patterns in query order.
            let (mut a, mut b) = (0, 0);
            loop {
                let i = match (direct.get(a), self.wild.get(b)) {
                    (Some(&x), Some(&y)) if x < y => {
                        a += 1;
                        x
                    }
                    (Some(&x), None) => {
                        a += 1;
                        x
                    }
                    (_, Some(&y)) => {
                        b += 1;
                        y
                    }
                    (None, None) => break,
                };
                let p = &self.pats[i];
                if kind_matches(&p.kind, node) {
                    m.caps.clear();
                    m.node(p, node, &mut |caps| found(caps, node, here));
                }
            }
            if walk.goto_first_child() {
                around.push((Some(node), None));
                continue;
            }
            loop {
                let left = walk.node();
                if walk.goto_next_sibling() {
                    if let Some(a) = around.last_mut() {
                        a.1 = Some(left);
                    }
                    break;
                }
                if !walk.goto_parent() {
                    return;
                }
                around.pop();
            }
        }
    }
}

/// A node's parent and previous sibling.
type Around<'t> = (Option<Node<'t>>, Option<Node<'t>>);

/// What receives a match at a node: its captures, the node, and the node's parent and previous
/// sibling when known.
type Matched<'f, 't> = dyn FnMut(&[(&'static str, Node<'t>)], Node<'t>, Option<Around<'t>>) + 'f;

/// What receives a match: its captures, in order.
type Found<'f, 't> = dyn FnMut(&[(&'static str, Node<'t>)]) + 'f;

/// A node's children with their fields.
type Kids<'t> = Vec<(Node<'t>, Option<u16>)>;

/// The state of matching: a cursor for reading children, the captures so far, and spare
/// child lists.
struct Matching<'t> {
    scratch: TreeCursor<'t>,
    caps: Vec<(&'static str, Node<'t>)>,
    pool: Vec<Kids<'t>>,
}

impl<'t> Matching<'t> {
    /// Matches pattern `p` (whose kind matches) at `node`, calling `found` with the captures
    /// of every match; the captures so far are restored on return.
    fn node(&mut self, p: &Pat, node: Node<'t>, found: &mut Found<'_, 't>) {
        let base = self.caps.len();
        for &c in &p.captures {
            self.caps.push((c, node));
        }
        if p.steps.is_empty() && p.negated.is_empty() {
            found(&self.caps);
            self.caps.truncate(base);
            return;
        }
        let mut kids = self.pool.pop().unwrap_or_default();
        kids.clear();
        self.scratch.reset(node);
        if self.scratch.goto_first_child() {
            loop {
                kids.push((self.scratch.node(), self.scratch.field_id().map(|f| f.get())));
                if !self.scratch.goto_next_sibling() {
                    break;
                }
            }
        }
        if !p.negated.iter().any(|f| kids.iter().any(|(_, k)| *k == Some(*f))) {
            self.steps(p, 0, &kids, 0, None, found);
        }
        self.pool.push(kids);
        self.caps.truncate(base);
    }

    /// Matches steps `s..` of `p` against children `from..` (`prev`: the child the previous
    /// step took). Returns the number of matches found.
    fn steps(
        &mut self,
        p: &Pat,
        s: usize,
        kids: &[(Node<'t>, Option<u16>)],
        from: usize,
        prev: Option<usize>,
        found: &mut Found<'_, 't>,
    ) -> usize {
        let Some(step) = p.steps.get(s) else {
            if p.anchor_end
                && let Some(last) = prev
                && kids[last + 1..].iter().any(|(k, _)| k.is_named())
            {
                return 0;
            }
            found(&self.caps);
            return 1;
        };
        let mut count = 0;
        for j in from..kids.len() {
            let (kid, field) = kids[j];
            if step.anchored {
                // Only anonymous nodes may come between: the first named child, or the named
                // sibling right after the previous step's node.
                let start = prev.map_or(0, |q| q + 1);
                if kids[start..j].iter().any(|(k, _)| k.is_named()) {
                    break;
                }
            }
            if step.field.is_some() && field != step.field {
                continue;
            }
            for alt in &step.alts {
                if !kind_matches(&alt.kind, kid) {
                    continue;
                }
                if alt.steps.is_empty() && alt.negated.is_empty() {
                    let base = self.caps.len();
                    for &c in &alt.captures {
                        self.caps.push((c, kid));
                    }
                    count += self.steps(p, s + 1, kids, j + 1, Some(j), found);
                    self.caps.truncate(base);
                } else {
                    // A nested pattern: each of its matches continues with the next step.
                    let mut inner: Vec<Vec<(&'static str, Node<'t>)>> = Vec::new();
                    self.node(alt, kid, &mut |c| inner.push(c.to_vec()));
                    let saved = std::mem::take(&mut self.caps);
                    for c in inner {
                        self.caps = c;
                        count += self.steps(p, s + 1, kids, j + 1, Some(j), found);
                    }
                    self.caps = saved;
                }
            }
        }
        // An optional step is left out only when taking it matches nothing (the cursor keeps
        // the match with more captures).
        if step.optional && count == 0 {
            count += self.steps(p, s + 1, kids, from, prev, found);
        }
        count
    }
}

/// The child kinds of a pattern `(_ (kind) @x)` or `(_ [(a) (b)] @x)`: a named root with
/// nothing but captures and one plain child step of plain kinds. None for other patterns.
fn child_kinds(p: &Pat) -> Option<Vec<u16>> {
    let [step] = &p.steps[..] else { return None };
    if !matches!(p.kind, Kind::AnyNamed)
        || !p.negated.is_empty()
        || p.anchor_end
        || step.field.is_some()
        || step.optional
        || step.anchored
    {
        return None;
    }
    step.alts
        .iter()
        .map(|a| match a.kind {
            Kind::Symbol(s) if a.steps.is_empty() && a.negated.is_empty() => Some(s),
            _ => None,
        })
        .collect()
}

fn kind_matches(k: &Kind, n: Node) -> bool {
    match k {
        Kind::Symbol(s) => n.kind_id() == *s,
        Kind::AnyNamed => n.is_named(),
        Kind::Any => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};

    /// A match as a sorted list of (capture, kind, start, end).
    type Canon = Vec<(String, String, usize, usize)>;

    fn canon(caps: &[(&str, Node)]) -> Canon {
        let mut v: Canon = caps
            .iter()
            .map(|(c, n)| (c.to_string(), n.kind().to_string(), n.start_byte(), n.end_byte()))
            .collect();
        v.sort();
        v
    }

    /// Every match of the facts query, by tree-sitter's cursor and by [`Patterns`], as sorted
    /// lists: they must be the same.
    fn same_matches(lang: &Language, query: &str, src: &[u8], what: &str) {
        let mut parser = Parser::new();
        parser.set_language(lang).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let q = Query::new(lang, query).unwrap();
        let names = q.capture_names();
        let mut cursor = QueryCursor::new();
        let mut want: Vec<Canon> = Vec::new();
        let mut it = cursor.matches(&q, tree.root_node(), src);
        while let Some(m) = it.next() {
            let caps: Vec<(&str, Node)> =
                m.captures().iter().map(|c| (names[c.index as usize], c.node)).collect();
            want.push(canon(&caps));
        }
        let pats = Patterns::new(lang, query).unwrap();
        let mut got: Vec<Canon> = Vec::new();
        pats.each_match(tree.root_node(), &mut |caps, _, _| got.push(canon(caps)));
        want.sort();
        got.sort();
        assert_eq!(got.len(), want.len(), "{what}: number of matches");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{what}");
        }
    }

    /// The parent and previous sibling the walk gives a match's main node are tree-sitter's.
    fn same_around(lang: &Language, query: &str, src: &[u8]) {
        let mut parser = Parser::new();
        parser.set_language(lang).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let pats = Patterns::new(lang, query).unwrap();
        for c in pats.captures(tree.root_node(), |_| true) {
            if let Some((parent, prev)) = c.around {
                assert_eq!(parent, c.node.parent());
                assert_eq!(prev, c.node.prev_sibling());
            }
        }
    }

    /// The fixture files of a language and a few broken snippets.
    fn check(lang: Language, query: &str, ext: &[&str], snippets: &[&str]) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut stack = vec![dir];
        let mut n = 0;
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| ext.iter().any(|e| x == *e)) {
                    let src = std::fs::read(&p).unwrap();
                    same_matches(&lang, query, &src, &p.display().to_string());
                    same_around(&lang, query, &src);
                    n += 1;
                }
            }
        }
        assert!(n > 0, "fixtures of {ext:?}");
        for s in snippets {
            same_matches(&lang, query, s.as_bytes(), s);
            same_around(&lang, query, s.as_bytes());
        }
    }

    #[test]
    fn go_matches_the_query_cursor() {
        check(
            crate::lang::go::language(),
            crate::lang::go::FACTS_QUERY,
            &["go"],
            &["package p\nfunc f() int { x := g(); return x }\nfunc (r *T) m() {", "func ("],
        );
    }

    #[test]
    fn java_matches_the_query_cursor() {
        check(
            crate::lang::java::language(),
            crate::lang::java::FACTS_QUERY,
            &["java"],
            &[
                "class A { void f(int... xs) { if (o instanceof B b) {} } <T extends C & D> void g() {} }",
                "class A { void f() { x = new B() { void g() {} }; ",
            ],
        );
    }

    #[test]
    fn php_matches_the_query_cursor() {
        check(
            crate::lang::php::language(),
            crate::lang::php::FACTS_QUERY,
            &["php"],
            &[
                "<?php namespace A; use B\\C; class D extends C { function f() { $x = new C; $x->g(); if ($y instanceof C) {} ",
                "<?php ?> html <?php function",
            ],
        );
    }

    #[test]
    fn ruby_matches_the_query_cursor() {
        check(
            crate::lang::ruby::language(),
            crate::lang::ruby::FACTS_QUERY,
            &["rb"],
            &[
                "class A < B\n  def self.f(x) = x + y\n  class << self\n def g; @a ||= C.new; end\nend",
                "def (",
            ],
        );
    }

    #[test]
    fn rust_matches_the_query_cursor() {
        check(
            crate::lang::rust::language(),
            crate::lang::rust::FACTS_QUERY,
            &["rs"],
            &["mod a; mod b { fn f(x: T) { let y: U = g(x); m!(z); } } impl T for U {", "fn ("],
        );
    }

    #[test]
    fn unsupported_syntax_is_refused() {
        let go = crate::lang::go::language();
        assert!(Patterns::new(&go, "(call_expression)* @x").is_err());
        assert!(Patterns::new(&go, "((identifier) @x (#eq? @x \"y\"))").is_err());
        assert!(Patterns::new(&go, "(no_such_kind) @x").is_err());
        assert!(Patterns::new(&go, "(call_expression nofield: (_) @x)").is_err());
    }
}
