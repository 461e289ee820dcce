//! The repository's history: read through git by cds-build, kept per file in the index,
//! advanced when HEAD moves on (read again when it moves elsewhere), and used by cds-loc to rank
//! a recently changed file first, and a file whose past commits were described in the issue's
//! words.

use std::path::{Path, PathBuf};

use crate::util::Dir;

fn generation(d: &Dir) -> PathBuf {
    let index = d.path(".cds");
    let current = std::fs::read_to_string(index.join("CURRENT")).unwrap();
    index.join(current.trim())
}

fn has_history(d: &Dir) -> bool {
    generation(d).join("history.rkyv").exists()
}

const PARSER: &str = "def parse_header(value):\n    \"\"\"Splits a header value into its \
    parameters.\"\"\"\n    return [p.strip() for p in value.split(';')]\n";

/// `a.py` and `b.py` the same but for their names; `b.py` changed (and changed back) in each
/// of the last 20 commits, `a.py` not since the first. (Tied on everything else, `b.py` still
/// ranks second by score order, which the history must outweigh.)
fn twins(name: &str) -> Dir {
    let d = Dir::new(name);
    d.write("a.py", PARSER).write("b.py", PARSER).write(".gitignore", ".cds/\n");
    d.git(&["init", "-q"]);
    d.git(&["add", "-A"]);
    d.git(&["commit", "-qm", "first"]);
    for i in 0..10 {
        d.write("b.py", format!("{PARSER}# draft {i}\n"));
        d.git(&["commit", "-qam", "draft"]);
        d.write("b.py", PARSER);
        d.git(&["commit", "-qam", "back"]);
    }
    d
}

fn has_messages(d: &Dir) -> bool {
    generation(d).join("messages.rkyv").exists()
}

fn first_file(d: &Dir, issue: &str) -> String {
    let out = d.cmd("cds-loc").args(["--json", "-"]).stdin(issue).ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    v["found_files"][0].as_str().unwrap().to_string()
}

#[test]
fn a_recently_changed_file_ranks_first() {
    let d = twins("history-rank");
    let issue = "parse_header returns an empty parameter for a trailing semicolon\n\n\
        `parse_header('text/html;')` gives `['text/html', '']`.\n";
    d.cmd("cds-build").arg("-q").ok();
    assert!(has_history(&d));
    assert_eq!(first_file(&d, issue), "b.py");
    // Without the history the two files tie, and ties go by ID.
    d.cmd("cds-build").args(["-q", "--no-history"]).ok();
    assert!(!has_history(&d));
    assert_eq!(first_file(&d, issue), "a.py");
}

/// `a.py` and `b.py` the same but for their names, each changed alike once after the first
/// commit: `a.py` last, with a message about something else, and `b.py` before it, in a
/// commit whose message speaks of what the issue reports.
#[test]
fn a_file_whose_past_fixes_the_issue_describes_ranks_first() {
    let d = Dir::new("history-messages");
    d.write("a.py", PARSER).write("b.py", PARSER).write(".gitignore", ".cds/\n");
    d.git(&["init", "-q"]).git(&["add", "-A"]).git(&["commit", "-qm", "first"]);
    d.write("b.py", format!("{PARSER}# v2\n"));
    d.git(&[
        "commit",
        "-qam",
        "Fixed parse_header for quoted semicolons\n\nA quoted semicolon split a parameter.",
    ]);
    d.write("a.py", format!("{PARSER}# v2\n"));
    d.git(&["commit", "-qam", "Reworded a docstring"]);
    d.cmd("cds-build").arg("-q").ok();
    assert!(has_messages(&d));
    let issue = "parse_header splits a quoted semicolon\n\n\
        `parse_header('a=\"x;y\"')` gives two parameters: the quoted semicolon splits it.\n";
    assert_eq!(first_file(&d, issue), "b.py");
    // (a.py changed last, so its recency alone would put it first.) Without the history the
    // two files tie, and ties go by ID.
    d.cmd("cds-build").args(["-q", "--no-history"]).ok();
    assert!(!has_messages(&d));
    assert_eq!(first_file(&d, issue), "a.py");
}

/// An index written before the messages were kept has a history without them: the next build
/// reads the history again (even with HEAD and every file the same), and gets them.
#[test]
fn a_history_without_messages_is_read_again() {
    let d = twins("history-old");
    d.cmd("cds-build").arg("-q").ok();
    let first = generation(&d);
    std::fs::remove_file(first.join("messages.rkyv")).unwrap();
    let err = d.cmd("cds-build").output();
    assert!(!String::from_utf8_lossy(&err.stderr).contains("up to date"));
    assert_ne!(generation(&d), first);
    assert!(has_messages(&d));
    d.cmd("cds-build").arg("--verify").ok();
    // cds-loc reads an index without them as one without history words.
    std::fs::remove_file(generation(&d).join("messages.rkyv")).unwrap();
    let out = d.cmd("cds-loc").args(["--json", "-"]).stdin("parse_header").ok();
    assert!(out.contains("b.py"), "{out}");
}

#[test]
fn history_is_kept_until_head_moves() {
    let d = twins("history-head");
    d.cmd("cds-build").arg("-q").ok();
    let first = generation(&d);
    let err = d.cmd("cds-build").output();
    assert!(String::from_utf8_lossy(&err.stderr).contains("up to date"));
    assert_eq!(generation(&d), first);
    // A commit that changes no file still makes a new generation with the new history.
    d.git(&["commit", "-q", "--allow-empty", "-m", "empty"]);
    let err = d.cmd("cds-build").output();
    assert!(!String::from_utf8_lossy(&err.stderr).contains("up to date"));
    assert_ne!(generation(&d), first);
    assert!(has_history(&d));
    d.cmd("cds-build").arg("--verify").ok();
    // Edits keep the history of the same HEAD (carried over, also to a file the previous
    // generation did not have): always what a cold build reads.
    let before = generation(&d);
    d.write("a.py", format!("{PARSER}\ndef other():\n    pass\n"));
    assert_eq!(build_json(&d)["history"], "kept");
    // The same files: the same history files, linked rather than written again.
    use std::os::unix::fs::MetadataExt;
    let inode = |g: &Path| std::fs::metadata(g.join("messages.rkyv")).unwrap().ino();
    assert_eq!(inode(&generation(&d)), inode(&before));
    std::fs::remove_file(d.path("b.py")).unwrap();
    assert_eq!(build_json(&d)["history"], "kept");
    d.write("b.py", PARSER);
    assert_eq!(build_json(&d)["history"], "kept");
    d.cmd("cds-build").arg("--verify").ok();
    same_as_cold(&d, "edits");
}

/// The summary line of `cds-build --json`.
fn build_json(d: &Dir) -> serde_json::Value {
    let out = d.cmd("cds-build").arg("--json").ok();
    serde_json::from_str(out.trim()).unwrap()
}

const HISTORY_FILES: [&str; 3] = ["history.rkyv", "messages.rkyv", "history-others.rkyv"];

/// The history files of the live generation are those a cold build of the tree writes.
fn same_as_cold(d: &Dir, what: &str) {
    let cold = d.root.with_extension("cold-index");
    let _ = std::fs::remove_dir_all(&cold);
    d.cmd("cds-build").arg("-q").arg("--index").arg(&cold).ok();
    let current = std::fs::read_to_string(cold.join("CURRENT")).unwrap();
    for file in HISTORY_FILES {
        let want = std::fs::read(cold.join(current.trim()).join(file)).unwrap();
        let got = std::fs::read(generation(d).join(file)).unwrap();
        assert!(got == want, "{file} after {what}");
    }
    let _ = std::fs::remove_dir_all(&cold);
}

#[test]
fn history_moves_on_with_head_as_a_cold_read_would() {
    let d = twins("history-advance");
    // A source file deleted since: its history is kept beside the file table.
    d.write("gone.py", PARSER);
    d.git(&["add", "gone.py"]).git(&["commit", "-qm", "Header parser: a copy"]);
    d.git(&["rm", "-q", "gone.py"]).git(&["commit", "-qm", "Remove the copy"]);
    assert_eq!(build_json(&d)["history"], "read");
    // One commit: an edit, a new file, a message in new words.
    d.write("b.py", format!("{PARSER}\ndef quote(v):\n    return v\n"));
    d.write("c.py", "def unrelated():\n    return 0\n");
    d.git(&["add", "-A"]).git(&["commit", "-qm", "Quoting of semicolons in parameters"]);
    assert_eq!(build_json(&d)["history"]["new_commits"], 1);
    same_as_cold(&d, "a commit");
    // Three more, one bringing the deleted file back.
    d.write("gone.py", PARSER);
    d.git(&["add", "gone.py"]).git(&["commit", "-qm", "Restore the copy for the tokenizer"]);
    d.git(&["commit", "-q", "--allow-empty", "-m", "Nothing"]);
    d.write("c.py", "def unrelated():\n    return 1\n");
    d.git(&["commit", "-qam", "Unrelated: one"]);
    let s = build_json(&d);
    assert_eq!((&s["history"]["new_commits"], &s["parsed"]), (&3.into(), &2.into()), "{s}");
    same_as_cold(&d, "three commits");
    // A file the index did not have, at the same commit: the history holds it already.
    d.write("d.py", "def draft():\n    pass\n");
    assert_eq!(build_json(&d)["history"], "kept");
    same_as_cold(&d, "a new file");
    // Back, or onto another line of history (a merge): read again.
    d.git(&["reset", "-q", "--hard", "HEAD~2"]);
    assert_eq!(build_json(&d)["history"], "read");
    same_as_cold(&d, "a reset");
    d.git(&["checkout", "-q", "-b", "side", "HEAD~1"]);
    d.git(&["commit", "-q", "--allow-empty", "-m", "On the side"]);
    assert_eq!(build_json(&d)["history"], "read");
    d.git(&["checkout", "-q", "main"]);
    assert_eq!(build_json(&d)["history"], "read");
    d.git(&["merge", "-q", "--no-ff", "-m", "Merge the side", "side"]);
    assert_eq!(build_json(&d)["history"], "read");
    same_as_cold(&d, "a merge");
    d.git(&["commit", "-q", "--allow-empty", "-m", "After the merge"]);
    assert_eq!(build_json(&d)["history"]["new_commits"], 1);
    same_as_cold(&d, "a commit after a merge");
    d.cmd("cds-build").arg("--verify").ok();
}

/// A previous generation without the paths outside its file table (written before they were
/// kept), or whose history files are damaged, is not built on: the history is read again.
#[test]
fn a_history_that_cannot_be_built_on_is_read_again() {
    let d = twins("history-no-others");
    d.cmd("cds-build").arg("-q").ok();
    std::fs::remove_file(generation(&d).join("history-others.rkyv")).unwrap();
    d.git(&["commit", "-q", "--allow-empty", "-m", "Empty"]);
    assert_eq!(build_json(&d)["history"], "read");
    same_as_cold(&d, "a commit over an old generation");
    // A damaged byte that still validates: a letter of a word of the messages.
    let messages = generation(&d).join("messages.rkyv");
    let mut bytes = std::fs::read(&messages).unwrap();
    let at = bytes.windows(5).position(|w| w == b"draft").unwrap();
    bytes[at] = b'c';
    std::fs::write(&messages, bytes).unwrap();
    d.git(&["commit", "-q", "--allow-empty", "-m", "Empty again"]);
    assert_eq!(build_json(&d)["history"], "read");
    same_as_cold(&d, "a commit over damaged messages");
}

#[test]
fn no_git_no_work_tree_no_history() {
    // Outside any work tree (git stops looking above the test directory).
    let d = Dir::new("history-none");
    d.write("a.py", PARSER);
    let ceiling = d.root.parent().unwrap().to_path_buf();
    d.cmd("cds-build").arg("-q").env("GIT_CEILING_DIRECTORIES", &ceiling).ok();
    assert!(!has_history(&d));
    // git not installed: the build is the same, without history.
    let twins = twins("history-nogit");
    let empty = Dir::new("history-empty-path");
    twins.cmd("cds-build").arg("-q").env("PATH", &empty.root).ok();
    assert!(!has_history(&twins));
    let out = twins.cmd("cds-loc").args(["--json", "-"]).stdin("parse_header").ok();
    assert!(out.contains("a.py"), "{out}");
    assert!(Path::new(&twins.root).join(".git").exists());
}
