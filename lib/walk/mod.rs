//! The repository's source files, found with the `ignore` crate (ripgrep's rules).
//!
//! `.gitignore`, `.ignore` and `.cdsignore` are honoured also outside git checkouts (an sdist
//! or tarball indexes the same as a checkout); `.git` and the index directory are always
//! skipped; hidden files only with `--hidden`. Paths are kept as bytes, so a name that is not
//! UTF-8 is still indexed. The result is sorted, so builds are deterministic.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

use crate::error::{Error, Result};
use crate::lang::Lang;

pub mod record;
use record::Seen;
pub use record::{RECORD_FILE, Record};

/// How to walk.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkOptions {
    /// Include hidden files and directories.
    pub hidden: bool,
    /// Do not read ignore files.
    pub no_ignore: bool,
    /// Globs to exclude (gitignore syntax, relative to the root).
    pub excludes: Vec<String>,
    /// Files larger than this many bytes are skipped and reported.
    pub max_filesize: u64,
    /// Follow symbolic links (loops are detected and reported).
    pub follow: bool,
    /// The index directory, never walked.
    pub index_dir: Option<PathBuf>,
    /// LocAgent v2.3's file set: every `.py` file, no ignore rules, hidden files included,
    /// directories whose path contains `.git` skipped (a substring test, as LocAgent does),
    /// symlinked files skipped.
    pub locagent: bool,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            hidden: false,
            no_ignore: false,
            excludes: Vec::new(),
            max_filesize: 2 << 20,
            follow: false,
            index_dir: None,
            locagent: false,
        }
    }
}

/// A source file found by the walk.
#[derive(Debug, Clone)]
pub struct Found {
    /// Path relative to the root, `/`-separated, as bytes.
    pub rel: Vec<u8>,
    /// Path to open.
    pub abs: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Its language.
    pub lang: Lang,
}

/// Something the walk could not use, reported in the build summary.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// The path (relative when possible).
    pub rel: Vec<u8>,
    /// Why.
    pub reason: String,
}

/// What the walk found.
#[derive(Debug, Default, Clone)]
pub struct Walked {
    /// Source files, sorted by path.
    pub files: Vec<Found>,
    /// Every directory walked (relative, `/`-separated; the root is empty), sorted.
    pub dirs: Vec<Vec<u8>>,
    /// Files and directories that could not be used.
    pub skipped: Vec<Skipped>,
    /// Files over the size limit (also listed in `skipped`).
    pub too_large: usize,
    /// Project files the resolvers read (`go.mod`, `tsconfig.json`, ...), sorted by path.
    pub projects: Vec<crate::lang::ProjectFile>,
    /// Dependency directories left out by default (`node_modules`, `vendor`, `target`), by
    /// relative path; `--no-ignore` walks them.
    pub vendored: Vec<Vec<u8>>,
}

/// Directories of dependencies and build output that a repository rarely means to index.
pub const VENDORED_DIRS: &[&str] = &["node_modules", "vendor", "target"];

/// Project files larger than this are not read (a generated `package.json` lock, say).
const MAX_PROJECT_FILE: u64 = 1 << 20;

/// Walks `root` and returns its source files.
pub fn walk(root: &Path, opts: &WalkOptions) -> Result<Walked> {
    Ok(walk_inner(root, opts, None)?.0)
}

/// What a walk of `root` would find: the walk recorded at `record` when its stamps confirm it
/// (see [`Record`]; not with `fresh`), else a new walk and its record, to save for next time.
pub fn walk_recorded(
    root: &Path,
    opts: &WalkOptions,
    record: &Path,
    fresh: bool,
) -> Result<(Walked, Option<Record>)> {
    let replayed = (!fresh).then(|| Record::load(record)).flatten();
    if let Some(replayed) = replayed.and_then(|r| r.replay(root, opts)) {
        return Ok(replayed);
    }
    walk_inner(root, opts, Some(record::RACY_NS))
}

/// Walks `root`; with `racy_window_ns`, also records the walk (see [`Record`]).
fn walk_inner(
    root: &Path,
    opts: &WalkOptions,
    racy_window_ns: Option<i64>,
) -> Result<(Walked, Option<Record>)> {
    let started_ns = record::now_ns();
    let meta = std::fs::metadata(root).map_err(|e| Error::io("cannot read", root, e))?;
    if !meta.is_dir() {
        return Err(Error::msg(format!(
            "{} is not a directory: give cds-build the repository's root directory",
            root.display()
        )));
    }
    let (mut out, seen) = walk_from(root, root, None, opts, racy_window_ns.is_some())?;
    finish(&mut out);
    let record =
        racy_window_ns.and_then(|window| Record::new(root, opts, &out, seen, started_ns, window));
    Ok((out, record))
}

/// Walks `start`, a directory in `root` (itself, or one the walk of `root` goes into), to
/// `max_depth`, by the rules of a walk of `root`; `recording`: also what a [`Record`] keeps.
/// Unsorted.
fn walk_from(
    root: &Path,
    start: &Path,
    max_depth: Option<usize>,
    opts: &WalkOptions,
    recording: bool,
) -> Result<(Walked, Seen)> {
    let mut b = WalkBuilder::new(start);
    b.max_depth(max_depth);
    // (No sorter: the parallel walker ignores it; the results are sorted below.)
    b.follow_links(opts.follow);
    if opts.locagent {
        b.standard_filters(false).hidden(false);
    } else {
        b.hidden(!opts.hidden).require_git(false).add_custom_ignore_filename(".cdsignore");
        if opts.no_ignore {
            b.ignore(false).git_ignore(false).git_global(false).git_exclude(false).parents(false);
        }
        if !opts.excludes.is_empty() {
            let mut ob = OverrideBuilder::new(root);
            for g in &opts.excludes {
                ob.add(&format!("!{g}"))
                    .map_err(|e| Error::usage(format!("invalid --exclude glob '{g}': {e}")))?;
            }
            b.overrides(ob.build().map_err(|e| Error::usage(format!("invalid --exclude: {e}")))?);
        }
    }
    let index_dir = opts.index_dir.as_ref().and_then(|d| d.canonicalize().ok());
    let locagent = opts.locagent;
    let skip_vendored = !opts.no_ignore && !locagent;
    let vendored = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let vendored_ref = std::sync::Arc::clone(&vendored);
    let root_owned = root.to_path_buf();
    b.filter_entry(move |e| {
        if e.depth() == 0 {
            return true;
        }
        let is_dir = e.file_type().is_some_and(|t| t.is_dir());
        if !is_dir {
            return true;
        }
        if let Some(ix) = &index_dir {
            // Compare names first: canonicalizing every directory would cost a syscall each.
            if ix.file_name() == Some(e.file_name())
                && e.path().canonicalize().is_ok_and(|p| &p == ix)
            {
                return false;
            }
        }
        if locagent {
            // LocAgent skips a directory when its relative path contains ".git" anywhere.
            let rel = e.path().strip_prefix(&root_owned).unwrap_or(e.path());
            return !rel.as_os_str().as_encoded_bytes().windows(4).any(|w| w == b".git");
        }
        if skip_vendored
            && VENDORED_DIRS.iter().any(|d| e.file_name().as_encoded_bytes() == d.as_bytes())
        {
            let rel = rel_bytes(e.path(), &root_owned);
            vendored_ref.lock().unwrap_or_else(|p| p.into_inner()).push(rel);
            return false;
        }
        e.file_name() != ".git"
    });

    // Two threads walk (statting every entry dominates; the order is restored by sorting).
    let collected = std::sync::Mutex::new((Walked::default(), Seen::default()));
    b.threads(2).build_parallel().run(|| {
        let mut local = Local { acc: Default::default(), shared: &collected };
        Box::new(move |entry| {
            let (acc, seen) = &mut local.acc;
            visit(entry, root, opts, locagent, acc, recording.then_some(seen));
            if acc.files.len() + acc.dirs.len() >= 256 {
                merge(local.shared, &mut local.acc);
            }
            ignore::WalkState::Continue
        })
    });
    let (mut out, seen) = collected.into_inner().unwrap_or_else(|p| p.into_inner());
    out.vendored = std::mem::take(&mut *vendored.lock().unwrap_or_else(|p| p.into_inner()));
    Ok((out, seen))
}

/// Puts a walk's findings in order and gives headers their language.
fn finish(out: &mut Walked) {
    out.files.sort_by(|a, b| path_order(&a.rel, &b.rel));
    out.files.dedup_by(|a, b| a.rel == b.rel);
    let headers = crate::lang::Headers::new(out.files.iter().map(|f| (f.rel.as_slice(), f.lang)));
    for f in &mut out.files {
        f.lang = headers.lang(&f.rel, f.lang);
    }
    out.dirs.sort_by(|a, b| path_order(a, b));
    out.projects.sort_by(|a, b| path_order(&a.rel, &b.rel));
    out.vendored.sort_by(|a, b| path_order(a, b));
}

/// The walk `prev` made, brought up to date for `changed` paths without walking again, when
/// that is sure to give what a walk would: every changed path is a file `prev` found that is
/// still a regular file within the size limit (its size and mtime are read again), or a path
/// that is gone and never held anything walked (an editor's temporary file). Anything else (a
/// new, deleted or replaced file, a directory) returns None: walk again.
///
/// `cds-build --watch` calls this with the paths its events named since `prev`, so an edit
/// costs a few `stat` calls instead of a walk of the whole tree (Django: 3,000 directories).
pub fn restat(
    prev: &Walked,
    root: &Path,
    opts: &WalkOptions,
    changed: &[PathBuf],
) -> Option<Walked> {
    let mut out = prev.clone();
    for p in changed {
        let rel = rel_bytes(p, root);
        if !p.starts_with(root) || rel.is_empty() {
            return None;
        }
        let md = if opts.follow { std::fs::metadata(p) } else { std::fs::symlink_metadata(p) };
        let Ok(i) = out.files.binary_search_by(|f| path_order(&f.rel, &rel)) else {
            // Not a file the walk found: harmless only if it is gone and was never a directory
            // the walk went into, nor a source (a source file deleted or never indexed: walk).
            let gone = md.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
            let was_dir = out.dirs.binary_search_by(|d| path_order(d, &rel)).is_ok();
            if gone && !was_dir && Lang::of_path(p).is_none() {
                continue;
            }
            return None;
        };
        let md = md.ok().filter(|m| m.is_file())?;
        if md.len() > opts.max_filesize && !opts.locagent {
            return None;
        }
        let f = &mut out.files[i];
        f.size = md.len();
        f.mtime_ns = mtime_ns(&md);
    }
    Some(out)
}

/// A walker thread's findings, moved into the shared result in batches and when it ends.
struct Local<'a> {
    acc: (Walked, Seen),
    shared: &'a std::sync::Mutex<(Walked, Seen)>,
}

impl Drop for Local<'_> {
    fn drop(&mut self) {
        merge(self.shared, &mut self.acc);
    }
}

/// Moves a thread's findings into the shared result.
fn merge(collected: &std::sync::Mutex<(Walked, Seen)>, (local, seen): &mut (Walked, Seen)) {
    let mut guard = collected.lock().unwrap_or_else(|p| p.into_inner());
    let (all, all_seen) = &mut *guard;
    all.files.append(&mut local.files);
    all.dirs.append(&mut local.dirs);
    all.skipped.append(&mut local.skipped);
    all.too_large += std::mem::take(&mut local.too_large);
    all.projects.append(&mut local.projects);
    all_seen.append(seen);
}

/// Classifies one walk entry into `out`.
fn visit(
    entry: Result<ignore::DirEntry, ignore::Error>,
    root: &Path,
    opts: &WalkOptions,
    locagent: bool,
    out: &mut Walked,
    seen: Option<&mut Seen>,
) {
    let entry = match entry {
        Ok(e) => e,
        Err(err) => {
            out.skipped
                .push(Skipped { rel: walk_error_path(&err, root), reason: walk_reason(&err) });
            return;
        }
    };
    let Some(ft) = entry.file_type() else { return };
    if ft.is_dir() {
        let rel = rel_bytes(entry.path(), root);
        if let Some(seen) = seen {
            seen.dir(entry.path(), rel.clone(), !opts.no_ignore);
        }
        out.dirs.push(rel);
        return;
    }
    if ft.is_symlink() && !opts.follow {
        return;
    }
    let Some(lang) = Lang::of_path(entry.path()) else {
        if !locagent {
            project_file(&entry, root, out, seen);
        }
        return;
    };
    // LocAgent's file set is every `.py` file and nothing else: its graph has no other
    // language, and its name-keyed linking would join them to Python's.
    if locagent && (lang != Lang::Python || entry.path().extension() != Some("py".as_ref())) {
        return;
    }
    let rel = rel_bytes(entry.path(), root);
    if locagent && entry.path_is_symlink() {
        return;
    }
    let md = match entry.metadata() {
        Ok(m) => m,
        Err(err) => {
            out.skipped.push(Skipped { rel, reason: walk_reason(&err) });
            return;
        }
    };
    if !md.is_file() {
        return;
    }
    if let Some(seen) = seen {
        seen.sources.push(rel.clone());
    }
    if md.len() > opts.max_filesize && !locagent {
        out.too_large += 1;
        out.skipped.push(Skipped { rel, reason: too_large(md.len(), opts.max_filesize) });
        return;
    }
    out.files.push(Found {
        rel,
        abs: entry.path().to_path_buf(),
        size: md.len(),
        mtime_ns: mtime_ns(&md),
        lang,
    });
}

/// Why a source file is skipped for its size.
fn too_large(size: u64, max: u64) -> String {
    format!("{size} bytes is over the --max-filesize limit of {max}")
}

/// Keeps a project file's text for the resolvers; other files are not ours.
fn project_file(entry: &ignore::DirEntry, root: &Path, out: &mut Walked, seen: Option<&mut Seen>) {
    let name = entry.file_name().as_encoded_bytes();
    if !crate::lang::PROJECT_FILES.iter().any(|p| p.as_bytes() == name) {
        return;
    }
    let rel = rel_bytes(entry.path(), root);
    if let Some(seen) = seen {
        seen.projects.push(rel.clone());
    }
    read_project_file(entry.path(), rel, out);
}

/// Reads a project file for the resolvers, unless it is too large or unreadable (that only
/// loses resolution hints; the build goes on without it).
fn read_project_file(path: &Path, rel: Vec<u8>, out: &mut Walked) {
    if std::fs::metadata(path).map_or(true, |m| m.len() > MAX_PROJECT_FILE) {
        return;
    }
    if let Ok(bytes) = std::fs::read(path) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        out.projects.push(crate::lang::ProjectFile { rel, text });
    }
}

/// Orders paths component by component (`a/b` before `a.b`), like a directory listing.
pub fn path_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.split(|&c| c == b'/').cmp(b.split(|&c| c == b'/'))
}

/// Modification time in nanoseconds (0 when unavailable).
pub fn mtime_ns(md: &std::fs::Metadata) -> i64 {
    md.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64)
}

/// `path` relative to `root`, `/`-separated bytes (empty for the root itself).
pub fn rel_bytes(path: &Path, root: &Path) -> Vec<u8> {
    // The walker's paths are the root joined with names: the tail after `root/` is the answer
    // when it is already in normal form (the component walk below is a tenth of a no-op build).
    let (p, r) = (path.as_os_str().as_encoded_bytes(), root.as_os_str().as_encoded_bytes());
    if std::path::MAIN_SEPARATOR == '/'
        && let Some(tail) = p.strip_prefix(r).and_then(|t| t.strip_prefix(b"/"))
        && !r.ends_with(b"/")
        && !tail.is_empty()
        && tail.split(|&b| b == b'/').all(|c| !c.is_empty() && c != b"." && c != b"..")
    {
        return tail.to_vec();
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut out = Vec::new();
    for (i, c) in rel.components().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(c.as_os_str().as_encoded_bytes());
    }
    out
}

fn walk_error_path(err: &ignore::Error, root: &Path) -> Vec<u8> {
    fn find(err: &ignore::Error) -> Option<&Path> {
        match err {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                find(err)
            }
            ignore::Error::Loop { child, .. } => Some(child),
            _ => None,
        }
    }
    find(err).map(|p| rel_bytes(p, root)).unwrap_or_default()
}

fn walk_reason(err: &ignore::Error) -> String {
    match err {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => walk_reason(err),
        ignore::Error::Loop { ancestor, .. } => {
            format!("symbolic link loop back to {}", ancestor.display())
        }
        ignore::Error::Io(e) => crate::error::io_reason(e),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::rel_bytes;
    use std::path::Path;

    #[test]
    fn relative_paths_are_normal_slash_separated_bytes() {
        let cases: &[(&str, &str, &[u8])] = &[
            ("/r/a/b.py", "/r", b"a/b.py"),
            ("/r", "/r", b""),
            ("/r/", "/r", b""),
            ("/r//a/./b.py", "/r", b"a/b.py"),
            ("/r/a/b.py", "/r/", b"a/b.py"),
            ("/r/a/../b.py", "/r", b"a/../b.py"),
        ];
        for &(path, root, want) in cases {
            assert_eq!(rel_bytes(Path::new(path), Path::new(root)), want, "{path} under {root}");
        }
    }
}
