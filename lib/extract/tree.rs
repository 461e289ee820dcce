//! What every frontend does with a syntax tree, whatever its language: run a facts query and
//! sort its captures in document order, nest definitions by byte range, find the doc comment
//! before a definition, count lines and syntax errors; and parse a file again from its
//! previous tree ([`reparsing`]).

use std::cell::RefCell;

use tree_sitter::{InputEdit, Node, Parser, Point, Query, QueryCursor, StreamingIterator, Tree};

use crate::extract::{DefIdx, FileFacts};

/// One match of a facts query: its main capture (`def.class`, `import`, `call`: the caller
/// says which names are main) and the sub-captures that qualify it (`def.name`, `call.callee`).
pub struct Captured<'t> {
    /// The main capture's name (`def.class`, `import`, `call`, ...).
    pub kind: &'static str,
    /// The main capture's node.
    pub node: Node<'t>,
    /// Sub-captures by name (`def.name`, `call.callee`, ...), in match order.
    pub sub: Vec<(&'static str, Node<'t>)>,
    /// The main node's parent and previous sibling, when the walk that found it knows them
    /// (tree-sitter finds them by a search from the root).
    pub around: Option<(Option<Node<'t>>, Option<Node<'t>>)>,
}

impl<'t> Captured<'t> {
    /// The main node's parent.
    pub fn parent(&self) -> Option<Node<'t>> {
        self.around.map_or_else(|| self.node.parent(), |a| a.0)
    }

    /// The main node's doc comment ([`doc_before`]).
    pub fn doc(&self, src: &[u8], is_doc: impl Fn(&[u8]) -> bool) -> Option<(u32, u32)> {
        match self.around {
            Some((_, prev)) => doc_after(self.node, prev, src, is_doc),
            None => doc_before(self.node, src, is_doc),
        }
    }

    /// A sub-capture (the last of that name).
    pub fn get(&self, name: &str) -> Option<Node<'t>> {
        self.sub.iter().rev().find(|(n, _)| *n == name).map(|&(_, n)| n)
    }
}

/// Runs `query` over `root` and returns its matches in document order, an enclosing node before
/// the nodes it contains. `is_main` tells the main capture names from sub-captures.
pub fn captures<'t>(
    query: &'static Query,
    cursor: &mut QueryCursor,
    root: Node<'t>,
    src: &[u8],
    is_main: impl Fn(&str) -> bool,
) -> Vec<Captured<'t>> {
    let names: &'static [&'static str] = query.capture_names();
    let mut out: Vec<Captured<'t>> = Vec::new();
    let mut matches = cursor.matches(query, root, src);
    while let Some(m) = matches.next() {
        let mut main: Option<(&'static str, Node<'t>)> = None;
        let mut sub = Vec::new();
        for c in m.captures() {
            let name = names[c.index as usize];
            if is_main(name) {
                main = Some((name, c.node));
            } else {
                sub.push((name, c.node));
            }
        }
        if let Some((kind, node)) = main {
            out.push(Captured { kind, node, sub, around: None });
        }
    }
    out.sort_by(|a, b| {
        a.node
            .start_byte()
            .cmp(&b.node.start_byte())
            .then(b.node.end_byte().cmp(&a.node.end_byte()))
    });
    out
}

/// Parses `src`, or None when the parser gives up (it only does on cancellation or a missing
/// language, both defects, so callers count the file as one syntax error). Within
/// [`reparsing`], the first parse starts from the file's previous tree.
pub fn parse(parser: &mut Parser, src: &[u8]) -> Option<Tree> {
    let letters = letters_for_bytes_not_utf8(src);
    let src = letters.as_deref().unwrap_or(src);
    let armed = REPARSE.with(|r| match &mut *r.borrow_mut() {
        Reparse::Armed(before) => Some(before.take()),
        _ => None,
    });
    let Some(before) = armed else { return parser.parse(src, None) };
    let tree = reparse(parser, src, before);
    if let Some(t) = &tree {
        let parsed = ParsedBefore { src: src.to_vec(), tree: t.clone() };
        REPARSE.with(|r| *r.borrow_mut() = Reparse::Done(parsed));
    }
    tree
}

/// `src` with each byte that is not part of UTF-8 replaced by a letter (`K` for the Latin-1
/// capitals, `k` for the others), or None when it is UTF-8. tree-sitter reads such a byte as
/// an error, which ends an identifier (`def r\xe9sum\xe9(` parsed as `r`, an error, `sum`);
/// a language that declares the file Latin-1 (Python's `coding:` line), PHP, and the
/// compilers of old code read it as a letter. Same length, so every offset and line holds,
/// and names are cut from the file's own bytes ([`text`]).
fn letters_for_bytes_not_utf8(src: &[u8]) -> Option<Vec<u8>> {
    std::str::from_utf8(src).err()?;
    let mut out = Vec::with_capacity(src.len());
    for chunk in src.utf8_chunks() {
        out.extend_from_slice(chunk.valid().as_bytes());
        out.extend(
            chunk.invalid().iter().map(|&b| if char::from(b).is_uppercase() { b'K' } else { b'k' }),
        );
    }
    Some(out)
}

/// A file's last parse: the bytes parsed and their tree, for [`reparsing`] it after an edit.
pub struct ParsedBefore {
    src: Vec<u8>,
    tree: Tree,
}

/// The state of [`reparsing`] on this thread.
enum Reparse {
    Off,
    /// The first parse is still to come (with the previous parse, if there is one).
    Armed(Option<ParsedBefore>),
    /// It came.
    Done(ParsedBefore),
}

thread_local! {
    static REPARSE: RefCell<Reparse> = const { RefCell::new(Reparse::Off) };
}

/// Runs `extract`, one file's extraction, whose first [`parse`] reuses `before`, the file's
/// previous parse: the tree is edited where the bytes differ and parsed again from it, which
/// costs a fraction of a parse from scratch for a small edit (tree-sitter reuses the subtrees
/// the edit did not touch). Returns the extraction and the new parse, to pass next time.
pub fn reparsing<T>(
    before: Option<ParsedBefore>,
    extract: impl FnOnce() -> T,
) -> (T, Option<ParsedBefore>) {
    REPARSE.with(|r| *r.borrow_mut() = Reparse::Armed(before));
    let out = extract();
    let parsed = REPARSE.with(|r| match std::mem::replace(&mut *r.borrow_mut(), Reparse::Off) {
        Reparse::Done(p) => Some(p),
        _ => None,
    });
    (out, parsed)
}

/// `src` parsed from `before` when it is a tree of the parser's language: the same tree as a
/// parse from scratch (which is done instead when the result has a syntax error, where
/// tree-sitter's error recovery may take another path from a different start).
fn reparse(parser: &mut Parser, src: &[u8], before: Option<ParsedBefore>) -> Option<Tree> {
    let same_language =
        |b: &ParsedBefore| parser.language().is_some_and(|l| *l == *b.tree.language());
    let Some(mut before) = before.filter(same_language) else { return parser.parse(src, None) };
    before.tree.edit(&edit_between(&before.src, src));
    match parser.parse(src, Some(&before.tree)) {
        Some(t) if !t.root_node().has_error() => Some(t),
        _ => parser.parse(src, None),
    }
}

/// The edit that turns `old` into `new`: the bytes between their common prefix and suffix
/// replaced.
fn edit_between(old: &[u8], new: &[u8]) -> InputEdit {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix =
        old.iter().rev().zip(new.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
    let point = |s: &[u8], at: usize| {
        let s = &s[..at];
        let row = s.iter().filter(|&&b| b == b'\n').count();
        let column = s.iter().rev().take_while(|&&b| b != b'\n').count();
        Point::new(row, column)
    };
    InputEdit {
        start_byte: prefix,
        old_end_byte: old.len() - suffix,
        new_end_byte: new.len() - suffix,
        start_position: point(old, prefix),
        old_end_position: point(old, old.len() - suffix),
        new_end_position: point(new, new.len() - suffix),
    }
}

/// The enclosing definitions while walking captures in document order.
#[derive(Default)]
pub struct Nest {
    /// (definition, end byte), innermost last.
    stack: Vec<(DefIdx, usize)>,
}

impl Nest {
    /// The innermost definition containing byte `start` (pops those that ended before it).
    pub fn owner_at(&mut self, start: usize) -> Option<DefIdx> {
        while let Some(&(_, end)) = self.stack.last() {
            if end <= start {
                self.stack.pop();
            } else {
                break;
            }
        }
        self.stack.last().map(|&(i, _)| i)
    }

    /// Enters definition `i`, which ends at byte `end`.
    pub fn push(&mut self, i: DefIdx, end: usize) {
        self.stack.push((i, end));
    }
}

/// Whether `n` has a direct child (named or not) of this kind: a keyword such as `static`,
/// `async` or `default`.
pub fn has_child_kind(n: Node, kind: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c).any(|k| k.kind() == kind)
}

/// The text of a node (a byte that is not UTF-8 as its Latin-1 character: see
/// [`super::source_text`]).
pub fn text(n: Node, src: &[u8]) -> String {
    super::source_text(&src[n.start_byte()..n.end_byte()]).into_owned()
}

/// The doc comment directly before `node`: the run of comment siblings that `is_doc` accepts,
/// each on the line right above the next, ending on the line above `node` (or on its line).
/// Returns its byte range.
pub fn doc_before(node: Node, src: &[u8], is_doc: impl Fn(&[u8]) -> bool) -> Option<(u32, u32)> {
    doc_after(node, node.prev_sibling(), src, is_doc)
}

/// [`doc_before`] for a node whose previous sibling `prev` the caller knows (tree-sitter finds
/// a sibling by a search from the root).
pub fn doc_after(
    node: Node,
    prev: Option<Node>,
    src: &[u8],
    is_doc: impl Fn(&[u8]) -> bool,
) -> Option<(u32, u32)> {
    let mut first: Option<Node> = None;
    let mut next_row = node.start_position().row;
    let mut cur = prev;
    while let Some(c) = cur {
        if !c.kind().contains("comment") {
            break;
        }
        let t = &src[c.start_byte()..c.end_byte()];
        // A comment may end on the row above, or on the same row (`/** x */ fn f`).
        if c.end_position().row + 1 < next_row || !is_doc(t) {
            break;
        }
        first = Some(c);
        next_row = c.start_position().row;
        cur = c.prev_sibling();
    }
    let first = first?;
    // The run ends with the sibling right before `node`.
    let last_end = prev.map_or(first.end_byte(), |p| p.end_byte());
    Some((first.start_byte() as u32, last_end as u32))
}

/// The end of a definition's signature: the byte before its body (`{`), with the whitespace
/// before the body left out; the definition's end when it has no body.
pub fn sig_end(def: Node, body: Option<Node>, src: &[u8]) -> u32 {
    let Some(b) = body else { return def.end_byte() as u32 };
    let mut end = b.start_byte();
    while end > def.start_byte() && src[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end as u32
}

/// The 1-based line of byte `at`, at or before `node`'s start (a doc comment's): counted back
/// from the node's line, not from the top of the file (quadratic in a file's definitions).
pub fn line_back(node: Node, src: &[u8], at: usize) -> u32 {
    let start = node.start_byte().min(src.len());
    let at = at.min(start);
    node.start_position().row as u32 + 1
        - bstr::ByteSlice::find_iter(&src[at..start], b"\n").count() as u32
}

/// `src` with every lone `\r` (a classic Mac line ending, or a stray one) turned into `\n`,
/// or None when it has none (`\r\n` is left alone). A lone `\r` ends a line for Python
/// (universal newlines), C and C++, JavaScript, Java and PHP, and in every editor, while the
/// grammars end lines (and `//` or `#` comments) at `\n` only: a file of `\r`s was one line
/// whose first comment swallowed every definition. Same length, so byte offsets hold; the
/// line numbers then agree with `cds-get`'s lines (`index::read::line_starts`).
pub fn unify_newlines(src: &[u8]) -> Option<Vec<u8>> {
    use bstr::ByteSlice;
    let lone = |i: usize| src.get(i + 1) != Some(&b'\n');
    let first = src.find_iter(b"\r").find(|&i| lone(i))?;
    let mut out = src.to_vec();
    for i in first..src.len() {
        if src[i] == b'\r' && lone(i) {
            out[i] = b'\n';
        }
    }
    Some(out)
}

/// Number of lines in the file (a final newline ends the last line, it does not start one).
pub fn count_lines(src: &[u8]) -> u32 {
    let n = bstr::ByteSlice::find_iter(src, b"\n").count() as u32;
    if src.is_empty() || src.ends_with(b"\n") { n } else { n + 1 }
}

/// Syntax error nodes (ERROR and MISSING, nested ones included) and the line of the first.
pub fn count_errors(root: Node) -> (u32, u32) {
    let mut count = 0;
    let mut first = 0;
    let mut cur = root.walk();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if !n.has_error() {
            continue;
        }
        if n.is_error() || n.is_missing() {
            count += 1;
            let line = n.start_position().row as u32 + 1;
            if first == 0 || line < first {
                first = line;
            }
        }
        stack.extend(n.children(&mut cur));
    }
    (count, first)
}

/// Average line length above which a file counts as minified or generated.
pub const GENERATED_LINE_BYTES: usize = 250;

/// Facts with the counts every frontend records before reading definitions: lines, syntax
/// errors (a recovered parse still yields its definitions), and whether it looks generated.
pub fn base_facts(src: &[u8], root: Option<Node>) -> FileFacts {
    let lines = count_lines(src);
    let generated = src.len() > 4096 && src.len() / (lines.max(1) as usize) > GENERATED_LINE_BYTES;
    let mut facts = FileFacts { lines, generated, ..FileFacts::default() };
    match root {
        None => {
            facts.syntax_errors = 1;
            facts.first_error_line = 1;
        }
        Some(r) if r.has_error() => {
            let (count, first) = count_errors(r);
            facts.syntax_errors = count.max(1);
            facts.first_error_line = first.max(1);
        }
        Some(_) => {}
    }
    facts
}

/// A loaded parser for a grammar the crate links (its ABI is covered by each frontend's tests).
/// What a query-driven frontend keeps per thread (tree-sitter parsers are not `Sync`): a parser
/// loaded with its grammar, and the cursor that runs its facts query.
pub struct Parsing {
    /// The parser.
    pub parser: Parser,
    /// The facts query's cursor.
    pub cursor: tree_sitter::QueryCursor,
}

impl Parsing {
    /// A parser for `language` and a fresh cursor.
    pub fn new(language: &tree_sitter::Language) -> Parsing {
        Parsing { parser: parser_for(language), cursor: tree_sitter::QueryCursor::new() }
    }
}

/// A frontend's facts query `source` (the file `path`), compiled once per process into `cell`
/// (`Query` is `Sync`). Queries are part of the binary and compiled by unit tests: failing here
/// is a build defect.
pub fn compiled(
    cell: &'static std::sync::OnceLock<tree_sitter::Query>,
    language: tree_sitter::Language,
    source: &str,
    path: &str,
) -> &'static tree_sitter::Query {
    cell.get_or_init(|| {
        tree_sitter::Query::new(&language, source)
            .unwrap_or_else(|e| panic!("{path} does not compile: {e}"))
    })
}

/// A frontend's facts patterns `source` (the file `path`), compiled once per process into
/// `cell` and matched by [`crate::lang::matcher`]. The queries are part of the binary and
/// compiled by unit tests: failing here is a build defect.
pub fn patterns(
    cell: &'static std::sync::OnceLock<crate::lang::matcher::Patterns>,
    language: tree_sitter::Language,
    source: &str,
    path: &str,
) -> &'static crate::lang::matcher::Patterns {
    cell.get_or_init(|| {
        crate::lang::matcher::Patterns::new(&language, source)
            .unwrap_or_else(|e| panic!("{path} does not compile: {e}"))
    })
}

/// A node's child by field name, with the field's id looked up once per name and thread rather
/// than per call (tree-sitter finds an id by comparing the name with each of the grammar's field
/// names).
pub trait Field<'t> {
    /// The child in field `name` (what [`Node::child_by_field_name`] gives).
    fn field(&self, name: &'static str) -> Option<Node<'t>>;
}

impl<'t> Field<'t> for Node<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>> {
        thread_local! {
            static IDS: std::cell::RefCell<fxhash::FxHashMap<(usize, usize), u16>> =
                std::cell::RefCell::default();
        }
        let lang = self.language();
        let key = (name.as_ptr() as usize, name.len());
        let cached = IDS.with(|m| m.borrow().get(&key).copied());
        // The cached id holds when it names the field in this node's grammar (frontends share
        // names across grammars: JS and TypeScript, C and C++).
        let id = match cached {
            Some(id) if lang.field_name_for_id(id) == Some(name) => id,
            _ => {
                let id = lang.field_id_for_name(name)?.get();
                IDS.with(|m| m.borrow_mut().insert(key, id));
                id
            }
        };
        self.child_by_field_id(id)
    }
}

/// Routes tree-sitter's own allocations (parse stacks, subtrees, trees) through mimalloc, and
/// keeps mimalloc off transparent huge pages: a parse makes and frees millions of small blocks,
/// and glibc's malloc and free were about a tenth of a build's CPU time (perf); mimalloc cuts a
/// build's CPU time by about 5% (Django, Doctrine, googletest). `cds-build` also makes mimalloc its global
/// allocator (bins/cds-build.rs): a rebuild after an edit makes and drops every file's name
/// tables, where glibc's malloc and free were a sixth of the time (a one-file edit of three.js
/// 110 -> 89 ms, medians of 15 interleaved edits), at a cost in peak RSS (Django cold 254 ->
/// 302 MiB, JDK `java.util` 52 -> 62 MiB).
///
/// Tree-sitter requires this before any other tree-sitter call, and once: `cds-build`'s `main`
/// calls it first thing. Only `cds-build`: linked into a query tool, mimalloc's start-up cost
/// 0.1 ms of a 0.7 ms `cds-get`. Code that never calls it (the query tools, unit tests, the
/// library used directly) keeps libc's allocator throughout, which is just as consistent.
pub fn use_fast_allocator() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mi = tree_sitter::Allocator {
            malloc: libmimalloc_sys::mi_malloc,
            calloc: libmimalloc_sys::mi_calloc,
            realloc: libmimalloc_sys::mi_realloc,
            free: libmimalloc_sys::mi_free,
        };
        // SAFETY: the four functions are one allocator family, never return null for a
        // non-zero size (mimalloc aborts instead), align as malloc does, and this runs once,
        // before any tree-sitter object exists (see above).
        unsafe { tree_sitter::set_allocator(Some(mi)) };
        // No transparent huge pages, which mimalloc asks for: zeroing 2 MiB pages doubled the
        // system time of builds and the peak RSS of small ones (JDK `java.util`: 121 MiB
        // against 58; Django 0.77 s of system time against 0.36). Child processes (git)
        // inherit the setting, which costs them nothing.
        // SAFETY: prctl with an integer option and no pointers; it fails harmlessly where
        // unsupported.
        #[cfg(target_os = "linux")]
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0)
        };
    });
}

/// A parser loaded with `language`.
pub fn parser_for(language: &tree_sitter::Language) -> Parser {
    let mut p = Parser::new();
    p.set_language(language).expect("grammar ABI is supported by the linked tree-sitter");
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Extractors, Lang};

    #[test]
    fn bytes_not_utf8_are_parsed_as_letters_in_place() {
        assert_eq!(letters_for_bytes_not_utf8("caf\u{e9}".as_bytes()), None);
        let got = letters_for_bytes_not_utf8(b"def r\xe9sum\xc9(): \xe2\x82").unwrap();
        assert_eq!(got, b"def rksumK(): kk");
        // Every language's extractor then sees whole names, cut from the file's own bytes.
        let mut ex = Extractors::default();
        for (lang, src) in [
            (Lang::Python, &b"def r\xe9sum\xe9():\n    pass\n"[..]),
            (Lang::Go, b"package m\nfunc R\xe9sum\xe9() {}\n"),
            (Lang::Rust, b"fn r\xe9sum\xe9() {}\n"),
            (Lang::C, b"int r\xe9sum\xe9(void) { return 0; }\n"),
            (Lang::Php, b"<?php\nfunction r\xe9sum\xe9() {}\n"),
        ] {
            let facts = ex.extract(lang, src);
            let names: Vec<String> =
                (0..facts.defs.len() as u32).map(|i| facts.qual_name(i)).collect();
            assert!(
                names.iter().any(|n| n.eq_ignore_ascii_case("r\u{e9}sum\u{e9}")),
                "{lang:?}: {names:?}"
            );
            assert_eq!(facts.syntax_errors, 0, "{lang:?}");
        }
    }

    /// Edits a file the way an editor session does, line by line, and extracts it after each
    /// edit both from its previous tree and from scratch: the facts must be the same.
    #[test]
    fn a_file_parsed_again_from_its_tree_gives_the_facts_of_a_fresh_parse() {
        let files: [(Lang, &str, &str); 4] = [
            (Lang::Python, include_str!("../kit/cds-allow-list.py"), "# note\n"),
            (
                Lang::Rust,
                include_str!("../../tests/fixtures/rust/walk-kit/src/walker.rs"),
                "// note\n",
            ),
            (
                Lang::Go,
                include_str!("../../tests/fixtures/go/inventory/store/store.go"),
                "// note\n",
            ),
            (Lang::C, include_str!("../../tests/fixtures/c/kvstore/src/store.c"), "/* note */\n"),
        ];
        for (lang, text, comment) in files {
            let mut lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
            let mut ex = Extractors::default();
            let (_, mut before) = reparsing(None, || ex.extract(lang, text.as_bytes()));
            let mut seed = 7usize;
            for step in 0..40 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let at = (seed >> 33) % lines.len();
                match step % 5 {
                    0 => lines.insert(at, comment.to_string()),
                    1 => lines.insert(at, lines[at].clone()),
                    2 if lines.len() > 2 => drop(lines.remove(at)),
                    // A syntax error, fixed by the next edit.
                    3 => lines.insert(at, "((( {{ [\n".to_string()),
                    _ => drop(
                        lines.remove(lines.iter().position(|l| l == "((( {{ [\n").unwrap_or(at)),
                    ),
                }
                let src = lines.concat();
                let (facts, parsed) = reparsing(before.take(), || ex.extract(lang, src.as_bytes()));
                let fresh = Extractors::default().extract(lang, src.as_bytes());
                assert!(facts == fresh, "{lang:?}, step {step}: the facts differ\n{src}");
                assert!(parsed.is_some(), "{lang:?}: the parse is kept");
                before = parsed;
            }
        }
    }

    #[test]
    fn the_edit_between_two_texts_spans_what_differs() {
        let e = edit_between(b"ab\ncd\nef", b"ab\ncXYd\nef");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 4, 6));
        assert_eq!((e.start_position, e.new_end_position), (Point::new(1, 1), Point::new(1, 3)));
        // Repeated bytes: the prefix and the suffix do not overlap.
        let e = edit_between(b"aaaa", b"aa");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (2, 4, 2));
    }
}
