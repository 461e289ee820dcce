//! `cds-build --watch`: keeps the index in sync with the working tree.
//!
//! After a first build, the tree is watched with the platform's file-system events (inotify,
//! FSEvents, kqueue through the `notify` crate), or by polling when they are unavailable (an
//! exhausted inotify watch limit, some network file systems) or asked for with `--poll`. Events
//! are filtered cheaply (the index directory, `.git`, files that are neither sources nor ignore
//! files), then debounced: a rebuild starts once the tree has been quiet for [`QUIET`] (longer
//! within a burst: [`BURST_QUIET`]), so a `git checkout` of a thousand files is one rebuild.
//! Each rebuild is an ordinary incremental [`build::build`], and writes a new generation through
//! `CURRENT`, so readers never see half an update and never wait. When the burst's events named
//! only files the last walk found, edited in place, the rebuild reads their metadata again
//! instead of walking the tree ([`crate::walk::restat`]); anything else (a new or deleted file,
//! a directory, an ignore or project file, lost events, polling) walks it with the same ignore
//! rules as any build (so a change to an ignored file ends as "up to date", and nothing is
//! written).
//!
//! One watcher per index: a second `--watch` finds `watch.lock` held and exits with status 2.
//! SIGINT and SIGTERM end the watch between rebuilds (a rebuild in progress finishes first).
//! The index directory may be deleted under the watcher: the next rebuild writes a whole new
//! index. When the repository root itself disappears the watch ends with an error.

use std::fs;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::build::{self, BuildOptions, Event, Summary};
use crate::error::{Error, Result, io_reason};
use crate::index;

/// A rebuild starts once no relevant event came for this long (an editor's save is a handful of
/// events within a millisecond or two; this wait is part of every update's latency)...
pub const QUIET: Duration = Duration::from_millis(10);
/// ... or for this long once a burst has brought more than [`BURST_EVENTS`] events (a checkout,
/// a formatter run over the tree, a `cp -r`: their writes can pause that long on a busy machine,
/// and one rebuild after them beats several during them)...
pub const BURST_QUIET: Duration = Duration::from_millis(150);
/// See [`BURST_QUIET`].
pub const BURST_EVENTS: usize = 16;
/// ... or this long after the first event of a burst, whichever comes first, so a tree that
/// never stops changing is still indexed now and then.
pub const MAX_DELAY: Duration = Duration::from_secs(3);
/// The lock file a watcher holds in the index directory.
pub const WATCH_LOCK: &str = "watch.lock";

/// How to watch.
#[derive(Debug, Clone, Default)]
pub struct WatchOptions {
    /// Poll every this long instead of using file-system events.
    pub poll: Option<Duration>,
}

/// What the watcher reports.
pub enum Report<'a> {
    /// The first build finished.
    Built(&'a Summary),
    /// A rebuild wrote a new generation.
    Updated(&'a Summary),
    /// A rebuild failed; the previous generation stays live and the watch goes on.
    Failed(&'a Error),
    /// File-system events are unavailable; polling instead.
    Polling(&'a str),
}

/// Watches `opts.root` until SIGINT or SIGTERM (or `stop` is set). Returns an error when the
/// watch cannot start (another watcher, no such directory) or the root disappears.
pub fn watch(
    opts: &BuildOptions,
    w: &WatchOptions,
    stop: Arc<AtomicBool>,
    report: &dyn Fn(Report),
    events: &(dyn Fn(Event) + Sync),
) -> Result<()> {
    let root = build::canonical_root(&opts.root)?;
    let index_dir = build::index_dir_for(opts, &root);
    let mut opts = opts.clone();
    opts.root = root.clone();
    fs::create_dir_all(&index_dir).map_err(|e| {
        Error::msg(format!(
            "cannot create index directory {}: {}: pass --index DIR to write the index \
             somewhere writable",
            index_dir.display(),
            io_reason(&e)
        ))
    })?;
    let index_dir = index_dir.canonicalize().unwrap_or(index_dir);
    opts.index_dir = Some(index_dir.clone());
    let mut lock = WatchLock::acquire(&index_dir)?;
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .map_err(|e| Error::msg(format!("cannot handle signals: {}", io_reason(&e))))?;
    }

    // Watching starts before the first build, so nothing changed during it is missed.
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    // Kept alive for the whole watch: dropping it stops the events.
    let mut _watcher: Option<notify::RecommendedWatcher> = None;
    let mut poll = w.poll;
    if poll.is_none() {
        match start_watcher(&root, &index_dir, tx) {
            Ok(watcher) => {
                _watcher = Some(watcher);
                // Events are not followed through symbolic links (a link loop would make the
                // watcher walk forever); with --follow, what lies behind links is polled.
                if opts.walk.follow {
                    poll = Some(Duration::from_secs(2));
                }
            }
            Err(why) => {
                report(Report::Polling(&why));
                poll = Some(Duration::from_secs(1));
            }
        }
    }

    // Facts of every file kept in memory between rebuilds (see `build::Memory`).
    let mut memory = build::Memory::default();
    let first = build::build_with(&opts, events, Some(&mut memory))?;
    report(Report::Built(&first));

    let history = opts.history && opts.mode == build::Mode::Native;
    let filter = Filter { root: root.clone(), index_dir: index_dir.clone(), history };
    // The burst waiting for a rebuild.
    let mut pending: Option<Burst> = None;
    let mut last_poll = Instant::now();
    // When to give the memory the last update freed back to the system.
    let mut trim_at = Some(Instant::now() + TRIM_AFTER);
    while !stop.load(Ordering::Relaxed) {
        // A burst is rebuilt the moment it is due, not at the next tick.
        let tick = match &pending {
            Some(b) => {
                b.due().saturating_duration_since(Instant::now()).max(Duration::from_millis(1))
            }
            None => Duration::from_millis(100),
        };
        match rx.recv_timeout(tick) {
            Ok(Ok(ev)) => match filter.classify(&ev) {
                Change::Nothing => {}
                change => Burst::add(&mut pending, change),
            },
            // The backend lost events (an overflowed queue): rebuild to be sure.
            Ok(Err(_)) => Burst::add(&mut pending, Change::Rewalk),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // No watcher (polling): nothing will ever arrive, so wait here.
                std::thread::sleep(tick);
                if poll.is_none() {
                    report(Report::Polling("the file-system watcher stopped"));
                    poll = Some(Duration::from_secs(1));
                }
            }
        }
        let now = Instant::now();
        if pending.is_none() && trim_at.is_some_and(|t| now >= t) {
            release_freed_memory();
            trim_at = None;
        }
        let due = match &pending {
            Some(b) => now >= b.due(),
            None => poll.is_some_and(|p| now - last_poll >= p),
        };
        if !due {
            continue;
        }
        // Polling knows nothing of what changed: the rebuild walks.
        memory.changed(pending.take().and_then(|b| b.paths));
        last_poll = now;
        if !root.is_dir() {
            return Err(Error::msg(format!(
                "the repository root {} is gone: stopped watching",
                root.display()
            )));
        }
        match build::build_with(&opts, events, Some(&mut memory)) {
            Ok(s) if s.up_to_date || s.files == 0 => {}
            Ok(s) => {
                report(Report::Updated(&s));
                trim_at = Some(Instant::now() + TRIM_AFTER);
            }
            Err(e) => {
                report(Report::Failed(&e));
                trim_at = Some(Instant::now() + TRIM_AFTER);
            }
        }
        // The index directory was deleted and written anew: hold the lock there again.
        if !lock.is_in_place() {
            lock = WatchLock::acquire(&index_dir)?;
        }
    }
    Ok(())
}

/// How long after an update its freed memory is given back (its last structures are freed on
/// threads of their own meanwhile).
const TRIM_AFTER: Duration = Duration::from_millis(500);

/// Gives the memory freed since the last call back to the system: glibc keeps the free pages
/// of its heaps for reuse, and a watcher's resident size crept up by a few MiB an update
/// (Django, a definition added each time: 222 -> 315 MiB over 24 updates; 122 -> 200 MiB with
/// this, which takes 15-19 ms). Under mimalloc, cds-build's allocator, the same watcher stays
/// at 104-113 MiB over 16 updates (116-140 MiB under glibc with the trim).
fn release_freed_memory() {
    // cds-build's allocator (bins/cds-build.rs), which gives freed pages back about a second
    // after they are freed, at a later call (none comes while the watcher waits).
    // SAFETY: mi_collect only frees what no live allocation holds.
    unsafe { libmimalloc_sys::mi_collect(true) };
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Starts the platform's recursive watcher on the root (and on the index directory when it
/// lies elsewhere); the reason when it cannot.
fn start_watcher(
    root: &Path,
    index_dir: &Path,
    tx: mpsc::Sender<notify::Result<notify::Event>>,
) -> std::result::Result<notify::RecommendedWatcher, String> {
    use notify::Watcher;
    let config = notify::Config::default().with_follow_symlinks(false);
    let mut watcher = notify::RecommendedWatcher::new(
        move |ev| {
            let _ = tx.send(ev);
        },
        config,
    )
    .map_err(|e| format!("no file-system events ({e}): polling every second instead"))?;
    watcher.watch(root, notify::RecursiveMode::Recursive).map_err(|e| {
        format!("cannot watch {} ({e}): polling every second instead", root.display())
    })?;
    if !index_dir.starts_with(root) {
        // Best effort: only to notice the index being deleted.
        let _ = watcher.watch(index_dir, notify::RecursiveMode::NonRecursive);
    }
    Ok(watcher)
}

/// Events waiting for a rebuild.
struct Burst {
    first: Instant,
    last: Instant,
    events: usize,
    /// Every path they named, or None when the tree must be walked again (see [`Change`]).
    paths: Option<Vec<PathBuf>>,
}

/// Beyond this many paths in a burst, walking the tree is as cheap as checking them.
const MAX_BURST_PATHS: usize = 256;

impl Burst {
    /// When the burst is to be rebuilt, unless more events come.
    fn due(&self) -> Instant {
        let quiet = if self.events > BURST_EVENTS { BURST_QUIET } else { QUIET };
        (self.last + quiet).min(self.first + MAX_DELAY)
    }

    fn add(pending: &mut Option<Burst>, change: Change) {
        let now = Instant::now();
        let b = pending.get_or_insert_with(|| Burst {
            first: now,
            last: now,
            events: 0,
            paths: Some(Vec::new()),
        });
        b.last = now;
        b.events += 1;
        match change {
            Change::Paths(ps) => {
                if let Some(v) = &mut b.paths {
                    v.extend(ps);
                    v.sort_unstable();
                    v.dedup();
                    if v.len() > MAX_BURST_PATHS {
                        b.paths = None;
                    }
                }
            }
            Change::Rewalk => b.paths = None,
            Change::Head | Change::Nothing => {}
        }
    }
}

/// What an event means for the index.
enum Change {
    /// Nothing it holds.
    Nothing,
    /// Maybe these files (edited in place: their metadata is read again; anything else about
    /// them makes the rebuild walk, see `walk::restat`).
    Paths(Vec<PathBuf>),
    /// Anything: a directory, an ignore or project file, lost events. The rebuild walks.
    Rewalk,
    /// `HEAD` may have moved: no file changed, but the history may have.
    Head,
}

/// Which events may change the index.
struct Filter {
    root: PathBuf,
    index_dir: PathBuf,
    /// The index keeps the repository's history (which follows `HEAD`).
    history: bool,
}

/// Whether a write to `rel` (relative to the root) may move the root's work tree's `HEAD`:
/// `.git/HEAD` itself (a detached `HEAD`, a checkout), a branch (a commit, a reset, a pull),
/// or `HEAD`'s log, which git appends to whenever it moves.
fn moves_head(rel: &Path) -> bool {
    let Ok(git) = rel.strip_prefix(".git") else { return false };
    git == Path::new("HEAD")
        || git == Path::new("logs/HEAD")
        || git == Path::new("packed-refs")
        || git.starts_with("refs/heads")
}

impl Filter {
    fn classify(&self, ev: &notify::Event) -> Change {
        use notify::EventKind;
        if matches!(ev.kind, EventKind::Access(_)) {
            return Change::Nothing;
        }
        if ev.need_rescan() {
            return Change::Rewalk;
        }
        let mut paths = Vec::new();
        let mut head = false;
        for p in &ev.paths {
            match self.path_change(p) {
                Change::Nothing => {}
                Change::Paths(ps) => paths.extend(ps),
                Change::Rewalk => return Change::Rewalk,
                Change::Head => head = true,
            }
        }
        match (paths.is_empty(), head) {
            (false, _) => Change::Paths(paths),
            (true, true) => Change::Head,
            (true, false) => Change::Nothing,
        }
    }

    fn path_change(&self, p: &Path) -> Change {
        if p.starts_with(&self.index_dir) {
            // The builds' own writes, unless the index was deleted (or half deleted) under us.
            return if self.index_is_whole() { Change::Nothing } else { Change::Rewalk };
        }
        let rel = p.strip_prefix(&self.root).unwrap_or(p);
        if rel.components().any(|c| c.as_os_str() == ".git") {
            // A commit, a reset or a checkout that changed no source still moves the history
            // the index keeps.
            return if self.history && moves_head(rel) { Change::Head } else { Change::Nothing };
        }
        let name = p.file_name().map(|n| n.as_encoded_bytes()).unwrap_or(b"");
        // Ignore files, and the project files resolution reads (module paths, workspaces).
        if matches!(
            name,
            b".gitignore"
                | b".ignore"
                | b".cdsignore"
                | b"go.mod"
                | b"Cargo.toml"
                | b"package.json"
                | b"tsconfig.json"
                | b"jsconfig.json"
        ) {
            return Change::Rewalk;
        }
        if crate::lang::Lang::of_path(p).is_some() {
            return Change::Paths(vec![p.to_path_buf()]);
        }
        // A directory created, moved or deleted may hold sources; anything else that still
        // exists (a log, an editor's swap file) cannot change the index, and one that is gone
        // is checked against the last walk's directories.
        match fs::symlink_metadata(p) {
            Ok(m) if m.is_dir() || m.file_type().is_symlink() => Change::Rewalk,
            Ok(_) => Change::Nothing,
            Err(_) => Change::Paths(vec![p.to_path_buf()]),
        }
    }
}

impl Filter {
    /// `CURRENT` names a generation whose graph is there (a cheap test, run per event).
    fn index_is_whole(&self) -> bool {
        index::current_generation(&self.index_dir)
            .is_ok_and(|g| self.index_dir.join(g).join(crate::index::format::GRAPH_FILE).is_file())
    }
}

/// `watch.lock`: an flock held for the life of a watcher, holding its pid for the message a
/// second watcher prints.
struct WatchLock {
    path: PathBuf,
    file: fs::File,
}

impl WatchLock {
    fn acquire(index_dir: &Path) -> Result<WatchLock> {
        let path = index_dir.join(WATCH_LOCK);
        let mut file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io("cannot create", &path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let pid = pid.trim();
                let who = if pid.is_empty() { String::new() } else { format!(" (pid {pid})") };
                return Err(Error::msg(format!(
                    "another cds-build --watch{who} is already keeping {} up to date: \
                     stop it first, or just query the index it maintains",
                    index_dir.display()
                )));
            }
            Err(fs::TryLockError::Error(e)) => return Err(Error::io("cannot lock", &path, e)),
        }
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = writeln!(file, "{}", std::process::id());
        Ok(WatchLock { path, file })
    }

    /// False once the lock file was deleted or replaced (with its index directory).
    fn is_in_place(&self) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            match (fs::metadata(&self.path), self.file.metadata()) {
                (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
                _ => false,
            }
        }
        #[cfg(not(unix))]
        {
            self.path.is_file()
        }
    }
}
