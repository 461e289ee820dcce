//! The `cds-build` pipeline: walk -> read -> extract (parallel, cached) -> link -> write.
//!
//! Contents, the facts cache and the BM25 term counts are streamed (`sink.rs`): each file's go to
//! the new generation and into the postings as soon as it is extracted, so a build holds only
//! what linking needs of every file at once (its facts). A repository small enough to hold its
//! parsed files' bytes (up to `sink::DEFER_BYTES`) counts their terms afterwards instead, on
//! the core the single-threaded link leaves free.
//!
//! Incremental by construction:
//!
//! * The walk is confirmed rather than redone when the last one's record (`walk.rkyv`, see
//!   [`walk::Record`]) still holds: a `stat` per directory, ignore file and source file.
//! * The previous generation's facts cache (`facts.rkyv` listing archives in `facts.bin`)
//!   holds every file's extracted facts and term counts keyed by (path, size, mtime, CRC). A
//!   file whose size and mtime are unchanged is not even read (its bytes come from the previous
//!   `content.bin`); a file whose content hash is unchanged is not parsed, and its BM25
//!   postings are carried over from the previous `postings.rkyv`, renumbered
//!   ([`bm25::Carried`]), instead of counted again. The new generation's `content.bin` and
//!   `facts.bin` are the previous ones with the read files' bytes and the parsed files'
//!   archives appended (hard links; each rewritten once half of it is unused).
//! * When every parsed file has the facts it had but for positions, the previous generation's
//!   nodes and edges are this build's: the nodes are copied from its graph
//!   ([`Previous::carried_nodes`]), the edges kept, with `names.fst`, and the unchanged files'
//!   facts are not read at all: their spans and file-table entries are copied too
//!   ([`Outlines`]). Otherwise the language families with a file changed, added or gone are
//!   linked again, whole, and the others keep their edges, renumbered (`relink.rs`); their
//!   unchanged files' facts are read in outline only, and those of a family linked again file
//!   by file, but for the files linked, without their calls (which no table reads). The edges
//!   kept are mapped to this build's nodes on a thread of their own while the link runs; if
//!   they do not fit after all, every family is linked, over every file's whole facts. A
//!   changed project file links every family.
//!
//! The previous generation's mapped pages are let go of as they are copied, so a rebuild needs
//! no more memory than a cold build. When nothing changed at all the build stops after the
//! walk.

pub mod cli;
mod relink;
mod sink;
pub mod watch;

use std::io::Write;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use crate::error::{Error, Result, io_reason};
use crate::extract::{FileFacts, tree};
use crate::graph::{self, EdgeKind, Mode, NodeKind, Source};
use crate::history::{self, History};
use crate::index::facts::FactsView;
use crate::index::format::{self, MAGIC_FACTS, Meta};
use crate::index::read::Mapped;
use crate::index::write::{FileRecord, WriteInput};
use crate::index::{self, BuildLock, Index};
use crate::lang::{Extractors, Family};
use crate::search::bm25::{self, FileTerms};
use crate::walk::{self, Skipped, WalkOptions};

/// How to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The repository root.
    pub root: PathBuf,
    /// Where to write the index (default `<root>/.cds`).
    pub index_dir: Option<PathBuf>,
    /// Walk options (the index directory is filled in by [`build`]).
    pub walk: WalkOptions,
    /// Resolution rules.
    pub mode: Mode,
    /// Worker threads (0: all cores).
    pub jobs: usize,
    /// Ignore the previous generation's cache: re-read and re-parse everything.
    pub force: bool,
    /// Read the repository's recent commits (see [`crate::history`]) when it has any.
    pub history: bool,
}

impl BuildOptions {
    /// How many worker threads: `jobs`, or one per core.
    fn threads(&self) -> usize {
        match self.jobs {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .clamp(1, 256)
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            root: PathBuf::from("."),
            index_dir: None,
            walk: WalkOptions::default(),
            mode: Mode::Native,
            jobs: 0,
            force: false,
            history: true,
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The index directory.
    pub index_dir: PathBuf,
    /// Nothing changed since the previous build: nothing was written.
    pub up_to_date: bool,
    /// Files indexed.
    pub files: usize,
    /// Files parsed in this build (the rest came from the cache).
    pub parsed: usize,
    /// Files added, changed (read again) or removed since the previous generation.
    pub changed: usize,
    /// The files were linked (false: nothing was written, or no change reached what linking
    /// reads, so the previous generation's edges were kept).
    pub relinked: bool,
    /// When only some files were linked again (their families' other files keeping their edges,
    /// as other families'), how many.
    pub relinked_files: Option<usize>,
    /// When the files were linked, the languages whose files kept their previous edges all the
    /// same (none of their family's files changed what linking reads), by name.
    pub links_kept: Vec<&'static str>,
    /// How the repository's history was come by.
    pub history: HistoryUpdate,
    /// The generation written (empty when nothing was written).
    pub generation: String,
    /// Classes and functions.
    pub entities: usize,
    /// Nodes of all kinds.
    pub nodes: usize,
    /// Distinct edges by kind (`EdgeKind as usize`).
    pub edges: [usize; 4],
    /// Invoke/inherit/import edges that are one of several candidates.
    pub ambiguous: usize,
    /// Edges to the only candidate found by name (a guess).
    pub guessed: usize,
    /// Invoke edges only Python's value-flow analysis finds (also counted above by confidence).
    pub value_flow: usize,
    /// Files with syntax errors (indexed with what the parser recovered).
    pub syntax_errors: usize,
    /// Minified or generated files (indexed, ranked below hand-written code).
    pub generated: usize,
    /// Files skipped, with the reason.
    pub skipped: Vec<Skipped>,
    /// Files and entities per language, most files first.
    pub languages: Vec<crate::lang::LangCount>,
    /// Dependency directories left out (`node_modules`, `vendor`, `target`).
    pub vendored: Vec<Vec<u8>>,
    /// Bytes of the index on disk.
    pub bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl Summary {
    /// Counts one distinct edge by kind and confidence.
    fn count_edge(&mut self, kind: EdgeKind, meta: u8) {
        self.edges[kind as usize] += 1;
        use crate::graph::link::META_FLOW;
        if meta >= META_FLOW {
            self.value_flow += 1;
        }
        match meta {
            0 | META_FLOW => {}
            1 => self.guessed += 1,
            _ => self.ambiguous += 1,
        }
    }
}

/// What a running build reports, for a progress line.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// Another build holds the index's lock; this one waits for it.
    Waiting,
    /// Files processed so far, of the total.
    Progress {
        /// Files processed.
        done: usize,
        /// Files in total.
        total: usize,
    },
}

/// Which extractors wrote a generation's cached facts (a fingerprint of their sources, made by
/// `build.rs`): a cds-build whose frontends differ parses every file again.
const FACTS: &str = concat!("facts=", env!("CDS_FACTS_FINGERPRINT"));

/// The extractors' fingerprint, marked when the value flow is switched off for a benchmark
/// (those facts lack their flow: never reused by, nor reusing, a normal build's).
fn facts_fingerprint() -> &'static str {
    if crate::extract::bench_no_flow() {
        concat!("facts=", env!("CDS_FACTS_FINGERPRINT"), "-noflow")
    } else {
        FACTS
    }
}

/// Options that shape the file set, a hash of the project files (`go.mod`, `Cargo.toml`, ...:
/// resolution reads them, so a change to one is a change of the build's input even when no
/// source changed), the linking code's fingerprint (a cds-build that links otherwise links
/// every file again, keeping the cached facts), and the extractors' fingerprint last (cached
/// facts are reused when the text ends with it), as canonical text (stored in the index).
fn options_text(opts: &BuildOptions, projects: &[crate::lang::ProjectFile]) -> Vec<u8> {
    use std::hash::{Hash, Hasher};
    let w = &opts.walk;
    let mut h = fxhash::FxHasher64::default();
    for p in projects {
        (&p.rel, &p.text).hash(&mut h);
    }
    format!(
        "mode={} history={} hidden={} no_ignore={} follow={} max_filesize={} exclude={:?} \
         projects={:016x} link={} {}",
        opts.mode.name(),
        opts.history,
        w.hidden,
        w.no_ignore,
        w.follow,
        w.max_filesize,
        w.excludes,
        h.finish(),
        env!("CDS_LINK_FINGERPRINT"),
        facts_fingerprint()
    )
    .into_bytes()
}

/// How a build came by the repository's history (see [`crate::history`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HistoryUpdate {
    /// There is none: no git work tree, `--no-history`, or git failed.
    #[default]
    None,
    /// The previous generation's (`HEAD` did not move).
    Kept,
    /// The previous generation's, advanced by this many new commits.
    Advanced(u16),
    /// Read whole from git.
    Read,
}

/// The repository's history for the new generation: none, read by a thread of its own, or
/// the previous generation's (`HEAD` did not move), decoded only if the file table changed.
enum HistoryJob {
    None,
    Reading(std::thread::JoinHandle<Option<(History, HistoryUpdate)>>),
    Kept(KeptHistory),
}

impl HistoryJob {
    /// The history to write into the generation at `dir` and how it was come by, or (when the
    /// previous generation's files are the ones to write) the bytes of those files linked.
    fn finish(
        self,
        previous: Option<&Previous>,
        records: &[index::write::FileRecord],
        dir: &Path,
    ) -> Result<(Option<History>, HistoryUpdate, u64)> {
        Ok(match (self, previous) {
            (HistoryJob::Reading(t), _) => match t.join().ok().flatten() {
                Some((h, how)) => (Some(h), how, 0),
                None => (None, HistoryUpdate::None, 0),
            },
            // The same files in the same order: the same bytes, linked instead of decoded and
            // written again (a comment edit in Django's work tree: 2 MB).
            (HistoryJob::Kept(k), Some(p)) if p.same_file_table(records) => {
                (None, HistoryUpdate::Kept, link_history(&p.gen_dir, dir, &k)?)
            }
            (HistoryJob::Kept(k), Some(p)) => (Some(p.carried_history(&k)), HistoryUpdate::Kept, 0),
            (HistoryJob::None | HistoryJob::Kept(_), _) => (None, HistoryUpdate::None, 0),
        })
    }
}

/// The previous generation's history files, checked whole: what a build carries on must be
/// sound, or a damaged byte that still validates would live on in every later generation.
struct KeptHistory {
    ages: Mapped,
    messages: Mapped,
    /// `history-others.rkyv`, when it was written (the history is then complete).
    others: Option<Mapped>,
}

/// Links the previous generation's history files (`prev`) into the new one (`dir`), or where
/// the file system has no hard links, writes their payloads; the bytes they take.
fn link_history(prev: &Path, dir: &Path, kept: &KeptHistory) -> Result<u64> {
    let files = [
        (format::HISTORY_FILE, format::MAGIC_HISTORY, Some(&kept.ages)),
        (format::MESSAGES_FILE, format::MAGIC_MESSAGES, Some(&kept.messages)),
        (format::HISTORY_OTHERS_FILE, format::MAGIC_HISTORY_OTHERS, kept.others.as_ref()),
    ];
    let mut bytes = 0;
    for (name, magic, m) in files {
        let Some(m) = m else { continue };
        let to = dir.join(name);
        bytes += index::write::link_or_write(&prev.join(name), &to, || {
            index::write::write_payload(&to, magic, m.payload())
        })?;
    }
    Ok(bytes)
}

/// The messages of a previous generation's `messages.rkyv`, for the files of its file table
/// (`rels`, in order).
fn kept_messages(m: &index::format::ArchivedMessagesFile, rels: &[&[u8]]) -> history::Messages {
    let vocab = m
        .vocab_off
        .windows(2)
        .map(|w| m.vocab[w[0].to_native() as usize..w[1].to_native() as usize].into())
        .collect();
    let files = rels
        .iter()
        .zip(m.file_off.windows(2))
        .filter(|(_, w)| w[0] != w[1])
        .map(|(rel, w)| {
            let r = w[0].to_native() as usize..w[1].to_native() as usize;
            let pairs = m.term[r.clone()].iter().zip(&m.count[r]);
            (rel.to_vec(), pairs.map(|(t, n)| (t.to_native(), n.to_native())).collect())
        })
        .collect();
    history::Messages { vocab, files }
}

/// What linking made: the edges of the native graph's nodes, or LocAgent's whole graph.
enum Linked {
    Edges(Vec<graph::Edge>),
    /// The previous generation's edges hold (see [`Previous::links_unchanged`]).
    Reused,
    Graph(graph::Graph),
}

/// Lowers the calling thread's priority a little (nice 5; Linux only, where a thread has one
/// of its own). The index writers' thread runs so: the link is a build's critical path (its
/// value flow is one thread), and in a rebuild after an edit the writers' short jobs otherwise
/// take turns with it on the two cores; lowered, they run in its gaps (a definition edit on
/// Django: 729 -> 690 ms, medians of 21; cold builds unchanged).
fn lower_thread_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority take no pointers; a failure leaves the priority as it is.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 5);
    }
}

/// Prints phase timings to stderr when `CDS_TIMINGS` is set (for benchmarks and profiling).
struct Phases {
    on: bool,
    last: Instant,
}

impl Phases {
    fn new() -> Phases {
        Phases { on: std::env::var_os("CDS_TIMINGS").is_some(), last: Instant::now() }
    }

    fn mark(&mut self, what: &str) {
        if self.on {
            let now = Instant::now();
            // Diagnostics only: a failed write to stderr must not stop (or panic) a build.
            let secs = (now - self.last).as_secs_f64();
            let mem = memory_note();
            let _ = writeln!(std::io::stderr(), "cds-build: timing: {what}: {secs:.3}s{mem}");
            self.last = now;
        }
    }
}

/// With `CDS_TIMINGS`, prints how long one job of a phase took (jobs run on threads of their
/// own, so their times overlap), timed from `since`.
fn job_time(on: bool, what: &str, since: Instant) {
    if on {
        let secs = since.elapsed().as_secs_f64();
        let mem = memory_note();
        let _ = writeln!(std::io::stderr(), "cds-build: timing:   {what}: {secs:.3}s{mem}");
    }
}

/// With `CDS_TIMINGS`: how many facts a build holds (what its memory grows with).
fn census(sources: &[Source]) {
    use crate::extract::Callee;
    let (mut defs, mut calls, mut callee_bytes, mut imports, mut binds) = (0, 0, 0, 0, 0);
    for s in sources {
        defs += s.facts.defs.len();
        calls += s.facts.calls.len();
        imports += s.facts.imports.len();
        binds += s.facts.binds.len();
        for c in &s.facts.calls {
            callee_bytes += match &c.callee {
                Callee::Name(a) | Callee::Chain(a) | Callee::Attr(a) => a.capacity(),
                Callee::OnCall(a, b) => a.capacity() + b.capacity(),
                Callee::Other => 0,
            };
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "cds-build: timing: facts: {} files, {defs} definitions, {calls} calls ({callee_bytes} \
         bytes of callee names), {imports} imports, {binds} bindings",
        sources.len()
    );
}

/// The process's resident and peak memory, where `/proc` tells them (Linux), for the timings.
fn memory_note() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return String::new() };
    let mib = |key: &str| {
        let line = status.lines().find(|l| l.starts_with(key))?;
        let kib: u64 = line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib >> 10)
    };
    match (mib("VmRSS:"), mib("VmHWM:")) {
        (Some(rss), Some(peak)) => format!(" (RSS {rss} MiB, peak {peak} MiB)"),
        _ => String::new(),
    }
}

/// A file on its way through the pipeline.
struct Item {
    found: walk::Found,
    /// The content read from disk (empty when it comes from the previous generation, and once
    /// handed to the sink).
    content: Vec<u8>,
    content_len: u64,
    /// The previous generation's file-table entry holding this file's unchanged content.
    prev_content: Option<usize>,
    hash: u32,
    facts: Option<FileFacts>,
    terms: Option<FileTerms>,
    /// The previous generation's cache entry, when the facts came from it unchanged.
    cached: Option<usize>,
    /// How much of its facts it has: less than whole ([`Outlines`]) is completed before a
    /// link that needs more.
    read: Depth,
    /// Parsed again: whether its facts are the previous generation's but for positions, where
    /// the worker compared them ([`Outlines`]).
    same_but_positions: Option<bool>,
    skip: Option<String>,
    /// A long-running builder's last parse of the file, to parse it again from, and whether
    /// to keep this build's (for a file it knew before that changed, a few of them: not every
    /// file of its first build or of a checkout).
    before: Option<tree::ParsedBefore>,
    keep_parse: bool,
    /// This build's parse, to keep.
    parsed: Option<tree::ParsedBefore>,
}

/// What a long-running builder (`cds-build --watch`) keeps between builds: every indexed
/// file's facts and term counts, so a rebuild neither validates nor deserializes the previous
/// generation's `facts.rkyv` (a quarter of a one-file rebuild of Django). An entry is used only
/// when the file's size and mtime match both the entry and the previous generation's file table,
/// whose content and cached archive the rebuild then reuses, exactly as without it.
///
/// It also keeps the last walk: told which paths changed since ([`Memory::changed`]), a rebuild
/// re-reads only their metadata instead of walking the tree again (see [`walk::restat`]); and
/// the syntax trees of the last files it parsed again, which are likely to be edited again, to
/// parse them from ([`tree::reparsing`]).
#[derive(Default)]
pub struct Memory {
    files: fxhash::FxHashMap<Vec<u8>, Remembered>,
    /// The most recently parsed last, at most [`KEPT_PARSES`].
    parses: Vec<(Vec<u8>, tree::ParsedBefore)>,
    walked: Option<(walk::WalkOptions, walk::Walked)>,
    changed: Option<Vec<PathBuf>>,
}

/// A rebuild with at most this many files edited since the previous generation extracts them
/// first (see [`extraction_order`]).
const EDITED_FIRST: usize = 64;

/// How many files' syntax trees a long-running builder keeps (a tree takes about ten times
/// its file's size).
const KEPT_PARSES: usize = 8;

impl Memory {
    /// The paths changed since the last build, all of them (None: unknown, so the next build
    /// walks the tree). Taken by the next build.
    pub fn changed(&mut self, paths: Option<Vec<PathBuf>>) {
        self.changed = paths;
    }

    /// The last walk brought up to date for the changed paths, when that is sure to equal a
    /// walk (and the walk options are the ones it was made with).
    fn rewalk(&mut self, root: &Path, opts: &walk::WalkOptions) -> Option<walk::Walked> {
        let changed = self.changed.take()?;
        let (prev_opts, prev) = self.walked.as_ref()?;
        if prev_opts != opts {
            return None;
        }
        walk::restat(prev, root, opts, &changed)
    }
}

struct Remembered {
    size: u64,
    mtime_ns: i64,
    hash: u32,
    facts: FileFacts,
    terms: FileTerms,
}

/// Runs a build. `events` is called from worker threads now and then.
pub fn build(opts: &BuildOptions, events: &(dyn Fn(Event) + Sync)) -> Result<Summary> {
    build_with(opts, events, None)
}

/// [`build`], reusing and then refilling `memory` (see [`Memory`]).
pub fn build_with(
    opts: &BuildOptions,
    events: &(dyn Fn(Event) + Sync),
    mut memory: Option<&mut Memory>,
) -> Result<Summary> {
    let started = Instant::now();
    let mut phases = Phases::new();
    let root = canonical_root(&opts.root)?;
    let index_dir = index_dir_for(opts, &root);
    let index_dir = index_dir.canonicalize().unwrap_or(index_dir);

    let mut wopts = opts.walk.clone();
    wopts.index_dir = Some(index_dir.clone());
    wopts.locagent = opts.mode == Mode::LocAgent;
    // The watcher's events, else the last walk's record, spare a walk of the whole tree when
    // they can tell what it would find.
    let record_path = index_dir.join(walk::RECORD_FILE);
    let (walked, record) = match memory.as_deref_mut().and_then(|m| m.rewalk(&root, &wopts)) {
        Some(w) => (w, None),
        None => walk::walk_recorded(&root, &wopts, &record_path, opts.force)?,
    };
    if let Some(m) = memory.as_deref_mut() {
        m.walked = Some((wopts.clone(), walked.clone()));
    }
    let options = options_text(opts, &walked.projects);
    phases.mark("walk");
    if walked.files.is_empty() {
        // Nothing to index: write nothing (an existing index stays as it is).
        return Ok(Summary {
            index_dir,
            skipped: walked.skipped,
            seconds: started.elapsed().as_secs_f64(),
            ..Default::default()
        });
    }

    std::fs::create_dir_all(&index_dir).map_err(|e| {
        Error::msg(format!(
            "cannot create index directory {}: {}: pass --index DIR to write the index \
             somewhere writable",
            index_dir.display(),
            io_reason(&e)
        ))
    })?;
    let _lock = BuildLock::acquire(&index_dir, || events(Event::Waiting))?;
    if let Some(r) = record {
        // A cache: without it the next build walks.
        let _ = r.save(&record_path);
    }

    // The previous generation: its cache, and whether anything changed at all.
    // (Bytes of it that fail their checksum on the way make it unusable, not the build.)
    let previous = match opts.force {
        true => None,
        false => index::read::catch_damage(|| Ok(Previous::load(&index_dir))).ok().flatten(),
    };
    // Facts cached by other extractors are not reused: the file would index differently now.
    let mut previous = previous.filter(|p| p.options.ends_with(facts_fingerprint().as_bytes()));
    // The commit checked out: a new one changes the history even when no file changed.
    let head = if opts.history && opts.mode == Mode::Native { history::head(&root) } else { None };
    let previous_head = previous.as_ref().and_then(|p| p.history.as_ref()).map(|h| &h.head);
    if let Some(prev) = &previous
        && prev.options == options
        && previous_head == head.as_ref()
        && prev.same_files(&walked.files)
        && let Ok(ix) = Index::open(&index_dir)
        && let Ok(mut s) = index::read::catch_damage(|| {
            ix.check_readable()?;
            Ok(summarize(&ix))
        })
    {
        // A build killed after making its generation live (while removing the partial ones
        // of builds killed before it) leaves them behind; the lock held here is what any
        // build writing one would hold.
        remove_partial_generations(&index_dir);
        // A long-running builder starting on an up-to-date index learns every file now, so
        // that its first rebuild is as quick as the later ones.
        if let Some(mem) = memory.as_deref_mut().filter(|m| m.files.is_empty()) {
            prev.remember_all(mem, opts.threads());
        }
        s.index_dir = index_dir;
        s.up_to_date = true;
        s.skipped = walked.skipped;
        s.seconds = started.elapsed().as_secs_f64();
        return Ok(s);
    }

    if let Some(p) = &mut previous {
        p.open_carried(&index_dir);
    }
    // The history is read beside the extraction, unless the previous build read the same one
    // (for every file there is now), or one a few commits behind that this one advances.
    let kept = match (&head, previous.as_ref()) {
        (Some(_), Some(p)) => p.kept_history(&index_dir).map(|k| (p, k)),
        _ => None,
    };
    let history = match (head, kept) {
        (None, _) => HistoryJob::None,
        (Some(h), Some((p, k)))
            if p.history.as_ref().is_some_and(|prev| {
                prev.head == h
                    && (k.others.is_some() || walked.files.iter().all(|f| prev.knows(&f.rel)))
            }) =>
        {
            HistoryJob::Kept(k)
        }
        (Some(h), kept) => {
            // Only a complete history can be advanced: decoded for that, or not at all.
            let kept = kept.filter(|(_, k)| k.others.is_some()).map(|(p, k)| p.carried_history(&k));
            let root = root.clone();
            let timing = phases.on;
            HistoryJob::Reading(std::thread::spawn(move || {
                let t = Instant::now();
                // (A kept history here is complete and at another commit: the same one with the
                // paths outside its table is taken by the arm above.)
                if let Some((h, k)) = kept.and_then(|prev| history::advance(&root, prev, h.clone()))
                {
                    job_time(timing, "history advanced", t);
                    return Some((h, HistoryUpdate::Advanced(k)));
                }
                let h = history::read(&root, h);
                job_time(timing, "history read", t);
                Some((h?, HistoryUpdate::Read))
            }))
        }
    };
    phases.mark("load cache");
    // Read, reuse or extract every file, in parallel.
    let total = walked.files.len();
    let mut to_keep = KEPT_PARSES;
    let items: Vec<Mutex<Option<Item>>> = walked
        .files
        .iter()
        .map(|f| {
            let mut item = Item {
                found: f.clone(),
                content: Vec::new(),
                content_len: 0,
                prev_content: None,
                hash: 0,
                facts: None,
                terms: None,
                cached: None,
                read: Depth::Whole,
                same_but_positions: None,
                skip: None,
                before: None,
                keep_parse: false,
                parsed: None,
            };
            if let (Some(mem), Some(prev)) = (memory.as_deref_mut(), previous.as_ref()) {
                remembered(&mut item, mem, prev, &mut to_keep);
            }
            Mutex::new(Some(item))
        })
        .collect();
    // The new generation's contents and facts cache are written as files are extracted.
    let generation = index::write::Generation::create(&index_dir)?;
    // Native builds add each file's terms to the postings as it arrives (LocAgent's graph
    // numbers its nodes differently; its small repositories are indexed afterwards).
    let stream_terms = opts.mode == Mode::Native;
    // The postings of files whose facts come from the previous generation unchanged are
    // carried over from its postings, renumbered, instead of counted again.
    let carry = stream_terms && previous.as_ref().is_some_and(|p| p.postings.is_some());
    let need_terms = !carry || memory.is_some();
    // Terms of parsed files are counted beside the link, unless holding their bytes until then
    // would cost too much memory (see `sink`).
    let defer = stream_terms && sink::defers(walked.files.iter().map(|f| f.size).sum());
    // The previous generation's contents and facts archives are appended to when most of
    // their bytes are still in use (an unchanged file's stay where they are).
    let facts_blob = previous
        .as_ref()
        .filter(|p| p.share_facts)
        .map(|p| (p.gen_dir.join(format::FACTS_BLOB_FILE), p.facts.payload()));
    let content_blob = previous
        .as_ref()
        .filter(|p| p.share_content)
        .and_then(|p| Some((p.gen_dir.join(format::CONTENT_FILE), p.content.as_ref()?.payload())));
    let share = sink::Shared {
        content: content_blob.as_ref().map(|(path, payload)| (path.as_path(), *payload)),
        facts: facts_blob.as_ref().map(|(path, payload)| (path.as_path(), *payload)),
    };
    let sink = sink::Sink::create(generation.path(), &items, memory.is_some(), defer, share)?;
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let parsed = AtomicUsize::new(0);
    let jobs = opts.threads();
    // The files a rebuild will parse (only a few: past that, the walk's order keeps the sink's
    // memory bounded).
    let mut edited: Vec<bool> = match &previous {
        Some(p) => walked
            .files
            .iter()
            .map(|f| p.lookup(f).is_none_or(|c| c.size != f.size || c.mtime_ns != f.mtime_ns))
            .collect(),
        None => Vec::new(),
    };
    if edited.iter().filter(|&&e| e).count() > EDITED_FIRST {
        edited.clear();
    }
    let order = extraction_order(&walked.files, jobs, &edited);
    let locagent = opts.mode == Mode::LocAgent;
    let outlines = Outlines {
        possible: carry
            && memory.is_none()
            && previous.as_ref().is_some_and(|p| p.options == options && p.entries.len() == total),
        link_needed: AtomicBool::new(false),
    };

    std::thread::scope(|s| {
        for _ in 0..jobs.min(total.max(1)) {
            s.spawn(|| {
                let mut ex = Extractors::default();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= total {
                        break;
                    }
                    let i = order[k];
                    let Some(mut item) = items[i].lock().ok().and_then(|mut g| g.take()) else {
                        sink.push(
                            i,
                            sink::Part::Failed(Error::msg("an extraction thread panicked")),
                        );
                        continue;
                    };
                    let prev = previous.as_ref();
                    if process(&mut item, prev, &mut ex, locagent, need_terms, defer, &outlines) {
                        parsed.fetch_add(1, Ordering::Relaxed);
                    }
                    let part = hand_over(&mut item, prev, stream_terms, carry, defer);
                    // Back in its slot before the sink (which reads its facts) sees it.
                    if let Ok(mut g) = items[i].lock() {
                        *g = Some(item);
                    }
                    sink.push(i, part);
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if d.is_multiple_of(64) || d == total {
                        events(Event::Progress { done: d, total });
                    }
                }
            });
        }
    });
    phases.mark("read and extract");
    let mut streamed = sink.finish(total)?;
    let deferred = streamed.is_deferred();
    let content_at = std::mem::take(&mut streamed.content_at);
    // A deferring sink has them only once it has counted the terms (job 0 below, which also
    // needs its list there to fill).
    let kept_terms = Mutex::new(if deferred { None } else { streamed.kept_terms.take() });

    let mut skipped = walked.skipped;
    let mut kept: Vec<Item> = Vec::with_capacity(total);
    for m in items {
        let Some(item) = m.into_inner().ok().flatten() else { continue };
        match &item.skip {
            Some(reason) => {
                if !reason.is_empty() {
                    skipped.push(Skipped { rel: item.found.rel.clone(), reason: reason.clone() })
                }
            }
            None => kept.push(item),
        }
    }

    // The link is skipped when it would give the previous generation's edges.
    let same_setup = previous.as_ref().is_some_and(|p| p.options == options);
    let dir = generation.path();
    let t_nodes = Instant::now();
    // Which files are new, gone or changed what linking reads.
    let changes = match &previous {
        Some(p) if same_setup && opts.mode == Mode::Native => p.file_changes(&kept),
        _ => None,
    };
    // The previous generation's nodes and links, when they are this build's: then the files
    // not parsed again are not read at all (see `Outlines`).
    let same = match &previous {
        _ if outlines.link_needed.load(Ordering::Relaxed) => None,
        Some(p) if changes.as_ref().is_some_and(FileChanges::none) => Some(p),
        _ => None,
    };
    let carried = same.and_then(|p| {
        let facts: Vec<Option<&FileFacts>> = kept.iter().map(|it| it.facts.as_ref()).collect();
        p.carried_nodes(&facts)
    });
    #[cfg(debug_assertions)]
    if let (Some((nodes, defs)), Some(p)) = (&carried, same) {
        check_carried_nodes(nodes, defs, &kept, p);
    }
    let nodes_carried = carried.is_some();
    // The families with a file that changed what linking reads, when others have none: those
    // others may keep their links ([`relink`]), and their files need their facts in outline.
    let families: Vec<Family> = kept.iter().map(|it| it.found.lang.family()).collect();
    let relinked = changes.as_ref().and_then(|c| c.relinked(&families));
    // Of those, the families linked again only in some files (see `relink`).
    let by_file = match (&previous, &relinked, &changes) {
        (Some(p), Some(relinked), Some(changes)) => {
            let t = Instant::now();
            let by_file = p.linked_by_file(&kept, &families, changes, relinked, jobs);
            job_time(phases.on, "files reached", t);
            by_file
        }
        _ => Vec::new(),
    };
    // What of each file's facts linking those families needs.
    let linked_need = relinked.as_ref().map(|r| facts_needed(&families, r, &by_file));
    if !nodes_carried && outlines.possible {
        let t = Instant::now();
        let outline = !outlines.link_needed.load(Ordering::Relaxed);
        let need = match &linked_need {
            Some(need) => need.clone(),
            None => vec![if outline { Depth::Outline } else { Depth::Whole }; kept.len()],
        };
        read_cached_facts(&mut kept, previous.as_ref(), &need, jobs);
        job_time(phases.on, if outline { "facts read in outline" } else { "facts read" }, t);
    }
    if nodes_carried {
        job_time(phases.on, "nodes carried", t_nodes);
    }
    let t_nodes = Instant::now();
    let native = match carried {
        Some(nodes) => Some(nodes),
        None => {
            let nodes =
                (opts.mode == Mode::Native).then(|| graph::native_nodes(&sources_of(&kept)));
            job_time(phases.on, "nodes", t_nodes);
            nodes
        }
    };
    // (Nodes built anew may still be the previous ones, when `carried_nodes` did not fit.)
    let reused = same
        .filter(|p| nodes_carried || native.as_ref().is_some_and(|(nodes, _)| p.same_nodes(nodes)));
    // Relinked, only the families with a changed file; the others keep their edges. The plan
    // that keeps them (mapping the previous graph's edges to this build's nodes) is made on a
    // thread of its own beside the link, which reads what it needs of the facts as if the
    // plan will hold; if it does not (rarely: an edge kept would lead to a node gone), the
    // link is done again, whole.
    let attempt = match (&previous, &relinked, &changes, &native) {
        (Some(p), Some(_), Some(_), Some(_)) => reused.is_none() && p.archived_graph().is_some(),
        _ => false,
    };
    // What the link reads: the facts, whole, of every file it links (none when it is skipped).
    let sources = match reused {
        Some(_) => Vec::new(),
        None => {
            let need = match linked_need {
                Some(need) if attempt => need,
                _ => vec![Depth::Whole; kept.len()],
            };
            if kept.iter().zip(&need).any(|(it, &need)| it.wants(need)) {
                let t = Instant::now();
                read_cached_facts(&mut kept, previous.as_ref(), &need, jobs);
                job_time(phases.on, "facts read whole", t);
            }
            sources_of(&kept)
        }
    };
    if phases.on && !sources.is_empty() {
        census(&sources);
    }
    if content_at.len() != kept.len() {
        return Err(Error::msg(format!(
            "internal error: {} of {} files reached content.bin",
            content_at.len(),
            kept.len()
        )));
    }
    let records: Vec<FileRecord> = kept
        .iter()
        .zip(&content_at)
        .map(|(it, &content_off)| FileRecord {
            rel: &it.found.rel,
            size: it.found.size,
            mtime_ns: it.found.mtime_ns,
            hash: it.hash,
            lang: it.found.lang.code(),
            content_off,
            content_len: it.content_len,
            facts: it.facts.as_ref(),
            terms: it.terms.as_ref(),
        })
        .collect();
    let meta = Meta {
        mode: opts.mode.code(),
        root: root.as_os_str().as_encoded_bytes().to_vec(),
        built_ns: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i64),
        options,
        tool_version: env!("CARGO_PKG_VERSION").as_bytes().to_vec(),
    };

    // Pipelined: the BM25 postings and the names need only the nodes, so they are written (and
    // the streamed files completed) while the main thread links the graph.
    let timing = phases.on;
    // The writers' jobs, taken in this order by one helper thread and, once the link is done,
    // by the main thread too: the link (the longest job) keeps a core of its own, where two
    // writer threads beside it shared both cores three ways and slowed it; and when the link
    // ends first, the main thread takes what is left.
    let postings = Mutex::new((!deferred).then(|| std::mem::take(&mut streamed.postings)));
    let streamed = Mutex::new(Some(streamed));
    let posting_out: Mutex<Option<Result<u64>>> = Mutex::new(None);
    let names_out: Mutex<Option<Result<(u64, index::write::NameTable)>>> = Mutex::new(None);
    let streamed_out: Mutex<Option<Result<u64>>> = Mutex::new(None);
    let graph_nodes_out: Mutex<Option<index::write::GraphNodes>> = Mutex::new(None);
    // The whole graph file and the names, written by job 3 when the links are kept.
    let graph_out: Mutex<Option<Result<NamesAndGraph>>> = Mutex::new(None);
    let (counted_tx, counted_rx) = std::sync::mpsc::channel();
    let (counted_tx, counted_rx) = (Mutex::new(Some(counted_tx)), Mutex::new(counted_rx));
    let next_job = AtomicUsize::new(0);
    fn put<T>(slot: &Mutex<Option<T>>, r: T) {
        if let Ok(mut s) = slot.lock() {
            *s = Some(r);
        }
    }
    let jobs = || loop {
        match next_job.fetch_add(1, Ordering::Relaxed) {
            0 => {
                // Dropped on the way out, so that job 2 never waits for nothing.
                let counted_tx = counted_tx.lock().ok().and_then(|mut t| t.take());
                let Some((nodes, defs)) = &native else { continue };
                // Deferred: the terms are counted first (the facts cache is written as they
                // are), then job 2 completes the streamed files beside the postings.
                let postings = if deferred {
                    let Some(mut st) = streamed.lock().ok().and_then(|mut s| s.take()) else {
                        continue;
                    };
                    let t = Instant::now();
                    if let Err(e) = st.count_terms(&kept) {
                        put(&posting_out, Err(e));
                        continue;
                    }
                    job_time(timing, "terms", t);
                    if let Ok(mut k) = kept_terms.lock() {
                        *k = st.kept_terms.take();
                    }
                    let p = std::mem::take(&mut st.postings);
                    if let Some(tx) = counted_tx {
                        let _ = tx.send(st);
                    }
                    p
                } else {
                    let Some(p) = postings.lock().ok().and_then(|mut p| p.take()) else {
                        continue;
                    };
                    p
                };
                let t = Instant::now();
                let prev_terms = previous
                    .as_ref()
                    .and_then(|p| Some((p.gen_dir.as_path(), p.terms.as_ref()?.payload())));
                let map = postings.map(&nodes.nodes, defs);
                let pb = postings.builder;
                let carried_from: Vec<Option<usize>> =
                    kept.iter().map(|it| if carry { it.cached } else { None }).collect();
                let r = match previous.as_ref().filter(|_| carry) {
                    Some(p) => p.carried(&nodes.nodes, &carried_from),
                    None => Ok(None),
                }
                .and_then(|carried| {
                    let map = Some(map.as_slice());
                    index::write::write_built_postings(
                        dir,
                        pb,
                        map,
                        &nodes.nodes,
                        prev_terms,
                        carried,
                    )
                });
                job_time(timing, "postings", t);
                put(&posting_out, r);
            }
            1 => {
                let Some((nodes, _)) = &native else { continue };
                let t = Instant::now();
                // Nodes with the previous ids and kinds have the previous names; after a
                // small change, the previous names hold most nodes' keys (a delta over them).
                let r = match reused.and_then(|p| p.kept_names(dir)) {
                    Some(r) => r,
                    None => {
                        match previous.as_ref().and_then(|p| p.names_delta(dir, &nodes.nodes)) {
                            Some(r) => r,
                            None => index::write::write_names(dir, &nodes.nodes),
                        }
                    }
                };
                job_time(timing, "names", t);
                put(&names_out, r);
            }
            2 => {
                // Deferred, the streamed files come from job 0 once their terms are counted
                // (nothing comes when it failed).
                let st = if deferred {
                    counted_rx.lock().ok().and_then(|rx| rx.recv().ok())
                } else {
                    streamed.lock().ok().and_then(|mut s| s.take())
                };
                let Some(streamed) = st else { continue };
                let t = Instant::now();
                let r = streamed.write();
                job_time(timing, "content and facts", t);
                put(&streamed_out, r);
            }
            3 => {
                // The graph file's node columns, so that only its edges are left after the link;
                // when the links are kept, the whole file, with the names written by job 1 (done
                // by now but for a rare race, when the main thread writes it as usual).
                let Some((nodes, _)) = &native else { continue };
                let t = Instant::now();
                let input = WriteInput { graph: nodes, files: &records, meta: meta.clone() };
                let previous = previous.as_ref().and_then(Previous::archived_graph);
                let columns = index::write::graph_nodes(&input, previous);
                job_time(timing, "graph nodes", t);
                let kept_edges = reused.and_then(Previous::archived_graph);
                let names = match kept_edges {
                    Some(_) => names_out.lock().ok().and_then(|mut n| n.take()),
                    None => None,
                };
                match (kept_edges, names) {
                    (Some(edges), Some(Ok((name_bytes, table)))) => {
                        let t = Instant::now();
                        let r = index::write::write_graph(
                            dir,
                            &input,
                            Some(columns),
                            Some(edges),
                            table,
                        );
                        job_time(timing, "graph", t);
                        put(&graph_out, r.map(|graph_bytes| (name_bytes, graph_bytes)));
                    }
                    (_, names) => {
                        if let Some(n) = names {
                            put(&names_out, n);
                        }
                        put(&graph_nodes_out, columns);
                    }
                }
            }
            _ => break,
        }
    };
    // Native builds link into edges while the nodes are shared with the writers, then add them
    // to the nodes' graph (moved, not copied: it is the biggest structure a build holds).
    // (With the previous edges kept: how many files were linked again, and which languages kept
    // their links, for the summary.)
    let mut kept_summary: (Option<usize>, Vec<&str>) = (None, Vec::new());
    let linked = std::thread::scope(|s| {
        let helper = s.spawn(|| {
            lower_thread_priority();
            jobs()
        });
        let linked = match &native {
            Some(_) if reused.is_some() => {
                if timing {
                    eprintln!("cds-build: timing:   link: none (no change reached its input)");
                }
                Linked::Reused
            }
            Some((nodes, defs)) => {
                let t = Instant::now();
                let projects = &walked.projects;
                let plan = match (&previous, &relinked, &changes) {
                    (Some(p), Some(relinked), Some(changes)) if attempt => Some(s.spawn(|| {
                        let t = Instant::now();
                        let files = relink::Files {
                            new: &families,
                            old: &changes.old_family,
                            old_of: &changes.old,
                        };
                        // (`CDS_RELINK_NO_PLAN`, for the tests: as if the plan failed.)
                        let failed = std::env::var_os("CDS_RELINK_NO_PLAN").is_some();
                        let plan = p.archived_graph().filter(|_| !failed).and_then(|g| {
                            let (relinked, by_file) = (relinked.clone(), by_file.clone());
                            relink::Plan::new(g, &p.blocks, files, relinked, by_file, &nodes.nodes)
                        });
                        if plan.is_some() {
                            job_time(timing, "links kept", t);
                        }
                        plan
                    })),
                    _ => None,
                };
                let edges = match (plan, &relinked) {
                    (Some(plan), Some(relinked)) => {
                        let whole: Vec<Family> = relinked
                            .iter()
                            .copied()
                            .filter(|f| !by_file.iter().any(|(b, _)| b == f))
                            .collect();
                        let linked = graph::link::family_edges(
                            nodes,
                            &sources,
                            defs,
                            projects,
                            Some(&whole),
                        );
                        let fresh = by_file
                            .iter()
                            .map(|(f, files)| {
                                let e = graph::link::file_edges(
                                    nodes, &sources, defs, projects, *f, files,
                                );
                                (*f, e)
                            })
                            .collect();
                        let plan = plan.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                        match plan {
                            Some(plan) => {
                                kept_summary = plan_summary(&plan, &kept);
                                plan.edges(linked, fresh, &nodes.nodes)
                            }
                            None => {
                                // The previous graph does not fit: every family linked, as in
                                // a cold build, over every file's whole facts.
                                let full = whole_facts(&kept, previous.as_ref(), opts.threads());
                                let sources: Vec<Source> = sources
                                    .iter()
                                    .zip(&full)
                                    .map(|(src, w)| Source {
                                        facts: w.as_ref().unwrap_or(src.facts),
                                        ..*src
                                    })
                                    .collect();
                                graph::link::edges(nodes, &sources, defs, projects)
                            }
                        }
                    }
                    _ => graph::link::edges(nodes, &sources, defs, projects),
                };
                job_time(timing, "link", t);
                Linked::Edges(edges)
            }
            None => {
                let g = graph::build(&sources, &walked.dirs, &walked.projects, opts.mode);
                let r = index::write::write_postings(dir, &g.nodes, &records);
                put(&posting_out, r);
                Linked::Graph(g)
            }
        };
        jobs();
        helper.join().map_err(|_| Error::msg("an index writer thread panicked"))?;
        Ok::<_, Error>(linked)
    })?;
    let taken = |slot: Mutex<Option<Result<u64>>>| {
        slot.into_inner()
            .ok()
            .flatten()
            .unwrap_or_else(|| Err(Error::msg("internal error: an index writer's job did not run")))
    };
    let posting_bytes = taken(posting_out)?;
    let rest_bytes = taken(streamed_out)?;
    let graph_written = graph_out.into_inner().ok().flatten().transpose()?;
    let names = names_out.into_inner().ok().flatten().transpose()?;
    phases.mark("link and postings");
    let g = match linked {
        Linked::Edges(edges) => {
            let (mut g, _) = native.expect("native nodes were linked");
            // The node graph holds the contain edges; linking adds the rest after them.
            g.edges.extend(edges);
            g
        }
        Linked::Reused => native.expect("native nodes were linked").0,
        Linked::Graph(g) => g,
    };
    let kept_edges = reused.and_then(Previous::archived_graph);
    let (name_bytes, (graph_bytes, written_edges)) = match graph_written {
        Some(written) => written,
        None => {
            let (name_bytes, names) = match names {
                Some(t) => t,
                None => index::write::write_names(dir, &g.nodes)?,
            };
            let input = WriteInput { graph: &g, files: &records, meta };
            let t = Instant::now();
            let graph_nodes = graph_nodes_out.into_inner().ok().flatten();
            let graph_bytes =
                index::write::write_graph(dir, &input, graph_nodes, kept_edges, names)?;
            job_time(timing, "graph", t);
            (name_bytes, graph_bytes)
        }
    };
    let (history, history_update, linked) = history.finish(previous.as_ref(), &records, dir)?;
    let history_bytes = match history {
        Some(h) => {
            index::write::write_history(dir, &h, &records)?
                + index::write::write_messages(dir, &h, &records)?
                + index::write::write_history_others(dir, &h, &records)?
        }
        None => linked,
    };
    let bytes = posting_bytes + name_bytes + graph_bytes + rest_bytes + history_bytes;
    let written = generation.commit(bytes)?;
    phases.mark("write");

    let read = kept.iter().filter(|it| it.prev_content.is_none()).count();
    let removed = previous.as_ref().map_or(0, |p| {
        let now: fxhash::FxHashSet<&[u8]> = kept.iter().map(|it| &it.found.rel[..]).collect();
        p.entries.iter().filter(|e| !now.contains(&e.0[..])).count()
    });
    let mut s = Summary {
        index_dir,
        files: kept.len(),
        parsed: parsed.load(Ordering::Relaxed),
        changed: read + removed,
        relinked: reused.is_none(),
        relinked_files: kept_summary.0,
        links_kept: kept_summary.1,
        history: history_update,
        generation: written.generation.clone(),
        nodes: g.nodes.len(),
        skipped,
        bytes: written.bytes,
        ..Default::default()
    };
    s.entities =
        g.nodes.iter().filter(|n| matches!(n.kind, NodeKind::Class | NodeKind::Function)).count();
    // A file not read again has the flags its facts gave its node.
    let mut file_flags = vec![0u8; kept.len()];
    for n in g.nodes.iter().filter(|n| n.kind == NodeKind::File) {
        if let Some(slot) = file_flags.get_mut(n.file as usize) {
            *slot = n.flags;
        }
    }
    let flagged = |flag: u8, has: fn(&FileFacts) -> bool| {
        kept.iter()
            .zip(&file_flags)
            .filter(|(it, f)| it.facts.as_ref().map_or(**f & flag != 0, has))
            .count()
    };
    s.syntax_errors = flagged(graph::FLAG_SYNTAX_ERROR, |f| f.syntax_errors > 0);
    s.generated = flagged(graph::FLAG_GENERATED, |f| f.generated);
    let file_lang: Vec<u8> = kept.iter().map(|it| it.found.lang.code()).collect();
    s.languages = crate::lang::count_languages(
        &file_lang,
        g.nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Class | NodeKind::Function))
            .map(|n| n.file),
    );
    s.vendored = walked.vendored;
    // The edges as written (one per source, target and kind, the first linked winning).
    for (&kind, &meta) in written_edges.kind.iter().zip(&written_edges.meta) {
        if let Some(kind) = EdgeKind::from_code(kind) {
            s.count_edge(kind, meta);
        }
    }
    s.seconds = started.elapsed().as_secs_f64();
    // Freeing hundreds of thousands of small allocations takes a noticeable share of a rebuild:
    // leave it to a thread of its own (the process may well exit before it is done).
    drop(records);
    drop(sources);
    if let Some(mem) = memory {
        mem.files.clear();
        // The trees not parsed from this time (the file did not change after all) are older
        // than this build's parses.
        for it in &mut kept {
            if let (None, Some(p)) = (&it.parsed, it.before.take()) {
                mem.parses.push((it.found.rel.clone(), p));
            }
        }
        for it in &mut kept {
            if let Some(p) = it.parsed.take() {
                mem.parses.push((it.found.rel.clone(), p));
            }
        }
        let over = mem.parses.len().saturating_sub(KEPT_PARSES);
        mem.parses.drain(..over);
        let mut kept_terms = kept_terms.into_inner().ok().flatten().map(Vec::into_iter);
        for it in &mut kept {
            let terms = match &mut kept_terms {
                Some(streamed) => streamed.next(),
                None => it.terms.take(),
            };
            if let (Some(facts), Some(terms)) = (it.facts.take(), terms) {
                let f = &it.found;
                let r =
                    Remembered { size: f.size, mtime_ns: f.mtime_ns, hash: it.hash, facts, terms };
                mem.files.insert(std::mem::take(&mut it.found.rel), r);
            }
        }
    }
    std::thread::spawn(move || drop((kept, g)));
    Ok(s)
}

/// Removes the `tmp-*` directories of killed builds from `index_dir` (call with its build lock
/// held).
fn remove_partial_generations(index_dir: &Path) {
    let Ok(rd) = std::fs::read_dir(index_dir) else { return };
    for e in rd.flatten() {
        if e.file_name().as_encoded_bytes().starts_with(b"tmp-") {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Fills `item` from `mem` when the file is unchanged since the previous generation, which
/// then supplies its content and cached archive (see [`Memory`]).
/// `to_keep`: how many more of the files that changed may keep their parse.
fn remembered(item: &mut Item, mem: &mut Memory, prev: &Previous, to_keep: &mut usize) {
    let f = &item.found;
    if let Some(k) = mem.parses.iter().position(|(rel, _)| *rel == f.rel) {
        item.before = Some(mem.parses.remove(k).1);
    }
    let Some(c) = prev.lookup(f) else { return };
    let Some(r) = mem.files.get(&f.rel) else { return };
    if !(c.size == f.size && c.mtime_ns == f.mtime_ns && r.size == f.size)
        || r.mtime_ns != f.mtime_ns
        || r.hash != c.hash
        || prev.content(c.index).is_none()
        || prev.archive(c.index).is_none()
    {
        // A file known before that changed: it is parsed, and may be edited again soon (not
        // every file of a checkout: a tree takes about ten times its file's size).
        item.keep_parse = *to_keep > 0;
        *to_keep = to_keep.saturating_sub(1);
        return;
    }
    let Some(r) = mem.files.remove(&f.rel) else { return };
    item.prev_content = Some(c.index);
    item.hash = c.hash;
    item.cached = Some(c.index);
    item.facts = Some(r.facts);
    item.terms = Some(r.terms);
}

/// The repository root, canonical; a clear message when it does not exist.
pub fn canonical_root(root: &Path) -> Result<PathBuf> {
    root.canonicalize().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::msg(format!(
                "no such directory {}: give cds-build the repository's root directory",
                root.display()
            ))
        } else {
            Error::io("cannot read", root, e)
        }
    })
}

/// The kept files as the linkers see them.
fn sources_of(kept: &[Item]) -> Vec<Source<'_>> {
    kept.iter()
        .map(|it| Source {
            rel: &it.found.rel,
            facts: it.facts.as_ref().expect("processed"),
            lang: it.found.lang,
        })
        .collect()
}

/// What a rebuild that kept some families' edges tells of them: how many files it linked again
/// when it linked every family it did file by file, and the languages that kept their links.
fn plan_summary(plan: &relink::Plan, kept: &[Item]) -> (Option<usize>, Vec<&'static str>) {
    let relinked_files = (plan.by_file.len() == plan.relinked.len())
        .then(|| plan.by_file.iter().map(|(_, files)| files.len()).sum::<usize>());
    let mut langs: Vec<crate::lang::Lang> = kept.iter().map(|it| it.found.lang).collect();
    langs.retain(|l| plan.kept.contains(&l.family()));
    langs.sort_unstable();
    let mut names: Vec<&'static str> = langs.iter().map(|l| l.name()).collect();
    names.dedup();
    (relinked_files, names)
}

/// The whole facts of the files that hold less of theirs (None for the others), read from the
/// previous generation on `jobs` threads, for a link that needs every file's after all (their
/// items stay as they are: the file records borrow them).
fn whole_facts(kept: &[Item], prev: Option<&Previous>, jobs: usize) -> Vec<Option<FileFacts>> {
    let todo: Vec<(usize, Depth)> = (0..kept.len())
        .filter(|&i| kept[i].wants(Depth::Whole))
        .map(|i| (i, Depth::Whole))
        .collect();
    let mut out: Vec<Option<FileFacts>> = (0..kept.len()).map(|_| None).collect();
    for (i, facts, _) in load_cached(kept, &todo, prev, jobs) {
        out[i] = Some(facts);
    }
    out
}

/// Whether the workers leave the unchanged files' facts unread, to be read after the extraction
/// only if the build needs them: when the build may keep the previous links (the postings are
/// carried over, nothing keeps the facts for later, the same files as before). A build whose
/// parsed files changed nothing but positions carries the nodes and reads none of them
/// ([`Previous::carried_nodes`]); otherwise they are read in outline
/// ([`index::facts::load_outline`]), and whole if a parsed file changed what the link reads.
/// Otherwise each worker reads them whole as it goes.
struct Outlines {
    possible: bool,
    link_needed: AtomicBool,
}

/// How much of a cached file's facts a build reads (each holding the one before).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Depth {
    /// What the nodes and the file table read ([`index::facts::load_outline`]).
    Outline,
    /// All but the calls: what the scope tables read of a file whose family is linked again
    /// file by file without it ([`index::facts::load_without_calls`]).
    NoCalls,
    /// Everything ([`index::facts::load_facts`]).
    Whole,
}

/// What the link needs of each file's facts when it links the families `relinked` again, of
/// them `by_file` only in the files listed (`families`: each file's): the facts of the files
/// linked whole, the others' of those families but their calls (no table reads another
/// file's calls), and the other families' in outline (their edges are kept).
fn facts_needed(
    families: &[Family],
    relinked: &[Family],
    by_file: &[(Family, Vec<u32>)],
) -> Vec<Depth> {
    let mut need: Vec<Depth> = families
        .iter()
        .map(|f| match (relinked.contains(f), by_file.iter().any(|(b, _)| b == f)) {
            (false, _) => Depth::Outline,
            (true, true) => Depth::NoCalls,
            (true, false) => Depth::Whole,
        })
        .collect();
    for &j in by_file.iter().flat_map(|(_, files)| files) {
        if let Some(d) = need.get_mut(j as usize) {
            *d = Depth::Whole;
        }
    }
    need
}

impl Item {
    /// Whether its facts are to be read from the previous generation for a build that needs
    /// `need` of them.
    fn wants(&self, need: Depth) -> bool {
        self.cached.is_some() && (self.facts.is_none() || self.read < need)
    }

    /// Takes an unchanged file's facts and term counts (when `terms`) from cache entry `i` of
    /// the previous generation, or nothing yet, to be read after the extraction if the build
    /// needs them ([`Outlines`]). False when they cannot be read.
    fn reuse(&mut self, p: &Previous, i: usize, terms: bool, outlines: &Outlines) -> bool {
        if !terms && outlines.possible {
            // Read after the extraction, in outline or whole, only when the build needs them
            // (and otherwise copied as they are: a damaged table whose entry points past the
            // archives has the file extracted again).
            if p.archive(i).is_none() {
                return false;
            }
            self.cached = Some(i);
            return true;
        }
        let Some((facts, t)) = p.facts(i, terms) else { return false };
        (self.facts, self.terms, self.cached) = (Some(facts), t, Some(i));
        true
    }
}

/// `need` of an unchanged file's facts, from the previous generation's cache, and how much that
/// is: all of them when the cache entry cannot be read and the file is extracted again from the
/// content it was indexed with.
fn cached_facts(
    it: &Item,
    prev: Option<&Previous>,
    need: Depth,
    ex: &mut Extractors,
) -> (FileFacts, Depth) {
    let archive = prev.zip(it.cached).and_then(|(p, i)| p.checked(i));
    let read = archive.and_then(match need {
        Depth::Outline => index::facts::load_outline,
        Depth::NoCalls => index::facts::load_without_calls,
        Depth::Whole => index::facts::load_facts,
    });
    match read {
        Some(facts) => (facts, need),
        None => {
            let content = prev.zip(it.prev_content).and_then(|(p, i)| p.content(i));
            let mut f = ex.extract(it.found.lang, content.unwrap_or_default());
            f.shrink_to_fit();
            (f, Depth::Whole)
        }
    }
}

/// Reads the facts of the unchanged files that have none yet, or less than they `need` (one
/// per file), from the previous generation, on `jobs` threads. A cache entry that cannot be
/// read is extracted again from the content it was indexed with.
fn read_cached_facts(kept: &mut [Item], prev: Option<&Previous>, need: &[Depth], jobs: usize) {
    let todo: Vec<(usize, Depth)> =
        (0..kept.len()).filter(|&i| kept[i].wants(need[i])).map(|i| (i, need[i])).collect();
    for (i, facts, depth) in load_cached(kept, &todo, prev, jobs) {
        (kept[i].facts, kept[i].read) = (Some(facts), depth);
    }
}

/// [`cached_facts`] of the files `todo` lists (index in `kept`, what of their facts), on `jobs`
/// threads: each file's index, facts and how much of them they are.
fn load_cached(
    kept: &[Item],
    todo: &[(usize, Depth)],
    prev: Option<&Previous>,
    jobs: usize,
) -> Vec<(usize, FileFacts, Depth)> {
    // Cut into runs of about equal bytes of archived facts, not of equal counts: one bundle's
    // facts outweigh hundreds of small files' (three.js: 17.1 MB in one half, 2.6 MB in the
    // other, which read in 14 ms and 2 ms).
    let weight = |&(i, _): &(usize, Depth)| {
        prev.zip(kept[i].cached).and_then(|(p, c)| p.archive(c)).map_or(1, <[u8]>::len)
    };
    let runs = graph::map_weighted(todo, weight, jobs, |run| {
        let mut ex = Extractors::default();
        let read = |&(i, need): &(usize, Depth)| {
            let (facts, depth) = cached_facts(&kept[i], prev, need, &mut ex);
            (i, facts, depth)
        };
        run.iter().map(read).collect::<Vec<_>>()
    });
    runs.into_iter().flatten().collect()
}

/// Where a build of `root` writes its index: `--index`, else `<root>/.cds`.
pub fn index_dir_for(opts: &BuildOptions, root: &Path) -> PathBuf {
    opts.index_dir.clone().unwrap_or_else(|| root.join(index::INDEX_DIR))
}

/// Reads, reuses or extracts one file. Returns true when it was parsed.
/// `terms`: whether a file's term counts are needed when its facts come from the previous
/// generation (not when its postings are carried over).
fn process(
    item: &mut Item,
    prev: Option<&Previous>,
    ex: &mut Extractors,
    locagent: bool,
    terms: bool,
    defer: bool,
    outlines: &Outlines,
) -> bool {
    if item.facts.is_some() {
        // Remembered by a long-running builder.
        return false;
    }
    let f = &item.found;
    // Unchanged size and mtime: take everything from the previous generation.
    if let Some(p) = prev
        && let Some(c) = p.lookup(f)
        && c.size == f.size
        && c.mtime_ns == f.mtime_ns
        && p.content(c.index).is_some()
    {
        item.prev_content = Some(c.index);
        item.hash = c.hash;
        if item.reuse(p, c.index, terms, outlines) {
            return false;
        }
    }
    item.prev_content = None;
    let f = &item.found;
    let content = match std::fs::read(&f.abs) {
        Ok(c) => c,
        Err(e) => {
            item.skip = Some(format!("cannot read: {}", io_reason(&e)));
            return false;
        }
    };
    if is_binary(&content) && !locagent {
        item.skip = Some("binary content (NUL bytes)".to_string());
        return false;
    }
    if locagent && std::str::from_utf8(&content).is_err() {
        // LocAgent reads files as UTF-8 and drops those that fail to decode.
        item.skip = Some(String::new());
        return false;
    }
    item.hash = crc32fast::hash(&content);
    item.content = content;
    if let Some(p) = prev
        && let Some(c) = p.lookup(f)
        && c.hash == item.hash
        && c.size == item.content.len() as u64
        && item.reuse(p, c.index, terms, outlines)
    {
        return false;
    }
    let f = &item.found;
    let mut facts = if item.keep_parse {
        let (facts, parsed) =
            tree::reparsing(item.before.take(), || ex.extract(f.lang, &item.content));
        item.parsed = parsed;
        facts
    } else {
        ex.extract(f.lang, &item.content)
    };
    facts.shrink_to_fit();
    if outlines.possible && !outlines.link_needed.load(Ordering::Relaxed) {
        // A change the link reads: the other files' facts are needed whole from now on.
        let old = prev.and_then(|p| p.facts(p.lookup(f)?.index, false));
        let same = old.is_some_and(|(old, _)| facts.same_but_positions(&old));
        if !same {
            outlines.link_needed.store(true, Ordering::Relaxed);
        }
        item.same_but_positions = Some(same);
    }
    if !defer {
        item.terms = Some(bm25::file_terms(&item.content, &facts));
    }
    item.facts = Some(facts);
    true
}

/// What the sink writes for a processed item: its content (read now, or the previous
/// generation's) and its facts archive (copied, or serialized here, on the worker thread).
fn hand_over<'p>(
    item: &mut Item,
    prev: Option<&'p Previous>,
    stream_terms: bool,
    carry: bool,
    defer: bool,
) -> sink::Part<'p> {
    use crate::index::facts::FactsEntry;
    use sink::{Chunk, Part};
    if item.skip.is_some() {
        return Part::Skipped;
    }
    let previous = |i: Option<usize>, get: fn(&'p Previous, usize) -> Option<Chunk<'p>>| {
        prev.zip(i).and_then(|(p, i)| get(p, i))
    };
    let content = match previous(item.prev_content, Previous::content_chunk) {
        Some(c) => c,
        None => Chunk::Owned(std::mem::take(&mut item.content)),
    };
    item.content_len = content.bytes().len() as u64;
    let archived = match previous(item.cached, Previous::archive_chunk) {
        Some(a) => Some(a),
        // Serialized once its terms are counted (see `sink`).
        None if defer => None,
        None => {
            let (Some(facts), Some(terms)) = (&item.facts, &item.terms) else {
                return Part::Failed(Error::msg(
                    "internal error: a file reached the writer unprocessed",
                ));
            };
            match archive_facts(facts, terms, &item.found.rel) {
                Ok(b) => Some(Chunk::Archive(b)),
                Err(e) => return Part::Failed(e),
            }
        }
    };
    let f = &item.found;
    let entry = FactsEntry {
        rel: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        hash: item.hash,
        lang: f.lang.code(),
        off: 0,
        len: 0,
        // Kept with an archive kept where it lies (the writer computes a copied one's).
        crc: prev.zip(item.cached).and_then(|(p, i)| p.archive_crcs.get(i).copied()).unwrap_or(0),
    };
    let terms = if stream_terms { item.terms.take() } else { None };
    let carried = carry && item.cached.is_some();
    Part::Kept { content, archive: archived, entry, terms, carried }
}

/// A file's facts and term counts, serialized for the facts cache.
fn archive_facts(
    facts: &FileFacts,
    terms: &FileTerms,
    rel: &[u8],
) -> Result<rkyv::util::AlignedVec> {
    crate::index::facts::archive(facts, terms).map_err(|e| {
        Error::msg(format!("cannot serialize the facts of {}: {e}", crate::id::display(rel)))
    })
}

/// NUL bytes in the first 8 KiB: not a source file.
fn is_binary(content: &[u8]) -> bool {
    content[..content.len().min(8192)].contains(&0)
}

/// The previous generation, as far as the builder reuses it.
struct Previous {
    /// Its generation's directory.
    gen_dir: PathBuf,
    /// `graph.rkyv`, validated and checksum verified: the nodes and edges a rebuild may keep.
    graph: Option<Mapped>,
    /// The cached files' archives: `facts.bin`.
    facts: Mapped,
    /// Where each cached file's archive lies in the facts payload (validated once, in `load`).
    archives: Vec<std::ops::Range<usize>>,
    /// Each cached file's archive's CRC-32 ([`index::facts::checked`]).
    archive_crcs: Vec<u32>,
    /// Whether the next generation appends to this one's `facts.bin` (half of it or more is in
    /// use) rather than write a new one.
    share_facts: bool,
    /// `content.bin`, and where each cached file's content lies in its payload.
    content: Option<Mapped>,
    content_at: Vec<std::ops::Range<usize>>,
    /// Likewise for `content.bin`.
    share_content: bool,
    /// `terms.fst`, checksum verified: copied when the term set did not change.
    terms: Option<Mapped>,
    /// `postings.rkyv` and its delta, if any, validated: the postings of unchanged files are
    /// carried over from them (with `terms`, whose numbering they use, and `blocks`).
    postings: Option<(Mapped, Option<Mapped>)>,
    /// Per cached file: its first node (the file's) and how many nodes it has (its
    /// definitions follow it).
    blocks: Vec<(u32, u32)>,
    /// Its graph is cds's own (not LocAgent's).
    native: bool,
    options: Vec<u8>,
    /// The history it was built with (without its messages: see
    /// [`Previous::carried_history`]).
    history: Option<History>,
    /// (rel, size, mtime, hash, index into the cache, language code), sorted by rel.
    entries: Vec<(Vec<u8>, u64, i64, u32, usize, u8)>,
}

/// How a build's files relate to the previous generation's ([`Previous::file_changes`]).
struct FileChanges {
    /// Per file: new (or in another language), or its facts differ but for positions.
    changed: Vec<bool>,
    /// Per file: its number in the previous generation (None: new).
    old: Vec<Option<usize>>,
    /// Per previous file: its family.
    old_family: Vec<Option<Family>>,
    /// Per previous file: gone (or now in another language).
    gone: Vec<bool>,
}

impl FileChanges {
    /// The previous generation's files, in its order, none changed.
    fn none(&self) -> bool {
        !self.gone.contains(&true)
            && self.old.iter().enumerate().all(|(i, o)| *o == Some(i))
            && !self.changed.contains(&true)
    }

    /// The families of the previous files gone.
    fn gone_families(&self) -> impl Iterator<Item = Family> + '_ {
        self.gone.iter().zip(&self.old_family).filter(|(g, _)| **g).filter_map(|(_, f)| *f)
    }

    /// The families of the files new, changed or gone, when some family has none of those
    /// (it may keep its links) or one of them may be linked file by file (`relink`);
    /// `families`: each file's.
    fn relinked(&self, families: &[Family]) -> Option<Vec<Family>> {
        let mut some: Vec<Family> =
            families.iter().zip(&self.changed).filter(|(_, c)| **c).map(|(f, _)| *f).collect();
        some.extend(self.gone_families());
        let mut all = families.to_vec();
        for v in [&mut all, &mut some] {
            v.sort_unstable();
            v.dedup();
        }
        let partial =
            all.iter().any(|f| !some.contains(f)) || some.iter().any(|&f| !relink::whole_family(f));
        (!some.is_empty() && partial).then_some(some)
    }
}

struct CacheRef {
    size: u64,
    mtime_ns: i64,
    hash: u32,
    index: usize,
}

impl Previous {
    fn load(index_dir: &Path) -> Option<Previous> {
        let ix = Index::open(index_dir).ok()?;
        // A damaged previous generation is not reused (the build starts from scratch).
        ix.check_readable().ok()?;
        let gen_dir = ix.generation_dir().to_path_buf();
        // The cache's table, checked whole: a damaged entry would hand a file another's facts.
        let table = Mapped::open(&gen_dir.join(format::FACTS_FILE), MAGIC_FACTS, index_dir)
            .ok()
            .filter(Mapped::check_crc)?;
        let blob = index::facts::open_blob(&gen_dir, index_dir).ok()?;
        let view = FactsView::new(table.payload(), blob.payload())?;
        let share_facts =
            index::write::worth_sharing(view.live_bytes(), blob.payload().len() as u64);
        let g = ix.graph();
        let content = Mapped::open_growing(
            &gen_dir.join(format::CONTENT_FILE),
            format::MAGIC_CONTENT,
            index_dir,
        )
        .ok();
        // The cache and the file table list the same files in the same order.
        let content_at: Vec<std::ops::Range<usize>> = if g.file_node.len() == view.entries().len() {
            g.content_off
                .iter()
                .zip(g.content_len.iter())
                .map(|(o, l)| {
                    let o = o.to_native() as usize;
                    o..o.saturating_add(l.to_native() as usize)
                })
                .collect()
        } else {
            Vec::new()
        };
        let share_content = content.as_ref().is_some_and(|c| {
            let live = content_at.iter().map(|r| r.len() as u64).sum();
            index::write::worth_sharing(live, c.payload().len() as u64)
        });
        // A history without messages (written before they were kept), or with damaged ones,
        // is read again. The messages are validated here but decoded only when a build
        // builds on them with a changed file table (see [`Previous::carried_history`]): a
        // rebuild with nothing changed does not need them, and one with the same files links
        // them.
        let history = match (ix.history(), ix.messages()) {
            (Ok(Some(h)), Ok(Some(_))) if g.file_node.len() == view.entries().len() => {
                let files = view.entries().iter().zip(h.age.iter().zip(h.churn.iter()));
                Some(History::from_files(
                    h.head.to_vec(),
                    files.map(|(f, (a, c))| (f.rel.to_vec(), a.to_native(), c.to_native())),
                    history::Messages::default(),
                    false,
                ))
            }
            _ => None,
        };
        let mut entries: Vec<(Vec<u8>, u64, i64, u32, usize, u8)> = view
            .entries()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (size, mtime, hash) =
                    (f.size.to_native(), f.mtime_ns.to_native(), f.hash.to_native());
                (f.rel.to_vec(), size, mtime, hash, i, f.lang)
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let archives = view
            .entries()
            .iter()
            .map(|f| {
                let off = f.off.to_native() as usize;
                off..off.saturating_add(f.len.to_native() as usize)
            })
            .collect();
        let archive_crcs = view.entries().iter().map(|f| f.crc.to_native()).collect();
        let options = g.meta.options.to_vec();
        Some(Previous {
            gen_dir,
            graph: None,
            facts: blob,
            archives,
            archive_crcs,
            share_facts,
            content,
            content_at,
            share_content,
            terms: None,
            postings: None,
            blocks: Vec::new(),
            native: g.meta.mode == Mode::Native.code(),
            options,
            history,
            entries,
        })
    }

    /// Its history files, when it has a history and they are sound (otherwise the history is
    /// read again).
    fn kept_history(&self, index_dir: &Path) -> Option<KeptHistory> {
        self.history.as_ref()?;
        let open = |name: &str, magic| {
            Mapped::open(&self.gen_dir.join(name), magic, index_dir).ok().filter(Mapped::check_crc)
        };
        // (`load` took the history only with valid messages.)
        let ages = open(format::HISTORY_FILE, format::MAGIC_HISTORY)?;
        let messages = open(format::MESSAGES_FILE, format::MAGIC_MESSAGES)?;
        let others = open(format::HISTORY_OTHERS_FILE, format::MAGIC_HISTORY_OTHERS)
            .filter(|o| index::read::validated_history_others(o).is_some());
        Some(KeptHistory { ages, messages, others })
    }

    /// The history it was built with, messages included (and the paths outside its file
    /// table, when it kept them), from its sound history files.
    fn carried_history(&self, kept: &KeptHistory) -> History {
        // (Sound: checked by `kept_history`; `history` is there for the same reason.)
        let mut h = self.history.clone().unwrap_or_default();
        let m = index::read::validated_messages(&kept.messages, self.entries.len());
        h.messages = m.map(|m| kept_messages(m, &self.table_rels())).unwrap_or_default();
        if let Some(o) = kept.others.as_ref().and_then(index::read::validated_history_others) {
            let rels: Vec<&[u8]> = o
                .rel_off
                .windows(2)
                .map(|w| &o.rel[w[0].to_native() as usize..w[1].to_native() as usize])
                .collect();
            let files = rels.iter().zip(o.age.iter().zip(o.churn.iter()));
            let files = files.map(|(rel, (a, c))| (rel.to_vec(), a.to_native(), c.to_native()));
            let messages = kept_messages(&o.messages, &rels);
            h = h.with_others(files, messages);
        }
        h
    }

    /// The paths of its file table, in order (the entries are sorted by path; their cache
    /// index is the table's order).
    fn table_rels(&self) -> Vec<&[u8]> {
        let mut rels: Vec<&[u8]> = vec![&[]; self.entries.len()];
        for e in &self.entries {
            rels[e.4] = &e.0;
        }
        rels
    }

    /// Whether the new generation's file table lists the same paths in the same order.
    fn same_file_table(&self, records: &[index::write::FileRecord]) -> bool {
        records.len() == self.entries.len()
            && self.table_rels().iter().zip(records).all(|(a, r)| *a == r.rel)
    }

    /// Opens and checks what a rebuild carries over whole (`terms.fst`, `postings.rkyv` and
    /// the graph), once the build is known to be needed: a rebuild with nothing changed does
    /// not check 17 MB (Django) it will not read.
    fn open_carried(&mut self, index_dir: &Path) {
        let gen_dir = &self.gen_dir;
        // Reused byte for byte when the terms are the same, so checked whole.
        let terms = Mapped::open(&gen_dir.join(format::TERMS_FILE), format::MAGIC_TERMS, index_dir)
            .ok()
            .filter(Mapped::check_crc);
        // Carried over into the next generation, so checked whole (a damaged byte would be
        // copied on): the postings and the graph whose node numbers they use. Their pages are
        // let go of until they are read.
        let sound = |m: &Mapped| {
            let ok = m.check_crc();
            m.release_through(m.payload());
            ok
        };
        // (Index::open validated these bytes in `load`; generations are never written to
        // again.)
        self.graph =
            Mapped::open(&gen_dir.join(format::GRAPH_FILE), format::MAGIC_GRAPH, index_dir)
                .ok()
                .filter(sound);
        let graph_sound = self.graph.is_some();
        let postings = index::read::open_postings(gen_dir, index_dir)
            .ok()
            .filter(|(m, d)| graph_sound && sound(m) && d.as_ref().is_none_or(Mapped::check_crc));
        let blocks = match self.archived_graph() {
            Some(g) if g.file_node.len() == self.archives.len() => {
                let file: Vec<u32> = g.file.iter().map(|x| x.to_native()).collect();
                g.file_node
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let n = n.to_native();
                        let len = file
                            .get(n as usize..)
                            .map_or(0, |rest| rest.iter().take_while(|&&f| f == i as u32).count());
                        (n, len as u32)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        // LocAgent's graph numbers its nodes, and counts its documents, another way.
        let carry = self.native && terms.is_some() && !blocks.is_empty();
        self.postings = postings.filter(|_| carry);
        (self.terms, self.blocks) = (terms, blocks);
    }

    /// Per family `relinked` (but Python and Rust: `relink::whole_family`), the files to link
    /// again one by one, when every file of the family that changed is one of the previous
    /// generation's and none is gone; `families`: each file's. A file that changed only its
    /// calls ([`FileFacts::same_but_calls`]) is linked again alone: no table reads another
    /// file's calls. One whose definitions, imports or bindings changed too, and nothing else
    /// that other files' resolution reads ([`FileFacts::changed_names`]), also has the files
    /// its change can reach linked again ([`Previous::reached_by`]). Anything else links the
    /// whole family. (`jobs`: threads to search the files with.)
    fn linked_by_file(
        &self,
        kept: &[Item],
        families: &[Family],
        changes: &FileChanges,
        relinked: &[Family],
        jobs: usize,
    ) -> Vec<(Family, Vec<u32>)> {
        let gone: Vec<Family> = changes.gone_families().collect();
        let by_file = |family: Family| -> Option<Vec<u32>> {
            let mut files = Vec::new();
            // The files whose declarations changed, and the names those changes declared.
            let (mut redefined, mut names) = (Vec::new(), Vec::new());
            for (j, it) in kept.iter().enumerate() {
                if families[j] != family || !changes.changed[j] {
                    continue;
                }
                let (old, _) = self.facts(changes.old[j]?, false)?;
                let new = it.facts.as_ref()?;
                if !new.same_but_calls(&old) {
                    names.extend(new.changed_names(&old)?);
                    redefined.push(j as u32);
                }
                files.push(j as u32);
            }
            if !redefined.is_empty() {
                let in_it: Vec<bool> = families.iter().map(|&f| f == family).collect();
                // Go and Java packages are directories: their files see each other's names
                // without an import.
                let packages = matches!(family, Family::Go | Family::Java);
                files.extend(
                    self.reached_by(kept, &in_it, changes, &redefined, &names, packages, jobs)?,
                );
                files.sort_unstable();
                files.dedup();
                // Linked one by one, a file costs more than in a family linked whole (its
                // memos start empty): past a quarter of a large family, link it whole.
                let in_family = in_it.iter().filter(|&&x| x).count();
                if files.len() > (in_family / 4).max(64) {
                    return None;
                }
            }
            Some(files)
        };
        relinked
            .iter()
            .filter(|&&f| !relink::whole_family(f) && !gone.contains(&f))
            .filter_map(|&f| Some((f, by_file(f)?)))
            .collect()
    }

    /// The files of a family (`in_family`, by this build's numbers) whose links may change
    /// when the files `redefined` (this build's numbers, each a previous file) change the
    /// declarations named `names`
    /// ([`FileFacts::changed_names`]) and nothing else that resolution reads: those that import
    /// them, directly or through others (an import can bind a definition under another name,
    /// as a JavaScript default export does), those whose facts hold one of the names anywhere
    /// (every other lookup goes by name: a call, a base class, a type, a method of any
    /// receiver, the only definition of a name in the family), and with `packages` the files
    /// of their directories (a Go or Java package's files see each other's names without an
    /// import; they name them too, so this is a margin). None when the previous graph cannot
    /// tell. (`jobs`: threads to search the files' facts with.)
    #[allow(clippy::too_many_arguments)]
    fn reached_by(
        &self,
        kept: &[Item],
        in_family: &[bool],
        changes: &FileChanges,
        redefined: &[u32],
        names: &[String],
        packages: bool,
        jobs: usize,
    ) -> Option<Vec<u32>> {
        let g = self.archived_graph()?;
        let new_of = relink::new_numbers(&changes.old, self.entries.len())?;
        let mut reached: Vec<u32> = Vec::new();
        let dirs: Vec<&[u8]> =
            redefined.iter().map(|&j| graph::parent_dir(&kept[j as usize].found.rel)).collect();
        // Importers, transitively: the previous graph's import edges into each file's nodes.
        let import = EdgeKind::Import as u8;
        let mut seen = vec![false; self.entries.len()];
        let mut todo: Vec<usize> = Vec::new();
        for &j in redefined {
            let i = changes.old[j as usize]?;
            *seen.get_mut(i)? = true;
            todo.push(i);
        }
        while let Some(i) = todo.pop() {
            let &(first, len) = self.blocks.get(i)?;
            for n in first as usize..(first + len) as usize {
                let (a, b) = (g.in_off.get(n)?.to_native(), g.in_off.get(n + 1)?.to_native());
                for e in a as usize..b as usize {
                    if *g.in_kind.get(e)? != import {
                        continue;
                    }
                    let src = g.in_src.get(e)?.to_native() as usize;
                    let f = g.file.get(src)?.to_native() as usize;
                    if !std::mem::replace(seen.get_mut(f)?, true) {
                        todo.push(f);
                        reached.extend(new_of[f].filter(|&j| in_family[j as usize]));
                    }
                }
            }
        }
        let finders: Vec<bstr::Finder> =
            names.iter().filter(|n| !n.is_empty()).map(bstr::Finder::new).collect();
        // The files whose facts to search for the names (this build's number, the previous').
        let mut search: Vec<(u32, usize)> = Vec::new();
        for (j, it) in kept.iter().enumerate() {
            let Some(i) = changes.old[j] else { continue };
            if !in_family[j] || changes.changed[j] || seen[i] {
                continue;
            }
            if packages && dirs.contains(&graph::parent_dir(&it.found.rel)) {
                reached.push(j as u32);
            } else {
                search.push((j as u32, i));
            }
        }
        // Searched on `jobs` threads, in runs of about equal bytes: the Linux kernel's C
        // archives are 1.1 GB, 0.3 s on one core.
        let weight = |&(_, i): &(u32, usize)| self.archive(i).map_or(1, <[u8]>::len);
        let found = graph::map_weighted(&search, weight, jobs, |run| -> Option<Vec<u32>> {
            let mut found = Vec::new();
            for &(j, i) in run {
                let archive = self.archive(i)?;
                if finders.iter().any(|f| f.find(archive).is_some()) {
                    found.push(j);
                }
            }
            Some(found)
        });
        for f in found {
            reached.extend(f?);
        }
        Some(reached)
    }

    /// How the files relate to the ones this generation indexed: which are new or have facts
    /// that differ but for positions ([`FileFacts::same_but_positions`]), and which are gone
    /// (None when its graph is not cds's own). With the same files, in the same order, none
    /// changed ([`FileChanges::none`]), the graph's nodes and the links are this generation's
    /// (the nodes depend on the file list, the definitions' names, kinds and nesting, and the
    /// file flags; the links on the facts but positions, and the build's options and project
    /// files, which the caller compares): an edit of comments, docstrings, messages, numbers or
    /// layout, or one that only moves code, then re-links nothing. Otherwise only the families
    /// of the files new, changed or gone are linked again ([`relink`]).
    fn file_changes(&self, kept: &[Item]) -> Option<FileChanges> {
        let g = self.archived_graph()?;
        if g.meta.mode != Mode::Native.code() || g.file_node.len() != self.entries.len() {
            return None;
        }
        let mut ch = FileChanges {
            changed: Vec::with_capacity(kept.len()),
            old: Vec::with_capacity(kept.len()),
            old_family: vec![None; self.entries.len()],
            gone: vec![true; self.entries.len()],
        };
        for e in &self.entries {
            *ch.old_family.get_mut(e.4)? = crate::lang::Lang::from_code(e.5).map(|l| l.family());
        }
        for it in kept {
            // (A file whose language changed is a new file: `lookup` compares languages.)
            let Some(i) = self.lookup(&it.found).map(|c| c.index) else {
                ch.changed.push(true);
                ch.old.push(None);
                continue;
            };
            *ch.gone.get_mut(i)? = false;
            ch.old.push(Some(i));
            ch.changed.push(if it.cached == Some(i) {
                false
            } else if let Some(same) = it.same_but_positions {
                !same
            } else {
                match (&it.facts, self.facts(i, false)) {
                    (Some(new), Some((old, _))) => !new.same_but_positions(&old),
                    _ => true,
                }
            });
        }
        Some(ch)
    }

    /// Whether `nodes` are this generation's graph's nodes.
    fn same_nodes(&self, nodes: &graph::Graph) -> bool {
        let Some(g) = self.archived_graph() else { return false };
        g.kind.len() == nodes.nodes.len()
            && nodes.nodes.iter().enumerate().all(|(n, node)| {
                g.kind.get(n) == Some(&(node.kind as u8))
                    && g.flags.get(n) == Some(&node.flags)
                    && g.parent.get(n).map(|x| x.to_native()) == Some(node.parent)
                    && g.file.get(n).map(|x| x.to_native()) == Some(node.file)
                    && archived_id(g, n) == Some(&node.id[..])
            })
    }

    /// What [`graph::native_nodes`] makes of the files, read from this generation's graph
    /// instead, for files with its nodes ([`Previous::file_changes`], none changed): a copy of its node
    /// columns, each file's definitions matched to its nodes in order. A third of the time of
    /// building them anew (Django: 6 against 12-15 ms). `facts`: each file's, where they were
    /// read; a file whose facts were not read gets no [`graph::DefNodes`] row and its
    /// definitions' nodes no `def` (a build that carries the nodes reads neither for it: it
    /// links nothing, carries its postings and copies its spans). None when the graph does not
    /// fit the facts.
    fn carried_nodes(
        &self,
        facts: &[Option<&FileFacts>],
    ) -> Option<(graph::Graph, graph::DefNodes)> {
        let g = self.archived_graph()?;
        let n = g.kind.len();
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            nodes.push(graph::Node {
                kind: NodeKind::from_code(*g.kind.get(i)?)?,
                id: archived_id(g, i)?.to_vec(),
                parent: g.parent.get(i)?.to_native(),
                file: g.file.get(i)?.to_native(),
                def: graph::NONE,
                flags: *g.flags.get(i)?,
            });
        }
        // A file's definitions follow its node, one node per qualified name: the first
        // definition of that name's (a later one, a property's setter, shares it).
        let mut defs: graph::DefNodes = Vec::with_capacity(facts.len());
        for (fi, f) in facts.iter().enumerate() {
            let Some(f) = f else {
                defs.push(Vec::new());
                continue;
            };
            // (`blocks`: each file's node and how many nodes it has, its own included.)
            let &(file_node, len) = self.blocks.get(fi)?;
            let (first, count) = (file_node as usize + 1, len.checked_sub(1)? as usize);
            if nodes.get(first..first + count)?.iter().any(|d| d.file != fi as u32) {
                return None;
            }
            let n_defs = f.defs.len();
            let mut of_def = Vec::with_capacity(n_defs);
            if count == n_defs {
                for di in 0..n_defs {
                    nodes[first + di].def = di as u32;
                    of_def.push((first + di) as u32);
                }
            } else {
                let mut by_qual: fxhash::FxHashMap<String, u32> = Default::default();
                let mut next = first;
                for di in 0..n_defs {
                    let qual = f.qual_name(di as u32);
                    let node = match by_qual.get(&qual) {
                        Some(&node) => node,
                        None if next < first + count => {
                            nodes[next].def = di as u32;
                            by_qual.insert(qual, next as u32);
                            next += 1;
                            (next - 1) as u32
                        }
                        None => return None,
                    };
                    of_def.push(node);
                }
                if next != first + count {
                    return None;
                }
            }
            defs.push(of_def);
        }
        // The contain edges, as building the nodes adds them: each node's, in node order.
        let edges = (1..n as u32)
            .filter_map(|c| {
                let p = nodes[c as usize].parent;
                (p != graph::NONE).then_some(graph::Edge {
                    src: p,
                    dst: c,
                    kind: graph::EdgeKind::Contain,
                    meta: graph::META_EXACT,
                })
            })
            .collect();
        Some((graph::Graph { nodes, edges }, defs))
    }

    /// The previous name index (`names.fst`, and its delta if any), linked into the generation
    /// at `dir` (copied where the file system has no hard links), and its names table: what
    /// [`index::write::write_names`] would make of nodes with the same ids and kinds. None when
    /// the files or the graph are unsound.
    fn kept_names(&self, dir: &Path) -> Option<Result<(u64, index::write::NameTable)>> {
        let index_dir = self.gen_dir.parent()?;
        let table = self.names_table()?;
        // Checked as a reader would (the delta's files too), so damage is not carried on.
        index::names::Names::open(&self.gen_dir, index_dir, table.1).ok()?.check().ok()?;
        let bytes = index::names::link_previous(&self.gen_dir, dir);
        Some(bytes.map(|b| (b, table.0)))
    }

    /// The name index of a generation with `nodes`, written as a delta over this one's (see
    /// [`index::names::write_delta`]). None when it does not fit.
    fn names_delta(
        &self,
        dir: &Path,
        nodes: &[graph::Node],
    ) -> Option<Result<(u64, index::write::NameTable)>> {
        let g = self.archived_graph()?;
        let (table, _) = self.names_table()?;
        index::names::write_delta(dir, &self.gen_dir, &ArchivedNodes(g), table, nodes)
    }

    /// The names' multi table this generation's graph keeps, and its number of nodes.
    fn names_table(&self) -> Option<(index::write::NameTable, u32)> {
        let g = self.archived_graph()?;
        let table = index::write::NameTable {
            multi_off: g.multi_off.iter().map(|x| x.to_native()).collect(),
            multi_ids: g.multi_ids.iter().map(|x| x.to_native()).collect(),
        };
        Some((table, g.kind.len() as u32))
    }

    fn archived_graph(&self) -> Option<&crate::index::read::ArchivedGraph> {
        // SAFETY: the bytes passed `rkyv::access` in `Index::open` (in `load`), and a
        // generation's files are immutable (see `Mapped::open`).
        let m = self.graph.as_ref()?;
        Some(unsafe { rkyv::access_unchecked::<crate::index::read::ArchivedGraph>(m.payload()) })
    }

    /// Fills `mem` with every file's facts and term counts, read on `jobs` threads; a file whose
    /// cached facts cannot be read is left out (a rebuild reads it from the previous
    /// generation as usual).
    fn remember_all(&self, mem: &mut Memory, jobs: usize) {
        let per = self.entries.len().div_ceil(jobs).max(1);
        let read: Vec<Vec<(Vec<u8>, Remembered)>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .entries
                .chunks(per)
                .map(|chunk| {
                    s.spawn(move || {
                        chunk
                            .iter()
                            .filter_map(|(rel, size, mtime_ns, hash, i, _)| {
                                let (facts, terms) = self.facts(*i, true)?;
                                let (size, mtime_ns, hash) = (*size, *mtime_ns, *hash);
                                let r = Remembered { size, mtime_ns, hash, facts, terms: terms? };
                                Some((rel.clone(), r))
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        mem.files.extend(read.into_iter().flatten());
    }

    fn same_files(&self, files: &[walk::Found]) -> bool {
        files.len() == self.entries.len() && files.iter().all(|f| self.unchanged(f))
    }

    /// Whether a file has the size and mtime this generation indexed it with.
    fn unchanged(&self, f: &walk::Found) -> bool {
        self.lookup(f).is_some_and(|c| c.size == f.size && c.mtime_ns == f.mtime_ns)
    }

    /// The cached entry of a file, when it was indexed in the same language (a `.h` header
    /// turns C++ when the repository gains C++ sources: its cached C facts are no use).
    fn lookup(&self, f: &walk::Found) -> Option<CacheRef> {
        let i = self.entries.binary_search_by(|e| e.0.as_slice().cmp(&f.rel)).ok()?;
        let e = &self.entries[i];
        if e.5 != f.lang.code() {
            return None;
        }
        Some(CacheRef { size: e.1, mtime_ns: e.2, hash: e.3, index: e.4 })
    }

    fn content(&self, i: usize) -> Option<&[u8]> {
        self.content.as_ref()?.payload().get(self.content_at.get(i)?.clone())
    }

    /// Cache entry `i`'s facts, and its term counts when `terms`.
    fn facts(&self, i: usize, terms: bool) -> Option<(FileFacts, Option<FileTerms>)> {
        use crate::index::facts::{load, load_facts};
        let archive = self.checked(i)?;
        if terms {
            load(archive).map(|(f, t)| (f, Some(t)))
        } else {
            load_facts(archive).map(|f| (f, None))
        }
    }

    /// The archive bytes of cache entry `i`, to copy into the next generation.
    fn archive(&self, i: usize) -> Option<&[u8]> {
        self.facts.payload().get(self.archives.get(i)?.clone())
    }

    /// Cache entry `i`'s archive, to read ([`index::facts::checked`]).
    fn checked(&self, i: usize) -> Option<&rkyv::Archived<index::facts::CachedFacts>> {
        index::facts::checked(self.archive(i)?, *self.archive_crcs.get(i)?)
    }

    /// The postings of the unchanged files, renumbered as `nodes`: `carried[j]` is kept file
    /// j's cache entry when its postings are carried over. None when this generation has no
    /// postings to carry.
    fn carried(
        &self,
        nodes: &[graph::Node],
        carried: &[Option<usize>],
    ) -> Result<Option<bm25::Carried<'_>>> {
        let (Some((postings, delta)), Some(terms)) = (&self.postings, &self.terms) else {
            return Ok(None);
        };
        let mismatch = || {
            Error::msg(
                "the previous index generation's postings do not match its graph: run \
                 cds-build --force",
            )
        };
        // SAFETY: validated by `open_postings` in `open_carried`; the mapped bytes are
        // immutable.
        let (base, delta_archive) = unsafe {
            (
                rkyv::access_unchecked::<crate::index::read::ArchivedPostings>(postings.payload()),
                delta.as_ref().map(|d| {
                    rkyv::access_unchecked::<crate::index::read::ArchivedPostingsDelta>(d.payload())
                }),
            )
        };
        let view = index::postings::Postings::new(base, delta_archive);
        let old_lens = view.doc_lens();
        let mut new_start = vec![graph::NONE; carried.len()];
        for (n, node) in nodes.iter().enumerate() {
            if node.kind == NodeKind::File && (node.file as usize) < carried.len() {
                new_start[node.file as usize] = n as u32;
            }
        }
        // Old node -> new node: a file's nodes are its node and its definitions' after it, the
        // same number of them for the same facts, in the same order in both generations.
        let mut map = vec![graph::NONE; old_lens.len()];
        for (j, &c) in carried.iter().enumerate() {
            let Some(i) = c else { continue };
            let (old, len) = *self.blocks.get(i).ok_or_else(mismatch)?;
            let new = new_start[j];
            let new_len = nodes
                .get(new as usize..)
                .map_or(0, |rest| rest.iter().take_while(|x| x.file == j as u32).count());
            if new == graph::NONE || new_len != len as usize {
                return Err(mismatch());
            }
            let (old, len) = (old as usize, len as usize);
            let slots = map.get_mut(old..old + len).ok_or_else(mismatch)?;
            for (k, slot) in slots.iter_mut().enumerate() {
                *slot = new + k as u32;
            }
        }
        let doc_len = map
            .iter()
            .zip(old_lens.iter())
            .filter(|&(&n, len)| n != graph::NONE && len.to_native() > 0)
            .map(|(&n, len)| (n, len.to_native()))
            .collect();
        let dict = fst::Map::new(terms.payload()).map_err(|_| mismatch())?;
        if dict.len() != view.fst_terms() {
            return Err(mismatch());
        }
        // The added terms in sorted order, with their numbers.
        let mut added: Vec<(&[u8], usize)> =
            (0..view.n_added()).map(|k| (view.added(k), view.fst_terms() + k)).collect();
        added.sort_unstable();
        let mut added_text = Vec::new();
        let mut added_ends = Vec::with_capacity(added.len());
        for &(a, _) in &added {
            added_text.extend_from_slice(a);
            added_ends.push(added_text.len());
        }
        let added_numbers = added.iter().map(|a| a.1).collect();
        let terms =
            bm25::PreviousTerms { base: dict.clone(), added_text, added_ends, added_numbers };
        if terms.len() != view.n_terms() {
            return Err(mismatch());
        }
        // The postings may be written as a delta over the previous ones (the carried documents
        // renumbered by it); otherwise, when every carried document keeps its number (a rebuild
        // that kept its links), a term none of whose documents changed takes its postings
        // whole, without decoding them, up to a size whose pages may stay mapped until they
        // are written.
        let layer = Some(bm25::Layer {
            prev: view,
            dict,
            base_crc: postings.header_crc(),
            map: map.clone(),
        });
        let unmoved = map.iter().enumerate().all(|(k, &n)| n == graph::NONE || n == k as u32);
        let unmoved =
            (unmoved && !view.has_delta() && postings.payload().len() as u64 <= sink::DEFER_BYTES)
                .then(|| {
                    // Runs of documents with postings that are not carried; documents without any
                    // (directories) join the run they are in, so the runs are few.
                    let mut dropped: Vec<std::ops::Range<u32>> = Vec::new();
                    for (k, len) in old_lens.iter().enumerate().take(map.len()) {
                        let (gone, empty) = (map[k] == graph::NONE, len.to_native() == 0);
                        let k = k as u32;
                        match dropped.last_mut() {
                            Some(r) if r.end == k && (gone || empty) => r.end = k + 1,
                            _ if gone && !empty => dropped.push(k..k + 1),
                            _ => {}
                        }
                    }
                    bm25::Unmoved {
                        docs: base.post_doc.as_slice(),
                        tfs: base.post_tf.as_slice(),
                        off: base.post_off.as_slice(),
                        dropped,
                    }
                });
        // The old postings are read front to back: their pages are let go of as they are
        // (unless terms taken whole read them again when written).
        let (docs, tfs) = (base.post_doc.as_slice(), base.post_tf.as_slice());
        let mut released = if unmoved.is_some() { usize::MAX } else { 0 };
        let list = move |t: usize, out: &mut Vec<(u32, u32)>| {
            let carry = |n: u32| map.get(n as usize).copied().unwrap_or(graph::NONE);
            let at = |i: usize| base.post_off.get(i).map_or(0, |x| x.to_native() as usize);
            let end = at(t + 1).min(docs.len()).min(tfs.len());
            if view.has_delta() {
                view.for_each(t, |d, tf| {
                    if carry(d) != graph::NONE {
                        out.push((carry(d), tf));
                    }
                });
            } else {
                for k in at(t).min(end)..end {
                    let n = carry(docs[k].to_native());
                    if n != graph::NONE {
                        out.push((n, u32::from(tfs[k].to_native())));
                    }
                }
            }
            // (A term past the base's, one of the delta's, leaves `end` at 0.)
            if end >= released.saturating_add(1 << 20) {
                postings.release_through(as_bytes(&docs[released..end]));
                postings.release_through(as_bytes(&tfs[released..end]));
                released = end;
            }
        };
        Ok(Some(bm25::Carried { terms, list: Box::new(list), doc_len, unmoved, layer }))
    }

    /// File `i`'s content, to copy into the next generation.
    fn content_chunk(&self, i: usize) -> Option<sink::Chunk<'_>> {
        Some(sink::Chunk::Previous(self.content(i)?, self.content.as_ref()?))
    }

    /// Cache entry `i`'s archive, to copy into the next generation.
    fn archive_chunk(&self, i: usize) -> Option<sink::Chunk<'_>> {
        Some(sink::Chunk::Previous(self.archive(i)?, &self.facts))
    }
}

/// Debug builds: `nodes` and `defs`, carried from `prev`, are what building them anew from
/// every file's facts (those not read taken from `prev`) gives, but for what
/// [`Previous::carried_nodes`] leaves out for the files not read. Nothing is checked when a
/// file's cached facts cannot be read (a damaged cache, which the build does not read either).
#[cfg(debug_assertions)]
fn check_carried_nodes(
    nodes: &graph::Graph,
    defs: &graph::DefNodes,
    kept: &[Item],
    prev: &Previous,
) {
    let read: Option<Vec<FileFacts>> = kept
        .iter()
        .map(|it| match &it.facts {
            Some(f) => Some(f.clone()),
            None => it.cached.and_then(|i| prev.checked(i)).and_then(index::facts::load_outline),
        })
        .collect();
    let Some(read) = read else { return };
    let sources: Vec<Source> = kept
        .iter()
        .zip(&read)
        .map(|(it, facts)| Source { rel: &it.found.rel, facts, lang: it.found.lang })
        .collect();
    let (built, built_defs) = graph::native_nodes(&sources);
    assert_eq!(nodes.edges, built.edges);
    assert_eq!(nodes.nodes.len(), built.nodes.len());
    for (a, b) in nodes.nodes.iter().zip(&built.nodes) {
        let unread = a.file != graph::NONE && kept[a.file as usize].facts.is_none();
        let def = if unread { graph::NONE } else { b.def };
        assert_eq!(a, &graph::Node { def, ..b.clone() });
    }
    for (fi, it) in kept.iter().enumerate() {
        let expected: &[u32] = if it.facts.is_none() { &[] } else { &built_defs[fi] };
        assert_eq!(defs[fi], expected);
    }
}

/// The bytes of the names and of the graph written, and the graph's edges (for the summary).
type NamesAndGraph = (u64, (u64, index::write::WrittenEdges));

/// A previous generation's nodes, as the names delta reads them.
struct ArchivedNodes<'g>(&'g crate::index::read::ArchivedGraph);

impl index::names::PreviousNodes for ArchivedNodes<'_> {
    fn len(&self) -> usize {
        self.0.kind.len()
    }

    fn node(&self, n: usize) -> (&[u8], u8) {
        (archived_id(self.0, n).unwrap_or_default(), self.0.kind.get(n).copied().unwrap_or(0))
    }
}

/// Node `n`'s ID in an archived graph, read with `get`: a damaged column gives None, never a
/// panic.
fn archived_id(g: &crate::index::read::ArchivedGraph, n: usize) -> Option<&[u8]> {
    let (a, b) = (g.id_off.get(n)?.to_native(), g.id_off.get(n + 1)?.to_native());
    g.id_blob.get(a as usize..b as usize)
}

/// The bytes of a slice of rkyv's little-endian numbers (to let go of their mapped pages).
fn as_bytes<T: Copy>(s: &[T]) -> &[u8] {
    // SAFETY: used with rkyv's `u32_le` and `u16_le`: plain bytes without padding, so every
    // byte of the slice is initialized; u8 needs no alignment.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// Counts of an existing index (for an up-to-date build's summary).
pub fn summarize(ix: &Index) -> Summary {
    let n = ix.len() as u32;
    let mut s =
        Summary { nodes: n as usize, bytes: dir_size(ix.generation_dir()), ..Default::default() };
    let g = ix.graph();
    s.files = g.file_node.len();
    s.syntax_errors = g.file_errors.iter().filter(|e| e.to_native() > 0).count();
    let file_lang: Vec<u8> = g.file_lang.iter().copied().collect();
    s.languages = crate::lang::count_languages(
        &file_lang,
        (0..n)
            .filter(|&node| matches!(ix.kind(node), NodeKind::Class | NodeKind::Function))
            .filter_map(|node| ix.file_index(node)),
    );
    for node in 0..n {
        if matches!(ix.kind(node), NodeKind::Class | NodeKind::Function) {
            s.entities += 1;
        }
        for e in ix.out_edges(node) {
            s.count_edge(e.kind, e.meta);
        }
    }
    s
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| rd.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

/// The one-line summary printed after a build.
pub fn summary_line(s: &Summary) -> String {
    let kinds = EdgeKind::ALL
        .iter()
        .map(|k| format!("{} {}", s.edges[*k as usize], k.name()))
        .collect::<Vec<_>>()
        .join(", ");
    let state = if s.up_to_date { "up to date: " } else { "" };
    let mut line = format!(
        "{state}{} files ({} parsed), {} entities, edges: {kinds}; {} ambiguous, {} guessed, {} by value flow; {} with syntax errors",
        s.files, s.parsed, s.entities, s.ambiguous, s.guessed, s.value_flow, s.syntax_errors
    );
    if !s.skipped.is_empty() {
        line.push_str(&format!("; {} skipped", s.skipped.len()));
    }
    if s.generated > 0 {
        line.push_str(&format!("; {} minified or generated", s.generated));
    }
    if !s.vendored.is_empty() {
        let dirs: Vec<String> =
            s.vendored.iter().take(3).map(|d| crate::id::display(d).into_owned()).collect();
        let more = if s.vendored.len() > 3 { ", ..." } else { "" };
        line.push_str(&format!(
            "; {} dependency directories left out ({}{more}; --no-ignore includes them)",
            s.vendored.len(),
            dirs.join(", ")
        ));
    }
    if s.languages.len() > 1 || s.languages.first().is_some_and(|l| l.name != "python") {
        let langs: Vec<String> = s
            .languages
            .iter()
            .map(|l| format!("{} {} files {} entities", l.name, l.files, l.entities))
            .collect();
        line.push_str(&format!("; {}", langs.join(", ")));
    }
    line.push_str(&format!("; {:.1} MiB in {:.2}s", s.bytes as f64 / (1 << 20) as f64, s.seconds));
    line
}

/// The order files are extracted in: walk order (the sink streams contents and facts out in
/// that order, which keeps memory bounded), except that files big enough to leave a thread
/// parsing alone at the end (over an eighth of a thread's share of the bytes) go first, biggest
/// first. googletest's three 200-260 KB sources: -12% wall. On big trees no file is that big
/// and the order is the walk's. Files marked `edited` (a rebuild's few files whose size or
/// mtime changed: they are parsed, the others only read from the previous generation; empty:
/// none) go first too: Django's `query.py` took 26 ms to parse after the other worker had
/// begun its share.
fn extraction_order(files: &[crate::walk::Found], jobs: usize, edited: &[bool]) -> Vec<usize> {
    let total: u64 = files.iter().map(|f| f.size).sum();
    let big = total / (jobs as u64 * 8).max(1);
    let early: Vec<bool> = (0..files.len())
        .map(|i| files[i].size > big || edited.get(i).copied().unwrap_or(false))
        .collect();
    let mut first: Vec<usize> = (0..files.len()).filter(|&i| early[i]).collect();
    if first.is_empty() || jobs < 2 {
        return (0..files.len()).collect();
    }
    first.sort_by_key(|&i| std::cmp::Reverse(files[i].size));
    first.extend((0..files.len()).filter(|&i| !early[i]));
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cached facts are reused when the stored options end with the extractors' fingerprint,
    /// and the link is kept only when they are equal: so the linking code's fingerprint must
    /// be in them, before the extractors'.
    #[test]
    fn options_name_the_linking_code_before_the_extractors() {
        let text = String::from_utf8(options_text(&BuildOptions::default(), &[])).unwrap();
        let link = format!(" link={} ", env!("CDS_LINK_FINGERPRINT"));
        assert!(text.contains(&link) && text.ends_with(facts_fingerprint()), "{text}");
        assert!(text.find(&link) < text.find(facts_fingerprint()), "{text}");
    }

    /// A fresh repository of two Python files (a.py calls b.py's `b`) in the temporary
    /// directory, and the options to build it into its `idx`.
    fn two_files(name: &str) -> (PathBuf, BuildOptions) {
        let root = std::env::temp_dir().join(format!("cds-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        for (name, text) in [("a.py", "def a():\n    b()\n"), ("b.py", "def b():\n    pass\n")] {
            std::fs::write(root.join(name), text).unwrap();
        }
        let opts = BuildOptions {
            root: root.clone(),
            index_dir: Some(root.join("idx")),
            history: false,
            ..Default::default()
        };
        (root, opts)
    }

    /// A position-only edit takes the nodes from the previous graph (in a debug build,
    /// `build_with` checks them against nodes built anew), merged definitions (a property and
    /// its setter: one node) and nested ones included; any other edit builds them anew.
    #[test]
    fn nodes_are_carried_over_by_a_position_only_edit() {
        let (root, opts) = two_files("carried-nodes");
        let class = "class C:\n    @property\n    def x(self):\n        return 1\n    @x.setter\n    \
                     def x(self, v):\n        def inner():\n            b()\n        inner()\n\n\
                     def a():\n    b()\n";
        std::fs::write(root.join("a.py"), class).unwrap();
        let lines = || {
            let ix = Index::open(&root.join("idx")).unwrap();
            ix.lines(ix.lookup_id(b"a.py:C.x").unwrap())
        };
        build_with(&opts, &|_| {}, None).unwrap();
        let before = lines();
        std::fs::write(root.join("a.py"), format!("# moved\n\n{class}")).unwrap();
        let s = build_with(&opts, &|_| {}, None).unwrap();
        assert_eq!((s.parsed, s.relinked), (1, false));
        assert_eq!(lines(), (before.0 + 2, before.1 + 2), "the property's span, moved");
        std::fs::write(root.join("a.py"), format!("# moved\n\n{class}def new():\n    pass\n"))
            .unwrap();
        let s = build_with(&opts, &|_| {}, None).unwrap();
        assert!(s.relinked);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn big_and_edited_files_are_extracted_first_and_every_file_once() {
        let found = |rel: &str, size: u64| crate::walk::Found {
            rel: rel.as_bytes().to_vec(),
            abs: PathBuf::from(rel),
            size,
            mtime_ns: 0,
            lang: crate::lang::Lang::Python,
        };
        let files = [found("a.py", 10), found("big.py", 900), found("b.py", 20), found("c.py", 30)];
        let edited = [false, false, true, false];
        assert_eq!(extraction_order(&files, 2, &edited), [1, 2, 0, 3]);
        assert_eq!(extraction_order(&files, 2, &[]), [1, 0, 2, 3]);
        assert_eq!(extraction_order(&files, 1, &edited), [0, 1, 2, 3]);
    }

    /// A long-running builder keeps every file's facts and terms, however the terms were
    /// counted (during the extraction, or after it as small repositories do).
    #[test]
    fn a_long_running_builder_remembers_every_file() {
        let (root, opts) = two_files("memory");
        let mut memory = Memory::default();
        build_with(&opts, &|_| {}, Some(&mut memory)).unwrap();
        assert_eq!(memory.files.len(), 2);
        assert!(memory.files.values().all(|r| r.terms.terms().len() > 0));
        std::fs::write(root.join("b.py"), "def b():\n    return 1\n").unwrap();
        let s = build_with(&opts, &|_| {}, Some(&mut memory)).unwrap();
        assert_eq!((s.parsed, memory.files.len()), (1, 2));
        // One that starts on an index already up to date learns every file from it.
        let mut fresh = Memory::default();
        let s = build_with(&opts, &|_| {}, Some(&mut fresh)).unwrap();
        assert!(s.up_to_date);
        assert_eq!(fresh.files.len(), 2);
        for (rel, r) in &memory.files {
            let f = &fresh.files[rel];
            assert_eq!((f.size, f.mtime_ns, f.hash), (r.size, r.mtime_ns, r.hash));
            assert!(f.facts == r.facts && f.terms == r.terms);
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// A long-running builder keeps the parses of a few files that changed, to parse them
    /// again from: none from its first build, at most [`KEPT_PARSES`] from a bigger change.
    #[test]
    fn a_long_running_builder_keeps_a_few_parses() {
        let (root, opts) = two_files("parses");
        let names: Vec<String> = (0..KEPT_PARSES + 4).map(|i| format!("m{i}.py")).collect();
        for n in &names {
            std::fs::write(root.join(n), "def f():\n    pass\n").unwrap();
        }
        let mut memory = Memory::default();
        build_with(&opts, &|_| {}, Some(&mut memory)).unwrap();
        assert!(memory.parses.is_empty(), "the first build keeps no parse");
        std::fs::write(root.join("b.py"), "def b():\n    return 1\n").unwrap();
        build_with(&opts, &|_| {}, Some(&mut memory)).unwrap();
        assert_eq!(memory.parses.iter().map(|p| p.0.as_slice()).collect::<Vec<_>>(), [b"b.py"]);
        // A change of more files than are kept: this build's parses, the most recent, stay.
        std::thread::sleep(std::time::Duration::from_millis(15));
        for n in &names {
            std::fs::write(root.join(n), "def f():\n    return 2\n").unwrap();
        }
        let s = build_with(&opts, &|_| {}, Some(&mut memory)).unwrap();
        assert_eq!((s.parsed, memory.parses.len()), (names.len(), KEPT_PARSES));
        assert!(memory.parses.iter().all(|p| p.0.starts_with(b"m")));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_builder_told_what_changed_checks_only_that() {
        let (root, opts) = two_files("restat");
        let root = canonical_root(&root).unwrap();
        let mut memory = Memory::default();
        let mut build = |changed: Option<Vec<&str>>| {
            memory.changed(changed.map(|v| v.iter().map(|p| root.join(p)).collect()));
            let s = build_with(&opts, &|_| {}, Some(&mut memory)).unwrap();
            (s.files, s.parsed, s.up_to_date)
        };
        build(None);
        // Told only of b.py: c.py, added unannounced, is not seen (no walk).
        std::fs::write(root.join("b.py"), "def b():\n    return 1\n").unwrap();
        std::fs::write(root.join("c.py"), "def c():\n    pass\n").unwrap();
        assert_eq!(build(Some(vec!["b.py"])), (2, 1, false));
        // An editor's temporary file, gone: nothing to do.
        assert_eq!(build(Some(vec!["b.py.swp"])), (2, 0, true));
        // A path the last walk did not find, or a deleted file: walk.
        assert_eq!(build(Some(vec!["c.py"])), (3, 1, false));
        std::fs::remove_file(root.join("a.py")).unwrap();
        assert_eq!(build(Some(vec!["a.py"])), (2, 0, false));
        // A file replaced by a directory: walk.
        std::fs::remove_file(root.join("b.py")).unwrap();
        std::fs::create_dir(root.join("b.py")).unwrap();
        assert_eq!(build(Some(vec!["b.py"])), (1, 0, false));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
