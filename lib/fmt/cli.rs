//! `cds-fmt`'s command line: read any tool's records and render them in one view.

use std::ffi::{OsStr, OsString};
use std::io::Write;

use super::{containment_tree, induced_edges, record_tree, render_tree, write_dot, write_graph};
use crate::cli::flags::value_parse;
use crate::cli::{
    self, Args, Common, Complete, Flag, Format, Out, Positional, Status, Tool, common,
};
use crate::get::cli::{BlockOpts, Blocks};
use crate::get::{Code, Resolver, Target, View};

/// The views `cds-fmt` renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmtView {
    /// Record lines.
    Fold,
    /// Code previews.
    Preview,
    /// Full code.
    Full,
    /// A tree.
    Tree,
    /// Graphviz DOT.
    Dot,
    /// The whole graph as parity JSON Lines.
    Graph,
}

/// Parsed flags.
#[derive(Debug, Default)]
pub struct FmtArgs {
    common: Common,
    ids: Vec<OsString>,
    /// The last view flag; `None`: fold (full with --markdown).
    view: Option<FmtView>,
    markdown: bool,
    context: u32,
}

impl Args for FmtArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

/// A view flag: the last of the view flags and --json/--ids wins, so a view flag clears an
/// earlier --json/--ids (which set the shared format).
fn set_view(a: &mut FmtArgs, v: FmtView) -> Result<(), String> {
    a.view = Some(v);
    a.common.format = Format::Text;
    Ok(())
}

fn tree(a: &mut FmtArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, FmtView::Tree)
}
fn fold(a: &mut FmtArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, FmtView::Fold)
}
fn preview(a: &mut FmtArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, FmtView::Preview)
}
fn full(a: &mut FmtArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, FmtView::Full)
}
fn dot(a: &mut FmtArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, FmtView::Dot)
}
fn graph(a: &mut FmtArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, FmtView::Graph)
}
fn markdown(a: &mut FmtArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.markdown = true;
    a.common.format = Format::Text;
    Ok(())
}
fn context(a: &mut FmtArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.context = value_parse(v)?;
    Ok(())
}
fn id(a: &mut FmtArgs, v: OsString) -> Result<(), String> {
    a.ids.push(v);
    Ok(())
}

/// The tool's table.
pub static TOOL: Tool<FmtArgs> = Tool {
    name: "cds-fmt",
    about: "Render any cds tool's output: tree, fold, code, Markdown, DOT, IDs",
    usage: &["cds-TOOL ... | cds-fmt [VIEW] [OPTIONS]", "cds-fmt --graph [--index DIR]"],
    description: "cds-fmt reads the records of any cds tool on stdin (JSON Lines from --json, \
the default ID<TAB>kind<TAB>lines<TAB>fold lines, bare IDs, or rg -n lines) and renders them \
in one view. Records naming no entity are reported with near names and skipped. Without a \
view flag it prints the fold view, the default record line of every tool. The last of the \
view flags, --json and --ids wins.

--tree draws the records as a tree. Records of a cds-trav --json walk (they carry from, via \
and dir) form the walk's spanning tree, in LocAgent's format (├── invokes ── ID); any other \
records are grouped under their files and classes.

--markdown writes, per entity, a heading, one line saying what and where it is (and how a \
walk reached it), and its code in a fenced block, ready to paste into an LLM prompt; it takes \
its code from --full (the default), --preview or --fold (no code), and fences a --tree or \
--dot.

--graph ignores stdin and prints the whole index's graph as JSON Lines: one \
{\"kind\": \"node\", ...} record per entity sorted by ID, then one {\"kind\": \"edge\", ...} \
record per edge sorted by source, target and type, with LocAgent's type names and line \
numbers, and on cds's own indexes a last {\"kind\": \"languages\", ...} record with the \
files and entities of each language. On an index built with --compat locagent it is LocAgent's \
own graph dump.",
    positional: Some(Positional {
        name: "ID",
        doc: "Entity IDs (read from stdin when none are given)",
        many: true,
        complete: Complete::Nothing,
        apply: id,
    }),
    flags: &[
        Flag::new("tree", "Draw the records as a tree (a walk's, or by file)", tree),
        Flag::new("fold", "One line per entity: ID, kind, lines, signature (default)", fold),
        Flag::new("preview", "Code previews: signatures, docstrings, skeletons", preview).long_doc(
            "Show each entity as cds-get --view preview does: a function's signature, \
docstring and first lines; a long class or file as a skeleton with function bodies omitted.",
        ),
        Flag::new("full", "The full code of each entity, with line numbers", full),
        Flag::new("markdown", "Markdown for an LLM prompt: headings, fenced code", markdown),
        Flag::new("dot", "A Graphviz digraph of the entities and their edges", dot).long_doc(
            "Print a Graphviz digraph: the entities (walk start entities, hop 0, in bold) and \
every edge of the index between them.",
        ),
        Flag::new("graph", "Dump the whole graph as parity JSON Lines (no input)", graph),
        Flag::new("context", "With --preview/--full: N more lines around each entity", context)
            .short('C')
            .value("N"),
        common::index(),
        common::json(),
        common::ids(),
        common::null(),
        common::color(),
        common::quiet(),
    ],
    examples: &[
        (
            "A walk as a tree",
            "cds-trav --json -h2 -d up -r invoke shop/pricing.py:round_money | cds-fmt --tree",
        ),
        (
            "Callers' code as Markdown, for a prompt",
            "cds-trav --json -d up -r invoke --no-roots shop/security.py:sanitize_user_input | cds-fmt --markdown > context.md",
        ),
        ("The files rg finds, grouped as a tree", "rg -l 'Money' | cds-fmt --tree"),
        ("Entities around grep hits, as records", "rg -n 'raise ' | cds-fmt"),
        (
            "Previews of hand-picked entities",
            "printf '%s\\n' shop/cart.py:Cart shop/models.py | cds-fmt --preview",
        ),
        (
            "Fill in every field for jq",
            "cds-trav --ids -h2 shop/cart.py:Cart | cds-fmt --json | jq -r .fold",
        ),
        (
            "How ast-grep's hits connect",
            "ast-grep run -p 'Money($X)' --json=stream | jq -r '\"\\(.file):\\(.range.start.line+1)\"' | cds-fmt --dot | dot -Tsvg > m.svg",
        ),
        ("The whole graph, for diffing two builds", "cds-fmt --graph > graph.jsonl"),
    ],
    see_also: &["cds(7)", "cds-search(1)", "cds-trav(1)", "cds-get(1)"],
};

/// Runs `cds-fmt`.
pub fn run(args: FmtArgs) -> crate::Result<Status> {
    let format = args.common.format;
    // --json/--ids given after every view flag win (view flags reset the format).
    let view = match format {
        Format::Json | Format::Ids => FmtView::Fold,
        Format::Text => {
            args.view.unwrap_or(if args.markdown { FmtView::Full } else { FmtView::Fold })
        }
    };
    let markdown = args.markdown && format == Format::Text;
    if view == FmtView::Graph && markdown {
        return Err(crate::Error::usage("--graph cannot be combined with --markdown"));
    }
    let ix = args.common.open_index()?;
    let mut out = Out::new(&args.common);
    if view == FmtView::Graph {
        write_graph(&mut out, &ix)?;
        out.finish()?;
        return Ok(Status::Found);
    }
    let resolver = Resolver::new(&ix);
    let mut records: Vec<(Target, Option<serde_json::Value>)> = Vec::new();
    for rec in cli::entity_inputs(args.ids) {
        let rec = rec?;
        match resolver.resolve(&rec.id) {
            Some(t) => records.push((t, rec.json)),
            None => resolver.report_missing(&rec.id)?,
        }
    }
    match view {
        FmtView::Fold if format == Format::Json => {
            for (t, json) in &records {
                // Keep what other tools added (score, hop, code...); the entity's own fields
                // are recomputed from the index.
                let extra = match json {
                    Some(serde_json::Value::Object(m)) => m.clone(),
                    _ => serde_json::Map::new(),
                };
                crate::record::write_json(&mut out, &ix, t.entity(&ix), extra)?;
            }
        }
        FmtView::Fold if !markdown => {
            for (t, _) in &records {
                if format == Format::Ids {
                    out.write_id(ix.id(t.entity(&ix)))?;
                    out.record_end()?;
                } else {
                    crate::record::write_line(&mut out, &ix, t.entity(&ix), "")?;
                }
            }
        }
        FmtView::Fold | FmtView::Preview | FmtView::Full if markdown => {
            let v = match view {
                FmtView::Preview => View::Preview,
                _ => View::Full,
            };
            for (t, json) in &records {
                let code = Code::of(&ix, *t, v, args.context)?;
                super::write_markdown(&mut out, &ix, &code, json.as_ref(), view == FmtView::Fold)?;
            }
        }
        FmtView::Preview | FmtView::Full => {
            let opts = BlockOpts {
                view: if view == FmtView::Preview { View::Preview } else { View::Full },
                context: args.context,
                plain: false,
            };
            let mut blocks = Blocks::new(&ix, &args.common);
            for (t, _) in &records {
                blocks.write(&mut out, *t, &opts)?;
            }
        }
        FmtView::Tree => {
            let list: Vec<(u32, Option<&serde_json::Value>)> =
                records.iter().map(|(t, j)| (t.entity(&ix), j.as_ref())).collect();
            let nodes = record_tree(&ix, &list, |id| resolver.entity(id)).unwrap_or_else(|| {
                containment_tree(&ix, &list.iter().map(|(n, _)| *n).collect::<Vec<_>>())
            });
            let text = render_tree(&ix, &nodes);
            fenced(&mut out, markdown, "", text.as_bytes())?;
        }
        FmtView::Dot => {
            let mut seen = fxhash::FxHashSet::default();
            let mut nodes: Vec<(u32, bool)> = Vec::new();
            for (t, json) in &records {
                let n = t.entity(&ix);
                if seen.insert(n) {
                    let start = json
                        .as_ref()
                        .and_then(|j| j.get("hop"))
                        .is_some_and(|h| h.as_u64() == Some(0));
                    nodes.push((n, start));
                }
            }
            let list: Vec<u32> = nodes.iter().map(|&(n, _)| n).collect();
            let edges = induced_edges(&ix, &list);
            if markdown {
                out.write_all(b"```dot\n")?;
            }
            write_dot(&mut out, &ix, &nodes, &edges)?;
            if markdown {
                out.write_all(b"```\n")?;
            }
        }
        FmtView::Fold | FmtView::Graph => {}
    }
    out.finish()?;
    Ok((!records.is_empty()).into())
}

/// Writes `text`, in a fenced block with `--markdown`.
fn fenced(out: &mut Out, markdown: bool, lang: &str, text: &[u8]) -> crate::Result<()> {
    if markdown {
        writeln!(out, "```{lang}")?;
    }
    out.write_all(text)?;
    if markdown {
        out.write_all(b"```\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sound() {
        assert_eq!(cli::flags::check(&TOOL), Vec::<String>::new());
    }
}
