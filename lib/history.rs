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

    /// The history of the files an index lists, from its per-file entries `(path, age,
    /// churn)`: exact for those files, and for no other (see [`History::knows`]).
    pub fn from_files(
        head: Vec<u8>,
        files: impl Iterator<Item = (Vec<u8>, u16, u16)>,
        messages: Messages,
    ) -> History {
        let files = files.map(|(rel, age, churn)| (rel, (age, churn))).collect();
        History { head, files, messages }
    }

    /// Whether `rel` has an entry (every file of [`History::from_files`] has one; a history
    /// read from git only has the paths its commits touched).
    pub fn knows(&self, rel: &[u8]) -> bool {
        self.files.contains_key(rel)
    }

    /// Reads what `git log` prints with [`log_args`]: per commit a record `\x01MESSAGE\x02`,
    /// then the paths it changed, each NUL-terminated (the first after a newline).
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
        History { head, files, messages: Messages { vocab, files: files_terms } }
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

/// The `git` arguments (after `-C root`) whose output [`History::parse`] reads.
fn log_args() -> [String; 10] {
    [
        "log".into(),
        "--no-merges".into(),
        "--no-ext-diff".into(),
        "--no-textconv".into(),
        "--no-renames".into(),
        "--relative".into(),
        format!("-n{MESSAGE_WINDOW}"),
        "--format=%x01%B%x02".into(),
        "--name-only".into(),
        "-z".into(),
    ]
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

/// The history of `HEAD` (which names `head`) as seen from `root`, or `None` when git fails.
pub fn read(root: &Path, head: Vec<u8>) -> Option<History> {
    let out = git(root).args(log_args()).output().ok()?;
    out.status.success().then(|| History::parse(head, &out.stdout))
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
        assert_eq!(History::parse(Vec::new(), b""), History::default());
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
}
