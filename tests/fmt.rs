//! cds-fmt: every view over other tools' records, and `--graph` against LocAgent's own dump.

use crate::util::{Dir, fixtures};

fn demo(name: &str) -> Dir {
    let d = Dir::demo(name);
    d.cmd("cds-build").stderr_of(0);
    d
}

fn fmt(d: &Dir, args: &[&str], stdin: &str) -> String {
    d.cmd("cds-fmt").args(args).stdin(stdin).ok()
}

fn tool(d: &Dir, bin: &str, args: &[&str]) -> String {
    d.cmd(bin).args(args).ok()
}

/// `cds-fmt --graph` on the fixture built with `--compat locagent` is LocAgent's graph dump:
/// the same lines, byte for byte, except `count` (LocAgent's multigraph counts parallel edges of
/// one type, the index stores each once; the parity contract is the set of edges).
#[test]
fn graph_dump_equals_locagents() {
    let d = Dir::fixture("fmt-graph", "locagent/repo");
    d.cmd("cds-build").args(["--compat", "locagent"]).stderr_of(0);
    let got = d.cmd("cds-fmt").arg("--graph").ok();
    let want = std::fs::read_to_string(fixtures().join("locagent/graph.jsonl")).unwrap();
    let strip = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| match l.find(", \"count\": ") {
                Some(i) => format!("{}}}", &l[..i]),
                None => l.to_string(),
            })
            .collect()
    };
    let (g, w) = (strip(&got), strip(&want));
    // Sorted the same way, so equal as lists means equal as sets.
    assert_eq!(g.len(), w.len(), "{got}");
    for (a, b) in g.iter().zip(&w) {
        assert_eq!(a, b);
    }
    // Every record parses, and each edge is stored once.
    for line in got.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["kind"] == "edge" {
            assert_eq!(v["count"], 1);
        }
    }
    // Stdin is not read.
    assert_eq!(d.cmd("cds-fmt").arg("--graph").stdin("junk\n").ok(), got);
}

#[test]
fn graph_dump_of_a_native_index() {
    let d = demo("fmt-graph-native");
    let got = d.cmd("cds-fmt").arg("--graph").ok();
    assert!(got.starts_with("{\"kind\": \"node\", \"id\": \"/\", \"type\": \"directory\", \"start_line\": null, \"end_line\": null}\n"));
    assert!(got.contains("{\"kind\": \"node\", \"id\": \"shop/cart.py:Cart.__init__\", \"type\": \"function\", \"start_line\": 7, \"end_line\": 10}\n"));
    assert!(got.contains("{\"kind\": \"edge\", \"src\": \"shop/views.py:checkout\", \"dst\": \"shop/cart.py:Cart\", \"type\": \"invokes\", \"count\": 1}\n"));
}

#[test]
fn tree_of_a_walk_is_the_walk() {
    let d = demo("fmt-tree-walk");
    // Contain edges form a tree, so the BFS spanning tree and LocAgent's tree agree.
    let json = tool(&d, "cds-trav", &["--json", "-h", "-1", "-r", "contain", "/"]);
    eqnice!(
        tool(&d, "cds-trav", &["--tree", "-h", "-1", "-r", "contain", "/"]),
        fmt(&d, &["--tree"], &json)
    );
    let json = tool(
        &d,
        "cds-trav",
        &["--json", "-h2", "-d", "up", "-r", "invoke", "shop/pricing.py:round_money"],
    );
    eqnice!(
        "\
shop/pricing.py:round_money
└── invoke-by ── shop/pricing.py:apply_discount
                 └── invoke-by ── shop/cart.py:Cart.total
",
        fmt(&d, &["--tree"], &json)
    );
}

/// Records that are not a walk hang under their files and classes, as the help says: a
/// method's class is drawn even when it is not among the records (before, such methods were
/// listed flat under the file, beside its functions).
#[test]
fn tree_of_other_records_groups_by_file_and_class() {
    let d = demo("fmt-tree-files");
    let input = "shop/cart.py:Cart.add\nshop/models.py:Profile.render\nshop/cart.py:Cart.total\nshop/cart.py:Cart\n";
    eqnice!(
        "\
shop/cart.py
└── shop/cart.py:Cart
    ├── shop/cart.py:Cart.add
    └── shop/cart.py:Cart.total

shop/models.py
└── shop/models.py:Profile
    └── shop/models.py:Profile.render
",
        fmt(&d, &["--tree"], input)
    );
    // Methods of two classes and a function of one file, none of the classes asked for; the
    // line records of cds-search and cds-loc are read the same way.
    let input = "shop/cart.py:Cart.total\nshop/pricing.py:Money.__init__\nshop/pricing.py:round_money\nshop/pricing.py:TaxTable.rate_for\n";
    let want = "\
shop/cart.py
└── shop/cart.py:Cart
    └── shop/cart.py:Cart.total

shop/pricing.py
├── shop/pricing.py:Money
│   └── shop/pricing.py:Money.__init__
├── shop/pricing.py:round_money
└── shop/pricing.py:TaxTable
    └── shop/pricing.py:TaxTable.rate_for
";
    eqnice!(want, fmt(&d, &["--tree"], input));
    let lines = fmt(&d, &[], input);
    eqnice!(want, fmt(&d, &["--tree"], &lines));
}

#[test]
fn fold_json_and_ids() {
    let d = demo("fmt-fold");
    let input = "shop/views.py:checkout\n{\"id\":\"shop/cart.py:Cart.add\",\"score\":7.5,\"kind\":\"wrong\"}\n";
    eqnice!(
        "\
shop/views.py:checkout\tfunction\t22-26\tdef checkout(request):
shop/cart.py:Cart.add\tfunction\t12-13\tdef add(self, name, price_cents, quantity=1):
",
        fmt(&d, &[], input)
    );
    eqnice!(fmt(&d, &[], input), fmt(&d, &["--fold"], input));
    eqnice!("shop/views.py:checkout\nshop/cart.py:Cart.add\n", fmt(&d, &["--ids"], input));
    let json = fmt(&d, &["--json"], input);
    let recs: Vec<serde_json::Value> =
        json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs[0]["fold"], "def checkout(request):");
    // Other tools' fields are kept; the entity's own are recomputed.
    assert_eq!(
        (recs[1]["score"].as_f64(), recs[1]["kind"].as_str()),
        (Some(7.5), Some("function"))
    );
    // The last of the view flags and --json/--ids wins.
    eqnice!(fmt(&d, &["--json"], input), fmt(&d, &["--tree", "--json"], input));
    eqnice!(fmt(&d, &["--tree"], input), fmt(&d, &["--json", "--tree"], input));
}

#[test]
fn code_views_match_cds_get() {
    let d = demo("fmt-code");
    let input = "shop/cart.py:Cart.total\nshop/views.py:24-25\n";
    let ids = ["shop/cart.py:Cart.total", "shop/views.py:24-25"];
    eqnice!(tool(&d, "cds-get", &ids), fmt(&d, &["--full"], input));
    let mut args = vec!["--view", "preview", "-C", "1"];
    args.extend(ids);
    eqnice!(tool(&d, "cds-get", &args), fmt(&d, &["--preview", "-C", "1"], input));
}

#[test]
fn markdown_for_a_prompt() {
    let d = demo("fmt-markdown");
    let json = tool(
        &d,
        "cds-trav",
        &["--json", "-d", "up", "-r", "invoke", "shop/pricing.py:round_money"],
    );
    eqnice!(
        "\
### `shop/pricing.py:round_money`

A function in `shop/pricing.py`, lines 12-13.

```python
def round_money(amount):
    return Money(int(round(amount.cents)))
```

### `shop/pricing.py:apply_discount`

A function in `shop/pricing.py`, lines 16-18; 1 hop away: invokes `shop/pricing.py:round_money`.

```python
def apply_discount(amount, percent):
    \"\"\"Apply a percentage discount, rounding to whole cents.\"\"\"
    return round_money(Money(amount.cents * (100 - percent) / 100))
```

",
        fmt(&d, &["--markdown"], &json)
    );
    let folded = fmt(&d, &["--markdown", "--fold"], "shop/pricing.py:round_money\nshop\n");
    eqnice!(
        "### `shop/pricing.py:round_money`\n\nA function in `shop/pricing.py`, lines 12-13.\n\n`def round_money(amount):`\n\n### `shop`\n\nDirectory.\n\n",
        folded
    );
    let tree = fmt(&d, &["--markdown", "--tree"], "shop/cart.py:Cart\n");
    eqnice!("```\nshop/cart.py\n└── shop/cart.py:Cart\n```\n", tree);
    // A fence the code cannot close.
    let dd = Dir::new("fmt-markdown-fence");
    dd.write("m.py", "def f():\n    return '```'\n");
    dd.cmd("cds-build").stderr_of(0);
    let got = fmt(&dd, &["--markdown"], "m.py:f\n");
    assert!(got.contains("\n````python\ndef f():\n    return '```'\n````\n"), "{got}");
}

#[test]
fn dot_of_records_shows_the_edges_between_them() {
    let d = demo("fmt-dot");
    let got = fmt(
        &d,
        &["--dot"],
        "shop/cart.py:Cart.add\nshop/views.py:checkout\nshop/views.py:checkout\n",
    );
    eqnice!(
        "\
digraph cds {
  rankdir=LR;
  node [shape=box, fontname=\"monospace\", fontsize=10];
  edge [fontname=\"monospace\", fontsize=9];
  \"shop/cart.py:Cart.add\" [shape=box, style=\"rounded\"];
  \"shop/views.py:checkout\" [shape=box, style=\"rounded\"];
  \"shop/views.py:checkout\" -> \"shop/cart.py:Cart.add\" [label=\"invoke\"];
}
",
        got
    );
}

#[test]
fn bad_input() {
    let d = demo("fmt-bad");
    let out = d.cmd("cds-fmt").stdin("shop/nope.py\nshop/cart.py\n").output();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("cds-fmt: no entity 'shop/nope.py'"));
    assert_eq!(d.cmd("cds-fmt").stdin("").expect_code(1), "");
    let err = d.cmd("cds-fmt").args(["--graph", "--markdown"]).stderr_of(2);
    assert!(err.contains("--graph cannot be combined with --markdown"), "{err}");
}
