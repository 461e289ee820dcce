//! The repository's recent commits, as a prior for `cds-loc`: a file changed in the last few
//! commits is more likely to be where an issue's fix goes than one untouched for years.
//!
//! `cds-build` reads the last [`WINDOW`] commits of `HEAD` (merges left out, paths relative to
//! the indexed root) with the `git` command when the root is inside a git work tree, and keeps
//! per file how many commits ago it last changed and how often it changed in the last
//! [`CHURN_WINDOW`]. It also keeps, per file, the terms of the messages of the commits among the
//! last [`MESSAGE_WINDOW`] that changed it: past fixes are described in words an issue about
//! the same code tends to use again (a bug-localization signal as old as BugLocator), so
//! `cds-loc` scores them against the issue. Without git, outside a work tree, or with
//! `--no-history`, there is no
//! history: the index is the same as before, and `cds-loc` ranks as if every file were
//! equally old (a feature constant over an issue's candidates cannot change a softmax
//! ranking). Only committed history counts, so two builds of the same commit agree.
//!
//! When `HEAD` moved forward by a few commits in a straight line (a commit, a fast-forward
//! pull) since the previous build, the history is advanced instead of read again
//! ([`advance`]): the new commits are read, and the ones that fell out of each window are read
//! back (`git log --skip`) and taken away. The result is what reading the whole window gives,
//! for which the previous history must cover every path its window changed that an index could
//! hold, not only the files indexed then ([`History::complete`]).

use std::path::Path;
use std::process::{Command, Stdio};

use fxhash::FxHashMap as HashMap;

/// Commits read (the newest first).
pub const WINDOW: u16 = 2000;
/// Commits in which changes are counted.
pub const CHURN_WINDOW: u16 = 300;
/// Commits whose messages are kept (the newest first; [`WINDOW`] of them give the ages).
pub const MESSAGE_WINDOW: u16 = 10000;
/// Bytes of a commit message read (the rest of a long one is release notes or a changelog).
const MESSAGE_BYTES: usize = 4096;
/// Most new commits a history is advanced by ([`advance`]); after more, it is read again.
pub const MAX_ADVANCE: u16 = 1000;

/// The messages of the commits that changed each file: their terms (as the search index
/// tokenizes them), with counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Messages {
    /// Every term, by number.
    pub vocab: Vec<Box<[u8]>>,
    /// Per file (by path relative to the root): (term number, count), sorted by term number.
    pub files: HashMap<Vec<u8>, Vec<(u32, u32)>>,
}

impl Messages {
    /// The terms and counts of the messages that changed `rel`.
    pub fn of(&self, rel: &[u8]) -> &[(u32, u32)] {
        self.files.get(rel).map_or(&[], |v| v)
    }

    /// Term numbers by term.
    fn numbers(&self) -> HashMap<Box<[u8]>, u32> {
        self.vocab.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect()
    }

    /// Adds the counts of `other` (numbered by its own vocabulary) to these.
    fn add(&mut self, other: Messages) {
        let mut number = self.numbers();
        for (rel, terms) in other.files {
            let have = self.files.entry(rel).or_default();
            for (t, n) in terms {
                let word = &other.vocab[t as usize];
                let t = *number.entry(word.clone()).or_insert_with(|| {
                    self.vocab.push(word.clone());
                    self.vocab.len() as u32 - 1
                });
                match have.binary_search_by_key(&t, |p| p.0) {
                    Ok(i) => have[i].1 = have[i].1.saturating_add(n),
                    Err(i) => have.insert(i, (t, n)),
                }
            }
        }
    }

    /// Takes the counts of `other` (numbered by its own vocabulary) away from these.
    fn subtract(&mut self, other: &Messages) {
        let number = self.numbers();
        for (rel, terms) in &other.files {
            let Some(have) = self.files.get_mut(rel) else { continue };
            for &(t, n) in terms {
                if let Some(&t) = number.get(&other.vocab[t as usize])
                    && let Ok(i) = have.binary_search_by_key(&t, |p| p.0)
                {
                    have[i].1 = have[i].1.saturating_sub(n);
                }
            }
            have.retain(|p| p.1 > 0);
            if have.is_empty() {
                self.files.remove(rel);
            }
        }
    }
}

/// Per file (by path relative to the root): commits since its last change, and its changes
/// among the last [`CHURN_WINDOW`] commits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    /// The commit `HEAD` named.
    pub head: Vec<u8>,
    files: HashMap<Vec<u8>, (u16, u16)>,
    /// The commit messages per file.
    pub messages: Messages,
    /// Whether every path the window's commits changed that an index could hold (a source
    /// file, indexed or not) has its entries here: read from git, or kept with the paths
    /// outside the file table (`history-others.rkyv`). Only such a history can be advanced,
    /// or carried over to a file the previous build did not index.
    pub complete: bool,
}

impl History {
    /// How many commits ago `rel` last changed ([`WINDOW`] if not in the window).
    pub fn age(&self, rel: &[u8]) -> u16 {
        self.files.get(rel).map_or(WINDOW, |v| v.0)
    }

    /// How many of the last [`CHURN_WINDOW`] commits changed `rel`.
    pub fn churn(&self, rel: &[u8]) -> u16 {
        self.files.get(rel).map_or(0, |v| v.1)
    }

    /// The history an index kept, from its per-file entries `(path, age, churn)`: exact for
    /// those files, and for every other path too when `complete` (see [`History::knows`]).
    pub fn from_files(
        head: Vec<u8>,
        files: impl Iterator<Item = (Vec<u8>, u16, u16)>,
        messages: Messages,
        complete: bool,
    ) -> History {
        let files = files.map(|(rel, age, churn)| (rel, (age, churn))).collect();
        History { head, files, messages, complete }
    }

    /// Whether the history of `rel` is known: always for a [complete](History::complete) one
    /// (a path without entries was not changed in the window), otherwise only for the files
    /// the index listed.
    pub fn knows(&self, rel: &[u8]) -> bool {
        self.complete || self.files.contains_key(rel)
    }

    /// Every path the window's commits changed (as far as this history holds them).
    pub fn paths(&self) -> impl Iterator<Item = &[u8]> {
        let aged = self.files.iter().filter(|(_, v)| v.0 < WINDOW).map(|(k, _)| &k[..]);
        let worded = self.messages.files.keys().filter(|k| self.age(k) >= WINDOW);
        aged.chain(worded.map(|k| &k[..]))
    }

    /// This history, with the entries of the paths outside an index's file table that it
    /// kept beside it: then [complete](History::complete).
    pub fn with_others(
        mut self,
        files: impl Iterator<Item = (Vec<u8>, u16, u16)>,
        messages: Messages,
    ) -> History {
        self.files.extend(files.map(|(rel, age, churn)| (rel, (age, churn))));
        self.messages.add(messages);
        self.complete = true;
        self
    }

    /// Reads what `git log` prints with the options of [`log`]: per commit a record
    /// `\x01MESSAGE\x02`, then the paths it changed, each NUL-terminated (the first after a
    /// newline).
    pub fn parse(head: Vec<u8>, log: &[u8]) -> History {
        let mut files: HashMap<Vec<u8>, (u16, u16)> = HashMap::default();
        let mut vocab: Vec<Box<[u8]>> = Vec::new();
        let mut term_no: HashMap<Box<[u8]>, u32> = HashMap::default();
        let mut per_file: HashMap<Vec<u8>, HashMap<u32, u32>> = HashMap::default();
        // The current commit's number and its message's terms.
        let mut commit: Option<u16> = None;
        let mut terms: Vec<(u32, u32)> = Vec::new();
        for field in log.split(|&b| b == 0) {
            if let Some(rest) = field.strip_prefix(b"\x01") {
                let c = commit.map_or(0, |c| c.saturating_add(1));
                commit = Some(c);
                terms.clear();
                if c < MESSAGE_WINDOW {
                    let msg = rest.strip_suffix(b"\x02").unwrap_or(rest);
                    message_terms(&msg[..msg.len().min(MESSAGE_BYTES)], &mut terms, |t| {
                        *term_no.entry(t.into()).or_insert_with(|| {
                            vocab.push(t.into());
                            vocab.len() as u32 - 1
                        })
                    });
                }
                continue;
            }
            let path = field.strip_prefix(b"\n").unwrap_or(field);
            let Some(c) = commit else { continue };
            if path.is_empty() {
                continue;
            }
            if !terms.is_empty() {
                let counts = per_file.entry(path.to_vec()).or_default();
                for &(t, n) in &terms {
                    *counts.entry(t).or_default() += n;
                }
            }
            if c >= WINDOW {
                continue;
            }
            let e = files.entry(path.to_vec()).or_insert((c, 0));
            if c < CHURN_WINDOW {
                e.1 = e.1.saturating_add(1);
            }
        }
        let files_terms = per_file
            .into_iter()
            .map(|(rel, counts)| {
                let mut v: Vec<(u32, u32)> = counts.into_iter().collect();
                v.sort_unstable();
                (rel, v)
            })
            .collect();
        let messages = Messages { vocab, files: files_terms };
        History { head, files, messages, complete: true }
    }

    /// This history `k` commits later, at `head`: `new` is [`History::parse`] of the `k` new
    /// commits, `dropped_messages` of the `k` that were the last of [`MESSAGE_WINDOW`]
    /// before, `dropped_churn` of the `k` that were the last of [`CHURN_WINDOW`] (both empty
    /// when the window was not full; `dropped_churn` unused when `k` is the window or more).
    /// Equal to parsing the new window whole, for a [complete](History::complete) history.
    pub fn advanced(
        self,
        head: Vec<u8>,
        k: u16,
        new: History,
        dropped_messages: &History,
        dropped_churn: &History,
    ) -> History {
        let mut files: HashMap<Vec<u8>, (u16, u16)> = HashMap::default();
        for (rel, (age, churn)) in self.files {
            let age = age.saturating_add(k);
            if age >= WINDOW {
                continue; // (its churn is 0: its last change is older than the churn window)
            }
            let churn =
                if k >= CHURN_WINDOW { 0 } else { churn.saturating_sub(dropped_churn.churn(&rel)) };
            files.insert(rel, (age, churn));
        }
        for (rel, (age, churn)) in new.files {
            let e = files.entry(rel).or_insert((age, 0));
            *e = (age, e.1.saturating_add(churn));
        }
        let mut messages = self.messages;
        messages.subtract(&dropped_messages.messages);
        messages.add(new.messages);
        History { head, files, messages, complete: self.complete }
    }
}

/// The terms of one commit message with their counts, numbered by `number`, in `out`, sorted.
/// Terms of one or two letters and query stop words are left out: no query holds them.
fn message_terms(msg: &[u8], out: &mut Vec<(u32, u32)>, mut number: impl FnMut(&[u8]) -> u32) {
    let mut counts: HashMap<u32, u32> = HashMap::default();
    crate::search::tokenize::tokens(msg, |_, t| {
        if t.len() > 2 && !crate::search::tokenize::is_query_stopword(t) {
            *counts.entry(number(t)).or_default() += 1;
        }
    });
    out.extend(counts);
    out.sort_unstable();
}

/// `n` commits of the history of `commit` after the first `skip` ([`History::parse`] of
/// `git log`), or `None` when git fails.
fn log(root: &Path, commit: &[u8], n: u16, skip: u16) -> Option<History> {
    finish_log(start_log(root, commit, n, skip)?, commit)
}

/// Starts the `git log` of [`log`].
fn start_log(root: &Path, commit: &[u8], n: u16, skip: u16) -> Option<std::process::Child> {
    git(root)
        .args(["log", "--no-merges", "--no-ext-diff", "--no-textconv", "--no-renames"])
        .args(["--relative", "--format=%x01%B%x02", "--name-only", "-z"])
        .arg(format!("-n{n}"))
        .arg(format!("--skip={skip}"))
        .arg(String::from_utf8_lossy(commit).as_ref())
        .arg("--")
        .stdout(Stdio::piped())
        .spawn()
        .ok()
}

/// What a `git log` of [`start_log`] printed, parsed.
fn finish_log(child: std::process::Child, commit: &[u8]) -> Option<History> {
    let out = child.wait_with_output().ok()?;
    out.status.success().then(|| History::parse(commit.to_vec(), &out.stdout))
}

/// A `git` command run in `root` that never prompts or pages, and runs nothing a repository's
/// configuration names (external diff drivers, text conversions, a file system monitor).
fn git(root: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(root)
        .args(["-c", "core.quotepath=off", "-c", "log.showSignature=false"])
        .args(["-c", "core.fsmonitor=false"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// The commit `HEAD` names in the work tree holding `root`, or `None` (no git, not a work
/// tree, no commit yet).
pub fn head(root: &Path) -> Option<Vec<u8>> {
    if !may_be_in_work_tree(root) {
        return None;
    }
    let out = git(root).args(["rev-parse", "--verify", "-q", "HEAD"]).output().ok()?;
    let h = out.stdout.trim_ascii();
    (out.status.success() && !h.is_empty()).then(|| h.to_vec())
}

/// Whether git could find a repository for `root`: a `.git` (a directory, or a file naming
/// one) in it or above it, or `GIT_DIR` set. Otherwise git is not asked at all: starting it
/// cost a rebuild of a tree outside git (an unpacked release) 5-10 ms for nothing.
fn may_be_in_work_tree(root: &Path) -> bool {
    std::env::var_os("GIT_DIR").is_some()
        || root.ancestors().any(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
}

/// The history of commit `head` as seen from `root`, or `None` when git fails.
pub fn read(root: &Path, head: Vec<u8>) -> Option<History> {
    log(root, &head, MESSAGE_WINDOW, 0)
}

/// The history of commit `head`, from `prev`'s when `head` is at most [`MAX_ADVANCE`]
/// commits ahead of it in a straight line (each new commit's one parent the one before, the
/// first's `prev.head`: then `git log` of `head` lists them, then what it listed for
/// `prev.head`, in the same order), and `prev` is [complete](History::complete). `None`
/// otherwise (or when git fails): the history is then read whole. With the history, how many
/// commits it moved on.
pub fn advance(root: &Path, prev: History, head: Vec<u8>) -> Option<(History, u16)> {
    if !prev.complete || prev.head.is_empty() {
        return None;
    }
    let range =
        format!("{}..{}", String::from_utf8_lossy(&prev.head), String::from_utf8_lossy(&head));
    let out = git(root)
        .args(["rev-list", "--parents"])
        .arg(format!("-n{}", MAX_ADVANCE + 1))
        .arg(range)
        .arg("--")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut expect: &[u8] = &head;
    let mut k: u16 = 0;
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut ids = line.split(|&b| b == b' ');
        let (commit, parent, more) = (ids.next()?, ids.next()?, ids.next());
        if commit != expect || more.is_some() || k == MAX_ADVANCE {
            return None;
        }
        expect = parent;
        k += 1;
    }
    if k == 0 || expect != prev.head.as_slice() {
        return None;
    }
    // The three logs at once: the two that skip walk thousands of commits.
    let new = start_log(root, &head, k, 0);
    let dropped_messages =
        (k < MESSAGE_WINDOW).then(|| start_log(root, &prev.head, k, MESSAGE_WINDOW - k));
    let dropped_churn =
        (k < CHURN_WINDOW).then(|| start_log(root, &prev.head, k, CHURN_WINDOW - k));
    let finish = |child: Option<Option<std::process::Child>>| match child {
        Some(c) => finish_log(c?, &prev.head),
        None => Some(History::default()),
    };
    // (Each started one is waited for, whatever the others did.)
    let new = new.and_then(|c| finish_log(c, &head));
    let (dropped_messages, dropped_churn) = (finish(dropped_messages), finish(dropped_churn));
    let (new, dropped_messages, dropped_churn) = (new?, dropped_messages?, dropped_churn?);
    Some((prev.advanced(head, k, new, &dropped_messages, &dropped_churn), k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_is_asked_only_where_a_repository_may_be() {
        let dir = std::env::temp_dir().join(format!("cds-history-nogit-{}", std::process::id()));
        let sub = dir.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        // (Unless a repository lies above the temporary directory, or GIT_DIR is set.)
        let outside = !may_be_in_work_tree(&std::env::temp_dir());
        assert!(!outside || !may_be_in_work_tree(&sub));
        std::fs::write(dir.join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert!(may_be_in_work_tree(&sub) && may_be_in_work_tree(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn parses_commits_newest_first() {
        let log = b"\x01\0\na.py\0b/c.py\0\x01\0\nb/c.py\0\x01\0\x01\0\nd\xffe.py\0";
        let h = History::parse(b"abc".to_vec(), log);
        assert_eq!((h.age(b"a.py"), h.churn(b"a.py")), (0, 1));
        assert_eq!((h.age(b"b/c.py"), h.churn(b"b/c.py")), (0, 2));
        // A commit without paths (empty, or touching only paths outside the root) still
        // counts as one.
        assert_eq!((h.age(b"d\xffe.py"), h.churn(b"d\xffe.py")), (3, 1));
        assert_eq!((h.age(b"never.py"), h.churn(b"never.py")), (WINDOW, 0));
        assert_eq!(
            History::parse(Vec::new(), b""),
            History { complete: true, ..History::default() }
        );
    }

    #[test]
    fn keeps_each_files_message_terms() {
        let log = b"\x01Fixed the header parser's quoting\n\nThanks Ann.\x02\0\na.py\0b.py\0\
            \x01Parser: quoting of empty values\x02\0\na.py\0\x01\x02\0\nc.py\0";
        let h = History::parse(Vec::new(), log);
        let m = &h.messages;
        let count = |rel: &[u8], term: &[u8]| {
            let n = m.vocab.iter().position(|t| &t[..] == term)? as u32;
            m.of(rel).iter().find(|p| p.0 == n).map(|p| p.1)
        };
        assert_eq!(count(b"a.py", b"quoting"), Some(2));
        assert_eq!(count(b"a.py", b"parser"), Some(2));
        assert_eq!(count(b"b.py", b"quoting"), Some(1));
        assert_eq!(count(b"b.py", b"empty"), None);
        assert_eq!(count(b"a.py", b"the"), None, "stop words are left out");
        assert!(m.of(b"c.py").is_empty(), "an empty message has no terms");
        // Terms sorted by number, each once.
        assert!(m.of(b"a.py").windows(2).all(|w| w[0].0 < w[1].0));
        // The ages and churn read the same records.
        assert_eq!((h.age(b"a.py"), h.age(b"c.py"), h.churn(b"a.py")), (0, 2, 2));
    }

    #[test]
    fn counts_changes_only_in_the_churn_window() {
        let mut log = Vec::new();
        for i in 0..CHURN_WINDOW + 5 {
            log.extend_from_slice(b"\x01\0\n");
            log.extend_from_slice(if i == 0 { b"new.py\0" } else { b"old.py\0" });
        }
        let h = History::parse(Vec::new(), &log);
        assert_eq!(h.churn(b"old.py"), CHURN_WINDOW - 1);
        assert_eq!(h.age(b"old.py"), 1);
        assert_eq!(h.churn(b"new.py"), 1);
    }

    /// `git log` output of `commits` (the newest first), each a message and its paths.
    fn log_of(commits: &[(String, Vec<String>)]) -> Vec<u8> {
        let mut log = Vec::new();
        for (msg, paths) in commits {
            log.extend_from_slice(format!("\x01{msg}\x02\0").as_bytes());
            for (i, p) in paths.iter().enumerate() {
                log.extend_from_slice(if i == 0 { b"\n" } else { b"" });
                log.extend_from_slice(p.as_bytes());
                log.push(0);
            }
        }
        log
    }

    /// Ages and churn per path, and message terms per path by their words.
    type Canonical = (Vec<(Vec<u8>, (u16, u16))>, Vec<(Vec<u8>, Vec<(Box<[u8]>, u32)>)>);

    fn canonical(h: &History) -> Canonical {
        let mut files: Vec<_> = h.files.iter().map(|(k, v)| (k.clone(), *v)).collect();
        files.sort();
        let m = &h.messages;
        let mut words: Vec<_> = m
            .files
            .iter()
            .map(|(rel, terms)| {
                let mut t: Vec<_> =
                    terms.iter().map(|&(t, n)| (m.vocab[t as usize].clone(), n)).collect();
                t.sort();
                (rel.clone(), t)
            })
            .collect();
        words.sort();
        (files, words)
    }

    #[test]
    fn advancing_equals_reading_the_window_again() {
        // A made-up history longer than the message window, newest first.
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let words = ["parser", "quoting", "header", "cache", "empty", "values", "regression"];
        let total = MESSAGE_WINDOW as usize + 1200;
        let commits: Vec<(String, Vec<String>)> = (0..total)
            .map(|i| {
                let msg = (0..next(4)).map(|_| words[next(words.len())]).collect::<Vec<_>>();
                // A path changed only long ago, and one whose last change leaves the age window.
                let mut paths: Vec<String> =
                    (0..next(4)).map(|_| format!("p{}.py", next(40))).collect();
                if i == 9_000 || i == WINDOW as usize + 3 {
                    paths.push(format!("old{i}.py"));
                }
                (msg.join(" "), paths)
            })
            .collect();
        let (mw, cw) = (MESSAGE_WINDOW as usize, CHURN_WINDOW as usize);
        for k in [1, 2, 7, 299, 300, 301, 1000] {
            let old = &commits[k..];
            let prev = History::parse(b"old".to_vec(), &log_of(&old[..mw]));
            let new = History::parse(Vec::new(), &log_of(&commits[..k]));
            let dropped_messages = History::parse(Vec::new(), &log_of(&old[mw - k..mw]));
            let dropped_churn = if k < cw {
                History::parse(Vec::new(), &log_of(&old[cw - k..cw]))
            } else {
                History::default()
            };
            let got =
                prev.advanced(b"new".to_vec(), k as u16, new, &dropped_messages, &dropped_churn);
            let want = History::parse(b"new".to_vec(), &log_of(&commits[..mw]));
            assert!(canonical(&got) == canonical(&want), "{k} commits later");
            assert_eq!((got.head.as_slice(), got.complete), (&b"new"[..], true));
        }
    }
}
