//! cds-loc: the fixed JSON interface, the text view, and bad input.

use crate::util::Dir;

fn indexed_demo(name: &str) -> Dir {
    let d = Dir::demo(name);
    d.cmd("cds-build").arg("-q").ok();
    d
}

const ISSUE: &str = "XSS in the user profile page\n\nThe bio is sanitized, but `Profile.render` \
    puts the user's display name into the page and `sanitize_user_input` is not applied to it \
    when the name contains markup.\n\n```\n>>> Profile(user).render()\n'<h1><script>...'\n```\n";

#[test]
fn json_interface_has_every_level_ranked() {
    let d = indexed_demo("loc-json");
    d.write("issue.md", ISSUE);
    let out = d.cmd("cds-loc").args(["--json", "issue.md"]).ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let list = |k: &str| -> Vec<String> {
        v[k].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
    };
    let files = list("found_files");
    let modules = list("found_modules");
    let entities = list("found_entities");
    assert_eq!(files[0], "shop/models.py", "{files:?}");
    assert!(modules.contains(&"shop/models.py:Profile".to_string()), "{modules:?}");
    assert!(entities.iter().take(3).any(|e| e == "shop/models.py:Profile.render"), "{entities:?}");
    // Modules are top-level names; entities are functions only; files are paths.
    assert!(
        modules.iter().all(|m| m.split(':').nth(1).is_some_and(|q| !q.contains('.'))),
        "{modules:?}"
    );
    assert!(!entities.contains(&"shop/models.py:Profile".to_string()));
    assert!(files.iter().all(|f| !f.contains(':')));
    // Tests are never locations.
    assert!(!files.iter().any(|f| f.starts_with("tests/")), "{files:?}");
    let locs = v["locations"].as_array().unwrap();
    assert!(!locs.is_empty());
    for l in locs {
        assert!(l["id"].is_string() && l["kind"].is_string() && l["score"].is_number());
        assert!(!l["reasons"].as_array().unwrap().is_empty(), "{l}");
    }
}

#[test]
fn limit_and_stdin() {
    let d = indexed_demo("loc-limit");
    let out = d.cmd("cds-loc").args(["--json", "-n", "2"]).stdin(ISSUE).ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for k in ["found_files", "found_modules", "found_entities"] {
        assert!(v[k].as_array().unwrap().len() <= 2, "{k}: {v}");
    }
    // -n 0 is every candidate (as cds-search -n 0 is every hit), not none.
    let all = d.cmd("cds-loc").args(["--ids", "-n", "0", "-l", "function"]).stdin(ISSUE).ok();
    let ten = d.cmd("cds-loc").args(["--ids", "-l", "function"]).stdin(ISSUE).ok();
    assert!(all.lines().count() >= ten.lines().count() && ten.lines().count() > 0, "{all}");
    assert!(all.starts_with(ten.as_str()), "{all}\n---\n{ten}");
}

#[test]
fn text_view_for_people() {
    let d = indexed_demo("loc-text");
    let out = d.cmd("cds-loc").arg("-").stdin(ISSUE).ok();
    assert!(out.contains("# Files"), "{out}");
    assert!(out.contains("# Functions and methods"), "{out}");
    assert!(out.contains("shop/models.py:Profile.render"), "{out}");
    assert!(out.contains("def render(self):"), "{out}");
}

/// The text view is the records every tool prints, so it pipes into the others as theirs do;
/// --ids lists each location once, files first; --level keeps one level; -f names the issue.
#[test]
fn locations_pipe_into_the_other_tools() {
    let d = indexed_demo("loc-pipe");
    d.write("issue.md", ISSUE);
    let text = d.cmd("cds-loc").arg("issue.md").ok();
    let render = text
        .lines()
        .find(|l| l.starts_with("shop/models.py:Profile.render\t"))
        .unwrap_or_else(|| panic!("no record of Profile.render in:\n{text}"));
    let fields: Vec<&str> = render.split('\t').collect();
    assert_eq!((fields[1], fields[3]), ("function", "def render(self):"), "{render}");
    assert!(fields[2].split_once('-').is_some(), "lines as start-end: {render}");
    assert!(fields[4].contains(' '), "score, then the strongest reason: {render}");
    // Every line but the headings and the blank lines between levels is an entity.
    let got = d.cmd("cds-get").arg("--ids").stdin(text.as_str()).ok();
    let records: Vec<&str> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(got.lines().collect::<Vec<_>>(), records, "{got}");
    // The functions only, as bare IDs, into cds-get: the code of the best one.
    let ids = d.cmd("cds-loc").args(["--ids", "-l", "function", "-n", "1", "-f", "issue.md"]).ok();
    assert_eq!(ids, "shop/models.py:Profile.render\n");
    let out = crate::pipeline::sh(&d, "cds-loc -l function -n1 issue.md | cds-get | head -4");
    let code = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    assert!(code.contains("def render(self):"), "{code}");
    assert!(!code.contains("# Functions"), "{code}");
    // --ids: no repeats although a function can rank as a module and as a function too.
    let all = d.cmd("cds-loc").args(["--ids", "issue.md"]).ok();
    let mut seen = std::collections::HashSet::new();
    assert!(all.lines().all(|l| seen.insert(l)), "{all}");
    assert_eq!(all.lines().next(), Some("shop/models.py"), "{all}");
    // -0 for xargs -0.
    let nul = d.cmd("cds-loc").args(["--ids", "-0", "-l", "file", "-n", "2", "issue.md"]).ok();
    assert!(nul.ends_with('\0') && !nul.contains('\n'), "{nul:?}");
    // --level is no part of the fixed JSON object; the issue is given once.
    let err = d.cmd("cds-loc").args(["--json", "-l", "file", "issue.md"]).stderr_of(2);
    assert!(err.contains("--level does not apply to --json"), "{err}");
    let err = d.cmd("cds-loc").args(["-f", "issue.md", "issue.md"]).stderr_of(2);
    assert!(err.contains("give the issue once"), "{err}");
}

#[test]
fn empty_binary_and_huge_input() {
    let d = indexed_demo("loc-bad");
    // An empty issue (`echo -n | cds-loc`, an empty file, only blank lines) is a usage error:
    // one line saying how to give it, 2, and no empty headings on stdout.
    d.write("empty.md", "");
    let runs: [(&[&str], &str); 4] =
        [(&[], ""), (&["-"], "   \n\n"), (&["empty.md"], ""), (&["--json", "-"], "\n")];
    for (args, stdin) in runs {
        let out = d.cmd("cds-loc").args(args).stdin(stdin).output();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(
            err.lines().next(),
            Some(
                "cds-loc: the issue is empty: give its text (title, description, traceback) as FILE or on stdin"
            )
        );
        assert!(out.stdout.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
    }
    // Binary input: one error naming the problem, 2, no crash.
    let bin: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
    let err = d.cmd("cds-loc").args(["--json", "-"]).stdin(&bin).stderr_of(2);
    assert!(err.starts_with("cds-loc: stdin is binary data, not text"), "{err}");
    // A huge issue is read up to a bound and answered.
    let huge = ISSUE.repeat(40_000);
    assert!(huge.len() > 4 << 20);
    let out = d.cmd("cds-loc").args(["--json", "-"]).stdin(huge).ok();
    assert!(out.contains("found_files"));
    // No index: the index error.
    let e = Dir::new("loc-noindex");
    e.write("issue.md", ISSUE);
    let err = e.cmd("cds-loc").arg("issue.md").stderr_of(2);
    assert!(err.contains("no index found"), "{err}");
}
