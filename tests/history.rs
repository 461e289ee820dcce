//! The repository's history: read through git by cds-build, kept per file in the index, read
//! again only when HEAD moves, and used by cds-loc to rank a recently changed file first, and
//! a file whose past commits were described in the issue's words.

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
fn history_is_read_again_only_when_head_moves() {
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
    // Edits keep the history of the same HEAD (carried over, or read again for a file the
    // previous generation did not have): always what a cold build reads.
    d.write("a.py", format!("{PARSER}\ndef other():\n    pass\n"));
    d.cmd("cds-build").arg("-q").ok();
    std::fs::remove_file(d.path("b.py")).unwrap();
    d.cmd("cds-build").arg("-q").ok();
    d.write("b.py", PARSER);
    d.cmd("cds-build").arg("-q").ok();
    d.cmd("cds-build").arg("--verify").ok();
    d.cmd("cds-build").args(["-q", "--index", "cold"]).ok();
    let cold = std::fs::read_to_string(d.path("cold/CURRENT")).unwrap();
    for file in ["history.rkyv", "messages.rkyv"] {
        let cold = std::fs::read(d.path("cold").join(cold.trim()).join(file)).unwrap();
        assert_eq!(std::fs::read(generation(&d).join(file)).unwrap(), cold, "{file}");
    }
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
