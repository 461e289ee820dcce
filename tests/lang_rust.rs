//! Rust: entity IDs, spans, and the module rules of the resolver (crates, `mod` trees, `use`
//! paths, `impl` blocks), on in-memory repositories and on `tests/fixtures/rust/walk-kit`
//! through the real binaries.

use crate::resolve::{assert_has, assert_lacks, edges, entity_ids, graph_of, meta};
use crate::util::{borrow, fixture_files};

fn walk_kit() -> (cds::graph::Graph, Vec<String>) {
    let files = fixture_files("rust/walk-kit");
    graph_of(&borrow(&files))
}

#[test]
fn entity_ids_nest_owners_overloads_and_namespaces() {
    let (g, _) = walk_kit();
    let ids = entity_ids(&g);
    let want = [
        "crates/other/src/lib.rs:use_it",
        "src/lib.rs:Shape",
        "src/lib.rs:Shape.describe",
        "src/lib.rs:Named",
        "src/lib.rs:inline",
        "src/lib.rs:inline.helper",
        "src/lib.rs:inline.Inner",
        "src/lib.rs:inline.Inner.go",
        "src/lib.rs:run",
        "src/lib.rs:tests",
        "src/lib.rs:tests.it_works",
        "src/util.rs:assist",
        "src/walker.rs:Walker",
        "src/walker.rs:Pos",
        "src/walker.rs:Pos.advance",
        "src/walker.rs:Walker.new",
        "src/walker.rs:Walker.step",
        "src/walker.rs:Walker.helper",
        "src/walker.rs:Walker.platform",
        "src/walker.rs:Walker.name",
        "src/walker.rs:Walker.area",
        "src/walker.rs:Walker.fmt",
        "src/walker.rs:free",
        "src/walker.rs:poke",
        "src/walker.rs:Walker.position",
        "src/walker.rs:chained",
        "src/extra/special.rs:spec",
        "src/util/nested.rs:deep",
        "src/util/nested.rs:again",
        "tests/smoke.rs:smoke",
    ];
    assert_eq!(ids, want);
    // Trait signatures without a body are not entities; `#[cfg]` twins and `fmt` of two
    // impls are one node each; methods of `impl` blocks sit under their type's node.
    let node = |id: &str| g.nodes.iter().position(|n| n.id == id.as_bytes()).unwrap();
    let parent = |id: &str| {
        let p = g.nodes[node(id)].parent as usize;
        String::from_utf8_lossy(&g.nodes[p].id).into_owned()
    };
    assert_eq!(parent("src/walker.rs:Walker.fmt"), "src/walker.rs:Walker");
    assert_eq!(parent("src/lib.rs:inline.Inner.go"), "src/lib.rs:inline.Inner");
    assert_eq!(parent("src/lib.rs:Shape.describe"), "src/lib.rs:Shape");
    let flags = |id: &str| g.nodes[node(id)].flags;
    assert_ne!(flags("src/lib.rs:tests.it_works") & cds::graph::FLAG_TEST, 0);
    assert_eq!(flags("src/lib.rs:run") & cds::graph::FLAG_TEST, 0);
    assert_ne!(flags("src/lib.rs:inline") & cds::graph::FLAG_NAMESPACE, 0);
    assert_ne!(flags("tests/smoke.rs:smoke") & cds::graph::FLAG_TEST, 0);
}

#[test]
fn doc_and_fold_spans() {
    let src = std::fs::read(crate::util::fixtures().join("rust/walk-kit/src/lib.rs")).unwrap();
    let facts = cds::lang::Extractors::default().extract(cds::lang::Lang::Rust, &src);
    let def = |name: &str| facts.defs.iter().find(|d| d.name == name).unwrap();
    let text =
        |(a, b): (u32, u32)| String::from_utf8_lossy(&src[a as usize..b as usize]).into_owned();
    let shape = def("Shape");
    assert_eq!(text(shape.doc.unwrap()), "/// Something with an area.\n///\n/// Two lines of doc.");
    // The doc comment and the attribute are part of the entity; the fold is its head.
    assert_eq!((shape.line_start, shape.line_head, shape.line_end), (11, 15, 22));
    assert_eq!(text((shape.byte_head, shape.byte_sig_end)), "pub trait Shape: Named");
    let describe = def("describe");
    assert_eq!(text(describe.doc.unwrap()), "/// A default method: it sits under the trait.");
    assert_eq!(text((describe.byte_head, describe.byte_sig_end)), "fn describe(&self) -> String");
    assert_eq!(text(def("inline").doc.unwrap()), "//! An inline module.");
    assert_eq!(def("run").doc, None);
}

#[test]
fn imports_follow_the_module_tree_and_crates() {
    let (_, e) = walk_kit();
    // `mod x;`, `#[path]`, `pub use` of an item, `use crate::..`, `use super::..`.
    assert_has(&e, "src/lib.rs import src/walker.rs 0");
    assert_has(&e, "src/lib.rs import src/util.rs 0");
    assert_has(&e, "src/lib.rs import src/extra/special.rs 0");
    assert_has(&e, "src/lib.rs import src/walker.rs:Walker 0");
    assert_has(&e, "src/util.rs import src/util/nested.rs 0");
    assert_has(&e, "src/walker.rs import src/util.rs:assist 0");
    assert_has(&e, "src/walker.rs import src/lib.rs:Named 0");
    assert_has(&e, "src/util/nested.rs import src/util.rs:assist 0");
    // Another workspace crate by its Cargo.toml name (`-` read as `_`), through a `pub use`;
    // an integration test crate reaches the library the same way.
    assert_has(&e, "crates/other/src/lib.rs import src/walker.rs:Walker 0");
    assert_has(&e, "tests/smoke.rs import src/lib.rs:run 0");
    // std and dependencies are outside the repository.
    assert!(!e.iter().any(|l| l.contains("fmt") && l.contains(" import ")), "{e:?}");
}

#[test]
fn invokes_through_paths_receivers_and_impls() {
    let (_, e) = walk_kit();
    // `Type::assoc()`, `self.m()`, a field's type, a typed local, `Foo::new().m()`.
    assert_has(&e, "src/lib.rs:run invoke src/walker.rs:Walker.new 0");
    assert_has(&e, "src/lib.rs:run invoke src/walker.rs:Walker.step 0");
    assert_has(&e, "src/walker.rs:Walker.step invoke src/walker.rs:Walker.helper 0");
    assert_has(&e, "src/walker.rs:Walker.step invoke src/walker.rs:Pos.advance 0");
    assert_has(&e, "src/walker.rs:free invoke src/walker.rs:Walker.step 0");
    // A method called on a method's result, typed by its declared return type.
    assert_has(&e, "src/walker.rs:chained invoke src/walker.rs:Pos.advance 0");
    // A trait's default method through `impl Trait for Type`.
    assert_has(&e, "src/walker.rs:free invoke src/lib.rs:Shape.describe 0");
    // Module paths: `mod` children, `#[path]`, inline modules and their items.
    assert_has(&e, "src/lib.rs:run invoke src/walker.rs:free 0");
    assert_has(&e, "src/lib.rs:run invoke src/util.rs:assist 0");
    assert_has(&e, "src/lib.rs:run invoke src/extra/special.rs:spec 0");
    assert_has(&e, "src/lib.rs:run invoke src/lib.rs:inline.helper 0");
    assert_has(&e, "src/lib.rs:run invoke src/lib.rs:inline.Inner.go 0");
    assert_has(&e, "src/lib.rs:inline.Inner.go invoke src/lib.rs:inline.helper 0");
    assert_has(&e, "src/util.rs:assist invoke src/util/nested.rs:deep 0");
    // `super::f()` and `crate::a::f()` in expressions.
    assert_has(&e, "src/util/nested.rs:again invoke src/util.rs:assist 0");
    assert_has(&e, "src/util/nested.rs:again invoke src/walker.rs:free 0");
    // `use super::*` in `mod tests`; across crates.
    assert_has(&e, "src/lib.rs:tests.it_works invoke src/lib.rs:run 0");
    assert_has(&e, "crates/other/src/lib.rs:use_it invoke src/walker.rs:Walker.step 0");
    // A receiver of unknown type (`all[0]`): the one visible method of that name, a guess.
    assert_eq!(
        meta(&e, "src/walker.rs:poke invoke src/walker.rs:Pos.advance"),
        cds::graph::META_GUESS
    );
    // Struct literals and macros are not calls.
    assert_lacks(&e, "src/walker.rs:Walker.new invoke src/walker.rs:Walker");
    assert_lacks(&e, "src/walker.rs:Walker.new invoke src/walker.rs:Pos");
}

#[test]
fn inherit_from_supertraits_and_impls() {
    let (_, e) = walk_kit();
    assert_has(&e, "src/lib.rs:Shape inherit src/lib.rs:Named 0");
    assert_has(&e, "src/walker.rs:Walker inherit src/lib.rs:Named 0");
    assert_has(&e, "src/walker.rs:Walker inherit src/lib.rs:Shape 0");
    // `impl fmt::Display for Walker`: std traits are outside the repository.
    assert!(!e.iter().any(|l| l.starts_with("src/walker.rs:Walker inherit") && l.contains("fmt")));
    // An impl in another file than the type still inherits.
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        ("src/lib.rs", "mod a;\nmod b;\npub trait T { fn t(&self) {} }\n"),
        ("src/a.rs", "pub struct S;\n"),
        (
            "src/b.rs",
            "use crate::a::S;\nuse crate::T;\nimpl T for S {}\nimpl S { pub fn own(&self) {} }\n",
        ),
    ]);
    assert_has(&e, "src/a.rs:S inherit src/lib.rs:T 0");
    // ... and the trait's default methods are members of the type.
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        ("src/lib.rs", "mod a;\nmod b;\nmod c;\npub trait T { fn t(&self) {} }\n"),
        ("src/a.rs", "pub struct S;\n"),
        ("src/b.rs", "use crate::a::S;\nuse crate::T;\nimpl T for S {}\n"),
        ("src/c.rs", "use crate::a::S;\nfn f(s: S) { s.t(); }\n"),
    ]);
    assert_has(&e, "src/c.rs:f invoke src/lib.rs:T.t 0");
}

#[test]
fn module_rules_mod_rs_relative_paths_and_renames() {
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"app\"\n"),
        (
            "src/main.rs",
            "mod net;\nmod cfg;\nuse net::client::Client;\nuse cfg as conf;\n\
             fn main() {\n    let c = Client::connect();\n    c.send();\n    conf::load();\n    self::helper();\n}\n\
             fn helper() {}\n",
        ),
        ("src/net/mod.rs", "pub mod client;\npub use self::client::Client as Reexported;\n"),
        (
            "src/net/client.rs",
            "pub struct Client;\nimpl Client {\n    pub fn connect() -> Client { Client }\n    pub fn send(&self) { crate::helper(); }\n}\n",
        ),
        ("src/cfg.rs", "pub fn load() {}\n"),
    ]);
    assert_has(&e, "src/main.rs import src/net/mod.rs 0");
    assert_has(&e, "src/net/mod.rs import src/net/client.rs 0");
    assert_has(&e, "src/main.rs import src/net/client.rs:Client 0");
    // `use cfg as conf;` names the module file itself.
    assert_has(&e, "src/main.rs import src/cfg.rs 0");
    assert_has(&e, "src/main.rs import src/net/client.rs:Client 0");
    assert_has(&e, "src/net/mod.rs import src/net/client.rs:Client 0");
    // `fn connect() -> Client` types the local; an aliased module; `self::f()`.
    assert_has(&e, "src/main.rs:main invoke src/net/client.rs:Client.connect 0");
    assert_has(&e, "src/main.rs:main invoke src/net/client.rs:Client.send 0");
    assert_has(&e, "src/main.rs:main invoke src/cfg.rs:load 0");
    assert_has(&e, "src/main.rs:main invoke src/main.rs:helper 0");
    assert_has(&e, "src/net/client.rs:Client.send invoke src/main.rs:helper 0");
}

#[test]
fn items_of_inline_modules_through_use_paths() {
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        (
            "src/lib.rs",
            "mod user;\npub mod shapes {\n    pub mod round {\n        pub struct Circle;\n        impl Circle { pub fn r(&self) {} }\n    }\n    pub fn unit() {}\n}\n\
             mod tests {\n    use super::shapes::round::Circle;\n    fn t(c: Circle) { c.r(); }\n}\n",
        ),
        (
            "src/user.rs",
            "use crate::shapes::round::Circle;\nuse crate::shapes::{self, unit};\n\
             fn go(c: &Circle) { c.r(); unit(); shapes::unit(); }\n",
        ),
    ]);
    assert_has(&e, "src/user.rs import src/lib.rs:shapes.round.Circle 0");
    assert_has(&e, "src/user.rs import src/lib.rs:shapes.unit 0");
    assert_has(&e, "src/user.rs import src/lib.rs:shapes 0");
    assert_has(&e, "src/user.rs:go invoke src/lib.rs:shapes.round.Circle.r 0");
    assert_has(&e, "src/user.rs:go invoke src/lib.rs:shapes.unit 0");
    assert_has(&e, "src/lib.rs:tests.t invoke src/lib.rs:shapes.round.Circle.r 0");
}

#[test]
fn crate_roots_bins_tests_and_shared_modules() {
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"tool-kit\"\n\n[lib]\nname = \"tk\"\n"),
        ("src/lib.rs", "pub mod api;\n"),
        ("src/api.rs", "pub fn call() {}\n"),
        ("src/bin/cli.rs", "mod args;\nfn main() { args::parse(); tk::api::call(); }\n"),
        ("src/bin/args.rs", "pub fn parse() {}\n"),
        ("tests/common/mod.rs", "pub fn setup() {}\n"),
        ("tests/a.rs", "mod common;\nuse common::setup;\n#[test]\nfn a() { setup(); }\n"),
        (
            "tests/b.rs",
            "mod common;\nuse common::setup;\nuse tk::api;\n#[test]\nfn b() { setup(); api::call(); }\n",
        ),
        // No manifest: `main.rs` still roots its module tree.
        ("scripts/main.rs", "mod step;\nfn main() { step::go(); crate::step::go(); }\n"),
        ("scripts/step.rs", "pub fn go() {}\n"),
    ]);
    assert_has(&e, "src/bin/cli.rs import src/bin/args.rs 0");
    assert_has(&e, "src/bin/cli.rs:main invoke src/bin/args.rs:parse 0");
    assert_has(&e, "src/bin/cli.rs:main invoke src/api.rs:call 0");
    assert_has(&e, "tests/a.rs import tests/common/mod.rs:setup 0");
    assert_has(&e, "tests/b.rs import tests/common/mod.rs:setup 0");
    assert_has(&e, "tests/a.rs:a invoke tests/common/mod.rs:setup 0");
    assert_has(&e, "tests/b.rs:b invoke tests/common/mod.rs:setup 0");
    assert_has(&e, "tests/b.rs:b invoke src/api.rs:call 0");
    // `use tk::api;`: the module file, not the crate root.
    assert_has(&e, "tests/b.rs import src/api.rs 0");
    assert_lacks(&e, "tests/b.rs import src/lib.rs 0");
    assert_has(&e, "scripts/main.rs:main invoke scripts/step.rs:go 0");
}

#[test]
fn no_repository_wide_name_matching() {
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("src/a.rs", "pub struct A;\nimpl A { pub fn frob(&self) {} }\n"),
        ("src/b.rs", "pub struct B;\nimpl B { pub fn frob(&self) {} }\n"),
        (
            "src/c.rs",
            "pub fn user(x: &dyn std::any::Any) {\n    make().frob();\n    x.frob();\n    unknown::thing();\n    Missing::new();\n}\n\
             fn make() -> Box<dyn Frob> { todo!() }\n",
        ),
    ]);
    assert!(!e.iter().any(|l| l.contains("frob") || l.contains("thing")), "{e:?}");
    assert!(!e.iter().any(|l| l.contains(":user invoke") && l.contains("new")), "{e:?}");
    // A typed receiver without such a method is not guessed at either.
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        ("src/lib.rs", "mod a;\nmod b;\npub struct Mine;\nfn f(m: Mine) { m.frob(); }\n"),
        ("src/a.rs", "pub struct A;\nimpl A { pub fn frob(&self) {} }\n"),
        ("src/b.rs", "pub struct B;\nimpl B { pub fn frob(&self) {} }\n"),
    ]);
    assert!(!e.iter().any(|l| l.contains(" invoke ")), "{e:?}");
    // Two visible candidates for an unknown receiver: both, marked as 2 alternatives.
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        ("src/lib.rs", "mod a;\nmod b;\nuse a::A;\nuse b::B;\nfn f(v: Vec<u8>) { v[0].frob(); }\n"),
        ("src/a.rs", "pub struct A;\nimpl A { pub fn frob(&self) {} }\n"),
        ("src/b.rs", "pub struct B;\nimpl B { pub fn frob(&self) {} }\n"),
    ]);
    assert_eq!(meta(&e, "src/lib.rs:f invoke src/a.rs:A.frob"), 2);
    assert_eq!(meta(&e, "src/lib.rs:f invoke src/b.rs:B.frob"), 2);
    // Functions of an inline module are not methods; std's method names are not guessed.
    let e = edges(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        (
            "src/lib.rs",
            "mod m { pub fn lonely(x: u8) {} }\npub struct A;\nimpl A { pub fn len(&self) -> usize { 0 } }\n\
             fn f(v: Vec<u8>) { v[0].lonely(); v.iter().len(); zmij::Buffer::new(); }\n",
        ),
    ]);
    assert!(!e.iter().any(|l| l.contains(" invoke ")), "{e:?}");
}

#[test]
fn bad_input_still_yields_definitions() {
    let (g, e) = graph_of(&[
        ("Cargo.toml", "[package]\nname = \"k\"\n"),
        ("src/lib.rs", "\u{feff}mod bad;\r\nmod long;\r\npub fn ok() {}\r\n"),
        (
            "src/bad.rs",
            "pub fn before() { crate::ok(); }\nfn broken( {\nimpl X { fn after(&self) {} }\n",
        ),
        ("src/empty.rs", ""),
        ("src/long.rs", &format!("pub fn long() {{ {} }}", "crate::ok(); ".repeat(5000))),
    ]);
    let ids = entity_ids(&g);
    assert!(ids.contains(&"src/bad.rs:before".to_string()), "{ids:?}");
    assert!(ids.contains(&"src/lib.rs:ok".to_string()), "{ids:?}");
    assert!(ids.contains(&"src/long.rs:long".to_string()), "{ids:?}");
    let bad = g.nodes.iter().find(|n| n.id == b"src/bad.rs").unwrap();
    assert_ne!(bad.flags & cds::graph::FLAG_SYNTAX_ERROR, 0);
    assert_has(&e, "src/lib.rs import src/bad.rs 0");
    assert_has(&e, "src/bad.rs:before invoke src/lib.rs:ok 0");
    assert_has(&e, "src/long.rs:long invoke src/lib.rs:ok 0");
}

#[test]
fn end_to_end_build_fold_and_trav() {
    let d = crate::util::Dir::fixture("lang-rust-e2e", "rust/walk-kit");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("rust"), "{err}");
    let fold = d.cmd("cds-get").args(["--view", "fold", "src/walker.rs:Walker.new"]).ok();
    assert_eq!(fold, "src/walker.rs:Walker.new\tfunction\t17-19\tpub fn new() -> Self\n");
    let fold = d.cmd("cds-get").args(["--view", "fold", "src/lib.rs:Shape"]).ok();
    assert!(fold.starts_with("src/lib.rs:Shape\tclass\t11-22\tpub trait Shape: Named"), "{fold}");
    let up = d
        .cmd("cds-trav")
        .args(["--ids", "--no-roots", "-d", "up", "-r", "invoke", "src/walker.rs:Walker.step"])
        .ok();
    let mut got: Vec<&str> = up.lines().collect();
    got.sort();
    assert_eq!(
        got,
        ["crates/other/src/lib.rs:use_it", "src/lib.rs:run", "src/walker.rs:free"],
        "{up}"
    );
}

/// A blanket impl (`impl<T: Bound> Trait for T`) names no type: its methods are the trait's
/// (they were `T.method`, every blanket impl of the file merged into one `T`).
#[test]
fn blanket_impls_are_methods_of_their_trait() {
    let files = [
        (
            "src/lib.rs",
            "pub trait Greet {\n    fn greet(&self) -> String;\n}\n\n\
             impl<T: std::fmt::Display> Greet for T {\n    fn greet(&self) -> String {\n        \
             show(self)\n    }\n}\n\n\
             impl<T: Clone> crate::other::Tag for T {\n    fn tag(&self) {}\n}\n\n\
             pub struct Wrapper<T>(T);\n\n\
             impl<T> From<T> for Wrapper<T> {\n    fn from(t: T) -> Self {\n        Wrapper(t)\n    }\n}\n\n\
             fn show<D: std::fmt::Display>(d: &D) -> String {\n    d.to_string()\n}\n",
        ),
        ("Cargo.toml", "[package]\nname = \"x\"\nversion = \"0.1.0\"\n"),
    ];
    let (g, e) = graph_of(&files);
    let ids = entity_ids(&g);
    for id in ["src/lib.rs:Greet.greet", "src/lib.rs:Tag.tag", "src/lib.rs:Wrapper.from"] {
        assert!(ids.iter().any(|i| i == id), "{id} in {ids:?}");
    }
    assert!(!ids.iter().any(|i| i.contains(":T.")), "{ids:?}");
    let node = |id: &str| g.nodes.iter().find(|n| n.id == id.as_bytes()).unwrap();
    assert_eq!(g.nodes[node("src/lib.rs:Greet.greet").parent as usize].id, b"src/lib.rs:Greet");
    assert_has(&e, "src/lib.rs:Greet.greet invoke src/lib.rs:show 0");
}
