//! What a walk listed, kept beside the index so that the next build can confirm it with one
//! `stat` per directory, source file and ignore file instead of listing the tree again.
//!
//! A directory's entries can change only by adding, removing or renaming one, which sets its
//! change time (ctime; a `chmod` sets it too). What the walk ignores can change only through an
//! ignore file (each one that was read, and each place one could appear above the root, is
//! stamped; a new one in a walked directory changes that directory) or the options (kept as a
//! key). A file's size and mtime are read again as a walk reads them. So when every stamp is
//! the same, the walk would list what the record lists; anything else walks.
//!
//! A stamp taken shortly after the thing changed is not trusted: a second change within the
//! file system's timestamp granularity would leave it as it was ("racy", as git calls it). Such
//! a record is kept but not replayed until a walk made later stamps it again.

use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rkyv::{Archive, Deserialize, Serialize};

use super::{Found, Skipped, WalkOptions, Walked};
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

    pub fn from_metadata(md: &std::fs::Metadata) -> Stamp {
        Stamp {
            ino: md.ino(),
            size: md.size(),
            mtime_ns: md.mtime().saturating_mul(1_000_000_000).saturating_add(md.mtime_nsec()),
            ctime_ns: md.ctime().saturating_mul(1_000_000_000).saturating_add(md.ctime_nsec()),
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

    /// What a walk of `root` with `opts` would find now, when every stamp says nothing it
    /// depends on changed since the record was taken; None otherwise.
    pub fn replay(&self, root: &Path, opts: &WalkOptions) -> Option<Walked> {
        if self.key != key(root, opts) || self.excludes_file != excludes_file(opts) {
            return None;
        }
        // Two threads: the directories and ignore files on one, the sources on the other
        // (each `stat` is a system call; a first difference stops both).
        let changed = AtomicBool::new(false);
        let (unchanged, sources) = std::thread::scope(|s| {
            let sources = s.spawn(|| self.restat_sources(root, opts, &changed));
            let unchanged = self.unchanged(root, &changed);
            if !unchanged {
                changed.store(true, Ordering::Relaxed);
            }
            (unchanged, sources.join().ok().flatten())
        });
        let (files, skipped) = sources.filter(|_| unchanged)?;
        let mut out = Walked {
            too_large: skipped.len(),
            files,
            skipped,
            dirs: self.dirs.iter().map(|(rel, _)| rel.clone()).collect(),
            vendored: self.vendored.clone(),
            ..Walked::default()
        };
        let mut abs = root.to_path_buf();
        for rel in &self.projects {
            set_rel(&mut abs, root, rel);
            super::read_project_file(&abs, rel.clone(), &mut out);
        }
        super::finish(&mut out);
        Some(out)
    }

    /// Whether every ignore file and directory is as recorded (and was stamped long enough
    /// after its last change to tell).
    fn unchanged(&self, root: &Path, changed: &AtomicBool) -> bool {
        let trusted = |s: &Stamp| !s.racy(self.started_ns, self.window_ns);
        for p in &self.probes {
            let now = Stamp::of(p.path());
            if now != p.stamp || now.as_ref().is_some_and(|s| !trusted(s)) {
                return false;
            }
        }
        let mut abs = root.to_path_buf();
        for (i, (rel, stamp)) in self.dirs.iter().enumerate() {
            if i % 64 == 0 && changed.load(Ordering::Relaxed) {
                return false;
            }
            set_rel(&mut abs, root, rel);
            if Stamp::of(&abs).as_ref() != Some(stamp) || !trusted(stamp) {
                return false;
            }
        }
        true
    }

    /// The sources as a walk would find them now (None: one is no longer a regular file).
    fn restat_sources(
        &self,
        root: &Path,
        opts: &WalkOptions,
        changed: &AtomicBool,
    ) -> Option<(Vec<Found>, Vec<Skipped>)> {
        let (mut files, mut skipped) = (Vec::with_capacity(self.sources.len()), Vec::new());
        let mut abs = root.to_path_buf();
        for (i, rel) in self.sources.iter().enumerate() {
            if i % 64 == 0 && changed.load(Ordering::Relaxed) {
                return None;
            }
            set_rel(&mut abs, root, rel);
            // Same directory, same name: what the walk saw was a regular file (another file
            // type needs a new directory entry), and still is, unless it went away.
            let Some(md) = std::fs::symlink_metadata(&abs).ok().filter(|m| m.is_file()) else {
                changed.store(true, Ordering::Relaxed);
                return None;
            };
            let lang = Lang::of_path(&abs)?;
            if md.len() > opts.max_filesize {
                let reason = super::too_large(md.len(), opts.max_filesize);
                skipped.push(Skipped { rel: rel.clone(), reason });
                continue;
            }
            let (size, mtime_ns) = (md.len(), super::mtime_ns(&md));
            files.push(Found { rel: rel.clone(), abs: abs.clone(), size, mtime_ns, lang });
        }
        Some((files, skipped))
    }
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
        let again = record.replay(root, opts).expect("nothing changed");
        assert_eq!(shown(&again), shown(&walked));
        record
    }

    /// Long enough for a change to show in a time stamp (Linux file systems: a clock tick).
    fn settle() {
        std::thread::sleep(std::time::Duration::from_millis(30));
    }

    #[test]
    fn a_replay_equals_a_walk_until_the_tree_changes_what_a_walk_finds() {
        type Edit = fn(&Path);
        let edits: &[(&str, Edit, bool)] = &[
            (
                "a source edited in place",
                |r| fs::write(r.join("pkg/a.py"), "def a2():\n").unwrap(),
                true,
            ),
            (
                "a file that is not a source added",
                |r| fs::write(r.join("pkg/x.txt"), "").unwrap(),
                false,
            ),
            ("a source added", |r| fs::write(r.join("pkg/sub/c.py"), "").unwrap(), false),
            ("a source deleted", |r| fs::remove_file(r.join("pkg/sub/b.py")).unwrap(), false),
            (
                "a source renamed",
                |r| fs::rename(r.join("pkg/a.py"), r.join("pkg/z.py")).unwrap(),
                false,
            ),
            ("a directory added", |r| fs::create_dir(r.join("pkg/new")).unwrap(), false),
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
            (
                "a directory's permissions changed",
                |r| {
                    use std::os::unix::fs::PermissionsExt;
                    fs::set_permissions(r.join("pkg/sub"), fs::Permissions::from_mode(0o700))
                        .unwrap()
                },
                false,
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
        ];
        let opts = WalkOptions::default();
        for (i, (what, edit, replayed)) in edits.iter().enumerate() {
            let root = repo(&format!("edit{i}"));
            let before = record(&root, &opts);
            settle();
            edit(&root);
            let walked = super::super::walk(&root, &opts).unwrap();
            match before.replay(&root, &opts) {
                Some(w) => {
                    assert!(replayed, "{what}: replayed, but a walk is needed");
                    assert_eq!(shown(&w), shown(&walked), "{what}");
                }
                None => assert!(!replayed, "{what}: walked again, though the record holds"),
            }
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
