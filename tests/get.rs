//! cds-get: the numbered view, previews and skeletons, context and line ranges, JSON, staleness,
//! and bad input.

use crate::util::Dir;

fn demo(name: &str) -> Dir {
    let d = Dir::demo(name);
    d.cmd("cds-build").stderr_of(0);
    d
}

fn get(d: &Dir, args: &[&str]) -> String {
    d.cmd("cds-get").args(args).ok()
}

#[test]
fn numbered_view_with_a_header() {
    let d = demo("get-full");
    eqnice!(
        "\
shop/cart.py:Cart.total\tfunction\tshop/cart.py:21-24
```
21 |     def total(self, discount=0, region=\"default\"):
22 |         amount = apply_discount(self.subtotal(), discount)
23 |         rate = self.taxes.rate_for(region)
24 |         return Money(amount.cents * (100 + rate) // 100)
```
",
        get(&d, &["shop/cart.py:Cart.total"])
    );
    // Several entities: blocks separated by a blank line; numbers right-aligned to the widest.
    let got = get(&d, &["shop/pricing.py:Money.__init__", "shop/security.py:require_login"]);
    eqnice!(
        "\
shop/pricing.py:Money.__init__\tfunction\tshop/pricing.py:5-6
```
5 |     def __init__(self, cents):
6 |         self.cents = cents
```

shop/security.py:require_login\tfunction\tshop/security.py:20-28
```
20 | def require_login(view):
21 |     \"\"\"Decorator: refuse anonymous users.\"\"\"
22 | 
23 |     def wrapper(request, *args, **kwargs):
24 |         if request.user is None:
25 |             raise PermissionError(\"login required\")
26 |         return view(request, *args, **kwargs)
27 | 
28 |     return wrapper
```
",
        got
    );
}

#[test]
fn decorators_belong_to_the_entity() {
    let d = demo("get-deco");
    let got = get(&d, &["shop/views.py:profile_page"]);
    assert!(got.starts_with("shop/views.py:profile_page\tfunction\tshop/views.py:8-12\n```\n 8 | @require_login\n 9 | def profile_page(request):\n"), "{got}");
}

#[test]
fn fold_and_ids_views() {
    let d = demo("get-fold");
    eqnice!(
        "shop/views.py:checkout\tfunction\t22-26\tdef checkout(request):\n",
        get(&d, &["--view", "fold", "shop/views.py:checkout"])
    );
    eqnice!("shop/views.py:checkout\n", get(&d, &["--ids", "shop/views.py:checkout"]));
}

/// A file long enough to be previewed as a skeleton.
fn big_class() -> String {
    let mut s = String::from(
        "\"\"\"A module.\"\"\"\n\nimport os\n\n\nclass Big:\n    \"\"\"Many methods.\"\"\"\n\n    LIMIT = 3\n",
    );
    for i in 0..8 {
        s.push_str(&format!(
            "\n    def m{i}(self, x):\n        \"\"\"Method {i}.\"\"\"\n        y = x + {i}\n        z = y * 2\n        w = z - 1\n        v = w + y\n        return v\n"
        ));
    }
    s.push_str("\n\ndef long_function(a):\n    \"\"\"Does a lot.\"\"\"\n");
    for i in 0..40 {
        s.push_str(&format!("    a = a + {i}\n"));
    }
    s.push_str("    return a\n");
    s
}

#[test]
fn preview_shows_a_skeleton_of_a_large_class() {
    let d = Dir::new("get-preview");
    d.write("big.py", big_class());
    d.cmd("cds-build").stderr_of(0);
    let got = get(&d, &["--view", "preview", "big.py:Big"]);
    let head = "\
big.py:Big\tclass\tbig.py:6-73\tskeleton: bodies omitted, ask for their lines
```
 6 | class Big:
 7 |     \"\"\"Many methods.\"\"\"
 8 | 
 9 |     LIMIT = 3
10 | 
11 |     def m0(self, x):
12 |         \"\"\"Method {i}.\"\"\"
   |         ...  # lines 13-17 omitted
18 | 
19 |     def m1(self, x):
";
    let head = head.replace("{i}", "0");
    eqnice!(head, got[..head.len()].to_string());
    assert!(got.ends_with("   |         ...  # lines 69-73 omitted\n```\n"), "{got}");
    // A long function: signature, docstring and ten lines, then the rest omitted.
    let got = get(&d, &["--view", "preview", "big.py:long_function"]);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(
        lines[0],
        "big.py:long_function\tfunction\tbig.py:76-118\tpreview: the rest omitted, ask for its lines"
    );
    assert_eq!(
        lines[1..4],
        ["```", "76 | def long_function(a):", "77 |     \"\"\"Does a lot.\"\"\""]
    );
    assert_eq!(lines[13], "87 |     a = a + 9");
    assert_eq!(lines[14], "   |     ...  # lines 88-118 omitted");
    // Short entities are previewed whole.
    eqnice!(get(&d, &["big.py:Big.m3"]), get(&d, &["--view", "preview", "big.py:Big.m3"]));
    // The whole file: functions' bodies go, the module's own lines stay.
    let got = get(&d, &["--view", "preview", "big.py"]);
    assert!(got.contains("\n 1 | \"\"\"A module.\"\"\"\n 2 | \n 3 | import os\n"), "{got}");
    assert!(got.contains("   |     ...  # lines 78-118 omitted\n"), "{got}");
    // JSON carries the same text, elisions included.
    let json = get(&d, &["--json", "--view", "preview", "big.py:long_function"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["elided"], true);
    assert!(
        v["code"].as_str().unwrap().ends_with("    a = a + 9\n    ...  # lines 88-118 omitted")
    );
}

#[test]
fn context_and_line_ranges() {
    let d = demo("get-ranges");
    let got = get(&d, &["-C", "1", "shop/pricing.py:round_money"]);
    eqnice!(
        "\
shop/pricing.py:round_money\tfunction\tshop/pricing.py:12-13
```
11 | 
12 | def round_money(amount):
13 |     return Money(int(round(amount.cents)))
14 | 
```
",
        got
    );
    eqnice!(
        "\
shop/views.py:24-25\trange\tin shop/views.py:checkout
```
24 |     for name, price in request.params[\"items\"]:
25 |         cart.add(sanitize_user_input(name), price)
```
",
        get(&d, &["shop/views.py:24-25"])
    );
    // One line, with context; the range's entity is the innermost around it.
    let got = get(&d, &["-C2", "shop/security.py:25"]);
    assert!(
        got.starts_with(
            "shop/security.py:25\trange\tin shop/security.py:require_login.wrapper\n```\n23 | "
        ),
        "{got}"
    );
    assert!(got.ends_with("27 | \n```\n"), "{got}");
    // rg -n and rg --vimgrep lines.
    let a = get(&d, &["shop/views.py:25:        cart.add(sanitize_user_input(name), price)"]);
    let b = get(&d, &["shop/views.py:25:9:cart.add"]);
    eqnice!(a, b);
    assert!(a.starts_with("shop/views.py:25\trange\tin shop/views.py:checkout\n"), "{a}");
    // The end of a range is clamped to the file; a start past it names nothing.
    let got = get(&d, &["shop/pricing.py:24-999"]);
    assert!(
        got.ends_with("25 |         return self.RATES.get(region, self.RATES[\"default\"])\n```\n"),
        "{got}"
    );
    let err = d.cmd("cds-get").arg("shop/pricing.py:26").stderr_of(1);
    assert_eq!(err, "cds-get: no line 26 in shop/pricing.py: it has 25 lines\n");
    d.cmd("cds-get").arg("shop/nope.py:3").stderr_of(1);
    d.cmd("cds-get").arg("shop/views.py:0").stderr_of(1);
}

#[test]
fn loose_spellings() {
    let d = demo("get-loose");
    let want = get(&d, &["--ids", "shop/cart.py"]);
    for spelling in ["./shop/cart.py", "/shop/cart.py/", "shop/cart.py.", " shop/cart.py "] {
        eqnice!(want, get(&d, &["--ids", spelling]));
    }
    let abs = d.path("shop/cart.py");
    eqnice!(want, get(&d, &["--ids", abs.to_str().unwrap()]));
    // Relative to the current directory, as rg -l prints it there.
    let out = d.cmd("cds-get").arg("--ids").arg("cart.py").output();
    assert_eq!(out.status.code(), Some(1), "cart.py is not a path from the root");
    let mut cmd = crate::util::TestCommand::new("cds-get", &d.path("shop"));
    eqnice!(want, cmd.args(["--ids", "cart.py"]).ok());
    // With `..` (and rg -n's lines found from a subdirectory); never above the root.
    let mut cmd = crate::util::TestCommand::new("cds-get", &d.path("shop"));
    eqnice!(want, cmd.args(["--ids", "../shop/./cart.py"]).ok());
    let mut cmd = crate::util::TestCommand::new("cds-get", &d.path("shop"));
    let got = cmd.args(["--view", "fold"]).stdin("../shop/cart.py:22:        amount = x\n").ok();
    assert!(got.starts_with("shop/cart.py:Cart.total\t"), "{got}");
    let mut cmd = crate::util::TestCommand::new("cds-get", &d.path("shop"));
    cmd.args(["--ids", "../../shop/cart.py"]).stderr_of(1);
    // A native index keeps __init__ as a node; shop.__init__ is the package, as in LocAgent.
    eqnice!("shop/cart.py:Cart.__init__\n", get(&d, &["--ids", "shop/cart.py:Cart.__init__"]));
    eqnice!("shop\n", get(&d, &["--ids", "shop.__init__"]));
}

#[test]
fn json_has_the_code() {
    let d = demo("get-json");
    let out = get(&d, &["--json", "shop/pricing.py:round_money", "shop"]);
    let recs: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 2);
    let r = &recs[0];
    assert_eq!(r["id"], "shop/pricing.py:round_money");
    assert_eq!(r["code"], "def round_money(amount):\n    return Money(int(round(amount.cents)))");
    assert_eq!((r["code_start"].as_u64(), r["code_end"].as_u64()), (Some(12), Some(13)));
    assert_eq!(
        (r["start"].as_u64(), r["end"].as_u64(), r["view"].as_str()),
        (Some(12), Some(13), Some("full"))
    );
    assert_eq!(recs[1]["kind"], "directory");
    assert!(recs[1]["entries"].as_array().unwrap().iter().any(|e| e == "shop/cart.py"));
    let range = get(&d, &["--json", "shop/views.py:24-25"]);
    let v: serde_json::Value = serde_json::from_str(range.trim()).unwrap();
    assert_eq!(
        (v["id"].as_str(), v["range"].as_str()),
        (Some("shop/views.py:checkout"), Some("shop/views.py:24-25"))
    );
}

#[test]
fn directories_list_their_entries() {
    let d = demo("get-dir");
    eqnice!(
        "\
shop\tdirectory\tshop/
```
shop/__init__.py
shop/cart.py
shop/models.py
shop/pricing.py
shop/security.py
shop/views.py
```
",
        get(&d, &["shop"])
    );
}

#[test]
fn plain_code_and_nul_separated_blocks() {
    let d = demo("get-plain");
    eqnice!(
        "def round_money(amount):\n    return Money(int(round(amount.cents)))\n",
        get(&d, &["--plain", "shop/pricing.py:round_money"])
    );
    let got = get(&d, &["-0", "shop/pricing.py:round_money", "shop/pricing.py:Money.__init__"]);
    assert_eq!(got.matches('\0').count(), 2, "{got:?}");
    assert!(!got.contains("```\n\n"), "no blank separator with -0: {got:?}");
    let ids = get(&d, &["-0", "--ids", "shop/pricing.py:round_money", "shop"]);
    assert_eq!(ids, "shop/pricing.py:round_money\0shop\0");
}

#[test]
fn a_stale_index_is_reported_once_per_file() {
    let d = demo("get-stale");
    let p = d.path("shop/pricing.py");
    let mut text = std::fs::read_to_string(&p).unwrap();
    // Only touched: same content, no warning.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&p, &text).unwrap();
    let out = d.cmd("cds-get").arg("shop/pricing.py:round_money").output();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // Changed: one warning for two entities of the file, and the indexed code is shown.
    text.insert_str(0, "# a new first line\n");
    std::fs::write(&p, &text).unwrap();
    let out = d
        .cmd("cds-get")
        .args(["shop/pricing.py:round_money", "shop/pricing.py:Money", "shop/cart.py:Cart.add"])
        .output();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        "cds-get: warning: shop/pricing.py changed since the index was built: run cds-build (showing the indexed code)\n"
    );
    let got = String::from_utf8_lossy(&out.stdout);
    assert!(got.starts_with("shop/pricing.py:round_money\tfunction\tshop/pricing.py:12-13\tstale index: run cds-build\n```\n12 | def round_money(amount):\n"), "{got}");
    // JSON says so too; -q silences the warning.
    let json = d.cmd("cds-get").args(["--json", "shop/pricing.py:round_money"]).output();
    assert!(String::from_utf8_lossy(&json.stdout).contains("\"stale\":true"));
    let quiet = d.cmd("cds-get").args(["-q", "shop/pricing.py:round_money"]).output();
    assert_eq!(
        (quiet.status.code(), String::from_utf8_lossy(&quiet.stderr).as_ref()),
        (Some(0), "")
    );
    // A removed file.
    std::fs::remove_file(d.path("shop/cart.py")).unwrap();
    let err = d.cmd("cds-get").arg("shop/cart.py:Cart.add").stderr_of(0);
    assert!(err.contains("shop/cart.py was removed since the index was built"), "{err}");
}

#[test]
fn unknown_ids_and_exit_statuses() {
    let d = demo("get-unknown");
    let out =
        d.cmd("cds-get").args(["--ids", "shop/models.py:Profile.rendr", "shop/cart.py"]).output();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "shop/cart.py\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("cds-get: no entity 'shop/models.py:Profile.rendr'; did you mean: shop/models.py:Profile.render"), "{err}");
    assert!(err.lines().count() == 1);
    // Up to five candidates.
    let err = d.cmd("cds-get").arg("__init_").stderr_of(1);
    let names = err.trim_end().rsplit("did you mean: ").next().unwrap();
    assert_eq!(names.split(", ").count(), 5, "{err}");
    // Nothing found at all: 1. Empty input: 1. Bad JSON input: reported, 2.
    d.cmd("cds-get").arg("zzz_no_such_thing").stderr_of(1);
    assert_eq!(d.cmd("cds-get").stdin("").expect_code(1), "");
    let err = d.cmd("cds-get").arg("--ids").stdin("{not json\nshop\n").stderr_of(2);
    assert!(err.starts_with("cds-get: stdin line 1: invalid JSON"), "{err}");
    // A binary file piped in by mistake: one error naming the fix, 2, not an error per record.
    let bin = std::fs::read(env!("CARGO_BIN_EXE_cds-get")).unwrap();
    for tool in ["cds-get", "cds-trav", "cds-fmt"] {
        let err = d.cmd(tool).stdin(&bin[..4096]).stderr_of(2);
        assert!(
            err.starts_with(&format!("{tool}: stdin record 1 is binary data, not an ID")),
            "{err}"
        );
        assert!(err.lines().count() <= 2, "{err}");
    }
    // Nor is it a query or an issue: the tools that read text say so, on stdin or from a file.
    d.write("issue.bin", &bin[..4096]);
    for tool in ["cds-search", "cds-loc"] {
        let err = d.cmd(tool).stdin(&bin[..4096]).stderr_of(2);
        assert!(err.starts_with(&format!("{tool}: stdin is binary data, not text")), "{err}");
        let flag: &[&str] =
            if tool == "cds-search" { &["-f", "issue.bin"] } else { &["issue.bin"] };
        let err = d.cmd(tool).args(flag).stderr_of(2);
        assert!(err.starts_with(&format!("{tool}: issue.bin is binary data, not text")), "{err}");
    }
}

#[test]
fn files_with_syntax_errors_are_still_shown() {
    let d = Dir::new("get-syntax");
    d.write("ok.py", "def fine():\n    return broken()\n");
    d.write("broken.py", "def broken(:\n    return 1\n\nclass Half\n    x = 1\n");
    d.cmd("cds-build").stderr_of(0);
    let got = get(&d, &["broken.py"]);
    assert!(got.starts_with("broken.py\tfile\tbroken.py:1-5\n```\n1 | def broken(:\n"), "{got}");
    d.cmd("cds-trav").args(["--ids", "-d", "both", "broken.py"]).ok();
}

#[test]
fn missing_and_corrupt_index() {
    let d = Dir::new("get-noindex");
    let err = d.cmd("cds-get").arg("x.py").stderr_of(2);
    assert!(err.starts_with("cds-get: "), "{err}");
    let d = demo("get-corrupt");
    let current = std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap();
    let content = d.path(".cds").join(current.trim()).join("content.bin");
    std::fs::write(&content, b"garbage").unwrap();
    let err = d.cmd("cds-get").arg("shop/cart.py:Cart").stderr_of(2);
    assert!(err.starts_with("cds-get: ") && err.contains("content.bin"), "{err}");
    // The graph alone still answers --ids (content is mapped only when needed).
    d.cmd("cds-get").args(["--ids", "shop/cart.py:Cart"]).ok();
}

/// A line inside a method defined outside its type's lines (Go receivers, Rust `impl` blocks,
/// JavaScript prototype assignments) names the method, not the file.
#[test]
fn line_references_inside_methods_defined_apart_from_their_type() {
    let d = Dir::new("get-apart");
    d.write("go.mod", "module example.com/m\n\ngo 1.22\n");
    d.write(
        "r.go",
        "package m\n\ntype Reader struct {\n\tn int\n}\n\nfunc (r *Reader) Read() int {\n\tx := r.n\n\treturn x\n}\n",
    );
    d.write(
        "u.rs",
        "pub struct Seq {\n    n: u8,\n}\n\nimpl Seq {\n    pub fn len(&self) -> usize {\n        let k = 1;\n        k\n    }\n}\n",
    );
    d.write(
        "view.js",
        "function View(name) {\n  this.name = name;\n}\n\nView.prototype.lookup = function lookup(name) {\n  var root = this.name;\n  return root;\n};\n",
    );
    d.cmd("cds-build").stderr_of(0);
    for (line, want) in [
        ("r.go:8", "r.go:Reader.Read"),
        ("u.rs:7", "u.rs:Seq.len"),
        ("view.js:6", "view.js:View.lookup"),
    ] {
        let got = get(&d, &["--view", "fold", line]);
        assert!(got.starts_with(&format!("{want}\t")), "{line}: {got}");
        // rg -n lines too, and cds-trav, which reads the same references.
        let rg = format!("{line}:  text");
        assert!(get(&d, &["--view", "fold", &rg]).starts_with(&format!("{want}\t")), "{rg}");
        let trav = d.cmd("cds-trav").args(["-h0", line]).ok();
        assert!(trav.contains(want), "{line}: {trav}");
    }
    // A line of the type's own body still names the type.
    assert!(get(&d, &["--view", "fold", "r.go:4"]).starts_with("r.go:Reader\t"));
    assert!(get(&d, &["--view", "fold", "r.go:1"]).starts_with("r.go\t"));
}

/// A minified bundle is one long line: an entity of it shows its own bytes, not the line.
#[test]
fn an_entity_of_a_minified_line_shows_its_own_bytes() {
    let d = Dir::new("get-minified");
    let mut js = String::from("var a=1;");
    for i in 0..3000 {
        js.push_str(&format!("function f{i}(x){{return x+{i}}};"));
    }
    js.push('\n');
    d.write("dist/bundle.js", &js);
    d.cmd("cds-build").arg("--no-ignore").stderr_of(0);
    for view in ["full", "preview"] {
        let got = get(&d, &["--view", view, "dist/bundle.js:f5"]);
        assert!(got.contains("1 | function f5(x){return x+5}\n"), "{view}: {got}");
        assert!(got.len() < 200, "{view}: {} bytes", got.len());
    }
    let json = get(&d, &["--json", "dist/bundle.js:f5"]);
    assert!(json.contains(r#""code":"function f5(x){return x+5}""#), "{json}");
    // A line range still shows the whole line, as asked.
    assert!(get(&d, &["dist/bundle.js:1"]).len() > js.len());
}

/// Several definitions of one qualified name (Java overloads, a Python property and its
/// setter) are one entity: cds-get shows each, a line inside any of them names it, and a
/// rebuild that does not read their file again keeps them.
#[test]
fn an_entity_of_several_definitions_shows_each() {
    let d = Dir::new("get-merged");
    d.write(
        "Foo.java",
        "package p;\n\npublic class Foo {\n    int bar(int a) {\n        return a;\n    }\n\n    \
         void other() {\n    }\n\n    int bar(String s) {\n        return s.length();\n    }\n}\n",
    );
    d.write(
        "m.py",
        "class A:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    \
         def x(self, v):\n        helper(v)\n\n\ndef helper(v):\n    return v\n",
    );
    d.cmd("cds-build").stderr_of(0);
    let check = |d: &Dir| {
        eqnice!(
            "\
Foo.java:Foo.bar\tfunction\tFoo.java:4-13\t2 definitions, the lines between omitted
```
 4 |     int bar(int a) {
 5 |         return a;
 6 |     }
   | ...  # lines 7-10 omitted
11 |     int bar(String s) {
12 |         return s.length();
13 |     }
```
",
            get(d, &["Foo.java:Foo.bar"])
        );
        // The record keeps the first definition's lines; the header's span is a valid argument.
        assert!(get(d, &["--view", "fold", "Foo.java:Foo.bar"]).contains("\t4-6\tint bar(int a)"));
        assert!(get(d, &["Foo.java:12"]).starts_with("Foo.java:12\trange\tin Foo.java:Foo.bar\n"));
        assert!(get(d, &["Foo.java:8"]).starts_with("Foo.java:8\trange\tin Foo.java:Foo.other\n"));
        assert!(get(d, &["m.py:8"]).starts_with("m.py:8\trange\tin m.py:A.x\n"));
        let json = get(d, &["--json", "m.py:A.x"]);
        let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
        assert_eq!(v["definitions"], 2);
        assert_eq!((v["start"].as_u64(), v["code_end"].as_u64()), (Some(2), Some(8)));
        assert!(v["code"].as_str().unwrap().contains("def x(self, v):"));
        assert!(v.get("elided").is_none(), "only the lines between definitions are left out");
        // The class's skeleton hides both bodies.
        let preview = get(d, &["--view", "preview", "m.py:A.x"]);
        assert!(preview.contains("helper(v)"), "{preview}");
    };
    check(&d);
    // Another file edited: m.py and Foo.java are not read again.
    d.write("other.py", "def f():\n    pass\n");
    d.cmd("cds-build").stderr_of(0);
    check(&d);
    // A single definition is as before: no note, no JSON field.
    let one = get(&d, &["--json", "m.py:helper"]);
    assert!(!one.contains("definitions"), "{one}");
    // The other definitions come from the cached facts: damaged, they are an error, not a
    // silent first definition alone.
    let generation = std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap();
    let blob = d.path(".cds").join(generation.trim()).join("facts.bin");
    let mut bytes = std::fs::read(&blob).unwrap();
    for b in bytes.iter_mut().skip(64) {
        *b ^= 0x5a;
    }
    std::fs::write(&blob, bytes).unwrap();
    let err = d.cmd("cds-get").arg("Foo.java:Foo.bar").stderr_of(2);
    assert!(err.contains("corrupt") && err.contains("run cds-build"), "{err}");
    assert!(get(&d, &["m.py:helper"]).contains("return v"), "a single definition needs no facts");
}

/// A range written backwards (`path:20-10`) is a usage error naming the fix, in every tool
/// that reads line references: it is more often a typo (120-14 for 120-140) than a wish, and
/// showing 14-120 instead would hide it.
#[test]
fn a_reversed_line_range_is_a_usage_error() {
    let d = demo("get-reversed");
    let want = "reversed line range 'shop/views.py:25-24': give the first line first \
                (shop/views.py:24-25)";
    for tool in ["cds-get", "cds-trav", "cds-fmt"] {
        let err = d.cmd(tool).arg("shop/views.py:25-24").stderr_of(2);
        assert_eq!(err.lines().next(), Some(format!("{tool}: {want}").as_str()), "{err}");
    }
    // On stdin too, after what came before it was shown.
    let out =
        d.cmd("cds-get").args(["--ids"]).stdin("shop/cart.py\nshop/views.py:25-24\n").output();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "shop/cart.py\n");
    // The range the right way round, and one line written as a range, still work.
    assert!(get(&d, &["shop/views.py:24-25"]).starts_with("shop/views.py:24-25\trange\t"));
    assert!(get(&d, &["shop/views.py:25-25"]).starts_with("shop/views.py:25\trange\t"));
}

/// A path holding a `:` (`a:b.py`, `x:y/m.py`, legal on Unix): its line references, IDs and
/// headers. Where `path:rest` could split at several colons, the path the index holds wins.
#[test]
fn paths_with_a_colon() {
    let d = Dir::new("get-colon");
    d.write("a:b.py", "class Alpha:\n    def x(self):\n        return 1\n");
    d.write("x:y/m.py", "def f():\n    return 2\n");
    d.write("a.py", "def a():\n    return 3\n");
    d.cmd("cds-build").stderr_of(0);
    let fold = |arg: &str| get(&d, &["--view", "fold", arg]);
    assert!(fold("a:b.py:2").starts_with("a:b.py:Alpha.x\t"), "{}", fold("a:b.py:2"));
    assert!(fold("a:b.py:2:    def x(self):").starts_with("a:b.py:Alpha.x\t"));
    assert!(fold("a:b.py:1-3").starts_with("a:b.py:Alpha\t"));
    assert!(fold("x:y/m.py:2").starts_with("x:y/m.py:f\t"));
    // The header's third field is the file's path and lines: itself a valid argument.
    for (id, want) in [
        ("a:b.py", "a:b.py\tfile\ta:b.py:1-3\n"),
        ("a:b.py:Alpha", "a:b.py:Alpha\tclass\ta:b.py:1-3\n"),
        ("a:b.py:Alpha.x", "a:b.py:Alpha.x\tfunction\ta:b.py:2-3\n"),
        ("x:y/m.py:f", "x:y/m.py:f\tfunction\tx:y/m.py:1-2\n"),
    ] {
        let got = get(&d, &[id]);
        assert!(got.starts_with(want), "{id}: {got}");
        let third = want.trim_end().split('\t').nth(2).unwrap();
        let path = third.rsplit_once(':').unwrap().0;
        assert!(get(&d, &["--ids", third]).starts_with(path), "{third}");
    }
    // The JSON path, and names: the class is found by its name, the file by its own.
    let json = get(&d, &["--json", "--view", "fold", "a:b.py:Alpha.x", "x:y/m.py"]);
    let recs: Vec<serde_json::Value> =
        json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!((recs[0]["path"].as_str(), recs[0]["name"].as_str()), (Some("a:b.py"), Some("x")));
    assert_eq!(
        (recs[1]["path"].as_str(), recs[1]["name"].as_str()),
        (Some("x:y/m.py"), Some("m.py"))
    );
    let hits = d.cmd("cds-search").args(["--json", "-t", "class", "Alpha"]).ok();
    let hit: serde_json::Value = serde_json::from_str(hits.trim()).unwrap();
    assert_eq!(
        (hit["id"].as_str(), hit["reasons"][0].as_str()),
        (Some("a:b.py:Alpha"), Some("exact name"))
    );
    let hits = d.cmd("cds-search").args(["--ids", "-t", "file", "m.py"]).ok();
    assert_eq!(hits.lines().next(), Some("x:y/m.py"), "{hits}");
    // A glob names the whole path.
    let hits = d.cmd("cds-search").args(["--ids", "-g", "a:b.py", "x"]).ok();
    assert_eq!(hits, "a:b.py:Alpha.x\n");
}

/// A UTF-8 byte-order mark (EF BB BF, which Windows editors write) is no part of line 1 in any
/// view, a definition on line 1 is found, and the first word is a word for search. The index
/// keeps the file's bytes as they are, so byte offsets stay the file's own.
#[test]
fn a_byte_order_mark_is_not_shown() {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let d = Dir::new("get-bom");
    d.write("bom.py", [BOM, b"def first():\n    return 1\n\n\nclass K:\n    pass\n"].concat());
    d.write("crlf.py", [BOM, b"def second():\r\n    return 2\r\n"].concat());
    d.write("app.js", [BOM, b"quagga();\nfunction go() {\n  return 1;\n}\n"].concat());
    d.cmd("cds-build").stderr_of(0);
    let no_bom = |s: &str| assert!(!s.contains('\u{feff}'), "{s:?}");
    let got = get(&d, &["bom.py:first"]);
    eqnice!(
        "bom.py:first\tfunction\tbom.py:1-2\n```\n1 | def first():\n2 |     return 1\n```\n",
        got
    );
    let got = get(&d, &["bom.py"]);
    assert!(got.contains("\n1 | def first():\n"), "{got}");
    no_bom(&got);
    eqnice!("def second():\n    return 2\n", get(&d, &["--plain", "crlf.py:second"]));
    let got = get(&d, &["--plain", "app.js"]);
    assert!(got.starts_with("quagga();\n"), "{got:?}");
    let json = get(&d, &["--json", "bom.py", "crlf.py:1", "app.js:1-2"]);
    no_bom(&json);
    for line in json.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let code = v["code"].as_str().unwrap();
        assert!(code.starts_with("def ") || code.starts_with("quagga"), "{code:?}");
    }
    // Line references on line 1 name the definition there; its fold is its signature.
    assert!(
        get(&d, &["--view", "fold", "bom.py:1"])
            .starts_with("bom.py:first\tfunction\t1-2\tdef first():\n")
    );
    assert!(get(&d, &["--view", "fold", "crlf.py:1"]).starts_with("crlf.py:second\t"));
    // The first word of the file is a search term like any other (the mark made it
    // `\u{feff}quagga`, one edit away).
    let hits = d.cmd("cds-search").args(["--json", "-t", "file", "quagga"]).ok();
    let hit: serde_json::Value = serde_json::from_str(hits.trim()).unwrap();
    assert_eq!(
        (hit["id"].as_str(), hit["reasons"][0].as_str()),
        (Some("app.js"), Some("bm25: quagga"))
    );
    for (tool, args) in [("cds-fmt", &["--markdown"][..]), ("cds-fmt", &["--full"][..])] {
        let out = d.cmd(tool).args(args).stdin("bom.py:first\napp.js\n").ok();
        no_bom(&out);
    }
}

/// Classic Mac line endings (a lone `\r`): each ends a line, as in Python's universal newlines,
/// C's and JavaScript's, and every editor; the graph's line numbers, `cds-get`'s lines and line
/// references agree, no raw `\r` reaches the terminal, and no definition is lost behind a
/// comment (the grammars end a line at `\n` only, so `// header` swallowed the whole file).
/// CRLF keeps working. (`rg -n` counts `\n` only: a file of lone `\r`s is one line to it.)
#[test]
fn lone_carriage_returns_end_lines() {
    let d = Dir::new("get-cr");
    d.write("cr.py", "def a():\r    return 1\r\rdef b():\r    return a()\r");
    d.write("cr.c", "// header\r\rint a(void) {\r  return 1;\r}\r");
    d.write("cr.go", "// header\rpackage m\r\rfunc A() int {\r\treturn 1\r}\r");
    d.write("cr.rb", "# header\rdef a\r  1\rend\r");
    d.write("crlf.py", "def a():\r\n    return 1\r\n\r\ndef b():\r\n    return a()\r\n");
    // Mostly `\n`, with one stray `\r` (a file edited on two systems).
    d.write("mixed.py", "x = 1\ry = 2\n\ndef c():\n    return 3\n");
    d.cmd("cds-build").stderr_of(0);
    let ids = d.cmd("cds-trav").args(["--ids", "-h", "-1", "/"]).ok();
    for want in ["cr.py:b", "cr.c:a", "cr.go:A", "cr.rb:a", "crlf.py:b", "mixed.py:c"] {
        assert!(ids.lines().any(|l| l == want), "{want} missing:\n{ids}");
    }
    eqnice!(
        "cr.c:a\tfunction\tcr.c:3-5\n```\n3 | int a(void) {\n4 |   return 1;\n5 | }\n```\n",
        get(&d, &["cr.c:a"])
    );
    eqnice!(
        "cr.py:b\tfunction\tcr.py:4-5\n```\n4 | def b():\n5 |     return a()\n```\n",
        get(&d, &["cr.py:b"])
    );
    eqnice!(
        "crlf.py:b\tfunction\tcrlf.py:4-5\n```\n4 | def b():\n5 |     return a()\n```\n",
        get(&d, &["crlf.py:b"])
    );
    assert!(
        get(&d, &["cr.py"])
            .starts_with("cr.py\tfile\tcr.py:1-5\n```\n1 | def a():\n2 |     return 1\n3 | \n")
    );
    assert!(get(&d, &["mixed.py:c"]).starts_with("mixed.py:c\tfunction\tmixed.py:4-5\n"));
    // Line references name the lines the graph numbers.
    assert!(get(&d, &["--view", "fold", "cr.py:5"]).starts_with("cr.py:b\t"));
    assert!(get(&d, &["--view", "fold", "cr.go:5"]).starts_with("cr.go:A\t"));
    assert!(
        get(&d, &["cr.c:4"]).starts_with("cr.c:4\trange\tin cr.c:a\n```\n4 |   return 1;\n```\n")
    );
    // Nothing printed holds a raw `\r`, in any view.
    for args in [
        &["cr.py", "cr.c", "crlf.py", "mixed.py"][..],
        &["--plain", "cr.go"],
        &["--json", "cr.rb", "cr.py:2-3"],
    ] {
        let out = get(&d, args);
        assert!(!out.contains('\r'), "{args:?}: {out:?}");
    }
    let md = d.cmd("cds-fmt").arg("--markdown").stdin("cr.rb:a\n").ok();
    assert!(!md.contains('\r') && md.contains("def a\n  1\nend\n"), "{md:?}");
    // rg -n prints such a file as its line 1, raw `\r`s and all: the pipeline goes on (the
    // `\r` is grep's text, not binary data), and the reference names line 1.
    let rg = "cr.py:1:def a():\r    return 1\r\rdef b():\r    return a()\r\nmixed.py:4:def c():\n";
    let got = d.cmd("cds-get").args(["--view", "fold"]).stdin(rg).ok();
    eqnice!("cr.py:a\tfunction\t1-2\tdef a():\nmixed.py:c\tfunction\t4-5\tdef c():\n", got);
}

/// A source file that is not UTF-8 (a Python 2 file declaring `coding: latin-1`, old Windows
/// code): a byte that is not UTF-8 is read as the Latin-1 character of its value, so names
/// keep every character (tree-sitter ended an identifier at such a byte: `r\xe9sum\xe9` was
/// indexed as `sum`), IDs are UTF-8 text, and an ID printed is accepted back.
#[test]
fn names_in_a_latin1_file_are_whole() {
    let d = Dir::new("get-latin1");
    d.write(
        "lat.py",
        b"# -*- coding: latin-1 -*-\ndef r\xe9sum\xe9(x):\n    return \"caf\xe9\"\n\n\nclass \xc9t\xe9:\n    def m\xe9(self):\n        return r\xe9sum\xe9(1)\n",
    );
    d.write(
        "lat.js",
        b"function r\xe9sum\xe9() { return 1; }\nfunction other() { return r\xe9sum\xe9(); }\n",
    );
    d.write("Lat.java", b"class Lat { void r\xe9sum\xe9() {} void o() { r\xe9sum\xe9(); } }\n");
    d.write("lat.rb", b"class \xc9t\xe9\n  def r\xe9sum\xe9\n  end\nend\n");
    d.write("ok.py", "def caf\u{e9}():\n    return 1\n");
    d.cmd("cds-build").stderr_of(0);
    let ids = d.cmd("cds-trav").args(["--ids", "-h", "-1", "/"]).ok();
    for want in [
        "lat.py:r\u{e9}sum\u{e9}",
        "lat.py:\u{c9}t\u{e9}",
        "lat.py:\u{c9}t\u{e9}.m\u{e9}",
        "lat.js:r\u{e9}sum\u{e9}",
        "lat.js:other",
        "Lat.java:Lat.r\u{e9}sum\u{e9}",
        "Lat.java:Lat.o",
        "lat.rb:\u{c9}t\u{e9}.r\u{e9}sum\u{e9}",
        "ok.py:caf\u{e9}",
    ] {
        assert!(ids.lines().any(|l| l == want), "{want} missing:\n{ids}");
    }
    // Every ID printed is read back, by cds-get and cds-trav, as it was printed.
    for id in ids.lines().filter(|l| l.contains("lat.") || l.contains("Lat.")) {
        eqnice!(format!("{id}\n"), get(&d, &["--ids", id]));
    }
    eqnice!(ids, d.cmd("cds-get").arg("--ids").stdin(ids.as_str()).ok());
    // Calls link to the whole names; the fold line is the signature as the ID spells it.
    let callers = d
        .cmd("cds-trav")
        .args(["--ids", "-r", "invoke", "-d", "up", "--no-roots", "lat.py:r\u{e9}sum\u{e9}"])
        .ok();
    assert_eq!(callers, "lat.py:\u{c9}t\u{e9}.m\u{e9}\n");
    let callers = d
        .cmd("cds-trav")
        .args(["--ids", "-r", "invoke", "-d", "up", "--no-roots", "lat.js:r\u{e9}sum\u{e9}"])
        .ok();
    assert_eq!(callers, "lat.js:other\n");
    eqnice!(
        "lat.py:r\u{e9}sum\u{e9}\tfunction\t2-3\tdef r\u{e9}sum\u{e9}(x):\n",
        get(&d, &["--view", "fold", "lat.py:r\u{e9}sum\u{e9}"])
    );
    // Found by name, in either case.
    let hits = d.cmd("cds-search").args(["--ids", "R\u{c9}SUM\u{c9}"]).ok();
    assert!(hits.lines().any(|l| l == "lat.py:r\u{e9}sum\u{e9}"), "{hits}");
    // The code itself is shown as stored (the terminal decides), and as text in JSON.
    let plain = d.cmd("cds-get").args(["--plain", "lat.py:r\u{e9}sum\u{e9}"]).output();
    assert_eq!(plain.stdout, b"def r\xe9sum\xe9(x):\n    return \"caf\xe9\"\n");
    let json = get(&d, &["--json", "lat.py:r\u{e9}sum\u{e9}"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["code"], "def r\u{e9}sum\u{e9}(x):\n    return \"caf\u{e9}\"");
}
