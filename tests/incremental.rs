//! Incremental rebuilds equal cold builds: a seeded sequence of random edits (add, delete and
//! rename files and directories, edit a definition, a call, an import, a file that stops being
//! Python), each followed by an incremental `cds-build` of one index and a `--force` build of
//! another; the two graphs must be equal node for node and edge for edge, and searches must
//! answer alike. A second test does the same across languages (C/C++ headers, JS, Go, Ruby,
//! PHP, Python), with edits whose effect crosses files and languages, and a third edits one
//! language of four at random: only its family is linked again, the others keep their edges.
//!
//! `CDS_EDITS` (default 16) sets the number of edits and `CDS_EDIT_SEED` the seed.

use std::path::Path;

use crate::util::Dir;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// The Python files of the tree, relative and sorted.
fn py_files(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if e.file_name() == ".cds" || e.file_name() == "cold" {
                continue;
            }
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "py") {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// A module that defines a class and functions and uses other modules.
fn module(rng: &mut Rng, n: usize, others: &[String]) -> String {
    let mut s = String::new();
    let imports: Vec<&String> =
        (0..2).filter_map(|_| others.get(rng.below(others.len().max(1)))).collect();
    for other in &imports {
        let m = other.trim_end_matches(".py").replace('/', ".");
        s.push_str(&format!("from {m} import helper_{}, Base{}\n", rng.below(4), rng.below(3)));
    }
    s.push_str(&format!(
        "\n\nclass Base{n}:\n    def run(self, x):\n        return helper_{}(x)\n",
        rng.below(4)
    ));
    s.push_str(&format!("\n    def describe(self):\n        return \"base {n} at work\"\n"));
    s.push_str(&format!(
        "\n\nclass Child{n}(Base{}):\n    def run(self, x):\n        return super().run(x) + self.extra()\n\n    def extra(self):\n        return {n}\n",
        rng.below(3)
    ));
    for k in 0..4 {
        s.push_str(&format!(
            "\n\ndef helper_{k}(value):\n    return helper_{}(value) if value else {k}\n",
            rng.below(4)
        ));
    }
    s
}

/// What [`edit`] did, and whether it only moved code or changed what linking does not read
/// (comments, numbers, messages), so the rebuild must keep the previous edges.
struct Edit {
    what: String,
    position_only: bool,
}

fn edit(d: &Dir, rng: &mut Rng, step: usize) -> Edit {
    let files = py_files(&d.root);
    let pick = |rng: &mut Rng| files[rng.below(files.len())].clone();
    let what = match rng.below(10) {
        8 | 9 => {
            // Lines shifted by a comment, a number or a message changed: the same facts but
            // positions.
            let rel = pick(rng);
            let text = std::fs::read_to_string(d.path(&rel)).unwrap();
            let text = match rng.below(3) {
                0 => format!("# edit {step}\n\n{text}"),
                1 => text.replacen(" else ", " else 1", 1),
                _ => text.replacen(" at work", &format!(" at work {step}"), 1),
            };
            d.write(&rel, text);
            return Edit {
                what: format!("shift lines, change a number or a message in {rel}"),
                position_only: true,
            };
        }
        0 | 1 => {
            let dir = ["pkg", "pkg/sub", "lib", "lib/deep/er"][rng.below(4)];
            let rel = format!("{dir}/new_{step}.py");
            d.write(&rel, module(rng, step, &files));
            format!("add {rel}")
        }
        2 if files.len() > 4 => {
            let rel = pick(rng);
            std::fs::remove_file(d.path(&rel)).unwrap();
            format!("delete {rel}")
        }
        3 => {
            let rel = pick(rng);
            let to = format!("{}/moved_{step}.py", ["pkg", "lib", "pkg/sub"][rng.below(3)]);
            std::fs::create_dir_all(d.path(&to).parent().unwrap()).unwrap();
            std::fs::rename(d.path(&rel), d.path(&to)).unwrap();
            format!("rename {rel} -> {to}")
        }
        4 => {
            // A definition renamed or added.
            let rel = pick(rng);
            let text = std::fs::read_to_string(d.path(&rel)).unwrap();
            let k = rng.below(4);
            let text = if rng.below(2) == 0 {
                text.replacen(&format!("def helper_{k}("), &format!("def renamed_{step}("), 1)
            } else {
                format!("{text}\n\ndef added_{step}(a):\n    return helper_{k}(a)\n")
            };
            d.write(&rel, text);
            format!("edit a def in {rel}")
        }
        5 => {
            // A call retargeted.
            let rel = pick(rng);
            let text = std::fs::read_to_string(d.path(&rel)).unwrap();
            let (a, b) = (rng.below(4), rng.below(4));
            d.write(
                &rel,
                text.replacen(
                    &format!("return helper_{a}(x)"),
                    &format!("return helper_{b}(x)"),
                    1,
                ),
            );
            format!("edit a call in {rel}")
        }
        6 => {
            // An import changed: another module, or none.
            let rel = pick(rng);
            let text = std::fs::read_to_string(d.path(&rel)).unwrap();
            let other = pick(rng).trim_end_matches(".py").replace('/', ".");
            let first = text.lines().next().unwrap_or("").to_string();
            let new = if first.starts_with("from ") {
                text.replacen(&first, &format!("from {other} import helper_1, Base0"), 1)
            } else {
                format!("import {other}\n{text}")
            };
            d.write(&rel, new);
            format!("edit an import in {rel}")
        }
        _ => {
            // A directory renamed, or a file that stops being Python.
            if rng.below(2) == 0 && d.path("lib/deep").is_dir() {
                let to = format!("lib/deep_{step}");
                std::fs::rename(d.path("lib/deep"), d.path(&to)).unwrap();
                format!("rename lib/deep -> {to}")
            } else {
                let rel = pick(rng);
                std::fs::rename(d.path(&rel), d.path(format!("{rel}.txt"))).unwrap();
                format!("{rel} is no longer Python")
            }
        }
    };
    Edit { what, position_only: false }
}

#[test]
fn incremental_builds_equal_cold_builds() {
    let edits: usize = std::env::var("CDS_EDITS").ok().and_then(|v| v.parse().ok()).unwrap_or(16);
    let seed: u64 = std::env::var("CDS_EDIT_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let mut rng = Rng(seed);
    let d = Dir::new("incremental-equal");
    let mut names = Vec::new();
    for i in 0..12 {
        let dir = ["pkg", "pkg/sub", "lib", "lib/deep/er"][i % 4];
        let rel = format!("{dir}/mod_{i}.py");
        let text = module(&mut rng, i, &names);
        d.write(&rel, text);
        names.push(rel);
    }
    for dir in ["pkg", "pkg/sub", "lib", "lib/deep", "lib/deep/er"] {
        d.write(&format!("{dir}/__init__.py"), "");
    }
    // Files no edit touches, with flags a rebuild that does not read them again must keep:
    // a syntax error, and generated code (long lines).
    d.write("pkg/broken.py", "def ok():\n    pass\n\ndef broken(:\n    pass\n");
    let table = (0..40).map(|i| format!("{i}: {}", "7, ".repeat(40))).collect::<Vec<_>>();
    d.write(
        "pkg/table_pb2.py",
        format!("TABLE = {{{}}}\n\ndef lookup(k):\n    return TABLE[k]\n", table.join(", ")),
    );
    let cold = Dir::new("incremental-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    d.cmd("cds-build").arg("-q").ok();
    let mut log = Vec::new();
    let (mut kept_links, mut deltas, mut name_deltas) = (0, 0, 0);
    for step in 0..edits {
        let e = edit(&d, &mut rng, step);
        log.push(e.what);
        // An edit that keeps a file's size is found by its mtime: give every edit its own, even
        // on file systems with coarse timestamps.
        std::thread::sleep(std::time::Duration::from_millis(15));
        let relinked = same_as_cold(
            &d,
            &cold_ix,
            &["helper", "Child run extra", "Base1", "helpr"],
            &format!("step {step} (seed {seed}): {log:#?}"),
        )["relinked"]
            .as_bool()
            .unwrap();
        if e.position_only {
            assert!(!relinked, "step {step} (seed {seed}) re-linked: {log:#?}");
            kept_links += 1;
        }
        deltas += usize::from(generation_has(&d, "postings-delta.rkyv"));
        name_deltas += usize::from(generation_has(&d, "names-delta.rkyv"));
    }
    // The default sequence has edits of every kind, those that keep the links (and write the
    // postings as a delta) included.
    if std::env::var_os("CDS_EDIT_SEED").is_none() && edits >= 16 {
        assert!(kept_links > 0, "no edit kept the links: {log:#?}");
        assert!(deltas > 0, "no rebuild wrote a postings delta: {log:#?}");
        assert!(name_deltas > 0, "no rebuild wrote a names delta: {log:#?}");
    }
}

/// A rebuild after definitions or files were added, removed or renamed writes the name index
/// as a delta over the previous generation's `names.fst` (linked, not copied): the keys of
/// the changed files' nodes, and where the others went. Deltas add up over rebuilds until one
/// would grow too big, and then `names.fst` is written whole again. Each generation's names
/// (exact, prefix and fuzzy lookups, "did you mean") are a cold build's.
#[test]
fn names_deltas_add_up_and_are_written_whole_again() {
    let d = Dir::new("incremental-names");
    let module = |i: usize, extra: &str| {
        format!(
            "def helper_{i}(x):\n    return x + {i}\n\nclass Thing{i}:\n    def run(self):\n        return helper_{i}(1)\n{extra}"
        )
    };
    for i in 0..5 {
        d.write(&format!("pkg/m{i}.py"), module(i, ""));
    }
    d.cmd("cds-build").arg("-q").ok();
    let cold = Dir::new("incremental-names-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    let queries = ["helper_2", "helper", "Thing3", "zebra_crossing", "zebra_crosing", "quokka"];
    let base_links = || {
        use std::os::unix::fs::MetadataExt;
        let ix = d.path(".cds");
        let current = std::fs::read_to_string(ix.join("CURRENT")).unwrap();
        std::fs::metadata(ix.join(current.trim()).join("names.fst")).unwrap().nlink()
    };
    let suggestions = |index: Option<&str>| {
        let mut c = d.cmd("cds-get");
        if let Some(ix) = index {
            c.args(["--index", ix]);
        }
        c.arg("pkg/m2.py:zebra_crosin").stderr_of(1)
    };
    let step = |what: &str, delta: bool| {
        std::thread::sleep(std::time::Duration::from_millis(15));
        same_as_cold(&d, &cold_ix, &queries, what);
        assert_eq!(generation_has(&d, "names-delta.rkyv"), delta, "{what}: delta or not");
        assert_eq!(generation_has(&d, "names-delta.fst"), delta, "{what}: delta or not");
        assert_eq!(suggestions(None), suggestions(Some(&cold_ix)), "{what}: suggestions differ");
        let verify = d.cmd("cds-build").arg("--verify").output();
        assert!(verify.status.success(), "{what}: {}", String::from_utf8_lossy(&verify.stderr));
    };
    d.write("pkg/m2.py", module(2, "\ndef zebra_crossing():\n    pass\n"));
    step("a definition added in the middle", true);
    assert!(base_links() >= 2, "the base is linked, not copied");
    d.write("pkg/m0.py", module(0, "\nclass Quokka:\n    pass\n"));
    step("a class added before it", true);
    d.write("pkg/m2.py", module(2, ""));
    step("the first definition removed again", true);
    d.write("pkg/new/zebra.py", "def zebra_crossing():\n    pass\n");
    step("a file added in a new directory", true);
    std::fs::rename(d.path("pkg/m3.py"), d.path("pkg/m9.py")).unwrap();
    step("a file renamed", true);
    std::fs::remove_file(d.path("pkg/m1.py")).unwrap();
    step("a file removed", true);
    // A rebuild that keeps every node keeps the delta as it is.
    d.write("pkg/m4.py", format!("# a comment\n{}", module(4, "")));
    step("a comment added", true);
    // Past the size a delta may take, names.fst is written whole.
    d.write("pkg/m0.py", module(0, ""));
    std::thread::sleep(std::time::Duration::from_millis(15));
    d.cmd("cds-build").arg("-q").env("CDS_NAMES_DELTA", "0").ok();
    assert!(!generation_has(&d, "names-delta.rkyv"), "a delta too big is not written");
    assert_eq!(base_links(), 1, "names.fst written anew");
    d.write("pkg/m0.py", module(0, "\ndef zebra_crossing():\n    pass\n"));
    step("after compaction", true);
}

/// Whether the live generation of `d`'s index has `file`.
fn generation_has(d: &Dir, file: &str) -> bool {
    let ix = d.path(".cds");
    let current = std::fs::read_to_string(ix.join("CURRENT")).unwrap();
    ix.join(current.trim()).join(file).exists()
}

/// A rebuild that keeps every unchanged document's number writes the changed documents'
/// postings as a delta over the previous generation's (linked, not copied); deltas add up over
/// rebuilds, and one that renumbers documents, or whose delta would grow too big, writes the
/// postings whole again. Each generation answers as a cold build's does.
#[test]
fn postings_deltas_add_up_and_are_written_whole_again() {
    let d = Dir::new("incremental-delta");
    let module = |i: usize, comment: &str| {
        format!(
            "# {comment}\ndef helper_{i}(x):\n    return x + {i}\n\nclass Thing{i}:\n    def run(self):\n        return helper_{i}(1)\n"
        )
    };
    for i in 0..5 {
        d.write(&format!("pkg/m{i}.py"), module(i, &format!("module {i}")));
    }
    d.cmd("cds-build").arg("-q").ok();
    let cold = Dir::new("incremental-delta-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    let queries = ["helper", "Thing3 run", "zebra", "quokka", "zebr", "module"];
    let step = |rel: &str, text: String, what: &str, delta: bool| {
        d.write(rel, text);
        std::thread::sleep(std::time::Duration::from_millis(15));
        same_as_cold(&d, &cold_ix, &queries, what);
        assert_eq!(generation_has(&d, "postings-delta.rkyv"), delta, "{what}: delta or not");
        let verify = d.cmd("cds-build").arg("--verify").output();
        assert!(verify.status.success(), "{what}: {}", String::from_utf8_lossy(&verify.stderr));
    };
    step("pkg/m1.py", module(1, "zebra crossing"), "a comment edited", true);
    // The base is the first generation's postings, linked into this one.
    let ix = d.path(".cds");
    let current = std::fs::read_to_string(ix.join("CURRENT")).unwrap();
    let base = ix.join(current.trim()).join("postings.rkyv");
    use std::os::unix::fs::MetadataExt;
    assert!(std::fs::metadata(&base).unwrap().nlink() >= 2, "the base is linked, not copied");
    step("pkg/m3.py", module(3, "quokka"), "another file's comment", true);
    step("pkg/m1.py", module(1, "module 1 again"), "the first file again, a word gone", true);
    step("pkg/m4.py", module(4, "quokka zebra"), "the last file's comment", true);
    // A definition added in the middle renumbers the documents after it: the delta shifts
    // the base's documents past it.
    step(
        "pkg/m2.py",
        format!("{}\ndef added():\n    return 1\n", module(2, "module 2")),
        "a definition added",
        true,
    );
    step("pkg/m0.py", module(0, "zebra"), "a comment before the renumbered documents", true);
    step("pkg/m2.py", module(2, "module 2 quokka"), "the definition removed again", true);
    d.write("pkg/m5.py", module(5, "zebra five"));
    step("pkg/m1.py", module(1, "zebra"), "a file added, another edited", true);
    std::fs::remove_file(d.path("pkg/m3.py")).unwrap();
    step("pkg/m4.py", module(4, "quokka four"), "a file removed, another edited", true);
    // Past the size a delta may take, the postings are written whole.
    d.write("pkg/m3.py", module(3, "quokka again"));
    std::thread::sleep(std::time::Duration::from_millis(15));
    d.cmd("cds-build").arg("-q").env("CDS_DELTA_POSTINGS", "0").ok();
    assert!(!generation_has(&d, "postings-delta.rkyv"), "a delta too big is not written");
    step("pkg/m3.py", module(3, "quokka zebra"), "after compaction", true);
}

/// A delta in the layout before deltas could renumber documents (format 5) is refused as an
/// older index's, with the one-line advice; cds-build then builds from scratch.
#[test]
fn a_delta_in_the_older_layout_is_refused_and_built_again() {
    let d = Dir::demo("incremental-old-delta");
    d.cmd("cds-build").arg("-q").ok();
    let cart = std::fs::read_to_string(d.path("shop/cart.py")).unwrap();
    d.write("shop/cart.py", format!("# the cart's total\n{cart}"));
    std::thread::sleep(std::time::Duration::from_millis(15));
    d.cmd("cds-build").arg("-q").ok();
    let ix = d.path(".cds");
    let current = std::fs::read_to_string(ix.join("CURRENT")).unwrap();
    let delta = ix.join(current.trim()).join("postings-delta.rkyv");
    let mut bytes = std::fs::read(&delta).unwrap();
    // Version 5, and so without the block sums after the payload (version 8).
    bytes[8..12].copy_from_slice(&5u32.to_le_bytes());
    bytes[28..32].copy_from_slice(&0u32.to_le_bytes());
    let len = u64::from_le_bytes(bytes[16..24].try_into().unwrap());
    bytes.truncate(32 + len as usize);
    std::fs::write(&delta, bytes).unwrap();
    let err = d.cmd("cds-search").arg("cart").stderr_of(2);
    assert!(err.contains("is from an older cds: run cds-build"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    d.cmd("cds-build").arg("-q").ok();
    assert!(d.cmd("cds-search").arg("cart").ok().contains("shop/cart.py"));
}

/// Builds `d` incrementally and `cold_ix` from scratch, and checks that the two agree: counts,
/// the whole graph (node for node, edge for edge), the search index and facts cache byte for
/// byte, and the searches for `queries`. `what` names the step in a failure. The cold build
/// counts terms as files are extracted (`CDS_STREAM_TERMS`), the incremental one after them,
/// as small repositories do: both ways must write the same files. Returns the incremental
/// build's `--json` summary (whether it linked the files again, which families kept links).
fn same_as_cold(d: &Dir, cold_ix: &str, queries: &[&str], what: &str) -> serde_json::Value {
    let a = d.cmd("cds-build").arg("--json").ok();
    let b = d
        .cmd("cds-build")
        .args(["--json", "--force", "--index", cold_ix])
        .env("CDS_STREAM_TERMS", "1")
        .ok();
    // Edge counts by kind and confidence (the graph dump below has no confidence).
    let counts = |s: &str| {
        let v: serde_json::Value = serde_json::from_str(s.trim()).unwrap();
        [
            "files",
            "nodes",
            "entities",
            "edges",
            "ambiguous",
            "guessed",
            "syntax_errors",
            "generated",
        ]
        .map(|k| v[k].clone())
    };
    assert_eq!(counts(&a), counts(&b), "{what}");
    let inc = d.cmd("cds-fmt").args(["--graph"]).ok();
    let full = d.cmd("cds-fmt").args(["--graph", "--index", cold_ix]).ok();
    if inc != full {
        let (a, b): (Vec<&str>, Vec<&str>) = (inc.lines().collect(), full.lines().collect());
        let only_inc: Vec<_> = a.iter().filter(|l| !b.contains(l)).take(5).collect();
        let only_cold: Vec<_> = b.iter().filter(|l| !a.contains(l)).take(5).collect();
        panic!(
            "{what}: the incremental graph differs from a cold build\n\
             only incremental: {only_inc:#?}\nonly cold: {only_cold:#?}"
        );
    }
    // The search index byte for byte: the postings of unchanged files are carried over from
    // the previous generation, renumbered, and must be what counting them again gives.
    let generation = |ix: &std::path::Path| {
        let current = std::fs::read_to_string(ix.join("CURRENT")).unwrap();
        ix.join(current.trim())
    };
    let (inc_gen, cold_gen) =
        (generation(&d.path(".cds")), generation(std::path::Path::new(cold_ix)));
    // The postings term by term (an incremental build numbers the terms new to the index
    // after the previous dictionary's), and the documents' lengths.
    let (inc_ix, cold_ix_) = (
        cds::index::read::Index::open(&d.path(".cds")).unwrap(),
        cds::index::read::Index::open(std::path::Path::new(cold_ix)).unwrap(),
    );
    // The name index key by key, as readers see it (an incremental build may keep the
    // previous names.fst under a delta that renumbers its nodes and adds the changed ones).
    let all_names = |ix: &cds::index::read::Index| {
        let mut keys = Vec::new();
        ix.search_names(fst::automaton::AlwaysMatch, |k, nodes| {
            keys.push((k.to_vec(), nodes));
            true
        })
        .unwrap();
        keys
    };
    let (names, cold_names) = (all_names(&inc_ix), all_names(&cold_ix_));
    if names != cold_names {
        let only_inc: Vec<_> = names.iter().filter(|k| !cold_names.contains(k)).take(5).collect();
        let only_cold: Vec<_> = cold_names.iter().filter(|k| !names.contains(k)).take(5).collect();
        panic!(
            "{what}: the name index differs from a cold build's\n\
             only incremental: {only_inc:?}\nonly cold: {only_cold:?}"
        );
    }
    // Every node's spans and flags and the file table, which the dump above leaves out (a
    // rebuild that carries the nodes copies them for the files it does not read again).
    let columns = |ix: &cds::index::read::Index| {
        let g = ix.graph();
        let col = |c: &rkyv::vec::ArchivedVec<rkyv::rend::u32_le>| -> Vec<u32> {
            c.iter().map(|x| x.to_native()).collect()
        };
        let spans = [
            &g.line_start,
            &g.line_head,
            &g.line_end,
            &g.byte_start,
            &g.byte_head,
            &g.byte_sig_end,
            &g.byte_end,
            &g.doc_start,
            &g.doc_end,
            &g.file_lines,
            &g.file_errors,
        ]
        .map(col);
        (spans, g.flags.to_vec())
    };
    assert!(columns(&inc_ix) == columns(&cold_ix_), "{what}: spans or file tables differ");
    // Each file's content (content.bin is shared between generations: an incremental build
    // appends what changed, so the bytes lie elsewhere).
    let files = inc_ix.graph().file_node.len() as u32;
    assert_eq!(files as usize, cold_ix_.graph().file_node.len(), "{what}: file tables differ");
    for f in 0..files {
        assert!(
            inc_ix.file_content(f) == cold_ix_.file_content(f),
            "{what}: file {f}'s content differs from a cold build's"
        );
    }
    assert!(
        inc_ix.term_postings().unwrap() == cold_ix_.term_postings().unwrap(),
        "{what}: the postings differ from a cold build's"
    );
    let lengths = |ix: &cds::index::read::Index| {
        let p = ix.postings().unwrap();
        let doc_len: Vec<u32> = p.doc_lens().iter().map(|x| x.to_native()).collect();
        let avgdl: Vec<f32> = (0..4).map(|k| p.avgdl(k)).collect();
        (doc_len, avgdl, p.n_docs())
    };
    assert!(lengths(&inc_ix) == lengths(&cold_ix_), "{what}: document lengths differ");
    // The facts cache file by file: an incremental build appends to the previous one's.
    let (inc, cold) =
        (cds::index::facts::contents(&inc_gen), cds::index::facts::contents(&cold_gen));
    assert!(inc.is_some() && inc == cold, "{what}: the facts cache differs from a cold build's");
    for q in queries {
        let a = d.cmd("cds-search").args(["--json", "-n", "50", q]).output();
        let b = d.cmd("cds-search").args(["--json", "-n", "50", "--index", cold_ix, q]).output();
        assert_eq!(
            String::from_utf8_lossy(&a.stdout),
            String::from_utf8_lossy(&b.stdout),
            "{what}: search '{q}' differs"
        );
    }
    serde_json::from_str(a.trim()).unwrap()
}

/// An edit of [`incremental_builds_equal_cold_builds_across_languages`]: what it does, a line
/// the graph must hold after it, the families whose links the rebuild keeps (those of the
/// files it did not change, when the file list and project files are the same), and the edit.
type Step = (&'static str, &'static str, &'static [&'static str], Box<dyn Fn(&Dir)>);

/// The same in a repository of several languages, through edits whose effect crosses files and
/// languages: C++ sources arriving make the `.h` headers C++ (and leaving, C again), a file
/// renamed to another language's extension, a JS module's export renamed under its importer, a
/// Go package's function moved to another file of the package, a Ruby superclass and a PHP
/// `use` retargeted, a Python call the value flow finds edited. Where the files stay the same,
/// only the families of the changed files are linked again; the others keep their edges.
#[test]
fn incremental_builds_equal_cold_builds_across_languages() {
    let d = Dir::new("incremental-langs");
    d.write("c/x.h", "int helper(int x);\nclass Widget { public: void run(); };\n")
        .write("c/x.c", "#include \"x.h\"\nint helper(int x) { return x; }\n")
        .write("c/main.c", "#include \"x.h\"\nint main(void) { return helper(1); }\n")
        .write("js/util.js", "export function fmt(x) { return String(x); }\n")
        .write("js/app.js", "import { fmt } from './util.js';\nexport function show(v) { return fmt(v); }\n")
        .write("go.mod", "module example.com/m\n\ngo 1.21\n")
        .write("go/pkg/a.go", "package pkg\n\nfunc Run() int { return Help() }\n")
        .write("go/pkg/b.go", "package pkg\n\nfunc Help() int { return 1 }\n")
        .write("go/main.go", "package main\n\nimport \"example.com/m/go/pkg\"\n\nfunc main() { pkg.Run() }\n")
        .write("rb/base.rb", "class Base\n  def greet; end\nend\nclass Other\n  def greet; end\nend\n")
        .write("rb/child.rb", "require_relative 'base'\nclass Child < Base\n  def hi\n    greet\n  end\nend\n")
        .write("php/A.php", "<?php\nnamespace App;\nclass A { public function go() {} }\n")
        .write("php/B.php", "<?php\nnamespace App;\nclass B { public function go() {} }\n")
        .write("php/User.php", "<?php\nnamespace App;\nuse App\\A as T;\nclass User { public function f(T $t) { $t->go(); } }\n")
        .write("py/m.py", "def helper(x):\n    return x\n")
        .write("py/use.py", "from m import helper\n\ndef run():\n    f = helper\n    return f(1)\n");
    let cold = Dir::new("incremental-langs-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    d.cmd("cds-build").arg("-q").ok();
    let queries = ["helper", "Widget run", "fmt", "greet"];
    let steps: Vec<Step> = vec![
        (
            // The call is found by the value flow (`f` holds `helper`); only Python is linked.
            "a Python call through a variable",
            r#""src": "py/use.py:run", "dst": "py/m.py:helper", "type": "invokes""#,
            &["javascript", "go", "c", "ruby", "php"],
            Box::new(|d: &Dir| {
                d.write(
                    "py/use.py",
                    "from m import helper\n\ndef run():\n    g = helper\n    return g(2)\n",
                );
            }),
        ),
        (
            "C++ sources arrive: the headers are C++",
            r#""id": "c/x.h:Widget""#,
            &["python", "javascript", "go", "ruby", "php"],
            Box::new(|d: &Dir| {
                for i in 0..12 {
                    d.write(
                        &format!("c/w{i}.cpp"),
                        format!("#include \"x.h\"\nvoid Widget::run() {{ helper({i}); }}\n"),
                    );
                }
            }),
        ),
        (
            "the C++ sources leave: the headers are C again",
            r#""src": "c/main.c:main", "dst": "c/x.c:helper", "type": "invokes""#,
            &["python", "javascript", "go", "ruby", "php"],
            Box::new(|d: &Dir| {
                for i in 0..12 {
                    std::fs::remove_file(d.path(format!("c/w{i}.cpp"))).unwrap();
                }
            }),
        ),
        (
            "a Python file renamed to .js",
            r#""id": "py/m.js""#,
            &["go", "c", "ruby", "php"],
            Box::new(|d: &Dir| {
                std::fs::rename(d.path("py/m.py"), d.path("py/m.js")).unwrap();
            }),
        ),
        (
            "and back",
            r#""id": "py/m.py:helper""#,
            &["go", "c", "ruby", "php"],
            Box::new(|d: &Dir| {
                std::fs::rename(d.path("py/m.js"), d.path("py/m.py")).unwrap();
            }),
        ),
        (
            "a JS export renamed under its importer",
            r#""id": "js/util.js:format""#,
            &["python", "go", "c", "ruby", "php"],
            Box::new(|d: &Dir| {
                d.write("js/util.js", "export function format(x) { return String(x); }\n");
            }),
        ),
        (
            "a Go function moved to another file of its package",
            r#""src": "go/pkg/a.go:Run", "dst": "go/pkg/c.go:Help", "type": "invokes""#,
            &["python", "javascript", "c", "ruby", "php"],
            Box::new(|d: &Dir| {
                d.write("go/pkg/b.go", "package pkg\n");
                d.write("go/pkg/c.go", "package pkg\n\nfunc Help() int { return 2 }\n");
            }),
        ),
        (
            "a Ruby superclass retargeted",
            r#""src": "rb/child.rb:Child.hi", "dst": "rb/base.rb:Other.greet", "type": "invokes""#,
            &["python", "javascript", "go", "c", "php"],
            Box::new(|d: &Dir| {
                d.write("rb/child.rb", "require_relative 'base'\nclass Child < Other\n  def hi\n    greet\n  end\nend\n");
            }),
        ),
        (
            "a PHP use retargeted",
            r#""src": "php/User.php:User.f", "dst": "php/B.php:B.go", "type": "invokes""#,
            &["python", "javascript", "go", "c", "ruby"],
            Box::new(|d: &Dir| {
                d.write("php/User.php", "<?php\nnamespace App;\nuse App\\B as T;\nclass User { public function f(T $t) { $t->go(); } }\n");
            }),
        ),
        (
            // Only a project file changes: resolution reads it, so this is a change too.
            "go.mod names another module: the import is no longer the repository's",
            r#""id": "go/main.go:main""#,
            &[],
            Box::new(|d: &Dir| {
                d.write("go.mod", "module example.com/other\n\ngo 1.21\n");
            }),
        ),
        (
            "and back",
            r#""src": "go/main.go:main", "dst": "go/pkg/a.go:Run", "type": "invokes""#,
            &[],
            Box::new(|d: &Dir| {
                d.write("go.mod", "module example.com/m\n\ngo 1.21\n");
            }),
        ),
        (
            "a directory of two languages renamed",
            r#""id": "web/app.js:show""#,
            &["python", "go", "c", "ruby", "php"],
            Box::new(|d: &Dir| {
                std::fs::rename(d.path("js"), d.path("web")).unwrap();
            }),
        ),
    ];
    for (what, expect, kept, step) in &steps {
        step(&d);
        // Each edit its own mtime, even on file systems with coarse timestamps.
        std::thread::sleep(std::time::Duration::from_millis(15));
        let summary = same_as_cold(&d, &cold_ix, &queries, what);
        assert_eq!(summary["relinked"], true, "{what}");
        assert_eq!(summary["links_kept"], serde_json::json!(kept), "{what}");
        let graph = d.cmd("cds-fmt").args(["--graph"]).ok();
        assert!(graph.contains(expect), "{what}: the graph lacks {expect}\n{graph}");
    }
    // Comments that shift every language's lines: the edges are kept, the lines are new.
    for (rel, comment) in [
        ("c/x.c", "/* shifted */\n"),
        ("web/app.js", "// shifted\n"),
        ("go/pkg/a.go", "// shifted\n"),
        ("rb/child.rb", "# shifted\n"),
        ("py/m.py", "# shifted\n"),
    ] {
        let text = std::fs::read_to_string(d.path(rel)).unwrap();
        d.write(rel, format!("{comment}{text}"));
    }
    let user = std::fs::read_to_string(d.path("php/User.php")).unwrap();
    d.write("php/User.php", user.replacen("<?php\n", "<?php\n// shifted\n", 1));
    std::thread::sleep(std::time::Duration::from_millis(15));
    let summary = same_as_cold(&d, &cold_ix, &queries, "comments shift lines");
    assert_eq!(summary["relinked"], false, "re-linked");
    let got = d.cmd("cds-get").args(["py/m.py:helper"]).ok();
    assert!(got.starts_with("py/m.py:helper\tfunction\tpy/m.py:2-3\n"), "{got}");
}

/// Four C files: a header, its user (which also calls a function nothing defines yet), its
/// implementation, and a file apart.
fn write_c_files(d: &Dir) -> &Dir {
    d.write("inc/api.h", "int helper(int x);\n")
        .write(
            "a/user.c",
            "#include \"../inc/api.h\"\nint main(void) { return helper(1) + later(2); }\n",
        )
        .write("b/impl.c", "#include \"../inc/api.h\"\nint helper(int x) { return x; }\n")
        .write("c/other.c", "int unrelated(void) { return 0; }\n")
}

/// Edits that change what a file declares, in files of their own directories: only the edited
/// file and those its change can reach (its importers, directly or not, and the files that
/// name what changed) are linked again, and the graph, index and searches are a cold build's.
#[test]
fn declaration_edits_relink_the_files_they_reach_as_a_cold_build_would() {
    let d = Dir::new("incremental-declarations");
    write_c_files(&d)
        .write("js/lib/util.js", "export default function fmt(x) { return String(x); }\n")
        .write(
            "js/app/main.js",
            "import f from '../lib/util.js';\nexport function show(v) { return f(v); }\n",
        )
        .write(
            "js/run/other.js",
            "import { show } from '../app/main.js';\nexport function run() { return show(1); }\n",
        )
        .write("js/solo/alone.js", "export function alone() { return 1; }\n")
        .write("go.mod", "module example.com/m\n\ngo 1.21\n")
        .write("go/pkg/a.go", "package pkg\n\nfunc Run() int { return Help() }\n")
        .write("go/pkg/b.go", "package pkg\n")
        .write(
            "go/main.go",
            "package main\n\nimport \"example.com/m/go/pkg\"\n\nfunc main() { pkg.Run() }\n",
        )
        .write("py/m.py", "def helper(x):\n    return x\n");
    let cold = Dir::new("incremental-declarations-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    d.cmd("cds-build").arg("-q").ok();
    // (what, files linked again, an edge or node the graph must then hold, the edit)
    type Counted = (&'static str, u64, &'static str, Box<dyn Fn(&Dir)>);
    let steps: Vec<Counted> = vec![
        (
            "a C function added that another file already calls",
            2,
            r#""id": "c/other.c:later""#,
            Box::new(|d: &Dir| {
                d.write(
                    "c/other.c",
                    "int unrelated(void) { return 0; }\nint later(int x) { return x; }\n",
                );
            }),
        ),
        (
            "a C function renamed, its header declaration with it",
            3,
            r#""id": "b/impl.c:helper2""#,
            Box::new(|d: &Dir| {
                d.write("inc/api.h", "int helper2(int x);\n");
                d.write(
                    "b/impl.c",
                    "#include \"../inc/api.h\"\nint helper2(int x) { return x; }\n",
                );
            }),
        ),
        (
            "and back",
            3,
            r#""src": "a/user.c:main", "dst": "b/impl.c:helper", "type": "invokes""#,
            Box::new(|d: &Dir| {
                d.write("inc/api.h", "int helper(int x);\n");
                d.write("b/impl.c", "#include \"../inc/api.h\"\nint helper(int x) { return x; }\n");
            }),
        ),
        (
            "a C function removed that another file calls",
            2,
            r#""id": "c/other.c:unrelated""#,
            Box::new(|d: &Dir| {
                d.write("c/other.c", "int unrelated(void) { return 0; }\n");
            }),
        ),
        (
            // Its importer calls it by another name; the importer's importer is reached too.
            "a JavaScript default export renamed",
            3,
            r#""src": "js/app/main.js:show", "dst": "js/lib/util.js:format", "type": "invokes""#,
            Box::new(|d: &Dir| {
                d.write(
                    "js/lib/util.js",
                    "export default function format(x) { return String(x); }\n",
                );
            }),
        ),
        (
            "a JavaScript function added that nothing names",
            1,
            r#""id": "js/solo/alone.js:fresh""#,
            Box::new(|d: &Dir| {
                d.write("js/solo/alone.js", "export function alone() { return 1; }\nexport function fresh() { return 2; }\n");
            }),
        ),
        (
            "a Go function added to another file of its package",
            2,
            r#""src": "go/pkg/a.go:Run", "dst": "go/pkg/b.go:Help", "type": "invokes""#,
            Box::new(|d: &Dir| {
                d.write("go/pkg/b.go", "package pkg\n\nfunc Help() int { return 1 }\n");
            }),
        ),
        (
            "a Go function renamed under its importer",
            3,
            r#""id": "go/pkg/a.go:Start""#,
            Box::new(|d: &Dir| {
                d.write("go/pkg/a.go", "package pkg\n\nfunc Start() int { return Help() }\n");
            }),
        ),
    ];
    for (what, relinked, expect, step) in &steps {
        step(&d);
        std::thread::sleep(std::time::Duration::from_millis(15));
        let summary = same_as_cold(&d, &cold_ix, &["helper", "later", "format", "Help"], what);
        assert_eq!(summary["relinked_files"], *relinked, "{what}: {summary}");
        let graph = d.cmd("cds-fmt").args(["--graph"]).ok();
        assert!(graph.contains(expect), "{what}: the graph lacks {expect}\n{graph}");
    }
}

/// When the previous edges cannot be kept after all (the plan made beside the link fails: forced
/// here), the link that started with only some files' whole facts is done again over every
/// file's: the graph is a cold build's.
#[test]
fn a_failed_relink_plan_links_every_family_as_a_cold_build_would() {
    let d = Dir::new("incremental-no-plan");
    write_c_files(&d)
        .write("js/a.js", "import { g } from './b.js';\nexport function f() { return g(); }\n")
        .write("js/b.js", "export function g() { return 1; }\n");
    let cold = Dir::new("incremental-no-plan-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    d.cmd("cds-build").arg("-q").ok();
    d.write("c/other.c", "int unrelated(void) { return 0; }\nint later(int x) { return x; }\n");
    std::thread::sleep(std::time::Duration::from_millis(15));
    let out = d.cmd("cds-build").arg("--json").env("CDS_RELINK_NO_PLAN", "1").ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["relinked"], true, "{v}");
    assert_eq!(v["relinked_files"], serde_json::Value::Null, "linked whole: {v}");
    assert_eq!(v["links_kept"], serde_json::json!([]), "{v}");
    d.cmd("cds-build").args(["-q", "--force", "--index", &cold_ix]).ok();
    let inc = d.cmd("cds-fmt").args(["--graph"]).ok();
    let full = d.cmd("cds-fmt").args(["--graph", "--index", &cold_ix]).ok();
    assert_eq!(inc, full, "the incremental graph differs from a cold build");
    for edge in [
        r#""id": "c/other.c:later""#,
        r#""src": "a/user.c:main", "dst": "b/impl.c:helper", "type": "invokes""#,
        r#""src": "js/a.js:f", "dst": "js/b.js:g", "type": "invokes""#,
    ] {
        assert!(inc.contains(edge), "the graph lacks {edge}\n{inc}");
    }
    // Without the hook the same kind of edit keeps the other files' edges.
    d.write("c/other.c", "int unrelated(void) { return 0; }\nint later(int y) { return y; }\nint more(void) { return 2; }\n");
    std::thread::sleep(std::time::Duration::from_millis(15));
    let summary = same_as_cold(&d, &cold_ix, &["later", "more"], "a function added, the plan kept");
    assert_eq!(summary["relinked_files"], 1, "{summary}");
}

/// Random edits of one file of a four-language repository at a time (a call retargeted, a
/// function added, a comment that shifts lines, a file added or removed), each followed by an
/// incremental build and a
/// cold one that must agree: only the edited file's family is linked again, the other three
/// keep their edges, and the graph, index and searches are a cold build's all the same.
#[test]
fn edits_of_one_language_relink_only_its_family_as_a_cold_build_would() {
    let edits: usize = std::env::var("CDS_EDITS").ok().and_then(|v| v.parse().ok()).unwrap_or(16);
    let seed: u64 = std::env::var("CDS_EDIT_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let mut rng = Rng(seed);
    // Per family, per file: each function's callee (a function of any file of the family).
    const FAMILIES: [&str; 4] = ["python", "javascript", "go", "c"];
    let mut calls: Vec<Vec<Vec<(usize, usize)>>> =
        (0..4).map(|_| (0..3).map(|i| vec![(i, 0), ((i + 1) % 3, 0)]).collect()).collect();
    let render = |fam: usize, file: usize, fns: &[(usize, usize)], all: &[Vec<(usize, usize)>]| {
        let name = |f: usize, k: usize| format!("f{f}_{k}");
        let mut out = match fam {
            2 => "package pkg\n".to_string(),
            3 => "#include \"all.h\"\n".to_string(),
            _ => String::new(),
        };
        // Python and JavaScript import every function of the first three files but their own.
        for f in (0..3).filter(|&f| f != file && fam < 2) {
            let names: Vec<String> = (0..all[f].len()).map(|k| name(f, k)).collect();
            out += &match fam {
                0 => format!("from m{f} import {}\n", names.join(", ")),
                _ => format!("import {{ {} }} from './m{f}.js';\n", names.join(", ")),
            };
        }
        for (k, &(cf, ck)) in fns.iter().enumerate() {
            let (def, callee) = (name(file, k), name(cf, ck));
            out += &match fam {
                0 => format!("\ndef {def}():\n    g = {callee}\n    return g()\n"),
                1 => format!("export function {def}() {{ return {callee}(); }}\n"),
                2 => format!("\nfunc {def}() int {{ return {callee}() }}\n"),
                _ => format!("int {def}(void) {{ return {callee}(); }}\n"),
            };
        }
        out
    };
    let path = |fam: usize, file: usize| match fam {
        0 => format!("py/m{file}.py"),
        1 => format!("js/m{file}.js"),
        2 => format!("go/pkg/m{file}.go"),
        _ => format!("c/m{file}.c"),
    };
    let d = Dir::new("incremental-families");
    d.write("go.mod", "module example.com/m\n\ngo 1.21\n");
    let header = |all: &[Vec<(usize, usize)>]| -> String {
        (0..3)
            .flat_map(|f| (0..all[f].len()).map(move |k| format!("int f{f}_{k}(void);\n")))
            .collect()
    };
    let write_all = |calls: &[Vec<Vec<(usize, usize)>>]| {
        for (fam, files) in calls.iter().enumerate() {
            for (file, fns) in files.iter().enumerate() {
                d.write(&path(fam, file), render(fam, file, fns, files));
            }
        }
        d.write("c/all.h", header(&calls[3]));
    };
    write_all(&calls);
    let cold = Dir::new("incremental-families-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    d.cmd("cds-build").arg("-q").ok();
    let mut log = Vec::new();
    for step in 0..edits {
        let (fam, file) = (rng.below(4), rng.below(3));
        let mut kind = rng.below(5);
        if kind == 4 && calls[fam].len() == 3 {
            kind = 3;
        }
        let what = [
            "a call retargeted",
            "a function added",
            "a comment",
            "a file added",
            "a file removed",
        ][kind];
        log.push(format!("{what} in {}", path(fam, file)));
        match kind {
            0 => {
                let k = rng.below(calls[fam][file].len());
                // Another callee than the one it has (the same one would change nothing).
                let targets: Vec<(usize, usize)> = (0..3)
                    .flat_map(|f| (0..calls[fam][f].len()).map(move |g| (f, g)))
                    .filter(|&t| t != calls[fam][file][k])
                    .collect();
                calls[fam][file][k] = targets[rng.below(targets.len())];
                d.write(&path(fam, file), render(fam, file, &calls[fam][file], &calls[fam]));
            }
            1 => {
                let cf = rng.below(3);
                let ck = rng.below(calls[fam][cf].len());
                calls[fam][file].push((cf, ck));
                // The importers and the C header name the new function: only this family's
                // files change.
                for f in 0..3 {
                    d.write(&path(fam, f), render(fam, f, &calls[fam][f], &calls[fam]));
                }
                if fam == 3 {
                    d.write("c/all.h", header(&calls[3]));
                }
            }
            2 => {
                let text = std::fs::read_to_string(d.path(path(fam, file))).unwrap();
                let mark = if fam == 0 { "#" } else { "//" };
                d.write(&path(fam, file), format!("{mark} step {step}\n{text}"));
            }
            3 => {
                // A new file (after the first three, which import each other) calling one of
                // them.
                let new = calls[fam].len();
                let callee = (rng.below(3), 0);
                calls[fam].push(vec![callee]);
                d.write(&path(fam, new), render(fam, new, &calls[fam][new], &calls[fam]));
            }
            _ => {
                let last = calls[fam].len() - 1;
                calls[fam].pop();
                std::fs::remove_file(d.path(path(fam, last))).unwrap();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(15));
        let context = format!("step {step} (seed {seed}): {log:#?}");
        let summary = same_as_cold(&d, &cold_ix, &["f0_0", "f1_1", "f2"], &context);
        // A call retargeted outside Python: that file alone is linked again. A function added
        // there: file by file too, the files of its directory among them (here all of them).
        match (kind, fam) {
            (0, 1..) => assert_eq!(summary["relinked_files"], 1, "{context}"),
            (1, 1..) => {
                assert!(summary["relinked_files"].as_u64() >= Some(3), "{context} {summary}")
            }
            _ => assert_eq!(summary["relinked_files"], serde_json::Value::Null, "{context}"),
        }
        if kind == 2 {
            assert_eq!(summary["relinked"], false, "{context}");
        } else {
            let others: Vec<&str> = (0..4).filter(|&f| f != fam).map(|f| FAMILIES[f]).collect();
            assert_eq!(summary["relinked"], true, "{context}");
            assert_eq!(summary["links_kept"], serde_json::json!(others), "{context}");
        }
    }
    // The value flow's call through a variable and a C call across files are there.
    let graph = d.cmd("cds-fmt").args(["--graph"]).ok();
    assert!(graph.contains(r#""src": "py/m0.py:f0_0", "dst": "py/m"#), "{graph}");
    assert!(graph.contains(r#""src": "c/m0.c:f0_0", "dst": "c/m"#), "{graph}");
}

/// Words new to the index are added after the previous dictionary, words gone keep their
/// numbers without postings, and past a thousand added words the dictionary is written again:
/// searches, typo fixes included, answer as a cold build's do all along.
#[test]
fn the_term_dictionary_grows_and_is_written_again_as_a_cold_build_would() {
    let d = Dir::new("incremental-terms");
    let body = "def helper(x):\n    return x\n\nclass Widget:\n    def run(self):\n        return helper(1)\n";
    d.write("pkg/a.py", body);
    d.write("pkg/b.py", "# help\ndef other():\n    return 2\n");
    d.cmd("cds-build").arg("-q").ok();
    let cold = Dir::new("incremental-terms-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    let added = |d: &Dir| {
        let ix = cds::index::read::Index::open(&d.path(".cds")).unwrap();
        ix.postings().unwrap().n_added()
    };
    // `helpx` is a typo one edit from `help`, `helpa`, `helpb` and `helpc`, of which a search
    // takes the first three the index holds.
    let queries = ["frobnicator", "frobnicatr", "helper", "helpr", "widget run", "helpx"];
    let step = |text: &str, what: &str| {
        d.write("pkg/b.py", text);
        std::thread::sleep(std::time::Duration::from_millis(15));
        same_as_cold(&d, &cold_ix, &queries, what);
    };
    d.write("pkg/c.py", "def one():\n    return helpa\n\ndef two():\n    return helpb\n\ndef three():\n    return helpc\n");
    step("# frobnicator frobnicate\ndef other():\n    return 2\n", "words added, one gone");
    assert!(added(&d) >= 5, "the new words are added, the dictionary kept");
    // The file holding `helper` loses it: its number stays, with no posting.
    d.write("pkg/a.py", body.replace("helper", "assist"));
    step("# frobnicate\ndef other():\n    return 2\n", "a word gone, another kept");
    assert!(added(&d) >= 5, "frobnicator gone, assist added");
    let many: String = (0..1100).map(|i| format!("# word{i:04}\n")).collect();
    step(&format!("{many}def other():\n    return 2\n"), "more words than the dictionary adds");
    assert_eq!(added(&d), 0, "the dictionary written again");
    step("# frobnicator\ndef other():\n    return 2\n", "after the dictionary was written again");
    assert_eq!(added(&d), 1);
}

/// A rebuild carries the postings of unchanged files over from the previous generation: a
/// damaged byte there must not be carried into the next one (the rebuild counts every file's
/// terms again instead), and a damaged graph, whose node numbers the postings use, neither.
#[test]
fn damaged_previous_postings_are_not_carried_over() {
    for damaged in ["postings.rkyv", "graph.rkyv"] {
        let d = Dir::new(&format!("incremental-damaged-{}", damaged.replace('.', "-")));
        for i in 0..6 {
            d.write(
                &format!("pkg/m{i}.py"),
                format!("def helper_{i}(x):\n    return x + {i}\n\nclass Thing{i}:\n    def run(self):\n        return helper_{i}(1)\n"),
            );
        }
        d.cmd("cds-build").arg("-q").ok();
        let ix = d.path(".cds");
        let current = std::fs::read_to_string(ix.join("CURRENT")).unwrap();
        let file = ix.join(current.trim()).join(damaged);
        let mut bytes = std::fs::read(&file).unwrap();
        // A byte in the middle of the payload (past the header), where structure checks pass
        // for the postings' numbers; the checksum does not.
        let at = bytes.len() / 2;
        bytes[at] ^= 0x01;
        std::fs::write(&file, &bytes).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(15));
        d.write("pkg/m0.py", "def helper_0(y):\n    return y * 2\n");
        let cold = Dir::new(&format!("incremental-damaged-cold-{}", damaged.replace('.', "-")));
        let cold_ix = cold.path("idx").to_string_lossy().into_owned();
        same_as_cold(&d, &cold_ix, &["helper", "Thing3 run"], damaged);
    }
}

/// An index written before the block sums (format 7, as every index built so far is) answers
/// as it did, and a rebuild over it (hard-linking its postings and name index, appending to its
/// contents) gives what a cold build gives: the new generation mixes files of both versions.
#[test]
fn an_index_of_format_7_is_read_and_built_on() {
    let d = Dir::demo("incremental-format-7");
    d.cmd("cds-build").arg("-q").ok();
    let queries: [(&str, &[&str]); 3] = [
        ("cds-search", &["-n", "20", "cart total discount"]),
        ("cds-trav", &["-h2", "shop/cart.py:Cart.total"]),
        ("cds-get", &["shop/cart.py:Cart", "shop/views.py"]),
    ];
    let answers = |d: &Dir| -> Vec<String> {
        queries.iter().map(|(tool, args)| d.cmd(tool).args(*args).ok()).collect()
    };
    let before = answers(&d);
    // Each file written whole made a version 7 one: no sums, the header's last field zero.
    let ix = d.path(".cds");
    let current = std::fs::read_to_string(ix.join("CURRENT")).unwrap();
    let mut rewritten = 0;
    for e in std::fs::read_dir(ix.join(current.trim())).unwrap().flatten() {
        let mut bytes = std::fs::read(e.path()).unwrap();
        let shift = u32::from_le_bytes(bytes[28..32].try_into().unwrap());
        if shift == 0 {
            continue; // content.bin, facts.bin: appended to, never had sums
        }
        let len = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
        bytes.truncate(32 + len);
        bytes[8..12].copy_from_slice(&7u32.to_le_bytes());
        bytes[28..32].copy_from_slice(&0u32.to_le_bytes());
        std::fs::write(e.path(), &bytes).unwrap();
        rewritten += 1;
    }
    assert!(rewritten >= 5, "graph, names, terms, postings, facts: {rewritten}");
    assert_eq!(answers(&d), before);
    assert!(d.cmd("cds-build").arg("--verify").ok().is_empty());
    // A comment (the postings' delta over the version 7 base), then a definition.
    let cart = std::fs::read_to_string(d.path("shop/cart.py")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(15));
    d.write("shop/cart.py", format!("# the cart's running total\n{cart}"));
    let cold = Dir::new("incremental-format-7-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    same_as_cold(&d, &cold_ix, &["cart total", "running"], "a comment over format 7");
    assert!(generation_has(&d, "postings-delta.rkyv"), "the delta is over the old base");
    std::thread::sleep(std::time::Duration::from_millis(15));
    d.write("shop/cart.py", format!("def _note():\n    return 'running'\n\n{cart}"));
    same_as_cold(&d, &cold_ix, &["note running", "Cart"], "a definition over format 7");
}

/// A native build after a `--compat locagent` one reuses its cached facts, but not its
/// postings: LocAgent's graph numbers nodes, and counts documents, its own way.
#[test]
fn a_locagent_generation_is_not_carried_from() {
    let d = Dir::new("incremental-after-locagent");
    for i in 0..4 {
        d.write(
            &format!("pkg/m{i}.py"),
            format!("def helper_{i}(x):\n    return x + {i}\n\nclass Thing{i}:\n    def run(self):\n        return helper_{i}(1)\n"),
        );
    }
    d.cmd("cds-build").args(["-q", "--compat", "locagent"]).ok();
    d.write("pkg/m0.py", "def helper_0(y):\n    return y * 2\n");
    let cold = Dir::new("incremental-after-locagent-cold");
    let cold_ix = cold.path("idx").to_string_lossy().into_owned();
    same_as_cold(&d, &cold_ix, &["helper", "Thing3 run"], "native after locagent");
}
