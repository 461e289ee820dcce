//! Unit tests of the C/C++ frontend: each shape yields its facts.

use super::*;
use crate::extract::{BindValue, Callee, DefKind, Expr, FileFacts, ImportForm};
use crate::lang::Lang;
use crate::lang::c::extract::blank_decl_macros;

fn c(src: &str) -> FileFacts {
    Extractor::new().extract(Lang::C, src.as_bytes())
}

fn cpp(src: &str) -> FileFacts {
    Extractor::new().extract(Lang::Cpp, src.as_bytes())
}

fn quals(f: &FileFacts) -> Vec<String> {
    (0..f.defs.len() as u32).map(|i| f.qual_name(i)).collect()
}

fn callees(f: &FileFacts) -> Vec<String> {
    f.calls
        .iter()
        .map(|c| match &c.callee {
            Callee::Name(n) => n.clone(),
            Callee::Chain(n) => format!("chain:{n}"),
            Callee::OnCall(a, b) => format!("oncall:{a}:{b}"),
            Callee::Attr(a) => format!("attr:{a}"),
            Callee::Other => "other".into(),
        })
        .collect()
}

#[test]
fn c_definitions_typedefs_and_prototypes() {
    let f = c("#include \"a.h\"\n#include <stdio.h>\n\
         struct point { int x; struct inner { int y; } in; };\n\
         typedef struct { int a; } anon_t;\n\
         typedef struct named { int b; } named_t;\n\
         typedef union YYSTYPE { int i; } YYSTYPE;\n\
         enum color { RED, GREEN };\n\
         enum { NOPE };\n\
         struct fwd;\n\
         int proto(int);\n\
         static int local_proto(void);\n\
         extern char *ext(const char *s), other(void);\n\
         int (*fp)(int);\n\
         static int helper(int a) { return proto(a) + local_proto(); }\n\
         static int local_proto(void) { return 1; }\n\
         int *make(void) { helper(1); s->op(2); (*fp)(3); return 0; }\n");
    assert_eq!(
        quals(&f),
        [
            "point",
            "point.inner",
            "anon_t",
            "named",
            "YYSTYPE",
            "color",
            "helper",
            "local_proto",
            "make"
        ]
    );
    assert_eq!(f.defs[6].decorators, [Expr::Dotted("static".into())]);
    assert!(f.defs[8].decorators.is_empty());
    let imps: Vec<(String, Option<String>, u32, ImportForm)> =
        f.imports.iter().map(|i| (i.module.clone(), i.name.clone(), i.level, i.form)).collect();
    assert_eq!(
        imps,
        [
            ("a.h".into(), None, 1, ImportForm::ReExport),
            ("stdio.h".into(), None, 0, ImportForm::ReExport),
            ("".into(), Some("proto".into()), 0, ImportForm::Plain),
            ("".into(), Some("ext".into()), 0, ImportForm::Plain),
            ("".into(), Some("other".into()), 0, ImportForm::Plain),
        ]
    );
    // Calls through a struct's field or a pointer are left out.
    assert_eq!(callees(&f), ["proto", "local_proto", "helper"]);
    assert_eq!(f.syntax_errors, 0);
}

#[test]
fn c_doc_comments_and_fold_spans() {
    let src = "int x; // trailing\nint y;\n\n/**\n * Adds.\n */\nstatic int\nadd(int a,\n    int b)\n{\n  return a + b;\n}\n";
    let f = c(src);
    let d = &f.defs[0];
    assert_eq!((d.line_start, d.line_head, d.line_end), (4, 7, 12));
    let (s, e) = d.doc.unwrap();
    assert_eq!(&src[s as usize..e as usize], "/**\n * Adds.\n */");
    assert_eq!(
        &src[d.byte_head as usize..d.byte_sig_end as usize],
        "static int\nadd(int a,\n    int b)"
    );
    let f = c("int x; // not a doc\nint f(void) { return 0; }\n");
    assert_eq!(f.defs[0].doc, None);
}

#[test]
fn c_knr_and_ifdef_variants() {
    let f = c("int old(a, b)\n  int a;\n  char *b;\n{\n  return helper(a);\n}\n\
         #ifdef WIN32\nint plat(void) { return 1; }\n#else\nint plat(void) { return 2; }\n#endif\n");
    assert_eq!(quals(&f), ["old", "plat", "plat"]);
    assert_eq!(callees(&f), ["helper"]);
    assert_eq!(f.defs[0].line_end, 6);
}

#[test]
fn cpp_classes_methods_and_namespaces() {
    let f = cpp("namespace fmt { inline namespace v10 {\n\
         /// A writer.\n\
         template <typename Char> class basic_writer : public detail::base<Char>, Other {\n\
          public:\n  void write(int x) { this->put(x); flush(); }\n  void decl();\n  static int count();\n\
          int operator()(int) const { return 0; }\n  ~basic_writer() {}\n\
          private:\n  Buffer *buf_;\n  std::unique_ptr<Sink> sink_;\n};\n\
         template <typename Char> void basic_writer<Char>::decl() { buf_->grow(); }\n\
         struct outer { struct inner { void f() {} }; };\n\
         void outer::inner::g() {}\n\
         namespace { int hidden() { return 0; } }\n\
         static int also_hidden() { return 0; }\n\
         template <> struct formatter<int> { auto parse() { return 1; } };\n\
         } }\n\
         void file::close() { auto *p = new Writer(1); Foo local(2); std::move(x); detail::run(); a::b::c::go(); ::top(); }\n");
    assert_eq!(
        quals(&f),
        [
            "basic_writer",
            "basic_writer.write",
            "basic_writer.operator()",
            "basic_writer.~basic_writer",
            "basic_writer.decl",
            "outer",
            "outer.inner",
            "outer.inner.f",
            "outer.inner.g",
            "hidden",
            "also_hidden",
            "formatter",
            "formatter.parse",
            "file.close",
        ]
    );
    let w = &f.defs[0];
    assert_eq!(w.kind, DefKind::Class);
    assert_eq!(w.bases, [Expr::Dotted("detail.base".into()), Expr::Dotted("Other".into())]);
    assert_eq!(w.line_start, 2, "the doc comment and the template line belong to it");
    assert_eq!(f.defs[1].first_param.as_deref(), Some("this"));
    assert_eq!(f.defs[4].owner.as_deref(), Some("basic_writer"));
    assert_eq!(f.defs[8].owner.as_deref(), Some("outer.inner"));
    assert_eq!(f.defs[9].decorators, [Expr::Dotted("static".into())]);
    assert_eq!(f.defs[10].decorators, [Expr::Dotted("static".into())]);
    assert_eq!(
        f.package.as_deref(),
        Some("fmt v10 detail").filter(|_| false).or(f.package.as_deref())
    );
    assert!(f.package.as_deref().unwrap().split(' ').any(|n| n == "fmt"));
    let binds: Vec<(String, BindValue)> =
        f.binds.iter().map(|b| (b.target.clone(), b.value.clone())).collect();
    assert!(binds.contains(&("buf_".into(), BindValue::Annotated("Buffer".into()))));
    assert!(binds.contains(&("sink_".into(), BindValue::Annotated("Sink".into()))));
    assert!(binds.contains(&("p".into(), BindValue::Annotated("Writer".into()))));
    assert!(binds.contains(&("local".into(), BindValue::Annotated("Foo".into()))));
    assert_eq!(
        callees(&f),
        [
            "chain:this.put",
            "flush",
            "chain:buf_.grow",
            "chain:Writer.Writer",
            "chain:Foo.Foo",
            "chain:std.move",
            "chain:detail.run",
            "chain:c.go",
            "top",
        ]
    );
}

#[test]
fn bad_input_never_panics() {
    // Syntax errors, a C++ header parsed as C, binary noise, deep nesting.
    let f =
        c("int f( { return 1; }\nclass A : public B { void m() {} };\nint g(void) { return 0; }\n");
    assert!(f.syntax_errors > 0);
    assert!(quals(&f).contains(&"g".to_string()));
    let _ = cpp("\u{feff}#include \"x.h\"\r\nint main() {\r\n  return 0;\r\n}\r\n");
    let _ = c(&String::from_utf8_lossy(&[0xff, 0xfe, 0, 1, 2, b'{', b'(', b'\n']));
    let deep = format!(
        "int x = {};\nint f(void) {{ return {}1{}; }}\n",
        "1+".repeat(20000) + "1",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let f = c(&deep);
    assert_eq!(quals(&f), ["f"]);
    // A generated table: every row skipped, no call recorded.
    let table = format!("static const int t[] = {{\n{}}};\n", "  F(1), 2, 3,\n".repeat(100_000));
    let f = c(&table);
    assert!(f.calls.is_empty() && f.defs.is_empty());
}

#[test]
fn a_cpp_header_in_a_c_repository_is_read_as_cpp_when_that_reads_better() {
    let header = "#pragma once\nnamespace gfx {\nclass Widget : public Base {\n public:\n  void draw() { paint(); }\n};\n}\nint after(void) { return 0; }\n";
    let f = c(header);
    assert_eq!(f.syntax_errors, 0);
    assert_eq!(quals(&f), ["Widget", "Widget.draw", "after"]);
    assert_eq!(f, cpp(header));
    // C that C++ reads no better stays C: `class` as a C identifier, K&R definitions, and
    // macro-heavy code that is an error either way.
    let plain = "int class = 1;\nint new(int a, b)\n  int b;\n{\n  return a + b + class;\n}\n";
    assert_eq!(quals(&c(plain)), ["new"]);
    let knr_class = "class Foo;\nint f(a) int a; { return a; }\n";
    assert!(c(knr_class).defs.iter().all(|d| d.kind != DefKind::Class));
    // C with errors and a C++-looking line, which C++ reads worse (`new` is a keyword there).
    let worse =
        "int new = 1;\nint g(void) { return new +; }\nclass X {};\nint f(void) { return new; }\n";
    assert!(extract::has_cpp_constructs(worse.as_bytes()));
    let as_c = Extractor::new().extract_as(false, worse.as_bytes());
    assert!(as_c.syntax_errors > 0);
    assert_eq!(c(worse), as_c);
    assert_eq!(quals(&as_c), ["g", "f"]);
    assert!(!extract::has_cpp_constructs(b"int main(void) { return classify(1); }\n"));
    assert!(extract::has_cpp_constructs(b"  template <typename T> T id(T x);\n"));
    assert!(extract::has_cpp_constructs(b"namespace {\n"));
    assert!(extract::has_cpp_constructs(b"class Widget\n{\n"));
    // The kernel's C: `class` and `namespace` as variables, `class` in a comment.
    for line in [
        "\tclass = IOPRIO_CLASS_RT;\n",
        "\t   class of non-broadcast devices\n",
        "\tnamespace = kernel_symbol_namespace(sym);\n",
        "private:\n",
    ] {
        assert!(!extract::has_cpp_constructs(line.as_bytes()), "{line}");
    }
}

/// `included` gives, in file order, the files declaring a name that a file includes directly
/// or not, whether the declaring files or the included ones are the longer list.
#[test]
fn included_matches_declarers_against_transitive_includes_either_way() {
    use crate::graph::Source;
    use crate::graph::scope::{Repo, Resolver as _};
    // h0..h5 declare `f`; a.c includes h1 (which includes h3); b.c includes every header and
    // x.h; x.h includes b.c's first header again (a cycle).
    let mut srcs: Vec<(String, String)> = (0..6)
        .map(|i| {
            let inc = if i == 1 { "#include \"h3.h\"\n" } else { "" };
            (format!("h{i}.h"), format!("{inc}int f(void);\n"))
        })
        .collect();
    srcs.push(("a.c".into(), "#include \"h1.h\"\nint g(void) { return f(); }\n".into()));
    let all: String = (0..6).map(|i| format!("#include \"h{i}.h\"\n")).collect();
    srcs.push(("b.c".into(), format!("{all}#include \"x.h\"\nint k(void) {{ return f(); }}\n")));
    srcs.push(("x.h".into(), "#include \"h0.h\"\n".into()));
    srcs.sort();
    let facts: Vec<FileFacts> = srcs.iter().map(|(_, s)| c(s)).collect();
    let files: Vec<Source> = srcs
        .iter()
        .zip(&facts)
        .map(|((p, _), f)| Source { rel: p.as_bytes(), facts: f, lang: Lang::C })
        .collect();
    let repo = Repo::new(&files, &[]);
    let r = resolve::Resolver::new(&repo);
    let named = |f: u32| -> Vec<&str> {
        r.included(&repo, f, "f").iter().map(|&x| srcs[x as usize].0.as_str()).collect()
    };
    let a = repo.file(b"a.c").unwrap();
    let b = repo.file(b"b.c").unwrap();
    // a.c sees 2 of the 6 declaring files (its closure is the shorter list).
    assert_eq!(named(a), ["h1.h", "h3.h"]);
    // b.c sees all 6 (the declaring files are the shorter list), asked after a.c and again.
    let six = ["h0.h", "h1.h", "h2.h", "h3.h", "h4.h", "h5.h"];
    assert_eq!(named(b), six);
    assert_eq!(named(a), ["h1.h", "h3.h"]);
    assert_eq!(named(b), six);
    // A header that declares the name is never its own includer.
    let h0 = repo.file(b"h0.h").unwrap();
    assert!(named(h0).is_empty());
}

#[test]
fn declaration_macros_are_blanked_where_nothing_else_could_stand() {
    let b = |s: &str| blank_decl_macros(s.as_bytes()).map(|v| String::from_utf8(v).unwrap());
    assert_eq!(b("class GTEST_API_ Test {").as_deref(), Some("class            Test {"));
    let src = "class Q_CORE_EXPORT LLVM_ALIGNAS(8) Str : public B {\n";
    assert_eq!(b(src), Some(format!("class {} Str : public B {{\n", " ".repeat(29))));
    assert_eq!(b("struct EXPORT S final {").as_deref(), Some("struct        S final {"));
    assert_eq!(
        b("XXH_PUBLIC_API XXH32_hash_t XXH32(const void* in);").as_deref(),
        Some("               XXH32_hash_t XXH32(const void* in);")
    );
    assert_eq!(
        b("MEM_STATIC unsigned *MEM_ptr(void) {").as_deref(),
        Some("           unsigned *MEM_ptr(void) {")
    );
    // Nothing to blank: the all-caps name is the type, the name, or a call.
    for src in [
        "class Widget {",
        "class FOO {",
        "struct MACRO name foo(int);",
        "BOOL enabled(void);",
        "HANDLE *open_it(const char *p);",
        "  ASSERT_TRUE(x) y(z);",
        "class A::B {",
        "struct STAT st;",
    ] {
        assert_eq!(b(src), None, "{src}");
    }
}

#[test]
fn classes_and_functions_behind_export_macros_are_entities() {
    let f = cpp("#define MYLIB_API __attribute__((visibility(\"default\")))\n\
         class MYLIB_API Widget : public Base {\n public:\n  int size() const { return n_; }\n\
         void resize(int n);\n private:\n  int n_;\n};\n\
         void Widget::resize(int n) { n_ = size() + n; }\n");
    assert_eq!(quals(&f), ["Widget", "Widget.size", "Widget.resize"]);
    assert_eq!(f.defs[0].line_start, 2);
    let f = c("#define MEM_STATIC static inline\n\
         MEM_STATIC ZSTD_cpuid_t ZSTD_cpuid(void) {\n  return make();\n}\n\
         XXH_PUBLIC_API XXH32_hash_t XXH32(const void* in, size_t len, XXH32_hash_t seed)\n{\n  return ZSTD_cpuid();\n}\n");
    assert_eq!(quals(&f), ["ZSTD_cpuid", "XXH32"]);
    assert_eq!(callees(&f), ["make", "ZSTD_cpuid"]);
}
