//! cds-trav: the BFS views, filters, bounds, errors, and byte parity of `--tree` with
//! LocAgent's `explore_tree_structure` on the parity fixture.

use crate::util::{Dir, TestCommand, fixtures};

/// The demo repository, indexed.
fn demo(name: &str) -> Dir {
    let d = Dir::demo(name);
    d.cmd("cds-build").stderr_of(0);
    d
}

fn trav(d: &Dir, args: &[&str]) -> String {
    d.cmd("cds-trav").args(args).ok()
}

#[test]
fn lines_view_says_how_each_entity_was_reached() {
    let d = demo("trav-lines");
    let got = trav(&d, &["shop/cart.py:Cart.total"]);
    eqnice!(
        "\
shop/cart.py:Cart.total\tfunction\t21-24\tdef total(self, discount=0, region=\"default\"):\thop=0
shop/pricing.py:apply_discount\tfunction\t16-18\tdef apply_discount(amount, percent):\thop=1 invoked-by=shop/cart.py:Cart.total
shop/cart.py:Cart.subtotal\tfunction\t15-19\tdef subtotal(self):\thop=1 invoked-by=shop/cart.py:Cart.total
shop/pricing.py:TaxTable.rate_for\tfunction\t24-25\tdef rate_for(self, region):\thop=1 invoked-by=shop/cart.py:Cart.total
shop/pricing.py:Money\tclass\t4-9\tclass Money:\thop=1 invoked-by=shop/cart.py:Cart.total
shop/pricing.py:Money.__init__\tfunction\t5-6\tdef __init__(self, cents):\thop=1 invoked-by=shop/cart.py:Cart.total found-by=value-flow
",
        got
    );
}

#[test]
fn upward_walks_and_confidence() {
    let d = demo("trav-up");
    let got =
        trav(&d, &["-d", "up", "-h2", "-r", "invoke", "shop/security.py:sanitize_user_input"]);
    eqnice!(
        "\
shop/security.py:sanitize_user_input\tfunction\t14-17\tdef sanitize_user_input(text, max_length=200):\thop=0
shop/models.py:User.display_name\tfunction\t19-20\tdef display_name(self):\thop=1 invokes=shop/security.py:sanitize_user_input
shop/models.py:Profile.update_bio\tfunction\t30-32\tdef update_bio(self, text):\thop=1 invokes=shop/security.py:sanitize_user_input
shop/views.py:checkout\tfunction\t22-26\tdef checkout(request):\thop=1 invokes=shop/security.py:sanitize_user_input
shop/models.py:Profile.render\tfunction\t34-36\tdef render(self):\thop=2 invokes=shop/models.py:User.display_name found-by=value-flow
shop/views.py:update_profile\tfunction\t15-19\tdef update_profile(request):\thop=2 invokes=shop/models.py:Profile.update_bio conf=guess
",
        got
    );
}

#[test]
fn hops_zero_one_and_unlimited() {
    let d = demo("trav-hops");
    let root = "shop/pricing.py:apply_discount";
    assert_eq!(trav(&d, &["-h0", "--ids", root]), format!("{root}\n"));
    let one = trav(&d, &["--ids", root]);
    assert_eq!(
        one,
        format!(
            "{root}\nshop/pricing.py:round_money\nshop/pricing.py:Money\nshop/pricing.py:Money.__init__\n"
        )
    );
    // Money's methods are two contain hops away from Money... but only down from Money.
    let all = trav(&d, &["--ids", "-h", "-1", root]);
    assert!(all.contains("shop/pricing.py:Money.__add__\n"), "{all}");
    assert_eq!(all, trav(&d, &["--ids", "--hops=-1", root]));
    assert_eq!(all, trav(&d, &["--ids", "-h", "50", root]));
}

#[test]
fn kind_and_relation_filters() {
    let d = demo("trav-filters");
    // Only classes: the walk does not pass through functions or files.
    let got = trav(&d, &["--ids", "-h2", "-t", "class", "shop/cart.py:Cart.total"]);
    eqnice!("shop/cart.py:Cart.total\nshop/pricing.py:Money\n", got);
    // Comma lists, repeated flags and LocAgent's spellings.
    let a = trav(&d, &["--ids", "-d", "up", "-r", "contains,imports", "shop/cart.py:Cart"]);
    let b = trav(
        &d,
        &["--ids", "-d", "upstream", "-r", "contain", "-r", "import", "shop/cart.py:Cart"],
    );
    eqnice!(a, b);
    eqnice!("shop/cart.py:Cart\nshop/cart.py\nshop/__init__.py\nshop/views.py\n", a);
    let inherit = trav(&d, &["--ids", "-d", "up", "-r", "inherit", "shop/models.py:Model"]);
    eqnice!("shop/models.py:Model\nshop/models.py:User\nshop/models.py:Profile\n", inherit);
}

#[test]
fn tests_are_left_out_unless_asked_for() {
    let d = demo("trav-tests");
    let args = ["--ids", "-d", "up", "-r", "invoke", "shop/views.py:place_order"];
    eqnice!("shop/views.py:place_order\nshop/views.py:checkout\n", trav(&d, &args));
    let mut with = args.to_vec();
    with.push("--tests");
    eqnice!(
        "shop/views.py:place_order\nshop/views.py:checkout\ntests/test_views.py:test_place_order\n",
        trav(&d, &with)
    );
    // A test entity given as a start point is walked.
    let got = trav(&d, &["--ids", "-r", "invoke", "tests/test_views.py:test_place_order"]);
    assert!(got.starts_with("tests/test_views.py:test_place_order\nshop/"), "{got}");
}

#[test]
fn both_directions_keep_each_branch_going_its_way() {
    let d = demo("trav-both");
    let got = trav(&d, &["--tree", "-h2", "-d", "both", "shop/cart.py:Cart.total"]);
    eqnice!(
        "\
shop/cart.py:Cart.total
├── invoke ── shop/pricing.py:apply_discount
│             ├── invoke ── shop/pricing.py:round_money
│             ├── invoke ── shop/pricing.py:Money
│             └── invoke ── shop/pricing.py:Money.__init__
├── invoke ── shop/cart.py:Cart.subtotal
│             ├── invoke ── shop/pricing.py:Money
│             ├── invoke ── shop/pricing.py:Money.__init__
│             └── invoke ── shop/pricing.py:Money.__add__
├── invoke ── shop/pricing.py:TaxTable.rate_for
├── invoke ── shop/pricing.py:Money
├── invoke ── shop/pricing.py:Money.__init__
├── contain-by ── shop/cart.py:Cart
│                 ├── contain-by ── shop/cart.py
│                 ├── import-by ── shop/__init__.py
│                 ├── import-by ── shop/views.py
│                 └── invoke-by ── shop/views.py:checkout
└── invoke-by ── shop/views.py:place_order
                 ├── contain-by ── shop/views.py
                 └── invoke-by ── shop/views.py:checkout
",
        got
    );
    // The same walk breadth-first reaches each entity once.
    let ids = trav(&d, &["--ids", "-h2", "-d", "both", "shop/cart.py:Cart.total"]);
    let lines: Vec<&str> = ids.lines().collect();
    let mut unique = lines.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(lines.len(), unique.len(), "{ids}");
    // Callers' callers are there; callers' other callees are not.
    assert!(lines.contains(&"shop/views.py:checkout"));
    assert!(!lines.contains(&"shop/security.py:sanitize_user_input"), "{ids}");
}

#[test]
fn json_records() {
    let d = demo("trav-json");
    let out = trav(
        &d,
        &["--json", "-h2", "-d", "up", "-r", "invoke", "shop/models.py:User.display_name"],
    );
    let recs: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(recs.len(), 4, "{out}");
    assert_eq!(recs[0]["id"], "shop/models.py:User.display_name");
    assert_eq!(recs[0]["hop"], 0);
    assert!(recs[0].get("via").is_none() && recs[0].get("from").is_none());
    let r = &recs[1];
    assert_eq!(r["id"], "shop/models.py:Profile.render");
    assert_eq!(
        (r["hop"].as_u64(), r["via"].as_str(), r["dir"].as_str()),
        (Some(1), Some("invoke"), Some("up"))
    );
    assert_eq!(r["from"], "shop/models.py:User.display_name");
    // `self.user = user` in Profile.__init__, with `Profile(self)` in User.__init__: the value
    // flow knows the receiver the name-based rules could only guess.
    assert_eq!((r["meta"].as_u64(), r["conf"].as_str()), (Some(240), Some("exact")));
    assert_eq!(r["found_by"], "value-flow");
    for field in ["kind", "path", "name", "start", "end", "fold", "test"] {
        assert!(r.get(field).is_some(), "{field} missing: {r}");
    }
    for r in &recs[2..] {
        assert_eq!(
            (r["from"].as_str(), r["hop"].as_u64()),
            (Some("shop/models.py:Profile.render"), Some(2))
        );
    }
    assert_eq!(
        (recs[2]["id"].as_str(), recs[2]["conf"].as_str()),
        (Some("shop/views.py:profile_page"), Some("exact"))
    );
}

#[test]
fn edges_view_shows_confidence() {
    let d = demo("trav-edges");
    let got = trav(
        &d,
        &["--edges", "-d", "up", "-r", "invoke", "-h2", "shop/models.py:User.display_name"],
    );
    eqnice!(
        "\
shop/models.py:Profile.render\tinvoke\tshop/models.py:User.display_name\texact
shop/views.py:profile_page\tinvoke\tshop/models.py:Profile.render\texact
shop/views.py:update_profile\tinvoke\tshop/models.py:Profile.render\tguess
",
        got
    );
    let json = trav(
        &d,
        &["--edges", "--json", "-d", "up", "-r", "invoke", "shop/models.py:User.display_name"],
    );
    let v: serde_json::Value = serde_json::from_str(json.trim()).expect("one JSON edge");
    assert_eq!(v["src"], "shop/models.py:Profile.render");
    assert_eq!(v["id"], v["src"]);
    assert_eq!(v["dst"], "shop/models.py:User.display_name");
    assert_eq!(
        (v["rel"].as_str(), v["meta"].as_u64(), v["conf"].as_str()),
        (Some("invoke"), Some(240), Some("exact"))
    );
    assert_eq!(v["via"], "value-flow");
    // Every edge between printed entities, not only the first way each was reached.
    let e = trav(&d, &["--edges", "-h2", "shop/pricing.py:apply_discount"]);
    assert_eq!(
        e.lines().filter(|l| l.ends_with("\tshop/pricing.py:Money\texact")).count(),
        2,
        "{e}"
    );
}

#[test]
fn dot_view() {
    let d = demo("trav-dot");
    let got =
        trav(&d, &["--dot", "-d", "up", "-r", "invoke", "-h2", "shop/models.py:User.display_name"]);
    assert!(got.starts_with("digraph cds {\n"), "{got}");
    assert!(got.ends_with("}\n"), "{got}");
    assert!(
        got.contains(
            "  \"shop/models.py:User.display_name\" [shape=box, style=\"rounded,bold\"];\n"
        ),
        "{got}"
    );
    assert!(
        got.contains("  \"shop/models.py:Profile.render\" -> \"shop/models.py:User.display_name\" [label=\"invoke (value flow, exact)\"];\n"),
        "{got}"
    );
}

#[test]
fn limit_and_fanout_bound_the_output_and_say_so() {
    let d = demo("trav-bounds");
    let out = d.cmd("cds-trav").args(["--limit", "2", "shop/cart.py:Cart"]).output();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.lines().next().is_some_and(|l| l.ends_with("\thop=0 cut=2")), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cds-trav: stopped at --limit 2 entities"), "{err}");
    let json = trav(&d, &["--json", "-m", "2", "shop/cart.py:Cart"]);
    assert!(json.lines().next().is_some_and(|l| l.contains("\"cut\":2")), "{json}");

    let out = d
        .cmd("cds-trav")
        .args(["--fanout", "1", "--ids", "-d", "both", "shop/cart.py:Cart"])
        .output();
    let text = String::from_utf8_lossy(&out.stdout);
    // One per (direction, relation): a method, the file, an importer, a caller.
    eqnice!(
        "shop/cart.py:Cart\nshop/cart.py:Cart.__init__\nshop/cart.py\nshop/__init__.py\nshop/views.py:checkout\n",
        text
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fanout 1"));
    let tree = trav(&d, &["--tree", "--fanout", "2", "shop/cart.py:Cart"]);
    eqnice!(
        "shop/cart.py:Cart\n├── contain ── shop/cart.py:Cart.__init__\n├── contain ── shop/cart.py:Cart.add\n└── ... 2 more (--fanout)\n",
        tree
    );
    let tree = trav(&d, &["--tree", "--limit", "1", "shop/cart.py:Cart"]);
    eqnice!(
        "shop/cart.py:Cart\n├── contain ── shop/cart.py:Cart.__init__\n... cut at --limit 1 lines (--limit 0 shows all)\n",
        tree
    );
}

#[test]
fn no_roots_and_stdin_and_line_references() {
    let d = demo("trav-input");
    let got = d
        .cmd("cds-trav")
        .args(["--no-roots", "--ids", "-d", "up", "-r", "invoke"])
        .stdin("# callers of these\nshop/security.py:strip_tags\tfunction\t9-11\tdef strip_tags(text):\n\n{\"id\":\"shop/pricing.py:round_money\"}\n")
        .ok();
    eqnice!("shop/security.py:sanitize_user_input\nshop/pricing.py:apply_discount\n", got);
    // An rg -n line names the function around it.
    let got = trav(
        &d,
        &["--ids", "-h0", "shop/views.py:25:        cart.add(sanitize_user_input(name), price)"],
    );
    eqnice!("shop/views.py:checkout\n", got);
    // LocAgent's spellings of a directory and a file.
    eqnice!("shop\n", trav(&d, &["--ids", "-h0", "/shop/"]));
    eqnice!("shop\n", trav(&d, &["--ids", "-h0", "shop.__init__"]));
    eqnice!("shop/cart.py\n", trav(&d, &["--ids", "-h0", "./shop/cart.py"]));
    // A directory walks down to its files.
    let got = trav(&d, &["--ids", "-r", "contain", "shop"]);
    assert!(got.starts_with("shop\nshop/__init__.py\nshop/cart.py\n"), "{got}");
}

#[test]
fn unknown_ids_get_suggestions_and_the_rest_goes_on() {
    let d = demo("trav-unknown");
    let out = d
        .cmd("cds-trav")
        .args(["--ids", "-h0", "shop/cart.py:Cart.totl", "shop/cart.py:Cart"])
        .output();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "shop/cart.py:Cart\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("cds-trav: no entity 'shop/cart.py:Cart.totl'; did you mean: ")
            && err.contains("shop/cart.py:Cart.total"),
        "{err}"
    );
    let err = d.cmd("cds-trav").args(["nothing_like_it_at_all"]).stderr_of(1);
    assert_eq!(err, "cds-trav: no entity 'nothing_like_it_at_all'\n");
    // Empty input: nothing found.
    assert_eq!(d.cmd("cds-trav").stdin("").expect_code(1), "");
    assert_eq!(d.cmd("cds-trav").stdin("\n# only a comment\n").expect_code(1), "");
}

#[test]
fn usage_errors() {
    let d = demo("trav-usage");
    let err = d.cmd("cds-trav").args(["--tree", "--json", "shop"]).stderr_of(2);
    assert!(err.starts_with("cds-trav: --tree cannot be combined with --json"), "{err}");
    let err = d.cmd("cds-trav").args(["-h", "-3", "shop"]).stderr_of(2);
    assert!(err.contains("invalid value '-3' for -h"), "{err}");
    let err = d.cmd("cds-trav").args(["-d", "sideways", "shop"]).stderr_of(2);
    assert!(err.contains("expected one of down, up, both"), "{err}");
    let err = d.cmd("cds-trav").args(["-t", "module", "shop"]).stderr_of(2);
    assert!(err.contains("unknown entity kind 'module'"), "{err}");
    let err = d.cmd("cds-trav").args(["-r", "calls-by", "shop"]).stderr_of(2);
    assert!(err.contains("unknown relation 'calls-by'"), "{err}");
    // -h is --hops here; help is --help.
    assert!(d.cmd("cds-trav").arg("--help").ok().contains("-h, --hops N"));
    let err = d.cmd("cds-trav").arg("-h").stderr_of(2);
    assert!(err.contains("-h needs a value"), "{err}");
}

#[test]
fn missing_and_corrupt_index() {
    let d = Dir::new("trav-noindex");
    let err = d.cmd("cds-trav").arg("x.py").stderr_of(2);
    assert!(err.starts_with("cds-trav: "), "{err}");
    let d = demo("trav-corrupt");
    let current = std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap();
    let graph = d.path(".cds").join(current.trim()).join("graph.rkyv");
    let bytes = std::fs::read(&graph).unwrap();
    std::fs::write(&graph, &bytes[..bytes.len() / 2]).unwrap();
    let err = d.cmd("cds-trav").arg("shop").stderr_of(2);
    assert!(err.starts_with("cds-trav: ") && err.contains("graph.rkyv"), "{err}");
}

/// LocAgent's `explore_tree_structure` on the parity fixture (`tests/fixtures/locagent/tools.jsonl`,
/// copied from `shared/parity/locagent_tools_fixture.jsonl`), against `cds-trav --tree` on the
/// same repository built with `--compat locagent`.
///
/// Skipped records, and why:
/// * calls that raise (an invalid direction): cds rejects them as usage errors instead;
/// * `entity_type_filter=["method"]`: LocAgent does not validate entity types, so `method`
///   matches no node and the tree is the start entity alone; cds reads `method` as `function`
///   (it is what a method is), so the output differs by design;
/// * invalid names: LocAgent answers them with BM25 "candidate entities"; cds-trav prints its
///   own "no entity; did you mean" on stderr. Where such a call also names valid entities, the
///   trees (and test-entity refusals) are still compared, with the BM25 hint cut off.
///
/// The records flagged `nondeterministic` or `walk_order_dependent` came from LocAgent's
/// canonical mode (sorted walk, sorted name sets), which is the order a compat build
/// reproduces, so they are compared too.
#[test]
fn tree_parity_with_locagent() {
    let d = Dir::fixture("trav-parity", "locagent/repo");
    d.cmd("cds-build").args(["--compat", "locagent"]).stderr_of(0);
    let text = std::fs::read_to_string(fixtures().join("locagent/tools.jsonl")).unwrap();
    let (mut compared, mut failures) = (0, Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if r["tool"] != "explore_tree_structure" {
            continue;
        }
        let Some(output) = r["output"].as_str() else { continue };
        let a = &r["args"];
        let list = |k: &str| -> Vec<String> {
            a[k].as_array()
                .map(|v| v.iter().filter_map(|s| s.as_str().map(String::from)).collect())
                .unwrap_or_default()
        };
        let types = list("entity_type_filter");
        if types.iter().any(|t| !["directory", "file", "class", "function"].contains(&t.as_str())) {
            continue;
        }
        // Drop the BM25 hints, and the names that caused them.
        let hint = output.find("The entity name `");
        let expected = match hint {
            Some(i) => output[..i].trim_end().to_string(),
            None => output.to_string(),
        };
        let mut entities = list("start_entities");
        if hint.is_some() {
            entities.retain(|e| !output.contains(&format!("The entity name `{e}` is invalid")));
        }
        if expected.is_empty() || entities.is_empty() {
            continue;
        }
        let direction = match a["direction"].as_str().unwrap_or("downstream") {
            "downstream" => "down",
            "upstream" => "up",
            other => other,
        };
        let depth = a["traversal_depth"].as_i64().unwrap_or(2).to_string();
        let mut cmd = TestCommand::new("cds-trav", &d.root);
        cmd.args(["--tree", "-h", &depth, "-d", direction]);
        if !types.is_empty() {
            cmd.args(["-t", &types.join(",")]);
        }
        let rels = list("dependency_type_filter");
        if !rels.is_empty() {
            cmd.args(["-r", &rels.join(",")]);
        }
        cmd.arg("--").args(&entities);
        let got = cmd.ok();
        compared += 1;
        if got != format!("{expected}\n") {
            failures.push(format!("{a}\n--- LocAgent\n{expected}\n--- cds-trav\n{got}"));
        }
    }
    assert!(compared >= 30, "only {compared} records compared");
    assert!(
        failures.is_empty(),
        "{} of {compared} trees differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
