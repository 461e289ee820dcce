//! The on-disk index: where it lives, how generations are swapped, and the reading side.
//!
//! ```text
//! <repo>/.cds/            found by walking up from the current directory (like .git);
//!                         `--index DIR` or CDS_INDEX overrides
//!   CURRENT               names the live generation ("gen-000007\n"); replaced atomically
//!   lock                  held by a running cds-build (an flock: released if it dies)
//!   watch.lock            held by a running `cds-build --watch` (an flock; holds its pid)
//!   walk.rkyv             the last walk's listing, stamped (cds-build's cache: `walk::Record`)
//!   gen-000007/           graph.rkyv names.fst terms.fst postings.rkyv facts.rkyv
//!                         content.bin, facts.bin (the files' bytes, the facts' archives:
//!                         shared by generations, appended to: `write::AppendedFile`)
//!                         (terms.fst may be an earlier generation's: postings.rkyv lists the
//!                         words added since, see `format::PostingsFile`)
//!                         postings-delta.rkyv (only after a rebuild: postings.rkyv is then
//!                         an earlier generation's, hard-linked, and this holds the changed
//!                         documents' postings and how the others were renumbered, see
//!                         `format::PostingsDelta`)
//!                         names-delta.fst, names-delta.rkyv (only after a rebuild that
//!                         added, removed or renamed nodes: names.fst is then an earlier
//!                         generation's, hard-linked, and these hold the changed nodes' names
//!                         and how the others were renumbered, see `format::NamesDelta`)
//!                         history.rkyv, messages.rkyv (only for a git work tree: see
//!                         `crate::history`)
//! ```
//!
//! A build writes a new generation beside the live one, fsyncs it, then swaps `CURRENT` by
//! write-temp + fsync + rename. Readers therefore see the old index or the new one, never half
//! of one; a build killed halfway leaves the old index in use and its partial directory is
//! removed by the next build. The previous generation is kept until the build after next, so a
//! reader that has just read `CURRENT` still finds its files.

pub mod facts;
pub mod format;
pub mod fst_file;
pub mod names;
pub mod postings;
pub mod read;
pub mod write;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, IndexProblem, Result};

pub use read::Index;

/// Name of the index directory inside a repository.
pub const INDEX_DIR: &str = ".cds";
/// The file naming the live generation.
pub const CURRENT: &str = "CURRENT";
/// The lock file.
pub const LOCK: &str = "lock";
/// Environment variable that names the index directory.
pub const ENV_INDEX: &str = "CDS_INDEX";

/// Finds the index directory: `explicit` (from `--index`), else `$CDS_INDEX`, else the first
/// `.cds` holding a `CURRENT` in the current directory or above it. An explicit path may name
/// the index directory itself or a repository containing one.
pub fn discover(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = requested(explicit) {
        if dir.join(CURRENT).is_file() {
            return Ok(dir);
        }
        let inner = dir.join(INDEX_DIR);
        if inner.join(CURRENT).is_file() {
            return Ok(inner);
        }
        return Err(Error::index(&dir, IndexProblem::MissingAt));
    }
    let cwd = std::env::current_dir().map_err(|e| Error::io("cannot read", ".", e))?;
    let mut dir: &Path = &cwd;
    loop {
        let candidate = dir.join(INDEX_DIR);
        if candidate.join(CURRENT).is_file() {
            return Ok(candidate);
        }
        match dir.parent() {
            Some(p) => dir = p,
            None => return Err(Error::index(&cwd, IndexProblem::Missing)),
        }
    }
}

/// The index directory a user asked for: `explicit` (from `--index`), else a non-empty
/// `$CDS_INDEX`; `None` means "look for `.cds` upward from the current directory".
pub fn requested(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(ENV_INDEX).filter(|v| !v.is_empty()).map(PathBuf::from))
}

/// Reads `CURRENT`: the live generation's directory name.
pub fn current_generation(index_dir: &Path) -> Result<String> {
    let path = index_dir.join(CURRENT);
    let text = fs::read(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::index(index_dir, IndexProblem::Missing)
        } else {
            Error::io("cannot read", &path, e)
        }
    })?;
    let name = String::from_utf8_lossy(&text).trim().to_string();
    if !is_generation_name(&name) {
        return Err(Error::index(
            index_dir,
            IndexProblem::Corrupt(format!("CURRENT names '{name}', not a generation")),
        ));
    }
    Ok(name)
}

/// `gen-` followed by digits.
pub fn is_generation_name(name: &str) -> bool {
    name.strip_prefix("gen-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The number of a generation name.
pub fn generation_number(name: &str) -> Option<u64> {
    name.strip_prefix("gen-")?.parse().ok()
}

/// Points `CURRENT` at `generation`, atomically.
pub fn swap_current(index_dir: &Path, generation: &str) -> Result<()> {
    let tmp = index_dir.join(format!("{CURRENT}.tmp"));
    let mut f = fs::File::create(&tmp).map_err(|e| Error::io("cannot write", &tmp, e))?;
    writeln!(f, "{generation}")
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::io("cannot write", &tmp, e))?;
    drop(f);
    let cur = index_dir.join(CURRENT);
    fs::rename(&tmp, &cur).map_err(|e| Error::io("cannot replace", &cur, e))?;
    sync_dir(index_dir);
    Ok(())
}

/// fsyncs a directory so a rename in it is durable (best effort: not all filesystems allow it).
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// An exclusive lock on an index directory, held for the duration of a build.
#[derive(Debug)]
pub struct BuildLock {
    _file: fs::File,
}

impl BuildLock {
    /// Takes the lock, waiting for another build to finish first (`on_wait` is called once if
    /// it has to wait).
    pub fn acquire(index_dir: &Path, on_wait: impl FnOnce()) -> Result<BuildLock> {
        let path = index_dir.join(LOCK);
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io("cannot create", &path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                on_wait();
                file.lock().map_err(|e| Error::io("cannot lock", &path, e))?;
            }
            Err(fs::TryLockError::Error(e)) => return Err(Error::io("cannot lock", &path, e)),
        }
        Ok(BuildLock { _file: file })
    }
}

/// Removes generations other than `keep` (and partial ones left by killed builds).
pub fn remove_stale_generations(index_dir: &Path, keep: &[&str]) {
    let Ok(rd) = fs::read_dir(index_dir) else { return };
    for entry in rd.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = is_generation_name(&name) || name.starts_with("tmp-");
        if ours && !keep.contains(&name.as_ref()) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}
