//! `cds-loc`'s command line and its two outputs: text for people and LLMs, and the fixed JSON
//! object external harnesses read.

use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Read, Write};

use crate::cli::flags::value_parse;
use crate::cli::{
    self, Args, Common, Complete, Flag, Format, Out, Positional, Status, Style, Tool, common,
};
use crate::error::{Error, Result};
use crate::graph::NodeKind;
use crate::index::Index;
use crate::loc::{self, Located, Location, Weights};

/// Parsed flags.
#[derive(Debug, Default)]
pub struct LocArgs {
    common: Common,
    input: Option<OsString>,
    limit: Option<usize>,
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

fn tune(a: &mut LocArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.weights.tune(crate::cli::flags::value_str(v)?)
}

fn features(a: &mut LocArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.features = true;
    Ok(())
}

fn input(a: &mut LocArgs, v: OsString) -> Result<(), String> {
    a.input = Some(v);
    Ok(())
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
over its code, over the issue's identifiers and over its title, path words, traceback frames, \
graph neighbours and class members named in the issue, shape priors, and for a file how \
recently and how often it changed, when cds-build read the repository's git history) and a \
small linear model, \
fitted on SWE-bench dev issues and compiled in, ranks files first, then functions (their file's \
rank is one of their features), then top-level classes and functions. Tests are left out; \
documentation, examples and benchmarks are down-weighted.

With --json the output is one JSON object, a fixed interface for external harnesses:

{\"found_files\": [paths], \"found_modules\": [\"file.py:TopLevelName\"], \"found_entities\": \
[\"file.py:Class.method\", \"file.py:func\"], \"locations\": [{\"id\", \"kind\", \"score\", \
\"reasons\"}]}

Each list is ranked best first, with up to -n entries per level.",
    positional: Some(Positional {
        name: "FILE",
        doc: "The issue text (default: stdin; - for stdin)",
        many: false,
        complete: Complete::File,
        apply: input,
    }),
    flags: &[
        Flag::new("limit", "Locations per level (default 10)", limit).short('n').value("N"),
        Flag::new("tune", "Override method weights (key=value,...), for benchmarks", tune)
            .value("WEIGHTS")
            .hidden(),
        Flag::new("features", "Print every candidate's features as JSON, for fitting", features)
            .hidden(),
        common::index(),
        common::json(),
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
            "cds-loc --json issue.md | jq -r '.found_entities[:3][]' | cds-get",
        ),
        (
            "What calls the top function",
            "cds-loc --json issue.md | jq -r '.found_entities[0]' | cds-trav -r invoke -d up",
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
    let text = String::from_utf8_lossy(&bytes);
    let ix = args.common.open_index()?;
    let limit = args.limit.unwrap_or(10);
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
    if args.common.format == Format::Json {
        out.json_line(&to_json(&ix, &located))?;
    } else {
        write_text(&mut out, &ix, &located)?;
    }
    out.finish()?;
    if located.files.is_empty() {
        cli::msg::note(if text.trim().is_empty() {
            "the issue is empty: give its text (title, description, traceback)"
        } else {
            "nothing in the issue matches this repository: is the index the right one?"
        });
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

/// The text view: a section per level, one location per line with its score, lines, fold
/// and strongest reason.
pub fn write_text(out: &mut Out, ix: &Index, l: &Located) -> Result<()> {
    let sections: [(&str, &[Location]); 3] = [
        ("Files", &l.files),
        ("Classes and functions", &l.modules),
        ("Functions and methods", &l.entities),
    ];
    for (i, (title, items)) in sections.iter().enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        out.paint(Style::Heading, format!("# {title}\n").as_bytes())?;
        for x in items.iter() {
            out.paint_fmt(Style::Dim, format_args!("{:6.1}  ", x.score))?;
            let shown = if i == 1 { loc::module_id(ix, x.node) } else { ix.id(x.node).to_vec() };
            out.paint(Style::Id, crate::id::display(&shown).as_bytes())?;
            if ix.kind(x.node) != NodeKind::File {
                let (a, b) = ix.lines(x.node);
                out.write_all(b"  ")?;
                out.paint_fmt(Style::LineNo, format_args!("{a}-{b}"))?;
                write!(out, "  {}", ix.fold(x.node))?;
            }
            if let Some(r) = x.reasons.first() {
                write!(out, "  ")?;
                out.paint_fmt(Style::Dim, format_args!("({r})"))?;
            }
            out.write_all(b"\n")?;
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
