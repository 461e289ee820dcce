//! LocAgent's tools (`cds::locagent`, `cds-search --locagent`) against LocAgent's own outputs
//! (`tests/fixtures/locagent/tools.jsonl` and `tools_requests.jsonl`, copied from
//! `shared/parity/locagent_tools_{fixture,requests}.jsonl`) on the same repositories built
//! with `cds-build --compat locagent`.
//!
//! Every record whose output does not depend on LocAgent's retrieval models (its BM25 indexes
//! and rapidfuzz) must match byte for byte: exact IDs, `X.__init__`, name hits, `line_nums`,
//! patterns, test files, invalid names without candidates, the retrieve and tree calls, and
//! LocAgent's input errors (compared by message). The records listed in `DIFFERS_*` are the
//! ones that do depend on them; for those the output is still checked for LocAgent's shape.

use std::path::{Path, PathBuf};

use cds::index::Index;
use cds::locagent::{self, SearchArgs, TreeArgs};

use crate::util::{Dir, TestCommand, fixtures};

/// Fixture records whose output comes from LocAgent's retrieval models, and why.
const DIFFERS_FIXTURE: &[(usize, &str)] = &[
    (28, "candidates for an invalid start entity come from LocAgent's BM25 over entity IDs"),
    (30, "candidates for an invalid start entity come from LocAgent's BM25 over entity IDs"),
    // The fixture's chunk index has 9 chunks, fewer than LocAgent's top 10: every term that
    // reaches its content search raises `ValueError: kth(=-1) out of bounds (9)`.
    (49, "LocAgent raised in its chunk BM25 (a name with one hit goes on to it)"),
    (50, "LocAgent raised in its chunk BM25 (free text)"),
    (51, "LocAgent raised in its chunk BM25 (two names and their joint term)"),
];

/// requests 2.31.0 records whose output comes from LocAgent's retrieval models, and why.
const DIFFERS_REQUESTS: &[(usize, &str)] = &[
    (20, "candidates for an invalid start entity (BM25 over entity IDs)"),
    (21, "candidates for an invalid start entity (BM25 over entity IDs)"),
    (29, "a lower-case name hit, then a code-chunk BM25 snippet"),
    (32, "a name hit, then BM25 over entity IDs and code chunks add more"),
    (33, "a dotted name without a dictionary hit falls through to BM25"),
    (34, "a dotted name without a dictionary hit falls through to BM25"),
    (35, "a dotted name without a dictionary hit falls through to BM25"),
    (36, "free text: BM25, then the fuzzy fallback"),
    (37, "free text: BM25"),
    (38, "a constant (not a graph node): BM25"),
    (39, "free text: BM25"),
    (40, "no indexed token: the fuzzy fallback"),
    (41, "the `Class` prefix bug leaves `ar`, which goes to BM25"),
    (42, "module names that are not entities: BM25"),
    (43, "names with one hit, then BM25 on the joint term"),
    (47, "a name hit, then a code-chunk BM25 preview"),
    (49, "two name hits, then code-chunk BM25 previews"),
    (50, "three name hits, then a code-chunk BM25 preview"),
    (52, "a dotted name without a dictionary hit falls through to BM25"),
    (56, "LocAgent raised in its chunk BM25 (a term with no indexed token)"),
];

/// One record's call, run through the library: `Ok(text)`, or `Err(message)` for LocAgent's
/// input errors (its `AssertionError`s).
fn run_record(ix: &Index, r: &serde_json::Value) -> Result<String, String> {
    let a = &r["args"];
    let strings = |k: &str| -> Option<Vec<String>> {
        a.get(k)?
            .as_array()
            .map(|v| v.iter().filter_map(|s| s.as_str().map(String::from)).collect())
    };
    match r["tool"].as_str().unwrap_or("") {
        "search_code_snippets" => {
            let args = SearchArgs {
                search_terms: strings("search_terms").unwrap_or_default(),
                line_nums: a
                    .get("line_nums")
                    .and_then(|v| v.as_array())
                    .map(|v| v.iter().filter_map(|n| n.as_i64()).collect())
                    .unwrap_or_default(),
                file_path_or_pattern: Some(
                    a.get("file_path_or_pattern")
                        .and_then(|v| v.as_str())
                        .unwrap_or(locagent::DEFAULT_PATTERN)
                        .to_string(),
                ),
            };
            Ok(locagent::search_code_snippets(ix, &args).map_err(|e| e.to_string())?.text)
        }
        "get_entity_contents" => {
            Ok(locagent::get_entity_contents(ix, &strings("entity_names").unwrap_or_default()).text)
        }
        _ => {
            let args = TreeArgs {
                start_entities: strings("start_entities").unwrap_or_default(),
                direction: a["direction"].as_str().unwrap_or("downstream").to_string(),
                traversal_depth: a["traversal_depth"].as_i64().unwrap_or(2),
                entity_type_filter: strings("entity_type_filter"),
                dependency_type_filter: strings("dependency_type_filter"),
                max_lines: 0,
            };
            match locagent::explore_tree_structure(ix, &args).map_err(|e| e.to_string())? {
                Ok(o) => Ok(o.text),
                Err(e) => Err(e.0),
            }
        }
    }
}

/// Builds `repo` with `--compat locagent` into a throwaway index and opens it.
fn compat_index(name: &str, repo: &Path) -> (Dir, Index) {
    let d = Dir::new(name);
    let index = d.path("index");
    TestCommand::new("cds-build", &d.root)
        .args(["--compat", "locagent", "--index"])
        .arg(&index)
        .arg(repo)
        .stderr_of(0);
    let ix = Index::discover(Some(&index)).expect("open the index");
    (d, ix)
}

/// Runs every record of `expected` on `ix`: the records not in `differs` must match LocAgent
/// byte for byte (errors by message); the others must still have LocAgent's shape.
fn check(ix: &Index, expected: &Path, differs: &[(usize, &str)]) {
    let text = std::fs::read_to_string(expected).unwrap();
    let (mut same, mut failures) = (0, Vec::new());
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let got = run_record(ix, &r);
        if differs.iter().any(|d| d.0 == i) {
            // Not LocAgent's results, but LocAgent's format.
            let text = got.unwrap_or_else(|e| panic!("record {i} {}: error {e}", r["args"]));
            let shaped = match r["tool"].as_str() {
                Some("search_code_snippets") => {
                    text.is_empty() || text.contains("##Searching for term ")
                }
                _ => text.contains("The entity name `"),
            };
            assert!(shaped, "record {i} {}: not LocAgent's format:\n{text}", r["args"]);
            continue;
        }
        let want: Result<String, String> = match r["output"].as_str() {
            Some(o) => Ok(o.to_string()),
            None => Err(r["error"]
                .as_str()
                .unwrap_or("")
                .trim_start_matches("AssertionError: ")
                .to_string()),
        };
        if got == want {
            same += 1;
        } else {
            failures.push(format!(
                "record {i}: {} {}\n--- LocAgent\n{}\n--- cds\n{}",
                r["tool"],
                r["args"],
                want.unwrap_or_else(|e| format!("error: {e}")),
                got.unwrap_or_else(|e| format!("error: {e}"))
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} records differ ({same} match):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(same >= 40, "only {same} records compared");
}

#[test]
fn locagent_tools_match_on_the_fixture() {
    let (_d, ix) = compat_index("la-fixture", &fixtures().join("locagent/repo"));
    check(&ix, &fixtures().join("locagent/tools.jsonl"), DIFFERS_FIXTURE);
}

/// requests 2.31.0, when `CDS_PARITY_CORPORA` holds its sdist (as for the graph parity).
#[test]
fn locagent_tools_match_on_requests() {
    let Some(base) = std::env::var_os("CDS_PARITY_CORPORA") else {
        eprintln!("skipping LocAgent tool parity on requests: set CDS_PARITY_CORPORA");
        return;
    };
    let root = PathBuf::from(base).join("requests-2.31.0");
    assert!(root.is_dir(), "CDS_PARITY_CORPORA has no requests-2.31.0/");
    let (_d, ix) = compat_index("la-requests", &root);
    check(&ix, &fixtures().join("locagent/tools_requests.jsonl"), DIFFERS_REQUESTS);
}

#[test]
fn fixture_records_beyond_locagent() {
    let (_d, ix) = compat_index("la-more", &fixtures().join("locagent/repo"));
    // A name with more than three hits is folded; a glob cuts them.
    let args = SearchArgs { search_terms: vec!["get".into()], ..SearchArgs::default() };
    let out = locagent::search_code_snippets(&ix, &args).unwrap();
    assert!(out.text.starts_with("##Searching for term \"get\"...\n### Search Result:\n"));
    assert!(out.entities.contains(&"pkg/util.py:get".to_string()), "{:?}", out.entities);
    // The tree's line bound (a server's, not LocAgent's).
    let tree = TreeArgs {
        start_entities: vec!["/".into()],
        traversal_depth: -1,
        max_lines: 3,
        ..TreeArgs::default()
    };
    let out = locagent::explore_tree_structure(&ix, &tree).unwrap().unwrap();
    assert!(out.text.lines().count() <= 5, "{}", out.text);
    // Unknown filters match nothing, as in LocAgent; an empty list too.
    for filter in [vec!["method".to_string()], vec![]] {
        let t = TreeArgs {
            start_entities: vec!["pkg/core.py".into()],
            entity_type_filter: Some(filter),
            ..TreeArgs::default()
        };
        assert_eq!(locagent::explore_tree_structure(&ix, &t).unwrap().unwrap().text, "pkg/core.py");
    }
    // Paths outside the repository are invalid names, never files read from disk.
    for name in ["../../etc/passwd", "/etc/passwd", "pkg/../../../etc/passwd"] {
        let out = locagent::get_entity_contents(&ix, &[name.to_string()]);
        assert!(out.text.contains("Invalid name."), "{name}: {}", out.text);
    }
}

/// `cds-search --locagent`: the query words are LocAgent's search terms, `-g` its pattern.
#[test]
fn cds_search_locagent_flag() {
    let d = Dir::fixture("la-cli", "locagent/repo");
    d.cmd("cds-build").args(["--compat", "locagent"]).stderr_of(0);
    let text = std::fs::read_to_string(fixtures().join("locagent/tools.jsonl")).unwrap();
    let records: Vec<serde_json::Value> =
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Record 39: two exact IDs, one argument each.
    let out = d
        .cmd("cds-search")
        .args(["--locagent", "pkg/core.py:Engine.value", "pkg/util.py:run"])
        .ok();
    eqnice!(format!("{}\n", records[39]["output"].as_str().unwrap()), out);
    // Record 41: a pattern that matches no file.
    let out =
        d.cmd("cds-search").args(["--locagent", "-g", "nosuchdir/**", "pkg/util.py:get"]).ok();
    eqnice!(format!("{}\n", records[41]["output"].as_str().unwrap()), out);
    // Record 43, from stdin: one term per line.
    let out =
        d.cmd("cds-search").arg("--locagent").stdin("tests/test_x.py\npkg/core.py:make\n").ok();
    eqnice!(format!("{}\n", records[43]["output"].as_str().unwrap()), out);
    // Only a test file: LocAgent's refusal, and nothing found.
    let out = d.cmd("cds-search").args(["--locagent", "test_make"]).expect_code(1);
    eqnice!(format!("{}\n", records[42]["output"].as_str().unwrap()), out);
}

/// `--compat locagent` reads `.py` files only, as LocAgent does: another language's files are
/// neither nodes nor targets of its name-keyed linking.
#[test]
fn compat_mode_reads_python_files_only() {
    let d = Dir::new("la-mixed");
    d.write("app/main.py", "from app.util import end\n\ndef run():\n    return end(1)\n")
        .write("app/util.py", "def end(x):\n    return x\n")
        .write("app/stub.pyi", "def end(x: int) -> int: ...\n")
        .write("web/util.js", "function end(x) {\n  return x;\n}\nmodule.exports = { end };\n")
        .write("src/lib.rs", "pub fn end(x: u8) -> u8 {\n    x\n}\n");
    d.cmd("cds-build").args(["--compat", "locagent"]).stderr_of(0);
    let ids = d.cmd("cds-search").args(["--ids", "-n", "50", "end"]).ok();
    assert!(ids.contains("app/util.py:end"), "{ids}");
    for other in ["web/", "src/", ".pyi"] {
        assert!(!ids.contains(other), "{other}: {ids}");
    }
    let callees = d.cmd("cds-trav").args(["--ids", "-r", "invoke", "app/main.py:run"]).ok();
    eqnice!("app/main.py:run\napp/util.py:end\n", callees);
}
