//! Unit tests of the Rust frontend: the query compiles, and each shape yields its facts.

use super::*;
use crate::extract::{BindValue, Callee, DefKind, Expr, ImportForm};

fn facts(src: &str) -> FileFacts {
    Extractor::new().extract(src.as_bytes())
}

fn quals(f: &FileFacts) -> Vec<String> {
    (0..f.defs.len() as u32).map(|i| f.qual_name(i)).collect()
}

#[test]
fn query_compiles_and_grammar_loads() {
    extract::patterns();
    let q = tree_sitter::Query::new(&language(), FACTS_QUERY).expect("compiles");
    for name in q.capture_names() {
        assert!(
            [
                "def.function",
                "def.class",
                "def.module",
                "def.name",
                "import.mod",
                "import.name",
                "impl",
                "impl.type",
                "import",
                "call",
                "call.callee",
                "macro",
                "macro.args",
                "bind",
                "bind.left",
                "bind.type",
                "bind.right"
            ]
            .contains(name),
            "unknown capture @{name}"
        );
    }
}

#[test]
fn definitions_owners_and_namespaces() {
    let f = facts(
        "struct Walker<T> { inner: Box<Inner>, n: u32 }\n\
         enum E { A }\n\
         union U { a: u32 }\n\
         trait Tr: Base + a::Other<X> {\n    fn req(&self);\n    fn dflt(&self) -> Self { todo!() }\n}\n\
         impl<T> Walker<T> {\n    pub fn new() -> Self { Walker { inner: Box::new(Inner), n: 0 } }\n}\n\
         impl<T> Tr for &Walker<T> {\n    fn req(&self) {}\n}\n\
         impl fmt::Display for a::b::Walker { fn fmt(&self) {} }\n\
         fn outer() { fn inner() {} let c = |x| x; }\n\
         mod m {\n    //! Inner doc.\n    pub struct S;\n    impl S { fn f(self) {} }\n    mod deep { fn g() {} }\n}\n\
         #[cfg(test)]\nmod tests {\n    #[test]\n    fn it_works() {}\n}\n",
    );
    assert_eq!(
        quals(&f),
        [
            "Walker",
            "E",
            "U",
            "Tr",
            "Tr.dflt",
            "Walker.new",
            "Walker.req",
            "Walker.fmt",
            "outer",
            "outer.inner",
            "m",
            "m.S",
            "m.S.f",
            "m.deep",
            "m.deep.g",
            "tests",
            "tests.it_works"
        ]
    );
    let by = |q: &str| &f.defs[quals(&f).iter().position(|x| x == q).unwrap()];
    assert_eq!(by("Walker").kind, DefKind::Class);
    assert_eq!(by("Walker.new").owner.as_deref(), Some("Walker"));
    assert_eq!(by("Walker.new").returns.as_deref(), Some("Self"));
    assert_eq!(by("Walker.new").first_param, None);
    assert_eq!(by("Walker.req").first_param.as_deref(), Some("self"));
    assert_eq!(by("Tr.dflt").owner, None);
    assert_eq!(by("Tr").bases, [Expr::Dotted("Base".into()), Expr::Dotted("a.Other".into())]);
    // `impl Tr for &Walker` is an impl, not a base written in the struct.
    assert!(by("Walker").bases.is_empty());
    assert!(by("m").namespace && by("tests").namespace && !by("m.S").namespace);
    assert!(by("m").doc.is_some());
    assert_eq!(f.impls.len(), 2);
    assert_eq!((f.impls[1].ty.as_str(), f.impls[1].trait_.as_str()), ("a.b.Walker", "fmt.Display"));
    let fields: Vec<_> = f.binds.iter().filter(|b| b.owner == Some(0)).collect();
    assert_eq!(fields.len(), 1, "{fields:?}");
    assert_eq!(fields[0].target, "inner");
    assert_eq!(fields[0].value, BindValue::Annotated("Inner".into()));
}

#[test]
fn spans_docs_and_attributes() {
    let src = "/// Doc one.\n/// Doc two.\n#[derive(Debug)]\npub struct S {\n    x: u32,\n}\n\n// plain\nfn f(a: u32) -> u32 {\n    a\n}\n";
    let f = facts(src);
    let s = &f.defs[0];
    assert_eq!((s.line_start, s.line_head, s.line_end), (1, 4, 6));
    let (a, b) = s.doc.unwrap();
    assert_eq!(&src[a as usize..b as usize], "/// Doc one.\n/// Doc two.");
    assert_eq!(&src[s.byte_head as usize..s.byte_sig_end as usize], "pub struct S");
    let g = &f.defs[1];
    assert_eq!(g.doc, None);
    assert_eq!(g.line_start, 9);
    assert_eq!(&src[g.byte_head as usize..g.byte_sig_end as usize], "fn f(a: u32) -> u32");
    assert_eq!(&src[g.byte_start as usize..g.byte_end as usize], "fn f(a: u32) -> u32 {\n    a\n}");
}

/// (module, name, alias, form, statement) of an import.
type Row = (String, Option<String>, Option<String>, ImportForm, u32);

#[test]
fn use_trees_mods_and_extern_crates() {
    let f = facts(
        "use crate::a::b::C;\nuse a::b::{self, C as D, e::*, {f::g}};\npub use x::y;\n\
         use std;\nextern crate foo as bar;\nmod plain;\n#[path = \"p/q.rs\"]\nmod other;\n\
         fn h() { use super::*; }\n",
    );
    let got: Vec<Row> = f
        .imports
        .iter()
        .map(|i| (i.module.clone(), i.name.clone(), i.alias.clone(), i.form, i.stmt))
        .collect();
    let s = |x: &str| Some(x.to_string());
    let p = ImportForm::Plain;
    assert_eq!(
        got,
        [
            ("crate.a.b".into(), s("C"), None, p, 0),
            ("a".into(), s("b"), None, p, 1),
            ("a.b".into(), s("C"), s("D"), p, 1),
            ("a.b.e".into(), s("*"), None, p, 1),
            ("a.b.f".into(), s("g"), None, p, 1),
            ("x".into(), s("y"), None, ImportForm::ReExport, 2),
            ("std".into(), None, None, p, 3),
            ("foo".into(), None, s("bar"), p, 4),
            ("plain".into(), None, None, ImportForm::ModDecl, 5),
            ("path:p/q.rs".into(), None, s("other"), ImportForm::ModDecl, 6),
            ("super".into(), s("*"), None, p, 7),
        ]
    );
    assert_eq!(f.imports[10].owner, Some(0));
}

#[test]
fn calls_and_binds() {
    let f = facts(
        "fn f(x: &Foo, y: Box<Bar>, z: Option<Baz>) {\n\
         foo(); Foo::new(); a::b::c(); self.x(); Self::new(); x.method(); make().run();\n\
         get()[0].h(); self::local(); super::up(); crate::top::f(); Vec::<u8>::new(); g::<u8>();\n\
         self.a.b(); <T as Tr>::m(); self.inner().run(); println!(\"{}\", q()); let s = S { a: 1 };\n\
         let v = Foo::new(); let w: Foo = g(); let r = &other; let c = |k| inner(k);\n}\n",
    );
    let callees: Vec<&Callee> = f.calls.iter().map(|c| &c.callee).collect();
    let n = |x: &str| Callee::Name(x.into());
    let c = |x: &str| Callee::Chain(x.into());
    assert_eq!(
        callees,
        [
            &n("foo"),
            &c("Foo.new"),
            &c("a.b.c"),
            &c("self.x"),
            &c("Self.new"),
            &c("x.method"),
            &Callee::OnCall("make".into(), "run".into()),
            &n("make"),
            &Callee::Attr("h".into()),
            &n("get"),
            &n("local"),
            &c("super.up"),
            &c("crate.top.f"),
            &c("Vec.new"),
            &n("g"),
            &c("self.a.b"),
            &Callee::Attr("m".into()),
            &Callee::OnCall("self.inner".into(), "run".into()),
            &c("self.inner"),
            &n("q"),
            &c("Foo.new"),
            &n("g"),
            &n("inner"),
        ]
    );
    assert!(f.calls.iter().all(|c| c.owner == Some(0)));
    let binds: Vec<(&str, &BindValue)> =
        f.binds.iter().map(|b| (b.target.as_str(), &b.value)).collect();
    assert_eq!(
        binds,
        [
            ("x", &BindValue::Annotated("Foo".into())),
            ("y", &BindValue::Annotated("Bar".into())),
            ("s", &BindValue::Annotated("S".into())),
            ("v", &BindValue::CallOf("Foo.new".into())),
            ("w", &BindValue::Annotated("Foo".into())),
            ("r", &BindValue::Alias("other".into())),
        ]
    );
}

#[test]
fn calls_inside_macro_arguments() {
    let f = facts(
        "fn f(&mut self) {\n    let n = tri!(self.next());\n    assert_eq!(\n        a::b(),\n        vec![c(), format!(\"{}\", d())],\n    );\n    m! { e() }\n}\nmacro_rules! m { ($x:expr) => { g() }; }\n",
    );
    let got: Vec<(&Callee, u32)> = f.calls.iter().map(|c| (&c.callee, c.line)).collect();
    assert_eq!(
        got,
        [
            (&Callee::Chain("self.next".into()), 2),
            (&Callee::Chain("a.b".into()), 4),
            (&Callee::Name("c".into()), 5),
            (&Callee::Name("d".into()), 5),
            (&Callee::Name("e".into()), 7),
        ]
    );
    assert!(f.calls.iter().all(|c| c.owner == Some(0)));
}

#[test]
fn bad_input_never_panics() {
    let f = facts("fn ok() {}\nfn broken( {\nstruct After { x: u32 }\n");
    assert!(f.syntax_errors > 0);
    assert!(f.defs.iter().any(|d| d.name == "ok"));
    let f = facts("\u{feff}fn a() {}\r\nfn b() {\r\n    a();\r\n}\r\n");
    assert_eq!(f.defs.len(), 2);
    assert_eq!(f.defs[1].line_end, 4);
    let mut bytes = b"fn \xff\xfe() {}\nfn fine() { x\xff(); }\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'a', 10));
    let f = Extractor::new().extract(&bytes);
    assert!(f.defs.iter().any(|d| d.name == "fine"));
    let huge = format!("fn f() {{ {} }}", "g(); ".repeat(20_000));
    let f = facts(&huge);
    assert_eq!(f.lines, 1);
    assert_eq!(f.calls.len(), 20_000);
    let f = Extractor::new().extract(b"");
    assert!(f.defs.is_empty());
}

#[test]
fn manifests_name_crates() {
    let m = resolve::manifest(
        "[package] # the package\nname = \"walk-kit\"  # renamed later\nversion = \"1\"\n\n[lib]\nname = \"wk\"\npath = \"lib/x.rs\"\n[dependencies]\nname = \"not-this\"\n",
    );
    assert_eq!(m.name.as_deref(), Some("walk-kit"));
    assert_eq!(m.lib_name.as_deref(), Some("wk"));
    assert_eq!(m.lib_path.as_deref(), Some("lib/x.rs"));
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let n = 30_000;
    let src = format!(
        "fn f() {{ a{}.c(); x::{}z(); let t: {}T = 1; let u: {}T{} = 2; }}\nuse a::{}b{};\n",
        ".b".repeat(n),
        "y::".repeat(n),
        "&".repeat(n),
        "Box<".repeat(n),
        ">".repeat(n),
        "{".repeat(n),
        "}".repeat(n),
    );
    let f = facts(&src);
    assert_eq!(f.defs.len(), 1);
    assert_eq!(f.calls.len(), 2);
}
