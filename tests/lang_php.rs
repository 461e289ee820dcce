//! PHP: entity IDs, spans, and the import / invoke / inherit edges the scope driver finds with
//! PHP's resolver (namespaces, `use`, composer.json autoload maps), on small in-memory
//! repositories; then the real binaries on a fixture package.

use crate::resolve::{assert_has, assert_lacks, entity_ids, graph_of, meta};

/// A small Composer package: models, a trait, a service, helpers and a test.
fn shop() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "composer.json",
            r#"{
  "name": "acme/shop",
  "autoload": {
    "psr-4": { "Acme\\Shop\\": "src/" },
    "files": ["src/helpers.php"]
  },
  "autoload-dev": { "psr-4": { "Acme\\Shop\\Tests\\": "tests/" } }
}"#,
        ),
        (
            "src/Model/Base.php",
            "<?php\n\
             namespace Acme\\Shop\\Model;\n\
             \n\
             abstract class Base\n\
             {\n\
             \x20   protected function init(): void {}\n\
             \x20   abstract public function name(): string;\n\
             \x20   public function save(): static { $this->init(); return $this; }\n\
             }\n",
        ),
        (
            "src/Model/Named.php",
            "<?php\n\
             namespace Acme\\Shop\\Model;\n\
             \n\
             interface Named\n\
             {\n\
             \x20   public function label(): string;\n\
             }\n",
        ),
        (
            "src/Model/Timestamps.php",
            "<?php\n\
             namespace Acme\\Shop\\Model;\n\
             \n\
             trait Timestamps\n\
             {\n\
             \x20   public function touch(): void { $this->stamp(); $this->name(); }\n\
             \x20   private function stamp(): void {}\n\
             }\n",
        ),
        (
            "src/Model/User.php",
            "<?php\n\
             namespace Acme\\Shop\\Model;\n\
             \n\
             use Acme\\Shop\\Support\\Str;\n\
             \n\
             /**\n\
             \x20* A user.\n\
             \x20*/\n\
             #[Entity]\n\
             final class User extends Base implements Named\n\
             {\n\
             \x20   use Timestamps;\n\
             \n\
             \x20   private ?Address $address = null;\n\
             \n\
             \x20   public function __construct(private string $id)\n\
             \x20   {\n\
             \x20       parent::init();\n\
             \x20   }\n\
             \n\
             \x20   public static function create(string $id): self\n\
             \x20   {\n\
             \x20       return new static(Str::trim($id));\n\
             \x20   }\n\
             \n\
             \x20   public function address(): Address { return $this->address; }\n\
             \n\
             \x20   public function name(): string { return $this->id; }\n\
             \n\
             \x20   public function label(): string { $this->touch(); return self::shout($this->name()); }\n\
             \n\
             \x20   private static function shout(string $s): string { return static::quiet($s); }\n\
             \n\
             \x20   private static function quiet(string $s): string { return $s; }\n\
             }\n",
        ),
        (
            "src/Model/Address.php",
            "<?php\n\
             namespace Acme\\Shop\\Model;\n\
             \n\
             class Address\n\
             {\n\
             \x20   public function city(): string { return 'x'; }\n\
             }\n",
        ),
        (
            "src/Service/UserService.php",
            "<?php\n\
             declare(strict_types=1);\n\
             \n\
             namespace Acme\\Shop\\Service;\n\
             \n\
             use Acme\\Shop\\Model\\{User, Named as HasLabel};\n\
             use Acme\\Shop\\Support\\Str as S;\n\
             use function Acme\\Shop\\Support\\slugify;\n\
             use Psr\\Log\\LoggerInterface;\n\
             \n\
             class UserService\n\
             {\n\
             \x20   public function __construct(private Repo $repo, private LoggerInterface $log) {}\n\
             \n\
             \x20   public function register(string $raw): User\n\
             \x20   {\n\
             \x20       $u = User::create(S::trim($raw));\n\
             \x20       $this->repo->save($u);\n\
             \x20       $this->audit($u);\n\
             \x20       $u->address()->city();\n\
             \x20       $this->log->info('x');\n\
             \x20       slugify($raw);\n\
             \x20       \\Acme\\Shop\\Support\\Str::pad($raw);\n\
             \x20       helper();\n\
             \x20       strlen($raw);\n\
             \x20       return $u;\n\
             \x20   }\n\
             \n\
             \x20   private function audit(HasLabel $n): void { $n->label(); }\n\
             \n\
             \x20   public function lookup(string $id): string\n\
             \x20   {\n\
             \x20       $found = $this->repo->find($id);\n\
             \x20       return $found->label();\n\
             \x20   }\n\
             }\n",
        ),
        (
            "src/Service/Repo.php",
            "<?php\n\
             namespace Acme\\Shop\\Service;\n\
             \n\
             use Acme\\Shop\\Model\\User;\n\
             \n\
             class Repo\n\
             {\n\
             \x20   public function save(User $u): void { $u->save(); }\n\
             \x20   public function find(string $id): User { return User::create($id); }\n\
             }\n",
        ),
        (
            "src/Support/Str.php",
            "<?php\n\
             namespace Acme\\Shop\\Support;\n\
             \n\
             final class Str\n\
             {\n\
             \x20   public static function trim(string $s): string { return \\trim($s); }\n\
             \x20   public static function pad(string $s): string { return self::trim($s); }\n\
             }\n\
             \n\
             function slugify(string $s): string { return Str::trim($s); }\n",
        ),
        (
            "src/helpers.php",
            "<?php\n\
             \n\
             if (!function_exists('helper')) {\n\
             \x20   function helper(): void {}\n\
             }\n",
        ),
        (
            "tests/Service/UserServiceTest.php",
            "<?php\n\
             namespace Acme\\Shop\\Tests\\Service;\n\
             \n\
             use Acme\\Shop\\Service\\{UserService, Repo};\n\
             use PHPUnit\\Framework\\TestCase;\n\
             \n\
             class UserServiceTest extends TestCase\n\
             {\n\
             \x20   public function testRegister(): void\n\
             \x20   {\n\
             \x20       $s = new UserService(new Repo(), $this->createMock('x'));\n\
             \x20       $s->register('x');\n\
             \x20   }\n\
             }\n",
        ),
    ]
}

#[test]
fn entity_ids_class_likes_methods_and_functions() {
    let (g, _) = graph_of(&shop());
    let want = [
        "src/helpers.php:helper",
        "src/Model/Address.php:Address",
        "src/Model/Address.php:Address.city",
        "src/Model/Base.php:Base",
        "src/Model/Base.php:Base.init",
        "src/Model/Base.php:Base.name",
        "src/Model/Base.php:Base.save",
        "src/Model/Named.php:Named",
        "src/Model/Named.php:Named.label",
        "src/Model/Timestamps.php:Timestamps",
        "src/Model/Timestamps.php:Timestamps.touch",
        "src/Model/Timestamps.php:Timestamps.stamp",
        "src/Model/User.php:User",
        "src/Model/User.php:User.__construct",
        "src/Model/User.php:User.create",
        "src/Model/User.php:User.address",
        "src/Model/User.php:User.name",
        "src/Model/User.php:User.label",
        "src/Model/User.php:User.shout",
        "src/Model/User.php:User.quiet",
        "src/Service/Repo.php:Repo",
        "src/Service/Repo.php:Repo.save",
        "src/Service/Repo.php:Repo.find",
        "src/Service/UserService.php:UserService",
        "src/Service/UserService.php:UserService.__construct",
        "src/Service/UserService.php:UserService.register",
        "src/Service/UserService.php:UserService.audit",
        "src/Service/UserService.php:UserService.lookup",
        "src/Support/Str.php:Str",
        "src/Support/Str.php:Str.trim",
        "src/Support/Str.php:Str.pad",
        "src/Support/Str.php:slugify",
        "tests/Service/UserServiceTest.php:UserServiceTest",
        "tests/Service/UserServiceTest.php:UserServiceTest.testRegister",
    ];
    assert_eq!(entity_ids(&g), want);
}

fn edges() -> Vec<String> {
    graph_of(&shop()).1
}

#[test]
fn use_imports_single_grouped_aliased_functions_and_external() {
    let e = edges();
    let svc = "src/Service/UserService.php";
    assert_has(&e, "src/Model/User.php import src/Support/Str.php:Str 0");
    // `use A\{User, Named as HasLabel}`: one edge per clause.
    assert_has(&e, &format!("{svc} import src/Model/User.php:User 0"));
    assert_has(&e, &format!("{svc} import src/Model/Named.php:Named 0"));
    assert_has(&e, &format!("{svc} import src/Support/Str.php:Str 0"));
    // `use function`: the function.
    assert_has(&e, &format!("{svc} import src/Support/Str.php:slugify 0"));
    // `use Psr\Log\LoggerInterface` and PHPUnit: outside the repository, no edge.
    assert_eq!(e.iter().filter(|l| l.starts_with(&format!("{svc} import"))).count(), 4);
    assert!(!e.iter().any(|l| l.contains("TestCase")));
}

#[test]
fn invokes_through_uses_aliases_typed_properties_and_return_types() {
    let e = edges();
    let reg = "src/Service/UserService.php:UserService.register invoke";
    // `User::create(S::trim($raw))`: a grouped use and an alias.
    assert_has(&e, &format!("{reg} src/Model/User.php:User.create 0"));
    assert_has(&e, &format!("{reg} src/Support/Str.php:Str.trim 0"));
    // `$this->repo->save($u)`: a promoted constructor property, a class of the same namespace
    // used without `use`.
    assert_has(&e, &format!("{reg} src/Service/Repo.php:Repo.save 0"));
    assert_has(&e, &format!("{reg} src/Service/UserService.php:UserService.audit 0"));
    // `$u->address()->city()`: `$u` from a static call's return type, then a declared return.
    assert_has(&e, &format!("{reg} src/Model/User.php:User.address 0"));
    assert_has(&e, &format!("{reg} src/Model/Address.php:Address.city 0"));
    // `use function`, a fully qualified static call, and an unqualified function that falls back
    // to the global one (a composer `files` helper inside `if (!function_exists(...))`).
    assert_has(&e, &format!("{reg} src/Support/Str.php:slugify 0"));
    assert_has(&e, &format!("{reg} src/Support/Str.php:Str.pad 0"));
    assert_has(&e, &format!("{reg} src/helpers.php:helper 0"));
    // An interface-typed parameter; a receiver typed by an external interface links nothing.
    assert_has(
        &e,
        "src/Service/UserService.php:UserService.audit invoke src/Model/Named.php:Named.label 0",
    );
    assert!(!e.iter().any(|l| l.contains(" invoke ") && l.contains(":info")));
    let lookup = "src/Service/UserService.php:UserService.lookup invoke";
    assert_has(&e, &format!("{lookup} src/Service/Repo.php:Repo.find 0"));
    assert_has(&e, &format!("{lookup} src/Model/User.php:User.label 0"));
    // `$u->save()` on `User`: inherited from `Base`.
    assert_has(&e, "src/Service/Repo.php:Repo.save invoke src/Model/Base.php:Base.save 0");
}

#[test]
fn self_static_parent_this_and_new() {
    let e = edges();
    let user = |q: &str| format!("src/Model/User.php:User.{q}");
    // `new static(...)`: the class and its constructor.
    assert_has(&e, &format!("{} invoke src/Model/User.php:User 0", user("create")));
    assert_has(&e, &format!("{} invoke {} 0", user("create"), user("__construct")));
    // `parent::init()`, `self::shout()`, `static::quiet()`, `$this->name()`.
    assert_has(&e, &format!("{} invoke src/Model/Base.php:Base.init 0", user("__construct")));
    assert_has(&e, &format!("{} invoke {} 0", user("label"), user("shout")));
    assert_has(&e, &format!("{} invoke {} 0", user("shout"), user("quiet")));
    assert_has(&e, &format!("{} invoke {} 0", user("label"), user("name")));
    // The class's own method, not the abstract one of its base.
    assert_lacks(&e, &format!("{} invoke src/Model/Base.php:Base.name", user("label")));
    // A trait's method through `$this` in the class using it.
    assert_has(
        &e,
        &format!("{} invoke src/Model/Timestamps.php:Timestamps.touch 0", user("label")),
    );
    // `new UserService(new Repo(), ...)`: classes and constructors across namespaces.
    let t = "tests/Service/UserServiceTest.php:UserServiceTest.testRegister invoke";
    assert_has(&e, &format!("{t} src/Service/UserService.php:UserService 0"));
    assert_has(&e, &format!("{t} src/Service/UserService.php:UserService.__construct 0"));
    assert_has(&e, &format!("{t} src/Service/Repo.php:Repo 0"));
    assert_has(&e, &format!("{t} src/Service/UserService.php:UserService.register 0"));
}

#[test]
fn inherit_edges_extends_implements_and_traits() {
    let e = edges();
    assert_has(&e, "src/Model/User.php:User inherit src/Model/Base.php:Base 0");
    assert_has(&e, "src/Model/User.php:User inherit src/Model/Named.php:Named 0");
    assert_has(&e, "src/Model/User.php:User inherit src/Model/Timestamps.php:Timestamps 0");
    // The base class of a dependency: nothing.
    assert!(
        !e.iter()
            .any(|l| l.starts_with("tests/Service/UserServiceTest.php:UserServiceTest inherit"))
    );
    let e = graph_of(&[
        ("lib/I.php", "<?php\nnamespace L;\ninterface I {}\ninterface J extends I, \\Countable {}\n"),
        ("lib/T.php", "<?php\nnamespace L;\ntrait T { use U; }\ntrait U { public function u() {} }\n"),
        (
            "lib/E.php",
            "<?php\nnamespace L;\nenum E: int implements J { use T; case A = 1; public function f() { $this->u(); } }\n",
        ),
    ])
    .1;
    assert_has(&e, "lib/I.php:J inherit lib/I.php:I 0");
    assert_has(&e, "lib/T.php:T inherit lib/T.php:U 0");
    assert_has(&e, "lib/E.php:E inherit lib/I.php:J 0");
    assert_has(&e, "lib/E.php:E inherit lib/T.php:T 0");
    // Through a trait's own trait.
    assert_has(&e, "lib/E.php:E.f invoke lib/T.php:U.u 0");
}

#[test]
fn trait_methods_call_what_the_using_class_has_as_guesses() {
    let e = edges();
    let touch = "src/Model/Timestamps.php:Timestamps.touch invoke";
    // Declared in the trait: exact.
    assert_has(&e, &format!("{touch} src/Model/Timestamps.php:Timestamps.stamp 0"));
    // Not declared in the trait: the methods of that name in its namespace, each a candidate.
    assert_eq!(meta(&e, &format!("{touch} src/Model/User.php:User.name")), 2);
    assert_eq!(meta(&e, &format!("{touch} src/Model/Base.php:Base.name")), 2);
}

#[test]
fn psr4_maps_choose_between_copies_and_nested_composer_files() {
    // The same class in a package and in a copy elsewhere (a fixture, a stub): the autoload
    // map decides. A monorepo's packages each carry a composer.json relative to themselves.
    let e = graph_of(&[
        (
            "composer.json",
            r#"{"autoload": {"psr-4": {"Illuminate\\": "src/Illuminate/"}}}"#,
        ),
        (
            "src/Illuminate/Support/composer.json",
            r#"{"autoload": {"psr-4": {"Illuminate\\Support\\": ""}}}"#,
        ),
        (
            "src/Illuminate/Support/Str.php",
            "<?php\nnamespace Illuminate\\Support;\nclass Str { public static function of() {} }\n",
        ),
        (
            "tests/fixtures/Str.php",
            "<?php\nnamespace Illuminate\\Support;\nclass Str { public static function of() {} }\n",
        ),
        (
            "src/Illuminate/Http/Request.php",
            "<?php\nnamespace Illuminate\\Http;\nuse Illuminate\\Support\\Str;\nclass Request { public function path() { return Str::of(); } }\n",
        ),
        (
            "legacy/composer.json",
            r#"{"autoload": {"psr-0": {"Twig_": "lib/"}}}"#,
        ),
        ("legacy/lib/Twig/Node/Expr.php", "<?php\nclass Twig_Node_Expr { public function c() {} }\n"),
        ("legacy/doc/Expr.php", "<?php\nclass Twig_Node_Expr { public function c() {} }\n"),
        (
            "legacy/lib/Twig/Env.php",
            "<?php\nclass Twig_Env { public function r(Twig_Node_Expr $e) { $e->c(); } }\n",
        ),
    ])
    .1;
    let path = "src/Illuminate/Http/Request.php:Request.path invoke";
    assert_has(&e, &format!("{path} src/Illuminate/Support/Str.php:Str.of 0"));
    assert_lacks(&e, &format!("{path} tests/fixtures/Str.php:Str.of"));
    assert_has(&e, "src/Illuminate/Http/Request.php import src/Illuminate/Support/Str.php:Str 0");
    assert_has(
        &e,
        "legacy/lib/Twig/Env.php:Twig_Env.r invoke legacy/lib/Twig/Node/Expr.php:Twig_Node_Expr.c 0",
    );
    assert_lacks(&e, "legacy/lib/Twig/Env.php:Twig_Env.r invoke legacy/doc/Expr.php");
}

#[test]
fn without_composer_classes_are_found_by_their_declaration() {
    let e = graph_of(&[
        ("a/One.php", "<?php\nnamespace X;\nclass One { public function go() {} }\nclass Two {}\n"),
        ("b/Three.php", "<?php\nnamespace Y;\nuse X\\Two;\nclass Three extends Two { public function m(\\X\\One $o) { $o->go(); } }\n"),
        // Same short name, other namespace: never linked by name alone.
        ("c/One.php", "<?php\nnamespace Z;\nclass One { public function go() {} }\n"),
        ("c/Four.php", "<?php\nnamespace W;\nclass Four { public function m() { One::go(); (new One)->go(); } }\n"),
    ])
    .1;
    assert_has(&e, "b/Three.php:Three inherit a/One.php:Two 0");
    assert_has(&e, "b/Three.php import a/One.php:Two 0");
    assert_has(&e, "b/Three.php:Three.m invoke a/One.php:One.go 0");
    assert_lacks(&e, "b/Three.php:Three.m invoke c/One.php:One.go");
    assert!(!e.iter().any(|l| l.starts_with("c/Four.php")), "{e:?}");
}

#[test]
fn require_and_include_of_literal_paths() {
    let e = graph_of(&[
        (
            "public/index.php",
            "<?php\nrequire __DIR__ . '/../bootstrap/app.php';\nrequire_once __DIR__ . '/../vendor/autoload.php';\ninclude 'lib/util.php';\n$app->run();\n",
        ),
        ("bootstrap/app.php", "<?php\n$app = new App();\nrequire dirname(__DIR__) . '/lib/util.php';\n"),
        ("lib/util.php", "<?php\nfunction util() {}\n"),
    ])
    .1;
    assert_has(&e, "public/index.php import bootstrap/app.php 0");
    // Relative to the including file first, then to the repository root.
    assert_has(&e, "public/index.php import lib/util.php 0");
    assert_has(&e, "bootstrap/app.php import lib/util.php 0");
    assert_eq!(e.iter().filter(|l| l.starts_with("public/index.php import")).count(), 2);
}

#[test]
fn unknown_receivers_are_guessed_only_nearby() {
    let e = graph_of(&[
        ("src/P/Jobs.php", "<?php\nnamespace P;\nclass Jobs { public function process() {} }\n"),
        ("src/Q/Tasks.php", "<?php\nnamespace Q;\nclass Tasks { public function process() {} }\n"),
        ("src/R/Lonely.php", "<?php\nnamespace R;\nclass Lonely { public function polish() {} }\n"),
        (
            "src/X/Runner.php",
            "<?php\nnamespace X;\nclass Runner {\n  public function go($things) {\n    foreach ($things as $t) { $t->process(); $t->polish(); $t->__toString(); }\n  }\n}\n",
        ),
        ("src/P/Caller.php", "<?php\nnamespace P;\nclass Caller { public function go($x) { $x->process(); } }\n"),
        (
            "src/Q/Two.php",
            "<?php\nnamespace Q;\nuse P\\Jobs;\nclass Two { public function go(array $xs) { array_map(fn($o) => $o->process(), $xs); } }\n",
        ),
        (
            "src/Q/Typed.php",
            "<?php\nnamespace Q;\nclass Typed { public function go(\\DateTime $d, Missing $m) { $d->polish(); $m->polish(); } }\n",
        ),
    ])
    .1;
    assert_lacks(&e, "src/X/Runner.php:Runner.go invoke src/P/Jobs.php:Jobs.process");
    assert_lacks(&e, "src/X/Runner.php:Runner.go invoke src/Q/Tasks.php:Tasks.process");
    // The only `polish` in the repository: a guess, marked as one.
    assert_eq!(meta(&e, "src/X/Runner.php:Runner.go invoke src/R/Lonely.php:Lonely.polish"), 1);
    assert_eq!(meta(&e, "src/P/Caller.php:Caller.go invoke src/P/Jobs.php:Jobs.process"), 1);
    assert_eq!(meta(&e, "src/Q/Two.php:Two.go invoke src/Q/Tasks.php:Tasks.process"), 2);
    assert_eq!(meta(&e, "src/Q/Two.php:Two.go invoke src/P/Jobs.php:Jobs.process"), 2);
    // A receiver of a known type outside the repository is never guessed.
    assert!(!e.iter().any(|l| l.starts_with("src/Q/Typed.php:Typed.go invoke")), "{e:?}");
}

#[test]
fn property_assignments_and_instanceof_type_receivers() {
    let e = graph_of(&[
        ("src/Mailer.php", "<?php\nnamespace App;\nclass Mailer { public function send() {} }\n"),
        ("src/Queue.php", "<?php\nnamespace App;\nclass Queue { public function push() {} }\n"),
        (
            "src/Notifier.php",
            "<?php\nnamespace App;\n\
             class Notifier {\n\
             \x20 protected $mailer;\n\
             \x20 private $queue;\n\
             \x20 public function __construct(Mailer $mailer) { $this->mailer = $mailer; $this->queue = new Queue(); }\n\
             \x20 public function notify($x) {\n\
             \x20   $this->mailer->send();\n\
             \x20   $this->queue->push();\n\
             \x20   if ($x instanceof Mailer) { $x->send(); }\n\
             \x20   try { } catch (Oops $e) { $e->report(); }\n\
             \x20 }\n\
             }\n\
             class Oops extends \\Exception { public function report() {} }\n",
        ),
    ])
    .1;
    let n = "src/Notifier.php:Notifier.notify invoke";
    assert_eq!(meta(&e, &format!("{n} src/Mailer.php:Mailer.send")), 0);
    assert_eq!(meta(&e, &format!("{n} src/Queue.php:Queue.push")), 0);
    assert_eq!(meta(&e, &format!("{n} src/Notifier.php:Oops.report")), 0);
}

#[test]
fn phpdoc_types_untyped_properties_and_parameters() {
    let e = graph_of(&[
        ("src/Filesystem.php", "<?php\nnamespace Illuminate\\Filesystem;\nclass Filesystem { public function get($p) {} }\n"),
        (
            "src/Compiler.php",
            "<?php\nnamespace Illuminate\\View;\n\
             use Illuminate\\Filesystem\\Filesystem;\n\
             class Compiler {\n\
             \x20   /**\n\
             \x20    * The filesystem instance.\n\
             \x20    *\n\
             \x20    * @var \\Illuminate\\Filesystem\\Filesystem\n\
             \x20    */\n\
             \x20   protected $files;\n\
             \x20   public function compile($path) { return $this->files->get($path); }\n\
             \x20   /**\n\
             \x20    * @param  Filesystem  $fs\n\
             \x20    * @return void\n\
             \x20    */\n\
             \x20   public function with($fs) { $fs->get('x'); }\n\
             }\n",
        ),
    ])
    .1;
    assert_eq!(
        meta(&e, "src/Compiler.php:Compiler.compile invoke src/Filesystem.php:Filesystem.get"),
        0
    );
    assert_eq!(
        meta(&e, "src/Compiler.php:Compiler.with invoke src/Filesystem.php:Filesystem.get"),
        0
    );
}

#[test]
fn broken_and_mixed_files_keep_their_definitions() {
    let bom_crlf = "\u{feff}<?php\r\nnamespace P;\r\n\r\nclass Ok {\r\n  function a() { $this->b(); }\r\n  function b() {}\r\n}\r\n";
    let broken = "<?php\nnamespace P;\nclass Broken {\n  function good() { Ok::x(); }\n  function bad( {\n}\n";
    let html = "<!doctype html>\n<?php use P\\Ok; ?>\n<ul><?php foreach ($xs as $x): ?>\n<li><?= (new Ok)->b() ?></li>\n<?php endforeach ?></ul>\n<?php function render() { (new Ok)->a(); } ?>\n";
    let (g, e) =
        graph_of(&[("src/Ok.php", bom_crlf), ("src/Broken.php", broken), ("views/x.php", html)]);
    let ids = entity_ids(&g);
    for id in ["src/Ok.php:Ok.a", "src/Broken.php:Broken.good", "views/x.php:render"] {
        assert!(ids.contains(&id.to_string()), "{id} in {ids:?}");
    }
    assert_has(&e, "src/Ok.php:Ok.a invoke src/Ok.php:Ok.b 0");
    assert_has(&e, "views/x.php:render invoke src/Ok.php:Ok.a 0");
    assert_has(&e, "views/x.php invoke src/Ok.php:Ok.b 0");
    let broken_node = g.nodes.iter().find(|n| n.id == b"src/Broken.php").unwrap();
    assert_ne!(broken_node.flags & cds::graph::FLAG_SYNTAX_ERROR, 0);
    let mut bad = b"<?php class Bin { public $s = \"".to_vec();
    bad.extend_from_slice(&[0xc3, 0x28, 0xff]);
    bad.extend_from_slice(b"\"; function m() {} }");
    let facts = cds::lang::Extractors::default().extract(cds::lang::Lang::Php, &bad);
    assert_eq!(facts.defs.len(), 2);
    // A generated table: one huge array literal.
    let table = format!("<?php\nreturn [\n{}];\n", "    'k' => [1, 2, 3, 'v'],\n".repeat(100_000));
    let (g, _) = graph_of(&[("data/table.php", &table)]);
    assert_eq!(entity_ids(&g).len(), 0);
}

#[test]
fn test_files_are_flagged() {
    let (g, _) = graph_of(&shop());
    let flag = |id: &str| {
        g.nodes.iter().find(|n| n.id == id.as_bytes()).unwrap().flags & cds::graph::FLAG_TEST != 0
    };
    assert!(flag("tests/Service/UserServiceTest.php"));
    assert!(!flag("src/Service/UserService.php"));
    let (g, _) = graph_of(&[
        ("src/Component/Foo/Tests/FooTest.php", "<?php\n"),
        ("src/Component/Foo/Tests/Fixtures/Bar.php", "<?php\n"),
        ("src/Component/Foo/Foo.php", "<?php\n"),
    ]);
    let flag = |id: &str| {
        g.nodes.iter().find(|n| n.id == id.as_bytes()).unwrap().flags & cds::graph::FLAG_TEST != 0
    };
    assert!(flag("src/Component/Foo/Tests/FooTest.php"));
    assert!(flag("src/Component/Foo/Tests/Fixtures/Bar.php"));
    assert!(!flag("src/Component/Foo/Foo.php"));
}

/// The real binaries on `tests/fixtures/php/ledger` (a small Composer package).
#[test]
fn binaries_on_a_php_fixture() {
    let d = crate::util::Dir::fixture("php-ledger", "php/ledger");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.starts_with("cds-build: 9 files (9 parsed), 37 entities"), "{err}");
    assert!(err.contains("php 9 files 37 entities"), "{err}");
    eqnice!(
        "src/Money/Amount.php:Amount\tclass\t9-48\tfinal class Amount implements \\JsonSerializable\n\
         src/Store/Entry.php:Entry.amount\tfunction\t9-9\tpublic function amount(): Amount;\n\
         views/balance.php:render_row\tfunction\t8-8\tfunction render_row(\\Ledger\\Store\\Entry $e): string\n",
        d.cmd("cds-get")
            .args([
                "--view",
                "fold",
                "src/Money/Amount.php:Amount",
                "src/Store/Entry.php:Entry.amount",
                "views/balance.php:render_row",
            ])
            .ok()
    );
    // The preview of a long class is a PHP skeleton: signatures and braces, bodies elided.
    let preview = d.cmd("cds-get").args(["--view", "preview", "src/Store/Report.php:Report"]).ok();
    assert!(
        preview.contains(
            "42 |     public function lines(): array\n43 |     {\n   |         ...  # lines 44-52 omitted\n53 |     }\n"
        ),
        "{preview}"
    );
    // Down from the report: a promoted property's method, a return type, a trait's method.
    let down =
        d.cmd("cds-trav").args(["--ids", "-r", "invoke", "src/Store/Report.php:Report.lines"]).ok();
    for callee in ["src/Store/Book.php:Book.balance", "src/Money/Formats.php:Formats.format"] {
        assert!(down.lines().any(|l| l == callee), "{callee} in:\n{down}");
    }
    // Up from `Amount.plus`: its callers across namespaces, the test's only with --tests.
    let up = d
        .cmd("cds-trav")
        .args(["--ids", "--tests", "-d", "up", "-r", "invoke", "src/Money/Amount.php:Amount.plus"])
        .ok();
    for caller in ["src/Store/Book.php:Book.balance", "src/Store/Report.php:Report.collect"] {
        assert!(up.lines().any(|l| l == caller), "{caller} in:\n{up}");
    }
    let subs = d
        .cmd("cds-trav")
        .args(["--tests", "-d", "up", "-r", "inherit", "src/Store/Entry.php:Entry"])
        .ok();
    assert!(subs.contains("tests/BookTest.php:Sale\tclass\t19-34\tfinal class Sale implements Entry\thop=1 inherits="), "{subs}");
    // `use function` and a require of a literal path.
    let imports = d.cmd("cds-trav").args(["--ids", "-r", "import", "views/balance.php"]).ok();
    assert!(imports.lines().any(|l| l == "src/functions.php"), "{imports}");
    // A search, one hop out, previews: the three tools in a pipeline.
    let got = crate::pipeline::sh(&d, "cds-search balance | cds-trav -h1 | cds-get --view fold");
    let out = String::from_utf8_lossy(&got.stdout);
    assert!(got.status.success(), "{out}");
    assert!(
        out.starts_with(
            "src/Store/Book.php:Book.balance\tfunction\t28-36\tpublic function balance(): Amount\n"
        ),
        "{out}"
    );
    for line in [
        "src/Money/Amount.php:Amount.plus\tfunction\t25-30\tpublic function plus(Amount $other): self\n",
        "src/Store/Report.php:Report.lines\tfunction\t37-53\tpublic function lines(): array\n",
    ] {
        assert!(out.contains(line), "{line} in:\n{out}");
    }
    // A PHP stack trace: the frames' functions rank first.
    let trace = "PHP Fatal error:  Uncaught Ledger\\Money\\CurrencyMismatch: cannot add EUR to USD in /srv/app/src/Money/Amount.php:40\n\
        Stack trace:\n\
        #0 /srv/app/src/Money/Amount.php(27): Ledger\\Money\\Amount->assertSameCurrency(Object(Ledger\\Money\\Amount))\n\
        #1 /srv/app/src/Store/Book.php(32): Ledger\\Money\\Amount->plus(Object(Ledger\\Money\\Amount))\n\
        #2 {main}\n  thrown in /srv/app/src/Money/Amount.php on line 40\n";
    let loc = d.cmd("cds-loc").stdin(trace).ok();
    let funcs = loc.split("# Functions and methods").nth(1).unwrap_or("");
    let first: Vec<&str> = funcs.lines().filter(|l| !l.trim().is_empty()).take(2).collect();
    assert!(first[0].contains("src/Money/Amount.php:Amount.assertSameCurrency"), "{loc}");
    assert!(first[1].contains("src/Money/Amount.php:Amount.plus"), "{loc}");
}
