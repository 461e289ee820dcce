use super::*;

fn facts(src: &str) -> FileFacts {
    Extractor::new().extract(src.as_bytes())
}

fn quals(f: &FileFacts) -> Vec<String> {
    (0..f.defs.len() as u32).map(|i| f.qual_name(i)).collect()
}

fn callees(f: &FileFacts) -> Vec<&Callee> {
    f.calls.iter().map(|c| &c.callee).collect()
}

fn chain(s: &str) -> Callee {
    Callee::Chain(s.to_string())
}

#[test]
fn query_compiles_with_known_captures() {
    patterns(false);
    patterns(true);
    let q = tree_sitter::Query::new(&language(), FACTS_QUERY).expect("compiles");
    let known = [
        "def.name",
        "def.body",
        "call.function",
        "call.object",
        "call.name",
        "call.scope",
        "bind.name",
        "bind.type",
        "bind.left",
        "bind.right",
    ];
    for n in q.capture_names() {
        assert!(MAIN.contains(n) || known.contains(n), "unknown capture @{n}");
    }
}

#[test]
fn definitions_nest_and_namespaces_are_not_names() {
    let f = facts(
        "<?php\n\
         namespace A\\B;\n\
         interface I { public function i(): void; }\n\
         trait T { abstract protected function t(); public static function s() {} }\n\
         enum E: string implements I { case X = 'x'; public function i(): void {} }\n\
         abstract class C extends P implements I {\n\
           use T;\n\
           public function i(): void { $f = function () { function inner() {} }; $g = fn() => 1; }\n\
           public function m() { $o = new class { public function hidden() {} }; }\n\
         }\n\
         function outer() { function nested() {} }\n\
         if (!function_exists('cond')) { function cond() {} }\n",
    );
    assert_eq!(f.package.as_deref(), Some("A\\B"));
    assert_eq!(
        quals(&f),
        [
            "I",
            "I.i",
            "T",
            "T.t",
            "T.s",
            "E",
            "E.i",
            "C",
            "C.i",
            "C.i.inner",
            "C.m",
            "outer",
            "outer.nested",
            "cond"
        ]
    );
    let c = &f.defs[7];
    assert_eq!(
        c.bases,
        [
            Expr::Dotted("\\A\\B\\P.P".into()),
            Expr::Dotted("\\A\\B\\I.I".into()),
            Expr::Dotted("\\A\\B\\T.T".into())
        ]
    );
    assert_eq!(f.defs[5].bases, [Expr::Dotted("\\A\\B\\I.I".into())], "enum implements");
    assert_eq!(f.defs[4].first_param, None, "static");
    assert_eq!(f.defs[3].first_param.as_deref(), Some("$this"));
    assert_eq!(f.defs[11].first_param, None, "a function has no receiver");
    assert!(f.defs[13].parent.is_none() && !f.defs[13].direct, "conditional definition");
}

#[test]
fn braced_namespaces_and_their_own_use_clauses() {
    let f = facts(
        "<?php\n\
         namespace A { use X\\Y; class K { function m() { new Y; new Z; } } }\n\
         namespace B { class L { function m() { new Y; } } }\n\
         namespace { class G { function m() { new Y; } } }\n",
    );
    assert_eq!(quals(&f), ["K", "K.m", "L", "L.m", "G", "G.m"]);
    assert_eq!(f.package.as_deref(), Some("A"));
    let news: Vec<&Callee> = callees(&f)
        .into_iter()
        .filter(|c| !matches!(c, Callee::Chain(s) if s.ends_with("__construct")))
        .collect();
    assert_eq!(news, [&chain("\\X\\Y.Y"), &chain("\\A\\Z.Z"), &chain("\\B\\Y.Y"), &chain("\\Y.Y")]);
}

#[test]
fn use_clauses_of_every_form() {
    let f = facts(
        "<?php\nnamespace App;\n\
         use Foo\\Bar, \\Foo\\Baz as Q;\n\
         use function Foo\\helper;\n\
         use const Foo\\LIMIT;\n\
         use Foo\\{A, B\\C as D, function f, const K};\n\
         use function Foo\\{g, h as hh};\n\
         use Top;\n",
    );
    let got: Vec<(&str, &str, Option<&str>, ImportForm, u32)> = f
        .imports
        .iter()
        .map(|i| {
            (i.module.as_str(), i.name.as_deref().unwrap(), i.alias.as_deref(), i.form, i.line)
        })
        .collect();
    use ImportForm::*;
    assert_eq!(
        got,
        [
            ("Foo", "Bar", None, Plain, 3),
            ("Foo", "Baz", Some("Q"), Plain, 3),
            ("Foo", "helper", None, Static, 4),
            ("Foo", "A", None, Plain, 6),
            ("Foo\\B", "C", Some("D"), Plain, 6),
            ("Foo", "f", None, Static, 6),
            ("Foo", "g", None, Static, 7),
            ("Foo", "h", Some("hh"), Static, 7),
            ("", "Top", None, Plain, 8),
        ]
    );
}

#[test]
fn names_resolve_as_php_does() {
    let f = facts(
        "<?php\nnamespace App\\Http;\n\
         use Lib\\Util;\n\
         use Lib\\Models as M;\n\
         use function Lib\\fmt;\n\
         function go() {\n\
           Util::a(); util::b(); \\Other\\X::c(); M\\User::d(); namespace\\Local::e(); Sub\\Y::f();\n\
           fmt(); strlen(); \\count(); Sub\\g(); namespace\\h();\n\
         }\n",
    );
    assert_eq!(
        callees(&f),
        [
            &chain("\\Lib\\Util.Util.a"),
            &chain("\\Lib\\Util.Util.b"),
            &chain("\\Other\\X.X.c"),
            &chain("\\Lib\\Models\\User.User.d"),
            &chain("\\App\\Http\\Local.Local.e"),
            &chain("\\App\\Http\\Sub\\Y.Y.f"),
            &chain("\\Lib\\fmt.fmt"),
            // Unqualified: the namespace's function, else the global one.
            &chain("App\\Http\\strlen.strlen"),
            &chain("\\count.count"),
            &chain("\\App\\Http\\Sub\\g.g"),
            &chain("\\App\\Http\\h.h"),
        ]
    );
    let g = facts("<?php\nfunction go() { f(); Foo::bar(); }\n");
    assert_eq!(callees(&g), [&chain("\\f.f"), &chain("\\Foo.Foo.bar")]);
}

#[test]
fn callees_of_every_shape() {
    let f = facts(
        "<?php\nnamespace N;\n\
         class A extends P {\n\
           private B $b;\n\
           public function m(C $c, $untyped) {\n\
             $this->x(); $this->b->y(); $c->z(); $c?->w(); $untyped->u();\n\
             self::s(); static::t(); parent::p(); $c::k();\n\
             $this->make()->run(); C::make()->go(); (new C)->q(); new self; new static();\n\
             $fn(); $this->$dyn(); $c->list[0]->v();\n\
           }\n\
           public static function st() { $this->nope(); }\n\
         }\n\
         function free() { $this->x(); self::y(); }\n",
    );
    use Callee::*;
    let want = [
        chain("$this.x"),
        chain("$this.b.y"),
        chain("$c.z"),
        chain("$c.w"),
        Attr("u".into()),
        chain("Self.s"),
        chain("Self.t"),
        chain("super.p"),
        chain("$c.k"),
        OnCall("$this.make".into(), "run".into()),
        chain("$this.make"),
        OnCall("\\N\\C.C.make".into(), "go".into()),
        chain("\\N\\C.C.make"),
        OnCall("\\N\\C.C".into(), "q".into()),
        chain("\\N\\C.C"),
        chain("\\N\\C.C.__construct"),
        Name("Self".into()),
        chain("Self.__construct"),
        Name("Self".into()),
        chain("Self.__construct"),
        Attr("v".into()),
        // No receiver in a static method or a function.
        Attr("nope".into()),
        Attr("x".into()),
        Attr("y".into()),
    ];
    assert_eq!(callees(&f), want.iter().collect::<Vec<_>>());
}

#[test]
fn traits_leave_this_to_the_class_using_them() {
    let f = facts(
        "<?php\ntrait T {\n\
           public function a() { $this->b(); $this->c(); self::b(); static::d(); parent::e(); }\n\
           public function b() {}\n\
         }\n\
         class K { public function m() { $o = new class { public function n() { $this->p(); } }; $this->m(); } }\n",
    );
    use Callee::*;
    assert_eq!(
        callees(&f),
        [
            &chain("$this.b"),
            &Attr("c".into()),
            &chain("Self.b"),
            &Attr("d".into()),
            &Attr("e".into()),
            &chain("\\K.K"),
            &chain("\\K.K.__construct"),
            &Attr("p".into()),
            &chain("$this.m"),
        ]
        .into_iter()
        .filter(|c| !matches!(c, Chain(s) if s.starts_with("\\K")))
        .collect::<Vec<_>>()
    );
}

#[test]
fn bindings_for_receivers() {
    let f = facts(
        "<?php\nnamespace N;\nuse X\\Repo;\n\
         class A {\n\
           private ?Repo $repo;\n\
           protected Foo|Bar|null $fb, $other;\n\
           private $plain = new Def();\n\
           public function __construct(private readonly Svc $svc, int $n, self $me) {\n\
             $this->repo = $svc->repo();\n\
             $this->alias = $svc;\n\
           }\n\
           public function m(Item ...$items) {\n\
             $v = new Vee(); $w = Maker::make(); $c = clone $v; $d = $this->repo;\n\
             try {} catch (E1 | \\X\\E2 $e) {}\n\
             if ($o instanceof Baz) {}\n\
             $a->b->c = new Deep();\n\
           }\n\
         }\n",
    );
    let got: Vec<(Option<DefIdx>, &str, &BindValue)> =
        f.binds.iter().map(|b| (b.owner, b.target.as_str(), &b.value)).collect();
    use BindValue::*;
    let a = |s: &str| Annotated(s.to_string());
    assert_eq!(
        got,
        [
            (Some(0), "repo", &a("\\X\\Repo.Repo")),
            (Some(0), "fb", &a("\\N\\Foo.Foo")),
            (Some(0), "fb", &a("\\N\\Bar.Bar")),
            (Some(0), "other", &a("\\N\\Foo.Foo")),
            (Some(0), "other", &a("\\N\\Bar.Bar")),
            (Some(0), "plain", &CallOf("\\N\\Def.Def".into())),
            (Some(0), "svc", &a("\\N\\Svc.Svc")),
            (Some(1), "$svc", &a("\\N\\Svc.Svc")),
            (Some(1), "$me", &a("Self")),
            (Some(1), "$this.repo", &CallOf("$svc.repo".into())),
            (Some(1), "$this.alias", &Alias("$svc".into())),
            (Some(2), "$v", &CallOf("\\N\\Vee.Vee".into())),
            (Some(2), "$w", &CallOf("\\N\\Maker.Maker.make".into())),
            (Some(2), "$c", &Alias("$v".into())),
            (Some(2), "$d", &Alias("$this.repo".into())),
            (Some(2), "$e", &a("\\N\\E1.E1")),
            (Some(2), "$e", &a("\\X\\E2.E2")),
            (Some(2), "$o", &a("\\N\\Baz.Baz")),
        ]
    );
}

#[test]
fn includes_of_literal_paths() {
    let f = facts(
        "<?php\n\
         require __DIR__ . '/bootstrap.php';\n\
         require_once dirname(__DIR__) . '/vendor/autoload.php';\n\
         include 'lib/x.php';\n\
         include_once(\"y.php\");\n\
         require dirname(__FILE__) . '/../z.php';\n\
         require dirname(__DIR__, 2) . '/w.php';\n\
         require $path;\n\
         require \"$dir/v.php\";\n\
         require __DIR__ . \"/u/{$x}.php\";\n",
    );
    let got: Vec<(&str, u32)> = f.imports.iter().map(|i| (i.module.as_str(), i.line)).collect();
    assert_eq!(
        got,
        [
            ("./bootstrap.php", 2),
            ("./../vendor/autoload.php", 3),
            ("lib/x.php", 4),
            ("y.php", 5),
            ("./../z.php", 6),
            ("./../../w.php", 7),
        ]
    );
    assert!(f.imports.iter().all(|i| i.name.is_none()));
}

#[test]
fn spans_doc_and_fold() {
    let src = "<?php\nnamespace P;\n\n/**\n * Does things.\n */\n#[Attr(1)]\n#[Other]\nfinal class Foo extends Bar\n{\n    /** Bar. */\n    #[Pure]\n    public static function bar(int $x): int\n    {\n        return $x;\n    }\n\n    abstract protected function q(): void;\n\n    // not a doc\n    function r() {}\n}\n";
    let f = facts(src);
    let foo = &f.defs[0];
    assert_eq!((foo.line_start, foo.line_head, foo.line_end), (4, 9, 22));
    let (ds, de) = foo.doc.unwrap();
    assert_eq!(&src[ds as usize..de as usize], "/**\n * Does things.\n */");
    assert_eq!(
        &src[foo.byte_head as usize..foo.byte_sig_end as usize],
        "final class Foo extends Bar"
    );
    let bar = &f.defs[1];
    assert_eq!((bar.line_start, bar.line_head, bar.line_end), (11, 13, 16));
    assert_eq!(
        &src[bar.byte_head as usize..bar.byte_sig_end as usize],
        "public static function bar(int $x): int"
    );
    let q = &f.defs[2];
    assert_eq!((q.line_start, q.line_end, q.doc), (18, 18, None));
    assert_eq!(
        &src[q.byte_head as usize..q.byte_sig_end as usize],
        "abstract protected function q(): void;"
    );
    assert_eq!((f.defs[3].line_start, f.defs[3].doc), (21, None));
    // A doc comment between the attributes and the declaration.
    let g = facts("<?php\n#[A]\n/** Doc. */\nfunction g() {}\n");
    assert_eq!((g.defs[0].line_start, g.defs[0].line_head), (2, 4));
    assert!(g.defs[0].doc.is_some());
}

#[test]
fn html_mixed_files_short_tags_and_heredocs() {
    let f = facts(
        "<html>\n<body>\n<?php function a() { b(); } ?>\n<p><?= $x ?></p>\n<? function c() {} ?>\n\
         <?php\n$s = <<<EOT\nclass NotAClass { function no() {} }\nEOT;\n$t = <<<'RAW'\n{$x} function nope() {}\nRAW;\n\
         class Real { function yes() { return <<<X\n  ?> <?php\n  X; } }\n?>\n</body></html>\n",
    );
    assert_eq!(quals(&f), ["a", "c", "Real", "Real.yes"]);
    assert_eq!(f.defs[0].line_head, 3);
    assert_eq!(f.syntax_errors, 0);
}

#[test]
fn bad_input_never_panics() {
    let broken = facts(
        "<?php\nclass A {\n  function ok() { f(); }\n  function bad( {\n}\nclass B { function z() {} }\n",
    );
    assert!(broken.syntax_errors > 0);
    assert!(quals(&broken).contains(&"A.ok".to_string()), "{:?}", quals(&broken));
    let crlf = facts("\u{feff}<?php\r\nnamespace P;\r\nclass A {\r\n  function m() {}\r\n}\r\n");
    assert_eq!(quals(&crlf), ["A", "A.m"]);
    assert_eq!(crlf.defs[1].line_head, 4);
    assert_eq!(crlf.package.as_deref(), Some("P"));
    let mut bytes = b"<?php class A { public $s = \"".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, 0x80]);
    bytes.extend_from_slice(b"\"; function m() {} }\n");
    assert_eq!(quals(&Extractor::new().extract(&bytes)), ["A", "A.m"]);
    let huge = format!("<?php class H {{ {} }}", "function m() { f(); } ".repeat(20_000));
    let h = facts(&huge);
    assert_eq!(h.lines, 1);
    assert_eq!(h.calls.len(), 20_000);
    assert!(h.generated);
    for s in [
        "",
        "<?php",
        "<?php }",
        "<?php class",
        "<?php class {",
        "<?php use ;",
        "<?php namespace",
        "<?php namespace ;",
        "<?php new",
        "<?php #[",
        "<?php /**",
        "<?php use A\\{",
        "<?php require",
        "<?php require __DIR__ .",
        "<?php require dirname(",
        "<?php $x->",
        "<?php A::",
        "?>",
        "<?php namespace A { class B {",
        "<?php function f(A|&B $x) {}",
        "plain text, no php",
    ] {
        facts(s);
    }
}

#[test]
fn phpdoc_types_untyped_properties_and_parameters() {
    let f = facts(
        "<?php\nnamespace N;\nuse X\\Files;\n\
         class A {\n\
           /** @var Files */\n\
           protected $files;\n\
           /**\n * @var \\Y\\Cache|null the cache\n */\n\
           private $cache;\n\
           /** @var string[] */\n\
           private $names;\n\
           /** @var Typed */\n\
           private Real $typed;\n\
           /**\n * @param  \\Illuminate\\Http\\Request  $request\n * @param  array  $opts\n * @param Other<int, Item> $other\n * @return static\n */\n\
           public function m($request, $opts, $other, Hinted $h) {}\n\
         }\n",
    );
    let got: Vec<(&str, &BindValue)> =
        f.binds.iter().map(|b| (b.target.as_str(), &b.value)).collect();
    let a = |s: &str| BindValue::Annotated(s.to_string());
    assert_eq!(
        got,
        [
            ("files", &a("\\X\\Files.Files")),
            ("cache", &a("\\Y\\Cache.Cache")),
            ("typed", &a("\\N\\Real.Real")),
            ("$request", &a("\\Illuminate\\Http\\Request.Request")),
            ("$other", &a("\\N\\Other.Other")),
            ("$h", &a("\\N\\Hinted.Hinted")),
        ]
    );
}

#[test]
fn files_of_php_throughout_are_read_by_the_php_only_dialect_alike() {
    assert!(php_throughout(b"<?php\nclass A {}\n"));
    assert!(php_throughout(b"\xEF\xBB\xBF<?PHP\nf();\n"));
    assert!(php_throughout(b"#!/usr/bin/env php\n<?php\nf();\n"));
    assert!(!php_throughout(b"<html><?php f(); ?></html>\n"));
    assert!(!php_throughout(b"<?php\nf();\n?>\n"));
    assert!(!php_throughout(b"<?= $x ?>"));
    assert!(!php_throughout(b""));
    // Every fixture file the dialect reads gives exactly the facts the full grammar gives.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/php");
    let mut files = vec![dir];
    let mut checked = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if p.extension().is_some_and(|e| e == "php") {
            let src = std::fs::read(&p).unwrap();
            if php_throughout(&src) {
                let f = Extractor::new().extract(&src);
                assert_eq!(f, Extractor::new().extract_as(false, &src), "{}", p.display());
                assert!(!f.defs.is_empty(), "{}", p.display());
                checked += 1;
            }
        }
    }
    assert!(checked >= 5, "only {checked} fixture files read");
}
