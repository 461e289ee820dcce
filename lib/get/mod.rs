//! `cds-get`'s logic: find what an input line names, and show its code from the index.
//!
//! Three pieces, shared with `cds-trav` and `cds-fmt`:
//!
//! * [`Resolver`]: one input ID -> a [`Target`]. Besides exact IDs it accepts what people and
//!   other tools actually type or print: `/pkg/core.py/` and `pkg/` (LocAgent strips the
//!   slashes), `pkg.__init__` and `Class.__init__` (LocAgent's spelling of a package or class),
//!   `./pkg/core.py`, absolute paths inside the repository, paths relative to the current
//!   directory when it is below the repository root (what `rg -l` prints there), and line
//!   references: `path:10`, `path:10-40`, and `rg -n` / `rg --vimgrep` lines (`path:10:text`).
//!   An unknown ID gets `no entity 'X'; did you mean: ...` ([`Resolver::report_missing`]).
//! * [`Code`]: the lines to show for a target in a [`View`]: the whole entity, a preview
//!   (signature, docstring and first lines; or, for a large class or file, a skeleton whose
//!   function bodies are elided), with `-C` context, computed from the graph's byte and line
//!   spans of the entity and its children: no parser runs.
//! * [`Staleness`]: compares each shown file with the working tree (size and mtime first, the
//!   content's CRC only when those differ) and warns once per file that the index is stale.
//!
//! The code always comes from the index's stored content, so it matches the graph's line
//! numbers even when the working tree has moved on.

pub mod cli;

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

use crate::cli::msg;
use crate::graph::{EdgeKind, NodeKind};
use crate::index::Index;
use crate::index::read::DefSpan;

/// What an input line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An entity (node number).
    Entity(u32),
    /// Lines `start..=end` of a file (its node number), from `path:10-40` or `path:10`.
    Lines {
        /// The file node.
        file: u32,
        /// First line asked for (1-based).
        start: u32,
        /// Last line asked for.
        end: u32,
    },
}

impl Target {
    /// The entity a target names: a line range names the innermost entity around its lines.
    pub fn entity(self, ix: &Index) -> u32 {
        match self {
            Target::Entity(n) => n,
            Target::Lines { file, start, end } => enclosing(ix, file, start, end),
        }
    }
}

/// Resolves input IDs against one index (see the module docs for what it accepts).
pub struct Resolver<'a> {
    ix: &'a Index,
    /// The repository root as bytes with a trailing `/`, computed on first need.
    root: OnceCell<Vec<u8>>,
    /// The current directory relative to the root (`pkg/sub/`), if it is inside the root.
    cwd: OnceCell<Option<Vec<u8>>>,
}

impl<'a> Resolver<'a> {
    /// A resolver over `ix`.
    pub fn new(ix: &'a Index) -> Resolver<'a> {
        Resolver { ix, root: OnceCell::new(), cwd: OnceCell::new() }
    }

    /// What `raw` names, or `None`.
    pub fn resolve(&self, raw: &[u8]) -> Option<Target> {
        if let Some(n) = self.ix.lookup_id(raw) {
            return Some(Target::Entity(n));
        }
        // Only on a miss: every fallback below costs a few more lookups.
        if let Some(n) = self.loose_entity(raw) {
            return Some(Target::Entity(n));
        }
        // A line reference past the end of its file, or backwards, names nothing
        // (report_missing says so).
        let (file, start, end) = self.line_ref(raw)?;
        (start <= end && start <= self.ix.lines(file).1).then_some(Target::Lines {
            file,
            start,
            end,
        })
    }

    /// The entity `raw` names; a line reference names the innermost entity around its lines.
    pub fn entity(&self, raw: &[u8]) -> Option<u32> {
        Some(self.resolve(raw)?.entity(self.ix))
    }

    /// Prints [`Resolver::missing`] on stderr. It does not change the exit status: the tool
    /// goes on with the next ID. A line range written backwards is a usage error instead
    /// ([`Resolver::reversed`]), which ends the tool with status 2.
    pub fn report_missing(&self, raw: &[u8]) -> crate::Result<()> {
        if let Some(e) = self.reversed(raw) {
            return Err(crate::Error::usage(e));
        }
        msg::error(self.missing(raw));
        Ok(())
    }

    /// `reversed line range 'path:20-10': give the first line first (path:10-20)` when `raw`
    /// is a line range of an indexed file whose end comes before its start. It is not
    /// turned round: `120-14` is likelier a typo for `120-140` than a wish for lines 14-120.
    pub fn reversed(&self, raw: &[u8]) -> Option<String> {
        let (file, start, end) = self.line_ref(raw).filter(|&(_, s, e)| e < s)?;
        let path = crate::id::display(self.ix.id(file));
        Some(format!(
            "reversed line range '{}': give the first line first ({path}:{end}-{start})",
            crate::id::display(raw)
        ))
    }

    /// Why `raw` names nothing: `no entity 'X'; did you mean: A, B` (up to 5 candidates from
    /// the name index), `no line N in path` for a line reference past the end of its file,
    /// or [`Resolver::reversed`]'s message.
    pub fn missing(&self, raw: &[u8]) -> String {
        let shown = crate::id::display(raw);
        if let Some(why) = self.reversed(raw) {
            return why;
        }
        if let Some((file, start, _)) = self.line_ref(raw) {
            let last = self.ix.lines(file).1;
            let path = crate::id::display(self.ix.id(file));
            return format!("no line {start} in {path}: it has {last} lines");
        }
        let mut found = crate::search::names::suggest(self.ix, raw, 5).unwrap_or_default();
        // `file.py:Clas.method` with a typo: the file itself is a poor first guess when a
        // same-file entity is among the candidates.
        if raw.contains(&b':') {
            found.sort_by_key(|&n| matches!(self.ix.kind(n), NodeKind::File | NodeKind::Directory));
        }
        let hints: Vec<String> =
            found.into_iter().map(|n| crate::id::display(self.ix.id(n)).into_owned()).collect();
        if hints.is_empty() {
            format!("no entity '{shown}'")
        } else {
            format!("no entity '{shown}'; did you mean: {}", hints.join(", "))
        }
    }

    /// The loose spellings of an entity ID (see the module docs), tried in turn.
    fn loose_entity(&self, raw: &[u8]) -> Option<u32> {
        use bstr::ByteSlice;
        let mut t: &[u8] = raw.trim();
        while let Some(rest) = t.strip_prefix(b"./") {
            t = rest;
        }
        let root = self.root();
        if !root.is_empty()
            && let Some(rest) = t.strip_prefix(root.as_slice())
        {
            t = rest;
        }
        // LocAgent strips `/` at both ends (but keeps `/` itself) and trailing dots.
        let mut t = t.trim_end_with(|c| c == '.');
        if t != b"/" {
            t = t.trim_with(|c| c == '/');
            if t.is_empty() && raw.contains(&b'/') {
                t = b"/";
            }
        }
        let mut candidates: Vec<Vec<u8>> = vec![t.to_vec()];
        // `pkg.__init__` is the package directory in LocAgent's spelling, `C.__init__` the
        // class; a native index has `__init__` nodes, found above by the exact lookup.
        if let Some(base) = t.strip_suffix(b".__init__") {
            candidates.push(base.to_vec());
        }
        if let Some(cwd) = self.cwd() {
            for c in candidates.clone() {
                let mut joined = cwd.clone();
                joined.extend_from_slice(&c);
                candidates.push(joined);
            }
        }
        // `../app.py:Flask` from a subdirectory, `rg -n ... ..`'s lines: `.` and `..` resolved
        // (a path that climbs out of the repository names nothing).
        for c in &mut candidates {
            if c.split(|&b| b == b'/').any(|p| p == b"." || p == b"..") {
                *c = lexically_normal(c).unwrap_or_default();
            }
        }
        candidates.iter().filter(|c| !c.is_empty()).find_map(|c| self.ix.lookup_id(c))
    }

    /// `path:10`, `path:10-40`, `path:10:text` (`rg -n`) and `path:10:5:text` (`rg
    /// --vimgrep`), where `path` is an indexed file: (file node, first line, last line). A
    /// path may hold a `:` itself (`a:b.py:2`), and grep's text often does: the first split
    /// whose path is an indexed file and whose rest reads as lines wins.
    fn line_ref(&self, raw: &[u8]) -> Option<(u32, u32, u32)> {
        raw.iter().enumerate().filter(|&(_, &c)| c == b':').find_map(|(colon, _)| {
            let (path, rest) = (&raw[..colon], &raw[colon + 1..]);
            let (start, end) = line_numbers(rest)?;
            let file = match self.ix.lookup_id(path) {
                Some(n) => n,
                None => self.loose_entity(path)?,
            };
            (self.ix.kind(file) == NodeKind::File).then_some((file, start, end))
        })
    }

    fn root(&self) -> &Vec<u8> {
        self.root.get_or_init(|| {
            let mut r = self.ix.root().into_os_string().into_encoded_bytes();
            if !r.is_empty() && !r.ends_with(b"/") {
                r.push(b'/');
            }
            r
        })
    }

    fn cwd(&self) -> Option<&Vec<u8>> {
        self.cwd
            .get_or_init(|| {
                let cwd = std::env::current_dir().ok()?;
                let root = self.ix.root();
                let rel = cwd.strip_prefix(&root).ok()?;
                if rel.as_os_str().is_empty() {
                    return None;
                }
                let mut v = rel.as_os_str().as_encoded_bytes().to_vec();
                v.push(b'/');
                Some(v)
            })
            .as_ref()
    }
}

/// The lines of a line reference after its path's `:`: `10`, `10-40`, `10:text` (`rg -n`),
/// `10:5:text` (`rg --vimgrep`). A range whose end comes first is returned as it is:
/// `resolve` refuses it, `reversed` says why.
fn line_numbers(rest: &[u8]) -> Option<(u32, u32)> {
    let digits = |s: &[u8]| -> Option<(u32, usize)> {
        let len = s.iter().take_while(|c| c.is_ascii_digit()).count();
        let n = std::str::from_utf8(&s[..len]).ok()?.parse().ok()?;
        Some((n, len))
    };
    let (start, len) = digits(rest)?;
    let after = &rest[len..];
    let (end, after) = match after.strip_prefix(b"-") {
        Some(r) => {
            let (end, len) = digits(r)?;
            (end, &r[len..])
        }
        None => (start, after),
    };
    // Anything after the numbers must be `:...` (grep's text), or nothing.
    if !(after.is_empty() || after.starts_with(b":")) || start == 0 || end == 0 {
        return None;
    }
    Some((start, end))
}

/// `path` with its `.` and `..` segments resolved, as the repository-relative path it names;
/// None when it climbs above the root.
fn lexically_normal(path: &[u8]) -> Option<Vec<u8>> {
    crate::lang::join_path(b"", path)
}

/// The innermost class or function of file node `file` whose lines include `start..=end`, or
/// the file itself.
///
/// Every definition the file contains is looked at, not only a path down the contain tree: a
/// Go or Rust method, or a JavaScript `X.prototype.m = function`, lies outside the lines of the
/// type that contains it.
pub fn enclosing(ix: &Index, file: u32, start: u32, end: u32) -> u32 {
    let mut best = (file, u32::MAX);
    let mut stack = vec![file];
    // The bound guards against a corrupt index with a contain cycle.
    let mut visits = 0usize;
    while let Some(n) = stack.pop()
        && visits < ix.len()
    {
        visits += 1;
        for e in ix.out_edges(n) {
            if e.kind != EdgeKind::Contain
                || !matches!(ix.kind(e.node), NodeKind::Class | NodeKind::Function)
            {
                continue;
            }
            // Each of its definitions (overloads, a property's setter: one node) counts.
            for (a, b) in ix.definitions(e.node).iter().map(|d| d.lines) {
                // The narrowest span wins; on a tie, the one nested deeper (seen later).
                if a <= start && end <= b && b.saturating_sub(a) <= best.1 {
                    best = (e.node, b.saturating_sub(a));
                }
            }
            stack.push(e.node);
        }
    }
    best.0
}

/// How much of an entity's code to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// One record line (ID, kind, lines, signature): no code.
    Fold,
    /// Signature, docstring and first lines of a function; a skeleton of a large class or file.
    Preview,
    /// All of it.
    #[default]
    Full,
}

impl View {
    /// The flag value naming the view.
    pub fn name(self) -> &'static str {
        match self {
            View::Fold => "fold",
            View::Preview => "preview",
            View::Full => "full",
        }
    }
}

/// A function up to this many lines is previewed whole.
const PREVIEW_FUNCTION_LINES: u32 = 25;
/// A longer function's preview shows this many lines after its signature and docstring.
const PREVIEW_BODY_LINES: u32 = 10;
/// A class or file up to this many lines is previewed whole; a longer one as a skeleton.
const PREVIEW_WHOLE_LINES: u32 = 60;

/// A shown line longer than this many bytes is cut to the entity's own bytes.
pub const LONG_LINE: usize = 2000;

/// The line-start offsets of a text, for line <-> byte conversions.
#[derive(Clone)]
pub struct LineMap<'t> {
    text: &'t [u8],
    /// `starts[i]` is the byte offset of line `i + 1`.
    starts: Rc<[u32]>,
}

impl<'t> LineMap<'t> {
    /// Scans `text` once for newlines.
    pub fn new(text: &'t [u8]) -> LineMap<'t> {
        LineMap { text, starts: crate::index::read::line_starts(text).into() }
    }

    /// The map of file-table entry `f` of `ix`, whose line starts are computed once per
    /// process (see [`Index::line_starts`]).
    pub fn of_file(ix: &'t Index, f: u32) -> LineMap<'t> {
        LineMap { text: ix.file_content(f), starts: ix.line_starts(f) }
    }

    /// Number of lines.
    pub fn count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// Line `k` (1-based) without its line ending; empty past the end.
    pub fn line(&self, k: u32) -> &'t [u8] {
        let Some(&a) = self.starts.get((k as usize).wrapping_sub(1)) else { return b"" };
        let b = self.starts.get(k as usize).map_or(self.text.len(), |&b| b as usize);
        let line = self.text.get(a as usize..b).unwrap_or(b"");
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    /// Line `k` cut to the bytes `span` covers when it is longer than [`LONG_LINE`] (a
    /// minified bundle is one line: its functions are shown, not the megabyte around them).
    pub fn line_within(&self, k: u32, span: Option<(u32, u32)>) -> &'t [u8] {
        let line = self.line(k);
        let (Some((s, e)), Some(&a)) = (span, self.starts.get((k as usize).wrapping_sub(1))) else {
            return line;
        };
        if line.len() <= LONG_LINE {
            return line;
        }
        let from = (s.saturating_sub(a) as usize).min(line.len());
        let to = (e.saturating_sub(a) as usize).clamp(from, line.len());
        &line[from..to]
    }

    /// The line (1-based) holding byte `offset`.
    pub fn line_of(&self, offset: u32) -> u32 {
        (self.starts.partition_point(|&s| s <= offset) as u32).max(1)
    }
}

/// One shown line, or a run of elided ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// Line `n`.
    Line(u32),
    /// Lines `from..=to` left out; `indent` is the first one's indentation width in bytes.
    Elided {
        /// First elided line.
        from: u32,
        /// Last elided line.
        to: u32,
        /// Bytes of leading whitespace of line `from` (the marker is indented alike).
        indent: u32,
    },
}

/// The code of one target, ready to render.
pub struct Code<'i> {
    /// The entity the code belongs to (the enclosing one for a line range).
    pub node: u32,
    /// The file node, when there is code (none for a directory).
    pub file: Option<u32>,
    /// The file's stored content.
    pub text: &'i [u8],
    /// What to show.
    pub pieces: Vec<Piece>,
    /// `Some((start, end))` when a line range was asked for.
    pub range: Option<(u32, u32)>,
    /// True when bodies were elided (a preview of a long entity).
    pub elided: bool,
    /// How many definitions the entity has (overloads, a property and its setter: more than
    /// one, shown in file order with the lines between them elided); 0 for a line range.
    pub definitions: usize,
    /// The entity's bytes, which lines longer than [`LONG_LINE`] are cut to (none for a line
    /// range and its context).
    span: Option<(u32, u32)>,
    /// The line starts of `text`.
    map: LineMap<'i>,
}

impl<'i> Code<'i> {
    /// The code of `target` in `view`, with `context` more lines on each side.
    pub fn of(ix: &'i Index, target: Target, view: View, context: u32) -> crate::Result<Code<'i>> {
        let (node, file, range) = match target {
            Target::Entity(n) => (n, ix.file_node(n), None),
            Target::Lines { file, start, end } => {
                (enclosing(ix, file, start, end), Some(file), Some((start, end)))
            }
        };
        let mut code = Code {
            node,
            file,
            text: b"",
            pieces: Vec::new(),
            range,
            elided: false,
            definitions: 0,
            span: None,
            map: LineMap::new(b""),
        };
        let Some(f) = file.and_then(|f| ix.file_index(f)) else { return Ok(code) };
        code.map = LineMap::of_file(ix, f);
        code.text = code.map.text;
        let map = &code.map;
        let last = map.count();
        if last == 0 {
            return Ok(code);
        }
        // An entity's definitions (one, but for overloads and the like), the lines between
        // two of them elided; a line range as asked.
        let spans = match range {
            Some(_) => Default::default(),
            None => ix.definitions(node),
        };
        let runs: Vec<(u32, u32, Option<&DefSpan>)> = match range {
            Some((s, e)) => vec![(s, e, None)],
            None => spans.iter().map(|d| (d.lines.0, d.lines.1, Some(d))).collect(),
        };
        // `a`: the first line shown, `b`: the last; `gaps`: elisions between definitions.
        let (mut a, mut b, mut gaps) = (0u32, 0u32, 0usize);
        for (s, e, d) in runs {
            let s = s.clamp(1, last).max(b + 1);
            if s > last {
                break;
            }
            let e = e.clamp(s, last);
            if b > 0 && s > b + 1 {
                let ws = map.line(b + 1).iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
                code.pieces.push(Piece::Elided { from: b + 1, to: s - 1, indent: ws as u32 });
                gaps += 1;
            }
            match (view, d) {
                (View::Preview, Some(d)) => code.pieces.extend(preview(ix, node, d, map, s, e)),
                _ => code.pieces.extend((s..=e).map(Piece::Line)),
            }
            a = if a == 0 { s } else { a };
            b = e;
        }
        code.definitions = spans.len();
        code.elided =
            code.pieces.iter().filter(|p| matches!(p, Piece::Elided { .. })).count() > gaps;
        if range.is_none() && context == 0 && ix.kind(node) != NodeKind::File {
            let first = spans.first().map_or(0, |d| d.bytes.0);
            code.span = Some((first, spans.last().map_or(0, |d| d.bytes.1)));
        }
        if context > 0 {
            let before = (a.saturating_sub(context).max(1)..a).map(Piece::Line);
            let after = (b + 1..=b.saturating_add(context).min(last)).map(Piece::Line);
            let mut all: Vec<Piece> = before.collect();
            all.append(&mut code.pieces);
            all.extend(after);
            code.pieces = all;
        }
        Ok(code)
    }

    /// The first and last line numbers shown (0, 0 when nothing is).
    pub fn bounds(&self) -> (u32, u32) {
        let first = |p: &Piece| match *p {
            Piece::Line(n) => n,
            Piece::Elided { from, .. } => from,
        };
        let last = |p: &Piece| match *p {
            Piece::Line(n) => n,
            Piece::Elided { to, .. } => to,
        };
        match (self.pieces.first(), self.pieces.last()) {
            (Some(a), Some(b)) => (first(a), last(b)),
            _ => (0, 0),
        }
    }

    /// The shown text as lines: real lines as they are, elided runs as one marker line
    /// (`    ...  # lines 8-19 omitted`, indented like the first of them).
    pub fn lines(&self) -> Vec<(Option<u32>, Vec<u8>)> {
        let mut out = Vec::with_capacity(self.pieces.len());
        let _ = self.each_line(|n, parts| {
            out.push((n, parts.concat()));
            Ok::<(), ()>(())
        });
        out
    }

    /// Calls `f` with each shown line: its number (none for an elision marker) and its bytes in
    /// pieces (a real line is one slice of the stored content, a marker its indentation and
    /// its note), without copying the code.
    pub fn each_line<E>(
        &self,
        mut f: impl FnMut(Option<u32>, &[&[u8]]) -> Result<(), E>,
    ) -> Result<(), E> {
        for p in &self.pieces {
            match *p {
                Piece::Line(n) => f(Some(n), &[self.map.line_within(n, self.span)])?,
                Piece::Elided { from, to, indent } => {
                    let line = self.map.line(from);
                    let ws = &line[..(indent as usize).min(line.len())];
                    let note = if from == to {
                        format!("...  # line {from} omitted")
                    } else {
                        format!("...  # lines {from}-{to} omitted")
                    };
                    f(None, &[ws, note.as_bytes()])?;
                }
            }
        }
        Ok(())
    }

    /// The shown text joined by newlines (for JSON), a byte that is not UTF-8 as its Latin-1
    /// character, as names are read ([`crate::extract::source_text`]).
    pub fn text_joined(&self) -> String {
        let mut s = Vec::with_capacity(self.text.len().min(1 << 20));
        let mut first = true;
        let _ = self.each_line(|_, parts| {
            if !first {
                s.push(b'\n');
            }
            first = false;
            for p in parts {
                s.extend_from_slice(p);
            }
            Ok::<(), ()>(())
        });
        crate::extract::source_text(&s).into_owned()
    }
}

/// The preview of node `n` spanning lines `a..=b` (see [`View::Preview`]).
fn preview(ix: &Index, n: u32, def: &DefSpan, map: &LineMap, a: u32, b: u32) -> Vec<Piece> {
    let lines = b - a + 1;
    let mut hidden: Vec<(u32, u32)> = Vec::new();
    match ix.kind(n) {
        NodeKind::Function if lines > PREVIEW_FUNCTION_LINES => {
            let keep = head_end(def, map).saturating_add(PREVIEW_BODY_LINES);
            let last = body_last_line(ix, n, map, b);
            if keep < last {
                hidden.push((keep + 1, last));
            }
        }
        NodeKind::Class | NodeKind::File if lines > PREVIEW_WHOLE_LINES => {
            skeleton(ix, n, map, &mut hidden, 0);
        }
        _ => {}
    }
    hidden.sort_unstable();
    let mut pieces = Vec::with_capacity(lines as usize);
    let mut k = a;
    let mut h = hidden.iter().peekable();
    while k <= b {
        // Skip elisions that end before k (nested or overlapping ones).
        while h.peek().is_some_and(|&&(_, to)| to < k) {
            h.next();
        }
        match h.peek() {
            Some(&&(from, to)) if from <= k => {
                let to = to.min(b);
                let indent = map.line(k).iter().take_while(|c| **c == b' ' || **c == b'\t').count();
                pieces.push(Piece::Elided { from: k, to, indent: indent as u32 });
                k = to + 1;
            }
            _ => {
                pieces.push(Piece::Line(k));
                k += 1;
            }
        }
    }
    pieces
}

/// The last line of a definition's signature and docstring, and of the opening brace when it
/// has a line of its own (PSR-12's and Allman's style), so an elided body reads `{ ... }`.
fn head_end(def: &DefSpan, map: &LineMap) -> u32 {
    let sig = map.line_of(def.sig.1.saturating_sub(1));
    let doc = def.doc.map_or(0, |(_, e)| map.line_of(e.saturating_sub(1)));
    let end = sig.max(doc).max(def.head_line);
    if end < map.count() && map.line(end + 1).trim_ascii() == b"{" { end + 1 } else { end }
}

/// The last line of a body to elide: the line closing the body (`}`, `};`, `})`; Ruby's `end`)
/// stays shown, so a skeleton reads as its language.
fn body_last_line(ix: &Index, n: u32, map: &LineMap, end: u32) -> u32 {
    let line = map.line(end).trim_ascii();
    let lang = ix.file_node(n).and_then(|f| crate::lang::Lang::of_name(ix.id(f)));
    let closes = match lang {
        Some(l) => l.closes_block(line),
        None => !line.is_empty() && line.len() <= 3 && line[0] == b'}',
    };
    if closes { end.saturating_sub(1) } else { end }
}

/// Collects the function bodies under node `n` (recursing into classes) as hidden ranges.
fn skeleton(ix: &Index, n: u32, map: &LineMap, hidden: &mut Vec<(u32, u32)>, depth: u32) {
    if depth > 64 {
        return;
    }
    let file = ix.file_index(n);
    for e in ix.out_edges(n) {
        if e.kind != EdgeKind::Contain || ix.file_index(e.node) != file {
            continue;
        }
        match ix.kind(e.node) {
            NodeKind::Function => {
                for def in ix.definitions(e.node) {
                    let from = head_end(&def, map) + 1;
                    let last = body_last_line(ix, e.node, map, def.lines.1);
                    if from <= last {
                        hidden.push((from, last));
                    }
                }
                // Definitions attached to a function from outside its body (JavaScript's
                // `Foo.prototype.m = function`) lie outside its span.
                skeleton(ix, e.node, map, hidden, depth + 1);
            }
            NodeKind::Class => skeleton(ix, e.node, map, hidden, depth + 1),
            _ => {}
        }
    }
}

/// Warns once per file when the working tree's copy differs from the indexed one.
pub struct Staleness<'i> {
    ix: &'i Index,
    root: Option<PathBuf>,
    /// Files checked so far, and whether they were stale.
    checked: HashMap<u32, bool>,
}

impl<'i> Staleness<'i> {
    /// A checker; when the repository root is gone (an index copied elsewhere) it checks
    /// nothing.
    pub fn new(ix: &'i Index) -> Staleness<'i> {
        let root = ix.root();
        let root = root.is_dir().then_some(root);
        Staleness { ix, root, checked: HashMap::new() }
    }

    /// True when file node `file` differs from the working tree; warns on the first call for
    /// each file.
    pub fn check(&mut self, file: u32) -> bool {
        let Some(f) = self.ix.file_index(file) else { return false };
        let Some(root) = &self.root else { return false };
        // Once per file and process: 200 entities of one file cost one stat.
        if let Some(&stale) = self.checked.get(&f) {
            return stale;
        }
        let stale = self.differs(root, f, file);
        self.checked.insert(f, stale);
        if stale {
            let path = crate::id::display(self.ix.id(file));
            match stale_reason(root, self.ix.id(file)) {
                Some(why) => msg::warn(format_args!(
                    "{path} {why} since the index was built: run cds-build (showing the \
                     indexed code)"
                )),
                None => msg::warn(format_args!(
                    "{path} changed since the index was built: run cds-build (showing the \
                     indexed code)"
                )),
            }
        }
        stale
    }

    fn differs(&self, root: &std::path::Path, f: u32, file: u32) -> bool {
        let g = self.ix.graph();
        let path = root.join(path_of(self.ix.id(file)));
        let Ok(md) = std::fs::metadata(&path) else { return true };
        let size = self.ix.at(&g.file_size, f as usize).map(|v| v.to_native());
        let mtime = self.ix.at(&g.file_mtime, f as usize).map(|v| v.to_native());
        if size == Some(md.len()) && mtime == Some(crate::walk::mtime_ns(&md)) {
            return false;
        }
        // Touched, or another size: only the content can tell.
        let Ok(bytes) = std::fs::read(&path) else { return true };
        let hash = g.file_hash.get(f as usize).map(|v| v.to_native());
        Some(crc32fast::hash(&bytes)) != hash || size != Some(bytes.len() as u64)
    }
}

/// "is gone" when the file no longer exists, else None (it changed).
fn stale_reason(root: &std::path::Path, id: &[u8]) -> Option<&'static str> {
    (!root.join(path_of(id)).exists()).then_some("was removed")
}

/// A repository-relative ID path as a native path.
fn path_of(id: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(id))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(id).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_are_resolved_within_the_repository() {
        let n = |p: &str| lexically_normal(p.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(
            n("src/flask/sansio/../app.py:Flask").as_deref(),
            Some("src/flask/app.py:Flask")
        );
        assert_eq!(n("a/./b/../../c.py").as_deref(), Some("c.py"));
        assert_eq!(n("../outside.py"), None);
        assert_eq!(n("a/../../b.py"), None);
    }

    #[test]
    fn line_map() {
        let m = LineMap::new(b"a\nbb\r\n\nccc\n");
        assert_eq!(m.count(), 4);
        assert_eq!(m.line(1), b"a");
        assert_eq!(m.line(2), b"bb");
        assert_eq!(m.line(3), b"");
        assert_eq!(m.line(4), b"ccc");
        assert_eq!(m.line(5), b"");
        assert_eq!(m.line(0), b"");
        assert_eq!(m.line_of(0), 1);
        assert_eq!(m.line_of(2), 2);
        assert_eq!(m.line_of(7), 4);
        // A lone `\r` ends a line too (`\r\n` is one ending); none is shown.
        let m = LineMap::new(b"a\rb\r\rc\r\nd\r");
        assert_eq!(m.count(), 5);
        let lines: Vec<&[u8]> = (1..=5).map(|k| m.line(k)).collect();
        assert_eq!(lines, [&b"a"[..], b"b", b"", b"c", b"d"]);
        assert_eq!((m.line_of(2), m.line_of(4), m.line_of(9)), (2, 3, 5));
        // A byte-order mark is not on line 1; offsets stay the file's.
        let m = LineMap::new(b"\xef\xbb\xbfab\ncd");
        assert_eq!((m.count(), m.line(1), m.line(2)), (2, &b"ab"[..], &b"cd"[..]));
        assert_eq!((m.line_of(0), m.line_of(3), m.line_of(5), m.line_of(6)), (1, 1, 1, 2));
        assert_eq!(m.line_within(1, Some((3, 4))), b"ab");
        assert_eq!(LineMap::new(b"\xef\xbb\xbf").line(1), b"");
        let m = LineMap::new(b"no newline");
        assert_eq!(m.count(), 1);
        assert_eq!(m.line(1), b"no newline");
        assert_eq!(LineMap::new(b"").count(), 0);
    }
}
