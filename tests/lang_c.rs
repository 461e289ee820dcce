//! C: entity IDs, spans, and include / invoke resolution (includes beside the file and in
//! include directories, prototypes leading to their definitions, file-local `static`
//! functions), on small in-memory repositories, plus the real binaries on
//! `tests/fixtures/c/kvstore`.

use crate::resolve::{assert_has, assert_lacks, edges, entity_ids, graph_of, meta};
use crate::util::{Dir, borrow, fixture_files};

#[test]
fn kvstore_entities_and_edges() {
    let files = fixture_files("c/kvstore");
    let (g, e) = graph_of(&borrow(&files));
    assert_eq!(
        entity_ids(&g),
        [
            "include/kv/store.h:kv_store",
            "include/kv/store.h:kv_entry",
            "src/hash.c:log_msg",
            "src/hash.c:mix",
            "src/hash.c:kv_hash",
            "src/legacy.c:legacy_put",
            "src/main.c:usage",
            "src/main.c:main",
            "src/store.c:log_msg",
            "src/store.c:find_slot",
            "src/store.c:kv_open",
            "src/store.c:kv_get",
            "src/store.c:kv_put",
            "src/store.c:kv_close",
            "tests/test_store.c:test_put_get",
            "tests/test_store.c:main",
            "tools/fast_hash.c:kv_hash",
        ]
    );
    // Includes: `<kv/store.h>` in the include directory, `"kv/hash.h"` too, `"hash.h"` beside
    // the including header, `"../include/kv/store.h"` relative.
    assert_has(&e, "src/store.c import include/kv/store.h 0");
    assert_has(&e, "src/hash.c import include/kv/hash.h 0");
    assert_has(&e, "include/kv/store.h import include/kv/hash.h 0");
    assert_has(&e, "src/legacy.c import include/kv/store.h 0");
    // A header's prototype leads to the definition (its namesake source first).
    assert_has(&e, "include/kv/hash.h import src/hash.c:kv_hash 0");
    assert_lacks(&e, "include/kv/hash.h import tools/fast_hash.c:kv_hash 0");
    // Calls through what the includes declare, transitively (store.h includes hash.h).
    assert_has(&e, "src/main.c:main invoke src/store.c:kv_open 0");
    assert_has(&e, "src/main.c:main invoke src/store.c:kv_get 0");
    assert_has(&e, "src/store.c:find_slot invoke src/hash.c:kv_hash 0");
    assert_lacks(&e, "src/store.c:find_slot invoke tools/fast_hash.c:kv_hash 0");
    assert_has(&e, "src/legacy.c:legacy_put invoke src/store.c:kv_put 0");
    assert_has(&e, "tests/test_store.c:test_put_get invoke src/store.c:kv_close 0");
    // Same translation unit, and file-local `static` functions of the same name.
    assert_has(&e, "src/main.c:main invoke src/main.c:usage 0");
    assert_has(&e, "src/store.c:find_slot invoke src/store.c:log_msg 0");
    assert_has(&e, "src/hash.c:kv_hash invoke src/hash.c:log_msg 0");
    assert_lacks(&e, "src/store.c:find_slot invoke src/hash.c:log_msg 0");
    assert_lacks(&e, "src/hash.c:kv_hash invoke src/store.c:log_msg 0");
    // The library's own functions (printf, malloc) and macros (KV_EMPTY) are not linked.
    assert!(!e.iter().any(|l| l.contains("printf") || l.contains("KV_EMPTY")), "{e:#?}");
}

#[test]
fn calls_need_a_declaration_never_a_name_alone() {
    let e = edges(&[
        ("a.c", "int helper(int x) { return x; }\nstatic int quiet(void) { return 0; }\n"),
        // No include, no prototype: `helper` may be another library's.
        ("b.c", "int f(void) { return helper(1); }\n"),
        // A prototype of its own leads to the definition.
        (
            "c.c",
            "int helper(int);\nint quiet(void);\nint g(void) { return helper(2) + quiet(); }\n",
        ),
        // A function pointer, a field, a macro: left out.
        (
            "d.c",
            "#define CALL(x) helper(x)\nint helper(int);\nstruct ops { int (*run)(int); };\nint h(struct ops *o, int (*cb)(int)) { return o->run(1) + cb(2) + CALL(3); }\n",
        ),
    ]);
    assert_lacks(&e, "b.c:f invoke a.c:helper 0");
    assert_has(&e, "c.c:g invoke a.c:helper 0");
    assert_has(&e, "c.c import a.c:helper 0");
    // `static` is file-local: a prototype elsewhere does not reach it.
    assert_lacks(&e, "c.c:g invoke a.c:quiet 0");
    assert_eq!(e.iter().filter(|l| l.starts_with("d.c:h invoke")).count(), 0, "{e:#?}");
}

#[test]
fn include_directories_and_compile_commands() {
    let e = edges(&[
        (
            "compile_commands.json",
            r#"[{"directory": "/home/ci/proj/build", "command": "cc -I../lib/public -Ithird -isystem /usr/include -c ../app/main.c", "file": "../app/main.c"}]"#,
        ),
        ("lib/public/api.h", "int api_call(void);\n"),
        ("lib/api.c", "#include \"api.h\"\nint api_call(void) { return 0; }\n"),
        (
            "app/main.c",
            "#include \"api.h\"\n#include <local.h>\nint main(void) { return api_call(); }\n",
        ),
        // Beside main.c, but `<...>` is searched in include directories only.
        ("app/local.h", "int local(void);\n"),
        ("arch/x86/include/asm/io.h", "int io(void);\n"),
        ("arch/arm/include/asm/io.h", "int io(void);\n"),
        ("arch/x86/kernel/setup.c", "#include <asm/io.h>\nint setup(void) { return io(); }\n"),
    ]);
    assert_has(&e, "app/main.c import lib/public/api.h 0");
    assert_has(&e, "app/main.c:main invoke lib/api.c:api_call 0");
    assert_has(&e, "lib/api.c import lib/public/api.h 0");
    assert_lacks(&e, "app/main.c import app/local.h 0");
    // Among several include directories, the one nearest the including file.
    assert_has(&e, "arch/x86/kernel/setup.c import arch/x86/include/asm/io.h 0");
    assert_lacks(&e, "arch/x86/kernel/setup.c import arch/arm/include/asm/io.h 0");
}

#[test]
fn several_definitions_are_alternatives_or_nothing() {
    let e = edges(&[
        ("include/plat.h", "void plat_init(void);\n"),
        ("plat/linux.c", "void plat_init(void) {}\n"),
        ("plat/win.c", "void plat_init(void) {}\n"),
        ("main.c", "#include \"plat.h\"\nint main(void) { plat_init(); return 0; }\n"),
    ]);
    assert_eq!(meta(&e, "main.c:main invoke plat/linux.c:plat_init"), 2);
    assert_eq!(meta(&e, "main.c:main invoke plat/win.c:plat_init"), 2);
}

#[test]
fn ifdef_variants_are_one_node_and_bad_input_is_indexed() {
    let table = format!(
        "/* generated */\nstatic const unsigned short table[] = {{\n{}}};\nint lookup(int i) {{ return table[i]; }}\n",
        "  0x0001, 0x0002, 0x0003, 0x0004, 0x0005, 0x0006, 0x0007, 0x0008,\n".repeat(50_000)
    );
    let (g, e) = graph_of(&[
        (
            "plat.c",
            "#ifdef _WIN32\nint plat(void) { return 1; }\n#else\nint plat(void) { return 2; }\n#endif\nint use(void) { return plat(); }\n",
        ),
        // A C++ header in a C repository: C cannot read it, C++ can, so it is read as C++.
        (
            "cxx.h",
            "class Widget : public Base {\n public:\n  void draw() { plat(); }\n};\nint after(void);\n",
        ),
        ("knr.c", "int add(a, b)\n  int a, b;\n{\n  return plat() + a + b;\n}\nint plat(void);\n"),
        ("table.c", table.as_str()),
        (
            "broken.c",
            "int ok(void) { return 1; }\nint bad( { \nint also_ok(void) { return ok(); }\n",
        ),
    ]);
    let ids = entity_ids(&g);
    assert_eq!(ids.iter().filter(|i| *i == "plat.c:plat").count(), 1, "{ids:#?}");
    assert!(ids.contains(&"knr.c:add".to_string()), "{ids:#?}");
    assert!(ids.contains(&"table.c:lookup".to_string()), "{ids:#?}");
    assert!(ids.contains(&"broken.c:ok".to_string()), "{ids:#?}");
    assert!(ids.contains(&"cxx.h:Widget.draw".to_string()), "{ids:#?}");
    assert_has(&e, "plat.c:use invoke plat.c:plat 0");
    assert_has(&e, "knr.c:add invoke plat.c:plat 0");
}

#[test]
fn build_search_trav_and_get_on_a_c_repository() {
    let d = Dir::fixture("c-e2e", "c/kvstore");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains(" c"), "{err}");
    let got = d.cmd("cds-trav").args(["--ids", "-h3", "-r", "invoke", "src/main.c:main"]).ok();
    for want in ["src/store.c:kv_open", "src/store.c:find_slot", "src/hash.c:kv_hash"] {
        assert!(got.lines().any(|l| l == want), "{want} in\n{got}");
    }
    let up =
        d.cmd("cds-trav").args(["--ids", "-d", "up", "-r", "invoke", "src/hash.c:kv_hash"]).ok();
    assert!(up.contains("src/store.c:find_slot\n"), "{up}");
    assert!(!up.contains("tests/"), "tests are walked only with --tests: {up}");
    let fold = d.cmd("cds-get").args(["--view", "fold", "src/store.c:kv_open"]).ok();
    assert_eq!(fold, "src/store.c:kv_open\tfunction\t14-21\tkv_store *kv_open(int size)\n");
    // The pipeline: search, one hop, then the code.
    let hits = d.cmd("cds-search").arg("kv_hash").ok();
    assert!(hits.contains("src/hash.c:kv_hash"), "{hits}");
    let hop = d.cmd("cds-trav").arg("-h1").stdin(&hits).ok();
    assert!(hop.contains("src/store.c:find_slot"), "{hop}");
    let code = d.cmd("cds-get").stdin(&hop).ok();
    assert!(code.contains("unsigned long kv_hash(const char *key)"), "{code}");
    assert!(code.contains("static int find_slot(kv_store *s, const char *key)"), "{code}");
    // A gdb backtrace leads cds-loc to the frames' functions.
    let out = d
        .cmd("cds-loc")
        .arg("--json")
        .stdin("Segfault on put:\n#0  0x00005555 in find_slot (s=0x0, key=0x1) at src/store.c:11\n#1  0x00005556 in kv_put (s=0x0) at src/store.c:32\n")
        .ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["found_entities"][0], "src/store.c:find_slot", "{out}");
}

#[test]
fn include_cycles_and_many_headers_stay_fast() {
    // 300 headers in a ring of includes, 100 sources each including one and calling names that
    // are macros or declared at the far end of the ring.
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 0..300 {
        let mut h = format!("#include \"h{}.h\"\n", (i + 1) % 300);
        h.push_str(&format!("int decl_{i}(void);\n"));
        files.push((format!("inc/h{i}.h"), h));
        files.push((format!("lib/d{i}.c"), format!("int decl_{i}(void) {{ return {i}; }}\n")));
    }
    for k in 0..100 {
        let mut body = format!("#include \"../inc/h{}.h\"\nint f{k}(void) {{\n", k % 300);
        for m in 0..200 {
            body.push_str(&format!("  MACRO_{m}(1);\n"));
        }
        body.push_str(&format!("  return decl_{}();\n}}\n", (k + 150) % 300));
        files.push((format!("src/s{k}.c"), body));
    }
    let start = std::time::Instant::now();
    let e = edges(&borrow(&files));
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    assert_has(&e, "src/s0.c:f0 invoke lib/d150.c:decl_150 0");
    assert!(!e.iter().any(|l| l.contains("MACRO_")));
}

#[test]
fn headers_of_a_c_project_with_a_cpp_tool_stay_c() {
    let d = Dir::new("c-with-cpp-tool");
    d.write(
        "include/list.h",
        "struct list_head { struct list_head *next; };\nstatic inline void list_add(struct list_head *new, struct list_head *head) { head->next = new; }\n",
    );
    for i in 0..12 {
        d.write(
            &format!("kernel/f{i}.c"),
            format!("#include <list.h>\nint f{i}(void) {{ return {i}; }}\n"),
        );
    }
    d.write("scripts/qconf.cc", "#include \"qconf.h\"\nvoid Conf::show() {}\n")
        .write("scripts/qconf.h", "class Conf {\n public:\n  void show();\n};\n");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("c 13 files") && err.contains("cpp 2 files"), "{err}");
    assert!(err.contains("0 with syntax errors") || !err.contains("with syntax errors"), "{err}");
    let fold = d.cmd("cds-get").args(["--view", "fold", "scripts/qconf.h:Conf"]).ok();
    assert!(fold.starts_with("scripts/qconf.h:Conf\tclass"), "{fold}");
}
