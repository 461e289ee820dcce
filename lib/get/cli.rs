//! `cds-get`'s command line: its flag table, and the rendering of code blocks (shared with
//! `cds-fmt`).
//!
//! Text output, per entity, is a header line and LocAgent's numbered view:
//!
//! ````text
//! shop/cart.py:Cart.total  function  shop/cart.py:21-24
//! ```
//! 21 |     def total(self, discount=0, region="default"):
//! 22 |         amount = apply_discount(self.subtotal(), discount)
//! ```
//! ````
//!
//! (the gaps in the header are TABs). The header is `ID<TAB>kind<TAB>path:start-end[<TAB>note]`, so it is itself a valid protocol
//! record, and its third field is a valid `cds-get` argument. Blocks are separated by a blank
//! line (with `-0`, each ends with NUL instead).

use std::ffi::{OsStr, OsString};
use std::io::Write;

use super::{Code, Resolver, Staleness, Target, View};
use crate::cli::flags::value_parse;
use crate::cli::{
    self, Args, Common, Complete, Flag, Format, Out, Positional, Status, Style, Tool, common,
};
use crate::graph::{EdgeKind, NodeKind};
use crate::index::Index;

/// Parsed flags.
#[derive(Debug, Default)]
pub struct GetArgs {
    common: Common,
    ids: Vec<OsString>,
    view: View,
    context: u32,
    plain: bool,
}

impl Args for GetArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

fn view(a: &mut GetArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.view = match v.and_then(OsStr::to_str) {
        Some("fold") => View::Fold,
        Some("preview") => View::Preview,
        _ => View::Full,
    };
    Ok(())
}

fn context(a: &mut GetArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.context = value_parse(v)?;
    Ok(())
}

fn plain(a: &mut GetArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.plain = true;
    Ok(())
}

fn id(a: &mut GetArgs, v: OsString) -> Result<(), String> {
    a.ids.push(v);
    Ok(())
}

/// The tool's table.
pub static TOOL: Tool<GetArgs> = Tool {
    name: "cds-get",
    about: "Show the code of entities, with line numbers, from the index",
    usage: &["cds-get [OPTIONS] [ID]...", "cds-trav --ids ID | cds-get [OPTIONS]"],
    description: "cds-get prints, for each entity ID, a header line and the entity's code with \
line numbers, in the numbered view LocAgent's RetrieveEntity tool uses. IDs come from the \
arguments, or from stdin when there are none (or an argument is -): one per line, the ID being \
the text up to the first TAB, or the \"id\" of a JSON line; blank lines and lines starting with \
# are skipped. So the output of cds-search, cds-trav, cds-fmt, jq -r .id, or a list typed by \
hand all work.

The header is ID, kind and path:start-end separated by TABs (then a note such as \"skeleton\" \
when bodies were elided). An entity defined several times under one name (Java and C++ \
overloads, a Python property and its setter) shows each definition in file order, the lines \
between them elided, with the note \"N definitions\"; its span covers them all. It is a valid input line for every cds tool, and its third field is \
a valid cds-get argument. The code follows in a fenced block, each line as NUMBER | TEXT with \
the numbers right-aligned.

Besides entity IDs (pkg/mod.py, pkg/mod.py:Class.method, pkg/sub for a directory), cds-get \
takes line references: pkg/mod.py:120 (one line), pkg/mod.py:100-140 (a range; one written \
backwards, 140-100, is an error, status 2), and the lines of rg -n and rg --vimgrep \
(pkg/mod.py:120:text), whose header names the innermost entity around them. Loose spellings are accepted too: ./pkg/mod.py, /pkg/mod.py/, absolute paths in \
the repository, paths relative to the current directory, and LocAgent's pkg.__init__.

The code comes from the index, so its line numbers always agree with the graph. A line ends \
at \\n, \\r\\n or a lone \\r, as Python, C, JavaScript and editors count lines (rg -n counts \
\\n only, so in a file with lone \\r its line numbers differ); no \\r is printed. When a file \
in the working tree differs from the indexed one, cds-get warns once per file that the index \
is stale (and shows the indexed code); run cds-build to update it.

An unknown ID prints \"cds-get: no entity 'X'; did you mean: A, B\" with up to five near \
names, and cds-get goes on with the rest. The exit status is 0 when at least one entity was \
shown, 1 when none was, and 2 on an error (no index, a corrupt index, unreadable input).",
    positional: Some(Positional {
        name: "ID",
        doc: "IDs or path:LINE[-LINE] (stdin when none are given)",
        many: true,
        complete: Complete::Nothing,
        apply: id,
    }),
    flags: &[
        Flag::new("view", "How much code: fold, preview or full (default full)", view)
            .value("VIEW")
            .choices(&["fold", "preview", "full"])
            .long_doc(
                "How much of each entity to show.

full (the default): all of its code.

preview: a function's signature, docstring and first lines (the whole function when it is \
short); a class or file up to 60 lines whole, a longer one as a skeleton: class and function \
signatures and docstrings with every function body replaced by a numberless marker line \
\"...  # lines 8-19 omitted\", so an agent can ask for exactly the lines it needs with \
cds-get path:8-19. It is built from the graph's line spans; no parser runs.

fold: no code, one line per entity: ID, kind, lines and the signature, as cds-search and \
cds-trav print them.",
            ),
        Flag::new("context", "Show N more lines before and after each entity", context)
            .short('C')
            .value("N")
            .long_doc(
                "Show N lines of the file before and after each entity or line range (as grep \
-C does), clamped to the file.",
            ),
        Flag::new("plain", "Print the bare code: no header, fence or line numbers", plain)
            .long_doc(
                "Print only the code lines, with no header, no fence and no line numbers, for \
feeding the code to another program (ast-grep --stdin, a formatter, a file).",
            ),
        common::index(),
        common::json(),
        common::ids(),
        common::null(),
        common::color(),
        common::quiet(),
    ],
    examples: &[
        ("The code of a method", "cds-get shop/cart.py:Cart.total"),
        ("The lines around line 25 of a file", "cds-get -C 5 shop/views.py:25"),
        ("A skeleton of a large class", "cds-get --view preview shop/models.py:Profile"),
        (
            "The callers of a function, with their code",
            "cds-trav -h1 -r invoke -d up shop/security.py:sanitize_user_input | cds-get",
        ),
        (
            "Only the first hop of a two-hop walk, through jq",
            "cds-trav -h2 --json shop/cart.py:Cart | jq -r 'select(.hop==1).id' | cds-get",
        ),
        ("The entities around grep hits", "rg -n 'html.escape' | cds-get --view fold"),
        ("Every file rg finds, previewed", "rg -l 'def render' | cds-get --view preview"),
        (
            "Search inside one entity's code with ast-grep",
            "cds-get --plain shop/models.py:Profile | ast-grep run --lang python -p 'self.$A = $B' --stdin",
        ),
        ("Code as JSON, for a script", "cds-get --json shop/cart.py:Cart.add | jq -r .code"),
    ],
    see_also: &["cds(7)", "cds-search(1)", "cds-trav(1)", "cds-fmt(1)", "cds-build(1)"],
};

/// Runs `cds-get`.
pub fn run(args: GetArgs) -> crate::Result<Status> {
    let ix = args.common.open_index()?;
    let resolver = Resolver::new(&ix);
    let mut out = Out::new(&args.common);
    let mut blocks = Blocks::new(&ix, &args.common);
    let opts = BlockOpts { view: args.view, context: args.context, plain: args.plain };
    let mut found = false;
    for rec in cli::entity_inputs(args.ids) {
        let rec = rec?;
        match resolver.resolve(&rec.id) {
            Some(t) => {
                found = true;
                blocks.write(&mut out, t, &opts)?;
            }
            None => resolver.report_missing(&rec.id)?,
        }
    }
    out.finish()?;
    Ok(found.into())
}

/// How [`Blocks::write`] renders a target.
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockOpts {
    /// How much code.
    pub view: View,
    /// `-C`.
    pub context: u32,
    /// `--plain`.
    pub plain: bool,
}

/// Writes code blocks one after another, in the output format of the shared flags, checking
/// staleness and separating blocks.
pub struct Blocks<'i> {
    ix: &'i Index,
    format: Format,
    null: bool,
    stale: Staleness<'i>,
    written: usize,
}

impl<'i> Blocks<'i> {
    /// A writer for `ix`, in the format chosen by `common` (`--json`, `--ids`, `-0`).
    pub fn new(ix: &'i Index, common: &Common) -> Blocks<'i> {
        Blocks {
            ix,
            format: common.format,
            null: common.null,
            stale: Staleness::new(ix),
            written: 0,
        }
    }

    /// Writes one target.
    pub fn write(&mut self, out: &mut Out, t: Target, opts: &BlockOpts) -> crate::Result<()> {
        let ix = self.ix;
        if self.format == Format::Ids {
            out.write_id(ix.id(t.entity(ix)))?;
            return out.record_end();
        }
        if opts.view == View::Fold {
            let n = t.entity(ix);
            if self.format == Format::Json {
                return crate::record::write_json(out, ix, n, serde_json::Map::new());
            }
            return crate::record::write_line(out, ix, n, "");
        }
        let code = Code::of(ix, t, opts.view, opts.context)?;
        let stale = code.file.is_some_and(|f| self.stale.check(f));
        if self.format == Format::Json {
            return write_json(out, ix, &code, opts.view, stale);
        }
        if !self.null && self.written > 0 && !opts.plain {
            out.write_all(b"\n")?;
        }
        self.written += 1;
        if opts.plain {
            code.each_line(|_, parts| {
                for p in parts {
                    out.write_all(p)?;
                }
                out.write_all(b"\n")
            })?;
        } else {
            write_header(out, ix, &code, stale)?;
            write_numbered(out, ix, &code)?;
        }
        if self.null {
            out.write_all(b"\0")?;
        }
        Ok(())
    }
}

/// `ID<TAB>kind<TAB>path:start-end[<TAB>note]`, or for a line range
/// `path:a-b<TAB>range<TAB>in ID`.
pub fn write_header(out: &mut Out, ix: &Index, code: &Code, stale: bool) -> crate::Result<()> {
    let n = code.node;
    let id = crate::id::display(ix.id(n));
    let path = crate::id::display(ix.path(n));
    match code.range {
        Some((a, b)) => {
            let fpath = code.file.map(|f| crate::id::display(ix.id(f)).into_owned());
            let fpath = fpath.unwrap_or_else(|| path.to_string());
            let r = if a == b { format!("{fpath}:{a}") } else { format!("{fpath}:{a}-{b}") };
            out.paint(Style::Id, r.as_bytes())?;
            out.write_all(b"\t")?;
            out.paint(Style::Kind, b"range")?;
            out.write_all(b"\tin ")?;
            out.paint(Style::Id, id.as_bytes())?;
        }
        None => {
            out.paint(Style::Id, id.as_bytes())?;
            out.write_all(b"\t")?;
            out.paint(Style::Kind, ix.kind(n).name().as_bytes())?;
            out.write_all(b"\t")?;
            let where_ = match ix.kind(n) {
                NodeKind::Directory if id == "/" => "/".to_string(),
                NodeKind::Directory => format!("{path}/"),
                // All of an entity's definitions, when it has several.
                _ if code.definitions > 1 => {
                    let (a, b) = code.bounds();
                    format!("{path}:{a}-{b}")
                }
                _ => {
                    let (a, b) = ix.lines(n);
                    format!("{path}:{a}-{b}")
                }
            };
            out.paint(Style::LineNo, where_.as_bytes())?;
            if code.definitions > 1 {
                let note = format!("{} definitions, the lines between omitted", code.definitions);
                out.write_all(b"\t")?;
                out.paint(Style::Dim, note.as_bytes())?;
            }
            if code.elided {
                out.write_all(b"\t")?;
                let note: &[u8] = if ix.kind(n) == NodeKind::Function {
                    b"preview: the rest omitted, ask for its lines"
                } else {
                    b"skeleton: bodies omitted, ask for their lines"
                };
                out.paint(Style::Dim, note)?;
            }
        }
    }
    if stale {
        out.write_all(b"\t")?;
        out.paint(Style::Dim, b"stale index: run cds-build")?;
    }
    out.write_all(b"\n")?;
    Ok(())
}

/// The fenced, numbered code (LocAgent's `wrap_code_snippet`): line numbers right-aligned to
/// the widest, then ` | `, then the text. For a directory, its entries, one per line.
pub fn write_numbered(out: &mut Out, ix: &Index, code: &Code) -> crate::Result<()> {
    out.write_all(b"```\n")?;
    if code.file.is_none() {
        for e in ix.out_edges(code.node).filter(|e| e.kind == EdgeKind::Contain) {
            out.write_id(ix.id(e.node))?;
            out.write_all(b"\n")?;
        }
    } else {
        // Right-aligned to the widest number printed (elision markers have none).
        let widest = code
            .pieces
            .iter()
            .filter_map(|p| match *p {
                super::Piece::Line(n) => Some(n),
                super::Piece::Elided { .. } => None,
            })
            .max()
            .unwrap_or(1);
        let width = digits(widest);
        code.each_line(|num, parts| {
            // `{k:>width$}` without a String per line: digits right-aligned in a stack buffer.
            let mut buf = [b' '; 10];
            let w = width.min(buf.len());
            if let Some(mut k) = num {
                for slot in buf[..w].iter_mut().rev() {
                    *slot = b'0' + (k % 10) as u8;
                    k /= 10;
                    if k == 0 {
                        break;
                    }
                }
                out.paint(Style::LineNo, &buf[..w])?;
            } else {
                out.write_all(&buf[..w])?;
            }
            out.write_all(b" | ")?;
            for p in parts {
                out.write_all(p)?;
            }
            out.write_all(b"\n")?;
            Ok::<(), crate::Error>(())
        })?;
    }
    out.write_all(b"```\n")?;
    Ok(())
}

/// Decimal digits of `n` (1 for 0).
fn digits(mut n: u32) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// Writes the JSON record: the entity's fields plus [`code_fields`].
pub fn write_json(
    out: &mut Out,
    ix: &Index,
    code: &Code,
    view: View,
    stale: bool,
) -> crate::Result<()> {
    crate::record::write_json(out, ix, code.node, code_fields(ix, code, view, stale))
}

/// The fields a code block adds to its entity's JSON record: `code` (the shown text, elisions
/// as marker lines), `code_start` / `code_end` (the first and last line shown), `view`, and
/// `range`, `elided`, `stale` and `entries` (a directory's) when they apply.
pub fn code_fields(
    ix: &Index,
    code: &Code,
    view: View,
    stale: bool,
) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::{Value, json};
    let mut extra = serde_json::Map::new();
    let (a, b) = code.bounds();
    extra.insert("view".into(), json!(view.name()));
    if code.file.is_some() {
        extra.insert("code".into(), Value::String(code.text_joined()));
        extra.insert("code_start".into(), json!(a));
        extra.insert("code_end".into(), json!(b));
    } else {
        let entries: Vec<Value> = ix
            .out_edges(code.node)
            .filter(|e| e.kind == EdgeKind::Contain)
            .map(|e| Value::String(crate::id::display(ix.id(e.node)).into_owned()))
            .collect();
        extra.insert("entries".into(), Value::Array(entries));
    }
    if let (Some((s, e)), Some(f)) = (code.range, code.file) {
        let p = crate::id::display(ix.id(f));
        extra.insert("range".into(), json!(format!("{p}:{s}-{e}")));
    }
    if code.elided {
        extra.insert("elided".into(), json!(true));
    }
    if code.definitions > 1 {
        extra.insert("definitions".into(), json!(code.definitions));
    }
    if stale {
        extra.insert("stale".into(), json!(true));
    }
    extra
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sound() {
        assert_eq!(cli::flags::check(&TOOL), Vec::<String>::new());
    }
}
