//! cds-build: builds, rebuilds, the summary, and every kind of bad input.

use std::os::unix::ffi::OsStrExt;

use crate::util::{Dir, bin};

/// Builds and returns stderr (the summary).
fn build(d: &Dir, args: &[&str]) -> String {
    d.cmd("cds-build").args(args).stderr_of(0)
}

/// `cds-build --verify` on the directory's index: exit code and stderr.
fn verify(d: &Dir) -> (i32, String) {
    let out = d.cmd("cds-build").args(["--verify"]).output();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn builds_the_demo_and_summarizes() {
    let d = Dir::demo("build-demo");
    let err = build(&d, &[]);
    assert!(err.starts_with("cds-build: 10 files (10 parsed), 38 entities"), "{err}");
    // The demo mixes two languages; the summary counts each.
    assert!(err.contains("python 7 files 30 entities, typescript 3 files 8 entities"), "{err}");
    for part in ["contain", "import", "invoke", "inherit", "guessed", "syntax errors", "MiB in"] {
        assert!(err.contains(part), "summary lacks {part}: {err}");
    }
    assert!(d.path(".cds/CURRENT").is_file());
    assert_eq!(verify(&d).0, 0);
}

#[test]
fn json_summary_on_stdout() {
    let d = Dir::demo("build-json");
    let out = d.cmd("cds-build").arg("--json").ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["files"], 10);
    assert_eq!(v["entities"], 38);
    assert_eq!(v["languages"][0]["language"], "python");
    assert_eq!(v["languages"][1]["language"], "typescript");
    assert_eq!(v["languages"][1]["files"], 3);
    assert!(v["edges"]["invoke"].as_u64().unwrap() > 0);
}

#[test]
fn rebuilds_are_incremental() {
    let d = Dir::demo("build-incremental");
    build(&d, &[]);
    let err = build(&d, &[]);
    assert!(err.contains("up to date"), "{err}");
    // Same content, new mtime: read and hashed, not parsed.
    let p = d.path("shop/cart.py");
    let content = std::fs::read(&p).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&p, &content).unwrap();
    let err = build(&d, &[]);
    assert!(err.contains("10 files (0 parsed)"), "{err}");
    // The same again, as a `git checkout` there and back does: nothing to link again.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&p, &content).unwrap();
    let json = d.cmd("cds-build").arg("--json").ok();
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!((&v["parsed"], &v["relinked"]), (&0.into(), &false.into()), "{json}");
    // One edited file: one parse, and the edit is in the graph.
    std::fs::write(&p, [content.as_slice(), b"\ndef added():\n    pass\n"].concat()).unwrap();
    let err = build(&d, &[]);
    assert!(err.contains("10 files (1 parsed), 39 entities"), "{err}");
    // A new file and a deleted one.
    d.write("shop/extra.py", "def extra():\n    pass\n");
    std::fs::remove_file(d.path("shop/pricing.py")).unwrap();
    let err = build(&d, &[]);
    assert!(err.contains("10 files (1 parsed)"), "{err}");
    // --force parses everything.
    let err = build(&d, &["--force"]);
    assert!(err.contains("10 files (10 parsed)"), "{err}");
    assert_eq!(verify(&d).0, 0);
}

#[test]
fn gitignore_hidden_exclude_and_the_index_are_honoured() {
    let d = Dir::new("build-ignore");
    d.write("keep.py", "def keep():\n    pass\n")
        .write(".gitignore", "ignored/\n")
        .write("ignored/x.py", "def x():\n    pass\n")
        .write(".hidden/h.py", "def h():\n    pass\n")
        .write("gen/g_pb2.py", "def g():\n    pass\n")
        .write(".git/hooks/hook.py", "def hook():\n    pass\n");
    let err = build(&d, &["--exclude", "*_pb2.py"]);
    assert!(err.contains("1 files"), "{err}");
    let err = build(&d, &["--hidden", "--no-ignore", "--force"]);
    // .git is never indexed, even with --hidden.
    assert!(err.contains("4 files"), "{err}");
}

#[test]
fn syntax_errors_are_indexed_and_counted() {
    let d = Dir::new("build-syntax");
    d.write("ok.py", "def fine():\n    pass\n").write(
        "broken.py",
        "def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass Later:\n    pass\n",
    );
    let err = build(&d, &[]);
    assert!(err.contains("2 files"), "{err}");
    assert!(err.contains("1 with syntax errors"), "{err}");
}

#[test]
fn binary_large_and_non_utf8_files() {
    let d = Dir::new("build-bad-content");
    d.write("ok.py", "def fine():\n    pass\n")
        .write("blob.py", b"\x00\x01\x02binary\x00".as_slice())
        .write("latin1.py", b"# caf\xe9\ndef menu():\n    return '\xe9'\n".as_slice())
        .write("big.py", format!("X = '{}'\n", "a".repeat(4000)));
    let err = build(&d, &["--max-filesize", "2K"]);
    assert!(err.contains("skipped blob.py: binary"), "{err}");
    assert!(err.contains("skipped big.py:") && err.contains("--max-filesize"), "{err}");
    assert!(err.contains("2 files"), "{err}");
    assert!(err.contains("2 skipped"), "{err}");
}

#[test]
fn non_utf8_paths_are_indexed() {
    let d = Dir::new("build-nonutf8-path");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.py");
    std::fs::write(d.root.join(name), "def menu():\n    pass\n").unwrap();
    d.write("ok.py", "def fine():\n    pass\n");
    let err = build(&d, &[]);
    assert!(err.contains("2 files"), "{err}");
    assert_eq!(verify(&d).0, 0);
}

#[test]
fn unreadable_entries_and_symlink_loops() {
    let d = Dir::new("build-links");
    d.write("pkg/ok.py", "def fine():\n    pass\n");
    std::os::unix::fs::symlink("../pkg", d.path("pkg/loop")).unwrap();
    std::os::unix::fs::symlink("missing.py", d.path("pkg/dangling.py")).unwrap();
    // Without --follow links are not followed at all.
    let err = build(&d, &[]);
    assert!(err.contains("1 files"), "{err}");
    // With --follow the loop is detected and reported, the dangling link too; no hang.
    let err = build(&d, &["--follow", "--force"]);
    assert!(err.contains("symbolic link loop"), "{err}");
    assert!(err.contains("dangling.py"), "{err}");
    assert!(err.contains("1 files"), "{err}");
}

#[test]
fn empty_repository_and_bad_paths() {
    let d = Dir::new("build-empty");
    d.write("README.md", "no python here\n");
    let err = d.cmd("cds-build").stderr_of(1);
    assert!(err.contains("no source files found"), "{err}");
    assert!(!d.path(".cds").exists(), "nothing may be written");

    let err = d.cmd("cds-build").arg("does-not-exist").stderr_of(2);
    assert!(err.contains("no such directory does-not-exist"), "{err}");
    let err = d.cmd("cds-build").arg("README.md").stderr_of(2);
    assert!(err.contains("is not a directory"), "{err}");
    d.write("x.py", "def f():\n    pass\n");
    let err = d.cmd("cds-build").args(["--index", "README.md/idx"]).stderr_of(2);
    assert!(err.contains("cannot create index directory") && err.contains("--index"), "{err}");
}

#[test]
fn usage_errors() {
    let d = Dir::new("build-usage");
    let err = d.cmd("cds-build").arg("--jbos").stderr_of(2);
    assert!(err.contains("--jobs"), "suggestion expected: {err}");
    let err = d.cmd("cds-build").args(["--compat", "nope"]).stderr_of(2);
    assert!(err.contains("locagent"), "{err}");
    let err = d.cmd("cds-build").args(["--max-filesize", "lots"]).stderr_of(2);
    assert!(err.contains("512K"), "{err}");
}

/// Every way an index can be broken gives one clear line and status 2, never a panic.
#[test]
fn corrupt_indexes_are_refused() {
    let d = Dir::demo("build-corrupt");
    build(&d, &[]);
    let generation = std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap().trim().to_string();
    let graph = d.path(format!(".cds/{generation}/graph.rkyv"));
    let good = std::fs::read(&graph).unwrap();

    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..good.len() / 2].to_vec(), "corrupt"),
        ("header only", good[..10].to_vec(), "truncated"),
        ("empty", Vec::new(), "truncated"),
        (
            "foreign",
            b"PK\x03\x04 this is a zip file, not an index...........".to_vec(),
            "not a cds index",
        ),
        ("older", with_version(&good, 0), "older cds: run cds-build"),
        ("newer", with_version(&good, 99), "newer cds"),
        ("flipped payload", flip_tail(&good), "corrupt"),
    ];
    for (what, bytes, expect) in cases {
        std::fs::write(&graph, &bytes).unwrap();
        let (code, err) = verify(&d);
        assert_eq!(code, 2, "{what}: {err}");
        assert!(err.contains(expect), "{what}: expected '{expect}' in: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: one line expected: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
    }
    // A rebuild replaces the damaged generation.
    std::fs::write(&graph, &good[..100]).unwrap();
    build(&d, &["--force"]);
    assert_eq!(verify(&d).0, 0);

    // CURRENT pointing nowhere, or missing.
    std::fs::write(d.path(".cds/CURRENT"), "gen-999999\n").unwrap();
    let (code, err) = verify(&d);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("missing"), "{err}");
    std::fs::remove_file(d.path(".cds/CURRENT")).unwrap();
    let (code, err) = verify(&d);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no index found"), "{err}");
}

fn with_version(good: &[u8], v: u32) -> Vec<u8> {
    let mut b = good.to_vec();
    b[8..12].copy_from_slice(&v.to_le_bytes());
    b
}

fn flip_tail(good: &[u8]) -> Vec<u8> {
    let mut b = good.to_vec();
    let n = b.len();
    for x in &mut b[n - 64..] {
        *x ^= 0xA5;
    }
    b
}

#[test]
fn a_killed_build_leaves_the_old_index_usable() {
    let d = Dir::new("build-killed");
    for i in 0..400 {
        d.write(&format!("pkg{}/m{i}.py", i % 20), format!("def f{i}(x):\n    return x + {i}\n\nclass C{i}:\n    def m(self):\n        return f{i}(1)\n"));
    }
    build(&d, &[]);
    // Kill rebuilds at different moments; whatever moment it lands at, the index must stay
    // sound and the next build must succeed.
    for delay_ms in [5u64, 20, 60, 120] {
        d.write("pkg0/m0.py", format!("def changed():\n    return {delay_ms}\n"));
        let mut child = std::process::Command::new(bin("cds-build"))
            .args(["--force"])
            .current_dir(&d.root)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let (code, err) = verify(&d);
        assert_eq!(code, 0, "after a kill at {delay_ms} ms: {err}");
    }
    build(&d, &[]);
    // Partial generations left by killed builds are cleaned up.
    let leftovers: Vec<_> = std::fs::read_dir(d.path(".cds"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_rebuild_keeps_the_live_and_the_previous_generation_only() {
    // Older generations are removed while the next one is built; the one readers may still be
    // opening (the previous) stays whole.
    let d = Dir::new("build-generations");
    let gens = |d: &Dir| {
        let mut v: Vec<String> = std::fs::read_dir(d.path(".cds"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("gen-") || n.starts_with("tmp-"))
            .collect();
        v.sort();
        v
    };
    for i in 1..=4 {
        d.write(
            "m.py",
            format!(
                "def f{i}():
    return {i}
"
            ),
        );
        std::thread::sleep(std::time::Duration::from_millis(15));
        build(&d, &[]);
    }
    assert_eq!(gens(&d), ["gen-000003", "gen-000004"]);
    let previous = d.path(".cds/gen-000003");
    for f in ["graph.rkyv", "names.fst", "content.bin", "facts.rkyv", "postings.rkyv"] {
        assert!(previous.join(f).is_file(), "the previous generation lost {f}");
    }
    assert_eq!(verify(&d).0, 0);
}

#[test]
fn contents_are_shared_between_generations_and_written_anew_once_mostly_unused() {
    use std::os::unix::fs::MetadataExt;
    let d = Dir::new("build-content-shared");
    let big: String =
        (0..200).map(|i| format!("def big_{i}(x):\n    return x + {i}\n\n")).collect();
    d.write("big.py", &big);
    d.write("m.py", "def f():\n    return 1\n");
    build(&d, &[]);
    let content = |d: &Dir| {
        let generation = std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap();
        std::fs::metadata(d.path(".cds").join(generation.trim()).join("content.bin")).unwrap()
    };
    let first = content(&d);
    // One small file changed: its new content is appended to the same file, the rest stays.
    std::thread::sleep(std::time::Duration::from_millis(15));
    let edited = "def f():\n    return 2  # edited\n";
    d.write("m.py", edited);
    build(&d, &[]);
    let second = content(&d);
    assert_eq!(first.ino(), second.ino(), "content.bin was written anew");
    assert_eq!(second.len(), first.len() + edited.len() as u64);
    let ix = cds::index::read::Index::open(&d.path(".cds")).unwrap();
    let mut stored: Vec<&[u8]> = (0..2).map(|f| ix.file_content(f)).collect();
    stored.sort();
    assert_eq!(stored, [big.as_bytes(), edited.as_bytes()]);
    assert_eq!(verify(&d).0, 0);
    // Once most of its bytes are the big file's old versions, a build writes it anew: only
    // what the files hold now.
    for i in 0..3 {
        std::thread::sleep(std::time::Duration::from_millis(15));
        d.write("big.py", big.replace("return x", &format!("return {i} * x")));
        build(&d, &[]);
    }
    let last = content(&d);
    assert_ne!(last.ino(), first.ino(), "content.bin was never written anew");
    let live = std::fs::metadata(d.path("big.py")).unwrap().len() + edited.len() as u64;
    assert!(last.len() <= 32 + 2 * live, "{} bytes for {live} live", last.len());
    assert_eq!(verify(&d).0, 0);
    // A damaged byte of a file's content is caught by its checksum.
    let generation = std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap();
    let path = d.path(".cds").join(generation.trim()).join("content.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x20;
    std::fs::write(&path, bytes).unwrap();
    let (code, err) = verify(&d);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("content.bin") && err.contains("checksum"), "{err}");
}

#[test]
fn an_up_to_date_build_removes_partial_generations() {
    // A build killed after making its generation live, while removing the partial generations
    // of builds killed before it, leaves some behind; the next build finds nothing changed.
    let d = Dir::new("build-partial-left");
    d.write("m.py", "def f():\n    return 1\n");
    build(&d, &[]);
    let partial = d.path(".cds").join("tmp-999999-7");
    std::fs::create_dir(&partial).unwrap();
    std::fs::write(partial.join("graph.rkyv"), b"partial").unwrap();
    build(&d, &[]);
    assert!(!partial.exists());
    let (code, err) = verify(&d);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_build_stopped_by_a_file_size_limit_is_undone() {
    // A full disk, as a test can make one: `ulimit -f`, where a write fails with "File too
    // large" instead of "No space left on device". What the failed build appended to the files
    // it shares with the live generation must go with it: on a full disk those bytes would
    // stay, and keep every later build from fitting.
    let d = Dir::demo("build-fsize");
    build(&d, &[]);
    let live = std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap();
    let shared = |f: &str| d.path(format!(".cds/{}/{f}", live.trim()));
    let size = |f: &str| std::fs::metadata(shared(f)).unwrap().len();
    let before = (size("content.bin"), size("facts.bin"));
    // A megabyte of new code; the limit (256 or 512 KiB, as the shell counts its blocks) lets
    // the build start appending, then stops it.
    for k in 0..4 {
        let body: String =
            (0..6000).map(|i| format!("def f_{k}_{i}(x):\n    return g_{i}(x) + {i}\n")).collect();
        d.write(&format!("big{k}.py"), body);
    }
    let out = std::process::Command::new("sh")
        .args(["-c", "ulimit -f 512 && exec \"$0\" -q", bin("cds-build").to_str().unwrap()])
        .current_dir(&d.root)
        .env_remove("CDS_INDEX")
        .output()
        .unwrap();
    // Killed by SIGXFSZ, the status would have no code.
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("cds-build: cannot write "), "{err}");
    assert!(err.ends_with("File too large: free some space (or raise the limit) and try again\n"));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_to_string(d.path(".cds/CURRENT")).unwrap(), live);
    assert_eq!((size("content.bin"), size("facts.bin")), before);
    // The live index answers as before, and the next build, without the limit, takes it all.
    assert!(d.cmd("cds-search").arg("Cart").ok().starts_with("shop/cart.py:Cart\t"));
    build(&d, &[]);
    assert!(d.cmd("cds-search").arg("f_3_5999").ok().starts_with("big3.py:f_3_5999\t"));
    assert_eq!(verify(&d).0, 0);
}

#[test]
fn concurrent_builds_do_not_corrupt_each_other() {
    let d = Dir::demo("build-concurrent");
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(bin("cds-build"))
                .args(["--force", "-q"])
                .current_dir(&d.root)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    assert_eq!(verify(&d).0, 0);
}

/// A language family with enough facts is linked in two parts, each with a driver of its own,
/// on two threads (beside a Python value flow too): every fixture's graph (and its confidence
/// counts) is the one linking it in one part gives.
#[test]
fn linking_in_two_parts_gives_the_same_graph() {
    let langs = ["c", "cpp", "go", "java", "php", "ruby", "rust"];
    for (lang, python) in langs.iter().flat_map(|l| [(*l, false), (*l, true)]) {
        let d = Dir::fixture(&format!("split-{lang}-{python}"), lang);
        if python {
            d.write("tools/helper.py", "def helper():\n    return 1\n");
        }
        let mut graphs = Vec::new();
        for split in ["0", "1000000000"] {
            let summary =
                d.cmd("cds-build").args(["--json", "--force"]).env("CDS_LINK_SPLIT", split).ok();
            let v: serde_json::Value = serde_json::from_str(summary.trim()).unwrap();
            let counts = ["nodes", "edges", "ambiguous", "guessed"].map(|k| v[k].clone());
            graphs.push((counts, d.cmd("cds-fmt").arg("--graph").ok()));
        }
        assert!(graphs[0].1.lines().count() > 10, "{lang}: {}", graphs[0].1);
        assert!(graphs[0] == graphs[1], "{lang} (Python beside: {python}): two parts differ");
    }
}
