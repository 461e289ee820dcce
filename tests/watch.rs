//! `cds-build --watch`: the real binary beside a changing tree. Waits are for conditions, with a
//! generous deadline for a loaded machine; nothing here asserts a speed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{Dir, bin};

/// A running watcher whose stderr goes to a file; killed if the test ends early.
struct Watcher {
    child: Child,
    log: PathBuf,
}

impl Watcher {
    fn start(d: &Dir, args: &[&str]) -> Watcher {
        let log = d.root.with_extension(format!("watch-{}.log", args.len()));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(bin("cds-build"))
            .arg("--watch")
            .args(args)
            .current_dir(&d.root)
            .env_remove("CDS_INDEX")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(file))
            .spawn()
            .unwrap();
        Watcher { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends a signal and returns the exit code.
    fn stop(mut self, signal: &str) -> (Option<i32>, String) {
        let status =
            Command::new("kill").args([signal, &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
        let code = wait_exit(&mut self.child);
        (code, self.log())
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

fn wait_exit(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            use std::os::unix::process::ExitStatusExt;
            assert!(s.signal().is_none(), "killed by signal {:?}", s.signal());
            return s.code();
        }
        assert!(Instant::now() < deadline, "the watcher did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until `cond` holds (a minute at most, for a loaded machine).
fn wait_for(what: &str, w: &Watcher, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}; log:\n{}", w.log());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// True when `cds-get` finds `id` in the index of `root`.
fn indexed(root: &Path, id: &str) -> bool {
    Command::new(bin("cds-get"))
        .args(["--ids", id])
        .current_dir(root)
        .env_remove("CDS_INDEX")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn current(d: &Dir) -> String {
    std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap_or_default()
}

#[test]
fn an_edit_is_indexed_and_sigterm_ends_the_watch() {
    let d = Dir::demo("watch-edit");
    let w = Watcher::start(&d, &[]);
    wait_for("the first build", &w, || w.log().contains("watching for changes"));
    let first = current(&d);
    let cart = d.path("shop/cart.py");
    let mut text = std::fs::read_to_string(&cart).unwrap();
    text.push_str("\n\ndef watched_helper():\n    return 1\n");
    std::fs::write(&cart, text).unwrap();
    wait_for("the edit", &w, || indexed(&d.root, "shop/cart.py:watched_helper"));
    assert_ne!(current(&d), first, "a new generation");
    // Ignored and non-source files change nothing.
    d.write("notes.txt", "scratch\n").write(".git/objects/x.py", "def git_internal():\n    pass\n");
    d.write("shop/__pycache__/cart.cpython-311.pyc", b"\x00bytes".as_slice());
    std::thread::sleep(Duration::from_millis(300));
    let (code, log) = w.stop("-TERM");
    assert_eq!(code, Some(0), "{log}");
    let updates: Vec<&str> = log.lines().filter(|l| l.contains(" changed (")).collect();
    assert_eq!(updates.len(), 1, "one update line: {log}");
    assert!(
        updates[0].contains("1 file changed (1 parsed, typescript links kept) in ")
            && updates[0].contains(" ms"),
        "{log}"
    );
    assert!(!log.contains("panicked"), "{log}");
    assert_eq!(d.cmd("cds-build").arg("--verify").output().status.code(), Some(0));
}

#[test]
fn a_burst_is_one_rebuild_and_deletions_are_seen() {
    let d = Dir::demo("watch-burst");
    let w = Watcher::start(&d, &["-q"]);
    wait_for("the first build", &w, || d.path(".cds/CURRENT").is_file());
    // 1,000 files appear at once, as a checkout makes them (cp writes them back to back).
    let staging = Dir::new("watch-burst-staging");
    for i in 0..1000 {
        staging.write(&format!("burst/m{i:04}.py"), format!("def burst_{i}():\n    return {i}\n"));
    }
    let status = Command::new("cp")
        .args(["-r", &staging.path("burst").to_string_lossy(), &d.root.to_string_lossy()])
        .status()
        .unwrap();
    assert!(status.success());
    wait_for("the burst", &w, || indexed(&d.root, "burst/m0999.py:burst_999"));
    std::thread::sleep(Duration::from_millis(200));
    // -q: no lines at all; count generations instead (the number goes up by one per build).
    let generation: u64 = current(&d).trim().trim_start_matches("gen-").parse().unwrap();
    assert!(generation <= 3, "1,000 files took {} rebuilds", generation - 1);
    assert!(w.log().is_empty(), "-q prints nothing: {}", w.log());
    // A removed directory disappears from the index.
    std::fs::remove_dir_all(d.path("burst")).unwrap();
    wait_for("the deletion", &w, || !indexed(&d.root, "burst/m0000.py"));
    let (code, log) = w.stop("-INT");
    assert_eq!(code, Some(0), "{log}");
}

#[test]
fn a_deleted_index_is_written_anew_and_a_second_watcher_is_refused() {
    let d = Dir::demo("watch-deleted");
    let w = Watcher::start(&d, &[]);
    wait_for("the first build", &w, || w.log().contains("watching for changes"));
    let err = d.cmd("cds-build").arg("--watch").stderr_of(2);
    assert!(err.contains("another cds-build --watch") && err.contains("already keeping"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    // (A rebuild may be writing into it: try again until it is gone.)
    wait_for("the index to be deleted", &w, || std::fs::remove_dir_all(d.path(".cds")).is_ok());
    wait_for("the index to come back", &w, || indexed(&d.root, "shop/cart.py:Cart"));
    // The new index has its lock again: still one watcher only.
    wait_for("the lock", &w, || d.path(".cds/watch.lock").is_file());
    std::thread::sleep(Duration::from_millis(200));
    let err = d.cmd("cds-build").arg("--watch").stderr_of(2);
    assert!(err.contains("already keeping"), "{err}");
    d.write("shop/new_mod.py", "def after_delete():\n    pass\n");
    wait_for("an edit after it", &w, || indexed(&d.root, "shop/new_mod.py:after_delete"));
    let (code, log) = w.stop("-TERM");
    assert_eq!(code, Some(0), "{log}");
}

#[test]
fn polling_and_a_vanished_root() {
    let d = Dir::demo("watch-poll");
    let outside = Dir::new("watch-poll-index");
    let index = outside.path("idx");
    let w = Watcher::start(&d, &["--poll", "50", "--index", &index.to_string_lossy()]);
    wait_for("the first build", &w, || w.log().contains("watching for changes"));
    d.write("shop/polled.py", "def polled():\n    pass\n");
    let found = || {
        Command::new(bin("cds-get"))
            .args(["--ids", "--index", &index.to_string_lossy(), "shop/polled.py:polled"])
            .current_dir(&d.root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    wait_for("the polled edit", &w, found);
    // The repository disappears: the watch ends with a clear message, the index stays usable.
    std::fs::remove_dir_all(&d.root).unwrap();
    let mut w = w;
    let code = wait_exit(&mut w.child);
    let log = w.log();
    assert_eq!(code, Some(2), "{log}");
    assert!(log.lines().last().unwrap_or("").contains("is gone: stopped watching"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
    std::fs::create_dir_all(&d.root).unwrap();
    let out = Command::new(bin("cds-build"))
        .args(["--verify", "--index", &index.to_string_lossy()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn bad_input_never_stops_the_watch() {
    let d = Dir::demo("watch-bad-input");
    let w = Watcher::start(&d, &[]);
    wait_for("the first build", &w, || w.log().contains("watching for changes"));
    // A file replaced by a directory, a symlink loop, a file that vanishes at once, an
    // unreadable one (root reads it anyway), a binary one.
    std::fs::remove_file(d.path("shop/pricing.py")).unwrap();
    std::fs::create_dir(d.path("shop/pricing.py")).unwrap();
    std::os::unix::fs::symlink("../shop", d.path("shop/loop")).unwrap();
    d.write("shop/flash.py", "def gone():\n    pass\n");
    std::fs::remove_file(d.path("shop/flash.py")).unwrap();
    d.write("shop/locked.py", "def locked():\n    pass\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d.path("shop/locked.py"), std::fs::Permissions::from_mode(0o000))
        .unwrap();
    d.write("shop/blob.py", b"\x00\x01binary".as_slice());
    d.write("shop/after.py", "def after_bad_input():\n    pass\n");
    wait_for("the good file", &w, || indexed(&d.root, "shop/after.py:after_bad_input"));
    assert!(!indexed(&d.root, "shop/pricing.py"), "the directory is not a file");
    let (code, log) = w.stop("-TERM");
    assert_eq!(code, Some(0), "{log}");
    assert!(!log.contains("panicked") && !log.contains("rebuild failed"), "{log}");
    assert_eq!(d.cmd("cds-build").arg("--verify").output().status.code(), Some(0));
}

/// The watched index is what a cold build of the tree gives (the whole graph, node for node and
/// edge for edge) after edits the watcher takes without walking the tree (in place, and an
/// editor's save through a temporary file renamed over the source) and after ones that make it
/// walk (a new file, a deleted one), and after an edit of another language than Python's (only
/// its family linked again).
#[test]
fn the_watched_index_equals_a_cold_build_after_each_kind_of_edit() {
    let d = Dir::demo("watch-equal");
    let cold = d.root.with_extension("cold-index");
    let w = Watcher::start(&d, &[]);
    wait_for("the first build", &w, || w.log().contains("watching for changes"));
    let graph = |index: Option<&Path>| {
        let mut c = d.cmd("cds-fmt");
        c.arg("--graph");
        if let Some(ix) = index {
            c.arg("--index").arg(ix);
        }
        c.ok()
    };
    let same_as_cold = |what: &str| {
        d.cmd("cds-build").arg("--force").arg("--index").arg(&cold).ok();
        assert_eq!(graph(None), graph(Some(&cold)), "after {what}");
    };
    let cart = d.path("shop/cart.py");
    let text = std::fs::read_to_string(&cart).unwrap();
    std::fs::write(&cart, format!("{text}\n\ndef edited_in_place():\n    return 1\n")).unwrap();
    wait_for("the edit", &w, || indexed(&d.root, "shop/cart.py:edited_in_place"));
    same_as_cold("an edit in place");
    let tmp = d.path("shop/cart.py.tmp");
    std::fs::write(&tmp, format!("{text}\n\ndef saved_by_rename():\n    return 2\n")).unwrap();
    std::fs::rename(&tmp, &cart).unwrap();
    wait_for("the save", &w, || indexed(&d.root, "shop/cart.py:saved_by_rename"));
    assert!(!indexed(&d.root, "shop/cart.py:edited_in_place"));
    same_as_cold("a save through a renamed temporary file");
    d.write(
        "shop/extra.py",
        "from shop.cart import saved_by_rename\n\ndef extra():\n    saved_by_rename()\n",
    );
    wait_for("the new file", &w, || indexed(&d.root, "shop/extra.py:extra"));
    same_as_cold("a new file");
    std::fs::remove_file(d.path("shop/extra.py")).unwrap();
    wait_for("the deletion", &w, || !indexed(&d.root, "shop/extra.py"));
    same_as_cold("a deleted file");
    // A TypeScript edit links only JavaScript and TypeScript again; Python keeps its links.
    let escape = d.path("web/src/escape.ts");
    let ts = std::fs::read_to_string(&escape).unwrap();
    std::fs::write(
        &escape,
        format!("{ts}\nexport function unescapeAll(s: string) {{ return s; }}\n"),
    )
    .unwrap();
    wait_for("the TypeScript edit", &w, || indexed(&d.root, "web/src/escape.ts:unescapeAll"));
    same_as_cold("a TypeScript edit");
    let (code, log) = w.stop("-TERM");
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("1 file changed (1 parsed, python links kept)"), "{log}");
    let _ = std::fs::remove_dir_all(&cold);
}

/// A commit changes no file, but the history the index keeps: the watcher sees `HEAD` move on
/// and writes a generation with the new commit (and nothing for git's other writes).
#[test]
fn a_commit_is_seen() {
    let d = Dir::demo("watch-commit");
    d.write(".gitignore", ".cds/\n");
    d.git(&["init", "-q"]).git(&["add", "-A"]).git(&["commit", "-qm", "demo"]);
    let w = Watcher::start(&d, &[]);
    wait_for("the first build", &w, || w.log().contains("watching for changes"));
    let first = current(&d);
    d.git(&["commit", "-q", "--allow-empty", "-m", "Checkout totals rounding"]);
    wait_for("the commit", &w, || w.log().contains("1 new commit"));
    assert_ne!(current(&d), first, "a new generation");
    let (code, log) = w.stop("-TERM");
    assert_eq!(code, Some(0), "{log}");
    let update = log.lines().find(|l| l.contains("1 new commit")).unwrap_or_default();
    assert!(update.contains("0 files changed (0 parsed, links kept, 1 new commit)"), "{log}");
    assert_eq!(d.cmd("cds-build").arg("--verify").output().status.code(), Some(0));
}
