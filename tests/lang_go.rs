//! Go: entity IDs, spans, and import / invoke / inherit resolution (through `go.mod`'s module
//! path, same-package scope, receivers, embedding and declared types), on small in-memory
//! repositories, plus the real binaries on `tests/fixtures/go/inventory`.

use crate::resolve::{assert_has, assert_lacks, edges, entity_ids, graph_of, meta};
use crate::util::{Dir, borrow, fixture_files};

const GO_MOD: &str = "module example.com/app\n\ngo 1.22\n";

/// The fixture repository as in-memory files.
fn inventory() -> Vec<(String, String)> {
    fixture_files("go/inventory")
}

#[test]
fn entity_ids_follow_the_receiver_type() {
    let (g, _) = graph_of(&[
        ("go.mod", GO_MOD),
        (
            "pkg/list.go",
            "package pkg\n\ntype List[T any] struct {\n\titems []T\n}\n\nfunc (l *List[T]) Push(v T) {}\n\nfunc (l List[T]) Len() int { return len(l.items) }\n\ntype Reader interface {\n\tRead(p []byte) (int, error)\n}\n\ntype ID int\n\ntype Alias = List[int]\n\nfunc init() {}\n\nfunc init() {}\n\nfunc Sort() {\n\ttype pair struct{ a, b int }\n\tless := func(x, y int) bool { return x < y }\n\t_ = less\n}\n",
        ),
        (
            "pkg/other.go",
            "package pkg\n\nfunc (s *Server) Serve() {}\n\nfunc (Server) Name() string { return \"\" }\n",
        ),
    ]);
    assert_eq!(
        entity_ids(&g),
        [
            "pkg/list.go:List",
            "pkg/list.go:List.Push",
            "pkg/list.go:List.Len",
            "pkg/list.go:Reader",
            "pkg/list.go:init",
            "pkg/list.go:Sort",
            "pkg/list.go:Sort.pair",
            "pkg/other.go:Server.Serve",
            "pkg/other.go:Server.Name",
        ]
    );
}

#[test]
fn grouped_types_and_doc_and_fold_spans() {
    let src = "package a\n\n//go:generate stringer\n\n// Pair holds two.\n// Really.\ntype Pair struct {\n\tA, B int\n}\n\ntype (\n\t// Left is one side.\n\tLeft interface {\n\t\tL()\n\t}\n\tRight struct{}\n)\n\n// Make builds one.\nfunc Make(a int,\n\tb int) *Pair {\n\treturn &Pair{a, b}\n}\n";
    let mut ex = cds::lang::Extractors::default();
    let f = ex.extract(cds::lang::Lang::Go, src.as_bytes());
    let names: Vec<&str> = f.defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["Pair", "Left", "Right", "Make"]);
    let pair = &f.defs[0];
    assert_eq!((pair.line_start, pair.line_head, pair.line_end), (5, 7, 9));
    let (ds, de) = pair.doc.unwrap();
    assert_eq!(&src[ds as usize..de as usize], "// Pair holds two.\n// Really.");
    assert_eq!(&src[pair.byte_head as usize..pair.byte_sig_end as usize], "type Pair struct");
    let left = &f.defs[1];
    assert_eq!((left.line_start, left.line_head, left.line_end), (12, 13, 15));
    assert_eq!(&src[left.byte_head as usize..left.byte_sig_end as usize], "Left interface");
    let mk = &f.defs[3];
    assert_eq!((mk.line_start, mk.line_head, mk.line_end), (19, 20, 23));
    assert_eq!(
        &src[mk.byte_head as usize..mk.byte_sig_end as usize],
        "func Make(a int,\n\tb int) *Pair"
    );
    assert_eq!(mk.returns.as_deref(), Some("Pair"));
    assert_eq!(f.package.as_deref(), Some("a"));

    // Directives are annotations: in the span, not in the doc.
    let src = "package a\n\n// Fast adds.\n//go:noinline\nfunc Fast() {}\n\n//go:nosplit\nfunc Bare() {}\n";
    let f = ex.extract(cds::lang::Lang::Go, src.as_bytes());
    let (ds, de) = f.defs[0].doc.unwrap();
    assert_eq!(&src[ds as usize..de as usize], "// Fast adds.");
    assert_eq!((f.defs[0].line_start, f.defs[0].line_head), (3, 5));
    assert_eq!(f.defs[1].doc, None);
    assert_eq!((f.defs[1].line_start, f.defs[1].line_head), (7, 8));

    // A comment that trails the line above is not a doc comment.
    let src = "package a\n\ntype (\n\tA struct{} // the A\n\tB struct{}\n)\n";
    let f = ex.extract(cds::lang::Lang::Go, src.as_bytes());
    assert_eq!(f.defs[1].name, "B");
    assert_eq!((f.defs[1].doc, f.defs[1].line_start), (None, 5));
}

#[test]
fn imports_forms_and_package_edges() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        ("util/strs.go", "package util\n\nfunc Trim(s string) string { return s }\n"),
        ("util/nums.go", "package util\n\nfunc Abs(n int) int { return n }\n"),
        ("single/one.go", "package single\n\nfunc One() int { return 1 }\n"),
        (
            "main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\tu \"example.com/app/util\"\n\t\"example.com/app/single\"\n\t_ \"example.com/app/single\"\n\t. \"example.com/app/util\"\n)\n\nfunc main() {\n\tfmt.Println(u.Trim(\"x\"), single.One(), Abs(-1))\n}\n",
        ),
    ]);
    assert_has(&e, "main.go import util 0");
    assert_has(&e, "main.go import single/one.go 0");
    assert_has(&e, "main.go:main invoke util/strs.go:Trim 0");
    assert_has(&e, "main.go:main invoke single/one.go:One 0");
    assert_has(&e, "main.go:main invoke util/nums.go:Abs 0");
    assert!(!e.iter().any(|x| x.contains("Println")), "{e:?}");
}

#[test]
fn package_name_differs_from_the_path_and_major_versions() {
    let e = edges(&[
        ("go.mod", "module github.com/acme/tool/v2\n"),
        ("go-yaml/y.go", "package yaml\n\nfunc Marshal() {}\n"),
        ("api/v3/api.go", "package api\n\nfunc Get() {}\n"),
        (
            "main.go",
            "package main\n\nimport (\n\t\"github.com/acme/tool/v2/go-yaml\"\n\t\"github.com/acme/tool/v2/api/v3\"\n)\n\nfunc main() {\n\tyaml.Marshal()\n\tapi.Get()\n}\n",
        ),
    ]);
    assert_has(&e, "main.go:main invoke go-yaml/y.go:Marshal 0");
    assert_has(&e, "main.go:main invoke api/v3/api.go:Get 0");
}

#[test]
fn same_package_scope_and_methods_in_other_files() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        (
            "srv/server.go",
            "package srv\n\ntype Server struct {\n\tpool *Pool\n}\n\nfunc NewServer() *Server { return &Server{} }\n",
        ),
        (
            "srv/serve.go",
            "package srv\n\nfunc (s *Server) Serve() {\n\ts.handle()\n\ts.pool.Get()\n\thelper()\n}\n\nfunc (s *Server) handle() {\n\tdefaultPool.Get()\n}\n",
        ),
        (
            "srv/pool.go",
            "package srv\n\nvar defaultPool = &Pool{}\n\ntype Pool struct{}\n\nfunc (p *Pool) Get() {}\n\nfunc helper() {}\n",
        ),
        // Another package in the same directory tree does not share the scope.
        ("srv/sub/x.go", "package sub\n\nfunc helper() {}\n"),
    ]);
    assert_has(&e, "srv/serve.go:Server.Serve invoke srv/serve.go:Server.handle 0");
    assert_has(&e, "srv/serve.go:Server.Serve invoke srv/pool.go:Pool.Get 0");
    assert_has(&e, "srv/serve.go:Server.Serve invoke srv/pool.go:helper 0");
    // A package-level variable of another file of the package.
    assert_has(&e, "srv/serve.go:Server.handle invoke srv/pool.go:Pool.Get 0");
    assert_lacks(&e, "srv/serve.go:Server.Serve invoke srv/sub/x.go:helper");
}

#[test]
fn receivers_typed_by_declarations() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        (
            "db/db.go",
            "package db\n\ntype Conn struct{}\n\nfunc (c *Conn) Query() {}\n\nfunc (c *Conn) Close() error { return nil }\n\nfunc Open() (*Conn, error) { return &Conn{}, nil }\n",
        ),
        (
            "app.go",
            concat!(
                "package main\n\nimport \"example.com/app/db\"\n\n",
                "func byCall() {\n\tc, err := db.Open()\n\t_ = err\n\tc.Query()\n}\n\n",
                "func byVar() {\n\tvar c db.Conn\n\tc.Query()\n}\n\n",
                "func byLiteral() {\n\tc := &db.Conn{}\n\tc.Query()\n}\n\n",
                "func byNew() {\n\tc := new(db.Conn)\n\tc.Close()\n}\n\n",
                "func byParam(c *db.Conn) {\n\tc.Query()\n}\n\n",
                "func inClosure(c *db.Conn) {\n\tgo func() {\n\t\tc.Close()\n\t}()\n}\n",
            ),
        ),
    ]);
    for f in ["byCall", "byVar", "byLiteral", "byParam"] {
        assert_has(&e, &format!("app.go:{f} invoke db/db.go:Conn.Query 0"));
    }
    assert_has(&e, "app.go:byCall invoke db/db.go:Open 0");
    assert_has(&e, "app.go:byNew invoke db/db.go:Conn.Close 0");
    assert_has(&e, "app.go:inClosure invoke db/db.go:Conn.Close 0");
    // Composite literals and conversions are not calls of the type.
    assert_lacks(&e, "app.go:byLiteral invoke db/db.go:Conn");
}

#[test]
fn embedding_is_inheritance_and_promotes_methods() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        (
            "base/base.go",
            "package base\n\ntype Base struct{}\n\nfunc (b *Base) Hello() {}\n\ntype Closer interface {\n\tClose() error\n}\n",
        ),
        (
            "impl.go",
            "package main\n\nimport (\n\t\"io\"\n\t\"example.com/app/base\"\n)\n\ntype Thing struct {\n\t*base.Base\n\tname string\n}\n\ntype ReadCloser interface {\n\tio.Reader\n\tbase.Closer\n}\n\ntype Local struct {\n\tThing\n}\n\nfunc use(t *Thing, l Local) {\n\tt.Hello()\n\tl.Hello()\n\tl.Thing.Hello()\n}\n",
        ),
    ]);
    assert_has(&e, "impl.go:Thing inherit base/base.go:Base 0");
    assert_has(&e, "impl.go:ReadCloser inherit base/base.go:Closer 0");
    assert_has(&e, "impl.go:Local inherit impl.go:Thing 0");
    assert_has(&e, "impl.go:use invoke base/base.go:Base.Hello 0");
    assert!(!e.iter().any(|x| x.contains("io.go")), "{e:?}");
}

#[test]
fn fields_and_receiver_assignments_type_chains() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        (
            "a.go",
            "package main\n\ntype Cache struct{}\n\nfunc (c *Cache) Put() {}\n\nfunc NewCache() *Cache { return nil }\n\ntype Svc struct {\n\tcache *Cache\n\tother Cache\n\tCache *Cache\n}\n\nfunc (s *Svc) Init() {\n\ts.other = Cache{}\n\ts.cache = NewCache()\n\ts.cache.Put()\n\ts.other.Put()\n\tNewCache().Put()\n}\n\nfunc (s *Svc) Flush() {\n\ts.Cache.Put()\n}\n\nfunc (s *Svc) Other() {\n\ts.other.Put()\n}\n",
        ),
    ]);
    assert_has(&e, "a.go:Svc.Init invoke a.go:Cache.Put 0");
    // A field named like its type, beside a field of that type.
    assert_has(&e, "a.go:Svc.Flush invoke a.go:Cache.Put 0");
    assert_has(&e, "a.go:Svc.Other invoke a.go:Cache.Put 0");
    assert_has(&e, "a.go:Svc.Init invoke a.go:NewCache 0");
}

#[test]
fn unknown_receivers_are_not_linked_repository_wide() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        ("a/a.go", "package a\n\ntype Session struct{}\n\nfunc (s *Session) Fetch() {}\n"),
        ("b/b.go", "package b\n\ntype Cache struct{}\n\nfunc (c *Cache) Fetch() {}\n"),
        (
            "c/c.go",
            "package c\n\nimport \"net/http\"\n\nfunc f(x interface{ Fetch() }, r *http.Request) {\n\tx.Fetch()\n\tr.Fetch()\n\tunknown().Fetch()\n}\n",
        ),
    ]);
    assert!(!e.iter().any(|x| x.starts_with("c/c.go:f invoke")), "{e:?}");
}

#[test]
fn guesses_are_marked() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        (
            "m/models.go",
            "package m\n\ntype Order struct{}\n\nfunc (o *Order) Finalize() {}\n\ntype Invoice struct{}\n\nfunc (i *Invoice) Finalize() {}\n\nfunc Get() interface{} { return nil }\n",
        ),
        (
            "flow.go",
            "package main\n\nimport \"example.com/app/m\"\n\nfunc closeIt(doc interface{ Finalize() }) {\n\tm.Get().(interface{ Finalize() }).Finalize()\n}\n",
        ),
        (
            "only/only.go",
            "package only\n\ntype Ledger struct{}\n\nfunc (l *Ledger) ReconcileAll() {}\n",
        ),
        ("use.go", "package main\n\nfunc run(f func() int) {\n\tpick(f).ReconcileAll()\n}\n"),
    ]);
    assert_eq!(meta(&e, "flow.go:closeIt invoke m/models.go:Order.Finalize"), 2);
    assert_eq!(meta(&e, "flow.go:closeIt invoke m/models.go:Invoice.Finalize"), 2);
    assert_eq!(meta(&e, "use.go:run invoke only/only.go:Ledger.ReconcileAll"), 1);
}

#[test]
fn external_and_test_packages() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        ("calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n"),
        ("calc/calc_test.go", "package calc\n\nfunc TestAdd() {\n\tAdd(1, 2)\n}\n"),
        (
            "use.go",
            "package main\n\nimport \"example.com/app/calc\"\n\nfunc main() { calc.Add(1, 2) }\n",
        ),
        (
            "calc/ext_test.go",
            "package calc_test\n\nimport \"example.com/app/calc\"\n\nfunc add() {}\n\nfunc TestExt() {\n\tcalc.Add(1, 2)\n\tadd()\n}\n",
        ),
    ]);
    assert_has(&e, "calc/calc_test.go:TestAdd invoke calc/calc.go:Add 0");
    assert_has(&e, "calc/ext_test.go:TestExt invoke calc/calc.go:Add 0");
    assert_has(&e, "calc/ext_test.go:TestExt invoke calc/ext_test.go:add 0");
    // The external test package sees the package's own test files; other importers do not.
    assert_has(&e, "calc/ext_test.go import calc 0");
    assert_has(&e, "use.go import calc/calc.go 0");
}

#[test]
fn nested_modules_and_local_replace() {
    let e = edges(&[
        ("go.mod", "module example.com/root\n\nreplace example.com/lib => ./third/lib\n"),
        ("third/lib/go.mod", "module example.com/lib\n"),
        ("third/lib/lib.go", "package lib\n\nfunc L() {}\n"),
        ("tools/go.mod", "module example.com/root/tools\n"),
        ("tools/gen/gen.go", "package gen\n\nfunc G() {}\n"),
        (
            "main.go",
            "package main\n\nimport (\n\t\"example.com/lib\"\n\t\"example.com/root/tools/gen\"\n)\n\nfunc main() {\n\tlib.L()\n\tgen.G()\n}\n",
        ),
    ]);
    assert_has(&e, "main.go:main invoke third/lib/lib.go:L 0");
    assert_has(&e, "main.go:main invoke tools/gen/gen.go:G 0");
}

/// The standard library's tree: `module std`, its packages imported with no prefix.
#[test]
fn the_standard_library_imports_its_packages_by_bare_path() {
    let e = edges(&[
        ("src/go.mod", "module std

go 1.19
"),
        ("src/net/dial.go", "package net

func Listen(network, address string) {}
"),
        (
            "src/net/http/server.go",
            "package http

import (\n\t\"net\"\n\t\"fmt\"\n)\n\nfunc ListenAndServe() {\n\tnet.Listen(\"tcp\", \":80\")\n\tfmt.Println()\n}\n",
        ),
    ]);
    assert_has(&e, "src/net/http/server.go import src/net/dial.go 0");
    assert_has(&e, "src/net/http/server.go:ListenAndServe invoke src/net/dial.go:Listen 0");
}

#[test]
fn bad_input_never_panics() {
    let mut ex = cds::lang::Extractors::default();
    let go = cds::lang::Lang::Go;
    // A partial parse keeps the definitions around the error, and counts it.
    let f = ex.extract(go, b"package a\n\nfunc A() {}\n\nfunc B( {\n\nfunc C() {}\n");
    assert!(f.syntax_errors > 0);
    assert!(f.defs.iter().any(|d| d.name == "A"), "{:?}", f.defs);
    // CRLF and a byte-order mark.
    let f = ex.extract(go, b"\xef\xbb\xbfpackage a\r\n\r\n// D.\r\nfunc D() {}\r\n");
    assert_eq!(f.defs.len(), 1);
    assert_eq!(f.defs[0].line_head, 4);
    assert!(f.defs[0].doc.is_some());
    // Bytes that are not UTF-8, in a comment, a string and a name.
    let f = ex.extract(go, b"package a\n// \xff\xfe\nfunc E\xc3() { s := \"\xff\"; _ = s }\n");
    assert!(f.lines == 3);
    // One huge line.
    let mut big = b"package a\nvar x = []int{".to_vec();
    for i in 0..200_000 {
        big.extend_from_slice(format!("{i},").as_bytes());
    }
    big.extend_from_slice(b"}; func F() { g(); h() }");
    let f = ex.extract(go, &big);
    assert!(f.defs.iter().any(|d| d.name == "F"));
    assert_eq!(f.calls.len(), 2);
    // Empty input, and garbage.
    let _ = ex.extract(go, b"");
    let _ = ex.extract(go, b"}}}{{{ func ( ) . type struct interface [ ");
}

#[test]
fn fixture_in_memory() {
    let files = inventory();
    let e = edges(&borrow(&files));
    assert_has(&e, "cmd/invctl/main.go import store 0");
    assert_has(&e, "cmd/invctl/main.go:main invoke store/store.go:New 0");
    assert_has(&e, "cmd/invctl/main.go:main invoke store/store.go:Store.Add 0");
    assert_has(&e, "store/store.go:Store.Add invoke store/lookup.go:Store.lookup 0");
    assert_has(&e, "store/store.go:Store.Add invoke internal/audit/audit.go:Trail.Record 0");
    assert_has(&e, "store/store.go:Store.Add invoke internal/audit/audit.go:Logger.Log 0");
    assert_has(&e, "store/store.go:New invoke internal/audit/audit.go:NewTrail 0");
    assert_has(&e, "store/store.go:Store inherit internal/audit/audit.go:Logger 0");
    assert_has(&e, "store/store.go import internal/audit/audit.go 0");
    assert_has(&e, "store/store_test.go:TestAdd invoke store/store.go:Store.Add 0");
}

#[test]
fn build_trav_and_get_on_a_go_repository() {
    let d = Dir::fixture("go-e2e", "go/inventory");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("go"), "{err}");
    let got = d.cmd("cds-trav").args(["--ids", "-r", "invoke", "store/store.go:Store.Add"]).ok();
    for want in [
        "store/lookup.go:Store.lookup",
        "internal/audit/audit.go:Trail.Record",
        "internal/audit/audit.go:Logger.Log",
    ] {
        assert!(got.lines().any(|l| l == want), "{want} in\n{got}");
    }
    let up = d
        .cmd("cds-trav")
        .args(["--ids", "-d", "up", "-r", "invoke", "store/store.go:Store.Add"])
        .ok();
    assert_eq!(up, "store/store.go:Store.Add\ncmd/invctl/main.go:main\n");
    // `*_test.go` files are tests: walked only with --tests.
    let up = d
        .cmd("cds-trav")
        .args(["--ids", "--tests", "-d", "up", "-r", "invoke", "store/store.go:Store.Add"])
        .ok();
    assert!(up.contains("store/store_test.go:TestAdd\n"), "{up}");
    let fold = d.cmd("cds-get").args(["--view", "fold", "store/store.go:Store.Add"]).ok();
    assert_eq!(
        fold,
        "store/store.go:Store.Add\tfunction\t28-34\tfunc (s *Store) Add(sku string, n int)\n"
    );
}

#[test]
fn generic_calls_and_type_assertions() {
    let e = edges(&[
        ("go.mod", GO_MOD),
        (
            "fn/fn.go",
            "package fn\n\nfunc Map[T, U any](xs []T, f func(T) U) []U { return nil }\n\ntype Box[T any] struct{ v T }\n\nfunc (b *Box[T]) Get() T { return b.v }\n",
        ),
        (
            "main.go",
            "package main\n\nimport \"example.com/app/fn\"\n\nfunc Must[T any](v T) T { return v }\n\nfunc main() {\n\tMust[int](1)\n\tfn.Map[int, int](nil, nil)\n\tvar x any\n\tb, ok := x.(*fn.Box[int])\n\t_ = ok\n\tb.Get()\n\tc := fn.Box[int]{}\n\tc.Get()\n}\n",
        ),
    ]);
    assert_has(&e, "main.go:main invoke main.go:Must 0");
    assert_has(&e, "main.go:main invoke fn/fn.go:Map 0");
    assert_has(&e, "main.go:main invoke fn/fn.go:Box.Get 0");
    assert_lacks(&e, "main.go:main invoke fn/fn.go:Box 0");
}

#[test]
fn reassignments_stay_linear() {
    // `t = t.Elem()` many times over, and swaps: cycles among bindings.
    let mut body = String::from(
        "package main\n\ntype T struct{}\n\nfunc (t *T) Elem() *T { return t }\n\nfunc (t *T) Do() {}\n\nfunc f(t *T, u *T) {\n",
    );
    for _ in 0..40 {
        body.push_str("\tt = t.Elem()\n\tt, u = u, t\n\tu = t.Elem().Elem()\n\tt.Do()\n");
    }
    body.push_str("}\n");
    let start = std::time::Instant::now();
    let e = edges(&[("go.mod", GO_MOD), ("a.go", &body)]);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    assert_has(&e, "a.go:f invoke a.go:T.Do 0");
    assert_has(&e, "a.go:f invoke a.go:T.Elem 0");
}

/// DESIGN §8: a method written in a file that does not define its type has `FILE:Type` as its
/// module-level entity, which cds-loc reports though no node of that name exists there.
#[test]
fn loc_reports_the_receiver_type_as_the_module() {
    use crate::util::Dir;
    let d = Dir::new("lang-go-owned-module");
    d.write("go.mod", "module example.com/tsdb\n\ngo 1.21\n")
        .write("head.go", "package tsdb\n\n// memSeries is a series in memory.\ntype memSeries struct{ n int }\n")
        .write(
            "head_append.go",
            "package tsdb\n\nfunc (s *memSeries) appendPreprocessor(t int64) bool {\n\treturn t > 0\n}\n",
        );
    d.cmd("cds-build").stderr_of(0);
    let out = d
        .cmd("cds-loc")
        .arg("--json")
        .stdin("appendPreprocessor drops out-of-order samples\n")
        .ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["found_entities"][0], "head_append.go:memSeries.appendPreprocessor", "{out}");
    assert_eq!(v["found_modules"][0], "head_append.go:memSeries", "{out}");
}
