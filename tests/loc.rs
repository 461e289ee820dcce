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

#[test]
fn empty_binary_and_huge_input() {
    let d = indexed_demo("loc-bad");
    let err = d.cmd("cds-loc").arg("-").stdin("   \n\n").stderr_of(1);
    assert!(err.contains("the issue is empty"), "{err}");
    // Binary input: handled, nothing matched, no crash.
    let bin: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
    let out = d.cmd("cds-loc").args(["--json", "-"]).stdin(&bin).output();
    assert!(matches!(out.status.code(), Some(0) | Some(1)), "{out:?}");
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
