//! `cds-build`'s command line: its flag table and what it prints.

use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use crate::build::{self, BuildOptions, Event, HistoryUpdate, Summary};
use crate::cli::flags::{value_parse, value_str};
use crate::cli::{
    self, Args, Common, Complete, Flag, Format, Out, Positional, Status, Tool, common,
};
use crate::error::{Error, IndexProblem, Result};
use crate::graph::Mode;
use crate::index::{self, Index};

/// Parsed flags.
#[derive(Debug, Default)]
pub struct BuildArgs {
    common: Common,
    path: Option<OsString>,
    opts: BuildOptions,
    verify: bool,
    watch: bool,
    poll: Option<u64>,
}

impl Args for BuildArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

fn jobs(a: &mut BuildArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.opts.jobs = value_parse(v)?;
    Ok(())
}

fn hidden(a: &mut BuildArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.opts.walk.hidden = true;
    Ok(())
}

fn no_ignore(a: &mut BuildArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.opts.walk.no_ignore = true;
    Ok(())
}

fn follow(a: &mut BuildArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.opts.walk.follow = true;
    Ok(())
}

fn exclude(a: &mut BuildArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.opts.walk.excludes.push(value_str(v)?.to_string());
    Ok(())
}

fn max_filesize(a: &mut BuildArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.opts.walk.max_filesize = parse_size(value_str(v)?)?;
    Ok(())
}

fn compat(a: &mut BuildArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.opts.mode = match value_str(v)? {
        "locagent" => Mode::LocAgent,
        _ => Mode::Native,
    };
    Ok(())
}

fn force(a: &mut BuildArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.opts.force = true;
    Ok(())
}

fn no_history(a: &mut BuildArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.opts.history = false;
    Ok(())
}

fn verify(a: &mut BuildArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.verify = true;
    Ok(())
}

fn watch(a: &mut BuildArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.watch = true;
    Ok(())
}

fn poll(a: &mut BuildArgs, v: Option<&OsStr>) -> Result<(), String> {
    let ms: u64 = value_parse(v)?;
    if ms == 0 {
        return Err("expected a number of milliseconds above 0".into());
    }
    a.poll = Some(ms);
    a.watch = true;
    Ok(())
}

fn path(a: &mut BuildArgs, v: OsString) -> Result<(), String> {
    a.path = Some(v);
    Ok(())
}

/// `10M`, `512K`, `2G` or plain bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, c)) if c.eq_ignore_ascii_case(&'k') => (&s[..i], 1u64 << 10),
        Some((i, c)) if c.eq_ignore_ascii_case(&'m') => (&s[..i], 1 << 20),
        Some((i, c)) if c.eq_ignore_ascii_case(&'g') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    let n: u64 = num.parse().map_err(|_| "expected a size such as 512K, 4M or 1G".to_string())?;
    n.checked_mul(mult).ok_or_else(|| "size too large".to_string())
}

/// The tool's table.
pub static TOOL: Tool<BuildArgs> = Tool {
    name: "cds-build",
    about: "Index a repository: its code graph, name index and search index",
    usage: &[
        "cds-build [OPTIONS] [PATH]",
        "cds-build --watch [OPTIONS] [PATH]",
        "cds-build --verify [--index DIR]",
    ],
    description: "cds-build walks PATH (default: the current directory), parses every source \
file of the languages it knows with tree-sitter in parallel (Python .py; JavaScript .js .jsx \
.mjs .cjs; TypeScript .ts .tsx .mts .cts, declaration files included; Java .java; Go .go; Rust \
.rs; C .c .h; C++ .cc .cpp .cxx .c++ .hpp .hh .hxx .h++, and .h in a repository with C++ \
sources unless they are under a tenth of its C and C++ sources, then only beside them; Ruby .rb \
.rake .gemspec, Rakefile and Gemfile; PHP .php; each \
file by its extension, and one repository may mix them), resolves imports, calls and \
inheritance with each language's own rules into a graph of directories, files, classes and \
functions, and writes a flat-file index into PATH/.cds (or --index DIR). The other cds tools \
find that index by walking up from the current directory, like git finds .git.

The walk honours .gitignore, .ignore and .cdsignore files (also outside a git checkout), skips \
hidden files and the .git directory, skips dependency directories (node_modules, vendor, \
target) unless --no-ignore, and skips files over --max-filesize; binary files and unreadable \
files are reported and skipped. It also reads the project files resolution needs (go.mod, \
Cargo.toml, package.json, tsconfig.json, jsconfig.json, compile_commands.json). Files with syntax errors are indexed \
with what the parser recovers, and counted; minified or generated files (bundles, one-line \
files) are indexed, counted, and ranked below hand-written code.

Building again is incremental: the last walk is confirmed by one stat per directory, source \
and ignore file instead of walked again (a directory where a file was added, deleted or \
renamed is listed again; when an ignore file changed, the tree is walked), files whose size \
and modification time did not change are neither read nor parsed, files whose content did not change are not parsed, the search \
postings of unchanged files are carried over from the previous index instead of counted \
again, and when nothing changed at all nothing is written. Linking (imports, calls, \
inheritance, Python's value flow) runs when a change reaches what it reads, over every file of \
the language families with a file changed, added, removed or renamed (JavaScript with \
TypeScript, C with C++, each other language alone; all of them when a project file changed); \
the other families keep the previous index's edges (outside Python and Rust, a file whose \
edit changed only calls is linked again alone), and a change that only moves code or edits \
comments, docstrings, messages, numbers or layout (every changed file's facts the same but for \
positions) keeps them all. A cds-build of another version parses every file again when its \
extractors differ, and links every file again when its linking code does. A new index is written beside the old one and swapped in \
atomically, so readers never see half an index and a build killed halfway leaves the old one \
usable; concurrent builds of one index wait for each other. A build that fails (a full disk, \
a file-size limit) says so, exits with status 2 and takes back what it wrote, so the old index \
stays in use and the next build has the space it had.

With --watch, cds-build stays running after the build and keeps the index in sync with the \
tree, one incremental rebuild per burst of changes, until SIGINT or SIGTERM. Run it beside an \
editor or an agent session (cds-build --watch -q &) so that every query sees the code as it \
is now.

After the build, one summary line goes to stderr: files (and how many were parsed), entities, \
edges by kind, edges that are only guesses or one of several candidates, files with syntax \
errors, minified files, dependency directories left out, files and entities per language, \
files skipped, index size and seconds. With --json the summary is a JSON object on stdout.",
    positional: Some(Positional {
        name: "PATH",
        doc: "Repository root to index (default: .)",
        many: false,
        complete: Complete::Dir,
        apply: path,
    }),
    flags: &[
        common::index(),
        Flag::new("jobs", "Parse with N threads (default: all cores)", jobs).short('j').value("N"),
        Flag::new("hidden", "Index hidden files and directories too", hidden),
        Flag::new("no-ignore", "Do not read .gitignore, .ignore or .cdsignore files", no_ignore),
        Flag::new("exclude", "Skip paths matching GLOB (gitignore syntax)", exclude)
            .value("GLOB")
            .long_doc(
                "Skip paths matching GLOB, written as in a .gitignore file and relative to \
PATH; the flag can be repeated. Example: --exclude 'docs/' --exclude '*_pb2.py'.",
            ),
        Flag::new("max-filesize", "Skip files larger than SIZE (default 2M)", max_filesize)
            .value("SIZE")
            .long_doc(
                "Skip files larger than SIZE bytes (suffixes K, M and G are understood; the \
default is 2M). Skipped files are listed as warnings. Large generated files rarely help a \
search and cost parse time.",
            ),
        Flag::new("follow", "Follow symbolic links (loops are reported)", follow).short('L'),
        Flag::new("compat", "Build LocAgent v2.3's graph instead of cds's own", compat)
            .value("MODE")
            .choices(&["locagent"])
            .long_doc(
                "Build the graph exactly as LocAgent v2.3 builds it (every .py file, no ignore \
rules, LocAgent's name resolution with its global same-name fallback, no __init__ nodes), so \
that LocAgent's prompts, benchmarks and tool outputs can be reproduced with cds. cds-trav \
--tree on such an index prints what LocAgent's explore_tree_structure prints.",
            ),
        Flag::new("force", "Walk the tree, re-read and re-parse every file", force),
        Flag::new("no-history", "Do not read the repository's git history", no_history).long_doc(
            "Do not read the repository's recent commits. By default, when PATH is inside a git \
work tree and git is installed, cds-build runs git log over the last 10,000 commits of HEAD \
(merges left out) and records per file how many commits ago it last changed (within the last \
2,000), how often it changed in the last 300, and the words of the messages of the commits \
that changed it; cds-loc ranks recently changed files a little higher, and files whose past \
commits were described in the issue's words. Only \
committed history counts, so a rebuild of the same commit gives the same index, and a new \
commit makes a new one even when no file changed. When HEAD moved on by up to 1,000 commits \
in a straight line (a commit, a fast-forward pull), the next build reads only those and the \
commits that left the windows (git log --skip) and advances the history it had, to what \
reading it whole gives; after a checkout of another line of history, a merge or a reset, it \
reads the history whole again (about 1 s of git on Django's 30,000 commits).",
        ),
        Flag::new("watch", "Keep the index up to date as files change", watch).short('w').long_doc(
            "Build, then keep watching the repository and rebuild whenever a source file, a \
directory or an ignore file changes, until interrupted (SIGINT or SIGTERM). Changes are \
debounced: a rebuild starts once the tree has been quiet for 10 ms (150 ms within a burst of \
changes), so a git checkout of a thousand files is one rebuild. Each rebuild is incremental, \
honours the same ignore rules and options as the first build, and is swapped in atomically, so \
the other tools always read a whole index and never wait. When the changes were only edits of \
files already indexed, a rebuild checks just those files instead of walking the tree, and a \
file edited again is parsed again from its previous syntax tree (those of the last 8 files \
parsed are kept). One line per rebuild goes to stderr (the generation, files \
changed and parsed, milliseconds) unless -q is given; a failed rebuild (a full disk, say) is \
reported and the previous index stays in use. The index directory may be deleted meanwhile: \
it is written anew. Only one watcher may run per index: a second one says so and exits with \
status 2. When PATH is the top of a git work tree, HEAD moving (a commit, a reset, a \
checkout) is a change too: the history follows it, advanced by the new commits or read again, \
and the line says which. Run it beside an editor or an agent session: cds-build --watch -q &",
        ),
        Flag::new("poll", "Watch by polling every MS milliseconds", poll)
            .value("MS")
            .long_doc(
                "Watch by walking the tree every MS milliseconds instead of using the file \
system's change events (inotify, FSEvents, kqueue), for file systems that do not deliver \
them (NFS, some container mounts). Implies --watch. cds-build falls back to polling every \
second by itself when events are unavailable.",
            ),
        Flag::new("verify", "Check the existing index; build nothing", verify).long_doc(
            "Check the existing index instead of building: every file's header, length and \
checksum, and every reference inside the graph. Prints the problems found and exits 2 when \
there are any, 0 when the index is sound.",
        ),
        common::json(),
        common::quiet(),
        common::color(),
    ],
    examples: &[
        ("Index the repository in the current directory", "cds-build"),
        (
            "Index another checkout, writing the index elsewhere",
            "cds-build --index /tmp/idx ~/src/django",
        ),
        ("Rebuild in CI and keep the summary as JSON", "cds-build --json > build.json"),
        ("LocAgent's graph, for reproducing the paper", "cds-build --compat locagent"),
        ("Check an index copied from elsewhere", "cds-build --verify --index .cds"),
        ("Keep the index live beside an editor or agent session", "cds-build --watch -q &"),
    ],
    see_also: &["cds(7)", "cds-search(1)", "cds-trav(1)", "cds-get(1)", "cds-fmt(1)"],
};

/// Runs `cds-build`.
pub fn run(mut args: BuildArgs) -> Result<Status> {
    report_file_size_limit();
    let root = PathBuf::from(args.path.take().unwrap_or_else(|| OsString::from(".")));
    if args.verify {
        return verify_index(&args, &root);
    }
    let mut opts = args.opts;
    opts.root = root;
    opts.index_dir = args.common.index_override();
    let quiet = args.common.quiet;
    if args.watch {
        return run_watch(&opts, args.poll, quiet);
    }
    let progress = Progress::new(!quiet && std::io::stderr().is_terminal());
    let summary = build::build(&opts, &|e| progress.event(e));
    progress.clear();
    let summary = summary?;

    if !quiet {
        const SHOWN: usize = 20;
        for s in summary.skipped.iter().take(SHOWN) {
            cli::msg::warn(format_args!("skipped {}: {}", crate::id::display(&s.rel), s.reason));
        }
        if summary.skipped.len() > SHOWN {
            cli::msg::warn(format_args!("... and {} more skipped", summary.skipped.len() - SHOWN));
        }
    }
    if summary.files == 0 {
        cli::msg::error(format_args!(
            "no source files found under {}: nothing to index (--hidden and --no-ignore include \
             more files)",
            opts.root.display()
        ));
        return Ok(Status::NotFound);
    }
    if args.common.format == Format::Json {
        let mut out = Out::new(&args.common);
        out.json_line(&summary_json(&summary))?;
        out.finish()?;
    } else {
        cli::msg::note(build::summary_line(&summary));
    }
    Ok(Status::Found)
}

/// `--watch`: the first build's summary, then one line per rebuild, until a signal.
fn run_watch(opts: &BuildOptions, poll: Option<u64>, quiet: bool) -> Result<Status> {
    use build::watch::{self, Report};
    let w = watch::WatchOptions { poll: poll.map(std::time::Duration::from_millis) };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let report = |r: Report| match r {
        Report::Built(s) if s.files == 0 => cli::msg::warn(format_args!(
            "no source files under {} yet: watching for them",
            opts.root.display()
        )),
        Report::Built(s) => {
            cli::msg::note(format_args!("{}; watching for changes", build::summary_line(s)))
        }
        Report::Updated(s) => cli::msg::note(update_line(s)),
        Report::Failed(e) => cli::msg::error(format_args!("rebuild failed: {e}")),
        Report::Polling(why) => cli::msg::warn(why),
    };
    watch::watch(opts, &w, stop, &report, &|e| {
        if let Event::Waiting = e
            && !quiet
        {
            cli::msg::warn("waiting for another cds-build of this index to finish")
        }
    })?;
    Ok(Status::Found)
}

/// What a summary line says of the links kept: all of them, or those of some languages' files.
fn kept_note(s: &Summary) -> String {
    if !s.relinked {
        return ", links kept".to_string();
    }
    match &s.links_kept[..] {
        [] => String::new(),
        kept => format!(", {} links kept", kept.join(" and ")),
    }
}

/// The line a watcher prints per rebuild: generation, files changed and parsed (and whether
/// the links were kept; new commits, when `HEAD` moved on), milliseconds.
pub fn update_line(s: &Summary) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let history = match s.history {
        HistoryUpdate::Advanced(k) => format!(", {k} new commit{}", plural(k as usize)),
        HistoryUpdate::Read => ", history read again".to_string(),
        HistoryUpdate::Kept | HistoryUpdate::None => String::new(),
    };
    format!(
        "{}: {} file{} changed ({} parsed{}{history}) in {} ms; {} files, {} entities",
        s.generation,
        s.changed,
        plural(s.changed),
        s.parsed,
        kept_note(s),
        (s.seconds * 1000.0).round() as u64,
        s.files,
        s.entities
    )
}

fn verify_index(args: &BuildArgs, root: &std::path::Path) -> Result<Status> {
    let explicit = args.common.index_override().or_else(|| {
        let candidate = root.join(index::INDEX_DIR);
        candidate.is_dir().then_some(candidate)
    });
    let dir = index::discover(explicit.as_deref())?;
    let ix = Index::open(&dir)?;
    let problems = ix.verify();
    if problems.is_empty() {
        if !args.common.quiet {
            cli::msg::note(format_args!("index at {} is sound", dir.display()));
        }
        return Ok(Status::Found);
    }
    for p in &problems[..problems.len() - 1] {
        cli::msg::error_nonfatal(p);
    }
    // A build that finds no file changed reads none of this: the repair is one from scratch.
    Err(Error::index(&dir, IndexProblem::Damaged(problems[problems.len() - 1].clone())))
}

fn summary_json(s: &Summary) -> serde_json::Value {
    serde_json::json!({
        "index": s.index_dir.display().to_string(),
        "up_to_date": s.up_to_date,
        "files": s.files,
        "parsed": s.parsed,
        "relinked": s.relinked,
        "relinked_files": s.relinked_files,
        "links_kept": s.links_kept,
        "history": match s.history {
            HistoryUpdate::None => serde_json::Value::Null,
            HistoryUpdate::Kept => "kept".into(),
            HistoryUpdate::Read => "read".into(),
            HistoryUpdate::Advanced(k) => serde_json::json!({"new_commits": k}),
        },
        "nodes": s.nodes,
        "entities": s.entities,
        "edges": {
            "contain": s.edges[0], "import": s.edges[1], "invoke": s.edges[2], "inherit": s.edges[3],
        },
        "ambiguous": s.ambiguous,
        "guessed": s.guessed,
        "value_flow": s.value_flow,
        "syntax_errors": s.syntax_errors,
        "generated": s.generated,
        "skipped": s.skipped.iter().map(|k| serde_json::json!({
            "path": crate::id::display(&k.rel), "reason": k.reason,
        })).collect::<Vec<_>>(),
        "languages": s.languages.iter().map(|l| serde_json::json!({
            "language": l.name, "files": l.files, "entities": l.entities,
        })).collect::<Vec<_>>(),
        "vendored": s.vendored.iter().map(|d| crate::id::display(d).into_owned()).collect::<Vec<_>>(),
        "bytes": s.bytes,
        "seconds": s.seconds,
    })
}

/// The progress line on a terminal: shown once a build has run for half a second.
struct Progress {
    on: bool,
    start: Instant,
    shown: Mutex<bool>,
}

impl Progress {
    fn new(on: bool) -> Progress {
        Progress { on, start: Instant::now(), shown: Mutex::new(false) }
    }

    fn event(&self, e: Event) {
        match e {
            Event::Waiting => {
                cli::msg::warn("waiting for another cds-build of this index to finish")
            }
            Event::Progress { done, total } => {
                if !self.on || self.start.elapsed().as_millis() < 500 {
                    return;
                }
                if let Ok(mut shown) = self.shown.lock() {
                    *shown = true;
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\rcds-build: {done}/{total} files\x1b[K");
                    let _ = err.flush();
                }
            }
        }
    }

    fn clear(&self) {
        if self.shown.lock().is_ok_and(|s| *s) {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
        }
    }
}

/// A file-size limit (`ulimit -f`) reached while writing the index is an error like a full
/// disk (the write fails with "File too large", the build is reported and undone, the previous
/// index stays in use), not SIGXFSZ's default: the process killed in the middle of a write.
fn report_file_size_limit() {
    #[cfg(unix)]
    // SAFETY: installs the ignore disposition, no handler code; nothing else here handles it.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sound() {
        assert_eq!(cli::flags::check(&TOOL), Vec::<String>::new());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("2M"), Ok(2 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("lots").is_err());
    }
}
