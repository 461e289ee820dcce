//! What a walk listed, kept beside the index so that the next build can confirm it with one
//! `stat` per directory, source file and ignore file instead of listing the tree again.
//!
//! A directory's entries can change only by adding, removing or renaming one, which sets its
//! change time (ctime; a `chmod` sets it too). What the walk ignores can change only through an
//! ignore file (each one that was read, and each place one could appear above the root, is
//! stamped; a new one in a walked directory changes that directory) or the options (kept as a
//! key). A file's size and mtime are read again as a walk reads them. So when every stamp is
//! the same, the walk would list what the record lists. A directory whose stamp changed is
//! listed again by the walk's own rules (a new directory below it walked whole, one gone
//! dropped with everything below it), unless its ignore files changed; an ignore file that
//! changed, or more than [`MAX_RELISTED`] directories, walk the tree.
//!
//! A stamp taken shortly after the thing changed is not trusted: a second change within the
//! file system's timestamp granularity would leave it as it was ("racy", as git calls it). Such
//! a directory is listed again, and an ignore file so stamped walks the tree, until a later
//! build stamps them again.

use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rkyv::{Archive, Deserialize, Serialize};

use super::{Found, Skipped, WalkOptions, Walked, path_order};
use crate::lang::Lang;

/// The record's file name in the index directory.
pub const RECORD_FILE: &str = "walk.rkyv";

const MAGIC: &[u8; 8] = b"cdswalk1";

/// A stamp this close (or closer) to the walk that took it may hide a later change: two seconds
/// covers the coarsest file-system timestamps in use (FAT; ext4 and APFS are far finer).
pub const RACY_NS: i64 = 2_000_000_000;

/// What identifies a file-system object's state: a change to its entries, attributes or
/// contents changes its ctime (and mtime), a replacement its inode.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

impl Stamp {
    /// The stamp of a path, without following a final symbolic link (None when it is absent or
    /// unreadable: recorded as such, compared as such).
    pub fn of(path: &Path) -> Option<Stamp> {
        std::fs::symlink_metadata(path).ok().map(|md| Stamp::from_metadata(&md))
    }

    /// The stamp of metadata read without following a final symbolic link.
    pub fn from_metadata(md: &std::fs::Metadata) -> Stamp {
        Stamp {
            ino: md.ino(),
            size: md.size(),
            mtime_ns: nanos(md.mtime(), md.mtime_nsec()),
            ctime_ns: nanos(md.ctime(), md.ctime_nsec()),
        }
    }

    fn racy(&self, walk_started_ns: i64, window_ns: i64) -> bool {
        self.ctime_ns.max(self.mtime_ns) >= walk_started_ns.saturating_sub(window_ns)
    }
}

/// A file that decides what is ignored (`.gitignore`, `.ignore`, `.cdsignore`,
/// `.git/info/exclude`, the global excludes file), or a place where one could appear.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    path: Vec<u8>,
    stamp: Option<Stamp>,
}

impl Probe {
    fn take(path: &Path) -> Probe {
        Probe { path: path.as_os_str().as_bytes().to_vec(), stamp: Stamp::of(path) }
    }

    fn path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.path))
    }
}

/// Ignore files a directory may hold (`.git` for its `info/exclude`).
pub const IGNORE_NAMES: &[&str] = &[".gitignore", ".ignore", ".cdsignore", ".git"];

/// What one walk thread saw for the record, merged like [`Walked`].
#[derive(Default)]
pub struct Seen {
    /// Walked directories (relative) and their stamps.
    pub dirs: Vec<(Vec<u8>, Option<Stamp>)>,
    /// The ignore files present in walked directories.
    pub probes: Vec<Probe>,
    /// Files with a language's name (relative): whatever they are now is read again.
    pub sources: Vec<Vec<u8>>,
    /// Project files by name (relative), read again.
    pub projects: Vec<Vec<u8>>,
    /// Something the record cannot confirm by stamps (a `.git` file of a worktree, say).
    pub unsure: bool,
}

impl Seen {
    /// Moves another thread's findings into these.
    pub fn append(&mut self, other: &mut Seen) {
        self.dirs.append(&mut other.dirs);
        self.probes.append(&mut other.probes);
        self.sources.append(&mut other.sources);
        self.projects.append(&mut other.projects);
        self.unsure |= other.unsure;
    }

    /// Stamps a directory the walk went into, and the ignore files in it (when ignore files
    /// are read).
    pub fn dir(&mut self, abs: &Path, rel: Vec<u8>, ignore_files: bool) {
        self.dirs.push((rel, Stamp::of(abs)));
        if !ignore_files {
            return;
        }
        let mut p = abs.to_path_buf();
        for name in IGNORE_NAMES {
            p.push(name);
            if let Ok(md) = std::fs::symlink_metadata(&p) {
                if *name != ".git" {
                    let path = p.as_os_str().as_bytes().to_vec();
                    self.probes.push(Probe { path, stamp: Some(Stamp::from_metadata(&md)) });
                } else if md.is_dir() {
                    self.probes.push(Probe::take(&p.join("info").join("exclude")));
                } else {
                    // A worktree's `.git` file names a directory elsewhere: not followed here.
                    self.unsure = true;
                }
            }
            p.pop();
        }
    }
}

/// A walk's listing, confirmed later by stamps ([`Record::replay`]).
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Record {
    /// The root, the options and the cds that walked: another cannot use it.
    key: Vec<u8>,
    /// When the walk started (ns since the epoch), and the racy window it was taken with.
    started_ns: i64,
    window_ns: i64,
    /// Walked directories, sorted, with their stamps.
    dirs: Vec<(Vec<u8>, Stamp)>,
    /// Ignore files read, and every place above the root one could be read from.
    probes: Vec<Probe>,
    /// The global git excludes file the walk used (`core.excludesFile`), if any.
    excludes_file: Option<Vec<u8>>,
    sources: Vec<Vec<u8>>,
    projects: Vec<Vec<u8>>,
    vendored: Vec<Vec<u8>>,
}

/// The options and cds build a record is valid for.
fn key(root: &Path, opts: &WalkOptions) -> Vec<u8> {
    format!(
        "{}\0{root:?}\0{}\0{}\0{:?}\0{}\0{:?}\0{}\0{}",
        env!("CDS_WALK_FINGERPRINT"),
        opts.hidden,
        opts.no_ignore,
        opts.excludes,
        opts.max_filesize,
        opts.index_dir,
        opts.follow,
        opts.locagent,
    )
    .into_bytes()
}

/// The global excludes file as the walker finds it (the git config is read each time).
fn excludes_file(opts: &WalkOptions) -> Option<Vec<u8>> {
    if opts.no_ignore {
        return None;
    }
    ignore::gitignore::gitconfig_excludes_path().map(|p| p.into_os_string().into_vec())
}

/// Ignore files above the root that the walker reads (absent ones too: one may appear), and
/// the git config files that name the global excludes file.
fn outer_probes(root: &Path, opts: &WalkOptions) -> Vec<Probe> {
    let mut out = Vec::new();
    if opts.no_ignore {
        return out;
    }
    for dir in root.ancestors().skip(1) {
        for name in IGNORE_NAMES {
            let p = dir.join(name);
            if *name == ".git" {
                out.push(Probe::take(&p.join("info").join("exclude")));
            }
            out.push(Probe::take(&p));
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        out.push(Probe::take(&Path::new(&home).join(".gitconfig")));
    }
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")));
    if let Some(x) = xdg {
        out.push(Probe::take(&x.join("git").join("config")));
    }
    if let Some(p) = excludes_file(opts) {
        out.push(Probe::take(Path::new(OsStr::from_bytes(&p))));
    }
    out
}

impl Record {
    /// The record of a walk that started at `started_ns` and found `walked` (None when it
    /// cannot be confirmed by stamps later: errors during the walk, followed links, LocAgent's
    /// file set, a directory that vanished while walked).
    pub fn new(
        root: &Path,
        opts: &WalkOptions,
        walked: &Walked,
        mut seen: Seen,
        started_ns: i64,
        window_ns: i64,
    ) -> Option<Record> {
        let errors = walked.skipped.len() > walked.too_large;
        if seen.unsure || errors || opts.follow || opts.locagent {
            return None;
        }
        seen.dirs.sort_by(|a, b| super::path_order(&a.0, &b.0));
        let dirs = seen.dirs.into_iter().map(|(rel, s)| Some((rel, s?))).collect::<Option<_>>()?;
        seen.sources.sort_by(|a, b| super::path_order(a, b));
        seen.sources.dedup();
        seen.projects.sort_by(|a, b| super::path_order(a, b));
        seen.probes.sort_by(|a, b| a.path.cmp(&b.path));
        seen.probes.extend(outer_probes(root, opts));
        Some(Record {
            key: key(root, opts),
            started_ns,
            window_ns,
            dirs,
            probes: seen.probes,
            excludes_file: excludes_file(opts),
            sources: seen.sources,
            projects: seen.projects,
            vendored: walked.vendored.clone(),
        })
    }

    /// Writes the record (a cache: written whole through a rename, checked when read).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let payload = rkyv::to_bytes::<rkyv::rancor::Error>(self).map_err(std::io::Error::other)?;
        let mut bytes = Vec::with_capacity(12 + payload.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, &bytes)?;
        std::fs::rename(&tmp, path)
    }

    /// The record at `path`, when it is whole and readable (anything else: None, walk).
    pub fn load(path: &Path) -> Option<Record> {
        let bytes = std::fs::read(path).ok()?;
        let rest = bytes.strip_prefix(MAGIC.as_slice())?;
        let (crc, payload) = rest.split_first_chunk::<4>()?;
        if crc32fast::hash(payload) != u32::from_le_bytes(*crc) {
            return None;
        }
        let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(payload.len());
        aligned.extend_from_slice(payload);
        rkyv::from_bytes::<Record, rkyv::rancor::Error>(&aligned).ok()
    }

    /// What a walk of `root` with `opts` would find now, when the stamps tell: every ignore
    /// file as recorded, and every directory too, or those that changed (an entry added,
    /// removed or renamed) listed again, new directories below them walked; then also the
    /// record of that, to save. None when a walk is needed.
    pub fn replay(&self, root: &Path, opts: &WalkOptions) -> Option<(Walked, Option<Record>)> {
        if self.key != key(root, opts) || self.excludes_file != excludes_file(opts) {
            return None;
        }
        let at = At::open(root)?;
        // Two threads: the directories and ignore files on one, the sources on the other
        // (each `stat` is a system call; a changed ignore file stops both).
        let stop = AtomicBool::new(false);
        let (changed, sources) = std::thread::scope(|s| {
            let sources = s.spawn(|| self.restat_sources(root, &at, opts, &stop));
            let changed = self.changed_dirs(&at);
            if changed.is_none() {
                stop.store(true, Ordering::Relaxed);
            }
            (changed, sources.join().ok().flatten())
        });
        let (changed, sources) = (changed?, sources?);
        if changed.is_empty() {
            let mut out = walked(root, &self.dirs, &self.projects, &self.vendored);
            for s in sources {
                push_source(&mut out, s?);
            }
            super::finish(&mut out);
            return Some((out, None));
        }
        self.relist(root, opts, &changed, sources)
    }

    /// The directories whose stamps changed (or were taken too close to their last change),
    /// by index, in order; None when an ignore file changed, or too many directories did.
    fn changed_dirs(&self, at: &At) -> Option<Vec<usize>> {
        let trusted = |s: &Stamp| !s.racy(self.started_ns, self.window_ns);
        for p in &self.probes {
            let now = Stamp::of(p.path());
            if now != p.stamp || now.as_ref().is_some_and(|s| !trusted(s)) {
                return None;
            }
        }
        let mut changed = Vec::new();
        for (i, (rel, stamp)) in self.dirs.iter().enumerate() {
            if at.stat(rel).map(|st| At::stamp(&st)).as_ref() != Some(stamp) || !trusted(stamp) {
                changed.push(i);
                if changed.len() > MAX_RELISTED {
                    return None;
                }
            }
        }
        Some(changed)
    }

    /// The walk brought up to date by listing the `changed` directories again (see
    /// [`Record::replay`]); `sources`, every recorded source as it is now.
    fn relist(
        &self,
        root: &Path,
        opts: &WalkOptions,
        changed: &[usize],
        sources: Vec<Option<Restat>>,
    ) -> Option<(Walked, Option<Record>)> {
        let started_ns = now_ns();
        let changed: Vec<&[u8]> = changed.iter().map(|&i| self.dirs[i].0.as_slice()).collect();
        let recorded_dir =
            |rel: &[u8]| self.dirs.binary_search_by(|(r, _)| path_order(r, rel)).is_ok();
        // Directories no longer walked (gone, replaced, newly ignored by no rule: only gone),
        // each with everything below it; and the directories listed again.
        let mut gone: Vec<Vec<u8>> = Vec::new();
        let mut relisted: Vec<&[u8]> = Vec::new();
        let (mut fresh, mut seen) = (Walked::default(), Seen::default());
        for &d in &changed {
            if gone.iter().any(|g| below_or_at(d, g)) {
                continue;
            }
            let abs = root.join(OsStr::from_bytes(d));
            if !std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_dir()) {
                // Gone or replaced: only its parent's listing, changed too, can say so.
                if d.is_empty() || changed.binary_search_by(|c| path_order(c, parent(d))).is_err() {
                    return None;
                }
                gone.push(d.to_vec());
                continue;
            }
            let (w, s) = super::walk_from(root, &abs, Some(1), opts, true).ok()?;
            if w.skipped.len() > w.too_large || s.unsure {
                return None;
            }
            // Its ignore files must be the ones recorded (a new one changes the rules below).
            let here = |p: &Probe| probe_dir(p.path()) == abs.as_path();
            let before: Vec<&Probe> = self.probes.iter().filter(|p| here(p)).collect();
            let now: Vec<&Probe> = s.probes.iter().filter(|p| here(p)).collect();
            if before != now {
                return None;
            }
            for (r, _) in &self.dirs {
                if !r.is_empty() && parent(r) == d && !w.dirs.contains(r) {
                    gone.push(r.clone());
                }
            }
            // New directories below it: walked whole.
            for sub in w.dirs.iter().filter(|r| r.as_slice() != d && !recorded_dir(r)) {
                let (w2, s2) =
                    super::walk_from(root, &root.join(OsStr::from_bytes(sub)), None, opts, true)
                        .ok()?;
                if w2.skipped.len() > w2.too_large || s2.unsure {
                    return None;
                }
                merge_into(root, (&mut fresh, &mut seen), (w2, s2), |_| true);
            }
            // Of the directories listed, only this one's stamp is new: the others keep theirs
            // (and are listed again themselves if they changed).
            merge_into(root, (&mut fresh, &mut seen), (w, s), |r| r == d);
            relisted.push(d);
        }
        relisted.sort_by(|a, b| path_order(a, b));
        let dropped = |rel: &[u8]| {
            relisted.binary_search_by(|d| path_order(d, parent(rel))).is_ok()
                || gone.iter().any(|g| below_or_at(rel, g))
        };
        let is_gone = |rel: &[u8]| gone.iter().any(|g| below_or_at(rel, g));
        let relisted_dir = |rel: &[u8]| relisted.binary_search_by(|d| path_order(d, rel)).is_ok();

        // The new record: what was kept, and what was listed again or walked.
        let mut dirs: Vec<(Vec<u8>, Stamp)> =
            self.dirs.iter().filter(|(r, _)| !is_gone(r) && !relisted_dir(r)).cloned().collect();
        dirs.extend(seen.dirs.into_iter().map(|(r, s)| Some((r, s?))).collect::<Option<Vec<_>>>()?);
        dirs.sort_by(|a, b| path_order(&a.0, &b.0));
        // (Those above the root, and git's configuration, stay.)
        let mut probes: Vec<Probe> = self
            .probes
            .iter()
            .filter(|p| match probe_dir(p.path()).strip_prefix(root) {
                Ok(r) if is_ignore_file(p.path()) => {
                    let r = r.as_os_str().as_bytes();
                    !is_gone(r) && !relisted_dir(r)
                }
                _ => true,
            })
            .cloned()
            .collect();
        probes.extend(seen.probes);
        probes.sort_by(|a, b| a.path.cmp(&b.path));
        probes.dedup_by(|a, b| a.path == b.path);
        // The recorded paths not dropped, and those found again, in order.
        let kept_and = |rels: &[Vec<u8>], found: Vec<Vec<u8>>| -> Vec<Vec<u8>> {
            let mut out: Vec<Vec<u8>> = rels.iter().filter(|r| !dropped(r)).cloned().collect();
            out.extend(found);
            out.sort_by(|a, b| path_order(a, b));
            out.dedup();
            out
        };
        let record_sources = kept_and(&self.sources, seen.sources);
        let projects = kept_and(&self.projects, seen.projects);
        let vendored = kept_and(&self.vendored, std::mem::take(&mut fresh.vendored));

        let mut out = walked(root, &dirs, &projects, &vendored);
        for (rel, s) in self.sources.iter().zip(sources) {
            if !dropped(rel) {
                push_source(&mut out, s?);
            }
        }
        out.files.append(&mut fresh.files);
        out.too_large += fresh.too_large;
        out.skipped.append(&mut fresh.skipped);
        super::finish(&mut out);
        let record = Record {
            key: self.key.clone(),
            started_ns,
            window_ns: self.window_ns,
            dirs,
            probes,
            excludes_file: self.excludes_file.clone(),
            sources: record_sources,
            projects,
            vendored,
        };
        Some((out, Some(record)))
    }

    /// Every recorded source as a walk would find it now (None: no longer a regular file); None
    /// when told to stop.
    fn restat_sources(
        &self,
        root: &Path,
        at: &At,
        opts: &WalkOptions,
        stop: &AtomicBool,
    ) -> Option<Vec<Option<Restat>>> {
        let mut out = Vec::with_capacity(self.sources.len());
        let mut abs = root.to_path_buf();
        for (i, rel) in self.sources.iter().enumerate() {
            if i % 64 == 0 && stop.load(Ordering::Relaxed) {
                return None;
            }
            set_rel(&mut abs, root, rel);
            // Same directory, same name: what the walk saw was a regular file (another file
            // type needs a new directory entry), and still is, unless it went away.
            let st = at.stat(rel).filter(|st| {
                rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
            });
            out.push(st.and_then(|st| {
                let lang = Lang::of_path(&abs)?;
                let size = At::size(&st);
                Some(if size > opts.max_filesize {
                    let reason = super::too_large(size, opts.max_filesize);
                    Err(Skipped { rel: rel.clone(), reason })
                } else {
                    let mtime_ns = At::mtime_ns(&st);
                    Ok(Found { rel: rel.clone(), abs: abs.clone(), size, mtime_ns, lang })
                })
            }));
        }
        Some(out)
    }
}

/// The listed directories and projects (read now), and `vendored`, as a walk gives them.
fn walked(
    root: &Path,
    dirs: &[(Vec<u8>, Stamp)],
    projects: &[Vec<u8>],
    vendored: &[Vec<u8>],
) -> Walked {
    let mut out = Walked {
        dirs: dirs.iter().map(|(rel, _)| rel.clone()).collect(),
        vendored: vendored.to_vec(),
        ..Walked::default()
    };
    let mut abs = root.to_path_buf();
    for rel in projects {
        set_rel(&mut abs, root, rel);
        super::read_project_file(&abs, rel.clone(), &mut out);
    }
    out
}

/// A source as it is now: found, or over the size limit.
type Restat = std::result::Result<Found, Skipped>;

/// More directories changed than this: walking the tree is as cheap.
const MAX_RELISTED: usize = 64;

fn push_source(out: &mut Walked, s: Restat) {
    match s {
        Ok(f) => out.files.push(f),
        Err(skipped) => {
            out.too_large += 1;
            out.skipped.push(skipped);
        }
    }
}

/// Adds a partial walk of `root`'s findings: the stamps of its directories, and of their
/// ignore files, only where `stamped` says (the others are recorded already).
fn merge_into(
    root: &Path,
    (out, seen): (&mut Walked, &mut Seen),
    (mut w, mut s): (Walked, Seen),
    stamped: impl Fn(&[u8]) -> bool,
) {
    out.files.append(&mut w.files);
    out.skipped.append(&mut w.skipped);
    out.too_large += w.too_large;
    out.vendored.append(&mut w.vendored);
    s.dirs.retain(|(r, _)| stamped(r));
    s.probes.retain(|p| {
        probe_dir(p.path()).strip_prefix(root).is_ok_and(|r| stamped(r.as_os_str().as_bytes()))
    });
    seen.append(&mut s);
}

/// The directory whose ignore files a probe is about (`D` for `D/.gitignore` and for
/// `D/.git/info/exclude`).
fn probe_dir(p: &Path) -> &Path {
    let dir = p.parent().unwrap_or(p);
    if dir.ends_with(".git/info") {
        dir.parent().and_then(Path::parent).unwrap_or(dir)
    } else {
        dir
    }
}

/// Whether a probe is one a walked directory's [`Seen::dir`] takes.
fn is_ignore_file(p: &Path) -> bool {
    p.ends_with(".git/info/exclude")
        || IGNORE_NAMES.iter().any(|n| *n != ".git" && p.file_name() == Some(OsStr::new(n)))
}

/// `rel`'s parent directory (relative; empty for the root's entries).
fn parent(rel: &[u8]) -> &[u8] {
    rel.iter().rposition(|&c| c == b'/').map_or(&rel[..0], |i| &rel[..i])
}

/// Whether `rel` is `dir` or below it.
fn below_or_at(rel: &[u8], dir: &[u8]) -> bool {
    dir.is_empty() || rel == dir || (rel.starts_with(dir) && rel.get(dir.len()) == Some(&b'/'))
}

/// Now, in nanoseconds since the epoch.
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// The root's directory, open, for `stat`s of paths relative to it: what a replay reads of
/// every recorded directory and source. (By absolute path, resolving the root's own
/// components again for each of Django's 6,000 took a third of a replay's system time.)
struct At {
    dir: std::fs::File,
}

// The status fields' types differ by platform (and rustix backend): the casts are needed
// somewhere, if not here.
#[allow(clippy::unnecessary_cast)]
impl At {
    fn open(root: &Path) -> Option<At> {
        std::fs::File::open(root).ok().map(|dir| At { dir })
    }

    /// `rel`'s status (the root's for an empty one), without following a final symbolic link.
    fn stat(&self, rel: &[u8]) -> Option<rustix::fs::Stat> {
        let path = OsStr::from_bytes(if rel.is_empty() { b"." } else { rel });
        rustix::fs::statat(&self.dir, path, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()
    }

    /// What [`Stamp::from_metadata`] makes of the same status.
    fn stamp(st: &rustix::fs::Stat) -> Stamp {
        Stamp {
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mtime_ns: nanos(st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime_ns: nanos(st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }

    /// The size in bytes.
    fn size(st: &rustix::fs::Stat) -> u64 {
        st.st_size as u64
    }

    /// What [`super::mtime_ns`] makes of the same status (0 before 1970).
    fn mtime_ns(st: &rustix::fs::Stat) -> i64 {
        let (s, n) = (st.st_mtime as i64, st.st_mtime_nsec as i64);
        if s < 0 { 0 } else { nanos(s, n) }
    }
}

/// A time stamp's seconds and nanoseconds as nanoseconds.
fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// `abs` = `root` joined with the `/`-separated relative path `rel` (the root when empty).
fn set_rel(abs: &mut PathBuf, root: &Path, rel: &[u8]) {
    abs.clear();
    abs.push(root);
    if !rel.is_empty() {
        abs.push(OsStr::from_bytes(rel));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A repository with a package, an ignore file and an ignored directory; its own scratch
    /// directory per test.
    fn repo(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("cds-record-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for (path, text) in [
            ("pkg/a.py", "def a():\n    pass\n"),
            ("pkg/sub/b.py", "def b():\n    pass\n"),
            ("pkg/notes.txt", "not a source\n"),
            ("build/gen.py", "x = 1\n"),
            (".gitignore", "build/\n"),
            ("package.json", "{}\n"),
        ] {
            let p = root.join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        root
    }

    /// A walk's findings as text, to compare two walks.
    fn shown(w: &Walked) -> String {
        format!("{:?} {:?} {:?} {:?} {:?}", w.files, w.dirs, w.skipped, w.projects, w.vendored)
    }

    /// A record taken now, trusted at once (tests wait out the timestamp granularity instead).
    fn record(root: &Path, opts: &WalkOptions) -> Record {
        let (walked, record) = super::super::walk_inner(root, opts, Some(0)).unwrap();
        let record = record.expect("a clean walk is recorded");
        let (again, next) = record.replay(root, opts).expect("nothing changed");
        assert_eq!(shown(&again), shown(&walked));
        assert!(next.is_none(), "nothing to record again");
        record
    }

    /// Long enough for a change to show in a time stamp (Linux file systems: a clock tick).
    fn settle() {
        std::thread::sleep(std::time::Duration::from_millis(30));
    }

    #[test]
    fn a_replay_equals_a_walk_until_the_tree_changes_what_a_walk_finds() {
        use std::os::unix::fs::PermissionsExt;
        type Edit = fn(&Path);
        // (what, edit, replayed: false when only a walk can tell)
        let edits: &[(&str, Edit, bool)] = &[
            (
                "a source edited in place",
                |r| fs::write(r.join("pkg/a.py"), "def a2():\n").unwrap(),
                true,
            ),
            (
                "a file that is not a source added",
                |r| fs::write(r.join("pkg/x.txt"), "").unwrap(),
                true,
            ),
            ("a source added", |r| fs::write(r.join("pkg/sub/c.py"), "").unwrap(), true),
            ("a source deleted", |r| fs::remove_file(r.join("pkg/sub/b.py")).unwrap(), true),
            (
                "a source renamed",
                |r| fs::rename(r.join("pkg/a.py"), r.join("pkg/z.py")).unwrap(),
                true,
            ),
            ("an empty directory added", |r| fs::create_dir(r.join("pkg/new")).unwrap(), true),
            (
                "a directory of sources added",
                |r| {
                    fs::create_dir_all(r.join("pkg/new/deep")).unwrap();
                    fs::write(r.join("pkg/new/deep/n.py"), "").unwrap();
                    fs::write(r.join("pkg/new/.gitignore"), "skip.py\n").unwrap();
                    fs::write(r.join("pkg/new/skip.py"), "").unwrap();
                },
                true,
            ),
            ("a directory deleted", |r| fs::remove_dir_all(r.join("pkg/sub")).unwrap(), true),
            (
                "a source replaced by a directory",
                |r| {
                    fs::remove_file(r.join("pkg/a.py")).unwrap();
                    fs::create_dir(r.join("pkg/a.py")).unwrap();
                    fs::write(r.join("pkg/a.py/in.py"), "").unwrap();
                },
                true,
            ),
            (
                "a dependency directory added",
                |r| {
                    fs::create_dir_all(r.join("pkg/node_modules/m")).unwrap();
                    fs::write(r.join("pkg/node_modules/m/i.js"), "").unwrap();
                },
                true,
            ),
            (
                "a directory's permissions changed",
                |r| {
                    fs::set_permissions(r.join("pkg/sub"), fs::Permissions::from_mode(0o700))
                        .unwrap()
                },
                true,
            ),
            (
                "a project file edited",
                |r| fs::write(r.join("package.json"), "{\"a\": 1}").unwrap(),
                true,
            ),
            (
                "an ignored directory changed",
                |r| fs::write(r.join("build/gen2.py"), "").unwrap(),
                true,
            ),
            (
                "an ignore file edited in place",
                |r| fs::write(r.join(".gitignore"), "").unwrap(),
                false,
            ),
            (
                "an ignore file added below",
                |r| fs::write(r.join("pkg/.ignore"), "a.py\n").unwrap(),
                false,
            ),
            ("an ignore file deleted", |r| fs::remove_file(r.join(".gitignore")).unwrap(), false),
        ];
        let opts = WalkOptions::default();
        for (i, (what, edit, replayed)) in edits.iter().enumerate() {
            let root = repo(&format!("edit{i}"));
            let before = record(&root, &opts);
            settle();
            edit(&root);
            let walked = super::super::walk(&root, &opts).unwrap();
            let Some((w, next)) = before.replay(&root, &opts) else {
                assert!(!replayed, "{what}: walked again, though the record tells");
                continue;
            };
            assert!(replayed, "{what}: replayed, but a walk is needed");
            assert_eq!(shown(&w), shown(&walked), "{what}");
            // The record brought up to date serves the next build the same way.
            let next = next.unwrap_or(before);
            settle();
            fs::write(root.join("pkg/later.py"), "").unwrap();
            let walked = super::super::walk(&root, &opts).unwrap();
            let (w, _) = next.replay(&root, &opts).expect("a source added");
            assert_eq!(shown(&w), shown(&walked), "{what}, then a source added");
            let _ = fs::remove_dir_all(&root);
        }
    }

    #[test]
    fn a_record_is_not_replayed_when_it_may_miss_a_change() {
        let root = repo("racy");
        let opts = WalkOptions::default();
        // Stamped right after the tree was written: a change in the same clock tick could hide.
        let (_, fresh) = super::super::walk_inner(&root, &opts, Some(RACY_NS)).unwrap();
        assert!(fresh.unwrap().replay(&root, &opts).is_none());
        // Other options, another cds: another walk.
        let record = record(&root, &opts);
        let hidden = WalkOptions { hidden: true, ..WalkOptions::default() };
        assert!(record.replay(&root, &hidden).is_none());
        let other = Record { key: b"another cds".to_vec(), ..record.clone() };
        assert!(other.replay(&root, &opts).is_none());
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_damaged_record_is_not_read() {
        let root = repo("damaged");
        let opts = WalkOptions::default();
        let path = root.join("walk.rkyv");
        record(&root, &opts).save(&path).unwrap();
        let good = fs::read(&path).unwrap();
        assert!(Record::load(&path).is_some());
        for at in [0, 9, good.len() / 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x40;
            fs::write(&path, &bad).unwrap();
            assert!(Record::load(&path).is_none(), "byte {at} flipped");
        }
        fs::write(&path, &good[..good.len() / 3]).unwrap();
        assert!(Record::load(&path).is_none(), "truncated");
        let _ = fs::remove_dir_all(&root);
    }
}
