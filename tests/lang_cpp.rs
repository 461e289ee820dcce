//! C++: entity IDs (namespaces left out, out-of-line methods under their qualifier, template
//! arguments dropped), and include / invoke / inherit resolution (members, `this->`, qualified
//! calls, constructors, bases, typed receivers), on small in-memory repositories, plus the real
//! binaries on `tests/fixtures/cpp/geometry`.

use crate::resolve::{assert_has, assert_lacks, edges, entity_ids, graph_of};
use crate::util::{Dir, borrow, fixture_files};

#[test]
fn geometry_entities_and_edges() {
    let files = fixture_files("cpp/geometry");
    let (g, e) = graph_of(&borrow(&files));
    assert_eq!(
        entity_ids(&g),
        [
            "include/geo/shape.hpp:Shape",
            "include/geo/shape.hpp:Shape.~Shape",
            "include/geo/shape.hpp:Circle",
            "include/geo/shape.hpp:Group",
            "include/geo/shape.hpp:Group.area",
            "include/geo/shape.hpp:Group.add",
            "src/canvas.cc:Canvas.draw",
            "src/canvas.cc:Canvas.reset",
            "src/canvas.cc:main",
            "src/canvas.h:Canvas",
            "src/shape.cpp:log_area",
            "src/shape.cpp:Shape.describe",
            "src/shape.cpp:Circle.Circle",
            "src/shape.cpp:Circle.area",
            "src/shape.cpp:total_area",
            "tests/shape_test.cc:main",
        ]
    );
    // Bases, includes, a header's prototype leading to its definition.
    assert_has(&e, "include/geo/shape.hpp:Circle inherit include/geo/shape.hpp:Shape 0");
    assert_has(&e, "include/geo/shape.hpp:Group inherit include/geo/shape.hpp:Shape 0");
    assert_has(&e, "src/canvas.h import include/geo/shape.hpp 0");
    assert_has(&e, "include/geo/shape.hpp import src/shape.cpp:total_area 0");
    // An out-of-line method sees its class's members, and the anonymous namespace's function.
    assert_has(&e, "src/shape.cpp:Shape.describe invoke src/shape.cpp:log_area 0");
    // `this->reset()` and the implicit `reset()`; a typed field (`unique_ptr<geo::Shape>`).
    assert_has(&e, "src/canvas.cc:Canvas.draw invoke src/canvas.cc:Canvas.reset 0");
    assert_has(&e, "src/canvas.cc:Canvas.draw invoke src/shape.cpp:Shape.describe 0");
    // `new geo::Circle(2.0)` and `geo::Circle unit(1.0)` run the constructor.
    assert_has(&e, "src/canvas.cc:Canvas.draw invoke src/shape.cpp:Circle.Circle 0");
    assert_has(&e, "src/canvas.cc:Canvas.draw invoke src/shape.cpp:Circle.area 0");
    assert_has(&e, "src/canvas.cc:main invoke src/canvas.cc:Canvas.draw 0");
    assert_has(&e, "tests/shape_test.cc:main invoke src/shape.cpp:Circle.area 0");
    // `shape_.reset()` is the smart pointer's, not Canvas's.
    assert_lacks(&e, "src/canvas.cc:Canvas.reset invoke src/canvas.cc:Canvas.reset 0");
    assert!(!e.iter().any(|l| l.starts_with("src/canvas.cc:Canvas.reset invoke")), "{e:#?}");
}

#[test]
fn qualified_calls_namespaces_and_static_members() {
    let e = edges(&[
        (
            "util.hpp",
            "namespace app { namespace detail {\nint parse(const char *s);\n}\nstruct Registry {\n  static Registry &get();\n  void add(int x);\n};\nint run();\n}\n",
        ),
        (
            "util.cpp",
            "#include \"util.hpp\"\nnamespace app {\nnamespace detail { int parse(const char *s) { return s[0]; } }\nRegistry &Registry::get() { static Registry r; return r; }\nvoid Registry::add(int x) { (void)x; }\nint run() { Registry::get().add(detail::parse(\"1\")); return app::detail::parse(\"2\"); }\n}\n",
        ),
        ("main.cpp", "#include \"util.hpp\"\nint main() { std::sort(); return app::run(); }\n"),
    ]);
    assert_has(&e, "util.cpp:run invoke util.cpp:parse 0");
    assert_has(&e, "util.cpp:run invoke util.cpp:Registry.get 0");
    assert_has(&e, "util.cpp:run invoke util.cpp:Registry.add 0");
    assert_has(&e, "main.cpp:main invoke util.cpp:run 0");
    assert!(!e.iter().any(|l| l.contains("sort")), "{e:#?}");
}

#[test]
fn header_is_cpp_beside_cpp_sources_and_methods_inherit() {
    let (g, e) = graph_of(&[
        ("base.h", "class Base {\n public:\n  virtual void hook() {}\n  void helper() {}\n};\n"),
        (
            "derived.h",
            "#include \"base.h\"\nclass Derived : public Base {\n public:\n  void hook() override { helper(); }\n  void go();\n};\n",
        ),
        (
            "derived.cc",
            "#include \"derived.h\"\nvoid Derived::go() { hook(); Base::hook(); this->helper(); }\n",
        ),
    ]);
    let ids = entity_ids(&g);
    assert!(ids.contains(&"base.h:Base.hook".to_string()), "{ids:#?}");
    assert_has(&e, "derived.h:Derived inherit base.h:Base 0");
    assert_has(&e, "derived.h:Derived.hook invoke base.h:Base.helper 0");
    assert_has(&e, "derived.cc:Derived.go invoke derived.h:Derived.hook 0");
    assert_has(&e, "derived.cc:Derived.go invoke base.h:Base.hook 0");
    assert_has(&e, "derived.cc:Derived.go invoke base.h:Base.helper 0");
}

#[test]
fn templates_operators_and_bad_input() {
    let (g, _) = graph_of(&[
        (
            "fmt.h",
            "namespace fmt {\ntemplate <typename Char> struct formatter {\n  template <typename Ctx> auto format(int v, Ctx &c) const { return c.out(); }\n};\ntemplate <> struct formatter<bool> { auto parse() { return 0; } };\nclass printf_arg_formatter {\n public:\n  void operator()(int v) {}\n  operator bool() const { return true; }\n};\ntemplate <typename T> void basic_writer<T>::write(T x) {}\n}\n",
        ),
        ("broken.cpp", "class A { void f( { }\nint ok() { return 1; }\n"),
        ("crlf.cpp", "\u{feff}int a() {\r\n  return 0;\r\n}\r\n"),
    ]);
    let ids = entity_ids(&g);
    for want in [
        "fmt.h:formatter",
        "fmt.h:formatter.format",
        "fmt.h:formatter.parse",
        "fmt.h:printf_arg_formatter.operator()",
        "fmt.h:printf_arg_formatter.operator bool",
        "fmt.h:basic_writer.write",
        "broken.cpp:ok",
        "crlf.cpp:a",
    ] {
        assert!(ids.contains(&want.to_string()), "{want} in {ids:#?}");
    }
}

#[test]
fn build_search_trav_and_get_on_a_cpp_repository() {
    let d = Dir::fixture("cpp-e2e", "cpp/geometry");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("cpp"), "{err}");
    let got = d.cmd("cds-trav").args(["--ids", "-r", "invoke", "src/canvas.cc:Canvas.draw"]).ok();
    for want in ["src/shape.cpp:Circle.Circle", "src/canvas.cc:Canvas.reset"] {
        assert!(got.lines().any(|l| l == want), "{want} in\n{got}");
    }
    let fold = d.cmd("cds-get").args(["--view", "fold", "src/shape.cpp:Circle.area"]).ok();
    assert_eq!(fold, "src/shape.cpp:Circle.area\tfunction\t16-18\tdouble Circle::area() const\n");
    let hits = d.cmd("cds-search").arg("Circle.area").ok();
    assert!(hits.contains("src/shape.cpp:Circle.area"), "{hits}");
    let hop = d.cmd("cds-trav").args(["-h1", "-d", "up"]).stdin(&hits).ok();
    assert!(hop.contains("src/canvas.cc:Canvas.draw"), "{hop}");
    let code = d.cmd("cds-get").stdin(&hop).ok();
    assert!(code.contains("void Canvas::draw() {"), "{code}");
    // The walk makes `src/canvas.h` C++ (the repository has C++ sources): its class is there.
    let fold = d.cmd("cds-get").args(["--view", "fold", "src/canvas.h:Canvas"]).ok();
    assert_eq!(fold, "src/canvas.h:Canvas\tclass\t7-14\tclass Canvas\n");
    // A class's preview keeps its declarations and reads as C++.
    let view = d.cmd("cds-get").arg("include/geo/shape.hpp:Group").ok();
    assert!(view.contains("class Group : public Shape {"), "{view}");
}

#[test]
fn a_header_turns_cpp_when_cpp_sources_arrive() {
    let d = Dir::new("cpp-header-turns");
    d.write("w.h", "class W {\n public:\n  void m() {}\n};\n")
        .write("a.c", "int a(void) { return 0; }\n");
    // A C repository: the header is C, but one only C++ can read, so its class is read as C++.
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("; c 2 files") && err.contains(" 0 with syntax errors"), "{err}");
    let ids = d.cmd("cds-search").args(["--ids", "W.m"]).ok();
    assert!(ids.contains("w.h:W.m"), "{ids}");
    // A C++ source arrives: the unchanged header is parsed again, as C++.
    d.write("b.cpp", "#include \"w.h\"\nvoid b() { W w; w.m(); }\n");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("cpp 2 files"), "{err}");
    let fold = d.cmd("cds-get").args(["--view", "fold", "w.h:W.m"]).ok();
    assert_eq!(fold, "w.h:W.m\tfunction\t3-3\tvoid m()\n");
    let up = d.cmd("cds-trav").args(["--ids", "-d", "up", "-r", "invoke", "w.h:W.m"]).ok();
    assert!(up.contains("b.cpp:b"), "{up}");
}

/// A constructor's signature ends before its member initializers; the calls in them and in
/// its body are its own, and the out-of-class definition joins the in-class one.
#[test]
fn constructor_signatures_leave_out_member_initializers() {
    let d = Dir::new("cpp-ctor-inits");
    d.write(
        "a.cpp",
        "class Foo {\npublic:\n    Foo(int x, int y)\n        : a_(make(x)),\n          b_(y) {\n        \
         init();\n    }\n    Foo();\n    void init() {}\nprivate:\n    int a_, b_;\n};\n\n\
         int make(int v) { return v; }\n\nFoo::Foo() : a_(0), b_(0) { init(); }\n",
    );
    d.cmd("cds-build").stderr_of(0);
    let fold = d.cmd("cds-get").args(["--view", "fold", "a.cpp:Foo.Foo"]).ok();
    assert_eq!(fold, "a.cpp:Foo.Foo\tfunction\t3-7\tFoo(int x, int y)\n");
    let calls = d.cmd("cds-trav").args(["--ids", "-h1", "-r", "invoke", "a.cpp:Foo.Foo"]).ok();
    assert!(calls.contains("a.cpp:Foo.init") && calls.contains("a.cpp:make"), "{calls}");
    let line = d.cmd("cds-get").arg("a.cpp:16").ok();
    assert!(line.starts_with("a.cpp:16\trange\tin a.cpp:Foo.Foo\n"), "{line}");
}
