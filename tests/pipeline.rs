//! Pipelines of the real binaries through a real shell: multi-stage walks, JSON Lines round
//! trips through every tool, NUL-separated records, mixes with rg and jq, and a reader that
//! closes the pipe early (`| head -1`).

use std::process::{Command, Output, Stdio};

use crate::util::{Dir, bin};

fn demo(name: &str) -> Dir {
    let d = Dir::demo(name);
    d.cmd("cds-build").stderr_of(0);
    d
}

/// Runs `script` with bash (`set -o pipefail`) in the directory, the cds binaries first on
/// PATH.
pub fn sh(d: &Dir, script: &str) -> Output {
    let bins = bin("cds-build").parent().expect("the binaries' directory").to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bins)
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH");
    Command::new("bash")
        .arg("-c")
        .arg(format!("set -o pipefail\n{script}"))
        .current_dir(&d.root)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("CDS_INDEX")
        .stdin(Stdio::null())
        .output()
        .expect("bash runs")
}

/// Runs `script`, expects exit 0 and a silent stderr, returns stdout.
fn sh_ok(d: &Dir, script: &str) -> String {
    let out = sh(d, script);
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && stderr.is_empty(),
        "\n$ {script}\nexit {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status.code()
    );
    stdout.into_owned()
}

fn have(program: &str) -> bool {
    let found = Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("{program} not installed: part of the test skipped");
    }
    found
}

#[test]
fn three_stage_pipeline() {
    let d = demo("pipe-three");
    let got = sh_ok(
        &d,
        "cds-trav --ids -h0 shop/pricing.py:round_money | cds-trav -h1 -r invoke -d up --no-roots | cds-get",
    );
    eqnice!(
        "\
shop/pricing.py:apply_discount\tfunction\tshop/pricing.py:16-18
```
16 | def apply_discount(amount, percent):
17 |     \"\"\"Apply a percentage discount, rounding to whole cents.\"\"\"
18 |     return round_money(Money(amount.cents * (100 - percent) / 100))
```
",
        got
    );
    // Callers of callers, previewed, in four stages.
    let got = sh_ok(
        &d,
        "cds-trav --ids -h0 shop/security.py:strip_tags | cds-trav -d up -r invoke --no-roots \
         | cds-trav -d up -r invoke --no-roots | cds-get --view fold",
    );
    eqnice!(
        "\
shop/models.py:User.display_name\tfunction\t19-20\tdef display_name(self):
shop/models.py:Profile.update_bio\tfunction\t30-32\tdef update_bio(self, text):
shop/views.py:checkout\tfunction\t22-26\tdef checkout(request):
",
        got
    );
}

/// JSON Lines from each tool are read by each other tool, and the IDs survive every hop.
#[test]
fn json_lines_round_trip_through_every_tool() {
    let d = demo("pipe-json");
    let ids = sh_ok(&d, "cds-trav --ids -h2 -d both shop/cart.py:Cart.total");
    assert!(ids.lines().count() > 10, "{ids}");
    let through = sh_ok(
        &d,
        "cds-trav --json -h2 -d both shop/cart.py:Cart.total | cds-get --json | cds-fmt --json \
         | cds-trav --json -h0 | cds-get --json --view preview | cds-get --json --view fold \
         | cds-fmt --ids",
    );
    eqnice!(ids, through);
    // And each tool's JSON parses, with the fields of the shared record.
    for script in [
        "cds-trav --json -h2 shop/cart.py:Cart",
        "cds-trav --ids -h2 shop/cart.py:Cart | cds-get --json",
        "cds-trav --ids -h2 shop/cart.py:Cart | cds-get --json --view fold",
        "cds-trav --ids -h2 shop/cart.py:Cart | cds-fmt --json",
    ] {
        for line in sh_ok(&d, script).lines() {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{script}: {e}: {line}"));
            for field in ["id", "kind", "path", "name", "start", "end", "fold", "test"] {
                assert!(v.get(field).is_some(), "{script}: no {field} in {line}");
            }
        }
    }
}

/// The default text of each tool, and bare or NUL-separated IDs, are valid input too.
#[test]
fn text_and_nul_records_round_trip() {
    let d = demo("pipe-text");
    let ids = sh_ok(&d, "cds-trav --ids -h2 shop/models.py:Profile");
    for script in [
        "cds-trav -h2 shop/models.py:Profile | cds-get --ids",
        "cds-trav -h2 shop/models.py:Profile | cds-get --view fold | cds-trav -h0 --ids",
        "cds-trav -h2 shop/models.py:Profile | cds-fmt | cds-fmt --ids",
        "cds-trav -0 --ids -h2 shop/models.py:Profile | cds-get --ids",
        "cds-trav -0 -h2 shop/models.py:Profile | cds-fmt -0 --json | cds-trav -h0 --ids",
        "cds-trav --ids -h2 shop/models.py:Profile | cds-get | grep -P '^[^ `|]+\\t' | cds-get --ids",
    ] {
        eqnice!(ids, sh_ok(&d, script));
    }
    // The first column of --edges is an ID.
    let srcs =
        sh_ok(&d, "cds-trav --edges -d up -r invoke shop/models.py:Profile.render | cds-get --ids");
    eqnice!("shop/views.py:profile_page\nshop/views.py:update_profile\n", srcs);
}

#[test]
fn mixed_with_rg_and_jq() {
    let d = demo("pipe-rg-jq");
    if have("jq") {
        let got = sh_ok(
            &d,
            "cds-trav --json -h2 shop/cart.py:Cart | jq -r 'select(.hop==1).id' | cds-get --ids",
        );
        eqnice!(
            "shop/cart.py:Cart.__init__\nshop/cart.py:Cart.add\nshop/cart.py:Cart.subtotal\nshop/cart.py:Cart.total\n",
            got
        );
        let got = sh_ok(
            &d,
            "cds-trav --edges --json -d up -r invoke -h2 shop/models.py:User.display_name \
             | jq -r 'select(.meta==1).src' | sort -u",
        );
        eqnice!("shop/views.py:update_profile\n", got);
    }
    if have("rg") {
        // Files rg finds, as entities.
        let got = sh_ok(&d, "rg -l 'import html' | cds-get --view fold");
        eqnice!("shop/security.py\tfile\t1-28\t\n", got);
        // Grep hits name the functions around them; then their callers.
        let got = sh_ok(&d, "rg -n 'html.escape' shop | cds-trav -d up -r invoke --ids");
        eqnice!(
            "shop/security.py:sanitize_user_input\nshop/models.py:User.display_name\nshop/models.py:Profile.update_bio\nshop/views.py:checkout\n",
            got
        );
        // rg run inside a subdirectory prints paths relative to it.
        let got = sh_ok(&d, "cd shop && rg -l 'class Money' | cds-get --ids");
        eqnice!("shop/pricing.py\n", got);
    }
}

/// A reader that stops after one line: every tool ends quietly with status 0, whatever it was
/// writing (text, JSON, code blocks, trees).
#[test]
fn head_closes_the_pipe_early() {
    let d = Dir::new("pipe-head");
    // Enough code that no tool finishes before head exits.
    for f in 0..60 {
        let mut s = String::new();
        for g in 0..40 {
            s.push_str(&format!(
                "def f{g}(x):\n    \"\"\"Doc {g}.\"\"\"\n    return f{}(x) + {g}\n\n\n",
                (g + 1) % 40
            ));
        }
        d.write(&format!("pkg/m{f}.py"), s);
    }
    d.cmd("cds-build").stderr_of(0);
    let ids = sh_ok(&d, "cds-trav --ids -h -1 --limit 0 -r contain /");
    assert!(ids.lines().count() > 2000);
    std::fs::write(d.path("ids.txt"), ids.repeat(3)).unwrap();
    for script in [
        "cds-trav -h -1 --limit 0 --fanout 0 -r contain /",
        "cds-trav --json -h -1 --limit 0 --fanout 0 -d both /",
        "cds-trav --tree -h -1 --limit 0 --fanout 0 /",
        "cds-trav --edges -h -1 --limit 0 --fanout 0 /",
        "cds-get < ids.txt",
        "cds-get --json < ids.txt",
        "cds-get -0 --view preview < ids.txt",
        "cds-fmt --full < ids.txt",
        "cds-fmt --markdown < ids.txt",
        "cds-fmt --graph",
    ] {
        let out = sh(&d, &format!("{script} | head -1 > /dev/null; echo \"${{PIPESTATUS[0]}}\""));
        let (stdout, stderr) =
            (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!((stdout.trim(), stderr.as_ref()), ("0", ""), "{script} | head -1");
    }
}

/// A path that is not UTF-8 travels in its escaped form and reads back to the same file.
#[cfg(unix)]
#[test]
fn non_utf8_paths_round_trip() {
    use std::os::unix::ffi::OsStrExt;
    let d = Dir::new("pipe-bytes");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.py");
    std::fs::write(d.root.join(name), "def brew():\n    return 1\n").unwrap();
    d.write("main.py", "from caf import brew\n\ndef run():\n    return 2\n");
    d.cmd("cds-build").stderr_of(0);
    let ids = sh_ok(&d, "cds-trav --ids -r contain -h -1 /");
    assert!(ids.contains("\ncaf\\xE9.py\n") && ids.contains("\ncaf\\xE9.py:brew\n"), "{ids}");
    eqnice!(
        "caf\\xE9.py:brew\tfunction\tcaf\\xE9.py:1-2\n```\n1 | def brew():\n2 |     return 1\n```\n",
        sh_ok(&d, "cds-trav --ids -r contain -h -1 / | grep brew | cds-get")
    );
    let json = sh_ok(&d, "cds-get --json 'caf\\xE9.py:brew' | cds-fmt --ids");
    eqnice!("caf\\xE9.py:brew\n", json);
}

/// The examples in the query tools' `--help` (and so their man pages) run on the demo
/// repository as written: a renamed flag, a changed output format or an ID a tool no longer
/// reads fails here, not in a user's shell. Examples that name another repository's code
/// (Django's) may find nothing (exit 1 with "no match"); those needing a program this machine
/// lacks (rg, ast-grep, dot, gh) are skipped.
#[test]
fn help_examples_run() {
    let d = demo("pipe-help-examples");
    d.write("issue.md", "The cart total ignores the discount: Cart.total\n");
    // Examples that grep Django's tree (`rg -l csrf_failure django`) need the directory to be
    // there, or rg's own error would read as the tool's.
    d.write("django/README", "Not Django: a stand-in for the examples that search its tree.\n");
    let mut ran = 0;
    for tool in ["cds-search", "cds-trav", "cds-get", "cds-fmt", "cds-loc"] {
        let help = d.cmd(tool).arg("--help").ok();
        let examples = help.lines().filter_map(|l| l.trim_start().strip_prefix("$ "));
        for ex in examples {
            let words: Vec<&str> = ex.split_whitespace().collect();
            let lacking = ["rg", "ast-grep", "dot", "gh", "jq"]
                .into_iter()
                .find(|p| words.contains(p) && !have(p));
            if lacking.is_some() {
                continue;
            }
            let out = sh(&d, ex);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let no_match = out.status.code() == Some(1) && stderr.contains("no match");
            assert!(
                (out.status.success() || no_match)
                    && !["no entity", "unknown flag", "invalid", "usage", "error"]
                        .iter()
                        .any(|w| stderr.contains(w)),
                "\n$ {ex}\nexit {:?}\n--- stderr\n{stderr}",
                out.status.code()
            );
            ran += 1;
        }
    }
    assert!(ran >= 25, "only {ran} examples ran");
}
