//! `cds-loc`'s command line and its outputs: text for people and LLMs (one record per line, so
//! it pipes into the other tools like theirs does), bare IDs, and the fixed JSON object external
//! harnesses read.

use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Read};

use crate::cli::flags::value_parse;
use crate::cli::{
    self, Args, Common, Complete, Flag, Format, Out, Positional, Status, Style, Tool, common,
};
use crate::error::{Error, Result};
use crate::index::Index;
use crate::loc::{self, Located, Location, Weights};

/// Parsed flags.
#[derive(Debug, Default)]
pub struct LocArgs {
    common: Common,
    input: Option<OsString>,
    limit: Option<usize>,
    level: Option<Level>,
    weights: Weights,
    features: bool,
}

impl Args for LocArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

fn limit(a: &mut LocArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.limit = Some(value_parse(v)?);
    Ok(())
}

/// One of the three ranked lists (`--level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    File,
    Module,
    Function,
}

fn level(a: &mut LocArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.level = Some(match v.and_then(OsStr::to_str) {
        Some("file") => Level::File,
        Some("module") => Level::Module,
        _ => Level::Function,
    });
    Ok(())
}

fn tune(a: &mut LocArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.weights.tune(crate::cli::flags::value_str(v)?)
}

fn features(a: &mut LocArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.features = true;
    Ok(())
}

fn input(a: &mut LocArgs, v: OsString) -> Result<(), String> {
    if a.input.is_some() {
        return Err("give the issue once: as FILE or with -f".into());
    }
    a.input = Some(v);
    Ok(())
}

fn file(a: &mut LocArgs, v: Option<&OsStr>) -> Result<(), String> {
    input(a, v.unwrap_or_default().to_os_string())
}

/// The tool's table.
pub static TOOL: Tool<LocArgs> = Tool {
    name: "cds-loc",
    about: "Rank the files, classes and functions an issue is about, in one call",
    usage: &["cds-loc [OPTIONS] [FILE|-]"],
    description: "cds-loc reads an issue (prose, code blocks, tracebacks) from FILE or stdin and \
prints the locations most likely to need the change: files, then top-level classes and \
functions (modules), then functions and methods, each ranked best first with the reasons it \
ranks. It needs no model and no network: it is the one-shot first step of an agent, and a \
baseline for localization benchmarks.

Method: the issue is read as a long query in which identifiers, dotted names, file paths and \
traceback frames weigh more than prose, and every content word is also looked up as a name (so \
'sqlmigrate' finds sqlmigrate.py). Each candidate gets evidence of its own (name matches, BM25 \
over its code with the other forms of the issue's words (delete for deleting), over the \
issue's identifiers and over its title, path words, traceback frames, \
graph neighbours and class members named in the issue, shape priors, and for a file how \
recently and how often it changed, when cds-build read the repository's git history) and a \
small linear model, \
fitted on SWE-bench dev issues and compiled in, ranks files first, then functions (their file's \
rank is one of their features), then top-level classes and functions. Tests are left out; \
documentation, examples and benchmarks are down-weighted. In a large repository, where an \
issue's common words match hundreds of thousands of entities, the levels are built from the \
best 50,000 by the hand-set score.

With --json the output is one JSON object, a fixed interface for external harnesses:

{\"found_files\": [paths], \"found_modules\": [\"file.py:TopLevelName\"], \"found_entities\": \
[\"file.py:Class.method\", \"file.py:func\"], \"locations\": [{\"id\", \"kind\", \"score\", \
\"reasons\"}]}

Each list is ranked best first, with up to -n entries per level.

The text view is a heading per level (a '#' line, which the other tools skip) and one record per \
location in the format every cds tool prints and reads (ID, kind, lines, the first line of its \
code, then the score and the strongest reason), so 'cds-loc issue.md | cds-trav -h1' works; \
--ids prints each location's ID once, files first; --level keeps one level.",
    positional: Some(Positional {
        name: "FILE",
        doc: "The issue text (default: stdin; - for stdin)",
        many: false,
        complete: Complete::File,
        apply: input,
    }),
    flags: &[
        Flag::new("file", "Read the issue from FILE (- for stdin), like the argument", file)
            .short('f')
            .value("FILE")
            .complete(Complete::File),
        Flag::new("limit", "Locations per level (default 10; 0 for all)", limit)
            .short('n')
            .value("N"),
        Flag::new("level", "Print only one level: file, module or function", level)
            .short('l')
            .value("LEVEL")
            .choices(&["file", "module", "function"])
            .long_doc(
                "Print only the files, only the module-level classes and functions, or only the \
functions and methods (with --ids: only their IDs). --json always prints every level: it is a \
fixed interface.",
            ),
        Flag::new("tune", "Override method weights (key=value,...), for benchmarks", tune)
            .value("WEIGHTS")
            .hidden(),
        Flag::new("features", "Print every candidate's features as JSON, for fitting", features)
            .hidden(),
        common::index(),
        common::json(),
        common::ids(),
        common::null(),
        common::color(),
        common::quiet(),
    ],
    examples: &[
        ("Locate an issue saved to a file", "cds-loc issue.md"),
        (
            "From a GitHub issue body, the top 5 per level as JSON",
            "gh issue view 123 --json body -q .body | cds-loc -n5 --json",
        ),
        ("The files only, for a script", "cds-loc --json issue.md | jq -r '.found_files[]'"),
        (
            "The best functions' code, for an LLM prompt",
            "cds-loc -l function -n3 issue.md | cds-get",
        ),
        ("Where the top locations sit, as one tree", "cds-loc -n3 issue.md | cds-fmt --tree"),
        (
            "What calls the top function",
            "cds-loc --ids -l function -n1 issue.md | cds-trav -r invoke -d up",
        ),
    ],
    see_also: &["cds(7)", "cds-search(1)", "cds-trav(1)", "cds-get(1)"],
};

/// Longest issue read, in bytes; the rest is ignored (the query stage caps it again).
const MAX_INPUT: u64 = 1 << 20;

/// Runs `cds-loc`.
pub fn run(args: LocArgs) -> Result<Status> {
    let mut bytes = Vec::new();
    match args.input.as_deref() {
        Some(p) if p != "-" => {
            let f = std::fs::File::open(p).map_err(|e| Error::io("cannot read", p, e))?;
            f.take(MAX_INPUT)
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io("cannot read", p, e))?;
        }
        _ => {
            if std::io::stdin().is_terminal() {
                return Err(Error::usage("no issue: give a FILE or the issue text on stdin"));
            }
            std::io::stdin()
                .lock()
                .take(MAX_INPUT)
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io("cannot read", "stdin", e))?;
        }
    }
    let text = crate::cli::input::query_text(&bytes, args.input.as_deref())?;
    // Nothing to rank by: a usage error, as cds-search's empty query is (not three empty
    // levels and "nothing found").
    if text.trim().is_empty() {
        return Err(Error::usage(
            "the issue is empty: give its text (title, description, traceback) as FILE or on stdin",
        ));
    }
    if args.level.is_some() && args.common.format == Format::Json {
        return Err(Error::usage(
            "--level does not apply to --json, which always has every level: use --ids or the text",
        ));
    }
    let ix = args.common.open_index()?;
    // 0 is every candidate, as cds-search's -n 0 is every hit.
    let limit = match args.limit.unwrap_or(10) {
        0 => usize::MAX,
        n => n,
    };
    if args.features {
        let mut out = Out::new(&args.common);
        let v = match loc::candidates(&ix, &text, &args.weights)? {
            Some((c, _, _)) => features_json(&ix, &c),
            None => serde_json::json!({}),
        };
        out.json_line(&v)?;
        out.finish()?;
        return Ok(Status::Found);
    }
    let located = loc::locate(&ix, &text, limit, &args.weights)?;
    let mut out = Out::new(&args.common);
    match args.common.format {
        Format::Json => out.json_line(&to_json(&ix, &located))?,
        Format::Ids => write_ids(&mut out, &ix, &located, args.level)?,
        Format::Text => write_text(&mut out, &ix, &located, args.level)?,
    }
    out.finish()?;
    if located.files.is_empty() {
        cli::msg::note("nothing in the issue matches this repository: is the index the right one?");
        return Ok(Status::NotFound);
    }
    Ok(Status::Found)
}

fn id(ix: &Index, n: u32) -> String {
    crate::id::display(ix.id(n)).into_owned()
}

/// The JSON object (a fixed interface: external harnesses read it).
pub fn to_json(ix: &Index, l: &Located) -> serde_json::Value {
    let ids = |v: &[Location]| -> Vec<String> { v.iter().map(|x| id(ix, x.node)).collect() };
    let mut locations = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for x in l.files.iter().chain(&l.modules).chain(&l.entities) {
        if seen.insert(x.node) {
            locations.push(serde_json::json!({
                "id": id(ix, x.node),
                "kind": ix.kind(x.node).name(),
                "score": (f64::from(x.score) * 1000.0).round() / 1000.0,
                "reasons": x.reasons,
            }));
        }
    }
    // Modules as DESIGN §8 names them: two methods of a type written in another file are
    // one module, `FILE:Type`.
    let mut modules: Vec<String> = Vec::new();
    for x in &l.modules {
        let m = crate::id::display(&loc::module_id(ix, x.node)).into_owned();
        if !modules.contains(&m) {
            modules.push(m);
        }
    }
    serde_json::json!({
        "found_files": ids(&l.files),
        "found_modules": modules,
        "found_entities": ids(&l.entities),
        "locations": locations,
    })
}

/// Every candidate's features (`--features`), for bench/loc/fit.py.
fn features_json(ix: &Index, c: &loc::Candidates) -> serde_json::Value {
    use crate::loc::model::{FILE_FEATURES, FUNCTION_FEATURES, MODULE_FEATURES};
    let level = |l: &loc::Level, names: &[&str]| {
        let ids = |v: &[u32]| -> Vec<String> {
            v.iter()
                .map(|&n| if n == crate::graph::NONE { String::new() } else { id(ix, n) })
                .collect()
        };
        let x: Vec<Vec<f64>> =
            l.x.iter()
                .map(|r| r.iter().map(|&v| (f64::from(v) * 1e5).round() / 1e5).collect())
                .collect();
        serde_json::json!({
            "names": names,
            "ids": ids(&l.nodes),
            "file": ids(&l.file),
            "module": ids(&l.module),
            "x": x,
        })
    };
    serde_json::json!({
        "files": level(&c.files, &FILE_FEATURES),
        "functions": level(&c.functions, &FUNCTION_FEATURES),
        "modules": level(&c.modules, &MODULE_FEATURES),
    })
}

/// The levels to print, with their headings: all three, or the one `--level` names.
fn sections(l: &Located, only: Option<Level>) -> Vec<(&'static str, &[Location])> {
    [
        (Level::File, "Files", &l.files[..]),
        (Level::Module, "Classes and functions", &l.modules[..]),
        (Level::Function, "Functions and methods", &l.entities[..]),
    ]
    .into_iter()
    .filter(|(level, ..)| only.is_none_or(|o| o == *level))
    .map(|(_, title, items)| (title, items))
    .collect()
}

/// The text view: a `#` heading per level, then one record per location, as every tool prints
/// them (`ID<TAB>kind<TAB>lines<TAB>fold<TAB>score reason`), so the view pipes into the others.
/// A module-level method of a type written in another file is printed as itself (an entity
/// the other tools know), not as the `FILE:Type` module of the JSON object.
pub fn write_text(out: &mut Out, ix: &Index, l: &Located, only: Option<Level>) -> Result<()> {
    for (i, (title, items)) in sections(l, only).into_iter().enumerate() {
        if i > 0 {
            out.record_end()?;
        }
        out.paint(Style::Heading, format!("# {title}").as_bytes())?;
        out.record_end()?;
        for x in items {
            let reason = x.reasons.first().map_or("", String::as_str);
            crate::record::write_line(out, ix, x.node, &format!("{:.1} {reason}", x.score))?;
        }
    }
    Ok(())
}

/// `--ids`: each location's ID once, in the order of the text view.
fn write_ids(out: &mut Out, ix: &Index, l: &Located, only: Option<Level>) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for (_, items) in sections(l, only) {
        for x in items.iter().filter(|x| seen.insert(x.node)) {
            out.write_id(ix.id(x.node))?;
            out.record_end()?;
        }
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
