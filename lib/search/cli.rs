//! `cds-search`'s command line: query input, filters, views.

use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use crate::cli::flags::{value_parse, value_str};
use crate::cli::{
    self, Args, Common, Complete, Flag, Format, Out, Positional, Status, Tool, common,
};
use crate::error::{Error, Result};
use crate::get;
use crate::graph::NodeKind;
use crate::index::Index;
use crate::record;
use crate::search::query;
use crate::search::rank::{self, Hit, SearchOptions};

/// Parsed flags.
#[derive(Debug, Default)]
pub struct SearchArgs {
    common: Common,
    words: Vec<OsString>,
    file: Option<PathBuf>,
    opts: SearchOptions,
    limit_set: bool,
    view: View,
    locagent: bool,
}

/// How hits are shown.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// One line per hit.
    #[default]
    Line,
    /// The line, then the signature, docstring and first lines.
    Preview,
    /// The line, then the whole code.
    Full,
}

impl Args for SearchArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

fn kinds(a: &mut SearchArgs, v: Option<&OsStr>) -> Result<(), String> {
    for k in value_str(v)?.split(',').filter(|k| !k.is_empty()) {
        let kind = NodeKind::parse(k.trim())
            .ok_or_else(|| format!("unknown kind '{k}': use directory, file, class or function"))?;
        if !a.opts.kinds.contains(&kind) {
            a.opts.kinds.push(kind);
        }
    }
    Ok(())
}

fn glob(a: &mut SearchArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.opts.globs.push(value_str(v)?.to_string());
    Ok(())
}

fn tests(a: &mut SearchArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.opts.tests = true;
    Ok(())
}

fn limit(a: &mut SearchArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.opts.limit = value_parse(v)?;
    a.limit_set = true;
    Ok(())
}

fn file(a: &mut SearchArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.file = v.map(PathBuf::from);
    Ok(())
}

fn view(a: &mut SearchArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.view = match value_str(v)? {
        "preview" => View::Preview,
        "full" => View::Full,
        _ => View::Line,
    };
    Ok(())
}

fn locagent(a: &mut SearchArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.locagent = true;
    Ok(())
}

fn word(a: &mut SearchArgs, v: OsString) -> Result<(), String> {
    a.words.push(v);
    Ok(())
}

/// The tool's table.
pub static TOOL: Tool<SearchArgs> = Tool {
    name: "cds-search",
    about: "Find the entities a name, a phrase or a whole issue is about",
    usage: &[
        "cds-search [OPTIONS] QUERY...",
        "cds-search [OPTIONS] -f ISSUE.md",
        "cat ISSUE.md | cds-search [OPTIONS]",
    ],
    description: "cds-search looks the query up in the index built by cds-build and prints the \
entities it is about, best first, one per line: ID, kind, lines, signature, and the score with the \
strongest reason it matched. The output is valid input for cds-trav, cds-get and cds-fmt.

The query can be a name (QuerySet, filter), a qualified name (QuerySet.filter, \
models.query.QuerySet, Rack::Request), an ID or path (django/db/models/query.py), free text (prefetch related \
objects), several terms at once, or a whole issue with prose, code blocks and a traceback (-f \
FILE, or on stdin). Each signal is searched at its own tier, from the most to the least certain, \
and the tiers are merged into one ranked list: exact ID or path; qualified name; exact name (case \
first); words joined into one identifier (prefetch related objects finds \
prefetch_related_objects); name prefix; fuzzy name (one edit or two letters swapped, for names \
of 4 to 20 characters); \
then BM25 over entity content with a code-aware tokenizer (getUserName finds get_user_name). In a \
long query, identifiers, dotted names, file paths and traceback frames weigh more than prose \
words, and a name shared by many entities (get, save) weighs less than a rare one. A long query \
(several lines, or more than 8 words) also searches the other forms of its words that the index \
holds, at half weight: deleting also finds delete, deleted and deletion (one English stem). A \
short query stays literal.

BM25 uses k1 = 1.2 and b = 0.75, with document lengths normalised per entity kind; a function's \
document is its code, a class's is its own code and member names, a file's is all of it, each \
with its name counted twice. Scores are deterministic.

Entities in test files are left out unless --tests is given; the number left out is said on \
stderr. Exit status: 0 when something was found, 1 when nothing was (with a hint), 2 on an \
error (an empty query is one).",
    positional: Some(Positional {
        name: "QUERY",
        doc: "Words of the query (stdin when none and no -f)",
        many: true,
        complete: Complete::Nothing,
        apply: word,
    }),
    flags: &[
        Flag::new("file", "Read the query from FILE (- for stdin)", file)
            .short('f')
            .value("FILE")
            .complete(Complete::File),
        Flag::new("type", "Keep only KIND entities (directory,file,class,function)", kinds)
            .short('t')
            .value("KIND")
            .long_doc(
                "Keep only entities of these kinds: directory, file, class, function (method \
is accepted for function). Repeat the flag or give a comma list: -t class,function.",
            ),
        Flag::new("glob", "Keep only paths matching GLOB (gitignore syntax)", glob)
            .short('g')
            .value("GLOB")
            .long_doc(
                "Keep only entities whose file path matches GLOB, in .gitignore syntax \
(django/db/**, *.py, !tests/). Repeatable; a later ! glob excludes.",
            ),
        Flag::new("tests", "Include entities in test files", tests),
        Flag::new("limit", "Show at most N hits (default 10; 0 for all)", limit)
            .short('n')
            .value("N"),
        Flag::new("view", "How to show hits: line, preview or full", view)
            .value("VIEW")
            .choices(&["line", "preview", "full"])
            .long_doc(
                "line (default): one line per hit. preview: the line, then the signature, \
docstring and first lines of code (a skeleton for a large class or file). full: the line, then \
all of its code, with line numbers.",
            ),
        Flag::new("locagent", "Print LocAgent's search_code_snippets text", locagent).long_doc(
            "Print the results as LocAgent's SearchEntity tool (search_code_snippets) does: per \
term a '##Searching for term' header, then complete code for an exact ID, a preview for up to \
three name matches, folded lines for more, and LocAgent's Source: and Hint: lines, so prompts \
written for LocAgent work unchanged. Each QUERY argument is one search term (quote a phrase), or \
each line of -f FILE or stdin; the last -g GLOB is LocAgent's file_path_or_pattern (default \
**/*.py, which, as in LocAgent, leaves out files at the repository root). Where LocAgent falls \
back to its BM25 indexes, cds's own search stands in. With --json, one object: output (the text) \
and entities (the IDs shown); with --ids, the IDs.",
        ),
        common::index(),
        common::json(),
        common::ids(),
        common::null(),
        common::color(),
        common::quiet(),
    ],
    examples: &[
        ("A class by name", "cds-search QuerySet"),
        ("A method by qualified name, only functions", "cds-search -t function QuerySet.filter"),
        ("Free text, in django/db only", "cds-search -g 'django/db/**' prefetch related objects"),
        ("A whole issue, the top 5 as JSON", "cds-search -n5 --json -f issue.md"),
        (
            "Callers of what a search finds, with their code",
            "cds-search -t function sanitize | cds-trav -h1 -r invoke -d up | cds-get",
        ),
        ("Only the IDs of classes, for a script", "cds-search -t class --ids Serializer | sort"),
        (
            "Scores and reasons with jq",
            "cds-search --json bulk create | jq -r '[.score, .id, .reasons[0]] | @tsv'",
        ),
        (
            "Only in the files that mention a string (rg finds them; each becomes a -g glob)",
            "cds-search $(rg -l csrf_failure django | sed 's/^/-g /') view",
        ),
        (
            "A structural pattern inside the best hit's code (ast-grep reads it on stdin)",
            "cds-search -n1 --ids bulk_create | cds-get --plain | ast-grep run --lang python -p 'self._batched_insert($$$)' --stdin",
        ),
    ],
    see_also: &["cds(7)", "cds-trav(1)", "cds-get(1)", "cds-fmt(1)", "cds-loc(1)"],
};

/// Runs `cds-search`.
pub fn run(mut args: SearchArgs) -> Result<Status> {
    if args.locagent {
        return run_locagent(&mut args);
    }
    let text = query_text(&mut args)?;
    if text.trim().is_empty() {
        return Err(Error::usage("empty query: give words, -f FILE, or text on stdin"));
    }
    let q = query::parse(&text);
    if q.is_empty() {
        cli::msg::error(format_args!(
            "nothing to search for in '{}': it has only common words; use names or other words",
            text.trim()
        ));
        return Ok(Status::NotFound);
    }
    let ix = args.common.open_index()?;
    if !args.limit_set {
        args.opts.limit = 10;
    }
    let res = rank::search(&ix, &q, &args.opts)?;
    let mut out = Out::new(&args.common);
    for hit in &res.hits {
        match args.common.format {
            Format::Ids => {
                out.write_id(ix.id(hit.node))?;
                out.record_end()?;
            }
            Format::Json => record::write_json(&mut out, &ix, hit.node, json_extra(hit))?,
            Format::Text => {
                record::write_line(&mut out, &ix, hit.node, &tag(hit))?;
                if args.view != View::Line {
                    write_code(&mut out, &ix, hit.node, args.view)?;
                }
            }
        }
    }
    out.finish()?;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if res.hidden_tests > 0 {
        let n = res.hidden_tests;
        cli::msg::note(format_args!(
            "{n} hit{} in test files left out (--tests shows them)",
            plural(n)
        ));
    }
    // Only when the default limit cut the list: with -n the user chose it.
    if res.more > 0 && !args.limit_set && args.common.format == Format::Text {
        let n = res.more;
        cli::msg::note(format_args!("{n} more hit{} (-n N shows more)", plural(n)));
    }
    if res.hits.is_empty() {
        cli::msg::note(format_args!(
            "no match for '{}': try other words, a shorter name, or --tests",
            short(&text)
        ));
        return Ok(Status::NotFound);
    }
    Ok(Status::Found)
}

/// `--locagent`: LocAgent's `search_code_snippets`, with each query word (or each line of `-f`
/// or stdin) one of its `search_terms` and the last `-g` its `file_path_or_pattern`.
fn run_locagent(args: &mut SearchArgs) -> Result<Status> {
    let terms: Vec<String> = if args.file.is_none() && !args.words.is_empty() {
        args.words.iter().map(|w| w.to_string_lossy().into_owned()).collect()
    } else {
        let words = std::mem::take(&mut args.words);
        let text = query_text(args)?;
        let mut terms: Vec<String> = text.lines().map(String::from).collect();
        terms.extend(words.iter().map(|w| w.to_string_lossy().into_owned()));
        terms
    };
    if terms.iter().all(|t| t.trim().is_empty()) {
        return Err(Error::usage("empty query: give search terms, -f FILE, or lines on stdin"));
    }
    let ix = args.common.open_index()?;
    let pattern = args.opts.globs.last().cloned();
    let la = crate::locagent::SearchArgs {
        search_terms: terms,
        line_nums: Vec::new(),
        file_path_or_pattern: Some(
            pattern.unwrap_or_else(|| crate::locagent::DEFAULT_PATTERN.to_string()),
        ),
    };
    let found = crate::locagent::search_code_snippets(&ix, &la)?;
    let mut out = Out::new(&args.common);
    match args.common.format {
        Format::Json => out.json_line(&serde_json::json!({
            "output": found.text,
            "entities": found.entities,
        }))?,
        Format::Ids => {
            for id in &found.entities {
                out.write_id(&crate::id::parse(id.as_bytes()))?;
                out.record_end()?;
            }
        }
        Format::Text => {
            use std::io::Write;
            if !found.text.is_empty() {
                out.write_all(found.text.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
    }
    out.finish()?;
    Ok((!found.entities.is_empty()).into())
}

/// `text` on one line, cut to 60 characters, for messages.
pub fn short(text: &str) -> String {
    let t = text.trim().replace('\n', " ");
    if t.chars().count() > 60 {
        format!("{}...", t.chars().take(57).collect::<String>())
    } else {
        t
    }
}

/// The query: the words, else `-f FILE`, else stdin (unless it is a terminal).
fn query_text(args: &mut SearchArgs) -> Result<String> {
    let mut bytes = Vec::new();
    if let Some(f) = &args.file {
        if f.as_os_str() == "-" {
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io("cannot read", "stdin", e))?;
        } else {
            bytes = std::fs::read(f).map_err(|e| Error::io("cannot read", f, e))?;
        }
    }
    if !args.words.is_empty() {
        if !bytes.is_empty() {
            bytes.push(b'\n');
        }
        let words: Vec<String> =
            args.words.iter().map(|w| w.to_string_lossy().into_owned()).collect();
        bytes.extend(words.join(" ").as_bytes());
    }
    if args.file.is_none() && args.words.is_empty() {
        if std::io::stdin().is_terminal() {
            return Err(Error::usage("no query: give words, -f FILE, or text on stdin"));
        }
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read", "stdin", e))?;
    }
    crate::cli::input::query_text(&bytes, args.file.as_deref().map(|f| f.as_os_str()))
}

/// The short tag in the text view: score and strongest reason.
pub fn tag(hit: &Hit) -> String {
    let reason = hit.reasons.first().map(|r| r.text()).unwrap_or_default();
    format!("{:.1} {reason}", hit.score)
}

/// The fields a hit adds to its entity's JSON record: `score` and `reasons`.
pub fn json_extra(hit: &Hit) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("score".into(), serde_json::json!((f64::from(hit.score) * 1000.0).round() / 1000.0));
    m.insert(
        "reasons".into(),
        serde_json::Value::Array(hit.reasons.iter().map(|r| r.text().into()).collect()),
    );
    m
}

/// Preview and full views: cds-get's numbered code block under the hit's line.
fn write_code(out: &mut Out, ix: &Index, n: u32, view: View) -> Result<()> {
    let view = if view == View::Full { get::View::Full } else { get::View::Preview };
    let code = get::Code::of(ix, get::Target::Entity(n), view, 0)?;
    get::cli::write_numbered(out, ix, &code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sound() {
        assert_eq!(cli::flags::check(&TOOL), Vec::<String>::new());
    }
}
