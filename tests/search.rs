//! cds-search: every query form, filter, view and bad input, on real indexes.

use crate::util::Dir;

fn indexed_demo(name: &str) -> Dir {
    let d = Dir::demo(name);
    d.cmd("cds-build").arg("-q").ok();
    d
}

/// The IDs of a search, in order.
fn ids(d: &Dir, args: &[&str]) -> Vec<String> {
    d.cmd("cds-search").arg("--ids").args(args).ok().lines().map(String::from).collect()
}

/// A small repository for ranking: names that differ by case, snake and camel forms.
fn ranking_repo(name: &str) -> Dir {
    let d = Dir::new(name);
    d.write(
        "users/accounts.py",
        "def get_user_name(user):\n    \"\"\"The display name of a user.\"\"\"\n    return user.first + user.last\n\n\
def get_user_email(user):\n    return user.email\n\nclass UserName:\n    pass\n",
    )
    .write(
        "users/profile.py",
        "from users.accounts import get_user_name\n\nclass Profile:\n    def render(self, user):\n        \
return '<b>' + get_user_name(user) + '</b>'\n\n    def username_label(self):\n        return 'name'\n",
    )
    .write("util/text.py", "def shorten(text, width):\n    # cut long user input to width\n    return text[:width]\n")
    .write("tests/test_accounts.py", "def test_get_user_name():\n    assert True\n");
    d.cmd("cds-build").arg("-q").ok();
    d
}

#[test]
fn exact_names_rank_first_and_case_wins() {
    let d = ranking_repo("search-exact");
    let got = ids(&d, &["UserName"]);
    assert_eq!(got[0], "users/accounts.py:UserName", "{got:?}");
    let got = ids(&d, &["get_user_name"]);
    assert_eq!(got[0], "users/accounts.py:get_user_name", "{got:?}");
}

/// Matches in the query's case outrank a match ignoring case however many share the name
/// (express: two `sendfile`s and one `sendFile`, queried as `sendfile`).
#[test]
fn exact_case_matches_outrank_a_lone_match_ignoring_case() {
    let d = Dir::new("search-case-count");
    d.write("res.py", "def sendfile(p):\n    return p\n\nclass Res:\n    def sendfile(self, p):\n        return p\n\n    def sendFile(self, p):\n        return sendfile(p)\n");
    d.cmd("cds-build").arg("-q").ok();
    let got = ids(&d, &["sendfile"]);
    let mut first = got[..2].to_vec();
    first.sort();
    assert_eq!(first, ["res.py:Res.sendfile", "res.py:sendfile"], "{got:?}");
    assert_eq!(got[2], "res.py:Res.sendFile", "{got:?}");
    let got = ids(&d, &["sendFile"]);
    assert_eq!(got[0], "res.py:Res.sendFile", "{got:?}");
}

#[test]
fn camel_case_queries_find_snake_case_code() {
    let d = ranking_repo("search-camel");
    let got = ids(&d, &["-n", "3", "getUserName"]);
    assert!(got.iter().take(2).any(|g| g == "users/accounts.py:get_user_name"), "{got:?}");
}

#[test]
fn qualified_names_ids_and_paths() {
    let d = indexed_demo("search-qualified");
    assert_eq!(ids(&d, &["Cart.total"])[0], "shop/cart.py:Cart.total");
    assert_eq!(ids(&d, &["cart.Cart.total"])[0], "shop/cart.py:Cart.total");
    assert_eq!(ids(&d, &["shop/cart.py:Cart.total"])[0], "shop/cart.py:Cart.total");
    assert_eq!(ids(&d, &["shop/cart.py"])[0], "shop/cart.py");
    // An absolute path (as in a traceback) is matched by its longest known suffix.
    assert_eq!(ids(&d, &["/home/me/src/shop/cart.py"])[0], "shop/cart.py");
}

#[test]
fn free_text_and_joined_words() {
    let d = indexed_demo("search-text");
    let got = ids(&d, &["sanitize", "user", "input"]);
    assert_eq!(got[0], "shop/security.py:sanitize_user_input", "{got:?}");
    let got = ids(&d, &["-t", "function", "apply discount"]);
    assert_eq!(got[0], "shop/pricing.py:apply_discount", "{got:?}");
    // BM25 over content: words that are nowhere in names.
    let got = ids(&d, &["-t", "function", "percentage whole cents"]);
    assert_eq!(got[0], "shop/pricing.py:apply_discount", "{got:?}");
}

#[test]
fn fuzzy_names_fix_one_typo() {
    let d = indexed_demo("search-fuzzy");
    let out = d.cmd("cds-search").args(["--json", "-n", "3", "aply_discount"]).ok();
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["id"], "shop/pricing.py:apply_discount");
    assert_eq!(first["reasons"][0], "fuzzy d=1");
    // Two letters swapped count as one edit.
    let out = d.cmd("cds-search").args(["--json", "-n", "3", "apply_dsicount"]).ok();
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["id"], "shop/pricing.py:apply_discount");
    assert_eq!(first["reasons"][0], "fuzzy d=1");
}

#[test]
fn whole_issues_from_a_file_and_stdin() {
    let d = indexed_demo("search-issue");
    let issue = "Cart total ignores the tax region\n\nWhen I call `Cart.total(region=\"eu\")` the \
        rate stays at 20%.\n\nTraceback (most recent call last):\n  File \"/srv/app/shop/cart.py\", line 23, in total\n    \
        rate = self.taxes.rate_for(region)\nKeyError: 'eu'\n";
    d.write("issue.md", issue);
    let from_file = ids(&d, &["-n", "3", "-f", "issue.md"]);
    assert_eq!(from_file[0], "shop/cart.py:Cart.total", "{from_file:?}");
    let from_stdin: Vec<String> = d
        .cmd("cds-search")
        .args(["--ids", "-n", "3"])
        .stdin(issue)
        .ok()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(from_file, from_stdin);
}

#[test]
fn issues_find_code_by_other_forms_of_their_words() {
    // The issue says "archiving" and "snapshots"; the code says `archive` and `snapshot`. No
    // word of the issue is a name or a term of the code in the form the issue uses it.
    let d = Dir::new("search-forms");
    d.write(
        "store/vault.py",
        "def archive_snapshot(snapshot, target):\n    target.write(snapshot.payload)\n",
    )
    .write("store/meter.py", "def usage_report(store):\n    return store.usage\n")
    .write("store/clock.py", "def elapsed_seconds(start, stop):\n    return stop - start\n");
    d.cmd("cds-build").arg("-q").ok();
    let issue = "Archiving fails for large snapshots\n\nWhen archiving snapshots over 2 GB the \
        process halts halfway and leaves a truncated copy behind.\n";
    d.write("issue.md", issue);
    let got = ids(&d, &["-n", "3", "-f", "issue.md"]);
    assert_eq!(got[0], "store/vault.py:archive_snapshot", "{got:?}");
    // Terms an update adds (kept beside the dictionary until a later build merges them).
    d.write("store/press.py", "def compress_bytes(data):\n    return data\n");
    d.cmd("cds-build").arg("-q").ok();
    d.write("issue.md", "Compressing fails\n\nCompressing payloads over 2 GB halts halfway.\n");
    let got = ids(&d, &["-n", "3", "-f", "issue.md"]);
    assert_eq!(got[0], "store/press.py:compress_bytes", "{got:?}");
}

#[test]
fn filters_kind_glob_tests_and_limit() {
    let d = ranking_repo("search-filters");
    for id in ids(&d, &["-t", "class", "user"]) {
        assert!(id == "users/accounts.py:UserName" || id == "users/profile.py:Profile", "{id}");
    }
    for id in ids(&d, &["-g", "users/profile.py", "name"]) {
        assert!(id.starts_with("users/profile.py"), "{id}");
    }
    // Tests are hidden, and the output says so.
    let out = d.cmd("cds-search").args(["--ids", "get_user_name"]).output();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stdout.contains("tests/"), "{stdout}");
    assert!(stderr.contains("in test files left out (--tests shows them)"), "{stderr}");
    assert!(ids(&d, &["--tests", "get_user_name"]).iter().any(|i| i.starts_with("tests/")));
    assert_eq!(ids(&d, &["-n", "1", "user"]).len(), 1);
}

#[test]
fn views_lines_json_preview_full_and_null() {
    let d = indexed_demo("search-views");
    let line = d.cmd("cds-search").args(["-n", "1", "apply_discount"]).ok();
    let fields: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(fields[0], "shop/pricing.py:apply_discount");
    assert_eq!(fields[1], "function");
    assert_eq!(fields[2], "16-18");
    assert_eq!(fields[3], "def apply_discount(amount, percent):");
    assert!(fields[4].ends_with("exact name"), "{line}");

    let json = d.cmd("cds-search").args(["--json", "-n", "1", "apply_discount"]).ok();
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["id"], "shop/pricing.py:apply_discount");
    assert!(v["score"].as_f64().unwrap() > 0.0);
    assert_eq!(v["reasons"][0], "exact name");
    // JSON keeps "id" first, so it reads well in jq and logs.
    assert!(json.starts_with("{\"id\":"), "{json}");

    let preview = d.cmd("cds-search").args(["--view", "preview", "-n", "1", "apply_discount"]).ok();
    assert!(preview.contains("Apply a percentage discount"), "{preview}");
    let full = d.cmd("cds-search").args(["--view", "full", "-n", "1", "Cart"]).ok();
    assert!(full.contains("return Money(amount.cents * (100 + rate) // 100)"), "{full}");

    let nul = d.cmd("cds-search").args(["--ids", "-0", "-n", "2", "Money"]).ok();
    assert_eq!(nul.matches('\0').count(), 2, "{nul:?}");
}

#[test]
fn search_feeds_the_other_tools() {
    let d = indexed_demo("search-pipe");
    let hits = d.cmd("cds-search").args(["-n", "1", "-t", "function", "sanitize"]).ok();
    let callers =
        d.cmd("cds-trav").args(["-h1", "-r", "invoke", "-d", "up", "--ids"]).stdin(&hits).ok();
    assert!(callers.contains("shop/views.py:checkout"), "{callers}");
    let json = d.cmd("cds-search").args(["--json", "-n", "2", "Money"]).ok();
    let code = d.cmd("cds-get").stdin(&json).ok();
    assert!(code.contains("class Money:"), "{code}");
}

#[test]
fn locagent_view() {
    let d = indexed_demo("search-locagent");
    let out = d.cmd("cds-search").args(["--locagent", "apply_discount"]).ok();
    assert!(
        out.starts_with("##Searching for term \"apply_discount\"...\n### Search Result:\n"),
        "{out}"
    );
    assert!(out.contains("Found function `shop/pricing.py:apply_discount`."), "{out}");
}

#[test]
fn bad_input() {
    let d = indexed_demo("search-bad");
    let err = d.cmd("cds-search").arg("   ").stderr_of(2);
    assert!(err.contains("empty query"), "{err}");
    let err = d.cmd("cds-search").args(["the", "of", "and"]).stderr_of(1);
    assert!(err.contains("only common words"), "{err}");
    let err = d.cmd("cds-search").arg("zzqqxxvvwwyy").stderr_of(1);
    assert!(err.contains("no match"), "{err}");
    // Non-UTF-8 bytes in a query: handled, no crash.
    let out = d
        .cmd("cds-search")
        .args(["-f", "-"])
        .stdin(b"caf\xe9 \xff\xfe Money\n".as_slice())
        .output();
    assert!(matches!(out.status.code(), Some(0) | Some(1)), "{out:?}");
    // A 100 KB issue is answered (and bounded).
    let big = "The cart total is wrong when a discount applies. ".repeat(2100);
    assert!(big.len() > 100_000);
    let out = d.cmd("cds-search").args(["--ids", "-n", "3"]).stdin(big).ok();
    assert!(!out.is_empty());
    // A missing index is the index error; a bad kind is a usage error.
    let e = Dir::new("search-noindex");
    let err = e.cmd("cds-search").arg("Money").stderr_of(2);
    assert!(err.contains("no index found") && err.contains("cds-build"), "{err}");
    // --index names one directory: nothing above it is looked at, and the message says so.
    std::fs::create_dir_all(e.path("sub")).unwrap();
    let err = d.cmd("cds-search").arg("--index").arg(e.path("sub")).arg("Money").stderr_of(2);
    assert!(err.contains("no index found at") && !err.contains("above"), "{err}");
    let err = d.cmd("cds-search").args(["-t", "module", "x"]).stderr_of(2);
    assert!(err.contains("unknown kind"), "{err}");
}
