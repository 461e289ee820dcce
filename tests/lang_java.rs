//! Java: entity IDs, spans, and the import / invoke / inherit edges the scope driver finds with
//! Java's resolver, on small in-memory repositories; then the real binaries on a fixture repo.

use crate::resolve::{assert_has, assert_lacks, entity_ids, graph_of, meta};

const MAIN: &str = "src/main/java/com/acme";

/// A small layered project: model, service, util, and a test in the service's package.
fn shop() -> Vec<(String, String)> {
    let files: Vec<(&str, &str)> = vec![
        (
            "model/Base.java",
            "package com.acme.model;\n\
             \n\
             public abstract class Base {\n\
             \x20   protected void init() {}\n\
             \x20   public abstract String name();\n\
             }\n",
        ),
        (
            "model/Named.java",
            "package com.acme.model;\n\
             \n\
             public interface Named {\n\
             \x20   String label();\n\
             \x20   default String shout() { return label(); }\n\
             }\n",
        ),
        (
            "model/User.java",
            "package com.acme.model;\n\
             \n\
             import java.util.List;\n\
             \n\
             /** A user. */\n\
             public class User extends Base implements Named {\n\
             \x20   private final String id;\n\
             \x20   private Address address;\n\
             \n\
             \x20   public User(String id) {\n\
             \x20       super();\n\
             \x20       this.id = id;\n\
             \x20       init();\n\
             \x20   }\n\
             \n\
             \x20   public User() { this(\"anon\"); }\n\
             \n\
             \x20   public static User create(String id) { return new User(id); }\n\
             \n\
             \x20   public Address getAddress() { return address; }\n\
             \n\
             \x20   public String name() { return id; }\n\
             \x20   public String label() { return name(); }\n\
             \n\
             \x20   public void rename(String n) {}\n\
             \x20   public void rename(String n, boolean force) { rename(n); }\n\
             \n\
             \x20   public static class Address {\n\
             \x20       public String city() { return \"x\"; }\n\
             \x20   }\n\
             }\n",
        ),
        (
            "service/Repo.java",
            "package com.acme.service;\n\
             \n\
             import com.acme.model.User;\n\
             \n\
             public class Repo {\n\
             \x20   public void save(User u) {}\n\
             \x20   public User find(String id) { return User.create(id); }\n\
             }\n",
        ),
        (
            "service/UserService.java",
            "package com.acme.service;\n\
             \n\
             import com.acme.model.*;\n\
             import com.acme.model.User.Address;\n\
             import static com.acme.util.Strings.trim;\n\
             import com.acme.util.Strings;\n\
             \n\
             public class UserService {\n\
             \x20   private final Repo repo = new Repo();\n\
             \n\
             \x20   public User register(String raw) {\n\
             \x20       User u = new User(trim(raw));\n\
             \x20       repo.save(u);\n\
             \x20       this.audit(u);\n\
             \x20       u.getAddress().city();\n\
             \x20       Strings.pad(raw);\n\
             \x20       Runnable r = () -> audit(u);\n\
             \x20       return u;\n\
             \x20   }\n\
             \n\
             \x20   private void audit(Named n) { n.shout(); }\n\
             \n\
             \x20   public String lookup(String id) {\n\
             \x20       var found = repo.find(id);\n\
             \x20       return found.label();\n\
             \x20   }\n\
             }\n",
        ),
        (
            "util/Strings.java",
            "package com.acme.util;\n\
             \n\
             public final class Strings {\n\
             \x20   private Strings() {}\n\
             \x20   public static String trim(String s) { return s.trim(); }\n\
             \x20   public static String pad(String s) { return s; }\n\
             }\n",
        ),
    ];
    let mut out: Vec<(String, String)> =
        files.into_iter().map(|(p, t)| (format!("{MAIN}/{p}"), t.to_string())).collect();
    out.push((
        "src/test/java/com/acme/service/UserServiceTest.java".into(),
        "package com.acme.service;\n\
         \n\
         class UserServiceTest {\n\
         \x20   void registers() {\n\
         \x20       UserService s = new UserService();\n\
         \x20       s.register(\"x\");\n\
         \x20       new Repo().save(null);\n\
         \x20   }\n\
         }\n"
        .into(),
    ));
    out
}

fn build(files: &[(String, String)]) -> (cds::graph::Graph, Vec<String>) {
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    graph_of(&refs)
}

fn ids(files: &[(String, String)]) -> Vec<String> {
    entity_ids(&build(files).0)
}

fn m(path: &str) -> String {
    format!("{MAIN}/{path}")
}

#[test]
fn entity_ids_nested_overloads_and_constructors() {
    let got = ids(&shop());
    let want: Vec<String> = [
        "model/Base.java:Base",
        "model/Base.java:Base.init",
        "model/Base.java:Base.name",
        "model/Named.java:Named",
        "model/Named.java:Named.label",
        "model/Named.java:Named.shout",
        "model/User.java:User",
        "model/User.java:User.User",
        "model/User.java:User.create",
        "model/User.java:User.getAddress",
        "model/User.java:User.name",
        "model/User.java:User.label",
        "model/User.java:User.rename",
        "model/User.java:User.Address",
        "model/User.java:User.Address.city",
        "service/Repo.java:Repo",
        "service/Repo.java:Repo.save",
        "service/Repo.java:Repo.find",
        "service/UserService.java:UserService",
        "service/UserService.java:UserService.register",
        "service/UserService.java:UserService.audit",
        "service/UserService.java:UserService.lookup",
        "util/Strings.java:Strings",
        "util/Strings.java:Strings.Strings",
        "util/Strings.java:Strings.trim",
        "util/Strings.java:Strings.pad",
    ]
    .iter()
    .map(|s| m(s))
    .chain([
        "src/test/java/com/acme/service/UserServiceTest.java:UserServiceTest".to_string(),
        "src/test/java/com/acme/service/UserServiceTest.java:UserServiceTest.registers".to_string(),
    ])
    .collect();
    assert_eq!(got, want);
}

#[test]
fn every_class_like_and_no_anonymous_entities() {
    let src = "package p;\n\
        public enum Op implements Fn {\n\
        \x20   PLUS { int apply(int a) { return a; } },\n\
        \x20   MINUS;\n\
        \x20   Op() {}\n\
        \x20   int apply(int a) { return helper(a); }\n\
        \x20   static int helper(int a) { return a; }\n\
        \x20   record Pair(int a, int b) { Pair { check(); } static void check() {} }\n\
        \x20   @interface Tag { String value() default \"\"; }\n\
        \x20   interface Fn { int apply(int a); }\n\
        \x20   abstract static class Shape implements Fn { abstract double area(); }\n\
        \x20   void run() {\n\
        \x20       new Thread(new Runnable() { public void run() { tick(); } }).start();\n\
        \x20       class Local { void inner() { tick(); } }\n\
        \x20       Runnable r = () -> tick();\n\
        \x20   }\n\
        \x20   void tick() {}\n\
        }\n";
    let (g, e) = graph_of(&[("src/p/Op.java", src)]);
    let want = [
        "Op",
        "Op.Op",
        "Op.apply",
        "Op.helper",
        "Op.Pair",
        "Op.Pair.Pair",
        "Op.Pair.check",
        "Op.Tag",
        "Op.Tag.value",
        "Op.Fn",
        "Op.Fn.apply",
        "Op.Shape",
        "Op.Shape.area",
        "Op.run",
        "Op.run.Local",
        "Op.run.Local.inner",
        "Op.tick",
    ];
    let want: Vec<String> = want.iter().map(|q| format!("src/p/Op.java:{q}")).collect();
    assert_eq!(entity_ids(&g), want);
    // Anonymous class bodies and lambdas: their calls belong to the enclosing method.
    assert_has(&e, "src/p/Op.java:Op.run invoke src/p/Op.java:Op.tick 0");
    assert_has(&e, "src/p/Op.java:Op.run.Local.inner invoke src/p/Op.java:Op.tick 0");
    assert_has(&e, "src/p/Op.java:Op.apply invoke src/p/Op.java:Op.helper 0");
    assert_has(&e, "src/p/Op.java:Op.Pair.Pair invoke src/p/Op.java:Op.Pair.check 0");
    assert_has(&e, "src/p/Op.java:Op.Shape inherit src/p/Op.java:Op.Fn 0");
}

#[test]
fn doc_and_fold_spans() {
    let (g, _) = build(&shop());
    let user =
        g.nodes.iter().find(|n| n.id == m("model/User.java:User").as_bytes()).expect("User node");
    let file = &shop()[2];
    assert!(file.0.ends_with("model/User.java"));
    let mut ex = cds::lang::Extractors::default();
    let facts = ex.extract(cds::lang::Lang::Java, file.1.as_bytes());
    let d = &facts.defs[user.def as usize];
    let text = &file.1;
    assert_eq!((d.line_start, d.line_head, d.line_end), (5, 6, 31));
    let (ds, de) = d.doc.expect("javadoc");
    assert_eq!(&text[ds as usize..de as usize], "/** A user. */");
    assert_eq!(
        &text[d.byte_head as usize..d.byte_sig_end as usize],
        "public class User extends Base implements Named"
    );
    let ctor = &facts.defs[1];
    assert_eq!(
        &text[ctor.byte_head as usize..ctor.byte_sig_end as usize],
        "public User(String id)"
    );
    assert_eq!((ctor.line_start, ctor.line_end), (10, 14));
}

#[test]
fn imports_single_type_on_demand_static_and_external() {
    let (_, e) = build(&shop());
    let svc = m("service/UserService.java");
    assert_has(&e, &format!("{} import {} 0", m("service/Repo.java"), m("model/User.java:User")));
    // `import com.acme.model.*;`: the package directory.
    assert_has(&e, &format!("{svc} import {MAIN}/model 0"));
    // `import static ...Strings.trim;`: the member itself.
    assert_has(&e, &format!("{svc} import {} 0", m("util/Strings.java:Strings.trim")));
    assert_has(&e, &format!("{svc} import {} 0", m("util/Strings.java:Strings")));
    // `import java.util.List;` is outside the repository: no edge.
    assert!(!e.iter().any(|l| l.starts_with(&format!("{} import", m("model/User.java")))));
}

#[test]
fn invokes_through_imports_fields_locals_and_return_types() {
    let (_, e) = build(&shop());
    let reg = format!("{} invoke", m("service/UserService.java:UserService.register"));
    // `new User(...)` through the on-demand import; `trim` through the static import.
    assert_has(&e, &format!("{reg} {} 0", m("model/User.java:User")));
    assert_has(&e, &format!("{reg} {} 0", m("util/Strings.java:Strings.trim")));
    // `repo.save(u)`: a field typed by its initializer, a class of the same package.
    assert_has(&e, &format!("{reg} {} 0", m("service/Repo.java:Repo.save")));
    // `this.audit(u)` and `audit(u)` inside a lambda.
    assert_has(&e, &format!("{reg} {} 0", m("service/UserService.java:UserService.audit")));
    // `u.getAddress().city()`: the declared return type, a nested class.
    assert_has(&e, &format!("{reg} {} 0", m("model/User.java:User.getAddress")));
    assert_has(&e, &format!("{reg} {} 0", m("model/User.java:User.Address.city")));
    // `Strings.pad(raw)`: a static method through a single-type import.
    assert_has(&e, &format!("{reg} {} 0", m("util/Strings.java:Strings.pad")));
    // A parameter typed by an interface; its default method.
    assert_has(
        &e,
        &format!(
            "{} invoke {} 0",
            m("service/UserService.java:UserService.audit"),
            m("model/Named.java:Named.shout")
        ),
    );
    // `var found = repo.find(id); found.label()`: the return type of `Repo.find`.
    let lookup = m("service/UserService.java:UserService.lookup");
    assert_has(&e, &format!("{lookup} invoke {} 0", m("service/Repo.java:Repo.find")));
    assert_has(&e, &format!("{lookup} invoke {} 0", m("model/User.java:User.label")));
    // Field initializers are the class's code.
    assert_has(
        &e,
        &format!(
            "{} invoke {} 0",
            m("service/UserService.java:UserService"),
            m("service/Repo.java:Repo")
        ),
    );
    // `Repo.find` calls `User.create` (a static method through an import).
    assert_has(
        &e,
        &format!(
            "{} invoke {} 0",
            m("service/Repo.java:Repo.find"),
            m("model/User.java:User.create")
        ),
    );
}

#[test]
fn implicit_members_inherited_methods_and_constructors() {
    let (_, e) = build(&shop());
    let user = |q: &str| m(&format!("model/User.java:{q}"));
    // `init()` unqualified: inherited from `Base`.
    assert_has(&e, &format!("{} invoke {} 0", user("User.User"), m("model/Base.java:Base.init")));
    // `name()` unqualified: the class's own method, not the base's abstract one.
    assert_has(&e, &format!("{} invoke {} 0", user("User.label"), user("User.name")));
    assert_lacks(&e, &format!("{} invoke {}", user("User.label"), m("model/Base.java:Base.name")));
    // `new User(id)` in a static factory; `this(...)` (overloads are one node).
    assert_has(&e, &format!("{} invoke {} 0", user("User.create"), user("User")));
    assert_has(&e, &format!("{} invoke {} 0", user("User.User"), user("User.User")));
    // `label()` in an interface's default method.
    assert_has(
        &e,
        &format!(
            "{} invoke {} 0",
            m("model/Named.java:Named.shout"),
            m("model/Named.java:Named.label")
        ),
    );
}

#[test]
fn inherit_edges_superclass_and_interfaces() {
    let (_, e) = build(&shop());
    // Two bases are two exact edges, not two alternatives.
    let user = m("model/User.java:User");
    assert_has(&e, &format!("{user} inherit {} 0", m("model/Base.java:Base")));
    assert_has(&e, &format!("{user} inherit {} 0", m("model/Named.java:Named")));
    let e = graph_of(&[
        ("a/x/Animal.java", "package x;\npublic class Animal { void speak() {} }\n"),
        (
            "b/y/Dog.java",
            "package y;\nimport x.Animal;\nclass Dog extends Animal {\n  void speak() { super.speak(); }\n  Dog() { super(); }\n}\n",
        ),
        (
            "b/y/Cat.java",
            "package y;\nclass Cat extends x.Animal implements Comparable<Cat> {}\n",
        ),
        ("b/y/Other.java", "package y;\nclass Other extends Base {}\n"),
        ("c/z/Base.java", "package z;\npublic class Base {}\n"),
    ])
    .1;
    assert_has(&e, "b/y/Dog.java:Dog inherit a/x/Animal.java:Animal 0");
    assert_has(&e, "b/y/Dog.java:Dog.speak invoke a/x/Animal.java:Animal.speak 0");
    // Not imported, another package: never linked by name alone.
    assert_lacks(&e, "b/y/Other.java:Other inherit c/z/Base.java:Base");
    // A fully qualified base needs a package value (see the report): no wrong edge either.
    assert_lacks(&e, "b/y/Cat.java:Cat inherit b/y/Dog.java:Dog");
}

#[test]
fn packages_span_source_roots_and_stay_apart() {
    let (_, e) = build(&shop());
    let t = "src/test/java/com/acme/service/UserServiceTest.java:UserServiceTest.registers";
    // The test sees its package's main classes without an import.
    assert_has(&e, &format!("{t} invoke {} 0", m("service/UserService.java:UserService")));
    assert_has(&e, &format!("{t} invoke {} 0", m("service/UserService.java:UserService.register")));
    assert_has(&e, &format!("{t} invoke {} 0", m("service/Repo.java:Repo.save")));
    // Same simple name in two packages: each file sees its own.
    let e = graph_of(&[
        ("src/a/Util.java", "package a;\npublic class Util { static void go() {} }\n"),
        ("src/b/Util.java", "package b;\npublic class Util { static void go() {} }\n"),
        ("src/a/Main.java", "package a;\nclass Main { void m() { Util.go(); } }\n"),
        (
            "src/c/Main.java",
            "package c;\nimport b.Util;\nclass Main { void m() { Util.go(); new Util(); } }\n",
        ),
    ])
    .1;
    assert_has(&e, "src/a/Main.java:Main.m invoke src/a/Util.java:Util.go 0");
    assert_lacks(&e, "src/a/Main.java:Main.m invoke src/b/Util.java:Util.go");
    assert_has(&e, "src/c/Main.java:Main.m invoke src/b/Util.java:Util.go 0");
    assert_has(&e, "src/c/Main.java:Main.m invoke src/b/Util.java:Util 0");
    assert_lacks(&e, "src/c/Main.java:Main.m invoke src/a/Util.java:Util.go");
    assert_has(&e, "src/c/Main.java import src/b/Util.java:Util 0");
}

#[test]
fn static_on_demand_imports_and_the_default_package() {
    let e = graph_of(&[
        (
            "src/m/MathX.java",
            "package m;\npublic class MathX { public static int sq(int x) { return x; } }\n",
        ),
        (
            "src/app/App.java",
            "package app;\nimport static m.MathX.*;\nclass App { int f() { return sq(2); } }\n",
        ),
        ("Tool.java", "class Tool { static void run() { Helper.go(); } }\n"),
        ("Helper.java", "class Helper { static void go() {} }\n"),
    ])
    .1;
    assert_has(&e, "src/app/App.java:App.f invoke src/m/MathX.java:MathX.sq 0");
    assert_has(&e, "Tool.java:Tool.run invoke Helper.java:Helper.go 0");
}

#[test]
fn unknown_receivers_are_guessed_only_nearby() {
    let e = graph_of(&[
        ("src/p/Jobs.java", "package p;\npublic class Jobs { void process() {} }\n"),
        ("src/q/Tasks.java", "package q;\npublic class Tasks { void process() {} }\n"),
        ("src/r/Lonely.java", "package r;\npublic class Lonely { void polish() {} }\n"),
        (
            "src/x/Runner.java",
            "package x;\nclass Runner {\n  void go(Things things) {\n    things.each(thing -> { thing.process(); thing.polish(); thing.toString(); });\n  }\n}\n",
        ),
        (
            "src/p/Caller.java",
            "package p;\nclass Caller { void go() { find().process(); } }\n",
        ),
        (
            "src/q/Two.java",
            "package q;\nimport p.Jobs;\nclass Two { void go(Stream s) { s.map(o -> o.process()); } }\n",
        ),
    ])
    .1;
    // `process` exists in two unrelated, unimported classes: linked to neither.
    assert_lacks(&e, "src/x/Runner.java:Runner.go invoke src/p/Jobs.java:Jobs.process");
    assert_lacks(&e, "src/x/Runner.java:Runner.go invoke src/q/Tasks.java:Tasks.process");
    // The only `polish` in the repository: a guess, marked as one.
    assert_eq!(meta(&e, "src/x/Runner.java:Runner.go invoke src/r/Lonely.java:Lonely.polish"), 1);
    // In the caller's package: a guess.
    assert_eq!(meta(&e, "src/p/Caller.java:Caller.go invoke src/p/Jobs.java:Jobs.process"), 1);
    // Visible twice (own package and an import): two candidates, each says so.
    assert_eq!(meta(&e, "src/q/Two.java:Two.go invoke src/q/Tasks.java:Tasks.process"), 2);
    assert_eq!(meta(&e, "src/q/Two.java:Two.go invoke src/p/Jobs.java:Jobs.process"), 2);
}

#[test]
fn typed_receivers_never_fall_back_to_names() {
    let e = graph_of(&[
        ("src/p/A.java", "package p;\npublic class A { public void run() {} }\n"),
        ("src/p/B.java", "package p;\npublic class B { public void run() {} public void stop() {} }\n"),
        (
            "src/p/Use.java",
            "package p;\nclass Use {\n  A a;\n  void go(B b) {\n    a.run();\n    b.run();\n    a.stop();\n    this.a.run();\n  }\n}\n",
        ),
    ])
    .1;
    let go = "src/p/Use.java:Use.go invoke";
    assert_eq!(meta(&e, &format!("{go} src/p/A.java:A.run")), 0);
    assert_eq!(meta(&e, &format!("{go} src/p/B.java:B.run")), 0);
    // `A` has no `stop`: the receiver's type is known, so no guess at `B.stop`.
    assert_lacks(&e, &format!("{go} src/p/B.java:B.stop"));
}

#[test]
fn broken_files_keep_their_recovered_definitions() {
    let bom_crlf = "\u{feff}package p;\r\n\r\npublic class Ok {\r\n  void a() { b(); }\r\n  void b() {}\r\n}\r\n";
    let broken = "package p;\nclass Broken {\n  void good() { Ok.x(); }\n  void bad( {\n}\n";
    let (g, e) = graph_of(&[("src/p/Ok.java", bom_crlf), ("src/p/Broken.java", broken)]);
    let ids = entity_ids(&g);
    assert!(ids.contains(&"src/p/Ok.java:Ok.a".to_string()), "{ids:?}");
    assert!(ids.contains(&"src/p/Broken.java:Broken.good".to_string()), "{ids:?}");
    assert_has(&e, "src/p/Ok.java:Ok.a invoke src/p/Ok.java:Ok.b 0");
    let broken_node = g.nodes.iter().find(|n| n.id == b"src/p/Broken.java").unwrap();
    assert_ne!(broken_node.flags & cds::graph::FLAG_SYNTAX_ERROR, 0);
    // Bytes that are not UTF-8 and a huge one-line file.
    let mut bad = b"package p; class Bin { String s = \"".to_vec();
    bad.extend_from_slice(&[0xc3, 0x28, 0xff]);
    bad.extend_from_slice(b"\"; void m() {} }");
    let facts = cds::lang::Extractors::default().extract(cds::lang::Lang::Java, &bad);
    assert_eq!(facts.defs.len(), 2);
    let huge = format!("package p; class Huge {{ {} }}", "int f() { return g(); } ".repeat(50_000));
    let (g, _) = graph_of(&[("src/p/Huge.java", &huge)]);
    assert_eq!(entity_ids(&g).len(), 2);
}

#[test]
fn a_class_name_inside_its_own_body_is_the_class() {
    // Constructors are named like their class; inside the class, `Builder` still means the
    // class (a type, a static call, `new`), not the constructor.
    let e = graph_of(&[(
        "src/p/Builder.java",
        "package p;\n\
         public class Builder {\n\
         \x20   Builder() {}\n\
         \x20   static Builder start() { return new Builder(); }\n\
         \x20   Builder add() { return this; }\n\
         \x20   Builder copy(Builder other) { other.add(); return Builder.start().add(); }\n\
         }\n",
    )])
    .1;
    let b = "src/p/Builder.java:Builder";
    assert_has(&e, &format!("{b}.start invoke {b} 0"));
    assert_has(&e, &format!("{b}.copy invoke {b}.add 0"));
    assert_has(&e, &format!("{b}.copy invoke {b}.start 0"));
    assert_lacks(&e, &format!("{b}.start invoke {b}.Builder"));
}

/// The real binaries on `tests/fixtures/java/library` (a small Maven-layout project).
#[test]
fn binaries_on_a_java_fixture() {
    let d = crate::util::Dir::fixture("java-library", "java/library");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.starts_with("cds-build: 5 files (5 parsed), 19 entities"), "{err}");
    assert!(err.contains("java 5 files 19 entities"), "{err}");
    let core = "src/main/java/org/shelf/core";
    eqnice!(
        format!(
            "{core}/Book.java:Book\tclass\t3-39\tpublic class Book implements Item\n\
             {core}/Book.java:Book.Author.fullName\tfunction\t35-37\tpublic String fullName()\n"
        ),
        d.cmd("cds-get")
            .args([
                "--view",
                "fold",
                &format!("{core}/Book.java:Book"),
                &format!("{core}/Book.java:Book.Author.fullName"),
            ])
            .ok()
    );
    let main = "src/main/java/org/shelf/app/Main.java:Main.main";
    let down = d.cmd("cds-trav").args(["-r", "invoke", main]).ok();
    for callee in [
        "Shelf.java:Shelf\t",
        "Shelf.java:Shelf.put\t",
        "Book.java:Book\t",
        "Book.java:Book.Author\t",
        "Book.java:Book.byline\t",
        "Book.java:Book.getAuthor\t",
        "Book.java:Book.Author.fullName\t",
    ] {
        assert!(down.contains(&format!("\n{core}/{callee}")), "{callee} in:\n{down}");
    }
    // Inherited default method, called unqualified; callers across source roots.
    let byline = d.cmd("cds-trav").arg(format!("{core}/Book.java:Book.byline")).ok();
    assert!(byline.contains(&format!("{core}/Item.java:Item.describe\t")), "{byline}");
    let up = d
        .cmd("cds-trav")
        .args(["--tests", "-d", "up", "-r", "invoke", &format!("{core}/Shelf.java:Shelf.put")])
        .ok();
    assert!(
        up.contains("src/test/java/org/shelf/core/ShelfTest.java:ShelfTest.holdsBooks\t"),
        "{up}"
    );
    assert!(up.contains(&format!("{main}\t")), "{up}");
    let subs = d
        .cmd("cds-trav")
        .args(["-d", "up", "-r", "inherit", &format!("{core}/Item.java:Item")])
        .ok();
    assert!(
        subs.contains(&format!(
            "{core}/Book.java:Book\tclass\t3-39\tpublic class Book implements Item\thop=1 inherits="
        )),
        "{subs}"
    );
}

#[test]
fn method_references_and_pattern_variables() {
    let e = graph_of(&[
        ("src/p/Job.java", "package p;\npublic class Job { public void run() {} static Job of(String s) { return null; } }\n"),
        (
            "src/p/Pool.java",
            "package p;\n\
             import java.util.List;\n\
             class Pool {\n\
             \x20   void start(List<String> names, Object o) {\n\
             \x20       names.stream().map(Job::of).forEach(this::submit);\n\
             \x20       names.forEach(Job::new);\n\
             \x20       if (o instanceof Job j) { j.run(); }\n\
             \x20   }\n\
             \x20   void submit(Job j) {}\n\
             }\n",
        ),
    ])
    .1;
    let s = "src/p/Pool.java:Pool.start invoke";
    assert_has(&e, &format!("{s} src/p/Job.java:Job.of 0"));
    assert_has(&e, &format!("{s} src/p/Pool.java:Pool.submit 0"));
    assert_has(&e, &format!("{s} src/p/Job.java:Job 0"));
    assert_has(&e, &format!("{s} src/p/Job.java:Job.run 0"));
}

#[test]
fn nested_classes_through_imports_and_members() {
    let e = graph_of(&[
        (
            "src/a/Outer.java",
            "package a;\npublic class Outer {\n  public static class Inner { public void go() {} }\n  public enum Mode { ON; public void flip() {} }\n}\n",
        ),
        (
            "src/b/One.java",
            "package b;\nimport a.Outer.Inner;\nclass One { void m() { new Inner().go(); } }\n",
        ),
        (
            "src/b/Two.java",
            "package b;\nimport a.Outer.*;\nclass Two { void m(Mode x) { x.flip(); new Inner(); } }\n",
        ),
        (
            "src/b/Three.java",
            "package b;\nimport a.Outer;\nclass Three { void m() { new Outer.Inner().go(); } }\n",
        ),
        ("src/b/Ext.java", "package b;\nimport java.util.Map.Entry;\nclass Ext { void m(Entry e) { e.getKey(); } }\n"),
    ])
    .1;
    let inner = "src/a/Outer.java:Outer.Inner";
    assert_has(&e, &format!("src/b/One.java import {inner} 0"));
    assert_has(&e, &format!("src/b/One.java:One.m invoke {inner} 0"));
    assert_has(&e, &format!("src/b/One.java:One.m invoke {inner}.go 0"));
    assert_has(&e, "src/b/Two.java:Two.m invoke src/a/Outer.java:Outer.Mode.flip 0");
    assert_has(&e, &format!("src/b/Two.java:Two.m invoke {inner} 0"));
    assert_has(&e, &format!("src/b/Three.java:Three.m invoke {inner}.go 0"));
    assert!(!e.iter().any(|l| l.starts_with("src/b/Ext.java")), "{e:?}");
}

#[test]
fn self_referential_assignments_do_not_blow_up() {
    // `x = x.next` and `b = b.add(i)` many times: were they bindings, resolving `x` would go
    // through itself once per assignment at every level (exponential). Declared types suffice.
    let mut body = String::new();
    for i in 0..40 {
        body.push_str(&format!("    x = x.next{};\n    b = b.add({i});\n", i % 3));
    }
    let src = format!(
        "package p;\nclass Node {{\n  Node next0; Node next1; Node next2;\n  Node add(int i) {{ return this; }}\n  void walk(Node x, Node b) {{\n{body}    x.walk(x, b);\n  }}\n}}\n"
    );
    let (_, e) = graph_of(&[("src/p/Node.java", &src)]);
    assert_has(&e, "src/p/Node.java:Node.walk invoke src/p/Node.java:Node.add 0");
    assert_has(&e, "src/p/Node.java:Node.walk invoke src/p/Node.java:Node.walk 0");
}

#[test]
fn main_code_never_sees_test_directories() {
    let e = graph_of(&[
        (
            "core/src/main/java/a/Api.java",
            "package a;\npublic class Api { public void call() {} }\n",
        ),
        (
            "core/src/test/java/a/Fixture.java",
            "package a;\nclass Fixture { static void setUp() {} }\n",
        ),
        (
            "core/src/test/java/a/ApiTest.java",
            "package a;\nclass ApiTest { void t() { new Api().call(); Fixture.setUp(); } }\n",
        ),
        (
            "core/src/main/java/a/Uses.java",
            "package a;\nclass Uses { void m() { Fixture.setUp(); } }\n",
        ),
        // A copy of package `a` among another module's test resources.
        (
            "other/src/test/resources/copy/a/Api.java",
            "package a;\npublic class Api { public void call() {} }\n",
        ),
        (
            "app/src/main/java/b/App.java",
            "package b;\nimport a.*;\nclass App { void m() { new Api().call(); } }\n",
        ),
    ])
    .1;
    assert_has(
        &e,
        "core/src/test/java/a/ApiTest.java:ApiTest.t invoke core/src/main/java/a/Api.java:Api.call 0",
    );
    assert_has(
        &e,
        "core/src/test/java/a/ApiTest.java:ApiTest.t invoke core/src/test/java/a/Fixture.java:Fixture.setUp 0",
    );
    assert_lacks(
        &e,
        "core/src/main/java/a/Uses.java:Uses.m invoke core/src/test/java/a/Fixture.java:Fixture.setUp",
    );
    assert_has(
        &e,
        "app/src/main/java/b/App.java:App.m invoke core/src/main/java/a/Api.java:Api.call 0",
    );
    assert_lacks(
        &e,
        "app/src/main/java/b/App.java:App.m invoke other/src/test/resources/copy/a/Api.java:Api.call",
    );
    assert_has(&e, "app/src/main/java/b/App.java import core/src/main/java/a 0");
}

#[test]
fn bounded_type_parameters_stand_for_their_bound() {
    let e = graph_of(&[
        ("src/p/Node.java", "package p;\npublic class Node { public void visit() {} }\n"),
        (
            "src/p/Walker.java",
            "package p;\nclass Walker<N extends Node> {\n  N root;\n  <T extends Node & Cloneable> void one(T t) { t.visit(); }\n  void all() { root.visit(); }\n}\n",
        ),
    ])
    .1;
    assert_has(&e, "src/p/Walker.java:Walker.one invoke src/p/Node.java:Node.visit 0");
    assert_has(&e, "src/p/Walker.java:Walker.all invoke src/p/Node.java:Node.visit 0");
}

/// `Object`'s methods (`equals`, `toString`, ...) on a receiver of unknown type say nothing of
/// its class: they are never guessed, even with a visible candidate.
#[test]
fn object_methods_are_not_guessed() {
    let e = crate::resolve::edges(&[
        (
            "src/a/Money.java",
            "package a;\npublic class Money {\n  public boolean equals(Object o) { return false; }\n  public int total() { return 1; }\n}\n",
        ),
        (
            "src/a/Use.java",
            "package a;\nclass Use {\n  static void run(java.util.List<Object> xs) {\n    Object x = xs.get(0);\n    var y = pick();\n    y.equals(x);\n    y.total();\n  }\n  static native Object pick();\n}\n",
        ),
    ]);
    assert!(!e.iter().any(|l| l.contains("Money.equals")), "{e:#?}");
    // The same receiver's other method is guessed, so the rule above is what keeps `equals` out.
    assert!(
        e.iter().any(|l| l == "src/a/Use.java:Use.run invoke src/a/Money.java:Money.total 1"),
        "{e:#?}"
    );
}
