//! `cds-trav`'s command line: its flag table and its views of a walk.
//!
//! Default view, one line per entity (the shared record plus how it was reached):
//!
//! ```text
//! shop/views.py:checkout  function  22-26  def checkout(request):  hop=1 invokes=shop/cart.py:Cart.add
//! ```
//!
//! (the gaps are TABs). `--edges` prints `src<TAB>rel<TAB>dst<TAB>conf`, `--tree` LocAgent's expanded tree, `--dot`
//! a Graphviz digraph, `--json` the records with `hop`, `via`, `dir`, `from`, `meta`, `conf`
//! and `cut`.

use std::ffi::{OsStr, OsString};
use std::io::Write;

use super::{Direction, Reach, Step, Walk, bfs, conf_name, relation_phrase, tree};
use crate::cli::flags::{value_parse, value_str};
use crate::cli::{
    self, Args, Common, Complete, Flag, Format, Out, Positional, Status, Tool, common,
};
use crate::get::Resolver;
use crate::graph::{FLAG_TEST, Mode};
use crate::index::Index;

/// The views `cds-trav` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TravView {
    /// One record per entity.
    #[default]
    Lines,
    /// One line per edge.
    Edges,
    /// LocAgent's expanded tree.
    Tree,
    /// Graphviz DOT.
    Dot,
}

/// Parsed flags.
#[derive(Debug)]
pub struct TravArgs {
    common: Common,
    ids: Vec<OsString>,
    walk: Walk,
    /// `-h -1` as given (LocAgent reads it as 20 in the tree view).
    unlimited: bool,
    no_roots: bool,
    view: TravView,
    /// The view flag as typed, for messages.
    view_flag: &'static str,
}

impl Default for TravArgs {
    fn default() -> TravArgs {
        TravArgs {
            common: Common::default(),
            ids: Vec::new(),
            walk: Walk::default(),
            unlimited: false,
            no_roots: false,
            view: TravView::Lines,
            view_flag: "",
        }
    }
}

impl Args for TravArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

fn hops(a: &mut TravArgs, v: Option<&OsStr>) -> Result<(), String> {
    let h: i64 = value_parse(v)?;
    match h {
        -1 => {
            a.walk.hops = None;
            a.unlimited = true;
        }
        h if h >= 0 => {
            a.walk.hops = Some(u32::try_from(h).unwrap_or(u32::MAX));
            a.unlimited = false;
        }
        _ => return Err("expected -1 (unlimited) or a number of hops >= 0".to_string()),
    }
    Ok(())
}

fn direction(a: &mut TravArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.walk.direction = Direction::parse(value_str(v)?).ok_or("expected down, up or both")?;
    Ok(())
}

fn kinds(a: &mut TravArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.walk.kinds |= super::parse_kinds(value_str(v)?)?;
    Ok(())
}

fn rels(a: &mut TravArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.walk.rels |= super::parse_rels(value_str(v)?)?;
    Ok(())
}

fn tests(a: &mut TravArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.walk.tests = true;
    Ok(())
}

fn limit(a: &mut TravArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.walk.limit = value_parse(v)?;
    Ok(())
}

fn fanout(a: &mut TravArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.walk.fanout = value_parse(v)?;
    Ok(())
}

fn no_roots(a: &mut TravArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.no_roots = true;
    Ok(())
}

fn set_view(a: &mut TravArgs, view: TravView, flag: &'static str) {
    a.view = view;
    a.view_flag = flag;
}

fn view_tree(a: &mut TravArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, TravView::Tree, "--tree");
    Ok(())
}

fn view_edges(a: &mut TravArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, TravView::Edges, "--edges");
    Ok(())
}

fn view_dot(a: &mut TravArgs, _: Option<&OsStr>) -> Result<(), String> {
    set_view(a, TravView::Dot, "--dot");
    Ok(())
}

fn id(a: &mut TravArgs, v: OsString) -> Result<(), String> {
    a.ids.push(v);
    Ok(())
}

/// The tool's table.
pub static TOOL: Tool<TravArgs> = Tool {
    name: "cds-trav",
    about: "Walk the code graph from entities: contains, imports, invokes, inherits",
    usage: &["cds-trav [OPTIONS] [ID]...", "cds-search QUERY | cds-trav [OPTIONS]"],
    description: "cds-trav walks the code graph breadth-first from the given entities and \
prints every entity it reaches once, nearest first. The graph's nodes are directories, files, \
classes and functions; its edges are contain, import, invoke and inherit. Going down follows \
them forwards (what an entity contains, imports, invokes, inherits); going up follows them \
backwards (who contains, imports, invokes, inherits it: its container, importers, callers, \
subclasses).

IDs come from the arguments, or from stdin when there are none (or an argument is -): one per \
line, the ID being the text up to the first TAB, or the \"id\" of a JSON line; blank lines and \
lines starting with # are skipped. So the output of any cds tool, jq -r .id, or rg -n (a \
path:LINE names the innermost entity around that line) can be piped in. Loose spellings such \
as /pkg/mod.py/, pkg.__init__ and ./pkg/mod.py are accepted.

The default view is one line per entity: ID, kind, lines, signature, and a last field saying \
how it was reached:

 shop/cart.py:Cart.add  function  12-13  def add(...):  hop=1 invoked-by=shop/views.py:checkout

hop=N is the distance from the nearest start entity (start entities have hop=0 and are \
printed first). The relation is written from the printed entity's side: invoked-by=X means X \
invokes it (reached going down from X), invokes=X means it invokes X (reached going up from \
X); likewise contains/contained-by, imports/imported-by, inherits/inherited-by. conf=guess \
marks an edge cds could not prove (the only candidate by name), conf=one-of-N one of N \
same-named candidates; resolved edges carry no conf. cut=N says N neighbours of this entity \
were left out by --limit or --fanout.

With -d both, only the start entities expand both ways; every other entity keeps going in the \
direction it was reached, so callers lead to their callers, never back down to their callees. \
Test files and directories are left out unless --tests is given (start entities are always \
walked).

On an index built with cds-build --compat locagent, --tree prints exactly what LocAgent's \
explore_tree_structure prints for the same start entities, direction, depth and filters \
(with -h -1 meaning 20 hops, and LocAgent's refusal of test entities as start points).

The exit status is 0 when something was printed, 1 when nothing was (no start entity found), \
2 on an error.",
    positional: Some(Positional {
        name: "ID",
        doc: "Start entities (read from stdin when none are given)",
        many: true,
        complete: Complete::Nothing,
        apply: id,
    }),
    flags: &[
        Flag::new("hops", "Follow at most N edges (default 1; -1: no limit)", hops)
            .short('h')
            .value("N")
            .long_doc(
                "Walk at most N edges away from the start entities. 0 prints the start entities \
alone; -1 means no limit (in the --tree view of a --compat locagent index, 20, as LocAgent). \
The default is 1. This tool uses -h for --hops: help is --help.",
            ),
        Flag::new("direction", "down (what it uses), up (who uses it) or both", direction)
            .short('d')
            .value("DIR")
            .choices(&["down", "up", "both", "downstream", "upstream"])
            .long_doc(
                "down (the default) follows edges forwards: what an entity contains, imports, \
invokes and inherits. up follows them backwards: who contains, imports, invokes or inherits \
it. both does both from the start entities, then keeps each branch going its own way. \
LocAgent's downstream and upstream are accepted.",
            ),
        Flag::new("type", "Keep only kinds: directory,file,class,function", kinds)
            .short('t')
            .value("KIND")
            .long_doc(
                "Keep only entities of these kinds: directory, file, class, function (also dir, \
func, method). Give a comma-separated list or repeat the flag. An entity of another kind is \
neither printed nor walked through, as in LocAgent; start entities are always kept.",
            ),
        Flag::new("rel", "Follow only relations: contain,import,invoke,inherit", rels)
            .short('r')
            .value("REL")
            .long_doc(
                "Follow only these relations: contain, import, invoke, inherit (LocAgent's \
contains, imports, invokes, inherits, and call, are accepted). Give a comma-separated list or \
repeat the flag. The default follows all four.",
            ),
        Flag::new("tests", "Walk into test files and directories too", tests).long_doc(
            "Walk into tests too. By default, entities in test files and test directories \
(tests/, test_*.py, *_test.py, tests.py, conftest.py; on a --compat locagent index LocAgent's rule: \
any path piece starting with \"test\") are left out.",
        ),
        Flag::new("limit", "Stop after N entities (default 200; 0: no limit)", limit)
            .short('m')
            .value("N")
            .long_doc(
                "Print at most N entities besides the start entities (in --tree, N lines). When \
the limit cuts the walk, cds-trav says so on stderr, the entities whose neighbours were left \
out carry cut=N (\"cut\" in JSON), and the tree ends with a \"... cut at --limit\" line. The \
default is 200; 0 means no limit.",
            ),
        Flag::new("fanout", "Max new neighbours per entity and relation (100)", fanout)
            .value("N")
            .long_doc(
                "Take at most N new neighbours from any one entity through one relation in one \
direction, so that a hub (a base class with thousands of subclasses, a helper called from \
everywhere) cannot fill the output, and a class's many methods cannot crowd out its callers. \
The rest are counted in cut=N (\"cut\" in JSON; a \"... N more\" line in --tree) and reported \
on stderr. The default is 100; 0 means no limit.",
            ),
        Flag::new("no-roots", "Leave the start entities out of the output", no_roots).long_doc(
            "Do not print the start entities (hop 0) in the line, JSON and ID views; they are \
still walked from. Handy before cds-get, to see only the callers or callees.",
        ),
        Flag::new("tree", "Print LocAgent's expanded tree", view_tree).long_doc(
            "Print each start entity's neighbourhood as LocAgent's expanded tree: the start \
entity, then one line per edge, \"├── invokes ── ID\", indented under its parent; upward edges \
are labelled invokes-by, contains-by and so on. It is a depth-first walk that prints an entity \
each time it is reached but expands it only the first time, and prints each edge once. Trees \
of several start entities are separated by a blank line. On a native index the labels are \
cds's names (invoke, invoke-by); on a --compat locagent index they are LocAgent's, and the \
output is byte-identical to LocAgent's explore_tree_structure.",
        ),
        Flag::new("edges", "Print the edges walked: src, rel, dst, confidence", view_edges)
            .long_doc(
                "Print one line per edge followed between two printed entities: source ID, \
relation, target ID and confidence (exact, guess, or one-of-N), TAB-separated. With --json, \
one object per edge with id (the source), src, rel, dst, meta (0 exact, 1 guess, N one of N) \
and conf.",
            ),
        Flag::new("dot", "Print the walk as a Graphviz digraph", view_dot).long_doc(
            "Print the entities and edges of the walk as a Graphviz digraph (dot -Tsvg). Start \
entities are bold; guessed edges are dashed, one-of-N edges dotted.",
        ),
        common::index(),
        common::json(),
        common::ids(),
        common::null(),
        common::color(),
        common::quiet(),
    ],
    examples: &[
        ("Who calls a function", "cds-trav -d up -r invoke shop/security.py:sanitize_user_input"),
        ("What a class uses, two hops out", "cds-trav -h2 shop/cart.py:Cart"),
        (
            "Callers' code",
            "cds-trav -h1 -r invoke -d up --no-roots shop/pricing.py:apply_discount | cds-get",
        ),
        ("LocAgent's tree, both directions", "cds-trav --tree -h2 -d both shop/cart.py:Cart.total"),
        ("The repository's layout", "cds-trav --tree -h -1 -r contain -t directory,file /"),
        (
            "Only the first hop of a two-hop walk, through jq",
            "cds-trav -h2 --json shop/cart.py:Cart | jq -r 'select(.hop==1).id' | cds-get",
        ),
        (
            "Guessed calls only",
            "cds-trav --edges --json -h2 -r contain,invoke shop/views.py | jq -c 'select(.meta==1)'",
        ),
        (
            "The functions around grep hits, and who calls them",
            "rg -n 'raise ' | cds-trav -d up -r invoke",
        ),
        (
            "Who uses the files rg finds",
            "rg -l 'import html' | cds-trav -d up -r import --ids | sort -u",
        ),
        (
            "Callers of every function ast-grep finds",
            "ast-grep run -p 'html.escape($X)' --json=stream | jq -r '\"\\(.file):\\(.range.start.line+1)\"' | cds-trav -d up -r invoke",
        ),
        ("Draw it", "cds-trav --dot -h2 -d both shop/cart.py:Cart | dot -Tsvg > cart.svg"),
        (
            "Three stages",
            "cds-trav --ids -h0 shop/models.py:Profile | cds-trav -h1 -r invoke -d up | cds-get --view preview",
        ),
    ],
    see_also: &["cds(7)", "cds-search(1)", "cds-get(1)", "cds-fmt(1)", "cds-build(1)"],
};

/// Runs `cds-trav`.
pub fn run(mut args: TravArgs) -> crate::Result<Status> {
    let format = args.common.format;
    match (args.view, format) {
        (TravView::Tree | TravView::Dot, Format::Json | Format::Ids)
        | (TravView::Edges, Format::Ids) => {
            let other = if format == Format::Json { "--json" } else { "--ids" };
            return Err(crate::Error::usage(format!(
                "{} cannot be combined with {other}",
                args.view_flag
            )));
        }
        _ => {}
    }
    let ix = args.common.open_index()?;
    let resolver = Resolver::new(&ix);
    let mut roots = Vec::new();
    for rec in cli::entity_inputs(std::mem::take(&mut args.ids)) {
        let rec = rec?;
        match resolver.entity(&rec.id) {
            Some(n) => roots.push(n),
            None => resolver.report_missing(&rec.id)?,
        }
    }
    let mut out = Out::new(&args.common);
    let printed = if args.view == TravView::Tree {
        write_trees(&mut out, &ix, &roots, &args)?
    } else {
        let reach = bfs(&ix, &roots, &args.walk);
        report_cuts(&reach, &args.walk);
        match args.view {
            TravView::Lines => write_steps(&mut out, &ix, &reach, &args)?,
            TravView::Edges => write_edges(&mut out, &ix, &reach, format)?,
            _ => {
                let nodes: Vec<(u32, bool)> =
                    reach.steps.iter().map(|s| (s.node, s.hop == 0)).collect();
                crate::fmt::write_dot(&mut out, &ix, &nodes, &reach.edges)?;
                !nodes.is_empty()
            }
        }
    };
    out.finish()?;
    Ok(printed.into())
}

/// Says on stderr what `--limit` and `--fanout` left out.
fn report_cuts(reach: &Reach, w: &Walk) {
    if reach.limited {
        cli::msg::note(format_args!(
            "stopped at --limit {} entities; the entities marked cut=N have more neighbours: \
             raise --limit (0: no limit) or narrow with -t, -r, -h",
            w.limit
        ));
    }
    if reach.hubs > 0 {
        cli::msg::note(format_args!(
            "{} entit{} had more than --fanout {} new neighbours; the rest are counted in \
             cut=N: raise --fanout (0: no limit) or narrow with -t, -r",
            reach.hubs,
            if reach.hubs == 1 { "y" } else { "ies" },
            w.fanout
        ));
    }
}

/// The default, JSON and ID views: one record per entity.
fn write_steps(out: &mut Out, ix: &Index, reach: &Reach, args: &TravArgs) -> crate::Result<bool> {
    let mut printed = false;
    for s in &reach.steps {
        if args.no_roots && s.hop == 0 {
            continue;
        }
        printed = true;
        match args.common.format {
            Format::Ids => {
                out.write_id(ix.id(s.node))?;
                out.record_end()?;
            }
            Format::Json => crate::record::write_json(out, ix, s.node, step_fields(ix, s))?,
            Format::Text => crate::record::write_line(out, ix, s.node, &step_tag(ix, s))?,
        }
    }
    Ok(printed)
}

/// The text view's last field: `hop=N`, how the entity was reached (`invoked-by=ID`), the
/// edge's confidence when it is a guess, and `cut=N` when neighbours were left out.
pub fn step_tag(ix: &Index, s: &Step) -> String {
    let mut tag = format!("hop={}", s.hop);
    if let Some(v) = s.via {
        let from = crate::id::display(ix.id(v.from));
        tag.push_str(&format!(" {}={from}", relation_phrase(v.rel, v.up)));
        if v.meta != 0 && v.meta != crate::graph::link::META_FLOW {
            tag.push_str(&format!(" conf={}", conf_name(v.meta)));
        }
        if let Some(b) = super::found_by(v.meta) {
            tag.push_str(&format!(" found-by={b}"));
        }
    }
    if s.cut > 0 {
        tag.push_str(&format!(" cut={}", s.cut));
    }
    tag
}

/// The fields a step adds to its entity's JSON record: `hop`, and `via`, `dir`, `from`, `meta`,
/// `conf` and `cut` when they apply.
pub fn step_fields(ix: &Index, s: &Step) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let mut m = serde_json::Map::new();
    m.insert("hop".into(), json!(s.hop));
    if let Some(v) = s.via {
        m.insert("via".into(), json!(v.rel.name()));
        m.insert("dir".into(), json!(if v.up { "up" } else { "down" }));
        m.insert("from".into(), json!(crate::id::display(ix.id(v.from))));
        m.insert("meta".into(), json!(v.meta));
        m.insert("conf".into(), json!(conf_name(v.meta)));
        if let Some(b) = super::found_by(v.meta) {
            m.insert("found_by".into(), json!(b));
        }
    }
    if s.cut > 0 {
        m.insert("cut".into(), json!(s.cut));
    }
    m
}

/// The `--edges` view.
fn write_edges(out: &mut Out, ix: &Index, reach: &Reach, format: Format) -> crate::Result<bool> {
    use crate::cli::Style;
    for e in &reach.edges {
        let (src, dst) = (crate::id::display(ix.id(e.src)), crate::id::display(ix.id(e.dst)));
        if format == Format::Json {
            let mut j = serde_json::json!({
                "id": src, "src": src, "rel": e.rel.name(), "dst": dst,
                "meta": e.meta, "conf": conf_name(e.meta),
            });
            if let Some(b) = super::found_by(e.meta) {
                j["via"] = serde_json::json!(b);
            }
            out.json_line(&j)?;
        } else {
            out.paint(Style::Id, src.as_bytes())?;
            out.write_all(b"\t")?;
            out.paint(Style::Kind, e.rel.name())?;
            out.write_all(b"\t")?;
            out.paint(Style::Id, dst.as_bytes())?;
            out.write_all(b"\t")?;
            out.paint(Style::Dim, conf_name(e.meta).as_bytes())?;
            out.record_end()?;
        }
    }
    Ok(!reach.edges.is_empty())
}

/// The `--tree` view: one tree per start entity, separated by blank lines; on a LocAgent
/// index, LocAgent's refusals of test entities after them (the whole as LocAgent joins it).
fn write_trees(out: &mut Out, ix: &Index, roots: &[u32], args: &TravArgs) -> crate::Result<bool> {
    let locagent = ix.mode() == Mode::LocAgent;
    let mut walk = args.walk.clone();
    if locagent && args.unlimited {
        // LocAgent reads a depth of -1 as 20.
        walk.hops = Some(20);
    }
    let mut trees: Vec<String> = Vec::new();
    let mut hints = String::new();
    let (mut limited, mut hubs) = (false, 0);
    for &root in roots {
        if locagent && !walk.tests && ix.flags(root) & FLAG_TEST != 0 {
            hints.push_str(&format!(
                "No results for the test entity: `{}`. Please do not include any test \
                 entities.\n\n",
                crate::id::display(ix.id(root))
            ));
            continue;
        }
        let t = tree(ix, root, &walk, locagent);
        limited |= t.limited;
        hubs += t.hubs;
        trees.push(t.text);
    }
    let mut text = trees.join("\n\n");
    if !hints.trim().is_empty() {
        text.push_str("\n\n");
        text.push_str(&hints);
    }
    let text = text.trim();
    if limited {
        cli::msg::note(format_args!(
            "stopped at --limit {} lines: raise --limit (0: no limit) or narrow with -t, -r, -h",
            walk.limit
        ));
    }
    if hubs > 0 {
        cli::msg::note(format_args!(
            "{hubs} entit{} had more than --fanout {} children (see the \"... more\" lines): \
             raise --fanout (0: no limit) or narrow with -t, -r",
            if hubs == 1 { "y" } else { "ies" },
            walk.fanout
        ));
    }
    if text.is_empty() {
        return Ok(false);
    }
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sound() {
        assert_eq!(cli::flags::check(&TOOL), Vec::<String>::new());
    }

    fn parse(args: &[&str]) -> TravArgs {
        match cli::flags::parse(&TOOL, args.iter().copied()) {
            Ok(cli::Action::Run(a)) => a,
            _ => panic!("{args:?} did not parse"),
        }
    }

    #[test]
    fn hops_and_help() {
        assert_eq!(parse(&["-h", "2"]).walk.hops, Some(2));
        assert_eq!(parse(&["-h2"]).walk.hops, Some(2));
        assert_eq!(parse(&["-h", "-1"]).walk.hops, None);
        assert_eq!(parse(&["--hops=0"]).walk.hops, Some(0));
        assert_eq!(parse(&[]).walk.hops, Some(1));
        assert!(cli::flags::parse(&TOOL, ["-h", "-2"]).is_err());
        assert!(matches!(cli::flags::parse(&TOOL, ["--help"]), Ok(cli::Action::Print(_))));
    }

    #[test]
    fn filters() {
        let a =
            parse(&["-t", "class,function", "-r", "invokes", "-r", "inherit", "-d", "upstream"]);
        assert_eq!(a.walk.kinds, 0b1100);
        assert_eq!(a.walk.rels, 0b1100);
        assert_eq!(a.walk.direction, Direction::Up);
    }
}
